//! The moves of one system state, as the operator tree combines them:
//! each an event and the components it changes, laid end to end in
//! buffers reused from state to state (no allocation per state).

use crate::lts::buffer::with_room;
use crate::process::EventId;

/// One move of a system state: an event and the components it changes.
#[derive(Debug, Clone, Copy)]
pub struct Move {
    pub event: EventId,
    /// Range into [`Moves::changes`].
    pub(super) start: u32,
    pub(super) len: u32,
}

/// One component's part in a move: it performs `event` itself (before
/// any hiding or renaming above it) and goes to its state `to`. Kept so
/// that a τ can say which event it hides: the event is known exactly
/// where the component moves, and nowhere above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub slot: u32,
    pub to: u32,
    pub event: EventId,
}

/// The moves of one system state; reused from state to state.
#[derive(Debug)]
pub struct Moves {
    pub list: Vec<Move>,
    pub(super) changes: Vec<Change>,
    /// Where the operands' moves start while a node combines them, on a
    /// stack shared with the nodes below (each pops what it pushes).
    pub(super) bounds: Vec<usize>,
    /// Candidate events of synchronisations, on a stack likewise.
    pub(super) events: Vec<EventId>,
    /// Events renamed while offers are listed.
    pub(super) renamed: Vec<EventId>,
    pub(super) pick: Vec<usize>,
    pub(super) parts: Vec<Move>,
    /// Buffers for a partial order reduction's stubborn sets.
    pub(super) stubborn: super::stubborn::Scratch,
}

/// Every buffer with room from the start: they are written for every
/// state, on every thread of a search ([`crate::lts::buffer`]).
impl Default for Moves {
    fn default() -> Moves {
        Moves {
            list: with_room(),
            changes: with_room(),
            bounds: with_room(),
            events: with_room(),
            renamed: with_room(),
            pick: with_room(),
            parts: with_room(),
            stubborn: Default::default(),
        }
    }
}

impl Moves {
    pub fn clear(&mut self) {
        self.list.clear();
        self.changes.clear();
    }

    /// The components a move changes, each with its new state and the
    /// event it performed.
    pub fn changes(&self, m: &Move) -> &[Change] {
        &self.changes[m.start as usize..(m.start + m.len) as usize]
    }

    /// `state` after move `m`.
    pub fn apply(&self, m: &Move, state: &[u32], out: &mut Vec<u32>) {
        out.clear();
        self.append(m, state, out);
    }

    /// Appends `state` after move `m` to `out` (rows laid end to end).
    #[inline]
    pub fn append(&self, m: &Move, state: &[u32], out: &mut Vec<u32>) {
        let start = out.len();
        out.extend_from_slice(state);
        let row = &mut out[start..];
        for change in self.changes(m) {
            row[change.slot as usize] = change.to;
        }
    }

    /// A move of one component.
    #[inline]
    pub(super) fn push_one(&mut self, event: EventId, slot: u32, target: u32) {
        let start = self.changes.len() as u32;
        self.changes.push(Change {
            slot,
            to: target,
            event,
        });
        self.list.push(Move {
            event,
            start,
            len: 1,
        });
    }

    /// One move made of several moves (`parts`), performing `event`.
    pub(super) fn join(&mut self, event: EventId, parts: &[Move]) {
        let start = self.changes.len() as u32;
        for m in parts {
            for k in m.start..m.start + m.len {
                let change = self.changes[k as usize];
                self.changes.push(change);
            }
        }
        let len = self.changes.len() as u32 - start;
        self.list.push(Move { event, start, len });
    }

    /// Every combination of one move from each range of moves delimited
    /// by `bounds[at..]`, joined as `event` and appended (the last range
    /// varies fastest).
    pub(super) fn product(&mut self, event: EventId, at: usize) {
        let ranges = self.bounds.len() - at - 1;
        let mut pick = std::mem::take(&mut self.pick);
        let mut parts = std::mem::take(&mut self.parts);
        pick.clear();
        pick.resize(ranges, 0);
        'combinations: loop {
            parts.clear();
            parts.extend((0..ranges).map(|i| self.list[self.bounds[at + i] + pick[i]]));
            self.join(event, &parts);
            // Next combination, odometer style.
            let mut i = ranges;
            loop {
                if i == 0 {
                    break 'combinations;
                }
                i -= 1;
                pick[i] += 1;
                if self.bounds[at + i] + pick[i] < self.bounds[at + i + 1] {
                    break;
                }
                pick[i] = 0;
            }
        }
        self.pick = pick;
        self.parts = parts;
    }

    /// Drops the moves `from..to`, keeping those after them.
    pub(super) fn remove(&mut self, from: usize, to: usize) {
        self.list.drain(from..to);
    }
}

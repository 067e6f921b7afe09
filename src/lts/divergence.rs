//! Divergence: whether a state can perform an unending run of τs, that
//! is, reach a τ-cycle by τs alone. Tarjan's strongly connected
//! components over the τ-transitions, iterative (no recursion however
//! long the τ-paths), with every state's answer remembered, so finding
//! the divergent states of a whole search costs one pass over its
//! τ-transitions.

use crate::eval::{EvalError, EvalResult};
use crate::process::{Processes, TAU};

use super::machine::{Machine, Moves};
use super::search::Canonicaliser;
use super::store::StateStore;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Unseen,
    /// On Tarjan's stack: its index, lowest index reachable, and its
    /// place on the stack.
    Open {
        index: u32,
        low: u32,
    },
    Closed {
        divergent: bool,
    },
}

/// Divergence of states numbered by the caller.
#[derive(Debug, Default)]
pub struct TauCycles {
    marks: Vec<Mark>,
    /// Per state on the stack: whether it has a τ to itself or to a
    /// closed divergent state.
    stack: Vec<(u32, bool)>,
    frames: Vec<Frame>,
    successors: Vec<u32>,
    found: Vec<u32>,
    counter: u32,
}

#[derive(Debug)]
struct Frame {
    state: u32,
    /// This frame's τ-successors are `successors[start..end]`; the next
    /// to look at is `at`.
    start: usize,
    at: usize,
    end: usize,
    /// Its place on `stack`.
    place: usize,
}

impl TauCycles {
    fn mark(&self, state: u32) -> Mark {
        self.marks
            .get(state as usize)
            .copied()
            .unwrap_or(Mark::Unseen)
    }

    fn set(&mut self, state: u32, mark: Mark) {
        let i = state as usize;
        if self.marks.len() <= i {
            self.marks.resize(i + 1, Mark::Unseen);
        }
        self.marks[i] = mark;
    }

    /// Whether `start` diverges; `tau_successors(s, out)` pushes the
    /// states `s` reaches by one τ. After an error (a stop by the budget
    /// included) the states the search had open are forgotten, so asking
    /// again starts afresh.
    pub fn diverges(
        &mut self,
        start: u32,
        tau_successors: &mut dyn FnMut(u32, &mut Vec<u32>) -> EvalResult<()>,
    ) -> EvalResult<bool> {
        let result = self.search(start, tau_successors);
        if result.is_err() {
            for i in 0..self.stack.len() {
                let state = self.stack[i].0;
                self.set(state, Mark::Unseen);
            }
            self.stack.clear();
            self.frames.clear();
            self.successors.clear();
        }
        result
    }

    fn search(
        &mut self,
        start: u32,
        tau_successors: &mut dyn FnMut(u32, &mut Vec<u32>) -> EvalResult<()>,
    ) -> EvalResult<bool> {
        if let Mark::Closed { divergent } = self.mark(start) {
            return Ok(divergent);
        }
        self.open(start, tau_successors)?;
        while let Some(frame) = self.frames.last_mut() {
            if frame.at < frame.end {
                let next = self.successors[frame.at];
                frame.at += 1;
                let (state, place) = (frame.state, frame.place);
                if next == state {
                    self.stack[place].1 = true;
                    continue;
                }
                match self.mark(next) {
                    Mark::Unseen => self.open(next, tau_successors)?,
                    Mark::Open { index, .. } => self.lower(state, index),
                    Mark::Closed { divergent } => self.stack[place].1 |= divergent,
                }
                continue;
            }
            let frame = self.frames.pop().expect("a frame");
            self.successors.truncate(frame.start);
            let Mark::Open { index, low } = self.mark(frame.state) else {
                unreachable!("a frame's state is open")
            };
            if index == low {
                self.close(frame.place);
            } else if let Some(parent) = self.frames.last() {
                let parent = parent.state;
                self.lower(parent, low);
            }
        }
        match self.mark(start) {
            Mark::Closed { divergent } => Ok(divergent),
            _ => unreachable!("the search closes its start"),
        }
    }

    /// Whether `state` is known to diverge: a search has closed it as
    /// divergent.
    fn known_divergent(&self, state: u32) -> bool {
        matches!(self.mark(state), Mark::Closed { divergent: true })
    }

    fn open(
        &mut self,
        state: u32,
        tau_successors: &mut dyn FnMut(u32, &mut Vec<u32>) -> EvalResult<()>,
    ) -> EvalResult<()> {
        let index = self.counter;
        self.counter += 1;
        self.set(state, Mark::Open { index, low: index });
        self.stack.push((state, false));
        self.found.clear();
        tau_successors(state, &mut self.found)?;
        let start = self.successors.len();
        self.successors.extend_from_slice(&self.found);
        self.frames.push(Frame {
            state,
            start,
            at: start,
            end: self.successors.len(),
            place: self.stack.len() - 1,
        });
        Ok(())
    }

    fn lower(&mut self, state: u32, to: u32) {
        if let Mark::Open { index, low } = self.mark(state) {
            self.set(
                state,
                Mark::Open {
                    index,
                    low: low.min(to),
                },
            );
        }
    }

    /// Closes the component whose root sits at `place` on the stack: it
    /// diverges if it has a cycle (more than one state, or a τ to
    /// itself) or reaches a divergent state.
    fn close(&mut self, place: usize) {
        let members = &self.stack[place..];
        let divergent = members.len() > 1 || members.iter().any(|&(_, bad)| bad);
        for i in place..self.stack.len() {
            let state = self.stack[i].0;
            self.set(state, Mark::Closed { divergent });
        }
        self.stack.truncate(place);
        // A state earlier on the stack that reached this component by τ
        // learns its answer when its frame looks at the edge: edges are
        // examined after the component closes only through `Closed`.
        if divergent && let Some(parent) = self.frames.last() {
            let place = parent.place;
            self.stack[place].1 = true;
        }
    }
}

/// How a divergent state diverges: the rows it passes through by τs,
/// starting with itself, until one repeats; `rows[start..]` is the loop
/// (the last row is `rows[start]` again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TauLoop {
    pub rows: Vec<Vec<u32>>,
    pub start: usize,
}

/// Divergence of the system states of a machine, by their rows.
pub struct Divergences {
    store: StateStore,
    cycles: TauCycles,
    moves: Moves,
    row: Vec<u32>,
    next: Vec<u32>,
}

impl Divergences {
    /// For rows of `width` components.
    pub fn new(width: usize) -> Divergences {
        Divergences {
            store: StateStore::new(width),
            cycles: TauCycles::default(),
            moves: Moves::default(),
            row: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Whether the system state `row` of `machine` diverges; with a
    /// canonicaliser (over rows of components only) the states met are
    /// its representatives. `row` must be one already (or the search is
    /// not reduced).
    ///
    /// The states met are held to the budget of `procs`'s meter like a
    /// search's: at most `max_states` of them, each counted as a step of
    /// work (so the clock, the cancel flag and memory are polled), and
    /// past the budget the answer is a stop ([`EvalError::stop_reason`]).
    pub fn diverges(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        mut canonicaliser: Option<&mut (dyn Canonicaliser + '_)>,
    ) -> EvalResult<bool> {
        let meter = procs.meter().clone();
        let stopped = |reason| {
            EvalError::stopped(reason).with_note(
                "it stopped looking for divergence: the states reachable by τ alone from one \
                 state are held to the same budget as the search",
            )
        };
        let (start, _) = self.store.insert_within(row, &meter).map_err(stopped)?;
        let Divergences {
            store,
            cycles,
            moves,
            row,
            next,
        } = self;
        cycles.diverges(start, &mut |state, out| {
            procs.evaluator().tick(1)?;
            store.read(state, row);
            machine.moves(procs, row, moves)?;
            for m in moves.list.iter().filter(|m| m.event == TAU) {
                moves.apply(m, row, next);
                if let Some(canonicaliser) = canonicaliser.as_deref_mut() {
                    canonicaliser.canonicalise(machine, procs, next)?;
                }
                let (id, _) = store.insert_within(next, &meter).map_err(stopped)?;
                out.push(id);
            }
            Ok(())
        })
    }

    /// The τ-loop `row` runs into, when it diverges (of representatives,
    /// with a canonicaliser).
    pub fn tau_loop(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        mut canonicaliser: Option<&mut (dyn Canonicaliser + '_)>,
    ) -> EvalResult<Option<TauLoop>> {
        if !self.diverges(machine, procs, row, canonicaliser.as_deref_mut())? {
            return Ok(None);
        }
        // Every state the search reached is closed; a divergent one has a
        // divergent τ-successor, so following them must come round.
        let mut ids = vec![self.store.insert(row).0];
        loop {
            let current = *ids.last().expect("the path starts with row");
            self.store.read(current, &mut self.row);
            machine.moves(procs, &self.row, &mut self.moves)?;
            let mut onward = None;
            for m in self.moves.list.iter().filter(|m| m.event == TAU) {
                self.moves.apply(m, &self.row, &mut self.next);
                if let Some(canonicaliser) = canonicaliser.as_deref_mut() {
                    canonicaliser.canonicalise(machine, procs, &mut self.next)?;
                }
                let id = self.store.insert(&self.next).0;
                if self.cycles.known_divergent(id) {
                    onward = Some(id);
                    break;
                }
            }
            let Some(next) = onward else {
                return Ok(None);
            };
            let repeated = ids.iter().position(|&id| id == next);
            ids.push(next);
            if let Some(start) = repeated {
                let rows = ids
                    .iter()
                    .map(|&id| {
                        let mut row = Vec::new();
                        self.store.read(id, &mut row);
                        row
                    })
                    .collect();
                return Ok(Some(TauLoop { rows, start }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Divergence on an explicit τ-graph.
    fn diverges(edges: &[(u32, u32)], start: u32, cycles: &mut TauCycles) -> bool {
        cycles
            .diverges(start, &mut |s, out| {
                out.extend(edges.iter().filter(|e| e.0 == s).map(|e| e.1));
                Ok(())
            })
            .unwrap()
    }

    #[test]
    fn cycles_self_loops_and_what_reaches_them() {
        // 0 -> 1 -> 2 -> 1 (cycle); 3 -> 3 (self loop); 4 -> 5 (no cycle);
        // 6 -> 4 and 6 -> 3.
        let edges = [(0, 1), (1, 2), (2, 1), (3, 3), (4, 5), (6, 4), (6, 3)];
        let mut cycles = TauCycles::default();
        assert!(diverges(&edges, 0, &mut cycles));
        assert!(diverges(&edges, 2, &mut cycles));
        assert!(!diverges(&edges, 4, &mut cycles));
        assert!(!diverges(&edges, 5, &mut cycles));
        assert!(diverges(&edges, 6, &mut cycles));
        assert!(diverges(&edges, 3, &mut cycles));
        // Asked in another order, with nothing remembered.
        let mut fresh = TauCycles::default();
        assert!(diverges(&edges, 6, &mut fresh));
        assert!(!diverges(&edges, 4, &mut fresh));
    }

    #[test]
    fn a_chain_reaching_a_cycle_late_diverges_and_a_long_chain_does_not_recurse() {
        let n = 200_000u32;
        for back in [false, true] {
            let mut cycles = TauCycles::default();
            let divergent = cycles
                .diverges(0, &mut |s, out| {
                    if s < n {
                        out.push(s + 1);
                    } else if back {
                        out.push(n - 5);
                    }
                    Ok(())
                })
                .unwrap();
            assert_eq!(divergent, back);
            // Every state on the way has its answer.
            assert_eq!(cycles.mark(n / 2), Mark::Closed { divergent: back });
        }
    }
}

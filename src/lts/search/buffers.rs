//! The search's working buffers, reused from block to block: the
//! parents of the states stored ([`Parents`]), a round's block and what
//! it fills ([`Round`]), the successors a visitor kept ([`KeptSuccessors`]), the
//! states left to the search's own thread ([`LaterStates`]), the block
//! expanded ahead ([`Ahead`]), rows copied out of the store ([`Rows`])
//! and the run's bookkeeping ([`Storing`]).

use std::sync::atomic::Ordering;

use crate::process::EventId;

use super::super::batch::Batch;
use super::super::expand::{Part, Successors};
use super::super::store::{PackedRows, StateStore};
use std::sync::Arc;

use crate::budget::Stopped;
use crate::budget::disk::Spill;

use super::phases::{Phase, Phases};
use super::{LevelCounts, Live};

/// Parent pointers, packed as the store packs its rows (the parent's id
/// in the bits the ids so far need, the event in the bits the events
/// need), in chunks: growing never copies (nor doubles) what is there.
pub(super) struct Parents {
    /// `(parent, event)` for each state after the first, packed.
    pairs: PackedRows,
}

impl Default for Parents {
    fn default() -> Parents {
        Parents {
            pairs: PackedRows::new(2),
        }
    }
}

impl Parents {
    pub(super) fn push(&mut self, (parent, event): (u32, EventId)) {
        self.pairs.push(&[parent, event]);
    }

    pub(super) fn get(&self, i: usize) -> (u32, EventId) {
        let mut pair = Vec::with_capacity(2);
        self.pairs.read(i, &mut pair);
        (pair[0], pair[1])
    }

    pub(super) fn len(&self) -> usize {
        self.pairs.len()
    }

    pub(super) fn bytes(&self) -> u64 {
        self.pairs.bytes()
    }

    /// Moves every full chunk of pointers to `spill`'s folder: a path is
    /// read back only for a counterexample.
    pub(super) fn spill(&mut self, spill: &Arc<Spill>) -> Result<u64, Stopped> {
        self.pairs.spill_before(self.pairs.len(), spill)
    }
}

/// One round of the search's loop: the block being judged and stored,
/// and the buffers its expansion filled and its judging fills.
#[derive(Default)]
pub(super) struct Round {
    /// The block's first state.
    pub(super) from: usize,
    /// How many of the block's states are ready to visit.
    pub(super) expanded: usize,
    pub(super) parts: Vec<Part>,
    pub(super) later: LaterStates,
    pub(super) kept: KeptSuccessors,
    pub(super) batch: Batch,
    /// An error judging a state: the states before it are stored and
    /// recorded first (their recording may end the search, which then
    /// does not depend on where the block ended), then it is returned.
    pub(super) visit_error: Option<crate::eval::EvalError>,
    /// Judging beside the next block's expansion, without the machine:
    /// how many states were judged before one whose successors' need it
    /// (a representative the threads could not find). The rest are
    /// judged once the expansion is done.
    pub(super) paused: Option<usize>,
}

/// Overlapping, the block after the round's, expanded by the other
/// threads while the search's thread judges and stores the round's.
#[derive(Default)]
pub(super) struct Ahead {
    /// How many of its states were expanded, once they were.
    pub(super) expanded: Option<usize>,
    pub(super) parts: Vec<Part>,
    /// Its rows, and those of the block after it (`spare`), copied out
    /// by the search's thread at the end of its share of the round
    /// before, so the others need not wait for the copy.
    pub(super) rows: Rows,
    pub(super) spare: Rows,
}

/// The successors the visitor kept, of the states visited in a block:
/// per state how many, per successor its event, and their rows in runs.
/// A state whose successors are all kept as they were made keeps them
/// where the threads made them, and they are stored from there: copying
/// them first cost dining's searches 1–4 %. Those the visitor filtered,
/// or a canonicaliser rewrote, are copied.
#[derive(Default)]
pub(super) struct KeptSuccessors {
    pub(super) counts: Vec<u32>,
    pub(super) events: Vec<EventId>,
    pub(super) runs: Vec<Run>,
    pub(super) copied: Vec<u32>,
    /// Reused by the visitor's filter.
    pub(super) filtered: Vec<u32>,
}

/// A run of kept rows: the numbers `range` of the rows in `at`.
pub(super) struct Run {
    pub(super) at: RowsAt,
    pub(super) range: std::ops::Range<usize>,
}

/// Where kept rows are: the successors of a block's part, of a part of
/// its left-out states ([`LaterStates::parts`]), or [`KeptSuccessors::copied`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum RowsAt {
    Part(usize),
    Later(usize),
    Copied,
}

impl KeptSuccessors {
    pub(super) fn clear(&mut self) {
        self.counts.clear();
        self.events.clear();
        self.runs.clear();
        self.copied.clear();
    }

    /// Keeps the rows `range` of `at`, after those kept so far.
    pub(super) fn keep(&mut self, at: RowsAt, range: std::ops::Range<usize>) {
        match self.runs.last_mut() {
            Some(last) if last.at == at && last.range.end == range.start => {
                last.range.end = range.end;
            }
            _ if range.is_empty() => {}
            _ => self.runs.push(Run { at, range }),
        }
    }

    /// The kept rows, run by run, in order.
    pub(super) fn rows<'a>(&'a self, parts: &'a [Part], later: &'a LaterStates) -> Vec<&'a [u32]> {
        let rows = |run: &Run| match run.at {
            RowsAt::Part(i) => &parts[i].successors.rows[run.range.clone()],
            RowsAt::Later(i) => &later.parts[i].successors.rows[run.range.clone()],
            RowsAt::Copied => &self.copied[run.range.clone()],
        };
        self.runs.iter().map(rows).collect()
    }
}

/// The bookkeeping of the run.
pub(super) struct Storing {
    /// The next state to visit.
    pub(super) next: usize,
    pub(super) depth: u32,
    /// The first state of the next breadth-first level, once known.
    pub(super) level_end: usize,
    /// The first state of a level whose start is not known yet (the
    /// successors of the states before it are still to be stored).
    pub(super) level_start: Option<usize>,
    pub(super) transitions: u64,
    pub(super) pairs: Vec<(EventId, u32)>,
    pub(super) since_poll: usize,
    pub(super) since_load_poll: usize,
    /// The state at which the current depth began.
    pub(super) deepened_at: usize,
    /// The counts through each level, once its first state is recorded.
    pub(super) levels: Vec<LevelCounts>,
    /// The states before it have every successor stored and the visitor
    /// told ([`Visitor::stored`](super::Visitor::stored)).
    pub(super) recorded: usize,
    /// Where the visitor ended the search on recording a state
    /// ([`Visitor::ends_after_stored`](super::Visitor::ends_after_stored)):
    /// that state's level ([`Storing::stop_level`]).
    pub(super) cut: Option<u32>,
    /// Where the search's thread spends the run, when asked for.
    pub(super) phases: Phases<Phase>,
}

/// The states of a block expanded after it, on their own once prepared
/// ([`Search::expand_later`]): their rows and the parts that expanded
/// them, in order, and where the next one's successors are.
#[derive(Default)]
pub(super) struct LaterStates {
    pub(super) rows: Vec<u32>,
    pub(super) parts: Vec<Part>,
    pub(super) next: LaterAt,
}

/// A place among [`LaterStates::parts`]' successors.
#[derive(Default, Clone, Copy)]
pub(super) struct LaterAt {
    pub(super) part: usize,
    pub(super) state: usize,
    pub(super) successor: usize,
}

/// Where the successors of a state of a block are.
pub(super) struct Expanded<'a> {
    /// Which buffer holds them.
    pub(super) at: RowsAt,
    /// The successors of the part they are in.
    pub(super) successors: &'a mut Successors,
    /// The first of them among `successors`, and how many there are.
    pub(super) first: usize,
    pub(super) count: usize,
    /// Whether a thread judged the state already.
    pub(super) judged: bool,
}

impl Expanded<'_> {
    /// Whether a successor's representative is still to be found: the
    /// threads could not (or were not asked to), and only the search's
    /// thread, with the machine, can.
    pub(super) fn unfound(&self) -> bool {
        let found = &self.successors.found;
        (self.first..self.first + self.count).any(|at| found.get(at) != Some(&true))
    }
}

impl LaterStates {
    /// Where the successors of the next of these states are.
    pub(super) fn next(&mut self) -> Expanded<'_> {
        let at = &mut self.next;
        while self.parts[at.part].counts.len() == at.state {
            *at = LaterAt {
                part: at.part + 1,
                ..LaterAt::default()
            };
        }
        let part = &mut self.parts[at.part];
        let count = part.counts[at.state] as usize;
        let judged = part.judged[at.state];
        at.state += 1;
        at.successor += count;
        let first = at.successor - count;
        Expanded {
            at: RowsAt::Later(at.part),
            successors: &mut part.successors,
            first,
            count,
            judged,
        }
    }
}

/// Rows of stored states copied out, laid end to end, and which.
#[derive(Default)]
pub(super) struct Rows {
    pub(super) rows: Vec<u32>,
    /// The states `from..to` copied.
    pub(super) range: (usize, usize),
}

impl Rows {
    pub(super) fn copy(&mut self, store: &StateStore, (from, to): (usize, usize)) {
        self.rows.clear();
        let mut row = Vec::with_capacity(store.width());
        for id in from..to {
            store.read(id as u32, &mut row);
            self.rows.extend_from_slice(&row);
        }
        self.range = (from, to);
    }
}

impl Storing {
    /// The level of state `id`, at which the visitor ended the search
    /// (every state before it recorded), with that level's counts in
    /// [`Storing::levels`] (pushed now when `id` begins its level and is
    /// not recorded itself: every state its level holds is stored then,
    /// and no later one, `stored` in all).
    pub(super) fn stop_level(&mut self, id: usize, stored: usize) -> u32 {
        // Recording `id` would have taken it as its level's start.
        if self.level_start == Some(id) {
            self.levels.push(LevelCounts {
                states: stored as u64,
                transitions: self.transitions,
            });
        }
        // Visiting may have gone on into the next level.
        self.depth - u32::from(id < self.deepened_at)
    }

    pub(super) fn publish(&self, live: &Live, states: usize) {
        live.states.store(states as u64, Ordering::Relaxed);
        live.transitions.store(self.transitions, Ordering::Relaxed);
        live.depth.store(self.depth as u64, Ordering::Relaxed);
    }
}

//! Breadth-first search through the supercombinator, shared by
//! exploration and by checks.
//!
//! A stored row is a system state (one local state number per component)
//! followed by `extra` columns its client owns — a check keeps the
//! normalised specification's node there, so a row is a product state.
//! The client is a [`Visitor`]: it sees every state once, in id order,
//! with its successors before they are stored, and may rewrite their
//! extra columns, drop them, or stop the search. States are numbered in
//! discovery order, so following parent pointers back from any state
//! gives a shortest path to it (τ included).
//!
//! States are expanded in blocks, on a pool of workers made once per run
//! ([`super::pool`]). For each block: every worker computes the
//! successors of its run of the block's states on integers only, the
//! machine shared read-only ([`super::expand`]); a state with a component
//! whose transitions are not known yet is left out, prepared afterwards
//! on the calling thread, the only one that evaluates CSPM, and then
//! expanded on every thread with the others so left. A visitor may lend
//! those threads a read-only copy of what it knows ([`SharedJudge`]),
//! with which they judge the states that are plainly fine as they
//! compute them. Then the visitor judges each state and its successors
//! (those not judged already), in order, on the calling thread; then the
//! successors it keeps are stored (split between the
//! workers when there are enough of them, [`super::batch`]). A block is
//! the whole frontier, up to [`BLOCK`] states, so narrow levels are
//! split between the workers too. When the visitor leaves the machine
//! alone, the workers expand the next block (the states stored already
//! after this one) while the calling thread judges this one (and, on
//! fewer than [`IN_PLACE_THREADS`] threads, stores it; on more, every
//! thread stores it once the next block is expanded), and evaluates
//! what the next block's states left out will need, and it then joins
//! them. A visitor that reduces may do so too when it can lend its
//! canonicaliser to the threads ([`Canonicaliser::lend`]: a check's
//! symmetry), which then find the next block's representatives as they
//! expand it; judging pauses at a successor whose representative only
//! the machine can make, and goes on once the expansion is done. Any
//! thread count numbers the states exactly as one does.
//!
//! **Symmetry reduction has one hook, here**: a visitor may hand the
//! search a [`Canonicaliser`], and then every row is replaced by its
//! representative before it is looked up and stored. The visitor still
//! sees each state's raw successors (and the raw events leading to
//! them), and parent pointers record those raw events from the stored
//! representative, so a path can be unwound into a path of the unreduced
//! system. This layer knows nothing of permutations: the symmetry layer
//! implements the trait.
//!
//! Here is the loop, a round per block; the hooks a client implements
//! are in [`super::hooks`], judging a round's states in `search/visit.rs`
//! and the buffers reused from round to round in `search/buffers.rs`.

use std::time::Instant;

pub use crate::budget::{Budget, Live, Stopped};

use crate::budget::{Meter, memory};
use crate::eval::{EvalError, EvalResult};
use crate::process::print::trace_text;
use crate::process::{EventId, ProcId, Processes, TAU};

mod buffers;
mod finish;
mod judge;
pub(crate) mod phases;
mod visit;

pub use super::hooks::{
    Canonicaliser, Context, DROP, Flow, Lendable, Scratch, SharedCanonicaliser, SharedJudge, Visit,
    Visitor,
};
use buffers::{Ahead, LaterAt, Parents, Round, Storing};
use phases::{Phase, Phases};
pub(crate) use visit::distinct_transitions;

use super::expand::{
    Block, LATER, PART_WORDS, Part, Shared, Sources, expand_block, expand_prepared, refused,
};
use super::machine::Machine;
use super::pool::Pool;
use super::store::StateStore;

/// The most states expanded per block. Larger blocks mean fewer
/// hand-overs to the workers and fewer rounds where the search's thread
/// works alone: on 16 cores, 32 768 explored the reduced ListStack (11,
/// 4, 3) in 2.35 s where 8 192 took 2.82 s (LockFreeQueue unreduced
/// 2.86 s and 3.09 s), for a few megabytes more of successors held.
pub const BLOCK: usize = 32_768;
/// The most states expanded per block by a search on one thread: their
/// successors (about a megabyte at 2048 states of six successors of
/// sixteen components) are judged and stored while they are still in
/// the core's cache, where a block of [`BLOCK`] states' are not.
const ALONE_BLOCK: usize = 2048;
/// The fewest threads on which a search whose visitor leaves the machine
/// alone stores each block split between every thread once the next is
/// expanded ([`Search::judge_beside_next_in_place`]), rather than on its
/// own thread beside the expansion. The split costs about three times
/// the work of storing alone: on 16 cores (LockFreeQueue (3, 3, 2)
/// explored) it took 3.8 s against 4.4 s, on 8 about 4.9 s against 5.2
/// s, on 4 7.3 s against about 6.3 s.
const IN_PLACE_THREADS: usize = 8;
/// The smallest half of a narrow frontier made a block of its own.
const MIN_HALF: usize = 256;
/// States stored (each counted with its successors) between two polls
/// of the meter (the clock, the cancel flag, memory).
const POLL_EVERY: usize = 4096;
/// States whose transitions are completed between two polls of the
/// meter (computing them evaluates CSPM, and a state may have many).
const LOAD_POLL_EVERY: usize = 64;

/// What a search did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub states: u64,
    /// Distinct `(state, event, state')` triples stored.
    pub transitions: u64,
    /// The deepest breadth-first level expanded.
    pub depth: u32,
    pub seconds: f64,
    /// `None` when every reachable state was visited.
    pub stopped: Option<Stopped>,
    /// Where a stopped run stopped, when the reason alone does not say
    /// (a search for divergence within the run that met too many states).
    pub notes: Vec<String>,
    /// The counts through each level whose first state was recorded,
    /// by level: how a check that failed at a state of that level
    /// counts.
    pub levels: Vec<LevelCounts>,
    /// Where a run the state budget or an evaluation error stopped left
    /// its states, so that a check may judge the rest of their level
    /// ([`Search::finish_level`]).
    pub left: Option<Left>,
}

/// Where a stopped run left its states: those before `recorded` have
/// every successor stored and the visitor told ([`Visitor::stored`]);
/// those before `visited` were judged; `failed` could not be expanded or
/// judged (an evaluation error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Left {
    pub recorded: u32,
    pub visited: u32,
    pub failed: Option<u32>,
}

/// The level of state `id` in a search whose counts through each level
/// are `levels` (as [`Outcome::levels`]): states are numbered level by
/// level. One past the last level known for a state after it.
pub fn level_of(levels: &[LevelCounts], id: u32) -> u32 {
    levels.partition_point(|counts| counts.states <= u64::from(id)) as u32
}

/// What a search has done by the time a level begins: the states of
/// that level and every level before it, and the transitions of the
/// states of the levels before it. Neither hangs on the order in which
/// a level's states are visited, so a search partitioned between
/// workers counts the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelCounts {
    pub states: u64,
    pub transitions: u64,
}

impl Outcome {
    /// Counts (states, transitions, depth) through `level`, as a check
    /// that failed at a state of that level reports them, when the
    /// search got so far.
    pub fn cut_at(&mut self, level: u32) {
        if let Some(counts) = self.levels.get(level as usize) {
            self.states = counts.states;
            self.transitions = counts.transitions;
            self.depth = level;
        }
    }
}

/// A breadth-first search in progress: the machine, the stored rows and
/// (when asked for) each state's parent.
pub struct Search {
    machine: Machine,
    store: StateStore,
    width: usize,
    row_width: usize,
    /// For each state after the first: the state it was found from and
    /// the event, when parents are recorded.
    parents: Option<Parents>,
    /// Whether a run has begun (the initial row is then final).
    started: bool,
}

impl Search {
    /// A search from `root` whose initial row ends with `extra` (its
    /// machine built within the evaluator's meter).
    pub fn new(
        procs: &mut Processes,
        root: ProcId,
        extra: &[u32],
        parents: bool,
    ) -> EvalResult<Search> {
        Ok(Search::with_machine(
            Machine::new(procs, root)?,
            extra,
            parents,
        ))
    }

    pub fn with_machine(machine: Machine, extra: &[u32], parents: bool) -> Search {
        let width = machine.components();
        let row_width = width + extra.len();
        let mut store = StateStore::new(row_width);
        let initial: Vec<u32> = machine.initial().iter().chain(extra).copied().collect();
        store.insert(&initial);
        Search {
            machine,
            store,
            width,
            row_width,
            parents: parents.then(Parents::default),
            started: false,
        }
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    pub fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    /// The machine back, with every component state the search met.
    pub fn into_machine(self) -> Machine {
        self.machine
    }

    /// Components per row (the extra columns follow).
    pub fn components(&self) -> usize {
        self.width
    }

    pub fn states(&self) -> usize {
        self.store.len()
    }

    /// States whose rows are on disk (spilled).
    pub fn states_on_disk(&self) -> usize {
        self.store.states_on_disk()
    }

    /// The bytes the stored states take in memory: rows, index and
    /// parents.
    pub fn bytes(&self) -> u64 {
        let parents = self.parents.as_ref().map_or(0, Parents::bytes);
        self.store.bytes() + parents
    }

    /// The row of state `id`.
    pub fn row(&self, id: u32) -> Vec<u32> {
        let mut row = Vec::with_capacity(self.row_width);
        self.store.read(id, &mut row);
        row
    }

    /// The events of a shortest path from the initial state to `id`, and
    /// the states along it (`id` last, the initial state first).
    pub fn path_to(&self, id: u32) -> (Vec<EventId>, Vec<u32>) {
        let parents = self
            .parents
            .as_ref()
            .expect("path_to needs a search that records parents");
        let mut events = Vec::new();
        let mut states = vec![id];
        let mut at = id;
        while at != 0 {
            let (parent, event) = parents.get(at as usize - 1);
            events.push(event);
            states.push(parent);
            at = parent;
        }
        events.reverse();
        states.reverse();
        (events, states)
    }

    /// Visits every reachable state breadth first, within `budget`: at
    /// most `max_states` states are stored, and the time-out, the cancel
    /// flag and the memory budget are polled while the components'
    /// transitions are computed, while successors are stored, and by
    /// the evaluator (which polls the same meter during the run). A run
    /// cut short says why in [`Outcome::stopped`], with the counts so
    /// far. An evaluation error ends it with the error.
    pub fn run(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        visitor: &mut dyn Visitor,
    ) -> EvalResult<Outcome> {
        match self.run_to_error(procs, budget, visitor) {
            (_, Some(error)) => Err(error),
            (outcome, None) => Ok(outcome),
        }
    }

    /// As [`Search::run`], but an evaluation error comes back beside the
    /// counts so far (for a client whose verdict may not hinge on it: a
    /// divergence judged before the error).
    pub fn run_to_error(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        visitor: &mut dyn Visitor,
    ) -> (Outcome, Option<EvalError>) {
        let started = Instant::now();
        let meter = budget.meter();
        let outer = procs.replace_meter(meter.clone());
        let mut storing = Storing {
            next: 0,
            depth: 0,
            level_end: 1,
            level_start: None,
            transitions: 0,
            pairs: Vec::new(),
            since_poll: 0,
            since_load_poll: 0,
            deepened_at: 0,
            // The initial state is the first level, all of it.
            levels: vec![LevelCounts {
                states: 1,
                transitions: 0,
            }],
            recorded: 0,
            cut: None,
            phases: Phases::from_env(),
        };
        let pool = Pool::new(budget.threads);
        let mut caller = Caller {
            procs: &mut *procs,
            budget,
            meter: &meter,
            visitor,
        };
        let result = self.search(&mut caller, &pool, &mut storing);
        procs.replace_meter(outer);
        let (stopped, notes, error) = match result {
            Ok(stopped) => (stopped, Vec::new(), None),
            Err(e) => match e.stop_reason() {
                Some(stop) => (Some(stop), e.notes.clone(), None),
                None => (None, Vec::new(), Some(e)),
            },
        };
        if let Some(live) = &budget.live {
            storing.publish(live, self.store.len());
        }
        let threads = pool.threads();
        let who = format!(
            "the search's thread, {threads} thread{}",
            if threads == 1 { "" } else { "s" }
        );
        if let Some(report) = storing.phases.report(&who, "blocks") {
            eprintln!("{report}");
        }
        // Ended by the visitor judging a state (the one after those
        // visited), or on recording one: counted through its level.
        let stop_level = match (stopped, storing.cut) {
            (_, Some(level)) => Some(level),
            (Some(Stopped::Visitor), None) => {
                Some(storing.stop_level(storing.next, self.store.len()))
            }
            _ => None,
        };
        // Stopped by the state budget, or by an error, the states of the
        // level it was in may be judged to its end.
        let left = (stopped == Some(Stopped::StateBudget) || error.is_some()).then(|| Left {
            recorded: storing.recorded as u32,
            visited: storing.next as u32,
            failed: error.is_some().then_some(storing.next as u32),
        });
        let mut outcome = Outcome {
            states: self.store.len() as u64,
            transitions: storing.transitions,
            depth: storing.depth,
            seconds: started.elapsed().as_secs_f64(),
            stopped,
            notes,
            levels: std::mem::take(&mut storing.levels),
            left,
        };
        if let Some(level) = stop_level {
            outcome.cut_at(level);
        }
        // A spill folder that failed may have handed the search wrong
        // rows: it stopped there, whatever it found since.
        if let Some(failure) = budget.spill.as_ref().and_then(|spill| spill.failure()) {
            outcome.stopped = Some(Stopped::Disk);
            if !outcome.notes.contains(&failure) {
                outcome.notes.push(failure);
            }
            return (outcome, None);
        }
        (outcome, error)
    }

    /// The loop of [`Search::run`], a round per block: `Some` reason when
    /// it stopped early (a stop inside evaluation comes back as an error
    /// that says so).
    fn search(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        storing: &mut Storing,
    ) -> EvalResult<Option<Stopped>> {
        if !self.started {
            self.started = true;
            self.canonicalise_initial(caller.procs, caller.visitor)?;
        }
        let reduced = caller.visitor.canonicaliser().is_some();
        // A canonicaliser that cannot be lent to the threads needs the
        // machine for every successor.
        let lendable = caller
            .visitor
            .canonicaliser()
            .is_none_or(|canonicaliser| canonicaliser.lend().is_some());
        let blocks = Blocks {
            overlap: pool.threads() > 1 && !caller.visitor.needs_machine() && lendable,
            most: if pool.threads() == 1 {
                ALONE_BLOCK
            } else {
                BLOCK
            },
        };
        let mut round = Round::default();
        let mut ahead = Ahead::default();
        loop {
            self.spill_if_short(caller.budget, storing.next)?;
            round.from = storing.next;
            round.expanded = match ahead.expanded.take() {
                Some(expanded) => expanded,
                None => {
                    let to = blocks.end(round.from, self.store.len());
                    if round.from == to {
                        return Ok(None);
                    }
                    let started = storing.phases.start();
                    let expanded = self.expand(caller, pool, &mut round.parts, (round.from, to));
                    storing.phases.add(Phase::Expand, started);
                    expanded?
                }
            };
            storing.phases.block();
            // A state whose successors the budget does not allow.
            if let Some(stop) = refused(&round.parts) {
                return Ok(Some(stop));
            }
            let started = storing.phases.start();
            let failed = self.expand_later(caller, pool, &mut round, storing);
            storing.phases.add(Phase::Prepare, started);
            // The states after this block stored already: with a visitor
            // that leaves the machine alone, the other threads expand them
            // while this one judges and stores the block (storing alone,
            // as the others are busy). Any thread count numbers the states
            // alike: they are judged and stored in order all the same.
            let next = round.from + round.expanded;
            // Storing split between the threads waits for the next
            // block's expansion, which then reads the store in place;
            // storing alone beside it, the next block is copied out.
            let in_place = blocks.overlap && pool.threads() >= IN_PLACE_THREADS;
            let next_to = if in_place {
                blocks.end(next, self.store.len())
            } else {
                if ahead.spare.range.0 == next && ahead.spare.range.1 > next {
                    std::mem::swap(&mut ahead.rows, &mut ahead.spare);
                } else if blocks.overlap {
                    let next_to = blocks.end(next, self.store.len());
                    ahead.rows.copy(&self.store, (next, next_to));
                }
                ahead.spare.range = (0, 0);
                ahead.rows.range.1
            };
            let stop = if blocks.overlap && next_to > next && failed.is_none() {
                if in_place {
                    let block = (next, next_to);
                    self.judge_beside_next_in_place(
                        caller, pool, &mut round, &mut ahead, storing, block,
                    )?
                } else {
                    self.judge_beside_next(caller, pool, &mut round, &mut ahead, storing, blocks)?
                }
            } else {
                self.judge(caller, pool, &mut round, storing)?
            };
            if let Some(stop) = stop {
                return Ok(Some(stop));
            }
            if let Some(error) = failed {
                return Err(self.placed(caller.procs, error, next, reduced));
            }
        }
    }

    /// Expands the block of states `range` on every thread, into `parts`:
    /// how many of its states were expanded.
    fn expand(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        parts: &mut Vec<Part>,
        range: (usize, usize),
    ) -> EvalResult<usize> {
        let judge = caller.visitor.shared_judge();
        // The representatives threads may find need what the
        // canonicaliser has learnt of the component states met.
        let canonicaliser = match caller.visitor.canonicaliser() {
            Some(canonicaliser) => {
                canonicaliser.prepare(&self.machine, caller.procs)?;
                canonicaliser.shared()
            }
            None => None,
        };
        let shared = Shared {
            canonicaliser,
            judge: judge.as_deref(),
        };
        let block = Block {
            sources: Sources::Store(&self.store),
            range,
            machine: &self.machine,
            width: self.width,
            shared,
            meter: caller.meter,
        };
        Ok(expand_block(pool, parts, block))
    }

    /// `error`, met computing the moves of state `id`, with the trace
    /// that first reached the state, where that trace is known: the
    /// search records parents (a check's does) and follows raw states
    /// (a reduced search's path joins representatives, whose events are
    /// no trace of the process).
    fn placed(&self, procs: &Processes, error: EvalError, id: usize, reduced: bool) -> EvalError {
        let Ok(id) = u32::try_from(id) else {
            return error;
        };
        if id == 0 || reduced || self.parents.is_none() || error.stop_reason().is_some() {
            return error;
        }
        let (path, _) = self.path_to(id);
        let visible: Vec<String> = path
            .iter()
            .filter(|&&event| event != TAU)
            .map(|&event| procs.show_event(event))
            .collect();
        let hidden = if visible.len() < path.len() {
            " (and τ steps)"
        } else {
            ""
        };
        error.with_note(format!(
            "met in a state the process reaches after {}{hidden}",
            trace_text(&visible)
        ))
    }

    /// Prepares, on this thread (evaluating CSPM), the states of the
    /// round's block (the first `expanded` of its parts) whose components
    /// were not all prepared, in order, and then expands them on every
    /// thread. Leaves in the round how many of the block's states are
    /// ready to visit: all of them, or those before the first whose
    /// preparation failed, with the error returned. The error is
    /// reported once the states before it are judged, so a breach at an
    /// earlier state comes first wherever blocks end.
    fn expand_later(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        round: &mut Round,
        storing: &mut Storing,
    ) -> Option<EvalError> {
        let later = &mut round.later;
        later.rows.clear();
        let mut left = round.expanded;
        // The states before the first whose preparation failed, or the
        // first left to the next block.
        let mut ready = 0;
        let mut failed = None;
        // What expanding them here may hold, as the other threads keep to
        // [`PART_WORDS`]: a state's successors guessed at one per
        // component (interleaved components each move alone). The rest
        // are expanded with the next block.
        let most = (PART_WORDS / (self.row_width * self.width).max(1)).max(1);
        let mut taken = 0;
        'parts: for part in &round.parts {
            let states = part.counts.len().min(left);
            left -= states;
            for (i, &count) in part.counts[..states].iter().enumerate() {
                if count == LATER {
                    if taken == most {
                        break 'parts;
                    }
                    taken += 1;
                    let row = &part.sources[i * self.row_width..(i + 1) * self.row_width];
                    if let Err(error) = self.prepare_later(caller, row, storing) {
                        failed = Some(error);
                        break 'parts;
                    }
                    later.rows.extend_from_slice(row);
                }
                ready += 1;
            }
        }
        let judge = caller.visitor.shared_judge();
        let shared = Shared {
            canonicaliser: caller.visitor.canonicaliser().and_then(|c| c.shared()),
            judge: judge.as_deref(),
        };
        let block = Block {
            sources: Sources::Copied {
                rows: &later.rows,
                width: self.row_width,
            },
            range: (0, later.rows.len() / self.row_width.max(1)),
            machine: &self.machine,
            width: self.width,
            shared,
            meter: caller.meter,
        };
        expand_prepared(pool, &mut later.parts, block);
        if let Some(stop) = refused(&later.parts) {
            round.expanded = 0;
            return Some(EvalError::stopped(stop));
        }
        later.next = LaterAt::default();
        round.expanded = ready;
        failed
    }

    /// Prepares a state a block left to this thread (evaluating CSPM),
    /// polling the meter every [`LOAD_POLL_EVERY`] states.
    fn prepare_later(
        &mut self,
        caller: &mut Caller<'_, '_>,
        row: &[u32],
        storing: &mut Storing,
    ) -> EvalResult<()> {
        storing.since_load_poll += 1;
        if storing.since_load_poll >= LOAD_POLL_EVERY {
            storing.since_load_poll = 0;
            caller.meter.poll().map_err(EvalError::stopped)?;
        }
        self.machine.prepare(caller.procs, &row[..self.width])?;
        if let Some(canonicaliser) = caller.visitor.canonicaliser() {
            canonicaliser.prepare(&self.machine, caller.procs)?;
        }
        Ok(())
    }

    /// Spills the store when memory is short
    /// ([`StateStore::spill_when_short`]), and then every parent pointer
    /// too (read back only for a counterexample). A folder that failed
    /// stops the search, saying why.
    fn spill_if_short(&mut self, budget: &Budget, next: usize) -> EvalResult<()> {
        let Some(spill) = &budget.spill else {
            return Ok(());
        };
        let spilt =
            self.store
                .spill_when_short(budget, next)
                .and_then(|spilt| match &mut self.parents {
                    Some(parents) if spilt => parents.spill(spill).map(|_| spilt),
                    _ => Ok(spilt),
                });
        match spilt {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(stop) => return Err(EvalError::stopped(stop)),
        }
        if let Some(live) = &budget.live {
            live.spilled(self.store.states_on_disk(), spill);
        }
        memory::give_back_freed();
        Ok(())
    }

    /// Replaces the initial row by its representative, when the visitor
    /// reduces by symmetry.
    fn canonicalise_initial(
        &mut self,
        procs: &mut Processes,
        visitor: &mut dyn Visitor,
    ) -> EvalResult<()> {
        let Some(canonicaliser) = visitor.canonicaliser() else {
            return Ok(());
        };
        let mut row = self.row(0);
        canonicaliser.canonicalise(&mut self.machine, procs, &mut row)?;
        self.store = StateStore::new(self.row_width);
        self.store.insert(&row);
        Ok(())
    }
}

/// What the caller of [`Search::run`] lends its loop: the evaluator,
/// the budget and its meter, and the visitor.
struct Caller<'r, 'p> {
    procs: &'r mut Processes<'p>,
    budget: &'r Budget,
    meter: &'r Meter,
    visitor: &'r mut dyn Visitor,
}

impl Caller<'_, '_> {
    /// Every [`POLL_EVERY`] states stored: the live counts published
    /// (`states` of them) and the meter polled.
    fn poll(&self, storing: &mut Storing, states: usize) -> Result<(), Stopped> {
        if storing.since_poll >= POLL_EVERY {
            storing.since_poll = 0;
            if let Some(live) = &self.budget.live {
                storing.publish(live, states);
            }
            self.meter.poll()?;
        }
        Ok(())
    }
}

/// How the loop cuts the stored states into blocks.
#[derive(Clone, Copy)]
struct Blocks {
    /// Whether the next block is expanded while this one is judged and
    /// stored (a visitor that leaves the machine alone, several threads).
    overlap: bool,
    /// The most states in a block.
    most: usize,
}

impl Blocks {
    /// Where a block starting at state `from` ends when `stored` states
    /// are stored: at most [`Blocks::most`] states. Overlapping, a
    /// frontier narrower than two blocks is halved (down to [`MIN_HALF`]
    /// states), so that some of it is left to expand while the first
    /// half is judged; narrow levels then use every thread too.
    fn end(self, from: usize, stored: usize) -> usize {
        let available = stored - from;
        let take = if self.overlap && (2 * MIN_HALF..2 * self.most).contains(&available) {
            available.div_ceil(2)
        } else {
            available.min(self.most)
        };
        from + take
    }
}

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
//! after this one) while the calling thread judges and stores this one,
//! and evaluates what the next block's states left out will need, and
//! it then joins them. Any thread count numbers the states exactly as
//! one does.
//!
//! **Symmetry reduction has one hook, here**: a visitor may hand the
//! search a [`Canonicaliser`], and then every row is replaced by its
//! representative before it is looked up and stored. The visitor still
//! sees each state's raw successors (and the raw events leading to
//! them), and parent pointers record those raw events from the stored
//! representative, so a path can be unwound into a path of the unreduced
//! system. This layer knows nothing of permutations: the symmetry layer
//! implements the trait.

use std::time::Instant;

pub use crate::budget::{Budget, Live, Stopped};

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult};
use crate::process::print::trace_text;
use crate::process::{EventId, ProcId, Processes, TAU};

mod buffers;

pub use super::hooks::{
    Canonicaliser, Context, DROP, Flow, Scratch, SharedCanonicaliser, SharedJudge, Visit, Visitor,
};
use buffers::{Kept, Later, LaterAt, Parents, Rows, RowsAt, Storing};

use super::batch::Batch;
use super::expand::{
    Block, LATER, PART_WORDS, Part, Shared, Sources, expand_block, expand_block_beside,
    expand_prepared, refused,
};
use super::machine::Machine;
use super::pool::Pool;
use super::store::StateStore;

/// The most states expanded per block.
pub const BLOCK: usize = 8192;
/// The most states expanded per block by a search on one thread: their
/// successors (about a megabyte at 2048 states of six successors of
/// sixteen components) are judged and stored while they are still in
/// the core's cache, where a block of [`BLOCK`] states' are not.
const ALONE_BLOCK: usize = 2048;
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

    /// The bytes the stored states take: rows, index and parents.
    pub fn bytes(&self) -> u64 {
        let parents = self.parents.as_ref().map_or(0, |p| {
            (p.chunks.len() * Parents::CHUNK * std::mem::size_of::<(u32, EventId)>()) as u64
        });
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
        };
        let pool = Pool::new(budget.threads);
        let result = self.search(procs, budget, &meter, &pool, visitor, &mut storing);
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
        let outcome = Outcome {
            states: self.store.len() as u64,
            transitions: storing.transitions,
            depth: storing.depth,
            seconds: started.elapsed().as_secs_f64(),
            stopped,
            notes,
        };
        (outcome, error)
    }

    /// The loop of [`Search::run`]: `Some` reason when it stopped early
    /// (a stop inside evaluation comes back as an error that says so).
    fn search(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        meter: &Meter,
        pool: &Pool,
        visitor: &mut dyn Visitor,
        storing: &mut Storing,
    ) -> EvalResult<Option<Stopped>> {
        if !self.started {
            self.started = true;
            self.canonicalise_initial(procs, visitor)?;
        }
        let mut parts: Vec<Part> = Vec::new();
        let mut later = Later::default();
        let mut kept = Kept::default();
        let mut batch = Batch::default();
        // Overlapping: the next block, expanded while this one was judged
        // and stored (how many of its states), its parts and rows.
        let reduced = visitor.canonicaliser().is_some();
        let overlap = pool.threads() > 1 && !visitor.needs_machine() && !reduced;
        let most = if pool.threads() == 1 {
            ALONE_BLOCK
        } else {
            BLOCK
        };
        let mut ahead: Option<usize> = None;
        let mut ahead_parts: Vec<Part> = Vec::new();
        // The rows of the block to expand next, and of the one after it,
        // copied out by the search's thread at the end of its share of
        // the block before (so the others need not wait for the copy).
        let mut ahead_rows = Rows::default();
        let mut spare_rows = Rows::default();
        let alone = Pool::new(1);
        loop {
            let from = storing.next;
            let expanded = match ahead.take() {
                Some(expanded) => expanded,
                None => {
                    let to = block_end(from, self.store.len(), overlap, most);
                    if from == to {
                        return Ok(None);
                    }
                    let judge = visitor.shared_judge();
                    // The representatives threads may find need what the
                    // canonicaliser has learnt of the component states met.
                    let canonicaliser = match visitor.canonicaliser() {
                        Some(canonicaliser) => {
                            canonicaliser.prepare(&self.machine, procs)?;
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
                        range: (from, to),
                        machine: &self.machine,
                        width: self.width,
                        shared,
                        meter,
                    };
                    expand_block(pool, &mut parts, block)
                }
            };
            // A state whose successors the budget does not allow.
            if let Some(stop) = refused(&parts) {
                return Ok(Some(stop));
            }
            let block = (&parts[..], expanded);
            let (expanded, failed) =
                self.expand_later(procs, meter, pool, visitor, block, &mut later, storing);
            // The states after this block stored already: with a visitor
            // that leaves the machine alone, the other threads expand them
            // while this one judges and stores the block (storing alone,
            // as the others are busy). Any thread count numbers the states
            // alike: they are judged and stored in order all the same.
            let next = from + expanded;
            if spare_rows.range.0 == next && spare_rows.range.1 > next {
                std::mem::swap(&mut ahead_rows, &mut spare_rows);
            } else if overlap {
                let next_to = block_end(next, self.store.len(), overlap, most);
                ahead_rows.copy(&self.store, (next, next_to));
            }
            spare_rows.range = (0, 0);
            let (_, next_to) = ahead_rows.range;
            // Evaluating ahead scans the next block's rows: worth it
            // while blocks still leave states out, as this one did (in
            // most searches only the first few do).
            let evaluate = !later.rows.is_empty();
            let stop = if overlap && next_to > next && failed.is_none() {
                let sources = Sources::Copied {
                    rows: &ahead_rows.rows,
                    width: self.row_width,
                };
                // What the visitor knows before judging this block: the
                // next is expanded meanwhile.
                let judge = visitor.shared_judge();
                let shared = Shared {
                    canonicaliser: None,
                    judge: judge.as_deref(),
                };
                let Search {
                    machine,
                    store,
                    parents,
                    width,
                    row_width,
                    ..
                } = self;
                let machine: &Machine = machine;
                let block = Block {
                    sources,
                    range: (next, next_to),
                    machine,
                    width: *width,
                    shared,
                    meter,
                };
                let (ahead_expanded, stop) = expand_block_beside(
                    pool,
                    &mut ahead_parts,
                    block,
                    || -> EvalResult<Option<Stopped>> {
                        let widths = (*width, *row_width);
                        let (visited, stop) = Search::visit_block(
                            (store, None, widths),
                            (procs, budget, meter, visitor),
                            (&mut parts, &mut later, &mut kept, storing, expanded),
                        )?;
                        let rows = kept.rows(&parts, &later);
                        let refused = batch.store(store, &rows, &alone, meter);
                        Search::record(parents, store.len(), visitor, &kept, &batch, from, storing);
                        debug_assert!(stop.is_some() || visited == expanded);
                        let stop = refused.or(stop);
                        if stop.is_none() {
                            spare_rows.copy(
                                store,
                                (next_to, block_end(next_to, store.len(), true, most)),
                            );
                            if evaluate {
                                let rows = &ahead_rows.rows;
                                evaluate_ahead(machine, procs, rows, *row_width, *width);
                            }
                        }
                        Ok(stop)
                    },
                );
                std::mem::swap(&mut parts, &mut ahead_parts);
                ahead = Some(ahead_expanded);
                stop?
            } else {
                let widths = (self.width, self.row_width);
                let (visited, stop) = Search::visit_block(
                    (&self.store, Some(&mut self.machine), widths),
                    (procs, budget, meter, visitor),
                    (&mut parts, &mut later, &mut kept, storing, expanded),
                )?;
                let rows = kept.rows(&parts, &later);
                let refused = batch.store(&mut self.store, &rows, pool, meter);
                let stored = self.store.len();
                Search::record(
                    &mut self.parents,
                    stored,
                    visitor,
                    &kept,
                    &batch,
                    from,
                    storing,
                );
                debug_assert!(stop.is_some() || visited == expanded);
                refused.or(stop)
            };
            if let Some(stop) = stop {
                return Ok(Some(stop));
            }
            if let Some(error) = failed {
                return Err(self.placed(procs, error, next, reduced));
            }
        }
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

    /// Prepares, on this thread (evaluating CSPM), the states of the block
    /// (the first `expanded` of `parts`) whose components were not all
    /// prepared, in order, and then expands them on every thread. Returns
    /// how many of the block's states are ready to visit: all of them, or
    /// those before the first whose preparation failed, with the error.
    /// The error is reported once the states before it are judged, so a
    /// breach at an earlier state comes first wherever blocks end.
    #[allow(clippy::too_many_arguments)]
    fn expand_later(
        &mut self,
        procs: &mut Processes,
        meter: &Meter,
        pool: &Pool,
        visitor: &mut dyn Visitor,
        (parts, expanded): (&[Part], usize),
        later: &mut Later,
        storing: &mut Storing,
    ) -> (usize, Option<EvalError>) {
        later.rows.clear();
        let mut left = expanded;
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
        'parts: for part in parts {
            let states = part.counts.len().min(left);
            left -= states;
            for (i, &count) in part.counts[..states].iter().enumerate() {
                if count == LATER {
                    if taken == most {
                        break 'parts;
                    }
                    taken += 1;
                    let row = &part.sources[i * self.row_width..(i + 1) * self.row_width];
                    if let Err(error) = self.prepare_later(procs, meter, visitor, row, storing) {
                        failed = Some(error);
                        break 'parts;
                    }
                    later.rows.extend_from_slice(row);
                }
                ready += 1;
            }
        }
        let judge = visitor.shared_judge();
        let shared = Shared {
            canonicaliser: visitor.canonicaliser().and_then(|c| c.shared()),
            judge: judge.as_deref(),
        };
        let rows = (&later.rows[..], self.row_width);
        let machine = &self.machine;
        expand_prepared(
            pool,
            &mut later.parts,
            rows,
            (machine, self.width),
            shared,
            meter,
        );
        if let Some(stop) = refused(&later.parts) {
            return (0, Some(EvalError::stopped(stop)));
        }
        later.next = LaterAt::default();
        (ready, failed)
    }

    /// Prepares a state a block left to this thread (evaluating CSPM),
    /// polling the meter every [`LOAD_POLL_EVERY`] states.
    fn prepare_later(
        &mut self,
        procs: &mut Processes,
        meter: &Meter,
        visitor: &mut dyn Visitor,
        row: &[u32],
        storing: &mut Storing,
    ) -> EvalResult<()> {
        storing.since_load_poll += 1;
        if storing.since_load_poll >= LOAD_POLL_EVERY {
            storing.since_load_poll = 0;
            meter.poll().map_err(EvalError::stopped)?;
        }
        self.machine.prepare(procs, &row[..self.width])?;
        if let Some(canonicaliser) = visitor.canonicaliser() {
            canonicaliser.prepare(&self.machine, procs)?;
        }
        Ok(())
    }

    /// Lets the visitor judge the block's states in order (the first
    /// `expanded` of them), keeping the successors it keeps, canonicalised
    /// when it reduces; how many it visited, and why it stopped early.
    /// The machine is lent to the visitor when given (it is not when
    /// other threads are expanding the next block with it).
    #[allow(clippy::type_complexity)]
    fn visit_block(
        (store, mut machine, (components, width)): (
            &StateStore,
            Option<&mut Machine>,
            (usize, usize),
        ),
        (procs, budget, meter, visitor): (&mut Processes, &Budget, &Meter, &mut dyn Visitor),
        (parts, later, kept, storing, expanded): (
            &mut [Part],
            &mut Later,
            &mut Kept,
            &mut Storing,
            usize,
        ),
    ) -> EvalResult<(usize, Option<Stopped>)> {
        kept.clear();
        let reducing = visitor.canonicaliser().is_some();
        let mut visited = 0;
        for (p, part) in parts.iter_mut().enumerate() {
            // Where the part's next state's successors are.
            let mut own = 0;
            for i in 0..part.counts.len() {
                if visited == expanded {
                    return Ok((visited, None));
                }
                // A state counts with its successors (counted below, once
                // known: a state left to this thread has its own): one
                // with thousands of wide successors is as much work as
                // thousands of states.
                if storing.since_poll >= POLL_EVERY {
                    storing.since_poll = 0;
                    if let Some(live) = &budget.live {
                        storing.publish(live, store.len());
                    }
                    if let Err(stop) = meter.poll() {
                        return Ok((visited, Some(stop)));
                    }
                }
                let id = storing.next;
                if id >= storing.level_end {
                    storing.depth += 1;
                    storing.level_start = Some(id);
                    // Known once the successors of the states before this
                    // one are stored; no state of this block is past it.
                    storing.level_end = usize::MAX;
                }
                let row = &part.sources[i * width..(i + 1) * width];
                let (at, out, first, count, judged) = if part.counts[i] == LATER {
                    let (l, out, first, count, judged) = later.next();
                    (RowsAt::Later(l), out, first, count, judged)
                } else {
                    let count = part.counts[i] as usize;
                    own += count;
                    let judged = part.judged[i];
                    (
                        RowsAt::Part(p),
                        &mut part.successors,
                        own - count,
                        count,
                        judged,
                    )
                };
                storing.since_poll += 1 + count;
                let events = &out.events[first..first + count];
                let successors = &mut out.rows[first * width..(first + count) * width];
                let flow = visitor.visit(
                    Context {
                        procs: &mut *procs,
                        machine: machine.as_deref_mut(),
                        store,
                    },
                    Visit {
                        id: id as u32,
                        row,
                        events,
                        successors: &mut *successors,
                        depth: storing.depth,
                        judged,
                    },
                )?;
                let start = kept.copied.len();
                let mut kept_here = 0;
                match flow {
                    Flow::Stop => return Ok((visited, Some(Stopped::Visitor))),
                    Flow::Prune => {}
                    Flow::Continue if !reducing => {
                        kept.keep(at, first * width..(first + count) * width);
                        kept.events.extend_from_slice(events);
                        kept_here = count;
                    }
                    Flow::Continue => {
                        kept.copied.extend_from_slice(successors);
                        kept.events.extend_from_slice(events);
                    }
                    Flow::Filter => {
                        for (k, row) in successors.chunks_exact(width).enumerate() {
                            if row.get(components) != Some(&DROP) {
                                kept.copied.extend_from_slice(row);
                                kept.events.push(events[k]);
                            }
                        }
                    }
                }
                if let Some(canonicaliser) = visitor.canonicaliser() {
                    // Each kept successor's place among the state's, where
                    // a thread may have found its representative already.
                    kept.filtered.clear();
                    match flow {
                        Flow::Continue => kept.filtered.extend(0..count as u32),
                        Flow::Filter => kept.filtered.extend(
                            successors
                                .chunks_exact(width)
                                .enumerate()
                                .filter(|(_, row)| row.get(components) != Some(&DROP))
                                .map(|(k, _)| k as u32),
                        ),
                        _ => {}
                    }
                    let stride = out.images.len().checked_div(out.found.len()).unwrap_or(0);
                    for (row, &k) in kept.copied[start..]
                        .chunks_exact_mut(width)
                        .zip(&kept.filtered)
                    {
                        let at = first + k as usize;
                        if out.found.get(at) == Some(&true) {
                            row[..components].copy_from_slice(
                                &out.representatives[at * components..(at + 1) * components],
                            );
                            let images = &out.images[at * stride..(at + 1) * stride];
                            canonicaliser.finish(procs, row, images)?;
                        } else {
                            let machine = machine
                                .as_deref_mut()
                                .expect("a canonicalising visitor has the machine");
                            canonicaliser.canonicalise(machine, procs, row)?;
                        }
                    }
                }
                let copied = kept.copied.len();
                kept.keep(RowsAt::Copied, start..copied);
                kept_here += (copied - start) / width;
                kept.counts.push(kept_here as u32);
                storing.next += 1;
                visited += 1;
            }
        }
        Ok((visited, None))
    }

    /// After a block's kept successors are stored (all, or up to a
    /// refusal): parent pointers, the visitor's `stored`, transitions and
    /// levels, state by state in order.
    fn record(
        parents: &mut Option<Parents>,
        stored: usize,
        visitor: &mut dyn Visitor,
        kept: &Kept,
        batch: &Batch,
        from: usize,
        storing: &mut Storing,
    ) {
        let mut at = 0;
        for (i, &count) in kept.counts.iter().enumerate() {
            let id = from + i;
            if storing.level_start == Some(id) {
                storing.level_start = None;
                storing.level_end = stored.min(
                    // The first state of the next level: the first id
                    // given to a successor of this one or a later one.
                    batch.ids[at..]
                        .iter()
                        .find(|&&(_, new)| new)
                        .map_or(usize::MAX, |&(target, _)| target as usize),
                );
            }
            let count = count as usize;
            let stored = batch.ids.len().saturating_sub(at).min(count);
            let ids = &batch.ids[at..at + stored];
            let events = &kept.events[at..at + stored];
            if let Some(parents) = parents {
                for (&event, &(target, new)) in events.iter().zip(ids) {
                    if new {
                        parents.push((id as u32, event));
                    }
                    debug_assert!(!new || parents.len == target as usize);
                }
            }
            // Cut short by the budget, the search ends here: the visitor
            // hears only of states whose successors are all stored.
            if stored == count {
                visitor.stored(id as u32, events, ids);
            }
            storing.transitions += distinct_transitions(events, ids, &mut storing.pairs);
            at += count;
            if stored < count {
                return;
            }
        }
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

/// Does the evaluation that preparing the states of `rows` (the block
/// the other threads are expanding meanwhile) will need, without
/// changing the machine they read ([`Machine::evaluate_ahead`]): the
/// states they leave to this thread then cost it no evaluation once they
/// finish, when it would otherwise evaluate alone. In the order the
/// states are prepared, so the process layer numbers what it meets as
/// on any number of threads. Stops at the first error, which is met
/// again, and reported in order, when its state is prepared.
fn evaluate_ahead(
    machine: &Machine,
    procs: &mut Processes,
    rows: &[u32],
    row_width: usize,
    width: usize,
) {
    for (i, row) in rows.chunks_exact(row_width).enumerate() {
        // Only work ahead: a stop is met again, and reported, where the
        // search polls (a block of wide rows takes long to scan).
        if i % 64 == 63 && procs.meter().poll().is_err() {
            return;
        }
        if machine.evaluate_ahead(procs, &row[..width]).is_err() {
            return;
        }
    }
}

/// Where a block starting at state `from` ends when `stored` states are
/// stored: at most `block` states. Overlapping, a frontier narrower
/// than two blocks is halved (down to [`MIN_HALF`] states), so that
/// some of it is left to expand while the first half is judged; narrow
/// levels then use every thread too.
fn block_end(from: usize, stored: usize, overlap: bool, block: usize) -> usize {
    let available = stored - from;
    let take = if overlap && (2 * MIN_HALF..2 * block).contains(&available) {
        available.div_ceil(2)
    } else {
        available.min(block)
    };
    from + take
}

/// How many distinct `(event, target)` pairs a state's successors
/// make: by comparing each with those before it when there are few (most
/// states), by sorting when there are many.
fn distinct_transitions(
    events: &[EventId],
    ids: &[(u32, bool)],
    pairs: &mut Vec<(EventId, u32)>,
) -> u64 {
    const FEW: usize = 16;
    let pair = |k: usize| (events[k], ids[k].0);
    if ids.len() <= FEW {
        (0..ids.len())
            .filter(|&k| (0..k).all(|j| pair(j) != pair(k)))
            .count() as u64
    } else {
        pairs.clear();
        pairs.extend((0..ids.len()).map(pair));
        pairs.sort_unstable();
        pairs.dedup();
        pairs.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_transitions_count_each_event_and_target_once_few_or_many() {
        let mut pairs = Vec::new();
        for len in [0, 1, 5, 16, 17, 40] {
            // Events and targets repeating with different periods, so
            // some pairs repeat and some do not.
            let events: Vec<EventId> = (0..len).map(|k| (k % 3) as EventId).collect();
            let ids: Vec<(u32, bool)> = (0..len).map(|k| ((k % 4) as u32, false)).collect();
            let expected: std::collections::BTreeSet<_> = events
                .iter()
                .zip(&ids)
                .map(|(&e, &(t, _))| (e, t))
                .collect();
            assert_eq!(
                distinct_transitions(&events, &ids, &mut pairs),
                expected.len() as u64,
                "{len} successors"
            );
        }
    }
}

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
//! States are expanded in blocks. For each block the components'
//! transitions are first completed on the calling thread (the only step
//! that evaluates CSPM); then the block's successors are computed on
//! integers only, the machine shared read-only; then the visitor judges
//! them and they are stored, on the calling thread, in order. When the
//! visitor does not need the machine itself, judging and storing one
//! block overlaps computing the next block's successors on the other
//! threads. Any thread count numbers the states exactly as one does.
//!
//! **Symmetry reduction has one hook, here**: a visitor may hand the
//! search a [`Canonicaliser`], and then every row is replaced by its
//! representative before it is looked up and stored. The visitor still
//! sees each state's raw successors (and the raw events leading to
//! them), and parent pointers record those raw events from the stored
//! representative, so a path can be unwound into a path of the unreduced
//! system. This layer knows nothing of permutations: the symmetry layer
//! implements the trait.

use std::sync::atomic::Ordering;
use std::time::Instant;

pub use crate::budget::{Budget, Live, Stopped};

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult};
use crate::process::{EventId, ProcId, Processes};

use super::machine::{Machine, Moves};
use super::store::StateStore;

/// States expanded per block.
const BLOCK: usize = 8192;
/// States stored between two polls of the meter (the clock, the cancel
/// flag, memory).
const POLL_EVERY: usize = 4096;
/// States whose transitions are completed between two polls of the
/// meter (computing them evaluates CSPM, and a state may have many).
const LOAD_POLL_EVERY: usize = 64;
/// The most numbers (successor rows laid end to end) one part of a block
/// holds before it stops expanding: 16 MiB.
const PART_WORDS: usize = 1 << 22;

/// What the visitor decides about a state's successors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Store every successor.
    Continue,
    /// Store the successors whose first extra column is not [`DROP`].
    Filter,
    /// Store none.
    Prune,
    /// End the search here.
    Stop,
}

/// Marks a successor the visitor drops (with [`Flow::Filter`]).
pub const DROP: u32 = u32::MAX;

/// One state and its successors, as a visitor sees them.
pub struct Visit<'a> {
    pub id: u32,
    /// The state's row: components, then extra columns.
    pub row: &'a [u32],
    /// Each successor's event (τ and ✓ included), in the machine's order.
    pub events: &'a [EventId],
    /// The successors' rows laid end to end, extra columns copied from
    /// the state's; the visitor may rewrite the extra columns.
    pub successors: &'a mut [u32],
    /// The breadth-first level of the state.
    pub depth: u32,
}

/// What the visitor may use besides the state: the process layer always,
/// the machine only when it asked for it ([`Visitor::needs_machine`]).
pub struct Context<'a, 's> {
    pub procs: &'a mut Processes<'s>,
    pub machine: Option<&'a mut Machine>,
}

/// Maps a state onto the representative of its symmetry class.
///
/// The row holds the components of a system state, then the extra
/// columns of the search it belongs to; the canonicaliser rewrites all of
/// it (a check keeps the specification's node in its extra column, which
/// the permutation that made the representative maps too). It may add
/// component states to the machine's tables, so it runs on the thread
/// that owns the machine.
pub trait Canonicaliser {
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()>;

    /// The part that may run on the threads computing successors, if it
    /// has one.
    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        None
    }

    /// Gets ready for [`SharedCanonicaliser::try_components`] on
    /// successors of the states the machine has met (on the thread that
    /// owns the machine, before they are computed).
    fn prepare(&mut self, _machine: &Machine, _procs: &mut Processes) -> EvalResult<()> {
        Ok(())
    }

    /// Finishes a row whose components a thread replaced by their
    /// representative's with the permutation `images`
    /// ([`SharedCanonicaliser::try_components`]): the extra columns.
    fn finish(
        &mut self,
        _procs: &mut Processes,
        _row: &mut [u32],
        _images: &[u16],
    ) -> EvalResult<()> {
        Ok(())
    }
}

/// What a canonicaliser can do on the threads computing successors:
/// read what it has learnt and change nothing. What it cannot do there
/// (a state it has not met) is left to [`Canonicaliser::canonicalise`]
/// on the search's own thread, in the order the successors are stored,
/// so the states stored never depend on the number of threads.
pub trait SharedCanonicaliser: Sync {
    /// Buffers for one thread.
    fn scratch(&self) -> Scratch;

    /// Replaces the components `row` by their representative's and
    /// writes the permutation onto `images`; `false` (and `row` as it
    /// was) when that needs what only the search's thread can do.
    fn try_components(
        &self,
        scratch: &mut Scratch,
        machine: &Machine,
        row: &mut [u32],
        images: &mut Vec<u16>,
    ) -> bool;
}

/// A thread's buffers for a [`SharedCanonicaliser`], whatever they are.
pub struct Scratch(pub Box<dyn std::any::Any + Send>);

/// A search's client: judges each state and its successors.
pub trait Visitor {
    /// Whether [`Visitor::visit`] needs the machine (to compute moves of
    /// states of its own choosing). The search then stops overlapping
    /// judging with computing successors.
    fn needs_machine(&self) -> bool {
        false
    }

    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow>;

    /// The canonicaliser whose representatives the search stores instead
    /// of the states themselves (symmetry reduction); none by default.
    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        None
    }

    /// After a state's successors are stored: their `(id, new)` in the
    /// order of the successors kept.
    fn stored(&mut self, _state: u32, _events: &[EventId], _ids: &[(u32, bool)]) {}
}

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

/// Parent pointers, in chunks of fixed size: growing never copies (nor
/// doubles) what is there.
#[derive(Default)]
struct Parents {
    chunks: Vec<Vec<(u32, EventId)>>,
    len: usize,
}

impl Parents {
    const CHUNK: usize = 1 << 16;

    fn push(&mut self, parent: (u32, EventId)) {
        if self.len.is_multiple_of(Self::CHUNK) {
            self.chunks.push(Vec::with_capacity(Self::CHUNK));
        }
        self.chunks
            .last_mut()
            .expect("a chunk with room")
            .push(parent);
        self.len += 1;
    }

    fn get(&self, i: usize) -> (u32, EventId) {
        self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

/// The successors of a run of states: per state its row and how many
/// successors; per successor its event and row.
#[derive(Default)]
struct Expanded {
    sources: Vec<u32>,
    counts: Vec<u32>,
    events: Vec<EventId>,
    rows: Vec<u32>,
    /// Reduced by symmetry: per successor, its components'
    /// representative (laid end to end) and the permutation's images,
    /// when this thread could find them (`found`).
    representatives: Vec<u32>,
    images: Vec<u16>,
    found: Vec<bool>,
    scratch: Option<Scratch>,
}

/// The bookkeeping of the states whose successors are being stored.
struct Storing {
    /// For each kept successor: its place among the state's successors.
    kept_from: Vec<usize>,
    next: usize,
    depth: u32,
    /// The first state of the next breadth-first level.
    level_end: usize,
    transitions: u64,
    ids: Vec<(u32, bool)>,
    kept: Vec<u32>,
    pairs: Vec<(EventId, u32)>,
    kept_events: Vec<EventId>,
    since_poll: usize,
}

impl Search {
    /// A search from `root` whose initial row ends with `extra`.
    pub fn new(procs: &mut Processes, root: ProcId, extra: &[u32], parents: bool) -> Search {
        Search::with_machine(Machine::new(procs, root), extra, parents)
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
    /// far.
    pub fn run(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        visitor: &mut dyn Visitor,
    ) -> EvalResult<Outcome> {
        let started = Instant::now();
        let meter = budget.meter();
        let outer = procs.replace_meter(meter.clone());
        let mut storing = Storing {
            kept_from: Vec::new(),
            next: 0,
            depth: 0,
            level_end: 1,
            transitions: 0,
            ids: Vec::new(),
            kept: Vec::new(),
            pairs: Vec::new(),
            kept_events: Vec::new(),
            since_poll: 0,
        };
        let result = self.search(procs, budget, &meter, visitor, &mut storing);
        procs.replace_meter(outer);
        let (stopped, notes) = match result {
            Ok(stopped) => (stopped, Vec::new()),
            Err(e) => match e.stop_reason() {
                Some(stop) => (Some(stop), e.notes.clone()),
                None => return Err(e),
            },
        };
        if let Some(live) = &budget.live {
            storing.publish(live, self.store.len());
        }
        Ok(Outcome {
            states: self.store.len() as u64,
            transitions: storing.transitions,
            depth: storing.depth,
            seconds: started.elapsed().as_secs_f64(),
            stopped,
            notes,
        })
    }

    /// The loop of [`Search::run`]: `Some` reason when it stopped early
    /// (a stop inside evaluation comes back as an error that says so).
    fn search(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        meter: &Meter,
        visitor: &mut dyn Visitor,
        storing: &mut Storing,
    ) -> EvalResult<Option<Stopped>> {
        if !self.started {
            self.started = true;
            self.canonicalise_initial(procs, visitor)?;
        }
        let threads = budget.threads.max(1);
        // A canonicaliser may add component states to the machine while
        // successors are stored, so the machine cannot be shared then:
        // storing waits for expanding, and expanding (with finding most
        // representatives) runs on every thread instead.
        let reducing = visitor.canonicaliser().is_some();
        let overlap = threads > 1 && !visitor.needs_machine() && !reducing;
        let parts = if overlap {
            threads.saturating_sub(1).max(1)
        } else {
            threads
        };
        let mut current: Vec<Expanded> = (0..parts).map(|_| Expanded::default()).collect();
        let mut upcoming: Vec<Expanded> = (0..parts).map(|_| Expanded::default()).collect();
        let mut rows = Vec::new();
        let (width, row_width) = (self.width, self.row_width);
        // States in `storing.next..expanded` have their successors in `current`.
        let mut expanded = 0;
        loop {
            if expanded == storing.next {
                let end = self.store.len().min(expanded + BLOCK);
                if end == expanded {
                    return Ok(None);
                }
                self.load(procs, meter, expanded..end, &mut rows)?;
                let shared = match visitor.canonicaliser() {
                    Some(canonicaliser) => {
                        canonicaliser.prepare(&self.machine, procs)?;
                        canonicaliser.shared()
                    }
                    None => None,
                };
                expanded += expand(&self.machine, &rows, width, row_width, &mut current, shared);
            }
            let end = self.store.len().min(expanded + BLOCK);
            let (stopped, next_block) = if overlap && end > expanded {
                self.load(procs, meter, expanded..end, &mut rows)?;
                let (machine, store, parents) = (&self.machine, &mut self.store, &mut self.parents);
                let (block, parts) = (&rows, &mut upcoming);
                std::thread::scope(|scope| {
                    let next =
                        scope.spawn(move || expand(machine, block, width, row_width, parts, None));
                    let mut context = Context {
                        procs: &mut *procs,
                        machine: None,
                    };
                    let stopped = storing.store(
                        &mut current,
                        store,
                        parents,
                        (width, row_width),
                        &mut context,
                        visitor,
                        budget,
                        meter,
                    );
                    (
                        stopped,
                        next.join().expect("expanding a block does not panic"),
                    )
                })
            } else {
                let mut context = Context {
                    procs: &mut *procs,
                    machine: Some(&mut self.machine),
                };
                let stopped = storing.store(
                    &mut current,
                    &mut self.store,
                    &mut self.parents,
                    (width, row_width),
                    &mut context,
                    visitor,
                    budget,
                    meter,
                );
                (stopped, 0)
            };
            if let Some(stop) = stopped? {
                return Ok(Some(stop));
            }
            if next_block > 0 {
                expanded += next_block;
                std::mem::swap(&mut current, &mut upcoming);
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

    /// Copies the rows of states `range` into `rows`, completing their
    /// components' transitions (the evaluator polls the meter while it
    /// computes them; between states, so does this).
    fn load(
        &mut self,
        procs: &mut Processes,
        meter: &Meter,
        range: std::ops::Range<usize>,
        rows: &mut Vec<u32>,
    ) -> EvalResult<()> {
        rows.clear();
        let mut row = Vec::with_capacity(self.row_width);
        for id in range {
            if id % LOAD_POLL_EVERY == 0 {
                meter.poll().map_err(EvalError::stopped)?;
            }
            self.store.read(id as u32, &mut row);
            self.machine.prepare(procs, &row[..self.width])?;
            rows.extend_from_slice(&row);
        }
        Ok(())
    }
}

/// The successors of the states whose rows are `rows`, split into one
/// contiguous run per part, each computed on its own thread; how many of
/// the states (from the first) were expanded. A part stops once its
/// successors hold [`PART_WORDS`] numbers (after at least one state), so
/// that wide branching cannot make a block's successors outgrow memory;
/// the states after the first part that stopped are expanded again with
/// the next block.
fn expand(
    machine: &Machine,
    rows: &[u32],
    width: usize,
    row_width: usize,
    parts: &mut [Expanded],
    shared: Option<&dyn SharedCanonicaliser>,
) -> usize {
    // Every row has at least one component, so `row_width` is never 0.
    let states = rows.len().checked_div(row_width).unwrap_or(0);
    let per_part = states.div_ceil(parts.len()).max(1);
    let run = |part: &mut Expanded, from: usize, to: usize| {
        part.sources.clear();
        part.counts.clear();
        part.events.clear();
        part.rows.clear();
        part.representatives.clear();
        part.images.clear();
        part.found.clear();
        let mut moves = Moves::default();
        let mut next_state = Vec::new();
        let mut scratch = shared.map(|s| part.scratch.take().unwrap_or_else(|| s.scratch()));
        for i in from..to {
            if i > from && part.rows.len() >= PART_WORDS {
                break;
            }
            let state = &rows[i * row_width..(i + 1) * row_width];
            part.sources.extend_from_slice(state);
            machine.prepared_moves(&state[..width], &mut moves);
            part.counts.push(moves.list.len() as u32);
            for m in &moves.list {
                moves.apply(m, state, &mut next_state);
                part.events.push(m.event);
                part.rows.extend_from_slice(&next_state);
                if let (Some(shared), Some(scratch)) = (shared, scratch.as_mut()) {
                    let found = shared.try_components(
                        scratch,
                        machine,
                        &mut next_state[..width],
                        &mut part.images,
                    );
                    part.found.push(found);
                    part.representatives.extend_from_slice(&next_state[..width]);
                }
            }
        }
        part.scratch = scratch;
    };
    let runs: Vec<(usize, usize)> = (0..parts.len())
        .map(|i| {
            let from = (i * per_part).min(states);
            (from, (from + per_part).min(states))
        })
        .collect();
    // Small blocks, or one part, are not worth a thread.
    if per_part >= states || states < 256 {
        for (part, &(from, to)) in parts.iter_mut().zip(&runs) {
            run(part, from, to);
        }
    } else {
        std::thread::scope(|scope| {
            for (part, &(from, to)) in parts.iter_mut().zip(&runs) {
                scope.spawn(move || run(part, from, to));
            }
        });
    }
    // The expanded prefix: every part in full up to the first that
    // stopped early; the parts after it are dropped.
    let mut done = 0;
    let mut complete = true;
    for (part, &(from, to)) in parts.iter_mut().zip(&runs) {
        if !complete {
            part.counts.clear();
            continue;
        }
        done += part.counts.len();
        complete = from + part.counts.len() == to;
    }
    done
}

impl Storing {
    /// Lets the visitor judge the successors in `parts` (of the states
    /// from `self.next` on) and stores those it keeps, within the
    /// budget. `Some` when the search must stop.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        parts: &mut [Expanded],
        store: &mut StateStore,
        parents: &mut Option<Parents>,
        (components, row_width): (usize, usize),
        context: &mut Context,
        visitor: &mut dyn Visitor,
        budget: &Budget,
        meter: &Meter,
    ) -> EvalResult<Option<Stopped>> {
        let width = row_width;
        for part in parts {
            let mut row_at = 0;
            let mut event_at = 0;
            for (i, &count) in part.counts.iter().enumerate() {
                self.since_poll += 1;
                if self.since_poll >= POLL_EVERY {
                    self.since_poll = 0;
                    if let Some(live) = &budget.live {
                        self.publish(live, store.len());
                    }
                    if let Err(stop) = meter.poll() {
                        return Ok(Some(stop));
                    }
                }
                if self.next >= self.level_end {
                    self.depth += 1;
                    self.level_end = store.len();
                }
                let count = count as usize;
                let id = self.next as u32;
                let events = &part.events[event_at..event_at + count];
                let successors = &mut part.rows[row_at..row_at + count * width];
                let flow = visitor.visit(
                    Context {
                        procs: &mut *context.procs,
                        machine: context.machine.as_deref_mut(),
                    },
                    Visit {
                        id,
                        row: &part.sources[i * width..(i + 1) * width],
                        events,
                        successors: &mut *successors,
                        depth: self.depth,
                    },
                )?;
                self.kept_from.clear();
                let (kept_rows, kept_events): (&mut [u32], &[EventId]) = match flow {
                    Flow::Stop => return Ok(Some(Stopped::Visitor)),
                    Flow::Prune => (&mut [], &[]),
                    Flow::Continue => {
                        self.kept_from.extend(0..count);
                        (successors, events)
                    }
                    Flow::Filter => {
                        self.kept.clear();
                        self.kept_events.clear();
                        for (k, row) in successors.chunks_exact(width).enumerate() {
                            if row.get(components) != Some(&DROP) {
                                self.kept.extend_from_slice(row);
                                self.kept_events.push(events[k]);
                                self.kept_from.push(k);
                            }
                        }
                        (&mut self.kept, &self.kept_events)
                    }
                };
                if let Some(canonicaliser) = visitor.canonicaliser() {
                    let machine = context
                        .machine
                        .as_deref_mut()
                        .expect("a reducing search keeps the machine on this thread");
                    let stride = part.images.len().checked_div(part.found.len()).unwrap_or(0);
                    for (row, &k) in kept_rows.chunks_exact_mut(width).zip(&self.kept_from) {
                        // The successor's place in the part, where a thread
                        // may have found its representative already.
                        let at = event_at + k;
                        if part.found.get(at) == Some(&true) {
                            row[..components].copy_from_slice(
                                &part.representatives[at * components..(at + 1) * components],
                            );
                            let images = &part.images[at * stride..(at + 1) * stride];
                            canonicaliser.finish(context.procs, row, images)?;
                        } else {
                            canonicaliser.canonicalise(machine, context.procs, row)?;
                        }
                    }
                }
                self.ids.clear();
                let full = store.insert_all(kept_rows, &mut self.ids, meter).err();
                // Only the successors stored before a budget refused one.
                let kept_events = &kept_events[..self.ids.len()];
                if let Some(parents) = parents {
                    for (&event, &(target, new)) in kept_events.iter().zip(&self.ids) {
                        if new {
                            parents.push((id, event));
                        }
                        debug_assert!(!new || parents.len == target as usize);
                    }
                }
                visitor.stored(id, kept_events, &self.ids);
                self.pairs.clear();
                self.pairs.extend(
                    kept_events
                        .iter()
                        .zip(&self.ids)
                        .map(|(&e, &(target, _))| (e, target)),
                );
                self.pairs.sort_unstable();
                self.pairs.dedup();
                self.transitions += self.pairs.len() as u64;
                if full.is_some() {
                    return Ok(full);
                }
                row_at += count * width;
                event_at += count;
                self.next += 1;
            }
        }
        Ok(None)
    }

    fn publish(&self, live: &Live, states: usize) {
        live.states.store(states as u64, Ordering::Relaxed);
        live.transitions.store(self.transitions, Ordering::Relaxed);
        live.depth.store(self.depth as u64, Ordering::Relaxed);
    }
}

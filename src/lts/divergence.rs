//! Divergence: whether a state can perform an unending run of τs, that
//! is, reach a τ-cycle by τs alone. A depth-first search along τs,
//! iterative (no recursion however long the τ-paths), that answers at
//! the first τ back to its path, with every state's answer remembered,
//! so finding the divergent states of a whole search costs one pass over
//! its τ-transitions, and a divergence is found where it is.
//!
//! Two ways to the τ-transitions: [`Divergences`] computes them (moves
//! of the machine, states in a store of its own), for a state met on its
//! own; [`TauLog`] reads the ones a search recorded as it stored each
//! state's successors, so a check's divergence costs no second store and
//! no move computed twice. The log answers in the search's order, a
//! level or so behind it: a state's answer waits until the states it
//! reaches by τ have been expanded.

use std::collections::VecDeque;

use crate::eval::{EvalError, EvalResult};
use crate::process::{Processes, TAU};

use super::machine::{Machine, Moves};
use super::queue::ChunkedQueue;
use super::search::Canonicaliser;
use super::store::StateStore;

/// A state's standing in the search: its answer, once it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Status {
    Unseen,
    /// On the search's current path.
    Open,
    Clear,
    Divergent,
}

/// Where a search stands after being asked about a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Answered(bool),
    /// It needs the τ-successors of this state, not known yet; asking
    /// again about the same state resumes it.
    Waiting(u32),
}

/// Divergence of states numbered by the caller, one byte a state: a
/// depth-first search along τs that answers as soon as it can. A τ back
/// to a state on its path closes a τ-cycle, and a τ to a state known to
/// diverge reaches one: then every state on the path diverges, and the
/// search ends there rather than once the whole τ-component is explored.
/// A state all of whose τ-successors are clear is clear.
#[derive(Debug, Default)]
pub struct TauCycles {
    status: Vec<Status>,
    /// The path: each open state with its τ-successors.
    frames: Vec<Frame>,
    successors: Vec<u32>,
    found: Vec<u32>,
}

#[derive(Debug)]
struct Frame {
    state: u32,
    /// This frame's τ-successors are `successors[start..end]`; the next
    /// to look at is `at`.
    start: usize,
    at: usize,
    end: usize,
}

/// `tau_successors(s, out)` pushes the states `s` reaches by one τ, or
/// says `false` when they are not known yet.
pub type TauSuccessors<'a> = dyn FnMut(u32, &mut Vec<u32>) -> EvalResult<bool> + 'a;

impl TauCycles {
    fn status(&self, state: u32) -> Status {
        self.status
            .get(state as usize)
            .copied()
            .unwrap_or(Status::Unseen)
    }

    fn set(&mut self, state: u32, status: Status) {
        let i = state as usize;
        if self.status.len() <= i {
            self.status.resize(i + 1, Status::Unseen);
        }
        self.status[i] = status;
    }

    /// The answer for `state`, if a search has reached one.
    pub fn answer(&self, state: u32) -> Option<bool> {
        match self.status(state) {
            Status::Clear => Some(false),
            Status::Divergent => Some(true),
            Status::Unseen | Status::Open => None,
        }
    }

    /// Records that `state` has no τ-successors (so it does not diverge)
    /// without a search.
    pub fn settle_stable(&mut self, state: u32) {
        debug_assert_ne!(self.status(state), Status::Open);
        self.set(state, Status::Clear);
    }

    /// Whether `start` diverges, every τ-successor known at once. After
    /// an error (a stop by the budget included) the states the search had
    /// open are forgotten, so asking again starts afresh.
    pub fn diverges(
        &mut self,
        start: u32,
        tau_successors: &mut dyn FnMut(u32, &mut Vec<u32>) -> EvalResult<()>,
    ) -> EvalResult<bool> {
        let progress = self.search(start, &mut |state, out| {
            tau_successors(state, out)?;
            Ok(true)
        })?;
        match progress {
            Progress::Answered(divergent) => Ok(divergent),
            Progress::Waiting(_) => unreachable!("every state's τ-successors are known"),
        }
    }

    /// Searches from `start`, or resumes the search that waited while
    /// searching from it; an error forgets the states it had open.
    pub fn search(
        &mut self,
        start: u32,
        tau_successors: &mut TauSuccessors<'_>,
    ) -> EvalResult<Progress> {
        debug_assert!(self.frames.first().is_none_or(|f| f.state == start));
        let result = self.run(start, tau_successors);
        if result.is_err() {
            self.end_path(Status::Unseen);
        }
        result
    }

    /// Takes `states`, which lie on one τ-cycle, to diverge, found
    /// otherwise than by a search here: a search under way is forgotten
    /// (its open states unseen again), so that asking again starts
    /// afresh and meets them.
    pub fn on_cycle(&mut self, states: &[u32]) {
        self.end_path(Status::Unseen);
        for &state in states {
            self.set(state, Status::Divergent);
        }
    }

    /// Gives every state on the path `status` and ends the search.
    fn end_path(&mut self, status: Status) {
        for i in 0..self.frames.len() {
            let state = self.frames[i].state;
            self.set(state, status);
        }
        self.frames.clear();
        self.successors.clear();
    }

    fn run(&mut self, start: u32, tau_successors: &mut TauSuccessors<'_>) -> EvalResult<Progress> {
        if self.frames.is_empty() {
            if let Some(divergent) = self.answer(start) {
                return Ok(Progress::Answered(divergent));
            }
            if !self.open(start, tau_successors)? {
                return Ok(Progress::Waiting(start));
            }
            if self.top_reaches_back() {
                self.end_path(Status::Divergent);
                return Ok(Progress::Answered(true));
            }
        }
        while let Some(frame) = self.frames.last_mut() {
            if frame.at == frame.end {
                // Every τ-successor is clear.
                let frame = self.frames.pop().expect("a frame");
                self.successors.truncate(frame.start);
                self.set(frame.state, Status::Clear);
                continue;
            }
            let next = self.successors[frame.at];
            frame.at += 1;
            match self.status(next) {
                Status::Unseen => {
                    if !self.open(next, tau_successors)? {
                        // Looked at again when the search resumes.
                        self.frames.last_mut().expect("this frame").at -= 1;
                        return Ok(Progress::Waiting(next));
                    }
                    if self.top_reaches_back() {
                        self.end_path(Status::Divergent);
                        return Ok(Progress::Answered(true));
                    }
                }
                // A τ back to the path (to itself included) closes a
                // cycle; one to a divergent state reaches one.
                Status::Open | Status::Divergent => {
                    self.end_path(Status::Divergent);
                    return Ok(Progress::Answered(true));
                }
                Status::Clear => {}
            }
        }
        Ok(Progress::Answered(false))
    }

    /// Whether the state just opened has a τ back to the path (to itself
    /// included) or to a divergent state: looked for among all its
    /// τ-successors before the search goes deeper through the first, so
    /// a cycle at hand is not missed for one far away.
    fn top_reaches_back(&self) -> bool {
        let frame = self.frames.last().expect("a state just opened");
        self.successors[frame.start..frame.end]
            .iter()
            .any(|&next| matches!(self.status(next), Status::Open | Status::Divergent))
    }

    /// Puts `state` on the path with a frame over its τ-successors;
    /// `false` (and nothing changed) when they are not known yet.
    fn open(&mut self, state: u32, tau_successors: &mut TauSuccessors<'_>) -> EvalResult<bool> {
        self.found.clear();
        if !tau_successors(state, &mut self.found)? {
            return Ok(false);
        }
        self.set(state, Status::Open);
        let start = self.successors.len();
        self.successors.extend_from_slice(&self.found);
        self.frames.push(Frame {
            state,
            start,
            at: start,
            end: self.successors.len(),
        });
        Ok(true)
    }
}

/// Divergence of a search's own states from the τ-transitions it
/// records, state by state in the order it numbers them
/// ([`TauLog::record`]). The states asked about ([`TauLog::ask`]) are
/// answered in that order; [`TauLog::advance`] goes as far as the
/// transitions recorded allow. A state recorded with no τ is answered at
/// once; the transitions of a prefix of answered states are let go, so
/// the log holds about a breadth-first level of the search: a state's
/// τ-successors are in the level after its own, and its answer needs
/// theirs recorded. (While one waits on a long run of τs, everything
/// recorded meanwhile is kept: at worst the whole search.)
///
/// A state not asked about should be recorded without its τs (a check
/// records none for the states it does not explore): one that has some
/// is kept until a search from a state asked about meets it.
#[derive(Debug, Default)]
pub struct TauLog {
    cycles: TauCycles,
    transitions: Transitions,
    /// Asked about and not recorded yet, in order.
    ahead: VecDeque<u32>,
    /// Every state asked about before this one is answered, and clear.
    next: u32,
    /// A waiting search needs this state recorded.
    waiting: Option<u32>,
    /// The first state asked about found to diverge.
    divergent: Option<u32>,
    /// The search's first states, watched for a τ-cycle as they are
    /// recorded.
    watch: Watch,
}

/// A τ-cycle seen as soon as it closes among the search's first
/// [`WATCHED`] states: each one's first τ-predecessor is kept, and a τ
/// from a state back to one its chain of first τ-predecessors passes
/// through (within [`WATCH_STEPS`]) closes a cycle. So a system whose
/// initial state lies on a short τ-cycle is answered once the search has
/// come round it (a few dozen states), where the depth-first search
/// along τs may first follow a long way round, waiting for the
/// breadth-first search to reach each state on it.
#[derive(Debug, Default)]
struct Watch {
    /// Per state: its first τ-predecessor (`NONE` if it has none yet).
    first: Vec<u32>,
    /// A cycle seen, not yet handed to the depth-first search.
    cycle: Vec<u32>,
    /// The chain of first τ-predecessors being walked back.
    chain: Vec<u32>,
}

/// How many of a search's first states are watched (4 bytes each).
const WATCHED: u32 = 1 << 16;
/// How far back a τ-cycle is looked for.
const WATCH_STEPS: usize = 64;
const NONE: u32 = u32::MAX;

impl Watch {
    /// Watches `state`'s τ-successors: a cycle they close goes in
    /// [`Watch::cycle`].
    fn record(&mut self, state: u32, taus: impl Iterator<Item = u32>) {
        if state >= WATCHED || !self.cycle.is_empty() {
            return;
        }
        for target in taus {
            if target >= WATCHED {
                continue;
            }
            if self.first.len() <= target as usize {
                self.first.resize(target as usize + 1, NONE);
            }
            // Back through first τ-predecessors from `state`: reaching
            // `target` closes a cycle through both.
            self.chain.clear();
            self.chain.push(state);
            let mut at = state;
            while at != target && self.chain.len() <= WATCH_STEPS {
                match self.first.get(at as usize) {
                    Some(&before) if before != NONE => {
                        at = before;
                        self.chain.push(at);
                    }
                    _ => break,
                }
            }
            if at == target {
                self.cycle = std::mem::take(&mut self.chain);
                return;
            }
            if self.first[target as usize] == NONE && target != state {
                self.first[target as usize] = state;
            }
        }
    }
}

/// The τ-successors of states `first..recorded()`, laid end to end.
#[derive(Debug, Default)]
struct Transitions {
    /// Per state: where its τ-successors start in `edges`, as a position
    /// counted from the log's beginning modulo 2^31, with [`ASKED`] set
    /// when it was asked about.
    starts: ChunkedQueue,
    edges: ChunkedQueue,
    first: u32,
    /// The position of `edges[0]`, modulo 2^31.
    dropped: u32,
}

/// The flag of a state asked about, in [`Transitions::starts`].
const ASKED: u32 = 1 << 31;
/// Positions in [`Transitions::edges`] are counted modulo this (the log
/// never holds that many transitions at once).
const POSITIONS: u32 = ASKED - 1;

impl Transitions {
    fn recorded(&self) -> u32 {
        self.first + self.starts.len() as u32
    }

    /// The position after the last edge.
    fn end(&self) -> u32 {
        self.dropped.wrapping_add(self.edges.len() as u32) & POSITIONS
    }

    /// Records the next state's; whether it has any.
    fn push(&mut self, asked: bool, taus: impl IntoIterator<Item = u32>) -> bool {
        let start = self.end();
        self.starts
            .push_back(if asked { start | ASKED } else { start });
        let before = self.edges.len();
        for tau in taus {
            self.edges.push_back(tau);
        }
        debug_assert!(self.edges.len() < POSITIONS as usize);
        self.edges.len() > before
    }

    fn asked(&self, state: u32) -> bool {
        let i = (state - self.first) as usize;
        self.starts.get(i).expect("a recorded state") & ASKED != 0
    }

    /// The τ-successors of recorded state `state`, not let go.
    fn of(&self, state: u32) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(state >= self.first, "a state let go is closed");
        let i = (state - self.first) as usize;
        let start = self.starts.get(i).expect("a recorded state");
        let end = self.starts.get(i + 1).unwrap_or_else(|| self.end());
        let at = |position: u32| (position.wrapping_sub(self.dropped) & POSITIONS) as usize;
        self.edges.range(at(start), at(end))
    }

    /// Lets go of the first state's.
    fn drop_first(&mut self) {
        self.starts.drop_front(1);
        let next = self.starts.get(0).unwrap_or_else(|| self.end()) & POSITIONS;
        let count = (next.wrapping_sub(self.dropped) & POSITIONS) as usize;
        self.edges.drop_front(count);
        self.dropped = next;
        self.first += 1;
    }
}

impl TauLog {
    /// Asks whether `state`, not recorded yet, diverges; states are asked
    /// about in increasing order.
    pub fn ask(&mut self, state: u32) {
        debug_assert!(state >= self.transitions.recorded());
        debug_assert!(self.ahead.back().is_none_or(|&last| last < state));
        self.ahead.push_back(state);
    }

    /// Records the τ-successors of the next state.
    pub fn record(&mut self, state: u32, taus: impl IntoIterator<Item = u32>) {
        debug_assert_eq!(state, self.transitions.recorded());
        let asked = self.ahead.front() == Some(&state);
        if asked {
            self.ahead.pop_front();
        }
        let from = self.transitions.edges.len();
        if !self.transitions.push(asked, taus) {
            self.cycles.settle_stable(state);
        } else if state < WATCHED {
            let edges = &self.transitions.edges;
            self.watch.record(state, edges.range(from, edges.len()));
        }
    }

    /// The states asked about and not answered yet, in order.
    pub fn unanswered(&self) -> impl Iterator<Item = u32> + '_ {
        let logged =
            (self.next..self.transitions.recorded()).filter(|&state| self.transitions.asked(state));
        logged.chain(self.ahead.iter().copied())
    }

    /// What the log knows of `state` already.
    pub fn known(&self, state: u32) -> Option<bool> {
        self.cycles.answer(state)
    }

    /// The first state asked about that diverges, once found
    /// ([`TauLog::advance`]).
    pub fn divergence(&self) -> Option<u32> {
        self.divergent
    }

    /// Answers what the recorded transitions allow: the first state asked
    /// about that diverges, once every state asked before it is known not
    /// to.
    pub fn advance(&mut self) -> Option<u32> {
        if let Some(state) = self.divergent {
            return Some(state);
        }
        let recorded = self.transitions.recorded();
        if !self.watch.cycle.is_empty() {
            // Seen as it closed: the depth-first search starts again and
            // meets it.
            let cycle = std::mem::take(&mut self.watch.cycle);
            self.cycles.on_cycle(&cycle);
            self.waiting = None;
        }
        if self.waiting.is_some_and(|state| state >= recorded) {
            return None;
        }
        self.waiting = None;
        while self.next < recorded {
            let state = self.next;
            if self.transitions.asked(state) {
                let TauLog {
                    cycles,
                    transitions,
                    ..
                } = self;
                let progress = cycles.search(state, &mut |s, out| {
                    if s >= recorded {
                        return Ok(false);
                    }
                    out.extend(transitions.of(s));
                    Ok(true)
                });
                match progress.expect("reading recorded transitions cannot fail") {
                    Progress::Waiting(on) => {
                        self.waiting = Some(on);
                        return None;
                    }
                    Progress::Answered(true) => {
                        self.divergent = Some(state);
                        return Some(state);
                    }
                    Progress::Answered(false) => {}
                }
            }
            self.next += 1;
            // Let go of the answered states at the front.
            let transitions = &mut self.transitions;
            while transitions.first < self.next && self.cycles.answer(transitions.first).is_some() {
                transitions.drop_first();
            }
        }
        // The next state asked about is not recorded yet.
        self.waiting = Some(recorded);
        None
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

    /// The shortest τ-lasso `row` runs into, when it diverges (of
    /// representatives, with a canonicaliser): the fewest τs after which
    /// a state repeats, so the path to the loop and the loop together
    /// are as short as they can be (a divergence shown as a long path to
    /// a long loop, where a short one exists, teaches nothing).
    ///
    /// The shortest lasso enters its loop at a state `x` minimising the
    /// distance to `x` plus the shortest τ-cycle through `x` (were the
    /// path to `x` to meet the cycle elsewhere, entering there would be
    /// shorter): the states are taken breadth first from `row`, each
    /// one's shortest cycle looked for no further than would beat the
    /// best lasso so far, until no state left is near enough to beat it
    /// ([`shortest_lasso`]). Past [`LASSO_WORK`] states looked at, the
    /// best lasso found stands (or, none found yet, the loop met
    /// following divergent τ-successors).
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
        let start = self.store.insert(row).0;
        let lasso = shortest_lasso(start, LASSO_WORK, &mut |state| {
            self.tau_successors(machine, procs, state, canonicaliser.as_deref_mut())
        })?;
        match lasso {
            Some(ids) => Ok(Some(self.loop_of(&ids))),
            None => self.followed_loop(machine, procs, start, canonicaliser),
        }
    }

    /// The states `state` reaches by one τ (representatives, with a
    /// canonicaliser), numbered in the store.
    fn tau_successors(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        state: u32,
        mut canonicaliser: Option<&mut (dyn Canonicaliser + '_)>,
    ) -> EvalResult<Vec<u32>> {
        procs.evaluator().tick(1)?;
        self.store.read(state, &mut self.row);
        machine.moves(procs, &self.row, &mut self.moves)?;
        let mut out = Vec::new();
        for m in self.moves.list.iter().filter(|m| m.event == TAU) {
            self.moves.apply(m, &self.row, &mut self.next);
            if let Some(canonicaliser) = canonicaliser.as_deref_mut() {
                canonicaliser.canonicalise(machine, procs, &mut self.next)?;
            }
            out.push(self.store.insert(&self.next).0);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The loop met from `start` following divergent τ-successors, the
    /// first each time, until a state repeats.
    fn followed_loop(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        start: u32,
        mut canonicaliser: Option<&mut (dyn Canonicaliser + '_)>,
    ) -> EvalResult<Option<TauLoop>> {
        // Every state the search reached is closed; a divergent one has a
        // divergent τ-successor, so following them must come round.
        let mut ids = vec![start];
        loop {
            let current = *ids.last().expect("the path starts with row");
            let successors =
                self.tau_successors(machine, procs, current, canonicaliser.as_deref_mut())?;
            let Some(&next) = successors
                .iter()
                .find(|&&id| self.cycles.answer(id) == Some(true))
            else {
                return Ok(None);
            };
            let repeated = ids.contains(&next);
            ids.push(next);
            if repeated {
                return Ok(Some(self.loop_of(&ids)));
            }
        }
    }

    /// The rows of the states `ids`, the last a repeat of an earlier one.
    fn loop_of(&mut self, ids: &[u32]) -> TauLoop {
        let last = *ids.last().expect("a lasso");
        let start = ids.iter().position(|&id| id == last).expect("a repeat");
        let rows = ids
            .iter()
            .map(|&id| {
                let mut row = Vec::new();
                self.store.read(id, &mut row);
                row
            })
            .collect();
        TauLoop { rows, start }
    }
}

/// The shortest lasso from `start` in the graph `successors` gives: the
/// states of a shortest walk after which a state repeats, the repeat
/// last (see [`Divergences::tau_loop`]); `None` when none is found
/// looking at `work` states (with their successors) or none exists.
pub fn shortest_lasso(
    start: u32,
    work: usize,
    successors: &mut dyn FnMut(u32) -> EvalResult<Vec<u32>>,
) -> EvalResult<Option<Vec<u32>>> {
    let mut graph = TauGraph::default();
    // Breadth first from `start`: each state's parent, layer by layer.
    let mut parent: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
    parent.insert(start, start);
    let mut layer = vec![start];
    let mut best: Option<(usize, u32, Vec<u32>)> = None;
    let mut spent = 0usize;
    'layers: for distance in 0.. {
        if best
            .as_ref()
            .is_some_and(|(length, ..)| distance + 1 >= *length)
        {
            break;
        }
        let mut next = Vec::new();
        for &x in &layer {
            let limit = best
                .as_ref()
                .map_or(usize::MAX, |(length, ..)| length - distance - 1);
            let cycle = graph.shortest_cycle(x, (limit, work), &mut spent, successors)?;
            if let Some(cycle) = cycle
                && best
                    .as_ref()
                    .is_none_or(|(length, ..)| distance + cycle.len() < *length)
            {
                best = Some((distance + cycle.len(), x, cycle));
            }
            if spent > work {
                break 'layers;
            }
            for v in graph.successors(x, successors)? {
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(v) {
                    e.insert(x);
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        layer = next;
    }
    let Some((_, entry, cycle)) = best else {
        return Ok(None);
    };
    // The stem back to `start`, then round the cycle to `entry` again.
    let mut ids = vec![entry];
    let mut at = entry;
    while at != start {
        at = parent[&at];
        ids.push(at);
    }
    ids.reverse();
    ids.extend_from_slice(&cycle);
    Ok(Some(ids))
}

/// How many states the search for the shortest τ-lasso may look at
/// (each with its τ-successors kept) before the best found stands.
const LASSO_WORK: usize = 1 << 20;

/// The τ-successors of the states a lasso search met, each computed once.
#[derive(Default)]
struct TauGraph {
    successors: rustc_hash::FxHashMap<u32, Vec<u32>>,
}

impl TauGraph {
    fn successors(
        &mut self,
        state: u32,
        compute: &mut dyn FnMut(u32) -> EvalResult<Vec<u32>>,
    ) -> EvalResult<Vec<u32>> {
        if let Some(known) = self.successors.get(&state) {
            return Ok(known.clone());
        }
        let found = compute(state)?;
        self.successors.insert(state, found.clone());
        Ok(found)
    }

    /// A shortest τ-cycle through `x` of at most `limit` steps, as the
    /// states after `x` round to `x` again (so ending with `x`); counts
    /// each state it expands in `work`.
    fn shortest_cycle(
        &mut self,
        x: u32,
        (limit, most): (usize, usize),
        work: &mut usize,
        compute: &mut dyn FnMut(u32) -> EvalResult<Vec<u32>>,
    ) -> EvalResult<Option<Vec<u32>>> {
        let mut parent: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
        let mut layer = vec![x];
        for _ in 0..limit {
            let mut next = Vec::new();
            for &u in &layer {
                *work += 1;
                for v in self.successors(u, compute)? {
                    if v == x {
                        let mut cycle = vec![x];
                        let mut at = u;
                        while at != x {
                            cycle.push(at);
                            at = parent[&at];
                        }
                        // From x back to it: the states after x, then x.
                        cycle.reverse();
                        return Ok(Some(cycle));
                    }
                    if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(v) {
                        e.insert(u);
                        next.push(v);
                    }
                }
                if *work > most {
                    return Ok(None);
                }
            }
            if next.is_empty() {
                break;
            }
            layer = next;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests;

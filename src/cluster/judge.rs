//! A worker's side of a distributed check: its states judged against a
//! fixed specification as it expands them (`:[deadlock free]`,
//! `:[divergence free]`), the parent of each state it owns, the τ-edges
//! into them, and the elimination that settles which of them diverge.
//!
//! A state diverges when an infinite τ-path starts at it. Once every
//! state's τ-successors are known, the workers remove, round after
//! round, the states none of whose τ-successors is left (at first those
//! with none): each removal is told to the owners of the state's
//! τ-predecessors, who count down. What is left when nothing more is
//! removed diverges (each has a τ-successor that is left), and nothing
//! else does — the graph is finite.
//!
//! A breach's path is read back one state a round: the owner of the
//! state reports its encoding, the event that reached it and its parent,
//! and worker 0 decodes the whole path into its own numbering.
//!
//! What it keeps per state is small and goes to disk with the store's
//! rows when memory is short ([`Judging::spill`]): the parents, packed as
//! the store packs rows, and the τ-edges into its states. Levels are not
//! kept per state: a worker numbers its states level by level.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::check::counterexample::RowPath;
use crate::check::product::{Judgement, Product};
use crate::check::spec::{Anything, Specification};
use crate::check::structural::StructuralProduct;
use crate::eval::value::bytes::{DecodeError, Reader, Writer};
use crate::eval::{EvalError, EvalResult};
use crate::lts::machine::Machine;
use crate::lts::search::{SharedJudge, Visitor};
use crate::process::{EventId, EventSet, ProcId, Processes, TAU};
use crate::symmetry::Symmetry;
use crate::symmetry::search_system::Reduction;
use crate::syntax::Span;

use super::exchange::Message;
use super::rows::Link;
use crate::budget::Stopped;
use crate::budget::disk::{Spill, SpillFile};
use crate::check::task::{Goal, Unjudged};
use crate::lts::store::PackedRows;

/// One state of a counterexample's path, as its owner reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathStep {
    /// Its component states' encodings, each with its length.
    pub row: Vec<u8>,
    /// Its specification node's encoding ([`Specification::write_node`]).
    pub node: Vec<u8>,
    /// The event of the move that reached it and the state it came from
    /// (worker, number): none for the initial state.
    pub from: Option<(u32, u32, u32)>,
}

/// What a worker knows of the check it takes part in.
pub struct Judging {
    pub product: Product,
    /// Whether the model has divergences (they are then looked for).
    pub divergences: bool,
    /// The specification's initial node.
    pub root: u32,
    /// A refinement's specification process (whose symmetries a
    /// structural reduction must keep).
    pub spec_process: Option<ProcId>,
    /// After each visible move of the state being judged: its node.
    next_nodes: Vec<u32>,
    /// Per state: where it was first reached from, as (event, worker + 1,
    /// state), the initial state's worker 0 ([`Judging::parent`]).
    parents: PackedRows,
    /// The first state of each level (the length of a shortest path to
    /// it): states are numbered level by level.
    level_starts: Vec<u32>,
    /// Per state, with divergences: its τ-successors not (yet) known not
    /// to diverge.
    tau_out: Vec<u32>,
    /// τ-edges into this worker's states.
    tau_in: TauEdges,
    /// The first of its states that broke the specification, and its
    /// level.
    pub breach: Option<(u32, u32)>,
    /// `:[has trace]:`: of its states judged, the first that performed
    /// the longest prefix of the trace, as (prefix, level, state) — the
    /// evidence when no worker completes the trace.
    pub furthest: Option<(u32, u32, u32)>,
}

impl Judging {
    /// The judging `goal` asks for ([`crate::check::task::judge`]), none
    /// when it explores.
    pub fn new(
        goal: Goal,
        (procs, imp, priority): (&mut Processes, ProcId, Option<EventSet>),
        width: usize,
        symmetry: Option<Arc<Symmetry>>,
    ) -> EvalResult<Option<Judging>> {
        let judge = match crate::check::task::judge(goal, procs, (imp, priority), symmetry.as_ref())
        {
            Ok(judge) => judge,
            Err(Unjudged::Eval(e)) => return Err(e),
            Err(Unjudged::NotMappable { which, refusal }) => {
                return Err(EvalError::new(
                    Span::default(),
                    format!(
                        "the {which} is not symmetric in the types: {}",
                        refusal.problems.join("; ")
                    ),
                ));
            }
        };
        Ok(judge.map(|judge| {
            let product = Product::new(judge.spec, judge.refusals, judge.divergences, width);
            let mut judging = Judging::of(product, judge.root, judge.divergences);
            judging.spec_process = judge.spec_process;
            judging
        }))
    }

    /// A worker's judging by `product`, from node `root`, with nothing
    /// stored yet.
    fn of(product: Product, root: u32, divergences: bool) -> Judging {
        Judging {
            product,
            divergences,
            root,
            spec_process: None,
            next_nodes: Vec::new(),
            parents: PackedRows::new(3),
            level_starts: Vec::new(),
            tau_out: Vec::new(),
            tau_in: TauEdges::default(),
            breach: None,
            furthest: None,
        }
    }

    /// Takes `reduction` over: the product canonicalises states and
    /// unwinds the counterexample by it.
    pub fn reduce_by(&mut self, reduction: Reduction) {
        let product = std::mem::replace(
            &mut self.product,
            Product::new(Box::new(Anything), false, false, 0),
        );
        self.product = match reduction {
            Reduction::Reduced(system) => product.reduced(system.into_inner()),
            Reduction::Structural { reduction, .. } => {
                product.reduced_structurally(StructuralProduct::new(*reduction, self.root))
            }
            _ => product,
        };
    }

    /// Records a row stored as `id` (`new` the first time), reached from
    /// worker `from` as `link` says, at `level`.
    pub fn stored(&mut self, (id, new): (u32, bool), from: u32, link: Link, level: u32) {
        if new {
            debug_assert_eq!(id as usize, self.parents.len());
            let parent = match link.parent {
                Some(parent) => [link.event, from + 1, parent],
                None => [0, 0, 0],
            };
            self.parents.push(&parent);
            debug_assert!(self.level_starts.len() <= level as usize + 1);
            while self.level_starts.len() <= level as usize {
                self.level_starts.push(id);
            }
            if self.divergences {
                self.tau_out.push(0);
            }
        }
        if let (true, true, Some(parent)) = (self.divergences, link.tau, link.parent) {
            self.tau_in.held.push((id, from, parent));
        }
    }

    /// The level of state `id`.
    pub fn level(&self, id: u32) -> u32 {
        let starts = &self.level_starts;
        (starts.partition_point(|&start| start <= id) as u32).saturating_sub(1)
    }

    /// Where state `id` was first reached from: (event, worker, state),
    /// none for the initial state.
    fn parent(&self, id: u32) -> Option<(u32, u32, u32)> {
        let mut fields = Vec::with_capacity(3);
        self.parents.read(id as usize, &mut fields);
        match fields[..] {
            [event, worker, state] if worker > 0 => Some((event, worker - 1, state)),
            _ => None,
        }
    }

    /// Moves the parents and τ-edges it holds to `spill`'s folder, as the
    /// store moves its rows: they are read back for a counterexample's
    /// path and for the elimination after the search.
    pub fn spill(&mut self, spill: &Arc<Spill>) -> Result<(), Stopped> {
        self.parents.spill_before(self.parents.len(), spill)?;
        self.tau_in.spill(spill)
    }

    /// Judges state `id` (`node`, `row`) whose moves have `events`: its
    /// breach is recorded (the first only).
    pub fn judge(
        &mut self,
        procs: &mut Processes,
        id: u32,
        (node, row, events): (u32, &[u32], &[EventId]),
    ) -> EvalResult<Judgement> {
        if let Some((_, done)) = self.product.spec.trace_at(node) {
            // A longer prefix, else the same one at a lower level: the
            // one search's walk meets the first of these first.
            let (node, level) = (done as u32, self.level(id));
            let further = self
                .furthest
                .is_none_or(|(prefix, at, _)| node > prefix || (node == prefix && level < at));
            if further {
                self.furthest = Some((node, level, id));
            }
        }
        self.next_nodes.clear();
        self.next_nodes.resize(events.len(), node);
        let next_nodes = &mut self.next_nodes;
        let judgement = self
            .product
            .judge_state(procs, (node, row, events), &mut |k, after| {
                next_nodes[k] = after
            })?;
        if let (Judgement::Breach(_), None) = (&judgement, &self.breach) {
            self.breach = Some((id, self.level(id)));
        }
        Ok(judgement)
    }

    /// A copy of what its specification knows, by which the workers
    /// sharing a machine judge the states that are plainly fine beside
    /// each other ([`crate::check::shared_judge`]); none when it walks
    /// `:[has trace]:`'s trace (each state judged keeps the furthest
    /// prefix) or has no copy to give.
    pub fn copy(&mut self) -> Option<Arc<dyn SharedJudge>> {
        if self.walks_trace() {
            return None;
        }
        self.product.shared_judge()
    }

    /// Whether it walks `:[has trace]:`'s trace (whose breach is the
    /// trace found).
    pub fn walks_trace(&self) -> bool {
        self.product.spec.trace_at(self.root).is_some()
    }

    /// The level of its breach (0 when it has none).
    pub fn breach_level(&self) -> u32 {
        self.breach.map_or(0, |(_, level)| level)
    }

    /// The node after move `k` (of `event`) of the state just judged:
    /// [`crate::lts::search::DROP`] for a move the specification leaves
    /// out (`:[has trace]:`'s events off the trace).
    pub fn node_after(&self, k: usize, event: EventId, node: u32) -> u32 {
        if event == TAU {
            node
        } else {
            self.next_nodes[k]
        }
    }

    /// Records how many distinct τ-successors state `id` has (counted
    /// only when divergences are looked for).
    pub fn tau_successors(&mut self, id: u32, count: u32) {
        if let Some(out) = self.tau_out.get_mut(id as usize) {
            *out = count;
        }
    }

    /// The states with no τ-successor (or, after a budget or an error
    /// stopped the search, none stored: one never expanded, or whose
    /// expansion failed, leads nowhere the search knows), the first
    /// removed.
    pub fn without_tau(&self) -> Vec<u32> {
        (0..self.tau_out.len() as u32)
            .filter(|&id| self.tau_out[id as usize] == 0)
            .collect()
    }

    /// The τ-edges into this worker's states by target, made once before
    /// the elimination: per state, its τ-predecessors (worker, state).
    pub fn predecessors(&mut self) -> (Vec<usize>, Vec<(u32, u32)>) {
        let mut tau_in = std::mem::take(&mut self.tau_in).all();
        tau_in.sort_unstable();
        let mut starts = vec![0; self.tau_out.len() + 1];
        for &(to, _, _) in &tau_in {
            starts[to as usize + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let edges = tau_in.iter().map(|&(_, w, s)| (w, s)).collect();
        (starts, edges)
    }

    /// After a budget stopped the search: forgets how many τ-successors
    /// each state sent, and tells each τ-edge it recorded to its source's
    /// owner (its own sources at once), so that each state counts only
    /// the τ-successors that were stored ([`Judging::count_edges`]).
    pub fn recorded_edges(&mut self, (me, peers): (usize, usize)) -> Vec<Message> {
        self.tau_out.iter_mut().for_each(|count| *count = 0);
        let mut ids: Vec<Vec<u32>> = vec![Vec::new(); peers];
        let tau_out = &mut self.tau_out;
        self.tau_in.for_each(|(_, worker, state)| {
            if worker as usize == me {
                tau_out[state as usize] += 1;
            } else {
                ids[worker as usize].push(state);
            }
        });
        addressed(ids, |to, ids| Message::Edges { to, ids })
    }

    /// Counts the τ-edges of its states that other workers recorded.
    pub fn count_edges(&mut self, ids: &[u32]) -> Result<(), DecodeError> {
        for &id in ids {
            match self.tau_out.get_mut(id as usize) {
                Some(count) => *count += 1,
                None => return Err(DecodeError(format!("a τ-edge from no state ({id})"))),
            }
        }
        Ok(())
    }

    /// Removes `removed`, and with them every state of this worker left
    /// with no τ-successor by their removal (a τ-chain within one worker
    /// takes no rounds): the messages that tell other workers' states
    /// that a τ-successor of theirs is gone.
    pub fn remove(
        &mut self,
        removed: &mut Vec<u32>,
        (starts, edges): &(Vec<usize>, Vec<(u32, u32)>),
        (me, peers): (usize, usize),
    ) -> Vec<Message> {
        let mut ids: Vec<Vec<u32>> = vec![Vec::new(); peers];
        while let Some(id) = removed.pop() {
            for &(worker, state) in &edges[starts[id as usize]..starts[id as usize + 1]] {
                if worker as usize == me {
                    let left = &mut self.tau_out[state as usize];
                    *left -= 1;
                    if *left == 0 {
                        removed.push(state);
                    }
                } else {
                    ids[worker as usize].push(state);
                }
            }
        }
        addressed(ids, |to, ids| Message::Removed { to, ids })
    }

    /// Counts down the states another worker told of a removed
    /// τ-successor: those left with none are removed next. An id that is
    /// not a state of this worker with a τ-successor left is malformed.
    pub fn count_down(&mut self, ids: &[u32], removed: &mut Vec<u32>) -> Result<(), DecodeError> {
        for &id in ids {
            match self.tau_out.get_mut(id as usize) {
                Some(left) if *left > 0 => {
                    *left -= 1;
                    if *left == 0 {
                        removed.push(id);
                    }
                }
                _ => {
                    return Err(DecodeError(format!(
                        "a τ-successor of state {id} removed twice, or of no state"
                    )));
                }
            }
        }
        Ok(())
    }

    /// After the elimination: the first (by level) of its states that
    /// diverge, as (level, state).
    pub fn first_divergent(&self) -> Option<(u32, u32)> {
        (0..self.tau_out.len() as u32)
            .filter(|&id| self.tau_out[id as usize] > 0)
            .map(|id| (self.level(id), id))
            .min()
    }

    /// State `id` (`row`: its components, then its node) as a step of a
    /// counterexample's path.
    pub fn step(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        id: u32,
        row: &[u32],
    ) -> Result<PathStep, String> {
        let width = machine.components();
        let mut bytes = Vec::new();
        let mut state = Vec::new();
        for (slot, &local) in row[..width].iter().enumerate() {
            state.clear();
            procs.encode_state(machine.process_state(slot, local), &mut state);
            let w = &mut Writer { out: &mut bytes };
            w.count(state.len());
            bytes.extend_from_slice(&state);
        }
        let mut node = Vec::new();
        self.product.spec.write_node(procs, row[width], &mut node)?;
        Ok(PathStep {
            row: bytes,
            node,
            from: self.parent(id),
        })
    }
}

/// The τ-edges into a worker's states, as (state, from worker, from
/// state): those recorded before memory was last short in a spill file,
/// the rest in memory. They are read only after the search.
#[derive(Default)]
struct TauEdges {
    held: Vec<(u32, u32, u32)>,
    file: Option<SpillFile>,
}

/// Bytes an edge takes in the file: its three numbers, little-endian.
const EDGE_BYTES: usize = 12;
/// Edges read back at once.
const EDGES_READ: usize = 1 << 16;

impl TauEdges {
    /// Appends the edges held to the file (made the first time).
    fn spill(&mut self, spill: &Arc<Spill>) -> Result<(), Stopped> {
        if self.held.is_empty() {
            return Ok(());
        }
        if self.file.is_none() {
            self.file = Some(spill.file()?);
        }
        let file = self.file.as_ref().expect("the edges' file, made");
        for piece in self.held.chunks(EDGES_READ) {
            let bytes: Vec<u8> = piece
                .iter()
                .flat_map(|&(a, b, c)| [a, b, c])
                .flat_map(u32::to_le_bytes)
                .collect();
            file.write(&bytes)?;
        }
        self.held = Vec::new();
        Ok(())
    }

    /// Each edge, those in the file first. A read that fails (recorded in
    /// the spill plan: nothing the check finds stands) ends the file's.
    fn for_each(&self, mut edge: impl FnMut((u32, u32, u32))) {
        if let Some(file) = &self.file {
            let mut bytes = vec![0u8; EDGES_READ * EDGE_BYTES];
            let mut at = 0;
            while at < file.len() {
                let length = (file.len() - at).min(bytes.len() as u64) as usize;
                if !file.read(at, &mut bytes[..length]) {
                    break;
                }
                for edge_bytes in bytes[..length].chunks_exact(EDGE_BYTES) {
                    let number = |k: usize| {
                        let word = &edge_bytes[4 * k..4 * k + 4];
                        u32::from_le_bytes(word.try_into().expect("four bytes"))
                    };
                    edge((number(0), number(1), number(2)));
                }
                at += length as u64;
            }
        }
        self.held.iter().copied().for_each(edge);
    }

    /// Every edge, in memory (the file is let go).
    fn all(self) -> Vec<(u32, u32, u32)> {
        if self.file.is_none() {
            return self.held;
        }
        let mut all = Vec::new();
        self.for_each(|edge| all.push(edge));
        all
    }
}

/// One message per worker that has ids to be told (`ids[w]`), made by
/// `message(w, ids)`.
fn addressed(ids: Vec<Vec<u32>>, message: fn(u32, Vec<u32>) -> Message) -> Vec<Message> {
    ids.into_iter()
        .enumerate()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(to, ids)| message(to as u32, ids))
        .collect()
}

/// The path whose steps (from the breach back to the initial state)
/// `steps` are, in `machine`'s numbering: rows with their nodes (`spec`'s).
pub fn recorded(
    (machine, procs, spec): (&mut Machine, &mut Processes, &mut dyn Specification),
    steps: &[PathStep],
) -> EvalResult<Result<RowPath, DecodeError>> {
    let mut path = RowPath {
        events: Vec::with_capacity(steps.len()),
        rows: Vec::with_capacity(steps.len()),
    };
    for step in steps.iter().rev() {
        let mut row = match row_of(machine, procs, &step.row) {
            Ok(row) => row,
            Err(malformed) => return Ok(Err(malformed)),
        };
        match spec.read_node(procs, &step.node)? {
            Ok(node) => row.push(node),
            Err(malformed) => return Ok(Err(DecodeError(malformed))),
        }
        path.rows.push(row);
        if let Some((event, _, _)) = step.from {
            path.events.push(event);
        }
    }
    if path.events.len() + 1 != path.rows.len() {
        return Ok(Err(DecodeError(
            "a counterexample's path does not start at the initial state".to_string(),
        )));
    }
    Ok(Ok(path))
}

/// The row (in `machine`'s numbering) whose component states' encodings
/// `bytes` hold, as [`Judging::step`] writes them.
fn row_of(
    machine: &mut Machine,
    procs: &mut Processes,
    bytes: &[u8],
) -> Result<Vec<u32>, DecodeError> {
    let width = machine.components();
    let mut row = Vec::with_capacity(width + 1);
    let mut at = 0;
    for slot in 0..width {
        let mut reader = Reader::new(procs.script(), &bytes[at..]);
        let length = reader.count()?;
        let start = bytes.len() - reader.remaining();
        let state = bytes
            .get(start..start + length)
            .ok_or_else(|| DecodeError("a counterexample's state is cut short".to_string()))?;
        let state = procs.decode_state(state)?;
        row.push(machine.local_of(slot, state));
        at = start + length;
    }
    Ok(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker whose states 0 → 1 → 2 are τ-linked (2 has no τ-move)
    /// and 3 loops on itself, all its own.
    fn linked() -> Judging {
        let product = Product::new(Box::new(Anything), false, true, 1);
        let mut judging = Judging::of(product, 0, true);
        let link = |parent: Option<u32>, tau| Link {
            node: 0,
            parent,
            event: TAU,
            tau,
        };
        for (id, parent) in [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(0))] {
            judging.stored((id, true), 0, link(parent, parent.is_some()), id);
        }
        judging.stored((3, false), 0, link(Some(3), true), 1);
        for (id, count) in [(0, 2), (1, 1), (2, 0), (3, 1)] {
            judging.tau_successors(id, count);
        }
        judging
    }

    #[test]
    fn parents_and_tau_edges_read_back_from_disk_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), None).unwrap();
        let product = Product::new(Box::new(Anything), false, true, 1);
        let mut judging = Judging::of(product, 0, true);
        // 40 000 states, three a level from level 2 on (none at level
        // 1), each the τ-successor of the one before on worker 1.
        let states = 40_000u32;
        for id in 0..states {
            let link = Link {
                node: 0,
                parent: id.checked_sub(1),
                event: id % 5,
                tau: id > 0,
            };
            let level = if id == 0 { 0 } else { 2 + (id - 1) / 3 };
            judging.stored((id, true), 1, link, level);
            if id == states / 2 {
                judging.spill(&spill).unwrap();
            }
        }
        judging.spill(&spill).unwrap();
        assert!(spill.used() > 0 && spill.failure().is_none());
        assert_eq!(judging.parent(0), None);
        assert_eq!(judging.parent(7), Some((2, 1, 6)));
        assert_eq!(
            judging.parent(states - 1),
            Some(((states - 1) % 5, 1, states - 2))
        );
        assert_eq!(
            (judging.level(0), judging.level(1), judging.level(4)),
            (0, 2, 3)
        );
        let mut edges = Vec::new();
        judging.tau_in.for_each(|edge| edges.push(edge));
        let expected: Vec<_> = (1..states).map(|id| (id, 1, id - 1)).collect();
        assert_eq!(edges, expected);
        let (starts, predecessors) = judging.predecessors();
        assert_eq!(starts.len(), states as usize + 1);
        assert_eq!(predecessors[..2], [(1, 0), (1, 1)]);
    }

    #[test]
    fn elimination_leaves_what_diverges_and_refuses_ids_of_no_state() {
        let mut judging = linked();
        let predecessors = judging.predecessors();
        let mut removed = judging.without_tau();
        assert_eq!(removed, vec![2]);
        let messages = judging.remove(&mut removed, &predecessors, (0, 1));
        assert!(messages.is_empty(), "every state is this worker's");
        // 2 goes, then 1; 0 keeps its τ-edge to 3, which loops.
        assert_eq!(judging.first_divergent(), Some((0, 0)));
        let mut next = Vec::new();
        assert!(judging.count_down(&[9], &mut next).is_err(), "no state 9");
        assert!(
            judging.count_down(&[2], &mut next).is_err(),
            "2 has none left"
        );
        assert!(judging.count_edges(&[7]).is_err());
    }
}

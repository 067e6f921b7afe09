//! On-the-fly normalisation of a specification, as FDR does it: a
//! normal-form node is a set of specification states closed under τ (a
//! subset construction), with exactly one successor node per visible
//! event (✓ included). For the failures models a node also knows its
//! minimal acceptances — the sets of events its stable states offer,
//! keeping only the minimal ones — and for failures-divergences whether
//! any of its states diverges. Nodes and their successors are computed
//! when a check first needs them, so only the part of the normal form the
//! implementation exercises is ever built.
//!
//! ✓ is a signal, as in FDR: a stable state that can terminate offers
//! only `{✓}` (it may refuse every other event, having in effect already
//! chosen to terminate).
//!
//! Under symmetry a node can be permuted (Definition 15): each member
//! state is permuted as the symmetry layer permutes system states, and
//! the τ-closed set of the images is the image node.

use rustc_hash::FxHashMap;

use crate::budget::Stopped;
use crate::eval::{EvalError, EvalResult};
use crate::lts::divergence::TauCycles;
use crate::lts::machine::{Machine, Moves};
use crate::lts::store::StateStore;
use crate::process::{EventId, EventSet, ProcId, Processes, TAU, TICK};
use crate::symmetry::{NotMappable, Permutation, Symmetry, SystemSymmetry};

/// A normal-form node's number.
pub type NodeId = u32;

/// The normal form of a process, built as far as it has been asked.
pub struct Normaliser {
    machine: Machine,
    /// The specification's own states (rows of its machine), by id.
    states: StateStore,
    /// Per specification state: its distinct `(event, state)` moves.
    transitions: Vec<Option<StateMoves>>,
    cycles: TauCycles,
    nodes: Vec<Node>,
    index: FxHashMap<Box<[u32]>, NodeId>,
    moves: Moves,
    row: Vec<u32>,
    next: Vec<u32>,
    /// The specification's machine under symmetry, when nodes are to be
    /// permuted.
    symmetry: Option<SystemSymmetry>,
    /// The states each visible event leads to from a node, before their
    /// τ-closure is taken (a node's successors are made from these).
    targets: Vec<Target>,
    target_index: FxHashMap<Box<[u32]>, TargetId>,
    /// Nodes and targets already permuted, by permutation: a reduced
    /// search permutes the same ones by the same few permutations again
    /// and again. A working set, not a record: past `memo_limit`
    /// entries it starts afresh (an image forgotten is made again, the
    /// same node), so it does not grow with the search.
    permuted: FxHashMap<Permutation, FxHashMap<Permuted, NodeId>>,
    permuted_entries: usize,
    memo_limit: usize,
    /// Whether a state's moves may be read off its representative's
    /// ([`Normaliser::moves_by_orbit`]): with a symmetry and no
    /// τ-priority set.
    by_orbit: bool,
    /// Counts what the nodes have learnt (a node, its initials, a
    /// target's node, its acceptances, its divergence), so that a copy
    /// of what is known ([`Normaliser::known_after`] and the like) can
    /// tell whether it is still whole.
    learnt: u64,
}

/// The most images of nodes and targets the memo of permuted nodes
/// holds before it starts afresh: tens of megabytes.
const PERMUTED_MEMO: usize = 1 << 20;

/// What was permuted into a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Permuted {
    Node(NodeId),
    Target(TargetId),
}

/// The number of a set of specification states some event leads to.
pub type TargetId = u32;

struct Target {
    states: Box<[u32]>,
    /// Its τ-closure, once taken.
    node: Option<NodeId>,
}

/// A specification state's distinct `(event, state)` moves.
type StateMoves = Box<[(EventId, u32)]>;

struct Node {
    /// Specification states, sorted.
    members: Box<[u32]>,
    /// Successor per visible event (the states it leads to, not yet
    /// τ-closed), sorted by event.
    after: Option<Box<[(EventId, TargetId)]>>,
    acceptances: Option<Box<[Box<[EventId]>]>>,
    /// Every acceptance of a stable member (revivals), once asked.
    stable: Option<Box<[Box<[EventId]>]>>,
    divergent: Option<bool>,
}

/// A specification's normal form can reach millions of states before a
/// budget stops it: they are freed on a thread of their own, so that the
/// check answers at once.
impl Drop for Normaliser {
    fn drop(&mut self) {
        if self.transitions.len() > crate::budget::FREE_LATER {
            crate::budget::drop_later((
                std::mem::take(&mut self.transitions),
                std::mem::take(&mut self.nodes),
                std::mem::take(&mut self.index),
                std::mem::take(&mut self.targets),
                std::mem::take(&mut self.target_index),
            ));
        }
    }
}

impl Normaliser {
    /// The normal form of `root` (with τ and ✓ taking priority over
    /// `tau_priority`), and its initial node.
    pub fn new(
        procs: &mut Processes,
        root: ProcId,
        tau_priority: Option<EventSet>,
    ) -> EvalResult<(Normaliser, NodeId)> {
        let machine = Machine::new(procs, root)?;
        Normaliser::with_machine(procs, machine, tau_priority, None)
    }

    /// The normal form of `root` whose nodes can be permuted by
    /// `symmetry`'s permutations; refused when the specification's
    /// machine is not mappable.
    pub fn symmetric(
        procs: &mut Processes,
        root: ProcId,
        tau_priority: Option<EventSet>,
        symmetry: std::sync::Arc<Symmetry>,
    ) -> EvalResult<Result<(Normaliser, NodeId), NotMappable>> {
        let mut machine = Machine::new(procs, root)?;
        if let Some(set) = &tau_priority {
            machine.set_tau_priority(set.clone());
        }
        let system = match SystemSymmetry::new(symmetry, &mut machine, procs) {
            Ok(system) => system,
            Err(refusal) => return Ok(Err(refusal)),
        };
        // A τ-priority set the permutations might not respect keeps
        // every state's moves evaluated.
        let by_orbit = tau_priority.is_none();
        let symmetry = Some((system, by_orbit));
        Normaliser::with_machine(procs, machine, None, symmetry).map(Ok)
    }

    fn with_machine(
        procs: &mut Processes,
        mut machine: Machine,
        tau_priority: Option<EventSet>,
        symmetry: Option<(SystemSymmetry, bool)>,
    ) -> EvalResult<(Normaliser, NodeId)> {
        let (symmetry, by_orbit) = match symmetry {
            Some((system, by_orbit)) => (Some(system), by_orbit),
            None => (None, false),
        };
        if let Some(set) = tau_priority {
            machine.set_tau_priority(set);
        }
        let mut states = StateStore::new(machine.components());
        states.insert(machine.initial());
        let mut normaliser = Normaliser {
            machine,
            states,
            transitions: Vec::new(),
            cycles: TauCycles::default(),
            nodes: Vec::new(),
            index: FxHashMap::default(),
            moves: Moves::default(),
            row: Vec::new(),
            next: Vec::new(),
            symmetry,
            targets: Vec::new(),
            target_index: FxHashMap::default(),
            permuted: FxHashMap::default(),
            permuted_entries: 0,
            memo_limit: PERMUTED_MEMO,
            by_orbit,
            learnt: 0,
        };
        let root = normaliser.node_of(procs, vec![0])?;
        Ok((normaliser, root))
    }

    /// The node `perm` maps `node` to: the one with the images of its
    /// members (Lemma 14 makes it unique). Needs a normaliser made by
    /// [`Normaliser::symmetric`].
    pub fn permute(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        self.permuted_node(procs, Permuted::Node(node), perm)
    }

    /// The node `perm` maps target `target`'s τ-closure to: the τ-closure
    /// of its states' images. The target's own closure is never taken,
    /// which spares evaluating states a reduced search only passes
    /// through on their way to a representative.
    pub fn permute_target(
        &mut self,
        procs: &mut Processes,
        target: TargetId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if perm.is_identity() {
            return self.target_node(procs, target);
        }
        self.permuted_node(procs, Permuted::Target(target), perm)
    }

    fn permuted_node(
        &mut self,
        procs: &mut Processes,
        what: Permuted,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if let Some(&image) = self.permuted.get(perm).and_then(|images| images.get(&what)) {
            return Ok(image);
        }
        let states = match what {
            Permuted::Node(node) => self.nodes[node as usize].members.clone(),
            Permuted::Target(target) => self.targets[target as usize].states.clone(),
        };
        let images = self.images(procs, &states, perm);
        let image = self.node_of(procs, images)?;
        if self.permuted_entries >= self.memo_limit {
            self.permuted.clear();
            self.permuted_entries = 0;
        }
        self.permuted_entries += 1;
        match self.permuted.get_mut(perm) {
            Some(images) => {
                images.insert(what, image);
            }
            None => {
                let images = FxHashMap::from_iter([(what, image)]);
                self.permuted.insert(perm.clone(), images);
            }
        }
        Ok(image)
    }

    /// The images of specification states under `perm`.
    fn images(&mut self, procs: &mut Processes, states: &[u32], perm: &Permutation) -> Vec<u32> {
        let system = self
            .symmetry
            .as_mut()
            .expect("a normaliser made with a symmetry");
        let mut images = Vec::with_capacity(states.len());
        for &s in states {
            self.states.read(s, &mut self.row);
            self.next.clear();
            self.next.resize(self.row.len(), 0);
            system.apply(&mut self.machine, procs, perm, &self.row, &mut self.next);
            images.push(self.states.insert(&self.next).0);
        }
        images
    }

    /// The node of target `target`: its τ-closure.
    pub fn target_node(&mut self, procs: &mut Processes, target: TargetId) -> EvalResult<NodeId> {
        if let Some(node) = self.targets[target as usize].node {
            return Ok(node);
        }
        let seeds = self.targets[target as usize].states.to_vec();
        let node = self.node_of(procs, seeds)?;
        self.targets[target as usize].node = Some(node);
        self.learnt += 1;
        Ok(node)
    }

    fn target_of(&mut self, states: Box<[u32]>) -> TargetId {
        if let Some(&target) = self.target_index.get(&states) {
            return target;
        }
        let target = self.targets.len() as TargetId;
        self.target_index.insert(states.clone(), target);
        self.targets.push(Target { states, node: None });
        target
    }

    /// Whether nodes can be permuted (made by [`Normaliser::symmetric`]).
    pub fn is_symmetric(&self) -> bool {
        self.symmetry.is_some()
    }

    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// How much the normal form has learnt: a number that grows with
    /// every node, initials, target's node, acceptances and divergence
    /// worked out, and only then.
    pub fn learnt(&self) -> u64 {
        self.learnt
    }

    /// What is known of `node`'s visible events without working anything
    /// out: each with the node it leads to, where that is known; `None`
    /// when its initials are not known yet.
    pub fn known_after(
        &self,
        node: NodeId,
    ) -> Option<impl Iterator<Item = (EventId, Option<NodeId>)> + '_> {
        let after = self.nodes[node as usize].after.as_deref()?;
        Some(
            after
                .iter()
                .map(|&(e, target)| (e, self.targets[target as usize].node)),
        )
    }

    /// `node`'s minimal acceptances, if worked out.
    pub fn known_acceptances(&self, node: NodeId) -> Option<&[Box<[EventId]>]> {
        self.nodes[node as usize].acceptances.as_deref()
    }

    /// Whether `node` diverges, if worked out.
    pub fn known_divergent(&self, node: NodeId) -> Option<bool> {
        self.nodes[node as usize].divergent
    }

    /// The process states of each component of specification state
    /// `state`.
    pub fn member_states(&self, node: NodeId) -> Vec<Vec<ProcId>> {
        let mut row = Vec::new();
        self.nodes[node as usize]
            .members
            .iter()
            .map(|&s| {
                self.states.read(s, &mut row);
                row.iter()
                    .enumerate()
                    .map(|(slot, &local)| self.machine.process_state(slot, local))
                    .collect()
            })
            .collect()
    }

    /// The moves of specification state `state`, computed once. A
    /// budget that stops the work here says it stopped in the
    /// specification (the search's own counts may still be zero).
    fn transitions(&mut self, procs: &mut Processes, state: u32) -> EvalResult<&[(EventId, u32)]> {
        let i = state as usize;
        if self.transitions.len() <= i {
            self.transitions.resize(i + 1, None);
        }
        if self.transitions[i].is_none() {
            let list = self.compute_transitions(procs, state).map_err(|error| {
                match error.stop_reason() {
                    Some(Stopped::StateBudget | Stopped::Memory) => error.with_note(
                        "it stopped normalising the specification: its states are held to the \
                         same budget as the search",
                    ),
                    Some(_) => error.with_note("it stopped while normalising the specification"),
                    None => error,
                }
            })?;
            self.transitions[i] = Some(list);
        }
        Ok(self.transitions[i].as_deref().expect("just computed"))
    }

    fn compute_transitions(&mut self, procs: &mut Processes, state: u32) -> EvalResult<StateMoves> {
        // The specification's states are held to the budget like the
        // product's: counted, polled, at most `max_states`.
        procs.evaluator().tick(1)?;
        match self.moves_by_orbit(procs, state)? {
            Some(moves) => Ok(moves),
            None => self.evaluate_moves(procs, state),
        }
    }

    /// The moves of `state` from its CSPM: the machine evaluates it.
    fn evaluate_moves(&mut self, procs: &mut Processes, state: u32) -> EvalResult<StateMoves> {
        let meter = procs.meter().clone();
        self.states.read(state, &mut self.row);
        self.machine.moves(procs, &self.row, &mut self.moves)?;
        let mut list = Vec::with_capacity(self.moves.list.len());
        for m in &self.moves.list {
            self.moves.apply(m, &self.row, &mut self.next);
            let (id, _) = self
                .states
                .insert_within(&self.next, &meter)
                .map_err(EvalError::stopped)?;
            list.push((m.event, id));
        }
        list.sort_unstable();
        list.dedup();
        Ok(list.into())
    }

    /// The moves of `state` as its representative's, permuted back: a
    /// state's moves under a permutation of the specification's symmetry
    /// are the permuted moves, so its CSPM is evaluated once per
    /// representative, not once per state, and a reduced check that
    /// meets the same stack with its values renamed evaluates it once.
    /// `None` when the state is its own representative (or the normal
    /// form has no symmetry, or a τ-priority set the permutation might
    /// not respect): it is evaluated.
    fn moves_by_orbit(
        &mut self,
        procs: &mut Processes,
        state: u32,
    ) -> EvalResult<Option<StateMoves>> {
        let Some(system) = self.symmetry.as_mut().filter(|_| self.by_orbit) else {
            return Ok(None);
        };
        self.states.read(state, &mut self.row);
        self.next.clear();
        self.next.resize(self.row.len(), 0);
        let back = system
            .representative(&mut self.machine, procs, &self.row, &mut self.next, None)
            .inverse();
        if self.next == self.row {
            return Ok(None);
        }
        let meter = procs.meter().clone();
        let (representative, _) = self
            .states
            .insert_within(&self.next, &meter)
            .map_err(EvalError::stopped)?;
        let i = representative as usize;
        if self.transitions.len() <= i {
            self.transitions.resize(i + 1, None);
        }
        if self.transitions[i].is_none() {
            self.transitions[i] = Some(self.evaluate_moves(procs, representative)?);
        }
        let moves = self.transitions[i].clone().expect("just evaluated");
        let system = self.symmetry.as_mut().expect("checked above");
        let mut list = Vec::with_capacity(moves.len());
        for &(event, target) in moves.iter() {
            self.states.read(target, &mut self.row);
            self.next.clear();
            self.next.resize(self.row.len(), 0);
            system.apply(&mut self.machine, procs, &back, &self.row, &mut self.next);
            let (image, _) = self
                .states
                .insert_within(&self.next, &meter)
                .map_err(EvalError::stopped)?;
            list.push((system.permute_event(procs, &back, event), image));
        }
        list.sort_unstable();
        list.dedup();
        Ok(Some(list.into()))
    }

    /// The node of the τ-closure of `seeds`.
    fn node_of(&mut self, procs: &mut Processes, mut members: Vec<u32>) -> EvalResult<NodeId> {
        let mut at = 0;
        members.sort_unstable();
        members.dedup();
        let mut seen: rustc_hash::FxHashSet<u32> = members.iter().copied().collect();
        while at < members.len() {
            let state = members[at];
            at += 1;
            let targets: Vec<u32> = self
                .transitions(procs, state)?
                .iter()
                .filter(|&&(e, _)| e == TAU)
                .map(|&(_, t)| t)
                .collect();
            for t in targets {
                if seen.insert(t) {
                    members.push(t);
                }
            }
        }
        members.sort_unstable();
        let members: Box<[u32]> = members.into();
        if let Some(&node) = self.index.get(&members) {
            return Ok(node);
        }
        let node = self.nodes.len() as NodeId;
        self.index.insert(members.clone(), node);
        self.nodes.push(Node {
            members,
            after: None,
            acceptances: None,
            stable: None,
            divergent: None,
        });
        self.learnt += 1;
        Ok(node)
    }

    /// Every visible event (✓ included) the node allows, with the target
    /// it leads to, sorted by event.
    pub fn initials(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
    ) -> EvalResult<&[(EventId, TargetId)]> {
        if self.nodes[node as usize].after.is_none() {
            let members = self.nodes[node as usize].members.clone();
            let mut by_event: Vec<(EventId, u32)> = Vec::new();
            for &s in members.iter() {
                by_event.extend(
                    self.transitions(procs, s)?
                        .iter()
                        .filter(|&&(e, _)| e != TAU),
                );
            }
            by_event.sort_unstable();
            by_event.dedup();
            let mut after = Vec::new();
            for group in by_event.chunk_by(|a, b| a.0 == b.0) {
                let states = group.iter().map(|&(_, t)| t).collect();
                after.push((group[0].0, self.target_of(states)));
            }
            self.nodes[node as usize].after = Some(after.into());
            self.learnt += 1;
        }
        Ok(self.nodes[node as usize]
            .after
            .as_deref()
            .expect("just computed"))
    }

    /// The node after `event`, or `None` if the node does not allow it.
    pub fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        match self.after_target(procs, node, event)? {
            Some(target) => self.target_node(procs, target).map(Some),
            None => Ok(None),
        }
    }

    /// The target `event` leads to from `node` (see
    /// [`Normaliser::permute_target`]), or `None` if the node does not
    /// allow it.
    pub fn after_target(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<TargetId>> {
        let initials = self.initials(procs, node)?;
        Ok(initials
            .binary_search_by_key(&event, |&(e, _)| e)
            .ok()
            .map(|i| initials[i].1))
    }

    /// The minimal acceptances of the node's stable states, each sorted.
    pub fn acceptances(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
    ) -> EvalResult<&[Box<[EventId]>]> {
        if self.nodes[node as usize].acceptances.is_none() {
            let members = self.nodes[node as usize].members.clone();
            let mut all: Vec<Box<[EventId]>> = Vec::new();
            for &s in members.iter() {
                let transitions = self.transitions(procs, s)?;
                if transitions.iter().any(|&(e, _)| e == TAU) {
                    continue;
                }
                let mut accepted = Vec::new();
                acceptance(transitions.iter().map(|&(e, _)| e), &mut accepted);
                all.push(accepted.into());
            }
            all.sort_by_key(|a| a.len());
            let mut minimal: Vec<Box<[EventId]>> = Vec::new();
            for a in all {
                if !minimal.iter().any(|m| is_subset(m, &a)) {
                    minimal.push(a);
                }
            }
            self.nodes[node as usize].acceptances = Some(minimal.into());
            self.learnt += 1;
        }
        Ok(self.nodes[node as usize]
            .acceptances
            .as_deref()
            .expect("just computed"))
    }

    /// Every acceptance of the node's stable states (not only the
    /// minimal ones: the revivals model asks which of them offer an
    /// event), each sorted.
    pub fn stable_acceptances(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
    ) -> EvalResult<&[Box<[EventId]>]> {
        if self.nodes[node as usize].stable.is_none() {
            let members = self.nodes[node as usize].members.clone();
            let mut all: Vec<Box<[EventId]>> = Vec::new();
            for &s in members.iter() {
                if let Some(accepted) = self.stable_acceptance(procs, s)? {
                    all.push(accepted.into());
                }
            }
            all.sort_unstable();
            all.dedup();
            self.nodes[node as usize].stable = Some(all.into());
        }
        Ok(self.nodes[node as usize]
            .stable
            .as_deref()
            .expect("just computed"))
    }

    /// What specification state `state` accepts if it is stable.
    fn stable_acceptance(
        &mut self,
        procs: &mut Processes,
        state: u32,
    ) -> EvalResult<Option<Vec<EventId>>> {
        let transitions = self.transitions(procs, state)?;
        if transitions.iter().any(|&(e, _)| e == TAU) {
            return Ok(None);
        }
        let mut accepted = Vec::new();
        acceptance(transitions.iter().map(|&(e, _)| e), &mut accepted);
        Ok(Some(accepted))
    }

    /// The node after `event` performed by a stable state that accepts
    /// only `accepted` (refusal testing): reached only from the node's
    /// stable states that can refuse as much (they accept no more) and
    /// offer `event`. `None` when there is none.
    pub fn after_refusing(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        let members = self.nodes[node as usize].members.clone();
        let mut reached = Vec::new();
        for &s in members.iter() {
            let fits = self
                .stable_acceptance(procs, s)?
                .is_some_and(|a| is_subset(&a, accepted) && a.contains(&event));
            if fits {
                reached.extend(
                    self.transitions(procs, s)?
                        .iter()
                        .filter(|&&(e, _)| e == event)
                        .map(|&(_, t)| t),
                );
            }
        }
        if reached.is_empty() {
            return Ok(None);
        }
        self.node_of(procs, reached).map(Some)
    }

    /// Whether some state of the node can diverge.
    pub fn divergent(&mut self, procs: &mut Processes, node: NodeId) -> EvalResult<bool> {
        if let Some(d) = self.nodes[node as usize].divergent {
            return Ok(d);
        }
        let members = self.nodes[node as usize].members.clone();
        let mut divergent = false;
        for &s in members.iter() {
            let mut cycles = std::mem::take(&mut self.cycles);
            let found = cycles.diverges(s, &mut |state, out| {
                out.extend(
                    self.transitions(procs, state)?
                        .iter()
                        .filter(|&&(e, _)| e == TAU)
                        .map(|&(_, t)| t),
                );
                Ok(())
            });
            self.cycles = cycles;
            if found? {
                divergent = true;
                break;
            }
        }
        self.nodes[node as usize].divergent = Some(divergent);
        self.learnt += 1;
        Ok(divergent)
    }
}

/// What a stable state offers, given its events, into `out`: `{✓}` alone
/// if it can terminate, else its events; sorted, without repeats.
pub fn acceptance(events: impl Iterator<Item = EventId>, out: &mut Vec<EventId>) {
    out.clear();
    out.extend(events);
    if out.contains(&TICK) {
        out.clear();
        out.push(TICK);
    }
    out.sort_unstable();
    out.dedup();
}

/// Whether sorted `a` is a subset of sorted `b`.
pub fn is_subset(a: &[EventId], b: &[EventId]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.any(|y| y == x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The normal form of `expr` with nodes permutable over T, and the
    /// event ids of `events`.
    fn with_normal_form<R>(
        expr: &str,
        body: impl FnOnce(&mut Processes, &mut Normaliser, NodeId, &Symmetry) -> R,
    ) -> R {
        use crate::script::Script;
        let mut script = Script::load_str(
            "t.csp",
            "datatype T = A | B | C\nchannel left, right : T\n\
             COPY = left?x -> right!x -> COPY\nMAYBE = left?x -> (right!x -> MAYBE |~| STOP)\n\
             STACK(s) = #s < 3 & left?x -> STACK(<x>^s)\n\
               [] s != <> & right!head(s) -> (STACK(tail(s)) |~| STACK(s))\n",
        )
        .expect("loads");
        let func = script.add_expr("<spec>", expr).expect("resolves");
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let symmetry = std::sync::Arc::new(Symmetry::automatic(&script, &[func]));
        let (mut normaliser, node) =
            Normaliser::symmetric(&mut procs, root, None, symmetry.clone())
                .expect("evaluates")
                .expect("mappable");
        body(&mut procs, &mut normaliser, node, &symmetry)
    }

    fn event(procs: &Processes, text: &str) -> EventId {
        (0..procs.events().id_count() as EventId)
            .find(|&e| procs.show_event(e) == text)
            .expect("an event")
    }

    #[test]
    fn a_permuted_node_is_the_node_after_the_permuted_trace() {
        with_normal_form("COPY", |procs, normaliser, root, symmetry| {
            let swap = Permutation::from_images(vec![vec![1, 0, 2]]);
            assert!(symmetry.types().len() == 1);
            let after_a = normaliser
                .after(procs, root, event(procs, "left.A"))
                .unwrap()
                .unwrap();
            let after_b = normaliser
                .after(procs, root, event(procs, "left.B"))
                .unwrap()
                .unwrap();
            assert_ne!(after_a, after_b);
            assert_eq!(normaliser.permute(procs, after_a, &swap).unwrap(), after_b);
            assert_eq!(normaliser.permute(procs, root, &swap).unwrap(), root);
        });
    }

    #[test]
    fn a_node_of_several_states_permutes_as_a_whole() {
        with_normal_form("MAYBE", |procs, normaliser, root, _| {
            let cycle = Permutation::from_images(vec![vec![1, 2, 0]]);
            let after = |n: &mut Normaliser, procs: &mut Processes, e: &str| {
                n.after(procs, root, event(procs, e)).unwrap().unwrap()
            };
            let (a, b) = (
                after(normaliser, procs, "left.A"),
                after(normaliser, procs, "left.B"),
            );
            // The choice, right!A -> MAYBE, and STOP.
            assert_eq!(normaliser.nodes[a as usize].members.len(), 3);
            assert_eq!(normaliser.permute(procs, a, &cycle).unwrap(), b);
            assert_eq!(normaliser.permute(procs, root, &cycle).unwrap(), root);
        });
    }

    #[test]
    fn a_memo_starting_afresh_gives_the_same_images() {
        with_normal_form("MAYBE", |procs, normaliser, root, _| {
            let perms = [
                Permutation::from_images(vec![vec![1, 2, 0]]),
                Permutation::from_images(vec![vec![1, 0, 2]]),
                Permutation::from_images(vec![vec![2, 1, 0]]),
            ];
            let nodes: Vec<NodeId> = ["left.A", "left.B", "left.C"]
                .iter()
                .map(|e| {
                    let e = event(procs, e);
                    normaliser.after(procs, root, e).unwrap().unwrap()
                })
                .chain([root])
                .collect();
            let images = |n: &mut Normaliser, procs: &mut Processes| {
                let mut out = Vec::new();
                for _ in 0..2 {
                    for perm in &perms {
                        for &node in &nodes {
                            out.push(n.permute(procs, node, perm).unwrap());
                        }
                    }
                }
                out
            };
            let remembered = images(normaliser, procs);
            normaliser.permuted.clear();
            normaliser.permuted_entries = 0;
            normaliser.memo_limit = 2;
            let forgetting = images(normaliser, procs);
            assert_eq!(remembered, forgetting);
            let held: usize = normaliser.permuted.values().map(FxHashMap::len).sum();
            assert!(held <= 2, "{held} images held");
        });
    }

    #[test]
    fn a_state_s_moves_read_off_its_representative_are_its_evaluated_moves() {
        with_normal_form("STACK(<>)", |procs, normaliser, root, _| {
            // Every node the normal form reaches, and so every state.
            let mut nodes = vec![root];
            let mut at = 0;
            while at < nodes.len() {
                let initials = normaliser.initials(procs, nodes[at]).unwrap().to_vec();
                at += 1;
                for (_, target) in initials {
                    let node = normaliser.target_node(procs, target).unwrap();
                    if !nodes.contains(&node) {
                        nodes.push(node);
                    }
                }
            }
            // Stacks of up to three values of three: 1 + 3 + 9 + 27,
            // and the nondeterministic pops in between.
            assert!(nodes.len() > 40, "{} nodes", nodes.len());
            let mut by_orbit = 0;
            for state in 0..normaliser.states.len() as u32 {
                let evaluated = normaliser.evaluate_moves(procs, state).unwrap();
                if let Some(read_off) = normaliser.moves_by_orbit(procs, state).unwrap() {
                    assert_eq!(read_off, evaluated, "state {state}");
                    by_orbit += 1;
                }
            }
            assert!(by_orbit > 20, "{by_orbit} states read off a representative");
        });
    }

    #[test]
    fn subsets_of_sorted_lists() {
        assert!(is_subset(&[], &[1, 2]));
        assert!(is_subset(&[2, 5], &[1, 2, 3, 5]));
        assert!(!is_subset(&[2, 4], &[1, 2, 3, 5]));
        assert!(!is_subset(&[6], &[1, 2, 3, 5]));
    }

    #[test]
    fn a_state_that_can_terminate_offers_only_tick() {
        let mut out = Vec::new();
        acceptance([5, 1, 3].into_iter(), &mut out);
        assert_eq!(out, [TICK]);
        acceptance([5, 3, 5].into_iter(), &mut out);
        assert_eq!(out, [3, 5]);
    }
}

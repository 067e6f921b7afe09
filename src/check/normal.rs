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

mod keyed;
mod orbits;
mod wire;

use rustc_hash::FxHashMap;

use crate::budget::{Meter, Stopped};
use crate::eval::{EvalError, EvalResult};
use crate::lts::divergence::TauCycles;
use crate::lts::machine::{Machine, Moves};
use crate::lts::store::StateStore;
use crate::process::{EventId, EventSet, ProcId, Processes, TAU, TICK};
use crate::symmetry::{NotMappable, Permutation, Symmetry, SystemSymmetry};

use keyed::{KeyedStates, Terms};

/// A normal-form node's number.
pub type NodeId = u32;

/// The normal form of a process, built as far as it has been asked.
pub struct Normaliser {
    machine: Machine,
    /// The specification's own states (rows of its machine), by id.
    states: StateStore,
    /// Per specification state: its distinct `(event, state)` moves,
    /// once known.
    transitions: Vec<Option<StateMoves>>,
    /// The permutations targets and moves are images under.
    perms: Perms,
    /// The states as keys instead of rows (see [`keyed`]), when the
    /// normal form is under symmetry and its machine is one component:
    /// then `states` is not used.
    keyed: Option<KeyedStates>,
    cycles: TauCycles,
    nodes: Vec<Node>,
    index: FxHashMap<Box<[u32]>, NodeId>,
    /// The moves of the state evaluated last, kept for their buffers
    /// (`None` only while lent).
    moves: Option<Moves>,
    row: Vec<u32>,
    next: Vec<u32>,
    /// The specification's machine under symmetry, when nodes are to be
    /// permuted.
    symmetry: Option<SystemSymmetry>,
    /// The states each visible event leads to from a node, before their
    /// τ-closure is taken (a node's successors are made from these).
    targets: Vec<Target>,
    /// Targets by their states with their permutation's id last.
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
    /// The node of the specification's initial state.
    root: NodeId,
    /// Member states as the nodes that cross between workers write them:
    /// nodes share their members, so each is encoded and decoded once.
    crossing: Crossing,
}

/// The encodings of the member states of the nodes that cross between
/// workers, both ways: a working set, started afresh past
/// [`PERMUTED_MEMO`] entries (an encoding forgotten is made again).
#[derive(Debug, Default)]
struct Crossing {
    /// By state: its encoding, once written.
    written: FxHashMap<u32, Box<[u8]>>,
    /// By encoding: the state it was read as.
    read: FxHashMap<Box<[u8]>, u32>,
}

impl Crossing {
    fn keep_bounded(&mut self) {
        if self.written.len() + self.read.len() > PERMUTED_MEMO {
            *self = Crossing::default();
        }
    }
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

/// The states some event leads to from a node: the images of `states`
/// under permutation `perm`, made only when its τ-closure is taken or it
/// is permuted further. A reduced search permutes most targets at once
/// (into a representative's column), so their own states are never made.
struct Target {
    states: Box<[u32]>,
    perm: PermId,
    /// Its τ-closure, once taken.
    node: Option<NodeId>,
    /// The node and event it was first met after, if it was met so
    /// (not as an image): its node's [`Node::origin`].
    origin: Option<(NodeId, EventId)>,
}

/// The number of a permutation a normaliser keeps ([`Perms`]).
type PermId = u32;

/// The permutations a normaliser keeps, numbered (the identity first).
#[derive(Default)]
struct Perms {
    list: Vec<Permutation>,
    ids: FxHashMap<Permutation, PermId>,
}

impl Perms {
    /// The number of `perm`, kept if new.
    fn id(&mut self, perm: &Permutation) -> PermId {
        if let Some(&id) = self.ids.get(perm) {
            return id;
        }
        let id = self.list.len() as PermId;
        self.list.push(perm.clone());
        self.ids.insert(perm.clone(), id);
        id
    }

    fn get(&self, id: PermId) -> &Permutation {
        &self.list[id as usize]
    }
}

/// The identity's [`PermId`].
const IDENTITY: PermId = 0;

/// How a specification state's distinct moves are known.
#[derive(Clone)]
enum StateMoves {
    /// Each `(event, state)`.
    Listed(Box<[(EventId, u32)]>),
    /// Those of `representative` (listed), under permutation `perm`:
    /// the state is the image of its representative, and its moves the
    /// images of the representative's ([`Normaliser::moves_by_orbit`]).
    /// Their states are made only where a caller needs them one by one.
    Image { representative: u32, perm: PermId },
}

struct Node {
    /// Specification states, sorted.
    members: Box<[u32]>,
    /// The node and event it was first made after, when it was made so:
    /// following these back to the root gives a trace that leads to it,
    /// which is how it crosses between workers (a node is the normal
    /// form's state after any trace that reaches it).
    origin: Option<(NodeId, EventId)>,
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
        let mut perms = Perms::default();
        let mut keyed = None;
        if let Some(system) = &symmetry {
            perms.id(&Permutation::identity(system.symmetry()));
            if by_orbit && machine.components() == 1 {
                keyed = Some(KeyedStates::new(system));
            }
        }
        if keyed.is_none() {
            states.insert(machine.initial());
        }
        let mut normaliser = Normaliser {
            machine,
            states,
            transitions: Vec::new(),
            perms,
            keyed,
            cycles: TauCycles::default(),
            nodes: Vec::new(),
            index: FxHashMap::default(),
            moves: Some(Moves::default()),
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
            crossing: Crossing::default(),
            root: 0,
        };
        let initial = match normaliser.keyed.is_some() {
            true => {
                let local = normaliser.machine.initial()[0];
                normaliser.keyed_of_local(procs, local)?
            }
            false => 0,
        };
        let root = normaliser.node_of(procs, vec![initial], None)?;
        normaliser.root = root;
        Ok((normaliser, root))
    }

    /// The node of target `target`: its τ-closure.
    pub fn target_node(&mut self, procs: &mut Processes, target: TargetId) -> EvalResult<NodeId> {
        if let Some(node) = self.targets[target as usize].node {
            return Ok(node);
        }
        let Target {
            states,
            perm,
            origin,
            ..
        } = &self.targets[target as usize];
        let (states, perm, origin) = (states.clone(), *perm, *origin);
        let seeds = match perm {
            IDENTITY => states.to_vec(),
            perm => {
                let perm = self.perms.get(perm).clone();
                self.images(procs, &states, &perm)?
            }
        };
        let node = self.node_of(procs, seeds, origin)?;
        self.targets[target as usize].node = Some(node);
        self.learnt += 1;
        Ok(node)
    }

    fn target_of(
        &mut self,
        states: Vec<u32>,
        perm: PermId,
        origin: Option<(NodeId, EventId)>,
    ) -> TargetId {
        let mut key = states;
        key.push(perm);
        if let Some(&target) = self.target_index.get(key.as_slice()) {
            return target;
        }
        let target = self.targets.len() as TargetId;
        let states = key[..key.len() - 1].into();
        self.target_index.insert(key.into(), target);
        self.targets.push(Target {
            states,
            perm,
            node: None,
            origin,
        });
        target
    }

    /// Whether nodes can be permuted (made by [`Normaliser::symmetric`]).
    pub fn is_symmetric(&self) -> bool {
        self.symmetry.is_some()
    }

    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// How many specification states its nodes and targets have made.
    pub fn spec_states(&self) -> usize {
        match &self.keyed {
            Some(keyed) => keyed.len(),
            None => self.states.len(),
        }
    }

    /// Makes the process terms of the states of `nodes`, which a
    /// counterexample shows ([`Normaliser::member_states`]).
    pub fn make_shown(&mut self, procs: &mut Processes, nodes: &[NodeId]) -> EvalResult<()> {
        if self.keyed.is_none() {
            return Ok(());
        }
        for &node in nodes {
            let members = self.nodes[node as usize].members.clone();
            for &state in members.iter() {
                self.keyed_local(procs, state)?;
            }
        }
        Ok(())
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
                match &self.keyed {
                    Some(keyed) => {
                        row.clear();
                        row.push(keyed.local(s).expect("made by make_shown"));
                    }
                    None => self.states.read(s, &mut row),
                }
                row.iter()
                    .enumerate()
                    .map(|(slot, &local)| self.machine.process_state(slot, local))
                    .collect()
            })
            .collect()
    }

    /// The node and event `node` was first made after, when it was made
    /// so (following these back reaches the root).
    pub fn origin(&self, node: NodeId) -> Option<(NodeId, EventId)> {
        self.nodes.get(node as usize)?.origin
    }

    /// The moves of specification state `state`, computed once. A
    /// budget that stops the work here says it stopped in the
    /// specification (the search's own counts may still be zero).
    fn known_moves(&mut self, procs: &mut Processes, state: u32) -> EvalResult<&StateMoves> {
        let i = state as usize;
        if self.transitions.len() <= i {
            self.transitions.resize(i + 1, None);
        }
        if self.transitions[i].is_none() {
            let moves = self.compute_transitions(procs, state).map_err(|error| {
                match error.stop_reason() {
                    Some(Stopped::StateBudget | Stopped::Memory) => error.with_note(
                        "it stopped normalising the specification: its states are held to the \
                         same budget as the search",
                    ),
                    Some(_) => error.with_note("it stopped while normalising the specification"),
                    None => error,
                }
            })?;
            self.transitions[i] = Some(moves);
        }
        Ok(self.transitions[i].as_ref().expect("just computed"))
    }

    /// Every `(event, state)` move of `state`, listed: an image of its
    /// representative's moves is made into its list now, and kept so.
    fn transitions(&mut self, procs: &mut Processes, state: u32) -> EvalResult<&[(EventId, u32)]> {
        if let StateMoves::Image {
            representative,
            perm,
        } = *self.known_moves(procs, state)?
        {
            let list = self.image_moves(procs, representative, perm)?;
            self.transitions[state as usize] = Some(StateMoves::Listed(list));
        }
        match &self.transitions[state as usize] {
            Some(StateMoves::Listed(list)) => Ok(list),
            _ => unreachable!("listed just above"),
        }
    }

    /// The listed moves of a representative (see [`StateMoves::Image`]).
    fn listed(&self, representative: u32) -> &[(EventId, u32)] {
        match &self.transitions[representative as usize] {
            Some(StateMoves::Listed(list)) => list,
            _ => unreachable!("a representative's moves are listed"),
        }
    }

    /// The events of `state`'s moves (τ included), into `out`, sorted
    /// and without repeats; no state is made.
    fn events_of(
        &mut self,
        procs: &mut Processes,
        state: u32,
        out: &mut Vec<EventId>,
    ) -> EvalResult<()> {
        out.clear();
        match *self.known_moves(procs, state)? {
            StateMoves::Listed(ref list) => out.extend(list.iter().map(|&(e, _)| e)),
            StateMoves::Image {
                representative,
                perm,
            } => {
                let system = self.symmetry.as_ref().expect("an image needs a symmetry");
                let perm = self.perms.get(perm);
                out.extend(
                    self.listed(representative)
                        .iter()
                        .map(|&(e, _)| system.permute_event(procs, perm, e)),
                );
                out.sort_unstable();
            }
        }
        out.dedup();
        Ok(())
    }

    /// The states `state` reaches by τ, into `out` (appended).
    fn tau_targets(
        &mut self,
        procs: &mut Processes,
        state: u32,
        out: &mut Vec<u32>,
    ) -> EvalResult<()> {
        match *self.known_moves(procs, state)? {
            StateMoves::Listed(ref list) => {
                out.extend(list.iter().filter(|&&(e, _)| e == TAU).map(|&(_, t)| t));
            }
            StateMoves::Image {
                representative,
                perm,
            } => {
                let taus: Vec<u32> = self
                    .listed(representative)
                    .iter()
                    .filter(|&&(e, _)| e == TAU)
                    .map(|&(_, t)| t)
                    .collect();
                if !taus.is_empty() {
                    let perm = self.perms.get(perm).clone();
                    out.extend(self.images(procs, &taus, &perm)?);
                }
            }
        }
        Ok(())
    }

    fn compute_transitions(&mut self, procs: &mut Processes, state: u32) -> EvalResult<StateMoves> {
        // The specification's states are held to the budget like the
        // product's: counted, polled, at most `max_states`.
        procs.evaluator().tick(1)?;
        match self.moves_by_orbit(procs, state)? {
            Some(moves) => Ok(moves),
            None => self.evaluate_moves(procs, state).map(StateMoves::Listed),
        }
    }

    /// The moves of `state` from its CSPM: the machine evaluates it.
    fn evaluate_moves(
        &mut self,
        procs: &mut Processes,
        state: u32,
    ) -> EvalResult<Box<[(EventId, u32)]>> {
        let meter = procs.meter().clone();
        match self.keyed.is_some() {
            true => {
                let local = self.keyed_local(procs, state)?;
                self.row.clear();
                self.row.push(local);
            }
            false => self.states.read(state, &mut self.row),
        }
        // Lent out while each successor is stored, which needs `self`
        // (taken, not replaced: a fresh `Moves` allocates its buffers).
        let mut moves = self.moves.take().unwrap_or_default();
        if let Err(e) = self.machine.moves(procs, &self.row, &mut moves) {
            self.moves = Some(moves);
            return Err(e);
        }
        let stored = self.store_successors(procs, &moves, &meter);
        self.moves = Some(moves);
        let mut list = stored?;
        list.sort_unstable();
        list.dedup();
        Ok(list.into())
    }

    /// Each of `moves` (from the row in `self.row`) with its successor
    /// stored as a state.
    fn store_successors(
        &mut self,
        procs: &mut Processes,
        moves: &Moves,
        meter: &Meter,
    ) -> EvalResult<Vec<(EventId, u32)>> {
        let mut list = Vec::with_capacity(moves.list.len());
        for m in &moves.list {
            moves.apply(m, &self.row, &mut self.next);
            let id = match self.keyed.is_some() {
                true => self.keyed_of_local(procs, self.next[0])?,
                false => {
                    let stored = self.states.insert_within(&self.next, meter);
                    stored.map_err(EvalError::stopped)?.0
                }
            };
            list.push((m.event, id));
        }
        Ok(list)
    }

    /// The node of the τ-closure of `seeds`; made, if new, with its
    /// origin (see [`Node::origin`]).
    fn node_of(
        &mut self,
        procs: &mut Processes,
        mut members: Vec<u32>,
        origin: Option<(NodeId, EventId)>,
    ) -> EvalResult<NodeId> {
        let mut at = 0;
        members.sort_unstable();
        members.dedup();
        let mut seen: rustc_hash::FxHashSet<u32> = members.iter().copied().collect();
        let mut targets = Vec::new();
        while at < members.len() {
            let state = members[at];
            at += 1;
            targets.clear();
            self.tau_targets(procs, state, &mut targets)?;
            for &t in &targets {
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
            origin,
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
            let after = self.compute_initials(procs, node)?;
            self.nodes[node as usize].after = Some(after.into());
            self.learnt += 1;
        }
        Ok(self.nodes[node as usize]
            .after
            .as_deref()
            .expect("just computed"))
    }

    /// Each visible event of the node's members with its target. A
    /// member whose moves are an image of its representative's gives
    /// its targets as images too (their states are not made); where the
    /// members of one event's target are images under different
    /// permutations, they are made.
    fn compute_initials(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
    ) -> EvalResult<Vec<(EventId, TargetId)>> {
        let members = self.nodes[node as usize].members.clone();
        // (event, state, the permutation the state is to be taken under)
        let mut by_event: Vec<(EventId, u32, PermId)> = Vec::new();
        for &s in members.iter() {
            match *self.known_moves(procs, s)? {
                StateMoves::Listed(ref list) => by_event.extend(
                    list.iter()
                        .filter(|&&(e, _)| e != TAU)
                        .map(|&(e, t)| (e, t, IDENTITY)),
                ),
                StateMoves::Image {
                    representative,
                    perm,
                } => {
                    let system = self.symmetry.as_ref().expect("an image needs a symmetry");
                    let under = self.perms.get(perm);
                    by_event.extend(
                        self.listed(representative)
                            .iter()
                            .filter(|&&(e, _)| e != TAU)
                            .map(|&(e, t)| (system.permute_event(procs, under, e), t, perm)),
                    );
                }
            }
        }
        by_event.sort_unstable();
        by_event.dedup();
        let mut after = Vec::new();
        for group in by_event.chunk_by(|a, b| a.0 == b.0) {
            let perm = group[0].2;
            let target = if group.iter().all(|&(_, _, p)| p == perm) {
                let origin = Some((node, group[0].0));
                self.target_of(group.iter().map(|&(_, t, _)| t).collect(), perm, origin)
            } else {
                let mut states = Vec::with_capacity(group.len());
                for &(_, t, p) in group {
                    match p {
                        IDENTITY => states.push(t),
                        p => {
                            let under = self.perms.get(p).clone();
                            states.extend(self.images(procs, &[t], &under)?);
                        }
                    }
                }
                states.sort_unstable();
                states.dedup();
                self.target_of(states, IDENTITY, Some((node, group[0].0)))
            };
            after.push((group[0].0, target));
        }
        Ok(after)
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
            let all = self.stable_members_acceptances(procs, node)?;
            let mut all: Vec<Box<[EventId]>> = all.into_iter().map(Into::into).collect();
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

    /// What each stable member of the node accepts.
    fn stable_members_acceptances(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
    ) -> EvalResult<Vec<Vec<EventId>>> {
        let members = self.nodes[node as usize].members.clone();
        let mut all = Vec::new();
        for &s in members.iter() {
            if let Some(accepted) = self.stable_acceptance(procs, s)? {
                all.push(accepted);
            }
        }
        Ok(all)
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
            let all = self.stable_members_acceptances(procs, node)?;
            let mut all: Vec<Box<[EventId]>> = all.into_iter().map(Into::into).collect();
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
        let mut events = Vec::new();
        self.events_of(procs, state, &mut events)?;
        if events.contains(&TAU) {
            return Ok(None);
        }
        let mut accepted = Vec::new();
        acceptance(events.into_iter(), &mut accepted);
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
        self.node_of(procs, reached, None).map(Some)
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
            let found = cycles.diverges(s, &mut |state, out| self.tau_targets(procs, state, out));
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
mod tests;

//! The supercombinator: the static top of a process (parallel
//! compositions of every kind, hiding, renaming, linked parallel)
//! flattened into leaf *components* and an operator tree over them, with
//! every event set and relation precomputed as bit sets and tables.
//!
//! A system state is one process state id per component. Its transitions
//! are computed on integers only: each component's own transitions come
//! from the process layer's memo (evaluated once per component state),
//! and the tree combines them. A leaf whose term later grows into a
//! parallel composition simply stays one component.
//!
//! Termination follows the plain semantics exactly: a component's ✓
//! becomes τ to Ω, and a parallel node whose operands have all
//! terminated performs ✓ once. That ✓ is recorded by putting the marker
//! state `Done(depth)` into *every* component below the node, so "all
//! operands are Ω" and "terminated" stay distinct states, as they are as
//! terms, and the marker sits in no particular slot: a permutation of
//! the components that maps the node onto another maps its markers too.
//!
//! Components number their states locally, in [`Table`]s. By default
//! each component has its own; components that a symmetry may exchange
//! share one ([`Machine::share_tables`]), so the image of a component
//! state under a permutation has a number in the image component at
//! once, found or added by [`Machine::local_of`].
//!
//! A component state's transitions are kept sorted by event, and the
//! tree combines them by event ([`combine`]): what each node lists and
//! what it asks its operands for by event is planned once ([`plan`]).

mod combine;
mod moves;
mod outline;
mod plan;
mod stubborn;

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};
use crate::process::{
    EventId, EventRelation, EventSet, ProcId, Processes, TAU, TICK, Term, Transition,
};

pub use moves::{Change, Move, Moves};
use plan::{Bits, Offer, Plan, SetId};
pub use stubborn::{GivenUp, Joined, Member, PartialOrder, Preserve, StubbornSet, Widened};

/// A node of the operator tree (read by the symmetry layer, which
/// checks that a permutation maps the tree onto itself).
#[derive(Debug)]
pub enum Node {
    Leaf {
        slot: u32,
    },
    /// `[| A |]`, `|||`, `[A || B]` and their replicated forms.
    Parallel {
        children: Vec<usize>,
        /// Each operand's alphabet, for alphabetised parallel.
        alphabets: Option<Vec<EventSet>>,
        /// Events every operand that may perform them must perform
        /// together (`None` when there are none: interleaving).
        sync: Option<EventSet>,
        /// The components below it: `slots.0..slots.1`.
        slots: (u32, u32),
        depth: u32,
    },
    Hide {
        child: usize,
        set: EventSet,
    },
    Rename {
        child: usize,
        relation: EventRelation,
    },
    /// `prioritise(P, <A1, ..., An>)` and `prioritisepo(P, A, order,
    /// maximal)`: a move of the child is dropped where the child also
    /// offers an event the priority puts before it.
    Prioritise {
        child: usize,
        priority: Priority,
    },
    Linked {
        left: usize,
        right: usize,
        relation: EventRelation,
        range: EventSet,
        /// The components below it: `slots.0..slots.1`.
        slots: (u32, u32),
        depth: u32,
    },
}

/// A numbering of process states used by one component, or shared by
/// several: the states in the order met (so a system state needs only
/// small numbers), and each one's transitions with targets in the same
/// numbering.
#[derive(Debug, Default)]
struct Table {
    states: Vec<ProcId>,
    index: FxHashMap<ProcId, u32>,
    transitions: Vec<Option<LocalTransitions>>,
}

/// A component state's transitions: events and local target numbers,
/// sorted by event (in the process layer's order among equal events).
type LocalTransitions = Box<[(EventId, u32)]>;

/// The transitions components of one table list themselves when the
/// operators above them ask for the events of `excluded` by event: per
/// state, those on other events (all of them when nothing is excluded).
#[derive(Debug)]
struct TransitionListing {
    excluded: SetId,
    everything: bool,
    listed: Vec<Option<LocalTransitions>>,
}

impl Table {
    /// Computes the transitions of state `local` if they are not known:
    /// in the process layer, sorted by event (stably: equal events keep
    /// the process layer's order), targets numbered here.
    fn compute_transitions(&mut self, procs: &mut Processes, local: usize) -> EvalResult<()> {
        if self.transitions[local].is_none() {
            let p = self.states[local];
            let mut list: Vec<(EventId, u32)> = procs
                .transitions(p)?
                .iter()
                .map(|t: &Transition| (t.event, self.local(t.target)))
                .collect();
            list.sort_by_key(|&(e, _)| e);
            self.transitions[local] = Some(list.into());
        }
        Ok(())
    }

    fn local(&mut self, p: ProcId) -> u32 {
        if let Some(&i) = self.index.get(&p) {
            return i;
        }
        let i = self.states.len() as u32;
        self.states.push(p);
        self.index.insert(p, i);
        self.transitions.push(None);
        i
    }
}

/// A route to an event that several operands of a node can perform.
const SEVERAL: u32 = u32::MAX;

/// What a prioritise node puts first.
#[derive(Debug, Clone)]
pub enum Priority {
    /// `prioritise`: an event of a later set waits while the child
    /// offers one of an earlier set (τ and ✓ count as events of `A1`).
    Levels {
        levels: Vec<EventSet>,
        /// Per event id: its rank (the index of its set; 0 for τ and ✓),
        /// or [`NO_RANK`] for an event of no set.
        rank: Vec<u32>,
    },
    /// `prioritisepo`: a pair `(a, b)` holds `b` back while the child
    /// offers `a` (the order's closure, τ and ✓ included).
    Order(EventRelation),
}

/// The rank of an event in no set of a `prioritise`: never held back,
/// holding nothing back.
const NO_RANK: u32 = u32::MAX;

/// One row of [`Machine::outline`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutlineRow {
    /// An operator (`[| {a, b} |]`, `|||`, `\ {c}`, ...) whose operands
    /// follow one level deeper.
    Operator { depth: usize, text: String },
    /// A component, by slot.
    Component { depth: usize, slot: usize },
}

/// A process compiled into components and an operator tree.
#[derive(Debug)]
pub struct Machine {
    nodes: Vec<Node>,
    tables: Vec<Table>,
    /// Each component's table.
    table_of: Vec<u32>,
    initial: Vec<u32>,
    omega: ProcId,
    /// `Done(d)` for each depth `d` of a parallel node.
    done: Vec<ProcId>,
    /// Events that τ and ✓ take priority over (`:[tau priority over]:`).
    tau_priority: Option<EventSet>,
    plan: Plan,
    listings: Vec<TransitionListing>,
    /// Each component's listing.
    listing_of: Vec<u32>,
    /// Per node: every visible event it has been able to perform in a
    /// state prepared so far (as it names them), so that asking a node
    /// for an event it never offered stops at once.
    seen: Vec<Bits>,
    /// Per parallel node and event: which operand has been able to
    /// perform it (`1 +` its index), none (0) or several ([`SEVERAL`]),
    /// so that a node asked for an event its operands do not share asks
    /// one operand only.
    routes: Vec<Vec<u32>>,
    /// Per parallel node and event it does not synchronise: the one
    /// component (`1 +` its slot) its routes lead to through parallel
    /// nodes that do not synchronise it either, or 0; so that asking for
    /// an event one philosopher of a table performs goes straight to him.
    direct: Vec<Vec<u32>>,
    /// Per plan: the components it reads that can offer something — those
    /// of its leaf plans whose component has performed an event of the
    /// leaf's set (in a state prepared so far), and those it always
    /// reads: what asking it costs. A leaf plan's own holds its component
    /// once it can offer something, and is empty until then.
    live_reads: Vec<Vec<u32>>,
    /// Per slot: the local states it is ready to move from (prepared), as
    /// bits.
    ready: Vec<Vec<u64>>,
    /// The partial order reduction every search of the machine makes, if
    /// asked for ([`Machine::reduce_partial_order`]).
    stubborn: Option<Box<stubborn::Stubborn>>,
}

/// A machine stopped by a budget may hold millions of component states,
/// each with its own list of transitions, and millions of nodes, each
/// with its plan, routes and sets: all of it is freed on a thread of its
/// own, so that the run answers at once (freeing them took a tenth of a
/// second past a time-out while normalising an unbounded specification,
/// and a third of a second past one after compiling two million
/// components).
impl Drop for Machine {
    fn drop(&mut self) {
        let states: usize = self.tables.iter().map(|t| t.states.len()).sum();
        if states + self.nodes.len() > crate::budget::FREE_LATER {
            crate::budget::drop_later((
                (
                    std::mem::take(&mut self.nodes),
                    std::mem::take(&mut self.tables),
                    std::mem::take(&mut self.table_of),
                    std::mem::take(&mut self.initial),
                    std::mem::take(&mut self.plan),
                    std::mem::take(&mut self.listings),
                ),
                (
                    std::mem::take(&mut self.listing_of),
                    std::mem::take(&mut self.seen),
                    std::mem::take(&mut self.routes),
                    std::mem::take(&mut self.direct),
                    std::mem::take(&mut self.live_reads),
                    std::mem::take(&mut self.ready),
                ),
            ));
        }
    }
}

/// Components compiled between two polls of the evaluator's meter.
const COMPILE_POLL_EVERY: usize = 4096;

/// Whether the evaluator's meter lets work on `procs` go on.
fn polled(procs: &Processes) -> EvalResult<()> {
    procs.evaluator().meter().poll().map_err(EvalError::stopped)
}

impl Machine {
    /// Flattens the static top of `root`, polling the evaluator's meter
    /// ([`Processes::evaluator`]) as it goes: a machine of millions of
    /// components takes seconds to build, and a budget stops it.
    pub fn new(procs: &mut Processes, root: ProcId) -> EvalResult<Machine> {
        let mut machine = Machine {
            nodes: Vec::new(),
            tables: Vec::new(),
            table_of: Vec::new(),
            initial: Vec::new(),
            omega: procs.omega(),
            done: Vec::new(),
            tau_priority: None,
            plan: Plan::default(),
            listings: Vec::new(),
            listing_of: Vec::new(),
            seen: Vec::new(),
            routes: Vec::new(),
            direct: Vec::new(),
            live_reads: Vec::new(),
            ready: Vec::new(),
            stubborn: None,
        };
        machine.compile(procs, root, 0)?;
        polled(procs)?;
        machine.plan = Plan::new(
            &machine.nodes,
            machine.initial.len(),
            procs.events().id_count(),
        );
        polled(procs)?;
        machine.index_listings();
        polled(procs)?;
        machine.forget_seen(procs.events().id_count());
        polled(procs)?;
        let depth = machine
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Parallel { depth, .. } | Node::Linked { depth, .. } => Some(*depth),
                _ => None,
            })
            .max();
        if let Some(depth) = depth {
            machine.done = (0..=depth).map(|d| procs.intern(Term::Done(d))).collect();
        }
        // Every component below a parallel node may come to hold its
        // marker: number the markers now, so that moves need no lookup.
        let markers: Vec<((u32, u32), u32)> = machine
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Parallel { slots, depth, .. } | Node::Linked { slots, depth, .. } => {
                    Some((*slots, *depth))
                }
                _ => None,
            })
            .collect();
        for ((from, to), depth) in markers {
            let marker = machine.done[depth as usize];
            for slot in from..to {
                machine.local_of(slot as usize, marker);
            }
        }
        Ok(machine)
    }

    /// The whole of `root` as one component, its operators left to the
    /// process layer's plain semantics: the second path to a state space,
    /// independent of the operator tree.
    pub fn single(procs: &mut Processes, root: ProcId) -> Machine {
        let mut table = Table::default();
        let initial = vec![table.local(root)];
        let nodes = vec![Node::Leaf { slot: 0 }];
        let plan = Plan::new(&nodes, 1, procs.events().id_count());
        let mut machine = Machine {
            nodes,
            tables: vec![table],
            table_of: vec![0],
            initial,
            omega: procs.omega(),
            done: Vec::new(),
            tau_priority: None,
            plan,
            listings: Vec::new(),
            listing_of: Vec::new(),
            seen: Vec::new(),
            routes: Vec::new(),
            direct: Vec::new(),
            live_reads: Vec::new(),
            ready: Vec::new(),
            stubborn: None,
        };
        machine.index_listings();
        machine.forget_seen(procs.events().id_count());
        machine
    }

    fn forget_seen(&mut self, id_count: usize) {
        self.seen = vec![Bits::empty(id_count); self.nodes.len()];
        self.routes = self
            .nodes
            .iter()
            .map(|n| match n {
                Node::Parallel { .. } => vec![0; id_count],
                _ => Vec::new(),
            })
            .collect();
        // The same shape as the routes, every entry empty.
        self.direct = self.routes.clone();
        self.live_reads = self.plan.always_reads.clone();
        self.ready = vec![Vec::new(); self.initial.len()];
    }

    /// Records that the leaf of `slot` (or `node` above it) can perform
    /// `e`, and the event it is for each node above.
    fn see(&mut self, node: usize, e: EventId) {
        if e == TAU || e == TICK || self.seen[node].contains(e) {
            // Its ancestors saw it when it was first seen.
            return;
        }
        self.seen[node].insert(e);
        if node == 0 {
            return;
        }
        let parent = self.plan.parent[node];
        match &self.nodes[parent] {
            Node::Leaf { .. } => unreachable!("a leaf has no child"),
            Node::Hide { set, .. } => {
                if !set.contains(e) {
                    self.see(parent, e);
                }
            }
            Node::Prioritise { .. } => self.see(parent, e),
            Node::Rename { relation, .. } => {
                let image: Vec<EventId> = relation.image(e).iter().map(|&(_, to)| to).collect();
                if image.is_empty() {
                    self.see(parent, e);
                }
                for to in image {
                    self.see(parent, to);
                }
            }
            Node::Parallel { alphabets, .. } => {
                let i = self.plan.child_index[node] as usize;
                if alphabets.as_ref().is_none_or(|a| a[i].contains(e)) {
                    let route = &mut self.routes[parent][e as usize];
                    *route = match *route {
                        0 => i as u32 + 1,
                        _ => SEVERAL,
                    };
                    self.redirect(parent, e);
                    self.see(parent, e);
                }
            }
            Node::Linked {
                left,
                relation,
                range,
                ..
            } => {
                let linked = if *left == node {
                    relation.in_domain(e)
                } else {
                    range.contains(e)
                };
                if !linked {
                    self.see(parent, e);
                }
            }
        }
    }

    /// Recomputes the direct route of parallel `node` on `e`, and of the
    /// parallel nodes above it that lead to it.
    fn redirect(&mut self, mut node: usize, e: EventId) {
        while let Node::Parallel { children, sync, .. } = &self.nodes[node] {
            let direct = match self.routes[node][e as usize] {
                _ if sync.as_ref().is_some_and(|s| s.contains(e)) => 0,
                0 | SEVERAL => 0,
                only => {
                    let child = children[only as usize - 1];
                    match &self.nodes[child] {
                        Node::Leaf { slot } => slot + 1,
                        Node::Parallel { .. } => self.direct[child][e as usize],
                        _ => 0,
                    }
                }
            };
            self.direct[node][e as usize] = direct;
            if node == 0 {
                return;
            }
            node = self.plan.parent[node];
        }
    }

    /// One listing per table and excluded set its components use; a
    /// state's listed transitions are made when it is prepared.
    fn index_listings(&mut self) {
        let mut listings: Vec<TransitionListing> = Vec::new();
        // By (table, excluded set): a machine may have millions of
        // components, so finding a listing must not be a walk of them.
        let mut index: FxHashMap<(u32, SetId), u32> = FxHashMap::default();
        self.listing_of = (0..self.initial.len())
            .map(|slot| {
                let table = self.table_of[slot];
                let excluded = self.plan.leaf_excluded[slot];
                *index.entry((table, excluded)).or_insert_with(|| {
                    listings.push(TransitionListing {
                        excluded,
                        everything: self.plan.sets[excluded as usize].is_empty(),
                        listed: Vec::new(),
                    });
                    (listings.len() - 1) as u32
                })
            })
            .collect();
        // Listed anew (lazily, as states are prepared) under the new
        // numbering.
        self.listings = listings;
    }

    /// The initial system state: each component's local state number.
    pub fn initial(&self) -> &[u32] {
        &self.initial
    }

    pub fn components(&self) -> usize {
        self.initial.len()
    }

    /// The process state of component `slot` in local state `local`.
    pub fn process_state(&self, slot: usize, local: u32) -> ProcId {
        self.tables[self.table_of[slot] as usize].states[local as usize]
    }

    /// The local number of process state `p` in component `slot`, if the
    /// component's table has it.
    pub fn find_local(&self, slot: usize, p: ProcId) -> Option<u32> {
        self.tables[self.table_of[slot] as usize]
            .index
            .get(&p)
            .copied()
    }

    /// The local number of process state `p` in component `slot`, added
    /// to the component's table if it is new (its transitions are
    /// computed when a state holding it is prepared).
    pub fn local_of(&mut self, slot: usize, p: ProcId) -> u32 {
        self.tables[self.table_of[slot] as usize].local(p)
    }

    /// The table component `slot` numbers its states in.
    pub fn table_of(&self, slot: usize) -> usize {
        self.table_of[slot] as usize
    }

    /// How many states table `table` numbers so far.
    pub fn table_len(&self, table: usize) -> usize {
        self.tables[table].states.len()
    }

    /// The process state numbered `local` in table `table`.
    pub fn table_state(&self, table: usize, local: u32) -> ProcId {
        self.tables[table].states[local as usize]
    }

    /// Makes each group of components share one table, so that a state
    /// of one has the same number in all of them. Call it before any
    /// system state is stored: it renumbers the initial state.
    pub fn share_tables(&mut self, groups: &[Vec<usize>]) {
        for group in groups.iter().filter(|g| g.len() > 1) {
            let shared = self.table_of[group[0]];
            for &slot in &group[1..] {
                let own = self.table_of[slot] as usize;
                if own as u32 == shared {
                    continue;
                }
                let states = self.tables[own].states.clone();
                self.table_of[slot] = shared;
                let renumbered: Vec<u32> = states
                    .into_iter()
                    .map(|p| self.tables[shared as usize].local(p))
                    .collect();
                self.initial[slot] = renumbered[self.initial[slot] as usize];
            }
        }
        // Tables no component uses any more are left empty.
        let used: rustc_hash::FxHashSet<u32> = self.table_of.iter().copied().collect();
        for (t, table) in self.tables.iter_mut().enumerate() {
            if !used.contains(&(t as u32)) {
                *table = Table::default();
            }
        }
        self.index_listings();
        // The local numbers changed; what was seen stays true.
        for locals in &mut self.ready {
            locals.clear();
        }
    }

    /// The most local states any component has been in.
    pub fn largest_component(&self) -> usize {
        self.tables
            .iter()
            .map(|c| c.states.len())
            .max()
            .unwrap_or(0)
    }

    fn compile(&mut self, procs: &mut Processes, p: ProcId, depth: u32) -> EvalResult<usize> {
        let index = self.nodes.len();
        self.nodes.push(Node::Leaf { slot: 0 });
        let first_slot = self.initial.len() as u32;
        let node = match procs.term(p).clone() {
            Term::Parallel(set, ps) => {
                let children = ps
                    .iter()
                    .map(|&c| self.compile(procs, c, depth + 1))
                    .collect::<EvalResult<_>>()?;
                Node::Parallel {
                    children,
                    alphabets: None,
                    sync: Some(procs.set(set).clone()).filter(|s| !s.is_empty()),
                    slots: (first_slot, self.initial.len() as u32),
                    depth,
                }
            }
            Term::AlphaParallel(pairs) => {
                let children = pairs
                    .iter()
                    .map(|&(_, c)| self.compile(procs, c, depth + 1))
                    .collect::<EvalResult<_>>()?;
                let alphabets: Vec<EventSet> =
                    pairs.iter().map(|&(a, _)| procs.set(a).clone()).collect();
                let mut counts: FxHashMap<EventId, u32> = FxHashMap::default();
                for a in &alphabets {
                    for e in a.iter() {
                        *counts.entry(e).or_default() += 1;
                    }
                }
                let sync = EventSet::from_ids(
                    counts.into_iter().filter(|&(_, n)| n > 1).map(|(e, _)| e),
                    procs.events().id_count(),
                );
                Node::Parallel {
                    children,
                    alphabets: Some(alphabets),
                    sync: Some(sync).filter(|s| !s.is_empty()),
                    slots: (first_slot, self.initial.len() as u32),
                    depth,
                }
            }
            Term::Linked(a, r, b) => {
                let left = self.compile(procs, a, depth + 1)?;
                let right = self.compile(procs, b, depth + 1)?;
                let relation = procs.relation(r).clone();
                let range = EventSet::from_ids(
                    relation.pairs().iter().map(|&(_, y)| y),
                    procs.events().id_count(),
                );
                Node::Linked {
                    left,
                    right,
                    relation,
                    range,
                    slots: (first_slot, self.initial.len() as u32),
                    depth,
                }
            }
            Term::Hide(c, set) => Node::Hide {
                child: self.compile(procs, c, depth + 1)?,
                set: procs.set(set).clone(),
            },
            Term::Rename(c, r) => Node::Rename {
                child: self.compile(procs, c, depth + 1)?,
                relation: procs.relation(r).clone(),
            },
            Term::Prioritise(c, sets) => {
                let levels: Vec<EventSet> = sets.iter().map(|&s| procs.set(s).clone()).collect();
                let mut rank = vec![NO_RANK; procs.events().id_count()];
                // The first set holding an event gives its rank.
                for (i, level) in levels.iter().enumerate().rev() {
                    for e in level.iter() {
                        rank[e as usize] = i as u32;
                    }
                }
                rank[TAU as usize] = 0;
                rank[TICK as usize] = 0;
                Node::Prioritise {
                    child: self.compile(procs, c, depth + 1)?,
                    priority: Priority::Levels { levels, rank },
                }
            }
            Term::PrioritiseOrder(c, r) => Node::Prioritise {
                child: self.compile(procs, c, depth + 1)?,
                priority: Priority::Order(procs.relation(r).clone()),
            },
            _ => {
                if self.initial.len() % COMPILE_POLL_EVERY == COMPILE_POLL_EVERY - 1 {
                    polled(procs)?;
                }
                let mut table = Table::default();
                self.initial.push(table.local(p));
                self.table_of.push(self.tables.len() as u32);
                self.tables.push(table);
                Node::Leaf { slot: first_slot }
            }
        };
        self.nodes[index] = node;
        Ok(index)
    }

    /// Every move of `state`, into `out` (cleared first). Components'
    /// transitions are computed on first use.
    pub fn moves(
        &mut self,
        procs: &mut Processes,
        state: &[u32],
        out: &mut Moves,
    ) -> EvalResult<()> {
        self.prepare(procs, state)?;
        self.prepared_moves(state, out);
        Ok(())
    }

    /// Every move of a state whose component states are all prepared
    /// ([`Self::prepare`]): integers only, so several threads may share
    /// the machine.
    pub fn prepared_moves(&self, state: &[u32], out: &mut Moves) {
        out.clear();
        self.list(0, state, out);
        if let Some(urgent) = &self.tau_priority
            && out.list.iter().any(|m| m.event == TAU || m.event == TICK)
        {
            out.list.retain(|m| !urgent.contains(m.event));
        }
        if let Some(stubborn) = &self.stubborn {
            stubborn.reduce(self, state, out);
        }
    }

    /// Gives τ and ✓ priority over `events`: a state that can perform τ
    /// or ✓ offers none of them (FDR's `:[tau priority over]:`, the
    /// urgency of internal actions in timed models).
    pub fn set_tau_priority(&mut self, events: EventSet) {
        self.tau_priority = Some(events);
    }

    /// The components taking part in a move (its `changes`), each once,
    /// with the event it performed itself (before hiding and renaming),
    /// as the move recorded it where the component moved. A parallel
    /// node's ✓ puts its marker into its components: that is the node's
    /// step, not theirs, and they are left out. For explaining a step.
    pub fn participants(&self, changes: &[Change]) -> Vec<(usize, EventId)> {
        let mut taking_part: Vec<(usize, EventId)> = Vec::with_capacity(changes.len());
        for change in changes {
            let slot = change.slot as usize;
            if taking_part.iter().any(|&(s, _)| s == slot)
                || self.done.contains(&self.process_state(slot, change.to))
            {
                continue;
            }
            taking_part.push((slot, change.event));
        }
        taking_part
    }

    /// What the participants of a move performed when the system shows
    /// `event`: the event a τ hides, or the one renamed to `event`.
    pub fn hidden_event(participants: &[(usize, EventId)], event: EventId) -> Option<EventId> {
        participants
            .iter()
            .map(|&(_, own)| own)
            .find(|&own| own != event && own != TAU)
    }

    /// The operator tree, root first (node 0).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The events τ and ✓ take priority over, if any.
    pub fn tau_priority(&self) -> Option<&EventSet> {
        self.tau_priority.as_ref()
    }

    /// Computes the transitions of every component state of `state` not
    /// yet known, and what each component lists itself.
    pub fn prepare(&mut self, procs: &mut Processes, state: &[u32]) -> EvalResult<()> {
        let mut prepared = 0;
        for (slot, &local) in state.iter().enumerate() {
            if self.is_ready(slot, local) {
                continue;
            }
            // A state of millions of components new to the machine (the
            // first of a wide interleaving) is seconds of work.
            prepared += 1;
            if prepared % COMPILE_POLL_EVERY == 0 {
                polled(procs)?;
            }
            self.prepare_component(procs, slot, local)?;
            let (word, bit) = (local as usize / 64, 1u64 << (local % 64));
            let ready = &mut self.ready[slot];
            if ready.len() <= word {
                ready.resize(word + 1, 0);
            }
            ready[word] |= bit;
        }
        Ok(())
    }

    /// Does the evaluation [`Self::prepare`] would do for `state` — the
    /// transitions of its component states not known yet, computed in the
    /// process layer, whose memo keeps them — and leaves the machine as it
    /// is, so that other threads may read it meanwhile; `prepare` then
    /// finds them computed. In the order `prepare` would compute them, so
    /// the process layer numbers the states it meets alike either way.
    pub fn evaluate_ahead(&self, procs: &mut Processes, state: &[u32]) -> EvalResult<()> {
        for (slot, &local) in state.iter().enumerate() {
            let table = &self.tables[self.table_of[slot] as usize];
            if !self.is_ready(slot, local) && table.transitions[local as usize].is_none() {
                procs.transitions(table.states[local as usize])?;
            }
        }
        Ok(())
    }

    /// Whether component `slot` is ready to move from its local state
    /// `local`.
    #[inline]
    fn is_ready(&self, slot: usize, local: u32) -> bool {
        self.ready[slot]
            .get(local as usize / 64)
            .is_some_and(|w| w & (1 << (local % 64)) != 0)
    }

    /// Makes component `slot` ready to move from its local state `local`:
    /// its transitions, those it lists itself, and the events it offers
    /// known to the nodes above it.
    fn prepare_component(
        &mut self,
        procs: &mut Processes,
        slot: usize,
        local: u32,
    ) -> EvalResult<()> {
        let local = local as usize;
        self.tables[self.table_of[slot] as usize].compute_transitions(procs, local)?;
        let all = self.tables[self.table_of[slot] as usize].transitions[local]
            .as_deref()
            .expect("computed above");
        let events: Vec<EventId> = all.iter().map(|&(e, _)| e).collect();
        let listing = &mut self.listings[self.listing_of[slot] as usize];
        if !listing.everything {
            if listing.listed.len() <= local {
                listing.listed.resize(local + 1, None);
            }
            if listing.listed[local].is_none() {
                let excluded = &self.plan.sets[listing.excluded as usize];
                listing.listed[local] = Some(
                    all.iter()
                        .filter(|&&(e, _)| !excluded.contains(e))
                        .copied()
                        .collect(),
                );
            }
        }
        let offers = &self.plan.leaf_offers[slot];
        for &offer in offers {
            let Offer::Leaf { set, .. } = self.plan.offers[offer as usize] else {
                unreachable!("a leaf plan")
            };
            let set = &self.plan.sets[set as usize];
            let live = !self.live_reads[offer as usize].is_empty();
            if !live && events.iter().any(|&e| set.contains(e)) {
                for &reader in &self.plan.readers[offer as usize] {
                    // A leaf plan goes live once, so the slot is in the
                    // reader's list already only if another of its leaf
                    // plans that the reader reads went live before: asked
                    // of those few plans, not of the list, which holds
                    // every component of a wide interleaving.
                    let listed = offers.iter().any(|&other| {
                        other != offer
                            && !self.live_reads[other as usize].is_empty()
                            && self.plan.readers[other as usize].contains(&reader)
                    });
                    if !listed {
                        self.live_reads[reader as usize].push(slot as u32);
                    }
                }
            }
        }
        let leaf = self.plan.leaf[slot];
        for e in events {
            self.see(leaf, e);
        }
        Ok(())
    }

    /// Whether every component of `state` is ready to move
    /// ([`Self::prepare`] has seen it), so that its moves need no
    /// evaluation.
    pub fn is_prepared(&self, state: &[u32]) -> bool {
        state
            .iter()
            .enumerate()
            .all(|(slot, &local)| self.is_ready(slot, local))
    }

    /// The transitions of component `slot` in `state` (prepared), sorted
    /// by event.
    #[inline]
    fn transitions(&self, slot: usize, state: &[u32]) -> &[(EventId, u32)] {
        self.tables[self.table_of[slot] as usize].transitions[state[slot] as usize]
            .as_deref()
            .expect("prepared")
    }

    /// The transitions of component `slot` in its local state `local`,
    /// where they are known (its own state space's, once explored).
    fn transitions_at(&self, slot: usize, local: u32) -> Option<&[(EventId, u32)]> {
        self.tables[self.table_of[slot] as usize]
            .transitions
            .get(local as usize)?
            .as_deref()
    }

    /// The transitions component `slot` lists itself in `state`: those on
    /// events no operator above asks for by event.
    #[inline]
    fn listed(&self, slot: usize, state: &[u32]) -> &[(EventId, u32)] {
        let listing = &self.listings[self.listing_of[slot] as usize];
        if listing.everything {
            self.transitions(slot, state)
        } else {
            listing.listed[state[slot] as usize]
                .as_deref()
                .expect("prepared")
        }
    }

    /// Whether the subtree at `node` has terminated (is Ω).
    fn terminated(&self, node: usize, state: &[u32]) -> bool {
        match &self.nodes[node] {
            Node::Leaf { slot } => {
                self.process_state(*slot as usize, state[*slot as usize]) == self.omega
            }
            Node::Hide { child, .. }
            | Node::Rename { child, .. }
            | Node::Prioritise { child, .. } => self.terminated(*child, state),
            Node::Parallel { slots, depth, .. } | Node::Linked { slots, depth, .. } => {
                self.is_done(state, *slots, *depth)
            }
        }
    }

    /// Whether the parallel node at `depth` over `slots` (or an ancestor)
    /// has performed its ✓: its components then all hold a marker of
    /// depth at most `depth`, so the first one tells.
    fn is_done(&self, state: &[u32], slots: (u32, u32), depth: u32) -> bool {
        let first = slots.0 as usize;
        let p = self.process_state(first, state[first]);
        self.done[..=depth as usize].contains(&p)
    }

    /// The ✓ of the parallel node at `depth` over `slots`: every
    /// component below it takes the node's marker.
    fn push_done(&self, (from, to): (u32, u32), depth: u32, out: &mut Moves) {
        let marker = self.done[depth as usize];
        let start = out.changes.len() as u32;
        for slot in from..to {
            let local = self.tables[self.table_of[slot as usize] as usize].index[&marker];
            out.changes.push(Change {
                slot,
                to: local,
                event: TICK,
            });
        }
        out.list.push(Move {
            event: TICK,
            start,
            len: to - from,
        });
    }
}

#[cfg(test)]
mod tests;

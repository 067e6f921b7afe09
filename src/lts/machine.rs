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

use rustc_hash::FxHashMap;

use crate::eval::EvalResult;
use crate::process::{
    EventId, EventRelation, EventSet, ProcId, Processes, TAU, TICK, Term, Transition,
};

/// One move of a system state: an event and the components it changes.
#[derive(Debug, Clone, Copy)]
pub struct Move {
    pub event: EventId,
    /// Range into [`Moves::changes`].
    start: u32,
    len: u32,
}

/// The moves of one system state; reused from state to state.
#[derive(Debug, Default)]
pub struct Moves {
    pub list: Vec<Move>,
    changes: Vec<(u32, u32)>,
    scratch: Vec<Move>,
    bounds: Vec<usize>,
    options: Vec<(usize, usize)>,
    pick: Vec<usize>,
    parts: Vec<Move>,
}

impl Moves {
    pub fn clear(&mut self) {
        self.list.clear();
        self.changes.clear();
    }

    /// The `(component, new state)` changes of a move.
    pub fn changes(&self, m: &Move) -> &[(u32, u32)] {
        &self.changes[m.start as usize..(m.start + m.len) as usize]
    }

    /// `state` after move `m`.
    pub fn apply(&self, m: &Move, state: &[u32], out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(state);
        for &(slot, target) in self.changes(m) {
            out[slot as usize] = target;
        }
    }

    fn push(&mut self, event: EventId, changes: &[(u32, u32)]) {
        let start = self.changes.len() as u32;
        self.changes.extend_from_slice(changes);
        self.list.push(Move {
            event,
            start,
            len: changes.len() as u32,
        });
    }
}

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

/// A component state's transitions: events and local target numbers.
type LocalTransitions = Box<[(EventId, u32)]>;

impl Table {
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
}

impl Machine {
    /// Flattens the static top of `root`.
    pub fn new(procs: &mut Processes, root: ProcId) -> Machine {
        let mut machine = Machine {
            nodes: Vec::new(),
            tables: Vec::new(),
            table_of: Vec::new(),
            initial: Vec::new(),
            omega: procs.omega(),
            done: Vec::new(),
            tau_priority: None,
        };
        machine.compile(procs, root, 0);
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
        machine
    }

    /// The whole of `root` as one component, its operators left to the
    /// process layer's plain semantics: the second path to a state space,
    /// independent of the operator tree.
    pub fn single(procs: &mut Processes, root: ProcId) -> Machine {
        let mut table = Table::default();
        let initial = vec![table.local(root)];
        Machine {
            nodes: vec![Node::Leaf { slot: 0 }],
            tables: vec![table],
            table_of: vec![0],
            initial,
            omega: procs.omega(),
            done: Vec::new(),
            tau_priority: None,
        }
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
    }

    /// The most local states any component has been in.
    pub fn largest_component(&self) -> usize {
        self.tables
            .iter()
            .map(|c| c.states.len())
            .max()
            .unwrap_or(0)
    }

    fn compile(&mut self, procs: &mut Processes, p: ProcId, depth: u32) -> usize {
        let index = self.nodes.len();
        self.nodes.push(Node::Leaf { slot: 0 });
        let first_slot = self.initial.len() as u32;
        let node = match procs.term(p).clone() {
            Term::Parallel(set, ps) => {
                let children = ps
                    .iter()
                    .map(|&c| self.compile(procs, c, depth + 1))
                    .collect();
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
                    .collect();
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
                let left = self.compile(procs, a, depth + 1);
                let right = self.compile(procs, b, depth + 1);
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
                child: self.compile(procs, c, depth + 1),
                set: procs.set(set).clone(),
            },
            Term::Rename(c, r) => Node::Rename {
                child: self.compile(procs, c, depth + 1),
                relation: procs.relation(r).clone(),
            },
            _ => {
                let mut table = Table::default();
                self.initial.push(table.local(p));
                self.table_of.push(self.tables.len() as u32);
                self.tables.push(table);
                Node::Leaf { slot: first_slot }
            }
        };
        self.nodes[index] = node;
        index
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
        self.node_moves(0, state, out);
        if let Some(urgent) = &self.tau_priority
            && out.list.iter().any(|m| m.event == TAU || m.event == TICK)
        {
            out.list.retain(|m| !urgent.contains(m.event));
        }
    }

    /// Gives τ and ✓ priority over `events`: a state that can perform τ
    /// or ✓ offers none of them (FDR's `:[tau priority over]:`, the
    /// urgency of internal actions in timed models).
    pub fn set_tau_priority(&mut self, events: EventSet) {
        self.tau_priority = Some(events);
    }

    /// The components taking part in a move of `state` (its `changes`,
    /// performing `event`), each once, with the event it performed itself
    /// (before hiding and renaming). A component that has `event` into its
    /// new state performed `event`. Otherwise the event was hidden or
    /// renamed: the participants of a hidden synchronisation all performed
    /// the same event, so each takes the one into its new state that the
    /// most participants share, which tells `getNext.T0.N0.Null` from the
    /// node's other self-loops. For explaining a step.
    pub fn participants(
        &self,
        state: &[u32],
        changes: &[(u32, u32)],
        event: EventId,
    ) -> Vec<(usize, EventId)> {
        let mut slots: Vec<usize> = Vec::with_capacity(changes.len());
        let mut candidates: Vec<Vec<EventId>> = Vec::with_capacity(changes.len());
        for &(slot, to) in changes {
            let slot = slot as usize;
            // A parallel node's ✓ puts its marker into its components:
            // that is the node's step, not theirs.
            if slots.contains(&slot) || self.done.contains(&self.process_state(slot, to)) {
                continue;
            }
            slots.push(slot);
            candidates.push(
                self.tables[self.table_of[slot] as usize].transitions[state[slot] as usize]
                    .as_deref()
                    .unwrap_or_default()
                    .iter()
                    .filter(|&&(_, target)| target == to)
                    .map(|&(e, _)| e)
                    .collect(),
            );
        }
        let shared_by = |e: EventId| candidates.iter().filter(|c| c.contains(&e)).count();
        // First the most shared, then the earliest: deterministic.
        let shared = candidates
            .iter()
            .flatten()
            .copied()
            .max_by_key(|&e| (shared_by(e), std::cmp::Reverse(e)));
        slots
            .into_iter()
            .zip(&candidates)
            .map(|(slot, own)| {
                let chosen = [Some(event), shared]
                    .into_iter()
                    .flatten()
                    .find(|e| own.contains(e))
                    .or(own.first().copied())
                    .unwrap_or(TAU);
                (slot, chosen)
            })
            .collect()
    }

    /// What the participants of a move performed when the system shows
    /// `event`: the event a τ hides, or the one renamed to `event`.
    pub fn hidden_event(participants: &[(usize, EventId)], event: EventId) -> Option<EventId> {
        participants
            .iter()
            .map(|&(_, own)| own)
            .find(|&own| own != event && own != TAU)
    }

    /// The operator tree above the components, depth first, for showing
    /// a state grouped as the process is built.
    pub fn outline(&self, procs: &Processes) -> Vec<OutlineRow> {
        let mut rows = Vec::new();
        self.outline_node(procs, 0, 0, &mut rows);
        rows
    }

    fn outline_node(
        &self,
        procs: &Processes,
        node: usize,
        depth: usize,
        rows: &mut Vec<OutlineRow>,
    ) {
        let children: Vec<usize> = match &self.nodes[node] {
            Node::Leaf { slot } => {
                rows.push(OutlineRow::Component {
                    depth,
                    slot: *slot as usize,
                });
                return;
            }
            Node::Parallel { children, .. } => children.clone(),
            Node::Hide { child, .. } | Node::Rename { child, .. } => vec![*child],
            Node::Linked { left, right, .. } => vec![*left, *right],
        };
        rows.push(OutlineRow::Operator {
            depth,
            text: self.operator_text(procs, node),
        });
        for child in children {
            self.outline_node(procs, child, depth + 1, rows);
        }
    }

    /// The operator of a node as CSPM (`[| {a, b} |]`, `|||`, `\ {c}`);
    /// a leaf as its component, `component 3`.
    pub fn operator_text(&self, procs: &Processes, node: usize) -> String {
        match &self.nodes[node] {
            Node::Leaf { slot } => format!("component {}", slot + 1),
            Node::Parallel {
                alphabets, sync, ..
            } => match (alphabets, sync) {
                (Some(alphabets), _) => {
                    let alphabets: Vec<String> =
                        alphabets.iter().map(|a| procs.show_events(a)).collect();
                    format!("[ {} ]", alphabets.join(" || "))
                }
                (None, Some(sync)) => format!("[| {} |]", procs.show_events(sync)),
                (None, None) => "|||".to_string(),
            },
            Node::Hide { set, .. } => format!("\\ {}", procs.show_events(set)),
            Node::Rename { relation, .. } => {
                format!("[[ {} ]]", procs.show_relation(relation, " <- "))
            }
            Node::Linked { relation, .. } => {
                format!("[ {} ]", procs.show_relation(relation, " <-> "))
            }
        }
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
    /// yet known.
    pub fn prepare(&mut self, procs: &mut Processes, state: &[u32]) -> EvalResult<()> {
        for (slot, &local) in state.iter().enumerate() {
            let table = &mut self.tables[self.table_of[slot] as usize];
            if table.transitions[local as usize].is_some() {
                continue;
            }
            let p = table.states[local as usize];
            let list: Vec<(EventId, u32)> = procs
                .transitions(p)?
                .iter()
                .map(|t: &Transition| (t.event, table.local(t.target)))
                .collect();
            table.transitions[local as usize] = Some(list.into());
        }
        Ok(())
    }

    fn node_moves(&self, node: usize, state: &[u32], out: &mut Moves) {
        match &self.nodes[node] {
            Node::Leaf { slot } => {
                let table = &self.tables[self.table_of[*slot as usize] as usize];
                let transitions = table.transitions[state[*slot as usize] as usize]
                    .as_deref()
                    .expect("prepared");
                for &(event, target) in transitions {
                    out.push(event, &[(*slot, target)]);
                }
            }
            Node::Hide { child, set } => {
                let base = out.list.len();
                self.node_moves(*child, state, out);
                for m in &mut out.list[base..] {
                    if m.event != TICK && set.contains(m.event) {
                        m.event = TAU;
                    }
                }
            }
            Node::Rename { child, relation } => {
                let base = out.list.len();
                self.node_moves(*child, state, out);
                let end = out.list.len();
                for i in base..end {
                    let m = out.list[i];
                    if m.event == TAU || m.event == TICK {
                        continue;
                    }
                    let image = relation.image(m.event);
                    if let Some((&(_, first), rest)) = image.split_first() {
                        out.list[i].event = first;
                        for &(_, other) in rest {
                            out.list.push(Move { event: other, ..m });
                        }
                    }
                }
            }
            Node::Parallel {
                children,
                alphabets,
                sync,
                slots,
                depth,
            } => {
                let base = out.list.len();
                // Where each operand's moves start, on a stack shared
                // with the nodes below (they pop what they push).
                let at = out.bounds.len();
                out.bounds.push(base);
                for &c in children {
                    self.node_moves(c, state, out);
                    out.bounds.push(out.list.len());
                }
                let raw_end = out.list.len();
                let operands = children.len();
                let may =
                    |i: usize, e: EventId| alphabets.as_ref().is_none_or(|a| a[i].contains(e));
                // Synchronised events, from the first operand that may
                // perform each; appended after the operands' own moves,
                // which they read.
                if let Some(sync) = sync {
                    for i in 0..operands {
                        let (from, to) = (out.bounds[at + i], out.bounds[at + i + 1]);
                        for k in from..to {
                            let e = out.list[k].event;
                            if e == TAU || e == TICK || !sync.contains(e) || !may(i, e) {
                                continue;
                            }
                            // Once per event: at the first operand that may
                            // take part, at its first move on `e`.
                            if (0..i).any(|j| may(j, e))
                                || (from..k).any(|j| out.list[j].event == e)
                            {
                                continue;
                            }
                            self.synchronise(e, i, at, &may, out);
                        }
                    }
                }
                // Independent moves stay where they are: τ, an operand's ✓
                // (as τ), and events nobody else needs to join.
                let mut kept = base;
                for i in 0..operands {
                    for k in out.bounds[at + i]..out.bounds[at + i + 1] {
                        let mut m = out.list[k];
                        match m.event {
                            TAU | TICK => m.event = TAU,
                            e if !may(i, e) => continue,
                            e if sync.as_ref().is_some_and(|s| s.contains(e)) => continue,
                            _ => {}
                        }
                        out.list[kept] = m;
                        kept += 1;
                    }
                }
                let joined = out.list.len() - raw_end;
                out.list.copy_within(raw_end.., kept);
                out.list.truncate(kept + joined);
                out.bounds.truncate(at);
                if !self.is_done(state, *slots, *depth)
                    && children.iter().all(|&c| self.terminated(c, state))
                {
                    self.push_done(*slots, *depth, out);
                }
            }
            Node::Linked {
                left,
                right,
                relation,
                range,
                slots,
                depth,
            } => {
                let base = out.list.len();
                self.node_moves(*left, state, out);
                let mid = out.list.len();
                self.node_moves(*right, state, out);
                let raw_end = out.list.len();
                for k in base..mid {
                    let m = out.list[k];
                    match m.event {
                        TAU | TICK => out.list.push(Move { event: TAU, ..m }),
                        e if relation.in_domain(e) => {
                            for &(_, f) in relation.image(e) {
                                for j in mid..raw_end {
                                    let n = out.list[j];
                                    if n.event == f {
                                        self.join(TAU, &[m, n], out);
                                    }
                                }
                            }
                        }
                        _ => out.list.push(m),
                    }
                }
                for k in mid..raw_end {
                    let n = out.list[k];
                    match n.event {
                        TAU | TICK => out.list.push(Move { event: TAU, ..n }),
                        e if range.contains(e) => {}
                        _ => out.list.push(n),
                    }
                }
                if !self.is_done(state, *slots, *depth)
                    && self.terminated(*left, state)
                    && self.terminated(*right, state)
                {
                    self.push_done(*slots, *depth, out);
                }
                out.list.drain(base..raw_end);
            }
        }
    }

    /// Every combination of one `e`-move per participating operand (whose
    /// moves start at `out.bounds[at..]`).
    fn synchronise(
        &self,
        e: EventId,
        first: usize,
        at: usize,
        may: &dyn Fn(usize, EventId) -> bool,
        out: &mut Moves,
    ) {
        let operands = out.bounds.len() - at - 1;
        // Buffers reused from call to call: each participant's moves on
        // `e` (in `found`, delimited by `options`), the current pick of
        // each, and the moves picked.
        let mut found = std::mem::take(&mut out.scratch);
        let mut options = std::mem::take(&mut out.options);
        let mut pick = std::mem::take(&mut out.pick);
        let mut parts = std::mem::take(&mut out.parts);
        found.clear();
        options.clear();
        let mut everyone_can = true;
        for i in first..operands {
            if !may(i, e) {
                continue;
            }
            let start = found.len();
            let (from, to) = (out.bounds[at + i], out.bounds[at + i + 1]);
            found.extend(out.list[from..to].iter().filter(|m| m.event == e));
            if found.len() == start {
                everyone_can = false;
                break;
            }
            options.push((start, found.len()));
        }
        if everyone_can {
            pick.clear();
            pick.resize(options.len(), 0);
            'combinations: loop {
                parts.clear();
                parts.extend(options.iter().zip(&pick).map(|(&(s, _), &p)| found[s + p]));
                self.join(e, &parts, out);
                // Next combination, odometer style.
                let mut i = options.len();
                loop {
                    if i == 0 {
                        break 'combinations;
                    }
                    i -= 1;
                    pick[i] += 1;
                    if options[i].0 + pick[i] < options[i].1 {
                        break;
                    }
                    pick[i] = 0;
                }
            }
        }
        out.scratch = found;
        out.options = options;
        out.pick = pick;
        out.parts = parts;
    }

    /// One move made of several operands' moves.
    fn join(&self, event: EventId, parts: &[Move], out: &mut Moves) {
        let start = out.changes.len() as u32;
        for m in parts {
            for k in m.start..m.start + m.len {
                let change = out.changes[k as usize];
                out.changes.push(change);
            }
        }
        let len = out.changes.len() as u32 - start;
        out.list.push(Move { event, start, len });
    }

    /// Whether the subtree at `node` has terminated (is Ω).
    fn terminated(&self, node: usize, state: &[u32]) -> bool {
        match &self.nodes[node] {
            Node::Leaf { slot } => {
                self.process_state(*slot as usize, state[*slot as usize]) == self.omega
            }
            Node::Hide { child, .. } | Node::Rename { child, .. } => self.terminated(*child, state),
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
            out.changes.push((slot, local));
        }
        out.list.push(Move {
            event: TICK,
            start,
            len: to - from,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Script;

    /// The ids of `a` and `b` (after τ and ✓).
    const EVENT_A: EventId = 2;
    const EVENT_B: EventId = 3;

    /// The machine of `expr` in a script with channels `a` and `b`.
    fn with_machine<T>(expr: &str, body: impl FnOnce(&mut Processes, &mut Machine) -> T) -> T {
        let mut script = Script::load_str("test.csp", "channel a, b\n").expect("loads");
        let func = script.add_expr("<process>", expr).expect("resolves");
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let mut machine = Machine::new(&mut procs, root);
        body(&mut procs, &mut machine)
    }

    /// The state after firing the first move with `event`.
    fn fire(
        procs: &mut Processes,
        machine: &mut Machine,
        state: &[u32],
        event: EventId,
    ) -> Vec<u32> {
        let mut moves = Moves::default();
        machine.moves(procs, state, &mut moves).expect("moves");
        let m = moves
            .list
            .iter()
            .find(|m| m.event == event)
            .expect("enabled");
        let mut next = Vec::new();
        moves.apply(m, state, &mut next);
        next
    }

    #[test]
    fn a_parallel_tick_marks_every_component_below_it_and_moves_none_of_them() {
        with_machine("(SKIP ||| SKIP) ||| SKIP", |procs, machine| {
            let mut state = machine.initial().to_vec();
            // Each SKIP terminates by τ (its ✓ inside a parallel), and so
            // does the inner parallel.
            let mut moves = Moves::default();
            loop {
                machine.moves(procs, &state, &mut moves).expect("moves");
                if !moves.list.iter().any(|m| m.event == TAU) {
                    break;
                }
                state = fire(procs, machine, &state, TAU);
            }
            machine.moves(procs, &state, &mut moves).expect("moves");
            let tick = moves.list.iter().find(|m| m.event == TICK).expect("✓");
            assert_eq!(moves.changes(tick).len(), 3, "the outer ✓ marks all three");
            assert!(
                machine
                    .participants(&state, moves.changes(tick), TICK)
                    .is_empty()
            );
            let done = fire(procs, machine, &state, TICK);
            let markers: Vec<&Term> = (0..3)
                .map(|slot| procs.term(machine.process_state(slot, done[slot])))
                .collect();
            assert_eq!(markers, vec![&Term::Done(0); 3]);
            machine.moves(procs, &done, &mut moves).expect("moves");
            assert!(moves.list.is_empty(), "terminated: no more moves");
        });
    }

    #[test]
    fn the_inner_parallel_terminates_first_and_stays_terminated() {
        with_machine("(SKIP ||| SKIP) ||| a -> SKIP", |procs, machine| {
            let mut state = machine.initial().to_vec();
            state = fire(procs, machine, &state, TAU);
            state = fire(procs, machine, &state, TAU);
            // The inner ✓ (a τ for the outer node) marks slots 0 and 1.
            state = fire(procs, machine, &state, TAU);
            let inner: Vec<&Term> = (0..2)
                .map(|slot| procs.term(machine.process_state(slot, state[slot])))
                .collect();
            assert_eq!(inner, vec![&Term::Done(1); 2]);
            state = fire(procs, machine, &state, EVENT_A);
            state = fire(procs, machine, &state, TAU);
            let done = fire(procs, machine, &state, TICK);
            let all: Vec<&Term> = (0..3)
                .map(|slot| procs.term(machine.process_state(slot, done[slot])))
                .collect();
            assert_eq!(all, vec![&Term::Done(0); 3]);
        });
    }

    #[test]
    fn shared_tables_number_a_state_alike_in_every_component() {
        let expr = "(||| i : {0, 1} @ a -> STOP) ||| b -> STOP";
        with_machine(expr, |procs, machine| {
            assert_eq!(machine.initial(), &[0, 0, 0]);
            machine.share_tables(&[vec![0, 1, 2]]);
            // The two `a -> STOP` are one state, `b -> STOP` another.
            let initial = machine.initial().to_vec();
            assert_eq!(initial[0], initial[1]);
            assert_ne!(initial[0], initial[2]);
            assert_eq!(machine.table_of(0), machine.table_of(2));
            let stop = procs.intern(Term::Stop);
            let local = machine.local_of(2, stop);
            assert_eq!(machine.find_local(0, stop), Some(local));
            let after = fire(procs, machine, &initial, EVENT_B);
            assert_eq!(after, vec![initial[0], initial[1], local]);
        });
    }
}

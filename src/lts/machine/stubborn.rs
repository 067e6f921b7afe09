//! Partial order reduction: at each state, the moves of a *stubborn
//! set* instead of all of them (Valmari's stubborn sets; the conditions
//! are Peled's for ample sets), computed on the supercombinator.
//!
//! A transition of the system is a move: an event and the components
//! that take part in it. Two moves with no component in common are
//! independent (neither enables nor disables the other, and both orders
//! reach one state), because nothing else in the operator tree makes a
//! move depend on a component outside it — except priority, which is
//! refused. A stubborn set is closed over a set `K` of components: it
//! holds every transition of a component of `K`, enabled or not, and
//! - every component of an *enabled* move of a component of `K` is in `K`
//!   (a move dependent on it shares one of them);
//! - for a *disabled* transition of a component of `K`, one component
//!   that must change state before it can happen is in `K`: the component
//!   itself when its state does not offer its part; otherwise each partner
//!   (a component that must take part with it wherever a node
//!   synchronises it) whose state does not offer its part.
//!
//! The search then follows only the enabled moves of the components of
//! `K`, seeded from each component in turn and keeping the fewest. Every
//! state without moves (a deadlock, a termination) is then reached, the
//! same state by the same events reordered (Godefroid's theorem): that is
//! [`Preserve::Deadlocks`]. For traces, failures and divergences
//! ([`Preserve::Behaviour`]) two more conditions hold:
//! - *visibility*: a set with a visible move (✓ included) is widened to
//!   every move, so a reduced state's moves are all τ;
//! - *cycles*: no cycle of the reduced graph avoids a fully expanded
//!   state. It is decided statically: each table's local states are
//!   numbered by their distance from its components' initial states, and
//!   a move that takes a component to a state no farther away is
//!   *sticky*; a set with a sticky move is widened to every move. A cycle
//!   returns every component it moves to where it was, so one of its
//!   moves is sticky. The distance is invariant under a symmetry of the
//!   system (it maps initial states onto initial states and transitions
//!   onto transitions), so the cycles of a symmetry-reduced graph, which
//!   close on a permuted state, are caught too; the reduced set is
//!   computed at the representative, a real state of the system.
//!
//! What a component can ever do is read off its own state space in
//! isolation, explored once ([`Machine::close_tables`]): a component
//! whose own states pass a bound (one bounded only by its context) or a
//! state found outside them makes the reduction stand down, not guess.
//! A state the evaluator refuses ends its component's own state space
//! there: if the search reaches it, it meets the same error.

mod explain;

pub use explain::{GivenUp, Joined, Member, PartialOrder, StubbornSet, Widened};

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};
use crate::process::{EventId, EventRelation, Processes, TAU, TICK};

use super::{Machine, Moves, Node};

/// What a reduced search must find as the whole search would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preserve {
    /// Every reachable state without moves — deadlocks and terminations —
    /// each one itself, reached by the same events in another order.
    Deadlocks,
    /// Deadlocks and divergences, not traces: as [`Preserve::Behaviour`]
    /// (a divergence is a τ-cycle, which the visibility condition keeps
    /// from being interleaved with visible moves), or as
    /// [`Preserve::Deadlocks`] where no move can be a τ.
    Divergences,
    /// Traces, stable failures and divergences: everything a check
    /// observes.
    Behaviour,
}

impl Preserve {
    /// What it keeps, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Preserve::Deadlocks => "deadlocks and terminations kept",
            Preserve::Divergences => "deadlocks and divergences kept",
            Preserve::Behaviour => "traces, failures and divergences kept",
        }
    }
}

/// The most local states the components' own state spaces may hold
/// together before the reduction stands down.
const LOCAL_STATES: usize = 1 << 20;

/// The most local states one table may hold: a component bounded only
/// by its context (a counter) is given up in a fraction of a second.
const TABLE_STATES: usize = 1 << 15;

/// The most partners recorded for all components and events together.
const PARTNERS: usize = 1 << 24;

/// Local states explored between two polls of the meter.
const POLL_EVERY: usize = 4096;

/// What the reduction knows of the machine, made once.
#[derive(Debug)]
pub(super) struct Stubborn {
    preserve: Preserve,
    /// Per slot: for each visible event it can ever perform, its
    /// partners (a range of `partner_list`), sorted by event.
    partners: Vec<Box<[(EventId, u32, u32)]>>,
    /// Partners: a component and the event it performs itself.
    partner_list: Vec<(u32, EventId)>,
    /// Per table: each local state's distance from the initial states
    /// of its components ([`FAR`] where none reaches it).
    distance: Vec<Box<[u32]>>,
    /// Per slot: the local states its own state space holds, as bits.
    reachable: Vec<Box<[u64]>>,
    /// Whether sticky moves widen a set (always, but for a test that
    /// shows what goes wrong without).
    cycles: bool,
}

/// The distance of a local state no initial state reaches.
const FAR: u32 = u32::MAX;

/// Why closing a set from a component gave it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// It would hold no fewer moves than the smallest found.
    Bound,
    /// It holds move `m`, visible, where traces are kept.
    Visible(u32),
    /// It holds move `m`, which may close a cycle, where traces are kept.
    Sticky(u32),
    /// Component `slot` of the set has terminated.
    Terminated(u32),
    /// Component `slot` is in a state its own state space does not hold.
    Outside(u32),
    /// No move of its components is enabled.
    Blocked,
}

/// Buffers for computing stubborn sets, reused from state to state.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Per move: its components, `move_slots[move_start[m]..move_start[m + 1]]`.
    move_start: Vec<u32>,
    move_slots: Vec<u32>,
    /// Per slot: its moves, `slot_moves[slot_start[s]..slot_start[s + 1]]`.
    slot_start: Vec<u32>,
    slot_moves: Vec<u32>,
    /// Where each slot's next move goes while `slot_moves` is filled.
    fill: Vec<u32>,
    /// Per slot: whether it is in the set being closed.
    in_set: Vec<bool>,
    /// The set's components in the order they joined, each with why.
    set: Vec<u32>,
    cause: Vec<Joined>,
    stack: Vec<u32>,
    /// Per move: whether the set being closed holds it.
    taken: Vec<bool>,
    taken_list: Vec<u32>,
    best: Vec<u32>,
    tried: Vec<bool>,
}

impl Machine {
    /// Reduces every later search of this machine by partial order,
    /// keeping what `preserve` says, and says so in a report's note: what
    /// it keeps, or why it cannot (the machine is then left as it was, and
    /// searched whole). Explores each component's own state space,
    /// evaluating CSPM, within the meter of `procs`. Call it after the
    /// tables are shared for a symmetry.
    pub fn reduce_partial_order(
        &mut self,
        procs: &mut Processes,
        preserve: Preserve,
    ) -> EvalResult<String> {
        Ok(match self.partial_order_for(procs, preserve)? {
            Ok(reduction) => {
                let note = format!(
                    "partial order reduction: applied ({})",
                    reduction.kept(preserve)
                );
                self.stubborn = Some(reduction.0);
                note
            }
            Err(why) => {
                format!("partial order reduction: not applied, the search is exhaustive: {why}")
            }
        })
    }

    /// What the reduction needs to know of the machine, or why it cannot
    /// reduce it.
    fn stubborn_sets(
        &mut self,
        procs: &mut Processes,
        preserve: Preserve,
    ) -> EvalResult<Result<Stubborn, String>> {
        if self.tau_priority.is_some() {
            return Ok(Err(
                "`:[tau priority over]:` makes every move of a state wait on \
                 whether any component can do τ, so no move is independent of another"
                    .to_string(),
            ));
        }
        if self
            .nodes
            .iter()
            .any(|n| matches!(n, Node::Prioritise { .. }))
        {
            return Ok(Err(
                "a prioritise operator makes a move wait on what other components offer, \
                 so moves of different components are not independent"
                    .to_string(),
            ));
        }
        if let Err(why) = self.close_tables(procs)? {
            return Ok(Err(why));
        }
        let distance = (0..self.tables.len()).map(|t| self.distances(t)).collect();
        let (reachable, alphabets): (Vec<_>, Vec<_>) =
            (0..self.components()).map(|s| self.own_space(s)).unzip();
        // Without τ there is no divergence to keep.
        let preserve = match preserve {
            Preserve::Divergences if !self.can_do_tau() => Preserve::Deadlocks,
            Preserve::Divergences => Preserve::Behaviour,
            other => other,
        };
        let (partners, partner_list) = match Partners::new(self, &alphabets).all() {
            Ok(partners) => partners,
            Err(why) => return Ok(Err(why)),
        };
        Ok(Ok(Stubborn {
            preserve,
            partners,
            partner_list,
            distance,
            reachable,
            cycles: true,
        }))
    }

    /// Searches whole from now on: a counterexample found on the reduced
    /// graph is a path of the whole system, unwound through states that
    /// are not representatives (whose stubborn sets need not be images of
    /// their representatives'), replayed and judged there.
    pub fn forget_partial_order(&mut self) {
        self.stubborn = None;
    }

    /// Drops the cycle condition from the reduction: the search may then
    /// follow a loop of one component for ever and miss what the others
    /// do (the ignoring problem). Only for tests that show a fixture
    /// needs the condition.
    #[doc(hidden)]
    pub fn ignore_cycles(&mut self) {
        if let Some(stubborn) = &mut self.stubborn {
            stubborn.cycles = false;
        }
    }

    /// Whether the machine's searches are reduced by partial order, and
    /// what they keep.
    pub fn partial_order(&self) -> Option<Preserve> {
        self.stubborn.as_ref().map(|s| s.preserve)
    }

    /// Explores every table's states from the initial states of its
    /// components, computing their transitions; `Err(why)` when one
    /// passes [`TABLE_STATES`] or all together [`LOCAL_STATES`].
    fn close_tables(&mut self, procs: &mut Processes) -> EvalResult<Result<(), String>> {
        let mut total = 0;
        for t in 0..self.tables.len() {
            let mut next: Vec<u32> = (0..self.components())
                .filter(|&s| self.table_of[s] as usize == t)
                .map(|s| self.initial[s])
                .collect();
            let mut seen = vec![false; self.tables[t].states.len()];
            let mut in_table = 0;
            while let Some(local) = next.pop() {
                let local = local as usize;
                if seen.len() <= local {
                    seen.resize(local + 1, false);
                }
                if seen[local] {
                    continue;
                }
                seen[local] = true;
                total += 1;
                in_table += 1;
                if total % POLL_EVERY == 0 {
                    procs
                        .evaluator()
                        .meter()
                        .poll()
                        .map_err(EvalError::stopped)?;
                }
                if in_table > TABLE_STATES {
                    let slot = self.table_of.iter().position(|&x| x as usize == t);
                    let slot = slot.unwrap_or(0);
                    return Ok(Err(format!(
                        "the own state space of component {} (`{}`) passes {TABLE_STATES} \
                         states outside its context, which may be all that bounds it",
                        slot + 1,
                        procs.show_state(self.process_state(slot, self.initial[slot])),
                    )));
                }
                if total > LOCAL_STATES {
                    return Ok(Err(format!(
                        "the components' own state spaces pass {LOCAL_STATES} states together"
                    )));
                }
                let table = &mut self.tables[t];
                match table.compute_transitions(procs, local) {
                    Ok(()) => {}
                    Err(e) if e.stop_reason().is_some() => return Err(e),
                    // A state the evaluator refuses (a value outside a
                    // channel's type, say) is often one the component
                    // never reaches in its context. Nothing after it is
                    // known, and it needs not be: a search that reaches
                    // it meets the same error and reports it.
                    Err(_) => continue,
                }
                let targets = table.transitions[local].as_deref().expect("computed");
                next.extend(targets.iter().map(|&(_, to)| to));
            }
        }
        Ok(Ok(()))
    }

    /// Table `t`'s states' distances from its components' initial
    /// states, breadth first.
    fn distances(&self, t: usize) -> Box<[u32]> {
        let table = &self.tables[t];
        let mut distance = vec![FAR; table.states.len()];
        let mut level: Vec<u32> = Vec::new();
        for s in (0..self.components()).filter(|&s| self.table_of[s] as usize == t) {
            let local = self.initial[s];
            if distance[local as usize] == FAR {
                distance[local as usize] = 0;
                level.push(local);
            }
        }
        let mut d = 0;
        while !level.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for local in level {
                for &(_, to) in table.transitions[local as usize].as_deref().unwrap_or(&[]) {
                    if distance[to as usize] == FAR {
                        distance[to as usize] = d;
                        next.push(to);
                    }
                }
            }
            level = next;
        }
        distance.into()
    }

    /// Component `slot`'s own state space: its local states as bits,
    /// and the visible events it can perform, sorted.
    fn own_space(&self, slot: usize) -> (Box<[u64]>, Vec<EventId>) {
        let table = &self.tables[self.table_of[slot] as usize];
        let mut bits = vec![0u64; table.states.len().div_ceil(64)];
        let mut events = Vec::new();
        let mut next = vec![self.initial[slot]];
        while let Some(local) = next.pop() {
            let (word, bit) = (local as usize / 64, 1u64 << (local % 64));
            if bits[word] & bit != 0 {
                continue;
            }
            bits[word] |= bit;
            for &(e, to) in table.transitions[local as usize].as_deref().unwrap_or(&[]) {
                if e != TAU && e != TICK {
                    events.push(e);
                }
                next.push(to);
            }
        }
        events.sort_unstable();
        events.dedup();
        (bits.into(), events)
    }

    /// Whether some move of the machine may be a τ: a component's own τ
    /// or ✓ (a τ where operands terminate), hiding, or a link (after its
    /// tables are closed).
    fn can_do_tau(&self) -> bool {
        let hides_or_links = self.nodes.iter().any(|n| match n {
            Node::Hide { set, .. } => !set.is_empty(),
            Node::Linked { .. } => true,
            _ => false,
        });
        hides_or_links
            || self.tables.iter().any(|table| {
                table
                    .transitions
                    .iter()
                    .flatten()
                    .any(|list| list.iter().any(|&(e, _)| e == TAU || e == TICK))
            })
    }

    /// Whether component `slot` in local state `local` has terminated
    /// (Ω, or a parallel node's marker).
    fn has_terminated(&self, slot: usize, local: u32) -> bool {
        let p = self.process_state(slot, local);
        p == self.omega || self.done.contains(&p)
    }
}

/// Who takes part with whom: the partners of each component's events,
/// read off the operator tree and the components' own alphabets.
struct Partners<'m> {
    machine: &'m Machine,
    /// Per slot: the visible events of its own state space, sorted.
    alphabets: &'m [Vec<EventId>],
    /// Per node: the visible events it can perform as it names them,
    /// sorted.
    node_alphabets: Vec<Vec<EventId>>,
    /// The components below a node that may take part in its event.
    providers: FxHashMap<(usize, EventId), Vec<(u32, EventId)>>,
}

type PartnerTables = (Vec<Box<[(EventId, u32, u32)]>>, Vec<(u32, EventId)>);

impl<'m> Partners<'m> {
    fn new(machine: &'m Machine, alphabets: &'m [Vec<EventId>]) -> Partners<'m> {
        let nodes = &machine.nodes;
        let mut node_alphabets: Vec<Vec<EventId>> = vec![Vec::new(); nodes.len()];
        // Operands are compiled after the node above them: children have
        // greater indices, so they are done first walking backwards.
        for n in (0..nodes.len()).rev() {
            let mut events: Vec<EventId> = match &nodes[n] {
                Node::Leaf { slot } => alphabets[*slot as usize].clone(),
                Node::Hide { child, set } => node_alphabets[*child]
                    .iter()
                    .copied()
                    .filter(|&e| !set.contains(e))
                    .collect(),
                Node::Rename { child, relation } => node_alphabets[*child]
                    .iter()
                    .flat_map(|&e| renamed(relation, e))
                    .collect(),
                Node::Prioritise { child, .. } => node_alphabets[*child].clone(),
                Node::Parallel {
                    children,
                    alphabets,
                    ..
                } => children
                    .iter()
                    .enumerate()
                    .flat_map(|(i, &c)| {
                        node_alphabets[c].iter().copied().filter(move |&e| {
                            alphabets.as_ref().is_none_or(|a: &Vec<_>| a[i].contains(e))
                        })
                    })
                    .collect(),
                Node::Linked {
                    left,
                    right,
                    relation,
                    range,
                    ..
                } => node_alphabets[*left]
                    .iter()
                    .copied()
                    .filter(|&e| !relation.in_domain(e))
                    .chain(
                        node_alphabets[*right]
                            .iter()
                            .copied()
                            .filter(|&e| !range.contains(e)),
                    )
                    .collect(),
            };
            events.sort_unstable();
            events.dedup();
            node_alphabets[n] = events;
        }
        Partners {
            machine,
            alphabets,
            node_alphabets,
            providers: FxHashMap::default(),
        }
    }

    /// Every component's partners, per event; `Err(why)` past
    /// [`PARTNERS`].
    fn all(mut self) -> Result<PartnerTables, String> {
        let mut tables = Vec::with_capacity(self.machine.components());
        let mut list: Vec<(u32, EventId)> = Vec::new();
        let mut found = Vec::new();
        for slot in 0..self.machine.components() {
            let mut table = Vec::with_capacity(self.alphabets[slot].len());
            for &e in &self.alphabets[slot] {
                found.clear();
                self.of(slot, e, &mut found);
                found.sort_unstable();
                found.dedup();
                table.push((e, list.len() as u32, found.len() as u32));
                list.extend_from_slice(&found);
                if list.len() > PARTNERS {
                    return Err(format!(
                        "the components' partners on their events pass {PARTNERS} \
                         (component {slot})"
                    ));
                }
            }
            tables.push(table.into_boxed_slice());
        }
        Ok((tables, list))
    }

    /// The partners of component `slot` performing `e`: walking up from
    /// its leaf, at each node that synchronises the event (as that node
    /// names it), the components of the other operands that may take
    /// part.
    fn of(&mut self, slot: usize, e: EventId, out: &mut Vec<(u32, EventId)>) {
        let machine = self.machine;
        let mut names = vec![e];
        let mut node = machine.plan.leaf[slot];
        while node != 0 && !names.is_empty() {
            let parent = machine.plan.parent[node];
            let here = machine.plan.child_index[node] as usize;
            match &machine.nodes[parent] {
                Node::Leaf { .. } => unreachable!("a leaf has no operand"),
                Node::Hide { set, .. } => names.retain(|&x| !set.contains(x)),
                Node::Prioritise { .. } => {}
                Node::Rename { relation, .. } => {
                    names = names.iter().flat_map(|&x| renamed(relation, x)).collect();
                    names.sort_unstable();
                    names.dedup();
                }
                Node::Parallel {
                    children,
                    alphabets,
                    sync,
                    ..
                } => {
                    if let Some(a) = alphabets {
                        names.retain(|&x| a[here].contains(x));
                    }
                    for &x in &names {
                        if alphabets.is_none() && !sync.as_ref().is_some_and(|s| s.contains(x)) {
                            // Interleaved here: no partner at this node.
                            continue;
                        }
                        for (j, &child) in children.iter().enumerate() {
                            let takes_part = match alphabets {
                                Some(a) => a[j].contains(x),
                                None => sync.as_ref().is_some_and(|s| s.contains(x)),
                            };
                            if j != here && takes_part {
                                out.extend_from_slice(self.providers(child, x));
                            }
                        }
                    }
                }
                Node::Linked {
                    left,
                    right,
                    relation,
                    range,
                    ..
                } => {
                    let (left, right) = (*left, *right);
                    if here == 0 {
                        for &x in &names {
                            for &(_, to) in relation.image(x) {
                                out.extend_from_slice(self.providers(right, to));
                            }
                        }
                        names.retain(|&x| !relation.in_domain(x));
                    } else {
                        for &x in &names {
                            for &(from, to) in relation.pairs() {
                                if to == x {
                                    out.extend_from_slice(self.providers(left, from));
                                }
                            }
                        }
                        names.retain(|&x| !range.contains(x));
                    }
                }
            }
            node = parent;
        }
    }

    /// The components below `node` that may take part when it performs
    /// `x` (as it names it), each with the event it performs itself.
    fn providers(&mut self, node: usize, x: EventId) -> &[(u32, EventId)] {
        if !self.providers.contains_key(&(node, x)) {
            let mut found = Vec::new();
            let mut work = vec![(node, x)];
            while let Some((n, x)) = work.pop() {
                if self.node_alphabets[n].binary_search(&x).is_err() {
                    continue;
                }
                match &self.machine.nodes[n] {
                    Node::Leaf { slot } => found.push((*slot, x)),
                    Node::Hide { child, .. } | Node::Prioritise { child, .. } => {
                        work.push((*child, x))
                    }
                    Node::Rename { child, relation } => {
                        if !relation.in_domain(x) {
                            work.push((*child, x));
                        }
                        if let Some(from) = self.machine.plan.preimages[n].get(&x) {
                            work.extend(from.iter().map(|&f| (*child, f)));
                        }
                    }
                    Node::Parallel {
                        children,
                        alphabets,
                        ..
                    } => {
                        // An operand of an alphabetised parallel performs
                        // only its alphabet's events.
                        let takes_part =
                            |i: usize| alphabets.as_ref().is_none_or(|a| a[i].contains(x));
                        work.extend(
                            children
                                .iter()
                                .enumerate()
                                .filter(|&(i, _)| takes_part(i))
                                .map(|(_, &c)| (c, x)),
                        );
                    }
                    Node::Linked {
                        left,
                        right,
                        relation,
                        range,
                        ..
                    } => {
                        if !relation.in_domain(x) {
                            work.push((*left, x));
                        }
                        if !range.contains(x) {
                            work.push((*right, x));
                        }
                    }
                }
            }
            found.sort_unstable();
            found.dedup();
            self.providers.insert((node, x), found);
        }
        &self.providers[&(node, x)]
    }
}

/// What `e` is called above a renaming by `relation`: its images, or
/// itself where it is not renamed.
fn renamed(relation: &EventRelation, e: EventId) -> impl Iterator<Item = EventId> + '_ {
    let image = relation.image(e);
    let own = image.is_empty().then_some(e);
    image.iter().map(|&(_, to)| to).chain(own)
}

impl Stubborn {
    /// Keeps, of `moves` (every move of `state`, in the machine's order),
    /// those of the smallest stubborn set found, in the same order.
    pub(super) fn reduce(&self, machine: &Machine, state: &[u32], moves: &mut Moves) {
        if moves.list.len() <= 1 {
            return;
        }
        let mut s = std::mem::take(&mut moves.stubborn);
        if self.smallest(machine, state, moves, &mut s).is_some() {
            for &m in &s.taken_list {
                s.taken[m as usize] = false;
            }
            for &m in &s.best {
                s.taken[m as usize] = true;
            }
            let mut m = 0;
            moves.list.retain(|_| {
                m += 1;
                s.taken[m - 1]
            });
        }
        moves.stubborn = s;
    }

    /// The component from which the smallest set smaller than every move
    /// closes, its moves in `s.best`; `None` when every set found holds
    /// every move or is given up. Seeds are tried in the order of the
    /// moves' first components.
    fn smallest(
        &self,
        machine: &Machine,
        state: &[u32],
        moves: &Moves,
        s: &mut Scratch,
    ) -> Option<u32> {
        self.index(state.len(), moves, s);
        let mut best = moves.list.len();
        let mut seed_of_best = None;
        s.tried.clear();
        s.tried.resize(state.len(), false);
        for m in 0..moves.list.len() {
            let seed = s.move_slots[s.move_start[m] as usize];
            if s.tried[seed as usize] {
                continue;
            }
            s.tried[seed as usize] = true;
            if let Ok(size) = self.close::<false>(machine, state, moves, seed, best, s) {
                best = size;
                seed_of_best = Some(seed);
                s.best.clear();
                s.best.extend_from_slice(&s.taken_list);
                if best == 1 {
                    break;
                }
            }
        }
        seed_of_best
    }

    /// Each move's components and each component's moves.
    fn index(&self, slots: usize, moves: &Moves, s: &mut Scratch) {
        s.move_start.clear();
        s.move_slots.clear();
        for m in &moves.list {
            s.move_start.push(s.move_slots.len() as u32);
            let from = s.move_slots.len();
            for change in moves.changes(m) {
                if !s.move_slots[from..].contains(&change.slot) {
                    s.move_slots.push(change.slot);
                }
            }
        }
        s.move_start.push(s.move_slots.len() as u32);
        s.slot_start.clear();
        s.slot_start.resize(slots + 1, 0);
        for &slot in &s.move_slots {
            s.slot_start[slot as usize + 1] += 1;
        }
        for i in 0..slots {
            s.slot_start[i + 1] += s.slot_start[i];
        }
        s.slot_moves.clear();
        s.slot_moves.resize(s.move_slots.len(), 0);
        s.fill.clear();
        s.fill.extend_from_slice(&s.slot_start[..slots]);
        for m in 0..moves.list.len() {
            for k in s.move_start[m]..s.move_start[m + 1] {
                let slot = s.move_slots[k as usize] as usize;
                s.slot_moves[s.fill[slot] as usize] = m as u32;
                s.fill[slot] += 1;
            }
        }
        s.in_set.clear();
        s.in_set.resize(slots, false);
        s.set.clear();
        s.taken.clear();
        s.taken.resize(moves.list.len(), false);
        s.taken_list.clear();
    }

    /// Closes the set of components from `seed`: the number of enabled
    /// moves it holds (listed in `s.taken_list`; its components in
    /// `s.set`, and with `WHY` why each joined in `s.cause`), or why it
    /// was given up: it would hold no fewer than `bound`, or must be
    /// widened to every move. The search asks without `WHY`, and pays
    /// nothing for the explanation.
    fn close<const WHY: bool>(
        &self,
        machine: &Machine,
        state: &[u32],
        moves: &Moves,
        seed: u32,
        bound: usize,
        s: &mut Scratch,
    ) -> Result<usize, Stop> {
        for &slot in &s.set {
            s.in_set[slot as usize] = false;
        }
        s.set.clear();
        s.cause.clear();
        for &m in &s.taken_list {
            s.taken[m as usize] = false;
        }
        s.taken_list.clear();
        s.stack.clear();
        s.in_set[seed as usize] = true;
        s.set.push(seed);
        if WHY {
            s.cause.push(Joined::Seed);
        }
        s.stack.push(seed);
        while let Some(c) = s.stack.pop() {
            let slot = c as usize;
            let local = state[slot];
            if machine.has_terminated(slot, local) {
                return Err(Stop::Terminated(c));
            }
            if !self.knows(slot, local) {
                return Err(Stop::Outside(c));
            }
            // Every enabled move of the component, with its components.
            for k in s.slot_start[slot]..s.slot_start[slot + 1] {
                let m = s.slot_moves[k as usize] as usize;
                if s.taken[m] {
                    continue;
                }
                s.taken[m] = true;
                s.taken_list.push(m as u32);
                if s.taken_list.len() >= bound {
                    return Err(Stop::Bound);
                }
                if self.preserve != Preserve::Deadlocks {
                    if moves.list[m].event != TAU {
                        return Err(Stop::Visible(m as u32));
                    }
                    if self.cycles && self.sticky(machine, state, moves, &moves.list[m]) {
                        return Err(Stop::Sticky(m as u32));
                    }
                }
                for j in s.move_start[m]..s.move_start[m + 1] {
                    let other = s.move_slots[j as usize];
                    if !s.in_set[other as usize] {
                        s.in_set[other as usize] = true;
                        s.set.push(other);
                        if WHY {
                            s.cause.push(Joined::Shares { with: slot, m });
                        }
                        s.stack.push(other);
                    }
                }
            }
            // Its disabled transitions on events it offers: each partner
            // not ready for its part must move first.
            let offered = machine.transitions(slot, state);
            let mut last = None;
            for &(e, _) in offered {
                if e == TAU || e == TICK || last == Some(e) {
                    continue;
                }
                last = Some(e);
                for &(partner, own) in self.partners_of(slot, e) {
                    if s.in_set[partner as usize] {
                        continue;
                    }
                    let theirs = machine.transitions(partner as usize, state);
                    let ready = theirs
                        .get(theirs.partition_point(|&(x, _)| x < own))
                        .is_some_and(|&(x, _)| x == own);
                    if !ready {
                        s.in_set[partner as usize] = true;
                        s.set.push(partner);
                        if WHY {
                            s.cause.push(Joined::Waits {
                                of: slot,
                                event: e,
                                own,
                            });
                        }
                        s.stack.push(partner);
                    }
                }
            }
        }
        if s.taken_list.is_empty() {
            // No move of these components is enabled: not a stubborn set
            // that lets the search go on.
            return Err(Stop::Blocked);
        }
        Ok(s.taken_list.len())
    }

    /// The partners of component `slot` on its event `e`.
    fn partners_of(&self, slot: usize, e: EventId) -> &[(u32, EventId)] {
        let table = &self.partners[slot];
        match table.binary_search_by_key(&e, |&(x, _, _)| x) {
            Ok(i) => {
                let (_, start, len) = table[i];
                &self.partner_list[start as usize..(start + len) as usize]
            }
            Err(_) => &[],
        }
    }

    /// Whether component `slot`'s own state space holds `local`.
    fn knows(&self, slot: usize, local: u32) -> bool {
        self.reachable[slot]
            .get(local as usize / 64)
            .is_some_and(|w| w & (1 << (local % 64)) != 0)
    }

    /// Whether a move takes some component to a state no farther from
    /// the initial states than the one it leaves.
    fn sticky(&self, machine: &Machine, state: &[u32], moves: &Moves, m: &super::Move) -> bool {
        moves.changes(m).iter().any(|change| {
            let slot = change.slot as usize;
            let distance = &self.distance[machine.table_of[slot] as usize];
            let from = distance.get(state[slot] as usize).copied().unwrap_or(FAR);
            let to = distance.get(change.to as usize).copied().unwrap_or(FAR);
            from == FAR || to == FAR || to <= from
        })
    }
}

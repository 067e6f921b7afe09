//! Partial order reduction: at each state, the moves of a *stubborn
//! set* instead of all of them (Valmari's stubborn sets; the conditions
//! are Peled's for ample sets), computed on the supercombinator.
//!
//! A transition of the system is a move: an event and the components
//! that take part in it, each by a step of its own. Two moves with no
//! component in common are independent (neither enables nor disables the
//! other, and both orders reach one state), because nothing else in the
//! operator tree makes a move depend on a component outside it — except
//! priority, which is refused. Two moves that share a component are
//! independent there when their steps of it commute in its own state
//! space: two self-loops of a state (two reads of a node), or a self-loop
//! that the other step's target state keeps (a read of one field beside
//! a write of another). A stubborn set is closed from a seed component
//! ([`close`] says how): a component *joins* when the set claims every
//! step that leaves its state, so no move outside the set changes it;
//! - every component of an *enabled* move of the set joins, and the
//!   self-loops the move does not commute with are claimed;
//! - for a *disabled* move of the set, a component that must change
//!   state before it can happen joins: each partner (a component that
//!   must take part with it wherever a node synchronises it) whose state
//!   does not offer its part.
//!
//! The search then follows only the enabled moves of the set, seeded
//! from each component in turn and keeping the fewest. Every
//! state without moves (a deadlock, a termination) is then reached, the
//! same state by the same events reordered (Godefroid's theorem): that is
//! [`Preserve::Deadlocks`]. For traces, failures and divergences
//! ([`Preserve::Behaviour`]) two more conditions hold:
//! - *visibility*: a set with a visible move (✓ included) is widened to
//!   every move, so a reduced state's moves are all τ;
//! - *cycles*: no cycle of the reduced graph avoids a fully expanded
//!   state. It is decided statically: each table's local states are
//!   numbered by their distance from its components' initial states, and
//!   a move that takes a component it changes to a state no farther away
//!   (or changes none) is *sticky*; a set with a sticky move is widened
//!   to every move. A cycle returns every component it moves to where it
//!   was, so one of its moves is sticky; a self-loop of a component (a
//!   read) beside a step forward of another is not. The distance is invariant under a symmetry of the
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

mod close;
mod explain;

pub(super) use close::Scratch;
use close::Stop;

pub use explain::{GivenUp, Joined, Member, PartialOrder, StubbornSet, Widened};

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};
use crate::process::{EventId, EventRelation, Processes, TAU, TICK};

use super::{Machine, Node};

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

/// Local states explored between two polls of the meter: few, since one
/// state's transitions can take a millisecond to evaluate (a budget
/// overshot by a second, found on Tokeneer, at 4096).
const POLL_EVERY: usize = 16;

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
    /// Per table: the local states with a self-loop, as bits.
    loops: Vec<Box<[u64]>>,
    /// Whether sticky moves widen a set (always, but for a test that
    /// shows what goes wrong without).
    cycles: bool,
    /// The visible events the visibility condition counts as τ, sorted:
    /// those a traces refinement's specification ignores.
    ignored: Vec<EventId>,
    /// Whether a component that takes part in a move of the set by a
    /// self-loop joins it, its steps out of its state claimed (always,
    /// but for a test that shows what goes wrong without).
    readers_frozen: bool,
}

/// The distance of a local state no initial state reaches.
const FAR: u32 = u32::MAX;

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
            loops: (0..self.tables.len()).map(|t| self.self_loops(t)).collect(),
            cycles: true,
            ignored: Vec::new(),
            readers_frozen: true,
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

    /// Counts `events` (sorted) as τ in the reduction's visibility
    /// condition: a set that holds one of them need not hold every move.
    /// For the events a traces refinement's specification ignores.
    pub fn count_as_tau(&mut self, events: Vec<EventId>) {
        if let Some(stubborn) = &mut self.stubborn {
            stubborn.ignored = events;
        }
    }

    /// Lets a component that takes part in a move of the stubborn set
    /// only by a self-loop (a read) stay out of it, its writes free to
    /// happen after the read: a wrong dependency that judges a read
    /// independent of the writes that follow it. Only for tests that
    /// show a fixture needs the right one.
    #[doc(hidden)]
    pub fn leave_readers_out(&mut self) {
        if let Some(stubborn) = &mut self.stubborn {
            stubborn.readers_frozen = false;
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

    /// Table `t`'s local states that have a step back to themselves, as
    /// bits.
    fn self_loops(&self, t: usize) -> Box<[u64]> {
        let table = &self.tables[t];
        let mut bits = vec![0u64; table.states.len().div_ceil(64)];
        for (local, transitions) in table.transitions.iter().enumerate() {
            if transitions
                .as_deref()
                .is_some_and(|list| list.iter().any(|&(_, to)| to as usize == local))
            {
                bits[local / 64] |= 1 << (local % 64);
            }
        }
        bits.into()
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

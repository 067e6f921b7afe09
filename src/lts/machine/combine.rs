//! Combining the components' moves through the operator tree, by event.
//!
//! Each component state's transitions are sorted by event when they are
//! first computed, so a component answers "your moves on `e`" by binary
//! search. A node *lists* only the moves no operator above it asks for
//! by event (the plan's excluded set, [`super::plan`]); a synchronising
//! node finds its possible synchronised events by asking the operand with
//! the fewest moves which events it offers, then *queries* every
//! participant for its moves on each of them and joins them. Each event
//! is so considered once, by construction, and the many moves that never
//! synchronise (an operand offering a hundred events of which its
//! partner accepts one) are never copied.
//!
//! Order, which numbers the states a search finds: a node lists its
//! operands' own moves operand by operand, then its synchronised moves by
//! event, each combination with the last participant varying fastest,
//! then its ✓.

use crate::process::{EventId, EventRelation, TAU, TICK};

use super::plan::{Discover, Offer, OfferId};
use super::{Machine, Moves, NO_RANK, Node, Priority, SEVERAL};

impl Machine {
    /// The moves of `node` in `state` on events outside its excluded set,
    /// appended to `out`.
    pub(super) fn list(&self, node: usize, state: &[u32], out: &mut Moves) {
        match &self.nodes[node] {
            Node::Leaf { slot } => {
                for &(event, target) in self.listed(*slot as usize, state) {
                    out.push_one(event, *slot, target);
                }
            }
            Node::Hide { child, set } => {
                let base = out.list.len();
                self.list(*child, state, out);
                for m in &mut out.list[base..] {
                    if m.event != TICK && set.contains(m.event) {
                        m.event = TAU;
                    }
                }
            }
            Node::Prioritise { child, priority } => {
                let excluded = &self.plan.sets[self.plan.excluded[node] as usize];
                let base = out.list.len();
                self.list(*child, state, out);
                allowed(priority, out, base, |e| {
                    e == TAU || e == TICK || !excluded.contains(e)
                });
            }
            Node::Rename { child, relation } => {
                let excluded = &self.plan.sets[self.plan.excluded[node] as usize];
                let base = out.list.len();
                self.list(*child, state, out);
                let end = out.list.len();
                for i in base..end {
                    let m = out.list[i];
                    if m.event == TAU || m.event == TICK {
                        continue;
                    }
                    let mut images = relation
                        .image(m.event)
                        .iter()
                        .map(|&(_, to)| to)
                        .filter(|&to| !excluded.contains(to));
                    // Listed below, so it becomes at least one event not
                    // asked for above (itself, when it is not renamed).
                    if let Some(first) = images.next() {
                        out.list[i].event = first;
                        for other in images {
                            out.list.push(super::Move { event: other, ..m });
                        }
                    }
                }
            }
            Node::Parallel {
                children,
                slots,
                depth,
                ..
            } => {
                for &c in children {
                    self.list_operand(c, state, out);
                }
                if let Some(discover) = &self.plan.discover[node] {
                    let at = out.events.len();
                    self.candidates(node, discover, state, out, false);
                    for k in at..out.events.len() {
                        let e = out.events[k];
                        self.synchronise(node, e, state, out);
                    }
                    out.events.truncate(at);
                }
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
                slots,
                depth,
                ..
            } => {
                for side in [*left, *right] {
                    self.list_operand(side, state, out);
                }
                if let Some(offer) = self.plan.link_offers[node] {
                    self.list_linked(*left, *right, relation, offer, state, out);
                }
                if !self.is_done(state, *slots, *depth)
                    && self.terminated(*left, state)
                    && self.terminated(*right, state)
                {
                    self.push_done(*slots, *depth, out);
                }
            }
        }
    }

    /// The moves of an operand of a parallel composition or a link,
    /// appended to `out`: its ✓ is a τ there (the composition terminates
    /// once every operand has).
    fn list_operand(&self, node: usize, state: &[u32], out: &mut Moves) {
        if let Node::Leaf { slot } = self.nodes[node] {
            for &(event, target) in self.listed(slot as usize, state) {
                // The component performed its ✓ all the same.
                out.push_one(event, slot, target);
                if event == TICK {
                    out.list.last_mut().expect("just pushed").event = TAU;
                }
            }
            return;
        }
        let base = out.list.len();
        self.list(node, state, out);
        for m in &mut out.list[base..] {
            if m.event == TICK {
                m.event = TAU;
            }
        }
    }

    /// The τ moves of a link `left [relation> right`, appended to `out`:
    /// each event the left side offers (by `offer`) joined with each
    /// right move on an event it is related to.
    fn list_linked(
        &self,
        left: usize,
        right: usize,
        relation: &EventRelation,
        offer: OfferId,
        state: &[u32],
        out: &mut Moves,
    ) {
        let at = out.events.len();
        self.offers(offer, state, out);
        for k in at..out.events.len() {
            let linked = out.events[k];
            let base = out.list.len();
            self.query(left, linked, state, out);
            let mid = out.list.len();
            if mid == base {
                continue;
            }
            for &(_, to) in relation.image(linked) {
                let from = out.list.len();
                self.query(right, to, state, out);
                let end = out.list.len();
                for a in base..mid {
                    for b in from..end {
                        let parts = [out.list[a], out.list[b]];
                        out.join(TAU, &parts);
                    }
                }
                out.remove(from, end);
            }
            out.remove(base, mid);
        }
        out.events.truncate(at);
    }

    /// The moves of `node` in `state` on the visible event `e`, appended
    /// to `out`.
    #[inline(always)]
    fn query(&self, node: usize, e: EventId, state: &[u32], out: &mut Moves) {
        // Most operands asked never offered the event at all; most of
        // the others are components, asked here without a call.
        if self.seen[node].contains(e) {
            match self.nodes[node] {
                Node::Leaf { slot } => self.query_leaf(slot, e, state, out),
                _ => self.query_seen(node, e, state, out),
            }
        }
    }

    #[inline(always)]
    fn query_leaf(&self, slot: u32, e: EventId, state: &[u32], out: &mut Moves) {
        let transitions = self.transitions(slot as usize, state);
        let from = transitions.partition_point(|&(x, _)| x < e);
        for &(event, target) in transitions[from..].iter().take_while(|t| t.0 == e) {
            out.push_one(event, slot, target);
        }
    }

    fn query_seen(&self, node: usize, e: EventId, state: &[u32], out: &mut Moves) {
        match &self.nodes[node] {
            Node::Leaf { slot } => self.query_leaf(*slot, e, state, out),
            Node::Hide { child, set } => {
                if !set.contains(e) {
                    self.query(*child, e, state, out);
                }
            }
            Node::Prioritise { child, priority } => {
                let base = out.list.len();
                self.list(*child, state, out);
                allowed(priority, out, base, |x| x == e);
            }
            Node::Rename { child, relation } => {
                if !relation.in_domain(e) {
                    self.query(*child, e, state, out);
                }
                if let Some(preimages) = self.plan.preimages[node].get(&e) {
                    for &from in preimages {
                        let base = out.list.len();
                        self.query(*child, from, state, out);
                        for m in &mut out.list[base..] {
                            m.event = e;
                        }
                    }
                }
            }
            Node::Parallel {
                children,
                alphabets,
                sync,
                ..
            } => {
                if sync.as_ref().is_some_and(|s| s.contains(e)) {
                    self.synchronise(node, e, state, out);
                } else {
                    match self.routes[node][e as usize] {
                        0 => {}
                        _ if self.direct[node][e as usize] != 0 => {
                            let slot = self.direct[node][e as usize] - 1;
                            self.query_leaf(slot, e, state, out);
                        }
                        SEVERAL => {
                            for (i, &c) in children.iter().enumerate() {
                                if alphabets.as_ref().is_none_or(|a| a[i].contains(e)) {
                                    self.query(c, e, state, out);
                                }
                            }
                        }
                        only => self.query(children[only as usize - 1], e, state, out),
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
                if !relation.in_domain(e) {
                    self.query(*left, e, state, out);
                }
                if !range.contains(e) {
                    self.query(*right, e, state, out);
                }
            }
        }
    }

    /// Whether `node` in `state` can perform the visible event `e`.
    #[inline(always)]
    fn has(&self, node: usize, e: EventId, state: &[u32]) -> bool {
        self.seen[node].contains(e)
            && match self.nodes[node] {
                Node::Leaf { slot } => self.has_leaf(slot, e, state),
                _ => self.has_seen(node, e, state),
            }
    }

    #[inline(always)]
    fn has_leaf(&self, slot: u32, e: EventId, state: &[u32]) -> bool {
        let transitions = self.transitions(slot as usize, state);
        let from = transitions.partition_point(|&(x, _)| x < e);
        transitions.get(from).is_some_and(|t| t.0 == e)
    }

    fn has_seen(&self, node: usize, e: EventId, state: &[u32]) -> bool {
        match &self.nodes[node] {
            Node::Leaf { slot } => self.has_leaf(*slot, e, state),
            Node::Hide { child, set } => !set.contains(e) && self.has(*child, e, state),
            Node::Prioritise { child, priority } => {
                let mut moves = Moves::default();
                self.list(*child, state, &mut moves);
                allowed(priority, &mut moves, 0, |x| x == e);
                !moves.list.is_empty()
            }
            Node::Rename { child, relation } => {
                (!relation.in_domain(e) && self.has(*child, e, state))
                    || self.plan.preimages[node]
                        .get(&e)
                        .is_some_and(|from| from.iter().any(|&d| self.has(*child, d, state)))
            }
            Node::Parallel {
                children,
                alphabets,
                sync,
                ..
            } => {
                let takes_part =
                    |i: usize| alphabets.as_ref().is_none_or(|a: &Vec<_>| a[i].contains(e));
                let mut participants = children
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| takes_part(i))
                    .map(|(_, &c)| c);
                if sync.as_ref().is_some_and(|s| s.contains(e)) {
                    participants.all(|c| self.has(c, e, state))
                } else {
                    match self.routes[node][e as usize] {
                        0 => false,
                        _ if self.direct[node][e as usize] != 0 => {
                            self.has_leaf(self.direct[node][e as usize] - 1, e, state)
                        }
                        SEVERAL => participants.any(|c| self.has(c, e, state)),
                        only => self.has(children[only as usize - 1], e, state),
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
                (!relation.in_domain(e) && self.has(*left, e, state))
                    || (!range.contains(e) && self.has(*right, e, state))
            }
        }
    }

    /// Every move of parallel `node` on its synchronised event `e`: one
    /// move of each participant, in every combination, appended to `out`.
    fn synchronise(&self, node: usize, e: EventId, state: &[u32], out: &mut Moves) {
        let Node::Parallel {
            children,
            alphabets,
            ..
        } = &self.nodes[node]
        else {
            unreachable!("only parallel nodes synchronise")
        };
        let base = out.list.len();
        let at = out.bounds.len();
        out.bounds.push(base);
        for (i, &c) in children.iter().enumerate() {
            if alphabets.as_ref().is_some_and(|a| !a[i].contains(e)) {
                continue;
            }
            let from = out.list.len();
            self.query(c, e, state, out);
            if out.list.len() == from {
                // A participant refuses it: no move at all.
                out.list.truncate(base);
                out.bounds.truncate(at);
                return;
            }
            out.bounds.push(out.list.len());
        }
        let parts_end = out.list.len();
        out.product(e, at);
        out.remove(base, parts_end);
        out.bounds.truncate(at);
    }

    /// Appends to `out.events` the synchronised events of parallel `node`
    /// (within the set `discover` was planned for) that their first or
    /// least busy participant offers, sorted and each once; with `checked`,
    /// only those every participant offers.
    fn candidates(
        &self,
        node: usize,
        discover: &Discover,
        state: &[u32],
        out: &mut Moves,
        checked: bool,
    ) {
        let Node::Parallel {
            children,
            alphabets,
            ..
        } = &self.nodes[node]
        else {
            unreachable!("only parallel nodes synchronise")
        };
        let start = out.events.len();
        match discover {
            Discover::Any { plans } => {
                // Asking the operand with the fewest moves touches the
                // fewest; the others answer by event.
                let Some((asked, plan)) = plans
                    .iter()
                    .enumerate()
                    .filter_map(|(i, plan)| plan.map(|plan| (i, plan)))
                    .min_by_key(|&(_, plan)| self.busy(plan, state))
                else {
                    return;
                };
                self.offers(plan, state, out);
                if checked {
                    let others = children
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != asked)
                        .map(|(_, &c)| c);
                    self.keep_offered(start, others, state, out);
                }
            }
            Discover::First { plans } => {
                for (i, plan) in plans.iter().enumerate() {
                    let Some(plan) = *plan else { continue };
                    let from = out.events.len();
                    self.offers(plan, state, out);
                    if checked {
                        let alphabets = alphabets.as_ref().expect("an alphabetised parallel");
                        let mut kept = from;
                        for k in from..out.events.len() {
                            let e = out.events[k];
                            let offered = children
                                .iter()
                                .enumerate()
                                .filter(|&(j, _)| j != i && alphabets[j].contains(e))
                                .all(|(_, &c)| self.has(c, e, state));
                            if offered {
                                out.events[kept] = e;
                                kept += 1;
                            }
                        }
                        out.events.truncate(kept);
                    }
                }
            }
        }
        sort_unique(&mut out.events, start);
    }

    /// Keeps, of the events from `start` on, those every node of
    /// `others` offers.
    fn keep_offered(
        &self,
        start: usize,
        others: impl Iterator<Item = usize> + Clone,
        state: &[u32],
        out: &mut Moves,
    ) {
        let mut kept = start;
        for k in start..out.events.len() {
            let e = out.events[k];
            if others.clone().all(|c| self.has(c, e, state)) {
                out.events[kept] = e;
                kept += 1;
            }
        }
        out.events.truncate(kept);
    }

    /// Appends to `out.events` the events within its plan's set that a
    /// node offers in `state`, sorted and each once.
    fn offers(&self, offer: OfferId, state: &[u32], out: &mut Moves) {
        let start = out.events.len();
        match &self.plan.offers[offer as usize] {
            Offer::Leaf { slot, set } => {
                // A component that never offered an event of the set
                // (its plan reads nothing yet) offers none now.
                if self.live_reads[offer as usize].is_empty() {
                    return;
                }
                let set = &self.plan.sets[*set as usize];
                let mut last = None;
                for &(e, _) in self.transitions(*slot as usize, state) {
                    if last != Some(e) && set.contains(e) {
                        out.events.push(e);
                        last = Some(e);
                    }
                }
            }
            Offer::Hide { child } => {
                if let Some(child) = child {
                    self.offers(*child, state, out);
                }
            }
            Offer::Rename { node, child, set } => {
                let Node::Rename { relation, .. } = &self.nodes[*node] else {
                    unreachable!("a renaming's plan")
                };
                let set = &self.plan.sets[*set as usize];
                if let Some(child) = child {
                    self.offers(*child, state, out);
                }
                let mut renamed = std::mem::take(&mut out.renamed);
                renamed.clear();
                for &from in &out.events[start..] {
                    let image = relation.image(from);
                    if image.is_empty() {
                        renamed.push(from);
                    }
                    renamed.extend(
                        image
                            .iter()
                            .map(|&(_, to)| to)
                            .filter(|&to| set.contains(to)),
                    );
                }
                out.events.truncate(start);
                out.events.extend_from_slice(&renamed);
                out.renamed = renamed;
                sort_unique(&mut out.events, start);
            }
            Offer::Parallel { node, free, sync } => {
                for plan in free.iter().flatten() {
                    self.offers(*plan, state, out);
                }
                if let Some(discover) = sync {
                    self.candidates(*node, discover, state, out, true);
                }
                sort_unique(&mut out.events, start);
            }
            Offer::Prioritise { node, set } => {
                let Node::Prioritise { child, priority } = &self.nodes[*node] else {
                    unreachable!("a prioritised node's plan")
                };
                let set = &self.plan.sets[*set as usize];
                let mut moves = Moves::default();
                self.list(*child, state, &mut moves);
                allowed(priority, &mut moves, 0, |e| set.contains(e));
                out.events.extend(moves.list.iter().map(|m| m.event));
                sort_unique(&mut out.events, start);
            }
            Offer::Linked { left, right } => {
                for plan in [left, right].into_iter().flatten() {
                    self.offers(*plan, state, out);
                }
                sort_unique(&mut out.events, start);
            }
        }
    }

    /// How many transitions the components plan `offer` reads have in
    /// `state` (those that can offer anything it asks about): how much
    /// asking it would read.
    fn busy(&self, offer: OfferId, state: &[u32]) -> usize {
        self.live_reads[offer as usize]
            .iter()
            .map(|&slot| self.transitions(slot as usize, state).len())
            .sum()
    }
}

/// Keeps, of the moves from `base` on (the whole offer of a prioritised
/// node's child), those its priority allows (no move the priority puts
/// first is offered) and `keep` accepts, in order.
fn allowed(priority: &Priority, out: &mut Moves, base: usize, keep: impl Fn(EventId) -> bool) {
    match priority {
        Priority::Levels { rank, .. } => allowed_by_rank(rank, out, base, keep),
        Priority::Order(order) => {
            let mut held: Vec<EventId> = out.list[base..]
                .iter()
                .flat_map(|m| order.image(m.event).iter().map(|&(_, b)| b))
                .collect();
            held.sort_unstable();
            held.dedup();
            let mut kept = base;
            for k in base..out.list.len() {
                let m = out.list[k];
                if held.binary_search(&m.event).is_err() && keep(m.event) {
                    out.list[kept] = m;
                    kept += 1;
                }
            }
            out.list.truncate(kept);
        }
    }
}

/// [`allowed`] by ranks: no move of a smaller rank is offered.
fn allowed_by_rank(rank: &[u32], out: &mut Moves, base: usize, keep: impl Fn(EventId) -> bool) {
    let best = out.list[base..]
        .iter()
        .map(|m| rank[m.event as usize])
        .min()
        .unwrap_or(NO_RANK);
    let mut kept = base;
    for k in base..out.list.len() {
        let m = out.list[k];
        let r = rank[m.event as usize];
        if (r == NO_RANK || r <= best) && keep(m.event) {
            out.list[kept] = m;
            kept += 1;
        }
    }
    out.list.truncate(kept);
}

/// Sorts `events[start..]` and keeps each event once.
fn sort_unique(events: &mut Vec<EventId>, start: usize) {
    let tail = &mut events[start..];
    if tail.len() < 2 {
        return;
    }
    tail.sort_unstable();
    let mut kept = start + 1;
    for k in start + 1..events.len() {
        if events[k] != events[kept - 1] {
            events[kept] = events[k];
            kept += 1;
        }
    }
    events.truncate(kept);
}

//! FDR's built-in processes given by a relation on events:
//! `prioritisepo(P, A, order, maximal)`, whose relation is a priority
//! order, and `BUFFER(N, ins_outs)`, whose relation pairs each input
//! with the output it owes. The evaluator has checked their arguments
//! (FDR's errors); here they become terms and moves.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    EvalResult, EventId, EventRelation, ProcId, Processes, RelationId, TAU, TICK, Term, Transition,
};
use crate::eval::Value;
use crate::syntax::Span;

impl Processes<'_> {
    /// The term of `prioritisepo(P, A, order, maximal)`: the relation
    /// holding `b` back while `a` is offered, for each pair `(a, b)` of
    /// the order's transitive closure, and τ and ✓ above every event of
    /// `A` that is not maximal (as FDR: τ and ✓ rank with the maximal
    /// events).
    pub(super) fn priority_order(&mut self, args: &[Value], span: Span) -> EvalResult<ProcId> {
        let p = self.state(&args[0], span)?;
        let prioritised = self.event_ids(&args[1], span)?;
        let maximal: FxHashSet<EventId> = self.event_ids(&args[3], span)?.into_iter().collect();
        let mut below: FxHashMap<EventId, Vec<EventId>> = FxHashMap::default();
        if let Value::Set(order) = &args[2] {
            for pair in order.as_finite().unwrap_or(&[]) {
                if let Value::Tuple(t) = pair {
                    let (a, b) = (self.event_id(&t[0], span)?, self.event_id(&t[1], span)?);
                    below.entry(a).or_default().push(b);
                }
            }
        }
        let mut pairs = Vec::new();
        // The closure: every event reachable from `a` (the evaluator
        // refused an order with a cycle).
        for (&a, direct) in &below {
            let mut seen: FxHashSet<EventId> = FxHashSet::default();
            let mut stack = direct.clone();
            while let Some(b) = stack.pop() {
                if seen.insert(b) {
                    pairs.push((a, b));
                    stack.extend(below.get(&b).into_iter().flatten());
                }
            }
        }
        for &e in prioritised.iter().filter(|e| !maximal.contains(e)) {
            pairs.extend([(TAU, e), (TICK, e)]);
        }
        let relation = self.intern_relation(EventRelation::new(pairs));
        Ok(self.intern(Term::PrioritiseOrder(p, relation)))
    }

    /// The term of an empty `BUFFER(N, ins_outs)`.
    pub(super) fn buffer(&mut self, args: &[Value], span: Span) -> EvalResult<ProcId> {
        let capacity = match &args[0] {
            Value::Int(n) => u32::try_from(*n).unwrap_or(u32::MAX),
            _ => unreachable!("the evaluator checked the capacity"),
        };
        let mut links = Vec::new();
        if let Value::Set(pairs) = &args[1] {
            for pair in pairs.as_finite().unwrap_or(&[]) {
                if let Value::Tuple(t) = pair {
                    links.push((self.event_id(&t[0], span)?, self.event_id(&t[1], span)?));
                }
            }
        }
        let links = self.intern_relation(EventRelation::new(links));
        Ok(self.intern(Term::Buffer {
            capacity,
            links,
            queue: Arc::from([]),
        }))
    }

    fn event_ids(&self, set: &Value, span: Span) -> EvalResult<Vec<EventId>> {
        let Value::Set(set) = set else {
            unreachable!("the evaluator checked the set")
        };
        set.as_finite()
            .unwrap_or(&[])
            .iter()
            .map(|e| self.event_id(e, span))
            .collect()
    }

    /// `prioritisepo`'s moves: those of `P` on an event no offered event
    /// is above.
    pub(super) fn priority_order_transitions(
        &mut self,
        p: ProcId,
        relation: RelationId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        let inner = self.transitions(p)?;
        let order = self.relation(relation);
        let mut held: Vec<EventId> = inner
            .iter()
            .flat_map(|t| order.image(t.event).iter().map(|&(_, b)| b))
            .collect();
        held.sort_unstable();
        held.dedup();
        for t in inner.iter() {
            if held.binary_search(&t.event).is_ok() {
                continue;
            }
            match t.event {
                TICK => out.push(*t),
                event => {
                    let target = self.intern(Term::PrioritiseOrder(t.target, relation));
                    out.push(Transition { event, target });
                }
            }
        }
        Ok(())
    }

    /// `BUFFER`'s moves: any input while it has room, owing the input's
    /// output, and the oldest output owed.
    pub(super) fn buffer_transitions(
        &mut self,
        capacity: u32,
        links: RelationId,
        queue: &Arc<[EventId]>,
        out: &mut Vec<Transition>,
    ) {
        if (queue.len() as u64) < u64::from(capacity) {
            let pairs = self.relation(links).pairs().to_vec();
            for (input, output) in pairs {
                let owed: Arc<[EventId]> = queue.iter().copied().chain([output]).collect();
                let target = self.intern(Term::Buffer {
                    capacity,
                    links,
                    queue: owed,
                });
                out.push(Transition {
                    event: input,
                    target,
                });
            }
        }
        if let Some((&oldest, rest)) = queue.split_first() {
            let target = self.intern(Term::Buffer {
                capacity,
                links,
                queue: rest.into(),
            });
            out.push(Transition {
                event: oldest,
                target,
            });
        }
    }
}

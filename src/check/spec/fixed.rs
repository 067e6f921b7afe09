//! The fixed specifications, which need no normal form: deadlock freedom
//! (`:[deadlock free]`), anything (`:[divergence free]` checks only
//! divergences) and a given trace's prefixes (`:[has trace]:` on the
//! cluster's workers). The first two are their own copies for the
//! threads: they know all there is to know from the start.

use super::super::counterexample::Kind;
use super::super::normal::NodeId;
use super::super::shared_judge::{Judge, SpecCopy};
use super::{SharedCopy, Specification};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::EvalResult;
use crate::eval::value::bytes::{Reader, Writer};
use crate::lts::search::DROP;
use crate::process::{EventId, Processes, TICK};
use crate::symmetry::trace::{TraceMatcher, UNSET};
use crate::symmetry::{Atom, Permutation, Symmetry};

/// `:[deadlock free]`: node 0 before ✓ (some event must be accepted),
/// node 1 after it (anything goes).
#[derive(Debug, Clone, Copy)]
pub struct DeadlockFree;

impl DeadlockFree {
    fn next(node: NodeId, event: EventId) -> NodeId {
        if event == TICK { 1 } else { node }
    }
}

impl Specification for DeadlockFree {
    fn after(
        &mut self,
        _: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        Ok(Some(DeadlockFree::next(node, event)))
    }

    fn refused(
        &mut self,
        _: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        Ok((!SpecCopy::accepts(self, node, accepted)).then(Vec::new))
    }

    fn shared_judge(&self, refusals: bool, divergences: bool) -> Option<SharedCopy> {
        Some(Judge::new(*self, refusals, divergences).shared())
    }

    fn refusal_kind(&self) -> Kind {
        Kind::Deadlock
    }
}

impl SpecCopy for DeadlockFree {
    fn after(&self, node: NodeId, event: EventId) -> Option<NodeId> {
        Some(DeadlockFree::next(node, event))
    }

    fn accepts(&self, node: NodeId, accepted: &[EventId]) -> bool {
        !(node == 0 && accepted.is_empty())
    }
}

/// One node allowing every trace and refusal (`:[divergence free]`
/// checks only divergences).
#[derive(Debug, Clone, Copy)]
pub struct Anything;

impl Specification for Anything {
    fn after(&mut self, _: &mut Processes, node: NodeId, _: EventId) -> EvalResult<Option<NodeId>> {
        Ok(Some(node))
    }

    fn refused(
        &mut self,
        _: &mut Processes,
        _: NodeId,
        _: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        Ok(None)
    }

    fn shared_judge(&self, refusals: bool, divergences: bool) -> Option<SharedCopy> {
        Some(Judge::new(*self, refusals, divergences).shared())
    }
}

impl SpecCopy for Anything {
    fn after(&self, node: NodeId, _: EventId) -> Option<NodeId> {
        Some(node)
    }

    fn accepts(&self, _: NodeId, _: &[EventId]) -> bool {
        true
    }
}

/// `:[has trace]:` of `trace`, for a search that judges product states
/// (the cluster's workers): a node stands for how many events of the
/// trace were performed, and a state at a node that performed all of
/// them completes it (a breach, which the check reads as found,
/// [`Specification::trace_at`]). A visible event other than the trace's
/// next leads nowhere it could be completed: its node is [`DROP`], and
/// the search leaves the move out, as the one search's walk does.
///
/// Reduced by symmetry (the one search's [`TraceMatcher`] walk), a node
/// also holds the partial bijection from the values the trace has named
/// to the representative's; nodes are then numbered as they are met,
/// and cross between workers as their (performed, images) columns.
pub struct TracePrefix {
    trace: Vec<EventId>,
    /// Reduced: the trace read for matching, and the nodes' columns.
    named: Option<Named>,
}

/// The nodes of a reduced trace walk: each node's columns (events
/// performed, then the bijection's images), and the node of each.
struct Named {
    matcher: TraceMatcher,
    symmetry: Arc<Symmetry>,
    columns: Vec<Vec<u32>>,
    nodes: FxHashMap<Vec<u32>, NodeId>,
}

impl Named {
    fn node(&mut self, columns: Vec<u32>) -> NodeId {
        if let Some(&node) = self.nodes.get(&columns) {
            return node;
        }
        let node = self.columns.len() as NodeId;
        self.columns.push(columns.clone());
        self.nodes.insert(columns, node);
        node
    }
}

impl TracePrefix {
    /// Looks for `trace` unreduced: node `k` has performed its first `k`
    /// events.
    pub fn new(trace: Vec<EventId>) -> TracePrefix {
        TracePrefix { trace, named: None }
    }

    /// Looks for `trace` reduced by `symmetry`, when its values sit where
    /// positions of its events name them (else `None`: the walk is not
    /// reduced). Node 0 is the start: nothing performed, nothing named.
    pub fn reduced(
        trace: Vec<EventId>,
        symmetry: Arc<Symmetry>,
        procs: &Processes,
    ) -> Option<TracePrefix> {
        let matcher = TraceMatcher::new(&symmetry, procs, &trace)?;
        let mut start = vec![UNSET; matcher.columns() + 1];
        start[0] = 0;
        let mut named = Named {
            matcher,
            symmetry,
            columns: Vec::new(),
            nodes: FxHashMap::default(),
        };
        named.node(start);
        Some(TracePrefix {
            trace,
            named: Some(named),
        })
    }

    /// How many events of the trace `node` performed.
    fn performed(&self, node: NodeId) -> usize {
        match &self.named {
            None => node as usize,
            Some(named) => named.columns[node as usize][0] as usize,
        }
    }
}

impl Specification for TracePrefix {
    fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        let done = self.performed(node);
        let Some(named) = &mut self.named else {
            let next = self.trace.get(done) == Some(&event);
            return Ok(Some(if next { node + 1 } else { DROP }));
        };
        if done == self.trace.len() {
            return Ok(Some(DROP));
        }
        let columns = &named.columns[node as usize];
        let images = named
            .matcher
            .step(&named.symmetry, procs, done, &columns[1..], event);
        Ok(Some(match images {
            Some(images) => {
                let mut next = Vec::with_capacity(images.len() + 1);
                next.push(done as u32 + 1);
                next.extend(images);
                named.node(next)
            }
            None => DROP,
        }))
    }

    fn refused(
        &mut self,
        _: &mut Processes,
        _: NodeId,
        _: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        Ok(None)
    }

    /// The node of the permuted images, those of values the state does
    /// not hold renamed to the least free ones ([`TraceMatcher::free`]).
    fn permute_holding(
        &mut self,
        _: &mut Processes,
        node: NodeId,
        perm: &Permutation,
        held: Option<&[Atom]>,
    ) -> EvalResult<NodeId> {
        let Some(named) = &mut self.named else {
            return Ok(node);
        };
        let mut columns = named.columns[node as usize].clone();
        TraceMatcher::permute(&mut columns[1..], perm);
        if let Some(held) = held {
            TraceMatcher::free(&mut columns[1..], held.iter().map(|&a| perm.apply(a)));
        }
        Ok(named.node(columns))
    }

    fn permute(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        self.permute_holding(procs, node, perm, None)
    }

    /// Unreduced, its nodes are positions in the trace, which no
    /// permutation of the implementation's values moves with it.
    fn is_symmetric(&self) -> bool {
        self.named.is_some()
    }

    fn holds_values(&self) -> bool {
        self.named.is_some()
    }

    fn trace_at(&self, node: NodeId) -> Option<(&[EventId], usize)> {
        Some((&self.trace, self.performed(node)))
    }

    fn write_node(
        &mut self,
        _: &mut Processes,
        node: NodeId,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        let w = &mut Writer { out };
        match &self.named {
            None => w.u32(node),
            Some(named) => named.columns[node as usize].iter().for_each(|&c| w.u32(c)),
        }
        Ok(())
    }

    fn read_node(
        &mut self,
        procs: &mut Processes,
        bytes: &[u8],
    ) -> EvalResult<Result<NodeId, String>> {
        let mut reader = Reader::new(procs.script(), bytes);
        let width = self
            .named
            .as_ref()
            .map_or(1, |named| named.columns[0].len());
        let mut columns = Vec::with_capacity(width);
        for _ in 0..width {
            match reader.u32() {
                Ok(column) => columns.push(column),
                Err(e) => return Ok(Err(e.to_string())),
            }
        }
        if !reader.is_done() || columns[0] as usize > self.trace.len() {
            return Ok(Err(format!(
                "not a node of a walk along a trace of {} events",
                self.trace.len()
            )));
        }
        Ok(Ok(match &mut self.named {
            None => columns[0],
            Some(named) => named.node(columns),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shared_judge::judged;
    use super::*;
    use crate::process::TAU;

    #[test]
    fn deadlock_freedom_and_divergence_freedom_need_no_normal_form() {
        let deadlock = Judge::new(DeadlockFree, true, false);
        let (a, b) = (5, 6);
        assert_eq!(judged(&deadlock, 0, &[a, TICK]), Some(vec![0, 1]));
        assert_eq!(judged(&deadlock, 0, &[]), None, "a deadlock");
        assert_eq!(judged(&deadlock, 1, &[]), Some(vec![]), "after ✓");
        let anything = Judge::new(Anything, false, true);
        assert_eq!(judged(&anything, 0, &[a, b, TAU]), Some(vec![0, 0, 0]));
        assert_eq!(judged(&anything, 0, &[]), Some(vec![]));
    }

    #[test]
    fn a_trace_prefix_follows_the_trace_and_drops_the_rest() {
        let loaded = crate::types::load_str("t.csp", "channel a, b\n").expect("loads");
        let mut procs = Processes::new(&loaded.script).expect("events");
        let (a, b) = (5, 6);
        let mut prefix = TracePrefix::new(vec![a, b]);
        let mut after = |node, event| prefix.after(&mut procs, node, event).unwrap();
        assert_eq!(after(0, a), Some(1));
        assert_eq!(after(0, b), Some(DROP), "not the trace's next event");
        assert_eq!(after(1, b), Some(2));
        assert_eq!(after(2, a), Some(DROP), "past the trace's end");
        assert_eq!(prefix.trace_at(1), Some((&[a, b][..], 1)));
        let mut bytes = Vec::new();
        prefix.write_node(&mut procs, 2, &mut bytes).unwrap();
        assert_eq!(prefix.read_node(&mut procs, &bytes).unwrap(), Ok(2));
        bytes.clear();
        prefix.write_node(&mut procs, 3, &mut bytes).unwrap();
        assert!(prefix.read_node(&mut procs, &bytes).unwrap().is_err());
    }
}

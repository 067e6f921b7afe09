//! The fixed specifications, which need no normal form: deadlock freedom
//! (`:[deadlock free]`) and anything (`:[divergence free]` checks only
//! divergences). Each is its own copy for the threads: it knows all there
//! is to know from the start.

use super::super::counterexample::Kind;
use super::super::normal::NodeId;
use super::super::shared_judge::{Judge, SpecCopy};
use super::{SharedCopy, Specification};
use crate::eval::EvalResult;
use crate::process::{EventId, Processes, TICK};

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
}

//! What an implementation is checked against: the fixed
//! specifications (deadlock freedom, anything) and the normalised ones
//! of each model, each answering what the product's judging asks — the
//! node after an event, what is refused, whether it diverges — and how
//! a node is permuted under symmetry.

use crate::eval::EvalResult;
use crate::process::{EventId, Processes, TAU, TICK};
use crate::symmetry::Permutation;

use super::normal::{NodeId, Normaliser, is_subset};

/// What the implementation is checked against.
pub enum Spec {
    /// `:[deadlock free]`: node 0 before ✓ (some event must be
    /// accepted), node 1 after it (anything goes).
    DeadlockFree,
    /// One node allowing every trace and refusal (`:[divergence free]`
    /// checks only divergences).
    Anything,
    /// A normalised specification process.
    Refines(Normaliser),
    /// The normal form of the implementation itself: every stable state
    /// must accept everything the trace so far allows.
    Deterministic(Normaliser),
    /// A normalised specification in the revivals model (V, VD): besides
    /// its failures, every event a stable implementation state offers
    /// must be offered by a stable specification state that refuses at
    /// least as much.
    Revivals(Normaliser),
    /// A normalised specification in the refusal-testing model (R, RD):
    /// an event a stable implementation state performs is followed only
    /// from the specification's stable states that refuse as much, so
    /// the refusals along the whole trace are tested.
    RefusalTesting(Normaliser),
}

impl Spec {
    /// The node after `event` (τ included: the node stays) from `node`;
    /// `None` when the specification does not allow it.
    pub fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        match self {
            _ if event == TAU => Ok(Some(node)),
            Spec::DeadlockFree if event == TICK => Ok(Some(1)),
            Spec::DeadlockFree | Spec::Anything => Ok(Some(node)),
            Spec::Refines(n)
            | Spec::Deterministic(n)
            | Spec::Revivals(n)
            | Spec::RefusalTesting(n) => n.after(procs, node, event),
        }
    }

    /// The column after `event` performed by a stable implementation
    /// state accepting only `accepted`, in the models that look at what
    /// happens after a refusal (revivals, refusal testing); `None` when
    /// the specification does not allow it; `Some(None)` when the model
    /// does not care (the successor is the usual one).
    pub(super) fn after_stable(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
        event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        match self {
            Spec::Revivals(n) => {
                let revived = n
                    .stable_acceptances(procs, node)?
                    .iter()
                    .any(|a| is_subset(a, accepted) && a.contains(&event));
                Ok(revived.then_some(None))
            }
            Spec::RefusalTesting(n) => {
                Ok(n.after_refusing(procs, node, accepted, event)?.map(Some))
            }
            _ => Ok(Some(None)),
        }
    }

    /// The column of a successor by `event` (τ included) from `node` in a
    /// reduced search, before it is canonicalised: a normal form's
    /// *target* (marked with [`TARGET`]) whose τ-closure is taken only
    /// once it is permuted ([`Spec::permute_column`]), or a node. `None`
    /// when the specification does not allow the event.
    pub fn after_column(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<u32>> {
        match self {
            Spec::Refines(n) | Spec::Deterministic(n) | Spec::Revivals(n) if event != TAU => {
                Ok(n.after_target(procs, node, event)?.map(|target| {
                    debug_assert!(target < TARGET, "fewer targets than 2^31");
                    target | TARGET
                }))
            }
            _ => self.after(procs, node, event),
        }
    }

    /// The node `perm` maps a column made by [`Spec::after_column`] to.
    pub fn permute_column(
        &mut self,
        procs: &mut Processes,
        column: u32,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        match self {
            Spec::Refines(n) | Spec::Deterministic(n) | Spec::Revivals(n)
                if column & TARGET != 0 =>
            {
                n.permute_target(procs, column & !TARGET, perm)
            }
            _ => self.permute(procs, column, perm),
        }
    }

    /// The node `perm` maps `node` to (Definition 15); the fixed
    /// specifications' nodes are their own images.
    pub fn permute(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        match self {
            Spec::Refines(n)
            | Spec::Deterministic(n)
            | Spec::Revivals(n)
            | Spec::RefusalTesting(n)
                if !perm.is_identity() =>
            {
                n.permute(procs, node, perm)
            }
            _ => Ok(node),
        }
    }

    pub(super) fn divergent(&mut self, procs: &mut Processes, node: NodeId) -> EvalResult<bool> {
        match self {
            Spec::Refines(n) | Spec::Revivals(n) | Spec::RefusalTesting(n) => {
                n.divergent(procs, node)
            }
            _ => Ok(false),
        }
    }

    /// The events a stable implementation state accepting `accepted`
    /// refuses although the specification requires one of them; `None`
    /// when it is allowed.
    pub(super) fn refused(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        Ok(match self {
            Spec::DeadlockFree => (node == 0 && accepted.is_empty()).then(Vec::new),
            Spec::Anything => None,
            Spec::Refines(n) | Spec::Revivals(n) | Spec::RefusalTesting(n) => {
                let acceptances = n.acceptances(procs, node)?;
                if acceptances.iter().any(|a| is_subset(a, accepted)) {
                    None
                } else {
                    let mut required: Vec<EventId> = acceptances
                        .iter()
                        .flat_map(|a| a.iter().copied())
                        .filter(|e| !accepted.contains(e))
                        .collect();
                    required.sort_unstable();
                    required.dedup();
                    Some(required)
                }
            }
            Spec::Deterministic(n) => {
                let missing: Vec<EventId> = n
                    .initials(procs, node)?
                    .iter()
                    .map(|&(e, _)| e)
                    .filter(|e| !accepted.contains(e))
                    .collect();
                (!missing.is_empty()).then_some(missing)
            }
        })
    }
}

/// Marks a successor's column that holds a normal form's target, not yet
/// a node (reduced searches only; see [`Spec::after_column`]).
pub const TARGET: u32 = 1 << 31;

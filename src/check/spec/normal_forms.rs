//! The specifications made of a normal form ([`NormalForm`]), one for
//! each model: refinement in the traces, failures and
//! failures-divergences models ([`Refines`]), in the revivals models
//! ([`Revivals`]) and the refusal-testing models ([`RefusalTesting`]),
//! and determinism, against the implementation's own normal form
//! ([`Deterministic`]). The copy the threads judge by is
//! [`NormalFormCopy`].

use super::super::counterexample::Kind;
use super::super::normal::{NodeId, Normaliser, is_subset};
use super::super::shared_judge::{Judge, SpecCopy};
use super::{SharedCopy, Specification, TARGET};
use crate::eval::EvalResult;
use crate::process::{EventId, Processes, TAU};
use crate::symmetry::Permutation;

/// A specification made of a normal form, judged as its model `M`
/// says: what the models share — the node after an event, permuting
/// nodes and targets, the specification's divergence, the copy for the
/// workers — is written once here, and each model ([`Refines`],
/// [`Deterministic`], [`Revivals`], [`RefusalTesting`]) says what is its
/// own ([`NormalFormModel`]).
pub struct NormalForm<M> {
    normal: Normaliser,
    model: M,
}

impl<M: NormalFormModel> NormalForm<M> {
    pub fn new(normal: Normaliser, model: M) -> NormalForm<M> {
        NormalForm { normal, model }
    }
}

/// Whose normal form a copy for the workers is of: a refinement's
/// specification, or (determinism) the implementation's own, which must
/// accept every event the trace allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyOf {
    Specification,
    Implementation,
}

/// What one model of a normal-form specification decides for itself.
pub trait NormalFormModel: Send {
    /// The events a stable implementation state accepting `accepted`
    /// refuses although `node` requires one of them; `None` when allowed.
    fn refused(
        &self,
        normal: &mut Normaliser,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        refused_acceptances(normal, procs, node, accepted)
    }

    /// As [`Specification::after_stable`].
    fn after_stable(
        &self,
        _normal: &mut Normaliser,
        _procs: &mut Processes,
        _node: NodeId,
        _accepted: &[EventId],
        _event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        Ok(Some(None))
    }

    /// Whether a reduced search's successors carry the normal form's
    /// targets, whose τ-closure waits until they are permuted (not where
    /// the node after an event depends on the refusal before it).
    fn permutes_targets(&self) -> bool {
        true
    }

    /// Whether the specification's own divergence allows anything after.
    fn specification_diverges(&self) -> bool {
        true
    }

    /// Whose normal form the workers may judge by a copy of; `None`:
    /// only the search's thread judges it.
    fn copy(&self) -> Option<CopyOf> {
        None
    }

    /// As [`Specification::follows_refusals`].
    fn follows_refusals(&self) -> bool {
        false
    }

    /// As [`Specification::refusal_kind`].
    fn refusal_kind(&self) -> Kind {
        Kind::Refusal
    }

    /// As [`Specification::event_breach_note`].
    fn event_breach_note(&self) -> Option<&'static str> {
        None
    }

    /// As [`Specification::refusals_before`].
    fn refusals_before(&self) -> &'static str {
        ""
    }

    /// Whether a counterexample shows the specification's states.
    fn shows_normal_form(&self) -> bool {
        false
    }
}

impl<M: NormalFormModel> Specification for NormalForm<M> {
    fn write_node(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        self.normal.write_node(procs, node, out)
    }

    fn read_node(
        &mut self,
        procs: &mut Processes,
        bytes: &[u8],
    ) -> EvalResult<Result<NodeId, String>> {
        self.normal.read_node(procs, bytes)
    }

    fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        if event == TAU {
            return Ok(Some(node));
        }
        self.normal.after(procs, node, event)
    }

    fn refused(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        self.model.refused(&mut self.normal, procs, node, accepted)
    }

    fn after_stable(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
        event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        self.model
            .after_stable(&mut self.normal, procs, node, accepted, event)
    }

    /// The target, marked, whose τ-closure waits until it is permuted.
    fn after_column(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<u32>> {
        if event == TAU || !self.model.permutes_targets() {
            return self.after(procs, node, event);
        }
        Ok(self.normal.after_target(procs, node, event)?.map(|target| {
            debug_assert!(target < TARGET, "fewer targets than 2^31");
            target | TARGET
        }))
    }

    fn permute_column(
        &mut self,
        procs: &mut Processes,
        column: u32,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if column & TARGET != 0 {
            self.normal.permute_target(procs, column & !TARGET, perm)
        } else {
            self.permute(procs, column, perm)
        }
    }

    fn permute(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if perm.is_identity() {
            Ok(node)
        } else {
            self.normal.permute(procs, node, perm)
        }
    }

    fn divergent(&mut self, procs: &mut Processes, node: NodeId) -> EvalResult<bool> {
        if self.model.specification_diverges() {
            self.normal.divergent(procs, node)
        } else {
            Ok(false)
        }
    }

    fn is_symmetric(&self) -> bool {
        self.normal.is_symmetric()
    }

    fn shared_judge(&self, refusals: bool, divergences: bool) -> Option<SharedCopy> {
        let deterministic = self.model.copy()? == CopyOf::Implementation;
        let copy = NormalFormCopy::of(&self.normal, deterministic, refusals, divergences);
        Some(Judge::new(copy, refusals, divergences).shared())
    }

    fn learnt(&self) -> u64 {
        self.normal.learnt()
    }

    fn follows_refusals(&self) -> bool {
        self.model.follows_refusals()
    }

    fn refusal_kind(&self) -> Kind {
        self.model.refusal_kind()
    }

    fn event_breach_note(&self) -> Option<&'static str> {
        self.model.event_breach_note()
    }

    fn refusals_before(&self) -> &'static str {
        self.model.refusals_before()
    }

    fn prepare_shown(&mut self, procs: &mut Processes, nodes: &[NodeId]) -> EvalResult<()> {
        self.normal.make_shown(procs, nodes)
    }

    fn normal_form(&self) -> Option<&Normaliser> {
        Some(&self.normal)
    }

    fn shown_normal_form(&self) -> Option<&Normaliser> {
        self.model.shows_normal_form().then_some(&self.normal)
    }
}

/// Refinement of a normalised specification process (`[T=`, `[F=`,
/// `[FD=`).
pub struct Refines;

impl NormalFormModel for Refines {
    fn copy(&self) -> Option<CopyOf> {
        Some(CopyOf::Specification)
    }

    fn shows_normal_form(&self) -> bool {
        true
    }
}

/// The normal form of the implementation itself: every stable state
/// must accept everything the trace so far allows (`:[deterministic]`).
pub struct Deterministic;

impl NormalFormModel for Deterministic {
    /// The events the trace allows that the state does not offer.
    fn refused(
        &self,
        normal: &mut Normaliser,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        let missing: Vec<EventId> = normal
            .initials(procs, node)?
            .iter()
            .map(|&(e, _)| e)
            .filter(|e| !accepted.contains(e))
            .collect();
        Ok((!missing.is_empty()).then_some(missing))
    }

    fn specification_diverges(&self) -> bool {
        false
    }

    fn copy(&self) -> Option<CopyOf> {
        Some(CopyOf::Implementation)
    }

    fn refusal_kind(&self) -> Kind {
        Kind::Nondeterminism
    }
}

/// A normalised specification in the revivals model (V, VD): besides its
/// failures, every event a stable implementation state offers must be
/// offered by a stable specification state that refuses at least as
/// much.
pub struct Revivals;

impl NormalFormModel for Revivals {
    /// Allowed when a stable state of the specification refuses as much
    /// and offers the event (a revival); the successor is the usual one.
    fn after_stable(
        &self,
        normal: &mut Normaliser,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
        event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        let revived = normal
            .stable_acceptances(procs, node)?
            .iter()
            .any(|a| is_subset(a, accepted) && a.contains(&event));
        Ok(revived.then_some(None))
    }

    fn follows_refusals(&self) -> bool {
        true
    }
}

/// A normalised specification in the refusal-testing model (R, RD): an
/// event a stable implementation state performs is followed only from
/// the specification's stable states that refuse as much, so the
/// refusals along the whole trace are tested.
pub struct RefusalTesting;

impl NormalFormModel for RefusalTesting {
    /// Followed only from the specification's stable states that refuse
    /// as much: the node after is theirs.
    fn after_stable(
        &self,
        normal: &mut Normaliser,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
        event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        Ok(normal
            .after_refusing(procs, node, accepted, event)?
            .map(Some))
    }

    fn permutes_targets(&self) -> bool {
        false
    }

    fn follows_refusals(&self) -> bool {
        true
    }

    fn event_breach_note(&self) -> Option<&'static str> {
        // The trace may well be one of the specification's: what it may
        // lack is the event after the refusals on the way.
        Some(
            "in the refusal-testing model the specification is held to what the stable states \
             along the path refuse as well as to the trace, so the trace itself may be one of \
             its own",
        )
    }

    fn refusals_before(&self) -> &'static str {
        " (and the refusals at the stable states before)"
    }
}

/// The events a state accepting `accepted` refuses although every
/// minimal acceptance of `node` needs one of them; `None` when one of
/// them is within what it accepts.
fn refused_acceptances(
    normal: &mut Normaliser,
    procs: &mut Processes,
    node: NodeId,
    accepted: &[EventId],
) -> EvalResult<Option<Vec<EventId>>> {
    let acceptances = normal.acceptances(procs, node)?;
    if acceptances.iter().any(|a| is_subset(a, accepted)) {
        return Ok(None);
    }
    let mut required: Vec<EventId> = acceptances
        .iter()
        .flat_map(|a| a.iter().copied())
        .filter(|e| !accepted.contains(e))
        .collect();
    required.sort_unstable();
    required.dedup();
    Ok(Some(required))
}

/// Marks an event whose node is not known in the copy.
const UNKNOWN: NodeId = NodeId::MAX;

/// A node's minimal acceptances.
type Acceptances = Box<[Box<[EventId]>]>;

/// What a normal form had worked out when the copy was made: a
/// refinement's specification, or (with `deterministic`) the
/// implementation's own.
pub struct NormalFormCopy {
    /// Per node: its visible events and the node each leads to
    /// ([`UNKNOWN`] if not known), as a range of `after`; `None` when its
    /// initials were not known.
    nodes: Vec<Option<(u32, u32)>>,
    after: Vec<(EventId, NodeId)>,
    /// Per node: its minimal acceptances, when asked for and known.
    acceptances: Vec<Option<Acceptances>>,
    /// Per node: whether it diverges, when asked for and known.
    divergent: Vec<Option<bool>>,
    deterministic: bool,
}

impl NormalFormCopy {
    /// What `normal` knows now, of what a model looking at `refusals`
    /// and `divergences` asks.
    pub fn of(
        normal: &Normaliser,
        deterministic: bool,
        refusals: bool,
        divergences: bool,
    ) -> NormalFormCopy {
        let count = normal.nodes();
        let mut nodes = Vec::with_capacity(count);
        let mut after = Vec::new();
        for node in 0..count as NodeId {
            nodes.push(normal.known_after(node).map(|events| {
                let start = after.len() as u32;
                after.extend(events.map(|(e, n)| (e, n.unwrap_or(UNKNOWN))));
                (start, after.len() as u32 - start)
            }));
        }
        let acceptances = (0..count as NodeId)
            .map(|node| {
                let wanted = refusals && !deterministic;
                wanted
                    .then(|| normal.known_acceptances(node))
                    .flatten()
                    .map(Box::from)
            })
            .collect();
        let divergent = (0..count as NodeId)
            .map(|node| divergences.then(|| normal.known_divergent(node)).flatten())
            .collect();
        NormalFormCopy {
            nodes,
            after,
            acceptances,
            divergent,
            deterministic,
        }
    }

    /// The visible events of `node` and where each leads, if known.
    fn events(&self, node: NodeId) -> Option<&[(EventId, NodeId)]> {
        let (start, len) = (*self.nodes.get(node as usize)?)?;
        Some(&self.after[start as usize..(start + len) as usize])
    }
}

impl SpecCopy for NormalFormCopy {
    fn after(&self, node: NodeId, event: EventId) -> Option<NodeId> {
        let events = self.events(node)?;
        let at = events.binary_search_by_key(&event, |&(e, _)| e).ok()?;
        Some(events[at].1).filter(|&n| n != UNKNOWN)
    }

    fn not_divergent(&self, node: NodeId) -> bool {
        self.deterministic || self.divergent.get(node as usize) == Some(&Some(false))
    }

    fn accepts(&self, node: NodeId, accepted: &[EventId]) -> bool {
        if self.deterministic {
            // Every event the trace allows must be offered.
            return self
                .events(node)
                .is_some_and(|events| events.iter().all(|(e, _)| accepted.contains(e)));
        }
        self.acceptances
            .get(node as usize)
            .and_then(Option::as_ref)
            .is_some_and(|all| all.iter().any(|a| is_subset(a, accepted)))
    }

    fn size(&self) -> usize {
        self.nodes.len() + self.after.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shared_judge::judged;
    use super::*;
    use crate::script::Script;

    /// `body` with the normal form of `spec` (in a script with `channel
    /// a, b, c`), its root and the event ids of `a`, `b` and `c`.
    fn with_normal_form<R>(
        spec: &str,
        body: impl FnOnce(&mut Processes, &mut Normaliser, NodeId, [EventId; 3]) -> R,
    ) -> R {
        let mut script = Script::load_str("spec.csp", "channel a, b, c\n").expect("loads");
        let func = script.add_expr("<spec>", spec).expect("resolves");
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let (mut normal, node) = Normaliser::new(&mut procs, root, None).expect("normalises");
        let events = ["a", "b", "c"].map(|name| {
            (0..procs.events().id_count() as EventId)
                .find(|&e| procs.show_event(e) == name)
                .expect("an event")
        });
        body(&mut procs, &mut normal, node, events)
    }

    #[test]
    fn the_copy_judges_fine_only_what_the_normal_form_had_worked_out() {
        let spec = "let Spec = a -> b -> Spec [] c -> STOP within Spec";
        with_normal_form(spec, |procs, normal, root, [a, b, c]| {
            // Nothing worked out yet: nothing is judged here.
            let table = Judge::new(
                NormalFormCopy::of(normal, false, false, false),
                false,
                false,
            );
            assert_eq!(judged(&table, root, &[a]), None);
            // The initials known, but not where `a` leads: still not.
            normal.initials(procs, root).expect("initials");
            let table = Judge::new(
                NormalFormCopy::of(normal, false, false, false),
                false,
                false,
            );
            assert_eq!(judged(&table, root, &[a]), None);
            let after_a = normal.after(procs, root, a).expect("after a").unwrap();
            let table = Judge::new(
                NormalFormCopy::of(normal, false, false, false),
                false,
                false,
            );
            // `a` and τ are fine (τ keeps the node), `b` is a breach and `c`
            // not worked out: both left to the search's thread.
            assert_eq!(judged(&table, root, &[a, TAU]), Some(vec![after_a, 0]));
            assert_eq!(judged(&table, root, &[a, b]), None);
            assert_eq!(judged(&table, root, &[c]), None);
            // A node the copy has never heard of.
            assert_eq!(judged(&table, normal.nodes() as NodeId + 5, &[a]), None);
        });
    }

    #[test]
    fn refusals_and_divergence_are_judged_only_when_known_and_allowed() {
        let spec = "let Spec = a -> Spec |~| b -> Spec within Spec";
        with_normal_form(spec, |procs, normal, root, [a, b, _]| {
            let after_a = normal.after(procs, root, a).expect("after a").unwrap();
            let after_b = normal.after(procs, root, b).expect("after b").unwrap();
            // Failures: the acceptances are not known yet.
            let table = Judge::new(NormalFormCopy::of(normal, false, true, false), true, false);
            assert_eq!(judged(&table, root, &[a]), None);
            normal.acceptances(procs, root).expect("acceptances");
            let table = Judge::new(NormalFormCopy::of(normal, false, true, false), true, false);
            // Offering a alone is allowed ({a} is an acceptance), as is
            // offering both; an unstable state is not asked what it accepts.
            assert_eq!(judged(&table, root, &[a]), Some(vec![after_a]));
            assert_eq!(judged(&table, root, &[a, b]), Some(vec![after_a, after_b]));
            assert_eq!(judged(&table, root, &[TAU]), Some(vec![0]));
            // Refusing everything is a refusal: the search's thread says so.
            assert_eq!(judged(&table, root, &[]), None);
            // Failures-divergences: whether the node diverges must be known.
            let table = Judge::new(NormalFormCopy::of(normal, false, true, true), true, true);
            assert_eq!(judged(&table, root, &[a]), None);
            assert!(!normal.divergent(procs, root).expect("divergence"));
            let table = Judge::new(NormalFormCopy::of(normal, false, true, true), true, true);
            assert_eq!(judged(&table, root, &[a]), Some(vec![after_a]));
        });
    }
}

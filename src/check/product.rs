//! The product of a specification and an implementation, searched
//! breadth first: one engine for refinement in T, F and FD and for the
//! deadlock, divergence and determinism properties, which are refinement
//! checks against fixed specifications.
//!
//! A product state is an implementation row with the specification's
//! normal-form node in its one extra column. At each product state
//! `(node, imp)` the search looks for, in this order:
//! - with divergences (FD): nothing at all if `node` diverges (the
//!   specification then allows anything); a divergence if `imp` does;
//! - with refusals (F, FD), at a stable `imp`: an acceptance the
//!   specification does not allow (a refusal, or a deadlock, or for
//!   determinism an event the trace allows but this state refuses);
//! - for each visible event of `imp`: whether `node` allows it (traces).
//!
//! Whether `imp` diverges is read from the τ-transitions the search
//! records ([`TauLog`]), a level or so behind the judging: the search
//! stops a block after the first state in its order that diverges is
//! known. When it ends early otherwise (a breach of another kind, the
//! budget, an evaluation error), [`Product::settle`] asks the states
//! judged that the log has not answered the slow way, computing their
//! τ-closures ([`Divergences`]), so the violation reported is the first
//! in the search's order, a divergence before any other at the same
//! state.

use std::sync::Arc;

use crate::eval::EvalResult;
use crate::lts::divergence::{Divergences, TauLog, TauLoop};
use crate::lts::machine::Machine;
use crate::lts::search::{
    Canonicaliser, Context, Flow, Lendable, Search, SharedCanonicaliser, SharedJudge, Visit,
    Visitor,
};
use crate::process::{EventId, Processes, TAU, TICK};
use crate::symmetry::{Permutation, SystemSymmetry};

pub use super::spec::{Specification, TARGET};

use super::normal::{NodeId, acceptance};
use super::structural::StructuralProduct;

/// How a product state broke the specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breach {
    /// The implementation performed an event the specification does not
    /// allow after the trace.
    Event(EventId),
    /// A stable implementation state refused these events (empty for a
    /// deadlock), accepting only the others.
    Refusal {
        refused: Vec<EventId>,
        accepted: Vec<EventId>,
    },
    /// A stable implementation state accepting only `accepted` performed
    /// `event`, which the specification cannot after refusing the rest
    /// (revivals, refusal testing).
    EventAfterRefusal {
        event: EventId,
        accepted: Vec<EventId>,
    },
    Divergence,
    /// The state has performed the whole trace the specification looks
    /// for ([`Specification::trace_at`]: `:[has trace]:` found it).
    Completed,
}

/// A product state that breaks the specification.
#[derive(Debug, Clone)]
pub struct Violation {
    pub state: u32,
    pub node: NodeId,
    pub breach: Breach,
}

/// What judging one product state found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Nothing wrong: its successors are to be explored.
    Fine,
    /// The specification diverges here, so it allows everything after:
    /// nothing to explore (failures-divergences).
    Allowed,
    Breach(Breach),
}

/// The search's visitor: judges product states. Under symmetry it is also
/// the search's canonicaliser: an implementation state is replaced by its
/// representative and the specification's node by the image of the
/// permutation that made it (Definition 17).
pub struct Product {
    pub spec: Box<dyn Specification>,
    refusals: bool,
    /// With divergences: the search's τ-transitions, which answer
    /// whether its states diverge, and the slow way for when the answer
    /// is needed at once (made when first needed).
    divergences: Option<(TauLog, Option<Divergences>)>,
    /// Components per row; the node is the column after them.
    width: usize,
    pub violation: Option<Violation>,
    /// What the state being judged accepts (reused from state to state).
    accepted: Vec<EventId>,
    /// The implementation's symmetry, when the product is reduced.
    reduction: Option<Lendable<SystemSymmetry>>,
    /// The implementation's structural group, when the product is
    /// reduced by that instead.
    structural: Option<StructuralProduct>,
    /// A permutation handed over by a search thread, read into here.
    permutation: Option<Permutation>,
    /// The copy of what the specification knows that the threads
    /// computing successors judge by, once made.
    shared: Option<CachedJudge>,
}

/// A copy of what a specification knew, for the threads computing
/// successors ([`Specification::shared_judge`]).
struct CachedJudge {
    /// What the specification had learnt when it was made.
    learnt: u64,
    table: Arc<dyn SharedJudge>,
    /// Blocks given it since it was made, and how many it must serve
    /// before another is made.
    waited: usize,
    wait: usize,
}

impl Product {
    pub fn new(
        spec: Box<dyn Specification>,
        refusals: bool,
        divergences: bool,
        width: usize,
    ) -> Product {
        Product {
            spec,
            refusals,
            divergences: divergences.then(|| (TauLog::default(), None)),
            width,
            violation: None,
            accepted: Vec::new(),
            reduction: None,
            structural: None,
            permutation: None,
            shared: None,
        }
    }

    /// The rep-reduced product (Definition 17) by `system`, the symmetry
    /// of the implementation's machine. The specification's nodes must
    /// be permutable ([`super::normal::Normaliser::symmetric`]) when it has any.
    pub fn reduced(mut self, system: SystemSymmetry) -> Product {
        debug_assert!(self.spec.is_symmetric());
        self.reduction = Some(Lendable::new(system));
        self
    }

    /// The product reduced by `group`, a structural group under which
    /// the specification is invariant.
    pub fn reduced_structurally(mut self, group: StructuralProduct) -> Product {
        self.structural = Some(group);
        self
    }

    /// The specification and the structural group, when the product is
    /// reduced by one.
    pub fn structural_mut(&mut self) -> Option<(&mut dyn Specification, &mut StructuralProduct)> {
        Some((&mut *self.spec, self.structural.as_mut()?))
    }

    /// The specification and the implementation's symmetry, when the
    /// product is reduced.
    pub fn reduction_mut(&mut self) -> Option<(&mut dyn Specification, &mut SystemSymmetry)> {
        Some((&mut *self.spec, self.reduction.as_mut()?.get_mut()))
    }

    /// Judges the product state of implementation state `row` (its
    /// components only) and specification node `node`, whose moves have
    /// `events`; `next(k, node)` learns the node after each visible move
    /// `k`. `divergence` says whether and when the implementation's
    /// divergence is judged.
    fn judge(
        spec: &mut dyn Specification,
        refusals: bool,
        accepted: &mut Vec<EventId>,
        divergence: DivergenceCheck<'_>,
        procs: &mut Processes,
        (node, row, events): (NodeId, &[u32], &[EventId]),
        (columns, next): (bool, &mut dyn FnMut(usize, u32)),
    ) -> EvalResult<Judgement> {
        if spec
            .trace_at(node)
            .is_some_and(|(trace, done)| done == trace.len())
        {
            return Ok(Judgement::Breach(Breach::Completed));
        }
        if !matches!(divergence, DivergenceCheck::Off) && spec.divergent(procs, node)? {
            return Ok(Judgement::Allowed);
        }
        if let DivergenceCheck::Now(divergences, machine) = divergence
            && divergences.diverges(machine, procs, row, None)?
        {
            return Ok(Judgement::Breach(Breach::Divergence));
        }
        let stable = !events.contains(&TAU);
        // What a stable state accepts matters only to refusals.
        if refusals && stable {
            acceptance(events.iter().copied(), accepted);
        }
        if refusals
            && stable
            && let Some(refused) = spec.refused(procs, node, accepted)?
        {
            let accepted = accepted.clone();
            return Ok(Judgement::Breach(Breach::Refusal { refused, accepted }));
        }
        for (k, &event) in events.iter().enumerate() {
            if event == TAU {
                continue;
            }
            // A visible event a stable state offers comes after its
            // refusal. ✓ is a signal: it ends the behaviour, so it is
            // judged by traces and failures only (a state that can
            // terminate offers only ✓, and it is no revival).
            if refusals && stable && event != TICK && accepted.contains(&event) {
                match spec.after_stable(procs, node, accepted, event)? {
                    None if spec.after(procs, node, event)?.is_none() => {
                        return Ok(Judgement::Breach(Breach::Event(event)));
                    }
                    None => {
                        let accepted = accepted.clone();
                        return Ok(Judgement::Breach(Breach::EventAfterRefusal {
                            event,
                            accepted,
                        }));
                    }
                    Some(Some(after)) => {
                        next(k, after);
                        continue;
                    }
                    Some(None) => {}
                }
            }
            // A reduced search's successors get columns, made nodes as
            // they are canonicalised.
            let after = if columns {
                spec.after_column(procs, node, event)?
            } else {
                spec.after(procs, node, event)?
            };
            match after {
                Some(after) => next(k, after),
                None => return Ok(Judgement::Breach(Breach::Event(event))),
            }
        }
        Ok(Judgement::Fine)
    }

    /// Judges product state (`node`, `row`) whose moves have `events`,
    /// for a search that finds divergences elsewhere (the cluster's,
    /// from its τ-graph once it is settled): `next(k, column)` learns
    /// the column after each visible move `k` (reduced, a target that
    /// [`Canonicaliser::canonicalise`] makes a node).
    pub fn judge_state(
        &mut self,
        procs: &mut Processes,
        (node, row, events): (NodeId, &[u32], &[EventId]),
        next: &mut dyn FnMut(usize, u32),
    ) -> EvalResult<Judgement> {
        let divergence = match self.divergences {
            Some(_) => DivergenceCheck::Later,
            None => DivergenceCheck::Off,
        };
        // Reduced, a successor's column is a target that canonicalising
        // makes a node under its permutation at once, as in one search.
        let columns = self.reduction.is_some();
        Product::judge(
            &mut *self.spec,
            self.refusals,
            &mut self.accepted,
            divergence,
            procs,
            (node, row, events),
            (columns, next),
        )
    }

    /// The specification's node after `event` from `node`, at an
    /// implementation state whose moves have `events`, as
    /// [`Product::judge`] makes it: in the models that follow refusals
    /// (revivals, refusal testing) an event a stable state accepts leads
    /// where that acceptance says. `None` when it is not allowed.
    pub(crate) fn node_after(
        spec: &mut dyn Specification,
        procs: &mut Processes,
        (node, events): (NodeId, &[EventId]),
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        if !events.contains(&TAU) && event != TICK && event != TAU {
            let mut accepted = Vec::new();
            acceptance(events.iter().copied(), &mut accepted);
            if accepted.contains(&event) {
                match spec.after_stable(procs, node, &accepted, event)? {
                    None => return Ok(None),
                    Some(Some(after)) => return Ok(Some(after)),
                    Some(None) => {}
                }
            }
        }
        spec.after(procs, node, event)
    }

    /// Judges a product state of the *unreduced* product (`row`: its
    /// components, then the node), computing its moves: how a
    /// counterexample unwound from a reduced search is confirmed.
    pub fn judge_unreduced(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Judgement> {
        let width = self.width;
        let mut moves = crate::lts::machine::Moves::default();
        machine.moves(procs, &row[..width], &mut moves)?;
        let events: Vec<EventId> = moves.list.iter().map(|m| m.event).collect();
        let mut fresh = None;
        let divergence = match self.divergences {
            Some(_) => DivergenceCheck::Now(fresh.insert(Divergences::new(width)), machine),
            None => DivergenceCheck::Off,
        };
        Product::judge(
            &mut *self.spec,
            self.refusals,
            &mut self.accepted,
            divergence,
            procs,
            (row[width], &row[..width], &events),
            (false, &mut |_, _| {}),
        )
    }

    /// The τ-loop a divergent implementation state `row` of the unreduced
    /// system runs into (see [`Divergences::tau_loop`]), for its
    /// counterexample.
    pub fn tau_loop(
        &self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Option<TauLoop>> {
        match &self.divergences {
            Some(_) => Divergences::new(self.width).tau_loop(machine, procs, row, None),
            None => Ok(None),
        }
    }

    /// After the search, which a check must call: the first of the
    /// states judged that diverges, unless a divergence was found
    /// already. What the recorded τ-transitions show is enough after a
    /// search that ran to its end. After one cut short — by a breach of
    /// another kind (`ended_early` or not), the budget or an evaluation
    /// error (`ended_early`) — the states judged that they have not
    /// answered are asked the slow way, computing their τ-closures (within
    /// the meter `procs` holds), so the violation reported is the first
    /// in the search's order, as if each state's divergence had been
    /// decided when it was judged.
    pub fn settle(
        &mut self,
        search: &mut Search,
        procs: &mut Processes,
        ended_early: bool,
    ) -> EvalResult<()> {
        let Some((log, slow)) = &mut self.divergences else {
            return Ok(());
        };
        let thorough = match &self.violation {
            Some(Violation {
                breach: Breach::Divergence,
                ..
            }) => return Ok(()),
            Some(_) => true,
            None => ended_early,
        };
        let mut divergent = log.advance();
        if divergent.is_none() && thorough {
            let slow = slow.get_or_insert_with(|| Divergences::new(self.width));
            let mut canonicaliser = match (&mut self.reduction, &mut self.structural) {
                (Some(system), _) => Some(system.get_mut() as &mut dyn Canonicaliser),
                (None, Some(structural)) => Some(&mut structural.group as &mut dyn Canonicaliser),
                (None, None) => None,
            };
            for state in log.unanswered() {
                let diverges = match log.known(state) {
                    Some(known) => known,
                    None => {
                        let row = search.row(state);
                        let components = &row[..self.width];
                        let machine = search.machine_mut();
                        slow.diverges(machine, procs, components, canonicaliser.as_deref_mut())?
                    }
                };
                if diverges {
                    divergent = Some(state);
                    break;
                }
            }
        }
        if let Some(state) = divergent {
            self.violation = Some(Violation {
                state,
                node: search.row(state)[self.width],
                breach: Breach::Divergence,
            });
        }
        Ok(())
    }

    fn breach(&mut self, state: u32, node: NodeId, breach: Breach) -> Flow {
        self.violation = Some(Violation {
            state,
            node,
            breach,
        });
        Flow::Stop
    }
}

/// How judging a state learns whether the implementation diverges there.
enum DivergenceCheck<'a> {
    /// Not at all: the model has no divergences.
    Off,
    /// From the search's τ-transitions, later: judging looks only at the
    /// specification's divergence.
    Later,
    /// Now, computing the τ-closure.
    Now(&'a mut Divergences, &'a mut Machine),
}

impl Visitor for Product {
    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow> {
        let Context { procs, .. } = context;
        let width = self.width;
        // Found fine beside the search, from what the specification had
        // learnt then ([`SharedJudge`]): as a `Fine` judgement here.
        if visit.judged {
            if let Some((log, _)) = &mut self.divergences {
                log.ask(visit.id);
            }
            return Ok(Flow::Continue);
        }
        let node = visit.row[width];
        let successors = visit.successors;
        let events = visit.events;
        let columns = self.reduction.is_some();
        let structural = &mut self.structural;
        let divergence = match self.divergences {
            Some(_) => DivergenceCheck::Later,
            None => DivergenceCheck::Off,
        };
        let judgement = Product::judge(
            &mut *self.spec,
            self.refusals,
            &mut self.accepted,
            divergence,
            procs,
            (node, &visit.row[..width], visit.events),
            (columns, &mut |k, after| {
                successors[k * (width + 1) + width] = after;
                if let Some(structural) = structural.as_mut() {
                    structural.learn(node, events[k], after);
                }
            }),
        )?;
        if judgement != Judgement::Allowed
            && let Some((log, _)) = &mut self.divergences
        {
            log.ask(visit.id);
        }
        match judgement {
            Judgement::Fine => Ok(Flow::Continue),
            Judgement::Allowed => Ok(Flow::Prune),
            // A divergence before it is looked for after the search
            // (`settle`).
            Judgement::Breach(breach) => Ok(self.breach(visit.id, node, breach)),
        }
    }

    /// Records the state's τ-transitions, for the answers to come.
    fn stored(&mut self, state: u32, events: &[EventId], ids: &[(u32, bool)]) {
        if let Some((log, _)) = &mut self.divergences {
            let taus = events.iter().zip(ids).filter(|(e, _)| **e == TAU);
            log.record(state, taus.map(|(_, &(id, _))| id));
            log.advance();
        }
    }

    /// Once the log has found the first divergent state, the search ends
    /// with the state whose recording showed it: the counts are those of
    /// that point, which does not depend on where blocks end
    /// ([`Product::settle`] makes it the violation).
    fn ends_after_stored(&self) -> bool {
        self.divergences
            .as_ref()
            .is_some_and(|(log, _)| log.divergence().is_some())
    }

    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        match (&self.reduction, &self.structural) {
            (None, None) => None,
            _ => Some(self),
        }
    }

    fn ended_at(&self) -> Option<u32> {
        self.violation.as_ref().map(|v| v.state)
    }

    fn forget_end(&mut self) {
        self.violation = None;
    }

    /// A copy of what the specification has learnt, made again when it
    /// has learnt more, but not more often than its size warrants: a
    /// copy of `n` entries waits `n / COPY_PER_BLOCK` blocks. None for a
    /// reduced search (its successors' columns are targets to permute)
    /// and for the revivals and refusal-testing models (what follows a
    /// refusal is theirs alone).
    fn shared_judge(&mut self) -> Option<Arc<dyn SharedJudge>> {
        const COPY_PER_BLOCK: usize = 16_384;
        #[cfg(test)]
        if super::shared_judge::SWITCHED_OFF.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        if self.reduction.is_some() || self.structural.is_some() {
            return None;
        }
        let learnt = self.spec.learnt();
        if let Some(copy) = &mut self.shared
            && (copy.learnt == learnt || copy.waited < copy.wait)
        {
            copy.waited += 1;
            return Some(copy.table.clone());
        }
        let (refusals, divergences) = (self.refusals, self.divergences.is_some());
        let copy = self.spec.shared_judge(refusals, divergences)?;
        let wait = copy.size / COPY_PER_BLOCK;
        let table = copy.judge;
        self.shared = Some(CachedJudge {
            learnt,
            table: table.clone(),
            waited: 0,
            wait,
        });
        Some(table)
    }

    /// Divergence is looked for the slow way after the search.
    fn needs_machine(&self) -> bool {
        false
    }
}

impl Canonicaliser for Product {
    /// `rep(p, q) = (π(p), rep(q))` where `π(q) = rep(q)` (Definition 17).
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        let width = self.width;
        if let Some(structural) = &mut self.structural {
            structural.canonicalise(machine, procs, &mut *self.spec, row)?;
            return Ok(());
        }
        let Some(system) = &mut self.reduction else {
            return Ok(());
        };
        let system = system.get_mut();
        let perm = system.canonicalise_components(machine, procs, row)?;
        if !self.spec.holds_values() {
            row[width] = self.spec.permute_column(procs, row[width], perm)?;
            return Ok(());
        }
        let perm = perm.clone();
        let held = system.held_atoms();
        row[width] = self.spec.permute_holding(procs, row[width], &perm, held)?;
        Ok(())
    }

    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        self.reduction
            .as_ref()
            .map(|system| system.get() as &dyn SharedCanonicaliser)
    }

    /// The implementation's symmetry, which is all the threads need: the
    /// specification's column is permuted on the search's thread
    /// ([`Canonicaliser::finish`]), which reads the symmetry only.
    fn lend(&self) -> Option<Arc<dyn SharedCanonicaliser>> {
        self.reduction.as_ref()?.lend()
    }

    fn prepare(&mut self, machine: &Machine, procs: &mut Processes) -> EvalResult<()> {
        if let Some(system) = &mut self.reduction {
            system.get_mut().learn(machine, procs);
        }
        Ok(())
    }

    /// The specification's node under the permutation a thread found.
    fn finish(&mut self, procs: &mut Processes, row: &mut [u32], images: &[u16]) -> EvalResult<()> {
        let width = self.width;
        let Some(system) = self.reduction.as_ref().map(Lendable::get) else {
            return Ok(());
        };
        let perm = self
            .permutation
            .get_or_insert_with(|| Permutation::identity(system.symmetry()));
        perm.read_flat(images);
        row[width] = self.spec.permute_column(procs, row[width], perm)?;
        Ok(())
    }
}

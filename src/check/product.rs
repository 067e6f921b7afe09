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

use crate::eval::EvalResult;
use crate::lts::divergence::{Divergences, TauLoop};
use crate::lts::machine::Machine;
use crate::lts::search::{Context, Flow, Visit, Visitor};
use crate::process::{EventId, Processes, TAU, TICK};

use super::normal::{NodeId, Normaliser, acceptance, is_subset};

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
}

impl Spec {
    fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>> {
        match self {
            Spec::DeadlockFree if event == TICK => Ok(Some(1)),
            Spec::DeadlockFree | Spec::Anything => Ok(Some(node)),
            Spec::Refines(n) | Spec::Deterministic(n) => n.after(procs, node, event),
        }
    }

    fn divergent(&mut self, procs: &mut Processes, node: NodeId) -> EvalResult<bool> {
        match self {
            Spec::Refines(n) => n.divergent(procs, node),
            _ => Ok(false),
        }
    }

    /// The events a stable implementation state accepting `accepted`
    /// refuses although the specification requires one of them; `None`
    /// when it is allowed.
    fn refused(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>> {
        Ok(match self {
            Spec::DeadlockFree => (node == 0 && accepted.is_empty()).then(Vec::new),
            Spec::Anything => None,
            Spec::Refines(n) => {
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
    Divergence,
}

/// A product state that breaks the specification.
#[derive(Debug, Clone)]
pub struct Violation {
    pub state: u32,
    pub node: NodeId,
    pub breach: Breach,
}

/// The search's visitor: judges product states.
pub struct Product {
    pub spec: Spec,
    refusals: bool,
    divergences: Option<Divergences>,
    /// Components per row; the node is the column after them.
    width: usize,
    pub violation: Option<Violation>,
    /// What the state being judged accepts (reused from state to state).
    accepted: Vec<EventId>,
}

impl Product {
    pub fn new(spec: Spec, refusals: bool, divergences: bool, width: usize) -> Product {
        Product {
            spec,
            refusals,
            divergences: divergences.then(|| Divergences::new(width)),
            width,
            violation: None,
            accepted: Vec::new(),
        }
    }

    fn breach(&mut self, visit: &Visit, node: NodeId, breach: Breach) -> EvalResult<Flow> {
        self.violation = Some(Violation {
            state: visit.id,
            node,
            breach,
        });
        Ok(Flow::Stop)
    }

    /// The τ-loop a divergent implementation state `row` runs into (see
    /// [`Divergences::tau_loop`]), for its counterexample.
    pub fn tau_loop(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Option<TauLoop>> {
        match &mut self.divergences {
            Some(divergences) => divergences.tau_loop(machine, procs, row, None),
            None => Ok(None),
        }
    }
}

impl Visitor for Product {
    fn needs_machine(&self) -> bool {
        self.divergences.is_some()
    }

    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow> {
        let Context { procs, machine } = context;
        let width = self.width;
        let node = visit.row[width];
        if let Some(divergences) = &mut self.divergences {
            if self.spec.divergent(procs, node)? {
                return Ok(Flow::Prune);
            }
            let machine = machine.expect("a visitor that needs the machine gets it");
            if divergences.diverges(machine, procs, &visit.row[..width], None)? {
                return self.breach(&visit, node, Breach::Divergence);
            }
        }
        if self.refusals && !visit.events.contains(&TAU) {
            acceptance(visit.events.iter().copied(), &mut self.accepted);
            if let Some(refused) = self.spec.refused(procs, node, &self.accepted)? {
                let accepted = self.accepted.clone();
                return self.breach(&visit, node, Breach::Refusal { refused, accepted });
            }
        }
        for (k, &event) in visit.events.iter().enumerate() {
            if event == TAU {
                continue;
            }
            match self.spec.after(procs, node, event)? {
                Some(next) => visit.successors[k * (width + 1) + width] = next,
                None => return self.breach(&visit, node, Breach::Event(event)),
            }
        }
        Ok(Flow::Continue)
    }
}

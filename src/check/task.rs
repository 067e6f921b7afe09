//! The one place that turns what a user asks — an assertion, or a
//! process to explore — into what a search does: the process to search,
//! the goal its states are judged by (with FDR's defaults: deadlock
//! freedom and determinism in failures-divergences unless a model is
//! given), the `:[tau priority]:` set, and the symmetry it is reduced by
//! under the one rule ([`Reduce::chosen`]). And, from a goal, the
//! specification its states are judged against, normalised under the
//! check's symmetry.
//!
//! The one search ([`crate::check`]) and the workers
//! ([`crate::cluster`]) both start here, so an assertion means the same
//! wherever it runs.

use std::sync::Arc;

use crate::eval::EvalError;
use crate::lts::machine::Preserve;
use crate::process::{EventSet, ProcId, Processes};
use crate::script::Script;
use crate::script::ir::{AssertOption, AssertionKind, FuncId};
use crate::symmetry::search_system::{About, Purpose};
use crate::symmetry::spec::Reduce;
use crate::symmetry::{NotMappable, Symmetry};
use crate::syntax::ast::{Model, Property};

use super::normal::Normaliser;
use super::spec::{Anything, DeadlockFree, Deterministic, NormalForm, Specification, TracePrefix};
use super::{NORMALISING, refinement, with_divergences};

/// What a search does with the states it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Count them.
    Explore,
    /// Judge them by `:[deadlock free]`, in the failures model or, with
    /// `divergences`, failures-divergences (FDR's default).
    DeadlockFree { divergences: bool },
    /// Look for a divergence (`:[divergence free]`).
    DivergenceFree,
    /// `:[deterministic]`: judged against the implementation's own
    /// normal form (under its τ-priority); in failures-divergences with
    /// `divergences` (FDR's default).
    Deterministic { divergences: bool },
    /// Refinement of process `spec` (an assertion's operand) in `model`.
    Refinement { spec: FuncId, model: Model },
    /// `:[has trace]:` of the sequence `trace` (an assertion's operand),
    /// in a model that records divergences when `divergences`.
    HasTrace { trace: FuncId, divergences: bool },
}

/// What one search is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The process searched (an assertion's implementation).
    pub process: FuncId,
    pub goal: Goal,
    /// The set of events τ and ✓ take priority over (`:[tau
    /// priority]:`), a constant of the script.
    pub priority: Option<FuncId>,
    /// The symmetry asked for, by the one rule.
    pub reduce: Reduce,
    /// Whether the search is reduced by partial order (`:[partial order
    /// reduce]`, or `--por`).
    pub por: bool,
}

impl Task {
    /// What assertion `index` of `script` asks (its symmetry as `asked`
    /// by `--symmetry`, else as the assertion says); `None` for
    /// `:[symmetric]:`, a static check that searches nothing.
    pub fn of_assertion(script: &Script, index: usize, asked: Option<&Reduce>) -> Option<Task> {
        let assertion = &script.assertions[index];
        let reduce = Reduce::chosen(script, asked, Purpose::Check, About::Assertion(index));
        let priority = assertion.options.iter().find_map(|option| match option {
            AssertOption::TauPriority(set, _) => Some(*set),
            _ => None,
        });
        let por = assertion
            .options
            .iter()
            .any(|option| matches!(option, AssertOption::PartialOrderReduce(..)));
        // FDR's default model for deadlock freedom and determinism is
        // failures-divergences: a divergence fails them.
        let fd = |model: Option<Model>| model.is_none() || with_divergences(model);
        let (process, goal) = match assertion.kind {
            AssertionKind::Refinement { spec, model, imp } => {
                (imp, Goal::Refinement { spec, model })
            }
            AssertionKind::Property {
                process,
                property,
                model,
            } => {
                let goal = match property {
                    Property::DeadlockFree => Goal::DeadlockFree {
                        divergences: fd(model),
                    },
                    Property::DivergenceFree => Goal::DivergenceFree,
                    Property::Deterministic => Goal::Deterministic {
                        divergences: fd(model),
                    },
                };
                (process, goal)
            }
            AssertionKind::HasTrace {
                process,
                model,
                trace,
            } => (
                process,
                Goal::HasTrace {
                    trace,
                    divergences: with_divergences(model),
                },
            ),
            AssertionKind::Symmetric { .. } => return None,
        };
        Some(Task {
            process,
            goal,
            priority,
            reduce,
            por,
        })
    }

    /// Exploring `process`, reduced as `reduce` says.
    pub fn explore(process: FuncId, reduce: Reduce) -> Task {
        Task {
            process,
            goal: Goal::Explore,
            priority: None,
            reduce,
            por: false,
        }
    }

    /// What a search reduced by partial order must keep for this goal,
    /// when the task asks for the reduction. Exploring keeps the states
    /// without moves (deadlocks and terminations), as does deadlock
    /// freedom in the failures model; deadlock freedom in
    /// failures-divergences and divergence freedom keep divergences too;
    /// every other goal observes traces,
    /// refusals of stable states or divergences, all of which the
    /// stronger reduction keeps. Determinism too: its normal form is made
    /// of the whole process, and only the states it is judged at are
    /// fewer.
    pub fn partial_order(&self) -> Option<Preserve> {
        if !self.por {
            return None;
        }
        Some(match self.goal {
            Goal::Explore | Goal::DeadlockFree { divergences: false } => Preserve::Deadlocks,
            Goal::DeadlockFree { divergences: true } | Goal::DivergenceFree => {
                Preserve::Divergences
            }
            _ => Preserve::Behaviour,
        })
    }
}

/// The specification a goal judges states against, from its initial
/// node: whether it judges refusals and divergences, and for a
/// refinement the specification's process (whose symmetries a
/// structural reduction must keep).
pub struct Judge {
    pub spec: Box<dyn Specification>,
    pub root: u32,
    pub refusals: bool,
    pub divergences: bool,
    pub spec_process: Option<ProcId>,
}

/// Why a goal's specification could not be made.
pub enum Unjudged {
    Eval(EvalError),
    /// The process to normalise (`which`: the specification, or for
    /// determinism the implementation) is not symmetric in the check's
    /// types.
    NotMappable {
        which: &'static str,
        refusal: NotMappable,
    },
}

impl From<EvalError> for Unjudged {
    fn from(e: EvalError) -> Unjudged {
        Unjudged::Eval(e)
    }
}

/// The specification `goal` judges the states of implementation `imp`
/// against (`None` for exploring, which judges nothing), with the
/// implementation's τ-`priority`. `:[has trace]:`'s is the trace's
/// prefixes, reduced by `symmetry` where the trace's values allow, for
/// the workers' product ([`TracePrefix`]; the one search walks the trace
/// with a visitor of its own, [`super::trace::TraceWalk`]). A normal form is
/// made permutable by `symmetry` when the search is reduced by it.
pub fn judge(
    goal: Goal,
    procs: &mut Processes,
    (imp, priority): (ProcId, Option<EventSet>),
    symmetry: Option<&Arc<Symmetry>>,
) -> Result<Option<Judge>, Unjudged> {
    let normalise = |procs: &mut Processes,
                     root: ProcId,
                     priority: Option<EventSet>,
                     which: &'static str|
     -> Result<(Normaliser, u32), Unjudged> {
        let during = |e: EvalError| e.during(|| NORMALISING.to_string());
        match symmetry {
            None => Ok(Normaliser::new(procs, root, priority).map_err(during)?),
            Some(symmetry) => Normaliser::symmetric(procs, root, priority, symmetry.clone())
                .map_err(during)?
                .map_err(|refusal| Unjudged::NotMappable { which, refusal }),
        }
    };
    let fixed = |spec: Box<dyn Specification>, refusals, divergences| Judge {
        spec,
        root: 0,
        refusals,
        divergences,
        spec_process: None,
    };
    Ok(Some(match goal {
        Goal::Explore => return Ok(None),
        Goal::HasTrace { trace, divergences } => {
            let trace = super::events_of(procs, trace)?;
            let reduced =
                symmetry.and_then(|s| TracePrefix::reduced(trace.clone(), s.clone(), procs));
            let walk = reduced.unwrap_or_else(|| TracePrefix::new(trace));
            fixed(Box::new(walk), false, divergences)
        }
        Goal::DeadlockFree { divergences } => fixed(Box::new(DeadlockFree), true, divergences),
        Goal::DivergenceFree => fixed(Box::new(Anything), false, true),
        Goal::Deterministic { divergences } => {
            // The implementation's own normal form is under its priority.
            let (normaliser, root) = normalise(procs, imp, priority, "implementation")?;
            Judge {
                root,
                ..fixed(
                    Box::new(NormalForm::new(normaliser, Deterministic)),
                    true,
                    divergences,
                )
            }
        }
        Goal::Refinement { spec, model } => {
            let (process, _) = super::process(procs, spec)?;
            let (normaliser, root) = normalise(procs, process, None, "specification")?;
            let (spec, refusals, divergences) = refinement(normaliser, model);
            Judge {
                spec,
                root,
                refusals,
                divergences,
                spec_process: Some(process),
            }
        }
    }))
}

//! The one place that turns what a user asks — an assertion, or a
//! process to explore — into what a search does: the process to search,
//! the goal its states are judged by (with FDR's defaults: deadlock
//! freedom and determinism in failures-divergences unless a model is
//! given), the `:[tau priority]:` set, and the symmetry it is reduced by
//! under the one rule ([`Reduce::chosen`]). And, from a goal, the
//! specification its states are judged against, normalised under the
//! check's symmetry.
//!
//! What a search is reduced by is decided here too, once, when the job
//! is prepared ([`Plan`]): the types over every process the assertion
//! names (the specification too), whether they permute anything, the
//! strategy, the structure, partial order. The plan is carried to every
//! engine: the one search ([`crate::check`]) and the workers
//! ([`crate::cluster`]) run it and decide nothing again, so an assertion
//! means the same wherever it runs.

use std::sync::Arc;

use crate::budget::Meter;
use crate::eval::EvalError;
use crate::lts::machine::{Machine, Preserve};
use crate::process::{EventSet, ProcId, Processes};
use crate::script::Script;
use crate::script::ir::{AssertOption, AssertionKind, FuncId};
use crate::symmetry::search_system::{About, Purpose, Reduction};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::symmetry::{NotMappable, Symmetry};
use crate::syntax::Diagnostic;
use crate::syntax::ast::{Model, Property};

pub use crate::symmetry::search_system::Reducing;

use super::normal::Normaliser;
use super::spec::{Anything, DeadlockFree, Deterministic, NormalForm, Specification, TracePrefix};
use super::{NORMALISING, Reduced, refinement, with_divergences};

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

    /// The processes whose constant-freeness a reduction by datatypes
    /// needs: every process the task names — a refinement's
    /// specification as well as its implementation. A trace or an event
    /// set beside them is not checked: it is permuted or mapped.
    pub fn named_processes(&self) -> Vec<FuncId> {
        match self.goal {
            Goal::Refinement { spec, .. } => vec![spec, self.process],
            _ => vec![self.process],
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

    /// Reduces `machine` by partial order where the task asks, keeping
    /// what [`Task::partial_order`] says; for a traces refinement, the
    /// events its specification ignores ([`super::ignored`]) count as τ.
    /// The note that says what was done; the one place every engine
    /// reduces a search's machine, so that all of them search one graph.
    pub fn reduce_by_partial_order(
        &self,
        procs: &mut Processes,
        machine: &mut Machine,
    ) -> Result<Option<String>, EvalError> {
        let Some(preserve) = self.partial_order() else {
            return Ok(None);
        };
        let mut note = machine.reduce_partial_order(procs, preserve)?;
        if let (
            Some(_),
            Goal::Refinement {
                spec,
                model: Model::Traces,
            },
        ) = (machine.partial_order(), self.goal)
        {
            let ignored = super::ignored::ignored_events(procs, spec)?;
            if !ignored.is_empty() {
                let shown: Vec<String> = ignored
                    .iter()
                    .take(6)
                    .map(|&e| procs.show_event(e))
                    .collect();
                let more = if ignored.len() > shown.len() {
                    ", …"
                } else {
                    ""
                };
                note = format!(
                    "partial order reduction: applied (traces kept; the specification ignores {} \
                     event{}, allowed everywhere and leaving it as it is, so they count as τ: \
                     {}{more})",
                    ignored.len(),
                    if ignored.len() == 1 { "" } else { "s" },
                    shown.join(", ")
                );
                machine.count_as_tau(ignored);
            }
        }
        Ok(Some(note))
    }
}

/// A task with what its search is reduced by, decided once when the job
/// is prepared and carried to every engine, thread, worker and process.
///
/// [`Plan::decide`] decides what the script says: the types asked for,
/// constant-free over every process the task names, or none when they
/// permute nothing; the strategy. The first system built for the job
/// decides what only a system says ([`Plan::settle`]): whether the types
/// map onto it and onto the specification's normal form (Section 6.1),
/// the structural group cut to the specification's stabiliser, whether
/// a trace's values can be followed. An engine given a settled plan
/// applies it; one whose system will not take it has met a bug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub task: Task,
    pub reducing: Reducing,
    /// What the search is reduced by, as a check reports it (`None` when
    /// not reduced, or before the plan is settled).
    pub reduced: Option<Reduced>,
    /// What deciding had to say: the values automatic mode left out and
    /// why, that nothing is permuted, the strategy, why the system is not
    /// reduced as asked.
    pub notes: Vec<String>,
    /// Whether a system has decided what only a system says.
    pub settled: bool,
}

impl Plan {
    /// The plan for `task`: its symmetry decided over every process it
    /// names, within `meter` (evaluating the types asked for), with
    /// `strategy`'s representatives; or every use in the script that
    /// breaks the types asked for, at its place.
    pub fn decide(
        script: &Script,
        task: Task,
        strategy: Strategy,
        meter: &Meter,
    ) -> Result<Plan, Vec<Diagnostic>> {
        let mut notes = Vec::new();
        let reducing = if task.reduce == Reduce::Structural {
            Reducing::Structure
        } else {
            let eval = crate::eval::Evaluator::new(script).with_meter(meter.clone());
            match Reduction::decide(script, &eval, &task.reduce, &task.named_processes())? {
                None => Reducing::Not,
                Some(symmetry) => {
                    notes.extend(
                        symmetry
                            .left_out_lines(script)
                            .into_iter()
                            .map(|line| format!("symmetry: {line}")),
                    );
                    if symmetry.is_trivial() {
                        notes.push(NOTHING_TO_PERMUTE.to_string());
                        Reducing::Not
                    } else {
                        if strategy != Strategy::Fdr {
                            notes.push(format!(
                                "symmetry: representatives by the {strategy} strategy ({})",
                                strategy.summary()
                            ));
                        }
                        Reducing::Types(Arc::new(symmetry), strategy)
                    }
                }
            }
        };
        Ok(Plan {
            task,
            reducing,
            reduced: None,
            notes,
            settled: false,
        })
    }

    /// The plan of an exploration whose system `reduction` was built for
    /// it (decided over the process alone): settled by that system.
    pub fn explored(task: Task, reduction: &Reduction) -> Plan {
        Plan {
            task,
            reducing: Reducing::of(reduction),
            reduced: Reduced::of_reduction(reduction),
            notes: Vec::new(),
            settled: true,
        }
    }

    /// Settles what only a system says: reduced as `reduced` says, or not
    /// reduced, with `notes` saying why.
    pub fn settle(&mut self, reduced: Option<Reduced>, notes: Vec<String>) {
        if reduced.is_none() {
            self.reducing = Reducing::Not;
        }
        self.reduced = reduced;
        self.notes.extend(notes);
        self.settled = true;
    }

    /// A short text that differs between two plans that differ: two
    /// processes of a cluster that planned apart must agree on it.
    pub fn fingerprint(&self) -> String {
        format!("{:?}", (&self.task, &self.reducing, &self.reduced))
    }
}

/// Why a symmetry that was asked for reduces nothing.
pub(crate) const NOTHING_TO_PERMUTE: &str =
    "symmetry: no type with two or more values to permute, so the check is not reduced";

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

//! The one place that builds the system a job searches or animates: from
//! a script, a process and what was asked of symmetry, the process
//! states, the supercombinator and — when reduced — the system's symmetry
//! under a representative strategy, with what decided it.
//!
//! Every command and the animator build through here, under one rule for
//! which symmetry applies when none is asked for ([`Reduce::chosen`]):
//! - `--symmetry` (or the animator's), when given;
//! - otherwise the `:[symmetry reduce]` of the assertion the job is
//!   about: the assertion being checked, or for a process, the first
//!   assertion asking for reduction whose implementation is written as
//!   that process;
//! - otherwise none for checks and explorations (as FDR), and automatic
//!   for the views that show symmetry (`rep`, `why`, the animator's
//!   symmetry view).
//!
//! Explorations take only what is asked (`symcsp explore` counts the
//! real states unless told otherwise).
//!
//! A search's job decides once what it is reduced by ([`Reducing`],
//! carried by the check layer's plan); an engine handed that decision
//! builds its system with [`SearchSystem::build_reduced`], which applies
//! it and decides nothing.

use std::sync::Arc;

use crate::budget::Meter;
use crate::eval::{EvalResult, Evaluator};
use crate::lts::machine::Machine;
use crate::lts::search::Lendable;
use crate::process::{ProcId, Processes};
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::syntax::{Diagnostic, one_line};

use super::spec::{Reduce, Symmetry};
use super::strategy::Strategy;
use super::structural::{self, group::StructuralReduction};
use super::system::{NotMappable, SystemSymmetry};

/// What a job is for: it decides the symmetry when none is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Checking an assertion: reduced as the assertion asks.
    Check,
    /// Exploring a process: reduced only when asked.
    Explore,
    /// Showing symmetry (`rep`, `why`, the animator's symmetry view):
    /// reduced as an assertion about the process asks, else
    /// automatically.
    Show,
}

/// What a job is about: an assertion (by index), or a process as typed.
#[derive(Debug, Clone, Copy)]
pub enum About<'a> {
    Assertion(usize),
    Process(&'a str),
}

impl Reduce {
    /// The one rule for which symmetry a job uses (see the module's
    /// documentation).
    pub fn chosen(
        script: &Script,
        asked: Option<&Reduce>,
        purpose: Purpose,
        about: About,
    ) -> Reduce {
        if let Some(asked) = asked {
            return asked.clone();
        }
        if purpose == Purpose::Explore {
            return Reduce::Off;
        }
        let from_assertion = match about {
            About::Assertion(index) => Some(Reduce::of_assertion(&script.assertions[index])),
            About::Process(text) => {
                let text = one_line(text);
                script.assertions.iter().find_map(|a| {
                    let reduce = Reduce::of_assertion(a);
                    let imp = script.function(a.kind.implementation()).span;
                    (reduce != Reduce::Off && one_line(script.sources.snippet(imp)) == text)
                        .then_some(reduce)
                })
            }
        };
        match (from_assertion, purpose) {
            (Some(reduce), _) if reduce != Reduce::Off => reduce,
            (_, Purpose::Show) => Reduce::Automatic,
            _ => Reduce::Off,
        }
    }
}

/// A system's symmetry, as decided for a job.
pub enum Reduction {
    /// None was asked for.
    Off,
    /// The types asked for have nothing to permute: why, in words. A
    /// search is not reduced; a view still shows the (trivial) symmetry.
    Trivial {
        system: Box<SystemSymmetry>,
        why: String,
    },
    /// Reduced: the machine under the symmetry, with its strategy,
    /// lendable to the search's threads.
    Reduced(Lendable<SystemSymmetry>),
    /// The types asked for are not symmetric in the script: each use
    /// that breaks it, at its place.
    Refused(Vec<Diagnostic>),
    /// The machine is not symmetric in the types (Section 6.1).
    NotMappable {
        symmetry: Arc<Symmetry>,
        refusal: NotMappable,
    },
    /// Reduced by the validated group of the system's communication
    /// structure: the canonicaliser, the group's order, how it was
    /// found.
    Structural {
        reduction: Box<StructuralReduction>,
        how: String,
    },
    /// The structural group was asked for and does nothing (or cannot be
    /// enumerated): why.
    NoStructure(String),
}

/// What a search is reduced by, as its job decided it: once, when the
/// job is prepared ([`crate::check::task::Plan`]), and carried to every
/// engine, thread, worker and process, none of which decides it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reducing {
    /// Not reduced.
    Not,
    /// Distinguished datatypes, with a strategy's representatives.
    Types(Arc<Symmetry>, Strategy),
    /// The validated group of the implementation's communication
    /// structure (for a check, cut to the specification's stabiliser).
    Structure,
}

impl Reducing {
    /// Whether several threads can find its representatives at once,
    /// reading only ([`Canonicaliser::shared`]): none to find, or the
    /// datatypes' under a strategy that runs on threads; not the
    /// structural group's.
    ///
    /// [`Canonicaliser::shared`]: crate::lts::search::Canonicaliser::shared
    pub fn runs_on_threads(&self) -> bool {
        match self {
            Reducing::Not => true,
            Reducing::Types(_, strategy) => strategy.runs_on_threads(),
            Reducing::Structure => false,
        }
    }

    /// What a system built for a job is reduced by: its datatypes or its
    /// structure, when it is reduced.
    pub fn of(reduction: &Reduction) -> Reducing {
        match reduction {
            Reduction::Reduced(system) => {
                let system = system.get();
                Reducing::Types(Arc::new(system.symmetry().clone()), system.strategy())
            }
            Reduction::Structural { .. } => Reducing::Structure,
            _ => Reducing::Not,
        }
    }

    /// The datatypes and strategy, when reduced by datatypes.
    pub fn types(&self) -> Option<(&Arc<Symmetry>, Strategy)> {
        match self {
            Reducing::Types(symmetry, strategy) => Some((symmetry, *strategy)),
            _ => None,
        }
    }
}

impl Reduction {
    /// Works out the types `reduce` asks for over what `roots` depend on
    /// (without evaluating the script's constants) — `Ok(None)` when it
    /// asks for none — or every use that breaks them.
    pub fn decide(
        script: &Script,
        eval: &Evaluator,
        reduce: &Reduce,
        roots: &[FuncId],
    ) -> Result<Option<Symmetry>, Vec<Diagnostic>> {
        reduce.resolve(script, eval, roots)
    }

    /// The reduction of `machine` by `symmetry` under `strategy`: checked
    /// to be mappable, or trivial when there is nothing to permute. Call
    /// it before any state of the machine is stored.
    pub fn of_machine(
        script: &Script,
        symmetry: Arc<Symmetry>,
        strategy: Strategy,
        machine: &mut Machine,
        procs: &mut Processes,
    ) -> Reduction {
        let trivial = symmetry.is_trivial().then(|| symmetry.why_trivial(script));
        match SystemSymmetry::new(symmetry.clone(), machine, procs) {
            Ok(system) => {
                let system = system.with_strategy(strategy);
                match trivial {
                    Some(why) => Reduction::Trivial {
                        system: Box::new(system),
                        why,
                    },
                    None => Reduction::Reduced(Lendable::new(system)),
                }
            }
            Err(refusal) => Reduction::NotMappable { symmetry, refusal },
        }
    }

    /// The system's symmetry when it is reduced by datatypes.
    pub fn system(&mut self) -> Option<&mut SystemSymmetry> {
        match self {
            Reduction::Reduced(system) => Some(system.get_mut()),
            _ => None,
        }
    }

    /// What a search reduces by, when it reduces: datatypes or the
    /// structural group.
    pub fn canonicaliser(&mut self) -> Option<&mut dyn crate::lts::search::Canonicaliser> {
        match self {
            Reduction::Reduced(system) => Some(system),
            Reduction::Structural { reduction, .. } => Some(&mut **reduction),
            _ => None,
        }
    }

    /// The part of its canonicaliser that several threads may run at
    /// once, reading only, if it reduces and has one.
    pub fn shared_canonicaliser(&self) -> Option<&dyn crate::lts::search::SharedCanonicaliser> {
        use crate::lts::search::Canonicaliser;
        match self {
            Reduction::Reduced(system) => system.shared(),
            Reduction::Structural { reduction, .. } => reduction.shared(),
            _ => None,
        }
    }

    /// The structural reduction of `machine`: its validated group, or
    /// why there is none to reduce by.
    pub fn structural(machine: &mut Machine, procs: &mut Processes) -> EvalResult<Reduction> {
        // A component that fails on its own (it reads a value the rest
        // of the system never sends it) leaves the structure unknown: the
        // system is not reduced by it, and says why.
        let structure = match structural::analyse(machine, procs) {
            Ok(structure) => structure,
            Err(e) if e.stop_reason().is_none() => {
                return Ok(Reduction::NoStructure(format!(
                    "its structure could not be analysed: {} ({})",
                    e.message,
                    e.notes.last().map_or("", String::as_str)
                )));
            }
            Err(e) => return Err(e),
        };
        if structure.is_trivial() {
            return Ok(Reduction::NoStructure(
                "no symmetry of its structure that validates moves a component (`symcsp \
                 symmetries` lists the candidates and why each fails)"
                    .to_string(),
            ));
        }
        let Some(elements) = structure.elements else {
            return Ok(Reduction::NoStructure(format!(
                "the structural group is too large to reduce by: {} elements, where symcsp \
                 lists at most {}",
                structure.order,
                structural::group::MAX_ELEMENTS
            )));
        };
        let how = structure.how;
        let reduction = StructuralReduction::new(elements, &structure.graph, machine);
        Ok(Reduction::Structural {
            reduction: Box::new(reduction),
            how,
        })
    }

    /// Why the system is not reduced, as a diagnostic at `process`, when
    /// it was asked to be and cannot be; `None` when it is reduced, was
    /// not asked to be, or has nothing to permute.
    pub fn refusal(&self, script: &Script, process: FuncId) -> Option<Vec<Diagnostic>> {
        match self {
            Reduction::Refused(problems) => Some(problems.clone()),
            Reduction::NotMappable { symmetry, refusal } => {
                Some(vec![refusal.diagnostic(script, process, symmetry)])
            }
            Reduction::NoStructure(why) => Some(vec![Diagnostic::error(
                script.function(process).span,
                format!("this process is not reduced by its structure: {why}"),
            )]),
            _ => None,
        }
    }

    /// The symmetry decided on, reduced or not.
    pub fn symmetry(&self) -> Option<&Symmetry> {
        match self {
            Reduction::Trivial { system, .. } => Some(system.symmetry()),
            Reduction::Reduced(system) => Some(system.get().symmetry()),
            Reduction::NotMappable { symmetry, .. } => Some(symmetry),
            Reduction::Off
            | Reduction::Refused(_)
            | Reduction::Structural { .. }
            | Reduction::NoStructure(_) => None,
        }
    }
}

/// The system a job searches or animates.
pub struct SearchSystem<'s> {
    pub procs: Processes<'s>,
    pub root: ProcId,
    pub machine: Machine,
    pub reduction: Reduction,
}

impl<'s> SearchSystem<'s> {
    /// Builds process `func` of `script` within `meter` (loading its
    /// events and compiling it), and its reduction as `reduce` asks,
    /// under `strategy`: the types decided over the process alone, as a
    /// view or an exploration of it asks.
    pub fn build(
        script: &'s Script,
        func: FuncId,
        reduce: &Reduce,
        strategy: Strategy,
        meter: Meter,
    ) -> EvalResult<SearchSystem<'s>> {
        let (mut procs, root) = Processes::with_root_within(script, func, meter)?;
        let mut machine = Machine::new(&mut procs, root)?;
        let reduction = if *reduce == Reduce::Structural {
            Reduction::structural(&mut machine, &mut procs)?
        } else {
            match Reduction::decide(script, procs.evaluator(), reduce, &[func]) {
                Ok(None) => Reduction::Off,
                Ok(Some(symmetry)) => Reduction::of_machine(
                    script,
                    Arc::new(symmetry),
                    strategy,
                    &mut machine,
                    &mut procs,
                ),
                Err(problems) => Reduction::Refused(problems),
            }
        };
        Ok(SearchSystem {
            procs,
            root,
            machine,
            reduction,
        })
    }

    /// Builds process `func` of `script` on `procs` (within their
    /// meter), τ and ✓ taking priority over the events of the set
    /// `priority` (a constant of the script) when given, as an
    /// assertion's `:[tau priority]:` asks, and applies the reduction
    /// decided for the job (`reducing`, [`Reduction::planned`]): nothing
    /// is decided here. The one search and every worker build a check's
    /// system so.
    pub fn build_reduced(
        mut procs: Processes<'s>,
        (func, priority): (FuncId, Option<FuncId>),
        reducing: &Reducing,
    ) -> EvalResult<SearchSystem<'s>> {
        let (root, mut machine) = compiled(&mut procs, (func, priority))?;
        let reduction = Reduction::planned(reducing, &mut machine, &mut procs)?;
        Ok(SearchSystem {
            procs,
            root,
            machine,
            reduction,
        })
    }
}

/// Process `func` compiled on `procs`, τ and ✓ taking priority over the
/// events of the set `priority` (a constant of the script) when given:
/// its root and its machine.
pub fn compiled(
    procs: &mut Processes,
    (func, priority): (FuncId, Option<FuncId>),
) -> EvalResult<(ProcId, Machine)> {
    let script = procs.evaluator().script();
    let root = procs.root(func)?;
    let mut machine = Machine::new(procs, root)?;
    if let Some(set) = priority {
        let value = procs.evaluator().eval_constant(set)?;
        let set = procs.event_set(&value, script.function(set).span)?;
        machine.set_tau_priority(procs.set(set).clone());
    }
    Ok((root, machine))
}

impl Reduction {
    /// `machine` reduced as a job decided (`reducing`): the types mapped
    /// onto it (Section 6.1), which the job's preparation found them to
    /// be, or its structural group found again, as its preparation found
    /// it. Call it before any state of the machine is stored.
    pub fn planned(
        reducing: &Reducing,
        machine: &mut Machine,
        procs: &mut Processes,
    ) -> EvalResult<Reduction> {
        Ok(match reducing {
            Reducing::Not => Reduction::Off,
            Reducing::Types(symmetry, strategy) => {
                let script = procs.evaluator().script();
                Reduction::of_machine(script, symmetry.clone(), *strategy, machine, procs)
            }
            Reducing::Structure => Reduction::structural(machine, procs)?,
        })
    }
}

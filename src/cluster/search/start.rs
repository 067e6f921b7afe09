//! What a worker starts its search from: the system it searches, built
//! on its process's ground as the job's plan says (reduced as planned,
//! by partial order where asked), and in a check its judging. Nothing
//! here decides what the search is reduced by; a system that does not
//! take the plan's reduction is an internal error.

use crate::budget::Meter;
use crate::check::task::Plan;
use crate::check::{REDUCING_BY_PARTIAL_ORDER, Reduced};
use crate::eval::EvalError;
use crate::lts::machine::Machine;
use crate::process::{ProcId, Processes};
use crate::symmetry::search_system::{Reduction, SearchSystem};

use super::super::ClusterError;
use super::super::ground::{COMPILING, Ground, StartProblem, rendered, stopped_or_rendered};
use super::super::judge::Judging;
use super::NORMALISING;
use super::system::System;

/// A worker's own system and what goes with it.
pub(super) struct Started<'g> {
    pub built: SearchSystem<'g>,
    /// What partial order reduction did, when asked for.
    pub partial_order: Option<String>,
    pub judging: Option<Judging>,
    pub stopped_early: Option<StoppedEarly>,
    pub reduced: Option<Reduced>,
}

/// A budget that stopped the specification's normalisation: its code
/// and stage, for the first round.
pub(super) type StoppedEarly = (u8, String);

/// Why a worker could not start: a problem every worker reports at the
/// first round, or an error of its own.
pub(super) enum NotStarted {
    AtStart(StartProblem),
    Failed(ClusterError),
}

/// The system every worker of a process shares, as the plan says, and
/// what partial order reduction did to it.
pub(super) fn shared_system<'g>(
    ground: &'g Ground,
    plan: &Plan,
    meter: &Meter,
) -> Result<(System<'g>, Option<String>), StartProblem> {
    let (mut built, partial_order) = built(ground, plan, meter)?;
    reduced_as_planned(&built.reduction, plan, false)?;
    built.procs.replace_meter(meter.clone());
    Ok((System::new(built, true), partial_order))
}

/// Worker `me`'s own system, with its judging in a check.
pub(super) fn own_system<'g>(
    ground: &'g Ground,
    plan: &Plan,
    (me, meter): (usize, &Meter),
) -> Result<Started<'g>, NotStarted> {
    let script = ground.script();
    let (mut built, partial_order) = built(ground, plan, meter).map_err(NotStarted::AtStart)?;
    built.procs.replace_meter(meter.clone());
    let (judging, stopped_early) = judging_on(
        ground,
        plan,
        (&built.machine, &mut built.procs, built.root),
        me,
    )?;
    // A check against a normal form keeps only the structural
    // symmetries its specification is invariant under, as one search
    // does (the plan says the group it came to).
    let structural = matches!(
        built.reduction,
        Reduction::Structural { .. } | Reduction::NoStructure(_)
    );
    if let (Some(judging), true) = (&judging, structural) {
        let found = std::mem::replace(&mut built.reduction, Reduction::Off);
        let cut = crate::check::cut_to_specification(
            &mut built.procs,
            found,
            &*judging.product.spec,
            judging.spec_process,
        );
        match cut {
            Ok(Ok((kept, how))) => {
                built.reduction = Reduction::Structural {
                    reduction: Box::new(kept),
                    how,
                }
            }
            Ok(Err(_)) => {}
            Err(e) => {
                return Err(NotStarted::AtStart(stopped_at(
                    &e,
                    script,
                    crate::check::DECIDING_SYMMETRY,
                )));
            }
        }
    }
    // `:[has trace]:` reduced by the types follows the bijection of the
    // values its trace names, which its specification holds.
    let trace_unfollowed = judging.as_ref().is_some_and(|j| {
        j.walks_trace() && plan.reducing.types().is_some() && !j.product.spec.is_symmetric()
    });
    let reduced = reduced_as_planned(&built.reduction, plan, trace_unfollowed)
        .map_err(NotStarted::AtStart)?;
    Ok(Started {
        built,
        partial_order,
        judging,
        stopped_early,
        reduced,
    })
}

/// Worker `me`'s judging of the job's check on a system (`machine`,
/// `procs`, `root`: its own, or the one its process's workers share),
/// the specification evaluated there; or, when a budget stopped its
/// normalisation, that stop's code and stage, which stops every worker
/// at the first round, alike.
pub(super) fn judging_on(
    ground: &Ground,
    plan: &Plan,
    (machine, procs, root): (&Machine, &mut Processes, ProcId),
    me: usize,
) -> Result<(Option<Judging>, Option<StoppedEarly>), NotStarted> {
    let symmetry = plan.reducing.types().map(|(symmetry, _)| symmetry.clone());
    let priority = machine.tau_priority().cloned();
    let made = Judging::new(
        ground.task.goal,
        (procs, root, priority),
        machine.components(),
        symmetry,
    );
    match made {
        Ok(judging) => Ok((judging, None)),
        Err(e) => match e.stop_reason() {
            Some(stop) => Ok((
                None,
                Some((
                    stop.code(),
                    e.stage.clone().unwrap_or(NORMALISING.to_string()),
                )),
            )),
            None => Err(NotStarted::Failed(ClusterError::Worker {
                worker: me,
                message: rendered(&e, &ground.script().sources),
            })),
        },
    }
}

/// The job's process built on the ground, reduced as planned, and by
/// partial order where asked: every worker reduces alike (a state's
/// stubborn set is a function of the state), so the workers search one
/// reduced graph between them, the one search's.
fn built<'g>(
    ground: &'g Ground,
    plan: &Plan,
    meter: &Meter,
) -> Result<(SearchSystem<'g>, Option<String>), StartProblem> {
    let (script, prepared) = (ground.script(), &ground.task);
    let mut built = SearchSystem::build_reduced(
        ground.processes(meter.clone()),
        (prepared.process, prepared.priority),
        &plan.reducing,
    )
    .map_err(|e| stopped_or_rendered(&e, &script.sources, COMPILING))?;
    let partial_order = prepared
        .reduce_by_partial_order(&mut built.procs, &mut built.machine)
        .map_err(|e| stopped_at(&e, script, REDUCING_BY_PARTIAL_ORDER))?;
    Ok((built, partial_order))
}

/// An error met at `stage`: a stop there, or its diagnostic.
fn stopped_at(e: &EvalError, script: &crate::script::Script, stage: &str) -> StartProblem {
    match e.stop_reason() {
        Some(stop) => Ok((stop, stage.to_string())),
        None => Err(rendered(e, &script.sources)),
    }
}

/// What `reduction` reduces by, which must be what the plan says.
fn reduced_as_planned(
    reduction: &Reduction,
    plan: &Plan,
    trace_unfollowed: bool,
) -> Result<Option<Reduced>, StartProblem> {
    let reduced = Reduced::of_reduction(reduction);
    if reduced == plan.reduced && !trace_unfollowed {
        return Ok(reduced);
    }
    let name = |r: &Option<Reduced>| r.as_ref().map_or("none".to_string(), Reduced::type_list);
    Err(Err(format!(
        "internal error: this worker's system does not take the job's reduction ({})",
        match reduction {
            Reduction::NotMappable { refusal, .. } => refusal.problems.join("; "),
            Reduction::NoStructure(why) => why.clone(),
            _ if trace_unfollowed => "the trace's values cannot be followed".to_string(),
            _ => format!("planned {}, found {}", name(&plan.reduced), name(&reduced)),
        }
    )))
}

//! What the workers of one process share before they search: the script,
//! as the command line loaded and prepared it for the job, and the
//! grounds of its processes (its evaluation, its event table). The first
//! worker to need it makes it; the others wait for it and build their
//! systems on it, so nothing is loaded, type-checked or evaluated once
//! per worker, and the script is loaded once per process.

use std::sync::{Arc, OnceLock};

use crate::budget::{Meter, Stopped};
use crate::check::task::Task;
use crate::eval::{EvalError, Evaluator};
use crate::process::{Grounds, Processes};
use crate::script::Script;

use super::Job;

/// The script a process's workers search, prepared for their job.
pub struct Ground {
    /// Held apart so that its address stays as the evaluation knows it.
    script: Arc<Script>,
    /// What the script asks for, the job's plan's task.
    pub task: Task,
    grounds: Grounds,
}

/// Why workers could not begin: stopped by a budget at a stage
/// (`Ok((stop, stage))`) or by an error (`Err(message)`).
pub type StartProblem = Result<(Stopped, String), String>;

/// The ground of one process's workers, made by the first that asks.
#[derive(Default, Clone)]
pub struct SharedGround(Arc<OnceLock<Result<Arc<Ground>, StartProblem>>>);

impl SharedGround {
    /// The ground for `job`, made within `meter` if no worker made it
    /// yet; every worker of the process gets the same one, or the same
    /// problem.
    pub fn get(&self, job: &Job, meter: &Meter) -> Result<&Ground, StartProblem> {
        match self.0.get_or_init(|| make(job, meter)) {
            Ok(ground) => Ok(ground),
            Err(problem) => Err(problem.clone()),
        }
    }
}

impl Ground {
    pub fn script(&self) -> &crate::script::Script {
        &self.script
    }

    /// A worker's processes on the ground, evaluating within `meter`.
    pub fn processes(&self, meter: Meter) -> Processes<'_> {
        Processes::on(&self.script, &self.grounds, meter)
    }
}

/// What stops a worker before its search names (as one search's stops
/// do) when the error does not.
pub const COMPILING: &str = "compiling the process";

fn make(job: &Job, meter: &Meter) -> Result<Arc<Ground>, StartProblem> {
    // The job's plan decided what the search is reduced by; the workers
    // apply it. A plan not settled by a system is a bug, never a second
    // opinion.
    let plan = &*job.plan;
    if !plan.settled {
        return Err(Err(
            "internal error: the job's plan was not settled before the workers started".to_string(),
        ));
    }
    let (script, task) = (job.script.clone(), plan.task.clone());
    let evaluator = Evaluator::new(&script).with_meter(meter.clone());
    // The process before the channels, as one search reports their
    // errors.
    if let Err(e) = evaluator.eval_constant(task.process) {
        return Err(stopped_or_rendered(&e, &script.sources, COMPILING));
    }
    let grounds = match Processes::with_evaluator(evaluator) {
        Ok(processes) => processes.grounds(),
        Err(e) => return Err(stopped_or_rendered(&e, &script.sources, COMPILING)),
    };
    Ok(Arc::new(Ground {
        script,
        task,
        grounds,
    }))
}

/// An error of a worker's start as its problem: a stop at the stage the
/// error names (or `stage`), or the error's diagnostic, rendered.
pub fn stopped_or_rendered(
    e: &EvalError,
    sources: &crate::syntax::SourceMap,
    stage: &str,
) -> StartProblem {
    match e.stop_reason() {
        Some(stop) => Ok((stop, e.stage.clone().unwrap_or(stage.to_string()))),
        None => Err(rendered(e, sources)),
    }
}

/// An evaluation error as the worker's message: its diagnostic, rendered.
pub fn rendered(e: &EvalError, sources: &crate::syntax::SourceMap) -> String {
    crate::syntax::render_all(&[e.to_diagnostic()], sources)
        .trim_end()
        .to_string()
}

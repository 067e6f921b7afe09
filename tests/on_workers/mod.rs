//! Checks and explorations on the cluster's workers, in this process,
//! set up as the command line sets them up: the script loaded and
//! prepared once, the job planned on it ([`symcsp::check::plan`]), every
//! worker searching that script and applying the plan.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use symcsp::check::task::{Plan, Task};
use symcsp::check::{Asked, CheckResult, Planned};
use symcsp::cluster::{ClusterExploration, Job, Topology};
use symcsp::lts::Budget;
use symcsp::symmetry::search_system::{About, Purpose, SearchSystem};
use symcsp::symmetry::spec::Reduce;
use symcsp::symmetry::strategy::Strategy;
use symcsp::syntax::Diagnostic;
use symcsp::types::Loaded;

/// What is asked of a check, as the command line's options ask it.
#[derive(Debug, Clone, Default)]
pub struct Asking {
    /// `--symmetry`, as text.
    pub symmetry: Option<String>,
    pub strategy: Strategy,
    /// `--por on|off`.
    pub por: Option<bool>,
}

/// The reduction `--symmetry text` asks for, its types added to the
/// script `loaded` holds.
fn requested(loaded: &mut Loaded, symmetry: &Option<String>) -> Result<Option<Reduce>, String> {
    match symmetry {
        Some(text) => Reduce::requested(&mut loaded.script, text).map(Some),
        None => Ok(None),
    }
}

/// How a check on workers came out: the workers' search, or the check's
/// result when a budget stopped it while it was planned.
pub type OnWorkers = Result<ClusterExploration, Box<CheckResult>>;

/// Assertion `index` of `file` checked on `workers` threads of this
/// process, each expanding at most `round_states` states a round; a
/// refusal while planning, or an error of the workers (said at the
/// assertion, as the command line says it), is the check's error.
pub fn check(
    (file, index): (&str, usize),
    asking: &Asking,
    budget: Budget,
    (workers, round_states): (usize, usize),
) -> Result<OnWorkers, Diagnostic> {
    let (job, span) = match job((file, index), asking, budget, round_states)? {
        Ok(planned) => planned,
        Err(stopped) => return Ok(Err(stopped)),
    };
    symcsp::cluster::explore(&job, &Topology::local(workers))
        .map(Ok)
        .map_err(|e| Diagnostic::error(span, e.to_string()))
}

/// The job that checks assertion `index` of `file`, as the command line
/// plans it, and the assertion's place; the check's result instead when
/// a budget stopped it while it was planned.
pub fn job(
    (file, index): (&str, usize),
    asking: &Asking,
    budget: Budget,
    round_states: usize,
) -> Result<Result<(Job, symcsp::syntax::Span), Box<CheckResult>>, Diagnostic> {
    let mut loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let asked = Asked {
        symmetry: requested(&mut loaded, &asking.symmetry).expect("--symmetry reads"),
        strategy: asking.strategy,
        por: asking.por,
    };
    let planned = symcsp::stack::with_large_stack(|| {
        symcsp::check::plan(&loaded.script, index, &asked, &budget)
    })?;
    let plan = match planned {
        Planned::Plan(plan) => plan,
        Planned::Stopped(result) => return Ok(Err(result)),
        Planned::Static => panic!("{file} #{index}: a static check searches nothing"),
    };
    let span = loaded.script.assertions[index].span;
    let job = Job {
        script: Arc::new(loaded.script),
        plan: Arc::new(plan),
        budget,
        options: String::new(),
        connect_wait: Duration::from_secs(5),
        round_states,
    };
    Ok(Ok((job, span)))
}

/// Explores `process` of `file` on `workers` threads of this process,
/// each expanding at most `round_states` states a round, reduced as
/// `symmetry` asks.
pub fn explore(
    (file, process): (&str, &'static str),
    symmetry: Option<&'static str>,
    (workers, round_states): (usize, usize),
) -> symcsp::lts::Exploration {
    let mut loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let func = loaded
        .add_expr("<process>", process, symcsp::types::Expect::Process)
        .expect("the process type-checks");
    let asked = requested(&mut loaded, &symmetry.map(str::to_string)).expect("--symmetry reads");
    let reduce = Reduce::chosen(
        &loaded.script,
        asked.as_ref(),
        Purpose::Explore,
        About::Process(process),
    );
    let task = Task::explore(func, reduce);
    let budget = Budget::default();
    let built = symcsp::stack::with_large_stack(|| {
        SearchSystem::build(
            &loaded.script,
            task.process,
            &task.reduce,
            Strategy::default(),
            budget.meter(),
        )
        .map(|built| Plan::explored(task, &built.reduction))
    })
    .expect("builds");
    let job = Job {
        script: Arc::new(loaded.script),
        plan: Arc::new(built),
        budget,
        options: String::new(),
        connect_wait: Duration::from_secs(5),
        round_states,
    };
    symcsp::cluster::explore(&job, &Topology::local(workers))
        .expect("explores")
        .exploration
}

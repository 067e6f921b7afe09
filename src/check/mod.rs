//! Checking a script's assertions: refinement in the traces, failures
//! and failures-divergences models, deadlock and divergence freedom,
//! determinism and `:[has trace]:`, with FDR's verdicts and
//! counterexamples, in the calling thread or on a worker.
//!
//! Every check is one breadth-first search of a product (see
//! [`product`]): the specification is normalised on the fly
//! ([`normal`]), and the properties are refinements against fixed
//! specifications. Counterexamples ([`counterexample`]) are shortest
//! paths (τ included) read back through the search's parent pointers.
//! Uses the process and LTS layers; knows nothing of the user interface.

pub mod counterexample;
mod ignored;
pub mod normal;
pub mod prepare;
pub mod product;
mod searched;
pub use searched::trace_evidence;
pub(crate) use searched::{breach_beside, cut_to_specification};
mod shared_judge;
pub mod spec;
pub mod structural;
pub mod task;
pub mod trace;
pub mod unwind;
pub mod wording;
pub mod worker;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::eval::{EvalError, Value};
use crate::lts::machine::Machine;
use crate::lts::search::{Budget, Live, Outcome, Search, Stopped};
use crate::process::{EventId, EventSet, ProcId, Processes};
use crate::script::Script;
use crate::script::ir::{AssertOption, Assertion, AssertionKind, FuncId};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::symmetry::{NotMappable, Origin, Symmetry};
use crate::syntax::ast::Model;
use crate::syntax::{Diagnostic, Span};

use counterexample::{Counterexample, RowPath};
use normal::Normaliser;
use product::{Breach, Product};
use spec::{NormalForm, Refines, RefusalTesting, Revivals, Specification};
use task::{Plan, Reducing, Task};

/// An assertion's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    /// The search stopped (budget, time-out, cancel) before it could
    /// tell.
    Inconclusive(Stopped),
}

impl Verdict {
    /// FDR's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "Passed",
            Verdict::Failed => "Failed",
            Verdict::Inconclusive(_) => "Inconclusive",
        }
    }
}

/// What checking one assertion found.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub verdict: Verdict,
    pub states: u64,
    pub transitions: u64,
    /// The deepest breadth-first level reached.
    pub depth: u32,
    pub seconds: f64,
    /// The behaviour behind the verdict: the counterexample of a failed
    /// check (also kept when `assert not` turns that into a pass), or the
    /// witness of a trace the process has.
    pub counterexample: Option<Counterexample>,
    /// Remarks on how the check was done (options not applied, ...).
    pub notes: Vec<String>,
    /// What decided a static check, each at its place in the script
    /// (for `:[symmetric]:`, every use that breaks symmetry).
    pub reasons: Vec<Diagnostic>,
    /// Whether the verdict came from a search (otherwise a static check:
    /// no states were explored).
    pub searched: bool,
    /// What the search was reduced by, when it was: its states are then
    /// representatives of symmetry classes.
    pub symmetry: Option<Reduced>,
    /// For an inconclusive check, the stage a budget stopped it in
    /// (`working out the channels' events`, `deciding symmetry`, `compiling `P``,
    /// `normalising the specification`, `searching`).
    pub stage: Option<String>,
}

/// What a reduced check was reduced by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduced {
    /// Each distinguished type's name and number of values.
    pub types: Vec<(String, usize)>,
    /// The order of the group, `3!·2!·2! = 24`.
    pub group_order: crate::symmetry::spec::GroupOrder,
    /// Where the types came from.
    pub origin: Origin,
    /// How its representatives were found.
    pub strategy: Strategy,
    /// For a check reduced by the implementation's structure instead of
    /// datatypes (`types` then empty): the group's order and how it was
    /// found.
    pub structure: Option<(usize, String)>,
}

impl Reduced {
    pub(crate) fn of(symmetry: &Symmetry, strategy: Strategy) -> Reduced {
        Reduced {
            structure: None,
            types: symmetry
                .types()
                .iter()
                .map(|t| (t.name.clone(), t.values.len()))
                .collect(),
            group_order: symmetry.group_order(),
            origin: symmetry.origin.clone(),
            strategy,
        }
    }

    /// A reduction by the structural group `how` found, of `order`.
    pub(crate) fn structural(order: usize, how: String) -> Reduced {
        Reduced {
            types: Vec::new(),
            group_order: Default::default(),
            origin: Origin::CommandLine,
            strategy: Strategy::Exact,
            structure: Some((order, how)),
        }
    }

    /// What a system built for a job is reduced by, when it is: its
    /// datatypes or its structural group.
    pub(crate) fn of_reduction(
        reduction: &crate::symmetry::search_system::Reduction,
    ) -> Option<Reduced> {
        use crate::symmetry::search_system::Reduction;
        match reduction {
            Reduction::Reduced(system) => Some(Reduced::of(
                system.get().symmetry(),
                system.get().strategy(),
            )),
            Reduction::Structural { reduction, how } => {
                Some(Reduced::structural(reduction.order(), how.clone()))
            }
            _ => None,
        }
    }

    /// The group's order, in digits.
    pub fn order_text(&self) -> String {
        match &self.structure {
            Some((order, _)) => order.to_string(),
            None => self.group_order.value().to_string(),
        }
    }

    /// `NodeID (3), Data (2), ThreadID (2)`, or for a structural group
    /// `its structure (rotations of ...)`.
    pub fn type_list(&self) -> String {
        if let Some((_, how)) = &self.structure {
            return format!("its structure ({how})");
        }
        self.types
            .iter()
            .map(|(name, size)| format!("{name} ({size})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The assertion's text as written, on one line and without comments.
pub fn assertion_text(script: &Script, index: usize) -> String {
    let span = script.assertions[index].span;
    // The assertion's span may run over a comment after it.
    crate::syntax::one_line(&crate::syntax::without_comments(
        script.sources.snippet(span),
    ))
}

/// Checks assertion `index` of `script` within `budget`, reduced by
/// symmetry when the assertion asks for it. Evaluation recurses: call it
/// on a thread with a large stack ([`crate::stack::with_large_stack`],
/// or a [`worker`]).
pub fn check(script: &Script, index: usize, budget: &Budget) -> Result<CheckResult, Diagnostic> {
    check_with(script, index, budget, &Asked::default())
}

/// Checks assertion `index` of `script` within `budget`, reduced as
/// `reduce` says (`None`: as the assertion's `:[symmetry reduce]` says),
/// with FDR's representatives ([`check_with`] takes a strategy).
pub fn check_reduced(
    script: &Script,
    index: usize,
    budget: &Budget,
    reduce: Option<&Reduce>,
) -> Result<CheckResult, Diagnostic> {
    let asked = Asked {
        symmetry: reduce.cloned(),
        strategy: Strategy::Fdr,
        por: None,
    };
    check_with(script, index, budget, &asked)
}

/// How a check is asked to be reduced: the symmetry (`None`: as the
/// assertion says, by the one rule, [`Reduce::chosen`]) and the
/// representative strategy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asked {
    pub symmetry: Option<Reduce>,
    pub strategy: Strategy,
    /// Partial order reduction, on or off whatever the assertion says
    /// (`None`: as its `:[partial order reduce]` says).
    pub por: Option<bool>,
}

/// Checks assertion `index` of `script` within `budget`, reduced as
/// `asked` says (its symmetry `None`: as the assertion's `:[symmetry
/// reduce]` says), with its strategy's representatives. Types that are
/// not constant-free, or a system that is not symmetric in them, make it
/// an error naming why: it is never checked reduced then, nor silently
/// unreduced.
pub fn check_with(
    script: &Script,
    index: usize,
    budget: &Budget,
    asked: &Asked,
) -> Result<CheckResult, Diagnostic> {
    check_keeping(script, index, budget, asked).map(|(result, _)| result)
}

/// [`check_with`], and the processes its search made when it found a
/// counterexample: they name what the counterexample's ids stand for, so
/// that describing it need not make them again (on a script of a few
/// hundred thousand events, half of a failing check's time).
pub fn check_keeping<'s>(
    script: &'s Script,
    index: usize,
    budget: &Budget,
    asked: &Asked,
) -> Result<(CheckResult, Option<Processes<'s>>), Diagnostic> {
    // The whole memory budget: not what an earlier check that stopped
    // is still freeing.
    crate::budget::wait_for_frees();
    // One clock for every part of the check: loading the processes,
    // normalising, every search.
    let budget = &budget.started();
    // What went wrong with the spill folder in an earlier check is
    // forgotten: each check stands on its own searches.
    if let Some(spill) = &budget.spill {
        spill.begin();
    }
    let started = std::time::Instant::now();
    let assertion = &script.assertions[index];
    let mut plan = match decide(script, index, asked, budget)? {
        Planned::Plan(plan) => plan,
        Planned::Static => {
            let AssertionKind::Symmetric { process, types } = &assertion.kind else {
                unreachable!("only `:[symmetric]:` searches nothing")
            };
            return symmetric(script, assertion, *process, types).map(|result| (result, None));
        }
        Planned::Stopped(result) => return Ok((*result, None)),
    };
    if let Some(live) = &budget.live {
        // Set once: a check decides once.
        let _ = live.decided.set(decided_text(&plan));
    }
    let mut stage = None;
    let mut kept = None;
    let result = run(script, &mut plan, budget, &mut kept);
    let mut notes = options(assertion, asked.symmetry.as_ref());
    notes.extend(plan.notes.iter().cloned());
    let reduced = plan
        .reduced
        .clone()
        .or_else(|| (!plan.settled).then(|| reported(&plan.reducing)).flatten());
    let result = match result {
        Ok(answer) => answer,
        // Stopped outside a search (loading, normalising, a
        // counterexample's witness): inconclusive with the counts the
        // search published, if it had begun.
        Err(Failure::Eval(e)) if e.stop_reason().is_some() || spill_failed(budget) => {
            let outcome = published(budget, started.elapsed().as_secs_f64(), &e);
            stage = e.stage.clone();
            (None, outcome, None)
        }
        Err(failure) => return Err(failure.into_diagnostic(script, assertion)),
    };
    // A spill folder that failed may have handed the search wrong rows:
    // nothing found since stands.
    let result = match budget.spill.as_ref().and_then(|spill| spill.failure()) {
        Some(failure) => {
            let (_, mut outcome, _) = result;
            outcome.stopped = Some(Stopped::Disk);
            if !outcome.notes.contains(&failure) {
                outcome.notes.push(failure);
            }
            (None, outcome, None)
        }
        None => result,
    };
    let (holds, outcome, counterexample) = result;
    notes.extend(outcome.notes.iter().cloned());
    let counterexample = counterexample.filter(|_| shown(holds, assertion.negated));
    let verdict = match (holds, outcome.stopped) {
        (Some(holds), _) if holds != assertion.negated => Verdict::Passed,
        (Some(_), _) => Verdict::Failed,
        (None, stopped) => Verdict::Inconclusive(stopped.unwrap_or(Stopped::Cancelled)),
    };
    if let Verdict::Inconclusive(_) = verdict {
        stage = stage.or_else(|| Some(SEARCHING.to_string()));
    }
    let kept = kept.filter(|_| counterexample.is_some());
    let result = CheckResult {
        verdict,
        states: outcome.states,
        transitions: outcome.transitions,
        depth: outcome.depth,
        seconds: outcome.seconds,
        counterexample,
        notes,
        reasons: Vec::new(),
        searched: true,
        symmetry: reduced,
        stage,
    };
    Ok((result, kept))
}

/// What planning a check came to.
pub enum Planned {
    /// What the search is to do and what it is reduced by.
    Plan(Plan),
    /// A static check (`:[symmetric]:`): it searches nothing.
    Static,
    /// A budget stopped it while it decided: the check's result.
    Stopped(Box<CheckResult>),
}

/// What assertion `index` of `script` asks a search to do, reduced as
/// `asked` says, and what the script says it is reduced by
/// ([`Plan::decide`]); or why the types asked for are not symmetric, at
/// the assertion with each use that breaks them at its place.
fn decide(
    script: &Script,
    index: usize,
    asked: &Asked,
    budget: &Budget,
) -> Result<Planned, Diagnostic> {
    let started = std::time::Instant::now();
    let assertion = &script.assertions[index];
    let Some(mut task) = Task::of_assertion(script, index, asked.symmetry.as_ref()) else {
        return Ok(Planned::Static);
    };
    task.por = asked.por.unwrap_or(task.por);
    // Deciding symmetry evaluates the types asked for: a budget that
    // stops it (its problems then being that it stopped) stops the check.
    let meter = budget.meter();
    let decided = Plan::decide(script, task, asked.strategy, &meter);
    if let Some(stop) = meter.stopped().or_else(|| meter.poll().err()) {
        let mut notes = options(assertion, asked.symmetry.as_ref());
        if let Ok(plan) = &decided {
            notes.extend(plan.notes.iter().cloned());
        }
        return Ok(Planned::Stopped(Box::new(CheckResult::stopped(
            stop,
            started.elapsed().as_secs_f64(),
            notes,
            DECIDING_SYMMETRY,
        ))));
    }
    decided
        .map(Planned::Plan)
        .map_err(|problems| refused(assertion, problems))
}

/// The plan of assertion `index` of `script`, reduced as `asked` says,
/// settled — when it is reduced — by building its system within
/// `budget` as one search would before it searches: what the cluster's
/// workers are given, so that
/// every worker, thread and process reduces the check alike and the
/// script's refusals are said before any search starts, in one
/// search's words. A budget that stops it is the check's result.
pub fn plan(
    script: &Script,
    index: usize,
    asked: &Asked,
    budget: &Budget,
) -> Result<Planned, Diagnostic> {
    let budget = &budget.started();
    let mut plan = match decide(script, index, asked, budget)? {
        Planned::Plan(plan) => plan,
        other => return Ok(other),
    };
    // Not reduced, there is nothing a system could refuse: the workers
    // build theirs alone.
    if plan.reducing == Reducing::Not {
        plan.settle(None, Vec::new());
        return Ok(Planned::Plan(plan));
    }
    let started = std::time::Instant::now();
    let assertion = &script.assertions[index];
    let settled =
        processes(script, budget).and_then(|mut procs| searched::ready(&mut procs, &mut plan));
    match settled {
        Ok(_) => Ok(Planned::Plan(plan)),
        Err(Failure::Eval(e)) if e.stop_reason().is_some() => {
            let mut notes = options(assertion, asked.symmetry.as_ref());
            notes.extend(plan.notes.iter().cloned());
            let mut result = CheckResult::stopped(
                e.stop_reason().expect("a stop"),
                started.elapsed().as_secs_f64(),
                notes,
                DECIDING_SYMMETRY,
            );
            result.stage = e.stage.clone().or(result.stage);
            result.notes.extend(e.notes.iter().cloned());
            Ok(Planned::Stopped(Box::new(result)))
        }
        Err(failure) => Err(failure.into_diagnostic(script, assertion)),
    }
}

/// What a check decided, for its progress line.
fn decided_text(plan: &Plan) -> String {
    match &plan.reducing {
        Reducing::Types(symmetry, strategy) => format!(
            "reduced over {}",
            Reduced::of(symmetry, *strategy).type_list()
        ),
        Reducing::Structure => "reduced by its structure, where it has one".to_string(),
        Reducing::Not if plan.notes.iter().any(|n| n.starts_with("symmetry:")) => {
            "not reduced (see the notes)".to_string()
        }
        Reducing::Not => "not reduced".to_string(),
    }
}

/// What a plan's search is reduced by before a system has settled it:
/// the types, when reduced by them.
fn reported(reducing: &Reducing) -> Option<Reduced> {
    reducing
        .types()
        .map(|(symmetry, strategy)| Reduced::of(symmetry, strategy))
}

impl CheckResult {
    /// A check a budget stopped (`stop`) in `stage`, before any search.
    fn stopped(stop: Stopped, seconds: f64, notes: Vec<String>, stage: &str) -> CheckResult {
        CheckResult {
            verdict: Verdict::Inconclusive(stop),
            states: 0,
            transitions: 0,
            depth: 0,
            seconds,
            counterexample: None,
            notes,
            reasons: Vec::new(),
            searched: true,
            symmetry: None,
            stage: Some(stage.to_string()),
        }
    }
}

/// The outcome of a check a budget stopped outside a search (loading,
/// normalising, a counterexample's witness) after `seconds`: the counts
/// the search published, if it had begun.
/// Whether the spill folder failed in the search under way.
fn spill_failed(budget: &Budget) -> bool {
    budget
        .spill
        .as_ref()
        .is_some_and(|spill| spill.failure().is_some())
}

fn published(budget: &Budget, seconds: f64, stop: &EvalError) -> Outcome {
    let count = |counter: fn(&Live) -> &AtomicU64| {
        budget
            .live
            .as_ref()
            .map_or(0, |live| counter(live).load(Ordering::Relaxed))
    };
    Outcome {
        states: count(|live| &live.states),
        transitions: count(|live| &live.transitions),
        depth: count(|live| &live.depth) as u32,
        seconds,
        stopped: stop
            .stop_reason()
            .or(spill_failed(budget).then_some(Stopped::Disk)),
        notes: stop.notes.clone(),
        levels: Vec::new(),
        left: None,
    }
}

/// Notes on the assertion's options not applied (symmetry switched
/// off; partial order reduction says itself where it is tried).
fn options(assertion: &Assertion, reduce: Option<&Reduce>) -> Vec<String> {
    let mut notes = Vec::new();
    for option in &assertion.options {
        match option {
            AssertOption::TauPriority(..) | AssertOption::PartialOrderReduce(_, None) => {}
            AssertOption::PartialOrderReduce(_, Some(mode)) => notes.push(format!(
                "partial order reduction: the mode `{mode}` is accepted, as FDR accepts any; \
                 symcsp reduces by one method whatever the mode"
            )),
            AssertOption::SymmetryReduce(..) if reduce == Some(&Reduce::Off) => notes.push(
                "symmetry: the reduction the assertion asks for is switched off \
                 (--symmetry off): the states are all counted"
                    .to_string(),
            ),
            AssertOption::SymmetryReduce(..) => {}
        }
    }
    notes
}

/// A refused reduction, at the assertion: each problem at its own place.
fn refused(assertion: &Assertion, problems: Vec<Diagnostic>) -> Diagnostic {
    let mut refusal = Diagnostic::error(
        assertion.span,
        "this check cannot be reduced by symmetry: the types asked for are not symmetric",
    );
    for problem in problems {
        match problem.span {
            Some(span) => refusal = refusal.with_secondary(span, problem.message),
            None => refusal = refusal.with_note(problem.message),
        }
        for note in problem.notes {
            if !refusal.notes.contains(&note) {
                refusal = refusal.with_note(note);
            }
        }
    }
    refusal.with_note("`--symmetry off` checks it without reduction")
}

/// `assert P :[symmetric]: T, U`, FDR's static check: whether the script
/// is constant-free in the types for P and everything it depends on
/// (Definition 23), with every use that breaks it.
fn symmetric(
    script: &Script,
    assertion: &crate::script::ir::Assertion,
    process: FuncId,
    types: &[FuncId],
) -> Result<CheckResult, Diagnostic> {
    let started = std::time::Instant::now();
    let eval = crate::eval::Evaluator::new(script);
    let symmetry = Symmetry::from_items(script, &eval, types, Origin::Assertion(assertion.span))
        .map_err(|mut errors| {
            let first = errors.remove(0);
            match errors.len() {
                0 => first,
                n => first.with_note(format!("and {n} more problem(s) with the types")),
            }
        })?;
    let reasons = symmetry.why_not(script, types, &[process]);
    let holds = reasons.is_empty();
    // Under `assert not`, what breaks symmetry is why the assertion
    // passes: evidence, not errors.
    let reasons = if assertion.negated {
        reasons.into_iter().map(Diagnostic::into_note).collect()
    } else {
        reasons
    };
    Ok(CheckResult {
        verdict: if holds != assertion.negated {
            Verdict::Passed
        } else {
            Verdict::Failed
        },
        states: 0,
        transitions: 0,
        depth: 0,
        seconds: started.elapsed().as_secs_f64(),
        counterexample: None,
        notes: Vec::new(),
        reasons,
        searched: false,
        symmetry: None,
        stage: None,
    })
}

/// Whether the property holds (`None`: the search stopped first), the
/// search's outcome and the behaviour behind the answer.
type Answer = (Option<bool>, Outcome, Option<Counterexample>);

/// The counterexample behind `recorded`, a path to a state of `machine`
/// that broke `product`'s specification by `breach`, found by a search
/// elsewhere (the cluster's workers, which read the path back to their
/// worker 0): unwound, replayed and described as the one search's are
/// (a nondeterminism with a run of `imp` that performs its event).
/// Anything that stops it is said as text.
pub fn counterexample_of(
    machine: &mut Machine,
    procs: &mut Processes,
    (product, root): (&mut Product, u32),
    (recorded, breach): (RowPath, Breach),
    (imp, budget): (ProcId, &Budget),
    notes: &mut Vec<String>,
) -> Result<Counterexample, String> {
    let found = (recorded, breach);
    searched::described(
        machine,
        procs,
        (product, root),
        found,
        (imp, &None, budget),
        notes,
    )
    .map_err(|failure| failure.rendered(procs))
}

/// `:[has trace]:`'s evidence after a reduced walk on workers: the
/// unreduced run of `imp` along `trace` found (`performed` none) or to
/// the `performed` events it got to ([`searched::unreduced_walk`]).
pub fn unreduced_walk_evidence(
    procs: &mut Processes,
    (imp, priority): (ProcId, &Option<EventSet>),
    walked: (&[EventId], Option<usize>, bool),
    budget: &Budget,
) -> Result<Counterexample, String> {
    match searched::unreduced_walk(procs, (imp, priority), walked, budget) {
        Ok(Some(evidence)) => Ok(evidence),
        Ok(None) => Err("the run along the trace was not found within the budget".to_string()),
        Err(failure) => Err(failure.rendered(procs)),
    }
}

/// Why a check could not give an answer.
enum Failure {
    Eval(EvalError),
    /// The specification's or the implementation's machine is not
    /// symmetric in the types (Section 6.1).
    NotMappable {
        process: &'static str,
        refusal: NotMappable,
    },
    /// A counterexample of the reduced product that is not one of the
    /// unreduced system: a bug, reported as such rather than shown.
    Internal(String),
}

impl From<EvalError> for Failure {
    fn from(e: EvalError) -> Failure {
        Failure::Eval(e)
    }
}

impl Failure {
    /// The failure in words, for the cluster's workers, which report
    /// errors as text.
    fn rendered(self, procs: &Processes) -> String {
        match self {
            Failure::Eval(e) => {
                crate::syntax::render_all(&[e.to_diagnostic()], &procs.script().sources)
            }
            Failure::Internal(why) => format!("internal error: {why}"),
            Failure::NotMappable { process, .. } => {
                format!("the {process} is not symmetric in the types it is reduced by")
            }
        }
    }

    fn into_diagnostic(self, script: &Script, assertion: &Assertion) -> Diagnostic {
        match self {
            Failure::Eval(e) => e.to_diagnostic(),
            Failure::NotMappable { process, refusal } => {
                let mut diagnostic = Diagnostic::error(
                    assertion.span,
                    format!(
                        "this check cannot be reduced by symmetry: the {process} is not \
                         symmetric in the types"
                    ),
                );
                for problem in refusal.problems {
                    diagnostic = diagnostic.with_note(problem);
                }
                diagnostic.with_note("`--symmetry off` checks it without reduction")
            }
            Failure::Internal(what) => Diagnostic::error(
                assertion.span,
                format!(
                    "internal error: the reduced check's counterexample does not replay on the \
                     unreduced system ({what}); please report it with {}",
                    script.sources.location(assertion.span).file
                ),
            )
            .with_note("`--symmetry off` checks it without reduction"),
        }
    }
}

/// The script's processes, with events worked out, within `budget`.
fn processes<'s>(script: &'s Script, budget: &Budget) -> Result<Processes<'s>, Failure> {
    let evaluator = crate::eval::Evaluator::new(script).with_meter(budget.meter());
    Ok(Processes::with_evaluator(evaluator)
        .map_err(|e| e.during(|| WORKING_OUT_EVENTS.to_string()))?)
}

/// Runs the check `plan` says, settling the plan on its system first;
/// its answer. The processes it searched are left in `kept`.
fn run<'s>(
    script: &'s Script,
    plan: &mut Plan,
    budget: &Budget,
    kept: &mut Option<Processes<'s>>,
) -> Result<Answer, Failure> {
    let procs = kept.insert(processes(script, budget)?);
    let ready = searched::ready(procs, plan)?;
    searched::search(procs, ready, plan, budget)
}

/// Whether a check's counterexample is shown, when it has one: where it
/// decides the verdict. A trace the process has (`:[has trace]:`'s
/// evidence) is shown only when `assert not P :[has trace]: s` fails
/// because of it.
pub fn shown(holds: Option<bool>, negated: bool) -> bool {
    holds == Some(false) || negated
}

/// Why `:[has trace]:` is not reduced by the types asked for, where it
/// cannot be.
pub(crate) const TRACE_VALUES_UNPLACED: &str = concat!(
    "symmetry: the trace holds a distinguished value inside a set, a map or a function, ",
    "where no position names it, so `:[has trace]:` follows it without reduction"
);

/// Why `:[has trace]:` is not reduced by the structure.
pub(crate) const TRACE_NOT_BY_STRUCTURE: &str = concat!(
    "symmetry: `:[has trace]:` follows the one trace asked for, so it is not reduced by the ",
    "structure"
);

/// Whether a model also records divergences (FD, RD, VD): a divergence
/// is then a failure, and after one of the specification's anything
/// goes. The refusal-testing and revivals models (R, V) judge
/// deadlock freedom, determinism and traces as the failures model does.
/// The specification of a refinement check in `model` against the
/// normal form `normaliser` makes; whether it judges refusals and
/// divergences.
pub(crate) fn refinement(
    normaliser: Normaliser,
    model: Model,
) -> (Box<dyn Specification>, bool, bool) {
    let spec: Box<dyn Specification> = match model {
        Model::Revivals | Model::RevivalsDivergences => {
            Box::new(NormalForm::new(normaliser, Revivals))
        }
        Model::Refusals | Model::RefusalsDivergences => {
            Box::new(NormalForm::new(normaliser, RefusalTesting))
        }
        _ => Box::new(NormalForm::new(normaliser, Refines)),
    };
    (spec, model != Model::Traces, with_divergences(Some(model)))
}

pub(crate) fn with_divergences(model: Option<Model>) -> bool {
    matches!(
        model,
        Some(Model::FailuresDivergences | Model::RefusalsDivergences | Model::RevivalsDivergences)
    )
}

/// The value of an assertion operand, and where it was written.
fn constant(procs: &Processes, func: FuncId) -> Result<(Value, Span), EvalError> {
    let span = procs.script().function(func).span;
    Ok((procs.evaluator().eval_constant(func)?, span))
}

/// The process state of an assertion's operand, and the stage of
/// compiling it (which names it), within which it was made.
pub(crate) fn process(procs: &mut Processes, func: FuncId) -> Result<(ProcId, String), EvalError> {
    let stage = compiling(procs.script(), func);
    let made = constant(procs, func).and_then(|(value, span)| procs.state(&value, span));
    match made {
        Ok(state) => Ok((state, stage)),
        Err(e) => Err(e.during(|| stage)),
    }
}

/// The events of a sequence operand (`:[has trace]: <a, b>`).
pub(crate) fn events_of(procs: &Processes, func: FuncId) -> Result<Vec<EventId>, EvalError> {
    let (value, span) = constant(procs, func)?;
    let Value::Seq(seq) = &value else {
        return Err(EvalError::new(
            span,
            format!(
                "expected a sequence of events, but this is {}",
                value.kind_name()
            ),
        ));
    };
    seq.iter().map(|e| procs.event_id(e, span)).collect()
}

/// The stage of a check that explores its components' own state spaces
/// for partial order reduction.
pub(crate) const REDUCING_BY_PARTIAL_ORDER: &str = "reducing by partial order";

/// The supercombinator of `root`, and whether its budget allows going
/// on: compiling the operator tree takes memory of its own.
/// The stages of a check a stop names, besides `compiling `P``.
const WORKING_OUT_EVENTS: &str = "working out the channels' events";
pub(crate) const DECIDING_SYMMETRY: &str = "deciding symmetry";
pub(crate) const NORMALISING: &str = "normalising the specification";
const SEARCHING: &str = "searching";

/// Whether the budget allows going on after `stage`, which polls nothing
/// itself (building a machine's symmetry tables, compiling).
fn polled(procs: &Processes, stage: &str) -> Result<(), EvalError> {
    procs
        .evaluator()
        .meter()
        .poll()
        .map_err(|stop| EvalError::stopped(stop).during(|| stage.to_string()))
}

/// The stage of compiling an assertion's operand: `compiling `P(3)``.
fn compiling(script: &Script, func: FuncId) -> String {
    let text = script.sources.snippet(script.function(func).span);
    format!(
        "compiling `{}`",
        crate::syntax::one_line(&crate::syntax::without_comments(text))
    )
}

fn machine_of(
    procs: &mut Processes,
    root: ProcId,
    priority: &Option<EventSet>,
) -> Result<Machine, EvalError> {
    let mut machine = Machine::new(procs, root)?;
    if let Some(set) = priority {
        machine.set_tau_priority(set.clone());
    }
    Ok(machine)
}

fn search_from(
    procs: &mut Processes,
    root: ProcId,
    extra: &[u32],
    priority: &Option<EventSet>,
) -> Result<Search, EvalError> {
    Ok(Search::with_machine(
        machine_of(procs, root, priority)?,
        extra,
        true,
    ))
}

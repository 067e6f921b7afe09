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
pub mod normal;
pub mod product;
pub mod trace;
pub mod worker;

use crate::eval::{EvalError, Value};
use crate::lts::search::{Budget, Outcome, Search, Stopped};
use crate::process::{EventId, EventSet, ProcId, Processes, TAU};
use crate::script::Script;
use crate::script::ir::{AssertOption, AssertionKind, FuncId};
use crate::symmetry::{Origin, Symmetry};
use crate::syntax::ast::{Model, Property};
use crate::syntax::{Diagnostic, Span};

use counterexample::{Counterexample, Found, Kind};
use normal::Normaliser;
use product::{Breach, Product, Spec};

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
}

/// The assertion's text as written (on one line).
pub fn assertion_text(script: &Script, index: usize) -> String {
    let span = script.assertions[index].span;
    script
        .sources
        .snippet(span)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks assertion `index` of `script` within `budget`. Evaluation
/// recurses: call it on a thread with a large stack
/// ([`crate::stack::with_large_stack`], or a [`worker`]).
pub fn check(script: &Script, index: usize, budget: &Budget) -> Result<CheckResult, Diagnostic> {
    let assertion = &script.assertions[index];
    let mut notes = Vec::new();
    let mut tau_priority = None;
    for option in &assertion.options {
        match option {
            AssertOption::TauPriority(set, _) => tau_priority = Some(*set),
            AssertOption::PartialOrderReduce(_) => notes
                .push("partial order reduction: not applied; the search is exhaustive".to_string()),
            AssertOption::SymmetryReduce(..) => {
                notes.push("symmetry: not yet applied, checked without reduction".to_string())
            }
        }
    }
    if let AssertionKind::Symmetric { process, types } = &assertion.kind {
        return symmetric(script, assertion, *process, types);
    }
    let model = match &assertion.kind {
        AssertionKind::Refinement { model, .. } => Some(*model),
        AssertionKind::Property { model, .. } | AssertionKind::HasTrace { model, .. } => *model,
        AssertionKind::Symmetric { .. } => None,
    };
    if let Some(m) = model.filter(|m| {
        !matches!(
            m,
            Model::Traces | Model::Failures | Model::FailuresDivergences
        )
    }) {
        return Err(Diagnostic::error(
            assertion.span,
            format!(
                "the {} model is not supported yet",
                match m {
                    Model::Refusals => "refusals",
                    Model::RefusalsDivergences => "refusals-divergences",
                    Model::Revivals => "revivals",
                    _ => "revivals-divergences",
                }
            ),
        )
        .with_note(
            "symcsp checks in the traces (T), failures (F) and failures-divergences (FD) models",
        ));
    }
    let result =
        run(script, &assertion.kind, tau_priority, budget).map_err(|e| e.to_diagnostic())?;
    let (holds, outcome, counterexample) = result;
    // A trace the process has is worth showing only when it decides the
    // verdict (`assert not P :[has trace]: s` fails because of it).
    let counterexample = counterexample.filter(|_| holds == Some(false) || assertion.negated);
    let verdict = match (holds, outcome.stopped) {
        (Some(holds), _) => {
            if holds != assertion.negated {
                Verdict::Passed
            } else {
                Verdict::Failed
            }
        }
        (None, stopped) => Verdict::Inconclusive(stopped.unwrap_or(Stopped::Cancelled)),
    };
    Ok(CheckResult {
        verdict,
        states: outcome.states,
        transitions: outcome.transitions,
        depth: outcome.depth,
        seconds: outcome.seconds,
        counterexample,
        notes,
        reasons: Vec::new(),
        searched: true,
    })
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
    })
}

/// Whether the property holds (`None`: the search stopped first), the
/// search's outcome and the behaviour behind the answer.
type Answer = (Option<bool>, Outcome, Option<Counterexample>);

fn run(
    script: &Script,
    kind: &AssertionKind,
    tau_priority: Option<FuncId>,
    budget: &Budget,
) -> Result<Answer, EvalError> {
    let mut procs = Processes::new(script)?;
    let priority = match tau_priority {
        Some(func) => {
            let (value, span) = constant(&procs, func)?;
            let set = procs.event_set(&value, span)?;
            Some(procs.set(set).clone())
        }
        None => None,
    };
    let procs = &mut procs;
    match *kind {
        AssertionKind::Refinement { spec, model, imp } => {
            let spec = process(procs, spec)?;
            let imp = process(procs, imp)?;
            let (normaliser, root) = Normaliser::new(procs, spec, None)?;
            let refusals = model != Model::Traces;
            let divergences = model == Model::FailuresDivergences;
            let spec = Spec::Refines(normaliser);
            product(
                procs,
                imp,
                spec,
                root,
                (refusals, divergences),
                priority,
                budget,
            )
        }
        AssertionKind::Property {
            process: p,
            property,
            model,
        } => {
            let imp = process(procs, p)?;
            let fd = model == Some(Model::FailuresDivergences);
            match property {
                Property::DeadlockFree => product(
                    procs,
                    imp,
                    Spec::DeadlockFree,
                    0,
                    (true, fd),
                    priority,
                    budget,
                ),
                Property::DivergenceFree => product(
                    procs,
                    imp,
                    Spec::Anything,
                    0,
                    (false, true),
                    priority,
                    budget,
                ),
                Property::Deterministic => {
                    // FDR's default model for determinism is FD.
                    let fd = model != Some(Model::Failures);
                    let (normaliser, root) = Normaliser::new(procs, imp, priority.clone())?;
                    let spec = Spec::Deterministic(normaliser);
                    product(procs, imp, spec, root, (true, fd), priority, budget)
                }
            }
        }
        AssertionKind::HasTrace {
            process: p,
            model,
            trace,
        } => {
            let imp = process(procs, p)?;
            let trace = events_of(procs, trace)?;
            has_trace(
                procs,
                imp,
                trace,
                model == Some(Model::FailuresDivergences),
                priority,
                budget,
            )
        }
        AssertionKind::Symmetric { .. } => unreachable!("rejected before"),
    }
}

/// The value of an assertion operand, and where it was written.
fn constant(procs: &Processes, func: FuncId) -> Result<(Value, Span), EvalError> {
    let span = procs.script().function(func).span;
    Ok((procs.evaluator().eval_constant(func)?, span))
}

fn process(procs: &mut Processes, func: FuncId) -> Result<ProcId, EvalError> {
    let (value, span) = constant(procs, func)?;
    procs.state(&value, span)
}

/// The events of a sequence operand (`:[has trace]: <a, b>`).
fn events_of(procs: &Processes, func: FuncId) -> Result<Vec<EventId>, EvalError> {
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

fn search_from(
    procs: &mut Processes,
    root: ProcId,
    extra: &[u32],
    priority: &Option<EventSet>,
) -> Search {
    let mut search = Search::new(procs, root, extra, true);
    if let Some(set) = priority {
        search.machine_mut().set_tau_priority(set.clone());
    }
    search
}

fn product(
    procs: &mut Processes,
    imp: ProcId,
    spec: Spec,
    root: u32,
    (refusals, divergences): (bool, bool),
    priority: Option<EventSet>,
    budget: &Budget,
) -> Result<Answer, EvalError> {
    let mut search = search_from(procs, imp, &[root], &priority);
    let mut product = Product::new(spec, refusals, divergences, search.components());
    let outcome = search.run(procs, budget, &mut product)?;
    let Some(violation) = product.violation.take() else {
        let holds = outcome.stopped.is_none().then_some(true);
        return Ok((holds, outcome, None));
    };
    let (kind, error, refusals, accepted) = match violation.breach {
        Breach::Event(e) => (Kind::Trace, Some(e), Vec::new(), Vec::new()),
        Breach::Divergence => (Kind::Divergence, None, Vec::new(), Vec::new()),
        Breach::Refusal { refused, accepted } => {
            let kind = match product.spec {
                Spec::DeadlockFree => Kind::Deadlock,
                Spec::Deterministic(_) => Kind::Nondeterminism,
                _ => Kind::Refusal,
            };
            (kind, None, refused, accepted)
        }
    };
    let nondeterministic = kind == Kind::Nondeterminism;
    let error_event = if nondeterministic {
        refusals.first().copied()
    } else {
        error
    };
    let tau_loop = match kind {
        Kind::Divergence => {
            let row = search.row(violation.state)[..search.components()].to_vec();
            product.tau_loop(search.machine_mut(), procs, &row)?
        }
        _ => None,
    };
    let shown_spec = match &product.spec {
        Spec::Refines(n) => Some(n),
        _ => None,
    };
    let mut counterexample = counterexample::describe(
        &search,
        procs,
        Found {
            kind,
            state: violation.state,
            error_step: error,
            error_event,
            refusals,
            accepted,
            spec: shown_spec,
            tau_loop,
        },
    );
    if let (true, Some(event)) = (nondeterministic, error_event) {
        // The other half of the nondeterminism: a run of the same trace
        // that performs the event.
        let (path, _) = search.path_to(violation.state);
        let mut trace: Vec<EventId> = path.into_iter().filter(|&e| e != TAU).collect();
        trace.push(event);
        let fresh = search_from(procs, imp, &[0], &priority);
        let witness = trace::find_trace(procs, fresh, &trace, &Budget::default())?;
        counterexample.witness =
            witness.map(|path| path.into_iter().filter(|&e| e != TAU).collect());
    }
    Ok((Some(false), outcome, Some(counterexample)))
}

fn has_trace(
    procs: &mut Processes,
    imp: ProcId,
    trace: Vec<EventId>,
    divergence_strict: bool,
    priority: Option<EventSet>,
    budget: &Budget,
) -> Result<Answer, EvalError> {
    let search = search_from(procs, imp, &[0], &priority);
    let (search, walk, outcome) = trace::walk(procs, search, trace, divergence_strict, budget)?;
    let holds = match (walk.reached, outcome.stopped) {
        (Some(_), _) => Some(true),
        (None, None) => Some(false),
        (None, Some(_)) => None,
    };
    // The run that completes the trace, or the one that got furthest.
    let (state, error) = match walk.reached {
        Some(state) => (state, None),
        None => (walk.furthest.0, walk.missing_event()),
    };
    let evidence = holds.map(|_| {
        counterexample::describe(
            &search,
            procs,
            Found {
                kind: Kind::Trace,
                state,
                error_step: None,
                error_event: error,
                refusals: Vec::new(),
                accepted: Vec::new(),
                spec: None,
                tau_loop: None,
            },
        )
    });
    Ok((holds, outcome, evidence))
}

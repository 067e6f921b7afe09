//! Searching a check's product and reading its answer: the machine of
//! the implementation built and reduced as its plan says (datatypes, or
//! the structural group cut to the specification's stabiliser), the
//! plan settled by it, the search,
//! a breach unwound to the unreduced system, replayed and described as
//! a counterexample; and `:[has trace]:`'s walk with its evidence.

use crate::budget::Stopped;
use crate::eval::{EvalError, EvalResult};
use crate::lts::machine::Machine;
use crate::lts::search::{Budget, Outcome, Search, level_of};
use crate::process::{EventId, EventSet, ProcId, Processes, TAU};
use crate::symmetry::search_system::{self, Reduction};
use crate::symmetry::structural::group::StructuralReduction;
use crate::symmetry::trace::TraceMatcher;

use super::counterexample::{self, Counterexample, Found, Kind, RowPath};
use super::product::{Breach, Judgement, Product, Specification};
use super::structural::StructuralProduct;
use super::task::{self, Goal, Plan, Reducing, Unjudged};
use super::wording::{Reader, plural};
use super::{
    Answer, DECIDING_SYMMETRY, Failure, REDUCING_BY_PARTIAL_ORDER, Reduced, TRACE_NOT_BY_STRUCTURE,
    TRACE_VALUES_UNPLACED, search_from, trace, unwind,
};

/// A check's system made ready as its plan says: the implementation's
/// machine, reduced, and what its states are judged by.
pub(super) struct Ready {
    machine: Machine,
    imp: ProcId,
    priority: Option<EventSet>,
    judged: Judged,
}

/// What a check's states are judged by.
enum Judged {
    /// A specification, from its node `root`.
    Product { product: Box<Product>, root: u32 },
    /// `:[has trace]:`'s walk along its trace.
    Walk {
        walk: Box<trace::TraceWalk>,
        trace: Vec<EventId>,
    },
}

/// Builds the system `plan`'s task searches — the implementation
/// compiled under its τ-priority and reduced as the plan says, through
/// the builder every worker uses ([`search_system::compiled`],
/// [`Reduction::planned`]); then the specification its states are
/// judged against — settling the plan: whether the types map onto the
/// machine and onto the specification's normal form (a refusal when
/// they do not), the structural group cut to the specification's
/// stabiliser, whether a trace's values can be followed. A plan settled
/// before (by the job's preparation) is applied: a system that will not
/// take it is an internal error.
pub(super) fn ready(procs: &mut Processes, plan: &mut Plan) -> Result<Ready, Failure> {
    let settled = plan.settled;
    // A settled plan found the types symmetric in this script's systems.
    let refused = |failure: Failure| match failure {
        Failure::NotMappable { process, refusal } if settled => Failure::Internal(format!(
            "the {process} is not symmetric in the types the job's plan reduces by ({})",
            refusal.problems.join("; ")
        )),
        other => other,
    };
    let task = plan.task.clone();
    let mut notes = Vec::new();
    // A walk along a trace is reduced only where it can follow the
    // trace's values.
    let (reducing, walking) = match task.goal {
        Goal::HasTrace { trace, divergences } => {
            let trace = super::events_of(procs, trace)?;
            let matcher = match &plan.reducing {
                Reducing::Not => None,
                Reducing::Structure => {
                    notes.push(TRACE_NOT_BY_STRUCTURE.to_string());
                    None
                }
                Reducing::Types(symmetry, _) => {
                    let matcher = TraceMatcher::new(symmetry, procs, &trace);
                    if matcher.is_none() {
                        notes.push(TRACE_VALUES_UNPLACED.to_string());
                    }
                    matcher
                }
            };
            let reducing = match matcher {
                Some(_) => plan.reducing.clone(),
                None => Reducing::Not,
            };
            (reducing, Some((trace, divergences, matcher)))
        }
        _ => (plan.reducing.clone(), None),
    };
    let compiling = super::compiling(procs.script(), task.process);
    let (imp, mut machine) = search_system::compiled(procs, (task.process, task.priority))
        .map_err(|e| e.during(|| compiling.clone()))?;
    let priority = machine.tau_priority().cloned();
    let reduction = Reduction::planned(&reducing, &mut machine, procs)
        .map_err(|e| e.during(|| DECIDING_SYMMETRY.to_string()))?;
    if reducing != Reducing::Not {
        super::polled(procs, DECIDING_SYMMETRY)?;
    }
    let mut reduced = match &reduction {
        Reduction::Reduced(system) => Some(Reduced::of(
            system.get().symmetry(),
            system.get().strategy(),
        )),
        _ => None,
    };
    let not_mappable = |reduction: Reduction, process: &'static str| match reduction {
        Reduction::NotMappable { refusal, .. } => {
            refused(Failure::NotMappable { process, refusal })
        }
        _ => unreachable!("a check reduces only by a symmetry that permutes something"),
    };
    let judged = if let Some((trace, divergences, matcher)) = walking {
        let mut walk = trace::TraceWalk::new(trace.clone(), machine.components(), divergences);
        match (reduction, matcher) {
            (Reduction::Off, _) => {}
            (Reduction::Reduced(system), Some(matcher)) => {
                walk = walk.reduced(system.into_inner(), matcher)
            }
            (other, _) => return Err(not_mappable(other, "process")),
        }
        Judged::Walk {
            walk: Box::new(walk),
            trace,
        }
    } else {
        let symmetry = plan.reducing.types().map(|(symmetry, _)| symmetry);
        let judge = match task::judge(task.goal, procs, (imp, priority.clone()), symmetry) {
            Ok(judge) => judge.expect("a check's goal judges its states"),
            Err(Unjudged::Eval(e)) => return Err(e.into()),
            Err(Unjudged::NotMappable { which, refusal }) => {
                return Err(refused(Failure::NotMappable {
                    process: which,
                    refusal,
                }));
            }
        };
        let width = machine.components();
        let mut product = Product::new(judge.spec, judge.refusals, judge.divergences, width);
        match reduction {
            Reduction::Off => {}
            Reduction::Reduced(system) => product = product.reduced(system.into_inner()),
            found @ (Reduction::Structural { .. } | Reduction::NoStructure(_)) => {
                let cut = cut_to_specification(procs, found, &*product.spec, judge.spec_process)
                    .map_err(|e| e.during(|| DECIDING_SYMMETRY.to_string()))?;
                match cut {
                    Ok((group, how)) => {
                        reduced = Some(Reduced::structural(group.order(), how));
                        product =
                            product.reduced_structurally(StructuralProduct::new(group, judge.root));
                    }
                    Err(why) => notes.push(format!("symmetry: not reduced: {why}")),
                }
            }
            other => return Err(not_mappable(other, "implementation")),
        }
        Judged::Product {
            product: Box::new(product),
            root: judge.root,
        }
    };
    if settled {
        if reduced != plan.reduced {
            return Err(Failure::Internal(format!(
                "the system built does not take the job's reduction (planned: {}; found: {})",
                in_words(plan.reduced.as_ref()),
                in_words(reduced.as_ref())
            )));
        }
    } else {
        plan.settle(reduced, notes);
    }
    Ok(Ready {
        machine,
        imp,
        priority,
        judged,
    })
}

/// A reduction as words, for an internal error.
fn in_words(reduced: Option<&Reduced>) -> String {
    match reduced {
        Some(reduced) => format!("reduced over {}", reduced.type_list()),
        None => "not reduced".to_string(),
    }
}

/// Searches the system `ready` holds, reduced by partial order when
/// `plan`'s task asks: the answer, with what the search had to say.
pub(super) fn search(
    procs: &mut Processes,
    ready: Ready,
    plan: &Plan,
    budget: &Budget,
) -> Result<Answer, Failure> {
    let Ready {
        mut machine,
        imp,
        priority,
        judged,
    } = ready;
    let note = plan
        .task
        .reduce_by_partial_order(procs, &mut machine)
        .map_err(|e| e.during(|| REDUCING_BY_PARTIAL_ORDER.to_string()))?;
    let (holds, mut outcome, evidence) = match judged {
        Judged::Product { product, root } => {
            searched_product(procs, (imp, machine, root), *product, priority, budget)?
        }
        Judged::Walk { walk, trace } => {
            walked(procs, (imp, machine, priority), (*walk, trace), budget)?
        }
    };
    outcome.notes.splice(0..0, note);
    Ok((holds, outcome, evidence))
}

/// Why a check against `spec` is not reduced structurally whatever the
/// group, if it is not.
fn refusals_not_permuted(spec: &dyn Specification) -> Option<String> {
    spec.follows_refusals().then(|| {
        "the revivals and refusal-testing models follow refusals along the trace, which the \
         structural reduction does not permute"
            .to_string()
    })
}

/// The structural group `found` ([`Reduction::structural`]) cut down to
/// the elements under which the specification's process (when given) is
/// invariant; or why a check against `spec` is not reduced by it. One
/// search and every worker decide alike.
pub(crate) fn cut_to_specification(
    procs: &mut Processes,
    found: Reduction,
    spec: &dyn Specification,
    spec_process: Option<ProcId>,
) -> EvalResult<Result<(StructuralReduction, String), String>> {
    use crate::symmetry::structural::{graph::ComponentLts, validate};
    if let Some(why) = refusals_not_permuted(spec) {
        return Ok(Err(why));
    }
    let (group, how) = match found {
        Reduction::Structural { reduction, how } => (*reduction, how),
        Reduction::NoStructure(why) => return Ok(Err(why)),
        _ => unreachable!("the structural reduction is structural or none"),
    };
    let Some(spec_process) = spec_process else {
        return Ok(Ok((group, how)));
    };
    let spec_lts = ComponentLts::explore(procs, spec_process)?;
    let name = procs.show_state(spec_process);
    let mut first_failure = None;
    let kept =
        group.keeping(
            |element| match validate::invariant(&spec_lts, &name, procs, &element.pi) {
                Ok(()) => true,
                Err(why) => {
                    first_failure.get_or_insert(why);
                    false
                }
            },
        );
    if !kept.moves_a_component() {
        return Ok(Err(format!(
            "the specification is invariant under no element of the structural group that \
             moves a component ({})",
            first_failure.unwrap_or_default()
        )));
    }
    let how = match first_failure {
        Some(_) if kept.order() < group.order() => format!(
            "{how}; cut to the {} elements under which the specification is invariant",
            kept.order()
        ),
        _ => how,
    };
    Ok(Ok((kept, how)))
}

/// Searches `product` from the implementation `imp` (compiled into
/// `machine`) and the specification's node `root`; a breach found is
/// unwound, replayed and described.
fn searched_product(
    procs: &mut Processes,
    (imp, machine, root): (ProcId, Machine, u32),
    mut product: Product,
    priority: Option<EventSet>,
    budget: &Budget,
) -> Result<Answer, Failure> {
    let mut search = Search::with_machine(machine, &[root], true);
    let (mut outcome, mut error) = search.run_to_error(procs, budget, &mut product);
    let whole = whole_level(
        &mut search,
        procs,
        &mut product,
        (&mut outcome, &mut error),
        budget,
    );
    // A divergence judged before a breach, a stop or an error comes first
    // (`Product::settle`), looked for within the same budget — over whole
    // levels, in the τ-moves recorded between their states.
    let ended_early = (error.is_some() || outcome.stopped.is_some()) && !whole;
    let outer = procs.replace_meter(budget.meter());
    let settled = product.settle(&mut search, procs, ended_early);
    procs.replace_meter(outer);
    if let Err(e) = settled {
        match e.stop_reason() {
            Some(stop) if error.is_none() => {
                product.violation = None;
                outcome.stopped = Some(stop);
                outcome.notes.extend(e.notes.iter().cloned());
            }
            _ => return Err(error.unwrap_or(e).into()),
        }
    }
    if let Some(error) = error {
        if product.violation.is_none() {
            return Err(
                match (error.stop_reason(), normal_form_size(&*product.spec)) {
                    (Some(_), Some(size)) => error.with_note(size),
                    _ => error,
                }
                .into(),
            );
        }
        outcome
            .notes
            .push(breach_beside(&error, &procs.script().sources));
    }
    if outcome.stopped.is_some_and(|stop| stop != Stopped::Visitor)
        && let Some(size) = normal_form_size(&*product.spec)
    {
        outcome.notes.push(size);
    }
    let Some(violation) = product.violation.take() else {
        let holds = outcome.stopped.is_none().then_some(true);
        return Ok((holds, outcome, None));
    };
    let recorded = RowPath::of_search(&search, violation.state);
    // Counted through the violation's level (a divergence may be found
    // at a level before the one the search stopped in).
    outcome.cut_at(recorded.events.len() as u32);
    let counterexample = described(
        search.machine_mut(),
        procs,
        (&mut product, root),
        (recorded, violation.breach),
        (imp, &priority, budget),
        &mut outcome.notes,
    )?;
    Ok((Some(false), outcome, Some(counterexample)))
}

/// Judges to its end the level a run the state budget or an evaluation
/// error stopped in ([`Search::finish_level`]), so that what the check
/// answers does not hang on where in the level the engine was: what the
/// visitor found beyond the level does not count (another engine would
/// not have met it), what it finds in it does, and the level's first
/// error is the check's only where the level holds no breach. Whether
/// the level was judged to its end (not cut short by the clock, memory
/// or a cancel).
pub(crate) fn whole_level(
    search: &mut Search,
    procs: &mut Processes,
    visitor: &mut dyn crate::lts::search::Visitor,
    (outcome, error): (&mut Outcome, &mut Option<EvalError>),
    budget: &Budget,
) -> bool {
    let Some(left) = outcome.left else {
        return false;
    };
    let level = level_of(&outcome.levels, left.recorded);
    if let Some(state) = visitor.ended_at() {
        if level_of(&outcome.levels, state) <= level {
            return true;
        }
        visitor.forget_end();
    }
    let finished = search.finish_level(procs, budget, visitor, (left, &outcome.levels));
    if error.is_none() {
        *error = finished.error;
    }
    match finished.stopped {
        Some(Stopped::Visitor) | None => true,
        Some(stop) => {
            outcome.stopped = Some(stop);
            false
        }
    }
}

/// The note a counterexample carries when a state of a level no deeper
/// than its own could not be evaluated: the breach stands.
pub(crate) fn breach_beside(error: &EvalError, sources: &crate::syntax::SourceMap) -> String {
    let at = error.span.map_or(String::new(), |span| {
        let at = sources.location(span);
        format!(" at {}:{}:{}", at.file, at.line, at.col)
    });
    format!(
        "a state no deeper than the counterexample's could not be evaluated ({}{at}); the \
         counterexample stands",
        error.message
    )
}

/// The counterexample behind `recorded`, the path the search recorded to
/// a state that broke the specification by `breach`: unwound to the
/// unreduced system when the search was reduced, replayed, judged again
/// there and described; a nondeterminism with its other half, a run of
/// the implementation `imp` (under `priority`) that performs the event.
/// What needs a sentence goes into `notes`. Used by the one search and
/// by the cluster, whose worker 0 reads the recorded path back from the
/// workers that own its states.
pub(crate) fn described(
    machine: &mut Machine,
    procs: &mut Processes,
    (product, root): (&mut Product, u32),
    (recorded, breach): (RowPath, Breach),
    (imp, priority, budget): (ProcId, &Option<EventSet>, &Budget),
    notes: &mut Vec<String>,
) -> Result<Counterexample, Failure> {
    machine.forget_partial_order();
    let width = machine.components();
    let (path, breach) = genuine_path(machine, product, procs, root, (recorded, breach))?;
    let (kind, error, refusals, accepted) = words_of(breach, &*product.spec, procs, notes);
    let nondeterministic = kind == Kind::Nondeterminism;
    let error_event = if nondeterministic {
        refusals.first().copied()
    } else {
        error
    };
    let tau_loop = match kind {
        Kind::Divergence => {
            let last = path.rows.last().expect("a path has a state");
            product.tau_loop(machine, procs, &last[..width])?
        }
        _ => None,
    };
    if product.spec.shown_normal_form().is_some() {
        let shown: Vec<u32> = path
            .rows
            .iter()
            .filter_map(|row| row.get(width).copied())
            .collect();
        product.spec.prepare_shown(procs, &shown)?;
    }
    let shown_spec = product.spec.shown_normal_form();
    let mut counterexample = counterexample::describe(
        machine,
        procs,
        path,
        Found {
            kind,
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
        let mut trace = counterexample.trace();
        trace.push(event);
        let fresh = search_from(procs, imp, &[0], priority)?;
        let witness = trace::find_trace(procs, fresh, &trace, budget)?;
        counterexample.witness =
            witness.map(|path| path.into_iter().filter(|&e| e != TAU).collect());
    }
    Ok(counterexample)
}

/// The recorded path and its breach in the unreduced system: as
/// recorded, or unwound from the reduced one, replayed and judged there
/// (anything else is an internal error, never shown).
fn genuine_path(
    machine: &mut Machine,
    product: &mut Product,
    procs: &mut Processes,
    root: u32,
    (recorded, breach): (RowPath, Breach),
) -> Result<(RowPath, Breach), Failure> {
    let unwound = if let Some((spec, system)) = product.reduction_mut() {
        Some(unwind::unwind(
            machine, spec, system, procs, root, &recorded,
        )?)
    } else if let Some((spec, group)) = product.structural_mut() {
        Some(group.unwind(machine, spec, procs, &recorded)?)
    } else {
        None
    };
    Ok(match unwound {
        None => (recorded, breach),
        Some(unwound) => {
            let path = unwound.map_err(Failure::Internal)?;
            if !unwind::replays(machine, procs, &path)? {
                return Err(Failure::Internal(
                    "the unwound path is not a path of the system".to_string(),
                ));
            }
            let last = path.rows.last().expect("a path has a state").clone();
            // A state may break the specification in several ways, and
            // which the judge meets first follows the order of its moves,
            // which a permutation changes: the unwound state's own breach
            // is the one described.
            match product.judge_unreduced(machine, procs, &last)? {
                Judgement::Breach(found) => (path, found),
                _ => {
                    return Err(Failure::Internal(
                        "the unwound state does not break the specification".to_string(),
                    ));
                }
            }
        }
    })
}

/// A breach as a counterexample's kind, the event in error, the events
/// refused and those accepted; what needs a sentence goes into `notes`.
fn words_of(
    breach: Breach,
    spec: &dyn Specification,
    procs: &Processes,
    notes: &mut Vec<String>,
) -> (Kind, Option<EventId>, Vec<EventId>, Vec<EventId>) {
    match breach {
        Breach::Event(e) => {
            if let Some(note) = spec.event_breach_note() {
                notes.push(note.to_string());
            }
            (Kind::Trace, Some(e), Vec::new(), Vec::new())
        }
        Breach::EventAfterRefusal { event, accepted } => {
            let shown = accepted
                .iter()
                .map(|&e| procs.show_event(e))
                .collect::<Vec<_>>()
                .join(", ");
            let before = spec.refusals_before();
            notes.push(format!(
                "the state before the last step is stable and accepts only {{{shown}}}: the \
                 specification cannot perform the last event after refusing the rest{before}"
            ));
            (Kind::Trace, Some(event), Vec::new(), accepted)
        }
        Breach::Divergence => (Kind::Divergence, None, Vec::new(), Vec::new()),
        Breach::Completed => (Kind::Trace, None, Vec::new(), Vec::new()),
        Breach::Refusal { refused, accepted } => (spec.refusal_kind(), None, refused, accepted),
    }
}

/// Whether `imp` has `trace`, walked by `walk` on its `machine` (reduced
/// when the walk is); the answer, with the run that performs it or
/// performs its longest prefix.
fn walked(
    procs: &mut Processes,
    (imp, machine, priority): (ProcId, Machine, Option<EventSet>),
    (walk, trace): (trace::TraceWalk, Vec<EventId>),
    budget: &Budget,
) -> Result<Answer, Failure> {
    let mut walk = walk;
    let divergence_strict = walk.divergence_strict();
    let root = walk.initial_columns();
    let mut search = Search::with_machine(machine, &root, true);
    let (mut outcome, mut error) = search.run_to_error(procs, budget, &mut walk);
    whole_level(
        &mut search,
        procs,
        &mut walk,
        (&mut outcome, &mut error),
        budget,
    );
    match error {
        Some(error) if walk.reached.is_none() => return Err(error.into()),
        Some(error) => outcome
            .notes
            .push(breach_beside(&error, &procs.script().sources)),
        None => {}
    }
    let holds = match (walk.reached, outcome.stopped) {
        (Some(_), _) => Some(true),
        (None, None) => Some(false),
        (None, Some(_)) => None,
    };
    // Found, it counts through the level of the state that completed the
    // trace, as a failure counts through its violation's (a budget may
    // have stopped the search while it stored the next level).
    if let Some(state) = walk.reached {
        outcome.cut_at(RowPath::of_search(&search, state).events.len() as u32);
    }
    // The run that completes the trace, or the one that got furthest.
    let (state, error) = match walk.reached {
        Some(state) => (state, None),
        None => (walk.furthest.0, walk.missing_event()),
    };
    if walk.reduction.is_none() {
        let evidence = holds.map(|_| {
            trace_evidence(
                search.machine(),
                procs,
                RowPath::of_search(&search, state),
                error,
            )
        });
        return Ok((holds, outcome, evidence));
    }
    // The reduced walk decided the verdict; the run shown is the
    // unreduced walk along the same events, which must find it (else the
    // two disagree: an internal error).
    if holds.is_none() {
        return Ok((None, outcome, None));
    }
    let performed = walk.reached.is_none().then_some(walk.furthest.1);
    let walked = (&trace[..], performed, divergence_strict);
    let evidence = unreduced_walk(procs, (imp, &priority), walked, budget)?;
    Ok((holds, outcome, evidence))
}

/// A reduced walk's evidence, shown as a run of the unreduced process
/// found by an unreduced walk: when the reduced walk found `trace`
/// (`performed` none), the run that performs it (or, `divergence_strict`,
/// diverges on the way, as the reduced walk may have); else the run that
/// performs the `performed` events it got to, with the event it cannot
/// perform next. The walk is bounded by the trace, not by the search's
/// budget, which the search may have used up: only memory and a cancel
/// hold it (`None` when they stop it). The process not performing the
/// events is an internal error (the reduced walk said it does).
pub(super) fn unreduced_walk(
    procs: &mut Processes,
    (imp, priority): (ProcId, &Option<EventSet>),
    (trace, performed, divergence_strict): (&[EventId], Option<usize>, bool),
    budget: &Budget,
) -> Result<Option<Counterexample>, Failure> {
    let (events, strict, error) = match performed {
        None => (trace, divergence_strict, None),
        Some(k) => (&trace[..k], false, trace.get(k).copied()),
    };
    let plain = search_from(procs, imp, &[0], priority)?;
    let describing = budget.describing();
    let meter = procs.replace_meter(describing.meter());
    let walked = trace::walk(procs, plain, events.to_vec(), strict, &describing);
    procs.replace_meter(meter);
    let (plain, plain_walk, plain_outcome) = walked?;
    match (plain_walk.reached, plain_outcome.stopped) {
        (Some(state), _) => Ok(Some(trace_evidence(
            plain.machine(),
            procs,
            RowPath::of_search(&plain, state),
            error,
        ))),
        (None, Some(_)) => Ok(None),
        (None, None) => Err(Failure::Internal(
            "the unreduced process does not perform the events the reduced walk performed"
                .to_string(),
        )),
    }
}

/// A trace walk's run `path` of `machine` (every state's moves known),
/// as a counterexample, with the event it could not perform next, if
/// any: `:[has trace]:`'s evidence, whichever engine walked it.
pub fn trace_evidence(
    machine: &Machine,
    procs: &Processes,
    path: RowPath,
    error: Option<EventId>,
) -> Counterexample {
    counterexample::describe(
        machine,
        procs,
        path,
        Found {
            kind: Kind::Trace,
            error_step: None,
            error_event: error,
            refusals: Vec::new(),
            accepted: Vec::new(),
            spec: None,
            tau_loop: None,
        },
    )
}

/// How large the specification's normal form had grown, for a check a
/// budget stopped: what the budget bought on the specification's side.
fn normal_form_size(spec: &dyn Specification) -> Option<String> {
    let normal = spec.normal_form()?;
    let nodes = plural(normal.nodes() as u64, "node", "nodes", Reader::CommandLine);
    let states = plural(
        normal.spec_states() as u64,
        "state",
        "states",
        Reader::CommandLine,
    );
    Some(format!(
        "the specification's normal form had grown to {nodes} over {states} of its own"
    ))
}

//! Following given traces through a process: `:[has trace]:`, the
//! witness of a nondeterminism, replaying a counterexample's exact
//! path to show it is a real behaviour, and a trace a user types
//! (`push.T0.A, push.T1.B`: `symcsp rep`/`why --after`, `symcsp FILE
//! --after` and the animator's prompt), τ steps found as needed, with
//! where it stops when the process cannot perform it.

use std::sync::Arc;

use crate::eval::{EvalResult, Value};
use crate::lts::animator::kind_of;
use crate::lts::divergence::Divergences;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::{
    Budget, Canonicaliser, Context, DROP, Flow, Outcome, Search, Stopped, Visit, Visitor,
};
use crate::process::{EventId, Processes, TAU};
use crate::script::Script;
use crate::script::ir::{ExprKind, FuncId};
use crate::symmetry::trace::{TraceMatcher, UNSET};
use crate::symmetry::{Symmetry, SystemSymmetry};
use crate::syntax::{Diagnostic, Span};
use crate::types::{Expect, Loaded};

/// A trace walk's symmetry.
pub struct Reduction {
    system: SystemSymmetry,
    matcher: TraceMatcher,
    symmetry: Arc<Symmetry>,
}

/// The search's visitor for a trace: the first extra column counts the
/// events of the trace performed so far; other visible events are
/// dropped. Reduced by symmetry, the search stores representatives and
/// the columns after the first hold the partial bijection from the
/// values the trace has named to the representative's
/// ([`crate::symmetry::trace`]).
pub struct TraceWalk {
    trace: Vec<EventId>,
    width: usize,
    divergences: Option<Divergences>,
    /// The system's symmetry, and the trace read for matching.
    pub reduction: Option<Reduction>,
    /// The state that completed the trace (or diverged on the way, when
    /// divergence counts as every continuation).
    pub reached: Option<u32>,
    /// A state that performed the longest prefix met, and its length.
    pub furthest: (u32, usize),
}

impl TraceWalk {
    /// Looks for `trace`; with `divergence_strict`, a divergence on the way
    /// completes it (failures-divergences semantics).
    pub fn new(trace: Vec<EventId>, width: usize, divergence_strict: bool) -> TraceWalk {
        TraceWalk {
            trace,
            width,
            divergences: divergence_strict.then(|| Divergences::new(width)),
            reduction: None,
            reached: None,
            furthest: (0, 0),
        }
    }

    /// The walk reduced by `system`'s symmetry, the trace read by
    /// `matcher`.
    pub fn reduced(mut self, system: SystemSymmetry, matcher: TraceMatcher) -> TraceWalk {
        let symmetry = Arc::new(system.symmetry().clone());
        self.reduction = Some(Reduction {
            system,
            matcher,
            symmetry,
        });
        self
    }

    /// Whether a divergence on the way completes the trace.
    pub fn divergence_strict(&self) -> bool {
        self.divergences.is_some()
    }

    /// The extra columns' initial values: none of the trace performed,
    /// none of its values named.
    pub fn initial_columns(&self) -> Vec<u32> {
        let named = self.reduction.as_ref().map_or(0, |r| r.matcher.columns());
        let mut columns = vec![UNSET; named + 1];
        columns[0] = 0;
        columns
    }

    /// The next event of the trace after the longest prefix performed.
    pub fn missing_event(&self) -> Option<EventId> {
        self.trace.get(self.furthest.1).copied()
    }
}

impl Visitor for TraceWalk {
    fn needs_machine(&self) -> bool {
        self.divergences.is_some()
    }

    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow> {
        let done = visit.row[self.width] as usize;
        if done > self.furthest.1 {
            self.furthest = (visit.id, done);
        }
        if done == self.trace.len() {
            self.reached = Some(visit.id);
            return Ok(Flow::Stop);
        }
        if let Some(divergences) = &mut self.divergences {
            let machine = context
                .machine
                .expect("a visitor that needs the machine gets it");
            if divergences.diverges(machine, context.procs, &visit.row[..self.width], None)? {
                self.reached = Some(visit.id);
                return Ok(Flow::Stop);
            }
        }
        let row_width = visit.row.len();
        for (k, &event) in visit.events.iter().enumerate() {
            if event == TAU {
                continue;
            }
            let columns = &mut visit.successors[k * row_width + self.width..(k + 1) * row_width];
            let after = match &mut self.reduction {
                None => (event == self.trace[done]).then(Vec::new),
                Some(reduced) => reduced.matcher.step(
                    &reduced.symmetry,
                    context.procs,
                    done,
                    &visit.row[self.width + 1..],
                    event,
                ),
            };
            match after {
                Some(images) => {
                    columns[0] = done as u32 + 1;
                    columns[1..].copy_from_slice(&images);
                }
                None => columns[0] = DROP,
            }
        }
        Ok(Flow::Filter)
    }

    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        match self.reduction {
            Some(_) => Some(self),
            None => None,
        }
    }

    fn ended_at(&self) -> Option<u32> {
        self.reached
    }

    fn forget_end(&mut self) {
        self.reached = None;
    }
}

impl Canonicaliser for TraceWalk {
    /// The components' representative, and the bijection's images under
    /// the permutation that made it.
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        let width = self.width;
        let Some(Reduction { system, .. }) = &mut self.reduction else {
            return Ok(());
        };
        let perm = system.canonicalise_components(machine, procs, row)?.clone();
        TraceMatcher::permute(&mut row[width + 1..], &perm);
        if let Some(held) = system.held_atoms() {
            TraceMatcher::free(&mut row[width + 1..], held.iter().map(|&a| perm.apply(a)));
        }
        Ok(())
    }
}

/// Runs `search` (fresh, with one extra column holding 0, recording
/// parents) looking for `trace` (visible events): the search (for
/// paths), the walk and the outcome.
pub fn walk(
    procs: &mut Processes,
    search: Search,
    trace: Vec<EventId>,
    divergence_strict: bool,
    budget: &Budget,
) -> EvalResult<(Search, TraceWalk, Outcome)> {
    let walk = TraceWalk::new(trace, search.components(), divergence_strict);
    run_walk(procs, search, walk, budget)
}

/// Runs `walk` on `search` (fresh, its extra columns
/// [`TraceWalk::initial_columns`], recording parents).
pub fn run_walk(
    procs: &mut Processes,
    mut search: Search,
    mut walk: TraceWalk,
    budget: &Budget,
) -> EvalResult<(Search, TraceWalk, Outcome)> {
    let outcome = search.run(procs, budget, &mut walk)?;
    Ok((search, walk, outcome))
}

/// A shortest path (τ included) by which `search`'s process (a fresh
/// search, as for [`walk`]) performs `trace`, if it can.
pub fn find_trace(
    procs: &mut Processes,
    search: Search,
    trace: &[EventId],
    budget: &Budget,
) -> EvalResult<Option<Vec<EventId>>> {
    let (search, walk, _) = walk(procs, search, trace.to_vec(), false, budget)?;
    Ok(walk.reached.map(|id| search.path_to(id).0))
}

/// Where `machine` is after the visible events `trace` (with τ steps
/// wherever needed): the first state breadth first that completes it,
/// with the path to it (τ included) — or how many of the events some run
/// performs, when no run performs them all. The machine comes back with
/// every state the search met numbered.
#[allow(clippy::type_complexity)]
pub fn state_after(
    procs: &mut Processes,
    machine: Machine,
    trace: &[EventId],
    budget: &Budget,
) -> EvalResult<(Machine, Result<(Vec<EventId>, Vec<u32>), usize>)> {
    let (machine, followed) = follow(procs, machine, trace, budget);
    let followed = followed?;
    let found = match followed.performed == trace.len() {
        true => {
            let row = followed.rows.last().expect("the initial state").clone();
            Ok((followed.path, row))
        }
        false => Err(followed.performed),
    };
    Ok((machine, found))
}

/// How far a process follows a trace ([`follow`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    /// A shortest path (τ included) to the state reached: the first state
    /// breadth first that completes the trace, else the first that
    /// performs its longest prefix any run performs.
    pub path: Vec<EventId>,
    /// The system states along the path, the initial state first (one
    /// more than the path's events; components only).
    pub rows: Vec<Vec<u32>>,
    /// How many of the trace's events the path performs.
    pub performed: usize,
    /// When not all of them: every event but τ the process can perform
    /// next after that prefix (τ steps as needed), in the animator's
    /// order (visible events, then ✓).
    pub possible: Vec<EventId>,
    /// Why the search stopped before it knew (a budget, a cancel).
    pub stopped: Option<Stopped>,
}

/// Follows the visible events `trace` from `machine`'s initial state, τ
/// steps wherever needed, as far as any run goes ([`Followed`]). The
/// machine comes back, an evaluation error or not, with every state the
/// search met numbered, so the rows read with it.
pub fn follow(
    procs: &mut Processes,
    machine: Machine,
    trace: &[EventId],
    budget: &Budget,
) -> (Machine, EvalResult<Followed>) {
    let mut search = Search::with_machine(machine, &[0], true);
    let mut walk = TraceWalk::new(trace.to_vec(), search.components(), false);
    let outcome = match search.run(procs, budget, &mut walk) {
        Ok(outcome) => outcome,
        Err(e) => return (search.into_machine(), Err(e)),
    };
    let width = search.components();
    let components = |id: u32| {
        let mut row = search.row(id);
        row.truncate(width);
        row
    };
    let (id, performed) = match walk.reached {
        Some(id) => (id, trace.len()),
        None => walk.furthest,
    };
    let (path, states) = search.path_to(id);
    let rows = states.into_iter().map(components).collect();
    // Every state the search met after the longest prefix: what the
    // process can do there is what could have come next.
    let after_prefix: Vec<Vec<u32>> = match walk.reached {
        Some(_) => Vec::new(),
        None => (0..search.states() as u32)
            .map(|id| search.row(id))
            .filter(|row| row[width] as usize == performed)
            .map(|mut row| {
                row.truncate(width);
                row
            })
            .collect(),
    };
    let stopped = outcome
        .stopped
        .filter(|s| walk.reached.is_none() && *s != Stopped::Visitor);
    let mut machine = search.into_machine();
    let mut possible = Vec::new();
    let mut moves = Moves::default();
    for row in &after_prefix {
        if let Err(e) = machine.moves(procs, row, &mut moves) {
            return (machine, Err(e));
        }
        possible.extend(moves.list.iter().map(|m| m.event).filter(|&e| e != TAU));
    }
    possible.sort_by_key(|&e| (kind_of(e), e));
    possible.dedup();
    let followed = Followed {
        path,
        rows,
        performed,
        possible,
        stopped,
    };
    (machine, Ok(followed))
}

/// At most this many of the events that could come next are named.
const POSSIBLE_NAMED: usize = 12;

impl Followed {
    /// Why the trace written as `func` ([`add_typed`]) stops where it
    /// does: the first event the process (`process`, as the user named
    /// it) cannot perform, with the caret under it, and the events it
    /// could perform there. `None` when it performs the whole trace.
    pub fn refusal(
        &self,
        procs: &Processes,
        func: FuncId,
        trace: &[EventId],
        process: &str,
    ) -> Option<Diagnostic> {
        let &missing = trace.get(self.performed)?;
        let span = event_span(procs.script(), func, self.performed);
        if let Some(stopped) = self.stopped {
            return Some(Diagnostic::error(
                span,
                format!(
                    "looking for a run that performs {} was {}",
                    procs.show_event(missing),
                    stopped.ended()
                ),
            ));
        }
        let message = match self.performed {
            0 => format!(
                "{process} cannot perform {} first",
                procs.show_event(missing)
            ),
            done => {
                let shown: Vec<String> =
                    trace[..done].iter().map(|&e| procs.show_event(e)).collect();
                format!(
                    "after {}, {process} cannot perform {}",
                    shown.join(", "),
                    procs.show_event(missing)
                )
            }
        };
        Some(Diagnostic::error(span, message).with_note(self.possible_text(procs)))
    }

    /// The events that could come next, in words.
    pub fn possible_text(&self, procs: &Processes) -> String {
        let mut named: Vec<String> = self
            .possible
            .iter()
            .take(POSSIBLE_NAMED)
            .map(|&e| procs.show_event(e))
            .collect();
        let more = self.possible.len().saturating_sub(POSSIBLE_NAMED);
        if more > 0 {
            named.push(format!("and {more} more"));
        }
        match named.is_empty() {
            true => "it can perform no event there".to_string(),
            false => format!("it could perform {}", named.join(", ")),
        }
    }
}

/// Adds a trace as a user types it (visible events separated by commas:
/// `push.T0.A, push.T1.B`) to `loaded` as the sequence `<…>`, called
/// `name` in diagnostics (`<after>`).
pub fn add_typed(loaded: &mut Loaded, name: &str, text: &str) -> Result<FuncId, Vec<Diagnostic>> {
    loaded.add_expr(name, &format!("<{text}>"), Expect::Any)
}

/// The events of a trace added with [`add_typed`].
pub fn typed_events(procs: &Processes, func: FuncId) -> Result<Vec<EventId>, Diagnostic> {
    let span = procs.script().function(func).span;
    let value = procs
        .evaluator()
        .eval_constant(func)
        .map_err(|e| e.to_diagnostic())?;
    // `<...>` is a sequence unless the text closed it and opened
    // another (`a> == <b`).
    let Value::Seq(seq) = &value else {
        return Err(Diagnostic::error(
            span,
            "this is not a list of events separated by commas".to_string(),
        ));
    };
    seq.iter()
        .map(|e| procs.event_id(e, span).map_err(|e| e.to_diagnostic()))
        .collect()
}

/// Where the `index`-th event of a trace added with [`add_typed`] was
/// written (the whole trace when it is not a plain list).
fn event_span(script: &Script, func: FuncId, index: usize) -> Span {
    let function = script.function(func);
    let body = script.expr(function.clauses[0].body);
    match &body.kind {
        ExprKind::Seq(items) if index < items.len() => script.expr(items[index]).span,
        _ => function.span,
    }
}

/// Every system state `machine` can be in after performing exactly
/// `path` (τ steps included) from its initial state; empty if the path
/// is not a behaviour of it.
pub fn replay(
    machine: &mut Machine,
    procs: &mut Processes,
    path: &[EventId],
) -> EvalResult<Vec<Vec<u32>>> {
    let mut current = vec![machine.initial().to_vec()];
    let mut moves = Moves::default();
    let mut next_row = Vec::new();
    for &event in path {
        let mut next: Vec<Vec<u32>> = Vec::new();
        for row in &current {
            machine.moves(procs, row, &mut moves)?;
            for m in moves.list.iter().filter(|m| m.event == event) {
                moves.apply(m, row, &mut next_row);
                if !next.contains(&next_row) {
                    next.push(next_row.clone());
                }
            }
        }
        current = next;
    }
    Ok(current)
}

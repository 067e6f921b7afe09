//! Following given traces through a process: `:[has trace]:`, the
//! witness of a nondeterminism, and replaying a counterexample's exact
//! path to show it is a real behaviour.

use crate::eval::EvalResult;
use crate::lts::divergence::Divergences;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::{Budget, Context, DROP, Flow, Outcome, Search, Visit, Visitor};
use crate::process::{EventId, Processes, TAU};

/// The search's visitor for a trace: the extra column counts the events
/// of the trace performed so far; other visible events are dropped.
pub struct TraceWalk {
    trace: Vec<EventId>,
    width: usize,
    divergences: Option<Divergences>,
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
            reached: None,
            furthest: (0, 0),
        }
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
        let row_width = self.width + 1;
        for (k, &event) in visit.events.iter().enumerate() {
            let column = &mut visit.successors[k * row_width + self.width];
            if event == self.trace[done] {
                *column = done as u32 + 1;
            } else if event != TAU {
                *column = DROP;
            }
        }
        Ok(Flow::Filter)
    }
}

/// Runs `search` (fresh, with one extra column holding 0, recording
/// parents) looking for `trace` (visible events): the search (for
/// paths), the walk and the outcome.
pub fn walk(
    procs: &mut Processes,
    mut search: Search,
    trace: Vec<EventId>,
    divergence_strict: bool,
    budget: &Budget,
) -> EvalResult<(Search, TraceWalk, Outcome)> {
    let mut walk = TraceWalk::new(trace, search.components(), divergence_strict);
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
    let search = Search::with_machine(machine, &[0], true);
    let (search, walk, _) = walk(procs, search, trace.to_vec(), false, budget)?;
    let found = match walk.reached {
        Some(id) => {
            let mut row = search.row(id);
            row.truncate(search.components());
            Ok((search.path_to(id).0, row))
        }
        None => Err(walk.furthest.1),
    };
    Ok((search.into_machine(), found))
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

//! Following given traces through a process: `:[has trace]:`, the
//! witness of a nondeterminism, and replaying a counterexample's exact
//! path to show it is a real behaviour.

use std::sync::Arc;

use crate::eval::EvalResult;
use crate::lts::divergence::Divergences;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::{
    Budget, Canonicaliser, Context, DROP, Flow, Outcome, Search, Visit, Visitor,
};
use crate::process::{EventId, Processes, TAU};
use crate::symmetry::trace::{TraceMatcher, UNSET};
use crate::symmetry::{Symmetry, SystemSymmetry};

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
        let perm = system.canonicalise_components(machine, procs, row).clone();
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

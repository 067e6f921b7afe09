//! Exploration: the breadth-first search that visits every reachable
//! state and counts states, distinct transitions and deadlocks, within a
//! budget, on as many threads as asked.

use bit_vec::BitVec;

use crate::eval::EvalResult;
use crate::process::{EventId, ProcId, Processes, TICK};

use super::machine::Machine;
use super::search::{Canonicaliser, Context, Flow, Search, Visit, Visitor};
use super::{Budget, Exploration};

/// Explores every state reachable from `root`.
pub fn explore(procs: &mut Processes, root: ProcId, budget: &Budget) -> EvalResult<Exploration> {
    // Building the machine is held to the budget too.
    let outer = procs.replace_meter(budget.meter());
    let machine = Machine::new(procs, root);
    procs.replace_meter(outer);
    explore_machine(procs, machine?, budget, None)
}

/// Explores every state `machine` reaches; with a canonicaliser, every
/// representative (symmetry reduction: the counts are of
/// representatives).
pub fn explore_machine(
    procs: &mut Processes,
    machine: Machine,
    budget: &Budget,
    canonicaliser: Option<&mut dyn Canonicaliser>,
) -> EvalResult<Exploration> {
    explore_kept(procs, machine, budget, canonicaliser, false).map(|(x, _)| x)
}

/// [`explore_machine`], the search kept for what it stored (and with
/// `parents`, the path to every state).
pub fn explore_kept(
    procs: &mut Processes,
    machine: Machine,
    budget: &Budget,
    canonicaliser: Option<&mut dyn Canonicaliser>,
    parents: bool,
) -> EvalResult<(Exploration, Search)> {
    let mut search = Search::with_machine(machine, &[], parents);
    let mut counter = Counter {
        terminated: BitVec::from_elem(1, false),
        deadlock_states: 0,
        canonicaliser,
    };
    let outcome = search.run(procs, budget, &mut counter)?;
    let exploration = Exploration {
        states: outcome.states,
        transitions: outcome.transitions,
        deadlock_states: counter.deadlock_states,
        terminated_states: counter.terminated.iter().filter(|&t| t).count() as u64,
        depth: outcome.depth,
        components: search.components(),
        seconds: outcome.seconds,
        store_bytes: search.bytes(),
        on_disk: search.states_on_disk() as u64,
        disk_peak: budget.spill.as_ref().map_or(0, |spill| spill.peak()),
        complete: outcome.stopped.is_none(),
        stopped: outcome.stopped,
    };
    Ok((exploration, search))
}

/// Counts deadlocks: states without transitions not reached by ✓.
struct Counter<'c> {
    /// Per state: reached by ✓ (terminated, not deadlocked). A bit each:
    /// with the store on disk, this is what memory keeps per state.
    terminated: BitVec,
    deadlock_states: u64,
    canonicaliser: Option<&'c mut dyn Canonicaliser>,
}

impl Visitor for Counter<'_> {
    fn needs_machine(&self) -> bool {
        false
    }

    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        match &mut self.canonicaliser {
            Some(c) => Some(&mut **c),
            None => None,
        }
    }

    fn visit(&mut self, _: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow> {
        if visit.events.is_empty() && !self.terminated[visit.id as usize] {
            self.deadlock_states += 1;
        }
        Ok(Flow::Continue)
    }

    fn stored(&mut self, _: u32, events: &[EventId], ids: &[(u32, bool)]) {
        for (&event, &(id, new)) in events.iter().zip(ids) {
            if new {
                self.terminated.push(false);
            }
            if event == TICK {
                self.terminated.set(id as usize, true);
            }
        }
    }
}

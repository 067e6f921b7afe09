//! Breadth-first exploration of a process's state space through the
//! supercombinator: counts of states, distinct transitions and deadlocks,
//! within a budget.

use std::time::Instant;

use crate::eval::EvalResult;
use crate::process::{ProcId, Processes, TICK};

use super::machine::{Machine, Moves};
use super::store::StateStore;
use super::{Budget, Exploration};

/// Explores every state reachable from `root`.
pub fn explore(procs: &mut Processes, root: ProcId, budget: &Budget) -> EvalResult<Exploration> {
    let started = Instant::now();
    let mut machine = Machine::new(procs, root);
    let mut store = StateStore::new(machine.components());
    store.insert(machine.initial());
    // States reached by ✓: terminated, not deadlocked.
    let mut terminated = vec![false];
    let mut result = Exploration {
        components: machine.components(),
        ..Exploration::default()
    };
    let mut moves = Moves::default();
    let mut state = Vec::with_capacity(machine.components());
    let mut next_state = Vec::with_capacity(machine.components());
    let mut successors: Vec<(u32, u32)> = Vec::new();
    let mut next = 0u32;
    while (next as usize) < store.len() {
        if budget.exhausted(store.len()) {
            break;
        }
        store.read(next, &mut state);
        machine.moves(procs, &state, &mut moves)?;
        successors.clear();
        for m in &moves.list {
            moves.apply(m, &state, &mut next_state);
            let (id, new) = store.insert(&next_state);
            if new {
                terminated.push(false);
            }
            if m.event == TICK {
                terminated[id as usize] = true;
            }
            successors.push((m.event, id));
        }
        if successors.is_empty() && !terminated[next as usize] {
            result.deadlock_states += 1;
        }
        successors.sort_unstable();
        successors.dedup();
        result.transitions += successors.len() as u64;
        next += 1;
    }
    result.complete = next as usize == store.len();
    result.states = store.len() as u64;
    result.seconds = started.elapsed().as_secs_f64();
    Ok(result)
}

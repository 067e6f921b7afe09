//! The second path to a state space: the whole process as one term,
//! explored breadth first over hash-consed states with the plain
//! operational semantics. Slower than the supercombinator, and
//! independent of it; tests use it to confirm the supercombinator's
//! counts.

use rustc_hash::FxHashMap;

use crate::eval::EvalResult;
use crate::process::{ProcId, Processes, TICK};

use super::{Budget, Exploration};

/// Explores the states reachable from `root`.
pub fn explore_terms(
    procs: &mut Processes,
    root: ProcId,
    budget: &Budget,
) -> EvalResult<Exploration> {
    let started = std::time::Instant::now();
    let mut index: FxHashMap<ProcId, u32> = FxHashMap::default();
    let mut order = vec![root];
    index.insert(root, 0);
    let mut terminated = vec![false];
    let mut result = Exploration::default();
    let mut next = 0;
    while next < order.len() {
        if budget.exhausted(order.len()) {
            result.complete = false;
            break;
        }
        let state = order[next];
        let transitions = procs.transitions(state)?;
        if transitions.is_empty() && !terminated[next] {
            result.deadlock_states += 1;
        }
        result.transitions += transitions.len() as u64;
        for t in transitions.iter() {
            let id = *index.entry(t.target).or_insert_with(|| {
                order.push(t.target);
                terminated.push(false);
                (order.len() - 1) as u32
            });
            if t.event == TICK {
                terminated[id as usize] = true;
            }
        }
        next += 1;
    }
    if next == order.len() {
        result.complete = true;
    }
    result.states = order.len() as u64;
    result.components = 1;
    result.seconds = started.elapsed().as_secs_f64();
    Ok(result)
}

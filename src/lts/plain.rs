//! The second path to a state space: the whole process as one term,
//! stepped by the process layer's plain operational semantics (no
//! operator tree), through the same breadth-first search. Slower than
//! the supercombinator, and independent of it where they could differ:
//! tests use it to confirm the supercombinator's counts.

use crate::eval::EvalResult;
use crate::process::{ProcId, Processes};

use super::machine::Machine;
use super::{Budget, Exploration, explore::explore_machine};

/// Explores the states reachable from `root`.
pub fn explore_terms(
    procs: &mut Processes,
    root: ProcId,
    budget: &Budget,
) -> EvalResult<Exploration> {
    let machine = Machine::single(procs, root);
    explore_machine(procs, machine, budget, None)
}

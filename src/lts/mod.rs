//! Labelled transition systems of whole processes: the supercombinator
//! (components and an operator tree over them), the store of system
//! states, and breadth-first exploration; plus the plain path that
//! explores a process as one term, to cross-check the supercombinator.

pub mod explore;
pub mod graph;
pub mod machine;
pub mod plain;
pub mod store;

pub use explore::explore;

/// Limits on an exploration, and the threads it may use.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Stop once this many states are known.
    pub max_states: Option<usize>,
    /// Threads that compute successors (the counts never depend on it).
    pub threads: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_states: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl Budget {
    pub fn exhausted(&self, states: usize) -> bool {
        self.max_states.is_some_and(|m| states > m)
    }
}

/// What an exploration found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exploration {
    pub states: u64,
    /// Distinct `(state, event, state')` triples, τ and ✓ included.
    pub transitions: u64,
    /// States without transitions that were not reached by ✓.
    pub deadlock_states: u64,
    /// Leaf components of the supercombinator (1 for the plain path).
    pub components: usize,
    pub seconds: f64,
    /// False when the budget stopped the exploration.
    pub complete: bool,
}

//! Labelled transition systems of whole processes: the supercombinator
//! (components and an operator tree over them), the store of system
//! states, and breadth-first exploration; plus the plain path that
//! explores a process as one term, to cross-check the supercombinator.

pub mod animator;
mod batch;
pub mod buffer;
pub mod divergence;
mod expand;
pub mod explore;
pub mod graph;
pub mod hooks;
pub mod machine;
pub mod plain;
mod pool;
mod queue;
pub mod search;
pub mod store;

pub use explore::{explore, explore_kept, explore_machine};
pub use search::{Budget, Live, Search, Stopped};

/// What an exploration found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exploration {
    pub states: u64,
    /// Distinct `(state, event, state')` triples, τ and ✓ included.
    pub transitions: u64,
    /// States without transitions that were not reached by ✓.
    pub deadlock_states: u64,
    /// States reached by ✓ (they have terminated: not deadlocks).
    pub terminated_states: u64,
    /// The deepest breadth-first level reached.
    pub depth: u32,
    /// Leaf components of the supercombinator (1 for the plain path).
    pub components: usize,
    pub seconds: f64,
    /// The bytes the stored states took at the end: their rows, the
    /// index and (when recorded) parent pointers, as allocated.
    pub store_bytes: u64,
    /// States whose rows were on disk at the end (spilled, with a spill
    /// folder), and the most bytes the spill files held at once.
    pub on_disk: u64,
    pub disk_peak: u64,
    /// False when the budget stopped the exploration.
    pub complete: bool,
    /// What stopped it, when it did not complete.
    pub stopped: Option<Stopped>,
}

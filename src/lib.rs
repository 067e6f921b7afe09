//! symcsp: an animator, state-space explorer and refinement checker for
//! CSPM, built around symmetry reduction (Gibson-Robinson & Lowe,
//! *Symmetry reduction in CSP model checking*).
//!
//! The crate is layered as `docs/architecture.md` describes; each layer
//! uses only those before it:
//!
//! - [`syntax`]: CSPM text to an AST with spans, diagnostics, printing.
//! - [`script`]: names resolved, datatypes and channels collected.
//! - [`types`]: FDR's static types, checked before anything runs.
//! - [`eval`]: values and the functional language.
//! - [`process`]: process states and their operational semantics.
//! - [`lts`]: the supercombinator, the state store and breadth-first search.
//! - [`check`]: assertions, counterexamples, checks on a worker thread.
//! - [`cli`]: the command-line front end, a thin client of the above.
//! - [`builtin`]: the models compiled into the binary.
//! - [`budget`]: what long work may use (states, time, memory), and the
//!   meter every long loop polls.

pub mod budget;
pub mod builtin;
pub mod check;
pub mod cli;
pub mod eval;
pub mod files;
pub mod lts;
pub mod process;
pub mod script;
pub mod stack;
pub mod symmetry;
pub mod syntax;
pub mod tui;
pub mod types;

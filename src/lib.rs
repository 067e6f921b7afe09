//! symcsp: an animator, state-space explorer and refinement checker for
//! CSPM, built around symmetry reduction (Gibson-Robinson & Lowe,
//! *Symmetry reduction in CSP model checking*).
//!
//! The crate is layered as `docs/architecture.md` describes; each layer
//! uses only those before it, and no files of a layer import each other
//! in a circle (`tests/layering.rs` enforces both):
//!
//! - [`syntax`]: CSPM text to an AST with spans, diagnostics, printing.
//! - [`script`]: names resolved, datatypes and channels collected.
//! - [`types`]: FDR's static types, checked before anything runs.
//! - [`eval`]: values and the functional language.
//! - [`process`]: process states, their operational semantics and FDR's
//!   compressions.
//! - [`lts`]: the supercombinator, the state store and breadth-first search.
//! - [`symmetry`]: symmetry reduction — datatype symmetry (the paper's
//!   representative algorithm and the other strategies) and the
//!   symmetry of a system's communication structure.
//! - [`check`]: assertions, counterexamples, checks on a worker thread.
//! - [`tui`]: the terminal animator.
//! - [`cli`]: the command-line front end.
//!
//! And the utilities any layer may use:
//!
//! - [`builtin`]: the models compiled into the binary.
//! - [`budget`]: what long work may use (states, time, memory), and the
//!   meter every long loop polls.
//! - [`files`]: writing a file whole or not at all.
//! - [`stack`]: running deep recursion on a large stack.

pub mod budget;
pub mod builtin;
pub mod check;
pub mod cli;
pub mod cluster;
pub mod eval;
pub mod explain;
pub mod files;
pub mod lsp;
pub mod lts;
pub mod process;
pub mod script;
pub mod stack;
pub mod symmetry;
pub mod syntax;
pub mod tui;
pub mod types;

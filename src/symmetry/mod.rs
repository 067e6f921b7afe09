//! Symmetry reduction, as in Gibson-Robinson & Lowe, *Symmetry reduction
//! in CSP model checking* (STTT 2019): the engine the reduced checks, the
//! command line and the animator all call.
//!
//! - [`spec`]: the distinguished types (from an assertion's
//!   `:[symmetry reduce]`, the command line, or chosen automatically) and
//!   the value lookup every other part uses.
//! - [`constant_free`]: the paper's Definition 23, over the resolved
//!   script: every named constant of a distinguished type and every use of
//!   an order-revealing built-in, with its span; FDR's `:[symmetric]:`.
//! - [`naming`]: what automatic mode calls the sets it chose.
//! - [`perm`]: permutations of the distinguished types (one array per
//!   type), their group, generators and order.
//! - [`apply`]: permutations applied to values, events, event sets and
//!   process states (Lemma 34).
//! - [`system`]: a supercombinator under symmetry: mappability (Section
//!   6.1), the component bijection α, permutations applied to system
//!   states (Proposition 35), and the search's canonicaliser.
//! - [`label`]: each component state seen as a shape and the distinguished
//!   values in its variables, the form the representative algorithm reads.
//! - [`rep`]: the representative algorithm of Section 7 (component
//!   ordering steps 1–3, type ordering, permutation generation), with the
//!   trace of every partition it built.
//! - [`trace`]: a given trace under symmetry, matched by a growing
//!   partial bijection (the reduced `:[has trace]:`).
//! - [`matching`]: the exact search that pairs the components of two
//!   states cell by cell under one map of values (full symmetry, and
//!   comparing states).
//! - [`brute`]: the brute-force canonicaliser (least image over the whole
//!   group), the oracle for tests on small types.
//!
//! Uses the layers before it (syntax to lts); knows nothing of checks,
//! of the user interface, or of how its work is explained: that is
//! [`crate::explain`], which builds on this layer and which this layer
//! never imports. The search's one hook ([`crate::lts::search::Canonicaliser`])
//! is implemented here, so `lts` never imports this layer.

pub mod apply;
pub mod brute;
pub mod constant_free;
pub mod input;
pub mod label;
pub mod matching;
pub mod naming;
pub mod perm;
pub mod rep;
pub mod search_system;
pub mod spec;
pub mod strategy;
pub mod structural;
pub mod system;
pub mod trace;

pub use perm::Permutation;
pub use spec::{Atom, Origin, Symmetry};
pub use system::{Explanation, NotMappable, SystemSymmetry};

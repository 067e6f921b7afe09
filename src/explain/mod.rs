//! What explains the symmetry engine to a person: why each step of the
//! representative algorithm split what it split, why two states got
//! different representatives, step 3 by hand, the state drawn as the
//! multigraph of Section 7.1, and the algorithm's stages as documents for
//! slides and handouts. The engine ([`crate::symmetry`]) computes
//! representatives and knows nothing of this layer; the checks and the
//! workers never import it; the command line and the animator do.
//!
//! - [`variables`]: the names of a state's distinguished variables and
//!   its components' identities (Definition 46).
//! - [`columns`] and [`splits`]: what each n-value entry counts, and
//!   why each step split what it split, as data and in words;
//!   [`witness`]: the relation that tells two components apart.
//! - [`walk`]: two walks of one system related by a permutation σ (the
//!   raw and the reduced): a move of one seen through σ, and σ after the
//!   reduced walk settles on a representative; the animator's reduced walk.
//! - [`compare`]: why two states got different representatives.
//! - [`by_hand`]: step 3 by hand, beside the algorithm's own choices.
//! - [`stages`]: the algorithm on one state as a document of stages,
//!   printed as Markdown, LaTeX, beamer slides or SVG; [`command`]: the
//!   `symcsp rep` command line that prints one.
//! - [`graph`] and [`drawing`]: the state as the multigraph of Section
//!   7.1, drawn as text for terminals and as DOT for Graphviz;
//!   [`palette`]: a colour per cell for drawings outside the terminal.

pub mod by_hand;
pub mod columns;
pub mod command;
pub mod compare;
pub mod drawing;
pub mod graph;
pub mod palette;
pub mod splits;
pub mod stages;
pub mod variables;
pub mod walk;
pub mod witness;

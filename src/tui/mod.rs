//! The terminal animator: step a process, go back along its trace, see
//! each component, run the script's checks on a worker thread and step
//! through their counterexamples. Elm architecture: one [`app::App`]
//! model, [`app::Action`]s, a pure `update` and a `view` that only
//! reads the model. Key map and theme are data ([`config`]); the
//! terminal itself is touched only in [`terminal`]. Shows what the
//! library computes and computes no semantics of its own.

pub mod app;
pub mod config;
pub mod model;
pub mod session;
pub mod terminal;
pub mod view;

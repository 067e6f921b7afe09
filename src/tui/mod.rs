//! The terminal animator: step a process, go back along its path, see
//! each component, see each state's representative and how the
//! representative algorithm built it, run the script's checks on a
//! worker thread and step through their counterexamples.
//!
//! Elm architecture: one [`app::App`] model composed of panes that each
//! own their state, update and drawing ([`panes`]); [`app::Action`]s and
//! a pure `update`; a [`view`] that only reads the model and returns the
//! [`layout`] it drew. Everything evaluated runs on the [`engine`]
//! thread, so the interface never waits. Key map and theme are data
//! ([`config`]); the terminal itself is touched only in [`terminal`].
//! Shows what the library computes and computes no semantics of its own.

pub mod app;
pub mod config;
pub mod diagnostic_wrap;
pub mod engine;
pub mod help;
pub mod layout;
pub mod model;
pub mod panes;
pub mod path;
pub mod prompt;
pub mod session;
pub mod terminal;
pub mod view;
pub mod walk;
pub mod wrap;

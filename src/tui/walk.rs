//! The animated process as the interface holds it: its name and operator
//! tree, the path walked (numbers only), the current state in words as
//! the engine last described it, and what is laid over the walk — a
//! loaded counterexample, the reduced walk's mode, a marked state.

use crate::lts::machine::OutlineRow;

use super::engine::{Animated, Mark, Shown, ShownMove, WalkPath};
use super::model::SymmetryAbout;
use super::path::{NameTable, StepHistory};

/// A counterexample loaded into the animator: what the specification
/// was doing beside each of its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedCounterexample {
    pub assertion: usize,
    pub spec_initial: Vec<String>,
    pub spec_after: Vec<Vec<String>>,
    /// How many of the path's steps are still the counterexample's.
    pub valid: usize,
    /// What goes wrong at the end, in words.
    pub verdict: String,
    /// For a divergence: the first step (from 1) of the τ-loop the last
    /// steps make.
    pub loop_from: Option<usize>,
}

impl LoadedCounterexample {
    /// The specification's states at path position `p`, while the path
    /// still follows the counterexample.
    pub fn spec_at(&self, p: usize) -> Option<&[String]> {
        if p > self.valid {
            return None;
        }
        match p {
            0 => Some(self.spec_initial.as_slice()),
            p => self.spec_after.get(p - 1).map(Vec::as_slice),
        }
        .filter(|s| !s.is_empty())
    }

    /// Whether step `p` (from 1) is part of the counterexample's τ-loop.
    pub fn in_loop(&self, p: usize) -> bool {
        p <= self.valid && self.loop_from.is_some_and(|from| p >= from)
    }
}

/// What a session file holds of a walk ([`Walk::record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkRecord {
    process: String,
    /// Each step's event, the event it hides and its place in the list.
    steps: Vec<(String, Option<String>, u32)>,
}

impl WalkRecord {
    /// The process walked, as the user named it.
    pub fn process(&self) -> &str {
        &self.process
    }
}

/// The animated process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    pub process: String,
    pub outline: Vec<OutlineRow>,
    pub path: StepHistory,
    /// The current state, as the engine described it.
    pub shown: Option<Box<Shown>>,
    pub names: NameTable,
    pub counterexample: Option<LoadedCounterexample>,
    pub symmetry: SymmetryAbout,
    /// Whether the process is symmetric, so the reduced walk exists.
    pub reducible: bool,
    /// Walking the reduced system: the states shown are representatives.
    pub reduced: bool,
    /// The state marked for comparison, with the path that reaches it.
    pub mark: Option<Mark>,
    /// Distinct states met.
    pub seen: usize,
}

impl Walk {
    /// The walk of a process just opened (keeping `reduced` mode when
    /// the new process has a reduced walk too), with the mark it found
    /// again (why one was dropped is the caller's to say).
    pub fn new(animated: Animated, reduced: bool) -> Walk {
        let mut path = StepHistory::new(animated.initial);
        let walked = animated.walked;
        path.extend(&walked.steps, walked.position);
        let mut names = NameTable::default();
        names.learn(walked.names);
        Walk {
            process: animated.process,
            outline: animated.outline,
            path,
            seen: walked.shown.seen,
            shown: Some(walked.shown),
            names,
            counterexample: None,
            symmetry: animated.symmetry,
            reducible: animated.reducible,
            reduced: reduced && animated.reducible,
            mark: animated.mark.and_then(Result::ok),
        }
    }

    /// Marks the current state (of the walk shown: reduced or raw).
    pub fn mark_here(&mut self) {
        self.mark = Some(Mark {
            at: self.path.current(),
            reduced: self.reduced,
            steps: self.path.taken(),
        });
    }

    /// The current state's moves (none while it is described).
    pub fn moves(&self) -> &[ShownMove] {
        self.shown.as_ref().map_or(&[], |s| s.moves.as_slice())
    }

    /// Whether the state shown is the path's current one.
    pub fn is_current(&self) -> bool {
        self.shown
            .as_ref()
            .is_some_and(|s| s.at == self.path.current() && s.reduced == self.shows_reduced())
    }

    /// Whether the states shown are the reduced walk's.
    pub fn shows_reduced(&self) -> bool {
        self.reduced && self.path.current().has_reduced()
    }

    /// The components the step into the current state changed.
    pub fn changed(&self) -> &[usize] {
        self.shown.as_ref().map_or(&[], |s| s.changed.as_slice())
    }

    /// Step `p`'s (from 1) label in the walk shown: the event, with the
    /// event it hides.
    pub fn step_label(&self, p: usize) -> (String, Option<String>) {
        self.label_in(p, self.reduced)
    }

    /// Step `p`'s (from 1) label in the raw walk (`reduced` false) or
    /// the reduced one.
    pub fn label_in(&self, p: usize, reduced: bool) -> (String, Option<String>) {
        let (event, hidden, _) = self.path.step(p).seen(reduced);
        (
            self.names.event(event).to_string(),
            self.names.hidden(hidden).map(str::to_string),
        )
    }

    /// Whether the walk holds steps only the user can make again: some
    /// steps, not all of them a loaded counterexample's (which opens
    /// again from the Checks pane).
    pub fn is_users(&self) -> bool {
        let followed = self.counterexample.as_ref().map_or(0, |cx| cx.valid);
        self.path.len() > followed
    }

    /// The walk's steps in words, undone ones included: two walks with
    /// the same record save the same session, whatever the engine
    /// numbered their states (a reload renumbers them).
    pub fn record(&self) -> WalkRecord {
        let steps = (1..=self.path.len())
            .map(|p| {
                let (event, hidden, choice) = self.path.step(p).seen(false);
                let hidden = self.names.hidden(hidden).map(str::to_string);
                (self.names.event(event).to_string(), hidden, choice)
            })
            .collect();
        WalkRecord {
            process: self.process.clone(),
            steps,
        }
    }

    /// The process and path, to be replayed on a reloaded script.
    pub fn walk_path(&self) -> WalkPath {
        WalkPath {
            process: self.process.clone(),
            path: self.path.saved(),
            position: self.path.position(),
            mark: self.mark.clone(),
        }
    }

    /// The walk in a few words: its process, where it stands, and the
    /// counterexample it loaded (while it follows it).
    pub fn summary(&self) -> String {
        let at = format!("step {} of {}", self.path.position(), self.path.len());
        match self.following() {
            Some(assertion) => format!(
                "{} (counterexample of assertion {assertion}, {at})",
                self.process
            ),
            None => format!("{} ({at})", self.process),
        }
    }

    /// The assertion (from 1) whose counterexample the whole path still
    /// is.
    pub fn following(&self) -> Option<usize> {
        self.counterexample
            .as_ref()
            .filter(|cx| cx.valid == self.path.len())
            .map(|cx| cx.assertion + 1)
    }

    /// The counterexample's steps no longer hold past position `p` once
    /// the path changes there.
    pub fn diverge_at(&mut self, p: usize) {
        if let Some(cx) = &mut self.counterexample {
            cx.valid = cx.valid.min(p);
        }
    }
}

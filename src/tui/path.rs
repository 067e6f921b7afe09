//! The path walked in the animator, kept compact: per state a
//! [`Position`] (numbers into the engine's stores) and per step a
//! [`Step`] of plain numbers, so that a run of millions of random steps
//! costs tens of bytes a step, not a state's text. Event and permutation
//! names are kept once each in a [`NameTable`].

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::engine::{NONE, Names, Position, Step};

/// Positions `0..=steps.len()`: `positions[0]` is the initial state and
/// `positions[i + 1]` follows `steps[i]`. Steps past `position` were
/// undone and can be redone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepHistory {
    positions: Vec<Position>,
    steps: Vec<Step>,
    position: usize,
}

impl StepHistory {
    pub fn new(initial: Position) -> StepHistory {
        StepHistory {
            positions: vec![initial],
            steps: Vec::new(),
            position: 0,
        }
    }

    /// Where the walk is: the number of steps taken.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Every step, undone ones included.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    pub fn current(&self) -> Position {
        self.positions[self.position]
    }

    pub fn at(&self, p: usize) -> Position {
        self.positions[p]
    }

    /// Step `p` (from 1): the step into position `p`.
    pub fn step(&self, p: usize) -> Step {
        self.steps[p - 1]
    }

    /// The step into the current state, with the state before it.
    pub fn into_current(&self) -> Option<(Position, Step)> {
        (self.position > 0).then(|| (self.positions[self.position - 1], self.step(self.position)))
    }

    /// Moves to position `p` (undo, redo, going back).
    pub fn goto(&mut self, p: usize) {
        self.position = p.min(self.steps.len());
    }

    /// Adds steps after the current position (dropping undone ones) and
    /// moves to the `then`-th of them.
    pub fn extend(&mut self, taken: &[(Step, Position)], then: usize) {
        if taken.is_empty() {
            return;
        }
        self.steps.truncate(self.position);
        self.positions.truncate(self.position + 1);
        for &(step, to) in taken {
            self.steps.push(step);
            self.positions.push(to);
        }
        self.position += then.min(taken.len());
    }

    /// The steps from the initial state to the current one (not those
    /// undone).
    pub fn taken(&self) -> Vec<(Step, Position)> {
        self.steps[..self.position]
            .iter()
            .copied()
            .zip(self.positions[1..=self.position].iter().copied())
            .collect()
    }

    /// The whole path as the engine saves it.
    pub fn saved(&self) -> (Position, Vec<(Step, Position)>) {
        let steps = self
            .steps
            .iter()
            .copied()
            .zip(self.positions[1..].iter().copied())
            .collect();
        (self.positions[0], steps)
    }
}

/// Names of events and permutations, by the engine's numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameTable {
    events: FxHashMap<u32, Arc<str>>,
    permutations: FxHashMap<u32, Arc<str>>,
}

impl NameTable {
    pub fn learn(&mut self, names: Names) {
        self.events.extend(names.events);
        self.permutations.extend(names.permutations);
    }

    pub fn event(&self, id: u32) -> &str {
        if id == NONE {
            return "";
        }
        self.events.get(&id).map_or("?", |s| s)
    }

    /// The event hidden behind a step, if any.
    pub fn hidden(&self, id: u32) -> Option<&str> {
        (id != NONE).then(|| self.event(id))
    }

    /// A permutation's text (empty for the identity).
    pub fn permutation(&self, id: u32) -> &str {
        if id == NONE {
            return "";
        }
        self.permutations.get(&id).map_or("", |s| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lts::animator::EventKind;

    fn position(raw: u32) -> Position {
        Position {
            raw,
            reduced: NONE,
            sigma: NONE,
        }
    }

    fn step(event: u32) -> Step {
        Step {
            kind: EventKind::Visible,
            event,
            hidden: NONE,
            choice: 0,
            reduced_event: NONE,
            reduced_hidden: NONE,
            reduced_choice: NONE,
            permutation: NONE,
        }
    }

    #[test]
    fn extending_after_an_undo_drops_the_undone_steps() {
        let mut path = StepHistory::new(position(0));
        path.extend(&[(step(5), position(1)), (step(6), position(2))], 2);
        assert_eq!(path.position(), 2);
        path.goto(1);
        assert_eq!(path.current(), position(1));
        assert_eq!(path.len(), 2, "undone steps stay until a new step");
        assert_eq!(path.taken(), [(step(5), position(1))]);
        path.extend(&[(step(7), position(3))], 1);
        assert_eq!(path.len(), 2);
        assert_eq!(path.step(2), step(7));
        assert_eq!(path.current(), position(3));
        assert_eq!(path.into_current(), Some((position(1), step(7))));
        let (initial, steps) = path.saved();
        assert_eq!(initial, position(0));
        assert_eq!(steps, [(step(5), position(1)), (step(7), position(3))]);
    }

    #[test]
    fn a_replay_can_stop_short_of_its_last_step() {
        let mut path = StepHistory::new(position(0));
        path.extend(&[(step(5), position(1)), (step(6), position(2))], 1);
        assert_eq!(path.position(), 1);
        assert_eq!(path.len(), 2);
        path.goto(9);
        assert_eq!(path.position(), 2);
    }
}

//! One step of both walks: the initial state and its representative,
//! and a move taken in one walk with the matching move of the other,
//! the two related by the permutation σ.

use crate::eval::EvalResult;
use crate::explain::walk::{Mirrored, Settled};
use crate::lts::animator::{Taken, kind_of};
use crate::process::EventId;
use crate::symmetry::Permutation;
use crate::tui::engine::{NONE, Position, Step};
use crate::tui::model::Stepper;

use super::{WalkParts, WalkState};

impl WalkState {
    pub(super) fn initial(&mut self) -> EvalResult<Position> {
        self.with(|ctx| ctx.initial()).0
    }
}

impl WalkParts<'_, '_> {
    /// The position of the initial state.
    fn initial(&mut self) -> EvalResult<Position> {
        let row = self.stepper.animator.initial();
        let (raw, _) = self.raw.insert(&row);
        let mut at = Position {
            raw,
            reduced: NONE,
            sigma: NONE,
        };
        if let Some((rep, pi)) = self.representative(&row)? {
            at.reduced = self.reduced.insert(&rep).0;
            at.sigma = self.permutations.id(&pi);
        }
        Ok(at)
    }

    /// The representative of `row` and the permutation that made it.
    fn representative(&mut self, row: &[u32]) -> EvalResult<Option<(Vec<u32>, Permutation)>> {
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let Ok(lens) = lens.as_mut() else {
            return Ok(None);
        };
        let (machine, procs) = animator.parts_mut();
        let mut out = vec![0; row.len()];
        let pi = lens
            .system
            .canonical(machine, procs, row, &mut out)?
            .clone();
        Ok(Some((out, pi)))
    }

    /// The move `taken` to `target` seen through `perm`: the other
    /// walk's matching move.
    fn mirror(&mut self, perm: &Permutation, taken: &Taken, target: &[u32]) -> Mirrored {
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().expect("only reduced walks permute");
        let (machine, procs) = animator.parts_mut();
        lens.system
            .mirror(machine, procs, perm, (taken.event, taken.hidden), target)
    }

    /// The reduced walk settled on the representative of `target`, with
    /// σ after it.
    fn settle(&mut self, sigma: &Permutation, target: &[u32]) -> EvalResult<Settled> {
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().expect("the walk is reduced");
        let (machine, procs) = animator.parts_mut();
        lens.system.settle(machine, procs, sigma, target)
    }

    /// How many moves the state at `at` has (in the mode's walk); the
    /// animator is left ready to take one.
    pub(super) fn moves_of(&mut self, at: Position, reduced: bool) -> EvalResult<usize> {
        let reduced = reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        self.stepper.animator.compute_moves(&row)
    }

    /// The place of the move of `row` with `event` into `target`.
    pub(super) fn find_move(
        &mut self,
        row: &[u32],
        event: EventId,
        target: &[u32],
    ) -> EvalResult<Option<usize>> {
        let n = self.stepper.animator.compute_moves(row)?;
        let mut after = Vec::new();
        for k in 0..n {
            let taken = self.stepper.animator.take(row, k, &mut after);
            if taken.event == event && after == target {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    /// Takes move `choice` of the state at `at` — of the reduced walk's
    /// state in `reduced` mode — and the matching move of the other walk.
    pub(super) fn advance(
        &mut self,
        at: Position,
        choice: usize,
        reduced: bool,
    ) -> EvalResult<Result<(Step, Position), String>> {
        let reduced = reduced && at.has_reduced();
        let here = self.row(at.state(reduced), reduced);
        let n = self.stepper.animator.compute_moves(&here)?;
        if choice >= n {
            return Ok(Err(format!("there is no move {} here", choice + 1)));
        }
        let mut target = Vec::new();
        let taken = self.stepper.animator.take(&here, choice, &mut target);
        let kind = kind_of(taken.event);
        if !at.has_reduced() {
            let (raw, _) = self.raw.insert(&target);
            let step = Step {
                kind,
                event: self.note_event(Some(taken.event)),
                hidden: self.note_event(taken.hidden),
                choice: choice as u32,
                reduced_event: NONE,
                reduced_hidden: NONE,
                reduced_choice: NONE,
                permutation: NONE,
            };
            let next = Position {
                raw,
                reduced: NONE,
                sigma: NONE,
            };
            return Ok(Ok((step, next)));
        }
        let sigma = self.permutations.list[at.sigma as usize].clone();
        // The two walks' moves: `raw -e-> raw'` and `σ(raw) -σ(e)-> σ(raw')`.
        let (raw_row, raw_target, raw_move, reduced_row, reduced_target, reduced_move) = if reduced
        {
            let raw = self.mirror(&sigma.inverse(), &taken, &target);
            let raw_row = self.row(at.raw, false);
            let reduced_move = (Some(taken.event), taken.hidden);
            let raw_move = (Some(raw.event), raw.hidden);
            (raw_row, raw.target, raw_move, here, target, reduced_move)
        } else {
            let reduced = self.mirror(&sigma, &taken, &target);
            let reduced_row = self.row(at.reduced, true);
            let reduced_move = (Some(reduced.event), reduced.hidden);
            let raw_move = (Some(taken.event), taken.hidden);
            (
                here,
                target,
                raw_move,
                reduced_row,
                reduced.target,
                reduced_move,
            )
        };
        let raw_choice = match reduced {
            false => Some(choice),
            true => self.find_move(&raw_row, raw_move.0.expect("an event"), &raw_target)?,
        };
        let reduced_choice = match reduced {
            true => Some(choice),
            false => self.find_move(
                &reduced_row,
                reduced_move.0.expect("an event"),
                &reduced_target,
            )?,
        };
        let (Some(raw_choice), Some(reduced_choice)) = (raw_choice, reduced_choice) else {
            return Ok(Err(
                "internal error: the step has no matching move in the other walk (the system \
                 is not symmetric after all); please report it"
                    .to_string(),
            ));
        };
        let settled = self.settle(&sigma, &reduced_target)?;
        let step = Step {
            kind,
            event: self.note_event(raw_move.0),
            hidden: self.note_event(raw_move.1),
            choice: raw_choice as u32,
            reduced_event: self.note_event(reduced_move.0),
            reduced_hidden: self.note_event(reduced_move.1),
            reduced_choice: reduced_choice as u32,
            permutation: self.permutations.id(&settled.pi),
        };
        let next = Position {
            raw: self.raw.insert(&raw_target).0,
            reduced: self.reduced.insert(&settled.representative).0,
            sigma: self.permutations.id(&settled.sigma),
        };
        Ok(Ok((step, next)))
    }
}

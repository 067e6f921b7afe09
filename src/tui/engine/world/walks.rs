//! The walks taken step by step: moves fired and random walks, saved
//! paths replayed and marks found again by their path, and a walk's path
//! as a session saves it.

use crate::eval::EvalResult;
use crate::tui::engine::{Control, Mark, NONE, Names, Position, Replay, Reply, Step, Walked, Want};
use crate::tui::session::{SavedMark, SavedStep};

use super::{POLL_EVERY, WalkParts, WalkState};

impl WalkState {
    /// The reply for `steps` taken from `from`, showing the last state.
    pub(super) fn walked(
        &mut self,
        steps: Vec<(Step, Position)>,
        position: usize,
        stopped: Option<String>,
        from: Position,
        names: Option<Names>,
        want: Want,
    ) -> Walked {
        let at = match position {
            0 => from,
            p => steps[p - 1].1,
        };
        let into = match position {
            0 => None,
            1 => Some((from, steps[0].0)),
            p => Some((steps[p - 2].1, steps[p - 1].0)),
        };
        let (shown, more) = self.with(|ctx| ctx.show(at, into, want));
        let mut names = names.unwrap_or_default();
        names.events.extend(more.events);
        names.permutations.extend(more.permutations);
        Walked {
            steps,
            position,
            stopped,
            shown: Box::new(shown),
            names,
        }
    }

    /// Takes up to `limit` steps from `at`, each the move `choose` picks
    /// among the current state's `n` (`None` stops), watching `control`.
    pub(super) fn run(
        &mut self,
        at: Position,
        want: Want,
        control: &Control,
        limit: usize,
        mut choose: impl FnMut(usize, usize) -> Option<usize>,
    ) -> Reply {
        let ((steps, stopped), names) = self.with(|ctx| {
            ctx.walk_from(at, want.reduced, control, limit, |ctx, k, here| {
                let n = ctx
                    .moves_of(here, want.reduced)
                    .map_err(|e| ctx.render(e))?;
                choose(k, n).ok_or_else(|| "no event was possible".to_string())
            })
        });
        let position = steps.len();
        Reply::Walked(self.walked(steps, position, stopped, at, Some(names), want))
    }

    /// Replays saved steps from `initial`: each by its place in the list
    /// when the event there is still the saved one (and, where saved,
    /// reaches the same components), else the first move with its event
    /// and components after it, else with its event.
    pub(super) fn replay(
        &mut self,
        initial: Position,
        replay: &Replay,
        want: Want,
        control: &Control,
    ) -> Walked {
        let ((steps, stopped), names) = self
            .with(|ctx| ctx.follow_saved(initial, &replay.steps, "the trace replayed", control));
        let position = replay.position.min(steps.len());
        self.walked(steps, position, stopped, initial, Some(names), want)
    }

    /// Finds a saved mark again by its path from `initial`, as a replay
    /// finds its steps; why not, when the path no longer fits.
    pub(super) fn find_mark(
        &mut self,
        initial: Position,
        mark: &SavedMark,
        control: &Control,
    ) -> Result<Mark, String> {
        let ((steps, stopped), _) =
            self.with(|ctx| ctx.follow_saved(initial, &mark.steps, "the marked path", control));
        match stopped {
            Some(why) => Err(why),
            None => Ok(Mark {
                at: steps.last().map_or(initial, |&(_, at)| at),
                reduced: mark.reduced,
                steps,
            }),
        }
    }

    /// The path as a session saves it: each step's event as printed,
    /// its place in the list and, where another move of its state has the
    /// same event, the components it changed as they were after it.
    pub(super) fn saved_steps(
        &mut self,
        initial: Position,
        steps: &[(Step, Position)],
        control: &Control,
    ) -> Result<Vec<SavedStep>, String> {
        let (saved, _) = self.with(|ctx| {
            let mut saved = Vec::with_capacity(steps.len());
            let mut from = initial;
            for (k, &(step, to)) in steps.iter().enumerate() {
                if k.is_multiple_of(POLL_EVERY) {
                    control.advance(k as u64);
                    if control.cancelled() {
                        return Err("saving cancelled: the file was not written".to_string());
                    }
                }
                let row = ctx.row(from.raw, false);
                let n = ctx
                    .stepper
                    .animator
                    .compute_moves(&row)
                    .map_err(|e| e.to_diagnostic().render(&ctx.script.sources))?;
                let mut after = Vec::new();
                let twins = (0..n)
                    .filter(|&k| ctx.stepper.animator.take(&row, k, &mut after).event == step.event)
                    .count();
                let after = if twins > 1 {
                    let target = ctx.row(to.raw, false);
                    let animator = &ctx.stepper.animator;
                    animator
                        .changed_by(step.choice as usize)
                        .into_iter()
                        .map(|slot| animator.show_component(slot, target[slot]))
                        .collect()
                } else {
                    Vec::new()
                };
                let procs = ctx.stepper.animator.processes();
                saved.push(SavedStep {
                    event: procs.show_event(step.event),
                    hidden: (step.hidden != NONE).then(|| procs.show_event(step.hidden)),
                    choice: step.choice as usize,
                    after,
                });
                from = to;
            }
            Ok(saved)
        });
        saved
    }
}

impl WalkParts<'_, '_> {
    /// Takes up to `limit` steps from `at` (in the reduced walk's terms
    /// with `reduced`), the `k`-th the move `pick` chooses from the
    /// position reached (an `Err` stops, saying why), watching `control`:
    /// the steps taken and why they stopped short.
    pub(super) fn walk_from(
        &mut self,
        at: Position,
        reduced: bool,
        control: &Control,
        limit: usize,
        mut pick: impl FnMut(&mut Self, usize, Position) -> Result<usize, String>,
    ) -> (Vec<(Step, Position)>, Option<String>) {
        let mut steps: Vec<(Step, Position)> = Vec::new();
        let mut here = at;
        while steps.len() < limit {
            let k = steps.len();
            if k.is_multiple_of(POLL_EVERY) {
                control.advance(k as u64);
                if control.cancelled() {
                    return (steps, Some("cancelled".to_string()));
                }
            }
            let taken =
                pick(self, k, here).and_then(|choice| match self.advance(here, choice, reduced) {
                    Ok(taken) => taken,
                    Err(e) => Err(self.render(e)),
                });
            match taken {
                Ok((step, next)) => {
                    steps.push((step, next));
                    here = next;
                }
                Err(why) => return (steps, Some(why)),
            }
        }
        (steps, None)
    }

    /// Takes the saved `steps` from `at` in the raw walk, as far as they
    /// fit ([`Self::find_saved`]); where one no longer does, says so,
    /// naming `what` they are (`the trace replayed`).
    fn follow_saved(
        &mut self,
        at: Position,
        steps: &[SavedStep],
        what: &str,
        control: &Control,
    ) -> (Vec<(Step, Position)>, Option<String>) {
        control.start(steps.len() as u64);
        self.walk_from(at, false, control, steps.len(), |ctx, k, here| {
            let saved = &steps[k];
            match ctx.find_saved(here, saved) {
                Ok(Some(choice)) => Ok(choice),
                Ok(None) => {
                    // As the Trace pane shows it: a τ with the event it
                    // hid, which is what no longer fits.
                    let step =
                        crate::lts::animator::step_text(&saved.event, saved.hidden.as_deref());
                    Err(format!(
                        "{what} stops at step {} of {}: `{step}` is not possible here",
                        k + 1,
                        steps.len()
                    ))
                }
                Err(e) => Err(ctx.render(e)),
            }
        })
    }

    /// The move a saved step took from `at` (raw walk), if it still fits.
    fn find_saved(&mut self, at: Position, saved: &SavedStep) -> EvalResult<Option<usize>> {
        let row = self.row(at.raw, false);
        let enabled = self.stepper.animator.enabled(&row)?;
        let texts = |e: &crate::lts::animator::Enabled,
                     animator: &crate::lts::animator::Animator| {
            e.slots()
                .map(|slot| animator.show_component(slot, e.target[slot]))
                .collect::<Vec<_>>()
        };
        // The event, and the event a τ hid, must be the saved ones; the
        // components after it tell apart moves that read the same.
        let same_event = |i: usize| {
            enabled[i].label == saved.event
                && (saved.hidden.is_none() || enabled[i].hidden == saved.hidden)
        };
        let fits = |i: usize| {
            same_event(i)
                && (saved.after.is_empty()
                    || texts(&enabled[i], &self.stepper.animator) == saved.after)
        };
        if saved.choice < enabled.len() && fits(saved.choice) {
            return Ok(Some(saved.choice));
        }
        if let Some(i) = (0..enabled.len()).find(|&i| fits(i)) {
            return Ok(Some(i));
        }
        Ok((0..enabled.len()).find(|&i| same_event(i)))
    }
}

//! Following a trace of visible events (`--after`, the trace prompt):
//! the search for it, then its path walked move by move; where the
//! process cannot perform it, why.

use crate::check::trace::{follow, typed_events};
use crate::script::ir::FuncId;
use crate::tui::engine::{Control, Position, Step, Walked, Want};

use super::{WalkParts, WalkState};

impl WalkState {
    /// Follows the trace the animation was opened with (`--after`, the
    /// trace prompt) from `initial`, τ steps as the search for it found
    /// them; where it stops short, says why (the first event that cannot
    /// happen, with the events that could), at the last state reached.
    pub(super) fn follow_trace(
        &mut self,
        initial: Position,
        trace: Result<FuncId, String>,
        process: &str,
        want: Want,
        control: &Control,
    ) -> Walked {
        let ((steps, stopped), names) = self.with(|ctx| match trace {
            Ok(func) => ctx.follow_trace(initial, func, process, control),
            Err(problem) => (Vec::new(), Some(problem)),
        });
        let position = steps.len();
        self.walked(steps, position, stopped, initial, Some(names), want)
    }
}

impl WalkParts<'_, '_> {
    /// Follows the trace `func` (visible events) from `at`: the search
    /// for it ([`follow`]) runs on the animator's own machine, so the
    /// states along the path it finds are states here, and each of its
    /// steps (τ included) is the move between two of them. Where the
    /// process cannot perform the whole trace, the walk stops at the
    /// last state reached and says why.
    fn follow_trace(
        &mut self,
        at: Position,
        func: FuncId,
        process: &str,
        control: &Control,
    ) -> (Vec<(Step, Position)>, Option<String>) {
        let render = |ctx: &Self, d: &crate::syntax::Diagnostic| d.render(&ctx.script.sources);
        let events = match typed_events(self.stepper.animator.processes(), func) {
            Ok(events) => events,
            Err(d) => return (Vec::new(), Some(render(self, &d))),
        };
        let budget = control.search_budget();
        let followed = self
            .stepper
            .animator
            .lend_machine(|procs, machine| follow(procs, machine, &events, &budget));
        let followed = match followed {
            Ok(followed) => followed,
            Err(e) => return (Vec::new(), Some(self.render(e))),
        };
        control.start(followed.path.len() as u64);
        let (steps, stopped) =
            self.walk_from(at, false, control, followed.path.len(), |ctx, k, here| {
                let row = ctx.row(here.raw, false);
                match ctx.find_move(&row, followed.path[k], &followed.rows[k + 1]) {
                    Ok(Some(choice)) => Ok(choice),
                    Ok(None) => Err(format!(
                        "internal error: step {} of the trace's path is not a move here; \
                         please report it",
                        k + 1
                    )),
                    Err(e) => Err(ctx.render(e)),
                }
            });
        let refusal = followed
            .refusal(self.stepper.animator.processes(), func, &events, process)
            .map(|d| render(self, &d));
        (steps, stopped.or(refusal))
    }
}

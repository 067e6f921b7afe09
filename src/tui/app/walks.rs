//! The walks: opening another (a process, a counterexample, a trace),
//! going back to the earlier one, and moving along the one shown
//! (steps, undo and redo, random runs).

use super::super::engine::{Follow, Request, Want};
use super::super::panes::checks::CheckStatus;
use super::super::panes::checks::ChecksPane;
use super::super::panes::events::EventsPane;
use super::super::panes::trace::TracePane;
use super::super::panes::{Effect, plural};
use super::super::walk::{LoadedCounterexample, Walk};
use super::{App, Job, Overlay, Replacement};
use crate::check::wording::at_its_end;
use crate::lts::animator::EventKind;

impl App {
    /// Starts animating `process`; on an error the animation stays and
    /// the diagnostics are shown.
    pub fn animate(&mut self, process: &str) {
        self.replace_walk(Replacement::Process(process.to_string()), false);
    }

    /// Follows `trace` (visible events separated by commas, as `symcsp
    /// rep --after` reads them) from the animated process's initial
    /// state, in a new walk.
    pub fn follow_trace(&mut self, trace: &str) {
        if self.walk.is_none() {
            self.complain("nothing is animated: there is no process to follow a trace in");
            return;
        }
        self.replace_walk(Replacement::Trace(trace.to_string()), false);
    }

    /// Says where a trace followed led.
    pub(super) fn say_followed(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        let steps = walk.path.position();
        let count = |kind| {
            (1..=steps)
                .filter(|&p| walk.path.step(p).kind == kind)
                .count()
        };
        let events = count(EventKind::Visible);
        // τ steps are named only when the path took some.
        let tau = match count(EventKind::Tau) {
            0 => String::new(),
            n => format!(" and {}", plural(n as u64, "τ step", "τ steps")),
        };
        let text = format!(
            "followed the trace: {}{tau}{}",
            plural(events as u64, "event", "events"),
            self.back_hint()
        );
        self.say(text);
    }

    /// Loads the counterexample of check `index` into the animator.
    pub fn open_counterexample(&mut self, index: usize) {
        self.replace_walk(Replacement::Counterexample(index), false);
    }

    /// Opens another walk. The walk it replaces is kept as the earlier
    /// walk if it holds the user's steps; when that would drop an
    /// earlier walk of the user's, asks first (`confirmed`: asked).
    pub(super) fn replace_walk(&mut self, replacement: Replacement, confirmed: bool) {
        let keep = self.walk.as_ref().is_some_and(Walk::is_users);
        let request = match &replacement {
            Replacement::Process(process) => Some((
                Job::Animate { keep },
                Request::Animate {
                    process: process.clone(),
                    follow: None,
                    want: self.want(),
                    keep,
                    mark: None,
                },
            )),
            Replacement::Counterexample(index) => self.follow_request(*index, keep),
            Replacement::Trace(trace) => self.walk.as_ref().map(|walk| {
                (
                    Job::Trace { keep },
                    Request::Animate {
                        process: walk.process.clone(),
                        follow: Some(Follow::Trace(trace.clone())),
                        want: self.want(),
                        keep,
                        // The same process: a state marked on it is
                        // still there to compare with.
                        mark: walk.mark.clone(),
                    },
                )
            }),
        };
        let Some((job, request)) = request else {
            return;
        };
        // Asked only when the engine can take the request at once.
        self.await_quick();
        if keep
            && !confirmed
            && self.busy.is_none()
            && self.earlier.as_ref().is_some_and(Walk::is_users)
        {
            self.overlay = Some(Overlay::ConfirmDrop(replacement));
            return;
        }
        self.request(job, request);
    }

    /// The request that loads check `index`'s counterexample, or a
    /// complaint that there is none.
    fn follow_request(&mut self, index: usize, keep: bool) -> Option<(Job, Request)> {
        let row = self.panes.of_type::<ChecksPane>().rows.get(index)?;
        let CheckStatus::Done(done) = &row.status else {
            self.complain("run the check first (c)");
            return None;
        };
        let (Some(cx), Some(shown)) = (&done.result.counterexample, &done.counterexample) else {
            self.complain("this check has no counterexample to open");
            return None;
        };
        let loaded = LoadedCounterexample {
            assertion: index,
            spec_initial: shown.spec_initial.clone(),
            spec_after: shown.steps.iter().map(|s| s.spec.clone()).collect(),
            valid: 0,
            verdict: at_its_end(shown),
            loop_from: cx.loop_from.map(|k| k + 1),
        };
        let request = Request::Animate {
            process: row.implementation.clone(),
            follow: Some(Follow::Counterexample(Box::new(cx.clone()))),
            want: self.want(),
            keep,
            mark: None,
        };
        let job = Job::Follow {
            cx: Box::new(loaded),
            keep,
        };
        Some((job, request))
    }

    /// Swaps the walk shown with the earlier one.
    pub(super) fn swap_walk(&mut self) {
        let Some(earlier) = &self.earlier else {
            self.complain(
                "there is no earlier walk: opening another process or a counterexample keeps \
                 the walk it replaces, if you took steps on it",
            );
            return;
        };
        let want = Want {
            reduced: earlier.reduced,
            ..self.want()
        };
        let (at, into) = (earlier.path.current(), earlier.path.into_current());
        self.request(Job::Swap, Request::Swap { at, into, want });
    }

    /// Takes move `i` of the state shown. Taking the move an undone step
    /// took redoes it.
    pub fn fire(&mut self, i: usize) {
        let Some(walk) = &self.walk else {
            return;
        };
        if !walk.is_current() || i >= walk.moves().len() {
            return;
        }
        let p = walk.path.position();
        let redo = p < walk.path.len() && {
            let (_, _, choice) = walk.path.step(p + 1).seen(walk.reduced);
            choice as usize == i
        };
        if redo {
            self.goto(p + 1);
            return;
        }
        let (at, want) = (walk.path.current(), self.want());
        self.request(
            Job::Fire,
            Request::Fire {
                at,
                choice: i,
                want,
            },
        );
    }

    /// Moves to path position `p` (undo, redo and going back).
    pub fn goto(&mut self, p: usize) {
        let want = self.want();
        let Some(walk) = &mut self.walk else {
            return;
        };
        if p > walk.path.len() || (p == walk.path.position() && walk.is_current()) {
            return;
        }
        self.await_quick();
        let Some(walk) = &mut self.walk else {
            return;
        };
        if self.busy.is_some() {
            self.complain(format!(
                "busy: {} (Esc cancels)",
                self.busy.as_ref().expect("busy").job.doing()
            ));
            return;
        }
        walk.path.goto(p);
        self.panes.of_type_mut::<TracePane>().list.selected = p;
        let (at, into) = (walk.path.current(), walk.path.into_current());
        self.request(Job::Show, Request::Show { at, into, want });
    }

    /// Describes the current state again (the mode or the view changed).
    pub(super) fn show_again(&mut self) {
        let want = self.want();
        let Some(walk) = &self.walk else {
            return;
        };
        let (at, into) = (walk.path.current(), walk.path.into_current());
        self.request(Job::Show, Request::Show { at, into, want });
    }

    pub(super) fn random(&mut self, steps: usize) {
        let want = self.want();
        let Some(walk) = &self.walk else {
            return;
        };
        let at = walk.path.current();
        let seed = self.rng.u64(..);
        self.request(
            Job::Random(steps),
            Request::Random {
                at,
                steps,
                seed,
                want,
            },
        );
    }
    /// Fires the `n`th event the Events pane lists (unless the pane is
    /// hidden).
    pub(super) fn fire_nth(&mut self, n: usize) {
        if let Some(why) = self.events_hidden() {
            self.complain(format!("{n}: no event fired, {why}"));
            return;
        }
        let effect = match &self.walk {
            Some(walk) => self.panes.of_type::<EventsPane>().nth(n, walk.moves()),
            None => Effect::None,
        };
        self.effect(effect);
    }

    /// Goes back a step.
    pub(super) fn undo(&mut self) {
        match self.walk.as_ref().map(|w| w.path.position()) {
            Some(0) => self.complain("already at the initial state"),
            Some(p) => self.goto(p - 1),
            None => {}
        }
    }

    /// Takes again the step undone last.
    pub(super) fn redo(&mut self) {
        match &self.walk {
            Some(w) if w.path.position() < w.path.len() => {
                let p = w.path.position();
                self.goto(p + 1);
            }
            Some(_) => self.complain("nothing to redo"),
            None => {}
        }
    }

    /// Takes one random step, or says why no event is possible.
    pub(super) fn random_step(&mut self) {
        // A step still out may end where nothing can move.
        self.await_quick();
        if self.walk.as_ref().is_some_and(|w| w.moves().is_empty()) {
            self.complain(self.why_no_event());
        } else {
            self.random(1);
        }
    }
}

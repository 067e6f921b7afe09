//! Quitting: asking first while work runs, keeping the user's walks
//! that no session holds on the way out, quitting whatever runs, and
//! ending when the process is asked to.

use std::time::Instant;

use super::super::config::Command;
use super::super::engine::Request;
use super::super::panes::checks::ChecksPane;
use super::super::session;
use super::{App, Job, Overlay};

impl App {
    /// Quits, keeping first, one at a time, each walk of the user's that
    /// no session file holds ([`App::keep_walks_in`]); where they
    /// are is said once the screen is restored ([`App::farewell`]).
    pub(super) fn leave(&mut self) {
        let unsaved = [(false, &self.walk), (true, &self.earlier)]
            .into_iter()
            .filter(|_| !self.keeping_failed)
            .find_map(|(earlier, walk)| {
                let walk = walk.as_ref().filter(|w| w.is_users())?;
                let record = walk.record();
                (!self.saved_walks.contains(&record)).then_some((earlier, walk, record))
            })
            .map(|(earlier, walk, record)| {
                let (initial, steps) = walk.path.saved();
                let mark = walk.mark.clone();
                (earlier, record, initial, steps, walk.path.position(), mark)
            });
        let Some((earlier, record, initial, steps, position, mark)) = unsaved else {
            self.quit = true;
            return;
        };
        match session::new_kept_file(self.keep_walks_in.as_deref()) {
            Ok(path) => {
                self.request(
                    Job::Keep { record, earlier },
                    Request::Save {
                        path,
                        earlier,
                        initial,
                        steps,
                        position,
                        mark,
                    },
                );
            }
            Err(problem) => self.keeping_failed(&problem),
        }
    }

    /// Quits whatever runs: the check is cancelled, and the engine is
    /// stopped first, as what it was doing may add steps to the walk
    /// (they are kept once it has stopped, within [`STOP_PATIENCE`](super::STOP_PATIENCE)).
    pub(super) fn quit_anyway(&mut self) {
        self.panes.of_type_mut::<ChecksPane>().stop_queue();
        if let Some(h) = self.panes.of_type::<ChecksPane>().running() {
            h.cancel();
        }
        if self.busy.is_some() {
            self.engine.control.cancel();
            self.quitting = Some(Instant::now());
            self.say("stopping, then quitting…");
        } else {
            self.leave();
        }
    }

    /// The process is asked to end: quits without asking anything.
    pub(super) fn terminate(&mut self) {
        self.overlay = None;
        self.terminating = true;
        self.quit_anyway();
    }

    /// A walk could not be kept on the way out: said, and the next quit
    /// leaves without it.
    pub(super) fn keeping_failed(&mut self, problem: &str) {
        if self.terminating {
            // No one is there to answer: said on the way out.
            self.farewell
                .push(format!("note: your walk could not be kept: {problem}"));
            self.quit = true;
            return;
        }
        self.keeping_failed = true;
        self.complain(format!(
            "your walk could not be kept before quitting: {problem}; {} saves it elsewhere, {} \
             again quits without it",
            self.key_of(Command::SaveSession),
            self.key_of(Command::Quit)
        ));
    }
    /// Quits, or asks first while a check or a request runs.
    pub(super) fn quit_or_ask(&mut self) {
        if self.check_running() || self.busy.is_some() {
            self.overlay = Some(Overlay::ConfirmQuit);
        } else {
            self.leave();
        }
    }
}

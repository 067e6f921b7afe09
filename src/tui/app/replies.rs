//! The engine's replies: what each changes in the model, as the job it
//! answers says.

use std::path::PathBuf;

use super::super::config::{Command, PaneId};
use super::super::engine::{Animated, Chosen, Compared, Opened, Reply, Shown, Walked};
use super::super::panes::checks::ChecksPane;
use super::super::panes::events::EventsPane;
use super::super::panes::plural;
use super::super::panes::script::ScriptPane;
use super::super::panes::symmetry::Section;
use super::super::panes::symmetry::SymmetryPane;
use super::super::panes::trace::TracePane;
use super::super::walk::{Walk, WalkRecord};
use super::{App, Job, Overlay};
use crate::symmetry::strategy::Strategy;

impl App {
    /// The engine's answer to the request out.
    pub(super) fn receive(&mut self, reply: Reply) {
        let Some(busy) = self.busy.take() else {
            return;
        };
        let cancelled = std::mem::take(&mut self.cancelling);
        self.apply(busy.job, reply);
        if cancelled
            && self
                .message
                .as_ref()
                .is_some_and(|m| m.text == "cancelling…")
        {
            self.say("cancelled");
        }
    }

    /// What a reply to job `job` changes.
    fn apply(&mut self, job: Job, reply: Reply) {
        match (job, reply) {
            (
                Job::Reload {
                    strategy: Some((_, before)),
                },
                Reply::Refused(problem),
            ) => {
                self.strategy = before;
                self.complain(format!("the strategy is not changed: {problem}"));
            }
            (_, Reply::Refused(problem)) => self.refused(problem),
            (_, Reply::OpenFailed { problem, .. }) => {
                self.problem = Some(problem);
                self.walk = None;
            }
            (Job::Reload { strategy }, Reply::Reloaded(opened)) => {
                self.reloaded(strategy, *opened);
            }
            (job, Reply::Opened(opened) | Reply::Reloaded(opened)) => {
                self.opened_for(&job, *opened);
            }
            (job, Reply::Animated(animated)) => self.animated(job, *animated),
            (Job::Swap, Reply::Shown(shown)) => self.swapped(*shown),
            (job, Reply::Walked(walked)) => self.walked(job, walked),
            (_, Reply::Shown(shown)) => self.shown(*shown),
            (_, Reply::Compared(compared)) => self.compared(compared),
            (_, Reply::Chosen(chosen)) => self.chosen(*chosen),
            (job, Reply::Exported(Ok(path))) => {
                let of = match job {
                    Job::Export {
                        of_representative: true,
                    } => " of the raw state here (the reduced walk shows its representative)",
                    _ => "",
                };
                self.say(format!(
                    "the stages{of} written to {} (Markdown)",
                    path.display()
                ));
                self.export_path = Some(path);
            }
            (_, Reply::Exported(Err(problem))) => self.complain(problem),
            (Job::Keep { record, earlier }, Reply::Saved(Ok(path))) => {
                self.kept(record, earlier, path);
            }
            (Job::Keep { .. }, Reply::Saved(Err(problem))) => self.keeping_failed(&problem),
            (job, Reply::Saved(Ok(path))) => {
                if let Job::Save { record } = job {
                    self.saved_walks.push(record);
                }
                self.say(format!("session saved to {}", path.display()));
                self.session_path = Some(path);
            }
            (_, Reply::Saved(Err(problem))) => self.complain(problem),
        }
    }

    /// A request refused: why, over the screen when it takes more than a
    /// line.
    fn refused(&mut self, problem: String) {
        if problem.lines().count() > 1 {
            self.overlay = Some(Overlay::Problem(problem));
        } else {
            self.complain(problem);
        }
    }

    /// The script read again (`strategy`: for a new strategy, what to
    /// say once done): what became of the earlier walk said too.
    fn reloaded(&mut self, strategy: Option<(String, Strategy)>, opened: Opened) {
        let earlier = self.earlier.as_ref().map(|w| w.process.clone());
        let source = self.source.clone();
        self.opened(opened);
        let done = match strategy {
            Some((said, _)) => said,
            None if self.source == source => "reloaded".to_string(),
            None => format!("opened {}", self.source.name()),
        };
        match earlier {
            Some(process) if self.earlier.is_none() => self.complain(format!(
                "{done}; the earlier walk on {process} was dropped: the process no \
                 longer opens"
            )),
            _ if self.message.as_ref().is_none_or(|m| !m.error) => self.say(done),
            _ => {}
        }
    }

    /// A script opened for `job`: a saved session's walk is recorded as
    /// saved, and where a replayed or followed trace led is said.
    fn opened_for(&mut self, job: &Job, opened: Opened) {
        self.opened(opened);
        let quiet = self.message.as_ref().is_none_or(|m| !m.error);
        if let (
            Job::Open {
                replaying: true, ..
            },
            Some(walk),
        ) = (job, &self.walk)
        {
            // The session file holds this walk.
            self.saved_walks.push(walk.record());
        }
        if let (
            Job::Open {
                replaying: true, ..
            },
            Some(path),
            Some(walk),
            true,
        ) = (job, &self.session_path, &self.walk, quiet)
        {
            self.say(format!(
                "session {} reopened: step {} of {}",
                path.display(),
                walk.path.position(),
                walk.path.len()
            ));
        }
        if let (
            Job::Open {
                following: true, ..
            },
            true,
        ) = (job, quiet)
        {
            self.say_followed();
        }
    }

    /// Another walk opened for `job` (a process, a counterexample, a
    /// trace): installed, the one it replaces kept as the earlier walk
    /// if the job says so.
    fn animated(&mut self, job: Job, animated: Animated) {
        let process = animated.process.clone();
        let followed = animated.followed;
        let left = self.install(animated);
        if let Job::Animate { keep: true }
        | Job::Follow { keep: true, .. }
        | Job::Trace { keep: true } = job
        {
            self.earlier = left;
        }
        match job {
            Job::Follow { mut cx, .. } => {
                let taken = followed.unwrap_or(0);
                cx.valid = taken;
                self.focus = PaneId::TRACE;
                self.say(format!(
                    "counterexample of assertion {} loaded: {} ({} and {} step \
                     through it{})",
                    cx.assertion + 1,
                    plural(taken as u64, "step", "steps"),
                    self.key_of(Command::Undo),
                    self.key_of(Command::Redo),
                    self.back_hint()
                ));
                if let Some(walk) = &mut self.walk {
                    walk.counterexample = Some(*cx);
                }
            }
            Job::Trace { .. } => {
                if self.message.as_ref().is_none_or(|m| !m.error) {
                    self.say_followed();
                }
            }
            _ => self.say(format!("animating {process}{}", self.back_hint())),
        }
    }

    /// Back to the earlier walk, at its state `shown`.
    fn swapped(&mut self, shown: Shown) {
        std::mem::swap(&mut self.walk, &mut self.earlier);
        self.walk_changed();
        self.shown(shown);
        if let Some(walk) = &self.walk {
            self.say(format!("back to {}{}", walk.summary(), self.back_hint()));
        }
    }

    /// The current state compared with the marked one, in the symmetry
    /// view.
    fn compared(&mut self, compared: Box<Compared>) {
        self.say(format!(
            "compared with the marked state: {}",
            compared.headline
        ));
        self.panes.of_type_mut::<SymmetryPane>().compared = Some(compared);
        self.panes
            .of_type_mut::<SymmetryPane>()
            .show(Section::Compare);
        // The rest of the view explains this state.
        self.open_symmetry();
    }

    /// A walk of the user's kept on the way out, in `path`: said once
    /// the screen is restored, and the next one kept.
    fn kept(&mut self, record: WalkRecord, earlier: bool, path: PathBuf) {
        let which = if earlier {
            "your earlier walk (the one b went back to)"
        } else {
            "your walk"
        };
        self.farewell.push(format!(
            "note: {which} of {} was not saved: it is kept in {1} (`symcsp --session \
             {1}` reopens it)",
            record.process(),
            path.display()
        ));
        self.saved_walks.push(record);
        self.leave();
    }

    /// A script loaded: list it and install its animation (and, on a
    /// reload, the earlier walk replayed).
    fn opened(&mut self, opened: Opened) {
        let reduced = self.earlier.as_ref().is_some_and(|w| w.reduced);
        let earlier_stopped = opened
            .earlier
            .as_ref()
            .and_then(|a| Some((a.process.clone(), a.walked.stopped.clone()?)));
        let earlier_dropped = opened
            .earlier
            .as_ref()
            .and_then(|a| Some((a.process.clone(), mark_dropped(a)?)));
        self.earlier = opened.earlier.map(|animated| Walk::new(*animated, reduced));
        self.source = opened.source;
        self.panes.of_type_mut::<ScriptPane>().list(&opened.listing);
        self.panes
            .of_type_mut::<ChecksPane>()
            .list(opened.listing.script.clone(), &opened.listing.assertions);
        match opened.animated {
            Ok(animated) => {
                self.problem = None;
                // Types asked for that do not apply: said at once, not
                // only when the symmetry view opens.
                if let (Some(_), Some(problem)) = (&self.asked_symmetry, &animated.symmetry.problem)
                {
                    self.overlay = Some(Overlay::Problem(format!("--symmetry: {problem}")));
                }
                self.install(*animated);
            }
            Err(problem) => {
                self.walk = None;
                self.problem = Some(problem);
            }
        }
        // A replay of the earlier walk cut short is said too, after what
        // the walk shown says.
        if let Some((process, why)) = earlier_stopped {
            self.also_complain(format!("the earlier walk on {process}: {why}"));
        }
        if let Some((process, why)) = earlier_dropped {
            self.also_complain(format!("on the earlier walk on {process}, {why}"));
        }
    }

    /// A process opened: a new walk. Returns the walk it replaced.
    fn install(&mut self, animated: Animated) -> Option<Walk> {
        let reduced = self.walk.as_ref().is_some_and(|w| w.reduced);
        let stopped = animated.walked.stopped.clone();
        let dropped = mark_dropped(&animated);
        let left = self.walk.replace(Walk::new(animated, reduced));
        self.walk_changed();
        if let Some(stopped) = stopped {
            self.stopped_short(stopped);
        }
        if let Some(dropped) = dropped {
            self.also_complain(dropped);
        }
        left
    }

    /// Why a walk opened stopped short of what it was to replay or
    /// follow: on the status line and, where that needs more than a
    /// line (a diagnostic with its caret and the events that could
    /// happen), over the screen too.
    fn stopped_short(&mut self, why: String) {
        match why.lines().count() {
            0 | 1 => self.complain(why),
            _ => {
                // The diagnostic's message and notes, without its place.
                let first = why.lines().next().unwrap_or_default();
                let notes = why
                    .lines()
                    .filter_map(|line| line.split_once("= note: ").map(|(_, note)| note));
                let said: Vec<&str> =
                    std::iter::once(first.strip_prefix("error: ").unwrap_or(first))
                        .chain(notes)
                        .collect();
                self.complain(said.join("; "));
                self.overlay = Some(Overlay::Problem(why));
            }
        }
    }

    /// Complains, after the complaint already shown if there is one.
    fn also_complain(&mut self, text: String) {
        match &self.message {
            Some(m) if m.error => self.complain(format!("{}; {text}", m.text)),
            _ => self.complain(text),
        }
    }

    /// Another walk is shown: the panes start afresh on it.
    fn walk_changed(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        self.panes.of_type_mut::<TracePane>().list.selected = walk.path.position();
        let events = self.panes.of_type_mut::<EventsPane>();
        events.filter.clear();
        events.list.selected = 0;
        let symmetry = self.panes.of_type_mut::<SymmetryPane>();
        symmetry.compared = None;
        symmetry.hand = None;
        self.problem = None;
        self.after_show();
    }

    fn walked(&mut self, job: Job, walked: Walked) {
        let Some(walk) = &mut self.walk else {
            return;
        };
        let before = walk.path.position();
        let taken = walked.steps.len();
        if taken > 0 {
            walk.diverge_at(before);
        }
        walk.names.learn(walked.names);
        walk.path.extend(&walked.steps, walked.position);
        walk.seen = walked.shown.seen;
        walk.shown = Some(walked.shown);
        self.panes.of_type_mut::<TracePane>().list.selected = walk.path.position();
        self.after_show();
        match (job, walked.stopped) {
            (Job::Random(asked), stopped) => {
                let steps = plural(taken as u64, "random step", "random steps");
                match stopped {
                    Some(why) if taken < asked => self.say(format!("{steps} taken; then {why}")),
                    _ => self.say(format!("{steps} taken")),
                }
            }
            (_, Some(why)) => self.complain(why),
            _ => {}
        }
    }

    fn shown(&mut self, shown: Shown) {
        let Some(walk) = &mut self.walk else {
            return;
        };
        walk.seen = shown.seen;
        walk.shown = Some(Box::new(shown));
        self.after_show();
    }

    /// Keeps the panes' selections within what the new state shows.
    fn after_show(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        self.panes.of_type_mut::<EventsPane>().fit(walk.moves());
        if let Some(shown) = &walk.shown {
            self.panes.of_type_mut::<SymmetryPane>().fit(
                shown.symmetry.as_deref(),
                shown.at,
                shown.reduced,
            );
        }
    }

    /// Step 3 made by hand: its stages shown in place of the
    /// algorithm's own, and what came of it said.
    fn chosen(&mut self, chosen: Chosen) {
        let current = self
            .walk
            .as_ref()
            .and_then(|w| w.shown.as_ref())
            .is_some_and(|s| s.at == chosen.at && s.reduced == chosen.reduced);
        if !current {
            // The walk moved on while the engine worked.
            return;
        }
        let member = chosen.choices.last().map_or(String::new(), |&c| {
            let text = chosen.symmetry.state.get(c).map_or("", String::as_str);
            format!("#{} {text} split off", c + 1)
        });
        let came = if chosen.differs {
            "another representative of the same class (below)"
        } else {
            "the algorithm's own representative"
        };
        self.say(format!("step 3 by hand: {member} — {came}"));
        let (at, reduced) = (chosen.at, chosen.reduced);
        self.panes.of_type_mut::<SymmetryPane>().hand = Some(Box::new(chosen));
        self.panes
            .of_type_mut::<SymmetryPane>()
            .fit(None, at, reduced);
    }
}

/// Why the mark a walk was opened with was dropped, if it was: its path
/// no longer fits.
fn mark_dropped(animated: &Animated) -> Option<String> {
    match &animated.mark {
        Some(Err(why)) => Some(format!(
            "the mark was dropped: the path to the marked state no longer fits ({why})"
        )),
        _ => None,
    }
}

//! Opening a walk: animating a process of the loaded script (replaying
//! a saved path, following a trace, finding a mark again), following a
//! check's counterexample, and reloading the script with its walks
//! replayed; and the paths and marks as a session saves them, read off
//! the walk that made them.

use rustc_hash::FxHashSet;

use crate::lts::store::StateStore;
use crate::tui::engine::{Animated, Control, Mark, Opened, Replay, Reply, WalkPath, Want};
use crate::tui::model::{Animation, Listing, Source};
use crate::tui::session::SavedMark;

use super::{Permutations, WalkState, World};

impl World {
    /// Opens `process` in the loaded script, replaying or following what
    /// `opening` holds; with `refuse_failing`, a process whose first
    /// moves cannot be computed is refused.
    pub(super) fn animate(
        &mut self,
        process: &str,
        opening: Opening,
        want: Want,
        refuse_failing: bool,
    ) -> Result<Box<Animated>, String> {
        let source = self.source.clone().ok_or("no script is loaded")?;
        let Opening {
            replay,
            trace,
            mark,
        } = opening;
        let animation = Animation::open(
            &source,
            process,
            (self.symmetry.as_deref(), self.strategy),
            trace.as_deref(),
            self.control.meter(),
        )?;
        let width = animation.with_dependent(|_, s| s.animator.components());
        let mut walk = WalkState {
            animation,
            process: process.to_string(),
            raw: StateStore::new(width),
            reduced: StateStore::new(width),
            permutations: Permutations::default(),
            named: FxHashSet::default(),
        };
        let initial = walk.initial().map_err(|e| walk.render(e))?;
        let trace = walk.animation.with_dependent(|_, s| s.trace.clone());
        let mark = mark.or_else(|| replay.as_ref().and_then(|r| r.mark.clone()));
        let walked = match (replay, trace) {
            (Some(replay), _) => walk.replay(initial, &replay, want, &self.control),
            (None, Some(trace)) => walk.follow_trace(initial, trace, process, want, &self.control),
            (None, None) => walk.walked(Vec::new(), 0, None, initial, None, want),
        };
        let mark = mark.map(|mark| walk.find_mark(initial, &mark, &self.control));
        // A process typed in whose first moves fail (`Lock [] 5`) is
        // refused as a name error is: the one animated stays, with its
        // trace. With nothing animated, or moves only stopped (Esc, a
        // budget), the state is shown with why.
        if let (true, Some(problem), true) =
            (refuse_failing, &walked.shown.problem, walked.shown.failed)
        {
            return Err(problem.clone());
        }
        let (outline, symmetry, reducible) = walk.animation.with_dependent(|_, s| {
            let about = match &s.lens {
                Ok(lens) => lens.about.clone(),
                Err(about) => about.clone(),
            };
            (s.animator.outline(), about, s.lens.is_ok())
        });
        self.walk = Some(walk);
        Ok(Box::new(Animated {
            process: process.to_string(),
            outline,
            initial,
            symmetry,
            reducible,
            walked,
            followed: None,
            mark,
        }))
    }

    /// Opens `process` and follows a check's counterexample on it.
    pub(super) fn follow(
        &mut self,
        process: &str,
        cx: &crate::check::counterexample::Counterexample,
        want: Want,
    ) -> Result<Box<Animated>, String> {
        let mut animated = self.animate(process, Opening::default(), want, false)?;
        let walk = self.walk.as_mut().expect("just animated");
        let followed = walk
            .animation
            .with_dependent_mut(|_, s| s.animator.follow(cx.path()));
        let (choices, stopped) = match followed {
            Ok(moves) => (moves.into_iter().map(|(c, _)| c).collect::<Vec<_>>(), None),
            Err(e) => {
                return Err(format!(
                    "the counterexample could not be followed at step {} (`{}`)",
                    e.step + 1,
                    walk.event_text(e.event)
                ));
            }
        };
        let count = choices.len();
        let mut choices = choices.into_iter();
        let control = Control::default();
        let Reply::Walked(mut walked) =
            walk.run(animated.initial, want, &control, count, |_, _| {
                choices.next()
            })
        else {
            return Err("the counterexample could not be followed".into());
        };
        walked.stopped = walked.stopped.or(stopped);
        animated.followed = Some(walked.steps.len());
        animated.walked = walked;
        Ok(animated)
    }

    /// Reads the script again (or `from`) and replays the walks on it:
    /// all or nothing (but an earlier walk whose process no longer opens
    /// is dropped).
    pub(super) fn reload(
        &mut self,
        from: Option<Source>,
        (process, replay): (String, Replay),
        earlier: Option<(String, Replay)>,
        want: Want,
    ) -> Reply {
        let Some(source) = from.or_else(|| self.source.clone()) else {
            return Reply::Refused("no script is loaded".into());
        };
        let listing = match source.load(&self.control.meter()) {
            Ok(loaded) => Listing::new(loaded),
            Err(problem) => return Reply::Refused(problem),
        };
        // The old walks (and script) stay until the new ones are ready.
        let old_source = self.source.replace(source.clone());
        let old = self.walk.take();
        let old_earlier = self.earlier.take();
        // The earlier walk first, set aside (`animate` installs what it
        // opens).
        let (earlier, earlier_walk) = earlier
            .and_then(|(process, replay)| {
                let opening = Opening {
                    replay: Some(replay),
                    ..Opening::default()
                };
                let animated = self.animate(&process, opening, want, false).ok()?;
                Some((animated, self.walk.take()?))
            })
            .unzip();
        let opening = Opening {
            replay: Some(replay),
            ..Opening::default()
        };
        let animated = self
            .animate(&process, opening, want, false)
            .or_else(|problem| {
                // The script loads but the process no longer does: the
                // new script, animating its default process.
                let fallback = listing.default_process().filter(|p| *p != process);
                match fallback.map(|p| self.animate(&p, Opening::default(), want, false)) {
                    Some(Ok(animated)) => Ok(animated),
                    _ => Err(problem),
                }
            });
        match animated {
            Ok(animated) => {
                self.earlier = earlier_walk;
                Reply::Reloaded(Box::new(Opened {
                    source,
                    listing,
                    animated: Ok(animated),
                    earlier,
                }))
            }
            Err(problem) => {
                self.source = old_source;
                self.walk = old;
                self.earlier = old_earlier;
                Reply::Refused(problem)
            }
        }
    }
}

/// What a walk opens with, besides its process.
#[derive(Default)]
pub(super) struct Opening {
    /// A saved path to replay (a session, a reload).
    pub(super) replay: Option<Replay>,
    /// A trace to follow (`--after`, the trace prompt).
    pub(super) trace: Option<String>,
    /// A mark to find again (one a replay holds is found too).
    pub(super) mark: Option<SavedMark>,
}

/// A walk's process and the replay of its path and mark, read off the
/// walk that made them (none: nothing to read, an empty path).
pub(super) fn replay_of(
    mut walk: Option<&mut WalkState>,
    path: WalkPath,
    control: &Control,
) -> Result<(String, Replay), String> {
    let (initial, steps) = path.path;
    let steps = match walk.as_deref_mut() {
        Some(walk) => walk.saved_steps(initial, &steps, control)?,
        None => Vec::new(),
    };
    let mark = match &path.mark {
        Some(mark) => saved_mark(walk, mark, control)?,
        None => None,
    };
    let replay = Replay {
        steps,
        position: path.position,
        mark,
    };
    Ok((path.process, replay))
}

/// A mark as a session saves it, read off the walk that made it (none:
/// nothing to read it from).
pub(super) fn saved_mark(
    walk: Option<&mut WalkState>,
    mark: &Mark,
    control: &Control,
) -> Result<Option<SavedMark>, String> {
    let Some(walk) = walk else {
        return Ok(None);
    };
    // The initial state is stored already: this finds its position.
    let initial = walk.initial().map_err(|e| walk.render(e))?;
    let steps = walk.saved_steps(initial, &mark.steps, control)?;
    Ok(Some(SavedMark {
        steps,
        reduced: mark.reduced,
    }))
}

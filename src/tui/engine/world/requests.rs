//! The engine's answer to each request: the request taken apart and
//! handed to the world's walks.

use std::path::PathBuf;

use crate::symmetry::strategy::Strategy;
use crate::tui::engine::{Follow, Mark, Opened, Position, Reply, Request, Step, WalkPath, Want};
use crate::tui::model::{Listing, Source};
use crate::tui::session::Session;

use super::World;
use super::explain::NOT_SYMMETRIC;
use super::opening::{Opening, replay_of, saved_mark};

impl World {
    pub(super) fn handle(&mut self, request: Request) -> Reply {
        match request {
            Request::Open {
                source,
                process,
                symmetry,
                strategy,
                replay,
                trace,
            } => {
                let opening = Opening {
                    replay,
                    trace,
                    ..Opening::default()
                };
                self.open(source, process, (symmetry, strategy), opening)
            }
            Request::Animate {
                process,
                follow,
                want,
                keep,
                mark,
            } => self.animate_another(&process, follow, want, keep, mark),
            Request::Reload {
                from,
                walk,
                earlier,
                want,
                strategy,
            } => self.reload_walks(from, walk, earlier, want, strategy),
            Request::Swap { at, into, want } => self.swap(at, into, want),
            Request::Show { at, into, want } => match self.walk.as_mut() {
                Some(walk) => Reply::Shown(Box::new(walk.show(at, into, want))),
                None => Reply::Refused("nothing is animated".into()),
            },
            Request::Fire { at, choice, want } => {
                let control = self.control.clone();
                control.start(1);
                match self.walk.as_mut() {
                    Some(walk) => walk.run(at, want, &control, 1, |_, _| Some(choice)),
                    None => Reply::Refused("nothing is animated".into()),
                }
            }
            Request::Random {
                at,
                steps,
                seed,
                want,
            } => self.random(at, steps, seed, want),
            Request::Save {
                path,
                earlier,
                initial,
                steps,
                position,
                mark,
            } => self.save(path, earlier, (initial, steps, position), mark),
            Request::Choose { at, choices, want } => match self.walk.as_mut() {
                Some(walk) => match walk.with(|ctx| ctx.choose(at, &choices, want)).0 {
                    Some(chosen) => Reply::Chosen(Box::new(chosen)),
                    None => Reply::Refused(NOT_SYMMETRIC.into()),
                },
                None => Reply::Refused("nothing is animated".into()),
            },
            Request::Export {
                at,
                choices,
                want,
                trace,
                command,
                path,
            } => self.export(at, &choices, want, (trace, command), path),
            Request::Compare { marked, here } => match self.walk.as_mut() {
                Some(walk) => walk.compare(marked, here),
                None => Reply::Refused("nothing is animated".into()),
            },
        }
    }

    /// [`Request::Open`]: loads `source` and animates `process` (else
    /// its default process) with `symmetry` and its strategy, opening
    /// as `opening` says.
    fn open(
        &mut self,
        source: Source,
        process: Option<String>,
        (symmetry, strategy): (Option<String>, Strategy),
        opening: Opening,
    ) -> Reply {
        // No count from an earlier request shows while it loads.
        self.control.start(0);
        self.symmetry = symmetry;
        self.strategy = strategy;
        let listing = match source.load(&self.control.meter()) {
            Ok(loaded) => Listing::new(loaded),
            Err(problem) => return Reply::OpenFailed { source, problem },
        };
        self.source = Some(source.clone());
        self.earlier = None;
        let process = process.or_else(|| listing.default_process());
        let animated = match process {
            Some(process) => self.animate(&process, opening, Want::default(), false),
            None => Err("this script defines no process to animate: type one with e".to_string()),
        };
        Reply::Opened(Box::new(Opened {
            source,
            listing,
            animated,
            earlier: None,
        }))
    }

    /// [`Request::Animate`]: animates another process of the script,
    /// following what `follow` holds; the walk replaced stays (as the
    /// earlier walk with `keep`) when the new one is refused.
    fn animate_another(
        &mut self,
        process: &str,
        follow: Option<Follow>,
        want: Want,
        keep: bool,
        mark: Option<Mark>,
    ) -> Reply {
        // A process typed in whose first moves fail is refused
        // while another is animated.
        let refuse_failing = self.walk.is_some();
        let mut before = self.walk.take();
        // The mark as a session saves it, read off the walk that
        // made it.
        let mark = match mark.map(|m| saved_mark(before.as_mut(), &m, &self.control)) {
            Some(Err(problem)) => {
                self.walk = before;
                return Reply::Refused(problem);
            }
            Some(Ok(mark)) => mark,
            None => None,
        };
        let animated = match follow {
            Some(Follow::Counterexample(cx)) => self.follow(process, &cx, want),
            Some(Follow::Trace(trace)) => {
                let opening = Opening {
                    trace: Some(trace),
                    mark,
                    ..Opening::default()
                };
                self.animate(process, opening, want, refuse_failing)
            }
            None => self.animate(process, Opening::default(), want, refuse_failing),
        };
        match animated {
            Ok(animated) => {
                if keep {
                    self.earlier = before;
                }
                Reply::Animated(animated)
            }
            Err(problem) => {
                self.walk = before;
                Reply::Refused(problem)
            }
        }
    }

    /// [`Request::Reload`]: reads the script again (or `from`) with
    /// `strategy`, replaying `walk` and `earlier` on it; the strategy
    /// before stays when the reload is refused.
    fn reload_walks(
        &mut self,
        from: Option<Source>,
        walk: WalkPath,
        earlier: Option<WalkPath>,
        want: Want,
        strategy: Strategy,
    ) -> Reply {
        // The paths as a session saves them, read off the old
        // walks before the script changes.
        let walk = replay_of(self.walk.as_mut(), walk, &self.control);
        let earlier = earlier
            .map(|path| replay_of(self.earlier.as_mut(), path, &self.control))
            .transpose();
        match (walk, earlier) {
            (Ok(walk), Ok(earlier)) => {
                let before = std::mem::replace(&mut self.strategy, strategy);
                let reply = self.reload(from, walk, earlier, want);
                if matches!(reply, Reply::Refused(_)) {
                    self.strategy = before;
                }
                reply
            }
            (Err(problem), _) | (_, Err(problem)) => Reply::Refused(problem),
        }
    }

    /// [`Request::Swap`]: the earlier walk in place of the one animated,
    /// its state at `at` described.
    fn swap(&mut self, at: Position, into: Option<(Position, Step)>, want: Want) -> Reply {
        if self.earlier.is_none() {
            return Reply::Refused("there is no earlier walk to go back to".into());
        }
        std::mem::swap(&mut self.walk, &mut self.earlier);
        let walk = self.walk.as_mut().expect("the earlier walk, swapped in");
        Reply::Shown(Box::new(walk.show(at, into, want)))
    }

    /// [`Request::Random`]: up to `steps` random moves from `at`, chosen
    /// by a generator seeded with `seed`.
    fn random(&mut self, at: Position, steps: usize, seed: u64, want: Want) -> Reply {
        let control = self.control.clone();
        control.start(steps as u64);
        let mut rng = fastrand::Rng::with_seed(seed);
        match self.walk.as_mut() {
            Some(walk) => walk.run(at, want, &control, steps, |_, n| {
                (n > 0).then(|| rng.usize(..n))
            }),
            None => Reply::Refused("nothing is animated".into()),
        }
    }

    /// [`Request::Save`]: the session of the walk shown (or the
    /// `earlier` one) written to `path`: its path from the initial
    /// position, every step and the position on it, and its mark.
    fn save(
        &mut self,
        path: PathBuf,
        earlier: bool,
        (initial, steps, position): (Position, Vec<(Step, Position)>, usize),
        mark: Option<Mark>,
    ) -> Reply {
        let walk = if earlier {
            self.earlier.as_mut()
        } else {
            self.walk.as_mut()
        };
        let (Some(walk), Some(source)) = (walk, &self.source) else {
            return Reply::Refused("nothing is animated".into());
        };
        self.control.start(steps.len() as u64);
        let saved = walk.saved_steps(initial, &steps, &self.control);
        let mark = match &mark {
            Some(mark) => saved_mark(Some(walk), mark, &self.control),
            None => Ok(None),
        };
        let symmetry = self.symmetry.clone();
        let strategy = (self.strategy != Strategy::Fdr).then(|| self.strategy.to_string());
        Reply::Saved(saved.and_then(|saved| {
            Session {
                symmetry,
                strategy,
                mark: mark?,
                ..Session::new(source, &walk.process, saved, position)
            }
            .save(&path)
            .map(|()| path)
        }))
    }

    /// [`Request::Export`]: the algorithm's stages on the state at `at`
    /// (step 3 by hand with `choices`) written to `path` as Markdown.
    fn export(
        &mut self,
        at: Position,
        choices: &[usize],
        want: Want,
        (trace, command): (Vec<String>, String),
        path: PathBuf,
    ) -> Reply {
        let Some(walk) = self.walk.as_mut() else {
            return Reply::Refused("nothing is animated".into());
        };
        let process = walk.process.clone();
        let document = walk
            .with(|ctx| ctx.document(at, choices, want, &process, (trace, command)))
            .0;
        Reply::Exported(document.and_then(|text| {
            crate::files::write_atomically(&path, text.as_bytes())
                .map(|()| path.clone())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        }))
    }
}

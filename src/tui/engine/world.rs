//! The engine thread's state and its answers: the loaded script, the
//! animated process with its symmetry, the stores of states met, and the
//! stepping of both walks (the raw system's and the reduced system's,
//! related by a permutation σ at every position).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::check::trace::{follow, typed_events};
use crate::eval::EvalResult;
use crate::lts::animator::{Taken, kind_of};
use crate::lts::store::StateStore;
use crate::process::EventId;
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::compare::{Answer, Cause, Comparison, DEFAULT_CANDIDATES, Evidence};
use crate::symmetry::drawing;
use crate::symmetry::graph::StateGraph;
use crate::symmetry::splits::{StepAccount, account};
use crate::symmetry::stages::markdown::markdown;
use crate::symmetry::stages::{Document, Sources, heading};
use crate::symmetry::strategy::Strategy;
use crate::symmetry::walk::{Mirrored, Settled};
use crate::symmetry::{Atom, Permutation};

use super::super::model::{Animation, Listing, Source, Stepper};
use super::super::session::{SavedMark, SavedStep, Session};
use super::{
    Animated, Chosen, Compared, Control, Follow, Mark, Move, NONE, Names, Opened, Parting,
    Position, Replay, Reply, Request, Shown, StateSymmetry, Step, StepWords, StrategyView,
    WalkPath, Walked, Want,
};

/// How many steps of a long request pass between looks at the cancel
/// flag and updates of the progress counters.
const POLL_EVERY: usize = 256;

pub(super) fn serve(requests: Receiver<Request>, replies: Sender<Reply>, control: Arc<Control>) {
    let mut world = World::new(control);
    while let Ok(request) = requests.recv() {
        // A cancel was for the request before.
        world.control.start(0);
        let reply = world.handle(request);
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// Permutations met on the path, numbered.
#[derive(Default)]
struct Permutations {
    list: Vec<Permutation>,
    ids: FxHashMap<Permutation, u32>,
    named: usize,
}

impl Permutations {
    fn id(&mut self, p: &Permutation) -> u32 {
        if let Some(&id) = self.ids.get(p) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(p.clone());
        self.ids.insert(p.clone(), id);
        id
    }
}

/// Everything about the animated process that outlives one request.
struct Walk {
    animation: Animation,
    process: String,
    raw: StateStore,
    reduced: StateStore,
    permutations: Permutations,
    named: FxHashSet<u32>,
}

struct World {
    control: Arc<Control>,
    source: Option<Source>,
    symmetry: Option<String>,
    /// How the symmetry view and the reduced walk find representatives.
    strategy: Strategy,
    walk: Option<Walk>,
    /// The walk left when another process or counterexample was opened,
    /// kept so that the user's trace is not lost (the interface decides
    /// which walk is worth keeping).
    earlier: Option<Walk>,
}

impl World {
    fn new(control: Arc<Control>) -> World {
        World {
            control,
            source: None,
            symmetry: None,
            strategy: Strategy::Fdr,
            walk: None,
            earlier: None,
        }
    }

    fn handle(&mut self, request: Request) -> Reply {
        match request {
            Request::Open {
                source,
                process,
                symmetry,
                strategy,
                replay,
                trace,
            } => {
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
                let opening = Opening {
                    replay,
                    trace,
                    ..Opening::default()
                };
                let animated =
                    match process {
                        Some(process) => self.animate(&process, opening, Want::default(), false),
                        None => Err("this script defines no process to animate: type one with e"
                            .to_string()),
                    };
                Reply::Opened(Box::new(Opened {
                    source,
                    listing,
                    animated,
                    earlier: None,
                }))
            }
            Request::Animate {
                process,
                follow,
                want,
                keep,
                mark,
            } => {
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
                    Some(Follow::Counterexample(cx)) => self.follow(&process, &cx, want),
                    Some(Follow::Trace(trace)) => {
                        let opening = Opening {
                            trace: Some(trace),
                            mark,
                            ..Opening::default()
                        };
                        self.animate(&process, opening, want, refuse_failing)
                    }
                    None => self.animate(&process, Opening::default(), want, refuse_failing),
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
            Request::Reload {
                from,
                walk,
                earlier,
                want,
                strategy,
            } => {
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
            Request::Swap { at, into, want } => {
                if self.earlier.is_none() {
                    return Reply::Refused("there is no earlier walk to go back to".into());
                }
                std::mem::swap(&mut self.walk, &mut self.earlier);
                let walk = self.walk.as_mut().expect("the earlier walk, swapped in");
                Reply::Shown(Box::new(walk.show(at, into, want)))
            }
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
            } => {
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
            Request::Save {
                path,
                earlier,
                initial,
                steps,
                position,
                mark,
            } => {
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
                path,
            } => match self.walk.as_mut() {
                Some(walk) => {
                    let process = walk.process.clone();
                    let document = walk
                        .with(|ctx| ctx.document(at, &choices, want, &process, trace))
                        .0;
                    Reply::Exported(document.and_then(|text| {
                        crate::files::write_atomically(&path, text.as_bytes())
                            .map(|()| path.clone())
                            .map_err(|e| format!("cannot write {}: {e}", path.display()))
                    }))
                }
                None => Reply::Refused("nothing is animated".into()),
            },
            Request::Compare { marked, here } => match self.walk.as_mut() {
                Some(walk) => walk.compare(marked, here),
                None => Reply::Refused("nothing is animated".into()),
            },
        }
    }

    /// Opens `process` in the loaded script, replaying or following what
    /// `opening` holds; with `refuse_failing`, a process whose first
    /// moves cannot be computed is refused.
    fn animate(
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
        let mut walk = Walk {
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
    fn follow(
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
    fn reload(
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
struct Opening {
    /// A saved path to replay (a session, a reload).
    replay: Option<Replay>,
    /// A trace to follow (`--after`, the trace prompt).
    trace: Option<String>,
    /// A mark to find again (one a replay holds is found too).
    mark: Option<SavedMark>,
}

/// A walk's process and the replay of its path and mark, read off the
/// walk that made them (none: nothing to read, an empty path).
fn replay_of(
    mut walk: Option<&mut Walk>,
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
fn saved_mark(
    walk: Option<&mut Walk>,
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

/// The pieces of a walk a step works on, borrowed together.
struct Ctx<'a, 's> {
    script: &'a Script,
    stepper: &'a mut Stepper<'s>,
    raw: &'a mut StateStore,
    reduced: &'a mut StateStore,
    permutations: &'a mut Permutations,
    names: NameLog<'a>,
}

/// The names of the ids sent so far, and those to send with the reply.
struct NameLog<'a> {
    named: &'a mut FxHashSet<u32>,
    new: Names,
}

impl Walk {
    fn render(&self, e: crate::eval::EvalError) -> String {
        self.animation
            .with_dependent(|script, _| e.to_diagnostic().render(&script.sources))
    }

    fn event_text(&self, e: EventId) -> String {
        self.animation
            .with_dependent(|_, s| s.animator.processes().show_event(e))
    }

    /// Runs `f` with the walk's parts borrowed together, and collects
    /// the names it used.
    fn with<R>(&mut self, f: impl FnOnce(&mut Ctx) -> R) -> (R, Names) {
        let Walk {
            animation,
            raw,
            reduced,
            permutations,
            named,
            ..
        } = self;
        animation.with_dependent_mut(|script, stepper| {
            let mut ctx = Ctx {
                script,
                stepper,
                raw,
                reduced,
                permutations,
                names: NameLog {
                    named,
                    new: Names::default(),
                },
            };
            let out = f(&mut ctx);
            ctx.name_permutations();
            (out, ctx.names.new)
        })
    }

    fn initial(&mut self) -> EvalResult<Position> {
        self.with(|ctx| ctx.initial()).0
    }

    fn show(&mut self, at: Position, into: Option<(Position, Step)>, want: Want) -> Shown {
        self.with(|ctx| ctx.show(at, into, want)).0
    }

    /// The reply for `steps` taken from `from`, showing the last state.
    fn walked(
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
    fn run(
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
    fn replay(
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
    fn find_mark(
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

    /// Follows the trace the animation was opened with (`--after`, the
    /// trace prompt) from `initial`, τ steps as the search for it found
    /// them; where it stops short, says why (the first event that cannot
    /// happen, with the events that could), at the last state reached.
    fn follow_trace(
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

    /// The path as a session saves it: each step's event as printed,
    /// its place in the list and, where another move of its state has the
    /// same event, the components it changed as they were after it.
    fn saved_steps(
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

    /// Compares two states, each of the walk it was seen in (`.1`: the
    /// reduced walk's).
    fn compare(&mut self, marked: (Position, bool), here: (Position, bool)) -> Reply {
        let (outcome, _) = self.with(|ctx| {
            let row = |ctx: &mut Ctx, (at, reduced): (Position, bool)| {
                ctx.row(at.state(reduced), reduced && at.has_reduced())
            };
            let (left, right) = (row(ctx, marked), row(ctx, here));
            ctx.compare(&left, &right)
        });
        match outcome {
            Some(compared) => Reply::Compared(Box::new(compared)),
            None => Reply::Refused(
                "this process is not symmetric: there is no representative to compare".into(),
            ),
        }
    }
}

impl Ctx<'_, '_> {
    /// An evaluation's failure in words: a stop (Esc, the memory budget)
    /// plainly, a mistake in the script as its diagnostic.
    fn render(&self, e: crate::eval::EvalError) -> String {
        match e.stop_reason() {
            Some(stop) => stop.ended(),
            None => e.to_diagnostic().render(&self.script.sources),
        }
    }

    /// Takes up to `limit` steps from `at` (in the reduced walk's terms
    /// with `reduced`), the `k`-th the move `pick` chooses from the
    /// position reached (an `Err` stops, saying why), watching `control`:
    /// the steps taken and why they stopped short.
    fn walk_from(
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
                    let step = match &saved.hidden {
                        Some(hidden) => format!("{} ‹{hidden}›", saved.event),
                        None => saved.event.clone(),
                    };
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

    fn row(&self, id: u32, reduced: bool) -> Vec<u32> {
        let mut out = Vec::new();
        if reduced {
            self.reduced.read(id, &mut out);
        } else {
            self.raw.read(id, &mut out);
        }
        out
    }

    fn note_event(&mut self, e: Option<EventId>) -> u32 {
        let Some(e) = e else {
            return NONE;
        };
        if self.names.named.insert(e) {
            let text = self.stepper.animator.processes().show_event(e);
            self.names.new.events.push((e, Arc::from(text)));
        }
        e
    }

    fn name_permutations(&mut self) {
        let Ok(lens) = &self.stepper.lens else {
            return;
        };
        while self.permutations.named < self.permutations.list.len() {
            let id = self.permutations.named;
            let text = self.permutations.list[id].moves_text(&lens.symmetry, self.script);
            self.names
                .new
                .permutations
                .push((id as u32, Arc::from(text)));
            self.permutations.named += 1;
        }
    }

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
    fn moves_of(&mut self, at: Position, reduced: bool) -> EvalResult<usize> {
        let reduced = reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        self.stepper.animator.compute_moves(&row)
    }

    /// The place of the move of `row` with `event` into `target`.
    fn find_move(
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
    fn advance(
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

    /// A state as the panes show it.
    fn show(&mut self, at: Position, into: Option<(Position, Step)>, want: Want) -> Shown {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let changed = into
            .and_then(|(from, step)| {
                let from_row = self.row(from.state(reduced), reduced);
                let (_, _, choice) = step.seen(reduced);
                let n = self.stepper.animator.compute_moves(&from_row).ok()?;
                ((choice as usize) < n).then(|| self.stepper.animator.changed_by(choice as usize))
            })
            .unwrap_or_default();
        let animator = &mut self.stepper.animator;
        let components = (0..animator.components())
            .map(|slot| animator.show_component(slot, row[slot]))
            .collect();
        let (moves, problem, failed) = match animator.enabled(&row) {
            Ok(enabled) => (moves_in_words(animator, enabled), None, false),
            Err(e) => match e.stop_reason() {
                Some(stop) => (
                    Vec::new(),
                    Some(format!(
                        "this state's moves were {} before they were all computed (stepping \
                         away and back computes them again)",
                        stop.ended()
                    )),
                    false,
                ),
                None => (
                    Vec::new(),
                    Some(e.to_diagnostic().render(&self.script.sources)),
                    true,
                ),
            },
        };
        let symmetry = if want.symmetry {
            self.explain(at.state(reduced), reduced, want.width)
                .map(Box::new)
        } else {
            None
        };
        Shown {
            at,
            reduced,
            components,
            changed,
            moves,
            problem,
            failed,
            symmetry,
            seen: self.raw.len(),
        }
    }

    /// Why the states `left` and `right` got the representatives they
    /// did, from the symmetry layer's comparison (`None` without
    /// symmetry).
    fn compare(&mut self, left: &[u32], right: &[u32]) -> Option<Compared> {
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let comparison = lens
            .system
            .compare(machine, procs, left, right, DEFAULT_CANDIDATES);
        // Two representatives: one class or two? The exact canonical form
        // answers (the algorithm's may give one class several).
        let exact = (comparison.left.representative != comparison.right.representative)
            .then(|| {
                let mut canonical = |row: &[u32]| {
                    let mut out = vec![0; row.len()];
                    lens.system
                        .exact_canonical(machine, procs, row, &mut out)
                        .ok()
                        .map(|_| out)
                };
                Some(match canonical(left)? == canonical(right)? {
                    true => "the exact canonical form puts them in one symmetry class: the \
                             algorithm gave this class more than one representative"
                        .to_string(),
                    false => "the exact canonical form puts them in different symmetry classes"
                        .to_string(),
                })
            })
            .flatten();
        let show = |r: &[u32]| -> Vec<String> {
            (0..r.len())
                .map(|slot| animator.show_component(slot, r[slot]))
                .collect()
        };
        let (marked, here) = (show(left), show(right));
        let (permutation, alpha) = match &comparison.answer {
            Answer::Same { mapping } | Answer::NotUnique { mapping, .. } => (
                mapping
                    .permutation
                    .lines(&lens.symmetry, self.script, false),
                mapping.alpha.clone(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let parting = comparison.step_to_show().map(|k| {
            // The partition the sentences speak of: step 1's own, or the
            // one the step where the states part was given.
            let at = k.saturating_sub(1);
            let cells = |trace: &crate::symmetry::rep::Trace| {
                trace
                    .steps
                    .get(at)
                    .map_or(Vec::new(), |s| s.cells().to_vec())
            };
            let name = step_name(&comparison.left.trace, k);
            Parting {
                step: if k == 0 {
                    format!("after {name}")
                } else {
                    format!("before {name}")
                },
                marked: cells(&comparison.left.trace),
                here: cells(&comparison.right.trace),
                split: match &comparison.answer {
                    Answer::NotUnique {
                        cause: Cause::Split { cell, .. },
                        ..
                    } => Some(*cell),
                    _ => None,
                },
                evidence: match &comparison.answer {
                    Answer::NotSymmetric(Evidence::Shapes { left, right }) => {
                        (left.clone(), right.clone())
                    }
                    Answer::NotSymmetric(Evidence::NValues {
                        left_component,
                        right_component,
                        ..
                    }) => (vec![*left_component], vec![*right_component]),
                    _ => (Vec::new(), Vec::new()),
                },
            }
        });
        let representatives = Comparison::representative_lines(
            &show(&comparison.left.representative),
            &show(&comparison.right.representative),
            ("representative of 1", "representative of 2"),
        );
        Some(Compared {
            headline: comparison.answer.headline(),
            sentences: comparison.sentences(&marked, &here),
            n_values: comparison.n_value_lines(&marked, &here),
            representatives,
            permutation,
            alpha,
            parting,
            marked,
            here,
            exact,
        })
    }

    /// State `id`'s representative, explained (`None` without symmetry).
    fn explain(&mut self, id: u32, reduced: bool, width: u16) -> Option<StateSymmetry> {
        let row = self.row(id, reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let x = lens.system.explain(machine, procs, &row);
        let variables = lens.system.variables(machine, procs, &row);
        // Another strategy's representative beside the algorithm's; a
        // budget that stops it leaves the algorithm's alone.
        let strategy = lens.system.strategy();
        let by_strategy = (strategy != Strategy::Fdr)
            .then(|| {
                let mut out = vec![0; row.len()];
                let perm = lens.system.canonical(machine, procs, &row, &mut out).ok()?;
                Some((out, perm.clone()))
            })
            .flatten();
        let same = by_strategy
            .as_ref()
            .is_some_and(|(out, _)| *out == x.representative);
        let mut shown = state_symmetry(animator, &lens.symmetry, self.script, x, variables, width);
        shown.strategy = by_strategy.map(|(out, perm)| StrategyView {
            name: strategy.name(),
            summary: strategy.summary(),
            representative: shown_components(animator, &out),
            moves: perm.moves_text(&lens.symmetry, self.script),
            same_as_algorithm: same,
        });
        Some(shown)
    }

    /// Step 3 by hand on the state at `at` (`None` without symmetry).
    fn choose(&mut self, at: Position, choices: &[usize], want: Want) -> Option<Chosen> {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let hand = lens.system.by_hand(machine, procs, &row, choices);
        let variables = lens.system.variables(machine, procs, &row);
        let show = |r: &[u32]| shown_components(animator, r);
        let texts = show(&hand.chosen.state);
        let outcome = hand.outcome_lines(
            &show(&hand.own.representative),
            &show(&hand.chosen.representative),
            &lens.symmetry,
            self.script,
        );
        Some(Chosen {
            at,
            reduced,
            choices: choices.to_vec(),
            splits: hand.split_lines(&texts),
            outcome,
            differs: hand.differs(),
            symmetry: state_symmetry(
                animator,
                &lens.symmetry,
                self.script,
                hand.chosen,
                variables,
                want.width,
            ),
        })
    }

    /// The algorithm's stages on the state at `at` (step 3 by hand with
    /// `choices`) as Markdown, the stages `symcsp rep --stages --format
    /// markdown` prints; or why there is nothing to show.
    fn document(
        &mut self,
        at: Position,
        choices: &[usize],
        want: Want,
        process: &str,
        trace: Vec<String>,
    ) -> Result<String, String> {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().map_err(|_| NOT_SYMMETRIC.to_string())?;
        let (machine, procs) = animator.parts_mut();
        let x = lens.system.explain_choosing(machine, procs, &row, choices);
        let variables = lens.system.variables(machine, procs, &row);
        let accounts = account(&x.trace, &variables);
        let graph = StateGraph::new(variables, x.trace.final_cells());
        let texts = shown_components(animator, &x.state);
        let document = Document::new(Sources {
            heading: heading(process, &[("after", trace)], &lens.symmetry, self.script),
            explanation: &x,
            accounts: &accounts,
            graph: &graph,
            texts: &texts,
            representative: shown_components(animator, &x.representative),
            symmetry: &lens.symmetry,
            script: self.script,
        });
        match document.nothing_to_show(&lens.symmetry) {
            Some(why) => Err(format!("nothing to export stage by stage: {why}")),
            None => Ok(markdown(&document)),
        }
    }
}

/// What the engine says when asked about the symmetry of a process
/// that has none.
const NOT_SYMMETRIC: &str = "this process is not symmetric: there is no representative to explain";

/// Each component of `row`, as text.
fn shown_components(animator: &crate::lts::animator::Animator, row: &[u32]) -> Vec<String> {
    (0..row.len())
        .map(|slot| animator.show_component(slot, row[slot]))
        .collect()
}

/// The explanation `x` of a state whose distinguished variables are
/// `variables`, in the words the symmetry view shows (its graph drawn
/// `width` columns wide).
fn state_symmetry(
    animator: &crate::lts::animator::Animator,
    symmetry: &crate::symmetry::Symmetry,
    script: &Script,
    x: crate::symmetry::Explanation,
    variables: Vec<crate::symmetry::variables::ComponentVariables>,
    width: u16,
) -> StateSymmetry {
    {
        let show = |r: &[u32]| shown_components(animator, r);
        let texts = show(&x.state);
        let words = account(&x.trace, &variables)
            .iter()
            .map(|step| step_words(step, &texts, &variables))
            .collect();
        let graph = StateGraph::new(variables, x.trace.final_cells());
        let graph = drawing::layout(&graph, &texts, usize::from(width.max(40)));
        let name = |a: Atom| symmetry.name(script, a).to_string();
        let permutation = x.permutation.pairs(symmetry, script, false);
        let moved = permutation
            .iter()
            .flat_map(|(_, pairs)| pairs.iter().filter(|(a, b)| a != b))
            .map(|(a, _)| a.clone())
            .collect();
        let orderings = symmetry
            .types()
            .iter()
            .enumerate()
            .map(|(t, ty)| {
                (
                    ty.name.clone(),
                    x.trace.type_orderings[t].iter().map(|&a| name(a)).collect(),
                    x.trace.appeared[t],
                )
            })
            .collect();
        StateSymmetry {
            words,
            graph,
            state: texts,
            representative: show(&x.representative),
            alpha: x.alpha.clone(),
            permutation,
            moved,
            unique_identities: x.unique_identities,
            unique_guaranteed: x.unique_guaranteed(),
            trace: x.trace,
            orderings,
            strategy: None,
        }
    }
}

/// A step of the algorithm in words.
fn step_words(
    step: &StepAccount,
    texts: &[String],
    variables: &[crate::symmetry::variables::ComponentVariables],
) -> StepWords {
    match step {
        StepAccount::Shapes { .. } => StepWords::default(),
        StepAccount::Refine {
            columns, splits, ..
        } => StepWords {
            columns: columns
                .iter()
                .map(|c| {
                    let groups = c
                        .groups
                        .iter()
                        .map(|g| g.iter().map(|column| column.label()).collect())
                        .collect();
                    (c.cell, groups)
                })
                .collect(),
            sentences: splits
                .iter()
                .flat_map(|split| split.parts.iter().map(|part| part.sentence(texts)))
                .collect(),
        },
        StepAccount::Individualise(split) => StepWords {
            columns: Vec::new(),
            sentences: vec![split.sentence(texts, variables)],
        },
    }
}

/// Step `k` of `trace` by name: `step 1`, `step 2, round 2`, `split 1 of
/// step 3`.
fn step_name(trace: &crate::symmetry::rep::Trace, k: usize) -> String {
    use crate::symmetry::rep::Step;
    let before = &trace.steps[..k.min(trace.steps.len())];
    match trace.steps.get(k) {
        Some(Step::Shapes { .. }) | None => "step 1".to_string(),
        Some(Step::Refine { .. }) => {
            let round = before
                .iter()
                .rev()
                .take_while(|s| matches!(s, Step::Refine { .. }))
                .count()
                + 1;
            format!("step 2, round {round}")
        }
        Some(Step::Individualise { .. }) => {
            let split = before
                .iter()
                .filter(|s| matches!(s, Step::Individualise { .. }))
                .count()
                + 1;
            format!("split {split} of step 3")
        }
    }
}

/// The enabled moves in words, each read the same as another with the
/// components it changes after it.
fn moves_in_words(
    animator: &crate::lts::animator::Animator,
    enabled: Vec<crate::lts::animator::Enabled>,
) -> Vec<Move> {
    let mut count: FxHashMap<(&str, Option<&str>), usize> = FxHashMap::default();
    for e in &enabled {
        *count.entry((&e.label, e.hidden.as_deref())).or_default() += 1;
    }
    let twins: Vec<bool> = enabled
        .iter()
        .map(|e| count[&(e.label.as_str(), e.hidden.as_deref())] > 1)
        .collect();
    enabled
        .into_iter()
        .zip(twins)
        .map(|(e, twin)| {
            let after = if twin {
                e.slots()
                    .map(|slot| (slot, animator.show_component(slot, e.target[slot])))
                    .collect()
            } else {
                Vec::new()
            };
            Move {
                label: e.label,
                kind: e.kind,
                hidden: e.hidden,
                participants: e.participants,
                after,
            }
        })
        .collect()
}

//! The animator's model and its `update`: every key, click and tick is
//! an [`Action`] that `update` applies. The model is composed of the
//! panes (each owning its state and its update, in [`super::panes`]),
//! the walk (the animated process and its path, in [`super::walk`]) and
//! the screen's own state: focus, layout, overlays and messages.
//!
//! Everything evaluated happens on the engine thread
//! ([`super::engine`]): `update` sends a request and the reply arrives on
//! a later tick, so the interface never waits on a script. One request is
//! out at a time; while it is, commands that need the engine say so and
//! Esc cancels it. Tests call [`App::settle`] to wait for the reply.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::config::{Command, Config, Pane};
use super::engine::{
    Animated, Engine, EngineStopped, Follow, Opened, Replay, Reply, Request, Shown, Walked, Want,
};
use super::layout::Layout;
use super::model::Source;
use super::panes::checks::{ChecksPane, describe_counterexample};
use super::panes::events::EventsPane;
use super::panes::script::ScriptPane;
use super::panes::state::StatePane;
use super::panes::symmetry::{Section, SymmetryPane};
use super::panes::trace::TracePane;
use super::panes::{Effect, plural};
use super::prompt::{History, Outcome, Prompt, PromptKey, Purpose};
use super::session::{self, Session};
use super::walk::{LoadedCounterexample, Walk, WalkRecord};
use crate::lts::Budget;
use crate::lts::animator::EventKind;
use crate::symmetry::by_hand::split_offs;
use crate::symmetry::strategy::Strategy;

/// Everything that can happen to the animator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A key-bound command.
    Command(Command),
    /// Editing the open prompt.
    Prompt(PromptKey),
    /// A mouse click at a screen cell.
    Click {
        column: u16,
        row: u16,
    },
    /// The mouse wheel over a screen cell.
    Scroll {
        column: u16,
        row: u16,
        down: bool,
    },
    Resize {
        width: u16,
        height: u16,
    },
    /// Time passes: collect the engine's reply, poll the running check,
    /// let old messages go.
    Tick,
    /// The process is asked to end (`SIGTERM`, or `SIGHUP` as its
    /// terminal goes): quit without asking, keeping a walk not saved.
    Terminate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// Quitting while a check or a long request runs.
    ConfirmQuit,
    /// Opening a file instead of the built-in model (on reload).
    ConfirmOpen(PathBuf),
    /// Opening another walk, which would drop the earlier walk the user
    /// made.
    ConfirmDrop(Replacement),
    Prompt(Prompt),
    /// Diagnostics of a process expression, a reload or a session.
    Problem(String),
}

/// What opening another walk opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replacement {
    /// A process expression.
    Process(String),
    /// The counterexample of the check at this row.
    Counterexample(usize),
    /// The animated process again, following this trace (visible events
    /// separated by commas) from its initial state.
    Trace(String),
}

/// A status line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
    /// Kept through keys until it times out (a problem found at start,
    /// not an answer to a key).
    pub lasting: bool,
    pub at: Instant,
}

/// How long a message stays: information briefly, an error longer.
const MESSAGE_LIFE: Duration = Duration::from_secs(8);
const ERROR_LIFE: Duration = Duration::from_secs(20);

/// How long a key waits for the reply to a quick request before it is
/// refused as "busy".
const QUICK: Duration = Duration::from_millis(250);

/// How long a confirmed quit waits for the engine to stop before it
/// leaves without keeping the walks.
const STOP_PATIENCE: Duration = Duration::from_secs(3);

/// The number of steps a random run offers to take.
const DEFAULT_RANDOM_RUN: usize = 100;
/// The state budget of checks run from the animator.
pub const CHECK_BUDGET: usize = 20_000_000;

/// The request out, and what its reply is for.
#[derive(Debug)]
enum Job {
    /// Opening a script; `replaying` a saved session's trace on it,
    /// `following` a trace given with `--after`.
    Open {
        replaying: bool,
        following: bool,
    },
    /// Animating a process; `keep`: the walk it replaces becomes the
    /// earlier walk.
    Animate {
        keep: bool,
    },
    /// Loading check `cx.assertion`'s counterexample.
    Follow {
        cx: Box<LoadedCounterexample>,
        keep: bool,
    },
    /// Opening the process again to follow a trace the user typed.
    Trace {
        keep: bool,
    },
    /// Going back to the earlier walk.
    Swap,
    /// Reading the script again; `strategy`: for a new representative
    /// strategy, what to say once done and the strategy to go back to if
    /// it cannot be (the walks stay as they were).
    Reload {
        strategy: Option<(String, Strategy)>,
    },
    Show,
    Fire,
    Random(usize),
    /// Saving the session asked for; `record`: the walk saved.
    Save {
        record: WalkRecord,
    },
    /// Keeping a walk of the user's that no session holds, on the way
    /// out ([`App::leave`]).
    Keep {
        record: WalkRecord,
        /// The earlier walk (the one `b` goes back to), not the one shown.
        earlier: bool,
    },
    Compare,
    /// Step 3 by hand on the state shown.
    Choose,
    /// Writing the state's stages to a file.
    Export,
}

impl Job {
    /// What the interface is waiting for, in words.
    fn doing(&self) -> &'static str {
        match self {
            Job::Open {
                replaying: true, ..
            } => "replaying the saved trace",
            Job::Open {
                following: true, ..
            } => "following the trace",
            Job::Open { .. } => "loading the script",
            Job::Trace { .. } => "following the trace",
            Job::Animate { .. } => "compiling the process",
            Job::Follow { .. } => "following the counterexample",
            Job::Swap => "going back to the earlier walk",
            Job::Reload { .. } => "reloading",
            Job::Show => "computing the state's events",
            Job::Fire => "taking the step",
            Job::Random(_) => "random run",
            Job::Save { .. } => "saving the session",
            Job::Keep { .. } => "keeping your walk before quitting",
            Job::Compare => "comparing the states",
            Job::Choose => "running the algorithm with step 3 by hand",
            Job::Export => "exporting the stages",
        }
    }
}

/// The engine's request out.
#[derive(Debug)]
pub struct Busy {
    job: Job,
    pub since: Instant,
}

pub struct App {
    pub config: Config,
    /// The terminal's size.
    pub size: (u16, u16),
    /// Where the panes were last drawn (for the mouse).
    pub layout: Layout,
    pub focus: Pane,
    pub maximised: bool,
    /// Widths of the three columns, in percent.
    pub widths: [u16; 3],
    pub overlay: Option<Overlay>,
    pub message: Option<Message>,
    pub quit: bool,
    pub source: Source,
    /// Why nothing is animated (the script or the process failed).
    pub problem: Option<String>,
    pub walk: Option<Walk>,
    /// The walk left when another process or counterexample was opened,
    /// if it held the user's steps: the swap key goes back to it.
    pub earlier: Option<Walk>,
    pub script: ScriptPane,
    pub state: StatePane,
    pub events: EventsPane,
    pub trace: TracePane,
    pub checks: ChecksPane,
    pub symmetry: SymmetryPane,
    pub budget: Budget,
    pub session_path: Option<PathBuf>,
    /// Where the stages were last exported (offered again).
    pub export_path: Option<PathBuf>,
    /// The walks a session file holds (saved, or reopened): the others
    /// of the user's are kept before quitting.
    saved_walks: Vec<WalkRecord>,
    /// Quitting was confirmed while the engine worked: since when it
    /// has been asked to stop.
    quitting: Option<Instant>,
    /// How the symmetry view and the reduced walk find representatives.
    pub strategy: Strategy,
    /// Keeping a walk failed: the next quit leaves without it.
    keeping_failed: bool,
    /// Quitting because the process was asked to end: nothing is asked.
    terminating: bool,
    /// The events' filter when its prompt opened, for Esc to restore.
    filter_before: String,
    /// Where walks are kept on the way out
    /// ([`session::kept_walks_directory`]).
    pub keep_walks_in: Option<PathBuf>,
    /// What to tell the user once the screen is restored: where the
    /// walks kept on the way out are.
    pub farewell: Vec<String>,
    /// How far the help overlay is scrolled.
    pub help_scroll: usize,
    history: History,
    engine: Engine,
    busy: Option<Busy>,
    /// The screen changed the symmetry view's width since the current
    /// state was explained: its graph is laid out for the old width.
    explanation_stale: bool,
    /// Esc was pressed while the engine worked.
    cancelling: bool,
    /// `--symmetry` was given: a problem with it is shown at once.
    asked_symmetry: bool,
    rng: fastrand::Rng,
}

/// How the animator starts.
#[derive(Debug, Clone, Default)]
pub struct Start {
    pub process: Option<String>,
    /// `--symmetry`: the types of the symmetry view and the reduced walk.
    pub symmetry: Option<String>,
    /// A session to reopen: its path and its steps.
    pub session: Option<(PathBuf, Replay)>,
    /// `--after`: a trace to follow from the initial state.
    pub after: Option<String>,
    /// `--strategy`: how the symmetry view and the reduced walk find
    /// representatives (the `y` key cycles it).
    pub strategy: Strategy,
}

impl App {
    /// Opens `source` and animates `process` (or the script's default
    /// process). The script loads on the engine thread: until it has,
    /// the panes say so.
    pub fn new(source: Source, process: Option<String>, config: Config) -> App {
        App::start(
            source,
            Start {
                process,
                ..Start::default()
            },
            config,
        )
    }

    pub fn start(source: Source, start: Start, config: Config) -> App {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut app = App {
            config,
            size: (120, 40),
            layout: Layout::default(),
            focus: Pane::Events,
            maximised: false,
            widths: [24, 40, 36],
            overlay: None,
            message: None,
            quit: false,
            source: source.clone(),
            problem: None,
            walk: None,
            earlier: None,
            script: ScriptPane::default(),
            state: StatePane::default(),
            events: EventsPane::default(),
            trace: TracePane::default(),
            checks: ChecksPane::default(),
            symmetry: SymmetryPane::default(),
            // The check leaves a core to the user interface.
            budget: Budget {
                max_states: Some(CHECK_BUDGET),
                threads: threads.saturating_sub(1).max(1),
                ..Budget::default()
            },
            session_path: None,
            export_path: None,
            saved_walks: Vec::new(),
            quitting: None,
            strategy: start.strategy,
            keeping_failed: false,
            terminating: false,
            filter_before: String::new(),
            keep_walks_in: session::kept_walks_directory(),
            farewell: Vec::new(),
            help_scroll: 0,
            explanation_stale: false,
            history: History::default(),
            engine: Engine::start(),
            busy: None,
            cancelling: false,
            asked_symmetry: false,
            rng: fastrand::Rng::new(),
        };
        if let Some(problem) = app.config.problems.first().cloned() {
            app.complain(problem);
            if let Some(message) = &mut app.message {
                message.lasting = true;
            }
        }
        let (session_path, replay) = match start.session {
            Some((path, replay)) => (Some(path), Some(replay)),
            None => (None, None),
        };
        app.session_path = session_path;
        app.asked_symmetry = start.symmetry.is_some();
        app.request(
            Job::Open {
                replaying: replay.is_some(),
                following: start.after.is_some(),
            },
            Request::Open {
                source,
                process: start.process,
                symmetry: start.symmetry,
                strategy: start.strategy,
                replay,
                trace: start.after,
            },
        );
        app
    }

    /// Reopens a saved session: its model, process and path.
    pub fn from_session(
        session: &Session,
        path: PathBuf,
        symmetry: Option<String>,
        config: Config,
    ) -> Result<App, String> {
        App::from_session_as(session, path, (symmetry, None), config)
    }

    /// [`App::from_session`], with a strategy instead of the session's
    /// (`--strategy`).
    pub fn from_session_as(
        session: &Session,
        path: PathBuf,
        (symmetry, strategy): (Option<String>, Option<Strategy>),
        config: Config,
    ) -> Result<App, String> {
        let source = session.source()?;
        let strategy = match (strategy, &session.strategy) {
            (Some(strategy), _) => strategy,
            (None, Some(saved)) => Strategy::parse(saved)?,
            (None, None) => Strategy::Fdr,
        };
        Ok(App::start(
            source,
            Start {
                process: Some(session.process.clone()),
                symmetry: symmetry.or_else(|| session.symmetry.clone()),
                session: Some((
                    path,
                    Replay {
                        steps: session.steps.clone(),
                        position: session.position,
                        mark: session.mark.clone(),
                    },
                )),
                after: None,
                strategy,
            },
            config,
        ))
    }

    /// Makes random choices repeatable (for tests).
    pub fn seed(&mut self, seed: u64) {
        self.rng = fastrand::Rng::with_seed(seed);
    }

    /// What the engine is working on, if anything.
    pub fn busy(&self) -> Option<(&'static str, Duration, (u64, u64))> {
        self.busy.as_ref().map(|b| {
            (
                b.job.doing(),
                b.since.elapsed(),
                self.engine.control.progress(),
            )
        })
    }

    /// Whether Esc asked the engine's running request to stop (it stops
    /// at its next check of the cancel flag).
    pub fn cancelling(&self) -> bool {
        self.cancelling
    }

    /// Whether the script is being read (nothing to show yet is no
    /// failure).
    pub fn loading(&self) -> bool {
        self.busy
            .as_ref()
            .is_some_and(|b| matches!(b.job, Job::Open { .. }))
    }

    /// Waits for the engine's reply (tests; a real terminal ticks).
    pub fn settle(&mut self) {
        while self.busy.is_some() {
            match self.engine.wait_reply(Duration::from_secs(600)) {
                Ok(Some(reply)) => self.receive(reply),
                Ok(None) => {}
                Err(EngineStopped) => self.engine_stopped(),
            }
        }
    }

    pub fn check_running(&self) -> bool {
        self.checks.running().is_some()
    }

    fn want(&self) -> Want {
        // The symmetry view's width (where it would open), for its graph.
        let settings = super::layout::Settings {
            symmetry_open: true,
            maximised: None,
            ..self.settings()
        };
        let width = self.symmetry_width(settings);
        Want {
            reduced: self.walk.as_ref().is_some_and(|w| w.reduced),
            symmetry: self.symmetry.open,
            width,
        }
    }

    /// Sends a request unless one is out (then says so). A quick request
    /// out (describing a state, a step) is waited for a moment first, so
    /// keys typed faster than the engine answers are not lost.
    fn request(&mut self, job: Job, request: Request) -> bool {
        self.await_quick();
        if let Some(busy) = &self.busy {
            let doing = busy.job.doing();
            self.complain(format!("busy: {doing} (Esc cancels)"));
            return false;
        }
        self.engine.send(request);
        self.busy = Some(Busy {
            job,
            since: Instant::now(),
        });
        true
    }

    /// Quits, keeping first, one at a time, each walk of the user's that
    /// no session file holds ([`App::keep_walks_in`]); where they
    /// are is said once the screen is restored ([`App::farewell`]).
    fn leave(&mut self) {
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
    /// (they are kept once it has stopped, within [`STOP_PATIENCE`]).
    fn quit_anyway(&mut self) {
        self.checks.stop_queue();
        if let Some(h) = self.checks.running() {
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
    fn terminate(&mut self) {
        self.overlay = None;
        self.terminating = true;
        self.quit_anyway();
    }

    /// A walk could not be kept on the way out: said, and the next quit
    /// leaves without it.
    fn keeping_failed(&mut self, problem: &str) {
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

    /// Waits up to [`QUICK`] for a quick request's reply.
    fn await_quick(&mut self) {
        while let Some(busy) = &self.busy {
            let quick = matches!(
                busy.job,
                Job::Show | Job::Fire | Job::Animate { .. } | Job::Swap | Job::Random(1)
            );
            let left = QUICK.saturating_sub(busy.since.elapsed());
            if !quick || left.is_zero() {
                return;
            }
            match self.engine.wait_reply(left) {
                Ok(Some(reply)) => self.receive(reply),
                Ok(None) => return,
                Err(EngineStopped) => self.engine_stopped(),
            }
        }
    }

    fn engine_stopped(&mut self) {
        self.busy = None;
        self.complain("internal error: the animator's engine stopped; please report it (q quits)");
    }

    /// With the types shown, the selected definition's type in full on
    /// the status line.
    fn say_selected_type(&mut self) {
        if self.script.types_shown
            && let Some(typed) = self.script.selected_type()
        {
            self.say(typed);
        }
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
            lasting: false,
            at: Instant::now(),
        });
    }

    fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
            lasting: false,
            at: Instant::now(),
        });
    }

    /// Carries out what a pane asked for.
    fn effect(&mut self, effect: Effect) {
        match effect {
            Effect::None => {}
            Effect::Animate(process) => self.animate(&process),
            Effect::Prompt(prompt) => {
                if !prompt.hint.is_empty() {
                    self.say(format!("give the arguments: {}", prompt.hint));
                }
                self.overlay = Some(Overlay::Prompt(prompt));
            }
            Effect::Fire(i) => self.fire(i),
            Effect::Goto(p) => self.goto(p),
            Effect::RunCheck(i) => {
                let effect = self.checks.run(i, &self.budget.clone());
                self.effect(effect);
            }
            Effect::OpenCounterexample(i) => self.open_counterexample(i),
            Effect::Say(text) => self.say(text),
            Effect::Complain(text) => self.complain(text),
        }
    }

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
    fn say_followed(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        let steps = walk.path.position();
        let events = (1..=steps)
            .filter(|&p| walk.path.step(p).kind == EventKind::Visible)
            .count();
        let text = format!(
            "followed the trace: {} ({} with τ){}",
            plural(events as u64, "event", "events"),
            plural(steps as u64, "step", "steps"),
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
    fn replace_walk(&mut self, replacement: Replacement, confirmed: bool) {
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
        use super::panes::checks::CheckStatus;
        let row = self.checks.rows.get(index)?;
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
            verdict: describe_counterexample(shown),
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
    fn swap_walk(&mut self) {
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

    /// The key bound to `command` where the focus is, for messages.
    fn key_of(&self, command: Command) -> String {
        self.config.keymap.key_text(self.focus, command)
    }

    /// Where the swap key leads, for messages: nothing without an
    /// earlier walk.
    fn back_hint(&self) -> String {
        self.earlier.as_ref().map_or_else(String::new, |earlier| {
            format!(
                "; {} goes back to {}",
                self.key_of(Command::SwapWalk),
                earlier.summary()
            )
        })
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
        self.trace.list.selected = p;
        let (at, into) = (walk.path.current(), walk.path.into_current());
        self.request(Job::Show, Request::Show { at, into, want });
    }

    /// Describes the current state again (the mode or the view changed).
    fn show_again(&mut self) {
        let want = self.want();
        let Some(walk) = &self.walk else {
            return;
        };
        let (at, into) = (walk.path.current(), walk.path.into_current());
        self.request(Job::Show, Request::Show { at, into, want });
    }

    fn random(&mut self, steps: usize) {
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

    /// The engine's answer to the request out.
    fn receive(&mut self, reply: Reply) {
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
            (_, Reply::Refused(problem)) => {
                if problem.lines().count() > 1 {
                    self.overlay = Some(Overlay::Problem(problem));
                } else {
                    self.complain(problem);
                }
            }
            (_, Reply::OpenFailed { problem, .. }) => {
                self.problem = Some(problem);
                self.walk = None;
            }
            (Job::Reload { strategy }, Reply::Reloaded(opened)) => {
                let earlier = self.earlier.as_ref().map(|w| w.process.clone());
                let source = self.source.clone();
                self.opened(*opened);
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
            (job, Reply::Opened(opened) | Reply::Reloaded(opened)) => {
                self.opened(*opened);
                let quiet = self.message.as_ref().is_none_or(|m| !m.error);
                if let (
                    Job::Open {
                        replaying: true, ..
                    },
                    Some(walk),
                ) = (&job, &self.walk)
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
                ) = (&job, &self.session_path, &self.walk, quiet)
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
                ) = (&job, quiet)
                {
                    self.say_followed();
                }
            }
            (job, Reply::Animated(animated)) => {
                let process = animated.process.clone();
                let followed = animated.followed;
                let left = self.install(*animated);
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
                        self.focus = Pane::Trace;
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
            (Job::Swap, Reply::Shown(shown)) => {
                std::mem::swap(&mut self.walk, &mut self.earlier);
                self.walk_changed();
                self.shown(*shown);
                if let Some(walk) = &self.walk {
                    self.say(format!("back to {}{}", walk.summary(), self.back_hint()));
                }
            }
            (job, Reply::Walked(walked)) => self.walked(job, walked),
            (_, Reply::Shown(shown)) => self.shown(*shown),
            (_, Reply::Compared(compared)) => {
                self.say(format!(
                    "compared with the marked state: {}",
                    compared.headline
                ));
                self.symmetry.compared = Some(compared);
                self.symmetry.show(Section::Compare);
                // The rest of the view explains this state.
                self.open_symmetry();
            }
            (_, Reply::Chosen(chosen)) => self.chosen(*chosen),
            (_, Reply::Exported(Ok(path))) => {
                self.say(format!(
                    "the stages written to {} (Markdown)",
                    path.display()
                ));
                self.export_path = Some(path);
            }
            (_, Reply::Exported(Err(problem))) => self.complain(problem),
            (Job::Keep { record, earlier }, Reply::Saved(Ok(path))) => {
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
        self.script.list(&opened.listing);
        self.checks
            .list(opened.listing.script.clone(), &opened.listing.assertions);
        match opened.animated {
            Ok(animated) => {
                self.problem = None;
                // Types asked for that do not apply: said at once, not
                // only when the symmetry view opens.
                if let (true, Some(problem)) = (self.asked_symmetry, &animated.symmetry.problem) {
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
        self.trace.list.selected = walk.path.position();
        self.events.filter.clear();
        self.events.list.selected = 0;
        self.symmetry.compared = None;
        self.symmetry.hand = None;
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
        self.trace.list.selected = walk.path.position();
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
        self.events.fit(walk.moves());
        if let Some(shown) = &walk.shown {
            self.symmetry
                .fit(shown.symmetry.as_deref(), shown.at, shown.reduced);
        }
    }

    /// Step 3 made by hand: its stages shown in place of the
    /// algorithm's own, and what came of it said.
    fn chosen(&mut self, chosen: super::engine::Chosen) {
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
        self.symmetry.hand = Some(Box::new(chosen));
        self.symmetry.fit(None, at, reduced);
    }

    /// Why a command about representatives does nothing here: the
    /// process is not symmetric (`then` goes on), or it is shown under
    /// its structural group, which the animator draws but does not walk.
    fn not_reducible(&self, then: &str) -> String {
        if self
            .walk
            .as_ref()
            .is_some_and(|w| w.symmetry.structure.is_some())
        {
            "the animator's representatives are by datatypes; the structural group (the symmetry \
             view draws it) reduces `symcsp explore` and `symcsp check` with --symmetry \
             structural"
                .to_string()
        } else if then.starts_with("so") {
            format!("this process is not symmetric, {then}")
        } else {
            format!("this process is not symmetric: {then}")
        }
    }

    /// Opens the symmetry view for a command about the algorithm; why
    /// not, when the process is not symmetric.
    fn algorithm_command(&mut self) -> bool {
        self.open_symmetry();
        // The explanation the view opened for, if it comes quickly.
        self.await_quick();
        if self.walk.as_ref().is_some_and(|w| !w.reducible) {
            self.complain(self.not_reducible("the symmetry view says why"));
            return false;
        }
        self.walk.is_some()
    }

    /// Asks for a stage's number.
    fn ask_stage(&mut self) {
        if !self.algorithm_command() {
            return;
        }
        let x = self.explained();
        let mut prompt = Prompt::new(Purpose::Stage, "");
        if let Some(x) = self.symmetry.algorithm_of(x.as_deref()) {
            prompt.hint = format!("1 to {}", super::panes::symmetry::stages(x));
        }
        self.overlay = Some(Overlay::Prompt(prompt));
    }

    /// Step 3 by hand: the split shown splits off the next member of its
    /// cell (the engine runs the algorithm so).
    fn choose_member(&mut self) {
        if !self.algorithm_command() {
            return;
        }
        let Some(x) = self.explained() else {
            self.complain("the representative is still being computed: try again");
            return;
        };
        let choices = match self.symmetry.next_choice(&x) {
            Ok(choices) => choices,
            Err(why) => return self.complain(why),
        };
        // Round the cell and back to the algorithm's own choices: its own
        // stages again.
        let own: Vec<usize> = split_offs(&x.trace).iter().map(|s| s.0).collect();
        if own.starts_with(&choices) {
            self.symmetry.hand = None;
            self.say("step 3 as the algorithm makes it: its own representative");
            return;
        }
        let Some(at) = self.walk.as_ref().map(|w| w.path.current()) else {
            return;
        };
        let want = self.want();
        self.request(Job::Choose, Request::Choose { at, choices, want });
    }

    /// Asks for the file to export the stages to.
    fn ask_export(&mut self) {
        match &self.walk {
            None => return self.complain("nothing is animated: there are no stages to export"),
            Some(w) if !w.reducible => {
                return self.complain(
                    "this process is not symmetric: there are no stages to export (the \
                     symmetry view says why)",
                );
            }
            Some(_) => {}
        }
        let path = self.export_path.as_ref().map_or_else(
            || "symcsp-stages.md".to_string(),
            |p| p.display().to_string(),
        );
        self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::ExportStages, &path)));
    }

    /// Exports the stages of the state shown (with step 3 as made by
    /// hand) to `path`.
    fn export(&mut self, path: &str) {
        if path.is_empty() {
            return self.complain("no file named: the stages were not exported");
        }
        let Some(walk) = &self.walk else {
            return;
        };
        let reduced = walk.reduced;
        let trace: Vec<String> = (1..=walk.path.position())
            .map(|p| walk.path.step(p))
            .filter(|step| step.kind == EventKind::Visible)
            .map(|step| walk.names.event(step.seen(reduced).0).to_string())
            .collect();
        let request = Request::Export {
            at: walk.path.current(),
            choices: self
                .symmetry
                .hand
                .as_ref()
                .map_or_else(Vec::new, |h| h.choices.clone()),
            want: self.want(),
            trace,
            path: PathBuf::from(path),
        };
        self.request(Job::Export, request);
    }

    /// Translates a key press into an action: prompts and confirmations
    /// take keys first, then the key map.
    pub fn key(&self, key: KeyEvent) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return Some(Action::Command(Command::Quit));
        }
        if self.too_small() {
            // Nothing shows: only quitting (and resizing) does anything.
            return self
                .config
                .keymap
                .command(self.focus, &key)
                .filter(|c| *c == Command::Quit)
                .map(Action::Command);
        }
        match &self.overlay {
            Some(Overlay::Prompt(_)) => {
                let edit = match (key.code, ctrl) {
                    (KeyCode::Enter, _) => PromptKey::Confirm,
                    (KeyCode::Esc, _) => PromptKey::Cancel,
                    (KeyCode::Backspace, _) => PromptKey::Backspace,
                    (KeyCode::Delete, _) => PromptKey::Delete,
                    (KeyCode::Left, _) => PromptKey::Left,
                    (KeyCode::Right, _) => PromptKey::Right,
                    (KeyCode::Home, _) | (KeyCode::Char('a'), true) => PromptKey::Start,
                    (KeyCode::End, _) | (KeyCode::Char('e'), true) => PromptKey::End,
                    (KeyCode::Char('u'), true) => PromptKey::DeleteToStart,
                    (KeyCode::Char('w'), true) => PromptKey::DeleteWord,
                    (KeyCode::Up, _) => PromptKey::Older,
                    (KeyCode::Down, _) => PromptKey::Newer,
                    (KeyCode::Char(c), false) => PromptKey::Char(c),
                    _ => return None,
                };
                return Some(Action::Prompt(edit));
            }
            // Read, then any key closes it; a key bound to something
            // other than closing does that too (`e` types the process
            // again), so what is typed after the problem is not misread.
            // A held key's repeats do not close it unread.
            Some(Overlay::Problem(_)) if key.kind == KeyEventKind::Repeat => return None,
            Some(Overlay::Problem(_)) => {
                let only_closes = matches!(key.code, KeyCode::Esc | KeyCode::Enter);
                let command = self.config.keymap.command(self.focus, &key);
                return Some(Action::Command(
                    command.filter(|_| !only_closes).unwrap_or(Command::Cancel),
                ));
            }
            Some(Overlay::ConfirmQuit | Overlay::ConfirmOpen(_) | Overlay::ConfirmDrop(_)) => {
                return Some(Action::Prompt(match key.code {
                    KeyCode::Char('y' | 'Y') | KeyCode::Enter => PromptKey::Confirm,
                    _ => PromptKey::Cancel,
                }));
            }
            _ => {}
        }
        self.config
            .keymap
            .command(self.focus, &key)
            .map(Action::Command)
    }

    /// What decides where the panes go.
    pub fn settings(&self) -> super::layout::Settings {
        super::layout::Settings {
            size: self.size,
            widths: self.widths,
            maximised: self.maximised.then_some(self.focus),
            symmetry_open: self.symmetry.open,
        }
    }

    /// Whether the terminal is too small to draw in.
    pub fn too_small(&self) -> bool {
        self.size.0 < super::layout::MIN_SIZE.0 || self.size.1 < super::layout::MIN_SIZE.1
    }

    /// Rows a page moves.
    fn page(&self) -> usize {
        usize::from(self.size.1.saturating_sub(8)).max(1)
    }

    fn command(&mut self, command: Command) {
        if let Some(overlay) = &self.overlay {
            let closes = matches!(command, Command::Cancel | Command::Help | Command::Quit);
            let help = *overlay == Overlay::Help;
            if matches!(overlay, Overlay::Help | Overlay::Problem(_)) && closes {
                self.overlay = None;
                return;
            }
            if matches!(overlay, Overlay::Problem(_)) {
                self.overlay = None;
                return self.command(command);
            }
            if help {
                let page = self.page();
                self.help_scroll = match command {
                    Command::Up => self.help_scroll.saturating_sub(1),
                    Command::Down => self.help_scroll + 1,
                    Command::PageUp => self.help_scroll.saturating_sub(page),
                    Command::PageDown => self.help_scroll + page,
                    Command::Top => 0,
                    Command::Bottom => usize::MAX,
                    _ => self.help_scroll,
                }
                .min(super::help::lines(&self.config, self.focus).len());
            }
            return;
        }
        if !matches!(command, Command::Cancel | Command::Quit | Command::Help) {
            // A complaint answered a key before: this one makes it stale
            // (`there is no event 2` stayed through a reload). Cleared
            // before the previous key's reply is taken in, which may
            // complain itself.
            if self.message.as_ref().is_some_and(|m| m.error && !m.lasting) {
                self.message = None;
            }
            // Keys act on what the screen is about to show.
            self.await_quick();
        }
        let page = self.page();
        match command {
            Command::Quit => {
                if self.check_running() || self.busy.is_some() {
                    self.overlay = Some(Overlay::ConfirmQuit);
                } else {
                    self.leave();
                }
            }
            Command::Help => {
                self.help_scroll = 0;
                self.overlay = Some(Overlay::Help)
            }
            Command::Cancel => self.cancel(),
            Command::NextPane | Command::PrevPane => {
                let visible = super::layout::order(self.settings());
                if let Some(at) = visible.iter().position(|&p| p == self.focus) {
                    let n = visible.len();
                    let step = if command == Command::NextPane {
                        1
                    } else {
                        n - 1
                    };
                    self.focus = visible[(at + step) % n];
                } else if let Some(&first) = visible.first() {
                    self.focus = first;
                }
            }
            Command::PaneLeft | Command::PaneRight => {
                if let Some(pane) = super::layout::beside(
                    self.settings(),
                    self.focus,
                    command == Command::PaneRight,
                ) {
                    self.focus = pane;
                }
            }
            Command::FireNth(n) => {
                if let Some(why) = self.events_hidden() {
                    self.complain(format!("{n}: no event fired, {why}"));
                    return;
                }
                let effect = match &self.walk {
                    Some(walk) => self.events.nth(n, walk.moves()),
                    None => Effect::None,
                };
                self.effect(effect);
            }
            Command::Undo => match self.walk.as_ref().map(|w| w.path.position()) {
                Some(0) => self.complain("already at the initial state"),
                Some(p) => self.goto(p - 1),
                None => {}
            },
            Command::Redo => match &self.walk {
                Some(w) if w.path.position() < w.path.len() => {
                    let p = w.path.position();
                    self.goto(p + 1);
                }
                Some(_) => self.complain("nothing to redo"),
                None => {}
            },
            Command::RandomStep => {
                // A step still out may end where nothing can move.
                self.await_quick();
                if self.walk.as_ref().is_some_and(|w| w.moves().is_empty()) {
                    self.complain(self.why_no_event());
                } else {
                    self.random(1);
                }
            }
            Command::RandomRun => {
                self.overlay = Some(Overlay::Prompt(Prompt::new(
                    Purpose::RandomRun,
                    &DEFAULT_RANDOM_RUN.to_string(),
                )))
            }
            Command::Initial => self.goto(0),
            Command::Filter => {
                self.focus = Pane::Events;
                self.filter_before = self.events.filter.clone();
                self.overlay = Some(Overlay::Prompt(Prompt::new(
                    Purpose::Filter,
                    &self.events.filter,
                )))
            }
            Command::RunCheck => {
                let effect = self
                    .checks
                    .run(self.checks.list.selected, &self.budget.clone());
                self.effect(effect);
            }
            Command::RunAllChecks => {
                let effect = self.checks.run_all(&self.budget.clone());
                self.effect(effect);
            }
            Command::OpenCounterexample => self.open_counterexample(self.checks.list.selected),
            Command::TypeProcess => {
                let current = self.walk.as_ref().map_or("", |w| w.process.as_str());
                self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::Process, current)))
            }
            Command::Maximise => self.maximised = !self.maximised,
            Command::Grow | Command::Shrink => self.resize_column(command == Command::Grow),
            Command::SaveSession => {
                let text = self
                    .session_path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "symcsp-session.ron".to_string());
                self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::SaveSession, &text)))
            }
            Command::Reload => self.reload(),
            Command::ToggleSymmetry => {
                self.symmetry.open = !self.symmetry.open;
                if self.symmetry.open {
                    self.symmetry.show(Section::Representative);
                    self.focus = Pane::Symmetry;
                    self.show_again();
                } else if self.focus == Pane::Symmetry {
                    self.focus = Pane::Events;
                }
            }
            Command::GoToStage => self.ask_stage(),
            Command::ChooseMember => self.choose_member(),
            Command::ExportStages => self.ask_export(),
            Command::ScrollLeft | Command::ScrollRight => {
                self.open_symmetry();
                let overflow = self.symmetry_laid().map_or(0, |laid| laid.overflow);
                let right = command == Command::ScrollRight;
                if let Err(why) = self.symmetry.scroll_sideways(right, overflow) {
                    self.complain(why);
                }
            }
            Command::AlgorithmNext | Command::AlgorithmBack => {
                if !self.algorithm_command() {
                    return;
                }
                let x = self.explained();
                let forward = command == Command::AlgorithmNext;
                if let Some(note) = self.symmetry.step(forward, x.as_deref()) {
                    self.complain(note);
                }
            }
            Command::Mark => {
                if let Some(walk) = &mut self.walk {
                    walk.mark_here();
                    let p = walk.path.position();
                    self.say(format!(
                        "state {p} marked: go to another state and press = to compare"
                    ));
                }
            }
            Command::Compare => self.compare(),
            Command::FollowTrace => {
                // The visible events walked so far, to edit: the raw
                // walk's, which the trace is followed in.
                let walked = self.walk.as_ref().map_or_else(String::new, |w| {
                    let events: Vec<&str> = (1..=w.path.position())
                        .map(|p| w.path.step(p))
                        .filter(|step| step.kind == EventKind::Visible)
                        .map(|step| w.names.event(step.event))
                        .collect();
                    events.join(", ")
                });
                self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::Trace, &walked)));
            }
            Command::Graph => {
                self.open_symmetry();
                self.symmetry
                    .show(if self.symmetry.section == Section::Graph {
                        Section::Representative
                    } else {
                        Section::Graph
                    });
            }
            Command::WalkReduced => self.toggle_reduced(),
            Command::CycleStrategy => self.cycle_strategy(),
            Command::SwapWalk => self.swap_walk(),
            Command::ShowTypes => {
                self.script.toggle_types();
                self.focus = Pane::Script;
                if self.script.types_shown {
                    self.say_selected_type();
                } else {
                    self.say("types hidden");
                }
            }
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom
            | Command::Activate => self.pane_command(command, page),
        }
    }

    /// Why the Events pane is not on the screen, if it is not: then the
    /// keys that fire its events by number or selection would take a
    /// move the user cannot see, and do nothing but say so.
    pub fn events_hidden(&self) -> Option<String> {
        if super::layout::order(self.settings()).contains(&Pane::Events) {
            return None;
        }
        let key = |command| self.key_of(command);
        // Short: at 80 columns the status line is the only place it shows.
        Some(if self.maximised {
            format!(
                "the Events pane is hidden ({} shows it)",
                key(Command::Maximise)
            )
        } else {
            format!(
                "the symmetry view hides the Events pane ({} closes it)",
                key(Command::ToggleSymmetry)
            )
        })
    }

    /// A command for the focused pane.
    fn pane_command(&mut self, command: Command, page: usize) {
        // Enter fires the selected event from the State pane and the
        // symmetry view too: not unseen.
        if command == Command::Activate
            && matches!(self.focus, Pane::State | Pane::Symmetry)
            && let Some(why) = self.events_hidden()
        {
            let key = self.key_of(Command::Activate);
            self.complain(format!("{key}: no event fired, {why}"));
            return;
        }
        let effect = match self.focus {
            Pane::Script => {
                let effect = self.script.update(command, page);
                self.say_selected_type();
                effect
            }
            Pane::Checks => self.checks.update(command, page),
            Pane::Events | Pane::State if command == Command::Activate => match &self.walk {
                Some(walk) => self.events.update(command, walk.moves(), page),
                None => Effect::None,
            },
            Pane::Events => match &self.walk {
                Some(walk) => self.events.update(command, walk.moves(), page),
                None => Effect::None,
            },
            Pane::State => {
                let rows = self.state_rows();
                self.state.update(command, rows, page);
                Effect::None
            }
            Pane::Trace => match &self.walk {
                Some(walk) => self.trace.update(command, walk, page),
                None => Effect::None,
            },
            Pane::Symmetry => {
                if command == Command::Activate {
                    match &self.walk {
                        Some(walk) => self.events.update(command, walk.moves(), page),
                        None => Effect::None,
                    }
                } else {
                    let rows = self.symmetry_rows();
                    self.symmetry.update(command, rows, page);
                    Effect::None
                }
            }
        };
        self.effect(effect);
    }

    fn state_rows(&self) -> usize {
        self.walk.as_ref().map_or(0, |w| {
            super::panes::state::rows(w, &self.config.theme).len()
        })
    }

    fn symmetry_rows(&self) -> usize {
        self.symmetry_laid().map_or(0, |laid| laid.lines.len())
    }

    /// The symmetry view laid out as it is drawn.
    fn symmetry_laid(&self) -> Option<super::panes::symmetry::Laid> {
        let walk = self.walk.as_ref()?;
        let x = walk.shown.as_ref().and_then(|s| s.symmetry.as_deref());
        let width = self.symmetry_width(self.settings());
        Some(
            self.symmetry
                .laid_out(&self.config.theme, &walk.symmetry, x, usize::from(width)),
        )
    }

    /// The symmetry view's width inside its border, laid out by
    /// `settings` (the screen's, when they leave it out).
    fn symmetry_width(&self, settings: super::layout::Settings) -> u16 {
        super::layout::areas(settings)
            .iter()
            .find(|(p, _)| *p == Pane::Symmetry)
            .map_or(self.size.0, |(_, r)| r.width)
            .saturating_sub(2)
    }

    /// The current state's explanation, if the engine gave one.
    fn explained(&self) -> Option<Box<super::engine::StateSymmetry>> {
        self.walk.as_ref()?.shown.as_ref()?.symmetry.clone()
    }

    /// Opens the symmetry view if it is closed (asking for the current
    /// state's explanation).
    fn open_symmetry(&mut self) {
        if !self.symmetry.open {
            self.symmetry.open = true;
            self.focus = Pane::Symmetry;
            self.show_again();
        }
    }

    fn compare(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        let Some(marked) = walk.mark.as_ref().map(|m| (m.at, m.reduced)) else {
            self.complain("mark a state first (m), then go to another and press =");
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible("the symmetry view says why"));
            return;
        }
        let here = (walk.path.current(), walk.reduced);
        self.request(Job::Compare, Request::Compare { marked, here });
    }

    fn toggle_reduced(&mut self) {
        self.await_quick();
        let Some(walk) = &mut self.walk else {
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible("so it has no reduced walk"));
            return;
        }
        if self.busy.is_some() {
            self.complain("busy (Esc cancels)");
            return;
        }
        walk.reduced = !walk.reduced;
        let text = if walk.reduced {
            "walking the reduced system: every state shown is a representative (W: back to raw \
             states)"
        } else {
            "walking the raw system again (the same path)"
        };
        self.events.list.selected = 0;
        self.say(text);
        self.show_again();
    }

    /// The next representative strategy, for the symmetry view and the
    /// reduced walk: the walks are opened again under it (a reload).
    fn cycle_strategy(&mut self) {
        if self.check_running() {
            self.complain("wait for the running check (or cancel it) before changing the strategy");
            return;
        }
        if self.busy.is_some() {
            self.complain("busy (Esc cancels)");
            return;
        }
        let Some(walk) = &self.walk else {
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible("so it has no representatives to find"));
            return;
        }
        let before = self.strategy;
        self.strategy = self.strategy.next();
        self.open_symmetry();
        let said = format!(
            "representatives by the {} strategy: {}",
            self.strategy,
            self.strategy.summary()
        );
        self.reload_with(None, Some((said, before)));
    }

    fn resize_column(&mut self, grow: bool) {
        let column = super::layout::column_of(self.focus);
        let delta: i32 = if grow { 4 } else { -4 };
        let new = (i32::from(self.widths[column]) + delta).clamp(12, 76);
        let change = new - i32::from(self.widths[column]);
        // The neighbour to the right (or left, for the last column) gives
        // or takes the difference.
        let other = if column == 2 { 1 } else { column + 1 };
        let neighbour = i32::from(self.widths[other]) - change;
        if (12..=76).contains(&neighbour) {
            self.relayout(|app| {
                app.widths[column] = new as u16;
                app.widths[other] = neighbour as u16;
            });
        }
    }

    fn why_no_event(&self) -> String {
        let uncomputed = self
            .walk
            .as_ref()
            .and_then(|w| w.shown.as_ref())
            .is_some_and(|s| s.problem.is_some());
        if uncomputed {
            // Stepping away and back computes them again (a stopped
            // computation may then finish); at the initial state there
            // is nowhere to step.
            let again = if self.walk.as_ref().is_some_and(|w| w.path.position() > 0) {
                "u and Ctrl-r compute them again, "
            } else {
                ""
            };
            return format!(
                "this state's moves were not computed (the State pane says why; {again}L \
                 reloads a fixed script)"
            );
        }
        let terminated = self.walk.as_ref().is_some_and(|w| {
            let p = w.path.position();
            p > 0 && w.path.step(p).kind == EventKind::Tick
        });
        if terminated {
            "no event is possible: the process has terminated (✓)".to_string()
        } else {
            "no event is possible: this state is deadlocked".to_string()
        }
    }

    /// What the Events pane says when a state has no moves.
    pub fn no_event_text(&self) -> String {
        let why = self.why_no_event();
        let mark = if why.contains("terminated") {
            "✓"
        } else {
            "⊘"
        };
        format!("{mark} {why}")
    }

    fn cancel(&mut self) {
        if self.busy.is_some() {
            self.engine.control.cancel();
            self.cancelling = true;
            self.say("cancelling…");
        } else if let Some(h) = self.checks.running() {
            h.cancel();
            self.checks.stop_queue();
            self.say("cancelling the check…");
        } else if self.focus == Pane::Symmetry
            && self.symmetry.section == Section::Algorithm
            && self.symmetry.hand.is_some()
        {
            self.symmetry.hand = None;
            let x = self.explained();
            if let Some(shown) = self.walk.as_ref().and_then(|w| w.shown.as_ref()) {
                self.symmetry.fit(x.as_deref(), shown.at, shown.reduced);
            }
            self.say("step 3 as the algorithm makes it again");
        } else if self.focus == Pane::Symmetry && self.symmetry.section != Section::Representative {
            self.symmetry.show(Section::Representative);
        } else if !self.events.filter.is_empty() {
            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
            self.events.set_filter("", &moves);
        } else if self.maximised {
            self.maximised = false;
        } else {
            self.message = None;
        }
    }

    fn reload(&mut self) {
        if self.check_running() {
            self.complain("wait for the running check (or cancel it) before reloading");
            return;
        }
        if let Source::Builtin(model) = &self.source {
            let file = PathBuf::from("models").join(model.name);
            if file.is_file() {
                self.overlay = Some(Overlay::ConfirmOpen(file));
            } else {
                self.complain(format!(
                    "the built-in {} has no file to reload: open a file with `symcsp FILE`",
                    model.name
                ));
            }
            return;
        }
        self.reload_from(None);
    }

    /// Reads the script again, or `from` instead, replaying the walks.
    fn reload_from(&mut self, from: Option<Source>) {
        self.reload_with(from, None);
    }

    /// [`App::reload_from`], for a new strategy when `strategy` says what
    /// to say once done and which to go back to otherwise.
    fn reload_with(&mut self, from: Option<Source>, strategy: Option<(String, Strategy)>) {
        let want = self.want();
        match &self.walk {
            Some(walk) => {
                let request = Request::Reload {
                    from,
                    walk: walk.walk_path(),
                    earlier: self.earlier.as_ref().map(Walk::walk_path),
                    want,
                    strategy: self.strategy,
                };
                self.request(Job::Reload { strategy }, request);
            }
            None => {
                // Nothing loaded before: load afresh.
                let source = from.unwrap_or_else(|| self.source.clone());
                self.request(
                    Job::Open {
                        replaying: false,
                        following: false,
                    },
                    Request::Open {
                        source,
                        process: None,
                        symmetry: None,
                        strategy: self.strategy,
                        replay: None,
                        trace: None,
                    },
                );
            }
        }
    }

    fn prompt(&mut self, key: PromptKey) {
        match self.overlay.take() {
            Some(Overlay::ConfirmQuit) => {
                if key == PromptKey::Confirm {
                    self.quit_anyway();
                }
            }
            Some(Overlay::ConfirmOpen(path)) => {
                if key == PromptKey::Confirm {
                    self.reload_from(Some(Source::File(path)));
                }
            }
            Some(Overlay::ConfirmDrop(replacement)) => {
                if key == PromptKey::Confirm {
                    self.replace_walk(replacement, true);
                } else {
                    self.say("nothing opened: both walks are kept");
                }
            }
            Some(Overlay::Prompt(mut prompt)) => {
                let history = self.history.of(prompt.purpose).to_vec();
                match prompt.edit(key, &history) {
                    Outcome::Editing => {
                        if prompt.purpose == Purpose::Filter {
                            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
                            self.events.set_filter(&prompt.text(), &moves);
                        }
                        self.overlay = Some(Overlay::Prompt(prompt));
                    }
                    Outcome::Cancelled => {
                        // The filter as it was before the prompt opened
                        // (Esc again, outside the prompt, clears it).
                        if prompt.purpose == Purpose::Filter {
                            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
                            let before = std::mem::take(&mut self.filter_before);
                            self.events.set_filter(&before, &moves);
                        }
                    }
                    Outcome::Confirmed(text) => {
                        self.history.remember(prompt.purpose, &text);
                        self.prompt_confirmed(prompt.purpose, text);
                    }
                }
            }
            other => self.overlay = other,
        }
    }

    fn prompt_confirmed(&mut self, purpose: Purpose, text: String) {
        match purpose {
            Purpose::Filter => {}
            Purpose::Process => {
                let text = text.trim();
                if !text.is_empty() {
                    self.animate(text);
                }
            }
            Purpose::RandomRun => match text.trim().parse::<usize>() {
                Ok(0) => self.say("0 random steps: nothing to do"),
                Ok(n) => self.random(n),
                Err(_) => self.complain(format!("`{text}` is not a number of steps")),
            },
            Purpose::SaveSession => {
                let Some(walk) = &self.walk else {
                    self.complain("nothing is animated: there is no session to save");
                    return;
                };
                let (initial, steps) = walk.path.saved();
                let position = walk.path.position();
                self.request(
                    Job::Save {
                        record: walk.record(),
                    },
                    Request::Save {
                        path: PathBuf::from(text.trim()),
                        earlier: false,
                        initial,
                        steps,
                        position,
                        mark: walk.mark.clone(),
                    },
                );
            }
            Purpose::Trace => self.follow_trace(text.trim()),
            Purpose::Stage => {
                let x = self.explained();
                if let Err(why) = self.symmetry.go_to(&text, x.as_deref()) {
                    self.complain(why);
                }
            }
            Purpose::ExportStages => self.export(text.trim()),
        }
    }

    fn click(&mut self, column: u16, row: u16, scroll: Option<bool>) {
        if self.overlay.is_some() {
            return;
        }
        let Some(hit) = self.layout.hit(column, row) else {
            return;
        };
        self.focus = hit.pane;
        let (list, rows) = match hit.pane {
            Pane::Script => (&mut self.script.list, self.script.items.len()),
            Pane::Checks => (&mut self.checks.list, self.checks.rows.len()),
            Pane::Events => {
                let rows = self
                    .walk
                    .as_ref()
                    .map_or(0, |w| self.events.visible(w.moves()).len());
                (&mut self.events.list, rows)
            }
            Pane::Trace => {
                let rows = self.walk.as_ref().map_or(0, |w| w.path.len() + 1);
                (&mut self.trace.list, rows)
            }
            Pane::State => {
                let rows = self.state_rows();
                (&mut self.state.scroll, rows)
            }
            Pane::Symmetry => {
                let rows = self.symmetry_rows();
                (&mut self.symmetry.scroll, rows)
            }
        };
        match (scroll, hit.row) {
            (Some(down), _) => list.scroll(down, rows),
            (None, Some(clicked)) if clicked < rows => {
                if matches!(
                    hit.pane,
                    Pane::Script | Pane::Checks | Pane::Events | Pane::Trace
                ) {
                    list.selected = clicked;
                }
            }
            _ => {}
        }
    }

    /// Collects the engine's reply and finished checks; lets old
    /// messages go.
    fn tick(&mut self) {
        if self.busy.is_some() {
            match self.engine.try_reply() {
                Ok(Some(reply)) => self.receive(reply),
                Ok(None) => {}
                Err(EngineStopped) => self.engine_stopped(),
            }
        }
        if let Some(since) = self.quitting {
            if self.busy.is_none() {
                self.quitting = None;
                self.leave();
            } else if since.elapsed() > STOP_PATIENCE {
                self.farewell.push(
                    "note: the animator did not stop in time: a walk not saved is lost".into(),
                );
                self.quit = true;
            }
        }
        self.refresh_explanation();
        let key = self
            .config
            .keymap
            .key_for(Pane::Checks, Command::OpenCounterexample)
            .unwrap_or_default();
        if let Some(effect) = self.checks.poll(&key) {
            self.effect(effect);
        }
        if let Some(m) = &self.message {
            let life = if m.error { ERROR_LIFE } else { MESSAGE_LIFE };
            if m.at.elapsed() > life {
                self.message = None;
            }
        }
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.relayout(|app| app.size = (width, height));
    }

    /// Applies `change` to the layout (the screen's size, the columns'
    /// widths); when it changes the symmetry view's width, the state's
    /// explanation is asked for again at the new width.
    fn relayout(&mut self, change: impl FnOnce(&mut App)) {
        let before = self.want().width;
        change(self);
        if self.symmetry.open && self.want().width != before {
            self.explanation_stale = true;
        }
        self.refresh_explanation();
    }

    /// Asks again for the current state's explanation, laid out for the
    /// symmetry view's width now, once the engine is free (a resize
    /// while it works is not refused with a message).
    fn refresh_explanation(&mut self) {
        if self.explanation_stale && self.busy.is_none() {
            self.explanation_stale = false;
            self.show_again();
        }
    }

    /// Whether the screen changes on a tick (progress to show).
    pub fn animating(&self) -> bool {
        self.busy.is_some() || self.check_running() || self.message.is_some()
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

/// Applies `action` to the model.
pub fn update(app: &mut App, action: Action) {
    match action {
        Action::Command(command) => {
            if !app.too_small() || command == Command::Quit {
                app.command(command)
            }
        }
        Action::Prompt(key) => app.prompt(key),
        Action::Click { column, row } => app.click(column, row, None),
        Action::Scroll { column, row, down } => app.click(column, row, Some(down)),
        Action::Resize { width, height } => app.resize(width, height),
        Action::Tick => app.tick(),
        Action::Terminate => app.terminate(),
    }
}

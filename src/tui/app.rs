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
//!
//! This file holds the model, its construction, the engine's requests,
//! the messages and `update`; the model's jobs are in its child modules:
//! the key-bound commands (`commands`), keys, prompts and the mouse
//! (`input`), the walks (`walks`), the symmetry view's commands
//! (`symmetry_view`), the engine's replies (`replies`) and quitting
//! (`quitting`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::config::{Command, Config, PaneId};
use super::engine::{Engine, EngineStopped, Replay, Request, Want};
use super::layout::Layout;
use super::layout::Placement;
use super::model::Source;
use super::panes::checks::ChecksPane;
use super::panes::events::EventsPane;
use super::panes::symmetry::SymmetryPane;
use super::panes::{Context, Effect, Facts, Panes};
use super::prompt::{History, Prompt, PromptKey};
use super::session::{self, Session};
use super::walk::{LoadedCounterexample, Walk, WalkRecord};
use crate::lts::Budget;
use crate::symmetry::strategy::Strategy;

mod commands;
mod input;
mod quitting;
mod replies;
mod symmetry_view;
mod walks;

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
    /// Writing the state's stages to a file: of the raw state where the
    /// reduced walk shows its representative.
    Export {
        of_representative: bool,
    },
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
            Job::Export { .. } => "exporting the stages",
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
    pub focus: PaneId,
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
    /// The panes, in Tab order.
    pub panes: Panes,
    /// Where each pane goes, in Tab order (the panes' own placements).
    placements: Vec<(PaneId, Placement)>,
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
    /// `--symmetry` as given: a problem with it is shown at once, and an
    /// export's `rep` command line repeats it.
    asked_symmetry: Option<String>,
    rng: fastrand::Rng,
}

/// How the animator starts.
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
    /// The panes ([`Panes::standard`], and any of one's own).
    pub panes: Panes,
}

impl Default for Start {
    fn default() -> Start {
        Start {
            process: None,
            symmetry: None,
            session: None,
            after: None,
            strategy: Strategy::default(),
            panes: Panes::standard(),
        }
    }
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
            focus: PaneId::EVENTS,
            maximised: false,
            widths: [24, 40, 36],
            overlay: None,
            message: None,
            quit: false,
            source: source.clone(),
            problem: None,
            walk: None,
            earlier: None,
            placements: start.panes.placements(),
            panes: start.panes,
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
            asked_symmetry: None,
            rng: fastrand::Rng::new(),
        };
        let panes = app.panes.ids();
        for name in app.config.keymap.keep_panes(&panes) {
            let names: Vec<&str> = panes.iter().map(|id| id.0).collect();
            app.config.problems.push(format!(
                "key map: no pane is called `{name}`, so its keys are ignored (the panes: {})",
                names.join(", ")
            ));
        }
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
        app.asked_symmetry.clone_from(&start.symmetry);
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
                strategy,
                ..Start::default()
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
        self.panes.of_type::<ChecksPane>().running().is_some()
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
            symmetry: self.panes.of_type::<SymmetryPane>().open,
            width,
            partial_order: self.panes.of_type::<EventsPane>().partial_order,
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
            // Enter fires the selected event from the State pane and the
            // symmetry view too: not unseen.
            Effect::FireSelected => match self.events_hidden() {
                Some(why) => {
                    let key = self.key_of(Command::Activate);
                    self.complain(format!("{key}: no event fired, {why}"));
                }
                None => {
                    let effect = self.update_pane(PaneId::EVENTS, Command::Activate);
                    self.effect(effect);
                }
            },
            Effect::Goto(p) => self.goto(p),
            Effect::RunCheck(i) => {
                let effect = self
                    .panes
                    .of_type_mut::<ChecksPane>()
                    .run(i, &self.budget.clone());
                self.effect(effect);
            }
            Effect::OpenCounterexample(i) => self.open_counterexample(i),
            Effect::Say(text) => self.say(text),
            Effect::Complain(text) => self.complain(text),
        }
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

    /// What decides where the panes go.
    pub fn settings(&self) -> super::layout::Settings<'_> {
        super::layout::Settings {
            size: self.size,
            widths: self.widths,
            maximised: self.maximised.then_some(self.focus),
            symmetry_open: self.panes.of_type::<SymmetryPane>().open,
            placements: &self.placements,
        }
    }

    /// What pane `id` reads of the animator besides itself.
    pub fn context(&self, id: PaneId) -> Context<'_> {
        let size = super::layout::areas(self.settings())
            .into_iter()
            .find(|(pane, _)| *pane == id)
            .map_or(self.size, |(_, rect)| (rect.width, rect.height));
        self.context_in(id, size)
    }

    /// [`App::context`] for pane `id` drawn in a rectangle of `size`
    /// (its border included), as the view knows it.
    pub fn context_in(&self, id: PaneId, size: (u16, u16)) -> Context<'_> {
        Context::new(
            &self.config,
            self.walk.as_ref(),
            self.problem.as_deref(),
            self.facts_in(id, size),
        )
    }

    /// The facts of the animator pane `id` reads (what [`App::context`]
    /// holds besides borrows, made before a pane is borrowed to change).
    fn facts(&self, id: PaneId) -> Facts {
        self.context(id).facts
    }

    /// [`App::facts`] for pane `id` in a rectangle of `size`.
    fn facts_in(&self, id: PaneId, size: (u16, u16)) -> Facts {
        Facts {
            focused: id == self.focus,
            size: (size.0.saturating_sub(2), size.1.saturating_sub(2)),
            page: self.page(),
            loading: self.loading(),
            check_running: self.check_running(),
            script_loaded: self.panes.of_type::<ChecksPane>().script.is_some(),
            earlier_walk: self.earlier.is_some(),
            events_hidden: self.events_hidden(),
            no_event: self.no_event_text(),
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
            .key_for(PaneId::CHECKS, Command::OpenCounterexample)
            .unwrap_or_default();
        if let Some(effect) = self.panes.of_type_mut::<ChecksPane>().poll(&key) {
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
        if self.panes.of_type::<SymmetryPane>().open && self.want().width != before {
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

//! The animator's model and its `update`: everything the screen shows is
//! a field here, and every key, click and tick is an [`Action`] that
//! `update` applies. No terminal in sight, so every behaviour is a unit
//! test away.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rustc_hash::FxHashSet;

use super::config::{Command, Config, Pane};
use super::model::{Animation, Listing, Source};
use super::session::{SavedStep, Session};
use crate::check::counterexample::{Kind, RenderedCounterexample};
use crate::check::worker::CheckHandle;
use crate::check::{CheckResult, Verdict};
use crate::lts::Budget;
use crate::lts::animator::{Enabled, EventKind};
use crate::lts::machine::OutlineRow;
use crate::process::Processes;
use crate::script::Script;

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
    /// Time passes: poll the running check.
    Tick,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptKey {
    Char(char),
    Backspace,
    Confirm,
    Cancel,
}

/// What a prompt's text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Process,
    RandomRun,
    Filter,
    SaveSession,
}

impl Purpose {
    pub fn question(self) -> &'static str {
        match self {
            Purpose::Process => "Animate process",
            Purpose::RandomRun => "Random steps",
            Purpose::Filter => "Filter events",
            Purpose::SaveSession => "Save session to",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// Quitting while a check runs.
    ConfirmQuit,
    Prompt {
        purpose: Purpose,
        text: String,
    },
    /// Diagnostics of a process expression, a check or a session.
    Problem(String),
}

/// One step taken in the animator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStep {
    pub label: String,
    /// What the components performed, when the system shows another
    /// event (the event a τ hides).
    pub hidden: Option<String>,
    pub kind: EventKind,
    /// The move's place in its state's list of enabled events.
    pub choice: usize,
    /// The components that took part.
    pub changed: Vec<usize>,
}

/// The path walked so far: `states[0]` is the initial state and
/// `states[i + 1]` follows `steps[i]`. Steps past `position` were undone
/// and can be redone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub states: Vec<Vec<u32>>,
    pub steps: Vec<TraceStep>,
    pub position: usize,
}

impl Trace {
    fn start(initial: Vec<u32>) -> Trace {
        Trace {
            states: vec![initial],
            steps: Vec::new(),
            position: 0,
        }
    }

    pub fn current(&self) -> &[u32] {
        &self.states[self.position]
    }

    /// The components changed by the step into the current state.
    pub fn changed(&self) -> &[usize] {
        match self.position {
            0 => &[],
            p => &self.steps[p - 1].changed,
        }
    }
}

pub enum CheckStatus {
    NotRun,
    Running(CheckHandle),
    Done(Box<Finished>),
    Error(String),
}

/// A check's result, with its counterexample in words for the screen.
pub struct Finished {
    pub result: CheckResult,
    pub counterexample: Option<RenderedCounterexample>,
}

impl Finished {
    /// Puts the result's counterexample into words with process states
    /// of `script`, the one the check ran on (the animator's copy is read
    /// again from the file, which may have changed since).
    fn new(script: &Script, result: CheckResult) -> Result<Finished, String> {
        let counterexample = match &result.counterexample {
            Some(cx) => {
                let procs = Processes::new(script).map_err(|e| e.to_diagnostic().message)?;
                Some(cx.render(&procs))
            }
            None => None,
        };
        Ok(Finished {
            result,
            counterexample,
        })
    }
}

pub struct CheckRow {
    /// The assertion as written.
    pub text: String,
    /// The process a counterexample runs on.
    pub implementation: String,
    pub status: CheckStatus,
}

/// A counterexample loaded into the animator: what the specification
/// was doing beside each of its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedCounterexample {
    pub assertion: usize,
    pub spec_initial: Vec<String>,
    pub spec_after: Vec<Vec<String>>,
    /// How many of the trace's steps are still the counterexample's.
    pub valid: usize,
    /// What goes wrong at the end, in words.
    pub verdict: String,
    /// For a divergence: the first step (from 1) of the τ-loop the last
    /// steps make.
    pub loop_from: Option<usize>,
}

impl LoadedCounterexample {
    /// The specification's states at trace position `p`, while the trace
    /// still follows the counterexample.
    pub fn spec_at(&self, p: usize) -> Option<&[String]> {
        if p > self.valid {
            return None;
        }
        match p {
            0 => Some(self.spec_initial.as_slice()),
            p => self.spec_after.get(p - 1).map(Vec::as_slice),
        }
        .filter(|s| !s.is_empty())
    }

    /// Whether trace step `p` (from 1) is part of the counterexample's
    /// τ-loop.
    pub fn in_loop(&self, p: usize) -> bool {
        p <= self.valid && self.loop_from.is_some_and(|from| p >= from)
    }
}

/// One row of the Script pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptItem {
    Heading(&'static str),
    /// A process to animate, as an expression.
    Process(String),
    /// A process function: Enter asks for its arguments.
    Function {
        name: String,
        arity: usize,
    },
    /// An assertion: Enter animates its implementation.
    Assertion {
        text: String,
        implementation: String,
    },
}

/// A status line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

pub struct App {
    pub source: Source,
    pub listing: Option<Listing>,
    pub script_items: Vec<ScriptItem>,
    /// The animated process, as typed or chosen.
    pub process: String,
    animation: Option<Animation>,
    /// Why there is nothing to animate (the script or process failed).
    pub problem: Option<String>,
    pub outline: Vec<OutlineRow>,
    pub trace: Trace,
    /// The current state's moves and its components as text.
    pub enabled: Vec<Enabled>,
    pub components: Vec<String>,
    pub filter: String,
    pub focus: Pane,
    pub maximised: bool,
    /// Widths of the three columns, in percent.
    pub widths: [u16; 3],
    /// The selected row of each pane (indexed like [`Pane::ALL`]).
    pub selected: [usize; 5],
    pub checks: Vec<CheckRow>,
    pub overlay: Option<Overlay>,
    pub message: Option<Message>,
    pub config: Config,
    /// The terminal's size.
    pub size: (u16, u16),
    /// Distinct system states visited in this animation.
    pub seen: FxHashSet<Vec<u32>>,
    pub counterexample: Option<LoadedCounterexample>,
    pub budget: Budget,
    pub session_path: Option<PathBuf>,
    pub quit: bool,
    rng: fastrand::Rng,
}

/// The number of steps a random run offers to take.
const DEFAULT_RANDOM_RUN: usize = 100;
/// The state budget of checks run from the animator.
pub const CHECK_BUDGET: usize = 20_000_000;

impl App {
    /// Opens `source` and animates `process` (or the script's default
    /// process). Evaluation recurses: call it on a large stack.
    pub fn new(source: Source, process: Option<String>, config: Config) -> App {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut app = App {
            source,
            listing: None,
            script_items: Vec::new(),
            process: String::new(),
            animation: None,
            problem: None,
            outline: Vec::new(),
            trace: Trace::default(),
            enabled: Vec::new(),
            components: Vec::new(),
            filter: String::new(),
            focus: Pane::Events,
            maximised: false,
            widths: [24, 40, 36],
            selected: [0; 5],
            checks: Vec::new(),
            overlay: None,
            message: None,
            config,
            size: (120, 40),
            seen: FxHashSet::default(),
            counterexample: None,
            // The check leaves a core to the user interface.
            budget: Budget {
                max_states: Some(CHECK_BUDGET),
                threads: threads.saturating_sub(1).max(1),
                ..Budget::default()
            },
            session_path: None,
            quit: false,
            rng: fastrand::Rng::new(),
        };
        if let Some(problem) = app.config.problems.first() {
            app.message = Some(Message {
                text: problem.clone(),
                error: true,
            });
        }
        app.load_script();
        let process = process.or_else(|| app.listing.as_ref()?.default_process());
        if let Some(process) = process {
            app.animate(&process);
        }
        app
    }

    /// Reopens a saved session: its model, process and trace.
    pub fn from_session(session: &Session, path: PathBuf, config: Config) -> Result<App, String> {
        let source = session.source()?;
        let mut app = App::new(source, Some(session.process.clone()), config);
        app.session_path = Some(path);
        app.replay(&session.steps, session.position);
        Ok(app)
    }

    /// Makes random choices repeatable (for tests).
    pub fn seed(&mut self, seed: u64) {
        self.rng = fastrand::Rng::with_seed(seed);
    }

    fn load_script(&mut self) {
        let listing = match self.source.load() {
            Ok(script) => Listing::new(script),
            Err(problem) => {
                self.problem = Some(problem);
                self.listing = None;
                self.script_items.clear();
                self.checks.clear();
                return;
            }
        };
        let mut items = vec![ScriptItem::Heading("Processes")];
        items.extend(listing.processes.iter().cloned().map(ScriptItem::Process));
        if !listing.functions.is_empty() {
            items.push(ScriptItem::Heading("Process functions"));
            items.extend(
                listing
                    .functions
                    .iter()
                    .map(|(name, arity)| ScriptItem::Function {
                        name: name.clone(),
                        arity: *arity,
                    }),
            );
        }
        if !listing.assertions.is_empty() {
            items.push(ScriptItem::Heading("Assertions (Enter: animate)"));
            items.extend(
                listing
                    .assertions
                    .iter()
                    .map(|(text, imp)| ScriptItem::Assertion {
                        text: text.clone(),
                        implementation: imp.clone(),
                    }),
            );
        }
        self.checks = listing
            .assertions
            .iter()
            .map(|(text, imp)| CheckRow {
                text: text.clone(),
                implementation: imp.clone(),
                status: CheckStatus::NotRun,
            })
            .collect();
        self.script_items = items;
        self.listing = Some(listing);
        self.problem = None;
    }

    /// Starts animating `process` from its initial state. On an error
    /// the previous animation stays and the diagnostics are shown.
    pub fn animate(&mut self, process: &str) -> bool {
        if self.listing.is_none() {
            return false;
        }
        match Animation::open(&self.source, process) {
            Ok(animation) => {
                let (initial, outline) =
                    animation.with_dependent(|_, anim| (anim.initial(), anim.outline()));
                self.animation = Some(animation);
                self.process = process.to_string();
                self.outline = outline;
                self.trace = Trace::start(initial);
                self.seen.clear();
                self.counterexample = None;
                self.filter.clear();
                self.problem = None;
                self.refresh();
                true
            }
            Err(problem) => {
                if self.animation.is_none() {
                    self.process = process.to_string();
                    self.problem = Some(problem);
                } else {
                    self.overlay = Some(Overlay::Problem(problem));
                }
                false
            }
        }
    }

    /// Recomputes what the current state shows.
    fn refresh(&mut self) {
        self.compute_moves();
        self.describe_state();
    }

    /// The current state's moves (what the next step can be).
    fn compute_moves(&mut self) {
        let Some(animation) = &mut self.animation else {
            return;
        };
        let state = self.trace.current().to_vec();
        let enabled = animation.with_dependent_mut(|script, anim| {
            anim.enabled(&state)
                .map_err(|e| e.to_diagnostic().render(&script.sources))
        });
        match enabled {
            Ok(enabled) => self.enabled = enabled,
            Err(problem) => {
                self.enabled.clear();
                self.message = Some(Message {
                    text: "evaluating this state's events failed (see the State pane)".into(),
                    error: true,
                });
                self.problem = Some(problem);
            }
        }
        self.seen.insert(state);
    }

    /// The current state's components as text, and the selections that
    /// follow the state; only needed where a state is shown, not for
    /// each step of a run.
    fn describe_state(&mut self) {
        let Some(animation) = &self.animation else {
            return;
        };
        let state = self.trace.current();
        self.components = animation.with_dependent(|_, anim| {
            (0..anim.components())
                .map(|slot| anim.show_component(slot, state[slot]))
                .collect()
        });
        self.selected[index(Pane::Trace)] = self.trace.position;
        self.fit_selections();
    }

    /// Keeps the Events selection on an event the filter shows.
    fn fit_selections(&mut self) {
        let events = self.visible_events().len();
        let selected = &mut self.selected[index(Pane::Events)];
        *selected = (*selected).min(events.saturating_sub(1));
    }

    /// The enabled events the filter lets through, with their index in
    /// [`App::enabled`].
    pub fn visible_events(&self) -> Vec<usize> {
        let needle = self.filter.to_lowercase();
        self.enabled
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                needle.is_empty()
                    || e.label.to_lowercase().contains(&needle)
                    || e.participants
                        .iter()
                        .any(|p| p.own_event.to_lowercase().contains(&needle))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The running check, if any (one runs at a time).
    fn running_check(&self) -> Option<&CheckHandle> {
        self.checks.iter().find_map(|c| match &c.status {
            CheckStatus::Running(handle) => Some(handle),
            _ => None,
        })
    }

    pub fn check_running(&self) -> bool {
        self.running_check().is_some()
    }

    /// The number of rows the focused pane's selection moves over.
    fn rows(&self, pane: Pane) -> usize {
        match pane {
            Pane::Script => self.script_items.len(),
            Pane::State => super::view::state_lines(self).len(),
            Pane::Events => self.visible_events().len(),
            Pane::Trace => self.trace.steps.len() + 1,
            Pane::Checks => self.checks.len(),
        }
    }

    /// Translates a key press into an action: prompts and confirmations
    /// take keys first, then the key map.
    pub fn key(&self, key: KeyEvent) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return Some(Action::Command(Command::Quit));
        }
        match &self.overlay {
            Some(Overlay::Prompt { .. }) => {
                return match key.code {
                    KeyCode::Enter => Some(Action::Prompt(PromptKey::Confirm)),
                    KeyCode::Esc => Some(Action::Prompt(PromptKey::Cancel)),
                    KeyCode::Backspace => Some(Action::Prompt(PromptKey::Backspace)),
                    KeyCode::Char(c) if !ctrl => Some(Action::Prompt(PromptKey::Char(c))),
                    _ => None,
                };
            }
            Some(Overlay::ConfirmQuit) => {
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

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: true,
        });
    }

    /// Takes move `i` of the current state (an index into
    /// [`App::enabled`]). Taking the move an undone step took redoes it.
    pub fn fire(&mut self, i: usize) {
        self.step(i);
        self.describe_state();
    }

    /// [`Self::fire`] without describing the new state, for runs of
    /// steps (which describe only the last).
    fn step(&mut self, i: usize) {
        let Some(e) = self.enabled.get(i) else {
            return;
        };
        let position = self.trace.position;
        let redo = self
            .trace
            .steps
            .get(position)
            .is_some_and(|s| s.choice == i && s.label == e.label);
        if !redo {
            let step = TraceStep {
                label: e.label.clone(),
                hidden: e.hidden.clone(),
                kind: e.kind,
                choice: i,
                changed: e.slots().collect(),
            };
            let target = e.target.clone();
            self.trace.steps.truncate(position);
            self.trace.states.truncate(position + 1);
            self.trace.steps.push(step);
            self.trace.states.push(target);
            if let Some(cx) = &mut self.counterexample {
                cx.valid = cx.valid.min(position);
            }
        }
        self.trace.position += 1;
        self.compute_moves();
    }

    /// Moves to trace position `p` (undo, redo and going back).
    pub fn goto(&mut self, p: usize) {
        if p < self.trace.states.len() && p != self.trace.position {
            self.trace.position = p;
            self.refresh();
        }
    }

    fn random_steps(&mut self, n: usize) -> usize {
        let mut taken = 0;
        while taken < n && !self.enabled.is_empty() {
            let i = self.rng.usize(..self.enabled.len());
            self.step(i);
            taken += 1;
        }
        self.describe_state();
        taken
    }

    /// Replays saved steps from the initial state, as far as they go.
    fn replay(&mut self, steps: &[SavedStep], position: usize) {
        for (k, step) in steps.iter().enumerate() {
            let by_choice = self
                .enabled
                .get(step.choice)
                .is_some_and(|e| e.label == step.event)
                .then_some(step.choice);
            let by_label = || self.enabled.iter().position(|e| e.label == step.event);
            match by_choice.or_else(by_label) {
                Some(i) => self.step(i),
                None => {
                    self.complain(format!(
                        "the saved trace stops at step {}: `{}` is not possible here",
                        k + 1,
                        step.event
                    ));
                    break;
                }
            }
        }
        self.trace.position = position.min(self.trace.steps.len());
        self.refresh();
    }

    /// The session as it stands.
    pub fn session(&self) -> Session {
        let steps = self
            .trace
            .steps
            .iter()
            .map(|s| SavedStep {
                event: s.label.clone(),
                choice: s.choice,
            })
            .collect();
        Session::new(&self.source, &self.process, steps, self.trace.position)
    }

    fn run_check(&mut self, index: usize) {
        let Some(listing) = &self.listing else {
            return;
        };
        if self.check_running() {
            self.complain("a check is already running (Esc cancels it)");
            return;
        }
        let Some(row) = self.checks.get_mut(index) else {
            return;
        };
        row.status = CheckStatus::Running(CheckHandle::spawn(
            listing.script.clone(),
            index,
            self.budget.clone(),
        ));
        self.message = Some(Message {
            text: format!("checking assertion {} (Esc cancels)", index + 1),
            error: false,
        });
    }

    /// Collects finished checks.
    fn poll_checks(&mut self) {
        let Some(listing) = &self.listing else {
            return;
        };
        let mut finished = None;
        for (i, row) in self.checks.iter_mut().enumerate() {
            if matches!(&row.status, CheckStatus::Running(h) if h.is_finished()) {
                let CheckStatus::Running(handle) =
                    std::mem::replace(&mut row.status, CheckStatus::NotRun)
                else {
                    unreachable!("matched above")
                };
                row.status = match handle
                    .join()
                    .map_err(|d| d.message)
                    .and_then(|result| Finished::new(&listing.script, result))
                {
                    Ok(done) => CheckStatus::Done(Box::new(done)),
                    Err(message) => CheckStatus::Error(message),
                };
                finished = Some(i);
            }
        }
        if let Some(i) = finished {
            let text = match &self.checks[i].status {
                CheckStatus::Done(done) => {
                    let hint = if done.counterexample.is_some() {
                        " — o opens its counterexample"
                    } else {
                        ""
                    };
                    format!(
                        "assertion {}: {}{hint}",
                        i + 1,
                        verdict_text(done.result.verdict)
                    )
                }
                CheckStatus::Error(e) => format!("assertion {}: {e}", i + 1),
                _ => return,
            };
            self.say(text);
        }
    }

    /// Loads the counterexample of check `index` into the animator.
    pub fn open_counterexample(&mut self, index: usize) {
        let Some(row) = self.checks.get(index) else {
            return;
        };
        let CheckStatus::Done(done) = &row.status else {
            self.complain("run the check first (c)");
            return;
        };
        let (Some(cx), Some(shown)) = (&done.result.counterexample, &done.counterexample) else {
            self.complain("this check has no counterexample to open");
            return;
        };
        let (cx, shown) = (cx.clone(), shown.clone());
        let implementation = row.implementation.clone();
        if !self.animate(&implementation) {
            return;
        }
        let Some(animation) = &mut self.animation else {
            return;
        };
        let followed = animation.with_dependent_mut(|_, anim| anim.follow(cx.path()));
        let moves = match followed {
            Ok(moves) => moves,
            Err(e) => {
                self.complain(format!(
                    "the counterexample could not be followed at step {} (`{}`)",
                    e.step + 1,
                    shown.steps[e.step].event
                ));
                return;
            }
        };
        for (choice, _) in &moves {
            self.step(*choice);
        }
        self.describe_state();
        self.counterexample = Some(LoadedCounterexample {
            assertion: index,
            spec_initial: shown.spec_initial.clone(),
            spec_after: shown.steps.iter().map(|s| s.spec.clone()).collect(),
            valid: moves.len(),
            verdict: describe_counterexample(&shown),
            loop_from: cx.loop_from.map(|k| k + 1),
        });
        self.focus = Pane::Trace;
        self.say(format!(
            "counterexample of assertion {} loaded: {} steps (u and Ctrl-r step through it)",
            index + 1,
            moves.len()
        ));
    }

    fn activate(&mut self) {
        let selected = self.selected[index(self.focus)];
        match self.focus {
            Pane::Script => match self.script_items.get(selected).cloned() {
                Some(ScriptItem::Process(p)) => {
                    self.animate(&p);
                }
                Some(ScriptItem::Assertion { implementation, .. }) => {
                    self.animate(&implementation);
                }
                Some(ScriptItem::Function { name, arity }) => {
                    let holes = vec!["_"; arity].join(", ");
                    self.say(format!("give {name}'s arguments: {name}({holes})"));
                    self.overlay = Some(Overlay::Prompt {
                        purpose: Purpose::Process,
                        text: format!("{name}("),
                    });
                }
                Some(ScriptItem::Heading(_)) | None => {}
            },
            Pane::State | Pane::Events => {
                let visible = self.visible_events();
                match visible.get(self.selected[index(Pane::Events)]) {
                    Some(&i) => self.fire(i),
                    None => self.complain("no event to fire"),
                }
            }
            Pane::Trace => self.goto(selected),
            Pane::Checks => match self.checks.get(selected).map(|c| &c.status) {
                Some(CheckStatus::Done(done)) if done.counterexample.is_some() => {
                    self.open_counterexample(selected)
                }
                Some(CheckStatus::Running(_)) => self.say("running (Esc cancels)"),
                Some(_) => self.run_check(selected),
                None => {}
            },
        }
    }

    fn command(&mut self, command: Command) {
        if let Some(overlay) = &self.overlay {
            let closes = matches!(command, Command::Cancel | Command::Help | Command::Quit);
            if matches!(overlay, Overlay::Help | Overlay::Problem(_)) && closes {
                self.overlay = None;
            }
            return;
        }
        let pane = index(self.focus);
        let rows = self.rows(self.focus);
        let page = usize::from(self.size.1.saturating_sub(8)).max(1);
        let moved = |s: &mut [usize; 5], to: usize| s[pane] = to.min(rows.saturating_sub(1));
        match command {
            Command::Quit => {
                if self.check_running() {
                    self.overlay = Some(Overlay::ConfirmQuit);
                } else {
                    self.quit = true;
                }
            }
            Command::Help => self.overlay = Some(Overlay::Help),
            Command::Cancel => {
                if let Some(h) = self.running_check() {
                    h.cancel();
                    self.say("cancelling the check…");
                } else if !self.filter.is_empty() {
                    self.filter.clear();
                    self.fit_selections();
                } else if self.maximised {
                    self.maximised = false;
                } else {
                    self.message = None;
                }
            }
            Command::NextPane | Command::PrevPane => {
                let step = if command == Command::NextPane { 1 } else { 4 };
                self.focus = Pane::ALL[(pane + step) % 5];
            }
            Command::PaneLeft => {
                self.focus = match self.focus {
                    Pane::Events | Pane::Trace => Pane::State,
                    Pane::State => Pane::Script,
                    other => other,
                }
            }
            Command::PaneRight => {
                self.focus = match self.focus {
                    Pane::Script | Pane::Checks => Pane::State,
                    Pane::State => Pane::Events,
                    other => other,
                }
            }
            Command::Up => {
                let to = self.selected[pane].saturating_sub(1);
                moved(&mut self.selected, to)
            }
            Command::Down => {
                let to = self.selected[pane] + 1;
                moved(&mut self.selected, to)
            }
            Command::PageUp => {
                let to = self.selected[pane].saturating_sub(page);
                moved(&mut self.selected, to)
            }
            Command::PageDown => {
                let to = self.selected[pane] + page;
                moved(&mut self.selected, to)
            }
            Command::Top => moved(&mut self.selected, 0),
            Command::Bottom => moved(&mut self.selected, usize::MAX),
            Command::Activate => self.activate(),
            Command::FireNth(n) => {
                let visible = self.visible_events();
                match n.checked_sub(1).and_then(|k| visible.get(k)) {
                    Some(&i) => self.fire(i),
                    None => self.complain(format!(
                        "there is no event {n}: this state offers {}",
                        visible.len()
                    )),
                }
            }
            Command::Undo => match self.trace.position {
                0 => self.complain("already at the initial state"),
                p => self.goto(p - 1),
            },
            Command::Redo => {
                if self.trace.position < self.trace.steps.len() {
                    self.goto(self.trace.position + 1);
                } else {
                    self.complain("nothing to redo");
                }
            }
            Command::RandomStep => {
                if self.random_steps(1) == 0 {
                    self.complain("no event is possible here (deadlock or termination)");
                }
            }
            Command::RandomRun => {
                self.overlay = Some(Overlay::Prompt {
                    purpose: Purpose::RandomRun,
                    text: DEFAULT_RANDOM_RUN.to_string(),
                })
            }
            Command::Initial => self.goto(0),
            Command::Filter => {
                self.focus = Pane::Events;
                self.overlay = Some(Overlay::Prompt {
                    purpose: Purpose::Filter,
                    text: self.filter.clone(),
                })
            }
            Command::RunCheck => self.run_check(self.selected[index(Pane::Checks)]),
            Command::OpenCounterexample => {
                self.open_counterexample(self.selected[index(Pane::Checks)])
            }
            Command::TypeProcess => {
                self.overlay = Some(Overlay::Prompt {
                    purpose: Purpose::Process,
                    text: self.process.clone(),
                })
            }
            Command::Maximise => self.maximised = !self.maximised,
            Command::Grow | Command::Shrink => {
                let column = column_of(self.focus);
                let delta: i32 = if command == Command::Grow { 4 } else { -4 };
                let new = (i32::from(self.widths[column]) + delta).clamp(12, 76);
                let change = new - i32::from(self.widths[column]);
                // The neighbour to the right (or left, for the last
                // column) gives or takes the difference.
                let other = if column == 2 { 1 } else { column + 1 };
                let neighbour = i32::from(self.widths[other]) - change;
                if (12..=76).contains(&neighbour) {
                    self.widths[column] = new as u16;
                    self.widths[other] = neighbour as u16;
                }
            }
            Command::SaveSession => {
                let text = self
                    .session_path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "symcsp-session.ron".to_string());
                self.overlay = Some(Overlay::Prompt {
                    purpose: Purpose::SaveSession,
                    text,
                })
            }
            Command::Reload => {
                let steps = self.session().steps;
                let position = self.trace.position;
                if self.check_running() {
                    self.complain("wait for the running check (or cancel it) before reloading");
                    return;
                }
                self.animation = None;
                self.load_script();
                let process = self.process.clone();
                if self.listing.is_some() && self.animate(&process) {
                    self.replay(&steps, position);
                    if self.message.as_ref().is_none_or(|m| !m.error) {
                        self.say("reloaded");
                    }
                }
            }
        }
    }

    fn prompt(&mut self, key: PromptKey) {
        match self.overlay.take() {
            Some(Overlay::ConfirmQuit) => {
                if key == PromptKey::Confirm {
                    if let Some(h) = self.running_check() {
                        h.cancel();
                    }
                    self.quit = true;
                }
            }
            Some(Overlay::Prompt { purpose, mut text }) => match key {
                PromptKey::Char(c) => {
                    text.push(c);
                    self.prompt_edited(purpose, &text);
                    self.overlay = Some(Overlay::Prompt { purpose, text });
                }
                PromptKey::Backspace => {
                    text.pop();
                    self.prompt_edited(purpose, &text);
                    self.overlay = Some(Overlay::Prompt { purpose, text });
                }
                PromptKey::Cancel => {
                    if purpose == Purpose::Filter {
                        self.filter.clear();
                        self.fit_selections();
                    }
                }
                PromptKey::Confirm => self.prompt_confirmed(purpose, text),
            },
            other => self.overlay = other,
        }
    }

    fn prompt_edited(&mut self, purpose: Purpose, text: &str) {
        if purpose == Purpose::Filter {
            self.filter = text.to_string();
            self.selected[index(Pane::Events)] = 0;
        }
    }

    fn prompt_confirmed(&mut self, purpose: Purpose, text: String) {
        match purpose {
            Purpose::Filter => {}
            Purpose::Process => {
                let text = text.trim();
                if !text.is_empty() && self.animate(text) {
                    self.say(format!("animating {text}"));
                }
            }
            Purpose::RandomRun => match text.trim().parse::<usize>() {
                Ok(n) => {
                    let taken = self.random_steps(n);
                    if taken < n {
                        self.say(format!(
                            "{taken} random steps taken; then no event was possible"
                        ));
                    } else {
                        self.say(format!("{taken} random steps taken"));
                    }
                }
                Err(_) => self.complain(format!("`{text}` is not a number of steps")),
            },
            Purpose::SaveSession => {
                let path = PathBuf::from(text.trim());
                match self.session().save(&path) {
                    Ok(()) => {
                        self.say(format!("session saved to {}", path.display()));
                        self.session_path = Some(path);
                    }
                    Err(e) => self.complain(e),
                }
            }
        }
    }

    fn click(&mut self, column: u16, row: u16, scroll: Option<bool>) {
        if self.overlay.is_some() {
            return;
        }
        let areas = super::view::areas(self, self.size);
        let Some((pane, area)) = areas
            .into_iter()
            .find(|(_, a)| a.contains(ratatui::layout::Position { x: column, y: row }))
        else {
            return;
        };
        self.focus = pane;
        let p = index(pane);
        let rows = self.rows(pane);
        match scroll {
            Some(down) => {
                self.selected[p] = if down {
                    (self.selected[p] + 3).min(rows.saturating_sub(1))
                } else {
                    self.selected[p].saturating_sub(3)
                };
            }
            None => {
                let height = usize::from(area.height.saturating_sub(2));
                let offset = super::view::scroll_offset(self.selected[p], height);
                let clicked = offset + usize::from(row.saturating_sub(area.y + 1));
                if row > area.y && clicked < rows {
                    self.selected[p] = clicked;
                }
            }
        }
    }
}

/// Applies `action` to the model.
pub fn update(app: &mut App, action: Action) {
    match action {
        Action::Command(command) => app.command(command),
        Action::Prompt(key) => app.prompt(key),
        Action::Click { column, row } => app.click(column, row, None),
        Action::Scroll { column, row, down } => app.click(column, row, Some(down)),
        Action::Resize { width, height } => app.size = (width, height),
        Action::Tick => app.poll_checks(),
    }
}

/// A pane's place in [`Pane::ALL`] (and in [`App::selected`]).
pub fn index(pane: Pane) -> usize {
    Pane::ALL
        .iter()
        .position(|&p| p == pane)
        .expect("every pane is listed")
}

/// The screen column (0, 1, 2) a pane sits in.
pub fn column_of(pane: Pane) -> usize {
    match pane {
        Pane::Script | Pane::Checks => 0,
        Pane::State => 1,
        Pane::Events | Pane::Trace => 2,
    }
}

/// A verdict in words, with why a check stopped.
pub fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::Inconclusive(stopped) => format!("Inconclusive ({})", stopped.reason()),
        v => v.word().to_string(),
    }
}

/// What a counterexample shows, in one line.
pub fn describe_counterexample(cx: &RenderedCounterexample) -> String {
    let list = |events: &[String]| format!("{{{}}}", events.join(", "));
    match cx.kind {
        Kind::Trace => match &cx.error_event {
            Some(e) => format!("the last step, {e}, is not allowed by the specification"),
            None => "the trace is not allowed by the specification".to_string(),
        },
        Kind::Refusal => format!(
            "this state refuses {} (it accepts only {})",
            list(&cx.refusals),
            list(&cx.accepted)
        ),
        Kind::Deadlock => "deadlock: this state can do nothing at all".to_string(),
        Kind::Divergence => match cx.loop_steps() {
            Some(steps) => format!("divergence: the τ-loop of {steps} can repeat for ever"),
            None => "this state can perform τ for ever (divergence)".to_string(),
        },
        Kind::Nondeterminism => match &cx.error_event {
            Some(e) => format!("after this trace the process may both perform and refuse {e}"),
            None => "nondeterminism after this trace".to_string(),
        },
    }
}

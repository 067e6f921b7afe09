//! The animator without a terminal: `update` for every action, and the
//! screens it draws (TestBackend snapshots) in typical and edge states.
//! The engine answers on its own thread; the helpers wait for it
//! (`App::settle`) after each action, as a user waits for the screen.

// The helpers every animator test shares; this one uses some of them.
#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use symcsp::builtin::LISTSTACK;
use symcsp::check::Verdict;
use symcsp::stack::with_large_stack;
use symcsp::tui::app::{Action, App, Overlay, Replacement, update};
use symcsp::tui::config::{Command, Config, PaneId};
use symcsp::tui::model::Source;
use symcsp::tui::panes::checks::{CheckStatus, ChecksPane};
use symcsp::tui::panes::events::EventsPane;
use symcsp::tui::panes::script::ScriptPane;
use symcsp::tui::panes::symmetry::SymmetryPane;
use symcsp::tui::prompt::{PromptKey, Purpose};
use symcsp::tui::session::Session;
use symcsp::tui::view::view;
use symcsp::tui::walk::Walk;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tui")
        .join(name)
}

/// The animator on a fixture (relative name, so screens do not show
/// this machine's paths), default process unless one is given.
fn open(name: &str, process: Option<&str>) -> App {
    let source = Source::File(PathBuf::from(format!("tests/fixtures/tui/{name}")));
    let mut app = App::new(source, process.map(str::to_string), Config::default());
    app.seed(7);
    app.settle();
    app
}

/// The animator on `text`, written to a file called `name` in a
/// directory that lasts as long as the returned handle.
fn open_script(name: &str, text: &str, process: Option<&str>) -> (tempfile::TempDir, App) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let mut app = App::new(
        Source::File(path),
        process.map(str::to_string),
        Config::default(),
    );
    app.settle();
    (dir, app)
}

fn act(app: &mut App, action: Action) {
    update(app, action);
    app.settle();
}

fn run(app: &mut App, commands: &[Command]) {
    for &c in commands {
        act(app, Action::Command(c));
    }
}

use common::type_text;

/// Types `text` at the process prompt, over what it offers, and confirms.
fn type_process(app: &mut App, text: &str) {
    run(app, &[Command::TypeProcess]);
    act(app, Action::Prompt(PromptKey::DeleteToStart));
    type_text(app, text);
    act(app, Action::Prompt(PromptKey::Confirm));
}

/// The animator on a copy of fixture `name` called `copy`, which the
/// test may edit.
fn open_copy(name: &str, copy: &str, process: &str) -> (tempfile::TempDir, PathBuf, App) {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let (dir, app) = open_script(copy, &text, Some(process));
    let path = dir.path().join(copy);
    (dir, path, app)
}

fn walk(app: &App) -> &Walk {
    app.walk.as_ref().expect("a process is animated")
}

fn labels(app: &App) -> Vec<String> {
    walk(app).moves().iter().map(|m| m.label.clone()).collect()
}

fn trace(app: &App) -> Vec<String> {
    let w = walk(app);
    (1..=w.path.position()).map(|p| w.step_label(p).0).collect()
}

fn position(app: &App) -> usize {
    walk(app).path.position()
}

/// Moves the Script pane's selection to the first row whose debug form
/// contains `row` (e.g. `"Counter"` with its quotes).
fn select_script_item(app: &mut App, row: &str) {
    let index = app
        .panes
        .of_type::<ScriptPane>()
        .items
        .iter()
        .position(|i| format!("{i:?}").contains(row))
        .unwrap_or_else(|| panic!("no Script row {row}"));
    run(app, &[Command::Top]);
    for _ in 0..index {
        run(app, &[Command::Down]);
    }
}

fn message(app: &App) -> String {
    app.message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

use common::screen;

fn wait_for_checks(app: &mut App) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while app.check_running() {
        assert!(Instant::now() < deadline, "the check did not finish");
        std::thread::sleep(Duration::from_millis(5));
        update(app, Action::Tick);
    }
    app.settle();
}

#[test]
fn opens_on_the_first_assertions_process_with_its_events() {
    with_large_stack(|| {
        let app = open("counter.csp", None);
        let w = walk(&app);
        assert_eq!(w.process, "Quiet");
        assert_eq!(w.shown.as_ref().unwrap().components.len(), 2);
        assert_eq!(labels(&app), ["up"]);
        assert_eq!(w.moves()[0].slots().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(position(&app), 0);
        assert_eq!(app.panes.of_type::<ChecksPane>().rows.len(), 3);
        assert_eq!(w.seen, 1);
    });
}

#[test]
fn firing_undoing_and_redoing_walk_the_trace() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(trace(&app), ["up"]);
        assert_eq!(walk(&app).changed(), [0, 1]);
        assert_eq!(labels(&app), ["step.1"]);
        run(&mut app, &[Command::Activate]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(walk(&app).changed(), [0]);
        assert_eq!(labels(&app), ["up", "down"]);
        run(&mut app, &[Command::Undo, Command::Undo]);
        assert_eq!(position(&app), 0);
        assert_eq!(walk(&app).changed(), [] as [usize; 0]);
        run(&mut app, &[Command::Undo]);
        assert!(app.message.as_ref().unwrap().error);
        run(&mut app, &[Command::Redo, Command::Redo]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(
            walk(&app).changed(),
            [0],
            "a redone step marks its components"
        );
        run(&mut app, &[Command::Redo]);
        assert_eq!(message(&app), "nothing to redo");
        // Going back and taking another move forgets the undone steps;
        // taking the same move again keeps them.
        run(&mut app, &[Command::Initial]);
        assert_eq!(position(&app), 0);
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(walk(&app).path.len(), 2, "re-taking a step redoes it");
        run(&mut app, &[Command::FireNth(1), Command::FireNth(2)]);
        assert_eq!(trace(&app), ["up", "step.1", "down"]);
        run(&mut app, &[Command::Undo, Command::FireNth(1)]);
        assert_eq!(trace(&app), ["up", "step.1", "up"]);
        assert_eq!(walk(&app).path.len(), 3);
        run(&mut app, &[Command::FireNth(9)]);
        assert!(message(&app).contains("no event 9"));
        assert_eq!(walk(&app).seen, 5);
    });
}

#[test]
fn the_trace_pane_goes_back_to_the_selected_state() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(2),
            ],
        );
        app.focus = PaneId::TRACE;
        run(&mut app, &[Command::Up, Command::Up, Command::Activate]);
        assert_eq!(position(&app), 1);
        assert_eq!(walk(&app).path.len(), 3);
        run(&mut app, &[Command::Bottom, Command::Activate]);
        assert_eq!(position(&app), 3);
    });
}

#[test]
fn random_steps_are_taken_until_nothing_is_possible() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        run(&mut app, &[Command::RandomStep]);
        assert_eq!(trace(&app), ["up"]);
        run(&mut app, &[Command::RandomRun]);
        let Some(Overlay::Prompt(prompt)) = &app.overlay else {
            panic!("expected a prompt, got {:?}", app.overlay)
        };
        assert_eq!(prompt.purpose, Purpose::RandomRun);
        assert_eq!(prompt.text(), "100");
        // The suggestion is selected: typing replaces it.
        type_text(&mut app, "1");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(message(&app), "1 random step taken");
        run(&mut app, &[Command::RandomRun]);
        type_text(&mut app, "1000");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        // The user stops for good sooner or later: a deadlock.
        assert!(walk(&app).moves().is_empty());
        assert!(
            message(&app).contains("then no event was possible"),
            "{}",
            message(&app)
        );
        run(&mut app, &[Command::RandomStep]);
        assert!(app.message.as_ref().unwrap().error);
        assert!(message(&app).contains("deadlocked"), "{}", message(&app));
        run(&mut app, &[Command::RandomRun]);
        type_text(&mut app, "x");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert!(message(&app).contains("not a number"));
    });
}

#[test]
fn random_steps_typed_faster_than_the_engine_answers_are_all_taken() {
    with_large_stack(|| {
        let text = "channel a, b\nP(n) = a -> P(n+1) [] b -> P(n+1)\n";
        let (_dir, mut app) = open_script("up.csp", text, Some("P(0)"));
        // A burst of keys, none waiting for the screen: each press is a
        // step (a press while one is out waits for it, as firing does).
        for _ in 0..10 {
            update(&mut app, Action::Command(Command::RandomStep));
        }
        app.settle();
        assert_eq!(position(&app), 10);
        assert!(
            !app.message.as_ref().is_some_and(|m| m.error),
            "{}",
            message(&app)
        );
    });
}

#[test]
fn a_long_random_run_is_cancelled_and_keeps_its_steps() {
    with_large_stack(|| {
        let (_dir, mut app) =
            open_script("up.csp", "channel a\nP(n) = a -> P(n+1)\n", Some("P(0)"));
        update(&mut app, Action::Command(Command::RandomRun));
        update(&mut app, Action::Prompt(PromptKey::DeleteToStart));
        for c in "5000000".chars() {
            update(&mut app, Action::Prompt(PromptKey::Char(c)));
        }
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        // The interface goes on while the engine runs: its progress shows.
        std::thread::sleep(Duration::from_millis(200));
        let (doing, _, (done, total)) = app.busy().expect("the run is under way");
        assert_eq!(doing, "random run");
        assert_eq!(total, 5_000_000);
        assert!(done < total);
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("random run: "), "{shown}");
        assert!(shown.contains("of 5\u{a0}000\u{a0}000 · "), "{shown}");
        // Another step is refused while it runs; Esc cancels it.
        update(&mut app, Action::Command(Command::FireNth(1)));
        assert!(
            message(&app).starts_with("busy: random run"),
            "{}",
            message(&app)
        );
        update(&mut app, Action::Command(Command::Cancel));
        // Until the engine answers, the status line says Esc was heard.
        let shown = screen(&mut app, 120, 30);
        assert!(
            shown.contains("random run: ") && shown.contains("— cancelling…"),
            "{shown}"
        );
        app.settle();
        let taken = position(&app);
        assert!(taken > 0 && taken < 5_000_000, "{taken}");
        assert!(
            message(&app).contains("then cancelled"),
            "{}",
            message(&app)
        );
        assert_eq!(walk(&app).seen, taken + 1);
        assert_eq!(labels(&app), ["a"], "the state reached is shown");
        // The trace's title groups its digits as the progress did.
        let taken = symcsp::tui::panes::count(taken as u64);
        let title = format!("Trace ({taken} of {taken})");
        assert!(screen(&mut app, 120, 30).contains(&title), "{title}");
    });
}

#[test]
fn the_filter_narrows_the_events_esc_restores_it_then_clears_it() {
    with_large_stack(|| {
        let mut app = open("wide.csp", None);
        assert_eq!(labels(&app).len(), 500);
        run(&mut app, &[Command::Filter]);
        type_text(&mut app, "e.49");
        // e.49 and e.490 ... e.499
        assert_eq!(
            app.panes
                .of_type::<EventsPane>()
                .visible(walk(&app).moves())
                .len(),
            11
        );
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.panes.of_type::<EventsPane>().filter, "e.49");
        run(&mut app, &[Command::FireNth(2)]);
        assert_eq!(trace(&app), ["e.490"]);
        // Esc in the prompt cancels the edit: the filter stays as it was.
        let shown = app
            .panes
            .of_type::<EventsPane>()
            .visible(walk(&app).moves())
            .len();
        run(&mut app, &[Command::Filter]);
        type_text(&mut app, "9");
        assert_ne!(
            app.panes.of_type::<EventsPane>().filter,
            "e.49",
            "the filter follows the prompt"
        );
        act(&mut app, Action::Prompt(PromptKey::Cancel));
        assert_eq!(app.panes.of_type::<EventsPane>().filter, "e.49");
        assert_eq!(
            app.panes
                .of_type::<EventsPane>()
                .visible(walk(&app).moves())
                .len(),
            shown
        );
        // Esc outside it clears the filter.
        run(&mut app, &[Command::Cancel]);
        assert!(app.panes.of_type::<EventsPane>().filter.is_empty());
        assert_eq!(
            app.panes
                .of_type::<EventsPane>()
                .visible(walk(&app).moves())
                .len(),
            500
        );
        // The prompt remembers: Up brings the last filter back.
        run(&mut app, &[Command::Filter]);
        act(&mut app, Action::Prompt(PromptKey::Older));
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.panes.of_type::<EventsPane>().filter, "e.49");
    });
}

#[test]
fn any_process_expression_can_be_animated_and_errors_keep_the_old_one() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        run(&mut app, &[Command::TypeProcess]);
        type_text(&mut app, "Counter(1) ||| User");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(walk(&app).process, "Counter(1) ||| User");
        assert_eq!(labels(&app), ["up", "up", "down"]);
        run(&mut app, &[Command::TypeProcess]);
        // Moving the cursor keeps the text: type after it.
        act(&mut app, Action::Prompt(PromptKey::End));
        type_text(&mut app, " [] Nope");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(walk(&app).process, "Counter(1) ||| User");
        let Some(Overlay::Problem(problem)) = &app.overlay else {
            panic!("expected a problem, got {:?}", app.overlay)
        };
        assert!(problem.contains("Nope"), "{problem}");
        assert!(problem.contains("<process>:1:"), "{problem}");
        run(&mut app, &[Command::Cancel]);
        assert_eq!(app.overlay, None);
        // An error evaluating its first moves keeps the old one too.
        run(&mut app, &[Command::FireNth(1)]);
        type_process(&mut app, "User [] 5");
        assert_eq!(walk(&app).process, "Counter(1) ||| User");
        assert_eq!(position(&app), 1);
        let Some(Overlay::Problem(problem)) = &app.overlay else {
            panic!("expected a problem, got {:?}", app.overlay)
        };
        assert!(
            problem.contains("Couldn't match expected type Proc with actual type Int"),
            "{problem}"
        );
        assert!(problem.contains("<process>:1:9"), "{problem}");
        // Any key closes it (a letter bound to nothing included).
        let closing = app.key(KeyEvent::from(KeyCode::Char('x'))).unwrap();
        act(&mut app, closing);
        assert_eq!(app.overlay, None);
        // A key bound to a command closes it and acts: `e` types the
        // process again, and what follows goes into the prompt.
        type_process(&mut app, "User [] 5");
        assert!(matches!(app.overlay, Some(Overlay::Problem(_))));
        let again = app.key(KeyEvent::from(KeyCode::Char('e'))).unwrap();
        act(&mut app, again);
        assert!(
            matches!(app.overlay, Some(Overlay::Prompt(_))),
            "{:?}",
            app.overlay
        );
        act(&mut app, Action::Prompt(PromptKey::Cancel));
        // Esc and Enter only close it.
        for key in [KeyCode::Esc, KeyCode::Enter] {
            type_process(&mut app, "User [] 5");
            let closing = app.key(KeyEvent::from(key)).unwrap();
            act(&mut app, closing);
            assert_eq!(app.overlay, None, "{key:?}");
            assert_eq!(position(&app), 1, "{key:?} fired nothing");
        }
    });
}

#[test]
fn the_script_pane_animates_processes_and_asks_for_arguments() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        app.focus = PaneId::SCRIPT;
        let names: Vec<String> = app
            .panes
            .of_type::<ScriptPane>()
            .items
            .iter()
            .map(|i| format!("{i:?}"))
            .collect();
        assert!(
            names.iter().any(|n| n.contains("Process(\"System\")")),
            "{names:?}"
        );
        assert!(
            names
                .iter()
                .any(|n| n.contains("name: \"Counter\", arity: 1")),
            "{names:?}"
        );
        select_script_item(&mut app, "Process(\"System\")");
        run(&mut app, &[Command::Activate]);
        assert_eq!(walk(&app).process, "System");
        select_script_item(&mut app, "\"Counter\"");
        run(&mut app, &[Command::Activate]);
        let Some(Overlay::Prompt(prompt)) = &app.overlay else {
            panic!("expected a prompt, got {:?}", app.overlay)
        };
        assert_eq!(
            (prompt.purpose, prompt.text()),
            (Purpose::Process, "Counter(".into())
        );
        assert_eq!(prompt.hint, "Counter(_)");
        type_text(&mut app, "2)");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(walk(&app).process, "Counter(2)");
        assert_eq!(labels(&app), ["down"]);
    });
}

/// `t` shows each definition's type in the Script pane, and the other
/// names the script declares with theirs; again, it hides them.
#[test]
fn the_script_pane_shows_types_on_request() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        app.focus = PaneId::EVENTS;
        let before = screen(&mut app, 120, 40);
        assert!(!before.contains(":: (Int) -> Proc"), "{before}");
        run(&mut app, &[Command::ShowTypes]);
        assert_eq!(app.focus, PaneId::SCRIPT);
        let shown = screen(&mut app, 120, 40);
        for line in [
            "Counter(_) :: (Int) ->",
            "System :: Proc",
            "Definitions and their types",
            "step :: Int=>Event",
            "up :: Event",
        ] {
            assert!(shown.contains(line), "{line} in\n{shown}");
        }
        // The full type is on the status line.
        select_script_item(&mut app, "\"Counter\"");
        let status = screen(&mut app, 120, 40);
        assert!(status.contains("Counter :: (Int) -> Proc"), "{status}");
        // A definition row animates nothing.
        select_script_item(&mut app, "\"step\"");
        let process = walk(&app).process.clone();
        run(&mut app, &[Command::Activate]);
        assert_eq!(walk(&app).process, process);
        assert_eq!(app.overlay, None);
        run(&mut app, &[Command::ShowTypes]);
        let hidden = screen(&mut app, 120, 40);
        assert!(!hidden.contains("step :: Int=>Event"), "{hidden}");
        assert!(hidden.contains("Counter(_)"), "{hidden}");
    });
}

#[test]
fn the_script_pane_lists_every_process_valued_function() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.csp");
        std::fs::write(
            &path,
            "channel a, b\nP(n) = a -> P(n)\n\
             Climb(n) = if n == 0 then STOP else Step(n)\n\
             Step(n) = b -> Climb(n - 1)\nAlias(n) = Climb(n)\n\
             Twice(x) = 2 * x\nSystem = Climb(2)\n",
        )
        .unwrap();
        let mut app = App::new(Source::File(path), None, Config::default());
        app.settle();
        let functions: Vec<String> = app
            .panes
            .of_type::<ScriptPane>()
            .items
            .iter()
            .filter_map(|i| match i {
                symcsp::tui::panes::script::ScriptItem::Function { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(functions, ["P", "Climb", "Step", "Alias"]);
    });
}

#[test]
fn panes_are_switched_maximised_and_resized() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        assert_eq!(app.focus, PaneId::EVENTS);
        run(&mut app, &[Command::NextPane]);
        assert_eq!(app.focus, PaneId::TRACE);
        run(&mut app, &[Command::NextPane, Command::NextPane]);
        assert_eq!(app.focus, PaneId::SCRIPT);
        run(&mut app, &[Command::PrevPane]);
        assert_eq!(app.focus, PaneId::CHECKS);
        run(&mut app, &[Command::PaneRight, Command::PaneRight]);
        assert_eq!(app.focus, PaneId::EVENTS);
        run(&mut app, &[Command::PaneLeft]);
        assert_eq!(app.focus, PaneId::STATE);
        run(&mut app, &[Command::Maximise]);
        assert!(app.maximised);
        run(&mut app, &[Command::Cancel]);
        assert!(!app.maximised);
        let before = app.widths;
        run(&mut app, &[Command::Grow]);
        assert_eq!(app.widths[1], before[1] + 4);
        assert_eq!(app.widths[2], before[2] - 4);
        run(&mut app, &[Command::Shrink, Command::Shrink]);
        assert_eq!(app.widths[1], before[1] - 4);
        assert_eq!(app.widths.iter().sum::<u16>(), before.iter().sum::<u16>());
        run(&mut app, &[Command::Help]);
        assert_eq!(app.overlay, Some(Overlay::Help));
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(
            position(&app),
            0,
            "keys other than Esc do nothing under help"
        );
        run(&mut app, &[Command::Help]);
        assert_eq!(app.overlay, None);
    });
}

#[test]
fn keys_do_nothing_on_a_screen_too_small_but_quit() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        act(
            &mut app,
            Action::Resize {
                width: 40,
                height: 10,
            },
        );
        assert!(screen(&mut app, 40, 10).contains("Terminal too small"));
        assert_eq!(app.key(KeyEvent::from(KeyCode::Char('1'))), None);
        assert_eq!(app.key(KeyEvent::from(KeyCode::Enter)), None);
        act(&mut app, Action::Command(Command::FireNth(1)));
        assert_eq!(position(&app), 0);
        let q = app.key(KeyEvent::from(KeyCode::Char('q'))).unwrap();
        act(&mut app, q);
        assert!(app.quit);
    });
}

/// A check that meets an error (one no type shows: the head of an empty
/// sequence) shows it as the command line does: the place, the line
/// with a caret under the fault, and the notes.
#[test]
fn a_checks_error_is_shown_with_its_place_and_caret() {
    with_large_stack(|| {
        let text = "channel a\nP = a -> P\nQ = a -> head(<>)\nassert P [T= Q\n";
        let (_dir, mut app) = open_script("err.csp", text, None);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        assert!(matches!(
            app.panes.of_type::<ChecksPane>().rows[0].status,
            CheckStatus::Error(_)
        ));
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("err.csp:3:10"), "{shown}");
        assert!(shown.contains("3 | Q = a -> head(<>)"), "{shown}");
        assert!(shown.contains("  |          ^^^^^^^^"), "{shown}");
        // Nothing runs and there is no counterexample: the status bar
        // offers neither.
        assert!(!shown.contains("Esc cancel"), "{shown}");
        assert!(!shown.contains("o counterexample"), "{shown}");
    });
}

#[test]
fn a_failed_checks_counterexample_is_loaded_and_stepped_through() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("Counter(0)"));
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        assert!(
            app.check_running()
                || matches!(
                    app.panes.of_type::<ChecksPane>().rows[0].status,
                    CheckStatus::Running(_)
                )
        );
        wait_for_checks(&mut app);
        let CheckStatus::Done(done) = &app.panes.of_type::<ChecksPane>().rows[0].status else {
            panic!("the check ended without a result")
        };
        assert_eq!(done.result.verdict, Verdict::Failed);
        assert!(message(&app).contains("Failed"));
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("o counterexample"), "{shown}");
        assert!(!shown.contains("Esc cancel"), "{shown}");
        run(&mut app, &[Command::Activate]);
        assert_eq!(walk(&app).process, "Quiet");
        assert_eq!(trace(&app), ["up", "τ", "up"]);
        assert_eq!(app.focus, PaneId::TRACE);
        let cx = walk(&app).counterexample.clone().unwrap();
        assert_eq!(cx.spec_at(0), Some(&["Spec".to_string()][..]));
        assert_eq!(cx.spec_at(2).unwrap(), ["down -> Spec"]);
        assert!(cx.verdict.contains("up, is not allowed"), "{}", cx.verdict);
        let shown = screen(&mut app, 120, 30);
        assert!(
            shown.contains("Specification before the last step:"),
            "{shown}"
        );
        assert!(shown.contains("✗ assertion 1"), "{shown}");
        // The Trace pane names the event the τ hides.
        assert!(shown.contains("   2 τ ‹step.1›"), "{shown}");
        // Stepping back shows the specification beside the earlier state.
        run(&mut app, &[Command::Undo]);
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("down -> Spec"), "{shown}");
        assert!(!shown.contains("✗ assertion 1"), "{shown}");
        // Leaving the counterexample's path drops the specification.
        run(
            &mut app,
            &[Command::Initial, Command::FireNth(1), Command::Redo],
        );
        assert!(
            walk(&app)
                .counterexample
                .as_ref()
                .unwrap()
                .spec_at(2)
                .is_some()
        );
        // The deadlock check's counterexample ends where nothing is possible.
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(walk(&app).process, "System");
        assert_eq!(trace(&app), ["up", "step.1", "up", "step.2"]);
        assert!(walk(&app).moves().is_empty());
        // A passing check has nothing to open.
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert!(message(&app).contains("no counterexample"));
    });
}

#[test]
fn a_walk_left_for_a_counterexample_or_a_process_is_kept_and_b_goes_back() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        // A walk without steps is not kept: there is nothing to lose.
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert!(app.earlier.is_none());
        // Steps of the user's own are kept when a counterexample replaces them.
        type_process(&mut app, "System");
        assert!(
            app.earlier.is_none(),
            "the counterexample, unchanged, opens again"
        );
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(walk(&app).process, "Quiet");
        assert_eq!(trace(&app), ["up", "τ", "up"]);
        assert!(
            message(&app).ends_with("; b goes back to System (step 2 of 2))"),
            "{}",
            message(&app)
        );
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("b earlier walk"), "{shown}");
        assert!(
            shown.contains("Trace (3 of 3) — counterexample of assertion 1 "),
            "{shown}"
        );
        run(&mut app, &[Command::SwapWalk]);
        assert_eq!(walk(&app).process, "System");
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(labels(&app), ["up", "down"]);
        assert_eq!(
            message(&app),
            "back to System (step 2 of 2); b goes back to Quiet (counterexample of assertion 1, step \
             3 of 3)"
        );
        // And back again, the counterexample still laid over its walk.
        run(&mut app, &[Command::SwapWalk]);
        assert_eq!(trace(&app), ["up", "τ", "up"]);
        let cx = walk(&app).counterexample.as_ref().unwrap();
        assert_eq!(cx.spec_at(2).unwrap(), ["down -> Spec"]);
        // Another counterexample replaces this one, not the user's walk.
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(trace(&app), ["up", "step.1", "up", "step.2"]);
        assert_eq!(
            app.earlier.as_ref().unwrap().summary(),
            "System (step 2 of 2)"
        );
        // Steps taken on a counterexample's walk make it the user's: a
        // process typed now would drop the earlier walk, so it asks.
        run(
            &mut app,
            &[Command::Undo, Command::Undo, Command::FireNth(2)],
        );
        type_process(&mut app, "User");
        assert_eq!(
            app.overlay,
            Some(Overlay::ConfirmDrop(Replacement::Process("User".into())))
        );
        let shown = screen(&mut app, 120, 30);
        assert!(
            shown.contains("Opening this drops the earlier walk, System (step 2 of 2)"),
            "{shown}"
        );
        // Narrow, the box grows with the words it wraps: the question shows.
        for width in [60, 67, 69] {
            let shown = screen(&mut app, width, 24);
            assert!(shown.contains("Open anyway? (y/n)"), "{shown}");
        }
        let no = app.key(KeyEvent::from(KeyCode::Char('n'))).unwrap();
        act(&mut app, no);
        assert_eq!(app.overlay, None);
        assert_eq!(message(&app), "nothing opened: both walks are kept");
        assert_eq!(walk(&app).process, "System");
        assert_eq!(trace(&app), ["up", "step.1", "down"]);
        // Asked again and confirmed: the walk just left is the one kept.
        type_process(&mut app, "User");
        let yes = app.key(KeyEvent::from(KeyCode::Char('y'))).unwrap();
        act(&mut app, yes);
        assert_eq!(walk(&app).process, "User");
        assert_eq!(
            app.earlier.as_ref().unwrap().summary(),
            "System (step 3 of 3)",
            "off the counterexample, the walk is the user's"
        );
        // A refused process keeps both walks.
        type_process(&mut app, "Nope");
        assert!(matches!(app.overlay, Some(Overlay::Problem(_))));
        run(&mut app, &[Command::Cancel, Command::SwapWalk]);
        assert_eq!(trace(&app), ["up", "step.1", "down"]);
        assert_eq!(labels(&app), ["step.0"], "the engine swapped too");
    });
}

#[test]
fn a_reload_replays_the_earlier_walk_too() {
    with_large_stack(|| {
        let (_dir, path, mut app) = open_copy("counter.csp", "c.csp", "System");
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        type_process(&mut app, "User");
        run(&mut app, &[Command::FireNth(1)]);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("channel up, down", "channel up, down, reset");
        std::fs::write(&path, text).unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(message(&app), "reloaded");
        assert_eq!(trace(&app), ["up"]);
        run(&mut app, &[Command::SwapWalk]);
        assert_eq!(walk(&app).process, "System");
        assert_eq!(trace(&app), ["up", "step.1"]);
        // Cut short, it says so.
        run(&mut app, &[Command::SwapWalk]);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("step.(n+1)", "step.(n+2)");
        std::fs::write(&path, &text).unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(trace(&app), ["up"]);
        assert_eq!(
            message(&app),
            "the earlier walk on System: the trace replayed stops at step 2 of 2: `step.1` is \
             not possible here"
        );
        assert_eq!(
            app.earlier.as_ref().unwrap().summary(),
            "System (step 1 of 1)"
        );
        // Its process gone, the earlier walk is dropped, and the user told.
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("System = ", "Whole = ")
            .replace("System \\", "Whole \\")
            .replace("assert System", "assert Whole");
        std::fs::write(&path, text).unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(walk(&app).process, "User");
        assert!(app.earlier.is_none());
        assert_eq!(
            message(&app),
            "reloaded; the earlier walk on System was dropped: the process no longer opens"
        );
    });
}

#[test]
fn a_divergence_is_loaded_with_its_tau_loop_marked() {
    with_large_stack(|| {
        let mut app = open("spin.csp", None);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(trace(&app), ["start", "τ", "τ", "τ"]);
        let cx = walk(&app).counterexample.as_ref().unwrap();
        assert_eq!(
            cx.verdict,
            "divergence: the τ-loop of steps 2–4 can repeat for ever"
        );
        assert!(!cx.in_loop(1) && cx.in_loop(2) && cx.in_loop(4));
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("   1 start  "), "{shown}");
        assert!(shown.contains("   2 τ ‹pass.0›  ↻ loop"), "{shown}");
        assert!(shown.contains("   4 τ ‹pass.2›  ↻ loop"), "{shown}");
    });
}

/// `C` runs every check in turn, as FDR's "run all"; Esc stops the one
/// running and drops those waiting.
#[test]
fn all_the_checks_run_in_turn_and_esc_stops_them() {
    with_large_stack(|| {
        let verdicts = |app: &App| -> Vec<String> {
            app.panes
                .of_type::<ChecksPane>()
                .rows
                .iter()
                .map(|row| match &row.status {
                    CheckStatus::Done(done) => done.result.verdict.word().to_string(),
                    CheckStatus::NotRun => "not run".into(),
                    CheckStatus::Queued => "queued".into(),
                    CheckStatus::Running(_) => "running".into(),
                    CheckStatus::Error(_) => "error".into(),
                })
                .collect()
        };
        let mut app = open("counter.csp", None);
        run(&mut app, &[Command::RunAllChecks]);
        assert_eq!(verdicts(&app)[1..], ["queued", "queued"]);
        assert!(message(&app).contains("checking the 3 assertions in turn"));
        assert!(screen(&mut app, 140, 40).contains("… queued"));
        wait_for_checks(&mut app);
        assert_eq!(verdicts(&app), ["Failed", "Failed", "Passed"]);
        // The unreduced assertion runs long enough to be stopped.
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        app.settle();
        run(&mut app, &[Command::RunAllChecks, Command::Cancel]);
        wait_for_checks(&mut app);
        let after = verdicts(&app);
        assert!(
            after[0] == "Inconclusive" || after[0] == "Passed",
            "{after:?}"
        );
        assert!(after[1..].iter().all(|v| v == "not run"), "{after:?}");
    });
}

#[test]
fn quitting_asks_first_while_a_check_runs_and_esc_cancels_it() {
    with_large_stack(|| {
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        app.settle();
        run(&mut app, &[Command::Quit]);
        assert!(app.quit, "nothing running: quit at once");
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        app.settle();
        // The unreduced assertion runs long enough to be cancelled.
        app.panes.of_type_mut::<ChecksPane>().list.selected = 0;
        run(&mut app, &[Command::RunCheck]);
        run(&mut app, &[Command::Quit]);
        assert_eq!(app.overlay, Some(Overlay::ConfirmQuit));
        let no = app.key(KeyEvent::from(KeyCode::Char('n'))).unwrap();
        act(&mut app, no);
        assert!(!app.quit);
        assert_eq!(app.overlay, None);
        run(&mut app, &[Command::Cancel]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::RunCheck, Command::Quit]);
        let yes = app.key(KeyEvent::from(KeyCode::Char('y'))).unwrap();
        act(&mut app, yes);
        assert!(app.quit);
    });
}

#[test]
fn keys_reach_prompts_before_the_key_map() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        let q = KeyEvent::from(KeyCode::Char('q'));
        assert_eq!(app.key(q), Some(Action::Command(Command::Quit)));
        run(&mut app, &[Command::Filter]);
        assert_eq!(app.key(q), Some(Action::Prompt(PromptKey::Char('q'))));
        let esc = KeyEvent::from(KeyCode::Esc);
        assert_eq!(app.key(esc), Some(Action::Prompt(PromptKey::Cancel)));
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        assert_eq!(app.key(ctrl('c')), Some(Action::Command(Command::Quit)));
        assert_eq!(app.key(ctrl('a')), Some(Action::Prompt(PromptKey::Start)));
        assert_eq!(
            app.key(ctrl('w')),
            Some(Action::Prompt(PromptKey::DeleteWord))
        );
        assert_eq!(
            app.key(KeyEvent::from(KeyCode::Up)),
            Some(Action::Prompt(PromptKey::Older))
        );
        assert_eq!(
            app.key(KeyEvent::from(KeyCode::Home)),
            Some(Action::Prompt(PromptKey::Start))
        );
    });
}

#[test]
fn sessions_are_saved_and_reopened_with_their_trace() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.ron");
        let mut app = open("counter.csp", Some("System"));
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(2),
            ],
        );
        run(&mut app, &[Command::Undo, Command::SaveSession]);
        type_text(&mut app, path.to_str().unwrap());
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert!(message(&app).contains("session saved"), "{}", message(&app));
        let session = symcsp::tui::session::Session::read(&path).unwrap();
        assert_eq!(session.position, 2);
        assert_eq!(session.steps.len(), 3);
        let mut back =
            App::from_session(&session, path.clone(), None, Config::default()).expect("reopens");
        back.settle();
        assert_eq!(walk(&back).process, "System");
        assert_eq!(trace(&back), ["up", "step.1"]);
        assert!(
            message(&back).ends_with("mine.ron reopened: step 2 of 3"),
            "{}",
            message(&back)
        );
        run(&mut back, &[Command::Redo]);
        assert_eq!(trace(&back), ["up", "step.1", "down"]);
        // A trace that no longer fits the model replays as far as it can.
        let mut changed = session.clone();
        changed.steps[1].event = "step.2".into();
        let mut partial = App::from_session(&changed, path, None, Config::default()).unwrap();
        partial.settle();
        assert_eq!(trace(&partial), ["up"]);
        assert!(
            message(&partial).contains("stops at step 2"),
            "{}",
            message(&partial)
        );
    });
}

/// The note said after quitting, for a walk of `process` kept in
/// `file` (`which`: "your walk" or "your earlier walk ...").
fn kept_note(which: &str, process: &str, file: &Path) -> String {
    format!(
        "note: {which} of {process} was not saved: it is kept in {0} (`symcsp --session {0}` \
         reopens it)",
        file.display()
    )
}

#[test]
fn quitting_keeps_the_walks_no_session_holds_and_says_where() {
    with_large_stack(|| {
        let kept = tempfile::tempdir().unwrap();
        let opened = |process: &str| {
            let mut app = open("counter.csp", Some(process));
            app.keep_walks_in = Some(kept.path().to_path_buf());
            app
        };
        // No steps: nothing to keep.
        let mut app = opened("System");
        run(&mut app, &[Command::Quit]);
        assert!(app.quit);
        assert!(app.farewell.is_empty(), "{:?}", app.farewell);
        // Steps, one undone: the whole walk is kept, then it quits.
        let mut app = opened("System");
        run(
            &mut app,
            &[Command::FireNth(1), Command::FireNth(1), Command::Undo],
        );
        run(&mut app, &[Command::Quit]);
        assert!(app.quit);
        let first = kept.path().join("walk-1.ron");
        assert_eq!(app.farewell, [kept_note("your walk", "System", &first)]);
        let session = Session::read(&first).unwrap();
        assert_eq!(session.process, "System");
        assert_eq!((session.steps.len(), session.position), (2, 1));
        // Reopened from there, it is held by its file: nothing to keep.
        let mut back = App::from_session(&session, first.clone(), None, Config::default()).unwrap();
        back.settle();
        back.keep_walks_in = Some(kept.path().to_path_buf());
        run(&mut back, &[Command::Quit]);
        assert!(back.quit);
        assert!(back.farewell.is_empty(), "{:?}", back.farewell);
        // A walk saved and not changed since is not kept again; one step
        // more and it is, in a file of its own.
        let mut app = opened("System");
        let mine = kept.path().join("mine.ron");
        run(&mut app, &[Command::FireNth(1), Command::SaveSession]);
        act(&mut app, Action::Prompt(PromptKey::DeleteToStart));
        type_text(&mut app, mine.to_str().unwrap());
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        assert!(message(&app).contains("session saved"), "{}", message(&app));
        run(&mut app, &[Command::FireNth(1), Command::Quit]);
        let second = kept.path().join("walk-2.ron");
        assert_eq!(app.farewell, [kept_note("your walk", "System", &second)]);
        assert_eq!(Session::read(&second).unwrap().steps.len(), 2);
        assert_eq!(Session::read(&mine).unwrap().steps.len(), 1, "untouched");
        assert_eq!(Session::read(&first).unwrap(), session, "untouched");
        // The walk left for another process is kept too, from its own
        // process; the new one has no steps of the user's.
        let mut app = opened("System");
        run(&mut app, &[Command::FireNth(1)]);
        type_process(&mut app, "Quiet");
        assert_eq!(walk(&app).process, "Quiet");
        run(&mut app, &[Command::Quit]);
        let third = kept.path().join("walk-3.ron");
        assert_eq!(
            app.farewell,
            [kept_note(
                "your earlier walk (the one b went back to)",
                "System",
                &third
            )]
        );
        let earlier = Session::read(&third).unwrap();
        assert_eq!(
            (earlier.process.as_str(), earlier.steps.len()),
            ("System", 1)
        );
    });
}

#[test]
fn a_walk_that_cannot_be_kept_is_said_and_quitting_again_leaves() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let not_a_directory = dir.path().join("file");
        std::fs::write(&not_a_directory, "").unwrap();
        let mut app = open("counter.csp", Some("System"));
        app.keep_walks_in = Some(not_a_directory.join("kept"));
        run(&mut app, &[Command::FireNth(1), Command::Quit]);
        assert!(!app.quit, "the walk would be lost");
        let said = message(&app);
        assert!(
            said.starts_with("your walk could not be kept before quitting: cannot make ")
                && said.ends_with("; s saves it elsewhere, q again quits without it"),
            "{said}"
        );
        run(&mut app, &[Command::Quit]);
        assert!(app.quit);
        assert!(app.farewell.is_empty(), "{:?}", app.farewell);
    });
}

#[test]
fn quitting_during_a_long_run_stops_it_and_keeps_its_steps() {
    with_large_stack(|| {
        let kept = tempfile::tempdir().unwrap();
        let (_dir, mut app) =
            open_script("up.csp", "channel a\nP(n) = a -> P(n+1)\n", Some("P(0)"));
        app.keep_walks_in = Some(kept.path().to_path_buf());
        update(&mut app, Action::Command(Command::RandomRun));
        update(&mut app, Action::Prompt(PromptKey::DeleteToStart));
        for c in "5000000".chars() {
            update(&mut app, Action::Prompt(PromptKey::Char(c)));
        }
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        std::thread::sleep(Duration::from_millis(100));
        update(&mut app, Action::Command(Command::Quit));
        assert!(matches!(app.overlay, Some(Overlay::ConfirmQuit)));
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        let deadline = Instant::now() + Duration::from_secs(60);
        while !app.quit {
            assert!(Instant::now() < deadline, "the animator did not quit");
            std::thread::sleep(Duration::from_millis(5));
            update(&mut app, Action::Tick);
        }
        let file = kept.path().join("walk-1.ron");
        assert_eq!(app.farewell, [kept_note("your walk", "P(0)", &file)]);
        let steps = Session::read(&file).unwrap().steps.len();
        assert!(steps > 0 && steps < 5_000_000, "{steps}");
    });
}

#[test]
fn moves_that_read_the_same_show_where_they_lead_and_sessions_keep_the_branch() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("twins.csp");
        std::fs::write(
            &script,
            "channel a, b, c\nP = a -> b -> STOP [] a -> c -> STOP\nSystem = P \\ {a}\n",
        )
        .unwrap();
        let mut app = App::new(
            Source::File(script.clone()),
            Some("System".into()),
            Config::default(),
        );
        app.settle();
        let moves = walk(&app).moves().to_vec();
        assert_eq!(moves.len(), 2);
        assert_eq!(
            (moves[0].label.as_str(), moves[1].label.as_str()),
            ("τ", "τ")
        );
        assert_ne!(moves[0].after, moves[1].after, "{moves:?}");
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("→ #1 c -> STOP"), "{shown}");
        run(&mut app, &[Command::FireNth(2)]);
        assert_eq!(labels(&app), ["c"]);
        let session = dir.path().join("s.ron");
        run(&mut app, &[Command::SaveSession]);
        type_text(&mut app, session.to_str().unwrap());
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        let saved = symcsp::tui::session::Session::read(&session).unwrap();
        assert_eq!(saved.steps[0].after, ["c -> STOP"]);
        // The branches swap places: the session still takes the c branch.
        std::fs::write(
            &script,
            "channel a, b, c\nP = a -> c -> STOP [] a -> b -> STOP\nSystem = P \\ {a}\n",
        )
        .unwrap();
        let mut back = App::from_session(&saved, session.clone(), None, Config::default()).unwrap();
        back.settle();
        assert_eq!(labels(&back), ["c"]);
        // The hidden event is gone: the reason names it, not a bare τ.
        std::fs::write(
            &script,
            "channel a, b, c, d\nP = d -> c -> STOP\nSystem = P \\ {d}\n",
        )
        .unwrap();
        let mut gone = App::from_session(&saved, session, None, Config::default()).unwrap();
        gone.settle();
        assert!(
            message(&gone).contains("stops at step 1 of 1: `τ ‹a›` is not possible here"),
            "{}",
            message(&gone)
        );
    });
}

#[test]
fn reloading_is_all_or_nothing() {
    with_large_stack(|| {
        let (_dir, path, mut app) = open_copy("counter.csp", "c.csp", "System");
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        run(&mut app, &[Command::Reload]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(message(&app), "reloaded");
        // A broken file: everything stays, and the diagnostic shows.
        std::fs::write(&path, "channel a\nP = a -> \n").unwrap();
        run(&mut app, &[Command::Reload]);
        let Some(Overlay::Problem(problem)) = &app.overlay else {
            panic!("expected the diagnostic, got {:?}", app.overlay)
        };
        assert!(problem.contains("expected an expression"), "{problem}");
        assert!(problem.contains("c.csp:2:9"), "{problem}");
        run(&mut app, &[Command::Cancel]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(app.panes.of_type::<ChecksPane>().rows.len(), 3);
        assert!(!app.panes.of_type::<ScriptPane>().items.is_empty());
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(
            trace(&app),
            ["up", "step.1", "up"],
            "the old model still works"
        );
        // Fixed, with a new event: a good reload replaces everything.
        let fixed = std::fs::read_to_string(fixture("counter.csp"))
            .unwrap()
            .replace("channel up, down", "channel up, down, reset");
        std::fs::write(&path, fixed).unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(trace(&app), ["up", "step.1", "up"]);
        assert_eq!(message(&app), "reloaded");
    });
}

#[test]
fn a_script_that_failed_to_load_loads_once_fixed() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("late.csp");
        std::fs::write(&path, "channel a\nP = a -> \n").unwrap();
        let mut app = App::new(Source::File(path.clone()), None, Config::default());
        app.settle();
        assert!(app.walk.is_none());
        assert!(app.problem.as_ref().unwrap().contains("late.csp:2:9"));
        std::fs::write(&path, "channel a\nP = a -> P\n").unwrap();
        run(&mut app, &[Command::Reload]);
        assert!(app.problem.is_none());
        assert_eq!(walk(&app).process, "P");
        assert_eq!(labels(&app), ["a"]);
    });
}

#[test]
fn the_built_in_model_has_no_file_to_reload() {
    with_large_stack(|| {
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        app.settle();
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        let before = trace(&app);
        run(&mut app, &[Command::Reload]);
        // The tests run in the project, where the model's file is.
        let Some(Overlay::ConfirmOpen(file)) = &app.overlay else {
            panic!("expected an offer, got {:?}", app.overlay)
        };
        assert_eq!(file, &PathBuf::from("models/liststack.csp"));
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("no file to reload"), "{shown}");
        let yes = app.key(KeyEvent::from(KeyCode::Char('y'))).unwrap();
        act(&mut app, yes);
        assert_eq!(
            app.source,
            Source::File(PathBuf::from("models/liststack.csp"))
        );
        assert_eq!(walk(&app).process, "System");
        // The walk is replayed on the file, as a reload replays it.
        assert_eq!(trace(&app), before);
        assert_eq!(message(&app), "opened models/liststack.csp");
    });
}

#[test]
fn clicks_select_and_the_wheel_scrolls() {
    with_large_stack(|| {
        let mut app = open("wide.csp", None);
        act(
            &mut app,
            Action::Resize {
                width: 120,
                height: 40,
            },
        );
        screen(&mut app, 120, 40);
        let region = |app: &App, pane| {
            app.layout
                .regions
                .iter()
                .find(|r| r.pane == pane)
                .unwrap()
                .rect
        };
        let events = region(&app, PaneId::EVENTS);
        let trace_area = region(&app, PaneId::TRACE);
        act(
            &mut app,
            Action::Click {
                column: trace_area.x + 3,
                row: trace_area.y + 1,
            },
        );
        assert_eq!(app.focus, PaneId::TRACE);
        act(
            &mut app,
            Action::Click {
                column: events.x + 3,
                row: events.y + 4,
            },
        );
        assert_eq!(app.focus, PaneId::EVENTS);
        assert_eq!(app.panes.of_type::<EventsPane>().list.selected, 3);
        act(
            &mut app,
            Action::Scroll {
                column: events.x + 3,
                row: events.y + 4,
                down: true,
            },
        );
        assert_eq!(app.panes.of_type::<EventsPane>().list.selected, 6);
        run(&mut app, &[Command::Activate]);
        assert_eq!(trace(&app), ["e.6"]);
    });
}

#[test]
fn a_script_that_does_not_load_shows_its_diagnostics() {
    with_large_stack(|| {
        let mut app = open("broken.csp", None);
        assert!(app.walk.is_none());
        insta::assert_snapshot!("broken_script", screen(&mut app, 100, 20));
        let mut missing = open("no-such-file.csp", None);
        assert!(screen(&mut missing, 100, 20).contains("no-such-file.csp"));
    });
}

#[test]
fn screens() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        app.message = None;
        insta::assert_snapshot!("initial", screen(&mut app, 120, 30));
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(1),
            ],
        );
        run(&mut app, &[Command::FireNth(1)]);
        assert!(walk(&app).moves().is_empty());
        insta::assert_snapshot!("deadlocked", screen(&mut app, 120, 30));
        run(&mut app, &[Command::Undo, Command::Help]);
        insta::assert_snapshot!("help", screen(&mut app, 120, 30));
        insta::assert_snapshot!("help_80x24", screen(&mut app, 80, 24));
        run(&mut app, &[Command::Cancel, Command::Maximise]);
        insta::assert_snapshot!("maximised_state", screen(&mut app, 80, 20));
        run(&mut app, &[Command::Maximise]);
        insta::assert_snapshot!("narrow", screen(&mut app, 60, 16));
        insta::assert_snapshot!("too_small", screen(&mut app, 40, 10));
        let mut wide = open("wide.csp", None);
        wide.message = None;
        run(&mut wide, &[Command::PageDown, Command::PageDown]);
        insta::assert_snapshot!("long_event_list", screen(&mut wide, 120, 30));
    });
}

#[test]
fn the_help_scrolls_where_it_does_not_fit() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        act(
            &mut app,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
        run(&mut app, &[Command::Help]);
        let first = screen(&mut app, 80, 24);
        // Page by page to the end: every description shows whole
        // somewhere, none cut at the edge.
        let mut pages = Vec::new();
        for _ in 0..5 {
            run(&mut app, &[Command::PageDown]);
            pages.push(screen(&mut app, 80, 24));
        }
        assert_ne!(first, pages[2]);
        let later = pages.concat();
        assert!(later.contains("walk the reduced system"), "{later}");
        assert!(
            later.contains("go to a stage of the representative"),
            "{later}"
        );
    });
}

#[test]
fn without_colour_the_screen_carries_the_same_marks() {
    with_large_stack(|| {
        let mut app = App::new(
            Source::File(PathBuf::from("tests/fixtures/tui/counter.csp")),
            Some("System".into()),
            Config::load(None, true),
        );
        app.settle();
        run(&mut app, &[Command::FireNth(1)]);
        let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
        terminal
            .draw(|frame| {
                view(&app, frame);
            })
            .unwrap();
        let buffer = terminal.backend().buffer();
        assert_eq!(common::coloured_cells(buffer), 0);
        let text = screen(&mut app, 120, 30);
        assert!(
            text.contains("* #1 step.1 -> Counter(1)  where n = 0"),
            "{text}"
        );
    });
}

#[test]
fn a_reduced_check_says_what_it_reduced_over_and_opens_a_real_counterexample() {
    with_large_stack(|| {
        let mut app = open("reduced.csp", None);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        let CheckStatus::Done(done) = &app.panes.of_type::<ChecksPane>().rows[0].status else {
            panic!("the check ended without a result")
        };
        assert_eq!(done.result.verdict, Verdict::Failed);
        // The search stops at the failure: no user inside, one inside
        // (one class, whichever user it is).
        assert_eq!(done.result.states, 2);
        assert_eq!(
            done.result.symmetry.as_ref().unwrap().type_list(),
            "User (3)"
        );
        let shown = screen(&mut app, 160, 40);
        assert!(shown.contains("2 representatives"), "{shown}");
        assert!(shown.contains("reduced over User"), "{shown}");
        // The counterexample is a path of the real system: two different
        // users enter.
        run(&mut app, &[Command::OpenCounterexample]);
        let steps = trace(&app);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(steps.iter().all(|s| s.starts_with("enter.")), "{steps:?}");
        assert_ne!(steps[0], steps[1]);
    });
}

#[test]
fn an_alphabetised_parallel_shows_its_alphabets() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("alpha.csp");
        std::fs::write(
            &path,
            "datatype D = A | B\nchannel a, b : D\nP = a?x -> P\nQ = b?x -> Q\n\
             System = P [ {| a |} || {| a, b |} ] Q\n",
        )
        .unwrap();
        let mut app = App::new(Source::File(path), Some("System".into()), Config::default());
        app.settle();
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("[ {| a |} || {| a, b |} ]"), "{shown}");
    });
}

#[test]
fn esc_reaches_a_long_evaluation_of_one_states_moves() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slow.csp");
        // Ten billion candidates to count before the first event is known.
        std::fs::write(
            &path,
            "channel c : {0..1}\n\
             P = c!(card({x | x <- {0..99999}, y <- {0..99999}, x == y}) % 2) -> P\n",
        )
        .unwrap();
        let mut app = App::new(Source::File(path), Some("P".into()), Config::default());
        std::thread::sleep(Duration::from_millis(300));
        update(&mut app, Action::Tick);
        assert!(app.busy().is_some(), "the engine is still counting");
        // The interface draws meanwhile.
        assert!(screen(&mut app, 120, 30).contains("Esc cancels"));
        update(&mut app, Action::Command(Command::Cancel));
        app.settle();
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("cancel"), "{shown}");
    });
}

#[test]
fn a_reload_keeps_the_events_a_tau_hid_or_stops_where_they_are_gone() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ls.csp");
        let text = std::fs::read_to_string("models/liststack.csp").unwrap();
        std::fs::write(&path, &text).unwrap();
        let mut app = App::new(
            Source::File(path.clone()),
            Some("System".into()),
            Config::default(),
        );
        app.settle();
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(1),
            ],
        );
        let hidden = |app: &App| walk(app).step_label(3).1.unwrap();
        assert_eq!(hidden(&app), "initNode.T0.N0.A.Null");
        // The data in another order: the moves' places change, the path
        // keeps its events.
        std::fs::write(
            &path,
            text.replace("datatype Data = A | B", "datatype Data = B | A"),
        )
        .unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(walk(&app).path.position(), 3);
        assert_eq!(hidden(&app), "initNode.T0.N0.A.Null");
        // Threads renamed: the first step's event is gone, and the reload
        // says where the path stops.
        std::fs::write(
            &path,
            text.replace("datatype ThreadID = T0 | T1", "datatype ThreadID = X0 | X1"),
        )
        .unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(walk(&app).path.position(), 0);
        assert!(
            message(&app).contains("stops at step 1"),
            "{}",
            message(&app)
        );
    });
}

#[test]
fn the_status_bar_keeps_help_and_quit_on_a_narrow_terminal() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        // 60 columns is the least the animator draws its panes in.
        for width in [120, 70, 60] {
            let shown = screen(&mut app, width, 30);
            let status = shown.lines().last().expect("a status bar");
            assert!(status.ends_with("? help · q quit"), "{width}:\n{shown}");
            assert!(
                status.starts_with(" tests/fixtures/tui/counter.csp") || status.contains('…'),
                "{status}"
            );
        }
        let wide = screen(&mut app, 120, 30);
        let status = wide.lines().last().unwrap();
        assert!(status.contains("depth 2"), "{status}");
    });
}

#[test]
fn a_narrow_terminal_keeps_the_events_columns_and_the_states_indentation() {
    with_large_stack(|| {
        let mut app = open("long_labels.csp", Some("System"));
        for width in [70, 100] {
            let shown = screen(&mut app, width, 24);
            // Every event's components start in one column, however long
            // its label: labels longer than the column are cut.
            let columns: Vec<usize> = shown
                .lines()
                .filter_map(|line| {
                    let at = line.find(" #1").or_else(|| line.find(" #2"))?;
                    Some(line[..at].chars().count())
                })
                .filter(|&at| at > usize::from(width) / 2)
                .collect();
            assert!(columns.len() >= 3, "{width}:\n{shown}");
            assert!(
                columns.iter().all(|&c| c == columns[0]),
                "{width}: components start in columns {columns:?}:\n{shown}"
            );
        }
        // A component wider than the State pane wraps under its own
        // text, not at the pane's edge.
        run(&mut app, &[Command::FireNth(1)]);
        let narrow = screen(&mut app, 70, 24);
        let state: Vec<&str> = narrow
            .lines()
            .map(|line| line.split('│').nth(3).unwrap_or(""))
            .collect();
        let first = state
            .iter()
            .position(|row| row.contains("#1 "))
            .unwrap_or_else(|| panic!("component #1 in the State pane:\n{narrow}"));
        let text_at = state[first].find("#1 ").unwrap() + 3;
        let next = state[first + 1];
        assert!(
            next.len() > text_at && next[..text_at].trim().is_empty(),
            "the row after #1 continues under its text:\n{narrow}"
        );
    });
}

/// A label longer than half a narrow Events pane is shown whole when
/// its own row has room beside the components that move; the long event
/// a τ hides is what gets clipped, at the pane's edge.
#[test]
fn long_labels_keep_the_room_their_rows_leave() {
    with_large_stack(|| {
        let mut app = open("hidden_beside_long.csp", Some("System"));
        let shown = screen(&mut app, 70, 24);
        for value in 0..3 {
            assert!(
                shown.contains(&format!("announcing.{value}  #1")),
                "{shown}"
            );
        }
        assert!(shown.contains("τ             ‹hid…"), "{shown}");
    });
}

/// A check whose name the Checks pane's list had to cut is named whole
/// in the detail below it.
#[test]
fn a_cut_check_name_is_given_whole_in_the_detail() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::Down]);
        let shown = screen(&mut app, 70, 40);
        let checks: Vec<&str> = shown
            .lines()
            .filter_map(|line| line.split('│').nth(1))
            .collect();
        assert!(
            checks.iter().any(|row| row.contains('…')),
            "the list cuts the names:\n{shown}"
        );
        // Below the list's last row and its rule: the name, wrapped.
        let rule = checks.iter().position(|row| row.starts_with('─'));
        let detail = rule.map(|r| {
            checks[r + 1..]
                .iter()
                .map(|row| row.trim())
                .collect::<Vec<_>>()
        });
        assert!(
            detail.is_some_and(|rows| rows.join(" ").starts_with("System :[deadlock free]")),
            "the detail names assertion 2 whole:\n{shown}"
        );
    });
}

/// The Checks pane keeps the chosen check in sight when it loses the
/// focus (it went back to the top of the list).
#[test]
fn the_chosen_check_stays_in_sight_without_the_focus() {
    with_large_stack(|| {
        let mut app = open("many_checks.csp", None);
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::Bottom]);
        let focused = screen(&mut app, 100, 24);
        assert!(focused.contains("12 ·"), "{focused}");
        assert!(
            !focused.contains(" 1 ·"),
            "the list is scrolled:\n{focused}"
        );
        app.focus = PaneId::EVENTS;
        let unfocused = screen(&mut app, 100, 24);
        assert!(unfocused.contains("12 ·"), "{unfocused}");
    });
}

/// The words of a screen's leftmost column of panes, run together (a
/// sentence wraps anywhere in a narrow pane).
fn left_column_words(screen: &str) -> String {
    screen
        .lines()
        .filter_map(|line| line.strip_prefix('│')?.split('│').next())
        .flat_map(str::split_whitespace)
        .collect()
}

/// A divergence found at the initial state goes round τs from there:
/// the depth says they are the divergence, not levels the search went.
#[test]
fn a_divergence_s_depth_says_its_taus_are_the_divergence() {
    with_large_stack(|| {
        let (_dir, mut app) = open_script(
            "diverges.csp",
            "channel a, b\nP = a -> b -> P\nQ = P \\ {a, b}\nassert Q :[divergence free]\n",
            None,
        );
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        let wide = screen(&mut app, 160, 40);
        let left_pane = left_column_words(&wide);
        assert!(
            left_pane.contains("depth0(countedupto") && left_pane.contains("thestatethedivergencestartsfrom,0stepsfromthestart;theτsafteritarethedivergence)"),
            "{wide}"
        );
    });
}

/// In a narrow Checks pane a verdict is its mark alone, so that every
/// assertion keeps its name (the words took the whole row).
#[test]
fn a_narrow_checks_pane_keeps_every_assertion_s_name() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("Counter(0)"));
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        let narrow = screen(&mut app, 60, 20);
        for (i, name) in ["✗ Spe", "· Sys", "· Qui"].iter().enumerate() {
            let row = format!("{} ", i + 1);
            assert!(
                narrow
                    .lines()
                    .any(|line| line.contains(&row) && line.contains(name)),
                "assertion {} lost its name:\n{narrow}",
                i + 1
            );
        }
        // With room, the verdict is in words, and the failure's counts
        // say they are counted up to where its counterexample ends.
        let wide = screen(&mut app, 160, 40);
        assert!(wide.contains("✗ Failed"), "{wide}");
        let left_pane = left_column_words(&wide);
        assert!(
            left_pane.contains("depth2(countedupto") && left_pane.contains("2stepsfromthestart)"),
            "{wide}"
        );
        // A long verdict that does not fit is its mark alone; the others
        // keep their words.
        app.budget.max_states = Some(1);
        run(&mut app, &[Command::Down, Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        let middle = screen(&mut app, 130, 40);
        assert!(middle.contains(" 1 ✗ Failed Spec [T= Quiet"), "{middle}");
        assert!(middle.contains(" 3 ?        Quiet"), "{middle}");
        assert!(middle.contains("Inconclusive (state budget)"), "{middle}");
    });
}

/// A complaint answers the key before: the next key that acts makes it
/// stale, while what that key says is shown.
#[test]
fn a_complaint_does_not_outlive_the_next_key() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        run(&mut app, &[Command::FireNth(5)]);
        assert!(message(&app).contains("no event 5"), "{}", message(&app));
        run(&mut app, &[Command::Down]);
        assert_eq!(message(&app), "");
        // The next key's own complaint is shown.
        run(&mut app, &[Command::FireNth(5), Command::FireNth(7)]);
        assert!(message(&app).contains("no event 7"), "{}", message(&app));
    });
}

/// The animator on a model of `models/`, its default process.
fn open_model(name: &str) -> App {
    let source = Source::File(PathBuf::from("models").join(name));
    let mut app = App::new(source, None, Config::default());
    app.settle();
    app
}

/// The ListStack model, written where a test may edit it.
fn open_liststack() -> (tempfile::TempDir, PathBuf, App) {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/liststack.csp"))
            .unwrap();
    let (dir, app) = open_script("liststack.csp", &text, None);
    let path = dir.path().join("liststack.csp");
    (dir, path, app)
}

/// The marked state's components, as `=` compares them with the state
/// shown.
fn compared_mark(app: &mut App) -> Vec<String> {
    app.panes.of_type_mut::<SymmetryPane>().compared = None;
    run(app, &[Command::Compare]);
    let compared = app.panes.of_type::<SymmetryPane>().compared.as_ref();
    compared.expect("= compared").marked.clone()
}

#[test]
fn the_mark_is_kept_through_a_reload_and_a_session_and_dropped_where_its_path_is_gone() {
    with_large_stack(|| {
        let (dir, script, mut app) = open_liststack();
        // T0 takes the lock and starts to push A: that state is marked.
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(1),
            ],
        );
        let labelled = walk(&app).step_label(3).1.unwrap();
        assert_eq!(labelled, "initNode.T0.N0.A.Null");
        run(&mut app, &[Command::Mark]);
        run(&mut app, &[Command::Undo]);
        let marked = compared_mark(&mut app);
        assert!(
            marked.iter().any(|c| c == "Node(N0, A, Null)"),
            "{marked:?}"
        );
        // Reloaded, the mark is found again by its path.
        run(&mut app, &[Command::Reload]);
        assert_eq!(message(&app), "reloaded");
        assert_eq!(walk(&app).mark.as_ref().unwrap().steps.len(), 3);
        assert_eq!(compared_mark(&mut app), marked);
        // Saved in the session, and found again when it is reopened.
        let session = dir.path().join("marked.ron");
        run(&mut app, &[Command::SaveSession]);
        act(&mut app, Action::Prompt(PromptKey::DeleteToStart));
        type_text(&mut app, session.to_str().unwrap());
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        let text = std::fs::read_to_string(&session).unwrap();
        assert!(text.contains("mark: Some("), "{text}");
        let saved = Session::read(&session).unwrap();
        assert_eq!(saved.mark.as_ref().unwrap().steps.len(), 3);
        let mut back = App::from_session(&saved, session.clone(), None, Config::default()).unwrap();
        back.settle();
        assert_eq!(position(&back), 2);
        assert_eq!(compared_mark(&mut back), marked);
        // A session saved before marks were kept has none.
        let old = text.replace(
            &text[text.find("mark:").unwrap()..text.rfind(')').unwrap()],
            "",
        );
        std::fs::write(&session, old).unwrap();
        assert_eq!(Session::read(&session).unwrap().mark, None);
        // The datum the marked path pushes is gone: the walk (which
        // stops before it) stays, the mark is dropped, saying why.
        let text = std::fs::read_to_string(&script).unwrap();
        std::fs::write(
            &script,
            text.replace("datatype Data = A | B", "datatype Data = B | C"),
        )
        .unwrap();
        run(&mut app, &[Command::Reload]);
        assert_eq!(position(&app), 2);
        assert!(walk(&app).mark.is_none());
        assert!(
            message(&app).contains(
                "the mark was dropped: the path to the marked state no longer fits (the marked \
                 path stops at step 3 of 3: `τ ‹initNode.T0.N0.A.Null›` is not possible here)"
            ),
            "{}",
            message(&app)
        );
        let shown = screen(&mut app, 120, 30);
        assert!(!shown.contains("a state is marked"), "{shown}");
    });
}

#[test]
fn after_opens_the_animator_at_the_state_a_trace_leads_to() {
    with_large_stack(|| {
        let start = |after: &str| {
            let mut app = symcsp::tui::app::App::start(
                Source::File(PathBuf::from("models/liststack.csp")),
                symcsp::tui::app::Start {
                    after: Some(after.to_string()),
                    ..Default::default()
                },
                Config::default(),
            );
            app.settle();
            app
        };
        let app = start("push.T0.A, push.T1.B");
        let visible: Vec<String> = trace(&app).into_iter().filter(|e| e != "τ").collect();
        assert_eq!(visible, ["push.T0.A", "push.T1.B"]);
        assert_eq!(position(&app), walk(&app).path.len());
        let components = &walk(&app).shown.as_ref().unwrap().components;
        assert!(
            components.iter().any(|c| c == "Node(N1, B, N0)"),
            "{components:?}"
        );
        assert_eq!(message(&app), "followed the trace: 2 events and 9 τ steps");
        // A trace the process cannot follow: the animator opens at the
        // last state reached, naming the event that cannot happen and
        // those that could.
        let mut app = start("push.T0.A, pop.T1.B");
        let visible: Vec<String> = trace(&app).into_iter().filter(|e| e != "τ").collect();
        assert_eq!(visible, ["push.T0.A"]);
        assert!(message(&app).starts_with(
            "after push.T0.A, System cannot perform pop.T1.B; it could perform push.T0.A, \
             push.T0.B, push.T1.A, push.T1.B, pop.T0.A, pop.T1.A"
        ));
        let Some(Overlay::Problem(problem)) = &app.overlay else {
            panic!("the diagnostic is shown: {:?}", app.overlay);
        };
        assert!(problem.contains("<push.T0.A, pop.T1.B>"), "{problem}");
        // Esc closes it; the animator is there to use.
        run(&mut app, &[Command::Cancel, Command::FireNth(1)]);
        assert!(app.overlay.is_none());
        // Not a trace at all: said, at the initial state.
        let app = start("push.T0.A,, pop");
        assert_eq!(position(&app), 0);
        assert!(
            matches!(&app.overlay, Some(Overlay::Problem(p)) if p.contains("<after>:1:")),
            "{:?}",
            app.overlay
        );
    });
}

#[test]
fn the_trace_prompt_follows_a_trace_from_the_initial_state() {
    with_large_stack(|| {
        let mut app = open_model("liststack.csp");
        run(&mut app, &[Command::FireNth(1), Command::Mark]);
        run(&mut app, &[Command::FollowTrace]);
        let Some(Overlay::Prompt(prompt)) = &app.overlay else {
            panic!("the trace prompt opens");
        };
        assert_eq!(prompt.purpose, Purpose::Trace);
        type_text(&mut app, "push.T1.A");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        let visible: Vec<String> = trace(&app).into_iter().filter(|e| e != "τ").collect();
        assert_eq!(visible, ["push.T1.A"]);
        assert!(
            message(&app).starts_with("followed the trace: 1 event"),
            "{}",
            message(&app)
        );
        // The walk it replaced is kept, and so is the mark.
        assert!(app.earlier.is_some());
        assert_eq!(walk(&app).mark.as_ref().unwrap().steps.len(), 1);
        // The prompt opens empty; the events walked are one Up away, to
        // edit (issue 61).
        run(&mut app, &[Command::FollowTrace]);
        let Some(Overlay::Prompt(prompt)) = &app.overlay else {
            panic!("the trace prompt opens");
        };
        assert_eq!(prompt.text(), "");
        act(&mut app, Action::Prompt(PromptKey::Older));
        let Some(Overlay::Prompt(prompt)) = &app.overlay else {
            panic!("the trace prompt stays open");
        };
        assert_eq!(prompt.text(), "push.T1.A");
        act(&mut app, Action::Prompt(PromptKey::End));
        type_text(&mut app, ", pop.T0.B");
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        // It would drop the earlier walk: asked first.
        assert!(matches!(app.overlay, Some(Overlay::ConfirmDrop(_))));
        act(&mut app, Action::Prompt(PromptKey::Confirm));
        let visible: Vec<String> = trace(&app).into_iter().filter(|e| e != "τ").collect();
        assert_eq!(visible, ["push.T1.A"]);
        assert!(
            message(&app).contains("cannot perform pop.T0.B; it could perform"),
            "{}",
            message(&app)
        );
        // The key is in the help.
        run(&mut app, &[Command::Cancel, Command::Help]);
        let help = screen(&mut app, 120, 60);
        assert!(help.contains(">  type a trace"), "{help}");
    });
}

/// Issue 61: at 100 columns a long trace typed into the `>` prompt
/// scrolls with the cursor, so the end of what is typed is on the screen.
#[test]
fn a_long_trace_typed_at_100_columns_shows_its_end() {
    with_large_stack(|| {
        let mut app = open_model("liststack.csp");
        run(&mut app, &[Command::FollowTrace]);
        let typed = "push.T0.A, push.T1.B, pop.T0.B, push.T1.A, pop.T1.A, push.T0.B, pop.T0.END";
        type_text(&mut app, typed);
        let shown = screen(&mut app, 100, 30);
        let line = shown
            .lines()
            .find(|l| l.contains("Follow the trace"))
            .expect("the prompt's line");
        assert!(line.contains("pop.T0.END▏"), "{shown}");
        assert!(line.contains('…'), "the start is cut: {line}");
    });
}

#[test]
fn moves_that_read_the_same_show_the_datum_that_tells_them_apart() {
    with_large_stack(|| {
        let mut app = open_model("liststack.csp");
        run(&mut app, &[Command::FireNth(1)]);
        for (width, height) in [(120, 30), (80, 24)] {
            let shown = screen(&mut app, width, height);
            let events: Vec<&str> = shown.lines().filter(|l| l.contains("τ  ‹get")).collect();
            assert_eq!(events.len(), 3, "{shown}");
            assert!(events[0].contains("!A!"), "{shown}");
            assert!(events[1].contains("!B!"), "{shown}");
            assert!(events[2].contains("popE"), "{shown}");
        }
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("→ #1 …?n!A!Null"), "{shown}");
    });
}

#[test]
fn numbers_fire_nothing_while_the_events_pane_is_hidden() {
    with_large_stack(|| {
        let mut app = open_model("liststack.csp");
        act(
            &mut app,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
        run(&mut app, &[Command::ToggleSymmetry]);
        let shown = screen(&mut app, 80, 24);
        assert!(!shown.contains("Events ("), "{shown}");
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(position(&app), 0);
        assert_eq!(
            message(&app),
            "1: no event fired, the symmetry view hides the Events pane (S closes it)"
        );
        run(&mut app, &[Command::Activate]);
        assert_eq!(position(&app), 0);
        assert!(
            message(&app).contains("no event fired"),
            "{}",
            message(&app)
        );
        let shown = screen(&mut app, 80, 24);
        assert!(shown.contains("! Enter: no event fired"), "{shown}");
        // Undo and random steps still work unseen: they name no event.
        run(&mut app, &[Command::RandomStep]);
        assert_eq!(position(&app), 1);
        // Side by side (100 columns and more), the numbers fire.
        act(
            &mut app,
            Action::Resize {
                width: 120,
                height: 30,
            },
        );
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(position(&app), 2);
        // A maximised pane hides it too.
        run(&mut app, &[Command::ToggleSymmetry]);
        app.focus = PaneId::STATE;
        run(&mut app, &[Command::Maximise, Command::FireNth(1)]);
        assert_eq!(position(&app), 2);
        assert_eq!(
            message(&app),
            "1: no event fired, the Events pane is hidden (z shows it)"
        );
    });
}

/// A pane of one's own: a file implementing `Pane`, and one line adding
/// it to the registry. It is drawn where it asks to be, Tab reaches it,
/// its keys move its own list, and the help names what Enter does in it.
mod a_pane_of_ones_own {
    use super::*;
    use ratatui::Frame;
    use ratatui::layout::Rect;
    use ratatui::widgets::Paragraph;
    use symcsp::tui::app::Start;
    use symcsp::tui::layout::{Column, Placement, Shown};
    use symcsp::tui::panes::{Context, Effect, Hint, List, Pane, Panes};

    /// The walk's depth, in words; Enter says it.
    #[derive(Default)]
    struct Depth {
        list: List,
    }

    impl Pane for Depth {
        fn id(&self) -> PaneId {
            PaneId("depth")
        }
        fn name(&self) -> &'static str {
            "Depth"
        }
        fn placement(&self) -> Placement {
            Placement {
                column: Column::Middle,
                share: 25,
                shown: Shown::Plain,
            }
        }
        fn activate_help(&self) -> &'static str {
            "say how deep the walk is"
        }
        fn hints(&self, _cx: &Context) -> Vec<Hint> {
            vec![Hint::Key(Command::Activate, "say the depth")]
        }
        fn update(&mut self, command: Command, cx: &Context) -> Effect {
            if self.list.navigate(command, self.rows(cx), cx.facts.page) {
                return Effect::None;
            }
            match (command, cx.walk) {
                (Command::Activate, Some(walk)) => {
                    Effect::Say(format!("the walk is {} deep", walk.path.position()))
                }
                _ => Effect::None,
            }
        }
        fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
            let depth = cx.walk.map_or(0, |w| w.path.position());
            frame.render_widget(Paragraph::new(format!("depth {depth}")), area);
            0
        }
        fn rows(&self, _cx: &Context) -> usize {
            1
        }
        fn list_mut(&mut self) -> &mut List {
            &mut self.list
        }
    }

    #[test]
    fn keys_for_a_pane_the_animator_lacks_are_named_at_start() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("keymap.ron"),
            r#"(panes: {notes: {"x": quit}, events: {"Q": help}})"#,
        )
        .unwrap();
        let config = Config::load(Some(dir.path()), false);
        let source = Source::File(PathBuf::from("tests/fixtures/tui/counter.csp"));
        let mut app = App::new(source, None, config);
        app.settle();
        let said = app.message.as_ref().expect("a message").text.clone();
        assert!(
            said.starts_with("key map: no pane is called `notes`"),
            "{said}"
        );
        // The pane the animator has keeps its keys.
        let q = KeyEvent::from(KeyCode::Char('Q'));
        assert_eq!(
            app.config.keymap.command(PaneId::EVENTS, &q),
            Some(Command::Help)
        );
    }

    #[test]
    fn is_added_through_the_registry_and_drawn() {
        let source = Source::File(PathBuf::from("tests/fixtures/tui/counter.csp"));
        let start = Start {
            process: Some("System".into()),
            panes: Panes::standard()
                .with(Box::new(Depth::default()))
                .expect("no other pane is called `depth`"),
            ..Start::default()
        };
        let mut app = App::start(source, start, Config::default());
        app.settle();
        run(&mut app, &[Command::FireNth(1)]);
        let screen = common::screen(&mut app, 100, 30);
        assert!(screen.contains("Depth"), "{screen}");
        assert!(screen.contains("depth 1"), "{screen}");
        // Below the State pane, in the middle column.
        let row_of = |needle: &str| screen.lines().position(|l| l.contains(needle)).unwrap();
        assert!(row_of("depth 1") > row_of("State"), "{screen}");
        // Last in Tab order: Tab from the Checks pane reaches it.
        app.focus = PaneId::CHECKS;
        run(&mut app, &[Command::NextPane]);
        assert_eq!(app.focus, PaneId("depth"));
        run(&mut app, &[Command::Activate]);
        assert_eq!(app.message.as_ref().unwrap().text, "the walk is 1 deep");
        let help = app.help_lines();
        let text: Vec<String> = help.iter().map(|l| l.to_string()).collect();
        assert!(
            text.iter().any(|l| l.contains("say how deep the walk is")),
            "{text:?}"
        );
        // An id is one pane's.
        let twice = Panes::standard()
            .with(Box::new(Depth::default()))
            .and_then(|panes| panes.with(Box::new(Depth::default())));
        assert_eq!(
            twice.err().as_deref(),
            Some("a pane is already called `depth`")
        );
        let screen = common::screen(&mut app, 140, 30);
        assert!(screen.contains("▸Depth"), "{screen}");
        assert!(screen.contains("Enter say the depth"), "{screen}");
    }
}

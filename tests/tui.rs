//! The animator without a terminal: `update` for every action, and the
//! screens it draws (TestBackend snapshots) in typical and edge states.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use symcsp::builtin::LISTSTACK;
use symcsp::check::Verdict;
use symcsp::stack::with_large_stack;
use symcsp::tui::app::{Action, App, CheckStatus, Overlay, PromptKey, Purpose, update};
use symcsp::tui::config::{Command, Config, Pane};
use symcsp::tui::model::Source;
use symcsp::tui::view::view;

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
    app
}

fn run(app: &mut App, commands: &[Command]) {
    for &c in commands {
        update(app, Action::Command(c));
    }
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        update(app, Action::Prompt(PromptKey::Char(c)));
    }
}

fn labels(app: &App) -> Vec<String> {
    app.enabled.iter().map(|e| e.label.clone()).collect()
}

fn trace(app: &App) -> Vec<String> {
    app.trace.steps[..app.trace.position]
        .iter()
        .map(|s| s.label.clone())
        .collect()
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| view(app, frame)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..height {
        let mut line = String::new();
        for x in 0..width {
            line.push_str(buffer[(x, y)].symbol());
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

fn wait_for_checks(app: &mut App) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while app.check_running() {
        assert!(Instant::now() < deadline, "the check did not finish");
        std::thread::sleep(Duration::from_millis(5));
        update(app, Action::Tick);
    }
}

#[test]
fn opens_on_the_first_assertions_process_with_its_events() {
    with_large_stack(|| {
        let app = open("counter.csp", None);
        assert_eq!(app.process, "Quiet");
        assert_eq!(app.components.len(), 2);
        assert_eq!(labels(&app), ["up"]);
        let up = &app.enabled[0];
        assert_eq!(up.slots().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(app.trace.position, 0);
        assert_eq!(app.checks.len(), 3);
        assert_eq!(app.seen.len(), 1);
    });
}

#[test]
fn firing_undoing_and_redoing_walk_the_trace() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(trace(&app), ["up"]);
        assert_eq!(app.trace.changed(), [0, 1]);
        assert_eq!(labels(&app), ["step.1"]);
        run(&mut app, &[Command::Activate]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        assert_eq!(app.trace.changed(), [0]);
        assert_eq!(labels(&app), ["up", "down"]);
        run(&mut app, &[Command::Undo, Command::Undo]);
        assert_eq!(app.trace.position, 0);
        run(&mut app, &[Command::Undo]);
        assert!(app.message.as_ref().unwrap().error);
        run(&mut app, &[Command::Redo, Command::Redo]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        run(&mut app, &[Command::Redo]);
        assert_eq!(app.message.as_ref().unwrap().text, "nothing to redo");
        // Going back and taking another move forgets the undone steps;
        // taking the same move again keeps them.
        run(&mut app, &[Command::Initial]);
        assert_eq!(app.trace.position, 0);
        run(&mut app, &[Command::FireNth(1)]);
        assert_eq!(app.trace.steps.len(), 2, "re-taking a step redoes it");
        run(&mut app, &[Command::FireNth(1), Command::FireNth(2)]);
        assert_eq!(trace(&app), ["up", "step.1", "down"]);
        run(&mut app, &[Command::Undo, Command::FireNth(1)]);
        assert_eq!(trace(&app), ["up", "step.1", "up"]);
        assert_eq!(app.trace.steps.len(), 3);
        run(&mut app, &[Command::FireNth(9)]);
        assert!(app.message.as_ref().unwrap().text.contains("no event 9"));
        assert_eq!(app.seen.len(), 5);
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
        app.focus = Pane::Trace;
        run(&mut app, &[Command::Up, Command::Up, Command::Activate]);
        assert_eq!(app.trace.position, 1);
        assert_eq!(app.trace.steps.len(), 3);
        run(&mut app, &[Command::Bottom, Command::Activate]);
        assert_eq!(app.trace.position, 3);
    });
}

#[test]
fn random_steps_are_taken_until_nothing_is_possible() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        run(&mut app, &[Command::RandomStep]);
        assert_eq!(trace(&app), ["up"]);
        run(&mut app, &[Command::RandomRun]);
        assert_eq!(
            app.overlay,
            Some(Overlay::Prompt {
                purpose: Purpose::RandomRun,
                text: "100".into()
            })
        );
        update(&mut app, Action::Prompt(PromptKey::Backspace));
        update(&mut app, Action::Prompt(PromptKey::Backspace));
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        // "1": one more step.
        assert_eq!(trace(&app), ["up", "step.1"]);
        run(&mut app, &[Command::RandomRun]);
        type_text(&mut app, "000");
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        // The user stops for good sooner or later: a deadlock.
        assert!(app.enabled.is_empty());
        let message = &app.message.as_ref().unwrap().text;
        assert!(message.contains("then no event was possible"), "{message}");
        run(&mut app, &[Command::RandomStep]);
        assert!(app.message.as_ref().unwrap().error);
        run(&mut app, &[Command::RandomRun]);
        type_text(&mut app, "x");
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert!(app.message.as_ref().unwrap().text.contains("not a number"));
    });
}

#[test]
fn the_filter_narrows_the_events_and_esc_clears_it() {
    with_large_stack(|| {
        let mut app = open("wide.csp", None);
        assert_eq!(app.enabled.len(), 500);
        run(&mut app, &[Command::Filter]);
        type_text(&mut app, "e.49");
        // e.49 and e.490 ... e.499
        assert_eq!(app.visible_events().len(), 11);
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.filter, "e.49");
        run(&mut app, &[Command::FireNth(2)]);
        assert_eq!(trace(&app), ["e.490"]);
        run(&mut app, &[Command::Cancel]);
        assert!(app.filter.is_empty());
        assert_eq!(app.visible_events().len(), 500);
    });
}

#[test]
fn any_process_expression_can_be_animated_and_errors_keep_the_old_one() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        run(&mut app, &[Command::TypeProcess]);
        for _ in 0.."Quiet".len() {
            update(&mut app, Action::Prompt(PromptKey::Backspace));
        }
        type_text(&mut app, "Counter(1) ||| User");
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.process, "Counter(1) ||| User");
        assert_eq!(labels(&app), ["up", "up", "down"]);
        run(&mut app, &[Command::TypeProcess]);
        type_text(&mut app, " [] Nope");
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.process, "Counter(1) ||| User");
        let Some(Overlay::Problem(problem)) = &app.overlay else {
            panic!("expected a problem, got {:?}", app.overlay)
        };
        assert!(problem.contains("Nope"), "{problem}");
        assert!(problem.contains("<process>:1:"), "{problem}");
        run(&mut app, &[Command::Cancel]);
        assert_eq!(app.overlay, None);
    });
}

#[test]
fn the_script_pane_animates_processes_and_asks_for_arguments() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        app.focus = Pane::Script;
        let names: Vec<String> = app.script_items.iter().map(|i| format!("{i:?}")).collect();
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
        let system = app
            .script_items
            .iter()
            .position(|i| format!("{i:?}") == "Process(\"System\")")
            .unwrap();
        run(&mut app, &[Command::Top]);
        for _ in 0..system {
            run(&mut app, &[Command::Down]);
        }
        run(&mut app, &[Command::Activate]);
        assert_eq!(app.process, "System");
        let counter = app
            .script_items
            .iter()
            .position(|i| format!("{i:?}").contains("\"Counter\""))
            .unwrap();
        run(&mut app, &[Command::Top]);
        for _ in 0..counter {
            run(&mut app, &[Command::Down]);
        }
        run(&mut app, &[Command::Activate]);
        assert_eq!(
            app.overlay,
            Some(Overlay::Prompt {
                purpose: Purpose::Process,
                text: "Counter(".into()
            })
        );
        type_text(&mut app, "2)");
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert_eq!(app.process, "Counter(2)");
        assert_eq!(labels(&app), ["down"]);
    });
}

#[test]
fn panes_are_switched_maximised_and_resized() {
    with_large_stack(|| {
        let mut app = open("counter.csp", None);
        assert_eq!(app.focus, Pane::Events);
        run(&mut app, &[Command::NextPane]);
        assert_eq!(app.focus, Pane::Trace);
        run(&mut app, &[Command::NextPane, Command::NextPane]);
        assert_eq!(app.focus, Pane::Script);
        run(&mut app, &[Command::PrevPane]);
        assert_eq!(app.focus, Pane::Checks);
        run(&mut app, &[Command::PaneRight, Command::PaneRight]);
        assert_eq!(app.focus, Pane::Events);
        run(&mut app, &[Command::PaneLeft]);
        assert_eq!(app.focus, Pane::State);
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
            app.trace.position, 0,
            "keys other than Esc do nothing under help"
        );
        run(&mut app, &[Command::Help]);
        assert_eq!(app.overlay, None);
    });
}

#[test]
fn a_failed_checks_counterexample_is_loaded_and_stepped_through() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("Counter(0)"));
        app.focus = Pane::Checks;
        run(&mut app, &[Command::RunCheck]);
        assert!(app.check_running() || matches!(app.checks[0].status, CheckStatus::Running(_)));
        wait_for_checks(&mut app);
        let CheckStatus::Done(done) = &app.checks[0].status else {
            panic!("the check ended without a result")
        };
        assert_eq!(done.result.verdict, Verdict::Failed);
        assert!(app.message.as_ref().unwrap().text.contains("Failed"));
        run(&mut app, &[Command::Activate]);
        assert_eq!(app.process, "Quiet");
        assert_eq!(trace(&app), ["up", "τ", "up"]);
        assert_eq!(app.focus, Pane::Trace);
        let cx = app.counterexample.clone().unwrap();
        assert_eq!(cx.spec_at(0), Some(&["Spec".to_string()][..]));
        assert_eq!(cx.spec_at(2).unwrap(), ["down -> Spec"]);
        assert!(cx.verdict.contains("up, is not allowed"), "{}", cx.verdict);
        let shown = screen(&app, 120, 30);
        assert!(
            shown.contains("Specification before the last step:"),
            "{shown}"
        );
        assert!(shown.contains("✗ assertion 1"), "{shown}");
        // The Trace pane names the event the τ hides.
        assert!(shown.contains("   2 τ ‹step.1›"), "{shown}");
        // Stepping back shows the specification beside the earlier state.
        run(&mut app, &[Command::Undo]);
        let shown = screen(&app, 120, 30);
        assert!(shown.contains("down -> Spec"), "{shown}");
        assert!(!shown.contains("✗ assertion 1"), "{shown}");
        // Leaving the counterexample's path drops the specification.
        run(
            &mut app,
            &[Command::Initial, Command::FireNth(1), Command::Redo],
        );
        assert!(app.counterexample.as_ref().unwrap().spec_at(2).is_some());
        // The deadlock check's counterexample ends where nothing is possible.
        run(&mut app, &[Command::Down]);
        app.focus = Pane::Checks;
        run(&mut app, &[Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(app.process, "System");
        assert_eq!(trace(&app), ["up", "step.1", "up", "step.2"]);
        assert!(app.enabled.is_empty());
        // A passing check has nothing to open.
        app.focus = Pane::Checks;
        run(&mut app, &[Command::Down, Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert!(
            app.message
                .as_ref()
                .unwrap()
                .text
                .contains("no counterexample")
        );
    });
}

#[test]
fn a_divergence_is_loaded_with_its_tau_loop_marked() {
    with_large_stack(|| {
        let mut app = open("spin.csp", None);
        app.focus = Pane::Checks;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::OpenCounterexample]);
        assert_eq!(trace(&app), ["start", "τ", "τ", "τ"]);
        let cx = app.counterexample.as_ref().unwrap();
        assert_eq!(
            cx.verdict,
            "divergence: the τ-loop of steps 2–4 can repeat for ever"
        );
        assert!(!cx.in_loop(1) && cx.in_loop(2) && cx.in_loop(4));
        let shown = screen(&app, 120, 30);
        assert!(shown.contains("   1 start  "), "{shown}");
        assert!(shown.contains("   2 τ ‹pass.0›  ↻ loop"), "{shown}");
        assert!(shown.contains("   4 τ ‹pass.2›  ↻ loop"), "{shown}");
    });
}

#[test]
fn quitting_asks_first_while_a_check_runs_and_esc_cancels_it() {
    with_large_stack(|| {
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        run(&mut app, &[Command::Quit]);
        assert!(app.quit, "nothing running: quit at once");
        let mut app = App::new(Source::Builtin(LISTSTACK), None, Config::default());
        // The symmetry-reduced assertion runs as a plain check (a note
        // says so), long enough to be cancelled.
        app.selected[4] = 0;
        run(&mut app, &[Command::RunCheck]);
        run(&mut app, &[Command::Quit]);
        assert_eq!(app.overlay, Some(Overlay::ConfirmQuit));
        let no = app.key(KeyEvent::from(KeyCode::Char('n'))).unwrap();
        update(&mut app, no);
        assert!(!app.quit);
        assert_eq!(app.overlay, None);
        run(&mut app, &[Command::Cancel]);
        wait_for_checks(&mut app);
        run(&mut app, &[Command::RunCheck, Command::Quit]);
        let yes = app.key(KeyEvent::from(KeyCode::Char('y'))).unwrap();
        update(&mut app, yes);
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
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(app.key(ctrl_c), Some(Action::Command(Command::Quit)));
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
        for _ in 0.."symcsp-session.ron".len() {
            update(&mut app, Action::Prompt(PromptKey::Backspace));
        }
        type_text(&mut app, path.to_str().unwrap());
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        assert!(app.message.as_ref().unwrap().text.contains("session saved"));
        let session = symcsp::tui::session::Session::read(&path).unwrap();
        assert_eq!(session.position, 2);
        assert_eq!(session.steps.len(), 3);
        let mut back =
            App::from_session(&session, path.clone(), Config::default()).expect("reopens");
        assert_eq!(back.process, "System");
        assert_eq!(trace(&back), ["up", "step.1"]);
        run(&mut back, &[Command::Redo]);
        assert_eq!(trace(&back), ["up", "step.1", "down"]);
        // A trace that no longer fits the model replays as far as it can.
        let mut changed = session.clone();
        changed.steps[1].event = "step.2".into();
        let partial = App::from_session(&changed, path, Config::default()).unwrap();
        assert_eq!(trace(&partial), ["up"]);
        assert!(
            partial
                .message
                .as_ref()
                .unwrap()
                .text
                .contains("stops at step 2")
        );
    });
}

#[test]
fn reloading_keeps_the_process_and_the_trace() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.csp");
        std::fs::copy(fixture("counter.csp"), &path).unwrap();
        let mut app = App::new(
            Source::File(path.clone()),
            Some("System".into()),
            Config::default(),
        );
        run(&mut app, &[Command::FireNth(1), Command::FireNth(1)]);
        run(&mut app, &[Command::Reload]);
        assert_eq!(trace(&app), ["up", "step.1"]);
        std::fs::write(&path, "channel a\nP = a -> \n").unwrap();
        run(&mut app, &[Command::Reload]);
        let problem = app.problem.clone().unwrap();
        assert!(problem.contains("expected an expression"), "{problem}");
        assert!(screen(&app, 100, 24).contains("c.csp:2:9"));
    });
}

#[test]
fn clicks_select_and_the_wheel_scrolls() {
    with_large_stack(|| {
        let mut app = open("wide.csp", None);
        update(
            &mut app,
            Action::Resize {
                width: 120,
                height: 40,
            },
        );
        let areas = symcsp::tui::view::areas(&app, app.size);
        let (_, events) = areas.iter().find(|(p, _)| *p == Pane::Events).unwrap();
        let (_, trace_area) = areas.iter().find(|(p, _)| *p == Pane::Trace).unwrap();
        update(
            &mut app,
            Action::Click {
                column: trace_area.x + 3,
                row: trace_area.y + 1,
            },
        );
        assert_eq!(app.focus, Pane::Trace);
        update(
            &mut app,
            Action::Click {
                column: events.x + 3,
                row: events.y + 4,
            },
        );
        assert_eq!(app.focus, Pane::Events);
        assert_eq!(app.selected[2], 3);
        update(
            &mut app,
            Action::Scroll {
                column: events.x + 3,
                row: events.y + 4,
                down: true,
            },
        );
        assert_eq!(app.selected[2], 6);
        run(&mut app, &[Command::Activate]);
        assert_eq!(trace(&app), ["e.6"]);
    });
}

#[test]
fn a_script_that_does_not_load_shows_its_diagnostics() {
    with_large_stack(|| {
        let app = open("broken.csp", None);
        assert!(app.listing.is_none());
        insta::assert_snapshot!("broken_script", screen(&app, 100, 20));
        let missing = open("no-such-file.csp", None);
        assert!(screen(&missing, 100, 20).contains("no-such-file.csp"));
    });
}

#[test]
fn screens() {
    with_large_stack(|| {
        let mut app = open("counter.csp", Some("System"));
        insta::assert_snapshot!("initial", screen(&app, 120, 30));
        run(
            &mut app,
            &[
                Command::FireNth(1),
                Command::FireNth(1),
                Command::FireNth(1),
            ],
        );
        run(&mut app, &[Command::FireNth(1)]);
        assert!(app.enabled.is_empty());
        insta::assert_snapshot!("deadlocked", screen(&app, 120, 30));
        run(&mut app, &[Command::Undo, Command::Help]);
        insta::assert_snapshot!("help", screen(&app, 120, 30));
        run(&mut app, &[Command::Cancel, Command::Maximise]);
        insta::assert_snapshot!("maximised_state", screen(&app, 80, 20));
        run(&mut app, &[Command::Maximise]);
        insta::assert_snapshot!("narrow", screen(&app, 60, 16));
        insta::assert_snapshot!("too_small", screen(&app, 40, 10));
        let mut wide = open("wide.csp", None);
        run(&mut wide, &[Command::PageDown, Command::PageDown]);
        insta::assert_snapshot!("long_event_list", screen(&wide, 120, 30));
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
        run(&mut app, &[Command::FireNth(1)]);
        let mut terminal = Terminal::new(TestBackend::new(120, 30)).unwrap();
        terminal.draw(|frame| view(&app, frame)).unwrap();
        let buffer = terminal.backend().buffer();
        let coloured = buffer
            .content()
            .iter()
            .filter(|c| {
                c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset
            })
            .count();
        assert_eq!(coloured, 0);
        let text = screen(&app, 120, 30);
        assert!(text.contains("* #1 step.(0+1) -> Counter(0+1)"), "{text}");
    });
}

#[test]
fn a_reduced_check_says_what_it_reduced_over_and_opens_a_real_counterexample() {
    with_large_stack(|| {
        let mut app = open("reduced.csp", None);
        app.focus = Pane::Checks;
        run(&mut app, &[Command::RunCheck]);
        wait_for_checks(&mut app);
        let CheckStatus::Done(done) = &app.checks[0].status else {
            panic!("the check ended without a result")
        };
        assert_eq!(done.result.verdict, Verdict::Failed);
        // The search stops at the failure: no user inside, one inside
        // (one class, whichever user it is).
        assert_eq!(done.result.states, 2);
        let shown = screen(&app, 160, 40);
        assert!(shown.contains("2 representatives"), "{shown}");
        assert!(shown.contains("reduced over User (3)"), "{shown}");
        // The counterexample is a path of the real system: two different
        // users enter.
        run(&mut app, &[Command::OpenCounterexample]);
        let steps = trace(&app);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(steps.iter().all(|s| s.starts_with("enter.")), "{steps:?}");
        assert_ne!(steps[0], steps[1]);
    });
}

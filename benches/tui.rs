//! How the animator feels: drawing a state with 500 events, stepping
//! through a 10 000-step trace (dining philosophers, N = 7), handling
//! input while a check runs on the other core and while a 5 000 000-step
//! random run goes on, and the symmetry view of a 50-component state
//! (ListStack with 40 nodes and 8 threads): opening it and stepping
//! through the algorithm's partitions. Screens are drawn into ratatui's
//! TestBackend (the work of a real redraw minus the terminal's own).
//! Reports, never fails.
//!
//! `cargo bench --bench tui`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use symcsp::tui::app::{Action, App, update};
use symcsp::tui::config::{Command, Config};
use symcsp::tui::model::Source;
use symcsp::tui::panes::checks::ChecksPane;
use symcsp::tui::prompt::PromptKey;
use symcsp::tui::view::view;

const SIZE: (u16, u16) = (160, 50);

fn file(path: &str) -> Source {
    Source::File(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path))
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &mut App) -> Duration {
    let start = Instant::now();
    let mut layout = None;
    terminal
        .draw(|frame| layout = Some(view(app, frame)))
        .expect("draws");
    app.layout = layout.unwrap_or_default();
    start.elapsed()
}

/// A key as the terminal loop handles it: the update, the engine's
/// reply, the redraw.
fn key(terminal: &mut Terminal<TestBackend>, app: &mut App, command: Command) -> Duration {
    let start = Instant::now();
    update(app, Action::Command(command));
    app.settle();
    start.elapsed() + draw(terminal, app)
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let median = samples[samples.len() / 2];
    let p99 = samples[samples.len() * 99 / 100];
    let max = samples[samples.len() - 1];
    format!(
        "median {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} samples)",
        millis(median),
        millis(p99),
        millis(max),
        samples.len()
    )
}

fn open(source: Source, process: &str) -> App {
    let mut app = App::new(source, Some(process.to_string()), Config::default());
    update(
        &mut app,
        Action::Resize {
            width: SIZE.0,
            height: SIZE.1,
        },
    );
    app.settle();
    app
}

fn random_run(app: &mut App, steps: usize) {
    update(app, Action::Command(Command::RandomRun));
    for c in steps.to_string().chars() {
        update(app, Action::Prompt(PromptKey::Char(c)));
    }
    update(app, Action::Prompt(PromptKey::Confirm));
}

/// ListStack with 40 nodes and 8 threads: 50 components.
fn liststack_50() -> Source {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/liststack.csp"),
    )
    .expect("the model");
    let nodes: Vec<String> = (0..40).map(|i| format!("N{i}")).collect();
    let threads: Vec<String> = (0..8).map(|i| format!("T{i}")).collect();
    let text = text
        .replace(
            "datatype NodeIDType = Null | N0 | N1 | N2",
            &format!("datatype NodeIDType = Null | {}", nodes.join(" | ")),
        )
        .replace(
            "datatype ThreadID = T0 | T1",
            &format!("datatype ThreadID = {}", threads.join(" | ")),
        );
    let dir = std::env::temp_dir().join(format!("symcsp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("liststack50.csp");
    std::fs::write(&path, text).expect("written");
    Source::File(path)
}

fn main() {
    symcsp::stack::with_large_stack(|| {
        let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("a backend");

        // A state with 500 events.
        let mut wide = open(file("tests/fixtures/tui/wide.csp"), "Wide");
        let frames: Vec<Duration> = (0..300)
            .map(|i| {
                let command = if i % 2 == 0 {
                    Command::Down
                } else {
                    Command::PageDown
                };
                update(&mut wide, Action::Command(command));
                draw(&mut terminal, &mut wide)
            })
            .collect();
        println!(
            "redraw, 500-event state ({}x{}): {}",
            SIZE.0,
            SIZE.1,
            summary(frames)
        );
        let steps: Vec<Duration> = (0..300)
            .map(|_| key(&mut terminal, &mut wide, Command::FireNth(1)))
            .collect();
        println!(
            "step in a 500-event state (update, engine, redraw): {}",
            summary(steps)
        );

        // A 10 000-step trace of the dining philosophers with a butler
        // (deadlock free, so a random run never stops early).
        let mut stack = open(file("benches/models/dining.csp"), "Served");
        stack.seed(1);
        let start = Instant::now();
        random_run(&mut stack, 10_000);
        stack.settle();
        let run = start.elapsed();
        let taken = stack.walk.as_ref().map_or(0, |w| w.path.len());
        println!(
            "random run of {taken} steps (dining, Served): {:.1} ms, {:.1} µs per step",
            millis(run),
            run.as_secs_f64() * 1e6 / taken.max(1) as f64
        );
        let undo: Vec<Duration> = (0..2000)
            .map(|_| key(&mut terminal, &mut stack, Command::Undo))
            .collect();
        println!(
            "undo + redraw along the 10 000-step trace: {}",
            summary(undo)
        );
        let jumps: Vec<Duration> = (0..100)
            .map(|i| {
                let command = if i % 2 == 0 {
                    Command::Initial
                } else {
                    Command::Redo
                };
                key(&mut terminal, &mut stack, command)
            })
            .collect();
        println!("go to initial / redo + redraw: {}", summary(jumps));

        // Input while a check runs on the other core.
        let mut dining = open(file("benches/models/dining.csp"), "System");
        // `Served :[deadlock free]`: a full search of 869 248 states.
        dining.panes.of_type_mut::<ChecksPane>().list.selected = 1;
        update(&mut dining, Action::Command(Command::RunCheck));
        let mut latencies = Vec::new();
        let started = Instant::now();
        let mut i = 0;
        while dining.check_running() {
            let start = Instant::now();
            let command = if i % 2 == 0 {
                Command::Down
            } else {
                Command::Up
            };
            update(&mut dining, Action::Command(command));
            update(&mut dining, Action::Tick);
            draw(&mut terminal, &mut dining);
            latencies.push(start.elapsed());
            i += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
        println!(
            "key + tick + redraw while `Served :[deadlock free]` runs ({:.2} s): {}",
            started.elapsed().as_secs_f64(),
            summary(latencies)
        );

        // Input while a 5 000 000-step random run goes on in the engine.
        let dir = std::env::temp_dir().join(format!("symcsp-bench-up-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let up = dir.join("up.csp");
        std::fs::write(&up, "channel a\nP(n) = a -> P(n+1)\n").expect("written");
        let mut counter = open(Source::File(up), "P(0)");
        random_run(&mut counter, 5_000_000);
        let mut latencies = Vec::new();
        let started = Instant::now();
        for i in 0..200 {
            let start = Instant::now();
            let command = if i % 2 == 0 {
                Command::NextPane
            } else {
                Command::PrevPane
            };
            update(&mut counter, Action::Command(command));
            update(&mut counter, Action::Tick);
            draw(&mut terminal, &mut counter);
            latencies.push(start.elapsed());
            std::thread::sleep(Duration::from_millis(10));
        }
        let (_, _, (done, _)) = counter.busy().unwrap_or(("", Duration::ZERO, (0, 0)));
        let cancel = Instant::now();
        update(&mut counter, Action::Command(Command::Cancel));
        counter.settle();
        let cancelled = cancel.elapsed();
        println!(
            "key + tick + redraw during a 5 000 000-step random run ({:.2} s, {done} steps by \
             then): {}; Esc to the run's end: {:.1} ms",
            started.elapsed().as_secs_f64(),
            summary(latencies),
            millis(cancelled)
        );

        // The symmetry view of a 50-component state.
        let mut list = open(liststack_50(), "System");
        list.seed(3);
        random_run(&mut list, 400);
        list.settle();
        let components = list
            .walk
            .as_ref()
            .and_then(|w| w.shown.as_ref())
            .map_or(0, |s| s.components.len());
        let opening = key(&mut terminal, &mut list, Command::ToggleSymmetry);
        let redraws: Vec<Duration> = (0..200).map(|_| draw(&mut terminal, &mut list)).collect();
        let stages: Vec<Duration> = (0..60)
            .map(|_| key(&mut terminal, &mut list, Command::AlgorithmNext))
            .collect();
        let stage_redraws: Vec<Duration> =
            (0..200).map(|_| draw(&mut terminal, &mut list)).collect();
        println!(
            "symmetry view, {components} components: opening (engine explains + redraw) {:.1} \
             ms; redraw {}; next stage (update + redraw) {}; redraw of a stage {}",
            millis(opening),
            summary(redraws),
            summary(stages),
            summary(stage_redraws)
        );
        let steps: Vec<Duration> = (0..100)
            .map(|_| key(&mut terminal, &mut list, Command::RandomStep))
            .collect();
        println!(
            "a step with the symmetry view open (engine steps and explains, redraw): {}",
            summary(steps)
        );
    });
}

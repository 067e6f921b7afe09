//! How the animator feels: drawing a state with 500 events, stepping
//! through a 10 000-step trace (dining philosophers, N = 7), and handling input while a check runs
//! on the other core. Screens are drawn into ratatui's TestBackend (the
//! work of a real redraw minus the terminal's own). Reports, never fails.
//!
//! `cargo bench --bench tui`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use symcsp::tui::app::{Action, App, PromptKey, update};
use symcsp::tui::config::{Command, Config};
use symcsp::tui::model::Source;
use symcsp::tui::view::view;

const SIZE: (u16, u16) = (160, 50);

fn file(path: &str) -> Source {
    Source::File(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path))
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) -> Duration {
    let start = Instant::now();
    terminal.draw(|frame| view(app, frame)).expect("draws");
    start.elapsed()
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

fn main() {
    symcsp::stack::with_large_stack(|| {
        let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("a backend");

        // A state with 500 events.
        let mut wide = App::new(file("tests/fixtures/tui/wide.csp"), None, Config::default());
        update(
            &mut wide,
            Action::Resize {
                width: SIZE.0,
                height: SIZE.1,
            },
        );
        let frames: Vec<Duration> = (0..300)
            .map(|i| {
                let key = if i % 2 == 0 {
                    Command::Down
                } else {
                    Command::PageDown
                };
                update(&mut wide, Action::Command(key));
                draw(&mut terminal, &wide)
            })
            .collect();
        println!(
            "redraw, 500-event state ({}x{}): {}",
            SIZE.0,
            SIZE.1,
            summary(frames)
        );
        let steps: Vec<Duration> = (0..300)
            .map(|_| {
                let start = Instant::now();
                update(&mut wide, Action::Command(Command::FireNth(1)));
                start.elapsed()
            })
            .collect();
        println!(
            "step in a 500-event state (update only): {}",
            summary(steps)
        );

        // A 10 000-step trace of the dining philosophers with a butler
        // (deadlock free, so a random run never stops early).
        let mut stack = App::new(
            file("benches/models/dining.csp"),
            Some("Served".into()),
            Config::default(),
        );
        stack.seed(1);
        let start = Instant::now();
        update(&mut stack, Action::Command(Command::RandomRun));
        for _ in 0..3 {
            update(&mut stack, Action::Prompt(PromptKey::Backspace));
        }
        for c in "10000".chars() {
            update(&mut stack, Action::Prompt(PromptKey::Char(c)));
        }
        update(&mut stack, Action::Prompt(PromptKey::Confirm));
        let run = start.elapsed();
        println!(
            "random run of {} steps (dining, Served): {:.1} ms, {:.1} µs per step",
            stack.trace.steps.len(),
            millis(run),
            run.as_secs_f64() * 1e6 / stack.trace.steps.len().max(1) as f64
        );
        let undo: Vec<Duration> = (0..2000)
            .map(|_| {
                let start = Instant::now();
                update(&mut stack, Action::Command(Command::Undo));
                start.elapsed() + draw(&mut terminal, &stack)
            })
            .collect();
        println!(
            "undo + redraw along the 10 000-step trace: {}",
            summary(undo)
        );
        let jumps: Vec<Duration> = (0..100)
            .map(|i| {
                let start = Instant::now();
                let key = if i % 2 == 0 {
                    Command::Initial
                } else {
                    Command::Redo
                };
                update(&mut stack, Action::Command(key));
                start.elapsed() + draw(&mut terminal, &stack)
            })
            .collect();
        println!("go to initial / redo + redraw: {}", summary(jumps));

        // Input while a check runs on the other core.
        let mut dining = App::new(
            file("benches/models/dining.csp"),
            Some("System".into()),
            Config::default(),
        );
        update(
            &mut dining,
            Action::Resize {
                width: SIZE.0,
                height: SIZE.1,
            },
        );
        // `Served :[deadlock free]`: a full search of 869 248 states.
        dining.selected[4] = 1;
        update(&mut dining, Action::Command(Command::RunCheck));
        let mut latencies = Vec::new();
        let started = Instant::now();
        let mut i = 0;
        while dining.check_running() {
            let start = Instant::now();
            let key = if i % 2 == 0 {
                Command::Down
            } else {
                Command::Up
            };
            update(&mut dining, Action::Command(key));
            update(&mut dining, Action::Tick);
            draw(&mut terminal, &dining);
            latencies.push(start.elapsed());
            i += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
        println!(
            "key + tick + redraw while `Served :[deadlock free]` runs ({:.2} s): {}",
            started.elapsed().as_secs_f64(),
            summary(latencies)
        );
    });
}

//! How far past its budget each kind of check goes (issue 24's numbers):
//! every check kind, on the reproducers and on a counter with
//! infinitely many states, under `--max-states 20000` and then under a
//! time-out of 2 s. For the state budget the stored states are reported
//! (the target: at most 1 % past the budget); for the time-out, the time
//! from starting the check on a worker to having its answer (the
//! target: at most 0.5 s past). Reports, never fails.
//!
//! `cargo bench --bench budgets`

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use symcsp::budget::Budget;
use symcsp::check::worker::CheckHandle;
use symcsp::check::{Verdict, assertion_text};
use symcsp::script::Script;

const STATES: usize = 20_000;
const TIMEOUT: Duration = Duration::from_secs(2);

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let files = [
        "tests/fixtures/budgets/divergence.csp",
        "tests/fixtures/budgets/wide.csp",
        "tests/fixtures/budgets/counters.csp",
        "benches/models/kinds.csp",
    ];
    println!(
        "{:<48} {:>8} {:>8}  {:<30} {:>9} {:>8}",
        "assertion", "states", "past", "stopped by (20000 states)", "time", "past 2 s"
    );
    for file in files {
        let script =
            Arc::new(Script::load_file(&Path::new(root).join(file)).expect("the script loads"));
        println!("{file}");
        for index in 0..script.assertions.len() {
            let by_states = run(
                &script,
                index,
                Budget {
                    max_states: Some(STATES),
                    ..Budget::default()
                },
            );
            let by_clock = run(
                &script,
                index,
                Budget {
                    timeout: Some(TIMEOUT),
                    ..Budget::default()
                },
            );
            let past = (by_states.states as f64 / STATES as f64 - 1.0) * 100.0;
            println!(
                "  {:<46} {:>8} {:>+7.2}%  {:<30} {:>7.3} s {:>+6.3} s",
                assertion_text(&script, index),
                by_states.states,
                past,
                by_states.outcome,
                by_clock.elapsed.as_secs_f64(),
                by_clock.elapsed.as_secs_f64() - TIMEOUT.as_secs_f64(),
            );
        }
    }
}

/// What one check did.
struct Run {
    /// States of the product when it answered.
    states: u64,
    /// Why it stopped, and in which table when not the product's.
    outcome: String,
    /// From starting the check on a worker to having its answer.
    elapsed: Duration,
}

fn run(script: &Arc<Script>, index: usize, budget: Budget) -> Run {
    let started = Instant::now();
    let budget = Budget {
        threads: 1,
        ..budget
    };
    let result = CheckHandle::spawn(script.clone(), index, budget).join();
    let elapsed = started.elapsed();
    match result {
        Ok(result) => {
            let table = if result.notes.iter().any(|n| n.contains("divergence")) {
                " (divergence)"
            } else if result.notes.iter().any(|n| n.contains("specification")) {
                " (specification)"
            } else {
                ""
            };
            let outcome = match result.verdict {
                Verdict::Inconclusive(stopped) => format!("{}{table}", stopped.reason()),
                verdict => verdict.word().to_lowercase(),
            };
            Run {
                states: result.states,
                outcome,
                elapsed,
            }
        }
        Err(_) => Run {
            states: 0,
            outcome: "error".to_string(),
            elapsed,
        },
    }
}

//! Speed of the product search on the dining philosophers with 7
//! philosophers (`benches/models/dining.csp`): the deadlock check of the
//! system (which finds its deadlock), the deadlock check of the system
//! with a butler (which searches every state), and a trace refinement
//! whose product has the system's 930 431 states; on one thread and on
//! two. The best of several runs is reported. Reports, never fails.
//!
//! `cargo bench --bench check`

use std::path::Path;

use symcsp::check::{self, Verdict};
use symcsp::lts::search::Budget;
use symcsp::script::Script;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/models/dining.csp");
const RUNS: usize = 3;

fn main() {
    let script = Script::load_file(Path::new(MODEL)).expect("the model loads");
    println!(
        "{:<44} {:>8} {:>8} {:>10} {:>10} {:>14}",
        "dining philosophers, N = 7", "verdict", "threads", "states", "best", "states/s"
    );
    for index in 0..script.assertions.len() {
        let text = check::assertion_text(&script, index);
        let mut single = f64::MAX;
        for threads in [1, 2] {
            let budget = Budget {
                threads,
                ..Budget::default()
            };
            let mut best = f64::MAX;
            let mut last = None;
            for _ in 0..RUNS {
                let result =
                    symcsp::stack::with_large_stack(|| check::check(&script, index, &budget))
                        .expect("the check runs");
                best = best.min(result.seconds);
                last = Some(result);
            }
            let result = last.expect("at least one run");
            if threads == 1 {
                single = best;
            }
            let verdict = match result.verdict {
                Verdict::Passed => "passed",
                Verdict::Failed => "failed",
                Verdict::Inconclusive(_) => "stopped",
            };
            println!(
                "{:<44} {verdict:>8} {threads:>8} {:>10} {:>8.3} s {:>14.0}",
                if threads == 1 { text.as_str() } else { "" },
                result.states,
                best,
                result.states as f64 / best,
            );
            if threads > 1 {
                println!(
                    "{:<44} speed-up on {threads} threads: {:.2}x",
                    "",
                    single / best
                );
            }
        }
    }
}

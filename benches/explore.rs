//! Exploration speed and memory on the dining philosophers with 7
//! philosophers and 7 forks (`benches/models/dining.csp`, 930 431
//! states), on one thread and on two. Each run is a fresh process, so its
//! peak resident memory (VmHWM) is the run's own; the best of several
//! runs is reported with the memory per state. Reports, never fails.
//!
//! `cargo bench --bench explore`

use std::process::Command;
use std::time::Instant;

use symcsp::lts::{self, Budget};
use symcsp::process::Processes;
use symcsp::script::Script;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/models/dining.csp");
const RUNS: usize = 5;

/// One exploration in this process: prints `states transitions seconds
/// peak_kib`.
fn child(threads: usize) {
    let mut script = Script::load_file(std::path::Path::new(MODEL)).expect("the model loads");
    let func = script.add_expr("<bench>", "System").expect("resolves");
    let script = &script;
    let (states, transitions, seconds) = symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let budget = Budget {
            threads,
            ..Budget::default()
        };
        let start = Instant::now();
        let x = lts::explore(&mut procs, root, &budget).expect("explores");
        (x.states, x.transitions, start.elapsed().as_secs_f64())
    });
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    println!("{states} {transitions} {seconds} {peak_kib}");
}

fn main() {
    if let Ok(threads) = std::env::var("SYMCSP_BENCH_THREADS") {
        child(threads.parse().expect("a thread count"));
        return;
    }
    println!(
        "{:<34} {:>8} {:>10} {:>10} {:>14} {:>12}",
        "dining philosophers, N = 7", "threads", "states", "best", "states/s", "bytes/state"
    );
    let mut single = f64::MAX;
    for threads in [1, 2] {
        let mut best = f64::MAX;
        let mut peak = 0;
        let mut states = 0;
        for _ in 0..RUNS {
            let out = Command::new(std::env::current_exe().expect("the bench binary"))
                .env("SYMCSP_BENCH_THREADS", threads.to_string())
                .output()
                .expect("the bench can run itself");
            let text = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<&str> = text.split_whitespace().collect();
            let [s, _, secs, kib] = fields[..] else {
                panic!("unexpected child output: {text}");
            };
            states = s.parse::<u64>().expect("states");
            best = best.min(secs.parse::<f64>().expect("seconds"));
            peak = peak.max(kib.parse::<u64>().expect("peak"));
        }
        if threads == 1 {
            single = best;
        }
        println!(
            "{:<34} {threads:>8} {states:>10} {:>8.3} s {:>14.0} {:>12.1}",
            if threads == 1 { "explore System" } else { "" },
            best,
            states as f64 / best,
            peak as f64 * 1024.0 / states as f64,
        );
        if threads > 1 {
            println!(
                "{:<34} speed-up on {threads} threads: {:.2}x",
                "",
                single / best
            );
        }
    }
}

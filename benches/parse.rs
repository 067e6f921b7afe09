//! Parse throughput on a generated script (issue: at least 10 MB/s on a
//! 5 MB script, memory under 20x the file size), and the cost of
//! explaining a broken nested expression at growing depths (it must be
//! linear). Reports, never fails.
//!
//! `cargo bench --bench parse [-- SIZE_MB]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Counts live heap bytes and allocations, to say where memory goes.
struct Counting;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static LIVE_BLOCKS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_BLOCKS.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[path = "common/generated.rs"]
mod generated;
use generated::block;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn current_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let megabytes: f64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5.0);
    let target = (megabytes * 1024.0 * 1024.0) as usize;
    let mut script = String::with_capacity(target + 4096);
    let mut n = 0;
    while script.len() < target {
        script.push_str(&block(n));
        n += 1;
    }
    let bytes = script.len();
    let baseline = current_rss_kib();

    let runs = 3;
    let mut best = f64::INFINITY;
    let mut decls = 0;
    let mut tree = (0, 0);
    let mut peak_growth = None;
    for run in 0..runs {
        let before = (
            LIVE_BYTES.load(Ordering::Relaxed),
            LIVE_BLOCKS.load(Ordering::Relaxed),
        );
        let start = Instant::now();
        let program = symcsp::syntax::load_str("generated.csp", &script)
            .expect("the generated script parses");
        let seconds = start.elapsed().as_secs_f64();
        tree = (
            LIVE_BYTES.load(Ordering::Relaxed) - before.0,
            LIVE_BLOCKS.load(Ordering::Relaxed) - before.1,
        );
        decls = program.root_file().decls.len();
        best = best.min(seconds);
        if run == 0 {
            // Peak memory of one parse, before later runs muddy it.
            peak_growth = baseline
                .zip(peak_rss_kib())
                .map(|(base, peak)| peak.saturating_sub(base));
        }
    }
    let mb = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "parse: {mb:.2} MB, {decls} declarations, best of {runs}: {best:.3} s = {:.2} MB/s",
        mb / best
    );
    // The same script with three syntax errors, at 1%, 50% and 99% of it:
    // all must be reported, at about the cost of one parse.
    let mut broken = script.clone();
    for fraction in [0.99, 0.5, 0.01] {
        let at = (bytes as f64 * fraction) as usize;
        let line = at + broken[at..].find("\nQ").expect("a Q definition follows") + 1;
        let arrow = line
            + broken[line..]
                .find(" @ ")
                .expect("the Q definition has an @");
        broken.replace_range(arrow..arrow + 3, " ");
    }
    let start = Instant::now();
    let errors = symcsp::syntax::load_str("broken.csp", &broken)
        .expect_err("the broken script fails")
        .diagnostics
        .len();
    println!(
        "errors: the script with 3 syntax errors reports {errors} in {:.3} s",
        start.elapsed().as_secs_f64()
    );
    println!(
        "tree: {:.1} MB live in {} allocations ({:.1} bytes each), {:.1}x the script",
        tree.0 as f64 / (1024.0 * 1024.0),
        tree.1,
        tree.0 as f64 / tree.1.max(1) as f64,
        tree.0 as f64 / bytes as f64
    );
    if let Some(grown) = peak_growth {
        let grown = grown as f64 / 1024.0;
        println!(
            "memory: peak RSS grew by {grown:.1} MB during the first parse = {:.1}x the script",
            grown / mb
        );
    }
    nested_errors();
}

/// A missing `else` under `n` conditionals, and a `let` without a body
/// under `n` others (issue 24's reproducers): time to the diagnostic and
/// the rules pest entered, which must both grow linearly with `n`.
fn nested_errors() {
    println!("nested errors: n, bytes, seconds to the diagnostic (best of 5), pest calls");
    for (what, unit, tail) in [
        ("if", "if true then ", "1"),
        ("let", "let x = 1 within ", ""),
    ] {
        for n in [10, 20, 40, 80] {
            let text = format!("X = {}{tail}\n", unit.repeat(n));
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let start = Instant::now();
                let failed = symcsp::syntax::load_str("nested.csp", &text).is_err();
                best = best.min(start.elapsed().as_secs_f64());
                assert!(failed, "the nested {what} is broken");
            }
            let calls = symcsp::syntax::differential::pest_calls(&text);
            println!(
                "  {what:<3} n = {n:>2}: {:>5} bytes, {:.6} s, {calls} pest calls",
                text.len(),
                best
            );
        }
    }
}

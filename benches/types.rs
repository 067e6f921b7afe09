//! What type checking costs beside parsing and resolving (the issue:
//! at most 10 % of parse + resolve on the largest scripts, and linear
//! in the script's size), on generated scripts of 10³ to 10⁵ lines:
//! the blocks of the parse benchmark, and a chain of definitions each
//! using the one before (one dependency group per definition).
//! Reports, never fails.
//!
//! `cargo bench --bench types [-- blocks|chain]`

use std::time::Instant;

use symcsp::script::Script;

#[path = "common/generated.rs"]
mod generated;
use generated::block;

/// Best of `runs` timings of `f`, in seconds, and its last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed().as_secs_f64());
        last = Some(value);
    }
    (best, last.expect("at least one run"))
}

/// Parses, resolves and type-checks `text`, timing each stage.
fn measure(what: &str, text: &str) {
    let lines = text.lines().count();
    let (parse, program) = best(3, || {
        symcsp::syntax::load_str("generated.csp", text).expect("parses")
    });
    drop(program);
    // Resolving consumes the parsed program: each run parses afresh,
    // untimed.
    let mut resolve = f64::INFINITY;
    let mut script = None;
    for _ in 0..3 {
        let program = symcsp::syntax::load_str("generated.csp", text).expect("parses");
        let start = Instant::now();
        script = Some(Script::resolve(program).expect("resolves"));
        resolve = resolve.min(start.elapsed().as_secs_f64());
    }
    let script = script.expect("resolved");
    let (check, types) = best(3, || symcsp::types::check(&script));
    types.expect("type-checks");
    let share = 100.0 * check / (parse + resolve);
    println!(
        "{what:<8} {lines:>7} lines {:>6.2} MB: parse {parse:.3} s, resolve {resolve:.3} s, \
         types {check:.3} s = {share:.1} % of parse + resolve, {:.2} µs a line",
        text.len() as f64 / (1024.0 * 1024.0),
        check * 1e6 / lines as f64
    );
}

fn main() {
    // `cargo bench --bench types -- chain` runs one family (for a profiler).
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |family: &str| only.as_deref().is_none_or(|o| o == family);
    for lines in [1_000, 10_000, 100_000] {
        if !wanted("blocks") {
            break;
        }
        let mut text = String::new();
        let mut n = 0;
        let mut written = 0;
        while written < lines {
            let next = block(n);
            written += next.lines().count();
            text.push_str(&next);
            n += 1;
        }
        measure("blocks", &text);
    }
    for lines in [1_000, 10_000, 100_000] {
        if !wanted("chain") {
            break;
        }
        let mut text = String::from("x0 = 0\nid(y) = y\n");
        for i in 1..lines {
            text.push_str(&format!("x{i} = id(x{}) + 1\n", i - 1));
        }
        measure("chain", &text);
    }
}

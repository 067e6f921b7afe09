//! Long flat expressions load as FDR loads them (issue 62: each of a
//! 10 000-alternative `[]`, a 10 000-term sum and a 10 000-step prefix
//! chain loads in at most 0.5 s): parse, resolve and type-check, best of
//! three, each on a large stack as every command loads. Reports, never
//! fails.
//!
//! `cargo bench --bench chains [-- N]` (N: the chain's length, 10 000
//! by default)

use std::time::Instant;

/// The scripts: a name and its text, each a chain of `n` links.
fn scripts(n: usize) -> Vec<(&'static str, String)> {
    let choice: Vec<String> = (0..n).map(|i| format!("a.{i} -> STOP")).collect();
    let terms: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    vec![
        (
            "[] alternatives",
            format!("channel a : {{0..{n}}}\nP = {}\n", choice.join(" [] ")),
        ),
        ("+ terms", format!("N = {}\n", terms.join(" + "))),
        (
            "-> steps",
            format!("channel a\nP = {}STOP\n", "a -> ".repeat(n)),
        ),
    ]
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    for (what, text) in scripts(n) {
        let best = (0..3)
            .map(|_| {
                symcsp::stack::with_large_stack(|| {
                    let start = Instant::now();
                    let loaded = symcsp::types::load_str("chain.csp", &text);
                    let seconds = start.elapsed().as_secs_f64();
                    assert!(loaded.is_ok(), "{what}: does not load");
                    drop(loaded);
                    seconds
                })
            })
            .fold(f64::INFINITY, f64::min);
        println!("{n} {what:<16} load {best:.3} s");
    }
}

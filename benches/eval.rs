//! Evaluation speed on the workloads issue 3 names: a comprehension over
//! a million pairs and folds over a 100 000-element sequence (by pattern
//! matching `<x>^xs`, and by an accumulator); and sequences built element
//! by element (appending to an accumulator, prepending to a recursive
//! call's result). Each is run several times on a fresh evaluator; the
//! best time is reported.
//! Reports, never fails.
//!
//! `cargo bench --bench eval`

use std::time::{Duration, Instant};

use symcsp::eval::Evaluator;
use symcsp::script::Script;

const SCRIPT: &str = "
sum(<>) = 0
sum(<x> ^ xs) = x + sum(xs)

sumAcc(acc, <>) = acc
sumAcc(acc, <x> ^ xs) = sumAcc(acc + x, xs)

build(0, acc) = acc
build(n, acc) = build(n - 1, acc ^ <n>)

double(<>) = <>
double(<x> ^ xs) = <2 * x> ^ double(xs)
";

const WORKLOADS: &[(&str, &str)] = &[
    (
        "pairs: card({(x, y) | x <- {0..999}, y <- {0..999}, x < y})",
        "card({(x, y) | x <- {0..999}, y <- {0..999}, x < y})",
    ),
    ("fold: sum(<1..100000>), recursive", "sum(<1..100000>)"),
    (
        "fold: sumAcc(0, <1..100000>), accumulator",
        "sumAcc(0, <1..100000>)",
    ),
    ("build: build(10000, <>), appending", "#build(10000, <>)"),
    ("build: build(100000, <>), appending", "#build(100000, <>)"),
    (
        "map: double(<1..100000>), prepending <2 * x>",
        "#double(<1..100000>)",
    ),
];

fn main() {
    println!("{:<58} {:>12} {:>14}", "workload", "best", "value");
    for (name, expr) in WORKLOADS {
        let mut script = Script::load_str("bench.csp", SCRIPT).expect("the bench script loads");
        let func = script
            .add_expr("<bench>", expr)
            .expect("the expression resolves");
        let script = &script;
        let (best, value) = symcsp::stack::with_large_stack(|| {
            let mut best = Duration::MAX;
            let mut value = String::new();
            for _ in 0..3 {
                let evaluator = Evaluator::new(script);
                let start = Instant::now();
                let v = evaluator
                    .eval_constant(func)
                    .expect("the workload evaluates");
                best = best.min(start.elapsed());
                value = evaluator.show(&v);
            }
            (best, value)
        });
        println!(
            "{name:<58} {:>9.1} ms {value:>14}",
            best.as_secs_f64() * 1e3
        );
    }
}

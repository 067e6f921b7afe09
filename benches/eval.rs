//! Evaluation speed on the workloads issue 3 names: a comprehension over
//! a million pairs and folds over a 100 000-element sequence (by pattern
//! matching `<x>^xs`, and by an accumulator); and sequences built element
//! by element (appending to an accumulator, prepending to a recursive
//! call's result). Each is run several times on a fresh evaluator; the
//! best time is reported, beside the best time of the same computation
//! written directly in Rust (a persistent cons list for the sequences, as
//! a functional language would have, and a `BTreeSet` for the set): the
//! compiled reference issue 3 measures the evaluator against.
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

struct Workload {
    name: &'static str,
    expr: &'static str,
    /// The same computation, compiled.
    compiled: fn() -> i64,
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "pairs: card({(x, y) | x <- {0..999}, y <- {0..999}, x < y})",
        expr: "card({(x, y) | x <- {0..999}, y <- {0..999}, x < y})",
        compiled: compiled::pairs,
    },
    Workload {
        name: "fold: sum(<1..100000>), recursive",
        expr: "sum(<1..100000>)",
        compiled: compiled::sum,
    },
    Workload {
        name: "fold: sumAcc(0, <1..100000>), accumulator",
        expr: "sumAcc(0, <1..100000>)",
        compiled: compiled::sum_acc,
    },
    Workload {
        name: "build: build(10000, <>), appending",
        expr: "#build(10000, <>)",
        compiled: || compiled::build(10_000),
    },
    Workload {
        name: "build: build(100000, <>), appending",
        expr: "#build(100000, <>)",
        compiled: || compiled::build(100_000),
    },
    Workload {
        name: "map: double(<1..100000>), prepending <2 * x>",
        expr: "#double(<1..100000>)",
        compiled: compiled::double,
    },
];

/// The workloads in Rust, as a compiled functional program would run them.
mod compiled {
    use std::collections::BTreeSet;
    use std::hint::black_box;
    use std::rc::Rc;

    /// A persistent list: what a CSPM sequence is to a functional language.
    enum List {
        Nil,
        Cons(i64, Rc<List>),
    }

    fn range(from: i64, to: i64) -> Rc<List> {
        (from..=to)
            .rev()
            .fold(Rc::new(List::Nil), |tail, x| Rc::new(List::Cons(x, tail)))
    }

    fn length(mut list: &List) -> i64 {
        let mut n = 0;
        while let List::Cons(_, tail) = list {
            n += 1;
            list = tail;
        }
        n
    }

    pub fn pairs() -> i64 {
        let n = black_box(1000);
        let set: BTreeSet<(i64, i64)> = (0..n)
            .flat_map(|x| (0..n).filter(move |&y| x < y).map(move |y| (x, y)))
            .collect();
        set.len() as i64
    }

    pub fn sum() -> i64 {
        fn go(list: &List) -> i64 {
            match list {
                List::Nil => 0,
                List::Cons(x, xs) => x + go(xs),
            }
        }
        go(&range(1, black_box(100_000)))
    }

    pub fn sum_acc() -> i64 {
        fn go(acc: i64, list: &List) -> i64 {
            match list {
                List::Nil => acc,
                List::Cons(x, xs) => go(acc + x, xs),
            }
        }
        go(0, &range(1, black_box(100_000)))
    }

    /// Appending: a growable vector, the best a compiled program can do.
    pub fn build(n: i64) -> i64 {
        let mut acc = Vec::new();
        for i in (1..=black_box(n)).rev() {
            acc.push(i);
        }
        acc.len() as i64
    }

    pub fn double() -> i64 {
        fn go(list: &List) -> Rc<List> {
            match list {
                List::Nil => Rc::new(List::Nil),
                List::Cons(x, xs) => Rc::new(List::Cons(2 * x, go(xs))),
            }
        }
        length(&go(&range(1, black_box(100_000))))
    }
}

fn main() {
    println!(
        "{:<58} {:>12} {:>12} {:>7} {:>14}",
        "workload", "best", "compiled", "ratio", "value"
    );
    for Workload {
        name,
        expr,
        compiled,
    } in WORKLOADS
    {
        let mut script = Script::load_str("bench.csp", SCRIPT).expect("the bench script loads");
        let func = script
            .add_expr("<bench>", expr)
            .expect("the expression resolves");
        let script = &script;
        let (best, value, reference) = symcsp::stack::with_large_stack(|| {
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
            let mut reference = Duration::MAX;
            for _ in 0..3 {
                let start = Instant::now();
                let v = compiled();
                reference = reference.min(start.elapsed());
                assert_eq!(
                    v.to_string(),
                    value,
                    "{name}: the compiled reference disagrees"
                );
            }
            (best, value, reference)
        });
        println!(
            "{name:<58} {:>9.1} ms {:>9.2} ms {:>6.0}x {value:>14}",
            best.as_secs_f64() * 1e3,
            reference.as_secs_f64() * 1e3,
            best.as_secs_f64() / reference.as_secs_f64(),
        );
    }
}

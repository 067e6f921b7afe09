//! Structural symmetry (issue 51): how long detecting and validating a
//! system's group takes for 10, 100 and 1 000 components (the dining
//! philosophers' ring and Israeli-Jalfon's token ring, from the shipped
//! models with N replaced), and what reducing by it gains on the dining
//! ring at N = 7..10 (states, time, and both ratios against the
//! unreduced search). Reports, never fails.
//!
//! `cargo bench --bench structural`. Times are the median of `RUNS`
//! runs on one thread.

use std::time::Instant;

use symcsp::lts::machine::Machine;
use symcsp::lts::{Budget, explore_machine};
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::structural::{self, group::StructuralReduction};

const RUNS: usize = 5;

/// The shipped model `file` with its `N = ...` line set to `n`, and its
/// `System`.
fn sized(file: &str, n: usize) -> (Script, symcsp::script::ir::FuncId) {
    let path = format!("{}/models/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("a shipped model");
    let line = text
        .lines()
        .find(|l| l.starts_with("N = "))
        .expect("a line setting N");
    let text = text.replacen(&format!("\n{line}\n"), &format!("\nN = {n}\n"), 1);
    let mut script = Script::load_str(&path, &text).expect("loads");
    let func = script.add_expr("<bench>", "System").expect("resolves");
    (script, func)
}

fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds[seconds.len() / 2]
}

/// Detection and validation of `file`'s group at `n`: the group's
/// order, the components, and the median seconds (the machine built
/// beforehand, not timed).
fn detection(file: &str, n: usize) -> (String, usize, f64) {
    let (script, func) = sized(file, n);
    let mut order = String::new();
    let mut components = 0;
    let times = (0..RUNS)
        .map(|_| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let machine = Machine::new(&mut procs, root).expect("compiles");
            components = machine.components();
            let started = Instant::now();
            let structure = structural::analyse(&machine, &mut procs).expect("analyses");
            let seconds = started.elapsed().as_secs_f64();
            order = structure.order.to_string();
            seconds
        })
        .collect();
    (order, components, median(times))
}

/// The dining ring at `n` explored unreduced and reduced by its
/// structural group (detection included): states and median seconds
/// each way.
fn reduction(n: usize) -> ((u64, f64), (u64, f64)) {
    let (script, func) = sized("diningring.csp", n);
    let budget = Budget::default();
    let mut plain = Vec::new();
    let mut reduced = Vec::new();
    let (mut states, mut representatives) = (0, 0);
    for _ in 0..RUNS {
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let machine = Machine::new(&mut procs, root).expect("compiles");
        let started = Instant::now();
        states = explore_machine(&mut procs, machine, &budget, None)
            .expect("explores")
            .states;
        plain.push(started.elapsed().as_secs_f64());

        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("compiles");
        let started = Instant::now();
        let structure = structural::analyse(&machine, &mut procs).expect("analyses");
        let elements = structure.elements.expect("a group to enumerate");
        let mut group = StructuralReduction::new(elements, &structure.graph, &mut machine);
        representatives = explore_machine(&mut procs, machine, &budget, Some(&mut group))
            .expect("explores")
            .states;
        reduced.push(started.elapsed().as_secs_f64());
    }
    ((states, median(plain)), (representatives, median(reduced)))
}

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    symcsp::stack::with_large_stack(|| {
        if wanted("detection") {
            println!("detection and validation (median of {RUNS} runs)");
            println!(
                "{:<16} {:>10} {:>12} {:>10}",
                "model", "components", "group order", "seconds"
            );
            for (file, sizes) in [
                ("diningring.csp", [5, 50, 500]),
                ("ijring.csp", [10, 100, 1000]),
            ] {
                for n in sizes {
                    let (order, components, seconds) = detection(file, n);
                    println!("{file:<16} {components:>10} {order:>12} {seconds:>10.3}");
                }
            }
        }
        if wanted("reduction") {
            println!("\ndining ring, explored unreduced and by its rotations (detection included)");
            println!(
                "{:>3} {:>10} {:>9} {:>16} {:>9} {:>10} {:>9}",
                "N", "states", "seconds", "representatives", "seconds", "reduction", "speed-up"
            );
            for n in 7..=10 {
                let ((states, plain), (reps, reduced)) = reduction(n);
                println!(
                    "{n:>3} {states:>10} {plain:>9.3} {reps:>16} {reduced:>9.3} {:>9.2}x {:>8.2}x",
                    states as f64 / reps as f64,
                    plain / reduced
                );
            }
        }
    });
}

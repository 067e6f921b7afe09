//! Representative time per state: the median and the 99th percentile of
//! the representative algorithm (component ordering, permutation, and the
//! permuted state) on states met by random walks through each symmetric
//! model, measured after a warm-up pass over the same states, with the
//! heap allocations of the measured pass counted. ListStack at the
//! paper's (6 nodes, 4 data, 3 threads) and larger; the other models of
//! `models/` at their own sizes. One thread.
//!
//! Then reduced checks: for every symmetric model at two sizes, its
//! first assertion with `:[symmetry reduce]` checked unreduced (within
//! a time-out) and reduced: states and representatives, times, the
//! reduction factor and the speed-up. Reports, never fails.
//!
//! `cargo bench --bench symmetry`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use symcsp::check::{self, CheckResult};
use symcsp::lts::machine::{Machine, Moves};
use symcsp::lts::search::Budget;
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::spec::Reduce;
use symcsp::symmetry::{Origin, Symmetry, SystemSymmetry};

/// Counts every allocation, to show the algorithm makes none per state.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// States sampled per model.
const SAMPLE: usize = 20_000;
/// Steps per random walk.
const WALK: usize = 80;

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models");

/// ListStack with `nodes` nodes, `data` values and `threads` threads.
fn liststack(nodes: usize, data: usize, threads: usize) -> String {
    let text = std::fs::read_to_string(format!("{MODELS}/liststack.csp")).expect("the model");
    let names = |prefix: &str, n: usize| {
        (0..n)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let data_names: Vec<String> = (0..data)
        .map(|i| char::from(b'A' + i as u8).to_string())
        .collect();
    text.replace(
        "datatype NodeIDType = Null | N0 | N1 | N2",
        &format!("datatype NodeIDType = Null | {}", names("N", nodes)),
    )
    .replace(
        "datatype Data = A | B",
        &format!("datatype Data = {}", data_names.join(" | ")),
    )
    .replace(
        "datatype ThreadID = T0 | T1",
        &format!("datatype ThreadID = {}", names("T", threads)),
    )
}

struct Row {
    name: String,
    states: usize,
    components: usize,
    median_ns: f64,
    p99_ns: f64,
    mean_ns: f64,
    allocations_per_state: f64,
}

fn measure(name: &str, text: &str, process: &str, types: &[&str]) -> Row {
    let mut script = Script::load_str("bench.csp", text).expect("the model loads");
    let root = script.add_expr("<process>", process).expect("resolves");
    let items: Vec<_> = types
        .iter()
        .map(|t| script.add_expr("<type>", t).expect("resolves"))
        .collect();
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, start) = Processes::with_root(script, root).expect("a process");
        let symmetry = Symmetry::explicit(
            script,
            procs.evaluator(),
            &items,
            Origin::CommandLine,
            &[root],
        )
        .expect("symmetric");
        let mut machine = Machine::new(&mut procs, start).expect("the machine compiles");
        let mut system =
            SystemSymmetry::new(Arc::new(symmetry), &mut machine, &mut procs).expect("mappable");
        let states = sample(&mut procs, &mut machine);
        let n = machine.components();
        let mut out = vec![0; n];
        // Warm-up: every label, shape and permuted state met once.
        for row in &states {
            system.representative(&mut machine, &mut procs, row, &mut out, None);
        }
        let mut times = Vec::with_capacity(states.len());
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for row in &states {
            let started = Instant::now();
            system.representative(&mut machine, &mut procs, row, &mut out, None);
            times.push(started.elapsed().as_nanos() as f64);
        }
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        // The times' own vector was allocated before the pass.
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        times.sort_by(f64::total_cmp);
        Row {
            name: name.to_string(),
            states: states.len(),
            components: n,
            median_ns: times[times.len() / 2],
            p99_ns: times[times.len() * 99 / 100],
            mean_ns: mean,
            allocations_per_state: allocations as f64 / states.len() as f64,
        }
    })
}

/// Distinct states met by random walks from the initial state.
fn sample(procs: &mut Processes, machine: &mut Machine) -> Vec<Vec<u32>> {
    let mut rng = fastrand::Rng::with_seed(2019);
    let mut seen = std::collections::HashSet::new();
    let mut states = Vec::new();
    let mut moves = Moves::default();
    let mut next = Vec::new();
    let mut attempts = 0;
    while states.len() < SAMPLE && attempts < SAMPLE * 4 {
        attempts += 1;
        let mut row = machine.initial().to_vec();
        for _ in 0..WALK {
            if seen.insert(row.clone()) {
                states.push(row.clone());
            }
            machine.moves(procs, &row, &mut moves).expect("moves");
            if moves.list.is_empty() {
                break;
            }
            let m = moves.list[rng.usize(..moves.list.len())];
            moves.apply(&m, &row, &mut next);
            std::mem::swap(&mut row, &mut next);
        }
    }
    states
}

fn main() {
    let read = |file: &str| std::fs::read_to_string(format!("{MODELS}/{file}")).expect("a model");
    let list_types: &[&str] = &["NodeID", "Data", "ThreadID"];
    let cases: Vec<(String, String, &str, &[&str])> = vec![
        (
            "ListStack (6, 4, 3)".into(),
            liststack(6, 4, 3),
            "System",
            list_types,
        ),
        (
            "ListStack (8, 4, 2)".into(),
            liststack(8, 4, 2),
            "System",
            list_types,
        ),
        (
            "ListStack (12, 4, 2)".into(),
            liststack(12, 4, 2),
            "System",
            list_types,
        ),
        (
            "philosophers".into(),
            read("philosophers.csp"),
            "System",
            &["Id"],
        ),
        (
            "peterson".into(),
            read("peterson.csp"),
            "System",
            &["ProcID"],
        ),
        (
            "treebroadcast".into(),
            read("treebroadcast.csp"),
            "System",
            &["NodeID", "Data"],
        ),
        (
            "ring".into(),
            read("ring.csp"),
            "System",
            &["NodeID", "Data"],
        ),
        (
            "scheduler".into(),
            read("scheduler.csp"),
            "Scheduled",
            &["ClientID"],
        ),
        (
            "lockfreequeue".into(),
            read("lockfreequeue.csp"),
            "System",
            &["NodeID", "ThreadID", "Data"],
        ),
    ];
    println!(
        "{:<22} {:>8} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "model", "states", "components", "median", "p99", "mean", "allocs/state"
    );
    for (name, text, process, types) in &cases {
        let row = measure(name, text, process, types);
        println!(
            "{:<22} {:>8} {:>10} {:>7.0} ns {:>7.0} ns {:>7.0} ns {:>12.2}",
            row.name,
            row.states,
            row.components,
            row.median_ns,
            row.p99_ns,
            row.mean_ns,
            row.allocations_per_state
        );
    }
    println!();
    reduced_checks(&read);
}

/// The unreduced check's time-out: the larger sizes outgrow it.
const UNREDUCED_TIMEOUT: u64 = 120;

/// Each symmetric model at its own size and a larger one (the larger
/// made by renaming its parameters' declarations).
fn reduced_checks(read: &dyn Fn(&str) -> String) {
    let larger = |file: &str, edits: &[(&str, &str)]| {
        edits
            .iter()
            .fold(read(file), |text, (from, to)| text.replace(from, to))
    };
    let cases: Vec<(&str, String)> = vec![
        ("buffers, T = 2", read("buffers.csp")),
        (
            "buffers, T = 4",
            larger(
                "buffers.csp",
                &[("datatype T = A | B", "datatype T = A | B | C | D")],
            ),
        ),
        ("database, 3 managers", read("database.csp")),
        (
            "database, 5 managers",
            larger(
                "database.csp",
                &[("= M0 | M1 | M2", "= M0 | M1 | M2 | M3 | M4")],
            ),
        ),
        ("liststack (3, 2, 2)", liststack(3, 2, 2)),
        ("liststack (5, 3, 3)", liststack(5, 3, 3)),
        ("lockfreequeue (3, 2, 2)", read("lockfreequeue.csp")),
        (
            "lockfreequeue (3, 2, 3)",
            larger(
                "lockfreequeue.csp",
                &[("datatype Data = A | B", "datatype Data = A | B | C")],
            ),
        ),
        ("peterson, 3", read("peterson.csp")),
        (
            "peterson, 4",
            larger("peterson.csp", &[("= P0 | P1 | P2", "= P0 | P1 | P2 | P3")]),
        ),
        ("philosophers, 3", read("philosophers.csp")),
        (
            "philosophers, 5",
            larger(
                "philosophers.csp",
                &[
                    ("N = 3", "N = 5"),
                    ("= P0 | P1 | P2", "= P0 | P1 | P2 | P3 | P4"),
                ],
            ),
        ),
        ("ring, 4 nodes", read("ring.csp")),
        (
            "ring, 5 nodes",
            larger(
                "ring.csp",
                &[("= N0 | N1 | N2 | N3", "= N0 | N1 | N2 | N3 | N4")],
            ),
        ),
        ("scheduler, 3 clients", read("scheduler.csp")),
        (
            "scheduler, 5 clients",
            larger(
                "scheduler.csp",
                &[("= C0 | C1 | C2", "= C0 | C1 | C2 | C3 | C4")],
            ),
        ),
        ("treebroadcast, 3 nodes", read("treebroadcast.csp")),
        (
            "treebroadcast, 4 nodes",
            larger(
                "treebroadcast.csp",
                &[("= N0 | N1 | N2", "= N0 | N1 | N2 | N3")],
            ),
        ),
    ];
    println!(
        "{:<26} {:>11} {:>9} {:>9} {:>9} {:>9} {:>8} {:>12}",
        "reduced check", "states", "time", "reps", "time", "factor", "speed-up", "µs per rep"
    );
    for (name, text) in &cases {
        let script = Script::load_str(name, text).expect("the model loads");
        let Some(index) = script
            .assertions
            .iter()
            .position(|a| Reduce::of_assertion(a) != Reduce::Off)
        else {
            continue;
        };
        let run = |reduce: &Reduce, timeout: Option<u64>| -> CheckResult {
            let budget = Budget {
                threads: 1,
                timeout: timeout.map(std::time::Duration::from_secs),
                ..Budget::default()
            };
            symcsp::stack::with_large_stack(|| {
                check::check_reduced(&script, index, &budget, Some(reduce))
            })
            .expect("the check runs")
        };
        let reduced = run(&Reduce::of_assertion(&script.assertions[index]), None);
        let plain = run(&Reduce::Off, Some(UNREDUCED_TIMEOUT));
        let complete = matches!(
            plain.verdict,
            check::Verdict::Passed | check::Verdict::Failed
        );
        let (states, time, factor, speed_up) = if complete {
            (
                plain.states.to_string(),
                format!("{:.2} s", plain.seconds),
                format!("{:.1}", plain.states as f64 / reduced.states as f64),
                format!("{:.1}x", plain.seconds / reduced.seconds.max(1e-6)),
            )
        } else {
            (
                format!("> {}", plain.states),
                format!("> {UNREDUCED_TIMEOUT} s"),
                format!("> {:.0}", plain.states as f64 / reduced.states as f64),
                format!("> {:.0}x", plain.seconds / reduced.seconds.max(1e-6)),
            )
        };
        println!(
            "{name:<26} {states:>11} {time:>9} {:>9} {:>7.3} s {factor:>9} {speed_up:>8} {:>12.1}",
            reduced.states,
            reduced.seconds,
            reduced.seconds * 1e6 / reduced.states as f64
        );
    }
}

//! Representative time per state: the median and the 99th percentile of
//! the representative algorithm (component ordering, permutation, and the
//! permuted state) on states met by random walks through each symmetric
//! model, measured after a warm-up pass over the same states, with the
//! heap allocations of the measured pass counted. ListStack at the
//! paper's (6 nodes, 4 data, 3 threads) and larger; the other models of
//! `models/` at their own sizes. One thread. Reports, never fails.
//!
//! `cargo bench --bench symmetry`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use symcsp::lts::machine::{Machine, Moves};
use symcsp::process::Processes;
use symcsp::script::Script;
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
        let mut machine = Machine::new(&mut procs, start);
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
}

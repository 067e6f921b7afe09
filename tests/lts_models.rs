//! The state spaces of the shipped models: exact counts of states,
//! distinct transitions and deadlock states, each computed by both the
//! supercombinator and the plain term semantics, which must agree.

use symcsp::lts::{self, Budget, Exploration};
use symcsp::process::Processes;
use symcsp::script::Script;

fn both_paths(model: &str, process: &str) -> Exploration {
    let mut script = Script::load_file(std::path::Path::new(&format!("models/{model}.csp")))
        .unwrap_or_else(|e| panic!("{model} loads: {}", e.render()));
    let func = script.add_expr("<process>", process).expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let budget = Budget::default();
        let fast = lts::explore(&mut procs, root, &budget).expect("explores");
        let plain = lts::plain::explore_terms(&mut procs, root, &budget).expect("explores");
        assert!(fast.complete && plain.complete);
        assert_eq!(
            (fast.states, fast.transitions, fast.deadlock_states),
            (plain.states, plain.transitions, plain.deadlock_states),
            "{model}: {process}: the supercombinator and the plain semantics disagree"
        );
        fast
    })
}

fn counts(model: &str, process: &str) -> (u64, u64, u64, usize) {
    let x = both_paths(model, process);
    (x.states, x.transitions, x.deadlock_states, x.components)
}

#[test]
fn buffers() {
    assert_eq!(counts("buffers", "System"), (9, 14, 0, 2));
}

#[test]
fn database() {
    assert_eq!(counts("database", "System"), (28, 36, 0, 4));
}

#[test]
fn liststack() {
    // Deadlocks: a push with every node in use waits for a free node
    // while holding the lock.
    assert_eq!(counts("liststack", "System"), (1867, 2102, 192, 7));
}

#[test]
fn peterson() {
    assert_eq!(counts("peterson", "System"), (620, 1398, 0, 4));
}

#[test]
fn philosophers() {
    assert_eq!(counts("philosophers", "System"), (1420, 3672, 0, 10));
    assert_eq!(counts("philosophers", "Unguarded"), (2086, 5814, 6, 9));
}

#[test]
fn ring() {
    assert_eq!(counts("ring", "System"), (2937, 7056, 0, 5));
}

#[test]
fn treebroadcast() {
    assert_eq!(counts("treebroadcast", "System"), (3269, 7966, 0, 5));
}

#[test]
fn lockfreequeue() {
    // Deadlocks: the queue full and every thread waiting for a free node.
    assert_eq!(counts("lockfreequeue", "System"), (123649, 245478, 960, 7));
}

#[test]
fn scheduler() {
    assert_eq!(counts("scheduler", "Scheduled"), (183, 333, 0, 5));
    assert_eq!(counts("scheduler", "SpinLock"), (44, 123, 0, 4));
}

#[test]
fn tokenring() {
    assert_eq!(counts("tokenring", "System"), (96, 272, 0, 4));
}

#[test]
fn a_component_on_its_own() {
    // Eight node states (datum × next) and the free node.
    assert_eq!(counts("liststack", "Node(N0, A, Null)"), (9, 64, 0, 1));
    assert_eq!(counts("philosophers", "Fork(0)"), (10, 18, 0, 1));
}

#[test]
fn every_thread_count_finds_the_same_state_space() {
    let mut script = Script::load_file(std::path::Path::new("models/ring.csp")).expect("loads");
    let func = script.add_expr("<process>", "System").expect("resolves");
    let script = &script;
    let explore_with = |threads: usize| {
        symcsp::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(script, func).expect("a process");
            let budget = Budget {
                threads,
                ..Budget::default()
            };
            let x = lts::explore(&mut procs, root, &budget).expect("explores");
            (x.states, x.transitions, x.deadlock_states)
        })
    };
    assert_eq!(explore_with(1), (2937, 7056, 0));
    assert_eq!(explore_with(2), explore_with(1));
    assert_eq!(explore_with(3), explore_with(1));
}

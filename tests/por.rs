//! Partial order reduction (issue 63): every verdict with the reduction
//! is the verdict without, on the shipped models, the fixtures and random
//! networks, reduced by symmetry or not; every counterexample found
//! reduced is followed step by step by the unreduced animator, and ends
//! where its kind says; the ignoring problem's fixtures are caught, and a
//! reduction without the cycle condition misses them; the dining
//! philosophers' deadlock is found among a tenth of the states.

mod random_networks;

use std::collections::BTreeSet;

use proptest::prelude::*;
use symcsp::check::counterexample::{Counterexample, Kind};
use symcsp::check::{Asked, CheckResult, Verdict, check_with};
use symcsp::lts::animator::Animator;
use symcsp::lts::machine::{Machine, Moves, Preserve};
use symcsp::lts::search::Budget;
use symcsp::process::{EventId, Processes, TAU};
use symcsp::script::Script;
use symcsp::script::ir::AssertionKind;
use symcsp::symmetry::spec::Reduce;
use symcsp::symmetry::strategy::Strategy as Representatives;

/// Assertion `index` checked with partial order reduction or without,
/// reduced by symmetry as it asks or (`unreduced`) not at all; an error
/// rendered.
fn tried(script: &Script, index: usize, por: bool, unreduced: bool) -> Result<CheckResult, String> {
    let asked = Asked {
        symmetry: unreduced.then_some(Reduce::Off),
        strategy: Representatives::Fdr,
        por: Some(por),
    };
    symcsp::stack::with_large_stack(|| check_with(script, index, &Budget::default(), &asked))
        .map_err(|d| d.render(&script.sources))
}

/// [`tried`], which must not err.
fn checked(script: &Script, index: usize, por: bool, unreduced: bool) -> CheckResult {
    tried(script, index, por, unreduced).unwrap_or_else(|e| panic!("{e}"))
}

/// The verdict's word, whatever stopped an inconclusive check.
fn word(result: &CheckResult) -> &'static str {
    result.verdict.word()
}

/// Follows `cx`, found for assertion `index`, in an animator of its
/// implementation (which knows nothing of the reduction), and checks
/// that it ends as its kind says.
fn replayed(script: &Script, index: usize, cx: &Counterexample, at: &str) {
    symcsp::stack::with_large_stack(|| {
        let imp = script.assertions[index].kind.implementation();
        let mut animator = Animator::load(script, imp).expect("the implementation evaluates");
        let taken = animator
            .follow(cx.path())
            .unwrap_or_else(|e| panic!("{at}: the unreduced system cannot follow {e:?}"));
        assert_eq!(taken.len(), cx.steps.len(), "{at}");
        let mut states = vec![animator.initial()];
        states.extend(taken.iter().map(|(_, e)| e.target.clone()));
        let last = states.last().expect("a state");
        match cx.kind {
            Kind::Deadlock => {
                let enabled = animator.enabled(last).expect("moves");
                assert!(enabled.is_empty(), "{at}: the last state moves");
            }
            Kind::Divergence => {
                let from = cx.loop_from.expect("a divergence has a loop");
                assert_eq!(&states[from], last, "{at}: the loop does not close");
                assert!(
                    cx.steps[from..].iter().all(|s| s.event == TAU),
                    "{at}: the loop is not all τ"
                );
            }
            _ => {}
        }
    });
}

/// Every assertion of `script` answers alike with and without partial
/// order reduction, as it asks for symmetry and unreduced; each failure
/// found reduced is followed by the unreduced system. How many
/// assertions were compared.
fn alike(script: &Script, name: &str) -> usize {
    let mut compared = 0;
    for index in 0..script.assertions.len() {
        if matches!(
            script.assertions[index].kind,
            AssertionKind::Symmetric { .. }
        ) {
            continue;
        }
        for unreduced in [false, true] {
            let at = format!("{name} assertion {} (unreduced: {unreduced})", index + 1);
            // An evaluation error in a state the reduced search need not
            // reach is met by the whole search only.
            let Ok(whole) = tried(script, index, false, unreduced) else {
                continue;
            };
            let reduced = checked(script, index, true, unreduced);
            assert_eq!(word(&reduced), word(&whole), "{at}");
            // A complete search of the reduced graph meets a subset of
            // the states (representatives need not be canonical, and a
            // search that stops early stops where its order takes it).
            let complete = whole.verdict == Verdict::Passed
                && !matches!(
                    script.assertions[index].kind,
                    AssertionKind::HasTrace { .. }
                );
            assert!(
                reduced.states <= whole.states || !complete || !unreduced,
                "{at}: {} states reduced, {} whole",
                reduced.states,
                whole.states
            );
            assert!(
                reduced
                    .notes
                    .iter()
                    .any(|n| n.starts_with("partial order reduction:")),
                "{at}: {:?}",
                reduced.notes
            );
            if let Some(cx) = &reduced.counterexample {
                replayed(script, index, cx, &at);
            }
            compared += 1;
        }
    }
    compared
}

fn load(path: &str) -> Script {
    Script::load_file(path.as_ref()).unwrap_or_else(|e| panic!("{path}: {}", e.render()))
}

#[test]
fn every_shipped_model_answers_alike_with_partial_order_reduction() {
    let mut compared = 0;
    for entry in std::fs::read_dir("models").expect("the models") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "csp") {
            let name = path.display().to_string();
            compared += alike(&load(&name), &name);
        }
    }
    assert!(compared >= 80, "{compared} checks compared");
}

#[test]
fn every_check_fixture_answers_alike_with_partial_order_reduction() {
    let mut compared = 0;
    for dir in ["tests/fixtures/check", "tests/fixtures/por"] {
        for entry in std::fs::read_dir(dir).expect("the fixtures") {
            let path = entry.expect("an entry").path().display().to_string();
            compared += alike(&load(&path), &path);
        }
    }
    assert!(compared >= 30, "{compared} checks compared");
}

/// What a search of assertion `index`'s implementation reduced by
/// partial order (keeping `preserve`) meets: the visible events it
/// performs, and the states it reaches and how many of them have no
/// move. `weaken` takes a condition off the reduction first, to show
/// what goes wrong without it.
fn reduced_graph(
    script: &Script,
    index: usize,
    preserve: Preserve,
    weaken: fn(&mut Machine),
) -> (BTreeSet<EventId>, usize, usize) {
    symcsp::stack::with_large_stack(|| {
        let func = script.assertions[index].kind.implementation();
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("compiles");
        let note = machine
            .reduce_partial_order(&mut procs, preserve)
            .expect("reduces");
        assert!(note.contains("applied"), "{note}");
        weaken(&mut machine);
        let mut seen = BTreeSet::from([machine.initial().to_vec()]);
        let mut todo = vec![machine.initial().to_vec()];
        let (mut events, mut dead_ends) = (BTreeSet::new(), 0);
        let (mut moves, mut next) = (Moves::default(), Vec::new());
        while let Some(state) = todo.pop() {
            machine
                .moves(&mut procs, &state, &mut moves)
                .expect("moves");
            dead_ends += usize::from(moves.list.is_empty());
            for m in &moves.list {
                if m.event != TAU {
                    events.insert(m.event);
                }
                moves.apply(m, &state, &mut next);
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        (events, seen.len(), dead_ends)
    })
}

#[test]
fn a_loop_of_hidden_events_cannot_starve_the_other_components() {
    let script = load("tests/fixtures/por/ignoring.csp");
    for (index, expected) in [(0, "Failed"), (1, "Failed"), (2, "Passed"), (3, "Failed")] {
        let result = checked(&script, index, true, true);
        assert_eq!(word(&result), expected, "assertion {}", index + 1);
    }
    // Without the cycle condition the reduction goes round the loop and
    // never lets the error happen: the fixtures need the condition.
    for index in [0, 1, 3] {
        let (kept, ..) = reduced_graph(&script, index, Preserve::Behaviour, |_| {});
        let (starved, ..) =
            reduced_graph(&script, index, Preserve::Behaviour, Machine::ignore_cycles);
        assert!(
            starved.len() < kept.len(),
            "assertion {}: {starved:?} against {kept:?}",
            index + 1
        );
    }
}

#[test]
fn reads_commute_with_each_other_and_not_with_the_write_they_read() {
    let script = load("tests/fixtures/por/reads.csp");
    for (index, expected) in [(0, "Failed"), (1, "Failed"), (2, "Passed"), (3, "Passed")] {
        let result = checked(&script, index, true, true);
        assert_eq!(word(&result), expected, "assertion {}", index + 1);
    }
    let whole = checked(&script, 2, false, true).states;
    // Every state has its own moves; the pollers' reads after the write
    // (and their pings beside them) are followed one poller at a time.
    let (_, states, dead_ends) = reduced_graph(&script, 0, Preserve::Deadlocks, |_| {});
    assert_eq!(dead_ends, 1, "the deadlock where every poller has read 1");
    assert!(
        states * 2 <= whole as usize,
        "{states} reduced, {whole} whole"
    );
    // Judging a read independent of the write after it loses a
    // deadlock: the reduced search reads 0 round its loop for ever.
    assert_eq!(word(&checked(&script, 4, true, true)), "Failed");
    let (_, _, found) = reduced_graph(&script, 4, Preserve::Deadlocks, |_| {});
    assert_eq!(found, 1, "the spinner stuck after the write");
    let (_, states, lost) =
        reduced_graph(&script, 4, Preserve::Deadlocks, Machine::leave_readers_out);
    assert_eq!((states, lost), (1, 0));
}

#[test]
fn events_a_traces_specification_ignores_count_as_tau() {
    let script = load("tests/fixtures/por/ignored.csp");
    let whole = checked(&script, 0, false, true);
    let reduced = checked(&script, 0, true, true);
    assert_eq!((word(&whole), word(&reduced)), ("Passed", "Passed"));
    // Four workers' three steps each interleave freely: 4^4 states whole.
    assert_eq!(whole.states, 625);
    assert!(reduced.states * 10 <= whole.states, "{}", reduced.states);
    let said = |result: &CheckResult| result.notes.join("\n");
    assert!(
        said(&reduced).contains(
            "partial order reduction: applied (traces kept; the specification ignores 12 \
             events, allowed everywhere and leaving it as it is, so they count as τ: work.0.1, \
             work.0.2, work.0.3, work.1.1, work.1.2, work.1.3, …)"
        ),
        "{}",
        said(&reduced)
    );
    // Another worker done first is still found, on a path of the system.
    let failed = checked(&script, 1, true, true);
    assert_eq!(word(&failed), "Failed");
    let cx = failed.counterexample.as_ref().expect("a counterexample");
    replayed(&script, 1, cx, "FirstZero");
    // In failures a stable state's refusals count: nothing is ignored.
    let failures = checked(&script, 2, true, true);
    assert_eq!(word(&failures), "Failed");
    assert!(!said(&failures).contains("ignores"), "{}", said(&failures));
}

/// The dining philosophers without a butler, `n` of them.
fn table(n: usize) -> Script {
    let text = std::fs::read_to_string("models/forks.csp").expect("the model");
    let text = text.replace("N = 5\n", &format!("N = {n}\n"));
    Script::load_str("forks.csp", &text).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn the_philosophers_deadlock_is_found_among_a_tenth_of_the_states() {
    let script = table(8);
    let whole = checked(&script, 0, false, true);
    let reduced = checked(&script, 1, true, true);
    assert_eq!(whole.verdict, Verdict::Failed);
    assert_eq!(reduced.verdict, Verdict::Failed);
    assert!(
        reduced.states * 10 <= whole.states,
        "{} states reduced, {} whole",
        reduced.states,
        whole.states
    );
    let cx = reduced.counterexample.as_ref().expect("a counterexample");
    assert_eq!(cx.kind, Kind::Deadlock);
    // Every philosopher holds his left fork.
    assert_eq!(cx.trace().len(), 8);
    replayed(&script, 1, cx, "the table of 8");
}

#[test]
fn explore_keeps_every_deadlock_and_says_it_reduced() {
    let script = table(6);
    let func = script.assertions[0].kind.implementation();
    let explored = |por: bool| {
        symcsp::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let mut machine = Machine::new(&mut procs, root).expect("compiles");
            if por {
                machine
                    .reduce_partial_order(&mut procs, Preserve::Deadlocks)
                    .expect("reduces");
            }
            symcsp::lts::explore_machine(&mut procs, machine, &Budget::default(), None)
                .expect("explores")
        })
    };
    let (whole, reduced) = (explored(false), explored(true));
    assert_eq!(reduced.deadlock_states, whole.deadlock_states);
    assert_eq!(whole.deadlock_states, 1);
    assert!(reduced.states * 10 <= whole.states, "{reduced:?} {whole:?}");
}

#[test]
fn priority_and_unknown_modes_are_said_in_notes() {
    let text = "external prioritise\n\
                channel a, b\n\
                P = a -> P\n\
                Q = b -> Q\n\
                R = P ||| Q\n\
                assert R :[deadlock free] :[partial order reduce [fast]]\n\
                assert prioritise(R, <{a}>) :[deadlock free] :[partial order reduce]\n\
                assert R :[deadlock free] :[tau priority over]: {a} :[partial order reduce]\n";
    let script = Script::load_str("notes.csp", text).expect("loads");
    let notes = |index| checked(&script, index, true, true).notes.join("\n");
    assert!(
        notes(0).contains("the mode `fast` is accepted"),
        "{}",
        notes(0)
    );
    assert!(notes(0).contains("applied"), "{}", notes(0));
    assert!(notes(1).contains("not applied"), "{}", notes(1));
    assert!(notes(1).contains("prioritise"), "{}", notes(1));
    assert!(notes(2).contains("not applied"), "{}", notes(2));
    assert!(notes(2).contains("tau priority"), "{}", notes(2));
}

/// A random network of rings with its own assertions, and more: hidden,
/// renamed, in every model, a trace it has or not.
fn richer_network() -> impl Strategy<Value = String> {
    random_networks::network().prop_map(|text| {
        text + "Renamed = Hidden [[ e.0 <- e.1, e.1 <- e.0, e.2 <- e.3 ]]\n\
                Again = Renamed \\ {e.1}\n\
                assert Hidden :[deadlock free [F]]\n\
                assert Hidden :[deadlock free]\n\
                assert Spec [T= Hidden\n\
                assert Spec [F= Renamed\n\
                assert CHAOS({| e |}) [FD= Again\n\
                assert Again :[divergence free]\n\
                assert Renamed :[has trace]: <e.0, e.1>\n\
                assert Again :[deterministic]\n"
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random networks answer alike with and without the reduction, and
    /// their counterexamples found reduced are the system's own.
    #[test]
    fn random_networks_answer_alike_with_partial_order_reduction(text in richer_network()) {
        let script = Script::load_str("network.csp", &text)
            .unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
        alike(&script, &text);
    }
}

/// `symcsp ARGS`: its exit code and standard output.
fn symcsp(args: &[&str]) -> (i32, String) {
    let output = assert_cmd::Command::cargo_bin("symcsp")
        .expect("the binary is built")
        .args(args)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    (output.status.code().unwrap_or(-1), text)
}

#[test]
fn the_command_line_reduces_where_asked_and_says_so() {
    // explore --por: fewer states, the deadlock kept, a note.
    let (code, whole) = symcsp(&["explore", "models/forks.csp", "Table"]);
    assert_eq!(code, 0, "{whole}");
    let (code, reduced) = symcsp(&["explore", "models/forks.csp", "Table", "--por"]);
    assert_eq!(code, 0, "{reduced}");
    assert!(whole.contains("states             572\n"), "{whole}");
    assert!(reduced.contains("deadlock states    1\n"), "{reduced}");
    assert!(
        reduced.contains("note               partial order reduction: applied (deadlocks"),
        "{reduced}"
    );
    // check --por off searches whole what asks to be reduced; --por on
    // reduces what does not ask.
    let (code, off) = symcsp(&["check", "models/forks.csp", "--assert", "2", "--por", "off"]);
    assert_eq!(code, 1, "{off}");
    assert!(off.contains("Failed — 152 states"), "{off}");
    assert!(!off.contains("partial order reduction: applied"), "{off}");
    let (code, on) = symcsp(&["check", "models/forks.csp", "--assert", "1", "--por"]);
    assert_eq!(code, 1, "{on}");
    assert!(on.contains("Failed — 67 states"), "{on}");
    // On workers: the one search's reduced graph, between them.
    let (code, workers) = symcsp(&[
        "check",
        "models/forks.csp",
        "--assert",
        "2",
        "--assert",
        "4",
        "--workers",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{workers}");
    let report: serde_json::Value = serde_json::from_str(&workers).expect("JSON");
    let states: Vec<u64> = report["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| a["states"].as_u64().expect("states"))
        .collect();
    assert_eq!(states[1], 2666, "{workers}");
    // compare --por: a row of each, and the verdicts agree.
    let (code, table) = symcsp(&[
        "compare",
        "models/philosophers.csp",
        "--assert",
        "4",
        "--strategies",
        "fdr",
        "--por",
    ]);
    assert_eq!(code, 0, "{table}");
    for row in ["por ", "fdr ", "por+fdr "] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(row) && l.contains("Failed")),
            "{row}: {table}"
        );
    }
}

#[test]
fn a_component_bounded_only_by_its_context_leaves_the_search_whole() {
    let text = "channel up, down, tick\n\
                COUNT(n) = up -> COUNT(n + 1) [] n > 0 & down -> COUNT(n - 1)\n\
                LIMIT(k) = k < 3 & up -> LIMIT(k + 1) [] k > 0 & down -> LIMIT(k - 1)\n\
                T = tick -> T\n\
                System = (COUNT(0) [| {up, down} |] LIMIT(0)) ||| T\n\
                assert System :[deadlock free] :[partial order reduce]\n";
    let script = Script::load_str("counter.csp", text).expect("loads");
    let result = checked(&script, 0, true, true);
    assert_eq!(result.verdict, Verdict::Passed);
    assert_eq!(result.states, 4);
    let notes = result.notes.join("\n");
    assert!(
        notes.contains("not applied") && notes.contains("component 1 (`COUNT(0)`)"),
        "{notes}"
    );
}

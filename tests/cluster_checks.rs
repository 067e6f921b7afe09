//! Issue 53, items 2 and 3: deadlock and divergence freedom checked by
//! the cluster's workers give the one search's verdicts, state counts
//! and counterexample lengths, reduced and unreduced; the counterexample
//! is read back from the workers that own its states and made genuine on
//! worker 0, as the one search's are.

mod shipped;

use std::sync::Arc;
use std::time::Duration;

use symcsp::check::{CheckResult, Verdict};
use symcsp::cluster::judge::assertion_goal;
use symcsp::cluster::{ClusterCheck, Job, Topology};
use symcsp::lts::Budget;

/// Assertion `index` of `file` checked on `workers` threads, expanding
/// at most `round_states` a round.
fn on_workers(
    file: &str,
    index: usize,
    workers: usize,
    round_states: usize,
) -> (ClusterCheck, u64) {
    let loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let job = Job {
        file: file.into(),
        prepare: Arc::new(move |loaded: &mut symcsp::types::Loaded| {
            assertion_goal(&loaded.script, index, None).map_err(str::to_string)
        }),
        strategy: Default::default(),
        budget: Budget::default(),
        options: String::new(),
        connect_wait: Duration::from_secs(5),
        script: symcsp::cluster::script_hash(&loaded.script),
        round_states,
    };
    let found = symcsp::cluster::explore(&job, &Topology::local(workers)).expect("checks");
    (found.check.expect("a check"), found.exploration.states)
}

/// The one search's answer to assertion `index` of `file`.
fn in_one_search(file: &str, index: usize) -> CheckResult {
    let loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    symcsp::stack::with_large_stack(|| {
        symcsp::check::check(&loaded.script, index, &Budget::default()).expect("checks")
    })
}

/// Every assertion of `file` that workers check agrees with the one
/// search; how many there were.
fn checks_alike(file: &str) -> usize {
    let loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let mut compared = 0;
    for index in 0..loaded.script.assertions.len() {
        if assertion_goal(&loaded.script, index, None).is_err() {
            continue;
        }
        let negated = loaded.script.assertions[index].negated;
        let one = in_one_search(file, index);
        let property_holds = match one.verdict {
            Verdict::Passed => !negated,
            Verdict::Failed => negated,
            Verdict::Inconclusive(_) => panic!("{file} #{index}: inconclusive"),
        };
        for (workers, round_states) in [(3, 7), (2, 1 << 16)] {
            let (check, states) = on_workers(file, index, workers, round_states);
            let at = format!("{file} assertion {} on {workers} workers", index + 1);
            assert_eq!(check.holds, Some(property_holds), "{at}");
            if property_holds {
                assert_eq!(states, one.states, "{at}: states");
                assert!(check.counterexample.is_none(), "{at}");
                continue;
            }
            let mine = check
                .counterexample
                .expect("worker 0 has the counterexample");
            let theirs = if negated {
                None
            } else {
                one.counterexample.as_ref()
            };
            if let Some(theirs) = theirs {
                assert_eq!(mine.steps.len(), theirs.steps.len(), "{at}: path length");
                assert_eq!(mine.kind, theirs.kind, "{at}: kind");
            }
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_model_s_deadlock_and_divergence_checks_agree_on_workers() {
    let mut compared = 0;
    for model in shipped::models() {
        compared += checks_alike(&format!("models/{model}.csp"));
    }
    assert!(compared >= 10, "{compared} assertions compared");
}

#[test]
fn breaches_are_found_at_the_one_search_s_depth_and_read_back_from_the_workers() {
    assert_eq!(checks_alike("tests/fixtures/cluster/checks.csp"), 14);
}

/// `symcsp ARGS --format json`'s assertions.
fn assertions_of(args: &[&str]) -> Vec<serde_json::Value> {
    let output = assert_cmd::Command::cargo_bin("symcsp")
        .expect("the binary is built")
        .args(args)
        .args(["--format", "json"])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {text}{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    report["assertions"].as_array().expect("assertions").clone()
}

#[test]
fn check_on_workers_and_on_processes_answers_as_one_search() {
    let file = "tests/fixtures/cluster/checks.csp";
    let one = assertions_of(&["check", file]);
    for args in [
        vec!["check", file, "--workers", "3"],
        vec!["cluster", "--local", "2", "check", file],
        vec!["cluster", "--local", "3", "check", file, "--workers", "2"],
    ] {
        let many = assertions_of(&args);
        assert_eq!(many.len(), one.len(), "{args:?}");
        for (theirs, mine) in one.iter().zip(&many) {
            let at = format!("{args:?}: assertion {}", theirs["index"]);
            assert_eq!(mine["result"], theirs["result"], "{at}");
            assert_eq!(mine["symmetry"], theirs["symmetry"], "{at}");
            if theirs["result"] == "passed" && theirs["counterexample"].is_null() {
                assert_eq!(mine["states"], theirs["states"], "{at}");
                assert_eq!(mine["transitions"], theirs["transitions"], "{at}");
            } else {
                let steps =
                    |v: &serde_json::Value| v["counterexample"]["steps"].as_array().map(Vec::len);
                assert_eq!(steps(mine), steps(theirs), "{at}: path length");
                assert_eq!(
                    mine["counterexample"]["kind"], theirs["counterexample"]["kind"],
                    "{at}"
                );
            }
            assert!(
                mine["notes"][0]
                    .as_str()
                    .is_some_and(|n| n.starts_with("checked on")),
                "{at}: {}",
                mine["notes"]
            );
        }
    }
}

#[test]
fn assertions_that_do_not_run_on_workers_are_named_with_the_reason() {
    let output = assert_cmd::Command::cargo_bin("symcsp")
        .expect("the binary is built")
        .args(["check", "models/buffers.csp", "--workers", "2"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("`--assert 7 --assert 8 --assert 9 --assert 10` picks those that do")
            && err.contains("assertion 1: only deadlock and divergence freedom"),
        "{err}"
    );
    // The static check and the deadlock checks run.
    let picked = assertions_of(&[
        "check",
        "models/buffers.csp",
        "--workers",
        "2",
        "--assert",
        "7",
        "--assert",
        "8",
        "--assert",
        "11",
    ]);
    let results: Vec<&str> = picked
        .iter()
        .map(|a| a["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["passed", "passed", "passed"]);
}

//! Issue 53, items 2 and 3: deadlock and divergence freedom checked by
//! the cluster's workers give the one search's verdicts, counts (a
//! failure's through its counterexample's level, issue 66) and
//! counterexample lengths, reduced and unreduced; the counterexample
//! is read back from the workers that own its states and made genuine on
//! worker 0, as the one search's are; and so for random networks.

mod on_workers;
mod random_networks;
mod shipped;

use std::time::Duration;

use proptest::prelude::*;

use symcsp::check::task::Task;
use symcsp::check::{Asked, CheckResult, Verdict};
use symcsp::cluster::ClusterCheck;
use symcsp::lts::Budget;
use symcsp::script::ir::AssertionKind;
use symcsp::symmetry::spec::Reduce;

/// Assertion `index` of `file` checked on `workers` threads, expanding
/// at most `round_states` a round, reduced as `asked` (`None`: as the
/// assertion says).
fn on_workers(
    (file, index, asked): (&str, usize, Option<Reduce>),
    workers: usize,
    round_states: usize,
) -> (ClusterCheck, (u64, u64, u32)) {
    let asking = on_workers::Asking {
        symmetry: asked.map(|reduce| symmetry_text(&reduce)),
        ..Default::default()
    };
    let found = on_workers::check(
        (file, index),
        &asking,
        Budget::default(),
        (workers, round_states),
    )
    .expect("plans")
    .expect("the workers search");
    let counted = &found.exploration;
    (
        found.check.expect("a check"),
        (counted.states, counted.transitions, counted.depth),
    )
}

/// `--symmetry`'s text for the reductions these tests ask for.
fn symmetry_text(reduce: &Reduce) -> String {
    match reduce {
        Reduce::Off => "off",
        Reduce::Automatic => "auto",
        Reduce::Structural => "structural",
        Reduce::Types(..) => panic!("these tests ask for types by name"),
    }
    .to_string()
}

/// The one search's answer to assertion `index` of `file`, reduced as
/// `asked`.
fn in_one_search(file: &str, index: usize, asked: Option<Reduce>) -> CheckResult {
    let loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let asked = Asked {
        symmetry: asked,
        ..Asked::default()
    };
    symcsp::stack::with_large_stack(|| {
        symcsp::check::check_with(&loaded.script, index, &Budget::default(), &asked)
            .expect("checks")
    })
}

/// Every assertion of `file` that workers check, reduced as `asked`,
/// agrees with the one search; how many there were.
fn checks_alike(file: &str, asked: Option<Reduce>) -> usize {
    let loaded = symcsp::types::load_file(std::path::Path::new(file)).expect("loads");
    let mut compared = 0;
    for index in 0..loaded.script.assertions.len() {
        if Task::of_assertion(&loaded.script, index, asked.as_ref()).is_none() {
            continue;
        }
        let negated = loaded.script.assertions[index].negated;
        let walks_trace = matches!(
            loaded.script.assertions[index].kind,
            AssertionKind::HasTrace { .. }
        );
        let one = in_one_search(file, index, asked.clone());
        let property_holds = match one.verdict {
            Verdict::Passed => !negated,
            Verdict::Failed => negated,
            Verdict::Inconclusive(_) => panic!("{file} #{index}: inconclusive"),
        };
        for (workers, round_states) in [(3, 7), (2, 1 << 16)] {
            let (check, counted) = on_workers((file, index, asked.clone()), workers, round_states);
            let at = format!("{file} assertion {} on {workers} workers", index + 1);
            assert_eq!(check.holds, Some(property_holds), "{at}");
            assert_eq!(
                counted,
                (one.states, one.transitions, one.depth),
                "{at}: states, transitions, depth"
            );
            // What a check shows is shown alike: a violation's path, or
            // `:[has trace]:`'s evidence where it decides the verdict.
            let mine =
                (check.counterexample).filter(|_| symcsp::check::shown(check.holds, negated));
            let theirs = one.counterexample.as_ref();
            assert_eq!(mine.is_some(), theirs.is_some(), "{at}: shown");
            if let (Some(mine), Some(theirs)) = (mine, theirs) {
                assert_eq!(mine.steps.len(), theirs.steps.len(), "{at}: path length");
                assert_eq!(mine.kind, theirs.kind, "{at}: kind");
                // `:[has trace]:`'s missing event follows from the longest
                // prefix performed, which any order finds.
                if walks_trace {
                    assert_eq!(mine.error_event, theirs.error_event, "{at}: error event");
                }
            }
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_model_s_checks_agree_on_workers_reduced_and_unreduced() {
    let (mut reduced, mut unreduced) = (0, 0);
    for model in shipped::models() {
        let file = format!("models/{model}.csp");
        reduced += checks_alike(&file, None);
        unreduced += checks_alike(&file, Some(Reduce::Off));
    }
    assert!(reduced >= 20, "{reduced} assertions compared as they ask");
    assert!(unreduced >= 40, "{unreduced} assertions compared unreduced");
}

#[test]
fn structurally_reduced_checks_of_every_kind_agree_on_workers() {
    // Refinements and determinism too: each worker cuts the group to
    // the specification's stabiliser, as one search does.
    let mut compared = 0;
    for model in shipped::models() {
        compared += checks_alike(&format!("models/{model}.csp"), Some(Reduce::Structural));
    }
    let file = "tests/fixtures/structural/checks.csp";
    compared += checks_alike(file, Some(Reduce::Structural));
    assert!(compared >= 60, "{compared} assertions compared");
    // The reports alike: the group, how it was found, the notes (why a
    // check is not reduced among them).
    let models = shipped::models()
        .into_iter()
        .map(|m| format!("models/{m}.csp"));
    for file in models.chain([file.to_string()]) {
        let loaded = symcsp::types::load_file(std::path::Path::new(&file)).expect("loads");
        let mut args = vec![
            "check".to_string(),
            file.clone(),
            "--symmetry".into(),
            "structural".into(),
        ];
        for i in 0..loaded.script.assertions.len() {
            if Task::of_assertion(&loaded.script, i, Some(&Reduce::Structural)).is_some() {
                args.extend(["--assert".to_string(), (i + 1).to_string()]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let one = assertions_of(&args);
        let many = assertions_of(&[&args[..], &["--workers", "3"]].concat());
        agree(&one, &many, &file);
        for (theirs, mine) in one.iter().zip(&many) {
            let at = format!("{file} assertion {}", theirs["index"]);
            assert_eq!(mine["symmetry"], theirs["symmetry"], "{at}");
            let notes = |v: &serde_json::Value| -> Vec<serde_json::Value> {
                let all = v["notes"].as_array().cloned().unwrap_or_default();
                let ours = |n: &str| n.starts_with("checked on") || n.starts_with("exchanged");
                all.into_iter()
                    .filter(|n| !n.as_str().is_some_and(ours))
                    .collect()
            };
            assert_eq!(notes(mine), notes(theirs), "{at}");
        }
    }
}

#[test]
fn breaches_are_found_at_the_one_search_s_depth_and_read_back_from_the_workers() {
    assert_eq!(checks_alike("tests/fixtures/cluster/checks.csp", None), 18);
}

#[test]
fn refinement_and_determinism_against_normal_forms_made_on_every_worker_agree() {
    assert_eq!(
        checks_alike("tests/fixtures/cluster/refinement.csp", None),
        24
    );
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
    for file in [
        "tests/fixtures/cluster/checks.csp",
        "tests/fixtures/cluster/refinement.csp",
    ] {
        answers_as_one_search(file);
    }
}

#[test]
fn every_model_checks_alike_on_two_processes() {
    for model in shipped::models() {
        let file = format!("models/{model}.csp");
        let loaded = symcsp::types::load_file(std::path::Path::new(&file)).expect("loads");
        let picked: Vec<String> = (0..loaded.script.assertions.len())
            .filter(|&i| Task::of_assertion(&loaded.script, i, None).is_some())
            .map(|i| (i + 1).to_string())
            .collect();
        let mut chosen = vec![file.clone()];
        for number in &picked {
            chosen.extend(["--assert".to_string(), number.clone()]);
        }
        let chosen: Vec<&str> = chosen.iter().map(String::as_str).collect();
        let one = assertions_of(&[&["check"], &chosen[..]].concat());
        let two = assertions_of(&[&["cluster", "--local", "2", "check"], &chosen[..]].concat());
        agree(&one, &two, &file);
        for entry in &two {
            let workers = entry["cluster"]["workers"].as_array().expect("per worker");
            let states: u64 = workers.iter().map(|w| w["states"].as_u64().unwrap()).sum();
            if entry["result"] == "passed" {
                assert_eq!(states, entry["states"].as_u64().unwrap(), "{file}");
            }
        }
    }
}

/// `check FILE` on workers, on two processes and on three processes of
/// two workers gives what it gives in one search.
fn answers_as_one_search(file: &str) {
    let one = assertions_of(&["check", file]);
    for args in [
        vec!["check", file, "--workers", "3"],
        vec!["cluster", "--local", "2", "check", file],
        vec!["cluster", "--local", "3", "check", file, "--workers", "2"],
    ] {
        agree(&one, &assertions_of(&args), &format!("{args:?}"));
    }
}

/// Two reports of the same assertions agree: results, symmetry, counts
/// (a failure's through its counterexample's level), a counterexample's
/// length, kind and witness.
fn agree(one: &[serde_json::Value], many: &[serde_json::Value], args: &str) {
    assert_eq!(many.len(), one.len(), "{args}");
    for (theirs, mine) in one.iter().zip(many) {
        let at = format!("{args}: assertion {}", theirs["index"]);
        assert_eq!(mine["result"], theirs["result"], "{at}");
        for part in ["types", "group_order"] {
            assert_eq!(mine["symmetry"][part], theirs["symmetry"][part], "{at}");
        }
        for count in ["states", "transitions", "depth"] {
            assert_eq!(mine[count], theirs[count], "{at}: {count}");
        }
        if theirs["result"] == "passed" && theirs["counterexample"].is_null() {
            assert_eq!(mine["symmetry"], theirs["symmetry"], "{at}");
        } else {
            let steps =
                |v: &serde_json::Value| v["counterexample"]["steps"].as_array().map(Vec::len);
            assert_eq!(steps(mine), steps(theirs), "{at}: path length");
            assert_eq!(
                mine["counterexample"]["kind"], theirs["counterexample"]["kind"],
                "{at}"
            );
            if theirs["text"]
                .as_str()
                .is_some_and(|t| t.contains(":[has trace"))
            {
                assert_eq!(
                    mine["counterexample"]["error_event"], theirs["counterexample"]["error_event"],
                    "{at}: the event missing"
                );
            }
            // A nondeterminism's other run, found on process 0.
            let witness = |v: &serde_json::Value| v["counterexample"]["witness"].is_null();
            assert_eq!(witness(mine), witness(theirs), "{at}: witness");
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

#[test]
fn has_trace_on_workers_answers_as_one_search() {
    // Found and not (with the longest prefix and the event missing),
    // divergence on the way, the empty trace, hidden events, τ-priority:
    // on workers, on processes, and `assert not`.
    let file = "tests/fixtures/cluster/has_trace.csp";
    assert_eq!(checks_alike(file, None), 13);
    answers_as_one_search(file);
}

#[test]
fn a_trace_found_counts_through_its_level_whatever_a_budget_stopped() {
    // The budget may stop the search while it stores the level after the
    // state that completes the trace; found, the check counts what it
    // counts without a budget, on one search and on workers.
    let file = "tests/fixtures/cluster/has_trace_budget.csp";
    let counts = |a: &serde_json::Value| (a["states"].clone(), a["transitions"].clone());
    let whole = assertions_of(&["check", file]);
    assert_eq!(whole[0]["result"], "passed");
    let mut found_under_budget = 0;
    for budget in (2000..=3400).step_by(100) {
        let budget = budget.to_string();
        for extra in [&[][..], &["--workers", "2"][..]] {
            let args = [&["check", file, "--max-states", &budget][..], extra].concat();
            let checked = assertions_of(&args);
            match checked[0]["result"].as_str() {
                Some("passed") => {
                    assert_eq!(counts(&checked[0]), counts(&whole[0]), "{args:?}");
                    found_under_budget += 1;
                }
                Some("inconclusive") => {}
                other => panic!("{args:?}: {other:?}"),
            }
        }
    }
    assert!(found_under_budget > 4, "{found_under_budget}");
}

#[test]
fn has_trace_reduced_by_symmetry_on_workers_answers_as_one_search() {
    // Each node holds the bijection of the values the trace named, and
    // crosses between workers as its columns; a trace whose values sit
    // in a set is walked unreduced, with one search's note. The runs
    // shown are of the unreduced process.
    let file = "tests/fixtures/cluster/has_trace_reduced.csp";
    for asked in [None, Some(Reduce::Off), Some(Reduce::Structural)] {
        assert_eq!(checks_alike(file, asked), 11);
    }
    answers_as_one_search(file);
    let one = assertions_of(&["check", file]);
    let many = assertions_of(&["check", file, "--workers", "3"]);
    for (theirs, mine) in one.iter().zip(&many) {
        let notes = |v: &serde_json::Value| v["notes"].as_array().cloned().unwrap_or_default();
        assert_eq!(notes(mine)[2..], notes(theirs), "{}", theirs["index"]);
        let events = |v: &serde_json::Value| v["counterexample"]["trace"].clone();
        assert_eq!(events(mine), events(theirs), "{}", theirs["index"]);
    }
    // A walk that diverged on the way is shown to the state that
    // diverges (it had shown the first after the events performed).
    let diverging = &one[8]["counterexample"]["components"][0]["moves"][0]["state"];
    assert_eq!(diverging, "Spin \\ {tick}");
    let last = &many[7]["notes"][2];
    assert!(
        last.as_str().is_some_and(|n| n.contains("inside a set")),
        "{last}"
    );
}

#[test]
fn a_divergence_among_the_states_expanded_is_found_when_a_budget_stops_the_search() {
    let file = "tests/fixtures/cluster/budgeted.csp";
    let one = assertions_of(&["check", file, "--max-states", "100"]);
    assert!(one.iter().all(|a| a["result"] == "failed"), "{one:?}");
    for args in [
        vec!["check", file, "--max-states", "100", "--workers", "3"],
        vec![
            "cluster",
            "--local",
            "2",
            "check",
            file,
            "--max-states",
            "100",
        ],
    ] {
        let many = assertions_of(&args);
        for (theirs, mine) in one.iter().zip(&many) {
            assert_eq!(mine["result"], "failed", "{args:?}");
            assert_eq!(mine["counterexample"]["kind"], "divergence", "{args:?}");
            assert_eq!(
                mine["counterexample"]["steps"], theirs["counterexample"]["steps"],
                "{args:?}"
            );
        }
    }
}

/// Issue 66: 2^n philosophers normalised level by level check on
/// workers as in one search, up to 2^1000 of them: a compressed state
/// crosses as its distinct subterms, once each (it was written as a
/// tree, 2^n leaves: 5.6 MB a state at 2^18, no answer at 2^100).
#[test]
fn halves_normalised_level_by_level_check_on_workers() {
    assert_eq!(checks_alike("tests/fixtures/compress/phils.csp", None), 12);
}

/// `prioritisepo` and `BUFFER` cross between workers (their terms are
/// encoded) and are judged there as in one search.
#[test]
fn priority_orders_and_buffers_are_judged_alike_on_workers() {
    for (file, least) in [
        ("tests/fixtures/check/priority_order.csp", 13),
        ("tests/fixtures/check/buffer.csp", 16),
    ] {
        let compared = checks_alike(file, None);
        assert!(
            compared >= least,
            "{file}: {compared} assertions on workers"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Workers judge every assertion of a random network as one search
    /// does: verdict, counts, counterexample length where it does not
    /// hold, on 3 workers in rounds of 7 states and on 2.
    #[test]
    fn random_networks_are_judged_alike_on_workers(text in random_networks::network()) {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("network.csp");
        std::fs::write(&path, &text).expect("written");
        let compared = checks_alike(path.to_str().expect("a path"), None);
        prop_assert_eq!(compared, 6, "every assertion runs on workers\n{}", &text);
    }
}

/// A process whose worker could not begin (here its clock ran out while
/// it loaded the script) takes one round and leaves: a divergence check,
/// which settles its τ-edges in rounds of every worker after the search,
/// stops there on every process as Inconclusive, not as a worker that
/// "stopped reporting".
#[test]
fn a_divergence_check_stops_alike_when_a_process_could_not_begin() {
    use symcsp::budget::Stopped;
    use symcsp::cluster::Topology;
    let free_port = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port()
    };
    let hosts = vec![
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ];
    let out_of_time = Budget {
        timeout: Some(Duration::ZERO),
        ..Budget::default()
    };
    let cyclers_diverge = ("tests/fixtures/cluster/checks.csp", 5);
    let runs: Vec<_> = [Budget::default(), out_of_time]
        .into_iter()
        .enumerate()
        .map(|(process, budget)| {
            let asking = on_workers::Asking::default();
            let (mut job, _) =
                on_workers::job(cyclers_diverge, &asking, Budget::default(), 1 << 16)
                    .expect("plans")
                    .expect("planned");
            job.budget = budget;
            let topology = Topology {
                workers: 1,
                process,
                hosts: hosts.clone(),
            };
            std::thread::spawn(move || symcsp::cluster::explore(&job, &topology))
        })
        .collect();
    for (process, run) in runs.into_iter().enumerate() {
        let found = run
            .join()
            .expect("no panic")
            .unwrap_or_else(|e| panic!("process {process}: {e}"));
        assert_eq!(
            found.exploration.stopped,
            Some(Stopped::Timeout),
            "process {process}"
        );
        // No verdict: the process that left has no check to give.
        let verdict = found.check.and_then(|check| check.holds);
        assert_eq!(verdict, None, "process {process}");
    }
}

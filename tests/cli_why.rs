//! `symcsp why`: why two states got different representatives, as a
//! user sees it — each answer in plain text (snapshots) and as JSON —
//! and its exit codes on bad input.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

const RING: &str = "models/paper/example43.csp";
const NODES: &str = "models/paper/example37.csp";
/// Example 43's ring holding A, A, B, B; the same ring rotated; a ring
/// holding A, B, A, B.
const AABB: &str = "link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0";
const ABBA: &str = "link.N0.A.N1, link.N1.B.N2, link.N2.B.N3, link.N3.A.N0";
const ABAB: &str = "link.N0.A.N1, link.N1.B.N2, link.N2.A.N3, link.N3.B.N0";
/// Example 37's list, and a tree of the same nodes.
const LIST: &str = "initNode.N4.B.Null, initNode.N0.B.N4, initNode.N1.B.N0, initNode.N3.B.N1";
const TREE: &str = "initNode.N4.B.Null, initNode.N0.B.N4, initNode.N1.B.N0, initNode.N3.B.N0";

/// `symcsp why ARGS` in plain text, which must succeed.
fn plain(args: &[&str]) -> String {
    let out = symcsp()
        .arg("why")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("text")
}

/// `symcsp why ARGS --format json`, which must succeed.
fn json(args: &[&str]) -> Value {
    let out = symcsp()
        .arg("why")
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("JSON")
}

fn ring(after: &'static str, vs: &'static str) -> Vec<&'static str> {
    vec![
        RING,
        "Ring",
        "--symmetry",
        "NodeID, Data",
        "--after",
        after,
        "--vs",
        vs,
    ]
}

#[test]
fn the_same_representative() {
    let args = [
        "models/liststack.csp",
        "--after",
        "push.T0.A",
        "--vs",
        "push.T1.B",
    ];
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    assert_eq!(report["answer"]["kind"], "same");
    assert_eq!(report["answer"]["headline"], "same representative");
    // The threads and the data exchanged: T0 pushing A is T1 pushing B.
    let permutation = &report["answer"]["mapping"]["permutation"];
    assert_eq!(permutation["ThreadID"]["T0"], "T1");
    assert_eq!(permutation["Data"]["A"], "B");
    assert_eq!(report["answer"]["mapping"]["components"][0], 1);
    assert_eq!(
        report["states"][0]["representative"],
        report["states"][1]["representative"]
    );
    assert_eq!(
        report["states"][0]["after"],
        serde_json::json!(["push.T0.A"])
    );
    assert_eq!(report["step_to_show"], Value::Null);
}

#[test]
fn comparing_a_state_with_itself_says_so_and_how_to_name_two() {
    // No --after, no --vs: both default to the initial state.
    let out = plain(&["models/liststack.csp"]);
    assert!(
        out.contains("state 1    nothing (the initial state)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "\nnote       the two are one state: give the traces of two with --after and --vs\n\n"
        ),
        "{out}"
    );
    // Two different states get no such note.
    let out = plain(&["models/liststack.csp", "--after", "push.T0.A"]);
    assert!(!out.contains("the two are one state"), "{out}");
}

#[test]
fn not_symmetric_by_step_1() {
    let args = [
        "models/liststack.csp",
        "--after",
        "push.T0.A",
        "--vs",
        "push.T0.A, push.T1.B",
    ];
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    assert_eq!(report["answer"]["kind"], "not_symmetric");
    let evidence = &report["answer"]["evidence"];
    assert_eq!(evidence["kind"], "shapes");
    // Two free nodes against one.
    assert_eq!(evidence["left"].as_array().map(Vec::len), Some(2));
    assert_eq!(evidence["right"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["step_to_show"], 0);
}

#[test]
fn not_symmetric_by_the_shapes_of_exact_components_when_states_hold_sets() {
    // LockFreeQueue's collector holds sets, so steps 1–2 are not compared
    // as such; but one state has a thread enqueueing and the other none,
    // and no permutation changes a component's shape.
    let args = [
        "models/lockfreequeue.csp",
        "--after",
        "enqCall.T0.A",
        "--vs",
        "deqCall.T1",
    ];
    let text = plain(&args);
    assert!(
        text.contains(
            "step 1 tells them apart: of components shaped like Enqueue(T0, A) (the same \
             control state and other values), the first state has 1 (Enqueue(T0, A)), the \
             second none"
        ),
        "{text}"
    );
    assert!(!text.contains("exhaustive search"), "{text}");
    let report = json(&args);
    let evidence = &report["answer"]["evidence"];
    assert_eq!(evidence["kind"], "shapes");
    assert_eq!(evidence["left"].as_array().map(Vec::len), Some(1));
    assert_eq!(evidence["right"].as_array().map(Vec::len), Some(0));
}

#[test]
fn not_symmetric_by_a_round_of_step_2() {
    let args = [
        NODES,
        "Nodes",
        "--symmetry",
        "NodeID, Data",
        "--after",
        LIST,
        "--vs",
        TREE,
    ];
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    let evidence = &report["answer"]["evidence"];
    assert_eq!(evidence["kind"], "n_values");
    assert_eq!(evidence["round"], 1);
    assert_eq!(evidence["column"], "next→c2.next");
    assert_eq!(evidence["left_n_value"], "⟨0, 1, 0, 0; 3, 1; 0, 1, 1, 0⟩");
    assert_eq!(evidence["right_n_value"], "⟨0, 1, 0, 0; 3, 1; 0, 1, 2, 0⟩");
    assert_eq!(report["step_to_show"], 1);
}

#[test]
fn not_symmetric_by_an_exhaustive_search() {
    let args = ring(AABB, ABAB);
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    let evidence = &report["answer"]["evidence"];
    assert_eq!(evidence["kind"], "no_permutation");
    assert!(evidence["tried"].as_u64().is_some_and(|n| n > 0));
    assert_eq!(evidence["after_steps"], true);
}

#[test]
fn symmetric_but_not_unique() {
    let args = ring(AABB, ABBA);
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    let answer = &report["answer"];
    assert_eq!(answer["kind"], "not_unique");
    assert_eq!(
        answer["cause"],
        serde_json::json!({
            "kind": "split",
            "cell": 0,
            "left_component": 0,
            "right_component": 0,
            "fully_symmetric": false,
            "alike_choices": [1, 3],
        })
    );
    assert_eq!(answer["parting"], 2);
    assert_eq!(report["step_to_show"], 2);
    // The choices it names are the ones `rep --choose` finds: of the
    // cell's members (here every component), those whose splitting off
    // gives the second state the first's representative.
    let representative = |after: &str, choose: Option<usize>| -> Value {
        let mut args = vec![RING, "Ring", "--symmetry", "NodeID, Data", "--after", after];
        let choose = choose.map(|c| c.to_string());
        if let Some(c) = &choose {
            args.extend(["--choose", c.as_str()]);
        }
        let out = symcsp()
            .arg("rep")
            .args(&args)
            .args(["--format", "json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let rep: Value = serde_json::from_slice(&out).expect("JSON");
        match choose {
            Some(_) => rep["by_hand"]["representative"].clone(),
            None => rep["representative"].clone(),
        }
    };
    let first = representative(AABB, None);
    let alike: Vec<usize> = (1..=4)
        .filter(|&member| representative(ABBA, Some(member)) == first)
        .map(|member| member - 1)
        .collect();
    assert_eq!(serde_json::json!(alike), answer["cause"]["alike_choices"]);
    assert!(
        plain(&args).contains(
            "splitting off Linked(N1, B, N2) (component 2) or Linked(N3, A, N0) (component 4) \
             gives the second state the first's representative (each tried"
        ),
        "{}",
        plain(&args)
    );
    // Both traces, for showing them side by side: step 3 at the parting.
    for state in report["states"].as_array().expect("two states") {
        assert_eq!(state["steps"][2]["kind"], "step3");
        assert_eq!(state["steps"][2]["fully_symmetric"], false);
    }
    assert_ne!(
        report["states"][0]["representative"],
        report["states"][1]["representative"]
    );
}

#[test]
fn undecided_within_the_budget() {
    let mut args = ring(AABB, ABAB);
    args.extend(["--budget", "2"]);
    insta::assert_snapshot!(plain(&args));
    let report = json(&args);
    assert_eq!(report["answer"]["kind"], "undecided");
    assert_eq!(report["answer"]["budget"], 2);
    assert_eq!(
        report["answer"]["headline"],
        "could not decide within 2 permutations (partial ones included)"
    );
}

#[test]
fn bad_requests_are_diagnostics_with_exit_two() {
    let why = |args: &[&str]| symcsp().arg("why").args(args).assert();
    // A trace the process cannot perform: the caret under the event, in
    // the trace it belongs to.
    why(&[
        "models/liststack.csp",
        "--after",
        "push.T0.A",
        "--vs",
        "push.T1.B, pop.T0.A",
    ])
    .code(2)
    .stderr(predicate::str::contains(
        "error: after push.T1.B, System cannot perform pop.T0.A\n --> <vs>:1:13\n  |\n1 | \
         <push.T1.B, pop.T0.A>\n  |             ^^^^^^^^",
    ));
    why(&["models/liststack.csp", "--after", "pop.T0.A"])
        .code(2)
        .stderr(predicate::str::contains(
            "System cannot perform pop.T0.A first\n --> <after>:1:2",
        ));
    // Not a list of events.
    why(&[
        "models/liststack.csp",
        "--after",
        "push.T0.A> == <push.T0.A",
    ])
    .code(2)
    .stderr(predicate::str::contains(
        "this is not a list of events separated by commas",
    ));
    // Types the script is not symmetric in, and no types at all.
    why(&["models/liststack.csp", "--symmetry", "NodeIDType"])
        .code(2)
        .stderr(predicate::str::contains(
            "Null is named here, so NodeIDType is not symmetric",
        ));
    why(&["models/liststack.csp", "--symmetry", "off"])
        .code(2)
        .stderr(predicate::str::contains(
            "`symcsp why` shows a symmetry reduction",
        ));
    // No assertion to take the process from; a script that does not load.
    why(&["tests/fixtures/symmetry/variables.csp"])
        .code(2)
        .stderr(predicate::str::contains("name the process (`symcsp why"));
    why(&["tests/fixtures/invalid/bad_pattern.csp"])
        .code(2)
        .stderr(predicate::str::contains("error"));
}

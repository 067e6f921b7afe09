//! Issue 49 at the command line: `--strategy` on the commands that
//! reduce, `symcsp compare` (every strategy side by side, verdicts that
//! must agree) and `symcsp audit` (representatives against orbits, with
//! duplicate pairs as traces for `symcsp why`), and their bad input.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

fn stdout(args: &[&str], code: i32) -> String {
    let out = symcsp().args(args).assert().code(code).get_output().clone();
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(args, 0)).expect("one JSON object")
}

const EXAMPLE_43: &str = "tests/fixtures/strategies/example43.csp";

#[test]
fn audit_finds_example_43s_pair_of_rings() {
    let text = stdout(&["audit", EXAMPLE_43], 0);
    for line in [
        "representatives    13",
        "orbits             12 (the exact canonical forms of the representatives)",
        "duplicates         1 (duplication factor 1.083: representatives per class)",
        // The two rings of A, A, B, B the paper's step 3 splits apart.
        "1. --after \"link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0\" --vs \
         \"link.N0.A.N1, link.N1.B.N2, link.N2.B.N3, link.N3.A.N0\"",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    // The pair is ready for `symcsp why`: one class, not one
    // representative.
    let why = stdout(
        &[
            "why",
            EXAMPLE_43,
            "--after",
            "link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0",
            "--vs",
            "link.N0.A.N1, link.N1.B.N2, link.N2.B.N3, link.N3.A.N0",
            "--strategy",
            "exact",
        ],
        0,
    );
    assert!(
        why.contains("answer     symmetric, but the representative is not unique here"),
        "{why}"
    );
    assert!(
        why.contains(
            "strategy   the exact strategy gives both the same representative: one symmetry class"
        ),
        "{why}"
    );
    // Under the exact strategy there is nothing to find.
    let exact = stdout(&["audit", EXAMPLE_43, "--strategy", "exact"], 0);
    assert!(
        exact.contains("duplicates         none: one representative per symmetry class"),
        "{exact}"
    );
    let report = json(&["audit", EXAMPLE_43, "--format", "json"]);
    assert_eq!(report["representatives"], 13);
    assert_eq!(report["orbits"], 12);
    assert_eq!(report["pairs"].as_array().map(Vec::len), Some(1));
}

/// A budget that stops an audit before its search makes it
/// inconclusive (exit 3), naming the stage, as it does a check.
#[test]
fn an_audit_stopped_before_its_search_is_inconclusive() {
    let out = symcsp()
        .args(["audit", EXAMPLE_43, "--max-memory", "1K"])
        .assert()
        .code(3)
        .get_output()
        .clone();
    let said = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(
        said.contains("the process was not audited: stopped by the memory budget")
            && said.contains("while compiling the process"),
        "{said}"
    );
    let text = stdout(
        &[
            "audit",
            EXAMPLE_43,
            "--max-memory",
            "1K",
            "--format",
            "json",
        ],
        3,
    );
    let report: Value = serde_json::from_str(&text).expect("one JSON object");
    assert_eq!(report["result"], "Inconclusive");
    assert_eq!(report["stage"], "compiling the process");
}

#[test]
fn compare_tabulates_every_strategy_and_the_unreduced_search_when_asked() {
    let report = json(&["compare", EXAMPLE_43, "--unreduced", "--format", "json"]);
    let rows = report["rows"].as_array().expect("rows");
    let got: Vec<(String, u64, Option<u64>)> = rows
        .iter()
        .map(|r| {
            (
                r["strategy"].as_str().unwrap().to_string(),
                r["states"].as_u64().unwrap(),
                r["duplicates"].as_u64(),
            )
        })
        .collect();
    let want = [
        ("unreduced", 409, None),
        ("fdr", 13, Some(1)),
        ("sorted", 39, Some(27)),
        ("segmented", 21, Some(9)),
        ("flooding", 12, Some(0)),
        ("exact", 12, Some(0)),
    ];
    let want: Vec<(String, u64, Option<u64>)> = want
        .iter()
        .map(|&(s, n, d)| (s.to_string(), n, d))
        .collect();
    assert_eq!(got, want);
    // Without --unreduced, the strategies alone, and a line saying so.
    let report = json(&["compare", EXAMPLE_43, "--format", "json"]);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 5, "{report}");
    assert!(
        rows.iter().all(|r| r["strategy"] != "unreduced"),
        "{report}"
    );
    assert_eq!(report["unreduced"], false);
    // Without --timeout each run is held to a stated time-out; with
    // --timeout 0, none.
    assert_eq!(report["run_timeout"], 2.0);
    let unheld = json(&["compare", EXAMPLE_43, "--timeout", "0", "--format", "json"]);
    assert!(unheld.get("run_timeout").is_none(), "{unheld}");
    let text = stdout(&["compare", EXAMPLE_43], 0);
    assert!(
        text.contains("the unreduced search is not run: `--unreduced` adds it for scale")
            && text.contains("each run is held to 2 s (--timeout sets another, 0 for none)"),
        "{text}"
    );
    // A check: every strategy's verdict is the same, in the table.
    let text = stdout(
        &[
            "compare",
            "models/peterson.csp",
            "--assert",
            "2",
            "--strategies",
            "exact,fdr,exact",
            "--unreduced",
        ],
        0,
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("compare models/peterson.csp, assertion 2:"),
        "{text}"
    );
    let table: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("unreduced") || l.starts_with("exact") || l.starts_with("fdr"))
        .copied()
        .collect();
    assert_eq!(table.len(), 3, "each strategy once:\n{text}");
    assert!(table.iter().all(|l| l.contains("Passed")), "{text}");
    assert!(
        table[1].starts_with("exact") && table[1].trim_end().ends_with(" 0"),
        "{text}"
    );
    assert!(
        table[2].starts_with("fdr") && table[2].trim_end().ends_with(" 9"),
        "{text}"
    );
}

#[test]
fn strategies_on_check_and_explore() {
    for strategy in ["fdr", "sorted", "segmented", "flooding", "exact"] {
        let text = stdout(
            &[
                "explore",
                "models/peterson.csp",
                "System",
                "--symmetry",
                "ProcID",
                "--strategy",
                strategy,
            ],
            0,
        );
        let expected = if matches!(strategy, "fdr" | "sorted") {
            130
        } else {
            121
        };
        assert!(
            text.contains(&format!("states             {expected}\n")),
            "{strategy}: {text}"
        );
    }
    let text = stdout(
        &[
            "check",
            "models/liststack.csp",
            "--assert",
            "2",
            "--strategy",
            "exact",
        ],
        0,
    );
    assert!(
        text.contains("note: symmetry: representatives by the exact strategy"),
        "{text}"
    );
    // ListStack's Data indexes no family: the sorted strategy says so.
    let text = stdout(
        &[
            "explore",
            "models/liststack.csp",
            "System",
            "--symmetry",
            "NodeID, Data, ThreadID",
            "--strategy",
            "sorted",
        ],
        0,
    );
    assert!(
        text.contains(
            "the sorted strategy reduces only types that index a family of components: Data \
             indexes none, so it is not reduced"
        ),
        "{text}"
    );
    // rep shows the strategy's representative beside the algorithm's.
    let text = stdout(
        &[
            "rep",
            EXAMPLE_43,
            "--after",
            "link.N0.A.N1, link.N1.B.N2, link.N2.B.N3, link.N3.A.N0",
            "--strategy",
            "exact",
        ],
        0,
    );
    assert!(
        text.contains("the exact strategy (the least image over every branch of step 3"),
        "{text}"
    );
}

#[test]
fn bad_strategies_and_groups_too_large_are_said_plainly() {
    symcsp()
        .args(["check", "models/peterson.csp", "--strategy", "nauty"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "there is no strategy `nauty`: the strategies are fdr, sorted, segmented, flooding, \
             exact",
        ));
    symcsp()
        .args(["compare", EXAMPLE_43, "--symmetry", "off"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("leaves nothing to compare"));
    // Ten interleaved copies: flooding marks 10! images of each new
    // state, segmented tries 9! orders; the budget stops both, saying
    // why; the exact form is found at once.
    let copies = "datatype T = T0 | T1 | T2 | T3 | T4 | T5 | T6 | T7 | T8 | T9\n\
                  channel c, d : T\nP(t) = c.t -> Q(t)\nQ(t) = d.t -> Q(t)\n\
                  System = ||| t : T @ P(t)\n\
                  assert System :[deadlock free] :[symmetry reduce]: T\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copies.csp");
    std::fs::write(&path, copies).unwrap();
    let path = path.to_str().unwrap();
    for (strategy, why) in [
        (
            "flooding",
            "note: flooding marks every image of a new state seen: 10! = 3628800 per state",
        ),
        (
            "segmented",
            "note: the segmented strategy tries every order of each run of equal components",
        ),
    ] {
        let text = stdout(
            &["check", path, "--strategy", strategy, "--timeout", "0.5"],
            3,
        );
        assert!(text.contains("stopped by the time-out"), "{text}");
        assert!(text.contains(why), "{strategy}: {text}");
    }
    let text = stdout(&["check", path, "--strategy", "exact"], 0);
    assert!(text.contains("Passed — 11 representatives"), "{text}");
}

/// Issue 61: every pair `audit` prints is one `why` confirms — two
/// states of one class with different representatives — on every model
/// and fixture with duplicates.
#[test]
fn every_pair_audit_prints_is_one_why_confirms() {
    let mut audited = 0;
    let mut files: Vec<String> = [
        "models",
        "models/paper",
        "tests/fixtures/strategies",
        "tests/fixtures/symmetry",
    ]
    .iter()
    .flat_map(|dir| std::fs::read_dir(dir).expect("a folder"))
    .map(|entry| entry.expect("an entry").path())
    .filter(|path| path.extension().is_some_and(|x| x == "csp"))
    .map(|path| path.display().to_string())
    .collect();
    files.sort();
    for file in &files {
        let out = symcsp()
            .args(["audit", file, "--format", "json"])
            .output()
            .expect("runs");
        // Models with nothing to reduce, or no assertion naming a process.
        if out.status.code() != Some(0) {
            continue;
        }
        let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let process = report["process"].as_str().expect("the process").to_string();
        for pair in report["pairs"].as_array().expect("pairs") {
            let (after, vs) = (
                pair["after"].as_str().unwrap(),
                pair["vs"].as_str().unwrap(),
            );
            let why = stdout(&["why", file, &process, "--after", after, "--vs", vs], 0);
            assert!(
                why.contains("answer     symmetric, but the representative is not unique here"),
                "{file}: --after \"{after}\" --vs \"{vs}\"\n{why}"
            );
            audited += 1;
        }
    }
    // Example 43 (two files), ListStack's example 37, LockFreeQueue,
    // TreeBroadcast and Peterson have pairs.
    assert!(audited >= 15, "only {audited} pairs audited");
}

/// Values held in a set are not read by the paper's algorithm: FDR's
/// strategy keeps a representative per subset, the audit finds the
/// duplicates, the exact strategy one per class, and `rep` does not
/// promise uniqueness.
#[test]
fn values_held_in_sets_are_counted_exactly_and_never_called_unique() {
    const SETS: &str = "tests/fixtures/strategies/sets.csp";
    let audit = |strategy: &str| {
        stdout(
            &[
                "audit",
                SETS,
                "Alone",
                "--symmetry",
                "Id",
                "--strategy",
                strategy,
            ],
            0,
        )
    };
    let fdr = audit("fdr");
    for line in [
        "representatives    16",
        "orbits             5 (the exact canonical forms of the representatives)",
        "duplicates         11 (duplication factor 3.200: representatives per class)",
        "2. --after \"add.A, add.B\" --vs \"add.A, add.C\"",
    ] {
        assert!(fdr.contains(line), "{line}\n{fdr}");
    }
    let exact = audit("exact");
    assert!(exact.contains("representatives    5"), "{exact}");
    assert!(
        exact.contains("duplicates         none: one representative per symmetry class"),
        "{exact}"
    );
    let rep = stdout(
        &["rep", SETS, "Alone", "--symmetry", "Id", "--after", "add.B"],
        0,
    );
    assert!(
        rep.contains(
            "unique      not guaranteed: the state holds distinguished values in sets, maps or \
             functions, which the algorithm does not read"
        ),
        "{rep}"
    );
}

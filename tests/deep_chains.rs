//! Long flat expressions load as FDR loads them (issue 62): a `[]` of
//! 10 000 alternatives, a sum of 10 000 terms, a prefix chain of 10 000
//! steps and an `if` nested 5 000 deep parse, type-check and evaluate;
//! expressions nested inside one another past the limit (brackets,
//! `let`s) are refused with a clear message, never a stack overflow; a
//! long chain parses to the tree its operators' associativity gives; and
//! wide and long processes run whole (issue 83): a `[]` of 20 000
//! alternatives, 30 000 steps in sequence, and the deadlock of a
//! 10 000-step chain with its counterexample shown state by state.

use assert_cmd::Command;
use proptest::prelude::*;
use symcsp::stack::with_large_stack;
use symcsp::syntax::ast::{BinaryOp, Expr, ExprKind};
use symcsp::syntax::{MAX_NESTING, parse_expr};

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

/// Writes `text` to a script in a fresh folder and runs `args` on it
/// (the script's path in place of `FILE`); its stdout and stderr, after
/// checking the exit code.
fn run(text: &str, args: &[&str], code: i32) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.csp");
    std::fs::write(&path, text).unwrap();
    let args: Vec<&str> = args
        .iter()
        .map(|&a| {
            if a == "FILE" {
                path.to_str().unwrap()
            } else {
                a
            }
        })
        .collect();
    let out = symcsp().args(&args).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(code), "{stdout}\n{stderr}");
    (stdout, stderr)
}

#[test]
fn ten_thousand_alternatives_terms_and_steps_load_and_run() {
    let n = 10_000;
    let choice: Vec<String> = (0..n).map(|i| format!("a.{i} -> STOP")).collect();
    let (out, _) = run(
        &format!("channel a : {{0..{n}}}\nP = {}\n", choice.join(" [] ")),
        &["explore", "FILE", "P"],
        0,
    );
    assert!(out.contains("transitions        10000"), "{out}");
    // The sum evaluates (0 + 1 + … + 9 999).
    let terms: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let (out, _) = run(
        &format!("N = {}\n", terms.join(" + ")),
        &["eval", "FILE", "N"],
        0,
    );
    assert_eq!(out.trim(), "49995000");
    let (out, _) = run(
        &format!("channel a\nP = {}STOP\n", "a -> ".repeat(n)),
        &["explore", "FILE", "P"],
        0,
    );
    assert!(out.contains("states             10001"), "{out}");
    // An `if` nested 5 000 deep, as FDR accepts.
    let ifs: String = (0..5_000)
        .map(|i| format!("if x == {i} then {i} else "))
        .collect();
    let (out, _) = run(
        &format!("f(x) = {ifs}0\nN = f(4999)\n"),
        &["eval", "FILE", "N"],
        0,
    );
    assert_eq!(out.trim(), "4999");
}

#[test]
fn wide_and_long_processes_run_whole() {
    let n = 20_000;
    let choice: Vec<String> = (0..n).map(|i| format!("a.{i} -> STOP")).collect();
    let (out, _) = run(
        &format!("channel a : {{0..{n}}}\nP = {}\n", choice.join(" [] ")),
        &["explore", "FILE", "P"],
        0,
    );
    assert!(out.contains("states             2\n"), "{out}");
    assert!(out.contains("transitions        20000\n"), "{out}");
    // Each step is an event and the τ its ✓ becomes.
    let (out, _) = run(
        &format!("channel a\nP = {}STOP\n", "(a -> SKIP) ; ".repeat(30_000)),
        &["explore", "FILE", "P"],
        0,
    );
    assert!(out.contains("states             60001\n"), "{out}");
    assert!(out.contains("transitions        60000\n"), "{out}");
    let (out, _) = run(
        &format!(
            "channel a\nP = {}STOP\nassert P :[deadlock free]\n",
            "a -> ".repeat(10_000)
        ),
        &["check", "FILE", "--format", "json"],
        1,
    );
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let cx = &report["assertions"][0]["counterexample"];
    assert_eq!(cx["trace"].as_array().map(Vec::len), Some(10_000));
    let moves = cx["components"][0]["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 10_000);
    // The rest of the chain is shown as far as it is readable.
    let first = moves[0]["state"].as_str().expect("a state");
    assert!(
        first.starts_with("a -> a -> ") && first.ends_with(" …"),
        "{first}"
    );
    assert!(first.len() < 1_100, "{} bytes", first.len());
    assert_eq!(moves[9_998]["state"], "a -> STOP");
    assert_eq!(moves[9_999]["state"], "STOP");
}

#[test]
fn nesting_past_the_limit_is_refused_in_words() {
    let lets: String = (0..=MAX_NESTING)
        .map(|i| format!("let x{i} = {i} within "))
        .collect();
    let (_, err) = run(&format!("N = {lets}1\n"), &["parse", "FILE"], 2);
    assert!(
        err.contains(
            "error: expressions nested too deeply (more than 8000 inside one another: brackets, \
             `let`s, `if`s, λs); split them into named definitions"
        ),
        "{err}"
    );
    let (_, err) = run(
        &format!("N = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000)),
        &["parse", "FILE"],
        2,
    );
    assert!(
        err.contains("brackets nested too deeply (more than 1000 levels)"),
        "{err}"
    );
}

#[test]
fn a_long_chain_prints_and_parses_back_the_same() {
    let text = format!("channel a\nP = {}STOP\n", "a -> ".repeat(20_000));
    let (printed, _) = run(&text, &["parse", "--print", "FILE"], 0);
    let (again, _) = run(&printed, &["parse", "--print", "FILE"], 0);
    assert_eq!(printed, again);
}

/// The operators and leaves of a left-nested chain of `+` and `-`,
/// read down its left spine without recursion.
fn left_chain(mut e: &Expr) -> Option<(Vec<BinaryOp>, Vec<i64>)> {
    let (mut ops, mut leaves) = (Vec::new(), Vec::new());
    loop {
        match &e.kind {
            ExprKind::Binary(op, l, r) => {
                let ExprKind::Int(leaf) = r.kind else {
                    return None;
                };
                ops.push(*op);
                leaves.push(leaf);
                e = l;
            }
            ExprKind::Int(leaf) => {
                leaves.push(*leaf);
                ops.reverse();
                leaves.reverse();
                return Some((ops, leaves));
            }
            _ => return None,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// A chain of `+` and `-` (one strength, left associative) of up to
    /// 20 000 operators parses to the left-nested tree, as its fully
    /// bracketed form `((a + b) - c) + …` would.
    #[test]
    fn a_random_chain_parses_to_its_left_nested_tree(
        ops in prop::collection::vec(prop::bool::ANY, 1..20_000usize),
        seed in 0i64..1000,
    ) {
        let leaves: Vec<i64> = (0..=ops.len() as i64).map(|i| (i * 7 + seed) % 1000).collect();
        let mut text = leaves[0].to_string();
        for (plus, leaf) in ops.iter().zip(&leaves[1..]) {
            text.push_str(if *plus { " + " } else { " - " });
            text.push_str(&leaf.to_string());
        }
        let expected: Vec<BinaryOp> = ops
            .iter()
            .map(|&plus| if plus { BinaryOp::Add } else { BinaryOp::Sub })
            .collect();
        // Parsed, read and dropped on a large stack: the tree is as deep
        // as the chain is long.
        let read = with_large_stack(|| parse_expr(0, &text).ok().and_then(|e| left_chain(&e)));
        prop_assert_eq!(read, Some((expected, leaves)));
    }
}

//! The command line as a user meets it: output, diagnostics and exit codes
//! of the real binary.

use assert_cmd::Command;
use predicates::prelude::*;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

fn fixture(name: &str) -> String {
    format!("tests/fixtures/{name}")
}

#[test]
fn parse_reports_one_line_per_file_and_exits_zero() {
    let out = symcsp()
        .args(["parse", "models/buffers.csp", &fixture("valid/include.csp")])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "models/buffers.csp: ok, 16 declarations, 11 assertions\n\
         tests/fixtures/valid/include.csp: ok, 5 declarations, 0 assertions, 2 included files\n"
    );
}

/// Issue 22: with `--print`, stdout is the script alone (the summary goes
/// to stderr), so `symcsp parse --print FILE > out.csp` parses again.
#[test]
fn parse_print_writes_a_script_that_parses_again() {
    let output = symcsp()
        .args(["parse", "--print", "models/liststack.csp"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "models/liststack.csp: ok, 29 declarations, 4 assertions\n"
    );
    let script = String::from_utf8(output.stdout).unwrap();
    assert!(script.starts_with("datatype NodeIDType"), "{script}");
    // Long definitions are broken before their choices.
    let spec = "Spec(s) =\n  #s < Bound & push?t?d -> Spec(<d> ^ s)\n  \
                [] s != <> & pop?t!head(s) -> Spec(tail(s))\n  \
                [] s == <> & popEmpty?t -> Spec(s)\n";
    assert!(script.contains(spec), "{script}");
    let dir = std::env::temp_dir().join(format!("symcsp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("printed.csp");
    std::fs::write(&copy, script).unwrap();
    symcsp().arg("parse").arg(&copy).assert().success();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every kind of bad input the issue names: a diagnostic on stderr with a
/// place, and exit code 2.
#[test]
fn bad_inputs_get_a_diagnostic_and_exit_two() {
    for (file, message) in [
        ("invalid/unterminated_comment.csp", "unterminated comment"),
        ("invalid/unterminated_string.csp", "unterminated string"),
        ("invalid/unclosed_paren.csp", "unclosed `(`"),
        ("invalid/mismatched_bracket.csp", "mismatched `}`"),
        ("invalid/stray_unicode.csp", "unexpected character `→`"),
        ("invalid/deep_nesting.csp", "nested too deeply"),
        ("invalid/binary.csp", "NUL byte"),
        ("invalid/missing_include.csp", "cannot read"),
        ("invalid/include_cycle.csp", "include cycle"),
        ("invalid/empty.csp", "is empty: there is no script in it"),
    ] {
        let output = symcsp()
            .args(["parse", &fixture(file)])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(stderr.contains(message), "{file}: {stderr}");
        assert!(output.stdout.is_empty(), "{file}: nothing on stdout");
    }
}

#[test]
fn a_missing_file_is_an_error_not_a_panic() {
    symcsp()
        .args(["parse", "no/such/file.csp"])
        .assert()
        .code(2)
        .stderr("error: cannot read `no/such/file.csp`: no such file\nno/such/file.csp: 1 error\n");
}

#[test]
fn a_broken_process_argument_is_told_as_an_expression_not_a_declaration() {
    symcsp()
        .args(["explore", "models/ring.csp", "System |||"])
        .assert()
        .code(2)
        .stderr(
            "error: unexpected end of file: expected an expression\n --> <process>:1:11\n  |\n1 | \
             System |||\n  |           ^\n",
        );
}

/// Issue 24, item 7: a script is read once, its kind and size judged
/// before reading, `-` is standard input, and every command refuses an
/// empty file alike.
#[test]
fn standard_input_is_read_once_and_a_broken_script_on_it_fails() {
    symcsp()
        .args(["parse", "-"])
        .write_stdin("X = (\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("<stdin>:1:5").and(predicate::str::contains("unclosed `(`")),
        );
    symcsp()
        .args(["parse", "-"])
        .write_stdin("P = STOP\n")
        .assert()
        .success()
        .stdout("<stdin>: ok, 1 declaration, 0 assertions\n");
    #[cfg(unix)]
    symcsp()
        .args(["parse", "/dev/stdin"])
        .write_stdin("X = (\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unclosed `(`"));
}

#[cfg(unix)]
#[test]
fn devices_fifos_and_huge_files_are_read_safely() {
    symcsp()
        .args(["parse", "/dev/zero"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("NUL byte"));
    let dir = tempfile::tempdir().unwrap();
    let sparse = dir.path().join("sparse.csp");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    symcsp()
        .arg("parse")
        .arg(&sparse)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the script is too large (3072 MiB): at most 256 MiB",
        ));
    let fifo = dir.path().join("fifo.csp");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "P = STOP\n").unwrap())
    };
    symcsp()
        .arg("parse")
        .arg(&fifo)
        .assert()
        .success()
        .stdout(predicate::str::contains("ok, 1 declaration"));
    writer.join().unwrap();
}

#[test]
fn every_command_refuses_an_empty_file_and_null_is_no_script() {
    let empty = fixture("invalid/empty.csp");
    for args in [
        vec!["parse", &empty],
        vec!["eval", &empty, "1 + 1"],
        vec!["check", &empty],
        vec!["explore", &empty, "STOP"],
        vec![&empty],
    ] {
        symcsp()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "is empty: there is no script in it",
            ));
    }
    #[cfg(unix)]
    symcsp()
        .args(["eval", "/dev/null", "1 + 1"])
        .assert()
        .success()
        .stdout("2\n");
}

#[test]
fn without_arguments_the_built_in_model_is_described() {
    let output = symcsp().assert().success().get_output().stdout.clone();
    let text = String::from_utf8(output).unwrap();
    assert!(text.starts_with("built-in model liststack.csp"), "{text}");
    assert!(
        text.contains("   1  assert Spec(<>) [T= System\n"),
        "{text}"
    );
    assert!(
        text.contains("definitions (14): NodeID, Bound, FreeNode/1, Node/3,"),
        "{text}"
    );
}

#[test]
fn usage_errors_exit_two_and_help_exits_zero() {
    symcsp().arg("parse").assert().code(2);
    symcsp().arg("--frobnicate").assert().code(2);
    symcsp().arg("--help").assert().success();
}

/// `--process` is the cluster's process number on `check` and
/// `explore` (the top level's takes a process to animate): a process
/// given there is told where it goes.
#[test]
fn a_process_given_as_the_cluster_index_is_told_where_it_goes() {
    for command in ["check", "explore"] {
        symcsp()
            .args([command, "models/liststack.csp", "--process", "System"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "here --process is this process's number in a cluster (0, 1, …), not a \
                 process: `symcsp explore FILE 'System'` explores a process",
            ));
    }
    symcsp()
        .args(["check", "models/liststack.csp", "--process", "70000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a process number in a cluster is at most 65535",
        ));
}

#[test]
fn eval_prints_a_value_in_fdr_form() {
    symcsp()
        .args(["eval", "/dev/null", "{x % 3 | x <- {0..7}}"])
        .assert()
        .success()
        .stdout("{0, 1, 2}\n");
    symcsp()
        .args(["eval", "/dev/null", "-7 / 2"])
        .assert()
        .success()
        .stdout("-4\n");
    symcsp()
        .args(["eval", "models/buffers.csp", "{| left |}"])
        .assert()
        .success()
        .stdout("{left.A, left.B}\n");
}

#[test]
fn eval_without_an_expression_runs_the_prints_in_order() {
    symcsp()
        .args(["eval", &fixture("eval_errors/head_empty.csp")])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("`head` of the empty sequence"));
}

#[test]
fn eval_reports_unknown_names_and_runtime_errors_with_exit_2() {
    symcsp()
        .args(["eval", "/dev/null", "nosuch(1)"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("`nosuch` is not defined"));
    symcsp()
        .args(["eval", "/dev/null", "1 / 0"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("division by zero"));
}

#[test]
fn explore_reports_a_model_as_json() {
    let out = symcsp()
        .args([
            "explore",
            "models/buffers.csp",
            "System",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    assert_eq!(report["states"], 9);
    assert_eq!(report["transitions"], 14);
    assert_eq!(report["deadlock_states"], 0);
    assert_eq!(report["components"], 2);
    assert_eq!(report["complete"], true);
    assert!(report["seconds"].as_f64().is_some());
}

#[test]
fn explore_stops_an_infinite_process_at_the_budget_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counter.csp");
    // Finitely many events, infinitely many states.
    std::fs::write(
        &file,
        "channel up : {0, 1}\nCount(n) = up!(n % 2) -> Count(n + 1)\n",
    )
    .unwrap();
    let out = symcsp()
        .args([
            "explore",
            file.to_str().unwrap(),
            "Count(0)",
            "--format",
            "json",
        ])
        .args(["--max-states", "1000"])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    assert_eq!(report["complete"], false);
    assert!(report["states"].as_u64().unwrap() >= 1000);
}

/// Without a process, `explore` takes the first assertion's, as the
/// animator, `rep` and `why` do; a script without one asks for it.
#[test]
fn explore_without_a_process_explores_the_first_assertion_s() {
    symcsp()
        .args(["explore", "models/liststack.csp"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with(
            "process            System
states             1867
",
        ));
    symcsp()
        .args(["explore", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "has no assertion to take a process from: name the process",
        ));
}

#[test]
fn explore_takes_any_process_expression_and_the_terms_engine_agrees() {
    for engine in ["supercombinator", "terms"] {
        symcsp()
            .args(["explore", "models/philosophers.csp", "Phil(P0) ||| Fork(1)"])
            .args(["--engine", engine])
            .assert()
            .success()
            .stdout(predicates::str::contains("states             220\n"));
    }
}

/// Issue 22: a space too large to draw is still explored and counted;
/// the drawing is skipped with a note, and no file is written.
#[test]
fn explore_writes_a_small_lts_as_dot_and_skips_a_big_one() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("buffers.dot");
    symcsp()
        .args([
            "explore",
            "models/buffers.csp",
            "System",
            "--dot",
            dot.to_str().unwrap(),
        ])
        .assert()
        .success();
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph lts {"));
    assert_eq!(text.matches(" -> s").count(), 14 + 1, "{text}");
    let big = dir.path().join("ring.dot");
    symcsp()
        .args([
            "explore",
            "models/ring.csp",
            "System",
            "--dot",
            big.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("states             2937\n"))
        .stderr(
            predicates::str::contains("not drawing").and(predicates::str::contains(
                "the LTS has 2937 states, more than the 2000 that --dot draws",
            )),
        );
    assert!(!big.exists());
}

/// A state prints with the values of the variables it captured put where
/// the resolved program uses them: a name bound again inside (a `let`, a
/// comprehension's generator, a lambda's parameter) is left alone.
#[test]
fn explore_prints_states_without_touching_names_bound_inside() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("binders.csp");
    std::fs::write(
        &script,
        "channel a, go
channel c : {0..30}
P(x) = a -> c!(x + (let x = 2 within x)) -> c!(card({x | x <- {1, x}})) -> Q(x)
Q(y) = go -> c!((\\ y @ y + 1)(y)) -> STOP
",
    )
    .unwrap();
    let dot = dir.path().join("binders.dot");
    symcsp()
        .args(["explore", script.to_str().unwrap(), "P(5)"])
        .args(["--dot", dot.to_str().unwrap()])
        .assert()
        .success();
    let text = std::fs::read_to_string(&dot).unwrap();
    for state in [
        "P(5)",
        "c!(5 + (let x = 2 within x)) -> c!(card({x | x <- {1, 5}})) -> Q(5)",
        "c!(card({x | x <- {1, 5}})) -> Q(5)",
        "Q(5)",
        "c!((\\\\ y @ y + 1)(5)) -> STOP",
    ] {
        assert!(
            text.contains(&format!("[label=\"{state}\"]")),
            "{state} in {text}"
        );
    }
}

#[test]
fn explore_reports_a_bad_process_with_a_caret() {
    symcsp()
        .args(["explore", "models/buffers.csp", "Sytem"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("Sytem").and(predicates::str::contains("^")));
    symcsp()
        .args(["explore", "models/buffers.csp", "1 + 2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "Couldn't match expected type Proc with actual type Int",
        ));
}

#[test]
fn explore_reports_processes_it_cannot_explore() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.csp");
    std::fs::write(
        &file,
        "channel a\nP = P [] a -> P\nQ = a -> STOP ||| Q\nR = deter(a -> STOP)\nexternal deter\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    for (process, message) in [
        ("P", "P is defined by unguarded recursion"),
        ("Q", "nest more than 10000 deep"),
        ("R", "`deter` is not supported yet"),
        (
            "STOP \\ {1}",
            "Couldn't match expected type Event with actual type Int",
        ),
    ] {
        symcsp()
            .args(["explore", file, process])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message).and(predicates::str::contains("^")));
    }
    std::fs::write(dir.path().join("int.csp"), "channel c : Int\n").unwrap();
    symcsp()
        .args([
            "explore",
            dir.path().join("int.csp").to_str().unwrap(),
            "STOP",
        ])
        .assert()
        .code(2)
        .stderr(
            predicates::str::contains("int.csp:1:9").and(predicates::str::contains(
                "channels have finitely many events",
            )),
        );
}

#[test]
fn check_prints_fdr_like_verdicts_and_counterexamples() {
    symcsp()
        .args(["check", &fixture("check/small.csp")])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "assert P [T= P: Passed — 2 states, 2 transitions",
        ))
        .stdout(predicate::str::contains(
            "assert P [T= Q: Failed — 2 states, 1 transition,",
        ))
        .stdout(predicate::str::contains(
            "counterexample: after <a> the implementation performs c, which the specification does not allow",
        ))
        .stdout(predicate::str::contains(
            "counterexample: after <a, c> the process deadlocks",
        ));
    // Only the passing ones: exit 0.
    symcsp()
        .args([
            "check",
            &fixture("check/small.csp"),
            "--assert",
            "1",
            "--assert",
            "4",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Failed").not());
}

#[test]
fn a_specification_never_stable_is_said_to_allow_no_stable_state() {
    symcsp()
        .args(["check", &fixture("check/never_stable.csp")])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "assert DIV [F= STOP: Failed — 1 state, 0 transitions",
        ))
        .stdout(predicate::str::contains(
            "counterexample: after <> the implementation can be stable (it accepts only {}), \
             which the specification never is there",
        ))
        .stdout(predicate::str::contains(
            "counterexample: after <> the implementation can be stable (it accepts only {b}), \
             which the specification never is there",
        ))
        // A specification stable somewhere says what it required.
        .stdout(predicate::str::contains(
            "counterexample: after <> the implementation refuses {a} (it accepts only {}), \
             which the specification does not allow",
        ))
        .stdout(predicate::str::contains("refuses {}").not());
}

#[test]
fn brief_says_each_counterexample_in_one_line() {
    let out = symcsp()
        .args([
            "check",
            "models/lockfreequeue.csp",
            "--assert",
            "1",
            "--brief",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("assert System :[deadlock free]: Failed — 25129 states"));
    assert_eq!(
        lines[1],
        "    counterexample: after <enqCall.T0.A, enqCall.T1.A, enqReturn.T0, enqCall.T0.A, \
         enqReturn.T1, enqCall.T1.A> the process deadlocks"
    );
    // A τ-loop is not named by the steps of a path it does not show.
    symcsp()
        .args(["check", "models/tokenring.csp", "--assert", "4", "--brief"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "    counterexample: after <> the process can perform τ for ever (divergence)\n",
        ))
        .stdout(predicate::str::contains("going round").not())
        .stdout(predicate::str::contains("path (τ included)").not());
}

#[test]
fn a_divergence_shows_the_tau_loop_it_goes_round() {
    symcsp()
        .args(["check", "models/tokenring.csp", "--assert", "4"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "after <> the process can perform τ for ever (divergence), going round steps 1–4",
        ))
        .stdout(predicate::str::contains(
            "      then round and round, for ever:\n        1  τ",
        ))
        .stdout(predicate::str::contains(
            "step   4: pass.N3.N0 → Node(N0, true, false)",
        ));
}

#[test]
fn check_reports_json_with_counterexamples() {
    let out = symcsp()
        .args(["check", &fixture("check/small.csp"), "--format", "json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    let assertions = report["assertions"].as_array().expect("a list");
    assert_eq!(assertions.len(), 4);
    let second = &assertions[1];
    assert_eq!(second["index"], 2);
    assert_eq!(second["line"], 8);
    assert_eq!(second["text"], "assert P [T= Q");
    assert_eq!(second["result"], "failed");
    let cx = &second["counterexample"];
    assert_eq!(cx["kind"], "trace");
    assert_eq!(cx["trace"], serde_json::json!(["a"]));
    assert_eq!(cx["error_event"], "c");
    assert_eq!(cx["components"][0]["initial"], "Q");
    let deadlock = &assertions[2]["counterexample"];
    assert_eq!(deadlock["kind"], "deadlock");
    assert_eq!(deadlock["trace"], serde_json::json!(["a", "c"]));
    assert_eq!(assertions[0]["result"], "passed");
    assert_eq!(assertions[0]["counterexample"], serde_json::Value::Null);
}

#[test]
fn check_budgets_give_exit_3_and_bad_requests_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counter.csp");
    std::fs::write(
        &file,
        "channel up : {0, 1}\nCount(n) = up!(n % 2) -> Count(n + 1)\nassert Count(0) :[deadlock free]\n",
    )
    .unwrap();
    symcsp()
        .args(["check", file.to_str().unwrap(), "--max-states", "2000"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("Inconclusive"))
        .stdout(predicate::str::contains("stopped by the state budget"));
    symcsp()
        .args(["check", file.to_str().unwrap(), "--timeout", "0.2"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("stopped by the time-out"));
    for bad in ["-1", "1e30", "NaN"] {
        symcsp()
            .args(["check", file.to_str().unwrap(), &format!("--timeout={bad}")])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "expected a number of seconds (0 for no limit)",
            ));
    }
    symcsp()
        .args(["check", file.to_str().unwrap(), "--assert", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("there is no assertion 2"));
    symcsp()
        .args(["check", &fixture("invalid/bad_pattern.csp")])
        .assert()
        .code(2);
}

// ---------------------------------------------------------------- issue 22

/// What `symcsp ARGS` prints on stdout, exiting with `code`.
fn stdout_of(args: &[&str], code: i32) -> String {
    let output = symcsp().args(args).assert().code(code).get_output().clone();
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// What `symcsp ARGS` writes on stderr, exiting with `code`.
fn stderr_of(args: &[&str], code: i32) -> String {
    let output = symcsp().args(args).assert().code(code).get_output().clone();
    String::from_utf8(output.stderr).expect("UTF-8")
}

/// The one JSON object `symcsp ARGS` prints, exiting with `code`.
fn json_of(args: &[&str], code: i32) -> serde_json::Value {
    serde_json::from_str(&stdout_of(args, code)).expect("one JSON object")
}

/// Writes `text` to a script in a fresh directory (kept alive by the
/// returned guard).
fn script(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.csp");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

/// An error is never hidden behind a failure: 2 before 1 before 3.
#[test]
fn check_exit_codes_put_errors_first_then_failures_then_inconclusive() {
    let (_dir, file) = script(
        "channel a, c\nP = a -> P\nQ = a -> c -> STOP\nR(n) = a -> R(n + 1)\n\
         assert P [T= Q\nassert P [T= head(<>)\nassert R(0) :[deadlock free]\n",
    );
    let text = stdout_of(&["check", &file, "--max-states", "50"], 2);
    assert!(text.contains("assert P [T= Q: Failed"), "{text}");
    assert!(text.contains("assert P [T= head(<>): Error"), "{text}");
    assert!(
        text.contains("assert R(0) :[deadlock free]: Inconclusive"),
        "{text}"
    );
    for (chosen, code) in [(["1", "3"], 1), (["3", "3"], 3)] {
        symcsp()
            .args(["check", &file, "--max-states", "50"])
            .args(["--assert", chosen[0], "--assert", chosen[1]])
            .assert()
            .code(code);
    }
}

#[test]
fn check_says_when_there_is_nothing_to_check() {
    let (_dir, file) = script("P = STOP\n");
    symcsp()
        .args(["check", &file])
        .assert()
        .success()
        .stdout(predicate::str::ends_with(
            "script.csp: no assertions, nothing to check\n",
        ));
    let report = json_of(&["check", &file, "--format", "json"], 0);
    assert_eq!(report["assertions"], serde_json::json!([]));
}

/// `symcsp FILE | cat` refuses what the animator would refuse: syntax
/// and name errors alike, exit 2 and nothing on stdout.
#[test]
fn a_script_described_through_a_pipe_exits_two_on_an_error() {
    symcsp()
        .arg(fixture("invalid/unclosed_paren.csp"))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("unclosed `(`"));
    let (_dir, file) = script("P = Q\n");
    symcsp()
        .arg(&file)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("`Q` is not defined"));
}

#[test]
fn explore_stores_exactly_the_state_budget() {
    let args = [
        "explore",
        "models/ring.csp",
        "System",
        "--max-states",
        "100",
    ];
    let text = stdout_of(&args, 3);
    assert!(text.contains("states             100\n"), "{text}");
    assert!(
        text.contains("stopped by the state budget of 100 states (--max-states)"),
        "{text}"
    );
    // A space of exactly the budget is complete.
    symcsp()
        .args([
            "explore",
            "models/buffers.csp",
            "System",
            "--max-states",
            "9",
        ])
        .assert()
        .success();
}

/// The two engines agree on states, transitions and deadlocks; each says
/// what it counts as a component.
#[test]
fn explore_says_what_its_engine_counts_as_components() {
    for (engine, line) in [
        (
            "supercombinator",
            "components         10 (leaves of the supercombinator)\n",
        ),
        (
            "terms",
            "components         1 (the whole process as one term)\n",
        ),
    ] {
        symcsp()
            .args(["explore", "models/philosophers.csp", "System"])
            .args(["--engine", engine])
            .assert()
            .success()
            .stdout(predicate::str::contains("states             1420\n"))
            .stdout(predicate::str::contains(line));
    }
}

/// A state that has terminated is not a deadlock.
#[test]
fn explore_tells_terminated_states_from_deadlocks() {
    for (process, deadlocks, terminated) in [
        ("SKIP", 0, 1),
        ("STOP", 1, 0),
        ("a -> SKIP [] a -> STOP", 1, 1),
    ] {
        let (_dir, file) = script("channel a\n");
        let report = json_of(&["explore", &file, process, "--format", "json"], 0);
        assert_eq!(report["deadlock_states"], deadlocks, "{process}");
        assert_eq!(report["terminated_states"], terminated, "{process}");
    }
}

/// Exploration says what its states took in memory: the store's rows
/// and index as allocated, which grow with the states.
#[test]
fn explore_reports_the_bytes_its_states_take() {
    let bytes = |model: &str| {
        let report = json_of(&["explore", model, "System", "--format", "json"], 0);
        let states = report["states"].as_u64().expect("states");
        let bytes = report["store_bytes"].as_u64().expect("store_bytes");
        (states, bytes)
    };
    let (small_states, small) = bytes("models/buffers.csp");
    let (large_states, large) = bytes("models/lockfreequeue.csp");
    assert!(small > 0 && large > small, "{small} {large}");
    // Rows of 7 one-byte components and an index of 8-byte words at most
    // three quarters full, in chunks: well under 100 bytes a state.
    let per_state = large as f64 / large_states as f64;
    assert!(per_state > 7.0 && per_state < 100.0, "{per_state}");
    assert!(small_states < large_states);
}

/// JSON numbers steps, the components that moved and a τ-loop's start
/// from 1, as the text does.
#[test]
fn json_counterexamples_are_numbered_as_the_text_is() {
    let small = fixture("check/small.csp");
    let report = json_of(&["check", &small, "--assert", "2", "--format", "json"], 1);
    let cx = &report["assertions"][0]["counterexample"];
    assert_eq!(cx["steps"][0]["moved"], serde_json::json!([1]));
    let moves = &cx["components"][0]["moves"];
    assert_eq!(moves[0]["step"], 1);
    assert_eq!(moves[1]["step"], 2);
    let args = [
        "check",
        "models/tokenring.csp",
        "--assert",
        "4",
        "--format",
        "json",
    ];
    let report = json_of(&args, 1);
    // The text says "going round steps 1–4".
    assert_eq!(report["assertions"][0]["counterexample"]["loop_from"], 1);
}

/// Errors in JSON are fields beside the rendered text.
#[test]
fn json_errors_are_fields_beside_the_rendered_text() {
    // A value outside its channel's type is seen when the check runs.
    let (_dir, file) = script("channel a : {0..1}\nP = a?x -> P\nassert P [T= a!5 -> STOP\n");
    let report = json_of(&["check", &file, "--format", "json"], 2);
    let error = &report["assertions"][0]["error"];
    assert!(error["file"].as_str().unwrap().ends_with("script.csp"));
    assert_eq!(error["line"], 3);
    assert_eq!(error["column"], 16);
    assert_eq!(
        error["message"],
        "5 is not a valid field 1 of `a`: it is not in {0, 1}"
    );
    assert_eq!(error["notes"][0], "while building a.5");
    assert!(
        error["rendered"]
            .as_str()
            .unwrap()
            .starts_with("error: 5 is not a valid field 1 of `a`: it is not in {0, 1}\n --> ")
    );
    // A script that does not load: one JSON object on stdout too.
    let output = symcsp()
        .args([
            "check",
            &fixture("invalid/unclosed_paren.csp"),
            "--format",
            "json",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["file"], "tests/fixtures/invalid/unclosed_paren.csp");
    let error = &report["errors"][0];
    assert_eq!(error["line"], 2);
    assert_eq!(error["column"], 5);
    assert!(String::from_utf8_lossy(&output.stderr).contains("unclosed `(`"));
    let args = ["explore", "models/buffers.csp", "Sytem", "--format", "json"];
    let report = json_of(&args, 2);
    assert_eq!(report["errors"][0]["message"], "`Sytem` is not defined");
}

#[test]
fn counts_of_one_are_singular() {
    let (_dir, file) =
        script("channel a\nassert a -> STOP :[has trace]: <a>\nassert STOP :[deadlock free]\n");
    symcsp()
        .args(["check", &file])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "assert STOP :[deadlock free]: Failed — 1 state, 0 transitions,",
        ));
}

/// `--timeout 0` means no time limit, as when it is not given.
#[test]
fn a_timeout_of_zero_is_no_limit() {
    symcsp()
        .args(["check", &fixture("check/small.csp"), "--timeout", "0"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Inconclusive").not());
}

#[test]
fn the_readmes_check_line_is_what_the_model_gives() {
    let out = symcsp()
        .args(["check", "models/philosophers.csp", "--assert", "3"])
        .output()
        .unwrap();
    let first = String::from_utf8(out.stdout).unwrap();
    let line = first.lines().next().unwrap();
    // The README quotes the line up to its time, wrapped as prose.
    let quoted = line.rsplit_once(", ").unwrap().0;
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let readme = words(&std::fs::read_to_string("README.md").unwrap());
    assert!(
        readme.contains(&words(quoted)),
        "README does not quote `{quoted}`"
    );
}

/// `prioritise` and `timed_priority` are checked from the command line
/// like any process: every assertion of the fixture holds, the reduced
/// one on representatives.
#[test]
fn check_answers_prioritised_assertions() {
    symcsp()
        .args(["check", &fixture("check/priority.csp")])
        .assert()
        .code(0)
        .stdout(
            predicates::str::contains(
                "assert Sys :[deadlock free] :[symmetry reduce]: T: Passed — 3 representatives",
            )
            .and(predicates::str::contains(
                "assert not Urgent :[has trace]: <tock, c>: Passed",
            )),
        );
    symcsp()
        .args([
            "explore",
            &fixture("check/priority.csp"),
            "prioritise(Free, <{| grant |}, {| req |}>)",
        ])
        .assert()
        .code(0)
        // Grants first: a client that asked is served before the other
        // can ask, so both never wait at once (3 states, 4 moves).
        .stdout(
            predicates::str::contains("states             3")
                .and(predicates::str::contains("transitions        4")),
        );
}

/// An assertion is named as written, without the comments after or in it.
#[test]
fn assertions_are_named_without_their_comments() {
    let (_dir, file) = script(
        "channel a\nassert a -> STOP [T= STOP -- trailing\n\
         assert SKIP :[deadlock free] {- block -}\nassert STOP [T= {- inside -} STOP\n",
    );
    let text = stdout_of(&["check", &file], 0);
    for name in [
        "assert a -> STOP [T= STOP: Passed",
        "assert SKIP :[deadlock free]: Passed",
        "assert STOP [T= STOP: Passed",
    ] {
        assert!(text.contains(name), "{text}");
    }
    let report = json_of(&["check", &file, "--format", "json"], 0);
    assert_eq!(
        report["assertions"][1]["text"],
        "assert SKIP :[deadlock free]"
    );
}

/// Without a terminal `symcsp FILE` prints the summary; a `--process`,
/// `--symmetry` or `--after` meant for the animator is said to be
/// unused, not silently dropped.
#[test]
fn a_process_for_the_animator_without_a_terminal_is_said_to_be_unused() {
    for (option, value) in [
        ("--symmetry", "Foo"),
        ("--process", "Nope"),
        ("--after", "link.N0.A.N1"),
    ] {
        symcsp()
            .args(["models/ring.csp", option, value])
            .assert()
            .success()
            .stdout(predicate::str::contains("declarations"))
            .stderr(predicate::str::contains(format!(
                "note: {option} is for the animator, which needs a terminal"
            )));
    }
}

/// The budget options of `symcsp FILE` bound the checks run from the
/// animator: without a terminal they are said to be unused.
#[test]
fn the_animator_s_budget_options_without_a_terminal_are_said_to_be_unused() {
    symcsp()
        .args(["models/ring.csp", "--max-states", "100", "--timeout", "5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("declarations"))
        .stderr(predicate::str::contains(
            "note: the budget options are for checks run from the animator",
        ));
    symcsp()
        .args(["models/ring.csp", "--max-states", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'lots'"));
}

/// A mistyped command's name is said to be one, with the command meant
/// (clap read it as the animator's script and refused what followed).
#[test]
fn a_mistyped_command_is_named_with_the_command_meant() {
    symcsp()
        .args(["chek", "models/ring.csp"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: `chek` is neither a command nor a file: did you mean `symcsp check`?",
        ));
    // After the animator's options, and alone.
    symcsp()
        .args(["--timeout", "5", "explor"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean `symcsp explore`?"));
    // After `--` it is a file, whatever it is called.
    symcsp()
        .args(["--", "chek"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read `chek`"));
    // A file that is not there and no command's name is the file's error.
    symcsp()
        .args(["nothing-here.csp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read `nothing-here.csp`"));
}

/// The animator's options before a command's name would be read as the
/// animator's and left unused: refused, saying where they go.
#[test]
fn the_animator_s_options_before_a_command_are_refused_not_dropped() {
    symcsp()
        .args(["--symmetry", "off", "explore", "models/ring.csp", "System"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: --symmetry before `explore` is the animator's",
        ))
        .stderr(predicate::str::contains("`symcsp explore --symmetry ...`"));
    symcsp()
        .args([
            "--max-states",
            "5",
            "--threads",
            "1",
            "check",
            "models/ring.csp",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --max-states, --threads before `check` are the animator's",
        ));
    // An option the command does not take is said to be the animator's.
    symcsp()
        .args(["--max-states", "5", "rep", "models/ring.csp"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`rep` takes no --max-states"))
        .stderr(predicate::str::contains("symcsp rep --max-states").not());
    // After the command's name they are the command's own.
    symcsp()
        .args([
            "explore",
            "models/ring.csp",
            "System",
            "--symmetry",
            "off",
            "--max-states",
            "5",
        ])
        .assert()
        .code(3);
}

/// An event where a set of events belongs: the note shows how to write
/// the set.
#[test]
fn an_event_for_a_set_of_events_is_answered_with_the_set_written_out() {
    let (_dir, file) = script(
        "channel a : {0..1}\nchannel b\nP = a?x -> P\nQ = P \\ b\nassert Q :[deadlock free]\n",
    );
    let text = stderr_of(&["check", &file], 2);
    assert!(
        text.contains("error: Couldn't match expected type {Event} with actual type Event"),
        "{text}"
    );
    assert!(
        text.contains(
            "note: a set of events is written in braces: `{b}` for the one event, `{| b |}` \
             for every event that begins with it"
        ),
        "{text}"
    );
}

/// `eval FILE` on a script without `print` says there is nothing to do.
#[test]
fn eval_without_prints_says_there_is_nothing_to_evaluate() {
    let (_dir, file) = script("channel a\nP = a -> P\n");
    symcsp()
        .args(["eval", &file])
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::ends_with(
            "script.csp: no `print` declarations, nothing to evaluate (`symcsp eval FILE EXPR` \
             evaluates an expression)\n",
        ));
}

/// An operand of the wrong type is refused when the script loads, the
/// caret under the operand, not under the whole operator expression
/// around it.
#[test]
fn a_wrong_operand_is_pointed_at_itself() {
    let cases = [
        (
            "P = a -> STOP [] 3",
            "3",
            "Couldn't match expected type Proc with actual type Int",
        ),
        (
            "P = (a -> STOP) ||| {a}",
            "{a}",
            "Couldn't match expected type Proc with actual type {Event}",
        ),
        (
            "P = a -> STOP \\ a",
            "a",
            "Couldn't match expected type {Event} with actual type Event",
        ),
        (
            "P = STOP [| a |] STOP",
            "a",
            "Couldn't match expected type {Event} with actual type Event",
        ),
        (
            "P = a -> 3",
            "3",
            "Couldn't match expected type Proc with actual type Int",
        ),
        (
            "P = true & 3",
            "3",
            "Couldn't match expected type Proc with actual type Int",
        ),
        (
            "P = ||| i : {1, 2} @ i",
            "i",
            "Couldn't match expected type Proc with actual type Int",
        ),
        (
            "P = [] i : {1, 2} @ a -> <i>",
            "<i>",
            "Couldn't match expected type Proc with actual type <Int>",
        ),
    ];
    for (line, operand, message) in cases {
        let (_dir, file) = script(&format!("channel a\n{line}\nassert P :[deadlock free]\n"));
        let text = stderr_of(&["check", &file], 2);
        assert!(text.contains(message), "{line}:\n{text}");
        // The operand is the last one of the line written so: its caret
        // starts where it does and is as long.
        let column = line.rfind(operand).expect("in the line");
        let caret = format!("| {}{}\n", " ".repeat(column), "^".repeat(operand.len()));
        assert!(
            text.contains(&caret),
            "{line}: expected the caret `{caret}` in\n{text}"
        );
    }
}

/// A file that is no session is refused as every other error is, with
/// where it stopped reading.
#[test]
fn a_session_that_is_not_one_is_an_error_in_the_usual_form() {
    symcsp()
        .args(["--session", "models/ring.csp"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: `models/ring.csp` is not a symcsp session",
        ))
        .stderr(predicate::str::contains("at line 1, column 1:"));
}

/// Issue 62: a script with many mistakes shows the first 20, as FDR's
/// front end stops after about twenty, and says how many more there are;
/// `--all-errors` (before or after the command) shows every one, and
/// JSON always holds them all — name errors and the lexical errors found
/// before parsing alike.
#[test]
fn a_load_shows_twenty_errors_and_counts_the_rest() {
    /// A script's name, its `i`-th line, the place of the last error
    /// shown and of the first left out.
    type Case = (
        &'static str,
        fn(usize) -> String,
        &'static str,
        &'static str,
    );
    let cases: [Case; 2] = [
        (
            "undefined.csp",
            |i| format!("P{i} = undefined{i}"),
            "`undefined19` is not defined",
            "`undefined20`",
        ),
        (
            "stray.csp",
            |i| format!("P{i} = STOP \u{e9}"),
            "stray.csp:20:12",
            "stray.csp:21:12",
        ),
    ];
    for (name, line, last_shown, first_hidden) in cases {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join(name);
        let lines: Vec<String> = (0..30).map(line).collect();
        std::fs::write(&script, lines.join("\n") + "\n").unwrap();
        let errors = |args: &[&str]| {
            let out = Command::cargo_bin("symcsp")
                .unwrap()
                .args(args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2));
            String::from_utf8(out.stderr).unwrap()
        };
        let path = script.to_str().unwrap();
        let capped = errors(&["check", path]);
        assert_eq!(capped.matches("\nerror: ").count() + 1, 20, "{capped}");
        assert!(capped.contains(last_shown), "{capped}");
        assert!(!capped.contains(first_hidden), "{capped}");
        assert!(
            capped.ends_with(
                "10 more errors not shown: the first 20 are, as FDR stops after about twenty \
                 (--all-errors shows every one)\n"
            ),
            "{capped}"
        );
        for args in [
            ["check", path, "--all-errors"],
            ["--all-errors", "check", path],
        ] {
            let all = errors(&args);
            assert_eq!(all.matches("\nerror: ").count() + 1, 30, "{all}");
            assert!(!all.contains("not shown"), "{all}");
        }
        let out = Command::cargo_bin("symcsp")
            .unwrap()
            .args(["check", path, "--format", "json"])
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["errors"].as_array().unwrap().len(), 30, "{name}");
    }
}

#[test]
fn completions_and_the_manual_page_are_generated_from_the_options() {
    for (shell, mark, option) in [
        ("bash", "_symcsp()", "--symmetry"),
        ("zsh", "#compdef symcsp", "--symmetry"),
        ("fish", "complete -c symcsp", "-l symmetry"),
        ("nushell", "export extern symcsp", "--symmetry"),
        (
            "elvish",
            "edit:completion:arg-completer[symcsp]",
            "--symmetry",
        ),
        ("powershell", "Register-ArgumentCompleter", "--symmetry"),
    ] {
        let out = symcsp().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(mark),
            "{shell}: {}",
            &text[..200.min(text.len())]
        );
        // Every command and a command's option are offered.
        for word in ["check", "explore", "lsp", option] {
            assert!(text.contains(word), "{shell} offers {word}");
        }
    }
    // The values of `--strategy` and `--symmetry`'s words are offered.
    let bash = symcsp().args(["completions", "bash"]).output().unwrap();
    let bash = String::from_utf8(bash.stdout).unwrap();
    assert!(bash.contains(r#"compgen -W "fdr sorted segmented flooding exact""#));
    assert!(bash.contains(r#"compgen -W "auto off structural""#));
    let nushell = symcsp().args(["completions", "nushell"]).output().unwrap();
    let nushell = String::from_utf8(nushell.stdout).unwrap();
    assert!(nushell.contains(r#"[ "fdr" "sorted" "segmented" "flooding" "exact" ]"#));
    symcsp()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'tcsh'"));
    let out = symcsp().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH symcsp 1"), "{}", &page[..200]);
    assert!(page.contains("refinement checker for CSPM"));
    assert!(page.contains("symcsp\\-lsp"), "the commands are listed");
    // The server's help sets an editor up without the repository's docs.
    symcsp()
        .args(["lsp", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("vim.lsp.config(\"symcsp\""))
        .stdout(predicate::str::contains("symcsp.check URI N"));
    // Each command's page, as the list names it, with its options.
    let out = symcsp().args(["man", "check"]).output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH symcsp-check 1"), "{}", &page[..200]);
    assert!(page.contains("\\fBsymcsp check\\fR"), "{}", &page[..400]);
    assert!(page.contains("\\-\\-max\\-states"), "its options");
    // The synopsis gives each option its value, the global ones too.
    let synopsis = &page[page.find(".SH SYNOPSIS").unwrap()..page.find(".SH DESCRIPTION").unwrap()];
    for option in [
        "[\\fB\\-\\-timeout\\fR \\fISECS\\fR]",
        "[\\fB\\-\\-assert\\fR \\fIN\\fR]...",
        "[\\fB\\-\\-por\\fR [\\fIon|off\\fR]]",
        "[\\fB\\-\\-all\\-errors\\fR]",
    ] {
        assert!(synopsis.contains(option), "{option} in {synopsis}");
    }
    // With what clap does not know: the exit status and the environment.
    let sections = |page: &str| -> Vec<String> {
        page.lines()
            .filter(|l| l.starts_with(".SH"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        sections(&page),
        [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH \"EXIT STATUS\"",
            ".SH \"ENVIRONMENT\""
        ]
    );
    let status = &page[page.find("EXIT STATUS").unwrap()..page.find(".SH \"ENVIRONMENT").unwrap()];
    for (code, meaning) in [
        ("0", "every assertion checked passed"),
        ("1", "an assertion failed"),
        ("2", "an assertion that could not be checked"),
        ("3", "inconclusive"),
    ] {
        let tag = format!("\\fB{code}\\fR\n");
        let text = status
            .split(".TP")
            .find_map(|item| item.trim_start().strip_prefix(&tag));
        assert!(
            text.is_some_and(|text| text.contains(meaning)),
            "{code}: {status}"
        );
    }
    assert!(
        status.contains("2 comes before 1 and 1 before 3"),
        "{status}"
    );
    assert!(page.contains("\\fBSYMCSP_PHASES\\fR"));
    // A command without budgets or verdicts has only its codes; the
    // main page the animator's environment, before its version.
    let parse = symcsp().args(["man", "parse"]).output().unwrap();
    let parse = String::from_utf8(parse.stdout).unwrap();
    assert!(
        parse.contains("\\fB2\\fR") && !parse.contains("\\fB3\\fR") && !parse.contains("\\fB1\\fR")
    );
    assert!(!parse.contains("ENVIRONMENT"), "parse reads no variable");
    let main = symcsp().arg("man").output().unwrap();
    let main = String::from_utf8(main.stdout).unwrap();
    for name in ["SYMCSP_CONFIG_DIR", "SYMCSP_STATE_DIR", "NO_COLOR"] {
        assert!(main.contains(&format!("\\fB{name}\\fR")), "{name}");
    }
    assert!(main.find(".SH \"ENVIRONMENT\"").unwrap() < main.find(".SH VERSION").unwrap());
    symcsp()
        .args(["man", "chekc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "symcsp has no command `chekc`: its commands are parse, eval",
        ));
}

/// A process typed on the command line is an expression, not a file: an
/// unclosed bracket in it says so.
#[test]
fn an_unclosed_bracket_in_a_typed_process_is_at_the_end_of_the_expression() {
    Command::cargo_bin("symcsp")
        .unwrap()
        .args(["explore", "models/buffers.csp", "System [| {| left |} |"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: unclosed `[`: no `]` closes it before the end of the expression\n --> <process>:1:8",
        ));
}

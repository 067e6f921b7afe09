//! `--spill-dir` and `--max-disk` as a user meets them: the same report
//! with and without spilling, a clear error for a folder that cannot
//! hold the spill, and nothing left behind, even by a killed run.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

fn stdout(args: &[&str]) -> String {
    let output = symcsp().args(args).assert().get_output().clone();
    String::from_utf8(output.stdout).unwrap()
}

/// The lines of an exploration's report that spilling must not change.
fn counts(report: &str) -> Vec<&str> {
    let kept = [
        "states ",
        "transitions ",
        "deadlock",
        "terminated",
        "depth ",
    ];
    report
        .lines()
        .filter(|line| kept.iter().any(|k| line.starts_with(k)))
        .collect()
}

const DINING: &str = "benches/models/dining.csp";

#[test]
fn exploring_and_checking_while_spilling_report_what_memory_alone_reports() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let spilling = ["--spill-dir", folder, "--spill-at-states", "5000"];
    let alone = stdout(&["explore", DINING, "System"]);
    let spilt = stdout(&[&["explore", DINING, "System"][..], &spilling].concat());
    assert_eq!(counts(&spilt), counts(&alone));
    assert!(
        spilt.lines().any(|line| line.starts_with("on disk ")),
        "the report says what went to disk:\n{spilt}"
    );
    // A failing check: the same verdict, counts and counterexample.
    let check = ["check", "models/philosophers.csp", "--assert", "3"];
    let alone = stdout(&check);
    let spilt = stdout(
        &[
            &check[..],
            &["--spill-dir", folder, "--spill-at-states", "50"],
        ]
        .concat(),
    );
    let without_time = |report: &str| {
        report
            .lines()
            .map(|line| line.split(" states, ").next().unwrap_or(line).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(without_time(&spilt), without_time(&alone));
    assert!(alone.contains("Failed"), "{alone}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn each_process_of_a_local_cluster_spills_and_the_counts_stay() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let explore = ["cluster", "--local", "2", "explore", DINING, "System"];
    let alone = stdout(&explore);
    let spilling = ["--spill-dir", folder, "--spill-at-states", "2000"];
    let spilt = stdout(&[&explore[..], &spilling].concat());
    assert_eq!(counts(&spilt), counts(&alone));
    assert!(
        counts(&alone).contains(&"states             930431"),
        "{alone}"
    );
    assert!(
        spilt.lines().any(|line| line.starts_with("on disk ")),
        "the report says what went to disk:\n{spilt}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_folder_that_cannot_hold_the_spill_is_one_error_naming_it() {
    symcsp()
        .args([
            "explore",
            DINING,
            "System",
            "--spill-dir",
            "/nonexistent/spill",
        ])
        .assert()
        .code(2)
        .stderr("error: cannot spill to `/nonexistent/spill`: it does not exist\n");
    symcsp()
        .args(["check", DINING, "--spill-dir", "Cargo.toml"])
        .assert()
        .code(2)
        .stderr("error: cannot spill to `Cargo.toml`: it is not a folder\n");
    symcsp()
        .args(["explore", DINING, "System", "--max-disk", "1G"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--spill-dir"));
}

#[test]
fn a_disk_budget_too_small_is_inconclusive_naming_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let spilling = ["--spill-dir", folder, "--spill-at-states", "5000"];
    let args = [
        &["explore", DINING, "System", "--max-disk", "200K"][..],
        &spilling,
    ]
    .concat();
    let report = stopped_on_disk(symcsp().args(&args).output().unwrap());
    assert!(
        report.contains(&format!(
            "the spill folder `{folder}` would pass the disk budget"
        )),
        "{report}"
    );
}

/// The report of an exploration the disk stopped (inconclusive, exit 3).
fn stopped_on_disk(output: std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(3));
    let report = String::from_utf8(output.stdout).unwrap();
    assert!(
        report.contains("incomplete         stopped by the disk budget"),
        "{report}"
    );
    report
}

#[test]
fn a_disk_that_fills_mid_search_stops_it_inconclusive_naming_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    // A file-size limit of 150 KB refuses the spill's writes as a full
    // disk does (its signal ignored, the write fails instead).
    let limited = "trap '' XFSZ; ulimit -f 300; exec \"$0\" \"$@\"";
    let output = std::process::Command::new("sh")
        .args(["-c", limited])
        .arg(assert_cmd::cargo::cargo_bin("symcsp"))
        .args(["explore", DINING, "System", "--threads", "1"])
        .args(["--spill-dir", folder, "--spill-at-states", "5000"])
        .output()
        .unwrap();
    let report = stopped_on_disk(output);
    assert!(
        report.contains(&format!(
            "note               cannot write to the spill folder `{folder}`: "
        )),
        "{report}"
    );
    assert_eq!(std::fs::read_dir(folder).unwrap().count(), 0);
}

/// Runs `args` until the spill is under way, then kills the process.
fn killed_while_spilling(args: &[&str], tmp: &Path) {
    let mut child = std::process::Command::cargo_bin("symcsp")
        .unwrap()
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let _ = child.kill();
    let _ = child.wait();
}

/// Four counters side by side: infinitely many states, in levels that
/// widen fast, so a search is spilling when it is killed, never done.
const COUNTERS: &str = "channel up, down : {0..3}
C(i, n) = up.i -> C(i, n + 1) [] n > 0 & down.i -> C(i, n - 1)
System = ||| i : {0..3} @ C(i, 0)
";

#[test]
fn a_killed_run_leaves_nothing_a_next_run_trips_on() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tempfile::tempdir().unwrap();
    let counters = script.path().join("counters.csp");
    std::fs::write(&counters, COUNTERS).unwrap();
    let counters = counters.to_str().unwrap();
    let folder = tmp.path().join("spill");
    std::fs::create_dir(&folder).unwrap();
    let spilling = ["--spill-at-states", "2000"];
    let given = [
        &[
            "explore",
            counters,
            "System",
            "--spill-dir",
            folder.to_str().unwrap(),
        ][..],
        &spilling,
    ]
    .concat();
    killed_while_spilling(&given, tmp.path());
    // Its files were unlinked as they were made.
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    std::fs::remove_dir(&folder).unwrap();
    // An automatic folder: left by the killed run with only its lock,
    // removed by the next run that makes one, which removes its own as
    // it ends.
    let auto = [
        &["explore", counters, "System", "--spill-dir", "auto"][..],
        &spilling,
    ]
    .concat();
    killed_while_spilling(&auto, tmp.path());
    let abandoned: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
    assert_eq!(abandoned.len(), 1, "the killed run's folder: {abandoned:?}");
    // Only its lock file is in it.
    let inside = std::fs::read_dir(abandoned[0].path()).unwrap().count();
    assert_eq!(inside, 1);
    let started = Instant::now();
    symcsp()
        .args([
            "explore",
            "models/buffers.csp",
            "System",
            "--spill-dir",
            "auto",
        ])
        .env("TMPDIR", tmp.path())
        .assert()
        .success();
    assert!(started.elapsed() < Duration::from_secs(60));
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

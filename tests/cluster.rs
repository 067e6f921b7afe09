//! Exploration on timely dataflow, as a user runs it: `--workers W` in
//! one process and `symcsp cluster --local N` across processes on
//! 127.0.0.1 give every shipped model's and fixture's counts exactly as
//! one search does, reduced and unreduced; a state budget holds for the
//! whole cluster; and a bad topology, an unreachable or busy address, a
//! peer with another script and a peer that dies are clear errors within
//! a bounded time, never a hang.

use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::cargo_bin;
use serde_json::Value;

mod on_workers;
mod shipped;
use shipped::models;

/// The counts two explorations must share.
const COUNTS: [&str; 6] = [
    "states",
    "transitions",
    "deadlock_states",
    "terminated_states",
    "depth",
    "complete",
];

fn json(args: &[&str]) -> Value {
    let output = Command::cargo_bin("symcsp")
        .expect("the binary")
        .args(args)
        .args(["--format", "json"])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}\nstdout: {text}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn counts(report: &Value) -> Vec<Value> {
    COUNTS.iter().map(|k| report[k].clone()).collect()
}

/// `explore` on one search, then on one worker (which stores each
/// successor as met), on threads and on 2 and 3 processes: the same
/// counts, and workers whose states add up to them.
fn explores_alike(file: &str, extra: &[&str]) {
    let one = json(&[&["explore", file], extra].concat());
    let spreads: [&[&str]; 4] = [
        &["explore", file, "--workers", "1"],
        &["explore", file, "--workers", "3"],
        &["cluster", "--local", "2", "explore", file],
        &["cluster", "--local", "3", "explore", file, "--workers", "2"],
    ];
    for spread in spreads {
        let many = json(&[spread, extra].concat());
        assert_eq!(counts(&many), counts(&one), "{spread:?} {extra:?}");
        assert_eq!(many["symmetry"], one["symmetry"], "{spread:?} {extra:?}");
        let workers = many["cluster"]["workers"].as_array().expect("workers");
        let processes = many["cluster"]["processes"].as_u64().expect("processes");
        let per_process = many["cluster"]["workers_per_process"].as_u64().expect("w");
        assert_eq!(workers.len() as u64, processes * per_process);
        let owned: u64 = workers.iter().map(|w| w["states"].as_u64().unwrap()).sum();
        assert_eq!(owned, one["states"].as_u64().unwrap(), "{spread:?}");
        if processes > 1 && owned > 10 {
            assert!(many["cluster"]["bytes_between_processes"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn every_model_explores_alike_on_threads_and_processes() {
    for model in models() {
        let file = format!("models/{model}.csp");
        explores_alike(&file, &[]);
        explores_alike(&file, &["--symmetry", "auto"]);
    }
}

#[test]
fn fixtures_explore_alike_reduced_and_structurally() {
    let terminating = "tests/fixtures/cluster/terminating.csp";
    for process in [
        "System",
        "Painter(Red) ||| Job",
        "(Painter(Red) [| {paint.Red} |] Painter(Red)) ||| Painter(Blue)",
    ] {
        explores_alike(terminating, &[process]);
    }
    let one = json(&["explore", terminating, "Painter(Red) ||| Job"]);
    assert_eq!(one["terminated_states"], 1, "the fixture terminates");
    for (file, extra) in [
        (
            "tests/fixtures/structural/dining.csp",
            &["--symmetry", "structural"][..],
        ),
        (
            "tests/fixtures/structural/balancer.csp",
            &["--symmetry", "structural"],
        ),
        (
            "tests/fixtures/strategies/example43.csp",
            &["--symmetry", "auto", "--strategy", "sorted"],
        ),
        ("tests/fixtures/check/follow.csp", &[]),
        ("tests/fixtures/cluster/compressed.csp", &["Normalised"]),
        ("tests/fixtures/cluster/compressed.csp", &["Bisimilar"]),
        ("tests/fixtures/cluster/compressed.csp", &["Weak"]),
        ("tests/fixtures/cluster/compressed.csp", &["Divergent"]),
        ("tests/fixtures/cluster/compressed.csp", &["Diamond"]),
        ("tests/fixtures/cluster/compressed.csp", &["Loops"]),
        ("tests/fixtures/cluster/compressed.csp", &["Explicit"]),
        ("tests/fixtures/cluster/compressed.csp", &["Nested"]),
        ("tests/fixtures/compress/phils.csp", &[]),
        ("tests/fixtures/timed/tock.csp", &[]),
    ] {
        explores_alike(file, extra);
    }
}

#[test]
fn strategies_that_depend_on_one_process_are_refused_on_workers() {
    for strategy in ["exact", "segmented", "flooding"] {
        let (code, err) = failing(&[
            "explore",
            "models/treebroadcast.csp",
            "--symmetry",
            "auto",
            "--strategy",
            strategy,
            "--workers",
            "2",
        ]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!(
                "the {strategy} strategy does not explore on workers"
            )),
            "{err}"
        );
    }
}

#[test]
fn a_state_budget_holds_for_the_whole_cluster() {
    let report = json(&[
        "cluster",
        "--local",
        "2",
        "explore",
        "models/lockfreequeue.csp",
        "--workers",
        "2",
        "--max-states",
        "5000",
    ]);
    assert_eq!(report["complete"], false);
    assert_eq!(report["stopped"], "state budget");
    let states = report["states"].as_u64().unwrap();
    assert!(states <= 5000 && states > 1000, "{states} states");
    // A budget the state space just fits is not a stop, however the
    // states fall among the workers; one state less is.
    let ring = |max: &str| {
        json(&[
            "cluster",
            "--local",
            "3",
            "explore",
            "models/ijring.csp",
            "--max-states",
            max,
        ])
    };
    let fits = ring("63");
    assert_eq!(
        (fits["states"].as_u64(), &fits["complete"]),
        (Some(63), &Value::Bool(true))
    );
    let short = ring("62");
    assert_eq!(short["complete"], false);
    assert!(short["states"].as_u64().unwrap() <= 62);
}

/// What symcsp with `args` gave, held to a minute.
fn output_of(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("symcsp")
        .expect("the binary")
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("runs")
}

/// Runs symcsp with `args`; its exit code and standard error.
fn failing(args: &[&str]) -> (i32, String) {
    let output = output_of(args);
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn hostfile(lines: &[String]) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().expect("a temporary file");
    std::fs::write(file.path(), lines.join("\n")).expect("written");
    file
}

/// A host file of two processes on free local ports.
fn two_local_hosts() -> tempfile::NamedTempFile {
    hostfile(&[
        format!("127.0.0.1:{}", free_port()),
        format!("127.0.0.1:{}", free_port()),
    ])
}

/// Two processes started on a long chain of levels (and their host
/// file, kept until they end).
fn two_on_the_long_chain() -> (tempfile::NamedTempFile, Child, Child) {
    let hosts = two_local_hosts();
    let path = hosts.path().to_str().unwrap();
    let chain = "tests/fixtures/cluster/long_chain.csp";
    let first = start(chain, path, 0, &[]);
    let second = start(chain, path, 1, &[]);
    (hosts, first, second)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn a_topology_that_cannot_run_is_an_error_at_start() {
    let model = "models/buffers.csp";
    let (code, err) = failing(&["explore", model, "--workers", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--workers"), "{err}");
    let (code, err) = failing(&["explore", model, "--processes", "2", "--process", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--process 2 is out of range"), "{err}");
    let hosts = hostfile(&["127.0.0.1:1".to_string()]);
    let path = hosts.path().to_str().unwrap();
    let (code, err) = failing(&["explore", model, "--processes", "2", "--hostfile", path]);
    assert_eq!(code, 2);
    assert!(err.contains("has 1 address for --processes 2"), "{err}");
    // A host file of two, and no --process: which one is this?
    let two = hostfile(&[
        "127.0.0.1:2101 # first".to_string(),
        String::new(),
        "127.0.0.1:2102".to_string(),
    ]);
    let two = two.path().to_str().unwrap();
    let (code, err) = failing(&["explore", model, "--hostfile", two]);
    assert_eq!(code, 2);
    assert!(
        err.contains("say which one this is with --process I (0 to 1)"),
        "{err}"
    );
    let bad = hostfile(&["127.0.0.1:2101".to_string(), "127.0.0.1".to_string()]);
    let bad = bad.path().to_str().unwrap();
    let (code, err) = failing(&["explore", model, "--hostfile", bad, "--process", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`127.0.0.1` in the host file is not host:port"),
        "{err}"
    );
    let (code, err) = failing(&[
        "cluster",
        "--local",
        "2",
        "explore",
        model,
        "--process",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("leave out --process"), "{err}");
    let (code, err) = failing(&["explore", model, "--workers", "2", "--dot", "x.dot"]);
    assert_eq!(code, 2);
    assert!(err.contains("error: --dot explores in one search"), "{err}");
}

#[test]
fn an_unreachable_process_is_named_within_the_wait() {
    // Process 0's address: a port nobody listens on.
    let hosts = two_local_hosts();
    let path = hosts.path().to_str().unwrap();
    let started = Instant::now();
    let (code, err) = failing(&[
        "explore",
        "models/buffers.csp",
        "--hostfile",
        path,
        "--process",
        "1",
        "--connect-timeout",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot reach process 0 at 127.0.0.1:"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_port_in_use_is_an_error_at_start() {
    let busy = TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = busy.local_addr().unwrap().to_string();
    let hosts = hostfile(&[address.clone(), format!("127.0.0.1:{}", free_port())]);
    let path = hosts.path().to_str().unwrap();
    let (code, err) = failing(&[
        "explore",
        "models/buffers.csp",
        "--hostfile",
        path,
        "--process",
        "0",
        "--connect-timeout",
        "5",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("process 0 cannot listen on {address}")),
        "{err}"
    );
}

/// Starts process `index` of the cluster in `hosts` on `file`.
fn start(file: &str, hosts: &str, index: usize, extra: &[&str]) -> Child {
    Process::new(cargo_bin("symcsp"))
        .args(["explore", file, "--hostfile", hosts])
        .args(["--process", &index.to_string()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

/// Waits for `child` at most `limit`: its exit code and standard error.
fn finish(mut child: Child, limit: Duration) -> (i32, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waits") {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code().unwrap_or(-1), err);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("still running after {limit:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_process_with_another_script_is_refused() {
    let dir = tempfile::tempdir().expect("a directory");
    let other = dir.path().join("buffers.csp");
    let text = std::fs::read_to_string("models/buffers.csp").unwrap();
    std::fs::write(&other, format!("{text}\n-- edited\n")).unwrap();
    let hosts = two_local_hosts();
    let path = hosts.path().to_str().unwrap();
    let wait = ["--connect-timeout", "20"];
    let first = start("models/buffers.csp", path, 0, &wait);
    let second = start(other.to_str().unwrap(), path, 1, &wait);
    for (child, peer) in [(first, 1), (second, 0)] {
        let (code, err) = finish(child, Duration::from_secs(40));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!("process {peer} at 127.0.0.1:"))
                && err.contains("loaded a different script"),
            "{err}"
        );
    }
}

#[test]
fn a_process_that_dies_stops_the_others_with_its_name() {
    let (_hosts, first, mut second) = two_on_the_long_chain();
    std::thread::sleep(Duration::from_millis(2500));
    second.kill().expect("killed");
    let _ = second.wait();
    let (code, err) = finish(first, Duration::from_secs(30));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lost process 1"), "{err}");
}

#[test]
fn a_time_out_on_any_process_stops_every_process_alike() {
    let started = Instant::now();
    let report = json(&[
        "cluster",
        "--local",
        "2",
        "explore",
        "tests/fixtures/cluster/long_chain.csp",
        "--timeout",
        "1",
    ]);
    assert_eq!(report["complete"], false);
    assert_eq!(report["stopped"], "time-out");
    let states = report["states"].as_u64().unwrap();
    assert!(states > 10 && states < 2_000_000, "{states} states");
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// Explores `process` of `file` through the library on `workers` threads
/// of one process, each expanding at most `round_states` states a round.
fn explore_in_rounds(
    file: &str,
    process: &'static str,
    symmetry: Option<&'static str>,
    workers: usize,
    round_states: usize,
) -> symcsp::lts::Exploration {
    on_workers::explore((file, process), symmetry, (workers, round_states))
}

#[test]
fn a_level_expanded_over_many_rounds_gives_the_same_counts() {
    for (file, process, symmetry) in [
        ("models/lockfreequeue.csp", "System", None),
        ("models/lockfreequeue.csp", "System", Some("auto")),
        ("models/liststack.csp", "System", None),
        (
            "tests/fixtures/cluster/terminating.csp",
            "Painter(Red) ||| Job",
            None,
        ),
    ] {
        let whole = explore_in_rounds(file, process, symmetry, 1, usize::MAX);
        assert!(whole.complete);
        for (workers, round_states) in [(2, 7), (3, 1), (2, 1000)] {
            let rounds = explore_in_rounds(file, process, symmetry, workers, round_states);
            assert_eq!(
                (
                    rounds.states,
                    rounds.transitions,
                    rounds.deadlock_states,
                    rounds.terminated_states,
                    rounds.depth
                ),
                (
                    whole.states,
                    whole.transitions,
                    whole.deadlock_states,
                    whole.terminated_states,
                    whole.depth
                ),
                "{file} {process} {symmetry:?}: {workers} workers, {round_states} states a round"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn a_process_that_stops_answering_is_named_when_it_has_been_silent_for_long() {
    let (_hosts, first, mut second) = two_on_the_long_chain();
    std::thread::sleep(Duration::from_millis(1000));
    // SAFETY: signals a child this test started and still holds.
    let pause = |signal| unsafe { libc::kill(second.id() as libc::pid_t, signal) };
    pause(libc::SIGSTOP);
    let (code, err) = finish(first, Duration::from_secs(40));
    pause(libc::SIGCONT);
    let _ = second.kill();
    let _ = second.wait();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("process 1 has stopped answering"), "{err}");
}

/// Issue 66: an error a worker meets before its search (here evaluating
/// the initial state) is reported as that error on every process, after
/// a round with the others, not as a lost connection to its process.
#[test]
fn an_error_before_the_search_is_named_on_every_process() {
    let file = "tests/fixtures/cluster/division_by_zero.csp";
    for args in [
        &["check", file, "--workers", "2"][..],
        &["cluster", "--local", "2", "check", file],
    ] {
        let output = output_of(args);
        let text = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains("division by zero"), "{args:?}: {text}");
        assert!(!text.contains("lost process"), "{args:?}: {text}");
    }
}

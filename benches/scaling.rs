//! Search speed on one thread and on two, over the models and checks of
//! issue 25: each case's states per second, the speed-up of a second
//! thread and the process's peak memory per state. Reports, never fails.
//!
//! The models are the shipped ones made larger (philosophers with five
//! seats, ListStack with five nodes and four data) and given the extra
//! assertions the table needs; they are written to a temporary folder
//! and checked by the `symcsp` binary, each run a fresh process (so its
//! peak resident memory is its own), the best of [`RUNS`] reported.
//! The runs of one and two threads alternate, so that a change in the
//! machine's pace over minutes falls on both alike.
//!
//! `cargo bench --bench scaling` (add `-- quick` for one run a case, or a
//! model's name to run only its cases).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const RUNS: usize = 5;
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A model: a shipped script, with lines replaced and assertions added.
struct Model {
    name: &'static str,
    file: &'static str,
    replace: &'static [(&'static str, &'static str)],
    added: &'static [&'static str],
    /// What is measured: `explore` of `System`, or an assertion — the
    /// script's own (1-based) or an added one (`Added(i)`).
    cases: &'static [(&'static str, Case)],
}

#[derive(Clone, Copy)]
enum Case {
    Explore,
    Own(usize),
    Added(usize),
}

const MODELS: &[Model] = &[
    Model {
        name: "dining",
        file: "benches/models/dining.csp",
        replace: &[],
        added: &["assert System :[divergence free]"],
        cases: &[
            ("explore", Case::Explore),
            ("deadlock (Served)", Case::Own(2)),
            ("`[T=`", Case::Own(3)),
            ("divergence", Case::Added(0)),
        ],
    },
    Model {
        name: "lfq",
        file: "models/lockfreequeue.csp",
        replace: &[],
        added: &[],
        cases: &[
            ("explore", Case::Explore),
            ("`[T=`", Case::Own(3)),
            ("divergence", Case::Own(5)),
        ],
    },
    Model {
        name: "phil5",
        file: "models/philosophers.csp",
        replace: &[
            ("N = 3", "N = 5"),
            (
                "datatype Id = P0 | P1 | P2",
                "datatype Id = P0 | P1 | P2 | P3 | P4",
            ),
        ],
        added: &["assert System :[divergence free]"],
        cases: &[
            ("explore", Case::Explore),
            ("deadlock", Case::Own(1)),
            ("divergence", Case::Added(0)),
        ],
    },
    Model {
        name: "ls542",
        file: "models/liststack.csp",
        replace: &[
            (
                "datatype NodeIDType = Null | N0 | N1 | N2",
                "datatype NodeIDType = Null | N0 | N1 | N2 | N3 | N4",
            ),
            ("datatype Data = A | B", "datatype Data = A | B | C | D"),
        ],
        added: &[
            "assert CHAOS(Events) [T= System",
            "assert CHAOS(Events) [F= System",
            "assert CHAOS(Events) [FD= System",
            "assert System :[divergence free]",
        ],
        cases: &[
            ("explore", Case::Explore),
            ("`[T=`", Case::Added(0)),
            ("`[F=`", Case::Added(1)),
            ("`[FD=`", Case::Added(2)),
            ("divergence", Case::Added(3)),
        ],
    },
];

/// What one run of the binary reported.
struct Run {
    states: u64,
    seconds: f64,
    peak_kib: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs = if args.iter().any(|a| a == "quick") {
        1
    } else {
        RUNS
    };
    let only: Vec<&String> = args
        .iter()
        .filter(|a| MODELS.iter().any(|m| m.name == a.as_str()))
        .collect();
    let folder = std::env::temp_dir().join(format!("symcsp-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    println!(
        "| model | check | threads | states | search time | states/s | peak B/state | speed-up |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for model in MODELS {
        if !only.is_empty() && !only.iter().any(|o| o.as_str() == model.name) {
            continue;
        }
        let (file, own) = write_model(model, &folder);
        for &(label, case) in model.cases {
            // The two thread counts in turn, run after run.
            let mut runs_of: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
            for _ in 0..runs {
                for (threads, kept) in [1, 2].into_iter().zip(runs_of.iter_mut()) {
                    kept.extend(run(&file, case, own, threads));
                }
            }
            let mut one_thread = None;
            for (threads, kept) in [1, 2].into_iter().zip(runs_of) {
                let best = kept
                    .into_iter()
                    .min_by(|a, b| a.seconds.total_cmp(&b.seconds));
                let Some(best) = best else {
                    println!(
                        "| {} | {label} | {threads} | the run failed | | | | |",
                        model.name
                    );
                    continue;
                };
                let speed_up = match one_thread {
                    Some(single) => format!("{:.2}x", single / best.seconds),
                    None => String::new(),
                };
                one_thread.get_or_insert(best.seconds);
                println!(
                    "| {} | {label} | {threads} | {} | {:.4} s | {:.2} M/s | {:.0} | {speed_up} |",
                    model.name,
                    best.states,
                    best.seconds,
                    best.states as f64 / best.seconds / 1e6,
                    best.peak_kib as f64 * 1024.0 / best.states as f64,
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// The model's script, written to `folder`, and how many assertions it
/// had before the added ones.
fn write_model(model: &Model, folder: &Path) -> (PathBuf, usize) {
    let mut text = std::fs::read_to_string(Path::new(ROOT).join(model.file))
        .unwrap_or_else(|e| panic!("{}: {e}", model.file));
    for (from, to) in model.replace {
        assert!(
            text.lines().any(|l| l == *from),
            "{} no longer has the line `{from}`",
            model.file
        );
        text = text
            .lines()
            .map(|l| if l == *from { *to } else { l })
            .collect::<Vec<_>>()
            .join("\n");
    }
    let own = text.lines().filter(|l| l.starts_with("assert ")).count();
    text.push('\n');
    for added in model.added {
        text.push_str(added);
        text.push('\n');
    }
    let file = folder.join(format!("{}.csp", model.name));
    std::fs::write(&file, text).expect("the model is written");
    (file, own)
}

/// One run of the binary on `case`, or `None` (said on stderr) when it
/// did not report what it should.
fn run(file: &Path, case: Case, own: usize, threads: usize) -> Option<Run> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_symcsp"));
    match case {
        Case::Explore => command.arg("explore").arg(file).arg("System"),
        Case::Own(k) => command
            .arg("check")
            .arg(file)
            .arg("--assert")
            .arg(k.to_string()),
        Case::Added(i) => command
            .arg("check")
            .arg(file)
            .arg("--assert")
            .arg((own + i + 1).to_string()),
    };
    command
        .arg("--threads")
        .arg(threads.to_string())
        .arg("--format")
        .arg("json")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let child = command.spawn().expect("the symcsp binary runs");
    let (output, peak_kib) = wait_with_peak(child);
    let text = String::from_utf8_lossy(&output);
    let report = parse(&text);
    if report.is_none() {
        eprintln!("{}: unexpected output:\n{text}", file.display());
    }
    report.map(|(states, seconds)| Run {
        states,
        seconds,
        peak_kib,
    })
}

/// The states and the search's seconds (to the nanosecond: the text's
/// two decimals are too coarse for a search of 0.05 s) of a JSON
/// `explore` report or of the first assertion of a JSON `check` report.
fn parse(text: &str) -> Option<(u64, f64)> {
    let report: serde_json::Value = serde_json::from_str(text).ok()?;
    let of =
        |value: &serde_json::Value| Some((value["states"].as_u64()?, value["seconds"].as_f64()?));
    match report.get("assertions") {
        Some(assertions) => of(assertions.get(0)?),
        None => of(&report),
    }
}

/// The child's standard output and its peak resident memory (KiB), read
/// from the kernel's account of it when it is reaped.
fn wait_with_peak(mut child: std::process::Child) -> (Vec<u8>, u64) {
    use std::io::Read;
    let mut output = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.read_to_end(&mut output);
    }
    let mut status = 0;
    // SAFETY: `rusage` is plain data the call fills in; the pid is the
    // child's, not waited for by anyone else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let peak = if reaped == pid {
        usage.ru_maxrss as u64
    } else {
        0
    };
    (output, peak)
}

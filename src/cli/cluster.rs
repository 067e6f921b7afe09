//! Exploring beyond one thread of search: `--workers W` (threads of one
//! process, through timely dataflow), `--processes N --process I
//! --hostfile FILE` (one process of a cluster, as timely's own options
//! name them), and `symcsp cluster --local N COMMAND...`, which starts N
//! local processes of a command on free ports for a trial. Every process
//! prints the same report; it adds to `explore`'s the cluster's shape,
//! each worker's counts and the bytes the workers exchanged.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use serde::Serialize;

use super::explore::{self, Report, Request};
use super::progress::{ProgressLine, counters};
use super::{EXIT_INCONCLUSIVE, Format, fail_with, say};

use crate::budget::Live;
use crate::check::prepare::Prepared;
use crate::cluster::{ClusterExploration, Job, Topology};
use crate::lts::Budget;
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;

/// The cluster's part of the JSON report.
#[derive(Serialize)]
pub(super) struct ClusterReport {
    processes: usize,
    workers_per_process: usize,
    /// Bytes of encoded states the workers sent, in all and between
    /// processes.
    bytes_exchanged: u64,
    bytes_between_processes: u64,
    bytes_per_state: f64,
    workers: Vec<WorkerReport>,
}

#[derive(Serialize)]
struct WorkerReport {
    worker: u32,
    process: usize,
    states: u64,
    transitions: u64,
    bytes_sent: u64,
    bytes_to_other_processes: u64,
    store_bytes: u64,
}

#[derive(Serialize)]
struct DistributedReport<'a> {
    #[serde(flatten)]
    explored: Report<'a>,
    cluster: ClusterReport,
}

impl ClusterReport {
    fn new(found: &ClusterExploration, topology: &Topology) -> ClusterReport {
        let bytes_exchanged = found.workers.iter().map(|w| w.bytes_sent).sum::<u64>();
        ClusterReport {
            processes: found.processes,
            workers_per_process: topology.workers,
            bytes_exchanged,
            bytes_between_processes: found
                .workers
                .iter()
                .map(|w| w.bytes_to_other_processes)
                .sum(),
            bytes_per_state: bytes_exchanged as f64 / found.exploration.states.max(1) as f64,
            workers: found
                .workers
                .iter()
                .map(|w| WorkerReport {
                    worker: w.worker,
                    process: w.worker as usize / topology.workers,
                    states: w.stored,
                    transitions: w.transitions,
                    bytes_sent: w.bytes_sent,
                    bytes_to_other_processes: w.bytes_to_other_processes,
                    store_bytes: w.store_bytes,
                })
                .collect(),
        }
    }

    fn plain(&self) -> String {
        let mut text = format!(
            "cluster            {} process{} x {} worker{} (timely dataflow)\n\
             exchanged          {:.1} MB of states ({:.1} bytes/state), {:.1} MB between processes\n",
            self.processes,
            if self.processes == 1 { "" } else { "es" },
            self.workers_per_process,
            if self.workers_per_process == 1 {
                ""
            } else {
                "s"
            },
            self.bytes_exchanged as f64 / 1e6,
            self.bytes_per_state,
            self.bytes_between_processes as f64 / 1e6,
        );
        for w in &self.workers {
            text.push_str(&format!(
                "  worker {:<3}       process {}: {} states, {} transitions, {:.1} MB sent\n",
                w.worker,
                w.process,
                w.states,
                w.transitions,
                w.bytes_sent as f64 / 1e6
            ));
        }
        text
    }
}

/// `explore` on timely dataflow.
pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = request.format;
    let (loaded, process, func, asked) = match explore::load_prepared(request, out, err) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let (process, asked) = (process.as_str(), &asked);
    let topology = match request.cluster.topology() {
        Ok(topology) => topology,
        Err(problem) => return fail_with(format, request.file, &problem, out, err),
    };
    let single = [
        (request.engine == explore::Engine::Terms, "--engine terms"),
        (request.dot.is_some(), "--dot"),
    ];
    if let Some((_, option)) = single.iter().find(|(given, _)| *given) {
        let problem = format!(
            "error: {option} explores in one search: drop --workers, --processes and \
             --hostfile to use it\n"
        );
        return fail_with(format, request.file, &problem, out, err);
    }
    if !matches!(asked, Reduce::Off)
        && matches!(
            request.strategy,
            Strategy::Exact | Strategy::Segmented | Strategy::Flooding
        )
    {
        let problem = format!(
            "error: the {} strategy does not explore on workers: it chooses among images by \
             the order one process met its states (or, flooding, by what one worker has \
             seen), so workers would disagree; use --strategy fdr or sorted, or drop \
             --workers, --processes and --hostfile\n",
            request.strategy
        );
        return fail_with(format, request.file, &problem, out, err);
    }
    if request.por {
        let problem = "error: explore --por runs in one search (checks reduced by partial \
                       order run on workers); drop --por, or --workers, --processes and \
                       --hostfile\n";
        return fail_with(format, request.file, problem, out, err);
    }
    let live = Arc::new(Live::default());
    let budget = Budget {
        live: Some(live.clone()),
        ..request.limits.budget()
    }
    .started();
    // The system built here only to refuse what cannot be reduced, and
    // for the report's symmetry; each worker builds its own.
    let script = &Arc::new(loaded.script);
    let task = crate::check::task::Task::explore(func, asked.clone());
    let (plan, described) = match crate::stack::with_large_stack(|| {
        Prepared::exploration(script, task, request.strategy, &budget)
            .map(|prepared| (prepared.plan, prepared.described))
    }) {
        Ok(parts) => parts,
        Err(problem) => return explore::unexplored(problem, request, (script, &budget), out, err),
    };
    let job = Job {
        script: script.clone(),
        plan: Arc::new(plan),
        options: format!(
            "explore {process:?} symmetry {:?} strategy {} max-states {:?} timeout {:?} \
             max-memory {:?}",
            request.symmetry,
            request.strategy,
            budget.max_states,
            budget.timeout,
            budget.max_memory
        ),
        budget,
        connect_wait: request.cluster.connect_wait(),
        round_states: crate::cluster::ROUND_STATES,
    };
    let mut progress = ProgressLine::new(request.limits.progress && topology.process == 0);
    let what = if matches!(asked, Reduce::Off) {
        "states"
    } else {
        "representatives"
    };
    let describe = |live: &Live, elapsed| {
        format!(
            "exploring on {} process{} x {} worker{}: {}",
            topology.processes(),
            if topology.processes() == 1 { "" } else { "es" },
            topology.workers,
            if topology.workers == 1 { "" } else { "s" },
            counters(&this_process(live, elapsed, &topology), what)
        )
    };
    let outcome = progress.watch(&live, describe, || crate::cluster::explore(&job, &topology));
    let found = match outcome {
        Ok(found) => found,
        Err(e) => return fail_with(format, request.file, &format!("error: {e}\n"), out, err),
    };
    let cluster = ClusterReport::new(&found, &topology);
    let parts = (
        described.symmetry.as_ref(),
        described.structure.as_ref(),
        described.note.as_deref(),
    );
    match format {
        Format::Json => {
            let report = DistributedReport {
                explored: Report::new((request, process), &found.exploration, None, parts),
                cluster,
            };
            let text = serde_json::to_string(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => {
            let mut text = explore::plain(
                (request, process),
                &job.budget,
                &found.exploration,
                parts,
                script,
            );
            text.push_str(&cluster.plain());
            say(out, &text);
        }
    }
    if found.exploration.complete {
        0
    } else {
        EXIT_INCONCLUSIVE
    }
}

/// What `check` asks of the cluster, besides the assertion.
pub(super) struct CheckOnCluster<'a> {
    /// `--symmetry`, as given.
    pub symmetry: Option<&'a str>,
    pub strategy: Strategy,
    pub cluster: &'a super::limits::ClusterArgs,
    /// Whether to show progress (on process 0).
    pub progress: bool,
}

/// Assertion `index` of `script` (one that searches: not
/// `:[symmetric]:`) checked on the cluster `topology`: its result as the
/// one search's, the counterexample on process 0 only, with a note of
/// where it ran.
pub(super) fn check(
    request: &CheckOnCluster,
    (script, index, asked): (&Arc<crate::script::Script>, usize, &crate::check::Asked),
    topology: &Topology,
    budget: &Budget,
) -> Result<(crate::check::CheckResult, Option<ClusterReport>), crate::syntax::Diagnostic> {
    use crate::check::{CheckResult, Planned, Verdict};
    let assertion = &script.assertions[index];
    let symmetry = request.symmetry;
    let live = Arc::new(Live::default());
    let budget = Budget {
        live: Some(live.clone()),
        ..budget.clone()
    }
    .started();
    // What the workers' search is reduced by, decided here once and
    // settled on a system of this process's own (as one search settles
    // it before it searches): a refusal is said in one search's words,
    // before any worker starts.
    let planned =
        crate::stack::with_large_stack(|| crate::check::plan(script, index, asked, &budget))?;
    let plan = match planned {
        Planned::Plan(plan) => plan,
        // Stopped before any worker started.
        Planned::Stopped(result) => return Ok((*result, None)),
        Planned::Static => unreachable!("a static check is made in place"),
    };
    let job = Job {
        script: script.clone(),
        plan: Arc::new(plan),
        options: format!(
            "check assertion {index} symmetry {symmetry:?} strategy {} max-states {:?} \
             timeout {:?} max-memory {:?}",
            request.strategy, budget.max_states, budget.timeout, budget.max_memory
        ),
        budget,
        connect_wait: request.cluster.connect_wait(),
        round_states: crate::cluster::ROUND_STATES,
    };
    let mut progress = ProgressLine::new(request.progress && topology.process == 0);
    let describe = |live: &Live, elapsed| {
        format!(
            "checking assertion {} on {} process{} x {} worker{}: {}",
            index + 1,
            topology.processes(),
            if topology.processes() == 1 { "" } else { "es" },
            topology.workers,
            if topology.workers == 1 { "" } else { "s" },
            counters(&this_process(live, elapsed, topology), "states")
        )
    };
    let found = progress
        .watch(&live, describe, || crate::cluster::explore(&job, topology))
        .map_err(|e| crate::syntax::Diagnostic::error(assertion.span, e.to_string()))?;
    // No check when a budget stopped the workers before they could judge.
    let check = found.check.clone().unwrap_or(crate::cluster::ClusterCheck {
        holds: None,
        counterexample: None,
        notes: Vec::new(),
        reduced: None,
    });
    let cluster = ClusterReport::new(&found, topology);
    let verdict = match (check.holds, found.exploration.stopped) {
        (Some(holds), _) if holds != assertion.negated => Verdict::Passed,
        (Some(_), _) => Verdict::Failed,
        (None, stopped) => {
            Verdict::Inconclusive(stopped.unwrap_or(crate::budget::Stopped::Cancelled))
        }
    };
    let mut notes = vec![format!(
        "checked on {} process{} x {} worker{} (timely dataflow){}",
        topology.processes(),
        if topology.processes() == 1 { "" } else { "es" },
        topology.workers,
        if topology.workers == 1 { "" } else { "s" },
        if check.holds == Some(false) && topology.process != 0 {
            "; process 0 shows the counterexample"
        } else {
            ""
        }
    )];
    notes.push(format!(
        "exchanged {:.1} MB of states ({:.1} bytes/state), {:.1} MB between processes",
        cluster.bytes_exchanged as f64 / 1e6,
        cluster.bytes_per_state,
        cluster.bytes_between_processes as f64 / 1e6
    ));
    notes.extend(check.notes);
    let inconclusive = matches!(verdict, Verdict::Inconclusive(_));
    let result = CheckResult {
        verdict,
        states: found.exploration.states,
        transitions: found.exploration.transitions,
        depth: found.exploration.depth,
        seconds: found.exploration.seconds,
        counterexample: (check.counterexample)
            .filter(|_| crate::check::shown(check.holds, assertion.negated)),
        notes,
        reasons: Vec::new(),
        searched: true,
        symmetry: check.reduced,
        stage: inconclusive.then(|| found.stage.clone().unwrap_or("searching".to_string())),
    };
    Ok((result, Some(cluster)))
}

/// `symcsp cluster --local N COMMAND...`: runs COMMAND as the N processes
/// of a cluster on this machine (free ports of 127.0.0.1, a host file of
/// its own), process 0's output as its own; another process's errors are
/// shown too, each line naming it. The exit code is process 0's, or 2
/// when another failed and process 0 did not say so.
pub(super) fn run_local(
    processes: u16,
    command: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    match local_cluster(processes as usize, command, out, err) {
        Ok(code) => code,
        Err(problem) => {
            say(err, &format!("error: {problem}\n"));
            2
        }
    }
}

fn local_cluster(
    processes: usize,
    command: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, String> {
    if !matches!(
        command.first().map(String::as_str),
        Some("explore" | "check")
    ) {
        return Err(
            "cluster --local runs `explore FILE ...` or `check FILE ...` (for example \
             `symcsp cluster --local 2 explore model.csp System`)"
                .to_string(),
        );
    }
    let given = ["--processes", "--process", "--hostfile"];
    if let Some(option) = command
        .iter()
        .find(|a| given.iter().any(|g| a.split('=').next() == Some(*g)))
    {
        return Err(format!(
            "cluster --local gives each process --processes, --process and --hostfile itself: \
             leave out {option}"
        ));
    }
    // Free ports, found by binding and released just before the start.
    let listeners: Vec<std::net::TcpListener> = (0..processes)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("cannot find a free port: {e}"))?;
    let hosts: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.to_string()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    drop(listeners);
    let hostfile = TemporaryFile(std::env::temp_dir().join(format!(
        "symcsp-hosts-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )));
    crate::files::write_atomically(&hostfile.0, format!("{}\n", hosts.join("\n")).as_bytes())
        .map_err(|e| format!("cannot write a host file: {e}"))?;
    // Ctrl-C or a kill stops every process, not only this one.
    let asked_to_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&asked_to_stop))
            .map_err(|e| format!("cannot watch for Ctrl-C: {e}"))?;
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find symcsp itself: {e}"))?;
    let mut children = Vec::new();
    for process in 0..processes {
        let mut child = Command::new(&exe);
        child
            .args(command)
            .args(["--processes", &processes.to_string()])
            .args(["--process", &process.to_string()])
            .arg("--hostfile")
            .arg(&hostfile.0)
            .stdin(Stdio::null())
            // Process 0's report is this command's; its progress and
            // errors show as they come.
            .stdout(if process == 0 {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stderr(if process == 0 {
                Stdio::inherit()
            } else {
                Stdio::piped()
            });
        let mut child = child
            .spawn()
            .map_err(|e| format!("cannot start process {process}: {e}"))?;
        // Read on threads, so that no process blocks on a full pipe.
        let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut text);
                }
                text
            })
        };
        let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<_>));
        let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<_>));
        children.push((child, stdout, stderr));
    }
    let mut statuses: Vec<Option<std::process::ExitStatus>> = vec![None; processes];
    while statuses.iter().any(Option::is_none) {
        if asked_to_stop.load(std::sync::atomic::Ordering::Relaxed) {
            for (child, ..) in &mut children {
                let _ = child.kill();
                let _ = child.wait();
            }
            say(err, "symcsp: stopped every process of the cluster\n");
            return Ok(130);
        }
        for (process, (child, ..)) in children.iter_mut().enumerate() {
            if statuses[process].is_none() {
                statuses[process] = child
                    .try_wait()
                    .map_err(|e| format!("process {process}: {e}"))?;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut first_code = 2;
    let mut others_failed = false;
    for (process, (_, stdout, stderr)) in children.into_iter().enumerate() {
        let status = statuses[process].expect("every process has ended");
        let (stdout, stderr) = (
            stdout.join().unwrap_or_default(),
            stderr.join().unwrap_or_default(),
        );
        let code = status.code().map(|c| c as u8);
        if process == 0 {
            let _ = out.write_all(&stdout);
            first_code = code.unwrap_or(2);
            if code.is_none() {
                say(err, "error: process 0 was stopped by a signal\n");
            }
        } else if code.is_none() {
            others_failed = true;
            say(
                err,
                &format!("error: process {process} was stopped by a signal\n"),
            );
        } else if code != Some(first_code) && code != Some(0) {
            others_failed = true;
            for line in String::from_utf8_lossy(&stderr).lines() {
                say(err, &format!("process {process}: {line}\n"));
            }
        }
    }
    Ok(if others_failed && first_code == 0 {
        2
    } else {
        first_code
    })
}

/// A file removed when dropped, whatever path leaves the function.
struct TemporaryFile(std::path::PathBuf);

impl Drop for TemporaryFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A search's counters, with this process's memory when it is the only
/// one (of several, the line would say one process's as the whole's).
fn this_process(
    live: &Live,
    elapsed: std::time::Duration,
    topology: &Topology,
) -> crate::check::worker::Progress {
    let mut progress = super::progress::progress_of(live, elapsed);
    if topology.processes() > 1 {
        progress.memory = None;
    }
    progress
}

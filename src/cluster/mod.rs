//! The search beyond one process: the state space partitioned among
//! workers — threads of one process, or processes on many machines — by
//! a hash of each state's process-independent encoding, explored level
//! by level on timely dataflow, with the same answers as one process.
//!
//! - [`network`]: connecting the processes within a bounded time, the
//!   hello that refuses a peer with another script or other options, and
//!   watching the connections while the search runs;
//! - [`exchange`]: timely's dataflow that carries each round's messages
//!   to their owners and says when the round (a level) has ended;
//! - [`rows`]: a system state as bytes;
//! - [`search`]: a worker's partition and its rounds.
//!
//! Every process loads and prepares the script once, as its command line
//! plans the job ([`Job::script`]), and its workers build their systems
//! on it the same way, so the script's ids agree between processes; the
//! encoding carries everything else. Each round every worker sends
//! the successors of its new states (their representatives, under
//! symmetry) and a [`Tally`] of where it stands to every worker; so
//! after a round every worker knows the same totals and takes the same
//! decision: go on, end, or stop with the same verdict.

pub mod exchange;
pub mod ground;
pub mod judge;
pub mod network;
pub mod rows;
pub mod search;

use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustc_hash::FxHasher;
use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Stopped};
use crate::check::task::Plan;
use crate::lts::Exploration;

use exchange::{Endpoints, Rounds};
use network::{Hello, Losses};

/// Where the workers run: `workers` threads in each of the processes at
/// `hosts` (one address per process, `host:port`, as timely's host
/// file has them), this being process `process`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    pub workers: usize,
    pub process: usize,
    pub hosts: Vec<String>,
}

impl Topology {
    /// One process.
    pub fn local(workers: usize) -> Topology {
        Topology {
            workers,
            process: 0,
            hosts: vec!["127.0.0.1:0".to_string()],
        }
    }

    pub fn processes(&self) -> usize {
        self.hosts.len()
    }

    /// Every worker of the cluster.
    pub fn peers(&self) -> usize {
        self.workers * self.processes()
    }

    /// Why this topology cannot run, if it cannot.
    pub fn check(&self) -> Result<(), ClusterError> {
        if self.workers == 0 {
            return Err(ClusterError::Topology(
                "--workers must be at least 1".to_string(),
            ));
        }
        if self.hosts.is_empty() {
            return Err(ClusterError::Topology(
                "a cluster needs at least one process".to_string(),
            ));
        }
        if self.process >= self.processes() {
            return Err(ClusterError::Topology(format!(
                "--process {} is out of range: the cluster has {} process{} (0 to {}){}",
                self.process,
                self.processes(),
                if self.processes() == 1 { "" } else { "es" },
                self.processes() - 1,
                if self.processes() == 1 {
                    "; give --processes N or --hostfile FILE for more"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }
}

/// What every worker searches.
#[derive(Clone)]
pub struct Job {
    /// The script as the job's plan was made on it: loaded once by this
    /// process's command line and prepared there (the process to explore
    /// added, the symmetry asked for read), so the workers search the
    /// very ids the plan names. Every process prepares its own alike.
    pub script: Arc<crate::script::Script>,
    /// What the search does and what it is reduced by, decided once and
    /// settled by a system before the workers start
    /// ([`crate::check::plan`], [`Plan::explored`]): every worker
    /// applies it, none decides it again. Each process plans alike, and
    /// their plans are compared at start.
    pub plan: Arc<Plan>,
    /// Budgets: `max_states` for the whole cluster, the time-out and
    /// memory per process (each process's own clock and allocator).
    pub budget: Budget,
    /// The options every process must share, as text (the process,
    /// `--symmetry`, `--strategy`, budgets): their hash, with the plan's
    /// fingerprint, is compared at start.
    pub options: String,
    /// How long to wait for every process to connect.
    pub connect_wait: Duration,
    /// The most states a worker expands in one round ([`ROUND_STATES`]
    /// unless a test asks for fewer): a wider level takes several rounds.
    pub round_states: usize,
}

/// What a worker expands in one round by default: enough that a round's
/// synchronisation costs little, few enough that its messages stay a
/// few megabytes.
pub const ROUND_STATES: usize = 1 << 16;

/// A hash of every file of `script`, in order: equal in two processes
/// exactly when (but for a collision) they loaded the same text.
fn script_hash(script: &crate::script::Script) -> u64 {
    let sources: Vec<&[u8]> = script
        .sources
        .files()
        .map(|(_, file)| file.text.as_bytes())
        .collect();
    stable_hash(&sources)
}

/// A worker's report at the end of a round, sent to every worker.
/// Counts are totals since the start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub worker: u32,
    /// States this worker owns (stored).
    pub stored: u64,
    /// States it expanded in this round (its new states of the round
    /// before).
    pub expanded: u64,
    /// States it sent in this round.
    pub sent: u64,
    /// States of the current level it has still to expand.
    pub remaining: u64,
    /// States it has stored for the next level (before this round's).
    pub queued: u64,
    /// Of the states it received, how many are new (counted only when
    /// the state budget might be passed).
    pub fresh: u64,
    pub transitions: u64,
    /// Once a check's violation is found: its states of the violation's
    /// level and the levels before, and the transitions of those before
    /// (what the check reports, summed, as one search does).
    pub level_stored: u64,
    pub level_transitions: u64,
    pub deadlocks: u64,
    pub terminated: u64,
    /// Bytes of states it sent, in all and to other processes.
    pub bytes_sent: u64,
    pub bytes_to_other_processes: u64,
    /// The bytes its store holds in memory.
    pub store_bytes: u64,
    /// States whose rows it moved to disk, and the most bytes its
    /// process's spill folder held, as of its last spill.
    pub on_disk: u64,
    pub disk_peak: u64,
    /// Why it stopped, if a budget stopped it ([`Stopped::code`]).
    pub stopped: Option<u8>,
    /// In a check: the level of a state of its own that broke the
    /// specification in this round, if one did.
    pub breached: Option<u32>,
    /// In a check's search for divergences: its first state (by level)
    /// that diverges, as (level, number), once the τ-graph is settled.
    pub divergent: Option<(u32, u32)>,
    /// `:[has trace]:` not completed: its first state that performed the
    /// longest prefix, as (prefix, level, number).
    pub furthest: Option<(u32, u32, u32)>,
    /// While a counterexample is read back: the step it owns.
    pub step: Option<judge::PathStep>,
    /// An error it met that ends the search (a diagnostic, rendered).
    pub problem: Option<String>,
    /// The first evaluation error it met expanding a state of the level,
    /// rendered, and as the note a counterexample of the level carries
    /// beside it: the level is judged to its end all the same, and the
    /// error is the check's only where the level holds no breach.
    pub error: Option<(String, String)>,
    /// Where a budget stopped it, when that was before its search
    /// (`compiling the process`, `normalising the specification`).
    pub stage: Option<String>,
    /// It could not begin its search and takes no round after this one:
    /// the others settle nothing that needs it (a divergence's rounds).
    pub left: bool,
}

/// What the cluster found, as every process knows it at the end.
#[derive(Debug, Clone)]
pub struct ClusterExploration {
    /// The totals, as one process's exploration reports them.
    pub exploration: Exploration,
    /// Each worker's own counts, in worker order.
    pub workers: Vec<Tally>,
    pub processes: usize,
    /// A check's answer, when the goal was one.
    pub check: Option<ClusterCheck>,
    /// Where a budget stopped the workers, when that was before their
    /// search (`None`: while searching, or not stopped).
    pub stage: Option<String>,
}

/// What a distributed check found: every process knows the verdict;
/// worker 0 (of process 0) has the counterexample.
#[derive(Debug, Clone)]
pub struct ClusterCheck {
    /// `None` when a budget stopped it first.
    pub holds: Option<bool>,
    pub counterexample: Option<crate::check::counterexample::Counterexample>,
    /// What describing the counterexample had to say.
    pub notes: Vec<String>,
    /// What the workers' search was reduced by, if anything.
    pub reduced: Option<crate::check::Reduced>,
}

/// Why a cluster could not run or finish.
#[derive(Debug, Clone, PartialEq)]
pub enum ClusterError {
    /// The workers, processes or host file do not make a cluster.
    Topology(String),
    /// This process cannot listen on its address.
    Listen {
        process: usize,
        address: String,
        cause: String,
    },
    /// A process could not be reached (or did not connect) in time.
    NoContact {
        process: usize,
        address: String,
        seconds: f64,
        cause: String,
    },
    /// A process is not one this process can work with.
    Refused {
        process: usize,
        address: String,
        why: String,
    },
    /// A connection was lost while the search ran.
    Lost {
        process: usize,
        what: String,
    },
    /// The time-out passed and a round still had not ended long after:
    /// a process stopped answering.
    Stalled {
        /// The process not heard from, when one was not.
        process: Option<usize>,
        seconds: u64,
    },
    /// A worker met an error (an evaluation error, a malformed state).
    Worker {
        worker: usize,
        message: String,
    },
    Io(String),
}

impl ClusterError {
    fn peer(topology: &Topology, process: usize, cause: std::io::Error) -> ClusterError {
        ClusterError::NoContact {
            process,
            address: topology.hosts[process].clone(),
            seconds: 0.0,
            cause: format!("the greeting failed: {cause}"),
        }
    }
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::Topology(why) => f.write_str(why),
            ClusterError::Listen {
                process,
                address,
                cause,
            } => write!(
                f,
                "process {process} cannot listen on {address} (its line of the host file): \
                 {cause}"
            ),
            ClusterError::NoContact {
                process,
                address,
                seconds,
                cause,
            } => write!(
                f,
                "cannot reach process {process} at {address} within {seconds:.0} s: {cause}"
            ),
            ClusterError::Refused {
                process,
                address,
                why,
            } => write!(f, "process {process} at {address} was refused: {why}"),
            ClusterError::Lost { process, what } => write!(
                f,
                "lost process {process} during the search ({what}); every process stops"
            ),
            ClusterError::Stalled {
                process: Some(process),
                seconds,
            } => write!(
                f,
                "process {process} has stopped answering: not heard from for {seconds} s \
                 (stopped, or cut off); every process that still answers stops"
            ),
            ClusterError::Stalled {
                process: None,
                seconds,
            } => write!(
                f,
                "the time-out passed and the other processes had not finished their round \
                 {seconds} s later: one has stopped answering (stopped, or cut off); every \
                 process that still answers stops"
            ),
            ClusterError::Worker { worker, message } => {
                write!(f, "worker {worker}: {message}")
            }
            ClusterError::Io(message) => f.write_str(message),
        }
    }
}

impl Stopped {
    /// A number for the reason, to send to other processes.
    pub fn code(self) -> u8 {
        match self {
            Stopped::Visitor => 0,
            Stopped::StateBudget => 1,
            Stopped::Timeout => 2,
            Stopped::Cancelled => 3,
            Stopped::Memory => 4,
            Stopped::Disk => 5,
        }
    }

    pub fn from_code(code: u8) -> Option<Stopped> {
        Some(match code {
            0 => Stopped::Visitor,
            1 => Stopped::StateBudget,
            2 => Stopped::Timeout,
            3 => Stopped::Cancelled,
            4 => Stopped::Memory,
            5 => Stopped::Disk,
            _ => return None,
        })
    }
}

/// A hash that is the same in every process and every run.
pub(super) fn stable_hash(parts: &[&[u8]]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = FxHasher::default();
    for part in parts {
        hasher.write_usize(part.len());
        hasher.write(part);
    }
    hasher.finish()
}

/// Explores `job` on the cluster `topology` describes, as its process
/// `topology.process`: every process returns the same totals.
pub fn explore(job: &Job, topology: &Topology) -> Result<ClusterExploration, ClusterError> {
    topology.check()?;
    if let Some(spill) = &job.budget.spill {
        spill.begin();
    }
    let hello = Hello {
        version: env!("CARGO_PKG_VERSION").to_string(),
        process: topology.process as u64,
        processes: topology.processes() as u64,
        workers: topology.workers as u64,
        script: script_hash(&job.script),
        options: stable_hash(&[job.options.as_bytes(), job.plan.fingerprint().as_bytes()]),
    };
    let losses = Arc::new(Losses::default());
    let builders = if topology.processes() == 1 {
        timely::CommunicationConfig::Process(topology.workers)
            .try_build()
            .map_err(ClusterError::Io)?
    } else {
        use timely::communication::allocator::AllocatorBuilder;
        use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
        let sockets = network::connect(topology, &hello, job.connect_wait, &losses)?;
        network::quiet_network_panics(&losses);
        let hooks = timely::communication::Hooks::default();
        let local = timely::communication::allocator::ProcessBuilder::new_typed_vector(
            topology.workers,
            hooks.refill.clone(),
            None,
        );
        let (builders, guard) = initialize_networking_from_sockets(
            local,
            sockets,
            topology.process,
            topology.workers,
            hooks,
        )
        .map_err(|e| ClusterError::Io(e.to_string()))?;
        let builders: Vec<AllocatorBuilder> =
            builders.into_iter().map(AllocatorBuilder::Tcp).collect();
        (builders, Box::new(guard) as Box<dyn std::any::Any + Send>)
    };
    run(job, topology, builders, &losses)
}

/// The longest a process ending on a worker's error waits for its
/// dataflows to drain before it leaves them to the end of the process.
const DRAIN: Duration = Duration::from_secs(10);

/// Joins the timely workers of `served` (their dataflows drained, every
/// message sent), waiting at most `within`: past it, they are left to
/// the end of the process. Whether they were joined in time.
fn drain<T: Send + 'static>(served: T, within: Duration) -> bool {
    let held = Arc::new(Mutex::new(Some(served)));
    let joined = held.clone();
    let (done, drained) = mpsc::channel();
    let joining = std::thread::Builder::new()
        .name(network::DRAIN_THREAD.into())
        .spawn(move || {
            let served = joined.lock().unwrap_or_else(|e| e.into_inner()).take();
            // Timely's guard panics (quietly) where a peer left before
            // this process's network threads read its last message: the
            // workers are joined all the same.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(served)));
            let _ = done.send(());
        });
    match joining {
        Ok(_) => drained.recv_timeout(within).is_ok(),
        // No thread to wait on: leave them, as for a lost peer.
        Err(_) => {
            std::mem::forget(held.lock().unwrap_or_else(|e| e.into_inner()).take());
            false
        }
    }
}

/// Starts the timely workers and a search thread for each, and waits
/// for the searches.
fn run(
    job: &Job,
    topology: &Topology,
    (builders, others): (
        Vec<timely::communication::allocator::AllocatorBuilder>,
        Box<dyn std::any::Any + Send>,
    ),
    losses: &Arc<Losses>,
) -> Result<ClusterExploration, ClusterError> {
    let mut searches = Vec::new();
    let mut ends = Vec::new();
    for _ in 0..topology.workers {
        let (request, requests) = mpsc::channel();
        let (reply, replies) = mpsc::channel();
        searches.push(Rounds {
            requests: request,
            replies,
            losses: losses.clone(),
        });
        ends.push(Some((requests, reply)));
    }
    let endpoints: Endpoints = Arc::new(Mutex::new(ends));
    let first = topology.process * topology.workers;
    let served = {
        let endpoints = endpoints.clone();
        let losses = losses.clone();
        let deadline = job.budget.deadline;
        let workers = topology.workers;
        timely::execute::execute_from(
            builders,
            others,
            timely::WorkerConfig::default(),
            move |worker| {
                let local = worker.index() - first;
                exchange::serve(worker, local, &endpoints, &losses, (deadline, workers));
            },
        )
        .map_err(ClusterError::Io)?
    };
    // The process's workers load the script once, between them, and
    // when they explore, build one system between them.
    let ground = ground::SharedGround::default();
    let system = search::SharedSystem::default();
    let results = std::thread::scope(|scope| {
        let threads: Vec<_> = searches
            .into_iter()
            .enumerate()
            .map(|(local, rounds)| {
                let (ground, system) = (&ground, &system);
                std::thread::Builder::new()
                    .name(format!("symcsp:search-{}", first + local))
                    .stack_size(crate::stack::LARGE_STACK)
                    .spawn_scoped(scope, move || {
                        search::partition((job, ground, system), topology, first + local, rounds)
                    })
            })
            .collect();
        let mut results = Vec::new();
        for thread in threads {
            let thread = thread.map_err(|e| ClusterError::Io(e.to_string()))?;
            results.push(
                thread.join().unwrap_or_else(|_| {
                    Err(ClusterError::Io("a search thread panicked".to_string()))
                }),
            );
        }
        Ok::<_, ClusterError>(results)
    })?;
    let outcome = results.into_iter().reduce(|a, b| match (a, b) {
        (Err(e), _) | (_, Err(e)) => Err(e),
        (ok, _) => ok,
    });
    match outcome {
        Some(Ok(found)) => {
            losses.finish();
            // Every worker has ended its rounds: the dataflows drain.
            drop(served);
            Ok(found)
        }
        Some(Err(error)) => {
            if matches!(error, ClusterError::Worker { .. }) && losses.first().is_none() {
                // A worker's error ends every worker, each at its next
                // round, and no peer is gone: let this process's last
                // messages reach the others before it exits, or one still
                // in the round takes its closed connection for a loss.
                losses.finish();
                drain(served, DRAIN);
            } else {
                // A worker may still wait on a peer that is gone: leave
                // the timely threads to the end of the process.
                std::mem::forget(served);
            }
            Err(error)
        }
        None => Err(ClusterError::Topology("no worker ran".to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What timely's guard does where a peer left first: panics on drop.
    struct PanicsOnDrop;

    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("Recv thread panic");
        }
    }

    #[test]
    fn draining_ends_when_the_guard_panics_on_a_peer_gone_first() {
        // Quiet, as the cluster's hook makes it.
        network::quiet_network_panics(&Arc::new(Losses::default()));
        assert!(drain(PanicsOnDrop, Duration::from_secs(60)), "joined");
        assert!(drain(Vec::<u8>::new(), Duration::from_secs(60)), "joined");
    }
}

//! The budget options of the commands that can run long (`check`,
//! `explore`, `eval`), read into one [`Budget`]: `--max-states`,
//! `--timeout`, `--max-memory`, `--threads`, and `--progress`; and where
//! an exploration runs (`--workers`, `--processes`, `--process`,
//! `--hostfile`, `--connect-timeout`), read into a cluster's topology.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Args;

use crate::budget::disk::Spill;
use crate::budget::{Budget, memory};

/// What a search may use.
#[derive(Args, Debug, Clone)]
pub struct SearchLimits {
    /// Store at most N states (then inconclusive, exit 3; the counts are
    /// a lower bound).
    #[arg(long, value_name = "N", value_parser = parse_states)]
    pub max_states: Option<usize>,
    #[command(flatten)]
    pub work: WorkLimits,
    /// Threads computing successors (default: every core). The counts
    /// never depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Print a progress line to stderr every few seconds even when it is
    /// not a terminal (on a terminal one line is always redrawn).
    #[arg(long)]
    pub progress: bool,
    #[command(flatten)]
    pub disk: DiskLimits,
}

/// Where a search's states go when memory runs short, and how much disk
/// they may take: `check`'s and `explore`'s options, and the animator's
/// for the checks it runs.
#[derive(Args, Debug, Clone, Default)]
pub struct DiskLimits {
    /// When memory runs short (70% of --max-memory), move the older
    /// states to files in DIR and go on, rather than stop: `auto` for a
    /// folder under the system's temporary folder, removed afterwards.
    /// The files are unlinked as they are made, so nothing is left
    /// behind however the run ends.
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// With --spill-dir: stop (inconclusive) before the spilled states
    /// take more than SIZE of disk (`20G`, `500M`).
    #[arg(long, value_name = "SIZE", value_parser = parse_disk, requires = "spill_dir")]
    pub max_disk: Option<u64>,
    /// With --spill-dir: spill whenever more than N states are in memory,
    /// whatever the memory budget (for tests).
    #[arg(long, value_name = "N", hide = true, requires = "spill_dir")]
    pub spill_at_states: Option<usize>,
    /// The spill plan, made once (the folder checked, `auto` made).
    #[arg(skip)]
    spill: OnceLock<Result<Option<Arc<Spill>>, String>>,
}

/// What any long work may use: time and memory.
#[derive(Args, Debug, Clone)]
pub struct WorkLimits {
    /// Give up after SECS seconds (inconclusive, exit 3). 0 means no
    /// time limit, as when it is not given.
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: Option<Timeout>,
    /// Stop before the process uses more than SIZE of memory
    /// (inconclusive, exit 3): bytes, or with a unit (`512M`, `4G`,
    /// `1.5GiB`), or a share of the machine's memory (`50%`); `none` for
    /// no budget. Default: 75% of the machine's memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub max_memory: Option<MemoryLimit>,
}

/// What the checks run from the animator may use (`symcsp FILE
/// --max-states N ...`): `check`'s budget options, over the animator's
/// own defaults (a state budget, and a core left to the screen).
#[derive(Args, Debug, Clone, Default)]
pub struct AnimatorLimits {
    /// Checks run from the animator store at most N states each, and then
    /// say they were stopped (default 20000000).
    #[arg(long, value_name = "N", value_parser = parse_states)]
    pub max_states: Option<usize>,
    /// A check run from the animator gives up after SECS seconds (0, the
    /// default, for no time limit).
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: Option<Timeout>,
    /// Checks run from the animator stop before the process uses more
    /// than SIZE of memory: bytes, or with a unit (`512M`, `4G`), or a
    /// share of the machine's memory (`50%`); `none` for no budget.
    /// Default: 75% of the machine's memory.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub max_memory: Option<MemoryLimit>,
    /// Threads a check run from the animator computes successors on
    /// (default: every core but one, which the screen keeps).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub disk: DiskLimits,
}

impl AnimatorLimits {
    /// Whether any of the options was given.
    pub fn given(&self) -> bool {
        self.max_states.is_some()
            || self.timeout.is_some()
            || self.max_memory.is_some()
            || self.threads.is_some()
            || self.disk.spill_dir.is_some()
    }

    /// `budget` (the animator's default for checks) with what these
    /// options ask for.
    pub fn budget(&self, budget: Budget) -> Budget {
        Budget {
            max_states: self.max_states.or(budget.max_states),
            timeout: self.timeout.map_or(budget.timeout, |t| t.0),
            max_memory: self.max_memory.map_or(budget.max_memory, |m| m.0),
            threads: self.threads.map_or(budget.threads, usize::from),
            spill: self.disk.spill().ok().flatten(),
            ..budget
        }
    }
}

/// `--timeout`: `None` for no limit.
#[derive(Debug, Clone, Copy)]
pub struct Timeout(Option<Duration>);

/// `--max-memory`: `None` for no budget.
#[derive(Debug, Clone, Copy)]
pub struct MemoryLimit(Option<u64>);

impl WorkLimits {
    /// The budget these options ask for, the rest as by default.
    pub fn budget(&self) -> Budget {
        let default = Budget::default();
        Budget {
            timeout: self.timeout.map_or(default.timeout, |t| t.0),
            max_memory: self.max_memory.map_or(default.max_memory, |m| m.0),
            ..default
        }
    }
}

impl SearchLimits {
    pub fn budget(&self) -> Budget {
        let budget = self.work.budget();
        Budget {
            max_states: self.max_states,
            threads: self.threads.map_or(budget.threads, usize::from),
            spill: self.disk.spill().ok().flatten(),
            ..budget
        }
    }
}

impl DiskLimits {
    /// The spill plan `--spill-dir` asks for, if any: an error naming the
    /// folder when it cannot be written, which a command reports before
    /// it begins.
    pub fn spill(&self) -> Result<Option<Arc<Spill>>, String> {
        self.spill
            .get_or_init(|| {
                let Some(dir) = &self.spill_dir else {
                    return Ok(None);
                };
                let auto = dir.as_os_str() == "auto";
                let mut spill = Spill::new((!auto).then_some(dir.as_path()), self.max_disk)?;
                Arc::get_mut(&mut spill)
                    .expect("a plan just made")
                    .at_states = self.spill_at_states;
                Ok(Some(spill))
            })
            .clone()
    }
}

fn parse_disk(text: &str) -> Result<u64, String> {
    let wrong = || format!("expected a size such as `500M` or `20G`, not `{text}`");
    match parse_memory(text) {
        Ok(MemoryLimit(Some(bytes))) if !text.trim().ends_with('%') => Ok(bytes),
        _ => Err(wrong()),
    }
}

/// `--max-states`: a positive number (a budget of no states could not
/// even hold the initial state; `--timeout 0` means no limit, and a
/// state budget of 0 would be read as that too).
fn parse_states(text: &str) -> Result<usize, String> {
    match text.trim().replace('_', "").parse::<usize>() {
        Ok(0) => Err("a state budget holds at least the initial state: give 1 or more".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("expected a number of states, not `{text}`")),
    }
}

fn parse_timeout(text: &str) -> Result<Timeout, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds (0 for no limit), not `{text}`"))?;
    if seconds == 0.0 {
        return Ok(Timeout(None));
    }
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| Duration::from_secs(u64::MAX / 4) > *d)
        .map(|d| Timeout(Some(d)))
        .ok_or_else(|| format!("expected a number of seconds (0 for no limit), not `{text}`"))
}

fn parse_memory(text: &str) -> Result<MemoryLimit, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(MemoryLimit(None));
    }
    let wrong = || {
        format!(
            "expected a size such as `512M`, `4G` or `50%` (of the machine's memory), or \
             `none`, not `{text}`"
        )
    };
    if let Some(percent) = text.strip_suffix('%') {
        let share: f64 = percent.trim().parse().map_err(|_| wrong())?;
        if !(share > 0.0 && share <= 100.0) {
            return Err(wrong());
        }
        let physical = memory::physical().ok_or_else(|| {
            "this system does not say how much memory it has: give a size such as `4G`".to_string()
        })?;
        return Ok(MemoryLimit(Some((physical as f64 * share / 100.0) as u64)));
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().map_err(|_| wrong())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let scale: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(wrong()),
    };
    let bytes = number * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(wrong());
    }
    Ok(MemoryLimit(Some(bytes as u64)))
}

/// Where the search runs, when not on the usual search's threads.
#[derive(Args, Debug, Clone, Default)]
pub struct ClusterArgs {
    /// Explore on W workers through timely dataflow: W threads in this
    /// process, each owning the states that hash to it. The counts are
    /// those of one process.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: Option<u16>,
    /// The cluster's number of processes (timely's `-n`): with
    /// `--process` and `--hostfile` (default: the host file's lines).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub processes: Option<u16>,
    /// This process's index in the cluster, from 0 (timely's `-p`).
    #[arg(long = "process", id = "cluster_process", value_name = "I", value_parser = cluster_index)]
    pub process: Option<u16>,
    /// One `host:port` per line, process 0 first (timely's `-h`).
    /// Without it, process I listens on localhost:2101+I.
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// How long to wait for every process of the cluster to connect
    /// (default 30; 0 waits for ever).
    #[arg(long, value_name = "SECS")]
    pub connect_timeout: Option<f64>,
}

/// `--process I`: a number. The top-level `--process` takes a process
/// to animate; here a process named by mistake is told where it goes.
fn cluster_index(text: &str) -> Result<u16, String> {
    let text = text.trim();
    text.parse()
        .map_err(|_| match text.bytes().all(|b| b.is_ascii_digit()) {
            true => format!("a process number in a cluster is at most {}", u16::MAX),
            false => format!(
                "here --process is this process's number in a cluster (0, 1, …), not a process: \
             `symcsp explore FILE '{text}'` explores a process, and `check` checks the \
             script's assertions"
            ),
        })
}

impl ClusterArgs {
    /// Whether the search is to run on timely dataflow.
    pub fn asked(&self) -> bool {
        self.workers.is_some()
            || self.processes.is_some()
            || self.process.is_some()
            || self.hostfile.is_some()
    }

    /// The cluster these options describe.
    pub fn topology(&self) -> Result<crate::cluster::Topology, String> {
        let hosts: Option<Vec<String>> = match &self.hostfile {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!("error: cannot read the host file {}: {e}\n", path.display())
                })?;
                Some(
                    text.lines()
                        // A comment runs from `#` to the end of the line.
                        .map(|line| line.split('#').next().unwrap_or("").trim())
                        .filter(|line| !line.is_empty())
                        .map(str::to_string)
                        .collect(),
                )
            }
        };
        let processes = match (self.processes, &hosts) {
            (Some(n), _) => n as usize,
            (None, Some(hosts)) => hosts.len(),
            (None, None) => 1,
        };
        let hosts = match hosts {
            Some(hosts) if hosts.len() < processes => {
                return Err(format!(
                    "error: the host file {} has {} address{} for --processes {processes}\n",
                    self.hostfile
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string()),
                    hosts.len(),
                    if hosts.len() == 1 { "" } else { "es" }
                ));
            }
            Some(mut hosts) => {
                hosts.truncate(processes);
                hosts
            }
            None if processes == 1 => vec!["127.0.0.1:0".to_string()],
            None => (0..processes)
                .map(|i| format!("localhost:{}", 2101 + i))
                .collect(),
        };
        if processes > 1 && self.process.is_none() {
            return Err(format!(
                "error: the cluster has {processes} processes: say which one this is with \
                 --process I (0 to {})\n",
                processes - 1
            ));
        }
        if let Some(bad) = hosts.iter().find(|h| {
            h.rsplit_once(':')
                .is_none_or(|(_, port)| port.parse::<u16>().is_err())
        }) {
            return Err(format!(
                "error: `{bad}` in the host file is not host:port (one address per line)\n"
            ));
        }
        let topology = crate::cluster::Topology {
            workers: self.workers.map_or(1, usize::from),
            process: self.process.map_or(0, usize::from),
            hosts,
        };
        topology.check().map_err(|e| format!("error: {e}\n"))?;
        Ok(topology)
    }

    pub fn connect_wait(&self) -> Duration {
        match self.connect_timeout.unwrap_or(30.0) {
            0.0 => Duration::from_secs(u64::MAX / 4),
            seconds => Duration::from_secs_f64(seconds.clamp(0.1, 86_400.0 * 365.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        let bytes = |text| parse_memory(text).map(|m| m.0);
        assert_eq!(bytes("512M"), Ok(Some(512 << 20)));
        assert_eq!(bytes("4G"), Ok(Some(4 << 30)));
        assert_eq!(bytes("1.5GiB"), Ok(Some(3 << 29)));
        assert_eq!(bytes("2 gb"), Ok(Some(2 << 30)));
        assert_eq!(bytes("1000"), Ok(Some(1000)));
        assert_eq!(bytes("none"), Ok(None));
        for bad in ["", "G", "-1G", "4Q", "0", "150%", "0%", "x%"] {
            assert!(bytes(bad).is_err(), "{bad}");
        }
        if let Some(physical) = memory::physical() {
            assert_eq!(bytes("50%"), Ok(Some(physical / 2)));
        }
    }

    #[test]
    fn the_animator_s_options_replace_its_defaults_and_only_those_given() {
        let defaults = Budget {
            max_states: Some(20_000_000),
            threads: 3,
            ..Budget::default()
        };
        let none = AnimatorLimits::default();
        assert!(!none.given());
        let kept = none.budget(defaults.clone());
        assert_eq!(
            (kept.max_states, kept.threads, kept.timeout, kept.max_memory),
            (Some(20_000_000), 3, defaults.timeout, defaults.max_memory)
        );
        let given = AnimatorLimits {
            max_states: Some(100),
            timeout: Some(Timeout(Some(Duration::from_secs(5)))),
            max_memory: Some(MemoryLimit(None)),
            threads: Some(1),
            disk: DiskLimits {
                spill_dir: Some(std::env::temp_dir()),
                max_disk: Some(1 << 20),
                ..DiskLimits::default()
            },
        };
        assert!(given.given());
        let set = given.budget(defaults);
        assert_eq!(
            (set.max_states, set.threads, set.timeout, set.max_memory),
            (Some(100), 1, Some(Duration::from_secs(5)), None)
        );
        let spill = set.spill.expect("a spill plan");
        assert_eq!(spill.dir(), std::env::temp_dir());
    }

    #[test]
    fn a_state_budget_is_a_positive_number() {
        assert_eq!(parse_states("100"), Ok(100));
        assert_eq!(parse_states("20_000_000"), Ok(20_000_000));
        for bad in ["0", "-1", "lots", ""] {
            assert!(parse_states(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_timeout_of_zero_means_none() {
        let seconds = |text| parse_timeout(text).map(|t| t.0);
        assert_eq!(seconds("0"), Ok(None));
        assert_eq!(seconds("2.5"), Ok(Some(Duration::from_millis(2500))));
        for bad in ["-1", "NaN", "1e30", "soon", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
    }
}

/// `--por` on `check`: partial order reduction for every assertion,
/// whatever it says (`on`), or for none (`off`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
}

impl Switch {
    pub fn is_on(self) -> bool {
        self == Switch::On
    }
}

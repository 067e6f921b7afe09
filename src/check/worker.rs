//! Checks on a background thread: start one, watch its live counters,
//! cancel it, collect its result. The thread owns its own process
//! states; the caller only shares the script and the counters.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::lts::search::{Budget, Live};
use crate::script::Script;
use crate::stack::LARGE_STACK;
use crate::symmetry::spec::Reduce;
use crate::syntax::Diagnostic;

use super::counterexample::RenderedCounterexample;
use super::{Asked, CheckResult, check_keeping};
use crate::eval::Evaluator;
use crate::process::Processes;
use crate::symmetry::search_system::{About, Purpose};

/// A snapshot of a running check.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub states: u64,
    pub transitions: u64,
    /// The breadth-first level being expanded.
    pub depth: u64,
    pub elapsed: Duration,
    pub states_per_second: f64,
    /// What the process holds, in bytes (read at most a second ago),
    /// where the system says.
    pub memory: Option<u64>,
    /// With a spill folder, once the search has spilled: what is on disk.
    pub disk: Option<OnDisk>,
}

/// What a spilling search has put on disk, as of its last spill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnDisk {
    pub states: u64,
    /// Bytes its files hold.
    pub bytes: u64,
    /// Bytes written so far.
    pub written: u64,
}

impl OnDisk {
    /// What `live` says, once anything spilled.
    pub fn of(live: &Live) -> Option<OnDisk> {
        let states = live.on_disk.load(Ordering::Relaxed);
        (states > 0).then(|| OnDisk {
            states,
            bytes: live.disk_bytes.load(Ordering::Relaxed),
            written: live.disk_written.load(Ordering::Relaxed),
        })
    }
}

/// A check running on its own thread.
pub struct CheckHandle {
    live: Arc<Live>,
    started: Instant,
    budget: Budget,
    /// The types the check is reduced over, as asked (`None`: not
    /// reduced).
    reduced_over: Option<String>,
    thread: JoinHandle<Result<Checked, Diagnostic>>,
    /// Set (and waiters woken) when the check's thread is done.
    done: Arc<(Mutex<bool>, Condvar)>,
}

/// Sets the flag and wakes whoever waits on it when dropped: at the end
/// of the check's thread, however it ends.
struct Finishing(Arc<(Mutex<bool>, Condvar)>);

impl Drop for Finishing {
    fn drop(&mut self) {
        let (flag, woken) = &*self.0;
        *flag.lock().unwrap_or_else(|p| p.into_inner()) = true;
        woken.notify_all();
    }
}

/// A check's result, with its counterexample put into words on the
/// check's own thread (printing needs the script's processes, which the
/// caller need not build).
pub struct Checked {
    pub result: CheckResult,
    pub counterexample: Option<RenderedCounterexample>,
}

impl CheckHandle {
    /// Starts checking assertion `index` of `script` within `budget`
    /// (whose `live` counters are replaced by the handle's own).
    pub fn spawn(script: Arc<Script>, index: usize, budget: Budget) -> CheckHandle {
        CheckHandle::spawn_reduced(script, index, budget, Asked::default())
    }

    /// Starts checking assertion `index`, reduced as `asked` says (see
    /// [`check_with`](super::check_with)).
    pub fn spawn_reduced(
        script: Arc<Script>,
        index: usize,
        budget: Budget,
        asked: Asked,
    ) -> CheckHandle {
        let live = Arc::new(Live::default());
        // The time-out counts from now, for the check and for what its
        // counterexample needs computed again.
        let budget = Budget {
            live: Some(live.clone()),
            ..budget
        }
        .started();
        let for_thread = budget.clone();
        let chosen = Reduce::chosen(
            &script,
            asked.symmetry.as_ref(),
            Purpose::Check,
            About::Assertion(index),
        );
        let reduced_over = chosen.describe(&script);
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let finishing = Finishing(done.clone());
        let thread = std::thread::Builder::new()
            .name(format!("symcsp-check-{index}"))
            .stack_size(LARGE_STACK)
            .spawn(move || {
                let _finishing = finishing;
                let (mut result, kept) = check_keeping(&script, index, &for_thread, &asked)?;
                let counterexample = match &result.counterexample {
                    Some(cx) => {
                        // Its events and states are named by the processes
                        // the check searched, or, where it kept none, by
                        // the script's processes made again: bounded work
                        // the check did before, held only to memory and a
                        // cancel (a verdict found in time is never lost to
                        // the clock after). A compressed component's run,
                        // found by computing its compression again, is
                        // held to the check's deadline, and left out past
                        // it.
                        let describing = for_thread.describing();
                        let made = match kept {
                            Some(procs) => Ok(procs),
                            None => Processes::with_evaluator(
                                Evaluator::new(&script).with_meter(describing.meter()),
                            ),
                        };
                        match made {
                            Ok(mut procs) => {
                                procs.replace_meter(
                                    Budget {
                                        deadline: for_thread.deadline,
                                        ..describing
                                    }
                                    .meter(),
                                );
                                Some(cx.render(&mut procs))
                            }
                            Err(e) => match e.stop_reason() {
                                Some(stop) => {
                                    result.notes.push(format!(
                                        "the counterexample is not described: {}",
                                        stop.ended()
                                    ));
                                    None
                                }
                                None => return Err(e.to_diagnostic()),
                            },
                        }
                    }
                    None => None,
                };
                Ok(Checked {
                    result,
                    counterexample,
                })
            })
            .expect("the system can start a thread");
        CheckHandle {
            live,
            started: Instant::now(),
            budget,
            reduced_over,
            thread,
            done,
        }
    }

    /// Waits until the check is done, or `timeout` has passed; whether
    /// it is done.
    pub fn wait(&self, timeout: Duration) -> bool {
        let (flag, woken) = &*self.done;
        let guard = flag.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = woken
            .wait_timeout_while(guard, timeout, |done| !*done)
            .unwrap_or_else(|p| p.into_inner());
        *guard
    }

    pub fn progress(&self) -> Progress {
        let states = self.live.states.load(Ordering::Relaxed);
        let elapsed = self.started.elapsed();
        Progress {
            states,
            transitions: self.live.transitions.load(Ordering::Relaxed),
            depth: self.live.depth.load(Ordering::Relaxed),
            elapsed,
            states_per_second: states as f64 / elapsed.as_secs_f64().max(1e-9),
            memory: crate::budget::memory::held(Duration::from_secs(1)),
            disk: OnDisk::of(&self.live),
        }
    }

    /// The types the check is reduced over, as asked (`None`: not
    /// reduced): its states are then representatives.
    pub fn reduced_over(&self) -> Option<&str> {
        self.reduced_over.as_deref()
    }

    /// What the check decided about symmetry (`reduced over T (3)`,
    /// `not reduced`), once it has: before its search begins.
    pub fn decided(&self) -> Option<&str> {
        self.live.decided.get().map(String::as_str)
    }

    /// The state budget the check runs within, if any (for a gauge).
    pub fn max_states(&self) -> Option<usize> {
        self.budget.max_states
    }

    /// Asks the check to stop; it then ends `Inconclusive` within a few
    /// thousand states.
    pub fn cancel(&self) {
        self.live.cancel();
    }

    /// What the check publishes and reads its cancel from, to cancel it
    /// from elsewhere than the handle's owner.
    pub fn live(&self) -> Arc<Live> {
        self.live.clone()
    }

    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the result.
    pub fn join(self) -> Result<CheckResult, Diagnostic> {
        self.join_rendered().map(|checked| checked.result)
    }

    /// Waits for the result and its counterexample in words.
    pub fn join_rendered(self) -> Result<Checked, Diagnostic> {
        match self.thread.join() {
            Ok(result) => result,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Diagnostic::error_nowhere(format!(
                    "internal error: the check stopped unexpectedly ({what}); please report it"
                )))
            }
        }
    }
}

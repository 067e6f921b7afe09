//! What long work may use, and the one mechanism that holds it to that.
//!
//! A [`Budget`] says what a run may use: states, time, memory, threads,
//! and where to publish progress and look for a cancel request. Every
//! loop that can run long (the evaluator's, the breadth-first search's
//! loading, expanding and storing, the search for divergence, the
//! normaliser's τ-closures) counts its work and every few thousand units
//! asks a [`Meter`] made from the budget whether to go on; a run that
//! must stop says why ([`Stopped`]) with what it found so far, never with
//! a crash. Tables that grow in large steps ask the meter before each
//! step ([`Meter::may_allocate`]), so that no step overshoots the memory
//! budget or the address space the system allows.
//!
//! A utility: any layer may use it, and it uses none.

pub mod alloc;
pub mod disk;
pub mod memory;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Counters a search publishes while it runs, and the flag that cancels
/// it; shared with whoever watches (the TUI, the CLI's progress line).
#[derive(Debug, Default)]
pub struct Live {
    pub cancel: AtomicBool,
    pub states: AtomicU64,
    pub transitions: AtomicU64,
    /// The breadth-first level being expanded.
    pub depth: AtomicU64,
    /// States whose rows a search spilled to disk, the bytes its spill
    /// files hold, and the bytes written to them so far (as of the last
    /// spill).
    pub on_disk: AtomicU64,
    pub disk_bytes: AtomicU64,
    pub disk_written: AtomicU64,
    /// What a check decided about symmetry before it began (`reduced over
    /// T (3)`, `not reduced: ...`), for a watcher to show at once.
    pub decided: OnceLock<String>,
}

impl Live {
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Publishes what a spill left on disk: `states` rows, and the
    /// plan's bytes.
    pub fn spilled(&self, states: usize, spill: &disk::Spill) {
        self.on_disk.store(states as u64, Ordering::Relaxed);
        self.disk_bytes.store(spill.used(), Ordering::Relaxed);
        self.disk_written.store(spill.written(), Ordering::Relaxed);
    }
}

/// Limits on a run, and the threads it may use.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Store at most this many states (in each table of states a run
    /// keeps: the product, the states met looking for divergence, the
    /// specification's).
    pub max_states: Option<usize>,
    /// Stop after this long, counted from [`Budget::started`] (or from
    /// the start of each search, if never started).
    pub timeout: Option<Duration>,
    /// Stop by then: set by [`Budget::started`], so that every part of a
    /// check shares one clock.
    pub deadline: Option<Instant>,
    /// Stop before the memory the work holds passes this many bytes
    /// ([`memory::held`]: the heap, as the binary's allocator counts it,
    /// and the native stack of deep evaluation). The default is a safe fraction of the machine's memory
    /// ([`memory::default_budget`]).
    pub max_memory: Option<u64>,
    /// Threads that compute successors (the results never depend on it).
    pub threads: usize,
    /// Where to publish progress and look for a cancel request.
    pub live: Option<Arc<Live>>,
    /// Where a search's store may spill what does not fit under
    /// `max_memory`, and how much disk it may use (`--spill-dir`,
    /// `--max-disk`); none: the search stops at the memory budget.
    pub spill: Option<Arc<disk::Spill>>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_states: None,
            timeout: None,
            deadline: None,
            max_memory: memory::default_budget(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            live: None,
            spill: None,
        }
    }
}

impl Budget {
    /// The same budget with its clock started now: its time-out becomes a
    /// deadline that every run made with it shares.
    pub fn started(&self) -> Budget {
        let from_now = self.timeout.and_then(|t| Instant::now().checked_add(t));
        Budget {
            deadline: match (self.deadline, from_now) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            ..self.clone()
        }
    }

    /// The budget a counterexample is described within: bounded by its
    /// path, not by the search's states or time, which the search may
    /// have used up; only memory and a cancel hold it.
    pub fn describing(&self) -> Budget {
        Budget {
            max_states: None,
            timeout: None,
            deadline: None,
            ..self.clone()
        }
    }

    /// The meter that holds work to this budget (its clock started now,
    /// unless it was started before).
    pub fn meter(&self) -> Meter {
        let started = self.started();
        Meter {
            deadline: started.deadline,
            live: self.live.clone(),
            max_memory: self.max_memory,
            max_states: self.max_states,
            first_stop: Arc::default(),
        }
    }
}

/// Why work stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The search's client found what it was looking for.
    Visitor,
    /// A table of states reached `max_states`.
    StateBudget,
    /// The time-out passed.
    Timeout,
    /// Someone set the cancel flag.
    Cancelled,
    /// The memory budget (or the address space the system allows) would
    /// have been passed.
    Memory,
    /// The disk budget would have been passed, or the spill folder
    /// failed ([`disk::Spill::failure`] says how).
    Disk,
}

impl Stopped {
    /// Why, in a word or two.
    /// Why the work ended before an answer, as a phrase: `stopped by the
    /// time-out`, `cancelled`.
    pub fn ended(self) -> String {
        match self {
            Stopped::Cancelled | Stopped::Visitor => "cancelled".to_string(),
            other => format!("stopped by the {}", other.reason()),
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Stopped::StateBudget => "state budget",
            Stopped::Timeout => "time-out",
            Stopped::Memory => "memory budget",
            Stopped::Disk => "disk budget",
            Stopped::Cancelled | Stopped::Visitor => "cancelled",
        }
    }
}

/// Asks whether work may go on: the deadline, the cancel flag and the
/// memory budget, with the state budget for tables to consult. Cheap to
/// clone and to poll (a clock read and an atomic load; memory is read
/// from the system at most every [`memory::FRESH`]).
#[derive(Debug, Clone, Default)]
pub struct Meter {
    deadline: Option<Instant>,
    live: Option<Arc<Live>>,
    max_memory: Option<u64>,
    max_states: Option<usize>,
    /// The first stop this meter (or a clone) gave: work that turned a
    /// stop into something else (a diagnostic) can still be told it was
    /// stopped ([`Meter::stopped`]).
    first_stop: Arc<OnceLock<Stopped>>,
}

impl Meter {
    /// A meter that never stops anything but an address space about to
    /// run out.
    pub fn unlimited() -> Meter {
        Meter::default()
    }

    /// `Err` with the reason when the work must stop now.
    pub fn poll(&self) -> Result<(), Stopped> {
        if self.live.as_ref().is_some_and(|live| live.cancelled()) {
            return self.stop(Stopped::Cancelled);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return self.stop(Stopped::Timeout);
        }
        self.memory_allows(0, memory::FRESH)
    }

    /// The first stop this meter or a clone of it gave, if any.
    pub fn stopped(&self) -> Option<Stopped> {
        self.first_stop.get().copied()
    }

    fn stop(&self, reason: Stopped) -> Result<(), Stopped> {
        let _ = self.first_stop.set(reason);
        Err(reason)
    }

    /// Whether `bytes` more may be allocated now without passing the
    /// memory budget: asked before a table grows by a large step. A
    /// large step reads the memory afresh; a small one trusts a reading
    /// [`memory::FRESH`] old (reading costs a system call or more: asked
    /// for every small set, a fresh reading was most of a search's time).
    pub fn may_allocate(&self, bytes: u64) -> Result<(), Stopped> {
        let max_age = if bytes >= FRESH_READING_FROM {
            Duration::ZERO
        } else {
            memory::FRESH
        };
        self.memory_allows(bytes, max_age)
    }

    /// Whether a table of states may hold `states` of them.
    pub fn may_store(&self, states: usize) -> Result<(), Stopped> {
        match self.max_states {
            Some(max) if states > max => Err(Stopped::StateBudget),
            _ => Ok(()),
        }
    }

    /// The state budget, for tables that stop exactly at it.
    pub fn max_states(&self) -> Option<usize> {
        self.max_states
    }

    fn memory_allows(&self, bytes: u64, max_age: Duration) -> Result<(), Stopped> {
        let over_budget = self.max_memory.is_some_and(|max| {
            memory::held(max_age).is_some_and(|held| held.saturating_add(bytes) > max)
        });
        let over_address_space = memory::address_space_limit().is_some_and(|max| {
            memory::usage(max_age)
                .is_some_and(|usage| usage.address_space.saturating_add(bytes) > max)
        });
        if over_budget || over_address_space {
            self.stop(Stopped::Memory)
        } else {
            Ok(())
        }
    }
}

/// A meter polled once every `every` units of cheap work (declarations
/// parsed, definitions resolved, steps of type inference): a loop counts
/// each unit with [`Ticker::tick`] and reads the clock only now and then.
#[derive(Debug, Clone)]
pub struct Ticker {
    meter: Meter,
    every: u32,
    since: u32,
}

impl Ticker {
    pub fn new(meter: Meter, every: u32) -> Ticker {
        Ticker {
            meter,
            every: every.max(1),
            since: 0,
        }
    }

    /// A ticker that stops nothing but an address space about to run out.
    pub fn unlimited() -> Ticker {
        Ticker::new(Meter::unlimited(), 1024)
    }

    /// Counts a unit of work; `Err` with the reason when it must stop.
    pub fn tick(&mut self) -> Result<(), Stopped> {
        self.since += 1;
        if self.since < self.every {
            return Ok(());
        }
        self.since = 0;
        self.meter.poll()
    }

    /// The first stop its meter gave, if any: work that could not carry
    /// the stop out of where it ticked asks afterwards.
    pub fn stopped(&self) -> Option<Stopped> {
        self.meter.stopped()
    }

    pub fn meter(&self) -> &Meter {
        &self.meter
    }
}

/// Polls a meter by the clock rather than by a count, for loops whose
/// every unit may be slow — a search's states: one state of a wide
/// synchronisation through a large renaming can take milliseconds to
/// expand, so a count of thousands of states can hold a stop back for
/// minutes. [`Pulse::beat`] reads a coarse clock (a few nanoseconds)
/// and polls the meter once [`PULSE`] has passed since it last did: a
/// stop is seen within milliseconds however long each unit takes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Pulse {
    /// When the next poll is due, in [`coarse_millis`].
    due: u64,
}

/// How often a [`Pulse`] polls its meter.
pub const PULSE: Duration = Duration::from_millis(5);

impl Pulse {
    /// Polls `meter` if [`PULSE`] has passed since the last poll.
    #[inline]
    pub fn beat(&mut self, meter: &Meter) -> Result<(), Stopped> {
        let now = coarse_millis();
        if now < self.due {
            return Ok(());
        }
        self.due = now + PULSE.as_millis() as u64;
        meter.poll()
    }
}

/// Milliseconds on a monotonic clock that is cheap to read: Linux's
/// coarse clock (read without a system call, a few nanoseconds, correct
/// to a few milliseconds); elsewhere the standard clock.
#[inline]
pub fn coarse_millis() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the struct it is given only.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut now) };
        now.tv_sec as u64 * 1000 + now.tv_nsec as u64 / 1_000_000
    }
    #[cfg(not(target_os = "linux"))]
    {
        static EPOCH: OnceLock<Instant> = OnceLock::new();
        EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64
    }
}

/// Drops `value` on a thread of its own, so that whoever held it can
/// answer at once: a run stopped by its budget may have built millions of
/// small values, and freeing them takes a fifth as long as building them.
/// Used only for large structures (a spawned thread costs tens of
/// microseconds); if no thread can be started, `value` is dropped here.
/// [`wait_for_frees`] waits until every such value is freed.
pub fn drop_later<T: Send + 'static>(value: T) {
    let freeing = Freeing::start();
    // If no thread can be started, the closure, and `value` with it, is
    // dropped here (and `freeing` with it, after `value`).
    let _ = std::thread::Builder::new()
        .name("symcsp-free".into())
        .spawn(move || {
            drop(value);
            // A long-lived process (the editor's server, the animator)
            // goes on without the pages.
            memory::give_back_freed();
            drop(freeing);
        });
}

/// Waits until every value handed to [`drop_later`] is freed: a check
/// calls it before it starts, so that it starts with the whole memory
/// budget rather than with what an earlier, stopped one still held.
pub fn wait_for_frees() {
    let (count, freed) = &FREEING;
    let guard = count.lock().unwrap_or_else(|p| p.into_inner());
    drop(
        freed
            .wait_while(guard, |pending| *pending > 0)
            .unwrap_or_else(|p| p.into_inner()),
    );
}

/// Values being freed by [`drop_later`], and the signal that one was.
static FREEING: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// One value being freed: counted while it lives.
struct Freeing;

impl Freeing {
    fn start() -> Freeing {
        *FREEING.0.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        Freeing
    }
}

impl Drop for Freeing {
    fn drop(&mut self) {
        let (count, freed) = &FREEING;
        *count.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        freed.notify_all();
    }
}

/// Allocations of at least this many bytes read the memory afresh first.
const FRESH_READING_FROM: u64 = 64 << 20;

/// Tables holding more entries than this are freed by [`drop_later`].
pub const FREE_LATER: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_started_budget_shares_one_deadline() {
        let budget = Budget {
            timeout: Some(Duration::from_secs(3600)),
            ..Budget::default()
        };
        let started = budget.started();
        let deadline = started.deadline.expect("a deadline");
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(started.started().deadline, Some(deadline));
        assert_eq!(started.meter().deadline, Some(deadline));
        assert!(budget.meter().deadline.expect("its own") > deadline);
    }

    #[test]
    fn a_pulse_polls_at_once_then_once_a_pulse() {
        let stopped = Budget {
            timeout: Some(Duration::ZERO),
            max_memory: None,
            ..Budget::default()
        };
        let meter = stopped.meter();
        let mut pulse = Pulse::default();
        assert_eq!(
            pulse.beat(&meter),
            Err(Stopped::Timeout),
            "the first beat polls"
        );
        assert_eq!(pulse.beat(&meter), Ok(()), "not again within a pulse");
        std::thread::sleep(PULSE * 3);
        assert_eq!(pulse.beat(&meter), Err(Stopped::Timeout));
        let before = coarse_millis();
        std::thread::sleep(Duration::from_millis(30));
        let after = coarse_millis();
        assert!((20..1000).contains(&(after - before)), "{before} → {after}");
    }

    #[test]
    fn a_ticker_polls_once_every_so_many_units() {
        let stopped = Budget {
            timeout: Some(Duration::ZERO),
            max_memory: None,
            ..Budget::default()
        };
        let mut ticker = Ticker::new(stopped.meter(), 3);
        assert_eq!(ticker.tick(), Ok(()));
        assert_eq!(ticker.tick(), Ok(()));
        assert_eq!(ticker.stopped(), None);
        assert_eq!(ticker.tick(), Err(Stopped::Timeout));
        assert_eq!(ticker.stopped(), Some(Stopped::Timeout));
        assert_eq!(ticker.tick(), Ok(()), "the count starts again");
        let mut free = Ticker::unlimited();
        assert!((0..5000).all(|_| free.tick().is_ok()));
    }

    #[test]
    fn the_meter_stops_for_each_reason() {
        let live = Arc::new(Live::default());
        let budget = Budget {
            timeout: Some(Duration::ZERO),
            live: Some(live.clone()),
            max_states: Some(10),
            max_memory: None,
            ..Budget::default()
        };
        assert_eq!(budget.meter().poll(), Err(Stopped::Timeout));
        live.cancel();
        assert_eq!(budget.meter().poll(), Err(Stopped::Cancelled));
        let meter = Budget {
            max_states: Some(10),
            max_memory: Some(1),
            ..Budget::default()
        }
        .meter();
        assert_eq!(meter.may_store(10), Ok(()));
        assert_eq!(meter.may_store(11), Err(Stopped::StateBudget));
        if memory::usage(Duration::ZERO).is_some() {
            assert_eq!(meter.poll(), Err(Stopped::Memory));
            assert_eq!(meter.may_allocate(0), Err(Stopped::Memory));
        }
        let roomy = Budget {
            max_memory: Some(u64::MAX / 2),
            ..Budget::default()
        }
        .meter();
        assert_eq!(roomy.poll(), Ok(()));
        assert_eq!(roomy.may_allocate(1 << 20), Ok(()));
        assert_eq!(Meter::unlimited().may_store(usize::MAX), Ok(()));
    }
}

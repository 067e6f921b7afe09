//! The worker threads of one search: made when the search first has a
//! block worth splitting and kept until it ends, so a block of states
//! costs a hand-over to threads already running, not a thread started per
//! block. A search that never has such a block (a small model, a short
//! check) starts no thread at all.
//!
//! The search's own thread is one of the `threads`: the pool has one
//! worker fewer, and the items of a piece of work are taken in turn by
//! whichever thread is free, the caller included. So no more threads are
//! runnable than asked for, and a worker that wakes late (milliseconds,
//! on a busy virtual machine) costs only the items it did not take.
//!
//! **Why not rayon's pool**, which this replaced: a search hands its
//! workers a block every few hundred microseconds, and between blocks the
//! search's thread works alone for a while (judging, storing,
//! evaluating). Rayon's idle workers go to sleep after a few dozen
//! yields, and a caller outside the pool waits for the work on a futex,
//! so most blocks paid a wake-up at the start and another at the end —
//! a large share of a small search's time, and erratic. Here a worker spins
//! (yielding) for [`SPIN`] after its last job before it parks, the caller
//! spins for the workers at the end, and places a worker has not taken
//! by then are withdrawn, so the caller never waits for a worker to wake.
//!
//! With one thread there is no pool: the work runs on the caller's
//! thread, in order.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, TryLockError};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long an idle worker, or a caller waiting for its workers, stays
/// awake looking for work before it parks. Longer than the gap between
/// two blocks of most searches, short enough that a search stopped at a
/// prompt does not hold a core.
const SPIN: Duration = Duration::from_micros(250);

/// Spins between two looks at the clock (and yields to other threads).
const SPINS_PER_LOOK: u32 = 64;

pub struct Pool {
    threads: usize,
    /// Started on first use; `None` inside if the system would not start
    /// them (the work then runs on the caller's thread).
    workers: OnceLock<Option<Workers>>,
}

/// The pool's threads and what they share with the caller.
struct Workers {
    crew: Arc<Crew>,
    handles: Vec<JoinHandle<()>>,
    /// Held while a job is out: one at a time. Work given meanwhile (by
    /// the job itself, or by another thread) runs on its caller's thread.
    posting: Mutex<()>,
}

/// What the caller and the workers share. A job is posted by setting
/// `job`, then `places` (how many workers may join it) and `busy` (the
/// places not given up yet), then bumping `posted`. A worker joins by
/// taking a place; the caller withdraws the places left when its own
/// share is done and waits until `busy` is zero: every worker that took
/// a place has finished with the job, which borrows the caller's stack.
struct Crew {
    posted: AtomicU64,
    places: AtomicUsize,
    busy: AtomicUsize,
    job: Mutex<Option<Job>>,
    stop: AtomicBool,
    /// Per worker: whether it is parked, or about to (the caller then
    /// unparks it).
    parked: Vec<AtomicBool>,
    /// The caller, while parked waiting for `busy` to reach zero.
    waiting: AtomicBool,
    caller: Mutex<Option<Thread>>,
    /// The first panic of a worker's job, passed on to the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// The job posted: the caller's closure, its lifetime erased. Sound
/// because the caller does not return (nor unwind) past the closure
/// before every worker that took a place has finished running it
/// ([`Posted`]'s drop).
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn() + Sync));

// SAFETY: the closure behind the pointer is `Sync`, so running it from
// another thread is allowed; the pointer is only followed while the
// caller keeps the closure alive (see `Job`).
unsafe impl Send for Job {}

impl Pool {
    /// A pool of `threads` workers, started when first given work.
    pub fn new(threads: usize) -> Pool {
        Pool {
            threads: threads.max(1),
            workers: OnceLock::new(),
        }
    }

    /// The threads the work is split between.
    pub fn threads(&self) -> usize {
        self.threads
    }

    fn workers(&self) -> Option<&Workers> {
        if self.threads == 1 {
            return None;
        }
        self.workers
            .get_or_init(|| Workers::start(self.threads - 1))
            .as_ref()
    }

    /// `work(i, item)` for every item, on the workers, returning when all
    /// are done; on the caller's thread, in order, when there is only one
    /// item or one thread.
    pub fn each<T: Send>(&self, items: &mut [T], work: impl Fn(usize, &mut T) + Sync) {
        if items.len() <= 1 {
            for (i, item) in items.iter_mut().enumerate() {
                work(i, item);
            }
            return;
        }
        self.share(items, work, None::<fn()>);
    }

    /// As [`Pool::each`], while the caller first does `beside` (work of
    /// its own that shares nothing with the items); it then takes the
    /// items left. With one thread, `beside` and then the items in order.
    pub fn each_beside<T: Send, R>(
        &self,
        items: &mut [T],
        work: impl Fn(usize, &mut T) + Sync,
        beside: impl FnOnce() -> R,
    ) -> R {
        self.share(items, work, Some(beside))
            .expect("beside was given")
    }

    /// The items between the workers and the caller, who first does
    /// `beside` when there is one (and then needs a helper more, as it
    /// takes no item meanwhile).
    fn share<T: Send, R>(
        &self,
        items: &mut [T],
        work: impl Fn(usize, &mut T) + Sync,
        beside: Option<impl FnOnce() -> R>,
    ) -> Option<R> {
        let workers = self.workers().filter(|_| !items.is_empty());
        // A job that panicked left the lock poisoned: the pool is still
        // whole (the panic was passed on after every worker finished).
        let posting = workers.and_then(|w| match w.posting.try_lock() {
            Ok(guard) => Some((w, guard)),
            Err(TryLockError::Poisoned(poisoned)) => Some((w, poisoned.into_inner())),
            Err(TryLockError::WouldBlock) => None,
        });
        match posting {
            Some((workers, _one_at_a_time)) => {
                let busy = usize::from(beside.is_none());
                let helpers = (self.threads - 1).min(items.len() - busy);
                let cells: Vec<Mutex<&mut T>> = items.iter_mut().map(Mutex::new).collect();
                let next = AtomicUsize::new(0);
                let take = || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(cell) = cells.get(i) else { break };
                        // Each item is taken once: the lock is never
                        // contended (nor poisoned, as a panic ends the
                        // search).
                        let mut item = cell.lock().unwrap_or_else(|e| e.into_inner());
                        work(i, &mut item);
                    }
                };
                let posted = workers.post(&take, helpers);
                let result = beside.map(|beside| beside());
                take();
                if let Some(panic) = posted.finish() {
                    resume_unwind(panic);
                }
                result
            }
            _ => {
                let result = beside.map(|beside| beside());
                for (i, item) in items.iter_mut().enumerate() {
                    work(i, item);
                }
                result
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        if let Some(Some(mut workers)) = self.workers.take() {
            workers.stop();
        }
    }
}

impl Workers {
    /// `count` threads, waiting for work; `None` if the system would not
    /// start them all.
    fn start(count: usize) -> Option<Workers> {
        let crew = Arc::new(Crew {
            posted: AtomicU64::new(0),
            places: AtomicUsize::new(0),
            busy: AtomicUsize::new(0),
            job: Mutex::new(None),
            stop: AtomicBool::new(false),
            parked: (0..count).map(|_| AtomicBool::new(false)).collect(),
            waiting: AtomicBool::new(false),
            caller: Mutex::new(None),
            panic: Mutex::new(None),
        });
        let mut workers = Workers {
            crew: crew.clone(),
            handles: Vec::with_capacity(count),
            posting: Mutex::new(()),
        };
        for me in 0..count {
            let crew = crew.clone();
            let spawned = thread::Builder::new()
                .name(format!("symcsp-search-{me}"))
                .spawn(move || crew.serve(me));
            match spawned {
                Ok(handle) => workers.handles.push(handle),
                Err(_) => {
                    workers.stop();
                    return None;
                }
            }
        }
        Some(workers)
    }

    /// Posts `job` for up to `places` workers, waking those parked.
    fn post<'a>(&'a self, job: &'a (dyn Fn() + Sync + 'a), places: usize) -> Posted<'a> {
        let crew = &*self.crew;
        debug_assert_eq!(crew.busy.load(Ordering::SeqCst), 0, "one job at a time");
        // SAFETY: only the lifetime changes; `Posted` keeps the caller
        // from leaving `job`'s scope while a worker may still run it.
        let erased: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(job) };
        *crew.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(Job(erased));
        crew.busy.store(places, Ordering::SeqCst);
        crew.places.store(places, Ordering::SeqCst);
        crew.posted.fetch_add(1, Ordering::SeqCst);
        let mut woken = 0;
        for (parked, handle) in crew.parked.iter().zip(&self.handles) {
            if woken == places {
                break;
            }
            if parked.load(Ordering::SeqCst) {
                handle.thread().unpark();
                woken += 1;
            }
        }
        Posted { crew, done: false }
    }

    /// Ends the threads and waits for them.
    fn stop(&mut self) {
        self.crew.stop.store(true, Ordering::SeqCst);
        self.crew.posted.fetch_add(1, Ordering::SeqCst);
        for handle in &self.handles {
            handle.thread().unpark();
        }
        for handle in self.handles.drain(..) {
            // A worker's panics are caught and passed on with its job.
            let _ = handle.join();
        }
    }
}

/// A job posted and not yet known to be finished by every worker that
/// joined it.
struct Posted<'a> {
    crew: &'a Crew,
    done: bool,
}

impl Posted<'_> {
    /// Withdraws the places no worker took, waits for those that did,
    /// and gives a worker's panic back, if one panicked.
    fn finish(mut self) -> Option<Box<dyn Any + Send>> {
        self.wait();
        self.crew
            .panic
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    fn wait(&mut self) {
        let crew = self.crew;
        let withdrawn = crew.places.swap(0, Ordering::SeqCst);
        crew.busy.fetch_sub(withdrawn, Ordering::SeqCst);
        spin_until(
            || crew.busy.load(Ordering::Acquire) == 0,
            || {
                *crew.caller.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread::current());
                crew.waiting.store(true, Ordering::SeqCst);
                while crew.busy.load(Ordering::SeqCst) != 0 {
                    thread::park();
                }
                crew.waiting.store(false, Ordering::SeqCst);
            },
        );
        *crew.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.done = true;
    }
}

impl Drop for Posted<'_> {
    /// The caller is unwinding past the job: the workers still running
    /// it must finish first. Their panic, if any, is dropped (the
    /// caller's own is under way), not left for the next job.
    fn drop(&mut self) {
        if !self.done {
            self.wait();
            drop(
                self.crew
                    .panic
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take(),
            );
        }
    }
}

impl Crew {
    /// A worker's life: wait for a job, take a place on it if one is
    /// left, run it; until the pool stops.
    fn serve(&self, me: usize) {
        let mut seen = 0;
        loop {
            seen = self.next_post(seen, me);
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            if !self.take_place() {
                continue;
            }
            let job = self
                .job
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .expect("a job is posted while a place is open");
            // SAFETY: the caller keeps the closure alive until `busy`
            // reaches zero, which this worker's place holds off until
            // it has returned.
            let ran = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)() }));
            if let Err(panic) = ran {
                let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(panic);
            }
            if self.busy.fetch_sub(1, Ordering::SeqCst) == 1 && self.waiting.load(Ordering::SeqCst)
            {
                let caller = self.caller.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(caller) = caller.as_ref() {
                    caller.unpark();
                }
            }
        }
    }

    /// Waits for a post after `seen` (spinning a while, then parked) and
    /// returns the latest.
    fn next_post(&self, seen: u64, me: usize) -> u64 {
        spin_until(
            || self.posted.load(Ordering::Acquire) != seen,
            || {
                let parked = &self.parked[me];
                loop {
                    parked.store(true, Ordering::SeqCst);
                    if self.posted.load(Ordering::SeqCst) != seen {
                        break;
                    }
                    thread::park();
                }
                parked.store(false, Ordering::SeqCst);
            },
        );
        // Posts only ever go up: a post missed here was withdrawn or
        // taken by the others.
        self.posted.load(Ordering::Acquire)
    }

    /// Takes one of the places left on the job posted, if any.
    fn take_place(&self) -> bool {
        self.places
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    }
}

/// Spins (yielding to other threads now and then) until `ready` holds,
/// for at most [`SPIN`]; then calls `park`, which must wait until it
/// does.
fn spin_until(mut ready: impl FnMut() -> bool, park: impl FnOnce()) {
    let start = Instant::now();
    loop {
        for _ in 0..SPINS_PER_LOOK {
            if ready() {
                return;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            break;
        }
        thread::yield_now();
    }
    park();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_worked_once_on_any_number_of_threads() {
        for threads in 1..=4 {
            let pool = Pool::new(threads);
            for len in [0, 1, 2, 3, 17, 1000] {
                let mut items: Vec<u64> = (0..len).collect();
                pool.each(&mut items, |i, item| {
                    assert_eq!(*item, i as u64);
                    *item = *item * 2 + 1;
                });
                let expected: Vec<u64> = (0..len).map(|i| i * 2 + 1).collect();
                assert_eq!(items, expected, "{threads} threads, {len} items");
            }
        }
    }

    #[test]
    fn beside_runs_once_and_the_items_are_still_all_worked() {
        for threads in 1..=3 {
            let pool = Pool::new(threads);
            // Many jobs in a row on the same workers: each is finished
            // before the next is posted.
            for round in 0..200u64 {
                let mut items = vec![round; 9];
                let beside_ran = AtomicUsize::new(0);
                let answer = pool.each_beside(
                    &mut items,
                    |_, item| *item += 1,
                    || {
                        beside_ran.fetch_add(1, Ordering::Relaxed);
                        round * 3
                    },
                );
                assert_eq!(answer, round * 3);
                assert_eq!(beside_ran.load(Ordering::Relaxed), 1);
                assert!(items.iter().all(|&x| x == round + 1), "round {round}");
            }
        }
    }

    #[test]
    fn work_after_the_workers_parked_is_still_done() {
        let pool = Pool::new(2);
        let mut items = vec![0u32; 8];
        pool.each(&mut items, |_, x| *x += 1);
        // Long enough for the worker to park.
        thread::sleep(SPIN * 8);
        pool.each(&mut items, |_, x| *x += 1);
        assert!(items.iter().all(|&x| x == 2));
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller_and_the_pool_still_works() {
        let pool = Pool::new(2);
        let mut items: Vec<u32> = (0..64).collect();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            pool.each(&mut items, |i, _| {
                if i == 40 {
                    panic!("item 40");
                }
            })
        }));
        let message = caught.expect_err("the panic is passed on");
        let text = message
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| message.downcast_ref::<String>().map(String::as_str));
        assert_eq!(text, Some("item 40"));
        // Still on both threads afterwards, and no stale panic.
        let mut again = vec![1u32; 64];
        let threads = Mutex::new(std::collections::HashSet::new());
        for _ in 0..50 {
            pool.each(&mut again, |_, x| {
                *x += 1;
                threads.lock().unwrap().insert(thread::current().id());
                thread::sleep(Duration::from_micros(50));
            });
        }
        assert!(again.iter().all(|&x| x == 51));
        assert_eq!(
            threads.lock().unwrap().len(),
            2,
            "the worker still takes items"
        );
    }
}

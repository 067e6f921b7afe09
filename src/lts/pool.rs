//! The worker threads of one search: made when the search first has a
//! block worth splitting and kept until it ends, so a block of states
//! costs a hand-over to threads already running, not a thread started per
//! block (about 2 ms each). A search that never has such a block (a small
//! model, a short check) starts no thread at all. Rayon's pool is used
//! for it: it is well kept, hands work over in microseconds and waits for
//! all of it, which is all this needs.
//!
//! The search's own thread is one of the `threads`: the pool has one
//! worker fewer, and the items of a piece of work are taken in turn by
//! whichever thread is free, the caller included. So no more threads are
//! runnable than asked for, and a worker that wakes late (milliseconds,
//! on a busy virtual machine) costs only the items it did not take.
//!
//! With one thread there is no pool: the work runs on the caller's
//! thread, in order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

pub struct Pool {
    threads: usize,
    /// Started on first use; `None` inside if the system would not start
    /// them (the work then runs on the caller's thread).
    workers: OnceLock<Option<rayon::ThreadPool>>,
}

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

    fn workers(&self) -> Option<&rayon::ThreadPool> {
        if self.threads == 1 {
            return None;
        }
        self.workers
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.threads - 1)
                    .thread_name(|i| format!("symcsp-search-{i}"))
                    .build()
                    .ok()
            })
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
        match self.workers() {
            Some(pool) if !items.is_empty() => {
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
                pool.in_place_scope(|scope| {
                    for _ in 0..helpers {
                        scope.spawn(|_| take());
                    }
                    let result = beside.map(|beside| beside());
                    take();
                    result
                })
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

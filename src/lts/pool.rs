//! The worker threads of one search: made once when the search starts
//! and kept until it ends, so a block of states costs a hand-over to
//! threads already running, not a thread started per block (about 2 ms
//! each). Rayon's pool is used for it: it is well kept, hands work over
//! in microseconds and waits for all of it, which is all this needs.
//!
//! With one thread there is no pool: the work runs on the caller's
//! thread, in order.

use rayon::prelude::*;

pub struct Pool {
    threads: usize,
    workers: Option<rayon::ThreadPool>,
}

impl Pool {
    /// A pool of `threads` workers (none for one thread, or if the
    /// system will not start them: the work then runs on the caller's).
    pub fn new(threads: usize) -> Pool {
        let threads = threads.max(1);
        let workers = (threads > 1)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|i| format!("symcsp-search-{i}"))
                    .build()
                    .ok()
            })
            .flatten();
        Pool {
            threads: if workers.is_some() { threads } else { 1 },
            workers,
        }
    }

    /// The threads the work is split between.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// `work(i, item)` for every item, on the workers, returning when all
    /// are done.
    pub fn each<T: Send>(&self, items: &mut [T], work: impl Fn(usize, &mut T) + Sync) {
        match &self.workers {
            Some(pool) if items.len() > 1 => pool.install(|| {
                items
                    .par_iter_mut()
                    .with_max_len(1)
                    .enumerate()
                    .for_each(|(i, item)| work(i, item))
            }),
            _ => {
                for (i, item) in items.iter_mut().enumerate() {
                    work(i, item);
                }
            }
        }
    }
}

//! Where the search's own thread spends a run, for whoever tunes the
//! search on many cores: with `SYMCSP_PHASES` set in the environment,
//! a run prints to standard error the wall time its thread spent in
//! each step of the loop (expanding with the workers, preparing what
//! they left to it, judging, storing, recording, and waiting for the
//! workers expanding the next block), and how many blocks it took.
//! Unset, nothing is timed.
//!
//! The other threads are not timed: what the search's thread waits for
//! them shows as `wait`, and what it does alone is the serial part that
//! bounds the speed-up. The cluster's workers time their own rounds the
//! same way ([`Phases`] over their own [`Steps`]), each printing a line.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

/// A step of the search's loop.
#[derive(Debug, Clone, Copy)]
pub(super) enum Phase {
    /// Expanding a block, the search's thread taking parts with the
    /// workers.
    Expand,
    /// Preparing the states a block left to this thread (evaluating).
    Prepare,
    /// The visitor judging the block's states in order.
    Visit,
    /// Storing the kept successors.
    Store,
    /// Recording parents, transitions and levels.
    Record,
    /// Copying the next block's rows and evaluating ahead.
    Ahead,
    /// After its share of a round that overlaps the next block's
    /// expansion: taking the next block's parts left, then waiting for
    /// the workers to finish theirs.
    Wait,
}

impl Steps for Phase {
    const NAMES: &'static [&'static str] = &[
        "expand", "prepare", "visit", "store", "record", "ahead", "wait",
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// The steps of a loop whose time is counted: their names, in the
/// order of their indices.
pub trait Steps: Copy {
    const NAMES: &'static [&'static str];
    fn index(self) -> usize;
}

/// The time spent in each step `S` of a loop, when asked for.
pub struct Phases<S> {
    spent: Option<Vec<Duration>>,
    blocks: u64,
    steps: PhantomData<S>,
}

impl<S: Steps> Phases<S> {
    /// Timing when `SYMCSP_PHASES` is set.
    pub fn from_env() -> Phases<S> {
        Phases::timing(std::env::var_os("SYMCSP_PHASES").is_some())
    }

    fn timing(on: bool) -> Phases<S> {
        Phases {
            spent: on.then(|| vec![Duration::ZERO; S::NAMES.len()]),
            blocks: 0,
            steps: PhantomData,
        }
    }

    /// The moment a step starts, when timing.
    pub fn start(&self) -> Option<Instant> {
        self.spent.as_ref().map(|_| Instant::now())
    }

    /// Counts the time since `started` to `step`.
    pub fn add(&mut self, step: S, started: Option<Instant>) {
        if let (Some(spent), Some(started)) = (&mut self.spent, started) {
            spent[step.index()] += started.elapsed();
        }
    }

    /// Counts `time` to `step`.
    pub fn add_time(&mut self, step: S, time: Duration) {
        if let Some(spent) = &mut self.spent {
            spent[step.index()] += time;
        }
    }

    /// Counts one more turn of the loop (a block, a round).
    pub fn block(&mut self) {
        self.blocks += 1;
    }

    /// The line printed at the end of a run, when timing: `who` names
    /// the thread timed, `turns` what the loop turns over.
    pub fn report(&self, who: &str, turns: &str) -> Option<String> {
        let spent = self.spent.as_ref()?;
        let parts: Vec<String> = S::NAMES
            .iter()
            .zip(spent)
            .map(|(name, time)| format!("{name} {:.3}", time.as_secs_f64()))
            .collect();
        Some(format!(
            "search phases (s, {who}): {}; {} {turns}",
            parts.join(", "),
            self.blocks
        ))
    }
}

impl Phases<Phase> {
    /// Counts to [`Phase::Wait`] what is left of a round that started
    /// at `round` once this thread's share (`own` long) was done.
    pub(super) fn add_wait(&mut self, round: Option<Instant>, own: Option<Duration>) {
        if let (Some(round), Some(own)) = (round, own) {
            self.add_time(Phase::Wait, round.elapsed().saturating_sub(own));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_times_nothing_and_set_reports_every_phase() {
        let mut off = Phases::<Phase>::timing(false);
        assert!(off.start().is_none());
        off.add_time(Phase::Store, Duration::from_secs(1));
        assert_eq!(off.report("the search's thread", "blocks"), None);

        let mut on = Phases::<Phase>::timing(true);
        on.add_time(Phase::Store, Duration::from_millis(1500));
        on.add_time(Phase::Wait, Duration::from_millis(250));
        on.block();
        assert_eq!(
            on.report("the search's thread, 16 threads", "blocks")
                .as_deref(),
            Some(
                "search phases (s, the search's thread, 16 threads): expand 0.000, \
                 prepare 0.000, visit 0.000, store 1.500, record 0.000, ahead 0.000, \
                 wait 0.250; 1 blocks"
            )
        );
    }
}

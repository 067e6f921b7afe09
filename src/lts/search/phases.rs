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
//! bounds the speed-up.

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

const PHASES: [(&str, Phase); 7] = [
    ("expand", Phase::Expand),
    ("prepare", Phase::Prepare),
    ("visit", Phase::Visit),
    ("store", Phase::Store),
    ("record", Phase::Record),
    ("ahead", Phase::Ahead),
    ("wait", Phase::Wait),
];

/// The time spent in each [`Phase`], when asked for.
pub(super) struct Phases {
    spent: Option<[Duration; PHASES.len()]>,
    blocks: u64,
}

impl Phases {
    /// Timing when `SYMCSP_PHASES` is set.
    pub(super) fn from_env() -> Phases {
        Phases {
            spent: std::env::var_os("SYMCSP_PHASES").map(|_| Default::default()),
            blocks: 0,
        }
    }

    /// The moment a phase starts, when timing.
    pub(super) fn start(&self) -> Option<Instant> {
        self.spent.map(|_| Instant::now())
    }

    /// Counts the time since `started` to `phase`.
    pub(super) fn add(&mut self, phase: Phase, started: Option<Instant>) {
        if let (Some(spent), Some(started)) = (&mut self.spent, started) {
            spent[phase as usize] += started.elapsed();
        }
    }

    /// Counts `time` to `phase`.
    pub(super) fn add_time(&mut self, phase: Phase, time: Duration) {
        if let Some(spent) = &mut self.spent {
            spent[phase as usize] += time;
        }
    }

    /// Counts to [`Phase::Wait`] what is left of a round that started
    /// at `round` once this thread's share (`own` long) was done.
    pub(super) fn add_wait(&mut self, round: Option<Instant>, own: Option<Duration>) {
        if let (Some(round), Some(own)) = (round, own) {
            self.add_time(Phase::Wait, round.elapsed().saturating_sub(own));
        }
    }

    pub(super) fn block(&mut self) {
        self.blocks += 1;
    }

    /// The line printed at the end of a run, when timing.
    pub(super) fn report(&self, threads: usize) -> Option<String> {
        let spent = self.spent?;
        let parts: Vec<String> = PHASES
            .iter()
            .map(|&(name, phase)| format!("{name} {:.3}", spent[phase as usize].as_secs_f64()))
            .collect();
        Some(format!(
            "search phases (s, the search's thread, {threads} thread{}): {}; {} blocks",
            if threads == 1 { "" } else { "s" },
            parts.join(", "),
            self.blocks
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_times_nothing_and_set_reports_every_phase() {
        let mut off = Phases {
            spent: None,
            blocks: 0,
        };
        assert!(off.start().is_none());
        off.add_time(Phase::Store, Duration::from_secs(1));
        assert_eq!(off.report(1), None);

        let mut on = Phases {
            spent: Some(Default::default()),
            blocks: 0,
        };
        on.add_time(Phase::Store, Duration::from_millis(1500));
        on.add_time(Phase::Wait, Duration::from_millis(250));
        on.block();
        assert_eq!(
            on.report(16).as_deref(),
            Some(
                "search phases (s, the search's thread, 16 threads): expand 0.000, \
                 prepare 0.000, visit 0.000, store 1.500, record 0.000, ahead 0.000, \
                 wait 0.250; 1 blocks"
            )
        );
    }
}

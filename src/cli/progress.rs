//! Progress of long work on the process's stderr: one line redrawn in
//! place when stderr is a terminal; under `--progress`, when it is not (a
//! log, CI), a line of its own every [`LOG_EVERY`]; otherwise nothing.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::budget::Live;
use crate::budget::disk::show_bytes;
use crate::check::worker::{OnDisk, Progress};

use super::{plural, say};

/// How often a line is printed when stderr is not a terminal.
pub const LOG_EVERY: Duration = Duration::from_secs(5);

/// How often the line is redrawn on a terminal.
const REDRAW_EVERY: Duration = Duration::from_millis(100);

/// Where and how progress is shown.
pub(super) struct ProgressLine {
    mode: Mode,
    last: Option<Instant>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Off,
    Redraw,
    Log,
}

impl ProgressLine {
    /// Redrawn on a terminal; logged every few seconds otherwise, when
    /// `asked` (`--progress`).
    pub fn new(asked: bool) -> ProgressLine {
        let mode = if std::io::stderr().is_terminal() {
            Mode::Redraw
        } else if asked {
            Mode::Log
        } else {
            Mode::Off
        };
        // A log gets its first line after a while, not for quick work.
        ProgressLine {
            mode,
            last: Some(Instant::now()),
        }
    }

    /// How long to wait before the next look.
    pub fn interval(&self) -> Duration {
        match self.mode {
            Mode::Log => LOG_EVERY.min(Duration::from_millis(250)),
            _ => REDRAW_EVERY,
        }
    }

    /// Shows `text` if it is time to.
    pub fn show(&mut self, text: &str) {
        let err = &mut std::io::stderr();
        match self.mode {
            Mode::Off => {}
            Mode::Redraw => say(err, &format!("\r\x1b[2K{text}")),
            Mode::Log => {
                if self.last.is_none_or(|t| t.elapsed() >= LOG_EVERY) {
                    self.last = Some(Instant::now());
                    say(err, &format!("{text}\n"));
                }
            }
        }
    }

    /// Clears a redrawn line once the work is done.
    pub fn finish(&mut self) {
        if self.mode == Mode::Redraw {
            say(&mut std::io::stderr(), "\r\x1b[2K");
        }
    }

    /// Runs `work` on this thread while another shows the counters of
    /// `live` as `describe` puts them.
    pub fn watch<T: Send>(
        &mut self,
        live: &Live,
        describe: impl Fn(&Live, Duration) -> String + Sync,
        work: impl FnOnce() -> T + Send,
    ) -> T {
        if self.mode == Mode::Off {
            return work();
        }
        let done = AtomicBool::new(false);
        let started = Instant::now();
        let interval = self.interval();
        std::thread::scope(|scope| {
            let (done, describe) = (&done, &describe);
            let line = &mut *self;
            let watcher = scope.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    std::thread::park_timeout(interval);
                    if !done.load(Ordering::Relaxed) {
                        line.show(&describe(live, started.elapsed()));
                    }
                }
                line.finish();
            });
            let result = work();
            done.store(true, Ordering::Relaxed);
            watcher.thread().unpark();
            watcher.join().expect("the progress line does not panic");
            result
        })
    }
}

/// The counters of a search in progress.
pub(super) fn progress_of(live: &Live, elapsed: Duration) -> Progress {
    let states = live.states.load(Ordering::Relaxed);
    Progress {
        states,
        transitions: live.transitions.load(Ordering::Relaxed),
        depth: live.depth.load(Ordering::Relaxed),
        elapsed,
        states_per_second: states as f64 / elapsed.as_secs_f64().max(1e-9),
        memory: crate::budget::memory::held(Duration::from_secs(1)),
        disk: OnDisk::of(live),
    }
}

/// `12345 states, 40000 transitions, depth 12, 81000 states/s, 3.2 s,
/// 152 MB in memory`, and once a search spilled, `, 8000000 states on
/// disk (215 MB, 31 MB/s written)`; `what` is `states` or
/// `representatives`.
pub(super) fn counters(p: &Progress, what: &str) -> String {
    let noun = what.trim_end_matches('s');
    let memory = p
        .memory
        .map(|bytes| format!(", {:.0} MB in memory", bytes as f64 / 1e6))
        .unwrap_or_default();
    let disk = p
        .disk
        .map(|disk| {
            format!(
                ", {} on disk ({}, {:.0} MB/s written)",
                plural(disk.states as usize, noun),
                show_bytes(disk.bytes),
                disk.written as f64 / 1e6 / p.elapsed.as_secs_f64().max(1e-9)
            )
        })
        .unwrap_or_default();
    format!(
        "{}, {}, depth {}, {:.0} {what}/s, {:.1} s{memory}{disk}",
        plural(p.states as usize, noun),
        plural(p.transitions as usize, "transition"),
        p.depth,
        p.states_per_second,
        p.elapsed.as_secs_f64()
    )
}

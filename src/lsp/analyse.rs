//! Loading the open documents on a thread of their own, as they are
//! edited: an edit after a pause is loaded at once; one that follows
//! another within [`SETTLE`] (a burst of typing) waits that long for the
//! next keystroke; and an edit to a document being loaded cancels that
//! load, so a large or pathological script never holds the editor up.
//! Each load runs within a time-out and a memory budget, as `symcsp
//! check` loads do.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;

use crate::budget::{Budget, Live};
use crate::syntax::OpenFiles;
use crate::types::{Analysis, analyse_text_at_within};

/// Edits this close together are a burst of typing: each waits this
/// long for the next before its document is loaded.
pub const SETTLE: Duration = Duration::from_millis(20);

/// The longest one load may take.
const LOAD_TIMEOUT: Duration = Duration::from_secs(20);

/// A document to load: its text as of `version`, and every open
/// document's (for the files it includes).
pub struct Job {
    pub uri: Uri,
    pub path: PathBuf,
    pub version: i32,
    pub text: Arc<String>,
    pub open: OpenFiles,
    /// Set by the server to cancel this load (a later edit).
    pub live: Arc<Live>,
    /// When the server sent it.
    pub sent: Instant,
}

/// A document loaded.
pub struct Analysed {
    pub uri: Uri,
    pub version: i32,
    /// The text it was loaded from: the analysis's positions are in it.
    pub text: Arc<String>,
    pub analysis: Analysis,
    /// What hover found out about each process (components, alphabet,
    /// symmetry) within its time, kept for the next hover of this load.
    pub process_facts: rustc_hash::FxHashMap<crate::script::ir::FuncId, Vec<String>>,
}

/// The thread loading documents, where their analyses arrive, and where
/// the analyses they replace go back to be freed.
pub struct Analyser {
    jobs: Option<Sender<Job>>,
    retired: Option<Sender<Analysed>>,
    pub done: Receiver<Analysed>,
    thread: Option<JoinHandle<()>>,
}

impl Analyser {
    pub fn start() -> Analyser {
        let (jobs, queue) = crossbeam_channel::unbounded::<Job>();
        let (retired, to_free) = crossbeam_channel::unbounded::<Analysed>();
        let (results, done) = crossbeam_channel::unbounded();
        let thread = std::thread::Builder::new()
            .name("symcsp-lsp-load".into())
            .spawn(move || run((&queue, &to_free), &results))
            .expect("a thread to load documents on");
        Analyser {
            jobs: Some(jobs),
            retired: Some(retired),
            done,
            thread: Some(thread),
        }
    }

    pub fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            // The thread ends only when the server drops it.
            let _ = jobs.send(job);
        }
    }

    /// Hands back an analysis the server no longer holds: the loading
    /// thread frees it (and gives its pages back) before it builds the
    /// next, so that no load is built beside two others, and the server
    /// answers on without waiting for the free.
    pub fn retire(&self, analysed: Analysed) {
        if let Some(retired) = &self.retired {
            let _ = retired.send(analysed);
        }
    }
}

impl Drop for Analyser {
    fn drop(&mut self) {
        self.jobs = None;
        self.retired = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Frees `first` and the analyses retired since, and gives their pages
/// back, if there were any.
fn free_retired(first: Option<Analysed>, to_free: &Receiver<Analysed>) {
    let retired: Vec<Analysed> = first.into_iter().chain(to_free.try_iter()).collect();
    if !retired.is_empty() {
        drop(retired);
        crate::budget::memory::give_back_freed();
    }
}

/// Whether `job` came within [`SETTLE`] of a job not yet answered
/// (`unanswered`, when it was sent): a keystroke of a burst of typing.
/// An edit sent after the last was answered starts afresh.
fn in_burst(job: &Job, unanswered: Option<Instant>) -> bool {
    unanswered.is_some_and(|last| job.sent.saturating_duration_since(last) < SETTLE)
}

/// Adds `job` to those `pending`, in place of one for its document;
/// whether it came in a burst of typing.
fn arrived(pending: &mut Vec<Job>, job: Job, unanswered: &mut Option<Instant>) -> bool {
    let burst = in_burst(&job, *unanswered);
    *unanswered = Some(job.sent);
    pending.retain(|p| p.uri != job.uri);
    pending.push(job);
    burst
}

/// Loads each job: at once when it came after a pause or after the
/// last was answered, else once no later one for the same document
/// follows within [`SETTLE`]; a job cancelled before it starts is
/// skipped. The analyses retired meanwhile are freed first.
fn run((queue, to_free): (&Receiver<Job>, &Receiver<Analysed>), results: &Sender<Analysed>) {
    let mut pending: Vec<Job> = Vec::new();
    // When the last job that arrived was sent, until it is answered.
    let mut unanswered: Option<Instant> = None;
    loop {
        let mut burst = false;
        if pending.is_empty() {
            crossbeam_channel::select! {
                recv(queue) -> job => match job {
                    Ok(job) => burst = arrived(&mut pending, job, &mut unanswered),
                    Err(_) => return,
                },
                recv(to_free) -> old => match old {
                    Ok(old) => {
                        free_retired(Some(old), to_free);
                        continue;
                    }
                    Err(_) => return,
                },
            }
        }
        // Those sent meanwhile (while the last load ran).
        while let Ok(job) = queue.try_recv() {
            burst |= arrived(&mut pending, job, &mut unanswered);
        }
        // Let the edits of a burst of typing arrive.
        if burst {
            while let Ok(job) = queue.recv_timeout(SETTLE) {
                arrived(&mut pending, job, &mut unanswered);
            }
        }
        free_retired(None, to_free);
        let job = pending.remove(0);
        if job.live.cancelled() {
            continue;
        }
        let budget = Budget {
            timeout: Some(LOAD_TIMEOUT),
            live: Some(job.live.clone()),
            ..Budget::default()
        }
        .started();
        let analysis = analyse_text_at_within(&job.path, &job.text, &job.open, &budget.meter());
        if job.live.cancelled() {
            continue;
        }
        let analysed = Analysed {
            uri: job.uri,
            version: job.version,
            text: job.text,
            analysis,
            process_facts: Default::default(),
        };
        if results.send(analysed).is_err() {
            return;
        }
        if pending.is_empty() {
            unanswered = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn job(uri: &str, sent: Instant) -> Job {
        Job {
            uri: Uri::from_str(uri).expect("a URI"),
            path: PathBuf::from("/tmp/a.csp"),
            version: 0,
            text: Arc::new(String::new()),
            open: OpenFiles::default(),
            live: Arc::new(Live::default()),
            sent,
        }
    }

    #[test]
    fn an_edit_after_a_pause_loads_at_once_and_a_burst_waits() {
        let start = Instant::now();
        let mut pending = Vec::new();
        let mut last = None;
        // The first edit, and one long after it, load at once.
        assert!(!arrived(
            &mut pending,
            job("file:///a.csp", start),
            &mut last
        ));
        let later = start + SETTLE * 3;
        assert!(!arrived(
            &mut pending,
            job("file:///a.csp", later),
            &mut last
        ));
        // One close behind it, not yet answered, is a keystroke of a
        // burst, whichever document it edits; the document's earlier
        // job is replaced.
        let soon = later + SETTLE / 4;
        assert!(arrived(&mut pending, job("file:///a.csp", soon), &mut last));
        assert!(arrived(&mut pending, job("file:///b.csp", soon), &mut last));
        let sent: Vec<_> = pending.iter().map(|j| (j.uri.as_str(), j.sent)).collect();
        assert_eq!(sent, [("file:///a.csp", soon), ("file:///b.csp", soon)]);
        // Once the last is answered, the next edit starts afresh however
        // soon it follows.
        last = None;
        let next = soon + SETTLE / 4;
        assert!(!arrived(
            &mut pending,
            job("file:///a.csp", next),
            &mut last
        ));
    }
}

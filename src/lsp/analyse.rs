//! Loading the open documents on a thread of their own, as they are
//! edited: an edit waits a moment for the next keystroke ([`SETTLE`]),
//! and an edit to a document being loaded cancels that load, so a large
//! or pathological script never holds the editor up. Each load runs
//! within a time-out and a memory budget, as `symcsp check` loads do.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;

use crate::budget::{Budget, Live};
use crate::syntax::OpenFiles;
use crate::types::{Analysis, analyse_text_at_within};

/// How long an edit waits for the next before its document is loaded.
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

/// Loads each job once no later one for the same document follows
/// within [`SETTLE`]; a job cancelled before it starts is skipped. The
/// analyses retired meanwhile are freed first.
fn run((queue, to_free): (&Receiver<Job>, &Receiver<Analysed>), results: &Sender<Analysed>) {
    let mut pending: Vec<Job> = Vec::new();
    loop {
        if pending.is_empty() {
            crossbeam_channel::select! {
                recv(queue) -> job => match job {
                    Ok(job) => pending.push(job),
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
        // Let the edits of a burst of typing arrive.
        while let Ok(job) = queue.recv_timeout(SETTLE) {
            pending.retain(|p| p.uri != job.uri);
            pending.push(job);
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
    }
}

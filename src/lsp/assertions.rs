//! Assertions run from the editor: a code lens on each `assert` starts
//! its check in the background (within `symcsp check`'s budgets, and
//! cancellable from the lens), then shows the verdict in its title —
//! Passed, Failed with the counterexample's trace, or Inconclusive and
//! why — with a lens that gives the command opening the animator at the
//! counterexample. Verdicts are kept by the assertion's text, so they
//! stay over edits elsewhere and go when the assertion changes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use lsp_types::{CodeLens, Command, Uri};
use serde_json::json;

use crate::budget::{Budget, Live};
use crate::check::wording::{Reader, stopped_by, verdict_text};
use crate::check::worker::CheckHandle;
use crate::check::{Verdict, assertion_text};
use crate::script::Script;

use super::text::file_range;

/// A check that ended, on its way back to the server.
pub struct Finished {
    pub uri: Uri,
    pub assertion: String,
    pub outcome: Outcome,
}

/// What a check found, as its lens shows it.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// `✓ Passed — 93 states, 0.01 s`.
    pub title: String,
    /// The trace to the counterexample (visible events), when it failed.
    pub trace: Option<Vec<String>>,
    /// The process the animator should open (the implementation).
    pub process: Option<String>,
    /// The verdict line with its reason, for a message.
    pub message: String,
}

enum State {
    Running(Arc<Live>, Instant),
    Done(Outcome),
}

/// The checks started from the editor, by document and assertion text.
pub struct Checks {
    states: HashMap<(Uri, String), State>,
    finished: Sender<Finished>,
    pub done: Receiver<Finished>,
}

impl Default for Checks {
    fn default() -> Checks {
        let (finished, done) = crossbeam_channel::unbounded();
        Checks {
            states: HashMap::new(),
            finished,
            done,
        }
    }
}

impl Checks {
    /// A lens per assertion of the document's own file (only those
    /// checked or being checked unless it can be checked, `startable`).
    pub fn lenses(&self, uri: &Uri, script: &Script, startable: bool) -> Vec<CodeLens> {
        let mut lenses = Vec::new();
        for (index, assertion) in script.assertions.iter().enumerate() {
            if script.sources.file_of(assertion.span) != 0 {
                continue;
            }
            let (_, range) = file_range(&script.sources, assertion.span);
            let range = lsp_types::Range::new(range.start, range.start);
            let text = assertion_text(script, index);
            let args = vec![json!(uri.as_str()), json!(index + 1), json!(text)];
            let lens = |title: String, command: &str, arguments: Vec<serde_json::Value>| CodeLens {
                range,
                command: Some(Command::new(title, command.to_string(), Some(arguments))),
                data: None,
            };
            match self.states.get(&(uri.clone(), text.clone())) {
                None if startable => lenses.push(lens("▶ check".into(), "symcsp.check", args)),
                None => {}
                Some(State::Running(_, started)) => lenses.push(lens(
                    format!(
                        "⏳ checking… {:.0} s (cancel)",
                        started.elapsed().as_secs_f64()
                    ),
                    "symcsp.cancel",
                    args,
                )),
                Some(State::Done(outcome)) => {
                    lenses.push(lens(outcome.title.clone(), "symcsp.check", args.clone()));
                    if let (Some(trace), Some(process)) = (&outcome.trace, &outcome.process) {
                        let mut args = args;
                        args.push(json!(process));
                        args.push(json!(trace.join(", ")));
                        lenses.push(lens(
                            "▶ animate the counterexample".into(),
                            "symcsp.animate",
                            args,
                        ));
                    }
                }
            }
        }
        lenses
    }

    /// Starts checking assertion `number` (from 1) of `script`, unless
    /// it is running.
    pub fn start(&mut self, uri: &Uri, script: Arc<Script>, number: usize) -> Result<(), String> {
        let index = number
            .checked_sub(1)
            .filter(|&i| i < script.assertions.len())
            .ok_or_else(|| format!("there is no assertion {number}"))?;
        let text = assertion_text(&script, index);
        let key = (uri.clone(), text.clone());
        if matches!(self.states.get(&key), Some(State::Running(..))) {
            return Ok(());
        }
        let handle = CheckHandle::spawn(script.clone(), index, Budget::default());
        self.states
            .insert(key, State::Running(handle.live(), Instant::now()));
        // A watcher waits for the check and reports it to the server.
        let finished = self.finished.clone();
        let uri = uri.clone();
        std::thread::Builder::new()
            .name("symcsp-lsp-check".into())
            .spawn(move || {
                let outcome = outcome(handle, &script, index);
                let _ = finished.send(Finished {
                    uri,
                    assertion: text,
                    outcome,
                });
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        Ok(())
    }

    /// Cancels the check of `assertion` in `uri`, if it runs.
    pub fn cancel(&mut self, uri: &Uri, assertion: &str) {
        if let Some(State::Running(live, _)) = self.states.get(&(uri.clone(), assertion.into())) {
            live.cancel();
        }
    }

    /// Takes in a finished check; `false` if its document was closed
    /// since.
    pub fn finish(&mut self, finished: Finished) -> bool {
        let key = (finished.uri, finished.assertion);
        if !matches!(self.states.get(&key), Some(State::Running(..))) {
            return false;
        }
        self.states.insert(key, State::Done(finished.outcome));
        true
    }

    /// Forgets the verdicts of a closed document, cancelling its checks.
    pub fn forget(&mut self, uri: &Uri) {
        self.states.retain(|(u, _), state| {
            if u == uri
                && let State::Running(live, _) = state
            {
                live.cancel();
            }
            u != uri
        });
    }
}

/// A finished check's lens title, trace and message.
fn outcome(handle: CheckHandle, script: &Script, index: usize) -> Outcome {
    // The process a counterexample is a behaviour of, as written.
    let implementation = script.assertions[index].kind.implementation();
    let written = script.sources.snippet(script.function(implementation).span);
    let process = Some(written.trim().to_string()).filter(|p| !p.is_empty());
    match handle.join_rendered() {
        Err(diagnostic) => Outcome {
            title: format!("⚠ error: {}", diagnostic.message),
            trace: None,
            process: None,
            message: diagnostic.render(&script.sources),
        },
        Ok(checked) => {
            let result = &checked.result;
            let mark = match result.verdict {
                Verdict::Passed => "✓",
                Verdict::Failed => "✗",
                Verdict::Inconclusive(_) => "?",
            };
            let unit = match result.symmetry.is_some() {
                true => "representatives",
                false => "states",
            };
            let mut title = match result.searched {
                true => format!(
                    "{mark} {} — {} {unit}, {:.2} s",
                    verdict_text(result.verdict),
                    result.states,
                    result.seconds
                ),
                false => format!("{mark} {} — a static check", verdict_text(result.verdict)),
            };
            if let Verdict::Inconclusive(stopped) = result.verdict {
                title.push_str(&format!(
                    " — {}",
                    stopped_by(stopped, None, Reader::CommandLine)
                ));
            }
            let trace = checked.counterexample.as_ref().map(|cx| {
                let mut trace = cx.trace.clone();
                trace.extend(cx.error_event.clone());
                trace
            });
            if let Some(trace) = &trace {
                title.push_str(&format!(" — ⟨{}⟩", trace.join(", ")));
            }
            let failed = result.verdict == Verdict::Failed;
            Outcome {
                message: title.clone(),
                title,
                trace: trace.filter(|_| failed).map(|t| {
                    // The animator opens at the state before the last
                    // event, which the process should not have done.
                    let keep = t.len().saturating_sub(1);
                    t[..keep].to_vec()
                }),
                process,
            }
        }
    }
}

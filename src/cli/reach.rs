//! What `symcsp rep` and `symcsp why` share: the process and its
//! symmetry types (from the command line, or the first assertion with
//! `:[symmetry reduce]`), the machine under symmetry, and the states the
//! given traces lead to — each problem a diagnostic for the terminal.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::symmetry::{not_mappable, requested, symmetry as resolve_symmetry};
use super::{EXIT_INPUT_ERROR, load, say};
use crate::check::trace::state_after;
use crate::eval::Value;
use crate::lts::Budget;
use crate::lts::machine::Machine;
use crate::process::{EventId, Processes};
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::spec::Reduce;
use crate::symmetry::{Symmetry, SystemSymmetry};
use crate::syntax::{Diagnostic, one_line, render_all};
use crate::types::{Expect, Loaded};

/// What the user asked about, as typed.
pub(super) struct Question<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub symmetry: Option<&'a str>,
    /// Each trace (visible events separated by commas) with the name its
    /// diagnostics give it (`<after>`, `<vs>`); `None` for the initial
    /// state.
    pub traces: Vec<(&'static str, Option<&'a str>)>,
    /// The command, for messages (`rep`).
    pub command: &'static str,
}

/// Answers `question` with `report` (run on a large stack), printing
/// its text, or the problem: exit 0, or 2 for anything the user must fix.
pub(super) fn answer(
    question: &Question,
    out: &mut dyn Write,
    err: &mut dyn Write,
    report: impl FnOnce(&Script, &Subject) -> Result<String, String> + Send,
) -> u8 {
    let Some(mut loaded) = load(question.file, err) else {
        return EXIT_INPUT_ERROR;
    };
    let outcome = subject(&mut loaded, question).and_then(|subject| {
        let script = &loaded.script;
        crate::stack::with_large_stack(|| report(script, &subject))
    });
    match outcome {
        Ok(text) => {
            say(out, &text);
            0
        }
        Err(problem) => {
            say(err, &problem);
            EXIT_INPUT_ERROR
        }
    }
}

/// The process, its types and the traces, resolved in the script.
pub(super) struct Subject {
    pub process: FuncId,
    pub process_text: String,
    pub symmetry: Reduce,
    pub traces: Vec<Option<FuncId>>,
}

/// Resolves the process, the types and the traces, adding what the user
/// typed to the script.
fn subject(loaded: &mut Loaded, question: &Question) -> Result<Subject, String> {
    let add = |loaded: &mut Loaded, name: &str, text: &str, expect: Expect| {
        loaded
            .add_expr(name, text, expect)
            .map_err(|ds| render_all(&ds, &loaded.script.sources))
    };
    let process = match question.process {
        Some(text) => Some(add(loaded, "<process>", text, Expect::Process)?),
        None => None,
    };
    let mut traces = Vec::with_capacity(question.traces.len());
    for &(name, text) in &question.traces {
        traces.push(match text {
            Some(text) if !text.trim().is_empty() => {
                Some(add(loaded, name, &format!("<{text}>"), Expect::Any)?)
            }
            _ => None,
        });
    }
    let script = &mut loaded.script;
    let asked = question
        .symmetry
        .map(|text| requested(script, text))
        .transpose()?;
    if matches!(asked, Some(Reduce::Off)) {
        return Err(format!(
            "error: `symcsp {}` shows a symmetry reduction: `--symmetry off` leaves nothing to \
             show\n",
            question.command
        ));
    }
    // The first assertion asking for symmetry reduction: its process and
    // (unless --symmetry says otherwise) its types.
    let reducing = script.assertions.iter().find_map(|a| {
        let asked = Reduce::of_assertion(a);
        (asked != Reduce::Off).then(|| (a.kind.implementation(), asked))
    });
    let file = question.file.display();
    let (process, process_text, from_assertion) = match question.process {
        Some(text) => (process.expect("added above"), text.to_string(), None),
        None => {
            let Some((imp, asked)) = reducing else {
                return Err(format!(
                    "error: {file} has no assertion with `:[symmetry reduce]`: name the process \
                     (`symcsp {} {file} PROCESS`)\n",
                    question.command
                ));
            };
            let text = one_line(script.sources.snippet(script.function(imp).span));
            (imp, text, Some(asked))
        }
    };
    let symmetry = asked.or(from_assertion).unwrap_or(Reduce::Automatic);
    Ok(Subject {
        process,
        process_text,
        symmetry,
        traces,
    })
}

/// The machine under symmetry and the states the traces lead to.
pub(super) struct Reached<'s> {
    pub procs: Processes<'s>,
    pub machine: Machine,
    pub system: SystemSymmetry,
    pub symmetry: Arc<Symmetry>,
    /// Per trace: its events and the state it leads to.
    pub states: Vec<(Vec<EventId>, Vec<u32>)>,
}

impl Reached<'_> {
    /// Component `slot`'s state in `row`, as text.
    pub fn text(&self, row: &[u32], slot: usize) -> String {
        self.procs
            .show_state(self.machine.process_state(slot, row[slot]))
    }

    /// Every component's state in `row`, as text.
    pub fn texts(&self, row: &[u32]) -> Vec<String> {
        (0..row.len()).map(|slot| self.text(row, slot)).collect()
    }

    /// Events as text.
    pub fn events(&self, events: &[EventId]) -> Vec<String> {
        events.iter().map(|&e| self.procs.show_event(e)).collect()
    }
}

/// Builds the machine under the subject's symmetry and performs each
/// trace (τ steps as needed).
pub(super) fn reach<'s>(script: &'s Script, subject: &Subject) -> Result<Reached<'s>, String> {
    let render = |ds: &[Diagnostic]| render_all(ds, &script.sources);
    let eval_error = |e: crate::eval::EvalError| render(&[e.to_diagnostic()]);
    let (mut procs, root) = Processes::with_root(script, subject.process).map_err(eval_error)?;
    let roots = [subject.process];
    let symmetry = resolve_symmetry(script, procs.evaluator(), &subject.symmetry, &roots)?
        .expect("`off` was refused");
    let traces = subject
        .traces
        .iter()
        .map(|func| match func {
            Some(func) => events(&procs, *func).map_err(|e| render(&[e])),
            None => Ok(Vec::new()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut machine = Machine::new(&mut procs, root);
    let symmetry = Arc::new(symmetry);
    let system = SystemSymmetry::new(symmetry.clone(), &mut machine, &mut procs)
        .map_err(|refusal| not_mappable(script, subject.process, &symmetry, &refusal))?;
    let mut states = Vec::with_capacity(traces.len());
    for (trace, func) in traces.into_iter().zip(&subject.traces) {
        let (next, found) =
            state_after(&mut procs, machine, &trace, &Budget::default()).map_err(eval_error)?;
        machine = next;
        match found {
            Ok((_, row)) => states.push((trace, row)),
            Err(done) => {
                let func = func.expect("an empty trace is always performed");
                let span = event_span(script, func, done);
                let shown: Vec<String> =
                    trace[..done].iter().map(|&e| procs.show_event(e)).collect();
                let message = if done == 0 {
                    format!(
                        "{} cannot perform {} first",
                        subject.process_text,
                        procs.show_event(trace[0])
                    )
                } else {
                    format!(
                        "after {}, {} cannot perform {}",
                        shown.join(", "),
                        subject.process_text,
                        procs.show_event(trace[done])
                    )
                };
                return Err(render(&[Diagnostic::error(span, message)]));
            }
        }
    }
    Ok(Reached {
        procs,
        machine,
        system,
        symmetry,
        states,
    })
}

/// The events of a trace's sequence.
fn events(procs: &Processes, func: FuncId) -> Result<Vec<EventId>, Diagnostic> {
    let span = procs.script().function(func).span;
    let value = procs
        .evaluator()
        .eval_constant(func)
        .map_err(|e| e.to_diagnostic())?;
    // `<...>` is a sequence unless the text closed it and opened
    // another (`a> == <b`).
    let Value::Seq(seq) = &value else {
        return Err(Diagnostic::error(
            span,
            "this is not a list of events separated by commas".to_string(),
        ));
    };
    seq.iter()
        .map(|e| procs.event_id(e, span).map_err(|e| e.to_diagnostic()))
        .collect()
}

/// Where the `index`-th event of a trace was written (the whole trace
/// when it is not a plain list).
fn event_span(script: &Script, func: FuncId, index: usize) -> crate::syntax::Span {
    let function = script.function(func);
    let body = script.expr(function.clauses[0].body);
    match &body.kind {
        crate::script::ir::ExprKind::Seq(items) if index < items.len() => {
            script.expr(items[index]).span
        }
        _ => function.span,
    }
}

//! What `symcsp rep` and `symcsp why` share: the process and its
//! symmetry types (from the command line, or the first assertion with
//! `:[symmetry reduce]`), the machine under symmetry, and the states the
//! given traces lead to — each problem a diagnostic for the terminal.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::symmetry::{not_mappable, requested};
use super::{EXIT_INPUT_ERROR, load, say};
use crate::check::trace::{add_typed, follow, typed_events};
use crate::lts::Budget;
use crate::lts::animator::{NumberedError, step_text, walk_numbered};
use crate::lts::machine::Machine;
use crate::process::Processes;
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::search_system::{About, Purpose, Reduction, SearchSystem};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::symmetry::{Symmetry, SystemSymmetry};
use crate::syntax::{Diagnostic, one_line, render_all};
use crate::types::{Expect, Loaded};

/// What the user asked about, as typed.
pub(super) struct Question<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub symmetry: Option<&'a str>,
    /// How representatives are found (`--strategy`).
    pub strategy: Strategy,
    /// Each trace (visible events separated by commas) with the name its
    /// diagnostics give it (`<after>`, `<vs>`); `None` for the initial
    /// state.
    pub traces: Vec<(&'static str, Option<&'a str>)>,
    /// The command, for messages (`rep`).
    pub command: &'static str,
    /// `rep --path`: the first state by the numbers of its moves, as the
    /// animator lists them, instead of by its trace.
    pub path: Option<&'a [usize]>,
}

/// Answers `question` with `report` (run on a large stack), printing
/// its text, or the problem: exit 0, or 2 for anything the user must fix.
pub(super) fn answer(
    question: &Question,
    out: &mut dyn Write,
    err: &mut dyn Write,
    report: impl FnOnce(&Script, &Subject) -> Result<String, String> + Send,
) -> u8 {
    let mut loaded = match load(question.file, &Budget::default(), err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
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
    pub strategy: Strategy,
    pub traces: Vec<Option<FuncId>>,
    /// The first state's path by move numbers ([`Question::path`]).
    pub path: Option<Vec<usize>>,
}

/// Resolves the process, the types and the traces, adding what the user
/// typed to the script.
fn subject(loaded: &mut Loaded, question: &Question) -> Result<Subject, String> {
    let rendered = |loaded: &Loaded, ds: Vec<Diagnostic>| render_all(&ds, &loaded.script.sources);
    let process = match question.process {
        Some(text) => Some(
            loaded
                .add_expr("<process>", text, Expect::Process)
                .map_err(|ds| rendered(loaded, ds))?,
        ),
        None => None,
    };
    let mut traces = Vec::with_capacity(question.traces.len());
    for &(name, text) in &question.traces {
        traces.push(match text {
            Some(text) if !text.trim().is_empty() => {
                Some(add_typed(loaded, name, text).map_err(|ds| rendered(loaded, ds))?)
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
    // With no process named, the assertion's process; its types by the
    // one rule (the assertion's, unless --symmetry says otherwise).
    let _ = from_assertion;
    let symmetry = Reduce::chosen(
        script,
        asked.as_ref(),
        Purpose::Show,
        About::Process(&process_text),
    );
    Ok(Subject {
        process,
        process_text,
        symmetry,
        strategy: question.strategy,
        traces,
        path: question.path.map(<[usize]>::to_vec),
    })
}

/// The machine under symmetry and the states the traces lead to.
pub(super) struct Reached<'s> {
    pub procs: Processes<'s>,
    pub machine: Machine,
    pub system: SystemSymmetry,
    pub symmetry: Arc<Symmetry>,
    /// Per trace: its events as text (τ steps of a `--path` with the
    /// event each hides, `τ ‹e›`, as the animator shows them) and the
    /// state it leads to.
    pub states: Vec<(Vec<String>, Vec<u32>)>,
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
}

/// Why `rep --path` could not be walked: a step asking for a move the
/// state does not have, or an evaluation error.
fn not_walked(
    error: NumberedError,
    path: &[usize],
    process: &str,
    render: &dyn Fn(&[Diagnostic]) -> String,
) -> String {
    match error {
        NumberedError::NoSuchMove {
            step,
            number,
            offered,
        } => {
            let taken: Vec<String> = path[..step].iter().map(usize::to_string).collect();
            let state = if step == 0 {
                "the initial state".to_string()
            } else {
                format!("the state after moves {}", taken.join(","))
            };
            format!(
                "error: --path: step {} asks for move {number}, but {state} of {process} has {}\n",
                step + 1,
                match offered {
                    0 => "none (it is stuck)".to_string(),
                    1 => "only move 1".to_string(),
                    n => format!("moves 1 to {n}"),
                }
            )
        }
        NumberedError::Eval(e) => render(&[e.to_diagnostic()]),
    }
}

/// Builds the machine under the subject's symmetry and performs each
/// trace (τ steps as needed), or walks the first state's `--path`.
pub(super) fn reach<'s>(script: &'s Script, subject: &Subject) -> Result<Reached<'s>, String> {
    let render = |ds: &[Diagnostic]| render_all(ds, &script.sources);
    let eval_error = |e: crate::eval::EvalError| render(&[e.to_diagnostic()]);
    let SearchSystem {
        mut procs,
        mut machine,
        reduction,
        ..
    } = SearchSystem::build(
        script,
        subject.process,
        &subject.symmetry,
        subject.strategy,
        Budget::default().meter(),
    )
    .map_err(eval_error)?;
    let system = match reduction {
        Reduction::Reduced(system) => system.into_inner(),
        Reduction::Trivial { system, .. } => *system,
        Reduction::Refused(problems) => return Err(render(&problems)),
        Reduction::NotMappable { symmetry, refusal } => {
            return Err(not_mappable(script, subject.process, &symmetry, &refusal));
        }
        Reduction::Structural { .. } | Reduction::NoStructure(_) => {
            return Err(
                "error: `rep` and `why` show the paper's algorithm on datatypes; the structural \
                 group has none (`symcsp symmetries` shows it, `symcsp explore --symmetry \
                 structural` reduces by it)\n"
                    .to_string(),
            );
        }
        Reduction::Off => unreachable!("`off` was refused"),
    };
    let symmetry = Arc::new(system.symmetry().clone());
    let traces = subject
        .traces
        .iter()
        .map(|func| match func {
            Some(func) => typed_events(&procs, *func).map_err(|e| render(&[e])),
            None => Ok(Vec::new()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut states = Vec::with_capacity(traces.len());
    for (k, (trace, func)) in traces.into_iter().zip(&subject.traces).enumerate() {
        if let (0, Some(path)) = (k, &subject.path) {
            let (row, taken) = walk_numbered(&mut machine, &mut procs, path)
                .map_err(|e| not_walked(e, path, &subject.process_text, &render))?;
            let shown = taken
                .iter()
                .map(|t| {
                    let hidden = t.hidden.map(|e| procs.show_event(e));
                    step_text(&procs.show_event(t.event), hidden.as_deref())
                })
                .collect();
            states.push((shown, row));
            continue;
        }
        let (next, followed) = follow(&mut procs, machine, &trace, &Budget::default());
        machine = next;
        let followed = followed.map_err(eval_error)?;
        if let Some(func) = func
            && let Some(refusal) = followed.refusal(&procs, *func, &trace, &subject.process_text)
        {
            return Err(render(&[refusal]));
        }
        let row = followed.rows.last().expect("the initial state").clone();
        let shown = trace.iter().map(|&e| procs.show_event(e)).collect();
        states.push((shown, row));
    }
    Ok(Reached {
        procs,
        machine,
        system,
        symmetry,
        states,
    })
}

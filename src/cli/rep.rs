//! `symcsp rep FILE [PROCESS] [--after "e1, e2"] [--symmetry auto|T,U]`:
//! the representative of the state a trace leads to, beside the state,
//! with the permutation, the component bijection α and every partition
//! the representative algorithm built; plain or JSON.
//!
//! Without PROCESS, the process of the first assertion that asks for
//! symmetry reduction, with its types. Exit 0, or 2 for anything the user
//! must fix (a syntax or evaluation error, types that are not symmetric,
//! a system that is not mappable, a trace the process cannot perform).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value as Json, json};

use super::symmetry::{not_mappable, requested, symmetry as resolve_symmetry};
use super::{EXIT_INPUT_ERROR, Format, load, say};
use crate::check::trace::state_after;
use crate::eval::Value;
use crate::lts::Budget;
use crate::lts::machine::Machine;
use crate::process::{EventId, Processes};
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::rep::Step;
use crate::symmetry::spec::Reduce;
use crate::symmetry::{Atom, Explanation, Origin, Symmetry, SystemSymmetry};
use crate::syntax::{Diagnostic, render_all};

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub after: Option<&'a str>,
    pub symmetry: Option<&'a str>,
    pub format: Format,
}

/// What the process and its types are, once the script is loaded.
struct Subject {
    process: FuncId,
    process_text: String,
    symmetry: Reduce,
    after: Option<FuncId>,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(mut script) = load(request.file, err) else {
        return EXIT_INPUT_ERROR;
    };
    let subject = match subject(&mut script, request) {
        Ok(subject) => subject,
        Err(problem) => {
            say(err, &problem);
            return EXIT_INPUT_ERROR;
        }
    };
    let script = &script;
    let outcome = crate::stack::with_large_stack(|| explain(script, &subject));
    match outcome {
        Ok(text) => {
            let text = match request.format {
                Format::Plain => text.plain,
                Format::Json => {
                    serde_json::to_string_pretty(&text.json).expect("a report serialises") + "\n"
                }
            };
            say(out, &text);
            0
        }
        Err(problem) => {
            say(err, &problem);
            EXIT_INPUT_ERROR
        }
    }
}

/// Resolves the process, the types and the trace, adding what the user
/// typed to the script.
fn subject(script: &mut Script, request: &Request) -> Result<Subject, String> {
    let add = |script: &mut Script, name: &str, text: &str| {
        script
            .add_expr(name, text)
            .map_err(|ds| render_all(&ds, &script.sources))
    };
    let asked = request
        .symmetry
        .map(|text| requested(script, text))
        .transpose()?;
    if matches!(asked, Some(Reduce::Off)) {
        return Err(
            "error: `symcsp rep` shows a symmetry reduction: `--symmetry off` leaves nothing \
             to show\n"
                .to_string(),
        );
    }
    // The first assertion asking for symmetry reduction: its process and
    // (unless --symmetry says otherwise) its types.
    let reducing = script.assertions.iter().find_map(|a| {
        let asked = Reduce::of_assertion(a);
        (asked != Reduce::Off).then(|| (a.kind.implementation(), asked))
    });
    let (process, process_text, from_assertion) = match request.process {
        Some(text) => (add(script, "<process>", text)?, text.to_string(), None),
        None => {
            let Some((imp, asked)) = reducing else {
                return Err(format!(
                    "error: {} has no assertion with `:[symmetry reduce]`: name the process \
                     (`symcsp rep {} PROCESS`)\n",
                    request.file.display(),
                    request.file.display()
                ));
            };
            let text = one_line(script.sources.snippet(script.function(imp).span));
            (imp, text, Some(asked))
        }
    };
    let symmetry = asked.or(from_assertion).unwrap_or(Reduce::Automatic);
    let after = match request.after {
        Some(text) if !text.trim().is_empty() => {
            Some(add(script, "<after>", &format!("<{text}>"))?)
        }
        _ => None,
    };
    Ok(Subject {
        process,
        process_text,
        symmetry,
        after,
    })
}

/// The report in both forms.
struct Report {
    plain: String,
    json: Json,
}

fn explain(script: &Script, subject: &Subject) -> Result<Report, String> {
    let render = |ds: &[Diagnostic]| render_all(ds, &script.sources);
    let eval_error = |e: crate::eval::EvalError| render(&[e.to_diagnostic()]);
    let (mut procs, root) = Processes::with_root(script, subject.process).map_err(eval_error)?;
    let roots = [subject.process];
    let symmetry = resolve_symmetry(script, procs.evaluator(), &subject.symmetry, &roots)?
        .expect("`off` was refused");
    let trace = match subject.after {
        Some(func) => events(&procs, func).map_err(|e| render(&[e]))?,
        None => Vec::new(),
    };
    let mut machine = Machine::new(&mut procs, root);
    let symmetry = Arc::new(symmetry);
    let mut system = SystemSymmetry::new(symmetry.clone(), &mut machine, &mut procs)
        .map_err(|refusal| not_mappable(script, subject.process, &symmetry, &refusal))?;
    let (mut machine, found) =
        state_after(&mut procs, machine, &trace, &Budget::default()).map_err(eval_error)?;
    let row = match found {
        Ok((_, row)) => row,
        Err(done) => {
            let func = subject.after.expect("a trace was given");
            let span = event_span(script, func, done);
            let shown: Vec<String> = trace[..done].iter().map(|&e| procs.show_event(e)).collect();
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
    };
    let explanation = system.explain(&mut machine, &mut procs, &row);
    let view = View {
        script,
        procs: &procs,
        machine: &machine,
        symmetry: &symmetry,
        explanation: &explanation,
    };
    Ok(Report {
        plain: view.plain(subject, &trace),
        json: view.json(subject, &trace),
    })
}

/// The events of the `--after` sequence.
fn events(procs: &Processes, func: FuncId) -> Result<Vec<EventId>, Diagnostic> {
    let span = procs.script().function(func).span;
    let value = procs
        .evaluator()
        .eval_constant(func)
        .map_err(|e| e.to_diagnostic())?;
    let Value::Seq(seq) = &value else {
        unreachable!("`<...>` is a sequence");
    };
    seq.iter()
        .map(|e| procs.event_id(e, span).map_err(|e| e.to_diagnostic()))
        .collect()
}

/// Where the `index`-th event of the `--after` list was written (the
/// whole list when it is not a plain list).
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

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the report shows, read off the library's answer.
struct View<'a> {
    script: &'a Script,
    procs: &'a Processes<'a>,
    machine: &'a Machine,
    symmetry: &'a Symmetry,
    explanation: &'a Explanation,
}

#[derive(Serialize)]
struct Component {
    index: usize,
    text: String,
}

impl View<'_> {
    fn state_text(&self, row: &[u32], slot: usize) -> String {
        self.procs
            .show_state(self.machine.process_state(slot, row[slot]))
    }

    fn component(&self, slot: usize) -> Component {
        Component {
            index: slot,
            text: self.state_text(&self.explanation.state, slot),
        }
    }

    fn atom(&self, atom: Atom) -> &str {
        self.symmetry.name(self.script, atom)
    }

    fn origin(&self) -> String {
        self.symmetry.origin_text(self.script)
    }

    fn plain(&self, subject: &Subject, trace: &[EventId]) -> String {
        let x = self.explanation;
        let mut out = String::new();
        let shown: Vec<String> = trace.iter().map(|&e| self.procs.show_event(e)).collect();
        out.push_str(&format!("process    {}\n", subject.process_text));
        out.push_str(&format!(
            "after      {}\n",
            if shown.is_empty() {
                "nothing (the initial state)".to_string()
            } else {
                shown.join(", ")
            }
        ));
        out.push_str(&format!("symmetry   {}\n", self.origin()));
        for line in self.symmetry.describe(self.script) {
            out.push_str(&format!("           {line}\n"));
        }
        for line in self.symmetry.left_out_lines(self.script) {
            out.push_str(&format!("           {line}\n"));
        }
        out.push_str(&format!(
            "group      {} permutations\n\n",
            self.symmetry.group_order()
        ));
        // The state beside its representative, each component on the line
        // of its image.
        let n = x.state.len();
        let texts: Vec<String> = (0..n).map(|s| self.state_text(&x.state, s)).collect();
        let width = texts
            .iter()
            .map(|t| t.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let number = |s: usize| format!("{:>3}", s + 1);
        out.push_str(&format!(
            "{:>3}  {:<width$}      {:>3}  representative\n",
            "", "state", ""
        ));
        for (slot, text) in texts.iter().enumerate() {
            let image = x.alpha[slot];
            out.push_str(&format!(
                "{}  {text:<width$}  ↦  {}  {}\n",
                number(slot),
                number(image),
                self.state_text(&x.representative, image)
            ));
        }
        out.push('\n');
        let moves = x.permutation.show(self.symmetry, self.script);
        if moves.is_empty() {
            out.push_str("permutation  the identity: the state is its own representative\n");
        } else {
            out.push_str("permutation\n");
            for (ty, pairs) in moves {
                out.push_str(&format!("  {ty}: {pairs}\n"));
            }
        }
        let moved: Vec<String> = (0..n)
            .filter(|&i| x.alpha[i] != i)
            .map(|i| format!("{} ↦ {}", i + 1, x.alpha[i] + 1))
            .collect();
        out.push_str(&format!(
            "components (α)  {}\n\n",
            if moved.is_empty() {
                "each stays in place".to_string()
            } else {
                moved.join(", ")
            }
        ));
        out.push_str("the algorithm\n");
        let cell_text = |cells: &[Vec<usize>]| -> String {
            cells
                .iter()
                .map(|cell| {
                    let members: Vec<String> = cell.iter().map(|&c| texts[c].clone()).collect();
                    format!("{{{}}}", members.join(", "))
                })
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut round = 0;
        for step in &x.trace.steps {
            match step {
                Step::Shapes { cells } => {
                    round = 0;
                    out.push_str(&format!(
                        "  step 1  by control state and other values: {} cell{}\n    {}\n",
                        cells.len(),
                        if cells.len() == 1 { "" } else { "s" },
                        cell_text(cells)
                    ));
                }
                Step::Refine {
                    n_values,
                    cells,
                    split,
                } => {
                    round += 1;
                    out.push_str(&format!("  step 2  round {round}: n-values\n"));
                    for nv in n_values {
                        out.push_str(&format!("    {:<width$}  {nv}\n", texts[nv.component]));
                    }
                    if *split {
                        out.push_str(&format!(
                            "    → {} cells: {}\n",
                            cells.len(),
                            cell_text(cells)
                        ));
                    } else {
                        out.push_str("    → no cell splits: step 2 is done\n");
                    }
                }
                Step::Individualise {
                    cell,
                    members,
                    component,
                    fully_symmetric,
                    cells,
                } => {
                    round = 0;
                    let symmetric = match fully_symmetric {
                        Some(true) => "fully symmetric: the choice cannot matter",
                        Some(false) => {
                            "not fully symmetric: another choice may give another \
                                        representative"
                        }
                        None => "whether it is fully symmetric could not be decided",
                    };
                    let members: Vec<String> = members.iter().map(|&c| texts[c].clone()).collect();
                    out.push_str(&format!(
                        "  step 3  cell {} {{{}}} splits off {} ({symmetric})\n    {}\n",
                        cell + 1,
                        members.join(", "),
                        texts[*component],
                        cell_text(cells)
                    ));
                }
            }
        }
        let order: Vec<String> = x.trace.order.iter().map(|&c| texts[c].clone()).collect();
        out.push_str(&format!("  order   {}\n", order.join(", ")));
        out.push_str(
            "  type orderings (values after | appear nowhere: their order is arbitrary)\n",
        );
        for (t, ordering) in x.trace.type_orderings.iter().enumerate() {
            let appeared = x.trace.appeared[t];
            let names: Vec<&str> = ordering.iter().map(|&a| self.atom(a)).collect();
            let rest = if appeared < names.len() {
                format!(" | {}", names[appeared..].join(", "))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "    {}: {}{rest}\n",
                self.symmetry.types()[t].name,
                names[..appeared].join(", ")
            ));
        }
        out.push_str(&format!(
            "\nunique      {}\n",
            match (x.unique_identities, x.trace.splits_fully_symmetric()) {
                (true, true) => "guaranteed (Proposition 50: unique identities, and every split \
                                 was of a fully symmetric cell)"
                    .to_string(),
                (false, _) => "not guaranteed: a symmetric set lacks identities this state still \
                               holds (Definition 46)"
                    .to_string(),
                (true, false) => "not guaranteed: step 3 split a cell that is not known to be \
                                  fully symmetric (Definition 49)"
                    .to_string(),
            }
        ));
        out
    }

    fn json(&self, subject: &Subject, trace: &[EventId]) -> Json {
        let x = self.explanation;
        let n = x.state.len();
        let cells = |cells: &[Vec<usize>]| -> Json {
            json!(
                cells
                    .iter()
                    .map(|cell| cell.iter().map(|&c| self.component(c)).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            )
        };
        let steps: Vec<Json> = x
            .trace
            .steps
            .iter()
            .map(|step| match step {
                Step::Shapes { cells: c } => json!({ "kind": "step1", "cells": cells(c) }),
                Step::Refine {
                    n_values,
                    cells: c,
                    split,
                } => json!({
                    "kind": "step2",
                    "n_values": n_values.iter().map(|nv| json!({
                        "index": nv.component,
                        "text": self.component(nv.component).text,
                        "n_value": nv.to_string(),
                        "groups": nv.groups,
                    })).collect::<Vec<_>>(),
                    "split": split,
                    "cells": cells(c),
                }),
                Step::Individualise {
                    cell,
                    members,
                    component,
                    fully_symmetric,
                    cells: c,
                } => json!({
                    "kind": "step3",
                    "cell": cell,
                    "members": members.iter().map(|&m| self.component(m)).collect::<Vec<_>>(),
                    "split": self.component(*component),
                    "fully_symmetric": fully_symmetric,
                    "cells": cells(c),
                }),
            })
            .collect();
        let mut permutation = Map::new();
        let mut orderings = Map::new();
        for (t, ty) in self.symmetry.types().iter().enumerate() {
            let mut map = Map::new();
            for (i, &j) in x.permutation.images(t).iter().enumerate() {
                map.insert(
                    self.atom(Atom::new(t, i)).to_string(),
                    json!(self.atom(Atom::new(t, j as usize))),
                );
            }
            permutation.insert(ty.name.clone(), Json::Object(map));
            orderings.insert(
                ty.name.clone(),
                json!({
                    "values": x.trace.type_orderings[t].iter().map(|&a| self.atom(a)).collect::<Vec<_>>(),
                    "appeared": x.trace.appeared[t],
                }),
            );
        }
        json!({
            "process": subject.process_text,
            "after": trace.iter().map(|&e| self.procs.show_event(e)).collect::<Vec<_>>(),
            "symmetry": {
                "origin": match &self.symmetry.origin {
                    Origin::Assertion(_) => "assertion",
                    Origin::CommandLine => "command line",
                    Origin::Automatic => "automatic",
                },
                "types": self.symmetry.types().iter().map(|t| json!({
                    "name": t.name,
                    "values": t.values.iter().map(|c| self.script.ctors[c.index()].name.as_str()).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "left_out": self.symmetry.left_out_lines(self.script),
                "group_order": self.symmetry.group_order().value().to_string(),
            },
            "state": (0..n).map(|s| self.state_text(&x.state, s)).collect::<Vec<_>>(),
            "representative": (0..n).map(|s| self.state_text(&x.representative, s)).collect::<Vec<_>>(),
            "permutation": Json::Object(permutation),
            "components": x.alpha,
            "steps": steps,
            "order": x.trace.order,
            "type_orderings": Json::Object(orderings),
            "unique_identities": x.unique_identities,
            "unique_guaranteed": x.unique_guaranteed(),
        })
    }
}

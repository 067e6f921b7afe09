//! `symcsp why FILE [PROCESS] --after "t1" --vs "t2" [--symmetry
//! auto|T,U] [--budget N] [--format plain|json]`: why the states two
//! traces lead to got different representatives (or the same one), as
//! [`SystemSymmetry::compare`](crate::symmetry::SystemSymmetry::compare)
//! answers it: the same representative; not symmetric, with the
//! evidence; symmetric but not unique, with the permutation and the
//! cause; or undecided within the budget. Both states' partitions are
//! shown side by side where the evidence or the parting is.
//!
//! The process and types are resolved as for `symcsp rep`. Exit 0 for
//! any of the answers, 2 for anything the user must fix.

use std::io::Write;
use std::path::Path;

use serde_json::{Value as Json, json};

use super::Format;
use super::reach::{Question, Reached, Subject, answer, reach};
use super::rep::{
    One, cells_text, header, header_json, permutation_json, permutation_text, widest,
};
use crate::explain::compare::{Answer, Cause, Comparison, Evidence, Mapping};
use crate::script::Script;
use crate::symmetry::rep::Step;
use crate::symmetry::strategy::Strategy;

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub after: Option<&'a str>,
    pub vs: Option<&'a str>,
    pub symmetry: Option<&'a str>,
    /// `--strategy`: whose representatives are compared first.
    pub strategy: Strategy,
    pub budget: u64,
    pub format: Format,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let question = Question {
        file: request.file,
        process: request.process,
        symmetry: request.symmetry,
        strategy: request.strategy,
        traces: vec![("<after>", request.after), ("<vs>", request.vs)],
        command: "why",
        path: None,
    };
    let (budget, format) = (request.budget, request.format);
    answer(&question, out, err, |script, subject| {
        report(script, subject, budget, format)
    })
}

fn report(
    script: &Script,
    subject: &Subject,
    budget: u64,
    format: Format,
) -> Result<String, String> {
    let mut reached = reach(script, subject)?;
    let (left, right) = (reached.states[0].1.clone(), reached.states[1].1.clone());
    let by_strategy = strategy_answer(&mut reached, &left, &right)?;
    let comparison = reached.system.compare(
        &mut reached.machine,
        &mut reached.procs,
        &left,
        &right,
        budget,
    );
    let view = View {
        left: One::new(
            &reached,
            &comparison.left,
            comparison.left_variables.clone(),
        ),
        right: One::new(
            &reached,
            &comparison.right,
            comparison.right_variables.clone(),
        ),
        reached: &reached,
        comparison: &comparison,
    };
    Ok(match format {
        Format::Plain => {
            let traces = [
                ("state 1", reached.states[0].0.as_slice()),
                ("state 2", reached.states[1].0.as_slice()),
            ];
            let mut text = header(&reached, subject, &traces);
            if reached.states[0].1 == reached.states[1].1 {
                // Inside the header, before the blank line that ends it.
                text.insert_str(
                    text.len() - 1,
                    "note       the two are one state: give the traces of two with --after and --vs\n",
                );
            }
            if let Some((strategy, same)) = by_strategy {
                text.insert_str(
                    text.len() - 1,
                    &format!("strategy   {}\n", strategy_sentence(strategy, same)),
                );
            }
            text + &view.plain()
        }
        Format::Json => {
            let mut object = view.json(subject);
            if let (Some((strategy, same)), Json::Object(map)) = (by_strategy, &mut object) {
                map.insert(
                    "strategy".into(),
                    json!({
                        "name": strategy.name(),
                        "same_representative": same,
                        "one_class": same || strategy.unique(),
                        "sentence": strategy_sentence(strategy, same),
                    }),
                );
            }
            serde_json::to_string_pretty(&object).expect("a report serialises") + "\n"
        }
    })
}

/// Under a strategy other than the algorithm's: whether it gives the two
/// states one representative.
fn strategy_answer(
    reached: &mut Reached,
    left: &[u32],
    right: &[u32],
) -> Result<Option<(Strategy, bool)>, String> {
    let strategy = reached.system.strategy();
    if strategy == Strategy::Fdr {
        return Ok(None);
    }
    let mut representative = |row: &[u32]| -> Result<Vec<u32>, String> {
        let mut out = vec![0; row.len()];
        reached
            .system
            .canonical(&mut reached.machine, &mut reached.procs, row, &mut out)
            .map_err(|e| e.to_diagnostic().render(&reached.procs.script().sources))?;
        Ok(out)
    };
    let same = representative(left)? == representative(right)?;
    Ok(Some((strategy, same)))
}

/// What one strategy's representatives say of two states.
fn strategy_sentence(strategy: Strategy, same: bool) -> String {
    match (same, strategy.unique()) {
        (true, _) => format!(
            "the {strategy} strategy gives both the same representative: one symmetry class"
        ),
        (false, true) => format!(
            "the {strategy} strategy gives them different representatives, and it gives one \
             per class: they are in different symmetry classes"
        ),
        (false, false) => format!(
            "the {strategy} strategy gives them different representatives (it may give one \
             class several)"
        ),
    }
}

/// The comparison with both states' texts.
struct View<'r> {
    reached: &'r Reached<'r>,
    comparison: &'r Comparison,
    left: One<'r>,
    right: One<'r>,
}

impl View<'_> {
    fn mapping(&self) -> Option<&Mapping> {
        match &self.comparison.answer {
            Answer::Same { mapping } | Answer::NotUnique { mapping, .. } => Some(mapping),
            _ => None,
        }
    }

    fn sentences(&self) -> Vec<String> {
        self.comparison
            .sentences(&self.left.texts, &self.right.texts)
    }

    fn plain(&self) -> String {
        let c = self.comparison;
        let (lt, rt) = (&self.left.texts, &self.right.texts);
        let mut out = format!("answer     {}\n", c.answer.headline());
        for sentence in self.sentences() {
            out.push_str(&format!("           {sentence}\n"));
        }
        out.push('\n');
        // The states side by side: each component of the first on the
        // line of its image in the second when a permutation relates
        // them, slot by slot otherwise.
        let width = widest(lt, "state 1".len());
        let mapping = self.mapping();
        out.push_str(&format!(
            "{:>3}  {:<width$}      {:>3}  state 2\n",
            "", "state 1", ""
        ));
        for (slot, text) in lt.iter().enumerate() {
            let other = mapping.map_or(slot, |m| m.alpha[slot]);
            out.push_str(&format!(
                "{:>3}  {text:<width$}  {}  {:>3}  {}\n",
                slot + 1,
                if mapping.is_some() { "↦" } else { " " },
                other + 1,
                rt[other]
            ));
        }
        out.push('\n');
        if let Some(mapping) = mapping {
            out.push_str(&permutation_text(
                "permutation (state 1 ↦ state 2)",
                "the identity",
                &mapping.permutation,
                &mapping.alpha,
                &self.reached.symmetry,
                self.reached.procs.script(),
            ));
            out.push('\n');
        }
        // The representatives, slot by slot, `*` where they differ.
        let representatives = Comparison::representative_lines(
            &self.reached.texts(&c.left.representative),
            &self.reached.texts(&c.right.representative),
            ("representative of 1", "representative of 2"),
        );
        for line in representatives {
            out.push_str(&format!("{line}\n"));
        }
        out.push_str(&self.side_by_side());
        out
    }

    /// Both states' partitions where the evidence or the parting is.
    fn side_by_side(&self) -> String {
        let c = self.comparison;
        let (lt, rt) = (&self.left.texts, &self.right.texts);
        let (ls, rs) = (&c.left.trace.steps, &c.right.trace.steps);
        let mut out = String::new();
        match &c.answer {
            Answer::NotSymmetric(Evidence::Shapes { .. }) => {
                out.push_str("\nstep 1, side by side\n");
                out.push_str(&format!("  state 1  {}\n", cells_text(ls[0].cells(), lt)));
                out.push_str(&format!("  state 2  {}\n", cells_text(rs[0].cells(), rt)));
            }
            Answer::NotSymmetric(Evidence::NValues { round, cell, .. }) => {
                out.push_str(&format!(
                    "\nstep 2, round {round}, cell {}, side by side (sorted by n-value)\n",
                    cell + 1
                ));
                for line in c.n_value_lines(lt, rt) {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            Answer::NotUnique {
                parting: Some(t), ..
            } => {
                let split = ls[..=*t]
                    .iter()
                    .filter(|s| matches!(s, Step::Individualise { .. }))
                    .count();
                out.push_str(&format!(
                    "\nwhere the two runs part: step 3's split {split} (stage {} of the algorithm's stages), \
                     side by side\n",
                    t + 1
                ));
                // The step before the parting, and the parting itself
                // (which the second trace may lack if it ended sooner).
                for (when, at) in [("before", t.saturating_sub(1)), ("after", *t)] {
                    let cells = |steps: &[Step], texts: &[String]| {
                        steps.get(at).map_or_else(
                            || "(no such step)".to_string(),
                            |s| cells_text(s.cells(), texts),
                        )
                    };
                    out.push_str(&format!("  {when:<6}  state 1  {}\n", cells(ls, lt)));
                    out.push_str(&format!("  {:<6}  state 2  {}\n", "", cells(rs, rt)));
                }
            }
            _ => {}
        }
        out
    }

    fn json(&self, subject: &Subject) -> Json {
        let c = self.comparison;
        let script = self.reached.procs.script();
        let symmetry = &self.reached.symmetry;
        let mut object = header_json(self.reached, subject);
        let state = |one: &One, index: usize| {
            let mut state = json!({ "after": self.reached.states[index].0 });
            if let (Json::Object(state), Json::Object(rest)) = (&mut state, one.json()) {
                state.extend(rest);
            }
            state
        };
        object.insert(
            "states".into(),
            json!([state(&self.left, 0), state(&self.right, 1)]),
        );
        let mapping = |m: &Mapping| {
            json!({
                "permutation": permutation_json(&m.permutation, symmetry, script),
                "components": m.alpha,
            })
        };
        let mut answer = match &c.answer {
            Answer::Same { mapping: m } => json!({ "kind": "same", "mapping": mapping(m) }),
            Answer::NotSymmetric(evidence) => json!({
                "kind": "not_symmetric",
                "evidence": match evidence {
                    Evidence::Shapes { left, right } => json!({
                        "kind": "shapes", "left": left, "right": right,
                    }),
                    Evidence::NValues {
                        step, round, cell, left_component, right_component,
                        left_n_value, right_n_value, column, left_count, right_count, ..
                    } => json!({
                        "kind": "n_values",
                        "step": step,
                        "round": round,
                        "cell": cell,
                        "left_component": left_component,
                        "right_component": right_component,
                        "left_n_value": left_n_value.to_string(),
                        "right_n_value": right_n_value.to_string(),
                        "column": column.label(),
                        "left_count": left_count,
                        "right_count": right_count,
                    }),
                    Evidence::NoPermutation { tried, after_steps } => json!({
                        "kind": "no_permutation", "tried": tried, "after_steps": after_steps,
                    }),
                },
            }),
            Answer::NotUnique {
                mapping: m,
                cause,
                parting,
            } => json!({
                "kind": "not_unique",
                "mapping": mapping(m),
                "parting": parting,
                "cause": match cause {
                    Cause::Split {
                        cell,
                        left_component,
                        right_component,
                        fully_symmetric,
                        alike_choices,
                    } => json!({
                        "kind": "split",
                        "cell": cell,
                        "left_component": left_component,
                        "right_component": right_component,
                        "fully_symmetric": fully_symmetric,
                        "alike_choices": alike_choices,
                    }),
                    Cause::Identities { sets } => json!({ "kind": "identities", "sets": sets }),
                    Cause::UnreadValues { components } => json!({
                        "kind": "unread_values", "components": components,
                    }),
                    Cause::Unknown => json!({ "kind": "unknown" }),
                },
            }),
            Answer::Undecided { budget } => json!({ "kind": "undecided", "budget": budget }),
        };
        if let Json::Object(answer) = &mut answer {
            answer.insert("headline".into(), json!(c.answer.headline()));
            answer.insert("sentences".into(), json!(self.sentences()));
        }
        object.insert("answer".into(), answer);
        object.insert("step_to_show".into(), json!(c.step_to_show()));
        object.insert("candidates_tried".into(), json!(c.spent));
        Json::Object(object)
    }
}

//! The symmetry view's facts: a state's representative explained, step
//! 3 made by hand, two states compared, and the algorithm's stages
//! exported as Markdown, each read off the symmetry layer and put in the
//! words the view shows.

use crate::explain::compare::{Answer, Cause, Comparison, DEFAULT_CANDIDATES, Evidence};
use crate::explain::drawing;
use crate::explain::graph::StateGraph;
use crate::explain::splits::{StepAccount, account};
use crate::explain::stages::markdown::markdown;
use crate::explain::stages::{Document, Shown, Sources, heading};
use crate::script::Script;
use crate::symmetry::Atom;
use crate::symmetry::strategy::Strategy;
use crate::tui::engine::{
    Chosen, Compared, Parting, Position, Reply, StateSymmetry, StepWords, StrategyView, Want,
};
use crate::tui::model::Stepper;

use super::{WalkParts, WalkState};

impl WalkState {
    /// Compares two states, each of the walk it was seen in (`.1`: the
    /// reduced walk's).
    pub(super) fn compare(&mut self, marked: (Position, bool), here: (Position, bool)) -> Reply {
        let (outcome, _) = self.with(|ctx| {
            let row = |ctx: &mut WalkParts, (at, reduced): (Position, bool)| {
                ctx.row(at.state(reduced), reduced && at.has_reduced())
            };
            let (left, right) = (row(ctx, marked), row(ctx, here));
            ctx.compare(&left, &right)
        });
        match outcome {
            Some(compared) => Reply::Compared(Box::new(compared)),
            None => Reply::Refused(
                "this process is not symmetric: there is no representative to compare".into(),
            ),
        }
    }
}

impl WalkParts<'_, '_> {
    /// Why the states `left` and `right` got the representatives they
    /// did, from the symmetry layer's comparison (`None` without
    /// symmetry).
    fn compare(&mut self, left: &[u32], right: &[u32]) -> Option<Compared> {
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let comparison = lens
            .system
            .compare(machine, procs, left, right, DEFAULT_CANDIDATES);
        // Two representatives: one class or two? The exact canonical form
        // answers (the algorithm's may give one class several).
        let exact = (comparison.left.representative != comparison.right.representative)
            .then(|| {
                let mut canonical = |row: &[u32]| {
                    let mut out = vec![0; row.len()];
                    lens.system
                        .exact_canonical(machine, procs, row, &mut out)
                        .ok()
                        .map(|_| out)
                };
                Some(match canonical(left)? == canonical(right)? {
                    true => "the exact canonical form puts them in one symmetry class: the \
                             algorithm gave this class more than one representative"
                        .to_string(),
                    false => "the exact canonical form puts them in different symmetry classes"
                        .to_string(),
                })
            })
            .flatten();
        let show = |r: &[u32]| -> Vec<String> {
            (0..r.len())
                .map(|slot| animator.show_component(slot, r[slot]))
                .collect()
        };
        let (marked, here) = (show(left), show(right));
        let (permutation, alpha) = match &comparison.answer {
            Answer::Same { mapping } | Answer::NotUnique { mapping, .. } => (
                mapping
                    .permutation
                    .lines(&lens.symmetry, self.script, false),
                mapping.alpha.clone(),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        let parting = comparison.step_to_show().map(|k| {
            // The partition the sentences speak of: step 1's own, or the
            // one the step where the states part was given.
            let at = k.saturating_sub(1);
            let cells = |trace: &crate::symmetry::rep::Trace| {
                trace
                    .steps
                    .get(at)
                    .map_or(Vec::new(), |s| s.cells().to_vec())
            };
            let name = step_name(&comparison.left.trace, k);
            Parting {
                step: if k == 0 {
                    format!("after {name}")
                } else {
                    format!("before {name}")
                },
                marked: cells(&comparison.left.trace),
                here: cells(&comparison.right.trace),
                split: match &comparison.answer {
                    Answer::NotUnique {
                        cause: Cause::Split { cell, .. },
                        ..
                    } => Some(*cell),
                    _ => None,
                },
                evidence: match &comparison.answer {
                    Answer::NotSymmetric(Evidence::Shapes { left, right }) => {
                        (left.clone(), right.clone())
                    }
                    Answer::NotSymmetric(Evidence::NValues {
                        left_component,
                        right_component,
                        ..
                    }) => (vec![*left_component], vec![*right_component]),
                    _ => (Vec::new(), Vec::new()),
                },
            }
        });
        let representatives = Comparison::representative_lines(
            &show(&comparison.left.representative),
            &show(&comparison.right.representative),
            ("representative of 1", "representative of 2"),
        );
        let mut sentences = comparison.sentences(&marked, &here);
        if comparison.left.state == comparison.right.state {
            sentences.insert(
                0,
                "the marked state is this one: mark another (m) to compare two".to_string(),
            );
        }
        Some(Compared {
            headline: comparison.answer.headline(),
            sentences,
            n_values: comparison.n_value_lines(&marked, &here),
            representatives,
            permutation,
            alpha,
            parting,
            marked,
            here,
            exact,
        })
    }

    /// State `id`'s representative, explained (`None` without symmetry).
    pub(super) fn explain(&mut self, id: u32, reduced: bool, width: u16) -> Option<StateSymmetry> {
        let row = self.row(id, reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let x = lens.system.explain(machine, procs, &row);
        let variables = lens.system.variables(machine, procs, &row);
        // Another strategy's representative beside the algorithm's; a
        // budget that stops it leaves the algorithm's alone.
        let strategy = lens.system.strategy();
        let by_strategy = (strategy != Strategy::Fdr)
            .then(|| {
                let mut out = vec![0; row.len()];
                let perm = lens.system.canonical(machine, procs, &row, &mut out).ok()?;
                Some((out, perm.clone()))
            })
            .flatten();
        let same = by_strategy
            .as_ref()
            .is_some_and(|(out, _)| *out == x.representative);
        let mut shown = state_symmetry(animator, &lens.symmetry, self.script, x, variables, width);
        shown.strategy = by_strategy.map(|(out, perm)| StrategyView {
            name: strategy.name(),
            summary: strategy.summary(),
            representative: shown_components(animator, &out),
            moves: perm.moves_text(&lens.symmetry, self.script),
            same_as_algorithm: same,
        });
        Some(shown)
    }

    /// Step 3 by hand on the state at `at` (`None` without symmetry).
    pub(super) fn choose(&mut self, at: Position, choices: &[usize], want: Want) -> Option<Chosen> {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (machine, procs) = animator.parts_mut();
        let hand = lens.system.by_hand(machine, procs, &row, choices);
        let variables = lens.system.variables(machine, procs, &row);
        let show = |r: &[u32]| shown_components(animator, r);
        let texts = show(&hand.chosen.state);
        let outcome = hand.outcome_lines(
            &show(&hand.own.representative),
            &show(&hand.chosen.representative),
            &lens.symmetry,
            self.script,
        );
        Some(Chosen {
            at,
            reduced,
            choices: choices.to_vec(),
            splits: hand.split_lines(&texts),
            outcome,
            differs: hand.differs(),
            symmetry: state_symmetry(
                animator,
                &lens.symmetry,
                self.script,
                hand.chosen,
                variables,
                want.width,
            ),
        })
    }

    /// The algorithm's stages on the state at `at` (step 3 by hand with
    /// `choices`) as Markdown, the stages `command` (`symcsp rep … --format
    /// markdown`) prints, the command added to the heading; or why there
    /// is nothing to show.
    pub(super) fn document(
        &mut self,
        at: Position,
        choices: &[usize],
        want: Want,
        process: &str,
        (trace, command): (Vec<String>, String),
    ) -> Result<String, String> {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().map_err(|_| NOT_SYMMETRIC.to_string())?;
        let (machine, procs) = animator.parts_mut();
        let hand = lens.system.by_hand(machine, procs, &row, choices);
        let variables = lens.system.variables(machine, procs, &row);
        let show = |r: &[u32]| shown_components(animator, r);
        let by_hand = match choices.is_empty() {
            true => Vec::new(),
            false => hand.document_lines(show, &lens.symmetry, self.script),
        };
        let x = hand.chosen;
        let accounts = account(&x.trace, &variables);
        let graph = StateGraph::new(variables, x.trace.final_cells());
        let texts = shown_components(animator, &x.state);
        let mut lines = heading(process, &[("after", trace)], &lens.symmetry, self.script);
        lines.push(("reproduce".to_string(), command));
        let mut document = Document::new(Sources {
            heading: lines,
            explanation: &x,
            accounts: &accounts,
            graph: &graph,
            texts: &texts,
            representative: shown_components(animator, &x.representative),
            symmetry: &lens.symmetry,
            script: self.script,
        });
        document.by_hand = by_hand;
        match document.nothing_to_show(&lens.symmetry) {
            Some(why) => Err(format!("nothing to export stage by stage: {why}")),
            None => Ok(markdown(&document, Shown::All)),
        }
    }
}

/// What the engine says when asked about the symmetry of a process
/// that has none.
pub(super) const NOT_SYMMETRIC: &str =
    "this process is not symmetric: there is no representative to explain";

/// Each component of `row`, as text.
fn shown_components(animator: &crate::lts::animator::Animator, row: &[u32]) -> Vec<String> {
    (0..row.len())
        .map(|slot| animator.show_component(slot, row[slot]))
        .collect()
}

/// The explanation `x` of a state whose distinguished variables are
/// `variables`, in the words the symmetry view shows (its graph drawn
/// `width` columns wide).
fn state_symmetry(
    animator: &crate::lts::animator::Animator,
    symmetry: &crate::symmetry::Symmetry,
    script: &Script,
    x: crate::symmetry::Explanation,
    variables: Vec<crate::explain::variables::ComponentVariables>,
    width: u16,
) -> StateSymmetry {
    {
        let show = |r: &[u32]| shown_components(animator, r);
        let texts = show(&x.state);
        let words = account(&x.trace, &variables)
            .iter()
            .map(|step| step_words(step, &texts, &variables))
            .collect();
        let graph = StateGraph::new(variables, x.trace.final_cells());
        let graph = drawing::layout(&graph, &texts, usize::from(width.max(40)));
        let name = |a: Atom| symmetry.name(script, a).to_string();
        let permutation = x.permutation.pairs(symmetry, script, false);
        let moved = permutation
            .iter()
            .flat_map(|(_, pairs)| pairs.iter().filter(|(a, b)| a != b))
            .map(|(a, _)| a.clone())
            .collect();
        let orderings = symmetry
            .types()
            .iter()
            .enumerate()
            .map(|(t, ty)| {
                (
                    ty.name.clone(),
                    x.trace.type_orderings[t].iter().map(|&a| name(a)).collect(),
                    x.trace.appeared[t],
                )
            })
            .collect();
        StateSymmetry {
            words,
            graph,
            state: texts,
            representative: show(&x.representative),
            alpha: x.alpha.clone(),
            permutation,
            moved,
            unique_identities: x.unique_identities,
            values_read: x.values_read,
            unique_guaranteed: x.unique_guaranteed(),
            trace: x.trace,
            orderings,
            strategy: None,
        }
    }
}

/// A step of the algorithm in words.
fn step_words(
    step: &StepAccount,
    texts: &[String],
    variables: &[crate::explain::variables::ComponentVariables],
) -> StepWords {
    match step {
        StepAccount::Shapes { .. } => StepWords::default(),
        StepAccount::Refine {
            columns, splits, ..
        } => StepWords {
            columns: columns
                .iter()
                .map(|c| {
                    let groups = c
                        .groups
                        .iter()
                        .map(|g| g.iter().map(|column| column.label()).collect())
                        .collect();
                    (c.cell, groups)
                })
                .collect(),
            sentences: splits
                .iter()
                .flat_map(|split| split.parts.iter().map(|part| part.sentence(texts)))
                .collect(),
        },
        StepAccount::Individualise(split) => StepWords {
            columns: Vec::new(),
            sentences: vec![split.sentence(texts, variables)],
        },
    }
}

/// Step `k` of `trace` by name: `step 1`, `step 2, round 2`, `split 1 of
/// step 3`.
fn step_name(trace: &crate::symmetry::rep::Trace, k: usize) -> String {
    use crate::symmetry::rep::Step;
    let before = &trace.steps[..k.min(trace.steps.len())];
    match trace.steps.get(k) {
        Some(Step::Shapes { .. }) | None => "step 1".to_string(),
        Some(Step::Refine { .. }) => {
            let round = before
                .iter()
                .rev()
                .take_while(|s| matches!(s, Step::Refine { .. }))
                .count()
                + 1;
            format!("step 2, round {round}")
        }
        Some(Step::Individualise { .. }) => {
            let split = before
                .iter()
                .filter(|s| matches!(s, Step::Individualise { .. }))
                .count()
                + 1;
            format!("split {split} of step 3")
        }
    }
}

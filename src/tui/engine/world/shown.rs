//! A state as the panes show it: its components, what the step into it
//! changed, its moves in words, and (when asked) its symmetry.

use rustc_hash::FxHashMap;

use crate::tui::engine::{NONE, Position, Shown, ShownMove, Step, Want};
use crate::tui::model::Stepper;

use super::{WalkParts, WalkState};

impl WalkState {
    pub(super) fn show(
        &mut self,
        at: Position,
        into: Option<(Position, Step)>,
        want: Want,
    ) -> Shown {
        self.with(|ctx| ctx.show(at, into, want)).0
    }
}

impl WalkParts<'_, '_> {
    /// A state as the panes show it.
    pub(super) fn show(
        &mut self,
        at: Position,
        into: Option<(Position, Step)>,
        want: Want,
    ) -> Shown {
        let reduced = want.reduced && at.has_reduced();
        let row = self.row(at.state(reduced), reduced);
        let changed = into
            .and_then(|(from, step)| self.changed_by(from, step, reduced))
            .unwrap_or_default();
        let animator = &mut self.stepper.animator;
        let components = (0..animator.components())
            .map(|slot| animator.show_component(slot, row[slot]))
            .collect();
        let (moves, problem, failed) = match animator.enabled(&row) {
            Ok(enabled) => (moves_in_words(animator, enabled), None, false),
            Err(e) => match e.stop_reason() {
                Some(stop) => (
                    Vec::new(),
                    Some(format!(
                        "this state's moves were {} before they were all computed (stepping \
                         away and back computes them again)",
                        stop.ended()
                    )),
                    false,
                ),
                None => (
                    Vec::new(),
                    Some(e.to_diagnostic().render(&self.script.sources)),
                    true,
                ),
            },
        };
        let partial_order = match want.partial_order {
            Some(preserve) if problem.is_none() => {
                Some(super::partial_order::view(animator, &row, preserve, &moves))
            }
            _ => None,
        };
        let symmetry = if want.symmetry {
            self.explain(at.state(reduced), reduced, want.width)
                .map(Box::new)
        } else {
            None
        };
        Shown {
            at,
            reduced,
            components,
            changed,
            moves,
            problem,
            failed,
            symmetry,
            partial_order,
            seen: self.raw.len(),
        }
    }

    /// The components `step` from `from` changed, where the state it led
    /// to shows them. In the reduced walk the move's target is put in
    /// its representative's form by the step's permutation π, which
    /// moves components as well as values (α_π: the component holding
    /// node N0 holds N2's after N0 ↦ N2): each changed component is
    /// marked where α_π put it.
    fn changed_by(&mut self, from: Position, step: Step, reduced: bool) -> Option<Vec<usize>> {
        let from_row = self.row(from.state(reduced), reduced);
        let (_, _, choice) = step.seen(reduced);
        let n = self.stepper.animator.compute_moves(&from_row).ok()?;
        let changed =
            ((choice as usize) < n).then(|| self.stepper.animator.changed_by(choice as usize))?;
        if !reduced || step.permutation == NONE {
            return Some(changed);
        }
        let pi = self
            .permutations
            .list
            .get(step.permutation as usize)?
            .clone();
        let Stepper { animator, lens, .. } = &mut *self.stepper;
        let lens = lens.as_mut().ok()?;
        let (_, procs) = animator.parts_mut();
        let alpha = lens.system.alpha(procs, &pi);
        let mut moved: Vec<usize> = changed
            .iter()
            .filter_map(|&slot| alpha.get(slot).copied())
            .collect();
        moved.sort_unstable();
        Some(moved)
    }
}

/// The enabled moves in words, each read the same as another with the
/// components it changes after it.
fn moves_in_words(
    animator: &crate::lts::animator::Animator,
    enabled: Vec<crate::lts::animator::Enabled>,
) -> Vec<ShownMove> {
    let mut count: FxHashMap<(&str, Option<&str>), usize> = FxHashMap::default();
    for e in &enabled {
        *count.entry((&e.label, e.hidden.as_deref())).or_default() += 1;
    }
    let twins: Vec<bool> = enabled
        .iter()
        .map(|e| count[&(e.label.as_str(), e.hidden.as_deref())] > 1)
        .collect();
    enabled
        .into_iter()
        .zip(twins)
        .map(|(e, twin)| {
            let after = if twin {
                e.slots()
                    .map(|slot| (slot, animator.show_component(slot, e.target[slot])))
                    .collect()
            } else {
                Vec::new()
            };
            ShownMove {
                label: e.label,
                kind: e.kind,
                hidden: e.hidden,
                participants: e.participants,
                after,
            }
        })
        .collect()
}

//! A check reduced by the validated group of the implementation's
//! communication structure (`--symmetry structural`).
//!
//! A product state `(imp, node)` is replaced by `(g·imp, g(node))` for
//! the element `g` that makes `g·imp` least. The specification must be
//! invariant under every element kept (its LTS carried onto itself by
//! the element's event map, checked before the search), so `g(node)` is
//! the node after the image under `g` of any trace that reaches `node`:
//! the normal form is deterministic. Each node remembers the first way it
//! was reached, and the images are memoised.

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};
use crate::lts::machine::{Machine, Moves};
use crate::process::{EventId, Processes, TAU};
use crate::symmetry::structural::group::StructuralReduction;

use super::counterexample::RowPath;
use super::normal::NodeId;
use super::spec::Specification;

/// The structural group of a check, acting on implementation states and
/// specification nodes.
pub struct StructuralProduct {
    pub group: StructuralReduction,
    /// The specification's initial node: every element fixes it.
    root: NodeId,
    /// How each other node was first reached: from which node, by which
    /// event.
    reached_by: FxHashMap<NodeId, (NodeId, EventId)>,
    /// `(node, element)` to the node's image.
    images: FxHashMap<(NodeId, u32), NodeId>,
}

impl StructuralProduct {
    pub fn new(group: StructuralReduction, root: NodeId) -> StructuralProduct {
        StructuralProduct {
            group,
            root,
            reached_by: FxHashMap::default(),
            images: FxHashMap::default(),
        }
    }

    /// Records that `to` is reached from `from` by `event`, when it is the
    /// first way seen.
    pub fn learn(&mut self, from: NodeId, event: EventId, to: NodeId) {
        if to != self.root && to != from {
            self.reached_by.entry(to).or_insert((from, event));
        }
    }

    /// The image of `node` under element `g`: the node after the image of
    /// the trace that first reached it.
    pub fn image(
        &mut self,
        spec: &mut dyn Specification,
        procs: &mut Processes,
        node: NodeId,
        g: usize,
    ) -> EvalResult<NodeId> {
        if g == 0 || node == self.root {
            return Ok(node);
        }
        if let Some(&image) = self.images.get(&(node, g as u32)) {
            return Ok(image);
        }
        let mut trace = Vec::new();
        let mut at = node;
        // A path back visits each node once at most.
        let known = self.reached_by.len() + spec.normal_form().map_or(0, |n| n.nodes());
        while at != self.root && trace.len() <= known {
            // Learnt here, or (a node another worker sent, made here
            // from its trace) from the normal form's own record.
            let reached = self
                .reached_by
                .get(&at)
                .copied()
                .or_else(|| spec.normal_form().and_then(|normal| normal.origin(at)));
            let Some((from, event)) = reached else {
                return Err(EvalError::new(
                    crate::syntax::Span::default(),
                    format!(
                        "internal error: no trace is known to reach the specification's node \
                         {node}"
                    ),
                ));
            };
            trace.push(event);
            at = from;
        }
        if at != self.root {
            return Err(EvalError::new(
                crate::syntax::Span::default(),
                format!("internal error: the way back from the specification's node {node} loops"),
            ));
        }
        let mut image = self.root;
        for &event in trace.iter().rev() {
            let moved = self.group.permute_event(g, event);
            let Some(next) = spec.after(procs, image, moved)? else {
                return Err(EvalError::new(
                    crate::syntax::Span::default(),
                    "internal error: the specification lacks the image of one of its traces, \
                     though it was found invariant under the structural group"
                        .to_string(),
                ));
            };
            self.learn(image, moved, next);
            image = next;
        }
        self.images.insert((node, g as u32), image);
        Ok(image)
    }

    /// `(imp, node)` in `row` (`width` components, then the node) to its
    /// representative; the element that made it.
    pub fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        spec: &mut dyn Specification,
        row: &mut [u32],
    ) -> EvalResult<usize> {
        let width = machine.components();
        let g = self.group.canonicalise_row(machine, &mut row[..width]);
        row[width] = self.image(spec, procs, row[width], g)?;
        Ok(g)
    }

    /// The path of the unreduced product behind `recorded`, the path the
    /// reduced search recorded in `machine` (as [`super::unwind::unwind`] does for
    /// datatypes): at each step `σ` carries the raw state onto the
    /// stored representative, the stored move is mirrored under `σ⁻¹`,
    /// and `σ` is composed with the element that made the next
    /// representative. `Err` names the step that could not be unwound.
    pub fn unwind(
        &mut self,
        machine: &mut Machine,
        spec: &mut dyn Specification,
        procs: &mut Processes,
        recorded: &RowPath,
    ) -> EvalResult<Result<RowPath, String>> {
        let width = machine.components();
        let (events, stored) = (&recorded.events, &recorded.rows);
        let mut raw: Vec<u32> = machine.initial().to_vec();
        raw.push(self.root);
        let mut first = raw.clone();
        let mut sigma = self.canonicalise(machine, procs, spec, &mut first)?;
        if first != stored[0] {
            return Ok(Err(
                "the initial state's representative is not the search's first state".to_string(),
            ));
        }
        let mut path = RowPath {
            events: Vec::with_capacity(events.len()),
            rows: vec![raw],
        };
        let mut moves = Moves::default();
        let mut next = Vec::new();
        for (k, &event) in events.iter().enumerate() {
            let (here, there) = (&stored[k], &stored[k + 1]);
            let Some(spec_after) = spec.after(procs, here[width], event)? else {
                return Ok(Err(format!(
                    "step {}: the specification does not allow the recorded event",
                    k + 1
                )));
            };
            machine.moves(procs, &here[..width], &mut moves)?;
            let mut taken = None;
            for m in moves.list.iter().filter(|m| m.event == event) {
                moves.apply(m, &here[..width], &mut next);
                next.push(spec_after);
                let h = self.canonicalise(machine, procs, spec, &mut next)?;
                if next == *there {
                    moves.apply(m, &here[..width], &mut next);
                    taken = Some((next.clone(), h));
                    break;
                }
            }
            let Some((target_state, h)) = taken else {
                return Ok(Err(format!(
                    "step {}: no move of the stored representative reaches the next one",
                    k + 1
                )));
            };
            // The unreduced step mirrors the representative's under σ⁻¹.
            let back = self.group.inverse(sigma);
            let mut raw_next = vec![0; width];
            self.group
                .apply(machine, back, &target_state[..width], &mut raw_next);
            let raw_event = if event == TAU {
                TAU
            } else {
                self.group.permute_event(back, event)
            };
            let Some(node) = spec.after(procs, path.rows[k][width], raw_event)? else {
                return Ok(Err(format!(
                    "step {}: the specification does not allow the unwound event",
                    k + 1
                )));
            };
            raw_next.push(node);
            path.events.push(raw_event);
            path.rows.push(raw_next);
            sigma = self.group.compose(sigma, h);
        }
        Ok(Ok(path))
    }
}

//! The events a traces refinement's specification ignores: those its
//! normal form allows in every node it reaches, each leading back to the
//! node it leaves. Inserting or removing one changes no trace's verdict,
//! so a search reduced by partial order may count them as τ in its
//! visibility condition: the reduced graph keeps the traces over the
//! other events, and those decide the check. Only the traces model: a
//! stable state's refusals of an ignored event still count in failures.

use rustc_hash::FxHashSet;

use crate::eval::{EvalError, EvalResult};
use crate::process::{EventId, Processes, TICK};
use crate::script::ir::FuncId;

use super::normal::Normaliser;

/// The most nodes of the specification's normal form looked at; past
/// them, no event counts as ignored.
const NODES: usize = 4096;

/// The visible events (✓ aside) that the normal form of process `spec`
/// allows at every node, back to the same node, sorted; none when the
/// normal form passes [`NODES`] nodes.
pub(crate) fn ignored_events(procs: &mut Processes, spec: FuncId) -> EvalResult<Vec<EventId>> {
    let (process, _) = super::process(procs, spec)?;
    let (mut normal, root) = Normaliser::new(procs, process, None)?;
    let mut ignored: Vec<EventId> = Vec::new();
    let mut seen = FxHashSet::from_iter([root]);
    let mut todo = vec![root];
    while let Some(node) = todo.pop() {
        procs
            .evaluator()
            .meter()
            .poll()
            .map_err(EvalError::stopped)?;
        let initials = normal.initials(procs, node)?.to_vec();
        let mut loops = Vec::with_capacity(initials.len());
        for (event, target) in initials {
            let to = normal.target_node(procs, target)?;
            if to == node && event != TICK {
                loops.push(event);
            }
            if seen.insert(to) {
                if seen.len() > NODES {
                    return Ok(Vec::new());
                }
                todo.push(to);
            }
        }
        if node == root {
            ignored = loops;
        } else {
            ignored.retain(|e| loops.binary_search(e).is_ok());
        }
        if ignored.is_empty() {
            return Ok(ignored);
        }
    }
    Ok(ignored)
}

//! A check's evidence, read back from the workers, made genuine and
//! described in worker 0's own system as one search's is.

use crate::budget::Budget;
use crate::check::product::Judgement;

use super::super::ground::rendered;
use super::super::judge::{self, Judging, PathStep};
use super::system::Held;

/// The counterexample along `steps` (read back from the workers, the
/// violation first), made genuine in worker 0's own system: its last
/// state judged again (the breach is known only to its owner), unwound
/// when the search was reduced, replayed and described.
pub(super) fn described(
    (held, budget): (&mut Held, &Budget),
    judging: Judging,
    steps: &[PathStep],
    notes: &mut Vec<String>,
) -> Result<crate::check::counterexample::Counterexample, String> {
    let root = held.root;
    let (machine, procs, _) = held.parts();
    procs.replace_meter(budget.describing().meter());
    let mut judging = judging;
    let spec = &mut *judging.product.spec;
    let recorded = match judge::recorded((machine, procs, spec), steps) {
        Ok(Ok(recorded)) => recorded,
        Ok(Err(malformed)) => return Err(malformed.to_string()),
        Err(e) => return Err(rendered(&e, &procs.script().sources)),
    };
    // Unreduced, the path read back is a path of this worker's system
    // (replaying it also leaves its states' moves known, as the one
    // search's are); reduced, the path it unwinds to is replayed.
    let spec_root = judging.root;
    let mut product = judging.product;
    let reduced = product.reduction_mut().is_some() || product.structural_mut().is_some();
    if !reduced
        && !crate::check::unwind::replays(machine, procs, &recorded).is_ok_and(|replays| replays)
    {
        return Err("internal error: the path read back from the workers does not replay".into());
    }
    let last = recorded.rows.last().expect("a path has a state");
    let breach = match product.judge_unreduced(machine, procs, last) {
        Ok(Judgement::Breach(breach)) => breach,
        Ok(_) => return Err("internal error: the path read back breaks nothing".to_string()),
        Err(e) => return Err(rendered(&e, &procs.script().sources)),
    };
    crate::check::counterexample_of(
        machine,
        procs,
        (&mut product, spec_root),
        (recorded, breach),
        (root, budget),
        notes,
    )
}

/// `:[has trace]:`'s evidence along `steps` (read back from the
/// workers, its last state first), replayed in worker 0's own system as
/// the one search's is: the run that performs the trace (or diverges on
/// the way, when divergences count) when `found`, else the run that
/// performs its longest prefix, with the event it cannot perform next.
pub(super) fn walk_described(
    (held, budget): (&mut Held, &Budget),
    mut judging: Judging,
    steps: &[PathStep],
    found: bool,
) -> Result<crate::check::counterexample::Counterexample, String> {
    let root = held.root;
    let (machine, procs, _) = held.parts();
    procs.replace_meter(budget.describing().meter());
    let reduced = judging.product.reduction_mut().is_some();
    let spec = &mut *judging.product.spec;
    let recorded = match judge::recorded((machine, procs, spec), steps) {
        Ok(Ok(recorded)) => recorded,
        Ok(Err(malformed)) => return Err(malformed.to_string()),
        Err(e) => return Err(rendered(&e, &procs.script().sources)),
    };
    let last = recorded.rows.last().expect("a path has a state");
    let (trace, performed) = spec
        .trace_at(last[machine.components()])
        .expect("a trace walk's specification has its trace");
    let performed = (!found).then_some(performed);
    // Reduced, the path read back is of representatives: the run shown
    // is the unreduced walk along the same events, as in one search.
    if reduced {
        let priority = machine.tau_priority().cloned();
        return crate::check::unreduced_walk_evidence(
            procs,
            (root, &priority),
            (trace, performed, judging.divergences),
            budget,
        );
    }
    if !crate::check::unwind::replays(machine, procs, &recorded).is_ok_and(|replays| replays) {
        return Err("internal error: the path read back from the workers does not replay".into());
    }
    let error = performed.and_then(|k| trace.get(k).copied());
    Ok(crate::check::trace_evidence(
        machine, procs, recorded, error,
    ))
}

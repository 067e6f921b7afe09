//! Counterexamples of reduced checks made genuine (Section 3.5).
//!
//! A reduced search stores representatives, and its parent pointers
//! record, for each state, the event of a move from its parent's
//! representative to a state whose representative it is. Unwinding walks
//! that path from the unreduced initial state `q0`, keeping a permutation
//! `π` with `π(q) = q̂` (the representative stored at that point): at each
//! step it finds the move `q̂ -a-> q'` whose target has the next stored
//! representative (and, in a check, the next stored specification node),
//! takes the unreduced step `q -π⁻¹(a)-> π⁻¹(q')`, and composes `π` with
//! the permutation that made `q'`'s representative.
//!
//! The unwound path is then replayed on the unreduced system
//! ([`replays`]): a path that does not replay is an internal error, never
//! a counterexample.

use rustc_hash::FxHashMap;

use crate::eval::EvalResult;
use crate::lts::machine::{Machine, Moves};
use crate::process::{EventId, ProcId, Processes};
use crate::symmetry::SystemSymmetry;
use crate::symmetry::apply::choices_in_one_order;

use super::counterexample::RowPath;
use super::normal::NodeId;
use super::product::Product;
use super::spec::Specification;

/// The path of the unreduced product behind `recorded`, the path a
/// reduced search recorded (representatives, with their nodes) in
/// `machine`; `root` is the specification's initial node (its raw state,
/// before any permutation). `Err` names the step that could not be
/// unwound (an internal error).
pub fn unwind(
    machine: &mut Machine,
    spec: &mut dyn Specification,
    system: &mut SystemSymmetry,
    procs: &mut Processes,
    root: NodeId,
    recorded: &RowPath,
) -> EvalResult<Result<RowPath, String>> {
    let width = machine.components();
    let (events, stored) = (&recorded.events, &recorded.rows);
    let mut representative = vec![0; width];

    let mut raw: Vec<u32> = machine.initial().to_vec();
    raw.push(root);
    let mut pi = system
        .canonical(machine, procs, &raw[..width], &mut representative)?
        .clone();
    if representative[..] != stored[0][..width]
        || spec.permute(procs, root, &pi)? != stored[0][width]
    {
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
    let mut here_events = Vec::new();
    for (k, &event) in events.iter().enumerate() {
        let (here, there) = (&stored[k], &stored[k + 1]);
        machine.moves(procs, &here[..width], &mut moves)?;
        here_events.clear();
        here_events.extend(moves.list.iter().map(|m| m.event));
        let at = (here[width], &here_events[..]);
        let Some(spec_after) = Product::node_after(spec, procs, at, event)? else {
            return Ok(Err(format!(
                "step {}: the specification does not allow the recorded event",
                k + 1
            )));
        };
        let mut taken = None;
        for m in moves.list.iter().filter(|m| m.event == event) {
            moves.apply(m, &here[..width], &mut next);
            let settled = system.settle(machine, procs, &pi, &next)?;
            if settled.representative[..] != there[..width] {
                continue;
            }
            if spec.permute(procs, spec_after, &settled.pi)? == there[width] {
                taken = Some((next.clone(), settled));
                break;
            }
        }
        let Some((target_state, settled)) = taken else {
            return Ok(Err(format!(
                "step {}: no move of the stored representative reaches the next one",
                k + 1
            )));
        };
        // The unreduced step mirrors the representative's under π⁻¹.
        let raw = system.mirror(machine, procs, &pi.inverse(), (event, None), &target_state);
        let raw_row = &path.rows[k];
        machine.moves(procs, &raw_row[..width], &mut moves)?;
        here_events.clear();
        here_events.extend(moves.list.iter().map(|m| m.event));
        let at = (raw_row[width], &here_events[..]);
        let Some(node) = Product::node_after(spec, procs, at, raw.event)? else {
            return Ok(Err(format!(
                "step {}: the specification does not allow the unwound event",
                k + 1
            )));
        };
        let Some(mut raw_next) =
            real_target(machine, procs, raw_row, &moves, (raw.event, &raw.target))?
        else {
            return Ok(Err(format!(
                "step {}: the mirrored move is not a move of the system",
                k + 1
            )));
        };
        raw_next.push(node);
        path.events.push(raw.event);
        path.rows.push(raw_next);
        pi = settled.sigma;
    }
    Ok(Ok(path))
}

/// The target of the move of `row` (whose moves are `moves`) that the
/// mirrored one (`event` to `target`) is: the image of a state may list
/// a choice's operands in another order than the state the system
/// reaches (which behaves alike), and the path is made of the system's
/// own states.
fn real_target(
    machine: &Machine,
    procs: &mut Processes,
    row: &[u32],
    moves: &Moves,
    (event, target): (EventId, &[u32]),
) -> EvalResult<Option<Vec<u32>>> {
    let width = machine.components();
    let mut memo = FxHashMap::default();
    let mut form = |procs: &mut Processes, slot: usize, local: u32| {
        choices_in_one_order(procs, machine.process_state(slot, local), &mut memo)
    };
    let wanted: Vec<ProcId> = (0..width)
        .map(|slot| form(procs, slot, target[slot]))
        .collect();
    let mut next = Vec::new();
    for m in moves.list.iter().filter(|m| m.event == event) {
        moves.apply(m, &row[..width], &mut next);
        if next[..] == target[..]
            || (0..width).all(|slot| form(procs, slot, next[slot]) == wanted[slot])
        {
            return Ok(Some(next));
        }
    }
    Ok(None)
}

/// Whether `path` is a behaviour of `machine`: it starts at the initial
/// state, and each step's event leads from one row's components to the
/// next's. (Leaves every state on it with its moves known.)
pub fn replays(machine: &mut Machine, procs: &mut Processes, path: &RowPath) -> EvalResult<bool> {
    let width = machine.components();
    if path.rows.first().map(|r| &r[..width]) != Some(machine.initial()) {
        return Ok(false);
    }
    let mut moves = Moves::default();
    let mut next = Vec::new();
    for (k, &event) in path.events.iter().enumerate() {
        let row = &path.rows[k][..width];
        machine.moves(procs, row, &mut moves)?;
        let found = moves.list.iter().any(|m| {
            moves.apply(m, row, &mut next);
            m.event == event && next[..] == path.rows[k + 1][..width]
        });
        if !found {
            return Ok(false);
        }
    }
    Ok(true)
}

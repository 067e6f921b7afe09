//! What hovering over a process's name says beyond its type: how many
//! components run in parallel, its alphabet, and the datatypes it is
//! symmetric in — worked out within a fifth of a second, so that a large
//! model never holds up the editor (what was not finished says so).

use std::time::Duration;

use rustc_hash::FxHashSet;

use crate::budget::Budget;
use crate::lts::machine::{Machine, Moves};
use crate::process::{EventId, Processes, TAU, TICK};
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::spec::Symmetry;

/// How long the facts may take.
const WITHIN: Duration = Duration::from_millis(200);

/// The facts about process `func` (a definition of no arguments), a line
/// each.
pub fn process_facts(script: &Script, func: FuncId) -> Vec<String> {
    let mut lines = Vec::new();
    let meter = Budget {
        timeout: Some(WITHIN),
        ..Budget::default()
    }
    .started()
    .meter();
    let built = crate::stack::with_large_stack(|| -> Option<(usize, String)> {
        let (mut procs, root) = Processes::with_root_within(script, func, meter).ok()?;
        let mut machine = Machine::new(&mut procs, root).ok()?;
        let alphabet = alphabet(&mut procs, &mut machine);
        Some((machine.components(), alphabet))
    });
    match built {
        Some((components, alphabet)) => {
            lines.push(match components {
                1 => "one component".to_string(),
                n => format!("{n} components in parallel"),
            });
            lines.push(alphabet);
        }
        None => lines.push(format!(
            "its components and alphabet: not worked out within {} s",
            WITHIN.as_secs_f32()
        )),
    }
    let symmetry = Symmetry::automatic(script, &[func]);
    let types: Vec<String> = symmetry
        .types()
        .iter()
        .filter(|t| t.values.len() > 1)
        .map(|t| format!("{} ({} values)", t.name, t.values.len()))
        .collect();
    lines.push(match types.is_empty() {
        true => "symmetric in no datatype (nothing `:[symmetry reduce]` could use)".to_string(),
        false => format!("symmetric in {}", types.join(", ")),
    });
    lines
}

/// The visible events the process can perform, found depth first
/// until every state is seen or the budget stops the search.
fn alphabet(procs: &mut Processes, machine: &mut Machine) -> String {
    let mut events: FxHashSet<EventId> = FxHashSet::default();
    let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
    let mut frontier = vec![machine.initial().to_vec()];
    seen.insert(machine.initial().to_vec());
    let mut moves = Moves::default();
    let mut next = Vec::new();
    let mut complete = true;
    'search: while let Some(state) = frontier.pop() {
        // Polled at every state expanded: one state may have thousands
        // of successors, each as wide as the system.
        let polled = procs.evaluator().meter().poll().is_ok();
        if !polled || machine.moves(procs, &state, &mut moves).is_err() {
            complete = false;
            break 'search;
        }
        for m in &moves.list {
            if m.event != TAU && m.event != TICK {
                events.insert(m.event);
            }
            moves.apply(m, &state, &mut next);
            if seen.insert(next.clone()) {
                frontier.push(next.clone());
            }
        }
    }
    let n = events.len();
    let noun = if n == 1 { "event" } else { "events" };
    let states = match seen.len() {
        1 => "1 state".to_string(),
        k => format!("{k} states"),
    };
    match complete {
        true => format!("alphabet: {n} {noun}, over its {states}"),
        false => format!(
            "alphabet: at least {n} {noun}, over the first {states} (stopped at {} s)",
            WITHIN.as_secs_f32()
        ),
    }
}

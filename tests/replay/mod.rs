//! A counterexample checked on its own: its exact path (τ included)
//! replayed on a fresh, unreduced machine of the assertion's
//! implementation, and the violation found where the path ends.

#![allow(dead_code)] // each test binary uses its own part

use symcsp::check::counterexample::{Counterexample, Kind};
use symcsp::lts::divergence::Divergences;
use symcsp::lts::machine::{Machine, Moves};
use symcsp::process::{EventId, Processes, TAU, TICK};
use symcsp::script::Script;
use symcsp::script::ir::AssertOption;

/// Whether `cx` is a behaviour of assertion `index`'s implementation
/// that breaks what the assertion says: `Err` says how it is not.
pub fn violation_at_end(script: &Script, index: usize, cx: &Counterexample) -> Result<(), String> {
    let assertion = &script.assertions[index];
    let imp = assertion.kind.implementation();
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, imp).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("the machine compiles");
        for option in &assertion.options {
            if let AssertOption::TauPriority(set, span) = option {
                let value = procs.evaluator().eval_constant(*set).expect("a set");
                let set = procs.event_set(&value, *span).expect("events");
                machine.set_tau_priority(procs.set(set).clone());
            }
        }
        let path = cx.path_before_error();
        let ends = symcsp::check::trace::replay(&mut machine, &mut procs, &path)
            .map_err(|e| e.message.clone())?;
        if ends.is_empty() {
            return Err(format!("the path {path:?} is not a behaviour"));
        }
        let mut moves = Moves::default();
        let mut breaks = |row: &Vec<u32>, machine: &mut Machine, procs: &mut Processes| {
            machine.moves(procs, row, &mut moves).expect("moves");
            let events: Vec<EventId> = moves.list.iter().map(|m| m.event).collect();
            match cx.kind {
                Kind::Trace => match cx.error_event {
                    // The implementation performs the error event here
                    // (refinement), or cannot (has trace).
                    Some(e) if cx.ends_with_error => events.contains(&e),
                    Some(e) => !events.contains(&e),
                    None => true,
                },
                Kind::Deadlock => events.is_empty(),
                // A stable state accepts what it can do; one that can
                // terminate, only ✓ (it may refuse the rest).
                Kind::Refusal | Kind::Nondeterminism => {
                    let stable = !events.contains(&TAU);
                    let accepted: Vec<EventId> = if events.contains(&TICK) {
                        vec![TICK]
                    } else {
                        let mut visible = events.clone();
                        visible.sort();
                        visible.dedup();
                        visible
                    };
                    let mut want = cx.accepted.clone();
                    want.sort();
                    stable && accepted == want && cx.refusals.iter().all(|r| !accepted.contains(r))
                }
                Kind::Divergence => {
                    let width = machine.components();
                    Divergences::new(width)
                        .diverges(machine, procs, row, None)
                        .expect("divergence")
                }
            }
        };
        if ends.iter().any(|row| breaks(row, &mut machine, &mut procs)) {
            Ok(())
        } else {
            Err(format!(
                "the violation of {:?} is not at the end of its path {path:?}",
                cx.kind
            ))
        }
    })
}

//! Counterexamples as FDR gives them: the implementation's path to the
//! violation (τ included, so it can be stepped through), the error event
//! or refusal, and the behaviour of each component along the path —
//! which leaf moved at each step, by which of its own events, and into
//! which state. Everything is resolved to text here, so a result can
//! leave the thread (and the `Processes`) that found it.

use serde::Serialize;

use crate::lts::divergence::TauLoop;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::Search;
use crate::process::{EventId, ProcId, Processes, TAU};

use super::normal::{NodeId, Normaliser};

/// What kind of behaviour a counterexample shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An event the specification does not allow after the trace (or,
    /// for `:[has trace]:`, the event the process cannot perform next).
    Trace,
    /// A stable state refusing what the specification requires.
    Refusal,
    /// A state that can do nothing at all, not even terminate.
    Deadlock,
    /// A state that can perform τs for ever.
    Divergence,
    /// After the trace the process may perform the error event or
    /// refuse it.
    Nondeterminism,
}

/// One step of the implementation's path.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The system's event (`τ` for internal steps).
    pub event: String,
    /// What the components performed when the system shows another event
    /// (the event a τ hides, or the one renamed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    /// The components that took part.
    pub moved: Vec<usize>,
    /// The specification's states after this step (refinement only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spec: Vec<String>,
}

/// One component's part in the path.
#[derive(Debug, Clone, Serialize)]
pub struct Behaviour {
    pub initial: String,
    pub moves: Vec<ComponentMove>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComponentMove {
    /// The index of the system step (into [`Counterexample::steps`]).
    pub step: usize,
    /// The component's own event (before hiding and renaming).
    pub event: String,
    pub state: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Counterexample {
    pub kind: Kind,
    /// Every step from the initial state, τ included; the error event,
    /// when the implementation performs one, is the last step.
    pub steps: Vec<Step>,
    pub error_event: Option<String>,
    /// Events refused (for a refusal: those the specification required).
    pub refusals: Vec<String>,
    /// What the final state accepts (refusal and nondeterminism).
    pub accepted: Vec<String>,
    pub components: Vec<Behaviour>,
    /// For nondeterminism: another path with the same trace that does
    /// perform the error event (visible events only).
    pub witness: Option<Vec<String>>,
    /// The specification's states at the start (refinement only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spec_initial: Vec<String>,
    /// For a divergence: the index of the first step of the τ-loop that
    /// the last steps make (they return to the state before it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_from: Option<usize>,
    /// The steps' event ids (τ included), to replay the path.
    #[serde(skip)]
    pub path: Vec<EventId>,
    /// Whether the last step is the error event (not part of the trace).
    #[serde(skip)]
    pub ends_with_error: bool,
}

impl Counterexample {
    /// The visible events before the violation (τ omitted, the error
    /// event excluded).
    pub fn trace(&self) -> Vec<&str> {
        let end = self.steps.len() - usize::from(self.ends_with_error);
        self.steps[..end]
            .iter()
            .map(|s| s.event.as_str())
            .filter(|e| *e != "τ")
            .collect()
    }

    /// For a divergence with its τ-loop: the loop's steps in words,
    /// numbered from one (`step 4`, `steps 1–4`).
    pub fn loop_steps(&self) -> Option<String> {
        let from = self.loop_from? + 1;
        let to = self.steps.len();
        Some(if from == to {
            format!("step {from}")
        } else {
            format!("steps {from}–{to}")
        })
    }

    /// The path's event ids without the error step.
    pub fn path_before_error(&self) -> &[EventId] {
        &self.path[..self.path.len() - usize::from(self.ends_with_error)]
    }
}

/// What the search found, to be described.
pub struct Found<'a> {
    pub kind: Kind,
    /// The product state where the violation shows.
    pub state: u32,
    /// An event performed from that state as the last step.
    pub error_step: Option<EventId>,
    pub error_event: Option<EventId>,
    pub refusals: Vec<EventId>,
    pub accepted: Vec<EventId>,
    /// The specification's normal form, when there is one worth showing,
    /// and whether the rows carry its node.
    pub spec: Option<&'a Normaliser>,
    /// For a divergence: the τ-loop the divergent state runs into.
    pub tau_loop: Option<TauLoop>,
}

/// Describes a violation found by `search`.
pub fn describe(search: &Search, procs: &Processes, found: Found) -> Counterexample {
    let machine = search.machine();
    let width = search.components();
    let (mut path, states) = search.path_to(found.state);
    let mut rows: Vec<Vec<u32>> = states.iter().map(|&id| search.row(id)).collect();
    // A divergence goes on round its τ-loop: those steps follow the path.
    let loop_from = found.tau_loop.map(|TauLoop { rows: round, start }| {
        let from = path.len() + start;
        path.extend(std::iter::repeat_n(TAU, round.len() - 1));
        rows.extend(round.into_iter().skip(1));
        from
    });
    let mut moves = Moves::default();
    // The step taken from each row to the next, found among the row's
    // moves (every state on a path was expanded, so its moves are known).
    let mut step_changes: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut after = Vec::new();
    for (k, &event) in path.iter().enumerate() {
        machine.prepared_moves(&rows[k][..width], &mut moves);
        let taken = moves.list.iter().find(|m| {
            moves.apply(m, &rows[k][..width], &mut after);
            m.event == event && after[..] == rows[k + 1][..width]
        });
        step_changes.push(taken.map(|m| moves.changes(m).to_vec()).unwrap_or_default());
    }
    if let Some(error) = found.error_step {
        let last = rows.last().expect("a path has a state").clone();
        machine.prepared_moves(&last[..width], &mut moves);
        if let Some(m) = moves.list.iter().find(|m| m.event == error) {
            let mut next = Vec::new();
            moves.apply(m, &last, &mut next);
            step_changes.push(moves.changes(m).to_vec());
            rows.push(next);
            path.push(error);
        }
    }
    let show_component =
        |slot: usize, local: u32| procs.show_state(machine.process_state(slot, local));
    let spec_states = |node: Option<NodeId>| -> Vec<String> {
        match (found.spec, node) {
            (Some(normaliser), Some(node)) => show_spec(procs, normaliser, node),
            _ => Vec::new(),
        }
    };
    let node_of = |row: &[u32]| row.get(width).copied();
    let mut components: Vec<Behaviour> = (0..width)
        .map(|slot| Behaviour {
            initial: show_component(slot, rows[0][slot]),
            moves: Vec::new(),
        })
        .collect();
    let mut steps = Vec::new();
    for (k, &event) in path.iter().enumerate() {
        let mut moved = Vec::new();
        let taking_part = machine.participants(&rows[k], &step_changes[k], event);
        let hidden = Machine::hidden_event(&taking_part, event).map(|e| procs.show_event(e));
        for (slot, own) in taking_part {
            moved.push(slot);
            components[slot].moves.push(ComponentMove {
                step: k,
                event: procs.show_event(own),
                state: show_component(slot, rows[k + 1][slot]),
            });
        }
        moved.sort_unstable();
        let is_error = found.error_step.is_some() && k + 1 == path.len();
        steps.push(Step {
            event: procs.show_event(event),
            hidden,
            moved,
            spec: if is_error {
                Vec::new()
            } else {
                spec_states(node_of(&rows[k + 1]))
            },
        });
    }
    let show = |events: &[EventId]| events.iter().map(|&e| procs.show_event(e)).collect();
    Counterexample {
        kind: found.kind,
        ends_with_error: found.error_step.is_some() && path.last() == found.error_step.as_ref(),
        steps,
        error_event: found.error_event.map(|e| procs.show_event(e)),
        refusals: show(&found.refusals),
        accepted: show(&found.accepted),
        components,
        witness: None,
        spec_initial: spec_states(node_of(&rows[0])),
        loop_from,
        path,
    }
}

/// The most specification states shown per step.
const SPEC_STATES_SHOWN: usize = 4;

/// The specification states of a normal-form node, as text.
fn show_spec(procs: &Processes, normaliser: &Normaliser, node: NodeId) -> Vec<String> {
    let members = normaliser.member_states(node);
    let mut shown: Vec<String> = members
        .iter()
        .take(SPEC_STATES_SHOWN)
        .map(|components| show_components(procs, components))
        .collect();
    if members.len() > SPEC_STATES_SHOWN {
        shown.push(format!("… {} more", members.len() - SPEC_STATES_SHOWN));
    }
    shown
}

fn show_components(procs: &Processes, components: &[ProcId]) -> String {
    match components {
        [one] => procs.show_state(*one),
        many => {
            let parts: Vec<String> = many.iter().map(|&p| procs.show_state(p)).collect();
            format!("⟨{}⟩", parts.join(", "))
        }
    }
}

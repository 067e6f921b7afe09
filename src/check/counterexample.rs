//! Counterexamples as FDR gives them: the implementation's path to the
//! violation (τ included, so it can be stepped through), the error event
//! or refusal, and the behaviour of each component along the path —
//! which leaf moved at each step, by which of its own events, and into
//! which state. A counterexample holds event ids and state keys, which
//! mean the same to every `Processes` of the script, so it can leave the
//! thread (and the `Processes`) that found it; it is put into words only
//! where it is shown ([`Counterexample::render`]).

mod render;

use serde::Serialize;

use crate::lts::animator::{ComponentMove, PathStep};
use crate::lts::divergence::TauLoop;
use crate::lts::machine::{Change, Machine, Moves};
use crate::lts::search::Search;
use crate::process::{EventId, Exporter, Processes, StateKey, TAU};

use super::normal::{NodeId, Normaliser};

pub use render::{
    RenderedBehaviour, RenderedCounterexample, RenderedMove, RenderedRun, RenderedStep,
};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The system's event (τ for internal steps).
    pub event: EventId,
    /// What the components performed when the system shows another event
    /// (the event a τ hides, or the one renamed).
    pub hidden: Option<EventId>,
    /// The components that took part, in increasing slot order, each
    /// with its own event and new state.
    pub moved: Vec<ComponentMove>,
    /// The specification after this step (refinement only, and not after
    /// the error event).
    pub spec: Option<SpecStates>,
}

/// The specification's normal-form node at a point of the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecStates {
    /// Its first member states (at most [`SPEC_STATES_KEPT`]), each a
    /// state per specification component.
    pub members: Vec<Vec<StateKey>>,
    /// How many member states the node has.
    pub count: usize,
}

/// The most specification states kept per step (the node's others are
/// only counted).
pub const SPEC_STATES_KEPT: usize = 4;

/// The behaviour behind a verdict, in event ids and state keys.
#[derive(Debug, Clone)]
pub struct Counterexample {
    pub kind: Kind,
    /// Each component's state at the start, by slot.
    pub initial: Vec<StateKey>,
    /// Every step from the initial state, τ included; the error event,
    /// when the implementation performs one, is the last step.
    pub steps: Vec<Step>,
    pub error_event: Option<EventId>,
    /// Events refused (for a refusal: those the specification required).
    pub refusals: Vec<EventId>,
    /// What the final state accepts (refusal and nondeterminism).
    pub accepted: Vec<EventId>,
    /// For nondeterminism: another path with the same trace that does
    /// perform the error event (visible events only).
    pub witness: Option<Vec<EventId>>,
    /// The specification at the start (refinement only).
    pub spec_initial: Option<SpecStates>,
    /// For a divergence: the index of the first step of the τ-loop that
    /// the last steps make (they return to the state before it).
    pub loop_from: Option<usize>,
    /// Whether the last step is the error event (not part of the trace).
    pub ends_with_error: bool,
}

impl Counterexample {
    /// The path's events (τ included) without the error step.
    pub fn path_before_error(&self) -> Vec<EventId> {
        let end = self.steps.len() - usize::from(self.ends_with_error);
        self.steps[..end].iter().map(|s| s.event).collect()
    }

    /// The visible events before the violation (τ omitted, the error
    /// event excluded).
    pub fn trace(&self) -> Vec<EventId> {
        let mut trace = self.path_before_error();
        trace.retain(|&e| e != TAU);
        trace
    }

    /// The path as [`crate::lts::animator::Animator::follow`] replays it.
    pub fn path(&self) -> impl Iterator<Item = PathStep<'_>> {
        self.steps.iter().map(|s| PathStep {
            event: s.event,
            moved: &s.moved,
        })
    }
}

/// A path of the unreduced system from its initial state: each step's
/// event (τ included) and the rows along it (the components, then any
/// extra columns of the search: a check's specification node), one more
/// row than events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowPath {
    pub events: Vec<EventId>,
    pub rows: Vec<Vec<u32>>,
}

impl RowPath {
    /// The path a search recorded to state `id` (a shortest one).
    pub fn of_search(search: &Search, id: u32) -> RowPath {
        let (events, states) = search.path_to(id);
        RowPath {
            events,
            rows: states.iter().map(|&s| search.row(s)).collect(),
        }
    }
}

/// What the search found, to be described.
pub struct Found<'a> {
    pub kind: Kind,
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

/// Describes a violation reached by `path`, a path of `machine` along
/// which every state's moves are known.
pub fn describe(
    machine: &Machine,
    procs: &Processes,
    path: RowPath,
    found: Found,
) -> Counterexample {
    let width = machine.components();
    let RowPath {
        events: mut path,
        mut rows,
    } = path;
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
    let mut step_changes: Vec<Vec<Change>> = Vec::new();
    let mut after = Vec::new();
    for (k, &event) in path.iter().enumerate() {
        machine.prepared_moves(&rows[k][..width], &mut moves);
        let taken = moves.list.iter().find(|m| {
            moves.apply(m, &rows[k][..width], &mut after);
            m.event == event && after[..] == rows[k + 1][..width]
        });
        step_changes.push(taken.map(|m| moves.changes(m).to_vec()).unwrap_or_default());
    }
    let ends_with_error = match found.error_step {
        Some(error) => {
            let last = rows.last().expect("a path has a state").clone();
            machine.prepared_moves(&last[..width], &mut moves);
            let performed = moves.list.iter().find(|m| m.event == error);
            if let Some(m) = performed {
                let mut next = Vec::new();
                moves.apply(m, &last, &mut next);
                step_changes.push(moves.changes(m).to_vec());
                rows.push(next);
                path.push(error);
            }
            performed.is_some()
        }
        None => false,
    };
    // One exporter for the whole counterexample: its states share most
    // of their subterms.
    let mut keys = procs.exporter();
    let component = |keys: &mut Exporter, slot: usize, row: &[u32]| {
        keys.export(machine.process_state(slot, row[slot]))
    };
    // The specification's node is the row's extra column, when the rows
    // carry one.
    let spec = |keys: &mut Exporter, row: &[u32]| -> Option<SpecStates> {
        Some(spec_states(keys, found.spec?, *row.get(width)?))
    };
    let initial = (0..width)
        .map(|slot| component(&mut keys, slot, &rows[0]))
        .collect();
    let spec_initial = spec(&mut keys, &rows[0]);
    let mut steps = Vec::with_capacity(path.len());
    for (k, &event) in path.iter().enumerate() {
        let taking_part = machine.participants(&step_changes[k]);
        let hidden = Machine::hidden_event(&taking_part, event);
        let mut moved: Vec<ComponentMove> = taking_part
            .into_iter()
            .map(|(slot, own)| ComponentMove {
                slot,
                event: own,
                state: component(&mut keys, slot, &rows[k + 1]),
            })
            .collect();
        moved.sort_by_key(|m| m.slot);
        // After the error event the specification has no state.
        let is_error = ends_with_error && k + 1 == path.len();
        steps.push(Step {
            event,
            hidden,
            moved,
            spec: if is_error {
                None
            } else {
                spec(&mut keys, &rows[k + 1])
            },
        });
    }
    Counterexample {
        kind: found.kind,
        initial,
        steps,
        error_event: found.error_event,
        refusals: found.refusals,
        accepted: found.accepted,
        witness: None,
        spec_initial,
        loop_from,
        ends_with_error,
    }
}

/// The first member states of a normal-form node, and how many it has.
fn spec_states(keys: &mut Exporter, normaliser: &Normaliser, node: NodeId) -> SpecStates {
    let members = normaliser.member_states(node);
    SpecStates {
        count: members.len(),
        members: members
            .iter()
            .take(SPEC_STATES_KEPT)
            .map(|components| components.iter().map(|&p| keys.export(p)).collect())
            .collect(),
    }
}

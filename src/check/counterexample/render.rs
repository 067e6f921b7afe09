//! A counterexample in words, as the command line and the animator show
//! it: each event and state printed by a `Processes` of the script the
//! check ran on. Any one will do (event ids and state keys mean the same
//! to all of them), so whoever shows a counterexample uses its own.

use serde::Serialize;

use crate::process::compress::Ending;
use crate::process::{EventId, Processes, StateKey, TAU, Term};

use super::{Counterexample, Kind, SpecStates};

/// A [`Counterexample`] with every event and state as text.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedCounterexample {
    pub kind: Kind,
    pub steps: Vec<RenderedStep>,
    pub error_event: Option<String>,
    pub refusals: Vec<String>,
    pub accepted: Vec<String>,
    pub components: Vec<RenderedBehaviour>,
    pub witness: Option<Vec<String>>,
    /// The specification's states at the start (refinement only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spec_initial: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_from: Option<usize>,
    /// The visible events before the violation ([`Counterexample::trace`]).
    pub trace: Vec<String>,
    #[serde(skip)]
    pub ends_with_error: bool,
}

/// One step of the path in words.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedStep {
    pub event: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    /// The slots of the components that took part.
    pub moved: Vec<usize>,
    /// The specification's states after this step (refinement only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spec: Vec<String>,
}

/// One component's part in the path.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedBehaviour {
    pub initial: String,
    pub moves: Vec<RenderedMove>,
    /// For a compressed component: its part as a run of the process it
    /// compresses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unwound: Option<RenderedRun>,
}

/// A compressed component's part as a run of the uncompressed process:
/// the events it performed with the τs the compression removed.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedRun {
    /// The uncompressed process.
    pub process: String,
    pub start: String,
    /// Each step: the event (τ included) and the state it leads to.
    pub steps: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RenderedMove {
    /// The index of the system step (into
    /// [`RenderedCounterexample::steps`]).
    pub step: usize,
    /// The component's own event (before hiding and renaming).
    pub event: String,
    pub state: String,
}

impl Counterexample {
    /// The counterexample in words, printed by `procs` (which also
    /// unwinds each compressed component through its compression).
    pub fn render(&self, procs: &mut Processes) -> RenderedCounterexample {
        let unwound: Vec<Option<RenderedRun>> = (0..self.initial.len())
            .map(|slot| self.unwind(procs, slot))
            .collect();
        let procs = &*procs;
        let event = |e: EventId| procs.show_event(e);
        let events = |es: &[EventId]| -> Vec<String> { es.iter().map(|&e| event(e)).collect() };
        let mut components: Vec<RenderedBehaviour> = self
            .initial
            .iter()
            .zip(unwound)
            .map(|(state, unwound)| RenderedBehaviour {
                initial: procs.show_key(state),
                moves: Vec::new(),
                unwound,
            })
            .collect();
        for (k, step) in self.steps.iter().enumerate() {
            for m in &step.moved {
                components[m.slot].moves.push(RenderedMove {
                    step: k,
                    event: event(m.event),
                    state: procs.show_key(&m.state),
                });
            }
        }
        let spec = |states: &Option<SpecStates>| {
            states
                .as_ref()
                .map_or_else(Vec::new, |s| show_spec(procs, s))
        };
        RenderedCounterexample {
            kind: self.kind,
            steps: self
                .steps
                .iter()
                .map(|step| RenderedStep {
                    event: event(step.event),
                    hidden: step.hidden.map(event),
                    moved: step.moved.iter().map(|m| m.slot).collect(),
                    spec: spec(&step.spec),
                })
                .collect(),
            error_event: self.error_event.map(event),
            refusals: events(&self.refusals),
            accepted: events(&self.accepted),
            components,
            witness: self.witness.as_deref().map(events),
            spec_initial: spec(&self.spec_initial),
            loop_from: self.loop_from,
            trace: events(&self.trace()),
            ends_with_error: self.ends_with_error,
        }
    }
}

impl Counterexample {
    /// Component `slot`'s part as a run of the process it compresses,
    /// when it is a compressed process throughout the path (and the run
    /// can be found within the budget of `procs`).
    fn unwind(&self, procs: &mut Processes, slot: usize) -> Option<RenderedRun> {
        let mut own = Vec::new();
        let mut last = &self.initial[slot];
        let mut moved = false;
        for step in &self.steps {
            for m in step.moved.iter().filter(|m| m.slot == slot) {
                if m.event != TAU {
                    own.push(m.event);
                }
                last = &m.state;
                moved = true;
            }
        }
        let first = procs.import(&self.initial[slot]);
        if !moved || !matches!(procs.term(first), Term::Compressed { .. }) {
            return None;
        }
        let end = procs.import(last);
        let ending = match self.kind {
            Kind::Deadlock | Kind::Refusal => Ending::Stable,
            Kind::Divergence if self.loop_from.is_some() => Ending::Divergent,
            _ => Ending::Any,
        };
        let run = procs.unwind(first, &own, end, ending).ok().flatten()?;
        let procs = &*procs;
        Some(RenderedRun {
            process: procs.show_state(run.of),
            start: procs.show_state(run.start),
            steps: run
                .steps
                .iter()
                .map(|t| (procs.show_event(t.event), procs.show_state(t.target)))
                .collect(),
        })
    }
}

impl RenderedCounterexample {
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
}

/// A normal-form node's member states, one line each, and how many more
/// there are.
fn show_spec(procs: &Processes, spec: &SpecStates) -> Vec<String> {
    let mut shown: Vec<String> = spec
        .members
        .iter()
        .map(|components| show_components(procs, components))
        .collect();
    if spec.count > spec.members.len() {
        shown.push(format!("… {} more", spec.count - spec.members.len()));
    }
    shown
}

/// A specification state: its one component, or all of them in `⟨ ⟩`.
fn show_components(procs: &Processes, components: &[StateKey]) -> String {
    match components {
        [one] => procs.show_key(one),
        many => {
            let parts: Vec<String> = many.iter().map(|k| procs.show_key(k)).collect();
            format!("⟨{}⟩", parts.join(", "))
        }
    }
}

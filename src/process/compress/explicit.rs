//! The states a process reaches, listed: the input of every compression.

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};

use super::super::{EventId, ProcId, Processes};
use super::{OMEGA, Reduced};

/// A process's reachable states, numbered breadth first from its initial
/// state (number 0), with their transitions; ✓ leads to [`OMEGA`].
#[derive(Debug, Default)]
pub(crate) struct Explicit {
    pub states: Vec<ProcId>,
    pub edges: Vec<Box<[(EventId, u32)]>>,
}

impl Explicit {
    /// Every state as itself (`explicate`).
    pub fn unchanged(&self) -> Reduced {
        Reduced {
            members: (0..self.states.len() as u32).map(|i| vec![i]).collect(),
            transitions: self.edges.iter().map(|e| e.to_vec()).collect(),
            initial: 0,
            numbered: false,
        }
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }
}

impl Processes<'_> {
    /// The states `root` reaches, held to the meter (its clock, memory
    /// and state budget).
    pub(super) fn explicit(&mut self, root: ProcId) -> EvalResult<Explicit> {
        let mut out = Explicit::default();
        let mut index: FxHashMap<ProcId, u32> = FxHashMap::default();
        index.insert(root, 0);
        out.states.push(root);
        let mut next = 0;
        while next < out.states.len() {
            // Every state: one state's transitions can take milliseconds
            // (a deep term to evaluate and intern), far more than a poll.
            let meter = self.meter();
            meter.poll().map_err(EvalError::stopped)?;
            meter
                .may_store(out.states.len())
                .map_err(EvalError::stopped)?;
            let state = out.states[next];
            let transitions = self.transitions(state)?;
            let mut edges = Vec::with_capacity(transitions.len());
            for t in transitions.iter() {
                let target = if t.target == self.omega {
                    OMEGA
                } else {
                    *index.entry(t.target).or_insert_with(|| {
                        out.states.push(t.target);
                        (out.states.len() - 1) as u32
                    })
                };
                edges.push((t.event, target));
            }
            out.edges.push(edges.into());
            next += 1;
        }
        Ok(out)
    }
}

//! Where FDR's `chase(P)` goes: from a state of `P` it takes τs at once,
//! the first in the state's list each time, until it reaches a state that
//! offers none. `chase(P)` offers what that state offers, and a τ-loop
//! met on the way makes it diverge. (The operational rule is in
//! [`super::semantics`]; this is the walk, remembered for every state it
//! passes, so each τ is taken once per run however many states lead into
//! the same chain.)
//!
//! Which τ is taken is a choice, as in FDR: `chase` is meant for
//! processes whose τs are confluent, where every choice ends alike.

use rustc_hash::FxHashSet;

use crate::eval::{EvalError, EvalResult};

use super::{ProcId, Processes, TAU, Term};

/// States walked between two polls of the meter (a chain of τs through
/// states never met before has no end of its own).
const POLL_EVERY: usize = 4096;

impl Processes<'_> {
    /// The state `chase` stops in from `p`, or `None` when its τs loop.
    pub(super) fn chased(&mut self, p: ProcId) -> EvalResult<Option<ProcId>> {
        let mut walked = Vec::new();
        let mut on_the_way = FxHashSet::default();
        let mut at = p;
        let end = loop {
            if let Some(&known) = self.chased.get(&at) {
                break known;
            }
            if !on_the_way.insert(at) {
                break None;
            }
            if walked.len() % POLL_EVERY == POLL_EVERY - 1 {
                self.meter().poll().map_err(EvalError::stopped)?;
            }
            let first_tau = self
                .transitions(at)?
                .iter()
                .find(|t| t.event == TAU)
                .map(|t| t.target);
            match first_tau {
                Some(next) => {
                    walked.push(at);
                    at = next;
                }
                None => break Some(at),
            }
        };
        for state in walked {
            self.chased.insert(state, end);
        }
        Ok(end)
    }

    /// The state of `chase(P)` that `P`'s state `p` becomes: `chase` of
    /// where it stops, so that every state of a chain is one state of
    /// `chase(P)`; a state whose τs loop becomes `DIV`.
    pub(super) fn chase_from(&mut self, p: ProcId) -> EvalResult<ProcId> {
        Ok(match self.chased(p)? {
            Some(stable) => self.intern(Term::Chase(stable)),
            None => self.intern(Term::Div),
        })
    }
}

//! Two walks of one system side by side: the raw walk, at a state `q` of
//! the unreduced system, and the reduced walk, at `σ(q)`, a state of the
//! reduced system (a representative once it settles). A move of either
//! walk is the other's seen through σ (or σ⁻¹): `q -e-> q'` in the raw
//! walk is `σ(q) -σ(e)-> σ(q')` in the reduced one. After the reduced
//! walk moves, its target is replaced by its representative `π(σ(q'))`,
//! and σ becomes `σ ; π`.
//!
//! The one mechanism behind unwinding a reduced check's counterexample
//! into a run of the real system (Section 3.5, `check::unwind`) and the
//! animator's reduced walk beside its raw one.

use crate::eval::EvalResult;
use crate::lts::machine::{Machine, Moves};
use crate::process::{EventId, Processes};

use crate::symmetry::perm::Permutation;
use crate::symmetry::system::SystemSymmetry;

/// A move seen through a permutation: its event, the event a τ hid (if
/// known) and its target, each permuted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mirrored {
    pub event: EventId,
    pub hidden: Option<EventId>,
    pub target: Vec<u32>,
}

/// Where the reduced walk settles after a move: the representative of
/// its target, the permutation that made it, and the new σ relating the
/// raw walk's state to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub representative: Vec<u32>,
    /// π: the target's image is its representative.
    pub pi: Permutation,
    /// σ ; π.
    pub sigma: Permutation,
}

impl SystemSymmetry {
    /// The run of the real system behind a path a reduced search
    /// recorded: `stored`, the representatives along it (the initial
    /// state's first), and `events`, each a move from one to a state
    /// whose representative is the next. Following the path in the real
    /// system reaches the last representative's class at σ⁻¹ of it: the
    /// run's events (each the recorded one under σ⁻¹), and the σ the last
    /// move was made under — the run seen through it ends on the very
    /// state the search canonicalised, whose representative by the
    /// system's strategy is the last stored one (a state of its class
    /// may have another where representatives are not unique). Or the
    /// step that could not be followed.
    pub fn unwind_path(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        stored: &[Vec<u32>],
        events: &[EventId],
    ) -> EvalResult<Result<(Vec<EventId>, Permutation), String>> {
        let initial = machine.initial().to_vec();
        let start = self.settle(
            machine,
            procs,
            &Permutation::identity(self.symmetry()),
            &initial,
        )?;
        if stored.first() != Some(&start.representative) {
            return Ok(Err(
                "the initial state's representative is not the path's first state".to_string(),
            ));
        }
        let mut sigma = start.sigma;
        // σ as the last move was made, before it settled.
        let mut last = sigma.clone();
        let mut run = Vec::with_capacity(events.len());
        let (mut moves, mut next) = (Moves::default(), Vec::new());
        for (k, &event) in events.iter().enumerate() {
            machine.moves(procs, &stored[k], &mut moves)?;
            let mut taken = None;
            for m in moves.list.iter().filter(|m| m.event == event) {
                moves.apply(m, &stored[k], &mut next);
                let settled = self.settle(machine, procs, &sigma, &next)?;
                if settled.representative == stored[k + 1] {
                    taken = Some((next.clone(), settled));
                    break;
                }
            }
            let Some((target, settled)) = taken else {
                return Ok(Err(format!(
                    "step {}: no move of the stored representative reaches the next one",
                    k + 1
                )));
            };
            let raw = self.mirror(machine, procs, &sigma.inverse(), (event, None), &target);
            run.push(raw.event);
            last = std::mem::replace(&mut sigma, settled.sigma);
        }
        Ok(Ok((run, last)))
    }

    /// The move `event` (hiding `hidden`) to `target` seen through
    /// `perm`: the matching move of the other walk.
    pub fn mirror(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        perm: &Permutation,
        (event, hidden): (EventId, Option<EventId>),
        target: &[u32],
    ) -> Mirrored {
        let mut image = vec![0; target.len()];
        self.apply(machine, procs, perm, target, &mut image);
        Mirrored {
            event: self.permute_event(procs, perm, event),
            hidden: hidden.map(|e| self.permute_event(procs, perm, e)),
            target: image,
        }
    }

    /// The reduced walk after it moved to `target` from a state related
    /// to the raw walk's by `sigma`: settled on the representative the
    /// system's strategy gives (which a budget may stop).
    pub fn settle(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        sigma: &Permutation,
        target: &[u32],
    ) -> EvalResult<Settled> {
        let mut representative = vec![0; target.len()];
        let pi = self
            .canonical(machine, procs, target, &mut representative)?
            .clone();
        Ok(Settled {
            representative,
            sigma: sigma.then(&pi),
            pi,
        })
    }
}

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
use crate::lts::machine::Machine;
use crate::process::{EventId, Processes};

use super::perm::Permutation;
use super::system::SystemSymmetry;

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

//! Process states as hash-consed terms.
//!
//! A leaf of a term is a *control state with its variables* — a process
//! value of the evaluator ([`Proc::Node`]) — or one of the built-in
//! processes. Operators that are still running after a step (a choice
//! whose operand moved by τ, a parallel composition, a hiding, ...) are
//! terms over the ids of their operands. Two states are the same state
//! exactly when their terms are equal, and equal terms get one id.

use std::sync::Arc;

use crate::eval::Proc;

use super::events::EventId;

/// A hash-consed process state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcId(pub u32);

impl ProcId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An interned event set ([`super::events::EventSet`]).
pub type SetId = u32;
/// An interned event relation ([`super::events::EventRelation`]).
pub type RelationId = u32;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A control state of the script with the values of its free
    /// variables: `Node(N3, B, N1)`, `a -> P`.
    Node(Arc<Proc>),
    Stop,
    Skip,
    Div,
    /// Successfully terminated: what `SKIP` becomes after ✓.
    Omega,
    /// A parallel composition of the supercombinator that has terminated
    /// (its ✓ was taken), at depth `.0` of the operator tree; stored in
    /// the first leaf of that composition. The plain semantics never
    /// builds it.
    Done(u32),
    /// `RUN(A)`
    Run(SetId),
    /// `CHAOS(A)`: may refuse everything, or offer one event of `A`.
    Chaos(SetId),
    /// `CHAOS(A)` after it chose to offer: `[] x : A @ x -> CHAOS(A)`.
    ChaosOffer(SetId),
    /// A prefix with nondeterministic fields (`c$x -> P`) after the values
    /// of those fields were chosen.
    Chosen {
        prefix: ProcId,
        choice: Arc<[crate::eval::Value]>,
    },
    ExternalChoice(Arc<[ProcId]>),
    SequentialComposition(ProcId, ProcId),
    Interrupt(ProcId, ProcId),
    /// `P [> Q`
    SlidingChoice(ProcId, ProcId),
    /// `P [| A |> Q`
    Exception(ProcId, SetId, ProcId),
    /// `P [+ A +] Q` and its replicated form.
    SyncExternalChoice(SetId, Arc<[ProcId]>),
    /// `P /+ A +\ Q`
    SyncInterrupt(ProcId, SetId, ProcId),
    Hide(ProcId, SetId),
    Rename(ProcId, RelationId),
    /// `[| A |]` over any number of operands; `|||` is `[| {} |]`.
    Parallel(SetId, Arc<[ProcId]>),
    /// `[A || B]` and `|| x : S @ [A(x)] P(x)`: each operand with its
    /// alphabet.
    AlphaParallel(Arc<[(SetId, ProcId)]>),
    /// `P [a <-> b] Q`
    Linked(ProcId, RelationId, ProcId),
    /// `loop(P)`: `P ; P ; ...`
    Loop(ProcId),
}

/// One transition: an event (possibly τ or ✓) and the state it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Transition {
    pub event: EventId,
    pub target: ProcId,
}

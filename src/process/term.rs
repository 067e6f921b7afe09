//! Process states as hash-consed terms.
//!
//! A leaf of a term is a *control state with its variables* — a process
//! value of the evaluator ([`Proc::Node`]) — or one of the built-in
//! processes. Operators that are still running after a step (a choice
//! whose operand moved by τ, a parallel composition, a hiding, ...) are
//! terms over the ids of their operands. Two states are the same state
//! exactly when their terms are equal, and equal terms get one id.
//!
//! The same operators also describe a state without ids: a
//! [`super::key::StateKey`] is a term whose operands are keys and whose
//! event sets and relations are held by content ([`Term::map`] converts
//! between the two).

use std::sync::Arc;

use crate::eval::Proc;
use crate::script::builtins::ProcessFunction;

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

/// A process state's operator over its operands `P`, with event sets `S`
/// and relations `R`: ids into a [`super::Processes`] by default.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term<P = ProcId, S = SetId, R = RelationId> {
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
    Run(S),
    /// `CHAOS(A)`: may refuse everything, or offer one event of `A`.
    Chaos(S),
    /// `CHAOS(A)` after it chose to offer: `[] x : A @ x -> CHAOS(A)`.
    ChaosOffer(S),
    /// A prefix with nondeterministic fields (`c$x -> P`) after the values
    /// of those fields were chosen.
    Chosen {
        prefix: P,
        choice: Arc<[crate::eval::Value]>,
    },
    ExternalChoice(Arc<[P]>),
    SequentialComposition(P, P),
    Interrupt(P, P),
    /// `P [> Q`
    SlidingChoice(P, P),
    /// `P [| A |> Q`
    Exception(P, S, P),
    /// `P [+ A +] Q` and its replicated form.
    SyncExternalChoice(S, Arc<[P]>),
    /// `P /+ A +\ Q`
    SyncInterrupt(P, S, P),
    Hide(P, S),
    Rename(P, R),
    /// `[| A |]` over any number of operands; `|||` is `[| {} |]`.
    Parallel(S, Arc<[P]>),
    /// `[A || B]` and `|| x : S @ [A(x)] P(x)`: each operand with its
    /// alphabet.
    AlphaParallel(Arc<[(S, P)]>),
    /// `P [a <-> b] Q`
    Linked(P, R, P),
    /// `loop(P)`: `P ; P ; ...`
    Loop(P),
    /// `prioritise(P, <A1, ..., An>)` (also `prioritise_nocache`, and
    /// `timed_priority(P)`, which is `prioritise(P, <{}, {tock}>)`): an
    /// event of `Ai` happens only where `P` offers no event of an earlier
    /// set, τ and ✓ counting as events of `A1`.
    Prioritise(P, Arc<[S]>),
    /// `prioritisepo(P, A, order, maximal)`: an event waits while `P`
    /// offers one the relation puts above it. A pair `(a, b)` of the
    /// relation holds `b` back while `a` is offered; the relation is the
    /// order's transitive closure with τ and ✓ above every event of `A`
    /// outside `maximal` (FDR's reading: a pair `(x, y)` of the order
    /// gives `x` priority over `y`).
    PrioritiseOrder(P, R),
    /// `BUFFER(N, ins_outs)`: a first-in first-out buffer of capacity
    /// `capacity` that takes the first event of a pair of `links` while
    /// not full and owes its second, `queue` holding what it owes, oldest
    /// first.
    Buffer {
        capacity: u32,
        links: R,
        queue: Arc<[EventId]>,
    },
    /// `chase(P)` (also `chase_nocache`): `P` with its τs taken at once,
    /// the first in its list each time, until it reaches a state that
    /// offers none; a τ-loop on the way is a divergence.
    Chase(P),
    /// A state of a compressed process (`normal(P)`, `sbisim(P)`, ...):
    /// the compression, the state of `P` it was computed from, and which
    /// of the result's states this is ([`super::compress`]).
    Compressed {
        compression: Compression,
        of: P,
        at: Place<P>,
    },
}

/// Which state of a compressed process: the one standing for a state of
/// the original process (its class, for the compressions that group
/// states), or, for `normal`, a number that every `Processes` of the
/// script gives the same state (normal forms are deterministic, so they
/// are numbered breadth first by event).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place<P> {
    Member(P),
    Numbered(u32),
}

impl<P, S, R> Term<P, S, R> {
    /// The same operator over converted operands, sets and relations.
    /// The conversions share the context `cx`, handed to each call (each
    /// may need it mutably: importing a state interns into it).
    pub fn map<C, Q, T, U>(
        &self,
        cx: &mut C,
        operand: impl Fn(&mut C, &P) -> Q,
        set: impl Fn(&mut C, &S) -> T,
        relation: impl Fn(&mut C, &R) -> U,
    ) -> Term<Q, T, U> {
        let all =
            |cx: &mut C, ps: &[P]| -> Arc<[Q]> { ps.iter().map(|p| operand(cx, p)).collect() };
        match self {
            Term::Node(p) => Term::Node(p.clone()),
            Term::Stop => Term::Stop,
            Term::Skip => Term::Skip,
            Term::Div => Term::Div,
            Term::Omega => Term::Omega,
            Term::Done(depth) => Term::Done(*depth),
            Term::Run(s) => Term::Run(set(cx, s)),
            Term::Chaos(s) => Term::Chaos(set(cx, s)),
            Term::ChaosOffer(s) => Term::ChaosOffer(set(cx, s)),
            Term::Chosen { prefix, choice } => Term::Chosen {
                prefix: operand(cx, prefix),
                choice: choice.clone(),
            },
            Term::ExternalChoice(ps) => Term::ExternalChoice(all(cx, ps)),
            Term::SequentialComposition(a, b) => {
                Term::SequentialComposition(operand(cx, a), operand(cx, b))
            }
            Term::Interrupt(a, b) => Term::Interrupt(operand(cx, a), operand(cx, b)),
            Term::SlidingChoice(a, b) => Term::SlidingChoice(operand(cx, a), operand(cx, b)),
            Term::Exception(a, s, b) => Term::Exception(operand(cx, a), set(cx, s), operand(cx, b)),
            Term::SyncExternalChoice(s, ps) => Term::SyncExternalChoice(set(cx, s), all(cx, ps)),
            Term::SyncInterrupt(a, s, b) => {
                Term::SyncInterrupt(operand(cx, a), set(cx, s), operand(cx, b))
            }
            Term::Hide(p, s) => Term::Hide(operand(cx, p), set(cx, s)),
            Term::Rename(p, r) => Term::Rename(operand(cx, p), relation(cx, r)),
            Term::Parallel(s, ps) => Term::Parallel(set(cx, s), all(cx, ps)),
            Term::AlphaParallel(pairs) => Term::AlphaParallel(
                pairs
                    .iter()
                    .map(|(s, p)| (set(cx, s), operand(cx, p)))
                    .collect(),
            ),
            Term::Linked(a, r, b) => Term::Linked(operand(cx, a), relation(cx, r), operand(cx, b)),
            Term::Loop(p) => Term::Loop(operand(cx, p)),
            Term::Chase(p) => Term::Chase(operand(cx, p)),
            Term::Compressed {
                compression,
                of,
                at,
            } => Term::Compressed {
                compression: *compression,
                of: operand(cx, of),
                at: match at {
                    Place::Member(p) => Place::Member(operand(cx, p)),
                    Place::Numbered(n) => Place::Numbered(*n),
                },
            },
            Term::Prioritise(p, levels) => {
                let p = operand(cx, p);
                Term::Prioritise(p, levels.iter().map(|s| set(cx, s)).collect())
            }
            Term::PrioritiseOrder(p, r) => Term::PrioritiseOrder(operand(cx, p), relation(cx, r)),
            Term::Buffer {
                capacity,
                links,
                queue,
            } => Term::Buffer {
                capacity: *capacity,
                links: relation(cx, links),
                queue: queue.clone(),
            },
        }
    }
}

/// One transition: an event (possibly τ or ✓) and the state it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Transition {
    pub event: EventId,
    pub target: ProcId,
}

/// One of FDR's compression functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Compression {
    Normal,
    Sbisim,
    Wbisim,
    Dbisim,
    TauLoopFactor,
    Diamond,
    Explicate,
    ModelCompress,
}

impl Compression {
    /// The compression a process function performs, if it is one
    /// (`lazynorm` is `normal`, `lazyenumerate` is `explicate`).
    pub fn of(function: ProcessFunction) -> Option<Compression> {
        Some(match function {
            ProcessFunction::Normal | ProcessFunction::LazyNormal => Compression::Normal,
            ProcessFunction::Sbisim => Compression::Sbisim,
            ProcessFunction::Wbisim => Compression::Wbisim,
            ProcessFunction::Dbisim => Compression::Dbisim,
            ProcessFunction::TauLoopFactor => Compression::TauLoopFactor,
            ProcessFunction::Diamond => Compression::Diamond,
            ProcessFunction::Explicate | ProcessFunction::LazyEnumerate => Compression::Explicate,
            ProcessFunction::ModelCompress => Compression::ModelCompress,
            _ => return None,
        })
    }

    /// Its name in CSPM.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Normal => "normal",
            Compression::Sbisim => "sbisim",
            Compression::Wbisim => "wbisim",
            Compression::Dbisim => "dbisim",
            Compression::TauLoopFactor => "tau_loop_factor",
            Compression::Diamond => "diamond",
            Compression::Explicate => "explicate",
            Compression::ModelCompress => "model_compress",
        }
    }
}

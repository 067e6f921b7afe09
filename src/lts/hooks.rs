//! The hooks a search's client implements: the [`Visitor`] that judges
//! each state and its successors (with what it may use, [`Context`], and
//! what it decides, [`Flow`]), the [`Canonicaliser`] that maps a state
//! onto its representative, and the parts of both the threads computing
//! successors may run ([`SharedCanonicaliser`], [`SharedJudge`]). The
//! search itself is `search.rs`; the successors, `expand.rs`.

use std::sync::Arc;

use crate::eval::EvalResult;
use crate::process::{EventId, Processes};

use super::machine::Machine;
use super::store::StateStore;

/// What the visitor decides about a state's successors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Store every successor.
    Continue,
    /// Store the successors whose first extra column is not [`DROP`].
    Filter,
    /// Store none.
    Prune,
    /// End the search here.
    Stop,
}

/// Marks a successor the visitor drops (with [`Flow::Filter`]).
pub const DROP: u32 = u32::MAX;

/// One state and its successors, as a visitor sees them.
pub struct Visit<'a> {
    pub id: u32,
    /// The state's row: components, then extra columns.
    pub row: &'a [u32],
    /// Each successor's event (τ and ✓ included), in the machine's order.
    pub events: &'a [EventId],
    /// The successors' rows laid end to end, extra columns copied from
    /// the state's; the visitor may rewrite the extra columns.
    pub successors: &'a mut [u32],
    /// The breadth-first level of the state.
    pub depth: u32,
    /// The visitor's [`SharedJudge`] found the state plainly fine on the
    /// thread that computed its successors, and wrote their extra
    /// columns: the visitor need not judge it again.
    pub judged: bool,
}

/// What the visitor may use besides the state: the process layer, the
/// machine (when it needs it, [`Visitor::needs_machine`]: otherwise other
/// threads may be computing successors with it meanwhile) and the states
/// stored so far.
pub struct Context<'a, 's> {
    pub procs: &'a mut Processes<'s>,
    pub machine: Option<&'a mut Machine>,
    pub store: &'a StateStore,
}

/// Maps a state onto the representative of its symmetry class.
///
/// The row holds the components of a system state, then the extra
/// columns of the search it belongs to; the canonicaliser rewrites all of
/// it (a check keeps the specification's node in its extra column, which
/// the permutation that made the representative maps too). It may add
/// component states to the machine's tables, so it runs on the thread
/// that owns the machine.
pub trait Canonicaliser {
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()>;

    /// The part that may run on the threads computing successors, if it
    /// has one.
    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        None
    }

    /// The part the threads computing the next block's successors may
    /// hold while the search's thread judges this block (beside them, as
    /// for a visitor without a canonicaliser), if it can be lent: a
    /// handle of their own ([`Lendable`]), so that the visitor is free
    /// meanwhile. `None`: the search judges while the threads wait.
    fn lend(&self) -> Option<Arc<dyn SharedCanonicaliser>> {
        None
    }

    /// Gets ready for [`SharedCanonicaliser::try_components`] on
    /// successors of the states the machine has met (on the thread that
    /// owns the machine, before they are computed).
    fn prepare(&mut self, _machine: &Machine, _procs: &mut Processes) -> EvalResult<()> {
        Ok(())
    }

    /// Finishes a row whose components a thread replaced by their
    /// representative's with the permutation `images`
    /// ([`SharedCanonicaliser::try_components`]): the extra columns.
    fn finish(
        &mut self,
        _procs: &mut Processes,
        _row: &mut [u32],
        _images: &[u16],
    ) -> EvalResult<()> {
        Ok(())
    }
}

/// What a canonicaliser can do on the threads computing successors:
/// read what it has learnt and change nothing. What it cannot do there
/// (a state it has not met) is left to [`Canonicaliser::canonicalise`]
/// on the search's own thread, in the order the successors are stored,
/// so the states stored never depend on the number of threads.
pub trait SharedCanonicaliser: Sync {
    /// Buffers for one thread.
    fn scratch(&self) -> Scratch;

    /// Replaces the components `row` by their representative's and
    /// writes the permutation onto `images`; `false` (and `row` as it
    /// was) when that needs what only the search's thread can do.
    fn try_components(
        &self,
        scratch: &mut Scratch,
        machine: &Machine,
        row: &mut [u32],
        images: &mut Vec<u16>,
    ) -> bool;
}

/// A canonicaliser that can be lent to the threads computing successors
/// ([`Canonicaliser::lend`]): they hold a handle to it while the
/// search's thread judges the block before theirs, reading only; it
/// learns (the search's thread changing it) only once every handle is
/// back, which the search sees to.
pub struct Lendable<C>(Arc<C>);

impl<C> Lendable<C> {
    pub fn new(canonicaliser: C) -> Lendable<C> {
        Lendable(Arc::new(canonicaliser))
    }

    pub fn get(&self) -> &C {
        &self.0
    }

    /// The canonicaliser to change: never while it is lent (the search
    /// takes every handle back before its thread learns).
    pub fn get_mut(&mut self) -> &mut C {
        Arc::get_mut(&mut self.0).expect("a canonicaliser changes only while no thread holds it")
    }

    /// A handle for the threads.
    pub fn lent(&self) -> Arc<C> {
        Arc::clone(&self.0)
    }

    /// The canonicaliser itself, once no thread holds it.
    pub fn into_inner(self) -> C {
        Arc::into_inner(self.0)
            .expect("a canonicaliser is taken back only while no thread holds it")
    }
}

/// A thread's buffers for a [`SharedCanonicaliser`], whatever they are.
pub struct Scratch(pub Box<dyn std::any::Any + Send>);

/// What of its judging a visitor lets the threads computing successors
/// do: read what it has learnt so far, and change nothing. A state it
/// finds plainly fine (every successor kept, their extra columns known)
/// is not judged again on the search's thread, which judges the rest
/// itself, in order, as always: so the verdict, the counts and the
/// counterexample never depend on what the copy knew.
pub trait SharedJudge: Send + Sync {
    /// Whether the state whose extra columns are `columns` and whose
    /// moves have `events` is plainly fine; if so, the extra columns of
    /// its successors (`successors`: their rows laid end to end, each of
    /// `row_width` numbers, the extra columns from `width` on, where
    /// `widths` is `(width, row_width)`) are written. `accepted` is a
    /// buffer to reuse.
    fn fine(
        &self,
        columns: &[u32],
        events: &[EventId],
        successors: &mut [u32],
        widths: (usize, usize),
        accepted: &mut Vec<EventId>,
    ) -> bool;
}

/// A search's client: judges each state and its successors.
pub trait Visitor {
    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow>;

    /// The canonicaliser whose representatives the search stores instead
    /// of the states themselves (symmetry reduction); none by default.
    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        None
    }

    /// What of its judging the threads computing the next states'
    /// successors may do ([`SharedJudge`]), as of now; none by default.
    fn shared_judge(&mut self) -> Option<Arc<dyn SharedJudge>> {
        None
    }

    /// After a state's successors are stored: their `(id, new)` in the
    /// order of the successors kept. Not called for a state only some of
    /// whose successors were stored (the budget refused the rest, and the
    /// search ends).
    fn stored(&mut self, _state: u32, _events: &[EventId], _ids: &[(u32, bool)]) {}

    /// Whether the search ends with the state just [`stored`]: what the
    /// visitor was looking for is found in what the states recorded so
    /// far show (a divergence, from their τs). The search's counts are
    /// then those as of that state, whatever the thread count.
    ///
    /// [`stored`]: Visitor::stored
    fn ends_after_stored(&self) -> bool {
        false
    }

    /// The state at which it ended the search (what it looked for), if
    /// it did.
    fn ended_at(&self) -> Option<u32> {
        None
    }

    /// Forgets where it ended the search: at a state past the level a
    /// stopped search is judged to the end of
    /// ([`Search::finish_level`](super::search::Search::finish_level)),
    /// which another engine, splitting the level otherwise, would not
    /// have met.
    fn forget_end(&mut self) {}

    /// Whether it uses [`Context::machine`] to judge. One that does not
    /// (and does not canonicalise, or lends its canonicaliser to the
    /// threads, [`Canonicaliser::lend`]) is judged while the next block
    /// is being expanded, the machine shared with the threads expanding
    /// it, and gets `None`; a successor only the machine can
    /// canonicalise waits for the expansion to end.
    fn needs_machine(&self) -> bool {
        true
    }
}

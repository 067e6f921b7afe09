//! What an implementation is checked against: a [`Specification`] answers
//! what the product's judging asks — the node after an event, what is
//! refused, whether it diverges — says how a node is permuted under
//! symmetry, gives the threads computing successors a copy of what it
//! knows ([`SharedJudge`]) and names its breaches in words.
//!
//! Each kind of specification is one type: the fixed ones (deadlock
//! freedom, anything) in `fixed`, those made of a normal form
//! (refinement in each model, determinism) in `normal_forms`. Adding an
//! assertion kind is a type implementing [`Specification`] there, and
//! the line in `check::run` that makes it.

mod fixed;
pub(super) mod normal_forms;

pub use fixed::{Anything, DeadlockFree, TracePrefix};
pub use normal_forms::{Deterministic, NormalForm, Refines, RefusalTesting, Revivals};

use super::counterexample::Kind;
use super::normal::{NodeId, Normaliser};
pub use super::shared_judge::SharedCopy;
use crate::eval::EvalResult;
use crate::process::{EventId, Processes};
use crate::symmetry::{Atom, Permutation};

/// What the implementation is checked against.
pub trait Specification: Send {
    /// The node after `event` (τ included: the node stays) from `node`;
    /// `None` when the specification does not allow it.
    fn after(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<NodeId>>;

    /// The events a stable implementation state accepting `accepted`
    /// refuses although the specification requires one of them; `None`
    /// when it is allowed.
    fn refused(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        accepted: &[EventId],
    ) -> EvalResult<Option<Vec<EventId>>>;

    /// The column after `event` performed by a stable implementation
    /// state accepting only `accepted`, in the models that look at what
    /// happens after a refusal (revivals, refusal testing); `None` when
    /// the specification does not allow it; `Some(None)` when the model
    /// does not care (the successor is the usual one).
    fn after_stable(
        &mut self,
        _procs: &mut Processes,
        _node: NodeId,
        _accepted: &[EventId],
        _event: EventId,
    ) -> EvalResult<Option<Option<NodeId>>> {
        Ok(Some(None))
    }

    /// The column of a successor by `event` (τ included) from `node` in a
    /// reduced search, before it is canonicalised: a normal form's
    /// *target* (marked with [`TARGET`]) whose τ-closure is taken only
    /// once it is permuted ([`Specification::permute_column`]), or a
    /// node. `None` when the specification does not allow the event.
    fn after_column(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        event: EventId,
    ) -> EvalResult<Option<u32>> {
        self.after(procs, node, event)
    }

    /// The node `perm` maps a column made by
    /// [`Specification::after_column`] to.
    fn permute_column(
        &mut self,
        procs: &mut Processes,
        column: u32,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        self.permute(procs, column, perm)
    }

    /// The node `perm` maps `node` to (Definition 15); a fixed
    /// specification's nodes are their own images.
    fn permute(
        &mut self,
        _procs: &mut Processes,
        node: NodeId,
        _perm: &Permutation,
    ) -> EvalResult<NodeId> {
        Ok(node)
    }

    /// Whether the specification diverges at `node` (then it allows
    /// anything after).
    fn divergent(&mut self, _procs: &mut Processes, _node: NodeId) -> EvalResult<bool> {
        Ok(false)
    }

    /// Whether its nodes can be permuted (a normal form made for
    /// symmetry, or none at all).
    fn is_symmetric(&self) -> bool {
        true
    }

    /// What the threads computing successors may judge by: a copy of
    /// what it knows now, with its size (a copy is made again when it has
    /// learnt more, [`Specification::learnt`]). `None` when only the
    /// search's thread can judge it.
    fn shared_judge(&self, _refusals: bool, _divergences: bool) -> Option<SharedCopy> {
        None
    }

    /// How much it has learnt so far: a copy made at this much is
    /// still whole.
    fn learnt(&self) -> u64 {
        0
    }

    /// `:[has trace]:`'s specification: the trace it looks for and how
    /// many of its events a product state at `node` performed. A state
    /// that performed them all is what the search is after (its breach
    /// is the trace found).
    fn trace_at(&self, _node: NodeId) -> Option<(&[EventId], usize)> {
        None
    }

    /// Whether its nodes hold values the implementation's state may
    /// have let go of, so that permuting one needs the values the state
    /// holds ([`Specification::permute_holding`]).
    fn holds_values(&self) -> bool {
        false
    }

    /// The node `perm` maps a column to, for a state holding only the
    /// values `held` (when that is known), when
    /// [`Specification::holds_values`].
    fn permute_holding(
        &mut self,
        procs: &mut Processes,
        column: u32,
        perm: &Permutation,
        _held: Option<&[Atom]>,
    ) -> EvalResult<NodeId> {
        self.permute_column(procs, column, perm)
    }

    /// Whether it follows refusals along the trace (revivals, refusal
    /// testing), which a structural reduction does not permute.
    fn follows_refusals(&self) -> bool {
        false
    }

    /// What a refusal it does not allow is called.
    fn refusal_kind(&self) -> Kind {
        Kind::Refusal
    }

    /// A sentence for a counterexample whose last event it does not
    /// allow, where its model makes one needed.
    fn event_breach_note(&self) -> Option<&'static str> {
        None
    }

    /// What it held the implementation to before an event after a
    /// refusal, besides the refusal itself (`""`, or a clause).
    fn refusals_before(&self) -> &'static str {
        ""
    }

    /// Makes ready to be shown the specification states of `nodes`, which
    /// a counterexample shows (a normal form keeping its states as keys
    /// makes their process terms).
    fn prepare_shown(&mut self, _procs: &mut Processes, _nodes: &[NodeId]) -> EvalResult<()> {
        Ok(())
    }

    /// Its normal form, if it is made of one.
    fn normal_form(&self) -> Option<&Normaliser> {
        None
    }

    /// `node` as bytes that another process with the same script reads
    /// back as the same node ([`Specification::read_node`]), however it
    /// numbered its nodes: a fixed specification's number, a normal
    /// form's member states. The cluster's workers send nodes so.
    fn write_node(
        &mut self,
        _procs: &mut Processes,
        node: NodeId,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        crate::eval::value::bytes::Writer { out }.u32(node);
        Ok(())
    }

    /// The node `bytes` (from [`Specification::write_node`]) are, in
    /// this process's numbering; `Ok(Err)` when they are not a node.
    fn read_node(
        &mut self,
        procs: &mut Processes,
        bytes: &[u8],
    ) -> EvalResult<Result<NodeId, String>> {
        let mut reader = crate::eval::value::bytes::Reader::new(procs.script(), bytes);
        Ok(match reader.u32() {
            Ok(node @ (0 | 1)) if reader.is_done() => Ok(node),
            Ok(node) => Err(format!("node {node} of a fixed specification")),
            Err(e) => Err(e.to_string()),
        })
    }

    /// The normal form a counterexample shows the specification's
    /// states from, if it shows them.
    fn shown_normal_form(&self) -> Option<&Normaliser> {
        None
    }
}

/// Marks a successor's column that holds a normal form's target, not yet
/// a node (reduced searches only; see [`Specification::after_column`]).
pub const TARGET: u32 = 1 << 31;

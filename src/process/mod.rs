//! Processes as labelled transition systems, computed on demand.
//!
//! Owns the operational semantics of every CSP operator (FDR's, with its
//! conventions for τ and ✓) over hash-consed process states
//! ([`term::Term`]), the event table, and the memo of each state's
//! transitions. Uses the evaluator for everything functional; knows
//! nothing of the supercombinator, checks or the user interface.
//!
//! A process value of the evaluator becomes a state as follows: a control
//! state whose operator keeps its operands across visible steps (parallel
//! compositions, hiding, renaming, interrupts, exceptions) is replaced by
//! that operator's term over its operands, so the static top of a process
//! is visible as terms; every other control state (prefixes, choices,
//! guards, `;`) stays a leaf labelled by its function and variables
//! (`Node(N3, B, N1)`), and is unfolded only to compute its transitions. Process-name calls are transparent: `P = a -> P` is one
//! state.

mod chase;
pub mod compress;
pub mod encode;
pub mod events;
pub mod key;
mod operator;
pub mod print;
mod relational;
mod semantics;
pub mod term;

use std::sync::Arc;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult, Evaluator, Proc, Value};
use crate::script::Script;
use crate::script::builtins::{Builtin, ProcessFunction};
use crate::script::ir::FuncId;
use crate::syntax::Span;

pub use compress::Compression;
pub use events::{EventId, EventRelation, EventSet, EventTable, TAU, TICK};
pub use key::{Exporter, StateKey};
pub use term::{Place, ProcId, RelationId, SetId, Term, Transition};

use events::Interner;
use operator::{Associative, Operator};

/// How deeply static operators may nest inside each other while a process
/// value is turned into a state (a parallel composition that contains
/// itself would otherwise never finish).
const MAX_STATIC_DEPTH: usize = 10_000;

/// What every `Processes` of one script may share between threads: its
/// evaluation and its event table.
#[derive(Clone)]
pub struct Grounds {
    evaluation: crate::eval::Evaluation,
    events: Arc<EventTable>,
}

/// The process states of one script and their transitions.
pub struct Processes<'s> {
    eval: Evaluator<'s>,
    events: Arc<EventTable>,
    sets: Interner<EventSet>,
    relations: Interner<EventRelation>,
    terms: Interner<Term>,
    /// The state each process value became. An index map keeps each
    /// key's hash, so that growing it moves entries without hashing
    /// their values again (a deep walk each: growing a plain map of two
    /// million processes took a tenth of a second without a poll).
    states_of: IndexMap<Arc<Proc>, ProcId, FxBuildHasher>,
    memo: Vec<Option<Arc<[Transition]>>>,
    /// States whose transitions are being computed: meeting one again
    /// means its first steps depend on themselves.
    computing: Vec<bool>,
    /// Where `chase` goes from each state it has walked through: the
    /// state it stops in, or `None` on a τ-loop ([`chase`]).
    chased: FxHashMap<ProcId, Option<ProcId>>,
    /// Each compressed process, by compression and the state it was
    /// computed from ([`compress`]).
    compressions: FxHashMap<(Compression, ProcId), Arc<compress::Table>>,
    static_depth: usize,
    omega: ProcId,
}

/// A run stopped by its budget may leave millions of states: they are
/// freed on a thread of their own, so that the run answers at once.
impl Drop for Processes<'_> {
    fn drop(&mut self) {
        if self.memo.len() > crate::budget::FREE_LATER {
            crate::budget::drop_later((
                std::mem::take(&mut self.terms),
                std::mem::take(&mut self.states_of),
                std::mem::take(&mut self.memo),
            ));
        }
    }
}

/// `value`, at `span`, is not the set of events an operator needs.
fn not_an_event_set(ev: &Evaluator, value: &Value, span: Span) -> EvalError {
    let error = EvalError::new(
        span,
        format!(
            "expected a set of events, but this is {}",
            value.kind_name()
        ),
    );
    // An event or a channel put where its set was meant: how to write
    // the set.
    let event = matches!(value, Value::Channel(_) | Value::Named(_) | Value::Dot(_));
    let shown = ev.show(value);
    if event && shown.chars().count() <= 40 {
        error.with_note(format!(
            "the value is {shown}; a set of events is written in braces: `{{{shown}}}` for the \
             one event, `{{| {shown} |}}` for every event that begins with it"
        ))
    } else {
        error
    }
}

/// What sorting a script's events and building their table take, per
/// event, beyond the events themselves (measured: about 55 bytes).
const EVENT_TABLE_BYTES: u64 = 64;

impl<'s> Processes<'s> {
    /// Prepares the processes of `script`, interning its events.
    pub fn new(script: &'s Script) -> EvalResult<Processes<'s>> {
        Processes::with_evaluator(Evaluator::new(script))
    }

    /// Prepares the processes of the evaluator's script. The event table
    /// is built from the script's events sorted by value (none of which
    /// holds a function, the one kind of value compared by identity: a
    /// function cannot be in a set), so every `Processes` of one script
    /// gives each event the same
    /// [`EventId`]: ids can travel between them, as a check's
    /// counterexample does from its worker to the animator.
    pub fn with_evaluator(eval: Evaluator<'s>) -> EvalResult<Processes<'s>> {
        // Channel by channel, so that an infinite type is reported at its
        // channel's declaration.
        let mut values = Vec::new();
        for c in 0..eval.script().channels.len() {
            let channel = crate::script::ir::ChannelId(c as u32);
            match eval.channel_events(channel) {
                Ok(events) => values.extend(events),
                Err(e) if e.stop_reason().is_some() => {
                    // Millions of events may be built: stop at once.
                    crate::budget::drop_later(values);
                    return Err(e);
                }
                Err(e) => {
                    return Err(e.with_note(
                        "symcsp explores only scripts whose channels have finitely many events",
                    ));
                }
            }
        }
        // Sorting and interning take a while for millions of events: the
        // budget is consulted before each.
        let poll = |eval: &Evaluator| eval.meter().poll().map_err(EvalError::stopped);
        poll(&eval)?;
        // Sorting and the table take about this much more per event.
        eval.meter()
            .may_allocate(values.len() as u64 * EVENT_TABLE_BYTES)
            .map_err(EvalError::stopped)?;
        let values = eval.sorted_set(values)?;
        let events = Arc::new(EventTable::new(values, &|| poll(&eval))?);
        Ok(Processes::with_events(eval, events))
    }

    /// What these processes share with every other `Processes` of their
    /// script, to build more on other threads ([`Processes::on`]): the
    /// evaluation and the event table, each made once.
    pub fn grounds(&self) -> Grounds {
        Grounds {
            evaluation: self.eval.evaluation(),
            events: self.events.clone(),
        }
    }

    /// Processes of `script` on `grounds` (made by processes of the same
    /// script), their evaluation held to `meter`: nothing evaluated or
    /// built for `grounds` is done again.
    pub fn on(script: &'s Script, grounds: &Grounds, meter: Meter) -> Processes<'s> {
        let eval = grounds.evaluation.evaluator(script).with_meter(meter);
        Processes::with_events(eval, grounds.events.clone())
    }

    fn with_events(eval: Evaluator<'s>, events: Arc<EventTable>) -> Processes<'s> {
        let mut processes = Processes {
            eval,
            events,
            sets: Interner::default(),
            relations: Interner::default(),
            terms: Interner::default(),
            states_of: IndexMap::default(),
            memo: Vec::new(),
            computing: Vec::new(),
            chased: FxHashMap::default(),
            compressions: FxHashMap::default(),
            static_depth: 0,
            omega: ProcId(0),
        };
        processes.omega = processes.intern(Term::Omega);
        processes
    }

    /// The processes of `script` and the state of its constant `func`
    /// (a process expression added with `Script::add_expr`, say).
    pub fn with_root(script: &'s Script, func: FuncId) -> EvalResult<(Processes<'s>, ProcId)> {
        Processes::with_root_within(script, func, Meter::unlimited())
    }

    /// The same, the evaluation (loading included) held to `meter`.
    pub fn with_root_within(
        script: &'s Script,
        func: FuncId,
        meter: Meter,
    ) -> EvalResult<(Processes<'s>, ProcId)> {
        let eval = Evaluator::new(script).with_meter(meter);
        // The process first: its errors before the channels'.
        let value = eval.eval_constant(func)?;
        let mut processes = Processes::with_evaluator(eval)?;
        let root = processes.state(&value, script.function(func).span)?;
        Ok((processes, root))
    }

    /// The state of the script's constant `func`, a process.
    pub fn root(&mut self, func: FuncId) -> EvalResult<ProcId> {
        let value = self.eval.eval_constant(func)?;
        self.state(&value, self.eval.script().function(func).span)
    }

    pub fn evaluator(&self) -> &Evaluator<'s> {
        &self.eval
    }

    /// The meter that holds work on these states to its budget: the
    /// evaluator polls it, and so does every search over the states.
    pub fn meter(&self) -> &Meter {
        self.eval.meter()
    }

    /// Replaces the meter (see [`Processes::meter`]), giving back the old.
    pub fn replace_meter(&mut self, meter: Meter) -> Meter {
        self.eval.replace_meter(meter)
    }

    pub fn script(&self) -> &'s Script {
        self.eval.script()
    }

    pub fn events(&self) -> &EventTable {
        &self.events
    }

    pub fn term(&self, id: ProcId) -> &Term {
        self.terms.get(id.0)
    }

    pub fn set(&self, id: SetId) -> &EventSet {
        self.sets.get(id)
    }

    pub fn relation(&self, id: RelationId) -> &EventRelation {
        self.relations.get(id)
    }

    /// The terminated state Ω.
    pub fn omega(&self) -> ProcId {
        self.omega
    }

    /// The state a term stands for.
    pub fn intern(&mut self, term: Term) -> ProcId {
        let id = ProcId(self.terms.intern(term));
        if self.memo.len() <= id.index() {
            self.memo.resize(id.index() + 1, None);
            self.computing.resize(id.index() + 1, false);
        }
        id
    }

    /// The state of a process value (`span` says where it came from, for
    /// errors).
    pub fn state(&mut self, value: &Value, span: Span) -> EvalResult<ProcId> {
        match value {
            Value::Proc(p) => self.state_of(p, span),
            other => Err(EvalError::new(
                span,
                format!("expected a process, but this is {}", other.kind_name()),
            )
            .with_note(format!("its value is {}", self.eval.show(other)))),
        }
    }

    fn state_of(&mut self, proc: &Arc<Proc>, span: Span) -> EvalResult<ProcId> {
        if let Some(&id) = self.states_of.get(proc) {
            return Ok(id);
        }
        let id = match &**proc {
            Proc::Node { func, vars } => {
                let body = self.script().function(*func).clauses[0].body;
                if operator::becomes_term(&self.script().expr(body).kind) {
                    let span = self.script().expr(body).span;
                    self.static_depth += 1;
                    let result = if self.static_depth > MAX_STATIC_DEPTH {
                        Err(EvalError::new(
                            span,
                            format!(
                                "parallel compositions, hidings and renamings nest more than \
                                 {MAX_STATIC_DEPTH} deep here"
                            ),
                        )
                        .with_note(
                            "is a process defined as a parallel composition containing itself?",
                        ))
                    } else {
                        stacker::maybe_grow(256 * 1024, 16 * 1024 * 1024, || {
                            let op = operator::unfold(&self.eval, *func, vars)?;
                            self.build(op, span)
                        })
                    };
                    self.static_depth -= 1;
                    result?
                } else {
                    self.intern(Term::Node(proc.clone()))
                }
            }
            Proc::Builtin { builtin, args } => self.builtin_state(*builtin, args, span)?,
        };
        self.states_of.insert(proc.clone(), id);
        Ok(id)
    }

    fn builtin_state(
        &mut self,
        builtin: Builtin,
        args: &[Value],
        span: Span,
    ) -> EvalResult<ProcId> {
        Ok(match builtin {
            Builtin::Stop => self.intern(Term::Stop),
            Builtin::Skip => self.intern(Term::Skip),
            Builtin::Div => self.intern(Term::Div),
            Builtin::Run => {
                let set = self.event_set(&args[0], span)?;
                self.intern(Term::Run(set))
            }
            Builtin::Chaos => {
                let set = self.event_set(&args[0], span)?;
                self.intern(Term::Chaos(set))
            }
            Builtin::Buffer => self.buffer(args, span)?,
            Builtin::ProcessFunction(function) => match function {
                ProcessFunction::Normal
                | ProcessFunction::Sbisim
                | ProcessFunction::Wbisim
                | ProcessFunction::Dbisim
                | ProcessFunction::Diamond
                | ProcessFunction::Explicate
                | ProcessFunction::ModelCompress
                | ProcessFunction::TauLoopFactor
                | ProcessFunction::LazyEnumerate
                | ProcessFunction::LazyNormal => {
                    let compression = Compression::of(function).expect("a compression");
                    let p = self.state(&args[0], span)?;
                    self.compress(compression, p)?
                }
                ProcessFunction::Loop => {
                    let p = self.state(&args[0], span)?;
                    self.intern(Term::Loop(p))
                }
                ProcessFunction::Chase | ProcessFunction::ChaseNoCache => {
                    let p = self.state(&args[0], span)?;
                    self.intern(Term::Chase(p))
                }
                ProcessFunction::Prioritise | ProcessFunction::PrioritiseNoCache => {
                    let p = self.state(&args[0], span)?;
                    let levels = self.priority_levels(&args[1], span)?;
                    self.intern(Term::Prioritise(p, levels))
                }
                ProcessFunction::PrioritisePartialOrder => self.priority_order(args, span)?,
                other => {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "`{}` is not supported yet",
                            Builtin::ProcessFunction(other).name()
                        ),
                    )
                    .with_note(
                        "symcsp explores processes without it rather than give a wrong answer",
                    ));
                }
            },
            other => unreachable!("{other:?} is not a process"),
        })
    }

    /// The sets of `prioritise(P, <A1, ..., An>)`, in order: a non-empty,
    /// finite sequence of event sets (the evaluator checked its shape
    /// where the call was written).
    fn priority_levels(&mut self, value: &Value, span: Span) -> EvalResult<Arc<[SetId]>> {
        let Value::Seq(levels) = value else {
            return Err(EvalError::new(
                span,
                format!(
                    "`prioritise` needs a finite sequence of event sets, but this is {}",
                    value.kind_name()
                ),
            ));
        };
        if levels.is_empty() {
            return Err(EvalError::new(
                span,
                "`prioritise` needs at least one set of events, but the sequence is empty",
            ));
        }
        levels.iter().map(|a| self.event_set(a, span)).collect()
    }

    /// The operands of `of` with every nested use of it that may be
    /// opened ([`operator::opened`]) replaced by its own, in order: a
    /// chain of n alternatives or steps as one operator of n operands.
    fn joined(&mut self, of: Associative, operands: Vec<Value>) -> EvalResult<Vec<Value>> {
        let may_open = |at: usize| at == 0 || of == Associative::ExternalChoice;
        // A stack of what is still to place, the next on top: a chain is
        // opened level by level without recursion.
        let mut pending: Vec<Value> = operands.into_iter().rev().collect();
        let mut joined = Vec::with_capacity(pending.len());
        let mut opened = 0usize;
        while let Some(operand) = pending.pop() {
            let inner = if may_open(joined.len()) {
                operator::opened(&self.eval, of, &operand)?
            } else {
                None
            };
            match inner {
                Some(inner) => {
                    opened += 1;
                    if opened.is_multiple_of(4096) {
                        self.meter().poll().map_err(EvalError::stopped)?;
                    }
                    pending.extend(inner.into_iter().rev());
                }
                None => joined.push(operand),
            }
        }
        Ok(joined)
    }

    /// Interns the operands of an unfolded operator and builds its term.
    fn build(&mut self, op: Operator, span: Span) -> EvalResult<ProcId> {
        // A replicated operator may have millions of operands: the
        // budget is asked between them.
        let states = |this: &mut Self, values: &[Value]| -> EvalResult<Vec<ProcId>> {
            let mut out = Vec::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                if i % 4096 == 4095 {
                    this.meter().poll().map_err(EvalError::stopped)?;
                }
                out.push(this.state(v, span)?);
            }
            Ok(out)
        };
        Ok(match op {
            Operator::Prefix { .. } | Operator::InternalChoice(_) => {
                unreachable!("prefixes and internal choices are leaves, never built as terms")
            }
            Operator::As(p) => self.state(&p, span)?,
            Operator::Stop => self.intern(Term::Stop),
            Operator::Skip => self.intern(Term::Skip),
            Operator::ExternalChoice(ps) => {
                let ps = self.joined(Associative::ExternalChoice, ps)?;
                let ps = states(self, &ps)?;
                self.intern(Term::ExternalChoice(ps.into()))
            }
            Operator::Sequential(ps) => {
                let ps = self.joined(Associative::Sequential, ps)?;
                let ps = states(self, &ps)?;
                let mut iter = ps.into_iter().rev();
                let mut acc = iter.next().expect("at least two");
                for p in iter {
                    acc = self.intern(Term::SequentialComposition(p, acc));
                }
                acc
            }
            Operator::Interrupt(a, b) => {
                let (a, b) = (self.state(&a, span)?, self.state(&b, span)?);
                self.intern(Term::Interrupt(a, b))
            }
            Operator::SlidingChoice(a, b) => {
                let (a, b) = (self.state(&a, span)?, self.state(&b, span)?);
                self.intern(Term::SlidingChoice(a, b))
            }
            Operator::Exception(a, set, b) => {
                let (a, b) = (self.state(&a, span)?, self.state(&b, span)?);
                let set = self.event_set(&set, span)?;
                self.intern(Term::Exception(a, set, b))
            }
            Operator::SyncExternalChoice(set, ps) => {
                let ps = states(self, &ps)?;
                let set = self.event_set(&set, span)?;
                self.intern(Term::SyncExternalChoice(set, ps.into()))
            }
            Operator::SyncInterrupt(a, set, b) => {
                let (a, b) = (self.state(&a, span)?, self.state(&b, span)?);
                let set = self.event_set(&set, span)?;
                self.intern(Term::SyncInterrupt(a, set, b))
            }
            Operator::Hide(p, set) => {
                let p = self.state(&p, span)?;
                let set = self.event_set(&set, span)?;
                self.hide(p, set)
            }
            Operator::Project(p, set) => {
                let p = self.state(&p, span)?;
                let kept = self.event_set(&set, span)?;
                let kept = self.sets.get(kept).clone();
                let hidden = EventSet::from_ids(
                    (2..self.events.id_count() as EventId).filter(|&e| !kept.contains(e)),
                    self.events.id_count(),
                );
                let set = self.sets.intern(hidden);
                self.hide(p, set)
            }
            Operator::Parallel(set, ps) => {
                let ps = states(self, &ps)?;
                let set = match set {
                    Some(set) => self.event_set(&set, span)?,
                    None => self.empty_set(),
                };
                self.intern(Term::Parallel(set, ps.into()))
            }
            Operator::AlphaParallel(pairs) => {
                let mut out = Vec::with_capacity(pairs.len());
                for (alpha, p) in pairs {
                    out.push((self.event_set(&alpha, span)?, self.state(&p, span)?));
                }
                self.intern(Term::AlphaParallel(out.into()))
            }
            Operator::Linked(ps, links) => {
                let ps = states(self, &ps)?;
                let mut relations = Vec::with_capacity(links.len());
                for pairs in &links {
                    relations.push(self.event_relation(pairs, span)?);
                }
                // P1 [l1] (P2 [l2] (... Pn)): each link joins a process to
                // the chain after it.
                let mut iter = ps.into_iter().rev();
                let mut acc = iter.next().expect("at least two");
                for (p, r) in iter.zip(relations.into_iter().rev()) {
                    acc = self.intern(Term::Linked(p, r, acc));
                }
                acc
            }
            Operator::Rename(p, pairs) => {
                let p = self.state(&p, span)?;
                let relation = self.event_relation(&pairs, span)?;
                self.intern(Term::Rename(p, relation))
            }
        })
    }

    /// `p \ set`, a hiding of a hiding made one: `(P \ B) \ A` is
    /// `P \ (A ∪ B)` step for step, so a recursion through hiding
    /// (`Q = (a -> Q) \ {a}`) has two states, not one `\` more each
    /// time round.
    fn hide(&mut self, p: ProcId, set: SetId) -> ProcId {
        let (p, set) = match *self.term(p) {
            Term::Hide(inner, inner_set) => {
                let both = self.set(inner_set).iter().chain(self.set(set).iter());
                let both = EventSet::from_ids(both, self.events.id_count());
                (inner, self.sets.intern(both))
            }
            _ => (p, set),
        };
        self.intern(Term::Hide(p, set))
    }

    /// The id of an event set (added if new).
    pub fn intern_set(&mut self, set: EventSet) -> SetId {
        self.sets.intern(set)
    }

    /// The id of an event relation (added if new).
    pub fn intern_relation(&mut self, relation: EventRelation) -> RelationId {
        self.relations.intern(relation)
    }

    fn empty_set(&mut self) -> SetId {
        self.sets
            .intern(EventSet::from_ids([], self.events.id_count()))
    }

    /// The event set a value stands for; every element must be an event.
    pub fn event_set(&mut self, value: &Value, span: Span) -> EvalResult<SetId> {
        let Value::Set(set) = value else {
            return Err(not_an_event_set(&self.eval, value, span));
        };
        let elements = self.eval.elements(set, span)?;
        let mut ids = Vec::with_capacity(elements.len());
        for v in elements {
            ids.push(self.event_id(v, span)?);
        }
        Ok(self
            .sets
            .intern(EventSet::from_ids(ids, self.events.id_count())))
    }

    fn event_relation(&mut self, pairs: &[(Value, Value)], span: Span) -> EvalResult<RelationId> {
        let mut ids = Vec::with_capacity(pairs.len());
        for (a, b) in pairs {
            ids.push((self.event_id(a, span)?, self.event_id(b, span)?));
        }
        Ok(self.relations.intern(EventRelation::new(ids)))
    }

    /// The id of an event value; an error naming it if it is none.
    pub fn event_id(&self, v: &Value, span: Span) -> EvalResult<EventId> {
        self.events.id(v).ok_or_else(|| {
            let what = if self.eval.complete(v) {
                "is not an event of any channel"
            } else {
                "is not a complete event: it needs more fields"
            };
            EvalError::new(span, format!("{} {what}", self.eval.show(v)))
        })
    }

    /// The printed form of an event (`τ` and `✓` included).
    pub fn show_event(&self, e: EventId) -> String {
        match e {
            TAU => "τ".to_string(),
            TICK => "✓".to_string(),
            e => self
                .eval
                .show(self.events.value(e).expect("a visible event")),
        }
    }
}

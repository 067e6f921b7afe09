//! Unfolding a control state: running the body of its process function
//! over the state's variables, which yields one operator applied to
//! evaluated operands (process values, event sets, event pairs).
//!
//! This step only evaluates; interning the operands as states is the
//! caller's ([`super::Processes`]). Input fields of a prefix are
//! enumerated here, by FDR's dot rules: `?x` in the last place takes the
//! whole rest of the event, elsewhere one field.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult, Evaluator, Frame, Order, Proc, Set, Value};
use crate::script::ir::{
    CtorId, DataTypeId, ExprId, ExprKind, Field, FieldKind, FuncId, Pattern, ReplicatedOp, Stmt,
};
use crate::syntax::Span;
use crate::syntax::ast::ProcOp;

/// One way a prefix can go: the event, the values chosen for its
/// nondeterministic (`$`) fields, and the process that follows.
pub struct Branch {
    pub event: Value,
    pub choice: Vec<Value>,
    pub next: Value,
}

/// An operator with evaluated operands. Process operands are process
/// values; sets are values still to be checked as event sets.
pub enum Operator {
    Prefix {
        branches: Vec<Branch>,
        nondeterministic: bool,
    },
    /// Behaves exactly as this process (a true guard, a replication over
    /// one value).
    As(Value),
    Stop,
    Skip,
    ExternalChoice(Vec<Value>),
    InternalChoice(Vec<Value>),
    /// `P1 ; P2 ; ...` (at least two).
    Sequential(Vec<Value>),
    Interrupt(Value, Value),
    SlidingChoice(Value, Value),
    Exception(Value, Value, Value),
    SyncExternalChoice(Value, Vec<Value>),
    SyncInterrupt(Value, Value, Value),
    Hide(Value, Value),
    /// `P |\ A`: hides everything but `A`.
    Project(Value, Value),
    Parallel(Option<Value>, Vec<Value>),
    AlphaParallel(Vec<(Value, Value)>),
    /// A chain `P1 [links] P2 [links] ...`, with the links of each step.
    Linked(Vec<Value>, Vec<Vec<(Value, Value)>>),
    Rename(Value, Vec<(Value, Value)>),
}

/// Whether a control state with this body *is* its operator's term: true
/// for operators that keep their operands across visible steps (parallel
/// compositions, hiding, renaming — the static top the supercombinator
/// flattens — and interrupts, exceptions and synchronising choices), so
/// that `P = (a -> P) /\ Q` is the same state after `a`. Prefixes,
/// choices, guards and sequential compositions stay control states with
/// their labels (`Node(N3, B, N1)`).
pub fn becomes_term(kind: &ExprKind) -> bool {
    matches!(
        kind,
        ExprKind::Hide(..)
            | ExprKind::Exception(..)
            | ExprKind::SyncExternalChoice(..)
            | ExprKind::SyncInterrupt(..)
            | ExprKind::ProcBinary(ProcOp::Interrupt, ..)
            | ExprKind::Project(..)
            | ExprKind::GenParallel(..)
            | ExprKind::AlphaParallel(..)
            | ExprKind::LinkedParallel(..)
            | ExprKind::Rename(..)
            | ExprKind::ProcBinary(ProcOp::Interleave, ..)
            | ExprKind::Replicated(
                ReplicatedOp::Interleave
                    | ReplicatedOp::SyncExternalChoice(_)
                    | ReplicatedOp::GenParallel(_)
                    | ReplicatedOp::AlphaParallel(_)
                    | ReplicatedOp::LinkedParallel(..),
                ..
            )
    )
}

/// Evaluates the body of process function `func` over `vars`.
pub fn unfold(ev: &Evaluator, func: FuncId, vars: &[Value]) -> EvalResult<Operator> {
    let script = ev.script();
    let body = script.function(func).clauses[0].body;
    let expr = script.expr(body);
    let span = expr.span;
    let mut frame = ev.state_frame(func, vars);
    let f = &mut frame;
    Ok(match &expr.kind {
        ExprKind::Prefix(event, fields, then) => {
            let head = ev.eval_in(*event, f)?;
            let mut branches = Vec::new();
            let mut choice = Vec::new();
            let prefix = PrefixWalk {
                ev,
                fields,
                then: *then,
                then_reads: input_slots_read(ev, fields, *then),
                made: RefCell::default(),
                span,
            };
            prefix.walk(head, 0, f, &mut choice, &mut branches)?;
            Operator::Prefix {
                branches,
                nondeterministic: fields
                    .iter()
                    .any(|x| matches!(x.kind, FieldKind::NondetInput(..))),
            }
        }
        ExprKind::Guard(guard, p) => match ev.eval_in(*guard, f)? {
            Value::Bool(true) => Operator::As(process_operand(ev, *p, f)?),
            Value::Bool(false) => Operator::Stop,
            other => return Err(not_a(ev, *guard, "a boolean guard", &other)),
        },
        ExprKind::ProcBinary(op, a, b) => {
            let a = process_operand(ev, *a, f)?;
            let b = process_operand(ev, *b, f)?;
            match op {
                ProcOp::ExternalChoice => Operator::ExternalChoice(vec![a, b]),
                ProcOp::InternalChoice => Operator::InternalChoice(vec![a, b]),
                ProcOp::Interleave => Operator::Parallel(None, vec![a, b]),
                ProcOp::SequentialComposition => Operator::Sequential(vec![a, b]),
                ProcOp::Interrupt => Operator::Interrupt(a, b),
                ProcOp::SlidingChoice => Operator::SlidingChoice(a, b),
            }
        }
        ExprKind::Hide(p, set) => {
            Operator::Hide(process_operand(ev, *p, f)?, set_operand(ev, *set, f)?)
        }
        ExprKind::Project(p, set) => {
            Operator::Project(process_operand(ev, *p, f)?, set_operand(ev, *set, f)?)
        }
        ExprKind::GenParallel(a, set, b) => {
            let (a, set, b) = (
                process_operand(ev, *a, f)?,
                set_operand(ev, *set, f)?,
                process_operand(ev, *b, f)?,
            );
            Operator::Parallel(Some(set), vec![a, b])
        }
        ExprKind::Exception(a, set, b) => Operator::Exception(
            process_operand(ev, *a, f)?,
            set_operand(ev, *set, f)?,
            process_operand(ev, *b, f)?,
        ),
        ExprKind::SyncExternalChoice(a, set, b) => {
            let (a, set, b) = (
                process_operand(ev, *a, f)?,
                set_operand(ev, *set, f)?,
                process_operand(ev, *b, f)?,
            );
            Operator::SyncExternalChoice(set, vec![a, b])
        }
        ExprKind::SyncInterrupt(a, set, b) => Operator::SyncInterrupt(
            process_operand(ev, *a, f)?,
            set_operand(ev, *set, f)?,
            process_operand(ev, *b, f)?,
        ),
        ExprKind::AlphaParallel(a, alpha_a, alpha_b, b) => {
            let a = process_operand(ev, *a, f)?;
            let alpha_a = set_operand(ev, *alpha_a, f)?;
            let alpha_b = set_operand(ev, *alpha_b, f)?;
            let b = process_operand(ev, *b, f)?;
            Operator::AlphaParallel(vec![(alpha_a, a), (alpha_b, b)])
        }
        ExprKind::LinkedParallel(a, pairs, stmts, b) => {
            let a = process_operand(ev, *a, f)?;
            let b = process_operand(ev, *b, f)?;
            let links = links(ev, pairs, stmts, f, span)?;
            Operator::Linked(vec![a, b], vec![links])
        }
        ExprKind::Rename(p, pairs, stmts) => {
            let p = process_operand(ev, *p, f)?;
            Operator::Rename(p, event_pairs(ev, pairs, stmts, f)?)
        }
        ExprKind::Replicated(op, stmts, body) => replicated(ev, op, stmts, *body, f, span)?,
        _ => unreachable!("a process function's body is a process operator"),
    })
}

/// An associative operator whose nested uses [`opened`] joins into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Associative {
    /// `[]`: every operand may be opened.
    ExternalChoice,
    /// `;`: its first operand may be opened (`(P ; Q) ; R` as `P ; Q ;
    /// R`); a later one is a state the left side hands over to.
    Sequential,
}

/// `value`'s own operands when it is an unnamed control state whose body
/// is `of` too (a bracketed or chained part of a larger expression:
/// `a -> STOP [] b -> STOP` inside `... [] c -> STOP`), else `None`.
///
/// Both operators are written left-nested (`P1 [] P2 [] ... [] Pn`
/// parses as `((P1 [] P2) [] ...) [] Pn`), and every level of such a
/// chain would be a control state with its own list of moves: n levels
/// of up to n moves each for a choice, n fresh terms at every step of a
/// sequence. The operator built from the opened operands has the moves
/// of the nested one, and its states correspond one to one. A named
/// process (`P(x) = ...`) is never opened: it may be recursive, and its
/// state is the one a user expects to see.
pub fn opened(ev: &Evaluator, of: Associative, value: &Value) -> EvalResult<Option<Vec<Value>>> {
    let Value::Proc(proc) = value else {
        return Ok(None);
    };
    let Proc::Node { func, vars } = &**proc else {
        return Ok(None);
    };
    let function = ev.script().function(*func);
    if function.call_form.is_some() {
        return Ok(None);
    }
    let same = match &ev.script().expr(function.clauses[0].body).kind {
        ExprKind::ProcBinary(ProcOp::ExternalChoice, ..)
        | ExprKind::Replicated(ReplicatedOp::ExternalChoice, ..) => {
            of == Associative::ExternalChoice
        }
        ExprKind::ProcBinary(ProcOp::SequentialComposition, ..)
        | ExprKind::Replicated(ReplicatedOp::SequentialComposition, ..) => {
            of == Associative::Sequential
        }
        _ => false,
    };
    if !same {
        return Ok(None);
    }
    Ok(match unfold(ev, *func, vars)? {
        Operator::ExternalChoice(operands) | Operator::Sequential(operands) => Some(operands),
        _ => None,
    })
}

/// A replicated operator: one operand per binding of its generators.
fn replicated(
    ev: &Evaluator,
    op: &ReplicatedOp,
    stmts: &[Stmt],
    body: ExprId,
    frame: &mut Frame,
    span: Span,
) -> EvalResult<Operator> {
    // Per binding: the operand and, where the operator has one, its
    // extra argument (a set, an alphabet, links).
    let mut operands: Vec<Value> = Vec::new();
    let mut extras: Vec<Value> = Vec::new();
    let mut links: Vec<Vec<(Value, Value)>> = Vec::new();
    // `;` and linked parallel put their operands in order.
    let order = match op {
        ReplicatedOp::SequentialComposition | ReplicatedOp::LinkedParallel(..) => Order::Sequence,
        _ => Order::Set,
    };
    ev.for_each_binding(stmts, order, frame, &mut |ev, f| {
        match op {
            ReplicatedOp::SyncExternalChoice(a)
            | ReplicatedOp::GenParallel(a)
            | ReplicatedOp::AlphaParallel(a) => extras.push(set_operand(ev, *a, f)?),
            ReplicatedOp::LinkedParallel(pairs, inner) => {
                links.push(self::links(ev, pairs, inner, f, span)?)
            }
            _ => {}
        }
        operands.push(process_operand(ev, body, f)?);
        Ok(())
    })?;
    if operands.len() == 1 && !matches!(op, ReplicatedOp::AlphaParallel(_)) {
        return Ok(Operator::As(operands.pop().expect("one operand")));
    }
    Ok(match op {
        ReplicatedOp::ExternalChoice if operands.is_empty() => Operator::Stop,
        ReplicatedOp::ExternalChoice => Operator::ExternalChoice(operands),
        ReplicatedOp::InternalChoice if operands.is_empty() => {
            return Err(EvalError::new(
                span,
                "a replicated internal choice over nothing is not a process",
            )
            .with_note("FDR rejects `|~| x : {} @ P` too: give it at least one value"));
        }
        ReplicatedOp::InternalChoice => Operator::InternalChoice(operands),
        ReplicatedOp::SyncExternalChoice(_) if operands.is_empty() => Operator::Stop,
        ReplicatedOp::SyncExternalChoice(_) => {
            Operator::SyncExternalChoice(extras.swap_remove(0), operands)
        }
        _ if operands.is_empty() => Operator::Skip,
        ReplicatedOp::Interleave => Operator::Parallel(None, operands),
        ReplicatedOp::SequentialComposition => Operator::Sequential(operands),
        ReplicatedOp::GenParallel(_) => Operator::Parallel(Some(extras.swap_remove(0)), operands),
        ReplicatedOp::AlphaParallel(_) => {
            Operator::AlphaParallel(extras.into_iter().zip(operands).collect())
        }
        ReplicatedOp::LinkedParallel(..) => {
            // Each process is linked to the next with the links of its
            // own binding.
            links.pop();
            Operator::Linked(operands, links)
        }
    })
}

/// The links of a linked parallel at `span`: its pairs, refused as FDR
/// refuses them when an event is named more than once on one side
/// (`[c.0 <-> d.0, c.0 <-> d.1]` would link `c.0` to two events).
fn links(
    ev: &Evaluator,
    pairs: &[(ExprId, ExprId)],
    stmts: &[Stmt],
    frame: &mut Frame,
    span: Span,
) -> EvalResult<Vec<(Value, Value)>> {
    let links = event_pairs(ev, pairs, stmts, frame)?;
    for (side, of) in [("left", 0), ("right", 1)] {
        let mut events: Vec<&Value> = links
            .iter()
            .map(|(left, right)| if of == 0 { left } else { right })
            .collect();
        events.sort();
        if let Some(twice) = events.windows(2).find(|w| w[0] == w[1]) {
            return Err(EvalError::new(
                span,
                format!(
                    "the event {} is named more than once on the {side} of this linked \
                     parallel: each event may be linked once",
                    ev.show(twice[0])
                ),
            ));
        }
    }
    Ok(links)
}

/// The pairs of a renaming or link, each side extended pointwise to
/// complete events: `[[ c <- d ]]` relates every `c.x` to `d.x`.
fn event_pairs(
    ev: &Evaluator,
    pairs: &[(ExprId, ExprId)],
    stmts: &[Stmt],
    frame: &mut Frame,
) -> EvalResult<Vec<(Value, Value)>> {
    let mut out = Vec::new();
    ev.for_each_binding(stmts, Order::Set, frame, &mut |ev, f| {
        for &(a, b) in pairs {
            let span = ev.script().expr(a).span;
            let from = ev.eval_in(a, f)?;
            let to = ev.eval_in(b, f)?;
            if ev.complete(&from) {
                out.push((from, to));
                continue;
            }
            for x in ev.value_extensions(&from, span)? {
                let left = ev.dot_values(from.clone(), x.clone(), span)?;
                let right = ev.dot_values(to.clone(), x, span)?;
                out.push((left, right));
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Walks on (`go`) with `chosen`, a nondeterministic input's value,
/// recorded among the choices made on the way, and forgotten after.
fn with_choice(
    choice: &mut Vec<Value>,
    chosen: Option<Value>,
    go: impl FnOnce(&mut Vec<Value>) -> EvalResult<()>,
) -> EvalResult<()> {
    let recorded = chosen.is_some();
    choice.extend(chosen);
    let walked = go(choice);
    if recorded {
        choice.pop();
    }
    walked
}

/// A nondeterministic input (`$`) at `span` with no value to choose.
fn no_value_to_choose(span: Span) -> EvalError {
    EvalError::new(
        span,
        "a nondeterministic input over no value is not a process",
    )
    .with_note(
        "`c$x : S -> P` is an internal choice over the values of S; FDR rejects it over none, \
         as it does `|~| x : {} @ P`",
    )
}

/// The values an input field tries.
enum Candidates {
    /// Each one field of the event (or the rest of it), from the
    /// channel's type; a restriction is checked on each.
    Extending(Vec<Value>),
    /// The values of a restricting set, in its order.
    Listed(Vec<Value>),
}

impl Candidates {
    fn values(&self) -> &[Value] {
        match self {
            Candidates::Extending(values) | Candidates::Listed(values) => values,
        }
    }
}

/// The parts of a dotted input pattern still to bind.
#[derive(Clone, Copy)]
struct Parts<'a> {
    parts: &'a [Pattern],
    /// The field is the prefix's last.
    last_field: bool,
    nondeterministic: bool,
}

/// The local slots `fields`' inputs bind that `then` reads.
fn input_slots_read(ev: &Evaluator, fields: &[Field], then: ExprId) -> Vec<u32> {
    let mut bound = Vec::new();
    for field in fields {
        if let FieldKind::Input(pattern, _) | FieldKind::NondetInput(pattern, _) = &field.kind {
            pattern.bound_slots(&mut bound);
        }
    }
    let mut read = ev.locals_read(then);
    read.retain(|slot| bound.contains(slot));
    read
}

/// Walks the fields of a prefix left to right, branching at each input.
struct PrefixWalk<'a, 'e> {
    ev: &'a Evaluator<'e>,
    fields: &'a [Field],
    then: ExprId,
    /// The slots the inputs bind that the process after the arrow reads
    /// (the rest of the frame is the same in every branch).
    then_reads: Vec<u32>,
    /// The process after the arrow by the values of those slots: most
    /// inputs bind variables it does not read (`push?t?d -> S(<d> ^ s)`
    /// makes 4 processes for 12 events), and each is made once.
    made: RefCell<FxHashMap<Vec<Value>, Value>>,
    span: Span,
}

impl PrefixWalk<'_, '_> {
    fn walk(
        &self,
        event: Value,
        index: usize,
        frame: &mut Frame,
        choice: &mut Vec<Value>,
        out: &mut Vec<Branch>,
    ) -> EvalResult<()> {
        let ev = self.ev;
        let Some(field) = self.fields.get(index) else {
            return self.finish(event, frame, choice, out);
        };
        match &field.kind {
            FieldKind::Output(e) => {
                let value = ev.eval_in(*e, frame)?;
                let span = ev.script().expr(*e).span;
                let event = ev.dot_values(event, value, span)?;
                self.walk(event, index + 1, frame, choice, out)
            }
            FieldKind::Input(pattern, restriction)
            | FieldKind::NondetInput(pattern, restriction) => {
                let restriction = match restriction {
                    Some(r) => match ev.eval_in(*r, frame)? {
                        Value::Set(s) => Some((s, ev.script().expr(*r).span)),
                        other => {
                            return Err(not_a(ev, *r, "a set of values to input from", &other));
                        }
                    },
                    None => None,
                };
                let nondeterministic = matches!(field.kind, FieldKind::NondetInput(..));
                let last = index + 1 == self.fields.len();
                if let (None, Pattern::Dot(parts)) = (&restriction, pattern) {
                    let parts = Parts {
                        parts,
                        last_field: last,
                        nondeterministic,
                    };
                    return self.walk_parts(event, &parts, index, frame, choice, out);
                }
                // Not the last field, a restricted input inputs from its set,
                // as FDR does: a value there may take several fields
                // (`g?x:{0.1}!0`). An infinite set (`?x:Int`) restricts the
                // channel's values instead.
                let listed = match &restriction {
                    Some((set, _)) if !last => set.as_finite(),
                    _ => None,
                };
                let candidates = match listed {
                    Some(values) => Candidates::Listed(values.to_vec()),
                    None => Candidates::Extending(self.candidates(&event, last)?),
                };
                let mut bound_any = false;
                for value in candidates.values() {
                    // A channel's type may be large: each value is work.
                    ev.tick(1)?;
                    let next = match &candidates {
                        Candidates::Extending(_) => {
                            if restriction
                                .as_ref()
                                .is_some_and(|(s, _)| !ev.contains(s, value))
                            {
                                continue;
                            }
                            ev.dot_values(event.clone(), value.clone(), self.span)?
                        }
                        // Values of the set that do not continue the event
                        // are left out, as they are from a last field.
                        Candidates::Listed(_) => {
                            match ev.dot_values(event.clone(), value.clone(), self.span) {
                                Ok(next) => next,
                                Err(e) if e.stop_reason().is_some() => return Err(e),
                                Err(_) => continue,
                            }
                        }
                    };
                    if !ev.bind(pattern, value, frame)? {
                        continue;
                    }
                    bound_any = true;
                    let chosen = nondeterministic.then(|| value.clone());
                    with_choice(choice, chosen, |choice| {
                        self.walk(next, index + 1, frame, choice, out)
                    })?;
                }
                if !bound_any {
                    let values = candidates.values();
                    let clash = match (&candidates, &restriction) {
                        (Candidates::Extending(_), Some((set, span))) => {
                            set_clash(ev, set, values, *span)
                        }
                        _ => pattern_clash(ev, pattern, values, self.span),
                    };
                    if let Some(clash) = clash {
                        return Err(clash);
                    }
                }
                if nondeterministic && !bound_any {
                    return Err(no_value_to_choose(self.span));
                }
                Ok(())
            }
        }
    }

    /// Every field walked: the branch by the event made, to the process
    /// after the arrow.
    fn finish(
        &self,
        event: Value,
        frame: &mut Frame,
        choice: &[Value],
        out: &mut Vec<Branch>,
    ) -> EvalResult<()> {
        let ev = self.ev;
        if !ev.complete(&event) {
            return Err(EvalError::new(
                self.span,
                format!(
                    "the event {} of this prefix is incomplete: it needs more fields",
                    ev.show(&event)
                ),
            ));
        }
        let key = ev.local_values(frame, &self.then_reads);
        let known = key
            .as_ref()
            .and_then(|key| self.made.borrow().get(key).cloned());
        let mut next = match known {
            Some(next) => next,
            None => {
                let next = process_operand(ev, self.then, frame)?;
                if let Some(key) = key {
                    self.made.borrow_mut().insert(key, next.clone());
                }
                next
            }
        };
        // Branches mostly lead to the same process (`c?x -> P` where
        // `P` does not use `x`): keep one value of it, so that each
        // branch's own copy (which may hold a large set built afresh,
        // `CHAOS({| b |})`) is freed at once, not held until every
        // branch is made.
        if let Some(last) = out.last()
            && last.next == next
        {
            next = last.next.clone();
        }
        out.push(Branch {
            event,
            choice: choice.to_vec(),
            next,
        });
        Ok(())
    }

    /// An input field of dotted parts (`c?x.y?z`, `e?Pk.s`), as FDR takes
    /// it: part by part, each part one field of the event (a part that is
    /// a constructor or a channel is that name), except that the last
    /// part of the prefix's last field takes the whole rest of the event.
    fn walk_parts(
        &self,
        event: Value,
        field: &Parts,
        index: usize,
        frame: &mut Frame,
        choice: &mut Vec<Value>,
        out: &mut Vec<Branch>,
    ) -> EvalResult<()> {
        let ev = self.ev;
        let Some((part, rest)) = field.parts.split_first() else {
            return self.walk(event, index + 1, frame, choice, out);
        };
        let rest = Parts {
            parts: rest,
            ..*field
        };
        // A constructor or channel named in the pattern is part of the
        // event, as FDR takes a name that constructs values.
        let named = match part {
            Pattern::Ctor(ctor, _) => Some(Value::Ctor(*ctor)),
            Pattern::Channel(channel) => Some(Value::Channel(*channel)),
            _ => None,
        };
        if let Some(name) = named {
            let event = ev.dot_values(event, name, self.span)?;
            return self.walk_parts(event, &rest, index, frame, choice, out);
        }
        let mut bound_any = false;
        let candidates = self.candidates(&event, field.last_field && rest.parts.is_empty())?;
        for value in &candidates {
            ev.tick(1)?;
            if !ev.bind(part, value, frame)? {
                continue;
            }
            bound_any = true;
            let next = ev.dot_values(event.clone(), value.clone(), self.span)?;
            let chosen = field.nondeterministic.then(|| value.clone());
            with_choice(choice, chosen, |choice| {
                self.walk_parts(next, &rest, index, frame, choice, out)
            })?;
        }
        if !bound_any && let Some(clash) = pattern_clash(ev, part, &candidates, self.span) {
            return Err(clash);
        }
        if field.nondeterministic && !bound_any {
            return Err(no_value_to_choose(self.span));
        }
        Ok(())
    }

    /// The values an input (or a part of one) ranges over after `event`:
    /// the whole rest of the event when it takes the rest, else the next
    /// field.
    fn candidates(&self, event: &Value, takes_rest: bool) -> EvalResult<Vec<Value>> {
        if takes_rest {
            return self.ev.value_extensions(event, self.span);
        }
        let mut firsts = self.ev.value_first_extensions(event, self.span)?;
        firsts.sort();
        firsts.dedup();
        Ok(firsts)
    }
}

/// The kinds of value an input pattern's name is told apart by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Int,
    Bool,
    Char,
    Data(DataTypeId),
    Event,
    Tuple,
    Seq,
    Set,
    Other,
}

impl ValueKind {
    fn of(script: &crate::script::Script, value: &Value) -> ValueKind {
        let datatype = |ctor: &CtorId| ValueKind::Data(script.ctors[ctor.index()].datatype);
        match value {
            Value::Int(_) => ValueKind::Int,
            Value::Bool(_) => ValueKind::Bool,
            Value::Char(_) => ValueKind::Char,
            Value::Ctor(ctor) => datatype(ctor),
            Value::Named(parts) => match parts.first() {
                Some(Value::Ctor(ctor)) => datatype(ctor),
                _ => ValueKind::Event,
            },
            Value::Channel(_) => ValueKind::Event,
            // The rest of an event (`pair?x` taking `Ten.Red`): its first
            // field decides, so that a pattern of that field's type is
            // not refused.
            Value::Dot(parts) => parts
                .first()
                .map_or(ValueKind::Other, |v| ValueKind::of(script, v)),
            Value::Tuple(_) => ValueKind::Tuple,
            Value::Seq(_) | Value::Stream(_) => ValueKind::Seq,
            Value::Set(_) => ValueKind::Set,
            _ => ValueKind::Other,
        }
    }
}

impl ValueKind {
    /// The kind in words, of one value or of several (`example` names
    /// a kind without words of its own).
    fn describe(self, script: &crate::script::Script, one: bool, example: &Value) -> String {
        let words = match self {
            ValueKind::Int => ("an integer", "integers"),
            ValueKind::Bool => ("a boolean", "booleans"),
            ValueKind::Char => ("a character", "characters"),
            ValueKind::Event => ("a channel", "events"),
            ValueKind::Tuple => ("a tuple", "tuples"),
            ValueKind::Seq => ("a sequence", "sequences"),
            ValueKind::Set => ("a set", "sets"),
            ValueKind::Data(d) => {
                let name = &script.datatypes[d.index()].name;
                return if one {
                    format!("a value of datatype {name}")
                } else {
                    format!("values of datatype {name}")
                };
            }
            ValueKind::Other if one => return example.kind_name().to_string(),
            ValueKind::Other => return "values of another kind".to_string(),
        };
        if one { words.0 } else { words.1 }.to_string()
    }
}

/// What the values an input ranges over are, when none is of `kind`
/// (`, but the values input here are ... (such as ...)`): an input
/// naming a value, or a set, of another type than its channel carries.
/// FDR's type checker refuses it, where matching would silently offer
/// nothing.
fn other_kind(ev: &Evaluator, kind: ValueKind, values: &[Value]) -> Option<String> {
    let script = ev.script();
    let first = values.first()?;
    if values.iter().any(|v| ValueKind::of(script, v) == kind) {
        return None;
    }
    Some(format!(
        ", but the values input here are {} (such as {})",
        ValueKind::of(script, first).describe(script, false, first),
        ev.show(first)
    ))
}

/// The error of an input pattern that names a value of another kind
/// than any the input ranges over (`insert?c` with `c` a channel,
/// `c?Red` with `Red` of another datatype, `n?true` on numbers).
fn pattern_clash(
    ev: &Evaluator,
    pattern: &Pattern,
    values: &[Value],
    span: Span,
) -> Option<EvalError> {
    let script = ev.script();
    let (named, note) = match pattern {
        Pattern::Int(n) => (Value::Int(*n), "FDR reports a type error here"),
        Pattern::Bool(b) => (Value::Bool(*b), "FDR reports a type error here"),
        Pattern::Char(c) => (Value::Char(*c), "FDR reports a type error here"),
        Pattern::Ctor(ctor, _) => (Value::Ctor(*ctor), NAMED_IN_PATTERN),
        Pattern::Channel(channel) => (Value::Channel(*channel), NAMED_IN_PATTERN),
        _ => return None,
    };
    let kind = ValueKind::of(script, &named);
    let tail = other_kind(ev, kind, values)?;
    let message = format!(
        "this input's pattern `{}` is {}{tail}: it can match none of them",
        ev.show(&named),
        kind.describe(script, true, &named)
    );
    Some(EvalError::new(span, message).with_note(note))
}

const NAMED_IN_PATTERN: &str = "a channel or constructor named in an input pattern stands for \
                                that value; it does not bind a variable (FDR reports a type \
                                error here)";

/// The error of an input restricted to a set of another kind than any
/// the input ranges over (`insert?x:{Red}` on a channel of coins).
fn set_clash(ev: &Evaluator, set: &Set, values: &[Value], span: Span) -> Option<EvalError> {
    let script = ev.script();
    let first = set.as_finite()?.first()?;
    let kind = ValueKind::of(script, first);
    let tail = other_kind(ev, kind, values)?;
    let message = format!(
        "this input's set holds {} (such as {}){tail}: none of them can be input here",
        kind.describe(script, false, first),
        ev.show(first)
    );
    Some(EvalError::new(span, message).with_note("FDR reports a type error here"))
}

/// A process operand, evaluated; refused at its own place when it is
/// something else (`a -> STOP [] 3` points at the `3`).
fn process_operand(ev: &Evaluator, e: ExprId, frame: &mut Frame) -> EvalResult<Value> {
    match ev.eval_in(e, frame)? {
        value @ Value::Proc(_) => Ok(value),
        other => Err(not_a(ev, e, "a process", &other)),
    }
}

/// An event-set operand, evaluated; refused at its own place when it is
/// not a set (`P \ a`). Its elements are checked as events when the
/// operator's term is made.
fn set_operand(ev: &Evaluator, e: ExprId, frame: &mut Frame) -> EvalResult<Value> {
    match ev.eval_in(e, frame)? {
        value @ Value::Set(_) => Ok(value),
        other => Err(super::not_an_event_set(
            ev,
            &other,
            ev.script().expr(e).span,
        )),
    }
}

fn not_a(ev: &Evaluator, e: ExprId, what: &str, got: &Value) -> EvalError {
    EvalError::new(
        ev.script().expr(e).span,
        format!("expected {what}, but this is {}", got.kind_name()),
    )
    .with_note(format!("its value is {}", ev.show(got)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Proc;
    use crate::script::Script;

    /// The branches of the prefix that constant process `root` is.
    fn prefix_branches(ev: &Evaluator, root: FuncId) -> Vec<Branch> {
        let Value::Proc(proc) = ev.eval_constant(root).expect("evaluates") else {
            panic!("a process");
        };
        let Proc::Node { func, vars } = &*proc else {
            panic!("a prefix of the script");
        };
        match unfold(ev, *func, vars).expect("unfolds") {
            Operator::Prefix { branches, .. } => branches,
            _ => panic!("a prefix"),
        }
    }

    /// `w?x -> CHAOS({| b |})` builds the set afresh for each `x`; the
    /// branches keep one value of their equal continuations, so the
    /// copies are freed as they are made (they used to be held until every
    /// branch was made: 822 MB for 2 000 values of `x` and of `b`).
    #[test]
    fn equal_continuations_of_a_prefix_share_one_value() {
        let text = "channel w, b : {0..49}\nP = w?x -> CHAOS({| b |})\nQ = w?x -> b.x -> STOP\n";
        let mut script = Script::load_str("prefix.csp", text).expect("loads");
        let roots = ["P", "Q"].map(|p| script.add_expr("<process>", p).expect("resolves"));
        let ev = Evaluator::new(&script);
        let branches = |root| prefix_branches(&ev, root);
        let same = |a: &Value, b: &Value| match (a, b) {
            (Value::Proc(a), Value::Proc(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        };
        let p = branches(roots[0]);
        assert_eq!(p.len(), 50);
        assert!(p.windows(2).all(|w| same(&w[0].next, &w[1].next)));
        // Different continuations stay apart.
        let q = branches(roots[1]);
        assert_eq!(q.len(), 50);
        assert!(q.windows(2).all(|w| w[0].next != w[1].next));
    }

    /// An input that is not the last of its prefix ranges over the first
    /// parts of the extensions, found without building the extensions:
    /// the same values, in the same order, as taking them from the
    /// extensions built in full; and the prefixes over such fields branch
    /// once per complete event.
    #[test]
    fn first_parts_of_extensions_are_those_of_the_extensions_built() {
        let text = "datatype T = Pair.{0..1}.{0..1} | Single | Tri.Bool\n\
                    channel a : {0..2}.Bool.{0..1}\nchannel b : T.{0..2}\n\
                    channel d : {0..3}\nchannel e : T\nchannel f : {(0, 1), (1, 2)}.Bool\n\
                    P = b?x?y -> STOP\nQ = b.Pair?x?y?z -> STOP\nR = a?x?y!1 -> STOP\n";
        let partial = [
            "a",
            "a.1",
            "a.1.true",
            "b",
            "b.Pair",
            "b.Pair.0",
            "b.Pair.0.1",
            "b.Single",
            "b.Tri",
            "d",
            "d.1",
            "e",
            "e.Tri",
            "f",
            "f.(0, 1)",
        ];
        let mut script = Script::load_str("firsts.csp", text).expect("loads");
        let values: Vec<_> = partial
            .iter()
            .map(|v| script.add_expr("<value>", v).expect("resolves"))
            .collect();
        let procs = ["P", "Q", "R"].map(|p| script.add_expr("<process>", p).expect("resolves"));
        let ev = Evaluator::new(&script);
        let span = Span::default();
        for (text, &id) in partial.iter().zip(&values) {
            let v = ev.eval_constant(id).expect("evaluates");
            let mut built: Vec<Value> = ev
                .value_extensions(&v, span)
                .expect("extends")
                .into_iter()
                .map(|rest| match rest {
                    Value::Dot(parts) => parts[0].clone(),
                    single => single,
                })
                .collect();
            built.dedup();
            let mut firsts = ev.value_first_extensions(&v, span).expect("extends");
            firsts.dedup();
            assert_eq!(firsts, built, "the first parts of the extensions of {text}");
        }
        let b = ev.eval_constant(values[3]).expect("evaluates");
        let firsts = ev.value_first_extensions(&b, span).expect("extends");
        let shown: Vec<String> = firsts.iter().map(|v| ev.show(v)).collect();
        assert_eq!(
            shown,
            [
                "Single",
                "Pair.0.0",
                "Pair.0.1",
                "Pair.1.0",
                "Pair.1.1",
                "Tri.false",
                "Tri.true"
            ],
            "the values of T in their set order, once each"
        );
        for (&root, branches) in procs.iter().zip([21, 12, 6]) {
            assert_eq!(prefix_branches(&ev, root).len(), branches);
        }
    }
}

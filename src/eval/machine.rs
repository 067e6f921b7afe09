//! The evaluation loop: calls, `if`, `let`, `and`/`or` and every
//! expression made from operands (applications, operators, dotted values,
//! tuples, sequences, sets, maps), evaluated with an explicit stack of
//! continuations on the heap rather than by native recursion.
//!
//! A nested CSPM call therefore costs one [`Kont::Return`] record and the
//! callee's frame, not kilobytes of native stack, and a call in tail
//! position (the continuation below it is the running call's return)
//! replaces the running call instead of nesting. The rarer constructs
//! (comprehensions, ranges, lambdas, process expressions, `let` constants)
//! are evaluated by `interp`, which re-enters the loop for their parts:
//! only recursion through them nests natively, on a stack grown on the
//! heap as needed.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::script::Script;
use crate::script::ir::{ExprId, ExprKind, FuncId};
use crate::syntax::Span;
use crate::syntax::ast::BinaryOp;

use super::error::SHOWN_FRAMES;
use super::interp::{Applied, Frame, Runaway};
use super::value::{Env, Set, Slot, Value};
use super::{EvalError, EvalResult, Evaluator};

use smallvec::SmallVec;

/// Stack the evaluator keeps free before it nests natively; below it, the
/// native stack grows by another segment on the heap.
const RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 16 * 1024 * 1024;

/// Native levels charged to the memory budget at a time, and what they
/// cost: a level takes about 3.5 KB of stack in a release build.
const CHARGED_LEVELS: usize = 1024;
const CHARGE: i64 = CHARGED_LEVELS as i64 * 4096;

/// Spare local-slot vectors kept for reuse by the next calls.
const SPARE_FRAMES: usize = 64;

/// Spare sets of stacks kept for the next runs: enough for runs nested a
/// few deep (through comprehensions, say), not one per level of a deep
/// native recursion.
const SPARE_STACKS: usize = 16;

/// The loop's stacks, kept by the evaluator between runs so that a run
/// allocates nothing once they have grown.
#[derive(Default)]
pub(super) struct Stacks {
    konts: Vec<Kont>,
    /// Operands evaluated so far, of every [`Kont::Operands`] pending.
    values: Vec<Value>,
    spare_locals: Vec<Vec<Slot>>,
}

/// What is left to do with the value being computed.
enum Kont {
    /// `expr`'s operands from `base` on the value stack are done; the one
    /// before `next` is being evaluated.
    Operands { expr: ExprId, next: u32, base: u32 },
    /// The condition of `if cond then .. else ..` is being evaluated.
    Branch {
        cond: ExprId,
        then_branch: ExprId,
        else_branch: ExprId,
    },
    /// The left operand of `and` or `or` is being evaluated.
    ShortCircuit {
        op: BinaryOp,
        left: ExprId,
        right: ExprId,
    },
    /// The right operand of `and` or `or`: its value, a boolean, is the
    /// result.
    Boolean(ExprId),
    /// The running call returns to its caller.
    Return(Caller),
}

/// What a call returns to: the caller's frame and, if the caller is
/// itself a call of this loop, its record.
struct Caller {
    frame: Frame,
    call: Option<Call>,
}

/// A call in progress, for the stack of a diagnostic.
struct Call {
    func: FuncId,
    /// All its arguments, the groups one after another.
    args: Vec<Value>,
    /// The calls this one replaced by tail calls: the last few of them,
    /// and how many in all. A diagnostic shows them as if they had nested.
    replaced: VecDeque<(FuncId, Vec<Value>)>,
    replaced_count: usize,
}

impl Call {
    /// Adds this call to the stack of error `e`: the call itself, then the
    /// calls it replaced, most recent first, the rest counted.
    #[cold]
    fn add_to(self, mut e: EvalError, ev: &Evaluator) -> EvalError {
        e = e.in_call(|| ev.describe_call(self.func, &self.args));
        for (func, args) in self.replaced.iter().rev() {
            e = e.in_call(|| ev.describe_call(*func, args));
        }
        e.more_calls += self.replaced_count - self.replaced.len();
        e
    }
}

/// The loop's next step.
enum Control {
    Eval(ExprId),
    Value(Value),
    Call {
        func: FuncId,
        env: Env,
        args: Vec<Value>,
        span: Span,
    },
}

impl Evaluator<'_> {
    /// The value of expression `id` in `frame`.
    pub(super) fn eval(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Value> {
        // Common in guards, events and comprehension bodies: no need to
        // start the loop unless the expression turns out to be a call.
        let start = match self.quick(id, frame) {
            Some(applied) => match applied? {
                Applied::Value(value) => return Ok(value),
                call => control(call, self.span(id)),
            },
            None => Control::Eval(id),
        };
        self.run(start, frame)
    }

    /// `id` evaluated at once when it is a leaf or made from leaves (see
    /// [`has_operands`]): its value, or the call it comes to. `None` for
    /// anything else, which needs the loop.
    ///
    /// Most operands, conditions and arguments are of this shape (`n - 1`,
    /// `x == 0`, `c.x`); taking them here spares the loop a continuation
    /// and a round trip each.
    #[inline]
    fn quick(&self, id: ExprId, frame: &Frame) -> Option<EvalResult<Applied>> {
        match self.shapes[id.index()] {
            Shape::Leaf => return Some(self.leaf(id, frame).map(Applied::Value)),
            Shape::OfLeaves => {}
            Shape::Other => return None,
        }
        let expr = self.script.expr(id);
        if let ExprKind::Binary(op, a, b) = expr.kind {
            // The commonest of all (`n - 1`, `x == y`): no operand list.
            let operands = self
                .leaf(a, frame)
                .and_then(|x| Ok((x, self.leaf(b, frame)?)));
            return Some(operands.and_then(|(x, y)| {
                self.combine(op, x, y, (a, b), expr.span)
                    .map(Applied::Value)
            }));
        }
        let mut values = SmallVec::<[Value; 4]>::new();
        for e in operands(&expr.kind) {
            match self.leaf(e, frame) {
                Ok(value) => values.push(value),
                Err(e) => return Some(Err(e)),
            }
        }
        Some(self.combine_operands(id, values.into_iter()))
    }

    /// The value of expression `id` from the values of its operands (see
    /// [`has_operands`]), in order: or, for an application, the call to
    /// make.
    fn combine_operands(
        &self,
        id: ExprId,
        mut values: impl Iterator<Item = Value>,
    ) -> EvalResult<Applied> {
        let expr = self.script.expr(id);
        let span = expr.span;
        let mut next = || values.next().expect("a value per operand");
        let value = match &expr.kind {
            ExprKind::App(..) => {
                let f = next();
                return self.resolve(&f, values.collect(), span);
            }
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (next(), next());
                self.combine(*op, x, y, (*a, *b), span)?
            }
            ExprKind::Dot(..) => {
                let (a, b) = (next(), next());
                self.dot(a, b, span)?
            }
            ExprKind::Unary(op, _) => self.unary(*op, next(), span)?,
            ExprKind::Tuple(_) => Value::Tuple(values.collect()),
            ExprKind::Seq(_) => Value::seq(values.collect()),
            ExprKind::Set(_) => {
                let elements: Vec<Value> = values.collect();
                self.check_set_elements(&elements, span)?;
                Value::set(Set::from_values(elements))
            }
            ExprKind::Map(_) => {
                let mut map = BTreeMap::new();
                while let (Some(k), Some(v)) = (values.next(), values.next()) {
                    self.check_key(&k, span)?;
                    map.insert(k, v);
                }
                Value::Map(Arc::new(map))
            }
            _ => unreachable!("only expressions with operands are combined"),
        };
        Ok(Applied::Value(value))
    }

    /// The value of a leaf (see [`ExprKind::is_leaf`]).
    #[inline]
    fn leaf(&self, id: ExprId, frame: &Frame) -> EvalResult<Value> {
        let expr = self.script.expr(id);
        match &expr.kind {
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Char(c) => Ok(Value::Char(*c)),
            ExprKind::String(s) => Ok(Value::string(s)),
            ExprKind::Var(r) => match self.slot(*r, frame) {
                Slot::Value(v) => Ok(v.clone()),
                slot => self.force(slot, expr.span),
            },
            ExprKind::Global(g) => self.global(*g),
            ExprKind::Ctor(c) => Ok(Value::Ctor(*c)),
            ExprKind::Channel(c) => Ok(Value::Channel(*c)),
            _ => unreachable!("not a leaf"),
        }
    }

    /// Runs the loop from `control` until its value is known.
    fn run(&self, control: Control, frame: &mut Frame) -> EvalResult<Value> {
        let stacks = self.stacks.borrow_mut().pop().unwrap_or_default();
        let mut machine = Machine {
            ev: self,
            stacks,
            call: None,
        };
        let result = match machine.drive(control, frame) {
            Ok(value) => Ok(value),
            Err(e) => Err(machine.unwind(e, frame)),
        };
        let mut spare = self.stacks.borrow_mut();
        if spare.len() < SPARE_STACKS {
            spare.push(machine.stacks);
        }
        result
    }

    /// Runs `f`, an evaluation of the expression at `span` that nests
    /// natively (see the module's documentation), first growing the
    /// native stack if it runs low. Past the limit of such levels it
    /// stops instead.
    pub(super) fn nested<T>(&self, span: Span, f: impl FnOnce() -> EvalResult<T>) -> EvalResult<T> {
        let depth = self.native_depth.get();
        if depth >= self.limits.native_levels {
            return Err(self.runaway(Runaway::NativeLevels, None, span));
        }
        // The native stack lies outside the heap the allocator counts:
        // every [`CHARGED_LEVELS`] levels are charged to the memory
        // budget as they are entered, and asked about.
        let charged = (depth + 1).is_multiple_of(CHARGED_LEVELS);
        if charged {
            crate::budget::memory::charge_stack(CHARGE);
            if let Err(stop) = self.meter().may_allocate(0) {
                crate::budget::memory::charge_stack(-CHARGE);
                return Err(self.stopped(stop));
            }
        }
        self.native_depth.set(depth + 1);
        let result = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, f);
        self.native_depth.set(depth);
        if charged {
            crate::budget::memory::charge_stack(-CHARGE);
        }
        result
    }
}

/// One run of the loop.
struct Machine<'e, 's> {
    ev: &'e Evaluator<'s>,
    stacks: Stacks,
    /// The call whose body is being evaluated; `None` at the bottom of the
    /// run (an expression of the frame the run started in).
    call: Option<Call>,
}

impl Machine<'_, '_> {
    fn drive(&mut self, mut control: Control, frame: &mut Frame) -> EvalResult<Value> {
        loop {
            control = match control {
                Control::Eval(id) => self.start(id, frame)?,
                Control::Value(value) => {
                    if self.stacks.konts.is_empty() {
                        return Ok(value);
                    }
                    self.resume(value, frame)?
                }
                Control::Call {
                    func,
                    env,
                    args,
                    span,
                } => self.enter(func, env, args, span, frame)?,
            }
        }
    }

    /// Begins evaluating `id`.
    fn start(&mut self, id: ExprId, frame: &mut Frame) -> EvalResult<Control> {
        let ev = self.ev;
        if ev.shapes[id.index()] == Shape::Leaf {
            return ev.leaf(id, frame).map(Control::Value);
        }
        let kind = &ev.script.expr(id).kind;
        match kind {
            ExprKind::If(cond, then_branch, else_branch) => self.descend(
                *cond,
                ev.quick(*cond, frame),
                Kont::Branch {
                    cond: *cond,
                    then_branch: *then_branch,
                    else_branch: *else_branch,
                },
            ),
            ExprKind::Let(groups, body) => {
                ev.bind_let(groups, frame);
                Ok(Control::Eval(*body))
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), left, right) => self.descend(
                *left,
                ev.quick(*left, frame),
                Kont::ShortCircuit {
                    op: *op,
                    left: *left,
                    right: *right,
                },
            ),
            _ if has_operands(kind) => {
                let base = self.stacks.values.len();
                self.evaluate_operands(id, 0, base, frame)
            }
            _ => ev
                .nested(ev.span(id), || ev.eval_other(id, frame))
                .map(Control::Value),
        }
    }

    /// Goes on to evaluate `e` under continuation `kont`, given what
    /// [`Evaluator::quick`] made of it: its value or call at once, else
    /// the loop evaluates it.
    fn descend(
        &mut self,
        e: ExprId,
        quick: Option<EvalResult<Applied>>,
        kont: Kont,
    ) -> EvalResult<Control> {
        let next = match quick {
            Some(applied) => control(applied?, self.ev.span(e)),
            None => Control::Eval(e),
        };
        self.stacks.konts.push(kont);
        Ok(next)
    }

    /// Hands `value` to the continuation on top of the stack.
    fn resume(&mut self, value: Value, frame: &mut Frame) -> EvalResult<Control> {
        let ev = self.ev;
        if let Some(&Kont::Operands { expr, next, base }) = self.stacks.konts.last() {
            self.stacks.konts.pop();
            self.stacks.values.push(value);
            return self.evaluate_operands(expr, next as usize, base as usize, frame);
        }
        let boolean = |e: ExprId, value: &Value| match value {
            Value::Bool(b) => Ok(*b),
            other => Err(ev.expected(e, "a boolean", other)),
        };
        Ok(match self.stacks.konts.pop() {
            Some(Kont::Branch {
                cond,
                then_branch,
                else_branch,
            }) => Control::Eval(if boolean(cond, &value)? {
                then_branch
            } else {
                else_branch
            }),
            Some(Kont::ShortCircuit { op, left, right }) => {
                // `and` goes on to its right operand when the left is
                // true, `or` when it is false.
                if boolean(left, &value)? == (op == BinaryOp::And) {
                    self.stacks.konts.push(Kont::Boolean(right));
                    Control::Eval(right)
                } else {
                    Control::Value(value)
                }
            }
            Some(Kont::Boolean(e)) => {
                boolean(e, &value)?;
                Control::Value(value)
            }
            Some(Kont::Return(caller)) => {
                self.leave(caller, frame);
                Control::Value(value)
            }
            Some(Kont::Operands { .. }) | None => unreachable!("handled above"),
        })
    }

    /// Evaluates the operands of `id` from operand `next` on, onto the
    /// value stack above `base`: leaves at once, and for any other the
    /// loop is told to evaluate it, under a continuation that comes back
    /// here. With all of them, `id` is finished.
    fn evaluate_operands(
        &mut self,
        id: ExprId,
        next: usize,
        base: usize,
        frame: &Frame,
    ) -> EvalResult<Control> {
        let ev = self.ev;
        let kind = &ev.script.expr(id).kind;
        let mut i = next;
        while let Some(e) = operand(kind, i) {
            i += 1;
            match ev.quick(e, frame) {
                Some(Ok(Applied::Value(value))) => self.stacks.values.push(value),
                quick => {
                    let waiting = Kont::Operands {
                        expr: id,
                        next: i as u32,
                        base: base as u32,
                    };
                    return self.descend(e, quick, waiting);
                }
            }
        }
        self.finish(id, base)
    }

    /// Combines the operands of `id`, on the value stack from `base`.
    fn finish(&mut self, id: ExprId, base: usize) -> EvalResult<Control> {
        let operands = self.stacks.values.drain(base..);
        let applied = self.ev.combine_operands(id, operands)?;
        Ok(control(applied, self.ev.span(id)))
    }

    /// Makes a call: the first clause of `func` whose patterns match runs
    /// in a fresh frame, or in place of the running call when this one is
    /// in tail position. Either way it counts towards the call limit.
    fn enter(
        &mut self,
        func: FuncId,
        env: Env,
        args: Vec<Value>,
        span: Span,
        frame: &mut Frame,
    ) -> EvalResult<Control> {
        let ev = self.ev;
        ev.tick(1)?;
        let depth = ev.depth.get();
        let in_tail_position = matches!(self.stacks.konts.last(), Some(Kont::Return(_)));
        let call = match (&mut self.call, in_tail_position) {
            (Some(call), true) => {
                if call.replaced_count >= ev.limits.tail_calls {
                    return Err(ev.runaway(Runaway::TailCalls, Some(func), span));
                }
                if call.replaced.len() == SHOWN_FRAMES {
                    call.replaced.pop_front();
                }
                let replaced = std::mem::replace(&mut call.args, args);
                call.replaced.push_back((call.func, replaced));
                call.replaced_count += 1;
                call.func = func;
                call
            }
            _ => {
                if depth >= ev.limits.nested_calls {
                    return Err(ev.runaway(Runaway::NestedCalls, Some(func), span));
                }
                ev.depth.set(depth + 1);
                let locals = self.stacks.spare_locals.pop().unwrap_or_default();
                let callee = Frame {
                    env: env.clone(),
                    locals,
                };
                let caller = Caller {
                    frame: std::mem::replace(frame, callee),
                    call: self.call.take(),
                };
                self.stacks.konts.push(Kont::Return(caller));
                self.call.insert(Call {
                    func,
                    args,
                    replaced: VecDeque::new(),
                    replaced_count: 0,
                })
            }
        };
        let body = ev.select_clause(func, &env, &call.args, frame, span)?;
        Ok(Control::Eval(body))
    }

    /// Returns from the running call to `caller`.
    fn leave(&mut self, caller: Caller, frame: &mut Frame) {
        self.ev.depth.set(self.ev.depth.get() - 1);
        let mut finished = std::mem::replace(frame, caller.frame);
        self.call = caller.call;
        if self.stacks.spare_locals.len() < SPARE_FRAMES {
            finished.locals.clear();
            self.stacks.spare_locals.push(finished.locals);
        }
    }

    /// Leaves every call of this run after error `e`, naming each in the
    /// error's stack, and gives `frame` back to the run's caller.
    fn unwind(&mut self, mut e: EvalError, frame: &mut Frame) -> EvalError {
        while let Some(kont) = self.stacks.konts.pop() {
            if let Kont::Return(caller) = kont {
                if let Some(call) = self.call.take() {
                    e = call.add_to(e, self.ev);
                }
                self.leave(caller, frame);
            }
        }
        self.stacks.values.clear();
        e
    }
}

/// What the loop does with an application's outcome.
fn control(applied: Applied, span: Span) -> Control {
    match applied {
        Applied::Value(value) => Control::Value(value),
        Applied::Call { func, env, args } => Control::Call {
            func,
            env,
            args,
            span,
        },
    }
}

/// How an expression is evaluated, worked out once per script so that
/// the loop need not inspect operands again at every evaluation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// See [`ExprKind::is_leaf`].
    Leaf,
    /// Made from operands (see [`has_operands`]), all of them leaves.
    OfLeaves,
    Other,
}

/// The shape of each expression of `script`, by [`ExprId`].
pub(super) fn shapes(script: &Script) -> Box<[Shape]> {
    let leaf = |e: ExprId| script.expr(e).kind.is_leaf();
    script
        .exprs
        .iter()
        .map(|expr| {
            if expr.kind.is_leaf() {
                Shape::Leaf
            } else if has_operands(&expr.kind) && operands(&expr.kind).all(leaf) {
                Shape::OfLeaves
            } else {
                Shape::Other
            }
        })
        .collect()
}

/// Whether an expression is made from operands, all evaluated in order
/// and then combined (an application's first operand is the function).
/// `and` and `or` are not: their right operand is evaluated only when the
/// left does not decide.
fn has_operands(kind: &ExprKind) -> bool {
    match kind {
        ExprKind::Binary(op, ..) => !matches!(op, BinaryOp::And | BinaryOp::Or),
        ExprKind::App(..)
        | ExprKind::Dot(..)
        | ExprKind::Unary(..)
        | ExprKind::Tuple(_)
        | ExprKind::Seq(_)
        | ExprKind::Set(_)
        | ExprKind::Map(_) => true,
        _ => false,
    }
}

/// The operands of an expression, in evaluation order.
fn operands(kind: &ExprKind) -> impl Iterator<Item = ExprId> + '_ {
    (0..).map_while(move |i| operand(kind, i))
}

/// Operand `i` of an expression made from operands, in evaluation order.
#[inline]
fn operand(kind: &ExprKind, i: usize) -> Option<ExprId> {
    match kind {
        ExprKind::App(f, args) => match i {
            0 => Some(*f),
            _ => args.get(i - 1).copied(),
        },
        ExprKind::Binary(_, a, b) | ExprKind::Dot(a, b) => [*a, *b].get(i).copied(),
        ExprKind::Unary(_, a) => (i == 0).then_some(*a),
        ExprKind::Tuple(es) | ExprKind::Seq(es) | ExprKind::Set(es) => es.get(i).copied(),
        ExprKind::Map(pairs) => pairs
            .get(i / 2)
            .map(|(k, v)| if i.is_multiple_of(2) { *k } else { *v }),
        _ => None,
    }
}

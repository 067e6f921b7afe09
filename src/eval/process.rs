//! What the process layer may ask of the evaluator: the frame of a process
//! state (its function run over the state's variables), evaluation of the
//! operator's operands in that frame, pattern binding for inputs and
//! replicated operators, and the dot rules that build events.

use crate::script::ir::{ChannelId, ExprId, FuncId, Pattern, Stmt, VarRef};
use crate::syntax::Span;

use super::interp::{Frame, Order, env_of};
use super::value::{Set, Slot, Value};
use super::{EvalResult, Evaluator};

impl Evaluator<'_> {
    /// The frame in which the body of process function `func` runs for a
    /// state whose variables are `vars`.
    pub fn state_frame(&self, func: FuncId, vars: &[Value]) -> Frame {
        Frame::new(env_of(vars), self.script.function(func).frame_size)
    }

    /// Evaluates an expression of a process function's body.
    pub fn eval_in(&self, e: ExprId, frame: &mut Frame) -> EvalResult<Value> {
        self.eval(e, frame)
    }

    /// The local slots of the running frame that `e` can read, sorted:
    /// with the captured variables, all its value can depend on. Slots
    /// `e` binds itself count too, which only makes the answer larger.
    pub fn locals_read(&self, e: ExprId) -> Vec<u32> {
        let script = self.script();
        let mut slots = Vec::new();
        let mut pending = vec![e];
        while let Some(e) = pending.pop() {
            let kind = &script.expr(e).kind;
            kind.for_each_var(|r| {
                if let VarRef::Local(n) = r {
                    slots.push(n);
                }
            });
            kind.for_each_child(|child| pending.push(child));
        }
        slots.sort_unstable();
        slots.dedup();
        slots
    }

    /// The values in local slots `slots` of `frame`, or `None` if one
    /// holds something else (a `let` not yet evaluated): a key for what
    /// an expression reading only those slots evaluates to.
    pub fn local_values(&self, frame: &Frame, slots: &[u32]) -> Option<Vec<Value>> {
        slots
            .iter()
            .map(|&n| match self.slot(VarRef::Local(n), frame) {
                Slot::Value(v) => Some(v.clone()),
                _ => None,
            })
            .collect()
    }

    /// Whether `value` matches `pattern`, binding its variables in `frame`.
    pub fn bind(&self, pattern: &Pattern, value: &Value, frame: &mut Frame) -> EvalResult<bool> {
        self.matches(pattern, value, frame)
    }

    /// Runs `body` once per binding of comprehension statements, in order
    /// (generators of an [`Order::Sequence`] operator must draw from
    /// sequences).
    pub fn for_each_binding(
        &self,
        stmts: &[Stmt],
        order: Order,
        frame: &mut Frame,
        body: &mut dyn FnMut(&Self, &mut Frame) -> EvalResult<()>,
    ) -> EvalResult<()> {
        self.comprehend(stmts, order, frame, body)
    }

    /// `a.b` by FDR's dot rules.
    pub fn dot_values(&self, a: Value, b: Value, span: Span) -> EvalResult<Value> {
        self.dot(a, b, span)
    }

    /// Every `x` such that `v.x` is complete (nothing when `v` is).
    pub fn value_extensions(&self, v: &Value, span: Span) -> EvalResult<Vec<Value>> {
        self.extensions(v, span)
    }

    /// The first part of every `x` such that `v.x` is complete, in
    /// order, without building the `x`s (a first part is given once, not
    /// once for each way to go on from it).
    pub fn value_first_extensions(&self, v: &Value, span: Span) -> EvalResult<Vec<Value>> {
        self.first_extensions(v, span)
    }

    /// Whether a value needs no more fields.
    pub fn complete(&self, v: &Value) -> bool {
        self.is_complete(v)
    }

    /// The complete events of one channel; an error at the channel's
    /// declaration if its type is infinite.
    pub fn channel_events(&self, channel: ChannelId) -> EvalResult<Vec<Value>> {
        let span = self.script.channels[channel.index()].span;
        self.productions(&Value::Channel(channel), span)
    }

    /// The elements of a finite set, or an error naming `span`.
    pub fn elements<'a>(&self, set: &'a Set, span: Span) -> EvalResult<&'a [Value]> {
        self.enumerate(set, span)
    }

    /// Set membership, including the infinite symbolic sets.
    pub fn contains(&self, set: &Set, v: &Value) -> bool {
        self.member(v, set)
    }
}

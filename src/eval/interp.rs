//! Expression evaluation: frames, variables, calls, `let`, comprehensions
//! and the operators of the functional language.

use std::sync::Arc;

use crate::script::ir::{
    ExprId, ExprKind, FuncId, FunctionKind, GlobalId, GlobalKind, LetGroup, Stmt, VarRef,
};
use crate::syntax::Span;
use crate::syntax::ast::{BinaryOp, UnaryOp};

use super::arith::arithmetic;
use super::error::{overflow, truncate};
use super::value::{Closure, Env, Proc, Set, Slot, Thunk, Value};
use super::{EvalError, EvalResult, Evaluator, MAX_ELEMENTS};

mod collections;

/// Values an operation goes through per step of work it counts (a call
/// is one step, about as long as copying this many values).
const ELEMENTS_PER_STEP: usize = 64;

/// The storage of one running function: its captured environment and its
/// own slots.
pub struct Frame {
    pub(super) env: Env,
    pub(super) locals: Vec<Slot>,
}

impl Frame {
    pub(super) fn new(env: Env, size: u32) -> Frame {
        Frame {
            env,
            locals: vec![Slot::Empty; size as usize],
        }
    }

    /// Makes the frame fresh for a function with environment `env` and
    /// `size` slots, keeping its allocation.
    fn reset(&mut self, env: &Env, size: u32) {
        if !Arc::ptr_eq(&self.env, env) {
            self.env = env.clone();
        }
        let size = size as usize;
        if self.locals.len() == size {
            // The same function again (a loop, or its next clause): only
            // the slots that were bound need clearing.
            for slot in &mut self.locals {
                if !matches!(slot, Slot::Empty) {
                    *slot = Slot::Empty;
                }
            }
        } else {
            self.locals.clear();
            self.locals.resize_with(size, || Slot::Empty);
        }
    }
}

/// Which of the [`Limits`](super::Limits) a recursion ran into.
#[derive(Debug, Clone, Copy)]
pub(super) enum Runaway {
    NestedCalls,
    NativeLevels,
    TailCalls,
}

/// What applying a function value comes to.
pub(super) enum Applied {
    Value(Value),
    /// A call to make: all the function's arguments, group after group.
    Call {
        func: FuncId,
        env: Env,
        args: Vec<Value>,
    },
}

impl Evaluator<'_> {
    pub(super) fn span(&self, e: ExprId) -> Span {
        self.script.expr(e).span
    }

    // ------------------------------------------------------------ globals

    /// The value of a top-level name.
    pub fn global(&self, id: GlobalId) -> EvalResult<Value> {
        if let Some(v) = self.shared.globals[id.index()].get() {
            return Ok(v.clone());
        }
        let global = &self.script.globals[id.index()];
        let value = match &global.kind {
            GlobalKind::Definition(func) => {
                let function = self.script.function(*func);
                if function.kind != FunctionKind::Constant {
                    // Made once: every call through the name shares it.
                    let closure = || self.closure(*func, Arc::from([]));
                    return Ok(self.shared.globals[id.index()].get_or_init(closure).clone());
                }
                if self.forcing[id.index()].replace(true) {
                    return Err(EvalError::new(
                        global.span,
                        format!("`{}` is defined in terms of itself", global.name),
                    ));
                }
                let result = self.call_constant(*func, Arc::from([]));
                self.forcing[id.index()].set(false);
                result?
            }
            GlobalKind::Builtin(b) => self.builtin_value(*b, global.span)?,
            GlobalKind::DataType(d) => self.datatype_set(*d)?,
            GlobalKind::SubType(clauses) => self.subtype_set(clauses, global.span)?,
            GlobalKind::NameType(func) => self.call_constant(*func, Arc::from([]))?,
        };
        Ok(self.shared.globals[id.index()]
            .get_or_init(|| value)
            .clone())
    }

    pub(super) fn closure(&self, func: FuncId, env: Env) -> Value {
        Value::Closure(Arc::new(Closure {
            func,
            env,
            applied: Vec::new(),
            groups: 0,
        }))
    }

    // ------------------------------------------------------------ calls

    /// Runs a function without parameters in environment `env`.
    pub(super) fn call_constant(&self, func: FuncId, env: Env) -> EvalResult<Value> {
        let function = self.script.function(func);
        let mut frame = Frame::new(env, function.frame_size);
        let body = function.clauses[0].body;
        self.nested(self.span(body), || self.eval(body, &mut frame))
    }

    /// What applying `f` to `args` comes to: a value at once (a builtin's
    /// result, a partial application), or a call still to make.
    #[inline(never)]
    pub(super) fn resolve(&self, f: &Value, args: Vec<Value>, span: Span) -> EvalResult<Applied> {
        match f {
            Value::Closure(c) => {
                let function = self.script.function(c.func);
                let expected = function.arity[c.groups];
                if args.len() != expected {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "`{}` takes {expected} argument{} here, but is given {}",
                            function.name,
                            if expected == 1 { "" } else { "s" },
                            args.len()
                        ),
                    ));
                }
                let args = if c.applied.is_empty() {
                    args
                } else {
                    let mut all = c.applied.clone();
                    all.extend(args);
                    all
                };
                if c.groups + 1 < function.arity.len() {
                    return Ok(Applied::Value(Value::Closure(Arc::new(Closure {
                        func: c.func,
                        env: c.env.clone(),
                        applied: args,
                        groups: c.groups + 1,
                    }))));
                }
                Ok(Applied::Call {
                    func: c.func,
                    env: c.env.clone(),
                    args,
                })
            }
            Value::Builtin(b) => self.call_builtin(*b, args, span).map(Applied::Value),
            Value::Image(relation) => match args.as_slice() {
                [x] => Ok(Applied::Value(Value::set(
                    relation.get(x).cloned().unwrap_or_else(Set::empty),
                ))),
                _ => Err(EvalError::new(
                    span,
                    format!(
                        "a relational image takes 1 argument, but is given {}",
                        args.len()
                    ),
                )),
            },
            other => Err(EvalError::new(
                span,
                format!("{} cannot be applied to arguments", other.kind_name()),
            )
            .with_note(format!("the value is {}", self.show(other)))),
        }
    }

    /// Binds the arguments of a call of `func` in `frame` (made fresh for
    /// each clause tried) by the first clause whose patterns match them,
    /// and returns that clause's body.
    pub(super) fn select_clause(
        &self,
        func: FuncId,
        env: &Env,
        args: &[Value],
        frame: &mut Frame,
        span: Span,
    ) -> EvalResult<ExprId> {
        let function = self.script.function(func);
        'clauses: for clause in &function.clauses {
            frame.reset(env, function.frame_size);
            let patterns = clause.params.iter().flatten();
            for (p, v) in patterns.zip(args) {
                if !self.matches(p, v, frame)? {
                    continue 'clauses;
                }
            }
            return Ok(clause.body);
        }
        Err(self.no_clause_matches(func, args, span))
    }

    /// The error of a recursion stopped at one of the evaluator's limits,
    /// naming the function (`func`, else the definition around `span`)
    /// and how deep it went.
    #[cold]
    #[inline(never)]
    pub(super) fn runaway(&self, limit: Runaway, func: Option<FuncId>, span: Span) -> EvalError {
        let limits = &self.limits;
        let func = func.or_else(|| self.function_around(span));
        let name = func.map_or_else(
            || "a function".to_string(),
            |f| format!("`{}`", self.script.function(f).name),
        );
        let message = match limit {
            Runaway::NestedCalls => format!(
                "recursion too deep: {name} was called {} calls deep, more than the {} nested \
                 calls symcsp follows",
                limits.nested_calls + 1,
                limits.nested_calls
            ),
            Runaway::NativeLevels => format!(
                "recursion too deep: {name} nested {} levels deep through comprehensions, \
                 lambdas or `let` definitions, more than the {} symcsp follows",
                limits.native_levels + 1,
                limits.native_levels
            ),
            Runaway::TailCalls => format!(
                "recursion too long: {name} made more than {} calls in a row in tail position",
                limits.tail_calls
            ),
        };
        EvalError::new(span, message)
            .with_note("a function probably calls itself without reaching its base case")
    }

    /// The innermost top-level definition whose text holds `span` (a
    /// `let` or a lambda inside it is not what a reader looks for).
    fn function_around(&self, span: Span) -> Option<FuncId> {
        let script = self.script;
        script
            .globals
            .iter()
            .filter_map(|g| match g.kind {
                crate::script::ir::GlobalKind::Definition(f) => Some(f),
                _ => None,
            })
            .filter(|&f| {
                let s = script.function(f).span;
                s.start <= span.start && span.end <= s.end
            })
            .min_by_key(|&f| {
                let s = script.function(f).span;
                s.end - s.start
            })
    }

    #[cold]
    #[inline(never)]
    fn no_clause_matches(&self, func: FuncId, args: &[Value], span: Span) -> EvalError {
        let function = self.script.function(func);
        EvalError::new(
            span,
            format!(
                "no clause of `{}` matches {}",
                function.name,
                self.describe_call(func, args)
            ),
        )
        .with_note(format!(
            "`{}` is defined at {}",
            function.name,
            self.script.sources.location(function.span)
        ))
    }

    /// `f(1, 2)(3)`: a call as it would be written.
    pub(super) fn describe_call(&self, func: FuncId, args: &[Value]) -> String {
        let function = self.script.function(func);
        let mut text = function.name.to_string();
        let mut rest = args;
        for &arity in &function.arity {
            let (group, after) = rest.split_at(arity.min(rest.len()));
            rest = after;
            let shown: Vec<String> = group.iter().map(|v| truncate(self.show(v))).collect();
            text.push('(');
            text.push_str(&shown.join(", "));
            text.push(')');
        }
        text
    }

    // ------------------------------------------------------------ variables

    pub(super) fn slot<'f>(&self, r: VarRef, frame: &'f Frame) -> &'f Slot {
        match r {
            VarRef::Local(i) => &frame.locals[i as usize],
            VarRef::Capture(i) => &frame.env[i as usize],
            VarRef::Env => unreachable!("an environment is not read as a variable"),
        }
    }

    pub(super) fn force(&self, slot: &Slot, span: Span) -> EvalResult<Value> {
        match slot {
            Slot::Value(v) => Ok(v.clone()),
            Slot::Lazy(thunk) => self.force_thunk(thunk, span),
            Slot::Group(env) => Ok(Value::Env(self.force_env(env, span)?)),
            Slot::Empty => unreachable!("variables are bound before use"),
        }
    }

    fn force_env(&self, env: &Env, span: Span) -> EvalResult<Arc<[Value]>> {
        env.iter().map(|s| self.force(s, span)).collect()
    }

    fn force_thunk(&self, thunk: &Thunk, span: Span) -> EvalResult<Value> {
        if let Some(v) = thunk.value.get() {
            return Ok(v.clone());
        }
        // Whether this evaluator is working it out already (another
        // thread may be too, and both will agree).
        let address = std::ptr::from_ref(thunk) as usize;
        if !self.forcing_thunks.borrow_mut().insert(address) {
            let name = self.script.function(thunk.func).name;
            return Err(EvalError::new(
                span,
                format!("`{name}` is defined in terms of itself"),
            ));
        }
        let result = self.call_constant(thunk.func, thunk.env.clone());
        self.forcing_thunks.borrow_mut().remove(&address);
        let value = result?;
        Ok(thunk.value.get_or_init(|| value).clone())
    }

    fn capture(&self, refs: &[VarRef], frame: &Frame) -> Env {
        refs.iter()
            .map(|&r| match r {
                VarRef::Env => Slot::Group(frame.env.clone()),
                _ => match self.slot(r, frame) {
                    // A process state's group variable comes back as a value.
                    Slot::Value(Value::Env(values)) => Slot::Group(env_of(values)),
                    slot => slot.clone(),
                },
            })
            .collect()
    }

    fn group_env(&self, r: VarRef, frame: &Frame) -> Env {
        match r {
            VarRef::Env => frame.env.clone(),
            _ => match self.slot(r, frame) {
                Slot::Group(env) => env.clone(),
                Slot::Value(Value::Env(values)) => env_of(values),
                _ => unreachable!("a group handle holds an environment"),
            },
        }
    }

    // ------------------------------------------------------------ expressions

    /// The expressions the evaluation loop (`machine`) leaves to native
    /// recursion: those that are neither leaves, nor calls, nor made from
    /// operands evaluated in order.
    pub(super) fn eval_other(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Value> {
        let expr = self.script.expr(id);
        let span = expr.span;
        match &expr.kind {
            ExprKind::GroupMember { group, member } => {
                let env = self.group_env(*group, frame);
                match self.script.function(*member).kind {
                    FunctionKind::Constant => self.call_constant(*member, env),
                    _ => Ok(self.closure(*member, env)),
                }
            }
            ExprKind::Lambda(func, refs) => Ok(self.closure(*func, self.capture(refs, frame))),
            ExprKind::Process(func, refs) => {
                let env = self.capture(refs, frame);
                let vars = self.force_env(&env, span)?;
                Ok(Value::Proc(Arc::new(Proc::Node { func: *func, vars })))
            }
            ExprKind::Destructure {
                value,
                pattern,
                slot,
            } => {
                let v = self.eval(*value, frame)?;
                if !self.matches(pattern, &v, frame)? {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "the value {} does not match the pattern",
                            truncate(self.show(&v))
                        ),
                    ));
                }
                let slot = frame.locals[*slot as usize].clone();
                self.force(&slot, span)
            }
            ExprKind::SeqRange(..)
            | ExprKind::SetRange(..)
            | ExprKind::SeqComprehension(..)
            | ExprKind::SetComprehension(..)
            | ExprKind::Production(..)
            | ExprKind::TypeDot(_)
            | ExprKind::TypeTuple(_) => self.eval_collection(id, frame),
            ExprKind::Prefix(..)
            | ExprKind::Guard(..)
            | ExprKind::ProcBinary(..)
            | ExprKind::Hide(..)
            | ExprKind::Project(..)
            | ExprKind::GenParallel(..)
            | ExprKind::Exception(..)
            | ExprKind::AlphaParallel(..)
            | ExprKind::LinkedParallel(..)
            | ExprKind::SyncExternalChoice(..)
            | ExprKind::SyncInterrupt(..)
            | ExprKind::Rename(..)
            | ExprKind::Replicated(..) => {
                unreachable!("process operators are only bodies of process functions")
            }
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Char(_)
            | ExprKind::String(_)
            | ExprKind::Var(_)
            | ExprKind::Global(_)
            | ExprKind::Ctor(_)
            | ExprKind::Channel(_)
            | ExprKind::App(..)
            | ExprKind::Dot(..)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::If(..)
            | ExprKind::Let(..)
            | ExprKind::Tuple(_)
            | ExprKind::Seq(_)
            | ExprKind::Set(_)
            | ExprKind::Map(_) => unreachable!("evaluated by the loop of `machine`"),
        }
    }

    /// Binds a `let`'s definitions in `frame`: constants as thunks,
    /// recursive groups as shared environments.
    pub(super) fn bind_let(&self, groups: &[LetGroup], frame: &mut Frame) {
        for group in groups {
            match group {
                LetGroup::Lazy {
                    func,
                    captures,
                    slot,
                } => {
                    let env = self.capture(captures, frame);
                    frame.locals[*slot as usize] = Slot::Lazy(Arc::new(Thunk::new(*func, env)));
                }
                LetGroup::Recursive {
                    captures,
                    group_slot,
                    ..
                } => {
                    let env = self.capture(captures, frame);
                    frame.locals[*group_slot as usize] = Slot::Group(env);
                }
            }
        }
    }

    pub(super) fn eval_bool(&self, e: ExprId, frame: &mut Frame) -> EvalResult<bool> {
        match self.eval(e, frame)? {
            Value::Bool(b) => Ok(b),
            other => Err(self.expected(e, "a boolean", &other)),
        }
    }

    pub(super) fn eval_int(&self, e: ExprId, frame: &mut Frame) -> EvalResult<i64> {
        match self.eval(e, frame)? {
            Value::Int(i) => Ok(i),
            other => Err(self.expected(e, "an integer", &other)),
        }
    }

    pub(super) fn eval_set(&self, e: ExprId, frame: &mut Frame) -> EvalResult<Arc<Set>> {
        match self.eval(e, frame)? {
            Value::Set(s) => Ok(s),
            other => Err(self.expected(e, "a set", &other)),
        }
    }

    pub(super) fn expected(&self, e: ExprId, what: &str, got: &Value) -> EvalError {
        EvalError::new(
            self.span(e),
            format!("expected {what}, found {}", got.kind_name()),
        )
        .with_note(format!("the value is {}", truncate(self.show(got))))
    }

    /// The integers `from..=to` as values, each made by `make`: counted
    /// and reserved first, and built a chunk at a time with the meter
    /// polled between chunks.
    fn int_range<T>(
        &self,
        from: i64,
        to: i64,
        span: Span,
        make: impl Fn(i64) -> T,
    ) -> EvalResult<Vec<T>> {
        if to < from {
            return Ok(Vec::new());
        }
        let count = (to as i128 - from as i128 + 1) as u128;
        if count > MAX_ELEMENTS as u128 {
            return Err(EvalError::new(
                span,
                format!(
                    "the range {from}..{to} has {count} elements, more than the {MAX_ELEMENTS} symcsp builds"
                ),
            ));
        }
        self.reserve(count as usize)?;
        super::pace::collect((from..=to).map(make), &|| self.pace())
    }

    /// Every set, sequence and product is held to [`MAX_ELEMENTS`]:
    /// `n` elements built so far (or about to be) must not pass it.
    pub(super) fn check_size(&self, n: usize, span: Span) -> EvalResult<()> {
        if n > MAX_ELEMENTS {
            return Err(self.too_many(span));
        }
        Ok(())
    }

    #[cold]
    pub(super) fn too_many(&self, span: Span) -> EvalError {
        EvalError::new(
            span,
            format!("this builds more than the {MAX_ELEMENTS} elements symcsp allows"),
        )
    }

    /// The size of the product of sets of sizes `sizes` (every `a.b`, every
    /// `(a, b)`), checked before anything is built.
    pub(super) fn product_size(
        &self,
        sizes: impl IntoIterator<Item = usize>,
        span: Span,
    ) -> EvalResult<usize> {
        sizes
            .into_iter()
            .try_fold(1usize, |n, size| n.checked_mul(size))
            .filter(|&n| n <= MAX_ELEMENTS)
            .ok_or_else(|| self.too_many(span))
    }

    /// Asks the meter before building `elements` values at once: counted
    /// as work, and refused (a stop, not an error) when they would not
    /// fit in the memory budget.
    pub(super) fn reserve(&self, elements: usize) -> EvalResult<()> {
        self.work(elements)?;
        let bytes = elements.saturating_mul(std::mem::size_of::<Value>());
        self.meter()
            .may_allocate(bytes as u64)
            .map_err(EvalError::stopped)
    }

    /// Counts an operation over `elements` values as work (one step per
    /// [`ELEMENTS_PER_STEP`]), so that the meter is polled during long
    /// runs of set operations as it is during calls.
    pub(super) fn work(&self, elements: usize) -> EvalResult<()> {
        self.tick(u32::try_from(elements / ELEMENTS_PER_STEP).unwrap_or(u32::MAX))
    }

    /// Functions cannot be set elements: their equality is undecidable.
    pub(super) fn check_set_elements(&self, values: &[Value], span: Span) -> EvalResult<()> {
        if values.iter().any(Value::is_function) {
            return Err(EvalError::new(
                span,
                "functions cannot be elements of a set: they cannot be compared",
            ));
        }
        if values.iter().any(super::stream::holds_lazy) {
            return Err(EvalError::new(
                span,
                "an infinite sequence built by a comprehension cannot be an element of a set: \
                 it cannot be compared",
            )
            .with_note("FDR would compare its elements for ever"));
        }
        Ok(())
    }

    /// The values of `es` for every binding the statements produce.
    fn comprehension(
        &self,
        es: &[ExprId],
        stmts: &[Stmt],
        order: Order,
        frame: &mut Frame,
        span: Span,
    ) -> EvalResult<Vec<Value>> {
        let mut out = Vec::new();
        self.comprehend(stmts, order, frame, &mut |ev, frame| {
            for e in es {
                out.push(ev.eval(*e, frame)?);
            }
            ev.check_size(out.len(), span)
        })?;
        Ok(out)
    }

    /// Runs `body` once for every binding the statements produce, in
    /// order (generators nest left to right).
    pub(super) fn comprehend(
        &self,
        stmts: &[Stmt],
        order: Order,
        frame: &mut Frame,
        body: &mut dyn FnMut(&Self, &mut Frame) -> EvalResult<()>,
    ) -> EvalResult<()> {
        let Some((first, rest)) = stmts.split_first() else {
            return body(self, frame);
        };
        match first {
            Stmt::Guard(g) => {
                if self.eval_bool(*g, frame)? {
                    self.comprehend(rest, order, frame, body)?;
                }
                Ok(())
            }
            Stmt::Generator(pattern, source, _) => {
                // The source's elements are borrowed from its value, not
                // copied: an inner generator's source is evaluated afresh
                // for every binding of the outer ones.
                let source_value = self.eval(*source, frame)?;
                let items: &mut dyn Iterator<Item = &Value> = match &source_value {
                    Value::Set(_) if order == Order::Sequence => {
                        return Err(self
                            .expected(*source, "a sequence", &source_value)
                            .with_note(
                                "what is built in order draws from sequences: the elements of \
                                 a set have no order in CSPM (FDR rejects this too)",
                            ));
                    }
                    Value::Set(s) => &mut self.enumerate(s, self.span(*source))?.iter(),
                    Value::Seq(s) => &mut s.iter(),
                    Value::Stream(_) => {
                        return Err(self.infinite(self.span(*source), &source_value, "drawn from"));
                    }
                    other => return Err(self.expected(*source, "a set or a sequence", other)),
                };
                for item in items {
                    self.tick(1)?;
                    if self.matches(pattern, item, frame)? {
                        self.comprehend(rest, order, frame, body)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// The error for an infinite sequence `value` used where all its
    /// elements are needed (`how`: "drawn from", "the argument of").
    pub(super) fn infinite(&self, span: Span, value: &Value, how: &str) -> EvalError {
        EvalError::new(
            span,
            format!(
                "the sequence {} is infinite: it cannot be {how} here, as that would never finish",
                self.show(value)
            ),
        )
        .with_note(
            "an infinite sequence can be taken apart (`head`, `tail`, `<x>^s`) and compared, \
             but not listed",
        )
    }

    /// The elements of a set, or an error saying why they cannot be had.
    pub(super) fn enumerate<'a>(&self, set: &'a Set, span: Span) -> EvalResult<&'a [Value]> {
        set.as_finite()
            .ok_or_else(|| self.unlisted(set, span, "its elements cannot be listed"))
    }

    /// Why the elements of `set` (not [`Set::Finite`]) cannot be had:
    /// it is infinite, or a set of sets or maps too large to build.
    /// `why` says what that prevents.
    pub(super) fn unlisted(&self, set: &Set, span: Span, why: &str) -> EvalError {
        let shown = truncate(self.show(&Value::set(set.clone())));
        match set.unlisted_size() {
            Some(size) => EvalError::new(
                span,
                format!("the set {shown} has {size} elements, too many to build: {why}"),
            )
            .with_note(format!(
                "symcsp builds `Set(A)` and `Map(A, B)` of up to 2^{} elements; larger ones \
                 can only be tested for membership",
                super::MAX_POWERSET_BASE
            )),
            None => EvalError::new(span, format!("the set {shown} is infinite: {why}"))
                .with_note("infinite sets can only be tested for membership"),
        }
    }

    // ------------------------------------------------------------ operators

    pub(super) fn unary(&self, op: UnaryOp, v: Value, span: Span) -> EvalResult<Value> {
        match (op, v) {
            (UnaryOp::Neg, Value::Int(i)) => i
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| overflow(span)),
            (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
            (UnaryOp::Length, Value::Seq(s)) => Ok(Value::Int(s.len() as i64)),
            (UnaryOp::Length, v @ Value::Stream(_)) => Err(self.infinite(span, &v, "measured")),
            (op, v) => {
                let wanted = match op {
                    UnaryOp::Neg => "an integer",
                    UnaryOp::Not => "a boolean",
                    UnaryOp::Length => "a sequence",
                };
                Err(EvalError::new(
                    span,
                    format!("expected {wanted}, found {}", v.kind_name()),
                ))
            }
        }
    }

    /// The value of `x op y` (not `and`, `or`), its operands `(a, b)` named
    /// in errors.
    pub(super) fn combine(
        &self,
        op: BinaryOp,
        x: Value,
        y: Value,
        (a, b): (ExprId, ExprId),
        span: Span,
    ) -> EvalResult<Value> {
        match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => {
                let (Value::Int(i), Value::Int(j)) = (&x, &y) else {
                    let bad = if matches!(x, Value::Int(_)) {
                        (b, &y)
                    } else {
                        (a, &x)
                    };
                    return Err(self.expected(bad.0, "an integer", bad.1));
                };
                arithmetic(op, *i, *j, span).map(Value::Int)
            }
            BinaryOp::Eq | BinaryOp::Ne => {
                self.check_comparable(&x, &y, span)?;
                let equal = self.values_equal(&x, &y, span)?;
                Ok(Value::Bool(equal == (op == BinaryOp::Eq)))
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                self.check_comparable(&x, &y, span)?;
                let (small, large, strict) = match op {
                    BinaryOp::Lt => (&x, &y, true),
                    BinaryOp::Le => (&x, &y, false),
                    BinaryOp::Gt => (&y, &x, true),
                    _ => (&y, &x, false),
                };
                let below = self.less_or_equal(small, large, span)?;
                Ok(Value::Bool(
                    below && !(strict && self.values_equal(small, large, span)?),
                ))
            }
            BinaryOp::Concat => match (x, y) {
                // An infinite sequence never ends: nothing comes after it.
                (Value::Stream(s), Value::Seq(_) | Value::Stream(_)) => Ok(Value::Stream(s)),
                (Value::Seq(s), Value::Stream(t)) => {
                    self.check_size(s.len(), span)?;
                    Ok(Value::Stream(Arc::new(t.after(&s))))
                }
                (Value::Seq(s), Value::Seq(t)) => {
                    self.check_size(s.len() + t.len(), span)?;
                    // Appending in place costs the part copied, if any.
                    if s.len().min(t.len()) > ELEMENTS_PER_STEP {
                        self.reserve(s.len().min(t.len()))?;
                    }
                    Ok(Value::Seq(s.concat(&t)))
                }
                (Value::Seq(_), other) => Err(self.expected(b, "a sequence", &other)),
                (other, _) => Err(self.expected(a, "a sequence", &other)),
            },
            BinaryOp::And | BinaryOp::Or => unreachable!("handled above"),
        }
    }

    fn check_comparable(&self, x: &Value, y: &Value, span: Span) -> EvalResult<()> {
        if x.is_function() || y.is_function() {
            return Err(EvalError::new(span, "functions cannot be compared"));
        }
        let dotted = |v: &Value| {
            matches!(
                v,
                Value::Ctor(_) | Value::Channel(_) | Value::Named(_) | Value::Dot(_)
            )
        };
        let sequence = |v: &Value| matches!(v, Value::Seq(_) | Value::Stream(_));
        if std::mem::discriminant(x) != std::mem::discriminant(y)
            && !(dotted(x) && dotted(y))
            && !(sequence(x) && sequence(y))
        {
            return Err(EvalError::new(
                span,
                format!("cannot compare {} with {}", x.kind_name(), y.kind_name()),
            ));
        }
        Ok(())
    }

    /// CSPM's order: numbers and characters as usual, sets by inclusion,
    /// sequences by prefix, tuples lexicographically, maps as FDR orders
    /// them (one is below another when each of its keys is the other's
    /// with a value below or equal to the other's). Nothing else is
    /// ordered, as in FDR (datatype values, events and booleans have no
    /// order): an order on a datatype would let a script tell its values
    /// apart without naming them, which symmetry reduction relies on
    /// being impossible.
    fn less_or_equal(&self, x: &Value, y: &Value, span: Span) -> EvalResult<bool> {
        Ok(match (x, y) {
            (Value::Int(a), Value::Int(b)) => a <= b,
            (Value::Char(a), Value::Char(b)) => a <= b,
            (Value::Set(a), Value::Set(b)) => match (a.as_finite(), &**a, &**b) {
                (Some(a), _, _) => a.iter().all(|v| self.member(v, b)),
                // Infinite sets whose inclusion is plain: the same set, a
                // finite set above one, ranges of integers.
                (None, a, b) if a == b => true,
                (None, a, Set::Finite(_)) if a.is_infinite() => false,
                (None, Set::IntsFrom(m), Set::IntsFrom(n)) => m >= n,
                (None, Set::IntsFrom(_), Set::AllInts) => true,
                (None, Set::AllInts, Set::IntsFrom(_)) => false,
                (None, a, _) => {
                    return Err(self.unlisted(a, span, "its elements cannot be listed"));
                }
            },
            (Value::Seq(a), Value::Seq(b)) => {
                a.len() <= b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
            }
            (Value::Seq(a), Value::Stream(b)) => self.stream_starts_with(b, a, span)?,
            (Value::Stream(a), Value::Seq(b)) => {
                // Longer than b: a comprehension's stream is made to
                // show one more element than b has.
                self.force_stream(a, b.len() + 1, span)?;
                false
            }
            (Value::Stream(a), Value::Stream(b)) => {
                self.values_equal(&Value::Stream(a.clone()), &Value::Stream(b.clone()), span)?
            }
            (Value::Tuple(a), Value::Tuple(b)) if a.len() == b.len() => {
                match a.iter().zip(b.iter()).find(|(x, y)| x != y) {
                    Some((x, y)) => {
                        self.check_comparable(x, y, span)?;
                        self.less_or_equal(x, y, span)?
                    }
                    None => true,
                }
            }
            (Value::Tuple(_), Value::Tuple(_)) => {
                return Err(EvalError::new(
                    span,
                    "cannot compare tuples of different sizes",
                ));
            }
            (Value::Map(a), Value::Map(b)) => {
                for (key, value) in a.iter() {
                    let Some(other) = b.get(key) else {
                        return Ok(false);
                    };
                    self.check_comparable(value, other, span)?;
                    if !self.less_or_equal(value, other, span)? {
                        return Ok(false);
                    }
                }
                true
            }
            _ => {
                return Err(EvalError::new(
                    span,
                    format!(
                        "{} has no order: only numbers, characters, sets, sequences, maps \
                         and tuples of them can be compared with `<`, `<=`, `>` and `>=`",
                        x.kind_name()
                    ),
                )
                .with_note("as in FDR, datatype values, events and booleans are not ordered"));
            }
        })
    }
}

/// What a comprehension builds: in order (a sequence, a replicated `;`
/// or linked parallel), whose generators must draw from sequences, or a
/// set or an unordered operator, whose generators may draw from either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Sequence,
    Set,
}

/// A group environment kept in a process state, as slots again.
pub(super) fn env_of(values: &[Value]) -> Env {
    values.iter().cloned().map(Slot::Value).collect()
}

//! Expression evaluation: frames, variables, calls, `let`, comprehensions
//! and the operators of the functional language.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering as AtomicOrdering;

use crate::script::ir::{
    ExprId, ExprKind, FuncId, FunctionKind, GlobalId, GlobalKind, LetGroup, Stmt, VarRef,
};
use crate::syntax::Span;
use crate::syntax::ast::{BinaryOp, UnaryOp};

use super::error::SHOWN_FRAMES;
use super::value::{Closure, Env, Proc, Set, Slot, Thunk, Value};
use super::{EvalError, EvalResult, Evaluator, MAX_ELEMENTS};

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
        self.locals.clear();
        self.locals.resize(size as usize, Slot::Empty);
    }
}

/// A function body's result: its value, or the call in tail position that
/// is left to make.
enum Tail {
    Value(Value),
    Call(Value, Vec<Value>, Span),
}

/// What applying a function value comes to.
enum Applied {
    Value(Value),
    Call {
        func: FuncId,
        env: Env,
        args: Vec<Vec<Value>>,
    },
}

/// Stack the evaluator keeps free before each call; below it, the stack
/// grows by another segment on the heap.
const RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 16 * 1024 * 1024;

impl Evaluator<'_> {
    pub(super) fn span(&self, e: ExprId) -> Span {
        self.script.expr(e).span
    }

    // ------------------------------------------------------------ globals

    /// The value of a top-level name.
    pub fn global(&self, id: GlobalId) -> EvalResult<Value> {
        if let Some(v) = self.globals[id.index()].get() {
            return Ok(v.clone());
        }
        let global = &self.script.globals[id.index()];
        let value = match &global.kind {
            GlobalKind::Definition(func) => {
                let function = self.script.function(*func);
                if function.kind != FunctionKind::Constant {
                    return Ok(self.closure(*func, Arc::from([])));
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
        Ok(self.globals[id.index()].get_or_init(|| value).clone())
    }

    pub(super) fn closure(&self, func: FuncId, env: Env) -> Value {
        Value::Closure(Arc::new(Closure {
            func,
            env,
            applied: Vec::new(),
        }))
    }

    // ------------------------------------------------------------ calls

    /// Runs a function without parameters in environment `env`.
    pub(super) fn call_constant(&self, func: FuncId, env: Env) -> EvalResult<Value> {
        let function = self.script.function(func);
        let mut frame = Frame::new(env, function.frame_size);
        let body = function.clauses[0].body;
        self.eval(body, &mut frame)
    }

    /// Applies a function value to one group of arguments.
    pub(super) fn apply(&self, f: &Value, args: Vec<Value>, span: Span) -> EvalResult<Value> {
        match self.resolve(f, args, span)? {
            Applied::Value(v) => Ok(v),
            Applied::Call { func, env, args } => self.call(func, env, args, span),
        }
    }

    /// What applying `f` to `args` comes to: a value at once (a builtin's
    /// result, a partial application), or a call still to make.
    #[inline(never)]
    fn resolve(&self, f: &Value, args: Vec<Value>, span: Span) -> EvalResult<Applied> {
        match f {
            Value::Closure(c) => {
                let function = self.script.function(c.func);
                let group = c.applied.len();
                let expected = function.arity[group];
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
                let mut applied = c.applied.clone();
                applied.push(args);
                if applied.len() < function.arity.len() {
                    return Ok(Applied::Value(Value::Closure(Arc::new(Closure {
                        func: c.func,
                        env: c.env.clone(),
                        applied,
                    }))));
                }
                Ok(Applied::Call {
                    func: c.func,
                    env: c.env.clone(),
                    args: applied,
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

    /// Calls `func` with all its argument groups: the first clause whose
    /// patterns match runs. A call in tail position of the body replaces
    /// this one in a loop rather than nesting, so a tail-recursive loop
    /// runs in constant stack. It still counts towards the call limit, and
    /// the replaced calls still appear in a diagnostic's stack (the last
    /// few of them, the rest counted), as if they had nested.
    fn call(&self, func: FuncId, env: Env, args: Vec<Vec<Value>>, span: Span) -> EvalResult<Value> {
        let depth = self.depth.get();
        if depth >= self.call_limit {
            return Err(self.too_deep(span));
        }
        self.depth.set(depth + 1);
        let result = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
            self.call_in_place(func, env, args, span, depth)
        });
        self.depth.set(depth);
        result
    }

    /// The loop of [`Self::call`], out of line so that only its own small
    /// frame is on the stack of every nested call.
    #[inline(never)]
    fn call_in_place(
        &self,
        mut func: FuncId,
        mut env: Env,
        mut args: Vec<Vec<Value>>,
        span: Span,
        depth: usize,
    ) -> EvalResult<Value> {
        let mut replaced: VecDeque<(FuncId, Vec<Vec<Value>>)> = VecDeque::new();
        let mut replaced_count = 0;
        let mut frame = Frame::new(env.clone(), 0);
        let result = loop {
            let (f, group, at) = match self.call_clauses(func, &env, &args, &mut frame, span) {
                Ok(Tail::Value(v)) => break Ok(v),
                Ok(Tail::Call(f, group, at)) => (f, group, at),
                Err(e) => break Err(e),
            };
            let (next_func, next_env, next_args) = match self.resolve(&f, group, at) {
                Ok(Applied::Value(v)) => break Ok(v),
                Ok(Applied::Call { func, env, args }) => (func, env, args),
                Err(e) => break Err(e),
            };
            if depth + 1 + replaced_count >= self.call_limit {
                break Err(self.too_deep(at));
            }
            if replaced.len() == SHOWN_FRAMES {
                replaced.pop_front();
            }
            replaced.push_back((func, std::mem::replace(&mut args, next_args)));
            replaced_count += 1;
            func = next_func;
            env = next_env;
        };
        result.map_err(|e| self.in_calls(e, (func, &args), &replaced, replaced_count))
    }

    /// Adds the calls in progress to an error: the current one, then
    /// those it replaced by tail calls, most recent first.
    #[cold]
    #[inline(never)]
    fn in_calls(
        &self,
        e: EvalError,
        (func, args): (FuncId, &[Vec<Value>]),
        replaced: &VecDeque<(FuncId, Vec<Vec<Value>>)>,
        replaced_count: usize,
    ) -> EvalError {
        let mut e = e.in_call(|| self.describe_call(func, args));
        for (f, a) in replaced.iter().rev() {
            e = e.in_call(|| self.describe_call(*f, a));
        }
        e.more_calls += replaced_count - replaced.len();
        e
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, span: Span) -> EvalError {
        EvalError::new(
            span,
            format!(
                "recursion too deep: more than {} nested calls",
                self.call_limit
            ),
        )
        .with_note("a function probably calls itself without reaching its base case")
    }

    /// Runs the first clause of `func` whose patterns match `args`, in
    /// `frame` (reset for it), up to a call in tail position.
    fn call_clauses(
        &self,
        func: FuncId,
        env: &Env,
        args: &[Vec<Value>],
        frame: &mut Frame,
        span: Span,
    ) -> EvalResult<Tail> {
        let function = self.script.function(func);
        'clauses: for clause in &function.clauses {
            frame.reset(env, function.frame_size);
            for (patterns, values) in clause.params.iter().zip(args) {
                for (p, v) in patterns.iter().zip(values) {
                    if !self.matches(p, v, frame)? {
                        continue 'clauses;
                    }
                }
            }
            return self.eval_tail(clause.body, frame);
        }
        Err(self.no_clause_matches(func, args, span))
    }

    #[cold]
    #[inline(never)]
    fn no_clause_matches(&self, func: FuncId, args: &[Vec<Value>], span: Span) -> EvalError {
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

    fn describe_call(&self, func: FuncId, args: &[Vec<Value>]) -> String {
        let mut text = self.script.function(func).name.to_string();
        for group in args {
            let shown: Vec<String> = group.iter().map(|v| truncate(self.show(v))).collect();
            text.push('(');
            text.push_str(&shown.join(", "));
            text.push(')');
        }
        text
    }

    // ------------------------------------------------------------ variables

    fn slot<'f>(&self, r: VarRef, frame: &'f Frame) -> &'f Slot {
        match r {
            VarRef::Local(i) => &frame.locals[i as usize],
            VarRef::Capture(i) => &frame.env[i as usize],
            VarRef::Env => unreachable!("an environment is not read as a variable"),
        }
    }

    fn force(&self, slot: &Slot, span: Span) -> EvalResult<Value> {
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
        if thunk.forcing.swap(true, AtomicOrdering::Relaxed) {
            let name = self.script.function(thunk.func).name;
            return Err(EvalError::new(
                span,
                format!("`{name}` is defined in terms of itself"),
            ));
        }
        let result = self.call_constant(thunk.func, thunk.env.clone());
        thunk.forcing.store(false, AtomicOrdering::Relaxed);
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

    pub(super) fn eval(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Value> {
        let expr = self.script.expr(id);
        let span = expr.span;
        match &expr.kind {
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Char(c) => Ok(Value::Char(*c)),
            ExprKind::String(s) => Ok(Value::string(s)),
            ExprKind::Var(r) => {
                let slot = self.slot(*r, frame).clone();
                self.force(&slot, span)
            }
            ExprKind::Global(g) => self.global(*g),
            ExprKind::Ctor(c) => Ok(Value::Ctor(*c)),
            ExprKind::Channel(c) => Ok(Value::Channel(*c)),
            ExprKind::App(f, args) => {
                let (f, args) = self.eval_app(*f, args, frame)?;
                self.apply(&f, args, span)
            }
            ExprKind::If(c, t, e) => {
                if self.eval_bool(*c, frame)? {
                    self.eval(*t, frame)
                } else {
                    self.eval(*e, frame)
                }
            }
            ExprKind::Let(groups, body) => {
                self.bind_let(groups, frame);
                self.eval(*body, frame)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, *a, *b, frame, span),
            _ => self.eval_other(id, frame),
        }
    }

    /// The rest of [`Self::eval`]: kept out of line so that the frame of
    /// `eval`, which every nested call passes through, stays small.
    #[inline(never)]
    fn eval_other(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Value> {
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
            ExprKind::Dot(a, b) => {
                let a = self.eval(*a, frame)?;
                let b = self.eval(*b, frame)?;
                self.dot(a, b, span)
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(*a, frame)?;
                self.unary(*op, v, span)
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
            ExprKind::Tuple(es) => Ok(Value::Tuple(self.eval_all(es, frame)?.into())),
            ExprKind::Seq(es) => Ok(Value::seq(self.eval_all(es, frame)?)),
            ExprKind::Set(es) => {
                let values = self.eval_all(es, frame)?;
                self.check_set_elements(&values, span)?;
                Ok(Value::set(Set::from_values(values)))
            }
            ExprKind::SeqRange(from, to) => {
                let from = self.eval_int(*from, frame)?;
                let Some(to) = to else {
                    return Err(EvalError::new(
                        span,
                        format!("the sequence <{from}..> is infinite and cannot be built"),
                    ));
                };
                let to = self.eval_int(*to, frame)?;
                Ok(Value::seq(self.int_range(from, to, span)?))
            }
            ExprKind::SetRange(from, to) => {
                let from = self.eval_int(*from, frame)?;
                match to {
                    None => Ok(Value::set(Set::IntsFrom(from))),
                    Some(to) => {
                        let to = self.eval_int(*to, frame)?;
                        Ok(Value::set(Set::Finite(self.int_range(from, to, span)?)))
                    }
                }
            }
            ExprKind::SeqComprehension(es, stmts) => {
                Ok(Value::seq(self.comprehension(es, stmts, frame, span)?))
            }
            ExprKind::SetComprehension(es, stmts) => {
                let out = self.comprehension(es, stmts, frame, span)?;
                self.check_set_elements(&out, span)?;
                Ok(Value::set(Set::from_values(out)))
            }
            ExprKind::Production(es, stmts) => {
                let mut out = Vec::new();
                self.comprehend(stmts, frame, &mut |ev, frame| {
                    for e in es {
                        let v = ev.eval(*e, frame)?;
                        out.extend(ev.productions(&v, ev.span(*e))?);
                    }
                    ev.check_size(out.len(), span)
                })?;
                Ok(Value::set(Set::from_values(out)))
            }
            ExprKind::Map(pairs) => {
                let mut map = BTreeMap::new();
                for (k, v) in pairs {
                    let k = self.eval(*k, frame)?;
                    let v = self.eval(*v, frame)?;
                    map.insert(k, v);
                }
                Ok(Value::Map(Arc::new(map)))
            }
            ExprKind::TypeDot(parts) => {
                let sets = parts
                    .iter()
                    .map(|p| self.eval_set(*p, frame))
                    .collect::<EvalResult<Vec<_>>>()?;
                self.dot_product(&sets, span)
            }
            ExprKind::TypeTuple(parts) => {
                let sets = parts
                    .iter()
                    .map(|p| self.eval_set(*p, frame))
                    .collect::<EvalResult<Vec<_>>>()?;
                self.tuple_product(&sets, span)
            }
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
            | ExprKind::If(..)
            | ExprKind::Let(..)
            | ExprKind::Binary(..) => unreachable!("handled by eval"),
        }
    }

    /// Evaluates `id` up to a call in tail position (through `if` and
    /// `let`), which is returned unmade. The same as [`Self::eval`]
    /// otherwise; kept apart so that ordinary nested evaluation does not
    /// pay for it in stack.
    fn eval_tail(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Tail> {
        let expr = self.script.expr(id);
        match &expr.kind {
            ExprKind::App(f, args) => {
                let (f, args) = self.eval_app(*f, args, frame)?;
                Ok(Tail::Call(f, args, expr.span))
            }
            ExprKind::If(c, t, e) => {
                let branch = if self.eval_bool(*c, frame)? { *t } else { *e };
                self.eval_tail(branch, frame)
            }
            ExprKind::Let(groups, body) => {
                self.bind_let(groups, frame);
                self.eval_tail(*body, frame)
            }
            _ => self.eval(id, frame).map(Tail::Value),
        }
    }

    /// The function and the arguments of an application.
    #[inline(never)]
    fn eval_app(
        &self,
        f: ExprId,
        args: &[ExprId],
        frame: &mut Frame,
    ) -> EvalResult<(Value, Vec<Value>)> {
        let f = self.eval(f, frame)?;
        let args = self.eval_all(args, frame)?;
        Ok((f, args))
    }

    /// Binds a `let`'s definitions in `frame`: constants as thunks,
    /// recursive groups as shared environments.
    #[inline(never)]
    fn bind_let(&self, groups: &[LetGroup], frame: &mut Frame) {
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
                } => {
                    let env = self.capture(captures, frame);
                    frame.locals[*group_slot as usize] = Slot::Group(env);
                }
            }
        }
    }

    fn eval_all(&self, es: &[ExprId], frame: &mut Frame) -> EvalResult<Vec<Value>> {
        es.iter().map(|e| self.eval(*e, frame)).collect()
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

    fn int_range(&self, from: i64, to: i64, span: Span) -> EvalResult<Vec<Value>> {
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
        Ok((from..=to).map(Value::Int).collect())
    }

    pub(super) fn check_size(&self, n: usize, span: Span) -> EvalResult<()> {
        if n > MAX_ELEMENTS {
            return Err(EvalError::new(
                span,
                format!("this builds more than the {MAX_ELEMENTS} elements symcsp allows"),
            ));
        }
        Ok(())
    }

    /// Functions cannot be set elements: their equality is undecidable.
    pub(super) fn check_set_elements(&self, values: &[Value], span: Span) -> EvalResult<()> {
        if values.iter().any(Value::is_function) {
            return Err(EvalError::new(
                span,
                "functions cannot be elements of a set: they cannot be compared",
            ));
        }
        Ok(())
    }

    /// The values of `es` for every binding the statements produce.
    fn comprehension(
        &self,
        es: &[ExprId],
        stmts: &[Stmt],
        frame: &mut Frame,
        span: Span,
    ) -> EvalResult<Vec<Value>> {
        let mut out = Vec::new();
        self.comprehend(stmts, frame, &mut |ev, frame| {
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
        frame: &mut Frame,
        body: &mut dyn FnMut(&Self, &mut Frame) -> EvalResult<()>,
    ) -> EvalResult<()> {
        let Some((first, rest)) = stmts.split_first() else {
            return body(self, frame);
        };
        match first {
            Stmt::Guard(g) => {
                if self.eval_bool(*g, frame)? {
                    self.comprehend(rest, frame, body)?;
                }
                Ok(())
            }
            Stmt::Generator(pattern, source) => {
                let items: Vec<Value> = match self.eval(*source, frame)? {
                    Value::Set(s) => self.enumerate(&s, self.span(*source))?.to_vec(),
                    Value::Seq(s) => s.as_slice().to_vec(),
                    other => return Err(self.expected(*source, "a set or a sequence", &other)),
                };
                for item in &items {
                    if self.matches(pattern, item, frame)? {
                        self.comprehend(rest, frame, body)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// The elements of a set, or an error if it is infinite.
    pub(super) fn enumerate<'a>(&self, set: &'a Set, span: Span) -> EvalResult<&'a [Value]> {
        set.as_finite().ok_or_else(|| {
            EvalError::new(
                span,
                format!(
                    "the set {} is infinite: its elements cannot be listed",
                    self.show(&Value::set(set.clone()))
                ),
            )
            .with_note("infinite sets can only be tested for membership")
        })
    }

    // ------------------------------------------------------------ operators

    fn unary(&self, op: UnaryOp, v: Value, span: Span) -> EvalResult<Value> {
        match (op, v) {
            (UnaryOp::Neg, Value::Int(i)) => i
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| overflow(span)),
            (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
            (UnaryOp::Length, Value::Seq(s)) => Ok(Value::Int(s.len() as i64)),
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

    fn binary(
        &self,
        op: BinaryOp,
        a: ExprId,
        b: ExprId,
        frame: &mut Frame,
        span: Span,
    ) -> EvalResult<Value> {
        // `and` and `or` do not evaluate their right operand when the
        // left decides.
        match op {
            BinaryOp::And => {
                return Ok(Value::Bool(
                    self.eval_bool(a, frame)? && self.eval_bool(b, frame)?,
                ));
            }
            BinaryOp::Or => {
                return Ok(Value::Bool(
                    self.eval_bool(a, frame)? || self.eval_bool(b, frame)?,
                ));
            }
            _ => {}
        }
        let x = self.eval(a, frame)?;
        let y = self.eval(b, frame)?;
        self.combine(op, x, y, (a, b), span)
    }

    /// The value of `x op y` (not `and`, `or`), its operands `(a, b)` named
    /// in errors. Out of line: `binary` is on the path of nested calls.
    #[inline(never)]
    fn combine(
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
                Ok(Value::Bool((x == y) == (op == BinaryOp::Eq)))
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
                Ok(Value::Bool(below && !(strict && small == large)))
            }
            BinaryOp::Concat => match (x, y) {
                (Value::Seq(s), Value::Seq(t)) => Ok(Value::Seq(s.concat(&t))),
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
        if std::mem::discriminant(x) != std::mem::discriminant(y) && !(dotted(x) && dotted(y)) {
            return Err(EvalError::new(
                span,
                format!("cannot compare {} with {}", x.kind_name(), y.kind_name()),
            ));
        }
        Ok(())
    }

    /// CSPM's order: numbers and characters as usual, sets by inclusion,
    /// sequences by prefix; other values structurally.
    fn less_or_equal(&self, x: &Value, y: &Value, span: Span) -> EvalResult<bool> {
        Ok(match (x, y) {
            (Value::Set(a), Value::Set(b)) => {
                let a = self.enumerate(a, span)?;
                a.iter().all(|v| self.member(v, b))
            }
            (Value::Seq(a), Value::Seq(b)) => b.as_slice().starts_with(a.as_slice()),
            _ => x <= y,
        })
    }
}

/// A group environment kept in a process state, as slots again.
pub(super) fn env_of(values: &[Value]) -> Env {
    values.iter().cloned().map(Slot::Value).collect()
}

fn overflow(span: Span) -> EvalError {
    EvalError::new(span, "integer overflow: the result does not fit in 64 bits")
}

/// Integer arithmetic as FDR does it: `/` rounds down and `%` takes the
/// sign of the divisor (Haskell's `div` and `mod`).
fn arithmetic(op: BinaryOp, i: i64, j: i64, span: Span) -> EvalResult<i64> {
    let result = match op {
        BinaryOp::Add => i.checked_add(j),
        BinaryOp::Sub => i.checked_sub(j),
        BinaryOp::Mul => i.checked_mul(j),
        BinaryOp::Div | BinaryOp::Mod if j == 0 => {
            return Err(EvalError::new(span, "division by zero"));
        }
        BinaryOp::Div => i.checked_div(j).map(|q| {
            if (i % j != 0) && ((i < 0) != (j < 0)) {
                q - 1
            } else {
                q
            }
        }),
        BinaryOp::Mod => i.checked_rem(j).map(|r| {
            if r != 0 && ((r < 0) != (j < 0)) {
                r + j
            } else {
                r
            }
        }),
        _ => unreachable!("arithmetic operators only"),
    };
    result.ok_or_else(|| overflow(span))
}

/// A value's text for a message, cut short if long.
pub(super) fn truncate(text: String) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_down_and_modulo_follows_the_divisor() {
        let span = Span::default();
        let div = |i, j| arithmetic(BinaryOp::Div, i, j, span).unwrap();
        let rem = |i, j| arithmetic(BinaryOp::Mod, i, j, span).unwrap();
        assert_eq!((div(7, 2), rem(7, 2)), (3, 1));
        assert_eq!((div(-7, 2), rem(-7, 2)), (-4, 1));
        assert_eq!((div(7, -2), rem(7, -2)), (-4, -1));
        assert_eq!((div(-7, -2), rem(-7, -2)), (3, -1));
        assert!(arithmetic(BinaryOp::Div, 1, 0, span).is_err());
        assert!(arithmetic(BinaryOp::Div, i64::MIN, -1, span).is_err());
    }
}

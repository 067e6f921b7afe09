//! Inference over the resolved script: functions, patterns, expressions,
//! comprehensions and process operators, each as FDR's front end types
//! it.
//!
//! Every variable lives in a frame slot of the function that binds it
//! (slots are never reused), so a frame is one type variable per slot
//! and one type per captured variable. An expression that is ill-typed
//! is reported once and then has the error type, which agrees with
//! everything: checking goes on around it.

use crate::script::ir::{
    ExprId, ExprKind, FieldKind, FuncId, FunctionKind, GlobalKind, LetGroup, Pattern, ReplicatedOp,
    Stmt, VarRef,
};
use crate::syntax::ast::{BinaryOp, UnaryOp};

use super::checker::{Checker, Context, Inferred};
use super::env::{Binding, instantiate, instantiate_scheme};
use super::ty::{Class, Store, Ty, TyId, atom};

mod collections;

/// How many values a dotted expression `a.b.c` is made of.
fn dot_leaves(script: &crate::script::Script, e: ExprId) -> usize {
    match &script.expr(e).kind {
        ExprKind::Dot(a, b) => dot_leaves(script, *a) + dot_leaves(script, *b),
        _ => 1,
    }
}

pub use super::checker::Frame;

/// The variables a function captures, read from the running function.
#[derive(Debug, Clone, Copy)]
pub enum Captures<'a> {
    /// A top-level function: nothing to capture.
    None,
    Of(&'a [VarRef]),
}

/// What a comprehension's generators draw from: sets or sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Set,
    Seq,
}

impl Source {
    fn wrap(self, store: &mut Store, t: TyId) -> TyId {
        match self {
            Source::Set => store.set(t),
            Source::Seq => store.seq(t),
        }
    }
}

impl Checker<'_> {
    // ------------------------------------------------------------ frames

    /// Where variable `var` of the running function is bound.
    fn binding_index(&self, var: VarRef) -> Option<usize> {
        let frame = self.frames.last().expect("inside a function");
        match var {
            VarRef::Local(slot) => Some((frame.slots + slot) as usize),
            VarRef::Capture(i) => Some((frame.captures + i) as usize),
            // A recursive group's environment: its members are typed by
            // function, never through it.
            VarRef::Env => None,
        }
    }

    fn var_binding(&self, var: VarRef) -> &Binding {
        match self.binding_index(var) {
            Some(i) => &self.bindings[i],
            None => &Binding::Mono(atom::ERROR),
        }
    }

    /// The type of local slot `slot` of the running function, as bound
    /// by a pattern (monomorphic).
    fn slot(&self, slot: u32) -> TyId {
        match self.var_binding(VarRef::Local(slot)) {
            Binding::Mono(t) => *t,
            Binding::Poly(scheme) => scheme.body,
            Binding::Unchecked => atom::ERROR,
        }
    }

    fn set_slot(&mut self, slot: u32, binding: Binding) {
        let i = self
            .binding_index(VarRef::Local(slot))
            .expect("a slot is bound");
        self.bindings[i] = binding;
    }

    /// Runs `f` in a new frame for `func` with the variables `captures`
    /// names (in the running function).
    pub fn in_frame<T>(
        &mut self,
        func: FuncId,
        captures: Captures<'_>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let base = self.bindings.len();
        if let Captures::Of(vars) = captures {
            for &var in vars {
                let binding = self.var_binding(var).clone();
                self.bindings.push(binding);
            }
        }
        let slots = self.bindings.len();
        for _ in 0..self.script.function(func).frame_size {
            let t = self.store.fresh();
            self.bindings.push(Binding::Mono(t));
        }
        self.frames.push(Frame {
            func,
            captures: base as u32,
            slots: slots as u32,
        });
        let result = f(self);
        self.frames.pop();
        for (slot, binding) in self.bindings[slots..].iter().enumerate() {
            if let Binding::Mono(t) = binding {
                self.variables.entry((func, slot as u32)).or_insert(*t);
            }
        }
        self.bindings.truncate(base);
        result
    }

    // ------------------------------------------------------------ functions

    /// The type of a constant, a lambda or a process expression run with
    /// captured variables of types `captures`.
    pub fn check_function(&mut self, func: FuncId, captures: Captures<'_>) -> TyId {
        let f = self.script.function(func);
        match f.kind {
            FunctionKind::Constant => {
                let body = f.clauses[0].body;
                self.in_frame(func, captures, |c| c.check(body))
            }
            FunctionKind::Process => {
                let body = f.clauses[0].body;
                self.in_frame(func, captures, |c| c.expect(body, atom::PROC));
                atom::PROC
            }
            FunctionKind::Lambda => {
                let clause = &f.clauses[0];
                self.in_frame(func, captures, |c| {
                    let result = c.check(clause.body);
                    let args: Vec<TyId> = clause.params[0]
                        .iter()
                        .map(|p| c.check_pattern(p))
                        .collect();
                    c.store.fun(&args, result)
                })
            }
            FunctionKind::Named => {
                let types = self.clause_types(func, captures, None);
                self.unify_all(&types).unwrap_or(atom::ERROR)
            }
        }
    }

    /// The type of each clause of a function defined by clauses; with
    /// `signature`, each clause is checked against it.
    pub fn clause_types(
        &mut self,
        func: FuncId,
        captures: Captures<'_>,
        signature: Option<TyId>,
    ) -> Vec<TyId> {
        let f = self.script.function(func);
        let name = f.name;
        self.in_frame(func, captures, |c| {
            f.clauses
                .iter()
                .map(|clause| {
                    let context = Context::Equation {
                        name,
                        span: clause.span,
                    };
                    c.within(context, |c| {
                        c.at(clause.span, |c| {
                            // The signature's shape: a function of as many
                            // arguments in each bracket.
                            let expected = signature.map(|signature| {
                                let result = c.store.fresh();
                                let groups: Vec<Vec<TyId>> = clause
                                    .params
                                    .iter()
                                    .map(|g| g.iter().map(|_| c.store.fresh()).collect())
                                    .collect();
                                let shape = groups
                                    .iter()
                                    .rev()
                                    .fold(result, |r, args| c.store.fun(args, r));
                                let _ = c.unify(signature, shape);
                                (groups, result)
                            });
                            // Dots worked out in the patterns before and
                            // after the body (FDR's longest match).
                            let groups: Vec<Vec<TyId>> = clause
                                .params
                                .iter()
                                .enumerate()
                                .map(|(g, group)| {
                                    group
                                        .iter()
                                        .enumerate()
                                        .map(|(i, p)| {
                                            let t = c.check_pattern(p);
                                            let t = c.evaluate_dots(t).unwrap_or(atom::ERROR);
                                            if let Some((groups, _)) = &expected {
                                                let want = groups[g][i];
                                                let _ = c.evaluate_dots(want).and_then(|want| {
                                                    c.asymmetric(|c| c.unify(t, want))
                                                });
                                            }
                                            t
                                        })
                                        .collect()
                                })
                                .collect();
                            let body = match &expected {
                                Some((_, result)) => c.expect(clause.body, *result),
                                None => c.check(clause.body),
                            };
                            let result = c.evaluate_dots(body).unwrap_or(atom::ERROR);
                            groups.iter().rev().fold(result, |result, args| {
                                let args: Vec<TyId> = args
                                    .iter()
                                    .map(|&a| c.evaluate_dots(a).unwrap_or(atom::ERROR))
                                    .collect();
                                c.store.fun(&args, result)
                            })
                        })
                    })
                })
                .collect()
        })
    }

    /// `types` made one, the first taken as expected (FDR's `unifyAll`).
    pub fn unify_all(&mut self, types: &[TyId]) -> Inferred {
        match types {
            [] => Ok(self.store.fresh()),
            [t] => Ok(*t),
            [first, rest @ ..] => {
                let rest = self.unify_all(rest)?;
                self.unify(*first, rest)
            }
        }
    }

    // ------------------------------------------------------------ patterns

    pub fn check_pattern(&mut self, p: &Pattern) -> TyId {
        self.infer_pattern(p).unwrap_or(atom::ERROR)
    }

    fn infer_pattern(&mut self, p: &Pattern) -> Inferred {
        Ok(match p {
            Pattern::Wildcard => self.store.fresh(),
            Pattern::Bind(slot) => self.slot(*slot),
            Pattern::Int(_) => atom::INT,
            Pattern::Char(_) => atom::CHAR,
            Pattern::Bool(_) => atom::BOOL,
            Pattern::Ctor(c, _) => instantiate(&mut self.store, self.env.ctor(*c)),
            Pattern::Channel(c) => instantiate(&mut self.store, self.env.channel(*c)),
            Pattern::Tuple(ps) => {
                let parts: Vec<TyId> = ps.iter().map(|p| self.check_pattern(p)).collect();
                self.store.tuple(&parts)
            }
            Pattern::Dot(ps) => {
                let parts: Vec<TyId> = ps.iter().map(|p| self.check_pattern(p)).collect();
                self.store.dots_right(&parts)
            }
            Pattern::Seq(ps) => {
                let element = self.same_pattern_types(ps)?;
                self.store.seq(element)
            }
            Pattern::Concat {
                prefix,
                middle,
                suffix,
            } => {
                let element = self.store.fresh();
                let seq = self.store.seq(element);
                for p in prefix.iter().chain(suffix) {
                    let t = self.check_pattern(p);
                    self.unify(element, t)?;
                }
                if let Some(middle) = middle {
                    let t = self.check_pattern(middle);
                    self.unify(seq, t)?;
                }
                seq
            }
            Pattern::Set(ps) => {
                let element = self.same_pattern_types(ps)?;
                // `Eq`, not only `Set`: matching `{x}` compares elements.
                self.ensure_classes(&[Class::Eq], element)?;
                self.store.set(element)
            }
            Pattern::Both(a, b) => {
                let t = self.check_pattern(a);
                let u = self.check_pattern(b);
                self.unify(t, u)?
            }
        })
    }

    fn same_pattern_types(&mut self, ps: &[Pattern]) -> Inferred {
        let Some((first, rest)) = ps.split_first() else {
            return Ok(self.store.fresh());
        };
        let t = self.check_pattern(first);
        for p in rest {
            let u = self.check_pattern(p);
            self.unify(t, u)?;
        }
        Ok(t)
    }

    // ------------------------------------------------------------ expressions

    /// The type of `e`; the error type if it is ill-typed (reported).
    pub fn check(&mut self, e: ExprId) -> TyId {
        let span = self.expr_span(e);
        // A process operator is the body of a function of its own, at the
        // same place: one note for both.
        if let ExprKind::Process(..) = self.script.expr(e).kind {
            return self.at(span, |c| c.infer(e).unwrap_or(atom::ERROR));
        }
        self.within(Context::Expr(e), |c| {
            c.at(span, |c| c.infer(e).unwrap_or(atom::ERROR))
        })
    }

    /// The type of `e`, which must be `expected`; `expected` again if it
    /// is not (reported). An expression with an error inside is not
    /// blamed again for the type the error left it.
    pub fn expect(&mut self, e: ExprId, expected: TyId) -> TyId {
        let before = self.diagnostics.len();
        let actual = self.check(e);
        if self.diagnostics.len() > before {
            return expected;
        }
        let span = self.expr_span(e);
        self.within(Context::Expr(e), |c| {
            c.at(span, |c| c.unify(expected, actual).unwrap_or(expected))
        })
    }

    fn events(&mut self) -> TyId {
        atom::EVENTS
    }

    /// The type of the expression `e`, its parts checked on the way.
    fn infer(&mut self, e: ExprId) -> Inferred {
        self.tick()?;
        let script = self.script;
        let expr = &script.expr(e).kind;
        use ExprKind as E;
        Ok(match expr {
            E::Int(_) => atom::INT,
            E::Bool(_) => atom::BOOL,
            E::Char(_) => atom::CHAR,
            E::String(_) => atom::STRING,
            E::Var(_) | E::Global(_) | E::Ctor(_) | E::Channel(_) | E::GroupMember { .. } => {
                self.infer_name(e)
            }
            E::Lambda(func, vars) | E::Process(func, vars) => {
                self.check_function(*func, Captures::Of(vars))
            }
            E::App(f, args) => self.infer_call(*f, args)?,
            E::Dot(a, b) => {
                let (a, b) = (self.check(*a), self.check(*b));
                self.store.dot(a, b)
            }
            E::Unary(op, a) => match op {
                UnaryOp::Neg => {
                    self.expect(*a, atom::INT);
                    atom::INT
                }
                UnaryOp::Not => {
                    self.expect(*a, atom::BOOL);
                    atom::BOOL
                }
                UnaryOp::Length => {
                    let element = self.store.fresh();
                    let seq = self.store.seq(element);
                    self.expect(*a, seq);
                    atom::INT
                }
            },
            E::Binary(op, a, b) => self.infer_binary(*op, *a, *b)?,
            E::If(c, t, f) => {
                self.expect(*c, atom::BOOL);
                let t = self.check(*t);
                self.expect(*f, t)
            }
            E::Let(groups, body) => {
                for group in groups {
                    self.check_let_group(group);
                }
                self.check(*body)
            }
            E::Destructure {
                value,
                pattern,
                slot,
            } => {
                // The pattern is what is expected, as in FDR: `c.x = e`
                // does not take an event apart.
                let t = self.check_pattern(pattern);
                let t = self.evaluate_dots(t)?;
                let v = self.check(*value);
                let v = self.evaluate_dots(v)?;
                self.asymmetric(|c| c.unify(t, v))?;
                self.slot(*slot)
            }
            E::Tuple(_)
            | E::Seq(_)
            | E::SeqRange(..)
            | E::SetRange(..)
            | E::SeqComprehension(..)
            | E::Set(_)
            | E::SetComprehension(..)
            | E::Production(..)
            | E::Map(_)
            | E::TypeDot(_)
            | E::TypeTuple(_) => self.infer_collection(e),
            _ => {
                self.infer_process(e)?;
                atom::PROC
            }
        })
    }

    /// The type of a name: its binding's scheme (a built-in's, a
    /// global's, a constructor's, a channel's...), instantiated.
    fn infer_name(&mut self, e: ExprId) -> TyId {
        let script = self.script;
        use ExprKind as E;
        match &script.expr(e).kind {
            E::Var(v) => match self.binding_index(*v) {
                Some(i) => instantiate(&mut self.store, &self.bindings[i]),
                None => atom::ERROR,
            },
            E::Global(g) => {
                let global = &script.globals[g.index()];
                match global.kind {
                    GlobalKind::Builtin(b) => {
                        let scheme = self.env.builtin(&mut self.store, b);
                        instantiate_scheme(&mut self.store, &scheme)
                    }
                    GlobalKind::DataType(d) => {
                        let data = self.store.add(Ty::Data(d));
                        self.store.set(data)
                    }
                    _ => instantiate(&mut self.store, self.env.global(*g)),
                }
            }
            E::Ctor(c) => instantiate(&mut self.store, self.env.ctor(*c)),
            E::Channel(c) => instantiate(&mut self.store, self.env.channel(*c)),
            E::GroupMember { member, .. } => match self.env.members.get(member) {
                Some(binding) => instantiate(&mut self.store, binding),
                None => atom::ERROR,
            },
            _ => unreachable!("not a name"),
        }
    }

    /// The types of `es`, all the type of the first.
    fn same_types(&mut self, es: &[ExprId]) -> TyId {
        let Some((&first, rest)) = es.split_first() else {
            return self.store.fresh();
        };
        let t = self.check(first);
        for &e in rest {
            self.expect(e, t);
        }
        t
    }

    /// `f(args)`: `f` must be a function of as many arguments; each
    /// argument's dots are worked out before it is matched, and a dotted
    /// argument is not taken apart to fit (`g(x.y)` against `g(B)`).
    fn infer_call(&mut self, f: ExprId, args: &[ExprId]) -> Inferred {
        let params: Vec<TyId> = args.iter().map(|_| self.store.fresh()).collect();
        let result = self.store.fresh();
        let function = self.store.fun(&params, result);
        self.expect(f, function);
        let actuals: Vec<TyId> = args.iter().map(|&a| self.check(a)).collect();
        for (i, ((&arg, &param), actual)) in args.iter().zip(&params).zip(actuals).enumerate() {
            let context = Context::Argument {
                n: i + 1,
                function: f,
                argument: arg,
            };
            let span = self.expr_span(arg);
            let matched = self.within(context, |c| {
                c.at(span, |c| {
                    let actual = c.evaluate_dots(actual)?;
                    let expected = c.evaluate_dots(param)?;
                    c.asymmetric(|c| c.unify(expected, actual))
                })
            });
            // As FDR: the first argument that does not fit is the error
            // (the others are often wrong only because of it).
            if matched.is_err() {
                break;
            }
        }
        Ok(result)
    }

    fn infer_binary(&mut self, op: BinaryOp, a: ExprId, b: ExprId) -> Inferred {
        use BinaryOp as B;
        Ok(match op {
            B::Add | B::Sub | B::Mul | B::Div | B::Mod => {
                self.expect(a, atom::INT);
                self.expect(b, atom::INT);
                atom::INT
            }
            B::And | B::Or => {
                // FDR reads `and` and `or` as functions of two booleans.
                for (n, operand) in [a, b].into_iter().enumerate() {
                    let t = self.check(operand);
                    let span = self.expr_span(operand);
                    let context = Context::Operand {
                        n: n + 1,
                        operator: if op == B::And { "and" } else { "or" },
                        operand,
                    };
                    let _ = self.within(context, |c| {
                        c.at(span, |c| {
                            let t = c.evaluate_dots(t)?;
                            c.asymmetric(|c| c.unify(atom::BOOL, t))
                        })
                    });
                }
                atom::BOOL
            }
            B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge => {
                let t = self.check(a);
                let t = self.expect(b, t);
                let class = match op {
                    B::Eq | B::Ne => Class::Eq,
                    _ => Class::Ord,
                };
                self.ensure_classes(&[class], t)?;
                atom::BOOL
            }
            B::Concat => {
                let element = self.store.fresh();
                let seq = self.store.seq(element);
                let t = self.expect(a, seq);
                self.expect(b, t)
            }
        })
    }

    // ------------------------------------------------------------ let

    fn check_let_group(&mut self, group: &LetGroup) {
        match group {
            LetGroup::Lazy {
                func,
                captures,
                slot,
            } => {
                let slot_type = self.slot(*slot);
                self.define(*func, Captures::Of(captures), slot_type);
                if self.script.function(*func).annotation.is_some() {
                    // Generalised over what the rest of the scope does
                    // not use (the slot itself aside).
                    self.set_slot(*slot, Binding::Unchecked);
                    let scheme = self.let_scheme(slot_type);
                    self.set_slot(*slot, Binding::Poly(scheme));
                }
            }
            LetGroup::Recursive {
                captures, members, ..
            } => {
                let types: Vec<TyId> = members.iter().map(|_| self.store.fresh()).collect();
                for (&member, &t) in members.iter().zip(&types) {
                    self.env.members.insert(member, Binding::Mono(t));
                }
                for (&member, &t) in members.iter().zip(&types) {
                    self.define(member, Captures::Of(captures), t);
                }
                // As FDR: only the members with an annotation are
                // generalised, over what the rest of the scope does not
                // use.
                for member in members {
                    self.env.members.remove(member);
                }
                let schemes: Vec<Binding> = members
                    .iter()
                    .zip(&types)
                    .map(
                        |(&member, &t)| match self.script.function(member).annotation {
                            Some(_) => Binding::Poly(self.let_scheme(t)),
                            None => Binding::Mono(t),
                        },
                    )
                    .collect();
                for (&member, binding) in members.iter().zip(schemes) {
                    self.env.members.insert(member, binding);
                }
            }
        }
    }

    /// The scheme of an annotated `let` definition of type `t`: its
    /// variables that the enclosing scope does not use are quantified.
    fn let_scheme(&mut self, t: TyId) -> super::env::Scheme {
        let keep = self.environment_vars();
        super::env::generalise(&mut self.store, t, &keep)
    }

    /// The unsolved variables the scope being checked uses: its frames'
    /// variables, the monomorphic `let` definitions and the group of
    /// declarations being checked.
    fn environment_vars(&mut self) -> Vec<TyId> {
        let mut types: Vec<TyId> = Vec::new();
        for binding in &self.bindings {
            if let Binding::Mono(t) = binding {
                types.push(*t);
            }
        }
        for binding in self.env.members.values() {
            if let Binding::Mono(t) = binding {
                types.push(*t);
            }
        }
        types.extend(self.group_types.iter().copied());
        let mut vars = Vec::new();
        for t in types {
            self.store.free_vars(t, &mut vars);
        }
        vars
    }

    /// Checks the definition of `func` (a function defined by clauses, or
    /// a constant) against `name_type`, the type its name has, and
    /// against its type annotation if it has one.
    pub fn define(&mut self, func: FuncId, captures: Captures<'_>, name_type: TyId) {
        let f = self.script.function(func);
        let signature = f.annotation.as_ref().map(|a| self.annotation_type(a));
        match f.kind {
            FunctionKind::Named => {
                let context = Context::Declaration(f.name);
                let span = f.span;
                self.within(context, |c| {
                    let types = c.clause_types(func, captures, signature);
                    let all: Vec<TyId> = std::iter::once(name_type).chain(types).collect();
                    let _ = c.at(span, |c| c.unify_all(&all));
                });
            }
            _ => {
                let context = Context::Source {
                    what: "a pattern binding",
                    span: f.span,
                };
                let span = f.span;
                self.within(context, |c| {
                    let t = match signature {
                        Some(signature) => {
                            let _ = c.at(span, |c| c.unify(signature, name_type));
                            let body = f.clauses[0].body;
                            c.in_frame(func, captures, |c| c.expect(body, signature))
                        }
                        None => c.check_function(func, captures),
                    };
                    let _ = c.at(span, |c| {
                        let t = c.evaluate_dots(t)?;
                        let name_type = c.evaluate_dots(name_type)?;
                        c.asymmetric(|c| c.unify(name_type, t))
                    });
                });
            }
        }
    }

    // ------------------------------------------------------------ statements

    /// Checks the statements of a comprehension or replicated operator,
    /// whose generators draw from `source`s.
    pub fn check_stmts(&mut self, stmts: &[Stmt], source: Source) {
        for stmt in stmts {
            match stmt {
                Stmt::Guard(e) => {
                    let span = self.expr_span(*e);
                    let context = Context::Source {
                        what: "the statement of a comprehension",
                        span,
                    };
                    self.within(context, |c| c.expect(*e, atom::BOOL));
                }
                Stmt::Generator(pattern, from, span) => {
                    let context = Context::Source {
                        what: "the statement of a comprehension",
                        span: *span,
                    };
                    let _ = self.within(context, |c| {
                        c.at(*span, |c| {
                            let t = c.check(*from);
                            let t = c.evaluate_dots(t)?;
                            let p = c.check_pattern(pattern);
                            let p = c.evaluate_dots(p)?;
                            let wrapped = source.wrap(&mut c.store, p);
                            c.asymmetric(|c| c.unify(wrapped, t))
                        })
                    });
                }
            }
        }
    }

    // ------------------------------------------------------------ processes

    fn infer_process(&mut self, e: ExprId) -> Inferred<()> {
        use ExprKind as E;
        let script = self.script;
        let proc = atom::PROC;
        match &script.expr(e).kind {
            E::Prefix(event, fields, then) => self.infer_prefix(*event, fields, *then)?,
            E::Guard(g, p) => {
                self.expect(*g, atom::BOOL);
                self.expect(*p, proc);
            }
            E::ProcBinary(_, a, b) => {
                self.expect(*a, proc);
                self.expect(*b, proc);
            }
            E::Hide(a, set) | E::Project(a, set) => {
                self.expect(*a, proc);
                let events = self.events();
                self.expect(*set, events);
            }
            E::GenParallel(a, set, b) | E::Exception(a, set, b) => {
                self.expect(*a, proc);
                self.expect(*b, proc);
                let events = self.events();
                self.expect(*set, events);
            }
            E::SyncExternalChoice(a, set, b) | E::SyncInterrupt(a, set, b) => {
                self.expect(*a, proc);
                let events = self.events();
                self.expect(*set, events);
                self.expect(*b, proc);
            }
            E::AlphaParallel(a, x, y, b) => {
                self.expect(*a, proc);
                self.expect(*b, proc);
                let events = self.events();
                self.expect(*x, events);
                self.expect(*y, events);
            }
            E::LinkedParallel(a, pairs, stmts, b) => {
                self.expect(*a, proc);
                self.expect(*b, proc);
                self.check_stmts(stmts, Source::Set);
                self.check_channel_pairs(pairs);
            }
            E::Rename(a, pairs, stmts) => {
                self.expect(*a, proc);
                self.check_stmts(stmts, Source::Set);
                self.check_channel_pairs(pairs);
            }
            E::Replicated(op, stmts, body) => {
                let source = match op {
                    ReplicatedOp::SequentialComposition | ReplicatedOp::LinkedParallel(..) => {
                        Source::Seq
                    }
                    _ => Source::Set,
                };
                self.check_stmts(stmts, source);
                match op {
                    ReplicatedOp::SyncExternalChoice(set)
                    | ReplicatedOp::GenParallel(set)
                    | ReplicatedOp::AlphaParallel(set) => {
                        let events = self.events();
                        self.expect(*set, events);
                    }
                    ReplicatedOp::LinkedParallel(pairs, inner) => {
                        self.check_stmts(inner, Source::Set);
                        self.check_channel_pairs(pairs);
                    }
                    _ => {}
                }
                self.expect(*body, proc);
            }
            other => unreachable!("not a process operator: {other:?}"),
        }
        Ok(())
    }

    /// `c?x:S!e -> P`: the event with its fields must be an event; each
    /// input's pattern must be of a type that can be communicated.
    fn infer_prefix(
        &mut self,
        event: ExprId,
        fields: &[crate::script::ir::Field],
        then: ExprId,
    ) -> Inferred<()> {
        if fields.is_empty() {
            self.expect(event, atom::EVENT);
        } else {
            let head = self.check(event);
            let before_fields = self.diagnostics.len();
            let mut types = Vec::with_capacity(fields.len());
            for field in fields {
                let context = Context::Source {
                    what: "the field",
                    span: field.span,
                };
                let t = self.at(field.span, |c| match &field.kind {
                    FieldKind::Output(e) => c.within(context, |c| c.check(*e)),
                    FieldKind::Input(p, restriction) | FieldKind::NondetInput(p, restriction) => {
                        let set = restriction.map(|s| c.check(s));
                        c.within(context, |c| {
                            let t = c.check_pattern(p);
                            if let Some(set) = set {
                                let want = c.store.set(t);
                                let _ = c.unify(want, set);
                            }
                            c.ensure_classes(&[Class::Complete], t).unwrap_or(t)
                        })
                    }
                });
                types.push(t);
            }
            let last = fields.last().expect("not empty").span;
            let reported = self.diagnostics.len();
            // A field already found ill-typed is not blamed again.
            let _ = (reported == before_fields).then(|| {
                self.at(last, |c| {
                    let rest = c.store.dots_right(&types);
                    let dotted = c.store.dot(head, rest);
                    c.unify(atom::EVENT, dotted)
                })
            });
            if self.diagnostics.len() > reported
                && let Some(note) = self.field_count_note(event, fields.len())
            {
                self.diagnostics
                    .last_mut()
                    .expect("just reported")
                    .notes
                    .push(note);
            }
        }
        self.expect(then, atom::PROC);
        Ok(())
    }

    /// For a prefix on channel `c` given the wrong number of fields: how
    /// `c` is declared and how many fields each side has.
    fn field_count_note(&mut self, event: ExprId, fields: usize) -> Option<String> {
        let script = self.script;
        let mut head = event;
        let mut given = fields;
        let channel = loop {
            match &script.expr(head).kind {
                ExprKind::Channel(c) => break *c,
                ExprKind::Dot(a, b) => {
                    given += dot_leaves(script, *b);
                    head = *a;
                }
                _ => return None,
            }
        };
        let declared = match self.env.channel(channel).clone() {
            Binding::Poly(scheme) => self.reduce_dotable(scheme.body).0.len(),
            _ => return None,
        };
        if declared == given {
            return None;
        }
        let decl = &script.channels[channel.index()];
        let field_text: Vec<String> = decl
            .fields
            .iter()
            .map(|&f| self.text(script.function(f).span))
            .collect();
        let written = if field_text.is_empty() {
            format!("channel {}", decl.name)
        } else {
            format!("channel {} : {}", decl.name, field_text.join("."))
        };
        let plural = |n: usize| if n == 1 { "field" } else { "fields" };
        Some(format!(
            "`{}` is declared `{written}`: its events have {declared} {}, and this prefix gives \
             it {given}",
            decl.name,
            plural(declared)
        ))
    }

    /// The channel pairs of a renaming or linked parallel: each left side
    /// is a channel (possibly with some fields), each right side the
    /// same kind of channel.
    fn check_channel_pairs(&mut self, pairs: &[(ExprId, ExprId)]) {
        let lefts: Vec<TyId> = pairs
            .iter()
            .map(|&(left, _)| {
                let pointer = self.store.fresh();
                let channel = self.store.add(Ty::Extendable(atom::EVENT, pointer));
                self.expect(left, channel)
            })
            .collect();
        for (&(_, right), left) in pairs.iter().zip(lefts) {
            self.expect(right, left);
        }
    }
}

//! The resolved form of a script that the evaluator runs.
//!
//! Every name is resolved: a variable is a slot of the running function's
//! frame ([`VarRef::Local`]) or of the environment its closure captured
//! ([`VarRef::Capture`]); everything else is a global, a constructor or a
//! channel. Functions are *flat closures*: each lists exactly the variables
//! it captures, in a fixed order. Process expressions are functions too, so
//! a process value is a control state (the function) plus the values of
//! exactly its free variables — the leaf label the symmetry layer permutes.
//!
//! Expressions live in one arena ([`Script::exprs`](super::Script)) and
//! refer to each other by [`ExprId`].

use std::sync::Arc;

use ustr::Ustr;

use crate::syntax::Span;
use crate::syntax::ast::{BinaryOp, Model, ProcOp, Property, UnaryOp};

use super::builtins::Builtin;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// An expression in the script's arena.
    ExprId
);
id_type!(
    /// A function: a named function, a lambda, a lazily evaluated constant
    /// or a process expression.
    FuncId
);
id_type!(
    /// A top-level name.
    GlobalId
);
id_type!(
    /// A datatype constructor; ids follow declaration order, which is the
    /// order in which values are sorted and printed.
    CtorId
);
id_type!(
    /// A channel.
    ChannelId
);
id_type!(
    /// A datatype.
    DataTypeId
);
id_type!(
    /// A type variable of a type annotation (`a` in `f :: (a) -> a`).
    TypeVarId
);

/// A type annotation `f :: Eq a => (a, Int) -> Proc`, its names resolved.
#[derive(Debug, Clone)]
pub struct Annotation {
    /// The type variables it introduces (a variable an enclosing
    /// annotation introduced keeps its meaning inside).
    pub binds: Vec<TypeVarId>,
    pub ty: TypeSig,
    /// The annotation's type, for messages.
    pub span: Span,
}

/// A type as an annotation writes it.
#[derive(Debug, Clone)]
pub enum TypeSig {
    Int,
    Bool,
    Char,
    Proc,
    Event,
    Data(DataTypeId),
    Var(TypeVarId),
    Set(Box<TypeSig>),
    Seq(Box<TypeSig>),
    Map(Box<TypeSig>, Box<TypeSig>),
    Tuple(Vec<TypeSig>),
    /// `A.B.C`
    Dot(Vec<TypeSig>),
    /// `(A, B) -> C`
    Fun(Vec<TypeSig>, Box<TypeSig>),
    /// `A => B`
    Dotable(Box<TypeSig>, Box<TypeSig>),
    /// `a =>* B`: the variable stands for the fields.
    Extendable(TypeVarId, Box<TypeSig>),
}

/// A `Timed(et) { ... }` section: what the type checker checks of it
/// (`tock` is an event, `et` a function from events to integers).
#[derive(Debug, Clone)]
pub struct TimedSection {
    pub span: Span,
    /// `tock`, resolved where the section stands.
    pub tock: Option<FuncId>,
    /// The section's function (`$et<k>`, its translation's name).
    pub function: Option<FuncId>,
    /// The top-level definitions inside it.
    pub members: Vec<GlobalId>,
}

/// A type variable of an annotation, with the classes it is given.
#[derive(Debug, Clone)]
pub struct TypeVar {
    pub name: Ustr,
    /// `Eq`, `Ord`, `Complete`, `Set`, `Yieldable`.
    pub classes: Vec<Ustr>,
    /// The annotation that introduces it.
    pub bound_at: Span,
}

/// Where a variable lives at run time, seen from the function using it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VarRef {
    /// A slot of the running function's own frame.
    Local(u32),
    /// The n-th variable its closure captured.
    Capture(u32),
    /// The whole captured environment, as the handle of a recursive `let`
    /// group (used by the group's members to refer to each other).
    Env,
}

#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Char(char),
    String(Arc<str>),
    Var(VarRef),
    Global(GlobalId),
    Ctor(CtorId),
    Channel(ChannelId),
    /// A member of a recursive `let` group: `group` holds the group's
    /// environment, from which the member's closure (or value) is made.
    GroupMember {
        group: VarRef,
        member: FuncId,
    },
    /// A closure of `func` over the listed variables of this frame.
    Lambda(FuncId, Vec<VarRef>),
    /// A process value: control state `func`, variables the listed ones.
    Process(FuncId, Vec<VarRef>),
    App(ExprId, Vec<ExprId>),
    Dot(ExprId, ExprId),
    Unary(UnaryOp, ExprId),
    Binary(BinaryOp, ExprId, ExprId),
    If(ExprId, ExprId, ExprId),
    Let(Vec<LetGroup>, ExprId),
    /// Evaluates `value`, matches it against `pattern` (binding this
    /// frame's slots) and yields slot `slot`: one name of a pattern
    /// definition such as `(a, b) = f(x)`.
    Destructure {
        value: ExprId,
        pattern: Pattern,
        slot: u32,
    },
    Tuple(Vec<ExprId>),
    Seq(Vec<ExprId>),
    SeqRange(ExprId, Option<ExprId>),
    SeqComprehension(Vec<ExprId>, Vec<Stmt>),
    Set(Vec<ExprId>),
    SetRange(ExprId, Option<ExprId>),
    SetComprehension(Vec<ExprId>, Vec<Stmt>),
    Production(Vec<ExprId>, Vec<Stmt>),
    Map(Vec<(ExprId, ExprId)>),
    /// `A.B` in a type position: the set of dotted values.
    TypeDot(Vec<ExprId>),
    /// `(A, B)` in a type position: the set of tuples.
    TypeTuple(Vec<ExprId>),

    // Process operators. Each is the body of a process function
    // (`FunctionKind::Process`); the process layer gives them meaning.
    Prefix(ExprId, Vec<Field>, ExprId),
    Guard(ExprId, ExprId),
    ProcBinary(ProcOp, ExprId, ExprId),
    Hide(ExprId, ExprId),
    Project(ExprId, ExprId),
    GenParallel(ExprId, ExprId, ExprId),
    Exception(ExprId, ExprId, ExprId),
    AlphaParallel(ExprId, ExprId, ExprId, ExprId),
    LinkedParallel(ExprId, Vec<(ExprId, ExprId)>, Vec<Stmt>, ExprId),
    SyncExternalChoice(ExprId, ExprId, ExprId),
    SyncInterrupt(ExprId, ExprId, ExprId),
    Rename(ExprId, Vec<(ExprId, ExprId)>, Vec<Stmt>),
    Replicated(ReplicatedOp, Vec<Stmt>, ExprId),
}

/// The replicated operators, with their extra operand.
#[derive(Debug, Clone)]
pub enum ReplicatedOp {
    ExternalChoice,
    InternalChoice,
    Interleave,
    SequentialComposition,
    SyncExternalChoice(ExprId),
    GenParallel(ExprId),
    AlphaParallel(ExprId),
    LinkedParallel(Vec<(ExprId, ExprId)>, Vec<Stmt>),
}

/// One SCC of a `let`: the definitions that refer to each other.
#[derive(Debug, Clone)]
pub enum LetGroup {
    /// A constant no other definition of its group needs: evaluated at
    /// most once, when first used, into local slot `slot`.
    Lazy {
        func: FuncId,
        captures: Vec<VarRef>,
        slot: u32,
    },
    /// Functions (and constants) that may refer to each other. Their
    /// shared environment is built from `captures` into local slot
    /// `group_slot`; every use of a member, inside the group or in the
    /// `let`'s body, goes through it ([`ExprKind::GroupMember`]).
    Recursive {
        captures: Vec<VarRef>,
        group_slot: u32,
        /// The group's definitions.
        members: Vec<FuncId>,
    },
}

#[derive(Debug, Clone)]
pub enum Stmt {
    /// `p <- e` (or `p : e`), and where it is written.
    Generator(Pattern, ExprId, Span),
    Guard(ExprId),
}

/// A field of a prefix, and where it is written.
#[derive(Debug, Clone)]
pub struct Field {
    pub kind: FieldKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum FieldKind {
    /// `!e` or `.e`
    Output(ExprId),
    /// `?p` or `?p:S`
    Input(Pattern, Option<ExprId>),
    /// `$p` or `$p:S`
    NondetInput(Pattern, Option<ExprId>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    Wildcard,
    /// Binds the matched value to local slot n.
    Bind(u32),
    Int(i64),
    Char(char),
    Bool(bool),
    /// A constructor named in a pattern, and where (the symmetry layer
    /// reports it: naming a value breaks symmetry in its type).
    Ctor(CtorId, Span),
    Channel(ChannelId),
    Tuple(Vec<Pattern>),
    /// `p1.p2.p3`, flattened.
    Dot(Vec<Pattern>),
    /// `<p1, p2>` (also a string literal).
    Seq(Vec<Pattern>),
    /// `<x>^s^<y>`: fixed elements before and after one part of any
    /// length (absent when every part has a fixed length).
    Concat {
        prefix: Vec<Pattern>,
        middle: Option<Box<Pattern>>,
        suffix: Vec<Pattern>,
    },
    /// `{}` or `{p}`.
    Set(Vec<Pattern>),
    /// `p1 @@ p2`
    Both(Box<Pattern>, Box<Pattern>),
}

impl Pattern {
    /// Calls `f` on this pattern and every pattern inside it.
    pub fn walk(&self, f: &mut impl FnMut(&Pattern)) {
        f(self);
        match self {
            Pattern::Wildcard
            | Pattern::Bind(_)
            | Pattern::Int(_)
            | Pattern::Char(_)
            | Pattern::Bool(_)
            | Pattern::Ctor(..)
            | Pattern::Channel(_) => {}
            Pattern::Tuple(ps) | Pattern::Dot(ps) | Pattern::Seq(ps) | Pattern::Set(ps) => {
                ps.iter().for_each(|p| p.walk(f))
            }
            Pattern::Concat {
                prefix,
                middle,
                suffix,
            } => {
                prefix.iter().for_each(|p| p.walk(f));
                middle.iter().for_each(|p| p.walk(f));
                suffix.iter().for_each(|p| p.walk(f));
            }
            Pattern::Both(a, b) => {
                a.walk(f);
                b.walk(f);
            }
        }
    }

    /// The local slots the pattern binds, into `out`.
    pub fn bound_slots(&self, out: &mut Vec<u32>) {
        self.walk(&mut |p| {
            if let Pattern::Bind(slot) = p {
                out.push(*slot);
            }
        });
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    /// A function defined by clauses (`f(x) = ...`).
    Named,
    Lambda,
    /// A top-level or `let` constant, evaluated lazily.
    Constant,
    /// A process expression: its body is a process operator.
    Process,
}

#[derive(Debug, Clone)]
pub struct Function {
    /// For call stacks and printing: the definition's name, or the
    /// enclosing definition's for lambdas and process expressions.
    pub name: Ustr,
    pub kind: FunctionKind,
    pub span: Span,
    /// The names of the captured variables, in capture order.
    pub captures: Vec<Ustr>,
    /// Parameters per bracket: `f(x, y)(z)` has `[2, 1]`; empty for
    /// constants and processes.
    pub arity: Vec<usize>,
    pub clauses: Vec<Clause>,
    /// Local slots a call needs.
    pub frame_size: u32,
    /// For a process expression that is the whole body of a definition
    /// `P(x, y) = ...`: the definition's name and, for each parameter in
    /// order, its capture index — to print the state as `P(1, A)`.
    pub call_form: Option<CallForm>,
    /// For a process expression in a branch of a definition's `if`
    /// (`P(x, S) = if S == {} then ... else [] y : S @ ...`) that captures
    /// every parameter: the call that makes it, to print its state as
    /// `P(1, {A})` rather than as the branch's text. Only printing reads
    /// it: unlike [`Function::call_form`], the state is not the whole
    /// body, so the process layer treats it as any other expression.
    pub shown_call: Option<CallForm>,
    /// The type annotation of a definition that has one.
    pub annotation: Option<Annotation>,
    /// For a top-level function (a definition, a field type, an
    /// assertion's process, ...): the top-level names it and the
    /// functions inside it use, which the type checker orders
    /// declarations by. Empty for the functions inside.
    pub uses: Vec<super::Named>,
}

#[derive(Debug, Clone)]
pub struct CallForm {
    pub name: Ustr,
    pub params: Vec<Option<u32>>,
}

#[derive(Debug, Clone)]
pub struct Clause {
    /// One pattern list per bracket.
    pub params: Vec<Vec<Pattern>>,
    pub body: ExprId,
    pub span: Span,
}

/// What a top-level name stands for.
#[derive(Debug, Clone)]
pub enum GlobalKind {
    /// A constant (evaluated once, when first needed) or a function.
    Definition(FuncId),
    Builtin(Builtin),
    DataType(DataTypeId),
    /// `subtype S = A | B.{0}`: the clauses, each a constructor with
    /// field types.
    SubType(Vec<(CtorId, Vec<FuncId>)>),
    /// `nametype N = e`: a type expression.
    NameType(FuncId),
}

#[derive(Debug, Clone)]
pub struct Global {
    pub name: Ustr,
    pub kind: GlobalKind,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct DataType {
    pub name: Ustr,
    pub ctors: Vec<CtorId>,
    /// Whether its field types refer back to it (its set is infinite).
    pub recursive: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Constructor {
    pub name: Ustr,
    pub datatype: DataTypeId,
    /// One type expression per field, each a constant.
    pub fields: Vec<FuncId>,
    pub span: Span,
    /// `C :: Int => T`, if given.
    pub annotation: Option<Annotation>,
}

#[derive(Debug, Clone)]
pub struct Channel {
    pub name: Ustr,
    /// One type expression per field, each a constant.
    pub fields: Vec<FuncId>,
    pub span: Span,
    /// `c :: Int => Event`, if given.
    pub annotation: Option<Annotation>,
}

#[derive(Debug, Clone)]
pub struct Assertion {
    pub negated: bool,
    pub kind: AssertionKind,
    pub options: Vec<AssertOption>,
    pub span: Span,
}

#[derive(Debug, Clone)]
/// Operands of assertions are constants ([`FunctionKind::Constant`]): an
/// expression may bind variables (a comprehension) and so needs a frame.
pub enum AssertionKind {
    Refinement {
        spec: FuncId,
        model: Model,
        imp: FuncId,
    },
    Property {
        process: FuncId,
        property: Property,
        model: Option<Model>,
    },
    HasTrace {
        process: FuncId,
        model: Option<Model>,
        trace: FuncId,
    },
    Symmetric {
        process: FuncId,
        types: Vec<FuncId>,
    },
}

impl AssertionKind {
    /// The process whose behaviour the assertion is about (the
    /// implementation of a refinement): the one a counterexample runs.
    pub fn implementation(&self) -> FuncId {
        match *self {
            AssertionKind::Refinement { imp, .. } => imp,
            AssertionKind::Property { process, .. }
            | AssertionKind::HasTrace { process, .. }
            | AssertionKind::Symmetric { process, .. } => process,
        }
    }
}

#[derive(Debug, Clone)]
pub enum AssertOption {
    TauPriority(FuncId, Span),
    /// `:[partial order reduce]`, with the mode written after it, if any
    /// (FDR accepts any; symcsp has one method for all).
    PartialOrderReduce(Span, Option<ustr::Ustr>),
    SymmetryReduce(Vec<FuncId>, Span),
}

impl ExprKind {
    /// Whether the expression is a leaf: a literal, a variable or a name,
    /// whose value is had at once (and which prints as itself).
    pub fn is_leaf(&self) -> bool {
        matches!(
            self,
            ExprKind::Int(_)
                | ExprKind::Bool(_)
                | ExprKind::Char(_)
                | ExprKind::String(_)
                | ExprKind::Var(_)
                | ExprKind::Global(_)
                | ExprKind::Ctor(_)
                | ExprKind::Channel(_)
        )
    }

    /// Calls `f` on every variable this expression itself reads: a
    /// variable, a group's handle, and what a closure, a process value
    /// or a `let` group captures (not those of the expressions inside).
    pub fn for_each_var(&self, mut f: impl FnMut(VarRef)) {
        match self {
            ExprKind::Var(r) | ExprKind::GroupMember { group: r, .. } => f(*r),
            ExprKind::Lambda(_, refs) | ExprKind::Process(_, refs) => {
                refs.iter().for_each(|r| f(*r))
            }
            ExprKind::Let(groups, _) => {
                for group in groups {
                    match group {
                        LetGroup::Lazy { captures, .. } | LetGroup::Recursive { captures, .. } => {
                            captures.iter().for_each(|r| f(*r))
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Calls `f` on every expression this one contains directly (nested
    /// functions are not entered: their bodies are their own).
    pub fn for_each_child(&self, mut f: impl FnMut(ExprId)) {
        let stmts = |stmts: &[Stmt], f: &mut dyn FnMut(ExprId)| {
            for s in stmts {
                match s {
                    Stmt::Generator(_, e, _) | Stmt::Guard(e) => f(*e),
                }
            }
        };
        match self {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Char(_)
            | ExprKind::String(_)
            | ExprKind::Var(_)
            | ExprKind::Global(_)
            | ExprKind::Ctor(_)
            | ExprKind::Channel(_)
            | ExprKind::GroupMember { .. }
            | ExprKind::Lambda(..)
            | ExprKind::Process(..) => {}
            ExprKind::App(a, bs) => {
                f(*a);
                bs.iter().for_each(|b| f(*b));
            }
            ExprKind::Tuple(es)
            | ExprKind::Seq(es)
            | ExprKind::Set(es)
            | ExprKind::TypeDot(es)
            | ExprKind::TypeTuple(es) => es.iter().for_each(|e| f(*e)),
            ExprKind::Dot(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::Guard(a, b)
            | ExprKind::ProcBinary(_, a, b)
            | ExprKind::Hide(a, b)
            | ExprKind::Project(a, b) => {
                f(*a);
                f(*b);
            }
            ExprKind::Unary(_, a) | ExprKind::Destructure { value: a, .. } => f(*a),
            ExprKind::If(a, b, c)
            | ExprKind::GenParallel(a, b, c)
            | ExprKind::Exception(a, b, c)
            | ExprKind::SyncExternalChoice(a, b, c)
            | ExprKind::SyncInterrupt(a, b, c) => {
                f(*a);
                f(*b);
                f(*c);
            }
            ExprKind::AlphaParallel(a, b, c, d) => [a, b, c, d].into_iter().for_each(|e| f(*e)),
            ExprKind::Let(_, body) => f(*body),
            ExprKind::SeqRange(a, b) | ExprKind::SetRange(a, b) => {
                f(*a);
                b.iter().for_each(|b| f(*b));
            }
            ExprKind::SeqComprehension(es, ss)
            | ExprKind::SetComprehension(es, ss)
            | ExprKind::Production(es, ss) => {
                es.iter().for_each(|e| f(*e));
                stmts(ss, &mut f);
            }
            ExprKind::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                f(*k);
                f(*v);
            }),
            ExprKind::Prefix(ev, fields, then) => {
                f(*ev);
                for field in fields {
                    match &field.kind {
                        FieldKind::Output(e) => f(*e),
                        FieldKind::Input(_, s) | FieldKind::NondetInput(_, s) => {
                            s.iter().for_each(|e| f(*e))
                        }
                    }
                }
                f(*then);
            }
            ExprKind::LinkedParallel(a, pairs, ss, b) => {
                f(*a);
                f(*b);
                pairs.iter().for_each(|(x, y)| {
                    f(*x);
                    f(*y);
                });
                stmts(ss, &mut f);
            }
            ExprKind::Rename(a, pairs, ss) => {
                f(*a);
                pairs.iter().for_each(|(x, y)| {
                    f(*x);
                    f(*y);
                });
                stmts(ss, &mut f);
            }
            ExprKind::Replicated(op, ss, body) => {
                match op {
                    ReplicatedOp::SyncExternalChoice(a)
                    | ReplicatedOp::GenParallel(a)
                    | ReplicatedOp::AlphaParallel(a) => f(*a),
                    ReplicatedOp::LinkedParallel(pairs, inner) => {
                        pairs.iter().for_each(|(x, y)| {
                            f(*x);
                            f(*y);
                        });
                        stmts(inner, &mut f);
                    }
                    _ => {}
                }
                stmts(ss, &mut f);
                f(*body);
            }
        }
    }

    /// The functions this expression creates values of.
    pub fn nested_function(&self) -> Option<FuncId> {
        match self {
            ExprKind::Lambda(func, _) | ExprKind::Process(func, _) => Some(*func),
            ExprKind::GroupMember { member, .. } => Some(*member),
            _ => None,
        }
    }
}

//! The abstract syntax of CSPM.
//!
//! Every node carries the [`Span`] it was parsed from. Parentheses leave no
//! node behind: the tree is pure structure, and the pretty-printer puts
//! back the parentheses that binding strengths require.

use thin_vec::ThinVec;
use ustr::Ustr;

use super::source::{FileId, Span};

/// A name as written, possibly qualified by modules (`M::N::x`).
///
/// Names are interned ([`Ustr`]): one pointer, no allocation per
/// occurrence, and equality is a pointer comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name {
    /// The whole text, module path included (`M::x`).
    pub text: Ustr,
    pub span: Span,
}

impl Name {
    pub fn simple(name: &str, span: Span) -> Self {
        Name {
            text: Ustr::from(name),
            span,
        }
    }

    /// The module path followed by the name itself; never empty.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.text.as_str().split("::")
    }

    /// The unqualified last part.
    pub fn last(&self) -> &str {
        self.parts().last().unwrap_or("")
    }

    pub fn is_qualified(&self) -> bool {
        self.text.contains("::")
    }
}

/// An identifier at a binding site (declaration names, parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: Ustr,
    pub span: Span,
}

/// One script file: its declarations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub id: FileId,
    pub decls: ThinVec<Decl>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    pub kind: DeclKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclKind {
    /// One clause `lhs = rhs`. The clauses of a function defined by pattern
    /// matching are consecutive `Definition`s with the same name.
    Definition(Definition),
    /// `f, g :: (Int) -> Proc`
    TypeAnnotation(ThinVec<Ident>, TypeExpr),
    /// `channel a, b : T.U` (no type: the channels carry no data).
    Channel(ThinVec<Ident>, Option<Expr>),
    DataType(Ident, ThinVec<DataClause>),
    SubType(Ident, ThinVec<DataClause>),
    NameType(Ident, Expr),
    External(ThinVec<Ident>),
    Transparent(ThinVec<Ident>),
    /// Boxed: assertions are rare and large.
    Assert(Box<Assertion>),
    Include(Include),
    Print(Expr),
    Module(Module),
    /// `instance M2 = M(1, 2)` (no arguments: `instance M2 = M`).
    Instance(Ident, Name, Option<ThinVec<Expr>>),
    /// `Timed(et) { ... }`
    Timed(Option<Expr>, ThinVec<Decl>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub lhs: Lhs,
    pub rhs: Expr,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lhs {
    /// `P = ...`
    Name(Ident),
    /// `f(p, q)(r) = ...`: one pattern list per bracket (curried).
    Function(Ident, ThinVec<ThinVec<Pattern>>),
    /// `(a, b) = ...`, `c.x = ...`
    Pattern(Pattern),
}

impl Lhs {
    /// The name being defined, for names and functions.
    pub fn name(&self) -> Option<&Ident> {
        match self {
            Lhs::Name(n) | Lhs::Function(n, _) => Some(n),
            Lhs::Pattern(_) => None,
        }
    }
}

/// `Name` or `Name.T1.T2` in a datatype or subtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataClause {
    pub name: Ident,
    /// The field types, as one dotted expression (`{0..3}.Bool`).
    pub fields: Option<Expr>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// The path as written between the quotes.
    pub path: String,
    /// The file it resolved to, filled in by the loader.
    pub file: Option<FileId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub name: Ident,
    /// `module M(X, Y)`: `Some` even when the brackets are empty.
    pub params: Option<ThinVec<Ident>>,
    pub private: ThinVec<Decl>,
    /// `None` when the module has no `exports` section.
    pub exports: Option<ThinVec<Decl>>,
}

// ---------------------------------------------------------------- types

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeExpr {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// `Int`, `Proc`, a datatype, or a type variable `a`.
    Name(Name),
    Tuple(ThinVec<TypeExpr>),
    Set(Box<TypeExpr>),
    Seq(Box<TypeExpr>),
    Map(Box<TypeExpr>, Box<TypeExpr>),
    /// `A.B.C`
    Dot(ThinVec<TypeExpr>),
    /// `(A, B) -> C`: the argument tuple and the result.
    Function(Box<TypeExpr>, Box<TypeExpr>),
    /// `A => B`: a value that, dotted with an `A`, gives a `B` (a channel
    /// or constructor with fields still to come).
    Dotable(Box<TypeExpr>, Box<TypeExpr>),
    /// `A =>* B`: a value that, dotted with any number of `A`s, gives a
    /// `B`.
    Extendable(Box<TypeExpr>, Box<TypeExpr>),
    /// `Eq a => t`, `(Eq a, Ord b) => t`: (class, type variable) pairs.
    Constrained(ThinVec<(Ident, Ident)>, Box<TypeExpr>),
}

// ---------------------------------------------------------------- assertions

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    /// `assert not ...`
    pub negated: bool,
    pub kind: AssertionKind,
    pub options: ThinVec<AssertOption>,
}

/// The semantic models of FDR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Model {
    Traces,
    Failures,
    FailuresDivergences,
    Refusals,
    RefusalsDivergences,
    Revivals,
    RevivalsDivergences,
}

impl Model {
    /// FDR's abbreviation: `T`, `F`, `FD`, ...
    pub fn abbreviation(self) -> &'static str {
        match self {
            Model::Traces => "T",
            Model::Failures => "F",
            Model::FailuresDivergences => "FD",
            Model::Refusals => "R",
            Model::RefusalsDivergences => "RD",
            Model::Revivals => "V",
            Model::RevivalsDivergences => "VD",
        }
    }

    pub fn from_abbreviation(s: &str) -> Option<Model> {
        Some(match s {
            "T" => Model::Traces,
            "F" => Model::Failures,
            "FD" => Model::FailuresDivergences,
            "R" => Model::Refusals,
            "RD" => Model::RefusalsDivergences,
            "V" => Model::Revivals,
            "VD" => Model::RevivalsDivergences,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Property {
    DeadlockFree,
    /// `divergence free` and `livelock free` are the same check.
    DivergenceFree,
    Deterministic,
}

impl Property {
    pub fn text(self) -> &'static str {
        match self {
            Property::DeadlockFree => "deadlock free",
            Property::DivergenceFree => "divergence free",
            Property::Deterministic => "deterministic",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssertionKind {
    /// `spec [m= imp`
    Refinement { spec: Expr, model: Model, imp: Expr },
    /// `P :[deadlock free [F]]`
    Property {
        process: Expr,
        property: Property,
        model: Option<Model>,
    },
    /// `P :[has trace [T]]: <a, b>`
    HasTrace {
        process: Expr,
        model: Option<Model>,
        trace: Expr,
    },
    /// `P :[symmetric]: T, U`: the static check that P is symmetric in
    /// the given types.
    Symmetric { process: Expr, types: ThinVec<Expr> },
}

/// An option after an assertion, with the span of the whole option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertOption {
    pub kind: AssertOptionKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssertOptionKind {
    /// `:[tau priority over]: S`
    TauPriority(Expr),
    /// `:[partial order reduce]`, or with a mode:
    /// `:[partial order reduce [fast]]`.
    PartialOrderReduce(Option<Ident>),
    /// `:[symmetry reduce]` (types chosen automatically) or
    /// `:[symmetry reduce]: T, diff(U, {| c |})`.
    SymmetryReduce(ThinVec<Expr>),
}

impl AssertOptionKind {
    /// The option's name as written between `:[` and `]`.
    pub fn name(&self) -> &'static str {
        match self {
            AssertOptionKind::TauPriority(_) => "tau priority over",
            AssertOptionKind::PartialOrderReduce(_) => "partial order reduce",
            AssertOptionKind::SymmetryReduce(_) => "symmetry reduce",
        }
    }
}

// ---------------------------------------------------------------- expressions

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `not b`
    Not,
    /// `#s`
    Length,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// `s ^ t`
    Concat,
}

/// Binary process operators whose operands are both processes and that
/// carry no further argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcOp {
    ExternalChoice,
    InternalChoice,
    Interleave,
    SequentialComposition,
    Interrupt,
    SlidingChoice,
}

/// The operators that have a replicated form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplicatedOp {
    ExternalChoice,
    InternalChoice,
    Interleave,
    /// `; x : <..> @ P` (the generator must be a sequence).
    SequentialComposition,
    /// `[+ A +] x : S @ P`
    SyncExternalChoice(Box<Expr>),
    /// `[| A |] x : S @ P`
    GenParallel(Box<Expr>),
    /// `|| x : S @ [A(x)] P(x)`: the alphabet expression.
    AlphaParallel(Box<Expr>),
    /// `[ a <-> b ] x : <..> @ P`
    LinkedParallel(ThinVec<(Expr, Expr)>, ThinVec<Stmt>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExprKind {
    Int(i64),
    Char(char),
    String(String),
    Bool(bool),
    Name(Name),
    /// `_`: only meaningful where a pattern is expected.
    Wildcard,
    Tuple(ThinVec<Expr>),
    /// `f(a, b)`
    App(Box<Expr>, ThinVec<Expr>),
    /// `c.x`
    Dot(Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `p1 @@ p2`: only meaningful where a pattern is expected.
    DoubleAt(Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Let(ThinVec<Decl>, Box<Expr>),
    /// `\ p, q @ e`
    Lambda(ThinVec<Pattern>, Box<Expr>),

    /// `<a, b>`
    Seq(ThinVec<Expr>),
    /// `<m..n>`, `<m..>`; with statements, `<m..n | stmts>` is one range
    /// per binding, concatenated.
    SeqRange(Box<Expr>, Option<Box<Expr>>, ThinVec<Stmt>),
    /// `<e | stmts>`
    SeqComprehension(ThinVec<Expr>, ThinVec<Stmt>),
    /// `{a, b}`
    Set(ThinVec<Expr>),
    /// `{m..n}`, `{m..}`; with statements, `{m..n | stmts}` is the union
    /// of one range per binding.
    SetRange(Box<Expr>, Option<Box<Expr>>, ThinVec<Stmt>),
    /// `{e | stmts}`
    SetComprehension(ThinVec<Expr>, ThinVec<Stmt>),
    /// `{| c, d.1 | stmts |}`
    Production(ThinVec<Expr>, ThinVec<Stmt>),
    /// `(| k => v |)`
    Map(ThinVec<(Expr, Expr)>),

    /// `e?x!y -> P`
    Prefix(Box<Expr>, ThinVec<Field>, Box<Expr>),
    /// `b & P`
    Guard(Box<Expr>, Box<Expr>),
    Process(ProcOp, Box<Expr>, Box<Expr>),
    /// `P \ A`
    Hide(Box<Expr>, Box<Expr>),
    /// `P |\ A`
    Project(Box<Expr>, Box<Expr>),
    /// `P [| A |] Q`
    GenParallel(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `P [| A |> Q`
    Exception(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `P [ A || B ] Q`
    AlphaParallel(Box<AlphaParallel>),
    /// `P [ a <-> b, c.x <-> d.x | x <- S ] Q`
    LinkedParallel(Box<LinkedParallel>),
    /// `P [+ A +] Q`
    SyncExternalChoice(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `P /+ A +\ Q`
    SyncInterrupt(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `P [[ a <- b, c.x <- d.x | x <- S ]]`
    Rename(Box<Expr>, ThinVec<(Expr, Expr)>, ThinVec<Stmt>),
    /// `[] x : S @ P` and the other replicated operators.
    Replicated(Box<Replicated>),
}

impl ExprKind {
    /// `process \ set` (or `|\` when `project`) as FDR reads it. Hiding
    /// binds more loosely than the other process operators, so that `P |||
    /// Q \ A` hides in both; read alone, `P \ A ||| Q` would then be `P \
    /// (A ||| Q)`, which nobody means. FDR takes it as `(P \ A) ||| Q`:
    /// when the hidden set is a binary process operator written without
    /// brackets, the hiding takes its first operand and the operator the
    /// hiding (`(P \ A) [] Q`, `(P \ A) [| B |] Q`, ...; not for linked
    /// parallel, as in FDR). Both parsers build hidings here.
    pub fn hiding(project: bool, process: Box<Expr>, set: Box<Expr>) -> ExprKind {
        let unbracketed = set
            .kind
            .first_process_operand()
            .is_some_and(|first| first.span.start == set.span.start);
        if !unbracketed {
            return if project {
                ExprKind::Project(process, set)
            } else {
                ExprKind::Hide(process, set)
            };
        }
        let hide = |first: Box<Expr>| {
            let span = process.span.to(first.span);
            Box::new(Expr {
                kind: ExprKind::hiding(project, process, first),
                span,
            })
        };
        match set.kind {
            ExprKind::Process(op, first, second) => ExprKind::Process(op, hide(first), second),
            ExprKind::GenParallel(first, sync, second) => {
                ExprKind::GenParallel(hide(first), sync, second)
            }
            ExprKind::Exception(first, sync, second) => {
                ExprKind::Exception(hide(first), sync, second)
            }
            ExprKind::SyncExternalChoice(first, sync, second) => {
                ExprKind::SyncExternalChoice(hide(first), sync, second)
            }
            ExprKind::SyncInterrupt(first, sync, second) => {
                ExprKind::SyncInterrupt(hide(first), sync, second)
            }
            ExprKind::AlphaParallel(parallel) => {
                let AlphaParallel {
                    left,
                    left_alphabet,
                    right_alphabet,
                    right,
                } = *parallel;
                ExprKind::AlphaParallel(Box::new(AlphaParallel {
                    left: *hide(Box::new(left)),
                    left_alphabet,
                    right_alphabet,
                    right,
                }))
            }
            _ => unreachable!("first_process_operand named the operators"),
        }
    }

    /// The first operand of a binary process operator that a hiding
    /// written before it takes (see [`ExprKind::hiding`]).
    fn first_process_operand(&self) -> Option<&Expr> {
        match self {
            ExprKind::Process(_, first, _)
            | ExprKind::GenParallel(first, _, _)
            | ExprKind::Exception(first, _, _)
            | ExprKind::SyncExternalChoice(first, _, _)
            | ExprKind::SyncInterrupt(first, _, _) => Some(first),
            ExprKind::AlphaParallel(parallel) => Some(&parallel.left),
            _ => None,
        }
    }
}

// The three largest process operators are boxed whole: they are rare, and
// unboxed they would make every expression of every script larger.

/// `left [left_alphabet || right_alphabet] right`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlphaParallel {
    pub left: Expr,
    pub left_alphabet: Expr,
    pub right_alphabet: Expr,
    pub right: Expr,
}

/// `left [a <-> b, ... | stmts] right`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedParallel {
    pub left: Expr,
    pub links: ThinVec<(Expr, Expr)>,
    pub stmts: ThinVec<Stmt>,
    pub right: Expr,
}

/// `op stmts @ body`, as in `[] x : S @ P`
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replicated {
    pub op: ReplicatedOp,
    pub stmts: ThinVec<Stmt>,
    pub body: Expr,
}

/// A communication field of a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub kind: FieldKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldKind {
    /// `?p` or `?p:S`
    Input(Pattern, Option<Expr>),
    /// `$p` or `$p:S`
    NondetInput(Pattern, Option<Expr>),
    /// `!e`
    Output(Expr),
}

/// A statement of a comprehension or replicated operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// How a generator was written: `x <- S` or `x : S` (the same meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeneratorSep {
    Arrow,
    Colon,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StmtKind {
    Generator(Pattern, GeneratorSep, Expr),
    /// A boolean condition.
    Guard(Expr),
}

// ---------------------------------------------------------------- patterns

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PatternKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternKind {
    Wildcard,
    /// A variable to bind, or a datatype constructor or channel to match:
    /// which one is decided when names are resolved.
    Name(Name),
    Int(i64),
    Char(char),
    String(String),
    Bool(bool),
    Tuple(ThinVec<Pattern>),
    /// `c.x`
    Dot(Box<Pattern>, Box<Pattern>),
    /// `<x, y>`
    Seq(ThinVec<Pattern>),
    /// `<x> ^ s`, `s ^ <x>`
    Concat(Box<Pattern>, Box<Pattern>),
    /// `{}`, `{x}`
    Set(ThinVec<Pattern>),
    /// `p1 @@ p2`: matches both.
    DoubleAt(Box<Pattern>, Box<Pattern>),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large script holds about one expression node per five bytes of
    /// text, so the node sizes decide the parser's memory (the parse
    /// benchmark's budget is 20 bytes of tree per byte of script). These
    /// bounds keep a new variant from growing every node unnoticed.
    #[test]
    fn nodes_stay_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<Span>(), 8);
        assert!(size_of::<Expr>() <= 40, "Expr: {}", size_of::<Expr>());
        assert!(
            size_of::<Pattern>() <= 32,
            "Pattern: {}",
            size_of::<Pattern>()
        );
        assert!(size_of::<Stmt>() <= 88, "Stmt: {}", size_of::<Stmt>());
        assert!(size_of::<Decl>() <= 80, "Decl: {}", size_of::<Decl>());
    }
}

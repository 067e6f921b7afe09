//! FDR's timed semantics (tock-CSP) for `Timed(et) { ... }` sections: the
//! sections' definitions are rewritten into untimed CSPM before names are
//! resolved, the translation FDR's own front end makes:
//!
//! - `STOP` is `TSTOP = tock -> TSTOP` and `SKIP` is `TSKIP = SKIP [] tock
//!   -> TSKIP` (time may pass); `WAIT(n)` is `n` tocks then `TSKIP`;
//! - a prefix `e -> Q` may idle, and each event `ev` it performs takes
//!   `et(ev)` tocks: `X = tock -> X [] e -> tock^et(ev) -> Q`;
//! - `[]`, `/\` and their replicated forms synchronise on `tock` without
//!   resolving (`[+ {tock} +]`, `/+ {tock} +\`), `|||` is `[| {tock} |]`,
//!   and every synchronisation set or alphabet gains `tock`;
//! - a false guard is `TSTOP`; a replicated operator over nothing is
//!   `TSTOP` (`TSKIP` for `;`);
//! - `timed_priority(P)` is `prioritise(P, <{}, {tock}>)`: τ and ✓ go
//!   before `tock` (maximal progress);
//! - hiding, `|~|`, `;`, `[>`, exceptions, renaming and projection are
//!   unchanged.
//!
//! `tock` is the script's own `tock`, as in FDR. The helper processes are
//! top-level definitions ([`HELPERS`]: `TSTOP'`, `TSKIP'`, `TOCKS'`,
//! `WAIT'`, `timed_priority'`); each prefix becomes a `let` of its own (`P$3` in `P`), and each
//! section's function a definition (`$et0`). Sections inside a `let` are
//! translated too.

use thin_vec::{ThinVec, thin_vec};
use ustr::Ustr;

use crate::syntax::ast::{
    BinaryOp, Decl, DeclKind, Definition, Expr, ExprKind, FieldKind, File, Ident, Lhs, Name,
    Pattern, PatternKind, ProcOp, Replicated, ReplicatedOp, Stmt,
};
use crate::syntax::{Diagnostic, SourceMap, Span};

/// FDR's timed processes, as the translation names them: `'` makes the
/// names ones no FDR script defines (FDR reserves `TSTOP`, `TSKIP` and
/// `WAIT` inside sections), and a state of one reads as this text.
const HELPERS: &str = "\
-- FDR's timed processes, for Timed sections (symcsp's translation)
TSTOP'(t) = t -> TSTOP'(t)
TSKIP'(t) = SKIP [] t -> TSKIP'(t)
TOCKS'(t, n, P) = if n <= 0 then P else t -> TOCKS'(t, n - 1, P)
WAIT'(t)(n) = TOCKS'(t, n, TSKIP'(t))
timed_priority'(t)(P) = prioritise(P, <{}, {t}>)
";

/// The name of the source file the helper definitions are read from.
pub(super) const HELPERS_FILE: &str = "<timed processes>";

/// Rewrites every `Timed` section of `files` (at the top level, in
/// modules and in `let`s), and, if there is one, adds the helper
/// definitions (a file of their own in `sources`) to `files[root]`.
pub(super) fn translate(
    files: &mut [File],
    root: usize,
    sources: &mut SourceMap,
) -> Result<(), Vec<Diagnostic>> {
    // A section inside a `let` can be anywhere: the definitions are only
    // walked when some file has one at all.
    if !sources.files().any(|(_, f)| f.text.contains("Timed")) {
        return Ok(());
    }
    let mut tx = Translator::default();
    for file in files.iter_mut() {
        let mut top = Section {
            tx: &mut tx,
            et: Ustr::from(""),
            within: Ustr::from(""),
            timed: false,
        };
        top.decls(&mut file.decls);
    }
    if tx.sections > 0 {
        let file = sources.add(HELPERS_FILE, None, HELPERS.to_string(), None);
        let helpers = crate::syntax::parse_decls(sources.base(file), HELPERS)?;
        files[root].decls.extend(helpers);
    }
    Ok(())
}

#[derive(Default)]
struct Translator {
    /// Sections so far (each gets its `$et` function).
    sections: usize,
    /// Fresh names so far.
    fresh: usize,
}

/// The walk over some declarations: inside a section (`timed`), every
/// process is rewritten; outside, only sections are looked for.
struct Section<'t> {
    tx: &'t mut Translator,
    /// The section's function, as a definition's name.
    et: Ustr,
    /// The definition being translated: its prefixes are named after it
    /// (`P$1`), which no script can write.
    within: Ustr,
    timed: bool,
}

impl Section<'_> {
    /// Walks a list of declarations, translating the sections in it.
    fn decls(&mut self, decls: &mut ThinVec<Decl>) {
        for decl in decls.iter_mut() {
            let span = decl.span;
            match &mut decl.kind {
                DeclKind::Module(module) => {
                    self.decls(&mut module.private);
                    if let Some(exports) = &mut module.exports {
                        self.decls(exports);
                    }
                }
                DeclKind::Timed(function, inner) => self.section(function.as_ref(), inner, span),
                DeclKind::Definition(_) => self.decl(decl),
                // An assertion in a section is about timed processes, as
                // FDR translates it.
                DeclKind::Assert(assertion) if self.timed => self.assertion(assertion),
                _ => {}
            }
        }
    }

    /// Translates one section's declarations and puts its function first
    /// among them, as `$et<k>`.
    fn section(&mut self, function: Option<&Expr>, inner: &mut ThinVec<Decl>, span: Span) {
        let et = format!("$et{}", self.tx.sections);
        self.tx.sections += 1;
        let function = function.cloned().unwrap_or_else(|| {
            // FDR's default: every event takes one tock.
            expr(
                ExprKind::Lambda(
                    thin_vec![pattern(PatternKind::Wildcard, span)],
                    Box::new(expr(ExprKind::Int(1), span)),
                ),
                span,
            )
        });
        let outer = (self.et, self.timed);
        self.et = Ustr::from(&et);
        self.timed = true;
        self.decls(inner);
        (self.et, self.timed) = outer;
        inner.insert(0, definition(&et, None, function, span));
    }

    fn fresh(&mut self, what: &str) -> String {
        self.tx.fresh += 1;
        format!("{what}${}", self.tx.fresh)
    }

    fn decl(&mut self, decl: &mut Decl) {
        if let DeclKind::Definition(def) = &mut decl.kind {
            let outer = self.within;
            if let Some(ident) = def.lhs.name() {
                self.within = ident.name;
            }
            self.expr(&mut def.rhs);
            self.within = outer;
        }
    }

    fn assertion(&mut self, assertion: &mut crate::syntax::ast::Assertion) {
        use crate::syntax::ast::AssertionKind as A;
        match &mut assertion.kind {
            A::Refinement { spec, imp, .. } => {
                self.expr(spec);
                self.expr(imp);
            }
            A::Property { process, .. }
            | A::HasTrace { process, .. }
            | A::Symmetric { process, .. } => self.expr(process),
        }
    }

    fn stmts(&mut self, stmts: &mut [Stmt]) {
        for s in stmts {
            match &mut s.kind {
                crate::syntax::ast::StmtKind::Generator(_, _, e)
                | crate::syntax::ast::StmtKind::Guard(e) => self.expr(e),
            }
        }
    }

    /// Translates `e`'s parts, then `e` itself.
    fn expr(&mut self, e: &mut Expr) {
        use ExprKind as E;
        match &mut e.kind {
            E::Int(_) | E::Char(_) | E::String(_) | E::Bool(_) | E::Name(_) | E::Wildcard => {}
            E::Tuple(es) | E::Seq(es) | E::Set(es) => es.iter_mut().for_each(|x| self.expr(x)),
            E::App(f, args) => {
                self.expr(f);
                args.iter_mut().for_each(|x| self.expr(x));
            }
            E::Dot(a, b)
            | E::Binary(_, a, b)
            | E::DoubleAt(a, b)
            | E::Guard(a, b)
            | E::Process(_, a, b)
            | E::Hide(a, b)
            | E::Project(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            E::Unary(_, a) | E::Lambda(_, a) => self.expr(a),
            E::If(a, b, c)
            | E::GenParallel(a, b, c)
            | E::Exception(a, b, c)
            | E::SyncExternalChoice(a, b, c)
            | E::SyncInterrupt(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            E::Let(decls, body) => {
                self.decls(decls);
                self.expr(body);
            }
            E::SeqRange(a, b, stmts) | E::SetRange(a, b, stmts) => {
                self.expr(a);
                if let Some(b) = b {
                    self.expr(b);
                }
                self.stmts(stmts);
            }
            E::SeqComprehension(es, stmts)
            | E::SetComprehension(es, stmts)
            | E::Production(es, stmts) => {
                es.iter_mut().for_each(|x| self.expr(x));
                self.stmts(stmts);
            }
            E::Map(pairs) => pairs.iter_mut().for_each(|(k, v)| {
                self.expr(k);
                self.expr(v);
            }),
            E::Prefix(ev, fields, then) => {
                self.expr(ev);
                for f in fields.iter_mut() {
                    match &mut f.kind {
                        FieldKind::Output(x) => self.expr(x),
                        FieldKind::Input(_, s) | FieldKind::NondetInput(_, s) => {
                            if let Some(s) = s {
                                self.expr(s);
                            }
                        }
                    }
                }
                self.expr(then);
            }
            E::AlphaParallel(par) => {
                self.expr(&mut par.left);
                self.expr(&mut par.left_alphabet);
                self.expr(&mut par.right_alphabet);
                self.expr(&mut par.right);
            }
            E::LinkedParallel(par) => {
                self.expr(&mut par.left);
                self.expr(&mut par.right);
            }
            E::Rename(p, pairs, stmts) => {
                self.expr(p);
                pairs.iter_mut().for_each(|(a, b)| {
                    self.expr(a);
                    self.expr(b);
                });
                self.stmts(stmts);
            }
            E::Replicated(r) => {
                self.stmts(&mut r.stmts);
                match &mut r.op {
                    ReplicatedOp::SyncExternalChoice(a)
                    | ReplicatedOp::GenParallel(a)
                    | ReplicatedOp::AlphaParallel(a) => self.expr(a),
                    _ => {}
                }
                self.expr(&mut r.body);
            }
        }
        if self.timed {
            self.rewrite(e);
        }
    }

    /// The timed form of `e`, whose parts are translated already.
    fn rewrite(&mut self, e: &mut Expr) {
        use ExprKind as E;
        let span = e.span;
        let kind = std::mem::replace(&mut e.kind, E::Wildcard);
        e.kind = match kind {
            // FDR reserves TSTOP and TSKIP without defining them: only
            // STOP and SKIP stand for them.
            E::Name(n) if !n.is_qualified() && n.text.as_str() == "STOP" => {
                call("TSTOP'", vec![tock(span)], span).kind
            }
            E::Name(n) if !n.is_qualified() && n.text.as_str() == "SKIP" => {
                call("TSKIP'", vec![tock(span)], span).kind
            }
            E::Name(n) if !n.is_qualified() && n.text.as_str() == "WAIT" => {
                call("WAIT'", vec![tock(span)], span).kind
            }
            E::Name(n) if !n.is_qualified() && n.text.as_str() == "timed_priority" => {
                call("timed_priority'", vec![tock(span)], span).kind
            }
            E::Prefix(ev, fields, then) => self.prefix(*ev, fields, *then, span),
            E::Guard(b, p) => E::If(b, p, Box::new(call("TSTOP'", vec![tock(span)], span))),
            E::Process(ProcOp::ExternalChoice, a, b) => {
                E::SyncExternalChoice(a, Box::new(tocks(span)), b)
            }
            E::Process(ProcOp::Interleave, a, b) => E::GenParallel(a, Box::new(tocks(span)), b),
            E::Process(ProcOp::Interrupt, a, b) => E::SyncInterrupt(a, Box::new(tocks(span)), b),
            E::GenParallel(a, s, b) => E::GenParallel(a, Box::new(with_tock(*s)), b),
            E::SyncExternalChoice(a, s, b) => E::SyncExternalChoice(a, Box::new(with_tock(*s)), b),
            E::SyncInterrupt(a, s, b) => E::SyncInterrupt(a, Box::new(with_tock(*s)), b),
            E::AlphaParallel(mut par) => {
                let hole = || expr(E::Wildcard, span);
                par.left_alphabet = with_tock(std::mem::replace(&mut par.left_alphabet, hole()));
                par.right_alphabet = with_tock(std::mem::replace(&mut par.right_alphabet, hole()));
                E::AlphaParallel(par)
            }
            E::Replicated(r) => replicated(*r, span),
            other => other,
        };
    }

    /// `X = tock -> X [] e -> tock^et(ev) -> Q`, as `let X = ... within X`.
    fn prefix(
        &mut self,
        ev: Expr,
        mut fields: ThinVec<crate::syntax::ast::Field>,
        then: Expr,
        span: Span,
    ) -> ExprKind {
        // The event performed, written out: the head and every field's
        // value (an input's pattern read as an expression; `_` named).
        let mut event = ev.clone();
        for f in fields.iter_mut() {
            let part = match &mut f.kind {
                FieldKind::Output(x) => x.clone(),
                FieldKind::Input(p, _) | FieldKind::NondetInput(p, _) => {
                    self.name_wildcards(p);
                    pattern_expr(p)
                }
            };
            event = expr(ExprKind::Dot(Box::new(event), Box::new(part)), span);
        }
        let cost = call(self.et.as_str(), vec![event], span);
        let after = call("TOCKS'", vec![tock(span), cost, then], span);
        let x = self.fresh(self.within.as_str());
        let idle = expr(
            ExprKind::Prefix(
                Box::new(tock(span)),
                ThinVec::new(),
                Box::new(name(&x, span)),
            ),
            span,
        );
        let act = expr(
            ExprKind::Prefix(Box::new(ev), fields, Box::new(after)),
            span,
        );
        let body = expr(
            ExprKind::Process(ProcOp::ExternalChoice, Box::new(idle), Box::new(act)),
            span,
        );
        ExprKind::Let(
            thin_vec![definition(&x, None, body, span)],
            Box::new(name(&x, span)),
        )
    }

    /// Names each `_` of an input pattern, so that the event can be
    /// written out.
    fn name_wildcards(&mut self, p: &mut Pattern) {
        match &mut p.kind {
            PatternKind::Wildcard => {
                let n = self.fresh("_");
                p.kind = PatternKind::Name(Name::simple(&n, p.span));
            }
            PatternKind::Tuple(ps) | PatternKind::Seq(ps) | PatternKind::Set(ps) => {
                ps.iter_mut().for_each(|q| self.name_wildcards(q))
            }
            PatternKind::Dot(a, b) | PatternKind::Concat(a, b) | PatternKind::DoubleAt(a, b) => {
                self.name_wildcards(a);
                self.name_wildcards(b);
            }
            PatternKind::Name(_)
            | PatternKind::Int(_)
            | PatternKind::Char(_)
            | PatternKind::String(_)
            | PatternKind::Bool(_) => {}
        }
    }
}

/// A replicated operator in timed form: external choice and interleaving
/// synchronise on tock, every set gains it; over nothing, `TSTOP` (`TSKIP`
/// for `;`).
fn replicated(r: Replicated, span: Span) -> ExprKind {
    let Replicated { op, stmts, body } = r;
    let (op, empty) = match op {
        ReplicatedOp::ExternalChoice => (
            ReplicatedOp::SyncExternalChoice(tocks_boxed(span)),
            "TSTOP'",
        ),
        ReplicatedOp::Interleave => (ReplicatedOp::GenParallel(tocks_boxed(span)), "TSTOP'"),
        ReplicatedOp::SyncExternalChoice(a) => (
            ReplicatedOp::SyncExternalChoice(Box::new(with_tock(*a))),
            "TSTOP'",
        ),
        ReplicatedOp::GenParallel(a) => {
            (ReplicatedOp::GenParallel(Box::new(with_tock(*a))), "TSTOP'")
        }
        ReplicatedOp::AlphaParallel(a) => (
            ReplicatedOp::AlphaParallel(Box::new(with_tock(*a))),
            "TSTOP'",
        ),
        ReplicatedOp::SequentialComposition => (ReplicatedOp::SequentialComposition, "TSKIP'"),
        op @ (ReplicatedOp::InternalChoice | ReplicatedOp::LinkedParallel(..)) => {
            return ExprKind::Replicated(Box::new(Replicated { op, stmts, body }));
        }
    };
    // Whether the generators give nothing: `;` draws from sequences, the
    // others from sets.
    let zero = expr(ExprKind::Int(0), span);
    let nothing = if matches!(op, ReplicatedOp::SequentialComposition) {
        call(
            "null",
            vec![expr(
                ExprKind::SeqComprehension(thin_vec![zero], stmts.clone()),
                span,
            )],
            span,
        )
    } else {
        call(
            "empty",
            vec![expr(
                ExprKind::SetComprehension(thin_vec![zero], stmts.clone()),
                span,
            )],
            span,
        )
    };
    let replicated = expr(
        ExprKind::Replicated(Box::new(Replicated { op, stmts, body })),
        span,
    );
    ExprKind::If(
        Box::new(nothing),
        Box::new(call(empty, vec![tock(span)], span)),
        Box::new(replicated),
    )
}

fn expr(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

fn pattern(kind: PatternKind, span: Span) -> Pattern {
    Pattern { kind, span }
}

fn name(text: &str, span: Span) -> Expr {
    expr(ExprKind::Name(Name::simple(text, span)), span)
}

fn call(f: &str, args: Vec<Expr>, span: Span) -> Expr {
    expr(
        ExprKind::App(Box::new(name(f, span)), args.into_iter().collect()),
        span,
    )
}

/// The script's `tock`.
fn tock(span: Span) -> Expr {
    name("tock", span)
}

/// `{tock}`
fn tocks(span: Span) -> Expr {
    expr(ExprKind::Set(thin_vec![tock(span)]), span)
}

fn tocks_boxed(span: Span) -> Box<Expr> {
    Box::new(tocks(span))
}

/// `union(set, {tock})`
fn with_tock(set: Expr) -> Expr {
    let span = set.span;
    call("union", vec![set, tocks(span)], span)
}

/// `name = body`, or `name(p, q)(r) = body` with variables as parameters.
fn definition(text: &str, params: Option<Vec<Vec<&str>>>, body: Expr, span: Span) -> Decl {
    let ident = Ident {
        name: Ustr::from(text),
        span,
    };
    let lhs = match params {
        None => Lhs::Name(ident),
        Some(groups) => Lhs::Function(
            ident,
            groups
                .into_iter()
                .map(|g| {
                    g.into_iter()
                        .map(|p| pattern(PatternKind::Name(Name::simple(p, span)), span))
                        .collect()
                })
                .collect(),
        ),
    };
    Decl {
        kind: DeclKind::Definition(Definition { lhs, rhs: body }),
        span,
    }
}

/// An input pattern read as the value it matched (its `_`s named).
fn pattern_expr(p: &Pattern) -> Expr {
    let span = p.span;
    let kind = match &p.kind {
        PatternKind::Name(n) => ExprKind::Name(*n),
        PatternKind::Int(i) => ExprKind::Int(*i),
        PatternKind::Char(c) => ExprKind::Char(*c),
        PatternKind::String(s) => ExprKind::String(s.clone()),
        PatternKind::Bool(b) => ExprKind::Bool(*b),
        PatternKind::Tuple(ps) => ExprKind::Tuple(ps.iter().map(pattern_expr).collect()),
        PatternKind::Seq(ps) => ExprKind::Seq(ps.iter().map(pattern_expr).collect()),
        PatternKind::Set(ps) => ExprKind::Set(ps.iter().map(pattern_expr).collect()),
        PatternKind::Dot(a, b) => {
            ExprKind::Dot(Box::new(pattern_expr(a)), Box::new(pattern_expr(b)))
        }
        PatternKind::Concat(a, b) => ExprKind::Binary(
            BinaryOp::Concat,
            Box::new(pattern_expr(a)),
            Box::new(pattern_expr(b)),
        ),
        PatternKind::DoubleAt(a, _) => return pattern_expr(a),
        // Named before this is asked; left as written otherwise.
        PatternKind::Wildcard => ExprKind::Wildcard,
    };
    expr(kind, span)
}

//! Lowering expressions and patterns.

use super::*;

impl<'s, 'p> Resolver<'s, 'p> {
    // ------------------------------------------------------------ patterns

    /// Resolves a pattern, binding its variables in the innermost lexical
    /// scope (which the caller pushed).
    pub(super) fn pattern(&mut self, p: &ast::Pattern) -> Pattern {
        use ast::PatternKind as P;
        match &p.kind {
            P::Wildcard => Pattern::Wildcard,
            P::Int(i) => Pattern::Int(*i),
            P::Char(c) => Pattern::Char(*c),
            P::Bool(b) => Pattern::Bool(*b),
            P::String(s) => Pattern::Seq(s.chars().map(Pattern::Char).collect()),
            P::Name(n) => {
                match self.lookup_global(n.text) {
                    Some(Named::Ctor(c)) => {
                        self.uses.push(Named::Ctor(c));
                        self.script.index.used(Named::Ctor(c).into(), n.span);
                        return Pattern::Ctor(c, n.span);
                    }
                    Some(Named::Channel(c)) => {
                        self.uses.push(Named::Channel(c));
                        self.script.index.used(Named::Channel(c).into(), n.span);
                        return Pattern::Channel(c);
                    }
                    _ => {}
                }
                if n.is_qualified() {
                    self.error(
                        n.span,
                        format!("`{}` is not a datatype constructor or channel", n.text),
                    );
                    return Pattern::Wildcard;
                }
                if let Some(b) = bool_constant(&n.text) {
                    return Pattern::Bool(b);
                }
                let first = self.scopes.last().and_then(|s| s.get(&n.text));
                if let Some(first) = first.map(|binding| binding.id) {
                    self.bound_again_in_pattern(first, n);
                    return Pattern::Wildcard;
                }
                Pattern::Bind(self.bind_local(n.text, n.span))
            }
            P::Tuple(ps) => Pattern::Tuple(ps.iter().map(|p| self.pattern(p)).collect()),
            P::Dot(..) => {
                let mut parts = Vec::new();
                flatten(p, dot_pattern_sides, &mut parts);
                Pattern::Dot(parts.into_iter().map(|p| self.pattern(p)).collect())
            }
            P::Seq(ps) => Pattern::Seq(ps.iter().map(|p| self.pattern(p)).collect()),
            P::Concat(..) => self.concat_pattern(p),
            P::Set(ps) => {
                if ps.len() > 1 {
                    self.error(
                        p.span,
                        "a set pattern matches the empty set `{}` or a single element `{x}`",
                    );
                }
                Pattern::Set(ps.iter().map(|p| self.pattern(p)).collect())
            }
            P::DoubleAt(a, b) => {
                Pattern::Both(Box::new(self.pattern(a)), Box::new(self.pattern(b)))
            }
        }
    }

    pub(super) fn concat_pattern(&mut self, p: &ast::Pattern) -> Pattern {
        let mut parts = Vec::new();
        flatten(p, concat_pattern_sides, &mut parts);
        let mut prefix = Vec::new();
        let mut middle = None;
        let mut suffix = Vec::new();
        for part in parts {
            let fixed: Option<Vec<Pattern>> = match &part.kind {
                ast::PatternKind::Seq(ps) => Some(ps.iter().map(|p| self.pattern(p)).collect()),
                ast::PatternKind::String(s) => Some(s.chars().map(Pattern::Char).collect()),
                _ => None,
            };
            match (fixed, &middle) {
                (Some(elems), None) => prefix.extend(elems),
                (Some(elems), Some(_)) => suffix.extend(elems),
                (None, None) => middle = Some(Box::new(self.pattern(part))),
                (None, Some(_)) => {
                    self.error(
                        part.span,
                        "a sequence pattern may have only one part of unknown length",
                    );
                    // Its names are bound all the same, so that what
                    // uses them resolves (a pattern definition looks
                    // each of them up).
                    let _ = self.pattern(part);
                }
            }
        }
        Pattern::Concat {
            prefix,
            middle,
            suffix,
        }
    }

    // ------------------------------------------------------------ expressions

    pub(super) fn exprs(&mut self, es: &[ast::Expr]) -> Vec<ExprId> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    pub(super) fn pairs(&mut self, pairs: &[(ast::Expr, ast::Expr)]) -> Vec<(ExprId, ExprId)> {
        pairs
            .iter()
            .map(|(a, b)| (self.expr(a), self.expr(b)))
            .collect()
    }

    /// Resolves an expression in a type position: `A.B` is the set of
    /// dotted values and `(A, B)` the set of pairs.
    pub(super) fn type_expr(&mut self, e: &ast::Expr) -> ExprId {
        match &e.kind {
            ast::ExprKind::Dot(..) => {
                let mut parts = Vec::new();
                flatten(e, dot_expr_sides, &mut parts);
                let parts = parts.into_iter().map(|p| self.type_expr(p)).collect();
                self.push_expr(ExprKind::TypeDot(parts), e.span)
            }
            ast::ExprKind::Tuple(es) => {
                let parts = es.iter().map(|p| self.type_expr(p)).collect();
                self.push_expr(ExprKind::TypeTuple(parts), e.span)
            }
            _ => self.expr(e),
        }
    }

    pub fn expr(&mut self, e: &ast::Expr) -> ExprId {
        use ast::ExprKind as E;
        let span = e.span;
        let kind = match &e.kind {
            E::Int(i) => ExprKind::Int(*i),
            E::Char(c) => ExprKind::Char(*c),
            E::String(s) => ExprKind::String(s.as_str().into()),
            E::Bool(b) => ExprKind::Bool(*b),
            E::Name(n) => return self.name_expr(n),
            E::Wildcard => {
                self.error(span, "`_` stands for any value only in a pattern");
                ExprKind::Int(0)
            }
            E::DoubleAt(..) => {
                self.error(span, "`@@` joins two patterns; it is not an expression");
                ExprKind::Int(0)
            }
            E::Tuple(es) => ExprKind::Tuple(self.exprs(es)),
            E::App(f, args) => {
                let f = self.expr(f);
                ExprKind::App(f, self.exprs(args))
            }
            E::Dot(a, b) => {
                let a = self.expr(a);
                ExprKind::Dot(a, self.expr(b))
            }
            E::Unary(op, a) => ExprKind::Unary(*op, self.expr(a)),
            E::Binary(op, a, b) => {
                let a = self.expr(a);
                ExprKind::Binary(*op, a, self.expr(b))
            }
            E::If(c, t, f) => {
                let c = self.expr(c);
                let t = self.expr(t);
                ExprKind::If(c, t, self.expr(f))
            }
            E::Let(decls, body) => return self.let_expr(decls, body, span),
            E::Lambda(params, body) => {
                let func = self.new_function(Ustr::from("lambda"), FunctionKind::Lambda, span);
                self.push_fn(None);
                self.scopes.push(FxHashMap::default());
                let params: Vec<Pattern> = params.iter().map(|p| self.pattern(p)).collect();
                let body = self.expr(body);
                self.scopes.pop();
                let f = &mut self.script.functions[func.index()];
                f.arity = vec![params.len()];
                f.clauses = vec![Clause {
                    params: vec![params],
                    body,
                    span,
                }];
                let sources = self.pop_fn(func);
                ExprKind::Lambda(func, sources)
            }
            E::Seq(es) => ExprKind::Seq(self.exprs(es)),
            E::SeqRange(a, b, stmts) => return self.range(a, b.as_deref(), stmts, false, span),
            E::Set(es) => ExprKind::Set(self.exprs(es)),
            E::SetRange(a, b, stmts) => return self.range(a, b.as_deref(), stmts, true, span),
            E::SeqComprehension(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::SeqComprehension(es, stmts)
            }
            E::SetComprehension(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::SetComprehension(es, stmts)
            }
            E::Production(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::Production(es, stmts)
            }
            E::Map(pairs) => ExprKind::Map(self.pairs(pairs)),
            _ => return self.process(e),
        };
        self.push_expr(kind, span)
    }

    /// A range, or a range per binding of `stmts`: `<m..n | stmts>` is
    /// `concat(<<m..n> | stmts>)` and `{m..n | stmts}` is
    /// `Union({{m..n} | stmts})`, as FDR reads them.
    pub(super) fn range(
        &mut self,
        from: &ast::Expr,
        to: Option<&ast::Expr>,
        stmts: &[ast::Stmt],
        set: bool,
        span: Span,
    ) -> ExprId {
        let depth = self.scopes.len();
        let stmts = self.stmts(stmts);
        let from = self.expr(from);
        let to = to.map(|to| self.expr(to));
        self.scopes.truncate(depth);
        let range = if set {
            ExprKind::SetRange(from, to)
        } else {
            ExprKind::SeqRange(from, to)
        };
        let range = self.push_expr(range, span);
        if stmts.is_empty() {
            return range;
        }
        let (each, join) = if set {
            (
                ExprKind::SetComprehension(vec![range], stmts),
                Builtin::UnionAll,
            )
        } else {
            (
                ExprKind::SeqComprehension(vec![range], stmts),
                Builtin::Concat,
            )
        };
        let each = self.push_expr(each, span);
        let join = self.script.builtin_global(join);
        let join = self.push_expr(ExprKind::Global(join), span);
        self.push_expr(ExprKind::App(join, vec![each]), span)
    }

    /// Statements then the expressions they scope over.
    pub(super) fn comprehension(
        &mut self,
        es: &[ast::Expr],
        stmts: &[ast::Stmt],
    ) -> (Vec<ExprId>, Vec<Stmt>) {
        let depth = self.scopes.len();
        let stmts = self.stmts(stmts);
        let es = self.exprs(es);
        self.scopes.truncate(depth);
        (es, stmts)
    }

    /// Resolves statements, leaving one lexical scope per generator open
    /// for what follows; the caller truncates the scopes afterwards.
    pub(super) fn stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut bound = BoundOnce::default();
        stmts
            .iter()
            .map(|s| match &s.kind {
                ast::StmtKind::Generator(p, _, e) => {
                    let source = self.expr(e);
                    self.scopes.push(FxHashMap::default());
                    self.bind_once(&mut bound, p, "list of statements");
                    Stmt::Generator(self.pattern(p), source, s.span)
                }
                ast::StmtKind::Guard(e) => Stmt::Guard(self.expr(e)),
            })
            .collect()
    }

    /// Refuses a variable that `p` binds when an earlier pattern of the
    /// same prefix or list of statements bound it already (`a?x?x`,
    /// `{x | x <- A, x <- B}`), as FDR does: the second would hide the
    /// first without a word.
    pub(super) fn bind_once(&mut self, bound: &mut BoundOnce, p: &ast::Pattern, construct: &str) {
        let mut names = Vec::new();
        pattern_variables(p, &mut |n: &ast::Name| {
            names.push((n.text, n.span, n.is_qualified()))
        });
        for (name, span, qualified) in names {
            let is_variable = !qualified
                && bool_constant(&name).is_none()
                && !matches!(
                    self.lookup_global(name),
                    Some(Named::Ctor(_) | Named::Channel(_))
                );
            if !is_variable {
                continue;
            }
            // Twice in this one pattern is the pattern's own error.
            let Some(first) = bound
                .0
                .get_mut(&name)
                .filter(|f| f.span.start < p.span.start)
            else {
                bound.0.entry(name).or_insert(FirstBinding {
                    span,
                    reported: None,
                    times: 1,
                });
                continue;
            };
            // One mistake, one error: a name bound again and again is
            // reported once, with how many times.
            first.times += 1;
            match first.reported {
                None => {
                    first.reported = Some(self.diagnostics.len());
                    self.diagnostics.push(
                        Diagnostic::error(
                            span,
                            format!("`{name}` is bound twice in this {construct}"),
                        )
                        .with_secondary(first.span, "first bound here")
                        .with_note("each variable of a prefix or comprehension needs its own name"),
                    );
                }
                Some(at) => {
                    let times = first.times;
                    let error = &mut self.diagnostics[at];
                    error.message = format!("`{name}` is bound {times} times in this {construct}");
                    // The first few places shown; the count says the rest.
                    if error.secondary.len() < 3 {
                        error.secondary.push((span, "bound again here".to_string()));
                    }
                }
            }
        }
    }
}

impl Resolver<'_, '_> {
    /// `n` bound again in the pattern (or the arguments) that bound it
    /// first as binding `first`. One mistake, one error: a name bound
    /// again and again is reported once, with how many times.
    fn bound_again_in_pattern(&mut self, first: u32, n: &ast::Name) {
        match self.repeated_in_pattern.get_mut(&first) {
            None => {
                self.repeated_in_pattern
                    .insert(first, (self.diagnostics.len(), 2));
                self.error(
                    n.span,
                    format!("`{}` is bound twice in the same pattern", n.text),
                );
            }
            Some((at, times)) => {
                *times += 1;
                let error = &mut self.diagnostics[*at];
                error.message = format!("`{}` is bound {times} times in the same pattern", n.text);
                // The first few places shown; the count says the rest.
                if error.secondary.len() < 2 {
                    error
                        .secondary
                        .push((n.span, "bound again here".to_string()));
                }
            }
        }
    }
}

/// The variables the patterns of one prefix or list of statements have
/// bound so far.
#[derive(Default)]
pub(super) struct BoundOnce(FxHashMap<Ustr, FirstBinding>);

/// Where a variable of a prefix or list of statements was first bound,
/// and the error reporting it bound again, if it was.
pub(super) struct FirstBinding {
    span: Span,
    /// The error's place in the resolver's diagnostics.
    reported: Option<usize>,
    times: usize,
}

pub(super) fn describe_arity(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "no arguments".to_string();
    }
    shape
        .iter()
        .map(|n| format!("({} argument{})", n, if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join("")
}

/// The operands of a chain of one binary operator (`a.b.c`, `s^t^u`), left
/// to right; `split` gives the two sides of a node of that operator.
pub(super) fn flatten<'t, T>(
    node: &'t T,
    split: fn(&'t T) -> Option<(&'t T, &'t T)>,
    out: &mut Vec<&'t T>,
) {
    match split(node) {
        Some((a, b)) => {
            flatten(a, split, out);
            flatten(b, split, out);
        }
        None => out.push(node),
    }
}

pub(super) fn dot_pattern_sides(p: &ast::Pattern) -> Option<(&ast::Pattern, &ast::Pattern)> {
    match &p.kind {
        ast::PatternKind::Dot(a, b) => Some((a, b)),
        _ => None,
    }
}

pub(super) fn concat_pattern_sides(p: &ast::Pattern) -> Option<(&ast::Pattern, &ast::Pattern)> {
    match &p.kind {
        ast::PatternKind::Concat(a, b) => Some((a, b)),
        _ => None,
    }
}

pub(super) fn dot_expr_sides(e: &ast::Expr) -> Option<(&ast::Expr, &ast::Expr)> {
    match &e.kind {
        ast::ExprKind::Dot(a, b) => Some((a, b)),
        _ => None,
    }
}

/// Calls `f` on every name in a pattern (variables and constructors).
pub(super) fn pattern_variables(p: &ast::Pattern, f: &mut impl FnMut(&ast::Name)) {
    use ast::PatternKind as P;
    match &p.kind {
        P::Name(n) => f(n),
        P::Tuple(ps) | P::Seq(ps) | P::Set(ps) => {
            for p in ps {
                pattern_variables(p, f);
            }
        }
        P::Dot(a, b) | P::Concat(a, b) | P::DoubleAt(a, b) => {
            pattern_variables(a, f);
            pattern_variables(b, f);
        }
        P::Wildcard | P::Int(_) | P::Char(_) | P::String(_) | P::Bool(_) => {}
    }
}

//! Builds the AST from pest's parse tree: the one place that knows both.
//!
//! Besides translating, it enforces what the grammar leaves open: that
//! patterns are patterns, that `_` and `@@` appear only in patterns, that
//! communication fields appear only before `->`, and that expressions are
//! not nested beyond [`MAX_DEPTH`] (so that every later recursive walk of
//! the tree is bounded).

use pest::iterators::{Pair, Pairs};
use thin_vec::{ThinVec, thin_vec};
use ustr::Ustr;

use super::ast::*;
use super::diagnostic::Diagnostic;
use super::parser::{self, PRATT, Rule};
use super::source::Span;

/// How deep an expression may nest: a bound on the depth of every tree
/// the builder returns, counting each operator and bracket as a level.
pub const MAX_DEPTH: usize = 2_000;

type Result<T> = std::result::Result<T, Diagnostic>;

/// `a <- b` of a renaming, `a <-> b` of a link.
type ExprPair = (Expr, Expr);

/// An operand while a Pratt parser (pest's here, `descent.rs`'s) assembles
/// an expression: either a finished expression or an event that has
/// collected communication fields and waits for its `->`.
pub(super) enum Operand {
    Expr(Expr),
    Event(Expr, ThinVec<Field>, Span),
}

impl Operand {
    /// This operand followed by one more communication field.
    pub(super) fn with_field(self, field: Field) -> Operand {
        match self {
            Operand::Expr(e) => {
                let span = e.span.to(field.span);
                Operand::Event(e, thin_vec![field], span)
            }
            Operand::Event(e, mut fields, span) => {
                let span = span.to(field.span);
                fields.push(field);
                Operand::Event(e, fields, span)
            }
        }
    }

    /// The event before a `->`, its fields, and the span of both.
    pub(super) fn into_event(self) -> (Expr, ThinVec<Field>, Span) {
        match self {
            Operand::Expr(e) => {
                let span = e.span;
                (e, ThinVec::new(), span)
            }
            Operand::Event(e, fields, span) => (e, fields, span),
        }
    }
}

pub(crate) struct Builder {
    /// The position of the file's first byte in its source map.
    base: u32,
    /// Byte offset of the parsed text within the file (non-zero for a
    /// chunk of a large file, or a restart after a syntax error).
    offset: usize,
    depth: usize,
    /// True while building an expression that will become a pattern.
    in_pattern: bool,
}

impl Builder {
    pub(crate) fn new(base: u32, offset: usize) -> Self {
        Builder {
            base,
            offset,
            depth: 0,
            in_pattern: false,
        }
    }

    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.base, self.offset + s.start(), self.offset + s.end())
    }

    // ------------------------------------------------------------ declarations

    /// The declarations of a `file` pair; every declaration that fails to
    /// build contributes one diagnostic.
    pub(crate) fn file(
        &mut self,
        file: Pair<Rule>,
    ) -> std::result::Result<ThinVec<Decl>, Vec<Diagnostic>> {
        let mut decls = ThinVec::new();
        let mut errors = Vec::new();
        for pair in file.into_inner() {
            if pair.as_rule() == Rule::EOI {
                continue;
            }
            match self.decl(pair) {
                Ok(d) => decls.push(d),
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(decls)
        } else {
            Err(errors)
        }
    }

    /// The expression of an `expr_input` pair.
    pub(crate) fn expr_input(&mut self, input: Pair<Rule>) -> Result<Expr> {
        let pair = input
            .into_inner()
            .find(|p| p.as_rule() == Rule::expr)
            .expect("expr_input holds an expr");
        self.expr(pair)
    }

    fn decls(&mut self, pairs: Pairs<Rule>) -> Result<ThinVec<Decl>> {
        pairs.map(|p| self.decl(p)).collect()
    }

    fn decl(&mut self, pair: Pair<Rule>) -> Result<Decl> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut inner = pair.into_inner();
        let kind = match rule {
            Rule::definition => {
                let lhs = inner.next().unwrap();
                let rhs = self.expr(inner.next().unwrap())?;
                let lhs = self.lhs(lhs)?;
                DeclKind::Definition(Definition { lhs, rhs })
            }
            Rule::type_annotation => {
                let names = self.name_list(inner.next().unwrap());
                DeclKind::TypeAnnotation(names, self.type_expr(inner.next().unwrap())?)
            }
            Rule::channel_decl => {
                let names = self.name_list(inner.next().unwrap());
                let ty = inner.next().map(|p| self.expr(p)).transpose()?;
                DeclKind::Channel(names, ty)
            }
            Rule::datatype_decl | Rule::subtype_decl => {
                let name = self.ident(inner.next().unwrap());
                let clauses = inner
                    .next()
                    .unwrap()
                    .into_inner()
                    .map(|c| self.data_clause(c))
                    .collect::<Result<ThinVec<_>>>()?;
                if rule == Rule::datatype_decl {
                    DeclKind::DataType(name, clauses)
                } else {
                    DeclKind::SubType(name, clauses)
                }
            }
            Rule::nametype_decl => {
                let name = self.ident(inner.next().unwrap());
                DeclKind::NameType(name, self.expr(inner.next().unwrap())?)
            }
            Rule::external_decl => DeclKind::External(self.name_list(inner.next().unwrap())),
            Rule::transparent_decl => DeclKind::Transparent(self.name_list(inner.next().unwrap())),
            Rule::assert_decl => DeclKind::Assert(Box::new(self.assertion(inner)?)),
            Rule::include_decl => {
                let lit = inner.next().unwrap();
                DeclKind::Include(Include {
                    path: include_path(lit.as_str()),
                    file: None,
                })
            }
            Rule::print_decl => DeclKind::Print(self.expr(inner.next().unwrap())?),
            Rule::module_decl => DeclKind::Module(self.module(inner)?),
            Rule::instance_decl => {
                let name = self.ident(inner.next().unwrap());
                let module = self.qname(&inner.next().unwrap());
                let args = match inner.next() {
                    Some(p) => {
                        let brackets = self.span(&p);
                        let args = self.call_args(p)?;
                        if args.is_empty() {
                            return Err(empty_brackets(brackets, "an instance of a module"));
                        }
                        Some(args)
                    }
                    None => None,
                };
                DeclKind::Instance(name, module, args)
            }
            Rule::timed_decl => {
                let mut function = None;
                let mut decls = ThinVec::new();
                for p in inner {
                    if p.as_rule() == Rule::expr {
                        function = Some(self.expr(p)?);
                    } else {
                        decls.push(self.decl(p)?);
                    }
                }
                // FDR's grammar admits assertions in a section (generated
                // scripts rely on it), not `print`.
                only_declarations(&decls, "a `Timed` section", true)?;
                DeclKind::Timed(function, decls)
            }
            other => unreachable!("not a declaration: {other:?}"),
        };
        Ok(Decl { kind, span })
    }

    fn module(&mut self, inner: Pairs<Rule>) -> Result<Module> {
        let mut name = None;
        let mut params = None;
        let mut private = ThinVec::new();
        let mut exports = None;
        for p in inner {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::module_params => {
                    let brackets = self.span(&p);
                    // A parameter is a name or `_` (an argument the
                    // module does not use).
                    let names: ThinVec<Ident> = p
                        .into_inner()
                        .map(|param| {
                            let inner = param.into_inner().next().expect("a name or `_`");
                            match inner.as_rule() {
                                Rule::wildcard => Ident {
                                    name: Ustr::from("_"),
                                    span: self.span(&inner),
                                },
                                _ => self.ident(inner),
                            }
                        })
                        .collect();
                    if names.is_empty() {
                        return Err(empty_brackets(brackets, "a module"));
                    }
                    params = Some(names)
                }
                Rule::module_private => private = self.decls(p.into_inner())?,
                Rule::module_exports => exports = Some(self.decls(p.into_inner())?),
                other => unreachable!("not part of a module: {other:?}"),
            }
        }
        only_declarations(&private, "a module", false)?;
        if let Some(exports) = &exports {
            only_declarations(exports, "a module", false)?;
        }
        Ok(Module {
            name: name.expect("a module has a name"),
            params,
            private,
            exports,
        })
    }

    fn data_clause(&mut self, pair: Pair<Rule>) -> Result<DataClause> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let name = self.ident(inner.next().unwrap());
        let fields = inner
            .find(|p| p.as_rule() == Rule::dot_expr)
            .map(|p| self.expr(p))
            .transpose()?;
        Ok(DataClause { name, fields, span })
    }

    fn name_list(&mut self, pair: Pair<Rule>) -> ThinVec<Ident> {
        pair.into_inner().map(|p| self.ident(p)).collect()
    }

    fn ident(&self, pair: Pair<Rule>) -> Ident {
        Ident {
            name: Ustr::from(pair.as_str()),
            span: self.span(&pair),
        }
    }

    fn qname(&self, pair: &Pair<Rule>) -> Name {
        Name {
            text: Ustr::from(pair.as_str()),
            span: self.span(pair),
        }
    }

    /// Classifies the left-hand side of `lhs = rhs`.
    fn lhs(&mut self, pair: Pair<Rule>) -> Result<Lhs> {
        self.in_pattern = true;
        let built = self.expr(pair);
        self.in_pattern = false;
        lhs_from_expr(built?)
    }

    // ------------------------------------------------------------ assertions

    fn assertion(&mut self, inner: Pairs<Rule>) -> Result<Assertion> {
        let mut negated = false;
        let mut process = None;
        let mut kind = None;
        let mut options = ThinVec::new();
        for p in inner {
            match p.as_rule() {
                Rule::assert_not => negated = true,
                Rule::expr => process = Some(self.expr(p)?),
                Rule::refinement => {
                    let mut r = p.into_inner();
                    let op = r.next().unwrap();
                    let model = Model::from_abbreviation(&op.as_str()[1..op.as_str().len() - 1])
                        .expect("the grammar admits only known models");
                    let imp = self.expr(r.next().unwrap())?;
                    let spec = process.take().expect("the specification comes first");
                    kind = Some(AssertionKind::Refinement { spec, model, imp });
                }
                Rule::property_check => {
                    let process = process.take().expect("the process comes first");
                    kind = Some(self.property_check(p, process)?);
                }
                Rule::assert_option => {
                    let option = self.assert_option(p)?;
                    check_option_not_repeated(&options, &option)?;
                    options.push(option);
                }
                other => unreachable!("not part of an assertion: {other:?}"),
            }
        }
        Ok(Assertion {
            negated,
            kind: kind.expect("an assertion has a body"),
            options,
        })
    }

    fn property_check(&mut self, pair: Pair<Rule>, process: Expr) -> Result<AssertionKind> {
        let span = self.span(&pair);
        let mut property = "";
        let mut model = None;
        let mut args = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::property => property = p.as_str(),
                Rule::model => {
                    let name = p.into_inner().next().expect("a model has a name");
                    model = Model::from_abbreviation(name.as_str());
                }
                Rule::property_args => args = Some(self.property_args(p)?),
                other => unreachable!("not part of a property: {other:?}"),
            }
        }
        let words: Vec<&str> = property
            .split([' ', '-'])
            .filter(|w| !w.is_empty())
            .collect();
        property_kind(&words, model, args, process, span)
    }

    fn assert_option(&mut self, pair: Pair<Rule>) -> Result<AssertOption> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let name = inner.next().unwrap().as_str();
        let mode = inner
            .next_if(|p| p.as_rule() == Rule::option_mode)
            .map(|p| self.ident(p.into_inner().next().unwrap()));
        let args = inner.next().map(|p| self.property_args(p)).transpose()?;
        let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
        let kind = option_kind(&words, mode, args, span)?;
        Ok(AssertOption { kind, span })
    }

    fn property_args(&mut self, pair: Pair<Rule>) -> Result<ThinVec<Expr>> {
        pair.into_inner().map(|p| self.expr(p)).collect()
    }

    // ------------------------------------------------------------ types

    fn type_expr(&mut self, pair: Pair<Rule>) -> Result<TypeExpr> {
        let span = self.span(&pair);
        match pair.as_rule() {
            Rule::type_expr => {
                let mut inner = pair.into_inner().peekable();
                if inner.peek().map(|p| p.as_rule()) == Some(Rule::type_constraints) {
                    let constraints = inner
                        .next()
                        .unwrap()
                        .into_inner()
                        .map(|c| {
                            let mut c = c.into_inner();
                            (self.ident(c.next().unwrap()), self.ident(c.next().unwrap()))
                        })
                        .collect();
                    let body = self.type_expr(inner.next().unwrap())?;
                    Ok(TypeExpr {
                        kind: TypeKind::Constrained(constraints, Box::new(body)),
                        span,
                    })
                } else {
                    self.type_expr(inner.next().unwrap())
                }
            }
            Rule::type_fun => {
                let mut inner = pair.into_inner();
                let arg = self.type_expr(inner.next().unwrap())?;
                match inner.next() {
                    Some(result) => Ok(TypeExpr {
                        kind: TypeKind::Function(Box::new(arg), Box::new(self.type_expr(result)?)),
                        span,
                    }),
                    None => Ok(arg),
                }
            }
            Rule::type_yield => {
                let mut inner = pair.into_inner();
                let fields = self.type_expr(inner.next().unwrap())?;
                let Some(op) = inner.next() else {
                    return Ok(fields);
                };
                let (fields, result) = (
                    Box::new(fields),
                    Box::new(self.type_expr(inner.next().unwrap())?),
                );
                let kind = if op.as_str() == "=>*" {
                    TypeKind::Extendable(fields, result)
                } else {
                    TypeKind::Dotable(fields, result)
                };
                Ok(TypeExpr { kind, span })
            }
            Rule::type_dot => {
                let mut parts = pair
                    .into_inner()
                    .filter(|p| p.as_rule() != Rule::op_dot)
                    .map(|p| self.type_expr(p))
                    .collect::<Result<ThinVec<_>>>()?;
                if parts.len() == 1 {
                    Ok(parts.remove(0))
                } else {
                    Ok(TypeExpr {
                        kind: TypeKind::Dot(parts),
                        span,
                    })
                }
            }
            Rule::type_tuple => {
                let parts = pair
                    .into_inner()
                    .map(|p| self.type_expr(p))
                    .collect::<Result<ThinVec<_>>>()?;
                Ok(TypeExpr {
                    kind: TypeKind::Tuple(parts),
                    span,
                })
            }
            Rule::type_set | Rule::type_seq => {
                let rule = pair.as_rule();
                let inner = Box::new(self.type_expr(pair.into_inner().next().unwrap())?);
                let kind = if rule == Rule::type_set {
                    TypeKind::Set(inner)
                } else {
                    TypeKind::Seq(inner)
                };
                Ok(TypeExpr { kind, span })
            }
            Rule::type_map => {
                let mut inner = pair.into_inner();
                let k = self.type_expr(inner.next().unwrap())?;
                let v = self.type_expr(inner.next().unwrap())?;
                Ok(TypeExpr {
                    kind: TypeKind::Map(Box::new(k), Box::new(v)),
                    span,
                })
            }
            Rule::type_name => Ok(TypeExpr {
                kind: TypeKind::Name(self.qname(&pair.into_inner().next().unwrap())),
                span,
            }),
            other => unreachable!("not a type: {other:?}"),
        }
    }

    // ------------------------------------------------------------ expressions

    /// Builds an `expr` or `dot_expr` pair.
    fn expr(&mut self, pair: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&pair);
        let operators = pair
            .clone()
            .into_inner()
            .filter(|p| parser::is_operator(p.as_rule()))
            .count();
        // Each operator may add a level to the tree: bound the depth before
        // the (recursive) Pratt parser and every later walk see it.
        self.depth += operators + 1;
        if self.depth > MAX_DEPTH {
            self.depth -= operators + 1;
            return Err(Diagnostic::error(
                span,
                format!(
                    "expression nested too deeply (more than {MAX_DEPTH} levels of operators and brackets); \
                     split it into named definitions"
                ),
            ));
        }
        let result = self.pratt(pair.into_inner());
        self.depth -= operators + 1;
        match result? {
            Operand::Expr(e) => Ok(e),
            Operand::Event(_, fields, _) => Err(field_outside_prefix(&fields[0])),
        }
    }

    fn pratt(&mut self, pairs: Pairs<Rule>) -> Result<Operand> {
        // The closures share the builder; `RefCell` keeps the borrow checker
        // content without giving up `&mut self` in the callbacks.
        let this = std::cell::RefCell::new(self);
        PRATT
            .map_primary(|p| this.borrow_mut().primary(p).map(Operand::Expr))
            .map_prefix(|op, rhs| {
                let rhs = finished(rhs?)?;
                let b = this.borrow();
                let span = b.span(&op).to(rhs.span);
                let op = match op.as_rule() {
                    Rule::op_not => UnaryOp::Not,
                    Rule::op_neg => UnaryOp::Neg,
                    Rule::op_length => UnaryOp::Length,
                    other => unreachable!("not a prefix operator: {other:?}"),
                };
                Ok(Operand::Expr(Expr {
                    kind: ExprKind::Unary(op, Box::new(rhs)),
                    span,
                }))
            })
            .map_postfix(|lhs, op| {
                let lhs = lhs?;
                let mut b = this.borrow_mut();
                match op.as_rule() {
                    Rule::field_in | Rule::field_out | Rule::field_nondet => {
                        let field = b.field(op)?;
                        Ok(lhs.with_field(field))
                    }
                    Rule::call_args => {
                        let f = finished(lhs)?;
                        let span = f.span.to(b.span(&op));
                        let args = b.call_args(op)?;
                        Ok(Operand::Expr(Expr {
                            kind: ExprKind::App(Box::new(f), args),
                            span,
                        }))
                    }
                    Rule::renaming => {
                        let p = finished(lhs)?;
                        let span = p.span.to(b.span(&op));
                        let (pairs, stmts) = b.pairs_and_stmts(op.into_inner())?;
                        Ok(Operand::Expr(Expr {
                            kind: ExprKind::Rename(Box::new(p), pairs, stmts),
                            span,
                        }))
                    }
                    other => unreachable!("not a postfix operator: {other:?}"),
                }
            })
            .map_infix(|lhs, op, rhs| {
                let rhs = finished(rhs?)?;
                let lhs = lhs?;
                let mut b = this.borrow_mut();
                if op.as_rule() == Rule::op_then {
                    let (event, fields, lspan) = lhs.into_event();
                    let span = lspan.to(rhs.span);
                    return Ok(Operand::Expr(Expr {
                        kind: ExprKind::Prefix(Box::new(event), fields, Box::new(rhs)),
                        span,
                    }));
                }
                let lhs = finished(lhs)?;
                let span = lhs.span.to(rhs.span);
                let kind = b.infix(op, lhs, rhs)?;
                Ok(Operand::Expr(Expr { kind, span }))
            })
            .parse(pairs)
    }

    fn infix(&mut self, op: Pair<Rule>, lhs: Expr, rhs: Expr) -> Result<ExprKind> {
        let (l, r) = (Box::new(lhs), Box::new(rhs));
        if let Some(o) = binary_op(op.as_rule()) {
            return Ok(ExprKind::Binary(o, l, r));
        }
        if let Some(o) = process_op(op.as_rule()) {
            return Ok(ExprKind::Process(o, l, r));
        }
        Ok(match op.as_rule() {
            Rule::op_double_at => {
                if !self.in_pattern {
                    return Err(Diagnostic::error(
                        self.span(&op),
                        "`@@` can only be used in a pattern",
                    ));
                }
                ExprKind::DoubleAt(l, r)
            }
            Rule::op_dot => ExprKind::Dot(l, r),
            Rule::op_guard => ExprKind::Guard(l, r),
            Rule::op_hide => ExprKind::hiding(false, l, r),
            Rule::op_project => ExprKind::hiding(true, l, r),
            Rule::op_sync_interrupt => {
                let set = self.expr(op.into_inner().next().unwrap())?;
                ExprKind::SyncInterrupt(l, Box::new(set), r)
            }
            Rule::op_sync_choice => {
                let set = self.expr(op.into_inner().next().unwrap())?;
                ExprKind::SyncExternalChoice(l, Box::new(set), r)
            }
            Rule::op_genpar => {
                let mut inner = op.into_inner();
                let set = Box::new(self.expr(inner.next().unwrap())?);
                match inner.next().unwrap().as_rule() {
                    Rule::genpar_close => ExprKind::GenParallel(l, set, r),
                    _ => ExprKind::Exception(l, set, r),
                }
            }
            Rule::op_bracket_par => {
                let mut inner = op.into_inner();
                let first = self.expr(inner.next().unwrap())?;
                let tail = inner.next().unwrap();
                match tail.as_rule() {
                    Rule::alpha_tail => {
                        let b = self.expr(tail.into_inner().next().unwrap())?;
                        ExprKind::AlphaParallel(Box::new(AlphaParallel {
                            left: *l,
                            left_alphabet: first,
                            right_alphabet: b,
                            right: *r,
                        }))
                    }
                    _ => {
                        // `[ first <-> x, pairs... | stmts ]`
                        let mut tail = tail.into_inner();
                        let second = self.expr(tail.next().unwrap())?;
                        let (mut pairs, stmts) = self.pairs_and_stmts(tail)?;
                        pairs.insert(0, (first, second));
                        ExprKind::LinkedParallel(Box::new(LinkedParallel {
                            left: *l,
                            links: pairs,
                            stmts,
                            right: *r,
                        }))
                    }
                }
            }
            other => unreachable!("not an infix operator: {other:?}"),
        })
    }

    /// `a <- b, c <- d | stmts` (renaming) or `a <-> b, ... | stmts` (links).
    fn pairs_and_stmts(
        &mut self,
        pairs: Pairs<Rule>,
    ) -> Result<(ThinVec<ExprPair>, ThinVec<Stmt>)> {
        let mut out = ThinVec::new();
        let mut stmts = ThinVec::new();
        for p in pairs {
            match p.as_rule() {
                Rule::rename_pair | Rule::link_pair => {
                    let mut i = p.into_inner();
                    let a = self.expr(i.next().unwrap())?;
                    let b = self.expr(i.next().unwrap())?;
                    out.push((a, b));
                }
                Rule::comp_tail => stmts = self.stmts(p)?,
                other => unreachable!("not a renaming or link: {other:?}"),
            }
        }
        Ok((out, stmts))
    }

    fn call_args(&mut self, pair: Pair<Rule>) -> Result<ThinVec<Expr>> {
        pair.into_inner().map(|p| self.expr(p)).collect()
    }

    fn field(&mut self, pair: Pair<Rule>) -> Result<Field> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut inner = pair.into_inner();
        let kind = if rule == Rule::field_out {
            FieldKind::Output(self.expr(inner.next().unwrap())?)
        } else {
            let pattern = self.pattern(inner.next().unwrap())?;
            let restriction = inner.next().map(|p| self.expr(p)).transpose()?;
            if rule == Rule::field_in {
                FieldKind::Input(pattern, restriction)
            } else {
                FieldKind::NondetInput(pattern, restriction)
            }
        };
        Ok(Field { kind, span })
    }

    fn pattern(&mut self, pair: Pair<Rule>) -> Result<Pattern> {
        let saved = std::mem::replace(&mut self.in_pattern, true);
        let built = self.expr(pair);
        self.in_pattern = saved;
        to_pattern(built?)
    }

    fn stmts(&mut self, comp_tail: Pair<Rule>) -> Result<ThinVec<Stmt>> {
        comp_tail.into_inner().map(|p| self.stmt(p)).collect()
    }

    fn stmt(&mut self, pair: Pair<Rule>) -> Result<Stmt> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let first = inner.next().unwrap();
        let kind = match inner.next() {
            Some(sep) => {
                let sep = if sep.as_str().trim() == "<-" {
                    GeneratorSep::Arrow
                } else {
                    GeneratorSep::Colon
                };
                let pattern = self.pattern(first)?;
                StmtKind::Generator(pattern, sep, self.expr(inner.next().unwrap())?)
            }
            None => StmtKind::Guard(self.expr(first)?),
        };
        Ok(Stmt { kind, span })
    }

    fn primary(&mut self, pair: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::int_lit => ExprKind::Int(int_literal(pair.as_str(), span)?),
            Rule::string_lit => ExprKind::String(string_literal(pair.as_str(), span)?),
            Rule::char_lit => ExprKind::Char(char_literal(pair.as_str(), span)?),
            Rule::true_lit => ExprKind::Bool(true),
            Rule::false_lit => ExprKind::Bool(false),
            Rule::qname => ExprKind::Name(self.qname(&pair)),
            Rule::wildcard => {
                if !self.in_pattern {
                    return Err(Diagnostic::error(span, "`_` can only be used in a pattern"));
                }
                ExprKind::Wildcard
            }
            Rule::if_expr | Rule::fn_if_expr => {
                let mut i = pair.into_inner();
                let c = self.expr_outside_pattern(i.next().unwrap())?;
                let t = self.expr_outside_pattern(i.next().unwrap())?;
                let e = self.expr_outside_pattern(i.next().unwrap())?;
                ExprKind::If(Box::new(c), Box::new(t), Box::new(e))
            }
            Rule::let_expr => {
                let mut i = pair.into_inner();
                let saved = std::mem::replace(&mut self.in_pattern, false);
                let decls = self.decls(i.next().unwrap().into_inner());
                let body = decls.and_then(|d| Ok((d, self.expr(i.next().unwrap())?)));
                self.in_pattern = saved;
                let (decls, body) = body?;
                ExprKind::Let(decls, Box::new(body))
            }
            Rule::lambda => {
                let mut parts: Vec<Pair<Rule>> = pair.into_inner().collect();
                let body = parts.pop().unwrap();
                let params = parts
                    .into_iter()
                    .map(|p| self.pattern(p))
                    .collect::<Result<ThinVec<_>>>()?;
                ExprKind::Lambda(params, Box::new(self.expr_outside_pattern(body)?))
            }
            Rule::paren_expr => {
                let mut items = pair
                    .into_inner()
                    .map(|p| self.expr(p))
                    .collect::<Result<ThinVec<_>>>()?;
                if items.len() == 1 {
                    // Parentheses leave no node: keep the inner expression,
                    // widened to cover them so diagnostics point at both.
                    let mut e = items.remove(0);
                    e.span = span;
                    return Ok(e);
                }
                ExprKind::Tuple(items)
            }
            Rule::map_lit => {
                let mut entries = ThinVec::new();
                for p in pair.into_inner() {
                    let mut kv = p.into_inner();
                    let k = self.expr(kv.next().unwrap())?;
                    let v = self.expr(kv.next().unwrap())?;
                    entries.push((k, v));
                }
                ExprKind::Map(entries)
            }
            Rule::production => {
                let mut items = ThinVec::new();
                let mut stmts = ThinVec::new();
                for p in pair.into_inner() {
                    match p.as_rule() {
                        Rule::comp_tail => stmts = self.stmts(p)?,
                        _ => items.push(self.expr(p)?),
                    }
                }
                ExprKind::Production(items, stmts)
            }
            Rule::set_expr | Rule::seq_expr => return self.collection(pair),
            Rule::replicated => self.replicated(pair)?,
            other => unreachable!("not a primary: {other:?}"),
        };
        Ok(Expr { kind, span })
    }

    /// Sub-expressions of a primary that are never part of the enclosing
    /// pattern (the branches of an `if`, a lambda's body).
    fn expr_outside_pattern(&mut self, pair: Pair<Rule>) -> Result<Expr> {
        let saved = std::mem::replace(&mut self.in_pattern, false);
        let built = self.expr(pair);
        self.in_pattern = saved;
        built
    }

    /// Sets and sequences: literals, ranges and comprehensions.
    fn collection(&mut self, pair: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&pair);
        let is_set = pair.as_rule() == Rule::set_expr;
        let mut inner = pair.into_inner();
        let Some(first) = inner.next() else {
            let kind = if is_set {
                ExprKind::Set(thin_vec![])
            } else {
                ExprKind::Seq(thin_vec![])
            };
            return Ok(Expr { kind, span });
        };
        let first = self.expr(first)?;
        let tail = inner.next().expect("a first element has a tail");
        let kind = match tail.as_rule() {
            Rule::range_tail => {
                let mut to = None;
                let mut stmts = ThinVec::new();
                for p in tail.into_inner() {
                    match p.as_rule() {
                        Rule::comp_tail => stmts = self.stmts(p)?,
                        _ => to = Some(Box::new(self.expr(p)?)),
                    }
                }
                if is_set {
                    ExprKind::SetRange(Box::new(first), to, stmts)
                } else {
                    ExprKind::SeqRange(Box::new(first), to, stmts)
                }
            }
            _ => {
                let mut items = thin_vec![first];
                let mut stmts = None;
                for p in tail.into_inner() {
                    match p.as_rule() {
                        Rule::comp_tail => stmts = Some(self.stmts(p)?),
                        _ => items.push(self.expr(p)?),
                    }
                }
                match (stmts, is_set) {
                    (Some(stmts), true) => ExprKind::SetComprehension(items, stmts),
                    (Some(stmts), false) => ExprKind::SeqComprehension(items, stmts),
                    (None, true) => ExprKind::Set(items),
                    (None, false) => ExprKind::Seq(items),
                }
            }
        };
        Ok(Expr { kind, span })
    }

    fn replicated(&mut self, pair: Pair<Rule>) -> Result<ExprKind> {
        let saved = std::mem::replace(&mut self.in_pattern, false);
        let built = self.replicated_inner(pair);
        self.in_pattern = saved;
        built
    }

    fn replicated_inner(&mut self, pair: Pair<Rule>) -> Result<ExprKind> {
        let mut parts: Vec<Pair<Rule>> = pair.into_inner().collect();
        if parts.len() == 1 && parts[0].as_rule() == Rule::rep_alpha {
            // `|| stmts @ [A] P`
            let mut parts: Vec<Pair<Rule>> = parts.remove(0).into_inner().collect();
            let body = self.expr(parts.pop().unwrap())?;
            let alphabet = self.expr(parts.pop().unwrap())?;
            let stmts = parts
                .into_iter()
                .map(|p| self.stmt(p))
                .collect::<Result<ThinVec<_>>>()?;
            return Ok(ExprKind::Replicated(Box::new(Replicated {
                op: ReplicatedOp::AlphaParallel(Box::new(alphabet)),
                stmts,
                body,
            })));
        }
        let body = self.expr(parts.pop().unwrap())?;
        let operator = parts.remove(0).into_inner().next().unwrap();
        let op = match operator.as_rule() {
            Rule::rep_extchoice => ReplicatedOp::ExternalChoice,
            Rule::rep_intchoice => ReplicatedOp::InternalChoice,
            Rule::rep_interleave => ReplicatedOp::Interleave,
            Rule::rep_seq => ReplicatedOp::SequentialComposition,
            Rule::rep_sync_choice => ReplicatedOp::SyncExternalChoice(Box::new(
                self.expr(operator.into_inner().next().unwrap())?,
            )),
            Rule::rep_genpar => ReplicatedOp::GenParallel(Box::new(
                self.expr(operator.into_inner().next().unwrap())?,
            )),
            Rule::rep_link => {
                let (pairs, stmts) = self.pairs_and_stmts(operator.into_inner())?;
                ReplicatedOp::LinkedParallel(pairs, stmts)
            }
            other => unreachable!("not a replicated operator: {other:?}"),
        };
        let stmts = parts
            .into_iter()
            .map(|p| self.stmt(p))
            .collect::<Result<ThinVec<_>>>()?;
        Ok(ExprKind::Replicated(Box::new(Replicated {
            op,
            stmts,
            body,
        })))
    }
}

/// The assertion `process :[words [model]]: args`, for the property
/// names the grammar admits (`words` as written, split at spaces and
/// hyphens); `span` is the property's, for the errors.
pub(crate) fn property_kind(
    words: &[&str],
    model: Option<Model>,
    args: Option<ThinVec<Expr>>,
    process: Expr,
    span: Span,
) -> Result<AssertionKind> {
    let simple = |property| {
        if args.is_some() {
            Err(Diagnostic::error(
                span,
                format!("`{}` takes no argument after `]:`", words.join(" ")),
            ))
        } else {
            Ok(AssertionKind::Property {
                process: process.clone(),
                property,
                model,
            })
        }
    };
    // As in FDR: a trace shows neither a deadlock nor a choice made
    // inside, so these two have no check in the traces model.
    let not_in_traces = |what: &str| {
        Err(Diagnostic::error(
            span,
            format!("{what} cannot be checked in the traces model `[T]`"),
        )
        .with_note("as in FDR, use `[F]` or `[FD]`; without a model it is `[FD]`"))
    };
    match words {
        ["deadlock", "free"] if model == Some(Model::Traces) => not_in_traces("deadlock freedom"),
        ["deterministic"] if model == Some(Model::Traces) => not_in_traces("determinism"),
        ["deadlock", "free"] => simple(Property::DeadlockFree),
        ["divergence", "free"] | ["livelock", "free"] => simple(Property::DivergenceFree),
        ["deterministic"] => simple(Property::Deterministic),
        ["has", "trace"] => match args {
            Some(mut a) if a.len() == 1 => Ok(AssertionKind::HasTrace {
                process,
                model,
                trace: a.remove(0),
            }),
            _ => Err(Diagnostic::error(
                span,
                "`:[has trace]` needs exactly one trace after it: `:[has trace]: <a, b>`",
            )),
        },
        ["symmetric"] => {
            if model.is_some() {
                return Err(Diagnostic::error(
                    span,
                    "`:[symmetric]` takes no semantic model",
                ));
            }
            match args {
                Some(types) => Ok(AssertionKind::Symmetric { process, types }),
                None => Err(Diagnostic::error(
                    span,
                    "`:[symmetric]` needs the types to check after it: `:[symmetric]: T`",
                )),
            }
        }
        _ => unreachable!("the grammar admits only known properties"),
    }
}

/// The option `:[words]: args` after an assertion, for the option names
/// the grammar admits; `span` is the option's.
pub(crate) fn option_kind(
    words: &[&str],
    mode: Option<Ident>,
    args: Option<ThinVec<Expr>>,
    span: Span,
) -> Result<AssertOptionKind> {
    if let Some(mode) = mode
        && words[0] != "partial"
    {
        return Err(Diagnostic::error(
            mode.span,
            format!("`:[{}]` takes no mode in brackets", words.join(" ")),
        ));
    }
    Ok(match (words[0], args) {
        ("tau", Some(mut a)) if a.len() == 1 => AssertOptionKind::TauPriority(a.remove(0)),
        ("tau", _) => {
            return Err(Diagnostic::error(
                span,
                "`:[tau priority over]` needs one set of events after it: `:[tau priority over]: {tock}`",
            ));
        }
        ("partial", None) => AssertOptionKind::PartialOrderReduce(mode),
        ("partial", Some(_)) => {
            return Err(Diagnostic::error(
                span,
                "`:[partial order reduce]` takes no argument",
            ));
        }
        ("symmetry", args) => AssertOptionKind::SymmetryReduce(args.unwrap_or_default()),
        _ => unreachable!("the grammar admits only known options"),
    })
}

/// Refuses an option given a second time (FDR's parser does): the two
/// would contradict each other or say the same thing twice.
pub(crate) fn check_option_not_repeated(
    earlier: &[AssertOption],
    option: &AssertOption,
) -> Result<()> {
    let same =
        |o: &AssertOption| std::mem::discriminant(&o.kind) == std::mem::discriminant(&option.kind);
    match earlier.iter().find(|o| same(o)) {
        Some(first) => Err(Diagnostic::error(
            option.span,
            format!("the option `:[{}]` is given twice", option.kind.name()),
        )
        .with_secondary(first.span, "first given here")),
        None => Ok(()),
    }
}

/// Brackets with nothing between them after a module's name or an
/// instance's module: FDR's parser refuses them.
fn empty_brackets(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("{what} with no parameters takes no brackets: leave out `()`"),
    )
}

/// Refuses `print` inside a module or a `Timed` section, and assertions
/// inside a module, which FDR's parser admits only at the top level.
fn only_declarations(decls: &[Decl], within: &str, assertions: bool) -> Result<()> {
    for d in decls {
        let what = match d.kind {
            DeclKind::Assert(_) if !assertions => "an assertion",
            DeclKind::Print(_) => "`print`",
            _ => continue,
        };
        return Err(Diagnostic::error(
            d.span,
            format!("{what} cannot stand inside {within}: move it to the top level"),
        ));
    }
    Ok(())
}

/// The file an `include` names. FDR reads the path between the quotes as
/// it is (no escapes) and accepts Windows' `\` between folders.
pub(crate) fn include_path(literal: &str) -> String {
    literal[1..literal.len() - 1].replace('\\', "/")
}

/// Reads the left-hand side of a definition, parsed as an expression:
/// a name, a (curried) function with parameter patterns, or a pattern.
pub(crate) fn lhs_from_expr(expr: Expr) -> Result<Lhs> {
    // `f(x)(y)`: peel the argument lists off the head name.
    let mut arg_lists = ThinVec::new();
    let mut head = expr;
    while let ExprKind::App(f, args) = head.kind {
        arg_lists.push(args);
        head = *f;
    }
    match head.kind {
        ExprKind::Name(name) if name.is_qualified() => Err(Diagnostic::error(
            name.span,
            "a qualified name cannot be defined here: define it inside its module",
        )),
        ExprKind::Name(name) => {
            let ident = Ident {
                name: name.text,
                span: name.span,
            };
            if arg_lists.is_empty() {
                return Ok(Lhs::Name(ident));
            }
            arg_lists.reverse();
            let params = arg_lists
                .into_iter()
                .map(|args| {
                    args.into_iter()
                        .map(to_pattern)
                        .collect::<Result<ThinVec<_>>>()
                })
                .collect::<Result<ThinVec<_>>>()?;
            Ok(Lhs::Function(ident, params))
        }
        _ if !arg_lists.is_empty() => Err(Diagnostic::error(
            head.span,
            "only a name can be defined as a function: expected `name(args) = ...`",
        )),
        _ => Ok(Lhs::Pattern(to_pattern(head)?)),
    }
}

fn binary_op(rule: Rule) -> Option<BinaryOp> {
    Some(match rule {
        Rule::op_or => BinaryOp::Or,
        Rule::op_and => BinaryOp::And,
        Rule::op_eq => BinaryOp::Eq,
        Rule::op_ne => BinaryOp::Ne,
        Rule::op_lt => BinaryOp::Lt,
        Rule::op_le => BinaryOp::Le,
        Rule::op_gt => BinaryOp::Gt,
        Rule::op_ge => BinaryOp::Ge,
        Rule::op_plus => BinaryOp::Add,
        Rule::op_minus => BinaryOp::Sub,
        Rule::op_times => BinaryOp::Mul,
        Rule::op_div => BinaryOp::Div,
        Rule::op_mod => BinaryOp::Mod,
        Rule::op_concat => BinaryOp::Concat,
        _ => return None,
    })
}

fn process_op(rule: Rule) -> Option<ProcOp> {
    Some(match rule {
        Rule::op_seq => ProcOp::SequentialComposition,
        Rule::op_sliding => ProcOp::SlidingChoice,
        Rule::op_interrupt => ProcOp::Interrupt,
        Rule::op_extchoice => ProcOp::ExternalChoice,
        Rule::op_intchoice => ProcOp::InternalChoice,
        Rule::op_interleave => ProcOp::Interleave,
        _ => return None,
    })
}

fn finished(operand: Operand) -> Result<Expr> {
    match operand {
        Operand::Expr(e) => Ok(e),
        Operand::Event(_, fields, _) => Err(field_outside_prefix(&fields[0])),
    }
}

fn field_outside_prefix(field: &Field) -> Diagnostic {
    Diagnostic::error(
        field.span,
        "a communication field (`?x`, `!e`, `$x`) must be followed by `->` and a process",
    )
}

/// Reads an expression that stands where a pattern is expected.
pub(crate) fn to_pattern(e: Expr) -> Result<Pattern> {
    let span = e.span;
    let kind = match e.kind {
        ExprKind::Wildcard => PatternKind::Wildcard,
        ExprKind::Name(n) => PatternKind::Name(n),
        ExprKind::Int(i) => PatternKind::Int(i),
        ExprKind::Char(c) => PatternKind::Char(c),
        ExprKind::String(s) => PatternKind::String(s),
        ExprKind::Bool(b) => PatternKind::Bool(b),
        ExprKind::Unary(UnaryOp::Neg, inner) if matches!(inner.kind, ExprKind::Int(_)) => {
            let ExprKind::Int(i) = inner.kind else {
                unreachable!()
            };
            PatternKind::Int(-i)
        }
        ExprKind::Tuple(items) => {
            PatternKind::Tuple(items.into_iter().map(to_pattern).collect::<Result<_>>()?)
        }
        ExprKind::Seq(items) => {
            PatternKind::Seq(items.into_iter().map(to_pattern).collect::<Result<_>>()?)
        }
        ExprKind::Set(items) => {
            PatternKind::Set(items.into_iter().map(to_pattern).collect::<Result<_>>()?)
        }
        ExprKind::Dot(a, b) => {
            PatternKind::Dot(Box::new(to_pattern(*a)?), Box::new(to_pattern(*b)?))
        }
        ExprKind::Binary(BinaryOp::Concat, a, b) => {
            PatternKind::Concat(Box::new(to_pattern(*a)?), Box::new(to_pattern(*b)?))
        }
        ExprKind::DoubleAt(a, b) => {
            PatternKind::DoubleAt(Box::new(to_pattern(*a)?), Box::new(to_pattern(*b)?))
        }
        _ => {
            return Err(Diagnostic::error(
                span,
                "this is not a pattern: patterns are built from names, literals, `_`, tuples, \
                 `.`, sequences, `^`, sets and `@@`",
            ));
        }
    };
    Ok(Pattern { kind, span })
}

/// The value of an integer literal.
pub(crate) fn int_literal(text: &str, span: Span) -> Result<i64> {
    text.parse().map_err(|_| {
        Diagnostic::error(
            span,
            "integer literal too large (the largest is 9223372036854775807)",
        )
    })
}

/// The value of a string literal, quotes included in `text`.
pub(crate) fn string_literal(text: &str, span: Span) -> Result<String> {
    unescape(&text[1..text.len() - 1], span)
}

/// The value of a character literal, quotes included in `text`.
pub(crate) fn char_literal(text: &str, span: Span) -> Result<char> {
    let c = unescape(&text[1..text.len() - 1], span)?;
    let mut chars = c.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(Diagnostic::error(
            span,
            "a character literal holds one character",
        )),
    }
}

/// Resolves the escapes of a string or character literal's contents.
fn unescape(text: &str, span: Span) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(c @ ('\\' | '"' | '\'')) => out.push(c),
            Some(other) => {
                return Err(Diagnostic::error(
                    span,
                    format!("unknown escape `\\{other}` (known: \\n \\t \\r \\0 \\\\ \\\" \\')"),
                ));
            }
            None => return Err(Diagnostic::error(span, "a literal cannot end with `\\`")),
        }
    }
    Ok(out)
}

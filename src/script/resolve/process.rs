//! Lowering process expressions: operators, prefixes and their fields,
//! replicated operators.

use super::expr::BoundOnce;
use super::*;

impl<'s, 'p> Resolver<'s, 'p> {
    /// A process operator: a function of its own, so that its value is a
    /// control state with exactly its free variables.
    pub(super) fn process(&mut self, e: &ast::Expr) -> ExprId {
        use ast::ExprKind as E;
        let span = e.span;
        let func = self.new_function(Ustr::from("process"), FunctionKind::Process, span);
        self.push_fn(None);
        let depth = self.scopes.len();
        let body = match &e.kind {
            E::Prefix(event, fields, then) => self.prefix(event, fields, then),
            E::Guard(g, p) => {
                let g = self.expr(g);
                ExprKind::Guard(g, self.expr(p))
            }
            E::Process(op, a, b) => {
                let a = self.expr(a);
                ExprKind::ProcBinary(*op, a, self.expr(b))
            }
            E::Hide(a, b) => {
                let a = self.expr(a);
                ExprKind::Hide(a, self.expr(b))
            }
            E::Project(a, b) => {
                let a = self.expr(a);
                ExprKind::Project(a, self.expr(b))
            }
            E::GenParallel(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::GenParallel(a, s, b)
            }
            E::Exception(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::Exception(a, s, b)
            }
            E::SyncExternalChoice(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::SyncExternalChoice(a, s, b)
            }
            E::SyncInterrupt(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::SyncInterrupt(a, s, b)
            }
            E::AlphaParallel(par) => {
                let a = self.expr(&par.left);
                let x = self.expr(&par.left_alphabet);
                let y = self.expr(&par.right_alphabet);
                let b = self.expr(&par.right);
                ExprKind::AlphaParallel(a, x, y, b)
            }
            E::LinkedParallel(par) => {
                self.refuse_in_timed(span);
                let a = self.expr(&par.left);
                let b = self.expr(&par.right);
                let stmts = self.stmts(&par.stmts);
                let pairs = self.pairs(&par.links);
                self.scopes.truncate(depth);
                ExprKind::LinkedParallel(a, pairs, stmts, b)
            }
            E::Rename(a, pairs, stmts) => {
                let a = self.expr(a);
                let stmts = self.stmts(stmts);
                let pairs = self.pairs(pairs);
                self.scopes.truncate(depth);
                ExprKind::Rename(a, pairs, stmts)
            }
            E::Replicated(replicated) => self.replicated(replicated, span),
            _ => unreachable!("every other expression is functional"),
        };
        self.scopes.truncate(depth);
        let body = self.push_expr(body, span);
        let f = &mut self.script.functions[func.index()];
        f.clauses = vec![Clause {
            params: Vec::new(),
            body,
            span,
        }];
        let sources = self.pop_fn(func);
        self.push_expr(ExprKind::Process(func, sources), span)
    }

    /// `c?x!y -> P`: the event, the fields in order (each input binding
    /// its pattern's variables for the rest) and what follows.
    fn prefix(&mut self, event: &ast::Expr, fields: &[ast::Field], then: &ast::Expr) -> ExprKind {
        let event = self.expr(event);
        self.check_field_order(fields);
        let mut bound = BoundOnce::default();
        // A field's span as parsed runs on over the spaces after it; a
        // diagnostic underlines the field's own text.
        let written = |f: &ast::Field| match &f.kind {
            ast::FieldKind::Output(e) => Span {
                end: e.span.end,
                ..f.span
            },
            ast::FieldKind::Input(p, set) | ast::FieldKind::NondetInput(p, set) => Span {
                end: set.as_ref().map_or(p.span.end, |s| s.span.end),
                ..f.span
            },
        };
        let fields = fields
            .iter()
            .map(|f| match &f.kind {
                ast::FieldKind::Output(e) => Field {
                    kind: FieldKind::Output(self.expr(e)),
                    span: written(f),
                },
                ast::FieldKind::Input(p, set) | ast::FieldKind::NondetInput(p, set) => {
                    if self.ctx.timed && matches!(f.kind, ast::FieldKind::NondetInput(..)) {
                        self.error(
                            f.span,
                            "a nondeterministic input (`$`) is not allowed in a `Timed` \
                             section",
                        );
                    }
                    let set = set.as_ref().map(|s| self.expr(s));
                    self.scopes.push(FxHashMap::default());
                    self.bind_once(&mut bound, p, "prefix");
                    let p = self.pattern(p);
                    let kind = if matches!(f.kind, ast::FieldKind::Input(..)) {
                        FieldKind::Input(p, set)
                    } else {
                        FieldKind::NondetInput(p, set)
                    };
                    Field {
                        kind,
                        span: written(f),
                    }
                }
            })
            .collect();
        let then = self.expr(then);
        ExprKind::Prefix(event, fields, then)
    }

    /// A replicated operator (`[] x : X @ P`): its statements bind the
    /// variables of its operator's argument and of its body.
    fn replicated(&mut self, replicated: &ast::Replicated, span: Span) -> ExprKind {
        let ast::Replicated { op, stmts, body } = replicated;
        let stmts = self.stmts(stmts);
        let op = match op {
            ast::ReplicatedOp::ExternalChoice => ReplicatedOp::ExternalChoice,
            ast::ReplicatedOp::InternalChoice => ReplicatedOp::InternalChoice,
            ast::ReplicatedOp::Interleave => ReplicatedOp::Interleave,
            ast::ReplicatedOp::SequentialComposition => ReplicatedOp::SequentialComposition,
            ast::ReplicatedOp::SyncExternalChoice(a) => {
                ReplicatedOp::SyncExternalChoice(self.expr(a))
            }
            ast::ReplicatedOp::GenParallel(a) => ReplicatedOp::GenParallel(self.expr(a)),
            ast::ReplicatedOp::AlphaParallel(a) => ReplicatedOp::AlphaParallel(self.expr(a)),
            ast::ReplicatedOp::LinkedParallel(pairs, inner) => {
                self.refuse_in_timed(span);
                let inner_depth = self.scopes.len();
                let inner_stmts = self.stmts(inner);
                let pairs = self.pairs(pairs);
                self.scopes.truncate(inner_depth);
                ReplicatedOp::LinkedParallel(pairs, inner_stmts)
            }
        };
        let body = self.expr(body);
        ExprKind::Replicated(op, stmts, body)
    }

    /// As in FDR, the nondeterministic fields of a prefix come first:
    /// `c$x?y` chooses `x` and then offers every `y`; `c?y$x` is refused.
    fn check_field_order(&mut self, fields: &[ast::Field]) {
        let first_other = fields
            .iter()
            .position(|f| !matches!(f.kind, ast::FieldKind::NondetInput(..)));
        let Some(first_other) = first_other else {
            return;
        };
        if let Some(late) = fields[first_other..]
            .iter()
            .find(|f| matches!(f.kind, ast::FieldKind::NondetInput(..)))
        {
            self.diagnostics.push(
                Diagnostic::error(late.span, "a `$` field cannot follow a `?` or `!` field")
                    .with_secondary(fields[first_other].span, "this field comes before it")
                    .with_note("write the nondeterministic fields first: `c$x?y`"),
            );
        }
    }

    /// FDR has no timed semantics for linked parallel: it is an error in a
    /// `Timed` section.
    fn refuse_in_timed(&mut self, span: Span) {
        if self.ctx.timed {
            self.error(
                span,
                "the linked parallel operator is not allowed in a `Timed` section",
            );
        }
    }
}

//! Expressions: pest's Pratt parse of the operators, the depth bound,
//! communication fields, patterns and comprehension statements.

use pest::iterators::{Pair, Pairs};
use thin_vec::ThinVec;

use super::super::ast::{
    AlphaParallel, BinaryOp, Expr, ExprKind, Field, FieldKind, GeneratorSep, LinkedParallel,
    Pattern, ProcOp, Stmt, StmtKind, UnaryOp,
};
use super::super::diagnostic::Diagnostic;
use super::super::parser::{self, PRATT, Rule};
use super::{Builder, ExprPair, Operand, Result, to_pattern, too_deep};

impl Builder {
    /// Builds an `expr` or `dot_expr` pair.
    pub(super) fn expr(&mut self, pair: Pair<Rule>) -> Result<Expr> {
        let span = self.span(&pair);
        let operators = pair
            .clone()
            .into_inner()
            .filter(|p| parser::is_operator(p.as_rule()))
            .count();
        // Each operator may add a level to the tree: bound the depth before
        // the (recursive) Pratt parser and every later walk see it.
        self.depth += operators + 1;
        self.nesting += 1;
        if let Some(problem) = too_deep(self.depth, self.nesting) {
            self.depth -= operators + 1;
            self.nesting -= 1;
            return Err(Diagnostic::error(span, problem));
        }
        let result = self.pratt(pair.into_inner());
        self.depth -= operators + 1;
        self.nesting -= 1;
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
    pub(super) fn pairs_and_stmts(
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

    pub(super) fn call_args(&mut self, pair: Pair<Rule>) -> Result<ThinVec<Expr>> {
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

    pub(super) fn pattern(&mut self, pair: Pair<Rule>) -> Result<Pattern> {
        let saved = std::mem::replace(&mut self.in_pattern, true);
        let built = self.expr(pair);
        self.in_pattern = saved;
        to_pattern(built?)
    }

    pub(super) fn stmts(&mut self, comp_tail: Pair<Rule>) -> Result<ThinVec<Stmt>> {
        comp_tail.into_inner().map(|p| self.stmt(p)).collect()
    }

    pub(super) fn stmt(&mut self, pair: Pair<Rule>) -> Result<Stmt> {
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

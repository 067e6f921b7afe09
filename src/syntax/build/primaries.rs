//! Primary expressions: literals, names, brackets, collections and the
//! other atoms, and the replicated operators.

use pest::iterators::Pair;
use thin_vec::{ThinVec, thin_vec};

use super::super::ast::{DeclKind, Expr, ExprKind, Replicated, ReplicatedOp};
use super::super::diagnostic::Diagnostic;
use super::super::parser::Rule;
use super::{Builder, Result, char_literal, int_literal, string_literal};

impl Builder {
    pub(super) fn primary(&mut self, pair: Pair<Rule>) -> Result<Expr> {
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
                // Refused as the script is read, as FDR's parser does, so
                // that a module never instantiated is not spared.
                if let Some(instance) = decls
                    .iter()
                    .find(|d| matches!(d.kind, DeclKind::Instance(..)))
                {
                    return Err(Diagnostic::error(
                        instance.span,
                        "an instance is not a valid declaration in a `let` (as in FDR): declare \
                         it at the top level or in a module",
                    ));
                }
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

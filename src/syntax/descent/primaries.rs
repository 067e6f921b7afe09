//! Primary expressions: literals, names, brackets, collections,
//! maps, productions, lambdas, conditionals, `let .. within` and the
//! replicated operators.

use thin_vec::{ThinVec, thin_vec};
use ustr::Ustr;

use super::super::ast::{Expr, ExprKind, Name, Replicated, ReplicatedOp};
use super::super::build;
use super::super::tokens::Tok;
use super::{GiveUp, Mode, Parsed, Parser};

impl<'t> Parser<'t> {
    pub(super) fn primary(&mut self, mode: Mode) -> Parsed<Expr> {
        let token = self.tok;
        let span = self.token_span(token);
        let text = self.text(token);
        let kind = match token.kind {
            Tok::Ident => ExprKind::Name(Name {
                text: Ustr::from(text),
                span,
            }),
            Tok::Int => ExprKind::Int(build::int_literal(text, span)?),
            Tok::Str => ExprKind::String(build::string_literal(text, span)?),
            Tok::Char => ExprKind::Char(build::char_literal(text, span)?),
            Tok::True => ExprKind::Bool(true),
            Tok::False => ExprKind::Bool(false),
            Tok::Wildcard => {
                self.wildcards += 1;
                ExprKind::Wildcard
            }
            Tok::LParen => return self.parenthesised(),
            Tok::LBrace | Tok::Lt => return self.collection(),
            Tok::MapOpen => return self.map(),
            Tok::ProdOpen => return self.production(),
            Tok::Backslash => return self.lambda(),
            Tok::If => return self.conditional(mode),
            Tok::Let => return self.let_within(),
            Tok::ExtChoice
            | Tok::IntChoice
            | Tok::Interleave
            | Tok::Semi
            | Tok::SyncChoiceOpen
            | Tok::GenParOpen
            | Tok::LSquare
            | Tok::Parallel => return self.replicated(),
            _ => return Err(GiveUp),
        };
        self.bump();
        Ok(Expr { kind, span })
    }

    /// `(e)` (which leaves no node, only its span) or a tuple.
    fn parenthesised(&mut self) -> Parsed<Expr> {
        let open = self.bump();
        let mut items = self.bracketed(false, |p| p.comma_list(|p| p.expr(Mode::Process)))?;
        let close = self.expect(Tok::RParen)?;
        let span = self.span(open.start, close.end);
        if items.len() == 1 {
            let mut e = items.pop().expect("one item");
            e.span = span;
            return Ok(e);
        }
        Ok(Expr {
            kind: ExprKind::Tuple(items),
            span,
        })
    }

    /// Sets and sequences: literals, ranges and comprehensions.
    fn collection(&mut self) -> Parsed<Expr> {
        let open = self.bump();
        let set = open.kind == Tok::LBrace;
        let close = if set { Tok::RBrace } else { Tok::Gt };
        let kind = self.bracketed(!set, |p| {
            if p.at(close) {
                return Ok(if set {
                    ExprKind::Set(ThinVec::new())
                } else {
                    ExprKind::Seq(ThinVec::new())
                });
            }
            let first = p.expr(Mode::Process)?;
            if p.eat(Tok::DotDot) {
                let to = if p.at(close) || p.at(Tok::Bar) {
                    None
                } else {
                    Some(Box::new(p.expr(Mode::Process)?))
                };
                let from = Box::new(first);
                let stmts = p.optional_comprehension()?;
                return Ok(if set {
                    ExprKind::SetRange(from, to, stmts)
                } else {
                    ExprKind::SeqRange(from, to, stmts)
                });
            }
            let mut items = thin_vec![first];
            while p.eat(Tok::Comma) {
                items.push(p.expr(Mode::Process)?);
            }
            items.shrink_to_fit();
            Ok(match (p.at(Tok::Bar), set) {
                (true, true) => ExprKind::SetComprehension(items, p.optional_comprehension()?),
                (true, false) => ExprKind::SeqComprehension(items, p.optional_comprehension()?),
                (false, true) => ExprKind::Set(items),
                (false, false) => ExprKind::Seq(items),
            })
        })?;
        let end = self.expect(close)?;
        Ok(Expr {
            kind,
            span: self.span(open.start, end.end),
        })
    }

    /// `(| k => v, ... |)`
    pub(super) fn map(&mut self) -> Parsed<Expr> {
        let open = self.bump();
        let entries = self.bracketed(false, |p| {
            if p.at(Tok::MapClose) {
                return Ok(ThinVec::new());
            }
            p.comma_list(|p| {
                let key = p.expr(Mode::Process)?;
                p.expect(Tok::FatArrow)?;
                Ok((key, p.expr(Mode::Process)?))
            })
        })?;
        let close = self.expect(Tok::MapClose)?;
        Ok(Expr {
            kind: ExprKind::Map(entries),
            span: self.span(open.start, close.end),
        })
    }

    /// `{| c, d.1 | stmts |}`
    fn production(&mut self) -> Parsed<Expr> {
        let open = self.bump();
        let (items, stmts) = self.bracketed(false, |p| {
            if p.at(Tok::ProdClose) {
                // `{| |}`: no events.
                return Ok((ThinVec::new(), ThinVec::new()));
            }
            let items = p.comma_list(|p| p.expr(Mode::Process))?;
            Ok((items, p.optional_comprehension()?))
        })?;
        let close = self.expect(Tok::ProdClose)?;
        Ok(Expr {
            kind: ExprKind::Production(items, stmts),
            span: self.span(open.start, close.end),
        })
    }

    /// `\ p, q @ e`
    fn lambda(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let params = self.comma_list(Self::pattern)?;
        self.expect(Tok::At)?;
        let body = self.expr(Mode::Process)?;
        Ok(Expr {
            kind: ExprKind::Lambda(params, Box::new(body)),
            span: self.span_to_trail(start),
        })
    }

    /// `if b then x else y`; in functional mode the last branch is
    /// functional too (the grammar's `fn_if_expr`).
    fn conditional(&mut self, mode: Mode) -> Parsed<Expr> {
        let start = self.bump().start;
        let condition = self.expr(Mode::Process)?;
        self.expect(Tok::Then)?;
        let then = self.expr(Mode::Process)?;
        self.expect(Tok::Else)?;
        let otherwise = self.expr(mode)?;
        Ok(Expr {
            kind: ExprKind::If(Box::new(condition), Box::new(then), Box::new(otherwise)),
            span: self.span_to_trail(start),
        })
    }

    /// `let decls within e`; the declarations are on lines of their own.
    fn let_within(&mut self) -> Parsed<Expr> {
        let start = self.bump().start;
        let mut decls = ThinVec::new();
        loop {
            let first = self.tok;
            let decl = match first.kind {
                Tok::External | Tok::Transparent => {
                    self.bump();
                    self.names_decl(first)?
                }
                Tok::Ident if self.text(first) == "Timed" => self.timed()?,
                _ => self.definition_or_annotation()?,
            };
            decls.push(decl);
            if self.eat(Tok::Within) {
                break;
            }
            if !self.tok.nl_before {
                return Err(GiveUp);
            }
        }
        decls.shrink_to_fit();
        let body = self.expr(Mode::Process)?;
        Ok(Expr {
            kind: ExprKind::Let(decls, Box::new(body)),
            span: self.span_to_trail(start),
        })
    }

    /// `[] x : S @ P` and the other replicated operators.
    fn replicated(&mut self) -> Parsed<Expr> {
        let op = self.bump();
        let replicated = match op.kind {
            Tok::Parallel => {
                // `|| stmts @ [A] P`
                let stmts = self.comma_list(Self::stmt)?;
                self.expect(Tok::At)?;
                self.expect(Tok::LSquare)?;
                let alphabet = self.bracketed(false, |p| p.expr(Mode::Process))?;
                self.expect(Tok::RSquare)?;
                let body = self.expr(Mode::Process)?;
                Replicated {
                    op: ReplicatedOp::AlphaParallel(Box::new(alphabet)),
                    stmts,
                    body,
                }
            }
            _ => {
                let operator = match op.kind {
                    Tok::ExtChoice => ReplicatedOp::ExternalChoice,
                    Tok::IntChoice => ReplicatedOp::InternalChoice,
                    Tok::Interleave => ReplicatedOp::Interleave,
                    Tok::Semi => ReplicatedOp::SequentialComposition,
                    Tok::SyncChoiceOpen => {
                        let set = self.bracketed(false, |p| p.expr(Mode::Process))?;
                        self.expect(Tok::SyncChoiceClose)?;
                        ReplicatedOp::SyncExternalChoice(Box::new(set))
                    }
                    Tok::GenParOpen => {
                        let set = self.bracketed(false, |p| p.expr(Mode::Process))?;
                        self.expect(Tok::GenParClose)?;
                        ReplicatedOp::GenParallel(Box::new(set))
                    }
                    _ => {
                        let (pairs, stmts) = self.bracketed(false, |p| {
                            let first = p.expr(Mode::Functional)?;
                            p.pairs_from(first, Tok::Tie)
                        })?;
                        self.expect(Tok::RSquare)?;
                        ReplicatedOp::LinkedParallel(pairs, stmts)
                    }
                };
                let stmts = self.comma_list(Self::stmt)?;
                self.expect(Tok::At)?;
                let body = self.expr(Mode::Process)?;
                Replicated {
                    op: operator,
                    stmts,
                    body,
                }
            }
        };
        Ok(Expr {
            kind: ExprKind::Replicated(Box::new(replicated)),
            span: self.span_to_trail(op.start),
        })
    }
}

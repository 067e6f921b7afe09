//! Expressions: the Pratt loop over the operators of `strength.rs`,
//! the postfix forms (application, renaming, linked parallel), fields,
//! patterns and comprehension statements.

use thin_vec::{ThinVec, thin_vec};

use super::super::ast::{
    AlphaParallel, BinaryOp, Expr, ExprKind, Field, FieldKind, GeneratorSep, LinkedParallel,
    Pattern, ProcOp, Stmt, StmtKind, UnaryOp,
};
use super::super::build::{self, Operand};
use super::super::strength::{Fixity, Operator, level, strength};
use super::super::tokens::{Tok, Token};
use super::{GiveUp, Mode, PairsAndStmts, Parsed, Parser, finished};

impl<'t> Parser<'t> {
    /// One `expr` (or, in functional mode, `dot_expr`) of the grammar.
    pub(super) fn expr(&mut self, mode: Mode) -> Parsed<Expr> {
        self.enter()?;
        let operand = self.pratt(mode, 0)?;
        self.leave()?;
        finished(operand)
    }

    /// Operands joined by operators binding tighter than `min`.
    fn pratt(&mut self, mode: Mode, min: u8) -> Parsed<Operand> {
        let mut lhs = self.operand(mode)?;
        while let Some((power, fixity)) = self.continuation(mode) {
            if power <= min {
                break;
            }
            self.count_operator()?;
            lhs = self.apply(mode, lhs, power, fixity)?;
        }
        Ok(lhs)
    }

    /// Whether the next token continues the expression as an operator, and
    /// how tightly it binds (its level in `strength.rs`: larger binds
    /// tighter).
    fn continuation(&self, mode: Mode) -> Option<(u8, Fixity)> {
        use Operator as O;
        // After a newline, `<`, `-` and `(` start a new declaration.
        if self.tok.nl_before && matches!(self.tok.kind, Tok::Lt | Tok::Minus | Tok::LParen) {
            return None;
        }
        let functional = match self.tok.kind {
            Tok::DoubleAt => Some(O::DoubleAt),
            Tok::Dot => Some(O::Dot),
            Tok::Or => Some(O::Or),
            Tok::And => Some(O::And),
            Tok::Eq => Some(O::Eq),
            Tok::Ne => Some(O::Ne),
            Tok::Lt => Some(O::Lt),
            Tok::Le => Some(O::Le),
            Tok::Ge => Some(O::Ge),
            Tok::Gt if !self.in_sequence => Some(O::Gt),
            Tok::Plus => Some(O::Plus),
            Tok::Minus => Some(O::Minus),
            Tok::Times => Some(O::Times),
            Tok::Div => Some(O::Div),
            Tok::Mod => Some(O::Mod),
            Tok::Concat => Some(O::Concat),
            Tok::LParen => Some(O::Call),
            Tok::RenameOpen => Some(O::Rename),
            _ => None,
        };
        let op = match functional {
            Some(op) => op,
            None if mode == Mode::Functional => return None,
            None => match self.tok.kind {
                Tok::Backslash => O::Hide,
                Tok::Project => O::Project,
                Tok::Interleave => O::Interleave,
                Tok::GenParOpen => O::GenPar,
                Tok::LSquare => O::BracketPar,
                Tok::IntChoice => O::IntChoice,
                Tok::ExtChoice => O::ExtChoice,
                Tok::SyncChoiceOpen => O::SyncChoice,
                Tok::Interrupt => O::Interrupt,
                Tok::SyncInterruptOpen => O::SyncInterrupt,
                Tok::Sliding => O::Sliding,
                Tok::Semi => O::Seq,
                Tok::Arrow => O::Then,
                Tok::Amp => O::Guard,
                Tok::Question => O::FieldIn,
                Tok::Bang => O::FieldOut,
                Tok::Dollar => O::FieldNondet,
                _ => return None,
            },
        };
        Some(strength(op))
    }

    /// A primary, or a prefix operator applied to what follows it.
    fn operand(&mut self, mode: Mode) -> Parsed<Operand> {
        let (power, op) = match self.tok.kind {
            Tok::Not => (level(Operator::Not), UnaryOp::Not),
            Tok::Minus => (level(Operator::Neg), UnaryOp::Neg),
            Tok::Hash => (level(Operator::Length), UnaryOp::Length),
            _ => return self.primary(mode).map(Operand::Expr),
        };
        let token = self.bump();
        self.count_operator()?;
        let rhs = finished(self.pratt(mode, power - 1)?)?;
        Ok(Operand::Expr(Expr {
            span: self.token_span(token).to(rhs.span),
            kind: ExprKind::Unary(op, Box::new(rhs)),
        }))
    }

    /// Applies the operator at the next token to `lhs`.
    fn apply(&mut self, mode: Mode, lhs: Operand, power: u8, fixity: Fixity) -> Parsed<Operand> {
        let op = self.bump();
        if op.kind == Tok::Gt && self.tok.nl_before {
            // `>` alone swallows no newline after it.
            return Err(GiveUp);
        }
        if fixity == Fixity::Postfix {
            return self.postfix(lhs, op);
        }
        // Bracketed operators carry an argument, read before the right
        // operand.
        let argument = match op.kind {
            Tok::GenParOpen => {
                let set = self.bracketed(false, |p| p.expr(Mode::Process))?;
                let close = self.bump();
                if !matches!(close.kind, Tok::GenParClose | Tok::ExceptionClose) {
                    return Err(GiveUp);
                }
                Some((set, close.kind == Tok::ExceptionClose))
            }
            Tok::SyncChoiceOpen | Tok::SyncInterruptOpen => {
                let set = self.bracketed(false, |p| p.expr(Mode::Process))?;
                let close = if op.kind == Tok::SyncChoiceOpen {
                    Tok::SyncChoiceClose
                } else {
                    Tok::SyncInterruptClose
                };
                self.expect(close)?;
                Some((set, false))
            }
            _ => None,
        };
        let bracket_parallel = if op.kind == Tok::LSquare {
            Some(self.bracketed(false, Self::bracket_parallel)?)
        } else {
            None
        };
        let min = if fixity == Fixity::Right {
            power - 1
        } else {
            power
        };
        let rhs = finished(self.pratt(mode, min)?)?;
        if op.kind == Tok::Arrow {
            let (event, fields, span) = lhs.into_event();
            return Ok(Operand::Expr(Expr {
                span: span.to(rhs.span),
                kind: ExprKind::Prefix(Box::new(event), fields, Box::new(rhs)),
            }));
        }
        let lhs = finished(lhs)?;
        let span = lhs.span.to(rhs.span);
        let (l, r) = (Box::new(lhs), Box::new(rhs));
        let kind = if let Some(o) = binary_op(op.kind) {
            ExprKind::Binary(o, l, r)
        } else if let Some(o) = process_op(op.kind) {
            ExprKind::Process(o, l, r)
        } else if let Some((set, exception)) = argument {
            let set = Box::new(set);
            match op.kind {
                Tok::GenParOpen if exception => ExprKind::Exception(l, set, r),
                Tok::GenParOpen => ExprKind::GenParallel(l, set, r),
                Tok::SyncChoiceOpen => ExprKind::SyncExternalChoice(l, set, r),
                _ => ExprKind::SyncInterrupt(l, set, r),
            }
        } else if let Some(parallel) = bracket_parallel {
            match parallel {
                BracketParallel::Alphabets(a, b) => {
                    ExprKind::AlphaParallel(Box::new(AlphaParallel {
                        left: *l,
                        left_alphabet: a,
                        right_alphabet: b,
                        right: *r,
                    }))
                }
                BracketParallel::Links(links, stmts) => {
                    ExprKind::LinkedParallel(Box::new(LinkedParallel {
                        left: *l,
                        links,
                        stmts,
                        right: *r,
                    }))
                }
            }
        } else {
            match op.kind {
                Tok::DoubleAt => {
                    self.wildcards += 1;
                    ExprKind::DoubleAt(l, r)
                }
                Tok::Dot => ExprKind::Dot(l, r),
                Tok::Amp => ExprKind::Guard(l, r),
                Tok::Backslash => ExprKind::hiding(false, l, r),
                Tok::Project => ExprKind::hiding(true, l, r),
                _ => return Err(GiveUp),
            }
        };
        Ok(Operand::Expr(Expr { kind, span }))
    }

    /// A call's arguments, after its `(` (a function's or a module
    /// instance's): the expressions, and the `)` that closes them.
    pub(super) fn call_args(&mut self) -> Parsed<(ThinVec<Expr>, Token)> {
        let args = self.bracketed(false, |p| {
            if p.at(Tok::RParen) {
                Ok(ThinVec::new())
            } else {
                p.comma_list(|p| p.expr(Mode::Process))
            }
        })?;
        let close = self.expect(Tok::RParen)?;
        Ok((args, close))
    }

    fn postfix(&mut self, lhs: Operand, op: Token) -> Parsed<Operand> {
        match op.kind {
            Tok::LParen => {
                let f = finished(lhs)?;
                let (args, close) = self.call_args()?;
                Ok(Operand::Expr(Expr {
                    span: f.span.to(self.span(op.start, close.end)),
                    kind: ExprKind::App(Box::new(f), args),
                }))
            }
            Tok::RenameOpen => {
                let process = finished(lhs)?;
                let (pairs, stmts) = self.bracketed(false, |p| {
                    if p.at(Tok::RSquare) {
                        // `[[ ]]`, the identity.
                        return Ok((ThinVec::new(), ThinVec::new()));
                    }
                    let first = p.expr(Mode::Functional)?;
                    p.pairs_from(first, Tok::Drawn)
                })?;
                // `]]`: two brackets side by side.
                self.expect(Tok::RSquare)?;
                if self.tok.start != self.last_end {
                    return Err(GiveUp);
                }
                let close = self.expect(Tok::RSquare)?;
                Ok(Operand::Expr(Expr {
                    span: process.span.to(self.span(op.start, close.end)),
                    kind: ExprKind::Rename(Box::new(process), pairs, stmts),
                }))
            }
            _ => {
                let field = self.field(op)?;
                Ok(lhs.with_field(field))
            }
        }
    }

    /// `?p`, `?p:S`, `$p`, `$p:S` or `!e`, after its symbol.
    fn field(&mut self, symbol: Token) -> Parsed<Field> {
        let kind = if symbol.kind == Tok::Bang {
            FieldKind::Output(self.expr(Mode::Functional)?)
        } else {
            let pattern = self.pattern()?;
            let restriction = if self.eat(Tok::Colon) {
                Some(self.expr(Mode::Functional)?)
            } else {
                None
            };
            if symbol.kind == Tok::Question {
                FieldKind::Input(pattern, restriction)
            } else {
                FieldKind::NondetInput(pattern, restriction)
            }
        };
        Ok(Field {
            kind,
            span: self.span_to_trail(symbol.start),
        })
    }

    /// `[ A || B ]` or `[ a <-> b, ... | stmts ]`, after the `[`.
    fn bracket_parallel(&mut self) -> Parsed<BracketParallel> {
        let first = self.expr(Mode::Functional)?;
        let parallel = if self.eat(Tok::Parallel) {
            BracketParallel::Alphabets(first, self.expr(Mode::Process)?)
        } else {
            let (pairs, stmts) = self.pairs_from(first, Tok::Tie)?;
            BracketParallel::Links(pairs, stmts)
        };
        self.expect(Tok::RSquare)?;
        Ok(parallel)
    }

    /// `a <- b, c <- d | stmts` (renamings) or `a <-> b, ...` (links),
    /// `first` being `a`.
    pub(super) fn pairs_from(&mut self, first: Expr, sep: Tok) -> Parsed<PairsAndStmts> {
        self.expect(sep)?;
        let mut pairs = thin_vec![(first, self.expr(Mode::Functional)?)];
        while self.eat(Tok::Comma) {
            let a = self.expr(Mode::Functional)?;
            self.expect(sep)?;
            pairs.push((a, self.expr(Mode::Functional)?));
        }
        pairs.shrink_to_fit();
        let stmts = self.optional_comprehension()?;
        Ok((pairs, stmts))
    }

    /// A pattern: an expression of the functional operators read as one.
    pub(super) fn pattern(&mut self) -> Parsed<Pattern> {
        let before = self.wildcards;
        let expr = self.expr(Mode::Functional)?;
        let pattern = build::to_pattern(expr)?;
        self.wildcards = before;
        Ok(pattern)
    }

    /// `| stmt, stmt` if the next token is `|`, else nothing.
    pub(super) fn optional_comprehension(&mut self) -> Parsed<ThinVec<Stmt>> {
        if self.eat(Tok::Bar) {
            self.comma_list(Self::stmt)
        } else {
            Ok(ThinVec::new())
        }
    }

    pub(super) fn stmt(&mut self) -> Parsed<Stmt> {
        let start = self.tok.start;
        let before = self.wildcards;
        let first = self.expr(Mode::Functional)?;
        let sep = match self.tok.kind {
            Tok::Drawn => GeneratorSep::Arrow,
            Tok::Colon => GeneratorSep::Colon,
            _ => {
                return Ok(Stmt {
                    kind: StmtKind::Guard(first),
                    span: self.span_to_trail(start),
                });
            }
        };
        self.bump();
        let pattern = build::to_pattern(first)?;
        self.wildcards = before;
        let source = self.expr(Mode::Functional)?;
        Ok(Stmt {
            kind: StmtKind::Generator(pattern, sep, source),
            span: self.span_to_trail(start),
        })
    }
}

/// The two forms of `P [ ... ] Q`.
enum BracketParallel {
    Alphabets(Expr, Expr),
    Links(ThinVec<(Expr, Expr)>, ThinVec<Stmt>),
}

fn binary_op(kind: Tok) -> Option<BinaryOp> {
    Some(match kind {
        Tok::Or => BinaryOp::Or,
        Tok::And => BinaryOp::And,
        Tok::Eq => BinaryOp::Eq,
        Tok::Ne => BinaryOp::Ne,
        Tok::Lt => BinaryOp::Lt,
        Tok::Le => BinaryOp::Le,
        Tok::Gt => BinaryOp::Gt,
        Tok::Ge => BinaryOp::Ge,
        Tok::Plus => BinaryOp::Add,
        Tok::Minus => BinaryOp::Sub,
        Tok::Times => BinaryOp::Mul,
        Tok::Div => BinaryOp::Div,
        Tok::Mod => BinaryOp::Mod,
        Tok::Concat => BinaryOp::Concat,
        _ => return None,
    })
}

fn process_op(kind: Tok) -> Option<ProcOp> {
    Some(match kind {
        Tok::Semi => ProcOp::SequentialComposition,
        Tok::Sliding => ProcOp::SlidingChoice,
        Tok::Interrupt => ProcOp::Interrupt,
        Tok::ExtChoice => ProcOp::ExternalChoice,
        Tok::IntChoice => ProcOp::InternalChoice,
        Tok::Interleave => ProcOp::Interleave,
        _ => return None,
    })
}

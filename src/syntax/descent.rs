//! The fast parser: recursive descent over [`tokens`](super::tokens) with
//! a Pratt loop for the operators, building exactly the tree that
//! `build.rs` builds from pest's parse of the same text, spans included.
//!
//! It is a shortcut, not a second definition of CSPM: the grammar
//! (`grammar/cspm.pest`) stays the reference. This parser gives up
//! ([`GiveUp`]) on anything out of the ordinary — every syntax error,
//! everything the builder would reject, modules, instances and `Timed`
//! sections, and the few layouts pest reads in a context-dependent way —
//! and the caller then runs pest, which parses the text or explains what is
//! wrong. So it may refuse any text, but a tree it returns must be pest's;
//! a differential test (`tests/syntax_differential.rs`) holds it to that
//! on every fixture, every model and random and mutated scripts.
//!
//! Pest's spans are reproduced as pest makes them: a rule that ends with
//! an optional or repeated part keeps the white space and comments pest
//! skipped after its last token (up to the next newline), which
//! [`Token::trail_before`] records.

use thin_vec::{ThinVec, thin_vec};

use crate::budget::Ticker;
use ustr::Ustr;

use super::ast::*;
use super::build::{self, MAX_DEPTH, Operand};
use super::source::Span;
use super::strength::{Fixity, Operator, level, strength};
use super::tokens::{Lexer, Tok, Token};

/// The fast parser declined the text; pest decides.
#[derive(Debug)]
pub(super) struct GiveUp;

type Parsed<T> = Result<T, GiveUp>;

/// The pairs of a renaming or a linked parallel and the statements of its
/// comprehension.
type PairsAndStmts = (ThinVec<(Expr, Expr)>, ThinVec<Stmt>);

impl From<super::diagnostic::Diagnostic> for GiveUp {
    fn from(_: super::diagnostic::Diagnostic) -> Self {
        GiveUp
    }
}

/// The declarations of a whole file, or `None` where pest must decide.
pub(super) fn parse_file(base: u32, text: &str) -> Option<ThinVec<Decl>> {
    match parse_prefix(base, text, &mut Ticker::unlimited()) {
        (decls, None) => Some(decls),
        (_, Some(_)) => None,
    }
}

/// The declarations the fast parser reads from the start of `text`, and
/// where it stopped: `None` when it read the whole text, otherwise the
/// offset of the first declaration it leaves to pest, which is one before
/// the declaration it declined: where a declaration ends can depend on
/// what follows it (a continuation line the fast parser does not know).
/// Each declaration is a tick of `ticker`; when it says stop, the
/// declarations read so far come back as if the text ended there, and
/// the caller asks the ticker whether it stopped.
pub(super) fn parse_prefix(
    base: u32,
    text: &str,
    ticker: &mut Ticker,
) -> (ThinVec<Decl>, Option<usize>) {
    let mut parser = Parser::new(base, text);
    let mut decls = ThinVec::new();
    let mut last_start = 0;
    while !parser.at(Tok::Eof) {
        if ticker.tick().is_err() {
            break;
        }
        let start = parser.tok.start as usize;
        // Declarations stand on lines of their own.
        let own_line = decls.is_empty() || parser.tok.nl_before;
        match parser.decl() {
            Ok(decl) if own_line && parser.wildcards == 0 => {
                decls.push(decl);
                last_start = start;
            }
            _ => {
                let stop = if decls.pop().is_some() {
                    last_start
                } else {
                    start
                };
                return (decls, Some(stop));
            }
        }
    }
    decls.shrink_to_fit();
    (decls, None)
}

/// One expression filling the whole text, or `None` where pest must
/// decide.
pub(super) fn parse_expr(base: u32, text: &str) -> Option<Expr> {
    let mut parser = Parser::new(base, text);
    let expr = parser.expr(Mode::Process).ok()?;
    (parser.at(Tok::Eof) && parser.wildcards == 0).then_some(expr)
}

/// Which operators an expression may contain: all of them (the grammar's
/// `expr`), or the functional ones only (`dot_expr`: patterns, fields,
/// generators, channel types).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Process,
    Functional,
}

fn finished(operand: Operand) -> Parsed<Expr> {
    match operand {
        Operand::Expr(e) => Ok(e),
        Operand::Event(..) => Err(GiveUp),
    }
}

/// One `expr` or `dot_expr` being parsed, for the builder's depth bound:
/// its operators so far, and the deepest weight among the expressions
/// nested in it.
#[derive(Clone, Copy, Default)]
struct Level {
    operators: usize,
    deepest_inner: usize,
}

/// Where the parser stands, to try a reading and go back.
#[derive(Clone, Copy)]
struct Mark<'t> {
    lexer: Lexer<'t>,
    tok: Token,
    last_end: u32,
    last_trail: u32,
    wildcards: usize,
    top: Option<Level>,
}

struct Parser<'t> {
    lexer: Lexer<'t>,
    /// The position of the text's first byte in its source map.
    base: u32,
    /// The next token, not yet taken.
    tok: Token,
    /// The end of the last token taken, and where pest's skip after it
    /// stops.
    last_end: u32,
    last_trail: u32,
    /// Inside a sequence's brackets (and no other bracket since), where a
    /// bare `>` always closes the sequence.
    in_sequence: bool,
    /// The expressions being parsed, outermost first. The builder counts,
    /// for each expression, its operators plus one, summed over the
    /// expressions enclosing a point, and refuses sums over [`MAX_DEPTH`].
    levels: Vec<Level>,
    /// The sum of `operators + 1` over `levels`.
    depth: usize,
    /// `_` and `@@` seen and not yet turned into a pattern: outside
    /// patterns they are errors the builder reports.
    wildcards: usize,
    /// Nesting of type expressions (which the builder does not bound).
    type_depth: usize,
}

impl<'t> Parser<'t> {
    fn new(base: u32, text: &'t str) -> Self {
        let mut lexer = Lexer::new(text);
        let tok = lexer.next_token();
        Parser {
            lexer,
            base,
            tok,
            last_end: 0,
            last_trail: 0,
            in_sequence: false,
            levels: Vec::new(),
            depth: 0,
            wildcards: 0,
            type_depth: 0,
        }
    }

    // ------------------------------------------------------------ tokens

    fn bump(&mut self) -> Token {
        let taken = self.tok;
        self.tok = self.lexer.next_token();
        self.last_end = taken.end;
        self.last_trail = self.tok.trail_before;
        taken
    }

    fn at(&self, kind: Tok) -> bool {
        self.tok.kind == kind
    }

    fn eat(&mut self, kind: Tok) -> bool {
        let found = self.at(kind);
        if found {
            self.bump();
        }
        found
    }

    fn expect(&mut self, kind: Tok) -> Parsed<Token> {
        if self.at(kind) {
            Ok(self.bump())
        } else {
            Err(GiveUp)
        }
    }

    /// The next token, which must be `kind` on the same line.
    fn expect_same_line(&mut self, kind: Tok) -> Parsed<Token> {
        if self.tok.nl_before {
            return Err(GiveUp);
        }
        self.expect(kind)
    }

    fn text(&self, token: Token) -> &'t str {
        &self.lexer.text()[token.start as usize..token.end as usize]
    }

    /// The span of text offsets `start..end`.
    fn span(&self, start: u32, end: u32) -> Span {
        Span {
            start: self.base + start,
            end: self.base + end,
        }
    }

    fn token_span(&self, token: Token) -> Span {
        self.span(token.start, token.end)
    }

    /// From `start` to where pest's skip after the last token stopped: the
    /// span of a rule that ends with an optional or repeated part.
    fn span_to_trail(&self, start: u32) -> Span {
        self.span(start, self.last_trail)
    }

    fn mark(&self) -> Mark<'t> {
        Mark {
            lexer: self.lexer,
            tok: self.tok,
            last_end: self.last_end,
            last_trail: self.last_trail,
            wildcards: self.wildcards,
            top: self.levels.last().copied(),
        }
    }

    fn reset(&mut self, mark: Mark<'t>) {
        self.lexer = mark.lexer;
        self.tok = mark.tok;
        self.last_end = mark.last_end;
        self.last_trail = mark.last_trail;
        self.wildcards = mark.wildcards;
        if let (Some(level), Some(top)) = (self.levels.last_mut(), mark.top) {
            *level = top;
        }
    }

    /// Runs `f` inside a bracket: `sequence` says whether it is the bracket
    /// of a sequence, where a bare `>` closes.
    fn bracketed<T>(
        &mut self,
        sequence: bool,
        f: impl FnOnce(&mut Self) -> Parsed<T>,
    ) -> Parsed<T> {
        let saved = std::mem::replace(&mut self.in_sequence, sequence);
        let result = f(self);
        self.in_sequence = saved;
        result
    }

    /// `item (sep item)*`, stored without spare capacity.
    fn separated<T>(
        &mut self,
        sep: Tok,
        mut item: impl FnMut(&mut Self) -> Parsed<T>,
    ) -> Parsed<ThinVec<T>> {
        let mut items = thin_vec![item(self)?];
        while self.eat(sep) {
            items.push(item(self)?);
        }
        items.shrink_to_fit();
        Ok(items)
    }

    fn comma_list<T>(&mut self, item: impl FnMut(&mut Self) -> Parsed<T>) -> Parsed<ThinVec<T>> {
        self.separated(Tok::Comma, item)
    }

    // ------------------------------------------------------------ depth

    fn enter(&mut self) -> Parsed<()> {
        self.levels.push(Level::default());
        self.grow_depth()
    }

    fn count_operator(&mut self) -> Parsed<()> {
        if let Some(level) = self.levels.last_mut() {
            level.operators += 1;
        }
        self.grow_depth()
    }

    fn grow_depth(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(GiveUp)
        } else {
            Ok(())
        }
    }

    fn leave(&mut self) -> Parsed<()> {
        let level = self.levels.pop().expect("a level was entered");
        self.depth -= level.operators + 1;
        let weight = level.operators + 1 + level.deepest_inner;
        if weight > MAX_DEPTH {
            return Err(GiveUp);
        }
        if let Some(outer) = self.levels.last_mut() {
            outer.deepest_inner = outer.deepest_inner.max(weight);
        }
        Ok(())
    }

    // ------------------------------------------------------------ declarations

    fn decl(&mut self) -> Parsed<Decl> {
        let first = self.tok;
        let kind = match first.kind {
            Tok::Channel => {
                self.bump();
                let names = self.name_list()?;
                let ty = if self.eat(Tok::Colon) {
                    Some(self.expr(Mode::Functional)?)
                } else {
                    None
                };
                DeclKind::Channel(names, ty)
            }
            Tok::Datatype | Tok::Subtype => {
                self.bump();
                let name = self.ident()?;
                self.expect(Tok::Define)?;
                let clauses = self.separated(Tok::Bar, Self::data_clause)?;
                if first.kind == Tok::Datatype {
                    DeclKind::DataType(name, clauses)
                } else {
                    DeclKind::SubType(name, clauses)
                }
            }
            Tok::Nametype => {
                self.bump();
                let name = self.ident()?;
                self.expect(Tok::Define)?;
                DeclKind::NameType(name, self.expr(Mode::Process)?)
            }
            Tok::External | Tok::Transparent => {
                self.bump();
                return self.names_decl(first);
            }
            Tok::Assert => {
                self.bump();
                DeclKind::Assert(Box::new(self.assertion()?))
            }
            Tok::Include => {
                self.bump();
                let path = self.expect_same_line(Tok::Str)?;
                let kind = DeclKind::Include(Include {
                    path: build::include_path(self.text(path)),
                    file: None,
                });
                // The rule ends with the string itself: no trailing skip.
                return Ok(Decl {
                    kind,
                    span: self.span(first.start, path.end),
                });
            }
            Tok::Print => {
                self.bump();
                DeclKind::Print(self.expr(Mode::Process)?)
            }
            Tok::Module | Tok::Exports | Tok::Endmodule | Tok::Instance => return Err(GiveUp),
            Tok::Ident if self.text(first) == "Timed" => return Err(GiveUp),
            _ => return self.definition_or_annotation(),
        };
        Ok(Decl {
            kind,
            span: self.span_to_trail(first.start),
        })
    }

    /// The names of `external` or `transparent` (the keyword `first`,
    /// read already). Pest's span runs on over the blanks (and comment)
    /// after a single name, which its rule's repetition skips before
    /// finding no comma; after several, it ends with the last name, as
    /// the failed repetition gives back what it skipped.
    fn names_decl(&mut self, first: Token) -> Parsed<Decl> {
        let names = self.name_list()?;
        let span = if names.len() == 1 {
            self.span_to_trail(first.start)
        } else {
            self.span(first.start, self.last_end)
        };
        let kind = if first.kind == Tok::External {
            DeclKind::External(names)
        } else {
            DeclKind::Transparent(names)
        };
        Ok(Decl { kind, span })
    }

    /// `lhs = rhs`, or else `f, g :: type`.
    fn definition_or_annotation(&mut self) -> Parsed<Decl> {
        let start = self.tok.start;
        let mark = self.mark();
        let lhs = self.expr(Mode::Functional)?;
        let kind = if self.eat(Tok::Define) {
            let lhs = build::lhs_from_expr(lhs)?;
            // Every `_` of the left-hand side is inside a pattern.
            self.wildcards = mark.wildcards;
            let rhs = self.expr(Mode::Process)?;
            DeclKind::Definition(Definition { lhs, rhs })
        } else if self.at(Tok::DoubleColon) || self.at(Tok::Comma) {
            self.reset(mark);
            let names = self.name_list()?;
            self.expect(Tok::DoubleColon)?;
            DeclKind::TypeAnnotation(names, self.type_expr()?)
        } else {
            return Err(GiveUp);
        };
        Ok(Decl {
            kind,
            span: self.span_to_trail(start),
        })
    }

    fn ident(&mut self) -> Parsed<Ident> {
        let token = self.expect(Tok::Ident)?;
        let name = self.text(token);
        if name.contains("::") {
            return Err(GiveUp);
        }
        Ok(Ident {
            name: Ustr::from(name),
            span: self.token_span(token),
        })
    }

    fn name_list(&mut self) -> Parsed<ThinVec<Ident>> {
        self.comma_list(Self::ident)
    }

    fn data_clause(&mut self) -> Parsed<DataClause> {
        let start = self.tok.start;
        let name = self.ident()?;
        let fields = if self.at(Tok::Dot) && !self.tok.nl_before {
            self.bump();
            Some(self.expr(Mode::Functional)?)
        } else {
            None
        };
        Ok(DataClause {
            name,
            fields,
            span: self.span_to_trail(start),
        })
    }

    // ------------------------------------------------------------ assertions

    fn assertion(&mut self) -> Parsed<Assertion> {
        let negated = self.eat(Tok::Not);
        let process = self.expr(Mode::Process)?;
        let kind = match self.tok.kind {
            Tok::Refine => {
                let op = self.bump();
                let text = self.text(op);
                let model = Model::from_abbreviation(&text[1..text.len() - 1]).ok_or(GiveUp)?;
                let imp = self.expr(Mode::Process)?;
                AssertionKind::Refinement {
                    spec: process,
                    model,
                    imp,
                }
            }
            Tok::PropertyOpen => {
                let start = self.tok.trail_before;
                self.bump();
                let (words, hyphenated) = self.words()?;
                let known = match words.as_slice() {
                    ["deadlock" | "divergence" | "livelock", "free"] => true,
                    ["deterministic"] | ["has", "trace"] | ["symmetric"] => !hyphenated,
                    _ => false,
                };
                if !known {
                    return Err(GiveUp);
                }
                let model = if self.at(Tok::LSquare) && !self.tok.nl_before {
                    self.bump();
                    let name = self.expect_same_line(Tok::Ident)?;
                    let model = Model::from_abbreviation(self.text(name)).ok_or(GiveUp)?;
                    self.expect_same_line(Tok::RSquare)?;
                    Some(model)
                } else {
                    None
                };
                self.expect_same_line(Tok::RSquare)?;
                let args = self.assertion_args()?;
                let span = self.span_to_trail(start);
                build::property_kind(&words, model, args, process, span)?
            }
            _ => return Err(GiveUp),
        };
        let mut options = ThinVec::new();
        while self.at(Tok::PropertyOpen) {
            let option = self.assert_option()?;
            build::check_option_not_repeated(&options, &option)?;
            options.push(option);
        }
        Ok(Assertion {
            negated,
            kind,
            options,
        })
    }

    fn assert_option(&mut self) -> Parsed<AssertOption> {
        // The rule starts with the newlines before `:[`.
        let start = self.tok.trail_before;
        self.bump();
        let (words, hyphenated) = self.words()?;
        let known = matches!(
            words.as_slice(),
            ["tau", "priority"]
                | ["tau", "priority", "over"]
                | ["partial", "order", "reduce"]
                | ["symmetry", "reduce"]
        );
        if !known || hyphenated {
            return Err(GiveUp);
        }
        self.expect_same_line(Tok::RSquare)?;
        let args = if self.at(Tok::Colon) && !self.tok.nl_before {
            let colon = self.bump();
            if self.no_option_args(colon.end).ok_or(GiveUp)? {
                None
            } else {
                Some(self.comma_list(|p| p.expr(Mode::Functional))?)
            }
        } else {
            None
        };
        let span = self.span_to_trail(start);
        Ok(AssertOption {
            kind: build::option_kind(&words, None, args, span)?,
            span,
        })
    }

    /// Whether an option's colon ending at `colon_end` has nothing after
    /// it: the rest of its line is blank or a comment, and the next line
    /// that is not blank starts in the first column (a new declaration),
    /// or the file ends. The grammar's `no_option_args`, on the text;
    /// `None` (left to the grammar) when a `{-` comment follows the colon.
    fn no_option_args(&self, colon_end: u32) -> Option<bool> {
        let text = self.lexer.text().as_bytes();
        let mut at = colon_end as usize;
        while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\r') {
            at += 1;
        }
        if text[at..].starts_with(b"{-") {
            return None;
        }
        if text[at..].starts_with(b"--") {
            while at < text.len() && text[at] != b'\n' {
                at += 1;
            }
        }
        if at == text.len() {
            return Some(true);
        }
        if text[at] != b'\n' {
            return Some(false);
        }
        loop {
            // `at` is at a newline: skip the next line's indentation.
            at += 1;
            let line = at;
            while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\r') {
                at += 1;
            }
            match text.get(at) {
                None => return Some(true),
                Some(b'\n') => continue,
                Some(_) => return Some(at == line),
            }
        }
    }

    /// The words of a property or option (`deadlock free`,
    /// `deadlock-free`, `tau priority over`), written as the grammar's
    /// atomic rules admit them: on one line, separated by spaces or by one
    /// hyphen. Also says whether a hyphen was used.
    fn words(&mut self) -> Parsed<(Vec<&'t str>, bool)> {
        let first = self.expect_same_line(Tok::Ident)?;
        let mut words = vec![self.text(first)];
        let mut hyphenated = false;
        loop {
            let gap = &self.lexer.text()[self.last_end as usize..self.tok.start as usize];
            if self.at(Tok::Ident) && !gap.is_empty() && gap.bytes().all(|b| b == b' ') {
                let word = self.bump();
                words.push(self.text(word));
            } else if self.at(Tok::Minus) && gap.is_empty() {
                let minus = self.bump();
                let word = self.expect(Tok::Ident)?;
                if word.start != minus.end {
                    return Err(GiveUp);
                }
                words.push(self.text(word));
                hyphenated = true;
            } else {
                return Ok((words, hyphenated));
            }
        }
    }

    /// `: e1, e2` after a property or option's `]`.
    fn assertion_args(&mut self) -> Parsed<Option<ThinVec<Expr>>> {
        if self.at(Tok::Colon) && !self.tok.nl_before {
            self.bump();
            Ok(Some(self.comma_list(|p| p.expr(Mode::Functional))?))
        } else {
            Ok(None)
        }
    }

    // ------------------------------------------------------------ types

    fn type_expr(&mut self) -> Parsed<TypeExpr> {
        self.type_depth += 1;
        if self.type_depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        let start = self.tok.start;
        let mark = self.mark();
        let result = match self.type_constraints() {
            Ok(constraints) => {
                let body = self.type_fun()?;
                Ok(TypeExpr {
                    kind: TypeKind::Constrained(constraints, Box::new(body)),
                    span: self.span_to_trail(start),
                })
            }
            Err(GiveUp) => {
                self.reset(mark);
                self.type_fun()
            }
        };
        self.type_depth -= 1;
        result
    }

    /// `Eq a =>` or `(Eq a, Ord b) =>`.
    fn type_constraints(&mut self) -> Parsed<ThinVec<(Ident, Ident)>> {
        let constraint = |p: &mut Self| {
            let class = p.ident()?;
            if p.tok.nl_before {
                return Err(GiveUp);
            }
            Ok((class, p.ident()?))
        };
        let constraints = if self.eat(Tok::LParen) {
            let list = self.comma_list(constraint)?;
            self.expect(Tok::RParen)?;
            list
        } else {
            thin_vec![constraint(self)?]
        };
        self.expect(Tok::FatArrow)?;
        Ok(constraints)
    }

    fn type_fun(&mut self) -> Parsed<TypeExpr> {
        let start = self.tok.start;
        let arg = self.type_dot()?;
        if !self.eat(Tok::Arrow) {
            return Ok(arg);
        }
        let result = self.type_fun_nested()?;
        Ok(TypeExpr {
            kind: TypeKind::Function(Box::new(arg), Box::new(result)),
            span: self.span_to_trail(start),
        })
    }

    fn type_fun_nested(&mut self) -> Parsed<TypeExpr> {
        self.type_depth += 1;
        if self.type_depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        let result = self.type_fun();
        self.type_depth -= 1;
        result
    }

    fn type_dot(&mut self) -> Parsed<TypeExpr> {
        let start = self.tok.start;
        let mut parts = thin_vec![self.type_atom()?];
        while self.at(Tok::Dot) && !self.tok.nl_before {
            self.bump();
            parts.push(self.type_atom()?);
        }
        if parts.len() == 1 {
            return Ok(parts.pop().expect("one part"));
        }
        parts.shrink_to_fit();
        Ok(TypeExpr {
            kind: TypeKind::Dot(parts),
            span: self.span_to_trail(start),
        })
    }

    fn type_atom(&mut self) -> Parsed<TypeExpr> {
        let open = self.bump();
        let kind = match open.kind {
            Tok::Ident => TypeKind::Name(Name {
                text: Ustr::from(self.text(open)),
                span: self.token_span(open),
            }),
            Tok::LParen => {
                let parts = if self.at(Tok::RParen) {
                    ThinVec::new()
                } else {
                    self.comma_list(Self::type_expr)?
                };
                self.expect(Tok::RParen)?;
                TypeKind::Tuple(parts)
            }
            Tok::LBrace => {
                let inner = self.type_expr()?;
                self.expect(Tok::RBrace)?;
                TypeKind::Set(Box::new(inner))
            }
            Tok::Lt => {
                let inner = self.type_expr()?;
                self.expect(Tok::Gt)?;
                TypeKind::Seq(Box::new(inner))
            }
            Tok::MapOpen => {
                let key = self.type_expr()?;
                self.expect(Tok::FatArrow)?;
                let value = self.type_expr()?;
                self.expect(Tok::MapClose)?;
                TypeKind::Map(Box::new(key), Box::new(value))
            }
            _ => return Err(GiveUp),
        };
        Ok(TypeExpr {
            kind,
            span: self.span(open.start, self.last_end),
        })
    }

    // ------------------------------------------------------------ expressions

    /// One `expr` (or, in functional mode, `dot_expr`) of the grammar.
    fn expr(&mut self, mode: Mode) -> Parsed<Expr> {
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

    fn postfix(&mut self, lhs: Operand, op: Token) -> Parsed<Operand> {
        match op.kind {
            Tok::LParen => {
                let f = finished(lhs)?;
                let args = self.bracketed(false, |p| {
                    if p.at(Tok::RParen) {
                        Ok(ThinVec::new())
                    } else {
                        p.comma_list(|p| p.expr(Mode::Process))
                    }
                })?;
                let close = self.expect(Tok::RParen)?;
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
    fn pairs_from(&mut self, first: Expr, sep: Tok) -> Parsed<PairsAndStmts> {
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
    fn pattern(&mut self) -> Parsed<Pattern> {
        let before = self.wildcards;
        let expr = self.expr(Mode::Functional)?;
        let pattern = build::to_pattern(expr)?;
        self.wildcards = before;
        Ok(pattern)
    }

    /// `| stmt, stmt` if the next token is `|`, else nothing.
    fn optional_comprehension(&mut self) -> Parsed<ThinVec<Stmt>> {
        if self.eat(Tok::Bar) {
            self.comma_list(Self::stmt)
        } else {
            Ok(ThinVec::new())
        }
    }

    fn stmt(&mut self) -> Parsed<Stmt> {
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

    // ------------------------------------------------------------ primaries

    fn primary(&mut self, mode: Mode) -> Parsed<Expr> {
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
    fn map(&mut self) -> Parsed<Expr> {
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

//! The fast parser: recursive descent over [`tokens`](super::tokens) with
//! a Pratt loop for the operators, building exactly the tree that
//! `build.rs` builds from pest's parse of the same text, spans included.
//!
//! It is a shortcut, not a second definition of CSPM: the grammar
//! (`grammar/cspm.pest`) stays the reference. This parser gives up
//! ([`GiveUp`]) on anything out of the ordinary — every syntax error,
//! everything the builder would reject, and the few layouts pest reads
//! in a context-dependent way — and the caller then runs pest, which
//! parses the text or explains what is wrong. So it may refuse any
//! text, but a tree it returns must be pest's; a differential test
//! (`tests/syntax_differential.rs`) holds it to that on every fixture,
//! every model and random and mutated scripts.
//!
//! Pest's spans are reproduced as pest makes them: a rule that ends with
//! an optional or repeated part keeps the white space and comments pest
//! skipped after its last token (up to the next newline), which
//! [`Token::trail_before`] records.

mod assertions;
mod declarations;
mod expressions;
mod primaries;
mod types;

use thin_vec::{ThinVec, thin_vec};

use crate::budget::Ticker;

use super::ast::{Decl, Expr, Stmt};
use super::build::{MAX_DEPTH, MAX_NESTING, Operand};
use super::source::Span;
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
    /// Modules and `Timed` sections around the declaration being read.
    decl_depth: usize,
}

/// The most modules and `Timed` sections one inside another that the
/// fast parser reads; deeper, pest decides (within its own bounds).
const MAX_DECL_NESTING: usize = 64;

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
            decl_depth: 0,
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

    /// Whether the next token is `kind`, on the line of the last one.
    fn at_on_this_line(&self, kind: Tok) -> bool {
        self.at(kind) && !self.tok.nl_before
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
        if self.levels.len() > MAX_NESTING {
            return Err(GiveUp);
        }
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
}

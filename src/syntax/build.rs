//! Builds the AST from pest's parse tree: the one place that knows both.
//!
//! Besides translating, it enforces what the grammar leaves open: that
//! patterns are patterns, that `_` and `@@` appear only in patterns, that
//! communication fields appear only before `->`, and that expressions are
//! not nested beyond [`MAX_DEPTH`] (so that every later recursive walk of
//! the tree is bounded).

mod assertions;
mod declarations;
mod expressions;
mod literals;
mod patterns;
mod primaries;
mod types;

use pest::iterators::Pair;
use thin_vec::{ThinVec, thin_vec};

use super::ast::{Decl, Expr, Field};
use super::diagnostic::Diagnostic;
use super::parser::Rule;
use super::source::Span;

pub(crate) use assertions::{check_option_not_repeated, option_kind, property_kind};
pub(crate) use declarations::{empty_brackets, include_path, only_declarations};
pub(crate) use literals::{char_literal, int_literal, string_literal};
pub(crate) use patterns::{lhs_from_expr, to_pattern};

/// How deep an expression's tree may be: a bound on the depth of every
/// tree the builder returns, counting each operator and each nested
/// expression as a level. Long chains (`a -> b -> …`, a sum of many
/// terms, a `[]` of many alternatives) are trees this deep; every later
/// walk of the tree runs on [`crate::stack::LARGE_STACK`], which holds
/// this many levels of the deepest walk with room to spare
/// (`tests/deep_chains.rs`).
pub const MAX_DEPTH: usize = 100_000;

/// How deep expressions may nest inside one another (brackets, `let`,
/// `if`'s branches, λ bodies): nesting a chain cannot express. FDR
/// accepts an `if` nested 5 000 deep.
pub const MAX_NESTING: usize = 8_000;

type Result<T> = std::result::Result<T, Diagnostic>;

/// Why an expression `depth` levels deep with `nesting` expressions
/// nested at a point is refused, if it is.
pub(crate) fn too_deep(depth: usize, nesting: usize) -> Option<String> {
    if nesting > MAX_NESTING {
        Some(format!(
            "expressions nested too deeply (more than {MAX_NESTING} inside one another: brackets, \
             `let`s, `if`s, λs); split them into named definitions"
        ))
    } else if depth > MAX_DEPTH {
        Some(format!(
            "expression too deep (more than {MAX_DEPTH} levels of operators and nested \
             expressions); split it into named definitions"
        ))
    } else {
        None
    }
}

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
    /// Expressions being built, nested ([`MAX_NESTING`]).
    nesting: usize,
    /// True while building an expression that will become a pattern.
    in_pattern: bool,
}

impl Builder {
    pub(crate) fn new(base: u32, offset: usize) -> Self {
        Builder {
            base,
            offset,
            depth: 0,
            nesting: 0,
            in_pattern: false,
        }
    }

    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.base, self.offset + s.start(), self.offset + s.end())
    }

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
}

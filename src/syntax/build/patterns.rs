//! Expressions read as patterns: the left-hand side of a definition
//! and every expression that stands where a pattern is expected.

use thin_vec::ThinVec;

use super::super::ast::{BinaryOp, Expr, ExprKind, Ident, Lhs, Pattern, PatternKind, UnaryOp};
use super::super::diagnostic::Diagnostic;
use super::Result;

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

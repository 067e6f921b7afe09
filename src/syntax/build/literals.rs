//! The values of integer, string and character literals, escapes
//! resolved.

use super::super::diagnostic::Diagnostic;
use super::super::source::Span;
use super::Result;

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

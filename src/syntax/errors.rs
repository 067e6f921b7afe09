//! Turns pest's parse errors into diagnostics in words: what was found,
//! and what could have come there ("an expression", "an operator",
//! "`)`"), never a list of grammar rule names.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::diagnostic::Diagnostic;
use super::parser::Rule;
use super::source::{FileId, Span};

/// Tokens that can start an expression: seeing one of them expected means
/// the parser wanted an expression.
const EXPRESSION_STARTS: &[&str] = &[
    "(", "{", "{|", "<", "(|", "\\", "if", "let", "_", "\"", "'", "true", "false", "not", "#", "-",
];

/// Operators that continue an expression. When several are expected the
/// message just says "an operator".
const OPERATORS: &[&str] = &[
    "->", "&", ";", "[>", "/\\", "[]", "|~|", "|||", "\\", "|\\", "[|", "[", "[+", "/+", ".", "or",
    "and", "==", "!=", "<", "<=", ">", ">=", "+", "*", "/", "%", "^", "@@", "?", "!", "$", "[[",
];

/// Punctuation worth naming when expected, most telling first.
const NAMED: &[&str] = &[
    ")", "]", "}", "|}", "|)", "]]", "|]", "|>", "+]", "+\\", "||", "=", "->", "@", "then", "else",
    "within", "<-", "<->", ":", "::", "=>", ",", "..", "|", "exports", "endmodule", "\n",
];

/// A diagnostic for a failed parse of `text` (the part of file `file`
/// starting at byte `offset`).
pub(crate) fn diagnostic(error: &Error<Rule>, file: FileId, text: &str, offset: usize) -> Diagnostic {
    let pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    if let ErrorVariant::CustomError { message } = &error.variant {
        let message = if message.contains("stack limit") || message.contains("call limit") {
            "this expression is too deeply nested or too long to parse; split it into named definitions"
                .to_string()
        } else {
            message.clone()
        };
        return Diagnostic::error(Span::new(file, offset + pos, offset + pos), message);
    }
    let attempts = error.parse_attempts();
    let mut expected: Vec<String> = attempts
        .as_ref()
        .map(|a| {
            a.expected_tokens()
                .into_iter()
                .filter_map(|t| {
                    // Tokens print as themselves; character ranges as `0..9`.
                    let text = t.to_string();
                    match text.split_once("..") {
                        Some((from, _)) if text.len() > 2 && from.starts_with(|c: char| c.is_ascii_digit()) => {
                            Some("0".to_string())
                        }
                        Some((from, _)) if text.len() > 2 && from.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                            Some("a".to_string())
                        }
                        _ if text == "BUILTIN_RULE" => None,
                        _ => Some(text),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    // Rule-level expectations stand for expressions or names.
    if let ErrorVariant::ParsingError { positives, .. } = &error.variant {
        for rule in positives {
            match rule {
                Rule::ident | Rule::qname => expected.push("a".to_string()),
                Rule::int_lit => expected.push("0".to_string()),
                Rule::string_lit => expected.push("\"".to_string()),
                Rule::refine_op => expected.push("[T=".to_string()),
                Rule::property => expected.push("deadlock free".to_string()),
                Rule::option_name => expected.push("symmetry reduce".to_string()),
                Rule::EOI => expected.push("\n".to_string()),
                _ => {}
            }
        }
    }
    let found = describe_found(text, pos);
    let wanted = describe_expected(&expected);
    let message = match wanted {
        Some(w) => format!("unexpected {found}: expected {w}"),
        None => format!("unexpected {found}"),
    };
    let width = found_width(text, pos);
    Diagnostic::error(Span::new(file, offset + pos, offset + pos + width), message)
}

fn describe_expected(tokens: &[String]) -> Option<String> {
    let has = |t: &str| tokens.iter().any(|x| x == t);
    let mut parts: Vec<String> = Vec::new();
    let wants_expression = EXPRESSION_STARTS.iter().any(|t| has(t)) || has("0");
    let wants_name = has("a");
    if wants_expression {
        parts.push("an expression".into());
    } else if wants_name {
        parts.push("a name".into());
    }
    let operators: Vec<&str> = OPERATORS.iter().copied().filter(|t| has(t)).collect();
    let named: Vec<&str> = NAMED.iter().copied().filter(|t| has(t)).collect();
    if operators.len() > 3 {
        parts.push("an operator".into());
    }
    for t in &named {
        if operators.len() > 3 && OPERATORS.contains(t) {
            continue;
        }
        parts.push(match *t {
            "\n" => "the end of the line".into(),
            t => format!("`{t}`"),
        });
    }
    if operators.len() <= 3 {
        for t in operators {
            if !named.contains(&t) {
                parts.push(format!("`{t}`"));
            }
        }
    }
    for (token, words) in [
        ("[T=", "a refinement (`[T=`, `[F=`, `[FD=`) or a property (`:[deadlock free]`, ...)"),
        ("deadlock free", "a property (`deadlock free`, `divergence free`, `deterministic`, `has trace`, `symmetric`)"),
        ("symmetry reduce", "an option (`tau priority over`, `partial order reduce`, `symmetry reduce`)"),
    ] {
        if has(token) {
            parts.push(words.into());
        }
    }
    parts.dedup();
    match parts.len() {
        0 => None,
        1 => Some(parts.remove(0)),
        _ => {
            let last = parts.pop().unwrap();
            Some(format!("{} or {last}", parts.join(", ")))
        }
    }
}

/// What stands at `pos`, in words: `end of file`, `end of line`, a word or
/// a symbol in backquotes.
fn describe_found(text: &str, pos: usize) -> String {
    let rest = &text[pos.min(text.len())..];
    let Some(c) = rest.chars().next() else {
        return "end of file".into();
    };
    if c == '\n' || c == '\r' {
        return "end of line".into();
    }
    let width = found_width(text, pos);
    format!("`{}`", &rest[..width])
}

/// Length in bytes of the token starting at `pos`: a word, a run of
/// operator symbols, or one character.
fn found_width(text: &str, pos: usize) -> usize {
    let rest = &text[pos.min(text.len())..];
    let Some(c) = rest.chars().next() else {
        return 0;
    };
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '\'';
    let is_symbol = |c: char| "-+*/%<>=!&|[]~\\^#.:;?$@".contains(c);
    if c == '\n' || c == '\r' {
        return 0;
    }
    let run = if is_word(c) {
        rest.find(|c: char| !is_word(c))
    } else if is_symbol(c) {
        rest.find(|c: char| !is_symbol(c)).map(|n| n.min(4))
    } else {
        Some(c.len_utf8())
    };
    run.unwrap_or(rest.len())
}

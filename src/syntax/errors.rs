//! Turns pest's parse errors into diagnostics in words: what was found,
//! and what could have come there ("an expression", "an operator",
//! "`)`"), never a list of grammar rule names.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::diagnostic::Diagnostic;
use super::lexical;
use super::parser::{self, Rule};
use super::source::Span;
use super::strength::{Fixity, Operator, spelling, strength, symbol, symbols};

/// Tokens that only an expression can start with. (Keywords, `(`, `-`,
/// `<`, `[` and the like are no evidence: they also start or continue
/// other things, and pest records keywords tried by lookaheads.)
const EXPRESSION_STARTS: &[&str] = &[NUMBER, "\"", "'", "#", "_", "{", "{|", "(|"];

/// Stand for the character ranges of names and numbers.
const NAME: &str = "<name>";
const NUMBER: &str = "<number>";

/// The token an infix operator's rule starts with: its symbol in the
/// operator table. (A prefix or postfix operator's rule is no evidence
/// of an operator expected between operands.)
fn operator_token(rule: Rule) -> Option<&'static str> {
    parser::operator(rule)
        .filter(|&op| matches!(strength(op).1, Fixity::Left | Fixity::Right))
        .map(symbol)
}

/// Tokens that only an infix or postfix operator can start with. When
/// several are expected the message just says "an operator".
const OPERATORS: [&str; 22] = {
    use Operator::*;
    symbols([
        Then,
        Guard,
        Sliding,
        Interrupt,
        SyncInterrupt,
        Project,
        Dot,
        Eq,
        Ne,
        Le,
        Ge,
        Gt,
        Plus,
        Times,
        Div,
        Mod,
        Concat,
        DoubleAt,
        FieldIn,
        FieldOut,
        FieldNondet,
        Rename,
    ])
};

/// The operators written as words.
const WORD_OPERATORS: [&str; 3] = symbols([Operator::And, Operator::Or, Operator::Not]);

/// Punctuation worth naming when expected, besides the closers of the
/// innermost open construct (which come first).
const NAMED: &[&str] = &["=", "->", "@", "<-", ":", "::", "=>", ",", "..", "|"];

/// Stands for the end of the input (pest's `EOI`), which at the top level
/// means the declaration could end here.
const END_OF_LINE: &str = "<end of line>";

/// What the text that failed to parse was meant to be: its declarations'
/// rules (a top-level `=`, lines that start declarations) apply to a
/// script only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    Script,
    /// One expression (a process named on the command line, typed in
    /// the animator).
    Expression,
}

/// A diagnostic for a failed parse of the part of `text` (all of a file,
/// whose positions start at `base`) that starts at byte `offset`, read
/// as `input`. The whole text is wanted: what precedes the parsed part
/// (an open `let`, say) shapes the message.
pub(crate) fn diagnostic(
    error: &Error<Rule>,
    base: u32,
    text: &str,
    offset: usize,
    input: Input,
) -> Diagnostic {
    let script = input == Input::Script;
    let spot = locate(error, text, offset);
    if let ErrorVariant::CustomError { message } = &error.variant {
        // pest's own guards: its stack probe or call budget ran out.
        let message = if message.contains("stack limit") || message.contains("call limit") {
            "this expression is too deeply nested or too long to parse; split it into named definitions"
                .to_string()
        } else {
            message.clone()
        };
        return Diagnostic::error(Span::new(base, spot.pos, spot.pos), message);
    }
    let before = &text[..spot.pos];
    let mut expected = expected_tokens(error);
    // On the first line of a top-level declaration that is not a keyword
    // declaration and has no `=` yet, the `=` of a definition is due.
    if script
        && spot.open.is_none()
        && starts_definition(before)
        && !previous_line_continues(before)
    {
        expected.push("=".to_string());
    }
    let ends_declaration = expected.iter().any(|t| t == END_OF_LINE);
    let wanted = if script && spot.open.is_none() && at_line_start(before) && !ends_declaration {
        // A line after one ending with an operator goes on with it: what
        // is due is that operator's operand, whatever this line begins.
        Some(if previous_line_continues(before) {
            "an operand for the operator that ends the line before".to_string()
        } else {
            "a declaration (a definition `name = ...`, `channel`, `datatype`, `assert`, ...)"
                .to_string()
        })
    } else {
        describe_expected(&expected, spot.open)
    };
    let message = match wanted {
        Some(w) => format!("unexpected {}: expected {w}", spot.found),
        None => format!("unexpected {}", spot.found),
    };
    let span = Span::new(base, spot.pos, spot.pos + spot.width);
    let diagnostic = Diagnostic::error(span, message);
    let rest = &text[spot.pos..];
    if spot.open == Some(Construct::Let) && starts_include(rest) {
        diagnostic.with_note(
            "`include` is read only among the declarations of a script or of a module, not in \
             a `let`: include the file at the top level and use its names here",
        )
    } else if script && spot.open.is_none() && indented_declaration(before) {
        diagnostic.with_note(
            "this indented line starts a new declaration: a newline ends a declaration unless an \
             operator joins the lines (at the end of the line before, or at the start of this one)",
        )
    } else if expected.iter().any(|t| t == "@")
        && !current_line(before).contains(['@', ':'])
        && !current_line(before).contains("<-")
    {
        diagnostic.with_note(
            "an operator such as `[]`, `|~|`, `|||` or `;` with no process on its left is a replicated \
             operator, written `[] x : S @ P`",
        )
    } else if model_after_property(before, rest) {
        diagnostic.with_note("the semantic model goes inside the brackets: `:[deadlock free [F]]`")
    } else if script
        && spot.open.is_none()
        && expected.iter().any(|t| t == "=")
        && !ends_declaration
    {
        diagnostic.with_note("a declaration at the top level is a definition: `Name = expression`")
    } else if follows_operand(before) && starts_operand(rest) {
        diagnostic.with_note(
            "two expressions cannot stand side by side: is an operator such as `->`, `.` or `,` missing?",
        )
    } else if previous_line_continues(before) {
        diagnostic.with_note(
            "the line before ends with an operator, so this line continues it (note that `--` starts a comment)",
        )
    } else {
        diagnostic
    }
}

/// Whether `rest`, past blanks, is an `include` directive.
fn starts_include(rest: &str) -> bool {
    rest.trim_start()
        .strip_prefix("include")
        .is_some_and(|after| after.starts_with([' ', '\t', '"']))
}

/// Where a parse failed, as the message will show it.
struct Spot {
    pos: usize,
    /// What stands there, in words.
    found: String,
    /// How many bytes to underline.
    width: usize,
    /// The innermost construct open at that point.
    open: Option<Construct>,
}

/// Where pest says a parse failed, relative to the parsed text (by its
/// rules; the furthest position its attempt log reached may lie beyond).
pub(crate) fn failure_offset(error: &Error<Rule>) -> usize {
    match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
}

/// Where the parse of `text[offset..]` failed, in `text`.
fn locate(error: &Error<Rule>, text: &str, offset: usize) -> Spot {
    let location = offset + failure_offset(error);
    let pos = match error.parse_attempts() {
        Some(a) => error_position(text, location, offset + a.max_position),
        None => location,
    };
    // At the end of the file, point just after the last thing written
    // rather than at the blank line that follows it.
    let content_end = text.trim_end().len();
    if pos >= content_end {
        return Spot {
            pos: content_end,
            found: "end of file".into(),
            width: 0,
            open: innermost_open(&text[..content_end]),
        };
    }
    let open = innermost_open(&text[..pos]);
    // A construct left open on the line before (`if` without `else`)
    // makes the parser look for its continuation on the next line; the
    // mistake is at the end of that earlier line.
    let line_start = text[..pos].rfind('\n').map_or(0, |p| p + 1);
    if open.is_some() && line_start > 0 && text[line_start..pos].trim().is_empty() {
        let end = text[..line_start].trim_end().len();
        return Spot {
            pos: end,
            found: "end of line".into(),
            width: 0,
            open: innermost_open(&text[..end]),
        };
    }
    Spot {
        pos,
        found: describe_found(text, pos),
        width: found_width(text, pos),
        open,
    }
}

/// What pest tried at the failure, as tokens: literal text, `NAME`,
/// `NUMBER` and `END_OF_LINE`.
fn expected_tokens(error: &Error<Rule>) -> Vec<String> {
    let mut expected: Vec<String> = error
        .parse_attempts()
        .map(|a| {
            a.expected_tokens()
                .into_iter()
                .filter_map(|t| token_text(&t.to_string()))
                .collect()
        })
        .unwrap_or_default();
    // Rules stand for what they start with.
    if let ErrorVariant::ParsingError { positives, .. } = &error.variant {
        for rule in positives {
            if let Some(token) = operator_token(*rule) {
                expected.push(token.to_string());
            }
            let token = match rule {
                Rule::ident | Rule::qname => NAME,
                Rule::int_lit => NUMBER,
                Rule::string_lit => "\"",
                Rule::refine_op => "[T=",
                Rule::property => "deadlock free",
                Rule::option_name => "symmetry reduce",
                Rule::EOI => END_OF_LINE,
                _ => continue,
            };
            expected.push(token.to_string());
        }
    }
    expected
}

/// A token pest printed, as this module counts it: literal text, or a
/// character range standing for a name or a number. Other ranges and the
/// single letters `a`, `o` and `n` come from the parser's first-character
/// tests and say nothing.
fn token_text(text: &str) -> Option<String> {
    match text.split_once("..") {
        Some((from, _)) if text.len() > 2 => {
            if from.starts_with(|c: char| c.is_ascii_digit()) {
                Some(NUMBER.to_string())
            } else if from.starts_with(|c: char| c.is_ascii_alphabetic()) {
                Some(NAME.to_string())
            } else {
                None
            }
        }
        _ if matches!(text, "BUILTIN_RULE" | "a" | "o" | "n") => None,
        _ => Some(text.to_string()),
    }
}

/// Whether `before` ends on the first line of a declaration that could be
/// a definition still waiting for its `=`.
fn starts_definition(before: &str) -> bool {
    let line = &before[before.rfind('\n').map_or(0, |p| p + 1)..];
    let first_word = line
        .split(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    line.starts_with(|c: char| c.is_ascii_alphabetic())
        && !line.contains('=')
        && !ends_with_keyword(first_word)
}

fn current_line(before: &str) -> &str {
    before.rsplit('\n').next().unwrap_or("")
}

/// Whether `before` ends on an indented line that the parser took as a
/// new declaration (the line before it, not blank, does not continue).
fn indented_declaration(before: &str) -> bool {
    let mut lines = before.rsplit('\n');
    let line = lines.next().unwrap_or("");
    let previous = lines.next().unwrap_or("");
    line.starts_with([' ', '\t'])
        && !line.trim().is_empty()
        && !previous.trim().is_empty()
        && !previous_line_continues(before)
}

/// `:[deadlock free] [F]`: a model written after the property's brackets.
fn model_after_property(before: &str, rest: &str) -> bool {
    before.trim_end().ends_with(']')
        && ["[T]", "[F]", "[FD]", "[R]", "[RD]", "[V]", "[VD]"]
            .iter()
            .any(|m| rest.starts_with(m))
}

/// Whether nothing but white space precedes the position on its line.
fn at_line_start(before: &str) -> bool {
    before
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.trim().is_empty())
}

fn describe_expected(tokens: &[String], open: Option<Construct>) -> Option<String> {
    let relevant = open.map_or(&[][..], Construct::closers);
    let has = |t: &str| {
        if !tokens.iter().any(|x| x == t) {
            return false;
        }
        !Construct::ALL.iter().any(|c| c.closers().contains(&t)) || relevant.contains(&t)
    };
    let mut parts: Vec<String> = Vec::new();
    let wants_expression = EXPRESSION_STARTS.iter().any(|t| has(t));
    let wants_name = has(NAME);
    if wants_expression {
        parts.push("an expression".into());
    } else if wants_name {
        parts.push("a name".into());
    }
    let operators: Vec<&str> = OPERATORS
        .iter()
        .copied()
        .filter(|t| has(t) && !(relevant.contains(t)))
        .collect();
    let named: Vec<&str> = relevant
        .iter()
        .chain(NAMED)
        .copied()
        .filter(|t| has(t))
        .collect();
    if operators.len() > 3 {
        parts.push("an operator".into());
    }
    // After a complete item the construct around it may close: name its
    // closer even where pest did not get as far as trying it.
    let mut named = named;
    if has(",") || !operators.is_empty() {
        for t in relevant {
            if !named.contains(t) && !matches!(*t, "||" | "<->") {
                named.push(t);
            }
        }
    }
    for t in &named {
        if operators.len() > 3 && OPERATORS.contains(t) && !relevant.contains(t) {
            continue;
        }
        // `||` also starts a replicated parallel, which is an expression.
        if *t == "||" && wants_expression {
            continue;
        }
        parts.push(format!("`{t}`"));
    }
    if operators.len() <= 3 {
        for t in operators {
            if !named.contains(&t) {
                parts.push(format!("`{t}`"));
            }
        }
    }
    for (token, words) in [
        (
            "[T=",
            "a refinement (`[T=`, `[F=`, `[FD=`) or a property (`:[deadlock free]`, ...)",
        ),
        (
            "FD",
            "a semantic model (`T`, `F`, `FD`, `R`, `RD`, `V`, `VD`)",
        ),
        (
            "deadlock free",
            "a property (`deadlock free`, `divergence free`, `deterministic`, `has trace`, `symmetric`)",
        ),
        (
            "symmetry reduce",
            "an option (`tau priority over`, `partial order reduce`, `symmetry reduce`)",
        ),
    ] {
        if has(token) {
            parts.push(words.into());
        }
    }
    if has(END_OF_LINE) {
        parts.push("the end of the line".into());
    }
    let mut seen = std::collections::HashSet::new();
    parts.retain(|p| seen.insert(p.clone()));
    match parts.len() {
        0 => None,
        1 => Some(parts.remove(0)),
        _ => {
            let last = parts.pop().unwrap();
            Some(format!("{} or {last}", parts.join(", ")))
        }
    }
}

/// pest's attempt log knows the furthest position reached, which its
/// rule-based `location` can fall short of; but that position may also lie
/// on the space after a token, inside an operator matched in part (the
/// `>` of `->`) or inside a word (a keyword is read to its end to tell it
/// from a name: `within` where an expression was expected). Step back over
/// those, never before `location`.
fn error_position(text: &str, location: usize, furthest: usize) -> usize {
    let bytes = text.as_bytes();
    let is_symbol = |b: u8| b"-+*/%<>=!&|[]~\\^#.:;?$@".contains(&b);
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut p = furthest.min(bytes.len());
    while p > location
        && p < bytes.len()
        && (matches!(bytes[p], b' ' | b'\t')
            || (is_symbol(bytes[p]) && is_symbol(bytes[p - 1]))
            || (is_word(bytes[p]) && is_word(bytes[p - 1])))
    {
        p -= 1;
    }
    p
}

/// Whether `before` ends with a complete operand on the same line (a name,
/// a literal or a closing bracket).
fn follows_operand(before: &str) -> bool {
    let line = before.rsplit('\n').next().unwrap_or("").trim_end();
    line.ends_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '\'' | ')' | '}' | '"'))
        && !line.trim_start().is_empty()
        && !ends_with_keyword(line)
}

fn ends_with_keyword(line: &str) -> bool {
    let word = line
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    WORD_OPERATORS.contains(&word)
        || matches!(
            word,
            "if" | "then"
                | "else"
                | "let"
                | "within"
                | "channel"
                | "datatype"
                | "subtype"
                | "nametype"
                | "assert"
                | "print"
                | "external"
                | "transparent"
                | "module"
                | "instance"
        )
}

/// Whether the line before the one `before` ends on finishes with an
/// operator, which joins the two lines into one expression.
fn previous_line_continues(before: &str) -> bool {
    let mut lines = before.rsplit('\n');
    lines.next();
    let Some(previous) = lines.next() else {
        return false;
    };
    let code = previous.split("--").next().unwrap_or("").trim_end();
    // Operators of two or more symbols first: `[]`, `[>` and a parallel's
    // `[| A |]` end with symbols that also close brackets.
    const ENDS: [&str; 4] = [
        symbol(Operator::Then),
        symbol(Operator::ExtChoice),
        symbol(Operator::Sliding),
        spelling(Operator::GenPar).close,
    ];
    ENDS.iter().any(|op| code.ends_with(op))
        || code.ends_with(|c: char| "-+*/%&;|.^,=<:?!$@\\".contains(c))
}

/// Whether `rest` starts with a name or a literal.
fn starts_operand(rest: &str) -> bool {
    rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '"')
        && !["then", "else", "within", "exports", "endmodule"]
            .iter()
            .any(|k| {
                rest.starts_with(k)
                    && !rest[k.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
            })
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

/// A construct left open before the error: what would close or continue
/// it is the most telling thing to expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Construct {
    Paren,
    Map,
    Brace,
    Production,
    Square,
    Rename,
    GenParallel,
    SyncChoice,
    SyncInterrupt,
    Sequence,
    If,
    Then,
    Let,
    Module,
    Exports,
}

impl Construct {
    const ALL: [Construct; 15] = [
        Construct::Paren,
        Construct::Map,
        Construct::Brace,
        Construct::Production,
        Construct::Square,
        Construct::Rename,
        Construct::GenParallel,
        Construct::SyncChoice,
        Construct::SyncInterrupt,
        Construct::Sequence,
        Construct::If,
        Construct::Then,
        Construct::Let,
        Construct::Module,
        Construct::Exports,
    ];

    /// The tokens that close or continue the construct: worth naming only
    /// when it is the innermost one open.
    fn closers(self) -> &'static [&'static str] {
        use Operator::*;
        match self {
            Construct::Paren => &[")"],
            Construct::Map => &["|)"],
            Construct::Brace => &["}"],
            Construct::Production => &["|}"],
            Construct::Square => {
                const {
                    &[
                        spelling(BracketPar).close,
                        spelling(BracketPar).joins,
                        spelling(LinkedPar).joins,
                    ]
                }
            }
            Construct::Rename => const { &[spelling(Rename).close] },
            Construct::GenParallel => {
                const { &[spelling(GenPar).close, spelling(Exception).close] }
            }
            Construct::SyncChoice => const { &[spelling(SyncChoice).close] },
            Construct::SyncInterrupt => const { &[spelling(SyncInterrupt).close] },
            Construct::Sequence => &[">"],
            Construct::If => &["then"],
            Construct::Then => &["else"],
            Construct::Let => &["within"],
            Construct::Module => &["exports", "endmodule"],
            Construct::Exports => &["endmodule"],
        }
    }
}

/// Brackets that open a construct, longest first.
const OPENS: &[(&str, Construct)] = &[
    ("(|", Construct::Map),
    ("{|", Construct::Production),
    (symbol(Operator::Rename), Construct::Rename),
    (symbol(Operator::GenPar), Construct::GenParallel),
    (symbol(Operator::SyncChoice), Construct::SyncChoice),
    (symbol(Operator::SyncInterrupt), Construct::SyncInterrupt),
    ("(", Construct::Paren),
    ("{", Construct::Brace),
];

/// Brackets that close one.
const CLOSES: &[(&str, Construct)] = &[
    ("|)", Construct::Map),
    ("|}", Construct::Production),
    (spelling(Operator::Rename).close, Construct::Rename),
    (spelling(Operator::GenPar).close, Construct::GenParallel),
    (spelling(Operator::Exception).close, Construct::GenParallel),
    (spelling(Operator::SyncChoice).close, Construct::SyncChoice),
    (
        spelling(Operator::SyncInterrupt).close,
        Construct::SyncInterrupt,
    ),
    (")", Construct::Paren),
    ("}", Construct::Brace),
    (spelling(Operator::BracketPar).close, Construct::Square),
];

/// The innermost construct still open at the end of `before`, found by a
/// light scan of the tokens of the current declaration: brackets, `if`,
/// `let`, `module`, and `<` where it opens a sequence (that is, where an
/// operand is expected).
fn innermost_open(before: &str) -> Option<Construct> {
    let bytes = before.as_bytes();
    let mut stack: Vec<Construct> = Vec::new();
    // True where the next token starts an operand (so `<` opens a sequence).
    let mut expect_operand = true;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &before[i..];
        let c = bytes[i];
        if rest.starts_with("--") {
            i = lexical::line_end(bytes, i);
            continue;
        }
        if rest.starts_with("{-") {
            i = lexical::block_comment_end(bytes, i).unwrap_or(bytes.len());
            continue;
        }
        if c == b'"' || (c == b'\'' && expect_operand) {
            i = lexical::quoted_end(bytes, i, c).unwrap_or_else(|| lexical::line_end(bytes, i));
            expect_operand = false;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            let end = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '\''))
                .map_or(bytes.len(), |p| i + p);
            let word = &before[i..end];
            expect_operand = false;
            match word {
                "if" => stack.push(Construct::If),
                "then" => replace_top(&mut stack, Construct::If, Some(Construct::Then)),
                "else" => replace_top(&mut stack, Construct::Then, None),
                "let" => stack.push(Construct::Let),
                "within" => replace_top(&mut stack, Construct::Let, None),
                "module" => stack.push(Construct::Module),
                "exports" => replace_top(&mut stack, Construct::Module, Some(Construct::Exports)),
                "endmodule" => {
                    if matches!(stack.last(), Some(Construct::Module | Construct::Exports)) {
                        stack.pop();
                    }
                }
                _ if WORD_OPERATORS.contains(&word) => expect_operand = true,
                _ => {}
            }
            if matches!(word, "if" | "then" | "else" | "let" | "within") {
                expect_operand = true;
            }
            i = end;
            continue;
        }
        // Symbols that start with an opening bracket or a `<` but open
        // nothing.
        const OPEN_NOTHING: [&str; 4] = [
            symbol(Operator::Sliding),
            symbol(Operator::ExtChoice),
            spelling(Operator::Rename).joins,
            symbol(Operator::Le),
        ];
        if let Some(op) = OPEN_NOTHING.iter().find(|op| rest.starts_with(*op)) {
            i += op.len();
            expect_operand = true;
            continue;
        }
        if let Some((tok, construct)) = OPENS.iter().find(|(t, _)| rest.starts_with(t)) {
            stack.push(*construct);
            i += tok.len();
            expect_operand = true;
            continue;
        }
        if let Some((tok, construct)) = CLOSES.iter().find(|(t, _)| rest.starts_with(t))
            && stack.last() == Some(construct)
        {
            stack.pop();
            i += tok.len();
            expect_operand = !matches!(
                construct,
                Construct::Paren
                    | Construct::Brace
                    | Construct::Map
                    | Construct::Production
                    | Construct::Rename
            );
            continue;
        }
        match c {
            b'[' => {
                stack.push(Construct::Square);
                expect_operand = true;
            }
            b'<' if expect_operand => stack.push(Construct::Sequence),
            b'>' if stack.last() == Some(&Construct::Sequence) => {
                stack.pop();
                expect_operand = false;
            }
            b' ' | b'\t' | b'\r' => {}
            b'\n' => {
                // A newline at the top level ends the declaration.
                if stack.is_empty() {
                    expect_operand = true;
                }
            }
            _ => expect_operand = true,
        }
        i += 1;
    }
    stack.last().copied()
}

/// Replaces the top of the stack when it is `was` (by `now`, or pops).
fn replace_top(stack: &mut Vec<Construct>, was: Construct, now: Option<Construct>) {
    if stack.last() == Some(&was) {
        stack.pop();
        if let Some(now) = now {
            stack.push(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_innermost_open_construct() {
        assert_eq!(innermost_open("P = (a -> "), Some(Construct::Paren));
        assert_eq!(innermost_open("x = <1, 2 "), Some(Construct::Sequence));
        assert_eq!(innermost_open("x = a < b"), None);
        assert_eq!(innermost_open("x = if a then b"), Some(Construct::Then));
        assert_eq!(innermost_open("x = if a then b else c"), None);
        assert_eq!(innermost_open("x = let y = (1) "), Some(Construct::Let));
        assert_eq!(
            innermost_open("P = Q [| {a} "),
            Some(Construct::GenParallel)
        );
        assert_eq!(
            innermost_open("x = {- ( -} f(\"(\", "),
            Some(Construct::Paren)
        );
    }
}

//! Lexical checks made before parsing: binary files, stray characters,
//! unterminated comments, strings and characters, unbalanced or too deeply
//! nested brackets. Each gets a precise diagnostic here, where the parser
//! could only say that something was unexpected somewhere later.

use super::diagnostic::Diagnostic;
use super::source::Span;

/// The deepest bracket nesting accepted. FDR scripts stay far below it;
/// beyond it a script is almost certainly generated or broken.
pub const MAX_BRACKET_DEPTH: usize = 1_000;

/// `<-` is one token, as FDR's longest-match lexer and the grammar cut
/// it, so a `-` right after it cannot open a comment: `x <-- S` draws
/// from `-S`. Every scanner here steps over the arrow whole.
const DRAWN_ARROW_LEN: usize = 2;

/// How many lexical errors one file reports before giving up (a binary
/// file of megabytes would otherwise make one per stray byte). The load
/// shows the first twenty of them unless asked for all.
const MAX_ERRORS: usize = 1_000;

struct Open {
    bracket: u8,
    start: usize,
    /// `[|`, which `|>` (exception) may close as well as `|]`.
    pipe: bool,
}

/// What a checked text is, for the words of an error that reaches its
/// end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Whole {
    /// A script's file.
    File,
    /// An expression typed on the command line or in the animator.
    Expression,
}

impl Whole {
    fn words(self) -> &'static str {
        match self {
            Whole::File => "the file",
            Whole::Expression => "the expression",
        }
    }
}

/// Checks `text` (a `whole`), whose positions start at `base`; an empty
/// result means the parser may go ahead.
pub(crate) fn check(base: u32, text: &str, whole: Whole) -> Vec<Diagnostic> {
    // A binary file is recognised up front: its other bytes would only
    // bury that under stray-character errors.
    if let Some(nul) = text.find('\0') {
        return vec![Diagnostic::error(
            Span::new(base, nul, nul + 1),
            "this is not a CSPM script: it contains a NUL byte, as binary files do",
        )];
    }
    let mut scan = Scan {
        base,
        text,
        whole,
        stack: Vec::new(),
        errors: Vec::new(),
    };
    let mut i = 0;
    while i < text.len() && scan.errors.len() < MAX_ERRORS {
        match scan.step(i) {
            Some(next) => i = next,
            None => break,
        }
    }
    if scan.errors.is_empty()
        && let Some(unclosed) = scan.unclosed()
    {
        scan.errors.push(unclosed);
    }
    if scan.errors.len() == MAX_ERRORS
        && let Some(last) = scan.errors.last_mut()
    {
        last.notes.push(format!(
            "the file was not read past this error, the {MAX_ERRORS}th"
        ));
    }
    scan.errors
}

/// One pass of [`check`] over a text: the brackets open so far and the
/// errors found.
struct Scan<'t> {
    base: u32,
    text: &'t str,
    whole: Whole,
    stack: Vec<Open>,
    errors: Vec<Diagnostic>,
}

impl Scan<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.base, start, end)
    }

    /// Checks what starts at byte `i`: the position to go on from, or
    /// none when nothing after it can be trusted.
    fn step(&mut self, i: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let next = bytes.get(i + 1).copied();
        match bytes[i] {
            b'<' if next == Some(b'-') => Some(i + DRAWN_ARROW_LEN),
            b'-' if next == Some(b'-') => Some(line_end(bytes, i)),
            b'{' if next == Some(b'-') => self.block_comment(i),
            b'"' => Some(self.string(i)),
            b'\'' => Some(self.character(i)),
            b'(' | b'{' | b'[' => self.open(i),
            b'|' if next == Some(b'>') && self.stack.last().is_some_and(|o| o.pipe) => {
                self.stack.pop();
                Some(i + 2)
            }
            b')' | b'}' | b']' => {
                self.close(i);
                Some(i + 1)
            }
            b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => Some(i + 1),
            b if b < 0x20 || b == 0x7F => {
                self.errors.push(Diagnostic::error(
                    self.span(i, i + 1),
                    format!("unexpected control character U+{b:04X}"),
                ));
                Some(i + 1)
            }
            b if b >= 0x80 => Some(self.non_ascii(i)),
            _ => Some(i + 1),
        }
    }

    /// `{-` at `i`: past its `-}`, or none if it is never closed.
    fn block_comment(&mut self, i: usize) -> Option<usize> {
        let end = block_comment_end(self.text.as_bytes(), i);
        if end.is_none() {
            self.errors.push(Diagnostic::error(
                self.span(i, i + 2),
                "unterminated comment: this `{-` is never closed by `-}`",
            ));
        }
        end
    }

    /// `"` at `i`: past the string, or past its line if it does not end
    /// there.
    fn string(&mut self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        quoted_end(bytes, i, b'"').unwrap_or_else(|| {
            let end = line_end(bytes, i);
            self.errors.push(Diagnostic::error(
                self.span(i, end),
                "unterminated string: a string must end with `\"` on the line it starts",
            ));
            end
        })
    }

    /// `'` at `i`: past the character it opens, or just past it when it
    /// is a prime or opens nothing.
    fn character(&mut self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        // A quote right after a name is a prime (`P'`), not a character.
        let prime =
            i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b'\''));
        if prime {
            return i + 1;
        }
        quoted_end(bytes, i, b'\'').unwrap_or_else(|| {
            self.errors.push(Diagnostic::error(
                self.span(i, i + 1),
                "unterminated character: write a character as `'a'`",
            ));
            i + 1
        })
    }

    /// An opening bracket at `i` (or the `[` of `[>` or of a refinement,
    /// which opens nothing): where to go on, or none when nested too
    /// deeply.
    fn open(&mut self, i: usize) -> Option<usize> {
        let rest = &self.text[i..];
        if rest.starts_with("[>") || is_refinement(rest) {
            return Some(i + 2);
        }
        if self.stack.len() >= MAX_BRACKET_DEPTH {
            self.errors.push(Diagnostic::error(
                self.span(i, i + 1),
                format!("brackets nested too deeply (more than {MAX_BRACKET_DEPTH} levels)"),
            ));
            return None;
        }
        self.stack.push(Open {
            bracket: rest.as_bytes()[0],
            start: i,
            pipe: rest.starts_with("[|"),
        });
        Some(i + 1)
    }

    /// A closing bracket at `i`: it closes the innermost open bracket,
    /// or is reported (and the stack recovered) when that does not match.
    fn close(&mut self, i: usize) {
        let b = self.text.as_bytes()[i];
        let want = match b {
            b')' => b'(',
            b'}' => b'{',
            _ => b'[',
        };
        match self.stack.last() {
            Some(open) if open.bracket == want => {
                self.stack.pop();
            }
            Some(open) => {
                let closer = b as char;
                let expected = closing(open.bracket);
                self.errors.push(
                    Diagnostic::error(
                        self.span(i, i + 1),
                        format!(
                            "mismatched `{closer}`: the open `{}` needs `{expected}` first",
                            open.bracket as char
                        ),
                    )
                    .with_secondary(self.span(open.start, open.start + 1), "opened here"),
                );
                // Recover: close down to a matching bracket, if any.
                if let Some(k) = self.stack.iter().rposition(|o| o.bracket == want) {
                    self.stack.truncate(k);
                }
            }
            None => self.errors.push(Diagnostic::error(
                self.span(i, i + 1),
                format!("unmatched `{}`: no bracket is open here", b as char),
            )),
        }
    }

    /// A non-ASCII character at `i`, reported (with the ASCII it may
    /// stand for): the position past it.
    fn non_ascii(&mut self, i: usize) -> usize {
        let c = self.text[i..]
            .chars()
            .next()
            .expect("a character starts here");
        let mut d = Diagnostic::error(
            self.span(i, i + c.len_utf8()),
            format!(
                "unexpected character `{c}` (U+{:04X}): outside strings and comments CSPM uses ASCII only",
                c as u32
            ),
        );
        if let Some(ascii) = ascii_lookalike(c) {
            d = d.with_note(format!("did you mean `{ascii}`?"));
        }
        self.errors.push(d);
        i + c.len_utf8()
    }

    /// The error for the innermost bracket still open at the end of the
    /// text, if any (a `[X=` that is no refinement is named as such).
    fn unclosed(&self) -> Option<Diagnostic> {
        let open = self.stack.last()?;
        Some(match unknown_model(&self.text[open.start..]) {
            Some(written) => Diagnostic::error(
                self.span(open.start, open.start + written.len()),
                format!(
                    "`{written}` is not a refinement: the models are `[T=`, `[F=`, `[FD=`, `[R=`, \
                     `[RD=`, `[V=` and `[VD=`"
                ),
            ),
            None => Diagnostic::error(
                self.span(open.start, open.start + 1),
                format!(
                    "unclosed `{}`: no `{}` closes it before the end of {}",
                    open.bracket as char,
                    closing(open.bracket),
                    self.whole.words()
                ),
            ),
        })
    }
}

/// `rest`'s start when it looks like a refinement of a model there is
/// not (`[X=`, `[TF=`): a `[`, capital letters and `=` (not `==`).
fn unknown_model(rest: &str) -> Option<&str> {
    let letters = rest
        .strip_prefix('[')?
        .bytes()
        .take_while(u8::is_ascii_uppercase)
        .count();
    let end = 1 + letters;
    (letters > 0 && rest[end..].starts_with('=') && !rest[end..].starts_with("=="))
        .then(|| &rest[..=end])
}

fn closing(open: u8) -> char {
    match open {
        b'(' => ')',
        b'{' => '}',
        _ => ']',
    }
}

fn is_refinement(rest: &str) -> bool {
    ["[T=", "[F=", "[FD=", "[R=", "[RD=", "[V=", "[VD="]
        .iter()
        .any(|op| rest.starts_with(op))
}

/// Index of the newline ending the line containing `i` (or the end).
pub(crate) fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| i + p)
}

/// Index just past the `-}` closing the (nested) comment opened at `i`.
pub(crate) fn block_comment_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while j + 1 < bytes.len() {
        match (bytes[j], bytes[j + 1]) {
            (b'{', b'-') => {
                depth += 1;
                j += 2;
            }
            (b'-', b'}') => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => j += 1,
        }
    }
    None
}

/// The largest character boundary of `text` at or before `offset` (its
/// length when `offset` is past its end): where to cut it without
/// splitting a character. (`str::floor_char_boundary` from Rust 1.91.)
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` on one line: each run of white space (line breaks included)
/// one space, none at either end.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` with each comment replaced by one space, for showing source as
/// process text on one line. String and character literals keep their
/// `--`; an unterminated comment runs to the end.
pub fn without_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"<-") {
            i += DRAWN_ARROW_LEN;
            continue;
        }
        let skip_to = if rest.starts_with(b"--") {
            line_end(bytes, i)
        } else if rest.starts_with(b"{-") {
            block_comment_end(bytes, i).unwrap_or(bytes.len())
        } else {
            if rest.starts_with(b"'\"'") {
                i += 3;
            } else if bytes[i] == b'"' {
                i = quoted_end(bytes, i, b'"').unwrap_or_else(|| line_end(bytes, i));
            } else {
                i += 1;
            }
            continue;
        };
        out.push_str(&text[copied..i]);
        out.push(' ');
        i = skip_to;
        copied = i;
    }
    out.push_str(&text[copied..]);
    out
}

/// Index just past the closing quote of a literal opened at `i`, which
/// must close on the same line.
pub(crate) fn quoted_end(bytes: &[u8], i: usize, quote: u8) -> Option<usize> {
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' => return None,
            b if b == quote => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The ASCII spelling of characters that word processors and papers put
/// in place of CSPM's.
fn ascii_lookalike(c: char) -> Option<&'static str> {
    Some(match c {
        '→' | '⟶' => "->",
        '□' | '☐' => "[]",
        '⊓' => "|~|",
        '‖' => "||",
        '“' | '”' | '„' => "\"",
        '‘' | '’' => "'",
        '−' | '–' | '—' => "-",
        '≠' => "!=",
        '≤' => "<=",
        '≥' => ">=",
        '⟨' | '〈' => "<",
        '⟩' | '〉' => ">",
        '×' => "*",
        '\u{A0}' => " (a plain space)",
        _ => return None,
    })
}

/// Positions at which parsing may restart after a syntax error: starts of
/// lines that begin, in the first column, with a letter, outside comments
/// and strings, and whose first word cannot continue an expression.
pub(crate) fn restart_points(text: &str) -> Vec<usize> {
    const CONTINUATIONS: &[&str] = &[
        "within",
        "then",
        "else",
        "and",
        "or",
        "exports",
        "endmodule",
    ];
    let bytes = text.as_bytes();
    let mut points = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start && b.is_ascii_alphabetic() {
            let word_end = bytes[i..]
                .iter()
                .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                .map_or(bytes.len(), |p| i + p);
            if !CONTINUATIONS.contains(&&text[i..word_end]) {
                points.push(i);
            }
        }
        line_start = false;
        match b {
            b'\n' => line_start = true,
            b'<' if bytes.get(i + 1) == Some(&b'-') => {
                i += DRAWN_ARROW_LEN;
                continue;
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                i = line_end(bytes, i);
                continue;
            }
            b'{' if bytes.get(i + 1) == Some(&b'-') => {
                i = block_comment_end(bytes, i).unwrap_or(bytes.len());
                continue;
            }
            b'"' => {
                i = quoted_end(bytes, i, b'"').unwrap_or_else(|| line_end(bytes, i));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        check(0, text, Whole::File)
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn accepts_balanced_text_with_operators_that_look_like_brackets() {
        assert!(
            messages("P = a -> P [> Q [| {a} |> R\nassert P [FD= Q :[deadlock free [F]]\n")
                .is_empty()
        );
        assert!(
            messages(
                "f(x) = {- a ( comment {- nested -} -} x -- ( too\nc = '('\ns = \"[\"\nP' = P''\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn a_refinement_of_a_model_there_is_not_is_named_as_such() {
        let expected = "`[X=` is not a refinement: the models are `[T=`, `[F=`, `[FD=`, `[R=`, \
                        `[RD=`, `[V=` and `[VD=`";
        assert_eq!(messages("assert P [X= P\n"), [expected]);
        let span = check(0, "assert P [X= P\n", Whole::File)[0]
            .span
            .expect("a place");
        assert_eq!((span.start, span.end), (9, 12));
        assert_eq!(
            messages("assert P [TF= Q"),
            [expected.replace("[X=", "[TF=")]
        );
        // A bracket left open before `==` or a name stays an unclosed one.
        assert_eq!(
            messages("x = [A== 1"),
            ["unclosed `[`: no `]` closes it before the end of the file"]
        );
    }

    #[test]
    fn a_minus_after_a_drawn_arrow_opens_no_comment() {
        // `<--` is `<-` and `-`, so the set stays inside the bracket…
        assert!(
            messages(
                "p = {| c.x | x <-- {0..2} |}
"
            )
            .is_empty()
        );
        // …and a third `-` does open a comment.
        assert_eq!(
            messages(
                "p = {| c.x | x <--- {0..2} |}
"
            ),
            ["unclosed `{`: no `}` closes it before the end of the file"]
        );
        assert_eq!(without_comments("x <-- S -- c"), "x <-- S  ");
        let text = "p = {| c.x | x <--
Q |}
R = 1
";
        let points: Vec<&str> = restart_points(text)
            .iter()
            .map(|&i| &text[i..i + 1])
            .collect();
        assert_eq!(points, ["p", "Q", "R"]);
    }

    #[test]
    fn comments_give_way_to_a_space_and_strings_keep_theirs() {
        assert_eq!(
            without_comments("a -> -- why\n  b {- not {- this -} -}-> \"--\" -- end"),
            "a ->  \n  b  -> \"--\"  "
        );
        assert_eq!(without_comments("P {- open"), "P  ");
        assert_eq!(without_comments("c!'\"' -- q"), "c!'\"'  ");
    }

    #[test]
    fn reports_unterminated_literals_and_comments() {
        assert_eq!(
            messages("x = \"abc\ny = 1"),
            ["unterminated string: a string must end with `\"` on the line it starts"]
        );
        assert_eq!(
            messages("{- a {- b -}\n"),
            ["unterminated comment: this `{-` is never closed by `-}`"]
        );
        assert_eq!(
            messages("x = 'a\n"),
            ["unterminated character: write a character as `'a'`"]
        );
    }

    #[test]
    fn reports_bracket_problems() {
        assert_eq!(
            messages("x = (1, 2\n"),
            ["unclosed `(`: no `)` closes it before the end of the file"]
        );
        assert_eq!(
            messages("x = 1)\n"),
            ["unmatched `)`: no bracket is open here"]
        );
        assert_eq!(
            messages("x = {(1}\n"),
            ["mismatched `}`: the open `(` needs `)` first"]
        );
        let deep = format!("x = {}1{}", "(".repeat(1500), ")".repeat(1500));
        assert_eq!(
            messages(&deep),
            ["brackets nested too deeply (more than 1000 levels)"]
        );
    }

    #[test]
    fn reports_stray_unicode_with_a_hint() {
        let d = check(0, "P = a → STOP\n", Whole::File);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].message
                .starts_with("unexpected character `→` (U+2192)")
        );
        assert_eq!(d[0].notes, ["did you mean `->`?"]);
    }

    #[test]
    fn restarts_at_declarations_in_the_first_column_only() {
        let text = "P = a ->\n  Q\nwithin\n{- x\nR = 1 -}\nS = 2\n";
        let points: Vec<&str> = restart_points(text)
            .iter()
            .map(|&i| &text[i..i + 1])
            .collect();
        assert_eq!(points, ["P", "S"]);
    }
}

//! Diagnostics: what every layer reports when the user's input is wrong.
//!
//! A diagnostic is a plain message, the span it is about, optional extra
//! labelled spans and notes. Rendering gives `file:line:col`, the source
//! line with a caret under the spot, and the chain of includes that led to
//! the file.

use std::fmt::Write;

use super::source::{SourceMap, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// Evidence for an answer, not a problem.
    Note,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The place the message is about; `None` for problems with no place
    /// (a file that cannot be read, say).
    pub span: Option<Span>,
    /// Further places, each with a short label (`unclosed ( opened here`).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: Some(span),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// An error that has no place in the source.
    pub fn error_nowhere(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The same diagnostic as evidence for an answer (`note:`), not a
    /// problem.
    pub fn into_note(self) -> Self {
        Diagnostic {
            severity: Severity::Note,
            ..self
        }
    }

    /// The diagnostic on one line, `file:line:col: message`, for places
    /// with no room for the excerpt.
    pub fn headline(&self, sources: &SourceMap) -> String {
        match self.span {
            Some(span) => format!("{}: {}", sources.location(span), self.message),
            None => self.message.clone(),
        }
    }

    /// The diagnostic as a person reads it, ending in a newline.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        let head = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let _ = writeln!(out, "{head}: {}", self.message);
        if let Some(span) = self.span {
            render_excerpt(&mut out, sources, span, None);
            for (span, label) in &self.secondary {
                render_excerpt(&mut out, sources, *span, Some(label));
            }
            render_include_chain(&mut out, sources, span);
        }
        for note in &self.notes {
            let _ = writeln!(out, "  = note: {note}");
        }
        out
    }
}

/// Renders every diagnostic, separated by blank lines.
pub fn render_all(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    diagnostics
        .iter()
        .map(|d| d.render(sources))
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_excerpt(out: &mut String, sources: &SourceMap, span: Span, label: Option<&str>) {
    let file = sources.file(sources.file_of(span));
    let location = sources.location(span);
    let (line, col) = (location.line, location.col);
    let text = file.line_text(line);
    let gutter = " ".repeat(line.to_string().len());
    let _ = writeln!(out, "{gutter}--> {location}");
    let _ = writeln!(out, "{gutter} |");
    let (end_line, end_col) = file.line_col(file.offset(span.end));
    let width = if end_line == line && end_col > col {
        end_col - col
    } else {
        1
    };
    // Long lines are cut to a window around the spot.
    let chars: Vec<char> = text.chars().collect();
    // The spot may lie past the visible text (on a line's `\r`, say).
    let spot = (col - 1).min(chars.len());
    let (first, last) = excerpt_window(chars.len(), spot);
    let mut shown: String = chars[first..last].iter().collect();
    if first > 0 {
        shown.insert_str(0, "...");
    }
    if last < chars.len() {
        shown.push_str("...");
    }
    let _ = writeln!(out, "{line} | {}", printable(&shown));
    // The caret sits under the span's first character and underlines the
    // rest of the span that lies on the same line (within the window).
    let mut prefix: String = if first > 0 {
        "   ".into()
    } else {
        String::new()
    };
    prefix.extend(
        chars[first..spot]
            .iter()
            .map(|&c| if c == '\t' { '\t' } else { ' ' }),
    );
    let width = width.min(last.saturating_sub(spot)).max(1);
    let label = label.map(|l| format!(" {l}")).unwrap_or_default();
    let _ = writeln!(out, "{gutter} | {prefix}{}{label}", "^".repeat(width));
}

/// The widest excerpt shown, in characters.
const EXCERPT_WIDTH: usize = 100;

/// The character range of a line of `len` characters to show so that the
/// character at `spot` is visible.
fn excerpt_window(len: usize, spot: usize) -> (usize, usize) {
    if len <= EXCERPT_WIDTH {
        return (0, len);
    }
    let first = spot
        .saturating_sub(EXCERPT_WIDTH / 2)
        .min(len - EXCERPT_WIDTH);
    (first, first + EXCERPT_WIDTH)
}

/// Control characters would garble a terminal; show them as `\u{..}`.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

fn render_include_chain(out: &mut String, sources: &SourceMap, span: Span) {
    let mut file = sources.file(sources.file_of(span));
    let mut depth = 0;
    while let Some(site) = file.included_from {
        let _ = writeln!(
            out,
            "  = note: in a file included from {}",
            sources.location(site)
        );
        file = sources.file(sources.file_of(site));
        depth += 1;
        if depth > 64 {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_excerpt_and_caret() {
        let mut map = SourceMap::new();
        let id = map.add("m.csp", None, "P = a -> STOP\nQ = b c\n".into(), None);
        let d = Diagnostic::error(
            Span::new(map.base(id), 20, 21),
            "expected `->` after an event",
        );
        assert_eq!(
            d.render(&map),
            "error: expected `->` after an event\n --> m.csp:2:7\n  |\n2 | Q = b c\n  |       ^\n"
        );
    }

    #[test]
    fn cuts_long_lines_to_a_window_around_the_spot() {
        let mut map = SourceMap::new();
        let text = format!("x = {}1{}\n", "(".repeat(300), ")".repeat(300));
        let id = map.add("long.csp", None, text, None);
        let rendered = Diagnostic::error(Span::new(map.base(id), 304, 305), "here").render(&map);
        let lines: Vec<&str> = rendered.lines().collect();
        assert_eq!(
            lines[3].chars().count(),
            "1 | ".len() + 3 + EXCERPT_WIDTH + 3
        );
        let caret_col = lines[4].find('^').unwrap();
        assert_eq!(lines[3].chars().nth(caret_col), Some('1'));
    }

    #[test]
    fn underlines_the_whole_span_on_its_line_and_names_includes() {
        let mut map = SourceMap::new();
        let root = map.add("main.csp", None, "include \"lib.csp\"\n".into(), None);
        let lib = map.add(
            "lib.csp",
            None,
            "\tfoo = bar\n".into(),
            Some(Span::new(map.base(root), 0, 17)),
        );
        let d = Diagnostic::error(Span::new(map.base(lib), 7, 10), "unknown name `bar`");
        assert_eq!(
            d.render(&map),
            "error: unknown name `bar`\n --> lib.csp:1:8\n  |\n1 | \tfoo = bar\n  | \t      ^^^\n  = note: in a file included from main.csp:1:1\n"
        );
    }
}

//! Rendered diagnostics (`error: …`, `--> file:line:col`, the excerpt
//! and its caret line, `= note: …`) wrapped to a pane's width. Prose
//! wraps under its own text, after its label; an excerpt and the caret
//! line beneath it wrap together, cut at the same columns, so that every
//! caret stays under the characters it marks however narrow the pane.

use ratatui::style::Style;
use ratatui::text::Line;

use super::wrap::wrap_line;

/// `text`, a rendered diagnostic (or several), as rows of at most
/// `width` columns in `style`.
pub fn wrap_diagnostic(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    let width = width.max(1);
    let lines: Vec<&str> = text.lines().collect();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(next) = lines.get(i + 1)
            && let Some(pair) = Excerpt::of(line, next)
            && line.chars().count().max(next.chars().count()) > width
            && width > pair.gutter + 1
        {
            for row in pair.rows(width) {
                rows.push(Line::styled(row, style));
            }
            i += 2;
            continue;
        }
        rows.extend(wrap_line(
            &Line::styled(line.to_string(), style),
            width,
            hang(line),
        ));
        i += 1;
    }
    rows
}

/// Where a continuation row of `line` starts: under the text after its
/// label (`error: `, `= note: `), or under its first character.
fn hang(line: &str) -> usize {
    let text = line.trim_start();
    let indent = line.len() - text.len();
    ["error: ", "warning: ", "note: ", "= note: ", "= help: "]
        .iter()
        .find(|label| text.starts_with(*label))
        .map_or(indent, |label| indent + label.len())
}

/// A source line (`12 | text`) and its caret line (`   |    ^^^ label`).
struct Excerpt {
    /// Columns before the text, `12 | ` included (alike on both lines).
    gutter: usize,
    /// The excerpt line's gutter, with its line number.
    numbered: String,
    source: Vec<char>,
    /// The carets' first column in the text, and how many.
    carets: (usize, usize),
    label: String,
}

impl Excerpt {
    fn of(line: &str, next: &str) -> Option<Excerpt> {
        let bar = line.find(" | ")?;
        let number = line[..bar].trim_start();
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let gutter = bar + 3;
        let (blank, marks) = (next.get(..gutter)?, next.get(gutter..)?);
        if blank.trim_start() != "| " && blank.trim() != "|" {
            return None;
        }
        let lead = marks.len() - marks.trim_start().len();
        let carets = marks[lead..].chars().take_while(|&c| c == '^').count();
        if carets == 0 {
            return None;
        }
        Some(Excerpt {
            gutter,
            numbered: line[..gutter].to_string(),
            // A tab is one column on both lines (ratatui draws it as
            // none, which the caret rows, made of spaces, would not).
            source: line[gutter..]
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect(),
            carets: (marks[..lead].chars().count(), carets),
            label: marks[lead + carets..].trim().to_string(),
        })
    }

    /// The two lines cut into pieces of the same columns: each piece of
    /// the source, then the carets under it (if any fall there); the
    /// label follows the last carets, on their row if it fits.
    fn rows(&self, width: usize) -> Vec<String> {
        let room = width - self.gutter;
        let blank = format!("{}| ", " ".repeat(self.gutter - 2));
        let (from, count) = self.carets;
        let end = from + count;
        let pieces = self.source.len().max(end).div_ceil(room).max(1);
        let mut rows = Vec::new();
        for k in 0..pieces {
            let (start, stop) = (k * room, (k + 1) * room);
            let gutter = if k == 0 { &self.numbered } else { &blank };
            let piece: String = self.source
                [start.min(self.source.len())..stop.min(self.source.len())]
                .iter()
                .collect();
            rows.push(format!("{gutter}{piece}"));
            let (first, last) = (from.max(start), end.min(stop));
            if first < last {
                let mut marks = format!(
                    "{blank}{}{}",
                    " ".repeat(first - start),
                    "^".repeat(last - first)
                );
                if last == end && !self.label.is_empty() {
                    if marks.chars().count() + 1 + self.label.chars().count() <= width {
                        marks.push(' ');
                        marks.push_str(&self.label);
                        rows.push(marks);
                    } else {
                        rows.push(marks);
                        let label = Line::raw(self.label.clone());
                        rows.extend(
                            wrap_line(&label, room, 0)
                                .iter()
                                .map(|row| format!("{blank}{row}")),
                        );
                    }
                } else {
                    rows.push(marks);
                }
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, width: usize) -> Vec<String> {
        wrap_diagnostic(text, width, Style::default())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn an_excerpt_and_its_carets_wrap_together() {
        let text = "error: `nope` is not defined\n --> long.csp:2:24\n  |\n2 | P = a -> b -> c -> d -> nope -> STOP\n  |                        ^^^^\n";
        assert_eq!(
            rows(text, 20),
            [
                "error: `nope` is not",
                "       defined",
                " --> long.csp:2:24",
                "  |",
                "2 | P = a -> b -> c ",
                "  | -> d -> nope -> ",
                "  |        ^^^^",
                "  | STOP",
            ]
        );
        // Carets across a cut are cut too; a label too long for their
        // row goes under them.
        let text = "3 | abcdefghij\n  |       ^^^^^ here it is\n";
        assert_eq!(
            rows(text, 12),
            [
                "3 | abcdefgh",
                "  |       ^^",
                "  | ij",
                "  | ^^^",
                "  | here it",
                "  | is",
            ]
        );
        // A caret past the end of the text (on its line break) still
        // shows; lines that fit are left alone.
        assert_eq!(rows("9 | ab\n  |   ^\n", 7), ["9 | ab", "  |   ^"]);
        assert_eq!(rows("9 | ab\n  |   ^\n", 6), ["9 | ab", "  | ", "  | ^"]);
        assert_eq!(
            rows("9 | abcdef\n  |       ^\n", 8),
            ["9 | abcd", "  | ef", "  |   ^"]
        );
    }

    #[test]
    fn a_tab_before_the_carets_is_one_column_on_both_lines() {
        let text = "2 | \t\tP = a -> nope\n  | \t\t         ^^^^\n";
        assert_eq!(
            rows(text, 12),
            ["2 |   P = a ", "  | -> nope", "  |    ^^^^"]
        );
    }

    #[test]
    fn prose_wraps_after_its_label() {
        assert_eq!(
            rows("  = note: put an event before the call", 25),
            ["  = note: put an event", "          before the call"]
        );
        // Not an excerpt: a bar without a line number wraps as prose.
        assert_eq!(
            rows("a | b c d e f\n  | ^", 8),
            ["a | b c", "d e f", "  | ^"]
        );
    }
}

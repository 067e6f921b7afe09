//! Styled lines wrapped to a pane's width with a hanging indent: a
//! row's continuation sits under its own text (an operator tree keeps
//! its shape, a key's description its column) rather than at the pane's
//! edge, and every piece keeps its colour across the break.
//!
//! The line is cut into words (runs without spaces, which may change
//! style midway: `#3` and `Node(N0)` coloured apart are one word when
//! nothing separates them) and laid out first-fit by `textwrap`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use textwrap::core::{Fragment, display_width};
use textwrap::wrap_algorithms::wrap_first_fit;

/// A run of text without spaces, in one or more styles, and the spaces
/// after it.
#[derive(Debug, Default)]
struct Word {
    pieces: Vec<(String, Style)>,
    width: usize,
    /// Spaces after the word, and the style of the text they were in.
    gap: usize,
    gap_style: Style,
}

impl Fragment for Word {
    fn width(&self) -> f64 {
        self.width as f64
    }

    fn whitespace_width(&self) -> f64 {
        self.gap as f64
    }

    fn penalty_width(&self) -> f64 {
        0.0
    }
}

/// `line` broken at spaces into lines of at most `width` columns (a word
/// longer than a line across lines), each after the first indented by
/// `hang` columns. The line's own leading spaces are kept on its first
/// row. Neither indentation takes more than half the width, so a deep
/// row in a narrow pane still has room.
pub fn wrap_line(line: &Line<'_>, width: usize, hang: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let (indent, words) = words(line);
    if words.is_empty() || line.width() <= width {
        return vec![owned(line)];
    }
    let indent = indent.min(width / 2);
    let hang = hang.min(width / 2);
    let first_style = words[0].pieces[0].1;
    let words = break_long_words(words, width - indent.max(hang));
    let widths = [(width - indent) as f64, (width - hang) as f64];
    wrap_first_fit(&words, &widths)
        .into_iter()
        .enumerate()
        .map(|(row, words)| {
            let lead = if row == 0 { indent } else { hang };
            let mut spans = vec![Span::styled(" ".repeat(lead), first_style)];
            for (k, word) in words.iter().enumerate() {
                spans.extend(
                    word.pieces
                        .iter()
                        .map(|(text, style)| Span::styled(text.clone(), *style)),
                );
                if k + 1 < words.len() && word.gap > 0 {
                    spans.push(Span::styled(" ".repeat(word.gap), word.gap_style));
                }
            }
            Line::from(spans).style(line.style)
        })
        .collect()
}

/// `line` with its text owned.
fn owned(line: &Line<'_>) -> Line<'static> {
    let spans: Vec<Span<'static>> = line
        .spans
        .iter()
        .map(|s| Span::styled(s.content.to_string(), s.style))
        .collect();
    Line::from(spans).style(line.style)
}

/// The leading spaces of `line`, and its words.
fn words(line: &Line<'_>) -> (usize, Vec<Word>) {
    let mut indent = 0;
    let mut words: Vec<Word> = Vec::new();
    // Whether the next text starts a new word (after a space).
    let mut fresh = true;
    for span in &line.spans {
        let style = line.style.patch(span.style);
        for (k, part) in span.content.split(' ').enumerate() {
            if k > 0 {
                // A space ended what came before.
                match words.last_mut() {
                    Some(word) => {
                        word.gap += 1;
                        word.gap_style = style;
                    }
                    None => indent += 1,
                }
                fresh = true;
            }
            if part.is_empty() {
                continue;
            }
            if fresh {
                words.push(Word::default());
                fresh = false;
            }
            let word = words.last_mut().expect("pushed");
            word.width += display_width(part);
            word.pieces.push((part.to_string(), style));
        }
    }
    (indent, words)
}

/// `words` with any wider than `most` columns cut into pieces that fit.
fn break_long_words(words: Vec<Word>, most: usize) -> Vec<Word> {
    let most = most.max(1);
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        if word.width <= most {
            out.push(word);
            continue;
        }
        let mut chunk = Word::default();
        for (text, style) in word.pieces {
            for c in text.chars() {
                let w = display_width(c.encode_utf8(&mut [0; 4]));
                if chunk.width + w > most && chunk.width > 0 {
                    out.push(std::mem::take(&mut chunk));
                }
                match chunk.pieces.last_mut() {
                    Some((piece, s)) if *s == style => piece.push(c),
                    _ => chunk.pieces.push((c.to_string(), style)),
                }
                chunk.width += w;
            }
        }
        chunk.gap = word.gap;
        chunk.gap_style = word.gap_style;
        out.push(chunk);
    }
    out
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::*;

    fn text(lines: Vec<Line>) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn plain(text: &str) -> Line<'static> {
        Line::raw(text.to_string())
    }

    #[test]
    fn long_rows_wrap_under_their_own_text() {
        let row = plain("    * #3 Node(N0, A, Pointer(N1, 2, true))");
        assert_eq!(
            text(wrap_line(&row, 24, 9)),
            [
                "    * #3 Node(N0, A,",
                "         Pointer(N1, 2,",
                "         true))"
            ]
        );
        // Fitting rows and empty ones are left alone.
        assert_eq!(text(wrap_line(&plain("  a b"), 24, 4)), ["  a b"]);
        assert_eq!(text(wrap_line(&plain(""), 24, 4)), [""]);
        // Indentation wider than half the pane is cut to half, and a
        // word longer than a row is broken across rows.
        assert_eq!(
            text(wrap_line(&plain("          #1 abcdefghijkl"), 10, 13)),
            ["     #1", "     abcde", "     fghij", "     kl"]
        );
    }

    #[test]
    fn styles_stay_with_their_text_across_a_break() {
        let red = Style::default().fg(Color::Red);
        let blue = Style::default().fg(Color::Blue);
        // `#3` and `Node(N0)` touch: one word in two colours.
        let line = Line::from(vec![
            Span::styled("#3", red),
            Span::styled("Node(N0) ─next→", blue),
            Span::raw(" "),
            Span::styled("#4 Node(N1)", red),
        ]);
        let lines = wrap_line(&line, 16, 2);
        assert_eq!(
            text(lines.clone()),
            ["#3Node(N0)", "  ─next→ #4", "  Node(N1)"]
        );
        let styled: Vec<(String, Style)> = lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .filter(|s| !s.content.trim().is_empty())
            .map(|s| (s.content.to_string(), s.style))
            .collect();
        assert_eq!(
            styled,
            [
                ("#3".to_string(), red),
                ("Node(N0)".to_string(), blue),
                ("─next→".to_string(), blue),
                ("#4".to_string(), red),
                ("Node(N1)".to_string(), red),
            ]
        );
    }
}

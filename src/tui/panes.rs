//! The animator's panes, one module each: the pane's own state, its
//! `update` (keys in, an [`Effect`] out for what reaches beyond the pane)
//! and its drawing. What they share: a selectable [`List`], the effects,
//! and a few drawing helpers.

pub mod checks;
pub mod events;
pub mod script;
pub mod state;
pub mod structure;
pub mod symmetry;
pub mod trace;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::config::Command;
use super::prompt::Prompt;

/// What a pane's update asks of the rest of the animator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    /// Animate a process expression.
    Animate(String),
    /// Open a prompt.
    Prompt(Prompt),
    /// Take move `i` of the state shown.
    Fire(usize),
    /// Go to position `p` of the path.
    Goto(usize),
    RunCheck(usize),
    OpenCounterexample(usize),
    Say(String),
    Complain(String),
}

/// A list's selected row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct List {
    pub selected: usize,
}

impl List {
    /// Moves the selection for a navigation command over `rows` rows
    /// (`page` at a time); whether `command` was one.
    pub fn navigate(&mut self, command: Command, rows: usize, page: usize) -> bool {
        let last = rows.saturating_sub(1);
        self.selected = match command {
            Command::Up => self.selected.saturating_sub(1),
            Command::Down => self.selected + 1,
            Command::PageUp => self.selected.saturating_sub(page),
            Command::PageDown => self.selected + page,
            Command::Top => 0,
            Command::Bottom => last,
            _ => return false,
        }
        .min(last);
        true
    }

    /// The mouse wheel: three rows at a time.
    pub fn scroll(&mut self, down: bool, rows: usize) {
        self.selected = if down {
            (self.selected + 3).min(rows.saturating_sub(1))
        } else {
            self.selected.saturating_sub(3)
        };
    }

    pub fn fit(&mut self, rows: usize) {
        self.selected = self.selected.min(rows.saturating_sub(1));
    }

    /// The first row shown when the selection must be visible in
    /// `height` rows (a list scrolls only as far as the selection needs).
    pub fn offset(&self, height: usize) -> usize {
        self.selected.saturating_sub(height.saturating_sub(1))
    }
}

/// Renders `rows` into `area` from row `offset`, with row `highlight`
/// patched with `selection`; only the rows that fit are drawn.
pub fn draw_list(
    frame: &mut Frame,
    area: Rect,
    rows: Vec<Line<'static>>,
    offset: usize,
    highlight: Option<(usize, Style)>,
) {
    let height = usize::from(area.height);
    let lines: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, line)| match highlight {
            Some((h, style)) if h == i => line.patch_style(style),
            _ => line,
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// `line` cut to `width` characters, the cut marked `…`, so that a row
/// too long for its pane never reads as a complete shorter one.
pub fn clip(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut left = width.saturating_sub(1);
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            break;
        }
        let n = span.content.chars().count();
        if n <= left {
            left -= n;
            spans.push(span);
        } else {
            let cut: String = span.content.chars().take(left).collect();
            spans.push(Span::styled(cut, span.style));
            left = 0;
        }
    }
    spans.push(Span::raw("…"));
    Line::from(spans).style(line.style)
}

/// `1234567` as `1 234 567`, the groups joined by no-break spaces so
/// that a wrapped paragraph never splits a number across lines.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(GROUP_SEPARATOR);
        }
        out.push(c);
    }
    out
}

/// Between groups of three digits in [`count`]: a no-break space.
pub const GROUP_SEPARATOR: char = '\u{a0}';

/// `n` and a noun, the noun plural unless `n` is one: `1 step`, `3 steps`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// `text` cut to `width` characters by dropping its middle (`…`), so
/// that rows which begin alike still show how they end.
pub fn elide_middle(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width || width < 5 {
        return chars.into_iter().take(width).collect();
    }
    let tail = (width - 1) / 2;
    let head = width - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_navigate_within_their_rows() {
        let mut list = List::default();
        assert!(list.navigate(Command::Down, 3, 10));
        assert!(list.navigate(Command::PageDown, 3, 10));
        assert_eq!(list.selected, 2);
        assert!(list.navigate(Command::Top, 3, 10));
        assert_eq!(list.selected, 0);
        assert!(!list.navigate(Command::Activate, 3, 10));
        list.selected = 40;
        assert_eq!(list.offset(10), 31);
    }

    #[test]
    fn words_and_rows_read_well() {
        assert_eq!(plural(1, "step", "steps"), "1 step");
        assert_eq!(plural(1234, "step", "steps"), "1\u{a0}234 steps");
        assert_eq!(
            elide_middle("Spec(<>) [T= System :[symmetry reduce]", 21),
            "Spec(<>) […ry reduce]"
        );
        assert_eq!(elide_middle("short", 21), "short");
    }

    #[test]
    fn a_wrapped_paragraph_keeps_each_number_whole() {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        use ratatui::widgets::{Paragraph, Widget, Wrap};
        let text = format!("checked {} states", count(8_953_229));
        let area = Rect::new(0, 0, 12, 3);
        let mut buffer = Buffer::empty(area);
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .render(area, &mut buffer);
        let rows: Vec<String> = (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .replace(GROUP_SEPARATOR, " ")
            })
            .collect();
        assert_eq!(rows, ["checked", "8 953 229", "states"]);
    }
}

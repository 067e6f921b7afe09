//! The Compare section: why the marked state and this one got the
//! representatives they did — the answer, the permutation relating
//! them, their partitions side by side where they part, and the
//! representatives.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::cut::Cut;
use crate::symmetry::perm::alpha_text;
use crate::tui::config::Theme;
use crate::tui::engine::Compared;

/// The answer to a comparison.
pub(super) fn comparison(
    theme: &Theme,
    c: &Compared,
    width: usize,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::styled(c.headline.clone(), theme.title),
        Line::styled(
            "the first state is the marked one, the second this one",
            theme.dim,
        ),
    ];
    lines.extend(c.sentences.iter().map(|s| Line::from(format!("  {s}"))));
    if let Some(exact) = &c.exact {
        lines.push(Line::styled(format!("  {exact}"), theme.title));
    }
    let mapped = c.headline.starts_with("same") || c.headline.starts_with("symmetric");
    if mapped {
        lines.push(Line::default());
        lines.push(Line::styled(
            "the permutation mapping the first state onto the second",
            theme.dim,
        ));
        if c.permutation.is_empty() {
            lines.push(Line::from("  the identity"));
        }
        lines.extend(
            c.permutation
                .iter()
                .map(|p| Line::styled(format!("  {p}"), theme.moved)),
        );
        // α says which component became which: the states' lists are not
        // in the same order.
        lines.push(Line::from(format!(
            "  components (α): {}",
            alpha_text(&c.alpha)
        )));
    }
    if let Some(parting) = &c.parting {
        let (step, left, right) = (&parting.step, &parting.marked, &parting.here);
        lines.push(Line::default());
        lines.push(Line::styled(
            format!("the partitions side by side {step}"),
            theme.title,
        ));
        let half = (width.saturating_sub(4) / 2).max(20);
        lines.push(Line::styled(
            format!(
                "  {:<half$}  {}",
                "first state (marked)", "second state (this one)"
            ),
            theme.dim,
        ));
        for j in 0..left.len().max(right.len()) {
            let cell = |cells: &[Vec<usize>], texts: &[String]| {
                cells.get(j).map_or(String::new(), |cell| {
                    let members: Vec<&str> = cell.iter().map(|&c| texts[c].as_str()).collect();
                    format!("c{} [ {} ]", j + 1, members.join(" · "))
                })
            };
            let (a, b) = (cell(left, &c.marked), cell(right, &c.here));
            // What the answer points at: cells of different sizes or
            // holding what the evidence names (no permutation relates
            // them), and the cell step 3 split.
            let size = |cells: &[Vec<usize>]| cells.get(j).map_or(0, Vec::len);
            let named = |cells: &[Vec<usize>], components: &[usize]| {
                cells
                    .get(j)
                    .is_some_and(|cell| cell.iter().any(|c| components.contains(c)))
            };
            let (in_first, in_second) = &parting.evidence;
            let mark =
                if size(left) != size(right) || named(left, in_first) || named(right, in_second) {
                    "≠"
                } else if parting.split == Some(j) {
                    "◆"
                } else {
                    " "
                };
            let style = if mark == " " {
                theme.cell(j)
            } else {
                theme.changed
            };
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", cut.fit(&a, half)), style),
                Span::styled(format!("{mark} "), theme.changed),
                Span::styled(cut.fit(&b, half), style),
            ]));
        }
        lines.push(Line::styled(
            "≠ where the states differ · ◆ the cell step 3 split",
            theme.dim,
        ));
    }
    if !c.n_values.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled(
            "the cell the round split, before it, sorted by n-value",
            theme.title,
        ));
        lines.extend(c.n_values.iter().map(|l| Line::from(format!("  {l}"))));
    }
    lines.push(Line::default());
    lines.extend(c.representatives.iter().enumerate().map(|(k, l)| {
        let style = if k == 0 {
            theme.title
        } else if l.chars().nth(3) == Some('*') {
            theme.changed
        } else {
            Style::default()
        };
        Line::styled(l.clone(), style)
    }));
    lines
}

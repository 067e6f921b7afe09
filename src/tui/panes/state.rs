//! The State pane: the current state, one component per row grouped
//! under the operator tree, the components the last step changed marked,
//! and beside a loaded counterexample the specification's states.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::super::config::{Command, Theme};
use super::super::walk::Walk;
use super::List;
use crate::lts::machine::OutlineRow;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatePane {
    /// The first line shown.
    pub scroll: List,
}

impl StatePane {
    pub fn update(&mut self, command: Command, rows: usize, page: usize) {
        self.scroll.navigate(command, rows, page);
    }

    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        walk: Option<&Walk>,
        problem: Option<&str>,
    ) {
        let problem = problem.or_else(|| walk?.shown.as_ref()?.problem.as_deref());
        if let Some(problem) = problem {
            frame.render_widget(
                Paragraph::new(problem)
                    .style(theme.error)
                    .wrap(Wrap { trim: false }),
                area,
            );
            return;
        }
        let Some(walk) = walk else {
            frame.render_widget(Paragraph::new("loading…").style(theme.dim), area);
            return;
        };
        let rows = lines(walk, theme);
        let offset = self.scroll.selected.min(rows.len().saturating_sub(1));
        let lines: Vec<Line> = rows.into_iter().skip(offset).collect();
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }
}

/// The pane's lines: the components under their operators, then the
/// specification beside a loaded counterexample.
pub fn lines(walk: &Walk, theme: &Theme) -> Vec<Line<'static>> {
    let mut rows: Vec<Line> = Vec::new();
    let Some(shown) = &walk.shown else {
        return rows;
    };
    let changed = walk.changed();
    if shown.reduced {
        rows.push(Line::styled(
            "walking the reduced system: this is a representative (W: raw states)",
            theme.dim,
        ));
    }
    for row in &walk.outline {
        match row {
            OutlineRow::Operator { depth, text } => {
                rows.push(Line::styled(
                    format!("{}{text}", "  ".repeat(*depth)),
                    theme.dim,
                ));
            }
            OutlineRow::Component { depth, slot } => {
                let text = shown.components.get(*slot).map_or("", String::as_str);
                let indent = "  ".repeat(*depth);
                if changed.contains(slot) {
                    rows.push(Line::styled(
                        format!("{indent}* #{} {text}", slot + 1),
                        theme.changed,
                    ));
                } else {
                    rows.push(Line::from(format!("{indent}  #{} {text}", slot + 1)));
                }
            }
        }
    }
    if let Some(cx) = &walk.counterexample {
        let position = walk.path.position();
        let whole = cx.spec_after.len();
        let at_violation = position == whole && cx.valid == whole;
        // After an event the specification refuses it has no state: show
        // the one before it.
        let spec = match cx.spec_at(position) {
            Some(spec) => Some(("Specification here:", spec)),
            None if at_violation && position > 0 => cx
                .spec_at(position - 1)
                .map(|spec| ("Specification before the last step:", spec)),
            None => None,
        };
        if let Some((heading, spec)) = spec {
            rows.push(Line::default());
            rows.push(Line::styled(heading, theme.spec));
            rows.extend(
                spec.iter()
                    .map(|s| Line::styled(format!("  {s}"), theme.spec)),
            );
        }
        if at_violation {
            rows.push(Line::default());
            rows.push(Line::styled(
                format!("✗ assertion {}: {}", cx.assertion + 1, cx.verdict),
                theme.failed,
            ));
        }
    }
    rows
}

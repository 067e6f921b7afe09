//! The State pane: the current state, one component per row grouped
//! under the operator tree, the components the last step changed marked,
//! and beside a loaded counterexample the specification's states.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::super::config::{Command, PaneId, Theme};
use super::super::layout::{Column, Placement, Shown};
use super::super::walk::Walk;
use super::events::firing_hints;
use super::{Context, Effect, Hint, List, Pane, unanimated_hints};
use crate::lts::machine::OutlineRow;
use crate::tui::diagnostic_wrap::wrap_diagnostic;
use crate::tui::wrap::wrap_line;

/// A row of the pane: its text, its style, and how far the rows it
/// wraps onto are indented when it is wider than the pane — under its
/// own text, not at the pane's edge, so the operator tree still reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub text: String,
    pub style: Style,
    pub hang: usize,
}

impl Row {
    fn new(text: String, style: Style, hang: usize) -> Row {
        Row { text, style, hang }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatePane {
    /// The first line shown.
    pub scroll: List,
}

impl StatePane {
    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        walk: Option<&Walk>,
        problem: Option<&str>,
    ) {
        let problem = problem.or_else(|| walk?.shown.as_ref()?.problem.as_deref());
        if let Some(problem) = problem {
            let lines = wrap_diagnostic(problem, usize::from(area.width), theme.error);
            frame.render_widget(Paragraph::new(lines), area);
            return;
        }
        let Some(walk) = walk else {
            frame.render_widget(Paragraph::new("loading…").style(theme.dim), area);
            return;
        };
        let rows = rows(walk, theme);
        let offset = self.scroll.selected.min(rows.len().saturating_sub(1));
        let width = usize::from(area.width);
        let lines: Vec<Line> = rows
            .into_iter()
            .skip(offset)
            .flat_map(|row| wrap_line(&Line::styled(row.text, row.style), width, row.hang))
            .take(usize::from(area.height))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
    }
}

impl Pane for StatePane {
    fn id(&self) -> PaneId {
        PaneId::STATE
    }

    fn name(&self) -> &'static str {
        "State"
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::Middle,
            share: 100,
            shown: Shown::Plain,
        }
    }

    fn title(&self, cx: &Context) -> String {
        match cx.walk {
            Some(w) => format!(" State — {} ", w.process),
            None => " State ".to_string(),
        }
    }

    fn activate_help(&self) -> &'static str {
        "fire the selected event (from the Events pane)"
    }

    fn hints(&self, cx: &Context) -> Vec<Hint> {
        match cx.walk {
            Some(_) => firing_hints(cx),
            None => unanimated_hints(cx),
        }
    }

    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        if command == Command::Activate {
            return Effect::FireSelected;
        }
        let rows = self.rows(cx);
        self.scroll.navigate(command, rows, cx.facts.page);
        Effect::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        self.render(frame, area, cx.theme, cx.walk, cx.problem);
        self.scroll.selected
    }

    fn rows(&self, cx: &Context) -> usize {
        cx.walk.map_or(0, |w| rows(w, cx.theme).len())
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.scroll
    }

    fn click_selects(&self) -> bool {
        false
    }
}

/// The pane's rows: the components under their operators, then the
/// specification beside a loaded counterexample.
pub fn rows(walk: &Walk, theme: &Theme) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let Some(shown) = &walk.shown else {
        return rows;
    };
    let changed = walk.changed();
    if shown.reduced {
        rows.push(Row::new(
            "walking the reduced system: this is a representative (W: raw states)".to_string(),
            theme.dim,
            2,
        ));
    }
    for row in &walk.outline {
        match row {
            OutlineRow::Operator { depth, text } => {
                let indent = "  ".repeat(*depth);
                let hang = indent.len() + 2;
                rows.push(Row::new(format!("{indent}{text}"), theme.dim, hang));
            }
            OutlineRow::Component { depth, slot } => {
                let text = shown.components.get(*slot).map_or("", String::as_str);
                let indent = "  ".repeat(*depth);
                let (mark, style) = if changed.contains(slot) {
                    ("* ", theme.changed)
                } else {
                    ("  ", Style::default())
                };
                let head = format!("{indent}{mark}#{} ", slot + 1);
                let hang = head.len();
                rows.push(Row::new(format!("{head}{text}"), style, hang));
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
            rows.push(Row::new(String::new(), Style::default(), 0));
            rows.push(Row::new(heading.to_string(), theme.spec, 2));
            rows.extend(
                spec.iter()
                    .map(|s| Row::new(format!("  {s}"), theme.spec, 4)),
            );
        }
        if at_violation {
            rows.push(Row::new(String::new(), Style::default(), 0));
            rows.push(Row::new(
                format!("✗ assertion {}: {}", cx.assertion + 1, cx.verdict),
                theme.failed,
                2,
            ));
        }
    }
    rows
}

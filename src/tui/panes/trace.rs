//! The Trace pane: the path so far, each τ with the event it hides, a
//! counterexample's τ-loop marked, and in the reduced walk the
//! permutation that made each step's representative. Enter goes to the
//! selected state.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::config::{Command, PaneId, Theme};
use super::super::layout::{Column, Placement, Shown};
use super::super::walk::Walk;
use super::events::event_style;
use super::{Context, Effect, Hint, List, Pane, clip, count, unanimated_hints};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TracePane {
    pub list: List,
}

impl TracePane {
    /// The pane's title: where the walk stands, and what it is (the
    /// reduced walk, a counterexample).
    fn title_of(walk: Option<&Walk>) -> String {
        let Some(w) = walk else {
            return " Trace ".to_string();
        };
        // Grouped as every count on the screen is.
        let mut title = format!(
            " Trace ({} of {})",
            count(w.path.position() as u64),
            count(w.path.len() as u64)
        );
        if w.reduced {
            title.push_str(" — reduced walk");
        }
        if let Some(assertion) = w.following() {
            title.push_str(&format!(" — counterexample of assertion {assertion}"));
        }
        title.push(' ');
        title
    }

    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        walk: &Walk,
        focused: bool,
    ) -> usize {
        let height = usize::from(area.height);
        let chosen = self.list.selected;
        let offset = self.list.offset(height);
        let position = walk.path.position();
        let digits = walk.path.len().to_string().len().max(4);
        let width = usize::from(area.width);
        let lines: Vec<Line> = (offset..=walk.path.len())
            .take(height)
            .map(|p| {
                let mark = if p == position { "▶" } else { " " };
                let mut spans = vec![
                    Span::raw(mark),
                    Span::styled(format!("{p:>digits$} "), theme.dim),
                ];
                match p {
                    0 => spans.push(Span::styled("(initial state)", theme.dim)),
                    p => {
                        let step = walk.path.step(p);
                        let style = if p > position {
                            theme.dim
                        } else {
                            event_style(theme, step.kind)
                        };
                        let (label, hidden) = walk.step_label(p);
                        let mut text = label;
                        if let Some(h) = hidden {
                            text.push_str(&format!(" ‹{h}›"));
                        }
                        if p > position {
                            text.push_str("  (undone)");
                        }
                        if walk.counterexample.as_ref().is_some_and(|c| c.in_loop(p)) {
                            text.push_str("  ↻ loop");
                        }
                        spans.push(Span::styled(text, style));
                        if walk.reduced {
                            let pi = walk.names.permutation(step.permutation);
                            if !pi.is_empty() {
                                spans.push(Span::styled(format!("  π {pi}"), theme.moved));
                            }
                        }
                    }
                }
                let line = clip(Line::from(spans), width);
                if p == chosen && focused {
                    line.patch_style(theme.selection)
                } else {
                    line
                }
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
        offset
    }
}

impl Pane for TracePane {
    fn id(&self) -> PaneId {
        PaneId::TRACE
    }

    fn name(&self) -> &'static str {
        "Trace"
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::Right,
            share: 42,
            shown: Shown::Always,
        }
    }

    fn title(&self, cx: &Context) -> String {
        TracePane::title_of(cx.walk)
    }

    fn activate_help(&self) -> &'static str {
        "go back (or forward) to the selected state"
    }

    fn hints(&self, cx: &Context) -> Vec<Hint> {
        if cx.walk.is_none() {
            return unanimated_hints(cx);
        }
        let mut hints = vec![
            Hint::Key(Command::Activate, "go there"),
            Hint::Key(Command::Undo, "undo"),
            Hint::Key(Command::Redo, "redo"),
        ];
        if cx.facts.earlier_walk {
            hints.push(Hint::Key(Command::SwapWalk, "earlier walk"));
        }
        hints.extend([
            Hint::Key(Command::Initial, "initial"),
            Hint::Key(Command::FollowTrace, "follow a trace"),
        ]);
        hints
    }

    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        if cx.walk.is_none() || self.list.navigate(command, self.rows(cx), cx.facts.page) {
            return Effect::None;
        }
        match command {
            Command::Activate => Effect::Goto(self.list.selected),
            _ => Effect::None,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        match cx.walk {
            Some(walk) => self.render(frame, area, cx.theme, walk, cx.facts.focused),
            None => 0,
        }
    }

    fn rows(&self, cx: &Context) -> usize {
        cx.walk.map_or(0, |w| w.path.len() + 1)
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.list
    }
}

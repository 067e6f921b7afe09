//! The Events pane: the current state's moves, numbered, with the
//! components taking part, the event a τ hides and, for moves that would
//! otherwise read the same, the components they change after them; a
//! filter narrows the list.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::super::config::{Command, Theme};
use super::super::engine::Move;
use super::{Effect, List, clip, elide_middle};
use crate::lts::animator::EventKind;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventsPane {
    pub list: List,
    pub filter: String,
}

impl EventsPane {
    /// The moves the filter lets through, by their index in `moves`.
    pub fn visible(&self, moves: &[Move]) -> Vec<usize> {
        let needle = self.filter.to_lowercase();
        moves
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                needle.is_empty()
                    || m.label.to_lowercase().contains(&needle)
                    || m.hidden
                        .as_ref()
                        .is_some_and(|h| h.to_lowercase().contains(&needle))
                    || m.participants
                        .iter()
                        .any(|p| p.own_event.to_lowercase().contains(&needle))
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub fn set_filter(&mut self, filter: &str, moves: &[Move]) {
        self.filter = filter.to_string();
        self.list.selected = 0;
        self.fit(moves);
    }

    /// Keeps the selection on a move the filter shows.
    pub fn fit(&mut self, moves: &[Move]) {
        let visible = self.visible(moves).len();
        self.list.fit(visible);
    }

    pub fn update(&mut self, command: Command, moves: &[Move], page: usize) -> Effect {
        let visible = self.visible(moves);
        if self.list.navigate(command, visible.len(), page) {
            return Effect::None;
        }
        match command {
            Command::Activate => match visible.get(self.list.selected) {
                Some(&i) => Effect::Fire(i),
                None => Effect::Complain("no event to fire".into()),
            },
            _ => Effect::None,
        }
    }

    /// The n-th (from 1) visible move, for the digit keys.
    pub fn nth(&self, n: usize, moves: &[Move]) -> Effect {
        let visible = self.visible(moves);
        match n.checked_sub(1).and_then(|k| visible.get(k)) {
            Some(&i) => Effect::Fire(i),
            None => Effect::Complain(format!(
                "there is no event {n}: this state offers {}",
                visible.len()
            )),
        }
    }

    pub fn title(&self, moves: &[Move]) -> String {
        let visible = self.visible(moves).len();
        if self.filter.is_empty() {
            format!(" Events ({visible}) ")
        } else {
            format!(
                " Events ({visible} of {}, filter “{}”) ",
                moves.len(),
                self.filter
            )
        }
    }

    /// Draws the moves (`None`: not yet described); the first row shown.
    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        moves: Option<&[Move]>,
        why_none: &str,
    ) -> usize {
        let Some(moves) = moves else {
            frame.render_widget(Paragraph::new("computing…").style(theme.dim), area);
            return 0;
        };
        let visible = self.visible(moves);
        if visible.is_empty() {
            let text = if !moves.is_empty() {
                "no event matches the filter (Esc clears it)"
            } else {
                why_none
            };
            frame.render_widget(
                Paragraph::new(text)
                    .style(theme.dim)
                    .wrap(Wrap { trim: true }),
                area,
            );
            return 0;
        }
        // Build only the rows that can show.
        let height = usize::from(area.height);
        let chosen = self.list.selected;
        let offset = self.list.offset(height);
        // Each row shown, with who moves (the event a τ hides, then the
        // components) and what tells moves that read alike apart (their
        // components' states after them): made once, for the column
        // widths and the drawing.
        let rows: Vec<(usize, &Move, String, String)> = visible
            .iter()
            .enumerate()
            .skip(offset)
            .take(height)
            .map(|(n, &i)| {
                let m = &moves[i];
                let slots = m.slots().map(|s| format!("#{}", s + 1));
                let who: Vec<String> = m
                    .hidden
                    .iter()
                    .map(|hidden| format!("‹{hidden}›"))
                    .chain(slots)
                    .collect();
                let after: Vec<String> = m
                    .after
                    .iter()
                    .map(|(slot, text)| format!("#{} {text}", slot + 1))
                    .collect();
                let after = if after.is_empty() {
                    String::new()
                } else {
                    format!("  → {}", after.join(", "))
                };
                (n, m, who.join(" "), after)
            })
            .collect();
        // The labels' column: the longest label, cut only where the
        // pane has not room for a long label beside who moves, and what
        // tells it from its like, in its own row (never to less than half
        // the pane; a τ's short label leaves its long ‹hidden event› to
        // be clipped at the edge).
        let pane = usize::from(area.width);
        let widest_who = rows
            .iter()
            .filter(|(_, m, _, _)| m.label.chars().count() > pane / 2)
            .map(|(_, _, who, after)| who.chars().count() + after.chars().count())
            .max()
            .unwrap_or(0);
        let room = pane.saturating_sub(4 + 2 + widest_who).max(pane / 2);
        let longest = rows
            .iter()
            .map(|(_, m, _, _)| m.label.chars().count())
            .max()
            .unwrap_or(0);
        let width = longest.min(room);
        let lines: Vec<Line> = rows
            .into_iter()
            .map(|(n, m, who, after)| {
                let mut spans = vec![
                    Span::styled(format!("{:>3} ", n + 1), theme.dim),
                    // Cut to the column, so the components moving line up.
                    Span::styled(
                        format!("{:<width$}", elide_middle(&m.label, width)),
                        event_style(theme, m.kind),
                    ),
                    Span::styled(format!("  {who}"), theme.dim),
                ];
                if !after.is_empty() {
                    spans.push(Span::raw(after));
                }
                let line = clip(Line::from(spans), usize::from(area.width));
                if n == chosen {
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

/// How an event of a kind is drawn: τ and ✓ in their own styles.
pub fn event_style(theme: &Theme, kind: EventKind) -> Style {
    match kind {
        EventKind::Visible => Style::default(),
        EventKind::Tau => theme.tau,
        EventKind::Tick => theme.tick,
    }
}

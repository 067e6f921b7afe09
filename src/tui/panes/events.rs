//! The Events pane: the current state's moves, numbered, with the
//! components taking part, the event a τ hides and, for moves that would
//! otherwise read the same, the components they change after them —
//! where that does not fit, the part where they differ (the choice the
//! user makes); a filter narrows the list.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::super::config::{Command, PaneId, Theme};
use super::super::engine::{PartialOrderView, ShownMove};
use super::super::layout::{Column, Placement, Shown};
use super::{Context, Effect, Hint, List, Pane, clip, elide_middle, unanimated_hints};
use crate::lts::animator::EventKind;
use crate::lts::machine::Preserve;

mod marks;

/// The share of the pane's rows the partial order's words may take from
/// a list that needs them.
const MARKS_SHARE: u16 = 2;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventsPane {
    pub list: List,
    pub filter: String,
    /// Mark the moves a search reduced by partial order, keeping this,
    /// follows (the `p` key cycles it).
    pub partial_order: Option<Preserve>,
    /// The rows the list took when last drawn with the marks' words under
    /// it (`None`: every row), for clicks.
    list_lines: Cell<Option<usize>>,
}

impl EventsPane {
    /// The moves the filter lets through, by their index in `moves`.
    pub fn visible(&self, moves: &[ShownMove]) -> Vec<usize> {
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

    pub fn set_filter(&mut self, filter: &str, moves: &[ShownMove]) {
        self.filter = filter.to_string();
        self.list.selected = 0;
        self.fit(moves);
    }

    /// Keeps the selection on a move the filter shows.
    pub fn fit(&mut self, moves: &[ShownMove]) {
        let visible = self.visible(moves).len();
        self.list.fit(visible);
    }

    /// A command among `moves`: moving the selection, or firing it.
    fn respond(&mut self, command: Command, moves: &[ShownMove], page: usize) -> Effect {
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
    pub fn nth(&self, n: usize, moves: &[ShownMove]) -> Effect {
        let visible = self.visible(moves);
        match n.checked_sub(1).and_then(|k| visible.get(k)) {
            Some(&i) => Effect::Fire(i),
            None => Effect::Complain(format!(
                "there is no event {n}: this state offers {}",
                visible.len()
            )),
        }
    }

    fn title_of(&self, moves: &[ShownMove], marks: Option<&PartialOrderView>) -> String {
        let visible = self.visible(moves).len();
        let followed = marks
            .filter(|m| !m.set.is_empty())
            .map(|m| format!(", {} followed", m.followed_count()))
            .unwrap_or_default();
        if self.filter.is_empty() {
            format!(" Events ({visible}{followed}) ")
        } else {
            format!(
                " Events ({visible} of {}{followed}, filter “{}”) ",
                moves.len(),
                self.filter
            )
        }
    }

    /// Draws the moves (`None`: not yet described), with the partial
    /// order's marks and words under them when asked for; the first row
    /// shown.
    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        moves: Option<&[ShownMove]>,
        marks: Option<&PartialOrderView>,
        why_none: &str,
    ) -> usize {
        self.list_lines.set(None);
        let Some(moves) = moves else {
            frame.render_widget(Paragraph::new("computing…").style(theme.dim), area);
            return 0;
        };
        let visible = self.visible(moves);
        let area = match marks {
            Some(view) => {
                let selected = visible.get(self.list.selected).copied();
                let words = marks::lines(view, moves, selected, usize::from(area.width), theme);
                // Half the pane at most, or all the list leaves spare.
                let count = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
                let spare = area.height.saturating_sub(count(visible.len()));
                let rows = count(words.len()).min((area.height / MARKS_SHARE).max(spare));
                let list = Rect {
                    height: area.height - rows,
                    ..area
                };
                let under = Rect {
                    y: area.y + list.height,
                    height: rows,
                    ..area
                };
                frame.render_widget(Paragraph::new(words), under);
                self.list_lines.set(Some(usize::from(list.height)));
                list
            }
            None => area,
        };
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
        // components' states after them, with where they first differ):
        // made once, for the column widths and the drawing.
        let rows: Vec<(usize, &ShownMove, String, String, Option<Parting>)> = visible
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
                (
                    n,
                    m,
                    who.join(" "),
                    after_text(&m.after),
                    difference(m, moves),
                )
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
            .filter(|(_, m, ..)| m.label.chars().count() > pane / 2)
            .map(|(_, _, who, after, _)| who.chars().count() + arrowed(after).chars().count())
            .max()
            .unwrap_or(0);
        // A column for the marks: followed or left out.
        let mark = if marks.is_some() { 2 } else { 0 };
        let room = pane.saturating_sub(4 + mark + 2 + widest_who).max(pane / 2);
        let longest = rows
            .iter()
            .map(|(_, m, ..)| m.label.chars().count())
            .max()
            .unwrap_or(0);
        let width = longest.min(room);
        let lines: Vec<Line> = rows
            .into_iter()
            .map(|(n, m, who, after, differs)| {
                // What follows the label's column: who moves, then what
                // tells the move from its like, both shortened where they
                // do not fit so that the difference still shows.
                let rest = pane.saturating_sub(4 + mark + width + 2);
                let (who, after) = fit_after(&who, &m.after, &after, differs, rest);
                let followed = marks.is_none_or(|view| view.follows(visible[n]));
                let mut spans = vec![Span::styled(format!("{:>3} ", n + 1), theme.dim)];
                if marks.is_some() {
                    spans.push(Span::raw(if followed { "● " } else { "○ " }));
                }
                spans.extend([
                    // Cut to the column, so the components moving line up.
                    Span::styled(
                        format!("{:<width$}", elide_middle(&m.label, width)),
                        event_style(theme, m.kind),
                    ),
                    Span::styled(format!("  {who}"), theme.dim),
                ]);
                if !after.is_empty() {
                    spans.push(Span::raw(arrowed(&after)));
                }
                let mut line = clip(Line::from(spans), usize::from(area.width));
                if !followed {
                    line = line.patch_style(theme.dim);
                }
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

impl Pane for EventsPane {
    fn id(&self) -> PaneId {
        PaneId::EVENTS
    }

    fn name(&self) -> &'static str {
        "Events"
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::Right,
            share: 58,
            shown: Shown::Always,
        }
    }

    fn title(&self, cx: &Context) -> String {
        match cx.walk {
            Some(w) => self.title_of(w.moves(), marks_of(cx, self.partial_order)),
            None => " Events ".to_string(),
        }
    }

    fn activate_help(&self) -> &'static str {
        "fire the selected event"
    }

    fn hints(&self, cx: &Context) -> Vec<Hint> {
        match cx.walk {
            Some(_) => firing_hints(cx),
            None => unanimated_hints(cx),
        }
    }

    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        match cx.walk {
            Some(walk) => self.respond(command, walk.moves(), cx.facts.page),
            None => Effect::None,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        if cx.problem.is_some() {
            return self.render(
                frame,
                area,
                cx.theme,
                Some(&[]),
                None,
                "no events: see the State pane",
            );
        }
        let moves = cx.walk.filter(|w| w.is_current()).map(|w| w.moves());
        self.render(
            frame,
            area,
            cx.theme,
            moves,
            marks_of(cx, self.partial_order),
            &cx.facts.no_event,
        )
    }

    fn rows(&self, cx: &Context) -> usize {
        cx.walk.map_or(0, |w| self.visible(w.moves()).len())
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.list
    }

    fn list_lines(&self) -> Option<usize> {
        self.list_lines.get()
    }
}

/// The partial order marks of the state shown, when they are those
/// asked for (`p` pressed while the engine was busy leaves the state's
/// marks of the mode before until it is shown again: none are drawn).
fn marks_of<'a>(cx: &Context<'a>, asked: Option<Preserve>) -> Option<&'a PartialOrderView> {
    cx.walk
        .filter(|w| w.is_current())
        .and_then(|w| w.shown.as_ref()?.partial_order.as_ref())
        .filter(|view| Some(view.preserve) == asked)
}

/// The status bar's offer in a pane that shows the state's moves.
pub fn firing_hints(cx: &Context) -> Vec<Hint> {
    let mut hints = vec![Hint::Key(Command::Activate, "fire")];
    if cx.facts.events_hidden.is_none() {
        hints.push(Hint::Text("1-9 fire n"));
    }
    hints.extend([
        Hint::Key(Command::Undo, "undo"),
        Hint::Key(Command::RandomStep, "random"),
        Hint::Key(Command::Filter, "filter"),
        Hint::Key(Command::ToggleSymmetry, "symmetry"),
    ]);
    hints
}

/// The components a move changes, after it: `#1 text, #6 text`.
fn after_text(after: &[(usize, String)]) -> String {
    let parts: Vec<String> = after
        .iter()
        .map(|(slot, text)| format!("#{} {text}", slot + 1))
        .collect();
    parts.join(", ")
}

/// The components after a move, as drawn after who moves.
fn arrowed(after: &str) -> String {
    if after.is_empty() {
        String::new()
    } else {
        format!("  → {after}")
    }
}

/// Where the components after a move first differ from another's: the
/// component's place in [`ShownMove::after`] and the character of its text.
type Parting = (usize, usize);

/// Where the components after `m` first differ from those after the
/// move most like it among the moves that read the same (same event,
/// same hidden event). `None` when no other move reads the same.
fn difference(m: &ShownMove, moves: &[ShownMove]) -> Option<Parting> {
    if m.after.is_empty() {
        return None;
    }
    let first_difference = |other: &ShownMove| {
        let parted = m
            .after
            .iter()
            .zip(&other.after)
            .position(|(a, b)| a != b)
            .unwrap_or(m.after.len().min(other.after.len()));
        let common = match (m.after.get(parted), other.after.get(parted)) {
            (Some((slot, a)), Some((other_slot, b))) if slot == other_slot => {
                a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
            }
            _ => 0,
        };
        (parted, common)
    };
    moves
        .iter()
        .filter(|o| !std::ptr::eq(*o, m) && o.label == m.label && o.hidden == m.hidden)
        .map(first_difference)
        .max()
}

/// The fewest characters kept of who moves, where what tells a move from
/// its like needs the room.
const WHO_AT_LEAST: usize = 8;
/// The room that tells a move from its like, taken from who moves where
/// both do not fit.
const AFTER_AT_LEAST: usize = 16;

/// Who moves and what tells the move from its like, in `room`
/// characters (with the arrow between): whole when they fit; else who
/// moves elided in the middle as far as [`WHO_AT_LEAST`] for the
/// components after to have [`AFTER_AT_LEAST`], and those shown around
/// where they differ ([`around`]) rather than cut at the end.
fn fit_after(
    who: &str,
    after: &[(usize, String)],
    text: &str,
    differs: Option<Parting>,
    room: usize,
) -> (String, String) {
    let who_width = who.chars().count();
    let arrow = arrowed("x").chars().count() - 1;
    let Some(differs) = differs.filter(|_| who_width + arrow + text.chars().count() > room) else {
        return (who.to_string(), text.to_string());
    };
    let left = room.saturating_sub(arrow);
    let who_room = who_width.min(left.saturating_sub(AFTER_AT_LEAST).max(WHO_AT_LEAST));
    let who = elide_middle(who, who_room);
    let after_room = left.saturating_sub(who.chars().count());
    (who, around(after, differs, after_room))
}

/// The components after a move in `width` characters, showing where they
/// differ from another move's (`(component, character)`): that
/// component's number, then its text from a little before the
/// difference, `…` where text is left out.
fn around(after: &[(usize, String)], (part, at): Parting, width: usize) -> String {
    let Some((slot, text)) = after.get(part) else {
        return elide_middle(&after_text(after), width);
    };
    let head = format!("#{} ", slot + 1);
    let chars: Vec<char> = text.chars().collect();
    let room = width.saturating_sub(head.chars().count());
    if room < 3 {
        return elide_middle(&after_text(after), width);
    }
    // From the start when the difference lies in its first two thirds;
    // else from a third of the room before it, so that more of what
    // differs shows than of what leads to it.
    let start = if at < room * 2 / 3 || chars.len() <= room {
        0
    } else {
        at.saturating_sub((room - 2) / 3).min(chars.len())
    };
    let mut visible = room - usize::from(start > 0);
    let cut = chars.len() - start > visible;
    if cut {
        visible -= 1;
    }
    let mut out = head;
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..(start + visible).min(chars.len())]);
    if cut {
        out.push('…');
    }
    out
}

/// How an event of a kind is drawn: τ and ✓ in their own styles.
pub fn event_style(theme: &Theme, kind: EventKind) -> Style {
    match kind {
        EventKind::Visible => Style::default(),
        EventKind::Tau => theme.tau,
        EventKind::Tick => theme.tick,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(after: &str) -> ShownMove {
        ShownMove {
            label: "τ".into(),
            kind: EventKind::Tau,
            hidden: Some("getTop.T0.Null".into()),
            participants: Vec::new(),
            after: vec![(0, after.into()), (5, "Top(Null)".into())],
        }
    }

    #[test]
    fn moves_that_read_the_same_show_where_they_differ() {
        let moves = [
            twin("initNode!T0?n!A!Null -> setTop!T0!n -> Thread(T0)"),
            twin("initNode!T0?n!B!Null -> setTop!T0!n -> Thread(T0)"),
            twin("popEmpty!T0 -> unlock!T0 -> Thread(T0)"),
        ];
        let at = difference(&moves[0], &moves);
        assert_eq!(at, Some((0, 14)));
        assert_eq!(difference(&moves[2], &moves), Some((0, 0)));
        let shown = |m: &ShownMove, width| around(&m.after, difference(m, &moves).unwrap(), width);
        assert_eq!(shown(&moves[0], 30), "#1 initNode!T0?n!A!Null -> se…");
        assert_eq!(shown(&moves[0], 14), "#1 …?n!A!Null…");
        assert_eq!(shown(&moves[1], 14), "#1 …?n!B!Null…");
        assert_eq!(shown(&moves[2], 14), "#1 popEmpty!T…");
        // Who moves gives way to the difference, down to a few letters.
        let who = "‹getTop.T0.Null› #1 #6";
        let text = after_text(&moves[0].after);
        let (who, after) = fit_after(who, &moves[0].after, &text, at, 30);
        assert_eq!(after.chars().count(), AFTER_AT_LEAST, "{after}");
        assert!(after.contains("!A!"), "{after}");
        assert_eq!(who.chars().count() + 4 + after.chars().count(), 30);
        let (who, _) = fit_after("‹getTop.T0.Null› #1 #6", &moves[0].after, &text, at, 20);
        assert_eq!(who.chars().count(), WHO_AT_LEAST, "{who}");
    }

    #[test]
    fn a_difference_in_a_later_component_shows_that_component() {
        let mut other = twin("initNode!T0?n!A!Null");
        other.after[1].1 = "Top(N1)".into();
        let moves = [twin("initNode!T0?n!A!Null"), other];
        let at = difference(&moves[1], &moves);
        assert_eq!(at, Some((1, 5)));
        assert_eq!(around(&moves[1].after, at.unwrap(), 12), "#6 Top(N1)");
    }
}

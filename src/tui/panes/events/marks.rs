//! The partial order marks' words under the Events pane's list: what
//! the reduction keeps and how many moves it follows, the selected
//! move followed or left out and why, then how the stubborn set's
//! components joined it (or why every move is followed).

use ratatui::text::{Line, Span};

use super::super::super::config::Theme;
use super::super::super::engine::components;
use super::super::super::engine::{PartialOrderView, ShownMove};
use super::super::super::wrap::wrap_line;
use crate::lts::animator::step_text;

/// The lines under the list, wrapped to `width`; `selected` is the
/// selected move's index in `moves`.
pub(super) fn lines(
    view: &PartialOrderView,
    moves: &[ShownMove],
    selected: Option<usize>,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut text: Vec<(String, ratatui::style::Style)> = Vec::new();
    let head = if !view.applies {
        format!("Partial order: {}", view.kept)
    } else if moves.len() <= 1 {
        format!("Partial order ({})", view.kept)
    } else if view.set.is_empty() {
        format!(
            "Partial order ({}): follows every move ({})",
            view.kept,
            moves.len()
        )
    } else {
        format!(
            "Partial order ({}): follows {} of {}, the stubborn set of {}",
            view.kept,
            view.followed_count(),
            moves.len(),
            components(&view.set)
        )
    };
    text.push((head, theme.title));
    if let Some(i) = selected.filter(|_| !view.set.is_empty())
        && let Some(m) = moves.get(i)
    {
        let event = step_text(&m.label, m.hidden.as_deref());
        let own: Vec<usize> = m.slots().collect();
        let line = if view.follows(i) {
            let members: Vec<usize> = own
                .iter()
                .copied()
                .filter(|s| view.set.contains(s))
                .collect();
            format!("{event}: followed, a move of {}", components(&members))
        } else {
            let shared: Vec<_> = m
                .participants
                .iter()
                .filter(|p| view.set.contains(&p.slot))
                .collect();
            if shared.is_empty() {
                format!(
                    "{event} ({}): left out, it shares no component with {}, so it is \
                     independent of every move they can make now and enables none they wait on",
                    components(&own),
                    components(&view.set)
                )
            } else {
                // It meets the set only by steps that leave a component
                // as it is (a read), which commute with the set's there.
                let steps: Vec<String> = shared
                    .iter()
                    .map(|p| format!("#{}'s {}", p.slot + 1, p.own_event))
                    .collect();
                format!(
                    "{event} ({}): left out, it meets the set of {} only by {}, which {} the \
                     component as it is and commute{} with every move of the set there",
                    components(&own),
                    components(&view.set),
                    steps.join(" and "),
                    if steps.len() == 1 { "leaves" } else { "leave" },
                    if steps.len() == 1 { "s" } else { "" },
                )
            }
        };
        text.push((line, ratatui::style::Style::default()));
    }
    text.extend(view.why.iter().map(|why| (format!("  {why}"), theme.dim)));
    text.into_iter()
        .flat_map(|(line, style)| wrap_line(&Line::from(Span::styled(line, style)), width, 2))
        .collect()
}

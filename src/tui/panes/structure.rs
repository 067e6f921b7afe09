//! The symmetry view under `--symmetry structural`: the communication
//! graph of the animated process as text — each component in its orbit's
//! colour (numbered too, for `NO_COLOR`) with the components it shares
//! events with — the validated group, and the standard patterns with why
//! each fails. The facts come from the symmetry layer's structural
//! analysis ([`StructureView`]); this module only lays them out.

use ratatui::text::{Line, Span};

use super::super::config::Theme;
use super::super::model::StructureView;

/// The most components listed (a ring of a thousand is summed up).
const LISTED: usize = 200;

/// The view's lines.
pub fn lines(theme: &Theme, view: &StructureView) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::styled(
            "The communication graph: who shares events with whom, and its symmetries.",
            theme.title,
        ),
        Line::from(vec![
            Span::styled("group     ", theme.title),
            Span::raw(view.group.clone()),
        ]),
        Line::styled(
            format!(
                "          the graph's own automorphisms: order {}",
                view.graph_order
            ),
            theme.dim,
        ),
        Line::styled(
            "The animator shows every state; `symcsp explore` and `symcsp check` with \
             --symmetry structural search one state per orbit of this group.",
            theme.dim,
        ),
        Line::default(),
        Line::styled(
            format!(
                "components, by orbit ({} orbit{})",
                view.orbits,
                if view.orbits == 1 { "" } else { "s" }
            ),
            theme.title,
        ),
    ];
    let mut order: Vec<usize> = (0..view.components.len()).collect();
    order.sort_by_key(|&c| (view.components[c].1, c));
    for &c in order.iter().take(LISTED) {
        let (name, orbit, neighbours) = &view.components[c];
        let colour = theme.cells[orbit % theme.cells.len().max(1)];
        let near = if neighbours.is_empty() {
            "shares no event".to_string()
        } else {
            format!("shares events with {}", neighbours.join(", "))
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:>3} ■ {name}", orbit + 1), colour),
            Span::styled(format!("  {near}"), theme.dim),
        ]));
    }
    if view.components.len() > LISTED {
        lines.push(Line::styled(
            format!(
                "  … and {} more (`symcsp symmetries` lists every orbit)",
                view.components.len() - LISTED
            ),
            theme.dim,
        ));
    }
    if !view.patterns.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled("patterns", theme.title));
        for (name, failure) in &view.patterns {
            lines.push(match failure {
                None => Line::from(vec![
                    Span::raw(format!("  {name}  ")),
                    Span::styled("holds", theme.passed),
                ]),
                Some(why) => Line::from(vec![
                    Span::raw(format!("  {name}  ")),
                    Span::styled(format!("fails: {why}"), theme.failed),
                ]),
            });
        }
    }
    lines
}

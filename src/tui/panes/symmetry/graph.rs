//! The Graph section: the state as a graph, components in their cells'
//! colours and references as arrows.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::config::Theme;
use crate::tui::engine::StateSymmetry;
use crate::tui::wrap::wrap_line;

/// The state as a graph: components in their cells' colours (and
/// marked with their cell's number), references as arrows.
pub(super) fn graph(theme: &Theme, x: &StateSymmetry, width: usize) -> Vec<Line<'static>> {
    use crate::explain::drawing::Role;
    let legend = Line::styled(
        "each component with its final cell; an arrow where a variable holds another \
         component's identity (next=me); shared values listed below",
        theme.dim,
    );
    // Prose: wrapped flush left (the drawing's lines hang).
    let mut lines = wrap_line(&legend, width, 0);
    lines.push(Line::default());
    // Without colour, a component's cell is written after it.
    let colourless = theme.cell(0).fg.is_none();
    lines.extend(x.graph.iter().map(|line| {
        let mut spans = Vec::with_capacity(line.spans.len());
        for span in &line.spans {
            let style = match span.role {
                Role::Component {
                    cell: Some(cell), ..
                } => theme.cell(cell),
                Role::Component { cell: None, .. } => Style::default(),
                Role::Edge => theme.moved,
                Role::Mark => theme.dim,
                Role::Text => Style::default(),
            };
            spans.push(Span::styled(span.text.clone(), style));
            if let (
                true,
                Role::Component {
                    cell: Some(cell), ..
                },
            ) = (colourless, span.role)
            {
                spans.push(Span::styled(format!(" ‹c{}›", cell + 1), theme.dim));
            }
        }
        Line::from(spans)
    }));
    lines
}

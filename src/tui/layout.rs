//! Where the panes go: a pure function of the screen's size and the
//! layout settings (column widths, a maximised pane, the symmetry view),
//! and the [`Layout`] a drawing returns — each pane's rectangle and the
//! first row its list showed — which the mouse is hit-tested against.

use ratatui::layout::{Constraint, Layout as Split, Position, Rect};

use super::config::Pane;

/// The smallest terminal the animator draws in.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// What decides where the panes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub size: (u16, u16),
    pub widths: [u16; 3],
    /// The focused pane fills the screen.
    pub maximised: Option<Pane>,
    pub symmetry_open: bool,
}

/// Below this width the symmetry view takes the whole screen (the keys
/// that step still work).
pub const SYMMETRY_BESIDE_EVENTS: u16 = 100;

/// Where each pane is drawn.
pub fn areas(settings: Settings) -> Vec<(Pane, Rect)> {
    let (width, height) = settings.size;
    let main = Rect::new(0, 0, width, height.saturating_sub(2));
    if let Some(pane) = settings.maximised {
        return vec![(pane, main)];
    }
    if settings.symmetry_open {
        if width < SYMMETRY_BESIDE_EVENTS {
            return vec![(Pane::Symmetry, main)];
        }
        // The view takes the Script and State columns: it shows the
        // state itself, beside its representative.
        let [view, right] = Split::horizontal([
            Constraint::Fill(settings.widths[0] + settings.widths[1]),
            Constraint::Fill(settings.widths[2]),
        ])
        .areas(main);
        let [events, trace] =
            Split::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(right);
        return vec![
            (Pane::Symmetry, view),
            (Pane::Events, events),
            (Pane::Trace, trace),
        ];
    }
    let columns = Split::horizontal(settings.widths.map(Constraint::Fill)).split(main);
    let left =
        Split::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).split(columns[0]);
    let right =
        Split::vertical([Constraint::Percentage(58), Constraint::Percentage(42)]).split(columns[2]);
    vec![
        (Pane::Script, left[0]),
        (Pane::Checks, left[1]),
        (Pane::State, columns[1]),
        (Pane::Events, right[0]),
        (Pane::Trace, right[1]),
    ]
}

/// The screen column (0, 1, 2) a pane sits in, for resizing.
pub fn column_of(pane: Pane) -> usize {
    match pane {
        Pane::Script | Pane::Checks => 0,
        Pane::State | Pane::Symmetry => 1,
        Pane::Events | Pane::Trace => 2,
    }
}

/// A pane as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub pane: Pane,
    pub rect: Rect,
    /// The first row of its list shown.
    pub first_row: usize,
}

/// The panes as last drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    pub regions: Vec<Region>,
}

/// A click or wheel turn on a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub pane: Pane,
    /// The list row under the pointer (not on the border).
    pub row: Option<usize>,
}

impl Layout {
    pub fn hit(&self, column: u16, row: u16) -> Option<Hit> {
        let region = self
            .regions
            .iter()
            .find(|r| r.rect.contains(Position { x: column, y: row }))?;
        let inside = row > region.rect.y && row + 1 < region.rect.bottom();
        Some(Hit {
            pane: region.pane,
            row: inside.then(|| region.first_row + usize::from(row - region.rect.y - 1)),
        })
    }
}

/// The panes shown, in Tab order.
pub fn order(settings: Settings) -> Vec<Pane> {
    let shown = areas(settings);
    Pane::ALL
        .into_iter()
        .filter(|p| shown.iter().any(|(q, _)| q == p))
        .collect()
}

/// The pane next to `pane` on the left or right, if one is shown: the
/// nearest whose rows overlap it most.
pub fn beside(settings: Settings, pane: Pane, right: bool) -> Option<Pane> {
    let shown = areas(settings);
    let (_, from) = shown.iter().find(|(p, _)| *p == pane)?;
    let overlap = |r: &Rect| {
        let top = from.y.max(r.y);
        let bottom = from.bottom().min(r.bottom());
        bottom.saturating_sub(top)
    };
    shown
        .iter()
        .filter(|(_, r)| {
            if right {
                r.x >= from.right()
            } else {
                r.right() <= from.x
            }
        })
        .min_by_key(|(_, r)| {
            let distance = if right {
                r.x - from.right()
            } else {
                from.x - r.right()
            };
            (distance, u16::MAX - overlap(r))
        })
        .map(|(p, _)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            size: (120, 40),
            widths: [24, 40, 36],
            maximised: None,
            symmetry_open: false,
        }
    }

    #[test]
    fn panes_have_neighbours_and_an_order() {
        let s = settings();
        assert_eq!(
            order(s),
            [
                Pane::Script,
                Pane::State,
                Pane::Events,
                Pane::Trace,
                Pane::Checks
            ]
        );
        assert_eq!(beside(s, Pane::State, true), Some(Pane::Events));
        assert_eq!(beside(s, Pane::State, false), Some(Pane::Script));
        assert_eq!(beside(s, Pane::Trace, false), Some(Pane::State));
        assert_eq!(beside(s, Pane::Events, true), None);
    }

    #[test]
    fn the_symmetry_view_takes_the_left_columns_or_the_whole_screen() {
        let open = Settings {
            symmetry_open: true,
            ..settings()
        };
        assert_eq!(order(open), [Pane::Symmetry, Pane::Events, Pane::Trace]);
        let narrow = Settings {
            size: (80, 24),
            ..open
        };
        assert_eq!(order(narrow), [Pane::Symmetry]);
    }

    #[test]
    fn a_click_finds_its_pane_and_its_row() {
        let layout = Layout {
            regions: vec![Region {
                pane: Pane::Trace,
                rect: Rect::new(10, 5, 20, 10),
                first_row: 7,
            }],
        };
        assert_eq!(
            layout.hit(12, 8),
            Some(Hit {
                pane: Pane::Trace,
                row: Some(9)
            })
        );
        assert_eq!(layout.hit(12, 5).unwrap().row, None, "the border");
        assert_eq!(layout.hit(2, 2), None);
    }
}

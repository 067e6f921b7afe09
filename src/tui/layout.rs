//! Where the panes go: a pure function of the screen's size, the layout
//! settings (column widths, a maximised pane, the symmetry view) and each
//! pane's [`Placement`], and the [`Layout`] a drawing returns — each
//! pane's rectangle and the first row its list showed — which the mouse
//! is hit-tested against.

use ratatui::layout::{Constraint, Layout as Split, Position, Rect};

use super::config::PaneId;

/// The smallest terminal the animator draws in.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// A screen column. The screen has three, whose widths the user sets;
/// the symmetry view's panes span the first two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Left,
    Middle,
    Right,
    /// The left and middle columns as one: a pane there is wide, and
    /// takes the whole screen on a narrow one.
    LeftAndMiddle,
}

/// When a pane is on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// While the symmetry view is closed.
    Plain,
    /// While the symmetry view is open.
    Symmetry,
    Always,
}

/// Where a pane asks to go: its column, its share of the column's height
/// (in percent when the column's panes' shares add up to 100; otherwise
/// in proportion) and when it is shown. Panes of one column stack in the
/// registry's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub column: Column,
    pub share: u16,
    pub shown: Shown,
}

/// What decides where the panes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings<'a> {
    pub size: (u16, u16),
    pub widths: [u16; 3],
    /// The focused pane fills the screen.
    pub maximised: Option<PaneId>,
    pub symmetry_open: bool,
    /// Every pane's placement, in Tab order.
    pub placements: &'a [(PaneId, Placement)],
}

/// Below this width a wide pane (the symmetry view) takes the whole
/// screen (the keys that step still work).
pub const SYMMETRY_BESIDE_EVENTS: u16 = 100;

/// Where each pane is drawn.
pub fn areas(settings: Settings) -> Vec<(PaneId, Rect)> {
    let (width, height) = settings.size;
    let main = Rect::new(0, 0, width, height.saturating_sub(2));
    if let Some(pane) = settings.maximised {
        return vec![(pane, main)];
    }
    let shown: Vec<(PaneId, Placement)> = settings
        .placements
        .iter()
        .copied()
        .filter(|(_, p)| match p.shown {
            Shown::Always => true,
            Shown::Plain => !settings.symmetry_open,
            Shown::Symmetry => settings.symmetry_open,
        })
        .collect();
    let [left, middle, right] = settings.widths;
    let wide = shown.iter().any(|(_, p)| p.column == Column::LeftAndMiddle);
    // Each column: its width and the panes that stack in it.
    let columns: Vec<(u16, Vec<(PaneId, u16)>)> = if wide && width < SYMMETRY_BESIDE_EVENTS {
        vec![(1, stack(&shown, &[Column::LeftAndMiddle]))]
    } else if wide {
        let spanned = [Column::LeftAndMiddle, Column::Left, Column::Middle];
        vec![
            (left + middle, stack(&shown, &spanned)),
            (right, stack(&shown, &[Column::Right])),
        ]
    } else {
        vec![
            (left, stack(&shown, &[Column::Left])),
            (middle, stack(&shown, &[Column::Middle])),
            (right, stack(&shown, &[Column::Right])),
        ]
    };
    let columns: Vec<_> = columns
        .into_iter()
        .filter(|(_, panes)| !panes.is_empty())
        .collect();
    let rects = Split::horizontal(columns.iter().map(|(w, _)| Constraint::Fill(*w))).split(main);
    let mut areas = Vec::new();
    for ((_, panes), &column) in columns.iter().zip(rects.iter()) {
        let total: u32 = panes.iter().map(|&(_, share)| u32::from(share)).sum();
        let heights = panes.iter().map(|&(_, share)| {
            let percent = u32::from(share) * 100 / total.max(1);
            Constraint::Percentage(percent as u16)
        });
        let cells = Split::vertical(heights).split(column);
        areas.extend(panes.iter().map(|(id, _)| *id).zip(cells.iter().copied()));
    }
    areas
}

/// The panes of `shown` in `columns`, in order, with their shares.
fn stack(shown: &[(PaneId, Placement)], columns: &[Column]) -> Vec<(PaneId, u16)> {
    shown
        .iter()
        .filter(|(_, p)| columns.contains(&p.column))
        .map(|(id, p)| (*id, p.share))
        .collect()
}

/// The width setting (0, 1, 2) that resizing a pane in `column` changes.
pub fn width_of(column: Column) -> usize {
    match column {
        Column::Left => 0,
        Column::Middle | Column::LeftAndMiddle => 1,
        Column::Right => 2,
    }
}

/// A pane as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub pane: PaneId,
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
    pub pane: PaneId,
    /// The list row under the pointer (not on the border).
    pub row: Option<usize>,
    /// The row of the pane's inside under the pointer, from 0 (not on
    /// the border).
    pub line: Option<usize>,
}

impl Layout {
    pub fn hit(&self, column: u16, row: u16) -> Option<Hit> {
        let region = self
            .regions
            .iter()
            .find(|r| r.rect.contains(Position { x: column, y: row }))?;
        let inside = row > region.rect.y && row + 1 < region.rect.bottom();
        let line = inside.then(|| usize::from(row - region.rect.y - 1));
        Some(Hit {
            pane: region.pane,
            row: line.map(|line| region.first_row + line),
            line,
        })
    }
}

/// The panes shown, in Tab order.
pub fn order(settings: Settings) -> Vec<PaneId> {
    let shown = areas(settings);
    settings
        .placements
        .iter()
        .map(|(id, _)| *id)
        .filter(|p| shown.iter().any(|(q, _)| q == p))
        .collect()
}

/// The pane next to `pane` on the left or right, if one is shown: the
/// nearest whose rows overlap it most.
pub fn beside(settings: Settings, pane: PaneId, right: bool) -> Option<PaneId> {
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

    /// The standard panes' placements, in Tab order.
    const PLACEMENTS: [(PaneId, Placement); 6] = [
        (PaneId::SCRIPT, place(Column::Left, 55, Shown::Plain)),
        (PaneId::STATE, place(Column::Middle, 100, Shown::Plain)),
        (
            PaneId::SYMMETRY,
            place(Column::LeftAndMiddle, 100, Shown::Symmetry),
        ),
        (PaneId::EVENTS, place(Column::Right, 58, Shown::Always)),
        (PaneId::TRACE, place(Column::Right, 42, Shown::Always)),
        (PaneId::CHECKS, place(Column::Left, 45, Shown::Plain)),
    ];

    const fn place(column: Column, share: u16, shown: Shown) -> Placement {
        Placement {
            column,
            share,
            shown,
        }
    }

    fn settings() -> Settings<'static> {
        Settings {
            placements: &PLACEMENTS,
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
                PaneId::SCRIPT,
                PaneId::STATE,
                PaneId::EVENTS,
                PaneId::TRACE,
                PaneId::CHECKS
            ]
        );
        assert_eq!(beside(s, PaneId::STATE, true), Some(PaneId::EVENTS));
        assert_eq!(beside(s, PaneId::STATE, false), Some(PaneId::SCRIPT));
        assert_eq!(beside(s, PaneId::TRACE, false), Some(PaneId::STATE));
        assert_eq!(beside(s, PaneId::EVENTS, true), None);
    }

    #[test]
    fn the_symmetry_view_takes_the_left_columns_or_the_whole_screen() {
        let open = Settings {
            symmetry_open: true,
            ..settings()
        };
        assert_eq!(
            order(open),
            [PaneId::SYMMETRY, PaneId::EVENTS, PaneId::TRACE]
        );
        let narrow = Settings {
            size: (80, 24),
            ..open
        };
        assert_eq!(order(narrow), [PaneId::SYMMETRY]);
    }

    #[test]
    fn a_click_finds_its_pane_and_its_row() {
        let layout = Layout {
            regions: vec![Region {
                pane: PaneId::TRACE,
                rect: Rect::new(10, 5, 20, 10),
                first_row: 7,
            }],
        };
        assert_eq!(
            layout.hit(12, 8),
            Some(Hit {
                pane: PaneId::TRACE,
                row: Some(9),
                line: Some(2),
            })
        );
        assert_eq!(layout.hit(12, 5).unwrap().row, None, "the border");
        assert_eq!(layout.hit(2, 2), None);
    }

    #[test]
    fn the_screen_is_shared_as_the_panes_ask() {
        let s = Settings {
            size: (100, 42),
            widths: [25, 50, 25],
            ..settings()
        };
        let rect = |pane| areas(s).into_iter().find(|(p, _)| *p == pane).unwrap().1;
        assert_eq!(rect(PaneId::SCRIPT), Rect::new(0, 0, 25, 22));
        assert_eq!(rect(PaneId::CHECKS), Rect::new(0, 22, 25, 18));
        assert_eq!(rect(PaneId::STATE), Rect::new(25, 0, 50, 40));
        // A fourth pane in a column of shares adding up to 100 takes its
        // part in proportion.
        let mut four = PLACEMENTS.to_vec();
        four.push((PaneId("notes"), place(Column::Middle, 25, Shown::Always)));
        let s = Settings {
            placements: &four,
            ..s
        };
        let rect = |pane| areas(s).into_iter().find(|(p, _)| *p == pane).unwrap().1;
        assert_eq!(rect(PaneId::STATE), Rect::new(25, 0, 50, 32));
        assert_eq!(rect(PaneId("notes")), Rect::new(25, 32, 50, 8));
    }
}

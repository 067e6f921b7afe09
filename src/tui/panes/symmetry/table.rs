//! The n-value tables of a round of step 2: one per cell, a column per
//! entry headed by what it counts, entries numbered (with a legend) when
//! their labels do not fit, and rows too wide folded under the entries.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::cut::Cut;
use crate::symmetry::rep::NValue;
use crate::tui::config::Theme;
use crate::tui::engine::StateSymmetry;

/// Each column of an n-value table as wide as its head or its widest
/// count; one list of widths a group (variable).
fn column_widths(heads: &[Vec<String>], rows: &[&NValue]) -> Vec<Vec<usize>> {
    heads
        .iter()
        .enumerate()
        .map(|(g, group)| {
            group
                .iter()
                .enumerate()
                .map(|(k, head)| {
                    rows.iter()
                        .filter_map(|nv| nv.groups.get(g)?.get(k))
                        .map(|n| n.to_string().len())
                        .chain([head.chars().count()])
                        .max()
                        .unwrap_or(1)
                })
                .collect()
        })
        .collect()
}

/// One row of an n-value table: `cells` right-aligned in `widths`,
/// groups apart by a bar.
fn table_row(widths: &[Vec<usize>], cells: &[String]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (g, group) in widths.iter().enumerate() {
        if g > 0 {
            out.push_str(" │ ");
        }
        for (k, &w) in group.iter().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            out.push_str(&format!("{:>w$}", cells.get(at).map_or("", String::as_str)));
            at += 1;
        }
    }
    out
}

/// Where a row of an n-value table laid out in `widths` may break: the
/// gap between each two columns, as `(start, length)` in characters —
/// the same places in every row, so rows broken there stay aligned.
fn row_gaps(widths: &[Vec<usize>]) -> Vec<(usize, usize)> {
    let mut gaps = Vec::new();
    let mut at = 0;
    for (g, group) in widths.iter().enumerate() {
        if g > 0 {
            gaps.push((at, 3));
            at += 3;
        }
        for (k, &w) in group.iter().enumerate() {
            if k > 0 {
                gaps.push((at, 1));
                at += 1;
            }
            at += w;
        }
    }
    gaps
}

/// `row` folded at `gaps` into pieces of at most `room` characters.
/// A piece ends, where it can, between two groups (variables) rather
/// than inside one, and never so that the row's last piece is a single
/// entry alone; a column wider than `room` is alone on its piece. The
/// choice depends only on the gaps, so every row of a table breaks at
/// the same columns.
fn fold_row(row: &str, gaps: &[(usize, usize)], room: usize) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let end = chars.len();
    let mut pieces = Vec::new();
    let mut start = 0;
    while end - start > room {
        let ahead: Vec<(usize, usize)> = gaps
            .iter()
            .copied()
            .filter(|&(at, _)| at > start && at - start <= room)
            .collect();
        // A break whose rest fits on one piece must leave more than one
        // entry there (a gap after it).
        let leaves_one_alone = |&(at, len): &(usize, usize)| {
            end - (at + len) <= room && !gaps.iter().any(|&(g, _)| g > at)
        };
        let between_groups = |&(_, len): &(usize, usize)| len > 1;
        let chosen = ahead
            .iter()
            .rev()
            .find(|g| between_groups(g) && !leaves_one_alone(g))
            .or_else(|| ahead.iter().rev().find(|g| !leaves_one_alone(g)))
            .or_else(|| ahead.last())
            .or_else(|| gaps.iter().find(|(at, _)| *at > start));
        let Some(&(at, len)) = chosen else {
            break;
        };
        pieces.push(chars[start..at].iter().collect());
        start = (at + len).min(end);
    }
    pieces.push(chars[start..].iter().collect());
    pieces
}

/// The least room an n-value table's entries are given beside the label
/// column, however narrow the pane.
const LEAST_ROOM: usize = 12;

/// One cell's n-values in a round of step 2: what each entry counts
/// (a group per variable) and its components' rows.
pub(super) struct Table<'t> {
    pub(super) cell: usize,
    pub(super) labels: &'t [Vec<String>],
    pub(super) rows: &'t [&'t NValue],
}

/// The numbers the entries of a stage's n-value tables go by where the
/// labels do not fit as heads, each label numbered once for the whole
/// stage, so that one legend serves every table.
#[derive(Default)]
pub(super) struct Legend {
    labels: Vec<String>,
}

impl Legend {
    /// The number of `label`, numbering it if it is new.
    fn number(&mut self, label: &str) -> usize {
        match self.labels.iter().position(|l| l == label) {
            Some(k) => k + 1,
            None => {
                self.labels.push(label.to_string());
                self.labels.len()
            }
        }
    }
}

/// The width of an n-value table's label column: the cell or the
/// component's number, then its state.
const NAME: usize = 26;
const LABEL_COLUMN: usize = 7 + NAME + 1;

/// The n-values of a cell's components as a table: a column per entry,
/// headed by what it counts, groups (one per variable) apart. A table
/// too wide for the pane with its labels as heads has its entries
/// numbered, the numbers explained under the first table that uses them
/// (later ones say "as above"); a row still too wide goes on under the
/// label column, so the label column stays clear.
pub(super) fn n_value_table(
    theme: &Theme,
    x: &StateSymmetry,
    table: &Table,
    width: usize,
    legend: &mut Legend,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let Table {
        cell: j,
        labels,
        rows,
    } = *table;
    let groups = labels.len();
    let heads: Vec<String> = labels.iter().flatten().cloned().collect();
    let wide = LABEL_COLUMN
        + table_row(&column_widths(labels, rows), &heads)
            .chars()
            .count();
    let numbered = wide > width && !heads.is_empty();
    let known = legend.labels.len();
    let heads_by_group: Vec<Vec<String>> = if numbered {
        labels
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|label| legend.number(label).to_string())
                    .collect()
            })
            .collect()
    } else {
        labels.to_vec()
    };
    let heads: Vec<String> = heads_by_group.iter().flatten().cloned().collect();
    let widths = column_widths(&heads_by_group, rows);
    let row = |cells: Vec<String>| table_row(&widths, &cells);
    // A row too wide goes on under the entries, clear of the labels,
    // every row broken at the same columns.
    let gaps = row_gaps(&widths);
    let room = width.saturating_sub(LABEL_COLUMN).max(LEAST_ROOM);
    let folded = |label: Vec<Span<'static>>, entries: String, style: Style| {
        fold_row(&entries, &gaps, room)
            .into_iter()
            .enumerate()
            .map(|(k, piece)| {
                let mut spans = if k == 0 {
                    label.clone()
                } else {
                    vec![Span::raw(" ".repeat(LABEL_COLUMN))]
                };
                spans.push(Span::styled(piece, style));
                Line::from(spans)
            })
            .collect::<Vec<_>>()
    };
    let mut lines = folded(
        vec![
            Span::styled(format!("  c{:<4}", j + 1), theme.cell(j)),
            Span::styled(format!("{:<NAME$} ", ""), theme.dim),
        ],
        row(heads),
        theme.dim,
    );
    for nv in rows.iter() {
        let counts: Vec<String> = nv
            .groups
            .iter()
            .take(groups)
            .flatten()
            .map(u32::to_string)
            .collect();
        let label = vec![
            Span::styled(format!("   #{:<3}", nv.component + 1), theme.dim),
            Span::raw(format!("{} ", cut.fit(&x.state[nv.component], NAME))),
        ];
        if groups == 0 {
            let mut spans = label;
            spans.push(Span::raw("⟨⟩  (no distinguished value)"));
            lines.push(Line::from(spans));
        } else {
            lines.extend(folded(label, row(counts), Style::default()));
        }
    }
    if numbered {
        lines.push(legend_line(theme, legend, known));
    }
    lines
}

/// What a table's numbered entries count: those numbered from `known`
/// on, or "as above" when an earlier table's legend said it all.
fn legend_line(theme: &Theme, legend: &Legend, known: usize) -> Line<'static> {
    let new: Vec<String> = legend.labels[known..]
        .iter()
        .enumerate()
        // A no-break space keeps each number with its entry.
        .map(|(k, label)| format!("{}\u{a0}{label}", known + k + 1))
        .collect();
    let text = match (known, new.is_empty()) {
        (_, true) => "entries as above".to_string(),
        (0, false) => format!("entries: {}", new.join(" · ")),
        (_, false) => format!("entries as above, and {}", new.join(" · ")),
    };
    Line::styled(format!("        {text}"), theme.dim)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `groups` (each a list of entry widths) with every entry
    /// written as its width's digit, and its gaps.
    fn laid(groups: &[&[usize]]) -> (String, Vec<(usize, usize)>) {
        let widths: Vec<Vec<usize>> = groups.iter().map(|g| g.to_vec()).collect();
        let cells: Vec<String> = widths
            .iter()
            .flatten()
            .map(|&w| w.to_string().repeat(w))
            .collect();
        (table_row(&widths, &cells), row_gaps(&widths))
    }

    #[test]
    fn a_row_folds_between_groups_rather_than_inside_one() {
        // Three groups of three entries: `1 1 1 │ 1 1 1 │ 1 1 1`, 21
        // characters. At 16 a break inside the second group would fit
        // more on the first piece; the group's boundary is taken.
        let (row, gaps) = laid(&[&[1, 1, 1], &[1, 1, 1], &[1, 1, 1]]);
        assert_eq!(row, "1 1 1 │ 1 1 1 │ 1 1 1");
        assert_eq!(fold_row(&row, &gaps, 16), ["1 1 1 │ 1 1 1", "1 1 1"]);
        assert_eq!(fold_row(&row, &gaps, 8), ["1 1 1", "1 1 1", "1 1 1"]);
    }

    #[test]
    fn the_last_piece_is_never_one_entry_alone() {
        // One group of six entries, 11 characters, in 9: breaking at the
        // last gap that fits would leave the sixth entry alone.
        let (row, gaps) = laid(&[&[1, 1, 1, 1, 1, 1]]);
        assert_eq!(fold_row(&row, &gaps, 9), ["1 1 1 1", "1 1"]);
        // A last group of one entry goes down with a neighbour.
        let (row, gaps) = laid(&[&[1, 1, 1], &[1, 1], &[1]]);
        assert_eq!(row, "1 1 1 │ 1 1 │ 1");
        let pieces = fold_row(&row, &gaps, 12);
        assert_eq!(pieces.len(), 2, "{pieces:?}");
        assert_ne!(pieces[1].trim(), "1", "{pieces:?}");
    }

    #[test]
    fn every_row_of_a_table_breaks_at_the_same_columns_and_loses_nothing() {
        let widths = vec![vec![2, 1, 3], vec![1, 1], vec![2, 2, 2, 1]];
        let gaps = row_gaps(&widths);
        let rows = [
            ["10", "1", "100", "1", "2", "12", "13", "14", "1"],
            ["7", "", "1", "0", "0", "1", "1", "1", "0"],
        ]
        .map(|r| table_row(&widths, &r.map(str::to_string)));
        for room in 4..30 {
            let folded: Vec<Vec<String>> = rows.iter().map(|r| fold_row(r, &gaps, room)).collect();
            let lengths = |p: &Vec<String>| p.iter().map(|s| s.chars().count()).collect::<Vec<_>>();
            assert_eq!(lengths(&folded[0]), lengths(&folded[1]), "room {room}");
            for (row, pieces) in rows.iter().zip(&folded) {
                let kept: String = pieces
                    .concat()
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '│')
                    .collect();
                let all: String = row
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '│')
                    .collect();
                assert_eq!(kept, all, "room {room}");
            }
        }
    }
}

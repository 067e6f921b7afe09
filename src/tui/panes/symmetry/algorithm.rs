//! The Algorithm section: the representative algorithm one stage at a
//! time — the partitions of steps 1, 2 and 3 with what made them, then
//! the type orderings and the permutation — and step 3 made by hand.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::cut::Cut;
use super::representative::unique_line;
use super::stages;
use super::table::{Legend, Table, n_value_table};
use crate::explain::stages::{SIZES_JOINED_BY, stage_sizes};
use crate::symmetry::perm::pairs_text;
use crate::symmetry::rep::{NValue, Step};
use crate::tui::config::Theme;
use crate::tui::engine::{Chosen, StateSymmetry};

/// A partition, one cell a line: `c2  #4 Node(N1, B, N0) · #3 …`.
fn partition(theme: &Theme, x: &StateSymmetry, cells: &[Vec<usize>]) -> Vec<Line<'static>> {
    cells
        .iter()
        .enumerate()
        .map(|(j, cell)| {
            let members: Vec<String> = cell
                .iter()
                .map(|&c| format!("#{} {}", c + 1, x.state[c]))
                .collect();
            Line::from(vec![
                Span::styled(format!("  c{:<3}", j + 1), theme.cell(j)),
                Span::styled("[ ", theme.cell(j)),
                Span::raw(members.join("  ·  ")),
                Span::styled(" ]", theme.cell(j)),
            ])
        })
        .collect()
}

/// The cell sizes stage by stage on one line, the stage shown marked
/// (and bracketed, so the mark shows without colour); the last stage,
/// the orderings, has no partition of its own.
fn summary(theme: &Theme, x: &StateSymmetry, stage: usize) -> Line<'static> {
    let mut spans = vec![Span::styled("cell sizes  ", theme.dim)];
    for (k, sizes) in stage_sizes(&x.trace).into_iter().enumerate() {
        if k > 0 {
            spans.push(Span::styled(SIZES_JOINED_BY, theme.dim));
        }
        spans.push(if k == stage {
            Span::styled(format!("[{sizes}]"), theme.selection)
        } else {
            Span::raw(sizes)
        });
    }
    Line::from(spans)
}

/// Step 3 by hand: what each split split off, beside the algorithm's
/// choice, and what came of it.
fn by_hand(theme: &Theme, hand: &Chosen) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::default(),
        Line::styled(
            "Step 3 by hand (a: split off another member; Esc: the algorithm's own)",
            theme.title,
        ),
    ];
    lines.extend(hand.splits.iter().map(|l| Line::from(format!("  {l}"))));
    let style = if hand.differs {
        theme.changed
    } else {
        Style::default()
    };
    lines.extend(
        hand.outcome
            .iter()
            .map(|l| Line::styled(format!("  {l}"), style)),
    );
    lines
}

/// Stage `stage` of the algorithm of `x` (with step 3 by `hand`, if it
/// was made so).
pub(super) fn algorithm(
    theme: &Theme,
    x: &StateSymmetry,
    hand: Option<&Chosen>,
    stage: usize,
    width: usize,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let total = stages(x);
    let step3 = matches!(x.trace.steps.get(stage), Some(Step::Individualise { .. }));
    let place = if stage < total {
        format!("stage {} of {total}", stage + 1)
    } else {
        format!("after stage {total}: the orderings")
    };
    let mut lines = vec![
        Line::styled(
            format!(
                "{place}   (] next · [ back · # go to{} · Esc: the representative)",
                if step3 {
                    " · a: split off another"
                } else {
                    ""
                }
            ),
            theme.dim,
        ),
        summary(theme, x, stage),
    ];
    lines.push(Line::default());
    match x.trace.steps.get(stage) {
        Some(Step::Shapes { cells }) => {
            lines.push(Line::styled(
                format!(
                    "Step 1: the components by control state and the values that are not \
                     distinguished — {}",
                    super::super::plural(cells.len() as u64, "cell", "cells")
                ),
                theme.title,
            ));
            lines.extend(partition(theme, x, cells));
        }
        Some(Step::Refine {
            n_values,
            cells,
            split,
        }) => {
            lines.extend(refine(theme, x, stage, n_values, *split, width, cut));
            lines.extend(partition(theme, x, cells));
        }
        Some(Step::Individualise {
            cell,
            members,
            component,
            by_hand,
            fully_symmetric,
            cells,
        }) => {
            lines.push(Line::styled(
                format!(
                    "Step 3: cell {} has {} components that nothing tells apart: #{} is taken \
                     out into a cell of its own{}",
                    cell + 1,
                    members.len(),
                    component + 1,
                    if *by_hand { ", chosen by hand" } else { "" }
                ),
                theme.title,
            ));
            // The sentence says whether the cell was fully symmetric; the
            // mark says it at a glance (and without colour).
            let (mark, style) = match fully_symmetric {
                Some(true) => ("✓", theme.passed),
                Some(false) => ("✗", theme.failed),
                None => ("?", theme.running),
            };
            for sentence in x
                .words
                .get(stage)
                .map_or(&[][..], |w| w.sentences.as_slice())
            {
                lines.push(Line::styled(format!("  {mark} {sentence}"), style));
            }
            lines.extend(partition(theme, x, cells));
        }
        None => lines.extend(orderings(theme, x)),
    }
    if let Some(hand) = hand.filter(|_| step3 || stage == total) {
        lines.extend(by_hand(theme, hand));
    }
    lines
}

/// A round of step 2 at stage `stage`: each cell's n-values (from
/// `n_values`) as a table, and whether the round `split` a cell, with the
/// splits in words (the partition after it is the caller's to add).
fn refine(
    theme: &Theme,
    x: &StateSymmetry,
    stage: usize,
    n_values: &[NValue],
    split: bool,
    width: usize,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let round = x.trace.steps[..stage]
        .iter()
        .rev()
        .take_while(|s| matches!(s, Step::Refine { .. }))
        .count()
        + 1;
    lines.push(Line::styled(
        format!(
            "Step 2, round {round}: each component's n-value counts, for each of its \
             variables, the variables of each cell holding the same value"
        ),
        theme.title,
    ));
    let words = x.words.get(stage);
    let before = x.trace.steps[..stage].last().map_or(&[][..], |s| s.cells());
    // One table per cell before the round: its components' n-values
    // under columns naming what each entry counts (Example 37);
    // numbered entries are explained once for the stage.
    let mut legend = Legend::default();
    for (j, cell) in before.iter().enumerate() {
        let labels = words
            .and_then(|w| w.columns.iter().find(|(c, _)| *c == j))
            .map_or(&[][..], |(_, groups)| groups.as_slice());
        let rows: Vec<&NValue> = n_values
            .iter()
            .filter(|nv| cell.contains(&nv.component))
            .collect();
        let table = Table {
            cell: j,
            labels,
            rows: &rows,
        };
        lines.extend(n_value_table(theme, x, &table, width, &mut legend, cut));
    }
    lines.push(Line::default());
    if split {
        lines.push(Line::styled(
            "→ components with different n-values split apart:",
            theme.changed,
        ));
        for sentence in words.map_or(&[][..], |w| w.sentences.as_slice()) {
            lines.push(Line::from(format!("  • {sentence}")));
        }
    } else {
        lines.push(Line::styled(
            "→ no cell splits: step 2 is done for now",
            theme.dim,
        ));
    }
    lines
}

/// The last stage: the type orderings, the permutation they give, and
/// whether the representative is unique.
fn orderings(theme: &Theme, x: &StateSymmetry) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    lines.push(Line::styled(
        "The type orderings: each type's values in the order the ordered components \
         hold them, then those that appear nowhere",
        theme.title,
    ));
    for (ty, ordering, appeared) in &x.orderings {
        let (seen, rest) = ordering.split_at((*appeared).min(ordering.len()));
        let text = match (seen.is_empty(), rest.is_empty()) {
            (_, true) => seen.join(", "),
            (true, false) => {
                format!("none appears; in any order: {}", rest.join(", "))
            }
            (false, false) => format!(
                "{}, then (appearing nowhere, in any order) {}",
                seen.join(", "),
                rest.join(", ")
            ),
        };
        lines.push(Line::from(format!("  {ty}: {text}")));
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        "The permutation maps the k-th value of each ordering to the type's k-th value:",
        theme.title,
    ));
    if x.permutation.is_empty() {
        lines.push(Line::from("  the identity"));
    }
    for (ty, pairs) in &x.permutation {
        lines.push(Line::from(format!("  {ty}: {}", pairs_text(pairs))));
    }
    lines.push(Line::default());
    lines.push(unique_line(theme, x));
    lines
}

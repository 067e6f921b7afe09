//! The Representative section: the state beside its representative
//! (rows paired by α, moved values marked), the permutation, whether the
//! representative is unique, another strategy's representative; and what
//! the view says of a process that is not symmetric.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::cut::Cut;
use crate::symmetry::perm::{PAIRS_JOINED_BY, alpha_moves, alpha_text, maps_to};
use crate::tui::config::Theme;
use crate::tui::engine::{StateSymmetry, StrategyView};
use crate::tui::model::SymmetryAbout;
use crate::tui::wrap::wrap_line;

pub(super) fn not_symmetric(
    theme: &Theme,
    about: &SymmetryAbout,
    problem: &str,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        "This process is not reduced by symmetry, so there is no representative to show.",
        theme.title,
    )];
    if !about.types.is_empty() {
        lines.push(Line::from(format!("types asked for ({}):", about.origin)));
        lines.extend(about.types.iter().map(|t| Line::from(format!("  {t}"))));
    }
    // What automatic mode could not permute, and where the script names it.
    lines.extend(
        about
            .left_out
            .iter()
            .map(|l| Line::styled(format!("  {l}"), theme.error)),
    );
    lines.push(Line::default());
    lines.extend(
        problem
            .lines()
            .map(|l| Line::styled(l.to_string(), theme.error)),
    );
    lines
}

/// The types and where they came from, wrapped under the types.
fn heading(theme: &Theme, about: &SymmetryAbout, width: usize) -> Vec<Line<'static>> {
    let types = Line::from(vec![
        Span::styled("types  ", theme.title),
        Span::raw(about.types.join("; ")),
    ]);
    let mut lines = wrap_line(&types, width, "types  ".len());
    lines.push(Line::styled(
        format!("       {}; group of {}", about.origin, about.group_order),
        theme.dim,
    ));
    for left in &about.left_out {
        lines.push(Line::styled(format!("       {left}"), theme.dim));
    }
    lines
}

/// The state beside its representative, each component on the line of
/// its image, then the permutation.
pub(super) fn representative(
    theme: &Theme,
    about: &SymmetryAbout,
    x: &StateSymmetry,
    width: usize,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let mut lines = heading(theme, about, width);
    lines.push(Line::default());
    let n = x.state.len();
    let column = (width.saturating_sub(14) / 2).max(12);
    let left = x.state.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let left = left.min(column);
    lines.push(Line::styled(
        format!("     {:<left$}        representative", "state"),
        theme.dim,
    ));
    for i in 0..n {
        let j = x.alpha[i];
        let mut spans = vec![Span::styled(format!("{:>3}  ", i + 1), theme.dim)];
        spans.extend(marked(&cut.fit(&x.state[i], left), &x.moved, theme));
        spans.push(Span::styled(format!("  ↦ {:>3}  ", j + 1), theme.dim));
        spans.extend(marked(
            &cut.fit(&x.representative[j], column),
            &x.moved,
            theme,
        ));
        lines.push(Line::from(spans));
    }
    lines.push(Line::default());
    if x.permutation.is_empty() {
        lines.push(Line::from(
            "permutation  the identity: this state is its own representative",
        ));
    } else {
        lines.push(Line::styled("permutation", theme.title));
        for (ty, pairs) in &x.permutation {
            let mut spans = vec![Span::raw(format!("  {ty}: "))];
            for (k, (from, to)) in pairs.iter().enumerate() {
                if k > 0 {
                    spans.push(Span::raw(PAIRS_JOINED_BY));
                }
                let style = if from == to {
                    Style::default()
                } else {
                    theme.moved
                };
                spans.push(Span::styled(maps_to(from, to), style));
            }
            lines.push(Line::from(spans));
        }
        if !alpha_moves(&x.alpha).is_empty() {
            lines.push(Line::from(format!(
                "  components (α): {}",
                alpha_text(&x.alpha)
            )));
        }
    }
    lines.push(Line::default());
    lines.push(unique_line(theme, x));
    if let Some(s) = &x.strategy {
        lines.extend(strategy_lines(theme, s, width, cut));
    }
    lines
}

/// Another strategy's representative, under the algorithm's.
fn strategy_lines(theme: &Theme, s: &StrategyView, width: usize, cut: &Cut) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::default(),
        Line::styled(
            format!("the {} strategy (y: the next)", s.name),
            theme.title,
        ),
        Line::styled(format!("  {}", s.summary), theme.dim),
    ];
    if s.same_as_algorithm {
        lines.push(Line::from("  the same representative as the algorithm's"));
        return lines;
    }
    lines.push(Line::styled(
        "  another representative of the same class:",
        theme.running,
    ));
    let column = width.saturating_sub(7).max(12);
    for (i, text) in s.representative.iter().enumerate() {
        lines.push(Line::from(vec![
            Span::styled(format!("{:>3}  ", i + 1), theme.dim),
            Span::raw(cut.fit(text, column)),
        ]));
    }
    if !s.moves.is_empty() {
        lines.push(Line::from(format!("  permutation: {}", s.moves)));
    }
    lines
}

pub(super) fn unique_line(theme: &Theme, x: &StateSymmetry) -> Line<'static> {
    if x.unique_guaranteed {
        Line::styled(
            "unique: guaranteed (Proposition 50: unique identities, and every step-3 split was \
             of a fully symmetric cell)",
            theme.passed,
        )
    } else if !x.unique_identities {
        Line::styled(
            "unique: not guaranteed — a symmetric set lacks unique identities here (Definition \
             46); a symmetric state may get another representative",
            theme.running,
        )
    } else if !x.values_read {
        Line::styled(
            "unique: not guaranteed — the state holds distinguished values in sets, maps or \
             functions, which the algorithm does not read; a symmetric state may get another \
             representative",
            theme.running,
        )
    } else {
        Line::styled(
            "unique: not guaranteed — a step-3 split was of a cell that is not fully symmetric \
             (Definition 49); see the algorithm (])",
            theme.running,
        )
    }
}

/// `text` with every word naming a moved value marked.
fn marked(text: &str, moved: &[String], theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut plain = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphanumeric() || chars[i] == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if moved.contains(&word) {
                if !plain.is_empty() {
                    spans.push(Span::raw(std::mem::take(&mut plain)));
                }
                spans.push(Span::styled(word, theme.moved));
            } else {
                plain.push_str(&word);
            }
        } else {
            plain.push(chars[i]);
            i += 1;
        }
    }
    if !plain.is_empty() {
        spans.push(Span::raw(plain));
    }
    spans
}

//! The Symmetry view: the current state beside its representative (rows
//! paired by α, the values the permutation moves marked in both
//! columns), the permutation per type and where the types came from; the
//! representative algorithm stage by stage (`]` and `[`); the answer to
//! "why did these two states get different representatives?"; the state
//! as a graph. Every fact comes from the engine, which reads it off the
//! symmetry layer; this module only lays it out.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::config::{Command, Theme};
use super::super::engine::{Chosen, Compared, Position, StateSymmetry, StrategyView};
use super::super::model::SymmetryAbout;
use super::List;
use crate::symmetry::by_hand::split_offs;
use crate::symmetry::perm::{PAIRS_JOINED_BY, alpha_moves, alpha_text, maps_to, pairs_text};
use crate::symmetry::rep::{NValue, Step};
use crate::symmetry::stages::{SIZES_JOINED_BY, stage_sizes};
use crate::tui::wrap::wrap_line;

/// What the view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Section {
    /// The state beside its representative.
    #[default]
    Representative,
    /// The algorithm, one stage at a time.
    Algorithm,
    /// The comparison with the marked state.
    Compare,
    /// The state as a graph.
    Graph,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymmetryPane {
    pub open: bool,
    pub section: Section,
    /// The algorithm's stage shown (see [`stages`]).
    pub stage: usize,
    pub scroll: List,
    pub compared: Option<Box<Compared>>,
    /// Step 3 by hand on the state shown: the algorithm's stages with
    /// the choices made, shown in place of its own.
    pub hand: Option<Box<Chosen>>,
    /// How far text cut to its column is scrolled sideways, in
    /// characters.
    pub sideways: usize,
}

/// How far one key scrolls cut text sideways.
const SIDEWAYS_STEP: usize = 8;

/// The view's lines laid out for a width, with what the pane must say
/// of them: how far the longest text cut to its column ran past it.
pub struct Laid {
    pub lines: Vec<Line<'static>>,
    /// Characters of the longest cut text that its column does not show
    /// (0: nothing was cut).
    pub overflow: usize,
}

/// What drawing the view reads besides the pane.
pub struct View<'a> {
    pub theme: &'a Theme,
    pub about: &'a SymmetryAbout,
    pub x: Option<&'a StateSymmetry>,
    /// The keys that scroll sideways, left and right, to name them.
    pub keys: (&'a str, &'a str),
}

/// The stages of the algorithm a teacher steps through: the partition
/// after step 1, after each round of step 2 and each split of step 3,
/// then the type orderings and the permutation.
pub fn stages(x: &StateSymmetry) -> usize {
    x.trace.steps.len() + 1
}

impl SymmetryPane {
    /// Steps the algorithm forward or back (opening its section); `x`
    /// is the state's explanation, `None` while the engine computes it
    /// (the stage is then kept within it when it comes). A note when
    /// there is no stage further that way.
    pub fn step(&mut self, forward: bool, x: Option<&StateSymmetry>) -> Option<String> {
        let x = self.algorithm_of(x).cloned();
        let x = x.as_ref();
        let last = x.map_or(usize::MAX, |x| stages(x) - 1);
        if self.section != Section::Algorithm {
            self.section = Section::Algorithm;
            self.stage = if forward || x.is_none() { 0 } else { last };
        } else if forward {
            if self.stage >= last {
                return Some("that was the algorithm's last stage ([ goes back)".into());
            }
            self.stage += 1;
        } else {
            if self.stage == 0 {
                return Some("that was the algorithm's first stage (] goes on)".into());
            }
            self.stage -= 1;
        }
        self.scroll = List::default();
        None
    }

    /// Keeps the stage within the algorithm of a newly shown state
    /// (`at`, of the reduced walk with `reduced`); step 3 by hand was
    /// for the state before.
    pub fn fit(&mut self, x: Option<&StateSymmetry>, at: Position, reduced: bool) {
        if self
            .hand
            .as_ref()
            .is_some_and(|h| h.at != at || h.reduced != reduced)
        {
            self.hand = None;
        }
        if let Some(x) = self.algorithm_of(x) {
            self.stage = self.stage.min(stages(x) - 1);
        }
    }

    /// The explanation whose stages the view steps through: with step 3
    /// made by hand, the one its choices give; else `x`, the state's.
    pub fn algorithm_of<'a>(&'a self, x: Option<&'a StateSymmetry>) -> Option<&'a StateSymmetry> {
        match &self.hand {
            Some(hand) => Some(&hand.symmetry),
            None => x,
        }
    }

    /// Shows stage `number` (from 1) of the algorithm of `x`; why not,
    /// when there is no such stage.
    pub fn go_to(&mut self, number: &str, x: Option<&StateSymmetry>) -> Result<(), String> {
        let Some(x) = self.algorithm_of(x) else {
            return Err("the representative is still being computed: try again".into());
        };
        let total = stages(x);
        match number.trim().parse::<usize>() {
            Ok(n) if (1..=total).contains(&n) => {
                self.show(Section::Algorithm);
                self.stage = n - 1;
                Ok(())
            }
            _ => Err(format!(
                "`{}` is not a stage: this state's algorithm has stages 1 to {total}",
                number.trim()
            )),
        }
    }

    /// The choices that make the step-3 split shown split off the next
    /// member of its cell by number (after the last, the first), the
    /// splits before it as they were: pressed again and again, every
    /// member comes round, the algorithm's own among them. Why not, when
    /// the stage shown is not a step-3 split.
    pub fn next_choice(&self, x: &StateSymmetry) -> Result<Vec<usize>, String> {
        let shown = self.algorithm_of(Some(x)).unwrap_or(x);
        let not_here = || {
            if split_offs(&shown.trace).is_empty() {
                "steps 1 and 2 told every component apart here: step 3 made no split to choose"
                    .to_string()
            } else {
                "step 3 by hand works at a step-3 split: go to one (] and [, or its number)"
                    .to_string()
            }
        };
        if self.section != Section::Algorithm {
            return Err(not_here());
        }
        let Some(Step::Individualise { .. }) = shown.trace.steps.get(self.stage) else {
            return Err(not_here());
        };
        let k = shown.trace.steps[..self.stage]
            .iter()
            .filter(|s| matches!(s, Step::Individualise { .. }))
            .count();
        let splits = split_offs(&shown.trace);
        // By number: the cell lists the member split off first, so its
        // own order changes with the choice.
        let (component, members) = splits[k];
        let after = members.iter().filter(|&&m| m > component).min();
        let next = after.or(members.iter().min()).copied().unwrap_or(component);
        let mut choices: Vec<usize> = splits[..k].iter().map(|s| s.0).collect();
        choices.push(next);
        Ok(choices)
    }

    /// Shows `section` from its top.
    pub fn show(&mut self, section: Section) {
        self.section = section;
        self.scroll = List::default();
        self.sideways = 0;
    }

    /// Scrolls the text cut to its column sideways (`right`), no further
    /// than the longest runs (`overflow`); why not, when nothing is cut.
    pub fn scroll_sideways(&mut self, right: bool, overflow: usize) -> Result<(), String> {
        if overflow == 0 && self.sideways == 0 {
            return Err("nothing here is cut short: there is nothing to scroll sideways".into());
        }
        self.sideways = if right {
            (self.sideways + SIDEWAYS_STEP).min(overflow)
        } else {
            self.sideways.saturating_sub(SIDEWAYS_STEP)
        };
        Ok(())
    }

    /// What the pane's bottom edge says when it holds more than it
    /// shows: lines above and below the rows shown (`height` from the
    /// scroll offset), and text cut short, with the keys that scroll it
    /// (`keys`: left and right). Empty when everything shows.
    pub fn indicator(&self, laid: &Laid, height: usize, keys: (&str, &str)) -> String {
        let offset = self.offset(laid.lines.len());
        let below = laid.lines.len().saturating_sub(offset + height);
        let mut parts = Vec::new();
        if offset > 0 {
            parts.push(format!("↑ {offset} above"));
        }
        if below > 0 {
            parts.push(format!(
                "↓ {below} more {}",
                if below == 1 { "line" } else { "lines" }
            ));
        }
        if laid.overflow > 0 || self.sideways > 0 {
            let (left, right) = keys;
            let at = if self.sideways > 0 {
                format!(" (at {})", self.sideways)
            } else {
                String::new()
            };
            parts.push(format!("text cut: {left} {right} scroll sideways{at}"));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" {} ", parts.join(" · "))
        }
    }

    /// The first line shown of `rows`.
    fn offset(&self, rows: usize) -> usize {
        self.scroll.selected.min(rows.saturating_sub(1))
    }

    pub fn update(&mut self, command: Command, rows: usize, page: usize) -> bool {
        match command {
            Command::Cancel if self.section != Section::Representative => {
                self.show(Section::Representative);
                true
            }
            command => self.scroll.navigate(command, rows, page),
        }
    }

    pub fn title(&self, reduced: bool) -> String {
        let what = match self.section {
            Section::Representative => "state and representative",
            Section::Algorithm => "the representative algorithm",
            Section::Compare => "comparison with the marked state",
            Section::Graph => "the state as a graph",
        };
        let walk = if reduced { " · reduced walk" } else { "" };
        format!(" Symmetry — {what}{walk} ")
    }

    /// Draws the view into `area`, and on the row below it (the pane's
    /// bottom edge) what it holds beyond what shows (see
    /// [`SymmetryPane::indicator`]).
    pub fn draw(&self, frame: &mut Frame, area: Rect, view: &View) {
        let laid = self.laid_out(view.theme, view.about, view.x, usize::from(area.width));
        let offset = self.offset(laid.lines.len());
        let note = self.indicator(&laid, usize::from(area.height), view.keys);
        let lines: Vec<Line> = laid.lines.into_iter().skip(offset).collect();
        frame.render_widget(Paragraph::new(lines), area);
        if !note.is_empty() {
            let edge = Rect {
                y: area.y + area.height,
                height: 1,
                ..area
            }
            .intersection(frame.area());
            frame.render_widget(
                Paragraph::new(Line::styled(note, view.theme.title).right_aligned()),
                edge,
            );
        }
    }

    /// Everything the view shows, as lines of `width` columns: a line
    /// wider than that goes on at its own indentation (prose), or two
    /// columns in (the graph's components, so the break shows); lines
    /// laid out already (an n-value table's rows, hanging under their
    /// label column) fit as they are.
    pub fn laid_out(
        &self,
        theme: &Theme,
        about: &SymmetryAbout,
        x: Option<&StateSymmetry>,
        width: usize,
    ) -> Laid {
        let step_in = if self.section == Section::Graph { 2 } else { 0 };
        let cut = Cut::new(self.sideways);
        let lines = self
            .content(theme, about, x, width, &cut)
            .iter()
            .flat_map(|line| {
                let text = line.to_string();
                let indent = text.len() - text.trim_start_matches(' ').len();
                wrap_line(line, width, indent + step_in)
            })
            .collect();
        Laid {
            lines,
            overflow: cut.overflow.get(),
        }
    }

    /// What the view shows, laid out for `width` columns where it can be
    /// (the state beside its representative, the graph's chains).
    fn content(
        &self,
        theme: &Theme,
        about: &SymmetryAbout,
        x: Option<&StateSymmetry>,
        width: usize,
        cut: &Cut,
    ) -> Vec<Line<'static>> {
        if let Some(structure) = &about.structure {
            return super::structure::lines(theme, structure);
        }
        if let Some(problem) = &about.problem {
            return not_symmetric(theme, about, problem);
        }
        if let (Section::Compare, Some(c)) = (self.section, &self.compared) {
            return comparison(theme, c, width, cut);
        }
        let Some(x) = x else {
            return vec![Line::styled("computing the representative…", theme.dim)];
        };
        match self.section {
            Section::Representative => representative(theme, about, x, width, cut),
            Section::Algorithm => {
                let hand = self.hand.as_deref();
                let shown = hand.map_or(x, |h| &h.symmetry);
                algorithm(theme, shown, hand, self.stage, width, cut)
            }
            Section::Compare => match &self.compared {
                Some(c) => comparison(theme, c, width, cut),
                None => vec![Line::styled(
                    "mark a state with m, go to another, then press = to compare them",
                    theme.dim,
                )],
            },
            Section::Graph => graph(theme, x, width),
        }
    }
}

fn not_symmetric(theme: &Theme, about: &SymmetryAbout, problem: &str) -> Vec<Line<'static>> {
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
fn representative(
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

fn unique_line(theme: &Theme, x: &StateSymmetry) -> Line<'static> {
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
    } else {
        Line::styled(
            "unique: not guaranteed — a step-3 split was of a cell that is not fully symmetric \
             (Definition 49); see the algorithm (])",
            theme.running,
        )
    }
}

/// Texts cut to their columns, shown from `from` characters in (the
/// view scrolled sideways), and how far the longest ran past its column
/// — for the pane to say so and to scroll no further.
struct Cut {
    from: usize,
    overflow: Cell<usize>,
}

impl Cut {
    fn new(from: usize) -> Cut {
        Cut {
            from,
            overflow: Cell::new(0),
        }
    }

    /// `text` in `width` characters: padded, or cut, each cut end marked
    /// `…`.
    fn fit(&self, text: &str, width: usize) -> String {
        let count = text.chars().count();
        if count <= width {
            return format!("{text:<width$}");
        }
        let over = count - width;
        self.overflow.set(self.overflow.get().max(over));
        let from = self.from.min(over);
        let mut shown: Vec<char> = text.chars().skip(from).take(width).collect();
        if let Some(first) = shown.first_mut().filter(|_| from > 0) {
            *first = '…';
        }
        if let Some(last) = shown.last_mut().filter(|_| from < over) {
            *last = '…';
        }
        shown.into_iter().collect()
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

/// `row` folded at `gaps` into pieces of at most `room` characters (a
/// column wider than that alone on its piece).
fn fold_row(row: &str, gaps: &[(usize, usize)], room: usize) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    while chars.len() - start > room {
        let ahead = || gaps.iter().filter(|(at, _)| *at > start);
        let fits = ahead().rfind(|(at, _)| at - start <= room);
        let Some(&(at, len)) = fits.or_else(|| ahead().next()) else {
            break;
        };
        pieces.push(chars[start..at].iter().collect());
        start = (at + len).min(chars.len());
    }
    pieces.push(chars[start..].iter().collect());
    pieces
}

/// The least room an n-value table's entries are given beside the label
/// column, however narrow the pane.
const LEAST_ROOM: usize = 12;

/// One cell's n-values in a round of step 2: what each entry counts
/// (a group per variable) and its components' rows.
struct Table<'t> {
    cell: usize,
    labels: &'t [Vec<String>],
    rows: &'t [&'t NValue],
}

/// The numbers the entries of a stage's n-value tables go by where the
/// labels do not fit as heads, each label numbered once for the whole
/// stage, so that one legend serves every table.
#[derive(Default)]
struct Legend {
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
fn n_value_table(
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
fn algorithm(
    theme: &Theme,
    x: &StateSymmetry,
    hand: Option<&Chosen>,
    stage: usize,
    width: usize,
    cut: &Cut,
) -> Vec<Line<'static>> {
    let total = stages(x);
    let step3 = matches!(x.trace.steps.get(stage), Some(Step::Individualise { .. }));
    let mut lines = vec![
        Line::styled(
            format!(
                "stage {} of {total}   (] next · [ back · # go to{} · Esc: the representative)",
                stage + 1,
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
                    super::plural(cells.len() as u64, "cell", "cells")
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
            if *split {
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
        None => {
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
        }
    }
    if let Some(hand) = hand.filter(|_| step3 || stage + 1 == total) {
        lines.extend(by_hand(theme, hand));
    }
    lines
}

/// The answer to a comparison.
fn comparison(theme: &Theme, c: &Compared, width: usize, cut: &Cut) -> Vec<Line<'static>> {
    let mut lines = vec![
        Line::styled(c.headline.clone(), theme.title),
        Line::styled(
            "the first state is the marked one, the second this one",
            theme.dim,
        ),
    ];
    lines.extend(c.sentences.iter().map(|s| Line::from(format!("  {s}"))));
    if let Some(exact) = &c.exact {
        lines.push(Line::styled(format!("  {exact}"), theme.title));
    }
    let mapped = c.headline.starts_with("same") || c.headline.starts_with("symmetric");
    if mapped {
        lines.push(Line::default());
        lines.push(Line::styled(
            "the permutation mapping the first state onto the second",
            theme.dim,
        ));
        if c.permutation.is_empty() {
            lines.push(Line::from("  the identity"));
        }
        lines.extend(
            c.permutation
                .iter()
                .map(|p| Line::styled(format!("  {p}"), theme.moved)),
        );
        // α says which component became which: the states' lists are not
        // in the same order.
        lines.push(Line::from(format!(
            "  components (α): {}",
            alpha_text(&c.alpha)
        )));
    }
    if let Some(parting) = &c.parting {
        let (step, left, right) = (&parting.step, &parting.marked, &parting.here);
        lines.push(Line::default());
        lines.push(Line::styled(
            format!("the partitions side by side {step}"),
            theme.title,
        ));
        let half = (width.saturating_sub(4) / 2).max(20);
        lines.push(Line::styled(
            format!(
                "  {:<half$}  {}",
                "first state (marked)", "second state (this one)"
            ),
            theme.dim,
        ));
        for j in 0..left.len().max(right.len()) {
            let cell = |cells: &[Vec<usize>], texts: &[String]| {
                cells.get(j).map_or(String::new(), |cell| {
                    let members: Vec<&str> = cell.iter().map(|&c| texts[c].as_str()).collect();
                    format!("c{} [ {} ]", j + 1, members.join(" · "))
                })
            };
            let (a, b) = (cell(left, &c.marked), cell(right, &c.here));
            // What the answer points at: cells of different sizes or
            // holding what the evidence names (no permutation relates
            // them), and the cell step 3 split.
            let size = |cells: &[Vec<usize>]| cells.get(j).map_or(0, Vec::len);
            let named = |cells: &[Vec<usize>], components: &[usize]| {
                cells
                    .get(j)
                    .is_some_and(|cell| cell.iter().any(|c| components.contains(c)))
            };
            let (in_first, in_second) = &parting.evidence;
            let mark =
                if size(left) != size(right) || named(left, in_first) || named(right, in_second) {
                    "≠"
                } else if parting.split == Some(j) {
                    "◆"
                } else {
                    " "
                };
            let style = if mark == " " {
                theme.cell(j)
            } else {
                theme.changed
            };
            lines.push(Line::from(vec![
                Span::styled(format!("  {}", cut.fit(&a, half)), style),
                Span::styled(format!("{mark} "), theme.changed),
                Span::styled(cut.fit(&b, half), style),
            ]));
        }
        lines.push(Line::styled(
            "≠ where the states differ · ◆ the cell step 3 split",
            theme.dim,
        ));
    }
    if !c.n_values.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled(
            "the cell the round split, before it, sorted by n-value",
            theme.title,
        ));
        lines.extend(c.n_values.iter().map(|l| Line::from(format!("  {l}"))));
    }
    lines.push(Line::default());
    lines.extend(c.representatives.iter().enumerate().map(|(k, l)| {
        let style = if k == 0 {
            theme.title
        } else if l.chars().nth(3) == Some('*') {
            theme.changed
        } else {
            Style::default()
        };
        Line::styled(l.clone(), style)
    }));
    lines
}

/// The state as a graph: components in their cells' colours (and
/// marked with their cell's number), references as arrows.
fn graph(theme: &Theme, x: &StateSymmetry, width: usize) -> Vec<Line<'static>> {
    use crate::symmetry::drawing::Role;
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

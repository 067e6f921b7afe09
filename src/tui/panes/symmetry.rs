//! The Symmetry view: the current state beside its representative (rows
//! paired by α, the values the permutation moves marked in both
//! columns), the permutation per type and where the types came from; the
//! representative algorithm stage by stage (`]` and `[`); the answer to
//! "why did these two states get different representatives?"; the state
//! as a graph. Every fact comes from the engine, which reads it off the
//! symmetry layer; this module only lays it out.
//!
//! This file holds the pane's state and its keys, and lays the view out;
//! each section's drawing is a child module (`representative`,
//! `algorithm` with its n-value tables in `table`, `comparison`,
//! `graph`), and `cut` the text cut to its column.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::super::config::{Command, PaneId, Theme};
use super::super::engine::{Chosen, Compared, Position, StateSymmetry};
use super::super::layout::{Column, Placement, Shown};
use super::super::model::SymmetryAbout;
use super::{Context, Effect, Hint, List, Pane, unanimated_hints};
use crate::symmetry::rep::Step;
use crate::tui::wrap::wrap_line;

mod algorithm;
mod comparison;
mod cut;
mod graph;
mod representative;
mod table;

use algorithm::algorithm;
use comparison::comparison;
use cut::Cut;
use graph::graph;
use representative::{not_symmetric, representative};

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
struct View<'a> {
    pub theme: &'a Theme,
    pub about: &'a SymmetryAbout,
    pub x: Option<&'a StateSymmetry>,
    /// The keys that scroll sideways, left and right, to name them.
    pub keys: (&'a str, &'a str),
}

/// The stages of the algorithm, numbered as `symcsp rep`'s exports
/// number them: the partition after step 1, after each round of step 2
/// and each split of step 3.
pub fn stages(x: &StateSymmetry) -> usize {
    x.trace.steps.len()
}

/// The pages a teacher steps through: every stage, then the type
/// orderings and the permutation (after the last stage, not a stage of
/// its own, as the exports close with them).
pub fn pages(x: &StateSymmetry) -> usize {
    stages(x) + 1
}

impl SymmetryPane {
    /// Steps the algorithm forward or back (opening its section); `x`
    /// is the state's explanation, `None` while the engine computes it
    /// (the stage is then kept within it when it comes). A note when
    /// there is no stage further that way.
    pub fn step(&mut self, forward: bool, x: Option<&StateSymmetry>) -> Option<String> {
        let x = self.algorithm_of(x).cloned();
        let x = x.as_ref();
        let last = x.map_or(usize::MAX, |x| pages(x) - 1);
        if self.section != Section::Algorithm {
            self.section = Section::Algorithm;
            self.stage = if forward || x.is_none() { 0 } else { last };
        } else if forward {
            if self.stage >= last {
                return Some("that was the orderings and the permutation, after the last stage ([ goes back)".into());
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
            self.stage = self.stage.min(pages(x) - 1);
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
            if shown.trace.split_offs().is_empty() {
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
        let splits = shown.trace.split_offs();
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

    fn title_of(&self, reduced: bool) -> String {
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
    fn render(&self, frame: &mut Frame, area: Rect, view: &View) {
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

impl Pane for SymmetryPane {
    fn id(&self) -> PaneId {
        PaneId::SYMMETRY
    }

    fn name(&self) -> &'static str {
        "Symmetry"
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::LeftAndMiddle,
            share: 100,
            shown: Shown::Symmetry,
        }
    }

    fn title(&self, cx: &Context) -> String {
        if cx.walk.is_some_and(|w| w.symmetry.structure.is_some()) {
            return " Symmetry — the communication structure ".to_string();
        }
        self.title_of(cx.walk.is_some_and(|w| w.reduced))
    }

    fn activate_help(&self) -> &'static str {
        "fire the selected event (from the Events pane)"
    }

    fn hints(&self, cx: &Context) -> Vec<Hint> {
        let Some(walk) = cx.walk else {
            return unanimated_hints(cx);
        };
        // Only the keys that do something here: no stages, comparisons
        // or reduced walk without representatives.
        if walk.symmetry.structure.is_some() {
            return vec![
                Hint::Key(Command::ExportStages, "export"),
                Hint::Key(Command::ToggleSymmetry, "close"),
            ];
        }
        if !walk.reducible {
            return vec![Hint::Key(Command::ToggleSymmetry, "close")];
        }
        vec![
            Hint::Key(Command::AlgorithmNext, "next stage"),
            Hint::Key(Command::AlgorithmBack, "back"),
            Hint::Key(Command::Mark, "mark"),
            Hint::Key(Command::Compare, "compare"),
            Hint::Key(Command::Graph, "graph"),
            Hint::Key(Command::WalkReduced, "reduced walk"),
            Hint::Key(Command::ToggleSymmetry, "close"),
        ]
    }

    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        if command == Command::Activate {
            return Effect::FireSelected;
        }
        let rows = self.rows(cx);
        self.scroll.navigate(command, rows, cx.facts.page);
        Effect::None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        let Some(walk) = cx.walk else {
            frame.render_widget(
                Paragraph::new(cx.problem.unwrap_or("loading…"))
                    .style(cx.theme.dim)
                    .wrap(Wrap { trim: false }),
                area,
            );
            return self.scroll.selected;
        };
        let x = walk
            .shown
            .as_ref()
            .filter(|_| walk.is_current())
            .and_then(|s| s.symmetry.as_deref());
        let key = |command| {
            cx.keymap
                .key_for(PaneId::SYMMETRY, command)
                .unwrap_or_default()
        };
        let (left, right) = (key(Command::ScrollLeft), key(Command::ScrollRight));
        let view = View {
            theme: cx.theme,
            about: &walk.symmetry,
            x,
            keys: (&left, &right),
        };
        self.render(frame, area, &view);
        self.scroll.selected
    }

    /// The view's lines at the pane's width.
    fn rows(&self, cx: &Context) -> usize {
        cx.walk.map_or(0, |walk| {
            let x = walk.shown.as_ref().and_then(|s| s.symmetry.as_deref());
            let width = usize::from(cx.facts.size.0);
            self.laid_out(cx.theme, &walk.symmetry, x, width)
                .lines
                .len()
        })
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.scroll
    }

    fn click_selects(&self) -> bool {
        false
    }
}

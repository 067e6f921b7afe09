//! The animator's panes, one module each: the pane's own state, its
//! `update` (keys in, an [`Effect`] out for what reaches beyond the pane)
//! and its drawing, joined by the [`Pane`] trait. The [`Panes`] registry
//! holds them in Tab order: adding a pane is a module implementing
//! [`Pane`] and one line in [`Panes::standard`]. What they share: a
//! selectable [`List`], the effects, the [`Context`] they read, and a few
//! drawing helpers.

pub mod checks;
pub mod events;
pub mod script;
pub mod state;
pub mod structure;
pub mod symmetry;
pub mod trace;

use std::any::Any;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::check::wording::{self, Reader};
pub use crate::check::wording::{GROUP_SEPARATOR, grouped as count};

use super::config::{Command, Config, KeyMap, PaneId, Theme};
use super::layout::Placement;
use super::prompt::Prompt;
use super::walk::Walk;

/// A pane of the animator: its state is the implementing type's.
pub trait Pane: Any {
    /// Its name in key maps and the registry.
    fn id(&self) -> PaneId;
    /// Its name on the screen (the help overlay's title).
    fn name(&self) -> &'static str;
    /// Where it goes on the screen.
    fn placement(&self) -> Placement;
    /// Its border's title.
    fn title(&self, _cx: &Context) -> String {
        format!(" {} ", self.name())
    }
    /// What Enter does in it, for the help overlay.
    fn activate_help(&self) -> &'static str;
    /// The keys the status bar offers while it has the focus, the most
    /// useful first (those that do not fit are left out).
    fn hints(&self, cx: &Context) -> Vec<Hint>;
    /// A navigation command or Enter, while it has the focus.
    fn update(&mut self, command: Command, cx: &Context) -> Effect;
    /// Draws it inside its border; the first row of its list shown.
    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize;
    /// The rows its list (or text) has, for the mouse wheel.
    fn rows(&self, cx: &Context) -> usize;
    /// Its list, which the mouse scrolls.
    fn list_mut(&mut self) -> &mut List;
    /// Whether a click on a row selects it (a list), or only focuses the
    /// pane (a text that scrolls).
    fn click_selects(&self) -> bool {
        true
    }
    /// How many rows at the top of its inside its list took when last
    /// drawn, where words drawn under the list took the others (`None`:
    /// all of them). A click below the list selects nothing.
    fn list_lines(&self) -> Option<usize> {
        None
    }
}

/// What a pane reads of the animator besides itself.
pub struct Context<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a KeyMap,
    /// The walk shown, if a process is animated.
    pub walk: Option<&'a Walk>,
    /// Why nothing is animated (the script or the process failed).
    pub problem: Option<&'a str>,
    pub facts: Facts,
}

impl<'a> Context<'a> {
    pub fn new(
        config: &'a Config,
        walk: Option<&'a Walk>,
        problem: Option<&'a str>,
        facts: Facts,
    ) -> Context<'a> {
        Context {
            theme: &config.theme,
            keymap: &config.keymap,
            walk,
            problem,
            facts,
        }
    }
}

/// What the animator tells a pane of itself, by value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub focused: bool,
    /// The pane's size inside its border, as laid out.
    pub size: (u16, u16),
    /// Rows a page moves.
    pub page: usize,
    /// The script is being read.
    pub loading: bool,
    /// A check runs.
    pub check_running: bool,
    /// A script is loaded (a process can be typed).
    pub script_loaded: bool,
    /// There is an earlier walk to go back to.
    pub earlier_walk: bool,
    /// Why the Events pane is not on the screen, if it is not.
    pub events_hidden: Option<String>,
    /// Why the current state offers no event, in words.
    pub no_event: String,
}

/// A key offered on the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// The key bound to the command, and what it does.
    Key(Command, &'static str),
    /// Text of its own (keys that no one binding names).
    Text(&'static str),
}

/// The status bar's offer while nothing is animated (the script or the
/// process failed, or it is loading): there is nothing to fire or step.
pub fn unanimated_hints(cx: &Context) -> Vec<Hint> {
    let mut hints = Vec::new();
    // A script that loaded without a process to animate.
    if cx.facts.script_loaded {
        hints.push(Hint::Key(Command::TypeProcess, "type a process"));
    }
    if !cx.facts.loading {
        hints.push(Hint::Key(Command::Reload, "reload"));
    }
    hints
}

/// The animator's panes, in Tab order.
pub struct Panes {
    panes: Vec<Box<dyn Pane>>,
}

impl Panes {
    /// The animator's own panes. A new pane is one line here.
    pub fn standard() -> Panes {
        let panes: Vec<Box<dyn Pane>> = vec![
            Box::new(script::ScriptPane::default()),
            Box::new(state::StatePane::default()),
            Box::new(symmetry::SymmetryPane::default()),
            Box::new(events::EventsPane::default()),
            Box::new(trace::TracePane::default()),
            Box::new(checks::ChecksPane::default()),
        ];
        Panes { panes }
    }

    /// `pane` added after the others (a pane of one's own, or a test's);
    /// refused, with the reason, when a pane already has its id (key
    /// maps and the layout find panes by id).
    pub fn with(mut self, pane: Box<dyn Pane>) -> Result<Panes, String> {
        let id = pane.id();
        if self.get(id).is_some() {
            return Err(format!("a pane is already called `{}`", id.0));
        }
        self.panes.push(pane);
        Ok(self)
    }

    /// Every pane's placement, in Tab order.
    pub fn placements(&self) -> Vec<(PaneId, Placement)> {
        self.panes.iter().map(|p| (p.id(), p.placement())).collect()
    }

    pub fn ids(&self) -> Vec<PaneId> {
        self.panes.iter().map(|p| p.id()).collect()
    }

    /// The pane named `id`.
    pub fn get(&self, id: PaneId) -> Option<&dyn Pane> {
        self.panes.iter().find(|p| p.id() == id).map(|p| &**p)
    }

    pub fn get_mut(&mut self, id: PaneId) -> Option<&mut dyn Pane> {
        match self.panes.iter_mut().find(|p| p.id() == id) {
            Some(pane) => Some(&mut **pane),
            None => None,
        }
    }

    /// The pane of type `P`.
    ///
    /// # Panics
    /// Never for a pane of [`Panes::standard`], which every registry
    /// starts from (the animator's code asks only for those).
    pub fn of_type<P: Pane>(&self) -> &P {
        self.panes
            .iter()
            .find_map(|p| (&**p as &dyn Any).downcast_ref::<P>())
            .expect("the registry holds every standard pane")
    }

    /// The pane of type `P`, to change.
    ///
    /// # Panics
    /// As [`Panes::of_type`].
    pub fn of_type_mut<P: Pane>(&mut self) -> &mut P {
        self.panes
            .iter_mut()
            .find_map(|p| (&mut **p as &mut dyn Any).downcast_mut::<P>())
            .expect("the registry holds every standard pane")
    }
}

/// What a pane's update asks of the rest of the animator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    /// Animate a process expression.
    Animate(String),
    /// Open a prompt.
    Prompt(Prompt),
    /// Take move `i` of the state shown.
    Fire(usize),
    /// Take the move selected in the Events pane (Enter in a pane that
    /// shows the state).
    FireSelected,
    /// Go to position `p` of the path.
    Goto(usize),
    RunCheck(usize),
    OpenCounterexample(usize),
    Say(String),
    Complain(String),
}

/// A list's selected row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct List {
    pub selected: usize,
}

impl List {
    /// Moves the selection for a navigation command over `rows` rows
    /// (`page` at a time); whether `command` was one.
    pub fn navigate(&mut self, command: Command, rows: usize, page: usize) -> bool {
        let last = rows.saturating_sub(1);
        self.selected = match command {
            Command::Up => self.selected.saturating_sub(1),
            Command::Down => self.selected + 1,
            Command::PageUp => self.selected.saturating_sub(page),
            Command::PageDown => self.selected + page,
            Command::Top => 0,
            Command::Bottom => last,
            _ => return false,
        }
        .min(last);
        true
    }

    /// The mouse wheel: three rows at a time.
    pub fn scroll(&mut self, down: bool, rows: usize) {
        self.selected = if down {
            (self.selected + 3).min(rows.saturating_sub(1))
        } else {
            self.selected.saturating_sub(3)
        };
    }

    pub fn fit(&mut self, rows: usize) {
        self.selected = self.selected.min(rows.saturating_sub(1));
    }

    /// The first row shown when the selection must be visible in
    /// `height` rows (a list scrolls only as far as the selection needs).
    pub fn offset(&self, height: usize) -> usize {
        self.selected.saturating_sub(height.saturating_sub(1))
    }
}

/// Renders `rows` into `area` from row `offset`, with row `highlight`
/// patched with `selection`; only the rows that fit are drawn.
pub fn draw_list(
    frame: &mut Frame,
    area: Rect,
    rows: Vec<Line<'static>>,
    offset: usize,
    highlight: Option<(usize, Style)>,
) {
    let height = usize::from(area.height);
    let lines: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, line)| match highlight {
            Some((h, style)) if h == i => line.patch_style(style),
            _ => line,
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// `line` cut to `width` characters, the cut marked `…`, so that a row
/// too long for its pane never reads as a complete shorter one.
pub fn clip(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut left = width.saturating_sub(1);
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            break;
        }
        let n = span.content.chars().count();
        if n <= left {
            left -= n;
            spans.push(span);
        } else {
            let cut: String = span.content.chars().take(left).collect();
            spans.push(Span::styled(cut, span.style));
            left = 0;
        }
    }
    spans.push(Span::raw("…"));
    Line::from(spans).style(line.style)
}

/// `n` and a noun, the noun plural unless `n` is one: `1 step`, `3 steps`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    wording::plural(n, one, many, Reader::Animator)
}

/// `text` cut to `width` characters by dropping its middle (`…`), so
/// that rows which begin alike still show how they end.
pub fn elide_middle(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width || width < 5 {
        return chars.into_iter().take(width).collect();
    }
    let tail = (width - 1) / 2;
    let head = width - 1 - tail;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_navigate_within_their_rows() {
        let mut list = List::default();
        assert!(list.navigate(Command::Down, 3, 10));
        assert!(list.navigate(Command::PageDown, 3, 10));
        assert_eq!(list.selected, 2);
        assert!(list.navigate(Command::Top, 3, 10));
        assert_eq!(list.selected, 0);
        assert!(!list.navigate(Command::Activate, 3, 10));
        list.selected = 40;
        assert_eq!(list.offset(10), 31);
    }

    #[test]
    fn words_and_rows_read_well() {
        assert_eq!(plural(1, "step", "steps"), "1 step");
        assert_eq!(plural(1234, "step", "steps"), "1\u{a0}234 steps");
        assert_eq!(
            elide_middle("Spec(<>) [T= System :[symmetry reduce]", 21),
            "Spec(<>) […ry reduce]"
        );
        assert_eq!(elide_middle("short", 21), "short");
    }

    #[test]
    fn a_wrapped_paragraph_keeps_each_number_whole() {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        use ratatui::widgets::{Paragraph, Widget, Wrap};
        let text = format!("checked {} states", count(8_953_229));
        let area = Rect::new(0, 0, 12, 3);
        let mut buffer = Buffer::empty(area);
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .render(area, &mut buffer);
        let rows: Vec<String> = (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .replace(GROUP_SEPARATOR, " ")
            })
            .collect();
        assert_eq!(rows, ["checked", "8 953 229", "states"]);
    }
}

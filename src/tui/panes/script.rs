//! The Script pane: the script's processes, process functions and
//! assertions; Enter animates one (a function asks for its arguments).
//! On request (`t`) it shows each definition's type, and every other
//! name the script declares with its type, as `symcsp type` does.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::super::config::{Command, PaneId, Theme};
use super::super::layout::{Column, Placement, Shown};
use super::super::model::Listing;
use super::super::prompt::{Prompt, Purpose};
use super::{Context, Effect, Hint, List, Pane, draw_list};

/// One row of the Script pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptItem {
    Heading(&'static str),
    /// A process to animate, as an expression.
    Process(String),
    /// A process function: Enter asks for its arguments.
    Function {
        name: String,
        arity: usize,
        /// Its type, `(Int, Colour) -> Proc`.
        ty: String,
    },
    /// An assertion: Enter animates its implementation.
    Assertion {
        text: String,
        implementation: String,
    },
    /// Any other name the script declares, with its type (shown with
    /// the types).
    Definition {
        name: String,
        ty: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptPane {
    /// The rows shown.
    pub items: Vec<ScriptItem>,
    pub list: List,
    /// Whether each definition's type is shown.
    pub types_shown: bool,
    /// Every row, the definitions among them.
    all: Vec<ScriptItem>,
}

impl ScriptPane {
    /// The rows of a listing.
    pub fn list(&mut self, listing: &Listing) {
        let mut items = vec![ScriptItem::Heading("Processes")];
        items.extend(listing.processes.iter().cloned().map(ScriptItem::Process));
        if !listing.functions.is_empty() {
            items.push(ScriptItem::Heading("Process functions"));
            items.extend(
                listing
                    .functions
                    .iter()
                    .map(|(name, arity)| ScriptItem::Function {
                        name: name.clone(),
                        arity: *arity,
                        ty: listing.type_of(name).unwrap_or("?").to_string(),
                    }),
            );
        }
        if !listing.assertions.is_empty() {
            items.push(ScriptItem::Heading("Assertions (Enter: animate)"));
            items.extend(
                listing
                    .assertions
                    .iter()
                    .map(|(text, imp)| ScriptItem::Assertion {
                        text: text.clone(),
                        implementation: imp.clone(),
                    }),
            );
        }
        let listed = |name: &str| {
            listing.processes.iter().any(|p| p == name)
                || listing.functions.iter().any(|(f, _)| f == name)
        };
        let others: Vec<ScriptItem> = listing
            .types
            .iter()
            .filter(|(name, _)| !listed(name))
            .map(|(name, ty)| ScriptItem::Definition {
                name: name.clone(),
                ty: ty.clone(),
            })
            .collect();
        if !others.is_empty() {
            items.push(ScriptItem::Heading("Definitions and their types"));
            items.extend(others);
        }
        self.all = items;
        self.show();
    }

    /// Shows or hides the types (and the definitions that have nothing
    /// but a type to show).
    pub fn toggle_types(&mut self) {
        self.types_shown = !self.types_shown;
        self.show();
    }

    /// The selected row's name and type in full (`Counter :: (Int) ->
    /// Proc`), for the status line, which has room for a long type the
    /// pane cuts.
    pub fn selected_type(&self) -> Option<String> {
        match self.items.get(self.list.selected)? {
            ScriptItem::Process(p) => Some(format!("{p} :: Proc")),
            ScriptItem::Function { name, ty, .. } | ScriptItem::Definition { name, ty } => {
                Some(format!("{name} :: {ty}"))
            }
            ScriptItem::Heading(_) | ScriptItem::Assertion { .. } => None,
        }
    }

    fn show(&mut self) {
        let selected = self.items.get(self.list.selected).cloned();
        let shown = self.types_shown;
        self.items = self
            .all
            .iter()
            .filter(|item| {
                shown
                    || !matches!(
                        item,
                        ScriptItem::Definition { .. }
                            | ScriptItem::Heading("Definitions and their types")
                    )
            })
            .cloned()
            .collect();
        // The selection stays on its row where that row is still shown.
        if let Some(row) = selected.and_then(|s| self.items.iter().position(|i| *i == s)) {
            self.list.selected = row;
        }
        self.list.fit(self.items.len());
    }

    /// What Enter on the selected item does.
    fn activate(&self) -> Effect {
        match self.items.get(self.list.selected) {
            Some(ScriptItem::Process(p)) => Effect::Animate(p.clone()),
            Some(ScriptItem::Assertion { implementation, .. }) => {
                Effect::Animate(implementation.clone())
            }
            Some(ScriptItem::Function { name, arity, .. }) => {
                // The name is a start, not a suggestion: typing goes on
                // after it.
                let holes = vec!["_"; *arity].join(", ");
                Effect::Prompt(Prompt::continuing(
                    Purpose::Process,
                    &format!("{name}("),
                    format!("{name}({holes})"),
                ))
            }
            Some(ScriptItem::Heading(_) | ScriptItem::Definition { .. }) | None => Effect::None,
        }
    }

    /// Draws the items, `animated` marked; the first row shown.
    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        animated: &str,
        focused: bool,
    ) -> usize {
        let rows = self
            .items
            .iter()
            .map(|item| match item {
                ScriptItem::Heading(h) => Line::styled(h.to_string(), theme.title),
                ScriptItem::Process(p) => {
                    let mark = if p == animated { "▶ " } else { "  " };
                    let ty = if self.types_shown { " :: Proc" } else { "" };
                    Line::from(format!("{mark}{p}{ty}"))
                }
                ScriptItem::Function { name, arity, ty } => {
                    let ty = if self.types_shown {
                        format!(" :: {ty}")
                    } else {
                        String::new()
                    };
                    Line::from(format!("  {name}({}){ty}", vec!["_"; *arity].join(", ")))
                }
                ScriptItem::Definition { name, ty } => Line::from(format!("  {name} :: {ty}")),
                ScriptItem::Assertion { text, .. } => {
                    Line::from(format!("  {}", text.trim_start_matches("assert ")))
                }
            })
            .collect();
        let offset = if focused {
            self.list.offset(usize::from(area.height))
        } else {
            0
        };
        draw_list(
            frame,
            area,
            rows,
            offset,
            focused.then_some((self.list.selected, theme.selection)),
        );
        offset
    }
}

impl Pane for ScriptPane {
    fn id(&self) -> PaneId {
        PaneId::SCRIPT
    }

    fn name(&self) -> &'static str {
        "Script"
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::Left,
            share: 55,
            shown: Shown::Plain,
        }
    }

    fn activate_help(&self) -> &'static str {
        "animate the selected process (or type its arguments)"
    }

    fn hints(&self, _cx: &Context) -> Vec<Hint> {
        let types = if self.types_shown {
            "hide types"
        } else {
            "types"
        };
        vec![
            Hint::Key(Command::Activate, "animate"),
            Hint::Key(Command::TypeProcess, "type a process"),
            Hint::Key(Command::ShowTypes, types),
        ]
    }

    /// With the types shown, a move says the selected definition's type
    /// in full on the status line.
    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        let effect = if self.list.navigate(command, self.items.len(), cx.facts.page) {
            Effect::None
        } else if command == Command::Activate {
            self.activate()
        } else {
            Effect::None
        };
        match effect {
            Effect::None if self.types_shown => {
                self.selected_type().map_or(Effect::None, Effect::Say)
            }
            effect => effect,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        let animated = cx.walk.map_or("", |w| w.process.as_str());
        self.render(frame, area, cx.theme, animated, cx.facts.focused)
    }

    fn rows(&self, _cx: &Context) -> usize {
        self.items.len()
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.list
    }
}

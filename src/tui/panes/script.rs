//! The Script pane: the script's processes, process functions and
//! assertions; Enter animates one (a function asks for its arguments).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::super::config::{Command, Theme};
use super::super::model::Listing;
use super::super::prompt::{Prompt, Purpose};
use super::{Effect, List, draw_list};

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
    },
    /// An assertion: Enter animates its implementation.
    Assertion {
        text: String,
        implementation: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptPane {
    pub items: Vec<ScriptItem>,
    pub list: List,
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
        self.items = items;
        self.list.fit(self.items.len());
    }

    pub fn update(&mut self, command: Command, page: usize) -> Effect {
        if self.list.navigate(command, self.items.len(), page) {
            return Effect::None;
        }
        if command != Command::Activate {
            return Effect::None;
        }
        match self.items.get(self.list.selected) {
            Some(ScriptItem::Process(p)) => Effect::Animate(p.clone()),
            Some(ScriptItem::Assertion { implementation, .. }) => {
                Effect::Animate(implementation.clone())
            }
            Some(ScriptItem::Function { name, arity }) => {
                // The name is a start, not a suggestion: typing goes on
                // after it.
                let holes = vec!["_"; *arity].join(", ");
                Effect::Prompt(Prompt::continuing(
                    Purpose::Process,
                    &format!("{name}("),
                    format!("{name}({holes})"),
                ))
            }
            Some(ScriptItem::Heading(_)) | None => Effect::None,
        }
    }

    pub fn draw(
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
                    Line::from(format!("{mark}{p}"))
                }
                ScriptItem::Function { name, arity } => {
                    Line::from(format!("  {name}({})", vec!["_"; *arity].join(", ")))
                }
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

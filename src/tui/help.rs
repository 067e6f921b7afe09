//! The help overlay's text: every command the focused pane's keys
//! reach, its keys together, then what the marks mean. Read by the view
//! (to draw it) and the app (to scroll it), from the configuration alone.

use ratatui::text::{Line, Span};

use super::config::{Command, Config, PaneId};

/// The width of the help's column of keys.
pub const HELP_KEYS: usize = 12;

/// The help overlay's lines for pane `focus`, where Enter does
/// `activate`: one per command, its keys together.
pub fn lines(config: &Config, focus: PaneId, activate: &str) -> Vec<Line<'static>> {
    let theme = &config.theme;
    let mut grouped: Vec<(Vec<String>, Command)> = Vec::new();
    for (key, command) in config.keymap.bindings(focus) {
        let (key, command) = match command {
            Command::FireNth(_) => ("1-9".to_string(), Command::FireNth(0)),
            _ => (key, command),
        };
        match grouped.iter_mut().find(|(_, c)| *c == command) {
            Some((keys, _)) if !keys.contains(&key) => keys.push(key),
            Some(_) => {}
            None => grouped.push((vec![key], command)),
        }
    }
    let mut lines: Vec<Line> = grouped
        .iter()
        .map(|(keys, command)| {
            let what = match command {
                Command::FireNth(_) => "fire the n-th event of the list".to_string(),
                c => c.describe(activate),
            };
            Line::from(vec![
                Span::styled(format!("{:>HELP_KEYS$}  ", keys.join(" ")), theme.title),
                Span::raw(what),
            ])
        })
        .collect();
    lines.push(Line::default());
    lines.push(Line::styled(
        "Mouse: click selects, wheel scrolls.",
        theme.dim,
    ));
    lines.push(Line::styled(
        "Marks: * changed, ▶ current, τ internal, ✓ done, ↻ loop, π the permutation of a \
         reduced step.",
        theme.dim,
    ));
    lines.push(Line::styled(
        "Checks: · not run, … running, ✓ passed, ✗ failed, ? inconclusive (a budget or Esc \
         stopped it), ! error.",
        theme.dim,
    ));
    lines.push(Line::styled(
        "Prompt: ←→ Home End move, Ctrl-U Ctrl-W delete, ↑↓ earlier entries.",
        theme.dim,
    ));
    lines
}

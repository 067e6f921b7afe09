//! What the animator's tests share: drawing the screen as a terminal
//! would, keeping where the panes went for the mouse.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use symcsp::tui::app::{Action, App, update};
use symcsp::tui::prompt::PromptKey;
use symcsp::tui::view::view;

/// Draws the screen at `width` × `height`, keeps the layout (as the
/// terminal loop does) and returns the screen as text, one line a row.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let mut layout = None;
    terminal
        .draw(|frame| layout = Some(view(app, frame)))
        .unwrap();
    app.layout = layout.unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..height {
        let mut line = String::new();
        for x in 0..width {
            line.push_str(buffer[(x, y)].symbol());
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// How many cells of a drawn screen have a colour of their own.
pub fn coloured_cells(buffer: &Buffer) -> usize {
    buffer
        .content()
        .iter()
        .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
        .count()
}

/// Types `text` into the open prompt, a key at a time.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        update(app, Action::Prompt(PromptKey::Char(c)));
        app.settle();
    }
}

/// Runs `commands` in turn, each answered before the next.
pub fn run(app: &mut App, commands: &[symcsp::tui::config::Command]) {
    for &c in commands {
        update(app, Action::Command(c));
        app.settle();
    }
}

/// Fires the first move labelled `label`, and waits for the state after.
pub fn fire(app: &mut App, label: &str) {
    let walk = app.walk.as_ref().expect("a process is animated");
    let i = walk
        .moves()
        .iter()
        .position(|m| m.label == label)
        .unwrap_or_else(|| panic!("no move {label}"));
    app.fire(i);
    app.settle();
}

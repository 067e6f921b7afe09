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

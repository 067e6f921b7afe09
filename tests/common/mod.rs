//! What the animator's tests share: drawing the screen as a terminal
//! would, keeping where the panes went for the mouse.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use symcsp::tui::app::App;
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

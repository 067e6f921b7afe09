//! The real terminal: raw mode, the alternate screen and the mouse,
//! restored on every way out (a panic, `SIGTERM` and `SIGHUP` included);
//! the event loop that
//! turns key presses, clicks and ticks into actions and redraws.

use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::{Terminal, backend::CrosstermBackend};

use super::app::{Action, App, update};
use super::view::view;

/// How often the screen refreshes while something runs (its progress).
const TICK: Duration = Duration::from_millis(100);
/// How often the engine's reply is looked for while it works: a reply
/// shows within this time.
const POLL: Duration = Duration::from_millis(10);

/// Whether the animator can run here: standard input and output are
/// both terminals.
pub fn available() -> bool {
    io::stdout().is_terminal() && io::stdin().is_terminal()
}

fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(io::stdout(), LeaveAlternateScreen, DisableMouseCapture);
}

/// Runs the animator on `app` until the user quits; what to tell the
/// user once the screen is restored ([`App::farewell`]).
pub fn run(mut app: App) -> io::Result<Vec<String>> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enable_raw_mode()?;
    let result = execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
        .and_then(|()| event_loop(&mut app));
    restore();
    let _ = std::panic::take_hook();
    result.map(|()| std::mem::take(&mut app.farewell))
}

/// Raised when the process is asked to end (`SIGTERM`, `SIGHUP`): the
/// loop then quits as the user would, restoring the terminal and keeping
/// the walk, instead of dying with the terminal left raw.
fn end_requests() -> io::Result<Arc<AtomicBool>> {
    let asked = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(signal, Arc::clone(&asked))?;
    }
    Ok(asked)
}

fn event_loop(app: &mut App) -> io::Result<()> {
    let end_asked = end_requests()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let size = terminal.size()?;
    update(
        app,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    let mut last_tick = Instant::now();
    let mut dirty = true;
    while !app.quit {
        if dirty {
            let mut layout = None;
            terminal.draw(|frame| layout = Some(view(app, frame)))?;
            app.layout = layout.unwrap_or_default();
            dirty = false;
        }
        let wait = TICK.saturating_sub(last_tick.elapsed());
        let wait = if app.busy().is_some() {
            wait.min(POLL)
        } else {
            wait
        };
        if event::poll(wait)? {
            let action = match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => app.key(key),
                Event::Mouse(mouse) => match mouse.kind {
                    MouseEventKind::Down(_) => Some(Action::Click {
                        column: mouse.column,
                        row: mouse.row,
                    }),
                    MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => Some(Action::Scroll {
                        column: mouse.column,
                        row: mouse.row,
                        down: mouse.kind == MouseEventKind::ScrollDown,
                    }),
                    _ => None,
                },
                Event::Resize(width, height) => Some(Action::Resize { width, height }),
                _ => None,
            };
            if let Some(action) = action {
                update(app, action);
                dirty = true;
            }
        }
        if end_asked.swap(false, Ordering::Relaxed) {
            update(app, Action::Terminate);
            dirty = true;
        }
        let ticked = last_tick.elapsed() >= TICK;
        if ticked || app.busy().is_some() {
            if ticked {
                last_tick = Instant::now();
            }
            let was_busy = app.busy().is_some();
            update(app, Action::Tick);
            // A reply changes the screen; so, every tick, does progress
            // (of a request or a check) and a message going.
            dirty |= was_busy && app.busy().is_none() || ticked && app.animating();
        }
    }
    Ok(())
}

//! The real terminal: raw mode, the alternate screen and the mouse,
//! restored on every way out (a panic, `SIGTERM` and `SIGHUP` included);
//! the event loop that
//! turns key presses, clicks and ticks into actions and redraws.

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
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

/// How long the animator has to quit once asked to end before the
/// process exits regardless: a terminal that hung up can hold the event
/// loop in crossterm's reading for good.
const END_PATIENCE: Duration = Duration::from_secs(5);

/// Raised when the process is asked to end (`SIGTERM`, `SIGHUP`): the
/// loop then quits as the user would, restoring the terminal and keeping
/// the walk, instead of dying with the terminal left raw. A second such
/// signal ends the process at once, and so does [`END_PATIENCE`] passing.
fn end_requests() -> io::Result<Arc<AtomicBool>> {
    let asked = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        // Registered first, so it sees the flag as the first signal left
        // it: only a second signal ends the process here.
        signal_hook::flag::register_conditional_shutdown(signal, 1, Arc::clone(&asked))?;
        signal_hook::flag::register(signal, Arc::clone(&asked))?;
    }
    let watched = Arc::clone(&asked);
    std::thread::Builder::new()
        .name("symcsp-end".into())
        .spawn(move || {
            while !watched.load(Ordering::Relaxed) {
                std::thread::sleep(POLL * 10);
            }
            std::thread::sleep(END_PATIENCE);
            restore();
            let note = "note: the animator did not quit in time after it was asked to end";
            let _ = writeln!(io::stderr(), "{note}");
            std::process::exit(1);
        })?;
    Ok(asked)
}

/// The terminal's events, read on a thread of their own: the event loop
/// waits on the channel, so a terminal that hangs up (where crossterm's
/// reading can spin for good) never holds the loop, which goes on to
/// keep the walk and quit. An error ends the reading, passed on.
fn read_events() -> io::Result<mpsc::Receiver<io::Result<Event>>> {
    let (sender, events) = mpsc::channel();
    std::thread::Builder::new()
        .name("symcsp-input".into())
        .spawn(move || {
            loop {
                let event = event::read();
                let failed = event.is_err();
                if sender.send(event).is_err() || failed {
                    break;
                }
            }
        })?;
    Ok(events)
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
    let events = read_events()?;
    let mut last_tick = Instant::now();
    let mut dirty = true;
    let mut ending = false;
    while !app.quit {
        if !ending && end_asked.load(Ordering::Relaxed) {
            ending = true;
            update(app, Action::Terminate);
        }
        if ending {
            // The terminal may be gone: neither drawn nor read again.
            std::thread::sleep(POLL);
            update(app, Action::Tick);
            continue;
        }
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
        let event = match events.recv_timeout(wait) {
            Ok(event) => Some(event?),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            // The reader stopped without an error: nothing more to read.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                end_asked.store(true, Ordering::Relaxed);
                None
            }
        };
        if let Some(event) = event {
            let action = match event {
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

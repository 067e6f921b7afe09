//! Drawing the animator: reads the [`App`] and nothing else, so every
//! screen is a function of the model (and a snapshot test away), and
//! returns the [`Layout`] it drew — where the mouse is tested. Each pane
//! draws itself ([`super::panes`]); this module places them and draws
//! what is not a pane: the message line, the status bar, the overlays.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as Split, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::{App, Overlay};
use super::config::{Command, PaneId};
use super::diagnostic_wrap::wrap_diagnostic;
use super::layout::{Layout, Region, areas};
use super::panes::{Hint, clip, count};
use super::wrap::wrap_line;

/// The smallest terminal the animator draws in.
pub use super::layout::MIN_SIZE;

/// Draws the whole screen; where the panes went.
pub fn view(app: &App, frame: &mut Frame) -> Layout {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = format!(
            "Terminal too small ({}×{}): symcsp needs at least {}×{}. Enlarge it, or press q to \
             quit.",
            area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return Layout::default();
    }
    let settings = super::layout::Settings {
        size: (area.width, area.height),
        ..app.settings()
    };
    let mut layout = Layout::default();
    for (pane, rect) in areas(settings) {
        let first_row = draw_pane(app, frame, pane, rect);
        layout.regions.push(Region {
            pane,
            rect,
            first_row,
        });
    }
    let bottom = Rect::new(0, area.height - 2, area.width, 2);
    message_line(
        app,
        frame,
        Rect {
            height: 1,
            ..bottom
        },
    );
    status_bar(
        app,
        frame,
        Rect {
            y: bottom.y + 1,
            height: 1,
            ..bottom
        },
    );
    match &app.overlay {
        Some(Overlay::Help) => help(app, frame, area),
        Some(Overlay::Problem(text)) => {
            // As tall as the text needs (up to 70% of the screen), so a
            // short diagnostic is not lost in an empty box.
            let most = centred(area, 90, 70);
            let theme = &app.config.theme;
            let inner = usize::from(most.width.saturating_sub(2));
            let lines = wrap_diagnostic(text, inner, Style::default());
            let height = u16::try_from(lines.len() + 2)
                .unwrap_or(u16::MAX)
                .clamp(3, most.height.max(3));
            let rect = Rect {
                y: area.y + area.height.saturating_sub(height) / 2,
                height,
                ..most
            }
            .intersection(area);
            frame.render_widget(Clear, rect);
            let block = Block::bordered()
                .title(" Problem — Esc closes; other keys close it and act ")
                .border_style(theme.error);
            frame.render_widget(Paragraph::new(lines).block(block), rect);
        }
        Some(Overlay::ConfirmQuit) => {
            let text = if app.check_running() {
                "A check is still running.\nQuit anyway? (y/n)"
            } else {
                "The animator is still working.\nQuit anyway? (y/n)"
            };
            confirm(frame, area, " Quit ", text);
        }
        Some(Overlay::ConfirmOpen(path)) => {
            let text = format!(
                "The built-in model has no file to reload.\nOpen {} instead? (y/n)",
                path.display()
            );
            confirm(frame, area, " Reload ", &text);
        }
        Some(Overlay::ConfirmDrop(_)) => {
            let key = |command| app.config.keymap.key_text(app.focus, command);
            let earlier = app.earlier.as_ref().map_or(String::new(), |w| w.summary());
            let text = format!(
                "Opening this drops the earlier walk, {earlier}, that {swap} goes back \
                 to.\nTo keep it: n, then {swap} to go back to it and {save} to save it.\nOpen \
                 anyway? (y/n)",
                swap = key(Command::SwapWalk),
                save = key(Command::SaveSession),
            );
            confirm(frame, area, " Open ", &text);
        }
        Some(Overlay::Prompt(_)) | None => {}
    }
    layout
}

/// Draws pane `id` with its border; the first row of its list shown.
fn draw_pane(app: &App, frame: &mut Frame, id: PaneId, rect: Rect) -> usize {
    let Some(pane) = app.panes.get(id) else {
        return 0;
    };
    let cx = app.context_in(id, (rect.width, rect.height));
    let theme = &app.config.theme;
    let title = pane.title(&cx);
    // A focused pane's title is marked, not only coloured.
    let title = if cx.facts.focused {
        format!("▸{}", title.trim_start())
    } else {
        title
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.title))
        .border_style(if cx.facts.focused {
            theme.focused_border
        } else {
            theme.border
        });
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    pane.draw(frame, inner, &cx)
}

fn message_line(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let line = if let Some(Overlay::Prompt(prompt)) = &app.overlay {
        // What is typed scrolls with the cursor in the room the question
        // leaves.
        let question = prompt.purpose.question().chars().count() + 2;
        let (before, after) = prompt.window(usize::from(area.width).saturating_sub(question));
        let text_style = if prompt.is_selected() {
            theme.selection
        } else {
            ratatui::style::Style::default()
        };
        let mut spans = vec![
            Span::styled(format!("{}: ", prompt.purpose.question()), theme.title),
            Span::styled(before, text_style),
            Span::raw("▏"),
            Span::styled(after, text_style),
        ];
        if !prompt.hint.is_empty() {
            spans.push(Span::styled(format!("   {}", prompt.hint), theme.dim));
        }
        spans.push(Span::styled("   Enter confirms · Esc cancels", theme.dim));
        Line::from(spans)
    } else if let Some((doing, elapsed, (done, total))) = app.busy() {
        let progress = if total > 1 {
            format!(": {} of {}", count(done), count(total))
        } else {
            String::new()
        };
        let then = if app.cancelling() {
            "cancelling…"
        } else {
            "Esc cancels"
        };
        Line::styled(
            format!(
                "… {doing}{progress} · {:.1} s — {then}",
                elapsed.as_secs_f64()
            ),
            theme.running,
        )
    } else {
        // A message longer than the line ends in `…` where it is cut,
        // never mid-word without a sign.
        let width = usize::from(area.width);
        match &app.message {
            Some(m) if m.error => clip(Line::styled(format!("! {}", m.text), theme.error), width),
            Some(m) => clip(Line::raw(m.text.clone()), width),
            None => Line::default(),
        }
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn status_bar(app: &App, frame: &mut Frame, area: Rect) {
    let keymap = &app.config.keymap;
    let focus = app.focus;
    let hint = |command: Command, what: &str| {
        keymap
            .key_for(focus, command)
            .map(|k| format!("{k} {what}"))
    };
    let offered = app
        .panes
        .get(focus)
        .map_or_else(Vec::new, |pane| pane.hints(&app.context(focus)));
    let mut hints: Vec<String> = offered
        .into_iter()
        .filter_map(|offer| match offer {
            Hint::Key(command, what) => hint(command, what),
            Hint::Text(text) => Some(text.to_string()),
        })
        .collect();
    let last: Vec<String> = [hint(Command::Help, "help"), hint(Command::Quit, "quit")]
        .into_iter()
        .flatten()
        .collect();
    let mut parts = vec![app.source.name()];
    if let Some(w) = &app.walk {
        parts.push(w.process.clone());
        parts.push(format!("depth {}", w.path.position()));
        parts.push(super::panes::plural(
            w.seen as u64,
            "state seen",
            "states seen",
        ));
        if w.reduced {
            parts.push("reduced walk".into());
        }
        if w.mark.is_some() {
            parts.push("a state is marked".into());
        }
    }
    if app.check_running() {
        parts.push("checking…".into());
    }
    // The pane's hints as far as they fit, then the facts on the left
    // as far as they fit; help and quit always, the script's name cut
    // short last.
    let width = usize::from(area.width);
    let text = loop {
        let shown: Vec<&str> = hints.iter().chain(&last).map(String::as_str).collect();
        let right = shown.join(" · ");
        let text = format!(" {} │ {right}", parts.join(" │ "));
        if text.chars().count() <= width {
            break text;
        }
        if hints.pop().is_some() {
            continue;
        }
        if parts.len() > 1 {
            parts.pop();
            continue;
        }
        let room = width.saturating_sub(right.chars().count() + 4);
        let name = super::panes::elide_middle(&parts[0], room);
        break format!(" {name} │ {right}");
    };
    frame.render_widget(Paragraph::new(text).style(app.config.theme.status), area);
}

fn confirm(frame: &mut Frame, area: Rect, title: &str, text: &str) {
    let rect = centred(area, 60, 20).intersection(area);
    // Wrapped here, so that the box is as high as the text (a long
    // process name takes rows) and the question at its end shows.
    let inner = usize::from(rect.width.saturating_sub(2));
    let lines: Vec<Line> = text
        .lines()
        .flat_map(|line| crate::tui::wrap::wrap_line(&Line::raw(line), inner, 0))
        .collect();
    let rect = Rect {
        height: u16::try_from(lines.len() + 2)
            .unwrap_or(u16::MAX)
            .clamp(4, area.height.max(4)),
        ..rect
    }
    .intersection(area);
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title.to_string())),
        rect,
    );
}

/// The help overlay's lines: one per command, its keys together.
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    app.help_lines()
}

fn help(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let rect = centred(area, 96, 94);
    frame.render_widget(Clear, rect);
    let block = Block::bordered()
        .title(format!(
            " Keys — {} pane (↑↓ scroll · Esc closes) ",
            app.panes.get(app.focus).map_or("", |pane| pane.name())
        ))
        .border_style(theme.focused_border);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let lines = help_lines(app);
    // Two columns when they fit side by side without cutting a line;
    // otherwise one, wrapped.
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let half = lines.len().div_ceil(2);
    if lines.len() > usize::from(inner.height)
        && half <= usize::from(inner.height)
        && widest * 2 + 2 <= usize::from(inner.width)
    {
        let mut lines = lines;
        let second = lines.split_off(half);
        let [left, right] =
            Split::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(inner);
        frame.render_widget(Paragraph::new(lines), left);
        frame.render_widget(Paragraph::new(second), right);
    } else {
        // A description goes on under itself, past the keys' column;
        // scrolled no further than the last screenful.
        let width = usize::from(inner.width);
        let rows: Vec<Line> = lines
            .iter()
            .flat_map(|line| {
                // A key's description hangs past the keys; the notes
                // below them are prose, flush left.
                let described = line.spans.len() > 1;
                wrap_line(
                    line,
                    width,
                    if described {
                        super::help::HELP_KEYS + 2
                    } else {
                        0
                    },
                )
            })
            .collect();
        let last = rows.len().saturating_sub(usize::from(inner.height));
        let scroll = u16::try_from(app.help_scroll.min(last)).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(rows).scroll((scroll, 0)), inner);
    }
}

/// A rectangle of `percent_x` × `percent_y` of `area`, centred.
fn centred(area: Rect, percent_x: u16, percent_y: u16) -> Rect {
    let [_, middle, _] = Split::vertical([
        Constraint::Percentage((100 - percent_y) / 2),
        Constraint::Percentage(percent_y),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, centre, _] = Split::horizontal([
        Constraint::Percentage((100 - percent_x) / 2),
        Constraint::Percentage(percent_x),
        Constraint::Fill(1),
    ])
    .areas(middle);
    centre
}

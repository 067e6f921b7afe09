//! Drawing the animator: reads the [`App`] and nothing else, so every
//! screen is a function of the model (and a snapshot test away). Only
//! the rows that fit are built, so a long trace or event list costs no
//! more to draw than a short one.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph, Wrap};

use super::app::{
    App, CheckStatus, Overlay, ScriptItem, describe_counterexample, index, verdict_text,
};
use super::config::{Command, Pane, Theme};
use crate::check::Verdict;
use crate::lts::animator::EventKind;
use crate::lts::machine::OutlineRow;

/// The smallest terminal the animator draws in.
pub const MIN_SIZE: (u16, u16) = (60, 16);

/// Where each pane is drawn on a screen of `size`.
pub fn areas(app: &App, size: (u16, u16)) -> Vec<(Pane, Rect)> {
    let main = Rect::new(0, 0, size.0, size.1.saturating_sub(2));
    if app.maximised {
        return vec![(app.focus, main)];
    }
    let columns = Layout::horizontal(app.widths.map(Constraint::Fill)).split(main);
    let left = Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)])
        .split(columns[0]);
    let right = Layout::vertical([Constraint::Percentage(58), Constraint::Percentage(42)])
        .split(columns[2]);
    vec![
        (Pane::Script, left[0]),
        (Pane::Checks, left[1]),
        (Pane::State, columns[1]),
        (Pane::Events, right[0]),
        (Pane::Trace, right[1]),
    ]
}

/// The first row shown when row `selected` must be visible in `height`
/// rows (the list scrolls only as far as the selection needs).
pub fn scroll_offset(selected: usize, height: usize) -> usize {
    selected.saturating_sub(height.saturating_sub(1))
}

/// Draws the whole screen.
pub fn view(app: &App, frame: &mut Frame) {
    let area = frame.area();
    if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
        let text = format!(
            "Terminal too small ({}×{}): symcsp needs at least {}×{}. Enlarge it, or press q to quit.",
            area.width, area.height, MIN_SIZE.0, MIN_SIZE.1
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    for (pane, rect) in areas(app, (area.width, area.height)) {
        let focused = pane == app.focus;
        let block = block(app, pane, focused);
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        match pane {
            Pane::Script => script(app, frame, inner),
            Pane::State => state(app, frame, inner),
            Pane::Events => events(app, frame, inner),
            Pane::Trace => trace(app, frame, inner),
            Pane::Checks => checks(app, frame, inner),
        }
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
            let rect = centred(area, 90, 70);
            frame.render_widget(Clear, rect);
            let block = Block::bordered()
                .title(" Problem — Esc closes ")
                .border_style(app.config.theme.error);
            frame.render_widget(
                Paragraph::new(text.as_str())
                    .wrap(Wrap { trim: false })
                    .block(block),
                rect,
            );
        }
        Some(Overlay::ConfirmQuit) => {
            let rect = centred(area, 50, 20).intersection(area);
            let rect = Rect {
                height: rect.height.min(5),
                ..rect
            };
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new("A check is still running.\nQuit anyway? (y/n)")
                    .wrap(Wrap { trim: true })
                    .block(Block::bordered().title(" Quit ")),
                rect,
            );
        }
        Some(Overlay::Prompt { .. }) | None => {}
    }
}

fn block(app: &App, pane: Pane, focused: bool) -> Block<'static> {
    let theme = &app.config.theme;
    let title = match pane {
        Pane::State if app.process.is_empty() => " State ".to_string(),
        Pane::State => format!(" State — {} ", app.process),
        Pane::Events => {
            let visible = app.visible_events().len();
            if app.filter.is_empty() {
                format!(" Events ({visible}) ")
            } else {
                format!(
                    " Events ({visible} of {}, filter “{}”) ",
                    app.enabled.len(),
                    app.filter
                )
            }
        }
        Pane::Trace => format!(
            " Trace ({} of {}) ",
            app.trace.position,
            app.trace.steps.len()
        ),
        other => format!(" {} ", other.title()),
    };
    // A focused pane's title is marked, not only coloured.
    let title = if focused {
        format!("▸{}", title.trim_start())
    } else {
        title
    };
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.title))
        .border_style(if focused {
            theme.focused_border
        } else {
            theme.border
        })
}

/// Renders `lines` into `area`, scrolled so that row `selected` shows,
/// with that row highlighted when `highlight`.
fn list(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    rows: Vec<Line<'static>>,
    highlight: Option<usize>,
) {
    let height = usize::from(area.height);
    let offset = highlight.map_or(0, |s| scroll_offset(s, height));
    let lines: Vec<Line> = rows
        .into_iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, line)| {
            if Some(i) == highlight {
                line.patch_style(app.config.theme.selection)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn selected(app: &App, pane: Pane) -> usize {
    app.selected[index(pane)]
}

fn script(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let rows = app
        .script_items
        .iter()
        .map(|item| match item {
            ScriptItem::Heading(h) => Line::styled(h.to_string(), theme.title),
            ScriptItem::Process(p) => {
                let mark = if *p == app.process { "▶ " } else { "  " };
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
    let focus = (app.focus == Pane::Script).then(|| selected(app, Pane::Script));
    list(app, frame, area, rows, focus);
}

fn state(app: &App, frame: &mut Frame, area: Rect) {
    if let Some(problem) = &app.problem {
        frame.render_widget(
            Paragraph::new(problem.as_str())
                .style(app.config.theme.error)
                .wrap(Wrap { trim: false }),
            area,
        );
        return;
    }
    let rows = state_lines(app);
    let offset = selected(app, Pane::State).min(rows.len().saturating_sub(1));
    let lines: Vec<Line> = rows.into_iter().skip(offset).collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// The State pane's lines: the components under their operators, then
/// the specification beside a loaded counterexample.
pub fn state_lines(app: &App) -> Vec<Line<'static>> {
    let theme = &app.config.theme;
    let mut rows: Vec<Line> = Vec::new();
    let changed = app.trace.changed();
    for row in &app.outline {
        match row {
            OutlineRow::Operator { depth, text } => {
                rows.push(Line::styled(
                    format!("{}{text}", "  ".repeat(*depth)),
                    theme.dim,
                ));
            }
            OutlineRow::Component { depth, slot } => {
                let text = app.components.get(*slot).map_or("", String::as_str);
                let indent = "  ".repeat(*depth);
                if changed.contains(slot) {
                    rows.push(Line::styled(
                        format!("{indent}* #{} {text}", slot + 1),
                        theme.changed,
                    ));
                } else {
                    rows.push(Line::from(format!("{indent}  #{} {text}", slot + 1)));
                }
            }
        }
    }
    if let Some(cx) = &app.counterexample {
        let position = app.trace.position;
        let whole = cx.spec_after.len();
        let at_violation = position == whole && cx.valid == whole;
        // After an event the specification refuses it has no state: show
        // the one before it.
        let spec = match cx.spec_at(position) {
            Some(spec) => Some(("Specification here:", spec)),
            None if at_violation && position > 0 => cx
                .spec_at(position - 1)
                .map(|spec| ("Specification before the last step:", spec)),
            None => None,
        };
        if let Some((heading, spec)) = spec {
            rows.push(Line::default());
            rows.push(Line::styled(heading, theme.spec));
            rows.extend(
                spec.iter()
                    .map(|s| Line::styled(format!("  {s}"), theme.spec)),
            );
        }
        if at_violation {
            rows.push(Line::default());
            rows.push(Line::styled(
                format!("✗ assertion {}: {}", cx.assertion + 1, cx.verdict),
                theme.failed,
            ));
        }
    }
    rows
}

fn events(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let visible = app.visible_events();
    if visible.is_empty() {
        let text = if app.problem.is_some() {
            "no events: see the State pane"
        } else if !app.enabled.is_empty() {
            "no event matches the filter (Esc clears it)"
        } else {
            "⊘ no event is possible: this state is deadlocked (or has terminated)"
        };
        frame.render_widget(
            Paragraph::new(text)
                .style(theme.dim)
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    // Build only the rows that can show.
    let height = usize::from(area.height);
    let chosen = selected(app, Pane::Events);
    let offset = scroll_offset(chosen, height);
    let width = visible
        .iter()
        .skip(offset)
        .take(height)
        .map(|&i| app.enabled[i].label.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(area.width) / 2);
    let lines: Vec<Line> = visible
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(n, &i)| {
            let e = &app.enabled[i];
            let style = event_style(theme, e.kind);
            let mut who: Vec<String> = e.slots().map(|s| format!("#{}", s + 1)).collect();
            if let Some(hidden) = &e.hidden {
                who.insert(0, format!("‹{hidden}›"));
            }
            let mut line = Line::from(vec![
                Span::styled(format!("{:>3} ", n + 1), theme.dim),
                Span::styled(format!("{:<width$}", e.label), style),
                Span::styled(format!("  {}", who.join(" ")), theme.dim),
            ]);
            if n == chosen {
                line = line.patch_style(theme.selection);
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// How an event of a kind is drawn: τ and ✓ in their own styles.
fn event_style(theme: &Theme, kind: EventKind) -> Style {
    match kind {
        EventKind::Visible => Style::default(),
        EventKind::Tau => theme.tau,
        EventKind::Tick => theme.tick,
    }
}

fn trace(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let height = usize::from(area.height);
    let chosen = selected(app, Pane::Trace);
    let offset = scroll_offset(chosen, height);
    let position = app.trace.position;
    let lines: Vec<Line> = (offset..=app.trace.steps.len())
        .take(height)
        .map(|p| {
            let mark = if p == position { "▶" } else { " " };
            let (text, style) = match p {
                0 => ("(initial state)".to_string(), theme.dim),
                p => {
                    let step = &app.trace.steps[p - 1];
                    let style = if p > position {
                        theme.dim
                    } else {
                        event_style(theme, step.kind)
                    };
                    let mut notes = String::new();
                    if p > position {
                        notes.push_str("  (undone)");
                    }
                    if app.counterexample.as_ref().is_some_and(|c| c.in_loop(p)) {
                        notes.push_str("  ↻ loop");
                    }
                    let hidden = step
                        .hidden
                        .as_ref()
                        .map_or(String::new(), |h| format!(" ‹{h}›"));
                    (format!("{}{hidden}{notes}", step.label), style)
                }
            };
            let mut line = Line::from(vec![
                Span::raw(mark),
                Span::styled(format!("{p:>4} "), theme.dim),
                Span::styled(text, style),
            ]);
            if p == chosen && app.focus == Pane::Trace {
                line = line.patch_style(theme.selection);
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn checks(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    if app.checks.is_empty() {
        frame.render_widget(
            Paragraph::new("no assertions in this script").style(theme.dim),
            area,
        );
        return;
    }
    let chosen = selected(app, Pane::Checks);
    let detail_height = 5.min(area.height / 2);
    let [list_area, detail] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(detail_height)]).areas(area);
    let statuses: Vec<(String, Style)> = app
        .checks
        .iter()
        .map(|c| match &c.status {
            CheckStatus::NotRun => ("·".to_string(), theme.dim),
            CheckStatus::Running(_) => ("… running".to_string(), theme.running),
            CheckStatus::Done(done) => {
                let verdict = done.result.verdict;
                let (mark, style) = match verdict {
                    Verdict::Passed => ("✓", theme.passed),
                    Verdict::Failed => ("✗", theme.failed),
                    Verdict::Inconclusive(_) => ("?", theme.running),
                };
                (format!("{mark} {}", verdict.word()), style)
            }
            CheckStatus::Error(_) => ("! error".to_string(), theme.error),
        })
        .collect();
    let width = statuses
        .iter()
        .map(|(w, _)| w.chars().count())
        .max()
        .unwrap_or(0);
    let rows = app
        .checks
        .iter()
        .zip(statuses)
        .enumerate()
        .map(|(i, (c, (word, style)))| {
            Line::from(vec![
                Span::styled(format!("{:>2} ", i + 1), theme.dim),
                Span::styled(format!("{word:<width$} "), style),
                Span::raw(c.text.trim_start_matches("assert ").to_string()),
            ])
        })
        .collect();
    let focus = (app.focus == Pane::Checks).then_some(chosen);
    list(app, frame, list_area, rows, focus);
    let Some(row) = app.checks.get(chosen) else {
        return;
    };
    let detail_block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border);
    let inner = detail_block.inner(detail);
    frame.render_widget(detail_block, detail);
    match &row.status {
        CheckStatus::NotRun => {
            let key = app
                .config
                .keymap
                .key_for(app.focus, Command::RunCheck)
                .unwrap_or_default();
            frame.render_widget(
                Paragraph::new(format!(
                    "assertion {}: not run yet ({key} runs it)",
                    chosen + 1
                ))
                .style(theme.dim)
                .wrap(Wrap { trim: true }),
                inner,
            );
        }
        CheckStatus::Running(handle) => {
            let p = handle.progress();
            let (reduced, what) = match handle.reduced_over() {
                Some(types) => (format!("reduced over {types} · "), "representatives"),
                None => (String::new(), "states"),
            };
            let text = format!(
                "{reduced}{} {what} · {} transitions · depth {} · {} {what}/s · {:.1} s — Esc \
                 cancels",
                count(p.states),
                count(p.transitions),
                p.depth,
                count(p.states_per_second as u64),
                p.elapsed.as_secs_f64()
            );
            let ratio = handle
                .max_states()
                .map_or(0.0, |m| (p.states as f64 / m as f64).clamp(0.0, 1.0));
            let [gauge, words] =
                Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(inner);
            frame.render_widget(
                Gauge::default()
                    .gauge_style(theme.running)
                    .ratio(ratio)
                    .label(format!("{:.0}% of the state budget", ratio * 100.0)),
                gauge,
            );
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), words);
        }
        CheckStatus::Done(done) => {
            let r = &done.result;
            let mut text = if let Some(reduced) = &r.symmetry {
                format!(
                    "{}: {} representatives, {} transitions, depth {}, {:.2} s — reduced over {} \
                     (group order {})",
                    verdict_text(r.verdict),
                    count(r.states),
                    count(r.transitions),
                    r.depth,
                    r.seconds,
                    reduced.type_list(),
                    reduced.group_order.value()
                )
            } else if r.searched {
                format!(
                    "{}: {} states, {} transitions, depth {}, {:.2} s",
                    verdict_text(r.verdict),
                    count(r.states),
                    count(r.transitions),
                    r.depth,
                    r.seconds
                )
            } else {
                format!("{}: a static check", verdict_text(r.verdict))
            };
            if let Some(listing) = &app.listing {
                for reason in &r.reasons {
                    text.push_str(&format!("\n{}", reason.headline(&listing.script.sources)));
                }
            }
            if let Some(cx) = &done.counterexample {
                let key = app
                    .config
                    .keymap
                    .key_for(app.focus, Command::OpenCounterexample)
                    .unwrap_or_default();
                text.push_str(&format!(
                    "\n{} ({} steps; {key} opens it)",
                    describe_counterexample(cx),
                    cx.steps.len()
                ));
            }
            for note in &r.notes {
                text.push_str(&format!("\nnote: {note}"));
            }
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), inner);
        }
        CheckStatus::Error(e) => frame.render_widget(
            Paragraph::new(e.as_str())
                .style(theme.error)
                .wrap(Wrap { trim: true }),
            inner,
        ),
    }
}

/// `1234567` as `1 234 567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

fn message_line(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let line = match (&app.overlay, &app.message) {
        (Some(Overlay::Prompt { purpose, text }), _) => Line::from(vec![
            Span::styled(format!("{}: ", purpose.question()), theme.title),
            Span::raw(format!("{text}▏")),
            Span::styled("   Enter confirms · Esc cancels", theme.dim),
        ]),
        (_, Some(m)) if m.error => Line::styled(format!("! {}", m.text), theme.error),
        (_, Some(m)) => Line::raw(m.text.clone()),
        _ => Line::default(),
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn status_bar(app: &App, frame: &mut Frame, area: Rect) {
    let keymap = &app.config.keymap;
    let pane = app.focus;
    let hint =
        |command: Command, what: &str| keymap.key_for(pane, command).map(|k| format!("{k} {what}"));
    let mut hints: Vec<String> = match pane {
        Pane::Events | Pane::State => vec![
            hint(Command::Activate, "fire"),
            Some("1-9 fire n".into()),
            hint(Command::Undo, "undo"),
            hint(Command::RandomStep, "random"),
            hint(Command::Filter, "filter"),
        ],
        Pane::Trace => vec![
            hint(Command::Activate, "go there"),
            hint(Command::Undo, "undo"),
            hint(Command::Redo, "redo"),
            hint(Command::Initial, "initial"),
        ],
        Pane::Script => vec![
            hint(Command::Activate, "animate"),
            hint(Command::TypeProcess, "type a process"),
        ],
        Pane::Checks => vec![
            hint(Command::Activate, "run/open"),
            hint(Command::RunCheck, "run"),
            hint(Command::OpenCounterexample, "counterexample"),
            hint(Command::Cancel, "cancel"),
        ],
    }
    .into_iter()
    .flatten()
    .collect();
    hints.extend(
        [hint(Command::Help, "help"), hint(Command::Quit, "quit")]
            .into_iter()
            .flatten(),
    );
    let running = if app.check_running() {
        " │ checking…"
    } else {
        ""
    };
    let text = format!(
        " {} │ {} │ depth {} │ {} states seen{running} │ {}",
        app.source.name(),
        app.process,
        app.trace.position,
        app.seen.len(),
        hints.join(" · ")
    );
    frame.render_widget(Paragraph::new(text).style(app.config.theme.status), area);
}

fn help(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let rect = centred(area, 96, 94);
    frame.render_widget(Clear, rect);
    // One line per command, its keys together (the digits as `1-9`).
    let mut grouped: Vec<(Vec<String>, Command)> = Vec::new();
    for (key, command) in app.config.keymap.bindings(app.focus) {
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
                c => c.describe(app.focus),
            };
            Line::from(vec![
                Span::styled(format!("{:>13}  ", keys.join(", ")), theme.title),
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
        "Marks: * changed, ▶ current, τ internal, ✓ done.",
        theme.dim,
    ));
    let block = Block::bordered()
        .title(format!(" Keys — {} pane (Esc closes) ", app.focus.title()))
        .border_style(theme.focused_border);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    // Too many for one column: two, side by side.
    if lines.len() > usize::from(inner.height) {
        let half = lines.len().div_ceil(2);
        let second = lines.split_off(half);
        let [left, right] =
            Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(inner);
        frame.render_widget(Paragraph::new(lines), left);
        frame.render_widget(Paragraph::new(second), right);
    } else {
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

/// A rectangle of `percent_x` × `percent_y` of `area`, centred.
fn centred(area: Rect, percent_x: u16, percent_y: u16) -> Rect {
    let [_, middle, _] = Layout::vertical([
        Constraint::Percentage((100 - percent_y) / 2),
        Constraint::Percentage(percent_y),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, centre, _] = Layout::horizontal([
        Constraint::Percentage((100 - percent_x) / 2),
        Constraint::Percentage(percent_x),
        Constraint::Fill(1),
    ])
    .areas(middle);
    centre
}

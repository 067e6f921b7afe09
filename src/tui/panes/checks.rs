//! The Checks pane: the script's assertions, each checked on a worker
//! thread with live progress (one at a time; Esc cancels), its verdict,
//! and a counterexample to load into the animator.

use std::collections::VecDeque;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Gauge, Paragraph, Wrap};

use super::super::config::{Command, KeyMap, PaneId, Theme};
use super::super::layout::{Column, Placement, Shown};
use super::{Context, Effect, Hint, List, Pane, count, draw_list, elide_middle, plural};
use crate::check::counterexample::RenderedCounterexample;
use crate::check::wording::{Reader, at_its_end, stopped_by, unbounded_note, verdict_text};
use crate::check::worker::{CheckHandle, Checked};
use crate::check::{CheckResult, Verdict};
use crate::lts::Budget;
use crate::script::Script;
use crate::tui::diagnostic_wrap::wrap_diagnostic;
use crate::tui::wrap::wrap_line;

pub enum CheckStatus {
    NotRun,
    /// Waiting for the running check to finish (`C` runs them all).
    Queued,
    Running(CheckHandle),
    Done(Box<Finished>),
    /// The check's diagnostic, rendered with its place and excerpt.
    Error(String),
}

/// A check's result, with its counterexample in words.
pub struct Finished {
    pub result: CheckResult,
    pub counterexample: Option<RenderedCounterexample>,
    /// The state budget it ran within (said when it stopped it).
    pub max_states: Option<usize>,
}

pub struct CheckRow {
    /// The assertion as written.
    pub text: String,
    /// The process a counterexample runs on.
    pub implementation: String,
    pub status: CheckStatus,
}

impl CheckRow {
    /// The assertion as the pane names it: without the `assert` every
    /// one begins with.
    fn name(&self) -> &str {
        self.text.trim_start_matches("assert ")
    }
}

#[derive(Default)]
pub struct ChecksPane {
    pub rows: Vec<CheckRow>,
    pub list: List,
    /// The script the checks run on.
    pub script: Option<Arc<Script>>,
    /// The checks queued after the running one, in order, and the
    /// budget they run within.
    queue: VecDeque<usize>,
    queue_budget: Budget,
}

impl ChecksPane {
    /// The assertions of a newly loaded script, none run.
    pub fn list(&mut self, script: Arc<Script>, assertions: &[(String, String)]) {
        self.rows = assertions
            .iter()
            .map(|(text, imp)| CheckRow {
                text: text.clone(),
                implementation: imp.clone(),
                status: CheckStatus::NotRun,
            })
            .collect();
        self.list.fit(self.rows.len());
        self.script = Some(script);
        self.queue.clear();
    }

    /// The running check, if any.
    pub fn running(&self) -> Option<&CheckHandle> {
        self.rows.iter().find_map(|c| match &c.status {
            CheckStatus::Running(handle) => Some(handle),
            _ => None,
        })
    }

    /// What Enter on the selected check does: run it, or open its
    /// counterexample.
    fn activate(&self) -> Effect {
        let selected = self.list.selected;
        match self.rows.get(selected).map(|c| &c.status) {
            Some(CheckStatus::Done(done)) if done.counterexample.is_some() => {
                Effect::OpenCounterexample(selected)
            }
            Some(CheckStatus::Running(_)) => Effect::Say("running (Esc cancels)".into()),
            Some(_) => Effect::RunCheck(selected),
            None => Effect::None,
        }
    }

    /// Starts checking every assertion in turn, from the first, each
    /// within `budget`.
    pub fn run_all(&mut self, budget: &Budget) -> Effect {
        if self.script.is_some() && self.rows.is_empty() {
            return Effect::Complain("the script has no assertions to check".into());
        }
        let effect = self.run(0, budget);
        if !matches!(effect, Effect::Say(_)) {
            return effect;
        }
        self.queue = (1..self.rows.len()).collect();
        self.queue_budget = budget.clone();
        for &i in &self.queue {
            self.rows[i].status = CheckStatus::Queued;
        }
        Effect::Say(format!(
            "checking the {} assertions in turn (Esc stops them)",
            self.rows.len()
        ))
    }

    /// Drops the checks queued after the running one: they are not run.
    pub fn stop_queue(&mut self) {
        for i in self.queue.drain(..) {
            self.rows[i].status = CheckStatus::NotRun;
        }
    }

    /// Starts checking assertion `index` within `budget`.
    pub fn run(&mut self, index: usize, budget: &Budget) -> Effect {
        let Some(script) = &self.script else {
            return Effect::Complain("there is no script to check".into());
        };
        if self.running().is_some() {
            return Effect::Complain("a check is already running (Esc cancels it)".into());
        }
        let Some(row) = self.rows.get_mut(index) else {
            return Effect::None;
        };
        row.status =
            CheckStatus::Running(CheckHandle::spawn(script.clone(), index, budget.clone()));
        Effect::Say(format!("checking assertion {} (Esc cancels)", index + 1))
    }

    /// Collects a finished check: what to say about it.
    pub fn poll(&mut self, open_key: &str) -> Option<Effect> {
        let i = self
            .rows
            .iter()
            .position(|r| matches!(&r.status, CheckStatus::Running(h) if h.is_finished()))?;
        let CheckStatus::Running(handle) =
            std::mem::replace(&mut self.rows[i].status, CheckStatus::NotRun)
        else {
            unreachable!("matched above")
        };
        let max_states = handle.max_states();
        let (status, effect) = match handle.join_rendered() {
            Ok(Checked {
                result,
                counterexample,
            }) => {
                let hint = if counterexample.is_some() {
                    format!(" — {open_key} opens its counterexample")
                } else {
                    String::new()
                };
                let said = format!(
                    "assertion {}: {}{hint}",
                    i + 1,
                    verdict_text(result.verdict)
                );
                (
                    CheckStatus::Done(Box::new(Finished {
                        result,
                        counterexample,
                        max_states,
                    })),
                    Effect::Say(said),
                )
            }
            Err(d) => {
                let said = format!("assertion {}: {}", i + 1, d.message);
                // In full, as the command line shows it: where, the line
                // with a caret, and the notes.
                let shown = match &self.script {
                    Some(script) => d.render(&script.sources),
                    None => d.message,
                };
                (CheckStatus::Error(shown), Effect::Complain(said))
            }
        };
        self.rows[i].status = status;
        if let Some(next) = self.queue.pop_front() {
            let budget = self.queue_budget.clone();
            self.run(next, &budget);
        }
        Some(effect)
    }

    /// Draws the list and the selected check's detail; the list's first
    /// row shown.
    fn render(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        let (theme, keymap, focused, loading) =
            (cx.theme, cx.keymap, cx.facts.focused, cx.facts.loading);
        if self.rows.is_empty() {
            let text = match (&self.script, loading) {
                (Some(_), _) => "no assertions in this script",
                (None, true) => "loading…",
                (None, false) => "the script did not load (see the State pane)",
            };
            frame.render_widget(
                Paragraph::new(text)
                    .style(theme.dim)
                    .wrap(Wrap { trim: true }),
                area,
            );
            return 0;
        }
        let chosen = self.list.selected;
        // The list needs a row per assertion; the detail gets the rest,
        // at least half.
        let rows = u16::try_from(self.rows.len()).unwrap_or(u16::MAX);
        let detail_height = area.height.saturating_sub(rows).max(area.height / 2);
        let [list_area, detail] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(detail_height)]).areas(area);
        let mut statuses: Vec<(String, Style)> =
            self.rows.iter().map(|c| status(theme, c)).collect();
        let longest = |statuses: &[(String, Style)]| {
            statuses
                .iter()
                .map(|(w, _)| w.chars().count())
                .max()
                .unwrap_or(0)
        };
        let room_beside = |width: usize| usize::from(list_area.width).saturating_sub(width + 4);
        // In a narrow pane a verdict's words would leave the names no
        // room: that verdict is then its mark alone (the detail says it
        // in words), and the others keep theirs where they fit.
        let name_wanted = self.rows.iter().map(|c| c.name().chars().count()).max();
        let need = MIN_NAME_ROOM.min(name_wanted.unwrap_or(0));
        for (word, _) in &mut statuses {
            if room_beside(word.chars().count()) < need {
                *word = word.chars().take(1).collect();
            }
        }
        let width = longest(&statuses);
        let room = room_beside(width);
        let rows = self
            .rows
            .iter()
            .zip(statuses)
            .enumerate()
            .map(|(i, (c, (word, style)))| {
                Line::from(vec![
                    Span::styled(format!("{:>2} ", i + 1), theme.dim),
                    Span::styled(format!("{word:<width$} "), style),
                    // Rows that begin alike still show how they end.
                    Span::raw(elide_middle(c.name(), room)),
                ])
            })
            .collect();
        // Unfocused too: the check just run or opened stays in sight.
        let offset = self.list.offset(usize::from(list_area.height));
        draw_list(
            frame,
            list_area,
            rows,
            offset,
            focused.then_some((chosen, theme.selection)),
        );
        if let Some(row) = self.rows.get(chosen) {
            let block = Block::default()
                .borders(Borders::TOP)
                .border_style(theme.border);
            let mut inner = block.inner(detail);
            frame.render_widget(block, detail);
            // A name the list had to cut is given whole above the rest.
            let name = row.name();
            if name.chars().count() > room {
                let name = Line::styled(name.to_string(), theme.title);
                // What follows is about this check: two rows are kept for
                // its verdict, the rest may name it.
                let lines = wrap_line(&name, usize::from(inner.width), 0);
                let height = u16::try_from(lines.len())
                    .unwrap_or(u16::MAX)
                    .min(inner.height.saturating_sub(2));
                let [head, rest] =
                    Layout::vertical([Constraint::Length(height), Constraint::Fill(1)])
                        .areas(inner);
                frame.render_widget(Paragraph::new(lines), head);
                inner = rest;
            }
            self.detail(frame, inner, theme, keymap, chosen, row);
        }
        offset
    }

    /// What a finished check found, in words: its verdict and counts, the
    /// reduction, its reasons, its counterexample (`opens` is the key that
    /// opens it), its notes and what stopped it.
    fn finished(&self, done: &Finished, opens: &str) -> String {
        let r = &done.result;
        let what = if r.symmetry.is_some() {
            ("representative", "representatives")
        } else {
            ("state", "states")
        };
        let mut text = if r.searched {
            // Not "no state is deeper": a search stops at a
            // failure, a trace found or its budget; one that found what
            // it shows counts up to the level where that ends.
            let steps = plural(u64::from(r.depth), "step", "steps");
            let depth = match &r.counterexample {
                // Its path goes on by τs from that state: they are the
                // divergence, not more levels of the search.
                Some(cx) if cx.kind == crate::check::counterexample::Kind::Divergence => format!(
                    "depth {} (counted up to the level of the state the divergence starts \
                     from, {steps} from the start; the τs after it are the divergence)",
                    r.depth
                ),
                Some(_) => format!(
                    "depth {} (counted up to the level of its counterexample's state, {steps} \
                     from the start)",
                    r.depth
                ),
                None => format!(
                    "depth {} (the search reached states {steps} from the start)",
                    r.depth
                ),
            };
            format!(
                "{}: {}, {}, {depth}, {:.2} s",
                verdict_text(r.verdict),
                plural(r.states, what.0, what.1),
                plural(r.transitions, "transition", "transitions"),
                r.seconds,
            )
        } else {
            format!("{}: a static check", verdict_text(r.verdict))
        };
        if let Some(reduced) = &r.symmetry {
            text.push_str(&format!(
                " — reduced over {} (group order {})",
                reduced.type_list(),
                reduced.order_text()
            ));
        }
        if let Some(script) = &self.script {
            for reason in &r.reasons {
                text.push_str(&format!("\n{}", reason.headline(&script.sources)));
            }
        }
        if let Some(cx) = &done.counterexample {
            text.push_str(&format!(
                "\n{} ({}; {} opens it)",
                at_its_end(cx),
                plural(cx.steps.len() as u64, "step", "steps"),
                opens
            ));
        }
        for note in &r.notes {
            text.push_str(&format!("\nnote: {note}"));
        }
        if let Verdict::Inconclusive(stopped) = r.verdict {
            text.push_str(&format!(
                "\n{}",
                stopped_by(stopped, done.max_states, Reader::Animator)
            ));
            if let Some(stage) = &r.stage {
                text.push_str(&format!("\nit stopped while {stage}"));
            }
            if let Some(note) = unbounded_note(stopped, r.states, r.depth) {
                text.push_str(&format!("\nnote: {note}"));
            }
        }
        text
    }

    fn detail(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        keymap: &KeyMap,
        index: usize,
        row: &CheckRow,
    ) {
        let key = |command| keymap.key_for(PaneId::CHECKS, command).unwrap_or_default();
        match &row.status {
            CheckStatus::Queued => {
                frame.render_widget(
                    Paragraph::new(format!(
                        "assertion {}: runs when the checks before it are done (Esc stops them)",
                        index + 1,
                    ))
                    .style(theme.dim)
                    .wrap(Wrap { trim: true }),
                    area,
                );
            }
            CheckStatus::NotRun => {
                frame.render_widget(
                    Paragraph::new(format!(
                        "assertion {}: not run yet ({} runs it, {} runs them all)",
                        index + 1,
                        key(Command::RunCheck),
                        key(Command::RunAllChecks)
                    ))
                    .style(theme.dim)
                    .wrap(Wrap { trim: true }),
                    area,
                );
            }
            CheckStatus::Running(handle) => running(frame, area, theme, handle),
            CheckStatus::Done(done) => {
                let opens = key(Command::OpenCounterexample);
                let text = self.finished(done, &opens);
                frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
            }
            CheckStatus::Error(e) => frame.render_widget(
                Paragraph::new(wrap_diagnostic(e, usize::from(area.width), theme.error)),
                area,
            ),
        }
    }
}

impl Pane for ChecksPane {
    fn id(&self) -> PaneId {
        PaneId::CHECKS
    }

    fn name(&self) -> &'static str {
        "Checks"
    }

    /// With how many assertions the script has: the list scrolls, and a
    /// pane shorter than it would otherwise hide the rest silently.
    fn title(&self, _cx: &Context) -> String {
        match self.rows.len() {
            0 => " Checks ".to_string(),
            n => format!(" Checks ({n}) "),
        }
    }

    fn placement(&self) -> Placement {
        Placement {
            column: Column::Left,
            share: 45,
            shown: Shown::Plain,
        }
    }

    fn activate_help(&self) -> &'static str {
        "run the selected check, or open its counterexample"
    }

    /// What applies now: a counterexample to open, a check to cancel.
    fn hints(&self, cx: &Context) -> Vec<Hint> {
        let mut hints = vec![
            Hint::Key(Command::Activate, "run/open"),
            Hint::Key(Command::RunCheck, "run"),
        ];
        let selected = self.rows.get(self.list.selected);
        if selected.is_some_and(
            |row| matches!(&row.status, CheckStatus::Done(done) if done.counterexample.is_some()),
        ) {
            hints.push(Hint::Key(Command::OpenCounterexample, "counterexample"));
        }
        hints.push(if cx.facts.check_running {
            Hint::Key(Command::Cancel, "cancel")
        } else {
            Hint::Key(Command::RunAllChecks, "run all")
        });
        hints
    }

    fn update(&mut self, command: Command, cx: &Context) -> Effect {
        if self.list.navigate(command, self.rows.len(), cx.facts.page) {
            return Effect::None;
        }
        match command {
            Command::Activate => self.activate(),
            _ => Effect::None,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &Context) -> usize {
        self.render(frame, area, cx)
    }

    fn rows(&self, _cx: &Context) -> usize {
        self.rows.len()
    }

    fn list_mut(&mut self) -> &mut List {
        &mut self.list
    }
}

/// A running check's progress: its counts, and a gauge of its state
/// budget when it has one.
fn running(frame: &mut Frame, area: Rect, theme: &Theme, handle: &CheckHandle) {
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
    let words = match handle.max_states() {
        Some(max) => {
            let ratio = (p.states as f64 / max as f64).clamp(0.0, 1.0);
            let [gauge, words] =
                Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
            let label = gauge_label(ratio, max as u64, what, gauge.width);
            frame.render_widget(
                Gauge::default()
                    .gauge_style(theme.running)
                    .ratio(ratio)
                    .label(label),
                gauge,
            );
            words
        }
        None => area,
    };
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), words);
}

/// The fewest columns of a check's name the list keeps beside its
/// verdict before it shows verdicts as marks alone.
const MIN_NAME_ROOM: usize = 16;

/// A check's verdict in the list: a mark, then a word (the mark alone
/// where room is short).
fn status(theme: &Theme, row: &CheckRow) -> (String, Style) {
    match &row.status {
        CheckStatus::NotRun => ("·".to_string(), theme.dim),
        CheckStatus::Queued => ("… queued".to_string(), theme.dim),
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
    }
}

/// The longest label of a check's gauge (`ratio` of the budget of
/// `max` states) that fits `width` columns whole: one cut short would
/// read as another number (`of 2` for `of 20 000 000`).
fn gauge_label(ratio: f64, max: u64, what: &str, width: u16) -> String {
    let (percent, max) = (format!("{:.0}%", ratio * 100.0), count(max));
    [
        format!("{percent} of the budget of {max} {what}"),
        format!("{percent} of {max}"),
        percent,
    ]
    .into_iter()
    .find(|label| label.chars().count() <= usize::from(width))
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gauges_label_is_never_cut_inside_a_number() {
        let label = |width| gauge_label(0.44, 20_000_000, "states", width);
        assert_eq!(
            label(60),
            "44% of the budget of 20\u{a0}000\u{a0}000 states"
        );
        assert_eq!(label(30), "44% of 20\u{a0}000\u{a0}000");
        assert_eq!(label(10), "44%");
        assert_eq!(label(2), "");
    }
}

//! Input: keys translated into actions; the prompts (opening them,
//! editing, what a confirmed one does) and the confirmations; the mouse.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::super::config::{Command, PaneId};
use super::super::engine::Request;
use super::super::model::Source;
use super::super::panes::Context;
use super::super::panes::events::EventsPane;
use super::super::panes::symmetry::SymmetryPane;
use super::super::prompt::{EditOutcome, Prompt, PromptKey, Purpose};
use super::{Action, App, DEFAULT_RANDOM_RUN, Job, Overlay};
use crate::lts::animator::EventKind;

impl App {
    /// Translates a key press into an action: prompts and confirmations
    /// take keys first, then the key map.
    pub fn key(&self, key: KeyEvent) -> Option<Action> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return Some(Action::Command(Command::Quit));
        }
        if self.too_small() {
            // Nothing shows: only quitting (and resizing) does anything.
            return self
                .config
                .keymap
                .command(self.focus, &key)
                .filter(|c| *c == Command::Quit)
                .map(Action::Command);
        }
        match &self.overlay {
            Some(Overlay::Prompt(_)) => {
                let edit = match (key.code, ctrl) {
                    (KeyCode::Enter, _) => PromptKey::Confirm,
                    (KeyCode::Esc, _) => PromptKey::Cancel,
                    (KeyCode::Backspace, _) => PromptKey::Backspace,
                    (KeyCode::Delete, _) => PromptKey::Delete,
                    (KeyCode::Left, _) => PromptKey::Left,
                    (KeyCode::Right, _) => PromptKey::Right,
                    (KeyCode::Home, _) | (KeyCode::Char('a'), true) => PromptKey::Start,
                    (KeyCode::End, _) | (KeyCode::Char('e'), true) => PromptKey::End,
                    (KeyCode::Char('u'), true) => PromptKey::DeleteToStart,
                    (KeyCode::Char('w'), true) => PromptKey::DeleteWord,
                    (KeyCode::Up, _) => PromptKey::Older,
                    (KeyCode::Down, _) => PromptKey::Newer,
                    (KeyCode::Char(c), false) => PromptKey::Char(c),
                    _ => return None,
                };
                return Some(Action::Prompt(edit));
            }
            // Read, then any key closes it; a key bound to something
            // other than closing does that too (`e` types the process
            // again), so what is typed after the problem is not misread.
            // A held key's repeats do not close it unread.
            Some(Overlay::Problem(_)) if key.kind == KeyEventKind::Repeat => return None,
            Some(Overlay::Problem(_)) => {
                let only_closes = matches!(key.code, KeyCode::Esc | KeyCode::Enter);
                let command = self.config.keymap.command(self.focus, &key);
                return Some(Action::Command(
                    command.filter(|_| !only_closes).unwrap_or(Command::Cancel),
                ));
            }
            Some(Overlay::ConfirmQuit | Overlay::ConfirmOpen(_) | Overlay::ConfirmDrop(_)) => {
                return Some(Action::Prompt(match key.code {
                    KeyCode::Char('y' | 'Y') | KeyCode::Enter => PromptKey::Confirm,
                    _ => PromptKey::Cancel,
                }));
            }
            _ => {}
        }
        self.config
            .keymap
            .command(self.focus, &key)
            .map(Action::Command)
    }

    pub(super) fn prompt(&mut self, key: PromptKey) {
        match self.overlay.take() {
            Some(Overlay::ConfirmQuit) => {
                if key == PromptKey::Confirm {
                    self.quit_anyway();
                }
            }
            Some(Overlay::ConfirmOpen(path)) => {
                if key == PromptKey::Confirm {
                    self.reload_from(Some(Source::File(path)));
                }
            }
            Some(Overlay::ConfirmDrop(replacement)) => {
                if key == PromptKey::Confirm {
                    self.replace_walk(replacement, true);
                } else {
                    self.say("nothing opened: both walks are kept");
                }
            }
            Some(Overlay::Prompt(mut prompt)) => {
                let history = self.history.of(prompt.purpose).to_vec();
                match prompt.edit(key, &history) {
                    EditOutcome::Editing => {
                        if prompt.purpose == Purpose::Filter {
                            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
                            self.panes
                                .of_type_mut::<EventsPane>()
                                .set_filter(&prompt.text(), &moves);
                        }
                        self.overlay = Some(Overlay::Prompt(prompt));
                    }
                    EditOutcome::Cancelled => {
                        // The filter as it was before the prompt opened
                        // (Esc again, outside the prompt, clears it).
                        if prompt.purpose == Purpose::Filter {
                            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
                            let before = std::mem::take(&mut self.filter_before);
                            self.panes
                                .of_type_mut::<EventsPane>()
                                .set_filter(&before, &moves);
                        }
                    }
                    EditOutcome::Confirmed(text) => {
                        self.history.remember(prompt.purpose, &text);
                        self.prompt_confirmed(prompt.purpose, text);
                    }
                }
            }
            other => self.overlay = other,
        }
    }

    fn prompt_confirmed(&mut self, purpose: Purpose, text: String) {
        match purpose {
            Purpose::Filter => {}
            Purpose::Process => {
                let text = text.trim();
                if !text.is_empty() {
                    self.animate(text);
                }
            }
            Purpose::RandomRun => match text.trim().parse::<usize>() {
                Ok(0) => self.say("0 random steps: nothing to do"),
                Ok(n) => self.random(n),
                Err(_) => self.complain(format!("`{text}` is not a number of steps")),
            },
            Purpose::SaveSession => {
                let Some(walk) = &self.walk else {
                    self.complain("nothing is animated: there is no session to save");
                    return;
                };
                let (initial, steps) = walk.path.saved();
                let position = walk.path.position();
                self.request(
                    Job::Save {
                        record: walk.record(),
                    },
                    Request::Save {
                        path: PathBuf::from(text.trim()),
                        earlier: false,
                        initial,
                        steps,
                        position,
                        mark: walk.mark.clone(),
                    },
                );
            }
            Purpose::Trace => self.follow_trace(text.trim()),
            Purpose::Stage => {
                let x = self.explained();
                if let Err(why) = self
                    .panes
                    .of_type_mut::<SymmetryPane>()
                    .go_to(&text, x.as_deref())
                {
                    self.complain(why);
                }
            }
            Purpose::ExportStages => self.export(text.trim()),
            Purpose::ExportStructure => self.export_structure(text.trim()),
        }
    }

    pub(super) fn click(&mut self, column: u16, row: u16, scroll: Option<bool>) {
        if self.overlay.is_some() {
            return;
        }
        let Some(hit) = self.layout.hit(column, row) else {
            return;
        };
        self.focus = hit.pane;
        let facts = self.facts(hit.pane);
        let cx = Context::new(
            &self.config,
            self.walk.as_ref(),
            self.problem.as_deref(),
            facts,
        );
        let Some(pane) = self.panes.get_mut(hit.pane) else {
            return;
        };
        let rows = pane.rows(&cx);
        let on_list = hit
            .line
            .is_some_and(|line| pane.list_lines().is_none_or(|lines| line < lines));
        let selects = pane.click_selects() && on_list;
        let list = pane.list_mut();
        match (scroll, hit.row) {
            (Some(down), _) => list.scroll(down, rows),
            (None, Some(clicked)) if clicked < rows && selects => list.selected = clicked,
            _ => {}
        }
    }

    /// Asks for the number of steps of a random run.
    pub(super) fn ask_random_run(&mut self) {
        self.overlay = Some(Overlay::Prompt(Prompt::new(
            Purpose::RandomRun,
            &DEFAULT_RANDOM_RUN.to_string(),
        )))
    }

    /// Asks for the events' filter, which applies as it is typed.
    pub(super) fn ask_filter(&mut self) {
        self.focus = PaneId::EVENTS;
        self.filter_before = self.panes.of_type::<EventsPane>().filter.clone();
        self.overlay = Some(Overlay::Prompt(Prompt::new(
            Purpose::Filter,
            &self.panes.of_type::<EventsPane>().filter,
        )))
    }

    /// Asks for a process to animate, offering the one animated.
    pub(super) fn ask_process(&mut self) {
        let current = self.walk.as_ref().map_or("", |w| w.process.as_str());
        self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::Process, current)))
    }

    /// Asks for the file to save the session to.
    pub(super) fn ask_session_path(&mut self) {
        let text = self
            .session_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "symcsp-session.ron".to_string());
        self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::SaveSession, &text)))
    }

    /// Asks for a trace to follow, in an empty prompt: the one walked so
    /// far is one Up away (the newest of the prompt's history).
    pub(super) fn ask_trace(&mut self) {
        // The visible events walked so far, to edit: the raw
        // walk's, which the trace is followed in.
        let walked = self.walk.as_ref().map_or_else(String::new, |w| {
            let events: Vec<&str> = (1..=w.path.position())
                .map(|p| w.path.step(p))
                .filter(|step| step.kind == EventKind::Visible)
                .map(|step| w.names.event(step.event))
                .collect();
            events.join(", ")
        });
        self.history.remember(Purpose::Trace, &walked);
        self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::Trace, "")));
    }
}

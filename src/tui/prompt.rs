//! The prompt line: one line of text edited as a shell edits it — a
//! cursor moved with the arrows, Home/End and Ctrl-A/E, Ctrl-U and Ctrl-W
//! to delete, Up/Down through what was typed before for the same
//! question — where prefilled text is selected, so typing replaces it.
//! Text longer than the line is shown in a window that follows the
//! cursor ([`Prompt::window`]).

use rustc_hash::FxHashMap;

/// What a prompt's text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    Process,
    RandomRun,
    Filter,
    SaveSession,
    /// A trace to follow from the initial state.
    Trace,
    /// A stage of the representative algorithm to show, by number.
    Stage,
    /// The file to export the algorithm's stages to.
    ExportStages,
    /// The file to export the structural view to.
    ExportStructure,
}

impl Purpose {
    pub fn question(self) -> &'static str {
        match self {
            Purpose::Process => "Animate process",
            Purpose::RandomRun => "Random steps",
            Purpose::Filter => "Filter events",
            Purpose::SaveSession => "Save session to",
            Purpose::Trace => "Follow the trace (events, commas between) from the start",
            Purpose::Stage => "Go to stage",
            Purpose::ExportStages => "Export the stages as Markdown to",
            Purpose::ExportStructure => "Export the communication structure as Markdown to",
        }
    }
}

/// A key pressed while the prompt is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKey {
    Char(char),
    Backspace,
    Delete,
    Left,
    Right,
    /// Home, Ctrl-A.
    Start,
    /// End, Ctrl-E.
    End,
    /// Ctrl-U: everything before the cursor.
    DeleteToStart,
    /// Ctrl-W: the word before the cursor.
    DeleteWord,
    /// Up: the previous entry of the history.
    Older,
    /// Down: the next one.
    Newer,
    Confirm,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub purpose: Purpose,
    text: Vec<char>,
    /// In characters, `0..=text.len()`.
    cursor: usize,
    /// The text was put there, not typed: the next character replaces it.
    selected: bool,
    /// While going through the history: the entry shown (from the
    /// newest, 0), and what was typed before.
    browsing: Option<(usize, Vec<char>)>,
    /// A hint shown after the text (`Counter(_, _)`).
    pub hint: String,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOutcome {
    /// The prompt stays open; the text may have changed.
    Editing,
    Confirmed(String),
    Cancelled,
}

impl Prompt {
    /// A prompt with `text` prefilled (and selected).
    pub fn new(purpose: Purpose, text: &str) -> Prompt {
        let text: Vec<char> = text.chars().collect();
        Prompt {
            purpose,
            cursor: text.len(),
            selected: !text.is_empty(),
            text,
            browsing: None,
            hint: String::new(),
        }
    }

    /// A prompt with `text` typed already (not selected), and a hint.
    pub fn continuing(purpose: Purpose, text: &str, hint: String) -> Prompt {
        Prompt {
            selected: false,
            hint,
            ..Prompt::new(purpose, text)
        }
    }

    pub fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// The text split at the cursor.
    pub fn around_cursor(&self) -> (String, String) {
        (
            self.text[..self.cursor].iter().collect(),
            self.text[self.cursor..].iter().collect(),
        )
    }

    /// The text around the cursor as it fits in `room` characters: all
    /// of it when it fits, else a window that keeps the cursor in view —
    /// the end of what is typed shown as it is typed, the cut ends marked
    /// with `…`.
    pub fn window(&self, room: usize) -> (String, String) {
        let room = room.max(4);
        if self.text.len() < room {
            return self.around_cursor();
        }
        // The cursor takes a column of its own.
        let room = room - 1;
        let start = self.cursor.saturating_sub(room - 1);
        let end = (start + room).min(self.text.len());
        let mut before: String = self.text[start..self.cursor].iter().collect();
        let mut after: String = self.text[self.cursor..end].iter().collect();
        if start > 0 {
            before.replace_range(..before.char_indices().nth(1).map_or(0, |(i, _)| i), "…");
        }
        if end < self.text.len() && !after.is_empty() {
            after.pop();
            after.push('…');
        }
        (before, after)
    }

    pub fn is_selected(&self) -> bool {
        self.selected
    }

    /// Applies `key`, with the earlier entries for this prompt's purpose
    /// (oldest first).
    pub fn edit(&mut self, key: PromptKey, history: &[String]) -> EditOutcome {
        let selected = std::mem::replace(&mut self.selected, false);
        match key {
            PromptKey::Char(c) => {
                if selected {
                    self.text.clear();
                    self.cursor = 0;
                }
                self.text.insert(self.cursor, c);
                self.cursor += 1;
            }
            PromptKey::Backspace if selected => {
                self.text.clear();
                self.cursor = 0;
            }
            PromptKey::Backspace => {
                if self.cursor > 0 {
                    self.cursor -= 1;
                    self.text.remove(self.cursor);
                }
            }
            PromptKey::Delete => {
                if self.cursor < self.text.len() {
                    self.text.remove(self.cursor);
                }
            }
            PromptKey::Left => self.cursor = self.cursor.saturating_sub(1),
            PromptKey::Right => self.cursor = (self.cursor + 1).min(self.text.len()),
            PromptKey::Start => self.cursor = 0,
            PromptKey::End => self.cursor = self.text.len(),
            PromptKey::DeleteToStart => {
                self.text.drain(..self.cursor);
                self.cursor = 0;
            }
            PromptKey::DeleteWord => {
                let mut start = self.cursor;
                while start > 0 && self.text[start - 1].is_whitespace() {
                    start -= 1;
                }
                while start > 0 && !self.text[start - 1].is_whitespace() {
                    start -= 1;
                }
                self.text.drain(start..self.cursor);
                self.cursor = start;
            }
            PromptKey::Older => self.browse(history, true),
            PromptKey::Newer => self.browse(history, false),
            PromptKey::Confirm => return EditOutcome::Confirmed(self.text()),
            PromptKey::Cancel => return EditOutcome::Cancelled,
        }
        EditOutcome::Editing
    }

    fn browse(&mut self, history: &[String], older: bool) {
        let entry = match (&self.browsing, older) {
            (None, true) if !history.is_empty() => Some(0),
            (None, _) => None,
            (Some((k, _)), true) => Some((k + 1).min(history.len() - 1)),
            (Some((0, _)), false) => {
                let (_, typed) = self.browsing.take().expect("browsing");
                self.text = typed;
                self.cursor = self.text.len();
                return;
            }
            (Some((k, _)), false) => Some(k - 1),
        };
        let Some(k) = entry else {
            return;
        };
        let typed = match self.browsing.take() {
            Some((_, typed)) => typed,
            None => self.text.clone(),
        };
        self.text = history[history.len() - 1 - k].chars().collect();
        self.cursor = self.text.len();
        self.browsing = Some((k, typed));
    }
}

/// What was confirmed at each kind of prompt, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    entries: FxHashMap<Purpose, Vec<String>>,
}

/// Entries kept per purpose.
const HISTORY: usize = 100;

impl History {
    pub fn of(&self, purpose: Purpose) -> &[String] {
        self.entries.get(&purpose).map_or(&[], Vec::as_slice)
    }

    pub fn remember(&mut self, purpose: Purpose, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let list = self.entries.entry(purpose).or_default();
        list.retain(|t| t != text);
        list.push(text.to_string());
        if list.len() > HISTORY {
            list.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(prompt: &mut Prompt, text: &str) {
        for c in text.chars() {
            prompt.edit(PromptKey::Char(c), &[]);
        }
    }

    #[test]
    fn prefilled_text_is_replaced_by_typing_but_kept_by_moving() {
        let mut p = Prompt::new(Purpose::RandomRun, "100");
        typed(&mut p, "5");
        assert_eq!(p.text(), "5");
        let mut p = Prompt::new(Purpose::Process, "System");
        p.edit(PromptKey::Start, &[]);
        typed(&mut p, "(");
        p.edit(PromptKey::End, &[]);
        typed(&mut p, ")");
        assert_eq!(p.text(), "(System)");
        let mut p = Prompt::new(Purpose::Process, "System");
        p.edit(PromptKey::Backspace, &[]);
        assert_eq!(p.text(), "", "Backspace on a selection clears it");
    }

    #[test]
    fn the_cursor_moves_and_deletes_like_a_shell() {
        let mut p = Prompt::new(Purpose::Process, "");
        typed(&mut p, "Phil(P0) ||| Fork");
        p.edit(PromptKey::DeleteWord, &[]);
        assert_eq!(p.text(), "Phil(P0) ||| ");
        p.edit(PromptKey::DeleteWord, &[]);
        assert_eq!(p.text(), "Phil(P0) ");
        p.edit(PromptKey::Left, &[]);
        p.edit(PromptKey::Left, &[]);
        p.edit(PromptKey::Backspace, &[]);
        assert_eq!(p.around_cursor(), ("Phil(P".to_string(), ") ".to_string()));
        p.edit(PromptKey::Delete, &[]);
        assert_eq!(p.text(), "Phil(P ");
        p.edit(PromptKey::DeleteToStart, &[]);
        assert_eq!(p.text(), " ");
        assert_eq!(
            p.edit(PromptKey::Confirm, &[]),
            EditOutcome::Confirmed(" ".into())
        );
    }

    #[test]
    fn a_long_text_is_shown_in_a_window_that_keeps_the_cursor_in_view() {
        let typed = "push.T0.A, push.T1.B, pop.T0.B, push.T2.A, pop.T1.A";
        let p = Prompt::continuing(Purpose::Trace, typed, String::new());
        // Short enough: all of it.
        assert_eq!(p.window(80), (typed.to_string(), String::new()));
        // Too long: the end, where the cursor is, with the start cut.
        let (before, after) = p.window(20);
        assert_eq!(before, "…sh.T2.A, pop.T1.A");
        assert!(before.chars().count() < 20 && after.is_empty());
        // The cursor moved to the start: the start shown, the end cut.
        let mut p = p;
        p.edit(PromptKey::Start, &[]);
        let (before, after) = p.window(20);
        assert_eq!(before, "");
        assert_eq!(after, "push.T0.A, push.T1…");
    }

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_what_was_typed() {
        let mut history = History::default();
        history.remember(Purpose::Filter, "push");
        history.remember(Purpose::Filter, "pop");
        history.remember(Purpose::Filter, "push");
        let list = history.of(Purpose::Filter).to_vec();
        assert_eq!(list, ["pop", "push"], "a repeated entry moves to the end");
        let mut p = Prompt::new(Purpose::Filter, "");
        typed(&mut p, "lo");
        p.edit(PromptKey::Older, &list);
        assert_eq!(p.text(), "push");
        p.edit(PromptKey::Older, &list);
        assert_eq!(p.text(), "pop");
        p.edit(PromptKey::Older, &list);
        assert_eq!(p.text(), "pop", "the oldest stays");
        p.edit(PromptKey::Newer, &list);
        p.edit(PromptKey::Newer, &list);
        assert_eq!(p.text(), "lo");
        assert!(history.of(Purpose::Process).is_empty());
    }
}

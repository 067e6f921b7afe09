//! The animator's configuration as data: the key map and the theme, read
//! from RON. The defaults are embedded from `assets/`; a user's own files
//! in the config directory are laid over them, and a file that does not
//! read gives a message and leaves the defaults in force.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use indexmap::IndexMap;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.ron");
const DEFAULT_THEME: &str = include_str!("../../assets/theme.ron");

/// A pane, by the name key maps give it (`script`, `events`): which
/// panes there are, their order and where they go is the registry's
/// ([`super::panes::Panes`]); the key map only names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(pub &'static str);

impl PaneId {
    pub const SCRIPT: PaneId = PaneId("script");
    pub const STATE: PaneId = PaneId("state");
    pub const EVENTS: PaneId = PaneId("events");
    pub const TRACE: PaneId = PaneId("trace");
    pub const CHECKS: PaneId = PaneId("checks");
    pub const SYMMETRY: PaneId = PaneId("symmetry");
}

/// What a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    Quit,
    Help,
    Cancel,
    NextPane,
    PrevPane,
    PaneLeft,
    PaneRight,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Activate,
    FireNth(usize),
    Undo,
    Redo,
    RandomStep,
    RandomRun,
    Initial,
    Filter,
    RunCheck,
    RunAllChecks,
    OpenCounterexample,
    TypeProcess,
    Maximise,
    Grow,
    Shrink,
    SaveSession,
    Reload,
    ToggleSymmetry,
    AlgorithmNext,
    AlgorithmBack,
    Mark,
    Compare,
    Graph,
    WalkReduced,
    SwapWalk,
    ShowTypes,
    FollowTrace,
    GoToStage,
    ChooseMember,
    ExportStages,
    ScrollLeft,
    ScrollRight,
    CycleStrategy,
    PartialOrder,
}

impl Command {
    /// What the command does, in the pane that has the focus (for the
    /// help overlay); `activate` is what Enter does there.
    pub fn describe(self, activate: &str) -> String {
        match self {
            Command::Quit => "quit (asks while a check runs; keeps a walk not saved)".into(),
            Command::Help => "show or hide this help".into(),
            Command::Cancel => "close an overlay; cancel the running check".into(),
            Command::NextPane => "next pane".into(),
            Command::PrevPane => "previous pane".into(),
            Command::PaneLeft => "pane to the left".into(),
            Command::PaneRight => "pane to the right".into(),
            Command::Up => "move up".into(),
            Command::Down => "move down".into(),
            Command::PageUp => "page up".into(),
            Command::PageDown => "page down".into(),
            Command::Top => "first row".into(),
            Command::Bottom => "last row".into(),
            Command::Activate => activate.into(),
            Command::FireNth(n) => format!("fire event {n} of the list"),
            Command::Undo => "undo the last step".into(),
            Command::Redo => "redo an undone step".into(),
            Command::RandomStep => "take a random step".into(),
            Command::RandomRun => "take N random steps (asks for N)".into(),
            Command::Initial => "go to the initial state".into(),
            Command::Filter => "filter the events by text".into(),
            Command::RunCheck => "run the check selected in the Checks pane".into(),
            Command::RunAllChecks => "run every check in turn (Esc stops them)".into(),
            Command::OpenCounterexample => "open the selected check's counterexample".into(),
            Command::TypeProcess => "type a process expression to animate".into(),
            Command::Maximise => "maximise the focused pane (again: restore)".into(),
            Command::Grow => "widen the focused pane's column".into(),
            Command::Shrink => "narrow the focused pane's column".into(),
            Command::SaveSession => "save the session (model, process, trace)".into(),
            Command::Reload => "reload the script from disk".into(),
            Command::ToggleSymmetry => {
                "open or close the symmetry view (state beside its representative)".into()
            }
            Command::AlgorithmNext => "next step of the representative algorithm".into(),
            Command::AlgorithmBack => "previous step of the representative algorithm".into(),
            Command::Mark => "mark this state (to compare another with it)".into(),
            Command::Compare => {
                "compare this state with the marked one: why different representatives?".into()
            }
            Command::Graph => "show the state as a graph (Section 7.1)".into(),
            Command::WalkReduced => {
                "walk the reduced system: step through representatives (again: raw)".into()
            }
            Command::SwapWalk => {
                "back to the walk left for another process or counterexample (again: return)".into()
            }
            Command::ShowTypes => {
                "show each definition's type in the Script pane (again: hide them)".into()
            }
            Command::FollowTrace => {
                "type a trace (push.T0.A, push.T1.B) to follow from the initial state, τ as \
                 needed"
                    .into()
            }
            Command::GoToStage => {
                "go to a stage of the representative algorithm by its number (asks for it)".into()
            }
            Command::ChooseMember => "at a step-3 split of the algorithm: split off another \
                                      member of the cell (step 3 by hand; Esc: the algorithm's \
                                      own)"
                .into(),
            Command::ExportStages => {
                "export this state's algorithm stage by stage as Markdown (asks for the file)"
                    .into()
            }
            Command::ScrollLeft => "scroll the symmetry view's cut text left".into(),
            Command::CycleStrategy => "next representative strategy (fdr, sorted, segmented, \
                                       flooding, exact): the symmetry view shows its \
                                       representative beside the algorithm's"
                .into(),
            Command::PartialOrder => "mark the events a partial order reduced search follows \
                                       here and say why the others are left out (again: \
                                       keeping traces too; again: off)"
                .into(),
            Command::ScrollRight => {
                "scroll the symmetry view's cut text right (the pane's edge says where text \
                 is cut)"
                    .into()
            }
        }
    }
}

#[derive(Deserialize)]
struct KeyMapFile {
    #[serde(default)]
    global: IndexMap<String, Command>,
    #[serde(default)]
    panes: IndexMap<PaneName, IndexMap<String, Command>>,
}

/// A pane's name as a key map writes it: a bare identifier
/// (`events: { … }`), as the panes were an enum's variants.
#[derive(PartialEq, Eq, Hash)]
struct PaneName(String);

impl<'de> Deserialize<'de> for PaneName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<PaneName, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = PaneName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a pane's name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<PaneName, E> {
                Ok(PaneName(name.to_string()))
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// Keys to commands: the global bindings and, laid over them, the
/// focused pane's.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyMap {
    global: IndexMap<String, Command>,
    /// By pane name; a name no pane has is found when the animator
    /// starts ([`KeyMap::keep_panes`]).
    panes: IndexMap<String, IndexMap<String, Command>>,
}

impl KeyMap {
    /// The command bound to `key` in `pane`, if any.
    pub fn command(&self, pane: PaneId, key: &KeyEvent) -> Option<Command> {
        let name = key_name(key)?;
        self.panes
            .get(pane.0)
            .and_then(|m| m.get(&name))
            .or_else(|| self.global.get(&name))
            .copied()
    }

    /// Every binding in force in `pane`, in the order written.
    pub fn bindings(&self, pane: PaneId) -> Vec<(String, Command)> {
        let own = self.panes.get(pane.0);
        let mut list: Vec<(String, Command)> = self
            .global
            .iter()
            .filter(|(key, _)| own.is_none_or(|m| !m.contains_key(*key)))
            .map(|(k, c)| (k.clone(), *c))
            .collect();
        if let Some(own) = own {
            list.extend(own.iter().map(|(k, c)| (k.clone(), *c)));
        }
        list
    }

    /// The key to name for `command` in `pane`, in a sentence: the
    /// first bound, else the command's own name.
    pub fn key_text(&self, pane: PaneId, command: Command) -> String {
        self.key_for(pane, command)
            .unwrap_or_else(|| format!("{command:?}"))
    }

    /// The first key bound to `command` in `pane`, for hints.
    pub fn key_for(&self, pane: PaneId, command: Command) -> Option<String> {
        self.bindings(pane)
            .into_iter()
            .find(|(_, c)| *c == command)
            .map(|(k, _)| k)
    }

    fn parse(text: &str) -> Result<KeyMap, String> {
        let file: KeyMapFile = ron::from_str(text).map_err(|e| e.to_string())?;
        let keys = file
            .global
            .keys()
            .chain(file.panes.values().flat_map(|m| m.keys()));
        for key in keys {
            check_key_name(key)?;
        }
        Ok(KeyMap {
            global: file.global,
            panes: file
                .panes
                .into_iter()
                .map(|(name, keys)| (name.0, keys))
                .collect(),
        })
    }

    /// Drops the bindings of panes not in `known` (a user's key map may
    /// name a pane symcsp does not have); the names dropped.
    pub fn keep_panes(&mut self, known: &[PaneId]) -> Vec<String> {
        let unknown: Vec<String> = self
            .panes
            .keys()
            .filter(|name| !known.iter().any(|id| id.0 == name.as_str()))
            .cloned()
            .collect();
        self.panes.retain(|name, _| !unknown.contains(name));
        unknown
    }

    /// `other`'s bindings laid over these.
    fn overlay(mut self, other: KeyMap) -> KeyMap {
        self.global.extend(other.global);
        for (pane, map) in other.panes {
            self.panes.entry(pane).or_default().extend(map);
        }
        self
    }
}

impl Default for KeyMap {
    fn default() -> KeyMap {
        KeyMap::parse(DEFAULT_KEYMAP).expect("the embedded key map reads")
    }
}

/// The canonical name of a key press, as key maps write it.
pub fn key_name(key: &KeyEvent) -> Option<String> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let base = match key.code {
        KeyCode::Char(' ') => "Space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(n) => format!("F{n}"),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab if key.modifiers.contains(KeyModifiers::SHIFT) => "BackTab".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "BackTab".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Delete".into(),
        KeyCode::Insert => "Insert".into(),
        KeyCode::Up => "Up".into(),
        KeyCode::Down => "Down".into(),
        KeyCode::Left => "Left".into(),
        KeyCode::Right => "Right".into(),
        KeyCode::PageUp => "PageUp".into(),
        KeyCode::PageDown => "PageDown".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        _ => return None,
    };
    Some(match (ctrl, alt) {
        (true, _) => format!("Ctrl-{base}"),
        (false, true) => format!("Alt-{base}"),
        _ => base,
    })
}

const NAMED_KEYS: [&str; 16] = [
    "Enter",
    "Esc",
    "Tab",
    "BackTab",
    "Backspace",
    "Delete",
    "Insert",
    "Up",
    "Down",
    "Left",
    "Right",
    "PageUp",
    "PageDown",
    "Home",
    "End",
    "Space",
];

fn check_key_name(name: &str) -> Result<(), String> {
    let base = name
        .strip_prefix("Ctrl-")
        .or_else(|| name.strip_prefix("Alt-"))
        .unwrap_or(name);
    let single = base.chars().count() == 1;
    let function = base
        .strip_prefix('F')
        .and_then(|n| n.parse::<u8>().ok())
        .is_some_and(|n| (1..=12).contains(&n));
    if single || function || NAMED_KEYS.contains(&base) {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a key symcsp knows (write a character, Ctrl-x, Alt-x, F1..F12 or a key name such as Enter, Esc, PageUp)"
        ))
    }
}

/// The styles of the animator, by what they mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub border: Style,
    pub focused_border: Style,
    pub title: Style,
    pub selection: Style,
    pub changed: Style,
    pub tau: Style,
    pub tick: Style,
    pub passed: Style,
    pub failed: Style,
    pub running: Style,
    pub error: Style,
    pub dim: Style,
    pub spec: Style,
    pub status: Style,
    /// Values a permutation moves (underlined too, for `NO_COLOR`).
    pub moved: Style,
    /// The cells of a partition, in turn (cell numbers are shown too).
    pub cells: Vec<Style>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    border: String,
    focused_border: String,
    title: String,
    selection: String,
    changed: String,
    tau: String,
    tick: String,
    passed: String,
    failed: String,
    running: String,
    error: String,
    dim: String,
    spec: String,
    status: String,
    status_background: String,
    #[serde(default = "default_moved")]
    moved: String,
    #[serde(default = "default_cells")]
    cells: Vec<String>,
}

fn default_moved() -> String {
    "lightmagenta".into()
}

fn default_cells() -> Vec<String> {
    [
        "lightgreen",
        "lightblue",
        "lightyellow",
        "lightmagenta",
        "lightcyan",
        "lightred",
    ]
    .map(String::from)
    .to_vec()
}

impl Theme {
    fn parse(text: &str) -> Result<Theme, String> {
        let file: ThemeFile = ron::from_str(text).map_err(|e| e.to_string())?;
        let color = |name: &str| {
            Color::from_str(name).map_err(|_| format!("`{name}` is not a colour symcsp knows"))
        };
        let fg = |name: &str| color(name).map(|c| Style::new().fg(c));
        Ok(Theme {
            border: fg(&file.border)?,
            focused_border: fg(&file.focused_border)?.add_modifier(Modifier::BOLD),
            title: fg(&file.title)?.add_modifier(Modifier::BOLD),
            selection: Style::new()
                .bg(color(&file.selection)?)
                .add_modifier(Modifier::BOLD),
            changed: fg(&file.changed)?.add_modifier(Modifier::BOLD),
            tau: fg(&file.tau)?.add_modifier(Modifier::ITALIC),
            tick: fg(&file.tick)?,
            passed: fg(&file.passed)?,
            failed: fg(&file.failed)?.add_modifier(Modifier::BOLD),
            running: fg(&file.running)?,
            error: fg(&file.error)?,
            dim: fg(&file.dim)?,
            spec: fg(&file.spec)?,
            status: fg(&file.status)?.bg(color(&file.status_background)?),
            moved: fg(&file.moved)?.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            cells: file
                .cells
                .iter()
                .map(|c| fg(c))
                .collect::<Result<Vec<_>, _>>()?,
        })
    }

    /// The same theme with every colour removed (`NO_COLOR`): selection
    /// shows reversed, emphasis stays bold or italic.
    pub fn without_colour(self) -> Theme {
        let plain = |s: Style| Style {
            fg: None,
            bg: None,
            ..s
        };
        Theme {
            border: plain(self.border),
            focused_border: plain(self.focused_border),
            title: plain(self.title),
            selection: plain(self.selection).add_modifier(Modifier::REVERSED),
            changed: plain(self.changed),
            tau: plain(self.tau),
            tick: plain(self.tick),
            passed: plain(self.passed),
            failed: plain(self.failed),
            running: plain(self.running),
            error: plain(self.error),
            dim: plain(self.dim),
            spec: plain(self.spec),
            status: plain(self.status).add_modifier(Modifier::REVERSED),
            moved: plain(self.moved),
            cells: self.cells.into_iter().map(plain).collect(),
        }
    }
}

impl Theme {
    /// The style of cell `k` of a partition.
    pub fn cell(&self, k: usize) -> Style {
        if self.cells.is_empty() {
            Style::default()
        } else {
            self.cells[k % self.cells.len()]
        }
    }
}

impl Default for Theme {
    fn default() -> Theme {
        Theme::parse(DEFAULT_THEME).expect("the embedded theme reads")
    }
}

/// Key map and theme, with what went wrong reading the user's files.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub keymap: KeyMap,
    pub theme: Theme,
    pub problems: Vec<String>,
}

impl Config {
    /// The configuration directory: `$SYMCSP_CONFIG_DIR`, else `symcsp`
    /// in the platform's config directory.
    pub fn directory() -> Option<PathBuf> {
        match std::env::var_os("SYMCSP_CONFIG_DIR") {
            Some(dir) => Some(PathBuf::from(dir)),
            None => dirs::config_dir().map(|d| d.join("symcsp")),
        }
    }

    /// The defaults with the user's files from `dir` laid over them, and
    /// without colour when `no_colour` (the `NO_COLOR` convention).
    pub fn load(dir: Option<&Path>, no_colour: bool) -> Config {
        let mut config = Config {
            keymap: KeyMap::default(),
            theme: Theme::default(),
            problems: Vec::new(),
        };
        if let Some(dir) = dir {
            let keymap = dir.join("keymap.ron");
            if let Some(text) = read_if_present(&keymap, &mut config.problems) {
                match KeyMap::parse(&text) {
                    Ok(user) => config.keymap = config.keymap.overlay(user),
                    Err(e) => config.problems.push(format!(
                        "{}: {e}; using the default key map",
                        keymap.display()
                    )),
                }
            }
            let theme = dir.join("theme.ron");
            if let Some(text) = read_if_present(&theme, &mut config.problems) {
                match Theme::parse(&text) {
                    Ok(user) => config.theme = user,
                    Err(e) => config
                        .problems
                        .push(format!("{}: {e}; using the default theme", theme.display())),
                }
            }
        }
        if no_colour {
            config.theme = config.theme.without_colour();
        }
        config
    }
}

impl Default for Config {
    fn default() -> Config {
        Config::load(None, false)
    }
}

fn read_if_present(path: &Path, problems: &mut Vec<String>) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            problems.push(format!("{}: cannot read it: {e}", path.display()));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_as_key_maps_write_them() {
        let key = |code, modifiers| key_name(&KeyEvent::new(code, modifiers));
        assert_eq!(
            key(KeyCode::Char('r'), KeyModifiers::CONTROL).as_deref(),
            Some("Ctrl-r")
        );
        assert_eq!(
            key(KeyCode::Char('R'), KeyModifiers::SHIFT).as_deref(),
            Some("R")
        );
        assert_eq!(
            key(KeyCode::Tab, KeyModifiers::SHIFT).as_deref(),
            Some("BackTab")
        );
        assert_eq!(
            key(KeyCode::F(5), KeyModifiers::NONE).as_deref(),
            Some("F5")
        );
    }

    #[test]
    fn the_default_key_map_binds_what_the_issue_names() {
        let map = KeyMap::default();
        let press = |c: char| map.command(PaneId::EVENTS, &KeyEvent::from(KeyCode::Char(c)));
        assert_eq!(press('q'), Some(Command::Quit));
        assert_eq!(press('3'), Some(Command::FireNth(3)));
        assert_eq!(press('R'), Some(Command::RandomRun));
        let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
        assert_eq!(map.command(PaneId::TRACE, &ctrl_r), Some(Command::Redo));
    }

    #[test]
    fn a_users_key_map_is_laid_over_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("keymap.ron"),
            r#"(global: {"x": quit}, panes: {events: {"q": help}})"#,
        )
        .unwrap();
        let config = Config::load(Some(dir.path()), false);
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        let press = |pane, c: char| {
            config
                .keymap
                .command(pane, &KeyEvent::from(KeyCode::Char(c)))
        };
        assert_eq!(press(PaneId::EVENTS, 'x'), Some(Command::Quit));
        assert_eq!(press(PaneId::EVENTS, 'q'), Some(Command::Help));
        assert_eq!(press(PaneId::TRACE, 'q'), Some(Command::Quit));
    }

    #[test]
    fn keys_for_a_pane_the_animator_lacks_are_named_and_dropped() {
        let mut map = KeyMap::parse(r#"(panes: {events: {"q": help}, notes: {"x": quit}})"#)
            .expect("the key map reads");
        let known = [PaneId::EVENTS, PaneId::TRACE];
        assert_eq!(map.keep_panes(&known), ["notes"]);
        assert_eq!(map.keep_panes(&known), Vec::<String>::new());
        let q = KeyEvent::from(KeyCode::Char('q'));
        assert_eq!(map.command(PaneId::EVENTS, &q), Some(Command::Help));
        assert_eq!(
            map.command(PaneId("notes"), &KeyEvent::from(KeyCode::Char('x'))),
            None
        );
    }

    #[test]
    fn broken_files_fall_back_to_the_defaults_with_a_message() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("keymap.ron"),
            r#"(global: {"Hyper-q": quit})"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("theme.ron"), "(border: 3)").unwrap();
        let config = Config::load(Some(dir.path()), false);
        assert_eq!(config.keymap, KeyMap::default());
        assert_eq!(config.theme, Theme::default());
        assert_eq!(config.problems.len(), 2, "{:?}", config.problems);
        assert!(
            config.problems[0].contains("`Hyper-q` is not a key"),
            "{}",
            config.problems[0]
        );
        assert!(
            config.problems[1].contains("theme.ron"),
            "{}",
            config.problems[1]
        );
        assert!(config.problems[1].contains("using the default theme"));
    }

    #[test]
    fn no_colour_keeps_meaning_in_modifiers() {
        let theme = Config::load(None, true).theme;
        assert_eq!(theme.failed.fg, None);
        assert!(theme.selection.add_modifier.contains(Modifier::REVERSED));
    }
}

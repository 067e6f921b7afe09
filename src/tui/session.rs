//! Sessions: the model, the process, the trace and the marked state,
//! saved as RON so that `symcsp --session FILE` reopens the animator
//! where the user left it. Written atomically
//! ([`crate::files::write_atomically`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::model::Source;

/// The session file's format version.
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SavedModel {
    /// A script file (absolute when it could be made so).
    File(PathBuf),
    /// A model compiled into symcsp, by name.
    Builtin(String),
}

/// One step of the trace: the event as printed, and its place in the
/// state's list of enabled events (which tells apart moves with the same
/// event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedStep {
    pub event: String,
    /// The event a τ hid (or the one renamed), which must be the same
    /// when the step is replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    pub choice: usize,
    /// The components the step changed, as they were after it: tells
    /// apart moves that read the same (a τ hiding the same event in two
    /// branches) when the list of moves has changed since.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// The state marked for comparison, by the steps from the initial state
/// that reach it (saved as the trace's are), and whether it was the
/// reduced walk's state there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedMark {
    pub steps: Vec<SavedStep>,
    #[serde(default)]
    pub reduced: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub version: u32,
    pub model: SavedModel,
    /// The animated process, as an expression in the script's scope.
    pub process: String,
    /// Every step of the trace, including undone ones (they can be redone).
    pub steps: Vec<SavedStep>,
    /// How many steps are taken (the rest are undone).
    pub position: usize,
    /// The symmetry types asked for with `--symmetry`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<String>,
    /// The representative strategy, when not FDR's (`exact`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// The marked state (sessions saved before marks were kept have
    /// none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<SavedMark>,
}

impl Session {
    pub fn new(source: &Source, process: &str, steps: Vec<SavedStep>, position: usize) -> Session {
        let model = match source {
            Source::File(path) => {
                SavedModel::File(std::path::absolute(path).unwrap_or_else(|_| path.clone()))
            }
            Source::Builtin(model) => SavedModel::Builtin(model.name.to_string()),
        };
        Session {
            version: VERSION,
            model,
            process: process.to_string(),
            steps,
            position,
            symmetry: None,
            strategy: None,
            mark: None,
        }
    }

    pub fn source(&self) -> Result<Source, String> {
        match &self.model {
            SavedModel::File(path) => Ok(Source::File(path.clone())),
            SavedModel::Builtin(name) => Source::builtin(name)
                .ok_or_else(|| format!("symcsp has no built-in model called `{name}`")),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|e| format!("cannot write the session: {e}"))?;
        crate::files::write_atomically(path, format!("{text}\n").as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    pub fn read(path: &Path) -> Result<Session, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let session: Session = ron::from_str(&text).map_err(|e| {
            format!(
                "`{}` is not a symcsp session (a file the animator saved with its save key): at \
                 line {}, column {}: {}",
                path.display(),
                e.span.start.line,
                e.span.start.col,
                e.code
            )
        })?;
        if session.version != VERSION {
            return Err(format!(
                "{}: session format {} (this symcsp reads format {VERSION})",
                path.display(),
                session.version
            ));
        }
        if session.position > session.steps.len() {
            return Err(format!(
                "{}: the position ({}) is past the end of the trace ({} steps)",
                path.display(),
                session.position,
                session.steps.len()
            ));
        }
        Ok(session)
    }
}

/// Where the animator keeps, on quitting, a walk of the user's that no
/// session file holds: `$SYMCSP_STATE_DIR`, else `symcsp` in the user's
/// state directory (`~/.local/state`), or local data directory where
/// the system has none.
pub fn kept_walks_directory() -> Option<PathBuf> {
    match std::env::var_os("SYMCSP_STATE_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .map(|d| d.join("symcsp")),
    }
}

/// A new file to keep a walk in: `walk-N.ron` in `dir` (made if need
/// be), N the first number free, so no walk kept before is written over.
pub fn new_kept_file(dir: Option<&Path>) -> Result<PathBuf, String> {
    let dir = dir.ok_or("this system has no directory for it (SYMCSP_STATE_DIR names one)")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let free = (1..=u32::MAX)
        .map(|n| dir.join(format!("walk-{n}.ron")))
        .find(|path| !path.exists());
    free.ok_or_else(|| format!("{} is full", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::LISTSTACK;

    #[test]
    fn a_session_survives_a_round_trip_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.ron");
        let session = Session::new(
            &Source::Builtin(LISTSTACK),
            "System",
            vec![
                SavedStep {
                    event: "τ".into(),
                    hidden: Some("lock.T0".into()),
                    choice: 2,
                    after: vec!["Push(T0)".into()],
                },
                SavedStep {
                    event: "push.T0.A".into(),
                    hidden: None,
                    choice: 0,
                    after: Vec::new(),
                },
            ],
            1,
        );
        session.save(&path).unwrap();
        assert_eq!(Session::read(&path).unwrap(), session);
        // A step without `after` (as sessions of earlier versions are
        // written) reads back.
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches("after").count(), 1, "{text}");
        // Without a mark none is written, and a file without one (as
        // earlier versions wrote them) reads back as having none.
        assert!(!text.contains("mark"), "{text}");
        let marked = Session {
            mark: Some(SavedMark {
                steps: session.steps[..1].to_vec(),
                reduced: true,
            }),
            ..session.clone()
        };
        marked.save(&path).unwrap();
        assert_eq!(Session::read(&path).unwrap(), marked);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn broken_sessions_are_refused_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.ron");
        std::fs::write(&path, "(version: 1, model: Builtin(\"x\")").unwrap();
        assert!(
            Session::read(&path)
                .unwrap_err()
                .contains("not a symcsp session")
        );
        let far = Session {
            position: 3,
            ..Session::new(&Source::Builtin(LISTSTACK), "System", Vec::new(), 0)
        };
        far.save(&path).unwrap();
        assert!(Session::read(&path).unwrap_err().contains("past the end"));
        let unknown = Session {
            model: SavedModel::Builtin("nope.csp".into()),
            ..far
        };
        assert!(unknown.source().unwrap_err().contains("no built-in model"));
    }
}

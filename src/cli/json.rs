//! Errors in JSON output: each diagnostic as fields a program can use
//! (`file`, `line`, `column`, `message`, `notes`) beside the text a person
//! reads (`rendered`, exactly what plain output prints).

use serde::Serialize;

use crate::syntax::{Diagnostic, SourceMap};

/// One diagnostic as JSON. `file`, `line` and `column` (from 1) are
/// `null` for a problem with no place (a file that cannot be read).
#[derive(Serialize)]
pub struct JsonDiagnostic {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub notes: Vec<String>,
    pub rendered: String,
}

impl JsonDiagnostic {
    pub fn new(diagnostic: &Diagnostic, sources: &SourceMap) -> JsonDiagnostic {
        let place = diagnostic.span.map(|span| sources.location(span));
        JsonDiagnostic {
            file: place.as_ref().map(|p| p.file.to_string()),
            line: place.as_ref().map(|p| p.line),
            column: place.as_ref().map(|p| p.col),
            message: diagnostic.message.clone(),
            notes: diagnostic.notes.clone(),
            rendered: diagnostic.render(sources),
        }
    }

    /// A problem that is not about the script's text (a bad option).
    pub fn nowhere(message: &str) -> JsonDiagnostic {
        JsonDiagnostic {
            file: None,
            line: None,
            column: None,
            message: message.trim_end().trim_start_matches("error: ").to_string(),
            notes: Vec::new(),
            rendered: message.to_string(),
        }
    }
}

/// Work a budget stopped before it had anything to report (loading the
/// script, compiling the process): `{"file", "result": "Inconclusive",
/// "stopped": "time-out", "stage": "parsing the script"}`.
#[derive(Serialize)]
pub struct JsonStopped {
    pub file: String,
    pub result: &'static str,
    pub stopped: &'static str,
    pub stage: String,
}

impl JsonStopped {
    pub fn print(self, out: &mut dyn std::io::Write) {
        let text = serde_json::to_string_pretty(&self).expect("a stop serialises");
        super::say(out, &format!("{text}\n"));
    }
}

/// What a command that could not start prints as JSON: the file it was
/// given and every error, so that a program reading stdout always gets
/// one object.
#[derive(Serialize)]
pub struct JsonFailure {
    pub file: String,
    pub errors: Vec<JsonDiagnostic>,
}

impl JsonFailure {
    pub fn print(self, out: &mut dyn std::io::Write) {
        let text = serde_json::to_string_pretty(&self).expect("a failure serialises");
        super::say(out, &format!("{text}\n"));
    }
}

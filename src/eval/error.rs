//! Run-time errors: a message, the expression that failed and the calls
//! that led there (`in f(3)`), rendered as a diagnostic like any other;
//! and stops (work cut short by its budget), which travel the same way.

use crate::budget::Stopped;
use crate::syntax::{Diagnostic, Span};

/// How many calls of the stack a diagnostic lists.
pub(super) const SHOWN_FRAMES: usize = 8;

/// A run-time error. Boxed: evaluation returns `EvalResult` from every
/// call, and a small error keeps those results, and so the stack frames
/// of deep recursion, small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(Box<ErrorDetail>);

/// What an [`EvalError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetail {
    pub message: String,
    pub span: Option<Span>,
    pub notes: Vec<String>,
    /// The calls in progress, innermost first, as `f(3)`.
    pub calls: Vec<String>,
    /// Calls beyond those recorded.
    pub more_calls: usize,
    /// Set when this is no error in the script but work stopped by its
    /// budget (time-out, cancel, memory, states), carried out through
    /// every caller like an error.
    pub stopped: Option<Stopped>,
    /// The stage of the work it happened in (`compiling `P``), named by
    /// the innermost stage that knew it ([`EvalError::during`]).
    pub stage: Option<String>,
}

pub type EvalResult<T> = Result<T, EvalError>;

impl std::ops::Deref for EvalError {
    type Target = ErrorDetail;

    fn deref(&self) -> &ErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for EvalError {
    fn deref_mut(&mut self) -> &mut ErrorDetail {
        &mut self.0
    }
}

impl EvalError {
    pub fn new(span: Span, message: impl Into<String>) -> EvalError {
        EvalError(Box::new(ErrorDetail {
            message: message.into(),
            span: Some(span),
            notes: Vec::new(),
            calls: Vec::new(),
            more_calls: 0,
            stopped: None,
            stage: None,
        }))
    }

    /// Work stopped by its budget for `reason`: not a mistake in the
    /// script, and reported as an inconclusive result where it can be.
    #[cold]
    pub fn stopped(reason: Stopped) -> EvalError {
        EvalError(Box::new(ErrorDetail {
            message: format!("{} before an answer", reason.ended()),
            span: None,
            notes: Vec::new(),
            calls: Vec::new(),
            more_calls: 0,
            stopped: Some(reason),
            stage: None,
        }))
    }

    /// Why work stopped, when this is a stop rather than an error.
    pub fn stop_reason(&self) -> Option<Stopped> {
        self.stopped
    }

    /// Names the stage of the work this happened in (`loading the
    /// script`, `compiling `P``), unless an inner stage named it.
    pub fn during(mut self, stage: impl FnOnce() -> String) -> EvalError {
        if self.stage.is_none() {
            self.stage = Some(stage());
        }
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> EvalError {
        self.notes.push(note.into());
        self
    }

    /// Records that the error happened inside the call `call()` (only
    /// formatted while the stack shown is not full).
    pub fn in_call(mut self, call: impl FnOnce() -> String) -> EvalError {
        if self.calls.len() < SHOWN_FRAMES {
            self.calls.push(call());
        } else {
            self.more_calls += 1;
        }
        self
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = match self.span {
            Some(span) => Diagnostic::error(span, self.message.clone()),
            None => Diagnostic::error_nowhere(self.message.clone()),
        };
        for note in &self.notes {
            d = d.with_note(note.clone());
        }
        for call in &self.calls {
            d = d.with_note(format!("in {call}"));
        }
        if self.more_calls > 0 {
            d = d.with_note(format!("... and {} calls more", self.more_calls));
        }
        d
    }
}

/// The error of an integer operation whose result does not fit.
pub(super) fn overflow(span: Span) -> EvalError {
    EvalError::new(span, "integer overflow: the result does not fit in 64 bits")
}

/// A value's text for a message, cut short if long.
pub(super) fn truncate(text: String) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        return text;
    }
    let cut: String = text.chars().take(MAX).collect();
    format!("{cut}...")
}

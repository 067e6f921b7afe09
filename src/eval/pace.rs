//! Long operations inside one step of evaluation — building a range,
//! merging two large sets, sorting a comprehension's elements (those are
//! in `sets.rs`) — poll the meter as they go, every [`CHUNK`] elements
//! (well under a millisecond of work), so that a time-out or a cancel
//! stops them within 100 ms rather than at their end.

use super::{EvalError, EvalResult, Evaluator};

/// Elements handled between two polls.
pub(super) const CHUNK: usize = 1 << 16;

/// Asked every [`CHUNK`] elements: `Err` (a stop) when the work must end.
pub(super) type Pace<'p> = &'p dyn Fn() -> EvalResult<()>;

impl Evaluator<'_> {
    /// Polls the meter (not counted as a step: the caller paces itself).
    pub(super) fn pace(&self) -> EvalResult<()> {
        self.meter().poll().map_err(EvalError::stopped)
    }
}

/// Collects `items`, polling `pace` every [`CHUNK`].
pub(super) fn collect<T>(items: impl Iterator<Item = T>, pace: Pace) -> EvalResult<Vec<T>> {
    let mut out = Vec::with_capacity(items.size_hint().0);
    for (i, item) in items.enumerate() {
        if i % CHUNK == CHUNK - 1 {
            pace()?;
        }
        out.push(item);
    }
    Ok(out)
}

//! Long operations inside one step of evaluation — building a range,
//! merging two large sets, sorting a comprehension's elements — poll the
//! meter as they go, every [`CHUNK`] elements (well under a millisecond
//! of work), so that a time-out or a cancel stops them within 100 ms
//! rather than at their end: a range of 49 million integers took four
//! seconds.

use super::value::{Set, Value};
use super::{EvalError, EvalResult, Evaluator};

/// Elements handled between two polls.
pub(super) const CHUNK: usize = 1 << 16;

/// Asked every [`CHUNK`] elements: `Err` (a stop) when the work must end.
pub(super) type Pace<'p> = &'p dyn Fn() -> EvalResult<()>;

/// Sets of more elements than this are sorted a chunk at a time and the
/// chunks merged, so that sorting polls too.
const SORTED_AT_ONCE: usize = 1 << 20;

impl Evaluator<'_> {
    /// Polls the meter (not counted as a step: the caller paces itself).
    pub(super) fn pace(&self) -> EvalResult<()> {
        self.meter().poll().map_err(EvalError::stopped)
    }

    /// `values` sorted, each once, as [`Evaluator::set_of`] sorts them:
    /// polling as it goes.
    pub fn sorted_set(&self, values: Vec<Value>) -> EvalResult<Vec<Value>> {
        match self.set_of(values)? {
            Set::Finite(values) => Ok(values),
            _ => unreachable!("a set of values is finite"),
        }
    }

    /// The set of `values` (in any order, duplicates allowed), sorted a
    /// chunk at a time when there are many.
    pub(super) fn set_of(&self, mut values: Vec<Value>) -> EvalResult<Set> {
        if values.len() <= SORTED_AT_ONCE {
            return Ok(Set::from_values(values));
        }
        for chunk in values.chunks_mut(SORTED_AT_ONCE) {
            self.pace()?;
            chunk.sort_unstable();
        }
        let chunks: Vec<&[Value]> = values.chunks(SORTED_AT_ONCE).collect();
        let merged = super::sets::union_all(&chunks, usize::MAX, &|| self.pace())?
            .expect("no limit to pass");
        if values.len() > crate::budget::FREE_LATER {
            crate::budget::drop_later(values);
        }
        Ok(Set::Finite(merged))
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

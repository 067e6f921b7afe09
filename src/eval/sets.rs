//! Set membership (for finite and infinite sets) and the set algebra of
//! finite sets, on sorted arrays.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::pace::{CHUNK, Pace};
use super::value::{Set, Value};
use super::{EvalResult, Evaluator};

impl Evaluator<'_> {
    /// Whether `v` is an element of `set`.
    pub(super) fn member(&self, v: &Value, set: &Set) -> bool {
        match set {
            Set::Finite(values) => values.binary_search(v).is_ok(),
            Set::AllInts => matches!(v, Value::Int(_)),
            Set::IntsFrom(n) => matches!(v, Value::Int(i) if i >= n),
            Set::AllChars => matches!(v, Value::Char(_)),
            Set::AllProcs => matches!(v, Value::Proc(_)),
            Set::Seqs(a) => {
                matches!(v, Value::Seq(s) if s.iter().all(|x| self.member(x, a)))
            }
            Set::Powerset(a) => matches!(v, Value::Set(s)
                if s.as_finite().is_some_and(|xs| xs.iter().all(|x| self.member(x, a)))),
            Set::DataType(d) => self.datatype_member(*d, v),
            Set::Maps(a, b) => matches!(v, Value::Map(m)
                if m.iter().all(|(k, x)| self.member(k, a) && self.member(x, b))),
        }
    }
}

/// Merges two sorted, deduplicated arrays, keeping the elements `keep`
/// says for (in left only, in both, in right only); `None` once the
/// result would pass `limit` elements. `pace` is asked every [`CHUNK`]
/// steps.
fn merge(
    a: &[Value],
    b: &[Value],
    keep: (bool, bool, bool),
    limit: usize,
    pace: Pace,
) -> EvalResult<Option<Vec<Value>>> {
    let mut out = Vec::with_capacity(a.len().max(b.len()).min(limit));
    let (mut i, mut j) = (0, 0);
    let mut steps = 0;
    while i < a.len() && j < b.len() {
        if out.len() > limit {
            return Ok(None);
        }
        steps += 1;
        if steps % CHUNK == 0 {
            pace()?;
        }
        match a[i].cmp(&b[j]) {
            Ordering::Less => {
                if keep.0 {
                    out.push(a[i].clone());
                }
                i += 1;
            }
            Ordering::Equal => {
                if keep.1 {
                    out.push(a[i].clone());
                }
                i += 1;
                j += 1;
            }
            Ordering::Greater => {
                if keep.2 {
                    out.push(b[j].clone());
                }
                j += 1;
            }
        }
    }
    let rest = (if keep.0 { a.len() - i } else { 0 }) + (if keep.2 { b.len() - j } else { 0 });
    if out.len() + rest > limit {
        return Ok(None);
    }
    let tails = [(keep.0, &a[i..]), (keep.2, &b[j..])];
    for (kept, tail) in tails {
        if kept {
            for chunk in tail.chunks(CHUNK) {
                pace()?;
                out.extend_from_slice(chunk);
            }
        }
    }
    Ok(Some(out))
}

/// `a ∪ b`, or `None` past `limit` elements.
pub(super) fn union(
    a: &[Value],
    b: &[Value],
    limit: usize,
    pace: Pace,
) -> EvalResult<Option<Vec<Value>>> {
    // Too large a union is found by counting, before any element is
    // copied: most such unions are of disjoint sets, seen at once.
    if a.len() + b.len() > limit && union_len(a, b, limit) > limit {
        return Ok(None);
    }
    merge(a, b, (true, true, true), limit, pace)
}

/// `|a ∪ b|`, counted only as far as just past `limit`.
fn union_len(a: &[Value], b: &[Value], limit: usize) -> usize {
    let disjoint =
        |x: &[Value], y: &[Value]| matches!((x.last(), y.first()), (Some(l), Some(f)) if l < f);
    if a.is_empty() || b.is_empty() || disjoint(a, b) || disjoint(b, a) {
        return a.len() + b.len();
    }
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() && n <= limit {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Equal => {
                i += 1;
                j += 1;
            }
            Ordering::Greater => j += 1,
        }
        n += 1;
    }
    n + (a.len() - i) + (b.len() - j)
}

pub(super) fn inter(a: &[Value], b: &[Value], pace: Pace) -> EvalResult<Vec<Value>> {
    merge(a, b, (false, true, false), usize::MAX, pace).map(|m| m.expect("no larger than either"))
}

pub(super) fn diff(a: &[Value], b: &[Value], pace: Pace) -> EvalResult<Vec<Value>> {
    merge(a, b, (true, false, false), usize::MAX, pace)
        .map(|m| m.expect("no larger than the first"))
}

/// The union of many sorted sets by a k-way merge, O(N log k) (a merge
/// per set would be quadratic in the number of sets); `None` once it
/// passes `limit` elements.
pub(super) fn union_all(
    sets: &[&[Value]],
    limit: usize,
    pace: Pace,
) -> EvalResult<Option<Vec<Value>>> {
    // As for two sets: too large a union is found before copying.
    let total: usize = sets.iter().map(|s| s.len()).sum();
    if total > limit && (disjoint(sets) || merge_all(sets, limit, pace, |_| {})?.is_none()) {
        return Ok(None);
    }
    let mut out: Vec<Value> = Vec::new();
    Ok(merge_all(sets, limit, pace, |v| out.push(v.clone()))?.map(|_| out))
}

/// Whether no two of `sets` overlap even in their bounds (ranges side
/// by side), so that their union has all their elements.
fn disjoint(sets: &[&[Value]]) -> bool {
    let mut bounds: Vec<(&Value, &Value)> = sets
        .iter()
        .filter_map(|s| Some((s.first()?, s.last()?)))
        .collect();
    bounds.sort_unstable();
    bounds.windows(2).all(|w| w[0].1 < w[1].0)
}

/// Hands each element of the union of `sets` to `emit`, in order, once;
/// `None` as soon as there would be more than `limit`.
fn merge_all(
    sets: &[&[Value]],
    limit: usize,
    pace: Pace,
    mut emit: impl FnMut(&Value),
) -> EvalResult<Option<usize>> {
    let mut heads: BinaryHeap<Reverse<(&Value, usize, usize)>> = sets
        .iter()
        .enumerate()
        .filter_map(|(k, set)| set.first().map(|v| Reverse((v, k, 0))))
        .collect();
    let mut last: Option<&Value> = None;
    let mut count = 0;
    let mut steps = 0;
    while let Some(Reverse((value, k, i))) = heads.pop() {
        steps += 1;
        if steps % CHUNK == 0 {
            pace()?;
        }
        if last != Some(value) {
            if count == limit {
                return Ok(None);
            }
            emit(value);
            count += 1;
            last = Some(value);
        }
        if let Some(next) = sets[k].get(i + 1) {
            heads.push(Reverse((next, k, i + 1)));
        }
    }
    Ok(Some(count))
}

/// Sets of more elements than this are sorted a chunk at a time and the
/// chunks merged, so that sorting polls too.
const SORTED_AT_ONCE: usize = 1 << 20;

impl Evaluator<'_> {
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
        let merged = union_all(&chunks, usize::MAX, &|| self.pace())?.expect("no limit to pass");
        if values.len() > crate::budget::FREE_LATER {
            crate::budget::drop_later(values);
        }
        Ok(Set::Finite(merged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO: Pace = &|| Ok(());

    fn ints(xs: &[i64]) -> Vec<Value> {
        xs.iter().map(|&i| Value::Int(i)).collect()
    }

    #[test]
    fn merges_follow_set_algebra() {
        let a = ints(&[1, 2, 4, 6]);
        let b = ints(&[2, 3, 6, 7]);
        assert_eq!(
            union(&a, &b, 100, GO).unwrap(),
            Some(ints(&[1, 2, 3, 4, 6, 7]))
        );
        assert_eq!(inter(&a, &b, GO).unwrap(), ints(&[2, 6]));
        assert_eq!(diff(&a, &b, GO).unwrap(), ints(&[1, 4]));
        assert_eq!(diff(&b, &a, GO).unwrap(), ints(&[3, 7]));
        let all = union_all(&[a.as_slice(), b.as_slice(), &ints(&[0])], 100, GO).unwrap();
        assert_eq!(all, Some(ints(&[0, 1, 2, 3, 4, 6, 7])));
    }

    #[test]
    fn unions_stop_at_the_limit_counting_what_overlaps_once() {
        let a = ints(&[1, 2, 3, 4]);
        let b = ints(&[3, 4, 5, 6]);
        assert_eq!(union(&a, &b, 6, GO).unwrap().map(|u| u.len()), Some(6));
        assert_eq!(union(&a, &b, 5, GO).unwrap(), None);
        assert_eq!(union(&a, &a, 4, GO).unwrap().map(|u| u.len()), Some(4));
        let many: Vec<Vec<Value>> = (0..50).map(|i| ints(&[i % 7])).collect();
        let many: Vec<&[Value]> = many.iter().map(Vec::as_slice).collect();
        assert_eq!(union_all(&many, 7, GO).unwrap().map(|u| u.len()), Some(7));
        assert_eq!(union_all(&many, 6, GO).unwrap(), None);
    }

    #[test]
    fn a_union_is_counted_before_it_is_built() {
        let low = ints(&[1, 2, 3]);
        let high = ints(&[7, 8]);
        let mixed = ints(&[0, 2, 8, 9]);
        assert_eq!(union_len(&low, &high, 100), 5);
        assert_eq!(union_len(&high, &low, 100), 5);
        assert_eq!(union_len(&low, &mixed, 100), 6);
        assert_eq!(union_len(&low, &[], 100), 3);
        // Counting stops just past the limit.
        assert!(union_len(&low, &mixed, 2) > 2);
        assert_eq!(union(&low, &mixed, 5, GO).unwrap(), None);
        assert_eq!(
            union(&low, &mixed, 6, GO).unwrap().map(|u| u.len()),
            Some(6)
        );
        assert!(disjoint(&[&high, &low, &[]]));
        assert!(!disjoint(&[&high, &low, &mixed]));
        assert_eq!(union_all(&[&high, &low], 4, GO).unwrap(), None);
        assert_eq!(
            union_all(&[&high, &low], 5, GO).unwrap().map(|u| u.len()),
            Some(5)
        );
    }

    #[test]
    fn a_long_merge_asks_to_go_on_as_it_goes() {
        let evens: Vec<Value> = (0..4 * CHUNK as i64).map(|i| Value::Int(2 * i)).collect();
        let odds: Vec<Value> = (0..4 * CHUNK as i64)
            .map(|i| Value::Int(2 * i + 1))
            .collect();
        let asked = std::cell::Cell::new(0);
        let count: Pace = &|| {
            asked.set(asked.get() + 1);
            Ok(())
        };
        let all = union(&evens, &odds, usize::MAX, count).unwrap().unwrap();
        assert_eq!(all.len(), 8 * CHUNK);
        assert!(asked.get() >= 7, "{}", asked.get());
        let stop: Pace = &|| {
            Err(super::super::EvalError::stopped(
                crate::budget::Stopped::Timeout,
            ))
        };
        let stopped = union(&evens, &odds, usize::MAX, stop).unwrap_err();
        assert_eq!(stopped.stop_reason(), Some(crate::budget::Stopped::Timeout));
        assert!(union_all(&[&evens, &odds], usize::MAX, stop).is_err());
    }
}

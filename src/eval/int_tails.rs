//! The set algebra (`union`, `inter`, `diff`) where a side is an
//! infinite set of integers, `{n..}` or `Int`: each side is a finite set
//! below an optional tail of every integer from a bound on, the
//! operation works on that form, and the answer is kept when it is a set
//! symcsp represents (finite, `{n..}` or `Int`), as `diff({1..}, {1})` is
//! `{2..}` and `union({0..}, {-1})` is `{-1..}`. Others (`diff(Int, {0})`,
//! `union({5..}, {1})`) have no such form and are refused by the caller.

use super::EvalResult;
use super::value::{Set, Value};

/// A set operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SetOp {
    Union,
    Inter,
    Diff,
}

/// Where a tail of integers starts: at a bound, or nowhere below (`Int`).
type Bound = Option<i64>;

/// A set of integers: `below` (sorted, each less than the tail's bound)
/// and, if any, the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IntSet {
    below: Vec<i64>,
    tail: Option<Bound>,
}

impl IntSet {
    fn of(set: &Set) -> Option<IntSet> {
        match set {
            Set::AllInts => Some(IntSet {
                below: Vec::new(),
                tail: Some(None),
            }),
            Set::IntsFrom(n) => Some(IntSet {
                below: Vec::new(),
                tail: Some(Some(*n)),
            }),
            Set::Finite(values) => {
                let below = values
                    .iter()
                    .map(|v| match v {
                        Value::Int(i) => Some(*i),
                        _ => None,
                    })
                    .collect::<Option<Vec<i64>>>()?;
                Some(IntSet { below, tail: None })
            }
            _ => None,
        }
    }

    fn contains(&self, x: i64) -> bool {
        self.below.binary_search(&x).is_ok() || self.in_tail(x)
    }

    fn in_tail(&self, x: i64) -> bool {
        match self.tail {
            Some(None) => true,
            Some(Some(n)) => x >= n,
            None => false,
        }
    }

    /// As a [`Set`]: the elements below the tail that run up to it join
    /// it; any others left below a tail have no representation.
    fn into_set(mut self) -> Option<Set> {
        let Some(bound) = self.tail else {
            return Some(Set::Finite(
                self.below.into_iter().map(Value::Int).collect(),
            ));
        };
        let Some(mut n) = bound else {
            return Some(Set::AllInts);
        };
        self.below.retain(|&x| x < n);
        while self
            .below
            .last()
            .is_some_and(|&x| Some(x) == n.checked_sub(1))
        {
            self.below.pop();
            n -= 1;
        }
        self.below.is_empty().then_some(Set::IntsFrom(n))
    }
}

/// The earlier of two bounds (`None`, no bound below, is earliest).
fn lower(a: Bound, b: Bound) -> Bound {
    a.zip(b).map(|(a, b)| a.min(b))
}

/// The later of two bounds.
fn higher(a: Bound, b: Bound) -> Bound {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, None) | (None, a) => a,
    }
}

/// Asked before a range of integers is built, with its length: an error
/// (a budget reached) stops the operation.
pub(super) type Reserve<'r> = &'r dyn Fn(usize) -> EvalResult<()>;

/// The integers from `from` up to but not including `to`, when there are
/// at most `limit` (`Ok(None)` when there are more), each reserved first.
fn range(from: i64, to: i64, limit: usize, reserve: Reserve) -> EvalResult<Option<Vec<i64>>> {
    let Some(len) = to.checked_sub(from) else {
        return Ok(None);
    };
    let len = usize::try_from(len).unwrap_or(0);
    if len > limit {
        return Ok(None);
    }
    reserve(len)?;
    Ok(Some((from..to).collect()))
}

/// `a op b` on sets of integers where the answer is finite (of at most
/// `limit` elements), `{n..}` or `Int`; `None` otherwise, or where a
/// side is not a set of integers. A range of integers the answer needs
/// is reserved before it is built.
pub(super) fn combine(
    op: SetOp,
    a: &Set,
    b: &Set,
    limit: usize,
    reserve: Reserve,
) -> EvalResult<Option<Set>> {
    let (Some(a), Some(b)) = (IntSet::of(a), IntSet::of(b)) else {
        return Ok(None);
    };
    let mut candidates: Vec<i64> = a.below.iter().chain(&b.below).copied().collect();
    let tail = match op {
        SetOp::Union => match (a.tail, b.tail) {
            (Some(x), Some(y)) => Some(lower(x, y)),
            (t, None) | (None, t) => t,
        },
        SetOp::Inter => match (a.tail, b.tail) {
            (Some(x), Some(y)) => Some(higher(x, y)),
            _ => None,
        },
        SetOp::Diff => match (a.tail, b.tail) {
            // Past the last of `b`'s elements `a`'s tail goes on; below
            // it, from `a`'s bound, each integer is a candidate.
            (Some(x), None) => {
                let Some(&last) = b.below.last() else {
                    return Ok(a.into_set());
                };
                let (Some(x), Some(after)) = (x, last.checked_add(1)) else {
                    return Ok(None);
                };
                let Some(between) = range(x.min(last), after, limit, reserve)? else {
                    return Ok(None);
                };
                candidates.extend(between);
                Some(Some(after.max(x)))
            }
            // Between the bounds: `a`'s tail where `b`'s has not begun.
            (Some(x), Some(y)) => {
                if let Some(y) = y {
                    let Some(x) = x else {
                        return Ok(None);
                    };
                    let Some(between) = range(x, y, limit, reserve)? else {
                        return Ok(None);
                    };
                    candidates.extend(between);
                }
                None
            }
            (None, _) => None,
        },
    };
    let member = |x: i64| match op {
        SetOp::Union => a.contains(x) || b.contains(x),
        SetOp::Inter => a.contains(x) && b.contains(x),
        SetOp::Diff => a.contains(x) && !b.contains(x),
    };
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|&x| member(x));
    if tail.is_none() && candidates.len() > limit {
        return Ok(None);
    }
    Ok(IntSet {
        below: candidates,
        tail,
    }
    .into_set())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Set {
        Set::Finite(xs.iter().map(|&x| Value::Int(x)).collect())
    }

    fn with_room(op: SetOp, a: &Set, b: &Set) -> Option<Set> {
        combine(op, a, b, 1000, &|_| Ok(())).expect("no budget to reach")
    }

    fn union(a: &Set, b: &Set) -> Option<Set> {
        with_room(SetOp::Union, a, b)
    }

    fn inter(a: &Set, b: &Set) -> Option<Set> {
        with_room(SetOp::Inter, a, b)
    }

    fn diff(a: &Set, b: &Set) -> Option<Set> {
        with_room(SetOp::Diff, a, b)
    }

    #[test]
    fn unions_join_tails_and_the_integers_that_run_up_to_them() {
        let from = Set::IntsFrom;
        assert_eq!(union(&from(0), &from(1)), Some(from(0)));
        assert_eq!(union(&from(0), &ints(&[1, 2, 3])), Some(from(0)));
        assert_eq!(union(&ints(&[-2, -1, 7]), &from(0)), Some(from(-2)));
        assert_eq!(union(&Set::AllInts, &from(4)), Some(Set::AllInts));
        // -5 would stand apart below the tail.
        assert_eq!(union(&from(0), &ints(&[-5])), None);
    }

    #[test]
    fn intersections_keep_the_later_tail_or_a_finite_set() {
        let from = Set::IntsFrom;
        assert_eq!(inter(&from(0), &from(1)), Some(from(1)));
        assert_eq!(inter(&Set::AllInts, &from(-3)), Some(from(-3)));
        assert_eq!(inter(&from(2), &ints(&[0, 2, 9])), Some(ints(&[2, 9])));
    }

    #[test]
    fn differences_cut_a_tail_from_below_or_end_it() {
        let from = Set::IntsFrom;
        assert_eq!(diff(&from(1), &ints(&[1])), Some(from(2)));
        assert_eq!(diff(&from(1), &ints(&[1, 2, 5])), None);
        assert_eq!(diff(&from(1), &ints(&[-4, 0])), Some(from(1)));
        assert_eq!(diff(&from(1), &Set::AllInts), Some(ints(&[])));
        assert_eq!(diff(&from(1), &from(4)), Some(ints(&[1, 2, 3])));
        assert_eq!(diff(&from(4), &from(1)), Some(ints(&[])));
        assert_eq!(diff(&ints(&[2, 4, 5]), &Set::AllInts), Some(ints(&[])));
        assert_eq!(diff(&ints(&[2, 4, 5]), &from(5)), Some(ints(&[2, 4])));
        // Below every bound: no form.
        assert_eq!(diff(&Set::AllInts, &ints(&[0])), None);
        assert_eq!(diff(&Set::AllInts, &from(0)), None);
        assert_eq!(diff(&Set::AllInts, &ints(&[])), Some(Set::AllInts));
        // Too many between the bounds.
        assert_eq!(diff(&from(0), &from(5000)), None);
    }

    #[test]
    fn a_range_is_reserved_before_it_is_built() {
        let asked = std::cell::Cell::new(0);
        let reserve = |n: usize| {
            asked.set(n);
            Err(super::super::EvalError::stopped(
                crate::budget::Stopped::Memory,
            ))
        };
        let from = Set::IntsFrom;
        assert!(combine(SetOp::Diff, &from(0), &from(500), 1000, &reserve).is_err());
        assert_eq!(asked.get(), 500);
    }

    #[test]
    fn sets_of_other_values_are_left_to_the_caller() {
        let bools = Set::Finite(vec![Value::Bool(true)]);
        assert_eq!(union(&Set::AllInts, &bools), None);
        assert_eq!(union(&Set::AllChars, &ints(&[1])), None);
    }
}

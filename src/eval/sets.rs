//! Set membership (for finite and infinite sets) and the set algebra of
//! finite sets, on sorted arrays.

use std::cmp::Ordering;

use super::Evaluator;
use super::value::{Set, Value};

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
/// says for (in left only, in both, in right only).
fn merge(a: &[Value], b: &[Value], keep: (bool, bool, bool)) -> Vec<Value> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
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
    if keep.0 {
        out.extend_from_slice(&a[i..]);
    }
    if keep.2 {
        out.extend_from_slice(&b[j..]);
    }
    out
}

pub(super) fn union(a: &[Value], b: &[Value]) -> Vec<Value> {
    merge(a, b, (true, true, true))
}

pub(super) fn inter(a: &[Value], b: &[Value]) -> Vec<Value> {
    merge(a, b, (false, true, false))
}

pub(super) fn diff(a: &[Value], b: &[Value]) -> Vec<Value> {
    merge(a, b, (true, false, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Vec<Value> {
        xs.iter().map(|&i| Value::Int(i)).collect()
    }

    #[test]
    fn merges_follow_set_algebra() {
        let a = ints(&[1, 2, 4, 6]);
        let b = ints(&[2, 3, 6, 7]);
        assert_eq!(union(&a, &b), ints(&[1, 2, 3, 4, 6, 7]));
        assert_eq!(inter(&a, &b), ints(&[2, 6]));
        assert_eq!(diff(&a, &b), ints(&[1, 4]));
        assert_eq!(diff(&b, &a), ints(&[3, 7]));
    }
}

//! Infinite sequences, kept lazy as FDR keeps them.
//!
//! Every infinite sequence a script can build without a comprehension is
//! a finite prefix followed by the integers from some `n`: `<n..>`, and
//! `s ^ <n..>` for a finite `s`. A [`Stream`] is exactly that, so `head`,
//! `tail`, `<x> ^ s` patterns, a recursive `take` and comparisons work
//! without building anything, and whatever would need all its elements
//! (`#s`, `set(s)`, a generator) is a diagnostic instead of a hang.

use std::fmt;

use super::seq::Seq;
use super::value::Value;

/// `prefix ^ <from..>`, kept in one form per sequence (the prefix never
/// ends with `from - 1`), so that equal sequences are equal values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stream {
    prefix: Seq,
    from: i64,
}

impl Stream {
    /// `<from..>`
    pub fn ints_from(from: i64) -> Stream {
        Stream {
            prefix: Seq::from_vec(Vec::new()),
            from,
        }
    }

    /// `prefix ^ self`.
    pub fn after(&self, prefix: &Seq) -> Stream {
        Stream::normal(prefix.concat(&self.prefix), self.from)
    }

    fn normal(prefix: Seq, mut from: i64) -> Stream {
        let mut len = prefix.len();
        while len > 0 && from > i64::MIN && prefix.get(len - 1) == Some(&Value::Int(from - 1)) {
            len -= 1;
            from -= 1;
        }
        Stream {
            prefix: prefix.slice(0, len),
            from,
        }
    }

    /// Element `i`, counting from 0; `None` past `i64::MAX`.
    pub fn get(&self, i: usize) -> Option<Value> {
        match self.prefix.get(i) {
            Some(v) => Some(v.clone()),
            None => {
                let beyond = i64::try_from(i - self.prefix.len()).ok()?;
                self.from.checked_add(beyond).map(Value::Int)
            }
        }
    }

    /// The sequence without its first `n` elements; `None` past
    /// `i64::MAX`.
    pub fn without_first(&self, n: usize) -> Option<Stream> {
        if n <= self.prefix.len() {
            let rest = self.prefix.slice(n, self.prefix.len());
            return Some(Stream::normal(rest, self.from));
        }
        let beyond = i64::try_from(n - self.prefix.len()).ok()?;
        Some(Stream::ints_from(self.from.checked_add(beyond)?))
    }

    /// Whether `v` is an element.
    pub fn contains(&self, v: &Value) -> bool {
        self.prefix.iter().any(|x| x == v) || matches!(v, Value::Int(i) if *i >= self.from)
    }

    /// Whether the finite `s` is a prefix of this sequence.
    pub fn starts_with(&self, s: &Seq) -> bool {
        s.iter()
            .enumerate()
            .all(|(i, v)| self.get(i).as_ref() == Some(v))
    }

    /// The values in the prefix (the rest are integers).
    pub fn prefix(&self) -> &Seq {
        &self.prefix
    }

    /// The same integers after another prefix of the same length (its
    /// values renamed by a symmetry).
    pub fn with_prefix(&self, prefix: Vec<Value>) -> Stream {
        Stream::normal(Seq::from_vec(prefix), self.from)
    }
}

impl fmt::Display for Stream {
    /// The infinite part, `<n..>` (the prefix is shown by whoever knows
    /// how to show its values).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}..>", self.from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Seq {
        Seq::from_vec(xs.iter().map(|&i| Value::Int(i)).collect())
    }

    #[test]
    fn a_prefix_that_counts_up_to_the_start_is_absorbed() {
        assert_eq!(
            Stream::ints_from(3).after(&ints(&[1, 2])),
            Stream::ints_from(1)
        );
        let odd = Stream::ints_from(3).after(&ints(&[7, 2]));
        assert_ne!(odd, Stream::ints_from(2));
        assert_eq!(odd.without_first(1), Some(Stream::ints_from(2)));
    }

    #[test]
    fn elements_come_from_the_prefix_then_the_integers() {
        let s = Stream::ints_from(10).after(&ints(&[4]));
        assert_eq!(s.get(0), Some(Value::Int(4)));
        assert_eq!(s.get(3), Some(Value::Int(12)));
        assert!(s.contains(&Value::Int(4)) && s.contains(&Value::Int(99)));
        assert!(!s.contains(&Value::Int(5)));
        assert!(s.starts_with(&ints(&[4, 10])) && !s.starts_with(&ints(&[10])));
        assert_eq!(Stream::ints_from(i64::MAX).get(1), None);
    }
}

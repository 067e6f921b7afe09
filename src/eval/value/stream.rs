//! Infinite sequences, kept lazy as FDR keeps them.
//!
//! An infinite sequence is a finite prefix followed by a *rest* that is
//! never built whole: the integers from some `n` (`<n..>`, and `s ^
//! <n..>` for a finite `s`), or what a sequence comprehension drawing
//! from an infinite sequence still yields (`<2 * x | x <- <0..>>`),
//! suspended at that generator. So `head`, `tail`, `<x> ^ s` patterns, a
//! recursive `take` and comparisons work on the elements they need, and
//! whatever would need all of them (`#s`, `set(s)`, a set drawing from
//! one) is a diagnostic instead of a hang. The integers are worked out
//! here; a comprehension's elements need the evaluator, which *forces*
//! them into the prefix (`Evaluator::force_stream`) before the methods
//! here read them.

use std::fmt;
use std::sync::Arc;

use crate::script::ir::ExprId;

use super::seq::Seq;
use super::{Env, Set, Value};

/// `prefix ^ rest`. With the integers as its rest it is kept in one form
/// per sequence (the prefix never ends with `from - 1`), so that equal
/// sequences are equal values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Stream {
    prefix: Seq,
    rest: Rest,
}

/// What follows a stream's prefix.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rest {
    /// The integers from `n`.
    From(i64),
    /// The elements a sequence comprehension still yields.
    Comprehension(Arc<Suspended>),
}

/// A sequence comprehension suspended at a generator drawing from an
/// infinite sequence: resumed for the generator's next value, with the
/// bindings of the statements before it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Suspended {
    /// The comprehension (`<es | stmts>`).
    pub expr: ExprId,
    /// The index of the generator in its statements.
    pub generator: usize,
    /// The frame it runs in: the captured environment and the locals.
    pub env: Env,
    pub locals: Env,
    /// What the generator still draws from.
    pub source: Arc<Stream>,
}

impl Stream {
    /// `<from..>`
    pub fn ints_from(from: i64) -> Stream {
        Stream {
            prefix: Seq::from_vec(Vec::new()),
            rest: Rest::From(from),
        }
    }

    /// `prefix ^ rest`.
    pub fn new(prefix: Seq, rest: Rest) -> Stream {
        match rest {
            Rest::From(from) => Stream::normal(prefix, from),
            rest => Stream { prefix, rest },
        }
    }

    /// `prefix ^ self`.
    pub fn after(&self, prefix: &Seq) -> Stream {
        Stream::new(prefix.concat(&self.prefix), self.rest.clone())
    }

    fn normal(prefix: Seq, mut from: i64) -> Stream {
        let mut len = prefix.len();
        while len > 0 && from > i64::MIN && prefix.get(len - 1) == Some(&Value::Int(from - 1)) {
            len -= 1;
            from -= 1;
        }
        Stream {
            prefix: prefix.slice(0, len),
            rest: Rest::From(from),
        }
    }

    /// How many elements are known without the evaluator: all of them
    /// when the rest is the integers, else the prefix.
    pub fn known(&self) -> usize {
        match self.rest {
            Rest::From(_) => usize::MAX,
            Rest::Comprehension(_) => self.prefix.len(),
        }
    }

    /// Element `i`, counting from 0; `None` past `i64::MAX`, or past the
    /// known elements ([`Stream::known`]).
    pub fn get(&self, i: usize) -> Option<Value> {
        match (self.prefix.get(i), &self.rest) {
            (Some(v), _) => Some(v.clone()),
            (None, Rest::From(from)) => {
                let beyond = i64::try_from(i - self.prefix.len()).ok()?;
                from.checked_add(beyond).map(Value::Int)
            }
            (None, Rest::Comprehension(_)) => None,
        }
    }

    /// The sequence without its first `n` elements; `None` past
    /// `i64::MAX`, or past the known elements.
    pub fn without_first(&self, n: usize) -> Option<Stream> {
        if n <= self.prefix.len() {
            let rest = self.prefix.slice(n, self.prefix.len());
            return Some(Stream::new(rest, self.rest.clone()));
        }
        match self.rest {
            Rest::From(from) => {
                let beyond = i64::try_from(n - self.prefix.len()).ok()?;
                Some(Stream::ints_from(from.checked_add(beyond)?))
            }
            Rest::Comprehension(_) => None,
        }
    }

    /// Whether `v` is an element, as far as that is known: `None` when
    /// it is not among the known elements of a comprehension's stream.
    pub fn contains(&self, v: &Value) -> Option<bool> {
        if self.prefix.iter().any(|x| x == v) {
            return Some(true);
        }
        match self.rest {
            Rest::From(from) => Some(matches!(v, Value::Int(i) if *i >= from)),
            Rest::Comprehension(_) => None,
        }
    }

    /// Whether the finite `s` is a prefix of this sequence (whose first
    /// `s.len()` elements must be known).
    pub fn starts_with(&self, s: &Seq) -> bool {
        s.iter()
            .enumerate()
            .all(|(i, v)| self.get(i).as_ref() == Some(v))
    }

    /// The values in the prefix.
    pub fn prefix(&self) -> &Seq {
        &self.prefix
    }

    pub fn rest(&self) -> &Rest {
        &self.rest
    }

    /// The same sequence with another prefix of the same length and rest
    /// (their values renamed by a symmetry).
    pub fn with_parts(&self, prefix: Vec<Value>, rest: Rest) -> Stream {
        Stream::new(Seq::from_vec(prefix), rest)
    }
}

impl fmt::Display for Stream {
    /// The infinite part, `<n..>`, or `<…>` for the elements a
    /// comprehension has still to yield (the prefix is shown by whoever
    /// knows how to show its values).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rest {
            Rest::From(from) => write!(f, "<{from}..>"),
            Rest::Comprehension(_) => f.write_str("<…>"),
        }
    }
}

/// Whether `v` holds, anywhere inside, an infinite sequence whose
/// elements a comprehension yields (such values cannot be told equal by
/// their form).
pub fn holds_lazy(v: &Value) -> bool {
    match v {
        Value::Stream(s) => {
            matches!(s.rest(), Rest::Comprehension(_)) || s.prefix().iter().any(holds_lazy)
        }
        Value::Seq(s) => s.iter().any(holds_lazy),
        Value::Named(parts) | Value::Dot(parts) | Value::Tuple(parts) => {
            parts.iter().any(holds_lazy)
        }
        Value::Set(s) => matches!(&**s, Set::Finite(vs) if vs.iter().any(holds_lazy)),
        Value::Map(m) => m.iter().any(|(k, v)| holds_lazy(k) || holds_lazy(v)),
        _ => false,
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
        assert!(
            s.contains(&Value::Int(4)) == Some(true) && s.contains(&Value::Int(99)) == Some(true)
        );
        assert_eq!(s.contains(&Value::Int(5)), Some(false));
        assert!(s.starts_with(&ints(&[4, 10])) && !s.starts_with(&ints(&[10])));
        assert_eq!(Stream::ints_from(i64::MAX).get(1), None);
    }
}

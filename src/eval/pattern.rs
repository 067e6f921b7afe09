//! Pattern matching: binds a frame's slots when a value matches.

use std::sync::Arc;

use crate::script::ir::Pattern;

use super::interp::Frame;
use super::value::{Set, Slot, Value};
use super::{EvalResult, Evaluator};

impl Evaluator<'_> {
    /// Whether `value` matches `pattern`; on a match its variables are
    /// bound in `frame`.
    pub(super) fn matches(
        &self,
        pattern: &Pattern,
        value: &Value,
        frame: &mut Frame,
    ) -> EvalResult<bool> {
        Ok(match (pattern, value) {
            (Pattern::Wildcard, _) => true,
            (Pattern::Bind(slot), v) => {
                frame.locals[*slot as usize] = Slot::Value(v.clone());
                true
            }
            (Pattern::Int(i), Value::Int(j)) => i == j,
            (Pattern::Char(c), Value::Char(d)) => c == d,
            (Pattern::Bool(b), Value::Bool(c)) => b == c,
            (Pattern::Ctor(c, _), Value::Ctor(d)) => c == d,
            (Pattern::Channel(c), Value::Channel(d)) => c == d,
            (Pattern::Tuple(ps), Value::Tuple(vs)) => {
                ps.len() == vs.len() && self.match_all(ps, vs.iter(), frame)?
            }
            (Pattern::Seq(ps), Value::Seq(s)) => {
                ps.len() == s.len() && self.match_all(ps, s.iter(), frame)?
            }
            (
                Pattern::Concat {
                    prefix,
                    middle,
                    suffix,
                },
                Value::Seq(s),
            ) => {
                let fixed = prefix.len() + suffix.len();
                let len = s.len();
                let fits = match middle {
                    Some(_) => len >= fixed,
                    None => len == fixed,
                };
                fits && self.match_all(prefix, s.iter(), frame)?
                    && self.match_all(suffix, s.iter().skip(len - suffix.len()), frame)?
                    && match middle {
                        Some(m) => {
                            let rest = Value::Seq(s.slice(prefix.len(), len - suffix.len()));
                            self.matches(m, &rest, frame)?
                        }
                        None => true,
                    }
            }
            // `<x> ^ s` takes an infinite sequence apart lazily. A pattern
            // of a fixed length, or one for its end (`s ^ <x>`), never
            // matches it (FDR would look for the end for ever).
            (
                Pattern::Concat {
                    prefix,
                    middle: Some(middle),
                    suffix,
                },
                Value::Stream(s),
            ) if suffix.is_empty() => {
                let s = &self.force_stream(s, prefix.len(), crate::syntax::Span::default())?;
                let firsts: Option<Vec<Value>> = (0..prefix.len()).map(|i| s.get(i)).collect();
                let rest = s.without_first(prefix.len());
                match (firsts, rest) {
                    (Some(firsts), Some(rest)) => {
                        self.match_all(prefix, firsts.iter(), frame)?
                            && self.matches(middle, &Value::Stream(Arc::new(rest)), frame)?
                    }
                    _ => false,
                }
            }
            (Pattern::Set(ps), Value::Set(s)) => match (ps.as_slice(), &**s) {
                ([], Set::Finite(vs)) => vs.is_empty(),
                ([p], Set::Finite(vs)) if vs.len() == 1 => self.matches(p, &vs[0], frame)?,
                _ => false,
            },
            (Pattern::Both(a, b), v) => self.matches(a, v, frame)? && self.matches(b, v, frame)?,
            (Pattern::Dot(ps), v) => self.match_dot(ps, v, frame)?,
            _ => false,
        })
    }

    /// Matches each pattern against the value in the same place; extra
    /// values are not looked at.
    fn match_all<'v>(
        &self,
        ps: &[Pattern],
        vs: impl IntoIterator<Item = &'v Value>,
        frame: &mut Frame,
    ) -> EvalResult<bool> {
        for (p, v) in ps.iter().zip(vs) {
            if !self.matches(p, v, frame)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `p1.p2...pn` against a dotted value: each pattern but the last
    /// takes one component, the last takes what remains (so `c?x` binds
    /// `x` to all of `c`'s fields, dotted). A component that is a whole
    /// datatype value is opened up when the pattern names its
    /// constructor: `c.X.a` matches `c.(X.1)`.
    fn match_dot(&self, ps: &[Pattern], value: &Value, frame: &mut Frame) -> EvalResult<bool> {
        let mut components: Vec<Value> = components(value);
        let (last, init) = ps.split_last().expect("a dotted pattern has parts");
        let mut next = 0;
        for p in init {
            let Some(component) = components.get(next) else {
                return Ok(false);
            };
            if let (Pattern::Ctor(..) | Pattern::Channel(_), Value::Named(inner)) = (p, component) {
                let inner = inner.clone();
                components.splice(next..=next, inner.iter().cloned());
            }
            if !self.matches(p, &components[next], frame)? {
                return Ok(false);
            }
            next += 1;
        }
        let rest = &components[next.min(components.len())..];
        match rest {
            [] => Ok(false),
            [single] => self.matches(last, single, frame),
            many => self.matches(last, &Value::Dot(Arc::from(many)), frame),
        }
    }
}

/// A value's dot components: `c.1.2` is `[c, 1, 2]`, anything else is
/// itself.
fn components(value: &Value) -> Vec<Value> {
    match value {
        Value::Named(parts) | Value::Dot(parts) => parts.to_vec(),
        v => vec![v.clone()],
    }
}

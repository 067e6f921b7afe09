//! The elements of infinite sequences that comprehensions yield, worked
//! out when they are needed: `head(<2 * x | x <- <0..>>)` evaluates
//! `2 * x` once. A sequence comprehension whose generator draws from an
//! infinite sequence stops there and becomes a [`Stream`] whose rest is
//! the comprehension suspended at that generator ([`Suspended`]);
//! forcing resumes it for the generator's next value, as often as the
//! caller needs elements.
//!
//! Nothing here may hang. A comprehension whose guard holds for no more
//! values (`<x | x <- <0..>, x < 3>` has three elements, then nothing for
//! ever) is given [`LAZY_SEARCH`] values in a row that yield nothing, then
//! reported: FDR would look for ever. Comparing or searching an infinite
//! sequence stops after as many elements, likewise.

use std::sync::Arc;

use crate::script::ir::{ExprId, ExprKind, Stmt};
use crate::syntax::Span;

use super::error::overflow;
use super::interp::Frame;
use super::seq::Seq;
use super::stream::{Rest, Stream, Suspended, holds_lazy};
use super::value::Value;
use super::{EvalError, EvalResult, Evaluator};

/// How many values a suspended generator may draw in a row without the
/// comprehension yielding an element, and how many elements a search or
/// comparison of infinite sequences looks at, before it is reported
/// rather than left to run for ever.
pub const LAZY_SEARCH: usize = 1_000_000;

impl Evaluator<'_> {
    /// `s` with at least `n` elements known ([`Stream::known`]); `span`
    /// is where they are needed (empty for a pattern, which has no place
    /// of its own: the comprehension's is named instead).
    pub(super) fn force_stream(&self, s: &Stream, n: usize, span: Span) -> EvalResult<Stream> {
        if s.known() >= n {
            return Ok(s.clone());
        }
        stacker::maybe_grow(256 * 1024, 16 * 1024 * 1024, || self.force_more(s, n, span))
    }

    fn force_more(&self, s: &Stream, n: usize, span: Span) -> EvalResult<Stream> {
        let mut prefix: Vec<Value> = s.prefix().to_vec();
        let mut rest = s.rest().clone();
        let mut idle = 0usize;
        while prefix.len() < n {
            let Rest::Comprehension(suspended) = &rest else {
                break;
            };
            let suspended = suspended.clone();
            let source = self.force_stream(&suspended.source, 1, span)?;
            let (Some(item), Some(remaining)) = (source.get(0), source.without_first(1)) else {
                return Err(overflow(span));
            };
            let before = prefix.len();
            rest = match self.resume(&suspended, &item, &mut prefix)? {
                // An inner generator drawing from an infinite sequence:
                // nothing after it is ever reached.
                Some(inner) => inner,
                None => Rest::Comprehension(Arc::new(Suspended {
                    source: Arc::new(remaining),
                    ..(*suspended).clone()
                })),
            };
            if prefix.len() == before {
                idle += 1;
                if idle >= LAZY_SEARCH {
                    return Err(self.no_more(&suspended, span));
                }
            } else {
                idle = 0;
            }
        }
        Ok(Stream::new(Seq::from_vec(prefix), rest))
    }

    /// Runs the suspended comprehension for one more value of its
    /// generator, appending what it yields to `out`; the inner
    /// suspension, if an inner generator draws from an infinite sequence.
    fn resume(
        &self,
        suspended: &Suspended,
        item: &Value,
        out: &mut Vec<Value>,
    ) -> EvalResult<Option<Rest>> {
        let expr = self.script.expr(suspended.expr);
        let (ExprKind::SeqComprehension(es, stmts), Some(Stmt::Generator(pattern, _, _))) =
            (&expr.kind, self.generator(suspended))
        else {
            return Err(EvalError::new(
                expr.span,
                "internal error: a suspended comprehension is not a sequence comprehension",
            ));
        };
        let mut frame = Frame {
            env: suspended.env.clone(),
            locals: suspended.locals.to_vec(),
        };
        self.tick(1)?;
        if !self.matches(pattern, item, &mut frame)? {
            return Ok(None);
        }
        self.seq_comprehend(
            suspended.expr,
            es,
            stmts,
            suspended.generator + 1,
            &mut frame,
            out,
        )
    }

    fn generator(&self, suspended: &Suspended) -> Option<&Stmt> {
        match &self.script.expr(suspended.expr).kind {
            ExprKind::SeqComprehension(_, stmts) => stmts.get(suspended.generator),
            _ => None,
        }
    }

    fn no_more(&self, suspended: &Suspended, span: Span) -> EvalError {
        // A pattern has no place of its own: the comprehension's is named.
        let span = if span.is_empty() {
            self.script.expr(suspended.expr).span
        } else {
            span
        };
        let at = match self.generator(suspended) {
            Some(Stmt::Generator(_, source, _)) => self.script.expr(*source).span,
            _ => span,
        };
        EvalError::new(
            span,
            format!(
                "no further element of this infinite sequence was found: {LAZY_SEARCH} values \
                 in a row drawn from its generator yielded none"
            ),
        )
        .with_note(format!(
            "the generator at {} draws from an infinite sequence; FDR would look for ever",
            self.location(at)
        ))
    }

    /// Where `span` is, as `file:line:col`.
    fn location(&self, span: Span) -> String {
        self.script.sources.location(span).to_string()
    }

    /// The elements of `<es | stmts>` from statement `at` on, appended to
    /// `out` in order; if a generator draws from an infinite sequence,
    /// the comprehension suspended there (what the outer generators would
    /// still yield is never reached).
    pub(super) fn seq_comprehend(
        &self,
        expr: ExprId,
        es: &[ExprId],
        stmts: &[Stmt],
        at: usize,
        frame: &mut Frame,
        out: &mut Vec<Value>,
    ) -> EvalResult<Option<Rest>> {
        let Some(first) = stmts.get(at) else {
            for e in es {
                out.push(self.eval(*e, frame)?);
            }
            self.check_size(out.len(), self.script.expr(expr).span)?;
            return Ok(None);
        };
        match first {
            Stmt::Guard(g) => {
                if self.eval_bool(*g, frame)? {
                    return self.seq_comprehend(expr, es, stmts, at + 1, frame, out);
                }
                Ok(None)
            }
            Stmt::Generator(pattern, source, _) => {
                let source_value = self.eval(*source, frame)?;
                let items = match &source_value {
                    Value::Seq(s) => s,
                    Value::Stream(s) => {
                        return Ok(Some(Rest::Comprehension(Arc::new(Suspended {
                            expr,
                            generator: at,
                            env: frame.env.clone(),
                            locals: frame.locals.clone().into(),
                            source: s.clone(),
                        }))));
                    }
                    Value::Set(_) => {
                        return Err(self
                            .expected(*source, "a sequence", &source_value)
                            .with_note(
                                "what is built in order draws from sequences: the elements of \
                                 a set have no order in CSPM (FDR rejects this too)",
                            ));
                    }
                    other => return Err(self.expected(*source, "a set or a sequence", other)),
                };
                for item in items.iter() {
                    self.tick(1)?;
                    if self.matches(pattern, item, frame)?
                        && let Some(rest) =
                            self.seq_comprehend(expr, es, stmts, at + 1, frame, out)?
                    {
                        return Ok(Some(rest));
                    }
                }
                Ok(None)
            }
        }
    }

    /// Whether `s` holds `v`, looking at no more than [`LAZY_SEARCH`]
    /// elements a comprehension yields.
    pub(super) fn stream_contains(&self, s: &Stream, v: &Value, span: Span) -> EvalResult<bool> {
        let mut s = s.clone();
        let mut looked = 0usize;
        loop {
            if let Some(known) = s.contains(v)
                && (known || matches!(s.rest(), Rest::From(_)))
            {
                return Ok(known);
            }
            looked += s.prefix().len();
            if looked >= LAZY_SEARCH {
                return Err(self.undecided(span, "holds the value"));
            }
            let skipped = s.prefix().len();
            let rest = s.without_first(skipped).ok_or_else(|| overflow(span))?;
            s = self.force_stream(&rest, 1, span)?;
        }
    }

    /// Whether two values are equal, when one holds an infinite sequence
    /// whose elements a comprehension yields: two such sequences may be
    /// equal without being built alike, so their elements are compared.
    pub(super) fn values_equal(&self, x: &Value, y: &Value, span: Span) -> EvalResult<bool> {
        if x == y {
            return Ok(true);
        }
        if !holds_lazy(x) && !holds_lazy(y) {
            return Ok(false);
        }
        match (x, y) {
            (Value::Seq(a), Value::Stream(b)) | (Value::Stream(b), Value::Seq(a)) => {
                // An infinite sequence with a further element is longer.
                self.force_stream(b, a.len() + 1, span)?;
                Ok(false)
            }
            (Value::Stream(a), Value::Stream(b)) => self.streams_agree(a, b, span),
            _ => Err(EvalError::new(
                span,
                "cannot compare values holding infinite sequences built by comprehensions",
            )
            .with_note(
                "only such a sequence itself can be compared, element by element; FDR would look \
                 at every element for ever",
            )),
        }
    }

    /// Whether the infinite sequences `a` and `b` are equal: element by
    /// element, until they differ or what remains of both is built alike.
    fn streams_agree(&self, a: &Stream, b: &Stream, span: Span) -> EvalResult<bool> {
        let (mut a, mut b) = (a.clone(), b.clone());
        let mut looked = 0usize;
        loop {
            if a == b {
                return Ok(true);
            }
            if matches!((a.rest(), b.rest()), (Rest::From(_), Rest::From(_))) {
                // One form per sequence of integers.
                return Ok(false);
            }
            if looked >= LAZY_SEARCH {
                return Err(self.undecided(span, "equals the other"));
            }
            a = self.force_stream(&a, 1, span)?;
            b = self.force_stream(&b, 1, span)?;
            let (Some(x), Some(y)) = (a.get(0), b.get(0)) else {
                return Err(overflow(span));
            };
            if !self.values_equal(&x, &y, span)? {
                return Ok(false);
            }
            a = a.without_first(1).ok_or_else(|| overflow(span))?;
            b = b.without_first(1).ok_or_else(|| overflow(span))?;
            looked += 1;
        }
    }

    /// Whether the finite `a` is a prefix of the infinite `b`.
    pub(super) fn stream_starts_with(&self, b: &Stream, a: &Seq, span: Span) -> EvalResult<bool> {
        let b = self.force_stream(b, a.len(), span)?;
        Ok(b.starts_with(a))
    }

    /// Map keys are compared by their form: an infinite sequence built by
    /// a comprehension cannot be one.
    pub(super) fn check_key(&self, key: &Value, span: Span) -> EvalResult<()> {
        if holds_lazy(key) {
            return Err(EvalError::new(
                span,
                "an infinite sequence built by a comprehension cannot be a key of a map: it \
                 cannot be compared",
            )
            .with_note("FDR would compare its elements for ever"));
        }
        Ok(())
    }

    fn undecided(&self, span: Span, what: &str) -> EvalError {
        EvalError::new(
            span,
            format!(
                "cannot tell whether this infinite sequence {what}: its first {LAZY_SEARCH} \
                 elements do not decide it"
            ),
        )
        .with_note("FDR would look at its elements for ever")
    }
}

//! Collections worked out by native recursion: ranges, comprehensions,
//! productions and the sets of dotted and tupled types.

use std::sync::{Arc, OnceLock};

use crate::script::ir::{ExprId, ExprKind};

use super::super::seq::Seq;
use super::super::value::{Set, Stream, Value};
use super::super::{EvalResult, Evaluator};
use super::{Frame, Order};

impl Evaluator<'_> {
    /// The value of the range, comprehension or type product `id`: an
    /// infinite sequence stays lazy, a set is checked as it is made.
    pub(super) fn eval_collection(&self, id: ExprId, frame: &mut Frame) -> EvalResult<Value> {
        let expr = self.script.expr(id);
        let span = expr.span;
        match &expr.kind {
            ExprKind::SeqRange(from, to) => {
                let from = self.eval_int(*from, frame)?;
                let Some(to) = to else {
                    // Kept lazy: only the elements used are worked out.
                    return Ok(Value::Stream(Arc::new(Stream::ints_from(from))));
                };
                let to = self.eval_int(*to, frame)?;
                let cells = self.int_range(from, to, span, |i| OnceLock::from(Value::Int(i)))?;
                Ok(Value::Seq(Seq::from_cells(cells)))
            }
            ExprKind::SetRange(from, to) => {
                let from = self.eval_int(*from, frame)?;
                match to {
                    None => Ok(Value::set(Set::IntsFrom(from))),
                    Some(to) => {
                        let to = self.eval_int(*to, frame)?;
                        Ok(Value::set(Set::Finite(self.int_range(
                            from,
                            to,
                            span,
                            Value::Int,
                        )?)))
                    }
                }
            }
            ExprKind::SeqComprehension(es, stmts) => {
                let mut out = Vec::new();
                match self.seq_comprehend(id, es, stmts, 0, frame, &mut out)? {
                    None => Ok(Value::seq(out)),
                    // Drawing from an infinite sequence: the elements
                    // after `out` are worked out when they are needed.
                    Some(rest) => Ok(Value::Stream(Arc::new(Stream::new(
                        Seq::from_vec(out),
                        rest,
                    )))),
                }
            }
            ExprKind::SetComprehension(es, stmts) => {
                let out = self.comprehension(es, stmts, Order::Set, frame, span)?;
                self.check_set_elements(&out, span)?;
                Ok(Value::set(self.set_of(out)?))
            }
            ExprKind::Production(es, stmts) => {
                let mut out = Vec::new();
                self.comprehend(stmts, Order::Set, frame, &mut |ev, frame| {
                    for e in es {
                        let v = ev.eval(*e, frame)?;
                        out.extend(ev.productions(&v, ev.span(*e))?);
                    }
                    ev.check_size(out.len(), span)
                })?;
                Ok(Value::set(self.set_of(out)?))
            }
            ExprKind::TypeDot(parts) => {
                let sets = parts
                    .iter()
                    .map(|p| self.eval_set(*p, frame))
                    .collect::<EvalResult<Vec<_>>>()?;
                self.dot_product(&sets, span)
            }
            ExprKind::TypeTuple(parts) => {
                let sets = parts
                    .iter()
                    .map(|p| self.eval_set(*p, frame))
                    .collect::<EvalResult<Vec<_>>>()?;
                self.tuple_product(&sets, span)
            }
            _ => unreachable!("not a collection"),
        }
    }
}

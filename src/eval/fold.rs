//! A control state's text with what it holds worked out: `step.(0+1) ->
//! Counter(0+1)` reads `step.1 -> Counter(1)`, `pickup!P0!0!right(0)`
//! reads `pickup!P0!0!1`. Every part of the body that is data (no process
//! operator) and reads only the state's own variables is evaluated and
//! printed as its value; the rest is the source text with the variables
//! replaced by their values ([`super::print`]). Folding can make two
//! states read alike (`e!(1+0)` and `e!(0+1)` both `e!1 -> STOP`), so a
//! folded state's text ends with its bindings, which tell them apart:
//! `e!1 -> STOP  where x = 1, y = 0`.

use crate::script::ir::{ExprId, ExprKind, FuncId, VarRef};
use crate::syntax::Span;

use super::Evaluator;
use super::value::Value;

/// A value printed longer than its expression is used only up to this
/// many characters.
const MAX_GROWTH: usize = 24;

/// Marks the start and end of a folded value in the text, so that the
/// substitution of variables leaves it alone.
pub(super) const FOLDED_OPEN: char = '\u{1}';
pub(super) const FOLDED_CLOSE: char = '\u{2}';

impl Evaluator<'_> {
    /// The parts of control state `func`'s body (over `vars`) that can be
    /// worked out, each with its value's text, in source order.
    pub(super) fn folds(&self, func: FuncId, vars: &[Value]) -> Vec<(Span, String)> {
        let function = self.script.function(func);
        let Some(clause) = function.clauses.first() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        self.collect(func, vars, clause.body, &mut found);
        found.sort_by_key(|(span, _)| span.start);
        found
    }

    fn collect(&self, func: FuncId, vars: &[Value], id: ExprId, found: &mut Vec<(Span, String)>) {
        let expr = self.script.expr(id);
        if expr.kind.is_leaf() {
            return;
        }
        if self.is_data(id) {
            let mut frame = self.state_frame(func, vars);
            if let Ok(value) = self.eval_in(id, &mut frame)
                && !matches!(value, Value::Proc(_) | Value::Closure(_) | Value::Env(_))
            {
                // A value much longer than its expression (`{0..65535}`)
                // is not worth reading: the expression stays.
                let text = self.show(&value);
                let written = (expr.span.end - expr.span.start) as usize;
                if text.chars().count() <= written.max(MAX_GROWTH) {
                    found.push((expr.span, text));
                }
                return;
            }
        }
        expr.kind
            .for_each_child(|child| self.collect(func, vars, child, found));
    }

    /// Whether expression `id` is data that reads only the state's own
    /// variables (no process operator, nothing bound inside the body).
    fn is_data(&self, id: ExprId) -> bool {
        let kind = &self.script.expr(id).kind;
        match kind {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Char(_)
            | ExprKind::String(_)
            | ExprKind::Global(_)
            | ExprKind::Ctor(_)
            | ExprKind::Channel(_) => true,
            ExprKind::Var(VarRef::Capture(_)) => true,
            ExprKind::Var(_) => false,
            ExprKind::App(..)
            | ExprKind::Dot(..)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::If(..)
            | ExprKind::Tuple(_)
            | ExprKind::Seq(_)
            | ExprKind::Set(_)
            | ExprKind::SeqRange(..)
            | ExprKind::SetRange(..)
            | ExprKind::Map(_)
            | ExprKind::TypeDot(_)
            | ExprKind::TypeTuple(_) => {
                let mut data = true;
                kind.for_each_child(|child| data &= self.is_data(child));
                data
            }
            _ => false,
        }
    }
}

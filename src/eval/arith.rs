//! Integer arithmetic as FDR does it: 64-bit, overflow an error, `/`
//! rounding down and `%` taking the sign of the divisor.

use crate::syntax::Span;
use crate::syntax::ast::BinaryOp;

use super::EvalError;
use super::EvalResult;
use super::error::overflow;

/// Integer arithmetic as FDR does it: `/` rounds down and `%` takes the
/// sign of the divisor (Haskell's `div` and `mod`).
pub(super) fn arithmetic(op: BinaryOp, i: i64, j: i64, span: Span) -> EvalResult<i64> {
    let result = match op {
        BinaryOp::Add => i.checked_add(j),
        BinaryOp::Sub => i.checked_sub(j),
        BinaryOp::Mul => i.checked_mul(j),
        BinaryOp::Div | BinaryOp::Mod if j == 0 => {
            return Err(EvalError::new(span, "division by zero"));
        }
        BinaryOp::Div => i.checked_div(j).map(|q| {
            if (i % j != 0) && ((i < 0) != (j < 0)) {
                q - 1
            } else {
                q
            }
        }),
        BinaryOp::Mod => i.checked_rem(j).map(|r| {
            if r != 0 && ((r < 0) != (j < 0)) {
                r + j
            } else {
                r
            }
        }),
        _ => unreachable!("arithmetic operators only"),
    };
    result.ok_or_else(|| overflow(span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_down_and_modulo_follows_the_divisor() {
        let span = Span::default();
        let div = |i, j| arithmetic(BinaryOp::Div, i, j, span).unwrap();
        let rem = |i, j| arithmetic(BinaryOp::Mod, i, j, span).unwrap();
        assert_eq!((div(7, 2), rem(7, 2)), (3, 1));
        assert_eq!((div(-7, 2), rem(-7, 2)), (-4, 1));
        assert_eq!((div(7, -2), rem(7, -2)), (-4, -1));
        assert_eq!((div(-7, -2), rem(-7, -2)), (3, -1));
        assert!(arithmetic(BinaryOp::Div, 1, 0, span).is_err());
        assert!(arithmetic(BinaryOp::Div, i64::MIN, -1, span).is_err());
    }
}

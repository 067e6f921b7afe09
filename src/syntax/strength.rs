//! FDR's binding strengths (FDR manual, "Binding Strength"): the one
//! table that the pest grammar's Pratt parser (`parser.rs`), the fast
//! parser (`descent.rs`) and the pretty-printer (`print.rs`) all read.
//!
//! The functional operators bind tighter than every process operator;
//! `.` is the loosest functional operator, so `c.x+1` is `c.(x+1)`;
//! communication fields bind tighter than `->`.

/// How the operators of one level take their operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fixity {
    Left,
    Right,
    Prefix,
    Postfix,
}

/// Every operator the Pratt parsers know.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Operator {
    Hide,
    Project,
    Interleave,
    GenPar,
    BracketPar,
    IntChoice,
    ExtChoice,
    SyncChoice,
    Interrupt,
    SyncInterrupt,
    Sliding,
    Seq,
    Then,
    Guard,
    FieldIn,
    FieldOut,
    FieldNondet,
    DoubleAt,
    Dot,
    Or,
    And,
    Not,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Times,
    Div,
    Mod,
    Neg,
    Length,
    Concat,
    Call,
    Rename,
}

/// The levels, loosest first, each with how its operators associate.
/// A row's level is its index plus one: level 0 is taken by what extends
/// as far right as it can (`if`, `let`, lambdas, replicated operators),
/// and [`ATOM`] lies above the table.
pub(crate) const TABLE: &[(Fixity, &[Operator])] = {
    use Fixity::*;
    use Operator::*;
    &[
        (Left, &[Hide, Project]),
        (Left, &[Interleave]),
        (Left, &[GenPar, BracketPar]),
        (Left, &[IntChoice]),
        (Left, &[ExtChoice, SyncChoice]),
        (Left, &[Interrupt, SyncInterrupt]),
        (Left, &[Sliding]),
        (Left, &[Seq]),
        (Right, &[Then, Guard]),
        (Postfix, &[FieldIn, FieldOut, FieldNondet]),
        (Right, &[DoubleAt]),
        (Right, &[Dot]),
        (Left, &[Or]),
        (Left, &[And]),
        (Prefix, &[Not]),
        (Left, &[Eq, Ne, Lt, Le, Gt, Ge]),
        (Left, &[Plus, Minus]),
        (Left, &[Times, Div, Mod]),
        (Prefix, &[Neg]),
        (Prefix, &[Length]),
        (Left, &[Concat]),
        (Postfix, &[Call, Rename]),
    ]
};

/// The level of what extends as far right as it can.
pub(crate) const GREEDY: u8 = 0;
/// The level of what needs no brackets anywhere.
pub(crate) const ATOM: u8 = TABLE.len() as u8 + 1;

const OPERATORS: usize = Operator::Rename as usize + 1;

/// Each operator's level and fixity, indexed by the operator, made from
/// [`TABLE`] at compile time.
const STRENGTHS: [(u8, Fixity); OPERATORS] = {
    let mut out = [(u8::MAX, Fixity::Left); OPERATORS];
    let mut row = 0;
    while row < TABLE.len() {
        let (fixity, ops) = TABLE[row];
        let mut k = 0;
        while k < ops.len() {
            out[ops[k] as usize] = (row as u8 + 1, fixity);
            k += 1;
        }
        row += 1;
    }
    let mut op = 0;
    while op < OPERATORS {
        assert!(out[op].0 != u8::MAX, "every operator is in the table");
        op += 1;
    }
    out
};

/// The operator's level (larger binds tighter) and fixity.
pub(crate) const fn strength(op: Operator) -> (u8, Fixity) {
    STRENGTHS[op as usize]
}

/// The operator's level.
pub(crate) const fn level(op: Operator) -> u8 {
    strength(op).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_fdr_order() {
        assert_eq!(level(Operator::Hide), 1);
        assert!(level(Operator::Seq) < level(Operator::Then));
        assert!(level(Operator::Then) < level(Operator::FieldOut));
        assert!(level(Operator::FieldOut) < level(Operator::Dot));
        assert!(level(Operator::Dot) < level(Operator::Plus));
        assert_eq!(strength(Operator::Dot).1, Fixity::Right);
        assert_eq!(strength(Operator::Length).1, Fixity::Prefix);
        assert_eq!(level(Operator::Rename), ATOM - 1);
    }
}

//! The pest parser generated from `grammar/cspm.pest`, and its Pratt
//! table of binding strengths (from `strength.rs`).

use std::sync::LazyLock;

use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest_derive::Parser;

use super::strength::{Fixity, Operator, TABLE};

#[derive(Parser)]
#[grammar = "grammar/cspm.pest"]
pub(crate) struct CspmParser;

/// FDR's binding strengths as pest's Pratt table, made from the shared
/// table in `strength.rs`, loosest first.
pub(crate) static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    TABLE
        .iter()
        .fold(PrattParser::new(), |pratt, &(fixity, ops)| {
            let op = ops
                .iter()
                .map(|&op| match fixity {
                    Fixity::Left => Op::infix(rule(op), Assoc::Left),
                    Fixity::Right => Op::infix(rule(op), Assoc::Right),
                    Fixity::Prefix => Op::prefix(rule(op)),
                    Fixity::Postfix => Op::postfix(rule(op)),
                })
                .reduce(|a, b| a | b)
                .expect("every level has an operator");
            pratt.op(op)
        })
});

/// Whether the Pratt parser treats a rule as an operator.
pub(crate) fn is_operator(r: Rule) -> bool {
    static OPERATORS: LazyLock<Vec<Rule>> = LazyLock::new(|| {
        TABLE
            .iter()
            .flat_map(|&(_, ops)| ops.iter().map(|&op| rule(op)))
            .collect()
    });
    OPERATORS.contains(&r)
}

/// The grammar's rule for an operator.
fn rule(op: Operator) -> Rule {
    use Operator::*;
    match op {
        Hide => Rule::op_hide,
        Project => Rule::op_project,
        Interleave => Rule::op_interleave,
        GenPar => Rule::op_genpar,
        BracketPar => Rule::op_bracket_par,
        IntChoice => Rule::op_intchoice,
        ExtChoice => Rule::op_extchoice,
        SyncChoice => Rule::op_sync_choice,
        Interrupt => Rule::op_interrupt,
        SyncInterrupt => Rule::op_sync_interrupt,
        Sliding => Rule::op_sliding,
        Seq => Rule::op_seq,
        Then => Rule::op_then,
        Guard => Rule::op_guard,
        FieldIn => Rule::field_in,
        FieldOut => Rule::field_out,
        FieldNondet => Rule::field_nondet,
        DoubleAt => Rule::op_double_at,
        Dot => Rule::op_dot,
        Or => Rule::op_or,
        And => Rule::op_and,
        Not => Rule::op_not,
        Eq => Rule::op_eq,
        Ne => Rule::op_ne,
        Lt => Rule::op_lt,
        Le => Rule::op_le,
        Gt => Rule::op_gt,
        Ge => Rule::op_ge,
        Plus => Rule::op_plus,
        Minus => Rule::op_minus,
        Times => Rule::op_times,
        Div => Rule::op_div,
        Mod => Rule::op_mod,
        Neg => Rule::op_neg,
        Length => Rule::op_length,
        Concat => Rule::op_concat,
        Call => Rule::call_args,
        Rename => Rule::renaming,
    }
}

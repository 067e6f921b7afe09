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
                .filter_map(|&(op, _)| rule(op))
                .map(|rule| match fixity {
                    Fixity::Left => Op::infix(rule, Assoc::Left),
                    Fixity::Right => Op::infix(rule, Assoc::Right),
                    Fixity::Prefix => Op::prefix(rule),
                    Fixity::Postfix => Op::postfix(rule),
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
            .flat_map(|&(_, ops)| ops.iter().filter_map(|&(op, _)| rule(op)))
            .collect()
    });
    OPERATORS.contains(&r)
}

/// The grammar's rule for an operator; none for the two that share
/// another's rule (the exception reads as a generalised parallel, the
/// linked parallel as the bracketed one, until their brackets close).
pub(crate) fn rule(op: Operator) -> Option<Rule> {
    use Operator::*;
    Some(match op {
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
        Exception | LinkedPar => return None,
    })
}

/// The operator a grammar rule reads, if it reads one (`w_or` and
/// `w_and` are the keyword forms of `or` and `and`).
pub(crate) fn operator(r: Rule) -> Option<Operator> {
    match r {
        Rule::w_or => Some(Operator::Or),
        Rule::w_and => Some(Operator::And),
        _ => super::strength::ALL
            .into_iter()
            .find(|&op| rule(op) == Some(r)),
    }
}

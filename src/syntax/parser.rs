//! The pest parser generated from `grammar/cspm.pest`, and the binding
//! strengths of CSPM's operators as a Pratt table.

use std::sync::LazyLock;

use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "grammar/cspm.pest"]
pub(crate) struct CspmParser;

/// FDR's binding strengths, loosest first (FDR manual, "Binding
/// Strength"). The functional operators bind tighter than every process
/// operator; `.` is the loosest functional operator, so `c.x+1` is
/// `c.(x+1)`; communication fields bind tighter than `->`.
pub(crate) static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    use Assoc::{Left, Right};
    PrattParser::new()
        .op(Op::infix(Rule::op_hide, Left) | Op::infix(Rule::op_project, Left))
        .op(Op::infix(Rule::op_interleave, Left))
        .op(Op::infix(Rule::op_genpar, Left) | Op::infix(Rule::op_bracket_par, Left))
        .op(Op::infix(Rule::op_intchoice, Left))
        .op(Op::infix(Rule::op_extchoice, Left) | Op::infix(Rule::op_sync_choice, Left))
        .op(Op::infix(Rule::op_interrupt, Left) | Op::infix(Rule::op_sync_interrupt, Left))
        .op(Op::infix(Rule::op_sliding, Left))
        .op(Op::infix(Rule::op_seq, Left))
        .op(Op::infix(Rule::op_then, Right) | Op::infix(Rule::op_guard, Right))
        .op(Op::postfix(Rule::field_in)
            | Op::postfix(Rule::field_out)
            | Op::postfix(Rule::field_nondet))
        .op(Op::infix(Rule::op_double_at, Right))
        .op(Op::infix(Rule::op_dot, Right))
        .op(Op::infix(Rule::op_or, Left))
        .op(Op::infix(Rule::op_and, Left))
        .op(Op::prefix(Rule::op_not))
        .op(Op::infix(Rule::op_eq, Left)
            | Op::infix(Rule::op_ne, Left)
            | Op::infix(Rule::op_lt, Left)
            | Op::infix(Rule::op_le, Left)
            | Op::infix(Rule::op_gt, Left)
            | Op::infix(Rule::op_ge, Left))
        .op(Op::infix(Rule::op_plus, Left) | Op::infix(Rule::op_minus, Left))
        .op(Op::infix(Rule::op_times, Left)
            | Op::infix(Rule::op_div, Left)
            | Op::infix(Rule::op_mod, Left))
        .op(Op::prefix(Rule::op_neg))
        .op(Op::prefix(Rule::op_length))
        .op(Op::infix(Rule::op_concat, Left))
        .op(Op::postfix(Rule::call_args) | Op::postfix(Rule::renaming))
});

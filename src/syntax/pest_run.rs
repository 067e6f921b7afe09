//! Every run of pest goes through here, so that none can take more than
//! time linear in the text it reads.
//!
//! Pest is a backtracking parser: a grammar that tries the same long
//! stretch two ways at each level of nesting takes time exponential in
//! the nesting (a missing `else` under twenty `if`s once took a minute
//! and 10 GB). The grammar avoids that, and this module guarantees it:
//! each run may enter at most [`CALLS_PER_BYTE`] rules per byte of text
//! (plus [`BASE_CALLS`]); past that pest gives up with "call limit
//! reached", which `errors.rs` turns into a diagnostic at the furthest
//! point pest got to. Ordinary scripts use a small fraction of the
//! bound (see the test below).
//!
//! Pest's switches (the call limit and its record of what it expected at
//! each failure) are process-wide, so runs are made one at a time.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use pest::Parser;
use pest::error::Error;
use pest::iterators::Pairs;

use super::parser::{CspmParser, Rule};

/// Rules pest may enter per byte of the text it parses. The grammar's
/// worst ordinary text (nested conditionals, record of expected tokens
/// on) needs about 200; see `ordinary_text_is_far_below_the_bound`.
pub(crate) const CALLS_PER_BYTE: usize = 2_000;

/// Rules pest may enter whatever the text (a short text's rule chain).
pub(crate) const BASE_CALLS: usize = 100_000;

/// Whether pest keeps its record of what it expected at each failure:
/// needed to explain an error, and several times slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    Off,
    On,
}

/// Parses `text` as `rule` within the work bound.
pub(crate) fn parse(
    rule: Rule,
    text: &str,
    detail: Detail,
) -> Result<Pairs<'_, Rule>, Error<Rule>> {
    parse_within(rule, text, detail, bound(text.len()))
}

/// The rules pest may enter to parse `len` bytes.
fn bound(len: usize) -> usize {
    len.saturating_mul(CALLS_PER_BYTE)
        .saturating_add(BASE_CALLS)
}

fn parse_within(
    rule: Rule,
    text: &str,
    detail: Detail,
    calls: usize,
) -> Result<Pairs<'_, Rule>, Error<Rule>> {
    static SWITCHES: Mutex<()> = Mutex::new(());
    let _guard = SWITCHES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pest::set_call_limit(NonZeroUsize::new(calls));
    pest::set_error_detail(detail == Detail::On);
    let result = CspmParser::parse(rule, text);
    pest::set_error_detail(false);
    pest::set_call_limit(None);
    result
}

/// Whether an error is pest giving up at the work bound (or its stack
/// guard), rather than a syntax error.
pub(crate) fn gave_up(error: &Error<Rule>) -> bool {
    matches!(&error.variant, pest::error::ErrorVariant::CustomError { message }
        if message.contains("call limit") || message.contains("stack limit"))
}

/// How many rules pest enters to parse `text` as `rule`: the least call
/// limit under which it does not give up. For tests and benchmarks that
/// measure parsing work rather than time.
pub(crate) fn calls(rule: Rule, text: &str, detail: Detail) -> usize {
    let finishes = |limit: usize| match parse_within(rule, text, detail, limit) {
        Ok(_) => true,
        Err(e) => !gave_up(&e),
    };
    let mut high = 1024;
    while !finishes(high) {
        high *= 2;
    }
    let mut low = high / 2;
    if finishes(low) {
        low = 0;
    }
    // `finishes(low)` is false (or low is 0) and `finishes(high)` true.
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if finishes(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    high
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_far_below_the_bound() {
        for model in [
            include_str!("../../models/liststack.csp"),
            include_str!("../../models/philosophers.csp"),
            include_str!("../../models/lockfreequeue.csp"),
        ] {
            for detail in [Detail::Off, Detail::On] {
                let calls = calls(Rule::file, model, detail);
                let per_byte = calls / model.len();
                assert!(per_byte * 5 < CALLS_PER_BYTE, "{per_byte} calls per byte");
            }
        }
    }

    #[test]
    fn the_bound_stops_pest_and_says_so() {
        let text = "X = 1 + 2 + 3 + 4 + 5\n";
        let error = parse_within(Rule::file, text, Detail::On, 10).expect_err("stopped");
        assert!(gave_up(&error));
        assert!(parse(Rule::file, text, Detail::On).is_ok());
        let needed = calls(Rule::file, text, Detail::Off);
        assert!(parse_within(Rule::file, text, Detail::Off, needed).is_ok());
        assert!(parse_within(Rule::file, text, Detail::Off, needed - 1).is_err());
    }
}

//! What a check found, in words: a verdict, what stopped a search (with
//! the option that sets the budget it met), whether a search stopped by
//! a budget looks as if it could never end, and what a counterexample
//! shows. The command line and the animator both say these, each to its
//! own reader ([`Reader`]); the sentences are made here alone.

use super::Verdict;
use super::counterexample::{Kind, RenderedCounterexample};
use crate::budget::Stopped;
use crate::process::print::trace_text;

/// Who reads the words, which decides how an option is named and a
/// number written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `symcsp check`, `symcsp explore`: the option itself
    /// (`--timeout`), numbers as digits.
    CommandLine,
    /// The animator: the command that sets the budget (`symcsp FILE
    /// --timeout SECS`), numbers grouped in threes.
    Animator,
}

/// A verdict in words, with why a check stopped: `Passed`,
/// `Inconclusive (time-out)`.
pub fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::Inconclusive(stopped) => format!("Inconclusive ({})", stopped.reason()),
        v => v.word().to_string(),
    }
}

/// What stopped work and the option that sets it: for the command line
/// `stopped by the state budget of 10 states (--max-states)` (its
/// callers say what was stopped: the stage, "before an answer"); for
/// the animator, a sentence of its own, `stopped by the state budget of
/// 10 states before an answer (`symcsp FILE --max-states N` sets it)`.
pub fn stopped_by(stopped: Stopped, max_states: Option<usize>, reader: Reader) -> String {
    let budget = |max: usize| plural(max as u64, "state", "states", reader);
    match reader {
        Reader::CommandLine => {
            let option = match stopped {
                Stopped::StateBudget => {
                    format!(
                        " of {} (--max-states)",
                        budget(max_states.unwrap_or_default())
                    )
                }
                Stopped::Timeout => " (--timeout)".to_string(),
                Stopped::Memory => " (--max-memory, or the system's limit)".to_string(),
                Stopped::Disk => " (--max-disk, or the spill folder's own limits)".to_string(),
                Stopped::Cancelled | Stopped::Visitor => String::new(),
            };
            format!("{}{option}", stopped.ended())
        }
        Reader::Animator => {
            let amount = match (stopped, max_states) {
                (Stopped::StateBudget, Some(max)) => format!(" of {}", budget(max)),
                _ => String::new(),
            };
            let option = match stopped {
                Stopped::StateBudget => " (`symcsp FILE --max-states N` sets it)",
                Stopped::Timeout => " (`symcsp FILE --timeout SECS` sets it)",
                Stopped::Memory => {
                    " (`symcsp FILE --max-memory SIZE` sets it, or the system's limit)"
                }
                Stopped::Disk => {
                    " (`symcsp FILE --max-disk SIZE` sets it, or the spill folder's own limits)"
                }
                Stopped::Cancelled | Stopped::Visitor => "",
            };
            format!("{}{amount} before an answer{option}", stopped.ended())
        }
    }
}

/// Breadth-first levels from which a search stopped by a budget looks
/// like one that could never end.
const DEEP: u32 = 10_000;

/// What to tell of a search `stopped` `depth` levels deep at `states`
/// states: when a budget stopped it and the levels held a few states
/// each over a long way (a thin, deep space, as `P(n) = a -> P(n+1)`
/// makes), that a parameter growing without bound would explain it —
/// no budget is then enough. `None` for an ordinary shape, or a cancel.
pub fn unbounded_note(stopped: Stopped, states: u64, depth: u32) -> Option<String> {
    let budget = matches!(
        stopped,
        Stopped::StateBudget | Stopped::Timeout | Stopped::Memory
    );
    (budget && depth >= DEEP && states <= 4 * u64::from(depth)).then(|| {
        format!(
            "the search was {depth} levels deep with about {} a level: if a process \
             parameter grows without bound (as `n` in `P(n) = a -> P(n+1)`), or a process \
             recurses through hiding, renaming or a parallel composition (as `S = (a -> S) \\ \
             {{a}}`, one hiding more at each step), there are infinitely many states and no \
             budget is enough",
            match states / u64::from(depth) {
                0 | 1 => "1 state".to_string(),
                n => format!("{n} states"),
            }
        )
    })
}

/// What a counterexample shows, of its whole trace (the command line's
/// headline): `after <a, b> the process deadlocks`.
pub fn headline(cx: &RenderedCounterexample) -> String {
    let trace = trace_text(&cx.trace);
    let error = cx.error_event.as_deref().unwrap_or("?");
    match cx.kind {
        Kind::Trace if cx.ends_with_error => format!(
            "after {trace} the implementation performs {error}, which the specification does not \
             allow"
        ),
        Kind::Trace if cx.error_event.is_some() => {
            format!("the process performs {trace} but then cannot perform {error}")
        }
        Kind::Trace => format!("the process performs {trace}"),
        // Nothing refused, yet refused: the specification is never
        // stable after the trace, so no stable state is allowed there.
        Kind::Refusal if cx.refusals.is_empty() => format!(
            "after {trace} the implementation can be stable (it accepts only {}), which the \
             specification never is there",
            set(&cx.accepted)
        ),
        Kind::Refusal => format!(
            "after {trace} the implementation refuses {} (it accepts only {}), which the \
             specification does not allow",
            set(&cx.refusals),
            set(&cx.accepted)
        ),
        Kind::Deadlock => format!("after {trace} the process deadlocks"),
        Kind::Divergence => match cx.loop_steps() {
            Some(steps) => format!(
                "after {trace} the process can perform τ for ever (divergence), going round \
                 {steps}"
            ),
            None => format!("after {trace} the process can perform τ for ever (divergence)"),
        },
        Kind::Nondeterminism => {
            let witness = cx
                .witness
                .as_ref()
                .map(|w| format!(" (as in {})", trace_text(w)))
                .unwrap_or_default();
            format!(
                "after {trace} the process may perform {error}{witness} or refuse it (accepting \
                 only {})",
                set(&cx.accepted)
            )
        }
    }
}

/// What a counterexample shows at its last state, in one line (the
/// animator's, beside the walk that has reached it).
pub fn at_its_end(cx: &RenderedCounterexample) -> String {
    match cx.kind {
        Kind::Trace => match &cx.error_event {
            Some(e) => format!("the last step, {e}, is not allowed by the specification"),
            None => "the trace is not allowed by the specification".to_string(),
        },
        Kind::Refusal if cx.refusals.is_empty() => format!(
            "this state is stable (it accepts only {}), where the specification never is",
            set(&cx.accepted)
        ),
        Kind::Refusal => format!(
            "this state refuses {} (it accepts only {})",
            set(&cx.refusals),
            set(&cx.accepted)
        ),
        Kind::Deadlock => "deadlock: this state can do nothing at all".to_string(),
        Kind::Divergence => match cx.loop_steps() {
            Some(steps) => format!("divergence: the τ-loop of {steps} can repeat for ever"),
            None => "this state can perform τ for ever (divergence)".to_string(),
        },
        Kind::Nondeterminism => match &cx.error_event {
            Some(e) => format!("after this trace the process may both perform and refuse {e}"),
            None => "nondeterminism after this trace".to_string(),
        },
    }
}

/// Events as a set: `{a, b}`.
fn set(events: &[String]) -> String {
    format!("{{{}}}", events.join(", "))
}

/// `n` and a noun, the noun plural unless `n` is one: `1 step`,
/// `1234 steps` (command line), `1 234 steps` (animator).
pub fn plural(n: u64, one: &str, many: &str, reader: Reader) -> String {
    let n_text = match reader {
        Reader::CommandLine => n.to_string(),
        Reader::Animator => grouped(n),
    };
    format!("{n_text} {}", if n == 1 { one } else { many })
}

/// Between groups of three digits in [`grouped`]: a no-break space.
pub const GROUP_SEPARATOR: char = '\u{a0}';

/// `1234567` as `1 234 567`, the groups joined by no-break spaces so
/// that a wrapped paragraph never splits a number across lines.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(GROUP_SEPARATOR);
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_is_said_to_each_reader_with_the_option_that_sets_it() {
        use Reader::{Animator, CommandLine};
        assert_eq!(
            stopped_by(Stopped::StateBudget, Some(20_000_000), Animator),
            "stopped by the state budget of 20\u{a0}000\u{a0}000 states before an answer \
             (`symcsp FILE --max-states N` sets it)"
        );
        assert_eq!(
            stopped_by(Stopped::Timeout, Some(100), Animator),
            "stopped by the time-out before an answer (`symcsp FILE --timeout SECS` sets it)"
        );
        assert_eq!(
            stopped_by(Stopped::Cancelled, None, Animator),
            "cancelled before an answer"
        );
        assert_eq!(
            stopped_by(Stopped::StateBudget, Some(1), CommandLine),
            "stopped by the state budget of 1 state (--max-states)"
        );
        assert_eq!(
            stopped_by(Stopped::StateBudget, Some(20_000), CommandLine),
            "stopped by the state budget of 20000 states (--max-states)"
        );
        assert_eq!(
            stopped_by(Stopped::Timeout, None, CommandLine),
            "stopped by the time-out (--timeout)"
        );
    }

    #[test]
    fn only_a_thin_deep_search_is_said_to_be_perhaps_unbounded() {
        let budget = Stopped::Timeout;
        let note = unbounded_note(budget, 50_000, 49_999).expect("a chain");
        assert!(note.starts_with("the search was 49999 levels deep with about 1 state a level"));
        assert_eq!(
            unbounded_note(budget, 160_000, 40_000)
                .as_deref()
                .map(|n| &n[..48]),
            Some("the search was 40000 levels deep with about 4 st")
        );
        // Wide levels, or few of them: an ordinary space.
        assert_eq!(unbounded_note(budget, 200_001, 40_000), None);
        assert_eq!(unbounded_note(budget, 9_999, 9_999), None);
        // A cancel says nothing of budgets.
        assert_eq!(unbounded_note(Stopped::Cancelled, 50_000, 49_999), None);
    }

    #[test]
    fn numbers_are_grouped_for_the_animator_and_plain_for_the_command_line() {
        assert_eq!(plural(1, "step", "steps", Reader::Animator), "1 step");
        assert_eq!(
            plural(1234, "step", "steps", Reader::Animator),
            "1\u{a0}234 steps"
        );
        assert_eq!(
            plural(1234, "step", "steps", Reader::CommandLine),
            "1234 steps"
        );
        assert_eq!(grouped(8_953_229), "8\u{a0}953\u{a0}229");
    }
}

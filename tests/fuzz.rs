//! The mutation fuzz of issue 24 as a bounded property test: shipped
//! models and evaluation fixtures, mutated (pieces of CSPM inserted,
//! deleted, repeated, copied; numbers made large), are loaded (parsed,
//! resolved and type-checked, as every command loads them), their
//! `print`s evaluated and their assertions checked under a small budget.
//! Nothing may panic, hang past the budget or fail without a diagnostic
//! that points inside the script. A failing case is kept by proptest in
//! `tests/fuzz.proptest-regressions` and replayed first on every run.
//!
//! Alone in its test binary: the memory budget is the process's, and no
//! other test shares it here.

use std::time::Duration;

use proptest::prelude::*;
use symcsp::budget::{Budget, Stopped};
use symcsp::check::{self, Verdict};
use symcsp::eval::Evaluator;
use symcsp::script::Script;
use symcsp::syntax::{Diagnostic, SourceMap};

const SCRIPTS: &[&str] = &[
    include_str!("../models/buffers.csp"),
    include_str!("../models/scheduler.csp"),
    include_str!("../models/tokenring.csp"),
    include_str!("../models/philosophers.csp"),
    include_str!("../models/database.csp"),
    include_str!("fixtures/eval/functions.csp"),
    include_str!("fixtures/eval/sets.csp"),
    include_str!("fixtures/eval/sequences.csp"),
    include_str!("fixtures/eval/dots.csp"),
    include_str!("fixtures/check/small.csp"),
];

/// Pieces put into the scripts: syntax that breaks them, and values and
/// operators that make them large or long.
const PIECES: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    "->",
    "[]",
    "|||",
    "\\",
    ";",
    "=",
    ".",
    "?",
    "!",
    "if true then ",
    "else",
    "let x = 1 within ",
    "@",
    ",",
    "..",
    "99999",
    "{0..99999}",
    "<0..99999>",
    "union(",
    "Union({",
    "^",
    "card(",
    "f(n + 1)",
    "STOP",
    "SKIP",
    " [T= ",
    ":[divergence free]",
    "\nassert STOP [T= ",
    "\nprint ",
    "\nchannel z : {0..99}\n",
    "x",
    "n + 1",
    "#",
    "Int",
    "Events",
    "{| |}",
];

/// One edit of a script.
#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, &'static str),
    Delete(usize, usize),
    Repeat(usize, &'static str, usize),
    Copy(usize, usize),
    /// Every number in the script multiplied, up to a large value.
    Grow(u32),
}

fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>();
    let piece = prop::sample::select(PIECES);
    prop_oneof![
        (at, piece.clone()).prop_map(|(at, p)| Edit::Insert(at, p)),
        (at, 1..12usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (at, piece, 2..6usize).prop_map(|(at, p, n)| Edit::Repeat(at, p, n)),
        (at, 1..60usize).prop_map(|(at, n)| Edit::Copy(at, n)),
        (2..1000u32).prop_map(Edit::Grow),
    ]
}

fn boundary(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &mut String, edit: &Edit) {
    match *edit {
        Edit::Insert(at, piece) => {
            let at = boundary(text, at);
            text.insert_str(at, piece);
        }
        Edit::Delete(at, n) => {
            let at = boundary(text, at);
            let end = boundary(text, (at + n).min(text.len()));
            if end > at {
                text.replace_range(at..end, "");
            }
        }
        Edit::Repeat(at, piece, n) => {
            let at = boundary(text, at);
            text.insert_str(at, &piece.repeat(n));
        }
        Edit::Copy(at, n) => {
            let at = boundary(text, at);
            let end = boundary(text, (at + n).min(text.len()));
            let copy = text[at..end.max(at)].to_string();
            text.insert_str(at, &copy);
        }
        Edit::Grow(factor) => {
            let mut grown = String::with_capacity(text.len());
            let mut digits = String::new();
            for c in text.chars().chain(std::iter::once(' ')) {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                if !digits.is_empty() {
                    let n: u64 = digits.parse().unwrap_or(0);
                    grown.push_str(&(n.saturating_mul(factor as u64)).min(9_999_999).to_string());
                    digits.clear();
                }
                grown.push(c);
            }
            grown.pop();
            *text = grown;
        }
    }
}

/// Every diagnostic points inside the script's text, and renders.
fn well_formed(d: &Diagnostic, sources: &SourceMap) {
    if let Some(span) = d.span {
        let file = sources.file(sources.file_of(span));
        assert!(
            file.base <= span.start
                && span.start <= span.end
                && (span.end - file.base) as usize <= file.text.len() + 1,
            "{d:?}"
        );
        assert!(d.render(sources).contains("-->"), "{d:?}");
    }
    assert!(!d.message.is_empty());
}

fn budget() -> Budget {
    Budget {
        max_states: Some(300),
        timeout: Some(Duration::from_millis(300)),
        max_memory: Some(2 << 30),
        threads: 1,
        ..Budget::default()
    }
}

/// Loads the script, evaluates its prints and checks (some of) its
/// assertions within the budget.
fn exercise(text: &str) {
    let script = match symcsp::types::load_str("mutated.csp", text) {
        Ok(loaded) => loaded.script,
        Err(e) => {
            assert!(!e.diagnostics.is_empty());
            for d in &e.diagnostics {
                well_formed(d, &e.sources);
            }
            return;
        }
    };
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(script).with_meter(budget().meter());
        // A script whose work outlasts one budget would outlast the next
        // too: once stopped by the clock, it is not asked again.
        for &func in script.prints.iter().take(8) {
            match evaluator.eval_constant(func) {
                Ok(_) => {}
                Err(e) if e.stop_reason().is_some() => return,
                Err(e) => well_formed(&e.to_diagnostic(), &script.sources),
            }
        }
        for index in 0..script.assertions.len().min(4) {
            match check::check(script, index, &budget()) {
                Ok(result) => {
                    assert!(result.states <= 300, "{} states", result.states);
                    if let Verdict::Inconclusive(stopped) = result.verdict {
                        assert!(result.counterexample.is_none());
                        if stopped == Stopped::Timeout {
                            return;
                        }
                    }
                }
                Err(d) => well_formed(&d, &script.sources),
            }
        }
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_scripts_load_evaluate_and_check_within_their_budget(
        which in 0..SCRIPTS.len(),
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let mut text = SCRIPTS[which].to_string();
        for e in &edits {
            apply(&mut text, e);
        }
        exercise(&text);
    }
}

/// The unmutated scripts check as their headers say they do: the fuzz
/// starts from scripts that work.
#[test]
fn the_scripts_fuzzed_load() {
    for text in SCRIPTS {
        symcsp::types::load_str("script.csp", text).expect("a shipped script loads");
    }
}

/// A case the fuzz found: a pattern definition whose concatenation has
/// two parts of unknown length (`t^u`, from `testBool` with `^` put in)
/// is a diagnostic on the second part, not a panic while the names it
/// defines are looked up.
#[test]
fn a_concatenation_pattern_of_two_names_is_a_diagnostic() {
    for text in ["t^u = <1, 2>\n", "t^estBool = Bool == {false, true}\n"] {
        let errors = Script::load_str("fuzzed.csp", text).expect_err("does not load");
        assert!(
            errors
                .diagnostics
                .iter()
                .any(|d| d.message.contains("only one part of unknown length")),
            "{:?}",
            errors.diagnostics
        );
        exercise(text);
    }
}

/// A case the fuzz found (`database.csp` with `acquire.` deleted from
/// `{acquire.m, release.m}`): a set of a value and an event on it. The
/// event's dots make the value the channel's `Manager` while it is being
/// made the set's `Event`; the checker bound it a second time (a debug
/// assertion; a release build typed the script, `m` as an `Event`). It is
/// FDR's type error.
#[test]
fn a_set_of_a_value_and_an_event_on_it_is_a_type_error() {
    for text in [
        "datatype M = M0 | M1\nchannel c : M\nA(m) = {m, c.m}\n",
        "datatype M = M0 | M1\nchannel c : M\nA(m) = { {m, c.m} }\n",
        "datatype M = M0 | M1\nchannel c : M\nA(m) = {c.m, m}\n",
    ] {
        let Err(errors) = symcsp::types::load_str("fuzzed.csp", text) else {
            panic!("{text}: typed");
        };
        assert!(
            errors.diagnostics.iter().any(|d| d.message
                == "Couldn't match expected type M with actual type Event"
                || d.message == "Couldn't match expected type Event with actual type M"),
            "{text}: {:?}",
            errors.diagnostics
        );
        exercise(text);
    }
}

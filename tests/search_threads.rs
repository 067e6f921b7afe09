//! Any number of threads searches exactly as one does: the same states
//! with the same ids (rows in the same order, the same parents), and the
//! same verdicts, counts and counterexamples for every assertion of every
//! shipped model, and of random networks (a property test).

use proptest::prelude::*;
use symcsp::check;
use symcsp::lts::search::{Budget, Context, Flow, Search, Visit, Visitor};
use symcsp::process::{EventId, Processes};
use symcsp::script::Script;
use symcsp::script::ir::FuncId;

mod random_networks;
mod shipped;
use random_networks::network;
use shipped::models;

/// Records every state's row and its successors' events, in id order.
#[derive(Default, PartialEq, Debug)]
struct Record {
    rows: Vec<u32>,
    events: Vec<EventId>,
    stored: Vec<(u32, bool)>,
}

impl Visitor for Record {
    fn visit(&mut self, _: Context<'_, '_>, visit: Visit<'_>) -> symcsp::eval::EvalResult<Flow> {
        assert_eq!(visit.id as usize, self.rows.len() / visit.row.len().max(1));
        self.rows.extend_from_slice(visit.row);
        self.events.extend_from_slice(visit.events);
        Ok(Flow::Continue)
    }

    fn stored(&mut self, _: u32, _: &[EventId], ids: &[(u32, bool)]) {
        self.stored.extend_from_slice(ids);
    }

    /// So that other threads expand the next block while this one judges.
    fn needs_machine(&self) -> bool {
        false
    }
}

/// Levels wider than the search's blocks (40 000 states, a block holds at most 32 768), where judging
/// one block overlaps expanding the next, and divergence is found a level
/// after it is judged.
const WIDE: &str = "tests/fixtures/check/wide_divergence.csp";

/// The states of `System` in id order, the ids of every successor, and
/// the shortest path to the last state, searched on `threads` threads.
fn search(script: &Script, func: FuncId, threads: usize) -> (Record, (Vec<EventId>, Vec<u32>)) {
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let mut search = Search::new(&mut procs, root, &[], true).expect("the machine compiles");
        let budget = Budget {
            threads,
            ..Budget::default()
        };
        let mut record = Record::default();
        let outcome = search
            .run(&mut procs, &budget, &mut record)
            .expect("searches");
        assert_eq!(outcome.stopped, None);
        let last = search.states() as u32 - 1;
        (record, search.path_to(last))
    })
}

#[test]
fn every_model_is_numbered_alike_on_one_to_eight_threads() {
    let models = models().into_iter().map(|m| format!("models/{m}.csp"));
    for model in models.chain([WIDE.to_string()]) {
        let mut script = Script::load_file(std::path::Path::new(&model))
            .unwrap_or_else(|e| panic!("{model} loads: {}", e.render()));
        let process = if model.contains("scheduler") {
            "Scheduled"
        } else if model == WIDE {
            "Imp"
        } else {
            "System"
        };
        let func = script.add_expr("<process>", process).expect("resolves");
        let one = search(&script, func, 1);
        assert!(!one.0.rows.is_empty(), "{model}");
        // Four threads store a block's successors split between them;
        // eight store it so once the next block is expanded, which reads
        // the store in place.
        for threads in [2, 3, 4, 8] {
            let other = search(&script, func, threads);
            assert!(
                other.0 == one.0,
                "{model}: states or ids differ on {threads} threads"
            );
            assert_eq!(other.1, one.1, "{model}: the path to the last state");
        }
    }
}

#[test]
fn every_assertion_of_every_model_is_judged_alike_on_one_to_eight_threads() {
    let models = models().into_iter().map(|m| format!("models/{m}.csp"));
    for model in models.chain([WIDE.to_string()]) {
        let script = Script::load_file(std::path::Path::new(&model))
            .unwrap_or_else(|e| panic!("{model} loads: {}", e.render()));
        for index in 0..script.assertions.len() {
            let counts = [1, 2, 3, 4, 8];
            let results: Vec<String> = counts
                .iter()
                .map(|&threads| {
                    let budget = Budget {
                        threads,
                        ..Budget::default()
                    };
                    let result =
                        symcsp::stack::with_large_stack(|| check::check(&script, index, &budget))
                            .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
                    format!(
                        "{:?} {} states {} transitions depth {} {:?}",
                        result.verdict,
                        result.states,
                        result.transitions,
                        result.depth,
                        result.counterexample
                    )
                })
                .collect();
            for (threads, result) in counts.iter().zip(&results).skip(1) {
                assert_eq!(
                    result, &results[0],
                    "{model}, assertion {index}: {threads} threads"
                );
            }
        }
    }
}

/// A level split into blocks whose process states are evaluated while
/// the other threads expand them, one of which fails to evaluate.
const WIDE_ERROR: &str = "tests/fixtures/check/wide_error.csp";

#[test]
fn an_evaluation_error_met_ahead_is_reported_as_one_thread_reports_it() {
    let mut script = Script::load_file(std::path::Path::new(WIDE_ERROR))
        .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    let func = script.add_expr("<process>", "Imp").expect("resolves");
    let errors: Vec<_> = [1, 2, 3, 8]
        .iter()
        .map(|&threads| {
            symcsp::stack::with_large_stack(|| {
                let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
                let mut search =
                    Search::new(&mut procs, root, &[], false).expect("the machine compiles");
                let budget = Budget {
                    threads,
                    ..Budget::default()
                };
                search
                    .run(&mut procs, &budget, &mut Record::default())
                    .expect_err("After(35000) cannot be evaluated")
            })
        })
        .collect();
    assert_eq!(errors[0].message, "`head` of the empty sequence");
    assert_eq!(errors[1], errors[0], "2 threads");
    assert_eq!(errors[2], errors[0], "3 threads");
    assert_eq!(errors[3], errors[0], "8 threads");
    // The check on it says the same on any number of threads.
    let results: Vec<String> = [1, 2, 3, 8]
        .iter()
        .map(|&threads| {
            let budget = Budget {
                threads,
                ..Budget::default()
            };
            match symcsp::stack::with_large_stack(|| check::check(&script, 0, &budget)) {
                Ok(result) => format!("{:?}", result.verdict),
                Err(d) => d.render(&script.sources),
            }
        })
        .collect();
    assert!(
        results[0].contains("`head` of the empty sequence"),
        "{}",
        results[0]
    );
    assert_eq!(results[1], results[0], "2 threads");
    assert_eq!(results[2], results[0], "3 threads");
    assert_eq!(results[3], results[0], "8 threads");
}

/// A level with a deadlock and an evaluation error in it, in both orders.
const WIDE_ERROR_AND_DEADLOCK: &str = "tests/fixtures/check/wide_error_and_deadlock.csp";

#[test]
fn a_breach_before_an_evaluation_error_in_the_same_block_comes_first_on_any_number_of_threads() {
    let script = Script::load_file(std::path::Path::new(WIDE_ERROR_AND_DEADLOCK))
        .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    for (index, expected) in [(0, "Failed"), (1, "`head` of the empty sequence")] {
        for threads in [1, 2, 3, 4, 8] {
            let budget = Budget {
                threads,
                ..Budget::default()
            };
            let result =
                match symcsp::stack::with_large_stack(|| check::check(&script, index, &budget)) {
                    Ok(result) => {
                        let trace = result.counterexample.map(|cx| cx.trace());
                        format!("{:?} {trace:?}", result.verdict)
                    }
                    Err(d) => d.render(&script.sources),
                };
            assert!(
                result.contains(expected),
                "assertion {}, {threads} threads: {result}",
                index + 1
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any number of threads judges every assertion of a random network
    /// as one does: verdict, states, transitions, depth and
    /// counterexample.
    #[test]
    fn random_networks_are_judged_alike_on_any_number_of_threads(text in network()) {
        let script = Script::load_str("network.csp", &text)
            .unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
        for index in 0..script.assertions.len() {
            let judged = |threads: usize| {
                let budget = Budget { threads, ..Budget::default() };
                let result = symcsp::stack::with_large_stack(|| check::check(&script, index, &budget))
                    .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
                format!(
                    "{:?} {} states {} transitions depth {} {:?}",
                    result.verdict, result.states, result.transitions, result.depth,
                    result.counterexample
                )
            };
            let one = judged(1);
            for threads in [2, 3, 8] {
                prop_assert_eq!(&judged(threads), &one, "assertion {}, {} threads\n{}", index + 1, threads, &text);
            }
        }
    }
}

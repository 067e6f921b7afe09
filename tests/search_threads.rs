//! Any number of threads searches exactly as one does: the same states
//! with the same ids (rows in the same order, the same parents), and the
//! same verdicts, counts and counterexamples for every assertion of every
//! shipped model, and of random networks (a property test).

use proptest::prelude::*;
use symcsp::check;
use symcsp::eval::EvalResult;
use symcsp::lts::machine::Machine;
use symcsp::lts::search::{
    Budget, Canonicaliser, Context, Flow, Scratch, Search, SharedCanonicaliser, Visit, Visitor,
};
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

/// A level with a deadlock and an evaluation error in it, in both
/// orders: the level is judged to its end, and its breach stands.
const WIDE_ERROR_AND_DEADLOCK: &str = "tests/fixtures/check/wide_error_and_deadlock.csp";

#[test]
fn a_breach_and_an_evaluation_error_of_one_level_fail_on_any_number_of_threads() {
    let script = Script::load_file(std::path::Path::new(WIDE_ERROR_AND_DEADLOCK))
        .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    for (index, expected) in [(0, "Failed"), (1, "Failed")] {
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

/// Rows whose components are interchangeable (one table shared), made
/// canonical by sorting them: a canonicaliser whose part on the threads
/// declines every row whose first component is odd, so that judging
/// beside the next block's expansion meets successors only the search's
/// thread can canonicalise, pauses, and resumes with the machine.
struct Sorting {
    threads: std::sync::Arc<SortingOnThreads>,
}

struct SortingOnThreads;

impl SharedCanonicaliser for SortingOnThreads {
    fn scratch(&self) -> Scratch {
        Scratch(Box::new(()))
    }

    fn try_components(
        &self,
        _: &mut Scratch,
        _: &Machine,
        row: &mut [u32],
        _: &mut Vec<u16>,
    ) -> bool {
        if row[0] % 2 == 1 {
            return false;
        }
        row.sort_unstable();
        true
    }
}

impl Canonicaliser for Sorting {
    fn canonicalise(
        &mut self,
        _: &mut Machine,
        _: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        row.sort_unstable();
        Ok(())
    }

    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        Some(&*self.threads)
    }

    fn lend(&self) -> Option<std::sync::Arc<dyn SharedCanonicaliser>> {
        Some(self.threads.clone())
    }
}

/// [`Record`] under [`Sorting`], counting the states judged beside the
/// next block's expansion (without the machine) and those judged with
/// it after such a state (a pause resumed).
struct SortedRecord {
    record: Record,
    canonicaliser: Sorting,
    beside: usize,
    resumed: usize,
}

impl Visitor for SortedRecord {
    fn visit(&mut self, context: Context<'_, '_>, visit: Visit<'_>) -> EvalResult<Flow> {
        match context.machine {
            None => self.beside += 1,
            Some(_) if self.beside > 0 => self.resumed += 1,
            Some(_) => {}
        }
        self.record.visit(context, visit)
    }

    fn stored(&mut self, state: u32, events: &[EventId], ids: &[(u32, bool)]) {
        self.record.stored(state, events, ids);
    }

    fn needs_machine(&self) -> bool {
        false
    }

    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        Some(&mut self.canonicaliser)
    }
}

#[test]
fn a_reduced_search_judging_beside_the_next_block_numbers_states_as_one_thread_does() {
    // Eight counters of twelve states each, interleaved: 12^8 states
    // raw, C(19, 8) = 75 582 as sorted rows, in levels wide enough to be
    // split into blocks that overlap.
    let mut script = Script::load_str(
        "counters.csp",
        "channel tick : {0..11}\n\
         Counter(n) = tick.n -> Counter((n + 1) % 12)\n\
         System = ||| i : {0..7} @ Counter(0)\n",
    )
    .expect("loads");
    let func = script.add_expr("<process>", "System").expect("resolves");
    let run = |threads: usize| {
        symcsp::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let mut machine = Machine::new(&mut procs, root).expect("the machine compiles");
            machine.share_tables(&[(0..8).collect()]);
            let mut search = Search::with_machine(machine, &[], true);
            let budget = Budget {
                threads,
                ..Budget::default()
            };
            let mut visitor = SortedRecord {
                record: Record::default(),
                canonicaliser: Sorting {
                    threads: std::sync::Arc::new(SortingOnThreads),
                },
                beside: 0,
                resumed: 0,
            };
            let outcome = search
                .run(&mut procs, &budget, &mut visitor)
                .expect("searches");
            assert_eq!(outcome.stopped, None);
            assert_eq!(outcome.states, 75_582, "{threads} threads");
            let last = search.states() as u32 - 1;
            (visitor, search.path_to(last))
        })
    };
    let (one, one_path) = run(1);
    assert_eq!(one.beside, 0, "one thread judges with the machine");
    for threads in [2, 3, 8] {
        let (other, path) = run(threads);
        assert!(
            other.record == one.record,
            "states or ids differ on {threads} threads"
        );
        assert_eq!(
            path, one_path,
            "the path to the last state, {threads} threads"
        );
        assert!(
            other.beside > 0,
            "{threads} threads judge beside the expansion"
        );
        assert!(other.resumed > 0, "{threads} threads pause and resume");
    }
}

/// Every shipped model, reduced by the symmetry of its datatypes as
/// `explore --symmetry auto` reduces it (the symmetry lent to the
/// threads, which find the next block's representatives while the
/// search's thread stores this one): the same representatives, in the
/// same order, with the same counts and paths, on one to eight threads.
#[test]
fn every_model_explored_under_symmetry_stores_the_same_representatives_on_one_to_eight_threads() {
    use symcsp::symmetry::{search_system::SearchSystem, spec::Reduce, strategy::Strategy};
    // ListStack widened to 8 nodes, 4 data and 3 threads (53 513
    // representatives): levels wide enough to be split into blocks that
    // overlap, which the shipped defaults are too small for.
    let shipped = std::fs::read_to_string("models/liststack.csp").expect("the model");
    let widened = shipped
        .replace(
            "datatype NodeIDType = Null | N0 | N1 | N2",
            "datatype NodeIDType = Null | N0 | N1 | N2 | N3 | N4 | N5 | N6 | N7",
        )
        .replace("datatype Data = A | B", "datatype Data = A | B | C | D")
        .replace(
            "datatype ThreadID = T0 | T1",
            "datatype ThreadID = T0 | T1 | T2",
        );
    assert_ne!(widened, shipped, "the datatypes were widened");
    let mut reduced = 0;
    let scripts = models().into_iter().map(|model| {
        let file = format!("models/{model}.csp");
        let script = Script::load_file(std::path::Path::new(&file))
            .unwrap_or_else(|e| panic!("{file} loads: {}", e.render()));
        (model, script)
    });
    let wide = Script::load_str("liststack843.csp", &widened).expect("loads");
    for (model, mut script) in scripts.chain([("liststack (8, 4, 3)".to_string(), wide)]) {
        let process = if model == "scheduler" {
            "Scheduled"
        } else {
            "System"
        };
        let func = script.add_expr("<process>", process).expect("resolves");
        let run = |threads: usize| {
            symcsp::stack::with_large_stack(|| {
                let budget = Budget {
                    threads,
                    ..Budget::default()
                };
                let mut built = SearchSystem::build(
                    &script,
                    func,
                    &Reduce::Automatic,
                    Strategy::Fdr,
                    budget.meter(),
                )
                .expect("builds");
                let lent = built
                    .reduction
                    .canonicaliser()
                    .is_some_and(|c| c.lend().is_some());
                let (explored, search) = symcsp::lts::explore_kept(
                    &mut built.procs,
                    built.machine,
                    &budget,
                    built.reduction.canonicaliser(),
                    true,
                )
                .expect("explores");
                let rows: Vec<Vec<u32>> = (0..search.states() as u32)
                    .map(|id| search.row(id))
                    .collect();
                let last = search.states() as u32 - 1;
                let counts = (
                    explored.states,
                    explored.transitions,
                    explored.deadlock_states,
                    explored.depth,
                );
                (lent, counts, rows, search.path_to(last))
            })
        };
        let one = run(1);
        reduced += usize::from(one.0);
        for threads in [2, 3, 8] {
            let other = run(threads);
            assert_eq!(other.1, one.1, "{model}: counts on {threads} threads");
            assert!(
                other.2 == one.2,
                "{model}: representatives differ on {threads} threads"
            );
            assert_eq!(
                other.3, one.3,
                "{model}: the path to the last state, {threads} threads"
            );
        }
    }
    assert!(reduced >= 6, "{reduced} models reduced by a lent symmetry");
}

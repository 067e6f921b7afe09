//! A search that moves states to disk (`--spill-dir`) answers exactly as
//! one in memory: the same states with the same ids, the same verdicts,
//! counts and counterexamples, for every assertion of every shipped
//! model and check fixture, with a plan that spills every few thousand
//! states. A spill folder that fails or fills stops the search,
//! inconclusive, saying which folder and why.

use std::path::Path;
use std::sync::Arc;

use symcsp::budget::Stopped;
use symcsp::budget::disk::Spill;
use symcsp::check::{self, Verdict};
use symcsp::lts::search::Budget;
use symcsp::script::Script;

mod on_workers;
mod shipped;
use shipped::models;

/// A plan spilling whenever more than `at_states` states are in memory.
fn spilling(dir: &Path, at_states: usize, max_disk: Option<u64>) -> Arc<Spill> {
    let mut spill = Spill::new(Some(dir), max_disk).expect("a writable folder");
    Arc::get_mut(&mut spill).expect("just made").at_states = Some(at_states);
    spill
}

/// Everything a check reports that spilling must not change.
fn judged(script: &Script, index: usize, budget: &Budget) -> String {
    let result = match symcsp::stack::with_large_stack(|| check::check(script, index, budget)) {
        Ok(result) => result,
        // An evaluation error, with the trace that reached it.
        Err(error) => return error.render(&script.sources),
    };
    format!(
        "{:?} {} states {} transitions depth {} {:?}",
        result.verdict, result.states, result.transitions, result.depth, result.counterexample
    )
}

/// The scripts with assertions: every shipped model and the check
/// fixtures.
fn scripts() -> Vec<String> {
    let mut scripts: Vec<String> = models()
        .into_iter()
        .map(|m| format!("models/{m}.csp"))
        .collect();
    for folder in ["tests/fixtures/check", "tests/fixtures/cluster"] {
        let mut more: Vec<String> = std::fs::read_dir(folder)
            .expect("the fixtures")
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                (path.extension()? == "csp").then(|| path.display().to_string())
            })
            .collect();
        more.sort();
        scripts.extend(more);
    }
    scripts
}

#[test]
fn every_assertion_is_judged_alike_spilling_every_few_thousand_states() {
    let dir = tempfile::tempdir().unwrap();
    let mut spilt = 0;
    for path in scripts() {
        let script = Script::load_file(Path::new(&path))
            .unwrap_or_else(|e| panic!("{path} loads: {}", e.render()));
        for index in 0..script.assertions.len() {
            let in_memory = Budget {
                threads: 1,
                ..Budget::default()
            };
            let expected = judged(&script, index, &in_memory);
            for threads in [1, 4] {
                let spill = spilling(dir.path(), 2000, None);
                let budget = Budget {
                    threads,
                    spill: Some(Arc::clone(&spill)),
                    ..Budget::default()
                };
                let got = judged(&script, index, &budget);
                assert_eq!(
                    got, expected,
                    "{path}, assertion {index}, {threads} threads"
                );
                spilt += u64::from(spill.peak() > 0);
                assert_eq!(
                    spill.used(),
                    0,
                    "{path}: the files are gone with the search"
                );
            }
        }
    }
    assert!(spilt > 20, "only {spilt} checks spilled");
    let left = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(left, 0, "nothing is left in the folder");
}

#[test]
fn a_spill_folder_removed_mid_search_stops_it_naming_the_folder() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("spill");
    std::fs::create_dir(&dir).unwrap();
    let script = Script::load_file(Path::new("benches/models/dining.csp")).unwrap();
    let spill = spilling(&dir, 2000, None);
    let budget = Budget {
        threads: 1,
        spill: Some(Arc::clone(&spill)),
        ..Budget::default()
    };
    let watcher = {
        let (spill, dir) = (Arc::clone(&spill), dir.clone());
        std::thread::spawn(move || {
            while spill.written() == 0 {
                std::thread::yield_now();
            }
            std::fs::remove_dir_all(&dir).unwrap();
        })
    };
    let index = 2;
    let result = symcsp::stack::with_large_stack(|| check::check(&script, index, &budget))
        .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
    watcher.join().unwrap();
    assert_eq!(result.verdict, Verdict::Inconclusive(Stopped::Disk));
    let failure = spill.failure().expect("the failure is kept");
    assert!(
        failure.starts_with(&format!(
            "cannot write to the spill folder `{}`",
            dir.display()
        )),
        "{failure}"
    );
    assert!(
        result.notes.contains(&failure),
        "the report says why: {:?}",
        result.notes
    );
    assert!(result.states > 2000, "the counts so far are kept");
}

#[test]
fn a_disk_budget_too_small_stops_the_search_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let script = Script::load_file(Path::new("benches/models/dining.csp")).unwrap();
    let spill = spilling(dir.path(), 2000, Some(100_000));
    let budget = Budget {
        threads: 1,
        spill: Some(Arc::clone(&spill)),
        ..Budget::default()
    };
    let result = symcsp::stack::with_large_stack(|| check::check(&script, 2, &budget)).unwrap();
    assert_eq!(result.verdict, Verdict::Inconclusive(Stopped::Disk));
    let failure = spill.failure().expect("the failure is kept");
    assert!(failure.contains("--max-disk 100 KB"), "{failure}");
    assert!(spill.peak() <= 100_000);
}

/// Assertion `index` of `file` on three in-process workers, within
/// `budget`: what a check on workers reports.
fn on_workers(file: &str, index: usize, budget: Budget) -> String {
    let found = on_workers::check((file, index), &Default::default(), budget, (3, 1 << 10))
        .expect("plans")
        .expect("the workers search");
    let x = &found.exploration;
    let check = found.check.expect("a check");
    format!(
        "{:?} {} states {} transitions depth {} {:?}",
        check.holds, x.states, x.transitions, x.depth, check.counterexample
    )
}

#[test]
fn every_worker_spills_its_own_states_and_answers_alike() {
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    let mut spilt = 0;
    // The shipped models, most too small to fill a chunk of rows (the
    // unit that moves to disk) on each of three workers, and the
    // benchmarks' larger ones, which spill on every worker.
    let files = models()
        .into_iter()
        .map(|model| format!("models/{model}.csp"))
        .chain(["benches/models/dining.csp".to_string()]);
    for file in files {
        let loaded = symcsp::types::load_file(Path::new(&file)).expect("loads");
        for index in 0..loaded.script.assertions.len() {
            let task = symcsp::check::task::Task::of_assertion(&loaded.script, index, None);
            if task.is_none() {
                continue;
            }
            let expected = on_workers(&file, index, Budget::default());
            let spill = spilling(dir.path(), 500, None);
            let budget = Budget {
                spill: Some(Arc::clone(&spill)),
                ..Budget::default()
            };
            let got = on_workers(&file, index, budget);
            assert_eq!(got, expected, "{file}, assertion {index}");
            spilt += u64::from(spill.peak() > 0);
            compared += 1;
        }
    }
    assert!(compared > 20 && spilt >= 5, "{spilt} of {compared} spilled");
}

/// Three counters, the first's moves hidden, and where the first two
/// are full a hidden loop: a third of the moves are τ-edges, and the
/// first state to diverge is 300 levels deep, after some 180 000 others
/// (several chunks of rows on each worker).
const DIVERGENT: &str = "\
channel a, b, c, h
P(i, j, k) = (i < 300 & a -> P(i + 1, j, k))
          [] (j < 300 & b -> P(i, j + 1, k))
          [] (k < 3 & c -> P(i, j, k + 1))
          [] (i == 300 and j == 300 & h -> P(i, j, k))
assert P(0, 0, 0) \\ {a, h} :[divergence free]
";

#[test]
fn workers_find_a_divergence_alike_with_their_parents_and_tau_edges_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("divergent.csp");
    std::fs::write(&file, DIVERGENT).unwrap();
    let file = file.display().to_string();
    let expected = on_workers(&file, 0, Budget::default());
    let folder = tempfile::tempdir().unwrap();
    let spill = spilling(folder.path(), 500, None);
    let budget = Budget {
        spill: Some(Arc::clone(&spill)),
        ..Budget::default()
    };
    let got = on_workers(&file, 0, budget);
    assert_eq!(got, expected);
    assert!(spill.peak() > 0, "the workers spilled");
    assert!(spill.failure().is_none());
    // Fails: (0, 300) diverges, 300 `b`s in, by 300 τs to the corner
    // and its τ-loop.
    assert!(expected.starts_with("Some(false) "), "{expected}");
    assert!(expected.contains("kind: Divergence"), "{expected}");
    assert_eq!(expected.matches("Step {").count(), 601, "{expected}");
}

//! The representative algorithm against the brute-force canonicaliser
//! (the least image over the whole group) on every symmetric model of
//! `models/` at sizes where the group is small: reduced state counts
//! (representatives can only be more than the orbits, and equal them
//! where the algorithm finds unique representatives), and on sampled
//! reachable states, that `rep(s)` is symmetric to `s` and, wherever
//! Proposition 50's conditions hold, that `rep(π(s)) = rep(s)` for random
//! permutations π; and that comparing two states answers "the same
//! representative" exactly when their representatives are equal, gives
//! a permutation only when it maps one onto the other, and "not
//! symmetric" never when the oracle finds them symmetric.

use std::sync::Arc;

use proptest::prelude::*;
use symcsp::explain::compare::{Answer, DEFAULT_CANDIDATES, Mapping};
use symcsp::lts::machine::Machine;
use symcsp::lts::{Budget, Exploration, explore, explore_machine};
use symcsp::process::{ProcId, Processes};
use symcsp::script::Script;
use symcsp::script::ir::FuncId;
use symcsp::symmetry::brute::BruteForce;
use symcsp::symmetry::rep::Trace;
use symcsp::symmetry::{Origin, Permutation, Symmetry, SystemSymmetry};

/// A model's process with its distinguished types, loaded.
struct Model {
    script: Script,
    root: FuncId,
    items: Vec<FuncId>,
}

/// `file` is in `models/`, unless it is a path.
fn model(file: &str, process: &str, types: &[&str]) -> Model {
    let path = if file.contains('/') {
        file.to_string()
    } else {
        format!("models/{file}")
    };
    let mut script = Script::load_file(path.as_ref()).expect("loads");
    let root = script.add_expr("<process>", process).expect("resolves");
    let items = types
        .iter()
        .map(|t| script.add_expr("<type>", t).expect("resolves"))
        .collect();
    Model {
        script,
        root,
        items,
    }
}

impl Model {
    /// Runs `body` with the processes, the root state and the symmetry.
    fn with<T: Send>(
        &self,
        body: impl FnOnce(&mut Processes, ProcId, Arc<Symmetry>) -> T + Send,
    ) -> T {
        symcsp::stack::with_large_stack(|| {
            let (mut procs, root) =
                Processes::with_root(&self.script, self.root).expect("a process");
            let symmetry = Symmetry::explicit(
                &self.script,
                procs.evaluator(),
                &self.items,
                Origin::CommandLine,
                &[self.root],
            )
            .expect("symmetric");
            body(&mut procs, root, Arc::new(symmetry))
        })
    }
}

/// Unreduced, reduced by the representative algorithm, reduced by the
/// brute-force canonicaliser (the number of orbits).
fn counts(m: &Model) -> (Exploration, Exploration, Exploration) {
    m.with(|procs, root, symmetry| {
        let budget = Budget::default();
        let plain = explore(procs, root, &budget).expect("explores");
        let mut machine = Machine::new(procs, root).expect("the machine compiles");
        let mut system =
            SystemSymmetry::new(symmetry.clone(), &mut machine, procs).expect("mappable");
        let reduced =
            explore_machine(procs, machine, &budget, Some(&mut system)).expect("explores");
        let mut machine = Machine::new(procs, root).expect("the machine compiles");
        let system = SystemSymmetry::new(symmetry, &mut machine, procs).expect("mappable");
        let mut brute = BruteForce::new(system).expect("a small group");
        let orbits = explore_machine(procs, machine, &budget, Some(&mut brute)).expect("explores");
        (plain, reduced, orbits)
    })
}

#[test]
fn reduced_counts_against_the_orbits() {
    // (model, process, types, states, orbits, representatives)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], u64, u64, u64);
    let cases: &[Case] = &[
        (
            "liststack.csp",
            "System",
            &["NodeID", "Data", "ThreadID"],
            1867,
            93,
            93,
        ),
        ("peterson.csp", "System", &["ProcID"], 620, 121, 130),
        ("database.csp", "System", &["Manager"], 28, 8, 8),
        ("buffers.csp", "System", &["T"], 9, 5, 5),
        ("philosophers.csp", "System", &["Id"], 1420, 248, 248),
        (
            "treebroadcast.csp",
            "System",
            &["NodeID", "Data"],
            3269,
            304,
            314,
        ),
        ("ring.csp", "System", &["NodeID", "Data"], 2937, 73, 73),
        ("scheduler.csp", "Scheduled", &["ClientID"], 183, 39, 39),
    ];
    for &(file, process, types, states, orbits, representatives) in cases {
        let (plain, reduced, brute) = counts(&model(file, process, types));
        let got = (plain.states, brute.states, reduced.states);
        assert_eq!(
            got,
            (states, orbits, representatives),
            "{file} {process} over {types:?}: (states, orbits, representatives)"
        );
        // The unique rate: how close the algorithm comes to one
        // representative per orbit (docs/symmetry.md lists them).
        eprintln!(
            "{file}: {states} states, {orbits} orbits, {representatives} representatives, \
             unique rate {:.1}%",
            100.0 * orbits as f64 / representatives as f64
        );
    }
}

/// Every reachable state of a model, as rows of a machine that shares
/// tables under the symmetry, with the machine and its symmetry.
fn with_reachable<T: Send>(
    m: &Model,
    body: impl FnOnce(
        &mut Processes,
        &mut Machine,
        &mut SystemSymmetry,
        &mut BruteForce,
        Vec<Vec<u32>>,
    ) -> T
    + Send,
) -> T {
    m.with(|procs, root, symmetry| {
        let graph = symcsp::lts::graph::graph(procs, root, 200_000, None)
            .expect("explores")
            .expect("small");
        let mut machine = Machine::new(procs, root).expect("the machine compiles");
        let mut system =
            SystemSymmetry::new(symmetry.clone(), &mut machine, procs).expect("mappable");
        let oracle = SystemSymmetry::new(symmetry, &mut machine, procs).expect("mappable");
        let mut brute = BruteForce::new(oracle).expect("a small group");
        let rows = graph
            .states
            .iter()
            .map(|state| {
                state
                    .iter()
                    .enumerate()
                    .map(|(slot, &p)| machine.local_of(slot, p))
                    .collect()
            })
            .collect();
        body(procs, &mut machine, &mut system, &mut brute, rows)
    })
}

/// The text of a row, for comparing and for messages.
fn texts(procs: &Processes, machine: &Machine, row: &[u32]) -> Vec<String> {
    row.iter()
        .enumerate()
        .map(|(slot, &local)| procs.show_state(machine.process_state(slot, local)))
        .collect()
}

/// A property runner for `cases` cases, each failure reported, none
/// saved (the states are numbered afresh by every run).
fn runner(cases: u32) -> proptest::test_runner::TestRunner {
    proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    })
}

const SYMMETRIC_MODELS: &[(&str, &str, &[&str])] = &[
    ("liststack.csp", "System", &["NodeID", "Data", "ThreadID"]),
    ("peterson.csp", "System", &["ProcID"]),
    ("philosophers.csp", "System", &["Id"]),
    ("treebroadcast.csp", "System", &["NodeID", "Data"]),
    ("ring.csp", "System", &["NodeID", "Data"]),
    ("scheduler.csp", "Scheduled", &["ClientID"]),
];

#[test]
fn a_representative_is_symmetric_to_its_state_and_unique_where_proposition_50_holds() {
    for &(file, process, types) in SYMMETRIC_MODELS {
        let m = model(file, process, types);
        with_reachable(&m, |procs, machine, system, brute, rows| {
            let group = Permutation::all(system.symmetry());
            let mut runner = runner(64);
            let strategy = (0..rows.len(), 0..group.len());
            // The runner's test is `Fn`: the mutable engine goes in a cell.
            let engine = std::cell::RefCell::new((procs, machine, system, brute, 0));
            let result = runner.run(&strategy, |(s, p)| {
                let (procs, machine, system, brute, guaranteed) = &mut *engine.borrow_mut();
                let (procs, machine, system) = (&mut **procs, &mut **machine, &mut **system);
                let row = &rows[s];
                let n = row.len();
                let mut rep = vec![0; n];
                let mut trace = Trace::default();
                let chosen = system
                    .representative(machine, procs, row, &mut rep, Some(&mut trace))
                    .clone();
                // rep(s) is the image of s under the permutation chosen.
                let mut image = vec![0; n];
                system.apply(machine, procs, &chosen, row, &mut image);
                prop_assert_eq!(&image, &rep);
                // ... and under the permutation of the trace.
                prop_assert_eq!(&trace.permutation, &chosen);
                // The oracle agrees that they are in one orbit.
                let (mut least, mut least_of_rep) = (vec![0; n], vec![0; n]);
                brute.canonical(machine, procs, row, &mut least);
                brute.canonical(machine, procs, &rep, &mut least_of_rep);
                prop_assert_eq!(&least, &least_of_rep);
                // rep(π(s)) = rep(s) wherever Proposition 50's conditions hold.
                let unique = system.unique_identities(machine, procs, row)
                    && system.reads_every_value()
                    && trace.splits_fully_symmetric();
                if unique {
                    *guaranteed += 1;
                    let mut moved = vec![0; n];
                    system.apply(machine, procs, &group[p], row, &mut moved);
                    let mut again = vec![0; n];
                    system.representative(machine, procs, &moved, &mut again, None);
                    prop_assert_eq!(
                        texts(procs, machine, &again),
                        texts(procs, machine, &rep),
                        "{}: rep(π(s)) differs from rep(s) for s = {:?}, π = {}",
                        file,
                        texts(procs, machine, row),
                        &group[p]
                    );
                }
                Ok(())
            });
            if let Err(e) = result {
                panic!("{file}: {e}");
            }
            let guaranteed = engine.borrow().4;
            eprintln!("{file}: Proposition 50 held in {guaranteed} of 64 sampled states");
        });
    }
}

/// How often each answer and cause came up, for the report line.
#[derive(Default, Debug)]
struct Answers {
    same: u32,
    not_symmetric: u32,
    not_unique: u32,
    causes: Vec<String>,
}

#[test]
fn compare_agrees_with_the_representatives_and_with_the_oracle() {
    // The token ring, Example 43's rings (symmetric states split apart
    // by step 3), and Peterson's algorithm (states whose values hide in
    // maps, which the algorithm does not read).
    let cases: &[(&str, &str, &[&str])] = &[
        ("ring.csp", "System", &["NodeID", "Data"]),
        ("models/paper/example43.csp", "Ring", &["NodeID", "Data"]),
        ("peterson.csp", "System", &["ProcID"]),
    ];
    for &(file, process, types) in cases {
        let m = model(file, process, types);
        with_reachable(&m, |procs, machine, system, brute, rows| {
            let group = Permutation::all(system.symmetry());
            let mut runner = runner(128);
            // Two reachable states, or a state and its image under a
            // permutation (symmetric by construction).
            let strategy = (0..rows.len(), 0..rows.len(), 0..group.len(), any::<bool>());
            let engine =
                std::cell::RefCell::new((procs, machine, system, brute, Answers::default()));
            let result = runner.run(&strategy, |(s, t, p, renamed)| {
                let (procs, machine, system, brute, answers) = &mut *engine.borrow_mut();
                let (procs, machine, system) = (&mut **procs, &mut **machine, &mut **system);
                let left = rows[s].clone();
                let right = if renamed {
                    let mut image = vec![0; left.len()];
                    system.apply(machine, procs, &group[p], &left, &mut image);
                    image
                } else {
                    rows[t].clone()
                };
                let c = system.compare(machine, procs, &left, &right, DEFAULT_CANDIDATES);
                let same_representative = c.left.representative == c.right.representative;
                let n = left.len();
                let (mut least, mut least_right) = (vec![0; n], vec![0; n]);
                brute.canonical(machine, procs, &left, &mut least);
                brute.canonical(machine, procs, &right, &mut least_right);
                let symmetric = least == least_right;
                if renamed {
                    prop_assert!(symmetric, "the oracle disagrees with a renaming");
                }
                let shown =
                    |procs: &Processes, machine: &Machine, row: &[u32]| texts(procs, machine, row);
                let maps = |system: &mut SystemSymmetry,
                            machine: &mut Machine,
                            procs: &mut Processes,
                            mapping: &Mapping| {
                    let mut image = vec![0; n];
                    system.apply(machine, procs, &mapping.permutation, &left, &mut image);
                    image == right && mapping.alpha == system.alpha(procs, &mapping.permutation)
                };
                match &c.answer {
                    Answer::Same { mapping } => {
                        answers.same += 1;
                        prop_assert!(same_representative);
                        prop_assert!(maps(system, machine, procs, mapping));
                    }
                    Answer::NotUnique { mapping, cause, .. } => {
                        answers.not_unique += 1;
                        answers.causes.push(format!("{cause:?}"));
                        prop_assert!(!same_representative);
                        prop_assert!(
                            maps(system, machine, procs, mapping),
                            "{file}: the permutation does not map {:?} onto {:?}",
                            shown(procs, machine, &left),
                            shown(procs, machine, &right)
                        );
                    }
                    Answer::NotSymmetric(evidence) => {
                        answers.not_symmetric += 1;
                        prop_assert!(!same_representative);
                        prop_assert!(
                            !symmetric,
                            "{file}: {evidence:?}, but the oracle maps {:?} onto {:?}",
                            shown(procs, machine, &left),
                            shown(procs, machine, &right)
                        );
                    }
                    Answer::Undecided { budget } => {
                        prop_assert!(false, "{file}: undecided within {budget} candidates");
                    }
                }
                Ok(())
            });
            if let Err(e) = result {
                panic!("{file}: {e}");
            }
            let answers = &engine.borrow().4;
            eprintln!("{file}: {answers:?}");
            // Both kinds of pair came up.
            assert!(answers.same > 0 && answers.not_symmetric > 0, "{answers:?}");
        });
    }
}

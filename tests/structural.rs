//! Issue 51: symmetry from a system's communication structure. The
//! groups found (interleaved copies: every permutation; a ring: its
//! rotations, and reflections where they hold; a star: the swaps of its
//! leaves; TopSPIN's load balancer: 2·3!·3!·3! = 432), validation
//! refusing a candidate with its reason while the largest valid subgroup
//! survives, and reduced counts equal to the orbits counted by brute
//! force over the group (every reachable state's images, joined).

use symcsp::lts::machine::Machine;
use symcsp::lts::{Budget, explore, explore_machine};
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::structural::group::StructuralReduction;
use symcsp::symmetry::structural::{self, Structure};

fn fixture(name: &str) -> String {
    format!("tests/fixtures/structural/{name}")
}

/// What structural analysis finds for `System` of `path`, and the
/// states, the representatives and the orbits counted by brute force.
fn analysed(path: &str) -> (Structure, u64, u64, u64) {
    let mut script = Script::load_file(path.as_ref()).expect("loads");
    let func = script.add_expr("<process>", "System").expect("resolves");
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let budget = Budget::default();
        let states = explore(&mut procs, root, &budget).expect("explores").states;
        let mut machine = Machine::new(&mut procs, root).expect("compiles");
        let structure = structural::analyse(&machine, &mut procs).expect("analyses");
        let elements = structure.elements.clone().expect("a group small enough");
        let mut reduction = StructuralReduction::new(elements, &structure.graph, &mut machine);
        // Brute force: every reachable state, each element's image of it
        // joined with it.
        let graph = symcsp::lts::graph::graph(&mut procs, root, 1_000_000, None)
            .expect("explores")
            .expect("small");
        let rows: Vec<Vec<u32>> = graph
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
        let index: std::collections::HashMap<Vec<u32>, usize> = rows
            .iter()
            .cloned()
            .enumerate()
            .map(|(k, r)| (r, k))
            .collect();
        let mut parent: Vec<usize> = (0..rows.len()).collect();
        fn root_of(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let mut image = vec![0; machine.components()];
        for (k, row) in rows.iter().enumerate() {
            for g in 0..reduction.order() {
                reduction.apply(&mut machine, g, row, &mut image);
                let other = index[&image];
                let (a, b) = (root_of(&mut parent, k), root_of(&mut parent, other));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let orbits = (0..rows.len())
            .filter(|&k| root_of(&mut parent, k) == k)
            .count() as u64;
        let reduced = explore_machine(&mut procs, machine, &budget, Some(&mut reduction))
            .expect("explores")
            .states;
        assert_eq!(
            rows.len() as u64,
            states,
            "{path}: the graph has every state"
        );
        (structure, states, reduced, orbits)
    })
}

#[test]
fn the_groups_found_and_the_orbits_reduced_to() {
    // (fixture, the graph's order, the validated group's order, states,
    // orbits)
    let cases = [
        ("copies.csp", "24", "24", 81, 15),
        ("dining.csp", "5", "5", 242, 50),
        ("ij.csp", "12", "12", 63, 12),
        ("star.csp", "24", "24", 5, 2),
        ("balancer.csp", "432", "432", 229, 10),
        ("lopsided.csp", "6", "2", 12, 9),
        ("chain.csp", "6", "1", 27, 27),
        // Each process holds the set of the others: the members of the
        // family differ in it as in their identities.
        ("flags.csp", "384", "384", 343, 77),
        // The reflection holds with each event's fields exchanged, which
        // no automorphism of the directed graph makes.
        ("tokens.csp", "4", "8", 16, 6),
    ];
    for (file, graph_order, group_order, states, orbits) in cases {
        let (structure, all, reduced, brute) = analysed(&fixture(file));
        assert_eq!(
            structure.automorphisms.order.to_string(),
            graph_order,
            "{file}: the graph's group"
        );
        assert_eq!(
            structure.order.to_string(),
            group_order,
            "{file}: the group"
        );
        assert_eq!(all, states, "{file}: states");
        assert_eq!(brute, orbits, "{file}: orbits by brute force");
        assert_eq!(reduced, orbits, "{file}: representatives");
        if file == "tokens.csp" {
            assert!(
                structure.how.ends_with(
                    "and so is reflection i ↦ 3−i over {0..3}, an automorphism of the graph once \
                     its directions are forgotten"
                ),
                "{}",
                structure.how
            );
        }
    }
}

#[test]
fn a_candidate_that_fails_says_why_and_the_rest_survives() {
    let (structure, ..) = analysed(&fixture("lopsided.csp"));
    let failed: Vec<&String> = structure
        .generators
        .iter()
        .filter_map(|c| c.result.as_ref().err())
        .collect();
    assert_eq!(
        failed,
        vec!["Node(0) and its image Node(1): they have 3 and 2 states"]
    );
    assert_eq!(structure.component_orbits(), vec![vec![0], vec![1, 2]]);
    // The ring's rotations hold and its reflection is no automorphism of
    // the ring (a philosopher picks up its own fork first).
    let (dining, ..) = analysed(&fixture("dining.csp"));
    let patterns: Vec<(String, bool)> = dining
        .patterns
        .iter()
        .map(|(p, c)| (p.name.clone(), c.result.is_ok()))
        .collect();
    assert_eq!(
        patterns,
        vec![
            ("rotation i ↦ i+1 mod 5".to_string(), true),
            ("reflection i ↦ 4−i".to_string(), false),
            ("swap 0 ↔ 1".to_string(), false),
        ]
    );
    // A link is directed: its operands do not change sides.
    let (chain, ..) = analysed(&fixture("chain.csp"));
    let failed: Vec<&String> = (chain.generators.iter())
        .filter_map(|c| c.result.as_ref().err())
        .collect();
    assert!(
        failed[0].ends_with(
            "would have its operands change sides, and a link pairs the left operand's events \
             with the right's"
        ),
        "{failed:?}"
    );
    // Israeli–Jalfon: both directions, so rotations and reflections.
    let (ring, ..) = analysed(&fixture("ij.csp"));
    assert!(ring.patterns.iter().take(2).all(|(_, c)| c.result.is_ok()));
}

/// Every assertion of `file`, unreduced and under the structural group:
/// (verdict, states, reduced by, the counterexample's steps) each way.
type Judged = (String, u64, Option<String>, Option<usize>);

fn judged_both_ways(file: &str) -> Vec<(Judged, Judged, Vec<String>)> {
    use symcsp::check::{Asked, check_with};
    use symcsp::symmetry::spec::Reduce;
    let script = Script::load_file(file.as_ref()).expect("loads");
    let budget = Budget::default();
    let judge = |index: usize, reduce: Reduce| {
        let asked = Asked {
            symmetry: Some(reduce),
            ..Asked::default()
        };
        let result = check_with(&script, index, &budget, &asked).expect("checks");
        let judged = (
            result.verdict.word().to_string(),
            result.states,
            result.symmetry.as_ref().map(|r| r.order_text()),
            result.counterexample.as_ref().map(|c| c.steps.len()),
        );
        (judged, result.notes)
    };
    (0..script.assertions.len())
        .map(|index| {
            let (plain, _) = judge(index, Reduce::Off);
            let (reduced, notes) = judge(index, Reduce::Structural);
            (plain, reduced, notes)
        })
        .collect()
}

/// Every assertion judged alike both ways: the verdict, and (breadth
/// first, reduced or not) the shortest counterexample's length.
fn assert_alike(name: &str, judged: &[(Judged, Judged, Vec<String>)]) {
    for (k, (plain, reduced, _)) in judged.iter().enumerate() {
        assert_eq!(plain.0, reduced.0, "{name} {}: the verdict", k + 1);
        assert_eq!(plain.3, reduced.3, "{name} {}: the counterexample", k + 1);
    }
}

#[test]
fn checks_under_the_structural_group_keep_every_verdict_and_counterexample_length() {
    let judged = symcsp::stack::with_large_stack(|| judged_both_ways(&fixture("checks.csp")));
    assert_alike("checks.csp", &judged);
    let verdicts: Vec<&str> = judged.iter().map(|(p, ..)| p.0.as_str()).collect();
    assert_eq!(
        verdicts,
        [
            "Failed", "Passed", "Passed", "Passed", "Failed", "Failed", "Failed", "Passed",
            "Failed", "Passed"
        ]
    );
    // Searched to the end: 392 states, and the orbits under the five
    // rotations are (392 + 4·2)/5 = 80 (two states, all thinking and all
    // holding their left fork, are fixed by every rotation).
    let (plain, reduced, _) = &judged[1];
    assert_eq!((plain.1, reduced.1), (392, 80));
    assert_eq!(reduced.2.as_deref(), Some("5"));
    // A specification no rotation keeps: checked unreduced, saying why.
    let (_, first, notes) = &judged[6];
    assert_eq!(first.2, None);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("invariant under no element")
                && n.contains("cannot do its image eat.1")),
        "{notes:?}"
    );
    // A trace is followed, not reduced.
    let (_, trace, notes) = &judged[9];
    assert_eq!(trace.2, None);
    assert!(notes.iter().any(|n| n.contains("has trace")), "{notes:?}");
}

#[test]
fn a_specification_that_singles_out_a_component_keeps_the_subgroup_that_fixes_it() {
    let judged = symcsp::stack::with_large_stack(|| judged_both_ways(&fixture("subgroup.csp")));
    assert_alike("subgroup.csp", &judged);
    for (k, (_, reduced, _)) in judged.iter().enumerate() {
        // The permutations of copies 1..3 only.
        assert_eq!(reduced.2.as_deref(), Some("6"), "assertion {}", k + 1);
    }
    // 3^4 = 81 states; with copy 0 fixed, 3 · C(5, 2) = 30 orbits.
    let (plain, reduced, _) = &judged[1];
    assert_eq!((plain.0.as_str(), plain.1, reduced.1), ("Passed", 81, 30));
}

#[test]
fn every_fixture_is_judged_alike_reduced_and_not() {
    for name in [
        "copies.csp",
        "dining.csp",
        "ij.csp",
        "star.csp",
        "balancer.csp",
        "lopsided.csp",
        "flags.csp",
    ] {
        let judged = symcsp::stack::with_large_stack(|| judged_both_ways(&fixture(name)));
        assert!(!judged.is_empty(), "{name} has assertions");
        assert_alike(name, &judged);
        for (k, (_, reduced, _)) in judged.iter().enumerate() {
            assert!(reduced.2.is_some(), "{name} {}: reduced", k + 1);
        }
    }
}

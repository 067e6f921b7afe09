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
    // Israeli–Jalfon: both directions, so rotations and reflections.
    let (ring, ..) = analysed(&fixture("ij.csp"));
    assert!(ring.patterns.iter().take(2).all(|(_, c)| c.result.is_ok()));
}

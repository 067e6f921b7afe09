//! The paper's worked examples, each a fixture script in
//! `tests/fixtures/symmetry/`: the representative algorithm's partitions,
//! n-values, orderings and results exactly as Gibson-Robinson & Lowe
//! print them (Examples 37, 39, 41 and 43).

use std::sync::Arc;

use symcsp::check::trace::state_after;
use symcsp::lts::Budget;
use symcsp::lts::machine::Machine;
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::rep::{Step, Trace};
use symcsp::symmetry::{Origin, Symmetry, SystemSymmetry};

/// What the algorithm did for the state a trace leads to.
struct Outcome {
    /// The state, one component per slot.
    state: Vec<String>,
    representative: Vec<String>,
    trace: Trace,
    /// Each step's cells as component texts.
    cells: Vec<Vec<Vec<String>>>,
    /// Per type, the ordering as names.
    orderings: Vec<Vec<String>>,
    unique_identities: bool,
}

fn representative_after(file: &str, process: &str, types: &[&str], events: &[&str]) -> Outcome {
    let path = format!("tests/fixtures/symmetry/{file}");
    let mut script = Script::load_file(path.as_ref()).expect("loads");
    let root = script.add_expr("<process>", process).expect("resolves");
    let items: Vec<_> = types
        .iter()
        .map(|t| script.add_expr("<type>", t).expect("resolves"))
        .collect();
    let events: Vec<_> = events
        .iter()
        .map(|e| script.add_expr("<event>", e).expect("resolves"))
        .collect();
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, start) = Processes::with_root(script, root).expect("a process");
        let symmetry = Symmetry::explicit(
            script,
            procs.evaluator(),
            &items,
            Origin::CommandLine,
            &[root],
        )
        .expect("symmetric");
        let trace: Vec<_> = events
            .iter()
            .map(|&e| {
                let value = procs.evaluator().eval_constant(e).expect("evaluates");
                procs
                    .event_id(&value, script.function(e).span)
                    .expect("an event")
            })
            .collect();
        let mut machine = Machine::new(&mut procs, start);
        let mut system =
            SystemSymmetry::new(Arc::new(symmetry), &mut machine, &mut procs).expect("mappable");
        let (mut machine, found) =
            state_after(&mut procs, machine, &trace, &Budget::default()).expect("searches");
        let (_, row) = found.expect("the trace is possible");
        let mut out = vec![0; row.len()];
        let mut trace = Trace::default();
        system.representative(&mut machine, &mut procs, &row, &mut out, Some(&mut trace));
        let unique_identities = system.unique_identities(&machine, &mut procs, &row);
        let show =
            |row: &[u32], slot: usize| procs.show_state(machine.process_state(slot, row[slot]));
        let texts = |cells: &[Vec<usize>]| -> Vec<Vec<String>> {
            cells
                .iter()
                .map(|cell| cell.iter().map(|&c| show(&row, c)).collect())
                .collect()
        };
        let cells = trace
            .steps
            .iter()
            .map(|step| match step {
                Step::Shapes { cells }
                | Step::Refine { cells, .. }
                | Step::Individualise { cells, .. } => texts(cells),
            })
            .collect();
        let orderings = trace
            .type_orderings
            .iter()
            .map(|o| {
                o.iter()
                    .map(|&a| system.symmetry().name(script, a).to_string())
                    .collect()
            })
            .collect();
        Outcome {
            state: (0..row.len()).map(|s| show(&row, s)).collect(),
            representative: (0..out.len()).map(|s| show(&out, s)).collect(),
            trace,
            cells,
            orderings,
            unique_identities,
        }
    })
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn examples_37_39_41_a_list_of_four_nodes_and_two_free_ones() {
    let outcome = representative_after(
        "linked_nodes.csp",
        "Nodes",
        &["NodeID", "Data"],
        &[
            "initNode.N4.B.Null",
            "initNode.N0.B.N4",
            "initNode.N1.B.N0",
            "initNode.N3.B.N1",
        ],
    );
    assert_eq!(
        outcome.state,
        strings(&[
            "Node(N0, B, N4)",
            "Node(N1, B, N0)",
            "FreeNode(N2)",
            "Node(N3, B, N1)",
            "Node(N4, B, Null)",
            "FreeNode(N5)"
        ])
    );
    // Step 1: free nodes, the nodes pointing to nodes, the last node.
    assert_eq!(
        outcome.cells[0],
        vec![
            strings(&["FreeNode(N2)", "FreeNode(N5)"]),
            strings(&["Node(N0, B, N4)", "Node(N1, B, N0)", "Node(N3, B, N1)"]),
            strings(&["Node(N4, B, Null)"]),
        ]
    );
    // Step 2's n-values, exactly as the paper prints them.
    let Step::Refine {
        n_values, split, ..
    } = &outcome.trace.steps[1]
    else {
        panic!("step 2 follows step 1");
    };
    assert!(split);
    let n_value = |text: &str| {
        let slot = outcome
            .state
            .iter()
            .position(|s| s == text)
            .expect("a component");
        n_values
            .iter()
            .find(|n| n.component == slot)
            .expect("an n-value")
            .to_string()
    };
    assert_eq!(n_value("Node(N0, B, N4)"), "⟨0, 1, 1, 0; 3, 1; 0, 0, 1, 1⟩");
    assert_eq!(n_value("Node(N1, B, N0)"), "⟨0, 1, 1, 0; 3, 1; 0, 1, 1, 0⟩");
    assert_eq!(n_value("Node(N3, B, N1)"), "⟨0, 1, 0, 0; 3, 1; 0, 1, 1, 0⟩");
    assert_eq!(n_value("FreeNode(N2)"), "⟨1, 0, 0, 0⟩");
    assert_eq!(n_value("FreeNode(N5)"), "⟨1, 0, 0, 0⟩");
    assert_eq!(
        outcome.cells[1],
        vec![
            strings(&["FreeNode(N2)", "FreeNode(N5)"]),
            strings(&["Node(N3, B, N1)"]),
            strings(&["Node(N0, B, N4)"]),
            strings(&["Node(N1, B, N0)"]),
            strings(&["Node(N4, B, Null)"]),
        ]
    );
    // Repeating step 2 makes no further progress; step 3 splits the free
    // nodes, a fully symmetric cell.
    assert!(matches!(
        &outcome.trace.steps[2],
        Step::Refine { split: false, .. }
    ));
    let Step::Individualise {
        cell,
        component,
        fully_symmetric,
        ..
    } = &outcome.trace.steps[3]
    else {
        panic!("step 3 follows");
    };
    assert_eq!(
        (*cell, outcome.state[*component].as_str()),
        (0, "FreeNode(N2)")
    );
    assert_eq!(*fully_symmetric, Some(true));
    // Example 39's orderings (A, C and D appear nowhere: their order is
    // the algorithm's choice).
    assert_eq!(
        outcome.orderings,
        vec![
            strings(&["N2", "N5", "N3", "N1", "N0", "N4"]),
            strings(&["B", "A", "C", "D"])
        ]
    );
    assert_eq!(outcome.trace.appeared, vec![6, 1]);
    // Example 41's permutation applied (Definition 40 on Example 39's
    // orderings: N2 ↦ N0, N5 ↦ N1, N3 ↦ N2, N1 ↦ N3, N0 ↦ N4, N4 ↦ N5 and
    // B ↦ A). The paper prints N0 ↦ N3, N1 ↦ N4 there, against its own
    // Example 39, and so the list N2, N4, N3, N5: docs/symmetry.md.
    assert_eq!(
        outcome.representative,
        strings(&[
            "FreeNode(N0)",
            "FreeNode(N1)",
            "Node(N2, A, N3)",
            "Node(N3, A, N4)",
            "Node(N4, A, N5)",
            "Node(N5, A, Null)"
        ])
    );
    // Proposition 50 holds: unique identities, fully symmetric splits.
    assert!(outcome.unique_identities);
    assert!(outcome.trace.splits_fully_symmetric());
}

#[test]
fn example_43_two_symmetric_rings_get_different_representatives() {
    let ring =
        |events: &[&str]| representative_after("ring.csp", "Ring", &["NodeID", "Data"], events);
    let same = ring(&[
        "link.N0.A.N1",
        "link.N1.A.N2",
        "link.N2.B.N3",
        "link.N3.B.N0",
    ]);
    let rotated = ring(&[
        "link.N0.A.N1",
        "link.N1.B.N2",
        "link.N2.B.N3",
        "link.N3.A.N0",
    ]);
    // Steps 1 and 2 do not split the ring.
    for outcome in [&same, &rotated] {
        assert_eq!(outcome.cells[0].len(), 1);
        assert!(matches!(
            &outcome.trace.steps[1],
            Step::Refine { split: false, .. }
        ));
        let Step::Individualise {
            fully_symmetric, ..
        } = &outcome.trace.steps[2]
        else {
            panic!("step 3 follows");
        };
        assert_eq!(*fully_symmetric, Some(false));
        assert!(!outcome.trace.splits_fully_symmetric());
    }
    // The paper's two vectors, with its node names renamed N1 ↦ N2 ↦ N3
    // ↦ N1: Example 43 lists values by component identity first (as its
    // Example 41 does), Definition 38 as Example 39 reads it lists each
    // component's values in turn. The same two classes either way.
    let rename = |vector: &[&str]| -> Vec<String> {
        vector
            .iter()
            .map(|s| {
                s.replace("N1", "#2")
                    .replace("N2", "#3")
                    .replace("N3", "#1")
                    .replace('#', "N")
            })
            .collect()
    };
    let first = rename(&[
        "Linked(N0, A, N3)",
        "Linked(N1, B, N2)",
        "Linked(N2, B, N0)",
        "Linked(N3, A, N1)",
    ]);
    let second = rename(&[
        "Linked(N0, A, N3)",
        "Linked(N1, B, N2)",
        "Linked(N2, A, N0)",
        "Linked(N3, B, N1)",
    ]);
    // Splitting off a node whose successor holds the same datum gives the
    // paper's first vector; a different datum, its second.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(same.representative.clone()), sorted(first));
    assert_eq!(sorted(rotated.representative.clone()), sorted(second));
    assert_ne!(same.representative, rotated.representative);
}

//! The paper's worked examples, each a fixture script in
//! `tests/fixtures/symmetry/`: the representative algorithm's partitions,
//! n-values, orderings and results exactly as Gibson-Robinson & Lowe
//! print them (Examples 37, 39, 41 and 43); on them, what the symmetry
//! layer says about a state — its variables' names, the n-value table's
//! columns, why each step split — and the comparison of two states;
//! and how variables of every kind are named.

use std::sync::Arc;

use symcsp::check::trace::state_after;
use symcsp::explain::compare::{Answer, Cause, DEFAULT_CANDIDATES, Evidence};
use symcsp::explain::drawing::{layout, plain};
use symcsp::explain::splits::{StepAccount, account};
use symcsp::explain::witness::{Tie, tell_apart};
use symcsp::lts::Budget;
use symcsp::lts::machine::Machine;
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::rep::{Step, Trace};
use symcsp::symmetry::{Origin, Permutation, Symmetry, SystemSymmetry};

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

/// The states `traces` lead to in a script's process, under its types,
/// handed to `body` with the machine and its symmetry.
fn with_states<T: Send>(
    path: &str,
    process: &str,
    types: &[&str],
    traces: &[&[&str]],
    body: impl FnOnce(&Script, &mut Processes, &mut Machine, &mut SystemSymmetry, Vec<Vec<u32>>) -> T
    + Send,
) -> T {
    let mut script = Script::load_file(path.as_ref()).expect("loads");
    let root = script.add_expr("<process>", process).expect("resolves");
    let items: Vec<_> = types
        .iter()
        .map(|t| script.add_expr("<type>", t).expect("resolves"))
        .collect();
    let traces: Vec<Vec<_>> = traces
        .iter()
        .map(|events| {
            events
                .iter()
                .map(|e| script.add_expr("<event>", e).expect("resolves"))
                .collect()
        })
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
        let mut machine = Machine::new(&mut procs, start).expect("the machine compiles");
        let mut system =
            SystemSymmetry::new(Arc::new(symmetry), &mut machine, &mut procs).expect("mappable");
        let mut rows = Vec::new();
        for events in &traces {
            let trace: Vec<_> = events
                .iter()
                .map(|&e| {
                    let value = procs.evaluator().eval_constant(e).expect("evaluates");
                    procs
                        .event_id(&value, script.function(e).span)
                        .expect("an event")
                })
                .collect();
            let (next, found) =
                state_after(&mut procs, machine, &trace, &Budget::default()).expect("searches");
            machine = next;
            rows.push(found.expect("the trace is possible").1);
        }
        body(script, &mut procs, &mut machine, &mut system, rows)
    })
}

fn representative_after(path: &str, process: &str, types: &[&str], events: &[&str]) -> Outcome {
    with_states(
        path,
        process,
        types,
        &[events],
        |script, procs, machine, system, rows| {
            let row = &rows[0];
            let mut out = vec![0; row.len()];
            let mut trace = Trace::default();
            system.representative(machine, procs, row, &mut out, Some(&mut trace));
            let unique_identities = system.unique_identities(machine, procs, row);
            let show =
                |row: &[u32], slot: usize| procs.show_state(machine.process_state(slot, row[slot]));
            let texts = |cells: &[Vec<usize>]| -> Vec<Vec<String>> {
                cells
                    .iter()
                    .map(|cell| cell.iter().map(|&c| show(row, c)).collect())
                    .collect()
            };
            let cells = trace.steps.iter().map(|step| texts(step.cells())).collect();
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
                state: (0..row.len()).map(|s| show(row, s)).collect(),
                representative: (0..out.len()).map(|s| show(&out, s)).collect(),
                trace,
                cells,
                orderings,
                unique_identities,
            }
        },
    )
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn examples_37_39_41_a_list_of_four_nodes_and_two_free_ones() {
    let outcome = representative_after(
        "models/paper/example37.csp",
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
    let ring = |events: &[&str]| {
        representative_after(
            "models/paper/example43.csp",
            "Ring",
            &["NodeID", "Data"],
            events,
        )
    };
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

/// Example 37's list: N3, N1, N0, N4, all holding B.
const LIST: &[&str] = &[
    "initNode.N4.B.Null",
    "initNode.N0.B.N4",
    "initNode.N1.B.N0",
    "initNode.N3.B.N1",
];

/// Every component's text in `row`.
fn texts(procs: &Processes, machine: &Machine, row: &[u32]) -> Vec<String> {
    (0..row.len())
        .map(|slot| procs.show_state(machine.process_state(slot, row[slot])))
        .collect()
}

#[test]
fn example_37_names_the_columns_and_says_why_each_cell_split() {
    let types = &["NodeID", "Data"];
    with_states(
        "models/paper/example37.csp",
        "Nodes",
        types,
        &[LIST],
        |_, procs, machine, system, rows| {
            let row = &rows[0];
            let texts = texts(procs, machine, row);
            let x = system.explain(machine, procs, row);
            let variables = system.variables(machine, procs, row);
            // Node(N0, B, N4) and FreeNode(N2): the parameters in order, `me`
            // the identity.
            assert_eq!(texts[0], "Node(N0, B, N4)");
            let names = |c: usize| -> Vec<&str> {
                variables[c]
                    .variables
                    .iter()
                    .map(|v| v.name.as_str())
                    .collect()
            };
            assert_eq!(names(0), ["me", "datum", "next"]);
            assert_eq!(variables[0].identity, Some(0));
            assert_eq!(names(2), ["me"]);
            assert_eq!(variables[2].identity, Some(0));
            let values: Vec<&str> = variables[0]
                .variables
                .iter()
                .map(|v| v.value_name.as_str())
                .collect();
            assert_eq!(values, ["N0", "B", "N4"]);
            let steps = account(&x.trace, &variables);
            let StepAccount::Refine {
                round: 1,
                columns,
                splits,
            } = &steps[1]
            else {
                panic!("step 2 follows step 1: {:?}", steps[1]);
            };
            // Example 37: N(N0, B, N4)'s first four entries count its me among
            // the first cell's me, the second's me and next, the third's me;
            // the next two its datum; the last four its next.
            assert_eq!(
                columns[1].header(),
                "me→c1.me, me→c2.me, me→c2.next, me→c3.me; datum→c2.datum, datum→c3.datum; \
             next→c1.me, next→c2.me, next→c2.next, next→c3.me"
            );
            assert_eq!(
                columns[0].header(),
                "me→c1.me, me→c2.me, me→c2.next, me→c3.me"
            );
            assert_eq!(
                columns[2].header(),
                "me→c1.me, me→c2.me, me→c2.next, me→c3.me; datum→c2.datum, datum→c3.datum"
            );
            let column = &columns[1].groups[0][2];
            assert_eq!(
                (column.variable, column.cell, column.cell_variable),
                (0, 1, 2)
            );
            // One cell split, into the list's first, third and second nodes.
            assert_eq!(splits.len(), 1);
            assert_eq!(splits[0].cell, 1);
            let sentences: Vec<String> =
                splits[0].parts.iter().map(|p| p.sentence(&texts)).collect();
            assert_eq!(
                sentences,
                [
                    "Node(N3, B, N1) split off: no component of cell 2 points at it with its next \
                 (the others': 1)",
                    "Node(N0, B, N4) split off: its next is the me of no component of cell 2 \
                 (Node(N1, B, N0)'s: 1)",
                    "Node(N1, B, N0) split off: its next is the me of 1 component of cell 2 \
                 (Node(N0, B, N4)'s: 0)",
                ]
            );
            // The second round splits nothing; step 3 splits the free nodes,
            // a fully symmetric cell; the rounds after it count from 1 again.
            assert!(
                matches!(&steps[2], StepAccount::Refine { round: 2, splits, .. } if splits.is_empty())
            );
            let StepAccount::Individualise(split) = &steps[3] else {
                panic!("step 3 follows: {:?}", steps[3]);
            };
            assert_eq!(texts[split.component], "FreeNode(N2)");
            assert_eq!(split.fully_symmetric, Some(true));
            assert!(
                split
                    .sentence(&texts, &variables)
                    .contains("the cell is fully symmetric (Definition 49)"),
                "{}",
                split.sentence(&texts, &variables)
            );
            assert!(matches!(&steps[4], StepAccount::Refine { round: 1, .. }));
        },
    );
}

/// Example 43's ring holding A, A, B, B, and the same ring rotated.
const RING: &[&str] = &[
    "link.N0.A.N1",
    "link.N1.A.N2",
    "link.N2.B.N3",
    "link.N3.B.N0",
];
const ROTATED: &[&str] = &[
    "link.N0.A.N1",
    "link.N1.B.N2",
    "link.N2.B.N3",
    "link.N3.A.N0",
];
/// A ring holding A, B, A, B: not symmetric to the others.
const ALTERNATING: &[&str] = &[
    "link.N0.A.N1",
    "link.N1.B.N2",
    "link.N2.A.N3",
    "link.N3.B.N0",
];

#[test]
fn example_43_the_rings_are_symmetric_but_step_3_splits_them_apart() {
    let types = &["NodeID", "Data"];
    with_states(
        "models/paper/example43.csp",
        "Ring",
        types,
        &[RING, ROTATED],
        |_, procs, machine, system, rows| {
            let (left, right) = (&rows[0], &rows[1]);
            let c = system.compare(machine, procs, left, right, DEFAULT_CANDIDATES);
            let Answer::NotUnique {
                mapping,
                cause,
                parting,
            } = &c.answer
            else {
                panic!("symmetric but not unique: {:?}", c.answer);
            };
            // The permutation found maps one ring onto the other: one of the
            // two that do (one step on with A and B exchanged, or one step
            // back).
            let mut image = vec![0; left.len()];
            system.apply(machine, procs, &mapping.permutation, left, &mut image);
            assert_eq!(&image, right);
            assert_eq!(mapping.alpha, system.alpha(procs, &mapping.permutation));
            let images = (
                mapping.permutation.images(0).to_vec(),
                mapping.permutation.images(1).to_vec(),
            );
            assert!(
                images == (vec![1, 2, 3, 0], vec![1, 0])
                    || images == (vec![3, 0, 1, 2], vec![0, 1]),
                "{images:?}"
            );
            // The traces part at the split of step 3 (step 1, a round of step
            // 2, then step 3), whose cell is not fully symmetric.
            assert_eq!(*parting, Some(2));
            assert!(matches!(c.left.trace.steps[2], Step::Individualise { .. }));
            assert_eq!(
                *cause,
                Cause::Split {
                    cell: 0,
                    left_component: 0,
                    right_component: 0,
                    fully_symmetric: Some(false),
                    alike_choices: vec![1, 3],
                }
            );
            assert_eq!(c.step_to_show(), Some(2));
            assert_ne!(c.left.representative, c.right.representative);
            let words = c
                .sentences(&texts(procs, machine, left), &texts(procs, machine, right))
                .join(" ");
            assert!(
                words.contains("the two runs of the algorithm part at step 3's first split"),
                "{words}"
            );
            // As the paper explains it: what π makes of the first state's
            // choice, and the relation on which that differs from the
            // second state's choice (a successor holding the same datum,
            // against one holding the other).
            assert!(
                words.contains("the permutation maps the first state's choice to"),
                "{words}"
            );
            assert!(
                words.contains("whose datum (B) is the same as its own"),
                "{words}"
            );
            assert!(words.contains("differs from its own (A)"), "{words}");
            // Definition 49's witness within the first state: the node split
            // off holds its successor's datum; its successor does not.
            let variables = system.variables(machine, procs, left);
            let witness = tell_apart(&variables, 0, 1).expect("a relation tells them apart");
            assert_eq!(
                witness.tie,
                Tie::Through {
                    mine: "next".into(),
                    theirs: "me".into(),
                    their: "datum".into(),
                    own: "datum".into(),
                }
            );
            assert_eq!((witness.first, witness.second), (1, 0));
            assert!(
                tell_apart(&variables, 0, 0).is_none(),
                "a component is like itself"
            );
            assert!(
                words.contains("the cell is not fully symmetric (Definition 49)"),
                "{words}"
            );
        },
    );
}

/// Step 3 by hand on Example 43's ring (A, A, B, B): splitting off a
/// node whose successor holds another datum, instead of the first node
/// (whose successor holds the same), gives the paper's second
/// representative; the two are of one symmetry class, related by a
/// permutation.
#[test]
fn example_43_step_3_by_hand_gives_the_other_representative() {
    let types = &["NodeID", "Data"];
    with_states(
        "models/paper/example43.csp",
        "Ring",
        types,
        &[RING],
        |_, procs, machine, system, rows| {
            let row = &rows[0];
            let own = system.explain(machine, procs, row);
            assert_eq!(
                texts(procs, machine, &own.representative),
                [
                    "Linked(N0, A, N1)",
                    "Linked(N1, A, N2)",
                    "Linked(N2, B, N3)",
                    "Linked(N3, B, N0)"
                ]
            );
            // The choice of the first member is the algorithm's own.
            let first = system.explain_choosing(machine, procs, row, &[0]);
            assert_eq!(first.representative, own.representative);
            // Linked(N1, A, N2): its successor holds B.
            let other = system.explain_choosing(machine, procs, row, &[1]);
            let Step::Individualise { component, .. } = &other.trace.steps[2] else {
                panic!("step 3 at stage 3: {:?}", other.trace.steps[2]);
            };
            assert_eq!(*component, 1);
            assert_eq!(
                texts(procs, machine, &other.representative),
                [
                    "Linked(N0, A, N1)",
                    "Linked(N1, B, N2)",
                    "Linked(N2, B, N3)",
                    "Linked(N3, A, N0)"
                ]
            );
            // One symmetry class: a permutation maps one representative
            // onto the other.
            let c = system.compare(
                machine,
                procs,
                &own.representative,
                &other.representative,
                DEFAULT_CANDIDATES,
            );
            let (Answer::NotUnique { mapping, .. } | Answer::Same { mapping }) = &c.answer else {
                panic!("symmetric: {:?}", c.answer);
            };
            let mut image = vec![0; row.len()];
            system.apply(
                machine,
                procs,
                &mapping.permutation,
                &own.representative,
                &mut image,
            );
            assert_eq!(image, other.representative);
            // After the choice, the algorithm chooses for itself again.
            assert_eq!(
                system.explain(machine, procs, row).representative,
                own.representative
            );
        },
    );
}

#[test]
fn comparisons_answer_same_not_symmetric_and_undecided() {
    let types = &["NodeID", "Data"];
    // A ring and itself renamed by the permutation its representative
    // uses: the same representative.
    with_states(
        "models/paper/example43.csp",
        "Ring",
        types,
        &[RING, ALTERNATING],
        |_, procs, machine, system, rows| {
            let mut renamed = vec![0; rows[0].len()];
            let perm = Permutation::from_images(vec![vec![2, 3, 0, 1], vec![1, 0]]);
            system.apply(machine, procs, &perm, &rows[0], &mut renamed);
            let same = system.compare(machine, procs, &rows[0], &renamed, DEFAULT_CANDIDATES);
            let Answer::Same { mapping } = &same.answer else {
                panic!("the same representative: {:?}", same.answer);
            };
            let mut image = vec![0; renamed.len()];
            system.apply(machine, procs, &mapping.permutation, &rows[0], &mut image);
            assert_eq!(image, renamed);
            // A, A, B, B against A, B, A, B: steps 1 and 2 cannot tell them
            // apart (every node's n-value is the same), the search can.
            let apart = system.compare(machine, procs, &rows[0], &rows[1], DEFAULT_CANDIDATES);
            let Answer::NotSymmetric(Evidence::NoPermutation {
                tried,
                after_steps: true,
            }) = apart.answer
            else {
                panic!("no permutation: {:?}", apart.answer);
            };
            assert!(tried > 0 && tried < 100, "{tried}");
            assert_eq!(apart.spent, tried);
            // With too small a budget, no answer but that.
            let undecided = system.compare(machine, procs, &rows[0], &rows[1], 2);
            assert_eq!(undecided.answer, Answer::Undecided { budget: 2 });
            assert_eq!(undecided.spent, 2);
        },
    );
    // Example 37's list against a tree of the same nodes: step 1 agrees
    // (three nodes point at nodes, one at Null), step 2 does not (two
    // nodes point at N0).
    let tree = &[
        "initNode.N4.B.Null",
        "initNode.N0.B.N4",
        "initNode.N1.B.N0",
        "initNode.N3.B.N0",
    ];
    with_states(
        "models/paper/example37.csp",
        "Nodes",
        types,
        &[LIST, tree],
        |_, procs, machine, system, rows| {
            let c = system.compare(machine, procs, &rows[0], &rows[1], DEFAULT_CANDIDATES);
            let Answer::NotSymmetric(Evidence::NValues {
                step,
                round,
                cell,
                column,
                left_count,
                right_count,
                ..
            }) = &c.answer
            else {
                panic!("n-values differ: {:?}", c.answer);
            };
            assert_eq!((*step, *round, *cell), (1, 1, 1));
            assert_eq!(column.label(), "next→c2.next");
            assert_eq!((*left_count, *right_count), (1, 2));
            assert_eq!(c.step_to_show(), Some(1));
        },
    );
    // The list against a shorter one: step 1 tells them apart (two free
    // nodes against three).
    let shorter = &LIST[..3];
    with_states(
        "models/paper/example37.csp",
        "Nodes",
        types,
        &[LIST, shorter],
        |_, procs, machine, system, rows| {
            let c = system.compare(machine, procs, &rows[0], &rows[1], DEFAULT_CANDIDATES);
            let Answer::NotSymmetric(Evidence::Shapes { left, right }) = &c.answer else {
                panic!("step 1 differs: {:?}", c.answer);
            };
            let (lt, rt) = (
                texts(procs, machine, &rows[0]),
                texts(procs, machine, &rows[1]),
            );
            let shown =
                |cs: &[usize], t: &[String]| cs.iter().map(|&c| t[c].clone()).collect::<Vec<_>>();
            assert_eq!(shown(left, &lt), ["FreeNode(N2)", "FreeNode(N5)"]);
            assert_eq!(
                shown(right, &rt),
                ["FreeNode(N2)", "FreeNode(N3)", "FreeNode(N5)"]
            );
        },
    );
}

#[test]
fn variables_are_named_by_parameter_position_and_operand() {
    let types = &["T", "D"];
    with_states(
        "tests/fixtures/symmetry/variables.csp",
        "System",
        types,
        &[&["a.T0"]],
        |_, procs, machine, system, rows| {
            let row = &rows[0];
            let texts = texts(procs, machine, row);
            let variables = system.variables(machine, procs, row);
            let named = |text: &str| {
                let c = texts.iter().position(|t| t == text).expect(text);
                let names: Vec<String> = variables[c]
                    .variables
                    .iter()
                    .map(|v| v.name.clone())
                    .collect();
                (names, variables[c].identity)
            };
            let n = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            assert_eq!(named("Pair((T0, A))"), (n(&["p.1", "p.2"]), None));
            assert_eq!(named("Line(<T1, T1>)"), (n(&["s.1", "s.2"]), Some(0)));
            assert_eq!(named("Dotted(T1.B)"), (n(&["x.1", "x.2"]), None));
            assert_eq!(
                named("(c!T0 -> SKIP) ; Y(T0)"),
                (n(&["1.me", "Y.me"]), Some(0))
            );
            assert_eq!(named("Steps(T1)"), (n(&["me"]), Some(0)));
            // The names are those of the variables the algorithm reads.
            let inputs = system.read_inputs(machine, procs, &[row]);
            for (c, v) in variables.iter().enumerate() {
                let read = &inputs[0].atoms
                    [inputs[0].bounds[c] as usize..inputs[0].bounds[c + 1] as usize];
                assert_eq!(v.values().collect::<Vec<_>>(), read, "{}", texts[c]);
            }
        },
    );
}

#[test]
fn the_graph_of_a_linked_list_reads_as_a_chain_from_its_top() {
    let types = &["NodeID", "Data", "ThreadID"];
    let pushes: &[&str] = &["push.T0.A", "push.T1.B", "push.T0.B"];
    with_states(
        "models/liststack.csp",
        "System",
        types,
        &[pushes],
        |_, procs, machine, system, rows| {
            let row = &rows[0];
            let texts = texts(procs, machine, row);
            let x = system.explain(machine, procs, row);
            let graph = system.graph(machine, procs, row, x.trace.final_cells());
            // Top points at the last node pushed, each node at the one below;
            // the lock at the thread holding it.
            let references: Vec<String> = graph
                .references()
                .map(|e| format!("{} ─{}→ {}", texts[e.from], graph.label(e), texts[e.to]))
                .collect();
            assert_eq!(
                references,
                [
                    "Node(N1, B, N0) ─next=me→ Node(N0, A, Null)",
                    "Node(N2, B, N1) ─next=me→ Node(N1, B, N0)",
                    "Top(N2) ─top=me→ Node(N2, B, N1)",
                    "unlock!T0 -> Lock ─t=me→ unlock!T0 -> Thread(T0)",
                ]
            );
            // The datum B, held by two nodes, is one shared value, not an edge
            // drawn; every component sits in its cell of the final partition.
            assert_eq!(graph.shared.len(), 1);
            assert_eq!(graph.shared[0].value_name, "B");
            assert_eq!(graph.shared[0].holders.len(), 2);
            let final_cells = x.trace.final_cells();
            for (c, cell) in graph.cells.iter().enumerate() {
                assert!(final_cells[cell.expect("every component")].contains(&c));
            }
            insta::assert_snapshot!(plain(&layout(&graph, &texts, 100)));
        },
    );
}

#[test]
fn the_graph_of_a_ring_is_a_chain_back_to_its_start() {
    let types = &["NodeID", "Data"];
    with_states(
        "models/ring.csp",
        "System",
        types,
        &[&["token.N0.N1"]],
        |_, procs, machine, system, rows| {
            let row = &rows[0];
            let texts = texts(procs, machine, row);
            let x = system.explain(machine, procs, row);
            let graph = system.graph(machine, procs, row, x.trace.final_cells());
            // Four references, each node's next at the following node's me,
            // round the ring: following them from any node comes back to it
            // after four steps.
            let next: Vec<(usize, usize)> = graph.references().map(|e| (e.from, e.to)).collect();
            assert_eq!(next.len(), 4);
            assert!(graph.references().all(|e| graph.label(e) == "next=me"));
            let mut at = next[0].0;
            for _ in 0..4 {
                at = next
                    .iter()
                    .find(|&&(from, _)| from == at)
                    .expect("a next")
                    .1;
            }
            assert_eq!(at, next[0].0);
            let drawing = plain(&layout(&graph, &texts, 100));
            assert!(drawing.contains("↺#"), "{drawing}");
            insta::assert_snapshot!(drawing);
        },
    );
}

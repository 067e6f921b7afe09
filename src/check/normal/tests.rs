//! The normal form's own tests: permuted nodes, the memo of images, and
//! moves read off a representative against evaluated ones.

use super::*;

/// The normal form of `expr` with nodes permutable over T, and the
/// event ids of `events`.
fn with_normal_form<R>(
    expr: &str,
    body: impl FnOnce(&mut Processes, &mut Normaliser, NodeId, &Symmetry) -> R,
) -> R {
    use crate::script::Script;
    let mut script = Script::load_str(
        "t.csp",
        "datatype T = A | B | C\nchannel left, right : T\n\
         COPY = left?x -> right!x -> COPY\nMAYBE = left?x -> (right!x -> MAYBE |~| STOP)\n\
         STACK(s) = #s < 3 & left?x -> STACK(<x>^s)\n\
           [] s != <> & right!head(s) -> (STACK(tail(s)) |~| STACK(s))\n",
    )
    .expect("loads");
    let func = script.add_expr("<spec>", expr).expect("resolves");
    let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
    let symmetry = std::sync::Arc::new(Symmetry::automatic(&script, &[func]));
    let (mut normaliser, node) = Normaliser::symmetric(&mut procs, root, None, symmetry.clone())
        .expect("evaluates")
        .expect("mappable");
    body(&mut procs, &mut normaliser, node, &symmetry)
}

fn event(procs: &Processes, text: &str) -> EventId {
    (0..procs.events().id_count() as EventId)
        .find(|&e| procs.show_event(e) == text)
        .expect("an event")
}

#[test]
fn a_permuted_node_is_the_node_after_the_permuted_trace() {
    with_normal_form("COPY", |procs, normaliser, root, symmetry| {
        let swap = Permutation::from_images(vec![vec![1, 0, 2]]);
        assert!(symmetry.types().len() == 1);
        let after_a = normaliser
            .after(procs, root, event(procs, "left.A"))
            .unwrap()
            .unwrap();
        let after_b = normaliser
            .after(procs, root, event(procs, "left.B"))
            .unwrap()
            .unwrap();
        assert_ne!(after_a, after_b);
        assert_eq!(normaliser.permute(procs, after_a, &swap).unwrap(), after_b);
        assert_eq!(normaliser.permute(procs, root, &swap).unwrap(), root);
    });
}

#[test]
fn a_node_of_several_states_permutes_as_a_whole() {
    with_normal_form("MAYBE", |procs, normaliser, root, _| {
        let cycle = Permutation::from_images(vec![vec![1, 2, 0]]);
        let after = |n: &mut Normaliser, procs: &mut Processes, e: &str| {
            n.after(procs, root, event(procs, e)).unwrap().unwrap()
        };
        let (a, b) = (
            after(normaliser, procs, "left.A"),
            after(normaliser, procs, "left.B"),
        );
        // The choice, right!A -> MAYBE, and STOP.
        assert_eq!(normaliser.nodes[a as usize].members.len(), 3);
        assert_eq!(normaliser.permute(procs, a, &cycle).unwrap(), b);
        assert_eq!(normaliser.permute(procs, root, &cycle).unwrap(), root);
    });
}

#[test]
fn a_memo_starting_afresh_gives_the_same_images() {
    with_normal_form("MAYBE", |procs, normaliser, root, _| {
        let perms = [
            Permutation::from_images(vec![vec![1, 2, 0]]),
            Permutation::from_images(vec![vec![1, 0, 2]]),
            Permutation::from_images(vec![vec![2, 1, 0]]),
        ];
        let nodes: Vec<NodeId> = ["left.A", "left.B", "left.C"]
            .iter()
            .map(|e| {
                let e = event(procs, e);
                normaliser.after(procs, root, e).unwrap().unwrap()
            })
            .chain([root])
            .collect();
        let images = |n: &mut Normaliser, procs: &mut Processes| {
            let mut out = Vec::new();
            for _ in 0..2 {
                for perm in &perms {
                    for &node in &nodes {
                        out.push(n.permute(procs, node, perm).unwrap());
                    }
                }
            }
            out
        };
        let remembered = images(normaliser, procs);
        normaliser.permuted.clear();
        normaliser.permuted_entries = 0;
        normaliser.memo_limit = 2;
        let forgetting = images(normaliser, procs);
        assert_eq!(remembered, forgetting);
        let held: usize = normaliser.permuted.values().map(FxHashMap::len).sum();
        assert!(held <= 2, "{held} images held");
    });
}

/// Every node `normaliser` reaches from `root`.
fn every_node(procs: &mut Processes, normaliser: &mut Normaliser, root: NodeId) -> Vec<NodeId> {
    let mut nodes = vec![root];
    let mut at = 0;
    while at < nodes.len() {
        let initials = normaliser.initials(procs, nodes[at]).unwrap().to_vec();
        at += 1;
        for (_, target) in initials {
            let node = normaliser.target_node(procs, target).unwrap();
            if !nodes.contains(&node) {
                nodes.push(node);
            }
        }
    }
    nodes
}

/// For every state of `normaliser`: the moves read off its
/// representative, where they are, equal its evaluated moves; how many
/// were read off.
fn moves_read_off_agree(procs: &mut Processes, normaliser: &mut Normaliser) -> usize {
    let mut by_orbit = 0;
    for state in 0..normaliser.spec_states() as u32 {
        let evaluated = normaliser.evaluate_moves(procs, state).unwrap();
        let by_representative = normaliser.moves_by_orbit(procs, state).unwrap();
        if let Some(StateMoves::Image {
            representative,
            perm,
        }) = by_representative
        {
            let read_off = normaliser.image_moves(procs, representative, perm).unwrap();
            assert_eq!(read_off, evaluated, "state {state}");
            by_orbit += 1;
        }
    }
    by_orbit
}

#[test]
fn a_state_s_moves_read_off_its_representative_are_its_evaluated_moves() {
    // One component: the states are kept as keys.
    with_normal_form("STACK(<>)", |procs, normaliser, root, _| {
        assert!(normaliser.keyed.is_some());
        // Stacks of up to three values of three: 1 + 3 + 9 + 27,
        // and the nondeterministic pops in between.
        let nodes = every_node(procs, normaliser, root);
        assert!(nodes.len() > 40, "{} nodes", nodes.len());
        let by_orbit = moves_read_off_agree(procs, normaliser);
        assert!(by_orbit > 20, "{by_orbit} states read off a representative");
    });
    // Two components: the states are rows, their representatives found
    // by the representative algorithm.
    with_normal_form("COPY ||| MAYBE", |procs, normaliser, root, _| {
        assert!(normaliser.keyed.is_none());
        let nodes = every_node(procs, normaliser, root);
        assert!(nodes.len() > 5, "{} nodes", nodes.len());
        let by_orbit = moves_read_off_agree(procs, normaliser);
        assert!(by_orbit > 5, "{by_orbit} states read off a representative");
    });
}

#[test]
fn a_state_kept_as_a_key_is_made_the_term_its_key_names() {
    with_normal_form("STACK(<>)", |procs, normaliser, root, symmetry| {
        let after = |n: &mut Normaliser, procs: &mut Processes, node: NodeId, e: &str| {
            n.after(procs, node, event(procs, e)).unwrap().unwrap()
        };
        let a = after(normaliser, procs, root, "left.A");
        let ab = after(normaliser, procs, a, "left.B");
        normaliser.initials(procs, ab).unwrap();
        let states = normaliser.spec_states() as u32;
        let mut made = 0;
        for perm in Permutation::all(symmetry) {
            for state in 0..states {
                let image = normaliser.images(procs, &[state], &perm).unwrap()[0];
                let local = normaliser.keyed_local(procs, image).unwrap();
                assert_eq!(normaliser.keyed_of_local(procs, local).unwrap(), image);
                made += 1;
            }
        }
        assert!(made > 30, "{made} images made");
    });
}

#[test]
fn subsets_of_sorted_lists() {
    assert!(is_subset(&[], &[1, 2]));
    assert!(is_subset(&[2, 5], &[1, 2, 3, 5]));
    assert!(!is_subset(&[2, 4], &[1, 2, 3, 5]));
    assert!(!is_subset(&[6], &[1, 2, 3, 5]));
}

#[test]
fn a_state_that_can_terminate_offers_only_tick() {
    let mut out = Vec::new();
    acceptance([5, 1, 3].into_iter(), &mut out);
    assert_eq!(out, [TICK]);
    acceptance([5, 3, 5].into_iter(), &mut out);
    assert_eq!(out, [3, 5]);
}

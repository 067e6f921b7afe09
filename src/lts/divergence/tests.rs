use super::*;

/// Divergence on an explicit τ-graph.
fn diverges(edges: &[(u32, u32)], start: u32, cycles: &mut TauCycles) -> bool {
    cycles
        .diverges(start, &mut |s, out| {
            out.extend(edges.iter().filter(|e| e.0 == s).map(|e| e.1));
            Ok(())
        })
        .unwrap()
}

#[test]
fn cycles_self_loops_and_what_reaches_them() {
    // 0 -> 1 -> 2 -> 1 (cycle); 3 -> 3 (self loop); 4 -> 5 (no cycle);
    // 6 -> 4 and 6 -> 3.
    let edges = [(0, 1), (1, 2), (2, 1), (3, 3), (4, 5), (6, 4), (6, 3)];
    let mut cycles = TauCycles::default();
    assert!(diverges(&edges, 0, &mut cycles));
    assert!(diverges(&edges, 2, &mut cycles));
    assert!(!diverges(&edges, 4, &mut cycles));
    assert!(!diverges(&edges, 5, &mut cycles));
    assert!(diverges(&edges, 6, &mut cycles));
    assert!(diverges(&edges, 3, &mut cycles));
    // Asked in another order, with nothing remembered.
    let mut fresh = TauCycles::default();
    assert!(diverges(&edges, 6, &mut fresh));
    assert!(!diverges(&edges, 4, &mut fresh));
}

#[test]
fn a_chain_reaching_a_cycle_late_diverges_and_a_long_chain_does_not_recurse() {
    let n = 200_000u32;
    for back in [false, true] {
        let mut cycles = TauCycles::default();
        let divergent = cycles
            .diverges(0, &mut |s, out| {
                if s < n {
                    out.push(s + 1);
                } else if back {
                    out.push(n - 5);
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(divergent, back);
        // Every state on the way has its answer.
        assert_eq!(cycles.answer(n / 2), Some(back));
    }
}

/// Records the states of `edges` (a τ-graph on `0..n`) one at a
/// time, asking about each as a check does, and says what the log
/// answered after each: `None` while nothing diverges yet.
fn log_answers(n: u32, edges: &[(u32, u32)]) -> Vec<Option<u32>> {
    let mut log = TauLog::default();
    (0..n)
        .map(|s| {
            log.ask(s);
            log.record(s, edges.iter().filter(|e| e.0 == s).map(|e| e.1));
            log.advance()
        })
        .collect()
}

#[test]
fn the_log_answers_once_the_cycle_is_recorded_and_in_order() {
    // 0 -> 1 -> 3 -> 1: state 0 diverges, known once 3 is recorded;
    // 2 -> 2 diverges at once but is asked after 0.
    let edges = [(0, 1), (1, 3), (3, 1), (2, 2)];
    assert_eq!(log_answers(5, &edges), [None, None, None, Some(0), Some(0)]);
    // Without the loop back, nothing before 2 diverges: 2 is the
    // answer as soon as 0 and 1 are cleared (their τ-closure
    // recorded).
    let edges = [(0, 1), (1, 3), (2, 2)];
    assert_eq!(log_answers(5, &edges), [None, None, None, Some(2), Some(2)]);
}

#[test]
fn the_log_lets_go_of_answered_states() {
    // A long τ-free run, then a chain of τs: only the chain's
    // unanswered states are kept.
    let mut log = TauLog::default();
    for s in 0..10_000 {
        log.ask(s);
        let taus = (9_000..9_999).contains(&s).then_some(s + 1);
        log.record(s, taus);
        assert_eq!(log.advance(), None);
    }
    assert_eq!(log.unanswered().count(), 0);
    assert_eq!(
        (log.transitions.edges.len(), log.transitions.starts.len()),
        (0, 0)
    );
}

#[test]
fn a_cycle_at_hand_is_answered_before_the_tau_component_is_recorded() {
    // The root has a τ to itself and starts a long chain of τs; the
    // chain's states are recorded after it. The answer comes with
    // the root alone.
    let mut log = TauLog::default();
    log.ask(0);
    log.record(0, [1, 0]);
    assert_eq!(log.advance(), Some(0));
    // A cycle behind a clear τ-component: 0 -> 1, 0 -> 2 (clear,
    // stable), 1 -> 3 -> 1. Known once 3 is recorded, whatever
    // comes after.
    let edges = [(0, 2), (0, 1), (1, 3), (3, 1)];
    assert_eq!(
        log_answers(6, &edges),
        [None, None, None, Some(0), Some(0), Some(0)]
    );
    // A deep cycle: the answer waits for the chain down to it, and
    // no longer.
    let mut edges: Vec<(u32, u32)> = (0..50).map(|s| (s, s + 1)).collect();
    edges.push((50, 45));
    let answers = log_answers(60, &edges);
    assert_eq!(answers[49], None);
    assert_eq!(answers[50], Some(0));
}

/// Whether `start` reaches a τ-cycle, by brute force: some state it
/// reaches reaches itself again.
fn reaches_a_cycle(edges: &[(u32, u32)], start: u32) -> bool {
    let reach = |from: u32| {
        let mut seen = vec![from];
        let mut at = 0;
        while at < seen.len() {
            let s = seen[at];
            at += 1;
            for &(_, b) in edges.iter().filter(|e| e.0 == s) {
                if !seen.contains(&b) {
                    seen.push(b);
                }
            }
        }
        seen
    };
    reach(start).into_iter().any(|u| {
        edges
            .iter()
            .filter(|e| e.0 == u)
            .any(|&(_, b)| reach(b).contains(&u))
    })
}

proptest::proptest! {
    /// Each state's answer is brute force's, and the log's is the
    /// first state, in order, that diverges.
    #[test]
    fn the_log_agrees_with_a_search_over_the_whole_graph(
        n in 1u32..40,
        raw in proptest::collection::vec((0u32..40, 0u32..40), 0..60),
    ) {
        let edges: Vec<(u32, u32)> =
            raw.into_iter().map(|(a, b)| (a % n, b % n)).collect();
        let mut cycles = TauCycles::default();
        for s in 0..n {
            proptest::prop_assert_eq!(
                diverges(&edges, s, &mut cycles),
                reaches_a_cycle(&edges, s)
            );
        }
        let first = (0..n).find(|&s| reaches_a_cycle(&edges, s));
        let answers = log_answers(n, &edges);
        proptest::prop_assert_eq!(answers[n as usize - 1], first);
        // Once given, the answer stays.
        for pair in answers.windows(2) {
            if pair[0].is_some() {
                proptest::prop_assert_eq!(pair[0], pair[1]);
            }
        }
    }
}

/// The fewest steps of a walk from `start` after which a state
/// repeats, by trying every walk of distinct states.
fn shortest_lasso_by_brute_force(edges: &[(u32, u32)], start: u32) -> Option<usize> {
    fn walk(edges: &[(u32, u32)], path: &mut Vec<u32>, best: &mut Option<usize>) {
        let at = *path.last().expect("a path");
        for &(_, next) in edges.iter().filter(|e| e.0 == at) {
            if path.contains(&next) {
                *best = Some(best.map_or(path.len(), |b| b.min(path.len())));
            } else {
                path.push(next);
                walk(edges, path, best);
                path.pop();
            }
        }
    }
    let mut best = None;
    walk(edges, &mut vec![start], &mut best);
    best
}

proptest::proptest! {
    /// The lasso found is a walk of the graph that ends where it
    /// went before, and no walk does so sooner.
    #[test]
    fn the_lasso_found_is_a_shortest_one(
        n in 1u32..8,
        raw in proptest::collection::vec((0u32..8, 0u32..8), 0..16),
    ) {
        let mut edges: Vec<(u32, u32)> =
            raw.into_iter().map(|(a, b)| (a % n, b % n)).collect();
        edges.sort_unstable();
        edges.dedup();
        let lasso = shortest_lasso(0, usize::MAX, &mut |s| {
            Ok(edges.iter().filter(|e| e.0 == s).map(|e| e.1).collect())
        })
        .unwrap();
        let expected = shortest_lasso_by_brute_force(&edges, 0);
        proptest::prop_assert_eq!(lasso.as_ref().map(|ids| ids.len() - 1), expected);
        if let Some(ids) = lasso {
            proptest::prop_assert_eq!(ids[0], 0);
            for step in ids.windows(2) {
                proptest::prop_assert!(edges.contains(&(step[0], step[1])));
            }
            let last = *ids.last().unwrap();
            proptest::prop_assert!(ids[..ids.len() - 1].contains(&last));
        }
    }
}

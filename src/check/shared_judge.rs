//! What the threads computing successors can judge of a product state
//! ([`SharedJudge`]): a copy of what the specification's normal form had
//! learnt when the copy was made, read-only, so that judging the states
//! that are plainly fine (every event allowed, no refusal, no divergence
//! of the specification to look at) runs beside the search instead of on
//! its thread. Whatever the copy does not know — a node whose initials,
//! a target whose node, acceptances or divergence are not worked out —
//! and every breach are left to the search's thread, which judges those
//! states in full, in order, as it always does: what the copy knew never
//! changes the verdict, the counts or the counterexample.
//!
//! What a normal form learns stays true, so a copy made a block ago is
//! right, only less complete. A copy is made again when the normal form
//! has learnt something since, but not more often than its size warrants
//! ([`Product::shared_judge`](super::product::Product)).

use crate::lts::search::SharedJudge;
use crate::process::{EventId, TAU, TICK};

use super::normal::{NodeId, Normaliser, acceptance, is_subset};

/// A node's minimal acceptances.
type Acceptances = Box<[Box<[EventId]>]>;

/// Marks an event whose node is not known in the copy.
const UNKNOWN: NodeId = NodeId::MAX;

/// What kind of specification is judged, with what the copy knows of it.
enum Known {
    /// `:[deadlock free]`: node 0 before ✓, node 1 after.
    DeadlockFree,
    /// Anything goes (`:[divergence free]`).
    Anything,
    /// A normal form: a refinement's specification, or (with
    /// `deterministic`) the implementation's own.
    Normal {
        /// Per node: its visible events and the node each leads to
        /// ([`UNKNOWN`] if not known), as a range of `after`; `None` when
        /// its initials were not known.
        nodes: Vec<Option<(u32, u32)>>,
        after: Vec<(EventId, NodeId)>,
        /// Per node: its minimal acceptances, when asked for and known.
        acceptances: Vec<Option<Acceptances>>,
        /// Per node: whether it diverges, when asked for and known.
        divergent: Vec<Option<bool>>,
        deterministic: bool,
    },
}

/// A product's judging, for the threads computing successors.
pub struct JudgeTable {
    known: Known,
    refusals: bool,
    divergences: bool,
}

impl JudgeTable {
    pub fn deadlock_free(refusals: bool, divergences: bool) -> JudgeTable {
        JudgeTable {
            known: Known::DeadlockFree,
            refusals,
            divergences,
        }
    }

    pub fn anything(refusals: bool, divergences: bool) -> JudgeTable {
        JudgeTable {
            known: Known::Anything,
            refusals,
            divergences,
        }
    }

    /// What `normal` knows now; `deterministic` when it is the
    /// implementation's own normal form (a determinism check).
    pub fn of_normal_form(
        normal: &Normaliser,
        deterministic: bool,
        refusals: bool,
        divergences: bool,
    ) -> JudgeTable {
        let count = normal.nodes();
        let mut nodes = Vec::with_capacity(count);
        let mut after = Vec::new();
        for node in 0..count as NodeId {
            nodes.push(normal.known_after(node).map(|events| {
                let start = after.len() as u32;
                after.extend(events.map(|(e, n)| (e, n.unwrap_or(UNKNOWN))));
                (start, after.len() as u32 - start)
            }));
        }
        let acceptances = (0..count as NodeId)
            .map(|node| {
                let wanted = refusals && !deterministic;
                wanted
                    .then(|| normal.known_acceptances(node))
                    .flatten()
                    .map(Box::from)
            })
            .collect();
        let divergent = (0..count as NodeId)
            .map(|node| divergences.then(|| normal.known_divergent(node)).flatten())
            .collect();
        JudgeTable {
            known: Known::Normal {
                nodes,
                after,
                acceptances,
                divergent,
                deterministic,
            },
            refusals,
            divergences,
        }
    }

    /// How many numbers the copy holds: about what making it cost.
    pub fn size(&self) -> usize {
        match &self.known {
            Known::Normal { nodes, after, .. } => nodes.len() + after.len(),
            Known::DeadlockFree | Known::Anything => 0,
        }
    }

    /// The node `event` leads to from `node`: `None` when the copy does
    /// not know, or the specification does not allow it (both left to the
    /// search's thread).
    fn after(&self, node: NodeId, event: EventId) -> Option<NodeId> {
        match &self.known {
            Known::DeadlockFree if event == TICK => Some(1),
            Known::DeadlockFree | Known::Anything => Some(node),
            Known::Normal { nodes, after, .. } => {
                let (start, len) = (*nodes.get(node as usize)?)?;
                let events = &after[start as usize..(start + len) as usize];
                let at = events.binary_search_by_key(&event, |&(e, _)| e).ok()?;
                Some(events[at].1).filter(|&n| n != UNKNOWN)
            }
        }
    }

    /// Whether the specification at `node` diverges is known to be
    /// false (a divergent node allows anything: the search's thread
    /// prunes there).
    fn not_divergent(&self, node: NodeId) -> bool {
        match &self.known {
            Known::Normal {
                divergent,
                deterministic: false,
                ..
            } => divergent.get(node as usize) == Some(&Some(false)),
            _ => true,
        }
    }

    /// Whether a stable state accepting `accepted` is allowed at `node`,
    /// as far as the copy knows.
    fn accepts(&self, node: NodeId, accepted: &[EventId]) -> bool {
        match &self.known {
            Known::DeadlockFree => !(node == 0 && accepted.is_empty()),
            Known::Anything => true,
            Known::Normal {
                acceptances,
                deterministic: false,
                ..
            } => acceptances
                .get(node as usize)
                .and_then(Option::as_ref)
                .is_some_and(|all| all.iter().any(|a| is_subset(a, accepted))),
            // Determinism: every event the trace allows must be offered.
            Known::Normal {
                nodes,
                after,
                deterministic: true,
                ..
            } => nodes
                .get(node as usize)
                .copied()
                .flatten()
                .is_some_and(|(start, len)| {
                    after[start as usize..(start + len) as usize]
                        .iter()
                        .all(|(e, _)| accepted.contains(e))
                }),
        }
    }
}

impl SharedJudge for JudgeTable {
    /// As `Product::judge` finds a state fine, from the copy alone.
    fn fine(
        &self,
        columns: &[u32],
        events: &[EventId],
        successors: &mut [u32],
        (width, row_width): (usize, usize),
        accepted: &mut Vec<EventId>,
    ) -> bool {
        let node = columns[0];
        if self.divergences && !self.not_divergent(node) {
            return false;
        }
        let stable = !events.contains(&TAU);
        if self.refusals && stable {
            acceptance(events.iter().copied(), accepted);
            if !self.accepts(node, accepted) {
                return false;
            }
        }
        for (k, &event) in events.iter().enumerate() {
            if event == TAU {
                continue;
            }
            match self.after(node, event) {
                Some(after) => successors[k * row_width + width] = after,
                None => return false,
            }
        }
        #[cfg(test)]
        JUDGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        true
    }
}

/// Switched on by the tests that compare checks judged with and without
/// the threads' copy: then products offer none.
#[cfg(test)]
pub(super) static SWITCHED_OFF: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The states the copies have found fine, for the tests to see that
/// they were used.
#[cfg(test)]
static JUDGED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::check::{self, CheckResult};
    use crate::lts::search::Budget;
    use crate::process::Processes;
    use crate::script::Script;

    /// `body` with the normal form of `spec` (in a script with `channel
    /// a, b, c`), its root and the event ids of `a`, `b` and `c`.
    fn with_normal_form<R>(
        spec: &str,
        body: impl FnOnce(&mut Processes, &mut Normaliser, NodeId, [EventId; 3]) -> R,
    ) -> R {
        let mut script = Script::load_str("spec.csp", "channel a, b, c\n").expect("loads");
        let func = script.add_expr("<spec>", spec).expect("resolves");
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let (mut normal, node) = Normaliser::new(&mut procs, root, None).expect("normalises");
        let events = ["a", "b", "c"].map(|name| {
            (0..procs.events().id_count() as EventId)
                .find(|&e| procs.show_event(e) == name)
                .expect("an event")
        });
        body(&mut procs, &mut normal, node, events)
    }

    fn fine(table: &JudgeTable, node: NodeId, events: &[EventId]) -> Option<Vec<u32>> {
        // Rows of one component and the node.
        let mut successors = vec![0; events.len() * 2];
        let mut accepted = Vec::new();
        table
            .fine(&[node], events, &mut successors, (1, 2), &mut accepted)
            .then(|| successors.chunks(2).map(|r| r[1]).collect())
    }

    #[test]
    fn the_copy_judges_fine_only_what_the_normal_form_had_worked_out() {
        let spec = "let Spec = a -> b -> Spec [] c -> STOP within Spec";
        with_normal_form(spec, |procs, normal, root, [a, b, c]| {
            // Nothing worked out yet: nothing is judged here.
            let table = JudgeTable::of_normal_form(normal, false, false, false);
            assert_eq!(fine(&table, root, &[a]), None);
            // The initials known, but not where `a` leads: still not.
            normal.initials(procs, root).expect("initials");
            let table = JudgeTable::of_normal_form(normal, false, false, false);
            assert_eq!(fine(&table, root, &[a]), None);
            let after_a = normal.after(procs, root, a).expect("after a").unwrap();
            let table = JudgeTable::of_normal_form(normal, false, false, false);
            // `a` and τ are fine (τ keeps the node), `b` is a breach and `c`
            // not worked out: both left to the search's thread.
            assert_eq!(fine(&table, root, &[a, TAU]), Some(vec![after_a, 0]));
            assert_eq!(fine(&table, root, &[a, b]), None);
            assert_eq!(fine(&table, root, &[c]), None);
            // A node the copy has never heard of.
            assert_eq!(fine(&table, normal.nodes() as NodeId + 5, &[a]), None);
        });
    }

    #[test]
    fn refusals_and_divergence_are_judged_only_when_known_and_allowed() {
        let spec = "let Spec = a -> Spec |~| b -> Spec within Spec";
        with_normal_form(spec, |procs, normal, root, [a, b, _]| {
            let after_a = normal.after(procs, root, a).expect("after a").unwrap();
            let after_b = normal.after(procs, root, b).expect("after b").unwrap();
            // Failures: the acceptances are not known yet.
            let table = JudgeTable::of_normal_form(normal, false, true, false);
            assert_eq!(fine(&table, root, &[a]), None);
            normal.acceptances(procs, root).expect("acceptances");
            let table = JudgeTable::of_normal_form(normal, false, true, false);
            // Offering a alone is allowed ({a} is an acceptance), as is
            // offering both; an unstable state is not asked what it accepts.
            assert_eq!(fine(&table, root, &[a]), Some(vec![after_a]));
            assert_eq!(fine(&table, root, &[a, b]), Some(vec![after_a, after_b]));
            assert_eq!(fine(&table, root, &[TAU]), Some(vec![0]));
            // Refusing everything is a refusal: the search's thread says so.
            assert_eq!(fine(&table, root, &[]), None);
            // Failures-divergences: whether the node diverges must be known.
            let table = JudgeTable::of_normal_form(normal, false, true, true);
            assert_eq!(fine(&table, root, &[a]), None);
            assert!(!normal.divergent(procs, root).expect("divergence"));
            let table = JudgeTable::of_normal_form(normal, false, true, true);
            assert_eq!(fine(&table, root, &[a]), Some(vec![after_a]));
        });
    }

    #[test]
    fn deadlock_freedom_and_divergence_freedom_need_no_normal_form() {
        let deadlock = JudgeTable::deadlock_free(true, false);
        let (a, b) = (5, 6);
        assert_eq!(fine(&deadlock, 0, &[a, TICK]), Some(vec![0, 1]));
        assert_eq!(fine(&deadlock, 0, &[]), None, "a deadlock");
        assert_eq!(fine(&deadlock, 1, &[]), Some(vec![]), "after ✓");
        let anything = JudgeTable::anything(false, true);
        assert_eq!(fine(&anything, 0, &[a, b, TAU]), Some(vec![0, 0, 0]));
        assert_eq!(fine(&anything, 0, &[]), Some(vec![]));
    }

    /// What a check found, as far as it may not depend on how it judged.
    fn outcome(result: &CheckResult) -> (String, u64, u64, Option<Vec<EventId>>) {
        (
            format!("{:?}", result.verdict),
            result.states,
            result.transitions,
            result.counterexample.as_ref().map(|cx| {
                let mut trace = cx.trace();
                trace.extend(cx.error_event);
                trace
            }),
        )
    }

    #[test]
    fn every_check_gives_the_same_answer_with_or_without_the_threads_copy() {
        let mut files: Vec<_> = ["models", "tests/fixtures/check"]
            .iter()
            .flat_map(|dir| std::fs::read_dir(dir).expect("a folder"))
            .map(|entry| entry.expect("an entry").path())
            .filter(|path| path.extension().is_some_and(|e| e == "csp"))
            .collect();
        files.sort();
        let (mut compared, mut judged_beside) = (0, 0);
        for path in files {
            let script = Script::load_file(&path).expect("loads");
            for i in 0..script.assertions.len() {
                let budget = Budget {
                    threads: 2,
                    ..Budget::default()
                };
                let run = |off: bool| {
                    SWITCHED_OFF.store(off, Ordering::SeqCst);
                    let result =
                        crate::stack::with_large_stack(|| check::check(&script, i, &budget));
                    SWITCHED_OFF.store(false, Ordering::SeqCst);
                    result.ok().map(|r| outcome(&r))
                };
                let before = JUDGED.load(Ordering::Relaxed);
                let (with, without) = (run(false), run(true));
                judged_beside += usize::from(JUDGED.load(Ordering::Relaxed) > before);
                let text = check::assertion_text(&script, i);
                assert_eq!(with, without, "{}: {text}", path.display());
                compared += usize::from(with.is_some());
            }
        }
        assert!(compared > 50, "{compared} checks compared");
        // The copies judged states in many of them: not in reduced checks,
        // and rarely in a search of a few blocks (a copy is made a block
        // before it is used).
        assert!(judged_beside >= 25, "{judged_beside} of {compared}");
    }
}

//! What the threads computing successors can judge of a product state
//! ([`SharedJudge`]): a copy of what the specification had learnt when
//! the copy was made ([`SpecCopy`], each kind of specification making
//! its own), read-only, so that judging the states
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
//! ([`Product::shared_judge`](super::product::Product)). [`Judge`] is the
//! judging itself, the same whatever the copy is of.

use std::sync::Arc;

use crate::lts::search::SharedJudge;
use crate::process::{EventId, TAU};

use super::normal::{NodeId, acceptance};

/// A copy of what a specification knew, for the threads computing
/// successors.
pub struct SharedCopy {
    pub judge: Arc<dyn SharedJudge>,
    /// How many numbers it holds: about what making it cost.
    pub size: usize,
}

/// A read-only copy of what a specification knows, as far as it knows
/// it: what [`Judge`] asks of it.
pub trait SpecCopy: Send + Sync + 'static {
    /// The node `event` leads to from `node`: `None` when the copy does
    /// not know, or the specification does not allow it (both left to the
    /// search's thread).
    fn after(&self, node: NodeId, event: EventId) -> Option<NodeId>;

    /// Whether the specification at `node` is known not to diverge (a
    /// divergent node allows anything: the search's thread prunes there).
    fn not_divergent(&self, _node: NodeId) -> bool {
        true
    }

    /// Whether a stable state accepting `accepted` is known to be allowed
    /// at `node`.
    fn accepts(&self, node: NodeId, accepted: &[EventId]) -> bool;

    /// How many numbers the copy holds: about what making it cost.
    fn size(&self) -> usize {
        0
    }
}

/// A product's judging from a copy of its specification, for the threads
/// computing successors.
pub struct Judge<C> {
    copy: C,
    refusals: bool,
    divergences: bool,
}

impl<C: SpecCopy> Judge<C> {
    /// Judging by `copy` in a model that looks at `refusals` and
    /// `divergences` or not.
    pub fn new(copy: C, refusals: bool, divergences: bool) -> Judge<C> {
        Judge {
            copy,
            refusals,
            divergences,
        }
    }

    /// Ready to hand to the threads.
    pub fn shared(self) -> SharedCopy {
        SharedCopy {
            size: self.copy.size(),
            judge: Arc::new(self),
        }
    }
}

impl<C: SpecCopy> SharedJudge for Judge<C> {
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
        if self.divergences && !self.copy.not_divergent(node) {
            return false;
        }
        let stable = !events.contains(&TAU);
        if self.refusals && stable {
            acceptance(events.iter().copied(), accepted);
            if !self.copy.accepts(node, accepted) {
                return false;
            }
        }
        for (k, &event) in events.iter().enumerate() {
            if event == TAU {
                continue;
            }
            match self.copy.after(node, event) {
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

/// What `judge` finds of a state whose specification column is `node`
/// and whose moves have `events` (one component): the successors'
/// specification columns when it is fine (for the tests of each kind's
/// copy).
#[cfg(test)]
pub(super) fn judged(
    judge: &dyn SharedJudge,
    node: NodeId,
    events: &[EventId],
) -> Option<Vec<u32>> {
    let mut successors = vec![0; events.len() * 2];
    let mut accepted = Vec::new();
    judge
        .fine(&[node], events, &mut successors, (1, 2), &mut accepted)
        .then(|| successors.chunks(2).map(|r| r[1]).collect())
}

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
    use crate::script::Script;

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

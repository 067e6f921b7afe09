//! Judging a round's states: the visitor sees each state with its
//! successors, in order; those it keeps are gathered (each replaced by
//! its representative when it reduces) and, once stored, recorded:
//! parent pointers, transitions and levels.

use crate::budget::Stopped;
use crate::eval::EvalResult;
use crate::process::EventId;

use super::super::expand::LATER;
use super::super::machine::Machine;
use super::super::store::StateStore;
use super::buffers::{Expanded, KeptSuccessors, Parents, Round, RowsAt, Storing};
use super::{Caller, Context, DROP, Flow, LevelCounts, Search, Visit, Visitor};

/// The stored states as judging a block sees them: the store, the
/// machine when the visitor may have it (not while other threads expand
/// the next block with it), and a row's components and width.
pub(super) struct Stored<'s> {
    pub(super) store: &'s StateStore,
    pub(super) machine: Option<&'s mut Machine>,
    pub(super) components: usize,
    pub(super) width: usize,
}

impl Search {
    /// Lets the visitor judge the round's states in order (the first
    /// `expanded` of them), keeping the successors it keeps; how many it
    /// visited, and why it stopped early.
    pub(super) fn visit_block(
        mut stored: Stored<'_>,
        caller: &mut Caller<'_, '_>,
        round: &mut Round,
        storing: &mut Storing,
    ) -> EvalResult<(usize, Option<Stopped>)> {
        let width = stored.width;
        // Resumed after a pause: the states judged before it are skipped.
        let judged_before = round.paused.take();
        if judged_before.is_none() {
            round.kept.clear();
        }
        let skip = judged_before.unwrap_or(0);
        let reducing = caller.visitor.canonicaliser().is_some();
        let mut visited = 0;
        for (p, part) in round.parts.iter_mut().enumerate() {
            // Where the part's next state's successors are.
            let mut own = 0;
            for i in 0..part.counts.len() {
                if visited == round.expanded {
                    return Ok((visited, None));
                }
                if visited < skip {
                    if part.counts[i] != LATER {
                        own += part.counts[i] as usize;
                    }
                    visited += 1;
                    continue;
                }
                // A state counts with its successors (counted below, once
                // known: a state left to this thread has its own): one
                // with thousands of wide successors is as much work as
                // thousands of states.
                if let Err(stop) = caller.poll(storing, stored.store.len()) {
                    return Ok((visited, Some(stop)));
                }
                let id = storing.next;
                if id >= storing.level_end {
                    storing.depth += 1;
                    storing.deepened_at = id;
                    storing.level_start = Some(id);
                    // Known once the successors of the states before this
                    // one are stored; no state of this block is past it.
                    storing.level_end = usize::MAX;
                }
                let row = &part.sources[i * width..(i + 1) * width];
                let later_at = round.later.next;
                let state = if part.counts[i] == LATER {
                    round.later.next()
                } else {
                    let count = part.counts[i] as usize;
                    own += count;
                    Expanded {
                        at: RowsAt::Part(p),
                        successors: &mut part.successors,
                        first: own - count,
                        count,
                        judged: part.judged[i],
                    }
                };
                // Beside the next block's expansion, a representative
                // only the machine can make waits for it: this state
                // and the rest are judged once the expansion is done,
                // in the same order as ever.
                if reducing && stored.machine.is_none() && state.unfound() {
                    round.later.next = later_at;
                    round.paused = Some(visited);
                    return Ok((visited, None));
                }
                let (first, count) = (state.first, state.count);
                storing.since_poll += 1 + count;
                let judged = caller.visitor.visit(
                    Context {
                        procs: &mut *caller.procs,
                        machine: stored.machine.as_deref_mut(),
                        store: stored.store,
                    },
                    Visit {
                        id: id as u32,
                        row,
                        events: &state.successors.events[first..first + count],
                        successors: &mut state.successors.rows
                            [first * width..(first + count) * width],
                        depth: storing.depth,
                        judged: state.judged,
                    },
                );
                let flow = match judged {
                    Ok(flow) => flow,
                    Err(error) => {
                        round.visit_error = Some(error);
                        return Ok((visited, Some(Stopped::Visitor)));
                    }
                };
                if flow == Flow::Stop {
                    return Ok((visited, Some(Stopped::Visitor)));
                }
                Search::keep(&mut stored, caller, &mut round.kept, flow, state)?;
                storing.next += 1;
                visited += 1;
            }
        }
        Ok((visited, None))
    }

    /// Keeps the successors of a state that the visitor's `flow` lets
    /// through, each replaced by its representative when the visitor
    /// reduces (found by a thread already, or found now).
    fn keep(
        stored: &mut Stored<'_>,
        caller: &mut Caller<'_, '_>,
        kept: &mut KeptSuccessors,
        flow: Flow,
        state: Expanded<'_>,
    ) -> EvalResult<()> {
        let (components, width) = (stored.components, stored.width);
        let (first, count) = (state.first, state.count);
        let out = &*state.successors;
        let events = &out.events[first..first + count];
        let successors = &out.rows[first * width..(first + count) * width];
        let reducing = caller.visitor.canonicaliser().is_some();
        let start = kept.copied.len();
        let mut kept_here = 0;
        match flow {
            Flow::Stop | Flow::Prune => {}
            Flow::Continue if !reducing => {
                kept.keep(state.at, first * width..(first + count) * width);
                kept.events.extend_from_slice(events);
                kept_here = count;
            }
            Flow::Continue => {
                kept.copied.extend_from_slice(successors);
                kept.events.extend_from_slice(events);
            }
            Flow::Filter => {
                for (k, row) in successors.chunks_exact(width).enumerate() {
                    if row.get(components) != Some(&DROP) {
                        kept.copied.extend_from_slice(row);
                        kept.events.push(events[k]);
                    }
                }
            }
        }
        if let Some(canonicaliser) = caller.visitor.canonicaliser() {
            // Each kept successor's place among the state's, where
            // a thread may have found its representative already.
            kept.filtered.clear();
            match flow {
                Flow::Continue => kept.filtered.extend(0..count as u32),
                Flow::Filter => kept.filtered.extend(
                    successors
                        .chunks_exact(width)
                        .enumerate()
                        .filter(|(_, row)| row.get(components) != Some(&DROP))
                        .map(|(k, _)| k as u32),
                ),
                _ => {}
            }
            let stride = out.images.len().checked_div(out.found.len()).unwrap_or(0);
            for (row, &k) in kept.copied[start..]
                .chunks_exact_mut(width)
                .zip(&kept.filtered)
            {
                let at = first + k as usize;
                if out.found.get(at) == Some(&true) {
                    row[..components].copy_from_slice(
                        &out.representatives[at * components..(at + 1) * components],
                    );
                    let images = &out.images[at * stride..(at + 1) * stride];
                    canonicaliser.finish(caller.procs, row, images)?;
                } else {
                    let machine = stored
                        .machine
                        .as_deref_mut()
                        .expect("a canonicalising visitor has the machine");
                    canonicaliser.canonicalise(machine, caller.procs, row)?;
                }
            }
        }
        let copied = kept.copied.len();
        kept.keep(RowsAt::Copied, start..copied);
        kept_here += (copied - start) / width;
        kept.counts.push(kept_here as u32);
        Ok(())
    }

    /// After a round's kept successors are stored (all, or up to a
    /// refusal): parent pointers, the visitor's `stored`, transitions and
    /// levels, state by state in order. `Some` when the visitor ended the
    /// search at a state (the counts cut there).
    pub(super) fn record(
        parents: &mut Option<Parents>,
        store_len: usize,
        visitor: &mut dyn Visitor,
        round: &Round,
        storing: &mut Storing,
    ) -> Option<Stopped> {
        let (kept, batch) = (&round.kept, &round.batch);
        let mut at = 0;
        for (i, &count) in kept.counts.iter().enumerate() {
            let id = round.from + i;
            if storing.level_start == Some(id) {
                storing.level_start = None;
                storing.level_end = store_len.min(
                    // The first state of the next level: the first id
                    // given to a successor of this one or a later one.
                    batch.ids[at..]
                        .iter()
                        .find(|&&(_, new)| new)
                        .map_or(usize::MAX, |&(target, _)| target as usize),
                );
                storing.levels.push(LevelCounts {
                    states: storing.level_end as u64,
                    transitions: storing.transitions,
                });
            }
            let count = count as usize;
            let stored = batch.ids.len().saturating_sub(at).min(count);
            let ids = &batch.ids[at..at + stored];
            let events = &kept.events[at..at + stored];
            if let Some(parents) = parents {
                for (&event, &(target, new)) in events.iter().zip(ids) {
                    if new {
                        parents.push((id as u32, event));
                    }
                    debug_assert!(!new || parents.len() == target as usize);
                }
            }
            // Cut short by the budget, the search ends here: the visitor
            // hears only of states whose successors are all stored.
            if stored == count {
                visitor.stored(id as u32, events, ids);
                storing.recorded = id + 1;
            }
            storing.transitions += distinct_transitions(events, ids, &mut storing.pairs);
            at += count;
            if stored < count {
                return None;
            }
            if visitor.ends_after_stored() {
                storing.cut = Some(storing.stop_level(id, store_len));
                return Some(Stopped::Visitor);
            }
        }
        None
    }
}

/// How many distinct `(event, target)` pairs a state's successors
/// make: by comparing each with those before it when there are few (most
/// states), by sorting when there are many.
pub(crate) fn distinct_transitions(
    events: &[EventId],
    ids: &[(u32, bool)],
    pairs: &mut Vec<(EventId, u32)>,
) -> u64 {
    const FEW: usize = 16;
    let pair = |k: usize| (events[k], ids[k].0);
    if ids.len() <= FEW {
        (0..ids.len())
            .filter(|&k| (0..k).all(|j| pair(j) != pair(k)))
            .count() as u64
    } else {
        pairs.clear();
        pairs.extend((0..ids.len()).map(pair));
        pairs.sort_unstable();
        pairs.dedup();
        pairs.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_transitions_count_each_event_and_target_once_few_or_many() {
        let mut pairs = Vec::new();
        for len in [0, 1, 5, 16, 17, 40] {
            // Events and targets repeating with different periods, so
            // some pairs repeat and some do not.
            let events: Vec<EventId> = (0..len).map(|k| (k % 3) as EventId).collect();
            let ids: Vec<(u32, bool)> = (0..len).map(|k| ((k % 4) as u32, false)).collect();
            let expected: std::collections::BTreeSet<_> = events
                .iter()
                .zip(&ids)
                .map(|(&e, &(t, _))| (e, t))
                .collect();
            assert_eq!(
                distinct_transitions(&events, &ids, &mut pairs),
                expected.len() as u64,
                "{len} successors"
            );
        }
    }
}

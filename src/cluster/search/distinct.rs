//! A state's successors made distinct before they are sent: each
//! distinct transition counted once, and each distinct row sent once,
//! with its first move (the smallest event) and whether ✓ or τ reach
//! it. A few successors (most states') are compared pair by pair and
//! kept in the order they were met, as one search meets them; many are
//! sorted.

use crate::process::{TAU, TICK};

/// Most states have at most this many moves: their successors are
/// compared pair by pair, the rest sorted.
pub(super) const FEW_MOVES: usize = 16;

/// Each distinct row of the few successors in `order` (indices of
/// `entry`: an event, then a row) once, in the order they are met, with
/// its smallest event's move and whether ✓ or τ reach it, into
/// `reached`; the number of distinct transitions. `hashes` holds a hash
/// of each entry's row (equal rows, equal hashes): rows are compared
/// only where their hashes are equal, as few pairs are.
pub(super) fn few_distinct<'e>(
    order: &[u32],
    (entry, hashes): (impl Fn(u32) -> &'e [u32], &[u64]),
    reached: &mut Vec<(u32, bool, bool)>,
) -> u64 {
    let same_row =
        |j: u32, k: u32| hashes[j as usize] == hashes[k as usize] && entry(j)[1..] == entry(k)[1..];
    let mut transitions = 0;
    for (at, &k) in order.iter().enumerate() {
        let event = entry(k)[0];
        let repeated = order[..at]
            .iter()
            .any(|&j| entry(j)[0] == event && same_row(j, k));
        transitions += u64::from(!repeated);
        match reached.iter_mut().find(|r| same_row(r.0, k)) {
            Some((first, ticked, tau)) => {
                if event < entry(*first)[0] {
                    *first = k;
                }
                *ticked |= event == TICK;
                *tau |= event == TAU;
            }
            None => reached.push((k, event == TICK, event == TAU)),
        }
    }
    transitions
}

/// [`few_distinct`] for many successors: sorted by key and row, then
/// event, so that equal transitions lie side by side and a row's moves
/// together (`order` is sorted and cut to the distinct transitions).
pub(super) fn many_distinct<'e>(
    order: &mut Vec<u32>,
    (entry, keys): (impl Fn(u32) -> &'e [u32], &[u64]),
    reached: &mut Vec<(u32, bool, bool)>,
) -> u64 {
    order.sort_unstable_by(|&a, &b| {
        let key = |k: u32| (keys[k as usize], &entry(k)[1..], entry(k)[0]);
        key(a).cmp(&key(b))
    });
    order.dedup_by(|a, b| entry(*a) == entry(*b));
    let mut k = 0;
    while k < order.len() {
        let (first, target) = (order[k], &entry(order[k])[1..]);
        let (mut ticked, mut tau) = (false, false);
        while k < order.len() && &entry(order[k])[1..] == target {
            ticked |= entry(order[k])[0] == TICK;
            tau |= entry(order[k])[0] == TAU;
            k += 1;
        }
        reached.push((first, ticked, tau));
    }
    order.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lts::store::hash_row;
    use proptest::prelude::*;

    /// Each reached row of `entries` (an event, then a row of two) with
    /// its first move's event and whether ✓ or τ reach it.
    fn rows_of(
        entries: &[[u32; 3]],
        reached: &[(u32, bool, bool)],
    ) -> Vec<([u32; 2], u32, bool, bool)> {
        reached
            .iter()
            .map(|&(first, ticked, tau)| {
                let e = entries[first as usize];
                ([e[1], e[2]], e[0], ticked, tau)
            })
            .collect()
    }

    proptest! {
        /// Pair by pair and sorted, the same transitions and rows, each
        /// row's first move its smallest event: the two ways a state's
        /// successors are made distinct.
        #[test]
        fn few_and_many_successors_are_made_distinct_alike(
            entries in proptest::collection::vec((0u32..4, 0u32..3, 0u32..3), 0..=FEW_MOVES),
        ) {
            // Events 0 and 1 are τ and ✓.
            let entries: Vec<[u32; 3]> = entries.into_iter().map(|(e, a, b)| [e, a, b]).collect();
            let entry = |k: u32| &entries[k as usize][..];
            let keys = vec![0; entries.len()];
            let hashes: Vec<u64> = entries.iter().map(|e| u64::from(hash_row(&e[1..]))).collect();
            let (mut few_reached, mut many_reached) = (Vec::new(), Vec::new());
            let every: Vec<u32> = (0..entries.len() as u32).collect();
            let few = few_distinct(&every, (entry, &hashes), &mut few_reached);
            // Hashes only spare comparisons: all alike, the same answer.
            let mut alike_reached = Vec::new();
            prop_assert_eq!(few_distinct(&every, (entry, &keys), &mut alike_reached), few);
            prop_assert_eq!(&alike_reached, &few_reached);
            let many = many_distinct(&mut every.clone(), (entry, &keys), &mut many_reached);
            prop_assert_eq!(few, many);
            // The few are met in order; the many sorted by row.
            let mut few_rows = rows_of(&entries, &few_reached);
            few_rows.sort();
            prop_assert_eq!(few_rows, rows_of(&entries, &many_reached));
            let distinct: std::collections::BTreeSet<_> = entries.iter().collect();
            prop_assert_eq!(few as usize, distinct.len());
        }
    }
}

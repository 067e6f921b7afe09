//! The representative strategies other than FDR's ([`Strategy`]), on a
//! system's symmetry: sorted and segmented (families of components
//! indexed by a distinguished type, sorted by their non-distinguished
//! part), permutation flooding (every image of a new state marked seen)
//! and the exact canonical form (the least image over every branch of
//! step 3). Each gives the representative and the permutation that makes
//! it, as FDR's does, so reduced checks, unwinding and the animator work
//! the same under any of them.

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};
use crate::lts::machine::Machine;
use crate::process::Processes;
use crate::symmetry::Atom;

use super::super::perm::Permutation;
use super::super::rep::{Input, Leaf, OwnedInput, Searched, Workspace};
use super::super::strategy::Strategy;
use super::threads::ReadRow;
use super::{Image, RepresentativeScratch, SystemSymmetry};

/// Images made between two polls of the meter.
const POLL_EVERY: u64 = 256;

/// The most branches a thread computing successors tries for one state's
/// exact canonical form; past it, the search's own thread does it.
const SHARED_LEAVES: u64 = 4096;

/// The group elements flooding walks per new state, at most: past it the
/// enumeration alone outlasts any budget.
const MAX_FLOODED_GROUP: u64 = 1 << 40;

/// A family of components indexed by a distinguished type: the members
/// of a symmetric set, each holding its own value of the type as its
/// identity.
#[derive(Debug, Clone)]
pub(super) struct Family {
    pub ty: usize,
    pub members: Vec<usize>,
    /// Each member's identity (an index of `ty`'s values).
    pub identities: Vec<u16>,
}

/// What a strategy keeps from state to state.
#[derive(Debug, Default)]
pub(super) struct StrategyState {
    pub strategy: Strategy,
    /// The families, one per type that indexes one (sorted, segmented).
    pub families: Vec<Family>,
    /// Flooding: every image of a stored state, with the group element
    /// (by its place in [`Permutation::nth`]'s order) whose inverse maps
    /// it back onto the stored state.
    pub flooded: FxHashMap<Box<[u32]>, u64>,
    /// The permutation the last state's representative was made with.
    pub chosen: Permutation,
}

impl SystemSymmetry {
    /// This symmetry with representatives found by `strategy`.
    pub fn with_strategy(mut self, strategy: Strategy) -> SystemSymmetry {
        self.strategy.strategy = strategy;
        self.strategy.families = self.families();
        self
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy.strategy
    }

    /// The distinguished types the sorted and segmented strategies
    /// cannot reduce (no family of components is indexed by them): each
    /// type's name.
    pub fn types_without_family(&self) -> Vec<String> {
        let families = self.families();
        self.symmetry
            .types()
            .iter()
            .enumerate()
            .filter(|(t, ty)| ty.values.len() > 1 && families.iter().all(|f| f.ty != *t))
            .map(|(_, ty)| ty.name.clone())
            .collect()
    }

    /// Families of components indexed by a distinguished type: the
    /// symmetric sets with an identity variable, the first per type.
    fn families(&self) -> Vec<Family> {
        let mut families: Vec<Family> = Vec::new();
        for members in self.orbits.iter().filter(|m| m.len() > 1) {
            let Image::Identity { position, .. } = self.components[members[0]].image else {
                continue;
            };
            let ty = self.components[members[0]].initial_atoms[position].ty();
            if families.iter().any(|f| f.ty == ty) {
                continue;
            }
            let identities = members
                .iter()
                .map(|&m| self.components[m].initial_atoms[position].index() as u16)
                .collect();
            families.push(Family {
                ty,
                members: members.clone(),
                identities,
            });
        }
        families
    }

    /// The representative of `row` by the system's strategy, into `out`,
    /// and the permutation that makes it (`out` is its image of `row`).
    /// A budget may stop the strategies that enumerate.
    pub fn canonical(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        out: &mut [u32],
    ) -> EvalResult<&Permutation> {
        let chosen = match self.strategy.strategy {
            Strategy::Fdr => return Ok(self.representative(machine, procs, row, out, None)),
            Strategy::Sorted => self.sorted(machine, procs, row),
            Strategy::Segmented => self.segmented(machine, procs, row)?,
            Strategy::Flooding => {
                // What the state holds, for `held_atoms`, as the others
                // read it.
                self.read_state(machine, procs, row);
                self.flooding(machine, procs, row)?
            }
            Strategy::Exact => self.exact(machine, procs, row)?,
        };
        self.apply(machine, procs, &chosen, row, out);
        self.strategy.chosen = chosen;
        Ok(&self.strategy.chosen)
    }

    /// Each family's members in the order of their shapes (the rank of
    /// their non-distinguished part), equal shapes in component order;
    /// read off `row` as the algorithm reads it.
    fn sorted_families(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Vec<Vec<usize>> {
        self.read_state(machine, procs, row);
        self.strategy
            .families
            .iter()
            .map(|family| {
                let mut order: Vec<usize> = (0..family.members.len()).collect();
                order.sort_by_key(|&i| self.ranks[family.members[i]]);
                order
            })
            .collect()
    }

    /// The permutation that puts each family's members in `orders` (per
    /// family, the members' places in sorted order): the `j`-th of the
    /// order takes the `j`-th identity. Types indexing no family, and
    /// values that are nobody's identity, stay where they are.
    fn sorting(&self, orders: &[Vec<usize>]) -> Permutation {
        let identity = Permutation::identity(&self.symmetry);
        let mut maps: Vec<Vec<u16>> = (0..self.type_sizes.len())
            .map(|t| identity.images(t).to_vec())
            .collect();
        for (family, order) in self.strategy.families.iter().zip(orders) {
            for (j, &i) in order.iter().enumerate() {
                maps[family.ty][family.identities[i] as usize] = family.identities[j];
            }
        }
        Permutation::from_images(maps)
    }

    fn sorted(&mut self, machine: &Machine, procs: &mut Processes, row: &[u32]) -> Permutation {
        let orders = self.sorted_families(machine, procs, row);
        self.sorting(&orders)
    }

    /// Every order that sorts the families (each run of equal shapes in
    /// any order), the least image kept.
    fn segmented(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Permutation> {
        let sorted = self.sorted_families(machine, procs, row);
        // The runs of equal shapes, per family, as ranges of the order.
        let runs: Vec<Vec<(usize, usize)>> = self
            .strategy
            .families
            .iter()
            .zip(&sorted)
            .map(|(family, order)| {
                let mut runs = Vec::new();
                let mut start = 0;
                for k in 1..=order.len() {
                    let same = k < order.len()
                        && self.ranks[family.members[order[k]]]
                            == self.ranks[family.members[order[start]]];
                    if !same {
                        runs.push((start, k));
                        start = k;
                    }
                }
                runs
            })
            .collect();
        let orders_count: f64 = runs
            .iter()
            .flatten()
            .map(|&(a, b)| (2..=(b - a)).map(|k| k as f64).product::<f64>())
            .product();
        let mut orders = sorted.clone();
        let mut best: Option<(Vec<u32>, Permutation)> = None;
        let mut image = vec![0; row.len()];
        let mut made = 0u64;
        loop {
            made += 1;
            if made.is_multiple_of(POLL_EVERY) {
                procs.evaluator().meter().poll().map_err(|stop| {
                    EvalError::stopped(stop).with_note(format!(
                        "the segmented strategy tries every order of each run of equal \
                         components: {orders_count:.0} orders for this state"
                    ))
                })?;
            }
            let perm = self.sorting(&orders);
            self.apply(machine, procs, &perm, row, &mut image);
            if best.as_ref().is_none_or(|(b, _)| image < *b) {
                best = Some((image.clone(), perm));
            }
            if !next_order(&mut orders, &runs) {
                break;
            }
        }
        Ok(best.expect("at least one order").1)
    }

    /// Flooding: a state met before (as an image of a stored one) maps
    /// onto that one; a new one is stored as it is, its every image
    /// marked seen first.
    fn flooding(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Permutation> {
        if let Some(&k) = self.strategy.flooded.get(row) {
            return Ok(Permutation::nth(&self.symmetry, k).inverse());
        }
        let order = self.symmetry.group_order().value();
        let order = u64::try_from(&order)
            .ok()
            .filter(|&o| o <= MAX_FLOODED_GROUP)
            .ok_or_else(|| {
                EvalError::stopped(crate::budget::Stopped::Memory).with_note(format!(
                    "flooding marks every image of a new state seen: the group has {} \
                     elements, more than any budget holds",
                    self.symmetry.group_order()
                ))
            })?;
        let meter = procs.evaluator().meter().clone();
        let bytes = order.saturating_mul((row.len() * 4 + 48) as u64);
        meter.may_allocate(bytes).map_err(|stop| {
            EvalError::stopped(stop).with_note(format!(
                "flooding marks every image of a new state seen: {} images of {} bytes each",
                self.symmetry.group_order(),
                row.len() * 4
            ))
        })?;
        let mut image = vec![0; row.len()];
        for k in 0..order {
            if k % POLL_EVERY == POLL_EVERY - 1 {
                meter.poll().map_err(|stop| {
                    EvalError::stopped(stop).with_note(format!(
                        "flooding marks every image of a new state seen: {} per state",
                        self.symmetry.group_order()
                    ))
                })?;
            }
            let perm = Permutation::nth(&self.symmetry, k);
            self.apply(machine, procs, &perm, row, &mut image);
            self.strategy
                .flooded
                .entry(image.as_slice().into())
                .or_insert(k);
        }
        Ok(Permutation::identity(&self.symmetry))
    }

    /// The exact canonical form: the least image over the leaves of the
    /// individualisation–refinement search. A leaf places every value the
    /// algorithm read; where the state holds others (in a set, a map, a
    /// function), each placement of those is tried at each leaf too
    /// ([`Hidden`]), so that the least image is the same for every state
    /// of a class.
    fn exact(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> EvalResult<Permutation> {
        self.read_state(machine, procs, row);
        // Where the algorithm did not read every value: those the image
        // depends on, which a leaf may not place ([`Hidden`]).
        let matter = match self.reads_every_value() {
            true => Vec::new(),
            false => self.values_that_matter(machine, procs, row),
        };
        // The state as read, lent out while the leaves are applied (which
        // reads none of it), and the workspace with it.
        let input = OwnedInput {
            ranks: std::mem::take(&mut self.ranks),
            atoms: std::mem::take(&mut self.atoms),
            bounds: std::mem::take(&mut self.bounds),
            exact: std::mem::take(&mut self.exact),
            type_sizes: self.type_sizes.clone(),
        };
        let mut workspace = std::mem::take(&mut self.workspace);
        let meter = procs.evaluator().meter().clone();
        let hidden = Hidden::of(&input.input(), &matter);
        let mut image = vec![0; row.len()];
        let mut shuffled = vec![0; row.len()];
        let mut first: Option<(Vec<u32>, Permutation)> = None;
        let mut best: Option<(Vec<u32>, Permutation)> = None;
        let mut leaves = 0u64;
        let mut stopped = None;
        let searched = workspace.exact(&input.input(), &mut |leaf: &Permutation| {
            leaves += 1;
            if leaves.is_multiple_of(POLL_EVERY)
                && let Err(stop) = meter.poll()
            {
                stopped = Some(stop);
                return Leaf::Stop;
            }
            self.apply(machine, procs, leaf, row, &mut image);
            // The leaf's least image over the placements of the values it
            // does not place by what it read.
            let mut chosen = None;
            if let Some(hidden) = &hidden {
                for (k, placed) in hidden.placements.iter().enumerate() {
                    if k % POLL_EVERY as usize == POLL_EVERY as usize - 1
                        && let Err(stop) = meter.poll()
                    {
                        stopped = Some(stop);
                        return Leaf::Stop;
                    }
                    let moved = hidden.placed(leaf, placed);
                    self.apply(machine, procs, &moved, row, &mut shuffled);
                    if shuffled < image {
                        std::mem::swap(&mut image, &mut shuffled);
                        chosen = Some(moved);
                    }
                }
            }
            let perm = chosen.as_ref().unwrap_or(leaf);
            let (Some((first_image, first_perm)), Some((best_image, best_perm))) =
                (&first, &mut best)
            else {
                first = Some((image.clone(), perm.clone()));
                best = Some((image.clone(), perm.clone()));
                return Leaf::Better;
            };
            // Two leaves with one image: their permutations make an
            // automorphism of the state, `perm ; earlier⁻¹`.
            let mut automorphism = |earlier: &Permutation| -> Vec<u32> {
                let g = perm.then(&earlier.inverse());
                self.compute_alpha(procs, &g);
                self.alpha.clone()
            };
            if image == *first_image {
                return Leaf::Same {
                    automorphism: automorphism(first_perm),
                    first: true,
                };
            }
            match image.cmp(best_image) {
                Ordering::Less => {
                    best_image.clone_from(&image);
                    *best_perm = perm.clone();
                    Leaf::Better
                }
                Ordering::Greater => Leaf::Worse,
                Ordering::Equal => Leaf::Same {
                    automorphism: automorphism(best_perm),
                    first: false,
                },
            }
        });
        self.workspace = workspace;
        self.ranks = input.ranks;
        self.atoms = input.atoms;
        self.bounds = input.bounds;
        self.exact = input.exact;
        if searched == Searched::Stopped {
            let stop = stopped.expect("stopped by the meter");
            return Err(EvalError::stopped(stop).with_note(format!(
                "the exact strategy had tried {leaves} branches of step 3 for one state"
            )));
        }
        Ok(best.expect("a search has a leaf").1)
    }

    /// The exact canonical form of `row` into `out` and the permutation
    /// that makes it, from what is known only, on a thread computing
    /// successors ([`SystemSymmetry::try_representative`]'s way); `None`
    /// where that needs what only the search's thread can do, or more
    /// than [`SHARED_LEAVES`] branches (the search's thread, which polls
    /// the budget, then does it).
    pub(super) fn try_exact(
        &self,
        scratch: &mut RepresentativeScratch,
        machine: &Machine,
        row: &[u32],
        out: &mut [u32],
    ) -> Option<Permutation> {
        let ReadRow {
            workspace,
            input,
            alpha,
            key,
        } = self.try_read_row(scratch, machine, row)?;
        // Values the algorithm does not read need their placements
        // tried: the search's thread does that, as it is rare.
        if !input.reads_every_value() {
            return None;
        }
        let mut image = vec![0; row.len()];
        let mut first: Option<(Vec<u32>, Permutation)> = None;
        let mut best: Option<(Vec<u32>, Permutation)> = None;
        let mut leaves = 0u64;
        let searched = workspace.exact(&input, &mut |perm: &Permutation| {
            leaves += 1;
            if leaves > SHARED_LEAVES
                || self
                    .try_apply(machine, perm, row, (&mut *alpha, &mut *key), &mut image)
                    .is_none()
            {
                return Leaf::Stop;
            }
            let (Some((first_image, first_perm)), Some((best_image, best_perm))) =
                (&first, &mut best)
            else {
                first = Some((image.clone(), perm.clone()));
                best = Some((image.clone(), perm.clone()));
                return Leaf::Better;
            };
            let mut automorphism = |earlier: &Permutation| -> Option<Vec<u32>> {
                let g = perm.then(&earlier.inverse());
                self.try_alpha(&g, alpha, key)?;
                Some(alpha.clone())
            };
            if image == *first_image {
                return match automorphism(first_perm) {
                    Some(automorphism) => Leaf::Same {
                        automorphism,
                        first: true,
                    },
                    None => Leaf::Stop,
                };
            }
            match image.cmp(best_image) {
                Ordering::Less => {
                    best_image.clone_from(&image);
                    *best_perm = perm.clone();
                    Leaf::Better
                }
                Ordering::Greater => Leaf::Worse,
                Ordering::Equal => match automorphism(best_perm) {
                    Some(automorphism) => Leaf::Same {
                        automorphism,
                        first: false,
                    },
                    None => Leaf::Stop,
                },
            }
        });
        if searched == Searched::Stopped {
            return None;
        }
        let (best_image, perm) = best?;
        out.copy_from_slice(&best_image);
        Some(perm)
    }

    /// The exact canonical form of `row` into `out`, whatever the
    /// system's strategy (the audit, the animator's comparison), and the
    /// permutation that makes it.
    pub fn exact_canonical(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        out: &mut [u32],
    ) -> EvalResult<Permutation> {
        let perm = self.exact(machine, procs, row)?;
        self.apply(machine, procs, &perm, row, out);
        Ok(perm)
    }

    /// For tests and the audit: how many leaves the exact search visits
    /// for `row`.
    pub fn exact_leaves(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> u64 {
        self.read_state(machine, procs, row);
        let input = OwnedInput {
            ranks: self.ranks.clone(),
            atoms: self.atoms.clone(),
            bounds: self.bounds.clone(),
            exact: self.exact.clone(),
            type_sizes: self.type_sizes.clone(),
        };
        let mut workspace = Workspace::default();
        match workspace.exact(&input.input(), &mut |_| Leaf::Worse) {
            Searched::Done { leaves } => leaves,
            Searched::Stopped => unreachable!("never stopped"),
        }
    }
}

/// The most ways of placing a state's unread values that the exact
/// strategy tries at each leaf (8!); past it, the leaf's own placement
/// stands, and the state may keep another representative than others of
/// its class.
const MAX_PLACEMENTS: usize = 40_320;

/// The values a state holds where the algorithm does not read them (in
/// a set, a map, a function), which a leaf places after the values it
/// read, in index order; each other placement of them is tried at each
/// leaf, so that the least image is the same for every state of a class.
struct Hidden {
    /// Per type: how many values the state's reading holds (a leaf's
    /// first places), and the hidden values, in index order.
    read: Vec<usize>,
    values: Vec<Vec<u16>>,
    /// Each placement: per type, the place of each hidden value.
    placements: Vec<Vec<Vec<u16>>>,
}

impl Hidden {
    /// The hidden values of the state read into `input`, given every
    /// value its image depends on; `None` when the algorithm read them
    /// all, there is only one placement, or more than
    /// [`MAX_PLACEMENTS`].
    fn of(input: &Input, matter: &[Atom]) -> Option<Hidden> {
        if input.reads_every_value() {
            return None;
        }
        let types = input.type_sizes.len();
        let mut read = vec![Vec::new(); types];
        for atom in input.atoms {
            read[atom.ty()].push(atom.index() as u16);
        }
        for values in &mut read {
            values.sort_unstable();
            values.dedup();
        }
        let values: Vec<Vec<u16>> = (0..types)
            .map(|ty| {
                let mut hidden: Vec<u16> = (matter.iter())
                    .filter(|atom| atom.ty() == ty)
                    .map(|atom| atom.index() as u16)
                    .filter(|v| read[ty].binary_search(v).is_err())
                    .collect();
                hidden.sort_unstable();
                hidden.dedup();
                hidden
            })
            .collect();
        // Per type, every injection of its hidden values into the places
        // after the read ones.
        let mut count = 1usize;
        let mut per_type = Vec::with_capacity(types);
        for (ty, hidden) in values.iter().enumerate() {
            let places = input.type_sizes[ty] - read[ty].len();
            let ways =
                (places + 1 - hidden.len()..=places).try_fold(1usize, |n, k| n.checked_mul(k));
            count = count.checked_mul(ways?)?;
            if count > MAX_PLACEMENTS {
                return None;
            }
            let first = read[ty].len() as u16;
            let mut injections = Vec::new();
            inject(
                hidden.len(),
                first..first + places as u16,
                &mut Vec::new(),
                &mut injections,
            );
            per_type.push(injections);
        }
        if count < 2 {
            return None;
        }
        let mut placements: Vec<Vec<Vec<u16>>> = vec![Vec::new()];
        for injections in per_type {
            placements = (placements.iter())
                .flat_map(|done| {
                    injections.iter().map(move |one| {
                        let mut next = done.clone();
                        next.push(one.clone());
                        next
                    })
                })
                .collect();
        }
        Some(Hidden {
            read: read.iter().map(Vec::len).collect(),
            values,
            placements,
        })
    }

    /// `leaf` with the hidden values at the places `placed` gives and
    /// the state's other unread values after them, in index order.
    fn placed(&self, leaf: &Permutation, placed: &[Vec<u16>]) -> Permutation {
        let maps = (0..self.read.len())
            .map(|ty| {
                let mut map = leaf.images(ty).to_vec();
                let first = self.read[ty] as u16;
                let mut taken = vec![false; map.len()];
                for (&value, &place) in self.values[ty].iter().zip(&placed[ty]) {
                    map[value as usize] = place;
                    taken[place as usize] = true;
                }
                let mut free = (first..map.len() as u16).filter(|&p| !taken[p as usize]);
                for (value, place) in map.iter_mut().enumerate() {
                    let unread = *place >= first && !self.values[ty].contains(&(value as u16));
                    if unread {
                        *place = free.next().expect("a place for each value");
                    }
                }
                map
            })
            .collect();
        Permutation::from_images(maps)
    }
}

/// Every injection of `n` values into `places`, in order, onto `out`.
fn inject(n: usize, places: std::ops::Range<u16>, so_far: &mut Vec<u16>, out: &mut Vec<Vec<u16>>) {
    if so_far.len() == n {
        out.push(so_far.clone());
        return;
    }
    for place in places.clone() {
        if !so_far.contains(&place) {
            so_far.push(place);
            inject(n, places.clone(), so_far, out);
            so_far.pop();
        }
    }
}

/// The next combination of orders of the runs (each run's members in
/// their next lexicographic order, the last run fastest); `false` after
/// the last.
fn next_order(orders: &mut [Vec<usize>], runs: &[Vec<(usize, usize)>]) -> bool {
    for (order, runs) in orders.iter_mut().zip(runs).rev() {
        for &(a, b) in runs.iter().rev() {
            if next_permutation(&mut order[a..b]) {
                return true;
            }
            // Wrapped round to its first order: carry to the run before.
        }
    }
    false
}

/// The next lexicographic order of `items`, or (at the last) the first
/// again and `false`.
fn next_permutation(items: &mut [usize]) -> bool {
    let n = items.len();
    let Some(i) = (1..n).rev().find(|&i| items[i - 1] < items[i]) else {
        items.reverse();
        return false;
    };
    let j = (i..n)
        .rev()
        .find(|&j| items[j] > items[i - 1])
        .expect("a larger element follows");
    items.swap(i - 1, j);
    items[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_of_every_run_comes_once() {
        // Two runs in one family, of 3 and 2: 3!·2! orders.
        let mut orders = vec![vec![0, 1, 2, 3, 4]];
        let runs = vec![vec![(0, 3), (3, 5)]];
        let mut seen = std::collections::BTreeSet::new();
        loop {
            assert!(seen.insert(orders[0].clone()), "{:?} twice", orders[0]);
            if !next_order(&mut orders, &runs) {
                break;
            }
        }
        assert_eq!(seen.len(), 12);
        assert_eq!(orders[0], vec![0, 1, 2, 3, 4], "back to the first");
    }

    #[test]
    fn the_next_permutation_runs_through_all_then_wraps() {
        let mut items = vec![2, 5, 7];
        let mut count = 1;
        while next_permutation(&mut items) {
            count += 1;
        }
        assert_eq!(count, 6);
        assert_eq!(items, vec![2, 5, 7]);
    }
}

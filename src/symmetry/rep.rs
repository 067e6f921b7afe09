//! The representative algorithm of Section 7: order the components of a
//! state (Definition 36), read an ordering of each distinguished type off
//! that order (Definition 38), and take the permutation that maps each
//! type onto its ordering (Definition 40).
//!
//! Component ordering refines an ordered partition of the components:
//! - **step 1**: by shape (control state and non-distinguished values;
//!   a distinguished value counts as less than any other);
//! - **step 2**: each cell split by the components' *n-values* —
//!   `n_{i,j,k}(s)`, how many components of cell `j` hold in variable `k`
//!   the value `s` holds in variable `i` — computed from buckets of
//!   variables by value (Section 7.5), repeated until nothing splits;
//! - **step 3**: the first cell with several components loses its first
//!   one to a cell of its own, and step 2 runs again.
//!
//! The algorithm reads a state as [`Input`] (shape ranks and variables),
//! so it is the same for a supercombinator's states and for tests that
//! write states down directly. A [`Workspace`] keeps every buffer from
//! state to state: after warm-up the plain path allocates nothing. Asked
//! for a [`Trace`], it also records every partition it built, each
//! n-value, each split (and whether the split cell was fully symmetric,
//! Definition 49) and the type orderings.

mod exact;

use std::cmp::Ordering;

pub use exact::{Leaf, Searched};

use super::matching::{Allowance, MatchOutcome, Matcher, Side};
use super::perm::Permutation;
use super::spec::Atom;

pub use super::input::Input;

/// A state as the algorithm reads it, owned (to hold two states at once).
#[derive(Debug, Clone, Default)]
pub struct OwnedInput {
    pub ranks: Vec<u32>,
    pub atoms: Vec<Atom>,
    pub bounds: Vec<u32>,
    pub exact: Vec<bool>,
    pub type_sizes: Vec<usize>,
}

impl OwnedInput {
    pub fn input(&self) -> Input<'_> {
        Input {
            ranks: &self.ranks,
            atoms: &self.atoms,
            bounds: &self.bounds,
            exact: &self.exact,
            type_sizes: &self.type_sizes,
        }
    }
}

/// One component's n-value, grouped by its variables: for variable `i`,
/// the counts `n_{i,j,k}` over each cell `j` and each variable `k` of
/// that cell of `i`'s type, in order (the paper writes the groups
/// separated by semicolons).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NValue {
    pub component: usize,
    pub groups: Vec<Vec<u32>>,
}

impl std::fmt::Display for NValue {
    /// As the paper prints it: `⟨0, 1, 1, 0; 3, 1; 0, 0, 1, 1⟩`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| g.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))
            .collect();
        write!(f, "⟨{}⟩", groups.join("; "))
    }
}

/// Where the entries of one group of a dense n-value come from: for a
/// variable of type `ty`, for each cell `j`, each variable `k` of that
/// cell's components with type `ty`, in order (`cells[j]` holds the
/// variables of any component of cell `j`: a cell's components share
/// their shape). The one definition of the layout [`NValue`] prints and
/// [`crate::explain::columns`] names.
pub fn n_value_entries<'a>(
    ty: usize,
    cells: &'a [&'a [Atom]],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    cells.iter().enumerate().flat_map(move |(j, atoms)| {
        atoms
            .iter()
            .enumerate()
            .filter(move |(_, a)| a.ty() == ty)
            .map(move |(k, _)| (j, k))
    })
}

/// What one step of the algorithm did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Step 1: the components by shape.
    Shapes { cells: Vec<Vec<usize>> },
    /// A round of step 2: every component's n-value against the cells
    /// before it, and the cells after (`split` when it refined them).
    Refine {
        n_values: Vec<NValue>,
        cells: Vec<Vec<usize>>,
        split: bool,
    },
    /// Step 3: cell `cell` (with its components `members`) lost
    /// `component`. `fully_symmetric` is Definition 49 for that cell —
    /// when true the choice cannot matter; `None` when it could not be
    /// decided (a state whose values hide in sets, or a search too big).
    Individualise {
        cell: usize,
        members: Vec<usize>,
        component: usize,
        /// Whether the component was chosen by hand
        /// ([`Workspace::choose`]) rather than taken first.
        by_hand: bool,
        fully_symmetric: Option<bool>,
        cells: Vec<Vec<usize>>,
    },
}

impl Step {
    /// The ordered partition the step left.
    pub fn cells(&self) -> &[Vec<usize>] {
        match self {
            Step::Shapes { cells }
            | Step::Refine { cells, .. }
            | Step::Individualise { cells, .. } => cells,
        }
    }
}

/// Everything the algorithm did for one state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    pub steps: Vec<Step>,
    /// The final order of the components.
    pub order: Vec<usize>,
    /// Per type: its values in the order read off the components, then
    /// those that appear nowhere (in their own order).
    pub type_orderings: Vec<Vec<Atom>>,
    /// Per type: how many of its ordering appeared in the state.
    pub appeared: Vec<usize>,
    pub permutation: Permutation,
}

impl Trace {
    /// Each split of step 3: the member it split off and the cell's
    /// members.
    pub fn split_offs(&self) -> Vec<(usize, &[usize])> {
        self.steps
            .iter()
            .filter_map(|s| match s {
                Step::Individualise {
                    component, members, ..
                } => Some((*component, members.as_slice())),
                _ => None,
            })
            .collect()
    }

    /// The final ordered partition: every component in a cell of its own,
    /// in the final order (empty for a state of no components).
    pub fn final_cells(&self) -> &[Vec<usize>] {
        self.steps.last().map_or(&[], Step::cells)
    }

    /// Whether every step-3 split was of a fully symmetric cell (one of
    /// the conditions of Proposition 50).
    pub fn splits_fully_symmetric(&self) -> bool {
        self.steps.iter().all(|s| match s {
            Step::Individualise {
                fully_symmetric, ..
            } => *fully_symmetric == Some(true),
            _ => true,
        })
    }
}

/// How many extensions the full-symmetry search may try per split before
/// it gives up (it runs only when a trace is asked for).
const SYMMETRY_SEARCH_BUDGET: u64 = 200_000;

/// Buffers reused from state to state.
#[derive(Debug, Default)]
pub struct Workspace {
    /// The components, cell after cell.
    order: Vec<u32>,
    /// Where each cell starts in `order` (and one past the last).
    starts: Vec<u32>,
    cell_of: Vec<u32>,
    /// `(value, variable)` for every variable, sorted by value.
    buckets: Vec<(u32, u32)>,
    /// Per variable (by its place in `Input::atoms`): its bucket.
    bucket_of: Vec<(u32, u32)>,
    /// The component owning each variable.
    owner: Vec<u32>,
    /// Per component: its sparse n-value, `(key, count)` pairs in
    /// `entries[nv[c].0..nv[c].1]`.
    nv: Vec<(u32, u32)>,
    entries: Vec<(u64, u32)>,
    keys: Vec<u64>,
    next_starts: Vec<u32>,
    seen: Vec<bool>,
    listed: Vec<Vec<u16>>,
    permutation: Option<Permutation>,
    /// The members step 3 splits off, split by split, in place of each
    /// cell's first (step 3 by hand); empty for the algorithm's own.
    choices: Vec<usize>,
}

impl Workspace {
    /// The permutation that maps `input` onto its representative, and
    /// with `trace`, everything that led to it.
    pub fn representative(&mut self, input: &Input, mut trace: Option<&mut Trace>) -> &Permutation {
        self.order_components(input, trace.as_deref_mut());
        self.generate_permutation(input, trace);
        self.permutation.as_ref().expect("just made")
    }

    /// Step 3 splits off `choices[k]` at its `k`-th split where that is
    /// a member of the cell it splits, its first member otherwise, until
    /// the choices are cleared (an empty list: the algorithm's own).
    pub fn choose(&mut self, choices: &[usize]) {
        self.choices.clear();
        self.choices.extend_from_slice(choices);
    }

    /// The permutation last made.
    pub fn permutation(&self) -> &Permutation {
        self.permutation
            .as_ref()
            .expect("a representative was computed")
    }

    /// The permutation last made, lent out (give it back with
    /// [`Workspace::restore_permutation`], so its arrays are reused).
    pub fn take_permutation(&mut self) -> Permutation {
        self.permutation
            .take()
            .expect("a representative was computed")
    }

    pub fn restore_permutation(&mut self, perm: Permutation) -> &Permutation {
        self.permutation.insert(perm)
    }

    /// Steps 1–3: leaves the final order in `self.order`.
    fn order_components(&mut self, input: &Input, mut trace: Option<&mut Trace>) {
        self.shapes_first(input);
        if let Some(trace) = trace.as_deref_mut() {
            trace.steps.push(Step::Shapes {
                cells: self.cells(),
            });
        }
        let mut splits = 0;
        loop {
            // Step 2, until a round splits nothing.
            loop {
                let split = self.refine(input, trace.as_deref_mut());
                if !split {
                    break;
                }
            }
            // Step 3.
            let Some(cell) = self.first_wide_cell() else {
                return;
            };
            let by_hand = self.choices.get(splits).is_some();
            if let Some(&chosen) = self.choices.get(splits) {
                let range = self.starts[cell] as usize..self.starts[cell + 1] as usize;
                let cell_order = &mut self.order[range];
                if let Some(at) = cell_order.iter().position(|&c| c as usize == chosen) {
                    // The chosen member first, the others in their order.
                    cell_order[..=at].rotate_right(1);
                }
            }
            splits += 1;
            let members = if trace.is_some() {
                self.members(cell)
            } else {
                Vec::new()
            };
            let fully_symmetric = trace
                .is_some()
                .then(|| self.fully_symmetric(input, cell))
                .flatten();
            let start = self.starts[cell];
            self.starts.insert(cell + 1, start + 1);
            self.index_cells();
            if let Some(trace) = trace.as_deref_mut() {
                trace.steps.push(Step::Individualise {
                    cell,
                    members,
                    component: self.order[start as usize] as usize,
                    by_hand,
                    fully_symmetric,
                    cells: self.cells(),
                });
            }
        }
    }

    /// The first cell with several components, which step 3 splits.
    fn first_wide_cell(&self) -> Option<usize> {
        (0..self.starts.len() - 1).find(|&j| self.starts[j + 1] - self.starts[j] > 1)
    }

    /// Step 1: the components by shape rank (ties by component, for a
    /// fixed order), the variables bucketed.
    fn shapes_first(&mut self, input: &Input) {
        let n = input.components();
        self.prepare(input);
        self.order.clear();
        self.order.extend(0..n as u32);
        self.order
            .sort_unstable_by_key(|&c| (input.ranks[c as usize], c));
        self.starts.clear();
        for (i, &c) in self.order.iter().enumerate() {
            if i == 0 || input.ranks[c as usize] != input.ranks[self.order[i - 1] as usize] {
                self.starts.push(i as u32);
            }
        }
        self.starts.push(n as u32);
        self.index_cells();
    }

    /// Buckets every variable by its value (Section 7.5).
    fn prepare(&mut self, input: &Input) {
        let vars = input.atoms.len();
        self.owner.clear();
        for c in 0..input.components() {
            let (from, to) = (input.bounds[c], input.bounds[c + 1]);
            self.owner.extend((from..to).map(|_| c as u32));
        }
        self.buckets.clear();
        self.buckets.extend(
            input
                .atoms
                .iter()
                .enumerate()
                .map(|(v, a)| (a.raw(), v as u32)),
        );
        self.buckets.sort_unstable();
        self.bucket_of.clear();
        self.bucket_of.resize(vars, (0, 0));
        let mut start = 0;
        while start < self.buckets.len() {
            let value = self.buckets[start].0;
            let end = start
                + self.buckets[start..]
                    .iter()
                    .take_while(|b| b.0 == value)
                    .count();
            for b in start..end {
                self.bucket_of[self.buckets[b].1 as usize] = (start as u32, end as u32);
            }
            start = end;
        }
        self.cell_of.clear();
        self.cell_of.resize(input.components(), 0);
        self.nv.clear();
        self.nv.resize(input.components(), (0, 0));
    }

    fn index_cells(&mut self) {
        for j in 0..self.starts.len() - 1 {
            for i in self.starts[j]..self.starts[j + 1] {
                self.cell_of[self.order[i as usize] as usize] = j as u32;
            }
        }
    }

    fn members(&self, cell: usize) -> Vec<usize> {
        self.order[self.starts[cell] as usize..self.starts[cell + 1] as usize]
            .iter()
            .map(|&c| c as usize)
            .collect()
    }

    fn cells(&self) -> Vec<Vec<usize>> {
        (0..self.starts.len() - 1)
            .map(|j| self.members(j))
            .collect()
    }

    /// One round of step 2; whether it split a cell.
    fn refine(&mut self, input: &Input, trace: Option<&mut Trace>) -> bool {
        let cells = self.starts.len() - 1;
        self.entries.clear();
        for j in 0..cells {
            let (from, to) = (self.starts[j] as usize, self.starts[j + 1] as usize);
            // A component alone in its cell cannot be split: its n-value
            // is needed only to show it.
            if to - from == 1 && trace.is_none() {
                continue;
            }
            for at in from..to {
                let c = self.order[at] as usize;
                self.n_value(input, c);
            }
        }
        let n_values = trace.is_some().then(|| self.dense_n_values(input));
        self.next_starts.clear();
        for j in 0..cells {
            let (from, to) = (self.starts[j] as usize, self.starts[j + 1] as usize);
            self.next_starts.push(from as u32);
            if to - from == 1 {
                continue;
            }
            let (nv, entries) = (&self.nv, &self.entries);
            let value = |c: u32| {
                let (a, b) = nv[c as usize];
                &entries[a as usize..b as usize]
            };
            self.order[from..to].sort_by(|&a, &b| compare_n_values(value(a), value(b)));
            for at in from + 1..to {
                if compare_n_values(value(self.order[at - 1]), value(self.order[at]))
                    != Ordering::Equal
                {
                    self.next_starts.push(at as u32);
                }
            }
        }
        self.next_starts.push(self.order.len() as u32);
        let split = self.next_starts.len() != self.starts.len();
        std::mem::swap(&mut self.starts, &mut self.next_starts);
        if split {
            self.index_cells();
        }
        if let Some(trace) = trace {
            trace.steps.push(Step::Refine {
                n_values: n_values.expect("computed for the trace"),
                cells: self.cells(),
                split,
            });
        }
        split
    }

    /// Component `c`'s sparse n-value against the current cells:
    /// `(i, j, k)` packed in a key, with its count, keys ascending.
    fn n_value(&mut self, input: &Input, c: usize) {
        self.keys.clear();
        let from = input.bounds[c] as usize;
        for v in from..input.bounds[c + 1] as usize {
            let i = (v - from) as u64;
            let (a, b) = self.bucket_of[v];
            for &(_, other) in &self.buckets[a as usize..b as usize] {
                let owner = self.owner[other as usize] as usize;
                let k = (other - input.bounds[owner]) as u64;
                let j = self.cell_of[owner] as u64;
                self.keys.push((i << 48) | (j << 24) | k);
            }
        }
        self.keys.sort_unstable();
        let start = self.entries.len();
        for &key in &self.keys {
            let len = self.entries.len();
            match self.entries.last_mut() {
                Some((last, count)) if *last == key && len > start => *count += 1,
                _ => self.entries.push((key, 1)),
            }
        }
        self.nv[c] = (start as u32, self.entries.len() as u32);
    }

    /// Every component's n-value laid out in full, as the paper prints
    /// them.
    fn dense_n_values(&self, input: &Input) -> Vec<NValue> {
        let cells: Vec<&[Atom]> = (0..self.starts.len() - 1)
            .map(|j| input.atoms_of(self.order[self.starts[j] as usize] as usize))
            .collect();
        self.order
            .iter()
            .map(|&c| {
                let c = c as usize;
                let (a, b) = self.nv[c];
                let sparse = &self.entries[a as usize..b as usize];
                let groups = input
                    .atoms_of(c)
                    .iter()
                    .enumerate()
                    .map(|(i, atom)| {
                        n_value_entries(atom.ty(), &cells)
                            .map(|(j, k)| {
                                let key = ((i as u64) << 48) | ((j as u64) << 24) | k as u64;
                                sparse.iter().find(|e| e.0 == key).map_or(0, |e| e.1)
                            })
                            .collect()
                    })
                    .collect();
                NValue {
                    component: c,
                    groups,
                }
            })
            .collect()
    }

    /// Definitions 38 and 40: each type's values in the order they first
    /// appear in the ordered components, then the rest; the permutation
    /// maps the k-th of that ordering to the type's k-th value.
    fn generate_permutation(&mut self, input: &Input, trace: Option<&mut Trace>) {
        let types = input.type_sizes.len();
        self.listed.resize_with(types, Vec::new);
        self.seen.clear();
        let offsets: usize = input.type_sizes.iter().sum();
        self.seen.resize(offsets, false);
        let base = |t: usize| input.type_sizes[..t].iter().sum::<usize>();
        for list in &mut self.listed {
            list.clear();
        }
        for &c in &self.order {
            for atom in input.atoms_of(c as usize) {
                let at = base(atom.ty()) + atom.index();
                if !self.seen[at] {
                    self.seen[at] = true;
                    self.listed[atom.ty()].push(atom.index() as u16);
                }
            }
        }
        // How many values appeared, for the trace only (the plain path
        // allocates nothing).
        let appeared: Option<Vec<usize>> = trace
            .is_some()
            .then(|| self.listed.iter().map(Vec::len).collect());
        for (t, &size) in input.type_sizes.iter().enumerate() {
            let b = base(t);
            for i in 0..size {
                if !self.seen[b + i] {
                    self.listed[t].push(i as u16);
                }
            }
        }
        let maps: Vec<Vec<u16>> = match self.permutation.take() {
            Some(p) => p.into_maps(),
            None => Vec::new(),
        };
        let mut maps = maps;
        maps.resize_with(types, Vec::new);
        for (t, listed) in self.listed.iter().enumerate() {
            let map = &mut maps[t];
            map.clear();
            map.resize(listed.len(), 0);
            for (k, &value) in listed.iter().enumerate() {
                map[value as usize] = k as u16;
            }
        }
        let permutation = Permutation::from_images(maps);
        if let Some(trace) = trace {
            trace.order = self.order.iter().map(|&c| c as usize).collect();
            trace.type_orderings = self
                .listed
                .iter()
                .enumerate()
                .map(|(t, l)| l.iter().map(|&i| Atom::new(t, i as usize)).collect())
                .collect();
            trace.appeared = appeared.expect("counted for the trace");
            trace.permutation = permutation.clone();
        }
        self.permutation = Some(permutation);
    }

    /// Definition 49 for cell `cell`: whether for its first component `s`
    /// and every other `s'` some permutation maps `s` to `s'` and every
    /// cell onto itself — the state matched with itself cell by cell
    /// ([`super::matching`]), `s` paired with `s'` first.
    fn fully_symmetric(&self, input: &Input, cell: usize) -> Option<bool> {
        if input.exact.iter().any(|e| !e) {
            return None;
        }
        let cells = self.cells();
        let members = &cells[cell];
        let allowance = Allowance::new(SYMMETRY_SEARCH_BUDGET);
        let side = Side {
            input,
            cells: &cells,
        };
        for &target in &members[1..] {
            let mut matcher = Matcher::new(side, side, &allowance);
            if matcher.pair(members[0], target).is_none() {
                return Some(false);
            }
            match matcher.search(&mut |_| MatchOutcome::Found) {
                MatchOutcome::Found => {}
                MatchOutcome::Exhausted => return Some(false),
                MatchOutcome::OutOfBudget => return None,
            }
        }
        Some(true)
    }
}

/// The order of n-values (lexicographic on the full vectors) read off
/// their sparse forms: at the first key where they differ, the one with
/// a count there is the larger.
fn compare_n_values(a: &[(u64, u32)], b: &[(u64, u32)]) -> Ordering {
    for i in 0.. {
        match (a.get(i), b.get(i)) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(&(ka, ca)), Some(&(kb, cb))) => {
                if ka != kb {
                    return if ka < kb {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    };
                }
                if ca != cb {
                    return ca.cmp(&cb);
                }
            }
        }
    }
    unreachable!("the loop returns")
}

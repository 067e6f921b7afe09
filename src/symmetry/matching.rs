//! Matching the components of two states cell by cell under one
//! consistent map of values: the exact search behind full symmetry
//! (Definition 49: a state matched with itself, every cell onto itself)
//! and behind comparing two states ([`crate::explain::compare`]).
//!
//! Components are paired only within corresponding cells of the two
//! ordered partitions, only with a component of the same shape (between
//! exact states; the shape of a state with values in a map depends on
//! them, so there only exactness must agree), and
//! only when the values of their distinguished variables map onto each
//! other consistently with every pair made so far (a partial
//! permutation, injective both ways). The search always extends the
//! pairing at the component with the fewest possible partners, so a
//! forced pair (a singleton cell, a `next` already mapped) is made
//! before any choice, and a dead end is found at once. Every partner
//! considered or tried takes one unit of an [`Allowance`]; when it runs
//! out the search says so rather than going on.

use std::cell::Cell;

use rustc_hash::FxHashMap;

use super::input::Input;
use super::spec::Atom;

/// How many candidates (partners tried, whole permutations checked) a
/// search may spend, shared by every search of one question.
#[derive(Debug)]
pub struct Allowance {
    remaining: Cell<u64>,
    spent: Cell<u64>,
}

impl Allowance {
    pub fn new(candidates: u64) -> Allowance {
        Allowance {
            remaining: Cell::new(candidates),
            spent: Cell::new(0),
        }
    }

    /// Takes one candidate; `false` when none is left.
    pub fn take(&self) -> bool {
        let left = self.remaining.get();
        if left == 0 {
            return false;
        }
        self.remaining.set(left - 1);
        self.spent.set(self.spent.get() + 1);
        true
    }

    /// How many candidates were taken so far.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }
}

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOutcome {
    /// A complete pairing was accepted.
    Found,
    /// Every pairing was tried (or rejected).
    Exhausted,
    /// The allowance ran out first.
    OutOfBudget,
}

/// One side of a match: a state as the algorithm reads it, and its
/// ordered partition.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub input: &'a Input<'a>,
    pub cells: &'a [Vec<usize>],
}

/// A partial pairing of left components with right ones and the map of
/// values it implies.
pub struct Matcher<'a> {
    left: Side<'a>,
    right: Side<'a>,
    /// Per left component: its cell.
    left_cell: Vec<usize>,
    forward: FxHashMap<Atom, Atom>,
    backward: FxHashMap<Atom, Atom>,
    /// Per left component: its partner, if paired.
    partner: Vec<Option<usize>>,
    /// Per right component: whether it is paired.
    taken: Vec<bool>,
    allowance: &'a Allowance,
}

impl<'a> Matcher<'a> {
    /// An empty pairing. The partitions must have the same number of
    /// cells, corresponding cells the same size.
    pub fn new(left: Side<'a>, right: Side<'a>, allowance: &'a Allowance) -> Matcher<'a> {
        let mut left_cell = vec![0; left.input.components()];
        for (j, cell) in left.cells.iter().enumerate() {
            for &c in cell {
                left_cell[c] = j;
            }
        }
        Matcher {
            left,
            right,
            left_cell,
            forward: FxHashMap::default(),
            backward: FxHashMap::default(),
            partner: vec![None; left.input.components()],
            taken: vec![false; right.input.components()],
            allowance,
        }
    }

    /// The map of values the pairing implies (left value to right value).
    pub fn values(&self) -> &FxHashMap<Atom, Atom> {
        &self.forward
    }

    /// Pairs left component `from` with right component `to`, extending
    /// the map of values: the values it added, or `None` (nothing
    /// changed) when their shapes differ or their values cannot map.
    pub fn pair(&mut self, from: usize, to: usize) -> Option<Vec<Atom>> {
        let (l, r) = (self.left.input, self.right.input);
        let (a, b) = (l.atoms_of(from), r.atoms_of(to));
        // Shapes are compared only between exact states: the shape of a
        // state with values in a map depends on those values.
        let shaped = |input: &Input, c: usize| input.exact[c].then_some(input.ranks[c]);
        if a.len() != b.len() || shaped(l, from) != shaped(r, to) {
            return None;
        }
        let mut added = Vec::new();
        for (&x, &y) in a.iter().zip(b) {
            match (self.forward.get(&x), self.backward.get(&y)) {
                (Some(&image), _) if image == y => {}
                (None, None) if x.ty() == y.ty() => {
                    self.forward.insert(x, y);
                    self.backward.insert(y, x);
                    added.push(x);
                }
                _ => {
                    self.forget(&added);
                    return None;
                }
            }
        }
        self.partner[from] = Some(to);
        self.taken[to] = true;
        Some(added)
    }

    fn unpair(&mut self, from: usize, to: usize, added: &[Atom]) {
        self.partner[from] = None;
        self.taken[to] = false;
        self.forget(added);
    }

    fn forget(&mut self, added: &[Atom]) {
        for x in added {
            if let Some(y) = self.forward.remove(x) {
                self.backward.remove(&y);
            }
        }
    }

    /// Extends the pairing to every component, calling `accept` on each
    /// complete pairing until it answers [`MatchOutcome::Found`] (the pairing
    /// is then left in place) or [`MatchOutcome::OutOfBudget`].
    pub fn search(&mut self, accept: &mut dyn FnMut(&Matcher) -> MatchOutcome) -> MatchOutcome {
        let (from, partners) = match self.most_constrained() {
            Ok(Some(next)) => next,
            Ok(None) => return accept(self),
            Err(()) => return MatchOutcome::OutOfBudget,
        };
        for to in partners {
            if !self.allowance.take() {
                return MatchOutcome::OutOfBudget;
            }
            if let Some(added) = self.pair(from, to) {
                match self.search(accept) {
                    MatchOutcome::Exhausted => self.unpair(from, to, &added),
                    done => return done,
                }
            }
        }
        MatchOutcome::Exhausted
    }

    /// The unpaired left component with the fewest possible partners,
    /// and those partners; `None` when every component is paired. Each
    /// partner considered takes a candidate (`Err` when none is left),
    /// so choosing is bounded by the allowance too.
    fn most_constrained(&mut self) -> Result<Option<(usize, Vec<usize>)>, ()> {
        let mut best: Option<(usize, Vec<usize>)> = None;
        let right_cells = self.right.cells;
        for from in 0..self.partner.len() {
            if self.partner[from].is_some() {
                continue;
            }
            let mut partners = Vec::new();
            let cell = right_cells
                .get(self.left_cell[from])
                .map_or(&[][..], Vec::as_slice);
            for &to in cell {
                if self.taken[to] {
                    continue;
                }
                if !self.allowance.take() {
                    return Err(());
                }
                if let Some(added) = self.pair(from, to) {
                    self.unpair(from, to, &added);
                    partners.push(to);
                }
            }
            let fewer = best.as_ref().is_none_or(|(_, b)| partners.len() < b.len());
            if fewer {
                let forced = partners.len() <= 1;
                best = Some((from, partners));
                if forced {
                    break;
                }
            }
        }
        Ok(best)
    }
}

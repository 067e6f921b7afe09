//! A state as the representative algorithm reads it (borrowed): each
//! component's shape rank and distinguished values. Read by the
//! algorithm (`rep.rs`) and by its matcher (`matching.rs`).

use super::spec::Atom;

/// A state as the algorithm reads it.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Per component: the rank of its shape (equal shapes, equal ranks;
    /// step 1 orders cells by rank).
    pub ranks: &'a [u32],
    /// Every component's distinguished variables, one after another.
    pub atoms: &'a [Atom],
    /// Component `c`'s variables are `atoms[bounds[c]..bounds[c + 1]]`.
    pub bounds: &'a [u32],
    /// Per component: whether its shape and variables determine it
    /// (otherwise full symmetry cannot be decided).
    pub exact: &'a [bool],
    /// The number of values of each distinguished type.
    pub type_sizes: &'a [usize],
}

impl Input<'_> {
    pub fn components(&self) -> usize {
        self.ranks.len()
    }

    /// Whether every component's variables determine it: no value of
    /// the state is hidden in a set, a map or a function.
    pub fn reads_every_value(&self) -> bool {
        self.exact.iter().all(|&exact| exact)
    }

    pub fn atoms_of(&self, c: usize) -> &[Atom] {
        &self.atoms[self.bounds[c] as usize..self.bounds[c + 1] as usize]
    }
}

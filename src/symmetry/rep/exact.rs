//! The exact search: individualisation–refinement over the algorithm's
//! own partitions, as graph canonical labelling does it. Steps 1–2
//! refine; where step 3 would split off a cell's first member, every
//! member is tried in turn, down to each discrete partition (a *leaf*),
//! and the caller keeps the least image any leaf's permutation gives.
//! Refinement is equivariant (it reads shapes and n-values, which a
//! symmetry preserves), so two states of one symmetry class have the
//! same leaves' images and get the same least one: one representative
//! per orbit, always. A leaf places only the values the algorithm reads;
//! where a state holds others (in a set, a map, a function), the caller
//! tries every placement of those at each leaf (up to 8! of them).
//!
//! Pruned by the automorphisms found on the way (two leaves with the
//! same image): a member that an automorphism fixing the path so far
//! maps onto one already tried is skipped, and a leaf that repeats the
//! first leaf's image ends the subtree it is in, back to where its path
//! left the first leaf's (its whole subtree is the image of one tried).

use rustc_hash::FxHashMap;

use super::super::perm::Permutation;
use super::{Input, Workspace};

/// What the caller found a leaf's image to be.
pub enum Leaf {
    /// Less than the least so far (or the first leaf).
    Better,
    /// Greater than the least so far.
    Worse,
    /// The same as an earlier leaf's: the automorphism their two
    /// permutations make, as a map of components (`map[i]`: where
    /// component `i` goes). `first` when that leaf was the first.
    Same { automorphism: Vec<u32>, first: bool },
    /// The budget ends the search.
    Stop,
}

/// How the exact search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Searched {
    /// Every leaf that matters was seen: how many.
    Done { leaves: u64 },
    /// The caller stopped it.
    Stopped,
}

/// The search's bookkeeping.
struct ExactSearch {
    leaves: u64,
    /// The individualisation path of the first leaf.
    first_path: Option<Vec<u32>>,
    automorphisms: Vec<Vec<u32>>,
}

/// How a subtree's search ended.
enum Flow {
    Continue,
    /// Back to the node at this depth (the path's length there), which
    /// goes on with its next member.
    BackTo(usize),
    Stop,
}

impl Workspace {
    /// Runs the exact search on `input`, calling `leaf` with each leaf's
    /// permutation (the caller compares the image it gives).
    pub fn exact(&mut self, input: &Input, leaf: &mut dyn FnMut(&Permutation) -> Leaf) -> Searched {
        self.shapes_first(input);
        let mut search = ExactSearch {
            leaves: 0,
            first_path: None,
            automorphisms: Vec::new(),
        };
        let mut path = Vec::new();
        match self.node(input, &mut path, &mut search, leaf) {
            Flow::Stop => Searched::Stopped,
            Flow::Continue | Flow::BackTo(_) => Searched::Done {
                leaves: search.leaves,
            },
        }
    }

    fn node(
        &mut self,
        input: &Input,
        path: &mut Vec<u32>,
        search: &mut ExactSearch,
        leaf: &mut dyn FnMut(&Permutation) -> Leaf,
    ) -> Flow {
        while self.refine(input, None) {}
        let Some(cell) = self.first_wide_cell() else {
            search.leaves += 1;
            self.generate_permutation(input, None);
            let perm = self.permutation.as_ref().expect("just made");
            return match leaf(perm) {
                Leaf::Stop => Flow::Stop,
                Leaf::Better | Leaf::Worse => {
                    if search.first_path.is_none() {
                        search.first_path = Some(path.clone());
                    }
                    Flow::Continue
                }
                Leaf::Same {
                    automorphism,
                    first,
                } => {
                    // Its subtree, from where its path left the first
                    // leaf's, is the automorphism's image of one tried.
                    let back = first
                        .then_some(search.first_path.as_ref())
                        .flatten()
                        .filter(|first_path| {
                            maps_path(&automorphism, first_path, path)
                                || maps_path(&automorphism, path, first_path)
                        })
                        .map(|first_path| common_prefix(first_path, path));
                    search.automorphisms.push(automorphism);
                    match back {
                        Some(depth) => Flow::BackTo(depth),
                        None => Flow::Continue,
                    }
                }
            };
        };
        let (from, to) = (self.starts[cell] as usize, self.starts[cell + 1] as usize);
        let mut members: Vec<u32> = self.order[from..to].to_vec();
        // Components holding no distinguished value (a `STOP` beside
        // others) count in nobody's n-value and move no value: whichever
        // is split off, the permutations below are the same. One branch.
        if members
            .iter()
            .all(|&c| input.atoms_of(c as usize).is_empty())
        {
            members.truncate(1);
        }
        let saved = (self.order.clone(), self.starts.clone());
        let mut tried: Vec<u32> = Vec::new();
        for &m in &members {
            if equivalent(&search.automorphisms, path, m, &tried) {
                continue;
            }
            self.order.clone_from(&saved.0);
            self.starts.clone_from(&saved.1);
            let at = from
                + self.order[from..to]
                    .iter()
                    .position(|&c| c == m)
                    .expect("a member of the cell");
            self.order[from..=at].rotate_right(1);
            self.starts.insert(cell + 1, from as u32 + 1);
            self.index_cells();
            path.push(m);
            let flow = self.node(input, path, search, leaf);
            path.pop();
            tried.push(m);
            match flow {
                Flow::Continue => {}
                Flow::BackTo(depth) if depth == path.len() => {}
                Flow::BackTo(depth) => {
                    self.restore(saved);
                    return Flow::BackTo(depth);
                }
                Flow::Stop => {
                    self.restore(saved);
                    return Flow::Stop;
                }
            }
        }
        self.restore(saved);
        Flow::Continue
    }

    fn restore(&mut self, (order, starts): (Vec<u32>, Vec<u32>)) {
        self.order = order;
        self.starts = starts;
        self.index_cells();
    }
}

/// Whether `automorphism` maps each component of `from` to the one at
/// the same place in `to`.
fn maps_path(automorphism: &[u32], from: &[u32], to: &[u32]) -> bool {
    from.len() == to.len()
        && from
            .iter()
            .zip(to)
            .all(|(&a, &b)| automorphism[a as usize] == b)
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Whether member `m` is in the orbit of a member `tried` already under
/// the automorphisms that fix every component of `path`: the subtrees
/// below them are images of each other.
fn equivalent(automorphisms: &[Vec<u32>], path: &[u32], m: u32, tried: &[u32]) -> bool {
    if tried.is_empty() {
        return false;
    }
    let fixing: Vec<&Vec<u32>> = automorphisms
        .iter()
        .filter(|a| path.iter().all(|&p| a[p as usize] == p))
        .collect();
    if fixing.is_empty() {
        return false;
    }
    // The orbit of `m` under the group they generate.
    let mut orbit: FxHashMap<u32, ()> = FxHashMap::default();
    orbit.insert(m, ());
    let mut frontier = vec![m];
    while let Some(c) = frontier.pop() {
        for a in &fixing {
            let image = a[c as usize];
            if orbit.insert(image, ()).is_none() {
                if tried.contains(&image) {
                    return true;
                }
                frontier.push(image);
            }
        }
    }
    false
}

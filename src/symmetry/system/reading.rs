//! System states read as the representative algorithm's input: ranks
//! of shapes, distinguished values and exactness per component, and
//! what that input shows (the values that matter, identities).

use rustc_hash::FxHashMap;

use crate::lts::machine::Machine;
use crate::process::{ProcId, Processes};

use super::super::label::{Reading, key_of};
use super::super::rep::OwnedInput;
use super::super::spec::Atom;
use super::{Image, SystemSymmetry};

impl SystemSymmetry {
    /// The key of component `slot`'s local state `local` into `key`: its
    /// shape, then its distinguished values ([`key_of`]); and whether the
    /// state is exact, so that the key names it alone.
    pub fn local_key(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        slot: usize,
        local: u32,
        key: &mut Vec<u32>,
    ) -> bool {
        let table = machine.table_of(slot);
        self.sync_labels(machine, procs, table);
        let labels = &self.labels[table];
        let label = labels.label(local);
        key_of(label.shape, labels.atoms(local).iter().copied(), key);
        label.exact
    }

    /// The local state of component `slot` whose exact key is `key`, if
    /// the machine has made it.
    pub fn find_local(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        slot: usize,
        key: &[u32],
    ) -> Option<u32> {
        let table = machine.table_of(slot);
        self.sync_labels(machine, procs, table);
        self.labels[table].find(key)
    }

    /// Reads `row`'s components into the algorithm's input buffers.
    pub(super) fn read_state(&mut self, machine: &Machine, procs: &mut Processes, row: &[u32]) {
        self.ranks.clear();
        self.atoms.clear();
        self.bounds.clear();
        self.exact.clear();
        self.bounds.push(0);
        for (slot, &local) in row.iter().enumerate() {
            let table = machine.table_of(slot);
            self.sync_labels(machine, procs, table);
            let label = self.labels[table].label(local);
            let (shape, exact) = (label.shape, label.exact);
            // A new shape may move the ranks of those before it: ranks
            // are read once every shape is known.
            self.shapes.rank(procs, &self.symmetry, shape);
            self.ranks.push(shape.0);
            self.atoms
                .extend_from_slice(self.labels[table].atoms(local));
            self.bounds.push(self.atoms.len() as u32);
            self.exact.push(exact);
        }
        for rank in &mut self.ranks {
            *rank = self.shapes.known_rank(ProcId(*rank));
        }
    }

    /// Every distinguished value the last state read holds, when its
    /// components are all exact (so it holds no other); `None` when a
    /// value may hide in a set, a map or a function.
    pub fn held_atoms(&self) -> Option<&[Atom]> {
        self.exact
            .iter()
            .all(|&e| e)
            .then_some(self.atoms.as_slice())
    }

    /// `rows` as the algorithm reads them, with ranks that compare
    /// across them (every row's shapes are met before any rank is read).
    pub fn read_inputs(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        rows: &[&[u32]],
    ) -> Vec<OwnedInput> {
        for row in rows {
            self.read_state(machine, procs, row);
        }
        rows.iter()
            .map(|row| {
                self.read_state(machine, procs, row);
                OwnedInput {
                    ranks: self.ranks.clone(),
                    atoms: self.atoms.clone(),
                    bounds: self.bounds.clone(),
                    exact: self.exact.clone(),
                    type_sizes: self.type_sizes.clone(),
                }
            })
            .collect()
    }

    /// Every value a permutation's image of `row` depends on: the values
    /// its component states hold (read or hidden in sets) and those of
    /// the components' initial states, by which α places each image.
    /// Where a permutation sends any other value cannot change `π(row)`.
    pub fn values_that_matter(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Vec<Atom> {
        let mut out = Vec::new();
        for (slot, &local) in row.iter().enumerate() {
            let table = machine.table_of(slot);
            self.sync_labels(machine, procs, table);
            let labels = &self.labels[table];
            for state in [local, machine.initial()[slot]] {
                if labels.label(state).exact {
                    out.extend_from_slice(labels.atoms(state));
                } else {
                    out.extend_from_slice(labels.support(state));
                }
            }
            out.extend_from_slice(&self.components[slot].initial_atoms);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The input the algorithm read for the last state (for showing it).
    pub fn input_atoms(&self, component: usize) -> &[Atom] {
        &self.atoms[self.bounds[component] as usize..self.bounds[component + 1] as usize]
    }

    /// Whether the algorithm read every distinguished value of the state
    /// read last: Proposition 50 assumes it (a value in a set, a map or a
    /// function takes an image the algorithm did not choose by the
    /// state, so two states of one class may keep different ones).
    pub fn reads_every_value(&self) -> bool {
        self.exact.iter().all(|&exact| exact)
    }

    /// Proposition 50's other condition for `row`: every symmetric set
    /// with several components has an identity variable each of its
    /// components still holds, at a place shared by those of one shape.
    pub fn unique_identities(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> bool {
        self.identity_places(machine, procs, row).1
    }

    /// Definition 46 read on `row`: per component, the place among its
    /// distinguished variables of its *identity* — the first variable
    /// holding the identity it started with, at a place every component
    /// of its symmetric set and shape shares (`None` for a component
    /// alone in its symmetric set, or one whose set has no identities
    /// here); and whether every symmetric set with several components
    /// has them.
    pub fn identity_places(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> (Vec<Option<usize>>, bool) {
        self.read_state(machine, procs, row);
        let mut places = vec![None; row.len()];
        let mut unique = true;
        for members in self.orbits.iter().filter(|m| m.len() > 1) {
            let Image::Identity { position, .. } = self.components[members[0]].image else {
                unique = false;
                continue;
            };
            // Per shape: the places where every member of that shape
            // holds its identity.
            let mut by_shape: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
            for &m in members {
                let id = self.components[m].initial_atoms[position];
                let atoms = &self.atoms[self.bounds[m] as usize..self.bounds[m + 1] as usize];
                let held: Vec<usize> = (0..atoms.len()).filter(|&k| atoms[k] == id).collect();
                by_shape
                    .entry(self.ranks[m])
                    .or_insert_with(|| held.clone())
                    .retain(|k| held.contains(k));
            }
            for &m in members {
                places[m] = by_shape[&self.ranks[m]].first().copied();
                unique &= places[m].is_some();
            }
        }
        (places, unique)
    }

    /// Walks component `slot`'s state `local` as the algorithm reads it
    /// (see [`Labeller::read`](super::super::label::Labeller::read)); whether it is exact.
    pub(crate) fn read_component<R: Reading>(
        &mut self,
        machine: &Machine,
        procs: &Processes,
        slot: usize,
        local: u32,
        reading: &mut R,
    ) -> bool {
        let p = machine.process_state(slot, local);
        self.labeller
            .read(procs, &self.symmetry, &self.movable, p, reading)
    }
}

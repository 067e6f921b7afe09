//! Permutations applied to a system: the component bijection α_π, a
//! component's local state and an event permuted, and a whole system
//! state permuted (Proposition 35).

use crate::lts::machine::Machine;
use crate::process::{EventId, Processes};

use super::super::apply::{Permute, map_state, permute_event};
use super::super::label::key_of;
use super::super::perm::Permutation;
use super::{Image, SystemSymmetry};

impl SystemSymmetry {
    /// α_π: the component each component's state goes to under `perm`.
    pub fn alpha(&mut self, procs: &mut Processes, perm: &Permutation) -> Vec<usize> {
        self.compute_alpha(procs, perm);
        self.alpha.iter().map(|&j| j as usize).collect()
    }

    pub(super) fn compute_alpha(&mut self, procs: &mut Processes, perm: &Permutation) {
        self.alpha.clear();
        for (i, c) in self.components.iter().enumerate() {
            let j = match c.image {
                Image::Fixed => i,
                Image::Identity { orbit, position } => {
                    let image = perm.apply(c.initial_atoms[position]);
                    self.by_identity[orbit][image.index()] as usize
                }
                Image::ByLabel if c.initial_exact => {
                    key_of(
                        c.initial_shape,
                        c.initial_atoms.iter().map(|&a| perm.apply(a)),
                        &mut self.key,
                    );
                    self.by_label[self.key.as_slice()][c.inst]
                }
                Image::ByLabel => {
                    let image = map_state(
                        procs,
                        c.initial,
                        &mut Permute::new(&self.symmetry, perm, &self.movable),
                    );
                    self.components
                        .iter()
                        .position(|d| d.initial == image && d.inst == c.inst)
                        .expect("mappability was checked for the generators")
                }
            };
            self.alpha.push(j as u32);
        }
    }

    /// The image of component `slot`'s local state `local` under `perm`
    /// (a local state of the same table, added if new).
    fn permute_local(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        slot: usize,
        local: u32,
        perm: &Permutation,
    ) -> u32 {
        let table = machine.table_of(slot);
        self.sync_labels(machine, procs, table);
        let labels = &self.labels[table];
        let exact = labels.label(local).exact;
        if exact {
            key_of(
                labels.label(local).shape,
                labels.atoms(local).iter().map(|&a| perm.apply(a)),
                &mut self.key,
            );
            if let Some(image) = labels.find(&self.key) {
                return image;
            }
        } else {
            self.key.clear();
            self.key.push(local);
            self.key
                .extend(labels.support(local).iter().map(|&a| perm.apply(a).raw()));
            if let Some(image) = labels.remembered(&self.key) {
                return image;
            }
        }
        // Permuted as a term, once.
        let p = machine.table_state(table, local);
        let image = map_state(
            procs,
            p,
            &mut Permute::new(&self.symmetry, perm, &self.movable),
        );
        let image = machine.local_of(slot, image);
        self.sync_labels(machine, procs, table);
        if !exact {
            self.labels[table].remember(&self.key, image);
        }
        image
    }

    /// The image of event `e` under `perm`.
    pub fn permute_event(&self, procs: &Processes, perm: &Permutation, e: EventId) -> EventId {
        permute_event(&self.symmetry, perm, procs.events(), &self.movable, e)
    }

    /// `perm` applied to system state `row` (Proposition 35), into `out`.
    pub fn apply(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        perm: &Permutation,
        row: &[u32],
        out: &mut [u32],
    ) {
        self.compute_alpha(procs, perm);
        for (i, &local) in row.iter().enumerate() {
            let image = self.permute_local(machine, procs, i, local, perm);
            out[self.alpha[i] as usize] = image;
        }
    }
}

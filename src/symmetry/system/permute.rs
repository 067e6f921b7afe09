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
        // A new image of an exact state is labelled straight from its
        // preimage's label; anything else new is labelled from its term.
        let next_label = self.labels[table].len();
        if exact && image as usize == next_label && machine.table_len(table) == next_label + 1 {
            self.labels[table].push_image(local, perm);
        } else {
            self.sync_labels(machine, procs, table);
        }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::super::label::{Labeller, Labels};
    use super::super::super::{Permutation, Symmetry};
    use super::*;
    use crate::script::Script;

    /// A new image of an exact state is labelled from its preimage's
    /// label; the label must be the one its term gives.
    #[test]
    fn an_image_labelled_from_its_preimage_has_the_label_its_term_gives() {
        let mut script = Script::load_str(
            "t.csp",
            "datatype T = A | B | C\nchannel in, out : T\n\
             STACK(s) = #s < 3 & in?x -> STACK(<x>^s)\n\
               [] s != <> & out!head(s) -> STACK(tail(s))\n",
        )
        .expect("loads");
        let func = script.add_expr("<spec>", "STACK(<>)").expect("resolves");
        let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
        let symmetry = Arc::new(Symmetry::automatic(&script, &[func]));
        let mut machine = Machine::new(&mut procs, root).expect("compiles");
        let mut system =
            SystemSymmetry::new(symmetry.clone(), &mut machine, &mut procs).expect("mappable");
        // Stacks reached by pushing A's and B's, then permuted by a
        // cycle that makes stacks holding C, met for the first time.
        let mut rows = vec![machine.initial().to_vec()];
        let mut moves = crate::lts::machine::Moves::default();
        for at in 0..13 {
            let row = rows[at].clone();
            machine.moves(&mut procs, &row, &mut moves).expect("moves");
            for m in &moves.list {
                let mut next = Vec::new();
                moves.apply(m, &row, &mut next);
                let shown = procs.show_event(m.event);
                if !shown.contains('C') && !rows.contains(&next) {
                    rows.push(next);
                }
            }
        }
        let cycle = Permutation::from_images(vec![vec![1, 2, 0]]);
        let table = machine.table_of(0);
        let before = machine.table_len(table);
        for row in &rows {
            let mut image = vec![0; row.len()];
            system.apply(&mut machine, &mut procs, &cycle, row, &mut image);
        }
        assert!(machine.table_len(table) > before + 5, "new images made");
        let mut fresh = Labels::default();
        let mut labeller = Labeller::new();
        let labels = &system.labels[table];
        for local in 0..machine.table_len(table) as u32 {
            let p = machine.table_state(table, local);
            labeller.push(&mut procs, &symmetry, &system.movable, &mut fresh, p);
            let (made, worked_out) = (labels.label(local), fresh.label(local));
            assert_eq!(made.shape, worked_out.shape, "local {local}");
            assert_eq!(made.exact, worked_out.exact, "local {local}");
            assert_eq!(labels.atoms(local), fresh.atoms(local), "local {local}");
        }
    }
}

//! The brute-force canonicaliser: the least image of a state over the
//! whole group (states compared by content, component by component).
//! It gives every symmetry class exactly one representative, so a search
//! with it counts the orbits exactly — the oracle the representative
//! algorithm is measured against on small types. Its cost is the group's
//! order per state.

use std::cmp::Ordering;

use crate::eval::EvalResult;
use crate::lts::machine::Machine;
use crate::lts::search::Canonicaliser;
use crate::process::Processes;

use super::perm::Permutation;
use super::system::{SystemSymmetry, compare_states};

/// The largest group the oracle enumerates.
pub const MAX_GROUP: usize = 100_000;

/// Least images over every permutation.
pub struct BruteForce {
    system: SystemSymmetry,
    group: Vec<Permutation>,
    image: Vec<u32>,
    best: Vec<u32>,
}

impl BruteForce {
    /// For `system`'s group, if it has at most [`MAX_GROUP`] elements.
    pub fn new(system: SystemSymmetry) -> Option<BruteForce> {
        let order = system.symmetry().group_order().value();
        if order > num_bigint::BigUint::from(MAX_GROUP) {
            return None;
        }
        let group = Permutation::all(system.symmetry());
        Some(BruteForce {
            system,
            group,
            image: Vec::new(),
            best: Vec::new(),
        })
    }

    pub fn system(&mut self) -> &mut SystemSymmetry {
        &mut self.system
    }

    /// The least image of `row` into `out`, and a permutation giving it.
    pub fn canonical(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        out: &mut [u32],
    ) -> Permutation {
        let n = row.len();
        self.image.resize(n, 0);
        self.best.clear();
        let mut chosen = 0;
        for (k, perm) in self.group.iter().enumerate() {
            self.system
                .apply(machine, procs, perm, row, &mut self.image);
            let less = self.best.is_empty()
                || (0..n)
                    .map(|slot| {
                        compare_states(
                            procs,
                            self.system.symmetry(),
                            machine.process_state(slot, self.image[slot]),
                            machine.process_state(slot, self.best[slot]),
                        )
                    })
                    .find(|o| o.is_ne())
                    == Some(Ordering::Less);
            if less {
                self.best.clone_from(&self.image);
                chosen = k;
            }
        }
        out.copy_from_slice(&self.best);
        self.group[chosen].clone()
    }
}

impl Canonicaliser for BruteForce {
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        let n = machine.components();
        let mut out = vec![0; n];
        self.canonical(machine, procs, &row[..n], &mut out);
        row[..n].copy_from_slice(&out);
        Ok(())
    }
}

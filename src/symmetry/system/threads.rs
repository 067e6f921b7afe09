//! Representatives found on the search's threads: from what is already
//! known (labels, shapes, images met before), changing nothing, with
//! buffers of their own per thread.

use crate::lts::machine::Machine;
use crate::lts::search::{Scratch, SharedCanonicaliser};
use crate::process::Processes;

use super::super::label::{Labels, key_of};
use super::super::perm::Permutation;
use super::super::rep::{Input, Workspace};
use super::super::spec::Atom;
use super::super::strategy::Strategy;
use super::{Image, SystemSymmetry};

impl SharedCanonicaliser for SystemSymmetry {
    fn scratch(&self) -> Scratch {
        Scratch(Box::new(RepresentativeScratch::default()))
    }

    /// [`SystemSymmetry::try_representative`] for the search's threads;
    /// the permutation's images are written found or not (so that each
    /// successor's take the same room).
    fn try_components(
        &self,
        scratch: &mut Scratch,
        machine: &Machine,
        row: &mut [u32],
        images: &mut Vec<u16>,
    ) -> bool {
        let scratch: &mut RepresentativeScratch = scratch
            .0
            .downcast_mut()
            .expect("a scratch this canonicaliser made");
        let mut out = std::mem::take(&mut scratch.out);
        out.clear();
        out.resize(row.len(), 0);
        let found = match self.strategy() {
            Strategy::Fdr => self
                .try_representative(scratch, machine, row, &mut out)
                .map(|perm| perm.write_flat(images)),
            Strategy::Exact => self
                .try_exact(scratch, machine, row, &mut out)
                .map(|perm| perm.write_flat(images)),
            _ => None,
        };
        let found = match found {
            Some(()) => {
                row.copy_from_slice(&out);
                true
            }
            None => {
                images.resize(images.len() + self.type_sizes.iter().sum::<usize>(), 0);
                false
            }
        };
        scratch.out = out;
        found
    }
}

/// Buffers for finding representatives on a thread of its own
/// ([`SystemSymmetry::try_representative`]).
#[derive(Debug, Default)]
pub struct RepresentativeScratch {
    /// The representative being made.
    out: Vec<u32>,
    pub(super) workspace: Workspace,
    pub(super) ranks: Vec<u32>,
    pub(super) atoms: Vec<Atom>,
    pub(super) bounds: Vec<u32>,
    pub(super) exact: Vec<bool>,
    pub(super) alpha: Vec<u32>,
    pub(super) key: Vec<u32>,
}

/// A row read into a [`RepresentativeScratch`]: the algorithm's input,
/// its workspace, and the buffers a permutation is applied with.
pub(super) struct ReadRow<'s, 'i> {
    pub(super) workspace: &'s mut Workspace,
    pub(super) input: Input<'i>,
    pub(super) alpha: &'s mut Vec<u32>,
    pub(super) key: &'s mut Vec<u32>,
}

impl SystemSymmetry {
    /// Labels every state the machine's tables hold and ranks every
    /// shape met, so that [`SystemSymmetry::try_representative`] finds
    /// them: call it on the thread that owns the machine before
    /// successors are canonicalised elsewhere.
    pub fn learn(&mut self, machine: &Machine, procs: &mut Processes) {
        for slot in 0..machine.components() {
            let table = machine.table_of(slot);
            let known = self.labels.get(table).map_or(0, Labels::len);
            self.sync_labels(machine, procs, table);
            for local in known..self.labels[table].len() {
                let shape = self.labels[table].label(local as u32).shape;
                self.shapes.rank(procs, &self.symmetry, shape);
            }
        }
    }

    /// The representative of `row` into `out` and the permutation that
    /// makes it, reading only what is known (labels, shapes, images met
    /// before) and changing nothing, so that several threads may share
    /// it; `None` where something is not known yet — then
    /// [`SystemSymmetry::representative`] must do it. Where it answers,
    /// it answers as that does: shapes are ranked by content, so ranks
    /// learnt later keep the order of those known now.
    pub fn try_representative<'s>(
        &self,
        scratch: &'s mut RepresentativeScratch,
        machine: &Machine,
        row: &[u32],
        out: &mut [u32],
    ) -> Option<&'s Permutation> {
        let ReadRow {
            workspace,
            input,
            alpha,
            key,
        } = self.try_read_row(scratch, machine, row)?;
        let perm = workspace.representative(&input, None);
        self.try_apply(machine, perm, row, (alpha, key), out)?;
        Some(workspace.permutation())
    }

    /// Reads `row` into `scratch` ([`SystemSymmetry::try_read`]), split
    /// into the algorithm's input and the buffers it works in.
    pub(super) fn try_read_row<'s: 'i, 'i>(
        &'i self,
        scratch: &'s mut RepresentativeScratch,
        machine: &Machine,
        row: &[u32],
    ) -> Option<ReadRow<'s, 'i>> {
        self.try_read(scratch, machine, row)?;
        let RepresentativeScratch {
            workspace,
            ranks,
            atoms,
            bounds,
            exact,
            alpha,
            key,
            ..
        } = scratch;
        Some(ReadRow {
            workspace,
            input: Input {
                ranks,
                atoms,
                bounds,
                exact,
                type_sizes: &self.type_sizes,
            },
            alpha,
            key,
        })
    }

    /// Reads `row` into `scratch`'s input buffers from what is known;
    /// `None` where a label or a shape is not known yet.
    pub(super) fn try_read(
        &self,
        scratch: &mut RepresentativeScratch,
        machine: &Machine,
        row: &[u32],
    ) -> Option<()> {
        let RepresentativeScratch {
            ranks,
            atoms,
            bounds,
            exact,
            ..
        } = scratch;
        ranks.clear();
        atoms.clear();
        bounds.clear();
        exact.clear();
        bounds.push(0);
        for (slot, &local) in row.iter().enumerate() {
            let labels = self.labels.get(machine.table_of(slot))?;
            if local as usize >= labels.len() {
                return None;
            }
            let label = labels.label(local);
            let shape = *self.shapes.ids.get(&label.shape)?;
            ranks.push(self.shapes.rank[shape as usize]);
            atoms.extend_from_slice(labels.atoms(local));
            bounds.push(atoms.len() as u32);
            exact.push(label.exact);
        }
        Some(())
    }

    /// α_π into `alpha`, where the initial labels tell it without
    /// evaluation; `None` otherwise.
    pub(super) fn try_alpha(
        &self,
        perm: &Permutation,
        alpha: &mut Vec<u32>,
        key: &mut Vec<u32>,
    ) -> Option<()> {
        alpha.clear();
        for (i, c) in self.components.iter().enumerate() {
            let j = match c.image {
                Image::Fixed => i as u32,
                Image::Identity { orbit, position } => {
                    self.by_identity[orbit][perm.apply(c.initial_atoms[position]).index()]
                }
                Image::ByLabel if c.initial_exact => {
                    key_of(
                        c.initial_shape,
                        c.initial_atoms.iter().map(|&a| perm.apply(a)),
                        key,
                    );
                    self.by_label[key.as_slice()][c.inst] as u32
                }
                Image::ByLabel => return None,
            };
            alpha.push(j);
        }
        Some(())
    }

    /// `perm` applied to `row` into `out`, from images known already;
    /// `None` where one is not.
    pub(super) fn try_apply(
        &self,
        machine: &Machine,
        perm: &Permutation,
        row: &[u32],
        (alpha, key): (&mut Vec<u32>, &mut Vec<u32>),
        out: &mut [u32],
    ) -> Option<()> {
        self.try_alpha(perm, alpha, key)?;
        for (slot, &local) in row.iter().enumerate() {
            let labels = &self.labels[machine.table_of(slot)];
            let image = if labels.label(local).exact {
                key_of(
                    labels.label(local).shape,
                    labels.atoms(local).iter().map(|&a| perm.apply(a)),
                    key,
                );
                labels.find(key)?
            } else {
                key.clear();
                key.push(local);
                key.extend(labels.support(local).iter().map(|&a| perm.apply(a).raw()));
                labels.remembered(key)?
            };
            out[alpha[slot] as usize] = image;
        }
        Some(())
    }
}

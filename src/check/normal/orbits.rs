//! The normal form under symmetry: a node permuted (Definition 15) is
//! the node of its members' images, remembered in a bounded working set
//! of images per permutation; a target permuted is made straight from
//! its states; and a specification state's moves are read off its
//! representative's, permuted back, so that the specification's CSPM is
//! evaluated once per orbit of its states.

use rustc_hash::FxHashMap;

use super::{
    IDENTITY, KeyedStates, NodeId, Normaliser, PermId, Perms, Permuted, StateMoves, Target,
    TargetId, Terms,
};
use crate::budget::Stopped;
use crate::eval::{EvalError, EvalResult};
use crate::process::{EventId, Processes};
use crate::symmetry::Permutation;

impl Normaliser {
    /// The node `perm` maps `node` to: the one with the images of its
    /// members (Lemma 14 makes it unique). Needs a normaliser made by
    /// [`Normaliser::symmetric`].
    pub fn permute(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        self.permuted_node(procs, Permuted::Node(node), perm)
    }

    /// The node `perm` maps target `target`'s τ-closure to: the τ-closure
    /// of its states' images. The target's own closure is never taken,
    /// which spares evaluating states a reduced search only passes
    /// through on their way to a representative.
    pub fn permute_target(
        &mut self,
        procs: &mut Processes,
        target: TargetId,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if perm.is_identity() {
            return self.target_node(procs, target);
        }
        self.permuted_node(procs, Permuted::Target(target), perm)
    }

    pub(super) fn permuted_node(
        &mut self,
        procs: &mut Processes,
        what: Permuted,
        perm: &Permutation,
    ) -> EvalResult<NodeId> {
        if let Some(&image) = self.permuted.get(perm).and_then(|images| images.get(&what)) {
            return Ok(image);
        }
        let images = match what {
            Permuted::Node(node) => {
                let members = self.nodes[node as usize].members.clone();
                self.images(procs, &members, perm)?
            }
            Permuted::Target(target) => {
                let Target {
                    states, perm: made, ..
                } = &self.targets[target as usize];
                let states = states.clone();
                match *made {
                    IDENTITY => self.images(procs, &states, perm)?,
                    made => {
                        let both = self.perms.get(made).then(perm);
                        self.images(procs, &states, &both)?
                    }
                }
            }
        };
        let image = self.node_of(procs, images, None)?;
        if self.permuted_entries >= self.memo_limit {
            self.permuted.clear();
            self.permuted_entries = 0;
        }
        self.permuted_entries += 1;
        match self.permuted.get_mut(perm) {
            Some(images) => {
                images.insert(what, image);
            }
            None => {
                let images = FxHashMap::from_iter([(what, image)]);
                self.permuted.insert(perm.clone(), images);
            }
        }
        Ok(image)
    }

    /// The images of specification states under `perm`.
    pub(super) fn images(
        &mut self,
        procs: &mut Processes,
        states: &[u32],
        perm: &Permutation,
    ) -> EvalResult<Vec<u32>> {
        if self.keyed.is_some() {
            return self.with_keys(procs, |keyed, terms, perms| {
                states
                    .iter()
                    .map(|&s| keyed.image(terms, perms, s, perm))
                    .collect()
            });
        }
        let system = self
            .symmetry
            .as_mut()
            .expect("a normaliser made with a symmetry");
        let mut images = Vec::with_capacity(states.len());
        for &s in states {
            self.states.read(s, &mut self.row);
            self.next.clear();
            self.next.resize(self.row.len(), 0);
            system.apply(&mut self.machine, procs, perm, &self.row, &mut self.next);
            images.push(self.states.insert(&self.next).0);
        }
        Ok(images)
    }

    /// The state (as a key) of the machine's local state `local`.
    pub(super) fn keyed_of_local(&mut self, procs: &mut Processes, local: u32) -> EvalResult<u32> {
        self.with_keys(procs, |keyed, terms, perms| {
            keyed.of_local(terms, perms, local)
        })
    }

    /// The machine's local state of `state` (a key), its term made now
    /// if it was not.
    pub(super) fn keyed_local(&mut self, procs: &mut Processes, state: u32) -> EvalResult<u32> {
        self.with_keys(procs, |keyed, terms, perms| keyed.make(terms, perms, state))
    }

    /// `work` on the states kept as keys, with what making their terms
    /// needs.
    fn with_keys<R>(
        &mut self,
        procs: &mut Processes,
        work: impl FnOnce(&mut KeyedStates, &mut Terms, &mut Perms) -> Result<R, Stopped>,
    ) -> EvalResult<R> {
        let keyed = self.keyed.as_mut().expect("states as keys");
        let meter = procs.meter().clone();
        let mut terms = Terms {
            machine: &mut self.machine,
            system: self.symmetry.as_mut().expect("keys need a symmetry"),
            procs,
            meter: &meter,
        };
        work(keyed, &mut terms, &mut self.perms).map_err(EvalError::stopped)
    }

    /// The moves of `representative` under permutation `perm`, with their
    /// states made.
    pub(super) fn image_moves(
        &mut self,
        procs: &mut Processes,
        representative: u32,
        perm: PermId,
    ) -> EvalResult<Box<[(EventId, u32)]>> {
        let perm = self.perms.get(perm).clone();
        let moves = self.listed(representative).to_vec();
        let targets: Vec<u32> = moves.iter().map(|&(_, t)| t).collect();
        let images = self.images(procs, &targets, &perm)?;
        let system = self.symmetry.as_ref().expect("an image needs a symmetry");
        let mut list: Vec<(EventId, u32)> = moves
            .iter()
            .zip(images)
            .map(|(&(event, _), image)| (system.permute_event(procs, &perm, event), image))
            .collect();
        list.sort_unstable();
        list.dedup();
        Ok(list.into())
    }

    /// The moves of `state` as its representative's, permuted back: a
    /// state's moves under a permutation of the specification's symmetry
    /// are the permuted moves, so its CSPM is evaluated once per
    /// representative, not once per state, and a reduced check that
    /// meets the same stack with its values renamed evaluates it once.
    /// `None` when the state is its own representative (or the normal
    /// form has no symmetry, or a τ-priority set the permutation might
    /// not respect): it is evaluated.
    pub(super) fn moves_by_orbit(
        &mut self,
        procs: &mut Processes,
        state: u32,
    ) -> EvalResult<Option<StateMoves>> {
        if let Some(keyed) = &mut self.keyed {
            let meter = procs.meter().clone();
            let canonical = keyed
                .canonical(&mut self.perms, state, &meter)
                .map_err(EvalError::stopped)?;
            return match canonical {
                Some((representative, perm)) if representative != state => {
                    self.list_representative(procs, representative)?;
                    Ok(Some(StateMoves::Image {
                        representative,
                        perm,
                    }))
                }
                _ => Ok(None),
            };
        }
        let Some(system) = self.symmetry.as_mut().filter(|_| self.by_orbit) else {
            return Ok(None);
        };
        self.states.read(state, &mut self.row);
        self.next.clear();
        self.next.resize(self.row.len(), 0);
        let back = system
            .representative(&mut self.machine, procs, &self.row, &mut self.next, None)
            .inverse();
        if self.next == self.row {
            return Ok(None);
        }
        let meter = procs.meter().clone();
        let (representative, _) = self
            .states
            .insert_within(&self.next, &meter)
            .map_err(EvalError::stopped)?;
        self.list_representative(procs, representative)?;
        let perm = self.perms.id(&back);
        Ok(Some(StateMoves::Image {
            representative,
            perm,
        }))
    }

    /// Lists the moves of `representative`, evaluated if not known.
    fn list_representative(
        &mut self,
        procs: &mut Processes,
        representative: u32,
    ) -> EvalResult<()> {
        let i = representative as usize;
        if self.transitions.len() <= i {
            self.transitions.resize(i + 1, None);
        }
        match self.transitions[i] {
            None => {
                let list = self.evaluate_moves(procs, representative)?;
                self.transitions[i] = Some(StateMoves::Listed(list));
            }
            // Made an image itself (its own representative is another):
            // listed, so that an image is always of a listed state.
            Some(StateMoves::Image { .. }) => {
                self.transitions(procs, representative)?;
            }
            Some(StateMoves::Listed(_)) => {}
        }
        Ok(())
    }
}

//! The specification's states as keys, for a normal form under symmetry
//! whose machine is one component. An exact state is its shape and its
//! distinguished values ([`SystemSymmetry::local_key`]): its image under
//! a permutation is its key with the values permuted, and its orbit's
//! canonical state is its key with each type's values renamed in order
//! of first appearance. No process term is made and no value is built
//! for a state until its CSPM is evaluated (once per orbit, as the
//! canonical state) or it is shown in a counterexample. A state that is
//! not exact (a value hidden in a set, a map or a function) is keyed by
//! its local number and permuted as a term.

use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::{IDENTITY, PermId, Perms};
use crate::budget::{Meter, Stopped};
use crate::lts::machine::Machine;
use crate::process::Processes;
use crate::symmetry::{Atom, Permutation, SystemSymmetry};

/// The first word of the key of a state that is not exact: its local
/// number follows. No shape has this number.
const NOT_EXACT: u32 = u32::MAX;

/// In [`KeyedStates::locals`]: no term made yet.
const UNMADE: u32 = u32::MAX;

/// The states of a one-component specification, by key.
pub struct KeyedStates {
    /// Every state's key; a state's number is its key's place.
    keys: IndexSet<Box<[u32]>, FxBuildHasher>,
    /// Per state: its local number in the machine once its term is
    /// made, else [`UNMADE`].
    locals: Vec<u32>,
    /// Per orbit, by its canonical state: a state of the orbit made as
    /// a term, and the permutation taking it to the canonical state.
    witnesses: FxHashMap<u32, (u32, PermId)>,
    /// Per distinguished type: how many values it has.
    sizes: Vec<usize>,
    key: Vec<u32>,
}

/// The machine, its symmetry and the processes, which making a state's
/// term needs.
pub struct Terms<'a, 'p, 's> {
    pub machine: &'a mut Machine,
    pub system: &'a mut SystemSymmetry,
    pub procs: &'a mut Processes<'s>,
    pub meter: &'p Meter,
}

impl KeyedStates {
    pub fn new(system: &SystemSymmetry) -> KeyedStates {
        let identity = Permutation::identity(system.symmetry());
        let sizes = (0..system.symmetry().types().len())
            .map(|ty| identity.images(ty).len())
            .collect();
        KeyedStates {
            keys: IndexSet::default(),
            locals: Vec::new(),
            witnesses: FxHashMap::default(),
            sizes,
            key: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The local number of state `state`'s term, if made.
    pub fn local(&self, state: u32) -> Option<u32> {
        Some(self.locals[state as usize]).filter(|&local| local != UNMADE)
    }

    /// The state numbered `key`, added if new (within the state budget).
    fn intern(&mut self, key: &[u32], meter: &Meter) -> Result<u32, Stopped> {
        if let Some(state) = self.keys.get_index_of(key) {
            return Ok(state as u32);
        }
        meter.may_store(self.keys.len() + 1)?;
        let (state, _) = self.keys.insert_full(key.into());
        self.locals.push(UNMADE);
        Ok(state as u32)
    }

    /// The state whose term is the machine's local state `local`.
    pub fn of_local(
        &mut self,
        terms: &mut Terms,
        perms: &mut Perms,
        local: u32,
    ) -> Result<u32, Stopped> {
        let mut key = std::mem::take(&mut self.key);
        let exact = terms
            .system
            .local_key(terms.machine, terms.procs, 0, local, &mut key);
        if !exact {
            key.clear();
            key.extend([NOT_EXACT, local]);
        }
        let state = self.intern(&key, terms.meter);
        self.key = key;
        let state = state?;
        if self.locals[state as usize] == UNMADE {
            // The witness first: a budget that stops it leaves the state
            // without a term, to be registered again when next met.
            if exact && let Some((canonical, perm)) = self.canonical(perms, state, terms.meter)? {
                // The canonical state is `perm` of this one's inverse.
                let back = perms.id(&perms.get(perm).inverse());
                self.witnesses.entry(canonical).or_insert((local, back));
            }
            self.locals[state as usize] = local;
        }
        Ok(state)
    }

    /// The image of `state` under `perm`.
    pub fn image(
        &mut self,
        terms: &mut Terms,
        perms: &mut Perms,
        state: u32,
        perm: &Permutation,
    ) -> Result<u32, Stopped> {
        let key = &self.keys[state as usize];
        if key[0] == NOT_EXACT {
            let local = key[1];
            let mut image = [0];
            terms
                .system
                .apply(terms.machine, terms.procs, perm, &[local], &mut image);
            return self.of_local(terms, perms, image[0]);
        }
        let mut image = std::mem::take(&mut self.key);
        image.clear();
        image.push(key[0]);
        image.extend(
            key[1..]
                .iter()
                .map(|&atom| perm.apply(Atom::from_raw(atom)).raw()),
        );
        let state = self.intern(&image, terms.meter);
        self.key = image;
        state
    }

    /// The canonical state of `state`'s orbit and the permutation taking
    /// it to `state`; `None` for a state that is not exact.
    pub fn canonical(
        &mut self,
        perms: &mut Perms,
        state: u32,
        meter: &Meter,
    ) -> Result<Option<(u32, PermId)>, Stopped> {
        let key = &self.keys[state as usize];
        if key[0] == NOT_EXACT {
            return Ok(None);
        }
        // Per type: the canonical index each value was renamed to, and
        // the values in the order they were met.
        let mut renamed: Vec<Vec<u16>> = self.sizes.iter().map(|&n| vec![u16::MAX; n]).collect();
        let mut met: Vec<Vec<u16>> = vec![Vec::new(); self.sizes.len()];
        let mut canonical = std::mem::take(&mut self.key);
        canonical.clear();
        canonical.push(key[0]);
        for &raw in &key[1..] {
            let atom = Atom::from_raw(raw);
            let (ty, value) = (atom.ty(), atom.index());
            if renamed[ty][value] == u16::MAX {
                renamed[ty][value] = met[ty].len() as u16;
                met[ty].push(value as u16);
            }
            canonical.push(Atom::new(ty, renamed[ty][value] as usize).raw());
        }
        let unchanged = canonical[..] == key[..];
        let found = if unchanged {
            Ok(state)
        } else {
            self.intern(&canonical, meter)
        };
        self.key = canonical;
        let canonical = found?;
        if unchanged {
            return Ok(Some((state, IDENTITY)));
        }
        // The permutation taking canonical index k to the k-th value
        // met, and the indices past them to the values not met, in order.
        let maps = met
            .into_iter()
            .zip(&renamed)
            .map(|(mut to, renamed)| {
                to.extend((0..renamed.len() as u16).filter(|&v| renamed[v as usize] == u16::MAX));
                to
            })
            .collect();
        let perm = perms.id(&Permutation::from_images(maps));
        Ok(Some((canonical, perm)))
    }

    /// The local number of `state`'s term, made now if it was not: found
    /// among the machine's states by its key, or made from its orbit's
    /// witness, permuted.
    pub fn make(
        &mut self,
        terms: &mut Terms,
        perms: &mut Perms,
        state: u32,
    ) -> Result<u32, Stopped> {
        if let Some(local) = self.local(state) {
            return Ok(local);
        }
        let key = &self.keys[state as usize];
        let local = match terms.system.find_local(terms.machine, terms.procs, 0, key) {
            Some(local) => local,
            None => {
                let (canonical, to_state) = self
                    .canonical(perms, state, terms.meter)?
                    .expect("a state without a term is exact");
                let (witness, to_canonical) = self.witnesses[&canonical];
                let perm = perms.get(to_canonical).then(perms.get(to_state));
                let mut image = [0];
                terms
                    .system
                    .apply(terms.machine, terms.procs, &perm, &[witness], &mut image);
                if cfg!(debug_assertions) {
                    let mut made = Vec::new();
                    let exact =
                        terms
                            .system
                            .local_key(terms.machine, terms.procs, 0, image[0], &mut made);
                    debug_assert!(exact && made[..] == self.keys[state as usize][..]);
                }
                image[0]
            }
        };
        self.locals[state as usize] = local;
        Ok(local)
    }
}

//! A supercombinator under symmetry.
//!
//! Built once per machine: it checks that the machine is *mappable*
//! (Section 6.1) — for each generator π, every component's initial label
//! has an image among the components (the bijection α_π, with the `inst`
//! tie-break for equal labels) and the operator tree's event sets and
//! relations map onto those of the corresponding nodes — and refuses
//! otherwise, so an asymmetric system is never reduced. Components that
//! some α_π exchanges (the *symmetric sets*) then share one table of
//! states, so the image of a component state has a number in its image
//! component at once.
//!
//! Per state it applies a permutation (Proposition 35: component `i`'s
//! state, permuted, goes to component α_π(i)) and computes
//! representatives with [`super::rep`]; it is the search's
//! [`Canonicaliser`].

mod strategies;

use std::cmp::Ordering;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::{EvalResult, Proc, Value};
use crate::lts::machine::{Machine, Node};
use crate::lts::search::{Canonicaliser, Scratch as SearchScratch, SharedCanonicaliser};
use crate::process::{EventId, EventSet, Place, ProcId, Processes, Term};

use super::apply::{
    Movable, Permute, event_images, map_event_set, map_relation, map_state, permute_event,
};
use super::label::{Labeller, Labels, Reading, key_of};
use super::perm::Permutation;
use super::rep::{Input, OwnedInput, Trace, Workspace};
use super::spec::{Atom, Symmetry};

/// Why a machine cannot be reduced: each problem in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotMappable {
    pub problems: Vec<String>,
}

impl NotMappable {
    /// The refusal as a diagnostic at `process` (a constant of `script`),
    /// one note per thing that breaks the symmetry.
    pub fn diagnostic(
        &self,
        script: &crate::script::Script,
        process: crate::script::ir::FuncId,
        symmetry: &Symmetry,
    ) -> crate::syntax::Diagnostic {
        let mut diagnostic = crate::syntax::Diagnostic::error(
            script.function(process).span,
            format!(
                "this process is not symmetric in {}, so it is not reduced",
                symmetry.type_names()
            ),
        );
        for problem in &self.problems {
            diagnostic = diagnostic.with_note(problem.clone());
        }
        diagnostic
    }
}

/// How α_π finds a component's image.
#[derive(Debug, Clone)]
enum Image {
    /// Its label holds nothing a permutation moves: itself.
    Fixed,
    /// Its symmetric set has an identity variable at `position`: the
    /// component whose identity is the image of its own.
    Identity { orbit: usize, position: usize },
    /// The component whose initial label is the image of its own, with
    /// the same `inst` among equal labels.
    ByLabel,
}

#[derive(Debug, Clone)]
struct Component {
    initial: ProcId,
    /// Among components with the same initial label, its place.
    inst: usize,
    orbit: usize,
    image: Image,
    initial_atoms: Vec<Atom>,
    initial_shape: ProcId,
    initial_exact: bool,
}

/// The shapes met so far, ordered for step 1 (by content, so the order
/// does not depend on when a shape was met).
#[derive(Debug, Default)]
struct Shapes {
    ids: FxHashMap<ProcId, u32>,
    shapes: Vec<ProcId>,
    /// By shape id: its place in the order.
    rank: Vec<u32>,
    /// Shape ids in order.
    sorted: Vec<u32>,
}

impl Shapes {
    /// The rank of a shape already met.
    fn known_rank(&self, shape: ProcId) -> u32 {
        self.rank[self.ids[&shape] as usize]
    }

    fn rank(&mut self, procs: &Processes, symmetry: &Symmetry, shape: ProcId) -> u32 {
        if let Some(&id) = self.ids.get(&shape) {
            return self.rank[id as usize];
        }
        let id = self.shapes.len() as u32;
        self.shapes.push(shape);
        self.ids.insert(shape, id);
        self.rank.push(0);
        let at = self.sorted.partition_point(|&other| {
            compare_states(procs, symmetry, self.shapes[other as usize], shape) == Ordering::Less
        });
        self.sorted.insert(at, id);
        for (r, &s) in self.sorted.iter().enumerate() {
            self.rank[s as usize] = r as u32;
        }
        self.rank[id as usize]
    }
}

/// A machine's symmetry: mappability checked, tables shared, and
/// everything per state.
pub struct SystemSymmetry {
    symmetry: Arc<Symmetry>,
    movable: Movable,
    labeller: Labeller,
    /// Per table of the machine.
    labels: Vec<Labels>,
    components: Vec<Component>,
    orbits: Vec<Vec<usize>>,
    /// Per orbit with an identity variable: the component holding each
    /// value of the identity's type.
    by_identity: Vec<Vec<u32>>,
    /// Components by initial label key and `inst`.
    by_label: FxHashMap<Box<[u32]>, Vec<usize>>,
    generators: Vec<(Permutation, Vec<usize>)>,
    shapes: Shapes,
    type_sizes: Vec<usize>,
    workspace: Workspace,
    // Buffers for one state.
    ranks: Vec<u32>,
    atoms: Vec<Atom>,
    bounds: Vec<u32>,
    exact: Vec<bool>,
    alpha: Vec<u32>,
    key: Vec<u32>,
    row: Vec<u32>,
    /// How representatives are found, and what that remembers.
    strategy: strategies::StrategyState,
}

impl SystemSymmetry {
    /// Checks that `machine` is mappable for every generator of
    /// `symmetry`'s group, and makes its symmetric components share
    /// tables. Call it before any state of the machine is stored.
    pub fn new(
        symmetry: Arc<Symmetry>,
        machine: &mut Machine,
        procs: &mut Processes,
    ) -> Result<SystemSymmetry, NotMappable> {
        let movable = Movable::new(&symmetry, procs.events());
        let mut labeller = Labeller::new();
        let n = machine.components();
        let mut components = Vec::with_capacity(n);
        let mut equal: FxHashMap<ProcId, usize> = FxHashMap::default();
        for slot in 0..n {
            let initial = machine.process_state(slot, machine.initial()[slot]);
            let inst = equal.entry(initial).or_default();
            let shape = labeller.shape(procs, &symmetry, &movable, initial);
            let (atoms, exact) = labeller.variables(procs, &symmetry, &movable, initial);
            components.push(Component {
                initial,
                inst: *inst,
                orbit: slot,
                image: Image::ByLabel,
                initial_atoms: atoms,
                initial_shape: shape,
                initial_exact: exact,
            });
            *inst += 1;
        }
        let mut by_initial: FxHashMap<(ProcId, usize), usize> = FxHashMap::default();
        for (slot, c) in components.iter().enumerate() {
            by_initial.insert((c.initial, c.inst), slot);
        }
        let mut problems = Vec::new();
        let mut generators = Vec::new();
        for g in Permutation::generators(&symmetry) {
            match mappable(
                machine,
                procs,
                &symmetry,
                &movable,
                &components,
                &by_initial,
                &g,
            ) {
                Ok(alpha) => generators.push((g, alpha)),
                Err(mut found) => problems.append(&mut found),
            }
        }
        if !problems.is_empty() {
            problems.dedup();
            return Err(NotMappable { problems });
        }
        // Symmetric sets: the orbits of the components under the α's.
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for (_, alpha) in &generators {
            for (i, &j) in alpha.iter().enumerate() {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
        let mut orbits: Vec<Vec<usize>> = Vec::new();
        let mut orbit_of_root: FxHashMap<usize, usize> = FxHashMap::default();
        for (slot, component) in components.iter_mut().enumerate() {
            let r = root(&mut parent, slot);
            let o = *orbit_of_root.entry(r).or_insert_with(|| {
                orbits.push(Vec::new());
                orbits.len() - 1
            });
            orbits[o].push(slot);
            component.orbit = o;
        }
        machine.share_tables(&orbits);
        let mut by_identity = vec![Vec::new(); orbits.len()];
        for (o, members) in orbits.iter().enumerate() {
            let moves = |c: &Component| !c.initial_atoms.is_empty() || !c.initial_exact;
            if members.len() == 1 && !moves(&components[members[0]]) {
                components[members[0]].image = Image::Fixed;
                continue;
            }
            if let Some(position) = identity_position(&components, members) {
                let ty = components[members[0]].initial_atoms[position].ty();
                let mut holder = vec![u32::MAX; symmetry.types()[ty].values.len()];
                for &m in members {
                    holder[components[m].initial_atoms[position].index()] = m as u32;
                    components[m].image = Image::Identity { orbit: o, position };
                }
                by_identity[o] = holder;
            }
        }
        let mut by_label: FxHashMap<Box<[u32]>, Vec<usize>> = FxHashMap::default();
        let mut key = Vec::new();
        for (slot, c) in components.iter().enumerate() {
            key_of(c.initial_shape, c.initial_atoms.iter().copied(), &mut key);
            let slots = by_label.entry(key.as_slice().into()).or_default();
            if slots.len() == c.inst {
                slots.push(slot);
            }
        }
        let type_sizes = symmetry.types().iter().map(|t| t.values.len()).collect();
        Ok(SystemSymmetry {
            symmetry,
            movable,
            labeller,
            labels: Vec::new(),
            components,
            orbits,
            by_identity,
            by_label,
            generators,
            shapes: Shapes::default(),
            type_sizes,
            workspace: Workspace::default(),
            ranks: Vec::new(),
            atoms: Vec::new(),
            bounds: Vec::new(),
            exact: Vec::new(),
            alpha: Vec::new(),
            key: Vec::new(),
            row: Vec::new(),
            strategy: strategies::StrategyState::default(),
        })
    }

    pub fn symmetry(&self) -> &Symmetry {
        &self.symmetry
    }

    /// The symmetric sets: components some permutation exchanges.
    pub fn orbits(&self) -> &[Vec<usize>] {
        &self.orbits
    }

    /// The generators checked, each with its component bijection.
    pub fn generators(&self) -> &[(Permutation, Vec<usize>)] {
        &self.generators
    }

    /// Brings the labels of every table up to the machine's states.
    fn sync_labels(&mut self, machine: &Machine, procs: &mut Processes, table: usize) {
        if self.labels.len() <= table {
            self.labels.resize_with(table + 1, Labels::default);
        }
        let labels = &mut self.labels[table];
        while labels.len() < machine.table_len(table) {
            let p = machine.table_state(table, labels.len() as u32);
            self.labeller
                .push(procs, &self.symmetry, &self.movable, labels, p);
        }
    }

    /// α_π: the component each component's state goes to under `perm`.
    pub fn alpha(&mut self, procs: &mut Processes, perm: &Permutation) -> Vec<usize> {
        self.compute_alpha(procs, perm);
        self.alpha.iter().map(|&j| j as usize).collect()
    }

    fn compute_alpha(&mut self, procs: &mut Processes, perm: &Permutation) {
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

    /// The permutation the representative algorithm chooses for `row`,
    /// with its representative in `out`, and with `trace` everything it
    /// did.
    pub fn representative(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        out: &mut [u32],
        trace: Option<&mut Trace>,
    ) -> &Permutation {
        self.read_state(machine, procs, row);
        let input = Input {
            ranks: &self.ranks,
            atoms: &self.atoms,
            bounds: &self.bounds,
            exact: &self.exact,
            type_sizes: &self.type_sizes,
        };
        self.workspace.representative(&input, trace);
        // Lent out while it is applied, so nothing is copied.
        let perm = self.workspace.take_permutation();
        self.apply(machine, procs, &perm, row, out);
        self.workspace.restore_permutation(perm)
    }

    /// Reads `row`'s components into the algorithm's input buffers.
    fn read_state(&mut self, machine: &Machine, procs: &mut Processes, row: &[u32]) {
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
    /// (see [`Labeller::read`]); whether it is exact.
    pub(super) fn read_component<R: Reading>(
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

/// Everything about one state's representative, for showing it.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub state: Vec<u32>,
    pub representative: Vec<u32>,
    pub permutation: Permutation,
    /// α_π: component `i`'s state, permuted, is the representative's
    /// component `alpha[i]`.
    pub alpha: Vec<usize>,
    pub trace: Trace,
    /// Whether every symmetric set has identities the state still holds
    /// (Definition 46, read on this state).
    pub unique_identities: bool,
}

impl Explanation {
    /// Whether Proposition 50's conditions held, so that this state's
    /// representative is the only one its symmetry class can get.
    pub fn unique_guaranteed(&self) -> bool {
        self.unique_identities && self.trace.splits_fully_symmetric()
    }
}

impl SystemSymmetry {
    /// The representative of `row` with the permutation, α and the whole
    /// trace of the algorithm.
    pub fn explain(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Explanation {
        self.explain_choosing(machine, procs, row, &[])
    }

    /// [`Self::explain`] with step 3 by hand: its `k`-th split splits off
    /// component `choices[k]` (when a member of the cell it splits)
    /// instead of the cell's first member. Another choice may give
    /// another representative of the same symmetry class (Example 43).
    pub fn explain_choosing(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        choices: &[usize],
    ) -> Explanation {
        self.workspace.choose(choices);
        let explanation = self.explain_as_chosen(machine, procs, row);
        self.workspace.choose(&[]);
        explanation
    }

    fn explain_as_chosen(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Explanation {
        let mut representative = vec![0; row.len()];
        let mut trace = Trace::default();
        let permutation = self
            .representative(machine, procs, row, &mut representative, Some(&mut trace))
            .clone();
        let alpha = self.alpha(procs, &permutation);
        let unique_identities = self.unique_identities(machine, procs, row);
        Explanation {
            state: row.to_vec(),
            representative,
            permutation,
            alpha,
            trace,
            unique_identities,
        }
    }
}

impl SystemSymmetry {
    /// Replaces the components of `row` (the first [`Machine::components`]
    /// columns) by their representative's under the system's strategy,
    /// in place, and returns the permutation that made it; extra columns
    /// are left to whoever owns them.
    pub fn canonicalise_components(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<&Permutation> {
        let n = self.components.len();
        let mut out = std::mem::take(&mut self.row);
        out.clear();
        out.resize(n, 0);
        let made = self
            .canonical(machine, procs, &row[..n], &mut out)
            .map(|_| ());
        row[..n].copy_from_slice(&out);
        self.row = out;
        made?;
        Ok(match self.strategy() {
            super::strategy::Strategy::Fdr => self.workspace.permutation(),
            _ => &self.strategy.chosen,
        })
    }
}

impl Canonicaliser for SystemSymmetry {
    /// Replaces the components of `row` by its representative's; extra
    /// columns are left to whoever owns them.
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        self.canonicalise_components(machine, procs, row)?;
        Ok(())
    }

    /// FDR's algorithm and the exact canonical form run on the threads
    /// computing successors; the other strategies (which enumerate, or
    /// remember what was stored) run on the search's own.
    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        use super::strategy::Strategy;
        matches!(self.strategy(), Strategy::Fdr | Strategy::Exact).then_some(self as _)
    }

    fn prepare(&mut self, machine: &Machine, procs: &mut Processes) -> EvalResult<()> {
        self.learn(machine, procs);
        Ok(())
    }
}

impl SharedCanonicaliser for SystemSymmetry {
    fn scratch(&self) -> SearchScratch {
        SearchScratch(Box::new(Scratch::default()))
    }

    /// [`SystemSymmetry::try_representative`] for the search's threads;
    /// the permutation's images are written found or not (so that each
    /// successor's take the same room).
    fn try_components(
        &self,
        scratch: &mut SearchScratch,
        machine: &Machine,
        row: &mut [u32],
        images: &mut Vec<u16>,
    ) -> bool {
        let scratch: &mut Scratch = scratch
            .0
            .downcast_mut()
            .expect("a scratch this canonicaliser made");
        let mut out = std::mem::take(&mut scratch.out);
        out.clear();
        out.resize(row.len(), 0);
        let found = match self.strategy() {
            super::strategy::Strategy::Fdr => self
                .try_representative(scratch, machine, row, &mut out)
                .map(|perm| perm.write_flat(images)),
            super::strategy::Strategy::Exact => self
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

/// The first variable at which the components of a symmetric set all
/// hold different values: an identity (`me` in `Node(me, datum, next)`).
fn identity_position(components: &[Component], members: &[usize]) -> Option<usize> {
    let first = &components[members[0]];
    if members.iter().any(|&m| {
        let c = &components[m];
        !c.initial_exact || c.initial_atoms.len() != first.initial_atoms.len()
    }) {
        return None;
    }
    (0..first.initial_atoms.len()).find(|&p| {
        let mut seen = rustc_hash::FxHashSet::default();
        members
            .iter()
            .all(|&m| seen.insert(components[m].initial_atoms[p]))
    })
}

/// Section 6.1 for one generator: α_g from the initial labels, then the
/// operator tree mapped onto itself with every event set and relation.
/// The component bijection, or what breaks it.
fn mappable(
    machine: &Machine,
    procs: &mut Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    components: &[Component],
    by_initial: &FxHashMap<(ProcId, usize), usize>,
    g: &Permutation,
) -> Result<Vec<usize>, Vec<String>> {
    let script = procs.script();
    let shown = g.lines(symmetry, script, false).join("; ");
    let mut problems = Vec::new();
    let mut alpha = Vec::with_capacity(components.len());
    for (slot, c) in components.iter().enumerate() {
        let image = map_state(procs, c.initial, &mut Permute::new(symmetry, g, movable));
        match by_initial.get(&(image, c.inst)) {
            Some(&j) => alpha.push(j),
            None => {
                problems.push(format!(
                    "component {} starts as {}, but no component starts as {}, its image under \
                     {shown}",
                    slot + 1,
                    procs.show_state(c.initial),
                    procs.show_state(image)
                ));
                alpha.push(slot);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let images = event_images(symmetry, g, procs.events(), movable);
    let tree = Tree::of(machine);
    let beta = match tree.map(&alpha) {
        Ok(beta) => beta,
        Err(node) => {
            return Err(vec![format!(
                "the components under `{}` are not exchanged with those of another such \
                 operator by {shown}",
                machine.operator_text(procs, node)
            )]);
        }
    };
    let nodes = machine.nodes();
    let set_breaks =
        |what: &str, node: usize, set: &EventSet, image_node: usize, target: &EventSet| {
            let image = map_event_set(set, &images);
            if &image == target {
                return None;
            }
            let witness = set
                .iter()
                .find(|&e| !target.contains(images[e as usize]))
                .map(|e| {
                    format!(
                        "{} is in it but its image {} is not",
                        procs.show_event(e),
                        procs.show_event(images[e as usize])
                    )
                })
                .unwrap_or_else(|| "it has fewer events than its image".to_string());
            Some(format!(
                "the {what} of `{}` is not symmetric under {shown}: {witness}{}",
                machine.operator_text(procs, node),
                if image_node == node {
                    String::new()
                } else {
                    format!(" (in `{}`)", machine.operator_text(procs, image_node))
                }
            ))
        };
    for (n, node) in nodes.iter().enumerate() {
        let m = beta[n];
        let problem = match (node, &nodes[m]) {
            (Node::Leaf { .. }, Node::Leaf { .. }) => None,
            (
                Node::Parallel {
                    children: cs,
                    alphabets: a,
                    sync: s,
                    ..
                },
                Node::Parallel {
                    children: ds,
                    alphabets: b,
                    sync: t,
                    ..
                },
            ) => {
                let sync = match (s, t) {
                    (Some(s), Some(t)) => set_breaks("synchronisation set", n, s, m, t),
                    (None, None) => None,
                    _ => Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    )),
                };
                let alphabets = match (a, b) {
                    (Some(a), Some(b)) => cs.iter().enumerate().find_map(|(k, &c)| {
                        let d = ds.iter().position(|&d| d == beta[c])?;
                        set_breaks("alphabet of an operand", n, &a[k], m, &b[d])
                    }),
                    (None, None) => None,
                    _ => Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    )),
                };
                sync.or(alphabets)
            }
            (Node::Hide { set: s, .. }, Node::Hide { set: t, .. }) => {
                set_breaks("hidden set", n, s, m, t)
            }
            (Node::Prioritise { levels: a, .. }, Node::Prioritise { levels: b, .. }) => {
                if a.len() == b.len() {
                    a.iter()
                        .zip(b)
                        .find_map(|(s, t)| set_breaks("set of priority", n, s, m, t))
                } else {
                    Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    ))
                }
            }
            (Node::Rename { relation: r, .. }, Node::Rename { relation: q, .. })
            | (Node::Linked { relation: r, .. }, Node::Linked { relation: q, .. }) => {
                let image = map_relation(r, &images);
                (image.pairs() != q.pairs()).then(|| {
                    format!(
                        "the relation of `{}` is not symmetric under {shown}",
                        machine.operator_text(procs, n)
                    )
                })
            }
            _ => Some(format!(
                "`{}` is mapped onto `{}` by {shown}",
                machine.operator_text(procs, n),
                machine.operator_text(procs, m)
            )),
        };
        problems.extend(problem);
    }
    if let Some(set) = machine.tau_priority()
        && map_event_set(set, &images) != *set
    {
        problems.push(format!(
            "the events τ takes priority over are not symmetric under {shown}"
        ));
    }
    if problems.is_empty() {
        Ok(alpha)
    } else {
        Err(problems)
    }
}

/// The operator tree's nodes by depth and the components below them.
struct Tree {
    /// Per node: depth, and its components as a range.
    places: Vec<(u32, u32, u32)>,
    index: FxHashMap<(u32, u32, u32), usize>,
}

impl Tree {
    fn of(machine: &Machine) -> Tree {
        let nodes = machine.nodes();
        let mut places = vec![(0, 0, 0); nodes.len()];
        // Depth first from the root; a node's range is its children's.
        fn visit(
            nodes: &[Node],
            n: usize,
            depth: u32,
            places: &mut [(u32, u32, u32)],
        ) -> (u32, u32) {
            let range = match &nodes[n] {
                Node::Leaf { slot } => (*slot, slot + 1),
                Node::Parallel { children, .. } => {
                    let mut range = (u32::MAX, 0);
                    for &c in children {
                        let (a, b) = visit(nodes, c, depth + 1, places);
                        range = (range.0.min(a), range.1.max(b));
                    }
                    if children.is_empty() { (0, 0) } else { range }
                }
                Node::Hide { child, .. }
                | Node::Rename { child, .. }
                | Node::Prioritise { child, .. } => visit(nodes, *child, depth + 1, places),
                Node::Linked { left, right, .. } => {
                    let (a, _) = visit(nodes, *left, depth + 1, places);
                    let (_, b) = visit(nodes, *right, depth + 1, places);
                    (a, b)
                }
            };
            places[n] = (depth, range.0, range.1);
            range
        }
        if !nodes.is_empty() {
            visit(nodes, 0, 0, &mut places);
        }
        let index = places.iter().enumerate().map(|(n, &p)| (p, n)).collect();
        Tree { places, index }
    }

    /// The node each node maps to when the components map by `alpha`:
    /// the one at the same depth over the image of its components. The
    /// node that has none, if any.
    fn map(&self, alpha: &[usize]) -> Result<Vec<usize>, usize> {
        self.places
            .iter()
            .enumerate()
            .map(|(n, &(depth, from, to))| {
                if from == to {
                    return Ok(n);
                }
                let mut image: Vec<u32> = (from..to).map(|i| alpha[i as usize] as u32).collect();
                image.sort_unstable();
                let contiguous = image.windows(2).all(|w| w[1] == w[0] + 1);
                let key = (depth, image[0], image[image.len() - 1] + 1);
                contiguous
                    .then(|| self.index.get(&key).copied())
                    .flatten()
                    .ok_or(n)
            })
            .collect()
    }
}

/// A total order on process states by content, with every distinguished
/// value before any other value (step 1's "those with distinguished
/// values first"); independent of the order states were met in.
pub fn compare_states(procs: &Processes, symmetry: &Symmetry, a: ProcId, b: ProcId) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (s, t) = (procs.term(a), procs.term(b));
    let children = |xs: &[ProcId], ys: &[ProcId]| {
        xs.len().cmp(&ys.len()).then_with(|| {
            xs.iter()
                .zip(ys)
                .map(|(&x, &y)| compare_states(procs, symmetry, x, y))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    };
    let sets = |x: u32, y: u32| procs.set(x).iter().cmp(procs.set(y).iter());
    let relations = |x: u32, y: u32| procs.relation(x).pairs().cmp(procs.relation(y).pairs());
    match (s, t) {
        (Term::Node(p), Term::Node(q)) => compare_procs(symmetry, p, q),
        (Term::Run(x), Term::Run(y))
        | (Term::Chaos(x), Term::Chaos(y))
        | (Term::ChaosOffer(x), Term::ChaosOffer(y)) => sets(*x, *y),
        (Term::Done(x), Term::Done(y)) => x.cmp(y),
        (
            Term::Chosen {
                prefix: p,
                choice: c,
            },
            Term::Chosen {
                prefix: q,
                choice: d,
            },
        ) => compare_states(procs, symmetry, *p, *q).then_with(|| compare_lists(symmetry, c, d)),
        (Term::ExternalChoice(xs), Term::ExternalChoice(ys)) => children(xs, ys),
        (Term::SequentialComposition(a, b), Term::SequentialComposition(c, d))
        | (Term::Interrupt(a, b), Term::Interrupt(c, d))
        | (Term::SlidingChoice(a, b), Term::SlidingChoice(c, d)) => children(&[*a, *b], &[*c, *d]),
        (Term::Exception(a, x, b), Term::Exception(c, y, d))
        | (Term::SyncInterrupt(a, x, b), Term::SyncInterrupt(c, y, d)) => {
            sets(*x, *y).then_with(|| children(&[*a, *b], &[*c, *d]))
        }
        (Term::SyncExternalChoice(x, xs), Term::SyncExternalChoice(y, ys))
        | (Term::Parallel(x, xs), Term::Parallel(y, ys)) => {
            sets(*x, *y).then_with(|| children(xs, ys))
        }
        (Term::Hide(a, x), Term::Hide(c, y)) => sets(*x, *y).then_with(|| children(&[*a], &[*c])),
        (Term::Rename(a, x), Term::Rename(c, y)) => {
            relations(*x, *y).then_with(|| children(&[*a], &[*c]))
        }
        (Term::AlphaParallel(xs), Term::AlphaParallel(ys)) => {
            xs.len().cmp(&ys.len()).then_with(|| {
                xs.iter()
                    .zip(ys.iter())
                    .map(|(&(x, p), &(y, q))| {
                        sets(x, y).then_with(|| compare_states(procs, symmetry, p, q))
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
        }
        (Term::Linked(a, x, b), Term::Linked(c, y, d)) => {
            relations(*x, *y).then_with(|| children(&[*a, *b], &[*c, *d]))
        }
        (Term::Loop(a), Term::Loop(c)) | (Term::Chase(a), Term::Chase(c)) => children(&[*a], &[*c]),
        (
            Term::Compressed {
                compression: x,
                of: a,
                at: p,
            },
            Term::Compressed {
                compression: y,
                of: c,
                at: q,
            },
        ) => x
            .cmp(y)
            .then_with(|| children(&[*a], &[*c]))
            .then_with(|| match (p, q) {
                (Place::Member(v), Place::Member(w)) => children(&[*v], &[*w]),
                (Place::Numbered(m), Place::Numbered(n)) => m.cmp(n),
                (Place::Member(_), Place::Numbered(_)) => Ordering::Less,
                (Place::Numbered(_), Place::Member(_)) => Ordering::Greater,
            }),
        (Term::Prioritise(a, xs), Term::Prioritise(c, ys)) => xs
            .len()
            .cmp(&ys.len())
            .then_with(|| {
                xs.iter()
                    .zip(ys.iter())
                    .map(|(&x, &y)| sets(x, y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| children(&[*a], &[*c])),
        _ => term_kind(s).cmp(&term_kind(t)),
    }
}

fn term_kind(t: &Term) -> u8 {
    match t {
        Term::Node(_) => 0,
        Term::Stop => 1,
        Term::Skip => 2,
        Term::Div => 3,
        Term::Omega => 4,
        Term::Done(_) => 5,
        Term::Run(_) => 6,
        Term::Chaos(_) => 7,
        Term::ChaosOffer(_) => 8,
        Term::Chosen { .. } => 9,
        Term::ExternalChoice(_) => 10,
        Term::SequentialComposition(..) => 11,
        Term::Interrupt(..) => 12,
        Term::SlidingChoice(..) => 13,
        Term::Exception(..) => 14,
        Term::SyncExternalChoice(..) => 15,
        Term::SyncInterrupt(..) => 16,
        Term::Hide(..) => 17,
        Term::Rename(..) => 18,
        Term::Parallel(..) => 19,
        Term::AlphaParallel(_) => 20,
        Term::Linked(..) => 21,
        Term::Loop(_) => 22,
        Term::Prioritise(..) => 23,
        Term::Chase(_) => 24,
        Term::Compressed { .. } => 25,
    }
}

fn compare_procs(symmetry: &Symmetry, p: &Proc, q: &Proc) -> Ordering {
    match (p, q) {
        (Proc::Node { func: f, vars: x }, Proc::Node { func: g, vars: y }) => {
            f.cmp(g).then_with(|| compare_lists(symmetry, x, y))
        }
        (
            Proc::Builtin {
                builtin: b,
                args: x,
            },
            Proc::Builtin {
                builtin: c,
                args: y,
            },
        ) => b.cmp(c).then_with(|| compare_lists(symmetry, x, y)),
        _ => p.cmp(q),
    }
}

fn compare_lists(symmetry: &Symmetry, xs: &[Value], ys: &[Value]) -> Ordering {
    xs.len().cmp(&ys.len()).then_with(|| {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| compare_values(symmetry, x, y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

/// Values in their usual order, except that a distinguished value comes
/// before every other (distinguished values by type, then value).
fn compare_values(symmetry: &Symmetry, a: &Value, b: &Value) -> Ordering {
    match (symmetry.atom_of(a), symmetry.atom_of(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => match (a, b) {
            (Value::Named(x), Value::Named(y))
            | (Value::Dot(x), Value::Dot(y))
            | (Value::Tuple(x), Value::Tuple(y)) => compare_lists(symmetry, x, y),
            (Value::Seq(x), Value::Seq(y)) => compare_lists(symmetry, &x.to_vec(), &y.to_vec()),
            (Value::Proc(p), Value::Proc(q)) => compare_procs(symmetry, p, q),
            _ => a.cmp(b),
        },
    }
}

/// Buffers for finding representatives on a thread of its own
/// ([`SystemSymmetry::try_representative`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// The representative being made.
    out: Vec<u32>,
    workspace: Workspace,
    ranks: Vec<u32>,
    atoms: Vec<Atom>,
    bounds: Vec<u32>,
    exact: Vec<bool>,
    alpha: Vec<u32>,
    key: Vec<u32>,
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
        scratch: &'s mut Scratch,
        machine: &Machine,
        row: &[u32],
        out: &mut [u32],
    ) -> Option<&'s Permutation> {
        self.try_read(scratch, machine, row)?;
        let Scratch {
            workspace,
            ranks,
            atoms,
            bounds,
            exact,
            alpha,
            key,
            ..
        } = scratch;
        let input = Input {
            ranks,
            atoms,
            bounds,
            exact,
            type_sizes: &self.type_sizes,
        };
        let perm = workspace.representative(&input, None);
        self.try_apply(machine, perm, row, (alpha, key), out)?;
        Some(workspace.permutation())
    }

    /// Reads `row` into `scratch`'s input buffers from what is known;
    /// `None` where a label or a shape is not known yet.
    fn try_read(&self, scratch: &mut Scratch, machine: &Machine, row: &[u32]) -> Option<()> {
        let Scratch {
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
    fn try_alpha(
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
    fn try_apply(
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

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

mod explain;
mod mappability;
mod order;
mod permute;
mod reading;
mod strategies;
mod threads;

pub use explain::Explanation;
pub use order::compare_states;
pub use threads::RepresentativeScratch;

use mappability::check_generators;

use std::cmp::Ordering;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::EvalResult;
use crate::lts::machine::Machine;
use crate::lts::search::{Canonicaliser, Lendable, SharedCanonicaliser};
use crate::process::{ProcId, Processes};

use super::apply::Movable;
use super::label::{Labeller, Labels, key_of};
use super::perm::Permutation;
use super::rep::{Input, Trace, Workspace};
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
        let mut components = initial_components(machine, procs, &symmetry, &movable, &mut labeller);
        let generators = check_generators(machine, procs, &symmetry, &movable, &components)?;
        let orbits = symmetric_sets(&generators, &mut components);
        machine.share_tables(&orbits);
        let by_identity = identity_tables(&symmetry, &orbits, &mut components);
        let by_label = label_index(&components);
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
        self.strategy().runs_on_threads().then_some(self as _)
    }

    fn prepare(&mut self, machine: &Machine, procs: &mut Processes) -> EvalResult<()> {
        self.learn(machine, procs);
        Ok(())
    }
}

/// The symmetry made lendable to the search's threads: they hold it
/// while the search's thread judges a block, and it learns between
/// blocks. It leaves extra columns alone, so there is nothing to finish
/// while it is lent.
impl Canonicaliser for Lendable<SystemSymmetry> {
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        self.get_mut().canonicalise(machine, procs, row)
    }

    fn shared(&self) -> Option<&dyn SharedCanonicaliser> {
        self.get().shared()
    }

    fn lend(&self) -> Option<Arc<dyn SharedCanonicaliser>> {
        self.get().shared()?;
        Some(self.lent())
    }

    fn prepare(&mut self, machine: &Machine, procs: &mut Processes) -> EvalResult<()> {
        self.get_mut().prepare(machine, procs)
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

/// Each component's initial state with its label, `inst` among equal
/// initial states, and an orbit of its own until the symmetric sets are
/// known.
fn initial_components(
    machine: &Machine,
    procs: &mut Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    labeller: &mut Labeller,
) -> Vec<Component> {
    let n = machine.components();
    let mut components = Vec::with_capacity(n);
    let mut equal: FxHashMap<ProcId, usize> = FxHashMap::default();
    for slot in 0..n {
        let initial = machine.process_state(slot, machine.initial()[slot]);
        let inst = equal.entry(initial).or_default();
        let shape = labeller.shape(procs, symmetry, movable, initial);
        let (atoms, exact) = labeller.variables(procs, symmetry, movable, initial);
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
    components
}

/// Symmetric sets: the orbits of the components under the α's, each
/// component told its own.
fn symmetric_sets(
    generators: &[(Permutation, Vec<usize>)],
    components: &mut [Component],
) -> Vec<Vec<usize>> {
    let n = components.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (_, alpha) in generators {
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
    orbits
}

/// How α finds each component's image: fixed where nothing of it moves,
/// by identity where its symmetric set has one (per orbit, the component
/// holding each value of the identity's type), by label otherwise.
fn identity_tables(
    symmetry: &Symmetry,
    orbits: &[Vec<usize>],
    components: &mut [Component],
) -> Vec<Vec<u32>> {
    let mut by_identity = vec![Vec::new(); orbits.len()];
    for (o, members) in orbits.iter().enumerate() {
        let moves = |c: &Component| !c.initial_atoms.is_empty() || !c.initial_exact;
        if members.len() == 1 && !moves(&components[members[0]]) {
            components[members[0]].image = Image::Fixed;
            continue;
        }
        if let Some(position) = identity_position(components, members) {
            let ty = components[members[0]].initial_atoms[position].ty();
            let mut holder = vec![u32::MAX; symmetry.types()[ty].values.len()];
            for &m in members {
                holder[components[m].initial_atoms[position].index()] = m as u32;
                components[m].image = Image::Identity { orbit: o, position };
            }
            by_identity[o] = holder;
        }
    }
    by_identity
}

/// Components by initial label key and `inst`.
fn label_index(components: &[Component]) -> FxHashMap<Box<[u32]>, Vec<usize>> {
    let mut by_label: FxHashMap<Box<[u32]>, Vec<usize>> = FxHashMap::default();
    let mut key = Vec::new();
    for (slot, c) in components.iter().enumerate() {
        key_of(c.initial_shape, c.initial_atoms.iter().copied(), &mut key);
        let slots = by_label.entry(key.as_slice().into()).or_default();
        if slots.len() == c.inst {
            slots.push(slot);
        }
    }
    by_label
}

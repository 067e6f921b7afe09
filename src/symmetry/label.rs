//! Component states as the representative algorithm reads them: a
//! *shape* — the state with every distinguished value replaced by the
//! first of its type, the same for all its images — and its
//! *distinguished variables*, the distinguished values it holds in
//! order: a control state's variables in parameter order (`Node(me,
//! datum, next)`), tuples, dotted values and sequences taken apart
//! (Section 7.1's sketch), the operands of a term in turn.
//!
//! A state is *exact* when its shape and variables determine it: no
//! distinguished value sits inside a set, a map, a function or an event
//! set (those are permuted correctly but ignored for ordering, as in
//! FDR). The image of an exact state under a permutation is then found by
//! permuting its variables and looking the result up, with no evaluation
//! and no allocation; other states are permuted as terms.

use std::ops::Range;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::{Proc, Value};
use crate::process::{ProcId, Processes, Term};
use crate::script::ir::FuncId;

use super::apply::{Collapse, Movable, holds_distinguished, map_state};
use super::spec::{Atom, Symmetry};

/// A component state, read for ordering.
#[derive(Debug, Clone)]
pub struct Label {
    pub shape: ProcId,
    /// Its distinguished variables: a range of [`Labels::pool`].
    atoms: Range<u32>,
    pub exact: bool,
}

/// The labels of one table of component states (by local number), and
/// the index of its exact states by shape and variables.
#[derive(Debug, Default)]
pub struct Labels {
    labels: Vec<Label>,
    pool: Vec<Atom>,
    /// Exact states by key: the shape, then the variables.
    index: FxHashMap<Box<[u32]>, u32>,
}

/// The key of an exact state in [`Labels`], built in `key` (reused).
pub fn key_of(shape: ProcId, atoms: impl Iterator<Item = Atom>, key: &mut Vec<u32>) {
    key.clear();
    key.push(shape.0);
    key.extend(atoms.map(Atom::raw));
}

impl Labels {
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    pub fn label(&self, local: u32) -> &Label {
        &self.labels[local as usize]
    }

    /// The distinguished variables of local state `local`.
    pub fn atoms(&self, local: u32) -> &[Atom] {
        let r = &self.labels[local as usize].atoms;
        &self.pool[r.start as usize..r.end as usize]
    }

    /// The local number of the exact state with the key `key` (see
    /// [`key_of`]), if this table has it.
    pub fn find(&self, key: &[u32]) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// Records the label of the next local state.
    fn push(&mut self, shape: ProcId, atoms: &[Atom], exact: bool) {
        let local = self.labels.len() as u32;
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(atoms);
        self.labels.push(Label {
            shape,
            atoms: start..self.pool.len() as u32,
            exact,
        });
        if exact {
            let mut key = Vec::with_capacity(atoms.len() + 1);
            key_of(shape, atoms.iter().copied(), &mut key);
            self.index.entry(key.into()).or_insert(local);
        }
    }
}

/// Reads process states into labels, remembering shapes and the order of
/// each control state's variables.
pub struct Labeller {
    shapes: FxHashMap<ProcId, ProcId>,
    orders: FxHashMap<FuncId, Arc<[usize]>>,
    atoms: Vec<Atom>,
}

impl Labeller {
    pub fn new() -> Labeller {
        Labeller {
            shapes: FxHashMap::default(),
            orders: FxHashMap::default(),
            atoms: Vec::new(),
        }
    }

    /// Adds to `labels` the label of process state `p`, numbered next.
    pub fn push(
        &mut self,
        procs: &mut Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        labels: &mut Labels,
        p: ProcId,
    ) {
        let shape = self.shape(procs, symmetry, movable, p);
        self.atoms.clear();
        let exact = self.read_state(procs, symmetry, movable, p);
        labels.push(shape, &self.atoms, exact);
    }

    /// The shape of `p`: every distinguished value the first of its type.
    pub fn shape(
        &mut self,
        procs: &mut Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        p: ProcId,
    ) -> ProcId {
        if let Some(&s) = self.shapes.get(&p) {
            return s;
        }
        let s = map_state(procs, p, &mut Collapse { symmetry, movable });
        self.shapes.insert(p, s);
        s
    }

    /// The distinguished variables of `p` and `label`'s variables, into
    /// `self.atoms`; whether `p` is exact.
    pub fn variables(
        &mut self,
        procs: &Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        p: ProcId,
    ) -> (Vec<Atom>, bool) {
        self.atoms.clear();
        let exact = self.read_state(procs, symmetry, movable, p);
        (self.atoms.clone(), exact)
    }

    fn read_state(
        &mut self,
        procs: &Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        p: ProcId,
    ) -> bool {
        let sets_fixed = |set| !movable.any(procs.set(set));
        match procs.term(p) {
            Term::Node(proc) => self.read_proc(procs, symmetry, proc),
            Term::Stop | Term::Skip | Term::Div | Term::Omega | Term::Done(_) => true,
            Term::Run(s) | Term::Chaos(s) | Term::ChaosOffer(s) => sets_fixed(*s),
            Term::Chosen { prefix, choice } => {
                let exact = self.read_state(procs, symmetry, movable, *prefix);
                exact & self.read_values(symmetry, choice)
            }
            Term::ExternalChoice(ps) => self.read_states(procs, symmetry, movable, ps),
            Term::SequentialComposition(a, b)
            | Term::Interrupt(a, b)
            | Term::SlidingChoice(a, b) => {
                let e = self.read_state(procs, symmetry, movable, *a);
                self.read_state(procs, symmetry, movable, *b) && e
            }
            Term::Exception(a, s, b) | Term::SyncInterrupt(a, s, b) => {
                let e = self.read_state(procs, symmetry, movable, *a);
                let e = self.read_state(procs, symmetry, movable, *b) && e;
                sets_fixed(*s) && e
            }
            Term::SyncExternalChoice(s, ps) | Term::Parallel(s, ps) => {
                let e = self.read_states(procs, symmetry, movable, ps);
                sets_fixed(*s) && e
            }
            Term::Hide(c, s) => {
                let e = self.read_state(procs, symmetry, movable, *c);
                sets_fixed(*s) && e
            }
            Term::Rename(c, r) => {
                let e = self.read_state(procs, symmetry, movable, *c);
                relation_fixed(procs, movable, *r) && e
            }
            Term::AlphaParallel(pairs) => pairs.iter().fold(true, |e, &(s, c)| {
                let inner = self.read_state(procs, symmetry, movable, c);
                sets_fixed(s) && inner && e
            }),
            Term::Linked(a, r, b) => {
                let e = self.read_state(procs, symmetry, movable, *a);
                let e = self.read_state(procs, symmetry, movable, *b) && e;
                relation_fixed(procs, movable, *r) && e
            }
            Term::Loop(c) => self.read_state(procs, symmetry, movable, *c),
        }
    }

    fn read_proc(&mut self, procs: &Processes, symmetry: &Symmetry, proc: &Proc) -> bool {
        match proc {
            Proc::Node { func, vars } => {
                let order = self.order(procs, *func, vars.len());
                order
                    .iter()
                    .fold(true, |e, &i| self.read_value(symmetry, &vars[i]) & e)
            }
            Proc::Builtin { args, .. } => self.read_values(symmetry, args),
        }
    }

    /// The order in which a control state's variables are read: the
    /// definition's parameters first, as written (`me, datum, next`),
    /// then any other variable it captured.
    fn order(&mut self, procs: &Processes, func: FuncId, vars: usize) -> Arc<[usize]> {
        self.orders
            .entry(func)
            .or_insert_with(|| {
                let params: Vec<usize> = procs
                    .script()
                    .function(func)
                    .call_form
                    .as_ref()
                    .map(|form| form.params.iter().flatten().map(|&i| i as usize).collect())
                    .unwrap_or_default();
                let rest = (0..vars).filter(|i| !params.contains(i));
                params.iter().copied().chain(rest).collect()
            })
            .clone()
    }

    /// Reads states in turn (all of them); whether all are exact.
    fn read_states(
        &mut self,
        procs: &Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        states: &[ProcId],
    ) -> bool {
        let mut exact = true;
        for &p in states {
            exact &= self.read_state(procs, symmetry, movable, p);
        }
        exact
    }

    /// Reads values in turn (all of them); whether all are exact.
    fn read_values(&mut self, symmetry: &Symmetry, values: &[Value]) -> bool {
        let mut exact = true;
        for v in values {
            exact &= self.read_value(symmetry, v);
        }
        exact
    }

    /// Reads a value's distinguished variables; `false` when a
    /// distinguished value hides where ordering does not look.
    fn read_value(&mut self, symmetry: &Symmetry, value: &Value) -> bool {
        match value {
            Value::Ctor(c) => {
                if let Some(atom) = symmetry.atom(*c) {
                    self.atoms.push(atom);
                }
                true
            }
            Value::Named(parts) | Value::Dot(parts) | Value::Tuple(parts) | Value::Env(parts) => {
                self.read_values(symmetry, parts)
            }
            Value::Seq(seq) => seq
                .iter()
                .fold(true, |e, v| self.read_value(symmetry, v) & e),
            Value::Proc(proc) => match &**proc {
                Proc::Node { vars, .. } => self.read_values(symmetry, vars),
                Proc::Builtin { args, .. } => self.read_values(symmetry, args),
            },
            other => !holds_distinguished(symmetry, other),
        }
    }
}

impl Default for Labeller {
    fn default() -> Labeller {
        Labeller::new()
    }
}

fn relation_fixed(procs: &Processes, movable: &Movable, r: crate::process::RelationId) -> bool {
    !procs
        .relation(r)
        .pairs()
        .iter()
        .any(|&(a, b)| movable.is_movable(a) || movable.is_movable(b))
}

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
//! and no allocation. Any other state is permuted as a term the first
//! time, and its image remembered by the images of the values it holds
//! (its *support*), which are all its image depends on.

use std::ops::Range;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::{Proc, Value};
use crate::process::{Place, ProcId, Processes, Term};
use crate::script::ir::FuncId;

use super::apply::{Collapse, Movable, holds_distinguished, map_state};
use super::perm::Permutation;
use super::spec::{Atom, Symmetry};

/// A component state, read for ordering.
#[derive(Debug, Clone)]
pub struct Label {
    pub shape: ProcId,
    /// Its distinguished variables: a range of [`Labels::pool`].
    atoms: Range<u32>,
    /// Of a state that is not exact: every distinguished value it holds,
    /// sorted and once each (a range of the pool).
    support: Range<u32>,
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
    /// Images of states that are not exact: by the state's number, then
    /// the images of its support.
    images: FxHashMap<Box<[u32]>, u32>,
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

    /// The distinguished values a state that is not exact holds.
    pub fn support(&self, local: u32) -> &[Atom] {
        let r = &self.labels[local as usize].support;
        &self.pool[r.start as usize..r.end as usize]
    }

    /// The image of a state that is not exact, remembered by `key` (see
    /// [`Labels::remember`]).
    pub fn remembered(&self, key: &[u32]) -> Option<u32> {
        self.images.get(key).copied()
    }

    /// Remembers the image of a state that is not exact under a
    /// permutation, by the key `[local, π(support)...]`.
    pub fn remember(&mut self, key: &[u32], image: u32) {
        self.images.insert(key.into(), image);
    }

    /// Records the label of the next local state, the image of exact
    /// state `of` under `perm`: its shape, its variables permuted. It is
    /// what [`Labeller::push`] would work out from the image's term,
    /// without walking the term again.
    pub fn push_image(&mut self, of: u32, perm: &Permutation) {
        let label = &self.labels[of as usize];
        debug_assert!(label.exact, "only an exact state's image is known");
        let shape = label.shape;
        let atoms: Vec<Atom> = self.atoms(of).iter().map(|&a| perm.apply(a)).collect();
        self.push(shape, &atoms, &[], true);
    }

    /// Records the label of the next local state.
    fn push(&mut self, shape: ProcId, atoms: &[Atom], support: &[Atom], exact: bool) {
        let local = self.labels.len() as u32;
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(atoms);
        let end = self.pool.len() as u32;
        self.pool.extend_from_slice(support);
        self.labels.push(Label {
            shape,
            atoms: start..end,
            support: end..self.pool.len() as u32,
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
        let mut atoms = std::mem::take(&mut self.atoms);
        atoms.clear();
        let exact = self.read(procs, symmetry, movable, p, &mut atoms);
        let mut support = Vec::new();
        if !exact {
            state_atoms(procs, symmetry, movable, p, &mut support);
            support.sort_unstable();
            support.dedup();
        }
        labels.push(shape, &atoms, &support, exact);
        self.atoms = atoms;
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

    /// The distinguished variables of `p`, and whether `p` is exact.
    pub fn variables(
        &mut self,
        procs: &Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        p: ProcId,
    ) -> (Vec<Atom>, bool) {
        let mut atoms = Vec::new();
        let exact = self.read(procs, symmetry, movable, p, &mut atoms);
        (atoms, exact)
    }

    /// Walks `p`'s distinguished variables in the algorithm's order,
    /// telling `reading` each one (and, for naming, how it was reached);
    /// whether `p` is exact. The one definition of that order: the
    /// algorithm's labels and the variables' names both come from here.
    pub fn read<R: Reading>(
        &mut self,
        procs: &Processes,
        symmetry: &Symmetry,
        movable: &Movable,
        p: ProcId,
        reading: &mut R,
    ) -> bool {
        StateReader {
            procs,
            symmetry,
            movable,
            orders: &mut self.orders,
            reading,
        }
        .state(p)
    }
}

/// What a walk over a state's distinguished variables reports.
pub trait Reading {
    /// The next distinguished variable holds `atom`.
    fn variable(&mut self, atom: Atom);
    /// The walk goes into `part`: every variable until the matching
    /// [`Reading::leave`] is inside it. (Only naming needs this: the
    /// algorithm's reading ignores it.)
    #[inline]
    fn enter(&mut self, part: Part<'_>) {
        let _ = part;
    }
    #[inline]
    fn leave(&mut self) {}
}

/// The algorithm's reading: the values, in order.
impl Reading for Vec<Atom> {
    #[inline]
    fn variable(&mut self, atom: Atom) {
        self.push(atom);
    }
}

/// A step of the walk into a state, for naming what is inside it.
#[derive(Debug, Clone, Copy)]
pub enum Part<'a> {
    /// Captured variable `index` of process function `func` (`me` of
    /// `Node(me, datum, next)`).
    Variable { func: FuncId, index: usize },
    /// The `position`-th part (from 1) of a tuple, a dotted value, a
    /// sequence, a let group or a constructor's fields.
    Position(usize),
    /// Operand `index` of a term whose operands are `operands`.
    Operand {
        index: usize,
        operands: &'a [ProcId],
    },
    /// The values a prefix chose for its nondeterministic fields.
    Chosen,
    /// The arguments of a built-in process (`RUN(A)`), by name.
    Builtin(&'static str),
}

/// One walk over a state, with the caches it needs.
struct StateReader<'w, R> {
    procs: &'w Processes<'w>,
    symmetry: &'w Symmetry,
    movable: &'w Movable,
    orders: &'w mut FxHashMap<FuncId, Arc<[usize]>>,
    reading: &'w mut R,
}

impl<R: Reading> StateReader<'_, R> {
    fn state(&mut self, p: ProcId) -> bool {
        let procs = self.procs;
        let sets_fixed = |set| !self.movable.any(procs.set(set));
        match procs.term(p) {
            Term::Node(proc) => self.proc(proc),
            Term::Stop | Term::Skip | Term::Div | Term::Omega | Term::Done(_) => true,
            Term::Run(s) | Term::Chaos(s) | Term::ChaosOffer(s) => sets_fixed(*s),
            Term::Chosen { prefix, choice } => {
                let exact = self.state(*prefix);
                self.reading.enter(Part::Chosen);
                let chosen = self.values(choice.iter());
                self.reading.leave();
                exact & chosen
            }
            Term::ExternalChoice(ps) => self.operands(ps),
            Term::SequentialComposition(a, b)
            | Term::Interrupt(a, b)
            | Term::SlidingChoice(a, b) => self.operands(&[*a, *b]),
            Term::Exception(a, s, b) | Term::SyncInterrupt(a, s, b) => {
                let e = self.operands(&[*a, *b]);
                sets_fixed(*s) && e
            }
            Term::SyncExternalChoice(s, ps) | Term::Parallel(s, ps) => {
                let e = self.operands(ps);
                sets_fixed(*s) && e
            }
            Term::Hide(c, s) => {
                let e = self.state(*c);
                sets_fixed(*s) && e
            }
            Term::Rename(c, r) => {
                let e = self.state(*c);
                relation_fixed(procs, self.movable, *r) && e
            }
            Term::AlphaParallel(pairs) => {
                let operands: Vec<ProcId> = pairs.iter().map(|&(_, c)| c).collect();
                let e = self.operands(&operands);
                pairs.iter().all(|&(s, _)| sets_fixed(s)) && e
            }
            Term::Linked(a, r, b) => {
                let e = self.operands(&[*a, *b]);
                relation_fixed(procs, self.movable, *r) && e
            }
            Term::Loop(c) | Term::Chase(c) => self.state(*c),
            Term::Compressed { of, at, .. } => {
                let e = self.state(*of);
                match at {
                    Place::Member(w) => self.state(*w) && e,
                    Place::Numbered(_) => e,
                }
            }
            Term::Prioritise(c, levels) => {
                let e = self.state(*c);
                levels.iter().all(|&s| sets_fixed(s)) && e
            }
            Term::PrioritiseOrder(c, r) => {
                let e = self.state(*c);
                relation_fixed(procs, self.movable, *r) && e
            }
            Term::Buffer { links, queue, .. } => {
                // What the buffer owes is read as the values it holds.
                self.reading.enter(Part::Builtin("BUFFER"));
                let owed = self.values(queue.iter().filter_map(|&e| procs.events().value(e)));
                self.reading.leave();
                relation_fixed(procs, self.movable, *links) && owed
            }
        }
    }

    /// Reads a term's operands in turn (all of them); whether all are
    /// exact.
    fn operands(&mut self, operands: &[ProcId]) -> bool {
        let mut exact = true;
        for (index, &p) in operands.iter().enumerate() {
            self.reading.enter(Part::Operand { index, operands });
            exact &= self.state(p);
            self.reading.leave();
        }
        exact
    }

    fn proc(&mut self, proc: &Proc) -> bool {
        match proc {
            Proc::Node { func, vars } => {
                let order = self.order(*func, vars.len());
                order.iter().fold(true, |e, &index| {
                    self.variable(*func, index, &vars[index]) & e
                })
            }
            Proc::Builtin { builtin, args } => {
                self.reading.enter(Part::Builtin(builtin.name()));
                let exact = self.values(args.iter());
                self.reading.leave();
                exact
            }
        }
    }

    fn variable(&mut self, func: FuncId, index: usize, value: &Value) -> bool {
        self.reading.enter(Part::Variable { func, index });
        let exact = self.value(value);
        self.reading.leave();
        exact
    }

    /// The order in which a control state's variables are read: the
    /// definition's parameters first, as written (`me, datum, next`),
    /// then any other variable it captured.
    fn order(&mut self, func: FuncId, vars: usize) -> Arc<[usize]> {
        let procs = self.procs;
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

    /// Reads values in turn (all of them), each a numbered part; whether
    /// all are exact.
    fn values<'v>(&mut self, values: impl IntoIterator<Item = &'v Value>) -> bool {
        let mut exact = true;
        for (i, v) in values.into_iter().enumerate() {
            self.reading.enter(Part::Position(i + 1));
            exact &= self.value(v);
            self.reading.leave();
        }
        exact
    }

    /// Reads a value's distinguished variables; `false` when a
    /// distinguished value hides where ordering does not look.
    fn value(&mut self, value: &Value) -> bool {
        match value {
            Value::Ctor(c) => {
                if let Some(atom) = self.symmetry.atom(*c) {
                    self.reading.variable(atom);
                }
                true
            }
            // A constructor's or channel's fields, numbered after its
            // name (which is never distinguished: it has fields).
            Value::Named(parts) => {
                let head = self.value(&parts[0]);
                self.values(parts.iter().skip(1)) && head
            }
            Value::Dot(parts) | Value::Tuple(parts) | Value::Env(parts) => {
                self.values(parts.iter())
            }
            Value::Seq(seq) => self.values(seq.iter()),
            Value::Proc(proc) => match &**proc {
                Proc::Node { func, vars } => vars
                    .iter()
                    .enumerate()
                    .fold(true, |e, (index, v)| self.variable(*func, index, v) & e),
                Proc::Builtin { .. } => self.proc(proc),
            },
            other => !holds_distinguished(self.symmetry, other),
        }
    }
}

impl Default for Labeller {
    fn default() -> Labeller {
        Labeller::new()
    }
}

/// Every distinguished value in a process state, deeply (sets, maps,
/// functions and event sets included), in no particular order.
fn state_atoms(
    procs: &Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    p: ProcId,
    out: &mut Vec<Atom>,
) {
    let events = |set: &crate::process::EventSet, out: &mut Vec<Atom>| {
        for e in set.iter().filter(|&e| movable.is_movable(e)) {
            if let Some(v) = procs.events().value(e) {
                value_atoms(symmetry, v, out);
            }
        }
    };
    let children: Vec<ProcId> = match procs.term(p) {
        Term::Node(proc) => {
            value_atoms(symmetry, &Value::Proc(proc.clone()), out);
            Vec::new()
        }
        Term::Stop | Term::Skip | Term::Div | Term::Omega | Term::Done(_) => Vec::new(),
        Term::Run(s) | Term::Chaos(s) | Term::ChaosOffer(s) => {
            events(procs.set(*s), out);
            Vec::new()
        }
        Term::Chosen { prefix, choice } => {
            for v in choice.iter() {
                value_atoms(symmetry, v, out);
            }
            vec![*prefix]
        }
        Term::ExternalChoice(ps) => ps.to_vec(),
        Term::SequentialComposition(a, b) | Term::Interrupt(a, b) | Term::SlidingChoice(a, b) => {
            vec![*a, *b]
        }
        Term::Exception(a, s, b) | Term::SyncInterrupt(a, s, b) => {
            events(procs.set(*s), out);
            vec![*a, *b]
        }
        Term::SyncExternalChoice(s, ps) | Term::Parallel(s, ps) => {
            events(procs.set(*s), out);
            ps.to_vec()
        }
        Term::Hide(c, s) => {
            events(procs.set(*s), out);
            vec![*c]
        }
        Term::Rename(c, r) => {
            relation_atoms(procs, symmetry, movable, *r, out);
            vec![*c]
        }
        Term::AlphaParallel(pairs) => pairs
            .iter()
            .map(|&(s, c)| {
                events(procs.set(s), out);
                c
            })
            .collect(),
        Term::Linked(a, r, b) => {
            relation_atoms(procs, symmetry, movable, *r, out);
            vec![*a, *b]
        }
        Term::Loop(c) | Term::Chase(c) => vec![*c],
        Term::Compressed { of, at, .. } => match at {
            Place::Member(w) => vec![*of, *w],
            Place::Numbered(_) => vec![*of],
        },
        Term::Prioritise(c, levels) => {
            for &s in levels.iter() {
                events(procs.set(s), out);
            }
            vec![*c]
        }
        Term::PrioritiseOrder(c, r) => {
            relation_atoms(procs, symmetry, movable, *r, out);
            vec![*c]
        }
        Term::Buffer { links, queue, .. } => {
            relation_atoms(procs, symmetry, movable, *links, out);
            for &e in queue.iter().filter(|&&e| movable.is_movable(e)) {
                if let Some(v) = procs.events().value(e) {
                    value_atoms(symmetry, v, out);
                }
            }
            Vec::new()
        }
    };
    for c in children {
        state_atoms(procs, symmetry, movable, c, out);
    }
}

fn relation_atoms(
    procs: &Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    r: crate::process::RelationId,
    out: &mut Vec<Atom>,
) {
    for &(a, b) in procs.relation(r).pairs() {
        for e in [a, b].into_iter().filter(|&e| movable.is_movable(e)) {
            if let Some(v) = procs.events().value(e) {
                value_atoms(symmetry, v, out);
            }
        }
    }
}

/// Every distinguished value in a value, deeply.
fn value_atoms(symmetry: &Symmetry, value: &Value, out: &mut Vec<Atom>) {
    use crate::eval::value::Slot;
    fn env(symmetry: &Symmetry, slots: &[Slot], out: &mut Vec<Atom>) {
        for slot in slots {
            match slot {
                Slot::Empty => {}
                Slot::Value(v) => value_atoms(symmetry, v, out),
                Slot::Group(inner) => env(symmetry, inner, out),
                Slot::Lazy(thunk) => env(symmetry, &thunk.env, out),
            }
        }
    }
    match value {
        Value::Ctor(c) => out.extend(symmetry.atom(*c)),
        Value::Named(parts) | Value::Dot(parts) | Value::Tuple(parts) | Value::Env(parts) => {
            parts.iter().for_each(|v| value_atoms(symmetry, v, out))
        }
        Value::Seq(seq) => seq.iter().for_each(|v| value_atoms(symmetry, v, out)),
        Value::Stream(stream) => {
            stream
                .prefix()
                .iter()
                .for_each(|v| value_atoms(symmetry, v, out));
            if let crate::eval::value::Rest::Comprehension(s) = stream.rest() {
                env(symmetry, &s.env, out);
                env(symmetry, &s.locals, out);
                value_atoms(symmetry, &Value::Stream(s.source.clone()), out);
            }
        }
        Value::Set(set) => set
            .as_finite()
            .into_iter()
            .flatten()
            .for_each(|v| value_atoms(symmetry, v, out)),
        Value::Map(m) => m.iter().for_each(|(k, v)| {
            value_atoms(symmetry, k, out);
            value_atoms(symmetry, v, out);
        }),
        Value::Image(image) => image.iter().for_each(|(k, set)| {
            value_atoms(symmetry, k, out);
            set.as_finite()
                .into_iter()
                .flatten()
                .for_each(|v| value_atoms(symmetry, v, out));
        }),
        Value::Closure(closure) => {
            closure
                .applied
                .iter()
                .for_each(|v| value_atoms(symmetry, v, out));
            env(symmetry, &closure.env, out);
        }
        Value::Proc(proc) => match &**proc {
            Proc::Node { vars, .. } => vars.iter().for_each(|v| value_atoms(symmetry, v, out)),
            Proc::Builtin { args, .. } => args.iter().for_each(|v| value_atoms(symmetry, v, out)),
        },
        Value::Int(_) | Value::Bool(_) | Value::Char(_) | Value::Channel(_) | Value::Builtin(_) => {
        }
    }
}

fn relation_fixed(procs: &Processes, movable: &Movable, r: crate::process::RelationId) -> bool {
    !procs
        .relation(r)
        .pairs()
        .iter()
        .any(|&(a, b)| movable.is_movable(a) || movable.is_movable(b))
}

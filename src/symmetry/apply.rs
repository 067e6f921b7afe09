//! Permutations applied to everything a state is made of: values (deeply:
//! dotted and datatype values, tuples, sequences, sets re-sorted, maps
//! rebuilt, functions through what they captured), events, event sets
//! and relations, and process states — a control state with its
//! variables permuted and re-interned (Lemma 34), or a term over such.
//!
//! One mechanism serves a permutation and the *collapse* that sends every
//! distinguished value to its type's first (the shape of a state, the
//! same for all its images): a [`ValueMap`] says what happens to each
//! constructor and event set.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::eval::value::{Closure, Rest, Slot, Stream, Suspended, Thunk};
use crate::eval::{Proc, Set, Value};
use crate::process::{
    EventId, EventRelation, EventSet, EventTable, Place, ProcId, Processes, RelationId, SetId, Term,
};
use crate::script::ir::CtorId;

use super::perm::Permutation;
use super::spec::{Atom, Symmetry};

/// What a value map does to the distinguished parts of a state.
pub trait ValueMap {
    /// The image of a constructor; `None` when it stays.
    fn ctor(&self, c: CtorId) -> Option<CtorId>;
    /// The image of an event set held by a term.
    fn set(&mut self, procs: &mut Processes, set: SetId) -> SetId;
    /// The image of an event relation held by a term.
    fn relation(&mut self, procs: &mut Processes, relation: RelationId) -> RelationId;
    /// The image of one event held by a term (what a `BUFFER` owes).
    fn event(&mut self, procs: &mut Processes, event: EventId) -> EventId;
}

/// The image of `value`, or `None` when the map leaves it as it is (so an
/// unchanged value keeps its storage).
pub fn map_value(value: &Value, map: &dyn ValueMap) -> Option<Value> {
    let all = |values: &[Value]| map_all(values, map);
    match value {
        Value::Int(_) | Value::Bool(_) | Value::Char(_) | Value::Channel(_) | Value::Builtin(_) => {
            None
        }
        Value::Ctor(c) => map.ctor(*c).map(Value::Ctor),
        Value::Named(parts) => all(parts).map(|p| Value::Named(p.into())),
        Value::Dot(parts) => all(parts).map(|p| Value::Dot(p.into())),
        Value::Tuple(parts) => all(parts).map(|p| Value::Tuple(p.into())),
        Value::Env(parts) => all(parts).map(|p| Value::Env(p.into())),
        Value::Seq(seq) => all(&seq.to_vec()).map(Value::seq),
        Value::Stream(stream) => map_stream(stream, map).map(|s| Value::Stream(Arc::new(s))),
        Value::Set(set) => map_set_value(set, map).map(Value::set),
        Value::Map(m) => {
            let pairs: Vec<(Value, Value)> =
                m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let keys: Vec<Value> = pairs.iter().map(|(k, _)| k.clone()).collect();
            let values: Vec<Value> = pairs.iter().map(|(_, v)| v.clone()).collect();
            let (new_keys, new_values) = (all(&keys), all(&values));
            if new_keys.is_none() && new_values.is_none() {
                return None;
            }
            let keys = new_keys.unwrap_or(keys);
            let values = new_values.unwrap_or(values);
            Some(Value::Map(Arc::new(keys.into_iter().zip(values).collect())))
        }
        Value::Image(image) => {
            let mut changed = false;
            let mut out = BTreeMap::new();
            for (k, set) in image.iter() {
                let key = map_value(k, map);
                let set2 = map_set_value(set, map);
                changed |= key.is_some() || set2.is_some();
                out.insert(
                    key.unwrap_or_else(|| k.clone()),
                    set2.unwrap_or_else(|| set.clone()),
                );
            }
            changed.then(|| Value::Image(Arc::new(out)))
        }
        Value::Closure(closure) => map_closure(closure, map).map(Value::Closure),
        Value::Proc(proc) => map_proc(proc, map).map(Value::Proc),
    }
}

/// A set's image, re-sorted; symbolic sets (types, `Int`, `Seq(A)`) are
/// closed under every permutation and stay.
fn map_set_value(set: &Set, map: &dyn ValueMap) -> Option<Set> {
    let Set::Finite(values) = set else {
        return None;
    };
    map_all(values, map).map(Set::from_values)
}

/// The images of `values`, or `None` when none of them changes.
fn map_all(values: &[Value], map: &dyn ValueMap) -> Option<Vec<Value>> {
    let mapped: Vec<Option<Value>> = values.iter().map(|v| map_value(v, map)).collect();
    mapped.iter().any(Option::is_some).then(|| {
        mapped
            .into_iter()
            .zip(values)
            .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
            .collect()
    })
}

fn map_proc(proc: &Proc, map: &dyn ValueMap) -> Option<Arc<Proc>> {
    let all = |values: &[Value]| map_all(values, map).map(Arc::<[Value]>::from);
    match proc {
        Proc::Node { func, vars } => {
            all(vars).map(|vars| Arc::new(Proc::Node { func: *func, vars }))
        }
        Proc::Builtin { builtin, args } => all(args).map(|args| {
            Arc::new(Proc::Builtin {
                builtin: *builtin,
                args,
            })
        }),
    }
}

/// A function's image: the same function over the images of what it
/// captured and of the arguments applied so far — `π(f) = π ∘ f ∘ π⁻¹`,
/// since the script is constant-free (Proposition 24).
fn map_closure(closure: &Closure, map: &dyn ValueMap) -> Option<Arc<Closure>> {
    let env = map_env(&closure.env, map);
    let applied = map_all(&closure.applied, map);
    if env.is_none() && applied.is_none() {
        return None;
    }
    Some(Arc::new(Closure {
        func: closure.func,
        env: env.unwrap_or_else(|| closure.env.clone()),
        applied: applied.unwrap_or_else(|| closure.applied.clone()),
        groups: closure.groups,
    }))
}

/// An infinite sequence's image: its known elements' images, and a
/// comprehension still to yield the rest mapped as a closure is (what it
/// captured, and what its generator draws from).
fn map_stream(stream: &Stream, map: &dyn ValueMap) -> Option<Stream> {
    let prefix = map_all(&stream.prefix().to_vec(), map);
    let rest = match stream.rest() {
        Rest::From(_) => None,
        Rest::Comprehension(s) => {
            let env = map_env(&s.env, map);
            let locals = map_env(&s.locals, map);
            let source = map_stream(&s.source, map);
            if env.is_none() && locals.is_none() && source.is_none() {
                None
            } else {
                Some(Rest::Comprehension(Arc::new(Suspended {
                    expr: s.expr,
                    generator: s.generator,
                    env: env.unwrap_or_else(|| s.env.clone()),
                    locals: locals.unwrap_or_else(|| s.locals.clone()),
                    source: source.map_or_else(|| s.source.clone(), Arc::new),
                })))
            }
        }
    };
    if prefix.is_none() && rest.is_none() {
        return None;
    }
    Some(stream.with_parts(
        prefix.unwrap_or_else(|| stream.prefix().to_vec()),
        rest.unwrap_or_else(|| stream.rest().clone()),
    ))
}

fn map_env(env: &[Slot], map: &dyn ValueMap) -> Option<Arc<[Slot]>> {
    let mapped: Vec<Option<Slot>> = env
        .iter()
        .map(|slot| match slot {
            Slot::Empty => None,
            Slot::Value(v) => map_value(v, map).map(Slot::Value),
            Slot::Group(inner) => map_env(inner, map).map(Slot::Group),
            Slot::Lazy(thunk) => {
                let env = map_env(&thunk.env, map)?;
                // A constant already evaluated keeps its (mapped) value.
                let value = OnceLock::new();
                if let Some(v) = thunk.value.get() {
                    let _ = value.set(map_value(v, map).unwrap_or_else(|| v.clone()));
                }
                Some(Slot::Lazy(Arc::new(Thunk {
                    func: thunk.func,
                    env,
                    value,
                })))
            }
        })
        .collect();
    mapped.iter().any(Option::is_some).then(|| {
        mapped
            .into_iter()
            .zip(env)
            .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
            .collect()
    })
}

/// The image of process state `p` (a term and everything below it),
/// interned.
pub fn map_state(procs: &mut Processes, p: ProcId, map: &mut dyn ValueMap) -> ProcId {
    let mut memo = FxHashMap::default();
    map_term(procs, p, map, &mut memo)
}

fn map_term(
    procs: &mut Processes,
    p: ProcId,
    map: &mut dyn ValueMap,
    memo: &mut FxHashMap<ProcId, ProcId>,
) -> ProcId {
    if let Some(&q) = memo.get(&p) {
        return q;
    }
    let mut child =
        |procs: &mut Processes, c: ProcId, map: &mut dyn ValueMap| map_term(procs, c, map, memo);
    let term = procs.term(p).clone();
    let image = match term {
        Term::Node(proc) => match map_proc(&proc, map) {
            Some(proc) => Term::Node(proc),
            None => Term::Node(proc),
        },
        Term::Stop | Term::Skip | Term::Div | Term::Omega | Term::Done(_) => term,
        Term::Run(s) => Term::Run(map.set(procs, s)),
        Term::Chaos(s) => Term::Chaos(map.set(procs, s)),
        Term::ChaosOffer(s) => Term::ChaosOffer(map.set(procs, s)),
        Term::Chosen { prefix, choice } => {
            let prefix = child(procs, prefix, map);
            let choice = choice
                .iter()
                .map(|v| map_value(v, map).unwrap_or_else(|| v.clone()))
                .collect();
            Term::Chosen { prefix, choice }
        }
        Term::ExternalChoice(ps) => {
            Term::ExternalChoice(ps.iter().map(|&c| child(procs, c, map)).collect())
        }
        Term::SequentialComposition(a, b) => {
            let a = child(procs, a, map);
            Term::SequentialComposition(a, child(procs, b, map))
        }
        Term::Interrupt(a, b) => {
            let a = child(procs, a, map);
            Term::Interrupt(a, child(procs, b, map))
        }
        Term::SlidingChoice(a, b) => {
            let a = child(procs, a, map);
            Term::SlidingChoice(a, child(procs, b, map))
        }
        Term::Exception(a, s, b) => {
            let a = child(procs, a, map);
            let s = map.set(procs, s);
            Term::Exception(a, s, child(procs, b, map))
        }
        Term::SyncExternalChoice(s, ps) => {
            let s = map.set(procs, s);
            Term::SyncExternalChoice(s, ps.iter().map(|&c| child(procs, c, map)).collect())
        }
        Term::SyncInterrupt(a, s, b) => {
            let a = child(procs, a, map);
            let s = map.set(procs, s);
            Term::SyncInterrupt(a, s, child(procs, b, map))
        }
        Term::Hide(c, s) => {
            let c = child(procs, c, map);
            Term::Hide(c, map.set(procs, s))
        }
        Term::Rename(c, r) => {
            let c = child(procs, c, map);
            Term::Rename(c, map.relation(procs, r))
        }
        Term::Parallel(s, ps) => {
            let s = map.set(procs, s);
            Term::Parallel(s, ps.iter().map(|&c| child(procs, c, map)).collect())
        }
        Term::AlphaParallel(pairs) => Term::AlphaParallel(
            pairs
                .iter()
                .map(|&(s, c)| {
                    let s = map.set(procs, s);
                    (s, child(procs, c, map))
                })
                .collect(),
        ),
        Term::Linked(a, r, b) => {
            let a = child(procs, a, map);
            let r = map.relation(procs, r);
            Term::Linked(a, r, child(procs, b, map))
        }
        Term::Loop(c) => Term::Loop(child(procs, c, map)),
        Term::Chase(c) => Term::Chase(child(procs, c, map)),
        // Never met under a symmetry: a script that compresses is not
        // reduced (the constant-free check refuses it). The image of a
        // class is the class of the image; a normal form's numbers are
        // kept, which would be right only for a fixed process.
        Term::Compressed {
            compression,
            of,
            at,
        } => Term::Compressed {
            compression,
            of: child(procs, of, map),
            at: match at {
                Place::Member(w) => Place::Member(child(procs, w, map)),
                Place::Numbered(n) => Place::Numbered(n),
            },
        },
        Term::Prioritise(c, levels) => {
            let c = child(procs, c, map);
            Term::Prioritise(c, levels.iter().map(|&s| map.set(procs, s)).collect())
        }
        Term::PrioritiseOrder(c, r) => {
            let c = child(procs, c, map);
            Term::PrioritiseOrder(c, map.relation(procs, r))
        }
        Term::Buffer {
            capacity,
            links,
            queue,
        } => Term::Buffer {
            capacity,
            links: map.relation(procs, links),
            queue: queue.iter().map(|&e| map.event(procs, e)).collect(),
        },
    };
    let q = procs.intern(image);
    memo.insert(p, q);
    q
}

/// `p` with the operands of every external choice in it, at any depth,
/// in one order (by the ids of their own such forms). Two states that
/// differ only in the order of a choice's operands have one form: a
/// state and the image of a state of its class may (a replicated choice
/// lists its operands in the order of their values, which a permutation
/// changes), and the two behave alike.
pub fn choices_in_one_order(
    procs: &mut Processes,
    p: ProcId,
    memo: &mut FxHashMap<ProcId, ProcId>,
) -> ProcId {
    if let Some(&q) = memo.get(&p) {
        return q;
    }
    let term = procs.term(p).clone();
    let mut cx = (procs, memo);
    let form = term.map(
        &mut cx,
        // A term may be as deep as a script's longest chain.
        |(procs, memo), &c| {
            stacker::maybe_grow(256 * 1024, 16 * 1024 * 1024, || {
                choices_in_one_order(procs, c, memo)
            })
        },
        |_, &s| s,
        |_, &r| r,
    );
    let (procs, memo) = cx;
    let form = match form {
        Term::ExternalChoice(ps) => Term::ExternalChoice(sorted(ps)),
        Term::SyncExternalChoice(s, ps) => Term::SyncExternalChoice(s, sorted(ps)),
        other => other,
    };
    let q = procs.intern(form);
    memo.insert(p, q);
    q
}

fn sorted(operands: Arc<[ProcId]>) -> Arc<[ProcId]> {
    let mut operands = operands.to_vec();
    operands.sort_unstable();
    operands.into()
}

/// Which events a permutation can move (those holding a distinguished
/// value), worked out once per script.
#[derive(Debug, Clone)]
pub struct Movable {
    movable: Vec<bool>,
}

impl Movable {
    pub fn new(symmetry: &Symmetry, events: &EventTable) -> Movable {
        let movable = (0..events.id_count() as EventId)
            .map(|e| {
                events
                    .value(e)
                    .is_some_and(|v| holds_distinguished(symmetry, v))
            })
            .collect();
        Movable { movable }
    }

    pub fn is_movable(&self, e: EventId) -> bool {
        self.movable.get(e as usize).copied().unwrap_or(false)
    }

    /// Whether any event of `set` may move.
    pub fn any(&self, set: &EventSet) -> bool {
        set.iter().any(|e| self.is_movable(e))
    }
}

/// The image of an event under `perm`.
pub fn permute_event(
    symmetry: &Symmetry,
    perm: &Permutation,
    events: &EventTable,
    movable: &Movable,
    e: EventId,
) -> EventId {
    if !movable.is_movable(e) {
        return e;
    }
    let value = events.value(e).expect("a movable event is visible");
    let Some(image) = map_value(value, &PermuteValues { symmetry, perm }) else {
        return e;
    };
    events
        .id(&image)
        .expect("the events of a constant-free script are closed under permutation")
}

/// The images of events under one permutation, each worked out when it
/// is first asked for. The sets and relations a permutation maps hold a
/// fraction of a large script's events, and a table of every event's
/// image costs a permutation of each: on Lowe's lock-free set (10^5
/// events and more) a second per generator, on no budget's clock.
pub struct EventImages<'a> {
    symmetry: &'a Symmetry,
    perm: &'a Permutation,
    movable: &'a Movable,
    /// By event: its image, or [`NOT_YET`].
    known: RefCell<Vec<EventId>>,
}

/// An image not worked out yet.
const NOT_YET: EventId = EventId::MAX;

impl<'a> EventImages<'a> {
    pub fn new(symmetry: &'a Symmetry, perm: &'a Permutation, movable: &'a Movable) -> Self {
        EventImages {
            symmetry,
            perm,
            movable,
            known: RefCell::new(Vec::new()),
        }
    }

    /// The image of event `e` of `events`.
    pub fn of(&self, events: &EventTable, e: EventId) -> EventId {
        if !self.movable.is_movable(e) {
            return e;
        }
        let mut known = self.known.borrow_mut();
        if known.len() <= e as usize {
            known.resize(events.id_count().max(e as usize + 1), NOT_YET);
        }
        if known[e as usize] == NOT_YET {
            known[e as usize] = permute_event(self.symmetry, self.perm, events, self.movable, e);
        }
        known[e as usize]
    }

    /// The image of an event set.
    pub fn set(&self, events: &EventTable, set: &EventSet) -> EventSet {
        EventSet::from_ids(set.iter().map(|e| self.of(events, e)), events.id_count())
    }

    /// The image of an event relation.
    pub fn relation(&self, events: &EventTable, relation: &EventRelation) -> EventRelation {
        EventRelation::new(
            relation
                .pairs()
                .iter()
                .map(|&(a, b)| (self.of(events, a), self.of(events, b)))
                .collect(),
        )
    }
}

/// Only the values of a permutation, for values that hold no event sets.
struct PermuteValues<'a> {
    symmetry: &'a Symmetry,
    perm: &'a Permutation,
}

impl ValueMap for PermuteValues<'_> {
    fn ctor(&self, c: CtorId) -> Option<CtorId> {
        let atom = self.symmetry.atom(c)?;
        let image = self.perm.apply(atom);
        (image != atom).then(|| self.symmetry.ctor(image))
    }

    fn set(&mut self, _: &mut Processes, set: SetId) -> SetId {
        set
    }

    fn relation(&mut self, _: &mut Processes, relation: RelationId) -> RelationId {
        relation
    }

    fn event(&mut self, _: &mut Processes, event: EventId) -> EventId {
        event
    }
}

/// A permutation applied to states: values by the permutation, event
/// sets and relations through the images of their events.
pub struct Permute<'a> {
    images: EventImages<'a>,
}

impl<'a> Permute<'a> {
    pub fn new(symmetry: &'a Symmetry, perm: &'a Permutation, movable: &'a Movable) -> Permute<'a> {
        Permute {
            images: EventImages::new(symmetry, perm, movable),
        }
    }
}

impl ValueMap for Permute<'_> {
    fn ctor(&self, c: CtorId) -> Option<CtorId> {
        PermuteValues {
            symmetry: self.images.symmetry,
            perm: self.images.perm,
        }
        .ctor(c)
    }

    fn set(&mut self, procs: &mut Processes, set: SetId) -> SetId {
        if !self.images.movable.any(procs.set(set)) {
            return set;
        }
        let image = self.images.set(procs.events(), procs.set(set));
        procs.intern_set(image)
    }

    fn relation(&mut self, procs: &mut Processes, relation: RelationId) -> RelationId {
        let r = procs.relation(relation).clone();
        if !r
            .pairs()
            .iter()
            .any(|&(a, b)| self.images.movable.is_movable(a) || self.images.movable.is_movable(b))
        {
            return relation;
        }
        let image = self.images.relation(procs.events(), &r);
        procs.intern_relation(image)
    }

    fn event(&mut self, procs: &mut Processes, event: EventId) -> EventId {
        self.images.of(procs.events(), event)
    }
}

/// Every distinguished value to the first of its type: the shape of a
/// state, which all its images share. Event sets that could move become
/// empty (the shape only needs to be the same for all images).
pub struct Collapse<'a> {
    pub symmetry: &'a Symmetry,
    pub movable: &'a Movable,
}

impl ValueMap for Collapse<'_> {
    fn ctor(&self, c: CtorId) -> Option<CtorId> {
        let atom = self.symmetry.atom(c)?;
        (atom.index() != 0).then(|| self.symmetry.ctor(Atom::new(atom.ty(), 0)))
    }

    fn set(&mut self, procs: &mut Processes, set: SetId) -> SetId {
        if self.movable.any(procs.set(set)) {
            procs.intern_set(EventSet::from_ids([], procs.events().id_count()))
        } else {
            set
        }
    }

    fn relation(&mut self, procs: &mut Processes, relation: RelationId) -> RelationId {
        let movable = self.movable;
        let moves = procs
            .relation(relation)
            .pairs()
            .iter()
            .any(|&(a, b)| movable.is_movable(a) || movable.is_movable(b));
        if moves {
            procs.intern_relation(EventRelation::new(Vec::new()))
        } else {
            relation
        }
    }

    /// An event that could move becomes τ: the shape keeps how many
    /// events a buffer owes, not which.
    fn event(&mut self, _: &mut Processes, event: EventId) -> EventId {
        if self.movable.is_movable(event) {
            crate::process::TAU
        } else {
            event
        }
    }
}

/// Whether `value` holds a distinguished value anywhere inside.
pub fn holds_distinguished(symmetry: &Symmetry, value: &Value) -> bool {
    let any = |values: &[Value]| values.iter().any(|v| holds_distinguished(symmetry, v));
    match value {
        Value::Int(_) | Value::Bool(_) | Value::Char(_) | Value::Channel(_) | Value::Builtin(_) => {
            false
        }
        Value::Ctor(c) => symmetry.atom(*c).is_some(),
        Value::Named(parts) | Value::Dot(parts) | Value::Tuple(parts) | Value::Env(parts) => {
            any(parts)
        }
        Value::Seq(seq) => seq.iter().any(|v| holds_distinguished(symmetry, v)),
        Value::Stream(stream) => stream_holds_distinguished(symmetry, stream),
        Value::Set(set) => set.as_finite().is_some_and(any),
        Value::Map(m) => m
            .iter()
            .any(|(k, v)| holds_distinguished(symmetry, k) || holds_distinguished(symmetry, v)),
        Value::Image(image) => image
            .iter()
            .any(|(k, set)| holds_distinguished(symmetry, k) || set.as_finite().is_some_and(any)),
        Value::Closure(closure) => {
            any(&closure.applied) || env_holds_distinguished(symmetry, &closure.env)
        }
        Value::Proc(proc) => match &**proc {
            Proc::Node { vars, .. } => any(vars),
            Proc::Builtin { args, .. } => any(args),
        },
    }
}

fn stream_holds_distinguished(symmetry: &Symmetry, stream: &Stream) -> bool {
    stream
        .prefix()
        .iter()
        .any(|v| holds_distinguished(symmetry, v))
        || match stream.rest() {
            Rest::From(_) => false,
            Rest::Comprehension(s) => {
                env_holds_distinguished(symmetry, &s.env)
                    || env_holds_distinguished(symmetry, &s.locals)
                    || stream_holds_distinguished(symmetry, &s.source)
            }
        }
}

fn env_holds_distinguished(symmetry: &Symmetry, env: &[Slot]) -> bool {
    env.iter().any(|slot| match slot {
        Slot::Empty => false,
        Slot::Value(v) => holds_distinguished(symmetry, v),
        Slot::Group(inner) => env_holds_distinguished(symmetry, inner),
        Slot::Lazy(thunk) => env_holds_distinguished(symmetry, &thunk.env),
    })
}

/// The image of a value under a permutation.
pub fn permute_value(symmetry: &Symmetry, perm: &Permutation, value: &Value) -> Value {
    map_value(value, &PermuteValues { symmetry, perm }).unwrap_or_else(|| value.clone())
}

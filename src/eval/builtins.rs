//! The built-in functions and constants of CSPM.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::script::builtins::{Builtin, ProcessFunction, Shape};
use crate::syntax::Span;

use super::int_tails::{SetOp, combine};
use super::sets::{diff, inter, union, union_all};
use super::value::{Proc, Seq, Set, Value};
use super::{EvalError, EvalResult, Evaluator, MAX_ELEMENTS, MAX_POWERSET_BASE};

mod process_args;

/// `Map(A, B)` is built explicitly up to this many maps (`Set(A)`'s
/// bound): beyond, it stays symbolic (membership works).
const MAX_EXPLICIT_MAPS: u128 = 1 << MAX_POWERSET_BASE;

/// How many maps there are from subsets of a set of `keys` elements to
/// one of `values`: each key is absent or maps to one value.
fn map_count(keys: usize, values: usize) -> u128 {
    let choices = values as u128 + 1;
    let mut count: u128 = 1;
    for _ in 0..keys {
        count = count.saturating_mul(choices);
        if count > MAX_EXPLICIT_MAPS {
            break;
        }
    }
    count
}

impl Evaluator<'_> {
    /// The values of `listed` that are (`inside`) or are not members of
    /// `other`: `inter` and `diff` where only one side can be listed.
    fn kept(&self, listed: &[Value], other: &Set, inside: bool) -> EvalResult<Value> {
        self.work(listed.len())?;
        let kept = listed
            .iter()
            .filter(|v| self.member(v, other) == inside)
            .cloned()
            .collect();
        // A filtered sorted list stays sorted.
        Ok(Value::set(Set::Finite(kept)))
    }

    /// `Map(A, B)` for finite `A` and `B`: every map from a subset of `A`
    /// to `B`, as FDR gives it (`Map({}, {})` is `{emptyMap}`).
    fn all_maps(&self, keys: &[Value], values: &[Value]) -> EvalResult<Set> {
        let mut maps = vec![BTreeMap::new()];
        for key in keys {
            let mut next = Vec::with_capacity(maps.len() * (values.len() + 1));
            for map in maps {
                self.work(values.len() + 1)?;
                for value in values {
                    let mut bigger: BTreeMap<Value, Value> = map.clone();
                    bigger.insert(key.clone(), value.clone());
                    next.push(bigger);
                }
                next.push(map);
            }
            maps = next;
        }
        let maps = maps.into_iter().map(|m| Value::Map(Arc::new(m))).collect();
        Ok(Set::from_values(maps))
    }

    /// The value a built-in name stands for.
    pub(super) fn builtin_value(&self, b: Builtin, span: Span) -> EvalResult<Value> {
        if let Shape::Function(_) = b.shape() {
            return Ok(Value::Builtin(b));
        }
        Ok(match b {
            Builtin::EmptyMap => Value::Map(Arc::new(BTreeMap::new())),
            Builtin::Int => Value::set(Set::AllInts),
            Builtin::Bool => Value::set(Set::Finite(vec![Value::Bool(false), Value::Bool(true)])),
            Builtin::Char => Value::set(Set::AllChars),
            Builtin::Proc => Value::set(Set::AllProcs),
            Builtin::Events => Value::Set(self.events(span)?),
            Builtin::Stop | Builtin::Skip | Builtin::Div => proc_builtin(b, Vec::new()),
            _ => unreachable!("every constant built-in is listed"),
        })
    }

    pub(super) fn call_builtin(
        &self,
        b: Builtin,
        args: Vec<Value>,
        span: Span,
    ) -> EvalResult<Value> {
        let Shape::Function(arity) = b.shape() else {
            unreachable!("constants are not applied")
        };
        if args.len() != arity {
            return Err(EvalError::new(
                span,
                format!(
                    "`{}` takes {arity} argument{}, but is given {}",
                    b.name(),
                    if arity == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let args = Args {
            ev: self,
            builtin: b,
            values: &args,
            span,
        };
        match b {
            Builtin::Union
            | Builtin::Inter
            | Builtin::Diff
            | Builtin::UnionAll
            | Builtin::InterAll => self.set_algebra(&args),
            Builtin::Member
            | Builtin::Card
            | Builtin::Empty
            | Builtin::SetOfSeq
            | Builtin::SeqOfSet
            | Builtin::Powerset
            | Builtin::Seqs
            | Builtin::MapType => self.set_function(&args),
            Builtin::Length
            | Builtin::Null
            | Builtin::Head
            | Builtin::Tail
            | Builtin::Concat
            | Builtin::Elem => self.sequence_function(&args),
            Builtin::MapFromList
            | Builtin::MapLookup
            | Builtin::MapMember
            | Builtin::MapToList
            | Builtin::MapUpdate
            | Builtin::MapUpdateMultiple
            | Builtin::MapDelete => self.map_function(&args),
            Builtin::Transpose
            | Builtin::RelationalImage
            | Builtin::RelationalInverseImage
            | Builtin::Mtransclose => self.relation_function(&args),
            Builtin::Error => {
                let message = match &args.values[0] {
                    Value::Seq(s) if s.iter().all(|c| matches!(c, Value::Char(_))) => s
                        .iter()
                        .map(|c| match c {
                            Value::Char(c) => *c,
                            _ => unreachable!("checked"),
                        })
                        .collect(),
                    other => self.show(other),
                };
                Err(EvalError::new(span, message).with_note("raised by `error`"))
            }
            Builtin::Show => Ok(Value::string(&self.show(&args.values[0]))),
            Builtin::Extensions => Ok(finite_unsorted(self.extensions(&args.values[0], span)?)),
            Builtin::Productions => Ok(finite_unsorted(self.productions(&args.values[0], span)?)),
            Builtin::Chaos | Builtin::Run | Builtin::Buffer | Builtin::ProcessFunction(_) => {
                self.process_function(&args)
            }
            Builtin::EmptyMap
            | Builtin::Int
            | Builtin::Bool
            | Builtin::Char
            | Builtin::Proc
            | Builtin::Events
            | Builtin::Stop
            | Builtin::Skip
            | Builtin::Div => unreachable!("constants are not applied"),
        }
    }

    /// `union`, `inter`, `diff`, `Union` and `Inter`: finite sets are
    /// combined element by element, infinite ones symbolically.
    fn set_algebra(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let span = args.span;
        match args.builtin {
            Builtin::Union => match (args.set(0)?.as_finite(), args.set(1)?.as_finite()) {
                (Some(a), Some(b)) => {
                    self.work(a.len() + b.len())?;
                    union(a, b, MAX_ELEMENTS, &|| self.pace())?
                        .map(finite)
                        .ok_or_else(|| self.too_many(span))
                }
                _ => args.combined(SetOp::Union),
            },
            // With one side finite the answer is finite, and membership in
            // the other side (an infinite set, `{0..}`, `Int`) is enough.
            Builtin::Inter => match (args.set(0)?.as_finite(), args.set(1)?.as_finite()) {
                (Some(a), Some(b)) => {
                    self.work(a.len() + b.len())?;
                    Ok(finite(inter(a, b, &|| self.pace())?))
                }
                (Some(a), None) => self.kept(a, args.set(1)?, true),
                (None, Some(b)) => self.kept(b, args.set(0)?, true),
                (None, None) => args.combined(SetOp::Inter),
            },
            Builtin::Diff => match (args.set(0)?.as_finite(), args.set(1)?.as_finite()) {
                (Some(a), Some(b)) => {
                    self.work(a.len() + b.len())?;
                    Ok(finite(diff(a, b, &|| self.pace())?))
                }
                (Some(a), None) => self.kept(a, args.set(1)?, false),
                (None, _) => args.combined(SetOp::Diff),
            },
            Builtin::UnionAll => {
                let sets = args.finite(0)?;
                let infinite = sets.iter().find_map(|s| match s {
                    Value::Set(set) if set.as_finite().is_none() => Some(set),
                    _ => None,
                });
                if let Some(infinite) = infinite {
                    return args.union_of_infinite(sets, infinite);
                }
                let mut all = Vec::with_capacity(sets.len());
                for s in sets {
                    let set = args.finite_value(s)?;
                    self.work(set.len())?;
                    all.push(set);
                }
                union_all(&all, MAX_ELEMENTS, &|| self.pace())?
                    .map(finite)
                    .ok_or_else(|| self.too_many(span))
            }
            Builtin::InterAll => {
                let sets = args.finite(0)?;
                let Some((first, rest)) = sets.split_first() else {
                    return Err(EvalError::new(span, "`Inter` of no sets is not defined"));
                };
                let mut out = args.finite_value(first)?.to_vec();
                for s in rest {
                    let set = args.finite_value(s)?;
                    self.work(out.len() + set.len())?;
                    out = inter(&out, set, &|| self.pace())?;
                }
                Ok(finite(out))
            }
            _ => unreachable!("not a set operation"),
        }
    }

    /// The other functions on sets, and the sets of sequences, subsets
    /// and maps built from sets.
    fn set_function(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let span = args.span;
        match args.builtin {
            Builtin::Member => Ok(Value::Bool(self.member(&args.values[0], args.set(1)?))),
            Builtin::Card => Ok(Value::Int(args.finite(0)?.len() as i64)),
            Builtin::Empty => Ok(Value::Bool(
                args.set(0)?.as_finite().is_some_and(<[Value]>::is_empty),
            )),
            Builtin::SetOfSeq => {
                let items = args.seq(0)?.to_vec();
                self.check_set_elements(&items, span)?;
                Ok(Value::set(Set::from_values(items)))
            }
            Builtin::SeqOfSet => Ok(Value::seq(args.finite(0)?.to_vec())),
            Builtin::Powerset => {
                let base = args.set(0)?;
                match base.as_finite() {
                    Some(items) if items.len() <= MAX_POWERSET_BASE => {
                        let mut subsets = Vec::with_capacity(1 << items.len());
                        for mask in 0u32..(1 << items.len()) {
                            let subset: Vec<Value> = items
                                .iter()
                                .enumerate()
                                .filter(|(i, _)| mask & (1 << i) != 0)
                                .map(|(_, v)| v.clone())
                                .collect();
                            subsets.push(Value::set(Set::Finite(subset)));
                        }
                        Ok(Value::set(Set::from_values(subsets)))
                    }
                    _ => Ok(Value::set(Set::Powerset(Arc::new(base.clone())))),
                }
            }
            Builtin::Seqs => Ok(Value::set(Set::Seqs(Arc::new(args.set(0)?.clone())))),
            Builtin::MapType => {
                let (keys, values) = (args.set(0)?, args.set(1)?);
                match (keys.as_finite(), values.as_finite()) {
                    (Some(k), Some(v)) if map_count(k.len(), v.len()) <= MAX_EXPLICIT_MAPS => {
                        self.all_maps(k, v).map(Value::set)
                    }
                    _ => Ok(Value::set(Set::Maps(
                        Arc::new(keys.clone()),
                        Arc::new(values.clone()),
                    ))),
                }
            }
            _ => unreachable!("not a function on sets"),
        }
    }

    /// The functions on sequences; on an infinite sequence they force
    /// only as much of it as they need.
    fn sequence_function(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let (b, span) = (args.builtin, args.span);
        match args.builtin {
            Builtin::Length => Ok(Value::Int(args.seq(0)?.len() as i64)),
            Builtin::Null if let Value::Stream(s) = &args.values[0] => {
                // A comprehension's stream is made to show an element.
                self.force_stream(s, 1, span)?;
                Ok(Value::Bool(false))
            }
            Builtin::Null => Ok(Value::Bool(args.seq(0)?.is_empty())),
            Builtin::Head | Builtin::Tail if let Value::Stream(s) = &args.values[0] => {
                let s = self.force_stream(s, 1, span)?;
                let taken = if b == Builtin::Head {
                    s.get(0)
                } else {
                    s.without_first(1).map(|rest| Value::Stream(Arc::new(rest)))
                };
                taken.ok_or_else(|| super::error::overflow(span))
            }
            Builtin::Head => {
                let s = args.seq(0)?;
                s.iter()
                    .next()
                    .cloned()
                    .ok_or_else(|| EvalError::new(span, "`head` of the empty sequence"))
            }
            Builtin::Tail => {
                let s = args.seq(0)?;
                if s.is_empty() {
                    return Err(EvalError::new(span, "`tail` of the empty sequence"));
                }
                Ok(Value::Seq(s.slice(1, s.len())))
            }
            Builtin::Concat => {
                let mut out = Vec::new();
                for s in args.seq(0)?.iter() {
                    match s {
                        Value::Seq(s) => out.extend(s.iter().cloned()),
                        // Nothing after an infinite sequence is reached.
                        Value::Stream(s) => {
                            return Ok(Value::Stream(Arc::new(s.after(&Seq::from_vec(out)))));
                        }
                        other => return Err(args.wrong(0, "a sequence of sequences", other)),
                    }
                    self.check_size(out.len(), span)?;
                }
                Ok(Value::seq(out))
            }
            Builtin::Elem => Ok(Value::Bool(match &args.values[1] {
                Value::Stream(s) => {
                    if super::stream::holds_lazy(&args.values[0]) {
                        return Err(EvalError::new(
                            span,
                            "cannot look for a value holding an infinite sequence built by a \
                             comprehension: it cannot be compared",
                        ));
                    }
                    self.stream_contains(s, &args.values[0], span)?
                }
                _ => {
                    let s = args.seq(1)?;
                    let mut found = false;
                    for v in s.iter() {
                        if self.values_equal(v, &args.values[0], span)? {
                            found = true;
                            break;
                        }
                    }
                    found
                }
            })),
            _ => unreachable!("not a function on sequences"),
        }
    }

    /// The functions on maps; every key is checked to be comparable.
    fn map_function(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let span = args.span;
        match args.builtin {
            Builtin::MapFromList => {
                let mut map = BTreeMap::new();
                for pair in args.seq(0)?.iter() {
                    let (k, v) = args.pair(0, pair)?;
                    self.check_key(&k, span)?;
                    map.insert(k, v);
                }
                Ok(Value::Map(Arc::new(map)))
            }
            Builtin::MapLookup => {
                let map = args.map(0)?;
                self.check_key(&args.values[1], span)?;
                map.get(&args.values[1]).cloned().ok_or_else(|| {
                    EvalError::new(
                        span,
                        format!("the key {} is not in the map", self.show(&args.values[1])),
                    )
                })
            }
            Builtin::MapMember => {
                self.check_key(&args.values[1], span)?;
                Ok(Value::Bool(args.map(0)?.contains_key(&args.values[1])))
            }
            Builtin::MapToList => Ok(Value::seq(
                args.map(0)?
                    .iter()
                    .map(|(k, v)| Value::Tuple(Arc::from([k.clone(), v.clone()])))
                    .collect(),
            )),
            Builtin::MapUpdate => {
                self.check_key(&args.values[1], span)?;
                let mut map = (**args.map(0)?).clone();
                map.insert(args.values[1].clone(), args.values[2].clone());
                Ok(Value::Map(Arc::new(map)))
            }
            Builtin::MapUpdateMultiple => {
                let mut map = (**args.map(0)?).clone();
                for pair in args.seq(1)?.iter() {
                    let (k, v) = args.pair(1, pair)?;
                    self.check_key(&k, span)?;
                    map.insert(k, v);
                }
                Ok(Value::Map(Arc::new(map)))
            }
            Builtin::MapDelete => {
                self.check_key(&args.values[1], span)?;
                let mut map = (**args.map(0)?).clone();
                map.remove(&args.values[1]);
                Ok(Value::Map(Arc::new(map)))
            }
            _ => unreachable!("not a function on maps"),
        }
    }

    /// The functions on relations (sets of pairs).
    fn relation_function(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        match args.builtin {
            Builtin::Transpose => {
                let mut out = Vec::new();
                for pair in args.finite(0)? {
                    let (a, b) = args.pair(0, pair)?;
                    out.push(Value::Tuple(Arc::from([b, a])));
                }
                Ok(finite_unsorted(out))
            }
            Builtin::RelationalImage | Builtin::RelationalInverseImage => {
                let inverse = args.builtin == Builtin::RelationalInverseImage;
                let mut image: BTreeMap<Value, Vec<Value>> = BTreeMap::new();
                for pair in args.finite(0)? {
                    let (a, b) = args.pair(0, pair)?;
                    let (from, to) = if inverse { (b, a) } else { (a, b) };
                    image.entry(from).or_default().push(to);
                }
                Ok(Value::Image(Arc::new(
                    image
                        .into_iter()
                        .map(|(k, vs)| (k, Set::from_values(vs)))
                        .collect(),
                )))
            }
            Builtin::Mtransclose => self.mtransclose(args),
            _ => unreachable!("not a function on relations"),
        }
    }

    /// `CHAOS`, `RUN` and the process functions: their arguments are
    /// checked now, and their meaning is left to the process layer.
    fn process_function(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let b = args.builtin;
        match args.builtin {
            Builtin::Chaos | Builtin::Run => {
                args.finite(0)?;
                Ok(proc_builtin(b, args.values.to_vec()))
            }
            Builtin::Buffer => {
                args.buffer_links()?;
                Ok(proc_builtin(b, args.values.to_vec()))
            }
            Builtin::ProcessFunction(f) => {
                if !matches!(args.values[0], Value::Proc(_)) {
                    return Err(args.wrong(0, "a process", &args.values[0]));
                }
                if matches!(
                    f,
                    ProcessFunction::Prioritise | ProcessFunction::PrioritiseNoCache
                ) {
                    args.priority_levels()?;
                }
                if f == ProcessFunction::PrioritisePartialOrder {
                    args.priority_order()?;
                }
                Ok(proc_builtin(b, args.values.to_vec()))
            }
            _ => unreachable!("not a process function"),
        }
    }

    /// `mtransclose(R, D)`, as FDR defines it: the symmetric, transitive
    /// (not reflexive) closure of R, given as the pairs `(rep, x)` that
    /// map each `x` of D to the representative (least element) of its
    /// class, where both are in D and differ.
    fn mtransclose(&self, args: &Args<'_, '_>) -> EvalResult<Value> {
        let relation = args.finite(0)?;
        let domain = args.set(1)?;
        let mut nodes: Vec<Value> = Vec::new();
        let mut edges = Vec::new();
        for pair in relation {
            let (a, b) = args.pair(0, pair)?;
            nodes.push(a.clone());
            nodes.push(b.clone());
            edges.push((a, b));
        }
        nodes.sort_unstable();
        nodes.dedup();
        let index = |v: &Value| nodes.binary_search(v).expect("every node is listed");
        let mut parent: Vec<usize> = (0..nodes.len()).collect();
        fn find(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for (a, b) in &edges {
            let (ra, rb) = (find(&mut parent, index(a)), find(&mut parent, index(b)));
            // The smaller index (the least value) stays the root.
            if ra != rb {
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                parent[hi] = lo;
            }
        }
        let mut out = Vec::new();
        for i in 0..nodes.len() {
            let root = find(&mut parent, i);
            if root != i && self.member(&nodes[i], domain) && self.member(&nodes[root], domain) {
                out.push(Value::Tuple(Arc::from([
                    nodes[root].clone(),
                    nodes[i].clone(),
                ])));
            }
        }
        Ok(finite_unsorted(out))
    }
}

fn finite(values: Vec<Value>) -> Value {
    Value::set(Set::Finite(values))
}

fn finite_unsorted(values: Vec<Value>) -> Value {
    Value::set(Set::from_values(values))
}

fn proc_builtin(builtin: Builtin, args: Vec<Value>) -> Value {
    Value::Proc(Arc::new(Proc::Builtin {
        builtin,
        args: args.into(),
    }))
}

/// The arguments of one built-in call, with typed accessors that report
/// the built-in and the argument at fault.
struct Args<'e, 'a> {
    ev: &'e Evaluator<'e>,
    builtin: Builtin,
    values: &'a [Value],
    span: Span,
}

impl<'a> Args<'_, 'a> {
    fn wrong(&self, i: usize, wanted: &str, got: &Value) -> EvalError {
        let position = ["first", "second", "third", "fourth"][i.min(3)];
        EvalError::new(
            self.span,
            format!(
                "the {position} argument of `{}` must be {wanted}, but is {}",
                self.builtin.name(),
                got.kind_name()
            ),
        )
        .with_note(format!(
            "the value is {}",
            super::error::truncate(self.ev.show(got))
        ))
    }

    fn set(&self, i: usize) -> EvalResult<&'a Set> {
        match &self.values[i] {
            Value::Set(s) => Ok(s),
            other => Err(self.wrong(i, "a set", other)),
        }
    }

    fn finite(&self, i: usize) -> EvalResult<&'a [Value]> {
        let set = self.set(i)?;
        set.as_finite().ok_or_else(|| {
            let why = format!("`{}` needs its argument's elements", self.builtin.name());
            self.ev.unlisted(set, self.span, &why)
        })
    }

    /// `union`, `inter` or `diff` of its two arguments where one is an
    /// infinite set: a set of integers symcsp can represent, or an
    /// error naming the first infinite argument.
    fn combined(&self, op: SetOp) -> EvalResult<Value> {
        let (a, b) = (self.set(0)?, self.set(1)?);
        self.ev.work(a.as_finite().map_or(0, <[Value]>::len))?;
        self.ev.work(b.as_finite().map_or(0, <[Value]>::len))?;
        combine(op, a, b, MAX_ELEMENTS, &|n| self.ev.reserve(n))?
            .map(Value::set)
            .ok_or_else(|| self.not_combined(if a.as_finite().is_none() { a } else { b }))
    }

    /// `Union(S)` where an element of `S` is infinite: the union of
    /// each in turn, as [`Args::combined`] forms it.
    fn union_of_infinite(&self, sets: &[Value], infinite: &Set) -> EvalResult<Value> {
        let mut all = Set::empty();
        for s in sets {
            let Value::Set(set) = s else {
                return Err(self.wrong(0, "a set of sets", s));
            };
            self.ev.work(set.as_finite().map_or(1, <[Value]>::len))?;
            all = combine(SetOp::Union, &all, set, MAX_ELEMENTS, &|n| {
                self.ev.reserve(n)
            })?
            .ok_or_else(|| self.not_combined(infinite))?;
        }
        Ok(Value::set(all))
    }

    fn not_combined(&self, unlisted: &Set) -> EvalError {
        let why = format!("`{}` needs its elements", self.builtin.name());
        if !unlisted.is_infinite() {
            return self.ev.unlisted(unlisted, self.span, &why);
        }
        let shown = super::error::truncate(self.ev.show(&Value::set(unlisted.clone())));
        EvalError::new(self.span, format!("the set {shown} is infinite: {why}")).with_note(
            "with an infinite set, symcsp forms a union, intersection or difference only of \
             sets of integers whose answer is finite, `{n..}` or `Int`",
        )
    }

    /// An element that must itself be a finite set (`Union`, `Inter`).
    fn finite_value<'v>(&self, v: &'v Value) -> EvalResult<&'v [Value]> {
        match v {
            Value::Set(s) => s.as_finite().ok_or_else(|| {
                let why = format!("`{}` needs the elements of each set", self.builtin.name());
                self.ev.unlisted(s, self.span, &why)
            }),
            other => Err(self.wrong(0, "a set of sets", other)),
        }
    }

    fn seq(&self, i: usize) -> EvalResult<&'a Seq> {
        match &self.values[i] {
            Value::Seq(s) => Ok(s),
            stream @ Value::Stream(_) => {
                let what = format!("the argument of `{}`", self.builtin.name());
                Err(self.ev.infinite(self.span, stream, &what))
            }
            other => Err(self.wrong(i, "a sequence", other)),
        }
    }

    /// The second argument of `prioritise(P, <A1, ..., An>)`: a finite,
    /// non-empty sequence of finite sets (as in FDR, the empty sequence
    /// is an error).
    fn priority_levels(&self) -> EvalResult<()> {
        let levels = self.seq(1)?;
        if levels.is_empty() {
            return Err(EvalError::new(
                self.span,
                format!(
                    "`{}` needs at least one set of events, but the sequence is empty",
                    self.builtin.name()
                ),
            )
            .with_note("the sets go from the most urgent to the least: `<{a}, {b}>`"));
        }
        for level in levels.iter() {
            let problem = match level {
                Value::Set(s) if s.as_finite().is_some() => continue,
                Value::Set(_) => "an infinite set".to_string(),
                other => other.kind_name().to_string(),
            };
            return Err(EvalError::new(
                self.span,
                format!(
                    "the second argument of `{}` must be a sequence of finite sets of events, \
                     but one of its elements is {problem}",
                    self.builtin.name()
                ),
            )
            .with_note(format!(
                "the element is {}",
                super::error::truncate(self.ev.show(level))
            )));
        }
        Ok(())
    }

    fn map(&self, i: usize) -> EvalResult<&'a Arc<BTreeMap<Value, Value>>> {
        match &self.values[i] {
            Value::Map(m) => Ok(m),
            other => Err(self.wrong(i, "a map", other)),
        }
    }

    fn pair(&self, i: usize, v: &Value) -> EvalResult<(Value, Value)> {
        match v {
            Value::Tuple(t) if t.len() == 2 => Ok((t[0].clone(), t[1].clone())),
            other => Err(self.wrong(i, "a collection of pairs", other)),
        }
    }
}

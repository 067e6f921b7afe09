//! The dot rules of FDR: how `c.a.b` is built field by field, which
//! values are complete events or datatype values, the field types that
//! check them, and the sets built from them (`{| c |}`, `Events`,
//! datatypes, `A.B` types).

use std::cell::RefCell;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::script::ir::{CtorId, DataTypeId, FuncId};
use crate::syntax::Span;

use super::fields::{Fields, Place};
use super::value::{Set, Value};
use super::{EvalError, EvalResult, Evaluator};

/// A constructor or channel: the heads of named dotted values.
#[derive(Clone, Copy)]
enum Head {
    Ctor(CtorId),
    Channel(crate::script::ir::ChannelId),
}

fn head_of(v: &Value) -> Option<Head> {
    match v {
        Value::Ctor(c) => Some(Head::Ctor(*c)),
        Value::Channel(c) => Some(Head::Channel(*c)),
        Value::Named(parts) => match parts[0] {
            Value::Ctor(c) => Some(Head::Ctor(c)),
            Value::Channel(c) => Some(Head::Channel(c)),
            _ => unreachable!("a named value starts with its constructor or channel"),
        },
        _ => None,
    }
}

/// The components of a named value: head then fields so far.
fn named_parts(v: &Value) -> Vec<Value> {
    match v {
        Value::Named(parts) => parts.to_vec(),
        v => vec![v.clone()],
    }
}

/// Parts dotted together without a head: `1.Red`.
/// Calls `f` with each extension the `choices` make, in order: every way
/// of taking one value of each choice, the last changing fastest, a
/// choice that is itself dotted spliced in.
fn each_extension(
    choices: &[Vec<Value>],
    mut f: impl FnMut(Value) -> EvalResult<()>,
) -> EvalResult<()> {
    if choices.iter().any(Vec::is_empty) {
        return Ok(());
    }
    let mut at = vec![0; choices.len()];
    let mut parts = Vec::new();
    loop {
        parts.clear();
        for (choice, &i) in choices.iter().zip(&at) {
            match &choice[i] {
                Value::Dot(dotted) => parts.extend(dotted.iter().cloned()),
                c => parts.push(c.clone()),
            }
        }
        f(dot_list(std::mem::take(&mut parts)))?;
        // The next choice, as an odometer turns.
        let mut k = choices.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            at[k] += 1;
            if at[k] < choices[k].len() {
                break;
            }
            at[k] = 0;
        }
    }
}

fn dot_list(parts: Vec<Value>) -> Value {
    if parts.len() == 1 {
        parts.into_iter().next().expect("one part")
    } else {
        Value::Dot(parts.into())
    }
}

/// A head and its fields.
fn from_parts(parts: Vec<Value>) -> Value {
    if parts.len() == 1 {
        parts.into_iter().next().expect("one part")
    } else {
        Value::Named(parts.into())
    }
}

/// Nested values known to be complete or not, by the address of their
/// parts (each kept alive here, so an address is never reused while it is
/// remembered). Bounded: past [`Completeness::CAPACITY`] values it starts
/// afresh.
#[derive(Default)]
pub(super) struct Completeness {
    known: RefCell<FxHashMap<usize, RememberedParts>>,
}

/// A remembered value (kept alive) and whether it is complete.
type RememberedParts = (Arc<[Value]>, bool);

impl Completeness {
    const CAPACITY: usize = 1 << 16;

    fn known(&self, parts: &Arc<[Value]>) -> Option<bool> {
        let key = Arc::as_ptr(parts) as *const Value as usize;
        self.known.borrow().get(&key).map(|&(_, complete)| complete)
    }

    fn remember(&self, parts: &Arc<[Value]>, complete: bool) {
        let mut known = self.known.borrow_mut();
        if known.len() >= Self::CAPACITY {
            known.clear();
        }
        let key = Arc::as_ptr(parts) as *const Value as usize;
        known.insert(key, (parts.clone(), complete));
    }
}

impl Evaluator<'_> {
    fn head_fields(&self, head: Head) -> &[FuncId] {
        match head {
            Head::Ctor(c) => &self.script.ctors[c.index()].fields,
            Head::Channel(c) => &self.script.channels[c.index()].fields,
        }
    }

    fn head_name(&self, head: Head) -> &str {
        match head {
            Head::Ctor(c) => &self.script.ctors[c.index()].name,
            Head::Channel(c) => &self.script.channels[c.index()].name,
        }
    }

    fn fields_cell(&self, head: Head) -> &std::sync::OnceLock<Arc<Fields>> {
        match head {
            Head::Ctor(c) => &self.shared.ctor_fields[c.index()],
            Head::Channel(c) => &self.shared.channel_fields[c.index()],
        }
    }

    /// The parts a complete value of `head` has after it. Known without
    /// evaluating once the fields were worked out, as they are before any
    /// value with fields is built; until then, one part per field.
    fn parts_after(&self, head: Head) -> usize {
        match self.fields_cell(head).get() {
            Some(fields) => fields.arity,
            None => self.head_fields(head).len(),
        }
    }

    /// Per part of channel `channel`'s complete events (after the
    /// channel), the set of values its declared field takes, when every
    /// field is one part (`None` for a channel whose fields are dotted).
    pub fn channel_part_sets(
        &self,
        channel: crate::script::ir::ChannelId,
    ) -> EvalResult<Option<Vec<crate::eval::value::Set>>> {
        let span = self.script.channels[channel.index()].span;
        let fields = self.field_sets(Head::Channel(channel), span)?;
        Ok((fields.arity == fields.sets.len()).then(|| fields.sets.clone()))
    }

    /// The sets of values each field of a constructor or channel takes,
    /// and the parts each spreads over.
    fn field_sets(&self, head: Head, span: Span) -> EvalResult<Arc<Fields>> {
        let cell = self.fields_cell(head);
        if let Some(fields) = cell.get() {
            return Ok(fields.clone());
        }
        let mut sets = Vec::new();
        for (i, &field) in self.head_fields(head).iter().enumerate() {
            match self.call_constant(field, Arc::from([]))? {
                Value::Set(s) => sets.push((*s).clone()),
                other => {
                    return Err(EvalError::new(
                        self.script.function(field).span,
                        format!(
                            "field {} of `{}` must be a set of values, but is {}",
                            i + 1,
                            self.head_name(head),
                            other.kind_name()
                        ),
                    )
                    .with_note(format!("used at {}", self.script.sources.location(span))));
                }
            }
        }
        let fields = Arc::new(Fields::new(sets));
        Ok(cell.get_or_init(|| fields).clone())
    }

    /// Whether a value needs no more fields: its head has all its fields,
    /// and its last field is complete in turn.
    ///
    /// A value of a recursive datatype nests through its last field
    /// (`Cons.1.Cons.2.Nil`), so the answer for each nested value is
    /// remembered (by its storage, kept alive in the memo): building a
    /// list element by element asks once per element, not once per
    /// element and level, which would make it quadratic.
    pub(super) fn is_complete(&self, v: &Value) -> bool {
        let mut chain: Vec<&Arc<[Value]>> = Vec::new();
        let mut at = v;
        let answer = loop {
            match at {
                Value::Ctor(c) => break self.script.ctors[c.index()].fields.is_empty(),
                Value::Channel(c) => break self.script.channels[c.index()].fields.is_empty(),
                Value::Named(parts) => {
                    let head = head_of(at).expect("named");
                    if parts.len() - 1 != self.parts_after(head) {
                        break false;
                    }
                    let last = parts.last().expect("non-empty");
                    if let Value::Named(inner) = last
                        && let Some(known) = self.completeness.known(inner)
                    {
                        break known;
                    }
                    chain.push(parts);
                    at = last;
                }
                _ => break true,
            }
        };
        // Only nested values are worth remembering: a flat one is
        // answered at once.
        for parts in chain {
            if matches!(parts.last(), Some(Value::Named(_))) {
                self.completeness.remember(parts, answer);
            }
        }
        answer
    }

    /// `a.b`: fields of `b` fill the fields `a` still lacks; what is left
    /// over is dotted on the end.
    pub(super) fn dot(&self, a: Value, b: Value, span: Span) -> EvalResult<Value> {
        let fields: Vec<Value> = match &b {
            Value::Dot(parts) => parts.to_vec(),
            _ => vec![b],
        };
        let mut base = a;
        for field in fields {
            base = match self.dot_field_on(&base, &field, span)? {
                Some(v) => v,
                None => {
                    let mut parts = match &base {
                        Value::Dot(parts) => parts.to_vec(),
                        v => vec![v.clone()],
                    };
                    parts.push(field);
                    Value::Dot(parts.into())
                }
            };
        }
        Ok(base)
    }

    /// Puts `field` into the first field `base` lacks (inside its last
    /// field if that is incomplete); `None` when `base` lacks nothing.
    fn dot_field_on(&self, base: &Value, field: &Value, span: Span) -> EvalResult<Option<Value>> {
        let Some(head) = head_of(base) else {
            return Ok(None);
        };
        let mut parts = named_parts(base);
        let filled = parts.len() - 1;
        if self.head_fields(head).is_empty() {
            return Ok(None);
        }
        let fields = self.field_sets(head, span)?;
        let last_complete = filled == 0 || self.is_complete(parts.last().expect("non-empty"));
        if last_complete {
            let Some(place) = fields.place(filled) else {
                return Ok(None);
            };
            self.check_part(head, &fields, place, &parts, field, base, span)?;
            parts.push(field.clone());
            return Ok(Some(from_parts(parts)));
        }
        let last = parts.pop().expect("non-empty");
        let Some(inner) = self.dot_field_on(&last, field, span)? else {
            return Ok(None);
        };
        let place = fields.place(filled - 1).expect("a part that was filled");
        self.check_part(head, &fields, place, &parts, &inner, base, span)?;
        parts.push(inner);
        Ok(Some(from_parts(parts)))
    }

    /// A part put at `place` after `parts` (the head and the parts before
    /// it): a complete field must belong to its declared type; the part
    /// of a field of dotted values must begin one of them.
    #[allow(clippy::too_many_arguments)]
    fn check_part(
        &self,
        head: Head,
        fields: &Fields,
        place: Place,
        parts: &[Value],
        value: &Value,
        base: &Value,
        span: Span,
    ) -> EvalResult<()> {
        if !self.is_complete(value) {
            return Ok(());
        }
        let set = &fields.sets[place.field];
        let (whole, fits) = if place.width == 1 {
            (value.clone(), self.member(value, set))
        } else {
            let mut field_parts = parts[parts.len() - place.offset..].to_vec();
            field_parts.push(value.clone());
            let fits = !fields.rests_after(place.field, &field_parts).is_empty()
                || (place.closes_field() && self.member(&dot_list(field_parts.clone()), set));
            (dot_list(field_parts), fits)
        };
        if fits {
            return Ok(());
        }
        let what = if place.closes_field() {
            ""
        } else {
            "the start of "
        };
        Err(EvalError::new(
            span,
            format!(
                "{} is not {what}a valid field {} of `{}`: it is not in {}",
                self.show(&whole),
                place.field + 1,
                self.head_name(head),
                super::error::truncate(self.show(&Value::set(set.clone())))
            ),
        )
        .with_note(format!(
            "while building {}.{}",
            self.show(base),
            self.show(value)
        )))
    }

    /// `productions(v)`: every complete value that starts with `v`.
    pub(super) fn productions(&self, v: &Value, span: Span) -> EvalResult<Vec<Value>> {
        if head_of(v).is_none() || self.is_complete(v) {
            return Ok(vec![v.clone()]);
        }
        let Some(choices) = self.extension_choices(v, span)? else {
            return Ok(Vec::new());
        };
        let total = self.product_size(choices.iter().map(Vec::len), span)?;
        self.reserve(total)?;
        // Each extension made as it is needed: a channel of millions of
        // events holds them once, not once more as a list of extensions.
        let mut out = Vec::with_capacity(total);
        let built = each_extension(&choices, |extension| {
            // Each value is built and checked field by field, like a call.
            self.tick(1)?;
            out.push(self.dot(v.clone(), extension, span)?);
            Ok(())
        });
        if let Err(e) = built {
            // Millions of values may have been made: freed elsewhere.
            if e.stop_reason().is_some() {
                crate::budget::drop_later(out);
            }
            return Err(e);
        }
        Ok(out)
    }

    /// `extensions(v)`: every `x` such that `v.x` is complete.
    pub(super) fn extensions(&self, v: &Value, span: Span) -> EvalResult<Vec<Value>> {
        let Some(choices) = self.extension_choices(v, span)? else {
            return Ok(Vec::new());
        };
        self.reserve(self.product_size(choices.iter().map(Vec::len), span)?)?;
        let mut out = vec![Vec::new()];
        for choice in &choices {
            let mut grown = Vec::with_capacity(out.len() * choice.len());
            for prefix in &out {
                self.work(choice.len() * (prefix.len() + 1))?;
                for c in choice {
                    let mut p: Vec<Value> = prefix.clone();
                    match c {
                        Value::Dot(parts) => p.extend(parts.iter().cloned()),
                        c => p.push(c.clone()),
                    }
                    grown.push(p);
                }
                self.check_size(grown.len(), span)?;
            }
            out = grown;
        }
        Ok(out.into_iter().map(dot_list).collect())
    }

    /// The first part of every extension of `v`, in the order of
    /// [`extensions`](Self::extensions), without the repeats the later
    /// parts make there (`{0..2}.Bool` gives 0, 1, 2): what an input
    /// field that is not the last of its prefix ranges over. The rest of
    /// the product is never built (`c?x?y?z` asks this at each of `x` and
    /// `y` and would otherwise build every `x.y.z` and then every `y.z`).
    pub(super) fn first_extensions(&self, v: &Value, span: Span) -> EvalResult<Vec<Value>> {
        let Some(choices) = self.extension_choices(v, span)? else {
            return Ok(Vec::new());
        };
        // Sized as the whole product is, so a prefix over a channel too
        // large to enumerate is refused at its first input as at its last.
        let size = self.product_size(choices.iter().map(Vec::len), span)?;
        // A field with no value leaves no extension at all.
        let Some(first) = choices.first().filter(|_| size > 0) else {
            return Ok(Vec::new());
        };
        self.work(first.len())?;
        Ok(first
            .iter()
            .map(|c| match c {
                Value::Dot(parts) if !parts.is_empty() => parts[0].clone(),
                c => c.clone(),
            })
            .collect())
    }

    /// What each further part of an extension of `v` may be, part by
    /// part (an extension is one choice of each, flattened); none when
    /// `v` has no head or is complete.
    fn extension_choices(&self, v: &Value, span: Span) -> EvalResult<Option<Vec<Vec<Value>>>> {
        let Some(head) = head_of(v) else {
            return Ok(None);
        };
        if self.is_complete(v) {
            // FDR: the only extension of a complete value is nothing.
            return Ok(None);
        }
        let parts = named_parts(v);
        let filled = parts.len() - 1;
        let fields = self.field_sets(head, span)?;
        let sets = &fields.sets;
        // Complete the last part first, if it is half built, then the
        // field of dotted values it is part of.
        let mut choices: Vec<Vec<Value>> = Vec::new();
        if filled > 0 {
            let last = parts.last().expect("non-empty");
            if !self.is_complete(last) {
                choices.push(self.completions(last, &fields, filled - 1, span)?);
            }
        }
        let mut next_field = match fields.place(filled) {
            Some(place) if place.offset > 0 => {
                let prefix = &parts[parts.len() - place.offset..];
                choices.push(fields.rests_after(place.field, prefix));
                place.field + 1
            }
            Some(place) => place.field,
            None => sets.len(),
        };
        while next_field < sets.len() {
            let values = self.enumerate(&sets[next_field], span)?;
            choices.push(
                values
                    .iter()
                    .flat_map(|value| self.field_completions(value, span))
                    .flatten()
                    .collect(),
            );
            next_field += 1;
        }
        Ok(Some(choices))
    }

    /// What completes `partial`, a constructor with some of its fields
    /// standing as part `position` of a value: what the field it stands in
    /// allows (`channel send : {Req.0, Req.1, Ack}` allows two of a
    /// `Req.{0..2}`, and `{Num.0, Num.1}` two of a `Num.Int`). Read off
    /// the field's values, as FDR does, when they can be listed and
    /// `partial` has no half-built field of its own; else the
    /// constructor's extensions that the field holds.
    fn completions(
        &self,
        partial: &Value,
        fields: &Fields,
        position: usize,
        span: Span,
    ) -> EvalResult<Vec<Value>> {
        let Some(place) = fields.place(position).filter(|p| p.width == 1) else {
            return self.extensions(partial, span);
        };
        let allowed = &fields.sets[place.field];
        let prefix = named_parts(partial);
        let flat = prefix[1..].iter().all(|part| self.is_complete(part));
        if let (Some(values), true) = (allowed.as_finite(), flat) {
            let mut rests = Vec::new();
            for value in values {
                let wholes = if self.is_complete(value) {
                    vec![value.clone()]
                } else {
                    self.productions(value, span)?
                };
                for whole in wholes {
                    let parts = named_parts(&whole);
                    if parts.len() > prefix.len() && parts.starts_with(&prefix) {
                        rests.push(dot_list(parts[prefix.len()..].to_vec()));
                    }
                }
            }
            return Ok(rests);
        }
        let mut kept = Vec::new();
        for rest in self.extensions(partial, span)? {
            let whole = self.dot_values(partial.clone(), rest.clone(), span)?;
            if self.contains(allowed, &whole) {
                kept.push(rest);
            }
        }
        Ok(kept)
    }

    /// A field's set holds complete values; an incomplete one (a bare
    /// constructor with fields) stands for all its productions.
    fn field_completions(&self, value: &Value, span: Span) -> EvalResult<Vec<Value>> {
        if self.is_complete(value) {
            Ok(vec![value.clone()])
        } else {
            self.productions(value, span)
        }
    }

    /// The values of a datatype, or a symbolic set for a recursive one.
    pub(super) fn datatype_set(&self, d: DataTypeId) -> EvalResult<Value> {
        let datatype = &self.script.datatypes[d.index()];
        if datatype.recursive {
            return Ok(Value::set(Set::DataType(d)));
        }
        // A field of an infinite set (`Num.Int`) makes the datatype
        // infinite too: it is kept symbolic (membership), as a recursive
        // one is, so that its values can still be built and matched.
        for &ctor in &datatype.ctors {
            let fields = self.field_sets(Head::Ctor(ctor), datatype.span)?;
            if fields.sets.iter().any(|set| set.as_finite().is_none()) {
                return Ok(Value::set(Set::DataType(d)));
            }
        }
        let mut values = Vec::new();
        for &ctor in &datatype.ctors {
            values.extend(self.productions(&Value::Ctor(ctor), datatype.span)?);
        }
        Ok(Value::set(Set::from_values(values)))
    }

    /// `subtype S = A | B.T`: the listed constructors with (narrowed)
    /// field types, the fields not listed at their declared types.
    pub(super) fn subtype_set(
        &self,
        clauses: &[(CtorId, Vec<FuncId>)],
        span: Span,
    ) -> EvalResult<Value> {
        let mut values = Vec::new();
        for (ctor, fields) in clauses {
            let mut sets = Vec::new();
            for &field in fields {
                match self.call_constant(field, Arc::from([]))? {
                    Value::Set(s) => sets.push(s),
                    other => {
                        return Err(EvalError::new(
                            self.script.function(field).span,
                            format!(
                                "a subtype's field type must be a set, not {}",
                                other.kind_name()
                            ),
                        ));
                    }
                }
            }
            if sets.is_empty() {
                values.extend(self.productions(&Value::Ctor(*ctor), span)?);
                continue;
            }
            let sizes = sets
                .iter()
                .map(|set| self.enumerate(set, span).map(<[Value]>::len))
                .collect::<EvalResult<Vec<usize>>>()?;
            self.reserve(self.product_size(sizes, span)?)?;
            let mut product = vec![Value::Ctor(*ctor)];
            for set in &sets {
                let mut grown = Vec::new();
                for base in &product {
                    for v in self.enumerate(set, span)? {
                        grown.push(self.dot(base.clone(), v.clone(), span)?);
                    }
                }
                self.check_size(grown.len(), span)?;
                product = grown;
            }
            // Fields the clause leaves out range over their declared
            // types: with `datatype D = C.X.Y`, `subtype S = C.X` is
            // every `C.x.y`.
            for value in &product {
                values.extend(self.productions(value, span)?);
            }
        }
        Ok(Value::set(Set::from_values(values)))
    }

    /// `A.B` as a type: every `a.b`.
    pub(super) fn dot_product(&self, sets: &[Arc<Set>], span: Span) -> EvalResult<Value> {
        let sizes = sets
            .iter()
            .map(|set| self.enumerate(set, span).map(<[Value]>::len))
            .collect::<EvalResult<Vec<usize>>>()?;
        self.reserve(self.product_size(sizes, span)?)?;
        let mut product: Option<Vec<Value>> = None;
        for set in sets {
            let values = self.enumerate(set, span)?;
            product = Some(match product {
                None => values.to_vec(),
                Some(bases) => {
                    let mut grown = Vec::with_capacity(bases.len() * values.len());
                    for base in &bases {
                        for v in values {
                            grown.push(self.dot(base.clone(), v.clone(), span)?);
                        }
                        self.check_size(grown.len(), span)?;
                    }
                    grown
                }
            });
        }
        Ok(Value::set(Set::from_values(product.unwrap_or_default())))
    }

    /// `(A, B)` as a type: every `(a, b)`.
    pub(super) fn tuple_product(&self, sets: &[Arc<Set>], span: Span) -> EvalResult<Value> {
        let sizes = sets
            .iter()
            .map(|set| self.enumerate(set, span).map(<[Value]>::len))
            .collect::<EvalResult<Vec<usize>>>()?;
        self.reserve(self.product_size(sizes, span)?)?;
        let mut product: Vec<Vec<Value>> = vec![Vec::new()];
        for set in sets {
            let values = self.enumerate(set, span)?;
            let mut grown = Vec::with_capacity(product.len() * values.len());
            for prefix in &product {
                for v in values {
                    let mut t = prefix.clone();
                    t.push(v.clone());
                    grown.push(t);
                }
                self.check_size(grown.len(), span)?;
            }
            product = grown;
        }
        Ok(Value::set(Set::from_values(
            product
                .into_iter()
                .map(|t| Value::Tuple(t.into()))
                .collect(),
        )))
    }

    /// `Events`: every complete event of every channel.
    pub(super) fn events(&self, span: Span) -> EvalResult<Arc<Set>> {
        if let Some(events) = self.shared.events.get() {
            return Ok(events.clone());
        }
        let mut values = Vec::new();
        for i in 0..self.script.channels.len() {
            let channel = Value::Channel(crate::script::ir::ChannelId(i as u32));
            values.extend(self.productions(&channel, span)?);
            self.check_size(values.len(), span)?;
        }
        let events = Arc::new(Set::from_values(values));
        Ok(self.shared.events.get_or_init(|| events).clone())
    }

    /// Membership in an infinite datatype (recursive, or with an infinite
    /// field): a complete value whose constructor is one of the
    /// datatype's. Its fields need no second look: values are only built
    /// by dotting fields on, and every field
    /// that is complete when it is put in is checked against its type
    /// ([`Evaluator::dot`]), and checked again at every level when a
    /// nested field is completed later. Looking again at every level
    /// would make building a list of n elements cost n³.
    pub(super) fn datatype_member(&self, d: DataTypeId, v: &Value) -> bool {
        let Some(Head::Ctor(ctor)) = head_of(v) else {
            return false;
        };
        self.script.ctors[ctor.index()].datatype == d && self.is_complete(v)
    }
}

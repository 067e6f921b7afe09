//! Declarations: the types of definitions, datatypes, channels, subtypes,
//! nametypes, `Timed` sections and assertions.
//!
//! Declarations are checked in groups that refer to each other
//! ([`super::order`]), each group after those it uses, as FDR does; a
//! group's definitions are then generalised (`id(x) = x` is
//! `(a) -> a` for every `a`). A channel or constructor whose type is
//! still polymorphic after its group is refused (its fields must be
//! known), and the datatypes of a group can be compared with `==` when
//! all their fields can (the largest such set, as a datatype may contain
//! itself).

use crate::script::ir::{ChannelId, CtorId, DataTypeId, ExprKind, FuncId, GlobalId, GlobalKind};
use crate::syntax::Span;

use super::checker::{Checker, Context, Equality, Inferred};
use super::env::{Binding, Scheme, generalise, instantiate, instantiate_together};
use super::infer::Captures;
use super::order::Decl;
use super::print::Namer;
use super::ty::{Class, Ty, TyId, atom};

/// How deep a definition's type may nest. Far beyond any type written by
/// hand, and shallow enough that every walk over types (unification,
/// working out dots, instantiation, printing) stays well inside the
/// stack: a deeper type comes only from a definition whose type doubles
/// with each use.
const MAX_TYPE_DEPTH: usize = 2_000;

impl Checker<'_> {
    /// Checks one group of declarations that use each other: whether it
    /// had a type error.
    pub fn check_group(&mut self, group: &[Decl]) -> bool {
        let script = self.script;
        let before = self.diagnostics.len();
        let mut datatypes = Vec::new();
        self.group_types.clear();
        for &decl in group {
            match decl {
                Decl::Global(g) => {
                    let t = self.store.fresh();
                    self.group_types.push(t);
                    self.env.set_global(g, Binding::Mono(t));
                }
                Decl::DataType(d) => {
                    datatypes.push(d);
                    self.equality[d.index()] = Equality::Pending;
                    for &c in &script.datatypes[d.index()].ctors {
                        self.env.ctors[c.index()] = Binding::Mono(self.store.fresh());
                    }
                }
                Decl::Channel(c) => {
                    self.env.channels[c.index()] = Binding::Mono(self.store.fresh());
                }
                Decl::Timed(_) => {}
            }
        }
        // Datatypes first, as FDR does: the others use their
        // constructors' types.
        for &d in &datatypes {
            self.check_datatype(d);
        }
        for &decl in group {
            match decl {
                Decl::Global(g) => self.check_global(g),
                Decl::Channel(c) => self.check_channel(c),
                Decl::Timed(i) => self.check_timed(i),
                Decl::DataType(_) => {}
            }
        }
        self.decide_equality(&datatypes);
        let failed = self.diagnostics.len() > before;
        for &decl in group {
            self.close(decl, failed);
        }
        failed
    }

    /// The declaration's types made final: definitions generalised,
    /// constructors and channels checked to be fully known; everything
    /// of a group with errors has the error type, so that its uses are
    /// not reported again.
    fn close(&mut self, decl: Decl, failed: bool) {
        let script = self.script;
        let error = Binding::Poly(Scheme::mono(atom::ERROR));
        match decl {
            Decl::Global(g) => {
                let binding = match self.env.global(g).clone() {
                    _ if failed => error,
                    Binding::Mono(t) if self.store.deeper_than(t, MAX_TYPE_DEPTH) => {
                        let global = &script.globals[g.index()];
                        self.at(global.span, |c| {
                            c.report(
                                format!(
                                    "type checking stopped: the type of {} nests more than {} \
                                     levels deep",
                                    global.name, MAX_TYPE_DEPTH
                                ),
                                vec![
                                    "a definition whose type doubles with each use (`f(x) = <x>` \
                                     applied to itself, again and again) makes types too large to \
                                     work with"
                                        .to_string(),
                                ],
                            )
                        });
                        error
                    }
                    Binding::Mono(t) => match &script.generic {
                        // A generic copy's parameter stays one type for
                        // the whole copy, and no definition of the copy
                        // is generic in it.
                        Some(copies) if copies.is_parameter(g) => Binding::Mono(t),
                        Some(copies) if copies.holds(g) => {
                            let keep = self.parameter_variables(&copies.params);
                            Binding::Poly(generalise(&mut self.store, t, &keep))
                        }
                        _ => Binding::Poly(generalise(&mut self.store, t, &[])),
                    },
                    other => other,
                };
                self.env.set_global(g, binding);
            }
            Decl::DataType(d) => {
                for &c in &script.datatypes[d.index()].ctors {
                    let ctor = &script.ctors[c.index()];
                    let binding = self.env.ctors[c.index()].clone();
                    self.env.ctors[c.index()] = match binding {
                        _ if failed => error.clone(),
                        Binding::Mono(t) => {
                            let copied = script.generic.as_ref().is_some_and(|g| g.holds_ctor(c));
                            let what = ("The data type clause", ctor.name.as_str(), ctor.span);
                            self.fixed(t, what, copied)
                        }
                        other => other,
                    };
                }
            }
            Decl::Timed(_) => {}
            Decl::Channel(c) => {
                let channel = &script.channels[c.index()];
                self.env.channels[c.index()] = match self.env.channels[c.index()].clone() {
                    _ if failed => error,
                    Binding::Mono(t) => {
                        let copied = script.generic.as_ref().is_some_and(|g| g.holds_channel(c));
                        let what = ("The channel", channel.name.as_str(), channel.span);
                        self.fixed(t, what, copied)
                    }
                    other => other,
                };
            }
        }
    }

    /// The type variables of the generic copies' parameters `params`.
    fn parameter_variables(&mut self, params: &[GlobalId]) -> Vec<TyId> {
        let mut vars = Vec::new();
        for &p in params {
            if let Binding::Mono(t) = *self.env.global(p) {
                self.store.free_vars(t, &mut vars);
            }
        }
        vars
    }

    /// As FDR: an instance's argument (`func`, the constant of global
    /// `g` it defines, of type `actual`) against its module's parameter,
    /// whose type the module's generic copy worked out. The instance's
    /// parameters take fresh copies of their types together (two
    /// parameters of one type must get arguments of one type).
    fn check_instance_argument(&mut self, g: GlobalId, func: FuncId, actual: TyId) {
        let script = self.script;
        let Some(copies) = &script.generic else {
            return;
        };
        let Some(&(instance, place)) = copies.of_argument.get(&g) else {
            return;
        };
        let arguments = &copies.instances[instance as usize];
        let expected = match self.instance_types.get(&instance) {
            Some(types) => types[place as usize],
            None => {
                let params: Vec<TyId> = arguments
                    .params
                    .iter()
                    .map(|&(_, p)| match *self.env.global(p) {
                        Binding::Mono(t) => t,
                        _ => atom::ERROR,
                    })
                    .collect();
                let types = instantiate_together(&mut self.store, &params);
                let expected = types[place as usize];
                self.instance_types.insert(instance, types);
                expected
            }
        };
        let function = script.function(func);
        let Some(argument) = function.clauses.first().map(|c| c.body) else {
            return;
        };
        let span = function.span;
        self.within(Context::Instance(arguments.name), |c| {
            c.within(Context::Expr(argument), |c| {
                let _ = c.at(span, |c| c.unify(expected, actual));
            })
        });
    }

    /// A constructor's or channel's type, which must have no variables
    /// left: FDR refuses `channel c : {}` ("polymorphic type"). `what`
    /// is the kind of declaration `name` is, for the message.
    fn fixed(
        &mut self,
        t: TyId,
        (what, name, span): (&'static str, &str, Span),
        copied: bool,
    ) -> Binding {
        let mut vars = Vec::new();
        self.store.free_vars(t, &mut vars);
        // In a module's generic copy, its parameters' types stand for
        // what the arguments will be.
        if copied && let Some(copies) = &self.script.generic {
            let keep = self.parameter_variables(&copies.params);
            vars.retain(|v| !keep.contains(v));
        }
        if vars.is_empty() {
            return Binding::Poly(Scheme::mono(t));
        }
        let (fields, _) = self.reduce_dotable(t);
        let mut namer = Namer::default();
        let mut p = self.printer(&mut namer);
        let scheme = p.scheme(t);
        let mut notes = vec![format!(
            "to fix this, give these fields of {name} a type that is known:"
        )];
        for (i, &field) in fields.iter().enumerate() {
            let mut field_vars = Vec::new();
            self.store.free_vars(field, &mut field_vars);
            if !field_vars.is_empty() {
                let mut p = self.printer(&mut namer);
                notes.push(format!("field {}: {}", i + 1, p.ty(field)));
            }
        }
        self.at(span, |c| {
            c.report(
                format!("{what} {name} has a polymorphic type: {scheme}"),
                notes,
            )
        });
        Binding::Poly(Scheme::mono(atom::ERROR))
    }

    fn check_global(&mut self, g: GlobalId) {
        let script = self.script;
        let global = &script.globals[g.index()];
        let Binding::Mono(name_type) = *self.env.global(g) else {
            return;
        };
        // A generic copy's parameter stands for every argument: its type
        // is whatever the copy's uses make it.
        if script.generic.as_ref().is_some_and(|c| c.is_parameter(g)) {
            return;
        }
        match &global.kind {
            GlobalKind::Definition(func) => {
                self.define(*func, Captures::None, name_type);
                self.check_instance_argument(g, *func, name_type);
            }
            GlobalKind::NameType(func) => {
                let context = Context::Declaration(global.name);
                let _ = self.within(context, |c| {
                    c.at(global.span, |c| -> Inferred<()> {
                        // An annotation gives the type of the set.
                        let t = match &script.function(*func).annotation {
                            Some(a) => {
                                let signature = c.annotation_type(a);
                                c.check_constant_as(*func, signature)
                            }
                            None => c.check_function(*func, Captures::None),
                        };
                        let value = c.type_expression(t)?;
                        let value = c.ensure_classes(&[Class::Complete], value)?;
                        let set = c.store.set(value);
                        c.unify(name_type, set)?;
                        Ok(())
                    })
                });
            }
            GlobalKind::SubType(clauses) => {
                let context = Context::Declaration(global.name);
                let _ = self.within(context, |c| {
                    c.at(global.span, |c| -> Inferred<()> {
                        let parent = c.store.fresh();
                        for (ctor, fields) in clauses {
                            c.check_subtype_clause(*ctor, fields, parent)?;
                        }
                        let set = c.store.set(parent);
                        c.unify(name_type, set)?;
                        Ok(())
                    })
                });
            }
            GlobalKind::DataType(_) | GlobalKind::Builtin(_) => {}
        }
    }

    /// One clause `C.A.B` of a subtype of the datatype with `parent`'s
    /// type: `C`'s fields, at most as many as it has, of its types.
    fn check_subtype_clause(
        &mut self,
        ctor: CtorId,
        fields: &[FuncId],
        parent: TyId,
    ) -> Inferred<()> {
        let given = self.field_types(fields, &[Class::Complete])?;
        let binding = self.env.ctor(ctor).clone();
        let ctor_type = instantiate(&mut self.store, &binding);
        let (declared, data) = self.reduce_dotable(ctor_type);
        if given.len() > declared.len() {
            let name = &self.script.ctors[ctor.index()].name;
            return Err(self.report(
                format!(
                    "The datatype clause {name} was supplied with {} arguments, but was \
                     expecting at most {}",
                    given.len(),
                    declared.len()
                ),
                Vec::new(),
            ));
        }
        let pointer = self.store.fresh();
        let extendable = self.store.add(Ty::Extendable(parent, pointer));
        self.unify(extendable, data)?;
        for (&d, &g) in declared.iter().zip(&given) {
            self.unify(d, g)?;
        }
        Ok(())
    }

    fn check_datatype(&mut self, d: DataTypeId) {
        let script = self.script;
        let datatype = &script.datatypes[d.index()];
        let data = self.store.add(Ty::Data(d));
        let context = Context::Declaration(datatype.name);
        self.within(context, |c| {
            for &ctor in &datatype.ctors {
                let constructor = &script.ctors[ctor.index()];
                let Binding::Mono(name_type) = c.env.ctor(ctor).clone() else {
                    continue;
                };
                let context = Context::Source {
                    what: "the data type clause",
                    span: constructor.span,
                };
                let _ = c.within(context, |c| {
                    c.at(constructor.span, |c| -> Inferred<()> {
                        let signature = match &constructor.annotation {
                            Some(a) => {
                                let signature = c.annotation_type(a);
                                c.expect_extendable(data, signature)?;
                                Some(signature)
                            }
                            None => None,
                        };
                        let fields = c.field_types(&constructor.fields, &[Class::Complete])?;
                        let t = c.store.dotables(&fields, data);
                        if let Some(signature) = signature {
                            c.unify(signature, t)?;
                        }
                        c.unify(t, name_type)?;
                        Ok(())
                    })
                });
            }
        });
    }

    fn check_channel(&mut self, ch: ChannelId) {
        let channel = &self.script.channels[ch.index()];
        let Binding::Mono(name_type) = self.env.channel(ch).clone() else {
            return;
        };
        let context = Context::Declaration(channel.name);
        let _ = self.within(context, |c| {
            c.at(channel.span, |c| -> Inferred<()> {
                let signature = channel.annotation.as_ref().map(|a| c.annotation_type(a));
                if let Some(signature) = signature {
                    if channel.fields.is_empty() {
                        c.unify(signature, atom::EVENT)?;
                    } else {
                        // FDR first asks that the annotation give events.
                        let (_, result) = c.reduce_dotable(signature);
                        c.unify(atom::EVENT, result)?;
                    }
                }
                // Events are compared, so their fields must be comparable.
                let fields = c.field_types(&channel.fields, &[Class::Eq, Class::Complete])?;
                let t = c.store.dotables(&fields, atom::EVENT);
                if let Some(signature) = signature {
                    c.unify(signature, t)?;
                }
                c.unify(name_type, t)?;
                Ok(())
            })
        });
    }

    /// The fields a channel's or constructor's field sets give: each set's
    /// values, split where they are dotted (`{0.1}` is two fields).
    fn field_types(&mut self, fields: &[FuncId], classes: &[Class]) -> Inferred<Vec<TyId>> {
        let mut out = Vec::new();
        for &field in fields {
            let t = self.check_function(field, Captures::None);
            let t = self.evaluate_dots(t)?;
            let value = self.type_expression(t)?;
            let value = self.ensure_classes(classes, value)?;
            out.extend(self.dot_list(value));
        }
        Ok(out)
    }

    /// The type of the values a type expression stands for: `{Int}` is
    /// `Int`, `({Int}, {Bool})` is `(Int, Bool)`, `{Int}.{Bool}` is
    /// `Int.Bool`.
    pub fn type_expression(&mut self, t: TyId) -> Inferred {
        let (t, node) = self.store.view(t);
        match node {
            Ty::Tuple(list) => {
                let items = self.store.items_vec(list);
                let mut parts = Vec::with_capacity(items.len());
                for item in items {
                    parts.push(self.type_expression(item)?);
                }
                Ok(self.store.tuple(&parts))
            }
            Ty::Dot(a, b) => {
                let a = self.type_expression(a)?;
                let b = self.type_expression(b)?;
                Ok(self.store.dot(a, b))
            }
            _ => {
                let element = self.store.fresh();
                let set = self.store.set(element);
                self.unify(t, set)?;
                Ok(element)
            }
        }
    }

    /// Which datatypes of a group can be compared with `==`: the largest
    /// set whose fields all can, given that the set's members can. Uses
    /// of `==` met while the group was checked are judged now.
    fn decide_equality(&mut self, datatypes: &[DataTypeId]) {
        if datatypes.is_empty() {
            return;
        }
        let script = self.script;
        let mut fields: Vec<(DataTypeId, Vec<TyId>)> = Vec::new();
        for &d in datatypes {
            let mut all = Vec::new();
            for &c in &script.datatypes[d.index()].ctors {
                if let Binding::Mono(t) = self.env.ctor(c).clone() {
                    all.extend(self.reduce_dotable(t).0);
                }
            }
            fields.push((d, all));
        }
        loop {
            let mut changed = false;
            for (d, field_types) in &fields {
                if self.equality[d.index()] == Equality::No {
                    continue;
                }
                if !field_types.iter().all(|&t| self.has_equality(t)) {
                    self.equality[d.index()] = Equality::No;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (d, field_types) in &fields {
            if self.equality[d.index()] == Equality::Pending {
                self.equality[d.index()] = Equality::Yes;
                // Fields still unknown must then be comparable too (the
                // constructor is refused as polymorphic, with FDR's
                // classes).
                for &t in field_types {
                    let _ = self.unify_class(Class::Eq, t);
                }
            }
        }
        let pending = std::mem::take(&mut self.pending_equality);
        for (d, at, contexts) in pending {
            if self.equality[d.index()] == Equality::No {
                let outer = std::mem::replace(&mut self.contexts, contexts);
                let name = &script.datatypes[d.index()].name;
                self.at(at, |c| {
                    c.report(
                        format!("The type {name} does not have the constraint Eq"),
                        vec![format!(
                            "a value of {name} may hold a process or a function, which \
                             cannot be compared"
                        )],
                    )
                });
                self.contexts = outer;
            }
        }
    }

    /// Whether values of type `t` can be compared, reading datatypes
    /// still being decided as they are marked now.
    fn has_equality(&mut self, t: TyId) -> bool {
        let (_, node) = self.store.view(t);
        match node {
            Ty::Int | Ty::Char | Ty::Bool | Ty::Event | Ty::Error => true,
            Ty::Var(_) | Ty::Extendable(..) => true,
            Ty::Rigid(_, classes) => classes.entails(Class::Eq),
            Ty::Proc | Ty::Fun(..) | Ty::EmptyDots | Ty::Link(_) => false,
            Ty::Data(d) => self.equality[d.index()] != Equality::No,
            Ty::Set(a) | Ty::Seq(a) => self.has_equality(a),
            Ty::Map(a, b) | Ty::Dot(a, b) | Ty::Dotable(a, b) => {
                self.has_equality(a) && self.has_equality(b)
            }
            Ty::Tuple(list) => self
                .store
                .items_vec(list)
                .into_iter()
                .all(|t| self.has_equality(t)),
        }
    }

    /// A `Timed` section: `tock` must be an event and the function take
    /// events to integers (the number of tocks each event lasts). A
    /// `tock` of another type is reported here once, not at every prefix
    /// the translation made.
    pub fn check_timed(&mut self, index: usize) {
        let script = self.script;
        let section = &script.timed[index];
        // `Timed(et)`, up to the brace: where a problem of the section's
        // own is shown.
        let text = script.sources.snippet(section.span);
        let head = Span {
            start: section.span.start,
            end: section.span.start + text.find('{').unwrap_or(text.len()) as u32,
        };
        let context = Context::Source {
            what: "the Timed section",
            span: head,
        };
        self.within(context, |c| {
            if let Some(tock) = section.tock {
                let before = c.diagnostics.len();
                let t = c.check_function(tock, Captures::None);
                let _ = c.at(head, |c| c.unify(atom::EVENT, t));
                if c.diagnostics.len() > before {
                    c.diagnostics
                        .last_mut()
                        .expect("just reported")
                        .notes
                        .insert(
                            0,
                            "time passes by `tock`, which must be an event: declare it \
                             `channel tock`"
                                .to_string(),
                        );
                    let error = Binding::Poly(Scheme::mono(atom::ERROR));
                    match script.expr(script.function(tock).clauses[0].body).kind {
                        ExprKind::Channel(ch) => c.env.channels[ch.index()] = error,
                        ExprKind::Global(g) => c.env.set_global(g, error),
                        _ => {}
                    }
                }
            }
            if let Some(function) = section.function {
                // The function as written between the brackets, where a
                // mismatch is shown with the type it has.
                let at = bracketed(&text[..(head.end - head.start) as usize]).map_or(
                    head,
                    |(from, to)| Span {
                        start: head.start + from as u32,
                        end: head.start + to as u32,
                    },
                );
                let timing = c.store.fun(&[atom::EVENT], atom::INT);
                let t = c.check_function(function, Captures::None);
                let before = c.diagnostics.len();
                let _ = c.at(at, |c| c.unify(timing, t));
                if c.diagnostics.len() > before {
                    let mut namer = Namer::default();
                    let shown = c.printer(&mut namer).ty(t);
                    let name = script.sources.snippet(at);
                    c.diagnostics
                        .last_mut()
                        .expect("just reported")
                        .notes
                        .insert(
                            0,
                            format!(
                                "`{name}` :: {shown}; a Timed section's function gives each \
                                 event the tocks it takes, (Event) -> Int"
                            ),
                        );
                }
            }
        });
    }

    /// Checks an assertion: its processes are processes, its sets sets
    /// of events or of values.
    pub fn check_assertion(&mut self, index: usize) {
        use crate::script::ir::{AssertOption, AssertionKind};
        let script = self.script;
        let assertion = &script.assertions[index];
        let context = Context::Source {
            what: "the assertion",
            span: assertion.span,
        };
        self.within(context, |c| {
            let process = |c: &mut Checker<'_>, func: FuncId| {
                c.check_constant_as(func, atom::PROC);
            };
            match &assertion.kind {
                AssertionKind::Refinement { spec, imp, .. } => {
                    process(c, *spec);
                    process(c, *imp);
                }
                AssertionKind::Property { process: p, .. } => process(c, *p),
                AssertionKind::HasTrace {
                    process: p, trace, ..
                } => {
                    process(c, *p);
                    let trace_type = c.store.seq(atom::EVENT);
                    c.check_constant_as(*trace, trace_type);
                }
                AssertionKind::Symmetric { process: p, types } => {
                    process(c, *p);
                    for &t in types {
                        let set = c.any_set();
                        c.check_constant_as(t, set);
                    }
                }
            }
            for option in &assertion.options {
                match option {
                    AssertOption::TauPriority(func, _) => {
                        let events = c.store.set(atom::EVENT);
                        c.check_constant_as(*func, events);
                    }
                    AssertOption::SymmetryReduce(types, _) => {
                        for &t in types {
                            let set = c.any_set();
                            c.check_constant_as(t, set);
                        }
                    }
                    AssertOption::PartialOrderReduce(..) => {}
                }
            }
        });
    }

    fn any_set(&mut self) -> TyId {
        let element = self.store.fresh();
        self.store.set(element)
    }

    /// Checks constant `func` (a top-level expression) against `expected`.
    pub fn check_constant_as(&mut self, func: FuncId, expected: TyId) -> TyId {
        let body = self.script.function(func).clauses[0].body;
        self.in_frame(func, Captures::None, |c| c.expect(body, expected))
    }
}

/// Where the text between the first `(` of `head` and its last `)`
/// lies, blanks trimmed: `Tm` in `Timed(Tm) `.
fn bracketed(head: &str) -> Option<(usize, usize)> {
    let open = head.find('(')? + 1;
    let close = head.rfind(')')?;
    let inner = head.get(open..close)?;
    let from = open + (inner.len() - inner.trim_start().len());
    let to = close - (inner.len() - inner.trim_end().len());
    (from < to).then_some((from, to))
}

#[cfg(test)]
mod tests {
    use super::bracketed;

    #[test]
    fn the_function_of_a_timed_section_is_found_between_its_brackets() {
        fn at(head: &str) -> Option<&str> {
            bracketed(head).map(|(a, b)| &head[a..b])
        }
        assert_eq!(at("Timed(Tm) "), Some("Tm"));
        assert_eq!(at("Timed( \\ e @ f(e) ) "), Some("\\ e @ f(e)"));
        assert_eq!(at("Timed() "), None);
        assert_eq!(at("Timed "), None);
    }
}

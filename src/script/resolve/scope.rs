//! Scopes and captures: function scopes, local and global names and
//! their captures, and `let` (its groups, lazy units and recursion).

use super::expr::{describe_arity, pattern_variables};
use super::*;
use crate::script::index::Symbol;

impl<'s, 'p> Resolver<'s, 'p> {
    // ------------------------------------------------------------ functions

    /// Resolves `body` as the body of constant `func` (a function scope
    /// with no parameters and no captures).
    pub(super) fn constant_body(&mut self, func: FuncId, body: impl FnOnce(&mut Self) -> ExprId) {
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_fns = std::mem::take(&mut self.fns);
        let saved_uses = std::mem::take(&mut self.uses);
        self.push_fn(None);
        let body = body(self);
        let uses = std::mem::replace(&mut self.uses, saved_uses);
        self.script.functions[func.index()].uses = uses;
        let scope = self.finish_fn(func);
        let f = &mut self.script.functions[func.index()];
        f.frame_size = scope.locals;
        f.clauses = vec![Clause {
            params: Vec::new(),
            body,
            span: self.script.exprs[body.index()].span,
        }];
        self.scopes = saved_scopes;
        self.fns = saved_fns;
    }

    pub(super) fn push_fn(&mut self, env_owner: Option<usize>) {
        let index = self.fns.len();
        self.fns.push(FnScope {
            env_owner: env_owner.unwrap_or(index),
            captures: Vec::new(),
            capture_names: Vec::new(),
            locals: 0,
            bound: Vec::new(),
        });
    }

    /// Pops the innermost function scope, which is `func`'s, noting in
    /// the name index which slot of `func` each of its variables is.
    fn finish_fn(&mut self, func: FuncId) -> FnScope {
        let scope = self.fns.pop().expect("a function scope");
        for &(id, slot) in &scope.bound {
            self.script.index.slot_of(id, func, slot);
        }
        scope
    }

    /// Pops the innermost function scope into `func` and returns where its
    /// captures come from in the enclosing scope.
    pub(super) fn pop_fn(&mut self, func: FuncId) -> Vec<VarRef> {
        let scope = self.finish_fn(func);
        let f = &mut self.script.functions[func.index()];
        f.frame_size = scope.locals;
        f.captures = scope.capture_names;
        scope
            .captures
            .into_iter()
            .map(|(_, source)| source)
            .collect()
    }

    /// The top-level or module clauses of one definition.
    pub(super) fn resolve_clauses(&mut self, func: FuncId, clauses: &[&'p ast::Decl]) {
        let defs: Vec<(&ast::Definition, Span)> = clauses
            .iter()
            .map(|d| match &d.kind {
                DeclKind::Definition(def) => (def, d.span),
                _ => unreachable!("clauses are definitions"),
            })
            .collect();
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_fns = std::mem::take(&mut self.fns);
        let saved_uses = std::mem::take(&mut self.uses);
        self.push_fn(None);
        self.with_type_vars(func, |r| r.function_clauses(func, &defs));
        let uses = std::mem::replace(&mut self.uses, saved_uses);
        self.script.functions[func.index()].uses = uses;
        self.finish_fn(func);
        self.scopes = saved_scopes;
        self.fns = saved_fns;
    }

    /// Resolves the clauses of `func` in the innermost function scope,
    /// which the caller pushed and pops.
    pub(super) fn function_clauses(&mut self, func: FuncId, defs: &[(&ast::Definition, Span)]) {
        let name = self.script.functions[func.index()].name;
        let shape = |def: &ast::Definition| -> Vec<usize> {
            match &def.lhs {
                Lhs::Function(_, groups) => groups.iter().map(|group| group.len()).collect(),
                _ => Vec::new(),
            }
        };
        let arity = shape(defs[0].0);
        let mut clauses = Vec::new();
        for &(def, span) in defs {
            if shape(def) != arity {
                self.diagnostics.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "this clause of `{name}` takes {}, but its first clause takes {}",
                            describe_arity(&shape(def)),
                            describe_arity(&arity)
                        ),
                    )
                    .with_secondary(defs[0].1, "first clause"),
                );
                continue;
            }
            self.scopes.push(FxHashMap::default());
            let params = match &def.lhs {
                Lhs::Function(_, groups) => groups
                    .iter()
                    .map(|group| group.iter().map(|p| self.pattern(p)).collect())
                    .collect(),
                _ => Vec::new(),
            };
            let body = self.definition_body(def, name, &params);
            self.scopes.pop();
            clauses.push(Clause { params, body, span });
        }
        let locals = self.fns.last().map_or(0, |s| s.locals);
        let f = &mut self.script.functions[func.index()];
        f.arity = arity;
        f.clauses = clauses;
        f.frame_size = locals;
        if let Some(scope) = self.fns.last() {
            f.captures = scope.capture_names.clone();
        }
    }

    /// The right-hand side of a definition. When its parameters are
    /// plain variables, its states print as calls: a process expression
    /// that is the whole body as `P(1, A)` ([`Function::call_form`]), and
    /// one in a branch of the body's `if`s that captures every parameter
    /// as the call that reaches it ([`Function::shown_call`]).
    ///
    /// [`Function::call_form`]: crate::script::ir::Function::call_form
    /// [`Function::shown_call`]: crate::script::ir::Function::shown_call
    pub(super) fn definition_body(
        &mut self,
        def: &ast::Definition,
        name: Ustr,
        params: &[Vec<Pattern>],
    ) -> ExprId {
        let body = self.expr(&def.rhs);
        let Some(slots) = params
            .iter()
            .flatten()
            .map(|p| match p {
                Pattern::Bind(slot) => Some(*slot),
                _ => None,
            })
            .collect::<Option<Vec<u32>>>()
        else {
            return body;
        };
        let display = Ustr::from(name.as_str());
        let form = |sources: &[VarRef]| CallForm {
            name: display,
            params: slots
                .iter()
                .map(|slot| {
                    let at = sources.iter().position(|s| *s == VarRef::Local(*slot));
                    at.map(|i| i as u32)
                })
                .collect(),
        };
        if let ExprKind::Process(proc_func, sources) = &self.script.exprs[body.index()].kind {
            let (proc_func, form) = (*proc_func, form(sources));
            self.script.functions[proc_func.index()].call_form = Some(form);
            return body;
        }
        // The branches of `if`s, however nested: the conditions read only
        // what the call was given, so a branch's state that holds every
        // parameter is made by that call and no other.
        let mut branches = vec![body];
        while let Some(expr) = branches.pop() {
            match &self.script.exprs[expr.index()].kind {
                ExprKind::If(_, then, otherwise) => branches.extend([*then, *otherwise]),
                ExprKind::Process(proc_func, sources) => {
                    let (proc_func, form) = (*proc_func, form(sources));
                    if form.params.iter().all(Option::is_some) {
                        self.script.functions[proc_func.index()].shown_call = Some(form);
                    }
                }
                _ => {}
            }
        }
        body
    }

    // ------------------------------------------------------------ names

    /// Binds `name`, written at `at`, to a new slot of the innermost
    /// function.
    pub(super) fn bind_local(&mut self, name: Ustr, at: Span) -> u32 {
        let scope = self.fns.len() - 1;
        let slot = self.fns[scope].locals;
        self.fns[scope].locals += 1;
        self.fns[scope].bound.push((self.next_binding, slot));
        self.bind(name, BindingKind::Local { scope, slot }, at);
        slot
    }

    pub(super) fn bind(&mut self, name: Ustr, kind: BindingKind, at: Span) {
        let id = self.next_binding;
        self.next_binding += 1;
        self.script.index.bound(id, name, at);
        self.scopes
            .last_mut()
            .expect("a lexical scope")
            .insert(name, Binding { id, kind });
    }

    pub(super) fn lookup_local(&self, name: Ustr) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(&name).copied())
    }

    /// The variable a binding is, seen from the innermost function.
    pub(super) fn var_ref(&mut self, binding: Binding) -> VarRef {
        let (home, mut var) = match binding.kind {
            BindingKind::Local { scope, slot } => (scope, VarRef::Local(slot)),
            BindingKind::Env { scope } => (scope, VarRef::Env),
            BindingKind::GroupMember { .. } => unreachable!("group members are not variables"),
        };
        let name = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().find(|(_, b)| b.id == binding.id).map(|(n, _)| *n))
            .unwrap_or_default();
        for s in home + 1..self.fns.len() {
            if self.fns[s].env_owner != s {
                // A group member runs in its group's environment, which
                // the previous scope (the group) has just captured into.
                continue;
            }
            let scope = &mut self.fns[s];
            let index = match scope.captures.iter().position(|(id, _)| *id == binding.id) {
                Some(i) => i,
                None => {
                    scope.captures.push((binding.id, var));
                    scope.capture_names.push(name);
                    scope.captures.len() - 1
                }
            };
            var = VarRef::Capture(index as u32);
        }
        var
    }

    /// A top-level name as seen from the current module.
    pub(super) fn lookup_global(&self, text: Ustr) -> Option<Named> {
        self.ctx.prefixes.iter().find_map(|p| {
            let q = prefixed(p, text)?;
            self.script.names.get(&q).copied()
        })
    }

    /// The qualified name a global lookup found, for privacy checks.
    pub(super) fn global_name(&self, text: Ustr) -> Option<Ustr> {
        self.ctx.prefixes.iter().find_map(|p| {
            let q = prefixed(p, text)?;
            self.script.names.contains_key(&q).then_some(q)
        })
    }

    pub(super) fn name_expr(&mut self, name: &ast::Name) -> ExprId {
        let span = name.span;
        if !name.is_qualified()
            && let Some(binding) = self.lookup_local(name.text)
        {
            self.script.index.used(Symbol::Local(binding.id), span);
            let kind = match binding.kind {
                BindingKind::GroupMember { func, handle } => {
                    let handle = self
                        .lookup_local(handle)
                        .expect("a group's handle is in scope with its members");
                    let group = self.var_ref(handle);
                    ExprKind::GroupMember {
                        group,
                        member: func,
                    }
                }
                _ => ExprKind::Var(self.var_ref(binding)),
            };
            return self.push_expr(kind, span);
        }
        if self.module_shadows(name) || self.uses_own_instance(name) {
            return self.push_expr(ExprKind::Int(0), span);
        }
        match self.lookup_global(name.text) {
            Some(named) => {
                self.check_private(name);
                self.uses.push(named);
                self.script.index.used(named.into(), span);
                let kind = match named {
                    Named::Global(g) => ExprKind::Global(g),
                    Named::Ctor(c) => ExprKind::Ctor(c),
                    Named::Channel(c) => ExprKind::Channel(c),
                };
                self.push_expr(kind, span)
            }
            None => match self.builtin_named(name) {
                Some(b) => {
                    self.check_imported(b, name);
                    let g = self.script.builtin_global(b);
                    self.push_expr(ExprKind::Global(g), span)
                }
                None if let Some(b) = bool_constant(&name.text) => {
                    self.push_expr(ExprKind::Bool(b), span)
                }
                None => {
                    self.unknown_name(&name.text, span);
                    self.push_expr(ExprKind::Int(0), span)
                }
            },
        }
    }

    /// Whether the innermost declaration of `name` is a module or an
    /// instance (reported: a module is no value, as in FDR, even where an
    /// outer scope has a value of that name).
    fn module_shadows(&mut self, name: &ast::Name) -> bool {
        for p in &self.ctx.prefixes {
            let Some(q) = prefixed(p, name.text) else {
                continue;
            };
            if self.script.names.contains_key(&q) {
                return false;
            }
            if self.modules_declared_at.contains_key(&q) {
                self.error(
                    name.span,
                    format!(
                        "`{}` is a module or instance, not a value: name its definitions \
                         through it (`{}::x`)",
                        name.text, name.text
                    ),
                );
                return true;
            }
        }
        false
    }

    /// Whether `name` (`I::x`) reaches into an instance of a module whose
    /// body is being resolved (reported: as in FDR, a module may not use
    /// its own instance, whose definitions would be its own).
    fn uses_own_instance(&mut self, name: &ast::Name) -> bool {
        let Some((qualifier, _)) = name.text.rsplit_once("::") else {
            return false;
        };
        let found = self.ctx.prefixes.iter().find_map(|p| {
            let q = Ustr::from_existing(&format!("{p}{qualifier}"))?;
            self.instance_of
                .get(&q)
                .map(|&(id, module)| (q, id, module))
        });
        let Some((instance, id, module)) = found else {
            return false;
        };
        if !self.ctx.modules.iter().any(|&(m, _)| m == id) {
            return false;
        }
        if self
            .reported_own_instance
            .insert((name.span.start, name.span.end))
        {
            self.diagnostics.push(
                Diagnostic::error(
                    name.span,
                    format!(
                        "module `{module}` uses `{}`, a definition of `{instance}`, which is an \
                         instance of itself",
                        name.text
                    ),
                )
                .with_note("a module cannot use its own instances: their definitions are its own"),
            );
        }
        true
    }

    /// The built-in a name not defined by the script denotes: a plain
    /// built-in name, or one qualified by a module (`M::normal`), as FDR
    /// lets every module see the built-ins.
    pub(super) fn builtin_named(&self, name: &ast::Name) -> Option<Builtin> {
        if !name.is_qualified() {
            return Builtin::lookup(&name.text);
        }
        let (module, last) = name.text.rsplit_once("::")?;
        let known = self.ctx.prefixes.iter().any(|p| {
            Ustr::from_existing(&format!("{p}{module}"))
                .is_some_and(|m| self.module_names.contains(&m))
        });
        known.then(|| Builtin::lookup(last)).flatten()
    }

    /// A built-in FDR provides only with `external` or `transparent` must
    /// have been declared so (the timed translation's own uses aside).
    fn check_imported(&mut self, builtin: Builtin, name: &ast::Name) {
        let declaration = match builtin.import() {
            Import::Prelude => return,
            _ if self.script.imported.contains(&builtin) || self.script.is_generated(name.span) => {
                return;
            }
            // FDR suggests `transparent` for `chase`, which takes either.
            Import::Transparent | Import::Either => "transparent",
            Import::External => "external",
        };
        let bare = name
            .text
            .rsplit_once("::")
            .map_or(name.text.as_str(), |(_, b)| b);
        self.diagnostics.push(
            Diagnostic::error(name.span, format!("`{}` is not in scope", name.text)).with_note(
                format!(
                    "FDR provides `{bare}` once the script declares it: add `{declaration} {bare}`"
                ),
            ),
        );
    }

    pub(super) fn check_private(&mut self, name: &ast::Name) {
        let Some(qualified) = self.global_name(name.text) else {
            return;
        };
        // Visible from the module itself, the modules inside it and the
        // instances of those, all of which have it among their prefixes.
        if let Some(module) = self.script.private.get(&qualified)
            && !self
                .ctx
                .prefixes
                .iter()
                .any(|p| p.starts_with(module.as_str()))
        {
            let module = module.trim_end_matches("::").to_string();
            self.error(
                name.span,
                format!("`{qualified}` is private to module `{module}`: it is not exported"),
            );
        }
    }

    pub(super) fn unknown_name(&mut self, text: &str, span: Span) {
        if let Some((module, _)) = text.rsplit_once("::")
            && self.ctx.prefixes.iter().any(|p| {
                Ustr::from_existing(&format!("{p}{module}"))
                    .is_some_and(|m| self.refused_instances.contains(&m))
            })
        {
            // Its instance was refused, with the reason.
            return;
        }
        if text == "tock"
            && let Some(section) = self
                .script
                .timed
                .iter()
                .map(|t| t.span)
                .find(|s| s.start <= span.start && span.end <= s.end)
        {
            // The translation of a `Timed` section names `tock` at every
            // prefix: one report per section.
            if self.tock_reported.insert(section.start) {
                let d = Diagnostic::error(span, "`tock` is not defined").with_note(
                    "the processes of a `Timed` section perform `tock` as time passes: \
                     declare it, as FDR requires (`channel tock`)",
                );
                self.diagnostics.push(d);
            }
            return;
        }
        let bare = text.rsplit_once("::").map_or(text, |(_, b)| b);
        if let Some((message, note)) = missing_builtin(bare) {
            let d = Diagnostic::error(span, message).with_note(note);
            self.diagnostics.push(d);
            return;
        }
        let candidates = self
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(|k| k.as_str()))
            .filter(|k| !k.starts_with('$'))
            .chain(self.script.names.keys().map(|k| k.as_str()))
            .chain(Builtin::names());
        let mut d = Diagnostic::error(span, format!("`{text}` is not defined"));
        if let Some(best) = self.suggester.closest(text, candidates) {
            d = d.with_note(format!("did you mean `{best}`?"));
        }
        self.diagnostics.push(d);
    }

    // ------------------------------------------------------------ let

    /// `let decls within body`: its definitions grouped by dependency
    /// (each recursive group sharing one environment), then the body.
    pub(super) fn let_expr(&mut self, decls: &[ast::Decl], body: &ast::Expr, span: Span) -> ExprId {
        // The definitions, by name, in order; pattern definitions apart.
        let mut units: Vec<LetUnit<'_>> = Vec::new();
        let mut defined: FxHashMap<Ustr, (usize, Span)> = FxHashMap::default();
        let mut flat = Vec::new();
        self.let_declarations(decls, &mut flat);
        let mut annotated: Vec<(&ast::Ident, &ast::TypeExpr)> = Vec::new();
        for decl in flat {
            match &decl.kind {
                DeclKind::Definition(def) => {
                    self.let_definition(def, decl.span, &mut units, &mut defined)
                }
                DeclKind::TypeAnnotation(names, ty) => {
                    self.check_annotation(ty);
                    annotated.extend(names.iter().map(|ident| (ident, ty)));
                }
                DeclKind::External(names) => self.import(names, true),
                DeclKind::Transparent(names) => self.import(names, false),
                _ => self.error(
                    decl.span,
                    "only definitions, type annotations, `external`, `transparent` and `Timed` \
                     sections may appear between `let` and `within`",
                ),
            }
        }
        self.check_annotated_once(annotated.iter().map(|(ident, _)| (ident.name, *ident)));
        let mut annotations: FxHashMap<Ustr, Annotation> = FxHashMap::default();
        let mut mentions = Vec::new();
        for (ident, ty) in annotated {
            if defined.contains_key(&ident.name) {
                mentions.push((ident.name, ident.span));
            }
            if !defined.contains_key(&ident.name) {
                self.annotation_without_definition(ident);
            } else if let std::collections::hash_map::Entry::Vacant(entry) =
                annotations.entry(ident.name)
            {
                entry.insert(self.annotation(ty));
            }
        }
        // Order the units by dependency: strongly connected components,
        // dependencies first.
        let edges = let_dependencies(&units, &defined);
        let components = crate::script::graph::strongly_connected(edges.len(), |v| &edges[v]);

        self.scopes.push(FxHashMap::default());
        let mut groups = Vec::new();
        for component in components {
            let recursive = component.len() > 1 || edges[component[0]].contains(&component[0]);
            if !recursive && !units[component[0]].is_function {
                self.lazy_unit(&units[component[0]], &annotations, &mut groups);
            } else {
                if let Some(&p) = component.iter().find(|&&i| units[i].is_pattern) {
                    self.error(
                        units[p].clauses[0].1,
                        "a pattern definition cannot be recursive",
                    );
                    continue;
                }
                self.recursive_group(&component, &units, &annotations, &mut groups);
            }
        }
        // The annotations mention the names they describe: an editor
        // renames them too.
        for (name, at) in mentions {
            if let Some(binding) = self.scopes.last().and_then(|scope| scope.get(&name)) {
                self.script.index.used(Symbol::Local(binding.id), at);
            }
        }
        let body = self.expr(body);
        self.scopes.pop();
        self.push_expr(ExprKind::Let(groups, body), span)
    }

    /// A definition between `let` and `within`: one more clause of the
    /// function just before it, or a new unit whose names are checked
    /// against those `defined` before.
    fn let_definition<'d>(
        &mut self,
        def: &'d ast::Definition,
        span: Span,
        units: &mut Vec<LetUnit<'d>>,
        defined: &mut FxHashMap<Ustr, (usize, Span)>,
    ) {
        let names: Vec<(Ustr, Span)> = match &def.lhs {
            Lhs::Name(i) | Lhs::Function(i, _) => vec![(i.name, i.span)],
            Lhs::Pattern(p) => {
                let mut names = Vec::new();
                pattern_variables(p, &mut |n: &ast::Name| {
                    if !matches!(
                        self.lookup_global(n.text),
                        Some(Named::Ctor(_) | Named::Channel(_))
                    ) {
                        names.push((n.text, n.span));
                    }
                });
                names
            }
        };
        let continues = matches!(&def.lhs, Lhs::Function(i, _)
            if units.last().is_some_and(|u| u.is_function && u.names[0].0 == i.name));
        if continues {
            units.last_mut().expect("checked").clauses.push((def, span));
            return;
        }
        for &(name, name_span) in &names {
            if let Some(&(_, earlier)) = defined.get(&name) {
                self.diagnostics.push(
                    Diagnostic::error(name_span, format!("`{name}` is defined twice"))
                        .with_secondary(earlier, "first defined here"),
                );
            }
            if matches!(
                self.lookup_global(name),
                Some(Named::Ctor(_) | Named::Channel(_))
            ) {
                self.error(
                    name_span,
                    format!(
                        "`{name}` is a datatype constructor or channel; it cannot be defined as a variable"
                    ),
                );
            }
            defined.insert(name, (units.len(), name_span));
        }
        units.push(LetUnit {
            names,
            is_function: matches!(def.lhs, Lhs::Function(..)),
            is_pattern: matches!(def.lhs, Lhs::Pattern(_)),
            clauses: vec![(def, span)],
        });
    }

    /// The declarations of a `let`, with those of its `Timed` sections
    /// in their place (a section scopes nothing: its definitions are the
    /// `let`'s).
    pub(super) fn let_declarations<'d>(
        &mut self,
        decls: &'d [ast::Decl],
        out: &mut Vec<&'d ast::Decl>,
    ) {
        for decl in decls {
            match &decl.kind {
                DeclKind::Timed(_, inner) => {
                    let index = self.timed_section(decl.span);
                    self.script.timed[index].tock = Some(self.section_tock(decl.span));
                    self.let_declarations(inner, out);
                }
                _ => out.push(decl),
            }
        }
    }

    /// A constant used by nothing in its own group: a memoised thunk.
    pub(super) fn lazy_unit(
        &mut self,
        unit: &LetUnit<'_>,
        annotations: &FxHashMap<Ustr, Annotation>,
        groups: &mut Vec<LetGroup>,
    ) {
        let (def, span) = unit.clauses[0];
        if unit.is_pattern {
            // The value once, then each name projected out of it.
            let value = self.thunk(Ustr::from("pattern"), span, None, |r| r.expr(&def.rhs));
            let value_slot = self.bind_local(Ustr::from("$pattern"), span);
            groups.push(LetGroup::Lazy {
                func: value.0,
                captures: value.1,
                slot: value_slot,
            });
            let Lhs::Pattern(pattern) = &def.lhs else {
                unreachable!("a pattern unit")
            };
            let hidden = self
                .lookup_local(Ustr::from("$pattern"))
                .expect("just bound");
            for &(name, name_span) in &unit.names {
                let annotation = annotations.get(&name).cloned();
                let (func, captures) = self.thunk(name, span, annotation, |r| {
                    let value = r.var_ref(hidden);
                    let value = r.push_expr(ExprKind::Var(value), span);
                    r.destructure(value, pattern, name, span)
                });
                let slot = self.bind_local(name, name_span);
                groups.push(LetGroup::Lazy {
                    func,
                    captures,
                    slot,
                });
            }
            return;
        }
        let (name, name_span) = unit.names[0];
        let annotation = annotations.get(&name).cloned();
        let (func, captures) = self.thunk(name, span, annotation, |r| {
            r.definition_body(def, name, &[])
        });
        let slot = self.bind_local(name, name_span);
        groups.push(LetGroup::Lazy {
            func,
            captures,
            slot,
        });
    }

    /// The constant that evaluates `value`, matches it against `pattern`
    /// and yields the variable `name` the pattern binds.
    pub(super) fn destructure(
        &mut self,
        value: ExprId,
        pattern: &ast::Pattern,
        name: Ustr,
        span: Span,
    ) -> ExprId {
        self.scopes.push(FxHashMap::default());
        let reported = self.diagnostics.len();
        let pattern = self.pattern(pattern);
        // The pattern is resolved once for each name it binds: its
        // problems are reported once.
        let (before, new) = self.diagnostics.split_at(reported);
        let in_error = !new.is_empty();
        let fresh: Vec<Diagnostic> = new
            .iter()
            .filter(|d| !before.contains(d))
            .cloned()
            .collect();
        self.diagnostics.truncate(reported);
        self.diagnostics.extend(fresh);
        let slot = match self.scopes.last().and_then(|s| s.get(&name)) {
            Some(Binding {
                kind: BindingKind::Local { slot, .. },
                ..
            }) => *slot,
            _ => {
                // A pattern in error binds only some of its names
                // (`x^(0, y)`: its second part of unknown length is
                // refused, `y` with it); the script does not load.
                self.scopes.pop();
                if !in_error {
                    self.error(span, format!("this pattern does not bind `{name}`"));
                }
                return value;
            }
        };
        self.scopes.pop();
        self.push_expr(
            ExprKind::Destructure {
                value,
                pattern,
                slot,
            },
            span,
        )
    }

    /// A constant function resolved in a scope of its own that captures
    /// what it uses.
    pub(super) fn thunk(
        &mut self,
        name: Ustr,
        span: Span,
        annotation: Option<Annotation>,
        body: impl FnOnce(&mut Self) -> ExprId,
    ) -> (FuncId, Vec<VarRef>) {
        let func = self.new_function(name, FunctionKind::Constant, span);
        self.script.functions[func.index()].annotation = annotation;
        self.push_fn(None);
        self.scopes.push(FxHashMap::default());
        let body = self.with_type_vars(func, body);
        self.scopes.pop();
        self.script.functions[func.index()].clauses = vec![Clause {
            params: Vec::new(),
            body,
            span,
        }];
        let sources = self.pop_fn(func);
        (func, sources)
    }

    /// Definitions that refer to each other: they share one environment
    /// and reach each other through the group handle.
    pub(super) fn recursive_group(
        &mut self,
        component: &[usize],
        units: &[LetUnit<'_>],
        annotations: &FxHashMap<Ustr, Annotation>,
        groups: &mut Vec<LetGroup>,
    ) {
        let handle = Ustr::from(&format!("$group{}", self.next_binding));
        let group_slot = self.bind_local(handle, Span::default());
        let members: Vec<(usize, FuncId)> = component
            .iter()
            .map(|&i| {
                let unit = &units[i];
                let kind = if unit.is_function {
                    FunctionKind::Named
                } else {
                    FunctionKind::Constant
                };
                let func = self.new_function(unit.names[0].0, kind, unit.clauses[0].1);
                self.script.functions[func.index()].annotation =
                    annotations.get(&unit.names[0].0).cloned();
                (i, func)
            })
            .collect();
        // The members' names, visible to each other and to the body.
        for &(i, func) in &members {
            let (name, at) = units[i].names[0];
            self.bind(name, BindingKind::GroupMember { func, handle }, at);
        }
        self.push_fn(None);
        let group_scope = self.fns.len() - 1;
        for &(i, func) in &members {
            self.push_fn(Some(group_scope));
            let me = self.fns.len() - 1;
            self.scopes.push(FxHashMap::default());
            self.bind(handle, BindingKind::Env { scope: me }, Span::default());
            self.with_type_vars(func, |r| r.function_clauses(func, &units[i].clauses));
            self.scopes.pop();
            self.finish_fn(func);
        }
        let group = self.fns.pop().expect("the group scope");
        let names = group.capture_names;
        for &(_, func) in &members {
            self.script.functions[func.index()].captures = names.clone();
        }
        let captures = group.captures.into_iter().map(|(_, s)| s).collect();
        groups.push(LetGroup::Recursive {
            captures,
            group_slot,
            members: members.iter().map(|&(_, func)| func).collect(),
        });
    }
}

pub(super) struct LetUnit<'a> {
    names: Vec<(Ustr, Span)>,
    is_function: bool,
    is_pattern: bool,
    clauses: Vec<(&'a ast::Definition, Span)>,
}

/// For each unit of a `let`, the units (of those `defined` there) its
/// clauses mention, in order.
fn let_dependencies(
    units: &[LetUnit<'_>],
    defined: &FxHashMap<Ustr, (usize, Span)>,
) -> Vec<Vec<usize>> {
    units
        .iter()
        .map(|u| {
            let mut mentioned = FxHashSet::default();
            for (def, _) in &u.clauses {
                expr_mentions(&def.rhs, &mut mentioned);
            }
            let mut targets: Vec<usize> = mentioned
                .iter()
                .filter_map(|n| defined.get(n).map(|&(i, _)| i))
                .collect();
            targets.sort_unstable();
            targets.dedup();
            targets
        })
        .collect()
}

/// What FDR's built-ins that are not names here are, for the diagnostic
/// that names one: the message and a note.
pub(super) fn missing_builtin(name: &str) -> Option<(String, &'static str)> {
    Some(match name {
        "WEAK_BUFFER" | "SIGNAL_BUFFER" => (
            format!("FDR's built-in `{name}` is not supported yet"),
            "what FDR's signalling buffers do when full or empty is not documented \
             precisely enough to build without guessing: use `BUFFER`, or define the \
             buffer in the script (e.g. `B(s) = #s < n & in?x -> B(s ^ <x>) [] \
             s != <> & out!head(s) -> B(tail(s))`)",
        ),
        "WAIT" | "timed_priority" => (
            format!("`{name}` is not defined outside a `Timed` section"),
            "as in FDR, `WAIT` and `timed_priority` are names only inside \
             `Timed(et) { ... }`",
        ),
        "TSTOP" | "TSKIP" => (
            format!("`{name}` is not in scope"),
            "as in FDR, `TSTOP` and `TSKIP` cannot be named, even inside \
             `Timed(et) { ... }`: there `STOP` and `SKIP` stand for them",
        ),
        _ => return None,
    })
}

/// `text` as it is named in the scope of prefix `p` (`M::`, or none), if
/// that name was ever made. Without a prefix (every top-level name) it is
/// `text` itself: no string is made or looked up.
fn prefixed(p: &str, text: Ustr) -> Option<Ustr> {
    if p.is_empty() {
        Some(text)
    } else {
        Ustr::from_existing(&format!("{p}{text}"))
    }
}

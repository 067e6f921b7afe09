//! Modules and their instances in the first pass (`module M ... exports
//! ... endmodule`, `instance M1 = M(args)`), and the check after the
//! second that no module reaches, through definitions outside it, one
//! of its own instances.

use super::*;

/// Where a breadth-first path that reached `at` started.
fn path_start(
    parent: &FxHashMap<(GlobalId, bool), (GlobalId, bool)>,
    mut at: (GlobalId, bool),
) -> GlobalId {
    while let Some(&before) = parent.get(&at) {
        at = before;
    }
    at.0
}

/// The most module instances a script may make, nested ones included.
const MAX_INSTANCES: usize = 100_000;

impl<'s, 'p> Resolver<'s, 'p> {
    pub(super) fn collect_module(
        &mut self,
        module: &'p ast::Module,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let qualified = self.ctx.qualify(module.name.name);
        if !self.declare_module(qualified, module.name.span) {
            return;
        }
        self.modules.insert(qualified, (module, self.ctx.clone()));
        if module.params.is_some() {
            // Only its instances have names; its annotations are checked
            // here, instantiated or not.
            let decls = module.private.iter().chain(module.exports.iter().flatten());
            for decl in decls {
                if let DeclKind::TypeAnnotation(_, ty) = &decl.kind {
                    self.check_annotation(ty);
                }
            }
            self.instances_name_earlier_modules(module);
            self.parameterised.push((qualified, module));
            return;
        }
        self.module_names.insert(qualified);
        let outer = self.ctx.clone();
        self.ctx = Rc::new(outer.enter(module));
        self.collect_module_body(module, pending);
        self.ctx = outer;
    }

    /// As FDR: an instance in a parameterised module's body names a
    /// module declared before it, in the body or before the module (two
    /// modules whose bodies instantiate each other are refused so). The
    /// body is collected only per instance and for its generic copy,
    /// when later modules are known too, so this is checked here, where
    /// the module is declared. The module's own name is left to its
    /// copies ("instantiated inside itself").
    fn instances_name_earlier_modules(&mut self, module: &'p ast::Module) {
        let mut earlier_here: Vec<Ustr> = Vec::new();
        for decls in [
            &module.private[..],
            module.exports.as_deref().unwrap_or(&[]),
        ] {
            self.instances_in_body_name_earlier(module, decls, &mut earlier_here);
        }
    }

    /// [`Resolver::instances_name_earlier_modules`] over `decls` (a part
    /// of `module`'s body, or a file it includes), `earlier_here` the
    /// modules the body has declared so far.
    fn instances_in_body_name_earlier(
        &mut self,
        module: &'p ast::Module,
        decls: &'p [ast::Decl],
        earlier_here: &mut Vec<Ustr>,
    ) {
        for decl in decls {
            match &decl.kind {
                DeclKind::Module(nested) => earlier_here.push(nested.name.name),
                DeclKind::Include(include) => {
                    if let Some(file) = include.file {
                        let included = self.file_decls(file);
                        self.instances_in_body_name_earlier(module, included, earlier_here);
                    }
                }
                DeclKind::Instance(_, name, _) => {
                    let known = name.text == module.name.name
                        || earlier_here.contains(&name.text)
                        || self.module_in_scope(name).is_some();
                    if !known {
                        self.no_module_before(name);
                    }
                }
                _ => {}
            }
        }
    }

    /// Registers the name of a module or instance, unless something of
    /// that name exists already (reported).
    fn declare_module(&mut self, qualified: Ustr, span: Span) -> bool {
        let earlier = self
            .modules_declared_at
            .get(&qualified)
            .or_else(|| self.declared_at.get(&qualified))
            .copied();
        if let Some(earlier) = earlier {
            self.diagnostics.push(
                Diagnostic::error(span, format!("`{qualified}` is defined twice"))
                    .with_secondary(earlier, "first declared here")
                    .with_note(
                        "modules and instances share one name space with the other declarations",
                    ),
            );
            return false;
        }
        self.modules_declared_at.insert(qualified, span);
        self.declared_modules.push(qualified);
        true
    }

    /// The private declarations, remembered as private to the module
    /// being collected, then the exported ones.
    pub(super) fn collect_module_body(
        &mut self,
        module: &'p ast::Module,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let before = self.declared.len();
        let modules_before = self.declared_modules.len();
        self.collect(&module.private, pending);
        let module_prefix = Ustr::from(self.ctx.prefix());
        let private = self.declared[before..].to_vec();
        for name in private {
            self.script.private.insert(name, module_prefix);
        }
        for &name in &self.declared_modules[modules_before..] {
            self.private_modules.insert(name, module_prefix);
        }
        if let Some(exports) = &module.exports {
            self.collect(exports, pending);
        }
    }

    /// `instance M2 = M(args)`: the module's body collected again under
    /// the instance's name, its parameters bound to the arguments, unless
    /// the instance is refused (no such module, a private one, the wrong
    /// number of arguments, an instance inside itself, too many).
    pub(super) fn collect_instance(
        &mut self,
        ident: &ast::Ident,
        module_name: &ast::Name,
        args: Option<&'p [ast::Expr]>,
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        // Refused already where its module was declared: each copy of
        // the body refuses it in silence.
        if self
            .out_of_scope_instances
            .contains(&(module_name.span.start, module_name.span.end))
        {
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            return;
        }
        let Some((qualified_module, (module, defined_in))) = self.instantiated_module(module_name)
        else {
            // Its names are not reported again.
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            return;
        };
        if let Some(&owner) = self.private_modules.get(&qualified_module)
            && !self
                .ctx
                .prefixes
                .iter()
                .any(|p| p.starts_with(owner.as_str()))
        {
            self.error(
                module_name.span,
                format!(
                    "module `{qualified_module}` is private to `{}`: it is not exported",
                    owner.trim_end_matches("::")
                ),
            );
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            return;
        }
        let params = module.params.as_deref().unwrap_or(&[]);
        let args = args.unwrap_or(&[]);
        if params.len() != args.len() {
            self.error(
                span,
                format!(
                    "module `{}` takes {} argument{}, but {} {} given",
                    module_name.text,
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "is" } else { "are" },
                ),
            );
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            return;
        }
        if let Some(from) = self
            .instantiating
            .iter()
            .position(|m| std::ptr::eq(*m, module))
        {
            // One error a cycle, however many copies of its bodies meet it.
            let cycle: Vec<ModuleId> = self.instantiating[from..]
                .iter()
                .map(|m| module_id(m))
                .collect();
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            if cycle.iter().any(|m| self.cycles_reported.contains(m)) {
                return;
            }
            self.cycles_reported.extend(cycle);
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!(
                        "module `{}` is instantiated inside itself: its instances would never end",
                        module.name.name
                    ),
                )
                .with_note("an instance of a module may not stand, directly or through other instances, in the module's own body"),
            );
            return;
        }
        self.instances += 1;
        // Said once: the instances after it are refused in silence.
        if self.instances == MAX_INSTANCES + 1 {
            self.error(
                span,
                format!(
                    "more than {MAX_INSTANCES} module instances: instances inside instances \
                     multiply past what symcsp builds"
                ),
            );
        }
        if self.instances > MAX_INSTANCES {
            self.refused_instances.insert(self.ctx.qualify(ident.name));
            return;
        }
        let outer = self.ctx.clone();
        if !self.declare_module(outer.qualify(ident.name), ident.span) {
            self.refused_instances.insert(outer.qualify(ident.name));
            return;
        }
        let inner = Rc::new(outer.instance(&ident.name, module, &defined_in));
        self.module_names.insert(outer.qualify(ident.name));
        self.instance_of.insert(
            outer.qualify(ident.name),
            (module_id(module), qualified_module),
        );
        let arguments = self.instance_params(&inner, &outer, params, args, pending);
        if !params.is_empty() && arguments.len() == params.len() {
            self.instance_arguments
                .push((outer.qualify(ident.name), module_id(module), arguments));
        }
        self.ctx = inner;
        self.instantiating.push(module);
        self.collect_module_body(module, pending);
        self.instantiating.pop();
        self.ctx = outer;
    }

    /// The module an instance names, looked up from the innermost
    /// enclosing module out, with its qualified name (reported when
    /// there is none).
    fn instantiated_module(
        &mut self,
        module_name: &ast::Name,
    ) -> Option<(Ustr, (&'p ast::Module, Rc<ModuleCtx>))> {
        let found = self.module_in_scope(module_name);
        if found.is_none() {
            self.no_module_before(module_name);
        }
        found
    }

    /// The module declared so far that `module_name` names, looked up
    /// from the innermost enclosing module out, with its qualified name.
    fn module_in_scope(
        &self,
        module_name: &ast::Name,
    ) -> Option<(Ustr, (&'p ast::Module, Rc<ModuleCtx>))> {
        self.ctx
            .prefixes
            .iter()
            .map(|p| Ustr::from(&format!("{p}{}", module_name.text)))
            .find_map(|q| self.modules.get(&q).cloned().map(|m| (q, m)))
    }

    /// An instance names no module declared before it: said once, and
    /// every later copy of the body it stands in refuses it in silence.
    fn no_module_before(&mut self, module_name: &ast::Name) {
        self.out_of_scope_instances
            .insert((module_name.span.start, module_name.span.end));
        self.error(
            module_name.span,
            format!(
                "there is no module `{}` declared before this instance",
                module_name.text
            ),
        );
    }

    /// The parameters of the instance `inner` as constants of it, their
    /// values the arguments evaluated where the instance is declared
    /// (`outer`): the constants made.
    fn instance_params(
        &mut self,
        inner: &ModuleCtx,
        outer: &Rc<ModuleCtx>,
        params: &[ast::Ident],
        args: &'p [ast::Expr],
        pending: &mut Vec<Pending<'p>>,
    ) -> Vec<GlobalId> {
        let mut made = Vec::with_capacity(params.len());
        for (i, (param, arg)) in params.iter().zip(args).enumerate() {
            if let Some((func, global)) = self.module_param(inner, param, i, arg.span) {
                made.push(global);
                pending.push(Pending::Expr {
                    func,
                    expr: arg,
                    as_type: false,
                    ctx: outer.clone(),
                });
            }
        }
        made
    }

    /// Parameter `i` of a module's body collected in `inner`: a constant
    /// private to the body, defined at `at` (`None` when its name is
    /// taken, reported). `_` names no definition: it is a constant of a
    /// name no script can write.
    fn module_param(
        &mut self,
        inner: &ModuleCtx,
        param: &ast::Ident,
        i: usize,
        at: Span,
    ) -> Option<(FuncId, GlobalId)> {
        let name = if param.name == "_" {
            inner.qualify(Ustr::from(&format!("$unused{i}")))
        } else {
            inner.qualify(param.name)
        };
        let func = self.new_function(name, FunctionKind::Constant, at);
        let global = self.new_global(name, GlobalKind::Definition(func), param.span)?;
        self.script.private.insert(name, Ustr::from(inner.prefix()));
        Some((func, global))
    }

    /// Every parameterised module's body collected and resolved once
    /// more, under the module's own name, its parameters bound to nothing
    /// ([`crate::script::generic`]), after everything else; then each
    /// instance's parameters paired with its copy's. The name index
    /// takes in only the bodies no instance resolved (modules never
    /// instantiated), their own names as variables.
    pub(super) fn collect_generic_copies(&mut self) {
        use crate::script::generic::{GenericCopies, InstanceArguments, Marks};
        if self.parameterised.is_empty() {
            return;
        }
        let mut copies = GenericCopies {
            from: Marks::of(self.script),
            ..GenericCopies::default()
        };
        let index = std::mem::take(&mut self.script.index);
        let mut of_module: FxHashMap<ModuleId, (Vec<GlobalId>, std::ops::Range<u32>)> =
            FxHashMap::default();
        let mut pending = Vec::new();
        // Copies met inside copies (a module inside a parameterised one)
        // join the list as it is read; each module is copied once.
        let mut at = 0;
        while let Some(&(qualified, module)) = self.parameterised.get(at) {
            at += 1;
            if of_module.contains_key(&module_id(module)) || self.ticker.tick().is_err() {
                continue;
            }
            let Some((_, defined_in)) = self.modules.get(&qualified).cloned() else {
                continue;
            };
            let first = self.script.globals.len() as u32;
            let inner = Rc::new(defined_in.enter(module));
            let mut params = Vec::new();
            for (i, param) in module.params.iter().flatten().enumerate() {
                if let Some((_, global)) = self.module_param(&inner, param, i, param.span) {
                    params.push(global);
                }
            }
            copies.params.extend(&params);
            let outer = std::mem::replace(&mut self.ctx, inner);
            self.instantiating.push(module);
            self.collect_module_body(module, &mut pending);
            self.instantiating.pop();
            self.ctx = outer;
            let copy = first..self.script.globals.len() as u32;
            of_module.insert(module_id(module), (params, copy));
        }
        self.resolve_collected(pending);
        for (name, module, arguments) in std::mem::take(&mut self.instance_arguments) {
            let Some((params, copy)) = of_module.get(&module) else {
                continue;
            };
            if params.len() != arguments.len() {
                continue;
            }
            let instance = copies.instances.len() as u32;
            for (place, &argument) in arguments.iter().enumerate() {
                copies
                    .of_argument
                    .insert(argument, (instance, place as u32));
            }
            copies.instances.push(InstanceArguments {
                name,
                params: arguments.into_iter().zip(params.iter().copied()).collect(),
                copy: copy.clone(),
            });
        }
        copies.params.sort_unstable();
        let recorded = std::mem::take(&mut self.script.index);
        let mut index = index;
        let script = &*self.script;
        let declared_by_copy = |named: Named| {
            let qualified = match named {
                Named::Global(g) if copies.holds(g) => script.globals[g.index()].name,
                Named::Ctor(c) if copies.holds_ctor(c) => script.ctors[c.index()].name,
                Named::Channel(c) if copies.holds_channel(c) => script.channels[c.index()].name,
                _ => return None,
            };
            // As written in the body: `f`, not `M::f`.
            qualified.rsplit("::").next().map(Ustr::from)
        };
        index.adopt_uninstantiated(recorded, declared_by_copy, &mut self.next_binding);
        self.script.index = index;
        self.script.generic = Some(copies);
    }

    /// As FDR: no definition of a module may lead, through definitions
    /// outside it, to a definition of one of its own instances (whose
    /// definitions are the module's own: `y = X` in `M`, `X = M1::y`
    /// outside, `M1` an instance of `M`). A direct use is refused where
    /// it is written ([`Resolver::uses_own_instance`]).
    pub(super) fn check_modules_use_no_instance_of_themselves(&mut self) {
        let mut modules: Vec<(ModuleId, Ustr)> = self.instance_of.values().copied().collect();
        modules.sort_unstable();
        modules.dedup();
        if modules.is_empty() {
            return;
        }
        let uses: Vec<Vec<GlobalId>> = (0..self.script.globals.len())
            .map(|g| match self.script.globals[g].kind {
                GlobalKind::Definition(f) | GlobalKind::NameType(f) => {
                    let mut used = FxHashSet::default();
                    self.script.globals_used(f, &mut used);
                    used.into_iter().collect()
                }
                _ => Vec::new(),
            })
            .collect();
        for (module, module_name) in modules {
            let within = |g: GlobalId, instance_only: bool| {
                self.global_modules.get(&g).is_some_and(|ms| {
                    ms.iter()
                        .any(|&(m, i)| m == module && (i || !instance_only))
                })
            };
            // Breadth first from the module's definitions; `left` says
            // whether the path has gone outside the module.
            let mut parent: FxHashMap<(GlobalId, bool), (GlobalId, bool)> = FxHashMap::default();
            let mut queue: std::collections::VecDeque<(GlobalId, bool)> = (0..uses.len())
                .map(|g| GlobalId(g as u32))
                .filter(|&g| within(g, false))
                .map(|g| (g, false))
                .collect();
            let mut seen: FxHashSet<(GlobalId, bool)> = queue.iter().copied().collect();
            let mut found = None;
            'search: while let Some((g, left)) = queue.pop_front() {
                for &v in &uses[g.index()] {
                    if left && within(v, true) {
                        found = Some(((v, true), (g, left)));
                        break 'search;
                    }
                    let next = (v, left || !within(v, false));
                    if seen.insert(next) {
                        parent.insert(next, (g, left));
                        queue.push_back(next);
                    }
                }
            }
            let Some((end, last)) = found else {
                continue;
            };
            // The path back from the instance's definition to the module.
            let name = |g: GlobalId| self.script.globals[g.index()].name.to_string();
            let mut path = vec![name(end.0), name(last.0)];
            let mut at = last;
            while let Some(&before) = parent.get(&at) {
                path.push(name(before.0));
                at = before;
            }
            path.reverse();
            let span = self.script.globals[path_start(&parent, last).index()].span;
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!(
                        "module `{}` uses a definition of an instance of itself: {}",
                        module_name.trim_end_matches("::"),
                        path.join(" uses ")
                    ),
                )
                .with_note("a module cannot use its own instances: their definitions are its own"),
            );
        }
    }
}

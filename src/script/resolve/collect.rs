//! Declarations and modules: the first pass gives every top-level name
//! its id (following includes, modules, instances and `Timed` sections);
//! the second resolves the bodies it queued, assertions and field types.

use super::expr::pattern_variables;
use super::*;

/// FDR's type classes, as a type annotation's constraints name them.
const TYPE_CLASSES: &[&str] = &["Eq", "Ord", "Complete", "Set", "Yieldable"];

impl<'s, 'p> Resolver<'s, 'p> {
    // ------------------------------------------------------------ pass 1

    /// Registers the names of `decls` and queues their bodies.
    pub(super) fn collect(&mut self, decls: &'p [ast::Decl], pending: &mut Vec<Pending<'p>>) {
        let mut i = 0;
        while i < decls.len() {
            if self.ticker.tick().is_err() {
                return;
            }
            let decl = &decls[i];
            match &decl.kind {
                DeclKind::Definition(def) => match &def.lhs {
                    Lhs::Name(ident) | Lhs::Function(ident, _) => {
                        // The clauses of one function are consecutive.
                        let mut clauses = vec![decl];
                        while let Some(next) = decls.get(i + 1) {
                            match &next.kind {
                                DeclKind::Definition(d)
                                    if matches!(&d.lhs, Lhs::Function(n, _) if n.name == ident.name)
                                        && matches!(def.lhs, Lhs::Function(..)) =>
                                {
                                    clauses.push(next);
                                    i += 1;
                                }
                                _ => break,
                            }
                        }
                        self.collect_definition(ident, clauses, pending);
                    }
                    Lhs::Pattern(pattern) => {
                        self.collect_pattern_definition(pattern, &def.rhs, decl.span, pending)
                    }
                },
                DeclKind::TypeAnnotation(names, ty) => self.collect_annotation(names, ty),
                DeclKind::Channel(names, fields) => {
                    self.collect_channels(names, decl.span, fields.as_ref(), pending)
                }
                DeclKind::DataType(ident, clauses) => {
                    self.collect_datatype(ident, clauses, pending)
                }
                DeclKind::SubType(ident, clauses) => {
                    let name = self.ctx.qualify(ident.name);
                    if let Some(global) =
                        self.new_global(name, GlobalKind::SubType(Vec::new()), ident.span)
                    {
                        pending.push(Pending::SubType {
                            global,
                            clauses,
                            ctx: self.ctx.clone(),
                        });
                    }
                }
                DeclKind::NameType(ident, expr) => {
                    self.collect_nametype(ident, expr, decl.span, pending)
                }
                DeclKind::External(names) => self.import(names, true),
                DeclKind::Transparent(names) => self.import(names, false),
                DeclKind::Assert(assertion) => pending.push(Pending::Assert {
                    assertion,
                    span: decl.span,
                    ctx: self.ctx.clone(),
                }),
                DeclKind::Include(include) => {
                    if let Some(file) = include.file {
                        let decls = self.file_decls(file);
                        self.collect(decls, pending);
                    }
                }
                DeclKind::Print(expr) => pending.push(Pending::Print {
                    expr,
                    ctx: self.ctx.clone(),
                }),
                DeclKind::Module(module) => self.collect_module(module, pending),
                DeclKind::Instance(ident, module, args) => {
                    self.collect_instance(ident, module, args.as_deref(), decl.span, pending)
                }
                DeclKind::Timed(_, inner) => self.collect_timed(inner, decl.span, pending),
            }
            i += 1;
        }
    }

    /// `f, g :: T`: checked now, and kept for the type checker.
    fn collect_annotation(&mut self, names: &[ast::Ident], ty: &'p ast::TypeExpr) {
        self.check_annotation(ty);
        for ident in names {
            self.annotated
                .push((self.ctx.qualify(ident.name), *ident, ty, self.ctx.clone()));
        }
    }

    /// `channel a, b : T`: each channel gets its id; its fields are queued.
    fn collect_channels(
        &mut self,
        names: &[ast::Ident],
        span: Span,
        fields: Option<&'p ast::Expr>,
        pending: &mut Vec<Pending<'p>>,
    ) {
        if names.len() > 1 {
            let names = names.iter().map(|i| (self.ctx.qualify(i.name), i.name));
            self.channel_declarations.push((span, names.collect()));
        }
        for ident in names {
            let name = self.ctx.qualify(ident.name);
            let id = ChannelId(self.script.channels.len() as u32);
            if self.declare(name, Named::Channel(id), ident.span) {
                self.script.channels.push(Channel {
                    name,
                    fields: Vec::new(),
                    span: ident.span,
                    annotation: None,
                });
                if let Some(expr) = fields {
                    pending.push(Pending::Fields {
                        owner: FieldOwner::Channel(id),
                        expr,
                        ctx: self.ctx.clone(),
                    });
                }
            }
        }
    }

    /// `datatype T = A.X | B`: the type and its constructors get their ids;
    /// the constructors' fields are queued.
    fn collect_datatype(
        &mut self,
        ident: &ast::Ident,
        clauses: &'p [ast::DataClause],
        pending: &mut Vec<Pending<'p>>,
    ) {
        let name = self.ctx.qualify(ident.name);
        let id = DataTypeId(self.script.datatypes.len() as u32);
        if self
            .new_global(name, GlobalKind::DataType(id), ident.span)
            .is_some()
        {
            let mut ctors = Vec::new();
            for clause in clauses {
                let ctor_name = self.ctx.qualify(clause.name.name);
                let ctor = CtorId(self.script.ctors.len() as u32);
                if self.declare(ctor_name, Named::Ctor(ctor), clause.name.span) {
                    self.script.ctors.push(Constructor {
                        name: ctor_name,
                        datatype: id,
                        fields: Vec::new(),
                        span: clause.span,
                        annotation: None,
                    });
                    ctors.push(ctor);
                    if let Some(expr) = &clause.fields {
                        pending.push(Pending::Fields {
                            owner: FieldOwner::Ctor(ctor),
                            expr,
                            ctx: self.ctx.clone(),
                        });
                    }
                }
            }
            self.script.datatypes.push(DataType {
                name,
                ctors,
                recursive: false,
                span: ident.span,
            });
        }
    }

    /// `nametype T = e`: a constant whose value is queued as a type.
    fn collect_nametype(
        &mut self,
        ident: &ast::Ident,
        expr: &'p ast::Expr,
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let name = self.ctx.qualify(ident.name);
        let func = self.new_function(name, FunctionKind::Constant, span);
        if self
            .new_global(name, GlobalKind::NameType(func), ident.span)
            .is_some()
        {
            self.nametypes.insert(name, expr);
            pending.push(Pending::Expr {
                func,
                expr,
                as_type: true,
                ctx: self.ctx.clone(),
            });
        }
    }

    /// `Timed(et) { ... }`: its declarations are collected as timed, and
    /// the section learns its members and its time function.
    fn collect_timed(
        &mut self,
        inner: &'p [ast::Decl],
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let index = self.timed_section(span);
        let outer = self.ctx.clone();
        self.ctx = Rc::new(ModuleCtx {
            timed: true,
            ..(*outer).clone()
        });
        let before = self.declared.len();
        self.collect(inner, pending);
        self.ctx = outer;
        let members = self.declared[before..]
            .iter()
            .filter_map(|name| match self.script.names.get(name) {
                Some(Named::Global(g)) => Some(*g),
                _ => None,
            })
            .collect();
        self.script.timed[index].members = members;
        // The translation puts the section's function first.
        let function = inner.first().and_then(|d| match &d.kind {
            DeclKind::Definition(def) => def
                .lhs
                .name()
                .filter(|i| i.name.starts_with("$et"))
                .map(|i| i.name),
            _ => None,
        });
        pending.push(Pending::Timed {
            index,
            function,
            ctx: self.ctx.clone(),
        });
    }

    /// [`Resolver::check_type`] on an annotation's type, once however
    /// many instances hold it.
    pub(super) fn check_annotation(&mut self, ty: &ast::TypeExpr) {
        if self
            .checked_annotations
            .insert((ty.span.start, ty.span.end))
        {
            self.check_type(ty);
        }
    }

    /// What FDR refuses in a type annotation: a function type whose
    /// arguments are not in brackets, a type class it does not have.
    fn check_type(&mut self, ty: &ast::TypeExpr) {
        use ast::TypeKind as T;
        match &ty.kind {
            T::Name(_) => {}
            T::Tuple(parts) | T::Dot(parts) => parts.iter().for_each(|t| self.check_type(t)),
            T::Set(inner) | T::Seq(inner) => self.check_type(inner),
            T::Map(a, b) | T::Dotable(a, b) | T::Extendable(a, b) => {
                self.check_type(a);
                self.check_type(b);
            }
            T::Function(arguments, result) => {
                if !matches!(arguments.kind, T::Tuple(_)) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            arguments.span,
                            "a function type's arguments go in brackets",
                        )
                        .with_note("write `(a) -> b`, or `(a, b) -> c` for two arguments"),
                    );
                }
                self.check_type(arguments);
                self.check_type(result);
            }
            T::Constrained(constraints, body) => {
                for (class, _) in constraints {
                    if !TYPE_CLASSES.contains(&class.name.as_str()) {
                        self.diagnostics.push(
                            Diagnostic::error(
                                class.span,
                                format!("there is no type class `{}`", class.name),
                            )
                            .with_note(format!("the classes are {}", TYPE_CLASSES.join(", "))),
                        );
                    }
                }
                self.check_type(body);
            }
        }
    }

    /// Each name annotated at most once in a scope (`names` in the
    /// order written).
    pub(super) fn check_annotated_once<'i>(
        &mut self,
        names: impl IntoIterator<Item = (Ustr, &'i ast::Ident)>,
    ) {
        let mut first: FxHashMap<Ustr, Span> = FxHashMap::default();
        for (name, ident) in names {
            if let Some(&earlier) = first.get(&name) {
                self.diagnostics.push(
                    Diagnostic::error(
                        ident.span,
                        format!("`{}` has two type annotations", ident.name),
                    )
                    .with_secondary(earlier, "first annotated here"),
                );
            } else {
                first.insert(name, ident.span);
            }
        }
    }

    /// At most one type annotation for the names of one `channel`
    /// declaration, as FDR takes one for the whole declaration
    /// (`c1 :: Int => Event` and `c2 :: Int => Event` before `channel
    /// c1, c2 : Int` are refused).
    fn check_channel_annotations(
        &mut self,
        annotated: &[(Ustr, ast::Ident, &'p ast::TypeExpr, Rc<ModuleCtx>)],
    ) {
        let declarations = std::mem::take(&mut self.channel_declarations);
        if annotated.is_empty() {
            return;
        }
        let mut first: FxHashMap<Ustr, Span> = FxHashMap::default();
        for (name, ident, ..) in annotated {
            first.entry(*name).or_insert(ident.span);
        }
        for (span, names) in declarations {
            let places: Vec<(Ustr, Span)> = names
                .iter()
                .filter_map(|(name, written)| first.get(name).map(|&at| (*written, at)))
                .collect();
            if places.len() < 2 {
                continue;
            }
            let listed: Vec<String> = places.iter().map(|(name, _)| format!("`{name}`")).collect();
            let mut diagnostic = Diagnostic::error(
                span,
                format!(
                    "the channel declaration of {} has {} type annotations",
                    listed.join(", "),
                    places.len()
                ),
            )
            .with_note(
                "one declaration takes one annotation, for all its names: keep one, or declare \
                 the channels apart",
            );
            for (name, at) in places {
                let label = format!("`{name}` annotated here");
                diagnostic = diagnostic.with_secondary(at, label);
            }
            self.diagnostics.push(diagnostic);
        }
    }

    pub(super) fn annotation_without_definition(&mut self, ident: &ast::Ident) {
        self.error(
            ident.span,
            format!(
                "`{}` has a type annotation but no definition: a type annotation goes with the \
                 definition it describes",
                ident.name
            ),
        );
    }

    /// `external f` (`external`) or `transparent f`: makes built-in `f`
    /// visible, where FDR provides it with that declaration.
    pub(super) fn import(&mut self, names: &[ast::Ident], external: bool) {
        let (keyword, other) = if external {
            ("an external", "transparent")
        } else {
            ("a transparent", "external")
        };
        for ident in names {
            match Builtin::lookup(&ident.name) {
                Some(b) if b.import().allows(external) => {
                    self.script.imported.insert(b);
                }
                Some(b) if b.import().allows(!external) => self.error(
                    ident.span,
                    format!(
                        "`{}` is not {keyword} function: declare it `{other} {}`",
                        ident.name, ident.name
                    ),
                ),
                _ => self.error(
                    ident.span,
                    format!("`{}` is not {keyword} function symcsp provides", ident.name),
                ),
            }
        }
    }

    /// The declarations of an included file, borrowed for the resolver's
    /// whole life (the program outlives it).
    pub(super) fn file_decls(&self, file: crate::syntax::FileId) -> &'p [ast::Decl] {
        &self.files[file as usize].decls
    }

    pub(super) fn collect_definition(
        &mut self,
        ident: &ast::Ident,
        clauses: Vec<&'p ast::Decl>,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let name = self.ctx.qualify(ident.name);
        let is_function = clauses
            .iter()
            .any(|d| matches!(&d.kind, DeclKind::Definition(def) if matches!(def.lhs, Lhs::Function(..))));
        let kind = if is_function {
            FunctionKind::Named
        } else {
            FunctionKind::Constant
        };
        let func = self.new_function(name, kind, clauses[0].span);
        if self
            .new_global(name, GlobalKind::Definition(func), ident.span)
            .is_some()
        {
            pending.push(Pending::Clauses {
                func,
                clauses,
                ctx: self.ctx.clone(),
            });
        }
    }

    /// A pattern definition. A tuple of patterns defined by a tuple of
    /// expressions is split into one definition per part, so each part
    /// is evaluated only when its names are used, as in FDR, where
    /// `(s, t) = (1, loop)` gives `s == 1`.
    pub(super) fn collect_pattern_definition(
        &mut self,
        pattern: &'p ast::Pattern,
        rhs: &'p ast::Expr,
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        if let (ast::PatternKind::Tuple(patterns), ast::ExprKind::Tuple(parts)) =
            (&pattern.kind, &rhs.kind)
            && patterns.len() == parts.len()
        {
            for (p, e) in patterns.iter().zip(parts) {
                self.collect_pattern_part(p, e, span, pending);
            }
            return;
        }
        let mut names = Vec::new();
        pattern_variables(pattern, &mut |n: &ast::Name| {
            if !n.is_qualified()
                && self
                    .lookup_global(n.text)
                    .is_none_or(|g| !matches!(g, Named::Ctor(_) | Named::Channel(_)))
            {
                names.push((n.text, n.span));
            }
        });
        // The value is a global of its own (evaluated once), not a name.
        let value = self.new_function(Ustr::from("pattern"), FunctionKind::Constant, span);
        let value_global = GlobalId(self.script.globals.len() as u32);
        self.script.globals.push(Global {
            name: Ustr::from("pattern"),
            kind: GlobalKind::Definition(value),
            span,
        });
        let mut projections = Vec::new();
        for (name, name_span) in names {
            let qualified = self.ctx.qualify(name);
            let func = self.new_function(qualified, FunctionKind::Constant, span);
            if self
                .new_global(qualified, GlobalKind::Definition(func), name_span)
                .is_some()
            {
                projections.push((name, func));
            }
        }
        pending.push(Pending::Pattern {
            value,
            value_global,
            names: projections,
            pattern,
            rhs,
            span,
            ctx: self.ctx.clone(),
        });
    }

    /// One part `p = e` of a split tuple definition: a constant when `p`
    /// is a variable, nothing for `_`, else a pattern definition of its
    /// own.
    pub(super) fn collect_pattern_part(
        &mut self,
        pattern: &'p ast::Pattern,
        rhs: &'p ast::Expr,
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        match &pattern.kind {
            ast::PatternKind::Wildcard => {}
            ast::PatternKind::Name(n)
                if !n.is_qualified()
                    && !matches!(
                        self.lookup_global(n.text),
                        Some(Named::Ctor(_) | Named::Channel(_))
                    ) =>
            {
                let name = self.ctx.qualify(n.text);
                let func = self.new_function(name, FunctionKind::Constant, span);
                if self
                    .new_global(name, GlobalKind::Definition(func), n.span)
                    .is_some()
                {
                    pending.push(Pending::Expr {
                        func,
                        expr: rhs,
                        as_type: false,
                        ctx: self.ctx.clone(),
                    });
                }
            }
            _ => self.collect_pattern_definition(pattern, rhs, span, pending),
        }
    }

    // ------------------------------------------------------------ pass 2

    /// Resolves a whole program.
    pub fn resolve_program(&mut self, decls: &'p [ast::Decl]) {
        let mut pending = Vec::new();
        self.collect(decls, &mut pending);
        self.resolve_collected(pending);
        if self.ticker.stopped().is_some() {
            return;
        }
        self.check_modules_use_no_instance_of_themselves();
        self.mark_recursive_datatypes();
        self.collect_generic_copies();
        self.drop_repeated_diagnostics();
    }

    /// Resolves what was collected: the type annotations met, then the
    /// definitions waiting for their bodies.
    pub(super) fn resolve_collected(&mut self, pending: Vec<Pending<'p>>) {
        if self.ticker.stopped().is_some() {
            // Stopped while collecting: bodies resolved against the names
            // met so far would call every name after the stop undefined.
            return;
        }
        let annotated = std::mem::take(&mut self.annotated);
        self.check_annotated_once(annotated.iter().map(|(name, ident, ..)| (*name, ident)));
        self.check_channel_annotations(&annotated);
        let mut attached = FxHashSet::default();
        for (name, ident, ty, ctx) in annotated {
            let Some(&named) = self.script.names.get(&name) else {
                self.annotation_without_definition(&ident);
                continue;
            };
            // The annotation mentions the name: an editor renames it too.
            self.script.index.used(named.into(), ident.span);
            if attached.insert(name) {
                self.ctx = ctx;
                let annotation = self.annotation(ty);
                self.attach_annotation(name, &ident, annotation);
            }
        }
        for item in pending {
            if self.ticker.tick().is_err() {
                return;
            }
            self.resolve_pending(item);
        }
    }

    /// A mistake in a module's body is met once per copy of the body (an
    /// instance's, the generic one): said once.
    fn drop_repeated_diagnostics(&mut self) {
        let mut said = FxHashSet::default();
        self.diagnostics
            .retain(|d| said.insert((d.span.map(|s| (s.start, s.end)), d.message.clone())));
    }

    pub(super) fn resolve_pending(&mut self, item: Pending<'p>) {
        match item {
            Pending::Clauses { func, clauses, ctx } => {
                self.ctx = ctx;
                self.resolve_clauses(func, &clauses);
            }
            Pending::Pattern {
                value,
                value_global,
                names,
                pattern,
                rhs,
                span,
                ctx,
            } => {
                self.ctx = ctx;
                let bare = names.is_empty();
                self.constant_body(value, |r| {
                    if bare {
                        // No name projects the pattern out: resolve it
                        // here for its problems (`Y::f.0 = e`).
                        r.scopes.push(FxHashMap::default());
                        let _ = r.pattern(pattern);
                        r.scopes.pop();
                    }
                    r.expr(rhs)
                });
                for (name, func) in names {
                    self.constant_body(func, |r| {
                        let value = r.push_expr(ExprKind::Global(value_global), span);
                        r.destructure(value, pattern, name, span)
                    });
                }
            }
            Pending::Expr {
                func,
                expr,
                as_type,
                ctx,
            } => {
                self.ctx = ctx;
                self.constant_body(func, |r| {
                    if as_type {
                        r.type_expr(expr)
                    } else {
                        r.expr(expr)
                    }
                });
            }
            Pending::Fields { owner, expr, ctx } => {
                self.ctx = ctx;
                let owner_name = match owner {
                    FieldOwner::Channel(c) => self.script.channels[c.index()].name,
                    FieldOwner::Ctor(c) => self.script.ctors[c.index()].name,
                };
                let fields = self.field_types(owner_name, expr);
                match owner {
                    FieldOwner::Channel(c) => self.script.channels[c.index()].fields = fields,
                    FieldOwner::Ctor(c) => self.script.ctors[c.index()].fields = fields,
                }
            }
            Pending::SubType {
                global,
                clauses,
                ctx,
            } => {
                self.ctx = ctx;
                let mut resolved = Vec::new();
                for clause in clauses {
                    match self.lookup_global(clause.name.name) {
                        Some(Named::Ctor(ctor)) => {
                            let fields = match &clause.fields {
                                Some(expr) => self.field_types(clause.name.name, expr),
                                None => Vec::new(),
                            };
                            resolved.push((ctor, fields));
                        }
                        _ => self.error(
                            clause.name.span,
                            format!(
                                "`{}` is not a datatype constructor: a subtype lists constructors of an existing datatype",
                                clause.name.name
                            ),
                        ),
                    }
                }
                self.script.globals[global.index()].kind = GlobalKind::SubType(resolved);
            }
            Pending::Assert {
                assertion,
                span,
                ctx,
            } => {
                self.ctx = ctx;
                let resolved = self.assertion(assertion, span);
                self.script.assertions.push(resolved);
            }
            Pending::Print { expr, ctx } => {
                self.ctx = ctx;
                let func = self.top_expr(expr);
                self.script.prints.push(func);
            }
            Pending::Timed {
                index,
                function,
                ctx,
            } => {
                self.ctx = ctx;
                let span = self.script.timed[index].span;
                self.script.timed[index].tock = Some(self.section_tock(span));
                self.script.timed[index].function = function.map(|name| {
                    let name = ast::Expr {
                        kind: ast::ExprKind::Name(ast::Name { text: name, span }),
                        span,
                    };
                    self.top_expr(&name)
                });
            }
        }
    }

    /// Starts a `Timed` section at `span`: its index in the script's list.
    pub(super) fn timed_section(&mut self, span: Span) -> usize {
        self.script.timed.push(TimedSection {
            span,
            tock: None,
            function: None,
            members: Vec::new(),
        });
        self.script.timed.len() - 1
    }

    /// `tock` as the section at `span` sees it: a section needs one, even
    /// an empty section, as in FDR.
    pub(super) fn section_tock(&mut self, span: Span) -> FuncId {
        let tock = ast::Expr {
            kind: ast::ExprKind::Name(ast::Name::simple("tock", span)),
            span,
        };
        self.top_expr(&tock)
    }

    /// Resolves an expression at top level into a new constant.
    pub fn top_expr(&mut self, expr: &ast::Expr) -> FuncId {
        let func = self.new_function(Ustr::from("expression"), FunctionKind::Constant, expr.span);
        self.constant_body(func, |r| r.expr(expr));
        func
    }

    pub(super) fn assertion(&mut self, a: &ast::Assertion, span: Span) -> Assertion {
        use ast::AssertionKind as A;
        let kind = match &a.kind {
            A::Refinement { spec, model, imp } => AssertionKind::Refinement {
                spec: self.top_expr(spec),
                model: *model,
                imp: self.top_expr(imp),
            },
            A::Property {
                process,
                property,
                model,
            } => AssertionKind::Property {
                process: self.top_expr(process),
                property: *property,
                model: *model,
            },
            A::HasTrace {
                process,
                model,
                trace,
            } => AssertionKind::HasTrace {
                process: self.top_expr(process),
                model: *model,
                trace: self.top_expr(trace),
            },
            A::Symmetric { process, types } => AssertionKind::Symmetric {
                process: self.top_expr(process),
                types: types.iter().map(|t| self.top_expr(t)).collect(),
            },
        };
        let options = a
            .options
            .iter()
            .map(|o| match &o.kind {
                ast::AssertOptionKind::TauPriority(e) => {
                    AssertOption::TauPriority(self.top_expr(e), o.span)
                }
                ast::AssertOptionKind::PartialOrderReduce(mode) => {
                    AssertOption::PartialOrderReduce(o.span, mode.as_ref().map(|m| m.name))
                }
                ast::AssertOptionKind::SymmetryReduce(types) => AssertOption::SymmetryReduce(
                    types.iter().map(|t| self.top_expr(t)).collect(),
                    o.span,
                ),
            })
            .collect();
        Assertion {
            negated: a.negated,
            kind,
            options,
            span,
        }
    }

    /// The field types of `A.B.C`, each a constant named after `owner`.
    pub(super) fn field_types(&mut self, owner: Ustr, expr: &'p ast::Expr) -> Vec<FuncId> {
        let mut parts = Vec::new();
        self.field_parts(expr, &mut parts, 0);
        parts
            .into_iter()
            .map(|part| {
                let func = self.new_function(owner, FunctionKind::Constant, part.span);
                self.constant_body(func, |r| r.type_expr(part));
                func
            })
            .collect()
    }

    /// Splits a field type `A.B.C` into its fields, expanding nametypes
    /// that stand for dotted types (`nametype P = A.B`).
    pub(super) fn field_parts<'e>(
        &mut self,
        expr: &'e ast::Expr,
        out: &mut Vec<&'e ast::Expr>,
        depth: usize,
    ) where
        'p: 'e,
    {
        match &expr.kind {
            ast::ExprKind::Dot(a, b) => {
                self.field_parts(a, out, depth);
                self.field_parts(b, out, depth);
            }
            ast::ExprKind::Name(n) if depth < 32 => {
                let target = self.ctx.prefixes.iter().find_map(|p| {
                    self.nametypes
                        .get(&Ustr::from(&format!("{p}{}", n.text)))
                        .copied()
                });
                match target {
                    Some(rhs) if matches!(rhs.kind, ast::ExprKind::Dot(..)) => {
                        self.field_parts(rhs, out, depth + 1)
                    }
                    _ => out.push(expr),
                }
            }
            _ => out.push(expr),
        }
    }

    pub(super) fn mark_recursive_datatypes(&mut self) {
        // A datatype is recursive when its field types mention, through
        // datatypes and nametypes, the datatype itself.
        let mut mentions: FxHashMap<DataTypeId, FxHashSet<GlobalId>> = FxHashMap::default();
        for (i, dt) in self.script.datatypes.iter().enumerate() {
            let mut globals = FxHashSet::default();
            for ctor in &dt.ctors {
                for &field in &self.script.ctors[ctor.index()].fields {
                    self.script.globals_used(field, &mut globals);
                }
            }
            mentions.insert(DataTypeId(i as u32), globals);
        }
        for i in 0..self.script.datatypes.len() {
            let me = DataTypeId(i as u32);
            let mut seen = FxHashSet::default();
            let mut work: Vec<GlobalId> = mentions[&me].iter().copied().collect();
            let mut recursive = false;
            while let Some(g) = work.pop() {
                if !seen.insert(g) {
                    continue;
                }
                match &self.script.globals[g.index()].kind {
                    GlobalKind::DataType(d) if *d == me => {
                        recursive = true;
                        break;
                    }
                    GlobalKind::DataType(d) => work.extend(mentions[d].iter().copied()),
                    GlobalKind::NameType(f) => {
                        let mut globals = FxHashSet::default();
                        self.script.globals_used(*f, &mut globals);
                        work.extend(globals);
                    }
                    _ => {}
                }
            }
            self.script.datatypes[i].recursive = recursive;
        }
    }
}

//! Name resolution: the syntax tree of a whole program becomes the
//! [`Script`]'s arena of resolved expressions and functions.
//!
//! Two passes. The first walks every declaration (following includes,
//! modules, instances and `Timed` sections) and gives each top-level name
//! its global, constructor or channel id, so that definitions may refer to
//! each other in any order. The second resolves every body.
//!
//! Variables are resolved the way flat-closure compilers do it (Lua's
//! upvalues): a lexical scope maps names to bindings, each binding belongs
//! to one function scope, and a use from an inner function adds the
//! variable to the capture list of every function in between.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use ustr::Ustr;

use crate::syntax::ast::{self, DeclKind, Lhs};
use crate::syntax::{Diagnostic, Span};

use super::builtins::Builtin;
use super::ir::*;
use super::mentions::expr_mentions;
use super::suggest::Suggester;
use super::{Named, Script};

/// The module a declaration sits in: its name prefix (`M::N::`) and, for
/// instances, where its parameters were bound.
#[derive(Debug, Clone, Default)]
struct ModuleCtx {
    /// Prefixes from the innermost outwards, each ending in `::`, then "".
    prefixes: Vec<String>,
}

impl ModuleCtx {
    fn enter(&self, name: &str) -> ModuleCtx {
        let inner = format!("{}{name}::", self.prefixes.first().map_or("", |p| p));
        let mut prefixes = vec![inner];
        prefixes.extend(self.prefixes.iter().cloned());
        ModuleCtx { prefixes }
    }

    fn top() -> ModuleCtx {
        ModuleCtx {
            prefixes: vec![String::new()],
        }
    }

    fn qualify(&self, name: &str) -> Ustr {
        Ustr::from(&format!("{}{name}", self.prefixes[0]))
    }

    fn prefix(&self) -> &str {
        &self.prefixes[0]
    }
}

/// A definition waiting for its body to be resolved.
enum Pending<'a> {
    /// The clauses of a constant or function.
    Clauses {
        func: FuncId,
        clauses: Vec<&'a ast::Decl>,
        ctx: Rc<ModuleCtx>,
    },
    /// A pattern definition `(a, b) = e`: the hidden value and the
    /// constants projecting each name out of it.
    Pattern {
        value: FuncId,
        value_global: GlobalId,
        names: Vec<(Ustr, FuncId)>,
        decl: &'a ast::Decl,
        ctx: Rc<ModuleCtx>,
    },
    /// A constant given by an expression (instance arguments, types).
    Expr {
        func: FuncId,
        expr: &'a ast::Expr,
        as_type: bool,
        ctx: Rc<ModuleCtx>,
    },
    /// The field types of a channel or constructor.
    Fields {
        owner: FieldOwner,
        expr: &'a ast::Expr,
        ctx: Rc<ModuleCtx>,
    },
    SubType {
        global: GlobalId,
        clauses: &'a [ast::DataClause],
        ctx: Rc<ModuleCtx>,
    },
    Assert {
        assertion: &'a ast::Assertion,
        span: Span,
        ctx: Rc<ModuleCtx>,
    },
    Print {
        expr: &'a ast::Expr,
        ctx: Rc<ModuleCtx>,
    },
}

#[derive(Clone, Copy)]
enum FieldOwner {
    Channel(ChannelId),
    Ctor(CtorId),
}

#[derive(Debug, Clone, Copy)]
enum BindingKind {
    /// Local slot of function scope `scope`.
    Local { scope: usize, slot: u32 },
    /// The environment of function scope `scope`, as a group handle.
    Env { scope: usize },
    /// A member of a recursive `let` group; the handle is the binding
    /// named `handle`.
    GroupMember { func: FuncId, handle: Ustr },
}

#[derive(Debug, Clone, Copy)]
struct Binding {
    id: u32,
    kind: BindingKind,
}

struct FnScope {
    /// The scope whose environment this one runs in: itself, or for the
    /// members of a recursive group, the group's scope.
    env_owner: usize,
    /// Captured bindings (by id) with where each comes from in the parent.
    captures: Vec<(u32, VarRef)>,
    capture_names: Vec<Ustr>,
    locals: u32,
}

/// Resolves syntax into the script's arena.
pub(super) struct Resolver<'s, 'p> {
    pub script: &'s mut Script,
    /// Every file of the program, for includes.
    files: &'p [ast::File],
    pub diagnostics: Vec<Diagnostic>,
    scopes: Vec<FxHashMap<Ustr, Binding>>,
    fns: Vec<FnScope>,
    next_binding: u32,
    ctx: Rc<ModuleCtx>,
    /// Parameterised modules, by qualified name, for `instance`.
    modules: FxHashMap<Ustr, (&'p ast::Module, Rc<ModuleCtx>)>,
    /// The right-hand sides of nametypes, to expand them into fields.
    nametypes: FxHashMap<Ustr, &'p ast::Expr>,
    /// Where each qualified name was declared.
    declared_at: FxHashMap<Ustr, Span>,
    /// "Did you mean" for unknown names, within its budget.
    suggester: Suggester,
}

impl<'s, 'p> Resolver<'s, 'p> {
    pub fn new(script: &'s mut Script, files: &'p [ast::File]) -> Self {
        Resolver {
            script,
            files,
            diagnostics: Vec::new(),
            scopes: Vec::new(),
            fns: Vec::new(),
            next_binding: 0,
            ctx: Rc::new(ModuleCtx::top()),
            modules: FxHashMap::default(),
            nametypes: FxHashMap::default(),
            declared_at: FxHashMap::default(),
            suggester: Suggester::default(),
        }
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::error(span, message));
    }

    // ------------------------------------------------------------ arena

    fn push_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.script.exprs.push(Expr { kind, span });
        ExprId((self.script.exprs.len() - 1) as u32)
    }

    fn new_function(&mut self, name: Ustr, kind: FunctionKind, span: Span) -> FuncId {
        self.script.functions.push(Function {
            name,
            kind,
            span,
            captures: Vec::new(),
            arity: Vec::new(),
            clauses: Vec::new(),
            frame_size: 0,
            call_form: None,
        });
        FuncId((self.script.functions.len() - 1) as u32)
    }

    fn new_global(&mut self, name: Ustr, kind: GlobalKind, span: Span) -> Option<GlobalId> {
        let id = GlobalId(self.script.globals.len() as u32);
        if !self.declare(name, Named::Global(id), span) {
            return None;
        }
        self.script.globals.push(Global { name, kind, span });
        Some(id)
    }

    /// Registers a top-level name; reports a clash with an earlier one.
    fn declare(&mut self, name: Ustr, named: Named, span: Span) -> bool {
        if let Some(&earlier) = self.declared_at.get(&name) {
            let what = match self.script.names[&name] {
                Named::Ctor(_) => "a datatype constructor",
                Named::Channel(_) => "a channel",
                Named::Global(g) => match self.script.globals[g.index()].kind {
                    GlobalKind::DataType(_) => "a datatype",
                    GlobalKind::SubType(_) => "a subtype",
                    GlobalKind::NameType(_) => "a nametype",
                    _ => "defined",
                },
            };
            let message = if what == "defined" {
                format!("`{name}` is defined twice")
            } else {
                format!("`{name}` is already {what}; it cannot be defined again")
            };
            self.diagnostics.push(
                Diagnostic::error(span, message).with_secondary(earlier, "first declared here"),
            );
            return false;
        }
        self.declared_at.insert(name, span);
        self.script.names.insert(name, named);
        true
    }

    // ------------------------------------------------------------ pass 1

    /// Registers the names of `decls` and queues their bodies.
    fn collect(&mut self, decls: &'p [ast::Decl], pending: &mut Vec<Pending<'p>>) {
        let mut i = 0;
        while i < decls.len() {
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
                        self.collect_pattern_definition(decl, pattern, pending)
                    }
                },
                DeclKind::TypeAnnotation(..) => {}
                DeclKind::Channel(names, fields) => {
                    for ident in names {
                        let name = self.ctx.qualify(&ident.name);
                        let id = ChannelId(self.script.channels.len() as u32);
                        if self.declare(name, Named::Channel(id), ident.span) {
                            self.script.channels.push(Channel {
                                name,
                                fields: Vec::new(),
                                span: ident.span,
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
                DeclKind::DataType(ident, clauses) => {
                    let name = self.ctx.qualify(&ident.name);
                    let id = DataTypeId(self.script.datatypes.len() as u32);
                    if self
                        .new_global(name, GlobalKind::DataType(id), ident.span)
                        .is_some()
                    {
                        let mut ctors = Vec::new();
                        for clause in clauses {
                            let ctor_name = self.ctx.qualify(&clause.name.name);
                            let ctor = CtorId(self.script.ctors.len() as u32);
                            if self.declare(ctor_name, Named::Ctor(ctor), clause.name.span) {
                                self.script.ctors.push(Constructor {
                                    name: ctor_name,
                                    datatype: id,
                                    fields: Vec::new(),
                                    span: clause.span,
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
                DeclKind::SubType(ident, clauses) => {
                    let name = self.ctx.qualify(&ident.name);
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
                    let name = self.ctx.qualify(&ident.name);
                    let func = self.new_function(name, FunctionKind::Constant, decl.span);
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
                DeclKind::External(names) | DeclKind::Transparent(names) => {
                    for ident in names {
                        if Builtin::lookup(&ident.name).is_none() {
                            self.error(
                                ident.span,
                                format!("`{}` is not a function symcsp provides", ident.name),
                            );
                        }
                    }
                }
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
                DeclKind::Timed(_, inner) => {
                    self.script.timed_sections.push(decl.span);
                    self.collect(inner, pending);
                }
            }
            i += 1;
        }
    }

    /// The declarations of an included file, borrowed for the resolver's
    /// whole life (the program outlives it).
    fn file_decls(&self, file: crate::syntax::FileId) -> &'p [ast::Decl] {
        &self.files[file as usize].decls
    }

    fn collect_definition(
        &mut self,
        ident: &ast::Ident,
        clauses: Vec<&'p ast::Decl>,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let name = self.ctx.qualify(&ident.name);
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

    fn collect_pattern_definition(
        &mut self,
        decl: &'p ast::Decl,
        pattern: &ast::Pattern,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let mut names = Vec::new();
        pattern_variables(pattern, &mut |n: &ast::Name| {
            if !n.is_qualified()
                && self
                    .lookup_global(n.text.as_str())
                    .is_none_or(|g| !matches!(g, Named::Ctor(_) | Named::Channel(_)))
            {
                names.push((n.text, n.span));
            }
        });
        // The value is a global of its own (evaluated once), not a name.
        let value = self.new_function(Ustr::from("pattern"), FunctionKind::Constant, decl.span);
        let value_global = GlobalId(self.script.globals.len() as u32);
        self.script.globals.push(Global {
            name: Ustr::from("pattern"),
            kind: GlobalKind::Definition(value),
            span: decl.span,
        });
        let mut projections = Vec::new();
        for (name, span) in names {
            let qualified = self.ctx.qualify(&name);
            let func = self.new_function(qualified, FunctionKind::Constant, decl.span);
            if self
                .new_global(qualified, GlobalKind::Definition(func), span)
                .is_some()
            {
                projections.push((name, func));
            }
        }
        pending.push(Pending::Pattern {
            value,
            value_global,
            names: projections,
            decl,
            ctx: self.ctx.clone(),
        });
    }

    fn collect_module(&mut self, module: &'p ast::Module, pending: &mut Vec<Pending<'p>>) {
        let qualified = self.ctx.qualify(&module.name.name);
        if module.params.is_some() {
            // Only its instances have names.
            if self.declared_at.contains_key(&qualified) || self.modules.contains_key(&qualified) {
                self.error(
                    module.name.span,
                    format!("module `{qualified}` is defined twice"),
                );
                return;
            }
            self.modules.insert(qualified, (module, self.ctx.clone()));
            return;
        }
        let outer = self.ctx.clone();
        self.ctx = Rc::new(outer.enter(&module.name.name));
        self.collect_module_body(module, pending);
        self.ctx = outer;
    }

    /// The private declarations, remembered as private to the module
    /// being collected, then the exported ones.
    fn collect_module_body(&mut self, module: &'p ast::Module, pending: &mut Vec<Pending<'p>>) {
        let before: FxHashSet<Ustr> = self.script.names.keys().copied().collect();
        self.collect(&module.private, pending);
        let module_prefix = Ustr::from(self.ctx.prefix());
        let private: Vec<Ustr> = self
            .script
            .names
            .keys()
            .filter(|n| !before.contains(*n))
            .copied()
            .collect();
        for name in private {
            self.script.private.insert(name, module_prefix);
        }
        if let Some(exports) = &module.exports {
            self.collect(exports, pending);
        }
    }

    fn collect_instance(
        &mut self,
        ident: &ast::Ident,
        module_name: &ast::Name,
        args: Option<&'p [ast::Expr]>,
        span: Span,
        pending: &mut Vec<Pending<'p>>,
    ) {
        let found = self
            .ctx
            .prefixes
            .iter()
            .map(|p| Ustr::from(&format!("{p}{}", module_name.text)))
            .find_map(|q| self.modules.get(&q).cloned());
        let Some((module, _defined_in)) = found else {
            self.error(
                module_name.span,
                format!("there is no parameterised module `{}`", module_name.text),
            );
            return;
        };
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
            return;
        }
        let outer = self.ctx.clone();
        let inner = Rc::new(outer.enter(&ident.name));
        // The parameters are constants of the instance, their values the
        // arguments evaluated where the instance is declared.
        for (param, arg) in params.iter().zip(args) {
            let name = inner.qualify(&param.name);
            let func = self.new_function(name, FunctionKind::Constant, arg.span);
            if self
                .new_global(name, GlobalKind::Definition(func), param.span)
                .is_some()
            {
                self.script.private.insert(name, Ustr::from(inner.prefix()));
                pending.push(Pending::Expr {
                    func,
                    expr: arg,
                    as_type: false,
                    ctx: outer.clone(),
                });
            }
        }
        self.ctx = inner;
        self.collect_module_body(module, pending);
        self.ctx = outer;
    }

    // ------------------------------------------------------------ pass 2

    /// Resolves a whole program.
    pub fn resolve_program(&mut self, decls: &'p [ast::Decl]) {
        let mut pending = Vec::new();
        self.collect(decls, &mut pending);
        for item in pending {
            self.resolve_pending(item);
        }
        self.mark_recursive_datatypes();
    }

    fn resolve_pending(&mut self, item: Pending<'p>) {
        match item {
            Pending::Clauses { func, clauses, ctx } => {
                self.ctx = ctx;
                self.resolve_clauses(func, &clauses);
            }
            Pending::Pattern {
                value,
                value_global,
                names,
                decl,
                ctx,
            } => {
                self.ctx = ctx;
                let DeclKind::Definition(def) = &decl.kind else {
                    unreachable!("pattern definitions are definitions")
                };
                let Lhs::Pattern(pattern) = &def.lhs else {
                    unreachable!("pattern definitions have a pattern")
                };
                self.constant_body(value, |r| r.expr(&def.rhs));
                for (name, func) in names {
                    self.constant_body(func, |r| {
                        let value = r.push_expr(ExprKind::Global(value_global), decl.span);
                        r.destructure(value, pattern, name, decl.span)
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
                    match self.lookup_global(&clause.name.name) {
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
        }
    }

    /// Resolves an expression at top level into a new constant.
    pub fn top_expr(&mut self, expr: &ast::Expr) -> FuncId {
        let func = self.new_function(Ustr::from("expression"), FunctionKind::Constant, expr.span);
        self.constant_body(func, |r| r.expr(expr));
        func
    }

    fn assertion(&mut self, a: &ast::Assertion, span: Span) -> Assertion {
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
                ast::AssertOptionKind::PartialOrderReduce => {
                    AssertOption::PartialOrderReduce(o.span)
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
    fn field_types(&mut self, owner: Ustr, expr: &'p ast::Expr) -> Vec<FuncId> {
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
    fn field_parts<'e>(&mut self, expr: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>, depth: usize)
    where
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

    fn mark_recursive_datatypes(&mut self) {
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

    // ------------------------------------------------------------ functions

    /// Resolves `body` as the body of constant `func` (a function scope
    /// with no parameters and no captures).
    fn constant_body(&mut self, func: FuncId, body: impl FnOnce(&mut Self) -> ExprId) {
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_fns = std::mem::take(&mut self.fns);
        self.push_fn(None);
        let body = body(self);
        let scope = self.fns.pop().expect("pushed above");
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

    fn push_fn(&mut self, env_owner: Option<usize>) {
        let index = self.fns.len();
        self.fns.push(FnScope {
            env_owner: env_owner.unwrap_or(index),
            captures: Vec::new(),
            capture_names: Vec::new(),
            locals: 0,
        });
    }

    /// Pops the innermost function scope into `func` and returns where its
    /// captures come from in the enclosing scope.
    fn pop_fn(&mut self, func: FuncId) -> Vec<VarRef> {
        let scope = self.fns.pop().expect("a function scope");
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
    fn resolve_clauses(&mut self, func: FuncId, clauses: &[&'p ast::Decl]) {
        let defs: Vec<(&ast::Definition, Span)> = clauses
            .iter()
            .map(|d| match &d.kind {
                DeclKind::Definition(def) => (def, d.span),
                _ => unreachable!("clauses are definitions"),
            })
            .collect();
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_fns = std::mem::take(&mut self.fns);
        self.push_fn(None);
        self.function_clauses(func, &defs);
        self.fns.pop();
        self.scopes = saved_scopes;
        self.fns = saved_fns;
    }

    /// Resolves the clauses of `func` in the innermost function scope,
    /// which the caller pushed and pops.
    fn function_clauses(&mut self, func: FuncId, defs: &[(&ast::Definition, Span)]) {
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

    /// The right-hand side of a definition. When it is a process
    /// expression whose parameters are plain variables, its state prints
    /// as the call `P(1, A)`.
    fn definition_body(
        &mut self,
        def: &ast::Definition,
        name: Ustr,
        params: &[Vec<Pattern>],
    ) -> ExprId {
        let body = self.expr(&def.rhs);
        if let ExprKind::Process(proc_func, sources) = &self.script.exprs[body.index()].kind {
            let flat: Vec<&Pattern> = params.iter().flatten().collect();
            if flat.iter().all(|p| matches!(p, Pattern::Bind(_))) {
                let params = flat
                    .iter()
                    .map(|p| {
                        let Pattern::Bind(slot) = p else {
                            unreachable!()
                        };
                        sources
                            .iter()
                            .position(|s| *s == VarRef::Local(*slot))
                            .map(|i| i as u32)
                    })
                    .collect();
                let proc_func = *proc_func;
                let display = Ustr::from(name.as_str());
                self.script.functions[proc_func.index()].call_form = Some(CallForm {
                    name: display,
                    params,
                });
            }
        }
        body
    }

    // ------------------------------------------------------------ names

    fn bind_local(&mut self, name: Ustr) -> u32 {
        let scope = self.fns.len() - 1;
        let slot = self.fns[scope].locals;
        self.fns[scope].locals += 1;
        self.bind(name, BindingKind::Local { scope, slot });
        slot
    }

    fn bind(&mut self, name: Ustr, kind: BindingKind) {
        let id = self.next_binding;
        self.next_binding += 1;
        self.scopes
            .last_mut()
            .expect("a lexical scope")
            .insert(name, Binding { id, kind });
    }

    fn lookup_local(&self, name: &str) -> Option<Binding> {
        let name = Ustr::from_existing(name)?;
        self.scopes.iter().rev().find_map(|s| s.get(&name).copied())
    }

    /// The variable a binding is, seen from the innermost function.
    fn var_ref(&mut self, binding: Binding) -> VarRef {
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
    fn lookup_global(&self, text: &str) -> Option<Named> {
        self.ctx.prefixes.iter().find_map(|p| {
            let q = Ustr::from_existing(&format!("{p}{text}"))?;
            self.script.names.get(&q).copied()
        })
    }

    /// The qualified name a global lookup found, for privacy checks.
    fn global_name(&self, text: &str) -> Option<Ustr> {
        self.ctx.prefixes.iter().find_map(|p| {
            let q = Ustr::from_existing(&format!("{p}{text}"))?;
            self.script.names.contains_key(&q).then_some(q)
        })
    }

    fn name_expr(&mut self, name: &ast::Name) -> ExprId {
        let span = name.span;
        if !name.is_qualified()
            && let Some(binding) = self.lookup_local(&name.text)
        {
            let kind = match binding.kind {
                BindingKind::GroupMember { func, handle } => {
                    let handle = self
                        .lookup_local(&handle)
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
        match self.lookup_global(&name.text) {
            Some(named) => {
                self.check_private(name);
                let kind = match named {
                    Named::Global(g) => ExprKind::Global(g),
                    Named::Ctor(c) => ExprKind::Ctor(c),
                    Named::Channel(c) => ExprKind::Channel(c),
                };
                self.push_expr(kind, span)
            }
            None => match Builtin::lookup(&name.text) {
                Some(b) => {
                    let g = self.script.builtin_global(b);
                    self.push_expr(ExprKind::Global(g), span)
                }
                None => {
                    self.unknown_name(&name.text, span);
                    self.push_expr(ExprKind::Int(0), span)
                }
            },
        }
    }

    fn check_private(&mut self, name: &ast::Name) {
        let Some(qualified) = self.global_name(&name.text) else {
            return;
        };
        if let Some(module) = self.script.private.get(&qualified)
            && !self.ctx.prefix().starts_with(module.as_str())
        {
            let module = module.trim_end_matches("::").to_string();
            self.error(
                name.span,
                format!("`{qualified}` is private to module `{module}`: it is not exported"),
            );
        }
    }

    fn unknown_name(&mut self, text: &str, span: Span) {
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

    // ------------------------------------------------------------ patterns

    /// Resolves a pattern, binding its variables in the innermost lexical
    /// scope (which the caller pushed).
    fn pattern(&mut self, p: &ast::Pattern) -> Pattern {
        use ast::PatternKind as P;
        match &p.kind {
            P::Wildcard => Pattern::Wildcard,
            P::Int(i) => Pattern::Int(*i),
            P::Char(c) => Pattern::Char(*c),
            P::Bool(b) => Pattern::Bool(*b),
            P::String(s) => Pattern::Seq(s.chars().map(Pattern::Char).collect()),
            P::Name(n) => {
                match self.lookup_global(&n.text) {
                    Some(Named::Ctor(c)) => return Pattern::Ctor(c, n.span),
                    Some(Named::Channel(c)) => return Pattern::Channel(c),
                    _ => {}
                }
                if n.is_qualified() {
                    self.error(
                        n.span,
                        format!("`{}` is not a datatype constructor or channel", n.text),
                    );
                    return Pattern::Wildcard;
                }
                let already = self.scopes.last().is_some_and(|s| s.contains_key(&n.text));
                if already {
                    self.error(
                        n.span,
                        format!("`{}` is bound twice in the same pattern", n.text),
                    );
                    return Pattern::Wildcard;
                }
                Pattern::Bind(self.bind_local(n.text))
            }
            P::Tuple(ps) => Pattern::Tuple(ps.iter().map(|p| self.pattern(p)).collect()),
            P::Dot(..) => {
                let mut parts = Vec::new();
                flatten(p, dot_pattern_sides, &mut parts);
                Pattern::Dot(parts.into_iter().map(|p| self.pattern(p)).collect())
            }
            P::Seq(ps) => Pattern::Seq(ps.iter().map(|p| self.pattern(p)).collect()),
            P::Concat(..) => self.concat_pattern(p),
            P::Set(ps) => {
                if ps.len() > 1 {
                    self.error(
                        p.span,
                        "a set pattern matches the empty set `{}` or a single element `{x}`",
                    );
                }
                Pattern::Set(ps.iter().map(|p| self.pattern(p)).collect())
            }
            P::DoubleAt(a, b) => {
                Pattern::Both(Box::new(self.pattern(a)), Box::new(self.pattern(b)))
            }
        }
    }

    fn concat_pattern(&mut self, p: &ast::Pattern) -> Pattern {
        let mut parts = Vec::new();
        flatten(p, concat_pattern_sides, &mut parts);
        let mut prefix = Vec::new();
        let mut middle = None;
        let mut suffix = Vec::new();
        for part in parts {
            let fixed: Option<Vec<Pattern>> = match &part.kind {
                ast::PatternKind::Seq(ps) => Some(ps.iter().map(|p| self.pattern(p)).collect()),
                ast::PatternKind::String(s) => Some(s.chars().map(Pattern::Char).collect()),
                _ => None,
            };
            match (fixed, &middle) {
                (Some(elems), None) => prefix.extend(elems),
                (Some(elems), Some(_)) => suffix.extend(elems),
                (None, None) => middle = Some(Box::new(self.pattern(part))),
                (None, Some(_)) => {
                    self.error(
                        part.span,
                        "a sequence pattern may have only one part of unknown length",
                    );
                    // Its names are bound all the same, so that what
                    // uses them resolves (a pattern definition looks
                    // each of them up).
                    let _ = self.pattern(part);
                }
            }
        }
        Pattern::Concat {
            prefix,
            middle,
            suffix,
        }
    }

    // ------------------------------------------------------------ expressions

    fn exprs(&mut self, es: &[ast::Expr]) -> Vec<ExprId> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    fn pairs(&mut self, pairs: &[(ast::Expr, ast::Expr)]) -> Vec<(ExprId, ExprId)> {
        pairs
            .iter()
            .map(|(a, b)| (self.expr(a), self.expr(b)))
            .collect()
    }

    /// Resolves an expression in a type position: `A.B` is the set of
    /// dotted values and `(A, B)` the set of pairs.
    fn type_expr(&mut self, e: &ast::Expr) -> ExprId {
        match &e.kind {
            ast::ExprKind::Dot(..) => {
                let mut parts = Vec::new();
                flatten(e, dot_expr_sides, &mut parts);
                let parts = parts.into_iter().map(|p| self.type_expr(p)).collect();
                self.push_expr(ExprKind::TypeDot(parts), e.span)
            }
            ast::ExprKind::Tuple(es) => {
                let parts = es.iter().map(|p| self.type_expr(p)).collect();
                self.push_expr(ExprKind::TypeTuple(parts), e.span)
            }
            _ => self.expr(e),
        }
    }

    pub fn expr(&mut self, e: &ast::Expr) -> ExprId {
        use ast::ExprKind as E;
        let span = e.span;
        let kind = match &e.kind {
            E::Int(i) => ExprKind::Int(*i),
            E::Char(c) => ExprKind::Char(*c),
            E::String(s) => ExprKind::String(s.as_str().into()),
            E::Bool(b) => ExprKind::Bool(*b),
            E::Name(n) => return self.name_expr(n),
            E::Wildcard => {
                self.error(span, "`_` stands for any value only in a pattern");
                ExprKind::Int(0)
            }
            E::DoubleAt(..) => {
                self.error(span, "`@@` joins two patterns; it is not an expression");
                ExprKind::Int(0)
            }
            E::Tuple(es) => ExprKind::Tuple(self.exprs(es)),
            E::App(f, args) => {
                let f = self.expr(f);
                ExprKind::App(f, self.exprs(args))
            }
            E::Dot(a, b) => {
                let a = self.expr(a);
                ExprKind::Dot(a, self.expr(b))
            }
            E::Unary(op, a) => ExprKind::Unary(*op, self.expr(a)),
            E::Binary(op, a, b) => {
                let a = self.expr(a);
                ExprKind::Binary(*op, a, self.expr(b))
            }
            E::If(c, t, f) => {
                let c = self.expr(c);
                let t = self.expr(t);
                ExprKind::If(c, t, self.expr(f))
            }
            E::Let(decls, body) => return self.let_expr(decls, body, span),
            E::Lambda(params, body) => {
                let func = self.new_function(Ustr::from("lambda"), FunctionKind::Lambda, span);
                self.push_fn(None);
                self.scopes.push(FxHashMap::default());
                let params: Vec<Pattern> = params.iter().map(|p| self.pattern(p)).collect();
                let body = self.expr(body);
                self.scopes.pop();
                let f = &mut self.script.functions[func.index()];
                f.arity = vec![params.len()];
                f.clauses = vec![Clause {
                    params: vec![params],
                    body,
                    span,
                }];
                let sources = self.pop_fn(func);
                ExprKind::Lambda(func, sources)
            }
            E::Seq(es) => ExprKind::Seq(self.exprs(es)),
            E::SeqRange(a, b) => {
                let a = self.expr(a);
                ExprKind::SeqRange(a, b.as_ref().map(|b| self.expr(b)))
            }
            E::Set(es) => ExprKind::Set(self.exprs(es)),
            E::SetRange(a, b) => {
                let a = self.expr(a);
                ExprKind::SetRange(a, b.as_ref().map(|b| self.expr(b)))
            }
            E::SeqComprehension(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::SeqComprehension(es, stmts)
            }
            E::SetComprehension(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::SetComprehension(es, stmts)
            }
            E::Production(es, stmts) => {
                let (es, stmts) = self.comprehension(es, stmts);
                ExprKind::Production(es, stmts)
            }
            E::Map(pairs) => ExprKind::Map(self.pairs(pairs)),
            _ => return self.process(e),
        };
        self.push_expr(kind, span)
    }

    /// Statements then the expressions they scope over.
    fn comprehension(&mut self, es: &[ast::Expr], stmts: &[ast::Stmt]) -> (Vec<ExprId>, Vec<Stmt>) {
        let depth = self.scopes.len();
        let stmts = self.stmts(stmts);
        let es = self.exprs(es);
        self.scopes.truncate(depth);
        (es, stmts)
    }

    /// Resolves statements, leaving one lexical scope per generator open
    /// for what follows; the caller truncates the scopes afterwards.
    fn stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        stmts
            .iter()
            .map(|s| match &s.kind {
                ast::StmtKind::Generator(p, _, e) => {
                    let source = self.expr(e);
                    self.scopes.push(FxHashMap::default());
                    Stmt::Generator(self.pattern(p), source)
                }
                ast::StmtKind::Guard(e) => Stmt::Guard(self.expr(e)),
            })
            .collect()
    }

    /// A process operator: a function of its own, so that its value is a
    /// control state with exactly its free variables.
    fn process(&mut self, e: &ast::Expr) -> ExprId {
        use ast::ExprKind as E;
        let span = e.span;
        let func = self.new_function(Ustr::from("process"), FunctionKind::Process, span);
        self.push_fn(None);
        let depth = self.scopes.len();
        let body = match &e.kind {
            E::Prefix(event, fields, then) => {
                let event = self.expr(event);
                let fields = fields
                    .iter()
                    .map(|f| match &f.kind {
                        ast::FieldKind::Output(e) => Field::Output(self.expr(e)),
                        ast::FieldKind::Input(p, set) | ast::FieldKind::NondetInput(p, set) => {
                            let set = set.as_ref().map(|s| self.expr(s));
                            self.scopes.push(FxHashMap::default());
                            let p = self.pattern(p);
                            if matches!(f.kind, ast::FieldKind::Input(..)) {
                                Field::Input(p, set)
                            } else {
                                Field::NondetInput(p, set)
                            }
                        }
                    })
                    .collect();
                let then = self.expr(then);
                ExprKind::Prefix(event, fields, then)
            }
            E::Guard(g, p) => {
                let g = self.expr(g);
                ExprKind::Guard(g, self.expr(p))
            }
            E::Process(op, a, b) => {
                let a = self.expr(a);
                ExprKind::ProcBinary(*op, a, self.expr(b))
            }
            E::Hide(a, b) => {
                let a = self.expr(a);
                ExprKind::Hide(a, self.expr(b))
            }
            E::Project(a, b) => {
                let a = self.expr(a);
                ExprKind::Project(a, self.expr(b))
            }
            E::GenParallel(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::GenParallel(a, s, b)
            }
            E::Exception(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::Exception(a, s, b)
            }
            E::SyncExternalChoice(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::SyncExternalChoice(a, s, b)
            }
            E::SyncInterrupt(a, s, b) => {
                let (a, s, b) = (self.expr(a), self.expr(s), self.expr(b));
                ExprKind::SyncInterrupt(a, s, b)
            }
            E::AlphaParallel(par) => {
                let a = self.expr(&par.left);
                let x = self.expr(&par.left_alphabet);
                let y = self.expr(&par.right_alphabet);
                let b = self.expr(&par.right);
                ExprKind::AlphaParallel(a, x, y, b)
            }
            E::LinkedParallel(par) => {
                let a = self.expr(&par.left);
                let b = self.expr(&par.right);
                let stmts = self.stmts(&par.stmts);
                let pairs = self.pairs(&par.links);
                self.scopes.truncate(depth);
                ExprKind::LinkedParallel(a, pairs, stmts, b)
            }
            E::Rename(a, pairs, stmts) => {
                let a = self.expr(a);
                let stmts = self.stmts(stmts);
                let pairs = self.pairs(pairs);
                self.scopes.truncate(depth);
                ExprKind::Rename(a, pairs, stmts)
            }
            E::Replicated(replicated) => {
                let ast::Replicated { op, stmts, body } = &**replicated;
                let stmts = self.stmts(stmts);
                let op = match op {
                    ast::ReplicatedOp::ExternalChoice => ReplicatedOp::ExternalChoice,
                    ast::ReplicatedOp::InternalChoice => ReplicatedOp::InternalChoice,
                    ast::ReplicatedOp::Interleave => ReplicatedOp::Interleave,
                    ast::ReplicatedOp::SequentialComposition => ReplicatedOp::SequentialComposition,
                    ast::ReplicatedOp::SyncExternalChoice(a) => {
                        ReplicatedOp::SyncExternalChoice(self.expr(a))
                    }
                    ast::ReplicatedOp::GenParallel(a) => ReplicatedOp::GenParallel(self.expr(a)),
                    ast::ReplicatedOp::AlphaParallel(a) => {
                        ReplicatedOp::AlphaParallel(self.expr(a))
                    }
                    ast::ReplicatedOp::LinkedParallel(pairs, inner) => {
                        let inner_depth = self.scopes.len();
                        let inner_stmts = self.stmts(inner);
                        let pairs = self.pairs(pairs);
                        self.scopes.truncate(inner_depth);
                        ReplicatedOp::LinkedParallel(pairs, inner_stmts)
                    }
                };
                let body = self.expr(body);
                ExprKind::Replicated(op, stmts, body)
            }
            _ => unreachable!("every other expression is functional"),
        };
        self.scopes.truncate(depth);
        let body = self.push_expr(body, span);
        let f = &mut self.script.functions[func.index()];
        f.clauses = vec![Clause {
            params: Vec::new(),
            body,
            span,
        }];
        let sources = self.pop_fn(func);
        self.push_expr(ExprKind::Process(func, sources), span)
    }

    // ------------------------------------------------------------ let

    fn let_expr(&mut self, decls: &[ast::Decl], body: &ast::Expr, span: Span) -> ExprId {
        // The definitions, by name, in order; pattern definitions apart.
        let mut units: Vec<LetUnit<'_>> = Vec::new();
        let mut defined: FxHashMap<Ustr, (usize, Span)> = FxHashMap::default();
        for decl in decls {
            match &decl.kind {
                DeclKind::Definition(def) => {
                    let names: Vec<(Ustr, Span)> = match &def.lhs {
                        Lhs::Name(i) | Lhs::Function(i, _) => vec![(i.name, i.span)],
                        Lhs::Pattern(p) => {
                            let mut names = Vec::new();
                            pattern_variables(p, &mut |n: &ast::Name| {
                                if !matches!(
                                    self.lookup_global(&n.text),
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
                        units
                            .last_mut()
                            .expect("checked")
                            .clauses
                            .push((def, decl.span));
                        continue;
                    }
                    for &(name, name_span) in &names {
                        if let Some(&(_, earlier)) = defined.get(&name) {
                            self.diagnostics.push(
                                Diagnostic::error(name_span, format!("`{name}` is defined twice"))
                                    .with_secondary(earlier, "first defined here"),
                            );
                        }
                        if matches!(
                            self.lookup_global(&name),
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
                        clauses: vec![(def, decl.span)],
                    });
                }
                DeclKind::TypeAnnotation(..) => {}
                _ => self.error(
                    decl.span,
                    "only definitions (and type annotations) may appear between `let` and `within`",
                ),
            }
        }
        // Order the units by dependency: strongly connected components,
        // dependencies first.
        let edges: Vec<Vec<usize>> = units
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
            .collect();
        let components = strongly_connected(&edges);

        self.scopes.push(FxHashMap::default());
        let mut groups = Vec::new();
        for component in components {
            let recursive = component.len() > 1 || edges[component[0]].contains(&component[0]);
            if !recursive && !units[component[0]].is_function {
                self.lazy_unit(&units[component[0]], &mut groups);
            } else {
                if let Some(&p) = component.iter().find(|&&i| units[i].is_pattern) {
                    self.error(
                        units[p].clauses[0].1,
                        "a pattern definition cannot be recursive",
                    );
                    continue;
                }
                self.recursive_group(&component, &units, &mut groups);
            }
        }
        let body = self.expr(body);
        self.scopes.pop();
        self.push_expr(ExprKind::Let(groups, body), span)
    }

    /// A constant used by nothing in its own group: a memoised thunk.
    fn lazy_unit(&mut self, unit: &LetUnit<'_>, groups: &mut Vec<LetGroup>) {
        let (def, span) = unit.clauses[0];
        if unit.is_pattern {
            // The value once, then each name projected out of it.
            let value = self.thunk(Ustr::from("pattern"), span, |r| r.expr(&def.rhs));
            let value_slot = self.bind_local(Ustr::from("$pattern"));
            groups.push(LetGroup::Lazy {
                func: value.0,
                captures: value.1,
                slot: value_slot,
            });
            let Lhs::Pattern(pattern) = &def.lhs else {
                unreachable!("a pattern unit")
            };
            let hidden = self.lookup_local("$pattern").expect("just bound");
            for &(name, _) in &unit.names {
                let (func, captures) = self.thunk(name, span, |r| {
                    let value = r.var_ref(hidden);
                    let value = r.push_expr(ExprKind::Var(value), span);
                    r.destructure(value, pattern, name, span)
                });
                let slot = self.bind_local(name);
                groups.push(LetGroup::Lazy {
                    func,
                    captures,
                    slot,
                });
            }
            return;
        }
        let name = unit.names[0].0;
        let (func, captures) = self.thunk(name, span, |r| r.definition_body(def, name, &[]));
        let slot = self.bind_local(name);
        groups.push(LetGroup::Lazy {
            func,
            captures,
            slot,
        });
    }

    /// The constant that evaluates `value`, matches it against `pattern`
    /// and yields the variable `name` the pattern binds.
    fn destructure(
        &mut self,
        value: ExprId,
        pattern: &ast::Pattern,
        name: Ustr,
        span: Span,
    ) -> ExprId {
        self.scopes.push(FxHashMap::default());
        let pattern = self.pattern(pattern);
        let slot = match self.scopes.last().and_then(|s| s.get(&name)) {
            Some(Binding {
                kind: BindingKind::Local { slot, .. },
                ..
            }) => *slot,
            _ => unreachable!("the pattern binds its names"),
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
    fn thunk(
        &mut self,
        name: Ustr,
        span: Span,
        body: impl FnOnce(&mut Self) -> ExprId,
    ) -> (FuncId, Vec<VarRef>) {
        let func = self.new_function(name, FunctionKind::Constant, span);
        self.push_fn(None);
        self.scopes.push(FxHashMap::default());
        let body = body(self);
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
    fn recursive_group(
        &mut self,
        component: &[usize],
        units: &[LetUnit<'_>],
        groups: &mut Vec<LetGroup>,
    ) {
        let handle = Ustr::from(&format!("$group{}", self.next_binding));
        let group_slot = self.bind_local(handle);
        let members: Vec<(usize, FuncId)> = component
            .iter()
            .map(|&i| {
                let unit = &units[i];
                let kind = if unit.is_function {
                    FunctionKind::Named
                } else {
                    FunctionKind::Constant
                };
                (
                    i,
                    self.new_function(unit.names[0].0, kind, unit.clauses[0].1),
                )
            })
            .collect();
        // The members' names, visible to each other and to the body.
        for &(i, func) in &members {
            self.bind(
                units[i].names[0].0,
                BindingKind::GroupMember { func, handle },
            );
        }
        self.push_fn(None);
        let group_scope = self.fns.len() - 1;
        for &(i, func) in &members {
            self.push_fn(Some(group_scope));
            let me = self.fns.len() - 1;
            self.scopes.push(FxHashMap::default());
            self.bind(handle, BindingKind::Env { scope: me });
            self.function_clauses(func, &units[i].clauses);
            self.scopes.pop();
            self.fns.pop();
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
        });
    }
}

struct LetUnit<'a> {
    names: Vec<(Ustr, Span)>,
    is_function: bool,
    is_pattern: bool,
    clauses: Vec<(&'a ast::Definition, Span)>,
}

fn describe_arity(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "no arguments".to_string();
    }
    shape
        .iter()
        .map(|n| format!("({} argument{})", n, if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join("")
}

/// The operands of a chain of one binary operator (`a.b.c`, `s^t^u`), left
/// to right; `split` gives the two sides of a node of that operator.
fn flatten<'t, T>(node: &'t T, split: fn(&'t T) -> Option<(&'t T, &'t T)>, out: &mut Vec<&'t T>) {
    match split(node) {
        Some((a, b)) => {
            flatten(a, split, out);
            flatten(b, split, out);
        }
        None => out.push(node),
    }
}

fn dot_pattern_sides(p: &ast::Pattern) -> Option<(&ast::Pattern, &ast::Pattern)> {
    match &p.kind {
        ast::PatternKind::Dot(a, b) => Some((a, b)),
        _ => None,
    }
}

fn concat_pattern_sides(p: &ast::Pattern) -> Option<(&ast::Pattern, &ast::Pattern)> {
    match &p.kind {
        ast::PatternKind::Concat(a, b) => Some((a, b)),
        _ => None,
    }
}

fn dot_expr_sides(e: &ast::Expr) -> Option<(&ast::Expr, &ast::Expr)> {
    match &e.kind {
        ast::ExprKind::Dot(a, b) => Some((a, b)),
        _ => None,
    }
}

/// Calls `f` on every name in a pattern (variables and constructors).
fn pattern_variables(p: &ast::Pattern, f: &mut impl FnMut(&ast::Name)) {
    use ast::PatternKind as P;
    match &p.kind {
        P::Name(n) => f(n),
        P::Tuple(ps) | P::Seq(ps) | P::Set(ps) => {
            for p in ps {
                pattern_variables(p, f);
            }
        }
        P::Dot(a, b) | P::Concat(a, b) | P::DoubleAt(a, b) => {
            pattern_variables(a, f);
            pattern_variables(b, f);
        }
        P::Wildcard | P::Int(_) | P::Char(_) | P::String(_) | P::Bool(_) => {}
    }
}

/// Tarjan's algorithm; components come out dependencies first.
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'e> {
        edges: &'e [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.edges[v] {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_dependencies_first() {
        // 0 -> 1 -> 2 -> 1, 3 alone.
        let edges = vec![vec![1], vec![2], vec![1], vec![]];
        assert_eq!(
            strongly_connected(&edges),
            vec![vec![1, 2], vec![0], vec![3]]
        );
    }
}

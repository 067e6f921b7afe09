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
//!
//! By job: `collect.rs` collects declarations and modules (both passes'
//! walks over declarations), `scope.rs` keeps scopes and captures (and
//! `let`), `expr.rs` lowers expressions and patterns, `process.rs`
//! lowers process operators; this file holds the resolver's state and
//! its arena.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use ustr::Ustr;

use crate::budget::Ticker;
use crate::syntax::ast::{self, DeclKind, Lhs};
use crate::syntax::{Diagnostic, Span};

use super::builtins::{Builtin, Import, bool_constant};
use super::ir::*;
use super::mentions::expr_mentions;
use super::suggest::Suggester;
use super::{Named, Script};

mod annotation;
mod collect;
mod expr;
mod modules;
mod process;
mod scope;

/// The module a declaration sits in: its name prefix (`M::N::`) and, for
/// instances, where its parameters were bound.
#[derive(Debug, Clone, Default)]
struct ModuleCtx {
    /// Prefixes from the innermost outwards, each ending in `::`, then "".
    prefixes: Vec<String>,
    /// Inside a `Timed` section, where FDR forbids linked parallel and
    /// nondeterministic input.
    timed: bool,
    /// The modules whose bodies enclose this context, by identity, each
    /// with whether the body is an instance's.
    modules: Vec<(ModuleId, bool)>,
}

/// A module, by the address of its syntax: the same module whatever
/// instance or name it is reached through.
type ModuleId = usize;

fn module_id(module: &ast::Module) -> ModuleId {
    std::ptr::from_ref(module) as usize
}

impl ModuleCtx {
    fn enter(&self, module: &ast::Module) -> ModuleCtx {
        let name = &module.name.name;
        let inner = format!("{}{name}::", self.prefixes.first().map_or("", |p| p));
        let mut prefixes = vec![inner];
        prefixes.extend(self.prefixes.iter().cloned());
        let mut modules = self.modules.clone();
        modules.push((module_id(module), false));
        ModuleCtx {
            prefixes,
            timed: self.timed,
            modules,
        }
    }

    /// The body of an instance named `name` declared in `self` of a
    /// module defined in `defined_in`: its names are qualified by the
    /// instance, and it sees what the module's definition sees (its
    /// enclosing modules, their parameters among them), not the
    /// surroundings of the instance.
    fn instance(&self, name: &str, module: &ast::Module, defined_in: &ModuleCtx) -> ModuleCtx {
        let mut prefixes = vec![format!("{}{name}::", self.prefix())];
        prefixes.extend(defined_in.prefixes.iter().cloned());
        let mut modules = defined_in.modules.clone();
        modules.push((module_id(module), true));
        ModuleCtx {
            prefixes,
            timed: defined_in.timed,
            modules,
        }
    }

    fn top() -> ModuleCtx {
        ModuleCtx {
            prefixes: vec![String::new()],
            timed: false,
            modules: Vec::new(),
        }
    }

    fn qualify(&self, name: Ustr) -> Ustr {
        match self.prefixes[0].as_str() {
            "" => name,
            prefix => Ustr::from(&format!("{prefix}{name}")),
        }
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
        pattern: &'a ast::Pattern,
        rhs: &'a ast::Expr,
        span: Span,
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
    /// A `Timed` section's `tock` and function.
    Timed {
        index: usize,
        function: Option<Ustr>,
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
    /// The variables bound in its slots: (binding number, slot).
    bound: Vec<(u32, u32)>,
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
    /// Every module, by qualified name, for `instance`.
    modules: FxHashMap<Ustr, (&'p ast::Module, Rc<ModuleCtx>)>,
    /// The qualified names of modules and instances, whose names (and the
    /// built-ins) may be named through them.
    module_names: FxHashSet<Ustr>,
    /// Instances refused (their arguments do not fit): names through them
    /// are not reported again.
    refused_instances: FxHashSet<Ustr>,
    /// The right-hand sides of nametypes, to expand them into fields.
    nametypes: FxHashMap<Ustr, &'p ast::Expr>,
    /// Where each qualified name was declared.
    declared_at: FxHashMap<Ustr, Span>,
    /// Where each module and instance was declared, by qualified name:
    /// they share one name space with everything else, as in FDR.
    modules_declared_at: FxHashMap<Ustr, Span>,
    /// The modules and instances in the order declared.
    declared_modules: Vec<Ustr>,
    /// Modules declared in another module's private part, with that
    /// module's prefix.
    private_modules: FxHashMap<Ustr, Ustr>,
    /// Each instance's module, by the instance's qualified name.
    instance_of: FxHashMap<Ustr, (ModuleId, Ustr)>,
    /// Uses of a module's own instance reported, by place (an instance's
    /// body repeats its module's text).
    reported_own_instance: FxHashSet<(u32, u32)>,
    /// The module bodies each global is declared in.
    global_modules: FxHashMap<GlobalId, Vec<(ModuleId, bool)>>,
    /// The names the top-level function being resolved uses so far.
    uses: Vec<Named>,
    /// The qualified names in the order they were declared.
    declared: Vec<Ustr>,
    /// "Did you mean" for unknown names, within its budget.
    suggester: Suggester,
    /// `Timed` sections (by start) whose missing `tock` was reported.
    tock_reported: FxHashSet<u32>,
    /// The names given a type annotation, qualified, where, the
    /// annotation and the module it is written in.
    annotated: Vec<(Ustr, ast::Ident, &'p ast::TypeExpr, Rc<ModuleCtx>)>,
    /// Per binding a pattern bound again (by its id): the error that
    /// says so, by place in `diagnostics`, and how many times.
    repeated_in_pattern: FxHashMap<u32, (usize, usize)>,
    /// The `channel` declarations of several names: each one's place
    /// and names, qualified and as written (one annotation may describe
    /// them all).
    channel_declarations: Vec<(Span, Vec<(Ustr, Ustr)>)>,
    /// The type variables of the annotations of the definitions being
    /// resolved, innermost last.
    type_var_scopes: Vec<FxHashMap<Ustr, TypeVarId>>,
    /// The annotations resolved so far, by place: their problems are
    /// reported once.
    resolved_annotations: FxHashSet<(u32, u32)>,
    /// The modules whose instances are being collected, outermost
    /// first: an instance of one of them inside them would never end.
    instantiating: Vec<&'p ast::Module>,
    /// Instances collected so far, nested ones included.
    instances: usize,
    /// The type annotations checked already, by place (`start`, `end`):
    /// a module's body is collected once per instance, its annotations
    /// checked once.
    checked_annotations: FxHashSet<(u32, u32)>,
    /// Polled once a declaration collected and once a definition
    /// resolved: once it has stopped, the rest is skipped.
    pub ticker: Ticker,
    /// Every parameterised module met, by qualified name, in order: each
    /// gets a generic copy ([`crate::script::generic`]).
    parameterised: Vec<(Ustr, &'p ast::Module)>,
    /// The modules of each cycle of instances reported (once a cycle).
    cycles_reported: FxHashSet<ModuleId>,
    /// The instances (by the place of their module's name) whose module
    /// is declared only after them, refused once.
    out_of_scope_instances: FxHashSet<(u32, u32)>,
    /// Every instance with parameters: its qualified name, its module
    /// and its parameters' constants, in order.
    instance_arguments: Vec<(Ustr, ModuleId, Vec<GlobalId>)>,
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
            module_names: FxHashSet::default(),
            refused_instances: FxHashSet::default(),
            nametypes: FxHashMap::default(),
            declared_at: FxHashMap::default(),
            modules_declared_at: FxHashMap::default(),
            declared_modules: Vec::new(),
            private_modules: FxHashMap::default(),
            instance_of: FxHashMap::default(),
            reported_own_instance: FxHashSet::default(),
            global_modules: FxHashMap::default(),
            uses: Vec::new(),
            declared: Vec::new(),
            suggester: Suggester::default(),
            tock_reported: FxHashSet::default(),
            annotated: Vec::new(),
            channel_declarations: Vec::new(),
            repeated_in_pattern: FxHashMap::default(),
            type_var_scopes: Vec::new(),
            resolved_annotations: FxHashSet::default(),
            instantiating: Vec::new(),
            instances: 0,
            checked_annotations: FxHashSet::default(),
            ticker: Ticker::unlimited(),
            parameterised: Vec::new(),
            out_of_scope_instances: FxHashSet::default(),
            cycles_reported: FxHashSet::default(),
            instance_arguments: Vec::new(),
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
            shown_call: None,
            annotation: None,
            uses: Vec::new(),
        });
        FuncId((self.script.functions.len() - 1) as u32)
    }

    fn new_global(&mut self, name: Ustr, kind: GlobalKind, span: Span) -> Option<GlobalId> {
        let id = GlobalId(self.script.globals.len() as u32);
        if !self.declare(name, Named::Global(id), span) {
            return None;
        }
        self.script.globals.push(Global { name, kind, span });
        self.global_modules.insert(id, self.ctx.modules.clone());
        Some(id)
    }

    /// Registers a top-level name; reports a clash with an earlier one.
    fn declare(&mut self, name: Ustr, named: Named, span: Span) -> bool {
        if let Some(&earlier) = self.modules_declared_at.get(&name) {
            self.diagnostics.push(
                Diagnostic::error(
                    span,
                    format!("`{name}` is already a module or instance; it cannot be defined again"),
                )
                .with_secondary(earlier, "first declared here"),
            );
            return false;
        }
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
        self.script.index.declared(named, span);
        self.script.names.insert(name, named);
        self.declared.push(name);
        true
    }
}

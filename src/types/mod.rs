//! FDR's static type system: every script is type-checked after its
//! names are resolved and before anything is evaluated.
//!
//! Owns types (`ty`: Int, Bool, Char, Proc, Event, sets, sequences,
//! tuples, maps, functions, datatypes and FDR's dotted types `a.b`,
//! `a=>b`, `a=>*b`), the classes Eq, Ord, Complete, Set and Yieldable,
//! unification with FDR's dot rules (`unify`), the scheme of every
//! built-in (`builtins`), inference over the resolved script (`infer`)
//! and its declarations in dependency order with generalisation at the
//! top level (`decl`), and how types and type errors are written
//! (`print`, `checker`). Uses the resolved [`Script`] only: it never
//! evaluates.
//!
//! [`load_file`] and [`load_str`] are how every command and the animator
//! load a script: parsed, resolved and type-checked, or the diagnostics
//! of the first stage that refused it.

mod annotation;
mod builtins;
mod checker;
mod decl;
mod env;
mod infer;
mod order;
mod print;
mod ty;
mod unify;

use crate::budget::{Meter, Stopped};
use crate::script::ir::{ChannelId, CtorId, FuncId, GlobalId, GlobalKind};
use crate::script::{Named, Script};
use crate::syntax::{self, Diagnostic, LoadError, LoadStage, LoadStopped, Program};

use checker::{Checker, State};
use env::{Binding, instantiate};
use order::Decl;
use print::Namer;
use rustc_hash::FxHashSet;
pub use ty::Class;
use ty::atom;

/// The types of a checked script, kept to check expressions added to it
/// later (`symcsp eval`, the process the animator is given) and to show
/// a definition's type.
#[derive(Debug, Clone)]
pub struct Types {
    state: State,
    /// The declarations whose group, or one it uses, has a type error:
    /// their types are not known ([`Types::known_type_of`]). Empty when
    /// the script type-checks.
    unknown: FxHashSet<Decl>,
    /// Whether the script type-checks: no errors anywhere, assertions
    /// and `print`s included.
    complete: bool,
}

/// What an expression added to a checked script must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Any type (`symcsp eval`).
    Any,
    /// A process (`symcsp explore`, the animator).
    Process,
}

/// Type-checks a resolved script: every type error, or its types.
pub fn check(script: &Script) -> Result<Types, Vec<Diagnostic>> {
    match check_within(script, &Meter::unlimited()) {
        Checked::Typed(types) => Ok(*types),
        Checked::Refused(diagnostics, _) => Err(diagnostics),
        Checked::Stopped(stop, _) => Err(vec![Diagnostic::error_nowhere(format!(
            "type checking was {}",
            stop.ended()
        ))]),
    }
}

/// What checking a script's types within a budget came to.
pub enum Checked {
    Typed(Box<Types>),
    /// The errors, and the types of the dependency groups that checked
    /// (FDR's checker takes the groups one by one, in dependency order).
    Refused(Vec<Diagnostic>, Box<Types>),
    /// The budget stopped it, with the errors found before.
    Stopped(Stopped, Vec<Diagnostic>),
}

/// [`check`] within what `meter` allows, polled as inference works.
pub fn check_within(script: &Script, meter: &Meter) -> Checked {
    crate::stack::with_large_stack(|| {
        let mut c = Checker::new(script, State::new(script)).polling(meter);
        // About two nodes an expression.
        c.store.reserve(2 * script.exprs.len());
        let order = order::dependency_order(script);
        let stopped = |c: &Checker| c.ticker.stopped().is_some();
        let mut unknown = FxHashSet::default();
        let mut unknown_groups = vec![false; order.groups.len()];
        for (i, group) in order.groups.iter().enumerate() {
            if stopped(&c) {
                break;
            }
            let failed = c.check_group(group);
            if failed || order.uses[i].iter().any(|&used| unknown_groups[used]) {
                unknown_groups[i] = true;
                unknown.extend(group.iter().copied());
            }
        }
        for i in 0..script.assertions.len() {
            if stopped(&c) {
                break;
            }
            c.check_assertion(i);
        }
        for &print in &script.prints {
            if stopped(&c) {
                break;
            }
            let any = c.store.fresh();
            c.check_constant_as(print, any);
        }
        let stop = c.ticker.stopped();
        let (state, diagnostics) = c.finish();
        match stop {
            Some(stop) => Checked::Stopped(stop, diagnostics),
            None => {
                let complete = diagnostics.is_empty();
                let types = Box::new(Types {
                    state,
                    unknown,
                    complete,
                });
                match complete {
                    true => Checked::Typed(types),
                    false => Checked::Refused(diagnostics, types),
                }
            }
        }
    })
}

impl Types {
    /// Checks `func`, an expression added to `script` after it was
    /// checked ([`Script::add_expr`]), and gives its type as FDR writes
    /// it.
    pub fn check_added(
        &mut self,
        script: &Script,
        func: FuncId,
        expect: Expect,
    ) -> Result<String, Vec<Diagnostic>> {
        let state = std::mem::replace(&mut self.state, State::new(script));
        let (state, diagnostics, written) = crate::stack::with_large_stack(|| {
            let mut c = Checker::new(script, state);
            let expected = match expect {
                Expect::Any => c.store.fresh(),
                Expect::Process => atom::PROC,
            };
            let t = c.check_constant_as(func, expected);
            let mut namer = Namer::default();
            let written = c.printer(&mut namer).scheme(t);
            let (state, diagnostics) = c.finish();
            (state, diagnostics, written)
        });
        self.state = state;
        if diagnostics.is_empty() {
            Ok(written)
        } else {
            Err(diagnostics)
        }
    }

    /// Whether every dependency group of the script checked.
    pub fn complete(&self) -> bool {
        self.complete
    }

    /// The type of a top-level name, constructor or channel as FDR
    /// prints it, when it is known: not when its group, or one it uses,
    /// has a type error.
    pub fn known_type_of(&mut self, script: &Script, named: Named) -> Option<String> {
        if self.unknown.contains(&order::declaration_of(script, named)) {
            return None;
        }
        let t = self.instance_of(script, named);
        if self.state.store.mentions_error(t) {
            return None;
        }
        Some(self.type_of(script, named))
    }

    /// The type of a built-in (`card :: ({a}) -> Int`) as FDR prints it.
    pub fn builtin_type(
        &mut self,
        script: &Script,
        builtin: crate::script::builtins::Builtin,
    ) -> String {
        let scheme = builtins::scheme(&mut self.state.store, builtin);
        let t = instantiate(&mut self.state.store, &Binding::Poly(scheme));
        self.written_scheme(script, t)
    }

    /// The type of the top-level name `name` (`f`, `M::x`, a channel or
    /// a constructor), as FDR's `:type` writes it.
    pub fn of_name(&mut self, script: &Script, name: &str) -> Option<String> {
        let named = script.lookup(name)?;
        Some(self.type_of(script, named))
    }

    /// The type of a top-level name, constructor or channel, as FDR
    /// prints it.
    pub fn type_of(&mut self, script: &Script, named: Named) -> String {
        let t = self.instance_of(script, named);
        self.written_scheme(script, t)
    }

    /// `t` written as FDR writes a scheme, its variables named afresh.
    fn written_scheme(&mut self, script: &Script, t: ty::TyId) -> String {
        let mut namer = Namer::default();
        let mut printer = print::Printer {
            store: &mut self.state.store,
            script,
            namer: &mut namer,
        };
        printer.scheme(t)
    }

    /// A fresh instance of a top-level name's type.
    fn instance_of(&mut self, script: &Script, named: Named) -> ty::TyId {
        let binding = match named {
            Named::Global(g) => match script.globals[g.index()].kind {
                GlobalKind::DataType(d) => {
                    let data = self.state.store.add(ty::Ty::Data(d));
                    Binding::Mono(self.state.store.set(data))
                }
                _ => self.state.env.global(g).clone(),
            },
            Named::Ctor(c) => self.state.env.ctor(c).clone(),
            Named::Channel(c) => self.state.env.channel(c).clone(),
        };
        instantiate(&mut self.state.store, &binding)
    }

    /// The type of variable `id` (a binding number of the script's name
    /// index) where its function was checked, as FDR prints types: `s ::
    /// <Int>` in `Spec(s)`, `a` for a variable of a function generic in
    /// it. `None` for a variable of a function never checked (in a
    /// module never instantiated).
    pub fn variable_type(&mut self, script: &Script, id: u32) -> Option<String> {
        let slot = script.index.slot(id)?;
        let t = *self.state.variables.get(&slot)?;
        if self.state.store.mentions_error(t) {
            return None;
        }
        let mut namer = Namer::default();
        let mut printer = print::Printer {
            store: &mut self.state.store,
            script,
            namer: &mut namer,
        };
        Some(printer.ty(t))
    }

    /// How many arguments definition `global` takes to give a process:
    /// `Some(0)` for a process, `Some(n)` for a function of `n`
    /// arguments (one bracket) giving one, `None` otherwise.
    pub fn process_arity(&mut self, global: GlobalId) -> Option<usize> {
        let binding = self.state.env.global(global).clone();
        let t = instantiate(&mut self.state.store, &binding);
        match self.state.store.view(t).1 {
            ty::Ty::Proc => Some(0),
            ty::Ty::Fun(args, result) if self.state.store.head(result) == atom::PROC => {
                Some(args.len())
            }
            _ => None,
        }
    }

    /// Every name the script declares, with its type, in the order the
    /// script writes them (the names symcsp makes for itself aside).
    pub fn declared(&mut self, script: &Script) -> Vec<(String, String)> {
        let mut names: Vec<(u32, &str, Named)> = Vec::new();
        for (i, global) in script.globals.iter().enumerate() {
            let user = matches!(
                global.kind,
                GlobalKind::Definition(_)
                    | GlobalKind::DataType(_)
                    | GlobalKind::NameType(_)
                    | GlobalKind::SubType(_)
            ) && script.lookup(&global.name) == Some(Named::Global(GlobalId(i as u32)));
            if user && !script.is_generated(global.span) && !global.name.contains('$') {
                names.push((
                    global.span.start,
                    &global.name,
                    Named::Global(GlobalId(i as u32)),
                ));
            }
        }
        for (i, ctor) in script.ctors.iter().enumerate() {
            names.push((ctor.span.start, &ctor.name, Named::Ctor(CtorId(i as u32))));
        }
        for (i, channel) in script.channels.iter().enumerate() {
            names.push((
                channel.span.start,
                &channel.name,
                Named::Channel(ChannelId(i as u32)),
            ));
        }
        names.sort_by_key(|&(start, ..)| start);
        names
            .into_iter()
            .map(|(_, name, named)| (name.to_string(), self.type_of(script, named)))
            .collect()
    }
}

/// A script parsed, resolved and type-checked.
#[derive(Debug)]
pub struct Loaded {
    pub script: Script,
    pub types: Types,
}

impl Loaded {
    /// Adds `text` as an expression in the script's top-level scope
    /// ([`Script::add_expr`]) and type-checks it: a process where
    /// `expect` asks for one.
    pub fn add_expr(
        &mut self,
        name: &str,
        text: &str,
        expect: Expect,
    ) -> Result<FuncId, Vec<Diagnostic>> {
        let func = self.script.add_expr(name, text)?;
        self.types.check_added(&self.script, func, expect)?;
        Ok(func)
    }
}

/// Resolves and type-checks a parsed program.
pub fn load_program(program: Program) -> Result<Loaded, LoadError> {
    load_program_within(program, &Meter::unlimited())
}

/// [`load_program`] within what `meter` allows.
pub fn load_program_within(program: Program, meter: &Meter) -> Result<Loaded, LoadError> {
    let mut script = Script::resolve_within(program, meter)?;
    let checked = check_within(&script, meter);
    script.drop_generic_copies();
    match checked {
        Checked::Typed(mut types) => {
            types.state.trim_to(&script);
            Ok(Loaded {
                script,
                types: *types,
            })
        }
        Checked::Refused(diagnostics, _) => Err(LoadError::refused(script.sources, diagnostics)),
        Checked::Stopped(reason, diagnostics) => Err(LoadError {
            sources: script.sources,
            diagnostics,
            stopped: Some(LoadStopped {
                reason,
                stage: LoadStage::TypeChecking,
            }),
        }),
    }
}

/// Reads, parses, resolves and type-checks the script at `path`.
pub fn load_file(path: &std::path::Path) -> Result<Loaded, LoadError> {
    load_file_within(path, &Meter::unlimited())
}

/// [`load_file`] within what `meter` allows (the time-out, the memory
/// budget, a cancel) in each stage: parsing, resolving and type
/// checking. A stop is a [`LoadError`] that says where it stopped.
pub fn load_file_within(path: &std::path::Path, meter: &Meter) -> Result<Loaded, LoadError> {
    load_program_within(syntax::load_file_within(path, meter)?, meter)
}

/// Parses, resolves and type-checks `text` as the script at `path`,
/// reading the files in `open` from there instead of the disk (an
/// editor's buffers: [`syntax::load_text_at_within`]).
pub fn load_text_at_within(
    path: &std::path::Path,
    text: &str,
    open: &syntax::OpenFiles,
    meter: &Meter,
) -> Result<Loaded, LoadError> {
    load_program_within(syntax::load_text_at_within(path, text, open, meter)?, meter)
}

/// A script as far as it loads, for an editor: every diagnostic of the
/// stage that refused it (or none), the script once its names resolved
/// (with mistakes or not, [`Script::resolve_as_far_as_within`]), and the
/// types of the dependency groups that check.
pub struct Analysis {
    /// Shared with the checks an editor starts.
    pub script: Option<std::sync::Arc<Script>>,
    /// Once the names resolve: complete when the script type-checks.
    pub types: Option<Types>,
    pub diagnostics: Vec<Diagnostic>,
    /// Why a budget (an edit cancelling it, say) stopped the load.
    pub stopped: Option<LoadStopped>,
    /// The sources, when no script resolved to hold them.
    unresolved: Option<syntax::SourceMap>,
}

impl Analysis {
    /// Whether the script loads: its names resolve and it type-checks.
    pub fn type_checks(&self) -> bool {
        self.types.as_ref().is_some_and(Types::complete)
    }

    /// The files the diagnostics and the script point into.
    pub fn sources(&self) -> &syntax::SourceMap {
        match (&self.script, &self.unresolved) {
            (Some(script), _) => &script.sources,
            (None, Some(sources)) => sources,
            (None, None) => unreachable!("an analysis holds its sources"),
        }
    }
}

/// [`load_text_at_within`] going as far as it can: what an editor shows.
pub fn analyse_text_at_within(
    path: &std::path::Path,
    text: &str,
    open: &syntax::OpenFiles,
    meter: &Meter,
) -> Analysis {
    let program = match syntax::load_text_at_within(path, text, open, meter) {
        Ok(program) => program,
        Err(error) => {
            return Analysis {
                script: None,
                types: None,
                diagnostics: error.diagnostics,
                stopped: error.stopped,
                unresolved: Some(error.sources),
            };
        }
    };
    let (mut script, diagnostics, stopped) = Script::resolve_as_far_as_within(program, meter);
    let stopped_at = |stage| move |reason| LoadStopped { reason, stage };
    if !diagnostics.is_empty() || stopped.is_some() {
        script.drop_generic_copies();
        return Analysis {
            script: Some(std::sync::Arc::new(script)),
            types: None,
            diagnostics,
            stopped: stopped.map(stopped_at(LoadStage::Resolving)),
            unresolved: None,
        };
    }
    let (mut types, diagnostics, stopped) = match check_within(&script, meter) {
        Checked::Typed(types) => (Some(*types), Vec::new(), None),
        Checked::Refused(diagnostics, types) => (Some(*types), diagnostics, None),
        Checked::Stopped(reason, diagnostics) => (None, diagnostics, Some(reason)),
    };
    script.drop_generic_copies();
    if let Some(types) = &mut types {
        types.state.trim_to(&script);
    }
    Analysis {
        script: Some(std::sync::Arc::new(script)),
        types,
        diagnostics,
        stopped: stopped.map(stopped_at(LoadStage::TypeChecking)),
        unresolved: None,
    }
}

/// Parses, resolves and type-checks a script given as text.
pub fn load_str(name: &str, text: &str) -> Result<Loaded, LoadError> {
    load_str_within(name, text, &Meter::unlimited())
}

/// [`load_str`] within what `meter` allows.
pub fn load_str_within(name: &str, text: &str, meter: &Meter) -> Result<Loaded, LoadError> {
    load_program_within(syntax::load_str_within(name, text, meter)?, meter)
}

//! A loaded script: every name resolved, datatypes, channels and
//! assertions collected.
//!
//! Owns name resolution and the resolved form ([`ir`]) that evaluation and
//! the process layer run; reports unknown names, duplicate definitions,
//! clauses of different arity and constructors defined as variables. It
//! knows what names *are*, not what they evaluate to: values belong to the
//! `eval` layer.

pub mod builtins;
pub mod generic;
pub mod graph;
pub mod index;
pub mod ir;
mod mentions;
mod resolve;
pub(crate) mod suggest;
mod timed;

use rustc_hash::{FxHashMap, FxHashSet};
use ustr::Ustr;

use crate::budget::{Meter, Ticker};
use crate::syntax::{self, Diagnostic, LoadError, Program, SourceMap};

use builtins::Builtin;
use ir::*;

/// What a top-level name denotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Global(GlobalId),
    Ctor(CtorId),
    Channel(ChannelId),
}

/// A resolved script.
#[derive(Debug)]
pub struct Script {
    pub sources: SourceMap,
    pub exprs: Vec<Expr>,
    pub functions: Vec<Function>,
    pub globals: Vec<Global>,
    pub datatypes: Vec<DataType>,
    pub ctors: Vec<Constructor>,
    pub channels: Vec<Channel>,
    pub assertions: Vec<Assertion>,
    /// The `print` declarations, in order.
    pub prints: Vec<FuncId>,
    /// The type variables of every type annotation.
    pub type_vars: Vec<TypeVar>,
    /// The built-ins an `external` or `transparent` declaration made
    /// visible (to the script and to what is added to it later).
    pub imported: FxHashSet<Builtin>,
    /// `Timed(...) { }` sections (translated to untimed CSP before names
    /// are resolved).
    pub timed: Vec<TimedSection>,
    /// Where each name is declared and used ([`index`]).
    pub index: index::NameIndex,
    /// The parameterised modules' copies for the type checker, until
    /// [`Script::drop_generic_copies`] ([`generic`]).
    pub generic: Option<generic::GenericCopies>,
    /// Every top-level name, qualified by its modules.
    names: FxHashMap<Ustr, Named>,
    /// Names declared in a module's private part, with the module prefix.
    private: FxHashMap<Ustr, Ustr>,
    builtin_globals: FxHashMap<Builtin, GlobalId>,
}

impl Script {
    fn empty(sources: SourceMap) -> Script {
        Script {
            sources,
            exprs: Vec::new(),
            functions: Vec::new(),
            globals: Vec::new(),
            datatypes: Vec::new(),
            ctors: Vec::new(),
            channels: Vec::new(),
            assertions: Vec::new(),
            prints: Vec::new(),
            type_vars: Vec::new(),
            imported: FxHashSet::default(),
            timed: Vec::new(),
            index: index::NameIndex::default(),
            generic: None,
            names: FxHashMap::default(),
            private: FxHashMap::default(),
            builtin_globals: FxHashMap::default(),
        }
    }

    /// Resolves a parsed program, for use without type checking (its
    /// generic copies dropped, [`generic`]).
    pub fn resolve(program: Program) -> Result<Script, LoadError> {
        let mut script = Script::resolve_within(program, &Meter::unlimited())?;
        script.drop_generic_copies();
        Ok(script)
    }

    /// [`Script::resolve`] within what `meter` allows, polled between
    /// declarations, the generic copies kept for the type checker.
    pub fn resolve_within(program: Program, meter: &Meter) -> Result<Script, LoadError> {
        let (script, diagnostics, stopped) = Script::resolve_as_far_as_within(program, meter);
        match stopped {
            Some(reason) => Err(LoadError {
                sources: script.sources,
                diagnostics,
                stopped: Some(syntax::LoadStopped {
                    reason,
                    stage: syntax::LoadStage::Resolving,
                }),
            }),
            None if diagnostics.is_empty() => Ok(script),
            None => Err(LoadError::refused(script.sources, diagnostics)),
        }
    }

    /// Resolves what it can of `program`, mistakes or not: the script as
    /// far as it resolved (its names and [`index`] whole where they
    /// resolved), the errors, and why a budget stopped it if one did.
    /// What an editor shows of a script it is being written.
    pub fn resolve_as_far_as_within(
        program: Program,
        meter: &Meter,
    ) -> (Script, Vec<Diagnostic>, Option<crate::budget::Stopped>) {
        let Program {
            sources,
            mut files,
            root,
        } = program;
        let source_bytes: usize = sources.files().map(|(_, f)| f.text.len()).sum();
        let mut script = Script::empty(sources);
        // Room for an expression every eight bytes of source and a
        // function every thirty-two (scripts without comments have about
        // twice as many), so that the tables seldom grow; room not used
        // is never touched, so it costs no memory.
        script.exprs.reserve(source_bytes / 8);
        script.functions.reserve(source_bytes / 32);
        let (diagnostics, stopped) = crate::stack::with_large_stack(|| {
            if let Err(d) = timed::translate(&mut files, root as usize, &mut script.sources) {
                return (d, None);
            }
            let mut resolver = resolve::Resolver::new(&mut script, &files);
            resolver.ticker = Ticker::new(meter.clone(), syntax::LOAD_POLL_EVERY);
            resolver.resolve_program(&files[root as usize].decls);
            resolver.script.index.finish();
            (resolver.diagnostics, resolver.ticker.stopped())
        });
        drop_parsed(files, source_bytes);
        (script, diagnostics, stopped)
    }

    /// Reads, parses and resolves the script at `path`.
    pub fn load_file(path: &std::path::Path) -> Result<Script, LoadError> {
        Script::resolve(syntax::load_file(path)?)
    }

    /// Whether `span` lies in what symcsp wrote rather than the user: the
    /// timed processes a `Timed` section's translation uses.
    pub fn is_generated(&self, span: syntax::Span) -> bool {
        self.sources.file(self.sources.file_of(span)).name == timed::HELPERS_FILE
    }

    /// Parses and resolves a script given as text.
    pub fn load_str(name: &str, text: &str) -> Result<Script, LoadError> {
        Script::resolve(syntax::load_str(name, text)?)
    }

    /// Parses `text` as an expression in the script's top-level scope and
    /// resolves it into a new constant, to evaluate. Its source is added
    /// to [`Script::sources`] as `name`.
    pub fn add_expr(&mut self, name: &str, text: &str) -> Result<FuncId, Vec<Diagnostic>> {
        let funcs = self.add_exprs(name, text, std::slice::from_ref(&(0..text.len())))?;
        Ok(funcs[0])
    }

    /// Parses the pieces of `text` lying at `pieces` as expressions, as
    /// [`Script::add_expr`] does one, `text` added once as `name` so
    /// that a problem points at its place in the whole text.
    pub fn add_exprs(
        &mut self,
        name: &str,
        text: &str,
        pieces: &[std::ops::Range<usize>],
    ) -> Result<Vec<FuncId>, Vec<Diagnostic>> {
        let file = self.sources.add(name, None, text.to_string(), None);
        let base = self.sources.base(file);
        let mut exprs = Vec::with_capacity(pieces.len());
        for piece in pieces {
            exprs.push(syntax::parse_expr(
                base + piece.start as u32,
                &text[piece.clone()],
            )?);
        }
        crate::stack::with_large_stack(|| {
            let mut resolver = resolve::Resolver::new(self, &[]);
            let funcs = exprs.iter().map(|e| resolver.top_expr(e)).collect();
            if resolver.diagnostics.is_empty() {
                Ok(funcs)
            } else {
                Err(resolver.diagnostics)
            }
        })
    }

    /// The top-level name `name` (qualified as written: `M::x`).
    pub fn lookup(&self, name: &str) -> Option<Named> {
        self.names.get(&Ustr::from_existing(name)?).copied()
    }

    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id.index()]
    }

    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    /// The global standing for a built-in (made on first use).
    fn builtin_global(&mut self, builtin: Builtin) -> GlobalId {
        if let Some(&g) = self.builtin_globals.get(&builtin) {
            return g;
        }
        let g = GlobalId(self.globals.len() as u32);
        self.globals.push(Global {
            name: Ustr::from(builtin.name()),
            kind: GlobalKind::Builtin(builtin),
            span: syntax::Span::default(),
        });
        self.builtin_globals.insert(builtin, g);
        g
    }

    /// Adds to `out` every global that function `func` (and the functions
    /// it creates) refers to.
    pub fn globals_used(&self, func: FuncId, out: &mut FxHashSet<GlobalId>) {
        let mut seen_functions = FxHashSet::default();
        let mut functions = vec![func];
        while let Some(f) = functions.pop() {
            if !seen_functions.insert(f) {
                continue;
            }
            let mut exprs: Vec<ExprId> = self.function(f).clauses.iter().map(|c| c.body).collect();
            while let Some(e) = exprs.pop() {
                let kind = &self.expr(e).kind;
                if let ExprKind::Global(g) = kind {
                    out.insert(*g);
                }
                if let ExprKind::Let(groups, _) = kind {
                    for group in groups {
                        if let LetGroup::Lazy { func, .. } = group {
                            functions.push(*func);
                        }
                    }
                }
                functions.extend(kind.nested_function());
                kind.for_each_child(|child| exprs.push(child));
            }
        }
    }
}

/// Scripts of more source bytes than this have their parsed files freed
/// on a thread of their own.
const FREE_LATER_BYTES: usize = 64 << 10;

/// Frees the parsed files of a script of `source_bytes` bytes once it is
/// resolved: a large one on a thread of its own ([`drop_later`](crate::budget::drop_later): freeing
/// its tree takes a tenth of resolving it, and an editor's diagnostics
/// need not wait for it), a small one here.
fn drop_parsed(files: Vec<syntax::ast::File>, source_bytes: usize) {
    if source_bytes > FREE_LATER_BYTES {
        crate::budget::drop_later(files);
    }
}

//! The generic copy of each parameterised module, for the type checker.
//!
//! An instance's body is the module's body collected again with the
//! parameters bound to the arguments (`resolve/modules.rs`), which is
//! what evaluation needs. FDR type-checks a module once, its parameters'
//! types unknown, whether it is instantiated or not, and checks each
//! instance's arguments against the parameters' types at the instance.
//! So the resolver collects every parameterised module's body once more,
//! under the module's own name, its parameters bound to nothing: the
//! checker keeps their types monomorphic while it checks the copy
//! (`types/decl.rs`), then checks each instance's arguments against them,
//! instantiated afresh.
//!
//! The copies serve only the checker. They are resolved after everything
//! else, so they stand at the end of every arena, and
//! [`Script::drop_generic_copies`] cuts them off once the checker is done
//! (or at once, for a script that is not type-checked): nothing else ever
//! sees them. The name index records their names only in the bodies of
//! modules never instantiated, as variables ([`NameIndex::adopt_uninstantiated`]).
//!
//! [`NameIndex::adopt_uninstantiated`]: super::index::NameIndex

use rustc_hash::FxHashMap;
use ustr::Ustr;

use super::ir::{ChannelId, CtorId, GlobalId};
use super::{Named, Script};

/// The lengths of the script's arenas before the copies.
#[derive(Debug, Clone, Copy, Default)]
pub struct Marks {
    exprs: usize,
    functions: usize,
    globals: usize,
    datatypes: usize,
    ctors: usize,
    channels: usize,
    type_vars: usize,
    timed: usize,
}

impl Marks {
    pub(super) fn of(script: &Script) -> Marks {
        Marks {
            exprs: script.exprs.len(),
            functions: script.functions.len(),
            globals: script.globals.len(),
            datatypes: script.datatypes.len(),
            ctors: script.ctors.len(),
            channels: script.channels.len(),
            type_vars: script.type_vars.len(),
            timed: script.timed.len(),
        }
    }
}

/// An instance whose arguments are checked against its module's
/// parameters.
#[derive(Debug, Clone)]
pub struct InstanceArguments {
    /// The instance's qualified name, for the message.
    pub name: Ustr,
    /// Each parameter of the instance (a constant whose definition is the
    /// argument) with the generic copy's parameter in its place.
    pub params: Vec<(GlobalId, GlobalId)>,
    /// The generic copy's globals, checked before the arguments.
    pub copy: std::ops::Range<u32>,
}

/// The generic copies of a script's parameterised modules.
#[derive(Debug, Clone, Default)]
pub struct GenericCopies {
    pub(super) from: Marks,
    /// The copies' parameters, by global: their types stay monomorphic.
    pub params: Vec<GlobalId>,
    pub instances: Vec<InstanceArguments>,
    /// Each instance parameter: its instance and its place among the
    /// instance's parameters.
    pub of_argument: FxHashMap<GlobalId, (u32, u32)>,
}

impl GenericCopies {
    /// Whether `g` is declared by a copy (its parameters included).
    pub fn holds(&self, g: GlobalId) -> bool {
        g.index() >= self.from.globals
    }

    /// Whether constructor `c` is declared by a copy.
    pub fn holds_ctor(&self, c: CtorId) -> bool {
        c.index() >= self.from.ctors
    }

    /// Whether channel `c` is declared by a copy.
    pub fn holds_channel(&self, c: ChannelId) -> bool {
        c.index() >= self.from.channels
    }

    /// Whether `g` is a copy's parameter.
    pub fn is_parameter(&self, g: GlobalId) -> bool {
        self.holds(g) && self.params.binary_search(&g).is_ok()
    }
}

impl Script {
    /// Removes the generic copies of parameterised modules (once they
    /// are type-checked, or at once): every arena cut at its length
    /// before them, their names forgotten.
    pub fn drop_generic_copies(&mut self) {
        let Some(copies) = self.generic.take() else {
            return;
        };
        let from = copies.from;
        self.exprs.truncate(from.exprs);
        self.functions.truncate(from.functions);
        self.globals.truncate(from.globals);
        self.datatypes.truncate(from.datatypes);
        self.ctors.truncate(from.ctors);
        self.channels.truncate(from.channels);
        self.type_vars.truncate(from.type_vars);
        self.timed.truncate(from.timed);
        let mut dropped = Vec::new();
        self.names.retain(|name, named| {
            let kept = match *named {
                Named::Global(g) => g.index() < from.globals,
                Named::Ctor(c) => c.index() < from.ctors,
                Named::Channel(c) => c.index() < from.channels,
            };
            if !kept {
                dropped.push(*name);
            }
            kept
        });
        for name in dropped {
            self.private.remove(&name);
        }
        self.builtin_globals.retain(|_, g| g.index() < from.globals);
    }
}

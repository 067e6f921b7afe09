//! What each name's type is: monomorphic while its declaration group is
//! checked, a scheme (`∀ a. Eq a => (a, a) -> Bool`) once the group is
//! generalised, and the error type once it was found ill-typed.

use rustc_hash::FxHashMap;

use crate::script::builtins::Builtin;
use crate::script::ir::{ChannelId, CtorId, FuncId, GlobalId};

use super::ty::{Store, Ty, TyId, atom};

pub use super::ty::Scheme;

/// A name's type as inference knows it.
#[derive(Debug, Clone)]
pub enum Binding {
    /// Not checked yet: met only when a name is used before its group
    /// (which dependency order rules out), read as the error type.
    Unchecked,
    /// Being inferred: every use shares this type.
    Mono(TyId),
    /// Inferred: each use gets a fresh copy.
    Poly(Scheme),
}

/// The types of every name of a script.
#[derive(Debug, Default, Clone)]
pub struct Env {
    pub globals: Vec<Binding>,
    pub ctors: Vec<Binding>,
    pub channels: Vec<Binding>,
    /// Members of recursive `let` groups and annotated `let` constants.
    pub members: FxHashMap<FuncId, Binding>,
    builtins: FxHashMap<Builtin, Scheme>,
}

impl Env {
    pub fn new(globals: usize, ctors: usize, channels: usize) -> Env {
        Env {
            globals: vec![Binding::Unchecked; globals],
            ctors: vec![Binding::Unchecked; ctors],
            channels: vec![Binding::Unchecked; channels],
            ..Env::default()
        }
    }

    pub fn global(&self, g: GlobalId) -> &Binding {
        self.globals.get(g.index()).unwrap_or(&Binding::Unchecked)
    }

    pub fn set_global(&mut self, g: GlobalId, binding: Binding) {
        if g.index() >= self.globals.len() {
            self.globals.resize(g.index() + 1, Binding::Unchecked);
        }
        self.globals[g.index()] = binding;
    }

    pub fn ctor(&self, c: CtorId) -> &Binding {
        self.ctors.get(c.index()).unwrap_or(&Binding::Unchecked)
    }

    pub fn channel(&self, c: ChannelId) -> &Binding {
        self.channels.get(c.index()).unwrap_or(&Binding::Unchecked)
    }

    pub fn builtin(&mut self, store: &mut Store, builtin: Builtin) -> Scheme {
        self.builtins
            .entry(builtin)
            .or_insert_with(|| super::builtins::scheme(store, builtin))
            .clone()
    }
}

/// A fresh copy of `binding`'s type.
pub fn instantiate(store: &mut Store, binding: &Binding) -> TyId {
    match binding {
        Binding::Unchecked => atom::ERROR,
        Binding::Mono(t) => *t,
        Binding::Poly(scheme) => instantiate_scheme(store, scheme),
    }
}

pub fn instantiate_scheme(store: &mut Store, scheme: &Scheme) -> TyId {
    if scheme.vars.is_empty() {
        return scheme.body;
    }
    let mapping = fresh_for(store, &scheme.vars);
    store.substitute(scheme.body, &mapping)
}

/// Each of `vars` with a fresh variable of its classes.
fn fresh_for(store: &mut Store, vars: &[TyId]) -> Vec<(TyId, TyId)> {
    vars.iter()
        .map(|&v| {
            let classes = match store.node(v) {
                Ty::Var(c) | Ty::Rigid(_, c) => c,
                _ => Default::default(),
            };
            (v, store.var(classes))
        })
        .collect()
}

/// Fresh copies of `types`, their variables renamed alike: a variable
/// they share is one fresh variable in all the copies.
pub fn instantiate_together(store: &mut Store, types: &[TyId]) -> Vec<TyId> {
    let mut vars = Vec::new();
    for &t in types {
        store.free_vars(t, &mut vars);
    }
    vars.sort_unstable();
    vars.dedup();
    let mapping = fresh_for(store, &vars);
    types
        .iter()
        .map(|&t| store.substitute(t, &mapping))
        .collect()
}

/// `t` with every variable not in `keep` quantified.
pub fn generalise(store: &mut Store, t: TyId, keep: &[TyId]) -> Scheme {
    let mut vars = Vec::new();
    store.free_vars(t, &mut vars);
    vars.retain(|v| !keep.contains(v));
    Scheme { vars, body: t }
}

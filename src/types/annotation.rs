//! Type annotations as types: each variable an annotation introduces is
//! a *rigid* variable (it stands for every type, so the definition must
//! work for all of them), with the classes the annotation gives it.

use crate::script::ir::{Annotation, TypeSig};

use super::checker::Checker;
use super::ty::{Class, Classes, Ty, TyId, atom};

impl Checker<'_> {
    /// The type annotation `a` stands for, its variables made rigid.
    pub fn annotation_type(&mut self, a: &Annotation) -> TyId {
        let script = self.script;
        for &id in &a.binds {
            let var = &script.type_vars[id.index()];
            let classes: Vec<Class> = var
                .classes
                .iter()
                .filter_map(|c| Class::from_name(c))
                .collect();
            let rigid = self
                .store
                .rigid(var.name, var.bound_at, Classes::of(&classes));
            self.rigids.insert(id, rigid);
        }
        self.signature(&a.ty)
    }

    fn signature(&mut self, sig: &TypeSig) -> TyId {
        match sig {
            TypeSig::Int => atom::INT,
            TypeSig::Bool => atom::BOOL,
            TypeSig::Char => atom::CHAR,
            TypeSig::Proc => atom::PROC,
            TypeSig::Event => atom::EVENT,
            TypeSig::Data(d) => self.store.add(Ty::Data(*d)),
            TypeSig::Var(id) => self.rigid_of(*id),
            TypeSig::Set(inner) => {
                let inner = self.signature(inner);
                self.store.set(inner)
            }
            TypeSig::Seq(inner) => {
                let inner = self.signature(inner);
                self.store.seq(inner)
            }
            TypeSig::Map(k, v) => {
                let (k, v) = (self.signature(k), self.signature(v));
                self.store.add(Ty::Map(k, v))
            }
            TypeSig::Tuple(parts) => {
                let parts: Vec<TyId> = parts.iter().map(|p| self.signature(p)).collect();
                self.store.tuple(&parts)
            }
            TypeSig::Dot(parts) => {
                let parts: Vec<TyId> = parts.iter().map(|p| self.signature(p)).collect();
                self.store.dots_right(&parts)
            }
            TypeSig::Fun(args, result) => {
                let args: Vec<TyId> = args.iter().map(|p| self.signature(p)).collect();
                let result = self.signature(result);
                self.store.fun(&args, result)
            }
            TypeSig::Dotable(a, b) => {
                let (a, b) = (self.signature(a), self.signature(b));
                self.store.dotable(a, b)
            }
            TypeSig::Extendable(var, result) => {
                let result = self.signature(result);
                let pointer = self.rigid_of(*var);
                self.store.add(Ty::Extendable(result, pointer))
            }
        }
    }

    /// The rigid variable standing for type variable `id` (one an
    /// enclosing annotation introduced, or a fresh one where the
    /// annotation could not be resolved).
    fn rigid_of(&mut self, id: crate::script::ir::TypeVarId) -> TyId {
        match self.rigids.get(&id) {
            Some(&t) => t,
            None => {
                let var = &self.script.type_vars[id.index()];
                let t = self.store.rigid(var.name, var.bound_at, Classes::NONE);
                self.rigids.insert(id, t);
                t
            }
        }
    }
}

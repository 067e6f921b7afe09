//! The types of collections written out: tuples, sequences, sets and
//! maps, ranges, comprehensions, productions, and the dotted and tupled
//! types of declarations.

use crate::script::ir::{ExprId, ExprKind};

use super::super::checker::Checker;
use super::super::ty::{Class, Classes, Ty, TyId, atom};
use super::Source;

impl Checker<'_> {
    /// The type of the collection `e` (each element checked against the
    /// others).
    pub(super) fn infer_collection(&mut self, e: ExprId) -> TyId {
        let script = self.script;
        let expr = &script.expr(e).kind;
        use ExprKind as E;
        match expr {
            E::Tuple(es) => {
                let parts: Vec<TyId> = es.iter().map(|&e| self.check(e)).collect();
                self.store.tuple(&parts)
            }
            E::Seq(es) => {
                let element = self.same_types(es);
                self.store.seq(element)
            }
            E::SeqRange(a, b) | E::SetRange(a, b) => {
                self.expect(*a, atom::INT);
                if let Some(b) = b {
                    self.expect(*b, atom::INT);
                }
                match expr {
                    E::SeqRange(..) => self.store.seq(atom::INT),
                    _ => self.store.set(atom::INT),
                }
            }
            E::SeqComprehension(es, stmts) => {
                self.check_stmts(stmts, Source::Seq);
                let element = self.same_types(es);
                self.store.seq(element)
            }
            E::Set(es) => {
                let element = self.store.var(Classes::of(&[Class::Set]));
                for &e in es {
                    self.expect(e, element);
                }
                self.store.set(element)
            }
            E::SetComprehension(es, stmts) => {
                self.check_stmts(stmts, Source::Set);
                let element = self.store.var(Classes::of(&[Class::Set]));
                for &e in es {
                    self.expect(e, element);
                }
                self.store.set(element)
            }
            E::Production(es, stmts) => {
                self.check_stmts(stmts, Source::Set);
                let element = self.store.var(Classes::of(&[Class::Yieldable]));
                for &e in es {
                    let pointer = self.store.fresh();
                    let extendable = self.store.add(Ty::Extendable(element, pointer));
                    self.expect(e, extendable);
                }
                self.store.set(element)
            }
            E::Map(pairs) => {
                let keys: Vec<ExprId> = pairs.iter().map(|p| p.0).collect();
                let values: Vec<ExprId> = pairs.iter().map(|p| p.1).collect();
                let k = self.same_types(&keys);
                let v = self.same_types(&values);
                self.store.add(Ty::Map(k, v))
            }
            E::TypeDot(parts) => {
                let parts: Vec<TyId> = parts.iter().map(|&p| self.check(p)).collect();
                self.store.dots_right(&parts)
            }
            E::TypeTuple(parts) => {
                let parts: Vec<TyId> = parts.iter().map(|&p| self.check(p)).collect();
                self.store.tuple(&parts)
            }
            _ => unreachable!("not a collection"),
        }
    }
}

//! Unification, class constraints, and FDR's rules for dotted types.
//!
//! `unify(expected, actual)` makes two types equal or reports why not.
//! Most cases are Hindley–Milner's; the dotted ones follow FDR's front
//! end, because scripts rely on exactly what it accepts:
//!
//! - `x.y` matched against an event or a datatype value makes `x` a
//!   value that, dotted with a `y`, gives one (`Dot(x, y)` against
//!   `Event` unifies `x` with `y=>Event`);
//! - two dotted values are matched field by field ([`Checker::combine`]),
//!   a value still waiting for fields (`a=>b`) swallowing as many of the
//!   other side's fields as it needs;
//! - working out a dotted type ([`Checker::evaluate_dots`]) applies a
//!   value waiting for fields to the fields after it; a variable in the
//!   last place takes every remaining field (FDR's longest match), or
//!   only the first where the expected type is a value of unknown
//!   length (shortest match, [`Match::Shortest`]);
//! - `p=>*b` (an `Extendable`, what `{| c |}` and renaming need of `c`)
//!   matches `b` itself (no fields) or `a=>p'=>*b`, recording the fields
//!   in its pointer `p`.

use super::checker::{Checker, Equality, Inferred};
use super::ty::{Class, Classes, Ty, TyId, atom};
use crate::script::ir::DataTypeId;

/// How a variable in the last place of a dotted type is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// It takes every remaining field.
    Longest,
    /// It takes one field.
    Shortest,
}

impl Checker<'_> {
    /// Makes `expected` and `actual` one type, or reports why they
    /// cannot be.
    pub fn unify(&mut self, expected: TyId, actual: TyId) -> Inferred {
        self.tick()?;
        let expected = self.store.head(expected);
        let actual = self.store.head(actual);
        if expected == actual {
            return Ok(expected);
        }
        self.pairs.push((expected, actual));
        let result = self.unify_heads(expected, actual);
        self.pairs.pop();
        result
    }

    /// `expected` must have the classes `classes` (FDR unifies with a
    /// fresh variable of those classes, and so do its messages).
    pub fn ensure_classes(&mut self, classes: &[Class], t: TyId) -> Inferred {
        let v = self.store.var(Classes::of(classes));
        self.unify(v, t)
    }

    /// Unifies two types, neither of them a link: the type both are.
    fn unify_heads(&mut self, a: TyId, b: TyId) -> Inferred {
        use Ty::*;
        match (self.store.node(a), self.store.node(b)) {
            (Error, _) => Ok(b),
            (_, Error) => Ok(a),
            (Var(_) | Rigid(..), _) | (_, Var(_) | Rigid(..)) => self.unify_variables(a, b),
            (Dot(..) | Dotable(..) | Extendable(..), _)
            | (_, Dot(..) | Dotable(..) | Extendable(..)) => self.unify_dotted(a, b),
            _ => self.unify_structures(a, b),
        }
    }

    /// Unifies two types one of which is a variable, flexible or rigid:
    /// the other must have the classes it asks for.
    fn unify_variables(&mut self, a: TyId, b: TyId) -> Inferred {
        use Ty::*;
        match (self.store.node(a), self.store.node(b)) {
            (Var(ca), Var(cb)) => {
                let v = self.store.var(ca.union(cb));
                self.store.bind(a, v);
                self.store.bind(b, v);
                Ok(v)
            }
            (Rigid(..), Rigid(..)) => Err(self.mismatch()),
            (Rigid(..), Var(cb)) => {
                for class in cb.iter() {
                    self.unify_class(class, a)?;
                }
                self.store.bind(b, a);
                Ok(a)
            }
            (Var(ca), Rigid(..)) => {
                for class in ca.iter() {
                    self.unify_class(class, b)?;
                }
                self.store.bind(a, b);
                Ok(b)
            }
            // A rigid variable is solved by nothing but itself, which a
            // dotted type may turn out to be (`x.y` with `x : b=>a` and
            // `y : b` is `a`).
            (Var(ca) | Rigid(_, ca), _) => {
                for class in ca.iter() {
                    self.unify_class(class, b)?;
                }
                self.substitute_var(a, b)
            }
            (_, Var(cb) | Rigid(_, cb)) => {
                for class in cb.iter() {
                    self.unify_class(class, a)?;
                }
                self.substitute_var(b, a)
            }
            _ => unreachable!("one of the types is a variable"),
        }
    }

    /// Unifies two types neither of which is a variable nor dotted: their
    /// heads must agree, and their parts are unified.
    fn unify_structures(&mut self, a: TyId, b: TyId) -> Inferred {
        use Ty::*;
        match (self.store.node(a), self.store.node(b)) {
            (Int, Int) | (Bool, Bool) | (Proc, Proc) | (Event, Event) | (Char, Char) => Ok(a),
            (Data(x), Data(y)) if x == y => Ok(a),
            (Fun(la, ra), Fun(lb, rb)) if la.len() == lb.len() => {
                let (xs, ys) = (self.store.items_vec(la), self.store.items_vec(lb));
                let mut args = Vec::with_capacity(xs.len());
                for (x, y) in xs.into_iter().zip(ys) {
                    args.push(self.unify(x, y)?);
                }
                let result = self.unify(ra, rb)?;
                Ok(self.store.fun(&args, result))
            }
            (Seq(x), Seq(y)) => {
                let t = self.unify(x, y)?;
                Ok(self.store.seq(t))
            }
            (Set(x), Set(y)) => {
                let t = self.unify(x, y)?;
                Ok(self.store.set(t))
            }
            (Map(k1, v1), Map(k2, v2)) => {
                let k = self.unify(k1, k2)?;
                let v = self.unify(v1, v2)?;
                Ok(self.store.add(Map(k, v)))
            }
            (Tuple(la), Tuple(lb)) if la.len() == lb.len() => {
                let (xs, ys) = (self.store.items_vec(la), self.store.items_vec(lb));
                let mut parts = Vec::with_capacity(xs.len());
                for (x, y) in xs.into_iter().zip(ys) {
                    parts.push(self.unify(x, y)?);
                }
                Ok(self.store.tuple(&parts))
            }
            _ => Err(self.mismatch()),
        }
    }

    /// Unifies two types one of which is dotted: a dot, a value waiting
    /// for fields (dotable), or one taking any number of them
    /// (extendable).
    fn unify_dotted(&mut self, a: TyId, b: TyId) -> Inferred {
        use Ty::*;
        match (self.store.node(a), self.store.node(b)) {
            (Dotable(..), Dotable(..)) => self.unify_dotables(a, b),
            (Dot(..), Dot(..)) => {
                let xs = self.normal_dot_list(a);
                let ys = self.normal_dot_list(b);
                let ts = self.combine(xs, ys)?;
                Ok(self.store.dots_left(&ts))
            }
            // A dotted value written where a datatype value or an event
            // is expected: its head is a value waiting for the rest.
            (Dot(t1, t2), Data(_) | Event) => {
                self.require_symmetric()?;
                let want = self.store.dotable(t2, b);
                self.unify(want, t1)?;
                Ok(b)
            }
            (Data(_) | Event, Dot(t1, t2)) => {
                let want = self.store.dotable(t2, a);
                self.unify(want, t1)?;
                Ok(a)
            }
            (Dot(t1, t2), Extendable(..)) => {
                self.require_symmetric()?;
                let want = self.store.dotable(t2, b);
                let head = self.unify(want, t1)?;
                Ok(self.store.dot(head, t2))
            }
            (Extendable(inner, pointer), Dot(..)) => {
                // The expected value may take any number of fields: read
                // the dots with the shortest match, so that it takes the
                // first.
                let list = self.normal_dot_list(b);
                let list = self.eval_list(Match::Shortest, list)?;
                let extendable = self.store.add(Extendable(inner, pointer));
                if list.len() >= 2 {
                    let rest = self.store.dots_right(&list[1..]);
                    let want = self.store.dotable(rest, extendable);
                    let head = self.unify(want, list[0])?;
                    Ok(self.store.dot(head, rest))
                } else {
                    self.unify(extendable, list[0])
                }
            }
            (Dot(t1, t2), Dotable(..)) => {
                self.require_symmetric()?;
                let want = self.store.dotable(t2, b);
                self.unify(t1, want)?;
                Ok(b)
            }
            (Dotable(..), Dot(t1, t2)) => {
                let want = self.store.dotable(t2, a);
                self.unify(want, t1)?;
                Ok(a)
            }
            (Dotable(arg, rest), Extendable(inner, pointer))
            | (Extendable(inner, pointer), Dotable(arg, rest)) => {
                let next = self.store.fresh();
                let extendable = self.store.add(Extendable(inner, next));
                self.unify(extendable, rest)?;
                let fields = self.store.dotable(arg, next);
                self.write_pointer(pointer, fields)?;
                let extendable = self.store.add(Extendable(inner, next));
                Ok(self.store.dotable(arg, extendable))
            }
            (Extendable(t1, p1), Extendable(t2, p2)) => {
                let inner = self.unify(t1, t2)?;
                let (p1, p2) = (self.store.find(p1), self.store.find(p2));
                if p1 != p2 {
                    if matches!(self.store.node(p2), Rigid(..)) {
                        self.write_pointer(p1, p2)?;
                    } else {
                        self.write_pointer(p2, p1)?;
                    }
                }
                Ok(self.store.add(Extendable(inner, p1)))
            }
            (Extendable(inner, pointer), _) => {
                let t = self.unify(inner, b)?;
                self.write_pointer(pointer, atom::EMPTY_DOTS)?;
                Ok(t)
            }
            (_, Extendable(inner, pointer)) => {
                let t = self.unify(a, inner)?;
                self.write_pointer(pointer, atom::EMPTY_DOTS)?;
                Ok(t)
            }
            _ => Err(self.mismatch()),
        }
    }

    fn require_symmetric(&mut self) -> Inferred<()> {
        if self.symmetric {
            Ok(())
        } else {
            Err(self.mismatch())
        }
    }

    /// Records what an `Extendable`'s pointer holds; a rigid pointer (an
    /// annotation's `a=>*b`) cannot be made to hold anything.
    fn write_pointer(&mut self, pointer: TyId, fields: TyId) -> Inferred<()> {
        let pointer = self.store.find(pointer);
        match self.store.node(pointer) {
            // Unifying the fields after it may already have tied the
            // pointer into `fields` (a dotted value used both whole and
            // extended): binding it would make a type that contains
            // itself. FDR overwrites the pointer's own cell there; the
            // pointer already stands for those fields, so leave it.
            Ty::Var(_) if self.occurs(pointer, fields)? => Ok(()),
            Ty::Var(_) => {
                self.store.bind(pointer, fields);
                Ok(())
            }
            _ if self.store.find(fields) == pointer => Ok(()),
            // Written already (while the fields after it were worked
            // out): the two writings must agree.
            _ => self.unify(pointer, fields).map(|_| ()),
        }
    }

    /// Solves variable `v` as `t`, unless `t` contains `v` even once its
    /// dots are worked out (an infinite type).
    fn substitute_var(&mut self, v: TyId, t: TyId) -> Inferred {
        let t = if self.occurs(v, t)? {
            let evaluated = self.evaluate_dots(t)?;
            if self.store.head(evaluated) == v {
                return Ok(v);
            }
            if self.occurs(v, evaluated)? {
                return Err(self.infinite(v, t));
            }
            evaluated
        } else {
            t
        };
        match self.store.node(v) {
            Ty::Rigid(..) => Err(self.mismatch()),
            Ty::Var(_) => {
                self.store.bind(v, t);
                Ok(t)
            }
            // Solved meanwhile, by its classes or by evaluating the dots
            // it occurs in (`{m, release.m}` makes `m` the channel's
            // `Manager`, and then the set's `Event`): what it became must
            // be `t` too.
            _ => self.unify(v, t),
        }
    }

    fn occurs(&mut self, v: TyId, t: TyId) -> Inferred<bool> {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            self.tick()?;
            let t = self.store.find(t);
            if t == v {
                return Ok(true);
            }
            let node = self.store.node(t);
            self.store.push_parts(node, &mut stack);
        }
        Ok(false)
    }

    // ------------------------------------------------------------ classes

    /// `t` must be of `class`: solved where it can be (a variable gains
    /// the class), reported where it cannot.
    pub fn unify_class(&mut self, class: Class, t: TyId) -> Inferred<()> {
        self.tick()?;
        self.class_pairs.push((class, t));
        let result = self.class_of_head(class, t);
        self.class_pairs.pop();
        result
    }

    fn class_of_head(&mut self, class: Class, t: TyId) -> Inferred<()> {
        use Class as C;
        use Ty::*;
        let (t, node) = self.store.view(t);
        let ok = match (class, node) {
            (_, Error) => true,
            (_, Rigid(_, classes)) => classes.entails(class),
            (_, Var(classes)) => {
                if !classes.entails(class) {
                    self.store.set_classes(t, classes.with(class));
                }
                true
            }
            (_, Extendable(inner, pointer)) => match class {
                C::Yieldable => {
                    self.write_pointer(pointer, atom::EMPTY_DOTS)?;
                    true
                }
                C::Complete => {
                    self.unify_class(C::Complete, inner)?;
                    self.write_pointer(pointer, atom::EMPTY_DOTS)?;
                    true
                }
                C::Eq | C::Set => true,
                C::Ord => false,
            },
            (C::Yieldable, Data(_) | Event) => true,
            (C::Yieldable, Dot(..)) => {
                let evaluated = self.evaluate_dots(t)?;
                match self.store.view(evaluated).1 {
                    Dot(..) => false,
                    _ => return self.unify_class(C::Yieldable, evaluated),
                }
            }
            (C::Yieldable, _) => false,
            (C::Set | C::Complete, Proc) => true,
            (_, Int | Char) => true,
            (C::Eq | C::Complete | C::Set, Bool) => true,
            (C::Eq, Data(d)) => self.datatype_has_equality(d),
            (C::Complete | C::Set, Data(_) | Event) | (C::Eq, Event) => true,
            (C::Complete, Seq(_)) => true,
            (C::Set | C::Eq, Seq(inner)) => return self.unify_class(class, inner),
            // Sequences are ordered by prefix, which needs only `==`.
            (C::Ord, Seq(inner)) => return self.unify_class(C::Eq, inner),
            (C::Complete, Tuple(_)) => true,
            (_, Tuple(list)) => {
                for part in self.store.items_vec(list) {
                    self.unify_class(class, part)?;
                }
                true
            }
            (C::Eq | C::Set, Dotable(x, y)) => {
                self.unify_class(class, x)?;
                return self.unify_class(class, y);
            }
            (C::Complete, Dot(..)) => {
                let evaluated = self.evaluate_dots(t)?;
                match self.store.view(evaluated).1 {
                    Dot(x, y) => {
                        self.unify_class(C::Complete, x)?;
                        return self.unify_class(C::Complete, y);
                    }
                    _ => return self.unify_class(C::Complete, evaluated),
                }
            }
            (C::Eq | C::Set, Dot(x, y)) => {
                self.unify_class(class, x)?;
                return self.unify_class(class, y);
            }
            (C::Set, Set(inner)) => return self.unify_class(C::Set, inner),
            (C::Complete, Set(_)) => true,
            // Sets are ordered by inclusion, which needs only `==`.
            (C::Eq | C::Ord, Set(inner)) => return self.unify_class(C::Eq, inner),
            (C::Complete, Map(..)) => true,
            (_, Map(k, v)) => {
                self.unify_class(class, k)?;
                return self.unify_class(class, v);
            }
            _ => false,
        };
        if ok { Ok(()) } else { Err(self.class_error()) }
    }

    /// Whether `==` works on datatype `d`: decided per group of datatypes
    /// (a use while its group is decided is judged afterwards).
    fn datatype_has_equality(&mut self, d: DataTypeId) -> bool {
        match self.equality[d.index()] {
            Equality::Yes => true,
            Equality::No => false,
            Equality::Pending => {
                self.pending_equality
                    .push((d, self.at, self.contexts.clone()));
                true
            }
        }
    }

    // ------------------------------------------------------------ dots

    /// The fields of a dotted type, left to right (`(a.b).c` and
    /// `a.(b.c)` alike).
    pub fn dot_list(&mut self, t: TyId) -> Vec<TyId> {
        let mut out = Vec::new();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let (t, node) = self.store.view(t);
            match node {
                Ty::Dot(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => out.push(t),
            }
        }
        out
    }

    /// [`Checker::dot_list`] with each field in normal form.
    fn normal_dot_list(&mut self, t: TyId) -> Vec<TyId> {
        let list = self.dot_list(t);
        list.into_iter().map(|t| self.normal_form(t)).collect()
    }

    /// A value waiting for fields whose first field is itself dotted
    /// (`(a.b)=>c`) as one waiting for each (`a=>b=>c`).
    fn normal_form(&mut self, t: TyId) -> TyId {
        let (t, node) = self.store.view(t);
        let Ty::Dotable(arg, rest) = node else {
            return t;
        };
        if let (_, Ty::Dot(x, y)) = self.store.view(arg) {
            let inner = self.store.dotable(y, rest);
            let flat = self.store.dotable(x, inner);
            return self.normal_form(flat);
        }
        if self.store.is_dotable(rest) {
            let rest = self.normal_form(rest);
            return self.store.dotable(arg, rest);
        }
        t
    }

    /// The fields a value waiting for fields takes, and what it gives.
    pub fn reduce_dotable(&mut self, t: TyId) -> (Vec<TyId>, TyId) {
        let mut args = Vec::new();
        let mut t = t;
        loop {
            let (head, node) = self.store.view(t);
            match node {
                Ty::Dotable(arg, rest) => {
                    args.push(arg);
                    t = rest;
                }
                _ => return (args, head),
            }
        }
    }

    fn is_var(&mut self, t: TyId) -> bool {
        matches!(self.store.view(t).1, Ty::Var(_) | Ty::Rigid(..))
    }

    /// Neither a variable nor a value waiting for fields.
    fn is_simple(&mut self, t: TyId) -> bool {
        !self.store.is_dotable(t) && !self.is_var(t)
    }

    /// `t` with its dots worked out: each value waiting for fields takes
    /// the fields after it (a final variable takes all the rest).
    pub fn evaluate_dots(&mut self, t: TyId) -> Inferred {
        self.tick()?;
        let (t, node) = self.store.view(t);
        match node {
            Ty::Var(_) | Ty::Rigid(..) | Ty::Extendable(..) => Ok(t),
            Ty::Set(a) => {
                let e = self.evaluate_dots(a)?;
                Ok(if self.store.find(a) == e {
                    t
                } else {
                    self.store.set(e)
                })
            }
            Ty::Seq(a) => {
                let e = self.evaluate_dots(a)?;
                Ok(if self.store.find(a) == e {
                    t
                } else {
                    self.store.seq(e)
                })
            }
            Ty::Map(k, v) => {
                let (ek, ev) = (self.evaluate_dots(k)?, self.evaluate_dots(v)?);
                Ok(if self.store.find(k) == ek && self.store.find(v) == ev {
                    t
                } else {
                    self.store.add(Ty::Map(ek, ev))
                })
            }
            Ty::Tuple(list) => {
                let items = self.store.items_vec(list);
                let mut evaluated = Vec::with_capacity(items.len());
                let mut changed = false;
                for x in items {
                    let e = self.evaluate_dots(x)?;
                    changed |= self.store.find(x) != e;
                    evaluated.push(e);
                }
                Ok(if changed {
                    self.store.tuple(&evaluated)
                } else {
                    t
                })
            }
            Ty::Fun(list, result) => {
                let items = self.store.items_vec(list);
                let mut evaluated = Vec::with_capacity(items.len());
                let mut changed = false;
                for x in items {
                    let e = self.evaluate_dots(x)?;
                    changed |= self.store.find(x) != e;
                    evaluated.push(e);
                }
                let r = self.evaluate_dots(result)?;
                changed |= self.store.find(result) != r;
                Ok(if changed {
                    self.store.fun(&evaluated, r)
                } else {
                    t
                })
            }
            Ty::Dot(..) | Ty::Dotable(..) => {
                let list = self.normal_dot_list(t);
                let list = self.eval_list(Match::Longest, list)?;
                Ok(self.store.dots_right(&list))
            }
            _ => Ok(t),
        }
    }

    /// FDR's reading of a list of fields: each value waiting for fields
    /// applied to those after it.
    pub fn eval_list(&mut self, mode: Match, list: Vec<TyId>) -> Inferred<Vec<TyId>> {
        self.tick()?;
        let mut list: Vec<TyId> = list.into_iter().map(|t| self.store.head(t)).collect();
        if list.len() <= 1 {
            return Ok(list);
        }
        let first = list[0];
        match self.store.node(first) {
            Ty::Dot(x, y) => {
                list.splice(0..1, [x, y]);
                self.eval_list(mode, list)
            }
            Ty::Dotable(arg_ty, rest) => {
                let arg = list[1];
                let last = list.len() == 2;
                if self.is_var(arg) && last {
                    let (args, result) = self.reduce_dotable(first);
                    return match mode {
                        Match::Longest => {
                            let fields = self.store.dots_right(&args);
                            self.unify(arg, fields)?;
                            Ok(vec![result])
                        }
                        Match::Shortest => {
                            self.unify(args[0], arg)?;
                            Ok(vec![self.store.dotables(&args[1..], result)])
                        }
                    };
                }
                if let Ty::Extendable(inner, pointer) = self.store.node(arg) {
                    self.unify(arg_ty, inner)?;
                    let extendable = self.store.add(Ty::Extendable(rest, pointer));
                    list.splice(0..2, [extendable]);
                    return self.eval_list(mode, list);
                }
                if !self.store.is_dotable(arg) || self.store.is_dotable(arg_ty) {
                    self.unify(arg_ty, arg)?;
                    list.splice(0..2, [rest]);
                    return self.eval_list(mode, list);
                }
                let (args, result) = self.reduce_dotable(arg);
                self.unify(arg_ty, result)?;
                let applied = self.store.dotables(&args, rest);
                list.splice(0..2, [applied]);
                self.eval_list(mode, list)
            }
            Ty::Extendable(inner, pointer) => match mode {
                Match::Longest => {
                    let rest = self.eval_list(Match::Longest, list[1..].to_vec())?;
                    let fields = self.store.dotables(&rest, atom::EMPTY_DOTS);
                    self.write_pointer(pointer, fields)?;
                    Ok(vec![inner])
                }
                Match::Shortest => {
                    let fields = self.store.dotable(list[1], atom::EMPTY_DOTS);
                    self.write_pointer(pointer, fields)?;
                    list.splice(0..2, [inner]);
                    self.eval_list(mode, list)
                }
            },
            _ => {
                let rest = self.eval_list(mode, list[1..].to_vec())?;
                let mut out = Vec::with_capacity(rest.len() + 1);
                out.push(first);
                out.extend(rest);
                Ok(out)
            }
        }
    }

    /// Two lists of fields made one, field by field; a value waiting for
    /// fields on one side takes as many of the other's as it needs.
    fn combine(&mut self, xs: Vec<TyId>, ys: Vec<TyId>) -> Inferred<Vec<TyId>> {
        self.tick()?;
        let xs: Vec<TyId> = xs.into_iter().map(|t| self.store.head(t)).collect();
        let ys: Vec<TyId> = ys.into_iter().map(|t| self.store.head(t)).collect();
        if xs.is_empty() && ys.is_empty() {
            return Ok(Vec::new());
        }
        if xs.is_empty() || ys.is_empty() {
            return Err(self.mismatch());
        }
        if let Ty::Dot(..) = self.store.node(xs[0]) {
            let mut expanded = self.dot_list(xs[0]);
            expanded.extend_from_slice(&xs[1..]);
            return self.combine(expanded, ys);
        }
        if let Ty::Dot(..) = self.store.node(ys[0]) {
            let mut expanded = self.dot_list(ys[0]);
            expanded.extend_from_slice(&ys[1..]);
            return self.combine(xs, expanded);
        }
        if ys.len() == 1 {
            let all = self.store.dots_right(&xs);
            return Ok(vec![self.unify(all, ys[0])?]);
        }
        if xs.len() == 1 {
            let all = self.store.dots_right(&ys);
            return Ok(vec![self.unify(xs[0], all)?]);
        }
        let (x, y) = (xs[0], ys[0]);
        if !self.store.is_dotable(x) && !self.store.is_dotable(y) {
            let t = self.unify(x, y)?;
            let mut out = vec![t];
            out.extend(self.combine(xs[1..].to_vec(), ys[1..].to_vec())?);
            return Ok(out);
        }
        if let Ty::Dotable(arg_ty, rest) = self.store.node(x) {
            let next = xs[1];
            let tail = &xs[2..];
            if self.store.is_dotable(arg_ty)
                || self.is_simple(next)
                || (self.is_var(next) && !tail.is_empty())
            {
                self.unify(arg_ty, next)?;
                return self.combine(prepend(rest, tail), ys);
            }
            if self.is_var(next) {
                let (args, result) = self.reduce_dotable(x);
                let mut evaluated = self.eval_list(Match::Longest, ys)?;
                let head = evaluated.remove(0);
                let t = self.unify(result, head)?;
                let mut fields = args;
                fields.extend_from_slice(&evaluated);
                self.combine(fields, vec![next])?;
                return Ok(prepend(t, &evaluated));
            }
            let (args, result) = self.reduce_dotable(next);
            self.unify(arg_ty, result)?;
            let applied = self.store.dotables(&args, rest);
            return self.combine(prepend(applied, tail), ys);
        }
        if let Ty::Dotable(arg_ty, rest) = self.store.node(y) {
            let next = ys[1];
            let tail = &ys[2..];
            if self.store.is_dotable(arg_ty) {
                self.unify(arg_ty, next)?;
                return self.combine(xs, prepend(rest, tail));
            }
            if self.is_simple(next) || (self.is_var(next) && !tail.is_empty()) {
                self.unify(next, arg_ty)?;
                return self.combine(xs, prepend(rest, tail));
            }
            if self.is_var(next) {
                let (args, result) = self.reduce_dotable(y);
                let mut evaluated = self.eval_list(Match::Longest, xs)?;
                let head = evaluated.remove(0);
                let t = self.unify(head, result)?;
                let mut fields = args;
                fields.extend_from_slice(&evaluated);
                self.combine(vec![next], fields)?;
                return Ok(prepend(t, &evaluated));
            }
            let (args, result) = self.reduce_dotable(next);
            self.unify(result, arg_ty)?;
            let applied = self.store.dotables(&args, rest);
            return self.combine(xs, prepend(applied, tail));
        }
        Err(self.mismatch())
    }

    /// Two values waiting for fields made one.
    fn unify_dotables(&mut self, a: TyId, b: TyId) -> Inferred {
        let a = self.normal_form(a);
        let b = self.normal_form(b);
        let (args_a, result_a) = self.reduce_dotable(a);
        let (args_b, result_b) = self.reduce_dotable(b);
        let ext_a = self.store.is_extendable(result_a);
        let ext_b = self.store.is_extendable(result_b);
        match (ext_a, ext_b) {
            (false, false) => {
                let result = self.unify(result_a, result_b)?;
                let args = self.combine(args_a, args_b)?;
                Ok(self.dotable_of(&args, result))
            }
            (true, true) => {
                self.unify(result_a, result_b)?;
                let xs = self.eval_list(Match::Longest, args_a)?;
                let ys = self.eval_list(Match::Longest, args_b)?;
                let xs_results: Vec<TyId> = xs.iter().map(|&x| self.result_of(x)).collect();
                let ys_results: Vec<TyId> = ys.iter().map(|&y| self.result_of(y)).collect();
                let ts = self.zip_unify(&xs_results, &ys_results)?;
                let longer = if xs.len() == ts.len() { &ys } else { &xs };
                let args = [ts.as_slice(), &longer[ts.len()..]].concat();
                Ok(self.dotable_of(&args, result_a))
            }
            (true, false) => {
                let xs = self.eval_list(Match::Longest, args_a)?;
                let ys = self.eval_list(Match::Longest, args_b)?;
                let xs_results: Vec<TyId> = xs.iter().map(|&x| self.result_of(x)).collect();
                let ts = self.zip_unify(&xs_results, &ys)?;
                let remaining = ys[xs_results.len().min(ys.len())..].to_vec();
                let want = self.store.dotables(&remaining, result_b);
                self.unify(result_a, want)?;
                let longer = if xs_results.len() == ts.len() {
                    &ys
                } else {
                    &xs_results
                };
                let args = [ts.as_slice(), &longer[ts.len()..]].concat();
                Ok(self.dotable_of(&args, result_b))
            }
            (false, true) => {
                self.unify(result_a, result_b)?;
                let xs = self.eval_list(Match::Longest, args_a)?;
                let ys = self.eval_list(Match::Longest, args_b)?;
                let ys_results: Vec<TyId> = ys.iter().map(|&y| self.result_of(y)).collect();
                let ts = self.zip_unify(&xs, &ys_results)?;
                let remaining = xs[ys_results.len().min(xs.len())..].to_vec();
                let want = self.store.dotables(&remaining, result_a);
                self.unify(want, result_b)?;
                let longer = if ys_results.len() == ts.len() {
                    &xs
                } else {
                    &ys_results
                };
                let args = [ts.as_slice(), &longer[ts.len()..]].concat();
                Ok(self.dotable_of(&args, result_a))
            }
        }
    }

    /// What a value waiting for fields finally gives (a value not waiting
    /// gives itself).
    fn result_of(&mut self, t: TyId) -> TyId {
        let t = self.normal_form(t);
        self.reduce_dotable(t).1
    }

    fn zip_unify(&mut self, xs: &[TyId], ys: &[TyId]) -> Inferred<Vec<TyId>> {
        xs.iter().zip(ys).map(|(&x, &y)| self.unify(x, y)).collect()
    }

    /// `(args[0].args[1]...)=>result`.
    fn dotable_of(&mut self, args: &[TyId], result: TyId) -> TyId {
        if args.is_empty() {
            return result;
        }
        let arg = self.store.dots_left(args);
        self.store.dotable(arg, result)
    }

    /// Whether `t` is a value that some dots turn into a `result`
    /// (`ensureIsExtendable`): unifies it with `p=>*result`.
    pub fn expect_extendable(&mut self, result: TyId, actual: TyId) -> Inferred {
        let pointer = self.store.fresh();
        let extendable = self.store.add(Ty::Extendable(result, pointer));
        self.unify(extendable, actual)
    }
}

fn prepend(first: TyId, rest: &[TyId]) -> Vec<TyId> {
    let mut out = Vec::with_capacity(rest.len() + 1);
    out.push(first);
    out.extend_from_slice(rest);
    out
}

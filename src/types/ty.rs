//! Types as FDR's type system has them, stored in one arena.
//!
//! A type is a [`TyId`]: an index into [`Store::nodes`]. Unification
//! variables are nodes that are later overwritten with a [`Ty::Link`] to
//! the type they stand for (union–find, with path compression), so a type
//! is a DAG that is read through [`Store::head`]. Besides the usual
//! types, FDR has three for values still waiting for dotted fields:
//!
//! - `Dot(a, b)`: the type of `x.y`, not yet worked out (a channel dotted
//!   with a value is an event, a value dotted with a value a pair of
//!   fields; which one depends on what `x` is);
//! - `Dotable(a, b)`, written `a=>b`: dotted with an `a`, it gives a `b`
//!   (a channel `c : Int.Bool` is `Int=>Bool=>Event`);
//! - `Extendable(b, p)`, written `p=>*b`: dotted with the fields `p` will
//!   stand for (none or more), it gives a `b`. `p` is a *pointer*: a
//!   variable that, once known, holds `EmptyDots` or `Dotable(a, p')`,
//!   the fields one by one ([`Store::head`] expands it).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::script::ir::DataTypeId;
use crate::syntax::Span;
use ustr::Ustr;

/// A type in the [`Store`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyId(pub(crate) u32);

impl TyId {
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// FDR's type classes, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Classes(u8);

/// One of FDR's type classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Comparable with `==`.
    Eq,
    /// Ordered by `<`.
    Ord,
    /// Can be communicated: input on a channel, a field of an event.
    Complete,
    /// Can be put into a set.
    Set,
    /// Can stand on the right of `=>`: an event or a datatype.
    Yieldable,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::Eq,
        Class::Ord,
        Class::Complete,
        Class::Set,
        Class::Yieldable,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Class::Eq => "Eq",
            Class::Ord => "Ord",
            Class::Complete => "Complete",
            Class::Set => "Set",
            Class::Yieldable => "Yieldable",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl Classes {
    pub const NONE: Classes = Classes(0);

    pub fn of(classes: &[Class]) -> Classes {
        Classes(classes.iter().fold(0, |bits, c| bits | c.bit()))
    }

    pub fn with(self, class: Class) -> Classes {
        Classes(self.0 | class.bit())
    }

    pub fn union(self, other: Classes) -> Classes {
        Classes(self.0 | other.0)
    }

    pub fn contains(self, class: Class) -> bool {
        self.0 & class.bit() != 0
    }

    /// Whether a variable of these classes is in `class`: `Eq` gives
    /// `Set` (whatever can be compared can be put into a set).
    pub fn entails(self, class: Class) -> bool {
        self.contains(class) || (class == Class::Set && self.contains(Class::Eq))
    }

    pub fn iter(self) -> impl Iterator<Item = Class> {
        Class::ALL.into_iter().filter(move |c| self.contains(*c))
    }

    /// The classes worth printing: `Set` goes without saying beside `Eq`.
    pub fn reduced(self) -> impl Iterator<Item = Class> {
        self.iter()
            .filter(move |&c| !(c == Class::Set && self.contains(Class::Eq)))
    }
}

/// A rigid type variable: one a type annotation names, which stands for
/// every type and so unifies with nothing but itself.
#[derive(Debug, Clone)]
pub struct Rigid {
    pub name: Ustr,
    /// The annotation that binds it.
    pub bound_at: Span,
}

/// A list of types (a tuple's parts, a function's arguments) in
/// [`Store::lists`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct List {
    start: u32,
    len: u32,
}

impl List {
    pub(crate) fn len(self) -> usize {
        self.len as usize
    }
}

/// One node of a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// An unknown type, of these classes.
    Var(Classes),
    /// A variable that has been solved: it is this type.
    Link(TyId),
    /// A type variable of an annotation (index into [`Store::rigids`]).
    Rigid(u32, Classes),
    Int,
    Bool,
    Char,
    Proc,
    Event,
    Data(DataTypeId),
    Set(TyId),
    Seq(TyId),
    Map(TyId, TyId),
    Tuple(List),
    Fun(List, TyId),
    Dot(TyId, TyId),
    Dotable(TyId, TyId),
    Extendable(TyId, TyId),
    /// What an `Extendable`'s pointer holds when no fields are left.
    EmptyDots,
    /// The type of something already reported as ill-typed: it agrees
    /// with every type, so one mistake is reported once.
    Error,
}

/// Every type of a script, in one arena.
#[derive(Debug, Clone)]
pub struct Store {
    nodes: Vec<Ty>,
    lists: Vec<TyId>,
    pub rigids: Vec<Rigid>,
}

/// Fixed ids of the types that carry no parts, allocated first.
pub mod atom {
    use super::TyId;
    pub const INT: TyId = TyId(0);
    pub const BOOL: TyId = TyId(1);
    pub const CHAR: TyId = TyId(2);
    pub const PROC: TyId = TyId(3);
    pub const EVENT: TyId = TyId(4);
    pub const EMPTY_DOTS: TyId = TyId(5);
    pub const ERROR: TyId = TyId(6);
    /// `{Event}`, the type of every synchronisation set.
    pub const EVENTS: TyId = TyId(7);
    /// `<Char>`, the type of strings.
    pub const STRING: TyId = TyId(8);
}

impl Default for Store {
    fn default() -> Self {
        Store {
            nodes: vec![
                Ty::Int,
                Ty::Bool,
                Ty::Char,
                Ty::Proc,
                Ty::Event,
                Ty::EmptyDots,
                Ty::Error,
                Ty::Set(atom::EVENT),
                Ty::Seq(atom::CHAR),
            ],
            lists: Vec::new(),
            rigids: Vec::new(),
        }
    }
}

impl Store {
    /// Room for `n` more nodes, taken at once.
    pub fn reserve(&mut self, n: usize) {
        self.nodes.reserve(n);
    }

    /// The node as stored (links not followed).
    pub fn node(&self, t: TyId) -> Ty {
        self.nodes[t.index()]
    }

    pub fn add(&mut self, ty: Ty) -> TyId {
        // Types without variables are shared (nothing ever changes them).
        match ty {
            Ty::Set(atom::EVENT) => return atom::EVENTS,
            Ty::Seq(atom::CHAR) => return atom::STRING,
            Ty::Int => return atom::INT,
            Ty::Bool => return atom::BOOL,
            Ty::Char => return atom::CHAR,
            Ty::Proc => return atom::PROC,
            Ty::Event => return atom::EVENT,
            Ty::EmptyDots => return atom::EMPTY_DOTS,
            Ty::Error => return atom::ERROR,
            _ => {}
        }
        self.nodes.push(ty);
        TyId((self.nodes.len() - 1) as u32)
    }

    pub fn var(&mut self, classes: Classes) -> TyId {
        self.add(Ty::Var(classes))
    }

    pub fn fresh(&mut self) -> TyId {
        self.var(Classes::NONE)
    }

    pub fn rigid(&mut self, name: Ustr, bound_at: Span, classes: Classes) -> TyId {
        self.rigids.push(Rigid { name, bound_at });
        let index = (self.rigids.len() - 1) as u32;
        self.add(Ty::Rigid(index, classes))
    }

    pub fn list(&mut self, items: &[TyId]) -> List {
        let start = self.lists.len() as u32;
        self.lists.extend_from_slice(items);
        List {
            start,
            len: items.len() as u32,
        }
    }

    pub fn items(&self, list: List) -> &[TyId] {
        &self.lists[list.start as usize..(list.start + list.len) as usize]
    }

    pub fn items_vec(&self, list: List) -> Vec<TyId> {
        self.items(list).to_vec()
    }

    pub fn set(&mut self, t: TyId) -> TyId {
        self.add(Ty::Set(t))
    }

    pub fn seq(&mut self, t: TyId) -> TyId {
        self.add(Ty::Seq(t))
    }

    pub fn tuple(&mut self, items: &[TyId]) -> TyId {
        let list = self.list(items);
        self.add(Ty::Tuple(list))
    }

    pub fn fun(&mut self, args: &[TyId], result: TyId) -> TyId {
        let list = self.list(args);
        self.add(Ty::Fun(list, result))
    }

    pub fn dot(&mut self, a: TyId, b: TyId) -> TyId {
        self.add(Ty::Dot(a, b))
    }

    pub fn dotable(&mut self, a: TyId, b: TyId) -> TyId {
        self.add(Ty::Dotable(a, b))
    }

    /// `args[0]=>args[1]=>...=>result`.
    pub fn dotables(&mut self, args: &[TyId], result: TyId) -> TyId {
        args.iter()
            .rev()
            .fold(result, |rest, &arg| self.dotable(arg, rest))
    }

    /// `ts[0].(ts[1].(...))`, for a non-empty list.
    pub fn dots_right(&mut self, ts: &[TyId]) -> TyId {
        let (&last, init) = ts.split_last().expect("a dot list is never empty");
        init.iter().rev().fold(last, |rest, &t| self.dot(t, rest))
    }

    /// `((ts[0].ts[1]).ts[2])...`, for a non-empty list.
    pub fn dots_left(&mut self, ts: &[TyId]) -> TyId {
        let (&first, rest) = ts.split_first().expect("a dot list is never empty");
        rest.iter().fold(first, |acc, &t| self.dot(acc, t))
    }

    /// Overwrites variable `v` (unbound) with a link to `t`.
    pub fn bind(&mut self, v: TyId, t: TyId) {
        debug_assert!(matches!(self.nodes[v.index()], Ty::Var(_)));
        if v != t {
            self.nodes[v.index()] = Ty::Link(t);
        }
    }

    /// Changes the classes of unbound variable `v`.
    pub fn set_classes(&mut self, v: TyId, classes: Classes) {
        if let Ty::Var(_) = self.nodes[v.index()] {
            self.nodes[v.index()] = Ty::Var(classes);
        }
    }

    /// Follows links to the node `t` stands for, shortening the chain.
    pub fn find(&mut self, t: TyId) -> TyId {
        let mut root = t;
        while let Ty::Link(next) = self.nodes[root.index()] {
            root = next;
        }
        let mut at = t;
        while let Ty::Link(next) = self.nodes[at.index()] {
            self.nodes[at.index()] = Ty::Link(root);
            at = next;
        }
        root
    }

    /// The type `t` stands for, with its top node resolved: links
    /// followed, and an `Extendable` whose pointer is known expanded
    /// (`p=>*b` with `p` holding `a=>p'` is `a=>(p'=>*b)`; with no
    /// fields left it is `b`). The pointer of an `Extendable` returned is
    /// an unsolved variable.
    pub fn head(&mut self, t: TyId) -> TyId {
        let mut t = self.find(t);
        loop {
            let Ty::Extendable(inner, pointer) = self.nodes[t.index()] else {
                return t;
            };
            let p = self.find(pointer);
            match self.nodes[p.index()] {
                Ty::Var(_) | Ty::Rigid(..) => {
                    return if p == pointer {
                        t
                    } else {
                        self.add(Ty::Extendable(inner, p))
                    };
                }
                Ty::EmptyDots => t = self.find(inner),
                Ty::Dotable(arg, rest) => {
                    let rest = self.add(Ty::Extendable(inner, rest));
                    return self.add(Ty::Dotable(arg, rest));
                }
                // A pointer holds fields or nothing; anything else was
                // reported where it went wrong.
                _ => return atom::ERROR,
            }
        }
    }

    /// [`Store::head`], as the node.
    pub fn view(&mut self, t: TyId) -> (TyId, Ty) {
        let t = self.head(t);
        (t, self.nodes[t.index()])
    }

    pub fn is_dotable(&mut self, t: TyId) -> bool {
        let t = self.head(t);
        matches!(self.nodes[t.index()], Ty::Dotable(..))
    }

    pub fn is_extendable(&mut self, t: TyId) -> bool {
        let t = self.head(t);
        matches!(self.nodes[t.index()], Ty::Extendable(..))
    }

    /// The unsolved variables in `t`, each once, in the order met.
    pub fn free_vars(&mut self, t: TyId, out: &mut Vec<TyId>) {
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let (t, node) = self.view(t);
            match node {
                Ty::Var(_) | Ty::Rigid(..) => {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
                Ty::Extendable(inner, pointer) => {
                    stack.push(inner);
                    stack.push(pointer);
                }
                _ => self.push_parts(node, &mut stack),
            }
        }
    }

    /// Whether `t` holds the type of something reported ill-typed
    /// anywhere in it: such a type is not known, only guessed.
    pub fn mentions_error(&mut self, t: TyId) -> bool {
        let mut seen = FxHashSet::default();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let (t, node) = self.view(t);
            if !seen.insert(t) {
                continue;
            }
            match node {
                Ty::Error => return true,
                Ty::Extendable(inner, pointer) => {
                    stack.push(inner);
                    stack.push(pointer);
                }
                _ => self.push_parts(node, &mut stack),
            }
        }
        false
    }

    /// Whether `t` nests more than `limit` levels deep (shared parts
    /// counted once, with an explicit stack: a type may be as deep as
    /// inference made it, deeper than any call stack).
    pub fn deeper_than(&mut self, t: TyId, limit: usize) -> bool {
        // Each type's depth once its parts are done; entered but not done
        // (`None`) is not entered again, so even a cycle ends.
        let mut depth: FxHashMap<TyId, Option<usize>> = FxHashMap::default();
        let mut stack = vec![(t, false)];
        let mut parts = Vec::new();
        while let Some((t, parts_done)) = stack.pop() {
            let t = self.find(t);
            parts.clear();
            self.push_parts(self.nodes[t.index()], &mut parts);
            if parts_done {
                let below = parts
                    .iter()
                    .map(|&p| depth.get(&self.find(p)).copied().flatten().unwrap_or(0))
                    .max()
                    .unwrap_or(0);
                if below + 1 > limit {
                    return true;
                }
                depth.insert(t, Some(below + 1));
            } else if let std::collections::hash_map::Entry::Vacant(entry) = depth.entry(t) {
                entry.insert(None);
                stack.push((t, true));
                for &p in &parts {
                    let p = self.find(p);
                    if !depth.contains_key(&p) {
                        stack.push((p, false));
                    }
                }
            }
        }
        false
    }

    /// Pushes the parts of `node` onto `stack`, last part first.
    pub fn push_parts(&self, node: Ty, stack: &mut Vec<TyId>) {
        match node {
            Ty::Set(a) | Ty::Seq(a) | Ty::Link(a) => stack.push(a),
            Ty::Map(a, b) | Ty::Dot(a, b) | Ty::Dotable(a, b) | Ty::Extendable(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            Ty::Tuple(list) => stack.extend(self.items(list).iter().rev()),
            Ty::Fun(list, result) => {
                stack.push(result);
                stack.extend(self.items(list).iter().rev());
            }
            Ty::Var(_)
            | Ty::Rigid(..)
            | Ty::Int
            | Ty::Bool
            | Ty::Char
            | Ty::Proc
            | Ty::Event
            | Ty::Data(_)
            | Ty::EmptyDots
            | Ty::Error => {}
        }
    }

    /// A copy of `t` in which each variable of `mapping` is replaced by
    /// its image; shared parts stay shared.
    pub fn substitute(&mut self, t: TyId, mapping: &[(TyId, TyId)]) -> TyId {
        // Types are small: a list is a faster memo than a table.
        let mut memo = Vec::new();
        self.substitute_memo(t, mapping, &mut memo)
    }

    fn substitute_memo(
        &mut self,
        t: TyId,
        mapping: &[(TyId, TyId)],
        memo: &mut Vec<(TyId, TyId)>,
    ) -> TyId {
        let t = self.find(t);
        if let Some(&(_, image)) = mapping.iter().find(|(v, _)| *v == t) {
            return image;
        }
        if let Some(&(_, done)) = memo.iter().find(|(from, _)| *from == t) {
            return done;
        }
        let node = self.nodes[t.index()];
        let mut go = |store: &mut Store, x: TyId| store.substitute_memo(x, mapping, memo);
        let copy = match node {
            Ty::Set(a) => {
                let a = go(self, a);
                Ty::Set(a)
            }
            Ty::Seq(a) => {
                let a = go(self, a);
                Ty::Seq(a)
            }
            Ty::Map(a, b) => {
                let (a, b) = (go(self, a), go(self, b));
                Ty::Map(a, b)
            }
            Ty::Dot(a, b) => {
                let (a, b) = (go(self, a), go(self, b));
                Ty::Dot(a, b)
            }
            Ty::Dotable(a, b) => {
                let (a, b) = (go(self, a), go(self, b));
                Ty::Dotable(a, b)
            }
            Ty::Extendable(a, b) => {
                let (a, b) = (go(self, a), go(self, b));
                Ty::Extendable(a, b)
            }
            Ty::Tuple(list) => {
                let items: Vec<TyId> = self
                    .items_vec(list)
                    .into_iter()
                    .map(|x| go(self, x))
                    .collect();
                let list = self.list(&items);
                Ty::Tuple(list)
            }
            Ty::Fun(list, result) => {
                let items: Vec<TyId> = self
                    .items_vec(list)
                    .into_iter()
                    .map(|x| go(self, x))
                    .collect();
                let result = go(self, result);
                let list = self.list(&items);
                Ty::Fun(list, result)
            }
            _ => return t,
        };
        let copy = self.add(copy);
        memo.push((t, copy));
        copy
    }
}

/// A type with some variables standing for any type (of their classes).
#[derive(Debug, Clone)]
pub struct Scheme {
    /// The quantified variables: unsolved variables (or rigid ones)
    /// nothing else refers to.
    pub vars: Vec<TyId>,
    pub body: TyId,
}

impl Scheme {
    pub fn mono(body: TyId) -> Scheme {
        Scheme {
            vars: Vec::new(),
            body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_entails_set_and_nothing_else() {
        let eq = Classes::of(&[Class::Eq]);
        assert!(eq.entails(Class::Set));
        assert!(eq.entails(Class::Eq));
        assert!(!eq.entails(Class::Ord));
        assert_eq!(
            eq.with(Class::Set).reduced().collect::<Vec<_>>(),
            vec![Class::Eq]
        );
    }

    #[test]
    fn a_known_pointer_expands_into_its_fields() {
        let mut s = Store::default();
        let p = s.fresh();
        let q = s.fresh();
        let ext = s.add(Ty::Extendable(atom::EVENT, p));
        let fields = s.dotable(atom::INT, q);
        s.bind(p, fields);
        let (_, node) = s.view(ext);
        let Ty::Dotable(arg, rest) = node else {
            panic!("{node:?}")
        };
        assert_eq!(arg, atom::INT);
        s.bind(q, atom::EMPTY_DOTS);
        assert_eq!(s.head(rest), atom::EVENT);
    }

    #[test]
    fn find_compresses_chains() {
        let mut s = Store::default();
        let a = s.fresh();
        let b = s.fresh();
        s.bind(a, b);
        s.bind(b, atom::INT);
        assert_eq!(s.find(a), atom::INT);
        assert_eq!(s.node(a), Ty::Link(atom::INT));
    }
}

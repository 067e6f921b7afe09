//! Types written as FDR writes them: `(Int, a) -> Proc`, `{Event}`,
//! `<Char>`, `(| Int => Bool |)`, `Int=>Bool=>Event`, `a=>*Event`,
//! `Eq a => (a, a) -> Bool`.
//!
//! Variables are named `a`, `b`, ... in the order they are met, the same
//! name for the same variable across everything one message prints (a
//! [`Namer`] is shared); a rigid variable keeps its annotation's name.

use std::fmt::Write;

use crate::script::Script;

use super::ty::{Class, Store, Ty, TyId};

/// Names for the variables of the types one message prints.
#[derive(Debug, Default)]
pub struct Namer {
    names: Vec<(TyId, String)>,
    next: usize,
}

/// How tightly a type's top binds, FDR's levels: `=>`, `=>*` loosest,
/// then `.` and maps, then everything bracketed or atomic.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Atom = 0,
    Dot = 1,
    Arrow = 2,
}

/// Which side of a binary type an operand is on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

/// Types longer than this are cut, with `…`.
const MAX_WRITTEN: usize = 2000;

impl Namer {
    /// The variables named so far, in order.
    pub fn named(&self) -> impl Iterator<Item = TyId> + '_ {
        self.names.iter().map(|(v, _)| *v)
    }

    fn name(&mut self, store: &Store, v: TyId) -> String {
        if let Some((_, n)) = self.names.iter().find(|(w, _)| *w == v) {
            return n.clone();
        }
        let name = match store.node(v) {
            Ty::Rigid(index, _) => store.rigids[index as usize].name.to_string(),
            _ => loop {
                let letter = (b'a' + (self.next % 26) as u8) as char;
                let round = self.next / 26;
                self.next += 1;
                let candidate = if round == 0 {
                    letter.to_string()
                } else {
                    format!("{letter}{round}")
                };
                let taken = self.names.iter().any(|(_, n)| *n == candidate);
                if !taken {
                    break candidate;
                }
            },
        };
        self.names.push((v, name.clone()));
        name
    }
}

/// Writes types.
pub struct Printer<'a> {
    pub store: &'a mut Store,
    pub script: &'a Script,
    pub namer: &'a mut Namer,
}

impl Printer<'_> {
    /// `t` without its classes.
    pub fn ty(&mut self, t: TyId) -> String {
        self.reserve_rigids(t);
        let mut out = String::new();
        self.write(&mut out, t);
        out
    }

    /// Names the rigid variables of `t` first, so that no other variable
    /// takes an annotation's name.
    fn reserve_rigids(&mut self, t: TyId) {
        let mut vars = Vec::new();
        self.store.free_vars(t, &mut vars);
        for v in vars {
            if let Ty::Rigid(..) = self.store.node(v) {
                self.namer.name(self.store, v);
            }
        }
    }

    /// `t` with the classes of its variables first: `Eq a => (a) -> Bool`.
    pub fn scheme(&mut self, t: TyId) -> String {
        let mut vars = Vec::new();
        self.store.free_vars(t, &mut vars);
        // Named in the order the type shows them.
        let body = self.ty(t);
        let mut constraints: Vec<(String, Class)> = Vec::new();
        for v in vars {
            let classes = match self.store.node(v) {
                Ty::Var(c) | Ty::Rigid(_, c) => c,
                _ => continue,
            };
            let name = self.namer.name(self.store, v);
            for class in classes.reduced() {
                constraints.push((name.clone(), class));
            }
        }
        constraints.sort();
        let written: Vec<String> = constraints
            .iter()
            .map(|(name, class)| format!("{} {name}", class.name()))
            .collect();
        match written.len() {
            0 => body,
            1 => format!("{} => {body}", written[0]),
            _ => format!("({}) => {body}", written.join(", ")),
        }
    }

    fn level(&mut self, t: TyId) -> Level {
        match self.store.view(t).1 {
            Ty::Dotable(..) | Ty::Extendable(..) => Level::Arrow,
            Ty::Dot(..) | Ty::Map(..) => Level::Dot,
            _ => Level::Atom,
        }
    }

    /// Writes operand `t` of a binary type of level `outer`, bracketed
    /// where FDR brackets it.
    fn operand(&mut self, out: &mut String, outer: Ty, side: Side, t: TyId) {
        let (_, node) = self.store.view(t);
        let outer_level = match outer {
            Ty::Dot(..) => Level::Dot,
            _ => Level::Arrow,
        };
        let inner_level = self.level(t);
        let same_operator = std::mem::discriminant(&outer) == std::mem::discriminant(&node);
        let bracket = match inner_level.cmp(&outer_level) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                !same_operator
                    || match side {
                        Side::Left => !matches!(outer, Ty::Dot(..)),
                        Side::Right => matches!(outer, Ty::Dot(..)),
                    }
            }
        };
        if bracket {
            out.push('(');
            self.write(out, t);
            out.push(')');
        } else {
            self.write(out, t);
        }
    }

    fn write(&mut self, out: &mut String, t: TyId) {
        if out.len() > MAX_WRITTEN {
            if !out.ends_with('…') {
                out.push('…');
            }
            return;
        }
        let (t, node) = self.store.view(t);
        match node {
            Ty::Var(_) | Ty::Rigid(..) => {
                let name = self.namer.name(self.store, t);
                out.push_str(&name);
            }
            Ty::Link(_) => unreachable!("view follows links"),
            Ty::Int => out.push_str("Int"),
            Ty::Bool => out.push_str("Bool"),
            Ty::Char => out.push_str("Char"),
            Ty::Proc => out.push_str("Proc"),
            Ty::Event => out.push_str("Event"),
            Ty::EmptyDots => out.push_str("<no fields>"),
            Ty::Error => out.push('?'),
            Ty::Data(d) => out.push_str(&self.script.datatypes[d.index()].name),
            Ty::Set(a) => {
                out.push('{');
                self.write(out, a);
                out.push('}');
            }
            Ty::Seq(a) => {
                out.push('<');
                self.write(out, a);
                out.push('>');
            }
            Ty::Map(k, v) => {
                out.push_str("(| ");
                self.write(out, k);
                out.push_str(" => ");
                self.write(out, v);
                out.push_str(" |)");
            }
            Ty::Tuple(list) => {
                out.push('(');
                self.list(out, &self.store.items_vec(list));
                out.push(')');
            }
            Ty::Fun(list, result) => {
                out.push('(');
                self.list(out, &self.store.items_vec(list));
                out.push_str(") -> ");
                self.write(out, result);
            }
            Ty::Dot(a, b) => match self.applied(t) {
                // Written as what the dots give, where they fit.
                Some(result) => self.write(out, result),
                None => {
                    self.operand(out, node, Side::Left, a);
                    out.push('.');
                    self.operand(out, node, Side::Right, b);
                }
            },
            Ty::Dotable(a, b) => {
                self.operand(out, node, Side::Left, a);
                out.push_str("=>");
                self.operand(out, node, Side::Right, b);
            }
            Ty::Extendable(b, pointer) => {
                let pointer = self.store.find(pointer);
                let name = self.namer.name(self.store, pointer);
                let _ = write!(out, "{name}=>*");
                self.operand(out, node, Side::Right, b);
            }
        }
    }

    /// What a dotted type gives when each value waiting for fields takes
    /// the fields after it (`(Int=>Event).Int` is `Event`), if every
    /// field fits what it is given to; `None` if some does not, or if
    /// nothing waits for fields. For writing only: nothing is unified.
    fn applied(&mut self, t: TyId) -> Option<TyId> {
        let mut list = Vec::new();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            let (t, node) = self.store.view(t);
            match node {
                Ty::Dot(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => list.push(t),
            }
        }
        let (&head, fields) = list.split_first()?;
        let mut current = head;
        let mut consumed = 0;
        for &field in fields {
            let (_, Ty::Dotable(arg, rest)) = self.store.view(current) else {
                break;
            };
            if !self.fits(arg, field) {
                return None;
            }
            current = rest;
            consumed += 1;
        }
        if consumed == 0 {
            return None;
        }
        let mut parts = vec![current];
        parts.extend_from_slice(&fields[consumed..]);
        Some(self.store.dots_left(&parts))
    }

    /// Whether a field of type `given` may be what `wanted` asks for: the
    /// same kind of type, or a variable on either side.
    fn fits(&mut self, wanted: TyId, given: TyId) -> bool {
        let (_, wanted) = self.store.view(wanted);
        let (_, given) = self.store.view(given);
        match (wanted, given) {
            (Ty::Var(_) | Ty::Error, _) | (_, Ty::Var(_) | Ty::Error) => true,
            (Ty::Data(a), Ty::Data(b)) => a == b,
            (a, b) => std::mem::discriminant(&a) == std::mem::discriminant(&b),
        }
    }

    fn list(&mut self, out: &mut String, items: &[TyId]) {
        for (i, &item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write(out, item);
        }
    }
}

//! Where each name of a script is declared and where it is used, as the
//! resolver found them: what an editor needs to go to a definition, list
//! references, rename, and say what a name under the cursor is. Recorded
//! while names are resolved, so it follows the resolver's own scopes
//! (a `let`'s names, a pattern's variables, a module's members).

use ustr::Ustr;

use crate::syntax::Span;

use super::Named;
use super::ir::FuncId;

/// What a name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// A top-level name (a definition, datatype, nametype, subtype), a
    /// constructor or a channel.
    Top(NamedKey),
    /// A variable bound by a pattern, a parameter or a `let`: the
    /// resolver's binding number.
    Local(u32),
}

/// [`Named`] with an order, so that symbols sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NamedKey {
    Global(u32),
    Ctor(u32),
    Channel(u32),
}

impl From<Named> for Symbol {
    fn from(named: Named) -> Symbol {
        Symbol::Top(match named {
            Named::Global(g) => NamedKey::Global(g.0),
            Named::Ctor(c) => NamedKey::Ctor(c.0),
            Named::Channel(c) => NamedKey::Channel(c.0),
        })
    }
}

impl Symbol {
    /// The top-level name it is, if it is one.
    pub fn named(self) -> Option<Named> {
        use super::ir::{ChannelId, CtorId, GlobalId};
        match self {
            Symbol::Top(NamedKey::Global(g)) => Some(Named::Global(GlobalId(g))),
            Symbol::Top(NamedKey::Ctor(c)) => Some(Named::Ctor(CtorId(c))),
            Symbol::Top(NamedKey::Channel(c)) => Some(Named::Channel(ChannelId(c))),
            Symbol::Local(_) => None,
        }
    }
}

/// One place a name is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occurrence {
    pub span: Span,
    pub symbol: Symbol,
    /// Whether it is where the name is declared or bound.
    pub declaration: bool,
}

/// A variable and where it is bound.
#[derive(Debug, Clone, Copy)]
pub struct LocalName {
    pub name: Ustr,
    pub bound_at: Span,
    /// A name the body of a module never instantiated declares (a
    /// definition, a channel, a constructor, a parameter; not a
    /// variable of a `let` or a pattern there): it is known by its text
    /// alone, as nothing evaluates it.
    pub uninstantiated: bool,
}

/// Every name's declaration and uses.
#[derive(Debug, Default)]
pub struct NameIndex {
    /// Sorted by place once resolution ends.
    occurrences: Vec<Occurrence>,
    /// The variables, by binding number.
    locals: rustc_hash::FxHashMap<u32, LocalName>,
    /// Each symbol's occurrences, by place in `occurrences`.
    by_symbol: rustc_hash::FxHashMap<Symbol, Vec<u32>>,
    /// Each variable's function and slot, by binding number.
    slots: rustc_hash::FxHashMap<u32, (FuncId, u32)>,
    /// The variables by function and slot.
    by_slot: rustc_hash::FxHashMap<(FuncId, u32), u32>,
}

impl NameIndex {
    /// A top-level name, constructor or channel declared at `span`.
    pub(super) fn declared(&mut self, named: Named, span: Span) {
        self.push(span, named.into(), true);
    }

    /// A variable `name` (binding `id`) bound at `span`.
    pub(super) fn bound(&mut self, id: u32, name: Ustr, span: Span) {
        // Names the resolver makes up (`$pattern`, `$group3`) are no one's.
        if name.starts_with('$') || span.is_empty() {
            return;
        }
        self.locals.insert(
            id,
            LocalName {
                name,
                bound_at: span,
                uninstantiated: false,
            },
        );
        self.push(span, Symbol::Local(id), true);
    }

    /// Variable `id` lives in slot `slot` of `func`.
    pub(super) fn slot_of(&mut self, id: u32, func: FuncId, slot: u32) {
        if self.locals.contains_key(&id) {
            self.slots.insert(id, (func, slot));
            self.by_slot.insert((func, slot), id);
        }
    }

    /// The function and slot of variable `id`.
    pub fn slot(&self, id: u32) -> Option<(FuncId, u32)> {
        self.slots.get(&id).copied()
    }

    /// The variable in slot `slot` of `func`, with its name.
    pub fn variable_in(&self, func: FuncId, slot: u32) -> Option<&LocalName> {
        self.by_slot
            .get(&(func, slot))
            .and_then(|id| self.locals.get(id))
    }

    /// A use at `span` of what `symbol` is.
    pub(super) fn used(&mut self, symbol: Symbol, span: Span) {
        if let Symbol::Local(id) = symbol
            && !self.locals.contains_key(&id)
        {
            return;
        }
        self.push(span, symbol, false);
    }

    /// Takes in the names `copies` recorded (the index of the generic
    /// copies of parameterised modules, [`super::generic`]) where no
    /// instance recorded any: the bodies of modules never instantiated.
    /// The copies' own declarations (those `declared_by_copy` names,
    /// which the checker's clean-up removes) become variables of their
    /// own, numbered from `next_binding` on; what the bodies use from
    /// outside them stays what it is.
    pub(super) fn adopt_uninstantiated(
        &mut self,
        copies: NameIndex,
        declared_by_copy: impl Fn(Named) -> Option<Ustr>,
        next_binding: &mut u32,
    ) {
        let span_of = |span: Span| (span.start, span.end);
        let indexed: rustc_hash::FxHashSet<(u32, u32)> =
            self.occurrences.iter().map(|o| span_of(o.span)).collect();
        // What this index declares at a place: a copy's name declared
        // there (a module an instance resolved, met again through an
        // instance inside a module never instantiated) is that name.
        let declared_here: rustc_hash::FxHashMap<(u32, u32), Symbol> = self
            .occurrences
            .iter()
            .filter(|o| o.declaration)
            .map(|o| (span_of(o.span), o.symbol))
            .collect();
        let copy_declared: rustc_hash::FxHashMap<Symbol, Span> = copies
            .occurrences
            .iter()
            .filter(|o| o.declaration)
            .map(|o| (o.symbol, o.span))
            .collect();
        let mut renamed: rustc_hash::FxHashMap<Symbol, Symbol> = rustc_hash::FxHashMap::default();
        for o in &copies.occurrences {
            if indexed.contains(&span_of(o.span)) {
                continue;
            }
            let declared_at = copy_declared.get(&o.symbol).copied();
            let already = declared_at.and_then(|span| declared_here.get(&span_of(span)));
            let symbol = match (o.symbol, already) {
                (_, Some(&symbol)) => symbol,
                (Symbol::Local(id), None) => match copies.locals.get(&id) {
                    Some(&local) => {
                        self.locals.insert(id, local);
                        o.symbol
                    }
                    None => continue,
                },
                (Symbol::Top(_), None) => match o.symbol.named().and_then(&declared_by_copy) {
                    Some(name) => *renamed.entry(o.symbol).or_insert_with(|| {
                        let id = *next_binding;
                        *next_binding += 1;
                        if let Some(bound_at) = declared_at {
                            self.locals.insert(
                                id,
                                LocalName {
                                    name,
                                    bound_at,
                                    uninstantiated: true,
                                },
                            );
                        }
                        Symbol::Local(id)
                    }),
                    None => o.symbol,
                },
            };
            self.push(o.span, symbol, o.declaration);
        }
        // A use whose declaration was taken in nowhere names nothing.
        let locals = &self.locals;
        self.occurrences.retain(|o| match o.symbol {
            Symbol::Local(id) => locals.contains_key(&id),
            Symbol::Top(_) => true,
        });
    }

    fn push(&mut self, span: Span, symbol: Symbol, declaration: bool) {
        self.occurrences.push(Occurrence {
            span,
            symbol,
            declaration,
        });
    }

    /// Sorts by place and drops repeats (a module instance's body is
    /// resolved once per instance, each time at the module's text).
    pub(super) fn finish(&mut self) {
        self.occurrences
            .sort_by_key(|o| (o.span.start, o.span.end, o.symbol));
        self.occurrences
            .dedup_by_key(|o| (o.span.start, o.span.end, o.symbol));
        self.by_symbol.clear();
        for (at, o) in self.occurrences.iter().enumerate() {
            self.by_symbol.entry(o.symbol).or_default().push(at as u32);
        }
    }

    /// The name written at `position` (a position in the script's source
    /// map), the innermost when several contain it.
    pub fn at(&self, position: u32) -> Option<&Occurrence> {
        let after = self
            .occurrences
            .partition_point(|o| o.span.start <= position);
        self.occurrences[..after]
            .iter()
            .rev()
            .take(64)
            .filter(|o| position <= o.span.end)
            .min_by_key(|o| o.span.end - o.span.start)
    }

    /// Every place `symbol` is written, its declaration included, in
    /// order.
    pub fn occurrences_of(&self, symbol: Symbol) -> impl Iterator<Item = &Occurrence> + '_ {
        let places = self.by_symbol.get(&symbol).map_or(&[][..], Vec::as_slice);
        places.iter().map(|&at| &self.occurrences[at as usize])
    }

    /// Where `symbol` is declared or bound.
    pub fn declaration(&self, symbol: Symbol) -> Option<Span> {
        self.occurrences_of(symbol)
            .find(|o| o.declaration)
            .map(|o| o.span)
    }

    /// The variable bound as `id`.
    pub fn local(&self, id: u32) -> Option<&LocalName> {
        self.locals.get(&id)
    }

    /// Every place written, in order.
    pub fn occurrences(&self) -> &[Occurrence] {
        &self.occurrences
    }
}

#[cfg(test)]
mod tests {
    use crate::script::Script;

    /// The text of each occurrence of the name written at the first
    /// `marker` in `text`, and whether it is the declaration.
    fn occurrences(text: &str, marker: &str) -> Vec<(String, bool)> {
        let script = Script::load_str("t.csp", text).expect("loads");
        let at = text.find(marker).expect("marker") as u32;
        let found = script.index.at(at).expect("a name there");
        script
            .index
            .occurrences_of(found.symbol)
            .map(|o| {
                let line = script.sources.location(o.span).line;
                (
                    format!("{}@{line}", script.sources.snippet(o.span)),
                    o.declaration,
                )
            })
            .collect()
    }

    #[test]
    fn a_global_is_found_where_declared_and_wherever_used() {
        let text = "channel c : {0..2}\nP(x) = c!x -> P(x)\nQ = P(1) ||| P(2)\n";
        assert_eq!(
            occurrences(text, "P(1)"),
            [
                ("P@2".to_string(), true),
                ("P@2".to_string(), false),
                ("P@3".to_string(), false),
                ("P@3".to_string(), false)
            ]
        );
        assert_eq!(
            occurrences(text, "c!x"),
            [("c@1".to_string(), true), ("c@2".to_string(), false)]
        );
    }

    #[test]
    fn a_variable_is_its_own_binding_not_a_namesake() {
        // Two `x`s: the parameter of P and the input of Q.
        let text = "channel c : {0..2}\nP(x) = c!x -> STOP\nQ = c?x -> c!x -> STOP\n";
        assert_eq!(
            occurrences(text, "x) ="),
            [("x@2".to_string(), true), ("x@2".to_string(), false)]
        );
        assert_eq!(
            occurrences(text, "x -> c!x"),
            [("x@3".to_string(), true), ("x@3".to_string(), false)]
        );
    }

    #[test]
    fn the_body_of_a_module_never_instantiated_is_indexed_by_its_text() {
        let text =
            "channel c : {0..2}\nmodule M(k)\n  f = k + 1\nexports\n  P = c!f -> P\nendmodule\n";
        // Its own definitions and parameter, each its own name.
        assert_eq!(
            occurrences(text, "f = k"),
            [("f@3".to_string(), true), ("f@5".to_string(), false)]
        );
        assert_eq!(
            occurrences(text, "k + 1"),
            [("k@2".to_string(), true), ("k@3".to_string(), false)]
        );
        assert_eq!(
            occurrences(text, "P\nendmodule"),
            [("P@5".to_string(), true), ("P@5".to_string(), false)]
        );
        // What it uses from outside is what it is everywhere.
        assert_eq!(
            occurrences(text, "c!f"),
            [("c@1".to_string(), true), ("c@5".to_string(), false)]
        );
        let script = Script::load_str("t.csp", text).expect("loads");
        let at = text.find("f = k").unwrap() as u32;
        let super::Symbol::Local(id) = script.index.at(at).unwrap().symbol else {
            panic!("a module's own name is a name of its own");
        };
        assert!(script.index.local(id).unwrap().uninstantiated);
    }

    #[test]
    fn an_instance_inside_a_module_never_instantiated_names_its_module_s_definitions() {
        let text = "channel c : {0..2}\nmodule N(x)\nexports\n  Q = c!x -> Q\nendmodule\ninstance N1 = N(1)\nmodule M(k)\n  instance I = N(k)\nexports\n  P = let y = I::Q within y\nendmodule\nR = N1::Q\n";
        let found = occurrences(text, "I::Q within");
        assert!(found.contains(&("Q@4".to_string(), true)), "{found:?}");
        assert!(found.contains(&("I::Q@10".to_string(), false)), "{found:?}");
        assert!(
            found.contains(&("N1::Q@12".to_string(), false)),
            "{found:?}"
        );
        // A `let` of the body is a variable as anywhere else.
        let script = Script::load_str("t.csp", text).expect("loads");
        let at = text.find("y =").unwrap() as u32;
        let super::Symbol::Local(id) = script.index.at(at).unwrap().symbol else {
            panic!("a variable");
        };
        assert!(!script.index.local(id).unwrap().uninstantiated);
        // The module's own names are written as in its body.
        let at = text.find("P =").unwrap() as u32;
        let super::Symbol::Local(id) = script.index.at(at).unwrap().symbol else {
            panic!("a name of its own");
        };
        assert_eq!(script.index.local(id).unwrap().name, "P");
    }

    #[test]
    fn an_instantiated_module_is_indexed_once_by_its_instances() {
        let text = "channel c : {0..2}\nmodule M(k)\n  f = k + 1\nexports\n  P = c!f -> P\nendmodule\ninstance M1 = M(0)\nQ = M1::P\n";
        assert_eq!(
            occurrences(text, "f = k"),
            [("f@3".to_string(), true), ("f@5".to_string(), false)]
        );
        let script = Script::load_str("t.csp", text).expect("loads");
        let at = text.find("f = k").unwrap() as u32;
        assert!(
            script.index.at(at).unwrap().symbol.named().is_some(),
            "an instance's definition is the instance's"
        );
    }

    #[test]
    fn let_names_and_constructors_are_indexed() {
        let text = "datatype T = A | B\nf(y) = let z = y within if z == A then B else A\n";
        assert_eq!(
            occurrences(text, "z =="),
            [("z@2".to_string(), true), ("z@2".to_string(), false)]
        );
        assert_eq!(
            occurrences(text, "A |"),
            [
                ("A@1".to_string(), true),
                ("A@2".to_string(), false),
                ("A@2".to_string(), false)
            ]
        );
    }
}

//! What automatic mode calls the sets it chose. It permutes, of each
//! datatype, the atomic constructors the script never names — often not
//! the whole datatype — so calling the set by the datatype's name would
//! misname it (`NodeIDType = {N0, N1, N2}`, when `Null` is left out).
//! A set is called by the script's own name for it when the script has
//! one (`NodeID = diff(NodeIDType, {Null})`, `subtype`, `nametype`), else
//! by the datatype less what was left out (`NodeIDType less Null`), and by
//! the datatype's name only when it is the whole datatype.

use std::collections::BTreeSet;

use crate::script::Script;
use crate::script::builtins::Builtin;
use crate::script::ir::{CtorId, DataTypeId, ExprId, ExprKind, FuncId, FunctionKind, GlobalKind};

/// The name of `values` (atomic constructors of `datatype`, sorted)
/// from the datatype alone: its name, or `T less A, B`.
pub fn by_datatype(script: &Script, datatype: DataTypeId, values: &[CtorId]) -> String {
    let declared = &script.datatypes[datatype.index()];
    let outside: Vec<&str> = declared
        .ctors
        .iter()
        .filter(|c| !values.contains(c))
        .map(|c| script.ctors[c.index()].name.as_str())
        .collect();
    if outside.is_empty() {
        declared.name.to_string()
    } else {
        format!("{} less {}", declared.name, outside.join(", "))
    }
}

/// The first top-level name (in source order) the script gives to the
/// set `values` (sorted constructors): a subtype, a nametype or a
/// constant whose value is that set. The sets are worked out from the
/// text alone (set literals of constructors, datatypes, `{| C |}`, and
/// `diff`, `union` or `inter` of such sets or of names for them): naming
/// never evaluates, so it costs a walk over the definitions however
/// large the script's constants (evaluating `union(…)` of a big set took
/// seconds before a check began).
pub fn by_definition(script: &Script, values: &[CtorId]) -> Option<String> {
    let mut globals: Vec<_> = script.globals.iter().collect();
    globals.sort_by_key(|g| g.span.start);
    globals.into_iter().find_map(|global| {
        let found = match &global.kind {
            GlobalKind::SubType(clauses) => {
                let mut ctors: Vec<CtorId> = clauses
                    .iter()
                    .filter(|(_, fields)| fields.is_empty())
                    .map(|(c, _)| *c)
                    .collect();
                ctors.sort_unstable();
                // A clause with fields makes it another set.
                (ctors.len() == clauses.len()).then_some(ctors)
            }
            GlobalKind::Definition(f) | GlobalKind::NameType(f) => {
                let whole = constant_set(script, *f, 0)?;
                let atomic = whole
                    .iter()
                    .all(|c| script.ctors[c.index()].fields.is_empty());
                atomic.then(|| whole.into_iter().collect())
            }
            GlobalKind::Builtin(_) | GlobalKind::DataType(_) => None,
        };
        (found.as_deref() == Some(values)).then(|| global.name.to_string())
    })
}

/// How many names deep [`ctor_set`] follows a definition.
const FOLLOWED: u32 = 16;

/// The constructors whose every value makes up the value of constant
/// `f`, when its text plainly says so.
fn constant_set(script: &Script, f: FuncId, depth: u32) -> Option<BTreeSet<CtorId>> {
    let function = script.function(f);
    let [clause] = &function.clauses[..] else {
        return None;
    };
    if function.kind != FunctionKind::Constant || !function.arity.is_empty() {
        return None;
    }
    ctor_set(script, clause.body, depth)
}

/// The constructors whose values make up the set `e` denotes, from its
/// text: each constructor stands for all its values (`C` of `C.{0..1}`
/// for `{| C |}`), so that whole datatypes less some of them are exact.
/// `None` where the text does not plainly say.
fn ctor_set(script: &Script, e: ExprId, depth: u32) -> Option<BTreeSet<CtorId>> {
    if depth > FOLLOWED {
        return None;
    }
    let atomic = |e: &ExprId| match script.expr(*e).kind {
        ExprKind::Ctor(c) if script.ctors[c.index()].fields.is_empty() => Some(c),
        _ => None,
    };
    match &script.expr(e).kind {
        ExprKind::Set(items) => items.iter().map(atomic).collect(),
        ExprKind::Production(items, stmts) if stmts.is_empty() => items
            .iter()
            .map(|e| match script.expr(*e).kind {
                ExprKind::Ctor(c) => Some(c),
                _ => None,
            })
            .collect(),
        ExprKind::Global(g) => match &script.globals[g.index()].kind {
            GlobalKind::DataType(d) => {
                Some(script.datatypes[d.index()].ctors.iter().copied().collect())
            }
            GlobalKind::SubType(clauses) if clauses.iter().all(|(_, f)| f.is_empty()) => {
                Some(clauses.iter().map(|(c, _)| *c).collect())
            }
            GlobalKind::Definition(f) | GlobalKind::NameType(f) => {
                constant_set(script, *f, depth + 1)
            }
            _ => None,
        },
        ExprKind::App(head, args) => {
            let ExprKind::Global(g) = script.expr(*head).kind else {
                return None;
            };
            let GlobalKind::Builtin(builtin) = script.globals[g.index()].kind else {
                return None;
            };
            let [a, b] = &args[..] else {
                return None;
            };
            let (a, b) = (
                ctor_set(script, *a, depth + 1)?,
                ctor_set(script, *b, depth + 1)?,
            );
            match builtin {
                Builtin::Union => Some(&a | &b),
                Builtin::Inter => Some(&a & &b),
                Builtin::Diff => Some(&a - &b),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `by_definition`'s name for the constructors `names` of `text`.
    fn named(text: &str, names: &[&str]) -> Option<String> {
        let script = Script::load_str("t.csp", text).expect("loads");
        let mut values: Vec<CtorId> = names
            .iter()
            .map(|n| {
                let at = script.ctors.iter().position(|c| c.name.as_str() == *n);
                CtorId(at.expect("a constructor") as u32)
            })
            .collect();
        values.sort_unstable();
        by_definition(&script, &values)
    }

    #[test]
    fn a_set_is_called_by_the_first_definition_of_it() {
        let text = "datatype T = Null | A | B | C.{0..1}\n\
                    Big = {0..1000}\n\
                    Two = {A, B}\n\
                    Pair = diff(T, union({Null}, {| C |}))\n\
                    subtype Sub = A | B\n";
        assert_eq!(named(text, &["A", "B"]).as_deref(), Some("Two"));
        let text = "datatype T = Null | A | B\nsubtype Sub = A | B\nTwo = {A, B}\n";
        assert_eq!(named(text, &["A", "B"]).as_deref(), Some("Sub"));
        // Not plainly a set of constructors: not evaluated, not a name.
        let text = "datatype T = Null | A | B\nf(x) = x\nTwo = f({A, B})\n";
        assert_eq!(named(text, &["A", "B"]), None);
        let text = "datatype T = Null | A | B\nchannel c : T\nSome = {c.A}\n";
        assert_eq!(named(text, &["A", "B"]), None);
    }

    #[test]
    fn sets_are_worked_out_from_the_text_without_evaluating() {
        // Whole constructors less others, through names.
        let text = "datatype T = Null | A | B | C.{0..1}\n\
                    Pair = diff(T, union({Null}, {| C |}))\n\
                    Same = inter(Pair, {A, B, Null})\n";
        assert_eq!(named(text, &["A", "B"]).as_deref(), Some("Pair"));
        // A set worked out only by evaluation (here one of 10^12 integers,
        // which would take for ever) is never evaluated: no name, at once.
        let text = "datatype T = Null | A | B\n\
                    Huge = union({A, B}, {x | x <- {0..999999999999}})\n\
                    Two = union({A}, {B})\n";
        assert_eq!(named(text, &["A", "B"]).as_deref(), Some("Two"));
        // A definition that names itself is not followed for ever.
        let text = "datatype T = Null | A | B\nLoop = union(Loop, {A})\n";
        assert_eq!(named(text, &["A", "B"]), None);
    }

    #[test]
    fn without_a_definition_the_set_is_the_datatype_less_what_it_lacks() {
        let script = Script::load_str("t.csp", "datatype T = Null | A | B\n").expect("loads");
        let (a, b) = (CtorId(1), CtorId(2));
        assert_eq!(by_datatype(&script, DataTypeId(0), &[a, b]), "T less Null");
        assert_eq!(by_datatype(&script, DataTypeId(0), &[CtorId(0), a, b]), "T");
    }
}

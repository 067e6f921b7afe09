//! What automatic mode calls the sets it chose. It permutes, of each
//! datatype, the atomic constructors the script never names — often not
//! the whole datatype — so calling the set by the datatype's name would
//! misname it (`NodeIDType = {N0, N1, N2}`, when `Null` is left out).
//! A set is called by the script's own name for it when the script has
//! one (`NodeID = diff(NodeIDType, {Null})`, `subtype`, `nametype`), else
//! by the datatype less what was left out (`NodeIDType less Null`), and by
//! the datatype's name only when it is the whole datatype.

use crate::eval::{Evaluator, Value};
use crate::script::Script;
use crate::script::builtins::Builtin;
use crate::script::ir::{CtorId, DataTypeId, ExprKind, FuncId, FunctionKind, GlobalKind};

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
/// constant whose value is that set. Only definitions that are plainly
/// sets of constructors are evaluated (a set literal, or `diff`, `union`
/// or `inter` of others), so naming never runs an arbitrary computation.
pub fn by_definition(script: &Script, eval: &Evaluator, values: &[CtorId]) -> Option<String> {
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
            GlobalKind::Definition(f) | GlobalKind::NameType(f) => constructors(script, eval, *f),
            GlobalKind::Builtin(_) | GlobalKind::DataType(_) => None,
        };
        (found.as_deref() == Some(values)).then(|| global.name.to_string())
    })
}

/// The constructors in the value of constant `f`, sorted, when its body
/// is plainly a set and its value a set of constructors without fields.
fn constructors(script: &Script, eval: &Evaluator, f: FuncId) -> Option<Vec<CtorId>> {
    let function = script.function(f);
    let [clause] = &function.clauses[..] else {
        return None;
    };
    if function.kind != FunctionKind::Constant || !function.arity.is_empty() {
        return None;
    }
    let body = script.expr(clause.body);
    let plainly_a_set = match &body.kind {
        ExprKind::Set(_) => true,
        ExprKind::App(head, _) => matches!(
            script.expr(*head).kind,
            ExprKind::Global(g) if matches!(
                script.globals[g.index()].kind,
                GlobalKind::Builtin(Builtin::Diff | Builtin::Union | Builtin::Inter)
            )
        ),
        _ => false,
    };
    if !plainly_a_set {
        return None;
    }
    let Ok(Value::Set(set)) = eval.eval_constant(f) else {
        return None;
    };
    let mut ctors = Vec::new();
    for value in eval.elements(&set, body.span).ok()? {
        match value {
            Value::Ctor(c) if script.ctors[c.index()].fields.is_empty() => ctors.push(*c),
            _ => return None,
        }
    }
    ctors.sort_unstable();
    Some(ctors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `by_definition`'s name for the constructors `names` of `text`.
    fn named(text: &str, names: &[&str]) -> Option<String> {
        let script = Script::load_str("t.csp", text).expect("loads");
        let eval = Evaluator::new(&script);
        let mut values: Vec<CtorId> = names
            .iter()
            .map(|n| {
                let at = script.ctors.iter().position(|c| c.name.as_str() == *n);
                CtorId(at.expect("a constructor") as u32)
            })
            .collect();
        values.sort_unstable();
        by_definition(&script, &eval, &values)
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
    fn without_a_definition_the_set_is_the_datatype_less_what_it_lacks() {
        let script = Script::load_str("t.csp", "datatype T = Null | A | B\n").expect("loads");
        let (a, b) = (CtorId(1), CtorId(2));
        assert_eq!(by_datatype(&script, DataTypeId(0), &[a, b]), "T less Null");
        assert_eq!(by_datatype(&script, DataTypeId(0), &[CtorId(0), a, b]), "T");
    }
}

//! Values in FDR's printed form: `{1, 2, 3}`, `<1, 2>`, `"abc"`,
//! `c.1.A`, `(1, true)`, `(| 1 => 2 |)`, and processes as the call or
//! expression they came from (`Node(N3, B, N1)`).

use std::fmt::{self, Display, Formatter, Write};

use crate::script::Script;
use crate::script::ir::{ExprId, ExprKind, FuncId, FunctionKind, LetGroup, VarRef};
use crate::syntax::Span;

use super::fold::{FOLDED_CLOSE, FOLDED_OPEN};
use super::value::{Proc, Set, Value};

/// A value with the script that names its constructors and channels.
pub struct Printed<'a> {
    pub script: &'a Script,
    pub value: &'a Value,
}

impl Display for Printed<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_value(f, self.script, self.value)
    }
}

/// The printed form of a value.
pub fn show(script: &Script, value: &Value) -> String {
    Printed { script, value }.to_string()
}

fn write_list<'a>(
    f: &mut Formatter<'_>,
    script: &Script,
    values: impl IntoIterator<Item = &'a Value>,
    separator: &str,
) -> fmt::Result {
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            f.write_str(separator)?;
        }
        write_value(f, script, v)?;
    }
    Ok(())
}

fn write_value(f: &mut Formatter<'_>, script: &Script, value: &Value) -> fmt::Result {
    match value {
        Value::Int(i) => write!(f, "{i}"),
        Value::Bool(b) => write!(f, "{b}"),
        Value::Char(c) => write!(f, "'{}'", c.escape_default()),
        Value::Ctor(c) => f.write_str(&script.ctors[c.index()].name),
        Value::Channel(c) => f.write_str(&script.channels[c.index()].name),
        Value::Named(parts) | Value::Dot(parts) => {
            for (i, v) in parts.iter().enumerate() {
                if i > 0 {
                    f.write_char('.')?;
                }
                // A tuple or negative number inside a dotted value needs
                // no brackets; a nested dotted field prints flat, as FDR.
                write_value(f, script, v)?;
            }
            Ok(())
        }
        Value::Tuple(vs) => {
            f.write_char('(')?;
            write_list(f, script, vs.iter(), ", ")?;
            f.write_char(')')
        }
        Value::Seq(s) => {
            if !s.is_empty() && s.iter().all(|v| matches!(v, Value::Char(_))) {
                f.write_char('"')?;
                for v in s.iter() {
                    if let Value::Char(c) = v {
                        write!(f, "{}", c.escape_default())?;
                    }
                }
                return f.write_char('"');
            }
            f.write_char('<')?;
            write_list(f, script, s.iter(), ", ")?;
            f.write_char('>')
        }
        Value::Stream(s) => {
            // `<1, 5>^<7..>`: the prefix as a sequence, then the range.
            if !s.prefix().is_empty() {
                write_value(f, script, &Value::Seq(s.prefix().clone()))?;
                f.write_char('^')?;
            }
            write!(f, "{s}")
        }
        Value::Set(s) => write_set(f, script, s),
        Value::Map(m) => {
            if m.is_empty() {
                return f.write_str("(| |)");
            }
            f.write_str("(| ")?;
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_value(f, script, k)?;
                f.write_str(" => ")?;
                write_value(f, script, v)?;
            }
            f.write_str(" |)")
        }
        Value::Closure(c) => {
            let func = script.function(c.func);
            match func.kind {
                FunctionKind::Lambda => write!(f, "{}", script.sources.snippet(func.span)),
                _ => f.write_str(&func.name),
            }
        }
        Value::Builtin(b) => f.write_str(b.name()),
        Value::Image(_) => f.write_str("relational_image(...)"),
        Value::Proc(p) => write_proc(f, script, p),
        Value::Env(_) => f.write_str("<environment>"),
    }
}

fn write_set(f: &mut Formatter<'_>, script: &Script, set: &Set) -> fmt::Result {
    match set {
        Set::Finite(vs) => {
            f.write_char('{')?;
            write_list(f, script, vs, ", ")?;
            f.write_char('}')
        }
        Set::AllInts => f.write_str("Int"),
        Set::IntsFrom(n) => write!(f, "{{{n}..}}"),
        Set::AllChars => f.write_str("Char"),
        Set::AllProcs => f.write_str("Proc"),
        Set::Seqs(a) => {
            f.write_str("Seq(")?;
            write_set(f, script, a)?;
            f.write_char(')')
        }
        Set::Powerset(a) => {
            f.write_str("Set(")?;
            write_set(f, script, a)?;
            f.write_char(')')
        }
        Set::DataType(d) => f.write_str(&script.datatypes[d.index()].name),
        Set::Maps(a, b) => {
            f.write_str("Map(")?;
            write_set(f, script, a)?;
            f.write_str(", ")?;
            write_set(f, script, b)?;
            f.write_char(')')
        }
    }
}

fn write_proc(f: &mut Formatter<'_>, script: &Script, proc: &Proc) -> fmt::Result {
    match proc {
        Proc::Builtin { builtin, args } => {
            f.write_str(builtin.name())?;
            if !args.is_empty() {
                f.write_char('(')?;
                write_list(f, script, args.iter(), ", ")?;
                f.write_char(')')?;
            }
            Ok(())
        }
        Proc::Node { func, vars } => {
            let function = script.function(*func);
            if let Some(call) = function.call_form.as_ref().or(function.shown_call.as_ref()) {
                f.write_str(&call.name)?;
                if !call.params.is_empty() {
                    f.write_char('(')?;
                    for (i, param) in call.params.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        match param.and_then(|p| vars.get(p as usize)) {
                            Some(v) => write_value(f, script, v)?,
                            None => f.write_char('_')?,
                        }
                    }
                    f.write_char(')')?;
                }
                return Ok(());
            }
            f.write_str(&node_text(script, *func, vars, &[]))
        }
    }
}

/// A control state that is not a call: its source text with `folds`
/// (parts worked out, by span) spliced in and every use of a variable it
/// captured replaced by its value.
fn node_text(script: &Script, func: FuncId, vars: &[Value], folds: &[(Span, String)]) -> String {
    let function = script.function(func);
    let whole = script.sources.snippet(function.span);
    let source = &whole[..crate::syntax::floor_char_boundary(whole, SHOWN_SOURCE)];
    let base = function.span.start;
    // A use inside a folded part is folded with it.
    let uses = capture_uses(script, func, base + source.len() as u32)
        .into_iter()
        .filter(|(span, _)| {
            !folds
                .iter()
                .any(|(fold, _)| fold.start <= span.start && span.end <= fold.end)
        })
        .filter_map(|(span, capture)| match vars.get(capture as usize) {
            Some(Value::Env(_)) | None => None,
            Some(value) => Some((span, show(script, value))),
        });
    let mut splices: Vec<(Span, String)> = folds.iter().cloned().chain(uses).collect();
    splices.sort_by_key(|(span, _)| span.start);
    let mut spliced = String::with_capacity(source.len());
    let mut at = 0;
    for (span, value) in &splices {
        let (start, end) = ((span.start - base) as usize, (span.end - base) as usize);
        if start < at || end > source.len() {
            continue;
        }
        spliced.push_str(&source[at..start]);
        spliced.push(FOLDED_OPEN);
        spliced.push_str(value);
        spliced.push(FOLDED_CLOSE);
        at = end;
    }
    spliced.push_str(&source[at..]);
    let text = crate::syntax::without_comments(&spliced);
    let text = crate::syntax::one_line(&text);
    let mut shown = strip_enclosing_parens(&text).replace([FOLDED_OPEN, FOLDED_CLOSE], "");
    if source.len() < whole.len() {
        shown.push_str(" …");
    }
    shown
}

/// The most of a control state's source text that is shown: a longer one
/// (the rest of a 10 000-step prefix chain) is cut short with `…`, so
/// that showing every state of a path costs the path's length, not its
/// square.
const SHOWN_SOURCE: usize = 1024;

/// Where the body of `func` (and the functions written inside it) uses
/// the variables `func` captured: each use's span and capture index. Read
/// from the resolved program, so a name bound again inside (`?x`, a
/// `let`, a comprehension's generator, a lambda's parameter) is never
/// taken for the captured variable of the same name. Only the uses that
/// start before `shown_end` are looked for.
fn capture_uses(script: &Script, func: FuncId, shown_end: u32) -> Vec<(Span, u32)> {
    let mut uses = Vec::new();
    // Each function to read, with what its captures are in `func`'s.
    let identity = (0..script.function(func).captures.len() as u32)
        .map(Some)
        .collect();
    let mut functions: Vec<(FuncId, Vec<Option<u32>>)> = vec![(func, identity)];
    while let Some((f, outer)) = functions.pop() {
        let through = |vars: &[VarRef]| -> Vec<Option<u32>> {
            vars.iter()
                .map(|v| match v {
                    VarRef::Capture(j) => outer.get(*j as usize).copied().flatten(),
                    VarRef::Local(_) | VarRef::Env => None,
                })
                .collect()
        };
        let mut exprs: Vec<ExprId> = script.function(f).clauses.iter().map(|c| c.body).collect();
        while let Some(id) = exprs.pop() {
            let expr = script.expr(id);
            if expr.span.start >= shown_end {
                continue;
            }
            match &expr.kind {
                ExprKind::Var(VarRef::Capture(j)) => {
                    if let Some(capture) = outer.get(*j as usize).copied().flatten() {
                        uses.push((expr.span, capture));
                    }
                }
                ExprKind::Lambda(nested, vars) | ExprKind::Process(nested, vars) => {
                    functions.push((*nested, through(vars)));
                }
                ExprKind::Let(groups, body) => {
                    for group in groups {
                        match group {
                            LetGroup::Lazy { func, captures, .. } => {
                                functions.push((*func, through(captures)));
                            }
                            // Each member captures the group's variables.
                            LetGroup::Recursive {
                                captures, members, ..
                            } => {
                                let mapping = through(captures);
                                functions.extend(members.iter().map(|m| (*m, mapping.clone())));
                            }
                        }
                    }
                    exprs.push(*body);
                }
                kind => kind.for_each_child(|child| exprs.push(child)),
            }
        }
    }
    uses
}

/// A state's variables with their values, in capture order (a recursive
/// `let` group's environment is not one).
fn bindings<'s>(
    script: &Script,
    function: &'s crate::script::ir::Function,
    vars: &[Value],
) -> Vec<(&'s str, String)> {
    function
        .captures
        .iter()
        .zip(vars.iter())
        .filter(|(_, v)| !matches!(v, Value::Env(_)))
        .map(|(name, v)| (name.as_str(), show(script, v)))
        .collect()
}

/// A control state that is not a call, with what it holds worked out
/// (`folds`); when that changes what it reads, its bindings follow, so
/// that states which fold alike still read differently.
pub(super) fn show_folded(
    script: &Script,
    func: FuncId,
    vars: &[Value],
    folds: &[(Span, String)],
) -> String {
    let plain = node_text(script, func, vars, &[]);
    if folds.is_empty() {
        return plain;
    }
    let folded = node_text(script, func, vars, folds);
    if folded == plain {
        return plain;
    }
    let bound: Vec<String> = bindings(script, script.function(func), vars)
        .into_iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    if bound.is_empty() {
        folded
    } else {
        format!("{folded}  where {}", bound.join(", "))
    }
}

/// `(a -> P)` as `a -> P`: a process expression's span may include the
/// brackets around it.
fn strip_enclosing_parens(text: &str) -> &str {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return text;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return text;
        }
    }
    if depth == 0 { inner } else { text }
}

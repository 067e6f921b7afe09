//! The constant-free check (Definition 23): a script is symmetric in
//! distinguished types T when it names no constant of T outside T's own
//! definition and uses none of the built-ins that can single out a value
//! (`seq`, `mapToList`, `mtransclose`, `show`, `deter`, `chase`,
//! `chase_nocache`). Proposition 24 then makes every process of it
//! symmetric in T.
//!
//! The check walks the resolved script from the processes an assertion is
//! about, through every definition they depend on (transitively), and
//! collects each *use* with its span: the verdict for particular types is
//! then a filter over the uses. The declarations every process shares —
//! channel types and datatype fields, which make the set of events and of
//! values — are always walked.

use rustc_hash::FxHashSet;

use crate::process::Compression;
use crate::script::Script;
use crate::script::builtins::{Builtin, ProcessFunction};
use crate::script::ir::{
    CtorId, ExprId, ExprKind, FieldKind, FuncId, GlobalKind, LetGroup, Pattern, ReplicatedOp, Stmt,
};
use crate::syntax::{Diagnostic, Span};

/// Something in the script that breaks symmetry in some types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A constructor named (in an expression, a pattern or a subtype).
    Constant(CtorId),
    /// A built-in whose result depends on the order of values.
    Builtin(Builtin),
}

/// A use, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason {
    pub span: Span,
    pub what: Use,
}

/// Whether a built-in may single out a value of a distinguished type
/// (Definition 23, item 2).
pub fn breaks_symmetry(builtin: Builtin) -> bool {
    matches!(
        builtin,
        Builtin::SeqOfSet
            | Builtin::MapToList
            | Builtin::Mtransclose
            | Builtin::Show
            | Builtin::ProcessFunction(
                ProcessFunction::Determinise
                    | ProcessFunction::Chase
                    | ProcessFunction::ChaseNoCache
            )
    ) || compresses(builtin)
}

/// Whether a built-in is a compression: its states are not permuted
/// (yet), so a script that compresses is checked unreduced.
fn compresses(builtin: Builtin) -> bool {
    matches!(builtin, Builtin::ProcessFunction(f) if Compression::of(f).is_some())
}

/// Every use in what `roots` depend on, and in the declarations of
/// channels and datatypes; the bodies of the functions in `exempt` (the
/// definitions of the distinguished types themselves) are not looked
/// into. In the order met, each syntactic use once.
pub fn uses(script: &Script, roots: &[FuncId], exempt: &FxHashSet<FuncId>) -> Vec<Reason> {
    let mut walk = UseScan {
        script,
        exempt,
        seen: FxHashSet::default(),
        functions: Vec::new(),
        reasons: Vec::new(),
    };
    // Events and datatype values come from these declarations, whatever
    // the process.
    for channel in &script.channels {
        walk.functions.extend(channel.fields.iter().copied());
    }
    for ctor in &script.ctors {
        walk.functions.extend(ctor.fields.iter().copied());
    }
    walk.functions.extend(roots.iter().copied());
    walk.run();
    walk.reasons
}

struct UseScan<'a> {
    script: &'a Script,
    exempt: &'a FxHashSet<FuncId>,
    seen: FxHashSet<FuncId>,
    functions: Vec<FuncId>,
    reasons: Vec<Reason>,
}

impl UseScan<'_> {
    fn run(&mut self) {
        // Functions are visited in a fixed order (a stack, children pushed
        // in reverse), so reasons come out in the same order every time.
        self.functions.reverse();
        while let Some(f) = self.functions.pop() {
            if !self.seen.insert(f) || self.exempt.contains(&f) {
                continue;
            }
            let function = self.script.function(f);
            for clause in &function.clauses {
                for pattern in clause.params.iter().flatten() {
                    self.pattern(pattern);
                }
                self.expr(clause.body);
            }
        }
    }

    fn expr(&mut self, root: ExprId) {
        let mut exprs = vec![root];
        while let Some(e) = exprs.pop() {
            let expr = self.script.expr(e);
            match &expr.kind {
                ExprKind::Ctor(c) => self.reasons.push(Reason {
                    span: expr.span,
                    what: Use::Constant(*c),
                }),
                ExprKind::Global(g) => self.global(*g, expr.span),
                ExprKind::Let(groups, _) => {
                    for group in groups {
                        if let LetGroup::Lazy { func, .. } = group {
                            self.functions.push(*func);
                        }
                    }
                }
                ExprKind::Destructure { pattern, .. } => self.pattern(pattern),
                ExprKind::Prefix(_, fields, _) => {
                    for field in fields {
                        if let FieldKind::Input(p, _) | FieldKind::NondetInput(p, _) = &field.kind {
                            self.pattern(p);
                        }
                    }
                }
                ExprKind::SeqComprehension(_, stmts)
                | ExprKind::SetComprehension(_, stmts)
                | ExprKind::Production(_, stmts)
                | ExprKind::Rename(_, _, stmts)
                | ExprKind::LinkedParallel(_, _, stmts, _) => self.stmts(stmts),
                ExprKind::Replicated(op, stmts, _) => {
                    self.stmts(stmts);
                    if let ReplicatedOp::LinkedParallel(_, inner) = op {
                        self.stmts(inner);
                    }
                }
                _ => {}
            }
            self.functions.extend(expr.kind.nested_function());
            let start = exprs.len();
            expr.kind.for_each_child(|child| exprs.push(child));
            exprs[start..].reverse();
        }
    }

    fn global(&mut self, g: crate::script::ir::GlobalId, span: Span) {
        match &self.script.globals[g.index()].kind {
            GlobalKind::Definition(f) | GlobalKind::NameType(f) => self.functions.push(*f),
            GlobalKind::Builtin(b) if breaks_symmetry(*b) => self.reasons.push(Reason {
                span,
                what: Use::Builtin(*b),
            }),
            GlobalKind::SubType(clauses) => {
                // A subtype lists constructors by name.
                let decl = self.script.globals[g.index()].span;
                for (ctor, fields) in clauses {
                    self.reasons.push(Reason {
                        span: decl,
                        what: Use::Constant(*ctor),
                    });
                    self.functions.extend(fields.iter().copied());
                }
            }
            GlobalKind::Builtin(_) | GlobalKind::DataType(_) => {}
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            if let Stmt::Generator(p, _, _) = stmt {
                self.pattern(p);
            }
        }
    }

    fn pattern(&mut self, pattern: &Pattern) {
        pattern.walk(&mut |p| {
            if let Pattern::Ctor(c, span) = p {
                self.reasons.push(Reason {
                    span: *span,
                    what: Use::Constant(*c),
                });
            }
        });
    }
}

/// What a built-in does that breaks symmetry, in words.
pub fn why_builtin_breaks(builtin: Builtin) -> &'static str {
    match builtin {
        Builtin::SeqOfSet => "it lists a set in an order of its own",
        Builtin::MapToList => "it lists a map in an order of its own",
        Builtin::Mtransclose => "it picks a representative of each class in an order of its own",
        Builtin::Show => "it prints values, telling them apart by name",
        b if compresses(b) => "symcsp does not yet permute the states of a compressed process",
        _ => "it prunes transitions in an order of its own",
    }
}

/// The diagnostic for a use of a symmetry-breaking built-in.
pub fn builtin_diagnostic(reason: &Reason, builtin: Builtin) -> Diagnostic {
    Diagnostic::error(
        reason.span,
        format!(
            "`{}` is used here, so {}: {}",
            builtin.name(),
            if compresses(builtin) {
                "symmetry reduction does not apply"
            } else {
                "the script is not symmetric"
            },
            why_builtin_breaks(builtin)
        ),
    )
    .with_note(
        "symmetry reduction needs a script that uses none of seq, mapToList, mtransclose, \
         show, deter, chase, chase_nocache and the compressions (normal, sbisim, ...) in what \
         the checked processes depend on",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(script: &Script, reasons: &[Reason]) -> Vec<String> {
        reasons
            .iter()
            .map(|r| match r.what {
                Use::Constant(c) => script.ctors[c.index()].name.to_string(),
                Use::Builtin(b) => b.name().to_string(),
            })
            .collect()
    }

    fn uses_of(text: &str, root: &str) -> (Script, Vec<Reason>) {
        let mut script = Script::load_str("t.csp", text).expect("loads");
        let root = script.add_expr("<root>", root).expect("resolves");
        let reasons = uses(&script, &[root], &FxHashSet::default());
        (script, reasons)
    }

    #[test]
    fn names_in_expressions_patterns_and_subtypes_count_only_where_the_process_reaches() {
        let text = "datatype T = A | B | C\n\
                    subtype AB = A | B\n\
                    channel c : T\n\
                    f(A) = 1\nf(_) = 2\n\
                    P(x) = c!x -> (if x == C then STOP else P(x))\n\
                    Q = c!B -> STOP\n\
                    Unused = show(A)\n";
        let (script, reasons) = uses_of(text, "P(A)");
        assert_eq!(names(&script, &reasons), ["A", "C"]);
        let (script, reasons) = uses_of(text, "Q [] (c?x:AB -> STOP)");
        assert_eq!(names(&script, &reasons), ["A", "B", "B"]);
        let (script, reasons) = uses_of(text, "c!f(B) -> STOP");
        assert_eq!(names(&script, &reasons), ["B", "A"]);
    }

    #[test]
    fn order_revealing_builtins_are_uses_and_channel_types_always_count() {
        let text = "datatype T = A | B\nchannel c : {A}\nchannel d : T\n\
                    P = d!head(seq(T)) -> STOP\n";
        let (script, reasons) = uses_of(text, "P");
        assert_eq!(names(&script, &reasons), ["A", "seq"]);
        let at = script.sources.location(reasons[1].span);
        assert_eq!((at.line, at.col), (4, 12));
    }
}

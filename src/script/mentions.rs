//! Which names a piece of syntax mentions, ignoring scopes: enough to
//! order the definitions of a `let` by dependency and to see whether a
//! datatype's fields refer back to it. Over-approximating is safe there
//! (at worst a constant is grouped with others and evaluated less lazily).

use rustc_hash::FxHashSet;
use ustr::Ustr;

use crate::syntax::ast::{
    DeclKind, Expr, ExprKind, Field, FieldKind, Lhs, Pattern, PatternKind, Replicated,
    ReplicatedOp, Stmt, StmtKind,
};

/// Adds every name `expr` mentions to `out`.
pub fn expr_mentions(expr: &Expr, out: &mut FxHashSet<Ustr>) {
    // An explicit stack: expressions can nest as deep as the parser allows.
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Char(_)
            | ExprKind::String(_)
            | ExprKind::Bool(_)
            | ExprKind::Wildcard => {}
            ExprKind::Name(n) => {
                out.insert(n.text);
            }
            ExprKind::Tuple(es) | ExprKind::Seq(es) | ExprKind::Set(es) => stack.extend(es),
            ExprKind::App(f, args) => {
                stack.push(f);
                stack.extend(args);
            }
            ExprKind::Dot(a, b)
            | ExprKind::Binary(_, a, b)
            | ExprKind::DoubleAt(a, b)
            | ExprKind::Guard(a, b)
            | ExprKind::Process(_, a, b)
            | ExprKind::Hide(a, b)
            | ExprKind::Project(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            ExprKind::Unary(_, a) => stack.push(a),
            ExprKind::If(a, b, c)
            | ExprKind::GenParallel(a, b, c)
            | ExprKind::Exception(a, b, c)
            | ExprKind::SyncExternalChoice(a, b, c)
            | ExprKind::SyncInterrupt(a, b, c) => {
                stack.push(a);
                stack.push(b);
                stack.push(c);
            }
            ExprKind::AlphaParallel(par) => stack.extend([
                &par.left,
                &par.left_alphabet,
                &par.right_alphabet,
                &par.right,
            ]),
            ExprKind::Let(decls, body) => {
                for d in decls {
                    if let DeclKind::Definition(def) = &d.kind {
                        if let Lhs::Function(_, groups) = &def.lhs {
                            for p in groups.iter().flatten() {
                                pattern_mentions(p, out);
                            }
                        }
                        stack.push(&def.rhs);
                    }
                }
                stack.push(body);
            }
            ExprKind::Lambda(ps, body) => {
                for p in ps {
                    pattern_mentions(p, out);
                }
                stack.push(body);
            }
            ExprKind::SeqRange(a, b, stmts) | ExprKind::SetRange(a, b, stmts) => {
                stack.push(a);
                stack.extend(b.as_deref());
                push_stmts(stmts, out, &mut stack);
            }
            ExprKind::SeqComprehension(es, stmts)
            | ExprKind::SetComprehension(es, stmts)
            | ExprKind::Production(es, stmts) => {
                stack.extend(es);
                push_stmts(stmts, out, &mut stack);
            }
            ExprKind::Map(pairs) => push_pairs(pairs, &mut stack),
            ExprKind::Prefix(ev, fields, body) => {
                stack.push(ev);
                for f in fields {
                    field_mentions(f, out, &mut stack);
                }
                stack.push(body);
            }
            ExprKind::LinkedParallel(par) => {
                stack.push(&par.left);
                stack.push(&par.right);
                push_pairs(&par.links, &mut stack);
                push_stmts(&par.stmts, out, &mut stack);
            }
            ExprKind::Rename(a, pairs, stmts) => {
                stack.push(a);
                push_pairs(pairs, &mut stack);
                push_stmts(stmts, out, &mut stack);
            }
            ExprKind::Replicated(replicated) => replicated_mentions(replicated, out, &mut stack),
        }
    }
}

/// A replicated operator's names: its operator's arguments', its
/// statements' and its body's.
fn replicated_mentions<'a>(
    replicated: &'a Replicated,
    out: &mut FxHashSet<Ustr>,
    stack: &mut Vec<&'a Expr>,
) {
    let Replicated { op, stmts, body } = replicated;
    match op {
        ReplicatedOp::SyncExternalChoice(a)
        | ReplicatedOp::GenParallel(a)
        | ReplicatedOp::AlphaParallel(a) => stack.push(a),
        ReplicatedOp::LinkedParallel(pairs, inner) => {
            push_pairs(pairs, stack);
            push_stmts(inner, out, stack);
        }
        ReplicatedOp::ExternalChoice
        | ReplicatedOp::InternalChoice
        | ReplicatedOp::Interleave
        | ReplicatedOp::SequentialComposition => {}
    }
    push_stmts(stmts, out, stack);
    stack.push(body);
}

/// Pushes both sides of each pair (`x <- y`, `k => v`) in order.
fn push_pairs<'a>(pairs: &'a [(Expr, Expr)], stack: &mut Vec<&'a Expr>) {
    for (x, y) in pairs {
        stack.push(x);
        stack.push(y);
    }
}

fn push_stmts<'a>(stmts: &'a [Stmt], out: &mut FxHashSet<Ustr>, stack: &mut Vec<&'a Expr>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Generator(p, _, e) => {
                pattern_mentions(p, out);
                stack.push(e);
            }
            StmtKind::Guard(e) => stack.push(e),
        }
    }
}

fn field_mentions<'a>(f: &'a Field, out: &mut FxHashSet<Ustr>, stack: &mut Vec<&'a Expr>) {
    match &f.kind {
        FieldKind::Output(e) => stack.push(e),
        FieldKind::Input(p, set) | FieldKind::NondetInput(p, set) => {
            pattern_mentions(p, out);
            stack.extend(set.as_ref());
        }
    }
}

/// Constructor names in patterns count as mentions too.
fn pattern_mentions(p: &Pattern, out: &mut FxHashSet<Ustr>) {
    match &p.kind {
        PatternKind::Name(n) => {
            out.insert(n.text);
        }
        PatternKind::Tuple(ps) | PatternKind::Seq(ps) | PatternKind::Set(ps) => {
            for p in ps {
                pattern_mentions(p, out);
            }
        }
        PatternKind::Dot(a, b) | PatternKind::Concat(a, b) | PatternKind::DoubleAt(a, b) => {
            pattern_mentions(a, out);
            pattern_mentions(b, out);
        }
        PatternKind::Wildcard
        | PatternKind::Int(_)
        | PatternKind::Char(_)
        | PatternKind::String(_)
        | PatternKind::Bool(_) => {}
    }
}

//! The order on process states by content that ranks shapes for step
//! 1, with distinguished values before every other value.

use std::cmp::Ordering;

use crate::eval::{Proc, Value};
use crate::process::{Place, ProcId, Processes, Term};

use super::super::spec::Symmetry;

/// A total order on process states by content, with every distinguished
/// value before any other value (step 1's "those with distinguished
/// values first"); independent of the order states were met in.
pub fn compare_states(procs: &Processes, symmetry: &Symmetry, a: ProcId, b: ProcId) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (s, t) = (procs.term(a), procs.term(b));
    let children = |xs: &[ProcId], ys: &[ProcId]| {
        xs.len().cmp(&ys.len()).then_with(|| {
            xs.iter()
                .zip(ys)
                .map(|(&x, &y)| compare_states(procs, symmetry, x, y))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    };
    let sets = |x: u32, y: u32| procs.set(x).iter().cmp(procs.set(y).iter());
    let relations = |x: u32, y: u32| procs.relation(x).pairs().cmp(procs.relation(y).pairs());
    match (s, t) {
        (Term::Node(p), Term::Node(q)) => compare_procs(symmetry, p, q),
        (Term::Run(x), Term::Run(y))
        | (Term::Chaos(x), Term::Chaos(y))
        | (Term::ChaosOffer(x), Term::ChaosOffer(y)) => sets(*x, *y),
        (Term::Done(x), Term::Done(y)) => x.cmp(y),
        (
            Term::Chosen {
                prefix: p,
                choice: c,
            },
            Term::Chosen {
                prefix: q,
                choice: d,
            },
        ) => compare_states(procs, symmetry, *p, *q).then_with(|| compare_lists(symmetry, c, d)),
        (Term::ExternalChoice(xs), Term::ExternalChoice(ys)) => children(xs, ys),
        (Term::SequentialComposition(a, b), Term::SequentialComposition(c, d))
        | (Term::Interrupt(a, b), Term::Interrupt(c, d))
        | (Term::SlidingChoice(a, b), Term::SlidingChoice(c, d)) => children(&[*a, *b], &[*c, *d]),
        (Term::Exception(a, x, b), Term::Exception(c, y, d))
        | (Term::SyncInterrupt(a, x, b), Term::SyncInterrupt(c, y, d)) => {
            sets(*x, *y).then_with(|| children(&[*a, *b], &[*c, *d]))
        }
        (Term::SyncExternalChoice(x, xs), Term::SyncExternalChoice(y, ys))
        | (Term::Parallel(x, xs), Term::Parallel(y, ys)) => {
            sets(*x, *y).then_with(|| children(xs, ys))
        }
        (Term::Hide(a, x), Term::Hide(c, y)) => sets(*x, *y).then_with(|| children(&[*a], &[*c])),
        (Term::Rename(a, x), Term::Rename(c, y)) => {
            relations(*x, *y).then_with(|| children(&[*a], &[*c]))
        }
        (Term::AlphaParallel(xs), Term::AlphaParallel(ys)) => {
            xs.len().cmp(&ys.len()).then_with(|| {
                xs.iter()
                    .zip(ys.iter())
                    .map(|(&(x, p), &(y, q))| {
                        sets(x, y).then_with(|| compare_states(procs, symmetry, p, q))
                    })
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
        }
        (Term::Linked(a, x, b), Term::Linked(c, y, d)) => {
            relations(*x, *y).then_with(|| children(&[*a, *b], &[*c, *d]))
        }
        (Term::Loop(a), Term::Loop(c)) | (Term::Chase(a), Term::Chase(c)) => children(&[*a], &[*c]),
        (
            Term::Compressed {
                compression: x,
                of: a,
                at: p,
            },
            Term::Compressed {
                compression: y,
                of: c,
                at: q,
            },
        ) => x
            .cmp(y)
            .then_with(|| children(&[*a], &[*c]))
            .then_with(|| match (p, q) {
                (Place::Member(v), Place::Member(w)) => children(&[*v], &[*w]),
                (Place::Numbered(m), Place::Numbered(n)) => m.cmp(n),
                (Place::Member(_), Place::Numbered(_)) => Ordering::Less,
                (Place::Numbered(_), Place::Member(_)) => Ordering::Greater,
            }),
        (Term::Prioritise(a, xs), Term::Prioritise(c, ys)) => xs
            .len()
            .cmp(&ys.len())
            .then_with(|| {
                xs.iter()
                    .zip(ys.iter())
                    .map(|(&x, &y)| sets(x, y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| children(&[*a], &[*c])),
        (Term::PrioritiseOrder(a, x), Term::PrioritiseOrder(c, y)) => {
            relations(*x, *y).then_with(|| children(&[*a], &[*c]))
        }
        (
            Term::Buffer {
                capacity: m,
                links: x,
                queue: p,
            },
            Term::Buffer {
                capacity: n,
                links: y,
                queue: q,
            },
        ) => m
            .cmp(n)
            .then_with(|| relations(*x, *y))
            .then_with(|| p.cmp(q)),
        _ => term_kind(s).cmp(&term_kind(t)),
    }
}

fn term_kind(t: &Term) -> u8 {
    match t {
        Term::Node(_) => 0,
        Term::Stop => 1,
        Term::Skip => 2,
        Term::Div => 3,
        Term::Omega => 4,
        Term::Done(_) => 5,
        Term::Run(_) => 6,
        Term::Chaos(_) => 7,
        Term::ChaosOffer(_) => 8,
        Term::Chosen { .. } => 9,
        Term::ExternalChoice(_) => 10,
        Term::SequentialComposition(..) => 11,
        Term::Interrupt(..) => 12,
        Term::SlidingChoice(..) => 13,
        Term::Exception(..) => 14,
        Term::SyncExternalChoice(..) => 15,
        Term::SyncInterrupt(..) => 16,
        Term::Hide(..) => 17,
        Term::Rename(..) => 18,
        Term::Parallel(..) => 19,
        Term::AlphaParallel(_) => 20,
        Term::Linked(..) => 21,
        Term::Loop(_) => 22,
        Term::Prioritise(..) => 23,
        Term::Chase(_) => 24,
        Term::Compressed { .. } => 25,
        Term::PrioritiseOrder(..) => 26,
        Term::Buffer { .. } => 27,
    }
}

fn compare_procs(symmetry: &Symmetry, p: &Proc, q: &Proc) -> Ordering {
    match (p, q) {
        (Proc::Node { func: f, vars: x }, Proc::Node { func: g, vars: y }) => {
            f.cmp(g).then_with(|| compare_lists(symmetry, x, y))
        }
        (
            Proc::Builtin {
                builtin: b,
                args: x,
            },
            Proc::Builtin {
                builtin: c,
                args: y,
            },
        ) => b.cmp(c).then_with(|| compare_lists(symmetry, x, y)),
        _ => p.cmp(q),
    }
}

fn compare_lists(symmetry: &Symmetry, xs: &[Value], ys: &[Value]) -> Ordering {
    xs.len().cmp(&ys.len()).then_with(|| {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| compare_values(symmetry, x, y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

/// Values in their usual order, except that a distinguished value comes
/// before every other (distinguished values by type, then value).
fn compare_values(symmetry: &Symmetry, a: &Value, b: &Value) -> Ordering {
    match (symmetry.atom_of(a), symmetry.atom_of(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => match (a, b) {
            (Value::Named(x), Value::Named(y))
            | (Value::Dot(x), Value::Dot(y))
            | (Value::Tuple(x), Value::Tuple(y)) => compare_lists(symmetry, x, y),
            (Value::Seq(x), Value::Seq(y)) => compare_lists(symmetry, &x.to_vec(), &y.to_vec()),
            (Value::Proc(p), Value::Proc(q)) => compare_procs(symmetry, p, q),
            _ => a.cmp(b),
        },
    }
}

//! The type scheme of every built-in, as FDR's Prelude gives it:
//! `union :: Set a => ({a}, {a}) -> {a}`, `member :: Eq a => (a, {a}) ->
//! Bool`, `prioritise :: (Proc, <{Event}>) -> Proc`, ...
//!
//! Functions that let a script compare values (`member`, `card`, `seq`,
//! `elem`, ...) ask for `Eq`, so processes cannot be compared through
//! them (`card({STOP, P}) == 1` would test `P == STOP`).

use crate::script::builtins::{Builtin, ProcessFunction};

use super::ty::{Class, Classes, Scheme, Store, Ty, TyId, atom};

/// The scheme of `builtin`.
pub fn scheme(store: &mut Store, builtin: Builtin) -> Scheme {
    use Builtin as B;
    let mut vars = Vec::new();
    let mut var = |store: &mut Store, classes: &[Class]| {
        let v = store.var(Classes::of(classes));
        vars.push(v);
        v
    };
    let events = store.set(atom::EVENT);
    let body = match builtin {
        B::Union
        | B::Inter
        | B::Diff
        | B::UnionAll
        | B::InterAll
        | B::Member
        | B::Card
        | B::Empty
        | B::SetOfSeq
        | B::Powerset
        | B::Seqs
        | B::SeqOfSet => set_function(store, &mut var, builtin),
        B::Length | B::Null | B::Head | B::Tail | B::Concat | B::Elem => {
            sequence_function(store, &mut var, builtin)
        }
        B::EmptyMap
        | B::MapFromList
        | B::MapLookup
        | B::MapMember
        | B::MapToList
        | B::MapUpdate
        | B::MapUpdateMultiple
        | B::MapDelete
        | B::MapType => map_function(store, &mut var, builtin),
        B::Mtransclose | B::RelationalImage | B::RelationalInverseImage | B::Transpose => {
            relation_function(store, &mut var, builtin)
        }
        B::Error | B::Show | B::Extensions | B::Productions => {
            value_function(store, &mut var, builtin)
        }
        B::Int => store.set(atom::INT),
        B::Bool => store.set(atom::BOOL),
        B::Char => store.set(atom::CHAR),
        B::Proc => store.set(atom::PROC),
        B::Events => events,
        B::Stop | B::Skip | B::Div => atom::PROC,
        B::Chaos | B::Run => store.fun(&[events], atom::PROC),
        B::Buffer => {
            let pair = store.tuple(&[atom::EVENT, atom::EVENT]);
            let links = store.set(pair);
            store.fun(&[atom::INT, links], atom::PROC)
        }
        B::ProcessFunction(f) => process_function(store, f, events),
    };
    Scheme { vars, body }
}

/// The functions on sets, and the sets of sequences and subsets.
fn set_function(
    store: &mut Store,
    var: &mut impl FnMut(&mut Store, &[Class]) -> TyId,
    builtin: Builtin,
) -> TyId {
    use Builtin as B;
    match builtin {
        B::Union | B::Inter | B::Diff => {
            let a = var(store, &[Class::Set]);
            let set = store.set(a);
            store.fun(&[set, set], set)
        }
        B::UnionAll | B::InterAll => {
            let a = var(store, &[Class::Set]);
            let set = store.set(a);
            let sets = store.set(set);
            store.fun(&[sets], set)
        }
        B::Member => {
            let a = var(store, &[Class::Eq]);
            let set = store.set(a);
            store.fun(&[a, set], atom::BOOL)
        }
        B::Card => {
            let a = var(store, &[Class::Eq]);
            let set = store.set(a);
            store.fun(&[set], atom::INT)
        }
        B::Empty => {
            let a = var(store, &[Class::Eq]);
            let set = store.set(a);
            store.fun(&[set], atom::BOOL)
        }
        B::SetOfSeq => {
            let a = var(store, &[Class::Set]);
            let (seq, set) = (store.seq(a), store.set(a));
            store.fun(&[seq], set)
        }
        B::Powerset => {
            let a = var(store, &[Class::Set]);
            let set = store.set(a);
            let sets = store.set(set);
            store.fun(&[set], sets)
        }
        B::Seqs => {
            let a = var(store, &[Class::Set]);
            let (set, seq) = (store.set(a), store.seq(a));
            let seqs = store.set(seq);
            store.fun(&[set], seqs)
        }
        B::SeqOfSet => {
            let a = var(store, &[Class::Eq]);
            let (set, seq) = (store.set(a), store.seq(a));
            store.fun(&[set], seq)
        }
        _ => unreachable!("not a function on sets"),
    }
}

/// The functions on sequences.
fn sequence_function(
    store: &mut Store,
    var: &mut impl FnMut(&mut Store, &[Class]) -> TyId,
    builtin: Builtin,
) -> TyId {
    use Builtin as B;
    match builtin {
        B::Length | B::Null | B::Head | B::Tail | B::Concat => {
            let a = var(store, &[]);
            let seq = store.seq(a);
            match builtin {
                B::Length => store.fun(&[seq], atom::INT),
                B::Null => store.fun(&[seq], atom::BOOL),
                B::Head => store.fun(&[seq], a),
                B::Tail => store.fun(&[seq], seq),
                _ => {
                    let seqs = store.seq(seq);
                    store.fun(&[seqs], seq)
                }
            }
        }
        B::Elem => {
            let a = var(store, &[Class::Eq]);
            let seq = store.seq(a);
            store.fun(&[a, seq], atom::BOOL)
        }
        _ => unreachable!("not a function on sequences"),
    }
}

/// The maps and the functions on them.
fn map_function(
    store: &mut Store,
    var: &mut impl FnMut(&mut Store, &[Class]) -> TyId,
    builtin: Builtin,
) -> TyId {
    use Builtin as B;
    match builtin {
        B::EmptyMap
        | B::MapFromList
        | B::MapLookup
        | B::MapMember
        | B::MapToList
        | B::MapUpdate
        | B::MapUpdateMultiple
        | B::MapDelete => {
            let k = var(store, &[Class::Set]);
            let v = var(store, &[]);
            let map = store.add(Ty::Map(k, v));
            let pair = store.tuple(&[k, v]);
            let pairs = store.seq(pair);
            match builtin {
                B::EmptyMap => map,
                B::MapFromList => store.fun(&[pairs], map),
                B::MapLookup => store.fun(&[map, k], v),
                B::MapMember => store.fun(&[map, k], atom::BOOL),
                B::MapToList => store.fun(&[map], pairs),
                B::MapUpdate => store.fun(&[map, k, v], map),
                B::MapUpdateMultiple => store.fun(&[map, pairs], map),
                _ => store.fun(&[map, k], map),
            }
        }
        B::MapType => {
            let k = var(store, &[Class::Set]);
            let v = var(store, &[Class::Set]);
            let (keys, values) = (store.set(k), store.set(v));
            let map = store.add(Ty::Map(k, v));
            let maps = store.set(map);
            store.fun(&[keys, values], maps)
        }
        _ => unreachable!("not a function on maps"),
    }
}

/// The functions on relations (sets of pairs).
fn relation_function(
    store: &mut Store,
    var: &mut impl FnMut(&mut Store, &[Class]) -> TyId,
    builtin: Builtin,
) -> TyId {
    use Builtin as B;
    match builtin {
        B::Mtransclose => {
            let a = var(store, &[Class::Eq]);
            let pair = store.tuple(&[a, a]);
            let (pairs, set) = (store.set(pair), store.set(a));
            store.fun(&[pairs, set], pairs)
        }
        B::RelationalImage | B::RelationalInverseImage => {
            let (a_classes, b_classes): (&[Class], &[Class]) = match builtin {
                B::RelationalImage => (&[Class::Eq], &[Class::Set]),
                _ => (&[Class::Set], &[Class::Eq]),
            };
            let a = var(store, a_classes);
            let b = var(store, b_classes);
            let pair = store.tuple(&[a, b]);
            let pairs = store.set(pair);
            let image = match builtin {
                B::RelationalImage => {
                    let bs = store.set(b);
                    store.fun(&[a], bs)
                }
                _ => {
                    let r#as = store.set(a);
                    store.fun(&[b], r#as)
                }
            };
            store.fun(&[pairs], image)
        }
        B::Transpose => {
            let a = var(store, &[Class::Set]);
            let b = var(store, &[Class::Set]);
            let (ab, ba) = (store.tuple(&[a, b]), store.tuple(&[b, a]));
            let (abs, bas) = (store.set(ab), store.set(ba));
            store.fun(&[abs], bas)
        }
        _ => unreachable!("not a function on relations"),
    }
}

/// The functions of any value: `error`, `show`, and the ways to complete
/// a dot (`extensions`, `productions`).
fn value_function(
    store: &mut Store,
    var: &mut impl FnMut(&mut Store, &[Class]) -> TyId,
    builtin: Builtin,
) -> TyId {
    use Builtin as B;
    match builtin {
        B::Error => {
            let a = var(store, &[]);
            let string = store.seq(atom::CHAR);
            store.fun(&[string], a)
        }
        B::Show => {
            let a = var(store, &[]);
            let string = store.seq(atom::CHAR);
            store.fun(&[a], string)
        }
        B::Extensions => {
            let a = var(store, &[]);
            let b = var(store, &[Class::Yieldable]);
            let waiting = store.dotable(a, b);
            let set = store.set(a);
            store.fun(&[waiting], set)
        }
        B::Productions => {
            let a = var(store, &[Class::Yieldable]);
            let pointer = var(store, &[]);
            let waiting = store.add(Ty::Extendable(a, pointer));
            let set = store.set(a);
            store.fun(&[waiting], set)
        }
        _ => unreachable!("not a function of any value"),
    }
}

fn process_function(store: &mut Store, f: ProcessFunction, events: TyId) -> TyId {
    use ProcessFunction as F;
    let proc = atom::PROC;
    match f {
        F::Prioritise | F::PrioritiseNoCache => {
            let sets = store.seq(events);
            store.fun(&[proc, sets], proc)
        }
        F::PrioritisePartialOrder => {
            let pair = store.tuple(&[atom::EVENT, atom::EVENT]);
            let order = store.set(pair);
            store.fun(&[proc, events, order, events], proc)
        }
        F::FailureWatchdog | F::TraceWatchdog => store.fun(&[proc, events, atom::EVENT], proc),
        F::Normal
        | F::Sbisim
        | F::Wbisim
        | F::Dbisim
        | F::Diamond
        | F::Explicate
        | F::Chase
        | F::ChaseNoCache
        | F::ModelCompress
        | F::TauLoopFactor
        | F::Determinise
        | F::LazyEnumerate
        | F::LazyNormal
        | F::Loop => store.fun(&[proc], proc),
    }
}

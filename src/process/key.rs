//! Process states that outlive their [`Processes`]: a [`StateKey`] is a
//! state's term with its operands as keys and its event sets and
//! relations held by content, so it names the same state to every
//! `Processes` of the script, whatever order each one interned its
//! states in. A check that runs on a worker thread, with process states
//! of its own, hands its states to the animator this way.
//!
//! Event ids need no such care: every `Processes` of a script builds its
//! event table from the script's events sorted in value order
//! ([`Processes::with_evaluator`]), so an [`EventId`](super::EventId)
//! names the same event in all of them, and a bit set over ids means the
//! same set.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{EventRelation, EventSet, ProcId, Processes, Term};

/// A process state independent of any [`Processes`]' numbering: owned,
/// `Send` and `Sync`, and equal to another key exactly when the two
/// states are the same state. Keys exported through one [`Exporter`]
/// share their common subterms, so a path's worth of states stays cheap.
///
/// Leaves are the evaluator's process values themselves, compared as the
/// evaluator compares values: a function value by identity. Each
/// evaluator makes its own function values, so a state holding one (a
/// function passed to a process as an argument, by name or as a lambda;
/// not a `let`-bound function, which a state holds through the values it
/// captured) is tied to its evaluator: imported into another
/// `Processes`, it is a state of its own there, equal to none of that
/// `Processes`' states.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StateKey(Arc<KeyTerm>);

/// A state's operator over the keys of its operands.
pub type KeyTerm = Term<StateKey, EventSet, EventRelation>;

impl StateKey {
    pub fn term(&self) -> &KeyTerm {
        &self.0
    }
}

/// Turns states into keys, remembering each state's key: states exported
/// through the same exporter share their common subterms.
pub struct Exporter<'p, 's> {
    procs: &'p Processes<'s>,
    keys: FxHashMap<ProcId, StateKey>,
}

impl Exporter<'_, '_> {
    pub fn export(&mut self, id: ProcId) -> StateKey {
        if let Some(key) = self.keys.get(&id) {
            return key.clone();
        }
        let procs = self.procs;
        let term = procs.term(id).map(
            self,
            |exporter, &operand| exporter.export(operand),
            |_, &set| procs.set(set).clone(),
            |_, &relation| procs.relation(relation).clone(),
        );
        let key = StateKey(Arc::new(term));
        self.keys.insert(id, key.clone());
        key
    }
}

/// The states already imported during one import, by the address of
/// their key's term (a key is a graph: its subterms may be shared).
type Imported = FxHashMap<*const KeyTerm, ProcId>;

impl<'s> Processes<'s> {
    /// An exporter for several states that share subterms.
    pub fn exporter(&self) -> Exporter<'_, 's> {
        Exporter {
            procs: self,
            keys: FxHashMap::default(),
        }
    }

    /// The key of state `id`.
    pub fn export(&self, id: ProcId) -> StateKey {
        self.exporter().export(id)
    }

    /// The state `key` names, interned here. A control state is interned
    /// as the leaf it was: its operator is not unfolded again (a key
    /// holds a leaf only where its `Processes` kept one).
    pub fn import(&mut self, key: &StateKey) -> ProcId {
        self.import_shared(key, &mut Imported::default())
    }

    fn import_shared(&mut self, key: &StateKey, imported: &mut Imported) -> ProcId {
        let address = Arc::as_ptr(&key.0);
        if let Some(&id) = imported.get(&address) {
            return id;
        }
        let term = key.term().map(
            &mut (&mut *self, &mut *imported),
            |(procs, imported), operand| procs.import_shared(operand, imported),
            |(procs, _), set| procs.sets.intern(set.clone()),
            |(procs, _), relation| procs.relations.intern(relation.clone()),
        );
        let id = self.intern(term);
        imported.insert(address, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashSet;

    use super::*;
    use crate::script::Script;
    use crate::script::ir::FuncId;

    /// A process for every kind of term: leaves, a `$` choice made,
    /// `CHAOS` and `RUN` sets, renaming, linking, alphabets, the
    /// synchronising operators, a recursive `let` group, a terminated
    /// parallel and `loop`.
    const SCRIPT: &str = "
channel a, b, c
channel d : {0..2}
channel l, r : {0, 1}
Cycle = a -> b -> Cycle
Choice = (a -> STOP |~| d$x -> c -> SKIP) [] b -> Choice
Pipe = (l!0 -> l!1 -> SKIP) [l <-> r] (r?x -> r?y -> SKIP)
Guarded = (Choice ; Cycle) /\\ (c -> RUN({a, b}))
Chaotic = CHAOS({d.0, d.1}) [| {d.0} |> (a -> STOP [> b -> STOP)
Alpha = (a -> c -> STOP) [ {a, c} || {c, d.1} ] (d.1 -> c -> STOP)
Sync = (a -> b -> STOP) [+ {a} +] (a -> c -> STOP) /+ {c} +\\ (c -> STOP)
Group = let X = a -> Y
            Y = d.1 -> X
        within X
Renamed = ((Guarded [| {a} |] Cycle) \\ {b}) [[ c <- d.2 ]]
Ended = (SKIP ||| SKIP) ; loop(a -> SKIP)
external loop
";

    const PROCESSES: [&str; 8] = [
        "Renamed", "Pipe", "Chaotic", "Alpha", "Sync", "Group", "Ended", "Cycle",
    ];

    fn script() -> (Script, Vec<FuncId>) {
        let mut script = Script::load_str("keys.csp", SCRIPT).expect("the script loads");
        let roots = PROCESSES
            .iter()
            .map(|p| script.add_expr("<process>", p).expect("resolves"))
            .collect();
        (script, roots)
    }

    fn root(procs: &mut Processes, func: FuncId) -> ProcId {
        let value = procs.evaluator().eval_constant(func).expect("evaluates");
        let span = procs.script().function(func).span;
        procs.state(&value, span).expect("a process")
    }

    /// Every state reachable from `root`, breadth first.
    fn reachable(procs: &mut Processes, root: ProcId) -> Vec<ProcId> {
        let mut order = vec![root];
        let mut seen: FxHashSet<ProcId> = [root].into_iter().collect();
        let mut next = 0;
        while let Some(&state) = order.get(next) {
            for t in procs.transitions(state).expect("transitions").iter() {
                if seen.insert(t.target) {
                    order.push(t.target);
                }
            }
            next += 1;
        }
        order
    }

    /// Each transition of `state` as its event and the key of its target.
    fn moves(procs: &mut Processes, state: ProcId) -> Vec<(u32, StateKey)> {
        let transitions = procs.transitions(state).expect("transitions");
        let mut exporter = procs.exporter();
        transitions
            .iter()
            .map(|t| (t.event, exporter.export(t.target)))
            .collect()
    }

    #[test]
    fn a_state_exported_from_one_processes_is_the_same_state_in_another() {
        let (script, roots) = script();
        let script = &script;
        crate::stack::with_large_stack(|| {
            let mut first = Processes::new(script).expect("events");
            let mut second = Processes::new(script).expect("events");
            // The two meet the processes in opposite orders, so they
            // number their states differently.
            let first_roots: Vec<ProcId> = roots.iter().map(|&f| root(&mut first, f)).collect();
            let second_roots: Vec<ProcId> =
                roots.iter().rev().map(|&f| root(&mut second, f)).collect();
            assert_ne!(first_roots.first(), second_roots.last());
            let mut compared = 0;
            for (&from, &to) in first_roots.iter().zip(second_roots.iter().rev()) {
                let states = reachable(&mut first, from);
                let theirs: FxHashSet<ProcId> = reachable(&mut second, to).into_iter().collect();
                let keys: Vec<StateKey> = {
                    let mut exporter = first.exporter();
                    states.iter().map(|&s| exporter.export(s)).collect()
                };
                let mut imported = FxHashSet::default();
                for (&state, key) in states.iter().zip(&keys) {
                    let shown = first.show_state(state);
                    let there = second.import(key);
                    assert!(
                        theirs.contains(&there),
                        "{shown} is not a state the other processes reach"
                    );
                    imported.insert(there);
                    assert_eq!(second.show_state(there), shown);
                    assert_eq!(second.show_key(key), shown);
                    assert_eq!(&second.export(there), key, "{shown}");
                    assert_eq!(first.import(key), state, "{shown}");
                    assert_eq!(
                        moves(&mut first, state),
                        moves(&mut second, there),
                        "{shown}"
                    );
                    compared += 1;
                }
                assert_eq!(imported, theirs, "one state there for each state here");
            }
            assert!(compared > 40, "{compared} states compared");
        });
    }

    #[test]
    fn keys_exported_together_share_their_subterms() {
        let (script, roots) = script();
        let script = &script;
        crate::stack::with_large_stack(|| {
            let mut procs = Processes::new(script).expect("events");
            let renamed = root(&mut procs, roots[0]);
            let Term::Rename(hidden, _) = *procs.term(renamed) else {
                panic!("a renaming: {}", procs.show_state(renamed))
            };
            let mut exporter = procs.exporter();
            let whole = exporter.export(renamed);
            let part = exporter.export(hidden);
            let Term::Rename(inner, _) = whole.term() else {
                unreachable!("the key of a renaming is a renaming")
            };
            assert!(Arc::ptr_eq(&inner.0, &part.0));
            assert!(Arc::ptr_eq(&exporter.export(renamed).0, &whole.0));
        });
    }

    #[test]
    fn keys_can_cross_threads() {
        fn send_and_sync<T: Send + Sync>() {}
        send_and_sync::<StateKey>();
    }
}

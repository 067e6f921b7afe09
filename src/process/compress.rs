//! FDR's compressions: `normal`, `sbisim`, `wbisim`, `dbisim`,
//! `tau_loop_factor`, `diamond`, `explicate` and `model_compress` (with
//! `lazynorm` and `lazyenumerate`, FDR's lazy forms of `normal` and
//! `explicate`).
//!
//! A compressed process is computed once per compression and state: the
//! states the original reaches are listed ([`explicit`]), reduced, and
//! become a table of their own, whose states are [`Term::Compressed`]
//! leaves. A leaf is one component of the supercombinator, so a
//! compressed level of a hierarchy (`normal(L(n))` where `L(n)` links two
//! compressed halves) is as small as its compression, however large the
//! process it stands for.
//!
//! Every compression here is exact in the traces, stable-failures and
//! failures-divergences models at once, so one result serves every check:
//! τ-loops stay as a τ on the state they collapse to (divergence), and
//! what a node may refuse is carried by τs to stable states that offer
//! exactly its minimal acceptances. Where FDR's compression is exact in
//! fewer models (`wbisim` ignores divergence) symcsp keeps the
//! divergence, as `dbisim` does; `model_compress` is `dbisim`.

mod diamond;
mod explicit;
mod normal_form;
mod partition;
mod tau_loops;
mod unwind;

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};

use super::term::Place;
use super::{EventId, ProcId, Processes, TICK, Term, Transition};
use explicit::Explicit;
pub use unwind::{Ending, Unwound};

/// A transition's target that is Ω, the terminated state: every ✓ leads
/// there, and it is never grouped with another state (it has no
/// transitions, like `STOP`, but a parallel composition waits for it).
pub(crate) const OMEGA: u32 = u32::MAX;

pub use super::term::Compression;

/// A compressed process as a reduction of the original's states: what
/// each compression hands back.
#[derive(Debug, Default)]
pub(crate) struct Reduced {
    /// Per state: the original states (indices into [`Explicit`]) it
    /// stands for.
    pub members: Vec<Vec<u32>>,
    /// Per state: its transitions, targets numbered as the states are
    /// (or [`OMEGA`]).
    pub transitions: Vec<Vec<(EventId, u32)>>,
    pub initial: u32,
    /// Whether states are named by number ([`Place::Numbered`]) rather
    /// than by their first member.
    pub numbered: bool,
}

impl Reduced {
    /// Adds a state and gives its number.
    pub fn add(&mut self, members: Vec<u32>) -> u32 {
        self.members.push(members);
        self.transitions.push(Vec::new());
        (self.members.len() - 1) as u32
    }
}

/// A compressed process, installed: its states as process states.
#[derive(Debug)]
pub struct Table {
    pub compression: Compression,
    /// The original process's state it was computed from.
    pub of: ProcId,
    /// The number of states the original process reaches.
    pub original_states: usize,
    /// Per state: the original states it stands for.
    pub members: Vec<Box<[ProcId]>>,
    transitions: Vec<Box<[(EventId, u32)]>>,
    /// Per state: its id.
    pub ids: Vec<ProcId>,
    pub initial: u32,
    /// For states named by a member: the state each original state
    /// belongs to.
    class_of: FxHashMap<ProcId, u32>,
}

impl Table {
    /// The number of the state a place names.
    fn index(&self, at: &Place<ProcId>) -> Option<u32> {
        match at {
            Place::Member(p) => self.class_of.get(p).copied(),
            &Place::Numbered(n) => (n < self.ids.len() as u32).then_some(n),
        }
    }

    /// The number of states after compression.
    pub fn states(&self) -> usize {
        self.ids.len()
    }
}

impl Processes<'_> {
    /// The state `compression(P)` starts in, `P` starting in `of`:
    /// computed once per compression and state.
    pub(super) fn compress(&mut self, compression: Compression, of: ProcId) -> EvalResult<ProcId> {
        let table = self.compressed(compression, of)?;
        Ok(table.ids[table.initial as usize])
    }

    /// The table of `compression(P)`, `P` starting in `of`, computed if
    /// it is new.
    pub fn compressed(&mut self, compression: Compression, of: ProcId) -> EvalResult<Arc<Table>> {
        if let Some(table) = self.compressions.get(&(compression, of)) {
            return Ok(table.clone());
        }
        let explicit = self.explicit(of)?;
        let meter = self.meter().clone();
        let reduced = match compression {
            Compression::Explicate => explicit.unchanged(),
            Compression::Sbisim => partition::strong(&explicit, &meter)?,
            Compression::TauLoopFactor => tau_loops::collapse(&explicit, &meter)?.with_loops(),
            Compression::Wbisim | Compression::Dbisim | Compression::ModelCompress => {
                partition::weak(&tau_loops::collapse(&explicit, &meter)?, &meter)?
            }
            Compression::Diamond => diamond::diamond(&tau_loops::collapse(&explicit, &meter)?),
            Compression::Normal => {
                normal_form::normal(&tau_loops::collapse(&explicit, &meter)?, &meter)?
            }
        };
        let table = Arc::new(self.install(compression, of, &explicit, reduced, &meter)?);
        self.compressions.insert((compression, of), table.clone());
        Ok(table)
    }

    /// Interns the states of a reduction as compressed states, within
    /// `meter` (naming a class encodes its members: a script with large
    /// event sets makes that slow).
    fn install(
        &mut self,
        compression: Compression,
        of: ProcId,
        explicit: &Explicit,
        reduced: Reduced,
        meter: &crate::budget::Meter,
    ) -> EvalResult<Table> {
        let original = |i: &u32| explicit.states[*i as usize];
        let members: Vec<Box<[ProcId]>> = reduced
            .members
            .iter()
            .map(|m| m.iter().map(original).collect())
            .collect();
        let mut class_of = FxHashMap::default();
        let mut ids = Vec::with_capacity(members.len());
        for (n, m) in members.iter().enumerate() {
            meter.poll().map_err(EvalError::stopped)?;
            let at = if reduced.numbered {
                Place::Numbered(n as u32)
            } else {
                for &p in m.iter() {
                    class_of.insert(p, n as u32);
                }
                Place::Member(self.class_name(m, of))
            };
            ids.push(self.intern(Term::Compressed {
                compression,
                of,
                at,
            }));
        }
        Ok(Table {
            compression,
            of,
            original_states: explicit.states.len(),
            members,
            transitions: reduced
                .transitions
                .into_iter()
                .map(|mut t| {
                    t.sort_unstable();
                    t.dedup();
                    t.into()
                })
                .collect(),
            ids,
            initial: reduced.initial,
            class_of,
        })
    }

    /// The member a class of states is named by, the same in every
    /// `Processes` of the script (so a state of the compression has one
    /// encoding, and crosses between workers): the original's initial
    /// state `of` for its own class, else the member whose encoding is
    /// least (the order states are listed in follows each process's own
    /// numbering among a state's equal events).
    fn class_name(&self, members: &[ProcId], of: ProcId) -> ProcId {
        if members.contains(&of) {
            return of;
        }
        if let [only] = members {
            return *only;
        }
        let encoded = |p: ProcId| {
            let mut bytes = Vec::new();
            self.write_encoded(
                p,
                &mut crate::eval::value::bytes::Writer { out: &mut bytes },
            );
            bytes
        };
        members
            .iter()
            .map(|&p| (encoded(p), p))
            .min()
            .map(|(_, p)| p)
            .expect("a class has a member")
    }

    /// For a compressed state: the original process's states it stands
    /// for, and how many states that process has (none for any other
    /// state, or one whose compression this `Processes` has not
    /// computed).
    pub fn stands_for(&self, id: ProcId) -> Option<(&[ProcId], usize)> {
        let Term::Compressed {
            compression,
            of,
            at,
        } = self.term(id)
        else {
            return None;
        };
        let table = self.compressions.get(&(*compression, *of))?;
        let index = table.index(at)?;
        Some((&table.members[index as usize], table.original_states))
    }

    /// The transitions of a compressed state.
    pub(super) fn compressed_transitions(
        &mut self,
        compression: Compression,
        of: ProcId,
        at: &Place<ProcId>,
    ) -> EvalResult<Vec<Transition>> {
        let table = self.compressed(compression, of)?;
        let Some(index) = table.index(at) else {
            return Err(EvalError::new(
                Default::default(),
                format!(
                    "a state of {}({}) that the compression does not know",
                    compression.name(),
                    self.show_state(of)
                ),
            ));
        };
        let omega = self.omega;
        Ok(table.transitions[index as usize]
            .iter()
            .map(|&(event, target)| Transition {
                event,
                target: if target == OMEGA {
                    omega
                } else {
                    table.ids[target as usize]
                },
            })
            .collect())
    }
}

/// What a stable state offers, from its events: `{✓}` alone if it can
/// terminate (✓ is a signal, as in FDR and the check's normaliser), else
/// its events.
pub(crate) fn acceptance(events: impl IntoIterator<Item = EventId>) -> Vec<EventId> {
    let mut out: Vec<EventId> = events.into_iter().collect();
    if out.contains(&TICK) {
        return vec![TICK];
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The sets of `sets` no other one is a proper subset of, sorted, each
/// once.
pub(crate) fn minimal(mut sets: Vec<Vec<EventId>>) -> Vec<Vec<EventId>> {
    sets.sort_unstable();
    sets.dedup();
    let subset = |a: &[EventId], b: &[EventId]| a.iter().all(|e| b.binary_search(e).is_ok());
    sets.iter()
        .filter(|a| !sets.iter().any(|b| b != *a && subset(b, a)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Script;

    /// Small processes whose compressions are counted by hand below.
    const SCRIPT: &str = "
channel a, b, c
-- Two states that do the same thing for ever.
Twin = a -> Twin'
Twin' = a -> Twin
-- A τ-loop through two states, and a way out of it.
Looping = (a -> b -> Looping [] c -> STOP) \\ {a, b}
-- Two branches that differ only after `a`.
Branches = a -> STOP |~| a -> b -> STOP
-- A hidden step between a and b.
Silent = a -> ((c -> b -> STOP) \\ {c})
-- Two stable states reached silently.
Either = a -> STOP |~| b -> STOP
";

    /// `(original states, compressed states)` of `function(process)`.
    fn sizes(process: &str, compression: Compression) -> (usize, usize) {
        let mut script = Script::load_str("c.csp", SCRIPT).expect("loads");
        let root = script.add_expr("<p>", process).expect("resolves");
        crate::stack::with_large_stack(|| {
            let (mut procs, p) = Processes::with_root(&script, root).expect("a process");
            let table = procs.compressed(compression, p).expect("compresses");
            (table.original_states, table.states())
        })
    }

    #[test]
    fn sbisim_merges_states_that_do_the_same() {
        assert_eq!(sizes("Twin", Compression::Sbisim), (2, 1));
        // `a -> STOP` and `a -> b -> STOP` differ after `a`; the root
        // (two τs) is a state of its own: root, two branches, b -> STOP
        // and STOP.
        assert_eq!(sizes("Branches", Compression::Sbisim), (5, 5));
        assert_eq!(sizes("Twin", Compression::Explicate), (2, 2));
    }

    #[test]
    fn tau_loop_factor_makes_a_tau_loop_one_state() {
        // `Looping` and its `b` state form one τ-loop; STOP is the other.
        assert_eq!(sizes("Looping", Compression::TauLoopFactor), (3, 2));
    }

    #[test]
    fn weak_bisimulation_drops_the_hidden_step() {
        // a -> ..., the hidden c, b -> STOP and STOP: the state before the
        // hidden c and the one after it are one.
        assert_eq!(sizes("Silent", Compression::Dbisim), (4, 3));
        assert_eq!(sizes("Silent", Compression::Wbisim), (4, 3));
        assert_eq!(sizes("Silent", Compression::ModelCompress), (4, 3));
        // A divergent state is never merged with a stable one: the loop,
        // and STOP.
        assert_eq!(sizes("Looping", Compression::Dbisim), (3, 2));
    }

    #[test]
    fn normal_form_nodes_and_their_acceptances() {
        // Nodes: the start ({a} accepted, stable as it is); after a,
        // {STOP, b -> STOP}, which may refuse b (a τ to a state offering
        // nothing); after a b, STOP. Four states.
        assert_eq!(sizes("Branches", Compression::Normal), (5, 4));
        // One node that may refuse a or b: τs to a state offering a and
        // one offering b; and STOP.
        assert_eq!(sizes("Either", Compression::Normal), (4, 4));
        assert_eq!(sizes("Twin", Compression::Normal), (2, 1));
    }

    #[test]
    fn diamond_keeps_the_initial_state_and_the_targets_of_visible_moves() {
        // The start does what its τs lead to (a and b), with τs to the two
        // stable states that decided; and STOP.
        assert_eq!(sizes("Either", Compression::Diamond), (4, 4));
        // After a: the hidden c is taken at once; its target (b -> STOP)
        // is never entered.
        assert_eq!(sizes("Silent", Compression::Diamond), (4, 3));
    }

    #[test]
    fn minimal_acceptances_keep_only_the_least() {
        let sets = vec![vec![2, 3], vec![2], vec![4], vec![2, 4], vec![2]];
        assert_eq!(minimal(sets), vec![vec![2], vec![4]]);
        assert_eq!(acceptance([3, 1, 2]), vec![TICK]);
        assert_eq!(acceptance([3, 2, 3]), vec![2, 3]);
    }
}

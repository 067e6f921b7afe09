//! The system a worker searches — its machine, its process states and
//! what it is reduced by — behind one lock, and the two ways to it.
//!
//! The workers of one process share one [`System`] when each can find
//! its successors reading it: a component state's transitions are
//! computed once, by the first worker that meets it, and read by every
//! worker; a successor's representative is found on the shared part of
//! the canonicaliser. A worker *reads* the system for a state whose
//! component states are all prepared (most of them, once the search is
//! under way) beside the other workers, and *writes* it — alone — for
//! the rest (evaluating CSPM, learning new labels). Both ways give the
//! same successors and representatives, so the states stored never
//! depend on who prepared what. Rows pass between them as the machine's
//! numbers; where each goes is read off its content ([`Held::content_key`]).
//!
//! In a check not reduced, each worker judges by a specification of its
//! own whose states are the shared system's: a state the copy of what
//! it knows finds plainly fine is judged reading, the rest writing, and
//! a node crosses as a code the first time (`RowCodec::node_code`). A
//! specification that gives no copy (`:[has trace]:`, the revivals and
//! refusal-testing models) would have the workers take turns: its check
//! keeps a system a worker.
//!
//! The workers of a cluster of several processes have a system each
//! (its lock never contended): their rows cross as codes
//! ([`super::super::rows`]). So do workers reducing by a group whose
//! representatives cannot be found side by side (the structural group,
//! the strategies that enumerate or remember), on one system they would
//! take turns, and a reduced check's, whose product permutes its own
//! specification's nodes with the states.

use std::sync::{Mutex, OnceLock, PoisonError};

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::lts::machine::{Machine, Moves};
use crate::lts::search::{Canonicaliser, Scratch};
use crate::process::{ProcId, Processes};
use crate::symmetry::search_system::{Reduction, SearchSystem};

use super::super::ground::StartProblem;
use super::super::rows::{fingerprint, key_with};

/// A machine, its process states and its reduction, read by several
/// workers at once or written by one.
pub struct System<'g> {
    held: RwLock<Held<'g>>,
    /// Whether the workers of a process share it (and read it).
    shared: bool,
    /// Whether a successor's representative can be found reading only:
    /// no reduction, or one with a shared part.
    readable: bool,
}

/// What a [`System`] holds.
pub struct Held<'g> {
    pub machine: Machine,
    pub reduction: Reduction,
    pub root: ProcId,
    /// Only ever reached through `&mut Held` (under the write lock): the
    /// mutex makes the system `Sync` without being locked.
    procs: Mutex<Processes<'g>>,
    /// Per table, per local number: the hash of the component state's
    /// encoding, made by the first worker that needs it
    /// ([`Held::content_key`]).
    fingerprints: Vec<Vec<u64>>,
}

/// The system a process's workers share, made by the first
/// that needs it, with what partial order reduction did to it; or why
/// none could be made, which every worker reports alike.
pub type SharedSystem<'g> = OnceLock<Result<(System<'g>, Option<String>), StartProblem>>;

impl<'g> Held<'g> {
    /// The machine, the process states and the reduction's canonicaliser
    /// (if it reduces), each to change.
    pub fn parts(
        &mut self,
    ) -> (
        &mut Machine,
        &mut Processes<'g>,
        Option<&mut dyn Canonicaliser>,
    ) {
        let procs = self.procs.get_mut().unwrap_or_else(PoisonError::into_inner);
        (&mut self.machine, procs, self.reduction.canonicaliser())
    }

    /// The key of `row` (its components) read off its content — its
    /// component states' encodings, as [`crate::cluster::rows`] hashes
    /// them — not off the numbers the workers happened to give them
    /// first: it decides a row's owner and, after their events, the
    /// order a state's successors are sent in, so that where each state
    /// goes, and the numbers the workers give them, never hang on which
    /// worker wrote the machine first (nor do the counterexamples read
    /// back). `None` while a component state's fingerprint is not made.
    pub fn content_key(&self, row: &[u32]) -> Option<u64> {
        let mut fingerprints = row.iter().enumerate().map(|(slot, &local)| {
            let table = self.machine.table_of(slot);
            self.fingerprints.get(table)?.get(local as usize).copied()
        });
        fingerprints.try_fold(0, |key, fingerprint| Some(key_with(key, fingerprint?)))
    }

    /// [`Held::content_key`], making the fingerprints it lacks.
    pub fn content_key_made(&mut self, row: &[u32]) -> u64 {
        for (slot, &local) in row.iter().enumerate() {
            let table = self.machine.table_of(slot);
            if self.fingerprints.len() <= table {
                self.fingerprints.resize_with(table + 1, Vec::new);
            }
            while self.fingerprints[table].len() <= local as usize {
                let next = self.fingerprints[table].len() as u32;
                let state = self.machine.process_state(slot, next);
                let procs = self.procs.get_mut().unwrap_or_else(PoisonError::into_inner);
                self.fingerprints[table].push(fingerprint(procs, state));
            }
        }
        self.content_key(row).expect("every fingerprint just made")
    }
}

impl<'g> System<'g> {
    /// `built`, for one worker (`shared` false) or all of a process's.
    pub fn new(built: SearchSystem<'g>, shared: bool) -> System<'g> {
        let SearchSystem {
            procs,
            root,
            machine,
            mut reduction,
        } = built;
        let readable = reduction
            .canonicaliser()
            .is_none_or(|c| c.shared().is_some());
        System {
            held: RwLock::new(Held {
                machine,
                reduction,
                root,
                procs: Mutex::new(procs),
                fingerprints: Vec::new(),
            }),
            shared,
            readable,
        }
    }

    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The system to change, alone.
    pub fn write(&self) -> RwLockWriteGuard<'_, Held<'g>> {
        self.held.write()
    }

    pub fn read(&self) -> RwLockReadGuard<'_, Held<'g>> {
        self.held.read()
    }
}

/// How a worker holds its system while it expands a run of states: a
/// read lock it lets a waiting writer through between states, or the
/// write lock, taken when a state needs it. Dropped before the worker
/// waits for a round: a worker never holds the system while others wait
/// for it at the round's end.
pub enum Access<'a, 'g> {
    Free,
    Reading(RwLockReadGuard<'a, Held<'g>>),
    Writing(RwLockWriteGuard<'a, Held<'g>>),
}

impl<'a, 'g> Access<'a, 'g> {
    /// The system, to read: a worker that was writing lets the others in.
    pub fn reading(&mut self, system: &'a System<'g>) -> &Held<'g> {
        match std::mem::replace(self, Access::Free) {
            Access::Free => *self = Access::Reading(system.read()),
            Access::Reading(mut guard) => {
                // A worker waiting to write gets its turn between states.
                RwLockReadGuard::bump(&mut guard);
                *self = Access::Reading(guard);
            }
            Access::Writing(guard) => *self = Access::Reading(RwLockWriteGuard::downgrade(guard)),
        }
        match self {
            Access::Reading(guard) => guard,
            _ => unreachable!("just taken to read"),
        }
    }

    /// The content key of `row` ([`Held::content_key`]): read, or made
    /// writing when a fingerprint is missing.
    pub fn content_key(&mut self, system: &'a System<'g>, row: &[u32]) -> u64 {
        let known = match self {
            Access::Writing(guard) => guard.content_key(row),
            _ => self.reading(system).content_key(row),
        };
        known.unwrap_or_else(|| self.writing(system).content_key_made(row))
    }

    /// The system, to change: alone.
    pub fn writing(&mut self, system: &'a System<'g>) -> &mut Held<'g> {
        if !matches!(self, Access::Writing(_)) {
            // A read lock is given up before the write lock is waited
            // for: two readers each waiting to write would wait for ever.
            *self = Access::Free;
            *self = Access::Writing(system.write());
        }
        match self {
            Access::Writing(guard) => guard,
            _ => unreachable!("just taken to write"),
        }
    }
}

/// What reading successors needs besides the system: the canonicaliser's
/// buffers and a permutation's images.
#[derive(Default)]
pub struct ReadScratch {
    canonical: Option<Scratch>,
    images: Vec<u16>,
}

/// The successors of `row` (its `components`, then in a check its node,
/// which each successor keeps) read off `held` without changing it: its
/// moves into `moves`, and each successor (its representative) after its
/// event into `targets`, end to end — as the writer would find them. `false`
/// (and what was written left to be overwritten) when a component state
/// is not prepared yet, or a representative needs what only the writer
/// can learn.
pub fn read_successors(
    (system, held): (&System, &Held),
    (row, components): (&[u32], usize),
    (moves, target, targets): (&mut Moves, &mut Vec<u32>, &mut Vec<u32>),
    scratch: &mut ReadScratch,
) -> bool {
    let state = &row[..components];
    if !system.readable || !held.machine.is_prepared(state) {
        return false;
    }
    held.machine.prepared_moves(state, moves);
    let shared = held.reduction.shared_canonicaliser();
    targets.clear();
    for m in &moves.list {
        moves.apply(m, row, target);
        if let Some(canonicaliser) = shared {
            let scratch_for = scratch
                .canonical
                .get_or_insert_with(|| canonicaliser.scratch());
            scratch.images.clear();
            if !canonicaliser.try_components(
                scratch_for,
                &held.machine,
                target,
                &mut scratch.images,
            ) {
                return false;
            }
        }
        targets.push(m.event);
        targets.extend_from_slice(target);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::script::Script;
    use crate::symmetry::spec::Reduce;
    use crate::symmetry::strategy::Strategy;

    /// Identical nodes handing on what they hold, each one datum:
    /// symmetric in the nodes and the data.
    const NODES: &str = "
datatype Node = N0 | N1 | N2 | N3
datatype Datum = A | B
channel pass : Node.Node
channel put, take : Node.Datum
Holder(me, d) = take!me!d -> Empty(me) [] pass?from!me -> Holder(me, d)
Empty(me) = put!me?d -> Holder(me, d) [] pass!me?to -> Empty(me)
System = ||| n : Node @ Empty(n)
";

    /// The successors of `row` as the writer finds them: each after its
    /// event, its representative.
    fn written(held: &mut Held, row: &[u32]) -> Vec<u32> {
        let (machine, procs, mut canonicaliser) = held.parts();
        let mut moves = Moves::default();
        machine.moves(procs, row, &mut moves).expect("moves");
        if let Some(c) = canonicaliser.as_deref_mut() {
            c.prepare(machine, procs).expect("learns");
        }
        let (mut out, mut target) = (Vec::new(), Vec::new());
        for m in &moves.list {
            moves.apply(m, row, &mut target);
            if let Some(c) = canonicaliser.as_deref_mut() {
                c.canonicalise(machine, procs, &mut target)
                    .expect("a representative");
            }
            out.push(m.event);
            out.extend_from_slice(&target);
        }
        out
    }

    /// Every state the writer reaches, breadth first, and how many of
    /// them a reader could expand at the end, each as the writer did.
    fn read_beside_written(reduce: Reduce) -> (usize, usize) {
        let mut script = Script::load_str("nodes.csp", NODES).expect("loads");
        let func = script.add_expr("<process>", "System").expect("resolves");
        crate::stack::with_large_stack(|| {
            let meter = Budget::default().meter();
            let built =
                SearchSystem::build(&script, func, &reduce, Strategy::Fdr, meter).expect("builds");
            let system = System::new(built, true);
            let mut held = system.write();
            let mut found = vec![held.machine.initial().to_vec()];
            let mut successors = Vec::new();
            let mut k = 0;
            while k < found.len() {
                let row = found[k].clone();
                let out = written(&mut held, &row);
                let width = row.len() + 1;
                successors.push(out.clone());
                for next in out.chunks_exact(width) {
                    if !found.iter().any(|f| f[..] == next[1..]) {
                        found.push(next[1..].to_vec());
                    }
                }
                k += 1;
            }
            drop(held);
            let held = system.read();
            let (mut moves, mut target, mut targets) = (Moves::default(), Vec::new(), Vec::new());
            let mut scratch = ReadScratch::default();
            let mut read = 0;
            for (row, written) in found.iter().zip(&successors) {
                let io = (&mut moves, &mut target, &mut targets);
                if read_successors((&system, &held), (row, row.len()), io, &mut scratch) {
                    assert_eq!(&targets, written, "the successors of {row:?}");
                    read += 1;
                }
            }
            (found.len(), read)
        })
    }

    #[test]
    fn a_reader_finds_every_successor_and_representative_the_writer_found() {
        let (states, read) = read_beside_written(Reduce::Off);
        // Each of the four nodes empty, or holding A or B.
        assert_eq!((states, read), (81, 81));
    }

    #[test]
    fn a_reader_finds_the_writers_representatives_under_symmetry() {
        let (states, read) = read_beside_written(Reduce::Automatic);
        // One a class: how many nodes hold a datum (0 to 4), and for
        // 2, 3 or 4 of them, whether they hold one datum or two (and for
        // 4, two each). Every representative was expanded, so what its
        // successors' representatives need is learnt.
        assert_eq!((states, read), (9, 9));
    }

    /// Two copies of a process that goes one way or the other: which
    /// component state a machine meets third depends on which successor
    /// of the initial state it expands first.
    const BRANCHES: &str = "
channel a, b : {0..2}
Branch = a.0 -> Left [] b.0 -> Right
Left = a.1 -> a.2 -> Left
Right = b.1 -> b.2 -> Right
System = Branch ||| Branch
";

    /// Every state of `text`'s `System`, breadth first, each component
    /// as its text, the row's content key and its numbers; the moves of
    /// each state taken last first when `reversed`, so that the machine
    /// numbers its component states in another order.
    fn keyed(text: &str, reversed: bool) -> Vec<(Vec<String>, u64, Vec<u32>)> {
        let mut script = Script::load_str("keyed.csp", text).expect("loads");
        let func = script.add_expr("<process>", "System").expect("resolves");
        crate::stack::with_large_stack(|| {
            let meter = Budget::default().meter();
            let built = SearchSystem::build(&script, func, &Reduce::Off, Strategy::Fdr, meter)
                .expect("builds");
            let system = System::new(built, true);
            let mut held = system.write();
            let mut found = vec![held.machine.initial().to_vec()];
            let mut k = 0;
            while k < found.len() {
                let row = found[k].clone();
                let out = written(&mut held, &row);
                let mut nexts: Vec<&[u32]> = out.chunks_exact(row.len() + 1).collect();
                if reversed {
                    nexts.reverse();
                }
                for next in nexts {
                    if !found.iter().any(|f| f[..] == next[1..]) {
                        found.push(next[1..].to_vec());
                    }
                }
                k += 1;
            }
            let mut keyed: Vec<_> = found
                .iter()
                .map(|row| {
                    let key = held.content_key_made(row);
                    let (machine, procs, _) = held.parts();
                    let shown = (row.iter().enumerate())
                        .map(|(slot, &local)| procs.show_state(machine.process_state(slot, local)))
                        .collect();
                    (shown, key, row.clone())
                })
                .collect();
            keyed.sort();
            keyed
        })
    }

    #[test]
    fn a_row_s_key_is_read_off_its_content_whatever_numbered_its_states() {
        let (forward, backward) = (keyed(BRANCHES, false), keyed(BRANCHES, true));
        assert_eq!(forward.len(), 25);
        let content = |keyed: &[(Vec<String>, u64, Vec<u32>)]| {
            keyed
                .iter()
                .map(|(shown, key, _)| (shown.clone(), *key))
                .collect::<Vec<_>>()
        };
        assert_eq!(content(&forward), content(&backward));
        // The two machines numbered some states apart.
        let renumbered = forward.iter().zip(&backward).filter(|(f, b)| f.2 != b.2);
        assert!(renumbered.count() > 0);
        let nodes = keyed(NODES, false);
        let mut keys: Vec<u64> = nodes.iter().map(|(_, key, _)| *key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 81, "each state its own key");
        // The keys spread the states over the workers.
        let mut owners = [0u32; 3];
        for &key in &keys {
            owners[crate::cluster::rows::owner_of(key, 3) as usize] += 1;
        }
        assert!(owners.iter().all(|&n| n >= 15), "{owners:?}");
    }
}

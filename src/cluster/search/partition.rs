//! A worker's states and their rounds' work: storing the states that
//! arrived, expanding (and judging) its part of a level, sending each
//! successor to its owner, and reading the path to a breach back.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use bit_vec::BitVec;

use crate::budget::{Budget, Meter, Pulse, Stopped};
use crate::check::product::Judgement;
use crate::eval::EvalError;
use crate::eval::value::bytes::DecodeError;
use crate::lts::machine::Moves;
use crate::lts::search::{Canonicaliser, DROP, LevelCounts, SharedJudge, distinct_transitions};
use crate::lts::store::{StateStore, hash_row};
use crate::process::{TAU, TICK};

use super::super::exchange::{Message, Rounds};
use super::super::ground::rendered;
use super::super::judge::{Judging, PathStep};
use super::super::rows::{Arrived, Batch, Link, RowCodec, owner_of};
use super::super::{ClusterError, Tally, Topology};

use super::distinct::{FEW_MOVES, few_distinct, many_distinct};
use super::system::{Access, Held, ReadScratch, System, read_successors};
use super::{Settled, exchange, total};

/// Replaces `row` (its components, then its node in a check) by its
/// representative: a check's product permutes the node with the
/// components; an exploration's canonicaliser, the components.
pub(super) fn canonicalised(
    judging: &mut Option<Judging>,
    held: &mut Held,
    row: &mut [u32],
) -> Result<(), Halt> {
    let (machine, procs, reduction) = held.parts();
    let canonicaliser: Option<&mut dyn Canonicaliser> = match judging {
        Some(judging) => Some(&mut judging.product),
        None => reduction,
    };
    if let Some(c) = canonicaliser {
        c.canonicalise(machine, procs, row)?;
    }
    Ok(())
}

/// Counts a state expanded, and deadlocked when it has no move and was
/// not reached by ✓.
fn count_expanded(tally: &mut Tally, moves: &Moves, ticked: bool) {
    tally.expanded += 1;
    if moves.list.is_empty() && !ticked {
        tally.deadlocks += 1;
    }
}

/// The most bytes of states a worker sends in one round (roughly: the
/// round ends after the state that passes it).
pub(super) const ROUND_BYTES: u64 = 32 << 20;

/// Why a worker stopped expanding.
pub(super) enum Halt {
    Stopped(Stopped),
    Error(EvalError),
    Malformed(String),
}

/// The buffers of expanding one state after another.
#[derive(Default)]
pub(super) struct Scratch {
    targets: Vec<u32>,
    order: Vec<u32>,
    /// Each successor's content key, on a shared machine.
    keys: Vec<u64>,
    /// Each successor's row's hash, where it has no content key: equal
    /// rows are found by it ([`few_distinct`]).
    hashes: Vec<u64>,
    /// Each distinct successor: its first entry, whether ✓ and τ reach it.
    reached: Vec<(u32, bool, bool)>,
    events: Vec<crate::process::EventId>,
    reading: ReadScratch,
    /// In a check, what its specification knew as this part began, to
    /// judge states beside the other workers ([`Judging::copy`]).
    copy: Option<Arc<dyn SharedJudge>>,
    /// What a state accepts, as the copy judges it.
    accepted: Vec<crate::process::EventId>,
}

impl From<EvalError> for Halt {
    fn from(e: EvalError) -> Halt {
        match e.stop_reason() {
            Some(stop) => Halt::Stopped(stop),
            None => Halt::Error(e),
        }
    }
}

impl From<DecodeError> for Halt {
    fn from(e: DecodeError) -> Halt {
        Halt::Malformed(e.to_string())
    }
}

impl From<Stopped> for Halt {
    fn from(stop: Stopped) -> Halt {
        Halt::Stopped(stop)
    }
}

/// The states a worker sends itself in a round: rows as it numbers
/// them (with their node in a check), how each was reached. An
/// exploration keeps them as met ([`Met`]).
#[derive(Default)]
pub(super) struct Own {
    rows: Vec<u32>,
    ticked: Vec<bool>,
    links: Vec<Link>,
    met: Met,
}

/// The successors an exploration's worker owns and stores as it meets
/// them, as one search does, without first making them distinct: each
/// one's event, and how many each expanded state has, so that its
/// distinct transitions are counted on the ids they are stored under.
#[derive(Default)]
pub(super) struct Met {
    events: Vec<crate::process::EventId>,
    counts: Vec<u32>,
}

impl Met {
    fn clear(&mut self) {
        self.events.clear();
        self.counts.clear();
    }

    /// The distinct transitions of the states whose successors were all
    /// stored, given the ids of the first stored ones (in order).
    fn transitions(&self, ids: &[(u32, bool)], pairs: &mut Vec<(u32, u32)>) -> u64 {
        let mut transitions = 0;
        let mut at = 0;
        for &count in &self.counts {
            let end = at + count as usize;
            if end > ids.len() {
                break;
            }
            let (events, ids) = (&self.events[at..end], &ids[at..end]);
            transitions += distinct_transitions(events, ids, pairs);
            at = end;
        }
        transitions
    }
}

impl Own {
    pub(super) fn count(&self) -> u64 {
        self.ticked.len() as u64
    }

    pub(super) fn clear(&mut self) {
        self.rows.clear();
        self.ticked.clear();
        self.links.clear();
        self.met.clear();
    }

    /// Adds a successor kept as met, reached by `event`.
    fn push_met(&mut self, row: &[u32], event: crate::process::EventId) {
        self.rows.extend_from_slice(row);
        self.ticked.push(event == TICK);
        self.met.events.push(event);
    }

    pub(super) fn push(&mut self, row: &[u32], arrived: Arrived) {
        self.rows.extend_from_slice(row);
        self.ticked.push(arrived.ticked);
        if let Some(link) = arrived.link {
            self.rows.push(link.node);
            self.links.push(link);
        }
    }

    /// Hands the rows over as what worker `me` read from itself this
    /// round, as a batch from itself would have been read: how each was
    /// reached after the other senders' before it, and the rows
    /// themselves (with their nodes) into `rows`, by exchanging buffers,
    /// not copied: a worker's own successors are the most of what it
    /// stores (all of a lone worker's).
    pub(super) fn read_into(
        &mut self,
        me: usize,
        (rows, met): (&mut Vec<u32>, &mut Met),
        (reached_by_tick, links): (&mut Vec<bool>, &mut Vec<(u32, Link)>),
    ) {
        rows.clear();
        std::mem::swap(rows, &mut self.rows);
        met.clear();
        std::mem::swap(met, &mut self.met);
        reached_by_tick.extend_from_slice(&self.ticked);
        links.extend(self.links.iter().map(|&link| (me as u32, link)));
        self.clear();
    }
}

/// The rows a worker read in a round, end to end (with their nodes), in
/// sender order: the other workers' rows, with its own among them after
/// the first `own_after` (kept apart: they are handed over, not copied).
#[derive(Default)]
pub(super) struct Inbox {
    others: Vec<u32>,
    own: Vec<u32>,
    own_after: usize,
    /// How its own successors were met, when they were kept as met.
    met: Met,
    pairs: Vec<(u32, u32)>,
}

impl Inbox {
    /// The rows read, in sender order, as runs of rows of `width`.
    fn runs(&self, width: usize) -> [&[u32]; 3] {
        let (before, after) = self.others.split_at(self.own_after * width);
        [before, &self.own, after]
    }

    /// The rows read one by one, in sender order.
    fn rows(&self, width: usize) -> impl Iterator<Item = &[u32]> {
        self.runs(width)
            .into_iter()
            .flat_map(move |run| run.chunks_exact(width))
    }
}

/// A worker's states and what it needs to expand them.
pub(super) struct Partition<'a, 's> {
    pub(super) me: usize,
    pub(super) topology: &'a Topology,
    /// Its own system, or the one its process's workers share.
    pub(super) system: &'a System<'s>,
    /// Rows between workers with systems of their own, as codes.
    pub(super) codec: RowCodec,
    /// Its states: their components, then (in a check) their node.
    pub(super) store: StateStore,
    /// In a check: what judging its states needs and finds.
    pub(super) judging: Option<Judging>,
    /// The level of the states that arrive in this round.
    pub(super) arrival_level: u32,
    /// After a breach, while the τ-successors of every state are found
    /// (to look for a divergence before it): only τ-moves are followed.
    pub(super) tau_only: bool,
    /// After the state budget or an evaluation error stopped the search:
    /// the rest of the level is judged, its successors not stored.
    pub(super) finishing: bool,
    /// The first evaluation error met expanding one of its states.
    pub(super) first_error: Option<EvalError>,
    /// Per stored state: reached by ✓. A bit each: with the store on
    /// disk, this is what memory keeps per state.
    pub(super) ticked: BitVec,
    /// The level being expanded, and how far.
    pub(super) frontier: Vec<u32>,
    pub(super) at: usize,
    /// The states stored for the next level.
    pub(super) queued: Vec<u32>,
    /// Its counts through each level (its states of that level and
    /// those before, the transitions of those before), as it began.
    pub(super) levels: Vec<LevelCounts>,

    pub(super) tally: Tally,
    pub(super) moves: Moves,
    pub(super) row: Vec<u32>,
    /// A successor's row.
    pub(super) target: Vec<u32>,
    /// This round's states for each other worker.
    pub(super) batches: Vec<Batch>,
    /// This round's states it owns itself: kept as they are, never
    /// written as codes.
    pub(super) own: Own,
    /// The rows read in a round; whether each was reached by ✓, and in a
    /// check its sender and link (kept for their room; an exploration's
    /// stay small).
    pub(super) inbox: Inbox,
    pub(super) reached_by_tick: Vec<bool>,
    pub(super) links: Vec<(u32, Link)>,
}

impl<'a, 's> Partition<'a, 's> {
    /// Records in the tally why this worker stopped, if it did: every
    /// worker reads it at the end of the round and stops alike.
    pub(super) fn record(&mut self, outcome: Result<(), Halt>, sources: &crate::syntax::SourceMap) {
        if let (None, Some(e)) = (&self.tally.error, &self.first_error) {
            let note = crate::check::breach_beside(e, sources);
            self.tally.error = Some((rendered(e, sources), note));
        }
        let halt = match outcome {
            Ok(()) => return,
            Err(halt) => halt,
        };
        self.batches.clear();
        self.own.clear();
        match halt {
            Halt::Stopped(stop) => self.tally.stopped = Some(stop.code()),
            Halt::Error(e) => self.tally.problem = Some(rendered(&e, sources)),
            Halt::Malformed(e) => self.tally.problem = Some(e),
        }
    }

    pub(super) fn reset_batches(&mut self) {
        self.batches = (0..self.topology.peers())
            .map(|_| Batch {
                from: self.me as u32,
                ..Batch::default()
            })
            .collect();
    }

    /// How many components a row has (a check's stored row has its node
    /// after them).
    fn components(&self) -> usize {
        self.store.width() - usize::from(self.judging.is_some())
    }

    /// Replaces `row` (its components, then its node in a check) by its
    /// representative.
    pub(super) fn canonicalise(&mut self, row: &mut [u32]) -> Result<(), Halt> {
        canonicalised(&mut self.judging, &mut self.system.write(), row)
    }

    /// Sends the initial state (its representative, with the
    /// specification's initial node in a check) to its owner.
    pub(super) fn seed(&mut self) -> Result<(), Halt> {
        let mut row = self.system.read().machine.initial().to_vec();
        let components = row.len();
        if let Some(judging) = &self.judging {
            row.push(judging.root);
        }
        self.canonicalise(&mut row)?;
        let link = self.judging.as_ref().map(|_| Link {
            node: row[components],
            parent: None,
            event: TAU,
            tau: false,
        });
        row.truncate(components);
        let arrived = Arrived {
            ticked: false,
            link,
        };
        let mut access = Access::Free;
        let key = self.content_key(&row, &mut access);
        self.send((&row, key), arrived, &mut access)
    }

    /// The content key of `row` (its components) on a shared machine
    /// ([`Held::content_key`]), which decides its owner; 0 on a system of
    /// this worker's own, whose owners are read off codes, and for a
    /// worker alone, which owns every row and numbers every component
    /// state itself (sent by row then, rows alike side by side: a key of
    /// its numbers measured 10 % slower on the dining philosophers).
    fn content_key(&self, row: &[u32], access: &mut Access<'a, 's>) -> u64 {
        match self.is_keyed() {
            true => access.content_key(self.system, row),
            false => 0,
        }
    }

    /// Whether this worker stores its successors as it meets them, and
    /// counts their distinct transitions once they are stored ([`Met`]):
    /// in an exploration (whose successors carry no link), alone (so
    /// that every successor is its own).
    fn keeps_as_met(&self) -> bool {
        self.judging.is_none() && self.topology.peers() == 1
    }

    /// Whether rows' content keys decide their owners: on a shared
    /// machine with several workers ([`Self::content_key`]).
    fn is_keyed(&self) -> bool {
        self.system.is_shared() && self.topology.peers() > 1
    }

    /// Adds `row` (its components) to the batch of its owner: as the
    /// shared machine's numbers (its owner read off `key`, its content
    /// key: [`Held::content_key`]), or as codes of this worker's own
    /// (which it holds by `access` meanwhile).
    pub(super) fn send(
        &mut self,
        (row, key): (&[u32], u64),
        arrived: Arrived,
        access: &mut Access<'a, 's>,
    ) -> Result<(), Halt> {
        let (peers, shared) = (self.topology.peers(), self.system.is_shared());
        let to = match peers {
            1 => 0,
            _ if shared => owner_of(key, peers) as usize,
            _ => {
                let (machine, procs, _) = access.writing(self.system).parts();
                self.codec.owner(machine, procs, row, peers) as usize
            }
        };
        if to == self.me {
            self.own.push(row, arrived);
            return Ok(());
        }
        let batch = &mut self.batches[to];
        let before = batch.bytes();
        if shared {
            let mut arrived = arrived;
            // A check's node crosses as a code, defined the first time.
            if let Some(link) = &mut arrived.link {
                link.node = match (self.codec.given_node(to, link.node), &mut self.judging) {
                    (Some(code), _) => code,
                    (None, Some(judging)) => {
                        let (_, procs, _) = access.writing(self.system).parts();
                        let spec = &mut *judging.product.spec;
                        self.codec
                            .node_code((procs, spec), link.node, to, batch)
                            .map_err(Halt::Malformed)?
                    }
                    (None, None) => {
                        return Err(Halt::Malformed(
                            "a linked row without its specification".to_string(),
                        ));
                    }
                };
            }
            batch.push_numbers(row, arrived);
            Ok(())
        } else {
            let (machine, procs, _) = access.writing(self.system).parts();
            self.codec.push(
                (
                    machine,
                    procs,
                    self.judging.as_mut().map(|j| &mut *j.product.spec as _),
                ),
                (row, arrived),
                to,
                batch,
            )
        }
        .map_err(Halt::Malformed)?;
        let bytes = (batch.bytes() - before) as u64;
        self.tally.bytes_sent += bytes;
        if to / self.topology.workers != self.me / self.topology.workers {
            self.tally.bytes_to_other_processes += bytes;
        }
        Ok(())
    }

    /// Reads the batches received: their definitions, then their rows,
    /// end to end (with their nodes), with how each was reached.
    pub(super) fn read(&mut self, batches: &[Batch]) -> Result<(), Halt> {
        self.inbox.others.clear();
        // Left empty should this read fail before its own rows' place.
        self.inbox.own.clear();
        self.inbox.own_after = 0;
        self.inbox.met.clear();
        self.reached_by_tick.clear();
        self.links.clear();
        // Workers that share a machine send components as its numbers;
        // only a check's nodes are defined.
        let shared = self.system.is_shared();
        let defining = !shared || batches.iter().any(|batch| !batch.nodes.is_empty());
        let mut held = defining.then(|| self.system.write());
        if let Some(held) = &mut held {
            let (machine, procs, _) = held.parts();
            for batch in batches {
                self.codec.define(
                    (
                        machine,
                        &mut *procs,
                        self.judging.as_mut().map(|j| &mut *j.product.spec as _),
                    ),
                    batch,
                )??;
            }
        }
        let (checking, components) = (self.judging.is_some(), self.components());
        let Inbox {
            others: received,
            own: own_received,
            own_after,
            met,
            ..
        } = &mut self.inbox;
        let (reached_by_tick, links) = (&mut self.reached_by_tick, &mut self.links);
        // In sender order, its own rows in their place.
        let own_place = batches.partition_point(|b| (b.from as usize) < self.me);
        let width = self.store.width().max(1);
        for (k, batch) in batches.iter().enumerate() {
            if k == own_place {
                *own_after = received.len() / width;
                (self.own).read_into(self.me, (own_received, met), (reached_by_tick, links));
            }
            let read_row = |row: &[u32], arrived: Arrived| {
                received.extend_from_slice(row);
                reached_by_tick.push(arrived.ticked);
                match (checking, arrived.link) {
                    (false, _) => {}
                    (true, Some(link)) => {
                        received.push(link.node);
                        links.push((batch.from, link));
                    }
                    (true, None) => {
                        return Err(Halt::Malformed(
                            "a state of a check without its link".to_string(),
                        ));
                    }
                }
                Ok(())
            };
            match &mut held {
                Some(held) if !shared => {
                    let (machine, procs, _) = held.parts();
                    self.codec.rows(machine, procs, batch, read_row)?;
                }
                _ => self.codec.numbered_rows(batch, components, read_row)?,
            }
        }
        if own_place == batches.len() {
            *own_after = received.len() / width;
            (self.own).read_into(self.me, (own_received, met), (reached_by_tick, links));
        }
        Ok(())
    }

    /// How many of the rows read are new, storing nothing.
    pub(super) fn count_fresh(&self) -> u64 {
        let mut fresh: FxHashSet<&[u32]> = FxHashSet::default();
        for row in self.inbox.rows(self.store.width().max(1)) {
            if !self.store.contains(row) {
                fresh.insert(row);
            }
        }
        fresh.len() as u64
    }

    /// Moves this worker's older states to disk when memory is short
    /// ([`StateStore::spill_when_short`]), keeping the rest of the level
    /// being expanded, and in a check the parents and τ-edges its judging
    /// keeps.
    pub(super) fn spill_if_short(&mut self, budget: &Budget) -> Result<(), Halt> {
        let next = self
            .frontier
            .get(self.at)
            .map_or(self.store.len(), |&id| id as usize);
        let spilt = self
            .store
            .spill_when_short(budget, next)
            .map_err(Halt::Stopped)?;
        if spilt && let Some(spill) = &budget.spill {
            if let Some(judging) = &mut self.judging {
                judging.spill(spill).map_err(Halt::Stopped)?;
            }
            self.tally.on_disk = self.store.states_on_disk() as u64;
            self.tally.disk_peak = spill.peak();
        }
        Ok(())
    }

    /// Stores the rows read, together (the store fetches a batch's table
    /// lines ahead of their lookups): the new ones are queued for the
    /// next level.
    pub(super) fn store_read(&mut self, meter: &Meter) -> Result<(), Halt> {
        let mut stored = Vec::with_capacity(self.reached_by_tick.len());
        let runs = self.inbox.runs(self.store.width().max(1));
        let full = self.store.insert_all(&runs, &mut stored, meter);
        // The successors kept as met: their transitions.
        let inbox = &mut self.inbox;
        let own = stored.get(inbox.own_after..).unwrap_or_default();
        self.tally.transitions += inbox.met.transitions(own, &mut inbox.pairs);
        for (&(id, new), &ticked) in stored.iter().zip(&self.reached_by_tick) {
            if new {
                self.ticked.push(false);
                self.queued.push(id);
                self.tally.stored += 1;
            }
            if ticked && !self.ticked[id as usize] {
                self.ticked.set(id as usize, true);
                self.tally.terminated += 1;
            }
        }
        if let Some(judging) = &mut self.judging {
            for (&(id, new), &(from, link)) in stored.iter().zip(&self.links) {
                judging.stored((id, new), from, link, self.arrival_level);
            }
        }
        full?;
        Ok(())
    }

    /// Expands the next part of the level (at most `states`, or as many
    /// as fill [`ROUND_BYTES`] of batches): each successor to its owner,
    /// each distinct transition counted once. In a check each state is
    /// judged first; one that breaks the specification, and every state
    /// after a breach, has only its τ-successors followed (for the
    /// search for divergences).
    pub(super) fn expand(&mut self, states: usize, meter: &Meter) -> Result<(), Halt> {
        // Polled by the clock, for every state and move: one state of a
        // wide synchronisation can take milliseconds to expand.
        let mut pulse = Pulse::default();
        let end = self.frontier.len().min(self.at + states.max(1));
        let bytes_before = self.tally.bytes_sent;
        let mut scratch = Scratch {
            copy: (self.judging.as_mut())
                .filter(|_| self.system.is_shared())
                .and_then(Judging::copy),
            ..Scratch::default()
        };
        // Held from state to state, given up when the part is expanded:
        // before this worker waits for the round.
        let mut access = Access::Free;
        while self.at < end && self.tally.bytes_sent - bytes_before <= ROUND_BYTES {
            let id = self.frontier[self.at];
            self.at += 1;
            match self.expand_state(id, (&mut pulse, meter), &mut scratch, &mut access) {
                // The level is judged to its end all the same
                // (`finishing`): the state leads nowhere.
                Err(Halt::Error(e)) => {
                    self.first_error.get_or_insert(e);
                }
                other => other?,
            }
        }
        Ok(())
    }

    /// Expands state `id` of the level: its successors to their owners,
    /// each distinct transition counted once; in a check, judged first.
    /// While the level is judged to its end (`finishing`), only its
    /// τ-successors are sent, to be looked up (for the search for
    /// divergences), and none at all when divergences are not looked for.
    ///
    /// On a shared system, a state whose successors can be read off it
    /// is expanded beside the other workers; the rest with it to itself.
    pub(super) fn expand_state(
        &mut self,
        id: u32,
        (pulse, meter): (&mut Pulse, &Meter),
        scratch: &mut Scratch,
        access: &mut Access<'a, 's>,
    ) -> Result<(), Halt> {
        let (system, components) = (self.system, self.components());
        pulse.beat(meter)?;
        self.store.read(id, &mut self.row);
        let read = system.is_shared()
            && read_successors(
                (system, access.reading(system)),
                (&self.row, components),
                (&mut self.moves, &mut self.target, &mut scratch.targets),
                &mut scratch.reading,
            )
            && self.judged_by_copy(scratch);
        let tau_only = if read {
            count_expanded(&mut self.tally, &self.moves, self.ticked[id as usize]);
            false
        } else {
            match self.successors_written(id, pulse, meter, scratch, access.writing(system))? {
                Some(tau_only) => tau_only,
                None => return Ok(()),
            }
        };
        self.send_successors(id, tau_only, scratch, access)
    }

    /// In a check, whether the state read into `self.row`, whose
    /// successors were read into the scratch's targets (each with the
    /// state's node after it), is plainly fine by the copy of its
    /// specification's knowledge ([`Judging::copy`]); if so, each
    /// successor's node is written in. Not while only τ-moves are
    /// followed or the level is finished, nor when the copy does not
    /// know: the state is then judged in full, with the system to itself.
    /// An exploration judges nothing.
    fn judged_by_copy(&self, scratch: &mut Scratch) -> bool {
        if self.judging.is_none() {
            return true;
        }
        let Some(copy) = &scratch.copy else {
            return false;
        };
        if self.tau_only || self.finishing {
            return false;
        }
        let components = self.components();
        scratch.events.clear();
        (scratch.events).extend(self.moves.list.iter().map(|m| m.event));
        // Each successor: its event, its components, its node.
        let step = components + 2;
        copy.fine(
            &self.row[components..],
            &scratch.events,
            scratch.targets.get_mut(1..).unwrap_or_default(),
            (components, step),
            &mut scratch.accepted,
        )
    }

    /// The successors of state `id` (read into `self.row`), each after
    /// its event, into the scratch's targets, with the system to itself
    /// (computing what it does not know yet); in a check, judged first.
    /// Whether only τ-successors are to be followed, or `None` when none
    /// are.
    fn successors_written(
        &mut self,
        id: u32,
        pulse: &mut Pulse,
        meter: &Meter,
        scratch: &mut Scratch,
        held: &mut Held,
    ) -> Result<Option<bool>, Halt> {
        let components = held.machine.components();
        let (row, node) = self.row.split_at(components);
        let node = node.first().copied();
        let (machine, procs, canonicaliser) = held.parts();
        let before = machine.is_prepared(row);
        machine.moves(procs, row, &mut self.moves)?;
        // What the shared part of its canonicaliser reads is learnt as
        // the machine meets new component states.
        if let (false, Some(canonicaliser)) = (before, canonicaliser) {
            canonicaliser.prepare(machine, procs)?;
        }
        count_expanded(&mut self.tally, &self.moves, self.ticked[id as usize]);
        let mut tau_only = self.tau_only || self.finishing;
        let events = &mut scratch.events;
        if let (Some(judging), Some(node), false) = (&mut self.judging, node, self.tau_only) {
            events.clear();
            events.extend(self.moves.list.iter().map(|m| m.event));
            match judging.judge(procs, id, (node, row, events))? {
                Judgement::Fine => {}
                Judgement::Allowed => return Ok(None),
                Judgement::Breach(_) => {
                    self.tally.breached = Some(judging.breach_level());
                    tau_only = true;
                }
            }
        }
        if self.finishing && !self.judging.as_ref().is_some_and(|j| j.divergences) {
            return Ok(None);
        }
        let targets = &mut scratch.targets;
        targets.clear();
        for index in 0..self.moves.list.len() {
            // A state with very many moves is held to the budget as
            // it grows.
            pulse.beat(meter)?;
            let m = self.moves.list[index];
            if tau_only && m.event != TAU {
                continue;
            }
            let after = match (&self.judging, node) {
                (Some(judging), Some(node)) => Some(judging.node_after(index, m.event, node)),
                _ => None,
            };
            if after == Some(DROP) {
                continue;
            }
            self.moves.apply(&m, row, &mut self.target);
            self.target.extend(after);
            canonicalised(&mut self.judging, held, &mut self.target)?;
            targets.push(m.event);
            targets.extend_from_slice(&self.target);
        }
        Ok(Some(tau_only))
    }

    /// Sends the successors of state `id` (in the scratch's targets, each
    /// after its event) to their owners, each distinct row once (sorted,
    /// so that each distinct transition counts once however many moves
    /// the state has).
    fn send_successors(
        &mut self,
        id: u32,
        tau_only: bool,
        scratch: &mut Scratch,
        access: &mut Access<'a, 's>,
    ) -> Result<(), Halt> {
        let step = self.store.width() + 1;
        if self.keeps_as_met() {
            // Each successor, as met: one search's way.
            let targets = &scratch.targets;
            for entry in targets.chunks_exact(step) {
                let (event, row) = (entry[0], &entry[1..]);
                (self.own).push_met(row, event);
            }
            (self.own.met.counts).push((targets.len() / step) as u32);
            return Ok(());
        }
        let components = self.components();
        let node = self.row.get(components).copied();
        let Scratch {
            targets,
            order,
            keys,
            hashes,
            reached,
            ..
        } = scratch;
        let entry = |k: u32| &targets[k as usize * step..(k as usize + 1) * step];
        order.clear();
        order.extend(0..(targets.len() / step) as u32);
        // On a shared machine, a row's content key (its numbers depend
        // on which worker met its states first), which decides its owner.
        keys.clear();
        for &k in order.iter() {
            keys.push(self.content_key(&entry(k)[1..=components], access));
        }
        // Exploring, the rows it owns itself are kept as met; the rest
        // are made distinct and sent.
        if self.judging.is_none() && self.is_keyed() {
            let (me, peers, own) = (self.me, self.topology.peers(), &mut self.own);
            let mut mine = 0;
            order.retain(|&k| {
                let owned = owner_of(keys[k as usize], peers) as usize == me;
                if owned {
                    own.push_met(&entry(k)[1..], entry(k)[0]);
                    mine += 1;
                }
                !owned
            });
            own.met.counts.push(mine);
        }
        // Each distinct row once: its first move (the smallest event), and
        // whether ✓ or τ reach it; each distinct transition counted once.
        reached.clear();
        let distinct = if order.len() <= FEW_MOVES {
            let hashes = match self.is_keyed() {
                true => keys.as_slice(),
                false => {
                    hashes.clear();
                    let rows = (0..keys.len() as u32).map(|k| &entry(k)[1..]);
                    hashes.extend(rows.map(|row| u64::from(hash_row(row))));
                    hashes.as_slice()
                }
            };
            few_distinct(order, (entry, hashes), reached)
        } else {
            many_distinct(order, (entry, keys.as_slice()), reached)
        };
        if !tau_only {
            self.tally.transitions += distinct;
        }
        // Sent in the order of their first events, as one search meets
        // them (τ first), then of their content.
        reached.sort_by_key(|&(first, ..)| (entry(first)[0], keys[first as usize]));
        let mut tau_successors = 0;
        for &(first, ticked, tau) in reached.iter() {
            let (event, target) = (entry(first)[0], &entry(first)[1..]);
            tau_successors += u32::from(tau);
            let link = node.map(|_| Link {
                node: target[components],
                parent: Some(id),
                event,
                tau,
            });
            let key = keys[first as usize];
            self.send(
                (&target[..components], key),
                Arrived { ticked, link },
                access,
            )?;
        }
        if let Some(judging) = &mut self.judging {
            judging.tau_successors(id, tau_successors);
        }
        Ok(())
    }

    /// While the level is judged to its end: the rows read looked up,
    /// storing nothing. A τ-edge into a state stored at the level or
    /// before is recorded (what the search for divergences follows); one
    /// into a state of the next level, or none stored, leads nowhere.
    pub(super) fn look_up_read(&mut self) {
        let Some(judging) = &mut self.judging else {
            return;
        };
        let rows = self.inbox.rows(self.store.width().max(1));
        for (row, &(from, link)) in rows.zip(&self.links) {
            if let Some(id) = self.store.find(row)
                && judging.level(id) < self.arrival_level
            {
                judging.stored((id, false), from, link, self.arrival_level);
            }
        }
    }

    /// After a check's search (`breached`: the first worker to find a
    /// breach, and its level; `searched_all`: whether every state was
    /// expanded): which states diverge, when the model has divergences,
    /// then the first violation — a divergence at a lower level than the
    /// breach, else the breach — and its path, read back one state a
    /// round. Every worker returns the same.
    pub(super) fn settle(
        &mut self,
        (rounds, topology, out): (&Rounds, &Topology, &mut Vec<Message>),
        (breached, meter, searched_all): (Option<(u32, u32)>, &Meter, bool),
    ) -> Result<Settled, ClusterError> {
        let peers = topology.peers();
        let me = self.me;
        let mut divergent = None;
        if self.judging.as_ref().is_some_and(|j| j.divergences) {
            if !searched_all {
                // A budget stopped the search: a τ-successor sent may not
                // have been stored. Each state keeps only the τ-edges its
                // successors' owners recorded, so that one into a state
                // never stored counts as leading to no divergence.
                let judging = self.judging.as_mut().expect("a check judges");
                out.extend(judging.recorded_edges((me, peers)));
                self.tally.sent = out.len() as u64;
                let round = exchange(rounds, topology, &self.tally, out)?;
                let judging = self.judging.as_mut().expect("a check judges");
                judging
                    .count_edges(&round.edges)
                    .map_err(|e| ClusterError::Worker {
                        worker: me,
                        message: e.to_string(),
                    })?;
            }
            let judging = self.judging.as_mut().expect("a check judges");
            let predecessors = judging.predecessors();
            let mut removed = judging.without_tau();
            loop {
                let judging = self.judging.as_mut().expect("a check judges");
                out.extend(judging.remove(&mut removed, &predecessors, (me, peers)));
                self.tally.sent = out.len() as u64;
                // Each round polls the budget: a long τ-chain across
                // workers takes a round a link.
                if let Err(stop) = meter.poll() {
                    self.tally.stopped.get_or_insert(stop.code());
                }
                let round = exchange(rounds, topology, &self.tally, out)?;
                if let Some(stop) = round.tallies.iter().find_map(|t| t.stopped) {
                    let stop = Stopped::from_code(stop).unwrap_or(Stopped::Cancelled);
                    return Ok(match breached {
                        // The breach stands: a divergence before it is
                        // what could not be ruled out.
                        Some(_) => self.settle_at(rounds, topology, out, breached, None)?,
                        None => Settled::Stopped(stop),
                    });
                }
                let judging = self.judging.as_mut().expect("a check judges");
                judging
                    .count_down(&round.removed, &mut removed)
                    .map_err(|e| ClusterError::Worker {
                        worker: me,
                        message: e.to_string(),
                    })?;
                if total(&round.tallies, |t| t.sent) == 0 {
                    break;
                }
            }
            let judging = self.judging.as_mut().expect("a check judges");
            self.tally.divergent = judging.first_divergent();
            let round = exchange(rounds, topology, &self.tally, out)?;
            divergent = round
                .tallies
                .iter()
                .filter_map(|t| t.divergent.map(|(level, id)| (level, t.worker, id)))
                .min();
        }
        let settled = self.settle_at(rounds, topology, out, breached, divergent)?;
        // Every worker walks the same goal, so all take the same rounds.
        let walking = (self.judging.as_ref()).is_some_and(Judging::walks_trace);
        match settled {
            Settled::Holds if walking && searched_all => {
                self.settle_furthest(rounds, topology, out)
            }
            settled => Ok(settled),
        }
    }

    /// The first violation — a divergence at a level no deeper than the
    /// breach (one search judges a state's divergence before the rest),
    /// else the breach — and its path, read back one state a round.
    pub(super) fn settle_at(
        &mut self,
        rounds: &Rounds,
        topology: &Topology,
        out: &mut Vec<Message>,
        breached: Option<(u32, u32)>,
        divergent: Option<(u32, u32, u32)>,
    ) -> Result<Settled, ClusterError> {
        let judging = self.judging.as_ref().expect("a check judges");
        // The first violation's state (worker, number): worker 0 judges
        // it again when it has the path, and so learns how it breaks.
        let (at, level) = match (divergent, breached) {
            (Some((level, worker, id)), breached)
                if breached.is_none_or(|(_, breach_level)| level <= breach_level) =>
            {
                (Some((worker, id)), level)
            }
            (_, Some((worker, level))) => {
                let own = judging.breach.filter(|_| worker as usize == self.me);
                (Some((worker, own.map_or(0, |(id, _)| id))), level)
            }
            (Some(_), None) | (None, None) => return Ok(Settled::Holds),
        };
        let (steps, counts) = self.read_back(rounds, topology, out, at, level)?;
        Ok(Settled::Violation(steps, (counts, level)))
    }

    /// `:[has trace]:` when no worker completed the trace: the path to the
    /// first state that performed its longest prefix (longest, then
    /// lowest level, then lowest worker), read back as a violation's is.
    pub(super) fn settle_furthest(
        &mut self,
        rounds: &Rounds,
        topology: &Topology,
        out: &mut Vec<Message>,
    ) -> Result<Settled, ClusterError> {
        let judging = self.judging.as_ref().expect("a check judges");
        self.tally.furthest = judging.furthest;
        let round = exchange(rounds, topology, &self.tally, out)?;
        self.tally.furthest = None;
        let furthest = round
            .tallies
            .iter()
            .filter_map(|t| {
                t.furthest
                    .map(|(prefix, level, id)| (prefix, level, t.worker, id))
            })
            .min_by_key(|&(prefix, level, worker, _)| (std::cmp::Reverse(prefix), level, worker));
        let Some((_, level, worker, id)) = furthest else {
            return Err(ClusterError::Worker {
                worker: 0,
                message: "no worker judged the initial state".to_string(),
            });
        };
        let (steps, _) = self.read_back(rounds, topology, out, Some((worker, id)), level)?;
        Ok(Settled::Furthest(steps))
    }

    /// The path from state `at` (worker, number) back to the initial
    /// state, read one state a round from the worker that owns it, and
    /// every worker's counts through `level`, summed.
    pub(super) fn read_back(
        &mut self,
        rounds: &Rounds,
        topology: &Topology,
        out: &mut Vec<Message>,
        mut at: Option<(u32, u32)>,
        level: u32,
    ) -> Result<(Vec<PathStep>, LevelCounts), ClusterError> {
        // Each worker's counts through the level go with its tally in
        // the first round, and are summed from there.
        let own = self.levels.get(level as usize).copied().unwrap_or_default();
        (self.tally.level_stored, self.tally.level_transitions) = (own.states, own.transitions);
        let mut counts = None;
        let mut steps = Vec::new();
        while let Some((worker, id)) = at {
            self.tally.step = None;
            if worker as usize == self.me {
                if id as usize >= self.store.len() {
                    return Err(ClusterError::Worker {
                        worker: self.me,
                        message: format!("a counterexample's state {id} is not one of its own"),
                    });
                }
                self.store.read(id, &mut self.row);
                let judging = self.judging.as_mut().expect("a check judges");
                let mut held = self.system.write();
                let (machine, procs, _) = held.parts();
                let step = judging
                    .step(machine, procs, id, &self.row)
                    .map_err(|message| ClusterError::Worker {
                        worker: self.me,
                        message,
                    })?;
                self.tally.step = Some(step);
            }
            let round = exchange(rounds, topology, &self.tally, out)?;
            counts.get_or_insert_with(|| LevelCounts {
                states: total(&round.tallies, |t| t.level_stored),
                transitions: total(&round.tallies, |t| t.level_transitions),
            });
            let Some(step) = round.tallies.iter().find_map(|t| t.step.clone()) else {
                return Err(ClusterError::Worker {
                    worker: worker as usize,
                    message: "it did not report a state of the counterexample".to_string(),
                });
            };
            at = step.from.map(|(_, worker, id)| (worker, id));
            steps.push(step);
            // A path visits each state once at most.
            if steps.len() as u64 > total(&round.tallies, |t| t.stored) + 1 {
                return Err(ClusterError::Worker {
                    worker: worker as usize,
                    message: "a counterexample's path does not end".to_string(),
                });
            }
        }
        self.tally.step = None;
        Ok((steps, counts.unwrap_or_default()))
    }
}

//! One worker's part of a distributed exploration: the states it owns
//! (those whose encoding hashes to it), found level by level.
//!
//! Each round the worker expands the next part of its current level (a
//! wide level takes several rounds, so a round's messages stay bounded),
//! canonicalises each successor under symmetry and sends it to its
//! owner; with them it sends every worker its [`Tally`]. When the round
//! ends it stores the states it received that are new, for the next
//! level, and reads every worker's tally. When every worker has expanded
//! its part of the level, the next level begins; when besides nobody sent
//! or holds a state, the search is over; when any worker stopped (a
//! budget, an error), all stop with the first one's reason, in worker
//! order. Every worker decides from the same tallies, so all decide
//! alike.

use rustc_hash::FxHashSet;

use crate::budget::{Meter, Stopped, Ticker};
use crate::eval::EvalError;
use crate::eval::value::bytes::DecodeError;
use crate::lts::Exploration;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::Canonicaliser;
use crate::lts::store::StateStore;
use crate::process::{Processes, TICK};
use crate::symmetry::search_system::SearchSystem;

use super::exchange::{Message, Rounds};
use super::rows::{Batch, RowCodec};
use super::{ClusterError, ClusterExploration, Job, Tally, Topology};

/// Runs worker `me`'s partition to the end of the search.
pub fn partition(
    job: &Job,
    topology: &Topology,
    me: usize,
    rounds: Rounds,
) -> Result<ClusterExploration, ClusterError> {
    let started = std::time::Instant::now();
    let budget = job.budget.clone();
    let meter = budget.meter();
    let mut loaded = crate::types::load_file_within(&job.file, &meter)
        .map_err(|e| ClusterError::Load(e.render()))?;
    let prepared = (job.prepare)(&mut loaded).map_err(ClusterError::Load)?;
    let script = &loaded.script;
    let built = SearchSystem::build(
        script,
        prepared.func,
        &prepared.reduce,
        job.strategy,
        meter.clone(),
    );
    let mut built = built.map_err(|e| ClusterError::Worker {
        worker: me,
        message: rendered(&e, &script.sources),
    })?;
    built.procs.replace_meter(meter.clone());
    let components = built.machine.components();
    let canonicaliser = built.reduction.canonicaliser();
    let mut part = Partition {
        me,
        topology,
        procs: &mut built.procs,
        machine: &mut built.machine,
        canonicaliser,
        codec: RowCodec::new(topology.peers()),
        store: StateStore::new(components),
        ticked: Vec::new(),
        frontier: Vec::new(),
        at: 0,
        queued: Vec::new(),
        tally: Tally {
            worker: me as u32,
            ..Tally::default()
        },
        moves: Moves::default(),
        row: Vec::new(),
        target: Vec::new(),
        batches: Vec::new(),
        received: Vec::new(),
        reached_by_tick: Vec::new(),
    };
    part.reset_batches();
    if me == 0 {
        let seeded = part.seed();
        part.record(seeded, &script.sources);
    }
    let mut levels = 0u32;
    // Whether any worker expanded a state of the current level.
    let mut level_expanded = false;
    let mut out = Vec::new();
    loop {
        part.tally.sent = part.batches.iter().map(|b| b.count).sum();
        part.tally.remaining = (part.frontier.len() - part.at) as u64;
        part.tally.queued = part.queued.len() as u64;
        for (to, batch) in part.batches.drain(..).enumerate() {
            if batch.count > 0 {
                out.push(Message::Batch {
                    to: to as u32,
                    batch,
                });
            }
        }
        let (tallies, batches) = exchange(&rounds, topology, &part.tally, &mut out)?;
        if let Some(problem) = tallies.iter().find(|t| t.problem.is_some()) {
            return Err(ClusterError::Worker {
                worker: problem.worker as usize,
                message: problem.problem.clone().unwrap_or_default(),
            });
        }
        level_expanded |= tallies.iter().any(|t| t.expanded > 0);
        let sum = |f: fn(&Tally) -> u64| total(&tallies, f);
        let (remaining, sent, queued) = (sum(|t| t.remaining), sum(|t| t.sent), sum(|t| t.queued));
        let level_ends = remaining == 0;
        if level_ends && level_expanded {
            levels += 1;
            level_expanded = false;
        }
        let stored = sum(|t| t.stored);
        if let Some(live) = &budget.live
            && me == 0
        {
            use std::sync::atomic::Ordering::Relaxed;
            live.states.store(stored, Relaxed);
            live.depth.store(u64::from(levels), Relaxed);
            live.transitions.store(sum(|t| t.transitions), Relaxed);
        }
        let mut stopped = tallies
            .iter()
            .find_map(|t| t.stopped.and_then(Stopped::from_code));
        // Read what arrived. Under a state budget that this round's
        // states could pass, every worker first counts its new states
        // and all compare the total with what the budget has left, in a
        // round of their own: the cluster stores no more than the budget,
        // and stops only when the states would pass it.
        let read = part.read(&batches);
        if let (Some(max), None, Ok(())) = (budget.max_states, stopped, &read) {
            let left = (max as u64).saturating_sub(stored);
            if sent > left {
                part.tally.fresh = part.count_fresh();
                let (counted, _) = exchange(&rounds, topology, &part.tally, &mut out)?;
                if total(&counted, |t| t.fresh) > left {
                    stopped = Some(Stopped::StateBudget);
                }
            }
        }
        if stopped.is_some() || (level_ends && sent == 0 && queued == 0) {
            return Ok(finish(
                tallies, levels, components, stopped, started, topology,
            ));
        }
        // Store what arrived, then expand it.
        part.tally.expanded = 0;
        let mut ticker = Ticker::new(meter.clone(), 1024);
        part.reset_batches();
        let absorbed = read.and_then(|()| part.store_read(&meter));
        if level_ends {
            part.frontier = std::mem::take(&mut part.queued);
            part.at = 0;
        }
        let expanded = absorbed.and_then(|()| part.expand(job.round_states, &mut ticker));
        part.record(expanded, &script.sources);
        part.tally.store_bytes = part.store.bytes();
    }
}

/// One round: this worker's batches (taken from `out`) and its tally to
/// every worker; every worker's tally, in worker order, and the batches
/// sent to this one. A worker whose tally is missing has stopped.
fn exchange(
    rounds: &Rounds,
    topology: &Topology,
    tally: &Tally,
    out: &mut Vec<Message>,
) -> Result<(Vec<Tally>, Vec<Batch>), ClusterError> {
    for to in 0..topology.peers() {
        out.push(Message::Tally {
            to: to as u32,
            tally: tally.clone(),
        });
    }
    let received = rounds.round(std::mem::take(out))?;
    let mut tallies: Vec<Tally> = Vec::with_capacity(topology.peers());
    let mut batches = Vec::new();
    for message in received {
        match message {
            Message::Batch { batch, .. } => batches.push(batch),
            Message::Tally { tally, .. } => tallies.push(tally),
            // Heartbeats stay with the timely worker.
            Message::Alive { .. } => {}
        }
    }
    tallies.sort_by_key(|t| t.worker);
    let reported = |w: usize| tallies.iter().any(|t| t.worker as usize == w);
    if let Some(missing) = (0..topology.peers()).find(|&w| !reported(w)) {
        return Err(ClusterError::Worker {
            worker: missing,
            message: "it stopped reporting (its process failed or was stopped)".to_string(),
        });
    }
    Ok((tallies, batches))
}

/// A count summed over every worker's tally.
fn total(tallies: &[Tally], count: fn(&Tally) -> u64) -> u64 {
    tallies.iter().map(count).sum()
}

/// The cluster's totals, from the last round's tallies.
fn finish(
    tallies: Vec<Tally>,
    levels: u32,
    components: usize,
    stopped: Option<Stopped>,
    started: std::time::Instant,
    topology: &Topology,
) -> ClusterExploration {
    let sum = |f: fn(&Tally) -> u64| total(&tallies, f);
    ClusterExploration {
        exploration: Exploration {
            states: sum(|t| t.stored),
            transitions: sum(|t| t.transitions),
            deadlock_states: sum(|t| t.deadlocks),
            terminated_states: sum(|t| t.terminated),
            depth: levels.saturating_sub(1),
            components,
            seconds: started.elapsed().as_secs_f64(),
            store_bytes: sum(|t| t.store_bytes),
            complete: stopped.is_none(),
            stopped,
        },
        workers: tallies,
        processes: topology.processes(),
    }
}

/// An evaluation error as the worker's message: its diagnostic, rendered.
fn rendered(e: &EvalError, sources: &crate::syntax::SourceMap) -> String {
    crate::syntax::render_all(&[e.to_diagnostic()], sources)
        .trim_end()
        .to_string()
}

/// The most bytes of states a worker sends in one round (roughly: the
/// round ends after the state that passes it).
const ROUND_BYTES: u64 = 32 << 20;

/// Why a worker stopped expanding.
enum Halt {
    Stopped(Stopped),
    Error(EvalError),
    Malformed(String),
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

/// A worker's states and what it needs to expand them.
struct Partition<'a, 's> {
    me: usize,
    topology: &'a Topology,
    procs: &'a mut Processes<'s>,
    machine: &'a mut Machine,
    canonicaliser: Option<&'a mut dyn Canonicaliser>,
    codec: RowCodec,
    store: StateStore,
    /// Per stored state: reached by ✓.
    ticked: Vec<bool>,
    /// The level being expanded, and how far.
    frontier: Vec<u32>,
    at: usize,
    /// The states stored for the next level.
    queued: Vec<u32>,

    tally: Tally,
    moves: Moves,
    row: Vec<u32>,
    /// A successor's row.
    target: Vec<u32>,
    /// This round's states for each worker.
    batches: Vec<Batch>,
    /// The rows received in a round, end to end, and whether each was
    /// reached by ✓ (kept for their room).
    received: Vec<u32>,
    reached_by_tick: Vec<bool>,
}

impl Partition<'_, '_> {
    /// Records in the tally why this worker stopped, if it did: every
    /// worker reads it at the end of the round and stops alike.
    fn record(&mut self, outcome: Result<(), Halt>, sources: &crate::syntax::SourceMap) {
        let halt = match outcome {
            Ok(()) => return,
            Err(halt) => halt,
        };
        self.batches.clear();
        match halt {
            Halt::Stopped(stop) => self.tally.stopped = Some(stop.code()),
            Halt::Error(e) => self.tally.problem = Some(rendered(&e, sources)),
            Halt::Malformed(e) => self.tally.problem = Some(e),
        }
    }

    fn reset_batches(&mut self) {
        self.batches = (0..self.topology.peers())
            .map(|_| Batch {
                from: self.me as u32,
                ..Batch::default()
            })
            .collect();
    }

    /// Sends the initial state (its representative) to its owner.
    fn seed(&mut self) -> Result<(), Halt> {
        let mut row = self.machine.initial().to_vec();
        if let Some(c) = self.canonicaliser.as_deref_mut() {
            c.canonicalise(self.machine, self.procs, &mut row)?;
        }
        self.send(&row, false)
    }

    /// Adds `row` to the batch of its owner.
    fn send(&mut self, row: &[u32], ticked: bool) -> Result<(), Halt> {
        let peers = self.topology.peers();
        let to = self
            .codec
            .owner(self.machine, self.procs, row, peers)
            .map_err(Halt::Malformed)? as usize;
        let batch = &mut self.batches[to];
        let before = batch.bytes();
        self.codec
            .push(self.machine, self.procs, (row, ticked), to, batch)
            .map_err(Halt::Malformed)?;
        let bytes = (batch.bytes() - before) as u64;
        self.tally.bytes_sent += bytes;
        if to / self.topology.workers != self.me / self.topology.workers {
            self.tally.bytes_to_other_processes += bytes;
        }
        Ok(())
    }

    /// Reads the batches received: their definitions, then their rows,
    /// end to end, with whether each was reached by ✓.
    fn read(&mut self, batches: &[Batch]) -> Result<(), Halt> {
        self.received.clear();
        self.reached_by_tick.clear();
        for batch in batches {
            self.codec
                .define(self.machine, self.procs, batch)
                .map_err(|e| Halt::Malformed(e.to_string()))?;
        }
        let (received, reached_by_tick) = (&mut self.received, &mut self.reached_by_tick);
        for batch in batches {
            self.codec
                .rows(self.machine, self.procs, batch, |row, ticked| {
                    received.extend_from_slice(row);
                    reached_by_tick.push(ticked);
                    Ok::<(), Halt>(())
                })?;
        }
        Ok(())
    }

    /// How many of the rows read are new, storing nothing.
    fn count_fresh(&self) -> u64 {
        let width = self.machine.components().max(1);
        let mut fresh: FxHashSet<&[u32]> = FxHashSet::default();
        for row in self.received.chunks_exact(width) {
            if !self.store.contains(row) {
                fresh.insert(row);
            }
        }
        fresh.len() as u64
    }

    /// Stores the rows read, together (the store fetches a batch's table
    /// lines ahead of their lookups): the new ones are queued for the
    /// next level.
    fn store_read(&mut self, meter: &Meter) -> Result<(), Halt> {
        let mut stored = Vec::with_capacity(self.reached_by_tick.len());
        let full = self.store.insert_all(&[&self.received], &mut stored, meter);
        for (&(id, new), &ticked) in stored.iter().zip(&self.reached_by_tick) {
            if new {
                self.ticked.push(false);
                self.queued.push(id);
                self.tally.stored += 1;
            }
            if ticked && !self.ticked[id as usize] {
                self.ticked[id as usize] = true;
                self.tally.terminated += 1;
            }
        }
        full?;
        Ok(())
    }

    /// Expands the next part of the level (at most `states`, or as many
    /// as fill [`ROUND_BYTES`] of batches): each successor to its owner,
    /// each distinct transition counted once.
    fn expand(&mut self, states: usize, ticker: &mut Ticker) -> Result<(), Halt> {
        let end = self.frontier.len().min(self.at + states.max(1));
        let bytes_before = self.tally.bytes_sent;
        let width = self.machine.components();
        // A state's successors, event and row, end to end: sorted, so
        // that each distinct transition counts once and each distinct
        // target is sent once, however many moves the state has.
        let mut targets: Vec<u32> = Vec::new();
        let mut order: Vec<u32> = Vec::new();
        while self.at < end && self.tally.bytes_sent - bytes_before <= ROUND_BYTES {
            let id = self.frontier[self.at];
            self.at += 1;
            ticker.tick()?;
            self.store.read(id, &mut self.row);
            self.machine.moves(self.procs, &self.row, &mut self.moves)?;
            self.tally.expanded += 1;
            if self.moves.list.is_empty() && !self.ticked[id as usize] {
                self.tally.deadlocks += 1;
            }
            targets.clear();
            for index in 0..self.moves.list.len() {
                // A state with very many moves is held to the budget as
                // it grows.
                ticker.tick()?;
                let m = self.moves.list[index];
                self.moves.apply(&m, &self.row, &mut self.target);
                if let Some(c) = self.canonicaliser.as_deref_mut() {
                    c.canonicalise(self.machine, self.procs, &mut self.target)?;
                }
                targets.push(m.event);
                targets.extend_from_slice(&self.target);
            }
            let step = width + 1;
            let entry = |k: u32| &targets[k as usize * step..(k as usize + 1) * step];
            order.clear();
            order.extend(0..(targets.len() / step) as u32);
            // By row, then event: equal transitions side by side, and a
            // row's moves together.
            order.sort_unstable_by(|&a, &b| {
                let (a, b) = (entry(a), entry(b));
                (&a[1..], a[0]).cmp(&(&b[1..], b[0]))
            });
            order.dedup_by(|a, b| entry(*a) == entry(*b));
            self.tally.transitions += order.len() as u64;
            let mut k = 0;
            while k < order.len() {
                let row = &entry(order[k])[1..];
                let mut ticked = false;
                while k < order.len() && &entry(order[k])[1..] == row {
                    ticked |= entry(order[k])[0] == TICK;
                    k += 1;
                }
                self.send(row, ticked)?;
            }
        }
        Ok(())
    }
}

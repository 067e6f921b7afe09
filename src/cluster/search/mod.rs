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

use bit_vec::BitVec;

use crate::budget::Stopped;
use crate::check::task::Goal;
use crate::lts::Exploration;
use crate::lts::machine::Moves;
use crate::lts::search::LevelCounts;
use crate::lts::search::phases::{Phases, Steps};
use crate::lts::store::StateStore;
use crate::symmetry::search_system::{Reducing, Reduction};

mod distinct;
mod evidence;
mod partition;
mod start;
mod system;

use evidence::{described, walk_described};
use partition::{Own, Partition};
use start::{NotStarted, Started, judging_on, own_system, shared_system};
use system::System;

pub use system::SharedSystem;

use super::exchange::{Message, Rounds};
use super::ground::SharedGround;
use super::judge::PathStep;
use super::rows::{Batch, RowCodec};
use super::{ClusterCheck, ClusterError, ClusterExploration, Job, Tally, Topology};

/// Runs worker `me`'s partition to the end of the search: on the system
/// its process's workers share (`one_system`, made by the first of them)
/// when each can find successors reading it — an exploration whose
/// representatives can be found side by side, a check not reduced whose
/// specification gives a copy to judge by —
/// else on one of its own (a structural group, or a strategy that
/// remembers what was stored, would have them take turns; a reduced
/// check's product permutes the nodes of its own specification).
pub fn partition<'g>(
    (job, shared, one_system): (&Job, &'g SharedGround, &SharedSystem<'g>),
    topology: &Topology,
    me: usize,
    rounds: Rounds,
) -> Result<ClusterExploration, ClusterError> {
    let started = std::time::Instant::now();
    let budget = job.budget.clone();
    let meter = budget.meter();
    // A worker that cannot begin its search ends every worker alike, at
    // their first round.
    let end_at_start = |why| ended_at_start((&rounds, topology, me), why, started);
    let ground = match shared.get(job, &meter) {
        Ok(ground) => ground,
        Err(why) => return end_at_start(why),
    };
    let (plan, prepared, script) = (&*job.plan, &ground.task, ground.script());
    let own;
    // Whether the process's workers may share one system (as the doc
    // above says).
    let sharing = match prepared.goal {
        Goal::Explore => plan.reducing.runs_on_threads(),
        _ => plan.reducing == Reducing::Not,
    };
    let mut on_shared = None;
    if topology.processes() == 1 && sharing {
        let (system, note) = match one_system.get_or_init(|| shared_system(ground, plan, &meter)) {
            Ok(made) => made,
            Err(why) => return end_at_start(why.clone()),
        };
        // In a check, each worker judges by a specification of its own,
        // evaluated on the shared process states.
        let (mut judging, stopped_early) = if prepared.goal == Goal::Explore {
            (None, None)
        } else {
            let mut held = system.write();
            let root = held.root;
            let (machine, procs, _) = held.parts();
            match judging_on(ground, plan, (machine, procs, root), me) {
                Ok(made) => made,
                Err(NotStarted::AtStart(why)) => return end_at_start(why),
                Err(NotStarted::Failed(e)) => return Err(e),
            }
        };
        // A specification with no copy to judge by (`:[has trace]:`'s
        // walk, the revivals and refusal-testing models) would have every
        // state judged writing, the workers taking turns: such a check
        // keeps a system a worker (every worker finds the same).
        if judging.as_mut().is_none_or(|j| j.copy().is_some()) {
            let reduced = plan.reduced.clone();
            on_shared = Some((system, note.clone(), judging, stopped_early, reduced));
        }
    }
    let (system, partial_order, mut judging, stopped_early, reduced) =
        if let Some(started) = on_shared {
            started
        } else {
            match own_system(ground, plan, (me, &meter)) {
                Ok(started) => {
                    own = System::new(started.built, false);
                    let Started {
                        partial_order,
                        judging,
                        stopped_early,
                        reduced,
                        ..
                    } = started;
                    (&own, partial_order, judging, stopped_early, reduced)
                }
                Err(NotStarted::AtStart(why)) => return end_at_start(why),
                Err(NotStarted::Failed(e)) => return Err(e),
            }
        };
    let components = system.read().machine.components();
    let checking = prepared.goal != Goal::Explore;
    // A check's rows carry the specification's node after the components.
    let width = components + usize::from(judging.is_some());
    // A check's states are canonicalised with their node (permuted with
    // the implementation's state) by its product, which takes the
    // reduction over (a shared system's check is not reduced).
    if let (Some(judging), false) = (&mut judging, system.is_shared()) {
        let reduction = std::mem::replace(&mut system.write().reduction, Reduction::Off);
        judging.reduce_by(reduction);
    }
    let mut part = Partition {
        me,
        topology,
        system,
        codec: RowCodec::new(topology.peers()),
        store: StateStore::new(width),
        judging,
        arrival_level: 0,
        tau_only: false,
        finishing: false,
        first_error: None,
        ticked: BitVec::new(),
        frontier: Vec::new(),
        at: 0,
        queued: Vec::new(),
        levels: Vec::new(),
        tally: Tally {
            worker: me as u32,
            stopped: stopped_early.as_ref().map(|(code, _)| *code),
            stage: stopped_early.map(|(_, stage)| stage),
            ..Tally::default()
        },
        moves: Moves::default(),
        row: Vec::new(),
        target: Vec::new(),
        batches: Vec::new(),
        own: Own::default(),
        inbox: Default::default(),
        reached_by_tick: Vec::new(),
        links: Vec::new(),
    };
    part.reset_batches();
    if me == 0 {
        let seeded = part.seed();
        part.record(seeded, &script.sources);
    }
    let mut levels = 0u32;
    // Whether any worker expanded a state of the current level.
    let mut level_expanded = false;
    // In a check: the tallies when a state first broke the
    // specification, and the level of that state.
    let mut at_breach: Option<(Vec<Tally>, u32)> = None;
    // Once the state budget or an evaluation error stopped the search
    // and the rest of the level is judged: the budget's stop, if it was
    // the budget.
    let mut finish_stop: Option<Stopped> = None;
    let mut out = Vec::new();
    let mut phases = Phases::<Step>::from_env();
    let (tallies, stopped) = loop {
        phases.block();
        part.tally.sent = part.batches.iter().map(|b| b.count).sum::<u64>() + part.own.count();
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
        let started = phases.start();
        let round = exchange(&rounds, topology, &part.tally, &mut out)?;
        phases.add(Step::Exchange, started);
        let (tallies, batches) = (round.tallies, round.batches);
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
            && at_breach.is_none()
        {
            use std::sync::atomic::Ordering::Relaxed;
            live.states.store(stored, Relaxed);
            live.depth.store(u64::from(levels), Relaxed);
            live.transitions.store(sum(|t| t.transitions), Relaxed);
        }
        let mut stopped = tallies
            .iter()
            .find_map(|t| t.stopped.and_then(Stopped::from_code));
        // An evaluation error met expanding a state ends an exploration;
        // a check judges the rest of the level first.
        let erred = tallies.iter().find(|t| t.error.is_some());
        if let (Some(erred), None) = (erred, &part.judging) {
            return Err(ClusterError::Worker {
                worker: erred.worker as usize,
                message: erred.error.clone().unwrap_or_default().0,
            });
        }
        // A breach ends the search; with divergences, only τ-moves are
        // followed after it, until every state's τ-successors are known
        // (while the level is judged to its end, those stored already).
        if at_breach.is_none()
            && let Some(level) = tallies.iter().filter_map(|t| t.breached).min()
        {
            at_breach = Some((tallies.clone(), level));
            match &part.judging {
                Some(judging) if judging.divergences && !part.finishing => part.tau_only = true,
                _ => break (tallies, stopped.or(finish_stop)),
            }
        }
        // Read what arrived. Under a state budget that this round's
        // states could pass, every worker first counts its new states
        // and all compare the total with what the budget has left, in a
        // round of their own: the cluster stores no more than the budget,
        // and stops only when the states would pass it.
        let started = phases.start();
        let read = part.read(&batches);
        phases.add(Step::Read, started);
        if let (Some(max), None, false) = (budget.max_states, stopped, part.finishing) {
            let left = (max as u64).saturating_sub(stored);
            // Every worker takes this round, whatever its own read gave.
            if sent > left {
                part.tally.fresh = if read.is_ok() { part.count_fresh() } else { 0 };
                let started = phases.start();
                let counted = exchange(&rounds, topology, &part.tally, &mut out)?;
                phases.add(Step::Exchange, started);
                if total(&counted.tallies, |t| t.fresh) > left {
                    stopped = Some(Stopped::StateBudget);
                }
            }
        }
        // Stopped by the state budget, or an evaluation error met, before
        // any breach: the rest of the level is judged all the same, its
        // successors stored not (what the check answers must not hang on
        // how the level was split between the workers).
        let ends_level = at_breach.is_none()
            && part.judging.is_some()
            && (stopped == Some(Stopped::StateBudget) || erred.is_some());
        if ends_level && !part.finishing {
            part.finishing = true;
            finish_stop = stopped;
            stopped = None;
        }
        if part.finishing {
            // The clock, memory or a cancel stops it where it is.
            if stopped.is_some() {
                break (tallies, stopped);
            }
            part.record(read, &script.sources);
            part.look_up_read();
            if level_ends {
                break (tallies, finish_stop);
            }
            part.tally.expanded = 0;
            part.reset_batches();
            let started = phases.start();
            let expanded = part.expand(job.round_states, &meter);
            part.record(expanded, &script.sources);
            phases.add(Step::Expand, started);
            continue;
        }
        if stopped.is_some() || (level_ends && sent == 0 && queued == 0) {
            break (tallies, stopped);
        }
        // Store what arrived, then expand it.
        part.tally.expanded = 0;
        part.reset_batches();
        let started = phases.start();
        let absorbed = read.and_then(|()| part.store_read(&meter));
        phases.add(Step::Store, started);
        if level_ends {
            part.frontier = std::mem::take(&mut part.queued);
            part.at = 0;
            part.arrival_level += 1;
            part.levels.push(LevelCounts {
                states: part.tally.stored,
                transitions: part.tally.transitions,
            });
        }
        let started = phases.start();
        // Memory short: this worker's older states go to disk.
        let absorbed = absorbed.and_then(|()| part.spill_if_short(&budget));
        let expanded = absorbed.and_then(|()| part.expand(job.round_states, &meter));
        part.record(expanded, &script.sources);
        part.tally.store_bytes = part.store.bytes();
        phases.add(Step::Expand, started);
    };
    let who = format!("worker {me} of {}", topology.peers());
    if let Some(report) = phases.report(&who, "rounds") {
        eprintln!("{report}");
    }
    // A budget that stops the search for divergences after a breach
    // leaves the breach: the verdict stands.
    let breached = at_breach.as_ref().map(|(at, level)| {
        let worker = at.iter().position(|t| t.breached == Some(*level));
        (worker.unwrap_or(0) as u32, *level)
    });
    // The path to the first violation, when there is one.
    // How the check settled. With divergences, a budget stop still looks
    // among the states expanded for one that diverges, as one search asks
    // the states it judged.
    // The first evaluation error met, by worker: the check's where the
    // level it was met in holds no breach.
    let error = tallies
        .iter()
        .find_map(|t| t.error.clone().map(|e| (t.worker as usize, e)));
    let searched_all = stopped.is_none() && !part.finishing;
    // A worker that could not begin left after the first round: the
    // rest stop there, with nothing searched to settle.
    let one_left = tallies.iter().any(|t| t.left);
    let settled = match (&part.judging, breached, stopped) {
        (None, _, _) => None,
        (Some(_), _, Some(stop)) if one_left => Some(Settled::Stopped(stop)),
        (Some(judging), None, Some(stop)) if !judging.divergences => Some(Settled::Stopped(stop)),
        (Some(judging), None, None) if !judging.divergences && !searched_all => {
            Some(Settled::Holds)
        }
        (Some(_), breached, _) => Some(part.settle(
            (&rounds, topology, &mut out),
            (breached, &meter, searched_all),
        )?),
    };
    let judging = part.judging.take();
    drop(part);
    let (counted, stopped) = match at_breach {
        Some((at, _)) => (at, None),
        None => (tallies, stopped),
    };
    // The path a check shows: to its violation, or for `:[has trace]:`
    // not found, to the end of the longest prefix performed.
    let (shown, cut, stopped) = match settled {
        Some(Settled::Violation(steps, cut)) => (Some(steps), Some(cut), stopped),
        Some(Settled::Furthest(steps)) => (Some(steps), None, stopped),
        Some(Settled::Stopped(stop)) => (None, None, stopped.or(Some(stop))),
        Some(Settled::Holds) | None => (None, None, stopped),
    };
    let mut found = finish(
        (counted, levels, cut),
        components,
        stopped,
        started,
        topology,
    );
    // As one search's: why the check is not reduced, then what partial
    // order reduction did.
    // And, when the spill folder failed, what went wrong with it: it may
    // have handed a worker wrong rows, so nothing found since stands.
    let spill_failure = budget.spill.as_ref().and_then(|spill| spill.failure());
    if spill_failure.is_some() {
        found.exploration.stopped = Some(Stopped::Disk);
        found.exploration.complete = false;
    }
    let failed = spill_failure.is_some();
    let notes: Vec<String> = (plan.notes.iter().cloned())
        .chain(partial_order)
        .chain(spill_failure)
        .collect();
    let Some(judging) = judging else {
        if checking {
            found.check = Some(ClusterCheck {
                holds: None,
                counterexample: None,
                notes,
                reduced,
            });
        }
        return Ok(found);
    };
    let violated = cut.is_some();
    let mut notes = notes;
    match error {
        Some((worker, (message, _))) if !violated => {
            return Err(ClusterError::Worker { worker, message });
        }
        Some((_, (_, note))) => notes.push(note),
        None => {}
    }
    let holds = match (violated, stopped) {
        _ if failed => None,
        (true, _) => Some(false),
        (false, None) => Some(true),
        (false, Some(_)) => None,
    };
    // `:[has trace]:` holds where its product breaks: the trace found.
    let walked = judging.walks_trace();
    let mut check = ClusterCheck {
        reduced,
        holds: if walked {
            holds.map(|holds| !holds)
        } else {
            holds
        },
        counterexample: None,
        notes,
    };
    if let (Some(steps), 0, false) = (&shown, me, failed) {
        let made = if walked {
            walk_described((&mut system.write(), &budget), judging, steps, violated)
        } else {
            described(
                (&mut system.write(), &budget),
                judging,
                steps,
                &mut check.notes,
            )
        };
        let made = made.map_err(|message| ClusterError::Worker {
            worker: me,
            message,
        })?;
        check.counterexample = Some(made);
    }
    found.check = Some(check);
    Ok(found)
}

/// How a check's search settled.
enum Settled {
    Holds,
    /// The first violation's path, from it back to the initial state,
    /// and the counts through its level (summed over every worker), its
    /// level.
    Violation(Vec<PathStep>, (LevelCounts, u32)),
    /// `:[has trace]:`, searched to the end without completing the
    /// trace: the path to the state that performed its longest prefix.
    Furthest(Vec<PathStep>),
    /// A budget stopped the search for divergences, with no breach.
    Stopped(Stopped),
}

/// What reached a worker in one round.
struct Round {
    /// Every worker's tally, in worker order.
    tallies: Vec<Tally>,
    batches: Vec<Batch>,
    /// States of its own that lost a τ-successor (a divergence search).
    removed: Vec<u32>,
    /// States of its own one of whose τ-edges its target's owner
    /// recorded.
    edges: Vec<u32>,
}

/// One round: this worker's messages (taken from `out`) and its tally to
/// every worker; what every worker sent this one. A worker whose tally
/// is missing has stopped; one that met an error stops every worker.
fn exchange(
    rounds: &Rounds,
    topology: &Topology,
    tally: &Tally,
    out: &mut Vec<Message>,
) -> Result<Round, ClusterError> {
    for to in 0..topology.peers() {
        out.push(Message::Tally {
            to: to as u32,
            tally: Box::new(tally.clone()),
        });
    }
    let received = rounds.round(std::mem::take(out))?;
    let mut round = Round {
        tallies: Vec::with_capacity(topology.peers()),
        batches: Vec::new(),
        removed: Vec::new(),
        edges: Vec::new(),
    };
    for message in received {
        match message {
            Message::Batch { batch, .. } => round.batches.push(batch),
            Message::Tally { tally, .. } => round.tallies.push(*tally),
            Message::Removed { ids, .. } => round.removed.extend(ids),
            Message::Edges { ids, .. } => round.edges.extend(ids),
            // Heartbeats stay with the timely worker.
            Message::Alive { .. } => {}
        }
    }
    // In sender order, whatever order they arrived in: each worker then
    // numbers its states, and picks parents and breaches, the same way
    // in every run.
    round.batches.sort_by_key(|b| b.from);
    let tallies = &mut round.tallies;
    tallies.sort_by_key(|t| t.worker);
    let reported = |w: usize| tallies.iter().any(|t| t.worker as usize == w);
    if let Some(missing) = (0..topology.peers()).find(|&w| !reported(w)) {
        return Err(ClusterError::Worker {
            worker: missing,
            message: "it stopped reporting (its process failed or was stopped)".to_string(),
        });
    }
    if let Some(problem) = tallies.iter().find(|t| t.problem.is_some()) {
        return Err(ClusterError::Worker {
            worker: problem.worker as usize,
            message: problem.problem.clone().unwrap_or_default(),
        });
    }
    Ok(round)
}

/// A count summed over every worker's tally.
fn total(tallies: &[Tally], count: fn(&Tally) -> u64) -> u64 {
    tallies.iter().map(count).sum()
}

/// The cluster's totals, from the last round's tallies; a check that
/// failed counts through its violation's level (`cut`), as one search
/// does.
fn finish(
    (tallies, levels, cut): (Vec<Tally>, u32, Option<(LevelCounts, u32)>),
    components: usize,
    stopped: Option<Stopped>,
    started: std::time::Instant,
    topology: &Topology,
) -> ClusterExploration {
    let sum = |f: fn(&Tally) -> u64| total(&tallies, f);
    let stage = tallies
        .iter()
        .find(|t| t.stopped.is_some())
        .and_then(|t| t.stage.clone());
    ClusterExploration {
        stage,
        exploration: Exploration {
            states: cut.map_or_else(|| sum(|t| t.stored), |(at, _)| at.states),
            transitions: cut.map_or_else(|| sum(|t| t.transitions), |(at, _)| at.transitions),
            deadlock_states: sum(|t| t.deadlocks),
            terminated_states: sum(|t| t.terminated),
            depth: cut.map_or(levels.saturating_sub(1), |(_, level)| level),
            components,
            seconds: started.elapsed().as_secs_f64(),
            store_bytes: sum(|t| t.store_bytes),
            on_disk: sum(|t| t.on_disk),
            // Each process's workers share its folder.
            disk_peak: tallies.iter().map(|t| t.disk_peak).max().unwrap_or(0),
            complete: stopped.is_none(),
            stopped,
        },
        workers: tallies,
        processes: topology.processes(),
        check: None,
    }
}

/// What stops a worker before its search names (as one search's stops
/// do) when the error does not.
const NORMALISING: &str = "normalising the specification";

/// Worker `me`, which could not begin its search — stopped by a budget
/// (`Ok((stop, stage))`) or by an error (`Err(message)`) — takes the
/// first round with the others, its tally saying why, so that every
/// worker ends alike: Inconclusive naming the first stopped worker's
/// stage, or the first failed worker's error (where leaving at once
/// would have its peers report only a lost connection).
fn ended_at_start(
    (rounds, topology, me): (&Rounds, &Topology, usize),
    why: Result<(Stopped, String), String>,
    started: std::time::Instant,
) -> Result<ClusterExploration, ClusterError> {
    let mut tally = Tally {
        worker: me as u32,
        left: true,
        ..Tally::default()
    };
    match why {
        Ok((stop, stage)) => {
            tally.stopped = Some(stop.code());
            tally.stage = Some(stage);
        }
        Err(problem) => tally.problem = Some(problem),
    }
    let round = exchange(rounds, topology, &tally, &mut Vec::new())?;
    let stopped = round
        .tallies
        .iter()
        .find_map(|t| t.stopped.and_then(Stopped::from_code));
    Ok(finish(
        (round.tallies, 0, None),
        0,
        stopped,
        started,
        topology,
    ))
}

/// A step of a worker's round, timed when `SYMCSP_PHASES` is set.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Sending the round's messages and waiting for every worker's.
    Exchange,
    /// Reading the states that arrived.
    Read,
    /// Storing the new ones.
    Store,
    /// Expanding (and judging) the next part of the level.
    Expand,
}

impl Steps for Step {
    const NAMES: &'static [&'static str] = &["exchange", "read", "store", "expand"];

    fn index(self) -> usize {
        self as usize
    }
}

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

use bit_vec::BitVec;

use crate::budget::{Budget, Meter, Pulse, Stopped};
use crate::check::REDUCING_BY_PARTIAL_ORDER;
use crate::check::Reduced;
use crate::check::product::Judgement;
use crate::check::task::Goal;
use crate::eval::EvalError;
use crate::eval::value::bytes::DecodeError;
use crate::lts::Exploration;
use crate::lts::machine::{Machine, Moves};
use crate::lts::search::phases::{Phases, Steps};
use crate::lts::search::{Canonicaliser, DROP, LevelCounts};
use crate::lts::store::StateStore;
use crate::process::{Processes, TAU, TICK};
use crate::symmetry::search_system::Reduction;
use crate::symmetry::search_system::SearchSystem;

use super::exchange::{Message, Rounds};
use super::judge::{self, Judging, PathStep};
use super::rows::{Arrived, Batch, Link, RowCodec};
use super::{ClusterCheck, ClusterError, ClusterExploration, Job, Tally, Topology};

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
    // A worker that cannot begin its search ends every worker alike, at
    // their first round.
    let end_at_start = |why| ended_at_start((&rounds, topology, me), why, started);
    let mut loaded = match crate::types::load_file_within(&job.file, &meter) {
        Ok(loaded) => loaded,
        Err(e) => match e.stopped {
            Some(stopped) => {
                return end_at_start(Ok((stopped.reason, stopped.stage.describe().to_string())));
            }
            None => return end_at_start(Err(e.render())),
        },
    };
    let prepared = match (job.prepare)(&mut loaded) {
        Ok(prepared) => prepared,
        Err(problem) => return end_at_start(Err(problem)),
    };
    // The job's plan decided what the search is reduced by; this worker
    // applies it. A script that asks for another task, or a plan not
    // settled by a system, is a bug, never a second opinion.
    let plan = &*job.plan;
    if prepared != plan.task || !plan.settled {
        return end_at_start(Err(format!(
            "internal error: {}",
            if plan.settled {
                "the script this worker loaded asks for another task than the job's plan"
            } else {
                "the job's plan was not settled before the workers started"
            }
        )));
    }
    let script = &loaded.script;
    let built = SearchSystem::build_reduced(
        script,
        (prepared.process, prepared.priority),
        &plan.reducing,
        meter.clone(),
    );
    let mut built = match built {
        Ok(built) => built,
        Err(e) => match e.stop_reason() {
            Some(stop) => {
                let stage = e.stage.clone();
                return end_at_start(Ok((stop, stage.unwrap_or(COMPILING.to_string()))));
            }
            None => return end_at_start(Err(rendered(&e, &script.sources))),
        },
    };
    // Every worker reduces its own machine alike: a state's stubborn set
    // is a function of the state, so the workers search one reduced
    // graph between them, the one search's.
    let partial_order = match prepared.partial_order() {
        Some(preserve) => match built
            .machine
            .reduce_partial_order(&mut built.procs, preserve)
        {
            Ok(note) => Some(note),
            Err(e) => match e.stop_reason() {
                Some(stop) => {
                    return end_at_start(Ok((stop, REDUCING_BY_PARTIAL_ORDER.to_string())));
                }
                None => return end_at_start(Err(rendered(&e, &script.sources))),
            },
        },
        None => None,
    };
    built.procs.replace_meter(meter.clone());
    let components = built.machine.components();
    let checking = prepared.goal != Goal::Explore;
    // A budget that stops the specification's normalisation stops every
    // worker at the first round, alike.
    let symmetry = plan.reducing.types().map(|(symmetry, _)| symmetry.clone());
    let priority = built.machine.tau_priority().cloned();
    let made = Judging::new(
        prepared.goal,
        (&mut built.procs, built.root, priority),
        components,
        symmetry,
    );
    let (mut judging, stopped_early) = match made {
        Ok(judging) => (judging, None),
        Err(e) => match e.stop_reason() {
            Some(stop) => (
                None,
                Some((
                    stop.code(),
                    e.stage.clone().unwrap_or(NORMALISING.to_string()),
                )),
            ),
            None => {
                return Err(ClusterError::Worker {
                    worker: me,
                    message: rendered(&e, &script.sources),
                });
            }
        },
    };
    // A check against a normal form keeps only the structural
    // symmetries its specification is invariant under, as one search
    // does (the plan says the group it came to).
    let structural = matches!(
        built.reduction,
        Reduction::Structural { .. } | Reduction::NoStructure(_)
    );
    if let (Some(judging), true) = (&judging, structural) {
        let found = std::mem::replace(&mut built.reduction, Reduction::Off);
        let cut = crate::check::cut_to_specification(
            &mut built.procs,
            found,
            &*judging.product.spec,
            judging.spec_process,
        );
        match cut {
            Ok(Ok((kept, how))) => {
                built.reduction = Reduction::Structural {
                    reduction: Box::new(kept),
                    how,
                }
            }
            Ok(Err(_)) => {}
            Err(e) => match e.stop_reason() {
                Some(stop) => {
                    return end_at_start(Ok((stop, crate::check::DECIDING_SYMMETRY.to_string())));
                }
                None => return end_at_start(Err(rendered(&e, &script.sources))),
            },
        }
    }
    // `:[has trace]:` reduced by the types follows the bijection of the
    // values its trace names, which its specification holds.
    let trace_unfollowed = judging.as_ref().is_some_and(|j| {
        j.walks_trace() && plan.reducing.types().is_some() && !j.product.spec.is_symmetric()
    });
    let reduced = match &built.reduction {
        Reduction::Reduced(system) => Some(Reduced::of(
            system.get().symmetry(),
            system.get().strategy(),
        )),
        Reduction::Structural { reduction, how } => {
            Some(Reduced::structural(reduction.order(), how.clone()))
        }
        _ => None,
    };
    if reduced != plan.reduced || trace_unfollowed {
        return end_at_start(Err(format!(
            "internal error: this worker's system does not take the job's reduction ({})",
            match &built.reduction {
                Reduction::NotMappable { refusal, .. } => refusal.problems.join("; "),
                Reduction::NoStructure(why) => why.clone(),
                _ if trace_unfollowed => "the trace's values cannot be followed".to_string(),
                _ => format!(
                    "planned {}, found {}",
                    plan.reduced
                        .as_ref()
                        .map_or("none".to_string(), |r| r.type_list()),
                    reduced
                        .as_ref()
                        .map_or("none".to_string(), |r| r.type_list())
                ),
            }
        )));
    }
    // A check's rows carry the specification's node after the components.
    let width = components + usize::from(judging.is_some());
    // A check's states are canonicalised with their node (permuted with
    // the implementation's state) by its product, which takes the
    // reduction over.
    if let Some(judging) = &mut judging {
        judging.reduce_by(std::mem::replace(&mut built.reduction, Reduction::Off));
    }
    let canonicaliser = built.reduction.canonicaliser();
    let mut part = Partition {
        me,
        topology,
        procs: &mut built.procs,
        machine: &mut built.machine,
        canonicaliser,
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
        received: Vec::new(),
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
    let settled = match (&part.judging, breached, stopped) {
        (None, _, _) => None,
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
            walk_described((&mut built, &budget), judging, steps, violated)
        } else {
            described((&mut built, &budget), judging, steps, &mut check.notes)
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

/// The counterexample along `steps` (read back from the workers, the
/// violation first), made genuine in worker 0's own system: its last
/// state judged again (the breach is known only to its owner), unwound
/// when the search was reduced, replayed and described.
fn described(
    (built, budget): (&mut SearchSystem, &Budget),
    judging: Judging,
    steps: &[PathStep],
    notes: &mut Vec<String>,
) -> Result<crate::check::counterexample::Counterexample, String> {
    built.procs.replace_meter(budget.describing().meter());
    let mut judging = judging;
    let spec = &mut *judging.product.spec;
    let recorded = match judge::recorded((&mut built.machine, &mut built.procs, spec), steps) {
        Ok(Ok(recorded)) => recorded,
        Ok(Err(malformed)) => return Err(malformed.to_string()),
        Err(e) => return Err(rendered(&e, &built.procs.script().sources)),
    };
    // Unreduced, the path read back is a path of this worker's system
    // (replaying it also leaves its states' moves known, as the one
    // search's are); reduced, the path it unwinds to is replayed.
    let root = judging.root;
    let mut product = judging.product;
    let reduced = product.reduction_mut().is_some() || product.structural_mut().is_some();
    if !reduced
        && !crate::check::unwind::replays(&mut built.machine, &mut built.procs, &recorded)
            .is_ok_and(|replays| replays)
    {
        return Err("internal error: the path read back from the workers does not replay".into());
    }
    let last = recorded.rows.last().expect("a path has a state");
    let breach = match product.judge_unreduced(&mut built.machine, &mut built.procs, last) {
        Ok(Judgement::Breach(breach)) => breach,
        Ok(_) => return Err("internal error: the path read back breaks nothing".to_string()),
        Err(e) => return Err(rendered(&e, &built.procs.script().sources)),
    };
    crate::check::counterexample_of(
        &mut built.machine,
        &mut built.procs,
        (&mut product, root),
        (recorded, breach),
        (built.root, budget),
        notes,
    )
}

/// `:[has trace]:`'s evidence along `steps` (read back from the
/// workers, its last state first), replayed in worker 0's own system as
/// the one search's is: the run that performs the trace (or diverges on
/// the way, when divergences count) when `found`, else the run that
/// performs its longest prefix, with the event it cannot perform next.
fn walk_described(
    (built, budget): (&mut SearchSystem, &Budget),
    mut judging: Judging,
    steps: &[PathStep],
    found: bool,
) -> Result<crate::check::counterexample::Counterexample, String> {
    built.procs.replace_meter(budget.describing().meter());
    let reduced = judging.product.reduction_mut().is_some();
    let spec = &mut *judging.product.spec;
    let recorded = match judge::recorded((&mut built.machine, &mut built.procs, spec), steps) {
        Ok(Ok(recorded)) => recorded,
        Ok(Err(malformed)) => return Err(malformed.to_string()),
        Err(e) => return Err(rendered(&e, &built.procs.script().sources)),
    };
    let last = recorded.rows.last().expect("a path has a state");
    let (trace, performed) = spec
        .trace_at(last[built.machine.components()])
        .expect("a trace walk's specification has its trace");
    let performed = (!found).then_some(performed);
    // Reduced, the path read back is of representatives: the run shown
    // is the unreduced walk along the same events, as in one search.
    if reduced {
        let priority = built.machine.tau_priority().cloned();
        return crate::check::unreduced_walk_evidence(
            &mut built.procs,
            (built.root, &priority),
            (trace, performed, judging.divergences),
            budget,
        );
    }
    if !crate::check::unwind::replays(&mut built.machine, &mut built.procs, &recorded)
        .is_ok_and(|replays| replays)
    {
        return Err("internal error: the path read back from the workers does not replay".into());
    }
    let error = performed.and_then(|k| trace.get(k).copied());
    Ok(crate::check::trace_evidence(
        &built.machine,
        &built.procs,
        recorded,
        error,
    ))
}

/// Replaces `row` (its components, then its node in a check) by its
/// representative: a check's product permutes the node with the
/// components; an exploration's canonicaliser, the components.
fn canonicalised(
    (judging, canonicaliser): (&mut Option<Judging>, &mut Option<&mut dyn Canonicaliser>),
    (machine, procs): (&mut Machine, &mut Processes),
    row: &mut [u32],
) -> Result<(), Halt> {
    let canonicaliser: Option<&mut dyn Canonicaliser> = match judging {
        Some(judging) => Some(&mut judging.product),
        None => canonicaliser.as_deref_mut(),
    };
    if let Some(c) = canonicaliser {
        c.canonicalise(machine, procs, row)?;
    }
    Ok(())
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
const COMPILING: &str = "compiling the process";
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

/// The buffers of expanding one state after another.
#[derive(Default)]
struct Scratch {
    targets: Vec<u32>,
    order: Vec<u32>,
    events: Vec<crate::process::EventId>,
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
/// them (with their node in a check), how each was reached.
#[derive(Default)]
struct Own {
    rows: Vec<u32>,
    ticked: Vec<bool>,
    links: Vec<Link>,
}

impl Own {
    fn count(&self) -> u64 {
        self.ticked.len() as u64
    }

    fn clear(&mut self) {
        self.rows.clear();
        self.ticked.clear();
        self.links.clear();
    }

    fn push(&mut self, row: &[u32], arrived: Arrived) {
        self.rows.extend_from_slice(row);
        self.ticked.push(arrived.ticked);
        if let Some(link) = arrived.link {
            self.rows.push(link.node);
            self.links.push(link);
        }
    }

    /// Moves the rows into what worker `me` read this round, as a batch
    /// from itself would have been read.
    fn read_into(
        &mut self,
        me: usize,
        received: &mut Vec<u32>,
        reached_by_tick: &mut Vec<bool>,
        links: &mut Vec<(u32, Link)>,
    ) {
        received.extend_from_slice(&self.rows);
        reached_by_tick.extend_from_slice(&self.ticked);
        links.extend(self.links.iter().map(|&link| (me as u32, link)));
        self.clear();
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
    /// Its states: their components, then (in a check) their node.
    store: StateStore,
    /// In a check: what judging its states needs and finds.
    judging: Option<Judging>,
    /// The level of the states that arrive in this round.
    arrival_level: u32,
    /// After a breach, while the τ-successors of every state are found
    /// (to look for a divergence before it): only τ-moves are followed.
    tau_only: bool,
    /// After the state budget or an evaluation error stopped the search:
    /// the rest of the level is judged, its successors not stored.
    finishing: bool,
    /// The first evaluation error met expanding one of its states.
    first_error: Option<EvalError>,
    /// Per stored state: reached by ✓. A bit each: with the store on
    /// disk, this is what memory keeps per state.
    ticked: BitVec,
    /// The level being expanded, and how far.
    frontier: Vec<u32>,
    at: usize,
    /// The states stored for the next level.
    queued: Vec<u32>,
    /// Its counts through each level (its states of that level and
    /// those before, the transitions of those before), as it began.
    levels: Vec<LevelCounts>,

    tally: Tally,
    moves: Moves,
    row: Vec<u32>,
    /// A successor's row.
    target: Vec<u32>,
    /// This round's states for each other worker.
    batches: Vec<Batch>,
    /// This round's states it owns itself: kept as they are, never
    /// written as codes.
    own: Own,
    /// The rows received in a round, end to end (with their nodes),
    /// whether each was reached by ✓, and in a check its sender and link
    /// (kept for their room; an exploration's stay small).
    received: Vec<u32>,
    reached_by_tick: Vec<bool>,
    links: Vec<(u32, Link)>,
}

impl Partition<'_, '_> {
    /// Records in the tally why this worker stopped, if it did: every
    /// worker reads it at the end of the round and stops alike.
    fn record(&mut self, outcome: Result<(), Halt>, sources: &crate::syntax::SourceMap) {
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

    fn reset_batches(&mut self) {
        self.batches = (0..self.topology.peers())
            .map(|_| Batch {
                from: self.me as u32,
                ..Batch::default()
            })
            .collect();
    }

    /// Replaces `row` (its components, then its node in a check) by its
    /// representative.
    fn canonicalise(&mut self, row: &mut [u32]) -> Result<(), Halt> {
        canonicalised(
            (&mut self.judging, &mut self.canonicaliser),
            (self.machine, self.procs),
            row,
        )
    }

    /// Sends the initial state (its representative, with the
    /// specification's initial node in a check) to its owner.
    fn seed(&mut self) -> Result<(), Halt> {
        let mut row = self.machine.initial().to_vec();
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
        self.send(&row, arrived)
    }

    /// Adds `row` (its components) to the batch of its owner.
    fn send(&mut self, row: &[u32], arrived: Arrived) -> Result<(), Halt> {
        let peers = self.topology.peers();
        let to = match peers {
            1 => 0,
            _ => self.codec.owner(self.machine, self.procs, row, peers) as usize,
        };
        if to == self.me {
            self.own.push(row, arrived);
            return Ok(());
        }
        let batch = &mut self.batches[to];
        let before = batch.bytes();
        self.codec
            .push(
                (
                    self.machine,
                    self.procs,
                    self.judging.as_mut().map(|j| &mut *j.product.spec as _),
                ),
                (row, arrived),
                to,
                batch,
            )
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
    fn read(&mut self, batches: &[Batch]) -> Result<(), Halt> {
        self.received.clear();
        self.reached_by_tick.clear();
        self.links.clear();
        for batch in batches {
            self.codec.define(
                (
                    self.machine,
                    self.procs,
                    self.judging.as_mut().map(|j| &mut *j.product.spec as _),
                ),
                batch,
            )??;
        }
        let (received, reached_by_tick, links) = (
            &mut self.received,
            &mut self.reached_by_tick,
            &mut self.links,
        );
        let checking = self.judging.is_some();
        // In sender order, its own rows in its place.
        let own_place = batches.partition_point(|b| (b.from as usize) < self.me);
        for (k, batch) in batches.iter().enumerate() {
            if k == own_place {
                self.own
                    .read_into(self.me, received, reached_by_tick, links);
            }
            self.codec
                .rows(self.machine, self.procs, batch, |row, arrived| {
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
                })?;
        }
        if own_place == batches.len() {
            self.own
                .read_into(self.me, received, reached_by_tick, links);
        }
        Ok(())
    }

    /// How many of the rows read are new, storing nothing.
    fn count_fresh(&self) -> u64 {
        let width = self.store.width().max(1);
        let mut fresh: FxHashSet<&[u32]> = FxHashSet::default();
        for row in self.received.chunks_exact(width) {
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
    fn spill_if_short(&mut self, budget: &Budget) -> Result<(), Halt> {
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
    fn expand(&mut self, states: usize, meter: &Meter) -> Result<(), Halt> {
        // Polled by the clock, for every state and move: one state of a
        // wide synchronisation can take milliseconds to expand.
        let mut pulse = Pulse::default();
        let end = self.frontier.len().min(self.at + states.max(1));
        let bytes_before = self.tally.bytes_sent;
        let mut scratch = Scratch::default();
        while self.at < end && self.tally.bytes_sent - bytes_before <= ROUND_BYTES {
            let id = self.frontier[self.at];
            self.at += 1;
            match self.expand_state(id, (&mut pulse, meter), &mut scratch) {
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
    fn expand_state(
        &mut self,
        id: u32,
        (pulse, meter): (&mut Pulse, &Meter),
        scratch: &mut Scratch,
    ) -> Result<(), Halt> {
        let components = self.machine.components();
        // A state's successors, event and row (with its node in a
        // check), end to end: sorted, so that each distinct transition
        // counts once and each distinct target is sent once, however
        // many moves the state has.
        let step = self.store.width() + 1;
        let Scratch {
            targets,
            order,
            events,
        } = scratch;
        pulse.beat(meter)?;
        self.store.read(id, &mut self.row);
        let (row, node) = self.row.split_at(components);
        let node = node.first().copied();
        self.machine.moves(self.procs, row, &mut self.moves)?;
        self.tally.expanded += 1;
        if self.moves.list.is_empty() && !self.ticked[id as usize] {
            self.tally.deadlocks += 1;
        }
        let mut tau_only = self.tau_only || self.finishing;
        if let (Some(judging), Some(node), false) = (&mut self.judging, node, self.tau_only) {
            events.clear();
            events.extend(self.moves.list.iter().map(|m| m.event));
            match judging.judge(self.procs, id, (node, row, events))? {
                Judgement::Fine => {}
                Judgement::Allowed => return Ok(()),
                Judgement::Breach(_) => {
                    self.tally.breached = Some(judging.breach_level());
                    tau_only = true;
                }
            }
        }
        if self.finishing && !self.judging.as_ref().is_some_and(|j| j.divergences) {
            return Ok(());
        }
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
            canonicalised(
                (&mut self.judging, &mut self.canonicaliser),
                (self.machine, self.procs),
                &mut self.target,
            )?;
            targets.push(m.event);
            targets.extend_from_slice(&self.target);
        }
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
        if !tau_only {
            self.tally.transitions += order.len() as u64;
        }
        let mut tau_successors = 0;
        let mut k = 0;
        while k < order.len() {
            let first = entry(order[k]);
            let target = &first[1..];
            let (mut ticked, mut tau) = (false, false);
            while k < order.len() && &entry(order[k])[1..] == target {
                ticked |= entry(order[k])[0] == TICK;
                tau |= entry(order[k])[0] == TAU;
                k += 1;
            }
            tau_successors += u32::from(tau);
            let link = node.map(|_| Link {
                node: target[components],
                parent: Some(id),
                event: first[0],
                tau,
            });
            self.send(&target[..components], Arrived { ticked, link })?;
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
    fn look_up_read(&mut self) {
        let Some(judging) = &mut self.judging else {
            return;
        };
        let width = self.store.width().max(1);
        for (row, &(from, link)) in self.received.chunks_exact(width).zip(&self.links) {
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
    fn settle(
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
    fn settle_at(
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
    fn settle_furthest(
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
    fn read_back(
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
                let step = judging
                    .step(self.machine, self.procs, id, &self.row)
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

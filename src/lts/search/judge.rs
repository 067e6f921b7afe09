//! Judging and storing one round's block, in the three ways the loop
//! has: with the machine lent to the visitor ([`Search::judge`]); beside
//! the next block's expansion, storing alone meanwhile
//! ([`Search::judge_beside_next`], on few threads); or beside it and
//! then storing on every thread, the expansion reading the store in
//! place ([`Search::judge_beside_next_in_place`], on
//! [`super::IN_PLACE_THREADS`] or more). Each ends in [`store_round`]: the
//! kept successors stored, recorded, and the next rows copied out when
//! a copy is wanted.

use std::sync::Arc;

use crate::eval::EvalResult;
use crate::process::Processes;

use super::super::expand::{Block, Shared, Sources, expand_block_beside};
use super::super::machine::Machine;
use super::super::pool::Pool;
use super::super::store::StateStore;
use super::buffers::{Ahead, Parents, Round, Rows, Storing};
use super::phases::Phase;
use super::visit::Stored;
use super::{Blocks, Caller, Search, SharedCanonicaliser, Stopped};

impl Search {
    /// Judges the round's states, with the machine lent to the visitor,
    /// and stores the successors kept (on every thread): why the search
    /// must stop, if it must.
    pub(super) fn judge(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        round: &mut Round,
        storing: &mut Storing,
    ) -> EvalResult<Option<Stopped>> {
        let stored = Stored {
            store: &self.store,
            machine: Some(&mut self.machine),
            components: self.width,
            width: self.row_width,
        };
        let visited = Search::visit_timed(stored, caller, round, storing)?;
        let judged = Judged {
            visited,
            after: None,
        };
        let (store, parents) = (&mut self.store, &mut self.parents);
        store_round(store, parents, pool, caller, round, storing, judged)
    }

    /// [`Search::visit_block`], its time counted to [`Phase::Visit`].
    fn visit_timed(
        stored: Stored<'_>,
        caller: &mut Caller<'_, '_>,
        round: &mut Round,
        storing: &mut Storing,
    ) -> EvalResult<(usize, Option<Stopped>)> {
        let started = storing.phases.start();
        let visited = Search::visit_block(stored, caller, round, storing);
        storing.phases.add(Phase::Visit, started);
        visited
    }

    /// As [`Search::judge`] (storing on this thread alone), while the
    /// other threads expand the next block, the rows `ahead` holds, with
    /// the machine read only; then copies out the rows of the block
    /// after it and evaluates what the next block's states left out
    /// will need. The next block's expansion is left in `ahead`. On
    /// fewer than [`super::IN_PLACE_THREADS`] threads
    /// ([`Search::judge_beside_next_in_place`] on more).
    pub(super) fn judge_beside_next(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        round: &mut Round,
        ahead: &mut Ahead,
        storing: &mut Storing,
        blocks: Blocks,
    ) -> EvalResult<Option<Stopped>> {
        // Evaluating ahead scans the next block's rows: worth it
        // while blocks still leave states out, as this one did (in
        // most searches only the first few do).
        let evaluate = !round.later.rows.is_empty();
        let next = round.from + round.expanded;
        let Ahead {
            parts, rows, spare, ..
        } = ahead;
        let rows: &Rows = rows;
        let (_, next_to) = rows.range;
        let sources = Sources::Copied {
            rows: &rows.rows,
            width: self.row_width,
        };
        // What the visitor knows before judging this block: the
        // next is expanded meanwhile.
        let judge = caller.visitor.shared_judge();
        let lent = self.lend_canonicaliser(caller);
        let shared = Shared {
            canonicaliser: lent.as_deref(),
            judge: judge.as_deref(),
        };
        let meter = caller.meter;
        let Search {
            machine,
            store,
            parents,
            width,
            row_width,
            ..
        } = self;
        let machine: &Machine = machine;
        let block = Block {
            sources,
            range: (next, next_to),
            machine,
            width: *width,
            shared,
            meter,
        };
        let round_started = storing.phases.start();
        let mut beside_time = None;
        let (ahead_expanded, stop) =
            expand_block_beside(pool, parts, block, || -> EvalResult<Option<Stopped>> {
                let stored = Stored {
                    store,
                    machine: None,
                    components: *width,
                    width: *row_width,
                };
                let visited = Search::visit_timed(stored, caller, round, storing)?;
                if round.paused.is_some() {
                    return Ok(None);
                }
                let after = Some((&mut *spare, next_to, blocks));
                let judged = Judged { visited, after };
                let alone = &Pool::new(1);
                let stop = store_round(store, parents, alone, caller, round, storing, judged)?;
                let started = storing.phases.start();
                if evaluate && stop.is_none() {
                    evaluate_ahead(machine, caller.procs, sources, (next, next_to), *width);
                }
                storing.phases.add(Phase::Ahead, started);
                beside_time = round_started.map(|round| round.elapsed());
                Ok(stop)
            });
        drop(lent);
        storing.phases.add_wait(round_started, beside_time);
        let stop = match (stop, round.paused.is_some()) {
            (Ok(None), true) => {
                // The rest of the block, with the machine and every thread.
                let stored = Stored {
                    store,
                    machine: Some(&mut self.machine),
                    components: self.width,
                    width: self.row_width,
                };
                let visited = Search::visit_timed(stored, caller, round, storing)?;
                let after = Some((&mut ahead.spare, next_to, blocks));
                let judged = Judged { visited, after };
                store_round(store, parents, pool, caller, round, storing, judged)
            }
            (stop, _) => stop,
        };
        std::mem::swap(&mut round.parts, &mut ahead.parts);
        ahead.expanded = Some(ahead_expanded);
        stop
    }

    /// The canonicaliser's part the threads expanding the next block may
    /// hold while this thread judges ([`Canonicaliser::lend`]), ready for
    /// the states the machine has met. None when it cannot be made ready:
    /// the threads then leave every representative to this thread, and
    /// the error is met where one thread meets it, after the states
    /// before it are judged.
    ///
    /// [`Canonicaliser::lend`]: super::Canonicaliser::lend
    fn lend_canonicaliser(
        &self,
        caller: &mut Caller<'_, '_>,
    ) -> Option<Arc<dyn SharedCanonicaliser>> {
        let canonicaliser = caller.visitor.canonicaliser()?;
        canonicaliser.prepare(&self.machine, caller.procs).ok()?;
        canonicaliser.lend()
    }

    /// As [`Search::judge`], while the other threads expand the next
    /// block, the states `next` of the store, with the machine and the
    /// store read only (this thread evaluates meanwhile what the next
    /// block's states left out will need); then every thread stores
    /// this block's successors. On [`super::IN_PLACE_THREADS`] threads or
    /// more: storing alone beside the expansion was the serial part
    /// (on 16 cores, 2.3 s of a 3.0 s exploration), and the expansion
    /// reads the store itself, where a search storing beside it copies
    /// the next block out. The next block's expansion is left in
    /// `ahead`.
    pub(super) fn judge_beside_next_in_place(
        &mut self,
        caller: &mut Caller<'_, '_>,
        pool: &Pool,
        round: &mut Round,
        ahead: &mut Ahead,
        storing: &mut Storing,
        next: (usize, usize),
    ) -> EvalResult<Option<Stopped>> {
        let evaluate = !round.later.rows.is_empty();
        let judge = caller.visitor.shared_judge();
        let lent = self.lend_canonicaliser(caller);
        let shared = Shared {
            canonicaliser: lent.as_deref(),
            judge: judge.as_deref(),
        };
        let (store, machine, width) = (&self.store, &self.machine, self.width);
        let block = Block {
            sources: Sources::Store(store),
            range: next,
            machine,
            width,
            shared,
            meter: caller.meter,
        };
        let round_started = storing.phases.start();
        let mut beside_time = None;
        let (ahead_expanded, visited) = expand_block_beside(pool, &mut ahead.parts, block, || {
            let stored = Stored {
                store,
                machine: None,
                components: width,
                width: self.row_width,
            };
            let visited = Search::visit_timed(stored, caller, round, storing)?;
            let started = storing.phases.start();
            if evaluate && visited.1.is_none() && round.paused.is_none() {
                evaluate_ahead(machine, caller.procs, Sources::Store(store), next, width);
            }
            storing.phases.add(Phase::Ahead, started);
            beside_time = round_started.map(|round| round.elapsed());
            EvalResult::Ok(visited)
        });
        drop(lent);
        storing.phases.add_wait(round_started, beside_time);
        let mut visited = visited?;
        if round.paused.is_some() {
            // The rest of the block, with the machine.
            let stored = Stored {
                store: &self.store,
                machine: Some(&mut self.machine),
                components: self.width,
                width: self.row_width,
            };
            visited = Search::visit_timed(stored, caller, round, storing)?;
        }
        let judged = Judged {
            visited,
            after: None,
        };
        let (store, parents) = (&mut self.store, &mut self.parents);
        let stop = store_round(store, parents, pool, caller, round, storing, judged);
        std::mem::swap(&mut round.parts, &mut ahead.parts);
        ahead.expanded = Some(ahead_expanded);
        stop
    }
}

/// A round's states judged: how many were visited and why the visit
/// stopped, if it did; and, when the next block is expanded already,
/// where to copy the rows of the block after it, which starts at the
/// given state.
struct Judged<'a> {
    visited: (usize, Option<Stopped>),
    after: Option<(&'a mut Rows, usize, Blocks)>,
}

/// Stores the successors a round's judging kept (on `pool`: split
/// between its threads when there are enough, [`super::batch`]),
/// records them, and copies out the rows of the block after the next
/// when asked to: why the search must stop, if it must.
fn store_round(
    store: &mut StateStore,
    parents: &mut Option<Parents>,
    pool: &Pool,
    caller: &mut Caller<'_, '_>,
    round: &mut Round,
    storing: &mut Storing,
    judged: Judged<'_>,
) -> EvalResult<Option<Stopped>> {
    let (visited, stop) = judged.visited;
    let started = storing.phases.start();
    let rows = round.kept.rows(&round.parts, &round.later);
    let refused = round.batch.store(store, &rows, pool, caller.meter);
    storing.phases.add(Phase::Store, started);
    let started = storing.phases.start();
    let ended = Search::record(parents, store.len(), caller.visitor, round, storing);
    storing.phases.add(Phase::Record, started);
    debug_assert!(stop.is_some() || visited == round.expanded);
    if let Some(error) = round.visit_error.take()
        && ended.is_none()
    {
        return Err(error);
    }
    let stop = ended.or(refused).or(stop);
    if let Some((rows, next_to, blocks)) = judged.after
        && stop.is_none()
    {
        let started = storing.phases.start();
        rows.copy(store, (next_to, blocks.end(next_to, store.len())));
        storing.phases.add(Phase::Ahead, started);
    }
    Ok(stop)
}

/// Does the evaluation that preparing the states of `rows` (the block
/// the other threads are expanding meanwhile) will need, without
/// changing the machine they read ([`Machine::evaluate_ahead`]): the
/// states they leave to this thread then cost it no evaluation once they
/// finish, when it would otherwise evaluate alone. In the order the
/// states are prepared, so the process layer numbers what it meets as
/// on any number of threads. Stops at the first error, which is met
/// again, and reported in order, when its state is prepared.
fn evaluate_ahead(
    machine: &Machine,
    procs: &mut Processes,
    rows: Sources<'_>,
    (from, to): (usize, usize),
    width: usize,
) {
    let mut row = Vec::new();
    for i in 0..to - from {
        // Only work ahead: a stop is met again, and reported, where the
        // search polls (a block of wide rows takes long to scan).
        if i % 64 == 63 && procs.meter().poll().is_err() {
            return;
        }
        rows.read(from, i, &mut row);
        if machine.evaluate_ahead(procs, &row[..width]).is_err() {
            return;
        }
    }
}

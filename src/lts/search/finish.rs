//! A level judged to its end after the search stopped in it.
//!
//! A check's answer must not hang on where in a level the search was
//! when the state budget refused the next level's states, or when a
//! state could not be evaluated: the engines split a level differently
//! (blocks on threads, partitions on workers). So every state of the
//! level is judged all the same — its moves worked out, its successors
//! not stored — and its τ-moves into the states stored before the
//! level's end recorded; every state past the end is recorded without
//! moves (never expanded, it leads nowhere the search knows). A breach
//! is then one of the level, found on any engine, and a divergence a
//! τ-cycle through states of whole levels.

use crate::budget::Stopped;
use crate::eval::EvalError;
use crate::process::{EventId, Processes, TAU};

use super::super::machine::Moves;
use super::{Budget, Context, Flow, Left, LevelCounts, Search, Visit, Visitor, level_of};

/// What judging a level to its end came to.
#[derive(Debug)]
pub struct Finished {
    /// The level judged.
    pub level: u32,
    /// `Visitor` when the visitor ended it (a breach, or a divergence
    /// the τ-moves recorded show); a budget's reason when its clock,
    /// memory or a cancel stopped it first.
    pub stopped: Option<Stopped>,
    /// The first of the level's states (in id order) that could not be
    /// evaluated, among those judged here.
    pub error: Option<EvalError>,
}

/// States judged between two polls of the meter.
const POLL_EVERY: u32 = 256;

impl Search {
    /// Judges the states of the level a stopped run was in ([`Left`],
    /// with the run's `levels`) that it left unjudged, and records the
    /// τ-moves of those it left unrecorded, in id order, as described
    /// above; within `budget`'s clock, memory and cancel.
    pub fn finish_level(
        &mut self,
        procs: &mut Processes,
        budget: &Budget,
        visitor: &mut dyn Visitor,
        (left, levels): (Left, &[LevelCounts]),
    ) -> Finished {
        let level = level_of(levels, left.recorded);
        let stored = self.store.len() as u32;
        let end = levels
            .get(level as usize)
            .map_or(stored, |counts| counts.states as u32)
            .min(stored);
        let meter = budget.meter();
        let outer = procs.replace_meter(meter.clone());
        let mut finished = Finished {
            level,
            stopped: None,
            error: None,
        };
        let mut buffers = Buffers::default();
        for id in left.recorded..end {
            if id % POLL_EVERY == 0
                && let Err(stop) = meter.poll()
            {
                finished.stopped = Some(stop);
                break;
            }
            let step = if Some(id) == left.failed {
                // Its error is the run's: it is not met again.
                Ok(Step::Dead)
            } else {
                let visit = id >= left.visited;
                self.judge_left(procs, visitor, (id, end), (level, visit), &mut buffers)
            };
            match step {
                Ok(Step::Recorded) => {}
                Ok(Step::Dead) => visitor.stored(id, &[], &[]),
                Ok(Step::Ended) => {
                    finished.stopped = Some(Stopped::Visitor);
                    break;
                }
                Err(e) if e.stop_reason().is_some() => {
                    finished.stopped = e.stop_reason();
                    break;
                }
                Err(e) => {
                    finished.error.get_or_insert(e);
                    visitor.stored(id, &[], &[]);
                }
            }
            if visitor.ends_after_stored() {
                finished.stopped = Some(Stopped::Visitor);
                break;
            }
        }
        if finished.stopped.is_none() {
            for id in end..stored {
                visitor.stored(id, &[], &[]);
                if visitor.ends_after_stored() {
                    finished.stopped = Some(Stopped::Visitor);
                    break;
                }
            }
        }
        procs.replace_meter(outer);
        finished
    }

    /// Works out the moves of state `id` (of a level ending at `end`),
    /// judges it when `visit` asks, and records its τ-moves into the
    /// states stored before `end`.
    fn judge_left(
        &mut self,
        procs: &mut Processes,
        visitor: &mut dyn Visitor,
        (id, end): (u32, u32),
        (level, visit): (u32, bool),
        buffers: &mut Buffers,
    ) -> Result<Step, EvalError> {
        let Buffers {
            row,
            moves,
            events,
            successors,
            taus,
        } = buffers;
        self.store.read(id, row);
        self.machine.moves(procs, &row[..self.width], moves)?;
        events.clear();
        successors.clear();
        for m in &moves.list {
            events.push(m.event);
            moves.append(m, row, successors);
        }
        if visit {
            let flow = visitor.visit(
                Context {
                    procs: &mut *procs,
                    machine: Some(&mut self.machine),
                    store: &self.store,
                },
                Visit {
                    id,
                    row,
                    events,
                    successors,
                    depth: level,
                    judged: false,
                },
            )?;
            if flow == Flow::Stop {
                return Ok(Step::Ended);
            }
        }
        taus.clear();
        for (k, successor) in successors.chunks_exact_mut(self.row_width).enumerate() {
            if events[k] != TAU {
                continue;
            }
            if let Some(canonicaliser) = visitor.canonicaliser() {
                canonicaliser.canonicalise(&mut self.machine, procs, successor)?;
            }
            if let Some(target) = self.store.find(successor).filter(|&t| t < end) {
                taus.push((target, false));
            }
        }
        let tau_events = vec![TAU; taus.len()];
        visitor.stored(id, &tau_events, taus);
        Ok(Step::Recorded)
    }
}

/// What became of one state judged to the end of its level.
enum Step {
    /// Judged (when asked), its τ-moves recorded.
    Recorded,
    /// Not expanded: recorded as leading nowhere.
    Dead,
    /// The visitor ended the search at it.
    Ended,
}

/// The buffers of judging one state after another.
#[derive(Default)]
struct Buffers {
    row: Vec<u32>,
    moves: Moves,
    events: Vec<EventId>,
    successors: Vec<u32>,
    taus: Vec<(u32, bool)>,
}

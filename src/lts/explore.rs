//! Breadth-first exploration of a process's state space through the
//! supercombinator: counts of states, distinct transitions and deadlocks,
//! within a budget, on as many threads as asked.
//!
//! States are expanded in blocks, in id order. For each block the
//! components' transitions are first completed on this thread (the only
//! step that evaluates CSPM); then the moves and successor rows of the
//! block's states are computed on all threads (integers only, the machine
//! shared read-only); then the successors are added to the store on this
//! thread, in order. So every thread count numbers the states exactly as
//! one thread does, and the counts are identical.

use std::time::Instant;

use crate::eval::EvalResult;
use crate::process::{EventId, ProcId, Processes, TICK};

use super::machine::{Machine, Moves};
use super::store::StateStore;
use super::{Budget, Exploration};

/// States expanded per block.
const BLOCK: usize = 8192;

/// The successors of a run of states: per state, how many; per
/// successor, its event and row.
#[derive(Default)]
struct Expanded {
    counts: Vec<u32>,
    events: Vec<EventId>,
    rows: Vec<u32>,
}

/// Explores every state reachable from `root`.
pub fn explore(procs: &mut Processes, root: ProcId, budget: &Budget) -> EvalResult<Exploration> {
    let started = Instant::now();
    let threads = budget.threads.max(1);
    let mut machine = Machine::new(procs, root);
    let width = machine.components();
    let mut store = StateStore::new(width);
    store.insert(machine.initial());
    // States reached by ✓: terminated, not deadlocked.
    let mut terminated = vec![false];
    let mut result = Exploration {
        components: width,
        ..Exploration::default()
    };
    let mut parts: Vec<Expanded> = (0..threads).map(|_| Expanded::default()).collect();
    let mut row = Vec::with_capacity(width);
    let mut ids: Vec<(u32, bool)> = Vec::new();
    let mut successors: Vec<(EventId, u32)> = Vec::new();
    let mut next = 0usize;
    'blocks: while next < store.len() {
        let end = store.len().min(next + BLOCK);
        for id in next..end {
            store.read(id as u32, &mut row);
            machine.prepare(procs, &row)?;
        }
        expand_block(&machine, &store, next..end, &mut parts);
        for part in &parts {
            let mut row_at = 0;
            let mut event_at = 0;
            for &count in &part.counts {
                if budget.exhausted(store.len()) {
                    break 'blocks;
                }
                let count = count as usize;
                ids.clear();
                store.insert_all(&part.rows[row_at..row_at + count * width], &mut ids);
                successors.clear();
                for (&event, &(id, new)) in part.events[event_at..event_at + count].iter().zip(&ids)
                {
                    if new {
                        terminated.push(false);
                    }
                    if event == TICK {
                        terminated[id as usize] = true;
                    }
                    successors.push((event, id));
                }
                if successors.is_empty() && !terminated[next] {
                    result.deadlock_states += 1;
                }
                successors.sort_unstable();
                successors.dedup();
                result.transitions += successors.len() as u64;
                row_at += count * width;
                event_at += count;
                next += 1;
            }
        }
    }
    result.complete = next == store.len();
    result.states = store.len() as u64;
    result.seconds = started.elapsed().as_secs_f64();
    Ok(result)
}

/// The successors of states `range`, split into one contiguous run per
/// part, each computed on its own thread.
fn expand_block(
    machine: &Machine,
    store: &StateStore,
    range: std::ops::Range<usize>,
    parts: &mut [Expanded],
) {
    let per_part = range.len().div_ceil(parts.len());
    let run = |part: &mut Expanded, ids: std::ops::Range<usize>| {
        part.counts.clear();
        part.events.clear();
        part.rows.clear();
        let mut moves = Moves::default();
        let mut state = Vec::new();
        let mut next_state = Vec::new();
        for id in ids {
            store.read(id as u32, &mut state);
            machine.prepared_moves(&state, &mut moves);
            part.counts.push(moves.list.len() as u32);
            for m in &moves.list {
                moves.apply(m, &state, &mut next_state);
                part.events.push(m.event);
                part.rows.extend_from_slice(&next_state);
            }
        }
    };
    let inline = parts.len() == 1 || range.len() < 256;
    let runs = parts.iter_mut().enumerate().map(|(i, part)| {
        let from = (range.start + i * per_part).min(range.end);
        let to = (from + per_part).min(range.end);
        (part, from..to)
    });
    // Small blocks are not worth a thread.
    if inline {
        for (part, ids) in runs {
            run(part, ids);
        }
        return;
    }
    std::thread::scope(|scope| {
        for (part, ids) in runs {
            scope.spawn(move || run(part, ids));
        }
    });
}

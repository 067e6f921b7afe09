//! Breadth-first exploration of a process's state space through the
//! supercombinator: counts of states, distinct transitions and deadlocks,
//! within a budget, on as many threads as asked.
//!
//! States are expanded in blocks, in id order. For each block the
//! components' transitions are first completed on the calling thread (the
//! only step that evaluates CSPM); then the block's moves and successor
//! rows are computed (integers only, the machine shared read-only); then
//! the successors are added to the store on the calling thread, in order.
//! With several threads the two halves overlap: while the calling thread
//! stores the successors of one block, the others compute the next
//! block's. Every thread count numbers the states exactly as one thread
//! does, so the counts are identical.

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

/// Where the exploration stands: the store, and what is known of the
/// states whose successors have been stored.
struct Progress {
    store: StateStore,
    /// States reached by ✓: terminated, not deadlocked.
    terminated: Vec<bool>,
    /// The next state whose successors are to be stored.
    next: usize,
    result: Exploration,
    ids: Vec<(u32, bool)>,
    successors: Vec<(EventId, u32)>,
}

/// Explores every state reachable from `root`.
pub fn explore(procs: &mut Processes, root: ProcId, budget: &Budget) -> EvalResult<Exploration> {
    let started = Instant::now();
    let threads = budget.threads.max(1);
    let mut machine = Machine::new(procs, root);
    let width = machine.components();
    let mut progress = Progress {
        store: StateStore::new(width),
        terminated: vec![false],
        next: 0,
        result: Exploration {
            components: width,
            ..Exploration::default()
        },
        ids: Vec::new(),
        successors: Vec::new(),
    };
    progress.store.insert(machine.initial());
    let workers = threads.saturating_sub(1).max(1);
    let mut current: Vec<Expanded> = (0..workers).map(|_| Expanded::default()).collect();
    let mut upcoming: Vec<Expanded> = (0..workers).map(|_| Expanded::default()).collect();
    let mut rows = Vec::new();
    // States in `progress.next..expanded` have their successors in `current`.
    let mut expanded = 0;
    loop {
        if expanded == progress.next {
            let end = progress.store.len().min(expanded + BLOCK);
            if end == expanded {
                break;
            }
            load(
                &mut machine,
                procs,
                &progress.store,
                expanded..end,
                &mut rows,
            )?;
            expand(&machine, &rows, width, &mut current);
            expanded = end;
        }
        let end = progress.store.len().min(expanded + BLOCK);
        let stopped = if threads > 1 && end > expanded {
            load(
                &mut machine,
                procs,
                &progress.store,
                expanded..end,
                &mut rows,
            )?;
            let (shared, block, parts) = (&machine, &rows, &mut upcoming);
            let stopped = std::thread::scope(|scope| {
                scope.spawn(move || expand(shared, block, width, parts));
                progress.store_successors(&current, width, budget)
            });
            expanded = end;
            std::mem::swap(&mut current, &mut upcoming);
            stopped
        } else {
            progress.store_successors(&current, width, budget)
        };
        if stopped {
            break;
        }
    }
    let mut result = progress.result;
    result.complete = progress.next == progress.store.len();
    result.states = progress.store.len() as u64;
    result.seconds = started.elapsed().as_secs_f64();
    Ok(result)
}

/// Copies the rows of states `range` into `rows`, completing their
/// components' transitions.
fn load(
    machine: &mut Machine,
    procs: &mut Processes,
    store: &StateStore,
    range: std::ops::Range<usize>,
    rows: &mut Vec<u32>,
) -> EvalResult<()> {
    rows.clear();
    let mut row = Vec::new();
    for id in range {
        store.read(id as u32, &mut row);
        machine.prepare(procs, &row)?;
        rows.extend_from_slice(&row);
    }
    Ok(())
}

/// The successors of the states whose rows are `rows`, split into one
/// contiguous run per part, each computed on its own thread.
fn expand(machine: &Machine, rows: &[u32], width: usize, parts: &mut [Expanded]) {
    // Every machine has at least one component, so `width` is never 0.
    let states = rows.len().checked_div(width).unwrap_or(0);
    let per_part = states.div_ceil(parts.len()).max(1);
    let run = |part: &mut Expanded, from: usize, to: usize| {
        part.counts.clear();
        part.events.clear();
        part.rows.clear();
        let mut moves = Moves::default();
        let mut next_state = Vec::new();
        for i in from..to {
            let state = &rows[i * width..(i + 1) * width];
            machine.prepared_moves(state, &mut moves);
            part.counts.push(moves.list.len() as u32);
            for m in &moves.list {
                moves.apply(m, state, &mut next_state);
                part.events.push(m.event);
                part.rows.extend_from_slice(&next_state);
            }
        }
    };
    let runs = parts.iter_mut().enumerate().map(|(i, part)| {
        let from = (i * per_part).min(states);
        (part, from, (from + per_part).min(states))
    });
    // Small blocks, or one part, are not worth a thread.
    if per_part >= states || states < 256 {
        for (part, from, to) in runs {
            run(part, from, to);
        }
        return;
    }
    std::thread::scope(|scope| {
        for (part, from, to) in runs {
            scope.spawn(move || run(part, from, to));
        }
    });
}

impl Progress {
    /// Stores the successors in `parts` (of the states from `self.next`
    /// on), counting transitions and deadlocks. True if the budget
    /// stopped it.
    fn store_successors(&mut self, parts: &[Expanded], width: usize, budget: &Budget) -> bool {
        for part in parts {
            let mut row_at = 0;
            let mut event_at = 0;
            for &count in &part.counts {
                if budget.exhausted(self.store.len()) {
                    return true;
                }
                let count = count as usize;
                self.ids.clear();
                self.store
                    .insert_all(&part.rows[row_at..row_at + count * width], &mut self.ids);
                self.successors.clear();
                let events = &part.events[event_at..event_at + count];
                for (&event, &(id, new)) in events.iter().zip(&self.ids) {
                    if new {
                        self.terminated.push(false);
                    }
                    if event == TICK {
                        self.terminated[id as usize] = true;
                    }
                    self.successors.push((event, id));
                }
                if self.successors.is_empty() && !self.terminated[self.next] {
                    self.result.deadlock_states += 1;
                }
                self.successors.sort_unstable();
                self.successors.dedup();
                self.result.transitions += self.successors.len() as u64;
                row_at += count * width;
                event_at += count;
                self.next += 1;
            }
        }
        false
    }
}

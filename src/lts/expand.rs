//! Computing a block's successors on every thread: each worker reads its
//! run of the block's states from the store, computes their moves on
//! integers only (the machine shared read-only) and, when the search
//! reduces by symmetry, most of their representatives. A state with a
//! component whose transitions are not known yet is left for the
//! search's thread, which alone may evaluate CSPM ([`Part::Later`]).

use crate::budget::{Meter, Pulse, Stopped};
use crate::process::EventId;

use super::buffer::with_room;
use super::hooks::{Scratch, SharedCanonicaliser, SharedJudge};
use super::machine::{Machine, Moves};
use super::pool::Pool;
use super::store::StateStore;

/// The most numbers (successor rows laid end to end) the parts of a
/// block hold, per thread, before they stop expanding: 16 MiB.
pub const PART_WORDS: usize = 1 << 22;

/// The fewest states a part of a block is given (unless the block is
/// smaller).
const MIN_PART: usize = 32;

/// A part of a block split between several threads takes the states
/// left divided by this many times the threads: a quarter of them, on
/// two threads.
const GUIDED_SHARE: usize = 2;

/// A state's successors of at least this many numbers are asked of the
/// memory budget before they are made, and the clock is read every so
/// many numbers while they are: one state of a wide interleaving can
/// have millions of successors of millions of components.
const LARGE_STATE_WORDS: usize = 1 << 20;

/// Marks, in [`Part::counts`], a state whose components are not all
/// prepared: its successors are computed on the search's thread.
pub const LATER: u32 = u32::MAX;

/// A run of a block's states and their successors: per state its row
/// and how many successors (or [`LATER`]).
///
/// Aligned to two cache lines: parts sit side by side in a vector and
/// each thread updates its own part's lengths for every successor.
#[derive(Default)]
#[repr(align(128))]
pub struct Part {
    /// The states of the block this part expands: `from..to`.
    pub from: usize,
    pub to: usize,
    pub sources: Vec<u32>,
    pub counts: Vec<u32>,
    /// Per state: whether the visitor's shared judge found it plainly
    /// fine ([`SharedJudge`]).
    pub judged: Vec<bool>,
    pub successors: Successors,
    scratch: Option<Scratch>,
    moves: Moves,
    /// The state being expanded: written for every state, so with room
    /// from the start, as the moves ([`crate::lts::buffer`]).
    row: Roomy,
    /// What a stable state accepts, for the shared judge.
    accepted: Vec<EventId>,
    /// Why the part stopped before a state whose successors the budget
    /// does not allow (their size, or the time making them took).
    pub refused: Option<Stopped>,
}

/// A row with room from the start.
struct Roomy(Vec<u32>);

impl Default for Roomy {
    fn default() -> Roomy {
        Roomy(with_room())
    }
}

/// What the threads expanding a block may read of the search's visitor:
/// its canonicaliser's shared part (representatives) and its shared
/// judge (states plainly fine).
#[derive(Clone, Copy, Default)]
pub struct Shared<'a> {
    pub canonicaliser: Option<&'a dyn SharedCanonicaliser>,
    pub judge: Option<&'a dyn SharedJudge>,
}

/// Successors laid end to end: per successor its event and row.
#[derive(Default)]
pub struct Successors {
    pub events: Vec<EventId>,
    pub rows: Vec<u32>,
    /// Reduced by symmetry: per successor, its components'
    /// representative (laid end to end) and the permutation's images,
    /// when this thread could find them (`found`).
    pub representatives: Vec<u32>,
    pub images: Vec<u16>,
    pub found: Vec<bool>,
}

impl Part {
    pub fn clear(&mut self) {
        self.sources.clear();
        self.counts.clear();
        self.judged.clear();
        let s = &mut self.successors;
        s.events.clear();
        s.rows.clear();
        s.representatives.clear();
        s.images.clear();
        s.found.clear();
        self.refused = None;
    }

    /// Expanded every state it was given.
    pub fn complete(&self) -> bool {
        self.from + self.counts.len() == self.to
    }

    /// Expands `state` (its row, prepared) onto the end of this part;
    /// `false`, with the part as it was and [`Part::refused`] saying why,
    /// when `meter` does not allow its successors.
    pub fn expand(
        &mut self,
        machine: &Machine,
        state: &[u32],
        width: usize,
        shared: Shared<'_>,
        meter: &Meter,
    ) -> bool {
        machine.prepared_moves(&state[..width], &mut self.moves);
        let words = self.moves.list.len().saturating_mul(state.len());
        if words >= LARGE_STATE_WORDS
            && let Err(stop) = meter.may_allocate(words as u64 * 4).and(meter.poll())
        {
            self.refused = Some(stop);
            return false;
        }
        self.sources.extend_from_slice(state);
        self.counts.push(self.moves.list.len() as u32);
        if let Some(canonicaliser) = shared.canonicaliser
            && self.scratch.is_none()
        {
            self.scratch = Some(canonicaliser.scratch());
        }
        let out = &mut self.successors;
        let (first_event, first_row) = (out.events.len(), out.rows.len());
        let (first_representative, first_image, first_found) =
            (out.representatives.len(), out.images.len(), out.found.len());
        let mut next_poll = first_row + LARGE_STATE_WORDS;
        for m in &self.moves.list {
            if out.rows.len() >= next_poll {
                next_poll = out.rows.len() + LARGE_STATE_WORDS;
                if let Err(stop) = meter.poll() {
                    // The part as it was before this state.
                    out.events.truncate(first_event);
                    out.rows.truncate(first_row);
                    out.representatives.truncate(first_representative);
                    out.images.truncate(first_image);
                    out.found.truncate(first_found);
                    self.sources.truncate(self.sources.len() - state.len());
                    self.counts.pop();
                    self.refused = Some(stop);
                    return false;
                }
            }
            out.events.push(m.event);
            // Made in place: a successor is copied once.
            let start = out.rows.len();
            self.moves.append(m, state, &mut out.rows);
            if let (Some(canonicaliser), Some(scratch)) =
                (shared.canonicaliser, self.scratch.as_mut())
            {
                let at = out.representatives.len();
                out.representatives
                    .extend_from_slice(&out.rows[start..start + width]);
                let found = canonicaliser.try_components(
                    scratch,
                    machine,
                    &mut out.representatives[at..],
                    &mut out.images,
                );
                out.found.push(found);
            }
        }
        let judged = shared.judge.is_some_and(|judge| {
            judge.fine(
                &state[width..],
                &out.events[first_event..],
                &mut out.rows[first_row..],
                (width, state.len()),
                &mut self.accepted,
            )
        });
        self.judged.push(judged);
        true
    }
}

/// Where a block's rows are read from.
#[derive(Clone, Copy)]
pub enum Sources<'a> {
    Store(&'a StateStore),
    /// Copied out, the block's rows laid end to end (so the store can
    /// take new rows meanwhile).
    Copied {
        rows: &'a [u32],
        width: usize,
    },
}

impl Sources<'_> {
    /// Row `i` of the block starting at state `from`.
    pub(super) fn read(&self, from: usize, i: usize, row: &mut Vec<u32>) {
        match self {
            Sources::Store(store) => store.read((from + i) as u32, row),
            Sources::Copied { rows, width } => {
                row.clear();
                row.extend_from_slice(&rows[i * width..(i + 1) * width]);
            }
        }
    }
}

/// A block to expand: its states `range` (state ids; rows `0..` of
/// `sources` when copied), the machine, the components per row, what
/// the visitor shares with the expanding threads, and the meter that
/// a state of very many successors asks first.
#[derive(Clone, Copy)]
pub struct Block<'a> {
    pub sources: Sources<'a>,
    pub range: (usize, usize),
    pub machine: &'a Machine,
    pub width: usize,
    pub shared: Shared<'a>,
    pub meter: &'a Meter,
}

/// Why a part of the block stopped before one of its states, if one did:
/// the search then stops too.
pub fn refused(parts: &[Part]) -> Option<Stopped> {
    parts.iter().find_map(|part| part.refused)
}

/// Splits `block`'s states between `parts` (a few per thread of the
/// pool, fewer for a narrow block) and expands them; the states after
/// the first part that stopped early (the parts' successors reached
/// [`PART_WORDS`] a thread) are expanded again with the next block.
/// Returns how many states, from the first, were expanded.
pub fn expand_block(pool: &Pool, parts: &mut Vec<Part>, block: Block<'_>) -> usize {
    expand_parts(pool, parts, block, Some(PART_WORDS), None::<fn()>).0
}

/// As [`expand_block`], while the calling thread first does `beside`,
/// which must not need the machine mutably nor the parts.
pub fn expand_block_beside<R>(
    pool: &Pool,
    parts: &mut Vec<Part>,
    block: Block<'_>,
    beside: impl FnOnce() -> R,
) -> (usize, R) {
    let (done, result) = expand_parts(pool, parts, block, Some(PART_WORDS), Some(beside));
    (done, result.expect("beside was given"))
}

/// Expands every state of `block`, whose components are all prepared,
/// into `parts`, on every thread: the states of a block the other
/// threads left to the search's thread, once it has prepared them. They
/// are fewer than the block, whose expansion kept within
/// [`PART_WORDS`], so no bound is kept here.
pub fn expand_prepared(pool: &Pool, parts: &mut Vec<Part>, block: Block<'_>) {
    let states = block.range.1 - block.range.0;
    let (done, _) = expand_parts(pool, parts, block, None, None::<fn()>);
    debug_assert!(
        done == states || refused(parts).is_some(),
        "every state given is prepared"
    );
}

/// Splits `block`'s states between `parts` and expands them, each
/// part stopping early once its successors take its share of `words`
/// numbers a thread, when given; `beside`, when given, first on the
/// calling thread. Without it a block of one part (a narrow level, a few
/// states left out) is expanded on the calling thread alone: handing it
/// to a worker costs tens of microseconds to wake it, and as much again
/// to hear that it is done, for nothing.
fn expand_parts<R>(
    pool: &Pool,
    parts: &mut Vec<Part>,
    block: Block<'_>,
    words: Option<usize>,
    beside: Option<impl FnOnce() -> R>,
) -> (usize, Option<R>) {
    let Block {
        sources,
        range: (from, to),
        machine,
        width,
        shared,
        meter,
    } = block;
    // Parts taken in turn by whichever thread is free, each a share of
    // the states left (guided): large first, so hand-overs are few, and
    // small last, so the threads finish together — the last part taken
    // is at most a few dozen states, whoever takes it. At least
    // MIN_PART states a part: a hand-over costs microseconds, and a
    // small search never starts the workers.
    let share = GUIDED_SHARE * pool.threads();
    let mut wanted = 0;
    let mut at = from;
    while at < to || wanted == 0 {
        if parts.len() == wanted {
            parts.push(Part::default());
        }
        let left = to - at;
        let size = if pool.threads() > 1 {
            (left / share).max(MIN_PART).min(left)
        } else {
            left
        };
        parts[wanted].from = at;
        parts[wanted].to = at + size;
        at += size;
        wanted += 1;
    }
    parts.truncate(wanted);
    let work = |_, part: &mut Part| {
        part.clear();
        // The block's successors held at once stay within `words` a
        // thread: a part holds its states' share of them.
        let limit = words.map_or(usize::MAX, |words| {
            words * pool.threads() * (part.to - part.from) / (to - from).max(1)
        });
        let mut row = std::mem::take(&mut part.row.0);
        // The clock is read for every state: one state of a wide
        // synchronisation can take milliseconds to expand.
        let mut pulse = Pulse::default();
        for id in part.from..part.to {
            if id > part.from && part.successors.rows.len() >= limit {
                break;
            }
            if let Err(stop) = pulse.beat(meter) {
                part.refused = Some(stop);
                break;
            }
            sources.read(from, id - from, &mut row);
            if !machine.is_prepared(&row[..width]) {
                part.sources.extend_from_slice(&row);
                part.counts.push(LATER);
                part.judged.push(false);
                continue;
            }
            if !part.expand(machine, &row, width, shared, meter) {
                break;
            }
        }
        part.row.0 = row;
    };
    let result = match beside {
        Some(beside) => Some(pool.each_beside(parts, work, beside)),
        None => {
            pool.each(parts, work);
            None
        }
    };
    let mut done = 0;
    for part in parts.iter() {
        done += part.counts.len();
        if !part.complete() {
            break;
        }
    }
    (done, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::process::Processes;
    use crate::script::Script;

    /// The states of `System`'s first level, prepared, in a store.
    fn first_level(procs: &mut Processes, machine: &mut Machine) -> (StateStore, usize) {
        let mut store = StateStore::new(machine.components());
        let initial = machine.initial().to_vec();
        machine.prepare(procs, &initial).expect("prepared");
        let mut moves = Moves::default();
        machine.moves(procs, &initial, &mut moves).expect("moves");
        let mut row = Vec::new();
        for m in moves.list.clone() {
            moves.apply(&m, &initial, &mut row);
            machine.prepare(procs, &row).expect("prepared");
            store.insert(&row);
        }
        let states = store.len();
        (store, states)
    }

    #[test]
    fn a_block_reads_the_clock_before_every_state() {
        let script = "channel pick, count : {0..99}
                      Counter(v) = count!v -> Counter(v)
                      System = pick?v -> Counter(v)";
        let mut script = Script::load_str("clock.csp", script).expect("loads");
        let func = script.add_expr("<process>", "System").expect("resolves");
        crate::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let mut machine = Machine::new(&mut procs, root).expect("a machine");
            let (store, states) = first_level(&mut procs, &mut machine);
            assert_eq!(states, 100);
            for threads in [1, 2] {
                let pool = Pool::new(threads);
                let block = |meter| Block {
                    sources: Sources::Store(&store),
                    range: (0, states),
                    machine: &machine,
                    width: machine.components(),
                    shared: Shared::default(),
                    meter,
                };
                let mut parts = Vec::new();
                let open = Budget::default().meter();
                assert_eq!(expand_block(&pool, &mut parts, block(&open)), states);
                assert_eq!(refused(&parts), None);
                // Past its time-out: no state is expanded, however few
                // successors each has.
                let past = Budget {
                    timeout: Some(std::time::Duration::ZERO),
                    ..Budget::default()
                }
                .meter();
                assert_eq!(expand_block(&pool, &mut parts, block(&past)), 0);
                assert_eq!(refused(&parts), Some(Stopped::Timeout));
            }
        });
    }
}

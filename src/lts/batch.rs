//! Storing a block's successors on every thread, with exactly the ids one
//! thread storing them in order would give.
//!
//! Three steps. On every thread, each looking after its own shards of
//! the store's index ([`StateStore`]): each successor is looked up; a row
//! not stored yet holds its place in its shard for the first successor
//! that has it, so a later equal successor finds that one. On the
//! search's thread, in order: each new row gets the next id and is
//! written, until a budget refuses one. On every thread again: each held
//! place gets its id, or is given up past a refusal. Lookups, where the
//! cache misses are, run in parallel; the ordered step touches only what
//! is new.
//!
//! On fewer than [`MIN_THREADS`] threads, or for a batch too small to
//! split, the rows are stored one at a time in order
//! ([`StateStore::insert_all`]): the same ids, with fewer passes over
//! them. (Under a memory budget the split
//! path makes room in each shard for the whole batch first, so it may
//! stop a little earlier than one row at a time would.)

use crate::budget::{Meter, Stopped};

use super::pool::Pool;
use super::store::{Probe, SHARDS, StateStore, Table, hash_row, shard_of};

/// The fewest rows worth splitting between threads.
const MIN_SPLIT: usize = 256;

/// The fewest threads worth splitting a batch between. The split's
/// passes do about three times the work of storing the rows in order,
/// so two threads store more slowly than one: it pays from four.
const MIN_THREADS: usize = 4;

/// What the lookup found for one successor.
#[derive(Debug, Clone, Copy)]
enum Found {
    Stored(u32),
    /// The same row as the batch's earlier successor `k`.
    Same(u32),
    /// New: its place held at `slot` of shard `shard`.
    New {
        shard: u32,
        slot: u32,
        k: u32,
    },
    /// New, but its shard could not grow within the memory budget.
    Refused,
}

/// One thread's share of the lookups: the shards `shards` and what it
/// found for the successors in them, in order.
///
/// Aligned to two cache lines: lanes sit side by side in a vector and
/// each thread updates its own lane's lengths for every successor.
#[repr(align(128))]
struct Lane {
    shards: std::ops::Range<usize>,
    found: Vec<Found>,
    encoded: Vec<u8>,
    counts: Vec<usize>,
}

/// Buffers reused from block to block.
#[derive(Default)]
pub struct Batch {
    hashes: Vec<u32>,
    lanes: Vec<Lane>,
    /// Each successor's id and whether it was new, for those stored.
    pub ids: Vec<(u32, bool)>,
    /// The rows of several runs laid end to end, for the split path.
    gathered: Vec<u32>,
    /// The batch cut into runs of successors, a few a thread, for
    /// numbering.
    runs: Vec<Run>,
}

/// A run of a batch's successors (consecutive), as numbering sees it:
/// where each lane's findings for it start, and what it holds that the
/// search's thread must finish in order.
#[derive(Default)]
struct Run {
    range: std::ops::Range<usize>,
    /// Per lane: how many of the run's successors are in its shards,
    /// then where the first of them is in the lane's findings.
    lanes: Vec<usize>,
    /// The new successors, by place in the batch, in order.
    new: Vec<u32>,
    /// Each successor equal to an earlier new one: its place and that
    /// one's.
    same: Vec<(u32, u32)>,
    /// The first successor whose shard could not grow, if any.
    refused: Option<usize>,
}

impl Batch {
    /// Stores the rows of `runs` (each of rows of the store's width laid
    /// end to end) in order, filling [`Batch::ids`]; stops at the first
    /// new row a budget refuses (the ids then cover the rows before it).
    pub fn store(
        &mut self,
        store: &mut StateStore,
        runs: &[&[u32]],
        pool: &Pool,
        meter: &Meter,
    ) -> Option<Stopped> {
        let width = store.width().max(1);
        let count = runs.iter().map(|run| run.len()).sum::<usize>() / width;
        self.ids.clear();
        if count == 0 {
            return None;
        }
        if pool.threads() < MIN_THREADS || count < MIN_SPLIT {
            // One thread storing in order: the same ids, fewer passes.
            return store.insert_all(runs, &mut self.ids, meter).err();
        }
        // The split's passes read rows by their place in the batch.
        let mut gathered = std::mem::take(&mut self.gathered);
        let rows: &[u32] = match runs {
            [run] => run,
            _ => {
                gathered.clear();
                runs.iter().for_each(|run| gathered.extend_from_slice(run));
                &gathered[..]
            }
        };
        self.hash(rows, width, pool);
        self.look_up(store, rows, width, pool, meter);
        let stopped = self.number(store, rows, width, pool, meter);
        self.settle(store, pool);
        self.gathered = gathered;
        // A row on disk that could not be read back: the ids may be
        // wrong, and the search stops.
        stopped.or(store.failed().then_some(Stopped::Disk))
    }

    fn hash(&mut self, rows: &[u32], width: usize, pool: &Pool) {
        let count = rows.len() / width;
        self.hashes.clear();
        self.hashes.resize(count, 0);
        let per = count.div_ceil(pool.threads()).max(1);
        let mut parts: Vec<(usize, &mut [u32])> = self
            .hashes
            .chunks_mut(per)
            .enumerate()
            .map(|(i, h)| (i * per, h))
            .collect();
        pool.each(&mut parts, |_, (from, hashes)| {
            for (k, hash) in hashes.iter_mut().enumerate() {
                let at = (*from + k) * width;
                *hash = hash_row(&rows[at..at + width]);
            }
        });
    }

    /// Looks every successor up in its shard, on every thread.
    fn look_up(
        &mut self,
        store: &mut StateStore,
        rows: &[u32],
        width: usize,
        pool: &Pool,
        meter: &Meter,
    ) {
        // Two lanes a thread, taken in turn by whichever thread is free.
        let threads = (pool.threads() * 2).min(SHARDS);
        if self.lanes.len() != threads {
            let per = SHARDS.div_ceil(threads);
            self.lanes = (0..threads)
                .map(|t| Lane {
                    shards: t * per..((t + 1) * per).min(SHARDS),
                    found: Vec::new(),
                    encoded: Vec::new(),
                    counts: Vec::new(),
                })
                .collect();
        }
        // The shards are taken out of the store, so that its rows can be
        // read while each thread changes its own shards.
        let mut shards = std::mem::take(&mut store.shards);
        {
            let reader: &StateStore = store;
            let hashes = &self.hashes;
            let mut work = with_their_shards(&mut self.lanes, &mut shards);
            pool.each(&mut work, |_, (lane, tables)| {
                lane.look_up(tables, reader, hashes, rows, width, meter);
            });
        }
        store.shards = shards;
    }

    /// Numbers the new rows in order. On every thread, run by run of
    /// the batch: each successor's findings are read, a stored one's id
    /// written, the new ones and those equal to an earlier new one
    /// listed. On this thread, in order, touching only those: each new
    /// row gets the next id and is written, until a budget refuses one;
    /// then each repeat takes its first's id.
    fn number(
        &mut self,
        store: &mut StateStore,
        rows: &[u32],
        width: usize,
        pool: &Pool,
        meter: &Meter,
    ) -> Option<Stopped> {
        let count = self.hashes.len();
        let lanes = self.lanes.len();
        let per_lane = SHARDS.div_ceil(lanes);
        let per_run = count.div_ceil(pool.threads() * 2).max(1);
        let runs = count.div_ceil(per_run);
        self.runs.resize_with(runs, Run::default);
        for (r, run) in self.runs.iter_mut().enumerate() {
            run.range = r * per_run..((r + 1) * per_run).min(count);
        }
        // Where each run's findings start in each lane.
        let hashes = &self.hashes;
        pool.each(&mut self.runs, |_, run| {
            run.lanes.clear();
            run.lanes.resize(lanes, 0);
            for &hash in &hashes[run.range.clone()] {
                run.lanes[shard_of(hash) / per_lane] += 1;
            }
        });
        let mut starts = vec![0; lanes];
        for run in &mut self.runs {
            for (start, count) in starts.iter_mut().zip(run.lanes.iter_mut()) {
                (*start, *count) = (*start + *count, *start);
            }
        }
        // Each run's findings, read in parallel: ids of the stored
        // successors written in place, the rest listed.
        self.ids.clear();
        self.ids.resize(count, (0, false));
        let mut work: Vec<(&mut Run, &mut [(u32, bool)])> = Vec::with_capacity(runs);
        let mut rest = &mut self.ids[..];
        for run in &mut self.runs {
            let (ids, others) = rest.split_at_mut(run.range.len());
            work.push((run, ids));
            rest = others;
        }
        let lanes = &self.lanes;
        pool.each(&mut work, |_, (run, ids)| {
            run.new.clear();
            run.same.clear();
            run.refused = None;
            let first = run.range.start;
            for (i, &hash) in hashes[run.range.clone()].iter().enumerate() {
                let lane = shard_of(hash) / per_lane;
                let found = lanes[lane].found[run.lanes[lane]];
                run.lanes[lane] += 1;
                match found {
                    Found::Stored(id) => ids[i] = (id, false),
                    Found::Same(earlier) => run.same.push(((first + i) as u32, earlier)),
                    Found::New { .. } => run.new.push((first + i) as u32),
                    Found::Refused => {
                        run.refused = Some(first + i);
                        break;
                    }
                }
            }
        });
        drop(work);
        // In order: the new rows stored, up to the first refusal.
        let mut cut = count;
        let mut stopped = None;
        'runs: for run in &self.runs {
            for &k in &run.new {
                let k = k as usize;
                if run.refused.is_some_and(|refused| refused < k) {
                    break;
                }
                match store.push_row(&rows[k * width..(k + 1) * width], meter) {
                    Ok(id) => self.ids[k] = (id, true),
                    Err(stop) => {
                        (cut, stopped) = (k, Some(stop));
                        break 'runs;
                    }
                }
            }
            if let Some(refused) = run.refused {
                (cut, stopped) = (refused, Some(Stopped::Memory));
                break;
            }
        }
        for run in &self.runs {
            for &(k, earlier) in &run.same {
                if (k as usize) < cut {
                    self.ids[k as usize] = (self.ids[earlier as usize].0, false);
                }
            }
        }
        self.ids.truncate(cut);
        stopped
    }

    /// Gives each held place its id (or gives it up), on every thread.
    fn settle(&mut self, store: &mut StateStore, pool: &Pool) {
        let ids = &self.ids;
        let mut shards = std::mem::take(&mut store.shards);
        let mut work = with_their_shards(&mut self.lanes, &mut shards);
        pool.each(&mut work, |_, (lane, tables)| {
            let first = lane.shards.start;
            for found in &lane.found {
                if let Found::New { shard, slot, k } = *found {
                    let id = ids.get(k as usize).map(|&(id, _)| id);
                    tables[shard as usize - first].settle(slot as usize, id);
                }
            }
        });
        drop(work);
        store.shards = shards;
    }
}

impl Lane {
    fn look_up(
        &mut self,
        tables: &mut [Table],
        store: &StateStore,
        hashes: &[u32],
        rows: &[u32],
        width: usize,
        meter: &Meter,
    ) {
        let first = self.shards.start;
        self.found.clear();
        // Room first, so that no shard grows (and no held place moves)
        // while the block is looked up.
        self.counts.clear();
        self.counts.resize(tables.len(), 0);
        for &hash in hashes {
            let shard = shard_of(hash);
            if self.shards.contains(&shard) {
                self.counts[shard - first] += 1;
            }
        }
        let mut roomy = vec![true; tables.len()];
        for (i, table) in tables.iter_mut().enumerate() {
            let bytes = table.room_bytes(self.counts[i]);
            if bytes > 0 {
                if meter.may_allocate(bytes).is_ok() {
                    table.make_room(self.counts[i], store.rows());
                } else {
                    roomy[i] = false;
                }
            }
        }
        const AHEAD: usize = 8;
        for (k, &hash) in hashes.iter().enumerate() {
            if let Some(&later) = hashes.get(k + AHEAD)
                && self.shards.contains(&shard_of(later))
            {
                tables[shard_of(later) - first].prefetch(later);
            }
            let shard = shard_of(hash);
            if !self.shards.contains(&shard) {
                continue;
            }
            let row = &rows[k * width..(k + 1) * width];
            let encodable = store.encode_row(row, &mut self.encoded);
            let encoded = &self.encoded;
            let table = &mut tables[shard - first];
            let probe = table.probe(
                hash,
                |id| encodable && store.row_is(id, row, encoded),
                |j| &rows[j as usize * width..(j as usize + 1) * width] == row,
            );
            // Not in memory: perhaps on disk.
            let spilled = match probe {
                Probe::Empty(_) if encodable => store.spilled_id(row, encoded),
                _ => None,
            };
            self.found.push(match (probe, spilled) {
                (_, Some(id)) | (Probe::Stored(id), None) => Found::Stored(id),
                (Probe::Pending(j), None) => Found::Same(j),
                (Probe::Empty(_), None) if !roomy[shard - first] => Found::Refused,
                (Probe::Empty(slot), None) => {
                    table.hold(hash, slot, k as u32);
                    Found::New {
                        shard: shard as u32,
                        slot: slot as u32,
                        k: k as u32,
                    }
                }
            });
        }
    }
}

/// Each lane with the shards it owns (lanes own consecutive runs of
/// shards, in order), for a thread each.
fn with_their_shards<'a>(
    lanes: &'a mut [Lane],
    shards: &'a mut [Table],
) -> Vec<(&'a mut Lane, &'a mut [Table])> {
    let mut work = Vec::with_capacity(lanes.len());
    let mut rest = shards;
    for lane in lanes {
        let (mine, others) = rest.split_at_mut(lane.shards.len());
        work.push((lane, mine));
        rest = others;
    }
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;

    /// Rows of two numbers with many repeats, some past 255 (widening).
    fn rows(n: u32) -> Vec<u32> {
        (0..n).flat_map(|i| [i % 97, (i * 7919) % 301]).collect()
    }

    /// Stores `rows` in batches of `per` rows on `threads` threads.
    fn in_batches(
        rows: &[u32],
        per: usize,
        threads: usize,
        meter: &Meter,
    ) -> (StateStore, Vec<(u32, bool)>, Option<Stopped>) {
        let pool = Pool::new(threads);
        let mut store = StateStore::new(2);
        let mut batch = Batch::default();
        let mut ids = Vec::new();
        for chunk in rows.chunks(per * 2) {
            // In two runs, split unevenly: the rows are one batch.
            let (first, second) = chunk.split_at(chunk.len() / 3 / 2 * 2);
            let stopped = batch.store(&mut store, &[first, second], &pool, meter);
            ids.extend_from_slice(&batch.ids);
            if stopped.is_some() {
                return (store, ids, stopped);
            }
        }
        (store, ids, None)
    }

    #[test]
    fn batches_on_any_number_of_threads_number_rows_as_one_at_a_time() {
        let rows = rows(20_000);
        let mut one = StateStore::new(2);
        let expected: Vec<(u32, bool)> = rows.chunks(2).map(|r| one.insert(r)).collect();
        for threads in [1, 2, MIN_THREADS, MIN_THREADS + 1] {
            for per in [1, 7, 1000, 20_000] {
                let (store, ids, stopped) = in_batches(&rows, per, threads, &Meter::unlimited());
                assert_eq!(stopped, None);
                assert_eq!(ids, expected, "{threads} threads, batches of {per}");
                assert_eq!(store.len(), one.len());
                // Every row is found again, under its id.
                for (r, &(id, _)) in rows.chunks(2).zip(&expected) {
                    let mut out = Vec::new();
                    store.read(id, &mut out);
                    assert_eq!(out, r);
                }
            }
        }
    }

    #[test]
    fn a_batch_stops_at_the_state_budget_and_forgets_what_it_refused() {
        let rows = rows(5_000);
        let meter = Budget {
            max_states: Some(1000),
            ..Budget::default()
        }
        .meter();
        let mut one = StateStore::new(2);
        let expected: Vec<(u32, bool)> = rows
            .chunks(2)
            .map_while(|r| one.insert_within(r, &meter).ok())
            .collect();
        for threads in [1, 2, MIN_THREADS, MIN_THREADS + 1] {
            let (mut store, ids, stopped) = in_batches(&rows, 4096, threads, &meter);
            assert_eq!(stopped, Some(Stopped::StateBudget));
            assert_eq!(ids, expected, "{threads} threads");
            assert_eq!(store.len(), 1000);
            // The places held for refused rows are given up: a refused
            // row is not found, a stored one is.
            let refused = &rows[ids.len() * 2..ids.len() * 2 + 2];
            assert_eq!(
                store.insert_within(refused, &meter),
                Err(Stopped::StateBudget)
            );
            assert_eq!(store.insert(&rows[..2]), (0, false));
        }
    }

    #[test]
    fn a_batch_split_between_threads_finds_the_rows_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let spill = crate::budget::disk::Spill::new(Some(dir.path()), None).unwrap();
        let mut store = StateStore::new(2);
        store.spill_to(spill);
        let rows: Vec<u32> = (0..40_000u32).flat_map(|i| [i % 1000, i / 1000]).collect();
        let mut ids = Vec::new();
        store
            .insert_all(&[&rows], &mut ids, &Meter::unlimited())
            .unwrap();
        store.spill_before(40_000).unwrap();
        assert!(store.states_on_disk() >= 32_768);
        // Old rows (on disk and in memory) and new ones, split between
        // four threads: the ids one thread storing them in order gives.
        let more: Vec<u32> = (0..60_000u32)
            .step_by(3)
            .flat_map(|i| [i % 1000, i / 1000])
            .collect();
        let pool = Pool::new(MIN_THREADS);
        let mut batch = Batch::default();
        assert_eq!(
            batch.store(&mut store, &[&more], &pool, &Meter::unlimited()),
            None
        );
        let expected: Vec<(u32, bool)> = (0..60_000u32)
            .step_by(3)
            .scan(40_000, |next, i| {
                Some(if i < 40_000 {
                    (i, false)
                } else {
                    *next += 1;
                    (*next - 1, true)
                })
            })
            .collect();
        assert_eq!(batch.ids, expected);
    }
}

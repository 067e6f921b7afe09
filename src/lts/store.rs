//! The store of system states: fixed-width rows of component-local state
//! numbers, each column packed into the bits its largest number needs
//! ([`rows`]), with an index of row ids split into [`SHARDS`] hash tables
//! ([`table`]). A state's id is its row index: states are numbered in the
//! order they were found.
//!
//! A lookup touches one table line and then the row, and the lines of a
//! batch of successors are fetched ahead of their lookups, in a window
//! sliding along the batch ([`StateStore::insert_all`]), so their cache
//! misses overlap.
//!
//! The index is split into [`SHARDS`] tables by hash, for two reasons.
//! Several threads can look up and add a block of rows at once, each in
//! the shards it owns ([`super::batch`]), while the ids stay those one
//! thread would give. And a table grows one shard at a time: growing
//! holds a shard's old and new tables together, a sixty-fourth of the
//! index, never the whole index twice.
//!
//! Under a budget ([`StateStore::insert_within`]) a store never holds
//! more rows than the state budget allows, and asks the meter before
//! every step that allocates much at once (doubling a table, widening
//! the rows): a step that would pass the memory budget is not taken, and
//! the row that needed it is refused instead. Rows are stored in chunks
//! of at most [`rows::CHUNK_ROWS`] rows and [`rows::CHUNK_NUMBERS`]
//! numbers (a system of millions of components has rows of megabytes),
//! small steps the meter's periodic reading covers, each asked for first.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use rustc_hash::FxBuildHasher;

use crate::budget::disk::Spill;
use crate::budget::{Budget, Meter, Stopped, memory};

use super::buffer::with_room;

mod rows;
mod spilled;
mod table;

use spilled::{Spilled, wide_hash};

pub(super) use rows::Rows;
pub(super) use table::{Probe, Table};

/// The share of the memory budget at which a store with a spill folder
/// moves rows to disk: what is left covers the store's growth until it
/// is next asked, the spill's own sorting and merging, and what the
/// rest of the search holds.
const SPILL_AT: f64 = 0.7;

/// Tables the index is split into (a power of two).
pub const SHARDS: usize = 64;

pub struct StateStore {
    rows: Rows,
    pub(super) shards: Vec<Table>,
    encoded: Vec<u8>,
    /// Where rows go when memory is short, and the index of those gone.
    spill: Option<(Arc<Spill>, Spilled)>,
}

/// Rows of numbers packed as a store packs its own, with no index: what
/// a search keeps beside each state (the state it was found from, and
/// the event).
pub struct PackedRows {
    rows: Rows,
    encoded: Vec<u8>,
}

impl PackedRows {
    pub fn new(width: usize) -> PackedRows {
        PackedRows {
            rows: Rows::new(width),
            encoded: Vec::new(),
        }
    }

    /// Appends `row`, widening the columns that need it.
    pub fn push(&mut self, row: &[u32]) {
        let unlimited = Meter::unlimited();
        self.rows
            .pack_widening(row, &mut self.encoded, &unlimited)
            .expect("an unlimited meter refuses only when the address space runs out");
        self.rows.push(&self.encoded);
    }

    /// Row `i`, into `out`.
    pub fn read(&self, i: usize, out: &mut Vec<u32>) {
        self.rows.read(i as u32, out);
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }

    /// Bytes the rows take in memory.
    pub fn bytes(&self) -> u64 {
        self.rows.bytes()
    }

    /// Moves every full chunk of rows before row `i` still in memory to
    /// a file of `spill`'s folder: the bytes it freed.
    pub fn spill_before(&mut self, i: usize, spill: &Arc<Spill>) -> Result<u64, Stopped> {
        let Some(chunks) = self.rows.chunks_to_spill(i) else {
            return Ok(0);
        };
        let before = self.rows.bytes();
        let places = self.rows.write_chunks(chunks, spill)?;
        self.rows.moved(chunks.0, &places);
        Ok(before.saturating_sub(self.rows.bytes()))
    }
}

/// The shard a row of hash `hash` is indexed in.
#[inline]
pub fn shard_of(hash: u32) -> usize {
    hash as usize & (SHARDS - 1)
}

impl StateStore {
    pub fn new(width: usize) -> StateStore {
        StateStore {
            rows: Rows::new(width),
            shards: (0..SHARDS).map(Table::for_shard).collect(),
            // Written for every row looked up, on the search's thread
            // while the others read the machine ([`super::buffer`]).
            encoded: with_room(),
            spill: None,
        }
    }

    /// Lets [`StateStore::spill_before`] move rows to `spill`'s folder.
    pub fn spill_to(&mut self, spill: Arc<Spill>) {
        self.spill = Some((spill, Spilled::default()));
    }

    /// The folder rows may move to, if any.
    pub fn spill(&self) -> Option<&Arc<Spill>> {
        self.spill.as_ref().map(|(spill, _)| spill)
    }

    /// Moves the rows of every full chunk before state `id` still in
    /// memory to disk, with their part of the index: the bytes it
    /// freed. A spill folder that fails stops it ([`Stopped::Disk`]),
    /// the rows still in memory.
    pub fn spill_before(&mut self, id: usize) -> Result<u64, Stopped> {
        let Some((spill, spilled)) = &mut self.spill else {
            return Ok(0);
        };
        let Some(chunks) = self.rows.chunks_to_spill(id) else {
            return Ok(0);
        };
        let before = self.rows.bytes() + self.shards.iter().map(Table::bytes).sum::<u64>();
        let ids = self.rows.ids_of(chunks.0..chunks.1);
        let places = self.rows.write_chunks(chunks, spill)?;
        // The index's pairs, sorted a piece at a time: a spill of millions
        // of rows would otherwise hold sixteen bytes for each at once.
        const PIECE: usize = 1 << 17;
        let rows = &self.rows;
        let mut row = Vec::with_capacity(rows.width());
        let pieces = ids.clone().step_by(PIECE).map(|from| {
            let piece = from..(from + PIECE).min(ids.end);
            let mut entries = Vec::with_capacity(piece.len());
            for id in piece {
                rows.read(id as u32, &mut row);
                entries.push((wide_hash(&row), id as u32));
            }
            entries
        });
        spilled.add(spill, pieces)?;
        // Now that the rows are safe on disk, the index lets them go.
        self.rows.moved(chunks.0, &places);
        for shard in &mut self.shards {
            shard.shrink(&self.rows, ids.end as u32);
        }
        let after = self.rows.bytes() + self.shards.iter().map(Table::bytes).sum::<u64>();
        Ok(before.saturating_sub(after))
    }

    /// With a spill folder ([`Budget::spill`]), when memory is short (the
    /// heap past [`SPILL_AT`] of the memory budget, or more states in
    /// memory than the plan's test knob allows): the older half of the
    /// rows in memory moves to disk (less, down to a quarter, to keep
    /// those from `next` on, the states still to expand, which would
    /// otherwise be read back a row at a time). The newer half stays,
    /// where most successors of the states being expanded are found
    /// again. Whether it spilled; a folder that failed stops it.
    pub fn spill_when_short(&mut self, budget: &Budget, next: usize) -> Result<bool, Stopped> {
        let Some(spill) = &budget.spill else {
            return Ok(false);
        };
        if spill.failure().is_some() {
            return Err(Stopped::Disk);
        }
        if self.spill.is_none() {
            self.spill_to(Arc::clone(spill));
        }
        let on_disk = self.states_on_disk();
        let in_memory = self.len() - on_disk;
        let knob = spill.at_states.is_some_and(|most| in_memory > most);
        let short = budget.max_memory.is_some_and(|max| {
            memory::held(memory::FRESH).is_some_and(|held| held as f64 > max as f64 * SPILL_AT)
        });
        if !knob && !short {
            return Ok(false);
        }
        let half = on_disk + in_memory / 2;
        let quarter = on_disk + in_memory / 4;
        let to = if (quarter..half).contains(&next) {
            next
        } else {
            half
        };
        self.spill_before(to)?;
        Ok(true)
    }

    /// States whose rows are on disk.
    pub fn states_on_disk(&self) -> usize {
        self.rows.ids_of(0..self.rows.chunks_on_disk()).len()
    }

    /// The id of `row` (packed as new rows are into `encoded`) among the
    /// rows on disk, if it is one of them.
    pub(super) fn spilled_id(&self, row: &[u32], encoded: &[u8]) -> Option<u32> {
        let (_, spilled) = self.spill.as_ref()?;
        if spilled.is_empty() {
            return None;
        }
        let packed = (encoded, self.rows.generation());
        spilled.find_packed(wide_hash(row), packed, |id| {
            self.rows.holds(id, row, encoded)
        })
    }

    /// Whether reading the rows on disk failed: the ids given since may
    /// be wrong, and the search must stop.
    pub fn failed(&self) -> bool {
        self.spill().is_some_and(|spill| spill.failure().is_some())
    }

    /// Numbers per row.
    pub fn width(&self) -> usize {
        self.rows.width()
    }

    /// Bytes the store holds in memory: rows, index, and the index of
    /// the rows on disk.
    pub fn bytes(&self) -> u64 {
        let index: u64 = self.shards.iter().map(Table::bytes).sum();
        let spilled = self.spill.as_ref().map_or(0, |(_, s)| s.bytes());
        self.rows.bytes() + index + spilled
    }

    /// The stored rows, which a shard's table hashes again as it grows.
    pub(super) fn rows(&self) -> &Rows {
        &self.rows
    }

    /// Whether the stored row `id` is `row`, packed as this store packs
    /// new rows into `encoded`.
    pub(super) fn row_is(&self, id: u32, row: &[u32], encoded: &[u8]) -> bool {
        self.rows.holds(id, row, encoded)
    }

    /// `row` packed as this store packs new rows, or `false` when a
    /// number needs wider columns (then no stored row is `row`).
    pub(super) fn encode_row(&self, row: &[u32], out: &mut Vec<u8>) -> bool {
        out.clear();
        self.rows.packing().pack(row, out)
    }

    /// Packs `row` into `self.encoded`, as [`StateStore::encode_row`].
    fn pack(&mut self, row: &[u32]) -> bool {
        self.encoded.clear();
        self.rows.packing().pack(row, &mut self.encoded)
    }

    /// Appends `row`, new, as the next id, widening the rows first if it
    /// needs wider columns; asks `meter` before each large step.
    pub(super) fn push_row(&mut self, row: &[u32], meter: &Meter) -> Result<u32, Stopped> {
        may_store(meter, self.len() + 1)?;
        self.rows.pack_widening(row, &mut self.encoded, meter)?;
        self.rows.may_push(meter)?;
        Ok(self.rows.push(&self.encoded))
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row of state `id`, into `out`.
    pub fn read(&self, id: u32, out: &mut Vec<u32>) {
        self.rows.read(id, out);
    }

    /// The id of `row`, adding it if it is new (then `true`); for small
    /// tables of states outside any budget.
    pub fn insert(&mut self, row: &[u32]) -> (u32, bool) {
        let unlimited = Meter::unlimited();
        self.insert_hashed(row, hash_row(row), &unlimited)
            .expect("an unlimited meter refuses only when the address space runs out")
    }

    /// Whether `row` is stored, storing nothing.
    pub fn contains(&self, row: &[u32]) -> bool {
        self.find(row).is_some()
    }

    /// The id of `row`, if it is stored; storing nothing.
    pub fn find(&self, row: &[u32]) -> Option<u32> {
        let mut encoded = Vec::new();
        if !self.encode_row(row, &mut encoded) {
            return None;
        }
        let hash = hash_row(row);
        match self.shards[shard_of(hash)].find(hash, |id| self.row_is(id, row, &encoded)) {
            Ok(id) => Some(id),
            Err(_) => self.spilled_id(row, &encoded),
        }
    }

    /// The id of `row`, adding it if it is new (then `true`), unless
    /// adding it would pass `meter`'s state or memory budget.
    pub fn insert_within(&mut self, row: &[u32], meter: &Meter) -> Result<(u32, bool), Stopped> {
        self.insert_hashed(row, hash_row(row), meter)
    }

    /// Inserts rows of [`StateStore::width`] numbers, laid end to end in `runs`
    /// (one run or several, in order), pushing each one's `(id, new)`
    /// onto `out`, until one would pass `meter`'s budget: then `out`
    /// holds the rows before it.
    pub fn insert_all(
        &mut self,
        runs: &[&[u32]],
        out: &mut Vec<(u32, bool)>,
        meter: &Meter,
    ) -> Result<(), Stopped> {
        // A batch's table lines and rows are far apart in memory, so each
        // lookup would wait for two cache misses. They are fetched ahead
        // instead, in a window sliding with the batch (a whole batch's
        // lines would not all stay in the cache): the table line of the
        // row `LINE_AHEAD` on, and the stored row its home slot names for
        // the row `ROW_AHEAD` on, whose line has arrived by then. The
        // window runs on across the runs' ends.
        //
        // A row is hashed as its table line is fetched, and looked up
        // `LINE_AHEAD` rows later: the batch is read once, each row still
        // in the cache when it is looked up. Hashing the whole batch
        // first read it twice, and a batch made on another thread (a
        // few megabytes) no longer fits this core's cache by the second
        // pass: dining's exploration on two threads spent a fiftieth of
        // its time reading it again.
        const LINE_AHEAD: usize = 16;
        const ROW_AHEAD: usize = 8;
        let width = self.width().max(1);
        let rows = || runs.iter().flat_map(|run| run.chunks_exact(width));
        // The hashes of the rows from the one being looked up on, in a
        // ring: row `k`'s at `k % LINE_AHEAD`.
        let mut ahead = rows();
        let mut hashes = [0u32; LINE_AHEAD];
        let mut hashed = 0;
        for (slot, row) in hashes.iter_mut().zip(ahead.by_ref()) {
            *slot = hash_row(row);
            self.shards[shard_of(*slot)].prefetch(*slot);
            hashed += 1;
        }
        for (k, row) in rows().enumerate() {
            let hash = hashes[k % LINE_AHEAD];
            if let Some(later) = ahead.next() {
                let later = hash_row(later);
                hashes[k % LINE_AHEAD] = later;
                self.shards[shard_of(later)].prefetch(later);
                hashed += 1;
            }
            if k + ROW_AHEAD < hashed {
                let soon = hashes[(k + ROW_AHEAD) % LINE_AHEAD];
                if let Some(id) = self.shards[shard_of(soon)].at_home(soon) {
                    prefetch(self.rows.bytes_of(id).as_ptr());
                }
            }
            match self.insert_hashed(row, hash, meter) {
                Ok(found) => out.push(found),
                Err(stop) => return Err(stop),
            }
        }
        Ok(())
    }

    fn insert_hashed(
        &mut self,
        row: &[u32],
        hash: u32,
        meter: &Meter,
    ) -> Result<(u32, bool), Stopped> {
        debug_assert_eq!(row.len(), self.width());
        let fits = self.pack(row);
        let slot = if fits {
            let (rows, encoded) = (&self.rows, self.encoded.as_slice());
            match self.shards[shard_of(hash)].find(hash, |id| rows.holds(id, row, encoded)) {
                Ok(id) => return Ok((id, false)),
                Err(slot) => {
                    if let Some(id) = self.spilled_id(row, encoded) {
                        return Ok((id, false));
                    }
                    if self.failed() {
                        return Err(Stopped::Disk);
                    }
                    Some(slot)
                }
            }
        } else {
            // Rows packed narrower cannot hold this one: it is new, its
            // slot still to be found.
            None
        };
        // A new row: within the budget, or not at all.
        may_store(meter, self.len() + 1)?;
        let table = &self.shards[shard_of(hash)];
        if table.full_after(1) {
            meter.may_allocate(table.doubling_bytes())?;
        }
        if !fits {
            self.rows.pack_widening(row, &mut self.encoded, meter)?;
        }
        self.rows.may_push(meter)?;
        let id = self.rows.push(&self.encoded);
        self.shards[shard_of(hash)].add(hash, id, slot, &self.rows);
        Ok((id, true))
    }
}

/// The most states a store holds: an id's top bit marks a place held
/// for a batch's row ([`table`]).
pub const MOST_STATES: usize = (1 << 31) - 1;

/// Whether a store may hold `states`: within the meter's state budget,
/// and within [`MOST_STATES`] (which stops it as a state budget would).
fn may_store(meter: &Meter, states: usize) -> Result<(), Stopped> {
    if states > MOST_STATES {
        return Err(Stopped::StateBudget);
    }
    meter.may_store(states)
}

/// Asks for the cache line at `at` to be fetched, without waiting for it.
#[inline]
fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint and never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

pub fn hash_row(row: &[u32]) -> u32 {
    // Two numbers a step: each step waits for the one before it (a
    // multiplication), so the chain is half as long.
    let mut h = FxBuildHasher.build_hasher();
    let mut pairs = row.chunks_exact(2);
    for pair in &mut pairs {
        h.write_u64(u64::from(pair[0]) | (u64::from(pair[1]) << 32));
    }
    if let [last] = pairs.remainder() {
        h.write_u32(*last);
    }
    let full = h.finish();
    (full ^ (full >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(store: &StateStore, id: u32) -> Vec<u32> {
        let mut out = Vec::new();
        store.read(id, &mut out);
        out
    }

    #[test]
    fn equal_rows_get_one_id_in_the_order_found() {
        let mut store = StateStore::new(3);
        assert_eq!(store.insert(&[1, 2, 3]), (0, true));
        assert_eq!(store.insert(&[3, 2, 1]), (1, true));
        assert_eq!(store.insert(&[1, 2, 3]), (0, false));
        assert_eq!(row(&store, 1), vec![3, 2, 1]);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn a_row_of_two_million_components_gets_a_chunk_of_its_own_size() {
        // A chunk of the usual 16 384 rows of these would be 32 GB at one
        // allocation: it aborted the process.
        let width = 2_000_000;
        let mut store = StateStore::new(width);
        let mut row = vec![0u32; width];
        for i in 0..3 {
            row[i] = 1;
            assert_eq!(store.insert(&row), (i as u32, true));
        }
        assert_eq!(store.rows.chunk_rows(), 1);
        assert_eq!(self::row(&store, 2)[..3], [1, 1, 1]);
        assert_eq!(self::row(&store, 0)[..3], [1, 0, 0]);
    }

    #[test]
    fn rows_survive_many_chunks_and_widening() {
        let mut store = StateStore::new(2);
        let n = 3 * rows::CHUNK_ROWS as u32;
        for i in 0..n {
            // Small numbers first, then ones that need 2 and 4 bytes.
            let big = if i < 1000 { i % 200 } else { i * 7 };
            assert_eq!(store.insert(&[big, i]), (i, true), "row {i}");
        }
        for i in (0..n).step_by(997) {
            let big = if i < 1000 { i % 200 } else { i * 7 };
            assert_eq!(row(&store, i), vec![big, i]);
            assert_eq!(store.insert(&[big, i]), (i, false));
        }
    }

    #[test]
    fn a_budget_stops_the_store_exactly_at_its_states() {
        let meter = crate::budget::Budget {
            max_states: Some(300),
            max_memory: None,
            ..crate::budget::Budget::default()
        }
        .meter();
        let mut store = StateStore::new(1);
        let rows: Vec<u32> = (0..1000).collect();
        let mut ids = Vec::new();
        let stopped = store.insert_all(&[&rows], &mut ids, &meter);
        assert_eq!(stopped, Err(Stopped::StateBudget));
        assert_eq!(store.len(), 300);
        assert_eq!(ids.len(), 300);
        // Rows already stored are still found; a new one is refused.
        assert_eq!(store.insert_within(&[299], &meter), Ok((299, false)));
        assert_eq!(
            store.insert_within(&[300], &meter),
            Err(Stopped::StateBudget)
        );
        // Numbers past 255 widen the rows once the budget allows them.
        let mut wide = StateStore::new(1);
        assert_eq!(wide.insert_within(&[70_000], &meter), Ok((0, true)));
        assert_eq!(wide.insert_within(&[70_000], &meter), Ok((0, false)));
    }

    #[test]
    fn the_table_does_not_double_past_the_memory_budget() {
        if crate::budget::memory::usage(std::time::Duration::ZERO).is_none() {
            return; // the system does not say what the process uses
        }
        let tight = crate::budget::Budget {
            max_memory: Some(1),
            ..crate::budget::Budget::default()
        }
        .meter();
        // Rows of small numbers, the store's columns made wide enough for
        // all of them first (by the last row), so that it never widens.
        let row = |i: u32| [i % 200, i / 200];
        let mut store = StateStore::new(2);
        assert_eq!(store.insert(&row(4999)), (0, true));
        let rows: Vec<u32> = (0..4999).flat_map(row).collect();
        let mut ids = Vec::new();
        assert_eq!(
            store.insert_all(&[&rows], &mut ids, &tight),
            Err(Stopped::Memory)
        );
        // Each shard's table (16 slots) doubles at its own fill, from 14
        // rows down to 12: the first row that would fill its shard to
        // that needed it and was refused; the ones before are there.
        let mut held = [0; SHARDS];
        held[shard_of(hash_row(&row(4999)))] = 1;
        let refused = (0..4999)
            .find(|&i| {
                let shard = shard_of(hash_row(&row(i)));
                held[shard] += 1;
                Table::for_shard(shard).over(held[shard], 16)
            })
            .expect("some shard fills");
        assert!(refused > 10);
        assert_eq!(store.len(), refused as usize + 1);
        assert!((0..refused).all(|i| store.insert(&row(i)) == (i + 1, false)));
    }

    #[test]
    fn rows_moved_to_disk_are_found_and_read_back_with_their_ids() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), None).unwrap();
        let mut store = StateStore::new(3);
        store.spill_to(Arc::clone(&spill));
        let row = |i: u32| [i % 7, i / 7, (i * 31) % 1000];
        let n = 5 * rows::CHUNK_ROWS as u32;
        for i in 0..n / 2 {
            assert_eq!(store.insert(&row(i)), (i, true));
        }
        let before = store.bytes();
        let freed = store.spill_before(n as usize / 4).unwrap();
        // Only full chunks wholly before the state asked for move.
        assert_eq!(store.states_on_disk(), rows::CHUNK_ROWS);
        assert!(freed > 0 && store.bytes() < before, "{freed} of {before}");
        assert!(spill.used() > 0);
        // Wider numbers after the spill: the rows in memory widen, those
        // on disk keep their packing.
        for i in n / 2..n {
            assert_eq!(store.insert(&row(i)), (i, true), "row {i}");
        }
        store.spill_before(n as usize).unwrap();
        assert_eq!(store.states_on_disk(), n as usize, "every chunk is full");
        for i in (0..n).step_by(7) {
            assert_eq!(self::row(&store, i), row(i).to_vec(), "row {i} read back");
            assert_eq!(store.insert(&row(i)), (i, false), "row {i} found again");
            assert!(store.contains(&row(i)));
        }
        assert!(!store.contains(&[7, 0, 0]));
        assert_eq!(store.insert(&[7, 0, 0]), (n, true));
        drop(store);
        assert_eq!(spill.used(), 0, "the files go with the store");
    }

    #[test]
    fn no_store_holds_an_id_whose_top_bit_marks_a_held_place() {
        let unlimited = Meter::unlimited();
        assert_eq!(may_store(&unlimited, MOST_STATES), Ok(()));
        assert_eq!(
            may_store(&unlimited, MOST_STATES + 1),
            Err(Stopped::StateBudget)
        );
    }

    #[test]
    fn a_batch_inserts_like_one_at_a_time() {
        let mut one = StateStore::new(2);
        let mut batch = StateStore::new(2);
        let rows: Vec<u32> = (0..5000u32).flat_map(|i| [i % 61, i % 17]).collect();
        let mut ids = Vec::new();
        batch
            .insert_all(&[&rows], &mut ids, &Meter::unlimited())
            .unwrap();
        let expected: Vec<(u32, bool)> = rows.chunks(2).map(|r| one.insert(r)).collect();
        assert_eq!(ids, expected);
        assert_eq!(batch.len(), 61 * 17);
        // The same rows in runs of any lengths (empty ones among them).
        for cut in [1, 3, 40, 4999] {
            let mut runs: Vec<&[u32]> = rows.chunks(cut * 2).collect();
            runs.insert(1, &[]);
            let mut in_runs = StateStore::new(2);
            let mut ids = Vec::new();
            in_runs
                .insert_all(&runs, &mut ids, &Meter::unlimited())
                .unwrap();
            assert_eq!(ids, expected, "runs of {cut} rows");
        }
        // Batches shorter than, as long as and just longer than the
        // window of rows hashed ahead.
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 33] {
            let mut short = StateStore::new(2);
            let mut ids = Vec::new();
            short
                .insert_all(&[&rows[..2 * len]], &mut ids, &Meter::unlimited())
                .unwrap();
            assert_eq!(ids, expected[..len], "a batch of {len} rows");
        }
    }
}

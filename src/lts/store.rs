//! The store of system states: fixed-width rows of component-local state
//! numbers, packed into fixed-size chunks (no per-state allocation, no
//! copying as it grows), with a hash table of row ids.
//!
//! A row's numbers are stored in as few bytes as the largest number so
//! far needs (1, 2 or 4 per component); when a bigger number arrives the
//! rows are widened once. A state's id is its row index: states are
//! numbered in the order they were found.
//!
//! The index is an open-addressing table of `(hash, id)` words rather
//! than a general hash map, for the two things exploration needs most: a
//! lookup touches one table line and then the row, and the lines of a
//! batch of successors are fetched ahead of their lookups, in a window
//! sliding along the batch ([`StateStore::insert_all`]), so their cache
//! misses overlap. Growing a table rehashes from the stored hashes,
//! never the rows.
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
//! every step that allocates much at once (doubling the table, widening
//! the rows): a step that would pass the memory budget is not taken, and
//! the row that needed it is refused instead. Rows are stored in chunks
//! of at most [`CHUNK_ROWS`] rows and [`CHUNK_BYTES`] bytes (a system of
//! millions of components has rows of megabytes), small steps the
//! meter's periodic reading covers, each asked for first.

use std::hash::{BuildHasher, Hasher};

use rustc_hash::FxBuildHasher;

use crate::budget::{Meter, Stopped};

use super::buffer::with_room;

/// Rows per chunk, at most.
const CHUNK_ROWS: usize = 1 << 14;

/// Bytes per chunk, at most (but a row, however wide, has a chunk).
const CHUNK_BYTES: usize = 16 << 20;

/// Tables the index is split into (a power of two).
pub const SHARDS: usize = 64;

pub struct StateStore {
    width: usize,
    /// Rows per chunk: [`CHUNK_ROWS`], fewer for wide rows.
    chunk_rows: usize,
    /// Bytes per number: 1, 2 or 4.
    cell: usize,
    chunks: Vec<Box<[u8]>>,
    len: usize,
    pub(super) shards: Vec<Table>,
    encoded: Vec<u8>,
}

/// The shard a row of hash `hash` is indexed in.
#[inline]
pub fn shard_of(hash: u32) -> usize {
    hash as usize & (SHARDS - 1)
}

impl StateStore {
    pub fn new(width: usize) -> StateStore {
        StateStore {
            width,
            chunk_rows: (CHUNK_BYTES / (width * 4).max(1)).clamp(1, CHUNK_ROWS),
            cell: 1,
            chunks: Vec::new(),
            len: 0,
            shards: (0..SHARDS).map(Table::for_shard).collect(),
            // Written for every row looked up, on the search's thread
            // while the others read the machine ([`super::buffer`]).
            encoded: with_room(),
        }
    }

    /// Numbers per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Bytes the store holds: rows and index.
    pub fn bytes(&self) -> u64 {
        let rows: usize = self.chunks.iter().map(|c| c.len()).sum();
        let index: u64 = self.shards.iter().map(Table::bytes).sum();
        rows as u64 + index
    }

    /// Whether the stored row `id` is `row` (encoded with this store's
    /// cells into `encoded`).
    pub(super) fn row_is(&self, id: u32, encoded: &[u8]) -> bool {
        self.bytes_of(id) == encoded
    }

    /// `row` encoded with this store's cells, or `false` when a number
    /// needs wider cells (then no stored row is `row`).
    pub(super) fn encode_row(&self, row: &[u32], out: &mut Vec<u8>) -> bool {
        out.clear();
        if row.iter().any(|&x| cell_for(x) > self.cell) {
            return false;
        }
        encode(row, self.cell, out);
        true
    }

    /// Appends `row`, new, as the next id, widening the rows first if it
    /// needs wider cells; asks `meter` before each large step.
    pub(super) fn push_row(&mut self, row: &[u32], meter: &Meter) -> Result<u32, Stopped> {
        meter.may_store(self.len + 1)?;
        let largest = row.iter().copied().max().unwrap_or(0);
        let cell = cell_for(largest).max(self.cell);
        if cell > self.cell {
            meter.may_allocate((self.len * self.width * cell) as u64)?;
            self.widen(cell);
        }
        self.encoded.clear();
        encode(row, self.cell, &mut self.encoded);
        self.may_push(meter)?;
        let id = self.len as u32;
        self.push_encoded();
        Ok(id)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn row_bytes(&self) -> usize {
        self.width * self.cell
    }

    pub(super) fn bytes_of(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let size = self.row_bytes();
        let start = (id % self.chunk_rows) * size;
        &self.chunks[id / self.chunk_rows][start..start + size]
    }

    /// The row of state `id`, into `out`.
    pub fn read(&self, id: u32, out: &mut Vec<u32>) {
        out.clear();
        decode(self.bytes_of(id), self.cell, out);
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
        let mut encoded = Vec::new();
        if !self.encode_row(row, &mut encoded) {
            return false;
        }
        let hash = hash_row(row);
        self.shards[shard_of(hash)]
            .find(hash, |id| self.row_is(id, &encoded))
            .is_ok()
    }

    /// The id of `row`, adding it if it is new (then `true`), unless
    /// adding it would pass `meter`'s state or memory budget.
    pub fn insert_within(&mut self, row: &[u32], meter: &Meter) -> Result<(u32, bool), Stopped> {
        self.insert_hashed(row, hash_row(row), meter)
    }

    /// Inserts rows of `self.width` numbers, laid end to end in `runs`
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
        let width = self.width.max(1);
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
                    prefetch(self.bytes_of(id).as_ptr());
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
        debug_assert_eq!(row.len(), self.width);
        let largest = row.iter().copied().max().unwrap_or(0);
        let cell = cell_for(largest).max(self.cell);
        let size = self.width * cell;
        self.encoded.clear();
        encode(row, cell, &mut self.encoded);
        let slot = if cell > self.cell {
            // Rows stored with narrower cells cannot hold this one: it is
            // new, its slot still to be found.
            None
        } else {
            let (chunks, encoded, rows) = (&self.chunks, &self.encoded, self.chunk_rows);
            let found = self.shards[shard_of(hash)].find(hash, |id| {
                let id = id as usize;
                let start = (id % rows) * size;
                &chunks[id / rows][start..start + size] == encoded.as_slice()
            });
            match found {
                Ok(id) => return Ok((id, false)),
                Err(slot) => Some(slot),
            }
        };
        // A new row: within the budget, or not at all.
        meter.may_store(self.len + 1)?;
        if cell > self.cell {
            meter.may_allocate((self.len * size) as u64)?;
        }
        let table = &self.shards[shard_of(hash)];
        if table.full_after(1) {
            meter.may_allocate(table.bytes() * 2)?;
        }
        if cell > self.cell {
            // Widening re-encodes every row through `encoded`.
            self.widen(cell);
            self.encoded.clear();
            encode(row, cell, &mut self.encoded);
        }
        self.may_push(meter)?;
        let id = self.len as u32;
        self.push_encoded();
        self.shards[shard_of(hash)].add(hash, id, slot);
        Ok((id, true))
    }

    /// Asks `meter` for the chunk the next row starts, if it starts one
    /// larger than a chunk may be (a single row of more than
    /// [`CHUNK_BYTES`]); smaller ones are steps the meter's periodic
    /// reading covers.
    fn may_push(&self, meter: &Meter) -> Result<(), Stopped> {
        let bytes = self.chunk_rows * self.row_bytes();
        if self.len.is_multiple_of(self.chunk_rows) && bytes > CHUNK_BYTES {
            meter.may_allocate(bytes as u64)?;
        }
        Ok(())
    }

    fn push_encoded(&mut self) {
        let size = self.row_bytes();
        let rows = self.chunk_rows;
        if self.len.is_multiple_of(rows) {
            self.chunks
                .push(vec![0; rows * size.max(1)].into_boxed_slice());
        }
        let start = (self.len % rows) * size;
        self.chunks[self.len / rows][start..start + size].copy_from_slice(&self.encoded);
        self.len += 1;
    }

    /// Re-encodes every row with cells of `cell` bytes. Hashes are of the
    /// numbers, not the bytes, so the table stays valid.
    fn widen(&mut self, cell: usize) {
        let old_cell = self.cell;
        let chunks = std::mem::take(&mut self.chunks);
        let len = self.len;
        self.cell = cell;
        self.len = 0;
        let old_size = self.width * old_cell;
        let mut row = Vec::with_capacity(self.width);
        for id in 0..len {
            let start = (id % self.chunk_rows) * old_size;
            row.clear();
            decode(
                &chunks[id / self.chunk_rows][start..start + old_size],
                old_cell,
                &mut row,
            );
            self.encoded.clear();
            encode(&row, cell, &mut self.encoded);
            self.push_encoded();
        }
    }
}

/// Linear-probing table of words `hash << 32 | (id + 1)`; 0 is empty.
/// While a batch is stored, a row new to the store holds its place with
/// `hash << 32 | PENDING | k` (`k`: its place in the batch); a place that
/// was held for a row the budget then refused is [`GONE`], which lookups
/// pass over.
pub(super) struct Table {
    slots: Vec<u64>,
    bits: u32,
    used: usize,
    /// Entries per 256 slots at which the table doubles.
    fill: usize,
}

/// Marks a word that holds a place for the batch's row `k`.
pub(super) const PENDING: u32 = 1 << 31;
/// A place held for a row that was not stored after all.
const GONE: u64 = u64::MAX;

/// What a lookup found.
pub(super) enum Probe {
    /// The stored id.
    Stored(u32),
    /// The row of the batch that holds its place.
    Pending(u32),
    /// Not there: the empty slot where it goes.
    Empty(usize),
}

impl Table {
    /// The table of shard `shard`. The shards fill alike (a row's shard is
    /// its hash's), so with one threshold they would all double within
    /// the same batch: the whole index rebuilt at once, tens of
    /// milliseconds at millions of states on the search's thread while
    /// the others wait. Each shard doubles at its own fill instead, from
    /// three quarters down to five eighths, so their doublings are spread
    /// over the last sixth of the stores before the first would double.
    fn for_shard(shard: usize) -> Table {
        Table {
            slots: empty_slots(16),
            bits: 4,
            used: 0,
            fill: 192 - 32 * shard / SHARDS,
        }
    }

    fn home(&self, hash: u32) -> usize {
        ((hash as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    pub(super) fn prefetch(&self, hash: u32) {
        prefetch(&self.slots[self.home(hash)]);
    }

    /// The stored id in the home slot of `hash`, if the slot holds one of
    /// that hash: where a lookup of it most likely ends.
    fn at_home(&self, hash: u32) -> Option<u32> {
        let word = self.slots[self.home(hash)];
        let value = word as u32;
        (word != 0 && word != GONE && (word >> 32) as u32 == hash && value & PENDING == 0)
            .then(|| value - 1)
    }

    /// The id whose hash is `hash` and for which `same` holds, or the
    /// empty slot where it would go.
    fn find(&self, hash: u32, same: impl Fn(u32) -> bool) -> Result<u32, usize> {
        match self.probe(hash, same, |_| false) {
            Probe::Stored(id) => Ok(id),
            Probe::Pending(_) => unreachable!("no batch is being stored"),
            Probe::Empty(slot) => Err(slot),
        }
    }

    /// The stored id whose hash is `hash` and for which `stored` holds,
    /// or the place held for a batch row `k` for which `pending(k)`
    /// holds, or the empty slot where it would go.
    pub(super) fn probe(
        &self,
        hash: u32,
        stored: impl Fn(u32) -> bool,
        pending: impl Fn(u32) -> bool,
    ) -> Probe {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            let word = self.slots[i];
            if word == 0 {
                return Probe::Empty(i);
            }
            if word != GONE && (word >> 32) as u32 == hash {
                let value = word as u32;
                if value & PENDING != 0 {
                    if pending(value & !PENDING) {
                        return Probe::Pending(value & !PENDING);
                    }
                } else if stored(value - 1) {
                    return Probe::Stored(value - 1);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `more` entries would fill the table to where it doubles.
    pub(super) fn full_after(&self, more: usize) -> bool {
        self.over(self.used + more, self.slots.len())
    }

    /// Whether `used` entries in `len` slots are past the table's fill.
    fn over(&self, used: usize, len: usize) -> bool {
        used * 256 >= len * self.fill
    }

    pub(super) fn bytes(&self) -> u64 {
        (self.slots.len() * std::mem::size_of::<u64>()) as u64
    }

    /// Adds `id`, whose row is not in the table yet, into the empty slot
    /// `find` returned (or the first one its probe meets), growing when
    /// full to its fill.
    fn add(&mut self, hash: u32, id: u32, slot: Option<usize>) {
        let slot = slot.unwrap_or_else(|| match self.find(hash, |_| false) {
            Err(slot) => slot,
            Ok(_) => unreachable!("nothing matches"),
        });
        self.slots[slot] = ((hash as u64) << 32) | (id as u64 + 1);
        self.used += 1;
        if self.full_after(0) {
            self.grow();
        }
    }

    /// Holds empty slot `slot` for the batch's row `k`.
    pub(super) fn hold(&mut self, hash: u32, slot: usize, k: u32) {
        self.slots[slot] = ((hash as u64) << 32) | (PENDING | k) as u64;
        self.used += 1;
    }

    /// Gives the place held at `slot` its id, or gives it up (`None`).
    pub(super) fn settle(&mut self, slot: usize, id: Option<u32>) {
        let hash = self.slots[slot] >> 32;
        self.slots[slot] = match id {
            Some(id) => (hash << 32) | (id as u64 + 1),
            None => GONE,
        };
    }

    /// Doubles until `more` entries fit below its fill.
    pub(super) fn make_room(&mut self, more: usize) {
        while self.full_after(more) {
            self.grow();
        }
    }

    /// The bytes [`Table::make_room`] would allocate for `more`.
    pub(super) fn room_bytes(&self, more: usize) -> u64 {
        let mut len = self.slots.len();
        while self.over(self.used + more, len) {
            len *= 2;
        }
        if len == self.slots.len() {
            0
        } else {
            (len * std::mem::size_of::<u64>()) as u64
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, empty_slots(1 << (self.bits + 1)));
        self.bits += 1;
        let mask = self.slots.len() - 1;
        self.used = 0;
        for word in old.into_iter().filter(|&w| w != 0 && w != GONE) {
            let mut i = self.home((word >> 32) as u32);
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = word;
            self.used += 1;
        }
    }
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

/// `len` empty slots, each page of them written once now. The allocator
/// hands a large table over as pages not yet mapped; a page read first
/// (probing) is mapped to the shared zero page, and the first write to
/// it then copies it and flushes the translation caches of every thread
/// of the process (an interrupt to each other core, per page). Written
/// first, each page is mapped once, on this thread alone.
fn empty_slots(len: usize) -> Vec<u64> {
    const WORDS_PER_PAGE: usize = 4096 / std::mem::size_of::<u64>();
    let mut slots = vec![0u64; len];
    for i in (0..len).step_by(WORDS_PER_PAGE) {
        // Through `black_box`, so that the write of a zero onto a zero
        // is not left out.
        *std::hint::black_box(&mut slots[i]) = 0;
    }
    slots
}

/// Bytes per number that `largest` needs: 1, 2 or 4.
fn cell_for(largest: u32) -> usize {
    if largest <= u8::MAX as u32 {
        1
    } else if largest <= u16::MAX as u32 {
        2
    } else {
        4
    }
}

fn encode(row: &[u32], cell: usize, out: &mut Vec<u8>) {
    match cell {
        1 => out.extend(row.iter().map(|&x| x as u8)),
        2 => row
            .iter()
            .for_each(|&x| out.extend_from_slice(&(x as u16).to_le_bytes())),
        _ => row
            .iter()
            .for_each(|&x| out.extend_from_slice(&x.to_le_bytes())),
    }
}

fn decode(bytes: &[u8], cell: usize, out: &mut Vec<u32>) {
    match cell {
        1 => out.extend(bytes.iter().map(|&b| b as u32)),
        2 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32),
        ),
        _ => out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        ),
    }
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
        assert_eq!(store.chunk_rows, 2);
        assert_eq!(self::row(&store, 2)[..3], [1, 1, 1]);
        assert_eq!(self::row(&store, 0)[..3], [1, 0, 0]);
    }

    #[test]
    fn rows_survive_many_chunks_and_widening() {
        let mut store = StateStore::new(2);
        let n = 3 * CHUNK_ROWS as u32;
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
        // Rows of small numbers: one byte each, never widened.
        let row = |i: u32| [i % 200, i / 200];
        let mut store = StateStore::new(2);
        let rows: Vec<u32> = (0..5000).flat_map(row).collect();
        let mut ids = Vec::new();
        assert_eq!(
            store.insert_all(&[&rows], &mut ids, &tight),
            Err(Stopped::Memory)
        );
        // Each shard's table (16 slots) doubles at its own fill, from 12
        // rows down to 11: the first row that would fill its shard to
        // that needed it and was refused; the ones before are there.
        let mut held = [0; SHARDS];
        let refused = (0..5000)
            .find(|&i| {
                let shard = shard_of(hash_row(&row(i)));
                held[shard] += 1;
                Table::for_shard(shard).over(held[shard], 16)
            })
            .expect("some shard fills");
        assert!(refused > 10);
        assert_eq!(store.len(), refused as usize);
        assert!((0..refused).all(|i| store.insert(&row(i)) == (i, false)));
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

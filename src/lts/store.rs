//! The store of system states: fixed-width rows of component-local state
//! numbers, packed into fixed-size chunks (no per-state allocation, no
//! copying as it grows), with a hash table of row ids.
//!
//! A row's numbers are stored in as few bytes as the largest number so
//! far needs (1, 2 or 4 per component); when a bigger number arrives the
//! rows are widened once. A state's id is its row index: states are
//! numbered in the order they were found.
//!
//! The index is an open-addressing table of `(hash, id)` words in one
//! array rather than a general hash map, for the two things exploration
//! needs most: a lookup touches one table line and then the row, and the
//! lines of a whole batch of successors are prefetched before any is
//! looked up ([`StateStore::insert_all`]), so their cache misses overlap.
//! Growing the table rehashes from the stored hashes, never the rows.
//!
//! Under a budget ([`StateStore::insert_within`]) a store never holds
//! more rows than the state budget allows, and asks the meter before
//! every step that allocates much at once (doubling the table, widening
//! the rows): a step that would pass the memory budget is not taken, and
//! the row that needed it is refused instead. Rows are stored in chunks
//! of [`CHUNK_ROWS`], small steps the meter's periodic reading covers.

use std::hash::{BuildHasher, Hasher};

use rustc_hash::FxBuildHasher;

use crate::budget::{Meter, Stopped};

/// Rows per chunk.
const CHUNK_ROWS: usize = 1 << 14;

pub struct StateStore {
    width: usize,
    /// Bytes per number: 1, 2 or 4.
    cell: usize,
    chunks: Vec<Box<[u8]>>,
    len: usize,
    table: Table,
    encoded: Vec<u8>,
    hashes: Vec<u32>,
}

impl StateStore {
    pub fn new(width: usize) -> StateStore {
        StateStore {
            width,
            cell: 1,
            chunks: Vec::new(),
            len: 0,
            table: Table::with_capacity_bits(10),
            encoded: Vec::new(),
            hashes: Vec::new(),
        }
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

    fn bytes_of(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let size = self.row_bytes();
        let start = (id % CHUNK_ROWS) * size;
        &self.chunks[id / CHUNK_ROWS][start..start + size]
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

    /// The id of `row`, adding it if it is new (then `true`), unless
    /// adding it would pass `meter`'s state or memory budget.
    pub fn insert_within(&mut self, row: &[u32], meter: &Meter) -> Result<(u32, bool), Stopped> {
        self.insert_hashed(row, hash_row(row), meter)
    }

    /// Inserts rows of `self.width` numbers laid end to end, pushing each
    /// one's `(id, new)` onto `out`, until one would pass `meter`'s
    /// budget: then `out` holds the rows before it.
    pub fn insert_all(
        &mut self,
        rows: &[u32],
        out: &mut Vec<(u32, bool)>,
        meter: &Meter,
    ) -> Result<(), Stopped> {
        let width = self.width.max(1);
        self.hashes.clear();
        for row in rows.chunks_exact(width) {
            let hash = hash_row(row);
            self.table.prefetch(hash);
            self.hashes.push(hash);
        }
        let hashes = std::mem::take(&mut self.hashes);
        let mut result = Ok(());
        for (row, &hash) in rows.chunks_exact(width).zip(&hashes) {
            match self.insert_hashed(row, hash, meter) {
                Ok(found) => out.push(found),
                Err(stop) => {
                    result = Err(stop);
                    break;
                }
            }
        }
        self.hashes = hashes;
        result
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
            let (chunks, encoded) = (&self.chunks, &self.encoded);
            let found = self.table.find(hash, |id| {
                let id = id as usize;
                let start = (id % CHUNK_ROWS) * size;
                &chunks[id / CHUNK_ROWS][start..start + size] == encoded.as_slice()
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
        if self.table.full_after_one_more() {
            meter.may_allocate(self.table.bytes() * 2)?;
        }
        if cell > self.cell {
            // Widening re-encodes every row through `encoded`.
            self.widen(cell);
            self.encoded.clear();
            encode(row, cell, &mut self.encoded);
        }
        let id = self.len as u32;
        self.push_encoded();
        self.table.add(hash, id, slot);
        Ok((id, true))
    }

    fn push_encoded(&mut self) {
        let size = self.row_bytes();
        if self.len.is_multiple_of(CHUNK_ROWS) {
            self.chunks
                .push(vec![0; CHUNK_ROWS * size.max(1)].into_boxed_slice());
        }
        let start = (self.len % CHUNK_ROWS) * size;
        self.chunks[self.len / CHUNK_ROWS][start..start + size].copy_from_slice(&self.encoded);
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
            let start = (id % CHUNK_ROWS) * old_size;
            row.clear();
            decode(
                &chunks[id / CHUNK_ROWS][start..start + old_size],
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
struct Table {
    slots: Vec<u64>,
    bits: u32,
    used: usize,
}

impl Table {
    fn with_capacity_bits(bits: u32) -> Table {
        Table {
            slots: vec![0; 1 << bits],
            bits,
            used: 0,
        }
    }

    fn home(&self, hash: u32) -> usize {
        ((hash as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    fn prefetch(&self, hash: u32) {
        let slot = &self.slots[self.home(hash)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: prefetching is a hint; the address is a live element.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>((slot as *const u64).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// The id whose hash is `hash` and for which `same` holds, or the
    /// empty slot where it would go.
    fn find(&self, hash: u32, same: impl Fn(u32) -> bool) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(hash);
        loop {
            let word = self.slots[i];
            if word == 0 {
                return Err(i);
            }
            if (word >> 32) as u32 == hash && same((word as u32) - 1) {
                return Ok((word as u32) - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether adding one more id fills the table to three quarters,
    /// where it doubles.
    fn full_after_one_more(&self) -> bool {
        (self.used + 1) * 4 >= self.slots.len() * 3
    }

    fn bytes(&self) -> u64 {
        (self.slots.len() * std::mem::size_of::<u64>()) as u64
    }

    /// Adds `id`, whose row is not in the table yet, into the empty slot
    /// `find` returned (or the first one its probe meets), growing when
    /// three quarters full.
    fn add(&mut self, hash: u32, id: u32, slot: Option<usize>) {
        let slot = slot.unwrap_or_else(|| match self.find(hash, |_| false) {
            Err(slot) => slot,
            Ok(_) => unreachable!("nothing matches"),
        });
        self.slots[slot] = ((hash as u64) << 32) | (id as u64 + 1);
        self.used += 1;
        if self.used * 4 >= self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, vec![0; 1 << (self.bits + 1)]);
        self.bits += 1;
        let mask = self.slots.len() - 1;
        for word in old.into_iter().filter(|&w| w != 0) {
            let mut i = self.home((word >> 32) as u32);
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = word;
        }
    }
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

fn hash_row(row: &[u32]) -> u32 {
    let mut h = FxBuildHasher.build_hasher();
    for &x in row {
        h.write_u32(x);
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
        let stopped = store.insert_all(&rows, &mut ids, &meter);
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
            store.insert_all(&rows, &mut ids, &tight),
            Err(Stopped::Memory)
        );
        // The table (1024 slots) doubles at three quarters full: the row
        // that needed it was refused, the ones before are there.
        assert_eq!(store.len(), 767);
        assert!((0..767).all(|i| store.insert(&row(i)) == (i, false)));
    }

    #[test]
    fn a_batch_inserts_like_one_at_a_time() {
        let mut one = StateStore::new(2);
        let mut batch = StateStore::new(2);
        let rows: Vec<u32> = (0..5000u32).flat_map(|i| [i % 61, i % 17]).collect();
        let mut ids = Vec::new();
        batch
            .insert_all(&rows, &mut ids, &Meter::unlimited())
            .unwrap();
        let expected: Vec<(u32, bool)> = rows.chunks(2).map(|r| one.insert(r)).collect();
        assert_eq!(ids, expected);
        assert_eq!(batch.len(), 61 * 17);
    }
}

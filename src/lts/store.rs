//! The store of system states: fixed-width rows of component state ids,
//! packed into fixed-size chunks (no per-state allocation, no copying as
//! it grows), with a hash table of row indices. A state's id is its row
//! index, so states are numbered in the order they were found.

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Rows per chunk.
const CHUNK_ROWS: usize = 1 << 14;

pub struct StateStore {
    width: usize,
    chunks: Vec<Box<[u32]>>,
    len: usize,
    table: HashTable<u32>,
}

impl StateStore {
    pub fn new(width: usize) -> StateStore {
        StateStore {
            width,
            chunks: Vec::new(),
            len: 0,
            table: HashTable::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The row of state `id`.
    pub fn get(&self, id: u32) -> &[u32] {
        let id = id as usize;
        let start = (id % CHUNK_ROWS) * self.width;
        &self.chunks[id / CHUNK_ROWS][start..start + self.width]
    }

    /// The id of `state`, adding it if it is new (then `true`).
    pub fn insert(&mut self, state: &[u32]) -> (u32, bool) {
        debug_assert_eq!(state.len(), self.width);
        let hash = hash_row(state);
        let (chunks, width) = (&self.chunks, self.width);
        let row = |id: u32| {
            let id = id as usize;
            let start = (id % CHUNK_ROWS) * width;
            &chunks[id / CHUNK_ROWS][start..start + width]
        };
        if let Some(&id) = self.table.find(hash, |&id| row(id) == state) {
            return (id, false);
        }
        let id = self.len as u32;
        if self.len.is_multiple_of(CHUNK_ROWS) {
            self.chunks
                .push(vec![0; CHUNK_ROWS * self.width.max(1)].into_boxed_slice());
        }
        let start = (self.len % CHUNK_ROWS) * self.width;
        self.chunks[self.len / CHUNK_ROWS][start..start + self.width].copy_from_slice(state);
        self.len += 1;
        let (chunks, width) = (&self.chunks, self.width);
        self.table.insert_unique(hash, id, |&id| {
            let id = id as usize;
            let start = (id % CHUNK_ROWS) * width;
            hash_row(&chunks[id / CHUNK_ROWS][start..start + width])
        });
        (id, true)
    }

    /// Bytes held, for memory reports.
    pub fn bytes(&self) -> usize {
        self.chunks.len() * CHUNK_ROWS * self.width * 4 + self.table.capacity() * 5
    }
}

fn hash_row(row: &[u32]) -> u64 {
    let mut h = FxBuildHasher.build_hasher();
    row.hash(&mut h);
    std::hash::Hasher::finish(&h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_rows_get_one_id_in_the_order_found() {
        let mut store = StateStore::new(3);
        assert_eq!(store.insert(&[1, 2, 3]), (0, true));
        assert_eq!(store.insert(&[3, 2, 1]), (1, true));
        assert_eq!(store.insert(&[1, 2, 3]), (0, false));
        assert_eq!(store.get(1), &[3, 2, 1]);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn rows_survive_many_chunks() {
        let mut store = StateStore::new(2);
        for i in 0..(3 * CHUNK_ROWS as u32) {
            assert_eq!(store.insert(&[i, i / 7]), (i, true));
        }
        for i in (0..(3 * CHUNK_ROWS as u32)).step_by(997) {
            assert_eq!(store.get(i), &[i, i / 7]);
            assert_eq!(store.insert(&[i, i / 7]), (i, false));
        }
    }
}

//! The index of the states a [`super::StateStore`] has moved to disk:
//! which id a row has among them, if any.
//!
//! Each spill writes one *run*: the `(hash, id)` pairs of the rows it
//! moved, sorted by a 64-bit hash of the row ([`wide_hash`]), in blocks
//! of [`BLOCK_ENTRIES`] entries (a page). In memory a run keeps the first
//! hash of each block and a Bloom filter of its hashes, about
//! [`BLOOM_BITS`] bits a state. A row the in-memory index does not hold
//! is asked of each run whose filter may hold it, newest first: one page
//! read (the system's cache holds recent ones) and the candidates' rows
//! compared. A row new to the store passes every filter but a few in a
//! thousand, so most new rows cost no read at all.

use std::sync::Arc;

use crate::budget::Stopped;
use crate::budget::disk::SpillFile;

/// Entries of a run per block: a block is one page.
const BLOCK_ENTRIES: usize = 4096 / ENTRY;
/// Bytes per entry: the hash, then the id.
const ENTRY: usize = 12;
/// Bloom filter bits per state, and the bits each state sets: about
/// three false positives in a thousand.
const BLOOM_BITS: usize = 12;
const BLOOM_PROBES: u32 = 6;

/// The spilled states' index: its runs, oldest first.
#[derive(Default)]
pub(super) struct Spilled {
    runs: Vec<Run>,
}

struct Run {
    file: Arc<SpillFile>,
    /// Where the entries start in the file.
    at: u64,
    len: usize,
    /// The hash of each block's first entry.
    firsts: Vec<u64>,
    bloom: Vec<u64>,
}

/// A run written to its file, not yet in the index.
pub(super) struct Written {
    at: u64,
    len: usize,
    firsts: Vec<u64>,
    bloom: Vec<u64>,
}

/// Writes a run of `(hash, id)` pairs (in any order) to `file`, after
/// what it holds.
pub(super) fn write_run(
    file: &mut SpillFile,
    mut entries: Vec<(u64, u32)>,
) -> Result<Written, Stopped> {
    entries.sort_unstable();
    let mut bytes = Vec::with_capacity(entries.len() * ENTRY);
    for &(hash, id) in &entries {
        bytes.extend_from_slice(&hash.to_le_bytes());
        bytes.extend_from_slice(&id.to_le_bytes());
    }
    let at = file.write(&bytes)?;
    let bits = (entries.len() * BLOOM_BITS).next_power_of_two().max(64);
    let mut bloom = vec![0u64; bits / 64];
    for &(hash, _) in &entries {
        for bit in probes(hash, bits) {
            bloom[bit / 64] |= 1 << (bit % 64);
        }
    }
    let firsts = entries.chunks(BLOCK_ENTRIES).map(|block| block[0].0);
    Ok(Written {
        at,
        len: entries.len(),
        firsts: firsts.collect(),
        bloom,
    })
}

impl Spilled {
    /// Adds the run `written` to `file`.
    pub(super) fn add(&mut self, file: Arc<SpillFile>, written: Written) {
        let Written {
            at,
            len,
            firsts,
            bloom,
        } = written;
        self.runs.push(Run {
            file,
            at,
            len,
            firsts,
            bloom,
        });
    }

    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The id of the spilled row of hash `hash` for which `same` holds.
    pub(super) fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        self.runs
            .iter()
            .rev()
            .filter(|run| run.may_hold(hash))
            .find_map(|run| run.find(hash, &same))
    }

    /// Bytes the runs keep in memory.
    pub(super) fn bytes(&self) -> u64 {
        let run = |r: &Run| 8 * (r.firsts.len() + r.bloom.len()) as u64;
        self.runs.iter().map(run).sum()
    }
}

impl Run {
    fn may_hold(&self, hash: u64) -> bool {
        let bits = self.bloom.len() * 64;
        probes(hash, bits).all(|bit| self.bloom[bit / 64] & (1 << (bit % 64)) != 0)
    }

    fn find(&self, hash: u64, same: &impl Fn(u32) -> bool) -> Option<u32> {
        // Equal hashes may begin in the block before the first whose
        // first hash is not below this one.
        let mut block = self.firsts.partition_point(|&first| first < hash);
        block = block.saturating_sub(1);
        let mut page = [0u8; BLOCK_ENTRIES * ENTRY];
        while block < self.firsts.len() {
            let first = block * BLOCK_ENTRIES;
            let entries = (self.len - first).min(BLOCK_ENTRIES);
            let bytes = &mut page[..entries * ENTRY];
            self.file.read(self.at + (first * ENTRY) as u64, bytes);
            for entry in bytes.chunks_exact(ENTRY) {
                let at = u64::from_le_bytes(entry[..8].try_into().expect("a hash"));
                if at > hash {
                    return None;
                }
                let id = u32::from_le_bytes(entry[8..].try_into().expect("an id"));
                if at == hash && same(id) {
                    return Some(id);
                }
            }
            block += 1;
        }
        None
    }
}

/// The filter bits of `hash` among `bits` (a power of two): double
/// hashing from its two halves.
fn probes(hash: u64, bits: usize) -> impl Iterator<Item = usize> {
    let (low, high) = (hash as u32, (hash >> 32) as u32 | 1);
    let mask = bits - 1;
    (0..BLOOM_PROBES).map(move |i| low.wrapping_add(i.wrapping_mul(high)) as usize & mask)
}

/// A 64-bit hash of a row's numbers, other than the in-memory index's
/// 32-bit one: at a billion states, a 32-bit hash would leave a quarter
/// of the values taken, and every filter would pass a quarter of new
/// rows.
pub(super) fn wide_hash(row: &[u32]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    for &x in row {
        h = (h ^ u64::from(x))
            .wrapping_mul(0x100_0000_01B3)
            .rotate_left(29);
    }
    // splitmix64's finaliser, so that every bit depends on every number.
    h ^= h >> 30;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

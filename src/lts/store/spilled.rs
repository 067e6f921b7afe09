//! The index of the states a [`super::StateStore`] has moved to disk:
//! which id a row has among them, if any.
//!
//! It is a few sorted runs on disk: the `(key, id)` pairs of the spilled
//! rows, the key the top [`KEY_BITS`] bits of a 64-bit hash of the row
//! ([`wide_hash`]), sorted by key, in blocks of [`BLOCK_ENTRIES`]
//! entries. Each spill makes one run of the rows it moves (sorted a
//! piece at a time, the pieces merged in one pass), and runs of like
//! sizes are merged, streaming, so that they grow geometrically
//! ([`RUN_RATIO`]); a merge gives back the disk of what it has read as
//! it goes, so the folder holds about one copy of the index. In memory
//! a run keeps the first key of each block and a blocked Bloom filter
//! of its keys, [`BLOOM_BITS`] bits a state, all of a key's bits in one
//! cache line. A row the in-memory index does not hold is asked of each
//! run's filter (a cache miss each), and only where it may be, of the
//! run: one block read (the system's cache holds recent ones), and the
//! candidates' rows compared. A row new to the store passes a filter
//! about twice in a hundred times, so most new rows cost no read.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex};

use crate::budget::Stopped;
use crate::budget::disk::{Spill, SpillFile};

/// Entries of the run per block, which a lookup reads: 288 bytes, at a
/// quarter of a byte of memory a state for the block's first key.
/// (Blocks of a page cost a lookup ten times the copying.)
const BLOCK_ENTRIES: usize = 32;
/// Bits of a row's hash a run keeps: among 10^9 rows, two share a key
/// once in a thousand lookups (each such costs a row read).
const KEY_BITS: u32 = 40;
const KEY_BYTES: usize = KEY_BITS as usize / 8;
/// Bytes per entry: the key, then the id.
const ENTRY: usize = KEY_BYTES + 4;
/// Bloom filter bits per state: about two new rows in a hundred pass.
const BLOOM_BITS: usize = 8;
/// Bits each key sets, all in one block of [`LINE_WORDS`] words.
const BLOOM_PROBES: u32 = 6;
const LINE_WORDS: usize = 8;
/// Entries read or written at a time while merging.
const STREAM_ENTRIES: usize = 1 << 16;

/// The spilled states' index: its runs, oldest (largest) first, and the
/// rows found among them lately.
#[derive(Default)]
pub(super) struct Spilled {
    runs: Vec<Run>,
    recent: Mutex<Recent>,
}

/// The spilled rows found lately, each under its hash in one of
/// [`RECENT_SLOTS`] slots, packed as new rows are then packed: a row
/// met again (an old state many new ones lead back to, as a queue's
/// empty state) is known without reading the disk. Its packing is
/// named by the rows' packing generation: a widening empties it. Rows
/// too wide for a useful number of slots are not kept.
#[derive(Default)]
struct Recent {
    generation: usize,
    row_bytes: usize,
    /// `(hash, id + 1)` per slot, 0 for none.
    slots: Vec<(u64, u32)>,
    rows: Vec<u8>,
}

/// The bytes [`Recent`] may take, and the most slots it has: 65 536 for
/// rows of up to eight bytes, fewer for wider rows, none for rows wider
/// than [`RECENT_BYTES`] / 64.
const RECENT_BYTES: usize = 1_536 * 1024;
const RECENT_SLOTS: usize = 1 << 16;

impl Recent {
    /// The slot of `hash` among `slots` (a power of two).
    fn slot(hash: u64, slots: usize) -> usize {
        (hash >> 40) as usize & (slots - 1)
    }

    /// The slots for rows of `row_bytes`: a power of two, at most
    /// [`RECENT_SLOTS`], within [`RECENT_BYTES`] (none when 64 do not fit).
    fn slots_for(row_bytes: usize) -> usize {
        let fit = RECENT_BYTES / (size_of::<(u64, u32)>() + row_bytes);
        match fit.min(RECENT_SLOTS) {
            fit if fit < 64 => 0,
            fit => 1 << fit.ilog2(),
        }
    }

    fn get(&self, hash: u64, encoded: &[u8], generation: usize) -> Option<u32> {
        if self.generation != generation || self.row_bytes != encoded.len() {
            return None;
        }
        if self.slots.is_empty() {
            return None;
        }
        let slot = Recent::slot(hash, self.slots.len());
        let (held, id) = self.slots[slot];
        let bytes = &self.rows[slot * self.row_bytes..(slot + 1) * self.row_bytes];
        (held == hash && id > 0 && bytes == encoded).then(|| id - 1)
    }

    fn put(&mut self, hash: u64, encoded: &[u8], generation: usize, id: u32) {
        if self.row_bytes != encoded.len() || self.slots.is_empty() {
            let slots = Recent::slots_for(encoded.len());
            *self = Recent {
                generation,
                row_bytes: encoded.len(),
                slots: vec![(0, 0); slots],
                rows: vec![0; slots * encoded.len()],
            };
        } else if self.generation != generation {
            // Packed anew, the rows it holds mean nothing: forgotten, in
            // place.
            self.generation = generation;
            self.slots.fill((0, 0));
        }
        if self.slots.is_empty() {
            return;
        }
        let slot = Recent::slot(hash, self.slots.len());
        self.slots[slot] = (hash, id + 1);
        self.rows[slot * self.row_bytes..(slot + 1) * self.row_bytes].copy_from_slice(encoded);
    }
}

struct Run {
    /// The file it is in, from byte `at` (a spill's pieces share one).
    file: Arc<SpillFile>,
    at: u64,
    len: usize,
    /// The key of each block's first entry.
    firsts: Vec<u64>,
    bloom: Vec<u64>,
}

impl Spilled {
    /// Adds the pairs `(hash, id)` of the rows of one spill, given a
    /// piece at a time (each in any order, so that memory holds one
    /// piece's pairs at once): each piece is sorted into a run of its
    /// own in a file of `spill` (unindexed), and the pieces are merged at
    /// once into one run. Then the newest two runs are merged while the older is
    /// less than [`RUN_RATIO`] times the newer. So runs grow
    /// geometrically: a few of them, and each pair written a few times.
    pub(super) fn add(
        &mut self,
        spill: &Arc<Spill>,
        pieces: impl IntoIterator<Item = Vec<(u64, u32)>>,
    ) -> Result<(), Stopped> {
        let mut sorted = Vec::new();
        let mut pieces_file = None;
        for mut entries in pieces {
            entries.sort_unstable();
            let file = match &pieces_file {
                Some(file) => Arc::clone(file),
                None => Arc::clone(pieces_file.insert(Arc::new(spill.file()?))),
            };
            // Only streamed into the merge: no filter, no block heads.
            let mut run = Builder::new(file, entries.len(), false);
            for (hash, id) in entries {
                run.push((key(hash), id))?;
            }
            sorted.push(run.finish()?);
        }
        if sorted.is_empty() {
            return Ok(());
        }
        let run = merge(spill, &sorted)?;
        // The pieces' file goes with the last of them.
        drop((sorted, pieces_file));
        self.runs.push(run);
        while let [.., older, newer] = &self.runs[..]
            && older.len < RUN_RATIO * newer.len
        {
            let merged = merge(spill, &self.runs[self.runs.len() - 2..])?;
            self.runs.truncate(self.runs.len() - 2);
            self.runs.push(merged);
        }
        Ok(())
    }

    /// The id of the spilled row of hash `hash` for which `same` holds.
    pub(super) fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        let key = key(hash);
        self.runs
            .iter()
            .rev()
            .filter(|run| run.may_hold(key))
            .find_map(|run| run.find(key, &same))
    }

    /// [`Spilled::find`] for a row packed as `encoded` by the rows'
    /// packing generation `generation`, asked first of the rows found
    /// lately.
    pub(super) fn find_packed(
        &self,
        hash: u64,
        (encoded, generation): (&[u8], usize),
        same: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        // Most rows asked are new, and no filter holds them: that is
        // settled without the lock.
        if !self.runs.iter().any(|run| run.may_hold(key(hash))) {
            return None;
        }
        let recent = |f: &mut dyn FnMut(&mut Recent)| {
            let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut recent);
        };
        let mut known = None;
        recent(&mut |r| known = r.get(hash, encoded, generation));
        if known.is_some() {
            return known;
        }
        let found = self.find(hash, same)?;
        recent(&mut |r| r.put(hash, encoded, generation, found));
        Some(found)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Bytes the runs and the rows found lately keep in memory.
    pub(super) fn bytes(&self) -> u64 {
        let run = |run: &Run| 8 * (run.firsts.len() + run.bloom.len()) as u64;
        let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        let recent = size_of::<(u64, u32)>() * recent.slots.len() + recent.rows.len();
        self.runs.iter().map(run).sum::<u64>() + recent as u64
    }
}

/// How much larger than the next a run is kept apart from it.
const RUN_RATIO: usize = 4;

/// Bytes a merge reads ahead, over all its runs.
const MERGE_READ_BYTES: usize = 4 << 20;

/// `runs` merged into a new file of `spill`, each read a stretch at a
/// time (and its disk given back as it is read): the least entry next,
/// from a heap of each run's next.
fn merge(spill: &Arc<Spill>, runs: &[Run]) -> Result<Run, Stopped> {
    let file = Arc::new(spill.file()?);
    let mut merged = Builder::new(file, runs.iter().map(|run| run.len).sum(), true);
    let stretch = (MERGE_READ_BYTES / ENTRY / runs.len()).clamp(256, STREAM_ENTRIES);
    let mut streams: Vec<Stream> = runs.iter().map(|run| Stream::new(run, stretch)).collect();
    let mut heads: BinaryHeap<Reverse<((u64, u32), usize)>> = streams
        .iter_mut()
        .enumerate()
        .filter_map(|(k, stream)| Some(Reverse((stream.peek()?, k))))
        .collect();
    while let Some(Reverse((entry, k))) = heads.pop() {
        merged.push(entry)?;
        let stream = &mut streams[k];
        stream.next();
        if let Some(next) = stream.peek() {
            heads.push(Reverse((next, k)));
        }
    }
    merged.finish()
}

/// A run read in order, a stretch of entries at a time.
struct Stream<'r> {
    run: &'r Run,
    stretch: usize,
    buffer: Vec<u8>,
    /// The entry the buffer starts with, and the next to give.
    start: usize,
    at: usize,
}

impl<'r> Stream<'r> {
    fn new(run: &'r Run, stretch: usize) -> Stream<'r> {
        Stream {
            run,
            stretch,
            buffer: Vec::new(),
            start: 0,
            at: 0,
        }
    }

    /// Where entry `k` of the run is in its file.
    fn place(&self, k: usize) -> u64 {
        self.run.at + (k * ENTRY) as u64
    }

    fn peek(&mut self) -> Option<(u64, u32)> {
        if self.at == self.run.len {
            return None;
        }
        if self.at == self.start + self.buffer.len() / ENTRY {
            // What was read is not read again: the merged run holds it.
            (self.run.file).release(self.place(self.start)..self.place(self.at));
            let count = (self.run.len - self.at).min(self.stretch);
            self.buffer.resize(count * ENTRY, 0);
            if !self.run.file.read(self.place(self.at), &mut self.buffer) {
                // The folder failed (recorded): the merge ends here, and
                // the search stops.
                self.at = self.run.len;
                return None;
            }
            self.start = self.at;
        }
        let k = self.at - self.start;
        Some(decode(&self.buffer[k * ENTRY..(k + 1) * ENTRY]))
    }

    fn next(&mut self) -> (u64, u32) {
        let entry = self.peek().expect("an entry left");
        self.at += 1;
        entry
    }
}

/// A run being written, entry by entry in order.
struct Builder {
    file: Arc<SpillFile>,
    /// Where its first entry went (once written).
    at: Option<u64>,
    len: usize,
    buffer: Vec<u8>,
    firsts: Vec<u64>,
    bloom: Vec<u64>,
}

impl Builder {
    /// A run of `len` entries, to be appended to `file`, which nothing
    /// else appends to meanwhile; `indexed`, with the filter and block
    /// heads a lookup needs (a run only merged needs neither).
    fn new(file: Arc<SpillFile>, len: usize, indexed: bool) -> Builder {
        let lines = (len * BLOOM_BITS).div_ceil(64 * LINE_WORDS).max(1);
        let (firsts, bloom) = match indexed {
            true => (len.div_ceil(BLOCK_ENTRIES), lines * LINE_WORDS),
            false => (0, 0),
        };
        Builder {
            file,
            at: None,
            len: 0,
            buffer: Vec::with_capacity(STREAM_ENTRIES * ENTRY),
            firsts: Vec::with_capacity(firsts),
            bloom: vec![0; bloom],
        }
    }

    fn push(&mut self, (key, id): (u64, u32)) -> Result<(), Stopped> {
        if !self.bloom.is_empty() {
            if self.len.is_multiple_of(BLOCK_ENTRIES) {
                self.firsts.push(key);
            }
            let (line, bits) = bloom_bits(key, self.bloom.len() / LINE_WORDS);
            for bit in bits {
                self.bloom[line * LINE_WORDS + bit / 64] |= 1 << (bit % 64);
            }
        }
        self.buffer
            .extend_from_slice(&key.to_le_bytes()[..KEY_BYTES]);
        self.buffer.extend_from_slice(&id.to_le_bytes());
        self.len += 1;
        if self.buffer.len() >= STREAM_ENTRIES * ENTRY {
            self.write()?;
        }
        Ok(())
    }

    fn write(&mut self) -> Result<(), Stopped> {
        let at = self.file.write(&self.buffer)?;
        let first = *self.at.get_or_insert(at);
        debug_assert_eq!(
            at + self.buffer.len() as u64,
            first + (self.len * ENTRY) as u64
        );
        self.buffer.clear();
        Ok(())
    }

    fn finish(mut self) -> Result<Run, Stopped> {
        self.write()?;
        Ok(Run {
            at: self.at.expect("written"),
            file: self.file,
            len: self.len,
            firsts: self.firsts,
            bloom: self.bloom,
        })
    }
}

impl Run {
    fn may_hold(&self, key: u64) -> bool {
        let (line, mut bits) = bloom_bits(key, self.bloom.len() / LINE_WORDS);
        let words = &self.bloom[line * LINE_WORDS..(line + 1) * LINE_WORDS];
        bits.all(|bit| words[bit / 64] & (1 << (bit % 64)) != 0)
    }

    fn find(&self, key: u64, same: &impl Fn(u32) -> bool) -> Option<u32> {
        // Equal keys may begin in the block before the first whose
        // first key is not below this one.
        let mut block = self.firsts.partition_point(|&first| first < key);
        block = block.saturating_sub(1);
        let mut page = [0u8; BLOCK_ENTRIES * ENTRY];
        while block < self.firsts.len() {
            let first = block * BLOCK_ENTRIES;
            let entries = (self.len - first).min(BLOCK_ENTRIES);
            let bytes = &mut page[..entries * ENTRY];
            if !self.file.read(self.at + (first * ENTRY) as u64, bytes) {
                return None;
            }
            let key_of = |k: usize| decode(&bytes[k * ENTRY..(k + 1) * ENTRY]).0;
            // The first entry of the key, found by halving.
            let (mut low, mut high) = (0, entries);
            while low < high {
                let middle = (low + high) / 2;
                if key_of(middle) < key {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            for entry in bytes[low * ENTRY..].chunks_exact(ENTRY) {
                let (at, id) = decode(entry);
                if at > key {
                    return None;
                }
                if same(id) {
                    return Some(id);
                }
            }
            block += 1;
        }
        None
    }
}

/// The key a run keeps of a row's 64-bit hash: its top bits.
fn key(hash: u64) -> u64 {
    hash >> (64 - KEY_BITS)
}

fn decode(entry: &[u8]) -> (u64, u32) {
    let mut key = [0u8; 8];
    key[..KEY_BYTES].copy_from_slice(&entry[..KEY_BYTES]);
    let id = u32::from_le_bytes(entry[KEY_BYTES..].try_into().expect("an id"));
    (u64::from_le_bytes(key), id)
}

/// The filter line of `key` among `lines`, and its bits there: the line
/// from the key's top 32 bits, the bits from a second mix of it.
fn bloom_bits(key: u64, lines: usize) -> (usize, impl Iterator<Item = usize>) {
    let line = (((key >> (KEY_BITS - 32)) * lines as u64) >> 32) as usize;
    let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let bits = (0..BLOOM_PROBES).map(move |i| ((mixed >> (9 * i)) & 511) as usize);
    (line, bits)
}

/// A 64-bit hash of a row's numbers, other than the in-memory index's
/// 32-bit one: at a billion states, a 32-bit hash would leave a quarter
/// of the values taken, and the filter would pass a quarter of new rows.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_runs_find_every_pair_and_the_filter_passes_few_others() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), None).unwrap();
        let mut spilled = Spilled::default();
        let hash = |i: u32| wide_hash(&[i, i / 3]);
        // Three spills, the second of many pairs with equal hashes, as
        // rows hashing alike would give.
        spilled
            .add(&spill, [(0..5000).map(|i| (hash(i), i)).collect()])
            .unwrap();
        let alike: Vec<(u64, u32)> = (5000..6000).map(|i| (hash(7), i)).collect();
        spilled.add(&spill, [alike]).unwrap();
        // The third spill in three pieces, merged into one run at once.
        let pieces = (6000..20_000).step_by(5000).map(|from| {
            (from..(from + 5000).min(20_000))
                .map(|i| (hash(i), i))
                .collect()
        });
        spilled.add(&spill, pieces).unwrap();
        for i in (0..20_000)
            .step_by(13)
            .filter(|i| !(5000..6000).contains(i))
        {
            assert_eq!(spilled.find(hash(i), |id| id == i), Some(i), "{i}");
        }
        assert_eq!(spilled.find(hash(7), |id| id == 5999), Some(5999));
        assert_eq!(spilled.find(hash(3), |_| false), None);
        let passed = (20_000..120_000)
            .filter(|&i| spilled.runs.iter().any(|run| run.may_hold(key(hash(i)))))
            .count();
        assert!(
            passed < 4_000,
            "{passed} of 100 000 new rows pass the filters"
        );
        // The three runs were merged into one, the only one on disk.
        assert_eq!(spilled.runs.len(), 1);
        assert_eq!(spill.used(), 20_000 * ENTRY as u64);
    }
}

//! One shard of a [`super::StateStore`]'s index: a linear-probing table
//! of five-byte entries, a byte of the row's hash (its tag) and the row's
//! id.
//!
//! The tag settles most lookups without the row: an entry whose tag
//! differs is passed over, so a probe reads its row only for one in 254
//! of the entries it passes besides the one it looks for. The full hash
//! is not kept: a table that doubles hashes its rows again, read from
//! the store ahead of their use so their cache misses overlap. An entry
//! takes five bytes where a word of hash and id took eight.

use super::rows::Rows;
use super::{SHARDS, prefetch};

/// Bytes per entry: the tag, then the id's four bytes.
const ENTRY: usize = 5;
/// Bytes past the last entry, so that every entry is read as a word.
const PAD: usize = 8 - ENTRY;

/// The tag of an empty place.
const EMPTY: u8 = 0;
/// The tag of a place held for a row that was not stored after all,
/// which lookups pass over.
const GONE: u8 = 1;

/// Marks an entry that holds a place for the batch's row `k`.
const PENDING: u32 = 1 << 31;

/// The tag of a row of hash `hash`: its top byte, never [`EMPTY`] or
/// [`GONE`]. (Its lowest bits name the shard, and all of it the home.)
#[inline]
fn tag(hash: u32) -> u8 {
    ((hash >> 24) as u8).max(GONE + 1)
}

/// What a lookup found.
pub(in crate::lts) enum Probe {
    /// The stored id.
    Stored(u32),
    /// The row of the batch that holds its place.
    Pending(u32),
    /// Not there: the empty slot where it goes.
    Empty(usize),
}

/// Linear-probing table of `(tag, id)` entries. While a batch is stored,
/// a row new to the store holds its place with `(tag, PENDING | k)` (`k`:
/// its place in the batch).
pub(in crate::lts) struct Table {
    entries: Vec<u8>,
    bits: u32,
    used: usize,
    /// Entries per 256 slots at which the table doubles.
    fill: usize,
}

impl Table {
    /// The table of shard `shard`. The shards fill alike (a row's shard is
    /// its hash's), so with one threshold they would all double within
    /// the same batch: the whole index rebuilt at once, tens of
    /// milliseconds at millions of states on the search's thread while
    /// the others wait. Each shard doubles at its own fill instead, from
    /// 84 % down to 72 %, so their doublings are spread over the last
    /// seventh of the stores before the first would double. (Fuller
    /// tables cost little with tags: a probe passes an entry by its tag.
    /// From 88 % down, dining took 4 % longer.)
    pub(super) fn for_shard(shard: usize) -> Table {
        Table {
            entries: empty_entries(16),
            bits: 4,
            used: 0,
            fill: 216 - 32 * shard / SHARDS,
        }
    }

    fn slots(&self) -> usize {
        1 << self.bits
    }

    fn home(&self, hash: u32) -> usize {
        ((hash as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// The tag and value of slot `i`.
    #[inline]
    fn at(&self, i: usize) -> (u8, u32) {
        let start = i * ENTRY;
        let word = u64::from_le_bytes(
            self.entries[start..start + 8]
                .try_into()
                .expect("a slot is read as a word"),
        );
        (word as u8, (word >> 8) as u32)
    }

    fn set(&mut self, i: usize, tag: u8, value: u32) {
        let start = i * ENTRY;
        self.entries[start] = tag;
        self.entries[start + 1..start + ENTRY].copy_from_slice(&value.to_le_bytes());
    }

    pub(in crate::lts) fn prefetch(&self, hash: u32) {
        prefetch(&self.entries[self.home(hash) * ENTRY]);
    }

    /// The stored id in the home slot of `hash`, if the slot holds one of
    /// that hash's tag: where a lookup of it most likely ends.
    pub(super) fn at_home(&self, hash: u32) -> Option<u32> {
        let (found, value) = self.at(self.home(hash));
        (found == tag(hash) && value & PENDING == 0).then_some(value)
    }

    /// The id whose hash is `hash` and for which `same` holds, or the
    /// empty slot where it would go.
    pub(super) fn find(&self, hash: u32, same: impl Fn(u32) -> bool) -> Result<u32, usize> {
        match self.probe(hash, same, |_| false) {
            Probe::Stored(id) => Ok(id),
            Probe::Pending(_) => unreachable!("no batch is being stored"),
            Probe::Empty(slot) => Err(slot),
        }
    }

    /// The stored id whose hash is `hash` and for which `stored` holds,
    /// or the place held for a batch row `k` for which `pending(k)`
    /// holds, or the empty slot where it would go.
    pub(in crate::lts) fn probe(
        &self,
        hash: u32,
        stored: impl Fn(u32) -> bool,
        pending: impl Fn(u32) -> bool,
    ) -> Probe {
        let mask = self.slots() - 1;
        let wanted = tag(hash);
        let mut i = self.home(hash);
        loop {
            let (found, value) = self.at(i);
            if found == EMPTY {
                return Probe::Empty(i);
            }
            if found == wanted {
                if value & PENDING != 0 {
                    if pending(value & !PENDING) {
                        return Probe::Pending(value & !PENDING);
                    }
                } else if stored(value) {
                    return Probe::Stored(value);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `more` entries would fill the table to where it doubles.
    pub(in crate::lts) fn full_after(&self, more: usize) -> bool {
        self.over(self.used + more, self.slots())
    }

    /// Whether `used` entries in `len` slots are past the table's fill.
    pub(super) fn over(&self, used: usize, len: usize) -> bool {
        used * 256 >= len * self.fill
    }

    pub(in crate::lts) fn bytes(&self) -> u64 {
        self.entries.len() as u64
    }

    /// Adds `id`, whose row is not in the table yet, into the empty slot
    /// `find` returned (or the first one its probe meets), growing when
    /// full to its fill (hashing `rows` again).
    pub(super) fn add(&mut self, hash: u32, id: u32, slot: Option<usize>, rows: &Rows) {
        let slot = slot.unwrap_or_else(|| match self.find(hash, |_| false) {
            Err(slot) => slot,
            Ok(_) => unreachable!("nothing matches"),
        });
        self.set(slot, tag(hash), id);
        self.used += 1;
        if self.full_after(0) {
            self.grow(rows);
        }
    }

    /// Holds empty slot `slot` for the batch's row `k`.
    pub(in crate::lts) fn hold(&mut self, hash: u32, slot: usize, k: u32) {
        self.set(slot, tag(hash), PENDING | k);
        self.used += 1;
    }

    /// Gives the place held at `slot` its id, or gives it up (`None`).
    pub(in crate::lts) fn settle(&mut self, slot: usize, id: Option<u32>) {
        let (held, _) = self.at(slot);
        match id {
            Some(id) => self.set(slot, held, id),
            None => self.set(slot, GONE, 0),
        }
    }

    /// Doubles until `more` entries fit below its fill (hashing `rows`
    /// again); no place may be held.
    pub(in crate::lts) fn make_room(&mut self, more: usize, rows: &Rows) {
        while self.full_after(more) {
            self.grow(rows);
        }
    }

    /// The bytes [`Table::make_room`] would allocate for `more`.
    pub(in crate::lts) fn room_bytes(&self, more: usize) -> u64 {
        let mut len = self.slots();
        while self.over(self.used + more, len) {
            len *= 2;
        }
        if len == self.slots() {
            0
        } else {
            (len * ENTRY + PAD) as u64 + self.rehash_bytes()
        }
    }

    /// The bytes doubling once allocates: the new entries, and the ids
    /// gathered to be hashed again.
    pub(super) fn doubling_bytes(&self) -> u64 {
        (2 * self.slots() * ENTRY + PAD) as u64 + self.rehash_bytes()
    }

    /// The ids a doubling gathers from the old entries.
    fn rehash_bytes(&self) -> u64 {
        (self.used * std::mem::size_of::<u32>()) as u64
    }

    /// Doubles, each stored row hashed again.
    fn grow(&mut self, rows: &Rows) {
        self.rebuild(self.bits + 1, rows, 0);
    }

    /// Builds the table again without the ids below `first` (their rows
    /// have left memory), at the smallest size (no larger than now) that
    /// leaves the rest room to grow by a quarter.
    pub(super) fn shrink(&mut self, rows: &Rows, first: u32) {
        let live = (0..self.slots())
            .filter(|&i| {
                let (found, value) = self.at(i);
                found > GONE && value >= first
            })
            .count();
        let mut bits = 4;
        while bits < self.bits && self.over(live + live / 4, 1 << bits) {
            bits += 1;
        }
        self.rebuild(bits, rows, first);
    }

    /// Builds the table at `2^bits` slots, each stored row from id
    /// `first` on hashed again: the rows are read a window ahead of their
    /// hashing, so their cache misses overlap.
    fn rebuild(&mut self, bits: u32, rows: &Rows, first: u32) {
        const AHEAD: usize = 16;
        let ids: Vec<u32> = (0..self.slots())
            .filter_map(|i| {
                let (found, value) = self.at(i);
                debug_assert!(found <= GONE || value & PENDING == 0, "a place is held");
                (found > GONE && value >= first).then_some(value)
            })
            .collect();
        self.bits = bits;
        self.entries = empty_entries(self.slots());
        self.used = 0;
        let mask = self.slots() - 1;
        let mut scratch = Vec::with_capacity(rows.width());
        for (k, &id) in ids.iter().enumerate() {
            if let Some(&later) = ids.get(k + AHEAD) {
                prefetch(rows.bytes_of(later).as_ptr());
            }
            let hash = rows.hash_of(id, &mut scratch);
            let mut i = self.home(hash);
            while self.at(i).0 != EMPTY {
                i = (i + 1) & mask;
            }
            self.set(i, tag(hash), id);
            self.used += 1;
        }
    }
}

/// Empty entries for `slots` slots, each page of them written once now.
/// The allocator hands a large table over as pages not yet mapped; a
/// page read first (probing) is mapped to the shared zero page, and the
/// first write to it then copies it and flushes the translation caches
/// of every thread of the process (an interrupt to each other core, per
/// page). Written first, each page is mapped once, on this thread alone.
fn empty_entries(slots: usize) -> Vec<u8> {
    const PAGE: usize = 4096;
    let mut entries = vec![0u8; slots * ENTRY + PAD];
    for i in (0..entries.len()).step_by(PAGE) {
        // Through `black_box`, so that the write of a zero onto a zero
        // is not left out.
        *std::hint::black_box(&mut entries[i]) = 0;
    }
    entries
}

//! The rows of a [`super::StateStore`]: fixed-width rows of numbers,
//! bit-packed, in fixed-size chunks (no per-state allocation, no copying
//! as the store grows).
//!
//! Each column is stored in as many bits as its largest number so far
//! needs ([`Packing`]): a component with five local states takes three
//! bits, one that never leaves its first state none. When a bigger number
//! arrives, every row is packed again once, chunk by chunk. A row is
//! then a short byte string compared whole, so a lookup compares bytes
//! and never unpacks the row it meets.

use std::sync::Arc;

use crate::budget::disk::{Spill, SpillFile};
use crate::budget::{Meter, Stopped};

use super::hash_row;

/// Rows per chunk, at most.
pub(super) const CHUNK_ROWS: usize = 1 << 14;

/// Numbers per chunk, at most (but a row, however wide, has a chunk):
/// what a widening packs again, at most. A system of thousands of
/// components widens a column at a time, thousands of times.
pub(super) const CHUNK_NUMBERS: usize = 1 << 17;

/// The most columns a row may have for each to be packed in the bits it
/// needs; wider rows take as many bits in every column.
const OWN_BITS_UP_TO: usize = 1024;

/// Bytes per chunk, at most, packed in the widest packing.
const CHUNK_BYTES: usize = 4 * CHUNK_NUMBERS;

/// Bytes after a chunk's last row, so that every number is read as one
/// eight-byte word wherever it starts.
const PAD: usize = 8;

/// The bits each column of a row is packed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Packing {
    bits: Vec<u8>,
    /// The largest number each column holds: `2^bits - 1`.
    limits: Vec<u32>,
    /// The bit of the row where each column starts.
    starts: Vec<u32>,
    row_bytes: usize,
}

impl Packing {
    fn of_bits(bits: Vec<u8>) -> Packing {
        let limits = bits.iter().map(|&b| ((1u64 << b) - 1) as u32).collect();
        let starts = bits
            .iter()
            .scan(0u32, |at, &b| {
                let start = *at;
                *at += u32::from(b);
                Some(start)
            })
            .collect();
        let total: usize = bits.iter().map(|&b| b as usize).sum();
        Packing {
            bits,
            limits,
            starts,
            row_bytes: total.div_ceil(8),
        }
    }

    /// This packing with every column widened to hold `row`'s number.
    /// Rows of more than [`OWN_BITS_UP_TO`] columns are packed alike in
    /// every column: a packing of its own for each widening column would
    /// take more than the rows (a system of thousands of components
    /// widens a column at a time, and each chunk holds a few rows).
    pub(super) fn widened_for(&self, row: &[u32]) -> Packing {
        let bits = if self.bits.len() > OWN_BITS_UP_TO {
            let widest = self.bits.iter().zip(row).map(|(&b, &x)| b.max(bits_for(x)));
            vec![widest.max().unwrap_or(0); self.bits.len()]
        } else {
            let wider = self.bits.iter().zip(row);
            wider.map(|(&b, &x)| b.max(bits_for(x))).collect()
        };
        Packing::of_bits(bits)
    }

    /// Bytes the packing takes.
    fn bytes(&self) -> u64 {
        (self.bits.len() * (1 + 4 + 4)) as u64
    }

    /// Appends `row` packed, when every number fits its column (then
    /// `true`; otherwise what was appended means nothing): bits from the
    /// lowest up, four bytes at a time and the last bytes as few as the
    /// bits left need. Fitting is checked as it packs, in one pass.
    /// (Bytes are pushed one by one rather than copied as a slice: a
    /// copy of a length known only at run time is a call.)
    #[inline]
    pub(super) fn pack(&self, row: &[u32], out: &mut Vec<u8>) -> bool {
        let mut pending: u64 = 0;
        let mut used = 0u32;
        let mut over = false;
        for ((&x, &b), &limit) in row.iter().zip(&self.bits).zip(&self.limits) {
            over |= x > limit;
            pending |= u64::from(x & limit) << used;
            used += u32::from(b);
            if used >= 32 {
                out.extend_from_slice(&(pending as u32).to_le_bytes());
                pending >>= 32;
                used -= 32;
            }
        }
        for _ in 0..used.div_ceil(8) {
            out.push(pending as u8);
            pending >>= 8;
        }
        !over
    }

    /// Column `c` of the row packed at `start` of `chunk` (padded by
    /// [`PAD`] bytes), read as one word.
    #[inline]
    fn number(&self, chunk: &[u8], start: usize, c: usize) -> u32 {
        let bit = self.starts[c] as usize;
        let at = start + bit / 8;
        let word = u64::from_le_bytes(chunk[at..at + 8].try_into().expect("a padded chunk"));
        ((word >> (bit % 8)) as u32) & self.limits[c]
    }

    /// Whether the row packed at `start` of `chunk` is `row`.
    pub(super) fn unpacks_to(&self, chunk: &[u8], start: usize, row: &[u32]) -> bool {
        row.iter()
            .enumerate()
            .all(|(c, &x)| self.number(chunk, start, c) == x)
    }

    /// Appends the numbers of the row packed at `start` of `chunk`.
    #[inline]
    pub(super) fn decode(&self, chunk: &[u8], start: usize, out: &mut Vec<u32>) {
        // The row and its padding, sliced once.
        let window = &chunk[start..start + self.row_bytes + PAD];
        out.extend(self.starts.iter().zip(&self.limits).map(|(&bit, &limit)| {
            let at = bit as usize / 8;
            let word = u64::from_le_bytes(window[at..at + 8].try_into().expect("a padded row"));
            ((word >> (bit % 8)) as u32) & limit
        }));
    }
}

/// Whether `a` and `b`, of the same length, are equal: as words, the
/// last one overlapping the one before. A packed row is a few bytes, for
/// which comparing them as slices calls `memcmp`, much of the cost of a
/// lookup.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len();
    if n >= 8 {
        let words = (0..n - 8).step_by(8).chain([n - 8]);
        words.into_iter().all(|i| word(&a[i..]) == word(&b[i..]))
    } else if n >= 4 {
        half(a) == half(b) && half(&a[n - 4..]) == half(&b[n - 4..])
    } else {
        a.iter().zip(b).all(|(x, y)| x == y)
    }
}

/// `to = from`, of the same length, as [`same_bytes`] compares them (for
/// the same reason).
#[inline]
fn copy_bytes(to: &mut [u8], from: &[u8]) {
    debug_assert_eq!(to.len(), from.len());
    let n = from.len();
    if n >= 8 {
        for i in (0..n - 8).step_by(8).chain([n - 8]) {
            to[i..i + 8].copy_from_slice(&from[i..i + 8]);
        }
    } else {
        to.iter_mut().zip(from).for_each(|(to, &from)| *to = from);
    }
}

/// The first eight bytes of `bytes` as a word.
#[inline]
fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"))
}

/// The first four bytes of `bytes` as a word.
#[inline]
fn half(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[..4].try_into().expect("four bytes"))
}

/// Bits `x` needs.
fn bits_for(x: u32) -> u8 {
    (32 - x.leading_zeros()) as u8
}

pub(in crate::lts) struct Rows {
    width: usize,
    /// Rows per chunk: [`CHUNK_ROWS`], fewer for wide rows.
    chunk_rows: usize,
    /// The packings the chunks use, the last one the newest rows'.
    packings: Vec<Packing>,
    chunks: Vec<Chunk>,
    len: usize,
    /// The chunks moved to disk: the first this many.
    on_disk: usize,
    /// Widenings so far: what names how new rows are packed.
    widenings: usize,
    /// The file the chunks on disk are in, made at the first spill.
    file: Option<Arc<SpillFile>>,
}

/// A chunk of rows, all packed alike.
struct Chunk {
    /// Its packing, in [`Rows::packings`].
    packing: usize,
    row_bytes: usize,
    /// The rows, or nothing once they are on disk.
    bytes: Box<[u8]>,
    /// Where the rows are on disk, once they are.
    disk: Option<(Arc<SpillFile>, u64)>,
}

impl Rows {
    pub(super) fn new(width: usize) -> Rows {
        Rows {
            width,
            chunk_rows: (CHUNK_NUMBERS / width.max(1)).clamp(1, CHUNK_ROWS),
            packings: vec![Packing::of_bits(vec![0; width])],
            chunks: Vec::new(),
            len: 0,
            on_disk: 0,
            widenings: 0,
            file: None,
        }
    }

    pub(super) fn width(&self) -> usize {
        self.width
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// A number that changes whenever the packing of new rows does.
    pub(super) fn generation(&self) -> usize {
        self.widenings
    }

    /// How new rows are packed.
    pub(super) fn packing(&self) -> &Packing {
        self.packings.last().expect("rows have a packing")
    }

    /// Bytes the chunks and their packings hold.
    pub(super) fn bytes(&self) -> u64 {
        let chunks: u64 = self.chunks.iter().map(|c| c.bytes.len() as u64).sum();
        chunks + self.packings.iter().map(Packing::bytes).sum::<u64>()
    }

    #[cfg(test)]
    pub(super) fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }

    /// The chunk of state `id` and where its row starts there.
    #[inline]
    fn place(&self, id: u32) -> (&Chunk, usize) {
        let id = id as usize;
        let chunk = &self.chunks[id / self.chunk_rows];
        (chunk, (id % self.chunk_rows) * chunk.row_bytes)
    }

    /// The packed row of state `id`, which must be in memory.
    #[inline]
    pub(super) fn bytes_of(&self, id: u32) -> &[u8] {
        let (chunk, start) = self.place(id);
        &chunk.bytes[start..start + chunk.row_bytes]
    }

    /// Whether row `id` is `row`, packed as new rows are into `encoded`.
    #[inline(always)]
    pub(super) fn holds(&self, id: u32, row: &[u32], encoded: &[u8]) -> bool {
        let (chunk, start) = self.place(id);
        if chunk.disk.is_some() {
            return self.on_disk(chunk, start, |packing, bytes| {
                packing.unpacks_to(bytes, 0, row)
            });
        }
        if chunk.packing == self.packings.len() - 1 {
            same_bytes(&chunk.bytes[start..start + chunk.row_bytes], encoded)
        } else {
            self.packings[chunk.packing].unpacks_to(&chunk.bytes, start, row)
        }
    }

    /// The row of state `id`, into `out`.
    pub(super) fn read(&self, id: u32, out: &mut Vec<u32>) {
        out.clear();
        let (chunk, start) = self.place(id);
        if chunk.disk.is_some() {
            return self.on_disk(chunk, start, |packing, bytes| packing.decode(bytes, 0, out));
        }
        self.packings[chunk.packing].decode(&chunk.bytes, start, out);
    }

    /// `look` at the row at `start` of `chunk`, which is on disk, read
    /// back with its padding.
    #[cold]
    fn on_disk<T>(
        &self,
        chunk: &Chunk,
        start: usize,
        look: impl FnOnce(&Packing, &[u8]) -> T,
    ) -> T {
        let (file, at) = chunk.disk.as_ref().expect("a chunk on disk");
        let mut bytes = vec![0u8; chunk.row_bytes + PAD];
        // A failed read leaves zeros, recorded as the folder's failure:
        // the search stops, and nothing it found since stands.
        file.read(at + start as u64, &mut bytes[..chunk.row_bytes]);
        look(&self.packings[chunk.packing], &bytes)
    }

    /// The chunks a spill of the rows before `id` moves, `(from, to)`:
    /// those still in memory holding only rows before `id`, full. None
    /// when there are none.
    pub(super) fn chunks_to_spill(&self, id: usize) -> Option<(usize, usize)> {
        let before = (id.min(self.len) / self.chunk_rows).min(self.chunks.len());
        (self.on_disk < before).then_some((self.on_disk, before))
    }

    /// How many of the first chunks are on disk.
    pub(super) fn chunks_on_disk(&self) -> usize {
        self.on_disk
    }

    /// The ids of the rows in chunks `chunks`.
    pub(super) fn ids_of(&self, chunks: std::ops::Range<usize>) -> std::ops::Range<usize> {
        chunks.start * self.chunk_rows..(chunks.end * self.chunk_rows).min(self.len)
    }

    /// Writes the chunks `from..to` (in memory, full) to the rows' file
    /// in `spill`'s folder (made the first time): where each starts, to
    /// hand [`Rows::moved`] once the rest of the spill is done.
    pub(super) fn write_chunks(
        &mut self,
        (from, to): (usize, usize),
        spill: &Arc<Spill>,
    ) -> Result<Vec<u64>, Stopped> {
        if self.file.is_none() {
            self.file = Some(Arc::new(spill.file()?));
        }
        let file = self.file.as_ref().expect("the rows' file, made");
        self.chunks[from..to]
            .iter()
            .map(|chunk| file.write(&chunk.bytes[..self.chunk_rows * chunk.row_bytes]))
            .collect()
    }

    /// Drops the chunks `from..` from memory, each now at its place in
    /// the rows' file ([`Rows::write_chunks`]); they must follow those on
    /// disk.
    pub(super) fn moved(&mut self, from: usize, places: &[u64]) {
        debug_assert_eq!(from, self.on_disk);
        let file = self.file.as_ref().expect("the rows' file, written");
        for (chunk, &at) in self.chunks[from..].iter_mut().zip(places) {
            chunk.bytes = Box::default();
            chunk.disk = Some((Arc::clone(file), at));
        }
        self.on_disk = from + places.len();
    }

    /// The hash of row `id`'s numbers, unpacked into `scratch`.
    pub(super) fn hash_of(&self, id: u32, scratch: &mut Vec<u32>) -> u32 {
        self.read(id, scratch);
        hash_row(scratch)
    }

    /// Packs `row` into `encoded` (cleared first), widening the columns
    /// first when it needs wider ones, a step `meter` is asked for.
    pub(super) fn pack_widening(
        &mut self,
        row: &[u32],
        encoded: &mut Vec<u8>,
        meter: &Meter,
    ) -> Result<(), Stopped> {
        encoded.clear();
        if self.packing().pack(row, encoded) {
            return Ok(());
        }
        let wider = self.packing().widened_for(row);
        meter.may_allocate(self.widening_bytes(&wider))?;
        self.widen(wider);
        encoded.clear();
        let fits = self.packing().pack(row, encoded);
        debug_assert!(fits, "the rows were widened for it");
        Ok(())
    }

    /// Bytes widening to `packing` allocates: the open chunk packed anew,
    /// and the packing.
    pub(super) fn widening_bytes(&self, packing: &Packing) -> u64 {
        (self.chunk_rows * packing.row_bytes) as u64 + packing.bytes()
    }

    /// Asks `meter` for the chunk the next row starts, if it starts one
    /// larger than a chunk may be (a single row of more than
    /// [`CHUNK_BYTES`]); smaller ones are steps the meter's periodic
    /// reading covers.
    pub(super) fn may_push(&self, meter: &Meter) -> Result<(), Stopped> {
        let bytes = self.chunk_rows * self.packing().row_bytes;
        if self.len.is_multiple_of(self.chunk_rows) && bytes > CHUNK_BYTES {
            meter.may_allocate(bytes as u64)?;
        }
        Ok(())
    }

    /// Appends the row `encoded`, packed as new rows are, as the next id.
    pub(super) fn push(&mut self, encoded: &[u8]) -> u32 {
        let rows = self.chunk_rows;
        if self.len.is_multiple_of(rows) {
            let packing = self.packings.len() - 1;
            let row_bytes = self.packings[packing].row_bytes;
            self.chunks.push(Chunk {
                packing,
                row_bytes,
                bytes: vec![0; rows * row_bytes + PAD].into_boxed_slice(),
                disk: None,
            });
        }
        let chunk = self.chunks.last_mut().expect("a chunk with room");
        debug_assert_eq!(encoded.len(), chunk.row_bytes);
        let start = (self.len % rows) * chunk.row_bytes;
        copy_bytes(&mut chunk.bytes[start..start + chunk.row_bytes], encoded);
        self.len += 1;
        (self.len - 1) as u32
    }

    /// Packs new rows as `packing` from now on, and the rows of the chunk
    /// still filling too. The full chunks keep their packings: a widening
    /// costs at most a chunk's [`CHUNK_NUMBERS`], however many rows are
    /// stored.
    pub(super) fn widen(&mut self, packing: Packing) {
        self.widenings += 1;
        let newest = self.packings.len() - 1;
        let open = self
            .chunks
            .last_mut()
            .filter(|_| !self.len.is_multiple_of(self.chunk_rows));
        let Some(open) = open else {
            // No chunk is filling: the next one starts with `packing`, and
            // the newest packing stays for the chunks that have it.
            if self.chunks.last().is_some_and(|c| c.packing == newest) {
                self.packings.push(packing);
            } else {
                self.packings[newest] = packing;
            }
            return;
        };
        let old = &self.packings[newest];
        let filled = self.len % self.chunk_rows;
        let mut bytes = vec![0; self.chunk_rows * packing.row_bytes + PAD].into_boxed_slice();
        let (mut row, mut out) = (Vec::with_capacity(self.width), Vec::new());
        for k in 0..filled {
            row.clear();
            old.decode(&open.bytes, k * open.row_bytes, &mut row);
            out.clear();
            let fits = packing.pack(&row, &mut out);
            debug_assert!(fits, "a wider packing holds every row");
            bytes[k * packing.row_bytes..(k + 1) * packing.row_bytes].copy_from_slice(&out);
        }
        open.bytes = bytes;
        open.row_bytes = packing.row_bytes;
        // The open chunk leaves the newest packing: whether another chunk
        // still has it decides whether it is kept.
        let shared = self.chunks.len() >= 2 && self.chunks[self.chunks.len() - 2].packing == newest;
        if shared {
            self.packings.push(packing);
            self.chunks.last_mut().expect("the open chunk").packing = newest + 1;
        } else {
            self.packings[newest] = packing;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `row` packed by `packing`, padded as in a chunk, if it fits.
    fn packed(packing: &Packing, row: &[u32]) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        let fits = packing.pack(row, &mut bytes);
        assert_eq!(bytes.len(), packing.row_bytes);
        bytes.extend([0; PAD]);
        fits.then_some(bytes)
    }

    #[test]
    fn rows_pack_into_the_bits_their_columns_need_and_back() {
        let packing = Packing::of_bits(vec![0, 1, 3, 8, 13, 32, 5]);
        assert_eq!(packing.row_bytes, 62usize.div_ceil(8));
        let rows = [
            [0, 1, 7, 255, 8191, u32::MAX, 31],
            [0, 0, 0, 0, 0, 0, 0],
            [0, 1, 5, 128, 4096, 1 << 31, 16],
        ];
        for row in rows {
            let bytes = packed(&packing, &row).expect("it fits");
            let mut back = Vec::new();
            packing.decode(&bytes, 0, &mut back);
            assert_eq!(back, row);
            assert!(packing.unpacks_to(&bytes, 0, &row));
            assert!(!packing.unpacks_to(&bytes, 0, &[0, 1, 6, 255, 8191, 0, 31]));
        }
        assert_eq!(packed(&packing, &[1, 1, 7, 255, 8191, 0, 31]), None);
        assert_eq!(packed(&packing, &[0, 1, 8, 255, 8191, 0, 31]), None);
        let wider = packing.widened_for(&[1, 0, 8, 0, 0, 0, 0]);
        assert_eq!(wider.bits, [1, 1, 4, 8, 13, 32, 5]);
    }

    #[test]
    fn rows_of_any_length_compare_and_copy_as_words() {
        for n in 0..40 {
            let a: Vec<u8> = (0..n as u8).collect();
            let mut b = vec![0xFF; n];
            copy_bytes(&mut b, &a);
            assert_eq!(a, b);
            assert!(same_bytes(&a, &b));
            for i in 0..n {
                let mut c = a.clone();
                c[i] ^= 1;
                assert!(!same_bytes(&a, &c), "{n} bytes, byte {i} differs");
            }
        }
    }

    /// Rows as a store pushes them: widened first when they need it.
    fn push_widening(rows: &mut Rows, row: &[u32]) -> u32 {
        let mut encoded = Vec::new();
        let unlimited = Meter::unlimited();
        rows.pack_widening(row, &mut encoded, &unlimited).unwrap();
        rows.push(&encoded)
    }

    #[test]
    fn full_chunks_keep_their_packing_as_new_rows_widen() {
        let mut rows = Rows::new(3);
        let n = 3 * CHUNK_ROWS as u32 + 5;
        // The first column widens with every power of two, the second
        // once in the third chunk, the third never.
        let row = |i: u32| [i, u32::from(i > 2 * CHUNK_ROWS as u32 + 7) * 1000, 0];
        for i in 0..n {
            assert_eq!(push_widening(&mut rows, &row(i)), i);
        }
        assert_eq!(rows.chunks.len(), 4);
        // Each chunk keeps the packing it was filled with, and no packing
        // is kept that no chunk has (but the newest).
        assert!(rows.packings.len() <= rows.chunks.len() + 1);
        let widths: Vec<usize> = rows.chunks.iter().map(|c| c.row_bytes).collect();
        assert!(widths.windows(2).all(|w| w[0] <= w[1]), "{widths:?}");
        assert!(widths[0] < widths[3], "{widths:?}");
        let mut out = Vec::new();
        for i in (0..n).step_by(101) {
            rows.read(i, &mut out);
            assert_eq!(out, row(i));
            let mut encoded = Vec::new();
            assert!(rows.packing().pack(&row(i), &mut encoded));
            assert!(rows.holds(i, &row(i), &encoded), "row {i}");
            let other = [i + 1, row(i)[1], 0];
            encoded.clear();
            assert!(rows.packing().pack(&other, &mut encoded));
            assert!(!rows.holds(i, &other, &encoded), "row {i}");
        }
    }

    #[test]
    fn wide_rows_widen_every_column_at_once() {
        let width = OWN_BITS_UP_TO + 1;
        let mut rows = Rows::new(width);
        let mut row = vec![0; width];
        for i in 0..width {
            row[i] = 1;
            push_widening(&mut rows, &row);
        }
        // One widening, for the first row: every column took its bit.
        assert_eq!(rows.packings.len(), 1);
        assert_eq!(rows.packing().row_bytes, width.div_ceil(8));
        row[7] = 5;
        push_widening(&mut rows, &row);
        assert_eq!(rows.packing().bits, vec![3; width]);
        let mut out = Vec::new();
        rows.read(width as u32, &mut out);
        assert_eq!(out, row);
    }

    #[test]
    fn a_row_of_zeros_takes_no_bytes() {
        let mut rows = Rows::new(3);
        assert_eq!(rows.push(&[]), 0);
        assert_eq!(rows.push(&[]), 1);
        let mut out = Vec::new();
        rows.read(1, &mut out);
        assert_eq!(out, [0, 0, 0]);
    }
}

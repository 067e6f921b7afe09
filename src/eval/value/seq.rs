//! CSPM sequences: windows on shared storage that can grow in place.
//!
//! A [`Seq`] sees the cells `start..start + len` of a shared array of
//! write-once cells. Taking a tail or matching `<x>^s` makes a narrower
//! window on the same cells, in constant time. Concatenation extends a
//! window in place when the cells just past its end (for `s ^ t`) or just
//! before its start (for `t ^ s`) are still empty: it fills them, and the
//! wider window is the result. Every other holder of the storage keeps
//! seeing exactly its own window, so this is invisible to them, and
//! appending in a loop (`acc ^ <x>`, or `<x> ^ acc`) costs amortised
//! constant time per element even though the old `acc` is still shared
//! (by the caller's frame, a diagnostic's call stack, a process state).
//!
//! Why it is sound without locks: the filled cells of a storage are always
//! one contiguous range. A window can only be extended at a boundary of
//! that range, and the first cell past the boundary is claimed by setting
//! it, which exactly one extension can do ([`OnceLock::set`]); whoever
//! loses copies instead. The winner then fills the following cells, which
//! nobody else can reach before the winner hands out its window.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use super::Value;

type Cells = Box<[OnceLock<Value>]>;

/// A sequence value.
#[derive(Clone)]
pub struct Seq {
    /// Boxed behind the `Arc` to keep the pointer thin: a value stays 24
    /// bytes.
    cells: Arc<Cells>,
    start: u32,
    len: u32,
}

impl Seq {
    pub fn from_vec(items: Vec<Value>) -> Seq {
        let len = items.len() as u32;
        Seq {
            cells: Arc::new(items.into_iter().map(OnceLock::from).collect()),
            start: 0,
            len,
        }
    }

    /// The sequence of the values in `cells`, each filled.
    pub(in crate::eval) fn from_cells(cells: Vec<OnceLock<Value>>) -> Seq {
        let len = cells.len() as u32;
        Seq {
            cells: Arc::new(cells.into_boxed_slice()),
            start: 0,
            len,
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator + Clone {
        self.window().iter().map(filled)
    }

    /// Element `i`, counting from 0.
    pub fn get(&self, i: usize) -> Option<&Value> {
        self.window().get(i).map(filled)
    }

    pub fn to_vec(&self) -> Vec<Value> {
        self.iter().cloned().collect()
    }

    /// Elements `from..to` of this sequence, sharing its storage.
    pub fn slice(&self, from: usize, to: usize) -> Seq {
        debug_assert!(from <= to && to <= self.len());
        Seq {
            cells: self.cells.clone(),
            start: self.start + from as u32,
            len: (to - from) as u32,
        }
    }

    /// `self ^ other`: in place on `self`'s storage or `other`'s when the
    /// cells next to it are free, otherwise a copy with room to grow on
    /// the side of the shorter operand (the side a loop adds to).
    pub fn concat(&self, other: &Seq) -> Seq {
        if other.is_empty() {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        if let Some(joined) = self.extended_after(other) {
            return joined;
        }
        if let Some(joined) = other.extended_before(self) {
            return joined;
        }
        let len = self.len() + other.len();
        let room = len.max(4);
        let filled = self.iter().chain(other.iter()).cloned().map(OnceLock::from);
        let (cells, start): (Cells, usize) = if self.len() >= other.len() {
            (filled.chain(empty_cells(room)).collect(), 0)
        } else {
            (empty_cells(room).chain(filled).collect(), room)
        };
        Seq {
            cells: Arc::new(cells),
            start: start as u32,
            len: len as u32,
        }
    }

    /// `self ^ more` made by filling the cells after `self`, if they are
    /// there and free.
    fn extended_after(&self, more: &Seq) -> Option<Seq> {
        let end = self.start as usize + self.len();
        let free = self.cells.get(end..end + more.len())?;
        let mut elements = more.iter().cloned();
        let first = elements.next()?;
        free[0].set(first).ok()?;
        for (cell, v) in free[1..].iter().zip(elements) {
            // Cannot fail: the cell after the claimed one is reachable
            // only through the window this call is making.
            cell.set(v).ok()?;
        }
        Some(Seq {
            cells: self.cells.clone(),
            start: self.start,
            len: self.len + more.len,
        })
    }

    /// `more ^ self` made by filling the cells before `self`, if they are
    /// there and free.
    fn extended_before(&self, more: &Seq) -> Option<Seq> {
        let start = (self.start as usize).checked_sub(more.len())?;
        let free = &self.cells[start..self.start as usize];
        // Claimed from the cell next to the window outwards, as after it.
        let mut pairs = free.iter().rev().zip(more.iter().rev().cloned());
        let (first_cell, first) = pairs.next()?;
        first_cell.set(first).ok()?;
        for (cell, v) in pairs {
            cell.set(v).ok()?;
        }
        Some(Seq {
            cells: self.cells.clone(),
            start: start as u32,
            len: self.len + more.len,
        })
    }

    fn window(&self) -> &[OnceLock<Value>] {
        &self.cells[self.start as usize..self.start as usize + self.len()]
    }
}

fn filled(cell: &OnceLock<Value>) -> &Value {
    cell.get().expect("every cell inside a window is filled")
}

fn empty_cells(n: usize) -> impl Iterator<Item = OnceLock<Value>> {
    (0..n).map(|_| OnceLock::new())
}

impl std::fmt::Debug for Seq {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Seq {
    fn eq(&self, other: &Seq) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Seq {}

impl PartialOrd for Seq {
    fn partial_cmp(&self, other: &Seq) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Seq {
    fn cmp(&self, other: &Seq) -> Ordering {
        self.iter().cmp(other.iter())
    }
}

impl Hash for Seq {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for v in self.iter() {
            v.hash(state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(range: std::ops::Range<i64>) -> Seq {
        Seq::from_vec(range.map(Value::Int).collect())
    }

    fn hash(s: &Seq) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    #[test]
    fn a_slice_equals_a_fresh_sequence_with_the_same_elements() {
        let tail = ints(0..5).slice(1, 5);
        let fresh = ints(1..5);
        assert_eq!(tail, fresh);
        assert_eq!(hash(&tail), hash(&fresh));
    }

    #[test]
    fn appending_in_a_loop_grows_one_storage_and_old_values_stay_as_they_were() {
        let mut acc = ints(0..0);
        let mut kept = Vec::new();
        for i in 0..100 {
            acc = acc.concat(&ints(i..i + 1));
            kept.push(acc.clone());
        }
        assert_eq!(acc, ints(0..100));
        for (i, s) in kept.iter().enumerate() {
            assert_eq!(*s, ints(0..i as i64 + 1));
        }
        // A copy only when the storage is full, each with room for as
        // many again: a handful of storages for 100 appends.
        let mut storages: Vec<*const Cells> = kept.iter().map(|s| Arc::as_ptr(&s.cells)).collect();
        storages.dedup();
        assert_eq!(storages.len(), 6);
    }

    #[test]
    fn prepending_in_a_loop_grows_one_storage_too() {
        let mut acc = ints(0..0);
        for i in (0..100).rev() {
            acc = ints(i..i + 1).concat(&acc);
        }
        assert_eq!(acc, ints(0..100));
        let again = ints(-1..0).concat(&acc);
        assert_eq!(
            again.to_vec()[..3],
            [Value::Int(-1), Value::Int(0), Value::Int(1)]
        );
    }

    #[test]
    fn two_different_appends_to_one_sequence_do_not_see_each_other() {
        let base = ints(0..3).concat(&ints(3..4)); // has room after
        let a = base.concat(&ints(10..12));
        let b = base.concat(&ints(20..21));
        assert_eq!(base, ints(0..4));
        assert_eq!(a.to_vec(), [0, 1, 2, 3, 10, 11].map(Value::Int));
        assert_eq!(b.to_vec(), [0, 1, 2, 3, 20].map(Value::Int));
        // The first took the free cells; the second had to copy.
        assert!(Arc::ptr_eq(&base.cells, &a.cells));
        assert!(!Arc::ptr_eq(&base.cells, &b.cells));
    }

    #[test]
    fn a_prefix_window_does_not_grow_over_the_cells_after_it() {
        let long = ints(0..5).concat(&ints(5..6));
        let prefix = long.slice(0, 2);
        let joined = prefix.concat(&ints(9..10));
        assert_eq!(joined.to_vec(), [0, 1, 9].map(Value::Int));
        assert_eq!(long, ints(0..6));
    }

    #[test]
    fn appends_racing_on_threads_each_get_their_own_sequence() {
        let base = ints(0..7).concat(&ints(7..8));
        let results: Vec<Seq> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let base = &base;
                    scope.spawn(move || base.concat(&ints(100 * t..100 * t + 3)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (t, s) in results.iter().enumerate() {
            let t = t as i64;
            let mut expected: Vec<Value> = (0..8).map(Value::Int).collect();
            expected.extend((100 * t..100 * t + 3).map(Value::Int));
            assert_eq!(s.to_vec(), expected);
        }
        assert_eq!(base, ints(0..8));
    }

    /// One step of a random history of sequence values.
    #[derive(Debug, Clone)]
    enum Step {
        /// `values[a] ^ values[b]`
        Concat(usize, usize),
        /// `values[a]` from `from` (a fraction) to `to`
        Slice(usize, u8, u8),
        Fresh(Vec<i64>),
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            (0..64usize, 0..64usize).prop_map(|(a, b)| Step::Concat(a, b)),
            (0..64usize, any::<u8>(), any::<u8>()).prop_map(|(a, f, t)| Step::Slice(a, f, t)),
            proptest::collection::vec(-5..5i64, 0..4).prop_map(Step::Fresh),
        ]
    }

    proptest::proptest! {
        /// Every value made by any mix of concatenations (in place or
        /// not) and slices, old ones kept and reused, holds exactly what a
        /// plain vector would.
        #[test]
        fn sequences_agree_with_plain_vectors(steps in proptest::collection::vec(step(), 1..120)) {
            let mut values: Vec<(Seq, Vec<Value>)> = vec![(ints(0..1), vec![Value::Int(0)])];
            for step in steps {
                let pick = |i: usize| &values[i % values.len()];
                let made = match step {
                    Step::Concat(a, b) => {
                        let ((s, v), (t, w)) = (pick(a), pick(b));
                        (s.concat(t), v.iter().chain(w).cloned().collect())
                    }
                    Step::Slice(a, f, t) => {
                        let (s, v) = pick(a);
                        let (f, t) = (f as usize * v.len() / 255, t as usize * v.len() / 255);
                        let (f, t) = (f.min(t), f.max(t));
                        (s.slice(f, t), v[f..t].to_vec())
                    }
                    Step::Fresh(xs) => {
                        let v: Vec<Value> = xs.into_iter().map(Value::Int).collect();
                        (Seq::from_vec(v.clone()), v)
                    }
                };
                values.push(made);
            }
            for (s, v) in &values {
                proptest::prop_assert_eq!(&s.to_vec(), v);
                proptest::prop_assert_eq!(s, &Seq::from_vec(v.clone()));
            }
        }
    }
}

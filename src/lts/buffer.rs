//! Buffers written for every state by the threads of a search, made
//! with a page of room from the start.
//!
//! A buffer that starts empty grows through a series of small
//! reallocations, each into whatever small gap the allocator has: early
//! in a search that is among the machine's tables, allocated at the same
//! time and read by every thread from then on. A cache line one thread
//! keeps writing and another keeps reading moves between their caches at
//! every write (false sharing): the store's encoded row and the
//! expanding threads' moves, grown so, cost a two-thread search a tenth
//! of its time. Made once
//! with a page of room, a buffer lies among the others made with it and
//! does not move while the search runs.

/// The room a buffer starts with, in bytes.
const ROOM: usize = 4096;

/// An empty buffer with room for a page of `T`s.
pub fn with_room<T>() -> Vec<T> {
    Vec::with_capacity(ROOM / std::mem::size_of::<T>().max(1))
}

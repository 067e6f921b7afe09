//! A first-in first-out queue of `u32`s kept in fixed-size chunks, read
//! anywhere by index: growing never copies what is there, nor holds two
//! buffers at once, and it takes at most two chunks more than it holds.
//! The log of a search's τ-transitions ([`super::divergence::TauLog`])
//! holds about a breadth-first level in two of them; in many searches
//! it empties after nearly every state (each answered at once), so a
//! chunk let go is kept to be filled again rather than freed and
//! allocated anew, which cost a divergence check 2.5 % of its time.

use std::collections::VecDeque;

/// Elements per chunk.
const CHUNK: usize = 1 << 14;

#[derive(Debug, Default)]
pub struct ChunkedQueue {
    chunks: VecDeque<Vec<u32>>,
    /// Where the front element sits in the first chunk.
    head: usize,
    len: usize,
    /// A chunk let go, empty, to be filled again.
    spare: Option<Vec<u32>>,
}

impl ChunkedQueue {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn push_back(&mut self, value: u32) {
        if (self.head + self.len).is_multiple_of(CHUNK) {
            let chunk = self.spare.take();
            self.chunks
                .push_back(chunk.unwrap_or_else(|| Vec::with_capacity(CHUNK)));
        }
        self.chunks
            .back_mut()
            .expect("a chunk with room")
            .push(value);
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<u32> {
        (i < self.len).then(|| {
            let at = self.head + i;
            self.chunks[at / CHUNK][at % CHUNK]
        })
    }

    /// The elements `from..to`.
    pub fn range(&self, from: usize, to: usize) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(from <= to && to <= self.len);
        (from..to).map(|i| {
            let at = self.head + i;
            self.chunks[at / CHUNK][at % CHUNK]
        })
    }

    /// Drops the first `count` elements.
    pub fn drop_front(&mut self, count: usize) {
        debug_assert!(count <= self.len);
        self.head += count;
        self.len -= count;
        while self.head >= CHUNK {
            let chunk = self.chunks.pop_front();
            self.keep_spare(chunk);
            self.head -= CHUNK;
        }
        if self.len == 0 {
            while let Some(chunk) = self.chunks.pop_front() {
                self.keep_spare(Some(chunk));
            }
            self.head = 0;
        }
    }

    fn keep_spare(&mut self, chunk: Option<Vec<u32>>) {
        if let Some(mut chunk) = chunk
            && self.spare.is_none()
        {
            chunk.clear();
            self.spare = Some(chunk);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_keeps_order_across_chunks_and_lets_go_of_whole_ones() {
        let mut queue = ChunkedQueue::default();
        let n = 3 * CHUNK as u32 + 17;
        for value in 0..n {
            queue.push_back(value);
        }
        assert_eq!(queue.len(), n as usize);
        assert_eq!(queue.get(CHUNK + 5), Some(CHUNK as u32 + 5));
        assert_eq!(queue.get(n as usize), None);
        queue.drop_front(CHUNK + 3);
        assert_eq!(queue.chunks.len(), 3);
        assert_eq!(queue.get(0), Some(CHUNK as u32 + 3));
        let tail: Vec<u32> = queue.range(queue.len() - 2, queue.len()).collect();
        assert_eq!(tail, [n - 2, n - 1]);
        queue.drop_front(queue.len());
        assert!(queue.len() == 0 && queue.chunks.is_empty());
        // One chunk let go is kept, and filling again takes it.
        let spare = queue.spare.as_ref().map(|c| c.as_ptr());
        assert!(spare.is_some());
        queue.push_back(7);
        assert_eq!((queue.get(0), queue.len()), (Some(7), 1));
        assert_eq!(queue.chunks.front().map(|c| c.as_ptr()), spare);
        assert!(queue.spare.is_none());
        // Emptied after one element, it keeps that chunk for the next.
        queue.drop_front(1);
        queue.push_back(8);
        assert_eq!((queue.get(0), queue.len()), (Some(8), 1));
    }
}

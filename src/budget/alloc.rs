//! A global allocator that counts the bytes the heap holds, so that the
//! memory budget measures what the work holds rather than the process's
//! resident memory: the system's allocator keeps freed pages (a stopped
//! check's millions of small values stay resident after they are freed),
//! and a budget read from resident memory would stop every later check
//! at once.
//!
//! The binary installs it (`src/main.rs`); where it is not installed (the
//! library's own tests, benchmarks with allocators of their own),
//! [`held`] says so and the budget falls back on resident memory.
//!
//! The count is striped: each thread adds to one of [`STRIPES`] counters
//! on cache lines of their own, chosen once per thread, so threads
//! allocating at once do not fight over one line. A reading sums the
//! stripes (a block freed on another thread than its own makes one
//! stripe negative and another positive; the sum is exact).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

/// Counters the threads spread over.
const STRIPES: usize = 32;

/// One counter on a cache line of its own.
#[repr(align(128))]
struct Stripe(AtomicI64);

static COUNTS: [Stripe; STRIPES] = [const { Stripe(AtomicI64::new(0)) }; STRIPES];
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    // Const-initialised and without a destructor: reading it never
    // allocates, so the allocator may use it.
    static STRIPE: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// The system's allocator, counting what it holds.
pub struct Counting;

/// The bytes the system's allocator holds for a block of `size` bytes.
/// glibc's malloc keeps each in a chunk of its size plus an 8-byte
/// header, rounded up to 16, and at least 32: counting chunks rather
/// than the sizes asked for keeps the count close to what the process
/// holds when its values are small (a syntax tree's nodes, of 24–48
/// bytes, cost a third more than they ask for).
#[inline]
fn held_for(size: usize) -> i64 {
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        (size.saturating_add(8 + 15) & !15).max(32) as i64
    } else {
        size as i64
    }
}

impl Counting {
    #[inline]
    fn count(bytes: i64) {
        let stripe = STRIPE
            .try_with(|s| {
                let mut i = s.get();
                if i == usize::MAX {
                    i = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
                    s.set(i);
                }
                i
            })
            .unwrap_or(0);
        COUNTS[stripe].0.fetch_add(bytes, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counting around it neither allocates nor touches the memory.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Counting::count(held_for(layout.size()));
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::count(held_for(layout.size()));
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) };
        Counting::count(-held_for(layout.size()));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            Counting::count(held_for(new_size) - held_for(layout.size()));
        }
        p
    }
}

/// Marks the counting allocator as the one in use: called by the binary
/// before anything else, as it installs [`Counting`].
pub fn installed() {
    INSTALLED.store(true, Ordering::Relaxed);
}

/// The bytes the heap holds now, when [`Counting`] is the allocator.
pub fn held() -> Option<u64> {
    INSTALLED.load(Ordering::Relaxed).then(|| {
        let sum: i64 = COUNTS.iter().map(|s| s.0.load(Ordering::Relaxed)).sum();
        sum.max(0) as u64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_follows_allocations_and_frees_on_any_thread() {
        let before = COUNTS
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum::<i64>();
        let layout = Layout::from_size_align(1 << 20, 8).unwrap();
        // SAFETY: a valid layout; the block is freed with it below.
        let p = unsafe { Counting.alloc(layout) };
        assert!(!p.is_null());
        let during = COUNTS
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum::<i64>();
        // Other tests allocate through the system allocator, not this one.
        assert_eq!(during - before, held_for(1 << 20));
        assert!(held_for(1 << 20) - (1 << 20) <= 32);
        assert!(held_for(1) >= 1 && held_for(24) >= 24);
        let address = p as usize;
        std::thread::spawn(move || {
            // SAFETY: the block allocated above, with its layout.
            unsafe { Counting.dealloc(address as *mut u8, layout) }
        })
        .join()
        .unwrap();
        let after = COUNTS
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .sum::<i64>();
        assert_eq!(after, before);
    }
}

//! How much memory the machine has and how much this process holds.
//!
//! Two limits matter: the memory budget, against what the process holds
//! ([`held`]: the heap as the counting allocator of [`super::alloc`]
//! counts it, else the resident memory the system reports), and the
//! address space the system allows (`ulimit -v`), against its virtual
//! size: passing the latter makes an allocation fail, which aborts the
//! process. The system's figures come from `sysinfo` (on every platform
//! it knows; a platform it does not know has no memory budget unless the
//! allocator counts). Reading them costs tens of microseconds, so they
//! are read at most every [`FRESH`] and shared by all threads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sysinfo::{MemoryRefreshKind, Pid, ProcessRefreshKind, ProcessesToUpdate, RefreshKind, System};

/// How old a reading of the process's memory may be for a poll.
pub const FRESH: Duration = Duration::from_millis(20);

/// What the default memory budget leaves to the rest of the machine: it
/// is three quarters of the memory the process may have.
const DEFAULT_SHARE: (u64, u64) = (3, 4);

/// What a process uses, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub resident: u64,
    pub address_space: u64,
}

/// The memory this process may have: the machine's physical memory, or
/// its control group's limit when lower. `None` where the system does not
/// say.
pub fn physical() -> Option<u64> {
    static PHYSICAL: OnceLock<Option<u64>> = OnceLock::new();
    *PHYSICAL.get_or_init(|| {
        let system = System::new_with_specifics(
            RefreshKind::nothing().with_memory(MemoryRefreshKind::nothing().with_ram()),
        )
        .ok()?;
        let total = system.total_memory();
        let limit = system.cgroup_limits().map_or(total, |c| c.total_memory);
        Some(total.min(limit)).filter(|&m| m > 0)
    })
}

/// The memory budget when none is given: three quarters of
/// [`physical`] memory.
pub fn default_budget() -> Option<u64> {
    physical().map(|m| m / DEFAULT_SHARE.1 * DEFAULT_SHARE.0)
}

/// Hands memory freed in the heap back to the system where the C
/// library can (glibc's `malloc_trim`): after a long-lived process
/// drops a large structure it will build again (the editor's loaded
/// script, replaced at every edit), so that the freed pages do not stay
/// resident and the next one is not built beside them.
pub fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the heap.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The address space the system allows this process (`ulimit -v`), less
/// a margin for what is allocated between two readings; `None` when
/// unlimited.
pub fn address_space_limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| rlimit_as().map(|limit| limit / 10 * 9))
}

#[cfg(unix)]
fn rlimit_as() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given, nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    // `rlim_t` is `u64` on Linux but not on every unix.
    #[allow(clippy::unnecessary_cast)]
    let current = limit.rlim_cur as u64;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(not(unix))]
fn rlimit_as() -> Option<u64> {
    None
}

/// What the process holds now, in bytes: the heap as the counting
/// allocator counts it (freed memory is not held, though the system's
/// allocator may keep its pages resident), plus the native stack that
/// deep evaluation has grown ([`charge_stack`]); where the allocator
/// does not count, the resident memory read at most `max_age` ago.
/// `None` where nothing says.
pub fn held(max_age: Duration) -> Option<u64> {
    let stack = STACK.load(Ordering::Relaxed);
    match super::alloc::held() {
        Some(heap) => Some(heap.saturating_add(stack)),
        None => usage(max_age).map(|u| u.resident),
    }
}

/// Native stack grown (or, with `bytes` negative, given back) by deep
/// evaluation, which runs on stack segments mapped outside the heap.
pub fn charge_stack(bytes: i64) {
    if bytes >= 0 {
        STACK.fetch_add(bytes as u64, Ordering::Relaxed);
    } else {
        STACK.fetch_sub(bytes.unsigned_abs(), Ordering::Relaxed);
    }
}

static STACK: AtomicU64 = AtomicU64::new(0);

/// What the process uses now, read at most `max_age` ago (every thread
/// shares the last reading); `None` where the system does not say.
pub fn usage(max_age: Duration) -> Option<Usage> {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    static READ_AT: AtomicU64 = AtomicU64::new(0);
    static RESIDENT: AtomicU64 = AtomicU64::new(0);
    static ADDRESS_SPACE: AtomicU64 = AtomicU64::new(0);
    static READER: Mutex<Option<(System, Pid)>> = Mutex::new(None);

    let epoch = *EPOCH.get_or_init(Instant::now);
    // Nanoseconds since the epoch, plus one so that 0 means "never read".
    let now = epoch.elapsed().as_nanos() as u64 + 1;
    let read_at = READ_AT.load(Ordering::Acquire);
    let cached = || {
        Some(Usage {
            resident: RESIDENT.load(Ordering::Relaxed),
            address_space: ADDRESS_SPACE.load(Ordering::Relaxed),
        })
    };
    if read_at != 0 && now.saturating_sub(read_at) < max_age.as_nanos() as u64 {
        return cached();
    }
    // One thread reads; the others meanwhile take the last reading.
    let mut reader = match READER.try_lock() {
        Ok(reader) => reader,
        Err(_) if read_at != 0 => return cached(),
        Err(_) => READER.lock().unwrap_or_else(|p| p.into_inner()),
    };
    let (system, pid) = match &mut *reader {
        Some(found) => found,
        None => {
            let pid = sysinfo::get_current_pid().ok()?;
            reader.insert((System::new().ok()?, pid))
        }
    };
    system.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[*pid]),
        false,
        ProcessRefreshKind::nothing().with_memory(),
    );
    let process = system.process(*pid)?;
    RESIDENT.store(process.memory(), Ordering::Relaxed);
    ADDRESS_SPACE.store(process.virtual_memory(), Ordering::Relaxed);
    READ_AT.store(now, Ordering::Release);
    cached()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_says_how_much_memory_it_has_and_uses() {
        // The platforms symcsp is built on all tell.
        let physical = physical().expect("the system says how much memory it has");
        let budget = default_budget().expect("a default budget");
        assert!(budget < physical && budget >= physical / 2);
        let now = usage(Duration::ZERO).expect("the system says what the process uses");
        assert!(now.resident > 0 && now.address_space >= now.resident);
        // A reading is shared for a while (other tests may refresh it).
        let shared = usage(Duration::from_secs(3600)).expect("a reading");
        assert!(shared.resident > 0);
    }
}

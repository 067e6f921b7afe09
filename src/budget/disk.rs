//! Where a search may put what does not fit in memory, and how much of
//! the disk it may use: the spill folder of `--spill-dir` and the budget
//! of `--max-disk`.
//!
//! A [`Spill`] hands out files ([`SpillFile`]) that are unlinked as soon
//! as they are made: the data lives only as long as the open handle, so
//! whatever way the process ends (success, failure, Ctrl-C, a budget, a
//! kill), the system frees the disk and nothing is left in the folder
//! for a next run to trip on. A folder made for the run (`auto`, under
//! the system's temporary folder) is removed when the plan is dropped.
//!
//! A failure to write or read (the folder made unwritable, the disk
//! full, a read-only filesystem) is recorded once, with the folder's
//! name and the system's reason, and the work asks [`Spill::failure`] to
//! stop with it: a stop, never a crash.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::Stopped;

/// A run's spill folder, its disk budget, and what it holds now.
#[derive(Debug)]
pub struct Spill {
    dir: PathBuf,
    /// Whether this run made the folder (`auto`), and removes it.
    made: bool,
    max_disk: Option<u64>,
    /// Bytes the open spill files hold.
    used: AtomicU64,
    /// The most bytes they held at once.
    peak: AtomicU64,
    /// Bytes written, ever (for the progress line's rate).
    written: AtomicU64,
    /// Names for the next file.
    files: AtomicU64,
    /// What went wrong in the search under way, if anything.
    failure: Mutex<Option<String>>,
    /// The lock an `auto` folder holds while its run lives.
    _lock: Option<File>,
    /// Spill a store once it holds more than this many states in memory,
    /// whatever the memory budget: small enough in tests to make every
    /// model spill.
    pub at_states: Option<usize>,
}

impl Spill {
    /// The plan for `dir` (`None`: `auto`, a folder made under the
    /// system's temporary folder and removed afterwards): an error naming
    /// the folder when it cannot be written (it is missing, not a folder,
    /// read-only, full), found now rather than when the search first
    /// spills.
    pub fn new(dir: Option<&Path>, max_disk: Option<u64>) -> Result<Arc<Spill>, String> {
        let (dir, made, lock) = match dir {
            Some(dir) => (dir.to_path_buf(), false, None),
            None => {
                let parent = std::env::temp_dir();
                let (made, lock) = tempfile_dir(&parent).map_err(|e| {
                    format!(
                        "cannot make a spill folder in `{}`: {}",
                        parent.display(),
                        plain(&e)
                    )
                })?;
                (made, true, Some(lock))
            }
        };
        let spill = Spill {
            dir,
            made,
            max_disk,
            used: AtomicU64::new(0),
            peak: AtomicU64::new(0),
            written: AtomicU64::new(0),
            files: AtomicU64::new(0),
            failure: Mutex::new(None),
            _lock: lock,
            at_states: None,
        };
        if !spill.dir.is_dir() {
            let why = if spill.dir.exists() {
                "it is not a folder"
            } else {
                "it does not exist"
            };
            return Err(format!("cannot spill to `{}`: {why}", spill.dir.display()));
        }
        // A first file, written and read back: a read-only or full disk
        // says so now.
        let probe = spill.create().map_err(|e| spill.say("write to", &e))?;
        probe
            .append(&[0u8; 4096])
            .and_then(|_| probe.read_at(0, &mut [0u8; 16]))
            .map_err(|e| spill.say("write to", &e))?;
        Ok(Arc::new(spill))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes the spill files hold now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes the spill files held at once.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Bytes written since the run began.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// What went wrong with the folder in the search under way, if
    /// anything did: the search stops with [`Stopped::Disk`] and says
    /// this, and nothing it found since stands.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// A search begins: what went wrong in an earlier one (a check of
    /// several assertions runs one each) is forgotten, and its peak.
    pub fn begin(&self) {
        *self.failure.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.peak.store(self.used(), Ordering::Relaxed);
    }

    /// Records `failure` unless one is recorded already.
    fn record(&self, failure: String) {
        let mut held = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        held.get_or_insert(failure);
    }

    /// A new file in the folder, unlinked at once; `Err` (recorded as
    /// the failure) when it cannot be made.
    pub fn file(self: &Arc<Spill>) -> Result<SpillFile, Stopped> {
        match self.create() {
            Ok(mut file) => {
                file.spill = Some(Arc::clone(self));
                Ok(file)
            }
            Err(e) => Err(self.fail("write to", &e)),
        }
    }

    fn create(&self) -> io::Result<SpillFile> {
        let n = self.files.fetch_add(1, Ordering::Relaxed);
        let path = self
            .dir
            .join(format!("symcsp-spill-{}-{n}", std::process::id()));
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        // Unlinked while open: the data goes when the handle does,
        // however the process ends.
        std::fs::remove_file(&path)?;
        Ok(SpillFile {
            file,
            len: AtomicU64::new(0),
            released: AtomicU64::new(0),
            spill: None,
        })
    }

    /// Records the first failure (with the folder and the system's
    /// reason) and gives the stop it means.
    fn fail(&self, doing: &str, error: &io::Error) -> Stopped {
        self.record(self.say(doing, error));
        Stopped::Disk
    }

    fn say(&self, doing: &str, error: &io::Error) -> String {
        format!(
            "cannot {doing} the spill folder `{}`: {}",
            self.dir.display(),
            plain(error)
        )
    }

    /// Counts `bytes` more on disk, unless they would pass `--max-disk`.
    fn charge(&self, bytes: u64) -> Result<(), Stopped> {
        let now = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if self.max_disk.is_some_and(|max| now > max) {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            self.record(format!(
                "the spill folder `{}` would pass the disk budget (--max-disk {})",
                self.dir.display(),
                self.max_disk.map(show_bytes).unwrap_or_default()
            ));
            return Err(Stopped::Disk);
        }
        self.peak.fetch_max(now, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if self.made {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The file in an `auto` folder its run holds locked while it lives.
const LOCK: &str = "lock";

/// A folder of its own under `parent`, and its lock held, after
/// removing those that runs killed before they could remove theirs (a
/// folder whose lock no process holds). Their spill files were unlinked
/// already: only the lock file is left.
fn tempfile_dir(parent: &Path) -> io::Result<(PathBuf, File)> {
    remove_abandoned(parent);
    for n in 0..1000u32 {
        let dir = parent.join(format!("symcsp-spill-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                let lock = File::create(dir.join(LOCK))?;
                if !try_lock(&lock) {
                    return Err(io::Error::other("its lock could not be taken"));
                }
                return Ok((dir, lock));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("every name tried is taken"))
}

/// Takes an exclusive lock on `file` without waiting: whether it got it.
/// The system lets it go when the process ends, however it ends.
fn try_lock(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` on a descriptor this `File` owns and keeps open.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Removes the folders under `parent` that [`tempfile_dir`] made for
/// runs that are gone: their lock is free (a live run, in this process
/// namespace or another sharing the folder, holds its own).
fn remove_abandoned(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name
            .to_str()
            .is_some_and(|n| n.starts_with("symcsp-spill-"))
        {
            continue;
        }
        let path = entry.path();
        let Ok(lock) = File::open(path.join(LOCK)) else {
            continue;
        };
        if try_lock(&lock) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// The system's reason, without Rust's `(os error N)`.
fn plain(error: &io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// `bytes` as a person reads them: `512 MB`, `3.1 GB`.
pub fn show_bytes(bytes: u64) -> String {
    const MB: f64 = 1e6;
    let mb = bytes as f64 / MB;
    if mb >= 1000.0 {
        format!("{:.1} GB", mb / 1000.0)
    } else if mb >= 1.0 {
        format!("{mb:.0} MB")
    } else {
        format!("{:.0} KB", bytes as f64 / 1e3)
    }
}

/// A file of the spill folder, unlinked: appended to, read anywhere
/// from any thread.
#[derive(Debug)]
pub struct SpillFile {
    file: File,
    /// Bytes appended, or places taken for appends under way.
    len: AtomicU64,
    /// Bytes given back ([`SpillFile::release`]).
    released: AtomicU64,
    /// The plan it counts against (none for the folder's probe).
    spill: Option<Arc<Spill>>,
}

impl SpillFile {
    /// Appends `bytes`: where they start. A failure (or the disk budget)
    /// is recorded in the plan and given as [`Stopped::Disk`].
    pub fn write(&self, bytes: &[u8]) -> Result<u64, Stopped> {
        let spill = self.spill.as_ref().expect("a plan's file");
        spill.charge(bytes.len() as u64)?;
        match self.append(bytes) {
            Ok(at) => {
                spill
                    .written
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                Ok(at)
            }
            Err(e) => {
                spill.used.fetch_sub(bytes.len() as u64, Ordering::Relaxed);
                Err(spill.fail("write to", &e))
            }
        }
    }

    fn append(&self, bytes: &[u8]) -> io::Result<u64> {
        use std::os::unix::fs::FileExt;
        let at = self.len.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.file.write_all_at(bytes, at)?;
        Ok(at)
    }

    /// Fills `out` from `at`: whether it could. A failure is recorded in
    /// the plan (the search stops, and nothing it found stands) and
    /// leaves `out` zeroed.
    pub fn read(&self, at: u64, out: &mut [u8]) -> bool {
        let Err(e) = self.read_at(at, out) else {
            return true;
        };
        out.fill(0);
        if let Some(spill) = &self.spill {
            spill.fail("read from", &e);
        }
        false
    }

    fn read_at(&self, at: u64, out: &mut [u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.read_exact_at(out, at)
    }

    pub fn len(&self) -> u64 {
        self.len.load(Ordering::Relaxed)
    }

    /// Gives the disk the bytes `range` back, never to be read again (a
    /// run merged as it is streamed): the folder then holds about one
    /// copy of what is merged, not two. Each byte is released at most
    /// once. Where the filesystem cannot punch holes, they stay taken
    /// until the file goes.
    pub fn release(&self, range: std::ops::Range<u64>) {
        let length = range.end.saturating_sub(range.start);
        if length == 0 || !punch_hole(&self.file, range.start, length) {
            return;
        }
        self.released.fetch_add(length, Ordering::Relaxed);
        if let Some(spill) = &self.spill {
            spill.used.fetch_sub(length, Ordering::Relaxed);
        }
    }

    /// Bytes the file holds on disk.
    fn held(&self) -> u64 {
        self.len() - self.released.load(Ordering::Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        if let Some(spill) = &self.spill {
            spill.used.fetch_sub(self.held(), Ordering::Relaxed);
        }
    }
}

/// Frees `length` bytes of `file` from `start` (reading them gives
/// zeros), keeping its size: whether the filesystem did.
#[cfg(target_os = "linux")]
fn punch_hole(file: &File, start: u64, length: u64) -> bool {
    use std::os::fd::AsRawFd;
    let (Ok(start), Ok(length)) = (i64::try_from(start), i64::try_from(length)) else {
        return false;
    };
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: `fallocate` on a descriptor this `File` owns and keeps open.
    unsafe { libc::fallocate(file.as_raw_fd(), mode, start, length) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn punch_hole(_: &File, _: u64, _: u64) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_gone_from_the_folder_at_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), None).unwrap();
        let file = spill.file().unwrap();
        assert_eq!(file.write(b"hello").unwrap(), 0);
        assert_eq!(file.write(b", world").unwrap(), 5);
        let mut out = [0u8; 7];
        assert!(file.read(5, &mut out));
        assert_eq!(&out, b", world");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(spill.used(), 12);
        drop(file);
        assert_eq!((spill.used(), spill.peak()), (0, 12));
    }

    #[test]
    fn bytes_released_are_counted_off_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), None).unwrap();
        let file = spill.file().unwrap();
        file.write(&[7; 3 * 4096]).unwrap();
        file.release(0..2 * 4096);
        let mut tail = [0u8; 4096];
        assert!(file.read(2 * 4096, &mut tail));
        assert_eq!(tail, [7; 4096], "bytes after the hole are kept");
        // Where the filesystem punches holes (ext4, xfs, tmpfs do), the
        // folder is charged only for the bytes left.
        let punched = spill.used() == 4096;
        if punched {
            let mut head = [1u8; 4096];
            assert!(file.read(0, &mut head));
            assert_eq!(head, [0; 4096]);
        } else {
            assert_eq!(spill.used(), 3 * 4096);
        }
        drop(file);
        assert_eq!((spill.used(), spill.peak()), (0, 3 * 4096));
    }

    #[test]
    fn the_disk_budget_refuses_the_write_that_would_pass_it() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), Some(10)).unwrap();
        let file = spill.file().unwrap();
        file.write(b"12345678").unwrap();
        assert_eq!(file.write(b"123"), Err(Stopped::Disk));
        let failure = spill.failure().unwrap();
        assert!(failure.contains("--max-disk"), "{failure}");
        assert!(failure.contains(&dir.path().display().to_string()));
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_named_before_any_work() {
        let missing = Spill::new(Some(Path::new("/nonexistent/spill")), None).unwrap_err();
        assert_eq!(
            missing,
            "cannot spill to `/nonexistent/spill`: it does not exist"
        );
        let file = tempfile::NamedTempFile::new().unwrap();
        let not_folder = Spill::new(Some(file.path()), None).unwrap_err();
        assert!(not_folder.ends_with("it is not a folder"), "{not_folder}");
    }

    #[test]
    fn an_automatic_folder_is_removed_with_the_plan() {
        let spill = Spill::new(None, None).unwrap();
        let dir = spill.dir().to_path_buf();
        assert!(dir.is_dir());
        drop(spill);
        assert!(!dir.exists());
    }

    #[test]
    fn only_folders_whose_run_is_gone_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        let (live, _held) = tempfile_dir(parent.path()).unwrap();
        let (gone, lock) = tempfile_dir(parent.path()).unwrap();
        drop(lock);
        remove_abandoned(parent.path());
        assert!(live.is_dir(), "a folder whose lock is held stays");
        assert!(!gone.exists(), "a folder whose lock is free goes");
    }

    #[test]
    fn a_failure_is_forgotten_when_the_next_search_begins() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(Some(dir.path()), Some(10)).unwrap();
        let file = spill.file().unwrap();
        assert_eq!(file.write(&[0; 11]), Err(Stopped::Disk));
        assert!(spill.failure().is_some());
        spill.begin();
        assert_eq!(spill.failure(), None);
        assert_eq!(file.write(&[0; 10]), Ok(0));
    }
}

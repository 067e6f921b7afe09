//! Reading a script's bytes: once, and never more than a script may hold.
//!
//! `-` is standard input. The file is opened once and read once (a pipe
//! or a FIFO has no second reading), its kind and size are looked at
//! before anything is read (a directory or a regular file over the limit
//! is refused at once), and the bytes are read in chunks that stop at the
//! limit, so a device that never ends (`/dev/zero`) or a huge sparse file
//! costs nothing. A NUL byte ends the reading too: no script holds one,
//! and the lexical check says so at its place.

use std::io::Read;
use std::path::Path;

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// Why a script could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    Io(std::io::Error),
    Directory,
    /// More than the limit; the size when it was known before reading.
    TooLarge(Option<u64>),
}

impl ReadError {
    /// What went wrong, in words (after "cannot read `name`: ").
    pub(crate) fn reason(&self, limit: usize) -> String {
        match self {
            ReadError::Io(e) => match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".into(),
                std::io::ErrorKind::PermissionDenied => "permission denied".into(),
                std::io::ErrorKind::IsADirectory => "it is a directory".into(),
                _ => e.to_string(),
            },
            ReadError::Directory => "it is a directory".into(),
            ReadError::TooLarge(size) => {
                let size = size.map_or(String::new(), |s| format!(" ({} MiB)", s >> 20));
                format!(
                    "the script is too large{size}: at most {} MiB in all its files",
                    limit >> 20
                )
            }
        }
    }
}

/// What was read: the bytes, and whether the source was a character
/// device (a terminal or `/dev/null`), whose emptiness is no mistake.
pub(crate) struct Contents {
    pub bytes: Vec<u8>,
    pub device: bool,
}

/// Whether `path` names standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads the script at `path` (`-`: standard input), at most `limit`
/// bytes.
pub(crate) fn read(path: &Path, limit: usize) -> Result<Contents, ReadError> {
    if is_stdin(path) {
        let stdin = std::io::stdin();
        let device = stdin_is_device();
        return read_stream(stdin.lock(), limit).map(|bytes| Contents { bytes, device });
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if meta.is_dir() {
        return Err(ReadError::Directory);
    }
    if meta.is_file() && meta.len() > limit as u64 {
        return Err(ReadError::TooLarge(Some(meta.len())));
    }
    let device = is_char_device(&meta);
    read_stream(file, limit).map(|bytes| Contents { bytes, device })
}

/// Why the script at `path` cannot be opened and read, in words (after
/// "cannot read `name`: "), if it cannot: missing, a directory, not
/// permitted. Reads nothing.
pub fn unreadable(path: &Path) -> Option<String> {
    if is_stdin(path) {
        return None;
    }
    let problem = match std::fs::File::open(path).and_then(|file| file.metadata()) {
        Err(e) => ReadError::Io(e),
        Ok(meta) if meta.is_dir() => ReadError::Directory,
        Ok(_) => return None,
    };
    Some(problem.reason(usize::MAX))
}

/// Reads `source` to its end, a NUL byte, or past `limit` (an error).
fn read_stream(mut source: impl Read, limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0; CHUNK];
    loop {
        let n = match source.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadError::Io(e)),
        };
        if bytes.len() + n > limit {
            return Err(ReadError::TooLarge(None));
        }
        let got = &chunk[..n];
        if let Some(nul) = got.iter().position(|&b| b == 0) {
            bytes.extend_from_slice(&got[..=nul]);
            return Ok(bytes);
        }
        bytes.extend_from_slice(got);
    }
}

#[cfg(unix)]
fn is_char_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_char_device()
}

#[cfg(not(unix))]
fn is_char_device(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn stdin_is_device() -> bool {
    std::fs::metadata("/dev/stdin").is_ok_and(|m| is_char_device(&m))
}

#[cfg(not(unix))]
fn stdin_is_device() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

/// A script of nothing but white space (a wrong path, a truncated save)
/// is almost always a mistake, so it is refused; a script of comments
/// only is deliberate, and so is a device that reads as empty
/// (`/dev/null`: no script at all, for `symcsp eval /dev/null EXPR`).
pub(crate) fn is_blank(contents: &Contents) -> bool {
    !contents.device && contents.bytes.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_stops_at_the_limit_and_at_a_nul() {
        let endless = std::io::repeat(b'x');
        assert!(matches!(
            read_stream(endless, 100_000),
            Err(ReadError::TooLarge(None))
        ));
        let zeros = std::io::repeat(0);
        assert_eq!(read_stream(zeros, 100_000).unwrap(), vec![0]);
        let text = b"P = STOP\n".as_slice();
        assert_eq!(read_stream(text, 100).unwrap(), text);
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_oversized_files_are_judged_before_reading() {
        let zero = read(Path::new("/dev/zero"), 1 << 20).expect("read up to its first NUL");
        assert_eq!(zero.bytes, vec![0]);
        let null = read(Path::new("/dev/null"), 1 << 20).expect("empty");
        assert!(null.bytes.is_empty() && !is_blank(&null));
        let dir = read(Path::new("."), 1 << 20);
        assert!(matches!(dir, Err(ReadError::Directory)));
        let models = read(Path::new("models/liststack.csp"), 100);
        assert!(matches!(models, Err(ReadError::TooLarge(Some(_)))));
    }
}

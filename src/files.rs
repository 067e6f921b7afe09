//! Writing the user's files safely: a session, a DOT drawing or any other
//! file symcsp produces is written whole or not at all.

use std::io::Write;

/// Writes a file whole or not at all: into a temporary file beside it,
/// then renamed over it, so an interrupted write never leaves half a file.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let temporary = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::File::create(&temporary).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}

/// `path` as a person in the current directory would type it: relative
/// to that directory when it lies under it (an export names the script
/// without the machine's absolute paths), else as it is.
pub fn relative(path: impl AsRef<std::path::Path>) -> String {
    let path = path.as_ref();
    std::env::current_dir()
        .ok()
        .and_then(|here| path.strip_prefix(here).ok())
        .filter(|rest| !rest.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}

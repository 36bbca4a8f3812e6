//! Writing results: stdout (a closed pipe is not an error) or a file written atomically
//! (temp file in the same directory + rename), never over an input.

use std::io::{self, Write};
use std::path::Path;

/// Write `bytes` to stdout. A broken pipe (`| head`) is success.
pub fn to_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write `bytes` to `path` atomically: readers see the old file or the whole new one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    atomic_write_with(path, |w| w.write_all(bytes))
}

/// Atomic write with a streaming producer.
pub fn atomic_write_with(
    path: &Path,
    produce: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".toomany-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    {
        let mut w = io::BufWriter::new(tmp.as_file_mut());
        produce(&mut w)?;
        w.flush()?;
    }
    tmp.as_file().sync_all()?;
    fix_permissions(tmp.as_file(), path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A temporary file is created private (0600); the result should look like any other file the
/// user writes: keep the permissions of the file it replaces, else rw-r--r--.
#[cfg(unix)]
fn fix_permissions(file: &std::fs::File, path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let perms = match std::fs::metadata(path) {
        Ok(m) => m.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o644),
    };
    file.set_permissions(perms)
}

#[cfg(not(unix))]
fn fix_permissions(_: &std::fs::File, _: &Path) -> io::Result<()> {
    Ok(())
}

/// Are `a` and `b` the same file (so we must never write one over the other)?
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Should colour be used on stdout? `auto` = a terminal and `NO_COLOR` unset.
pub fn use_color(choice: crate::cli::ColorChoice) -> bool {
    use crate::cli::ColorChoice::*;
    use std::io::IsTerminal;
    match choice {
        Always => true,
        Never => false,
        Auto => {
            std::env::var_os("NO_COLOR")
                .map(|v| v.is_empty())
                .unwrap_or(true)
                && io::stdout().is_terminal()
        }
    }
}

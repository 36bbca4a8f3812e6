//! Putting a finished temp file at its target: over the file the user chose to replace, or —
//! for a file that did not exist when the run began — without replacing anything that
//! appeared since (another run writing the same report, a file saved meanwhile).

use std::fs;
use std::io;
use std::path::Path;

/// Rename `from` onto `to`, replacing it (the user asked for that file to be replaced).
pub fn replace(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)
}

/// Rename `from` onto `to`, which was absent when the run began, failing with
/// [`io::ErrorKind::AlreadyExists`] if anything is there now. Atomic where the system has a
/// no-replace rename (Linux `renameat2(RENAME_NOREPLACE)`); otherwise a hard link (which never
/// replaces) and the temp name's removal.
pub fn create(from: &Path, to: &Path) -> io::Result<()> {
    match rename_noreplace(from, to) {
        Err(e) if unsupported(&e) => link_then_unlink(from, to),
        other => other,
    }
    .map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => appeared(),
        _ => e,
    })
}

/// The error for a target that appeared while the run worked.
fn appeared() -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        "it did not exist when this run began, and something created it since (another run? \
         another program?); it was left as it is and this run's output was not written: pass \
         --force to replace it, or choose another path",
    )
}

#[cfg(target_os = "linux")]
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths that outlive the call; AT_FDCWD resolves them
    // as `rename` would.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn rename_noreplace(_from: &Path, _to: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// The system or filesystem has no no-replace rename (old kernels: ENOSYS; some filesystems:
/// EINVAL).
fn unsupported(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EINVAL)) {
        return true;
    }
    e.kind() == io::ErrorKind::Unsupported
}

fn link_then_unlink(from: &Path, to: &Path) -> io::Result<()> {
    fs::hard_link(from, to)?;
    // Published; a temp name left behind is the cleanup's to remove, not a failure.
    let _ = fs::remove_file(from);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_never_replaces_and_replace_does() {
        let d = tempfile::tempdir().unwrap();
        let (a, b, t) = (d.path().join("a"), d.path().join("b"), d.path().join("t"));
        fs::write(&a, "first").unwrap();
        create(&a, &t).unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "first");
        assert!(!a.exists());
        fs::write(&b, "second").unwrap();
        let e = create(&b, &t).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert!(e.to_string().contains("--force"), "{e}");
        assert_eq!(fs::read_to_string(&t).unwrap(), "first");
        assert!(b.exists(), "the temp stays for its owner to remove");
        replace(&b, &t).unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "second");
    }

    #[test]
    fn the_link_fallback_never_replaces_either() {
        let d = tempfile::tempdir().unwrap();
        let (a, t) = (d.path().join("a"), d.path().join("t"));
        fs::write(&a, "new").unwrap();
        fs::write(&t, "there").unwrap();
        assert_eq!(
            link_then_unlink(&a, &t).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read_to_string(&t).unwrap(), "there");
        fs::remove_file(&t).unwrap();
        link_then_unlink(&a, &t).unwrap();
        assert_eq!(fs::read_to_string(&t).unwrap(), "new");
        assert!(!a.exists());
    }
}

//! Writing results without ever destroying something the user did not ask to replace.
//!
//! `-` (or `/dev/stdout`) is stdout. Any other path is checked by [`prepare`] before the work
//! starts, so a refusal costs nothing:
//! - a regular file (or nothing yet) is written atomically: a temp file in the same directory,
//!   then a rename, so readers see the old file or the whole new one. A path where nothing was
//!   when the run began is published without replacing ([`publish::create`]): a file that
//!   appeared meanwhile (another run's report) is left whole and this run fails; the directory
//!   is checked writable before the work, by creating (and removing) a temp file in it;
//! - a symlink is followed to its final target and written there (atomically when that is a
//!   regular file); the link itself is never replaced;
//! - a character device or FIFO (`/dev/null`, a terminal, a named pipe) and `/dev/fd/N` are
//!   written in place: opened for writing, never renamed over;
//! - block devices, sockets and directories are refused;
//! - an input (same device and inode, however it is spelled) is never written over, and an
//!   existing file is replaced only with `force`.
//!
//! Temp files live on a cleanup list: Ctrl-C, SIGTERM or SIGHUP during a write removes them
//! before the process dies (one signal-hook thread, started on the first write), and any
//! error or panic removes them through a drop guard. [`write_set`] writes several files as a
//! set: every temp file is complete before the first rename, so a failure (a full disk)
//! leaves none of them.

mod publish;

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Write `bytes` to stdout. A broken pipe (`| head`) is success.
pub fn to_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write `text` through the pager `command` (a program and its words, or a shell command when it
/// has shell syntax), as git does: `LESS=FRX` and `LV=-c` when unset. A pager that cannot be
/// started, or that the shell could not find (exit 126 or 127 before reading), leaves the
/// text to stdout. Quitting the pager before the end is success.
pub fn to_pager(command: &str, text: &[u8]) -> io::Result<()> {
    use std::process::{Command, Stdio};
    let shell = command.contains(|c: char| "|&;<>()$`\\\"'*?[#~=%{}".contains(c));
    let mut words = command.split_whitespace();
    let mut cmd = match (shell, words.next()) {
        (false, Some(program)) => {
            let mut c = Command::new(program);
            c.args(words);
            c
        }
        _ => {
            let mut c = Command::new("sh");
            c.args(["-c", command]);
            c
        }
    };
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        cmd.env("LV", "-c");
    }
    let Ok(mut child) = cmd.stdin(Stdio::piped()).spawn() else {
        return to_stdout(text);
    };
    let written = match child.stdin.take() {
        Some(mut input) => input.write_all(text).and_then(|_| input.flush()),
        None => Ok(()),
    };
    let status = child.wait()?;
    if matches!(status.code(), Some(126 | 127)) {
        return to_stdout(text);
    }
    match written {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write what `produce` writes to stdout (buffered). A broken pipe is success.
pub fn to_stdout_with(produce: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match produce(&mut out).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Does this output argument mean stdout? `-`, and `/dev/stdout` (which would otherwise be
/// opened through `/proc/self/fd/1`, bypassing the broken-pipe handling).
pub fn is_stdout(arg: &Path) -> bool {
    arg.as_os_str() == "-" || arg.as_os_str() == "/dev/stdout"
}

/// What a file output is checked against.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    /// The flag that named the path, for messages: `-o`, `--emit-config`.
    pub flag: &'a str,
    /// Input paths (`-` = stdin): an output never lands on one of them.
    pub inputs: &'a [String],
    /// Replace an existing regular file; without it an existing file is refused.
    pub force: bool,
}

/// Which file a path names, compared by identity rather than spelling: device and inode for
/// an existing file, the directory's identity plus the name for one not yet created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKey {
    Existing(Identity),
    New { dir: Identity, name: OsString },
}

/// Device and inode (elsewhere: the canonical path).
#[cfg(unix)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(u64, u64);

#[cfg(not(unix))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity(PathBuf);

#[cfg(unix)]
fn identity(_path: &Path, md: &fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity(md.dev(), md.ino())
}

#[cfg(not(unix))]
fn identity(path: &Path, _md: &fs::Metadata) -> Identity {
    Identity(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// The identity of an existing input (`-` = whatever stdin is).
fn input_identity(input: &str) -> Option<Identity> {
    if input == "-" {
        return stdin_identity();
    }
    let p = Path::new(input);
    fs::metadata(p).ok().map(|md| identity(p, &md))
}

#[cfg(unix)]
fn stdin_identity() -> Option<Identity> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let md = File::from(fd).metadata().ok()?;
    Some(identity(Path::new("-"), &md))
}

#[cfg(not(unix))]
fn stdin_identity() -> Option<Identity> {
    None
}

/// How a prepared file will be written.
#[derive(Debug, Clone)]
enum How {
    /// Temp file beside `target`, then rename. `mode`: the permissions of the file replaced;
    /// `None` when nothing was there, and then nothing is replaced ([`publish::create`]).
    Replace { target: PathBuf, mode: Option<u32> },
    /// Open `target` for writing (appending, so a descriptor's content is never cut).
    InPlace { target: PathBuf },
}

/// A checked output path: what to do was decided by [`prepare`].
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// The path as the user gave it: every message names this, never a temp file.
    shown: String,
    how: How,
    key: FileKey,
}

/// What a path turned out to be after following symlinks.
enum Resolved {
    /// Nothing there yet (possibly the end of a dangling symlink): create `target`.
    Absent(PathBuf),
    /// An existing non-link.
    Found(PathBuf, fs::Metadata),
    /// `/proc/<pid>/fd/N` (also reached through `/dev/fd/N`, `/dev/stderr`): a descriptor.
    Descriptor(PathBuf),
}

/// Symlinks followed at most (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

/// The first leading part of `path` that exists and is not a directory (why the OS says "not
/// a directory" for a path under it).
pub fn file_in_the_way(path: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&Path> = path
        .ancestors()
        .skip(1)
        .filter(|a| !a.as_os_str().is_empty())
        .collect();
    parts.reverse();
    parts
        .into_iter()
        .find(|a| fs::metadata(a).is_ok_and(|m| !m.is_dir()))
        .map(Path::to_path_buf)
}

/// Why an output path was refused before anything was written.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("names a directory; give a file path")]
    NamesDirectory,
    #[error("is a directory; give a file path")]
    IsDirectory,
    #[error("names no file; give a file path")]
    NamesNoFile,
    #[error("{} is a file, not a directory, so nothing can be written under it; choose another path", .0.display())]
    FileInTheWay(PathBuf),
    #[error("cannot inspect it: {0}")]
    Inspect(io::Error),
    #[error("cannot read the link: {0}")]
    ReadLink(io::Error),
    #[error("is a symlink loop or chain too long to follow; refusing to replace it")]
    SymlinkLoop,
    #[error("cannot open: {0}")]
    Open(io::Error),
    /// A descriptor (`/dev/fd/N`) that is one of the inputs.
    #[error("refusing to write over the input {0}")]
    InputDescriptor(String),
    #[error("refusing to write over the input {0} (choose another path)")]
    Input(String),
    #[error("exists; pass --force to replace it (or choose another path)")]
    Exists,
    /// A block device, socket or other file that is neither a regular file nor a stream.
    #[error("is {0}; refusing to write onto it")]
    Special(&'static str),
    #[error(
        "the directory {0} does not exist; create it first (mkdir -p {0}) or choose another path"
    )]
    NoDirectory(String),
    #[error("cannot use the directory {0}: {1}")]
    Directory(String, io::Error),
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error("cannot create a file in the directory {0} ({1}); choose another path")]
    Unwritable(String, io::Error),
}

/// An output that could not be written (or was refused first), naming the path as given.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `flag path: why`, e.g. `-o report.json: exists; pass --force ...`.
    #[error("{flag} {path}: {why}")]
    Refused {
        flag: String,
        path: String,
        why: Refusal,
    },
    #[error("cannot write {path}: {source}")]
    Write { path: String, source: io::Error },
    /// One file of a set: none of the set was written.
    #[error("cannot write {path}: {source}; none of the {count} files was written")]
    WriteSet {
        path: String,
        count: usize,
        source: io::Error,
    },
    #[error("{0}: not a regular file; a set of files is only written to regular files")]
    SetNotRegular(String),
    #[error("cannot rename the written files into place: {source}; some of the {count} files may be old")]
    Commit { count: usize, source: io::Error },
}

fn resolve(path: &Path) -> Result<Resolved, Refusal> {
    let mut cur = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&cur) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Resolved::Absent(cur)),
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                return Err(match file_in_the_way(&cur) {
                    Some(f) => Refusal::FileInTheWay(f),
                    None => Refusal::Inspect(e),
                })
            }
            Err(e) => return Err(Refusal::Inspect(e)),
            Ok(md) if md.file_type().is_symlink() => {
                if is_descriptor_link(&cur) {
                    return Ok(Resolved::Descriptor(cur));
                }
                let to = fs::read_link(&cur).map_err(Refusal::ReadLink)?;
                cur = match cur.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(md) => return Ok(Resolved::Found(cur, md)),
        }
    }
    Err(Refusal::SymlinkLoop)
}

/// Is `p` an entry of a `/proc/<pid>/fd` directory?
fn is_descriptor_link(p: &Path) -> bool {
    let Some(dir) = p.parent() else { return false };
    match fs::canonicalize(dir) {
        Ok(d) => d.starts_with("/proc") && d.file_name().is_some_and(|n| n == "fd"),
        Err(_) => false,
    }
}

fn kind_name(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_fifo() {
            return "a FIFO";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

fn is_char_device(ft: &fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        ft.is_char_device()
    }
    #[cfg(not(unix))]
    {
        let _ = ft;
        false
    }
}

/// Devices and pipes that are written in place (a stream, not a file to replace).
fn is_stream(ft: &fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        ft.is_char_device() || ft.is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = ft;
        false
    }
}

#[cfg(unix)]
fn mode_of(md: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    md.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_: &fs::Metadata) -> u32 {
    0
}

/// Decide how `path` will be written, refusing what must not be touched. Call before the work.
pub fn prepare(path: &Path, rules: &Rules) -> Result<OutputFile, Error> {
    let shown = path.display().to_string();
    let refuse = |why: Refusal| Error::Refused {
        flag: rules.flag.to_string(),
        path: shown.clone(),
        why,
    };
    let inputs: Vec<(&String, Identity)> = rules
        .inputs
        .iter()
        .filter_map(|i| input_identity(i).map(|id| (i, id)))
        .collect();
    let is_input = |id: &Identity| inputs.iter().find(|(_, x)| x == id).map(|(i, _)| *i);
    if shown.ends_with('/') {
        return Err(refuse(Refusal::NamesDirectory));
    }
    let (how, key) = match resolve(path).map_err(refuse)? {
        Resolved::Descriptor(target) => {
            let md = fs::metadata(&target).map_err(|e| refuse(Refusal::Open(e)))?;
            let id = identity(&target, &md);
            if let Some(i) = is_input(&id).filter(|_| !is_char_device(&md.file_type())) {
                return Err(refuse(Refusal::InputDescriptor(i.clone())));
            }
            if md.is_dir() {
                return Err(refuse(Refusal::IsDirectory));
            }
            (How::InPlace { target }, FileKey::Existing(id))
        }
        Resolved::Found(target, md) => {
            let ft = md.file_type();
            let id = identity(&target, &md);
            // A terminal or /dev/null read and written is not an input overwritten.
            if let Some(i) = is_input(&id).filter(|_| !is_char_device(&ft)) {
                return Err(refuse(Refusal::Input(i.clone())));
            }
            if ft.is_file() {
                if !rules.force {
                    return Err(refuse(Refusal::Exists));
                }
                let mode = Some(mode_of(&md));
                (How::Replace { target, mode }, FileKey::Existing(id))
            } else if is_stream(&ft) {
                (How::InPlace { target }, FileKey::Existing(id))
            } else if ft.is_dir() {
                return Err(refuse(Refusal::IsDirectory));
            } else {
                return Err(refuse(Refusal::Special(kind_name(&ft))));
            }
        }
        Resolved::Absent(target) => {
            let name = target
                .file_name()
                .ok_or_else(|| refuse(Refusal::NamesNoFile))?
                .to_os_string();
            let dir = parent_dir(&target);
            let dir_shown = dir.display().to_string();
            let dmd = match fs::metadata(dir) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(refuse(Refusal::NoDirectory(dir_shown)))
                }
                Err(e) => return Err(refuse(Refusal::Directory(dir_shown, e))),
            };
            if !dmd.is_dir() {
                return Err(refuse(Refusal::NotADirectory(dir_shown)));
            }
            let key = FileKey::New {
                dir: identity(dir, &dmd),
                name,
            };
            (How::Replace { target, mode: None }, key)
        }
    };
    if let How::Replace { target, .. } = &how {
        writable_dir(target).map_err(refuse)?;
    }
    Ok(OutputFile { shown, how, key })
}

/// Can a file be created beside `target` (what the write will do)? Asked by creating one and
/// removing it at once, so a read-only directory or filesystem, a full quota or missing
/// permission is refused before the work, not after it. The probe is not put on the cleanup
/// list: that would install the signal handler before the work, and a command with its own
/// (`mock` stops gracefully on SIGTERM) would lose it.
fn writable_dir(target: &Path) -> Result<(), Refusal> {
    let dir = parent_dir(target);
    let fail = |e: io::Error| Refusal::Unwritable(dir.display().to_string(), e);
    for _ in 0..16 {
        let probe = dir.join(format!(".toomany-probe.{:016x}.toomany-tmp", random_u64()));
        match OpenOptions::new().write(true).create_new(true).open(&probe) {
            Ok(f) => {
                drop(f);
                return fs::remove_file(&probe).map_err(fail);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(fail(e)),
        }
    }
    Err(fail(io::Error::from(io::ErrorKind::AlreadyExists)))
}

fn parent_dir(p: &Path) -> &Path {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

impl OutputFile {
    /// The path as the user gave it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Which file this is (to keep two outputs from landing on one file).
    pub fn key(&self) -> &FileKey {
        &self.key
    }

    /// Written in place (a device, FIFO or descriptor) rather than replaced atomically.
    pub fn in_place(&self) -> bool {
        matches!(self.how, How::InPlace { .. })
    }

    /// Write `bytes`. Errors name the path the user gave.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Error> {
        self.write_with(|w| w.write_all(bytes))
    }

    /// Write what `produce` writes (streamed through a buffer).
    pub fn write_with(
        &self,
        produce: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Error> {
        let fail = |source: io::Error| Error::Write {
            path: self.shown.clone(),
            source,
        };
        match &self.how {
            How::InPlace { target } => {
                let file = OpenOptions::new().append(true).open(target).map_err(fail)?;
                let mut w = io::BufWriter::new(file);
                produce(&mut w).and_then(|_| w.flush()).map_err(fail)
            }
            How::Replace { target, mode } => {
                let tmp = Temp::create(target, *mode).map_err(fail)?;
                tmp.fill(produce).map_err(fail)?;
                commit(vec![tmp]).map_err(fail)
            }
        }
    }
}

/// Write every file of a set, or none: all temp files are written and synced before the first
/// rename. Files written in place are not allowed in a set (they cannot be undone).
pub fn write_set(files: &[(&OutputFile, &[u8])]) -> Result<(), Error> {
    let mut temps = Vec::with_capacity(files.len());
    let n = files.len();
    for (f, bytes) in files {
        let fail = |source: io::Error| Error::WriteSet {
            path: f.shown.clone(),
            count: n,
            source,
        };
        let How::Replace { target, mode } = &f.how else {
            return Err(Error::SetNotRegular(f.shown.clone()));
        };
        let tmp = Temp::create(target, *mode).map_err(fail)?;
        tmp.fill(|w| w.write_all(bytes)).map_err(fail)?;
        temps.push(tmp);
    }
    commit(temps).map_err(|source| Error::Commit { count: n, source })
}

/// A temp file beside its target, removed on drop (error, panic) or by the signal handler
/// unless committed.
struct Temp {
    path: PathBuf,
    target: PathBuf,
    file: Option<File>,
    /// Permissions to give the result: those of the file replaced. `None`: the temp file was
    /// created with 0666 less the umask, which is what the result keeps, and the target was
    /// absent, so it is created without replacing anything.
    mode: Option<u32>,
}

impl Temp {
    fn create(target: &Path, mode: Option<u32>) -> io::Result<Temp> {
        let dir = parent_dir(target);
        let stem: String = target
            .file_name()
            .map(|n| n.to_string_lossy().chars().take(64).collect())
            .unwrap_or_default();
        for _ in 0..16 {
            let path = dir.join(format!(".{stem}.{:016x}.toomany-tmp", random_u64()));
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                // Replacing a file: private until its own permissions are copied over.
                opts.mode(if mode.is_some() { 0o600 } else { 0o666 });
            }
            // Listed before it exists, so a signal between creation and listing cannot leave it.
            cleanup::register(&path);
            match opts.open(&path) {
                Ok(file) => {
                    return Ok(Temp {
                        path,
                        target: target.to_path_buf(),
                        file: Some(file),
                        mode,
                    })
                }
                Err(e) => {
                    cleanup::forget(&path);
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "could not create a temporary file beside it",
        ))
    }

    fn fill(&self, produce: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        let file = self.file.as_ref().expect("temp file open until commit");
        let mut w = io::BufWriter::with_capacity(256 * 1024, file);
        produce(&mut w)?;
        w.flush()?;
        drop(w);
        file.sync_all()?;
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        self.file = None;
        let _ = fs::remove_file(&self.path);
        cleanup::forget(&self.path);
    }
}

/// Rename every temp file onto its target, with the cleanup list locked so a signal cannot
/// remove a file between its rename and its removal from the list. A target that was absent
/// is created without replacing; when one of a set cannot be, the new files already published
/// are removed again (the files replaced cannot be restored: the message says so).
fn commit(mut temps: Vec<Temp>) -> io::Result<()> {
    let mut live = cleanup::hold();
    let mut result = Ok(());
    let mut created: Vec<PathBuf> = Vec::new();
    for t in temps.iter_mut() {
        t.file = None;
        let published = match t.mode {
            Some(_) => publish::replace(&t.path, &t.target),
            None => publish::create(&t.path, &t.target),
        };
        if let Err(e) = published {
            result = Err(e);
            break;
        }
        if t.mode.is_none() {
            created.push(t.target.clone());
        }
        // Renamed: nothing left to remove.
        live.retain(|x| x != &t.path);
        t.path = PathBuf::new();
    }
    drop(live);
    if result.is_err() {
        for c in &created {
            let _ = fs::remove_file(c);
        }
    }
    if result.is_ok() {
        for t in &temps {
            sync_dir(parent_dir(&t.target));
        }
    }
    result
}

/// Make the rename durable (best effort: not every filesystem lets a directory be synced).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    if getrandom::getrandom(&mut b).is_ok() {
        return u64::from_le_bytes(b);
    }
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (std::process::id() as u64) << 32
}

/// Temp files to remove if the process is interrupted.
mod cleanup {
    use std::path::{Path, PathBuf};
    use std::sync::{Mutex, MutexGuard, Once};

    static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    static HANDLER: Once = Once::new();

    fn live() -> MutexGuard<'static, Vec<PathBuf>> {
        LIVE.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn register(p: &Path) {
        HANDLER.call_once(install);
        live().push(p.to_path_buf());
    }

    pub fn forget(p: &Path) {
        if p.as_os_str().is_empty() {
            return;
        }
        live().retain(|x| x != p);
    }

    /// Hold the list (the signal handler waits) while temp files are renamed.
    pub fn hold() -> MutexGuard<'static, Vec<PathBuf>> {
        live()
    }

    /// On SIGINT, SIGTERM or SIGHUP: remove the temp files, then die of the signal as the
    /// default action would (so the shell sees 130/143, not a clean exit).
    #[cfg(unix)]
    fn install() {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("toomany-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let files = live();
                    for p in files.iter() {
                        let _ = std::fs::remove_file(p);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
        let _ = spawned;
    }

    #[cfg(not(unix))]
    fn install() {}
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn rules<'a>(inputs: &'a [String], force: bool) -> Rules<'a> {
        Rules {
            flag: "-o",
            inputs,
            force,
        }
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("toomany-tmp"))
            .collect()
    }

    #[test]
    fn new_file_is_written_and_no_temp_is_left() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let f = prepare(&p, &rules(&[], false)).unwrap();
        assert!(!f.in_place());
        f.write(b"{}\n").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"{}\n");
        assert!(leftovers(d.path()).is_empty());
    }

    #[test]
    fn existing_file_needs_force_and_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.txt");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        let e = prepare(&p, &rules(&[], false)).unwrap_err();
        assert!(matches!(
            e,
            Error::Refused {
                why: Refusal::Exists,
                ..
            }
        ));
        let e = e.to_string();
        assert!(e.contains("--force") && e.contains("r.txt"), "{e}");
        prepare(&p, &rules(&[], true))
            .unwrap()
            .write(b"new")
            .unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn an_input_is_refused_however_it_is_spelled() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.har");
        fs::write(&input, "{}").unwrap();
        let other_spelling = d.path().join(".").join("in.har");
        let hard = d.path().join("hard.har");
        fs::hard_link(&input, &hard).unwrap();
        let inputs = vec![input.display().to_string()];
        for p in [&other_spelling, &hard] {
            let e = prepare(p, &rules(&inputs, true)).unwrap_err().to_string();
            assert!(e.contains("input"), "{e}");
        }
        assert_eq!(fs::read(&input).unwrap(), b"{}");
    }

    #[test]
    fn symlink_is_written_through_atomically_at_its_target() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real.json");
        fs::write(&real, "old").unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();
        prepare(&link, &rules(&[], true))
            .unwrap()
            .write(b"new")
            .unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        // A dangling link creates its target.
        let dangling = d.path().join("dangling.json");
        std::os::unix::fs::symlink("made.json", &dangling).unwrap();
        prepare(&dangling, &rules(&[], false))
            .unwrap()
            .write(b"x")
            .unwrap();
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(d.path().join("made.json")).unwrap(), b"x");
        // A symlink onto an input is the input.
        let inputs = vec![real.display().to_string()];
        assert!(prepare(&link, &rules(&inputs, true)).is_err());
        // A loop is refused.
        let a = d.path().join("a");
        let b = d.path().join("b");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", &b).unwrap();
        assert!(prepare(&a, &rules(&[], true))
            .unwrap_err()
            .to_string()
            .contains("loop"));
    }

    #[test]
    fn dev_null_is_written_in_place_and_dev_full_reports_the_error() {
        let f = prepare(Path::new("/dev/null"), &rules(&[], false)).unwrap();
        assert!(f.in_place());
        f.write(b"discarded").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        if Path::new("/dev/full").exists() {
            let e = prepare(Path::new("/dev/full"), &rules(&[], false))
                .unwrap()
                .write(b"x")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("cannot write /dev/full: "), "{e}");
        }
    }

    #[test]
    fn missing_directory_and_directory_targets_name_the_users_path() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("nope").join("r.json");
        let e = prepare(&p, &rules(&[], false)).unwrap_err().to_string();
        assert!(
            e.contains("r.json") && e.contains("does not exist") && e.contains("mkdir -p"),
            "{e}"
        );
        let e = prepare(d.path(), &rules(&[], true))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a directory"), "{e}");
    }

    #[test]
    fn a_failed_set_leaves_no_file_and_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let a = prepare(&d.path().join("a.txt"), &rules(&[], false)).unwrap();
        let b = prepare(&d.path().join("b.txt"), &rules(&[], false)).unwrap();
        // `b` cannot be written: its directory disappears after it was prepared.
        let sub = d.path().join("sub");
        fs::create_dir(&sub).unwrap();
        let c = prepare(&sub.join("c.txt"), &rules(&[], false)).unwrap();
        fs::remove_dir(&sub).unwrap();
        let e = write_set(&[(&a, b"a"), (&b, b"b"), (&c, b"c")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("c.txt"), "{e}");
        assert!(!d.path().join("a.txt").exists() && !d.path().join("b.txt").exists());
        assert!(leftovers(d.path()).is_empty());
        write_set(&[(&a, b"a"), (&b, b"b")]).unwrap();
        assert_eq!(fs::read(d.path().join("b.txt")).unwrap(), b"b");
    }

    #[test]
    fn a_failing_producer_leaves_the_old_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.txt");
        fs::write(&p, "old").unwrap();
        let f = prepare(&p, &rules(&[], true)).unwrap();
        let e = f
            .write_with(|w| {
                w.write_all(b"partial")?;
                Err(io::Error::other("boom"))
            })
            .unwrap_err()
            .to_string();
        assert!(e.contains("boom") && !e.contains("toomany-tmp"), "{e}");
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert!(leftovers(d.path()).is_empty());
    }
}

#[cfg(test)]
mod pager_tests {
    use super::to_pager;

    /// The pager gets the whole text; one that cannot start, or that the shell cannot find,
    /// leaves it to stdout (the call succeeds either way).
    #[test]
    fn the_pager_gets_the_text_or_stdout_does() {
        let d = tempfile::tempdir().unwrap();
        let got = d.path().join("paged.txt");
        let text = b"Who limited you: 2 rate-limited responses\n".repeat(200);
        to_pager(&format!("dd status=none of={}", got.display()), &text).unwrap();
        assert_eq!(std::fs::read(&got).unwrap(), text);
        // Through the shell (a pipe in the command).
        let piped = d.path().join("piped.txt");
        to_pager(
            &format!("cat | dd status=none of={}", piped.display()),
            &text,
        )
        .unwrap();
        assert_eq!(std::fs::read(&piped).unwrap(), text);
        to_pager("/nonexistent/pager", b"fallback\n").unwrap();
        to_pager("/nonexistent/pager | cat", b"fallback\n").unwrap();
    }
}

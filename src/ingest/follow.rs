//! Following inputs as they grow, like `tail -F`: a file is read from its start, then polled
//! for what is appended; a rotation by rename (the path now names a new file) is followed to
//! the new file once the old one is read to its end, and a copytruncate (the file got shorter)
//! is read again from its start. Standard input is an endless stream, read on a thread of its
//! own until it ends.
//!
//! A poll hands out whole lines only ([`Chunk`]): the unterminated last line waits for its
//! newline (or for a rotation, or the end, which complete it). Lines are numbered across the
//! whole followed stream: after a rotation the numbers go on from the old file's.
//!
//! This module does the reading; what the lines say is decided where the chunks are streamed
//! ([`super::stream_opened`]).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// The most bytes one poll hands out (a big existing file is read a chunk at a time).
pub const CHUNK_MAX: usize = 8 << 20;

/// An unterminated line longer than this is handed out as it is (the line readers then skip
/// it as too long) instead of being held for its newline.
const CARRY_MAX: usize = super::jsonl::MAX_LINE + 1;

/// Whole lines read from a followed input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text: whole lines, each ending in `\n`.
    pub bytes: Vec<u8>,
    /// The number of its first line in the followed stream (1-based).
    pub first_line: usize,
}

/// Why a file cannot be followed (opened at the start, or after a rotation).
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot open: {0}")]
    Open(io::Error),
    #[error("cannot read: {0}")]
    Read(io::Error),
    #[error("is a directory, not a file")]
    Directory,
    #[error(
        "gzip-compressed: a compressed file is finished, not growing; analyze it without --follow"
    )]
    Gzip,
}

/// Something that happened to a followed file, said once.
#[derive(Debug)]
pub enum Note {
    /// The path names a new file (rotation by rename); reading goes on there.
    Rotated,
    /// The file got shorter (copytruncate): read again from its start.
    Truncated,
    /// The path names nothing at the moment (between a rename and the new file).
    Missing,
    /// The new file cannot be opened yet.
    Unreadable(OpenError),
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::Rotated => f.write_str("rotated: now reading the new file from its start"),
            Note::Truncated => {
                f.write_str("truncated (copytruncate): reading it again from its start")
            }
            Note::Missing => f.write_str("gone for now: waiting for a file of that name"),
            Note::Unreadable(e) => write!(f, "cannot open the new file yet: {e}"),
        }
    }
}

/// What one poll found.
#[derive(Debug, Default)]
pub struct Polled {
    pub chunk: Option<Chunk>,
    pub notes: Vec<Note>,
    /// The input ended (standard input closed); nothing more will come.
    pub ended: bool,
}

/// Whole lines out of a byte stream, numbered.
#[derive(Debug)]
struct Lines {
    carry: Vec<u8>,
    next_line: usize,
}

impl Default for Lines {
    fn default() -> Self {
        Lines {
            carry: Vec::new(),
            next_line: 1,
        }
    }
}

impl Lines {
    fn push(&mut self, bytes: &[u8]) {
        self.carry.extend_from_slice(bytes);
    }

    /// The unterminated last line is complete (its file ended: rotated or truncated).
    fn complete(&mut self) {
        if self.carry.last().is_some_and(|&b| b != b'\n') {
            self.carry.push(b'\n');
        }
    }

    /// The whole lines held (all of them, with the unterminated last one when `complete`, or
    /// when it is too long to wait for).
    fn take(&mut self, complete: bool) -> Option<Chunk> {
        let mut cut = match memchr::memrchr(b'\n', &self.carry) {
            Some(i) => i + 1,
            None => 0,
        };
        if (complete || self.carry.len() - cut > CARRY_MAX) && cut < self.carry.len() {
            self.carry.push(b'\n');
            cut = self.carry.len();
        }
        if cut == 0 {
            return None;
        }
        let rest = self.carry.split_off(cut);
        let bytes = std::mem::replace(&mut self.carry, rest);
        let first_line = self.next_line;
        self.next_line += memchr::memchr_iter(b'\n', &bytes).count();
        Some(Chunk { bytes, first_line })
    }
}

/// Identity of an open file: device and inode (unix), so a rename is told from growth.
#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// A followed file (see the module doc).
#[derive(Debug)]
pub struct FileFollower {
    path: PathBuf,
    file: File,
    id: Option<(u64, u64)>,
    pos: u64,
    lines: Lines,
    /// Nothing read yet from the open file (a byte-order mark there is dropped).
    fresh: bool,
    /// Said [`Note::Missing`] / [`Note::Unreadable`] already for the current absence.
    absent_said: bool,
    pub rotations: u32,
    pub truncations: u32,
}

/// Open `path` for following: it must exist and be a plain (not gzip-compressed) file.
fn open_plain(path: &Path) -> Result<(File, Option<(u64, u64)>), OpenError> {
    let mut f = File::open(path).map_err(OpenError::Open)?;
    let m = f.metadata().map_err(OpenError::Read)?;
    if m.is_dir() {
        return Err(OpenError::Directory);
    }
    let mut magic = [0u8; 2];
    let n = f.read(&mut magic).map_err(OpenError::Read)?;
    if n == 2 && magic == [0x1f, 0x8b] {
        return Err(OpenError::Gzip);
    }
    f.seek(SeekFrom::Start(0)).map_err(OpenError::Read)?;
    Ok((f, identity(&m)))
}

impl FileFollower {
    /// Start following `path`, from its start.
    pub fn open(path: &Path) -> Result<FileFollower, OpenError> {
        let (file, id) = open_plain(path)?;
        Ok(FileFollower {
            path: path.to_path_buf(),
            file,
            id,
            pos: 0,
            lines: Lines::default(),
            fresh: true,
            absent_said: false,
            rotations: 0,
            truncations: 0,
        })
    }

    /// Read what was appended (at most [`CHUNK_MAX`] bytes); at the end of the file, look for a
    /// rotation or a truncation.
    pub fn poll(&mut self) -> io::Result<Polled> {
        let mut out = Polled::default();
        let n = self.read_some(CHUNK_MAX)?;
        if n == 0 {
            self.check_moved(&mut out)?;
        }
        out.chunk = self.lines.take(false);
        Ok(out)
    }

    /// Everything held, the unterminated last line too (the following stops).
    pub fn finish(&mut self) -> Option<Chunk> {
        self.lines.take(true)
    }

    fn read_some(&mut self, max: usize) -> io::Result<usize> {
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0;
        while total < max {
            let n = match self.file.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                break;
            }
            let mut text = &buf[..n];
            if std::mem::take(&mut self.fresh) {
                text = text.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(text);
            }
            self.lines.push(text);
            self.pos += n as u64;
            total += n;
        }
        Ok(total)
    }

    /// At the end of the open file: truncated (read again from the start), or the path names
    /// another file (read the old one to its end, then the new one from its start).
    fn check_moved(&mut self, out: &mut Polled) -> io::Result<()> {
        let open_len = self.file.metadata()?.len();
        if open_len < self.pos {
            // copytruncate: the lines of the old content are complete.
            self.lines.complete();
            self.file.seek(SeekFrom::Start(0))?;
            self.pos = 0;
            self.fresh = true;
            self.truncations += 1;
            out.notes.push(Note::Truncated);
            return Ok(());
        }
        let now = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !self.absent_said {
                    self.absent_said = true;
                    out.notes.push(Note::Missing);
                }
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let moved = match (identity(&now), self.id) {
            (Some(a), Some(b)) => a != b,
            _ => false,
        };
        if !moved {
            self.absent_said = false;
            return Ok(());
        }
        // Written to the old file between the last read and the rename.
        self.read_some(usize::MAX)?;
        match open_plain(&self.path) {
            Ok((file, id)) => {
                self.lines.complete();
                self.file = file;
                self.id = id;
                self.pos = 0;
                self.fresh = true;
                self.absent_said = false;
                self.rotations += 1;
                out.notes.push(Note::Rotated);
            }
            Err(e) => {
                if !self.absent_said {
                    self.absent_said = true;
                    out.notes.push(Note::Unreadable(e));
                }
            }
        }
        Ok(())
    }
}

/// Standard input as an endless stream: read on a thread of its own in blocks, handed over
/// through a bounded channel (a slow analysis slows the reading, it does not pile it up).
#[derive(Debug)]
pub struct StdinFollower {
    rx: mpsc::Receiver<io::Result<Vec<u8>>>,
    lines: Lines,
    ended: bool,
}

impl StdinFollower {
    /// Start reading standard input.
    pub fn start() -> StdinFollower {
        StdinFollower::from_reader(Box::new(io::stdin()))
    }

    /// Read `reader` as an endless stream (tests give a pipe of their own).
    pub fn from_reader(mut reader: Box<dyn Read + Send>) -> StdinFollower {
        let (tx, rx) = mpsc::sync_channel(64);
        let _ = std::thread::Builder::new()
            .name("toomany-stdin".into())
            .spawn(move || loop {
                let mut buf = vec![0u8; 64 * 1024];
                match reader.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        buf.truncate(n);
                        if tx.send(Ok(buf)).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            });
        StdinFollower {
            rx,
            lines: Lines::default(),
            ended: false,
        }
    }

    /// What arrived since the last poll (waiting at most `wait` for the first block).
    pub fn poll(&mut self, wait: std::time::Duration) -> io::Result<Polled> {
        let mut out = Polled::default();
        let mut got = 0usize;
        let mut first = true;
        while !self.ended && got < CHUNK_MAX {
            let next = if first {
                self.rx.recv_timeout(wait).map_err(|e| match e {
                    mpsc::RecvTimeoutError::Timeout => mpsc::TryRecvError::Empty,
                    mpsc::RecvTimeoutError::Disconnected => mpsc::TryRecvError::Disconnected,
                })
            } else {
                self.rx.try_recv()
            };
            first = false;
            match next {
                Ok(Ok(b)) => {
                    got += b.len();
                    self.lines.push(&b);
                }
                Ok(Err(e)) => {
                    self.ended = true;
                    out.chunk = self.lines.take(true);
                    out.ended = true;
                    return match out.chunk {
                        Some(_) => Ok(out),
                        None => Err(e),
                    };
                }
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => self.ended = true,
            }
        }
        out.ended = self.ended;
        out.chunk = self.lines.take(self.ended);
        Ok(out)
    }

    /// Everything held, the unterminated last line too.
    pub fn finish(&mut self) -> Option<Chunk> {
        self.lines.take(true)
    }
}

/// One followed input: a file or standard input.
#[derive(Debug)]
pub enum Follower {
    File(FileFollower),
    Stdin(StdinFollower),
}

impl Follower {
    /// Follow `path` (`-` = standard input).
    pub fn open(path: &str) -> Result<Follower, OpenError> {
        if path == "-" {
            return Ok(Follower::Stdin(StdinFollower::start()));
        }
        FileFollower::open(Path::new(path)).map(Follower::File)
    }

    /// What is new. `wait`: how long standard input may block for its first block (files are
    /// never waited for).
    pub fn poll(&mut self, wait: std::time::Duration) -> io::Result<Polled> {
        match self {
            Follower::File(f) => f.poll(),
            Follower::Stdin(s) => s.poll(wait),
        }
    }

    /// Everything held (the following stops).
    pub fn finish(&mut self) -> Option<Chunk> {
        match self {
            Follower::File(f) => f.finish(),
            Follower::Stdin(s) => s.finish(),
        }
    }

    pub fn is_stdin(&self) -> bool {
        matches!(self, Follower::Stdin(_))
    }
}

#[cfg(test)]
mod tests;

//! Inputs given more than once: a path given twice, two names of one file, or a file with the
//! same bytes as an earlier one is read once, so no record is counted twice (twice the requests
//! would double every rate the plan is built from).
//!
//! Each input is looked up, not compared with every earlier one: by its canonical path, then by
//! its length, and only when an earlier file has the same length, by a hash of its first
//! [`HEAD_BYTES`]; files are compared byte for byte only when both match. Thousands of small
//! files (a load balancer's day) cost one `stat` each and one read of those whose length
//! another has (a comparison of every pair read 1,360 files per file at 2,000 files).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How much of a file its hash covers (equal lengths and heads are then compared in full).
const HEAD_BYTES: usize = 64 * 1024;

/// An input left out because it repeats an earlier one, and the note that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeat {
    pub path: String,
    pub note: String,
}

/// A kept regular file: as given, and its canonical path.
struct Seen {
    path: String,
    canon: PathBuf,
}

/// The kept files, looked up by canonical path, by length and by length and head.
#[derive(Default)]
struct Kept {
    files: Vec<Seen>,
    by_canon: HashMap<PathBuf, usize>,
    /// Per length: the one kept file of that length whose head is not hashed yet, or `None`
    /// once the files of that length are in `by_head`.
    by_len: HashMap<u64, Option<usize>>,
    by_head: HashMap<(u64, u64), Vec<usize>>,
}

/// What a regular file is to the kept ones.
enum Verdict {
    /// It repeats one: the note that says so.
    Repeat(String),
    /// It is new; its head's hash when one was needed (a kept file has its length).
    New(Option<u64>),
}

impl Kept {
    /// Whether `p` (canonical path `canon`, `len` bytes) repeats a kept file.
    fn verdict(&mut self, p: &str, canon: &Path, len: u64) -> Verdict {
        if let Some(&i) = self.by_canon.get(canon) {
            let q = &self.files[i].path;
            return Verdict::Repeat(if p == q {
                format!("{p} is given more than once: read once")
            } else {
                format!("{p} is {q} given again: read once")
            });
        }
        if !self.length_kept(len) {
            return Verdict::New(None);
        }
        // Unreadable: not known to repeat anything (reading it reports the error).
        let Ok(mine) = head_hash(canon) else {
            return Verdict::New(None);
        };
        let same = self.by_head.get(&(len, mine)).and_then(|kept| {
            kept.iter()
                .find(|&&i| same_bytes(&self.files[i].canon, canon).unwrap_or(false))
        });
        match same {
            Some(&i) => Verdict::Repeat(format!(
                "{p} has the same bytes as {}: read once (its records would be counted twice)",
                self.files[i].path
            )),
            None => Verdict::New(Some(mine)),
        }
    }

    /// Whether a kept file has length `len` (if it was the only one, its head is hashed now:
    /// from here on the files of that length are looked up by head).
    fn length_kept(&mut self, len: u64) -> bool {
        match self.by_len.get(&len) {
            None => false,
            Some(None) => true,
            Some(&Some(only)) => {
                self.by_len.insert(len, None);
                if let Ok(h) = head_hash(&self.files[only].canon) {
                    self.by_head.entry((len, h)).or_default().push(only);
                }
                true
            }
        }
    }

    /// Keep a regular file (`head`: its head's hash, when files of its length are hashed).
    fn keep(&mut self, path: &str, canon: PathBuf, len: u64, head: Option<u64>) {
        let i = self.files.len();
        self.by_canon.insert(canon.clone(), i);
        self.by_len.entry(len).or_insert(Some(i));
        if let Some(h) = head {
            self.by_head.entry((len, h)).or_default().push(i);
        }
        self.files.push(Seen {
            path: path.to_string(),
            canon,
        });
    }
}

/// The inputs with repeats left out, in the order given (see the module doc). Stdin and inputs
/// that cannot be looked at are kept as given (reading them reports their error).
pub fn distinct_inputs(paths: &[String]) -> (Vec<String>, Vec<Repeat>) {
    let mut kept = Kept::default();
    let mut out = Vec::with_capacity(paths.len());
    let mut repeats = Vec::new();
    for p in paths {
        let Some((canon, len)) = regular_file(p) else {
            out.push(p.clone());
            continue;
        };
        match kept.verdict(p, &canon, len) {
            Verdict::Repeat(note) => repeats.push(Repeat {
                path: p.clone(),
                note,
            }),
            Verdict::New(head) => {
                kept.keep(p, canon, len, head);
                out.push(p.clone());
            }
        }
    }
    (out, repeats)
}

/// A regular file's canonical path and length (`-`, missing files and others: `None`).
fn regular_file(p: &str) -> Option<(PathBuf, u64)> {
    if p == "-" {
        return None;
    }
    let canon = std::fs::canonicalize(p).ok()?;
    let md = std::fs::metadata(&canon).ok().filter(|m| m.is_file())?;
    Some((canon, md.len()))
}

/// A hash of a file's first [`HEAD_BYTES`].
fn head_hash(path: &Path) -> io::Result<u64> {
    use std::hash::{Hash, Hasher};
    let mut buf = vec![0u8; HEAD_BYTES];
    let n = read_full(&mut File::open(path)?, &mut buf)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    buf[..n].hash(&mut h);
    Ok(h.finish())
}

/// Do two files of the same length hold the same bytes?
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    let (mut ra, mut rb) = (File::open(a)?, File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let n = read_full(&mut ra, &mut ba)?;
        let m = read_full(&mut rb, &mut bb)?;
        if n != m || ba[..n] != bb[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Read until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_inputs_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        std::fs::write(path("a.log"), "one\ntwo\n").unwrap();
        std::fs::write(path("copy.log"), "one\ntwo\n").unwrap();
        std::fs::write(path("other.log"), "one\ntwx\n").unwrap();
        let again = format!("{}/./a.log", dir.path().display());
        let given: Vec<String> = vec![
            path("a.log"),
            again.clone(),
            path("other.log"),
            path("copy.log"),
            "-".into(),
            "-".into(),
            path("missing.log"),
        ];
        let (kept, repeats) = distinct_inputs(&given);
        assert_eq!(
            kept,
            vec![
                path("a.log"),
                path("other.log"),
                "-".into(),
                "-".into(),
                path("missing.log")
            ]
        );
        let left: Vec<&str> = repeats.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(left, vec![again.as_str(), path("copy.log").as_str()]);
        assert!(repeats[0].note.contains("given again"), "{:?}", repeats[0]);
        assert!(repeats[1].note.contains("same bytes"), "{:?}", repeats[1]);
    }

    /// Many files of one length: a copy of one of them is found by its head, not by comparing
    /// it with each; files that share a length and a head but differ further on are kept.
    #[test]
    fn copies_among_files_of_one_length_and_heads_alike() {
        let dir = tempfile::tempdir().unwrap();
        let path = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
        let mut given = Vec::new();
        for i in 0..50 {
            std::fs::write(path(&format!("f{i:02}")), format!("line {i:02}\n")).unwrap();
            given.push(path(&format!("f{i:02}")));
        }
        std::fs::write(path("copy"), "line 03\n").unwrap();
        given.push(path("copy"));
        let head = vec![b'x'; HEAD_BYTES];
        for (name, tail) in [("long-a", b"a"), ("long-b", b"b"), ("long-a2", b"a")] {
            let mut bytes = head.clone();
            bytes.extend_from_slice(tail);
            std::fs::write(path(name), bytes).unwrap();
            given.push(path(name));
        }
        let (kept, repeats) = distinct_inputs(&given);
        assert_eq!(kept.len(), 52, "{kept:?}");
        assert!(kept.contains(&path("long-b")));
        let notes: Vec<(&str, &str)> = repeats
            .iter()
            .map(|r| (r.path.as_str(), r.note.as_str()))
            .collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(notes[0].0, path("copy"));
        assert!(
            notes[0].1.ends_with(&format!(
                "same bytes as {}: read once (its records would be counted twice)",
                path("f03")
            )),
            "{notes:?}"
        );
        assert_eq!(notes[1].0, path("long-a2"));
        assert!(
            notes[1]
                .1
                .contains(&format!("same bytes as {}", path("long-a"))),
            "{notes:?}"
        );
    }
}

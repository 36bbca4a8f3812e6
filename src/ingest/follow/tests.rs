use super::*;
use std::io::Write;

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// Poll until nothing new comes (a few polls), gathering the text and the notes.
fn drain(f: &mut FileFollower) -> (String, Vec<usize>, Vec<Note>) {
    let mut text = String::new();
    let mut firsts = Vec::new();
    let mut notes = Vec::new();
    for _ in 0..4 {
        let p = f.poll().unwrap();
        notes.extend(p.notes);
        if let Some(c) = p.chunk {
            firsts.push(c.first_line);
            text.push_str(std::str::from_utf8(&c.bytes).unwrap());
        }
    }
    (text, firsts, notes)
}

#[test]
fn reads_what_is_there_then_what_is_appended_in_whole_lines() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("app.log");
    append(&p, "\u{feff}one\ntwo\nthr");
    let mut f = FileFollower::open(&p).unwrap();
    let (text, firsts, notes) = drain(&mut f);
    assert_eq!(text, "one\ntwo\n", "the unterminated line waits");
    assert_eq!(firsts, vec![1]);
    assert!(notes.is_empty());
    append(&p, "ee\nfour\n");
    let (text, firsts, _) = drain(&mut f);
    assert_eq!(text, "three\nfour\n");
    assert_eq!(firsts, vec![3]);
    assert_eq!(f.finish(), None);
    append(&p, "five");
    drain(&mut f);
    let last = f.finish().unwrap();
    assert_eq!((last.bytes, last.first_line), (b"five\n".to_vec(), 5));
}

#[test]
fn a_rename_rotation_reads_the_old_file_to_its_end_then_the_new_one() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("app.log");
    append(&p, "a1\na2\n");
    let mut f = FileFollower::open(&p).unwrap();
    assert_eq!(drain(&mut f).0, "a1\na2\n");
    // The writer still has the old file open after the rename, then opens a new one.
    std::fs::rename(&p, d.path().join("app.log.1")).unwrap();
    append(&d.path().join("app.log.1"), "a3\na4-unterminated");
    let (text, _, notes) = drain(&mut f);
    assert_eq!(
        text, "a3\n",
        "the old file is still read while the name is gone"
    );
    assert!(matches!(notes[..], [Note::Missing]), "{notes:?}");
    append(&p, "b1\nb2\n");
    let (text, firsts, notes) = drain(&mut f);
    assert_eq!(text, "a4-unterminated\nb1\nb2\n");
    assert!(matches!(notes[..], [Note::Rotated]), "{notes:?}");
    assert_eq!(firsts, vec![4, 5], "line numbers go on across the rotation");
    assert_eq!(f.rotations, 1);
}

#[test]
fn copytruncate_reads_the_file_again_from_its_start() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("app.log");
    append(&p, "old1\nold2\nold3\n");
    let mut f = FileFollower::open(&p).unwrap();
    assert_eq!(drain(&mut f).0, "old1\nold2\nold3\n");
    // copytruncate: copied away, then truncated in place; the writer goes on appending.
    std::fs::copy(&p, d.path().join("app.log.1")).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(0)
        .unwrap();
    append(&p, "new1\n");
    let (text, _, notes) = drain(&mut f);
    assert_eq!(text, "new1\n");
    assert!(matches!(notes[..], [Note::Truncated]), "{notes:?}");
    assert_eq!(f.truncations, 1);
}

#[test]
fn gzip_and_directories_are_refused_with_a_reason() {
    let d = tempfile::tempdir().unwrap();
    let gz = d.path().join("old.log.gz");
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0]).unwrap();
    let e = FileFollower::open(&gz).unwrap_err();
    assert!(matches!(e, OpenError::Gzip), "{e:?}");
    let e = e.to_string();
    assert!(e.contains("gzip") && e.contains("without --follow"), "{e}");
    let e = FileFollower::open(d.path()).unwrap_err();
    assert!(matches!(e, OpenError::Directory), "{e:?}");
    assert_eq!(e.to_string(), "is a directory, not a file");
    let e = FileFollower::open(&d.path().join("nope")).unwrap_err();
    assert!(matches!(e, OpenError::Open(_)), "{e:?}");
    assert!(e.to_string().starts_with("cannot open: "), "{e}");
}

#[test]
fn a_stream_is_read_until_it_ends_and_its_last_line_completed() {
    let mut s = StdinFollower::from_reader(Box::new(std::io::Cursor::new(b"x1\nx2\nx3".to_vec())));
    let mut text = Vec::new();
    let mut ended = false;
    for _ in 0..100 {
        let p = s.poll(std::time::Duration::from_millis(50)).unwrap();
        if let Some(c) = p.chunk {
            text.extend(c.bytes);
        }
        if p.ended {
            ended = true;
            break;
        }
    }
    assert!(ended);
    assert_eq!(text, b"x1\nx2\nx3\n");
}

#[test]
fn an_endless_line_is_handed_out_rather_than_held() {
    let mut l = Lines::default();
    l.push(&vec![b'x'; CARRY_MAX + 10]);
    let c = l.take(false).unwrap();
    assert_eq!(c.bytes.len(), CARRY_MAX + 11);
    assert!(l.take(false).is_none());
}

/// A followed piece goes through the ordinary readers with its lines numbered from where it
/// starts in the stream, and a JSON-lines piece with no record is no error of its own (an
/// access log's blank piece is never streamed: `analyze::live::Following` skips it).
#[test]
fn a_piece_is_numbered_from_its_first_line_and_may_hold_no_record() {
    use crate::ingest::{source::Opened, stream_opened, Options};
    use crate::model::{Position, Request};
    let opts = |piece| Options {
        piece: Some(piece),
        threads: Some(1),
        ..Options::new(crate::redact::Redactor::from_key_material(b"k"))
    };
    let pieces: [(&str, &[u8]); 2] = [
        (
            "p.jsonl",
            b"{\"status\":429,\"url\":\"https://a.example/x\"}\n\n{\"status\":200,\"url\":\"https://a.example/y\"}\n",
        ),
        (
            "p.log",
            b"1.2.3.4 - - [07/Dec/2026:16:00:00 +0000] \"GET /x HTTP/1.1\" 429 12 \"-\" \"curl/8\"\n\n1.2.3.4 - - [07/Dec/2026:16:00:01 +0000] \"GET /y HTTP/1.1\" 200 12 \"-\" \"curl/8\"\n",
        ),
    ];
    for (name, text) in pieces {
        let mut got = Vec::new();
        let map = |r: Request| r.location.position;
        let s = stream_opened(
            name,
            Ok(Opened::from_bytes(text.to_vec())),
            &opts(21),
            &map,
            None,
            &mut |b| got.append(b),
        );
        assert_eq!(got, vec![Position::Line(21), Position::Line(23)], "{name}");
        assert_eq!(s.records, 2, "{name}");
        if name != "p.jsonl" {
            continue;
        }
        let s = stream_opened(
            name,
            Ok(Opened::from_bytes(b"\n\n".to_vec())),
            &Options {
                format: Some(crate::ingest::Format::Jsonl),
                ..opts(24)
            },
            &map,
            None,
            &mut |b| got.append(b),
        );
        assert_eq!((s.records, s.error), (0, None), "{name}");
    }
}

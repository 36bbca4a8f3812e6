use super::*;
use crate::model::{Location, Position, Request};

fn ra(i: u32) -> RetryAfter {
    match i % 4 {
        0 => RetryAfter::absent(),
        1 => RetryAfter {
            raw: Some("30".into()),
            seconds: Some(30.0),
            kind: Kind::Delta,
            header: None,
            note: None,
        },
        2 => RetryAfter {
            raw: Some("Wed, 21 Oct 2026 07:28:00 GMT".into()),
            seconds: Some(12.5),
            kind: Kind::Date,
            header: Some("x-retry-after".into()),
            note: Some("a date".into()),
        },
        _ => RetryAfter {
            raw: Some("soon".into()),
            seconds: None,
            kind: Kind::Invalid,
            header: None,
            note: Some("not a delay".into()),
        },
    }
}

/// Row `i`, its record's place: every 5th row's record is in memory (pinned), every 7th row
/// is a failure without a record.
fn row(i: u32) -> (Row, Stored) {
    let row = Row {
        t_us: 1_700_000_000_000_000 + i64::from(i) * 1000 - 5000,
        t_ns: (i % 1000) as u16,
        loc: u64::from(i) << 20 | 7,
        host: i % 3,
        client: i % 11,
        op: u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        kind: if i.is_multiple_of(7) {
            Kept::Failure
        } else {
            Kept::Limited
        },
        retry_after: Arc::new(ra(i)),
        facts: None,
        cors: None,
    };
    let stored = if i.is_multiple_of(7) {
        Stored::None
    } else if i.is_multiple_of(5) {
        Stored::Memory(Box::new(Request::at(Location {
            source: Arc::from("t.log"),
            position: Position::Line(i as usize),
        })))
    } else {
        Stored::Disk {
            at: u64::from(i) * 300,
            len: 250 + i,
        }
    };
    (row, stored)
}

/// `n` rows pushed one by one, offered after each as [`super::super::Rows::push`] does; then
/// read back, and the rows kept in memory since put after them.
fn through(n: u32, chunk: usize) -> (Held, Vec<Row>, Vec<Stored>) {
    let mut h = Held::new(chunk);
    let (mut rows, mut records) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (r, s) = row(i);
        rows.push(r);
        records.push(s);
        h.offer(&mut rows, &mut records);
        assert!(rows.len() < chunk.max(1), "at most a chunk waits in memory");
        assert_eq!(h.written as usize + rows.len(), i as usize + 1);
    }
    let (mut back, mut back_records) = h.read_back(&mut Arc::new);
    back.append(&mut rows);
    back_records.append(&mut records);
    (h, back, back_records)
}

#[test]
fn rows_come_back_whole_and_in_id_order() {
    for (n, chunk) in [(0, 4), (1, 1), (3, 4), (4, 4), (50, 4), (50, 7), (200, 64)] {
        let (h, rows, records) = through(n, chunk);
        assert_eq!(
            (h.lost, h.error.as_deref()),
            (0, None),
            "{n} rows, chunk {chunk}"
        );
        assert_eq!(rows.len(), n as usize);
        for (i, (r, s)) in rows.iter().zip(&records).enumerate() {
            let (want, want_stored) = row(i as u32);
            assert_eq!(format!("{r:?}"), format!("{want:?}"), "row {i}");
            assert_eq!(
                format!("{s:?}"),
                format!("{want_stored:?}"),
                "record of row {i}"
            );
        }
    }
}

#[test]
fn a_cross_origin_row_is_pinned_in_memory_and_comes_back_in_its_place() {
    let mut h = Held::new(2);
    let cors = crate::attribute::cors::Cors {
        page_origin: "https://app.example".into(),
        target_origin: "https://api.example".into(),
        how_known: "Origin differs",
        credentialed: false,
        allow_origin: None,
        expose_headers: None,
        readable: false,
        retry_after_exposed: false,
    };
    let (mut rows, mut records) = (Vec::new(), Vec::new());
    for i in 0..4 {
        let (mut r, s) = row(i + 1);
        if i == 1 {
            r.cors = Some(Box::new(cors.clone()));
        }
        rows.push(r);
        records.push(s);
        h.offer(&mut rows, &mut records);
    }
    assert_eq!((h.written, h.pinned.len()), (4, 1));
    let (back, _) = h.read_back(&mut Arc::new);
    assert_eq!(back.len(), 4);
    assert_eq!(
        back[1].cors.as_deref().map(|c| c.how_known),
        Some("Origin differs")
    );
    assert!(back
        .iter()
        .enumerate()
        .all(|(i, r)| i == 1 || r.cors.is_none()));
    assert_eq!(back[2].t_ns, row(3).0.t_ns);
}

#[test]
fn a_chunk_that_cannot_be_read_back_leaves_placeholders_and_says_so() {
    let mut h = Held::new(3);
    let (mut rows, mut records) = (Vec::new(), Vec::new());
    for i in 1..=6 {
        let (r, s) = row(i);
        rows.push(r);
        records.push(s);
        h.offer(&mut rows, &mut records);
    }
    // The second chunk's bytes damaged: its length says more than the file holds.
    let w = h.writer.as_mut().expect("the file is there");
    w.flush().expect("flushed");
    w.get_mut()
        .write_all(&u64::MAX.to_le_bytes())
        .expect("written");
    h.written += 3;
    let (back, back_records) = h.read_back(&mut Arc::new);
    assert_eq!(back.len(), 9);
    assert_eq!(
        format!("{:?}", back[5]),
        format!("{:?}", row(6).0),
        "the good chunks are read"
    );
    // Row 5 (id 4) is pinned: it comes back even so.
    assert_eq!(back[4].t_ns, row(5).0.t_ns);
    assert_eq!(h.lost, 3);
    assert!(back[6..].iter().all(|r| r.kind == Kept::Failure));
    assert!(back_records[6..].iter().all(|s| matches!(s, Stored::None)));
    assert_eq!(
        h.error.as_deref(),
        Some("a temporary file was not read back whole")
    );
}

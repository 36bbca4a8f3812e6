use super::*;
use crate::http::retry_after;
use proptest::prelude::*;

fn row(
    i: usize,
    url: String,
    shared: &(Arc<str>, Arc<RetryAfter>, Arc<Attribution>),
) -> RateLimited {
    RateLimited {
        request_index: i,
        source: shared.0.clone(),
        position: if i.is_multiple_of(3) {
            Position::Entry(i)
        } else {
            Position::Line(i + 1)
        },
        time: (!i.is_multiple_of(5))
            .then(|| {
                chrono::DateTime::from_timestamp(
                    1_714_564_800 + i as i64,
                    (i as u64 * 7919 % 1_000_000_000) as u32,
                )
            })
            .flatten(),
        method: Arc::from(if i.is_multiple_of(2) { "GET" } else { "POST" }),
        url: Arc::from(url),
        status: 429,
        span: (i.is_multiple_of(7)).then(|| {
            Box::new(SpanRef {
                trace_id: format!("{i:032x}"),
                span_id: format!("{i:016x}"),
                chain: i as u64,
            })
        }),
        retry_after: shared.1.clone(),
        attribution: shared.2.clone(),
        client: (!i.is_multiple_of(4)).then(|| Arc::from(format!("worker-{}", i % 4))),
        next_attempt: (i.is_multiple_of(2))
            .then(|| chrono::DateTime::from_timestamp(1_714_564_900 + i as i64, 5))
            .flatten(),
    }
}

fn shared() -> (Arc<str>, Arc<RetryAfter>, Arc<Attribution>) {
    let mut h = crate::model::Headers::default();
    h.push("Retry-After", "12");
    (
        Arc::from("capture.jsonl"),
        Arc::new(retry_after::from_headers(&h, None)),
        Arc::new(Attribution::unknown()),
    )
}

/// Each row's whole content: its JSON and the fields the JSON leaves out.
fn whole(r: &RateLimited) -> String {
    format!(
        "{} {} {:?} {:?}",
        serde_json::to_string(r).unwrap(),
        r.request_index,
        r.client,
        r.next_attempt
    )
}

fn written(rows: &[RateLimited]) -> RateLimitedRows {
    let mut w = RowsWriter::default();
    for r in rows {
        w.push(r.clone());
    }
    w.finish()
}

#[test]
fn a_long_list_goes_to_a_file_and_reads_back_equal_twice() {
    let s = shared();
    let rows: Vec<RateLimited> = (0..IN_MEMORY_ROWS * 3)
        .map(|i| row(i, format!("https://api.example.com/v1/orders/{i}"), &s))
        .collect();
    let list = written(&rows);
    assert!(list.spilled());
    assert_eq!(list.len(), rows.len());
    for _ in 0..2 {
        let mut n = 0;
        for (a, b) in rows.iter().zip(list.iter()) {
            assert_eq!(whole(a), whole(&b));
            // The shared parts stay shared.
            assert!(Arc::ptr_eq(&a.attribution, &b.attribution));
            n += 1;
        }
        assert_eq!(n, rows.len());
    }
    assert_eq!(list.read_error(), None);
    assert_eq!(
        serde_json::to_string(&list).unwrap(),
        serde_json::to_string(&rows).unwrap()
    );
}

#[test]
fn a_short_list_stays_in_memory() {
    let s = shared();
    let rows: Vec<RateLimited> = (0..10)
        .map(|i| row(i, format!("https://a.example/{i}"), &s))
        .collect();
    let list = written(&rows);
    assert!(!list.spilled());
    assert_eq!(
        list.iter().map(|r| whole(&r)).collect::<Vec<_>>(),
        rows.iter().map(whole).collect::<Vec<_>>()
    );
}

#[test]
fn a_row_too_long_for_the_file_keeps_its_place() {
    let s = shared();
    let mut rows: Vec<RateLimited> = (0..IN_MEMORY_ROWS + 10)
        .map(|i| row(i, format!("https://a.example/{i}"), &s))
        .collect();
    let at = IN_MEMORY_ROWS + 3;
    rows[at] = row(at, format!("https://a.example/{}", "x".repeat(200_000)), &s);
    let list = written(&rows);
    assert!(list.spilled());
    let back: Vec<String> = list.iter().map(|r| whole(&r)).collect();
    assert_eq!(back, rows.iter().map(whole).collect::<Vec<_>>());
}

#[test]
fn map_changes_every_row_in_order_spilled_or_not() {
    let s = shared();
    for n in [5, IN_MEMORY_ROWS + 5] {
        let rows: Vec<RateLimited> = (0..n)
            .map(|i| row(i, format!("https://a.example/{i}"), &s))
            .collect();
        let list = written(&rows).map(|i, r| r.client = Some(Arc::from(format!("c{i}"))));
        let clients: Vec<String> = list.iter().map(|r| r.client.unwrap().to_string()).collect();
        assert_eq!(clients, (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>());
    }
}

#[test]
fn make_mut_reads_a_spilled_list_into_memory() {
    let s = shared();
    let rows: Vec<RateLimited> = (0..IN_MEMORY_ROWS + 5)
        .map(|i| row(i, format!("https://a.example/{i}"), &s))
        .collect();
    let mut list = written(&rows);
    list.make_mut()[0].status = 503;
    assert!(!list.spilled());
    assert_eq!(list.iter().next().unwrap().status, 503);
    assert_eq!(list.len(), rows.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_row_comes_back_equal(i in 0usize..1_000_000, url in ".{0,200}", method in ".{0,10}", client in proptest::option::of(".{0,20}")) {
        let s = shared();
        let mut r = row(i, url, &s);
        r.method = Arc::from(method);
        r.client = client.map(Arc::from);
        let mut sh = Shared::default();
        let mut b = Vec::new();
        encode(&r, &mut sh, &mut b);
        let back = decode(&b, &sh).expect("decoded");
        prop_assert_eq!(whole(&r), whole(&back));
        for cut in [0, b.len() / 2, b.len() - 1] {
            prop_assert!(decode(&b[..cut], &sh).is_none());
        }
    }
}

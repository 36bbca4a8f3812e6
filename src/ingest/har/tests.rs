use super::*;
use std::io::Cursor;

fn opts() -> Options {
    Options::new(Redactor::from_key_material(b"k"))
}

fn read_str(s: &str) -> ReadOutcome {
    let src: Arc<str> = Arc::from("t.har");
    read(
        Box::new(Cursor::new(s.as_bytes().to_vec())),
        &src,
        &opts(),
        false,
    )
}

#[test]
fn reads_entries_in_any_key_order() {
    let har = r#"{"log":{"entries":[
            {"request":{"method":"GET","url":"https://a.com/x?token=SECRET","headers":[{"name":"Authorization","value":"Bearer SECRET"}]},
             "response":{"status":429,"headers":[{"name":"Retry-After","value":"12"}],"content":{"text":"slow down","mimeType":"text/plain"}},
             "startedDateTime":"2024-01-01T00:00:00.000Z","time":12.5,"timings":{"wait":10}}
        ],"version":"1.2","creator":{"name":"T","version":"1"}}}"#;
    let o = read_str(har);
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.requests.len(), 1);
    let r = &o.requests[0];
    assert_eq!(r.status, 429);
    assert_eq!(r.method, "GET");
    assert!(!r.url.contains("SECRET"));
    assert!(r.credential.is_some());
    assert_eq!(r.response_headers.get("retry-after"), Some("12"));
    assert_eq!(r.body_excerpt.as_deref(), Some("slow down"));
    assert_eq!(r.wait_ms, Some(10.0));
    assert_eq!(o.creator.as_deref(), Some("T 1"));
}

#[test]
fn tolerates_odd_fields() {
    let har = r#"{"log":{"version":"1.1","entries":[
            {"startedDateTime":"2024-01-01T00:00:00Z","request":{"method":"GET","url":"u"},"response":{"status":"429","headers":null},"timings":{},"time":null},
            42,
            {"request":"oops","response":{"status":200,"headers":[{"name":"x","value":null}]}}
        ]}}"#;
    let o = read_str(har);
    assert!(o.error.is_none());
    assert_eq!(o.requests.len(), 2);
    assert_eq!(o.skipped, 1);
    assert_eq!(o.requests[0].status, 429);
    assert!(o.warnings.count >= 3);
    assert!(o
        .warnings
        .kept
        .iter()
        .any(|w| w.position == Some(Position::Entry(1))));
}

#[test]
fn truncated_keeps_earlier_entries() {
    let har = r#"{"log":{"entries":[{"request":{"url":"a"},"response":{"status":200}},{"request":{"url":"b"},"resp"#;
    let o = read_str(har);
    assert_eq!(o.requests.len(), 1);
    let e = o.error.unwrap();
    assert!(e.contains("entry 1") && e.contains("truncated"), "{e}");
}

/// A HAR saved without content keeps `content.size` and drops `text`: that body is
/// unknown, not empty (HAR 1.2: size is the length of the returned content).
#[test]
fn a_sized_body_without_text_was_not_captured() {
    let har = r#"{"log":{"entries":[
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":118,"mimeType":"application/json"}}},
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":0,"mimeType":"text/plain"}}},
            {"request":{"url":"u"},"response":{"status":429,"content":{"size":12,"text":"slow down   "}}},
            {"request":{"url":"u"},"response":{"status":200,"content":{"size":99}}}]}}"#;
    let o = read_str(har);
    let flags: Vec<bool> = o.requests.iter().map(|r| r.body_not_captured).collect();
    assert_eq!(flags, [true, false, false, false]);
    assert!(o.requests[0].body_unknown() && !o.requests[1].body_unknown());
}

#[test]
fn success_bodies_are_dropped() {
    let har = r#"{"log":{"entries":[{"request":{"url":"a"},"response":{"status":200,"content":{"text":"big body"}}}]}}"#;
    assert!(read_str(har).requests[0].body_excerpt.is_none());
}

fn entry(extra_request: &str, status: u32, text: &str) -> String {
    format!(
        r#"{{"startedDateTime":"2024-01-01T00:00:00Z","request":{{"method":"POST","url":"https://a.example/p"{extra_request}}},"response":{{"status":{status},"content":{{"text":{}}}}}}}"#,
        serde_json::to_string(text).unwrap()
    )
}

#[test]
fn log_less_root_and_fields_nobody_reads_are_skipped() {
    let har = format!(
        r#"{{"version":"1.2","pages":[{{"id":"p","title":"t"}}],"entries":[{}],"_extra":{{"deep":[1,2,{{"x":"y"}}]}}}}"#,
        entry(
            r#","cookies":[{"name":"a","value":"b"}],"_initiator":{"stack":{"callFrames":[]}}"#,
            429,
            "busy"
        )
    );
    let o = read_str(&har);
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(o.requests.len(), 1);
    assert_eq!(o.requests[0].body_excerpt.as_deref(), Some("busy"));
}

#[test]
fn entries_as_an_object_is_a_warning() {
    let o = read_str(r#"{"log":{"entries":{"a":1}}}"#);
    assert!(o.warnings.kept[0]
        .message
        .contains("an object, not an array"));
    assert!(o.error.unwrap().contains("no entries"));
}

#[test]
fn duplicate_keys_read_the_first() {
    let har = r#"{"log":{"entries":[{"request":{"url":"https://first.example/"},"request":{"url":"https://second.example/"},"response":{"status":200,"status":429}}]}}"#;
    let o = read_str(har);
    assert_eq!(o.requests[0].url, "https://first.example/");
    assert_eq!(o.requests[0].status, 200);
}

#[test]
fn a_body_before_its_status_is_kept_only_when_not_a_success() {
    let har = r#"{"log":{"entries":[
            {"request":{"url":"u"},"response":{"content":{"text":"late status"},"status":429}},
            {"request":{"url":"u"},"response":{"content":{"text":"late status"},"status":200}}]}}"#;
    let o = read_str(har);
    assert_eq!(o.requests[0].body_excerpt.as_deref(), Some("late status"));
    assert!(o.requests[1].body_excerpt.is_none());
}

#[test]
fn an_over_long_url_is_cut_with_a_located_warning() {
    let long = format!(
        "https://a.example/{}",
        "x".repeat(crate::ingest::caps::URL.max + 10)
    );
    let har = format!(
        r#"{{"log":{{"entries":[{{"request":{{"url":"{long}"}},"response":{{"status":429}}}}]}}}}"#
    );
    let o = read_str(&har);
    assert_eq!(o.requests.len(), 1);
    assert!(o.requests[0].url.len() <= crate::ingest::caps::URL.max);
    let w = &o.warnings.kept[0];
    assert_eq!(w.position, Some(Position::Entry(0)));
    assert!(
        w.message.contains("request.url") && w.message.contains("cut"),
        "{}",
        w.message
    );
    assert!(w.message.len() < 120, "{}", w.message);
}

#[test]
fn request_bodies_are_fingerprinted_whole() {
    let big = "b".repeat(3 << 20);
    let mut big2 = big.clone();
    big2.push('!');
    let pd = |t: &str| {
        format!(
            r#","postData":{{"mimeType":"text/plain","text":{}}}"#,
            serde_json::to_string(t).unwrap()
        )
    };
    let har = format!(
        r#"{{"log":{{"entries":[{},{},{},{}]}}}}"#,
        entry(&pd(&big), 429, ""),
        entry(&pd(&big), 429, ""),
        entry(&pd(&big2), 429, ""),
        entry(&pd(""), 429, "")
    );
    let o = read_str(&har);
    let fp: Vec<_> = o
        .requests
        .iter()
        .map(|r| r.request_body_fingerprint.clone())
        .collect();
    assert!(fp[0].is_some());
    assert_eq!(fp[0], fp[1]);
    assert_ne!(fp[0], fp[2], "bodies differing after the first MiB differ");
    assert!(fp[3].is_none(), "an empty body has no fingerprint");
}

/// Views as their Debug text; every third one declined (as a host wanting baseline samples
/// does): the entry is then normalized again in full.
struct EveryThirdDeclined<'a>(&'a std::sync::atomic::AtomicUsize);

impl super::super::Views<String> for EveryThirdDeclined<'_> {
    fn may_view(&self, _: u16, _: bool, _: &str) -> bool {
        true
    }
    fn view(&self, v: &RecordView<'_>) -> Option<String> {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (!n.is_multiple_of(3)).then(|| format!("{v:?}"))
    }
}

/// Every HAR we have (samples, fixtures, the real exporter corpus), read with and without
/// the view path: the same events' views and the same warnings, and some entries did take
/// the view path.
#[test]
fn the_view_path_reads_every_har_as_the_full_path() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let files = har_files();
    assert!(!files.is_empty());
    let o = opts();
    let src: Arc<str> = Arc::from("t.har");
    let viewed = AtomicUsize::new(0);
    let mut entries = 0;
    for f in &files {
        let (bytes, jsonp) = har_bytes(f);
        let run = |with_view: bool| {
            let mut items = Vec::new();
            let mut warnings = Vec::new();
            let view = EveryThirdDeclined(&viewed);
            let tail = stream(
                Box::new(Cursor::new(bytes.clone())),
                &src,
                &o,
                jsonp,
                &|r| format!("{:?}", RecordView::of(&r)),
                with_view.then_some(&view as ViewMap<'_, String>),
                &mut |d| {
                    items.append(&mut d.items);
                    warnings.extend(d.warnings.drain(..).map(|w| w.message));
                },
            );
            (items, warnings, tail.error)
        };
        let before = viewed.load(Ordering::Relaxed);
        let full = run(false);
        assert_eq!(
            viewed.load(Ordering::Relaxed),
            before,
            "no view without one"
        );
        let lite = run(true);
        assert!(full == lite, "{}", f.display());
        entries += full.0.len();
    }
    let viewed = viewed.into_inner();
    assert!(viewed > 0 && viewed < entries, "{viewed} of {entries}");
}

/// Every record (its full Debug text), warning, error and creator `stream` gives with
/// `threads` workers.
fn read_with(bytes: &[u8], jsonp: bool, threads: usize) -> (Vec<String>, Vec<String>, Tail) {
    let mut o = opts();
    o.threads = Some(threads);
    let src: Arc<str> = Arc::from("t.har");
    let (mut items, mut warnings) = (Vec::new(), Vec::new());
    let tail = stream(
        Box::new(Cursor::new(bytes.to_vec())),
        &src,
        &o,
        jsonp,
        &|r| format!("{r:?}"),
        None,
        &mut |d| {
            items.append(&mut d.items);
            warnings.extend(d.warnings.drain(..).map(|w| format!("{w:?}")));
        },
    );
    (items, warnings, tail)
}

fn assert_split_reads_as_in_place(name: &str, bytes: &[u8], jsonp: bool) {
    let one = read_with(bytes, jsonp, 1);
    for threads in [2, 3] {
        let many = read_with(bytes, jsonp, threads);
        assert!(
            one.0 == many.0,
            "{name}: records differ with {threads} workers"
        );
        assert_eq!(one.1, many.1, "{name}: warnings, {threads} workers");
        assert_eq!(
            one.2.error, many.2.error,
            "{name}: error, {threads} workers"
        );
        assert_eq!(one.2.creator, many.2.creator, "{name}: creator");
    }
}

/// A HAR file's bytes without a UTF-8 BOM, and whether it is JSONP-wrapped (starts with
/// neither `{` nor `[`).
fn har_bytes(f: &std::path::Path) -> (Vec<u8>, bool) {
    let mut bytes = std::fs::read(f).unwrap();
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    let jsonp = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b != b'{' && b != b'[');
    (bytes, jsonp)
}

fn har_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in ["samples", "tests/fixtures", "tests/corpus/real-har"] {
        let Ok(rd) = std::fs::read_dir(root.join(d)) else {
            continue;
        };
        files.extend(
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "har")),
        );
    }
    files
}

/// Entries handed to workers as bytes (more than one worker) read exactly as entries read
/// in place (one): every HAR we have.
#[test]
fn entries_read_by_workers_read_as_in_place_on_every_har() {
    let files = har_files();
    assert!(!files.is_empty());
    for f in &files {
        let (bytes, jsonp) = har_bytes(f);
        assert_split_reads_as_in_place(&f.display().to_string(), &bytes, jsonp);
    }
}

/// The same over broken documents: the error (its entry, what, byte, line and column), the
/// entries before it, and nothing after it; big entries (read in place by the reader)
/// among small ones; several jobs.
#[test]
fn entries_read_by_workers_fail_as_in_place() {
    let small = |i: usize| {
        format!(
                "{{\"startedDateTime\":\"2024-01-01T00:00:{:02}Z\",\n \"request\":{{\"method\":\"GET\",\"url\":\"https://a.example/{i}?token=s{i}\",\"headers\":[{{\"name\":\"Authorization\",\"value\":\"Bearer t{i}\"}}]}},\"response\":{{\"status\":{},\"headers\":[],\"content\":{{\"text\":\"{{\\\"e\\\":\\\"x\\\"}}\"}}}}}}",
                i % 60,
                if i.is_multiple_of(7) { 429 } else { 200 }
            )
    };
    let big = |i: usize| {
        format!(
                "{{\"request\":{{\"url\":\"https://b.example/{i}\",\"postData\":{{\"text\":\"{}\"}}}},\"response\":{{\"status\":503,\"content\":{{\"text\":\"{}\"}}}}}}",
                "p".repeat(300 * 1024),
                "q\\n".repeat(100 * 1024)
            )
    };
    let doc = |entries: Vec<String>, sep: &str| {
        format!(
                "{{\"log\":{{\"version\":\"1.2\",\"entries\":[\n{}\n],\"creator\":{{\"name\":\"after\"}}}}}}",
                entries.join(sep)
            )
    };
    let many = |n: usize| (0..n).map(small).collect::<Vec<_>>();
    let with = |n: usize, at: usize, bad: &str| {
        let mut v = many(n);
        v[at] = bad.to_string();
        v
    };
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("clean, several jobs", doc(many(1500), ",").into_bytes()),
        ("pretty separators", doc(many(40), " ,\n\t ").into_bytes()),
        (
            "big entries among small",
            doc(
                (0..30)
                    .map(|i| if i % 9 == 4 { big(i) } else { small(i) })
                    .collect(),
                ",",
            )
            .into_bytes(),
        ),
        (
            "bad escape",
            doc(with(1200, 1100, r#"{"request":{"url":"a\qb"}}"#), ",").into_bytes(),
        ),
        (
            "control character",
            doc(with(50, 3, "{\"request\":{\"url\":\"a\u{1}b\"}}"), ",").into_bytes(),
        ),
        (
            "missing colon",
            doc(with(50, 20, r#"{"request" {"url":"a"}}"#), ",").into_bytes(),
        ),
        (
            "wrong closer",
            doc(with(50, 20, r#"{"request":{"url":"a"]}"#), ",").into_bytes(),
        ),
        (
            "bad literal",
            doc(with(50, 20, r#"{"time":tru}"#), ",").into_bytes(),
        ),
        (
            "bad number",
            doc(with(50, 20, r#"{"time":1.}"#), ",").into_bytes(),
        ),
        (
            "trailing comma in entry",
            doc(with(50, 20, r#"{"time":1,}"#), ",").into_bytes(),
        ),
        (
            "too deep",
            doc(
                with(
                    50,
                    20,
                    &format!("{{\"x\":{}{}}}", "[".repeat(600), "]".repeat(600)),
                ),
                ",",
            )
            .into_bytes(),
        ),
        ("missing comma", doc(many(30), "\n").into_bytes()),
        (
            "trailing comma",
            doc(many(30), ",").replace("\n]", ",]").into_bytes(),
        ),
        (
            "non-objects among entries",
            doc(
                (0..30)
                    .map(|i| match i % 5 {
                        1 => "42".to_string(),
                        2 => "[1,{\"a\":2}]".to_string(),
                        3 => "null".to_string(),
                        _ => small(i),
                    })
                    .collect(),
                ",",
            )
            .into_bytes(),
        ),
        (
            "error after a big entry",
            doc(
                vec![
                    small(0),
                    big(1),
                    r#"{"request":{"url":"a\qb"}}"#.into(),
                    small(3),
                ],
                ",",
            )
            .into_bytes(),
        ),
        (
            "error inside a big entry",
            doc(
                vec![small(0), big(1).replace("\"q", "\"\\q"), small(2)],
                ",",
            )
            .into_bytes(),
        ),
    ];
    // Invalid UTF-8 and truncation.
    let mut utf8 = doc(many(700), ",").into_bytes();
    let at = utf8.len() * 2 / 3;
    let q = at + utf8[at..].iter().position(|&b| b == b'a').unwrap();
    utf8[q] = 0xff;
    cases.push(("invalid UTF-8", utf8));
    let full = doc(many(700), ",").into_bytes();
    for cut in [full.len() / 2, full.len() - 60, full.len() - 2] {
        cases.push(("truncated", full[..cut].to_vec()));
    }
    for (name, bytes) in &cases {
        assert_split_reads_as_in_place(name, bytes, false);
    }
    // The cases do test something: errors are reported, clean documents read whole.
    let (items, _, tail) = read_with(&cases[0].1, false, 2);
    assert_eq!(items.len(), 1500);
    assert_eq!(tail.creator.as_deref(), Some("after"));
    let (items, _, tail) = read_with(&cases[3].1, false, 2);
    assert_eq!(items.len(), 1100);
    let e = tail.error.unwrap();
    assert!(
        e.contains("entry 1100") && e.contains("escape") && e.contains("line"),
        "{e}"
    );
    assert!(
        tail.creator.is_none(),
        "the creator after the error is not read"
    );
}

#[test]
fn structural_errors_are_located() {
    let o = read_str("[1,2]");
    assert!(o.error.unwrap().contains("not a HAR document"));
    let src: Arc<str> = Arc::from("t.har");
    let bytes = b"{\"log\":{\"entries\":[{\"request\":{\"url\":\"a\"},\"response\":{\"status\":200}},{\"request\":{\"url\":\"b\xff\"}}]}}";
    let o = read(Box::new(Cursor::new(bytes.to_vec())), &src, &opts(), false);
    let e = o.error.unwrap();
    assert!(
        e.contains("entry 1") && e.contains("UTF-8") && e.contains("byte 89"),
        "{e}"
    );
    assert_eq!(o.requests.len(), 1);
}

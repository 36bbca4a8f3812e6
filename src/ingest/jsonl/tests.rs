use super::*;

#[test]
fn field_places_match_aliases() {
    let places = [
        (field::TIME, "time"),
        (field::METHOD, "method"),
        (field::URL, "url"),
        (field::HOST, "host"),
        (field::PATH, "path"),
        (field::STATUS, "status"),
        (field::DURATION_MS, "duration_ms"),
        (field::REQUEST_HEADERS, "request_headers"),
        (field::RESPONSE_HEADERS, "response_headers"),
        (field::RESPONSE_BODY, "response_body"),
        (field::CLIENT, "client"),
        (field::REQUEST_ID, "request_id"),
        (field::CLIENT_IP, "client_ip"),
        (field::USER_AGENT, "user_agent"),
        (field::RETRY_AFTER, "retry_after"),
    ];
    assert_eq!(places.len(), ALIASES.len());
    for (i, name) in places {
        assert_eq!(ALIASES[i].0, name);
    }
}

#[test]
fn remembered_name_classes_are_the_checks_themselves() {
    let long = "x-".repeat(40) + "api-key";
    let names = [
        "Authorization",
        "authorization",
        "X-Api-Key",
        "User-Agent",
        "Idempotency-Key",
        "X-RateLimit-Limit",
        "Retry-After",
        "Content-Type",
        "x-csrf-token",
        "Cookie",
        "Referer",
        "",
        long.as_str(),
    ];
    let check = |n: &str| {
        let NameInfo {
            class: c,
            rule,
            kind,
        } = name_info(n);
        assert_eq!(c, classify(n), "{n}");
        assert_eq!(rule, crate::redact::header_rule(n), "{n}");
        assert_eq!(kind, kind_of(n), "{n}");
        assert_ne!(c & EVERY_NAME, 0);
        assert_eq!(c & CREDENTIAL != 0, Redactor::may_carry_credential(n));
        assert_eq!(c & VIEW_REQUEST != 0, view_request_header(n));
        assert_eq!(c & VIEW_RESPONSE != 0, view_response_header(n));
    };
    for _ in 0..2 {
        names.iter().for_each(|n| check(n));
    }
    // More names than slots, so slots are overwritten: still the same answers, then and
    // for the names seen first.
    for i in 0..1000 {
        check(&format!("x-h{i}-token"));
    }
    names.iter().for_each(|n| check(n));
}
use std::io::Cursor;

fn opts(map: Vec<(String, String)>) -> Options {
    Options {
        field_map: map,
        ..Options::new(Redactor::from_key_material(b"k"))
    }
}

fn read_str(s: &str, o: &Options) -> ReadOutcome {
    let src: Arc<str> = Arc::from("t.jsonl");
    read(Box::new(Cursor::new(s.as_bytes().to_vec())), &src, o)
}

/// A line with no body field did not record the body: unknown, not empty; a body field
/// (even an empty one) or a Content-Length of 0 says what it was.
#[test]
fn a_line_without_a_body_field_did_not_record_it() {
    let log = concat!(
        r#"{"url":"https://a.com/x","status":429}"#,
        "\n",
        r#"{"url":"https://a.com/x","status":429,"response_body":""}"#,
        "\n",
        r#"{"url":"https://a.com/x","status":429,"response_headers":{"Content-Length":"0"}}"#,
        "\n",
        r#"{"url":"https://a.com/x","status":429,"response_body":"slow down"}"#,
        "\n",
    );
    let o = read_str(log, &opts(vec![]));
    let flags: Vec<bool> = o.requests.iter().map(|r| r.body_not_captured).collect();
    assert_eq!(flags, [true, false, false, false]);
}

#[test]
fn canonical_and_aliases() {
    let log = concat!(
        r#"{"time":"2024-01-01T00:00:00Z","method":"get","url":"https://a.com/x","status":429,"duration_ms":12,"response_headers":{"Retry-After":"3"},"client":"svc-a"}"#,
        "\n\n",
        r#"{"@timestamp":1704067200123,"request_method":"POST","path":"/v1/pay","host":"a.com","status_code":"503","latency_ms":5,"headers":[{"name":"Retry-After","value":"1"}]}"#,
        "\n",
        "not json\n",
        r#"[1,2]"#,
        "\n"
    );
    let o = read_str(log, &opts(vec![]));
    assert_eq!(o.requests.len(), 2);
    assert_eq!(o.skipped, 2);
    let a = &o.requests[0];
    assert_eq!((a.method.as_str(), a.status), ("GET", 429));
    assert_eq!(a.client.client.as_deref(), Some("svc-a"));
    assert_eq!(a.response_headers.get("retry-after"), Some("3"));
    let b = &o.requests[1];
    assert_eq!(b.url, "//a.com/v1/pay");
    assert_eq!(b.status, 503);
    assert_eq!(b.location.position, Position::Line(3));
    assert!(o
        .warnings
        .kept
        .iter()
        .any(|w| w.position == Some(Position::Line(4))));
}

/// Elastic's Common Schema nests what other layouts write flat: `url` and `user_agent` are
/// objects, so their aliases name no value and the dotted paths are read instead; a line of
/// it reads the same alone and after lines of its own layout (by remembered places), and
/// its view is its full record's.
#[test]
fn nested_layouts_read_past_an_object_under_a_scalar_alias() {
    let line = |status: u16| {
        format!(
            r#"{{"@timestamp":"2024-05-01T00:00:00.123456Z","service":"svc-a","user_agent":{{"original":"sdk/1.2"}},"url":{{"full":"https://a.example/v1/x?q=1"}},"http":{{"request":{{"method":"POST","headers":{{"x-api-key":"sk_live_0123456789abcdef"}}}},"response":{{"status_code":{status},"headers":{{"retry-after":"7"}}}}}}}}"#
        )
    };
    let log = format!("{}\n{}\n{}\n", line(200), line(429), line(200));
    let o = read_str(&log, &opts(vec![]));
    assert!(o.warnings.kept.is_empty(), "{:?}", o.warnings.kept);
    assert_eq!(o.requests.len(), 3);
    for (r, status) in o.requests.iter().zip([200, 429, 200]) {
        assert_eq!(r.url, "https://a.example/v1/x?q=1");
        assert_eq!((r.method.as_str(), r.status), ("POST", status));
        assert_eq!(r.client.client.as_deref(), Some("svc-a"));
        assert_eq!(r.client.user_agent.as_deref(), Some("sdk/1.2"));
    }
    assert_eq!(o.requests[1].response_headers.get("retry-after"), Some("7"));
    // A container where nothing else names the field is still "no url".
    let bare = read_str(
        r#"{"ts":1,"url":{"scheme":"https"},"status":200}"#,
        &opts(vec![]),
    );
    assert!(bare
        .warnings
        .kept
        .iter()
        .any(|w| w.message.contains("no url")));
    assert!(check_view(&line(200), &opts(vec![])).unwrap());
}

/// How a view differs from its full record (the test's failure message).
#[derive(Debug)]
struct Differs(String);

impl std::fmt::Display for Differs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The full record and the view built without it: a view exactly when the line is a
/// success whose reading warned of nothing, and then `RecordView::of` the full record; and
/// the line read as a tree or the raw way (the fallback): the same record, same warnings.
fn check_view(line: &str, o: &Options) -> Result<bool, Differs> {
    let src: Arc<str> = Arc::from("t.jsonl");
    let tree = lazy::parse(line, &wanted_fields(&o.field_map));
    let raw = lazy::parse_raw(line);
    if tree.as_ref().err().map(|e| e.to_string()) != raw.as_ref().err().map(|e| e.to_string()) {
        return Err(Differs(
            "tree and raw readings disagree on the line's validity".into(),
        ));
    }
    let Ok(lazy::Doc::Object(obj)) = tree else {
        return Ok(false);
    };
    let paths = Paths::of(&o.field_map);
    let (full, full_ws) = normalize(3, &obj, &src, o, &paths);
    if let Ok(lazy::Doc::Object(raw)) = raw {
        let (by_raw, raw_ws) = normalize(3, &raw, &src, o, &paths);
        if (&by_raw, &raw_ws) != (&full, &full_ws) {
            return Err(Differs(format!(
                "raw reading {by_raw:?} {raw_ws:?}\nvs tree {full:?} {full_ws:?}"
            )));
        }
    }
    // The line read alone, and through the layout it teaches (`find` by remembered
    // places) after a line of another layout.
    let mut layout = lazy::Layout::default();
    let wanted = wanted_fields(&o.field_map);
    let _ = lazy::parse_with(r#"{"other":1}"#, &wanted, &mut layout);
    let _ = lazy::parse_with(line, &wanted, &mut layout);
    let Ok(lazy::Doc::Object(shaped)) = lazy::parse_with(line, &wanted, &mut layout) else {
        return Err(Differs("read by layout, the line is no object".into()));
    };
    for (how, read) in [("alone", &obj), ("by layout", &shaped)] {
        let mut scratch = view::Scratch::default();
        for _ in 0..2 {
            // Twice: a scratch left by one line must not show in the next.
            // A hint naming the URL's host: the view must go on with the one of the
            // redacted URL, whichever URL the skim asked about first.
            let hint_of = |url: &str| record_view::ViewHint {
                host: crate::model::event::hash_of(0, crate::http::url::host(url)) | 1,
                bound: None,
            };
            let decide = |status: u16, url: &str| {
                record_view::view_suffices(status, false).then(|| hint_of(url))
            };
            let compare = |v: &RecordView<'_>, hint| {
                let want = RecordView::of(&full);
                if hint != hint_of(&full.url) {
                    return Some(format!("{how}: the hint of another host than {}", full.url));
                }
                (v != &want).then(|| format!("{how}: {v:?}\nvs\n{want:?}"))
            };
            let took = view::with_view(3, read, o, &paths, &mut scratch, decide, compare);
            if let Some(Some(e)) = took {
                return Err(Differs(e));
            }
            let expected = record_view::view_suffices(full.status, false) && full_ws.is_empty();
            if took.is_some() != expected {
                return Err(Differs(format!(
                    "{how}: view taken: {}, for status {} and warnings {full_ws:?}",
                    took.is_some(),
                    full.status
                )));
            }
        }
    }
    Ok(record_view::view_suffices(full.status, false) && full_ws.is_empty())
}

#[test]
fn the_view_of_every_sample_line_is_the_full_records() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "samples",
        "tests/fixtures/heldout",
        "tests/fixtures/heldout-providers",
    ] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 10, "{files:?}");
    let o = opts(vec![]);
    let (mut lines, mut views) = (0, 0);
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            lines += 1;
            match check_view(line, &o) {
                Ok(took) => views += usize::from(took),
                Err(e) => panic!("{}: {line}\n{e}", f.display()),
            }
        }
    }
    assert!(views > 0 && views < lines, "{views} of {lines}");
}

/// Lines a view must take, each with fields whose precedence the view must get right
/// (a header against its log field, an empty header, a `null` origin, a credential from
/// the headers, the URL or a key-id field).
#[test]
fn the_view_of_tricky_successes_is_the_full_records() {
    let lines = [
        r#"{"ts":1,"url":"https://a.example/x","status":200,"client_ip":"192.0.2.1","request_headers":{"X-Forwarded-For":"10.1.2.3, 10.0.0.1"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"X-Forwarded-For":" 10.1.2.3 , 10.0.0.1"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"user_agent":"field/1","request_headers":{"User-Agent":""}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"user_agent":"field/1","request_headers":{"user-agent":"hdr/2"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"user_agent":"field/1"}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Origin":"null","Referer":"https://app.example/p?q=1"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Origin":"https://o.example"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":[["Idempotency-Key"," "],["X-Idempotency-Key","k-1"]]}"#,
        r#"{"ts":1,"url":"https://a.example/x?api_key=SECRETKEY123","status":200}"#,
        // Hosts the redaction changes: the skim's host is not the view's.
        r#"{"ts":1,"url":"https://sk_live_0123456789abcdefghijklmn.a.example/x","status":200}"#,
        r#"{"ts":1,"url":"https://eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U/x","status":200}"#,
        r#"{"ts":1,"url":"https://u:sk_live_0123456789abcdefghijklmn@a.example/x","status":200}"#,
        r#"{"ts":1,"host":"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB","request_uri":"/x","status":200}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"api_key":"kid-1","key_id":"kid-2"}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Authorization":"Bearer sk-live-0123456789abcdef"},"api_key":"kid-1"}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":"204","client":"svc-a","request_body":"{\"a\":1}","response_headers":{"X-RateLimit-Limit":"100","X-RateLimit-Window":"60","Retry-After":"3"}}"#,
        r#"{"ts":1,"path":"/v1/x","host":"H.example","status":304,"method":"get","duration_ms":"12ms"}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"retry_after":"7","response_headers":{"RateLimit-Policy":"100;w=60"}}"#,
        // Idempotency keys, compared by a hash of the raw value: one that is the
        // credential (as a header, a key-id field, a query key), padded, escaped,
        // pre-redacted, secret-looking, longer than the cap, and not a string.
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Authorization":"Bearer tok-0123456789abcdef","Idempotency-Key":"tok-0123456789abcdef"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Authorization":"Bearer tok-0123456789abcdef","Idempotency-Key":"Bearer tok-0123456789abcdef"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"X-Api-Key":"ak_0123456789abcdef","Idempotency-Key":" ak_0123456789abcdef "}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"key_id":"kid-7","request_headers":{"Idempotency-Key":"kid-7"}}"#,
        r#"{"ts":1,"url":"https://a.example/x?api_key=SECRETKEY123","status":200,"request_headers":{"Idempotency-Key":"SECRETKEY123"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Idempotency-Key":"k\u002d1\"q\\\\"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Idempotency-Key":"<redacted:3f2a>"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Authorization":"Bearer sk-live-0123456789abcdef","Idempotency-Key":"sk-live-0123456789abcdef"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Idempotency-Key":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}}"#,
        r#"{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{"Idempotency-Key":7}}"#,
        // Stated limits, remembered by the text of the limit headers: the same text on the
        // next line (a hit, under another status), a set with a reset (never remembered: an
        // epoch reset is read against the time), and the same limits with the fields in
        // another order (another text).
        r#"{"ts":1714564800000,"url":"https://a.example/x","status":200,"response_headers":{"X-RateLimit-Limit":"100","X-RateLimit-Window":"60"}}"#,
        r#"{"ts":1714564800000,"url":"https://a.example/y","status":204,"response_headers":{"X-RateLimit-Limit":"100","X-RateLimit-Window":"60"}}"#,
        r#"{"ts":1714564800000,"url":"https://a.example/x","status":200,"response_headers":{"X-RateLimit-Limit":"100","X-RateLimit-Reset":"1714564860"}}"#,
        r#"{"ts":1714564830000,"url":"https://a.example/x","status":200,"response_headers":{"X-RateLimit-Limit":"100","X-RateLimit-Reset":"1714564860"}}"#,
        r#"{"ts":1714564800000,"url":"https://a.example/x","status":200,"response_headers":{"X-RateLimit-Window":"60","X-RateLimit-Limit":"100"}}"#,
    ];
    let long = format!(
        r#"{{"ts":1,"url":"https://a.example/x","status":200,"request_headers":{{"Idempotency-Key":"{}é{}"}}}}"#,
        "k".repeat(crate::ingest::har::REQUEST_HEADER_VALUE_MAX - 1),
        "z".repeat(50)
    );
    let o = opts(vec![]);
    for line in lines.iter().copied().chain([long.as_str()]) {
        match check_view(line, &o) {
            Ok(took) => assert!(took, "no view taken of {line}"),
            Err(e) => panic!("{line}\n{e}"),
        }
    }
}

/// Lines of one layout read in turn by one reader, as a log's are: each line's view is its
/// full record's, whatever the lines before left in the reader's memos (the same names
/// and values, the idempotency key another on each line, blank or not, the credential in
/// the headers, in the URL, in a key-id field, or equal to the idempotency key).
#[test]
fn views_of_lines_of_one_layout_are_the_full_records() {
    let line = |url: &str, auth: &str, idem1: &str, idem2: &str, key: &str| {
        format!(
            r#"{{"ts":1714564800000,"url":"{url}","status":200,"api_key":"{key}","request_headers":{{"Authorization":"{auth}","User-Agent":"ua/1","Idempotency-Key":"{idem1}","X-Idempotency-Key":"{idem2}"}},"response_headers":{{"X-RateLimit-Limit":"100","X-RateLimit-Window":"60"}}}}"#
        )
    };
    let u = "https://a.example/v1/x";
    let q = "https://a.example/v1/x?api_key=QKEY0123456789";
    let tok = "Bearer tok-0123456789abcdef";
    let lines = [
        line(u, tok, "k-1", "", "kid-1"),
        line(u, tok, "k-2", "", "kid-1"),
        line(u, tok, "tok-0123456789abcdef", "", "kid-1"),
        line(u, tok, " ", "k-3", "kid-1"),
        line(u, tok, " ", "tok-0123456789abcdef", "kid-1"),
        line(u, tok, "", "", "kid-1"),
        line(q, "", "QKEY0123456789", "", "kid-1"),
        line(q, "", "k-4", "", "kid-2"),
        line(u, "", "kid-2", "", "kid-2"),
        line(u, "", "kid-3", "", "kid-3"),
        line(u, "Basic", "k-5", "x", "kid-3"),
        line(u, tok, "k-6", "", "kid-1"),
    ];
    let o = opts(vec![]);
    let paths = Paths::of(&o.field_map);
    let wanted = wanted_fields(&o.field_map);
    let src: Arc<str> = Arc::from("t.jsonl");
    let mut layout = lazy::Layout::default();
    let mut scratch = view::Scratch::default();
    let mut hits = 0;
    // Twice over: the second round reads every text remembered.
    for line in lines.iter().chain(lines.iter()) {
        let Ok(lazy::Doc::Object(obj)) = lazy::parse_with(line, &wanted, &mut layout) else {
            panic!("no object: {line}");
        };
        hits += usize::from(obj.shape() != 0);
        let (full, ws) = normalize(3, &obj, &src, &o, &paths);
        assert!(ws.is_empty(), "{line}: {ws:?}");
        let want = RecordView::of(&full);
        let decide = |_: u16, _: &str| Some(record_view::ViewHint::default());
        let compare = |v: &RecordView<'_>, _| (v != &want).then(|| format!("{v:?}\nvs\n{want:?}"));
        match view::with_view(3, &obj, &o, &paths, &mut scratch, decide, compare) {
            Some(None) => {}
            Some(Some(e)) => panic!("{line}\n{e}"),
            None => panic!("no view taken of {line}"),
        }
    }
    // The lines were read by layout (what the remembered texts are keyed by).
    assert!(hits > lines.len(), "{hits}");
}

/// The noted firsts answer what the map's own searches answer, through repeats, case,
/// blank idempotency keys, arrays of values and both list forms.
/// Lines read through the layout of the line before them: a field that is null in one
/// line and set in the next, a number where a string was, a duplicated key, an alias and
/// its fallback, header maps of the same names with other values.
#[test]
fn lines_read_by_an_earlier_lines_layout_read_as_alone() {
    let o = opts(vec![]);
    let paths = Paths::of(&o.field_map);
    let wanted = wanted_fields(&o.field_map);
    let runs: &[&[&str]] = &[
        &[
            r#"{"time":"2024-05-01T12:00:00Z","ts":null,"method":"GET","url":"https://a.example/x","status":200,"request_headers":{"User-Agent":"ua/1","Idempotency-Key":"k1"},"response_headers":{"X-RateLimit-Limit":"10"}}"#,
            r#"{"time":null,"ts":1714564800123,"method":"GET","url":"https://a.example/y","status":"200","request_headers":{"User-Agent":"","Idempotency-Key":" "},"response_headers":{"X-RateLimit-Limit":null}}"#,
            r#"{"time":"bad","ts":1714564800123,"method":"POST","url":"https://a.example/y","status":201,"request_headers":{"User-Agent":["a","b"],"Idempotency-Key":"k2"},"response_headers":{"X-RateLimit-Limit":7}}"#,
            r#"{"time":12,"ts":null,"method":null,"url":null,"status":200,"request_headers":null,"response_headers":{"X-RateLimit-Limit":"1"}}"#,
        ],
        &[
            r#"{"status":200,"url":"https://b.example/","status":204,"client":"svc","client":null,"headers":{"Retry-After":"1","retry-after":"2"}}"#,
            r#"{"status":429,"url":"https://b.example/","status":200,"client":null,"client":"svc2","headers":{"Retry-After":"3","retry-after":"4"}}"#,
        ],
        &[
            r#"{"timestamp":1714564800,"uri":"/v1/a","status_code":200,"request":{"method":"PUT"},"user_agent":"field"}"#,
            r#"{"timestamp":1714564801,"uri":"/v1/b","status_code":200,"request":{"verb":"PUT"},"user_agent":"field2"}"#,
            r#"{"timestamp":1714564802,"uri":"/v1/c","status_code":200,"request":null,"user_agent":null}"#,
        ],
    ];
    let src: Arc<str> = Arc::from("t.jsonl");
    for run in runs {
        let mut layout = lazy::Layout::default();
        let mut scratch = view::Scratch::default();
        let mut shapes = Vec::new();
        for line in run.iter().chain(run.iter()) {
            let Ok(lazy::Doc::Object(shaped)) = lazy::parse_with(line, &wanted, &mut layout) else {
                panic!("{line}")
            };
            shapes.push(shaped.shape());
            let Ok(lazy::Doc::Object(alone)) = lazy::parse(line, &wanted) else {
                panic!("{line}")
            };
            let (full, full_ws) = normalize(3, &alone, &src, &o, &paths);
            assert_eq!(
                normalize(3, &shaped, &src, &o, &paths),
                (full.clone(), full_ws.clone()),
                "{line}"
            );
            let decide = |status: u16, _: &str| {
                record_view::view_suffices(status, false).then(Default::default)
            };
            let took = view::with_view(3, &shaped, &o, &paths, &mut scratch, decide, |v, _| {
                assert_eq!(v, &RecordView::of(&full), "{line}");
            });
            let expected = record_view::view_suffices(full.status, false) && full_ws.is_empty();
            assert_eq!(took.is_some(), expected, "{line}: {full_ws:?}");
        }
        // Every line after the first was read by the first one's layout.
        assert!(
            shapes[0] == 0 && shapes[1..].iter().all(|&s| s == shapes[1] && s != 0),
            "{shapes:?}"
        );
    }
}

#[test]
fn noted_firsts_are_the_searches() {
    let red = Redactor::from_key_material(b"firsts");
    let maps = [
        r#"{"user-agent":"a","User-Agent":"b","X-Forwarded-For":"1.2.3.4","origin":"o","Referer":"r"}"#,
        r#"{"Idempotency-Key":" ","X-Idempotency-Key":"k2","PayPal-Request-Id":"k3"}"#,
        r#"{"Idempotency-Key":["", "k1"],"RETRY-AFTER":"3","retry-after":"4"}"#,
        r#"[{"name":"Origin","value":""},{"name":"origin","value":"o2"},["Referer","r1"]]"#,
        r#"{"Content-Type":"x","Authorization":"Bearer abcdefghijklmnop"}"#,
        r#"{}"#,
    ];
    let names = [
        (Kind::UserAgent, "user-agent"),
        (Kind::ForwardedFor, "x-forwarded-for"),
        (Kind::Origin, "origin"),
        (Kind::Referer, "referer"),
        (Kind::RetryAfter, "retry-after"),
    ];
    for m in maps {
        let doc = format!(r#"{{"h":{m}}}"#);
        let Ok(lazy::Doc::Object(o)) = lazy::parse(&doc, &lazy::Wanted::all()) else {
            panic!("{doc}")
        };
        let node = o.get("h").expect("h");
        let mut h = Headers::new();
        let mut warns = Vec::new();
        let firsts = fill_headers(
            &mut h, node, &red, None, None, 1000, EVERY_NAME, &mut warns, "h",
        );
        for (kind, name) in names {
            assert_eq!(firsts.value(kind, &h), h.get(name), "{m} {name}");
            assert_eq!(firsts.has(kind), h.contains(name), "{m} {name}");
        }
        assert_eq!(
            firsts.value(Kind::Idempotency, &h),
            crate::http::idempotency::idempotency_key(&h).map(|(_, v)| v),
            "{m}"
        );
    }
}

use proptest::prelude::*;

fn header_value() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        Just(serde_json::json!("curl/8.4")),
        Just(serde_json::json!("")),
        Just(serde_json::json!("Bearer sk-live-0123456789abcdef0123")),
        Just(serde_json::json!("10.1.2.3, 10.0.0.1")),
        Just(serde_json::json!("null")),
        Just(serde_json::json!("https://app.example/page?token=abc")),
        Just(serde_json::json!("100;w=60")),
        Just(serde_json::json!("k-\u{e9}\\\"1")),
        Just(serde_json::json!(120)),
        Just(serde_json::json!(["a", "b"])),
        Just(serde_json::json!("x".repeat(9000))),
        Just(serde_json::json!({"odd": 1})),
    ]
}

fn header_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("User-Agent"),
        Just("user-agent"),
        Just("X-Forwarded-For"),
        Just("Origin"),
        Just("Referer"),
        Just("Idempotency-Key"),
        Just("X-Idempotency-Key"),
        Just("PayPal-Request-Id"),
        Just("Authorization"),
        Just("X-Api-Key"),
        Just("Cookie"),
        Just("X-RateLimit-Limit"),
        Just("X-RateLimit-Remaining"),
        Just("ratelimit-policy"),
        Just("Retry-After"),
        Just("Content-Type"),
    ]
    .prop_map(str::to_string)
}

fn headers() -> impl Strategy<Value = serde_json::Value> {
    let pairs = || proptest::collection::vec((header_name(), header_value()), 0..6);
    prop_oneof![
        pairs().prop_map(|p| { serde_json::Value::Object(p.into_iter().collect()) }),
        pairs().prop_map(|p| {
            serde_json::Value::Array(
                p.into_iter()
                    .map(|(n, v)| serde_json::json!({"name": n, "value": v}))
                    .collect(),
            )
        }),
        pairs().prop_map(|p| {
            serde_json::Value::Array(
                p.into_iter()
                    .map(|(n, v)| serde_json::json!([n, v]))
                    .collect(),
            )
        }),
        Just(serde_json::json!("not headers")),
    ]
}

proptest! {
    /// Generated lines: every odd header shape, case, duplicate and cap.
    #[test]
    fn the_view_of_a_generated_line_is_the_full_records(
        status in prop_oneof![Just(serde_json::json!(200)), Just(serde_json::json!("204")),
            Just(serde_json::json!(202)), Just(serde_json::json!(304)), Just(serde_json::json!(429)),
            Just(serde_json::json!(503)), Just(serde_json::json!("x"))],
        url in prop_oneof![Just("https://API.example.com/v1/a?key=SECRETKEY1&b=2"),
            Just("/v1/graphql"), Just("https://u:p@h.example/x")],
        host in proptest::option::of(Just("h.example")),
        req in proptest::option::of(headers()),
        resp in proptest::option::of(headers()),
        client in proptest::option::of(prop_oneof![Just(serde_json::json!("svc")), Just(serde_json::json!(7))]),
        ip in proptest::option::of(Just("192.0.2.1")),
        ua in proptest::option::of(Just("field-agent")),
        ra in proptest::option::of(prop_oneof![Just("3"), Just("-")]),
        key in proptest::option::of(Just("kid-123")),
        body in proptest::option::of(Just("{\"a\":1}")),
        resp_body in proptest::option::of(prop_oneof![Just(serde_json::json!("slow down, key=SECRETKEY1")),
            Just(serde_json::json!({"error": {"code": 429, "msg": "rate \"limited\""}})),
            Just(serde_json::json!([1, 2.5, null]))]),
        extra in proptest::option::of(Just(serde_json::json!({"deep": [{"x": "\u{e9}"}]}))),
        time in prop_oneof![Just(serde_json::json!(1704067200123u64)),
            Just(serde_json::json!("2024-01-01T00:00:00.5Z")), Just(serde_json::json!("soon"))],
        method in prop_oneof![Just("get"), Just("POST"), Just("b@d m3thod")],
    ) {
        let mut m = serde_json::Map::new();
        m.insert("ts".into(), time);
        m.insert("method".into(), method.into());
        m.insert("url".into(), url.into());
        m.insert("status".into(), status);
        if let Some(h) = host { m.insert("host".into(), h.into()); }
        if let Some(h) = req { m.insert("request_headers".into(), h); }
        if let Some(h) = resp { m.insert("response_headers".into(), h); }
        if let Some(c) = client { m.insert("client".into(), c); }
        if let Some(i) = ip { m.insert("client_ip".into(), i.into()); }
        if let Some(u) = ua { m.insert("user_agent".into(), u.into()); }
        if let Some(r) = ra { m.insert("retry_after".into(), r.into()); }
        if let Some(k) = key { m.insert("api_key".into(), k.into()); }
        if let Some(b) = body { m.insert("request_body".into(), b.into()); }
        if let Some(b) = resp_body { m.insert("response_body".into(), b); }
        if let Some(x) = extra { m.insert("unread".into(), x); }
        let line = serde_json::Value::Object(m).to_string();
        if let Err(e) = check_view(&line, &opts(vec![])) {
            prop_assert!(false, "{}\n{}", line, e);
        }
    }
}

#[test]
fn field_map() {
    let log = r#"{"meta":{"when":"2024-01-01T00:00:00Z"},"req":{"m":"GET","u":"https://x/y"},"res":{"code":429}}"#;
    let map = vec![
        ("time".into(), "meta.when".into()),
        ("method".into(), "req.m".into()),
        ("url".into(), "req.u".into()),
        ("status".into(), "res.code".into()),
    ];
    let o = opts(map);
    let read = read_str(log, &o);
    assert_eq!(read.requests[0].status, 429);
    assert!(read.requests[0].started.is_some());
    // Only the mapped fields' top-level parents are parsed; the record is the raw reading's.
    check_view(log, &o).unwrap();
    let flat = r#"{"meta.when":"2024-01-01T00:00:01Z","meta":{"when":"x"},"req":{"m":"GET","u":"https://x/y"},"res":{"code":"429"}}"#;
    check_view(flat, &o).unwrap();
}

#[test]
fn overlong_line_is_skipped_not_loaded() {
    let long = format!(
        "{{\"x\":\"{}\"}}\n{{\"status\":200,\"url\":\"u\",\"time\":1}}\n",
        "a".repeat(MAX_LINE + 10)
    );
    let o = read_str(&long, &opts(vec![]));
    assert_eq!(o.requests.len(), 1);
    assert!(o.warnings.kept[0].message.contains("longer than"));
}

#[test]
fn chunks_keep_line_numbers_and_order_whatever_the_thread_count() {
    // Several chunks' worth of lines, a blank and a broken line at known places, and an
    // over-long line in the middle read through a small BufReader (so it is met unterminated).
    let mut text = String::new();
    let mut expected = Vec::new();
    for n in 1..=12_000usize {
        match n {
            500 => text.push('\n'),
            7_001 => text.push_str("not json\n"),
            9_000 => {
                text.push_str(&format!("{{\"x\":\"{}\"}}\n", "y".repeat(MAX_LINE)));
            }
            _ => {
                text.push_str(&format!(
                    "{{\"time\":{n},\"url\":\"https://a.example/{n}?pad={}\",\"status\":200}}\n",
                    "p".repeat(n % 97)
                ));
                expected.push(n);
            }
        }
    }
    for threads in [1, 2, 3] {
        let o = Options {
            threads: Some(threads),
            ..opts(vec![])
        };
        let src: Arc<str> = Arc::from("t.jsonl");
        let reader = std::io::BufReader::with_capacity(64 * 1024, Cursor::new(text.clone()));
        let out = read(Box::new(reader), &src, &o);
        let lines: Vec<usize> = out
            .requests
            .iter()
            .map(|r| match r.location.position {
                Position::Line(n) => n,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(lines, expected, "{threads} threads");
        assert_eq!(out.skipped, 2);
        let warned: Vec<_> = out.warnings.kept.iter().map(|w| w.position).collect();
        assert!(warned.contains(&Some(Position::Line(7_001))), "{warned:?}");
        assert!(warned.contains(&Some(Position::Line(9_000))), "{warned:?}");
    }
}

/// A reader handing out at most `step` bytes a call, that fails once `fail_at` is reached.
struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
    fail_at: Option<usize>,
}

impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = self.fail_at.unwrap_or(self.data.len()).min(self.data.len());
        if self.at >= end && self.fail_at.is_some() {
            return Err(std::io::Error::other("boom"));
        }
        let n = self.step.min(buf.len()).min(end - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn chunks_read_in_place_are_the_input_with_reused_buffers_and_read_errors() {
    // Lines of varied lengths over several chunks; buffers go back to the pool as a worker
    // would give them, so later chunks are read over stale bytes.
    let mut data = Vec::new();
    for n in 0..40_000usize {
        data.extend_from_slice(
            format!("{{\"n\":{n},\"p\":\"{}\"}}\n", "q".repeat(n % 131)).as_bytes(),
        );
    }
    for (step, cap, fail_at) in [
        (usize::MAX, 256 * 1024, None),
        (1000, 8 * 1024, None),
        (70_000, 300 * 1024, None),
        (usize::MAX, 256 * 1024, Some(3_000_001)),
        (4096, 64 * 1024, Some(2_500_000)),
    ] {
        let inner = Trickle {
            data: data.clone(),
            at: 0,
            step,
            fail_at,
        };
        let mut reader = std::io::BufReader::with_capacity(cap, inner);
        let buffers = Buffers::default();
        let mut got = Vec::new();
        let mut next_line = 1;
        let err = split_lines(
            &mut reader,
            1,
            &mut |job: Job| {
                assert_eq!(job.first_line, next_line);
                assert!(job.too_long.is_none());
                next_line += memchr::memchr_iter(b'\n', &job.text).count();
                got.extend_from_slice(&job.text);
                buffers.give(job.text);
            },
            &buffers,
        )
        .error;
        let case = format!("step {step}, capacity {cap}, failing at {fail_at:?}");
        match fail_at {
            None => {
                assert!(err.is_none(), "{case}");
                assert!(got == data, "{case}");
            }
            Some(at) => {
                let whole = memchr::memrchr(b'\n', &data[..at]).map_or(0, |i| i + 1);
                assert!(got == data[..whole], "{case}");
                let lines = memchr::memchr_iter(b'\n', &data[..whole]).count();
                assert_eq!(
                    err.as_deref(),
                    Some(&*format!("read error after line {lines}: boom")),
                    "{case}"
                );
            }
        }
    }
}

use super::*;
use crate::redact::Redactor;

fn line(t: i64, host: &str, status: u16) -> String {
    let ts = chrono::DateTime::from_timestamp(t, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    format!(r#"{{"time":"{ts}","method":"GET","url":"https://{host}/v1/items","status":{status}}}"#)
        + "\n"
}

fn opts() -> ingest::Options {
    ingest::Options {
        threads: Some(1),
        ..ingest::Options::new(Redactor::from_key_material(b"k"))
    }
}

/// Feed `text` as one piece of input 0, counting it in `w` as read at `now`.
fn feed(f: &mut Following, w: &mut Window, now: i64, text: &str, first_line: usize) {
    f.feed(
        0,
        "live.jsonl",
        text.as_bytes().to_vec(),
        first_line,
        &opts(),
        &mut |m| w.observe(now, m),
    )
    .unwrap();
}

const T0: i64 = 1_800_000_000;

fn rec() -> crate::recommend::Options {
    crate::recommend::Options::default()
}

#[test]
fn the_view_names_the_hosts_of_the_last_minute_and_of_ten() {
    let names = vec!["live.jsonl".to_string()];
    let mut f = Following::new(&names);
    let mut w = Window::default();
    // Five minutes ago: a.example was limited; now b.example is.
    let old: String = (0..20).map(|_| line(T0 - 300, "a.example", 429)).collect();
    feed(&mut f, &mut w, T0, &old, 1);
    let now: String = (0..30)
        .map(|k| line(T0 - 1, "b.example", if k % 3 == 0 { 429 } else { 200 }))
        .collect();
    feed(&mut f, &mut w, T0, &now, 21);
    let v = w.view(T0, &rec());
    assert_eq!(v.last_minute.hosts.len(), 1);
    assert_eq!(v.last_minute.hosts[0].host, "b.example");
    assert_eq!(
        (v.last_minute.hosts[0].requests, v.last_minute.rate_limited),
        (30, 10)
    );
    assert_eq!(v.last_10_minutes.hosts[0].host, "a.example");
    assert_eq!(v.last_10_minutes.rate_limited, 30);
    assert_eq!(
        v.total,
        Counts {
            requests: 50,
            rate_limited: 30
        }
    );
    // The full report has them all, with the lines numbered across the pieces.
    let r = f.finish(&names, &AnalyzeOptions::default(), &Default::default());
    assert_eq!(r.summary.requests, 50);
    assert_eq!(r.inputs[0].records, 50);
    assert_eq!(r.summary.rate_limited, 30);
    assert!(r.inputs[0].error.is_none(), "{:?}", r.inputs[0].error);
}

#[test]
fn buckets_older_than_the_span_are_dropped_and_old_records_only_counted() {
    let names = vec!["live.jsonl".to_string()];
    let mut f = Following::new(&names);
    let mut w = Window::default();
    for s in 0..1_000 {
        feed(
            &mut f,
            &mut w,
            T0 + s,
            &line(T0 + s, "a.example", 200),
            1 + s as usize,
        );
    }
    assert!(w.buckets() <= SPAN_SECS as usize, "{}", w.buckets());
    feed(
        &mut f,
        &mut w,
        T0 + 1_000,
        &line(T0, "a.example", 429),
        1_001,
    );
    assert_eq!(w.before_span, 1);
    let v = w.view(T0 + 1_000, &rec());
    assert_eq!(v.last_10_minutes.rate_limited, 0);
    assert_eq!(v.total.rate_limited, 1);
    // Seconds T0+941 ..= T0+999 (the minute up to and with T0+1000).
    assert_eq!(v.last_minute.requests, 59);
}

#[test]
fn hosts_past_the_cap_are_counted_together() {
    let mut w = Window::default();
    for h in 0..(MAX_HOSTS as u64 + 10) {
        let s = w.slot(h + 1, Some(&format!("h{h}.example")));
        w.count(T0, T0, s, true, Default::default());
    }
    assert_eq!(w.names.len(), MAX_HOSTS);
    let v = w.view(T0, &rec());
    assert_eq!(v.last_minute.hosts[0].host, OTHER_HOSTS);
    assert_eq!(v.last_minute.hosts[0].rate_limited, 10);
}

#[test]
fn the_trend_compares_the_last_minute_with_the_nine_before() {
    let mut w = Window::default();
    assert_eq!(w.view(T0, &rec()).trend, Trend::None);
    for m in 1..10 {
        w.count(T0, T0 - 60 * m, 0, true, Default::default());
    }
    assert_eq!(w.view(T0, &rec()).trend, Trend::Falling);
    w.count(T0, T0, 0, true, Default::default());
    assert_eq!(w.view(T0, &rec()).trend, Trend::Steady);
    for _ in 0..5 {
        w.count(T0, T0, 0, true, Default::default());
    }
    assert_eq!(w.view(T0, &rec()).trend, Trend::Rising);
}

#[test]
fn a_har_is_refused_and_blank_pieces_wait_for_text() {
    let names = vec!["x.har".to_string()];
    let mut f = Following::new(&names);
    let mut w = Window::default();
    let mut observe = |m: &Mapped| w.observe(T0, m);
    assert_eq!(
        f.feed(0, "x.har", b"\n\n".to_vec(), 1, &opts(), &mut observe),
        Ok(())
    );
    let har = br#"{"log":{"version":"1.2","entries":[]}}"#.to_vec();
    let e = f
        .feed(0, "x.har", har, 3, &opts(), &mut observe)
        .unwrap_err();
    assert!(e.to_string().contains("without --follow"), "{e}");
}

/// A line with a client, a key and, for a 429, a CDN's refusal with a stated limit.
fn full_line(t: i64, client: &str, key: &str, item: u32, status: u16) -> String {
    let ts = chrono::DateTime::from_timestamp(t, 0)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let response = if status == 429 {
        r#","response_headers":{"Server":"cloudflare","CF-RAY":"8a1b2c3d4e5f6a7b-LHR","Retry-After":"30","X-RateLimit-Limit":"120","X-RateLimit-Window":"60"},"response_body":"error code: 1015""#
    } else {
        r#","response_headers":{"Server":"cloudflare","CF-RAY":"8a1b2c3d4e5f6a7b-LHR","Content-Type":"application/json"}"#
    };
    format!(
        r#"{{"time":"{ts}","method":"GET","url":"https://api.example.com/v1/items/{item}","status":{status},"duration_ms":120,"client":"{client}","request_headers":{{"Authorization":"Bearer {key}"}}{response}}}"#
    ) + "\n"
}

#[test]
fn the_view_says_who_sent_the_429s_what_is_active_now_and_the_plan() {
    let names = vec!["live.jsonl".to_string()];
    let mut f = Following::new(&names);
    let mut w = Window::default();
    // Five quiet minutes: one request a second, all answered.
    let quiet: String = (0..300)
        .map(|s| full_line(T0 - 310 + s, "w1", "sk-test-aaaaaaaaaaaa", s as u32, 200))
        .collect();
    feed(&mut f, &mut w, T0 - 10, &quiet, 1);
    // Then ten seconds of 12 a second from two clients on one key: each refused item is
    // asked for again and again.
    let mut burst = String::new();
    for s in 0..10 {
        for k in 0..12 {
            let client = if k % 2 == 0 { "w1" } else { "w2" };
            let status = if k % 4 == 0 { 200 } else { 429 };
            burst += &full_line(T0 - 9 + s, client, "sk-test-aaaaaaaaaaaa", 1000 + k, status);
        }
    }
    feed(&mut f, &mut w, T0, &burst, 301);
    let v = w.view(T0, &rec());

    let host = &v.last_minute.hosts[0];
    assert_eq!(host.host, "api.example.com");
    assert_eq!(host.rate_limited, 90);
    let sent: u64 = host.sent_by.iter().map(|p| p.rate_limited).sum();
    assert_eq!(sent, 90, "{:?}", host.sent_by);
    assert_eq!(
        (host.sent_by[0].layer, host.sent_by[0].vendor.as_deref()),
        ("cdn", Some("cloudflare")),
        "the engine's verdict on a Cloudflare 1015"
    );
    // The 9 items refused each second are asked for again in the next one: 9 × 9 retries.
    assert_eq!(host.retries, 81);

    let kinds: Vec<&str> = v.active.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        ["burst", "retry_storm", "shared_credential"],
        "{:?}",
        v.active
    );
    assert_eq!(v.active[0].subject, "api.example.com");
    assert!(
        v.active[2].says.starts_with("2 clients"),
        "{}",
        v.active[2].says
    );
    assert!(
        !v.active[2].subject.contains("aaaaaaaa"),
        "a fingerprint, never the key: {}",
        v.active[2].subject
    );

    let plan = v.plan.expect("a plan for the worst host");
    assert_eq!(plan.host, "api.example.com");
    assert!(!plan.action.is_empty());
    // The NDJSON line carries the same.
    let line = serde_json::to_value(w.view(T0, &rec())).unwrap();
    assert_eq!(line["plan"]["host"], "api.example.com");
    assert_eq!(
        line["last_minute"]["hosts"][0]["sent_by"][0]["layer"],
        "cdn"
    );
    assert_eq!(line["active"][0]["kind"], "burst");
}

#[test]
fn nothing_is_active_in_steady_traffic() {
    let names = vec!["live.jsonl".to_string()];
    let mut f = Following::new(&names);
    let mut w = Window::default();
    let steady: String = (0..600)
        .map(|s| full_line(T0 - 599 + s, "w1", "sk-test-bbbbbbbbbbbb", s as u32, 200))
        .collect();
    feed(&mut f, &mut w, T0, &steady, 1);
    let v = w.view(T0, &rec());
    assert!(v.active.is_empty(), "{:?}", v.active);
    assert!(v.plan.is_none());
}

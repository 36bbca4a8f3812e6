use super::*;

fn read(text: &str) -> (Vec<Request>, TraceFacts, Option<String>, usize) {
    let source: Arc<str> = Arc::from("t.json");
    let r = Redactor::from_key_material(b"k");
    let mut got = Vec::new();
    let mut skipped = 0;
    let (err, facts) = read_all(
        Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        &source,
        &r,
        &mut |j| {
            skipped += j.skipped;
            got.extend(j.requests)
        },
    );
    (got, facts, err, skipped)
}

/// An OTLP span: (span, parent, name, kind, start ms, status or 0 for not HTTP).
fn otlp_span(trace: &str, s: (&str, &str, &str, u8, i64, u16)) -> String {
    let (id, parent, name, kind, ms, status) = s;
    let attrs = if status == 0 {
        String::new()
    } else {
        format!(
            r#"{{"key":"http.request.method","value":{{"stringValue":"GET"}}}},{{"key":"url.full","value":{{"stringValue":"https://api.example/v1/x?token=SECRETTOKEN123456"}}}},{{"key":"http.response.status_code","value":{{"intValue":"{status}"}}}}"#
        )
    };
    let start = 1_700_000_000_000_000_000i64 + ms * 1_000_000;
    format!(
        r#"{{"traceId":"{trace}","spanId":"{id}","parentSpanId":"{parent}","name":"{name}","kind":{kind},"startTimeUnixNano":"{start}","endTimeUnixNano":"{}","attributes":[{attrs}]}}"#,
        start + 20_000_000
    )
}

fn otlp_line(service: &str, spans: &[String]) -> String {
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"{service}"}}}}]}},"scopeSpans":[{{"spans":[{}]}}]}}]}}"#,
        spans.join(",")
    )
}

/// app loop (a1) → 3 SDK calls (s1..s3) → 3, 3, 1 attempts; the last round succeeds.
fn nested_trace(t: &str) -> Vec<String> {
    let mut v = vec![
        otlp_span(t, ("a0", "", "job", 1, 0, 0)),
        otlp_span(t, ("a1", "a0", "app.fetch", 1, 0, 0)),
    ];
    let mut ms = 0;
    for (round, n) in [(1, 3), (2, 3), (3, 1)] {
        let sdk = format!("s{round}");
        v.push(otlp_span(t, (&sdk, "a1", "sdk.get", 1, ms, 0)));
        for k in 0..n {
            let status = if round == 3 { 200 } else { 429 };
            let id = format!("h{round}{k}");
            v.push(otlp_span(t, (&id, &sdk, "GET", 3, ms, status)));
            ms += 50;
        }
        ms += 1000;
    }
    v
}

#[test]
fn nested_retries_come_from_the_span_tree() {
    let mut spans = nested_trace("t1");
    // The root comes last, as a batch exporter writes it.
    let root = spans.remove(0);
    let text = format!(
        "{}\n{}\n",
        otlp_line("billing", &spans),
        otlp_line("billing", &[root])
    );
    let (reqs, facts, err, _) = read(&text);
    assert_eq!(err, None);
    assert_eq!(reqs.len(), 7);
    assert_eq!(reqs.iter().filter(|r| r.status == 429).count(), 6);
    let chains: HashSet<u64> = reqs
        .iter()
        .map(|r| r.span.as_ref().unwrap().chain)
        .collect();
    assert_eq!(chains.len(), 1, "one logical request");
    assert!(reqs
        .iter()
        .all(|r| r.client.client.as_deref() == Some("billing")));
    assert!(reqs.iter().all(|r| !r.url.contains("SECRETTOKEN")));
    assert_eq!((facts.spans, facts.http_spans, facts.not_http), (12, 7, 5));
    let h = &facts.nested["api.example"];
    assert_eq!((h.chains, h.attempts), (1, 7));
    let c = &h.worst[0];
    assert_eq!((c.inner, c.outer, c.owner.span_id.as_str()), (3, 3, "a1"));
    let ids: Vec<&str> = c.rounds[0]
        .attempts
        .iter()
        .map(|a| a.span_id.as_str())
        .collect();
    assert_eq!(ids, ["h10", "h11", "h12"]);
    assert_eq!(c.rounds[2].under.name, "sdk.get");
    assert!(!c.url.contains("SECRETTOKEN"));
}

#[test]
fn one_layer_or_separate_calls_are_not_nested() {
    let t = "t2";
    // One SDK call with three attempts: one layer.
    let one_layer = vec![
        otlp_span(t, ("a0", "", "job", 1, 0, 0)),
        otlp_span(t, ("s1", "a0", "sdk.get", 1, 0, 0)),
        otlp_span(t, ("h1", "s1", "GET", 3, 0, 429)),
        otlp_span(t, ("h2", "s1", "GET", 3, 50, 429)),
        otlp_span(t, ("h3", "s1", "GET", 3, 100, 200)),
    ];
    // Two SDK calls in a row, the first succeeding after a retry: a second read, not a retry.
    let u = "t3";
    let two_reads = vec![
        otlp_span(u, ("a0", "", "job", 1, 0, 0)),
        otlp_span(u, ("s1", "a0", "sdk.get", 1, 0, 0)),
        otlp_span(u, ("h1", "s1", "GET", 3, 0, 429)),
        otlp_span(u, ("h2", "s1", "GET", 3, 50, 200)),
        otlp_span(u, ("s2", "a0", "sdk.get", 1, 200, 0)),
        otlp_span(u, ("h3", "s2", "GET", 3, 200, 200)),
    ];
    let text = format!(
        "{}\n{}\n",
        otlp_line("svc", &one_layer),
        otlp_line("svc", &two_reads)
    );
    let (reqs, facts, err, _) = read(&text);
    assert_eq!(err, None);
    assert_eq!(reqs.len(), 6);
    assert!(facts.nested.is_empty(), "{:?}", facts.nested);
}

#[test]
fn logical_call_spans_and_server_spans_of_traced_clients_are_read_once() {
    let t = "t4";
    let spans = vec![
        // requests' span around urllib3's: the inner one is the attempt.
        otlp_span(t, ("c0", "", "GET", 3, 0, 429)),
        otlp_span(t, ("c1", "c0", "GET", 3, 0, 429)),
        // The server's own span of the same exchange.
        otlp_span(t, ("v1", "c1", "GET /v1/x", 2, 1, 429)),
    ];
    let (reqs, facts, _, _) = read(&format!("{}\n", otlp_line("svc", &spans)));
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].span.as_ref().unwrap().span_id, "c1");
    assert_eq!((facts.logical_calls, facts.server_side), (1, 1));
}

#[test]
fn a_pretty_printed_document_and_a_bad_line() {
    let spans = nested_trace("t5");
    let doc = serde_json::to_string_pretty(
        &serde_json::from_str::<serde_json::Value>(&otlp_line("svc", &spans)).unwrap(),
    )
    .unwrap();
    let (reqs, facts, err, _) = read(&doc);
    assert_eq!(err, None);
    assert_eq!(reqs.len(), 7);
    assert_eq!(facts.nested.len(), 1);

    let text = format!(
        "{}\n{{\"resourceSpans\": 3}}\nnot json\n",
        otlp_line("svc", &spans)
    );
    let (reqs, _, err, skipped) = read(&text);
    assert_eq!(err, None);
    assert_eq!((reqs.len(), skipped), (7, 2));

    let (_, _, err, _) = read(&doc[..doc.len() / 2]);
    assert!(err.unwrap().contains("starts on line 1"));
}

#[test]
fn attributes_old_and_new_and_captured_headers() {
    let text = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"w"}},{"key":"service.instance.id","value":{"stringValue":"i-1"}}]},"scopeSpans":[{"spans":[
{"traceId":"T","spanId":"A","kind":3,"startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000250000000","attributes":[{"key":"http.method","value":{"stringValue":"post"}},{"key":"net.peer.name","value":{"stringValue":"Api.Example"}},{"key":"net.peer.port","value":{"intValue":443}},{"key":"http.target","value":{"stringValue":"/pay?access_token=SECRETTOKEN123456"}},{"key":"http.status_code","value":{"intValue":429}},{"key":"http.response.header.retry_after","value":{"arrayValue":{"values":[{"stringValue":"7"}]}}},{"key":"http.request.header.authorization","value":{"arrayValue":{"values":[{"stringValue":"Bearer SECRETTOKEN123456"}]}}},{"key":"db.password","value":{"stringValue":"SECRETTOKEN123456"}}]}]}]}]}"#;
    let (reqs, facts, err, _) = read(text.replace('\n', "").as_str());
    assert_eq!(err, None);
    let r = &reqs[0];
    assert_eq!((r.method.as_str(), r.status), ("POST", 429));
    assert!(
        r.url.starts_with("https://Api.Example/pay?access_token="),
        "{}",
        r.url
    );
    assert_eq!(r.response_headers.get("retry-after"), Some("7"));
    assert_eq!(r.duration_ms, Some(250.0));
    assert_eq!(r.client.client.as_deref(), Some("w/i-1"));
    assert!(r.credential.is_some());
    let all = format!("{reqs:?} {facts:?}");
    assert!(!all.contains("SECRETTOKEN"), "{all}");
    assert_eq!(facts.response_headers, ["retry-after"]);
}

#[test]
fn jaeger_export() {
    let text = r#"{"data":[{"traceID":"j1","spans":[
{"traceID":"j1","spanID":"r","operationName":"job","references":[],"startTime":1700000000000000,"duration":5000000,"tags":[],"processID":"p1"},
{"traceID":"j1","spanID":"s1","operationName":"sdk.get","references":[{"refType":"CHILD_OF","traceID":"j1","spanID":"r"}],"startTime":1700000000000000,"duration":1000,"tags":[],"processID":"p1"},
{"traceID":"j1","spanID":"c1","operationName":"GET","references":[{"refType":"CHILD_OF","traceID":"j1","spanID":"s1"}],"startTime":1700000000000000,"duration":1000,"tags":[{"key":"span.kind","type":"string","value":"client"},{"key":"http.status_code","type":"int64","value":429},{"key":"http.url","type":"string","value":"https://api.example/x"},{"key":"http.method","type":"string","value":"GET"}],"processID":"p1"}
],"processes":{"p1":{"serviceName":"svc","tags":[{"key":"sampler.type","type":"string","value":"probabilistic"},{"key":"sampler.param","type":"float64","value":0.1}]}}}],"total":0}"#;
    let (reqs, facts, err, _) = read(&text.replace('\n', ""));
    assert_eq!(err, None);
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].status, 429);
    assert_eq!(reqs[0].client.client.as_deref(), Some("svc"));
    assert_eq!(
        reqs[0].location.position,
        Position::Entry(2),
        "the third span"
    );
    assert_eq!(facts.sampler.as_deref(), Some("probabilistic 0.1"));
    assert!(facts.lacks.iter().any(|l| l.contains("probabilistic 0.1")));
}

#[test]
fn open_traces_are_bounded() {
    // Traces without a root in view close when idle, and a late span starts a new part.
    let mut lines = Vec::new();
    for i in 0..(IDLE_BATCHES + 3) {
        let t = format!("t{i}");
        lines.push(otlp_line(
            "svc",
            &[otlp_span(&t, ("c", "p", "GET", 3, 0, 200))],
        ));
    }
    lines.push(otlp_line(
        "svc",
        &[otlp_span("t0", ("d", "p", "GET", 3, 0, 200))],
    ));
    let (reqs, facts, _, _) = read(&(lines.join("\n") + "\n"));
    assert_eq!(reqs.len() as u64, IDLE_BATCHES + 4);
    assert_eq!(facts.split_traces, 1);
}

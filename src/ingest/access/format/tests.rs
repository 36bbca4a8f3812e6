use super::*;

const COMBINED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

/// `parse_into` (straight-line `combined` first) against the walk over the items alone:
/// the same answer, fields and signal inputs; how they differ, when they do.
fn walk_differs(fmt: &LogFormat, line: &str) -> Option<String> {
    let (mut f1, mut s1) = (Fields::default(), SignalInputs::default());
    let r1 = fmt.parse_into(line, &mut f1, &mut s1);
    let plain = fmt.escape == Escape::None || memchr(b'\\', line.as_bytes()).is_none();
    let (mut f2, mut s2) = (Fields::default(), SignalInputs::default());
    let r2 = fmt.walk_into(line, plain, &mut f2, &mut s2);
    if r1 != r2 {
        return Some(format!("{line:?}: {r1:?} vs {r2:?}"));
    }
    if r1.is_ok() {
        let (a, b) = (format!("{f1:?} {s1:?}"), format!("{f2:?} {s2:?}"));
        if a != b {
            return Some(format!("{line:?}:\n{a}\n{b}"));
        }
    }
    None
}

#[test]
fn status_is_what_str_parse_gives() {
    for v in [
        "", "0", "7", "00", "042", "200", "429", "999", "1000", "-", "2a", " 20", "+20",
    ] {
        let want = if v.is_empty() || v.len() > 3 || !v.bytes().all(|b| b.is_ascii_digit()) {
            None
        } else {
            v.parse::<u16>().ok()
        };
        assert_eq!(parse_status(v), want, "{v:?}");
    }
    for n in 0..1000u16 {
        for s in [format!("{n}"), format!("{n:03}")] {
            assert_eq!(parse_status(&s), Some(n));
        }
    }
}

#[test]
fn only_combined_takes_the_straight_line_matcher() {
    use super::super::nginx;
    assert_eq!(nginx::combined().shape, Shape::Combined);
    assert_eq!(
        compile_nginx(COMBINED, Escape::Json, "t").unwrap().shape,
        Shape::Combined
    );
    for f in [
        nginx::main(),
        nginx::upstreaminfo(),
        nginx::traefik_clf(),
        nginx::apache_common(),
        nginx::apache_combined(),
    ] {
        assert_eq!(f.shape, Shape::Walk, "{}", f.label);
    }
    let other = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_x_api""#;
    assert_eq!(
        compile_nginx(other, Escape::Backslash, "t").unwrap().shape,
        Shape::Walk
    );
}

#[test]
fn straight_line_combined_matches_the_walk_on_samples() {
    let lines = [
        r#"85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh)""#,
        r#"10.0.3.37 - bob [01/May/2024:00:00:00 +0000] "GET /v1/x?y=1 HTTP/1.1" 429 0 "https://a.example/" "curl/8.0" trailing"#,
        r#"- - - [-] "" - - "-" "-""#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET /a" b" HTTP/1.1" 200 1 "-" "ua "quoted" x""#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" ""#,
        r#"1.2.3.4 - - [not a time] "GET / HTTP/1.1" 200 1 "-" "ua""#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 2000 1 "-" "ua""#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET /\x22 HTTP/1.1" 200 1 "-" "u\"a""#,
        r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200"#,
        r#"1.2.3.4 -  - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "é""#,
        "",
        "-",
    ];
    for fmt in [
        compile_nginx(COMBINED, Escape::Backslash, "t").unwrap(),
        compile_nginx(COMBINED, Escape::Json, "t").unwrap(),
        compile_nginx(COMBINED, Escape::None, "t").unwrap(),
    ] {
        for line in lines {
            assert_eq!(walk_differs(&fmt, line), None);
        }
    }
}

proptest::proptest! {
    /// Straight-line `combined` == the walk, on lines built from the layout's own pieces.
    #[test]
    fn straight_line_combined_is_the_walk(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just(" - ".to_string()),
                proptest::strategy::Just(" [".to_string()),
                proptest::strategy::Just("] \"".to_string()),
                proptest::strategy::Just("\" ".to_string()),
                proptest::strategy::Just(" \"".to_string()),
                proptest::strategy::Just("\" \"".to_string()),
                proptest::strategy::Just("01/May/2024:00:00:07 +0000".to_string()),
                proptest::strategy::Just("GET /v1/x?y=1 HTTP/1.1".to_string()),
                proptest::strategy::Just("-".to_string()),
                "[0-9]{1,4}",
                r#"[ a-z0-9./\\\[\]"-]{0,12}"#,
            ],
            0..20,
        ),
        tail in proptest::option::of(r#"[ a-z"\\]{0,4}"#),
    ) {
        let mut line = parts.concat();
        if let Some(t) = tail {
            line.push_str(&t);
        }
        for esc in [Escape::Backslash, Escape::Json, Escape::None] {
            let fmt = compile_nginx(COMBINED, esc, "t").unwrap();
            if let Some(e) = walk_differs(&fmt, &line) {
                return Err(proptest::test_runner::TestCaseError::fail(e));
            }
        }
    }

    /// Whole `combined` lines with random values, most of which match.
    #[test]
    fn straight_line_combined_is_the_walk_on_lines(
        addr in "[0-9.a-f:-]{0,15}",
        user in "[a-z -]{0,6}",
        time in proptest::prop_oneof![
            proptest::strategy::Just("01/May/2024:00:00:07 +0000".to_string()),
            proptest::strategy::Just("-".to_string()),
            "[0-9/A-Za-z: +\\]]{0,28}",
        ],
        req in r#"[A-Z]{0,4} [ /a-z?=&"\\]{0,20} HTTP/1\.[01]"#,
        status in "[0-9-]{0,4}",
        bytes in "[0-9 -]{0,5}",
        referer in "[ a-z:/.\"-]{0,12}",
        agent in r#"[ a-zA-Z/.();"\\]{0,20}"#,
        end in proptest::prop_oneof![
            proptest::strategy::Just("\"".to_string()),
            proptest::strategy::Just(String::new()),
            "\"[ a-z\"]{0,4}",
        ],
    ) {
        let line = format!("{addr} - {user} [{time}] \"{req}\" {status} {bytes} \"{referer}\" \"{agent}{end}");
        for esc in [Escape::Backslash, Escape::Json, Escape::None] {
            let fmt = compile_nginx(COMBINED, esc, "t").unwrap();
            if let Some(e) = walk_differs(&fmt, &line) {
                return Err(proptest::test_runner::TestCaseError::fail(e));
            }
        }
    }
}

proptest::proptest! {
    /// The word-at-a-time search finds what memchr finds, at every length and offset.
    #[test]
    fn find_byte_is_memchr(hay in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), c in proptest::prelude::any::<u8>()) {
        proptest::prop_assert_eq!(find_byte(c, &hay), memchr(c, &hay));
    }
    #[test]
    fn find_byte_finds_spaces_in_text(hay in "[ a-z0-9./\\[\\]\"-]{0,150}") {
        for c in [b' ', b'"', b']'] {
            proptest::prop_assert_eq!(find_byte(c, hay.as_bytes()), memchr(c, hay.as_bytes()));
        }
    }
}

#[test]
fn compiles_and_matches_combined() {
    let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
    // [B1] elastic/beats filebeat/module/nginx/access/test/test.log
    let line = r#"85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36""#;
    let m = f.parse(line).unwrap();
    assert!(!m.trailing);
    assert_eq!(m.fields.status, Some(200));
    assert_eq!(m.fields.client_ip.as_deref(), Some("85.181.35.98"));
    assert_eq!(
        m.fields.request_line.as_deref(),
        Some("GET /ocelot HTTP/1.1")
    );
    assert!(m
        .fields
        .user_agent
        .as_deref()
        .unwrap()
        .starts_with("Mozilla/5.0"));
    assert_eq!(m.fields.time, Some(Stamp::End(1_481_105_107_000_000)));
}

#[test]
fn mismatches_are_located_and_carry_no_content() {
    let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
    let e = f
        .parse(r#"10.0.0.1 - secretuser [07/Dec/2016:11:05:07 +0100] "GET /?k=SECRET HTTP/1.1" abc 5 "-" "-""#)
        .err()
        .unwrap();
    assert!(
        matches!(&e.reason, LineError::Field { field, .. } if field == "$status"),
        "{}",
        e.reason
    );
    let text = e.reason.to_string();
    assert!(text.contains("$status"), "{text}");
    assert!(!text.contains("SECRET") && !text.contains("secretuser"));
    let e = f.parse("10.0.0.1 - -").err().unwrap();
    assert!(
        matches!(e.reason, LineError::EndsBefore { .. }),
        "{}",
        e.reason
    );
    assert!(e.reason.to_string().contains("line ends"), "{}", e.reason);
    assert!(f.parse("").is_err());
}

#[test]
fn lists_continue_past_commas_and_colons() {
    let f = compile_nginx(
        "$status $upstream_addr $upstream_status $request_id",
        Escape::Backslash,
        "t",
    )
    .unwrap();
    let m = f
        .parse("200 172.17.0.6:8080, 172.17.0.7:8080 : 10.0.0.9:80 502, 504 : 200 abc")
        .unwrap();
    assert_eq!(
        m.signal.upstream_addr,
        Some("172.17.0.6:8080, 172.17.0.7:8080 : 10.0.0.9:80")
    );
    assert_eq!(m.signal.upstream_status, Some("502, 504 : 200"));
    assert_eq!(m.fields.request_id.as_deref(), Some("abc"));
}

#[test]
fn escapes_are_undone_per_mode() {
    let f = compile_nginx(r#""$http_user_agent" $status"#, Escape::Backslash, "t").unwrap();
    let m = f.parse(r#""a \x22b\x22" 429"#).unwrap();
    assert_eq!(m.fields.user_agent.as_deref(), Some("a \"b\""));
    let j = compile_nginx(
        r#"{"ua":"$http_user_agent","status":$status}"#,
        Escape::Json,
        "t",
    )
    .unwrap();
    let m = j.parse(r#"{"ua":"a \"b\", c","status":429}"#).unwrap();
    assert_eq!(m.fields.user_agent.as_deref(), Some("a \"b\", c"));
    assert_eq!(m.fields.status, Some(429));
}

#[test]
fn headers_and_unknown_variables_are_kept_by_name() {
    let f = compile_nginx(
        "$status $upstream_http_retry_after $sent_http_x_ratelimit_remaining $http_x_api_key $ssl_client_s_dn_x",
        Escape::Backslash,
        "t",
    )
    .unwrap();
    assert_eq!(f.unknown_names(), vec!["ssl_client_s_dn_x"]);
    let m = f.parse("429 12 0 k-1 CN=x").unwrap();
    let resp: Vec<(&str, &str)> = m
        .fields
        .response_headers
        .iter()
        .map(|(a, b)| (a.as_ref(), b.as_ref()))
        .collect();
    assert_eq!(
        resp,
        vec![("retry-after", "12"), ("x-ratelimit-remaining", "0")]
    );
    assert_eq!(m.fields.request_headers[0].0, "x-api-key");
    assert_eq!(m.fields.extra[0].0, "ssl_client_s_dn_x");
}

#[test]
fn an_address_holds_no_timestamp() {
    assert!(address_like("10.0.0.1"));
    assert!(address_like("10.0.0.2, 10.0.0.1, 127.0.0.1"));
    assert!(address_like("\"10.5.102.222, 199.96.1.1\" 10.2.1.185"));
    assert!(address_like("2a03:0:10ff::8000, 10.225.192.17 10.2.2.121"));
    assert!(!address_like("2026-12-03T10:00:00.5Z 10.0.0.1"));
    assert!(!address_like("2026-12-03T10:00:00.123456789+01:00 ::1"));
    assert!(!address_like("vhost1.example.org 192.168.33.1"));
}

#[test]
fn adjacent_variables_are_refused() {
    assert!(compile_nginx("$status$request_time", Escape::Backslash, "t").is_err());
    assert!(compile_nginx("no vars here", Escape::Backslash, "t").is_err());
}

#[test]
fn envoy_operators() {
    let f = compile_envoy(
        r#"[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% %START_TIME(%s.%3f)% %RESP(RETRY-AFTER):10% "%UPSTREAM_HOST%""#,
        "t",
    )
    .unwrap();
    let m = f
        .parse(r#"[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 429 RL 5 1460751420.310 30 "-""#)
        .unwrap();
    assert_eq!(m.fields.method.as_deref(), Some("POST"));
    assert_eq!(m.fields.target.as_deref(), Some("/api/v1/locations"));
    assert_eq!(m.fields.status, Some(429));
    assert_eq!(m.signal.response_flags, Some("RL"));
    assert_eq!(m.signal.upstream_host, Some("-"));
    assert_eq!(m.fields.duration_ms, Some(5.0));
    assert_eq!(m.fields.response_headers[0].0, "retry-after");
}

#[test]
fn apache_directives() {
    let f = compile_apache(
        r#"%h %l %u %t "%r" %>s %b %D "%{User-agent}i" %{Retry-After}o"#,
        "t",
    )
    .unwrap();
    // [P3] the Apache docs' canonical example, with %D and two headers added.
    let m = f
        .parse(r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 1500 "curl/8 \"x\"" -"#)
        .unwrap();
    assert_eq!(m.fields.remote_user.as_deref(), Some("frank"));
    assert_eq!(m.fields.time, Some(Stamp::Start(971_211_336_000_000)));
    assert_eq!(m.fields.duration_ms, Some(1.5));
    assert_eq!(m.fields.user_agent.as_deref(), Some("curl/8 \"x\""));
    assert!(m.fields.response_headers.is_empty());
}

#[test]
fn user_formats_are_told_apart_and_unwrapped() {
    let n =
        compile_user("log_format main escape=json '{\"t\":\"$time_iso8601\",' '\"s\":$status}';")
            .unwrap();
    assert_eq!((n.syntax, n.escape), (Syntax::Nginx, Escape::Json));
    assert!(n
        .parse(r#"{"t":"2024-01-01T00:00:00+00:00","s":429}"#)
        .is_ok());
    let e = compile_user(r#"format: "[%START_TIME%] %RESPONSE_CODE%\n""#).unwrap();
    assert_eq!(e.syntax, Syntax::Envoy);
    assert!(e.parse("[2024-01-01T00:00:00.000Z] 429").is_ok());
    let a = compile_user(r#"LogFormat "%h %l %u %t \"%r\" %>s %b" common"#).unwrap();
    assert_eq!(a.syntax, Syntax::Apache);
    assert!(a
        .parse(r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#)
        .is_ok());
    assert!(compile_user("plain text").is_err());
    assert!(compile_user("").is_err());
}

#[test]
fn never_panics_on_odd_lines() {
    let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
    for line in [
        "\"",
        "[",
        "- - [",
        "a - b [c] \"",
        "é - - [07/Dec/2016:11:05:07 +0100] \"\\",
        "x - y [] \"\" 1 2 \"\" \"",
    ] {
        let _ = f.parse(line);
    }
}

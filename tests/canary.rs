//! Secrets never leak: unique canary strings planted in every place the redaction policy names,
//! in a HAR and in a JSON-lines file; every subcommand and output format runs over them and no
//! canary may appear in stdout, stderr or any written file.

mod common;
use common::*;
use std::path::Path;

/// A JWT whose parts contain no canary text, so it must be caught by shape.
const JWT: &str =
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnktand0LXVzZXIifQ.Q0FOQVJZLXNpZ25hdHVyZS1ieXRlcw";

fn c(n: u32) -> String {
    format!("CANARY{n:03}x")
}

fn har_with_canaries() -> String {
    let secret_headers = [
        ("Authorization", format!("Bearer {}", c(1))),
        ("Proxy-Authorization", format!("Basic {}", c(2))),
        ("Cookie", format!("sid={}; theme={}", c(3), c(4))),
        ("X-Api-Key", c(5)),
        ("Api-Key", c(6)),
        ("X-Auth-Token", c(7)),
        ("X-Amz-Security-Token", c(8)),
        ("X-Client-Secret", c(9)),
        ("X-Session-Id", c(10)),
        ("X-Password", c(11)),
        ("X-Passwd", c(12)),
        ("X-Goog-Signature", c(13)),
        ("X-Credential", c(14)),
        ("X-Debug-Jwt-Carrier", JWT.to_string()),
        (
            "Referer",
            format!("https://app.example.com/cb?code={}&state=ok", c(15)),
        ),
        (":path", format!("/v1/x?access_token={}", c(16))),
        ("X-Note", format!("bearer {}", c(17))),
    ];
    let req_headers: Vec<String> = secret_headers
        .iter()
        .map(|(n, v)| format!(r#"{{"name":"{n}","value":"{v}"}}"#))
        .collect();
    let params = [
        "api_key",
        "apikey",
        "access_token",
        "refresh_token",
        "id_token",
        "token",
        "sig",
        "signature",
        "password",
        "client_secret",
        "code",
        "key",
        "session",
    ];
    let query: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{p}={}", c(100 + i as u32)))
        .collect();
    let qs: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, p)| format!(r#"{{"name":"{p}","value":"{}"}}"#, c(100 + i as u32)))
        .collect();
    let url = format!(
        "https://user:{}@api.example.com/v1/{JWT}/items?{}&page=2#access_token={}",
        c(20),
        query.join("&"),
        c(21)
    );
    let body_json = format!(
        r#"{{\"password\":\"{}\",\"client_secret\":\"{}\",\"nested\":{{\"refresh_token\":\"{}\"}},\"user\":\"bob\",\"note\":\"Bearer {}\"}}"#,
        c(30),
        c(31),
        c(32),
        c(33)
    );
    let form = format!("grant_type=password&password={}&api_key={}", c(40), c(41));
    let resp_body = format!(
        r#"{{\"error\":\"rate limited\",\"access_token\":\"{}\",\"debug\":\"{JWT}\",\"hint\":\"Authorization: Bearer {}\"}}"#,
        c(50),
        c(51)
    );
    let ok_body = format!(
        r#"{{\"access_token\":\"{}\",\"id_token\":\"{JWT}\"}}"#,
        c(60)
    );
    format!(
        r#"{{"log":{{"version":"1.2","creator":{{"name":"canary","version":"1"}},"entries":[
  {{"startedDateTime":"2026-01-01T00:00:00.000Z","time":50,"_initiator":{{"type":"script","url":"https://cdn.example.com/a.js?token={}"}},
    "request":{{"method":"POST","url":"{url}","httpVersion":"h2","headers":[{}],"cookies":[{{"name":"sid","value":"{}"}}],
      "queryString":[{}],"postData":{{"mimeType":"application/json","text":"{body_json}","params":[{{"name":"token","value":"{}"}}]}},"headersSize":-1,"bodySize":-1}},
    "response":{{"status":429,"statusText":"","httpVersion":"h2","headers":[{{"name":"Retry-After","value":"12"}},{{"name":"Set-Cookie","value":"sess={}; Path=/; HttpOnly"}},
      {{"name":"WWW-Authenticate","value":"Bearer realm=x, error={}"}},{{"name":"Location","value":"https://x.example.com/?sig={}"}}],
      "cookies":[{{"name":"sess","value":"{}"}}],"content":{{"size":10,"mimeType":"application/json","text":"{resp_body}"}},"redirectURL":"https://x.example.com/?session={}","headersSize":-1,"bodySize":-1}},
    "cache":{{}},"timings":{{"send":1,"wait":40,"receive":9}}}},
  {{"startedDateTime":"2026-01-01T00:00:01.000Z","time":30,
    "request":{{"method":"POST","url":"https://api.example.com/oauth/token","httpVersion":"h2","headers":[{{"name":"Content-Type","value":"application/x-www-form-urlencoded"}}],"cookies":[],"queryString":[],
      "postData":{{"mimeType":"application/x-www-form-urlencoded","text":"{form}"}},"headersSize":-1,"bodySize":-1}},
    "response":{{"status":200,"statusText":"OK","httpVersion":"h2","headers":[],"cookies":[],"content":{{"size":10,"mimeType":"application/json","text":"{ok_body}"}},"redirectURL":"","headersSize":-1,"bodySize":-1}},
    "cache":{{}},"timings":{{"send":1,"wait":20,"receive":9}}}}
]}}}}"#,
        c(70),
        req_headers.join(","),
        c(71),
        qs.join(","),
        c(72),
        c(73),
        c(74),
        c(75),
        c(76),
        c(77),
    )
}

fn jsonl_with_canaries() -> String {
    let mut lines = Vec::new();
    for (i, status) in [429, 429, 200].iter().enumerate() {
        let line = serde_json::json!({
            "time": format!("2026-01-01T00:00:0{i}.000Z"),
            "method": "POST",
            "url": format!("https://u:{}@api.example.com/v1/pay?api_key={}&token={}&page=1#id_token={}", c(200), c(201), c(202), c(203)),
            "status": status,
            "duration_ms": 40,
            "client": "worker-1",
            "request_headers": {
                "Authorization": format!("Bearer {}", c(204)),
                "X-Api-Key": c(205),
                "Cookie": format!("session={}", c(206)),
                "Idempotency-Key": c(207),
                "X-Jwt": JWT,
            },
            "response_headers": [
                {"name": "Retry-After", "value": "3"},
                {"name": "Set-Cookie", "value": format!("s={}; Secure", c(208))},
                {"name": "X-Auth-Token", "value": c(209)},
            ],
            "response_body": format!("{{\"error\":\"slow down\",\"refresh_token\":\"{}\",\"trace\":\"Bearer {}\",\"jwt\":\"{JWT}\"}}", c(210), c(211)),
            "request_body": format!("{{\"card\":\"4242\",\"password\":\"{}\"}}", c(212)),
            "api_key": c(213),
        });
        lines.push(line.to_string());
    }
    lines.push(format!(
        "not json but has Bearer {} and ?token={}",
        c(220),
        c(221)
    ));
    lines.join("\n") + "\n"
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    assert!(
        !s.contains("CANARY"),
        "{what} leaks a canary:\n{}",
        excerpt(&s)
    );
    assert!(!s.contains(JWT), "{what} leaks the JWT");
    assert!(!s.contains("Q0FOQVJZ"), "{what} leaks part of the JWT");
}

fn excerpt(s: &str) -> String {
    let i = s.find("CANARY").unwrap_or(0);
    s[i.saturating_sub(200)..(i + 100).min(s.len())].to_string()
}

fn run_and_check(what: &str, args: &[&str], dir: &Path) {
    let out = toomany().args(args).current_dir(dir).output().unwrap();
    assert!(out.status.code().is_some(), "{what}: exited");
    assert_clean(&format!("{what} stdout"), &out.stdout);
    assert_clean(&format!("{what} stderr"), &out.stderr);
}

#[test]
fn no_canary_survives_any_subcommand_or_format() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let har = write(d, "canary.har", har_with_canaries().as_bytes());
    let jsonl = write(d, "canary.jsonl", jsonl_with_canaries().as_bytes());
    // The planted files really contain the canaries (the test can fail).
    assert!(std::fs::read_to_string(&har)
        .unwrap()
        .contains("CANARY001x"));
    serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&har).unwrap())
        .expect("canary HAR is valid JSON");

    for input in [&har, &jsonl] {
        for fmt in ["table", "json"] {
            run_and_check(
                &format!("analyze {input} --format {fmt}"),
                &["analyze", input, "--format", fmt, "--all"],
                d,
            );
        }
        run_and_check("analyze -o", &["analyze", input, "-o", "report.json"], d);
        run_and_check(
            "analyze -o table",
            &["analyze", input, "-o", "report.txt"],
            d,
        );
        for out in ["red.out", "red.out.gz"] {
            let _ = std::fs::remove_file(d.join(out));
            run_and_check(
                &format!("redact {input} -o {out}"),
                &["redact", input, "-o", out],
                d,
            );
        }
        run_and_check("redact to stdout", &["redact", input, "-o", "-"], d);
        let cfg = format!(
            "cfg-{}",
            if input.ends_with(".har") {
                "har"
            } else {
                "jsonl"
            }
        );
        run_and_check(
            "analyze --emit-config",
            &[
                "analyze",
                input,
                "--limit",
                "120/min",
                "--emit-config",
                &cfg,
            ],
            d,
        );
        for fmt in ["table", "json"] {
            run_and_check(
                &format!("check {input}"),
                &["check", input, "--format", fmt],
                d,
            );
        }
    }
    // Commands that read no input still run clean.
    run_and_check(
        "plan",
        &[
            "plan",
            "--requests",
            "600",
            "--limit",
            "120/min",
            "--emit-config",
            "cfg-plan",
        ],
        d,
    );
    run_and_check("calc", &["calc", "rate", "90/min"], d);
    // Every file written anywhere under the directory, decompressed when gzipped.
    let mut files = Vec::new();
    for entry in std::fs::read_dir(d).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            let inner: Vec<_> = std::fs::read_dir(&p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            assert!(!inner.is_empty(), "{} has the emitted configs", p.display());
            files.extend(inner);
        } else {
            files.push(p);
        }
    }
    for p in files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("canary.") {
            continue;
        }
        let mut bytes = std::fs::read(&p).unwrap();
        if name.ends_with(".gz") {
            use std::io::Read;
            let mut s = Vec::new();
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut s)
                .unwrap();
            bytes = s;
        }
        assert!(!bytes.is_empty(), "{name} written");
        assert_clean(&format!("written file {name}"), &bytes);
    }
}

#[test]
fn redacted_har_keeps_structure_and_non_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let har = write(tmp.path(), "canary.har", har_with_canaries().as_bytes());
    let out = tmp.path().join("clean.har");
    toomany()
        .args(["redact", &har, "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let e = &v["log"]["entries"][0];
    assert_eq!(
        e["_initiator"]["type"], "script",
        "exporter _fields are kept"
    );
    assert_eq!(e["response"]["status"], 429);
    assert!(e["request"]["url"].as_str().unwrap().contains("page=2"));
    assert_eq!(e["request"]["headers"].as_array().unwrap().len(), 17);
    assert!(e["request"]["headers"][0]["value"]
        .as_str()
        .unwrap()
        .starts_with("Bearer <redacted:"));
    // The analysis of the redacted copy sees the same 429.
    let a = toomany()
        .args(["analyze", out.to_str().unwrap(), "--format", "json"])
        .assert()
        .success();
    let rep = json_of(&a.get_output().stdout);
    assert_eq!(rep["rate_limited"][0]["retry_after"]["raw"], "12");
}

/// Access logs (issue 10): canaries in logged URLs (query keys, userinfo, a JWT in the path, an
/// OAuth code in a logged Referer) and in logged secret header fields (`$http_x_api_key`,
/// `$http_authorization`, cookies, Kong's `request.headers`, Cloudflare's custom header
/// fields), in every access-log family, through every output; a bad line holding a canary is
/// a warning that does not echo it.
#[test]
fn no_canary_survives_in_access_logs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let nginx_format = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time us=$upstream_status key="$http_x_api_key" auth="$http_authorization" ck="$http_cookie" sc="$upstream_http_set_cookie" tok="$http_x_auth_token" note="$http_x_note""#;
    let nginx = format!(
        concat!(
            r#"10.0.0.1 - {u} [01/Mar/2024:10:00:00 +0000] "GET /v1/{jwt}/x?api_key={a}&page=2&access_token={b} HTTP/1.1" 429 0 "https://app.example.com/cb?code={c}" "curl/8" rt=0.001 us=- key="{k}" auth="Bearer {au}" ck="sid={ck}; theme=dark" sc="session={sc}; Path=/" tok="{t}" note="bearer {n}""#,
            "\n",
            r#"10.0.0.2 - - [01/Mar/2024:10:00:01 +0000] "GET /v1/x?client_secret={cs} HTTP/1.1" 429 0 "-" "curl/8" rt=0.010 us=429 key="{k}" auth="-" ck="-" sc="-" tok="-" note="-""#,
            "\n",
            "this line does not match, secret={bad}\n"
        ),
        u = c(600),
        jwt = JWT,
        a = c(601),
        b = c(602),
        c = c(603),
        k = c(604),
        au = c(605),
        ck = c(606),
        sc = c(607),
        t = c(608),
        n = c(609),
        cs = c(610),
        bad = c(611),
    );
    let kong = format!(
        r#"{{"request":{{"id":"r1","method":"GET","url":"https://api.example.com/v1/x?api_key={a}","uri":"/v1/x?api_key={a}","headers":{{"apikey":"{k}","authorization":"Bearer {au}","user-agent":"svc/1"}},"querystring":{{"api_key":"{a}"}}}},"response":{{"status":429,"headers":{{"retry-after":"5","set-cookie":"sid={sc}"}}}},"consumer":{{"id":"4e8f1c2a","username":"billing-sync"}},"latencies":{{"request":3,"kong":1,"proxy":-1}},"started_at":1709287200000,"client_ip":"10.0.0.3","source":"kong","upstream_uri":"/"}}"#,
        a = c(620),
        k = c(621),
        au = c(622),
        sc = c(623),
    ) + "\n";
    let cloudflare = format!(
        r#"{{"ClientIP":"10.0.0.4","ClientRequestHost":"api.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/v1/x?token={t}&sig={s}","ClientRequestUserAgent":"svc/2","EdgeStartTimestamp":"2024-03-01T10:00:00Z","EdgeEndTimestamp":"2024-03-01T10:00:01Z","EdgeResponseStatus":429,"OriginResponseStatus":0,"SecuritySources":["rateLimit"],"RayID":"8a1b2c3d4e5f6a7b","RequestHeaders":{{"authorization":"Bearer {au}","x-api-key":"{k}"}},"ResponseHeaders":{{"set-cookie":"__cf={sc}"}}}}"#,
        t = c(630),
        s = c(631),
        au = c(632),
        k = c(633),
        sc = c(634),
    ) + "\n";
    let alb = format!(
        r#"https 2024-03-01T10:00:00.186641Z app/lb/50dc 10.0.0.5:2817 - 0.000 -1 -1 429 - 34 366 "GET https://user:{p}@api.example.com:443/v1/x?key={k}&password={pw} HTTP/1.1" "svc/3" - - arn:aws:elasticloadbalancing:us-east-2:1:targetgroup/t/73 "Root=1-5833-36d2" "-" "-" 0 2024-03-01T10:00:00.100000Z "waf" "-" "-""#,
        p = c(640),
        k = c(641),
        pw = c(642),
    ) + "\n";
    let istio = format!(
        r#"[2024-03-01T10:00:00.000Z] "GET /v1/x?access_token={t} HTTP/1.1" 429 RL local_rate_limited - "-" 0 0 0 - "10.0.0.6" "svc/4" "467a7648-b9ef-4e9b-b75b-f9f500a88589" "api.example.com" "-" inbound|80|| - 10.0.196.75:80 10.0.0.6:0 outbound_.80_._.api.default.svc.cluster.local default"#,
        t = c(650)
    ) + "\n";
    let haproxy = format!(
        r#"Mar  1 10:00:00 lb haproxy[1]: 10.0.0.7:33317 [01/Mar/2024:10:00:00.655] http-in http-in/<NOSRV> 0/-1/-1/-1/0 429 49 - - PR-- 1/1/0/0/0 0/0 "GET /login?password={p}&user=bob HTTP/1.1""#,
        p = c(660)
    ) + "\n";
    let cloudfront = format!(
        "#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken\n2024-03-01\t10:00:00\tLAX1\t392\t10.0.0.8\tGET\td1.cloudfront.net\t/v1/x\t429\t-\tsvc/5\tsignature={s}&api_key={k}\tsession={ck}\tError\tabc==\tapi.example.com\thttps\t23\t0.001\n",
        s = c(670),
        k = c(671),
        ck = c(672),
    );
    let files = [
        write(d, "canary-nginx.log", nginx.as_bytes()),
        write(d, "canary-kong.log", kong.as_bytes()),
        write(d, "canary-cloudflare.log", cloudflare.as_bytes()),
        write(d, "canary-alb.log", alb.as_bytes()),
        write(d, "canary-istio.log", istio.as_bytes()),
        write(d, "canary-haproxy.log", haproxy.as_bytes()),
        write(d, "canary-cloudfront.log", cloudfront.as_bytes()),
    ];
    for f in &files {
        assert!(std::fs::read_to_string(f).unwrap().contains("CANARY6"));
    }
    // Every file read, each as its own format (the test can fail: nothing silently skipped).
    let out = toomany()
        .args(["analyze", "--format", "json", "--log-format", nginx_format])
        .args(&files)
        .current_dir(d)
        .output()
        .unwrap();
    let rep = json_of(&out.stdout);
    let formats: Vec<&str> = rep["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["format"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        formats,
        [
            "nginx",
            "kong",
            "cloudflare",
            "alb",
            "envoy",
            "haproxy",
            "cloudfront"
        ]
    );
    assert_eq!(rep["summary"]["rate_limited"], 8);
    assert_eq!(rep["inputs"][0]["skipped"], 1, "the bad line is a warning");
    for fmt in ["table", "json", "markdown"] {
        let mut args = vec![
            "analyze",
            "--format",
            fmt,
            "--all",
            "--log-format",
            nginx_format,
        ];
        args.extend(files.iter().map(String::as_str));
        run_and_check(&format!("access logs --format {fmt}"), &args, d);
    }
    let mut args = vec![
        "analyze",
        "--log-format",
        nginx_format,
        "-o",
        "access-report.json",
        "--limit",
        "60/min",
        "--emit-config",
        "cfg-access",
    ];
    args.extend(files.iter().map(String::as_str));
    run_and_check("access logs -o + --emit-config", &args, d);
    for f in &files {
        run_and_check(&format!("redact {f}"), &["redact", f, "-o", "-"], d);
    }
    let report = std::fs::read(d.join("access-report.json")).unwrap();
    assert!(!report.is_empty());
    assert_clean("access-report.json", &report);
    let mut dirs = vec![d.join("cfg-access")];
    let mut written = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                written += 1;
                assert_clean(&p.display().to_string(), &std::fs::read(&p).unwrap());
            }
        }
    }
    assert!(written > 0, "--emit-config wrote files");
}

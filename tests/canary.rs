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
    for secret in UNMARKED_SECRETS {
        assert!(!s.contains(secret), "{what} leaks {secret}");
    }
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
    // Every run here is a valid command line: a usage error would check nothing.
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Usage:"),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `verify` of `input` against `plan` and `simulate` of `plan`, each in table and JSON.
fn verify_and_simulate(d: &Path, input: &str, plan: &str) {
    for fmt in ["table", "json"] {
        run_and_check(
            &format!("verify {input} --plan {plan} --format {fmt}"),
            &["verify", input, "--plan", plan, "--format", fmt],
            d,
        );
        run_and_check(
            &format!("simulate --policy {plan} --format {fmt}"),
            &[
                "simulate",
                "--policy",
                plan,
                "--limit",
                "fixed-window:120/min",
                "--requests",
                "50",
                "--format",
                fmt,
            ],
            d,
        );
    }
}

/// Run every subcommand and output format over `inputs` (files in `d`) and check stdout, stderr
/// and every file written under `d` for canaries.
fn run_everything(d: &Path, inputs: &[String]) {
    for input in inputs {
        let tag = Path::new(input)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('.', "-");
        for fmt in ["table", "json", "markdown", "html", "csv", "ndjson"] {
            run_and_check(
                &format!("analyze {input} --format {fmt}"),
                &["analyze", input, "--format", fmt, "--all"],
                d,
            );
        }
        for out in ["report.json", "report.txt", "report.md", "report.html"] {
            run_and_check(
                &format!("analyze {input} -o {out}"),
                &["analyze", input, "-o", &format!("{tag}-{out}")],
                d,
            );
        }
        for out in ["red.out", "red.out.gz"] {
            let out = format!("{tag}-{out}");
            let _ = std::fs::remove_file(d.join(&out));
            run_and_check(
                &format!("redact {input} -o {out}"),
                &["redact", input, "-o", &out],
                d,
            );
        }
        run_and_check("redact to stdout", &["redact", input, "-o", "-"], d);
        run_and_check(
            "analyze --emit-config",
            &[
                "analyze",
                input,
                "--limit",
                "120/min",
                "--emit-config",
                &format!("cfg-{tag}"),
            ],
            d,
        );
        for fmt in ["table", "json"] {
            run_and_check(
                &format!("check {input} --format {fmt}"),
                &["check", input, "--format", fmt],
                d,
            );
        }
        // The plan just written from this input (when it had 429s to plan from).
        let plan = format!("cfg-{tag}/toomany.toml");
        if d.join(&plan).is_file() {
            verify_and_simulate(d, input, &plan);
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
    assert!(
        d.join("cfg-plan/toomany.toml").is_file(),
        "plan wrote its policy"
    );
    for input in inputs {
        verify_and_simulate(d, input, "cfg-plan/toomany.toml");
    }
    // Every file written anywhere under the directory (at any depth), decompressed when gzipped.
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                let before = files.len();
                walk(&p, files);
                assert!(
                    files.len() > before,
                    "{} has the emitted configs",
                    p.display()
                );
            } else {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(d, &mut files);
    for p in files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("canary") || name.starts_with("hardening.") {
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
    run_everything(d, &[har, jsonl]);
}

/// The hardening canaries (issue 8) through every subcommand and format.
#[test]
fn no_hardening_canary_survives_any_subcommand_or_format() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let har = write(d, "hardening.har", hardening_har().as_bytes());
    let jsonl = write(d, "hardening.jsonl", hardening_jsonl().as_bytes());
    let text = std::fs::read_to_string(&har).unwrap();
    assert!(text.contains("CANARY300x") && text.contains(UNMARKED_SECRETS[0]));
    serde_json::from_str::<serde_json::Value>(&text).expect("hardening HAR is valid JSON");
    run_everything(d, &[har, jsonl]);
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
    // Each log's requests go to a path of its own: logs of different formats holding the same
    // host, method, path and status in one second are one request seen at two layers (joined
    // and counted once), and every record here must be reported.
    let own = |name: &str, log: &str| {
        let log = log.replace("/v1/x", &format!("/v1/{name}"));
        write(d, &format!("canary-{name}.log"), log.as_bytes())
    };
    let files = [
        own("nginx", &nginx),
        own("kong", &kong),
        own("cloudflare", &cloudflare),
        own("alb", &alb),
        own("istio", &istio),
        own("haproxy", &haproxy),
        own("cloudfront", &cloudfront),
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

// ---------------------------------------------------------------------------------------------
// Hardening canaries (issue 8): places and shapes the first policy missed. Each is planted once
// in `hardening_har()` or `hardening_jsonl()`; the targeted tests below name which leaked.
// ---------------------------------------------------------------------------------------------

/// Secrets whose shape cannot hold the word CANARY (hex-only, digits-only): checked literally.
const UNMARKED_SECRETS: &[&str] = &[
    "302302302",
    "deadbeefcafef00ddeadbeefcafef00ddeadbeefcafef00ddeadbeefcafef00d",
];

fn pad(prefix: &str, n: usize) -> String {
    let fill = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ";
    let mut s = prefix.to_string();
    let mut i = 0;
    while s.len() < n {
        s.push(fill.as_bytes()[i % fill.len()] as char);
        i += 1;
    }
    s
}

/// Vendor key shapes, each with a canary inside (lengths as the vendors document them).
fn key_shapes() -> Vec<(u32, String)> {
    let shapes = vec![
        (352, format!("glpat-{}", pad("CANARY352x", 20))),
        (353, format!("npm_{}", pad("CANARY353x", 36))),
        (
            354,
            "xapp-1-A0CANARY354-1234567890-abcdef0123456789".to_string(),
        ),
        (355, "ASIACANARY355XABCDEF".to_string()),
        (356, format!("whsec_{}", pad("CANARY356x", 32))),
        (357, format!("hf_{}", pad("CANARY357x", 34))),
        (
            358,
            format!("SG.{}.{}", pad("CANARY358x", 22), pad("CANARY358y", 43)),
        ),
        (359, format!("shpat_{}", pad("CANARY359x", 32))),
        (360, format!("ya29.{}", pad("CANARY360x", 60))),
        (361, format!("dop_v1_{}", UNMARKED_SECRETS[1])),
        (
            362,
            format!("pypi-AgEIcHlwaS5vcmc{}", pad("CANARY362x", 80)),
        ),
    ];
    assert_eq!(shapes[3].1.len(), 20, "ASIA key ids are 20 characters");
    assert_eq!(shapes[6].1.len(), 69, "SendGrid keys are 69 characters");
    assert_eq!(shapes[7].1.len(), 38, "Shopify tokens are 38 characters");
    assert_eq!(
        shapes[9].1.len(),
        71,
        "DigitalOcean tokens: dop_v1_ + 64 hex"
    );
    shapes
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn entry(
    status: u16,
    second: u32,
    request: serde_json::Value,
    content: serde_json::Value,
) -> serde_json::Value {
    let mut request = request;
    let r = request.as_object_mut().unwrap();
    r.entry("method").or_insert("GET".into());
    r.entry("httpVersion").or_insert("h2".into());
    r.entry("headers").or_insert(serde_json::json!([]));
    r.entry("cookies").or_insert(serde_json::json!([]));
    r.entry("queryString").or_insert(serde_json::json!([]));
    r.entry("headersSize").or_insert((-1).into());
    r.entry("bodySize").or_insert((-1).into());
    serde_json::json!({
        "startedDateTime": format!("2026-01-01T00:00:{second:02}.000Z"),
        "time": 12.5,
        "request": request,
        "response": {
            "status": status, "statusText": "", "httpVersion": "h2",
            "headers": [{"name": "Retry-After", "value": "5"}], "cookies": [],
            "content": content, "redirectURL": "", "headersSize": -1, "bodySize": -1
        },
        "cache": {},
        "timings": {"send": 0.25, "wait": 10.125, "receive": 2.125}
    })
}

fn hardening_har() -> String {
    use serde_json::json;
    let long_name = format!("{}_access_token", "x".repeat(70));
    let shapes: Vec<String> = key_shapes().into_iter().map(|(_, s)| s).collect();
    let multipart = "--XyZ\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\nCANARY310x\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nCANARY311x\r\n--XyZ\r\nContent-Disposition: form-data; name=\"comment\"\r\n\r\nhello\r\n--XyZ--\r\n";
    // A MIME-wrapped (76 columns) base64 body.
    let wrapped: String = {
        let raw = b64(format!(
            "{{\"note\":\"{}\",\"access_token\":\"CANARY312x\"}}",
            "n".repeat(80)
        )
        .as_bytes());
        raw.as_bytes()
            .chunks(76)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n")
    };
    let unpadded = b64(b"{\"session\":\"CANARY313xy\"}")
        .trim_end_matches('=')
        .to_string();
    let mut binary = vec![0xff, 0xfe, 0x00, 0x01];
    binary.extend_from_slice(b"Authorization: Bearer CANARY314x\n");
    binary.extend_from_slice(&[0x80, 0x81, 0xc3, 0x28]);
    let html = "<html><head><meta name=\"csrf-token\" content=\"CANARY371x\"></head><body><form><input type=\"hidden\" name=\"__VIEWSTATE\" value=\"CANARY370x\"><input name=\"q\" value=\"shoes\"></form></body></html>";
    let sts = "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAQ7EXAMPLEKEYID7Z</AccessKeyId><SecretAccessKey>CANARY372x/wJalrXUtnFEMI</SecretAccessKey><SessionToken>CANARY373xFwoGZXIvYXdzE</SessionToken><Expiration>2026-01-01T01:00:00Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>";
    let js = "var cfg = {apiKey: 'CANARY374x', region: 'eu'};";
    let yaml = "service: shop\napi_key: CANARY375x\nretries: 3\n";
    let double_encoded = "\"{\\\"password\\\":\\\"CANARY376x\\\",\\\"user\\\":\\\"bob\\\"}\"";
    let graphql = "{\"query\":\"mutation { login(email: \\\"a@b.c\\\", password: \\\"CANARY377x\\\") { token } }\"}";
    let entries = vec![
        entry(
            429,
            0,
            json!({
                "method": "POST",
                "url": format!("https://api.example.com/v1/search?q=Bearer%20CANARY332x&%2573ignature=CANARY333x&{long_name}=CANARY334x&hmac=CANARY344x&api_sig=CANARY345x&passphrase=CANARY346x&_csrf=CANARY347x&pw=CANARY348x&page=2"),
                "headers": [
                    {"name": "X-Api-Key", "value": ["CANARY300x"]},
                    {"name": "Authorization", "value": {"v": "CANARY301x"}},
                    {"name": "X-Auth-Token", "value": 302302302},
                    {"name": "User-Agent", "value": "MyApp/1.0 key=CANARY331x"},
                    {"name": "X-Honeycomb-Team", "value": "CANARY340x"},
                    {"name": "X-JFrog-Art-Api", "value": "CANARY341x"},
                    {"name": "Sec-WebSocket-Protocol", "value": "graphql-ws, base64url.bearer.authorization.k8s.io.CANARY342x"},
                    {"name": "Sec-WebSocket-Protocol", "value": "wamp.2.json, CANARY343xAbCdEf0123456789AbCdEf0123"},
                    {"name": "X-Debug-Note", "value": shapes.join(" ")},
                ],
                "cookies": [{"value": "CANARY305x"}],
                "postData": {"mimeType": "multipart/form-data; boundary=XyZ", "text": multipart},
                "comment": "replay with api_key=CANARY330x",
            }),
            json!({"size": 10, "mimeType": "text/plain", "text": "slow down"}),
        ),
        entry(
            200,
            1,
            json!({"url": "https://api.example.com/token"}),
            json!({"size": 100, "mimeType": "application/json", "encoding": "base64", "text": wrapped}),
        ),
        entry(
            200,
            2,
            json!({"url": "https://api.example.com/session"}),
            json!({"size": 24, "mimeType": "application/json", "encoding": "base64", "text": unpadded}),
        ),
        entry(
            429,
            3,
            json!({"url": "https://api.example.com/blob"}),
            json!({"size": 40, "mimeType": "application/octet-stream", "encoding": "base64", "text": b64(&binary)}),
        ),
        entry(
            200,
            4,
            json!({"url": "https://shop.example.com/login"}),
            json!({"size": 200, "mimeType": "text/html", "text": html}),
        ),
        entry(
            429,
            5,
            json!({"method": "POST", "url": "https://sts.amazonaws.com/"}),
            json!({"size": 300, "mimeType": "text/xml", "text": sts}),
        ),
        entry(
            200,
            6,
            json!({"url": "https://cdn.example.com/app.js"}),
            json!({"size": 50, "mimeType": "application/javascript", "text": js}),
        ),
        entry(
            200,
            7,
            json!({"url": "https://cdn.example.com/config.yaml"}),
            json!({"size": 50, "mimeType": "application/yaml", "text": yaml}),
        ),
        entry(
            200,
            8,
            json!({"method": "POST", "url": "https://api.example.com/echo",
                "postData": {"mimeType": "application/json", "text": double_encoded}}),
            json!({"size": 0, "mimeType": "application/json", "text": "{\"password\": [\"CANARY309x\"]}"}),
        ),
        entry(
            200,
            9,
            json!({"method": "POST", "url": "https://api.example.com/graphql",
                "postData": {"mimeType": "application/json", "text": graphql}}),
            json!({"size": 0, "mimeType": "application/json"}),
        ),
        entry(
            429,
            10,
            json!({"method": "POST", "url": "https://hooks.slack.com/services/T0CANARY349/B0CANARY349/CANARY349xAbCdEfGhIjKl"}),
            json!({"size": 0, "mimeType": "text/plain"}),
        ),
        entry(
            429,
            11,
            json!({"method": "POST", "url": "https://discord.com/api/webhooks/123456789012345678/CANARY350x-AbCdEfGhIjKlMnOp"}),
            json!({"size": 0, "mimeType": "text/plain"}),
        ),
        entry(
            429,
            12,
            json!({"method": "POST", "url": "https://api.telegram.org/bot123456789:CANARY351xAbCdEfGhIjKlMnOpQrStUvWxY/sendMessage"}),
            json!({"size": 0, "mimeType": "text/plain"}),
        ),
    ];
    let mut entries = entries;
    {
        let e = entries[0].as_object_mut().unwrap();
        e.insert(
            "_auth".into(),
            json!({"client_secret": ["CANARY306x"], "password": {"v": "CANARY308x"}}),
        );
        let resp = e["response"].as_object_mut().unwrap();
        resp["headers"].as_array_mut().unwrap().push(
            json!({"name": "Set-Cookie", "value": "a=CANARY303x; Path=/\nb=CANARY304x; Path=/"}),
        );
    }
    serde_json::to_string_pretty(&json!({"log": {"version": "1.2", "creator": {"name": "hardening", "version": "1"}, "entries": entries}})).unwrap()
}

fn hardening_jsonl() -> String {
    use serde_json::json;
    let shapes: Vec<String> = key_shapes().into_iter().map(|(_, s)| s).collect();
    let lines = [
        json!({"time": "2026-01-01T00:00:00Z", "method": "GET", "url": "https://api.example.com/x", "status": 429,
            "request_headers": [["Authorization", "Bearer CANARY315x"], ["X-Api-Key", "CANARY316x"]],
            "client_secret": ["CANARY306x"], "credentials": {"user": "bob", "pw_hint": "CANARY307x"},
            "note": "replay with api_key=CANARY330x"})
        .to_string(),
        json!({"time": "2026-01-01T00:00:01Z", "method": "GET", "url": "https://api.example.com/y", "status": 429,
            "rawHeaders": ["X-Api-Key", "CANARY317x", "Cookie", "sid=CANARY318x"], "message": shapes.join(" ")})
        .to_string(),
        "Cookie: sid=CANARY319x".to_string(),
        "X-Api-Key: CANARY320x".to_string(),
        "password: CANARY321x".to_string(),
    ];
    lines.join("\n") + "\n"
}

/// Run `redact` on a file and return what it wrote (stdout), asserting success.
fn redact_stdout(d: &Path, name: &str, content: &str, extra: &[&str]) -> String {
    let p = write(d, name, content.as_bytes());
    let mut args = vec!["redact", p.as_str(), "-o", "-"];
    args.extend_from_slice(extra);
    let out = toomany().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "redact {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Which of the canaries `ids` appear in `text` (CANARYnnnx or the given literal).
fn leaked(text: &str, ids: &[u32]) -> Vec<u32> {
    ids.iter()
        .copied()
        .filter(|n| text.contains(&format!("CANARY{n:03}")))
        .collect()
}

/// Every base64 body (`"encoding": "base64"`) in a JSON document or JSON lines, decoded leniently
/// (whitespace dropped, padding optional), so a canary hidden by the encoding is still seen.
fn decoded_bodies(text: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if m.get("encoding").and_then(|e| e.as_str()) == Some("base64") {
                    if let Some(t) = m.get("text").and_then(|t| t.as_str()) {
                        use base64::Engine;
                        let clean: String = t
                            .chars()
                            .filter(|c| !c.is_whitespace() && *c != '=')
                            .collect();
                        if let Ok(b) =
                            base64::engine::general_purpose::STANDARD_NO_PAD.decode(&clean)
                        {
                            out.push(String::from_utf8_lossy(&b).into_owned());
                        }
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => walk(&v, &mut out),
        Err(_) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .for_each(|v| walk(&v, &mut out)),
    }
    out
}

/// Which of the canaries `ids` appear in `text` or in its decoded base64 bodies.
fn leaked_anywhere(text: &str, ids: &[u32]) -> Vec<u32> {
    let bodies = decoded_bodies(text).join("\n");
    let mut all = leaked(text, ids);
    all.extend(leaked(&bodies, ids));
    all.sort_unstable();
    all.dedup();
    all
}

#[test]
fn redact_closes_header_cookie_and_body_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let out = redact_stdout(tmp.path(), "h.har", &hardening_har(), &[]);
    // The planted base64 bodies really hide canaries (the check can fail).
    let planted = leaked_anywhere(&hardening_har(), &[312, 313, 314]);
    assert_eq!(
        planted,
        vec![312, 313, 314],
        "fixture plants the base64 canaries"
    );
    let ids = [
        300, 301, 303, 304, 305, 306, 308, 309, 310, 311, 312, 313, 314, 376, 377,
    ];
    let mut problems = Vec::new();
    let l = leaked_anywhere(&out, &ids);
    if !l.is_empty() {
        problems.push(format!("HAR leaks {l:?}"));
    }
    if out.contains("302302302") {
        problems.push("HAR leaks the numeric header value 302".into());
    }
    // Base64 bodies that had a secret are still valid base64 of text without it, or dropped.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    use base64::Engine;
    for i in [1, 2] {
        let t = v["log"]["entries"][i]["response"]["content"]["text"]
            .as_str()
            .unwrap_or("");
        let clean: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        match base64::engine::general_purpose::STANDARD.decode(&clean) {
            Ok(dec) if String::from_utf8_lossy(&dec).contains("<redacted:") => {}
            _ => problems.push(format!(
                "entry {i}: base64 body not re-encoded redacted text"
            )),
        }
    }
    let jl = redact_stdout(tmp.path(), "h.jsonl", &hardening_jsonl(), &[]);
    let l = leaked_anywhere(&jl, &[306, 307, 315, 316, 317, 318, 319, 320, 321]);
    if !l.is_empty() {
        problems.push(format!("JSON lines leak {l:?}"));
    }
    if jl.lines().count() != 5 {
        problems.push("JSON lines: not every line kept".into());
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn redact_closes_free_text_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let out = redact_stdout(tmp.path(), "h.har", &hardening_har(), &[]);
    let jl = redact_stdout(tmp.path(), "h.jsonl", &hardening_jsonl(), &[]);
    let l = (
        leaked(&out, &[330, 331, 332, 333, 334]),
        leaked(&jl, &[330]),
    );
    assert_eq!(l, (vec![], vec![]), "leaked canaries (HAR, JSON lines)");
}

#[test]
fn redact_covers_new_headers_params_paths_shapes_and_bodies() {
    let tmp = tempfile::tempdir().unwrap();
    let out = redact_stdout(tmp.path(), "h.har", &hardening_har(), &[]);
    let mut ids: Vec<u32> = (340..=351).collect();
    ids.extend(key_shapes().iter().map(|(n, _)| *n));
    ids.extend(370..=375);
    let mut problems = Vec::new();
    let l = leaked_anywhere(&out, &ids);
    if !l.is_empty() {
        problems.push(format!("HAR leaks {l:?}"));
    }
    if out.contains(UNMARKED_SECRETS[1]) {
        problems.push("HAR leaks the dop_v1_ token".into());
    }
    let jl = redact_stdout(tmp.path(), "h.jsonl", &hardening_jsonl(), &[]);
    let shape_ids: Vec<u32> = key_shapes().iter().map(|(n, _)| *n).collect();
    let l = leaked(&jl, &shape_ids);
    if !l.is_empty() {
        problems.push(format!("JSON lines leak {l:?}"));
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // What identifies a request but is no secret stays readable.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let discord = v["log"]["entries"][11]["request"]["url"].as_str().unwrap();
    assert!(
        discord.contains("/api/webhooks/123456789012345678/"),
        "{discord}"
    );
    let proto = &v["log"]["entries"][0]["request"]["headers"][6]["value"];
    assert!(
        proto
            .as_str()
            .unwrap()
            .starts_with("graphql-ws, base64url.bearer.authorization.k8s.io."),
        "{proto}"
    );
}

/// A forced or wrong input format never yields an unsanitized "sanitized" copy.
#[test]
fn redact_never_passes_a_har_through_as_text() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let har = write(d, "capture.har", har_with_canaries().as_bytes());
    for fmt in ["jsonl", "har"] {
        let out = toomany()
            .args(["redact", &har, "--input-format", fmt, "-o", "-"])
            .output()
            .unwrap();
        assert_clean(&format!("redact --input-format {fmt} stdout"), &out.stdout);
        assert_clean(&format!("redact --input-format {fmt} stderr"), &out.stderr);
    }
    // A JSON-lines file forced as HAR is refused (not written as a broken HAR).
    let jl = write(d, "log.jsonl", jsonl_with_canaries().as_bytes());
    let out = toomany()
        .args(["redact", &jl, "--input-format", "har", "-o", "-"])
        .output()
        .unwrap();
    assert_clean("redact jsonl as har", &out.stdout);
    assert_clean("redact jsonl as har stderr", &out.stderr);
    // The pretty-printed HAR forced as JSON lines is refused outright.
    let out = toomany()
        .args(["redact", &har, "--input-format", "jsonl", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "refused");
    assert!(out.stdout.is_empty(), "nothing written");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HAR"), "{err}");
}

/// Over-redaction that corrupts content: values with a secret-looking name that are no secret.
#[test]
fn redaction_keeps_what_is_not_secret() {
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    let js = "!function(e,b){var t=1;e.keyCode2==b.which&&t()}";
    let body = "{\"keys_url\": \"https://api.github.com/repos/o/r/keys{/key_id}\", \"token_type\": \"Bearer\", \"max_tokens\": 1024, \"author\": \"bob\"}";
    let har = json!({"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [
        entry(200, 0, json!({"url": "https://api.example.com/", "headers": [
            {"name": "Sec-WebSocket-Key", "value": "dGhlIHNhbXBsZSBub25jZQ=="},
            {"name": "X-Goog-AuthUser", "value": "0"},
        ]}), json!({"size": 10, "mimeType": "application/javascript", "text": js})),
        entry(200, 1, json!({"url": "https://api.example.com/x"}),
            json!({"size": 10, "mimeType": "application/json", "text": body})),
    ]}});
    let mut har = har;
    har["log"]["entries"][0]["response"]["headers"] = json!([
        {"name": "Access-Control-Allow-Credentials", "value": "true"},
        {"name": "Public-Key-Pins", "value": "pin-sha256=\"cUPcTAZWKaASuYWhhneDttWpY3oBAkE3h2+soZS7sWs=\"; max-age=5184000"},
        {"name": "Sec-WebSocket-Accept", "value": "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="},
    ]);
    let out = redact_stdout(tmp.path(), "ok.har", &har.to_string(), &[]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["log"]["entries"][0]["request"]["headers"],
        har["log"]["entries"][0]["request"]["headers"]
    );
    assert_eq!(
        v["log"]["entries"][0]["response"]["headers"],
        har["log"]["entries"][0]["response"]["headers"]
    );
    assert_eq!(v["log"]["entries"][0]["response"]["content"]["text"], js);
    assert_eq!(v["log"]["entries"][1]["response"]["content"]["text"], body);
}

/// The HTML and Markdown reports (issue 13) and the CSV/NDJSON exports (issue 14), to stdout and
/// to files, leak nothing either. (Added by the report helper in its own function, to stay clear
/// of the one above.)
#[test]
fn no_canary_survives_the_html_or_markdown_report() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let har = write(d, "canary.har", har_with_canaries().as_bytes());
    let jsonl = write(d, "canary.jsonl", jsonl_with_canaries().as_bytes());
    for input in [&har, &jsonl] {
        for fmt in ["html", "markdown", "csv", "ndjson"] {
            run_and_check(
                &format!("analyze {input} --format {fmt}"),
                &["analyze", input, "--format", fmt, "--all"],
                d,
            );
        }
        let page = d.join("report.html");
        let _ = std::fs::remove_file(&page);
        run_and_check(
            "analyze -o report.html",
            &["analyze", input, "-o", "report.html"],
            d,
        );
        let html = std::fs::read(&page).expect("-o report.html written");
        assert!(html.starts_with(b"<!DOCTYPE html>"), "-o .html writes HTML");
        assert_clean("written report.html", &html);
    }
    for fmt in ["table", "json", "markdown"] {
        run_and_check(
            &format!("compare --format {fmt}"),
            &["compare", &har, "--against", &jsonl, "--format", fmt],
            d,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Every input string that reaches an output passes the redactor (issue 8): values quoted in
// warnings and errors, and fields `analyze` reports as they were read.
// ---------------------------------------------------------------------------------------------

/// A HAR whose odd fields (not headers, URLs or bodies) hold secret-shaped values: a non-date
/// `startedDateTime` (pages too), a bad `log.version`, `log.creator`, `pageref` and `method`.
fn odd_fields_har() -> String {
    let e = |started: &str, method: &str| {
        serde_json::json!({
            "startedDateTime": started, "pageref": "token=CANARY405x", "time": 1,
            "request": {"method": method, "url": "https://api.example.com/x", "httpVersion": "h2",
                "headers": [], "cookies": [], "queryString": [], "headersSize": -1, "bodySize": -1},
            "response": {"status": 429, "statusText": "", "httpVersion": "h2", "headers": [],
                "cookies": [], "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "",
                "headersSize": -1, "bodySize": -1},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    serde_json::json!({"log": {
        "version": "Bearer CANARY401x",
        "creator": {"name": "Bearer CANARY402x", "version": "api_key=CANARY403x"},
        "pages": [{"startedDateTime": "Bearer CANARY404x", "id": "token=CANARY405x", "title": "t", "pageTimings": {}}],
        "entries": [
            e("Bearer CANARY406x", "ghp_CANARY407xAbCdEfGhIjKlMnOpQrStUv"),
            e("2026-01-01T00:00:01Z", "get"),
            e("2026-01-01T00:00:02Z", "Bearer CANARY408x"),
        ]
    }})
    .to_string()
}

/// JSON lines whose `method`, `client` and `client_ip` hold secret-shaped values.
fn odd_fields_jsonl() -> String {
    [
        serde_json::json!({"time": "2026-01-01T00:00:00Z", "method": "ghp_CANARY410xAbCdEfGhIjKlMnOpQrStUv",
            "url": "https://api.example.com/x", "status": 429, "client": "Bearer CANARY411x",
            "client_ip": "token=CANARY412x"}),
        serde_json::json!({"time": "2026-01-01T00:00:01Z", "method": "get", "url": "https://api.example.com/x",
            "status": 429, "client": "api_key=CANARY413x", "client_ip": "10.0.0.1"}),
        serde_json::json!({"time": "not a time Bearer CANARY414x", "method": "get",
            "url": "https://api.example.com/x", "status": 429}),
    ]
    .map(|v| v.to_string())
    .join("\n")
        + "\n"
}

#[test]
fn no_field_value_reaches_a_message_or_report_unredacted() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let har = write(d, "canary-odd.har", odd_fields_har().as_bytes());
    let jsonl = write(d, "canary-odd.jsonl", odd_fields_jsonl().as_bytes());
    // A file whose first line (quoted by format detection once) is a credential.
    let text = write(
        d,
        "canary-first-line.txt",
        b"Authorization: Bearer CANARY420x and nothing any reader knows\n",
    );
    // The values really reach the outputs today's policy would print (the test can fail):
    // the warnings name the fields.
    let out = toomany()
        .args(["analyze", &har, "--format", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("startedDateTime") && err.contains("log.version"),
        "{err}"
    );
    run_everything(d, &[har, jsonl]);
    for args in [
        vec!["analyze", text.as_str()],
        vec!["check", text.as_str()],
        vec!["redact", text.as_str(), "-o", "-"],
        vec![
            "redact",
            text.as_str(),
            "--input-format",
            "jsonl",
            "-o",
            "-",
        ],
    ] {
        run_and_check(&args.join(" "), &args, d);
    }
}

// ---------------------------------------------------------------------------------------------
// Properties of `redact` over every real file: idempotent; entry count, statuses, member names
// and their order, header names and every number exactly as read.
// ---------------------------------------------------------------------------------------------

/// Every HAR the repository has: samples, the real-exporter corpus, the canary files.
fn every_har(d: &Path) -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<String> = Vec::new();
    for dir in [
        format!("{root}/samples"),
        format!("{root}/tests/corpus/real-har"),
    ] {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".har") && !name.starts_with("malformed") {
                files.push(p.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files.push(write(d, "canary.har", har_with_canaries().as_bytes()));
    files.push(write(d, "hardening.har", hardening_har().as_bytes()));
    files.push(write(d, "canary-odd.har", odd_fields_har().as_bytes()));
    files
}

/// `a` (input) and `b` (its redacted copy) have the same shape: same members in the same
/// order, same array lengths, every number as written, header names kept. A number may only
/// have become a redaction token (a number under a secret name).
fn same_shape(a: &toomany::redact::tree::Node, b: &toomany::redact::tree::Node, at: &str) {
    use toomany::redact::tree::Node;
    match (a, b) {
        (Node::Num(x), Node::Num(y)) => assert_eq!(x, y, "number at {at}"),
        (Node::Num(_), Node::Str(s)) => {
            assert!(
                s.as_str().starts_with("<redacted:"),
                "number at {at} became {}",
                s.as_str()
            )
        }
        (Node::Arr(x), Node::Arr(y)) => {
            assert_eq!(x.len(), y.len(), "array length at {at}");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                same_shape(x, y, &format!("{at}[{i}]"));
            }
        }
        (Node::Obj(x), Node::Obj(y)) => {
            let kx: Vec<&str> = x.iter().map(|(k, _)| k.as_str()).collect();
            let mut ky: Vec<&str> = y.iter().map(|(k, _)| k.as_str()).collect();
            // A dropped binary body says so in a comment added to its content object.
            if ky.len() == kx.len() + 1 && ky.last() == Some(&"comment") {
                ky.pop();
            }
            assert_eq!(kx, ky, "member names at {at}");
            let header_name = at.ends_with(']') && at.contains("headers[");
            for ((k, x), (_, y)) in x.iter().zip(y) {
                if header_name && k.as_str() == "name" {
                    assert_eq!(x, y, "header name at {at}");
                }
                same_shape(x, y, &format!("{at}.{}", k.as_str()));
            }
        }
        (Node::Str(_), Node::Str(_)) => {}
        (x, y) => assert_eq!(x, y, "value at {at}"),
    }
}

#[test]
fn redact_is_idempotent_and_keeps_structure_and_numbers_exactly() {
    use toomany::redact::parse::parse_document;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let key = write(d, "fp.key", b"a fingerprint key of at least sixteen bytes");
    let files = every_har(d);
    assert!(files.len() > 30, "the corpus is there: {}", files.len());
    for f in &files {
        let red = |input: &str| {
            let out = toomany()
                .args(["redact", input, "-o", "-", "--fingerprint-key-file", &key])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "redact {input}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let once = red(f);
        let again_path = write(d, "again.har", &once);
        let twice = red(&again_path);
        assert!(once == twice, "{f}: redacting the redacted copy changed it");
        let raw = std::fs::read(f).unwrap();
        let raw = raw.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&raw);
        let Ok(input) = parse_document(raw) else {
            continue; // JSONP-wrapped: shape checked through the copy's own parse below
        };
        let output = parse_document(&once).unwrap_or_else(|e| panic!("{f}: copy is JSON: {e}"));
        same_shape(&input, &output, f);
        // The planted canaries are gone from every copy.
        assert_clean(&format!("redact {f}"), &once);
    }
}

// ---------------------------------------------------------------------------------------------
// Issue 41: the classes that still leaked — secrets under plural names, the `Authentication`
// header, a URL's token inside another header's value, `SAMLResponse`, vendor key shapes used as
// header names and object keys, a bearer credential in `Retry-After`, a field mapped through a
// secret's name, and policy files or wrong `--input-format`s whose errors quoted the input.
// ---------------------------------------------------------------------------------------------

/// A key shape of `prefix` with canary `n` inside, `len` characters after the prefix.
fn shaped(prefix: &str, n: u32, len: usize) -> String {
    format!("{prefix}{}", pad(&format!("CANARY{n:03}x"), len))
}

fn trust_har() -> String {
    use serde_json::json;
    let body = json!({"api_keys": [c(500), c(501)], "tokens": [c(502)],
        shaped("ghp_", 508, 36): "v"})
    .to_string();
    let resp_body = json!({"error": "slow down", "tokens": [c(511)],
        shaped("npm_", 512, 36): 1})
    .to_string();
    let mut limited = entry(
        429,
        0,
        json!({
            "method": "POST",
            "url": format!("https://api.example.com/v1/sso/acs?SAMLResponse={}&RelayState=ok", c(505)),
            "queryString": [{"name": "SAMLResponse", "value": c(505)}, {"name": "RelayState", "value": "ok"}],
            "headers": [
                {"name": "Authentication", "value": format!("Bearer {}", c(503))},
                {"name": shaped("ghp_", 506, 36), "value": "1"},
                {"name": format!("X-{}", shaped("glpat-", 507, 20)), "value": "1"},
            ],
            "postData": {"mimeType": "application/json", "text": body},
        }),
        json!({"size": 10, "mimeType": "application/json", "text": resp_body}),
    );
    limited["response"]["headers"] = json!([
        {"name": "Retry-After", "value": format!("Bearer {}", c(510))},
        {"name": "Refresh", "value": format!("0; url=https://app.example.com/next?token={}", c(504))},
        {"name": shaped("sk_live_", 509, 24), "value": "x"},
    ]);
    limited["_custom"] = json!({"api_keys": [c(514)], "AKIACANARY515XABCDEF": 1,
        shaped("xoxb-", 516, 24): "slack"});
    let ok = entry(
        200,
        2,
        json!({"url": "https://api.example.com/v1/items?page=1"}),
        json!({"size": 2, "mimeType": "application/json", "text": "{}"}),
    );
    json!({"log": {"version": "1.2", "creator": {"name": "canary", "version": "1"},
        "entries": [limited, ok]}})
    .to_string()
}

fn trust_jsonl() -> String {
    use serde_json::json;
    let mut lines = Vec::new();
    for (i, status) in [429, 429, 200].iter().enumerate() {
        lines.push(
            json!({
                "time": format!("2026-01-01T00:00:0{i}.000Z"), "method": "GET",
                "url": format!("https://api.example.com/a?SAMLResponse={}&page=1", c(520)),
                "status": status, "client": "worker-1",
                "request_headers": {"Authentication": format!("Bearer {}", c(521)),
                    shaped("ghp_", 528, 36): "1"},
                "response_headers": {"Retry-After": format!("Bearer {}", c(522)),
                    "Refresh": format!("0; url=/x?token={}", c(523))},
                "api_keys": [c(524)], "tokens": [c(525)], "api_key": c(526),
                "response_body": json!({"tokens": [c(527)]}).to_string(),
                shaped("glpat-", 529, 20): 5,
            })
            .to_string(),
        );
    }
    lines.join("\n") + "\n"
}

/// The issue-41 inputs, written into `d`, with their canaries checked present.
fn trust_inputs(d: &Path) -> (String, String) {
    let har = write(d, "canary41.har", trust_har().as_bytes());
    let jsonl = write(d, "canary41.jsonl", trust_jsonl().as_bytes());
    let text = std::fs::read_to_string(&har).unwrap();
    for n in [500, 503, 504, 505, 506, 507, 509, 510, 514, 515, 516] {
        assert!(text.contains(&format!("CANARY{n:03}")), "{n} planted");
    }
    serde_json::from_str::<serde_json::Value>(&text).expect("valid JSON");
    let text = std::fs::read_to_string(&jsonl).unwrap();
    for n in [520, 521, 522, 523, 524, 526, 528, 529] {
        assert!(text.contains(&format!("CANARY{n:03}")), "{n} planted");
    }
    (har, jsonl)
}

#[test]
fn no_issue41_canary_survives_any_subcommand_or_format() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (har, jsonl) = trust_inputs(d);
    run_everything(d, &[har, jsonl]);
}

/// `--map client=<a secret's name>`: the client is the value's token, in every output of every
/// subcommand that reads logs, and two different secrets are still two clients.
#[test]
fn a_field_mapped_through_a_secret_name_is_shown_as_its_token() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (_, jsonl) = trust_inputs(d);
    let mut other = trust_jsonl().replace(&c(526), &c(530));
    other = other.replace("00:00:0", "00:00:1");
    let jsonl2 = write(d, "canary41b.jsonl", other.as_bytes());
    let plan = "cfg-plan41";
    run_and_check(
        "plan",
        &[
            "plan",
            "--requests",
            "60",
            "--limit",
            "60/min",
            "--emit-config",
            plan,
        ],
        d,
    );
    for map in [
        "client=api_key",
        "client=request_headers.Authentication",
        "client_ip=tokens",
    ] {
        for fmt in ["table", "json", "markdown", "html", "csv", "ndjson"] {
            run_and_check(
                &format!("analyze --map {map} --format {fmt}"),
                &[
                    "analyze", &jsonl, &jsonl2, "--map", map, "--format", fmt, "--all",
                ],
                d,
            );
        }
        let plan_file = format!("{plan}/toomany.toml");
        for fmt in ["table", "json"] {
            let args = [
                "verify", &jsonl, "--plan", &plan_file, "--map", map, "--format", fmt,
            ];
            run_and_check(&format!("verify --map {map}"), &args, d);
            let args = [
                "compare",
                &jsonl,
                "--against",
                &jsonl2,
                "--map",
                map,
                "--format",
                fmt,
            ];
            run_and_check(&format!("compare --map {map}"), &args, d);
        }
    }
    // Two keys, two clients: the fingerprint still tells them apart.
    let out = toomany()
        .args([
            "analyze",
            &jsonl,
            &jsonl2,
            "--map",
            "client=api_key",
            "--format",
            "json",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    let rep = json_of(&out.stdout);
    let clients = rep["clients"]["list"].as_array().expect("clients listed");
    let tokens: Vec<&str> = clients
        .iter()
        .filter_map(|c| c["label"].as_str())
        .filter(|c| c.starts_with("<redacted:"))
        .collect();
    assert_eq!(tokens.len(), 2, "{clients:#?}");
}

/// Policy files that are not policies, and inputs read under the wrong `--input-format`: the
/// errors are located, never quoted.
#[test]
fn unreadable_policies_and_wrong_input_formats_quote_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (har, jsonl) = trust_inputs(d);
    let text = write(
        d,
        "canary41.log",
        format!("{} GET /x?token={} 200\n{{\"a\": 1}}\n", c(550), c(552)).as_bytes(),
    );
    let string_doc = write(d, "canary41s.json", format!("\"{}\"\n", c(551)).as_bytes());
    let policies = [
        (
            "bad.toml",
            format!("api_key = \"{}\"\nthis is {}\n", c(540), c(541)),
        ),
        ("string.json", format!("\"{}\"", c(542))),
        (
            "json-named.toml",
            format!("{{\"schema_version\": \"{}\"}}", c(543)),
        ),
        (
            "typed.json",
            format!("{{\"schema_version\": 1, \"retry\": \"{}\"}}", c(544)),
        ),
        ("plain.txt", format!("{}\n", c(545))),
    ];
    for (name, content) in &policies {
        let p = write(d, name, content.as_bytes());
        let out = toomany()
            .args(["verify", &jsonl, "--plan", &p])
            .current_dir(d)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_clean(&format!("verify --plan {name}"), &out.stderr);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("line"), "{name}: located: {err}");
        run_and_check(
            &format!("simulate --policy {name}"),
            &[
                "simulate",
                "--policy",
                &p,
                "--limit",
                "fixed-window:60/min",
                "--requests",
                "10",
            ],
            d,
        );
    }
    let formats = [
        "har",
        "jsonl",
        "nginx",
        "clf",
        "envoy",
        "alb",
        "cloudfront",
        "w3c",
        "haproxy",
        "cloudflare",
        "kong",
        "traefik",
        "caddy",
        "gcp-lb",
        "otlp",
        "jaeger",
    ];
    for input in [&har, &jsonl, &text, &string_doc] {
        for fmt in formats {
            for (what, args) in [
                (
                    "analyze",
                    vec!["analyze", input, "--input-format", fmt, "--format", "json"],
                ),
                (
                    "compare",
                    vec!["compare", input, "--against", input, "--input-format", fmt],
                ),
            ] {
                run_and_check(&format!("{what} {input} --input-format {fmt}"), &args, d);
            }
            // `redact` copies what is not a secret: of the plain-text inputs (whose canaries have
            // neither a secret's name nor its shape) only its messages are held to quote nothing.
            let args = ["redact", input, "--input-format", fmt, "-o", "-"];
            if input == &har || input == &jsonl {
                run_and_check(&format!("redact {input} --input-format {fmt}"), &args, d);
            } else {
                let out = toomany().args(args).current_dir(d).output().unwrap();
                assert_clean(
                    &format!("redact {input} --input-format {fmt} stderr"),
                    &out.stderr,
                );
            }
        }
        run_and_check(&format!("check {input}"), &["check", input], d);
    }
}

#[path = "common/traces.rs"]
mod traces;

/// An OTLP/JSON trace export with canaries where a trace may hold secrets: the URL (userinfo,
/// query, fragment), captured request and response headers, attributes with secret names,
/// span events' messages, the status message, resource attributes; a JWT as a span name.
/// Two traces of an SDK's retries inside an application's retry loop, so the nested-retries
/// evidence (span names, the URL) is printed too.
fn otlp_with_canaries() -> String {
    let s = |v: String| serde_json::json!({"stringValue": v});
    let arr = |v: String| serde_json::json!({"arrayValue": {"values": [{"stringValue": v}]}});
    let mut spans = Vec::new();
    for t in 0..2 {
        let trace = format!("{t:032x}");
        let id = |n: u32| format!("{:016x}", 0x100 * (t + 1) + n);
        let internal = |sid: String, parent: Option<String>, name: &str| {
            serde_json::json!({
                "traceId": trace, "spanId": sid, "parentSpanId": parent.unwrap_or_default(),
                "name": name, "kind": 1,
                "startTimeUnixNano": format!("{}", 1_767_225_600_000_000_000u64 + t as u64 * 10_000_000_000),
                "endTimeUnixNano": format!("{}", 1_767_225_605_000_000_000u64 + t as u64 * 10_000_000_000),
                "attributes": [{"key": "app.secret_token", "value": s(c(310))}],
                "events": [{"name": "retry", "timeUnixNano": "1767225600000000000",
                    "attributes": [{"key": "exception.message", "value": s(format!("Bearer {}", c(311)))}]}],
                "status": {"code": 2, "message": format!("token={}", c(312))},
            })
        };
        spans.push(internal(id(0), None, "job"));
        spans.push(internal(id(1), Some(id(0)), JWT));
        for round in 0..2u32 {
            spans.push(internal(id(10 + round), Some(id(1)), "sdk.call"));
            for k in 0..2u32 {
                let start = 1_767_225_600_000_000_000u64
                    + t as u64 * 10_000_000_000
                    + round as u64 * 1_000_000_000
                    + k as u64 * 100_000_000;
                spans.push(serde_json::json!({
                    "traceId": trace, "spanId": id(20 + round * 2 + k), "parentSpanId": id(10 + round),
                    "name": format!("GET {}", c(313)), "kind": 3,
                    "startTimeUnixNano": format!("{start}"), "endTimeUnixNano": format!("{}", start + 30_000_000),
                    "attributes": [
                        {"key": "http.request.method", "value": s("POST".into())},
                        {"key": "url.full", "value": s(format!("https://u:{}@api.example.com/v1/pay?api_key={}&token={}#id_token={}", c(300), c(301), c(302), c(303)))},
                        {"key": "http.response.status_code", "value": {"intValue": if round == 1 && k == 1 { "200" } else { "429" }}},
                        {"key": "http.request.header.authorization", "value": arr(format!("Bearer {}", c(304)))},
                        {"key": "http.request.header.x_api_key", "value": arr(c(305))},
                        {"key": "http.request.header.cookie", "value": arr(format!("sid={}", c(306)))},
                        {"key": "http.response.header.set_cookie", "value": arr(format!("s={}", c(307)))},
                        {"key": "http.response.header.retry_after", "value": arr("2".into())},
                        {"key": "db.password", "value": s(c(308))},
                        {"key": "user_agent.original", "value": s(format!("sdk/1.0 token={}", c(309)))},
                    ],
                    "events": [{"name": "log", "attributes": [{"key": "message", "value": s(format!("api_key={}", c(314)))}]}],
                }));
            }
        }
    }
    let line = serde_json::json!({"resourceSpans": [{
        "resource": {"attributes": [
            {"key": "service.name", "value": s("billing".into())},
            {"key": "deployment.secret", "value": s(c(315))},
        ]},
        "scopeSpans": [{"scope": {"name": "canary"}, "spans": spans}],
    }]});
    line.to_string() + "\n"
}

#[test]
fn no_canary_survives_in_trace_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let text = otlp_with_canaries();
    let otlp = write(d, "canary-spans.jsonl", text.as_bytes());
    let jaeger = write(
        d,
        "canary-jaeger.json",
        traces::otlp_to_jaeger(&text).as_bytes(),
    );
    // The planted files hold the canaries, and the analysis reads the spans (and finds the
    // nested retries, whose evidence prints span names and the URL): the test can fail.
    for (p, format) in [(&otlp, "otlp"), (&jaeger, "jaeger")] {
        assert!(std::fs::read_to_string(p).unwrap().contains("CANARY304x"));
        let out = toomany()
            .args(["analyze", p, "--format", "json"])
            .current_dir(d)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["inputs"][0]["format"], format);
        assert_eq!(v["summary"]["rate_limited"], 6, "{format}");
        assert!(
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["kind"] == "nested_retries" && f["evidence"]["source"] == "trace"),
            "{format}: {:#}",
            v["findings"]
        );
    }
    run_everything(d, &[otlp, jaeger]);
}

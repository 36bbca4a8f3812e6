//! Access logs from the command line (issue 10): a custom nginx `log_format` read with
//! `--log-format`, vendor logs read with no flag at all, rotated and gzipped files merged by
//! time, the README's access-log example true, and clear errors for what cannot be read.

mod common;
use common::*;
use serde_json::Value;

/// The `log_format` of samples/nginx-incident.log (as in README.md).
const NGINX_FORMAT: &str = r#"log_format incident '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time t=$msec us=$upstream_status ra="$upstream_http_retry_after" key="$http_x_api_key" rid=$request_id host=$host';"#;

fn analyze_json(args: &[&str]) -> Value {
    let out = toomany()
        .arg("analyze")
        .args(args)
        .args(["--format", "json"])
        .current_dir(repo())
        .assert()
        .success();
    json_of(&out.get_output().stdout)
}

fn verdicts(rep: &Value) -> Vec<(String, String, String)> {
    rep["rate_limited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let a = r;
            let first = a["evidence"][0]["signal"]
                .as_str()
                .unwrap_or("")
                .to_string();
            (
                a["layer"].as_str().unwrap_or("").to_string(),
                a["vendor"].as_str().unwrap_or("").to_string(),
                first,
            )
        })
        .collect()
}

fn findings(rep: &Value) -> Vec<String> {
    rep["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn custom_nginx_log_format_is_read_and_its_upstream_status_decides() {
    let rep = analyze_json(&["samples/nginx-incident.log", "--log-format", NGINX_FORMAT]);
    let input = &rep["inputs"][0];
    assert_eq!(input["format"], "nginx");
    assert_eq!(input["creator"], "custom --log-format (nginx)");
    assert_eq!(input["skipped"], 0);
    assert_eq!(rep["summary"]["requests"], 1101);
    let v = verdicts(&rep);
    // nginx's own limit_req rejections, named by the field that says so ...
    let own = v
        .iter()
        .filter(|(l, vd, sig)| l == "proxy" && vd == "nginx" && sig == "upstream_status=-")
        .count();
    assert_eq!(own, 24);
    // ... and the 429s it passed through from its upstream.
    let passed = v
        .iter()
        .filter(|(l, _, sig)| l == "api" && sig == "upstream_status=429")
        .count();
    assert_eq!(passed, 921);
    // Logged response headers feed Retry-After parsing: the API's own 429s say 30 s.
    let with_ra = rep["rate_limited"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["retry_after"]["seconds"] == 30.0)
        .count();
    assert_eq!(with_ra, 895);
    // Detectors work on the log: three workers' IPs share one logged key.
    let f = findings(&rep);
    for kind in [
        "burst",
        "retry_storm",
        "ignored_retry_after",
        "shared_key_contention",
    ] {
        assert!(f.iter().any(|k| k == kind), "{kind} not found in {f:?}");
    }
    // The key itself is never in the report.
    assert!(!rep.to_string().contains("sk_live_51SyncJob"));
}

#[test]
fn envoy_sample_is_read_with_no_flag_and_rl_names_envoy() {
    let rep = analyze_json(&["samples/envoy-incident.log"]);
    assert_eq!(rep["inputs"][0]["format"], "envoy");
    assert_eq!(rep["inputs"][0]["creator"], "Istio default");
    let v = verdicts(&rep);
    assert_eq!(
        v.iter()
            .filter(|(l, vd, sig)| l == "proxy" && vd == "envoy" && sig == "response_flags=RL")
            .count(),
        26
    );
    assert_eq!(
        v.iter()
            .filter(|(l, _, sig)| l == "api" && sig == "response_code_details=via_upstream")
            .count(),
        895
    );
}

#[test]
fn two_layers_logs_join_on_the_request_id() {
    // nginx passed these 429s through; Envoy's log of the same request id says it made them.
    let rep = analyze_json(&[
        "samples/nginx-incident.log",
        "samples/envoy-incident.log",
        "--log-format",
        NGINX_FORMAT,
    ]);
    let joined = rep["rate_limited"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "samples/nginx-incident.log")
        .filter(|r| r["vendor"] == "envoy")
        .count();
    assert_eq!(joined, 26);
}

fn write_lines(dir: &std::path::Path, name: &str, lines: &[&str]) -> String {
    write(dir, name, (lines.join("\n") + "\n").as_bytes())
}

#[test]
fn kong_cloudflare_and_alb_logs_are_read_with_no_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // Kong's docs sample shape (source kong = the rate-limiting plugin answered).
    let kong = write_lines(
        d,
        "kong.log",
        &[
            r#"{"request":{"id":"a1","method":"GET","url":"http://localhost:8000/example-route","uri":"/example-route","headers":{"user-agent":"HTTPie/3.2.3"}},"response":{"status":200,"headers":{"x-kong-upstream-latency":"171"}},"upstream_status":"200","latencies":{"kong":1,"proxy":171,"request":173},"client_ip":"192.168.65.1","started_at":1726783839538,"source":"upstream"}"#,
            r#"{"request":{"id":"a2","method":"GET","url":"http://localhost:8000/example-route","uri":"/example-route","headers":{"user-agent":"HTTPie/3.2.3"}},"response":{"status":429,"headers":{"retry-after":"1","ratelimit-limit":"5","ratelimit-remaining":"0"}},"upstream_status":"","latencies":{"kong":0,"proxy":-1,"request":1},"client_ip":"192.168.65.1","started_at":1726783839900,"source":"kong"}"#,
        ],
    );
    // Cloudflare Logpush (elastic/integrations fixture fields).
    let cf = write_lines(
        d,
        "cloudflare.log",
        &[
            r#"{"ClientIP":"175.16.199.0","ClientRequestHost":"xyz.example.com","ClientRequestMethod":"POST","ClientRequestURI":"/api/telemetry","EdgeStartTimestamp":"2022-05-25T13:25:26Z","EdgeEndTimestamp":"2022-05-25T13:25:32Z","EdgeResponseStatus":429,"OriginResponseStatus":0,"SecuritySources":["rateLimit"],"RayID":"710e98d9367f357d"}"#,
        ],
    );
    // The AWS guide's entry with a target's 429.
    let alb = write_lines(
        d,
        "alb.log",
        &[
            r#"http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 429 429 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-""#,
        ],
    );
    for (path, format, layer, vendor, field) in [
        (&kong, "kong", "proxy", Some("kong"), "source=kong"),
        (
            &cf,
            "cloudflare",
            "cdn",
            Some("cloudflare"),
            "SecuritySources∋rateLimit",
        ),
        (&alb, "alb", "api", None, "target_status_code=429"),
    ] {
        let rep = analyze_json(&[path]);
        assert_eq!(rep["inputs"][0]["format"], format, "{path}");
        let a = &rep["rate_limited"][0];
        assert_eq!(a["layer"], layer, "{path}: {a}");
        assert_eq!(a["vendor"].as_str(), vendor, "{path}");
        assert!(
            a["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["signal"].as_str().unwrap_or("").contains(field)),
            "{path}: no evidence naming {field}: {a}"
        );
    }
}

#[test]
fn rotated_and_gzipped_files_are_merged_by_time() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let text = std::fs::read_to_string(repo().join("samples/nginx-incident.log")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (old, new) = lines.split_at(lines.len() / 2);
    let (older, old) = old.split_at(old.len() / 2);
    // logrotate: access.log (current), access.log.1 (previous), access.log.2.gz (older).
    write(d, "access.log", (new.join("\n") + "\n").as_bytes());
    write(d, "access.log.1", (old.join("\n") + "\n").as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all((older.join("\n") + "\n").as_bytes()).unwrap();
    write(d, "access.log.2.gz", &gz.finish().unwrap());
    let whole = analyze_json(&["samples/nginx-incident.log", "--log-format", NGINX_FORMAT]);
    let out = toomany()
        .args([
            "analyze",
            "access.log",
            "access.log.1",
            "access.log.2.gz",
            "--log-format",
            NGINX_FORMAT,
            "--format",
            "json",
        ])
        .current_dir(d)
        .assert()
        .success();
    let parts = json_of(&out.get_output().stdout);
    for key in ["requests", "rate_limited", "first", "last"] {
        assert_eq!(parts["summary"][key], whole["summary"][key], "{key}");
    }
    assert_eq!(findings(&parts), findings(&whole));
}

#[test]
fn unknown_text_says_what_was_tried_and_bad_formats_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let p = write(
        tmp.path(),
        "app.log",
        b"2024-01-01 10:00:00 INFO started worker 3\n2024-01-01 10:00:01 WARN slow\n",
    );
    let out = toomany().args(["analyze", &p]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("app.log"), "{err}");
    assert!(
        err.contains("nginx") && err.contains("HAProxy") && err.contains("Kong"),
        "{err}"
    );
    assert!(err.contains("--log-format"), "{err}");
    let out = toomany()
        .args(["analyze", &p, "--log-format", "no variables here"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("--log-format: no variables found"), "{err}");
    let out = toomany()
        .args(["redact", "samples/nginx-incident.log", "-o", "-"])
        .current_dir(repo())
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("access log"), "{err}");
}

#[test]
fn readme_access_log_example_is_true() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("<!-- access-log-example -->")
        .nth(1)
        .expect("README has the access-log example");
    let cmd_block = section
        .split("```sh")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let cmd = cmd_block
        .lines()
        .find(|l| l.starts_with("toomany analyze"))
        .expect("the command");
    // The command as a user would type it: the format is the single-quoted argument.
    let (head, fmt) = cmd.split_once(" --log-format ").expect("--log-format");
    let fmt = fmt.trim();
    let fmt = fmt
        .strip_prefix('\'')
        .and_then(|f| f.strip_suffix('\''))
        .expect("the format in single quotes, as a shell needs it");
    assert!(!fmt.contains('\''));
    assert!(
        NGINX_FORMAT.contains(&format!("'{fmt}'")),
        "the README's format is the sample's"
    );
    let mut args: Vec<&str> = head.split_whitespace().skip(1).collect();
    args.extend(["--log-format", fmt]);
    let out = toomany().args(&args).current_dir(repo()).assert().success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let excerpt = section
        .split("```text")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let lines: Vec<&str> = excerpt
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains("<redacted:") && !l.contains('…'))
        .collect();
    assert!(lines.len() >= 5);
    for line in lines {
        assert!(
            stdout.contains(line.trim_end()),
            "README line not in the real output: {line}\n---\n{stdout}"
        );
    }
}

/// Files that log no HTTP request at all (an NLB TLS-listener log, an IIS FTP log with and
/// without its directives, `tests/fixtures/access-non-http/`) are recognised for what they
/// are: one message says no HTTP request records were found and what the lines are, instead
/// of a parse error per line or "not an access log".
#[test]
fn a_log_without_http_requests_says_what_its_records_are() {
    let cases = [
        (
            "otel-nlb-tls.log",
            "alb log: 1 line of NLB TLS listener records",
        ),
        ("iis-ftp.log", "w3c log: 9 lines of FTP session records"),
        (
            "iis-ftp-no-header.log",
            "w3c log: 9 lines of FTP session records",
        ),
    ];
    for (file, what) in cases {
        let path = fixture(&format!("access-non-http/{file}"));
        let out = toomany().args(["analyze", &path]).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            err.contains("no HTTP request records found") && err.contains(what),
            "{file}: {err}"
        );
        assert!(!err.contains("--log-format"), "{file}: {err}");
        let lines = err.lines().filter(|l| l.contains(file)).count();
        assert!(lines <= 3, "{file}: one message, not one per line: {err}");
    }
}

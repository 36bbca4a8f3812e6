//! An access log's lines wrapped as containers and log shippers write them, byte for byte in
//! their documented shapes: Docker's json-file driver, CRI (with long lines split into `P`
//! parts), `kubectl logs --timestamps`, syslog RFC 3164 and 5424, Filebeat, Logstash, Vector,
//! Fluent Bit, journald's JSON export, `docker compose logs` and the OpenTelemetry Collector's
//! file exporter (OTLP JSON, one export per line holding one record or a batch of them).

/// How a wrapper writes one line (`i` = its index, for the timestamps).
pub type Wrap = fn(&str, usize) -> String;

fn stamp(i: usize) -> String {
    format!(
        "2026-12-03T10:{:02}:{:02}.{:09}Z",
        (i / 60) % 60,
        i % 60,
        i * 7
    )
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string")
}

pub fn docker(l: &str, i: usize) -> String {
    format!(
        r#"{{"log":{},"stream":"stdout","time":"{}"}}"#,
        json_str(&format!("{l}\n")),
        stamp(i)
    )
}

/// CRI: lines longer than 40 bytes are split in three (`P`, `P`, `F`), at char boundaries.
pub fn cri(l: &str, i: usize) -> String {
    let t = stamp(i);
    if l.len() <= 40 {
        return format!("{t} stdout F {l}");
    }
    let cut = |at: usize| {
        (at..l.len())
            .find(|&k| l.is_char_boundary(k))
            .unwrap_or(l.len())
    };
    let (a, b) = (cut(l.len() / 3), cut(2 * l.len() / 3));
    format!(
        "{t} stdout P {}\n{t} stdout P {}\n{t} stdout F {}",
        &l[..a],
        &l[a..b],
        &l[b..]
    )
}

pub fn kubectl(l: &str, i: usize) -> String {
    format!("{} {l}", stamp(i))
}

pub fn syslog3164(l: &str, i: usize) -> String {
    format!(
        "<190>Dec  3 10:{:02}:{:02} web-1 nginx[12]: {l}",
        (i / 60) % 60,
        i % 60
    )
}

pub fn syslog5424(l: &str, i: usize) -> String {
    format!("<190>1 {} web-1 nginx 12 - - {l}", stamp(i))
}

pub fn filebeat(l: &str, i: usize) -> String {
    format!(
        r#"{{"@timestamp":"{}","log":{{"offset":{},"file":{{"path":"/var/log/nginx/access.log"}}}},"message":{},"input":{{"type":"log"}},"host":{{"name":"web-1"}},"agent":{{"type":"filebeat"}}}}"#,
        stamp(i),
        i * 100,
        json_str(l)
    )
}

pub fn logstash(l: &str, i: usize) -> String {
    format!(
        r#"{{"@timestamp":"{}","@version":"1","message":{},"host":"web-1","path":"/var/log/nginx/access.log"}}"#,
        stamp(i),
        json_str(l)
    )
}

pub fn vector(l: &str, i: usize) -> String {
    format!(
        r#"{{"file":"/var/log/nginx/access.log","host":"web-1","message":{},"source_type":"file","timestamp":"{}"}}"#,
        json_str(l),
        stamp(i)
    )
}

pub fn fluentbit(l: &str, i: usize) -> String {
    format!(
        r#"{{"date":{}.{:03},"log":{}}}"#,
        1_796_292_000 + i,
        i % 1000,
        json_str(l)
    )
}

pub fn journald(l: &str, i: usize) -> String {
    format!(
        r#"{{"__CURSOR":"s=1;i={i}","__REALTIME_TIMESTAMP":"{}","_HOSTNAME":"web-1","SYSLOG_IDENTIFIER":"nginx","MESSAGE":{}}}"#,
        1_796_292_000_000_000u64 + i as u64,
        json_str(l)
    )
}

/// One OTLP log record (protobuf JSON, as the collector's file exporter writes it): the line
/// in `body.stringValue`, the filelog receiver's attributes, an unset `timeUnixNano`.
fn otlp_record(l: &str, i: usize) -> String {
    format!(
        r#"{{"timeUnixNano":"0","observedTimeUnixNano":"{}","body":{{"stringValue":{}}},"attributes":[{{"key":"log.file.name","value":{{"stringValue":"access.log"}}}}],"traceId":"","spanId":""}}"#,
        (1_796_292_000u64 + i as u64) * 1_000_000_000,
        json_str(l)
    )
}

/// An OTLP JSON export of these lines' records (the file exporter writes one per line).
pub fn otlp_export(lines: &[&str], first: usize) -> String {
    let records: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| otlp_record(l, first + k))
        .collect();
    format!(
        r#"{{"resourceLogs":[{{"resource":{{"attributes":[{{"key":"host.name","value":{{"stringValue":"web-1"}}}},{{"key":"service.name","value":{{"stringValue":"nginx"}}}}]}},"scopeLogs":[{{"scope":{{}},"logRecords":[{}]}}]}}]}}"#,
        records.join(",")
    )
}

pub fn otlp(l: &str, i: usize) -> String {
    otlp_export(&[l], i)
}

pub fn compose(l: &str, _: usize) -> String {
    format!("web-1  | {l}")
}

/// Every wrapper, by name.
pub const ALL: &[(&str, Wrap)] = &[
    ("docker-json", docker),
    ("cri", cri),
    ("kubectl-timestamps", kubectl),
    ("syslog-3164", syslog3164),
    ("syslog-5424", syslog5424),
    ("filebeat", filebeat),
    ("logstash", logstash),
    ("vector", vector),
    ("fluent-bit", fluentbit),
    ("journald", journald),
    ("compose", compose),
    ("otlp-json", otlp),
];

/// `text`'s non-blank lines, each wrapped (a CRI line may become several).
pub fn wrap_all(text: &str, w: Wrap) -> String {
    let mut out = String::new();
    for (i, l) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        out.push_str(&w(l, i));
        out.push('\n');
    }
    out
}

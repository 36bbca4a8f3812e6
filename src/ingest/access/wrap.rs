//! Access logs as they arrive from containers and log shippers: each line wrapped in a record
//! of its own. Every wrapper is removed per line, then the inner line is read as usual; the
//! wrapper's time and host fill in when the inner line has none.
//!
//! - Docker's `json-file` driver: `{"log":"<line>\n","stream":"stdout","time":"<RFC 3339>"}`.
//! - Log shippers' JSON with the raw line under `message` (Filebeat, Logstash, Vector) or `log`
//!   (Fluent Bit, Fluentd), `line` (Loki's `logcli --output jsonl`), `short_message` (GELF),
//!   `textPayload` (a Google Cloud Logging entry), and journald's JSON export (`MESSAGE`,
//!   `__REALTIME_TIMESTAMP` in µs, `_HOSTNAME`).
//! - CRI (containerd, CRI-O; what the kubelet writes under `/var/log/pods`):
//!   `<RFC 3339 time> <stdout|stderr> <P|F> <line>`, where `P` marks a part of a line the
//!   runtime split and `F` its last part: parts are joined before the line is read.
//! - `kubectl logs --timestamps`: `<RFC 3339 time> <line>`.
//! - Syslog: RFC 5424 (`<PRI>1 <time> <host> <app> <procid> <msgid> <sd> <msg>`) and the
//!   RFC 3164 layout (`[<PRI>]Mmm dd hh:mm:ss <host> <tag>[pid]: <msg>`, also with an RFC 3339
//!   stamp as rsyslog writes it). A 3164 stamp has no year and no zone: it is not used as a time.
//! - `docker compose logs`: `<service>  | <line>`.
//! - OpenTelemetry OTLP JSON as the collector's file exporter writes it: one export request
//!   per line, `resourceLogs[].scopeLogs[].logRecords[]`, each record's `body.stringValue`
//!   one line of the log (many lines per wrapped line); a record's `timeUnixNano` (else
//!   `observedTimeUnixNano`) and the resource's `host.name` are the fallbacks.

use super::time;
use crate::ingest::lazy::{self, Doc, Obj, Val};
use std::borrow::Cow;

/// Which JSON record wraps the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    Docker,
    Journald,
    Shipper,
    /// OTLP JSON logs (`resourceLogs`): several lines per record, see [`Wrapper::each`].
    Otlp,
}

/// A wrapper around every line of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Json(JsonKind),
    Cri,
    KubectlTimestamps,
    Syslog,
    Compose,
    /// `kubectl logs --prefix`: `[pod/<name>/<container>] <line>`.
    KubectlPrefix,
}

/// One line without its wrapper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwrapped<'a> {
    pub line: Cow<'a, str>,
    /// When the wrapper says the line was written (µs since the epoch).
    pub time: Option<i64>,
    /// The machine that wrote it (syslog host, a shipper's `host.name`, journald `_HOSTNAME`).
    pub host: Option<Cow<'a, str>>,
    /// CRI `P`: a part of a line that goes on in the next record.
    pub partial: bool,
}

impl<'a> Unwrapped<'a> {
    fn of(line: impl Into<Cow<'a, str>>) -> Unwrapped<'a> {
        Unwrapped {
            line: line.into(),
            time: None,
            host: None,
            partial: false,
        }
    }
}

impl Wrapper {
    /// Every wrapper, in the order sniffing tries them.
    pub const ALL: &'static [Wrapper] = &[
        Wrapper::Json(JsonKind::Docker),
        Wrapper::Cri,
        Wrapper::KubectlTimestamps,
        Wrapper::Syslog,
        Wrapper::Compose,
        Wrapper::KubectlPrefix,
    ];

    /// What the report says was removed.
    pub fn label(&self) -> &'static str {
        match self {
            Wrapper::Json(JsonKind::Docker) => "Docker json-file",
            Wrapper::Json(JsonKind::Journald) => "journald JSON export",
            Wrapper::Json(JsonKind::Shipper) => "log shipper JSON",
            Wrapper::Json(JsonKind::Otlp) => "OpenTelemetry OTLP JSON logs",
            Wrapper::Cri => "CRI container log",
            Wrapper::KubectlTimestamps => "kubectl logs --timestamps",
            Wrapper::Syslog => "syslog",
            Wrapper::Compose => "docker compose logs",
            Wrapper::KubectlPrefix => "kubectl logs --prefix",
        }
    }

    /// The line inside, or `None` when this line does not carry the wrapper (OTLP: the first
    /// record's line; [`Wrapper::each`] gives them all).
    pub fn unwrap<'a>(&self, line: &'a str) -> Option<Unwrapped<'a>> {
        match self {
            Wrapper::Json(JsonKind::Otlp) => otlp::records(line)?.into_iter().next(),
            Wrapper::Json(_) => json(line).map(|(u, _)| u),
            Wrapper::Cri => cri(line),
            Wrapper::KubectlTimestamps => kubectl(line),
            Wrapper::Syslog => syslog(line),
            Wrapper::Compose => compose(line),
            Wrapper::KubectlPrefix => kubectl_prefix(line),
        }
    }

    /// Every line inside one wrapped line, in order: one for most wrappers, one per log
    /// record for OTLP JSON. `false` when the line does not carry the wrapper.
    pub fn each<'a>(&self, line: &'a str, f: &mut dyn FnMut(Unwrapped<'a>)) -> bool {
        if *self == Wrapper::Json(JsonKind::Otlp) {
            let Some(records) = otlp::records(line) else {
                return false;
            };
            records.into_iter().for_each(f);
            return true;
        }
        match self.unwrap(line) {
            Some(u) => {
                f(u);
                true
            }
            None => false,
        }
    }

    /// The wrapper of this line, if any (JSON records say which kind they are).
    pub fn of_line(line: &str) -> Option<Wrapper> {
        if line.trim_start().starts_with('{') {
            if otlp::is_otlp(line) {
                return Some(Wrapper::Json(JsonKind::Otlp));
            }
            return json(line).map(|(_, k)| Wrapper::Json(k));
        }
        Wrapper::ALL[1..]
            .iter()
            .copied()
            .find(|w| w.unwrap(line).is_some())
    }

    /// Is this a CRI record marked partial (`<time> <stream> P ...`)? For the reader, which
    /// must not cut a block between the parts of one line.
    pub fn is_partial(&self, line: &[u8]) -> bool {
        *self == Wrapper::Cri
            && std::str::from_utf8(line)
                .ok()
                .and_then(cri)
                .is_some_and(|u| u.partial)
    }
}

/// An RFC 3339 stamp as the first token (`2016-10-06T00:17:09.669794202Z`): its time and the
/// rest of the line after one space.
fn leading_rfc3339(line: &str) -> Option<(i64, &str)> {
    let sp = line.find(' ')?;
    let stamp = &line[..sp];
    if stamp.len() < 20 || stamp.as_bytes()[10] != b'T' {
        return None;
    }
    Some((time::iso(stamp.as_bytes())?, &line[sp + 1..]))
}

fn cri(line: &str) -> Option<Unwrapped<'_>> {
    let (t, rest) = leading_rfc3339(line)?;
    let (stream, rest) = rest.split_once(' ')?;
    if stream != "stdout" && stream != "stderr" {
        return None;
    }
    // The tag: `P` or `F`, possibly with more `:`-separated tags after it (CRI log format).
    let (tag, content) = match rest.split_once(' ') {
        Some((t, c)) => (t, c),
        None => (rest, ""),
    };
    let first = tag.split(':').next().unwrap_or("");
    if first != "P" && first != "F" {
        return None;
    }
    Some(Unwrapped {
        line: Cow::Borrowed(content),
        time: Some(t),
        host: None,
        partial: first == "P",
    })
}

fn kubectl(line: &str) -> Option<Unwrapped<'_>> {
    let (t, rest) = leading_rfc3339(line)?;
    if cri(line).is_some() {
        return None;
    }
    Some(Unwrapped {
        time: Some(t),
        ..Unwrapped::of(rest)
    })
}

fn compose(line: &str) -> Option<Unwrapped<'_>> {
    let bar = line.find(" | ").or_else(|| line.find(" |"))?;
    let name = line[..bar].trim_end();
    if name.is_empty()
        || !name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
    {
        return None;
    }
    let rest = &line[bar + 2..];
    Some(Unwrapped::of(rest.strip_prefix(' ').unwrap_or(rest)))
}

fn kubectl_prefix(line: &str) -> Option<Unwrapped<'_>> {
    let rest = line.strip_prefix("[pod/")?;
    let close = rest.find("] ")?;
    let name = &rest[..close];
    let host = name.split('/').next().filter(|p| !p.is_empty());
    Some(Unwrapped {
        host: host.map(Cow::Borrowed),
        ..Unwrapped::of(&rest[close + 2..])
    })
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `Mmm dd hh:mm:ss` (day space-padded): the stamp's length, or `None`.
fn bsd_stamp(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() < 15 || !MONTHS.contains(&&s[..3]) || b[3] != b' ' {
        return None;
    }
    let day_ok = (b[4] == b' ' || b[4].is_ascii_digit()) && b[5].is_ascii_digit();
    let time_ok = b[6] == b' '
        && b[7].is_ascii_digit()
        && b[8].is_ascii_digit()
        && b[9] == b':'
        && b[12] == b':'
        && b[13].is_ascii_digit()
        && b[14].is_ascii_digit();
    (day_ok && time_ok).then_some(15)
}

fn syslog(line: &str) -> Option<Unwrapped<'_>> {
    // `<PRI>`, optional.
    let mut s = line;
    if let Some(r) = s.strip_prefix('<') {
        let close = r.find('>')?;
        if close == 0 || close > 3 || !r[..close].bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s = &r[close + 1..];
    }
    // RFC 5424: `1 <time> <host> <app> <procid> <msgid> <sd> <msg>`.
    if let Some(r) = s.strip_prefix("1 ") {
        return syslog5424(r);
    }
    let (t, rest) = if let Some(n) = bsd_stamp(s) {
        (None, s[n..].strip_prefix(' ')?)
    } else {
        let (t, rest) = leading_rfc3339(s)?;
        (Some(t), rest)
    };
    let (host, rest) = rest.split_once(' ')?;
    if host.is_empty() {
        return None;
    }
    // No host, the tag right after the stamp (`Mar 24 14:02:50 nginx: ...`).
    if host.ends_with(':') {
        return Some(Unwrapped {
            line: Cow::Borrowed(rest),
            time: t,
            host: None,
            partial: false,
        });
    }
    // `tag[pid]: ` or `tag: `; a line without a tag (`--- last message repeated ---`) is a
    // message of its own.
    let msg = match rest.split_once(": ") {
        Some((tag, msg)) if !tag.contains(' ') && !tag.is_empty() => msg,
        _ => rest,
    };
    Some(Unwrapped {
        line: Cow::Borrowed(msg),
        time: t,
        host: Some(Cow::Borrowed(host)),
        partial: false,
    })
}

fn syslog5424(r: &str) -> Option<Unwrapped<'_>> {
    let mut parts = r.splitn(6, ' ');
    let stamp = parts.next()?;
    let host = parts.next()?;
    let _app = parts.next()?;
    let _procid = parts.next()?;
    let _msgid = parts.next()?;
    let rest = parts.next().unwrap_or("");
    let t = if stamp == "-" {
        None
    } else {
        Some(time::iso(stamp.as_bytes())?)
    };
    // Structured data: `-` or one or more `[id k="v" ...]` elements (`]` escaped as `\]`).
    let msg = if let Some(m) = rest.strip_prefix('-') {
        m
    } else if rest.starts_with('[') {
        let b = rest.as_bytes();
        let mut i = 0;
        while b.get(i) == Some(&b'[') {
            i += 1;
            while i < b.len() && b[i] != b']' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        }
        rest.get(i.min(rest.len())..).unwrap_or("")
    } else {
        return None;
    };
    let msg = msg.strip_prefix(' ').unwrap_or(msg);
    // A UTF-8 byte-order mark may start the message.
    let msg = msg.strip_prefix('\u{FEFF}').unwrap_or(msg);
    Some(Unwrapped {
        line: Cow::Borrowed(msg),
        time: t,
        host: (host != "-").then_some(Cow::Borrowed(host)),
        partial: false,
    })
}

/// A string value (journald writes a non-UTF-8 message as an array of bytes).
fn text<'a>(o: &Obj<'a>, key: &str) -> Option<Cow<'a, str>> {
    match lazy::val(o.get(key)?) {
        Val::Str(s) => Some(s),
        Val::Array => {
            let items = lazy::items(o.get(key)?);
            let bytes: Option<Vec<u8>> = items
                .iter()
                .map(|n| match lazy::val(n) {
                    Val::Num(x) => x.as_u64().and_then(|v| u8::try_from(v).ok()),
                    _ => None,
                })
                .collect();
            Some(Cow::Owned(String::from_utf8_lossy(&bytes?).into_owned()))
        }
        _ => None,
    }
}

fn time_value(o: &Obj<'_>, key: &str) -> Option<i64> {
    match lazy::val(o.get(key)?) {
        Val::Str(s) => time::any(s.as_bytes()),
        Val::Num(n) => match n.as_i64() {
            Some(i) => Some(time::epoch_integer_value(i)),
            None => n
                .as_f64()
                .filter(|x| x.is_finite() && *x > 0.0)
                .map(|x| (x * 1e6) as i64),
        },
        _ => None,
    }
}

/// A JSON record holding the raw line: the line, and which kind of record it is.
fn json(line: &str) -> Option<(Unwrapped<'_>, JsonKind)> {
    let t = line.trim();
    if !t.starts_with('{') {
        return None;
    }
    let Ok(Doc::Object(o)) = lazy::parse_raw(t) else {
        return None;
    };
    let (inner, kind) = if let Some(m) = text(&o, "MESSAGE") {
        (m, JsonKind::Journald)
    } else if let Some(m) = text(&o, "message") {
        (m, JsonKind::Shipper)
    } else if let Some(m) = text(&o, "log") {
        let docker = o.get("stream").is_some() && o.get("time").is_some();
        (
            m,
            if docker {
                JsonKind::Docker
            } else {
                JsonKind::Shipper
            },
        )
    } else if let Some(m) = text(&o, "line")
        .or_else(|| text(&o, "short_message"))
        .or_else(|| text(&o, "textPayload"))
    {
        // Loki's `logcli --output jsonl` (`line`), Graylog's GELF (`short_message`), a Google
        // Cloud Logging entry of a container's text output (`textPayload`, as a log sink
        // exports it).
        (m, JsonKind::Shipper)
    } else {
        return None;
    };
    let time = ["time", "@timestamp", "timestamp", "date"]
        .iter()
        .find_map(|k| time_value(&o, k))
        .or_else(|| {
            // journald: microseconds since the epoch, as a string.
            text(&o, "__REALTIME_TIMESTAMP").and_then(|s| s.trim().parse::<i64>().ok())
        });
    let host = text(&o, "_HOSTNAME")
        .or_else(|| text(&o, "hostname"))
        .or_else(|| text(&o, "host"))
        .or_else(|| {
            let h = Obj::of(o.get("host")?)?;
            text(&h, "name").or_else(|| text(&h, "hostname"))
        })
        .map(|h| Cow::Owned(h.into_owned()));
    let inner = match inner {
        Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches(['\n', '\r'])),
        Cow::Owned(s) => Cow::Owned(s.trim_end_matches(['\n', '\r']).to_string()),
    };
    Some((
        Unwrapped {
            line: inner,
            time,
            host,
            partial: false,
        },
        kind,
    ))
}

mod otlp;

#[cfg(test)]
mod tests {
    use super::*;

    const NGINX: &str =
        r#"10.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET /a HTTP/1.1" 429 12 "-" "curl/8""#;

    fn inner(w: Wrapper, line: &str) -> Unwrapped<'_> {
        w.unwrap(line)
            .unwrap_or_else(|| panic!("{w:?} does not unwrap {line}"))
    }

    #[test]
    fn docker_json_file() {
        let line = format!(
            r#"{{"log":{},"stream":"stdout","time":"2024-10-10T13:55:36.123456789Z"}}"#,
            serde_json::to_string(&format!("{NGINX}\n")).unwrap()
        );
        assert_eq!(
            Wrapper::of_line(&line),
            Some(Wrapper::Json(JsonKind::Docker))
        );
        let u = inner(Wrapper::Json(JsonKind::Docker), &line);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.time, time::iso(b"2024-10-10T13:55:36.123456Z"));
    }

    #[test]
    fn shippers_and_journald() {
        let msg = serde_json::to_string(NGINX).unwrap();
        let filebeat = format!(
            r#"{{"@timestamp":"2024-10-10T13:55:37.000Z","log":{{"offset":1,"file":{{"path":"/var/log/nginx/access.log"}}}},"message":{msg},"host":{{"name":"web-1"}}}}"#
        );
        let u = inner(Wrapper::Json(JsonKind::Shipper), &filebeat);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.host.as_deref(), Some("web-1"));
        let journald = format!(
            r#"{{"__REALTIME_TIMESTAMP":"1728568537000000","_HOSTNAME":"web-2","MESSAGE":{msg}}}"#
        );
        assert_eq!(
            Wrapper::of_line(&journald),
            Some(Wrapper::Json(JsonKind::Journald))
        );
        let u = inner(Wrapper::Json(JsonKind::Journald), &journald);
        assert_eq!(u.time, Some(1_728_568_537_000_000));
        assert_eq!(u.host.as_deref(), Some("web-2"));
        let fluentbit = format!(r#"{{"date":1728568537.5,"log":{msg}}}"#);
        assert_eq!(
            inner(Wrapper::Json(JsonKind::Shipper), &fluentbit).line,
            NGINX
        );
        assert!(Wrapper::Json(JsonKind::Shipper)
            .unwrap(r#"{"level":"info","msg":"x"}"#)
            .is_none());
    }

    #[test]
    fn cri_and_kubectl() {
        let p = format!("2024-10-10T13:55:36.1Z stdout P {}", &NGINX[..20]);
        let f = format!("2024-10-10T13:55:36.1Z stdout F {}", &NGINX[20..]);
        assert!(inner(Wrapper::Cri, &p).partial);
        let u = inner(Wrapper::Cri, &f);
        assert!(!u.partial);
        assert_eq!(u.line, &NGINX[20..]);
        assert!(Wrapper::Cri.is_partial(p.as_bytes()));
        assert_eq!(Wrapper::of_line(&p), Some(Wrapper::Cri));
        let k = format!("2024-10-10T13:55:36.123456789Z {NGINX}");
        assert_eq!(Wrapper::of_line(&k), Some(Wrapper::KubectlTimestamps));
        assert_eq!(inner(Wrapper::KubectlTimestamps, &k).line, NGINX);
        assert!(Wrapper::KubectlTimestamps.unwrap(&f).is_none());
    }

    #[test]
    fn syslog_layouts() {
        let bsd = format!("Oct 10 13:55:36 web-1 nginx: {NGINX}");
        let u = inner(Wrapper::Syslog, &bsd);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.host.as_deref(), Some("web-1"));
        assert_eq!(u.time, None);
        let pri = format!("<190>Oct  1 03:05:06 web-1 nginx[12]: {NGINX}");
        assert_eq!(inner(Wrapper::Syslog, &pri).line, NGINX);
        let iso = format!("2015-08-26T02:09:48+02:00 localhost haproxy[14389]: {NGINX}");
        assert!(inner(Wrapper::Syslog, &iso).time.is_some());
        let r5424 =
            format!(r#"<165>1 2024-10-10T13:55:36.003Z web-3 nginx 42 - [meta k="v\]"] {NGINX}"#);
        let u = inner(Wrapper::Syslog, &r5424);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.host.as_deref(), Some("web-3"));
        assert!(u.time.is_some());
        let nil = format!("<165>1 2024-10-10T13:55:36Z - - - - - {NGINX}");
        assert_eq!(inner(Wrapper::Syslog, &nil).line, NGINX);
        let repeated = "Mar 24 14:26:01 --- last message repeated 2 times ---";
        assert!(Wrapper::Syslog.unwrap(repeated).is_some());
        assert!(Wrapper::Syslog.unwrap(NGINX).is_none());
    }

    #[test]
    fn kubectl_prefix_and_hostless_syslog() {
        let k = format!("[pod/web-7d4b9/nginx] {NGINX}");
        let u = inner(Wrapper::KubectlPrefix, &k);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.host.as_deref(), Some("web-7d4b9"));
        let s = format!("Oct 10 13:55:36 nginx: {NGINX}");
        let u = inner(Wrapper::Syslog, &s);
        assert_eq!(u.line, NGINX);
        assert_eq!(u.host, None);
        let loki = format!(
            r#"{{"labels":{{"app":"web"}},"line":{},"timestamp":"2024-10-10T13:55:36Z"}}"#,
            serde_json::to_string(NGINX).unwrap()
        );
        assert_eq!(inner(Wrapper::Json(JsonKind::Shipper), &loki).line, NGINX);
        let gcp = format!(
            r#"{{"textPayload":{},"resource":{{"type":"k8s_container"}},"timestamp":"2024-10-10T13:55:36.5Z"}}"#,
            serde_json::to_string(NGINX).unwrap()
        );
        let u = inner(Wrapper::Json(JsonKind::Shipper), &gcp);
        assert_eq!((u.line.as_ref(), u.time.is_some()), (NGINX, true));
    }

    #[test]
    fn compose_prefix() {
        let c = format!("caddy  | {NGINX}");
        assert_eq!(inner(Wrapper::Compose, &c).line, NGINX);
        assert!(Wrapper::Compose.unwrap(NGINX).is_none());
    }
}

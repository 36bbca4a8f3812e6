//! Logs that carry nginx's variable names themselves: `key=value` (logfmt) lines, `k=v` fields
//! after a Common Log Format line, and JSON written by `log_format ... escape=json`. A name
//! means what the variable of that name means in a `log_format` ([`nginx_meaning`]), plus a few
//! names people give those variables in JSON and `k=v` formats (`time`, `method`, `client`, as
//! in the `apm` format of NGINX's blog post on logging for performance monitoring, 2016, and
//! the abbreviations `rt`/`uct`/`uht`/`urt` often seen for the timing variables), so the rules
//! that read `$upstream_status` apply whatever the encoding.

use super::escape;
use super::format::{assign_var, header_name, nginx_meaning, Meaning, SignalInputs, Var};
use super::record::{Fields, Text};
use crate::ingest::error::LineError;
use std::borrow::Cow;

/// What a name means (`None`: a name we do not read; the value is kept nowhere).
pub fn meaning(name: &str) -> Option<(Meaning<'_>, bool)> {
    match nginx_meaning(name) {
        (Meaning::Other, _) => {}
        m => return Some(m),
    }
    let v = match name {
        "time" | "timestamp" | "@timestamp" | "ts" | "date" => Var::AnyEnd,
        "method" => Var::Method,
        "path" => Var::Path,
        "url" | "uri_full" => Var::Target,
        "query" => Var::Query,
        "vhost" | "server_name" | "hostname" | "http_host_header" => Var::Host,
        "status_code" => Var::Status,
        "user_agent" | "useragent" | "ua" | "agent" => Var::UserAgent,
        "client" | "client_ip" | "remote_ip" | "clientip" | "ip" => Var::RemoteAddr,
        "x_forwarded_for" | "xff" | "forwarded_for" => Var::ForwardedFor,
        "referer" | "referrer" | "bytes" | "protocol" | "uct" | "uht" | "urt" => Var::Ignore,
        // `rt=$request_time`, a common abbreviation (not a documented name).
        "rt" => Var::DurationSeconds,
        "upstream" | "upstream_address" => return Some((Meaning::Var(Var::UpstreamAddr), true)),
        _ => return None,
    };
    Some((Meaning::Var(v), false))
}

/// Put one named value into the record (`raw` as written, `decoded` with escapes undone).
/// `Ok(true)`: the name is one we read.
pub fn assign<'a>(
    name: &'a str,
    raw: &'a str,
    decoded: Text<'a>,
    f: &mut Fields<'a>,
    sig: &mut SignalInputs<'a>,
) -> Result<bool, &'static str> {
    let Some((m, _)) = meaning(name) else {
        return Ok(false);
    };
    let present = !(raw.is_empty() || raw == "-");
    match m {
        Meaning::Var(v) => assign_var(v, raw, || decoded, f, sig)?,
        Meaning::ReqHeader(h) => {
            if present {
                f.request_headers
                    .push((Cow::Owned(header_name(h)), decoded));
            }
        }
        Meaning::RespHeader(h) => {
            if present {
                f.response_headers
                    .push((Cow::Owned(header_name(h)), decoded));
            }
        }
        Meaning::Other => return Ok(false),
    }
    Ok(true)
}

/// One `key=value` pair: the key, the value as written (without its quotes) and whether it
/// was quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair<'a> {
    pub key: &'a str,
    pub value: &'a str,
    pub quoted: bool,
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'@' | b'$')
}

/// The `key=value` pairs of `s` in order; `Err` at the first token that is not one (its
/// byte offset), so a caller can tell a logfmt line from text that merely holds an `=`.
pub fn pairs(s: &str) -> Result<Vec<Pair<'_>>, usize> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i >= b.len() {
            return Ok(out);
        }
        let k0 = i;
        while i < b.len() && is_key_byte(b[i]) {
            i += 1;
        }
        if i == k0 || b.get(i) != Some(&b'=') {
            return Err(k0);
        }
        let key = &s[k0..i];
        i += 1;
        if b.get(i) == Some(&b'"') {
            let v0 = i + 1;
            let mut j = v0;
            loop {
                match b.get(j) {
                    None => return Err(k0),
                    Some(b'\\') => j += 2,
                    Some(b'"') => break,
                    Some(_) => j += 1,
                }
            }
            let end = j.min(b.len());
            out.push(Pair {
                key,
                value: &s[v0..end],
                quoted: true,
            });
            i = end + 1;
            if i < b.len() && b[i] != b' ' {
                return Err(k0);
            }
        } else {
            let v0 = i;
            while i < b.len() && b[i] != b' ' {
                i += 1;
            }
            out.push(Pair {
                key,
                value: &s[v0..i],
                quoted: false,
            });
        }
    }
}

/// Read `k=v` fields after a layout's end (`rt=0.041 us=200 host=api.example.com`) into the
/// record: names we read fill what the layout left empty (the layout's own fields win).
/// Returns how many pairs were read; text that is not `k=v` is left alone.
pub fn trailing<'a>(rest: &'a str, f: &mut Fields<'a>, sig: &mut SignalInputs<'a>) -> usize {
    let mut n = 0;
    let b = rest.as_bytes();
    let mut i = 0;
    // Each whitespace-separated token that is a pair; others (a bare `"-"`) are skipped.
    while i < b.len() {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let t0 = i;
        let mut quoted = false;
        while i < b.len() && (quoted || b[i] != b' ') {
            if b[i] == b'\\' && quoted {
                i += 1;
            } else if b[i] == b'"' {
                quoted = !quoted;
            }
            i += 1;
        }
        let tok = &rest[t0..i.min(rest.len())];
        let Ok(ps) = pairs(tok) else {
            continue;
        };
        for p in ps {
            if already_set(p.key, f, sig) {
                continue;
            }
            let decoded = if p.quoted {
                escape::backslash(p.value)
            } else {
                Cow::Borrowed(p.value)
            };
            match assign(p.key, p.value, decoded, f, sig) {
                Ok(true) => n += 1,
                Ok(false) if f.unread.len() < super::record::UNREAD_MAX => {
                    f.unread.push(Cow::Borrowed(p.key))
                }
                _ => {}
            }
        }
    }
    n
}

/// Has the layout itself set what `name` would?
fn already_set(name: &str, f: &Fields<'_>, sig: &SignalInputs<'_>) -> bool {
    match meaning(name) {
        Some((Meaning::Var(v), _)) => match v {
            Var::Host => f.host.is_some(),
            Var::Status => f.status.is_some(),
            Var::RequestLine => f.request_line.is_some(),
            Var::UserAgent => f.user_agent.is_some(),
            Var::RemoteAddr => f.client_ip.is_some(),
            Var::RequestId => f.request_id.is_some(),
            Var::DurationSeconds | Var::DurationMs | Var::DurationUs => f.duration_ms.is_some(),
            Var::TimeLocalEnd
            | Var::TimeLocalStart
            | Var::TimeIsoEnd
            | Var::MsecEnd
            | Var::BracketedStart
            | Var::AnyStart
            | Var::AnyEnd => f.time.is_some(),
            Var::UpstreamStatus => sig.upstream_status.is_some(),
            _ => false,
        },
        _ => false,
    }
}

/// A whole `key=value` line with nginx's names: the record, or why not.
pub fn parse_line<'a>(line: &'a str) -> Result<(Fields<'a>, SignalInputs<'a>), LineError> {
    let ps = pairs(line).map_err(|_| LineError::Layout("not a line of key=value pairs"))?;
    let mut f = Fields::default();
    let mut sig = SignalInputs::default();
    let mut known = 0;
    for p in ps {
        let decoded = if p.quoted {
            escape::backslash(p.value)
        } else {
            Cow::Borrowed(p.value)
        };
        match assign(p.key, p.value, decoded, &mut f, &mut sig) {
            Ok(true) => known += 1,
            Ok(false) => {}
            Err(expected) => {
                return Err(LineError::Field {
                    field: p.key.to_string(),
                    expected,
                })
            }
        }
    }
    if f.status.is_none() {
        return Err("no status (status=...)".into());
    }
    if known < 3 || (f.request_line.is_none() && f.target.is_none() && f.path.is_none()) {
        return Err("no request (request=..., or method and uri)".into());
    }
    Ok((f, sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_split_with_quotes() {
        let p = pairs(r#"a=1 b="x \" y" c=-"#).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[1].value, r#"x \" y"#);
        assert!(p[1].quoted);
        assert_eq!(p[2].value, "-");
        assert_eq!(pairs("a=1 oops"), Err(4));
        assert_eq!(pairs(r#"a="open"#), Err(0));
    }

    #[test]
    fn trailing_fields_fill_what_the_layout_left() {
        let mut f = Fields::default();
        let mut sig = SignalInputs::default();
        let rest = r#" rt=0.041 t=1 us=200 ra="-" upstream_status=429 host=api.example.com "x""#;
        assert_eq!(trailing(rest, &mut f, &mut sig), 3);
        assert_eq!(f.host.as_deref(), Some("api.example.com"));
        assert_eq!(f.duration_ms, Some(41.0));
        assert_eq!(sig.upstream_status, Some("429"));
        let mut g = Fields {
            host: Some("kept".into()),
            ..Fields::default()
        };
        trailing(" host=other", &mut g, &mut sig);
        assert_eq!(g.host.as_deref(), Some("kept"));
    }

    #[test]
    fn logfmt_lines_with_nginx_names() {
        let (f, sig) = parse_line(
            r#"time=2024-03-01T10:00:00+00:00 remote_addr=10.0.0.1 request="GET /a HTTP/1.1" status=429 upstream_status=- http_retry_after=5"#,
        )
        .unwrap();
        assert_eq!(f.status, Some(429));
        assert_eq!(sig.upstream_status, Some("-"));
        assert!(f.time.is_some());
        assert_eq!(f.request_headers[0].0, "retry-after");
        assert!(parse_line("a=1 b=2").is_err());
        assert!(parse_line("status=abc request=x remote_addr=y").is_err());
    }
}

//! HAProxy `option httplog` lines, with or without a syslog prefix (RFC 3164 or 5424) [H1]:
//!
//! `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq
//! {%hrl} {%hsl} %{+Q}r`
//!
//! `%tr` is when the first byte of the request was received — the start — in local time
//! without a zone (read as UTC). `Ta` is the total active time in ms. The termination state
//! and the server name say who answered: `<NOSRV>` and `PR`/`LR` mean HAProxy did [H1].

use super::escape;
use super::format::parse_status;
use super::record::{evidence_field, Fields, Stamp};
use super::signal::rule;
use super::time;
use crate::ingest::skip::{Miss, NotRequest};
use std::borrow::Cow;

/// Is this the `[06/Feb/2009:12:14:14.655]` token?
fn is_accept_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() >= 22 && b[0] == b'[' && b[b.len() - 1] == b']' && b[3] == b'/' && b[7] == b'/'
}

fn num(v: &str) -> Option<i64> {
    v.strip_prefix('+').unwrap_or(v).parse().ok()
}

/// `TR/Tw/Tc/Tr/Ta` (HTTP) or `Tw/Tc/Tt` (TCP): the number of timers, if `t` is one.
fn timers_len(t: &str) -> Option<usize> {
    let parts = t.split('/');
    let mut n = 0;
    for p in parts {
        let p = p.strip_prefix('+').unwrap_or(p);
        let p = p.strip_prefix('-').unwrap_or(p);
        if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        n += 1;
    }
    (n == 3 || n == 5).then_some(n)
}

/// A host name as a custom layout logs it (`%[capture.req.hdr(0)]`, `{host||}`): letters and
/// a dot, nothing of an agent or a path.
fn hostlike(v: &str) -> bool {
    v.contains('.')
        && v.bytes().any(|c| c.is_ascii_alphabetic())
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b':' | b'_'))
}

pub fn parse(line: &str) -> Result<Fields<'_>, Miss> {
    // Find `ci:cp [tr]` after whatever syslog prefix: the first token followed by an accept
    // date.
    let starts = token_spans(line);
    let tok = |k: usize| starts.get(k).map(|&(s, e)| &line[s..e]);
    let Some(k) = (0..starts.len().saturating_sub(1)).find(|&k| {
        tok(k + 1).is_some_and(is_accept_date) && tok(k).is_some_and(|t| t.contains(':'))
    }) else {
        // HAProxy's own messages ("Proxy www started.") come through syslog too.
        if super::wrap::Wrapper::Syslog.unwrap(line).is_some() {
            return Err(Miss::NotRequest(NotRequest::ProxyMessage));
        }
        return Err("no `client:port [accept date]` pair (not an HAProxy httplog line)".into());
    };
    // The timers follow `backend/server`, or a custom layout's extra fields after it (a host).
    let Some(at) =
        (k + 4..(k + 8).min(starts.len())).find(|&j| tok(j).and_then(timers_len).is_some())
    else {
        // `frontend/bind: SSL handshake failure` and other connection errors.
        if tok(k + 2).is_some_and(|t| t.ends_with(':')) {
            return Err(Miss::NotRequest(NotRequest::ProxyMessage));
        }
        return Err("no timers field (TR/Tw/Tc/Tr/Ta) after the server".into());
    };
    let timers: Vec<&str> = tok(at).unwrap_or("").split('/').collect();
    if timers.len() == 3 {
        // `option tcplog`: Tw/Tc/Tt, bytes, a termination state, no request.
        return Err(Miss::NotRequest(NotRequest::TcpConnection));
    }
    let d = at - (k + 4);
    let need = k + 12 + d;
    if starts.len() < need {
        return Err("the line ends before the termination state and counters".into());
    }
    let client = tok(k).unwrap_or("");
    let date = tok(k + 1).unwrap_or("[]");
    let start =
        time::clf(&date.as_bytes()[1..date.len() - 1]).ok_or("the accept date is not a time")?;
    let backend_server = tok(k + 3).unwrap_or("");
    let status_tok = tok(k + 5 + d).unwrap_or("");
    // `-1`: no response was sent (the client aborted) [H1].
    let status = if status_tok == "-1" {
        0
    } else {
        parse_status(status_tok).ok_or("the status field is not a status")?
    };
    let term = tok(k + 9 + d).unwrap_or("");
    if term.len() != 4 && term.len() != 2 {
        return Err("the termination state is not 2 or 4 characters".into());
    }
    // After `sq/bq`: optional `{captures}` (may hold spaces) and the quoted request line.
    let (first_capture, request) = captures_and_request(&line[starts[k + 11 + d].1..])?;
    let mut f = Fields {
        time: Some(Stamp::Start(start)),
        status: Some(status),
        client_ip: Some(Cow::Borrowed(client)),
        request_line: Some(escape::hash(request)),
        ..Fields::default()
    };
    // A custom layout's field between the server and the timers, or the first captured
    // request header, when it is a host name (`capture request header Host` comes first in
    // most configurations; anything else is left alone).
    let extra = (d == 1).then(|| tok(k + 4)).flatten();
    let captured = first_capture.and_then(|c| c.split('|').next());
    if let Some(h) = extra.into_iter().chain(captured).find(|h| hostlike(h)) {
        f.host = Some(Cow::Borrowed(h));
    }
    f.duration_ms = num(timers[4]).filter(|t| *t >= 0).map(|t| t as f64);
    if status >= 400 {
        f.signal = signal(backend_server, num(timers[3]).unwrap_or(-1), term);
    }
    Ok(f)
}

/// After `sq/bq`: the first `{captures}` block (may hold spaces) and the request line.
fn captures_and_request(rest: &str) -> Result<(Option<&str>, &str), &'static str> {
    let mut rest = rest.trim_start();
    let mut first_capture = None;
    while let Some(r) = rest.strip_prefix('{') {
        let close = r.find('}').ok_or("an unterminated `{` capture block")?;
        first_capture.get_or_insert(&r[..close]);
        rest = r[close + 1..].trim_start();
    }
    // `%{+Q}r` ends the default layouts; `option httpslog` logs TLS fields after it, and a
    // request HAProxy truncated has no closing quote.
    let request = match rest.strip_prefix('"') {
        Some(r) => match r.find("\" ") {
            Some(end) => &r[..end],
            None => r.strip_suffix('"').unwrap_or(r),
        },
        None => rest,
    };
    Ok((first_capture, request))
}

/// The first 28 space-separated tokens of `line`, as (start, end) offsets.
fn token_spans(line: &str) -> Vec<(usize, usize)> {
    let mut starts = Vec::with_capacity(24);
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() && starts.len() < 28 {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let end = memchr::memchr(b' ', &b[i..])
            .map(|k| i + k)
            .unwrap_or(b.len());
        starts.push((i, end));
        i = end;
    }
    starts
}

/// Who answered an error: the server HAProxy picked (`<NOSRV>`: none), the response time
/// `Tr` and the termination state (`sQ` queued, `PR`/`LR`/`PT` HAProxy itself) [H1].
fn signal(backend_server: &str, tr: i64, term: &str) -> Option<crate::model::LayerSignal> {
    let server = backend_server.rsplit('/').next().unwrap_or("");
    let field = format!(
        "{}, {}",
        evidence_field("server", server),
        evidence_field("termination_state", term)
    );
    let t2 = &term[..2];
    if t2 == "sQ" {
        Some(rule("haproxy.queue").signal(field))
    } else if server == "<NOSRV>" || t2 == "PR" || t2 == "LR" || t2 == "PT" {
        Some(rule("haproxy.local").signal(field))
    } else if tr >= 0 && t2 == "--" {
        Some(rule("haproxy.server").signal(format!("{field}, Tr={tr}")))
    } else {
        None
    }
}

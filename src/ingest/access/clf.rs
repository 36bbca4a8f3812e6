//! The Common Log Format family read by its shape, for lines the file's layout does not fit:
//! what every CLF variant shares (`host ident user [time] "request" status bytes`) and what
//! they add around it, told apart per line:
//!
//! - a virtual host first (Apache `vhost_combined`: `%v:%p %h ...`, or `%v %h ...`);
//! - an X-Forwarded-For list where the address belongs (`10.0.0.2, 10.0.0.1 - - [...]`);
//! - no `[time]` at all (a Tomcat-style line inside syslog);
//! - status `-` (Traefik with no response written, Apache with none set): status 0;
//! - `"referer" "agent"`, an unquoted `-` referer (Traefik v1), anything after them: `k=v`
//!   fields read by name ([`super::kv`]), Traefik's `<n>ms` duration, an XFF list.
//!
//! Only lines the strict layouts refuse come here, so its cost is not on the common path.

use super::escape;
use super::format::{parse_status, SignalInputs};
use super::kv;
use super::record::{Fields, Stamp};
use super::time;
use crate::ingest::error::LineError;
use std::borrow::Cow;

/// A quoted string starting at `at` (a `"`): its inner text and the offset after the closing
/// quote. The closing quote is one not escaped by a backslash and followed by a space or the
/// line's end (a request line can hold a bare `"` in garbage).
fn quoted(line: &str, at: usize) -> Option<(&str, usize)> {
    let b = line.as_bytes();
    let mut j = at + 1;
    let mut fallback = None;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => {
                if j + 1 == b.len() || b[j + 1] == b' ' {
                    return Some((&line[at + 1..j], j + 1));
                }
                fallback.get_or_insert(j);
                j += 1;
            }
            _ => j += 1,
        }
    }
    fallback.map(|j| (&line[at + 1..j], j + 1))
}

/// The tokens before the time or request: `[vhost] address ident user`, where the address
/// may be a comma-separated list.
struct Head<'a> {
    vhost: Option<&'a str>,
    addr: &'a str,
    user: &'a str,
}

fn head(h: &str) -> Result<Head<'_>, &'static str> {
    // Join `a, b, c` (a list written with spaces after its commas) into one token.
    let mut toks: Vec<(usize, usize)> = Vec::with_capacity(5);
    let b = h.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let s = i;
        while i < b.len() && b[i] != b' ' {
            i += 1;
        }
        match toks.last_mut() {
            Some(last) if b[last.1 - 1] == b',' => last.1 = i,
            _ => toks.push((s, i)),
        }
        if toks.len() > 5 {
            return Err("more than five fields before the time or request");
        }
    }
    let t = |k: usize| &h[toks[k].0..toks[k].1];
    match toks.len() {
        3 => Ok(Head {
            vhost: None,
            addr: t(0),
            user: t(2),
        }),
        4 if hostlike(t(0)) => Ok(Head {
            vhost: Some(t(0)),
            addr: t(1),
            user: t(3),
        }),
        // A layout that adds fields after the client or drops some (`$host $remote_addr -
        // $request_id -`, `$remote_addr - [...]`, `$remote_addr [...]`): the client is the
        // first address, only a virtual host may stand before it, and the last field (if any
        // follows the client) is the user.
        n @ 1..=5 => {
            let k = if is_ip(t(0)) {
                0
            } else if n > 1 && hostlike(t(0)) && is_ip(t(1)) {
                1
            } else {
                return Err("not `address ident user` before the time or request");
            };
            Ok(Head {
                vhost: (k == 1).then(|| t(0)),
                addr: t(k),
                user: if k + 1 < n { t(n - 1) } else { "-" },
            })
        }
        _ => Err("not `address ident user` before the time or request"),
    }
}

/// An IP address, or a list of them whose first is one (`10.0.0.2, 10.0.0.1`), quoted or not
/// (nginx's `"$http_x_forwarded_for"`).
fn is_ip(v: &str) -> bool {
    let v = unquote(v);
    let first = v.split(',').next().unwrap_or(v).trim();
    first.parse::<std::net::IpAddr>().is_ok()
}

/// `v` without the double quotes around it, if it has them.
fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
}

/// A virtual host as `%v` or `%v:%p` logs it (not a timestamp a wrapper put first).
fn hostlike(v: &str) -> bool {
    let (host, port) = match v.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (v, None),
    };
    !host.is_empty()
        && host
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'))
        && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// A request line as CLF quotes it: `METHOD target [PROTOCOL]`, `-`, empty, or escaped
/// garbage (nginx writes what it could not parse).
fn looks_like_request(r: &str) -> bool {
    if r.is_empty() || r == "-" || r.starts_with("\\x") {
        return true;
    }
    let m = r.split(' ').next().unwrap_or("");
    !m.is_empty() && m.len() <= 32 && m.bytes().all(super::escape::is_tchar)
}

/// Is `v` an address list (`-`, `1.2.3.4, 10.0.0.1`, IPv6)?
fn is_address_list(v: &str) -> bool {
    !v.is_empty()
        && v.bytes()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, b'.' | b':' | b',' | b' ' | b'-'))
}

/// Read one line of the CLF family by its shape.
pub fn parse(line: &str) -> Result<(Fields<'_>, SignalInputs<'_>), LineError> {
    let b = line.as_bytes();
    let open = time_open(line);
    let q = open
        .and_then(|t| memchr::memchr(b'"', &b[t..]).map(|k| t + k))
        .or_else(|| memchr::memchr(b'"', b))
        .ok_or("no quoted request line")?;
    let mut f = Fields::default();
    let mut sig = SignalInputs::default();
    // `[time]` before the request, if any.
    let (head_end, req_at) = match open {
        Some(t) => {
            let close = t + memchr::memchr(b']', &b[t..q]).ok_or("an unclosed `[`")?;
            let stamp = time::clf(&b[t + 1..close]).ok_or("the [time] is not a CLF time")?;
            // A field a LogFormat adds between them (Gandi's `(%T s)` duration) is skipped;
            // a quoted one would be taken for the request, so only bare text is.
            if !between_time_and_request(&line[close + 1..q]) {
                return Err("text between the time and the request".into());
            }
            f.time = Some(Stamp::End(stamp));
            (t, q)
        }
        None => (q, q),
    };
    let h = head(line[..head_end].trim_end())?;
    let (request, after) = quoted(line, req_at).ok_or("the request's quote is not closed")?;
    // After a CLF `[time]` the quoted text is the request line whatever it holds (servers log
    // what they received, escaped); without one, it must look like a request.
    if f.time.is_none() && !looks_like_request(request) {
        return Err("the quoted text is not a request line".into());
    }
    // Status and bytes.
    let mut rest = line[after..].trim_start();
    let status_tok = next_bare(&mut rest).ok_or("no status after the request")?;
    f.status = Some(if status_tok == "-" {
        0
    } else if status_tok.len() == 3 {
        parse_status(status_tok).ok_or("the field after the request is not a status")?
    } else {
        return Err("the field after the request is not a status".into());
    });
    match next_bare(&mut rest) {
        Some(bytes) if bytes == "-" || bytes.bytes().all(|c| c.is_ascii_digit()) => {}
        Some(_) => return Err("the field after the status is not a byte count".into()),
        None => {}
    }
    if let Some(v) = h.vhost.filter(|v| *v != "-") {
        f.host = Some(Cow::Borrowed(v));
    }
    if h.addr != "-" {
        f.client_ip = Some(Cow::Borrowed(unquote(h.addr)));
    }
    if h.user != "-" {
        f.remote_user = Some(Cow::Borrowed(h.user));
    }
    f.request_line = Some(escape::backslash(request));
    tail(rest, &mut f, &mut sig);
    Ok((f, sig))
}

/// Where the `[time]` opens: the first `[` outside quotes, where the only quoted text before
/// it is an address list (nginx's `"$http_x_forwarded_for"` before the client); `None` when
/// the request's quote comes first.
fn time_open(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = 0;
    while let Some(k) = memchr::memchr2(b'"', b'[', &b[i..]) {
        let j = i + k;
        if b[j] == b'[' {
            return Some(j);
        }
        let (inner, end) = quoted(line, j)?;
        if !is_address_list(inner) || inner.is_empty() {
            return None;
        }
        i = end;
    }
    None
}

/// Up to two short fields between the `[time]` and the quoted request: nothing, or a
/// duration or id a LogFormat put there (`(0 s)`, `12ms`), never a `[` or `]`.
fn between_time_and_request(v: &str) -> bool {
    let v = v.trim();
    v.is_empty() || (v.len() <= 24 && v.split(' ').count() <= 2 && !v.contains(['[', ']']))
}

/// The next space-separated token of `rest` (not quoted).
fn next_bare<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let r = rest.trim_start();
    if r.is_empty() {
        return None;
    }
    let end = r.find(' ').unwrap_or(r.len());
    *rest = &r[end..];
    Some(&r[..end])
}

/// What follows the byte count: referer and agent (quoted, or a bare `-`), then anything.
fn tail<'a>(orig: &'a str, f: &mut Fields<'a>, sig: &mut SignalInputs<'a>) {
    let mut rest = orig;
    let mut quoted_seen = 0;
    let mut kv_from = None;
    loop {
        let r = rest.trim_start();
        if r.is_empty() {
            break;
        }
        let off = orig.len() - r.len();
        if r.starts_with('"') {
            let Some((v, end)) = quoted(r, 0) else { break };
            quoted_seen += 1;
            match quoted_seen {
                1 => {} // referer
                2 if v != "-" && !v.is_empty() => f.user_agent = Some(escape::backslash(v)),
                3 if is_address_list(v) && v != "-" => f.forwarded_for = Some(Cow::Borrowed(v)),
                _ => {}
            }
            rest = &r[end..];
            continue;
        }
        let tok_end = r.find(' ').unwrap_or(r.len());
        let tok = &r[..tok_end];
        if quoted_seen == 0 && tok == "-" {
            quoted_seen = 1; // Traefik v1's unquoted `-` referer
        } else if tok.contains('=') {
            kv_from.get_or_insert(off);
        } else if let Some(ms) = tok.strip_suffix("ms").filter(|d| !d.is_empty()) {
            // Traefik's last field: the duration; its time is the request's start [T2].
            if let Ok(d) = ms.parse::<f64>() {
                f.duration_ms = Some(d);
                if let Some(Stamp::End(t)) = f.time {
                    f.time = Some(Stamp::Start(t));
                }
            }
        }
        rest = &r[tok_end..];
    }
    if let Some(at) = kv_from {
        kv::trailing(&orig[at..], f, sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(line: &str) -> Option<u16> {
        parse(line).ok().and_then(|(f, _)| f.status)
    }

    #[test]
    fn variants_of_the_family() {
        // vhost_combined with a port, a session id as ident, and trailing %D.
        let (f, _) = parse(r#"localhost:443 178.20.184.42 1j0vhgd jsmith [26/Jul/2023:00:01:26 -0700] "GET /x?a=1 HTTP/2.0" 200 17163 "-" "Mozilla/5.0" 116075"#).unwrap();
        assert_eq!(f.host.as_deref(), Some("localhost:443"));
        assert_eq!(f.remote_user.as_deref(), Some("jsmith"));
        assert_eq!(f.user_agent.as_deref(), Some("Mozilla/5.0"));
        // vhost without a port, combined.
        let (f, _) = parse(r#"vhost1.domaine.fr 123.123.123.123 - - [04/Jul/2019:09:20:46 +0200] "GET / HTTP/1.1" 200 32953 "-" "UA""#).unwrap();
        assert_eq!(f.host.as_deref(), Some("vhost1.domaine.fr"));
        // An X-Forwarded-For list as the address.
        let (f, _) = parse(r#"10.0.0.2, 10.0.0.1, 85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "UA""#).unwrap();
        assert_eq!(
            f.client_ip.as_deref(),
            Some("10.0.0.2, 10.0.0.1, 85.181.35.98")
        );
        // A quoted X-Forwarded-For list after the virtual host, then the peer address
        // (elastic/integrations' nginx test-test-with-host.log).
        let (f, _) = parse(r#"example.com:80 "10.5.102.222, 199.96.1.1" 10.2.1.185 - - [22/Jan/2016:13:18:29 +0000] "GET /a HTTP/1.1" 200 25507 "-" "Amazon CloudFront""#).unwrap();
        assert_eq!(
            (f.host.as_deref(), f.client_ip.as_deref()),
            (Some("example.com:80"), Some("10.5.102.222, 199.96.1.1"))
        );
        // A field between the time and the request (Gandi's hosting layout: `(%T s)`).
        let (f, _) = parse(r#"www.example.com 203.0.113.4 - alice [10/Feb/2012:16:42:07 -0500] (0 s) "GET / HTTP/1.1" 301 368 "-" "UA""#).unwrap();
        assert_eq!(
            (f.status, f.host.as_deref()),
            (Some(301), Some("www.example.com"))
        );
        // No time (inside syslog), status and bytes then a duration.
        assert_eq!(
            st(r#"127.0.0.1 - - "GET /bad.foo HTTP/1.1" 404 65508 4.386"#),
            Some(404)
        );
        // A field added after the client (BunkerWeb's request id), and one dropped (ident).
        let (f, _) = parse(r#"example.com 192.168.1.10 - req001 - [29/Jul/2023:10:26:06 -0700] "GET / HTTP/1.1" 400 157 "-" "-""#).unwrap();
        assert_eq!(f.host.as_deref(), Some("example.com"));
        assert_eq!(f.client_ip.as_deref(), Some("192.168.1.10"));
        // Neither ident nor user (lnav's logfile_bad_access_log.0).
        let (f, _) = parse(r#"192.168.202.254 [20/Jul/2009:22:59:29 +0000] "GET /vmkboot.gz HTTP/1.0" 404 46210 "-" "gPXE/0.9.7""#).unwrap();
        assert_eq!(
            (f.client_ip.as_deref(), f.status, f.remote_user),
            (Some("192.168.202.254"), Some(404), None)
        );
        let (f, _) = parse(r#"192.168.1.1 - [08/Jun/2020:08:04:43 +0000] "GET /api/test HTTP/1.1" 200 100 "-" "curl/7.68.0""#).unwrap();
        assert_eq!(
            (f.client_ip.as_deref(), f.status),
            (Some("192.168.1.1"), Some(200))
        );
        // After a [time], whatever the server quoted is the request (here bytes it could not
        // parse); without a time, the quoted text must look like a request.
        assert_eq!(
            st(r#"1.2.3.4 - - [29/Jul/2023:10:26:06 -0700] "Gh0st\xAD\x00\x00" 400 157 "-" "-""#),
            Some(400)
        );
        assert_eq!(
            st(r#"127.0.0.1 - - "RPC_IN_DATA /rpc HTTP/1.1" 200 1"#),
            Some(200)
        );
        assert!(parse(r#"127.0.0.1 - - "Gh0st\xAD" 400 157"#).is_err());
        // Status `-`.
        assert_eq!(
            st(
                r#"83.149.9.216 - a.user [11/Jan/2020:23:05:27 +0100] "OPTIONS /remote.php/ HTTP/1.1" - 7908 "-" "monitoring-client (v2.2)""#
            ),
            Some(0)
        );
    }

    #[test]
    fn traefik_v1_and_v2_tails() {
        let (f, _) = parse(r#"192.168.33.1 - - [02/Oct/2017:20:22:07 +0000] "GET /ui/a.png HTTP/1.1" 304 0 - "Mozilla/5.0" 262 "Host-host 1" "http://172.19.0.3:5601" 2ms"#).unwrap();
        assert_eq!(f.status, Some(304));
        assert_eq!(f.user_agent.as_deref(), Some("Mozilla/5.0"));
        assert_eq!(f.duration_ms, Some(2.0));
        assert!(matches!(f.time, Some(Stamp::Start(_))));
        let (f, _) = parse(r#"85.181.35.98 - - [02/Oct/2017:20:22:08 +0000] "GET /favicon.ico HTTP/1.1" 304 0 "http://example.com/login" "Mozilla/5.0" 271 "Host-host1 "http://172.19.0.3:5601" 3ms"#).unwrap();
        assert_eq!(f.duration_ms, Some(3.0));
    }

    #[test]
    fn trailing_names_are_read() {
        let (f, sig) = parse(r#"10.2.0.11 - - [02/Mar/2026:02:00:00 +0000] "GET /v1/items/0 HTTP/1.1" 429 162 "-" "python-requests/2.31.0" rt=0.041 upstream_status=- ra="-" host=api.example.com"#).unwrap();
        assert_eq!(f.host.as_deref(), Some("api.example.com"));
        assert_eq!(sig.upstream_status, Some("-"));
        assert_eq!(f.duration_ms, Some(41.0));
    }

    #[test]
    fn what_is_not_clf() {
        for l in [
            "2019/01/01 10:00:00 [error] 7#7: *1 connect() failed",
            r#"2026-12-03T10:00:00.5Z 10.0.0.1 - - [03/Dec/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1"#,
            "Jan  3 09:47:02 veridian sudo: timstack : TTY=pts/6 ; COMMAND=/usr/bin/tail",
            r#"[2019-04-06T06:20:05.972Z] "- - -" 0 UF,URX 0 0 0 - "-" "-" "-" "-" "127.0.0.1:9200""#,
            r#"a b c d e "GET / HTTP/1.1" 200 1"#,
            r#"a 10.0.0.1 b c d e [01/Jan/2020:00:00:00 +0000] "GET / HTTP/1.1" 200 1"#,
            r#"web01 app 10.0.0.1 - - [01/Jan/2020:00:00:00 +0000] "GET / HTTP/1.1" 200 1"#,
            r#"1.2.3.4 - - [01/Jan/2020:00:00:00 +0000] "GET / HTTP/1.1" abc 1"#,
            r#"1.2.3.4 - - [01/Jan/2020:00:00:00 +0000] [x] "GET / HTTP/1.1" 200 1"#,
            r#"1.2.3.4 - - [01/Jan/2020:00:00:00 +0000] a b c "GET / HTTP/1.1" 200 1"#,
        ] {
            assert!(parse(l).is_err(), "{l}");
        }
    }
}

//! The borrowed record every access-log reader fills from one line, and its one conversion to
//! the normalized, redacted [`Request`].
//!
//! Readers only slice the line (values stay borrowed unless an escape had to be undone); this
//! module decides what becomes of each field, so every format normalizes and redacts alike.

use super::signal::{self, LogRule};
use crate::ingest::error::LineError;
use crate::ingest::har::{REQUEST_HEADER_VALUE_MAX, SUCCESS_HEADER_VALUE_MAX};
use crate::model::view::{view_suffices, RecordView, Signals};
use crate::model::{ClientHints, LayerSignal, Location, Position, Request};
use crate::redact::Redactor;
use std::borrow::Cow;
use std::sync::Arc;

/// A logged time: microseconds since the epoch, and whether the format logs the start of the
/// request or the moment the log line was written (the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stamp {
    Start(i64),
    End(i64),
}

pub type Text<'a> = Cow<'a, str>;

/// One line's fields, borrowed from the line (or from the compiled format, for names).
#[derive(Debug, Default)]
pub struct Fields<'a> {
    pub time: Option<Stamp>,
    /// A second, explicit start time (ALB `request_creation_time`): wins over `time`.
    pub start_time: Option<i64>,
    pub method: Option<Text<'a>>,
    /// The raw request line (`GET /x?y HTTP/1.1`), split only when method/target are missing.
    pub request_line: Option<Text<'a>>,
    /// An absolute URL, or the request target (path and query).
    pub target: Option<Text<'a>>,
    /// Path without the query (`$uri`, CloudFront `cs-uri-stem`).
    pub path: Option<Text<'a>>,
    /// Query without `?` (`$args`, `cs-uri-query`).
    pub query: Option<Text<'a>>,
    pub scheme: Option<Text<'a>>,
    pub host: Option<Text<'a>>,
    pub status: Option<u16>,
    pub duration_ms: Option<f64>,
    /// The peer address (may carry `:port`, may be a list in odd formats).
    pub client_ip: Option<Text<'a>>,
    pub forwarded_for: Option<Text<'a>>,
    pub user_agent: Option<Text<'a>>,
    /// Basic-auth user name (`$remote_user`, `%u`, `cs-username`).
    pub remote_user: Option<Text<'a>>,
    /// A logged caller identity (Kong consumer, an API key someone logs): fingerprinted.
    pub identity: Option<Text<'a>>,
    pub request_id: Option<Text<'a>>,
    pub request_headers: Vec<(Text<'a>, Text<'a>)>,
    pub response_headers: Vec<(Text<'a>, Text<'a>)>,
    /// Variables the reader does not interpret, kept by name.
    pub extra: Vec<(Text<'a>, Text<'a>)>,
    /// The format's own verdict about the producer, when the reader decided it.
    pub signal: Option<LayerSignal>,
    /// The response body's logged length in bytes: 0 says the body was empty; otherwise it
    /// was not recorded (an access log never holds the body).
    pub body_bytes: Option<u64>,
    /// Names of `name=value` fields after the layout that no rule reads (`us=429` for
    /// `$upstream_status` under a name of the config's choosing), at most [`UNREAD_MAX`]:
    /// a line that says nobody answered says these were there.
    pub unread: Vec<Text<'a>>,
}

/// How many unread field names a line keeps for its evidence.
pub const UNREAD_MAX: usize = 6;

/// A log value that means "nothing": nginx/Envoy/ALB/W3C write `-`, JSON writes `""`.
/// What a line that names no answering layer adds when it had fields no rule read: their
/// names (only names made of identifier characters are echoed) and the flag that reads them.
pub fn unread_hint(names: &[Text<'_>]) -> String {
    let shown: Vec<&str> = names
        .iter()
        .map(|n| n.as_ref())
        .filter(|n| {
            n.len() <= 32
                && n.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
        })
        .collect();
    let list = if shown.is_empty() {
        String::new()
    } else {
        format!(" ({})", shown.join(", "))
    };
    format!(
        "; {}{list}: if one is the upstream's status, pass your log format with --log-format to read it",
        crate::model::UNREAD_FIELDS
    )
}

pub fn present(v: &str) -> bool {
    !(v.is_empty() || v == "-")
}

/// Most bytes of a URL kept (longer ones are cut, after redaction of a larger window).
pub const URL_MAX: usize = 8 * 1024;
/// Most bytes of a user agent kept.
pub const USER_AGENT_MAX: usize = 512;
/// Most bytes of a method (garbage request lines can be long).
const METHOD_MAX: usize = 32;

/// Split `GET /x HTTP/1.1` into method and target. A line that is not a request line (an
/// empty `""`, TLS bytes sent to a plain port) gives neither.
pub fn split_request_line(line: &str) -> (Option<&str>, Option<&str>) {
    let line = ascii_trim_fast(line);
    // Byte loops, not memchr: the method is a few bytes long and ` HTTP/1.1` ends the line,
    // shorter than memchr's setup.
    let Some(sp) = line.bytes().position(|b| b == b' ') else {
        return (None, None);
    };
    let (method, rest) = (&line[..sp], &line[sp + 1..]);
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
        return (None, None);
    }
    let target = match rest.bytes().rposition(|b| b == b' ') {
        Some(i) if rest[i + 1..].starts_with("HTTP/") => &rest[..i],
        _ => rest,
    };
    (Some(method), Some(ascii_trim_fast(target)))
}

/// `s.trim()`, skipped when both ends are visible ASCII (nothing to trim, the common case):
/// `trim` decodes a char at each end to ask about Unicode whitespace.
#[inline]
fn ascii_trim_fast(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// The address part of `ip:port`, `[v6]:port` or a bare address.
pub fn strip_port(addr: &str) -> &str {
    let a = addr.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    if memchr::memchr(b':', a.as_bytes()).is_none() {
        return a; // the common bare IPv4 address, without the reverse char search
    }
    match a.rsplit_once(':') {
        // One colon = IPv4 (or host) with a port; several = a bare IPv6 address.
        Some((ip, port))
            if !ip.contains(':')
                && !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit()) =>
        {
            ip
        }
        _ => a,
    }
}

/// What turning a record into a [`Request`] needs to know about the format.
pub struct Convert<'c> {
    pub source: &'c Arc<str>,
    pub redactor: &'c Redactor,
    /// The format's verdict for lines that carry no signal of their own (the format's
    /// `*.no-field` rule), or `None` when the reader always decides.
    pub no_signal: Option<&'static LogRule>,
    /// Redacted user agents already seen in this block of lines, if the caller keeps one.
    pub agents: Option<&'c AgentCache>,
}

/// User agents repeat on nearly every line of a log (a few hundred clients), and redacting
/// one means scanning it for every secret shape: a worker redacts each distinct agent once per
/// block. The value is exactly what [`Redactor::text`] returns for the key with this redactor.
#[derive(Default)]
pub struct AgentCache(
    std::cell::RefCell<
        std::collections::HashMap<Box<str>, std::rc::Rc<str>, foldhash::fast::RandomState>,
    >,
);

impl AgentCache {
    /// Distinct agents kept; past it the cache starts over (memory stays bounded).
    const MAX: usize = 4096;

    fn redact(&self, red: &Redactor, ua: &str) -> String {
        self.redact_shared(red, ua).to_string()
    }

    /// The redacted agent, shared with the cache (no copy: what the event's view borrows).
    fn redact_shared(&self, red: &Redactor, ua: &str) -> std::rc::Rc<str> {
        if let Some(v) = self.0.borrow().get(ua) {
            return v.clone();
        }
        let v: std::rc::Rc<str> = red.text(ua).into();
        let mut map = self.0.borrow_mut();
        if map.len() >= Self::MAX {
            map.clear();
        }
        map.insert(ua.into(), v.clone());
        v
    }
}

fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut c = max;
    while c > 0 && !s.is_char_boundary(c) {
        c -= 1;
    }
    &s[..c]
}

fn own(t: Option<Text<'_>>) -> Option<Text<'static>> {
    t.map(|v| Cow::Owned(v.into_owned()))
}

fn own_pairs(v: Vec<(Text<'_>, Text<'_>)>) -> Vec<(Text<'static>, Text<'static>)> {
    v.into_iter()
        .map(|(n, x)| (Cow::Owned(n.into_owned()), Cow::Owned(x.into_owned())))
        .collect()
}

impl Fields<'_> {
    /// The record with every value owned (for readers whose values live in a parsed document
    /// they drop).
    pub fn into_owned(self) -> Fields<'static> {
        Fields {
            time: self.time,
            start_time: self.start_time,
            method: own(self.method),
            request_line: own(self.request_line),
            target: own(self.target),
            path: own(self.path),
            query: own(self.query),
            scheme: own(self.scheme),
            host: own(self.host),
            status: self.status,
            duration_ms: self.duration_ms,
            client_ip: own(self.client_ip),
            forwarded_for: own(self.forwarded_for),
            user_agent: own(self.user_agent),
            remote_user: own(self.remote_user),
            identity: own(self.identity),
            request_id: own(self.request_id),
            request_headers: own_pairs(self.request_headers),
            response_headers: own_pairs(self.response_headers),
            extra: own_pairs(self.extra),
            signal: self.signal,
            body_bytes: self.body_bytes,
            unread: self
                .unread
                .into_iter()
                .map(|n| Cow::Owned(n.into_owned()))
                .collect(),
        }
    }
}

impl<'a> Fields<'a> {
    /// The URL as the client asked for it (unredacted): absolute when the log has a host.
    pub fn raw_url(&self) -> String {
        self.raw_url_with(self.line_parts().1).into_owned()
    }

    /// The method and target of the request line, split once, when the fields that win over
    /// them (method; target or path) are not logged.
    fn line_parts(&self) -> (Option<&str>, Option<&str>) {
        let need = self.method.as_deref().filter(|m| present(m)).is_none()
            || (self.target.is_none() && self.path.is_none());
        match self.request_line.as_deref() {
            Some(l) if need => split_request_line(l),
            _ => (None, None),
        }
    }

    /// [`Fields::raw_url`], given the request line's target (from [`Fields::line_parts`]);
    /// borrowed from the line when the log gives it whole (no string per line).
    fn raw_url_with<'s>(&'s self, line_target: Option<&'s str>) -> Cow<'s, str> {
        let from_line = || line_target;
        let target: Cow<'_, str> = match (&self.target, &self.path) {
            (Some(t), _) => Cow::Borrowed(t.as_ref()),
            (None, Some(p)) => match self.query.as_deref().filter(|q| present(q)) {
                Some(q) => Cow::Owned(format!("{p}?{}", q.strip_prefix('?').unwrap_or(q))),
                None => Cow::Borrowed(p.as_ref()),
            },
            (None, None) => Cow::Borrowed(from_line().unwrap_or("")),
        };
        if crate::http::url::has_scheme_separator(target.as_bytes()) {
            return target;
        }
        match self.host.as_deref().filter(|h| present(h)) {
            Some(host) => {
                let slash = if target.starts_with('/') || target.is_empty() {
                    ""
                } else {
                    "/"
                };
                Cow::Owned(match self.scheme.as_deref().filter(|s| present(s)) {
                    Some(s) => format!("{s}://{host}{slash}{target}"),
                    None => format!("//{host}{slash}{target}"),
                })
            }
            None => target,
        }
    }

    /// Start of the request: the explicit start, else the logged time (less the duration when
    /// the format logs the end).
    fn started(&self, duration_ms: Option<f64>) -> Option<chrono::DateTime<chrono::Utc>> {
        let start_us = match (self.start_time, self.time) {
            (Some(s), _) => Some(s),
            (None, Some(Stamp::Start(t))) => Some(t),
            // The format logs the end: the request started `duration` earlier.
            (None, Some(Stamp::End(t))) => {
                Some(t - duration_ms.map(|d| (d * 1000.0) as i64).unwrap_or(0))
            }
            (None, None) => None,
        };
        start_us.and_then(super::time::to_datetime)
    }

    /// The method, cut and upper-cased (borrowed when it already is).
    fn normalized_method<'s>(&'s self, line_method: Option<&'s str>) -> Option<Cow<'s, str>> {
        let method = self
            .method
            .as_deref()
            .filter(|m| present(m))
            .or(line_method)?;
        let m = cut(method, METHOD_MAX);
        Some(if m.bytes().any(|b| b.is_ascii_lowercase()) {
            Cow::Owned(m.to_ascii_uppercase())
        } else {
            Cow::Borrowed(m)
        })
    }

    /// The caller's address: the first X-Forwarded-For address, else the peer, without port.
    fn caller_ip(&self) -> Option<&str> {
        // The common case, a bare IPv4 peer and no X-Forwarded-For: one pass over its bytes
        // gives what the general path below would (no list, no port, nothing to trim).
        if self.forwarded_for.is_none() {
            if let Some(ip) = self.client_ip.as_deref() {
                if !ip.is_empty() && ip.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                    return Some(ip);
                }
            }
        }
        fn first_present(list: &str) -> Option<&str> {
            if memchr::memchr(b',', list.as_bytes()).is_none() {
                return Some(list.trim()).filter(|a| present(a));
            }
            list.split(',').map(str::trim).find(|a| present(a))
        }
        let xff_first = self.forwarded_for.as_deref().and_then(first_present);
        xff_first
            .or_else(|| self.client_ip.as_deref().and_then(first_present))
            .map(strip_port)
    }

    /// The caller's credential, fingerprinted: a logged identity, else the basic-auth user,
    /// else one found in the logged request headers (`raw_req`, unredacted) or the URL.
    fn credential(
        &self,
        red: &Redactor,
        raw_req: &[(&str, &str)],
        raw_url: &str,
    ) -> Option<String> {
        match (
            self.identity.as_deref().filter(|i| present(i)),
            self.remote_user.as_deref().filter(|u| present(u)),
        ) {
            (Some(id), _) => Some(red.fingerprint(id)),
            (None, Some(user)) => Some(red.fingerprint(user)),
            (None, None) => red.credential(raw_req.iter().copied(), raw_url),
        }
    }

    /// The event of this line straight from its fields, through `view`
    /// ([`crate::analyze::event::map_view`]), without building its [`Request`]: for a success
    /// with no logged headers or request id, whose view is exactly `RecordView::of` the
    /// record [`Fields::into_request`] would build (the same helpers compute both; a test holds
    /// them equal). `None`: the line needs its full record (or `view` wants it).
    pub fn map_view<T>(
        &self,
        line: usize,
        cv: &Convert<'_>,
        views: &dyn crate::ingest::Views<T>,
    ) -> Option<T> {
        let status = self.status?;
        if !view_suffices(status, false)
            || !self.request_headers.is_empty()
            || !self.response_headers.is_empty()
            || self.request_id.as_deref().is_some_and(present)
        {
            return None;
        }
        let red = cv.redactor;
        let duration_ms = self.duration_ms.filter(|d| d.is_finite() && *d >= 0.0);
        let (line_method, line_target) = self.line_parts();
        let method = self.normalized_method(line_method);
        let raw_url = self.raw_url_with(line_target);
        let credential = self.credential(red, &[], &raw_url);
        let url = redacted_url_cow(red, &raw_url);
        let (mut shared, mut owned) = (None, None);
        if let Some(u) = self.user_agent.as_deref().filter(|u| present(u)) {
            let u = cut(u, USER_AGENT_MAX);
            match cv.agents {
                Some(cache) => shared = Some(cache.redact_shared(red, u)),
                None => owned = Some(red.text(u)),
            }
        }
        let hint = views.may_view_hinted(status, false, &url)?;
        views.view_hinted(
            &RecordView {
                position: Position::Line(line),
                started: self.started(duration_ms),
                duration_ms,
                status,
                method: method.as_deref().unwrap_or(""),
                url: &url,
                client: None,
                user_agent: shared.as_deref().or(owned.as_deref()),
                client_ip: self.caller_ip(),
                pageref: None,
                origin: None,
                credential: credential.as_deref(),
                idem: 0,
                idem_is_credential: false,
                body_fingerprint: None,
                header_limit: None,
                // A line with a request id takes the full record (above).
                request_id: None,
                layer_signal: false,
                signals: Signals::default(),
            },
            hint,
        )
    }

    /// Normalize and redact into a [`Request`]. `Err` = the line has no status (unusable).
    pub fn into_request(self, line: usize, cv: &Convert<'_>) -> Result<Request, LineError> {
        let red = cv.redactor;
        let status = self
            .status
            .ok_or(LineError::Layout("no status code where the format puts it"))?;
        let mut r = Request::at(Location {
            source: cv.source.clone(),
            position: Position::Line(line),
        });
        r.status = status;
        r.duration_ms = self.duration_ms.filter(|d| d.is_finite() && *d >= 0.0);
        r.started = self.started(r.duration_ms);
        let (line_method, line_target) = self.line_parts();
        if let Some(m) = self.normalized_method(line_method) {
            r.method = m.into_owned();
        }
        let raw_url = self.raw_url_with(line_target);

        let raw_req = self.copy_headers(&mut r, red);
        // An access log never holds the body: unknown, not empty (unless its logged body
        // length or Content-Length says there was none).
        r.body_not_captured = !(200..400).contains(&status)
            && self.body_bytes != Some(0)
            && r.response_headers
                .get("content-length")
                .is_none_or(|v| v.trim() != "0");

        // Who called: the first X-Forwarded-For address, else the peer; user agent; identity.
        let ua = self
            .user_agent
            .as_deref()
            .filter(|u| present(u))
            .or_else(|| {
                raw_req
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("user-agent"))
                    .map(|(_, v)| *v)
            });
        r.client = ClientHints {
            client_ip: self.caller_ip().map(str::to_string),
            user_agent: ua.map(|u| {
                let u = cut(u, USER_AGENT_MAX);
                match cv.agents {
                    Some(cache) => cache.redact(red, u),
                    None => red.text(u),
                }
            }),
            ..ClientHints::default()
        };
        r.credential = self.credential(red, &raw_req, &raw_url);
        r.url = redacted_url(red, raw_url.into_owned());

        if status >= 400 {
            let sig = self.signal.or_else(|| {
                cv.no_signal.map(|rule| {
                    let mut s = rule.signal("no field on this line says who answered".to_string());
                    if !self.unread.is_empty() {
                        s.note.push_str(&unread_hint(&self.unread));
                    }
                    s
                })
            });
            // The field was checked against its grammar; the redactor is the second net.
            r.layer_signal = sig.map(|mut s| {
                s.field = red.text(&s.field);
                Box::new(s)
            });
        }
        r.shrink_to_fit();
        Ok(r)
    }

    /// The logged request and response headers (and the request id) onto `r`, redacted; the
    /// present request headers as written, for the client hints and the credential.
    fn copy_headers<'s>(&'s self, r: &mut Request, red: &Redactor) -> Vec<(&'s str, &'s str)> {
        let status = r.status;
        let mut raw_req: Vec<(&str, &str)> = Vec::with_capacity(self.request_headers.len());
        for (n, v) in &self.request_headers {
            if !present(v) {
                continue;
            }
            raw_req.push((n, v));
            if n.eq_ignore_ascii_case("user-agent") {
                continue; // kept once, as the client hint below
            }
            if r.idem_hash == 0
                && !v.trim().is_empty()
                && crate::http::idempotency::is_idempotency_header(n)
            {
                r.idem_hash = red.idem_hash_named(n, v, REQUEST_HEADER_VALUE_MAX);
            }
            r.request_headers
                .push_capped(n.as_ref(), red.header(n, v), REQUEST_HEADER_VALUE_MAX);
        }
        if let Some(id) = self.request_id.as_deref().filter(|i| present(i)) {
            r.request_headers.push_capped(
                "x-request-id",
                red.header("x-request-id", id),
                REQUEST_HEADER_VALUE_MAX,
            );
        }
        let cap = if (200..400).contains(&status) {
            SUCCESS_HEADER_VALUE_MAX
        } else {
            usize::MAX
        };
        for (n, v) in &self.response_headers {
            if present(v) {
                r.response_headers
                    .push_capped(n.as_ref(), red.header(n, v), cap);
            }
        }
        raw_req
    }
}

/// [`redacted_url`], borrowed back when redaction leaves the URL as it is (a view's URL).
fn redacted_url_cow<'u>(red: &Redactor, raw_url: &'u str) -> Cow<'u, str> {
    if raw_url.len() > URL_MAX {
        Cow::Owned(red.excerpt(raw_url, URL_MAX))
    } else {
        red.url_cow(raw_url)
    }
}

/// The URL as a record keeps it: redacted, and cut past [`URL_MAX`].
fn redacted_url(red: &Redactor, raw_url: String) -> String {
    if raw_url.len() > URL_MAX {
        red.excerpt(&raw_url, URL_MAX)
    } else {
        red.url_owned(raw_url)
    }
}

/// The last status of an upstream-status list (`502, 429`, `502 : 429`, `-`); `None` when no
/// upstream answered at all.
pub fn last_upstream_status(list: &str) -> Option<u16> {
    let last = list
        .rsplit([',', ':'])
        .map(str::trim)
        .find(|s| !s.is_empty())?;
    last.parse().ok()
}

/// `field(name, value)` re-exported for readers.
pub use signal::field as evidence_field;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        assert_eq!(
            split_request_line("GET /ocelot HTTP/1.1"),
            (Some("GET"), Some("/ocelot"))
        );
        assert_eq!(
            split_request_line("GET http://x.com/a b HTTP/1.0"),
            (Some("GET"), Some("http://x.com/a b"))
        );
        assert_eq!(split_request_line(""), (None, None));
        assert_eq!(split_request_line("\\x16\\x03\\x01"), (None, None));
        assert_eq!(
            split_request_line("PATCHp /products/42 HTTP/1.1").0,
            Some("PATCHp")
        );
    }

    proptest::proptest! {
        /// The byte-loop split is the `split_once` / `rsplit_once` one it replaced.
        #[test]
        fn request_lines_split_as_with_str_methods(line in "[ A-Za-z/.?=_-]{0,30}( HTTP/1\\.[01])?\\s?") {
            fn by_str(line: &str) -> (Option<&str>, Option<&str>) {
                let line = line.trim();
                let Some((method, rest)) = line.split_once(' ') else {
                    return (None, None);
                };
                if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
                    return (None, None);
                }
                let target = match rest.rsplit_once(' ') {
                    Some((t, proto)) if proto.starts_with("HTTP/") => t,
                    _ => rest,
                };
                (Some(method), Some(target.trim()))
            }
            proptest::prop_assert_eq!(split_request_line(&line), by_str(&line));
        }
    }

    proptest::proptest! {
        /// The colon search is `contains("://")`.
        #[test]
        fn scheme_separator_is_contains(s in "[:/a-z?]{0,20}") {
            proptest::prop_assert_eq!(crate::http::url::has_scheme_separator(s.as_bytes()), s.contains("://"));
        }
    }

    #[test]
    fn ports_and_lists() {
        assert_eq!(strip_port("192.168.131.39:2817"), "192.168.131.39");
        assert_eq!(strip_port("[2001:db8::1]:443"), "2001:db8::1");
        assert_eq!(strip_port("2001:db8::1"), "2001:db8::1");
        assert_eq!(strip_port("10.0.0.1"), "10.0.0.1");
        assert_eq!(last_upstream_status("502, 429"), Some(429));
        assert_eq!(last_upstream_status("200, 203"), Some(203));
        assert_eq!(last_upstream_status("502 : 429"), Some(429));
        assert_eq!(last_upstream_status("200, -"), None);
        assert_eq!(last_upstream_status("-"), None);
        assert_eq!(last_upstream_status(""), None);
    }

    #[test]
    fn urls_are_composed_from_what_the_format_logs() {
        let mut f = Fields {
            request_line: Some("GET /a?b=1 HTTP/1.1".into()),
            ..Fields::default()
        };
        assert_eq!(f.raw_url(), "/a?b=1");
        f.host = Some("api.example.com".into());
        assert_eq!(f.raw_url(), "//api.example.com/a?b=1");
        f.scheme = Some("https".into());
        assert_eq!(f.raw_url(), "https://api.example.com/a?b=1");
        let g = Fields {
            path: Some("/index.html".into()),
            query: Some("-".into()),
            host: Some("d111111abcdef8.cloudfront.net".into()),
            ..Fields::default()
        };
        assert_eq!(g.raw_url(), "//d111111abcdef8.cloudfront.net/index.html");
        let h = Fields {
            target: Some("https://example.com".into()),
            host: Some("other".into()),
            ..Fields::default()
        };
        assert_eq!(h.raw_url(), "https://example.com");
    }

    #[test]
    fn end_times_become_start_times() {
        let red = Redactor::from_key_material(b"k");
        let src: Arc<str> = Arc::from("t.log");
        let cv = Convert {
            source: &src,
            redactor: &red,
            no_signal: None,
            agents: None,
        };
        let f = Fields {
            time: Some(Stamp::End(10_000_000)),
            duration_ms: Some(250.0),
            status: Some(200),
            ..Fields::default()
        };
        let r = f.into_request(1, &cv).unwrap();
        assert_eq!(r.started.unwrap().timestamp_micros(), 9_750_000);
        assert!(Fields::default().into_request(2, &cv).is_err());
    }
}

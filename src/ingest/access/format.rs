//! Format strings compiled once into a matcher: an nginx `log_format` body (`$var`, with
//! `escape=default|json|none`), an Envoy format string (`%OPERATOR(args):len%`) or an Apache
//! `LogFormat` (`%h %l %u %t \"%r\" %>s %b`), told apart by syntax.
//!
//! A compiled format is a list of literals and fields. Matching a line walks it once: a field
//! ends where the next literal starts (found with `memchr` on its first byte), so a line costs
//! one pass and no allocation; a value is decoded only when it holds an escape. Lists
//! (`$upstream_status` = `502, 429 : 200`) continue past `, ` and ` : ` although the format
//! separates fields with spaces — the reason a naive split breaks on ingress-nginx lines [N5].
//! Variables the reader does not know are kept by name (`Fields::extra`), never an error.

use super::escape;
use super::record::{Fields, Stamp, Text};
use super::time;
use crate::ingest::error::LineError;
use memchr::memchr;
use std::borrow::Cow;

mod compile;
pub(crate) use compile::header_name;
pub use compile::{
    compile_apache, compile_envoy, compile_nginx, compile_user, detect_syntax, nginx_meaning,
    Meaning,
};

/// Which family's syntax the format string is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Nginx,
    Envoy,
    Apache,
}

impl Syntax {
    pub fn as_str(&self) -> &'static str {
        match self {
            Syntax::Nginx => "nginx",
            Syntax::Envoy => "Envoy",
            Syntax::Apache => "Apache",
        }
    }
}

/// How values are escaped in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape {
    /// `\xXX` (nginx default) or `\"`/`\\`/`\xhh` (Apache): undone by `escape::backslash`.
    Backslash,
    /// nginx `escape=json`.
    Json,
    /// nginx `escape=none`, Envoy.
    None,
}

/// What a variable means to the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// CLF time written at the end of the request (nginx `$time_local`).
    TimeLocalEnd,
    /// CLF time of the request's start (Traefik CLF).
    TimeLocalStart,
    /// ISO 8601 at the end (nginx `$time_iso8601`).
    TimeIsoEnd,
    /// Epoch seconds.millis at the end (nginx `$msec`).
    MsecEnd,
    /// Apache `%t`: `[CLF]` with its brackets, the request's start.
    BracketedStart,
    /// Any time shape, request start (Envoy `%START_TIME%`, Apache `%{...}t`).
    AnyStart,
    AnyEnd,
    RequestLine,
    Method,
    Target,
    Path,
    Query,
    Host,
    Scheme,
    Status,
    DurationSeconds,
    DurationMs,
    DurationUs,
    RemoteAddr,
    ForwardedFor,
    UserAgent,
    RemoteUser,
    Identity,
    RequestId,
    /// A logged request header (name in `LogFormat::names`).
    ReqHeader(u16),
    /// A logged response header (`$sent_http_*`, `$upstream_http_*`, `%RESP(...)%`, `%{...}o`).
    RespHeader(u16),
    UpstreamStatus,
    UpstreamAddr,
    LimitReqStatus,
    LimitConnStatus,
    ResponseFlags,
    ResponseDetails,
    UpstreamHost,
    UpstreamServiceTime,
    /// The response body's length in bytes (nginx `$body_bytes_sent`, Envoy `%BYTES_SENT%`,
    /// Apache `%B`); Apache `%b` writes `-` for none, which is zero here.
    BodyBytes,
    /// Another byte count (`$bytes_sent`, `$request_length`, `%I`, `%O`, `%BYTES_RECEIVED%`):
    /// not needed, one token.
    Bytes,
    /// Known and not needed (protocol, referer).
    Ignore,
    /// Unknown to us: kept by name.
    Other(u16),
}

impl Var {
    /// A value that is one token (no space in it, a list aside): a field at the end of a
    /// format ends where the token does, so what a line adds after the format is seen as
    /// such (the `k=v` fields after an Apache `%b`) instead of read as the field's value.
    pub fn is_token(&self) -> bool {
        matches!(
            self,
            Var::Status
                | Var::BodyBytes
                | Var::Bytes
                | Var::DurationSeconds
                | Var::DurationMs
                | Var::DurationUs
                | Var::MsecEnd
                | Var::RequestId
                | Var::UpstreamStatus
                | Var::UpstreamAddr
                | Var::LimitReqStatus
                | Var::LimitConnStatus
                | Var::ResponseFlags
                | Var::ResponseDetails
                | Var::UpstreamHost
                | Var::UpstreamServiceTime
                | Var::Scheme
                | Var::Method
        )
    }

    /// Signal inputs of the format-string family.
    pub fn is_signal(&self) -> bool {
        matches!(
            self,
            Var::UpstreamStatus
                | Var::LimitReqStatus
                | Var::LimitConnStatus
                | Var::ResponseFlags
                | Var::ResponseDetails
                | Var::UpstreamHost
        )
    }
}

#[derive(Debug, Clone)]
enum Item {
    Lit(Box<str>),
    Field {
        var: Var,
        /// Index into `names`: the variable as written, for messages and `extra`.
        name: u16,
        /// A comma/colon list (`$upstream_*`).
        list: bool,
    },
}

/// A compiled format.
#[derive(Debug, Clone)]
pub struct LogFormat {
    pub syntax: Syntax,
    pub escape: Escape,
    /// A short description for summaries ("nginx combined", "custom --log-format (nginx)").
    pub label: String,
    items: Vec<Item>,
    /// Variable names as written, and header names for `ReqHeader`/`RespHeader`.
    names: Vec<Box<str>>,
    /// A layout with a hand-written matcher for its plain lines (see [`Shape`]).
    shape: Shape,
}

/// Layouts matched by straight-line code instead of the walk over `items`. The walk stays the
/// reference: the straight-line matcher takes only lines without a backslash, writes nothing
/// unless the whole line matches, and hands every other line to the walk (whose error
/// messages it does not repeat).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Walk,
    /// nginx `combined`: `$remote_addr - $remote_user [$time_local] "$request" $status
    /// $body_bytes_sent "$http_referer" "$http_user_agent"`.
    Combined,
}

/// The fields and the literal after each of `combined`, as compiled.
const COMBINED_SHAPE: [(Var, &str); 8] = [
    (Var::RemoteAddr, " - "),
    (Var::RemoteUser, " ["),
    (Var::TimeLocalEnd, "] \""),
    (Var::RequestLine, "\" "),
    (Var::Status, " "),
    (Var::BodyBytes, " \""),
    (Var::Ignore, "\" \""),
    (Var::UserAgent, "\""),
];

fn shape_of(items: &[Item]) -> Shape {
    let combined = items.len() == 2 * COMBINED_SHAPE.len()
        && items
            .chunks_exact(2)
            .zip(COMBINED_SHAPE)
            .all(|(pair, (want, lit))| {
                matches!(
                    pair,
                    [Item::Field { var, list: false, .. }, Item::Lit(l)] if *var == want && &**l == lit
                )
            });
    if combined {
        Shape::Combined
    } else {
        Shape::Walk
    }
}

/// The signal inputs of one line (borrowed), read by the family's rule.
#[derive(Debug, Default)]
pub struct SignalInputs<'a> {
    pub upstream_status: Option<&'a str>,
    pub upstream_addr: Option<&'a str>,
    pub limit_req_status: Option<&'a str>,
    pub limit_conn_status: Option<&'a str>,
    pub response_flags: Option<&'a str>,
    pub response_details: Option<&'a str>,
    pub upstream_host: Option<&'a str>,
    pub upstream_service_time: Option<&'a str>,
}

/// Why a `--log-format` (or a built-in format) cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("the format is empty")]
    Empty,
    #[error("no variables found: expected an nginx log_format ($remote_addr ...), an Envoy format string (%START_TIME% ...) or an Apache LogFormat (%h %l %u %t ...)")]
    NoSyntax,
    #[error("no {0} variables in the format")]
    NoVariables(&'static str),
    #[error("two variables with nothing between them (before {0}): the log cannot be split there")]
    Adjacent(String),
    #[error("too many variables")]
    TooManyVariables,
    /// An opening `${` or `%{` without its `}`.
    #[error("{0}")]
    Unclosed(&'static str),
    #[error("%{0}(... has no closing `)`")]
    UnclosedOperator(String),
    #[error("a `%` at the end of the format")]
    TrailingPercent,
}

/// Why a line did not match, without any of the line's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub reason: LineError,
}

/// A matched line.
pub struct Matched<'a> {
    pub fields: Fields<'a>,
    pub signal: SignalInputs<'a>,
    /// The line went on after the format's end (tolerated; sniffing prefers exact matches).
    pub trailing: bool,
    /// Where the format's end is in the line.
    pub end: usize,
}

impl LogFormat {
    /// Does the format log any field that says who answered?
    pub fn has_signal_vars(&self) -> bool {
        self.items
            .iter()
            .any(|i| matches!(i, Item::Field { var, .. } if var.is_signal()))
    }

    /// Does the format log a time at all?
    pub fn has_time(&self) -> bool {
        self.items.iter().any(|i| {
            matches!(
                i,
                Item::Field {
                    var: Var::TimeLocalEnd
                        | Var::TimeLocalStart
                        | Var::TimeIsoEnd
                        | Var::MsecEnd
                        | Var::BracketedStart
                        | Var::AnyStart
                        | Var::AnyEnd,
                    ..
                }
            )
        })
    }

    /// How many fields the format has (sniffing prefers the richest format that matches).
    pub fn field_count(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::Field { .. }))
            .count()
    }

    /// The variables the reader does not interpret, by name.
    pub fn unknown_names(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter_map(|i| match i {
                Item::Field {
                    var: Var::Other(n), ..
                } => Some(&*self.names[*n as usize]),
                _ => None,
            })
            .collect()
    }

    fn name(&self, i: u16) -> &str {
        &self.names[i as usize]
    }

    /// A value with its escapes undone; `plain` = the line holds no backslash (no format here
    /// escapes without one), so the value is borrowed without a scan of its own.
    fn decode<'a>(&self, v: &'a str, plain: bool) -> Text<'a> {
        if plain {
            return Cow::Borrowed(v);
        }
        match self.escape {
            Escape::Backslash => escape::backslash(v),
            Escape::Json => escape::json(v),
            Escape::None => Cow::Borrowed(v),
        }
    }

    /// Match one line (no trailing newline).
    pub fn parse<'a>(&'a self, line: &'a str) -> Result<Matched<'a>, Mismatch> {
        let mut f = Fields::default();
        let mut sig = SignalInputs::default();
        let end = self.parse_into(line, &mut f, &mut sig)?;
        Ok(Matched {
            fields: f,
            signal: sig,
            trailing: end < line.len(),
            end,
        })
    }

    /// [`LogFormat::parse`] into the caller's (default) record and signal inputs, which a
    /// reader of many lines keeps in place instead of moving a `Matched` per line. `Ok` = where
    /// the format ends in the line (the line's length when nothing follows it).
    pub fn parse_into<'a>(
        &'a self,
        line: &'a str,
        f: &mut Fields<'a>,
        sig: &mut SignalInputs<'a>,
    ) -> Result<usize, Mismatch> {
        let b = line.as_bytes();
        // One scan of the line for the escape character instead of one per decoded value.
        let plain = if self.escape == Escape::None && self.shape == Shape::Walk {
            true
        } else {
            let clean = memchr(b'\\', b).is_none();
            if clean && self.shape == Shape::Combined {
                if let Some(end) = parse_combined(line, f) {
                    return Ok(end);
                }
            }
            clean || self.escape == Escape::None
        };
        self.walk_into(line, plain, f, sig)
    }

    /// [`LogFormat::parse_into`] by the walk over the items, the reference for every layout.
    fn walk_into<'a>(
        &'a self,
        line: &'a str,
        plain: bool,
        f: &mut Fields<'a>,
        sig: &mut SignalInputs<'a>,
    ) -> Result<usize, Mismatch> {
        let b = line.as_bytes();
        let mut pos = 0usize;
        let n = self.items.len();
        let mut i = 0;
        while i < n {
            match &self.items[i] {
                Item::Lit(l) => {
                    if !starts(&b[pos..], l.as_bytes()) {
                        return Err(self.mismatch(i, pos == b.len()));
                    }
                    pos += l.len();
                }
                Item::Field { var, name, list } => {
                    // `field_end` only answers where the next literal starts, so that literal
                    // is matched with the field: `after` = its length, skipped below.
                    let (end, after) = match self.items.get(i + 1) {
                        // The format's last field: a token ends at a space (what follows is
                        // the line's own addition), anything else runs to the line's end.
                        None if var.is_token() => (
                            self.field_end(b, pos, b" ", *list, *var, false)
                                .unwrap_or(b.len()),
                            None,
                        ),
                        None => (b.len(), None),
                        Some(Item::Lit(l)) => {
                            let last = i + 2 == n;
                            match self.field_end(b, pos, l.as_bytes(), *list, *var, last) {
                                Some(e) => (e, Some(l.len())),
                                None => return Err(self.mismatch(i + 1, true)),
                            }
                        }
                        // Compile rejects adjacent fields.
                        Some(Item::Field { .. }) => (b.len(), None),
                    };
                    let value = &line[pos..end];
                    self.assign(*var, *name, value, plain, f, sig)
                        .map_err(|expected| Mismatch {
                            reason: LineError::Field {
                                field: self.describe_field(*name),
                                expected,
                            },
                        })?;
                    pos = end;
                    if let Some(len) = after {
                        pos += len;
                        i += 1;
                    }
                }
            }
            i += 1;
        }
        Ok(pos)
    }

    fn describe_field(&self, name: u16) -> String {
        let n = self.name(name);
        match self.syntax {
            Syntax::Nginx => format!("${n}"),
            Syntax::Envoy => format!("%{n}%"),
            Syntax::Apache => format!("%{n}"),
        }
    }

    fn mismatch(&self, item: usize, ended: bool) -> Mismatch {
        let fields_before = self.items[..item]
            .iter()
            .filter(|x| matches!(x, Item::Field { .. }))
            .count();
        let after = self.items[..item].iter().rev().find_map(|x| match x {
            Item::Field { name, .. } => Some(self.describe_field(*name)),
            _ => None,
        });
        let lit = match &self.items[item] {
            Item::Lit(l) => format!("`{}`", l.escape_debug()),
            Item::Field { name, .. } => self.describe_field(*name),
        };
        let place = match after {
            Some(a) => format!(
                "after {a} (field {fields_before} of {})",
                self.field_count()
            ),
            None => "at the start of the line".to_string(),
        };
        Mismatch {
            reason: if ended {
                LineError::EndsBefore { what: lit, place }
            } else {
                LineError::Expected { what: lit, place }
            },
        }
    }

    /// Where a field that is followed by literal `lit` ends.
    fn field_end(
        &self,
        b: &[u8],
        from: usize,
        lit: &[u8],
        list: bool,
        var: Var,
        lit_is_last: bool,
    ) -> Option<usize> {
        // Apache `%t` writes its own brackets: `[10/Oct/2000:13:55:36 -0700]`.
        if var == Var::BracketedStart && b.get(from) == Some(&b'[') {
            let close = memchr(b']', &b[from..])? + from + 1;
            return starts(&b[close..], lit).then_some(close);
        }
        // The line's closing literal: the value runs to it, whatever it holds (an unescaped
        // quote in an Envoy user agent).
        if lit_is_last {
            let trimmed = b.len();
            if trimmed >= from + lit.len() && starts(&b[trimmed - lit.len()..trimmed], lit) {
                return Some(trimmed - lit.len());
            }
            // Tolerate trailing fields after the format's end: fall through to a forward scan.
        }
        let quote = lit[0] == b'"';
        let mut p = from;
        loop {
            let at = p + find_byte(lit[0], &b[p..])?;
            let ok = starts(&b[at..], lit) && !(quote && escaped(b, from, at));
            if ok {
                if list && lit[0] == b' ' {
                    // `a, b` and `a : b` keep the list going.
                    if at > from && b[at - 1] == b',' {
                        p = at + 1;
                        continue;
                    }
                    if b[at..].starts_with(b" : ") {
                        p = at + 3;
                        continue;
                    }
                }
                return Some(at);
            }
            p = at + 1;
        }
    }

    fn assign<'a>(
        &'a self,
        var: Var,
        name: u16,
        v: &'a str,
        plain: bool,
        f: &mut Fields<'a>,
        sig: &mut SignalInputs<'a>,
    ) -> Result<(), &'static str> {
        let missing = v.is_empty() || v == "-";
        match var {
            Var::ReqHeader(h) => {
                if !missing {
                    f.request_headers
                        .push((Cow::Borrowed(self.name(h)), self.decode(v, plain)));
                }
            }
            Var::RespHeader(h) => {
                if !missing {
                    f.response_headers
                        .push((Cow::Borrowed(self.name(h)), self.decode(v, plain)));
                }
            }
            Var::Other(_) => {
                if !missing {
                    f.extra
                        .push((Cow::Borrowed(self.name(name)), self.decode(v, plain)));
                }
            }
            _ => assign_var(var, v, || self.decode(v, plain), f, sig)?,
        }
        Ok(())
    }
}

/// Put one value where `var` says (every variable but the named ones: headers and `Other`,
/// which the caller names). `decoded` undoes the value's escapes, called only for text kept.
/// Shared by compiled formats and logs that carry the names themselves (JSON, `key=value`).
pub(crate) fn assign_var<'a>(
    var: Var,
    v: &'a str,
    decoded: impl FnOnce() -> Text<'a>,
    f: &mut Fields<'a>,
    sig: &mut SignalInputs<'a>,
) -> Result<(), &'static str> {
    let missing = v.is_empty() || v == "-";
    let slot = match var {
        Var::RemoteAddr if !address_like(v) => return Err("an address"),
        Var::Method => &mut f.method,
        Var::Target => &mut f.target,
        Var::Path => &mut f.path,
        Var::Query => &mut f.query,
        Var::Host => &mut f.host,
        Var::Scheme => &mut f.scheme,
        Var::RemoteAddr => &mut f.client_ip,
        Var::ForwardedFor => &mut f.forwarded_for,
        Var::UserAgent => &mut f.user_agent,
        Var::RemoteUser => &mut f.remote_user,
        Var::Identity => &mut f.identity,
        Var::RequestId => &mut f.request_id,
        Var::Status => {
            // `-`: the server logged no status (Traefik with no response written, Apache
            // with none set): a request without a response, status 0.
            f.status = Some(if missing {
                0
            } else {
                parse_status(v).ok_or("a status code")?
            });
            return Ok(());
        }
        Var::RequestLine => {
            f.request_line = Some(decoded());
            return Ok(());
        }
        Var::BodyBytes => {
            f.body_bytes = body_bytes(v);
            return Ok(());
        }
        Var::Ignore | Var::Bytes | Var::ReqHeader(_) | Var::RespHeader(_) | Var::Other(_) => {
            return Ok(())
        }
        _ if assign_signal(var, v, sig) => return Ok(()),
        _ => {
            return if missing {
                Ok(())
            } else {
                assign_time(var, v, f)
            }
        }
    };
    if !missing {
        *slot = Some(decoded());
    }
    Ok(())
}

/// The fields a family's signal rule reads, kept as written.
#[inline]
fn assign_signal<'a>(var: Var, v: &'a str, sig: &mut SignalInputs<'a>) -> bool {
    let slot = match var {
        Var::UpstreamStatus => &mut sig.upstream_status,
        Var::UpstreamAddr => &mut sig.upstream_addr,
        Var::LimitReqStatus => &mut sig.limit_req_status,
        Var::LimitConnStatus => &mut sig.limit_conn_status,
        Var::ResponseFlags => &mut sig.response_flags,
        Var::ResponseDetails => &mut sig.response_details,
        Var::UpstreamHost => &mut sig.upstream_host,
        Var::UpstreamServiceTime => &mut sig.upstream_service_time,
        _ => return false,
    };
    *slot = Some(v);
    true
}

/// A time or a duration (`v` is not `-`).
#[inline]
fn assign_time(var: Var, v: &str, f: &mut Fields<'_>) -> Result<(), &'static str> {
    match var {
        Var::TimeLocalEnd | Var::TimeLocalStart => {
            let t = time::clf(v.as_bytes()).ok_or("a Common Log Format time")?;
            f.time = Some(if var == Var::TimeLocalEnd {
                Stamp::End(t)
            } else {
                Stamp::Start(t)
            });
        }
        Var::TimeIsoEnd => {
            f.time = Some(Stamp::End(
                time::iso(v.as_bytes()).ok_or("an ISO 8601 time")?,
            ));
        }
        Var::MsecEnd => {
            f.time = Some(Stamp::End(
                time::epoch_seconds(v.as_bytes()).ok_or("epoch seconds")?,
            ));
        }
        Var::BracketedStart => {
            let inner = v
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .unwrap_or(v);
            let t = time::any(inner.as_bytes()).ok_or("a time")?;
            f.time = Some(Stamp::Start(t));
        }
        Var::AnyStart | Var::AnyEnd => {
            let t = time::any(v.as_bytes()).ok_or("a time")?;
            f.time = Some(if var == Var::AnyStart {
                Stamp::Start(t)
            } else {
                Stamp::End(t)
            });
        }
        Var::DurationSeconds | Var::DurationMs | Var::DurationUs => {
            let x: f64 = v.trim().parse().map_err(|_| "a duration")?;
            let scale = match var {
                Var::DurationSeconds => 1000.0,
                Var::DurationMs => 1.0,
                _ => 0.001,
            };
            if x >= 0.0 {
                f.duration_ms = Some(x * scale);
            }
        }
        _ => {}
    }
    Ok(())
}

/// An address field of more than one token is a list of IP addresses (`$remote_addr` logging
/// an X-Forwarded-For list, a proxy's address after it); a token that is not one (a virtual
/// host, a time a wrapper put first) belongs to another layout.
pub(crate) fn address_like(v: &str) -> bool {
    !v.contains(' ')
        || v.split(' ').all(|t| {
            let t = t.trim_matches(|c| c == '"' || c == ',');
            t.is_empty()
                || t == "-"
                || t.eq_ignore_ascii_case("unknown")
                || t.parse::<std::net::IpAddr>().is_ok()
                || t.parse::<std::net::SocketAddr>().is_ok()
        })
}

/// Where literal `lit` first starts in `b` at or after `from` (the walk's `field_end` on a
/// line without a backslash, where no quote is escaped and no field is a list).
#[inline(always)]
fn find_lit(b: &[u8], from: usize, lit: &[u8]) -> Option<usize> {
    let mut p = from;
    loop {
        let at = p + find_byte(lit[0], &b[p..])?;
        if starts(&b[at..], lit) {
            return Some(at);
        }
        p = at + 1;
    }
}

/// A value that is logged as absent.
#[inline]
fn missing(v: &[u8]) -> bool {
    v.is_empty() || v == b"-"
}

/// nginx `combined` on a line without a backslash, as the walk over its items reads it (see
/// [`Shape`]): the same field ends and values, all borrowed. `None` = the walk answers (a
/// literal not found, a time or status that does not parse); then nothing has been written.
fn parse_combined<'a>(line: &'a str, f: &mut Fields<'a>) -> Option<usize> {
    let b = line.as_bytes();
    let addr_end = find_lit(b, 0, b" - ")?;
    let user = addr_end + 3;
    let user_end = find_lit(b, user, b" [")?;
    let time = user_end + 2;
    let time_end = find_lit(b, time, b"] \"")?;
    let req = time_end + 3;
    let req_end = find_lit(b, req, b"\" ")?;
    let status = req_end + 2;
    let status_end = status + find_byte(b' ', &b[status..])?;
    let bytes = status_end + 1;
    let bytes_end = find_lit(b, bytes, b" \"")?;
    let referer = bytes_end + 2;
    let referer_end = find_lit(b, referer, b"\" \"")?;
    let agent = referer_end + 3;
    // The closing quote ends the line, else the first quote after the agent's start.
    let agent_end = if b.len() > agent && b[b.len() - 1] == b'"' {
        b.len() - 1
    } else {
        agent + find_byte(b'"', &b[agent..])?
    };
    let t = &b[time..time_end];
    let t = if missing(t) {
        None
    } else {
        Some(Stamp::End(time::clf(t)?))
    };
    let st = &line[status..status_end];
    let st = if missing(st.as_bytes()) {
        Some(0)
    } else {
        Some(parse_status(st)?)
    };
    // Every end above is at an ASCII byte or the line's end: all char boundaries.
    let text = |from: usize, to: usize| {
        let v = &line[from..to];
        (!missing(v.as_bytes())).then_some(Cow::Borrowed(v))
    };
    if !address_like(&line[..addr_end]) {
        return None;
    }
    if let Some(v) = text(0, addr_end) {
        f.client_ip = Some(v);
    }
    if let Some(v) = text(user, user_end) {
        f.remote_user = Some(v);
    }
    if t.is_some() {
        f.time = t;
    }
    f.request_line = Some(Cow::Borrowed(&line[req..req_end]));
    f.status = st;
    f.body_bytes = body_bytes(&line[bytes..bytes_end]);
    if let Some(v) = text(agent, agent_end) {
        f.user_agent = Some(v);
    }
    Some(agent_end + 1)
}

/// A logged body length: bytes, or `-` for none (Apache `%b`).
fn body_bytes(v: &str) -> Option<u64> {
    if v == "-" {
        Some(0)
    } else {
        v.trim().parse().ok()
    }
}

/// A 3-digit status (Envoy logs 0 for "no response").
pub fn parse_status(v: &str) -> Option<u16> {
    let b = v.as_bytes();
    if b.is_empty() || b.len() > 3 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // At most three digits: no overflow, and what `str::parse` gives (tested below).
    Some(b.iter().fold(0u16, |n, d| n * 10 + u16::from(d - b'0')))
}

/// `b.starts_with(lit)` for the short literals of a format (`" "`, `" [`): a byte loop, where
/// the slice comparison calls `memcmp` once per field of every line.
#[inline]
fn starts(b: &[u8], lit: &[u8]) -> bool {
    b.len() >= lit.len() && b.iter().zip(lit).all(|(x, y)| x == y)
}

/// The first `c` in `hay`, eight bytes at a time for the first 64 (most fields of a line are
/// an address, a `-`, a status: memchr's dispatch and setup cost more than their scan), then
/// by memchr.
#[inline]
fn find_byte(c: u8, hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pat = LO * c as u64;
    let head = &hay[..hay.len().min(64)];
    let mut words = head.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let x = u64::from_le_bytes(a) ^ pat;
        // A zero byte of `x` is a `c`; the lowest flag marks the first one exactly.
        let zero = x.wrapping_sub(LO) & !x & HI;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if let Some(i) = words.remainder().iter().position(|&x| x == c) {
        return Some(at + i);
    }
    at += words.remainder().len();
    memchr(c, &hay[at..]).map(|i| at + i)
}

/// Is the byte at `at` escaped by an odd run of backslashes (not counting before `from`)?
fn escaped(b: &[u8], from: usize, at: usize) -> bool {
    let mut k = 0;
    while at > from + k && b[at - 1 - k] == b'\\' {
        k += 1;
    }
    k % 2 == 1
}

#[cfg(test)]
mod tests;

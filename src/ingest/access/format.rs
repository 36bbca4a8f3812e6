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
        Var::TimeLocalEnd | Var::TimeLocalStart => {
            if !missing {
                let t = time::clf(v.as_bytes()).ok_or("a Common Log Format time")?;
                f.time = Some(if var == Var::TimeLocalEnd {
                    Stamp::End(t)
                } else {
                    Stamp::Start(t)
                });
            }
            return Ok(());
        }
        Var::TimeIsoEnd => {
            if !missing {
                f.time = Some(Stamp::End(
                    time::iso(v.as_bytes()).ok_or("an ISO 8601 time")?,
                ));
            }
            return Ok(());
        }
        Var::MsecEnd => {
            if !missing {
                f.time = Some(Stamp::End(
                    time::epoch_seconds(v.as_bytes()).ok_or("epoch seconds")?,
                ));
            }
            return Ok(());
        }
        Var::BracketedStart => {
            if !missing {
                let inner = v
                    .strip_prefix('[')
                    .and_then(|x| x.strip_suffix(']'))
                    .unwrap_or(v);
                let t = time::any(inner.as_bytes()).ok_or("a time")?;
                f.time = Some(Stamp::Start(t));
            }
            return Ok(());
        }
        Var::AnyStart | Var::AnyEnd => {
            if !missing {
                let t = time::any(v.as_bytes()).ok_or("a time")?;
                f.time = Some(if var == Var::AnyStart {
                    Stamp::Start(t)
                } else {
                    Stamp::End(t)
                });
            }
            return Ok(());
        }
        Var::DurationSeconds | Var::DurationMs | Var::DurationUs => {
            if !missing {
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
            return Ok(());
        }
        Var::RequestLine => {
            f.request_line = Some(decoded());
            return Ok(());
        }
        Var::UpstreamStatus => {
            sig.upstream_status = Some(v);
            return Ok(());
        }
        Var::UpstreamAddr => {
            sig.upstream_addr = Some(v);
            return Ok(());
        }
        Var::LimitReqStatus => {
            sig.limit_req_status = Some(v);
            return Ok(());
        }
        Var::LimitConnStatus => {
            sig.limit_conn_status = Some(v);
            return Ok(());
        }
        Var::ResponseFlags => {
            sig.response_flags = Some(v);
            return Ok(());
        }
        Var::ResponseDetails => {
            sig.response_details = Some(v);
            return Ok(());
        }
        Var::UpstreamHost => {
            sig.upstream_host = Some(v);
            return Ok(());
        }
        Var::UpstreamServiceTime => {
            sig.upstream_service_time = Some(v);
            return Ok(());
        }
        Var::BodyBytes => {
            f.body_bytes = body_bytes(v);
            return Ok(());
        }
        Var::Ignore | Var::Bytes | Var::ReqHeader(_) | Var::RespHeader(_) | Var::Other(_) => {
            return Ok(())
        }
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
    };
    if !missing {
        *slot = Some(decoded());
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

// ------------------------------------------------------------------------------------------
// Compiling

struct Builder {
    items: Vec<Item>,
    names: Vec<Box<str>>,
    lit: String,
}

impl Builder {
    fn new() -> Self {
        Builder {
            items: Vec::new(),
            names: Vec::new(),
            lit: String::new(),
        }
    }
    fn name(&mut self, n: &str) -> u16 {
        if let Some(i) = self.names.iter().position(|x| &**x == n) {
            return i as u16;
        }
        self.names.push(n.into());
        (self.names.len() - 1) as u16
    }
    fn flush(&mut self) {
        if !self.lit.is_empty() {
            self.items
                .push(Item::Lit(std::mem::take(&mut self.lit).into_boxed_str()));
        }
    }
    fn field(&mut self, written: &str, var: Var, list: bool) -> Result<(), FormatError> {
        self.flush();
        if matches!(self.items.last(), Some(Item::Field { .. })) {
            return Err(FormatError::Adjacent(written.to_string()));
        }
        if self.names.len() >= u16::MAX as usize - 2 {
            return Err(FormatError::TooManyVariables);
        }
        let name = self.name(written);
        self.items.push(Item::Field { var, name, list });
        Ok(())
    }
    fn finish(
        mut self,
        syntax: Syntax,
        escape: Escape,
        label: String,
    ) -> Result<LogFormat, FormatError> {
        self.flush();
        if !self.items.iter().any(|i| matches!(i, Item::Field { .. })) {
            return Err(FormatError::NoVariables(syntax.as_str()));
        }
        Ok(LogFormat {
            syntax,
            escape,
            label,
            shape: shape_of(&self.items),
            items: self.items,
            names: self.names,
        })
    }
}

/// A header name from a variable suffix: `retry_after` → `retry-after`.
pub(crate) fn header_name(suffix: &str) -> String {
    suffix.replace('_', "-").to_ascii_lowercase()
}

/// Words that make an unknown variable a caller identity (fingerprinted, never shown).
fn is_identity_name(n: &str) -> bool {
    let l = n.to_ascii_lowercase();
    [
        "consumer",
        "api_key",
        "apikey",
        "api-key",
        "client_id",
        "key_id",
        "user_id",
        "tenant_id",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// What an nginx variable name means, without the compiled format's name table (header
/// names are given as written after their prefix). `true` = a comma/colon list.
pub enum Meaning<'n> {
    Var(Var),
    /// `$http_NAME`: a request header (the part after the prefix, `_` for `-`).
    ReqHeader(&'n str),
    /// `$sent_http_NAME` / `$upstream_http_NAME`: a response header.
    RespHeader(&'n str),
    Other,
}

/// The nginx variable `name` (the one table for `log_format` and for logs that carry the
/// names themselves: JSON with `escape=json`, `key=value`).
pub fn nginx_meaning(name: &str) -> (Meaning<'_>, bool) {
    let v = match name {
        "remote_addr" | "proxy_protocol_addr" | "realip_remote_addr" => Var::RemoteAddr,
        "remote_user" => Var::RemoteUser,
        "time_local" => Var::TimeLocalEnd,
        "time_iso8601" => Var::TimeIsoEnd,
        "msec" => Var::MsecEnd,
        // Not nginx variables: names of toomany's built-in layouts (Traefik CLF).
        "time_local_start" => Var::TimeLocalStart,
        "duration_ms" => Var::DurationMs,
        "request" => Var::RequestLine,
        "request_method" => Var::Method,
        "request_uri" => Var::Target,
        "uri" | "document_uri" => Var::Path,
        "args" | "query_string" => Var::Query,
        "host" | "http_host" => Var::Host,
        "scheme" => Var::Scheme,
        "status" => Var::Status,
        "request_time" => Var::DurationSeconds,
        "http_user_agent" => Var::UserAgent,
        "http_x_forwarded_for" | "proxy_add_x_forwarded_for" => Var::ForwardedFor,
        "request_id" | "req_id" | "http_x_request_id" => Var::RequestId,
        "upstream_status" => return (Meaning::Var(Var::UpstreamStatus), true),
        "upstream_addr" => return (Meaning::Var(Var::UpstreamAddr), true),
        // Traefik CLF's `"<Traefik_server_URL>"` (a name of our own, see `nginx::TRAEFIK_CLF`):
        // the upstream server the request went to, `-` when none was picked.
        "traefik_server_url" => Var::UpstreamHost,
        "limit_req_status" => Var::LimitReqStatus,
        "limit_conn_status" => Var::LimitConnStatus,
        "body_bytes_sent" => Var::BodyBytes,
        "bytes_sent" | "request_length" => Var::Bytes,
        "connection"
        | "connection_requests"
        | "server_protocol"
        | "http_referer"
        | "pipe"
        | "remote_port"
        | "server_port"
        | "gzip_ratio"
        | "ssl_protocol"
        | "ssl_cipher"
        | "server_addr"
        | "request_completion" => Var::Ignore,
        n if n.starts_with("upstream_http_") => {
            return (Meaning::RespHeader(&n["upstream_http_".len()..]), false)
        }
        n if n.starts_with("sent_http_") => {
            return (Meaning::RespHeader(&n["sent_http_".len()..]), false)
        }
        n if n.starts_with("upstream_") => return (Meaning::Var(Var::Ignore), true),
        n if n.starts_with("http_") => return (Meaning::ReqHeader(&n["http_".len()..]), false),
        n if is_identity_name(n) => Var::Identity,
        _ => return (Meaning::Other, false),
    };
    (Meaning::Var(v), false)
}

fn nginx_var(b: &mut Builder, name: &str) -> Result<(Var, bool), FormatError> {
    let (meaning, list) = nginx_meaning(name);
    let v = match meaning {
        Meaning::Var(v) => v,
        Meaning::ReqHeader(h) => Var::ReqHeader(b.name(&header_name(h))),
        Meaning::RespHeader(h) => Var::RespHeader(b.name(&header_name(h))),
        Meaning::Other => Var::Other(b.name(name)),
    };
    Ok((v, list))
}

/// Compile an nginx `log_format` body (`$remote_addr - ...`), variables `$name` or `${name}`.
pub fn compile_nginx(
    body: &str,
    escape: Escape,
    label: impl Into<String>,
) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '$' {
            b.lit.push(c);
            continue;
        }
        let rest = &body[i + 1..];
        let (name, used) = if let Some(inner) = rest.strip_prefix('{') {
            match inner.find('}') {
                Some(e) => (&inner[..e], e + 2),
                None => return Err(FormatError::Unclosed("`${` without a closing `}`")),
            }
        } else {
            let e = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            (&rest[..e], e)
        };
        if name.is_empty() {
            b.lit.push('$');
            continue;
        }
        for _ in 0..used {
            it.next();
        }
        let (var, list) = nginx_var(&mut b, name)?;
        b.field(name, var, list)?;
    }
    b.finish(Syntax::Nginx, escape, label.into())
}

fn envoy_var(b: &mut Builder, op: &str, arg: Option<&str>) -> Var {
    let arg_main = arg.map(|a| a.split('?').next().unwrap_or(a).trim());
    match (op, arg_main) {
        ("START_TIME", None) => Var::AnyStart,
        // `%START_TIME(%s.%3f)%` and strftime shapes: read by shape.
        ("START_TIME", Some(_)) => Var::AnyStart,
        ("RESPONSE_CODE", _) => Var::Status,
        ("RESPONSE_FLAGS", _) | ("RESPONSE_FLAGS_LONG", _) => Var::ResponseFlags,
        ("RESPONSE_CODE_DETAILS", _) => Var::ResponseDetails,
        ("UPSTREAM_HOST", _) => Var::UpstreamHost,
        ("DURATION", _) => Var::DurationMs,
        ("DOWNSTREAM_REMOTE_ADDRESS", _)
        | ("DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT", _)
        | ("DOWNSTREAM_DIRECT_REMOTE_ADDRESS", _)
        | ("DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT", _) => Var::RemoteAddr,
        ("REQ", Some(h)) => match h.to_ascii_lowercase().as_str() {
            ":method" => Var::Method,
            ":path" | "x-envoy-original-path" => Var::Target,
            ":authority" | "host" => Var::Host,
            ":scheme" | "x-forwarded-proto" => Var::Scheme,
            "user-agent" => Var::UserAgent,
            "x-forwarded-for" => Var::ForwardedFor,
            "x-request-id" => Var::RequestId,
            l => Var::ReqHeader(b.name(l)),
        },
        ("RESP", Some(h)) => match h.to_ascii_lowercase().as_str() {
            "x-envoy-upstream-service-time" => Var::UpstreamServiceTime,
            l => Var::RespHeader(b.name(l)),
        },
        ("BYTES_SENT", _) => Var::BodyBytes,
        ("BYTES_RECEIVED", _) => Var::Bytes,
        ("PROTOCOL", _)
        | ("CONNECTION_TERMINATION_DETAILS", _)
        | ("UPSTREAM_TRANSPORT_FAILURE_REASON", _) => Var::Ignore,
        (o, _) if is_identity_name(o) => Var::Identity,
        (o, _) => Var::Other(b.name(o)),
    }
}

/// Compile an Envoy format string (`[%START_TIME%] "%REQ(:METHOD)% ..."`).
pub fn compile_envoy(body: &str, label: impl Into<String>) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            let ch = body[i..].chars().next().unwrap_or('%');
            b.lit.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let start = i + 1;
        let name_end = start
            + bytes[start..]
                .iter()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b'_')
                .count();
        if name_end == start {
            b.lit.push('%');
            i += 1;
            continue;
        }
        let op = &body[start..name_end];
        let mut j = name_end;
        let mut arg = None;
        if bytes.get(j) == Some(&b'(') {
            // Arguments may hold `%` (`%START_TIME(%s.%3f)%`): find the matching `)`.
            let mut depth = 0usize;
            let mut k = j;
            while k < bytes.len() {
                match bytes[k] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            if k >= bytes.len() {
                return Err(FormatError::UnclosedOperator(op.to_string()));
            }
            arg = Some(&body[j + 1..k]);
            j = k + 1;
        }
        if bytes.get(j) == Some(&b':') {
            j += 1 + bytes[j + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
        }
        if bytes.get(j) != Some(&b'%') {
            // Not an operator after all: literal text.
            b.lit.push_str(&body[i..j.min(bytes.len())]);
            i = j;
            continue;
        }
        let written = &body[start..j];
        let var = envoy_var(&mut b, op, arg);
        b.field(written, var, false)?;
        i = j + 1;
    }
    b.finish(Syntax::Envoy, Escape::None, label.into())
}

fn apache_var(b: &mut Builder, directive: char, arg: Option<&str>, final_status: bool) -> Var {
    match (directive, arg) {
        ('h', _) | ('a', _) => Var::RemoteAddr,
        ('u', _) => Var::RemoteUser,
        ('t', None) => Var::BracketedStart,
        ('t', Some(a)) => {
            if a.starts_with("end:") {
                Var::AnyEnd
            } else {
                Var::AnyStart
            }
        }
        ('r', _) => Var::RequestLine,
        ('s', _) => {
            if final_status {
                Var::Status
            } else {
                Var::Ignore
            }
        }
        ('D', _) => Var::DurationUs,
        ('T', Some("ms")) => Var::DurationMs,
        ('T', Some("us")) => Var::DurationUs,
        ('T', _) => Var::DurationSeconds,
        ('m', _) => Var::Method,
        ('U', _) => Var::Path,
        ('q', _) => Var::Query,
        ('v', _) | ('V', _) => Var::Host,
        ('L', _) => Var::RequestId,
        ('e', Some(e)) if e.eq_ignore_ascii_case("UNIQUE_ID") => Var::RequestId,
        ('i', Some(h)) => match h.to_ascii_lowercase().as_str() {
            "user-agent" => Var::UserAgent,
            "x-forwarded-for" => Var::ForwardedFor,
            "x-request-id" => Var::RequestId,
            "host" => Var::Host,
            "referer" => Var::Ignore,
            l => Var::ReqHeader(b.name(l)),
        },
        ('o', Some(h)) => Var::RespHeader(b.name(&h.to_ascii_lowercase())),
        ('b', _) | ('B', _) => Var::BodyBytes,
        ('I', _) | ('O', _) | ('S', _) => Var::Bytes,
        ('l', _) | ('H', _) | ('p', _) | ('P', _) | ('k', _) | ('X', _) => Var::Ignore,
        (d, a) => {
            let n = match a {
                Some(a) => format!("{{{a}}}{d}"),
                None => d.to_string(),
            };
            if a.is_some_and(is_identity_name) {
                Var::Identity
            } else {
                Var::Other(b.name(&n))
            }
        }
    }
}

/// Compile an Apache `LogFormat` (`%h %l %u %t \"%r\" %>s %b`).
pub fn compile_apache(body: &str, label: impl Into<String>) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let has_final = body.contains("%>s");
    let mut i = 0;
    while i < body.len() {
        let c = body[i..].chars().next().unwrap_or('%');
        if c != '%' {
            b.lit.push(c);
            i += c.len_utf8();
            continue;
        }
        let rest = &body[i + 1..];
        if rest.starts_with('%') {
            b.lit.push('%');
            i += 2;
            continue;
        }
        // Modifiers: `<` / `>` and status conditions (`!200,304`).
        let rb = rest.as_bytes();
        let mut k = 0;
        let mut final_mod = false;
        while k < rb.len() && (b"<>!,".contains(&rb[k]) || rb[k].is_ascii_digit()) {
            final_mod |= rb[k] == b'>';
            k += 1;
        }
        let mut arg = None;
        if rb.get(k) == Some(&b'{') {
            let close = rest[k..]
                .find('}')
                .ok_or(FormatError::Unclosed("`%{` without a closing `}`"))?;
            arg = Some(&rest[k + 1..k + close]);
            k += close + 1;
        }
        let Some(d) = rest[k..].chars().next() else {
            return Err(FormatError::TrailingPercent);
        };
        let var = if d == '^' {
            // `%^ti` / `%^to`: trailers, kept by name.
            k += rest[k..].chars().take(3).map(char::len_utf8).sum::<usize>();
            Var::Other(b.name(&rest[..k]))
        } else {
            k += d.len_utf8();
            apache_var(&mut b, d, arg, final_mod || !has_final)
        };
        b.field(&rest[..k], var, false)?;
        i += 1 + k;
    }
    b.finish(Syntax::Apache, Escape::Backslash, label.into())
}

// ------------------------------------------------------------------------------------------
// `--log-format`: paste the directive from your config.

/// Compile what a user pasted: an nginx `log_format` (with or without `log_format NAME
/// [escape=...]`, quoted segments, `;`), an Envoy format string (optionally `format: "..."`
/// YAML), or an Apache `LogFormat "..." nickname` — told apart by syntax.
pub fn compile_user(spec: &str) -> Result<LogFormat, FormatError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(FormatError::Empty);
    }
    let syntax = detect_syntax(spec)?;
    match syntax {
        Syntax::Nginx => {
            let (body, escape) = nginx_body(spec);
            compile_nginx(&body, escape, "custom --log-format (nginx)")
        }
        Syntax::Envoy => {
            let body = envoy_body(spec);
            compile_envoy(&body, "custom --log-format (Envoy)")
        }
        Syntax::Apache => {
            let body = apache_body(spec);
            compile_apache(&body, "custom --log-format (Apache)")
        }
    }
}

/// Which syntax a format string is in.
pub fn detect_syntax(spec: &str) -> Result<Syntax, FormatError> {
    let b = spec.as_bytes();
    let mut nginx = 0;
    let mut envoy = 0;
    let mut apache = 0;
    for i in 0..b.len() {
        let next = b.get(i + 1).copied().unwrap_or(0);
        match b[i] {
            b'$' if next.is_ascii_alphabetic() || next == b'_' || next == b'{' => nginx += 1,
            b'%' => {
                let run = b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b'_')
                    .count();
                let after = b.get(i + 1 + run).copied().unwrap_or(0);
                if run >= 2 && (after == b'%' || after == b'(') {
                    envoy += 1;
                } else if next.is_ascii_alphabetic() || b"<>{!".contains(&next) {
                    apache += 1;
                }
            }
            _ => {}
        }
    }
    if envoy > 0 && envoy >= nginx {
        Ok(Syntax::Envoy)
    } else if nginx > 0 {
        Ok(Syntax::Nginx)
    } else if apache > 0 {
        Ok(Syntax::Apache)
    } else {
        Err(FormatError::NoSyntax)
    }
}

/// The segments of quoted strings (`'a' "b"`), unquoted; text outside quotes is kept too.
fn unquote_segments(s: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut any_quoted = false;
    let mut it = s.chars().peekable();
    let mut outside = String::new();
    while let Some(c) = it.next() {
        match quote {
            Some(q) if c == '\\' => {
                // nginx config escapes inside quotes: \' \" \\.
                match it.peek() {
                    Some(&n) if n == q || n == '\\' => {
                        out.push(n);
                        it.next();
                    }
                    _ => out.push('\\'),
                }
            }
            Some(q) if c == q => quote = None,
            Some(_) => out.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any_quoted = true;
            }
            None => outside.push(c),
        }
    }
    if any_quoted {
        out
    } else {
        outside
    }
}

/// `log_format main escape=json '...' '...';` → (body, escape).
fn nginx_body(spec: &str) -> (String, Escape) {
    let mut s = spec.trim().trim_end_matches(';').trim();
    let mut escape = Escape::Backslash;
    if let Some(rest) = s.strip_prefix("log_format") {
        s = rest.trim_start();
        // The format's name.
        if !s.starts_with('\'') && !s.starts_with('"') {
            s = s
                .split_once(char::is_whitespace)
                .map(|(_, r)| r.trim_start())
                .unwrap_or("");
        }
    }
    for (word, e) in [
        ("escape=json", Escape::Json),
        ("escape=none", Escape::None),
        ("escape=default", Escape::Backslash),
    ] {
        if let Some(rest) = s.strip_prefix(word) {
            escape = e;
            s = rest.trim_start();
        }
    }
    let starts_quoted = s.starts_with('\'') || s.starts_with('"');
    let body = if starts_quoted {
        unquote_segments(s)
    } else {
        s.to_string()
    };
    (body, escape)
}

/// `format: "[%START_TIME%] ...\n"` → the string, without the `\n` terminator.
fn envoy_body(spec: &str) -> String {
    let mut s = spec.trim();
    for key in ["format:", "text_format:", "inline_string:", "inlineString:"] {
        if let Some(r) = s.strip_prefix(key) {
            s = r.trim();
        }
    }
    let mut body = if (s.starts_with('"') && s.ends_with('"') && s.len() >= 2)
        || (s.starts_with('\'') && s.ends_with('\'') && s.len() >= 2)
    {
        let inner = &s[1..s.len() - 1];
        inner.replace("\\\"", "\"")
    } else {
        s.to_string()
    };
    for end in ["\\n", "\n"] {
        if let Some(b) = body.strip_suffix(end) {
            body = b.to_string();
        }
    }
    body.trim_end_matches(['\r', '\n']).to_string()
}

/// `LogFormat "%h %l ..." combined` → the format string with `\"` unescaped.
fn apache_body(spec: &str) -> String {
    let mut s = spec.trim();
    if let Some(r) = s.strip_prefix("LogFormat") {
        s = r.trim();
    } else if let Some(r) = s.strip_prefix("CustomLog") {
        // CustomLog path "format"
        s = r.trim();
        if let Some(q) = s.find('"') {
            s = &s[q..];
        }
    }
    if let Some(inner) = s.strip_prefix('"') {
        // Up to the closing unescaped quote; a nickname may follow.
        let b = inner.as_bytes();
        let mut end = inner.len();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == b'"' {
                end = i;
                break;
            }
            i += 1;
        }
        return inner[..end.min(inner.len())]
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
    }
    s.replace("\\\"", "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMBINED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;

    /// `parse_into` (straight-line `combined` first) against the walk over the items alone:
    /// the same answer, fields and signal inputs; how they differ, when they do.
    fn walk_differs(fmt: &LogFormat, line: &str) -> Option<String> {
        let (mut f1, mut s1) = (Fields::default(), SignalInputs::default());
        let r1 = fmt.parse_into(line, &mut f1, &mut s1);
        let plain = fmt.escape == Escape::None || memchr(b'\\', line.as_bytes()).is_none();
        let (mut f2, mut s2) = (Fields::default(), SignalInputs::default());
        let r2 = fmt.walk_into(line, plain, &mut f2, &mut s2);
        if r1 != r2 {
            return Some(format!("{line:?}: {r1:?} vs {r2:?}"));
        }
        if r1.is_ok() {
            let (a, b) = (format!("{f1:?} {s1:?}"), format!("{f2:?} {s2:?}"));
            if a != b {
                return Some(format!("{line:?}:\n{a}\n{b}"));
            }
        }
        None
    }

    #[test]
    fn status_is_what_str_parse_gives() {
        for v in [
            "", "0", "7", "00", "042", "200", "429", "999", "1000", "-", "2a", " 20", "+20",
        ] {
            let want = if v.is_empty() || v.len() > 3 || !v.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                v.parse::<u16>().ok()
            };
            assert_eq!(parse_status(v), want, "{v:?}");
        }
        for n in 0..1000u16 {
            for s in [format!("{n}"), format!("{n:03}")] {
                assert_eq!(parse_status(&s), Some(n));
            }
        }
    }

    #[test]
    fn only_combined_takes_the_straight_line_matcher() {
        use super::super::nginx;
        assert_eq!(nginx::combined().shape, Shape::Combined);
        assert_eq!(
            compile_nginx(COMBINED, Escape::Json, "t").unwrap().shape,
            Shape::Combined
        );
        for f in [
            nginx::main(),
            nginx::upstreaminfo(),
            nginx::traefik_clf(),
            nginx::apache_common(),
            nginx::apache_combined(),
        ] {
            assert_eq!(f.shape, Shape::Walk, "{}", f.label);
        }
        let other = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_x_api""#;
        assert_eq!(
            compile_nginx(other, Escape::Backslash, "t").unwrap().shape,
            Shape::Walk
        );
    }

    #[test]
    fn straight_line_combined_matches_the_walk_on_samples() {
        let lines = [
            r#"85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh)""#,
            r#"10.0.3.37 - bob [01/May/2024:00:00:00 +0000] "GET /v1/x?y=1 HTTP/1.1" 429 0 "https://a.example/" "curl/8.0" trailing"#,
            r#"- - - [-] "" - - "-" "-""#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET /a" b" HTTP/1.1" 200 1 "-" "ua "quoted" x""#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" ""#,
            r#"1.2.3.4 - - [not a time] "GET / HTTP/1.1" 200 1 "-" "ua""#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 2000 1 "-" "ua""#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET /\x22 HTTP/1.1" 200 1 "-" "u\"a""#,
            r#"1.2.3.4 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200"#,
            r#"1.2.3.4 -  - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "é""#,
            "",
            "-",
        ];
        for fmt in [
            compile_nginx(COMBINED, Escape::Backslash, "t").unwrap(),
            compile_nginx(COMBINED, Escape::Json, "t").unwrap(),
            compile_nginx(COMBINED, Escape::None, "t").unwrap(),
        ] {
            for line in lines {
                assert_eq!(walk_differs(&fmt, line), None);
            }
        }
    }

    proptest::proptest! {
        /// Straight-line `combined` == the walk, on lines built from the layout's own pieces.
        #[test]
        fn straight_line_combined_is_the_walk(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(" - ".to_string()),
                    proptest::strategy::Just(" [".to_string()),
                    proptest::strategy::Just("] \"".to_string()),
                    proptest::strategy::Just("\" ".to_string()),
                    proptest::strategy::Just(" \"".to_string()),
                    proptest::strategy::Just("\" \"".to_string()),
                    proptest::strategy::Just("01/May/2024:00:00:07 +0000".to_string()),
                    proptest::strategy::Just("GET /v1/x?y=1 HTTP/1.1".to_string()),
                    proptest::strategy::Just("-".to_string()),
                    "[0-9]{1,4}",
                    r#"[ a-z0-9./\\\[\]"-]{0,12}"#,
                ],
                0..20,
            ),
            tail in proptest::option::of(r#"[ a-z"\\]{0,4}"#),
        ) {
            let mut line = parts.concat();
            if let Some(t) = tail {
                line.push_str(&t);
            }
            for esc in [Escape::Backslash, Escape::Json, Escape::None] {
                let fmt = compile_nginx(COMBINED, esc, "t").unwrap();
                if let Some(e) = walk_differs(&fmt, &line) {
                    return Err(proptest::test_runner::TestCaseError::fail(e));
                }
            }
        }

        /// Whole `combined` lines with random values, most of which match.
        #[test]
        fn straight_line_combined_is_the_walk_on_lines(
            addr in "[0-9.a-f:-]{0,15}",
            user in "[a-z -]{0,6}",
            time in proptest::prop_oneof![
                proptest::strategy::Just("01/May/2024:00:00:07 +0000".to_string()),
                proptest::strategy::Just("-".to_string()),
                "[0-9/A-Za-z: +\\]]{0,28}",
            ],
            req in r#"[A-Z]{0,4} [ /a-z?=&"\\]{0,20} HTTP/1\.[01]"#,
            status in "[0-9-]{0,4}",
            bytes in "[0-9 -]{0,5}",
            referer in "[ a-z:/.\"-]{0,12}",
            agent in r#"[ a-zA-Z/.();"\\]{0,20}"#,
            end in proptest::prop_oneof![
                proptest::strategy::Just("\"".to_string()),
                proptest::strategy::Just(String::new()),
                "\"[ a-z\"]{0,4}",
            ],
        ) {
            let line = format!("{addr} - {user} [{time}] \"{req}\" {status} {bytes} \"{referer}\" \"{agent}{end}");
            for esc in [Escape::Backslash, Escape::Json, Escape::None] {
                let fmt = compile_nginx(COMBINED, esc, "t").unwrap();
                if let Some(e) = walk_differs(&fmt, &line) {
                    return Err(proptest::test_runner::TestCaseError::fail(e));
                }
            }
        }
    }

    proptest::proptest! {
        /// The word-at-a-time search finds what memchr finds, at every length and offset.
        #[test]
        fn find_byte_is_memchr(hay in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), c in proptest::prelude::any::<u8>()) {
            proptest::prop_assert_eq!(find_byte(c, &hay), memchr(c, &hay));
        }
        #[test]
        fn find_byte_finds_spaces_in_text(hay in "[ a-z0-9./\\[\\]\"-]{0,150}") {
            for c in [b' ', b'"', b']'] {
                proptest::prop_assert_eq!(find_byte(c, hay.as_bytes()), memchr(c, hay.as_bytes()));
            }
        }
    }

    #[test]
    fn compiles_and_matches_combined() {
        let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
        // [B1] elastic/beats filebeat/module/nginx/access/test/test.log
        let line = r#"85.181.35.98 - - [07/Dec/2016:11:05:07 +0100] "GET /ocelot HTTP/1.1" 200 571 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36""#;
        let m = f.parse(line).unwrap();
        assert!(!m.trailing);
        assert_eq!(m.fields.status, Some(200));
        assert_eq!(m.fields.client_ip.as_deref(), Some("85.181.35.98"));
        assert_eq!(
            m.fields.request_line.as_deref(),
            Some("GET /ocelot HTTP/1.1")
        );
        assert!(m
            .fields
            .user_agent
            .as_deref()
            .unwrap()
            .starts_with("Mozilla/5.0"));
        assert_eq!(m.fields.time, Some(Stamp::End(1_481_105_107_000_000)));
    }

    #[test]
    fn mismatches_are_located_and_carry_no_content() {
        let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
        let e = f
            .parse(r#"10.0.0.1 - secretuser [07/Dec/2016:11:05:07 +0100] "GET /?k=SECRET HTTP/1.1" abc 5 "-" "-""#)
            .err()
            .unwrap();
        assert!(
            matches!(&e.reason, LineError::Field { field, .. } if field == "$status"),
            "{}",
            e.reason
        );
        let text = e.reason.to_string();
        assert!(text.contains("$status"), "{text}");
        assert!(!text.contains("SECRET") && !text.contains("secretuser"));
        let e = f.parse("10.0.0.1 - -").err().unwrap();
        assert!(
            matches!(e.reason, LineError::EndsBefore { .. }),
            "{}",
            e.reason
        );
        assert!(e.reason.to_string().contains("line ends"), "{}", e.reason);
        assert!(f.parse("").is_err());
    }

    #[test]
    fn lists_continue_past_commas_and_colons() {
        let f = compile_nginx(
            "$status $upstream_addr $upstream_status $request_id",
            Escape::Backslash,
            "t",
        )
        .unwrap();
        let m = f
            .parse("200 172.17.0.6:8080, 172.17.0.7:8080 : 10.0.0.9:80 502, 504 : 200 abc")
            .unwrap();
        assert_eq!(
            m.signal.upstream_addr,
            Some("172.17.0.6:8080, 172.17.0.7:8080 : 10.0.0.9:80")
        );
        assert_eq!(m.signal.upstream_status, Some("502, 504 : 200"));
        assert_eq!(m.fields.request_id.as_deref(), Some("abc"));
    }

    #[test]
    fn escapes_are_undone_per_mode() {
        let f = compile_nginx(r#""$http_user_agent" $status"#, Escape::Backslash, "t").unwrap();
        let m = f.parse(r#""a \x22b\x22" 429"#).unwrap();
        assert_eq!(m.fields.user_agent.as_deref(), Some("a \"b\""));
        let j = compile_nginx(
            r#"{"ua":"$http_user_agent","status":$status}"#,
            Escape::Json,
            "t",
        )
        .unwrap();
        let m = j.parse(r#"{"ua":"a \"b\", c","status":429}"#).unwrap();
        assert_eq!(m.fields.user_agent.as_deref(), Some("a \"b\", c"));
        assert_eq!(m.fields.status, Some(429));
    }

    #[test]
    fn headers_and_unknown_variables_are_kept_by_name() {
        let f = compile_nginx(
            "$status $upstream_http_retry_after $sent_http_x_ratelimit_remaining $http_x_api_key $ssl_client_s_dn_x",
            Escape::Backslash,
            "t",
        )
        .unwrap();
        assert_eq!(f.unknown_names(), vec!["ssl_client_s_dn_x"]);
        let m = f.parse("429 12 0 k-1 CN=x").unwrap();
        let resp: Vec<(&str, &str)> = m
            .fields
            .response_headers
            .iter()
            .map(|(a, b)| (a.as_ref(), b.as_ref()))
            .collect();
        assert_eq!(
            resp,
            vec![("retry-after", "12"), ("x-ratelimit-remaining", "0")]
        );
        assert_eq!(m.fields.request_headers[0].0, "x-api-key");
        assert_eq!(m.fields.extra[0].0, "ssl_client_s_dn_x");
    }

    #[test]
    fn an_address_holds_no_timestamp() {
        assert!(address_like("10.0.0.1"));
        assert!(address_like("10.0.0.2, 10.0.0.1, 127.0.0.1"));
        assert!(address_like("\"10.5.102.222, 199.96.1.1\" 10.2.1.185"));
        assert!(address_like("2a03:0:10ff::8000, 10.225.192.17 10.2.2.121"));
        assert!(!address_like("2026-12-03T10:00:00.5Z 10.0.0.1"));
        assert!(!address_like("2026-12-03T10:00:00.123456789+01:00 ::1"));
        assert!(!address_like("vhost1.example.org 192.168.33.1"));
    }

    #[test]
    fn adjacent_variables_are_refused() {
        assert!(compile_nginx("$status$request_time", Escape::Backslash, "t").is_err());
        assert!(compile_nginx("no vars here", Escape::Backslash, "t").is_err());
    }

    #[test]
    fn envoy_operators() {
        let f = compile_envoy(
            r#"[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% %START_TIME(%s.%3f)% %RESP(RETRY-AFTER):10% "%UPSTREAM_HOST%""#,
            "t",
        )
        .unwrap();
        let m = f
            .parse(r#"[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 429 RL 5 1460751420.310 30 "-""#)
            .unwrap();
        assert_eq!(m.fields.method.as_deref(), Some("POST"));
        assert_eq!(m.fields.target.as_deref(), Some("/api/v1/locations"));
        assert_eq!(m.fields.status, Some(429));
        assert_eq!(m.signal.response_flags, Some("RL"));
        assert_eq!(m.signal.upstream_host, Some("-"));
        assert_eq!(m.fields.duration_ms, Some(5.0));
        assert_eq!(m.fields.response_headers[0].0, "retry-after");
    }

    #[test]
    fn apache_directives() {
        let f = compile_apache(
            r#"%h %l %u %t "%r" %>s %b %D "%{User-agent}i" %{Retry-After}o"#,
            "t",
        )
        .unwrap();
        // [P3] the Apache docs' canonical example, with %D and two headers added.
        let m = f
            .parse(r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 1500 "curl/8 \"x\"" -"#)
            .unwrap();
        assert_eq!(m.fields.remote_user.as_deref(), Some("frank"));
        assert_eq!(m.fields.time, Some(Stamp::Start(971_211_336_000_000)));
        assert_eq!(m.fields.duration_ms, Some(1.5));
        assert_eq!(m.fields.user_agent.as_deref(), Some("curl/8 \"x\""));
        assert!(m.fields.response_headers.is_empty());
    }

    #[test]
    fn user_formats_are_told_apart_and_unwrapped() {
        let n = compile_user(
            "log_format main escape=json '{\"t\":\"$time_iso8601\",' '\"s\":$status}';",
        )
        .unwrap();
        assert_eq!((n.syntax, n.escape), (Syntax::Nginx, Escape::Json));
        assert!(n
            .parse(r#"{"t":"2024-01-01T00:00:00+00:00","s":429}"#)
            .is_ok());
        let e = compile_user(r#"format: "[%START_TIME%] %RESPONSE_CODE%\n""#).unwrap();
        assert_eq!(e.syntax, Syntax::Envoy);
        assert!(e.parse("[2024-01-01T00:00:00.000Z] 429").is_ok());
        let a = compile_user(r#"LogFormat "%h %l %u %t \"%r\" %>s %b" common"#).unwrap();
        assert_eq!(a.syntax, Syntax::Apache);
        assert!(a
            .parse(r#"127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326"#)
            .is_ok());
        assert!(compile_user("plain text").is_err());
        assert!(compile_user("").is_err());
    }

    #[test]
    fn never_panics_on_odd_lines() {
        let f = compile_nginx(COMBINED, Escape::Backslash, "t").unwrap();
        for line in [
            "\"",
            "[",
            "- - [",
            "a - b [c] \"",
            "é - - [07/Dec/2016:11:05:07 +0100] \"\\",
            "x - y [] \"\" 1 2 \"\" \"",
        ] {
            let _ = f.parse(line);
        }
    }
}

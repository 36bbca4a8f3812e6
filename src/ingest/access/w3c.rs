//! W3C extended logs, driven by their `#Fields:` directive: CloudFront standard logs (TAB
//! separated, percent-encoded values, `time-taken` in seconds) [F1] and IIS (space separated,
//! `+` for a space, `time-taken` in milliseconds) [W1, W2]. A new `#Fields:` line mid-file
//! changes the layout of the lines after it [W3].
//!
//! Both write `date`/`time` in UTC. CloudFront's `time` is "when the CloudFront server
//! finished responding" (the end) [F1]; IIS's is taken as the end too (entries are written
//! when the request finishes; not confirmed in the docs), so the start is `time − time-taken`.

use super::escape;
use super::format::parse_status;
use super::record::{evidence_field, present, Fields, Stamp};
use super::signal::rule;
use super::time;
use crate::ingest::error::LineError;
use std::borrow::Cow;

#[derive(Debug, Clone, Default)]
pub struct Header {
    names: Vec<String>,
    cloudfront: bool,
    date: Option<usize>,
    time: Option<usize>,
    method: Option<usize>,
    stem: Option<usize>,
    query: Option<usize>,
    /// `cs-uri` (host and path, Incapsula's export), when there is no stem.
    uri: Option<usize>,
    host: Option<usize>,
    scheme: Option<usize>,
    status: Option<usize>,
    substatus: Option<usize>,
    time_taken: Option<usize>,
    client_ip: Option<usize>,
    forwarded_for: Option<usize>,
    user_agent: Option<usize>,
    username: Option<usize>,
    request_id: Option<usize>,
    result_type: Option<usize>,
    referer: Option<usize>,
    /// Set for a documented default read without a `#Fields:` directive.
    default_label: Option<&'static str>,
    /// No fixed list: each line's fields are named by their shape ([`iis_by_shape`]).
    by_shape: bool,
}

/// IIS's default field set, written in the W3C log's field order [W1]. IIS 7's
/// `logExtFileFlags` defaults to Date, Time, ClientIP, UserName, ServerIP, Method, UriStem,
/// UriQuery, TimeTaken, HttpStatus, Win32Status, ServerPort, UserAgent, HttpSubStatus (IIS
/// configuration reference, `<siteDefaults><logFile>`, learn.microsoft.com); later versions
/// add Referer, as the files IIS 10 writes show (`#Fields:` of elastic/beats' IIS test logs).
pub const IIS_DEFAULT: &str = "date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken";
/// The same without Referer (IIS 7's default).
pub const IIS_DEFAULT_NO_REFERER: &str = "date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) sc-status sc-substatus sc-win32-status time-taken";
/// Every W3C field IIS can log, in the order they occur in a record [W1]; custom fields
/// (an `X-Forwarded-For` added in IIS Manager) come after them.
pub const IIS_ALL: &str = "date time s-sitename s-computername s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs-version cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken";
/// IIS 6's default set (IIS 6.0 `LogExtFileFlags` "internal default", learn.microsoft.com), in the log's order.
pub const IIS6_DEFAULT: &str = "date time s-sitename s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) sc-status sc-substatus sc-win32-status";
/// What Azure App Service's web server logging writes (its `#Fields:` line, as in
/// elastic/beats' `filebeat/module/iis/access/test/access-azure.log`).
pub const APP_SERVICE: &str = "date time s-sitename cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Cookie) cs(Referer) cs-host sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken";
/// CloudFront's standard log fields in their documented order (33 fields; older files have
/// the first 23 or 24, fields are only ever added at the end) [F1].
pub const CLOUDFRONT: &str = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end";

/// Split a record into `cols` (TAB-separated for CloudFront, space-separated for IIS; a field
/// that starts with `"` runs to its closing quote, as Incapsula quotes every field); returns
/// how many fields there were (at most `cols.len()`). Space-separated fields are separated by
/// runs of spaces: W3C writes `-` for an empty field, never nothing, so two spaces in a row
/// are one separator (an IIS user name logged with a leading space).
fn split<'a>(line: &'a str, cols: &mut [&'a str; 64]) -> usize {
    let sep = if line.contains('\t') { b'\t' } else { b' ' };
    let b = line.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while n < cols.len() {
        if b.get(i) == Some(&b'"') {
            let close =
                (i + 1..b.len()).find(|&j| b[j] == b'"' && (j + 1 == b.len() || b[j + 1] == sep));
            if let Some(j) = close {
                cols[n] = &line[i + 1..j];
                n += 1;
                i = j + 2;
                if j + 1 >= b.len() {
                    break;
                }
                continue;
            }
        }
        let end = memchr::memchr(sep, &b[i.min(b.len())..])
            .map(|k| i + k)
            .unwrap_or(b.len());
        cols[n] = &line[i.min(end)..end];
        n += 1;
        if end >= b.len() {
            break;
        }
        i = end + 1;
        if sep == b' ' {
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
        }
    }
    n
}

/// `cs-uri` as Incapsula writes it (`www.example.com/page.php`): the path.
fn uri_path(uri: Option<&str>) -> Option<&str> {
    let u = uri?;
    if u.starts_with('/') {
        return Some(u);
    }
    u.find('/').map(|i| &u[i..]).or(Some("/"))
}

/// ... and the host (`None` when it starts with the path).
fn uri_host(uri: Option<&str>) -> Option<&str> {
    let u = uri?;
    if u.starts_with('/') {
        return None;
    }
    Some(u.split('/').next().unwrap_or(u)).filter(|h| !h.is_empty())
}

/// The names of an IIS record's fields when no `#Fields:` directive says them: IIS writes
/// any subset of its fields, always in the one order of [`IIS_ALL`] with custom fields last
/// [W1], so the record's anchors place the rest — the date and time first, the method (a
/// token followed by a path), `sc-status sc-substatus sc-win32-status` (three numbers, the
/// first of three digits) — and how many fields stand between two anchors says which of the
/// optional ones are there.
pub fn iis_by_shape(cols: &[&str]) -> Option<String> {
    let ip = |v: &str| v.parse::<std::net::IpAddr>().is_ok();
    let num = |v: &str| !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit());
    let date = cols.first()?.as_bytes();
    if !(date.len() == 10 && date[4] == b'-' && date[7] == b'-') || cols.len() < 10 {
        return None;
    }
    let m = (2..cols.len().min(6))
        .find(|&i| is_method(cols[i]) && cols.get(i + 1).is_some_and(|p| p.starts_with('/')))?;
    let mut names: Vec<&str> = vec!["date", "time"];
    names.extend(match (m - 2, ip(cols[m - 1])) {
        (0, _) => &[][..],
        (1, true) => &["s-ip"][..],
        (1, false) => &["s-sitename"][..],
        (2, true) => &["s-sitename", "s-ip"][..],
        (2, false) => &["s-sitename", "s-computername"][..],
        _ => &["s-sitename", "s-computername", "s-ip"][..],
    });
    names.extend([
        "cs-method",
        "cs-uri-stem",
        "cs-uri-query",
        "s-port",
        "cs-username",
        "c-ip",
    ]);
    let client = m + 5;
    if !cols.get(m + 3).is_some_and(|p| num(p)) || client >= cols.len() {
        return None;
    }
    let st = (client + 1..cols.len().saturating_sub(2))
        .find(|&i| cols[i].len() == 3 && num(cols[i]) && num(cols[i + 1]) && num(cols[i + 2]))?;
    let mut between = client + 1..st;
    if cols
        .get(between.start)
        .is_some_and(|v| v.starts_with("HTTP/"))
    {
        names.push("cs-version");
        between.start += 1;
    }
    names.extend(match between.len() {
        0 => &[][..],
        1 => &["cs(User-Agent)"][..],
        2 => &["cs(User-Agent)", "cs(Referer)"][..],
        3 => &["cs(User-Agent)", "cs(Cookie)", "cs(Referer)"][..],
        4 => &["cs(User-Agent)", "cs(Cookie)", "cs(Referer)", "cs-host"][..],
        _ => return None,
    });
    names.extend(["sc-status", "sc-substatus", "sc-win32-status"]);
    let after = cols.len() - (st + 3);
    names.extend(match after {
        0 => &[][..],
        1 => &["time-taken"][..],
        2 => &["sc-bytes", "time-taken"][..],
        _ => &["sc-bytes", "cs-bytes", "time-taken"][..],
    });
    // Custom fields: an address list is the X-Forwarded-For IIS Manager adds.
    let mut custom = Vec::new();
    for (k, v) in cols.iter().enumerate().skip(st + 6) {
        let xff = v.split(',').next().is_some_and(|a| ip(a.trim()));
        custom.push(if xff {
            "X-Forwarded-For".to_string()
        } else {
            format!("x-custom-{k}")
        });
    }
    let mut out = names.join(" ");
    for c in custom {
        out.push(' ');
        out.push_str(&c);
    }
    Some(out)
}

/// An FTP command or an IIS FTP channel event where a W3C record has its method: the record
/// is an FTP session's, not an HTTP request (IIS writes FTP logs in the same W3C layout, with
/// FTP reply codes at `sc-status`).
pub fn is_ftp_command(v: &str) -> bool {
    const FTP: &[&str] = &[
        "USER", "PASS", "ACCT", "CWD", "XCWD", "CDUP", "XCUP", "PWD", "XPWD", "QUIT", "REIN",
        "PORT", "EPRT", "PASV", "EPSV", "TYPE", "STRU", "MODE", "RETR", "STOR", "STOU", "APPE",
        "ALLO", "REST", "RNFR", "RNTO", "ABOR", "DELE", "RMD", "XRMD", "MKD", "XMKD", "LIST",
        "NLST", "MLSD", "MLST", "SITE", "SYST", "STAT", "HELP", "NOOP", "FEAT", "OPTS", "AUTH",
        "PBSZ", "PROT", "CCC", "SIZE", "MDTM", "HOST", "LANG", "CLNT",
    ];
    let channel = v.ends_with("ChannelOpened") || v.ends_with("ChannelClosed");
    channel || FTP.contains(&v)
}

/// Is this unread line an IIS FTP record: a W3C date and time, then a field that is an FTP
/// channel event (`ControlChannelOpened`) or a command after port 21 or 990?
pub fn looks_like_ftp(line: &str) -> bool {
    let b = line.as_bytes();
    let dated = b.len() > 20 && b[4] == b'-' && b[7] == b'-' && b[10] == b' ' && b[13] == b':';
    if !dated {
        return false;
    }
    let cols: Vec<&str> = line.split_ascii_whitespace().collect();
    cols.iter()
        .any(|c| c.ends_with("ChannelOpened") || c.ends_with("ChannelClosed"))
        || cols
            .windows(2)
            .any(|w| matches!(w[0], "21" | "990") && is_ftp_command(w[1]))
}

/// A request method as W3C logs write it.
fn is_method(v: &str) -> bool {
    !v.is_empty() && v.len() <= 24 && v.bytes().all(super::escape::is_tchar)
}

impl Header {
    /// Before any `#Fields:` line.
    pub fn empty() -> Header {
        Header::default()
    }

    /// The names after `#Fields:`.
    pub fn parse(names: &str) -> Result<Header, LineError> {
        let names: Vec<String> = names.split_whitespace().map(str::to_string).collect();
        if names.is_empty() {
            return Err("no field names".into());
        }
        let idx = |want: &[&str]| {
            want.iter()
                .find_map(|w| names.iter().position(|n| n.eq_ignore_ascii_case(w)))
        };
        let cloudfront = names.iter().any(|n| n.starts_with("x-edge-"));
        let h = Header {
            cloudfront,
            date: idx(&["date"]),
            time: idx(&["time"]),
            method: idx(&["cs-method"]),
            stem: idx(&["cs-uri-stem"]),
            query: idx(&["cs-uri-query"]),
            uri: idx(&["cs-uri"]),
            // CloudFront: x-host-header is the viewer's Host; cs(Host) is the distribution.
            host: idx(&["x-host-header", "cs-host", "cs(host)"]),
            scheme: idx(&["cs-protocol"]),
            status: idx(&["sc-status"]),
            referer: idx(&["cs(referer)"]),
            substatus: idx(&["sc-substatus"]),
            time_taken: idx(&["time-taken"]),
            client_ip: idx(&["c-ip"]),
            forwarded_for: idx(&[
                "x-forwarded-for",
                "cs(x-forwarded-for)",
                "x-forwarded-for-ip",
            ]),
            user_agent: idx(&["cs(user-agent)"]),
            username: idx(&["cs-username"]),
            request_id: idx(&["x-edge-request-id"]),
            result_type: idx(&["x-edge-result-type"]),
            default_label: None,
            by_shape: false,
            names,
        };
        if h.status.is_none() {
            return Err("the fields have no sc-status".into());
        }
        Ok(h)
    }

    /// The layout a file without a `#Fields:` directive is read with: the documented default
    /// of its writer (see [`IIS_DEFAULT`], [`CLOUDFRONT`]).
    pub fn default_of(fields: &'static str, label: &'static str) -> Header {
        let mut h = Header::parse(fields).expect("built-in fields");
        h.default_label = Some(label);
        h
    }

    /// The documented defaults, tried on lines of a file (or a part of one) without a
    /// `#Fields:` directive: CloudFront's order, IIS's default sets, every IIS field.
    pub fn defaults() -> Vec<Header> {
        vec![
            Header::default_of(
                CLOUDFRONT,
                "CloudFront standard log (documented fields, no #Fields)",
            ),
            Header::default_of(IIS_DEFAULT, "W3C extended (IIS default fields, no #Fields)"),
            Header::default_of(
                IIS_DEFAULT_NO_REFERER,
                "W3C extended (IIS 7 default fields, no #Fields)",
            ),
            Header::default_of(IIS_ALL, "W3C extended (every IIS field, no #Fields)"),
            Header::default_of(
                APP_SERVICE,
                "W3C extended (Azure App Service fields, no #Fields)",
            ),
            Header::default_of(
                IIS6_DEFAULT,
                "W3C extended (IIS 6 default fields, no #Fields)",
            ),
            Header {
                names: vec!["(IIS fields named by their shape)".to_string()],
                status: Some(0),
                default_label: Some("W3C extended (IIS fields by shape, no #Fields)"),
                by_shape: true,
                ..Header::default()
            },
        ]
    }

    /// The field names, as the directive lists them.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// How many fields the directive names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Do these fields line up with the directive: a method where it names `cs-method`, a
    /// three-digit status at `sc-status`, a date at `date`?
    fn fits(&self, cols: &[&str]) -> bool {
        let at = |i: Option<usize>| i.and_then(|i| cols.get(i)).copied();
        let status_ok =
            at(self.status).is_some_and(|v| v.len() == 3 && v.bytes().all(|c| c.is_ascii_digit()));
        let method_ok = at(self.method).is_none_or(|m| m == "-" || is_method(m));
        let date_ok = at(self.date).is_none_or(|d| {
            let b = d.as_bytes();
            b.len() == 10 && b[4] == b'-' && b[7] == b'-' && b[0].is_ascii_digit()
        });
        // Without a directive the set is a guess: a referer is `-` or a URL, so a set that
        // puts a number there (IIS 6's set has no referer) is the wrong one.
        let referer_ok = self.default_label.is_none()
            || at(self.referer).is_none_or(|r| r == "-" || r.contains("://") || r.starts_with('/'));
        status_ok && method_ok && date_ok && referer_ok
    }

    pub fn is_cloudfront(&self) -> bool {
        self.cloudfront
    }

    pub fn label(&self) -> &'static str {
        if let Some(l) = self.default_label {
            return l;
        }
        if self.cloudfront {
            "CloudFront standard log"
        } else {
            "W3C extended (IIS)"
        }
    }

    fn decode<'a>(&self, v: &'a str) -> Cow<'a, str> {
        // CloudFront percent-encodes (and double-encodes some fields) [F1]; IIS writes `+`.
        escape::percent(v, !self.cloudfront)
    }

    pub fn parse_line<'a>(&self, line: &'a str) -> Result<Fields<'a>, LineError> {
        if self.by_shape {
            let mut cols: [&str; 64] = [""; 64];
            let n = split(line, &mut cols);
            let names = iis_by_shape(&cols[..n])
                .ok_or("not the fields of an IIS record (date, time, method, path, status)")?;
            let mut h = Header::parse(&names)?;
            h.default_label = self.default_label;
            return h.parse_line(line);
        }
        if self.names.is_empty() {
            return Err("a log line before any #Fields: directive".into());
        }
        let mut cols: [&str; 64] = [""; 64];
        let n = split(line, &mut cols);
        // A line shorter than the directive (a truncated record, a layout from before the
        // directive changed) is read with what it has, if what it has is in the right place.
        let short = n < self.names.len().min(cols.len());
        let status_at = self.status.unwrap_or(0);
        if status_at >= n {
            return Err(LineError::W3cFields {
                found: n,
                named: self.names.len(),
                status_field: status_at + 1,
            });
        }
        if !self.fits(&cols[..n]) {
            return Err(if short {
                LineError::W3cMisaligned {
                    found: n,
                    named: self.names.len(),
                }
            } else {
                "the fields do not line up with the #Fields: directive (no method or status where it names them)".into()
            });
        }
        let get = |i: Option<usize>| i.filter(|i| *i < n).map(|i| cols[i]).filter(|v| present(v));
        let status = get(self.status)
            .and_then(parse_status)
            .ok_or("sc-status is not a status")?;
        let mut f = Fields {
            status: Some(status),
            method: get(self.method).map(Cow::Borrowed),
            path: get(self.stem)
                .or_else(|| uri_path(get(self.uri)))
                .map(Cow::Borrowed),
            query: get(self.query).map(Cow::Borrowed),
            host: get(self.host)
                .or_else(|| uri_host(get(self.uri)))
                .map(Cow::Borrowed),
            scheme: get(self.scheme).map(Cow::Borrowed),
            client_ip: get(self.client_ip).map(Cow::Borrowed),
            forwarded_for: get(self.forwarded_for).map(Cow::Borrowed),
            user_agent: get(self.user_agent).map(|u| self.decode(u)),
            remote_user: get(self.username).map(Cow::Borrowed),
            request_id: get(self.request_id).map(Cow::Borrowed),
            ..Fields::default()
        };
        if let (Some(d), Some(t)) = (get(self.date), get(self.time)) {
            f.time = date_time(d, t)?.map(Stamp::End);
        }
        if let Some(tt) = get(self.time_taken).and_then(|v| v.parse::<f64>().ok()) {
            f.duration_ms = Some(if self.cloudfront { tt * 1000.0 } else { tt });
        }
        if status >= 400 {
            f.signal = Some(self.signal(status, get));
        }
        Ok(f)
    }

    /// Who answered an error, as the writer's own fields say: CloudFront's edge result type,
    /// IIS's substatus.
    fn signal<'a>(
        &self,
        status: u16,
        get: impl Fn(Option<usize>) -> Option<&'a str>,
    ) -> crate::model::LayerSignal {
        if self.cloudfront {
            let rt = get(self.result_type).unwrap_or("-");
            let field = evidence_field("x-edge-result-type", rt);
            if rt == "LimitExceeded" || rt == "CapacityExceeded" {
                rule("cloudfront.limit").signal(field)
            } else {
                rule("cloudfront.no-origin-status").signal(field)
            }
        } else {
            let sub = get(self.substatus).unwrap_or("-");
            let field = format!(
                "sc-status={status}, {}",
                evidence_field("sc-substatus", sub)
            );
            // Dynamic IP Restrictions answers with its denyAction: Forbidden (403, the
            // default), Unauthorized (401) or NotFound (404) [W6].
            if matches!(status, 401 | 403 | 404) && (sub == "501" || sub == "502") {
                rule("iis.dynamic-ip-restriction").signal(field)
            } else {
                rule("iis.application").signal(field)
            }
        }
    }
}

/// The record's `date` and `time` fields as one time (`None` when too long to be one).
fn date_time(d: &str, t: &str) -> Result<Option<i64>, LineError> {
    let mut s = [0u8; 40];
    let joined = d.len() + 1 + t.len();
    if joined > s.len() {
        return Ok(None);
    }
    s[..d.len()].copy_from_slice(d.as_bytes());
    s[d.len()] = b' ';
    s[d.len() + 1..joined].copy_from_slice(t.as_bytes());
    let at = time::iso(&s[..joined]).ok_or("date/time is not a time")?;
    Ok(Some(at))
}

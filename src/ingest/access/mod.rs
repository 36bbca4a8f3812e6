//! Access logs: nginx / Apache / ingress-nginx / Traefik CLF text, Envoy and Istio text, AWS
//! ALB and Classic ELB, CloudFront and IIS W3C, HAProxy `httplog`, the JSON logs of Cloudflare
//! Logpush, Kong, Traefik, Caddy, Google Cloud load balancing and Envoy Gateway, and nginx's
//! variables in JSON or `key=value` — as they are really written: each line read by the
//! layout it fits (the file's layout first, then the others of its family), records that are
//! not HTTP requests counted and skipped, and Docker, CRI, syslog or log-shipper wrappers
//! removed first ([`wrap`]).
//!
//! Every line becomes the same normalized, redacted [`Request`] as a HAR entry, with one
//! addition: the line's own verdict about who produced the response ([`LayerSignal`]), which
//! the attribution engine reads before any fingerprint. Parsers are pure functions from a line
//! to a borrowed [`record::Fields`]; [`Parser::parse_line`] reads one line, [`read`] a whole
//! input ([`sniff`] chooses how, [`reader`] streams it).
//!
//! Reference: `shared/reference/logformats.md`; source tags in comments are its.
//!
//! [`LayerSignal`]: crate::model::LayerSignal

pub mod alb;
pub mod clf;
pub mod envoy;
pub mod escape;
pub mod format;
pub mod haproxy;
pub mod jsonlogs;
pub mod kv;
pub mod nginx;
mod reader;
pub mod record;
pub mod signal;
pub mod sniff;
pub mod time;
pub mod w3c;
pub mod wrap;

use super::error::LineError;
use super::skip::{Miss, NotRequest};
use super::{Format, Options, ViewMap};
use crate::model::Request;
use format::LogFormat;
use record::{Convert, Fields, Stamp};
use signal::{rule, LogRule};
use std::sync::Arc;

pub use reader::read;
pub(crate) use reader::stream;
#[cfg(test)]
use reader::{lines, BLOCK_BYTES};
pub use sniff::{
    custom_fits, json_layouts_read_most, opens_otlp_logs, sniff_json, sniff_json_lines,
    sniff_layout, sniff_reader, sniff_text, TRIED,
};

/// Longest line read; longer lines are skipped with a warning, not loaded.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// Which text family a compiled format belongs to (decides its signal rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Nginx,
    Apache,
    Envoy,
    TraefikClf,
}

/// How one input's lines are read.
#[derive(Debug, Clone)]
pub enum Kind {
    Text {
        format: Arc<LogFormat>,
        family: Family,
    },
    /// The Common Log Format family read by its shape ([`clf`]), for lines the strict layouts
    /// refuse; the family decides the rule for lines with no signal field.
    Loose(Family),
    /// nginx's variables as `key=value` pairs ([`kv`]).
    Kv,
    Alb,
    /// AWS Classic Load Balancer.
    ElbClassic,
    Haproxy,
    /// W3C extended: the `#Fields:` directive in effect (CloudFront or IIS), or its writer's
    /// documented default when the file has none.
    W3c(Arc<w3c::Header>),
    Json(jsonlogs::Vendor),
}

/// A chosen layout: how to read a line, and what to call it in the report.
#[derive(Debug, Clone)]
pub struct Parser {
    pub kind: Kind,
    /// The `--input-format` name this layout belongs to.
    pub format: Format,
    /// The layout, for the report ("ingress-nginx upstreaminfo").
    pub label: String,
}

/// What a wrapper knew about a line, used where the line itself says nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fallback<'a> {
    /// When the line was written (the end of the request).
    pub time: Option<i64>,
    /// The machine that wrote it.
    pub host: Option<&'a str>,
}

impl<'a> Fallback<'a> {
    fn apply(&self, f: &mut Fields<'a>) {
        if f.time.is_none() && f.start_time.is_none() {
            f.time = self.time.map(Stamp::End);
        }
        if f.host.is_none() {
            if let Some(h) = self.host {
                f.host = Some(std::borrow::Cow::Borrowed(h));
            }
        }
    }
}

/// The reader's context for one line: where it is and what turns it into a record.
pub struct LineCtx<'c, T> {
    pub line_no: usize,
    pub source: &'c Arc<str>,
    pub opts: &'c Options,
    pub agents: Option<&'c record::AgentCache>,
    pub map: &'c (dyn Fn(Request) -> T + Sync),
    pub view: Option<ViewMap<'c, T>>,
}

impl Parser {
    /// A parser for a compiled `--log-format`.
    pub fn custom(format: Arc<LogFormat>) -> Parser {
        let (family, fmt) = match format.syntax {
            format::Syntax::Nginx => (Family::Nginx, Format::Nginx),
            format::Syntax::Envoy => (Family::Envoy, Format::Envoy),
            format::Syntax::Apache => (Family::Apache, Format::Clf),
        };
        Parser {
            label: format.label.clone(),
            kind: Kind::Text { format, family },
            format: fmt,
        }
    }

    fn text(format: LogFormat, family: Family, fmt: Format) -> Parser {
        Parser {
            label: format.label.clone(),
            kind: Kind::Text {
                format: Arc::new(format),
                family,
            },
            format: fmt,
        }
    }

    fn plain(kind: Kind, format: Format, label: &str) -> Parser {
        Parser {
            kind,
            format,
            label: label.to_string(),
        }
    }

    fn w3c(h: w3c::Header) -> Parser {
        let format = if h.is_cloudfront() {
            Format::Cloudfront
        } else {
            Format::W3c
        };
        Parser {
            label: h.label().to_string(),
            kind: Kind::W3c(Arc::new(h)),
            format,
        }
    }

    /// The Common Log Format family read by shape, reporting as `format`.
    fn loose(family: Family, format: Format) -> Parser {
        Parser::plain(
            Kind::Loose(family),
            format,
            "Common Log Format (read by shape)",
        )
    }

    /// The rule for lines whose own fields do not decide.
    fn no_signal(&self) -> Option<&'static LogRule> {
        let family = match &self.kind {
            Kind::Text { family, .. } | Kind::Loose(family) => *family,
            Kind::Kv => Family::Nginx,
            Kind::Json(v) => return v.no_signal(),
            Kind::Alb | Kind::ElbClassic | Kind::Haproxy | Kind::W3c(_) => return None,
        };
        Some(rule(match family {
            Family::Nginx => "nginx.no-field",
            Family::Apache => "apache.no-field",
            Family::Envoy => "envoy.no-field",
            Family::TraefikClf => "traefik.no-field",
        }))
    }

    /// Do directive lines (`#Fields:`) change how later lines are read?
    pub fn is_stateful(&self) -> bool {
        matches!(self.kind, Kind::W3c(_))
    }

    /// A directive line: the parser that reads the lines after it. `None`: not a directive of
    /// this format (a comment, or not a W3C log).
    pub fn directive(&self, line: &str) -> Option<Result<Parser, LineError>> {
        let Kind::W3c(_) = &self.kind else {
            return None;
        };
        let rest = line.strip_prefix("#Fields:")?;
        Some(w3c::Header::parse(rest).map(Parser::w3c))
    }

    /// Parse one line into borrowed records (one, or several for a JSON array line);
    /// `trailing` = the line went on past the layout's end.
    pub fn parse_fields<'a>(
        &'a self,
        line: &'a str,
        each: &mut dyn FnMut(Fields<'a>, bool),
    ) -> Result<(), Miss> {
        match &self.kind {
            Kind::Text { format, family } => {
                let mut f = Fields::default();
                let mut sig = format::SignalInputs::default();
                let end = format
                    .parse_into(line, &mut f, &mut sig)
                    .map_err(|m| m.reason)?;
                finish_text(*family, line, end, &mut f, &mut sig)?;
                each(f, end < line.len());
                Ok(())
            }
            Kind::Loose(family) => {
                let (mut f, mut sig) = if *family == Family::Envoy {
                    envoy::parse_loose(line)?
                } else {
                    clf::parse(line)?
                };
                finish_text(*family, line, line.len(), &mut f, &mut sig)?;
                each(f, true);
                Ok(())
            }
            Kind::Kv => {
                let (mut f, sig) = kv::parse_line(line)?;
                f.signal = text_signal(Family::Nginx, f.status, &sig);
                each(f, false);
                Ok(())
            }
            Kind::Alb => alb::parse(line)
                .map(|(f, t)| each(f, t))
                .map_err(|e| alb::not_request(line).map_or(Miss::Unreadable(e), Miss::NotRequest)),
            Kind::ElbClassic => alb::parse_classic(line)
                .map(|(f, t)| each(f, t))
                .map_err(|e| alb::not_request(line).map_or(Miss::Unreadable(e), Miss::NotRequest)),
            Kind::Haproxy => haproxy::parse(line).map(|f| each(f, false)),
            Kind::W3c(h) => match h.parse_line(line) {
                Ok(f) if f.method.as_deref().is_some_and(w3c::is_ftp_command) => {
                    Err(Miss::NotRequest(NotRequest::FtpSession))
                }
                Ok(f) => {
                    each(f, false);
                    Ok(())
                }
                Err(_) if !h.is_cloudfront() && w3c::looks_like_ftp(line) => {
                    Err(Miss::NotRequest(NotRequest::FtpSession))
                }
                Err(e) => Err(Miss::from(e)),
            },
            Kind::Json(v) => v.parse(line, each),
        }
    }

    /// Does every line give exactly one record (all layouts but JSON, whose array lines give
    /// several)?
    pub fn one_record_per_line(&self) -> bool {
        !matches!(self.kind, Kind::Json(_))
    }

    /// Read one line into the caller's items (`out`): through the view when the record needs
    /// no full [`Request`] (see [`Fields::map_view`]), else through `map`. `fallback` fills
    /// what the line does not say (a wrapper's time and host).
    pub fn push_items<'a, T>(
        &'a self,
        line: &'a str,
        fallback: &Fallback<'a>,
        cx: &LineCtx<'_, T>,
        out: &mut Vec<T>,
    ) -> Result<(), Miss> {
        let view = if self.one_record_per_line() {
            cx.view
        } else {
            None
        };
        let cv = Convert {
            source: cx.source,
            redactor: &cx.opts.redactor,
            no_signal: self.no_signal(),
            agents: cx.agents,
        };
        let n = cx.line_no;
        let item = |mut f: Fields<'a>| -> Result<T, Miss> {
            fallback.apply(&mut f);
            if let Some(view) = view {
                if let Some(item) = f.map_view(n, &cv, view) {
                    return Ok(item);
                }
            }
            f.into_request(n, &cv).map(cx.map).map_err(Miss::from)
        };
        if let Kind::Text { format, family } = &self.kind {
            // The common layouts, parsed in place: no callback, and the record is not moved
            // (it is several hundred bytes) on its way to the view.
            let mut f = Fields::default();
            let mut sig = format::SignalInputs::default();
            let end = format
                .parse_into(line, &mut f, &mut sig)
                .map_err(|m| m.reason)?;
            finish_text(*family, line, end, &mut f, &mut sig)?;
            out.push(item(f)?);
            return Ok(());
        }
        let mut err = None;
        self.parse_fields(line, &mut |f, _| match item(f) {
            Ok(t) => out.push(t),
            Err(e) => err = Some(e),
        })?;
        err.map_or(Ok(()), Err)
    }

    /// Parse one line into normalized, redacted requests (pushed to `out`).
    pub fn parse_line(
        &self,
        line: &str,
        line_no: usize,
        source: &Arc<str>,
        opts: &Options,
        out: &mut Vec<Request>,
    ) -> Result<(), Miss> {
        self.parse_line_with(line, line_no, source, opts, None, out)
    }

    /// [`Parser::parse_line`] with a worker's cache of redacted user agents.
    pub fn parse_line_with(
        &self,
        line: &str,
        line_no: usize,
        source: &Arc<str>,
        opts: &Options,
        agents: Option<&record::AgentCache>,
        out: &mut Vec<Request>,
    ) -> Result<(), Miss> {
        let cx = LineCtx {
            line_no,
            source,
            opts,
            agents,
            map: &|r| r,
            view: None,
        };
        self.push_items(line, &Fallback::default(), &cx, out)
    }
}

/// What every text layout does after its fields are matched: `k=v` fields after the layout's
/// end read by name, Envoy's TCP records told apart, and the line's own verdict.
fn finish_text<'a>(
    family: Family,
    line: &'a str,
    end: usize,
    f: &mut Fields<'a>,
    sig: &mut format::SignalInputs<'a>,
) -> Result<(), Miss> {
    if end < line.len() && memchr::memchr(b'=', &line.as_bytes()[end..]).is_some() {
        kv::trailing(&line[end..], f, sig);
    }
    // Envoy's `tcp_proxy` logs through the same format: `"- - -" 0` [E1].
    if family == Family::Envoy
        && f.status == Some(0)
        && f.method.is_none()
        && f.target.is_none()
        && f.request_line
            .as_deref()
            .is_none_or(|r| r.trim() == "- - -")
    {
        return Err(Miss::NotRequest(NotRequest::TcpConnection));
    }
    f.signal = text_signal(family, f.status, sig);
    Ok(())
}

/// A text line's own verdict about who answered, from its signal fields (errors only). An
/// nginx variable logged by name (`upstream_status=...` after an Apache-shaped line) is read
/// as nginx's whatever layout carried it.
fn text_signal(
    family: Family,
    status: Option<u16>,
    sig: &format::SignalInputs<'_>,
) -> Option<crate::model::LayerSignal> {
    let status = status.filter(|s| *s >= 400)?;
    match family {
        Family::Nginx => nginx::signal(status, sig),
        Family::Envoy => envoy::signal_text(sig),
        Family::TraefikClf if sig.upstream_host.is_some() => traefik_clf_signal(sig),
        Family::Apache | Family::TraefikClf => {
            let nginx_fields = sig.upstream_status.is_some()
                || sig.limit_req_status.is_some()
                || sig.limit_conn_status.is_some();
            nginx_fields.then(|| nginx::signal(status, sig)).flatten()
        }
    }
}

/// Traefik's CLF names the server it forwarded to, `-` when none was picked (a middleware or
/// Traefik itself answered) [T1, T2].
fn traefik_clf_signal(sig: &format::SignalInputs<'_>) -> Option<crate::model::LayerSignal> {
    let url = sig.upstream_host?;
    if !record::present(url) {
        return Some(rule("traefik.clf-no-server").signal("server URL -".into()));
    }
    // The server's authority only: no user info, path or query reaches the report.
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    Some(rule("traefik.clf-server").signal(format!("server URL {host}")))
}

// ------------------------------------------------------------------------------------------
// Families: the layouts a line is tried with.

/// The layouts that read the same kind of line, most specific first: a line the file's
/// layout does not fit is tried with the others of its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// nginx, Apache, Traefik CLF and everything else shaped like the Common Log Format.
    Clf,
    Envoy,
    Elb,
    Haproxy,
    W3c,
    Json,
    Kv,
}

impl Parser {
    /// Which group this layout reads lines of.
    pub fn group(&self) -> Group {
        match &self.kind {
            Kind::Text {
                family: Family::Envoy,
                ..
            }
            | Kind::Loose(Family::Envoy) => Group::Envoy,
            Kind::Text { .. } | Kind::Loose(_) => Group::Clf,
            Kind::Kv => Group::Kv,
            Kind::Alb | Kind::ElbClassic => Group::Elb,
            Kind::Haproxy => Group::Haproxy,
            Kind::W3c(_) => Group::W3c,
            Kind::Json(_) => Group::Json,
        }
    }
}

/// Every layout of `group` (the W3C group's documented defaults; a file's `#Fields:`
/// directives are added by the reader as it meets them).
pub fn group_layouts(group: Group) -> Vec<Parser> {
    let mut v = Vec::new();
    match group {
        Group::Clf => {
            v.push(Parser::text(
                nginx::upstreaminfo(),
                Family::Nginx,
                Format::Nginx,
            ));
            v.push(Parser::text(nginx::main(), Family::Nginx, Format::Nginx));
            v.push(Parser::text(
                nginx::combined(),
                Family::Nginx,
                Format::Nginx,
            ));
            v.push(Parser::text(
                nginx::traefik_clf(),
                Family::TraefikClf,
                Format::Traefik,
            ));
            v.push(Parser::text(
                nginx::apache_combined(),
                Family::Apache,
                Format::Clf,
            ));
            v.push(Parser::text(
                nginx::apache_common(),
                Family::Apache,
                Format::Clf,
            ));
        }
        Group::Envoy => {
            v.push(Parser::text(envoy::istio(), Family::Envoy, Format::Envoy));
            v.push(Parser::text(envoy::default(), Family::Envoy, Format::Envoy));
            v.push(Parser::text(
                envoy::ambassador(),
                Family::Envoy,
                Format::Envoy,
            ));
        }
        Group::Elb => {
            v.push(Parser::plain(Kind::Alb, Format::Alb, "AWS ALB"));
            v.push(Parser::plain(
                Kind::ElbClassic,
                Format::Alb,
                "AWS Classic Load Balancer",
            ));
        }
        Group::Haproxy => v.push(Parser::plain(
            Kind::Haproxy,
            Format::Haproxy,
            "HAProxy httplog",
        )),
        Group::W3c => v.extend(w3c::Header::defaults().into_iter().map(Parser::w3c)),
        Group::Json => {
            for vendor in jsonlogs::Vendor::ALL {
                v.push(Parser::plain(
                    Kind::Json(*vendor),
                    vendor.format(),
                    vendor.label(),
                ));
            }
        }
        Group::Kv => v.push(Parser::plain(Kind::Kv, Format::Nginx, "nginx key=value")),
    }
    v
}

/// The layouts a line the file's layout (`first`) does not fit is tried with, in order: the
/// rest of its group, the same format's layouts in its other encoding, then (for the CLF and
/// Envoy groups) the reading by shape.
pub fn others_of(first: &Parser) -> Vec<Parser> {
    let group = first.group();
    let mut v: Vec<Parser> = group_layouts(group)
        .into_iter()
        .filter(|p| p.label != first.label)
        .collect();
    if matches!(first.kind, Kind::Loose(_)) {
        return v;
    }
    // The same product's other encoding (Envoy text among Envoy JSON, Traefik CLF among
    // Traefik JSON, and the reverse): one file may hold both.
    for g in [Group::Clf, Group::Envoy, Group::Json] {
        if g != group {
            v.extend(
                group_layouts(g)
                    .into_iter()
                    .filter(|p| p.format == first.format),
            );
        }
    }
    match group {
        Group::Clf => {
            let family = match &first.kind {
                Kind::Text { family, .. } => *family,
                _ => Family::Nginx,
            };
            v.push(Parser::loose(family, first.format));
        }
        Group::Envoy => v.push(Parser::loose(Family::Envoy, first.format)),
        _ => {}
    }
    v
}

/// How one input's lines are read: its layout, the others of the family, and the wrapper
/// removed from each line first.
#[derive(Debug, Clone)]
pub struct Reader {
    /// The layout that reads the most lines of the sample: tried first on every line.
    pub first: Parser,
    /// Tried in order on a line `first` does not read.
    pub others: Vec<Parser>,
    pub wrapper: Option<wrap::Wrapper>,
}

impl Reader {
    pub fn new(first: Parser, wrapper: Option<wrap::Wrapper>) -> Reader {
        let others = others_of(&first);
        Reader {
            first,
            others,
            wrapper,
        }
    }

    /// A reader of exactly one layout (`--log-format`), the reading by shape behind it.
    pub fn custom(format: Arc<LogFormat>, wrapper: Option<wrap::Wrapper>) -> Reader {
        let first = Parser::custom(format);
        let family = match &first.kind {
            Kind::Text { family, .. } => *family,
            _ => Family::Nginx,
        };
        let others = vec![Parser::loose(family, first.format)];
        Reader {
            first,
            others,
            wrapper,
        }
    }

    /// The reader after a `#Fields:` directive: the new fields first, the earlier ones (a
    /// file's last lines may still follow an old layout) and the defaults after.
    fn after_directive(&self, next: Parser) -> Reader {
        let mut others = vec![self.first.clone()];
        others.extend(self.others.iter().cloned());
        others.retain(|p| !same_w3c(p, &next));
        Reader {
            first: next,
            others,
            wrapper: self.wrapper,
        }
    }

    /// Read one (unwrapped) line: the first layout, then the others; the first
    /// not-a-request answer, or else the first layout's reason, when none reads it.
    pub fn push_items<'a, T>(
        &'a self,
        line: &'a str,
        fallback: &Fallback<'a>,
        cx: &LineCtx<'_, T>,
        out: &mut Vec<T>,
    ) -> Result<(), Miss> {
        let miss = match self.first.push_items(line, fallback, cx, out) {
            Ok(()) => return Ok(()),
            Err(m) => m,
        };
        let mut not_request = match &miss {
            Miss::NotRequest(k) => Some(*k),
            Miss::Unreadable(_) => None,
        };
        for p in &self.others {
            match p.push_items(line, fallback, cx, out) {
                Ok(()) => return Ok(()),
                Err(Miss::NotRequest(k)) => {
                    not_request.get_or_insert(k);
                }
                Err(Miss::Unreadable(_)) => {}
            }
        }
        Err(not_request
            .or_else(|| not_a_request(line, self.wrapper))
            .map_or(miss, Miss::NotRequest))
    }
}

fn same_w3c(a: &Parser, b: &Parser) -> bool {
    match (&a.kind, &b.kind) {
        (Kind::W3c(x), Kind::W3c(y)) => x.names() == y.names(),
        _ => false,
    }
}

/// A line no layout reads that is recognisably not a request: an nginx or Apache error-log
/// line, another program's syslog message, a JSON record of a server's runtime log.
fn not_a_request(line: &str, wrapper: Option<wrap::Wrapper>) -> Option<NotRequest> {
    let t = line.trim_start();
    let b = t.as_bytes();
    // nginx: `2017/09/26 14:36:50 [error] 8409#8409: ...`.
    let nginx_error = b.len() > 20
        && b[4] == b'/'
        && b[7] == b'/'
        && b[10] == b' '
        && b[13] == b':'
        && t[19..].trim_start().starts_with('[');
    // Apache: `[Wed Oct 11 14:32:52 2000] [error] ...` / `[... 2011] [core:error] [pid ...`.
    let apache_error = t.starts_with('[')
        && t.find("] [").is_some_and(|i| {
            i < 40
                && t[i + 3..].split(']').next().is_some_and(|lvl| {
                    let lvl = lvl.rsplit(':').next().unwrap_or(lvl);
                    matches!(
                        lvl,
                        "emerg" | "alert" | "crit" | "error" | "warn" | "notice" | "info" | "debug"
                    ) || lvl.starts_with("trace")
                })
        });
    if nginx_error || apache_error {
        return Some(NotRequest::ErrorLog);
    }
    if w3c::looks_like_ftp(t) {
        return Some(NotRequest::FtpSession);
    }
    if t.starts_with('{') && !t.contains("\"status\"") && jsonlogs::Vendor::sniff(t).is_none() {
        return Some(NotRequest::JsonRecord);
    }
    let in_syslog = wrapper == Some(wrap::Wrapper::Syslog);
    if in_syslog && !looks_like_request_text(t) {
        return Some(NotRequest::SyslogMessage);
    }
    None
}

/// Does the text hold an HTTP request line (`"GET /x HTTP/1.1"`)?
fn looks_like_request_text(t: &str) -> bool {
    t.contains(" HTTP/") || t.contains("\"GET ") || t.contains("\"POST ")
}

#[cfg(test)]
mod tests;

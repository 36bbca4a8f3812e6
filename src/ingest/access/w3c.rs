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
            // CloudFront: x-host-header is the viewer's Host; cs(Host) is the distribution.
            host: idx(&["x-host-header", "cs-host", "cs(host)"]),
            scheme: idx(&["cs-protocol"]),
            status: idx(&["sc-status"]),
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
            names,
        };
        if h.status.is_none() {
            return Err("the fields have no sc-status".into());
        }
        Ok(h)
    }

    pub fn is_cloudfront(&self) -> bool {
        self.cloudfront
    }

    pub fn label(&self) -> &'static str {
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
        if self.names.is_empty() {
            return Err("a log line before any #Fields: directive".into());
        }
        // TAB-separated (CloudFront) or space-separated (IIS): the line says which.
        let sep = if line.contains('\t') { '\t' } else { ' ' };
        let mut cols: [&str; 64] = [""; 64];
        let mut n = 0;
        for part in line.split(sep) {
            if n == cols.len() {
                break;
            }
            cols[n] = part;
            n += 1;
        }
        if n < self.names.len().min(cols.len()) {
            return Err(LineError::W3cFields {
                found: n,
                named: self.names.len(),
            });
        }
        let get = |i: Option<usize>| i.map(|i| cols[i]).filter(|v| present(v));
        let status = get(self.status)
            .and_then(parse_status)
            .ok_or("sc-status is not a status")?;
        let mut f = Fields {
            status: Some(status),
            method: get(self.method).map(Cow::Borrowed),
            path: get(self.stem).map(Cow::Borrowed),
            query: get(self.query).map(Cow::Borrowed),
            host: get(self.host).map(Cow::Borrowed),
            scheme: get(self.scheme).map(Cow::Borrowed),
            client_ip: get(self.client_ip).map(Cow::Borrowed),
            forwarded_for: get(self.forwarded_for).map(Cow::Borrowed),
            user_agent: get(self.user_agent).map(|u| self.decode(u)),
            remote_user: get(self.username).map(Cow::Borrowed),
            request_id: get(self.request_id).map(Cow::Borrowed),
            ..Fields::default()
        };
        if let (Some(d), Some(t)) = (get(self.date), get(self.time)) {
            let mut s = [0u8; 40];
            let joined = d.len() + 1 + t.len();
            if joined <= s.len() {
                s[..d.len()].copy_from_slice(d.as_bytes());
                s[d.len()] = b' ';
                s[d.len() + 1..joined].copy_from_slice(t.as_bytes());
                let at = time::iso(&s[..joined]).ok_or("date/time is not a time")?;
                f.time = Some(Stamp::End(at));
            }
        }
        if let Some(tt) = get(self.time_taken).and_then(|v| v.parse::<f64>().ok()) {
            f.duration_ms = Some(if self.cloudfront { tt * 1000.0 } else { tt });
        }
        if status >= 400 {
            f.signal = Some(if self.cloudfront {
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
            });
        }
        Ok(f)
    }
}

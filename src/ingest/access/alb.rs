//! AWS Application Load Balancer access logs: space-separated fields in a fixed order, some
//! quoted, new fields appended at the end ("You should ignore any fields at the end of the log
//! entry that you were not expecting") [A1]. `time` is when the LB sent the response (the end);
//! `request_creation_time` is when it received the request — the start [A1].

use super::format::parse_status;
use super::record::{evidence_field, present, Fields, Stamp};
use super::signal::rule;
use super::time;
use crate::ingest::error::LineError;
use std::borrow::Cow;

const TYPES: &[&str] = &["http", "https", "h2", "grpcs", "ws", "wss"];
/// Fields up to the user agent must be there; later ones are optional (older logs).
const REQUIRED: usize = 14;
const MAX_FIELDS: usize = 40;

/// Split into fields: `"..."` quoted (may hold spaces) or bare.
fn split(line: &str) -> Result<Vec<&str>, LineError> {
    let b = line.as_bytes();
    let mut out = Vec::with_capacity(30);
    let mut i = 0;
    while i < b.len() && out.len() < MAX_FIELDS {
        if b[i] == b'"' {
            // Ends at `" ` or at the end of the line.
            let mut j = i + 1;
            loop {
                match memchr::memchr(b'"', &b[j..]) {
                    Some(k) => {
                        let at = j + k;
                        if at + 1 == b.len() || b[at + 1] == b' ' {
                            out.push(&line[i + 1..at]);
                            i = at + 2;
                            break;
                        }
                        j = at + 1;
                    }
                    None => return Err(LineError::UnterminatedQuote(out.len() + 1)),
                }
            }
        } else {
            let end = memchr::memchr(b' ', &b[i..])
                .map(|k| i + k)
                .unwrap_or(b.len());
            out.push(&line[i..end]);
            i = end + 1;
        }
    }
    Ok(out)
}

fn seconds(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| *x >= 0.0)
}

/// Parse one ALB line; `true` = it has more fields than this reader knows (tolerated).
pub fn parse(line: &str) -> Result<(Fields<'_>, bool), LineError> {
    let c = split(line)?;
    if c.len() < REQUIRED {
        return Err(LineError::AlbFields {
            found: c.len(),
            required: REQUIRED,
        });
    }
    if !TYPES.contains(&c[0]) {
        return Err(
            "the first field is not an ALB request type (http, https, h2, grpcs, ws, wss)".into(),
        );
    }
    let end = time::iso(c[1].as_bytes()).ok_or("the second field is not an ISO 8601 time")?;
    let elb = parse_status(c[8]).ok_or("elb_status_code (field 9) is not a status")?;
    let mut f = Fields {
        status: Some(elb),
        client_ip: Some(Cow::Borrowed(c[3])),
        request_line: Some(Cow::Borrowed(c[12])),
        user_agent: present(c[13]).then_some(Cow::Borrowed(c[13])),
        ..Fields::default()
    };
    let parts = [c[5], c[6], c[7]];
    let total: f64 = parts.iter().filter_map(|v| seconds(v)).sum();
    f.duration_ms = parts
        .iter()
        .any(|v| seconds(v).is_some())
        .then_some(total * 1000.0);
    f.time = Some(Stamp::End(end));
    if let Some(start) = c.get(21).and_then(|v| time::iso(v.as_bytes())) {
        f.start_time = Some(start);
    }
    if let Some(t) = c.get(17).filter(|v| present(v)) {
        f.request_id = Some(Cow::Borrowed(t));
    }
    if elb >= 400 {
        let target = c[9];
        let actions = c.get(22).copied().unwrap_or("-");
        f.signal = Some(if !present(target) {
            let field = format!(
                "{}, {}",
                evidence_field("target_status_code", target),
                evidence_field("actions_executed", actions)
            );
            let last = actions.rsplit(',').next().unwrap_or("").trim();
            if last == "waf" {
                rule("aws-alb.waf").signal(field)
            } else if actions.split(',').any(|a| a.trim() == "fixed-response") {
                rule("aws-alb.fixed-response").signal(field)
            } else {
                rule("aws-alb.target-absent").signal(field)
            }
        } else {
            let field = format!(
                "{}, {}",
                evidence_field("elb_status_code", c[8]),
                evidence_field("target_status_code", target)
            );
            if parse_status(target) == Some(elb) {
                rule("aws-alb.target-same").signal(field)
            } else {
                rule("aws-alb.target-differs").signal(field)
            }
        });
    }
    Ok((f, c.len() > 29))
}

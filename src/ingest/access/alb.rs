//! AWS Application Load Balancer access logs: space-separated fields in a fixed order, some
//! quoted, new fields appended at the end ("You should ignore any fields at the end of the log
//! entry that you were not expecting") [A1]. `time` is when the LB sent the response (the end);
//! `request_creation_time` is when it received the request — the start [A1].

use super::format::parse_status;
use super::record::{evidence_field, present, Fields, Stamp};
use super::signal::rule;
use super::time;
use crate::ingest::error::LineError;
use crate::ingest::skip::NotRequest;
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

/// Classic Load Balancer (ELB) HTTP/HTTPS entries: `time elb client:port backend:port
/// request_processing_time backend_processing_time response_processing_time elb_status_code
/// backend_status_code received_bytes sent_bytes "request" "user_agent" ssl_cipher
/// ssl_protocol` (the user agent and TLS fields were added later: older entries end at the
/// request). `time` is "the time when the load balancer received the request from the
/// client" — the start — and a `-` backend means the load balancer answered itself (AWS,
/// "Access logs for your Classic Load Balancer").
pub fn parse_classic(line: &str) -> Result<(Fields<'_>, bool), LineError> {
    let c = split(line)?;
    if c.len() < 12 {
        return Err(LineError::ElbFields {
            found: c.len(),
            required: 12,
        });
    }
    let start = time::iso(c[0].as_bytes()).ok_or("the first field is not an ISO 8601 time")?;
    if !c[2].contains(':') {
        return Err("the third field is not client:port".into());
    }
    let elb = parse_status(c[7]).ok_or("elb_status_code (field 8) is not a status")?;
    let mut f = Fields {
        time: Some(Stamp::Start(start)),
        status: Some(elb),
        client_ip: Some(Cow::Borrowed(c[2])),
        request_line: Some(Cow::Borrowed(c[11])),
        user_agent: c.get(12).filter(|u| present(u)).map(|u| Cow::Borrowed(*u)),
        ..Fields::default()
    };
    let parts = [c[4], c[5], c[6]];
    f.duration_ms = parts
        .iter()
        .any(|v| seconds(v).is_some())
        .then(|| parts.iter().filter_map(|v| seconds(v)).sum::<f64>() * 1000.0);
    if elb >= 400 {
        let backend = c[8];
        f.signal = Some(if !present(backend) {
            rule("aws-alb.target-absent").signal(evidence_field("backend_status_code", backend))
        } else {
            let field = format!(
                "{}, {}",
                evidence_field("elb_status_code", c[7]),
                evidence_field("backend_status_code", backend)
            );
            if parse_status(backend) == Some(elb) {
                rule("aws-alb.target-same").signal(field)
            } else {
                rule("aws-alb.target-differs").signal(field)
            }
        });
    }
    Ok((f, c.len() > 15))
}

/// Records an Elastic Load Balancing bucket holds beside HTTP entries: Network Load Balancer
/// TLS listener entries (`tls 2.0 <time> ...`) and ALB connection-log entries (`<time>
/// <client ip> <client port> <listener port> <tls protocol> ...`, one per connection).
pub fn not_request(line: &str) -> Option<NotRequest> {
    let mut t = line.split(' ');
    let first = t.next()?;
    let second = t.next()?;
    if first == "tls" && second.starts_with(|c: char| c.is_ascii_digit()) {
        return Some(NotRequest::TlsListener);
    }
    // A Classic Load Balancer's TCP listener: no status, request `"- - - "`.
    if time::iso(first.as_bytes()).is_some() && line.contains(" \"- - - \" ") {
        return Some(NotRequest::TcpConnection);
    }
    let third = t.next()?;
    let ip_only = second.parse::<std::net::IpAddr>().is_ok();
    if time::iso(first.as_bytes()).is_some()
        && ip_only
        && !third.is_empty()
        && third.bytes().all(|c| c.is_ascii_digit())
    {
        return Some(NotRequest::ConnectionLog);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_entries() {
        let (f, _) = parse_classic(r#"2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 - -1 -1 -1 503 - 0 0 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -"#).unwrap();
        assert_eq!(f.status, Some(503));
        assert_eq!(
            f.signal.as_ref().map(|s| s.verdict),
            Some(crate::model::SignalVerdict::Generated)
        );
        let (f, _) = parse_classic(r#"2014-02-15T23:39:43.945958Z my-test-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 "GET http://www.example.com:80/ HTTP/1.1""#).unwrap();
        assert_eq!(f.status, Some(200));
        assert!(f.user_agent.is_none());
        // An ALB entry is not a Classic one.
        assert!(parse_classic(r#"http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-""#).is_err());
    }

    #[test]
    fn records_that_are_not_requests() {
        assert_eq!(
            not_request("tls 2.0 2018-12-20T02:59:40 net/my-network-loadbalancer/c6e77e28c25b2234 g3d4b5e8bb8464cd 72.21.218.154:51341 172.100.100.185:443 5 2 98 246 - arn:aws:acm:us-east-2:671290407336:certificate/2a108f19-aded-46b0-8493-c63eb1ef4a99 - ECDHE-RSA-AES128-SHA tlsv12 - my-network-loadbalancer-c6e77e28c25b2234.elb.us-east-2.amazonaws.com - - - 2018-12-20T02:59:30"),
            Some(NotRequest::TlsListener)
        );
        assert_eq!(
            not_request(
                r#"2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -"#
            ),
            Some(NotRequest::TcpConnection)
        );
        assert_eq!(
            not_request("2023-10-26T16:12:23.524560Z 192.0.2.10 53574 443 TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 3 - - - Success -"),
            Some(NotRequest::ConnectionLog)
        );
        assert_eq!(
            not_request(
                r#"http 2018-07-02T22:23:00.186641Z app/x 1.2.3.4:1 - 0 0 0 200 200 1 1 "GET / HTTP/1.1" "-" - -"#
            ),
            None
        );
    }
}

//! Envoy, Istio and Envoy Gateway text logs: the default layouts and what
//! `%RESPONSE_FLAGS%`, `%RESPONSE_CODE_DETAILS%` and `%UPSTREAM_HOST%` say about who answered.
//! `%START_TIME%` is the request's start [E1].

use super::format::{compile_envoy, parse_status, LogFormat, SignalInputs};
use super::record::{evidence_field, present, Fields, Stamp};
use super::signal::rule;
use super::time;
use crate::ingest::error::LineError;
use crate::model::LayerSignal;
use std::borrow::Cow;

/// Envoy's default format string (`docs/root/configuration/observability/access_log/usage.rst`) [E1].
pub const DEFAULT: &str = r#"[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%""#;
/// Istio's default (`istio.io` docs, "Default access log format") [I1].
pub const ISTIO: &str = r#"[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME%"#;

/// Emissary-ingress (Ambassador)'s default `envoy_log_format`: `ACCESS ` and Envoy's default
/// (`python/ambassador/envoy/v3/v3listener.py`).
pub const AMBASSADOR: &str = r#"ACCESS [%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%""#;

pub fn ambassador() -> LogFormat {
    compile_envoy(AMBASSADOR, "Emissary-ingress (Ambassador) default").expect("built-in format")
}

pub fn default() -> LogFormat {
    compile_envoy(DEFAULT, "Envoy default").expect("built-in format")
}
pub fn istio() -> LogFormat {
    compile_envoy(ISTIO, "Istio default").expect("built-in format")
}

/// Response flags that mean Envoy sent a local reply (usage.rst's list; `DC` and `DI` do not).
const LOCAL_REPLY_FLAGS: &[&str] = &[
    "UH",
    "UF",
    "UO",
    "NR",
    "URX",
    "NC",
    "DT",
    "LH",
    "UT",
    "LR",
    "UR",
    "UC",
    "FI",
    "UAEX",
    "RLSE",
    "IH",
    "SI",
    "DPE",
    "UPE",
    "UMSDR",
    "OM",
    "DF",
    "DO",
    "NFCF",
    "UpstreamOverflow",
    "NoHealthyUpstream",
    "UpstreamRetryLimitExceeded",
    "RateLimitServiceError",
    "UnauthorizedExternalService",
    "OverloadManager",
    "DropOverLoad",
];

fn has_flag(flags: &str, wanted: &[&str]) -> bool {
    flags.split(',').map(str::trim).any(|f| wanted.contains(&f))
}

/// Envoy's own verdict, from the fields the line has (shared with Envoy Gateway's JSON).
pub fn signal(
    flags: Option<&str>,
    details: Option<&str>,
    upstream_host: Option<&str>,
) -> Option<LayerSignal> {
    let flags_set = flags.filter(|f| present(f));
    if let Some(f) = flags_set.filter(|f| has_flag(f, &["RL", "RateLimited"])) {
        return Some(rule("envoy.flag-rl").signal(evidence_field("response_flags", f)));
    }
    if let Some(d) = details {
        if d == "local_rate_limited" || d == "request_rate_limited" {
            return Some(
                rule("envoy.details-rate-limited")
                    .signal(evidence_field("response_code_details", d)),
            );
        }
        if d == "via_upstream" {
            return Some(
                rule("envoy.via-upstream").signal(evidence_field("response_code_details", d)),
            );
        }
    }
    if let Some(f) = flags_set.filter(|f| has_flag(f, LOCAL_REPLY_FLAGS)) {
        return Some(rule("envoy.flag-local").signal(evidence_field("response_flags", f)));
    }
    let host = upstream_host?;
    if !present(host) {
        return Some(
            rule("envoy.upstream-host-absent").signal(evidence_field("upstream_host", host)),
        );
    }
    if flags_set.is_none() {
        return Some(rule("envoy.upstream-host").signal(evidence_field("upstream_host", host)));
    }
    None
}

pub fn signal_text(s: &SignalInputs<'_>) -> Option<LayerSignal> {
    signal(s.response_flags, s.response_details, s.upstream_host)
}

/// An Envoy text line read by its shape, for lines the known layouts do not fit (an older
/// Istio layout, fields added to the default): `[START_TIME] "METHOD PATH PROTOCOL" CODE
/// FLAGS ...`, then the quoted fields every default ends with, in order: X-Forwarded-For,
/// User-Agent, X-Request-Id, :authority, upstream host (Istio adds bare fields after them).
pub fn parse_loose(line: &str) -> Result<(Fields<'_>, SignalInputs<'_>), LineError> {
    let rest = line.strip_prefix("ACCESS ").unwrap_or(line);
    let rest = rest
        .strip_prefix('[')
        .ok_or("no [START_TIME] at the start")?;
    let close = rest.find(']').ok_or("an unclosed [START_TIME]")?;
    let start = time::any(&rest.as_bytes()[..close]).ok_or("[START_TIME] is not a time")?;
    let rest = rest[close + 1..].trim_start();
    let rest = rest
        .strip_prefix('"')
        .ok_or("no quoted request after the time")?;
    let q = rest
        .find("\" ")
        .ok_or("the request's quote is not closed")?;
    let request = &rest[..q];
    let mut toks = rest[q + 2..].split(' ');
    let code = toks.next().unwrap_or("");
    let status = parse_status(code).ok_or("no response code after the request")?;
    let flags = toks.next().filter(|f| !f.starts_with('"'));
    let mut f = Fields {
        time: Some(Stamp::Start(start)),
        status: Some(status),
        request_line: Some(Cow::Borrowed(request)),
        ..Fields::default()
    };
    let mut sig = SignalInputs {
        response_flags: flags,
        ..SignalInputs::default()
    };
    // `%RESPONSE_CODE_DETAILS%` right after the flags (Istio): a lower-case word.
    if let Some(d) = toks
        .next()
        .filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_lowercase() || c == b'_'))
    {
        sig.response_details = Some(d);
    }
    // The quoted fields after the code: the last five of the default's.
    let after = &rest[q + 2..];
    let quoted: Vec<&str> = after.split('"').skip(1).step_by(2).collect();
    if quoted.len() >= 5 {
        let at = quoted.len() - 5;
        let get = |i: usize| quoted.get(at + i).copied().filter(|v| present(v));
        f.forwarded_for = get(0).map(Cow::Borrowed);
        f.user_agent = get(1).map(Cow::Borrowed);
        f.request_id = get(2).map(Cow::Borrowed);
        f.host = get(3).map(Cow::Borrowed);
        sig.upstream_host = quoted.get(at + 4).copied();
    }
    Ok((f, sig))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_lines_keep_the_signal_fields() {
        // An older Istio layout (mixer status after the flags), a 429 of the local limiter.
        let (f, sig) = parse_loose(r#"[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 429 RL "-" "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "-" outbound|8000||httpbin.foo.svc.cluster.local - 10.0.45.184:8000 10.44.1.23:46520 - default"#).unwrap();
        assert_eq!(f.status, Some(429));
        assert_eq!(sig.response_flags, Some("RL"));
        assert_eq!(f.host.as_deref(), Some("httpbin:8000"));
        assert_eq!(sig.upstream_host, Some("-"));
        assert!(signal_text(&sig).is_some());
        assert!(
            parse_loose(r#"10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1"#)
                .is_err()
        );
    }
}

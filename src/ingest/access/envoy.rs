//! Envoy, Istio and Envoy Gateway text logs: the default layouts and what
//! `%RESPONSE_FLAGS%`, `%RESPONSE_CODE_DETAILS%` and `%UPSTREAM_HOST%` say about who answered.
//! `%START_TIME%` is the request's start [E1].

use super::format::{compile_envoy, LogFormat, SignalInputs};
use super::record::{evidence_field, present};
use super::signal::rule;
use crate::model::LayerSignal;

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

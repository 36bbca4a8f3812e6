//! nginx and Apache text logs: the predefined layouts, and what `$upstream_status` /
//! `$limit_req_status` say about who answered.
//!
//! nginx writes `$time_local` at log time, the end of the request [N1]; Apache's `%t` is the
//! time the request was received [P2]. A stock `combined` line cannot be told apart from
//! Apache's; with no duration in it, the two readings give the same start anyway.

use super::format::{compile_apache, compile_nginx, Escape, LogFormat, SignalInputs};
use super::record::{evidence_field, last_upstream_status, present};
use super::signal::rule;
use crate::model::LayerSignal;

/// `combined`, predefined in every nginx [N1] (the same shape as Apache's combined [P1]).
pub const COMBINED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;
/// `main` of the distribution's nginx.conf and the Docker images: combined + X-Forwarded-For [N3].
pub const MAIN: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" "$http_x_forwarded_for""#;
/// ingress-nginx `log-format-upstream` default (`internal/ingress/controller/config/config.go`) [N7].
pub const UPSTREAMINFO: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id"#;
/// Traefik's default CLF: combined + request count, router, server URL and `<ms>ms` [T1]; the
/// time is the request's start (`StartUTC`/`StartLocal`) [T2].
pub const TRAEFIK_CLF: &str = r#"$remote_addr - $remote_user [$time_local_start] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $traefik_request_count "$traefik_router" "$traefik_server_url" ${duration_ms}ms"#;
/// Apache Common Log Format [P1].
pub const APACHE_COMMON: &str = r#"%h %l %u %t "%r" %>s %b"#;
/// Apache combined [P1].
pub const APACHE_COMBINED: &str = r#"%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i""#;

pub fn combined() -> LogFormat {
    compile_nginx(COMBINED, Escape::Backslash, "nginx combined").expect("built-in format")
}
pub fn main() -> LogFormat {
    compile_nginx(MAIN, Escape::Backslash, "nginx main").expect("built-in format")
}
pub fn upstreaminfo() -> LogFormat {
    compile_nginx(
        UPSTREAMINFO,
        Escape::Backslash,
        "ingress-nginx upstreaminfo",
    )
    .expect("built-in format")
}
pub fn traefik_clf() -> LogFormat {
    compile_nginx(TRAEFIK_CLF, Escape::Backslash, "Traefik CLF").expect("built-in format")
}
pub fn apache_common() -> LogFormat {
    compile_apache(APACHE_COMMON, "Apache common (CLF)").expect("built-in format")
}
/// Apache combined's label: a combined line reads the same as nginx's, so unasked it is
/// called nginx (the larger installed base) and `--input-format clf` says Apache.
pub const APACHE_COMBINED_LABEL: &str = "Apache combined";

pub fn apache_combined() -> LogFormat {
    compile_apache(APACHE_COMBINED, APACHE_COMBINED_LABEL).expect("built-in format")
}

/// nginx's own verdict, from the fields the line has (`None`: the format logs none of them).
pub fn signal(status: u16, s: &SignalInputs<'_>) -> Option<LayerSignal> {
    for (name, v) in [
        ("limit_req_status", s.limit_req_status),
        ("limit_conn_status", s.limit_conn_status),
    ] {
        if let Some(v) = v.filter(|v| v.starts_with("REJECTED") && !v.ends_with("DRY_RUN")) {
            return Some(rule("nginx.limit-req-rejected").signal(evidence_field(name, v)));
        }
    }
    let v = s.upstream_status?;
    let field = evidence_field("upstream_status", v);
    if !present(v) {
        return Some(rule("nginx.upstream-absent").signal(field));
    }
    Some(match last_upstream_status(v) {
        // The last try got no status (`502, -`): nginx answered after it failed.
        None => rule("nginx.upstream-absent").signal(field),
        Some(u) if u == status => rule("nginx.upstream-same").signal(field),
        Some(_) => rule("nginx.upstream-rewritten").signal(format!("{field}; status={status}")),
    })
}

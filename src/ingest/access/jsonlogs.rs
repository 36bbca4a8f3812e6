//! JSON access logs with vendor field names: Cloudflare Logpush `http_requests` [C1], Kong
//! log plugins [K1], Traefik JSON [T1, T2], Caddy [Y1], Google Cloud load balancing LogEntry
//! [G1, G2] and Envoy Gateway's default JSON [E6]. One object per line (a Kong http-log batch
//! array is read as its objects); a syslog/journald prefix before the `{` is skipped.

use super::envoy;
use super::format::parse_status;
use super::format::SignalInputs;
use super::kv;
use super::nginx;
use super::record::{evidence_field, last_upstream_status, present, Fields, Stamp};
use super::signal::{rule, LogRule};
use super::time;
use crate::ingest::error::LineError;
use crate::ingest::skip::{Miss, NotRequest};
use crate::ingest::Format;
use serde_json::{Map, Value};
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Cloudflare,
    Kong,
    Traefik,
    Caddy,
    GcpLb,
    EnvoyJson,
    /// nginx `log_format ... escape=json`, recognised by its variables' names.
    Nginx,
}

type Obj = Map<String, Value>;

impl Vendor {
    pub const ALL: &'static [Vendor] = &[
        Vendor::Cloudflare,
        Vendor::Kong,
        Vendor::Traefik,
        Vendor::Caddy,
        Vendor::GcpLb,
        Vendor::EnvoyJson,
        Vendor::Nginx,
    ];

    pub fn format(&self) -> Format {
        match self {
            Vendor::Cloudflare => Format::Cloudflare,
            Vendor::Kong => Format::Kong,
            Vendor::Traefik => Format::Traefik,
            Vendor::Caddy => Format::Caddy,
            Vendor::GcpLb => Format::GcpLb,
            Vendor::EnvoyJson => Format::Envoy,
            Vendor::Nginx => Format::Nginx,
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Vendor::Cloudflare => "Cloudflare Logpush http_requests",
            Vendor::Kong => "Kong log plugin JSON",
            Vendor::Traefik => "Traefik JSON",
            Vendor::Caddy => "Caddy JSON",
            Vendor::GcpLb => "Google Cloud load balancing LogEntry",
            Vendor::EnvoyJson => "Envoy Gateway JSON",
            Vendor::Nginx => "nginx JSON (escape=json)",
        }
    }

    pub fn no_signal(&self) -> Option<&'static LogRule> {
        Some(rule(match self {
            Vendor::Cloudflare => "cloudflare.no-field",
            Vendor::Caddy => "caddy.no-field",
            Vendor::GcpLb => "google-cloud-lb.no-field",
            Vendor::EnvoyJson => "envoy.no-field",
            Vendor::Nginx => "nginx.no-field",
            Vendor::Kong | Vendor::Traefik => return None,
        }))
    }

    fn matches(&self, o: &Obj) -> bool {
        let has = |k: &str| o.contains_key(k);
        match self {
            Vendor::Cloudflare => {
                has("EdgeStartTimestamp")
                    || has("EdgeResponseStatus")
                    || (has("RayID") && has("ClientRequestHost"))
            }
            Vendor::Kong => {
                has("started_at") && (has("latencies") || has("upstream_uri") || has("tries"))
            }
            Vendor::Traefik => {
                has("DownstreamStatus")
                    || has("OriginStatus")
                    || (has("RouterName") && has("RequestMethod"))
            }
            Vendor::Caddy => {
                o.get("logger")
                    .and_then(Value::as_str)
                    .is_some_and(|l| l.starts_with("http.log.access"))
                    || (o.get("msg").and_then(Value::as_str) == Some("handled request")
                        && o.get("request").is_some_and(Value::is_object))
            }
            Vendor::GcpLb => {
                o.get("httpRequest").is_some_and(Value::is_object)
                    && (has("jsonPayload") || has("logName") || has("insertId") || has("timestamp"))
            }
            Vendor::EnvoyJson => {
                has("response_code")
                    && (has("start_time") || has("upstream_host") || has("response_flags"))
            }
            Vendor::Nginx => nginx_named(o),
        }
    }

    /// Which vendor wrote this line, if its keys say so.
    pub fn sniff(line: &str) -> Option<Vendor> {
        let v: Value = serde_json::from_str(json_part(line)?).ok()?;
        let o = match &v {
            Value::Object(o) => o,
            Value::Array(a) => a.first()?.as_object()?,
            _ => return None,
        };
        Vendor::ALL.iter().copied().find(|vd| vd.matches(o))
    }

    /// Parse one line (an object, or an array of objects).
    pub fn parse<'a>(
        &self,
        line: &'a str,
        each: &mut dyn FnMut(Fields<'a>, bool),
    ) -> Result<(), Miss> {
        let text = json_part(line).ok_or("not a JSON object")?;
        let v: Value = serde_json::from_str(text).map_err(|e| {
            LineError::NotJson(crate::redact::scrub_message(&e.to_string()).to_string())
        })?;
        let objs: Vec<&Obj> = match &v {
            Value::Object(o) => vec![o],
            Value::Array(a) => a.iter().filter_map(Value::as_object).collect(),
            _ => return Err("JSON but not an object".into()),
        };
        if objs.is_empty() {
            return Err("an empty JSON array".into());
        }
        for o in objs {
            if !self.matches(o) {
                // Another kind of record (a server's runtime log beside its access log), or
                // another vendor's: the reader tries the others before it counts it as such.
                return Err(Miss::NotRequest(NotRequest::JsonRecord));
            }
            let f = match self {
                Vendor::Cloudflare => cloudflare(o),
                Vendor::Kong => kong(o),
                Vendor::Traefik => traefik(o),
                Vendor::Caddy => caddy(o),
                Vendor::GcpLb => gcp(o),
                Vendor::EnvoyJson => envoy_json(o),
                Vendor::Nginx => nginx_json(o),
            }?;
            each(f, false);
        }
        Ok(())
    }
}

/// The JSON part of a line: from its first `{` or `[`, skipping a syslog/journald prefix
/// (`Nov 20 00:12:09 host caddy[772]: {...}`).
fn json_part(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.starts_with('{') || t.starts_with('[') {
        return Some(t);
    }
    let at = t
        .find(": {")
        .map(|i| i + 2)
        .or_else(|| t.find(": [").map(|i| i + 2))?;
    Some(&t[at..])
}

// ------------------------------------------------------------------------------------------
// Value helpers: vendors write numbers as strings and strings as numbers.

fn get<'v>(o: &'v Obj, path: &str) -> Option<&'v Value> {
    let mut cur = o.get(path.split('.').next()?)?;
    for part in path.split('.').skip(1) {
        cur = cur.get(part)?;
    }
    (!cur.is_null()).then_some(cur)
}

fn text(o: &Obj, path: &str) -> Option<Cow<'static, str>> {
    match get(o, path)? {
        Value::String(s) if present(s) => Some(Cow::Owned(s.clone())),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        Value::Bool(b) => Some(Cow::Owned(b.to_string())),
        _ => None,
    }
}

fn number(o: &Obj, path: &str) -> Option<f64> {
    match get(o, path)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn status(o: &Obj, path: &str) -> Option<u16> {
    match get(o, path)? {
        Value::Number(n) => n.as_u64().filter(|s| *s < 1000).map(|s| s as u16),
        Value::String(s) => parse_status(s.trim()),
        _ => None,
    }
}

/// A time as number (epoch in s/ms/µs/ns by magnitude) or string (RFC 3339, epoch digits).
fn time_of(o: &Obj, path: &str) -> Option<i64> {
    match get(o, path)? {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(time::epoch_integer_value(i))
            } else {
                n.as_f64()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .map(|x| (x * 1e6) as i64)
            }
        }
        Value::String(s) => time::any(s.as_bytes()),
        _ => None,
    }
}

/// `{"Name": "v"}` or `{"Name": ["v1", "v2"]}` into header pairs.
fn headers_of(v: Option<&Value>, out: &mut Vec<(Cow<'static, str>, Cow<'static, str>)>) {
    let Some(Value::Object(m)) = v else {
        return;
    };
    for (k, val) in m {
        match val {
            Value::String(s) => out.push((Cow::Owned(k.clone()), Cow::Owned(s.clone()))),
            Value::Number(n) => out.push((Cow::Owned(k.clone()), Cow::Owned(n.to_string()))),
            Value::Array(items) => {
                for it in items {
                    if let Some(s) = it.as_str() {
                        out.push((Cow::Owned(k.clone()), Cow::Owned(s.to_string())));
                    }
                }
            }
            _ => {}
        }
    }
}

fn require_status(s: Option<u16>, field: &'static str) -> Result<u16, LineError> {
    s.ok_or(LineError::NoStatus(field))
}

// ------------------------------------------------------------------------------------------

fn cloudflare(o: &Obj) -> Result<Fields<'static>, LineError> {
    let edge = require_status(status(o, "EdgeResponseStatus"), "EdgeResponseStatus")?;
    let mut f = Fields {
        status: Some(edge),
        method: text(o, "ClientRequestMethod"),
        host: text(o, "ClientRequestHost"),
        scheme: text(o, "ClientRequestScheme"),
        target: text(o, "ClientRequestURI"),
        path: text(o, "ClientRequestPath"),
        client_ip: text(o, "ClientIP"),
        user_agent: text(o, "ClientRequestUserAgent"),
        request_id: text(o, "RayID"),
        ..Fields::default()
    };
    let start = time_of(o, "EdgeStartTimestamp");
    if let Some(s) = start {
        f.time = Some(Stamp::Start(s));
        if let Some(e) = time_of(o, "EdgeEndTimestamp").filter(|e| *e >= s) {
            f.duration_ms = Some((e - s) as f64 / 1000.0);
        }
    }
    headers_of(get(o, "RequestHeaders"), &mut f.request_headers);
    headers_of(get(o, "ResponseHeaders"), &mut f.response_headers);
    if edge >= 400 {
        f.signal = cloudflare_signal(o, edge);
    }
    Ok(f)
}

fn cloudflare_signal(o: &Obj, edge: u16) -> Option<crate::model::LayerSignal> {
    let sources: Vec<&str> = match get(o, "SecuritySources") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if sources.contains(&"rateLimit") {
        return Some(
            rule("cloudflare.security-rate-limit").signal("SecuritySources∋rateLimit".into()),
        );
    }
    if let Some(a) = get(o, "EdgeRateLimitAction").and_then(Value::as_str) {
        if present(a) && a != "unknown" {
            return Some(
                rule("cloudflare.security-rate-limit")
                    .signal(evidence_field("EdgeRateLimitAction", a)),
            );
        }
    }
    let origin = status(o, "OriginResponseStatus")?;
    let field = format!("OriginResponseStatus={origin}, EdgeResponseStatus={edge}");
    if origin == 0 {
        let worker = get(o, "WorkerSubrequest").and_then(Value::as_bool) == Some(true)
            || text(o, "ParentRayID").is_some_and(|p| p != "00");
        if worker {
            return Some(rule("cloudflare.worker-subrequest").signal(field));
        }
        let action = get(o, "SecurityAction")
            .and_then(Value::as_str)
            .unwrap_or("");
        const TERMINATING: &[&str] = &[
            "block",
            "challenge",
            "jschallenge",
            "managedChallenge",
            "connectionClose",
            "forceConnectionClose",
        ];
        if TERMINATING.contains(&action) {
            return Some(rule("cloudflare.security-block").signal(format!(
                "{field}, {}",
                evidence_field("SecurityAction", action)
            )));
        }
        return Some(rule("cloudflare.origin-zero").signal(field));
    }
    Some(if origin == edge {
        rule("cloudflare.origin-same").signal(field)
    } else {
        rule("cloudflare.origin-differs").signal(field)
    })
}

fn kong(o: &Obj) -> Result<Fields<'static>, LineError> {
    let st = require_status(status(o, "response.status"), "response.status")?;
    let mut f = Fields {
        status: Some(st),
        method: text(o, "request.method"),
        target: text(o, "request.url").or_else(|| text(o, "request.uri")),
        client_ip: text(o, "client_ip"),
        request_id: text(o, "request.id"),
        identity: text(o, "consumer.id")
            .or_else(|| text(o, "consumer.username"))
            .or_else(|| text(o, "consumer.custom_id"))
            .or_else(|| text(o, "authenticated_entity.id")),
        duration_ms: number(o, "latencies.request"),
        ..Fields::default()
    };
    if let Some(t) = time_of(o, "started_at") {
        f.time = Some(Stamp::Start(t));
    }
    headers_of(get(o, "request.headers"), &mut f.request_headers);
    headers_of(get(o, "response.headers"), &mut f.response_headers);
    if st >= 400 {
        let source = get(o, "source").and_then(Value::as_str);
        let up = text(o, "upstream_status");
        f.signal = match source {
            Some("kong") => Some(rule("kong.source-kong").signal(evidence_field("source", "kong"))),
            Some("upstream") => Some(rule("kong.source-upstream").signal(format!(
                "source=upstream{}",
                up.as_deref()
                    .map(|u| format!(", {}", evidence_field("upstream_status", u)))
                    .unwrap_or_default()
            ))),
            _ => {
                if number(o, "latencies.proxy") == Some(-1.0) {
                    Some(rule("kong.proxy-latency").signal("latencies.proxy=-1".into()))
                } else {
                    up.as_deref()
                        .filter(|u| last_upstream_status(u) == Some(st))
                        .map(|u| {
                            rule("kong.upstream-status")
                                .signal(evidence_field("upstream_status", u))
                        })
                }
            }
        };
    }
    Ok(f)
}

fn traefik(o: &Obj) -> Result<Fields<'static>, LineError> {
    // No `DownstreamStatus`: Traefik wrote no response (the client went away).
    let st = status(o, "DownstreamStatus").unwrap_or(0);
    let mut f = Fields {
        status: Some(st),
        method: text(o, "RequestMethod"),
        host: text(o, "RequestHost"),
        scheme: text(o, "RequestScheme"),
        target: text(o, "RequestPath"),
        client_ip: text(o, "ClientHost"),
        remote_user: text(o, "ClientUsername"),
        request_id: text(o, "TraceId"),
        // Duration and OriginDuration are nanoseconds [T2].
        duration_ms: number(o, "Duration").map(|ns| ns / 1e6),
        ..Fields::default()
    };
    f.time = time_of(o, "StartUTC")
        .or_else(|| time_of(o, "StartLocal"))
        .map(Stamp::Start)
        .or_else(|| time_of(o, "time").map(Stamp::End));
    // `accesslog.fields.headers.names.X=keep` logs request_X / downstream_X / origin_X [T4].
    for (k, v) in o {
        let Some(val) = v.as_str().filter(|s| present(s)) else {
            continue;
        };
        if let Some(h) = k.strip_prefix("request_") {
            if h == "User-Agent" || h.eq_ignore_ascii_case("user-agent") {
                f.user_agent = Some(Cow::Owned(val.to_string()));
            } else {
                f.request_headers
                    .push((Cow::Owned(h.to_string()), Cow::Owned(val.to_string())));
            }
        } else if let Some(h) = k.strip_prefix("downstream_") {
            f.response_headers
                .push((Cow::Owned(h.to_string()), Cow::Owned(val.to_string())));
        }
    }
    if st >= 400 {
        let origin = status(o, "OriginStatus").unwrap_or(0);
        let field = format!("OriginStatus={origin}, DownstreamStatus={st}");
        f.signal = Some(if origin == 0 {
            rule("traefik.origin-absent").signal(field)
        } else if origin == st {
            rule("traefik.origin-same").signal(field)
        } else {
            rule("traefik.origin-differs").signal(field)
        });
    }
    Ok(f)
}

/// Fields users add with `log_append` to say which upstream served the request [Y2].
const CADDY_UPSTREAM_KEYS: &[&str] = &[
    "upstream_host",
    "upstream",
    "upstream_addr",
    "upstream_address",
];

fn caddy(o: &Obj) -> Result<Fields<'static>, LineError> {
    let st = require_status(status(o, "status"), "status")?;
    let mut f = Fields {
        status: Some(st),
        method: text(o, "request.method"),
        host: text(o, "request.host"),
        target: text(o, "request.uri"),
        client_ip: text(o, "request.client_ip").or_else(|| text(o, "request.remote_ip")),
        identity: text(o, "user_id"),
        ..Fields::default()
    };
    f.scheme = Some(Cow::Borrowed(if get(o, "request.tls").is_some() {
        "https"
    } else {
        "http"
    }));
    // `duration` is seconds by default (duration_format can change it) [Y1].
    f.duration_ms = match get(o, "duration") {
        Some(Value::Number(n)) => n.as_f64().map(|s| s * 1000.0),
        Some(Value::String(s)) => crate::units::parse_duration_ms(s).ok(),
        _ => None,
    };
    // `ts` is written when the handler returns (the end) [Y1].
    f.time = time_of(o, "ts").map(Stamp::End);
    headers_of(get(o, "request.headers"), &mut f.request_headers);
    headers_of(get(o, "resp_headers"), &mut f.response_headers);
    // `size`: the response body's bytes [Y1].
    f.body_bytes = number(o, "size").filter(|n| *n >= 0.0).map(|n| n as u64);
    if st >= 400 {
        f.signal = CADDY_UPSTREAM_KEYS.iter().find_map(|k| {
            let v = get(o, k)?;
            let s = v.as_str().unwrap_or("");
            Some(if present(s) {
                rule("caddy.upstream").signal(evidence_field(k, s))
            } else {
                rule("caddy.upstream-absent").signal(evidence_field(k, s))
            })
        });
    }
    Ok(f)
}

fn gcp(o: &Obj) -> Result<Fields<'static>, LineError> {
    // No status: the load balancer sent no response (`statusDetails` says why, e.g.
    // `client_disconnected_before_any_response`).
    let st = status(o, "httpRequest.status").unwrap_or(0);
    let mut f = Fields {
        status: Some(st),
        method: text(o, "httpRequest.requestMethod"),
        target: text(o, "httpRequest.requestUrl"),
        client_ip: text(o, "httpRequest.remoteIp"),
        user_agent: text(o, "httpRequest.userAgent"),
        request_id: text(o, "trace").or_else(|| text(o, "insertId")),
        ..Fields::default()
    };
    // `latency` is a Duration string ("0.248406s").
    f.duration_ms = text(o, "httpRequest.latency").and_then(|l| {
        l.strip_suffix('s')
            .and_then(|s| s.parse::<f64>().ok())
            .map(|s| s * 1000.0)
    });
    // LogEntry.timestamp: "the time the event described by the log entry occurred" — read as
    // the request's start (not stated for load balancer entries).
    f.time = time_of(o, "timestamp").map(Stamp::Start);
    if st >= 400 {
        let details = get(o, "jsonPayload.statusDetails").and_then(Value::as_str);
        let outcome = get(o, "jsonPayload.enforcedSecurityPolicy.outcome").and_then(Value::as_str);
        f.signal = match (details, outcome) {
            (Some(d), _) if d.contains("denied_by_security_policy") => {
                Some(rule("google-cloud-lb.armor").signal(evidence_field("statusDetails", d)))
            }
            (_, Some(out)) if out.eq_ignore_ascii_case("DENY") => Some(
                rule("google-cloud-lb.armor")
                    .signal(evidence_field("enforcedSecurityPolicy.outcome", out)),
            ),
            (Some("response_sent_by_backend"), _) => Some(
                rule("google-cloud-lb.backend")
                    .signal(evidence_field("statusDetails", "response_sent_by_backend")),
            ),
            (Some(d), _) => {
                Some(rule("google-cloud-lb.lb").signal(evidence_field("statusDetails", d)))
            }
            (None, _) => None,
        };
    }
    Ok(f)
}

fn envoy_json(o: &Obj) -> Result<Fields<'static>, LineError> {
    let st = require_status(status(o, "response_code"), "response_code")?;
    let mut f = Fields {
        status: Some(st),
        // Envoy Gateway's keys [E6], and Istio's JSON encoding (`authority`, `user_agent`).
        method: text(o, "method"),
        target: text(o, "x-envoy-origin-path").or_else(|| text(o, "path")),
        host: text(o, ":authority").or_else(|| text(o, "authority")),
        forwarded_for: text(o, "x-forwarded-for").or_else(|| text(o, "x_forwarded_for")),
        client_ip: text(o, "downstream_remote_address"),
        user_agent: text(o, "user-agent").or_else(|| text(o, "user_agent")),
        request_id: text(o, "x-request-id").or_else(|| text(o, "request_id")),
        duration_ms: number(o, "duration"),
        ..Fields::default()
    };
    f.time = time_of(o, "start_time").map(Stamp::Start);
    // `bytes_sent`: %BYTES_SENT%, the response body's bytes [E1].
    f.body_bytes = number(o, "bytes_sent")
        .filter(|n| *n >= 0.0)
        .map(|n| n as u64);
    if st >= 400 {
        let s = |k: &str| get(o, k).and_then(Value::as_str);
        // typed_json_format writes an unset value as null [E1]: no upstream host.
        let host = match o.get("upstream_host") {
            Some(Value::Null) => Some("-"),
            _ => s("upstream_host"),
        };
        f.signal = envoy::signal(s("response_flags"), s("response_code_details"), host);
    }
    Ok(f)
}

/// Keys that only an nginx log carries (its variables' names): a `status` and either an
/// upstream or limiter variable, or three of nginx's request variables.
fn nginx_named(o: &Obj) -> bool {
    if !o.contains_key("status") {
        return false;
    }
    const DECIDING: &[&str] = &[
        "upstream_status",
        "upstream_addr",
        "limit_req_status",
        "limit_conn_status",
    ];
    const NGINX: &[&str] = &[
        "remote_addr",
        "remote_user",
        "time_local",
        "time_iso8601",
        "msec",
        "request",
        "request_uri",
        "request_method",
        "body_bytes_sent",
        "bytes_sent",
        "request_time",
        "http_user_agent",
        "http_referer",
        "http_x_forwarded_for",
        "server_name",
    ];
    DECIDING.iter().any(|k| o.contains_key(*k))
        || NGINX.iter().filter(|k| o.contains_key(**k)).count() >= 3
}

/// nginx JSON: every key read as the variable of that name ([`kv::meaning`]), so
/// `$upstream_status` decides who answered as it does in the text layouts. With
/// `escape=json` a variable that is not set is written as `""` [N5].
fn nginx_json(o: &Obj) -> Result<Fields<'static>, LineError> {
    let vals: Vec<(&str, Cow<'_, str>)> = o
        .iter()
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k.as_str(), Cow::Borrowed(s.as_str()))),
            Value::Number(n) => Some((k.as_str(), Cow::Owned(n.to_string()))),
            _ => None,
        })
        .collect();
    let mut f = Fields::default();
    let mut sig = SignalInputs::default();
    for (k, v) in &vals {
        kv::assign(k, v, Cow::Borrowed(v), &mut f, &mut sig).map_err(|expected| {
            LineError::Field {
                field: k.to_string(),
                expected,
            }
        })?;
    }
    let st = require_status(f.status.filter(|_| o.get("status").is_some()), "status")?;
    if st >= 400 {
        f.signal = nginx::signal(st, &sig);
    }
    Ok(f.into_owned())
}

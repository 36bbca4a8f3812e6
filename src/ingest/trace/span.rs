//! One span as the trace readers keep it until its trace is closed: the fields an HTTP attempt
//! needs, from either encoding, and nothing else (attributes outside the HTTP conventions are
//! dropped on reading, so a secret in them is never held, let alone printed).

use super::wire::{JaegerProcess, JaegerSpan, JaegerTag, KeyValue, OtlpSpan, ResourceSpans};
use crate::model::Position;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Client,
    Server,
    Other,
}

#[derive(Debug, Clone)]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    /// Empty at the root of a trace.
    pub parent_id: String,
    /// Raw: redacted where it is shown.
    pub name: String,
    pub kind: Kind,
    /// Unix nanoseconds.
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    /// The HTTP attributes only (see [`kept_attribute`]), values as text.
    pub attrs: Vec<(String, String)>,
    /// `service.name`, with `service.instance.id` when recorded (`name/instance`).
    pub service: Option<Arc<str>>,
    pub position: Position,
}

/// Attributes read from a span: the HTTP semantic conventions, stable and older.
fn kept_attribute(key: &str) -> bool {
    key.starts_with("http.")
        || key.starts_with("url.")
        || key.starts_with("server.")
        || key.starts_with("net.peer.")
        || key == "net.host.name"
        || key == "error.type"
        || key == "span.kind"
        || key == "user_agent.original"
}

impl Span {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The first of `keys` the span has, non-blank.
    pub fn first(&self, keys: &[&str]) -> Option<&str> {
        keys.iter()
            .find_map(|k| self.attr(k).filter(|v| !v.trim().is_empty()))
    }

    /// It carries HTTP attributes: a status, a method or a URL.
    pub fn is_http(&self) -> bool {
        self.first(&[
            "http.response.status_code",
            "http.status_code",
            "http.request.method",
            "http.method",
            "url.full",
            "http.url",
        ])
        .is_some()
    }

    pub fn duration_ms(&self) -> Option<f64> {
        match (self.start_ns, self.end_ns) {
            (Some(s), Some(e)) if e >= s => Some((e - s) as f64 / 1e6),
            _ => None,
        }
    }
}

fn service_of(name: Option<String>, instance: Option<String>) -> Option<Arc<str>> {
    let name = name.filter(|n| !n.trim().is_empty())?;
    Some(Arc::from(match instance.filter(|i| !i.trim().is_empty()) {
        Some(i) => format!("{name}/{i}"),
        None => name,
    }))
}

fn kv_text(attrs: &[KeyValue], key: &str) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.text())
}

/// The spans of one OTLP resource, with their resource's service.
pub fn from_otlp(r: ResourceSpans, position: Position, out: &mut Vec<Span>) {
    let service = service_of(
        kv_text(&r.resource.attributes, "service.name"),
        kv_text(&r.resource.attributes, "service.instance.id"),
    );
    for scope in r.scope_spans {
        for s in scope.spans {
            out.push(otlp_span(s, &service, position));
        }
    }
}

fn otlp_span(s: OtlpSpan, service: &Option<Arc<str>>, position: Position) -> Span {
    let kind = match s.kind.0 {
        2 => Kind::Server,
        3 => Kind::Client,
        _ => Kind::Other,
    };
    let attrs = s
        .attributes
        .into_iter()
        .filter(|a| kept_attribute(&a.key))
        .filter_map(|a| Some((a.key, a.value.text()?)))
        .collect();
    Span {
        trace_id: s.trace_id.to_ascii_lowercase(),
        span_id: s.span_id.to_ascii_lowercase(),
        parent_id: s.parent_span_id.to_ascii_lowercase(),
        name: s.name,
        kind,
        start_ns: s.start_time_unix_nano.0,
        end_ns: s.end_time_unix_nano.0,
        attrs,
        service: service.clone(),
        position,
    }
}

fn tag_text(tags: &[JaegerTag], key: &str) -> Option<String> {
    tags.iter().find(|t| t.key == key).and_then(JaegerTag::text)
}

/// The sampler a Jaeger client's process tags name (`sampler.type`, `sampler.param`).
pub fn jaeger_sampler(p: &JaegerProcess) -> Option<String> {
    let t = tag_text(&p.tags, "sampler.type")?;
    Some(match tag_text(&p.tags, "sampler.param") {
        Some(v) => format!("{t} {v}"),
        None => t,
    })
}

/// One Jaeger span, its service from the trace's `processes`.
pub fn from_jaeger(
    s: JaegerSpan,
    processes: &std::collections::HashMap<String, JaegerProcess>,
    position: Position,
) -> Span {
    let parent = if s.parent_span_id.is_empty() {
        s.references
            .iter()
            .find(|r| r.ref_type.eq_ignore_ascii_case("CHILD_OF"))
            .or(s.references.first())
            .map(|r| r.span_id.clone())
            .unwrap_or_default()
    } else {
        s.parent_span_id
    };
    let kind = match tag_text(&s.tags, "span.kind").as_deref() {
        Some("client") => Kind::Client,
        Some("server") => Kind::Server,
        _ => Kind::Other,
    };
    let service = processes.get(&s.process_id).and_then(|p| {
        service_of(
            Some(p.service_name.clone()),
            tag_text(&p.tags, "service.instance.id"),
        )
    });
    let attrs = s
        .tags
        .iter()
        .filter(|t| kept_attribute(&t.key))
        .filter_map(|t| Some((t.key.clone(), t.text()?)))
        .collect();
    let start_ns = s.start_time.0.map(|us| us.saturating_mul(1000));
    Span {
        trace_id: s.trace_id.to_ascii_lowercase(),
        span_id: s.span_id.to_ascii_lowercase(),
        parent_id: parent.to_ascii_lowercase(),
        name: s.operation_name,
        kind,
        start_ns,
        end_ns: start_ns
            .zip(s.duration.0)
            .map(|(st, d)| st.saturating_add(d.saturating_mul(1000))),
        attrs,
        service,
        position,
    }
}

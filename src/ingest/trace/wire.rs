//! The two export encodings as serde reads them, one batch at a time.
//!
//! OTLP/JSON (the OpenTelemetry protocol's JSON mapping): `{"resourceSpans":[{"resource":
//! {"attributes":[…]},"scopeSpans":[{"spans":[…]}]}]}`, keys in lowerCamelCase (the proto's
//! own snake_case names accepted too), trace and span ids in hex, `kind` an integer (or the
//! enum's name), 64-bit integers as strings or numbers. The SDKs' file exporters and the
//! Collector's file exporter write one such object per line, one per export batch.
//!
//! Jaeger's JSON (the query API and the UI's "Download JSON"): `{"data":[{"traceID",
//! "spans":[…],"processes":{"p1":{"serviceName","tags"}}}]}`, times in microseconds, the
//! parent in `references` (`CHILD_OF`) or `parentSpanID`.
//!
//! [`each_batch`] walks the top-level object and hands over one resource's spans (OTLP) or one
//! trace (Jaeger) at a time: memory holds one batch, however long the array.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;

/// An integer written as a JSON number or a string (OTLP's int64 and fixed64 fields).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Int(pub Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Int, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            I(i64),
            U(u64),
            F(f64),
            S(String),
            Other(IgnoredAny),
        }
        Ok(Int(match Raw::deserialize(d)? {
            Raw::I(i) => Some(i),
            Raw::U(u) => i64::try_from(u).ok(),
            Raw::F(f) if f.is_finite() => Some(f as i64),
            Raw::S(s) => s.trim().parse().ok(),
            _ => None,
        }))
    }
}

/// OTLP `AnyValue`: the scalar kinds and arrays of them (maps and bytes are read as absent).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnyValue {
    #[serde(alias = "string_value")]
    pub string_value: Option<String>,
    #[serde(alias = "int_value")]
    pub int_value: Option<Int>,
    #[serde(alias = "bool_value")]
    pub bool_value: Option<bool>,
    #[serde(alias = "double_value")]
    pub double_value: Option<f64>,
    #[serde(alias = "array_value")]
    pub array_value: Option<ArrayValue>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ArrayValue {
    #[serde(default)]
    pub values: Vec<AnyValue>,
}

impl AnyValue {
    /// The value as text (an array's values joined by ", ", as repeated headers are).
    pub fn text(&self) -> Option<String> {
        if let Some(s) = &self.string_value {
            return Some(s.clone());
        }
        if let Some(Int(Some(i))) = self.int_value {
            return Some(i.to_string());
        }
        if let Some(b) = self.bool_value {
            return Some(b.to_string());
        }
        if let Some(f) = self.double_value {
            return Some(f.to_string());
        }
        let a = self.array_value.as_ref()?;
        let parts: Vec<String> = a.values.iter().filter_map(AnyValue::text).collect();
        Some(parts.join(", "))
    }
}

#[derive(Debug, Deserialize)]
pub struct KeyValue {
    pub key: String,
    #[serde(default)]
    pub value: AnyValue,
}

#[derive(Debug, Default, Deserialize)]
pub struct Resource {
    #[serde(default)]
    pub attributes: Vec<KeyValue>,
}

/// `kind`: the enum's number, or its name (`SPAN_KIND_CLIENT`).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct OtlpKind(pub i64);

impl<'de> Deserialize<'de> for OtlpKind {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<OtlpKind, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            I(i64),
            S(String),
            Other(IgnoredAny),
        }
        Ok(OtlpKind(match Raw::deserialize(d)? {
            Raw::I(i) => i,
            Raw::S(s) => match s.as_str() {
                "SPAN_KIND_INTERNAL" => 1,
                "SPAN_KIND_SERVER" => 2,
                "SPAN_KIND_CLIENT" => 3,
                "SPAN_KIND_PRODUCER" => 4,
                "SPAN_KIND_CONSUMER" => 5,
                _ => 0,
            },
            Raw::Other(_) => 0,
        }))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OtlpSpan {
    #[serde(default, alias = "trace_id")]
    pub trace_id: String,
    #[serde(default, alias = "span_id")]
    pub span_id: String,
    #[serde(default, alias = "parent_span_id")]
    pub parent_span_id: String,
    #[serde(default, alias = "trace_state")]
    pub trace_state: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub kind: OtlpKind,
    #[serde(default, alias = "start_time_unix_nano")]
    pub start_time_unix_nano: Int,
    #[serde(default, alias = "end_time_unix_nano")]
    pub end_time_unix_nano: Int,
    #[serde(default)]
    pub attributes: Vec<KeyValue>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ScopeSpans {
    #[serde(default)]
    pub spans: Vec<OtlpSpan>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpans {
    #[serde(default)]
    pub resource: Resource,
    /// `instrumentationLibrarySpans`: the name before OTLP 0.15.
    #[serde(
        default,
        alias = "scope_spans",
        alias = "instrumentationLibrarySpans",
        alias = "instrumentation_library_spans"
    )]
    pub scope_spans: Vec<ScopeSpans>,
}

/// A Jaeger tag or process tag: `{"key","type","value"}`, the value a string, number or bool.
#[derive(Debug, Deserialize)]
pub struct JaegerTag {
    pub key: String,
    #[serde(default)]
    pub value: serde_json::Value,
}

impl JaegerTag {
    /// The value as text; an array attribute, which Jaeger's OTLP translator writes as its
    /// JSON text (`["3"]`), as its items joined by ", " (as OTLP's are).
    pub fn text(&self) -> Option<String> {
        match &self.value {
            serde_json::Value::String(s) if s.starts_with('[') => {
                match serde_json::from_str::<Vec<serde_json::Value>>(s) {
                    Ok(items) => Some(
                        items
                            .iter()
                            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    Err(_) => Some(s.clone()),
                }
            }
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct JaegerRef {
    #[serde(default, rename = "refType")]
    pub ref_type: String,
    #[serde(default, rename = "spanID")]
    pub span_id: String,
}

#[derive(Debug, Deserialize)]
pub struct JaegerSpan {
    #[serde(default, rename = "traceID")]
    pub trace_id: String,
    #[serde(default, rename = "spanID")]
    pub span_id: String,
    #[serde(default, rename = "parentSpanID")]
    pub parent_span_id: String,
    #[serde(default, rename = "operationName")]
    pub operation_name: String,
    #[serde(default)]
    pub references: Vec<JaegerRef>,
    /// Microseconds since the epoch.
    #[serde(default, rename = "startTime")]
    pub start_time: Int,
    /// Microseconds.
    #[serde(default)]
    pub duration: Int,
    #[serde(default)]
    pub tags: Vec<JaegerTag>,
    #[serde(default, rename = "processID")]
    pub process_id: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct JaegerProcess {
    #[serde(default, rename = "serviceName")]
    pub service_name: String,
    #[serde(default)]
    pub tags: Vec<JaegerTag>,
}

#[derive(Debug, Deserialize)]
pub struct JaegerTrace {
    #[serde(default)]
    pub spans: Vec<JaegerSpan>,
    #[serde(default)]
    pub processes: HashMap<String, JaegerProcess>,
}

/// One batch of an export, handed over as it is read.
pub enum Batch {
    Otlp(ResourceSpans),
    Jaeger(JaegerTrace),
}

/// Walk one top-level object (`{"resourceSpans":[…]}` or `{"data":[…]}`), calling `each` with
/// every element of the array as it is read. Other keys are skipped.
pub fn each_batch<'de, D: de::Deserializer<'de>>(
    d: D,
    each: &mut dyn FnMut(Batch),
) -> Result<(), D::Error> {
    d.deserialize_map(Top(each))
}

struct Top<'f>(&'f mut dyn FnMut(Batch));

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with `resourceSpans` (OTLP) or `data` (Jaeger)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(key) = m.next_key::<String>()? {
            match key.as_str() {
                "resourceSpans" | "resource_spans" => m.next_value_seed(Each {
                    each: &mut *self.0,
                    jaeger: false,
                })?,
                "data" => m.next_value_seed(Each {
                    each: &mut *self.0,
                    jaeger: true,
                })?,
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

struct Each<'f> {
    each: &'f mut dyn FnMut(Batch),
    jaeger: bool,
}

impl<'de> DeserializeSeed<'de> for Each<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Each<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        if self.jaeger {
            while let Some(t) = s.next_element::<JaegerTrace>()? {
                (self.each)(Batch::Jaeger(t));
            }
        } else {
            while let Some(r) = s.next_element::<ResourceSpans>()? {
                (self.each)(Batch::Otlp(r));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batches(text: &str) -> Vec<Batch> {
        let mut got = Vec::new();
        let mut d = serde_json::Deserializer::from_str(text);
        each_batch(&mut d, &mut |b| got.push(b)).unwrap();
        got
    }

    #[test]
    fn otlp_ints_kinds_and_snake_case_names() {
        let b = batches(
            r#"{"resourceSpans":[{"scope_spans":[{"spans":[{"trace_id":"ab","spanId":"01","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":"1700000000000000000","end_time_unix_nano":1700000000500000000,"attributes":[{"key":"http.status_code","value":{"intValue":"429"}},{"key":"h","value":{"arrayValue":{"values":[{"stringValue":"a"},{"intValue":2}]}}}]}]}]}],"x":1}"#,
        );
        let Batch::Otlp(r) = &b[0] else { panic!() };
        let s = &r.scope_spans[0].spans[0];
        assert_eq!((s.trace_id.as_str(), s.kind.0), ("ab", 3));
        assert_eq!(s.start_time_unix_nano.0, Some(1_700_000_000_000_000_000));
        assert_eq!(s.end_time_unix_nano.0, Some(1_700_000_000_500_000_000));
        assert_eq!(s.attributes[0].value.text().as_deref(), Some("429"));
        assert_eq!(s.attributes[1].value.text().as_deref(), Some("a, 2"));
    }

    #[test]
    fn jaeger_traces_one_at_a_time() {
        let b = batches(
            r#"{"data":[{"traceID":"t1","spans":[{"traceID":"t1","spanID":"s1","references":[{"refType":"CHILD_OF","traceID":"t1","spanID":"s0"}],"startTime":1700000000000000,"duration":1500,"tags":[{"key":"http.status_code","type":"int64","value":429}],"processID":"p1"}],"processes":{"p1":{"serviceName":"api","tags":[]}}},{"traceID":"t2","spans":[]}],"total":0,"errors":null}"#,
        );
        assert_eq!(b.len(), 2);
        let Batch::Jaeger(t) = &b[0] else { panic!() };
        assert_eq!(t.spans[0].references[0].span_id, "s0");
        assert_eq!(t.spans[0].tags[0].text().as_deref(), Some("429"));
        assert_eq!(t.processes["p1"].service_name, "api");
    }

    #[test]
    fn a_wrong_shape_is_an_error_not_a_panic() {
        let mut d = serde_json::Deserializer::from_str(r#"{"resourceSpans":{"a":1}}"#);
        assert!(each_batch(&mut d, &mut |_| {}).is_err());
        let mut d = serde_json::Deserializer::from_str(r#"[1,2]"#);
        assert!(each_batch(&mut d, &mut |_| {}).is_err());
    }
}

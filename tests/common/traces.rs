#![allow(dead_code)]
//! Trace exports for the tests: OTLP/JSON → Jaeger JSON (as Jaeger's OTLP translator maps
//! them: attributes to tags, arrays to their JSON text, `kind` to `span.kind`, times to
//! microseconds, the parent to a `CHILD_OF` reference), and what a test expects of an OTLP
//! export, counted straight from its JSON.

use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Every span of an OTLP/JSON export (one object per line), with its resource's attributes.
pub fn otlp_spans(text: &str) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("an OTLP line");
        for rs in v["resourceSpans"].as_array().into_iter().flatten() {
            for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                for s in ss["spans"].as_array().into_iter().flatten() {
                    out.push((rs["resource"]["attributes"].clone(), s.clone()));
                }
            }
        }
    }
    out
}

fn any_text(v: &Value) -> Option<String> {
    if let Some(s) = v["stringValue"].as_str() {
        return Some(s.to_string());
    }
    if let Some(i) = v.get("intValue") {
        return Some(i.as_str().map_or_else(|| i.to_string(), str::to_string));
    }
    if let Some(b) = v["boolValue"].as_bool() {
        return Some(b.to_string());
    }
    let a = v["arrayValue"]["values"].as_array()?;
    let items: Vec<String> = a.iter().filter_map(any_text).collect();
    Some(serde_json::to_string(&items).unwrap())
}

pub fn attr(attrs: &Value, key: &str) -> Option<String> {
    attrs
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .and_then(|a| any_text(&a["value"]))
}

/// The HTTP status a span recorded (either convention).
pub fn status(span: &Value) -> Option<u16> {
    attr(&span["attributes"], "http.response.status_code")
        .or_else(|| attr(&span["attributes"], "http.status_code"))
        .and_then(|s| s.parse().ok())
}

/// Span ids of the CLIENT spans that recorded a 429.
pub fn limited_span_ids(text: &str) -> BTreeSet<String> {
    otlp_spans(text)
        .into_iter()
        .filter(|(_, s)| s["kind"] == 3 && status(s) == Some(429))
        .map(|(_, s)| s["spanId"].as_str().unwrap().to_string())
        .collect()
}

/// `service.name/service.instance.id` of every resource.
pub fn services(text: &str) -> BTreeSet<String> {
    otlp_spans(text)
        .into_iter()
        .map(|(r, _)| {
            format!(
                "{}/{}",
                attr(&r, "service.name").unwrap(),
                attr(&r, "service.instance.id").unwrap()
            )
        })
        .collect()
}

/// The same spans as Jaeger's JSON (`{"data":[{traceID, spans, processes}]}`), one trace per
/// element, in the order traces first appear.
pub fn otlp_to_jaeger(text: &str) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut traces: BTreeMap<String, (Vec<Value>, Map<String, Value>)> = BTreeMap::new();
    let mut pids: BTreeMap<String, String> = BTreeMap::new();
    for (res, s) in otlp_spans(text) {
        let trace = s["traceId"].as_str().unwrap().to_string();
        let key = res.to_string();
        let n = pids.len() + 1;
        let pid = pids.entry(key).or_insert_with(|| format!("p{n}")).clone();
        let mut tags: Vec<Value> = s["attributes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let v = &a["value"];
                let (ty, val) = if let Some(i) = v.get("intValue") {
                    let i: i64 = i
                        .as_str()
                        .map_or_else(|| i.as_i64().unwrap(), |s| s.parse().unwrap());
                    ("int64", json!(i))
                } else {
                    ("string", json!(any_text(v)?))
                };
                Some(json!({"key": a["key"], "type": ty, "value": val}))
            })
            .collect();
        match s["kind"].as_i64() {
            Some(2) => tags.push(json!({"key":"span.kind","type":"string","value":"server"})),
            Some(3) => tags.push(json!({"key":"span.kind","type":"string","value":"client"})),
            _ => {}
        }
        let ns = |k: &str| -> i64 { s[k].as_str().unwrap().parse().unwrap() };
        let start = ns("startTimeUnixNano");
        let parent = s["parentSpanId"].as_str().unwrap_or("");
        let refs = if parent.is_empty() {
            json!([])
        } else {
            json!([{"refType": "CHILD_OF", "traceID": trace, "spanID": parent}])
        };
        let span = json!({
            "traceID": trace, "spanID": s["spanId"], "flags": 1,
            "operationName": s["name"], "references": refs,
            "startTime": start / 1000, "duration": (ns("endTimeUnixNano") - start) / 1000,
            "tags": tags, "logs": [], "processID": pid, "warnings": null,
        });
        let process_tags: Vec<Value> = res
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["key"] != "service.name")
            .map(|a| json!({"key": a["key"], "type": "string", "value": any_text(&a["value"])}))
            .collect();
        let process = json!({"serviceName": attr(&res, "service.name"), "tags": process_tags});
        if !traces.contains_key(&trace) {
            order.push(trace.clone());
        }
        let t = traces.entry(trace).or_default();
        t.0.push(span);
        t.1.insert(pid, process);
    }
    let data: Vec<Value> = order
        .iter()
        .map(|id| {
            let (spans, processes) = &traces[id];
            json!({"traceID": id, "spans": spans, "processes": processes, "warnings": null})
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "data": data, "total": 0, "limit": 0, "offset": 0, "errors": null
    }))
    .unwrap()
}

/// What every trace input must show: rows = the 429 spans, clients = the services, the nested
/// retries with span ids of the export.
pub fn assert_trace_report(report: &Value, otlp: &str, format: &str) {
    let input = &report["inputs"][0];
    assert_eq!(input["format"], format, "{input:#}");
    assert!(input["error"].is_null(), "{input:#}");
    let limited = limited_span_ids(otlp);
    assert!(!limited.is_empty());
    let rows: BTreeSet<String> = report["rate_limited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["span"]["span_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(rows, limited, "every 429 span is a row, and only those");
    let clients: BTreeSet<String> = report["clients"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(clients, services(otlp), "{:#}", report["clients"]);
    let nested = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "nested_retries")
        .unwrap_or_else(|| panic!("no nested_retries: {:#}", report["findings"]));
    let ev = &nested["evidence"];
    assert_eq!(ev["source"], "trace", "{ev:#}");
    let all_ids: BTreeSet<String> = otlp_spans(otlp)
        .iter()
        .map(|(_, s)| s["spanId"].as_str().unwrap().to_string())
        .collect();
    let chain = &ev["chains"][0];
    assert!(all_ids.contains(chain["owner"]["span_id"].as_str().unwrap()));
    assert_eq!(chain["owner"]["name"], "app.fetch");
    let mut attempts = 0;
    for round in chain["rounds"].as_array().unwrap() {
        assert_eq!(round["under"]["name"], "sdk.get");
        for a in round["attempts"].as_array().unwrap() {
            assert!(all_ids.contains(a["span_id"].as_str().unwrap()), "{a}");
            attempts += 1;
        }
    }
    assert_eq!(chain["attempts"], attempts);
    assert!(ev["outer_attempts"].as_u64().unwrap() >= 2, "{ev:#}");
    assert!(ev["inner_attempts"].as_u64().unwrap() >= 2, "{ev:#}");
}

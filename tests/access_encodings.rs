//! Who sent each 429, whatever the encoding of the log: the held-out access logs of
//! `tests/fixtures/heldout-access/` (eleven formats, each 429's layer and vendor written down
//! from the vendors' docs by someone who had not read toomany's code), the same nginx 429s
//! logged as nginx JSON (`escape=json`, two styles), `key=value` and `k=v` fields after a
//! combined line, the Envoy and Istio 429s as Envoy JSON, the Traefik JSON 429s as Traefik's
//! CLF (`tests/fixtures/access-encodings/`, see its README), and every one of them
//! wrapped as containers and log shippers write them. The bar: the layer right for at
//! least 95 % of the rate-limited lines, the vendor for at least 90 %.
//!
//! CloudFront's file keeps its W3C directives and is read plain only: CloudFront delivers to
//! S3, never through a container's output.

mod common;
use common::wrappers::{self, ALL};
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// Expected 429s per held-out file.
fn expected() -> BTreeMap<String, Vec<Value>> {
    let text = std::fs::read_to_string(fixture("heldout-access/expected.json")).expect("expected");
    let all: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    let mut by: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for c in all {
        by.entry(c["file"].as_str().unwrap().to_string())
            .or_default()
            .push(c);
    }
    by
}

/// One log to read: its path, and for each expected case the line its record starts on.
struct Case {
    label: String,
    path: String,
    /// (line in this file, the expected case)
    lines: Vec<(u64, Value)>,
}

#[derive(Default)]
struct Tally {
    lines: usize,
    layer: usize,
    vendor: usize,
    misses: Vec<String>,
}

impl Tally {
    fn check(&mut self, case: &Case) {
        let report = analyze_json(&case.path);
        let rows: BTreeMap<u64, &Value> = report["rate_limited"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| (r["line"].as_u64().expect("a line"), r))
            .collect();
        for (line, want) in &case.lines {
            self.lines += 1;
            let Some(r) = rows.get(line) else {
                self.misses
                    .push(format!("{}:{line}: not listed", case.label));
                continue;
            };
            let layer_ok = r["layer"] == want["layer"];
            let vendor_ok = r["vendor"] == want["vendor"];
            self.layer += usize::from(layer_ok);
            self.vendor += usize::from(vendor_ok);
            if !(layer_ok && vendor_ok) {
                self.misses.push(format!(
                    "{}:{line}: got {}/{}, expected {}/{} ({})",
                    case.label,
                    r["layer"],
                    r["vendor"],
                    want["layer"],
                    want["vendor"],
                    want["deciding_field"]
                ));
            }
        }
    }
}

/// The first physical line of each record once `text` is wrapped (a CRI record may be split
/// into several lines).
fn first_lines(text: &str, w: wrappers::Wrap) -> Vec<u64> {
    let mut at = 1u64;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            let here = at;
            at += w(l, i).lines().count() as u64;
            here
        })
        .collect()
}

/// Every log to read; the wrapped copies live in `dir`.
fn cases(dir: &std::path::Path) -> Vec<Case> {
    let want = expected();
    let mut out = Vec::new();
    // The held-out logs as they are, and wrapped.
    for (file, cs) in &want {
        let path = fixture(&format!("heldout-access/{file}"));
        out.push(Case {
            label: file.clone(),
            path: path.clone(),
            lines: cs
                .iter()
                .map(|c| (c["line"].as_u64().unwrap(), c.clone()))
                .collect(),
        });
        if file.starts_with("cloudfront") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("fixture");
        for (name, w) in ALL {
            let starts = first_lines(&text, *w);
            let p = write(
                dir,
                &format!("{name}-{file}"),
                wrappers::wrap_all(&text, *w).as_bytes(),
            );
            out.push(Case {
                label: format!("{file} in {name}"),
                path: p,
                lines: cs
                    .iter()
                    .map(|c| (starts[c["line"].as_u64().unwrap() as usize - 1], c.clone()))
                    .collect(),
            });
        }
    }
    // The same nginx 429s in other encodings, plain and wrapped.
    for enc in std::fs::read_dir(fixture("access-encodings")).expect("dir") {
        let name = enc
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let Some(base) = name.split('.').next().filter(|_| name.ends_with(".log")) else {
            continue;
        };
        let cs = &want[&format!("{base}.log")];
        let path = fixture(&format!("access-encodings/{name}"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        out.push(Case {
            label: name.clone(),
            path: path.clone(),
            lines: cs
                .iter()
                .map(|c| (c["line"].as_u64().unwrap(), c.clone()))
                .collect(),
        });
        for (wname, w) in [ALL[0], ALL[1], ALL[4], ALL[5]] {
            let starts = first_lines(&text, w);
            let p = write(
                dir,
                &format!("{wname}-{name}"),
                wrappers::wrap_all(&text, w).as_bytes(),
            );
            out.push(Case {
                label: format!("{name} in {wname}"),
                path: p,
                lines: cs
                    .iter()
                    .map(|c| (starts[c["line"].as_u64().unwrap() as usize - 1], c.clone()))
                    .collect(),
            });
        }
    }
    out
}

#[test]
fn layer_and_vendor_hold_in_every_encoding() {
    let mut t = Tally::default();
    let dir = tempfile::tempdir().expect("tmp");
    let cases = cases(dir.path());
    assert!(cases.len() > 100, "{} logs", cases.len());
    for c in &cases {
        t.check(c);
    }
    for m in &t.misses {
        eprintln!("miss: {m}");
    }
    let pct = |n: usize| 100.0 * n as f64 / t.lines as f64;
    eprintln!(
        "{} rate-limited lines in {} logs: layer right {} ({:.1} %), vendor right {} ({:.1} %)",
        t.lines,
        cases.len(),
        t.layer,
        pct(t.layer),
        t.vendor,
        pct(t.vendor)
    );
    assert!(
        pct(t.layer) >= 95.0,
        "layer right for {:.1} %",
        pct(t.layer)
    );
    assert!(
        pct(t.vendor) >= 90.0,
        "vendor right for {:.1} %",
        pct(t.vendor)
    );
}

#[test]
fn nginx_json_with_upstream_fields_is_attributed_like_the_text_layout() {
    // The deciding cases on their own: an nginx-made 429 (no upstream) is nginx's, a
    // passed-through one (upstream 429) is the API's, in every nginx encoding.
    let want = &expected()["nginx-ingress.log"];
    for enc in ["json", "iso.json", "kv", "trailing"] {
        let r = analyze_json(&fixture(&format!(
            "access-encodings/nginx-ingress.{enc}.log"
        )));
        assert_eq!(r["inputs"][0]["format"], "nginx", "{enc}");
        for c in want {
            let row = r["rate_limited"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["line"] == c["line"])
                .unwrap_or_else(|| panic!("{enc}: line {} not listed", c["line"]));
            assert_eq!(
                (&row["layer"], &row["vendor"]),
                (&c["layer"], &c["vendor"]),
                "{enc} line {}: {row}",
                c["line"]
            );
        }
    }
}

//! Throughput of the ingestion building blocks on one file, without the analysis:
//! `cargo run --release --example scan_speed -- FILE [scan|skip|ingest]`.
//!
//! `scan` walks every event of the JSON scanner, `skip` skips the whole document as one value,
//! `ingest` streams the input through `ingest::stream_input` with a map that keeps nothing;
//! `lines-value` / `lines-lazy` / `lines-raw` parse every line of a JSON-lines file on one thread
//! into a `serde_json::Value`, into an `ingest::lazy` tree, or into `ingest::lazy`'s raw fallback
//! (top-level `RawValue`s, header objects split again), reading `url`, `status` and the entries
//! of both header maps from each.

use std::time::Instant;
use toomany::ingest::scan::{Event, Scanner};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: scan_speed FILE [scan|skip|ingest]");
        std::process::exit(2);
    };
    let mode = args.get(2).map(String::as_str).unwrap_or("scan");
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let t = Instant::now();
    let what = match mode {
        "ingest" => {
            let opts = toomany::ingest::Options::new(toomany::redact::Redactor::from_key_material(
                b"scan_speed",
            ));
            let mut n = 0usize;
            let s =
                toomany::ingest::stream_input(path, &opts, &|r| r.status, &mut |b| n += b.len());
            format!("{n} records, error {:?}", s.error)
        }
        "lines-value" | "lines-lazy" | "lines-raw" => {
            use toomany::ingest::lazy::{self, items, val, Doc, Obj, Val, Wanted};
            let text = std::fs::read_to_string(path).expect("read");
            let t = Instant::now();
            let mut hits = 0usize;
            let wanted = Wanted::all();
            for line in text.lines() {
                if mode == "lines-value" {
                    let v: serde_json::Value = serde_json::from_str(line).expect("json");
                    hits += v["url"].as_str().map_or(0, str::len);
                    hits += (v["status"].as_u64() == Some(429)) as usize;
                    for h in ["request_headers", "response_headers"] {
                        hits += v[h].as_object().map_or(0, |o| o.len());
                    }
                    continue;
                }
                let doc = if mode == "lines-lazy" {
                    lazy::parse(line, &wanted)
                } else {
                    lazy::parse_raw(line)
                };
                if let Ok(Doc::Object(o)) = doc {
                    if let Some(Val::Str(u)) = o.get("url").map(val) {
                        hits += u.len();
                    }
                    if let Some(Val::Num(n)) = o.get("status").map(val) {
                        hits += (n.as_u64() == Some(429)) as usize;
                    }
                    for h in ["request_headers", "response_headers"] {
                        if let Some(ho) = o.get(h).and_then(Obj::of) {
                            hits += ho.entries().len();
                        }
                    }
                    hits += o.get("tags").map_or(0, |t| items(t).len());
                }
            }
            format!("{hits} (parse only {:.2} s)", t.elapsed().as_secs_f64())
        }
        _ => {
            let f = std::fs::File::open(path).expect("open");
            let mut sc = Scanner::new(f);
            if mode == "skip" {
                sc.skip_value()
                    .map(|_| "skipped".to_string())
                    .unwrap_or_else(|e| e.to_string())
            } else {
                let mut events = 0u64;
                loop {
                    match sc.next() {
                        Ok(Event::End) => break format!("{events} events"),
                        Ok(_) => events += 1,
                        Err(e) => break e.to_string(),
                    }
                }
            }
        }
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{mode}: {what}; {:.1} MB in {secs:.2} s = {:.0} MB/s",
        size as f64 / 1e6,
        size as f64 / 1e6 / secs
    );
}

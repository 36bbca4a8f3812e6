//! Determinism of the analysis: the report depends on the records, never on how they reach it.
//!
//! A synthetic incident (several hosts, clients sharing or not sharing a key, 429s and 503s with
//! and without Retry-After, rate-limit headers, retries of the same operation) is analysed in
//! one pass, then split at random into several inputs given in a random command-line order,
//! each input's lines shuffled out of time order, with 1 or 3 analysis threads and 1 or 2
//! ingest workers. Every variant gives the same report as the one pass once each record's
//! location is mapped back to its line in the one file (the `inputs` list, which names the
//! files, is the only part left out). A one-host incident (the case where one host's
//! detectors are shared between threads) gives the same report on 1 to 4 threads.
//!
//! Times are unique per record: two records at one instant in different inputs are ordered by
//! input name (documented in `analyze::order`), which is a different order from one file's.

use proptest::prelude::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use toomany::analyze::{analyze_files, AnalyzeOptions};
use toomany::ingest::Options;
use toomany::redact::Redactor;

const HOSTS: [&str; 3] = ["api.example.com", "cdn.example.net", "api.other.example"];
const PATHS: [&str; 5] = [
    "/v1/orders/1",
    "/v1/orders/2",
    "/v1/items",
    "/v1/search?q=a",
    "/v1/orders",
];

/// One synthetic record: (gap before it in ms, host, client, path, write?, outcome).
type Spec = (u32, usize, usize, usize, bool, u8);

fn record(t_ms: i64, s: &Spec) -> String {
    let (_, host, client, path, write, outcome) = *s;
    let (status, retry_after, remaining) = match outcome % 8 {
        0..=3 => (200, None, 10 + outcome as u32),
        4 => (429, Some("2"), 0),
        5 => (429, None, 0),
        6 => (429, Some("30"), 0),
        _ => (503, Some("1"), 5),
    };
    // Clients 0 and 1 share a key; the others have their own.
    let key = if client < 2 { 0 } else { client };
    let mut response_headers = format!(
        r#""Content-Type":"application/json","X-RateLimit-Limit":"60","X-RateLimit-Remaining":"{remaining}""#
    );
    if let Some(ra) = retry_after {
        response_headers.push_str(&format!(r#","Retry-After":"{ra}""#));
    }
    let body = if status == 429 {
        r#","response_body":"{\"error\":\"rate_limited\"}""#
    } else {
        ""
    };
    let (method, path) = if write {
        ("POST", PATHS[4])
    } else {
        ("GET", PATHS[path % 4])
    };
    format!(
        r#"{{"ts":{t_ms},"method":"{method}","url":"https://{host}{path}","status":{status},"duration_ms":{dur},"client":"worker-{client}","request_headers":{{"Authorization":"Bearer sk-test-{key:020}","User-Agent":"sync/1.0"}},"response_headers":{{{response_headers}}}{body}}}"#,
        host = HOSTS[host],
        dur = 20 + (t_ms % 170),
    )
}

/// The lines of the one-file incident, in time order.
fn incident(specs: &[Spec]) -> Vec<String> {
    let mut t: i64 = 1_764_590_400_000;
    specs
        .iter()
        .map(|s| {
            t += 1 + s.0 as i64;
            record(t, s)
        })
        .collect()
}

fn opts(workers: usize) -> Options {
    let mut o = Options::new(Redactor::from_key_material(b"analysis properties key"));
    o.threads = Some(workers);
    o
}

/// The JSON report of `files`, on a pool of `threads`.
fn report(files: &[String], threads: usize, workers: usize) -> Value {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let r = pool.install(|| {
        analyze_files(
            files,
            &opts(workers),
            &AnalyzeOptions::default(),
            &toomany::recommend::Options::default(),
        )
    });
    serde_json::to_value(&r).expect("report as JSON")
}

/// `v` with every `{source, line}` mapped to the one file's line, the input list and the
/// version left out.
fn normalized(mut v: Value, back: &HashMap<(String, u64), u64>) -> Value {
    fn walk(v: &mut Value, back: &HashMap<(String, u64), u64>) {
        match v {
            Value::Object(m) => {
                let loc = match (m.get("source"), m.get("line")) {
                    (Some(Value::String(s)), Some(Value::Number(n))) => {
                        n.as_u64().map(|n| (s.clone(), n))
                    }
                    _ => None,
                };
                if let Some(key) = loc {
                    let line = back.get(&key).copied().unwrap_or(0);
                    m.insert("source".into(), Value::String("one.jsonl".into()));
                    m.insert("line".into(), Value::from(line));
                }
                for (_, x) in m.iter_mut() {
                    walk(x, back);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, back)),
            _ => {}
        }
    }
    if let Value::Object(m) = &mut v {
        m.remove("inputs");
        m.remove("generated_by");
    }
    walk(&mut v, back);
    v
}

fn write(dir: &Path, name: &str, lines: &[&String]) -> String {
    let p = dir.join(name);
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(&p, text).expect("write input");
    p.to_string_lossy().into_owned()
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop_oneof![8 => 0u32..400, 2 => 400u32..5_000, 1 => 60_000u32..200_000],
        prop_oneof![6 => Just(0usize), 2 => Just(1usize), 1 => Just(2usize)],
        0usize..5,
        0usize..4,
        proptest::bool::weighted(0.15),
        any::<u8>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn split_shuffled_and_threaded_reports_equal_the_one_pass(
        specs in proptest::collection::vec(spec(), 30..260),
        parts in 1usize..5,
        assign in proptest::collection::vec(0usize..4, 260),
        shuffle_seed in any::<u64>(),
        threads in prop_oneof![Just(1usize), Just(3usize), Just(5usize)],
        workers in 1usize..3,
        rotate in 0usize..4,
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let lines = incident(&specs);
        let all: Vec<&String> = lines.iter().collect();
        let one = write(dir.path(), "one.jsonl", &all);
        let mut back: HashMap<(String, u64), u64> = HashMap::new();
        for n in 1..=lines.len() as u64 {
            back.insert((one.clone(), n), n);
        }
        let expected = normalized(report(std::slice::from_ref(&one), 2, 2), &back);

        // Split: each record to a random part, each part's lines shuffled (a seeded
        // permutation), the parts named in a rotated order on the command line.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); parts];
        for (i, _) in lines.iter().enumerate() {
            members[assign[i] % parts].push(i);
        }
        let mut state = shuffle_seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut files = Vec::new();
        for (j, m) in members.iter_mut().enumerate() {
            for k in (1..m.len()).rev() {
                let r = (next() % (k as u64 + 1)) as usize;
                m.swap(k, r);
            }
            let name = format!("part-{j}.jsonl");
            let chosen: Vec<&String> = m.iter().map(|&i| &lines[i]).collect();
            let path = write(dir.path(), &name, &chosen);
            for (n, &i) in m.iter().enumerate() {
                back.insert((path.clone(), n as u64 + 1), i as u64 + 1);
            }
            files.push(path);
        }
        let r = rotate % files.len();
        files.rotate_left(r);
        let got = normalized(report(&files, threads, workers), &back);
        prop_assert!(
            got == expected,
            "report differs: {} parts, {} threads, {} workers\n--- one pass\n{}\n--- split\n{}",
            parts, threads, workers,
            serde_json::to_string_pretty(&expected).unwrap_or_default(),
            serde_json::to_string_pretty(&got).unwrap_or_default()
        );
    }

    /// One busy host on several threads: the host's detectors are shared between two lanes
    /// (each linking the host's requests itself) and its evidence and overview built on a
    /// third; the report is the one-thread one, byte for byte.
    #[test]
    fn one_host_reports_do_not_depend_on_the_thread_count(
        specs in proptest::collection::vec(spec(), 30..400),
        threads in prop_oneof![Just(2usize), Just(3usize), Just(4usize)],
        workers in 1usize..3,
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let specs: Vec<Spec> = specs.into_iter().map(|(gap, _, c, p, w, o)| (gap / 8, 0, c, p, w, o)).collect();
        let lines = incident(&specs);
        let all: Vec<&String> = lines.iter().collect();
        let one = write(dir.path(), "one.jsonl", &all);
        let expected = serde_json::to_string(&report(std::slice::from_ref(&one), 1, 1)).unwrap_or_default();
        let got = serde_json::to_string(&report(std::slice::from_ref(&one), threads, workers)).unwrap_or_default();
        prop_assert!(got == expected, "report differs on {} threads, {} workers\n--- 1 thread\n{}\n--- {} threads\n{}", threads, workers, expected, threads, got);
    }
}

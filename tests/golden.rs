//! Golden JSON reports: `toomany analyze --format json` of every sample, every real exporter
//! file in the corpus (`tests/corpus/real-har`), and every held-out case and fixture in `tests/`, compared byte
//! for byte with `tests/golden/**.json`. They pin the *results* of the analysis while its engine
//! changes: a difference is either a bug (fix it) or a deliberate fix (regenerate, and name each
//! difference in the commit message).
//!
//! Regenerate: `TOOMANY_BLESS=1 cargo test --test golden`
//!
//! Each case runs with the default thread count, `--threads 1` or `--threads 3` in turn: the
//! report must not depend on it.
//!
//! Fingerprints are made stable with `tests/fixtures/fingerprint.key`; the one run-dependent
//! field left (`generated_by`, the version) is masked.

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// One golden case: the file it is stored in, and the arguments after `analyze`.
struct Case {
    golden: String,
    args: Vec<String>,
}

fn case(golden: String, files: &[&str], extra: &[&str]) -> Case {
    let mut args: Vec<String> = files.iter().map(|s| s.to_string()).collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    Case { golden, args }
}

/// File names in `dir` (relative to the repo) ending in one of `exts`, sorted.
fn files_in(dir: &str, exts: &[&str]) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(repo().join(dir)) else {
        return vec![];
    };
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| exts.iter().any(|x| n.ends_with(x)))
        .collect();
    v.sort();
    v
}

fn stem(name: &str) -> &str {
    name.trim_end_matches(".gz")
}

fn cases() -> Vec<Case> {
    let mut out = vec![];
    for f in files_in("samples", &[".har", ".jsonl"]) {
        out.push(case(
            format!("samples/{}.json", stem(&f)),
            &[&format!("samples/{f}")],
            &[],
        ));
    }
    // The samples as the README shows them: one with a known limit, and several inputs at once.
    out.push(case(
        "samples/api-incident+limit.json".into(),
        &["samples/api-incident.jsonl"],
        &["--limit", "120/min"],
    ));
    out.push(case(
        "samples/all-samples.json".into(),
        &[
            "samples/api-incident.jsonl",
            "samples/batch-burst.jsonl",
            "samples/cdn-burst.har",
            "samples/retry-storm.jsonl",
        ],
        &[],
    ));
    for f in files_in("tests/fixtures/attribution", &[".har", ".jsonl"]) {
        out.push(case(
            format!("fixtures-attribution/{}.json", stem(&f)),
            &[&format!("tests/fixtures/attribution/{f}")],
            &[],
        ));
    }
    for f in files_in("tests/fixtures/heldout", &[".har", ".jsonl"]) {
        out.push(case(
            format!("fixtures-heldout/{}.json", stem(&f)),
            &[&format!("tests/fixtures/heldout/{f}")],
            &[],
        ));
    }
    for f in files_in("tests/scenarios", &[".gz"]) {
        out.push(case(
            format!("scenarios/{}.json", stem(&f)),
            &[&format!("tests/scenarios/{f}")],
            &[],
        ));
    }
    // The held-out detector scenarios, with the arguments their evaluation uses.
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/heldout/expected.json"))
            .expect("tests/heldout/expected.json"),
    )
    .expect("valid expected.json");
    for (name, s) in expected.as_object().expect("object") {
        let file = format!("tests/heldout/{}", s["file"].as_str().expect("file"));
        let extra: Vec<&str> = s["args"]
            .as_array()
            .expect("args")
            .iter()
            .filter_map(|a| a.as_str())
            .collect();
        out.push(case(format!("heldout/{name}.json"), &[&file], &extra));
    }
    for f in files_in("tests/corpus/real-har", &[".har"]) {
        out.push(case(
            format!("corpus/{}.json", f.trim_end_matches(".har")),
            &[&format!("tests/corpus/real-har/{f}")],
            &[],
        ));
    }
    out
}

/// The report of one case with run-dependent fields masked; for a run that fails, its exit
/// code and the first line of its error (the golden file then pins the failure). `threads`:
/// the `--threads` to run with (reports must not depend on it).
fn report(c: &Case, threads: Option<usize>) -> String {
    let mut cmd = toomany();
    cmd.current_dir(repo()).arg("analyze").args(&c.args);
    if let Some(t) = threads {
        cmd.args(["--threads", &t.to_string()]);
    }
    let out = cmd
        .args([
            "--format",
            "json",
            "--fingerprint-key-file",
            "tests/fixtures/fingerprint.key",
        ])
        .output()
        .expect("toomany runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{}: {stderr}", c.golden);
    if !out.status.success() {
        let first = stderr.lines().next().unwrap_or("");
        return format!(
            "{{\n  \"exit\": {},\n  \"error\": {}\n}}\n",
            out.status.code().unwrap_or(-1),
            serde_json::Value::String(first.to_string())
        );
    }
    let text = String::from_utf8(out.stdout).expect("UTF-8 report");
    mask(&text)
}

fn mask(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    for line in text.lines() {
        if line.starts_with("  \"generated_by\": ") {
            out.push_str("  \"generated_by\": \"toomany (masked)\",");
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// First differing line, with a little context, for a readable failure.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let n = w.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let from = n.saturating_sub(3);
    let show = |v: &[&str]| v[from.min(v.len())..(n + 3).min(v.len())].join("\n");
    format!(
        "first difference at line {}:\n--- golden\n{}\n--- now\n{}",
        n + 1,
        show(&w),
        show(&g)
    )
}

#[test]
fn reports_match_the_golden_files() {
    let bless = std::env::var_os("TOOMANY_BLESS").is_some();
    let root = repo().join("tests/golden");
    let cases = cases();
    assert!(cases.len() >= 80, "golden set lost cases: {}", cases.len());
    // Two workers: the cases are independent processes.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(usize, String)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut got = vec![];
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(c) = cases.get(i) else { break };
                        // The cases alternate between the default thread count, one thread
                        // and three: every golden file holds for all of them.
                        let threads = [None, Some(1), Some(3)][i % 3];
                        got.push((i, report(c, threads)));
                    }
                    got
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    let mut failures = vec![];
    for (i, got) in results {
        let c = &cases[i];
        let path: PathBuf = root.join(&c.golden);
        if bless {
            write_golden(&path, &got);
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(want) if want == got => {}
            Ok(want) => failures.push(format!(
                "{} (toomany analyze {}): {}",
                c.golden,
                c.args.join(" "),
                first_difference(&want, &got)
            )),
            Err(e) => failures.push(format!(
                "{}: no golden file ({e}); run TOOMANY_BLESS=1 cargo test --test golden",
                c.golden
            )),
        }
    }
    // A golden file no case writes any more is a case that was lost.
    let known: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.golden.as_str()).collect();
    for group in [
        "samples",
        "fixtures-attribution",
        "fixtures-heldout",
        "scenarios",
        "heldout",
    ] {
        for f in files_in(&format!("tests/golden/{group}"), &[".json"]) {
            let name = format!("{group}/{f}");
            if !known.contains(name.as_str()) {
                failures.push(format!(
                    "{name}: golden file without a case (delete it if the case is gone)"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden report(s) differ (regenerate with TOOMANY_BLESS=1 cargo test --test golden \
         only when each difference is a deliberate fix):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn write_golden(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create tests/golden");
    }
    std::fs::write(path, text).expect("write golden file");
}

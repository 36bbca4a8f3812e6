//! Thousands of small inputs (ALB and CloudFront write thousands of files a day): 2,000 one-line
//! files give the report of their concatenation, once where each record came from is set aside
//! (its file and line, and the list of inputs). Memory against the number of files is measured by
//! `scripts/mem-bench.sh files`, not here.

mod common;
use common::toomany;
use serde_json::Value;
use std::io::Write;

const FILES: usize = 2000;

/// One JSON line: a second apart (so the merged order is the concatenation's), every 10th a 429
/// with Retry-After, four clients, fifty URLs.
fn line(i: usize) -> String {
    let status = if i.is_multiple_of(10) { 429 } else { 200 };
    format!(
        r#"{{"ts":{},"method":"GET","url":"https://api.example.com/v1/x/{}","status":{status},"client":"w{}","response_headers":{{"Retry-After":"2"}}}}"#,
        1_714_564_800_000u64 + i as u64 * 1000,
        i % 50,
        i % 4
    )
}

/// The report without where each record came from.
fn without_places(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in [
                "source", "line", "entry", "inputs", "at", "first_at", "last_at",
            ] {
                m.remove(k);
            }
            m.values_mut().for_each(without_places);
        }
        Value::Array(a) => a.iter_mut().for_each(without_places),
        _ => {}
    }
}

fn report(dir: &std::path::Path, files: &[String]) -> Value {
    let out = toomany()
        .current_dir(dir)
        .args(["analyze", "--format", "json", "--"])
        .args(files)
        .output()
        .expect("analyze runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

#[test]
fn two_thousand_one_line_files_report_as_their_concatenation() {
    let tmp = tempfile::tempdir().unwrap();
    let mut names = Vec::with_capacity(FILES);
    let mut all = std::fs::File::create(tmp.path().join("all.jsonl")).unwrap();
    for i in 0..FILES {
        let name = format!("f{i:05}.jsonl");
        std::fs::write(tmp.path().join(&name), line(i) + "\n").unwrap();
        writeln!(all, "{}", line(i)).unwrap();
        names.push(name);
    }
    drop(all);
    let mut many = report(tmp.path(), &names);
    let mut one = report(tmp.path(), &["all.jsonl".to_string()]);
    assert_eq!(many["inputs"].as_array().map(Vec::len), Some(FILES));
    assert_eq!(many["summary"]["requests"], FILES as u64);
    assert_eq!(
        many["rate_limited"].as_array().map(Vec::len),
        Some(FILES / 10)
    );
    // The rows are listed in time order, file by file.
    assert_eq!(many["rate_limited"][1]["source"], "f00010.jsonl");
    without_places(&mut many);
    without_places(&mut one);
    assert_eq!(many, one);
}

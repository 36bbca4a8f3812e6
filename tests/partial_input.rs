//! Truncated or trailing input is not quiet: a JSON-lines log truncated while it is read, one
//! whose last record is cut, and data after a HAR document are said in the report's summary
//! line and in `inputs[].incomplete` (and `summary.partial_inputs`), not only in a warning.

mod common;
use common::*;
use std::path::Path;

fn analyze(path: &str, format: &str) -> (i32, String, String) {
    let out = toomany()
        .args(["analyze", path, "--format", format])
        .output()
        .unwrap();
    (
        out.status.code().expect("exited"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The report's JSON says `kind` for `path`, and its table's first line says the input is
/// partial.
fn assert_partial(path: &str, kind: &str, short: &str) {
    let (code, json, err) = analyze(path, "json");
    assert_eq!(code, 0, "{err}");
    let rep = json_of(json.as_bytes());
    assert_eq!(rep["schema_version"], 1);
    assert_eq!(rep["inputs"][0]["incomplete"]["kind"], kind, "{rep:#}");
    assert_eq!(rep["summary"]["partial_inputs"][0], path);
    let (_, table, _) = analyze(path, "table");
    let first = table.lines().next().unwrap();
    assert!(
        first.contains("; partial: ") && first.contains(short),
        "{first}"
    );
    let (_, md, _) = analyze(path, "markdown");
    assert!(md.contains(short), "markdown says it too");
}

#[test]
fn a_json_lines_log_whose_last_record_is_cut_is_partial() {
    let text = std::fs::read(sample("api-incident.jsonl")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cut = write(tmp.path(), "cut.jsonl", &text[..text.len() - 30]);
    assert_partial(&cut, "cut_record", "ends inside a record");
    // A last line without an end of line that is a whole record is not cut.
    let whole = write(tmp.path(), "whole.jsonl", &text[..text.len() - 1]);
    let (_, json, _) = analyze(&whole, "json");
    let rep = json_of(json.as_bytes());
    assert!(rep["inputs"][0].get("incomplete").is_none(), "{rep:#}");
    assert!(rep["summary"].get("partial_inputs").is_none());
    // `verify` judges a whole batch: a cut one is refused, not judged on its part.
    let plan = tmp.path().join("cfg");
    toomany()
        .args([
            "plan",
            "--requests",
            "20",
            "--limit",
            "60/min",
            "--emit-config",
        ])
        .arg(&plan)
        .assert()
        .success();
    let out = toomany()
        .args(["verify", &cut, "--plan"])
        .arg(plan.join("toomany.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not be read in full"));
}

#[test]
fn data_after_a_har_is_said_not_accepted_quietly() {
    let har = std::fs::read(sample("cdn-burst.har")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut junk = har.clone();
    junk.extend_from_slice(b"\n{\"log\": {\"entries\": []}}\ngarbage\n");
    let p = write(tmp.path(), "junk.har", &junk);
    assert_partial(&p, "trailing_data", "data after the HAR not read");
    let (_, json, err) = analyze(&p, "json");
    let msg = json_of(json.as_bytes())["inputs"][0]["incomplete"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(msg.contains("33 bytes") && msg.contains("line"), "{msg}");
    assert!(err.contains(&msg), "said on stderr too: {err}");
    // Whitespace after the document, and a JSONP callback's `);`, are no trailing data.
    let mut jsonp = b"onInputData(".to_vec();
    jsonp.extend_from_slice(&har);
    jsonp.extend_from_slice(b");\n\n");
    let mut spaced = har.clone();
    spaced.extend_from_slice(b"\n\n  \n");
    for (name, bytes) in [("jsonp.har", jsonp), ("spaced.har", spaced)] {
        let p = write(tmp.path(), name, &bytes);
        let (code, json, err) = analyze(&p, "json");
        assert_eq!(code, 0, "{name}: {err}");
        let rep = json_of(json.as_bytes());
        assert!(
            rep["inputs"][0].get("incomplete").is_none(),
            "{name}: {rep:#}"
        );
    }
}

/// The file position the process `pid` has reached in `file`, if it has it open.
#[cfg(target_os = "linux")]
fn read_position(pid: u32, file: &Path) -> Option<u64> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    for fd in fds.flatten() {
        if std::fs::read_link(fd.path()).ok().as_deref() != Some(file) {
            continue;
        }
        let info =
            std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_str()?))
                .ok()?;
        let pos = info.lines().find_map(|l| l.strip_prefix("pos:"))?;
        return pos.trim().parse().ok();
    }
    None
}

/// The probe's case: a JSON-lines log truncated while `analyze` reads it (as copy-and-truncate
/// rotation does). The run is caught mid-read by its file position, then the file is cut to a
/// tenth; the report says the input is partial.
#[cfg(target_os = "linux")]
#[test]
fn a_log_truncated_while_it_is_read_is_partial() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("rotating.jsonl");
    let line = std::fs::read_to_string(sample("api-incident.jsonl")).unwrap();
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    while f.get_ref().metadata().unwrap().len() < 40 << 20 {
        f.write_all(line.as_bytes()).unwrap();
        f.flush().unwrap();
    }
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    let bin = assert_cmd::cargo::cargo_bin("toomany");
    let child = std::process::Command::new(bin)
        .args([
            "analyze",
            path.to_str().unwrap(),
            "-j",
            "1",
            "--format",
            "json",
        ])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it has read part of the file (not all of it), then truncate.
    let canonical = std::fs::canonicalize(&path).unwrap();
    let mut caught = false;
    for _ in 0..200_000 {
        match read_position(child.id(), &canonical) {
            Some(pos) if pos > 0 && pos < size / 2 => {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(size / 10)
                    .unwrap();
                caught = true;
                break;
            }
            Some(pos) if pos >= size / 2 => break,
            _ => std::thread::sleep(std::time::Duration::from_micros(200)),
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        caught,
        "the run was caught while it read the first half of the file"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let rep = json_of(&out.stdout);
    let inc = &rep["inputs"][0]["incomplete"];
    assert_eq!(inc["kind"], "shrank", "{rep:#}");
    let msg = inc["message"].as_str().unwrap();
    assert!(msg.contains(&format!("{size} bytes when opened")), "{msg}");
    assert!(err.contains("truncated while it was read"), "{err}");
    assert_eq!(rep["summary"]["partial_inputs"][0], path.to_str().unwrap());
}

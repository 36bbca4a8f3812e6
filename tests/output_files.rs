//! Where outputs land: `-o` (analyze, redact) and `--emit-config` never replace a device, FIFO,
//! symlink or input; regular files are written atomically; interrupted or failed writes leave
//! no temp file and no half set.
#![cfg(unix)]

mod common;
use common::*;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("toomany-tmp"))
        .collect()
}

fn is_fifo(p: &Path) -> bool {
    fs::symlink_metadata(p).unwrap().file_type().is_fifo()
}

fn mkfifo(p: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo works");
}

/// Read a FIFO to its end on a thread (a writer blocks until a reader opens it).
fn drain(p: &Path) -> std::thread::JoinHandle<Vec<u8>> {
    let p = p.to_path_buf();
    std::thread::spawn(move || fs::read(p).unwrap())
}

#[test]
fn analyze_and_redact_write_into_a_fifo_without_replacing_it() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("report.pipe");
    mkfifo(&fifo);
    let reader = drain(&fifo);
    toomany()
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--format",
            "json",
            "-o",
        ])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let got = reader.join().unwrap();
    assert_eq!(json_of(&got)["schema_version"], 1);
    assert!(is_fifo(&fifo), "still a FIFO");

    // `redact -o FIFO` needs no --force: nothing is replaced.
    let reader = drain(&fifo);
    toomany()
        .args(["redact", &sample("cdn-burst.har"), "-o"])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let got = reader.join().unwrap();
    assert!(json_of(&got)["log"]["entries"].is_array());
    assert!(is_fifo(&fifo));
    assert!(leftovers(d.path()).is_empty());
}

/// A character device made in a temp dir (the null device's numbers, 1:3). Needs root (or
/// CAP_MKNOD); skipped with a note otherwise.
fn null_device(dir: &Path) -> Option<PathBuf> {
    let p = dir.join("null");
    let made = std::process::Command::new("mknod")
        .arg(&p)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !made {
        common::skipped(
            "the character-device case: mknod is not permitted here (needs root or CAP_MKNOD)",
            &[],
        );
        return None;
    }
    Some(p)
}

#[test]
fn a_character_device_is_written_in_place_never_replaced() {
    let d = tempfile::tempdir().unwrap();
    let Some(dev) = null_device(d.path()) else {
        return;
    };
    for args in [
        vec!["analyze", &sample("cdn-burst.har")[..]],
        vec!["redact", &sample("cdn-burst.har")[..]],
    ] {
        toomany().args(&args).arg("-o").arg(&dev).assert().success();
        let ft = fs::symlink_metadata(&dev).unwrap().file_type();
        assert!(ft.is_char_device(), "{args:?}: still a character device");
    }
    assert!(leftovers(d.path()).is_empty());
    // A symlink to the device is written through to it.
    let link = d.path().join("to-null");
    std::os::unix::fs::symlink(&dev, &link).unwrap();
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o"])
        .arg(&link)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::metadata(&dev).unwrap().file_type().is_char_device());
}

#[test]
fn dev_full_reports_the_write_error_by_the_users_path() {
    if !Path::new("/dev/full").exists() {
        common::skipped("the write-error case: this system has no /dev/full", &[]);
        return;
    }
    let out = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o", "/dev/full"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("cannot write /dev/full"), "{err}");
}

#[test]
fn a_symlink_is_written_through_and_stays_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    let real = d.path().join("real.json");
    let link = d.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    // Dangling: the target is created.
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o"])
        .arg(&link)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(json_of(&fs::read(&real).unwrap())["schema_version"], 1);
    // Existing target: replaced (atomically, at the target) only with --force.
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o"])
        .arg(&link)
        .assert()
        .code(2);
    toomany()
        .args(["redact", &sample("cdn-burst.har"), "--force", "-o"])
        .arg(&link)
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(json_of(&fs::read(&real).unwrap())["log"].is_object());
    assert!(leftovers(d.path()).is_empty());
}

#[test]
fn the_input_is_never_written_over_however_it_is_named() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.har");
    fs::copy(sample("cdn-burst.har"), &input).unwrap();
    let before = fs::read(&input).unwrap();
    let link = d.path().join("alias.json");
    std::os::unix::fs::symlink("in.har", &link).unwrap();
    let hard = d.path().join("hard.json");
    fs::hard_link(&input, &hard).unwrap();
    let spelled = d.path().join(".").join("in.har");
    for out in [&input, &link, &hard, &spelled] {
        for cmd in ["analyze", "redact"] {
            let a = toomany()
                .arg(cmd)
                .arg(&input)
                .arg("--force")
                .arg("-o")
                .arg(out)
                .assert()
                .code(2);
            let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
            assert!(err.contains("input"), "{cmd} -o {}: {err}", out.display());
            assert!(!err.contains("toomany-tmp"), "{err}");
        }
    }
    // The input read from stdin counts too.
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("toomany"))
        .args(["analyze", "-", "--force", "-o"])
        .arg(&hard)
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("input"));
    assert_eq!(fs::read(&input).unwrap(), before);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn emit_config_never_touches_an_input_or_the_report() {
    let d = tempfile::tempdir().unwrap();
    let e = d.path().join("e");
    fs::create_dir(&e).unwrap();
    // The input is named like a config file the set would write.
    let input = e.join("toomany.json");
    fs::copy(sample("cdn-burst.har"), &input).unwrap();
    let before = fs::read(&input).unwrap();
    let a = toomany()
        .arg("analyze")
        .arg(&input)
        .arg("--emit-config")
        .arg(&e)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("toomany.json") && err.contains("input"),
        "{err}"
    );
    assert_eq!(fs::read(&input).unwrap(), before);
    // No half set: the refusal came before any file was written.
    let names: Vec<_> = fs::read_dir(&e)
        .unwrap()
        .map(|x| x.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");

    // The -o report and a config file are the same file.
    let e2 = d.path().join("e2");
    let a = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--emit-config"])
        .arg(&e2)
        .arg("-o")
        .arg(e2.join("toomany.json"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("report"), "{err}");
    assert!(!e2.join("toomany.toml").exists(), "nothing written");

    // A report beside the configs, in a directory --emit-config creates, is fine.
    let e3 = d.path().join("e3");
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--emit-config"])
        .arg(&e3)
        .arg("-o")
        .arg(e3.join("report.json"))
        .assert()
        .success();
    assert!(e3.join("report.json").is_file() && e3.join("toomany.toml").is_file());
    assert!(leftovers(&e3).is_empty());
}

#[test]
fn emit_config_onto_a_file_or_a_fifo_names_the_path_and_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("plain.txt");
    fs::write(&file, "x").unwrap();
    let a = toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "1/s",
            "--emit-config",
        ])
        .arg(&file)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains(&file.display().to_string()) && err.contains("not a directory"),
        "{err}"
    );
    // A FIFO where a config file goes: refused before any file is written.
    let e = d.path().join("e");
    fs::create_dir(&e).unwrap();
    mkfifo(&e.join("envoy.yaml"));
    let a = toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "1/s",
            "--emit-config",
        ])
        .arg(&e)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("envoy.yaml") && err.contains("regular"),
        "{err}"
    );
    assert!(is_fifo(&e.join("envoy.yaml")));
    assert!(!e.join("toomany.toml").exists());
}

/// A tmpfs too small for the set: the write fails and leaves no file and no temp file. Needs
/// root (mount); skipped with a note otherwise.
#[test]
fn emit_config_on_a_full_disk_leaves_no_half_set() {
    let d = tempfile::tempdir().unwrap();
    let mnt = d.path().join("small");
    fs::create_dir(&mnt).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"])
        .arg(&mnt)
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !mounted {
        common::skipped(
            "the full-disk case: cannot mount a small tmpfs here (needs root)",
            &[],
        );
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _guard = Unmount(mnt.clone());
    let a = toomany()
        .args([
            "plan",
            "--requests",
            "10",
            "--limit",
            "1/s",
            "--emit-config",
        ])
        .arg(&mnt)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("No space left") && err.contains("none of the"),
        "{err}"
    );
    assert!(!err.contains("toomany-tmp"), "{err}");
    let left: Vec<_> = fs::read_dir(&mnt)
        .unwrap()
        .map(|x| x.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "no half set, no temp: {left:?}");
}

#[test]
fn o_dash_is_stdout_and_o_into_a_missing_directory_says_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    let out = toomany()
        .current_dir(d.path())
        .args([
            "analyze",
            &sample("cdn-burst.har"),
            "--format",
            "json",
            "-o",
            "-",
        ])
        .assert()
        .success();
    assert_eq!(json_of(&out.get_output().stdout)["schema_version"], 1);
    assert!(!d.path().join("-").exists(), "no file named -");

    let missing = d.path().join("no-such-dir").join("r.json");
    for cmd in ["analyze", "redact"] {
        let a = toomany()
            .args([cmd, &sample("cdn-burst.har"), "-o"])
            .arg(&missing)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(
            err.contains(&missing.display().to_string())
                && err.contains("does not exist")
                && err.contains("mkdir -p"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn analyze_o_refuses_an_existing_file_without_force() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("r.txt");
    fs::write(&p, "keep me").unwrap();
    let a = toomany()
        .args(["analyze", &sample("cdn-burst.har"), "-o"])
        .arg(&p)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("--force") && err.contains("r.txt"), "{err}");
    assert_eq!(fs::read(&p).unwrap(), b"keep me");
    toomany()
        .args(["analyze", &sample("cdn-burst.har"), "--force", "-o"])
        .arg(&p)
        .assert()
        .success();
    assert_ne!(fs::read(&p).unwrap(), b"keep me");
}

/// The child half of the signal test: starts writing, then waits to be interrupted. Does
/// nothing unless the parent test set the variable.
#[test]
fn child_writes_until_interrupted() {
    let Ok(dir) = std::env::var("TOOMANY_SIGNAL_CHILD_DIR") else {
        return;
    };
    let target = Path::new(&dir).join("out.json");
    let rules = toomany::output::Rules {
        flag: "-o",
        inputs: &[],
        force: false,
    };
    let f = toomany::output::prepare(&target, &rules).unwrap();
    let _ = f.write_with(|w: &mut dyn std::io::Write| {
        w.write_all(&[b'x'; 300_000])?;
        w.flush()?;
        fs::write(Path::new(&dir).join("started"), "")?;
        std::thread::sleep(std::time::Duration::from_secs(30));
        Ok(())
    });
    panic!("not interrupted");
}

#[test]
fn an_interrupted_write_removes_its_temp_file() {
    for (sig, code) in [("INT", 2), ("TERM", 15)] {
        let d = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_writes_until_interrupted", "--nocapture"])
            .env("TOOMANY_SIGNAL_CHILD_DIR", d.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = d.path().join("started");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !started.exists() {
            assert!(std::time::Instant::now() < deadline, "child never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            leftovers(d.path()).len(),
            1,
            "the temp file exists mid-write"
        );
        let killed = std::process::Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(code), "dies of SIG{sig}: {status:?}");
        assert!(
            leftovers(d.path()).is_empty(),
            "SIG{sig}: temp file removed"
        );
        assert!(!d.path().join("out.json").exists());
    }
}

// ---------------------------------------------------------------------------------------------
// A new output never clobbers (issue 41): what appears at the path during the run is kept and
// the run refuses; the directory is checked writable before the work.
// ---------------------------------------------------------------------------------------------

/// `toomany ARGS` started with a FIFO as its input; returns once the run has opened the FIFO
/// (so it has prepared its outputs: that happens before any input is read), with the FIFO's
/// write end for the test to feed.
fn started_on_fifo(args: &[&str], fifo: &Path) -> (std::process::Child, fs::File) {
    let bin = assert_cmd::cargo::cargo_bin("toomany");
    let child = std::process::Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Opening a FIFO for writing blocks until its reader opens it.
    let w = fs::OpenOptions::new().write(true).open(fifo).unwrap();
    (child, w)
}

fn finish(child: std::process::Child) -> (i32, String) {
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().expect("exited"), err)
}

/// Two `analyze -o same.json` at once: both find no file when they begin; the second to
/// finish refuses (exit 2) and the file is the first one's whole report.
#[test]
fn two_concurrent_runs_to_one_new_path_one_refuses_and_the_file_is_whole() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("same.json");
    let input = fs::read(sample("api-incident.jsonl")).unwrap();
    let (fa, fb) = (d.path().join("a.fifo"), d.path().join("b.fifo"));
    mkfifo(&fa);
    mkfifo(&fb);
    let out_s = out.to_str().unwrap();
    let (a, mut wa) = started_on_fifo(&["analyze", fa.to_str().unwrap(), "-o", out_s], &fa);
    let (b, mut wb) = started_on_fifo(&["analyze", fb.to_str().unwrap(), "-o", out_s], &fb);
    // Both have prepared `same.json` (absent); now let them finish.
    wa.write_all(&input).unwrap();
    drop(wa);
    let (code_a, err_a) = finish(a);
    wb.write_all(&input).unwrap();
    drop(wb);
    let (code_b, err_b) = finish(b);
    assert_eq!((code_a, code_b), (0, 2), "a: {err_a}\nb: {err_b}");
    assert!(
        err_b.contains("did not exist when this run began"),
        "{err_b}"
    );
    assert!(err_b.contains(out_s), "{err_b}");
    let report = json_of(&fs::read(&out).unwrap());
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["inputs"][0]["source"], fa.to_str().unwrap());
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

/// A file saved at the output path while the run works is kept, for `analyze -o` and
/// `redact -o`; with `--force` and a file there from the start, it is replaced as asked.
#[test]
fn a_file_written_during_the_run_is_not_lost() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let input = fs::read(sample("api-incident.jsonl")).unwrap();
    let fifo = d.path().join("in.fifo");
    mkfifo(&fifo);
    for (cmd, name) in [("analyze", "report.md"), ("redact", "clean.jsonl")] {
        let out = d.path().join(name);
        let args = [cmd, fifo.to_str().unwrap(), "-o", out.to_str().unwrap()];
        let (child, mut w) = started_on_fifo(&args, &fifo);
        fs::write(&out, "precious").unwrap();
        w.write_all(&input).unwrap();
        drop(w);
        let (code, err) = finish(child);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("did not exist when this run began"),
            "{cmd}: {err}"
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), "precious", "{cmd}");
        assert!(leftovers(d.path()).is_empty(), "{cmd}");
    }
    // Replacing a file that was there from the start is what --force asks for.
    let out = d.path().join("report.md");
    let args = [
        "analyze",
        fifo.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ];
    let (child, mut w) = started_on_fifo(&args, &fifo);
    w.write_all(&input).unwrap();
    drop(w);
    let (code, err) = finish(child);
    assert_eq!(code, 0, "{err}");
    assert_ne!(fs::read_to_string(&out).unwrap(), "precious");
}

/// A directory no file can be created in is refused before the work: the input (a FIFO no one
/// ever writes to) is not even opened.
#[test]
fn an_unwritable_directory_is_refused_before_the_work() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("never.fifo");
    mkfifo(&fifo);
    // /proc takes no new files, whoever runs the test (root too).
    for (cmd, out) in [
        ("analyze", "/proc/toomany-report.json"),
        ("redact", "/proc/toomany-clean.har"),
    ] {
        let assert = toomany()
            .args([cmd, fifo.to_str().unwrap(), "-o", out])
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(
            err.contains("cannot create a file in the directory /proc") && err.contains(out),
            "{cmd}: {err}"
        );
    }
    let assert = toomany()
        .args([
            "analyze",
            fifo.to_str().unwrap(),
            "--emit-config",
            "/proc/toomany-cfg",
        ])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(err.contains("/proc/toomany-cfg"), "{err}");
}

//! The command on a real terminal (a pseudo-terminal): stdin typed at the keyboard, and the
//! report paged when it is longer than the screen.

#![cfg(unix)]

mod common;
use common::pty;
use std::process::Command;

fn toomany_cmd() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("toomany"));
    c.env("NO_COLOR", "1").env("TERM", "xterm");
    c
}

/// Records typed at a terminal end with one Ctrl-D (sniffing reads a prefix to its end before
/// the reader reads the rest; a second read of the terminal would wait for a second Ctrl-D).
#[test]
fn stdin_on_a_terminal_ends_with_one_ctrl_d() {
    let mut cmd = toomany_cmd();
    cmd.args(["analyze", "-", "--format", "json"]);
    let mut t = pty::spawn(cmd, 100, 30, [true, false, false]);
    let lines: String = (0..6)
        .map(|n| {
            let status = if n % 2 == 0 { 429 } else { 200 };
            format!(
                r#"{{"time":"2026-03-02T02:00:0{n}Z","method":"GET","url":"https://tty.example/v1/{n}","status":{status}}}"#
            ) + "\n"
        })
        .collect();
    t.type_keys(lines.as_bytes());
    t.wait_until("the typed lines echoed", |s| s.contains("v1/5"));
    t.type_keys(b"\x04");
    let status = t.exit("after one Ctrl-D");
    let mut out = String::new();
    std::io::Read::read_to_string(t.child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(status.success(), "{status:?}: {}", t.text());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["requests"], 6, "{out}");
    assert_eq!(v["summary"]["rate_limited"], 3, "{out}");
}

/// Not a terminal: never paged, whatever PAGER says.
#[test]
fn a_pipe_is_never_paged() {
    let d = tempfile::tempdir().unwrap();
    let got = d.path().join("paged.txt");
    common::toomany()
        .args(["analyze", &common::sample("nginx-incident.log")])
        .env("PAGER", format!("dd status=none of={}", got.display()))
        .assert()
        .success();
    assert!(!got.exists(), "a pipe was paged");
}

//! Ctrl-C on a real terminal: `analyze --follow` runs on a pseudo-terminal (openpty, the
//! child its session leader with the pty as controlling terminal), draws its screen, and the
//! test types Ctrl-C (byte 0x03): the terminal's line discipline turns it into SIGINT for the
//! foreground process group, as a user's keyboard does. The full report must follow and the
//! exit status be 0. (Why openpty through libc and no pty crate: docs/decisions.md.)

#![cfg(unix)]

mod common;
use common::pty;
use std::process::Command;

#[test]
fn ctrl_c_on_a_terminal_prints_the_full_report_and_exits_0() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("app.log");
    let t = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let lines: String = (0..40)
        .map(|n| {
            let status = if n % 4 == 0 { 429 } else { 200 };
            format!(
                r#"{{"time":"{t}","method":"GET","url":"https://tty.example/v1/{n}","status":{status}}}"#
            ) + "\n"
        })
        .collect();
    std::fs::write(&log, lines).unwrap();

    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("toomany"));
    cmd.args(["analyze", "--follow", "--interval", "0.5"])
        .arg(&log)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    // stdin, stdout and stderr on the pty, which is the child's controlling terminal.
    let mut tty = pty::spawn(cmd, 100, 30, [true, true, true]);
    tty.wait_until("the live screen", |s| {
        s.contains("last minute") && s.contains("tty.example")
    });
    tty.type_keys(b"\x03");
    let status = tty.exit("no exit after Ctrl-C");
    assert!(status.success(), "{status:?}: {}", tty.text());
    tty.wait_until("the full report", |s| s.contains("Who limited you"));
    let all = tty.text();
    // The report comes after the view has left the alternate screen.
    let left = all
        .rfind("\x1b[?1049l")
        .expect("the alternate screen is left");
    let report = &all[left..];
    assert!(
        report.contains("10 rate-limited responses of 40 requests"),
        "{report}"
    );
    assert!(report.contains("tty.example"), "{report}");
}

//! Ctrl-C on a real terminal: `analyze --follow` runs on a pseudo-terminal (openpty, the
//! child its session leader with the pty as controlling terminal), draws its screen, and the
//! test types Ctrl-C (byte 0x03): the terminal's line discipline turns it into SIGINT for the
//! foreground process group, as a user's keyboard does. The full report must follow and the
//! exit status be 0. (Why openpty through libc and no pty crate: docs/decisions.md.)

#![cfg(unix)]

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(120);

/// A pseudo-terminal pair of `cols` × `rows`: (master, slave).
fn open_pty(cols: u16, rows: u16) -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the given ints; the name pointer may be null,
    // and the termios pointer is null (default settings: ISIG on, so ^C is SIGINT).
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened by openpty and are owned by nobody else.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

/// Everything the child writes to the terminal, gathered by a thread (the master must be read,
/// or the child blocks on a full terminal buffer).
fn gather(master: &OwnedFd) -> Arc<Mutex<Vec<u8>>> {
    let mut reader = std::fs::File::from(master.try_clone().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        // EIO once the child has exited and the slave is closed: the end.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                return;
            }
            into.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    seen
}

fn text(seen: &Arc<Mutex<Vec<u8>>>) -> String {
    String::from_utf8_lossy(&seen.lock().unwrap()).into_owned()
}

fn wait_until(seen: &Arc<Mutex<Vec<u8>>>, what: &str, want: impl Fn(&str) -> bool) {
    let end = Instant::now() + DEADLINE;
    while !want(&text(seen)) {
        assert!(Instant::now() < end, "never saw {what}: {:?}", text(seen));
        std::thread::sleep(Duration::from_millis(50));
    }
}

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

    let (master, slave) = open_pty(100, 30);
    let stdio = || Stdio::from(slave.try_clone().unwrap());
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("toomany"));
    cmd.args(["analyze", "--follow", "--interval", "0.5"])
        .arg(&log)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .stdin(stdio())
        .stdout(stdio())
        .stderr(stdio());
    // SAFETY: between fork and exec only async-signal-safe calls: a new session, and the pty
    // (the child's stdin by then) as its controlling terminal.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    drop(slave);
    let seen = gather(&master);

    wait_until(&seen, "the live screen", |s| {
        s.contains("last minute") && s.contains("tty.example")
    });
    let mut keyboard = std::fs::File::from(master.try_clone().unwrap());
    keyboard.write_all(b"\x03").unwrap();

    let end = Instant::now() + DEADLINE;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < end,
            "no exit after Ctrl-C: {:?}",
            text(&seen)
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}: {}", text(&seen));
    wait_until(&seen, "the full report", |s| s.contains("Who limited you"));
    let all = text(&seen);
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

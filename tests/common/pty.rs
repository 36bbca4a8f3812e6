//! A program on a pseudo-terminal (openpty through libc; docs/decisions.md says why): what it
//! writes to the terminal is gathered, and the test types on the keyboard side.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Long enough for a loaded machine; only a hung program reaches it.
pub const DEADLINE: Duration = Duration::from_secs(120);

/// A pseudo-terminal pair of `cols` × `rows`: (master, slave).
pub fn open_pty(cols: u16, rows: u16) -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the given ints; the name and termios
    // pointers may be null (default settings).
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

/// A program with the terminal as its controlling terminal; `on_tty` says which of stdin,
/// stdout, stderr are the terminal (the others are pipes; stdout's is returned by the child).
pub struct OnTty {
    pub child: Child,
    pub master: OwnedFd,
    /// Everything written to the terminal so far.
    pub seen: Arc<Mutex<Vec<u8>>>,
}

pub fn spawn(mut cmd: Command, cols: u16, rows: u16, on_tty: [bool; 3]) -> OnTty {
    let (master, slave) = open_pty(cols, rows);
    let tty = || Stdio::from(slave.try_clone().unwrap());
    let [i, o, e] = on_tty;
    cmd.stdin(if i { tty() } else { Stdio::null() })
        .stdout(if o { tty() } else { Stdio::piped() })
        .stderr(if e { tty() } else { Stdio::piped() });
    let ctty = i;
    // SAFETY: between fork and exec only async-signal-safe calls: a new session and, when
    // stdin is the terminal, the terminal as its controlling terminal.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 || (ctty && libc::ioctl(0, libc::TIOCSCTTY as _, 0) == -1) {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop(slave);
    let seen = gather(&master);
    OnTty {
        child,
        master,
        seen,
    }
}

impl OnTty {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned()
    }

    pub fn type_keys(&self, keys: &[u8]) {
        let mut keyboard = std::fs::File::from(self.master.try_clone().unwrap());
        keyboard.write_all(keys).unwrap();
    }

    pub fn wait_until(&self, what: &str, want: impl Fn(&str) -> bool) {
        let end = Instant::now() + DEADLINE;
        while !want(&self.text()) {
            assert!(Instant::now() < end, "never saw {what}: {:?}", self.text());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The exit status, or a failure (after killing it) when it is still running at the
    /// deadline.
    pub fn exit(&mut self, what: &str) -> std::process::ExitStatus {
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            if Instant::now() >= end {
                let _ = self.child.kill();
                panic!("{what}: still running; terminal: {:?}", self.text());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
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

//! A `toomany mock` process for CLI tests: start it, read its address, talk to it with plain
//! HTTP/1.1 over loopback, stop it (bounded waits everywhere).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// (status, headers lower-cased, body).
pub type Reply = (u16, Vec<(String, String)>, String);

pub struct Mock {
    pub child: Child,
    pub base: String,
}

impl Mock {
    pub fn start(args: &[&str]) -> Mock {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("toomany"))
            .arg("mock")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mock starts");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut first)
            .unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("first line: {first:?}"))
            .to_string();
        Mock { child, base }
    }

    pub fn addr(&self) -> String {
        self.base.trim_start_matches("http://").to_string()
    }

    /// Wait for the process to exit by itself (bounded); its stderr.
    pub fn wait(mut self) -> String {
        for _ in 0..300 {
            if let Some(st) = self.child.try_wait().unwrap() {
                assert!(st.success(), "mock exited with {st}");
                let mut e = String::new();
                self.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut e)
                    .unwrap();
                return e;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("mock did not stop");
    }

    pub fn terminate(self) -> String {
        let pid = self.child.id().to_string();
        let st = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(st.success());
        self.wait()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on its own connection: (status, headers lower-cased, body).
pub fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    request_with_body(addr, method, path, headers, "")
}

/// One HTTP/1.1 request with a body on its own connection.
pub fn request_with_body(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let hs = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.to_string()))
        .collect();
    (status, hs, body.to_string())
}

pub fn header<'a>(h: &'a [(String, String)], n: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str())
}

pub fn log_lines(p: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn tmp_log() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("mock.jsonl");
    (d, p)
}

//! Load for `toomany mock` (scripts/mock-bench.sh): C keep-alive HTTP/1.1 connections on
//! loopback, each sending `GET /load/N` back to back for S seconds, one thread. Prints one
//! JSON object: requests answered, per status, seconds, requests per second, and the client's
//! own CPU seconds.
//!
//! cargo run --release --example mock_load -- ADDR [CONNECTIONS] [SECONDS]
//!
//! Loopback only: the address must be 127.0.0.0/8 or ::1.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// Read what is there (at least one byte, or 0 at the end), without tokio's io-util.
async fn read_some(s: &TcpStream, chunk: &mut [u8]) -> std::io::Result<usize> {
    loop {
        s.readable().await?;
        match s.try_read(chunk) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            r => return r,
        }
    }
}

async fn write_all(s: &TcpStream, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        s.writable().await?;
        match s.try_write(buf) {
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One response's status, reading exactly its bytes (Content-Length) off a keep-alive stream.
async fn read_response(s: &TcpStream, buf: &mut Vec<u8>) -> std::io::Result<u16> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).unwrap_or("");
            let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
            let len = head
                .lines()
                .find_map(|l| {
                    let (n, v) = l.split_once(':')?;
                    n.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            let total = end + 4 + len;
            while buf.len() < total {
                let mut chunk = [0u8; 8192];
                let n = read_some(s, &mut chunk).await?;
                if n == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            buf.drain(..total);
            return Ok(status);
        }
        let mut chunk = [0u8; 8192];
        let n = read_some(s, &mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn connection(
    addr: SocketAddr,
    id: usize,
    until: Instant,
) -> std::io::Result<BTreeMap<u16, u64>> {
    let s = TcpStream::connect(addr).await?;
    s.set_nodelay(true)?;
    let mut counts = BTreeMap::new();
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut n = 0u64;
    while Instant::now() < until {
        let req =
            format!("GET /load/{id}/{n} HTTP/1.1\r\nHost: {addr}\r\nX-Client-Id: c{id}\r\n\r\n");
        write_all(&s, req.as_bytes()).await?;
        let status = read_response(&s, &mut buf).await?;
        *counts.entry(status).or_insert(0) += 1;
        n += 1;
    }
    Ok(counts)
}

fn cpu_seconds() -> f64 {
    // utime + stime of this process, from /proc (Linux).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(addr) = args.get(1).and_then(|a| a.parse::<SocketAddr>().ok()) else {
        eprintln!("usage: mock_load ADDR [CONNECTIONS] [SECONDS]");
        std::process::exit(2);
    };
    if !addr.ip().is_loopback() {
        eprintln!("mock_load: {addr} is not a loopback address");
        std::process::exit(2);
    }
    let conns: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100);
    let secs: u64 = args
        .get(3)
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
        .min(300);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let start = Instant::now();
    let until = start + Duration::from_secs(secs);
    let results = rt.block_on(async {
        let tasks: Vec<_> = (0..conns)
            .map(|i| tokio::spawn(connection(addr, i, until)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await);
        }
        all
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut counts: BTreeMap<u16, u64> = BTreeMap::new();
    let mut errors = 0;
    for r in results {
        match r {
            Ok(Ok(c)) => c
                .into_iter()
                .for_each(|(k, v)| *counts.entry(k).or_insert(0) += v),
            _ => errors += 1,
        }
    }
    let total: u64 = counts.values().sum();
    let by_status: Vec<String> = counts.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    println!(
        "{{\"connections\":{conns},\"seconds\":{elapsed:.3},\"requests\":{total},\"per_second\":{:.0},\"by_status\":{{{}}},\"failed_connections\":{errors},\"client_cpu_s\":{:.2}}}",
        total as f64 / elapsed,
        by_status.join(","),
        cpu_seconds()
    );
}

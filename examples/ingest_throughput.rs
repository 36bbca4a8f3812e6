//! Ingest alone (read, sniff, parse, normalize, redact; no analysis), for the bench script:
//! `cargo run --release --example ingest_throughput -- FILE [THREADS]`.
//!
//! Prints `records seconds MB/s` on one line. The map keeps one byte per record (the status
//! class) so nothing is optimised away and memory stays flat: what is measured is the cost of
//! turning lines into redacted `Request`s, the part of `analyze` an access-log reader owns.

use std::time::Instant;
use toomany::ingest;
use toomany::redact::Redactor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: ingest_throughput FILE [THREADS]");
        std::process::exit(2);
    };
    let mut opts = ingest::Options::new(Redactor::random());
    opts.threads = args.get(2).and_then(|s| s.parse().ok());
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let started = Instant::now();
    let mut limited = 0u64;
    let summary = ingest::stream_input(
        path,
        &opts,
        &|r| (r.status == 429) as u8,
        &mut |batch: &mut Vec<u8>| limited += batch.iter().map(|&b| b as u64).sum::<u64>(),
    );
    let secs = started.elapsed().as_secs_f64();
    if let Some(e) = &summary.error {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    }
    eprintln!(
        "{path}: {} records ({limited} 429s), {} skipped, format {}",
        summary.records,
        summary.skipped,
        summary.format.as_deref().unwrap_or("?")
    );
    println!(
        "{} {:.3} {:.1}",
        summary.records,
        secs,
        size as f64 / 1_048_576.0 / secs
    );
}

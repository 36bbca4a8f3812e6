//! The recommendation section of the table output (after the findings).

use crate::recommend::{LimitSource, Recommendation};
use crate::units::{fmt_duration_ms, fmt_num};
use std::fmt::Write;

pub fn section(r: &Recommendation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Recommendation{}: {}",
        r.host
            .as_deref()
            .map(|h| format!(" for {h}"))
            .unwrap_or_default(),
        r.action.as_str()
    );
    if let Some(t) = r.resume_at {
        let _ = writeln!(
            out,
            "  resume after   {} UTC",
            t.format("%Y-%m-%d %H:%M:%S")
        );
    }
    if let Some(l) = &r.limit {
        let src = match l.source {
            LimitSource::Flag => "--limit",
            LimitSource::Headers => "rate-limit headers",
            LimitSource::Observed => "estimated from traffic",
        };
        let _ = writeln!(
            out,
            "  limit          {}/min ({src})",
            fmt_num(l.rate_per_minute)
        );
    }
    if let (Some(rps), Some(rpm), Some(i)) =
        (r.rate_per_second, r.rate_per_minute, r.min_interval_ms)
    {
        let _ = writeln!(
            out,
            "  target rate    {}/min = {}/s (headroom {})",
            fmt_num(rpm),
            fmt_num(rps),
            fmt_num(r.headroom)
        );
        let _ = writeln!(out, "  spacing        one start every {i} ms");
    }
    if let Some(c) = r.concurrency {
        let _ = writeln!(out, "  concurrency    {c} in flight");
    }
    let b = &r.backoff;
    let _ = writeln!(
        out,
        "  retries        {} attempts ({} retries), full jitter {} s windows, Retry-After as minimum + 0–{}, {} deadline",
        b.max_attempts,
        b.retries(),
        b.windows_ms.iter().map(|w| fmt_num(*w as f64 / 1000.0)).collect::<Vec<_>>().join("/"),
        fmt_duration_ms(b.retry_after_spread_ms as f64),
        fmt_duration_ms(b.deadline_ms as f64)
    );
    out.push_str("  Why:\n");
    for s in &r.rationale {
        let _ = writeln!(out, "    - {s}");
    }
    if !r.warnings.is_empty() {
        out.push_str("  Warnings:\n");
        for w in &r.warnings {
            let _ = writeln!(out, "    ! {w}");
        }
    }
    out.push('\n');
    out
}

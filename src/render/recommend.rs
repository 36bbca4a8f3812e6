//! The recommendation section of the table output (after the findings).

use crate::recommend::{LimitSource, Recommendation};
use crate::units::{fmt_duration_ms, fmt_num};
use std::fmt::Write;

/// "for HOST" after the section title, when the recommendation names its host.
pub fn for_host(r: &Recommendation) -> String {
    r.host
        .as_deref()
        .map(|h| format!(" for {h}"))
        .unwrap_or_default()
}

/// The key numbers as (label, value) lines, shared by the table and Markdown renderers so each
/// only supplies its own syntax.
pub fn key_lines(r: &Recommendation) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    if let Some(t) = r.resume_at {
        lines.push((
            "resume after",
            format!("{} UTC", t.format("%Y-%m-%d %H:%M:%S")),
        ));
    }
    if let Some(l) = &r.limit {
        let src = match (l.source, l.confidence) {
            (LimitSource::Flag, _) => "--limit".to_string(),
            (LimitSource::Headers, _) => "rate-limit headers".to_string(),
            (LimitSource::Observed, Some(c)) => {
                format!("estimated from traffic, {} confidence", c.as_str())
            }
            (LimitSource::Observed, None) => "estimated from traffic".to_string(),
        };
        lines.push((
            "limit",
            format!(
                "{} ({src})",
                crate::units::Rate {
                    per_second: l.rate_per_second,
                    window_s: l.window_s,
                }
            ),
        ));
    }
    if let (Some(rps), Some(rpm), Some(i)) =
        (r.rate_per_second, r.rate_per_minute, r.min_interval_ms)
    {
        let window = r.limit.as_ref().map_or(60.0, |l| l.window_s);
        let _ = rpm;
        lines.push((
            "target rate",
            format!(
                "{} (headroom {})",
                crate::recommend::target::rate_forms(rps, window),
                fmt_num(r.headroom)
            ),
        ));
        lines.push(("spacing", format!("one start every {i} ms")));
    }
    if let Some(c) = r.concurrency {
        lines.push(("concurrency", format!("{c} in flight")));
    }
    let b = &r.backoff;
    lines.push((
        "retries",
        format!(
            "{} attempts ({} retries), full jitter {} s windows, Retry-After as minimum + 0–{}, {} deadline",
            b.max_attempts,
            b.retries(),
            b.windows_ms.iter().map(|w| fmt_num(*w as f64 / 1000.0)).collect::<Vec<_>>().join("/"),
            fmt_duration_ms(b.retry_after_spread_ms as f64),
            fmt_duration_ms(b.deadline_ms as f64)
        ),
    ));
    lines
}

pub fn section(r: &Recommendation) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Recommendation{}: {}", for_host(r), r.action.as_str());
    for (label, value) in key_lines(r) {
        let _ = writeln!(out, "  {label:<14} {value}");
    }
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

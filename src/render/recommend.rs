//! The recommendation section of the table output (after the findings).

use crate::recommend::target::{rate_forms, spacing_text};
use crate::recommend::{Action, LimitSource, Recommendation};
use crate::units::{fmt_duration_ms, fmt_num, Rate};
use std::fmt::Write;

/// "for HOST" after the section title, when the recommendation names its host.
pub fn for_host(r: &Recommendation) -> String {
    r.host
        .as_deref()
        .map(|h| format!(" for {h}"))
        .unwrap_or_default()
}

/// The key numbers as (label, value) lines, shared by the table, Markdown and HTML renderers so
/// each only supplies its own syntax. Every line follows the action: a stop says when to
/// resume and how to spread the allowance after that; a pacing plan paces.
pub fn key_lines(r: &Recommendation) -> Vec<(&'static str, String)> {
    let stop = r.action == Action::StopOrReschedule;
    let mut lines = Vec::new();
    if stop {
        lines.push((
            "resume after",
            match r.resume_at {
                Some(t) => format!("{} UTC", t.format("%Y-%m-%d %H:%M:%S")),
                None => "when the allowance resets (the server did not say when)".to_string(),
            },
        ));
    }
    if let Some(l) = &r.limit {
        let src = match (l.source, l.confidence) {
            (LimitSource::Flag, _) => "--limit".to_string(),
            (LimitSource::Stated, _) => match &l.stated_by {
                Some(by) => format!("stated by the server: {by}"),
                None => "stated by the server".to_string(),
            },
            (LimitSource::Observed, Some(c)) => {
                format!("estimated from traffic, {} confidence", c.as_str())
            }
            (LimitSource::Observed, None) => "estimated from traffic".to_string(),
        };
        lines.push((
            "limit",
            format!(
                "{} ({src})",
                Rate {
                    per_second: l.rate_per_second,
                    window_s: l.window_s,
                }
            ),
        ));
    }
    if let (Some(rps), Some(i)) = (r.rate_per_second, r.min_interval_ms) {
        let window = r.limit.as_ref().map_or(60.0, |l| l.window_s);
        lines.push((
            "target rate",
            format!(
                "{}{} (headroom {})",
                if stop { "after that, " } else { "" },
                rate_forms(rps, window),
                fmt_num(r.headroom)
            ),
        ));
        lines.push(("spacing", format!("one start every {}", spacing_text(i))));
    }
    if let Some(c) = r.concurrency {
        lines.push(("concurrency", format!("{c} in flight")));
    }
    lines.push(("retries", retries_line(r, stop)));
    lines
}

/// The retry policy in one line. A stop retries none of this allowance's 429s before the
/// resume time; a pacing plan says how many retries a stated wait leaves room for.
fn retries_line(r: &Recommendation, stop: bool) -> String {
    let b = &r.backoff;
    if b.retries() == 0 {
        return format!(
            "none (1 attempt), {} deadline",
            fmt_duration_ms(b.deadline_ms as f64)
        );
    }
    let policy = format!(
        "{} attempts ({} retries), full jitter {} s windows, Retry-After as minimum + 0–{}, {} deadline",
        b.max_attempts,
        b.retries(),
        b.windows_ms
            .iter()
            .map(|w| fmt_num(*w as f64 / 1000.0))
            .collect::<Vec<_>>()
            .join("/"),
        fmt_duration_ms(b.retry_after_spread_ms as f64),
        fmt_duration_ms(b.deadline_ms as f64)
    );
    if stop {
        return format!("none for these 429s before the resume time; other 429/503s: {policy}");
    }
    match r.stated_wait_s {
        Some(w) if w > 0.0 => {
            let per_retry_ms = w * 1000.0 + b.retry_after_spread_ms as f64;
            let fit = ((b.deadline_ms as f64 / per_retry_ms).floor() as u32).min(b.retries());
            let wait = fmt_duration_ms(w * 1000.0);
            if fit == 0 {
                format!("{policy} (a {wait} Retry-After leaves no time to retry: stop)")
            } else if fit < b.retries() {
                format!(
                    "{policy} (a {wait} Retry-After leaves time for {fit} retr{})",
                    if fit == 1 { "y" } else { "ies" }
                )
            } else {
                policy
            }
        }
        _ => policy,
    }
}

/// The plan in one line for the verdict (the HTML card): the action's own numbers.
pub fn summary_line(r: &Recommendation) -> String {
    let mut parts: Vec<String> = Vec::new();
    if r.action == Action::StopOrReschedule {
        parts.push(match r.resume_at {
            Some(t) => format!("resume after {} UTC", t.format("%Y-%m-%d %H:%M:%S")),
            None => "resume when the allowance resets".to_string(),
        });
    }
    if let (Some(rps), Some(i)) = (r.rate_per_second, r.min_interval_ms) {
        let window = r.limit.as_ref().map_or(60.0, |l| l.window_s);
        let own = Rate {
            per_second: rps,
            window_s: window,
        };
        parts.push(format!(
            "{}{own}, one start every {}",
            if r.action == Action::StopOrReschedule {
                "then "
            } else {
                ""
            },
            spacing_text(i)
        ));
    }
    if let Some(c) = r.concurrency {
        parts.push(format!("{c} in flight"));
    }
    parts.join(", ")
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

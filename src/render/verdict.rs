//! What every human-facing format says, decided once: the verdict (who limited you, the
//! findings most severe first, the plan per host), the grouped rate-limited responses, the top
//! talkers, time ranges and locations. The table, Markdown and HTML renderers only supply their
//! syntax, so they cannot disagree.

use crate::attribute::{Layer, Quota};
use crate::detect::{Finding, Severity};
use crate::http::retry_after::{Kind, RetryAfter};
use crate::model::Position;
use crate::recommend::Recommendation;
use crate::report::{RateLimited, Report};
use crate::units::{fmt_duration_ms, fmt_num};
use chrono::{DateTime, Utc};

/// Findings, most severe first (detector order within a severity).
pub fn findings_by_severity(report: &Report) -> Vec<&Finding> {
    let mut f: Vec<&Finding> = report.findings.iter().collect();
    f.sort_by_key(|f| std::cmp::Reverse(f.severity));
    f
}

/// Count of findings per severity, most severe first, for a one-line tally.
pub fn severity_tally(report: &Report) -> Vec<(Severity, usize)> {
    [Severity::Critical, Severity::Warning, Severity::Info]
        .into_iter()
        .map(|s| {
            (
                s,
                report.findings.iter().filter(|f| f.severity == s).count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The plans to show: one per rate-limited host, the principal one first.
pub fn plans(report: &Report) -> Vec<&Recommendation> {
    if report.recommendations.is_empty() {
        report.recommendation.iter().collect()
    } else {
        report.recommendations.iter().collect()
    }
}

/// One kind of sender on one host: layer, vendor, kind of limit, deciding rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Sender {
    pub count: usize,
    pub layer: Layer,
    pub vendor: Option<String>,
    pub quota: Quota,
    pub detail: Option<String>,
    /// Mean attribution confidence, 0–1.
    pub confidence: f64,
}

impl Sender {
    /// `cdn/cloudflare`, `api`.
    pub fn who(&self) -> String {
        match &self.vendor {
            Some(v) => format!("{}/{v}", self.layer.as_str()),
            None => self.layer.as_str().to_string(),
        }
    }

    /// `(rate, 1015)`, or "" when neither is known.
    pub fn why(&self) -> String {
        let mut why: Vec<&str> = Vec::new();
        if self.quota != Quota::Unknown {
            why.push(self.quota.as_str());
        }
        if let Some(d) = &self.detail {
            why.push(d);
        }
        if why.is_empty() {
            String::new()
        } else {
            format!("({})", why.join(", "))
        }
    }

    /// `20 × cdn/cloudflare (rate, 1015)`.
    pub fn label(&self) -> String {
        let why = self.why();
        if why.is_empty() {
            format!("{} × {}", self.count, self.who())
        } else {
            format!("{} × {} {why}", self.count, self.who())
        }
    }
}

/// Who rate-limited the clients on one host.
#[derive(Debug, Clone, PartialEq)]
pub struct HostVerdict {
    pub host: String,
    pub requests: usize,
    pub rate_limited: usize,
    /// Most responses first.
    pub senders: Vec<Sender>,
}

fn host_of(r: &RateLimited) -> String {
    crate::http::url::host_key(&r.url).into_owned()
}

/// Per rate-limited host (busiest first), who sent its rate-limited responses.
pub fn who_limited(report: &Report) -> Vec<HostVerdict> {
    let mut out: Vec<HostVerdict> = report
        .summary
        .hosts
        .iter()
        .filter(|h| h.rate_limited > 0)
        .map(|h| HostVerdict {
            host: h.host.clone(),
            requests: h.requests,
            rate_limited: h.rate_limited,
            senders: Vec::new(),
        })
        .collect();
    let mut sums: Vec<Vec<f64>> = vec![Vec::new(); out.len()];
    for r in &report.rate_limited {
        let host = host_of(&r);
        let Some(hi) = out.iter().position(|h| h.host == host) else {
            continue;
        };
        let a = &r.attribution;
        let senders = &mut out[hi].senders;
        let found = senders.iter().position(|s| {
            s.layer == a.layer && s.vendor == a.vendor && s.quota == a.quota && s.detail == a.detail
        });
        let si = match found {
            Some(si) => si,
            None => {
                senders.push(Sender {
                    count: 0,
                    layer: a.layer,
                    vendor: a.vendor.clone(),
                    quota: a.quota,
                    detail: a.detail.clone(),
                    confidence: 0.0,
                });
                sums[hi].push(0.0);
                senders.len() - 1
            }
        };
        senders[si].count += 1;
        sums[hi][si] += a.confidence;
    }
    for (h, sums) in out.iter_mut().zip(sums) {
        for (s, sum) in h.senders.iter_mut().zip(sums) {
            s.confidence = sum / s.count.max(1) as f64;
        }
        // Stable: equal counts keep their first-seen order.
        h.senders.sort_by_key(|s| std::cmp::Reverse(s.count));
    }
    out
}

/// Rate-limited responses that share host, layer, vendor and kind of limit.
#[derive(Debug, Clone)]
pub struct Group {
    pub host: String,
    pub layer: Layer,
    pub vendor: Option<String>,
    pub quota: Quota,
    pub count: usize,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
    /// The first response of the group, to look at.
    pub exemplar: RateLimited,
    /// Mean attribution confidence, 0–1.
    pub confidence: f64,
    /// Distinct Retry-After values, at most [`RETRY_AFTER_VALUES`] listed.
    pub retry_after: Vec<String>,
}

/// Retry-After values listed per group.
pub const RETRY_AFTER_VALUES: usize = 3;

/// The rate-limited responses grouped by host × layer × vendor × quota, largest group first.
pub fn groups(report: &Report) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let mut conf: Vec<f64> = Vec::new();
    for r in &report.rate_limited {
        let host = host_of(&r);
        let a = &r.attribution;
        let gi = match out.iter().position(|g| {
            g.host == host && g.layer == a.layer && g.vendor == a.vendor && g.quota == a.quota
        }) {
            Some(gi) => gi,
            None => {
                out.push(Group {
                    host,
                    layer: a.layer,
                    vendor: a.vendor.clone(),
                    quota: a.quota,
                    count: 0,
                    first: None,
                    last: None,
                    exemplar: r.clone(),
                    confidence: 0.0,
                    retry_after: Vec::new(),
                });
                conf.push(0.0);
                out.len() - 1
            }
        };
        let g = &mut out[gi];
        g.count += 1;
        conf[gi] += a.confidence;
        if let Some(t) = r.time {
            g.first = Some(g.first.map_or(t, |f| f.min(t)));
            g.last = Some(g.last.map_or(t, |l| l.max(t)));
        }
        let ra = retry_after_text(&r.retry_after);
        if g.retry_after.len() < RETRY_AFTER_VALUES && !g.retry_after.contains(&ra) {
            g.retry_after.push(ra);
        }
    }
    for (g, c) in out.iter_mut().zip(conf) {
        g.confidence = c / g.count.max(1) as f64;
    }
    out.sort_by_key(|g| std::cmp::Reverse(g.count));
    out
}

/// `samples/api-incident.jsonl:121` (a line) or `capture.har entry 47` (a HAR entry).
/// A URL as the human reports show it: a scheme-relative URL (an access log that names the host
/// but not the scheme, as Envoy's `%REQ(:AUTHORITY)%`) without its leading `//`, which reads
/// as a typo. The JSON, CSV and NDJSON keep the URL as read.
pub fn url_shown(url: &str) -> &str {
    url.strip_prefix("//").unwrap_or(url)
}

pub fn location(source: &str, position: Position) -> String {
    match position {
        Position::Entry(i) => format!("{source} entry {i}"),
        Position::Line(n) => format!("{source}:{n}"),
    }
}

/// What the "where" column counts from, for the kinds of position among `rows`: a HAR entry
/// is its 0-based index in `log.entries` (as `jq '.log.entries[47]'` finds it), a log line its
/// 1-based line number (as editors and `sed -n 121p` count).
pub fn where_note(rows: impl IntoIterator<Item = Position>) -> Option<&'static str> {
    let (mut entries, mut lines) = (false, false);
    for p in rows {
        match p {
            Position::Entry(_) => entries = true,
            Position::Line(_) => lines = true,
        }
    }
    match (entries, lines) {
        (true, true) => Some(
            "where: a HAR entry is its 0-based index in log.entries; a log line is numbered from 1",
        ),
        (true, false) => Some("where: a HAR entry is its 0-based index in log.entries"),
        (false, true) => Some("where: FILE:N is line N of the log, numbered from 1"),
        (false, false) => None,
    }
}

/// A Retry-After value the same way in every format: `12 s`, `Tue, 03 Nov … (30 s)`,
/// `soon (invalid)`, `—` when absent.
pub fn retry_after_text(ra: &RetryAfter) -> String {
    let raw = ra
        .raw
        .as_deref()
        .map(|v| crate::render::text::shorten_end(v.trim(), 32));
    match (raw, ra.seconds, ra.kind) {
        (None, _, _) | (_, _, Kind::Absent) => "—".to_string(),
        (Some(raw), Some(s), Kind::Delta) if raw == fmt_num(s) => format!("{raw} s"),
        (Some(raw), Some(s), _) => format!("{raw} ({} s)", fmt_num(s)),
        (Some(raw), None, Kind::Invalid) => format!("{raw} (invalid)"),
        (Some(raw), None, _) => format!("{raw} (too long)"),
    }
}

/// `2026-11-03 14:02:05 → 14:02:32 UTC (26.9 s)`; the end shows its date too when the day
/// differs.
pub fn span(first: DateTime<Utc>, last: DateTime<Utc>) -> String {
    let end = if first.date_naive() == last.date_naive() {
        last.format("%H:%M:%S").to_string()
    } else {
        last.format("%Y-%m-%d %H:%M:%S").to_string()
    };
    format!(
        "{} → {end} UTC ({})",
        first.format("%Y-%m-%d %H:%M:%S"),
        fmt_duration_ms((last - first).num_milliseconds() as f64)
    )
}

/// A time in a listing: `14:02:26.745`, with the date when the report spans several days.
pub fn time_of(t: Option<DateTime<Utc>>, with_date: bool) -> String {
    match t {
        Some(t) if with_date => t.format("%m-%d %H:%M:%S%.3f").to_string(),
        Some(t) => t.format("%H:%M:%S%.3f").to_string(),
        None => "—".to_string(),
    }
}

/// Do the report's times cover more than one UTC day (so listings must show dates)?
pub fn spans_days(report: &Report) -> bool {
    match (report.summary.first, report.summary.last) {
        (Some(a), Some(b)) => a.date_naive() != b.date_naive(),
        _ => false,
    }
}

/// `14:02:05–14:02:32` between two times of a listing (dates when they differ in day).
pub fn short_range(first: Option<DateTime<Utc>>, last: Option<DateTime<Utc>>) -> String {
    let (Some(a), Some(b)) = (first, last) else {
        return "—".to_string();
    };
    if a.date_naive() != b.date_naive() {
        return format!(
            "{}–{}",
            a.format("%m-%d %H:%M:%S"),
            b.format("%m-%d %H:%M:%S")
        );
    }
    let (a, b) = (
        a.format("%H:%M:%S").to_string(),
        b.format("%H:%M:%S").to_string(),
    );
    if a == b {
        a
    } else {
        format!("{a}–{b}")
    }
}

/// The capture in one sentence: `240 requests, 2026-11-03 14:02:05 → 14:02:32 UTC (26.9 s)`,
/// or `1090 requests in 2 separate windows` (then [`window_lines`] lists them).
pub fn capture_line(report: &Report) -> String {
    let s = &report.summary;
    let windows = &report.overview.windows;
    if windows.len() > 1 {
        return format!(
            "{} requests in {} separate time windows (gaps of more than {} without a request){}",
            s.requests,
            windows.len(),
            fmt_duration_ms(crate::overview::WINDOW_GAP_MS as f64),
            partial_note(report)
        );
    }
    let line = match (s.first, s.last) {
        (Some(a), Some(b)) => format!("{} requests, {}", s.requests, span(a, b)),
        _ => format!("{} requests (no times)", s.requests),
    };
    format!("{line}{}", partial_note(report))
}

/// `; partial: app.jsonl truncated while it was read`: the inputs the report covers only in
/// part, said in the capture line (empty when every input was read whole).
fn partial_note(report: &Report) -> String {
    let partial: Vec<String> = report
        .inputs
        .iter()
        .filter_map(|i| {
            let inc = i.incomplete.as_ref()?;
            Some(format!("{} ({})", i.source, inc.kind.short()))
        })
        .collect();
    if partial.is_empty() {
        String::new()
    } else {
        format!("; partial: {}", partial.join(", "))
    }
}

/// One line per window when there are several: `2026-03-02 14:00:00 → 14:03:55 UTC (3 min
/// 55 s): 466 requests, 34 rate-limited`.
pub fn window_lines(report: &Report) -> Vec<String> {
    let windows = &report.overview.windows;
    if windows.len() < 2 {
        return Vec::new();
    }
    windows
        .iter()
        .map(|w| {
            format!(
                "{}: {} requests, {} rate-limited",
                span(w.first, w.last),
                w.requests,
                w.rate_limited
            )
        })
        .collect()
}

/// `200 × 96, 201 × 24, 429 × 120`.
pub fn status_counts(report: &Report) -> String {
    let v: Vec<String> = report
        .summary
        .by_status
        .iter()
        .map(|(k, v)| format!("{k} × {v}"))
        .collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// `3 clients (told apart by client)`.
pub fn clients_line(report: &Report) -> String {
    let c = &report.clients;
    format!(
        "{} client{} (told apart by {})",
        c.count,
        if c.count == 1 { "" } else { "s" },
        if c.identified_by.is_empty() {
            "nothing: the input names no caller".to_string()
        } else {
            c.identified_by
                .iter()
                .map(|h| h.replace('_', " "))
                .collect::<Vec<_>>()
                .join(" + ")
        }
    )
}

/// 503s and 403s that were not counted as rate limiting (no Retry-After, no rate-limit headers,
/// no limiter's page): say so, so a user does not read "0 rate-limited" as "nothing went wrong".
pub fn not_counted_note(report: &Report) -> Option<String> {
    let counted = |status: u16| {
        report
            .rate_limited
            .iter()
            .filter(|r| r.status == status)
            .count()
    };
    let mut parts = Vec::new();
    for status in [503u16, 403] {
        let all = report
            .summary
            .by_status
            .get(&status.to_string())
            .copied()
            .unwrap_or(0);
        let other = all.saturating_sub(counted(status));
        if other > 0 {
            parts.push(format!("{other} × {status}"));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "not counted: {} without rate-limit evidence (no Retry-After, rate-limit headers or limiter page)",
            parts.join(", ")
        )
    })
}

/// Inputs that stopped early or skipped records, in one sentence (None when all were clean).
pub fn input_problems(report: &Report) -> Option<String> {
    let bad: Vec<String> = report
        .inputs
        .iter()
        .filter(|i| i.error.is_some() || i.skipped > 0 || i.incomplete.is_some())
        .map(|i| match (&i.error, &i.incomplete) {
            (Some(_), _) => format!("{} stopped early", i.source),
            (None, Some(inc)) => format!("{}: {}", i.source, inc.kind.short()),
            (None, None) => format!("{} skipped {} records", i.source, i.skipped),
        })
        .collect();
    (!bad.is_empty()).then(|| format!("input problems: {} (see Inputs)", bad.join("; ")))
}

/// Inputs whose records look like another input's requests but could not be joined to them
/// ([`crate::model::InputSummary::counted_twice`]): the report's counts may hold those requests
/// twice; what was seen and how to join them.
pub fn counted_twice(report: &Report) -> Option<String> {
    let notes: Vec<&str> = report
        .inputs
        .iter()
        .filter_map(|i| i.counted_twice.as_deref())
        .collect();
    (!notes.is_empty()).then(|| format!("counted twice? {}", notes.join("; ")))
}

/// Percentage for people: `50 %`, `0.4 %`.
pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "—".to_string();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p >= 10.0 || p == 0.0 {
        format!("{:.0} %", p)
    } else {
        format!("{} %", fmt_num((p * 10.0).round() / 10.0))
    }
}

/// The action of a plan in words: `slow down`, `stop or reschedule`, `fix the client`.
pub fn action_words(r: &Recommendation) -> &'static str {
    match r.action {
        crate::recommend::Action::SlowDown => "slow down",
        crate::recommend::Action::StopOrReschedule => "stop or reschedule",
        crate::recommend::Action::FixClient => "fix the client",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn spans_show_the_end_date_when_the_day_differs() {
        let a = Utc.with_ymd_and_hms(2026, 3, 2, 14, 0, 0).unwrap();
        let b = Utc.with_ymd_and_hms(2026, 11, 3, 14, 2, 32).unwrap();
        let s = span(a, b);
        assert!(
            s.starts_with("2026-03-02 14:00:00 → 2026-11-03 14:02:32 UTC"),
            "{s}"
        );
        let c = Utc.with_ymd_and_hms(2026, 3, 2, 14, 3, 55).unwrap();
        assert_eq!(
            span(a, c),
            "2026-03-02 14:00:00 → 14:03:55 UTC (3 min 55 s)"
        );
        // Across midnight, even an hour apart shows both dates.
        let d = Utc.with_ymd_and_hms(2026, 3, 2, 23, 30, 0).unwrap();
        let e = Utc.with_ymd_and_hms(2026, 3, 3, 0, 30, 0).unwrap();
        assert!(span(d, e).contains("→ 2026-03-03 00:30:00"));
    }

    #[test]
    fn retry_after_reads_the_same_everywhere() {
        let mut ra = RetryAfter::absent();
        assert_eq!(retry_after_text(&ra), "—");
        ra.raw = Some("12".into());
        ra.seconds = Some(12.0);
        ra.kind = Kind::Delta;
        assert_eq!(retry_after_text(&ra), "12 s");
        ra.raw = Some("1.5".into());
        ra.seconds = Some(2.0);
        assert_eq!(retry_after_text(&ra), "1.5 (2 s)");
        ra.raw = Some("soon".into());
        ra.seconds = None;
        ra.kind = Kind::Invalid;
        assert_eq!(retry_after_text(&ra), "soon (invalid)");
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(120, 240), "50 %");
        assert_eq!(percent(1, 240), "0.4 %");
        assert_eq!(percent(0, 0), "—");
    }
}

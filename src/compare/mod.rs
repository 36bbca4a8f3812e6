//! `toomany compare`: did the fix work? Two analyses (BEFORE and AFTER, read with the same
//! options and one fingerprint key) reduced to per-host figures that do not depend on how long
//! each capture ran — shares and rates, not raw counts — and a verdict by a stated rule.
//!
//! Verdict rule ([`Tolerance`]):
//! - **regressed** when, overall or on a host with traffic on both sides, the share of
//!   rate-limited responses grows by more than 2 percentage points, or attempts per logical
//!   request grow by more than 10 %; or when a critical finding appears that BEFORE did not have;
//! - **improved** when not regressed and the share of rate-limited responses falls by more than
//!   2 points, or attempts per logical request fall by more than 10 %, or a finding was resolved
//!   and none is new;
//! - **unchanged** otherwise.

pub mod gate;

use crate::detect::{self, timeline, Severity};
use crate::model::Request;
use crate::recommend::Recommendation;
use crate::report::Report;
use serde::Serialize;
use std::collections::BTreeMap;

/// JSON contract version of the comparison.
pub const SCHEMA_VERSION: u32 = 1;

/// What counts as a change (see the module documentation).
pub struct Tolerance {
    /// Absolute change in the share of rate-limited responses (0.02 = 2 points).
    pub share: f64,
    /// Relative change in attempts per logical request (0.10 = 10 %).
    pub attempts: f64,
}

pub const TOLERANCE: Tolerance = Tolerance {
    share: 0.02,
    attempts: 0.10,
};

/// A host needs this many requests on each side for its own figures to decide the verdict.
pub const MIN_HOST_REQUESTS: usize = 20;

/// The rule in words (printed under the verdict and in the JSON).
pub const RULE: &str = "regressed: the share of rate-limited responses grew by more than 2 points, or attempts per logical request grew by more than 10 %, overall or on a host with at least 20 requests on both sides, or a critical finding appeared; improved: not regressed, and the share fell by more than 2 points, attempts per logical request fell by more than 10 %, or findings were resolved and none is new; unchanged otherwise";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Improved,
    Unchanged,
    Regressed,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::Regressed => "regressed",
        }
    }
}

/// Traffic figures of one host (or of all traffic), normalised for the capture's length.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Figures {
    pub requests: usize,
    pub rate_limited: usize,
    /// Rate-limited responses / requests.
    pub rate_limited_share: f64,
    /// First attempts among the timed requests.
    pub logical_requests: usize,
    /// Timed requests / logical requests (1.0 = no retries).
    pub attempts_per_logical: Option<f64>,
    /// Starts in the busiest second.
    pub peak_rate_per_s: Option<f64>,
    /// Starts per second while active (gaps over 1 h are not active time; at least 1 s).
    pub sustained_rate_per_s: Option<f64>,
    /// Most requests in flight at once.
    pub max_in_flight: usize,
    /// Retries that followed a response carrying a Retry-After wait.
    pub retries_after_retry_after: usize,
    /// ... of which waited at least 90 % of it (less 50 ms).
    pub retry_after_honoured: usize,
}

impl Figures {
    /// "yes" / "no" / "partly" / None (no retry followed a Retry-After).
    pub fn honoured_text(&self) -> Option<&'static str> {
        match (self.retries_after_retry_after, self.retry_after_honoured) {
            (0, _) => None,
            (n, h) if h == n => Some("yes"),
            (_, 0) => Some("no"),
            _ => Some("partly"),
        }
    }
}

/// The principal facts of a plan, to tell whether it changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanFacts {
    pub action: String,
    pub rate_per_second: Option<f64>,
    pub concurrency: Option<u32>,
}

impl PlanFacts {
    fn of(r: &Recommendation) -> PlanFacts {
        PlanFacts {
            action: r.action.as_str().to_string(),
            rate_per_second: r.rate_per_second,
            concurrency: r.concurrency,
        }
    }

    /// Different action or concurrency, or a rate more than 10 % apart.
    fn differs(&self, o: &PlanFacts) -> bool {
        let rate_moved = match (self.rate_per_second, o.rate_per_second) {
            (Some(a), Some(b)) => (a - b).abs() > 0.10 * a.abs().max(b.abs()),
            (None, None) => false,
            _ => true,
        };
        self.action != o.action || self.concurrency != o.concurrency || rate_moved
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct HostSide {
    pub host: String,
    #[serde(flatten)]
    pub figures: Figures,
    /// The plan for this host, when it was rate-limited.
    pub plan: Option<PlanFacts>,
}

/// A finding, by what identifies it across the two sides: kind and host.
#[derive(Debug, Clone, Serialize)]
pub struct FindingRef {
    pub kind: String,
    pub host: Option<String>,
    pub severity: Severity,
    pub summary: String,
}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub inputs: Vec<String>,
    #[serde(flatten)]
    pub figures: Figures,
    pub hosts: Vec<HostSide>,
    pub findings: Vec<FindingRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Delta {
    pub rate_limited: i64,
    pub rate_limited_share: f64,
    pub attempts_per_logical: Option<f64>,
    pub peak_rate_per_s: Option<f64>,
}

impl Delta {
    fn between(b: &Figures, a: &Figures) -> Delta {
        let diff = |x: Option<f64>, y: Option<f64>| Some(y? - x?);
        Delta {
            rate_limited: a.rate_limited as i64 - b.rate_limited as i64,
            rate_limited_share: a.rate_limited_share - b.rate_limited_share,
            attempts_per_logical: diff(b.attempts_per_logical, a.attempts_per_logical),
            peak_rate_per_s: diff(b.peak_rate_per_s, a.peak_rate_per_s),
        }
    }
}

/// One host on both sides.
#[derive(Debug, Clone, Serialize)]
pub struct HostChange {
    pub host: String,
    pub before: Option<Figures>,
    pub after: Option<Figures>,
    pub delta: Option<Delta>,
    pub plan_before: Option<PlanFacts>,
    pub plan_after: Option<PlanFacts>,
    /// The plan for this host is different (action, concurrency, or rate by > 10 %), appeared
    /// or went away.
    pub recommendation_changed: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct FindingChanges {
    pub resolved: Vec<FindingRef>,
    pub new: Vec<FindingRef>,
    pub persisting: Vec<FindingRef>,
}

/// The comparison: the JSON contract of `compare --format json` (docs/compare.md).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub schema_version: u32,
    pub generated_by: String,
    pub verdict: Verdict,
    /// Why the verdict is what it is, one reason a line.
    pub reasons: Vec<String>,
    pub rule: &'static str,
    pub before: Side,
    pub after: Side,
    pub delta: Delta,
    pub hosts: Vec<HostChange>,
    pub findings: FindingChanges,
}

/// The figures and findings of one analysed side.
pub fn side(inputs: Vec<String>, requests: &[Request], report: &Report) -> Side {
    // The linked attempts of every timed request (the analysis's rule), in time order.
    let cx = SideCx {
        requests,
        attempts: crate::analyze::link_records(requests),
    };
    let all_idx: Vec<usize> = {
        let mut v: Vec<usize> = (0..requests.len())
            .filter(|&i| requests[i].started.is_some())
            .collect();
        v.sort_by(|&a, &b| {
            requests[a]
                .started
                .cmp(&requests[b].started)
                .then(a.cmp(&b))
        });
        v
    };
    // Timed request indices per host (lower-cased name), time order.
    let mut by_host: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &i in &all_idx {
        by_host
            .entry(requests[i].host().to_ascii_lowercase())
            .or_default()
            .push(i);
    }
    let mut figures = figures_of(&cx, &all_idx);
    figures.requests = requests.len();
    figures.rate_limited = report.summary.rate_limited;
    figures.rate_limited_share = share(figures.rate_limited, figures.requests);

    let plans: BTreeMap<&str, PlanFacts> = report
        .recommendations
        .iter()
        .filter_map(|r| Some((r.host.as_deref()?, PlanFacts::of(r))))
        .collect();
    let hosts = report
        .summary
        .hosts
        .iter()
        .map(|h| {
            let idx = by_host.get(&h.host).map(Vec::as_slice).unwrap_or(&[]);
            let mut f = figures_of(&cx, idx);
            f.requests = h.requests;
            f.rate_limited = h.rate_limited;
            f.rate_limited_share = share(h.rate_limited, h.requests);
            HostSide {
                host: h.host.clone(),
                figures: f,
                plan: plans.get(h.host.as_str()).cloned(),
            }
        })
        .collect();
    let findings = report
        .findings
        .iter()
        .map(|f| FindingRef {
            kind: f.kind.clone(),
            host: f
                .evidence
                .get("host")
                .and_then(|h| h.as_str())
                .map(str::to_string),
            severity: f.severity,
            summary: f.summary.clone(),
        })
        .collect();
    Side {
        inputs,
        figures,
        hosts,
        findings,
    }
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// Rates, attempts, in-flight and Retry-After behaviour over `idx` (timed requests, time order).
/// One side's records and how their attempts link.
struct SideCx<'a> {
    requests: &'a [Request],
    attempts: detect::logical::Attempts,
}

fn figures_of(cx: &SideCx, idx: &[usize]) -> Figures {
    let requests = cx.requests;
    let starts: Vec<f64> = idx
        .iter()
        .filter_map(|&i| requests[i].started)
        .map(|t| t.timestamp_micros() as f64 / 1e6)
        .collect();
    let logical = idx.iter().filter(|&&i| !cx.attempts.is_retry(i)).count();
    let peak = timeline::busiest(&starts, 1.0, 1)
        .first()
        .map(|w| w.count as f64);
    let active: f64 = starts
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d <= crate::overview::WINDOW_GAP_MS as f64 / 1000.0)
        .sum();
    let spans: Vec<(f64, f64)> = idx
        .iter()
        .filter_map(|&i| {
            let r = &requests[i];
            let t = r.started?.timestamp_micros() as f64 / 1e6;
            let d = r.duration_ms.filter(|d| d.is_finite() && *d >= 0.0);
            Some((t, t + d.unwrap_or(0.0) / 1000.0))
        })
        .collect();
    let in_flight = timeline::in_flight_at_starts(&spans)
        .into_iter()
        .max()
        .map(|n| n + 1)
        .unwrap_or(0);
    let (mut after_ra, mut honoured) = (0, 0);
    for &i in idx {
        let Some(p) = cx.attempts.previous(i) else {
            continue;
        };
        let prev = &requests[p];
        let ra = crate::http::retry_after::from_headers(&prev.response_headers, prev.started);
        let Some(wait) = ra.seconds.filter(|s| *s > 0.0) else {
            continue;
        };
        let (Some(t), Some(s)) = (requests[i].started, prev.started) else {
            continue;
        };
        let end =
            s.timestamp_micros() as f64 / 1e6 + prev.duration_ms.unwrap_or(0.0).max(0.0) / 1000.0;
        let gap = t.timestamp_micros() as f64 / 1e6 - end;
        after_ra += 1;
        if gap >= 0.9 * wait - 0.05 {
            honoured += 1;
        }
    }
    Figures {
        requests: idx.len(),
        rate_limited: 0,
        rate_limited_share: 0.0,
        logical_requests: logical,
        attempts_per_logical: (logical > 0).then(|| idx.len() as f64 / logical as f64),
        peak_rate_per_s: peak,
        sustained_rate_per_s: (!starts.is_empty()).then(|| starts.len() as f64 / active.max(1.0)),
        max_in_flight: in_flight,
        retries_after_retry_after: after_ra,
        retry_after_honoured: honoured,
    }
}

fn key(f: &FindingRef) -> (String, Option<String>) {
    (f.kind.clone(), f.host.clone())
}

/// Compare two sides and judge them by [`RULE`].
pub fn compare(before: Side, after: Side) -> Comparison {
    let mut findings = FindingChanges::default();
    let after_keys: Vec<_> = after.findings.iter().map(key).collect();
    let before_keys: Vec<_> = before.findings.iter().map(key).collect();
    for f in &before.findings {
        if after_keys.contains(&key(f)) {
            if !findings.persisting.iter().any(|p| key(p) == key(f)) {
                // The AFTER side's wording (its numbers) is the current state.
                let now = after
                    .findings
                    .iter()
                    .find(|a| key(a) == key(f))
                    .unwrap_or(f);
                findings.persisting.push(now.clone());
            }
        } else if !findings.resolved.iter().any(|p| key(p) == key(f)) {
            findings.resolved.push(f.clone());
        }
    }
    for f in &after.findings {
        if !before_keys.contains(&key(f)) && !findings.new.iter().any(|p| key(p) == key(f)) {
            findings.new.push(f.clone());
        }
    }

    let mut names: Vec<&str> = before.hosts.iter().map(|h| h.host.as_str()).collect();
    for h in &after.hosts {
        if !names.contains(&h.host.as_str()) {
            names.push(&h.host);
        }
    }
    let hosts: Vec<HostChange> = names
        .iter()
        .map(|name| {
            let b = before.hosts.iter().find(|h| h.host == *name);
            let a = after.hosts.iter().find(|h| h.host == *name);
            let (pb, pa) = (
                b.and_then(|h| h.plan.clone()),
                a.and_then(|h| h.plan.clone()),
            );
            let recommendation_changed = match (&pb, &pa) {
                (Some(x), Some(y)) => x.differs(y),
                (None, None) => false,
                _ => true,
            };
            HostChange {
                host: name.to_string(),
                before: b.map(|h| h.figures.clone()),
                after: a.map(|h| h.figures.clone()),
                delta: match (b, a) {
                    (Some(b), Some(a)) => Some(Delta::between(&b.figures, &a.figures)),
                    _ => None,
                },
                plan_before: pb,
                plan_after: pa,
                recommendation_changed,
            }
        })
        .collect();

    let delta = Delta::between(&before.figures, &after.figures);
    let (verdict, reasons) = judge(&before.figures, &after.figures, &hosts, &findings);
    Comparison {
        schema_version: SCHEMA_VERSION,
        generated_by: format!("toomany {}", env!("CARGO_PKG_VERSION")),
        verdict,
        reasons,
        rule: RULE,
        before,
        after,
        delta,
        hosts,
        findings,
    }
}

/// Did one set of figures get worse or better? (worse, better) reasons.
fn movement(what: &str, b: &Figures, a: &Figures) -> (Vec<String>, Vec<String>) {
    let (mut worse, mut better) = (Vec::new(), Vec::new());
    let ds = a.rate_limited_share - b.rate_limited_share;
    let pct = |x: f64| format!("{:.1} %", x * 100.0);
    let line = format!(
        "{what}: rate-limited share {} → {}",
        pct(b.rate_limited_share),
        pct(a.rate_limited_share)
    );
    if ds > TOLERANCE.share {
        worse.push(line);
    } else if ds < -TOLERANCE.share {
        better.push(line);
    }
    if let (Some(x), Some(y)) = (b.attempts_per_logical, a.attempts_per_logical) {
        let line = format!("{what}: attempts per logical request {x:.2} → {y:.2}");
        if y > x * (1.0 + TOLERANCE.attempts) {
            worse.push(line);
        } else if y < x * (1.0 - TOLERANCE.attempts) {
            better.push(line);
        }
    }
    (worse, better)
}

fn judge(
    b: &Figures,
    a: &Figures,
    hosts: &[HostChange],
    findings: &FindingChanges,
) -> (Verdict, Vec<String>) {
    let (mut worse, mut better) = movement("overall", b, a);
    for h in hosts {
        if let (Some(hb), Some(ha)) = (&h.before, &h.after) {
            if hb.requests >= MIN_HOST_REQUESTS && ha.requests >= MIN_HOST_REQUESTS {
                let (w, _) = movement(&h.host, hb, ha);
                worse.extend(w);
            }
        }
    }
    for f in findings
        .new
        .iter()
        .filter(|f| f.severity == Severity::Critical)
    {
        worse.push(format!(
            "new critical finding: {}{}",
            f.kind,
            f.host
                .as_deref()
                .map(|h| format!(" on {h}"))
                .unwrap_or_default()
        ));
    }
    if !worse.is_empty() {
        return (Verdict::Regressed, worse);
    }
    if !findings.resolved.is_empty() && findings.new.is_empty() {
        let kinds: Vec<String> = findings
            .resolved
            .iter()
            .map(|f| {
                format!(
                    "{}{}",
                    f.kind,
                    f.host
                        .as_deref()
                        .map(|h| format!(" on {h}"))
                        .unwrap_or_default()
                )
            })
            .collect();
        better.push(format!("resolved: {}", kinds.join(", ")));
    }
    if better.is_empty() {
        (
            Verdict::Unchanged,
            vec!["no figure moved beyond the tolerance and no finding was resolved".into()],
        )
    } else {
        (Verdict::Improved, better)
    }
}

/// Does a `--fail-on` condition hold for the comparison? `any-429`, `finding:` and `severity:`
/// look at the AFTER side (the state the change left).
pub fn fails(cond: &gate::FailOn, c: &Comparison) -> bool {
    use gate::FailOn;
    match cond {
        FailOn::Regressed => c.verdict == Verdict::Regressed,
        FailOn::Any429 => c.after.figures.rate_limited > 0,
        FailOn::Finding(kind) => c.after.findings.iter().any(|f| &f.kind == kind),
        FailOn::Severity(s) => c.after.findings.iter().any(|f| f.severity >= *s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figs(requests: usize, limited: usize, apl: f64) -> Figures {
        Figures {
            requests,
            rate_limited: limited,
            rate_limited_share: share(limited, requests),
            logical_requests: requests,
            attempts_per_logical: Some(apl),
            ..Default::default()
        }
    }

    fn side_of(f: Figures, findings: Vec<(&str, Severity)>) -> Side {
        Side {
            inputs: vec![],
            hosts: vec![HostSide {
                host: "api.example.com".into(),
                figures: f.clone(),
                plan: None,
            }],
            figures: f,
            findings: findings
                .into_iter()
                .map(|(k, s)| FindingRef {
                    kind: k.into(),
                    host: Some("api.example.com".into()),
                    severity: s,
                    summary: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn fewer_429s_and_a_resolved_burst_is_improved() {
        let c = compare(
            side_of(figs(300, 120, 1.4), vec![("burst", Severity::Critical)]),
            side_of(figs(600, 0, 1.0), vec![]),
        );
        assert_eq!(c.verdict, Verdict::Improved);
        assert_eq!(c.findings.resolved.len(), 1);
        assert!(c.reasons.iter().any(|r| r.contains("40.0 % → 0.0 %")));
        assert!(c.reasons.iter().any(|r| r.contains("resolved: burst")));
    }

    #[test]
    fn shares_not_counts_decide() {
        // Twice the capture, twice the 429s: the same share, unchanged.
        let c = compare(
            side_of(figs(100, 10, 1.1), vec![]),
            side_of(figs(200, 20, 1.1), vec![]),
        );
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert_eq!(c.delta.rate_limited, 10);
    }

    #[test]
    fn a_growing_share_or_a_new_critical_finding_is_regressed() {
        let c = compare(
            side_of(figs(100, 10, 1.1), vec![]),
            side_of(figs(100, 30, 1.1), vec![]),
        );
        assert_eq!(c.verdict, Verdict::Regressed);
        let c = compare(
            side_of(figs(100, 10, 1.1), vec![]),
            side_of(
                figs(100, 10, 1.1),
                vec![("retry_storm", Severity::Critical)],
            ),
        );
        assert_eq!(c.verdict, Verdict::Regressed);
        assert!(fails(&gate::FailOn::Regressed, &c));
        assert!(fails(&gate::FailOn::Any429, &c));
        assert!(fails(&gate::FailOn::Finding("retry_storm".into()), &c));
        assert!(!fails(&gate::FailOn::Finding("burst".into()), &c));
        // Within the tolerance: 1 point more is not a regression.
        let c = compare(
            side_of(figs(100, 10, 1.1), vec![]),
            side_of(figs(100, 11, 1.15), vec![]),
        );
        assert_eq!(c.verdict, Verdict::Unchanged);
    }
}

//! `ignored_retry_after`: a retry sent before the previous response's Retry-After had elapsed.
//! The wait is measured from the end of that response (its start when the duration is unknown,
//! which can only make the gap look longer). A retry counts as early when it came before 90 %
//! of the wait (less 50 ms for clock rounding).
//!
//! When the gaps match the Retry-After value read in milliseconds (`Retry-After: 12` → retry
//! after ~12 ms) for most early retries with a wait of ≥ 2 s, the finding says seconds were read
//! as milliseconds (RFC 9110 §10.2.3 defines delay-seconds).
//!
//! Reported per host when ≥ 2 retries came early and they are ≥ 20 % of the retries that
//! followed a Retry-After. Polls on their own cadence are not retries and are not judged.

use super::{median, r3, seconds_text, Cx, Detector, Finding, Placed, Severity, Step};
use crate::model::event::{flag, Event};
use crate::stats::Samples;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Gap (ms) within [0.5, 1.5] × the Retry-After value (+20 ms): the value was read as ms.
fn looks_like_ms(gap_s: f64, wait_s: f64) -> bool {
    let gap_ms = gap_s * 1000.0;
    gap_ms >= 0.5 * wait_s && gap_ms <= 1.5 * wait_s + 20.0
}

/// An early retry kept as an example.
struct Example {
    retry: Event,
    previous: Event,
    wait_s: f64,
    gap_s: f64,
}

#[derive(Default)]
struct Host {
    eligible: usize,
    early: usize,
    gaps: Samples,
    waits: Samples,
    long: usize,
    ms_matches: usize,
    raws: Vec<String>,
    hidden_by_cors: usize,
    examples: Vec<Example>,
}

/// `ignored_retry_after` (see the module doc).
#[derive(Default)]
pub struct Ignored {
    hosts: BTreeMap<u32, Host>,
}

impl Detector for Ignored {
    fn step(&mut self, s: &Step, cx: &Cx) {
        let Some(prev) = &s.link.prev else { return };
        let Some(row) = cx.row(&prev.ev) else { return };
        let ra = &row.retry_after;
        let Some(wait) = ra.seconds.filter(|s| *s > 0.0) else {
            return;
        };
        let (Some(t), Some(e)) = (s.ev.start_s(), prev.ev.end_s()) else {
            return;
        };
        // Whole-second timestamps can shift a gap by up to a second.
        let rounding = if cx.coarse_time { 1.0 } else { 0.05 };
        let h = self.hosts.entry(s.ev.host).or_default();
        h.eligible += 1;
        let gap = t - e;
        if gap < 0.9 * wait - rounding {
            if let Some(raw) = &ra.raw {
                if !h.raws.contains(raw) && h.raws.len() < 5 {
                    h.raws.push(raw.clone());
                }
            }
            if prev.ev.flags & flag::RA_HIDDEN != 0 {
                h.hidden_by_cors += 1;
            }
            let gap_s = gap.max(0.0);
            h.early += 1;
            h.gaps.push(gap_s);
            h.waits.push(wait);
            if wait >= 2.0 {
                h.long += 1;
                if looks_like_ms(gap_s, wait) {
                    h.ms_matches += 1;
                }
            }
            if h.examples.len() < 5 {
                h.examples.push(Example {
                    retry: *s.ev,
                    previous: prev.ev,
                    wait_s: wait,
                    gap_s,
                });
            }
        }
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in &self.hosts {
            let host = cx.host(id);
            if let Some(f) = finding(cx, host, h) {
                out.push(((host.to_string(), 0), f));
            }
        }
        out
    }
}

fn finding(cx: &Cx, host: &str, h: &Host) -> Option<Finding> {
    let (early, eligible) = (h.early, h.eligible);
    if early < 2 || (early as f64) < 0.2 * eligible as f64 {
        return None;
    }
    let ms_matches = h.ms_matches;
    let as_ms = !cx.coarse_time && ms_matches >= 2 && ms_matches as f64 >= 0.6 * h.long as f64;
    let (mg, mw) = (median(&h.gaps.sorted()), median(&h.waits.sorted()));
    let mut summary = format!(
        "{early} of {eligible} retries to {host} came before the previous response's Retry-After had elapsed (median {} after a Retry-After of {})",
        seconds_text(mg),
        seconds_text(mw)
    );
    if as_ms {
        summary.push_str(&format!(
            "; the gaps match the Retry-After value in milliseconds ({} → ~{} ms): the client read seconds as milliseconds",
            crate::units::fmt_num(mw),
            crate::units::fmt_num((mg * 1000.0).round())
        ));
    }
    let hidden_by_cors = h.hidden_by_cors;
    if hidden_by_cors * 2 > early {
        summary.push_str(&format!(
            "; for {hidden_by_cors} of them the browser hid Retry-After from the page (cross-origin, not listed in Access-Control-Expose-Headers), so the server should expose it"
        ));
    }
    summary.push('.');
    let severity = if as_ms || early * 2 >= eligible {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let examples: Vec<Value> = h
        .examples
        .iter()
        .map(|e| {
            json!({
                "retry": cx.at(&e.retry),
                "previous": cx.at(&e.previous),
                "retry_after_s": r3(e.wait_s),
                "gap_s": r3(e.gap_s),
            })
        })
        .collect();
    Some(Finding::new(
        super::Kind::IgnoredRetryAfter,
        severity,
        summary,
        json!({
            "host": host,
            "retries_after_retry_after": eligible,
            "early": early,
            "median_gap_s": r3(mg),
            "median_retry_after_s": r3(mw),
            "retry_after_values": h.raws,
            "seconds_read_as_milliseconds": as_ms && !cx.coarse_time,
            "hidden_from_page_by_cors": hidden_by_cors,
            "gaps_matching_value_in_ms": ms_matches,
            "examples": examples,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn run(ra: RaUse, fixed_ra: Option<f64>) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 20,
            window_s: 30.0,
        });
        sim.retry_after = fixed_ra;
        for k in 0..3 {
            let mut w = Worker::new(
                &format!("w{k}"),
                "https://api.example.com/v1/orders/{j}",
                30,
            );
            w.spacing_s = 0.3;
            w.max_attempts = 5;
            w.backoff = Backoff::Exp {
                base: 0.5,
                cap: 8.0,
            };
            w.ra = ra;
            sim.workers.push(w);
        }
        sim.horizon_s = 600.0;
        sim.run()
    }

    #[test]
    fn seconds_read_as_milliseconds() {
        let reqs = run(RaUse::Millis, Some(12.0));
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "ignored_retry_after")
            .expect("finding");
        assert_eq!(
            f.evidence["seconds_read_as_milliseconds"], true,
            "{}",
            f.summary
        );
        assert!(f.summary.contains("12 → ~1"), "{}", f.summary);
    }

    #[test]
    fn ignored_with_own_backoff() {
        let reqs = run(RaUse::Ignore, Some(20.0));
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "ignored_retry_after")
            .expect("finding");
        assert_eq!(
            f.evidence["seconds_read_as_milliseconds"], false,
            "{}",
            f.summary
        );
    }

    #[test]
    fn near_miss_honoured_with_spread() {
        let reqs = run(RaUse::Honor, Some(12.0));
        assert!(reqs.iter().any(|r| r.status == 429));
        assert!(!kinds(&reqs, None).contains(&"ignored_retry_after".to_string()));
    }

    #[test]
    fn browser_could_not_read_retry_after() {
        let mut s = Scenario::new();
        for k in 0..4 {
            let t = k as f64 * 40.0;
            let url = format!("https://api.example.com/v1/search?q={k}");
            for a in 0..3 {
                let b = s
                    .at(t + a as f64 * 1.0)
                    .ua("Mozilla/5.0")
                    .page("page_1")
                    .dur(20.0);
                let b = b.origin_header("https://app.example.com");
                if a < 2 {
                    b.ra("30").get(&url, 429);
                } else {
                    b.get(&url, 200);
                }
            }
        }
        let reqs = s.build();
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "ignored_retry_after")
            .expect("finding");
        assert!(
            f.summary.contains("Access-Control-Expose-Headers"),
            "{}",
            f.summary
        );
        assert_eq!(f.evidence["hidden_from_page_by_cors"], 8);
    }

    #[test]
    fn polling_through_a_retry_after_is_not_ignoring_it() {
        let mut s = Scenario::new();
        polling(&mut s, 0.0, 5.0, 60, 3, Some(7));
        assert!(kinds(&s.build(), None).is_empty());
    }
}

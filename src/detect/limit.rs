//! The known limit of a host: `--limit` from the user, else what rate-limit headers said (the
//! attribution of its rate-limited responses first, then any response's headers).

use crate::http::ratelimit;
use crate::units::{fmt_num, GivenLimits, Rate};
use serde_json::{json, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct KnownLimit {
    /// Requests allowed per window.
    pub count: f64,
    pub window_s: f64,
    /// `--limit` or `rate-limit headers`.
    pub source: String,
}

impl KnownLimit {
    pub fn per_second(&self) -> f64 {
        self.count / self.window_s
    }

    /// `120/min (2/s)`.
    pub fn text(&self) -> String {
        let r = Rate::new(self.count, self.window_s).to_string();
        let per = super::rate_text(self.per_second());
        // `50/min` rather than `50/min (50/min)` when the rate reads the same.
        if self.window_s == 1.0 || per == r {
            r
        } else {
            format!("{r} ({per})")
        }
    }

    pub fn json(&self) -> Value {
        json!({
            "count": self.count,
            "window_s": self.window_s,
            "per_second": super::r3(self.per_second()),
            "text": Rate::new(self.count, self.window_s).to_string(),
            "source": self.source,
        })
    }
}

/// What decides one host's known limit.
#[derive(Debug, Clone, Default)]
pub struct HostLimits<'a> {
    /// The host's name (lower-cased).
    pub name: &'a str,
    /// The host sent a rate-limited response.
    pub limited: bool,
    /// (limit × 1000, window × 1000) → responses, from the attribution of its rate-limited
    /// responses; `Some` as soon as one stated limits at all.
    pub from_attribution: Option<BTreeMap<(u64, u64), usize>>,
    /// The same from every response's rate-limit headers.
    pub from_headers: Option<&'a BTreeMap<(u64, u64), usize>>,
}

/// A (limit, window) pair as the limit tables count it, when it is a usable one.
pub fn pair(l: &ratelimit::Limits) -> Option<(u64, u64)> {
    match (l.limit, l.window_seconds) {
        (Some(c), Some(w))
            if c.is_finite() && w.is_finite() && c > 0.0 && w > 0.0 && c < 1e12 && w < 1e9 =>
        {
            Some(((c * 1000.0) as u64, (w * 1000.0) as u64))
        }
        _ => None,
    }
}

/// The known limit of every host (in the order given). `--limit HOST=RATE` applies to its
/// host; `--limit RATE` to `principal` (the busiest rate-limited host), or to every host when
/// none was rate-limited; headers apply to the host that sent them: the limits the attribution
/// stage read from rate-limited responses first, else any response's headers. The most common
/// (limit, window) pair wins; ties go to the smaller window.
pub fn compute(
    hosts: &[HostLimits],
    given: &GivenLimits,
    principal: Option<&str>,
) -> Vec<Option<KnownLimit>> {
    let any_limited = hosts.iter().any(|h| h.limited);
    hosts
        .iter()
        .map(|h| {
            let is_principal = principal.map_or(!any_limited, |p| p == h.name);
            if let Some(rate) = given.get(h.name, is_principal) {
                return Some(KnownLimit {
                    count: rate.count_per_window(),
                    window_s: rate.window_s,
                    source: given.flag_text(h.name, rate),
                });
            }
            let seen = h.from_attribution.as_ref().or(h.from_headers)?;
            let (&(c, w), &n) = seen
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0 .1.cmp(&a.0 .1)))?;
            Some(KnownLimit {
                count: c as f64 / 1000.0,
                window_s: w as f64 / 1000.0,
                source: format!(
                    "rate-limit headers ({} responses, {} per {} s)",
                    n,
                    fmt_num(c as f64 / 1000.0),
                    fmt_num(w as f64 / 1000.0)
                ),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::Quota;
    use crate::detect::testkit::*;

    fn for_host(
        limits: &std::collections::BTreeMap<String, KnownLimit>,
        host: &str,
    ) -> Option<KnownLimit> {
        limits.get(host).cloned()
    }

    #[test]
    fn option_applies_to_limited_host_only() {
        let mut s = Scenario::new();
        s.at(0.0).get("https://api.x.com/a", 429);
        s.at(0.0).get("https://cdn.x.com/a.js", 200);
        let reqs = s.build();
        let lim = unknown_attributions(&reqs);
        let cx = known_limits(&reqs, &lim, Some(Rate::parse("120/min").unwrap()));
        let k = for_host(&cx, "api.x.com").unwrap();
        assert_eq!((k.count, k.window_s), (120.0, 60.0));
        assert_eq!(k.text(), "120/min (2/s)");
        let slow = KnownLimit {
            count: 50.0,
            window_s: 60.0,
            source: "--limit 50/min".into(),
        };
        assert_eq!(slow.text(), "50/min", "not `50/min (50/min)`");
        assert!(for_host(&cx, "cdn.x.com").is_none());
    }

    #[test]
    fn headers_via_attribution() {
        let mut s = Scenario::new();
        s.at(0.0).get("https://api.x.com/a", 429);
        let reqs = s.build();
        let lim = vec![(
            0,
            attribution(Quota::Rate, Some(limits(100.0, 0.0, 60.0, 12.0))),
        )];
        let cx = known_limits(&reqs, &lim, None);
        let k = for_host(&cx, "api.x.com").unwrap();
        assert_eq!((k.count, k.window_s), (100.0, 60.0));
        assert!(k.source.contains("headers"));
    }
}

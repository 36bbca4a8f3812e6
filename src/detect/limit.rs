//! The known limit of a host: `--limit` from the user, else what rate-limit headers said (the
//! attribution of its rate-limited responses first, then any response's headers).

use super::Context;
use crate::http::ratelimit;
use crate::units::{fmt_num, Rate};
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
        let r = Rate::new(self.count, self.window_s);
        if self.window_s == 1.0 {
            r.to_string()
        } else {
            format!("{r} ({})", super::rate_text(self.per_second()))
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

/// The known limit for requests to `host`. `--limit` applies to hosts that were rate-limited
/// (or to every host when none was); headers apply to the host that sent them.
pub fn for_host(cx: &Context, host: &str) -> Option<KnownLimit> {
    let limited_hosts: Vec<usize> = (0..cx.requests.len())
        .filter(|&i| cx.is_limited(i))
        .collect();
    let host_limited = limited_hosts.iter().any(|&i| cx.requests[i].host() == host);
    if let Some(rate) = cx.limit_option {
        if host_limited || limited_hosts.is_empty() {
            return Some(KnownLimit {
                count: rate.count_per_window(),
                window_s: rate.window_s,
                source: format!("--limit {rate}"),
            });
        }
    }
    // (limit, window) pairs seen, most common first; ties by the smaller window.
    let mut seen: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let add = |seen: &mut BTreeMap<(u64, u64), usize>, l: &ratelimit::Limits| {
        if let (Some(c), Some(w)) = (l.limit, l.window_seconds) {
            if c.is_finite() && w.is_finite() && c > 0.0 && w > 0.0 {
                *seen
                    .entry(((c * 1000.0) as u64, (w * 1000.0) as u64))
                    .or_insert(0) += 1;
            }
        }
    };
    for (i, a) in cx.attribution.iter().enumerate() {
        if let Some(l) = a.and_then(|a| a.limits.as_ref()) {
            if cx.requests[i].host() == host {
                add(&mut seen, l);
            }
        }
    }
    let from_attribution = !seen.is_empty();
    if !from_attribution {
        for r in cx.requests.iter().filter(|r| r.host() == host) {
            if let Some(l) = ratelimit::parse(&r.response_headers, r.started) {
                add(&mut seen, &l);
            }
        }
    }
    let ((c, w), n) = seen
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0 .1.cmp(&a.0 .1)))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribute::Quota;
    use crate::detect::testkit::*;

    #[test]
    fn option_applies_to_limited_host_only() {
        let mut s = Scenario::new();
        s.at(0.0).get("https://api.x.com/a", 429);
        s.at(0.0).get("https://cdn.x.com/a.js", 200);
        let reqs = s.build();
        let lim = unknown_attributions(&reqs);
        let cx = Context::new(&reqs, &lim, Some(Rate::parse("120/min").unwrap()));
        let k = for_host(&cx, "api.x.com").unwrap();
        assert_eq!((k.count, k.window_s), (120.0, 60.0));
        assert_eq!(k.text(), "120/min (2/s)");
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
        let cx = Context::new(&reqs, &lim, None);
        let k = for_host(&cx, "api.x.com").unwrap();
        assert_eq!((k.count, k.window_s), (100.0, 60.0));
        assert!(k.source.contains("headers"));
    }
}

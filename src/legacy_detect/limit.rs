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

/// The known limit for requests to `host` (computed once per analysis, see [`compute`]).
pub fn for_host(cx: &Context, host: &str) -> Option<KnownLimit> {
    cx.limits.get(host).cloned()
}

/// The known limit of every host. `--limit` applies to hosts that were rate-limited (or to
/// every host when none was); headers apply to the host that sent them: the limits the
/// attribution stage read from rate-limited responses first, else any response's headers.
/// The most common (limit, window) pair wins; ties go to the smaller window.
pub fn compute(
    requests: &[crate::model::Request],
    hosts: &super::HostIndex,
    limited: &[bool],
    attribution: &[Option<&crate::attribute::Attribution>],
    limit_option: Option<Rate>,
) -> BTreeMap<String, KnownLimit> {
    type Seen = BTreeMap<(u64, u64), usize>;
    let add = |seen: &mut Seen, l: &ratelimit::Limits| {
        if let (Some(c), Some(w)) = (l.limit, l.window_seconds) {
            if c.is_finite() && w.is_finite() && c > 0.0 && w > 0.0 && c < 1e12 && w < 1e9 {
                *seen
                    .entry(((c * 1000.0) as u64, (w * 1000.0) as u64))
                    .or_insert(0) += 1;
            }
        }
    };
    let any_limited = limited.iter().any(|&l| l);
    let mut host_limited: BTreeMap<&str, bool> = BTreeMap::new();
    let mut from_attr: BTreeMap<&str, Seen> = BTreeMap::new();
    for i in 0..hosts.len() {
        let h = hosts.get(i);
        *host_limited.entry(h).or_insert(false) |= limited[i];
        if let Some(l) = attribution[i].and_then(|a| a.limits.as_ref()) {
            add(from_attr.entry(h).or_default(), l);
        }
    }
    let mut from_headers: BTreeMap<&str, Seen> = BTreeMap::new();
    for (i, r) in requests.iter().enumerate() {
        let h = hosts.get(i);
        if from_attr.contains_key(h) {
            continue;
        }
        if let Some(l) = ratelimit::parse(&r.response_headers, r.started) {
            add(from_headers.entry(h).or_default(), &l);
        }
    }
    let mut out = BTreeMap::new();
    for (&host, &was_limited) in &host_limited {
        if let Some(rate) = limit_option {
            if was_limited || !any_limited {
                out.insert(
                    host.to_string(),
                    KnownLimit {
                        count: rate.count_per_window(),
                        window_s: rate.window_s,
                        source: format!("--limit {rate}"),
                    },
                );
                continue;
            }
        }
        let Some(seen) = from_attr.get(host).or_else(|| from_headers.get(host)) else {
            continue;
        };
        let Some((&(c, w), &n)) = seen
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0 .1.cmp(&a.0 .1)))
        else {
            continue;
        };
        out.insert(
            host.to_string(),
            KnownLimit {
                count: c as f64 / 1000.0,
                window_s: w as f64 / 1000.0,
                source: format!(
                    "rate-limit headers ({} responses, {} per {} s)",
                    n,
                    fmt_num(c as f64 / 1000.0),
                    fmt_num(w as f64 / 1000.0)
                ),
            },
        );
    }
    out
}

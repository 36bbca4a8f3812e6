//! The overview: what the human-facing reports draw beyond the JSON contract — the capture's
//! separate time windows, a bucketed timeline (starts per host, 429s by layer, requests in
//! flight), the next attempt after each 429, and the credentials that sent the most.
//!
//! It lives on the [`Report`](crate::report::Report) (not serialized, so the JSON stays the
//! versioned contract) and is built by the analysis from its time-ordered replays
//! ([`Builder`]: windows on the first, the timeline on the second), with bounded size whatever
//! the input: at most [`MAX_BUCKETS`] buckets, [`TIMELINE_HOSTS`] hosts, [`MAX_WINDOWS`]
//! windows and [`LISTED_CREDENTIALS`] credentials.

use crate::model::Layer;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// Maps keyed by operation hashes, looked up once per request: foldhash, not SipHash (the
/// keys are already hashes; SipHash was 0.6 % of a JSON-lines run's instructions).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// A quiet gap longer than this splits the capture into separate windows (two inputs from
/// different days are two windows, not one 24-hour capture).
pub const WINDOW_GAP_MS: i64 = 3_600_000;
/// At most this many windows; beyond it the shortest gaps are joined.
pub const MAX_WINDOWS: usize = 24;
/// Timeline buckets over all windows, at most (plus one per window for rounding).
pub const MAX_BUCKETS: usize = 600;
/// Hosts drawn on their own in the timeline; the rest are summed as "other hosts".
pub const TIMELINE_HOSTS: usize = 6;
/// Credentials listed (all are counted).
pub const LISTED_CREDENTIALS: usize = 20;
/// Distinct clients counted per credential, at most.
pub const CLIENTS_COUNTED: usize = 10_000;
/// A repeat of a rate-limited operation this long after the 429 is still its next attempt.
pub const RETRY_LINK_MS: i64 = 120_000;

/// Bucket widths the timeline picks from: the smallest that keeps it within [`MAX_BUCKETS`].
const BUCKET_LADDER_MS: [i64; 22] = [
    100,
    250,
    500,
    1_000,
    2_000,
    5_000,
    10_000,
    15_000,
    30_000,
    60_000,
    120_000,
    300_000,
    600_000,
    900_000,
    1_800_000,
    3_600_000,
    7_200_000,
    10_800_000,
    21_600_000,
    43_200_000,
    86_400_000,
    604_800_000,
];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overview {
    /// Separate stretches of activity, in time order (empty when no record had a time).
    pub windows: Vec<Window>,
    pub timeline: Timeline,
    /// The busiest credentials (by requests; at most [`LISTED_CREDENTIALS`]).
    pub credentials: Vec<CredentialRow>,
    /// Distinct credentials seen.
    pub credential_count: usize,
    /// For each rate-limited response (the order of `Report::rate_limited`), the start of the
    /// same client's next attempt at the same operation (method + URL) within
    /// [`RETRY_LINK_MS`], if any.
    pub next_attempt: Vec<Option<DateTime<Utc>>>,
    /// For each rate-limited response (the order of `Report::rate_limited`), its client's label
    /// as `clients.list` names it (the CSV/NDJSON exports' `client` column).
    pub clients: Vec<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
    pub requests: usize,
    pub rate_limited: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Width of every bucket, ms.
    pub bucket_ms: i64,
    /// Hosts with their own series, busiest rate-limited first; the last is "other hosts" when
    /// there were more.
    pub hosts: Vec<String>,
    /// Dense per window, in time order.
    pub buckets: Vec<Bucket>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    /// Start of the bucket, ms since the Unix epoch.
    pub start_ms: i64,
    /// Index into [`Overview::windows`].
    pub window: usize,
    /// Requests started, per timeline host.
    pub starts: Vec<u32>,
    /// Rate-limited responses by layer: cdn, proxy, api, unknown.
    pub limited: [u32; 4],
    /// Mean requests in flight over the bucket (busy time ÷ bucket width).
    pub in_flight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CredentialRow {
    /// The keyed fingerprint (never the credential).
    pub fingerprint: String,
    pub requests: usize,
    pub rate_limited: usize,
    /// Distinct clients that used it.
    pub clients: usize,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
}

/// Position of a layer in [`Bucket::limited`].
pub fn layer_slot(l: Layer) -> usize {
    match l {
        Layer::Cdn => 0,
        Layer::Proxy => 1,
        Layer::Api => 2,
        Layer::Unknown => 3,
    }
}

pub const LAYER_ORDER: [Layer; 4] = [Layer::Cdn, Layer::Proxy, Layer::Api, Layer::Unknown];

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// Split sorted start times (ms) into windows at gaps longer than [`WINDOW_GAP_MS`], joining
/// the shortest gaps when there would be more than [`MAX_WINDOWS`]. Returns (first, last)
/// index pairs into `times`.
pub fn windows(times: &[i64]) -> Vec<(usize, usize)> {
    if times.is_empty() {
        return Vec::new();
    }
    let mut gaps: Vec<(i64, usize)> = times
        .windows(2)
        .enumerate()
        .map(|(i, w)| (w[1] - w[0], i + 1))
        .filter(|(g, _)| *g > WINDOW_GAP_MS)
        .collect();
    if gaps.len() >= MAX_WINDOWS {
        // Keep the widest gaps (earliest first on ties).
        gaps.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        gaps.truncate(MAX_WINDOWS - 1);
    }
    let mut cuts: Vec<usize> = gaps.into_iter().map(|(_, i)| i).collect();
    cuts.sort_unstable();
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for c in cuts {
        out.push((start, c - 1));
        start = c;
    }
    out.push((start, times.len() - 1));
    out
}

/// A stretch of activity between quiet gaps longer than [`WINDOW_GAP_MS`] (the windows are
/// unions of consecutive segments).
#[derive(Debug, Clone)]
struct Segment {
    first: DateTime<Utc>,
    last: DateTime<Utc>,
    last_ms: i64,
    requests: usize,
    rate_limited: usize,
}

/// One credential, as the analysis counted it (order of first appearance in `first_seen`).
#[derive(Debug, Clone)]
pub struct CredentialCount {
    pub fingerprint: String,
    pub requests: usize,
    pub rate_limited: usize,
    pub clients: usize,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
    pub first_seen: (bool, (i64, u16, u16, u64)),
}

/// Builds the [`Overview`] from the analysis' replays of the timed requests in time order:
/// [`Builder::first_pass`] for every request, then [`Builder::start_timeline`], then
/// [`Builder::second_pass`] for every request again.
#[derive(Debug, Default)]
pub struct Builder {
    host_order: Vec<String>,
    segments: Vec<Segment>,
    /// Gaps longer than [`WINDOW_GAP_MS`]: (length, segment that starts after it).
    gaps: Vec<(i64, usize)>,
    windows: Vec<Window>,
    /// First segment of each window.
    window_of_segment: Vec<usize>,
    timeline: Timeline,
    /// Per window: the index of its first bucket, its origin and bucket count.
    spans: Vec<(usize, i64, usize)>,
    window_now: usize,
    segment_now: usize,
    /// Requests up to the end of each segment (cumulative).
    segment_ends: Vec<usize>,
    seen: usize,
    /// The timeline series of each host id seen (`None`: not looked up yet).
    slot_of_id: Vec<Option<Option<usize>>>,
}

/// Host ids whose series is remembered (more hosts are looked up each time).
const MAX_HOST_IDS: usize = 1 << 16;

impl Builder {
    /// `host_order`: hosts busiest rate-limited first.
    pub fn new(host_order: Vec<String>) -> Builder {
        Builder {
            host_order,
            ..Default::default()
        }
    }

    /// `host_order` for a builder whose first pass was made without it (it reads none).
    pub fn set_host_order(&mut self, host_order: Vec<String>) {
        self.host_order = host_order;
    }

    /// First pass: one timed request (time order).
    pub fn first_pass(&mut self, t: DateTime<Utc>, limited: bool) {
        let t_ms = ms(t);
        let new_segment = match self.segments.last() {
            None => true,
            Some(s) => t_ms - s.last_ms > WINDOW_GAP_MS,
        };
        if new_segment {
            if let Some(s) = self.segments.last() {
                self.gaps.push((t_ms - s.last_ms, self.segments.len()));
            }
            self.segments.push(Segment {
                first: t,
                last: t,
                last_ms: t_ms,
                requests: 0,
                rate_limited: 0,
            });
        }
        if let Some(s) = self.segments.last_mut() {
            s.last = t;
            s.last_ms = t_ms;
            s.requests += 1;
            if limited {
                s.rate_limited += 1;
            }
        }
    }

    /// Between the passes: the windows (see [`windows`]) and the timeline's buckets.
    pub fn start_timeline(&mut self) {
        if self.segments.is_empty() {
            return;
        }
        let mut gaps = std::mem::take(&mut self.gaps);
        if gaps.len() >= MAX_WINDOWS {
            // Keep the widest gaps (earliest first on ties).
            gaps.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            gaps.truncate(MAX_WINDOWS - 1);
        }
        let mut cuts: Vec<usize> = gaps.into_iter().map(|(_, i)| i).collect();
        cuts.sort_unstable();
        cuts.push(self.segments.len());
        let mut start = 0;
        let mut total = 0;
        self.segment_ends = self
            .segments
            .iter()
            .map(|s| {
                total += s.requests;
                total
            })
            .collect();
        self.window_of_segment = vec![0; self.segments.len()];
        for c in cuts {
            let part = &self.segments[start..c];
            let (Some(f), Some(l)) = (part.first(), part.last()) else {
                continue;
            };
            for k in start..c {
                self.window_of_segment[k] = self.windows.len();
            }
            self.windows.push(Window {
                first: f.first,
                last: l.last,
                requests: part.iter().map(|s| s.requests).sum(),
                rate_limited: part.iter().map(|s| s.rate_limited).sum(),
            });
            start = c;
        }
        let active_ms: i64 = self
            .windows
            .iter()
            .map(|w| (ms(w.last) - ms(w.first)).max(1))
            .sum();
        let bucket_ms = BUCKET_LADDER_MS
            .iter()
            .copied()
            .find(|b| active_ms / b < MAX_BUCKETS as i64)
            .unwrap_or(BUCKET_LADDER_MS[BUCKET_LADDER_MS.len() - 1]);
        let mut hosts: Vec<String> = self
            .host_order
            .iter()
            .take(TIMELINE_HOSTS)
            .cloned()
            .collect();
        let other = self.host_order.len() > TIMELINE_HOSTS;
        if other {
            hosts.push("other hosts".to_string());
        }
        let series = hosts.len();
        let mut buckets: Vec<Bucket> = Vec::new();
        for (wi, w) in self.windows.iter().enumerate() {
            let origin = ms(w.first).div_euclid(bucket_ms) * bucket_ms;
            let n = ((ms(w.last) - origin) / bucket_ms + 1) as usize;
            self.spans.push((buckets.len(), origin, n));
            buckets.extend((0..n).map(|k| Bucket {
                start_ms: origin + k as i64 * bucket_ms,
                window: wi,
                starts: vec![0; series],
                limited: [0; 4],
                in_flight: 0.0,
            }));
        }
        self.timeline = Timeline {
            bucket_ms,
            hosts,
            buckets,
        };
    }

    /// Second pass: one timed request again (time order), with its host (id, and the name
    /// that id stands for) and, when it was rate-limited, the layer that sent it.
    pub fn second_pass(
        &mut self,
        t: DateTime<Utc>,
        host_id: u32,
        host: &str,
        limited: Option<Layer>,
        duration_ms: Option<f64>,
    ) {
        if self.spans.is_empty() {
            return;
        }
        // Which segment (and so which window) this request falls in.
        while self.segment_now + 1 < self.segments.len()
            && self.seen >= self.segment_ends[self.segment_now]
        {
            self.segment_now += 1;
        }
        self.seen += 1;
        self.window_now = self
            .window_of_segment
            .get(self.segment_now)
            .copied()
            .unwrap_or(0);
        let Some(&(base, origin, n)) = self.spans.get(self.window_now) else {
            return;
        };
        let bucket_ms = self.timeline.bucket_ms;
        let end_ms = origin + n as i64 * bucket_ms;
        let t_ms = ms(t);
        let k = ((t_ms - origin) / bucket_ms) as usize;
        let series = self.timeline.hosts.len();
        let listed = self.host_order.len().min(TIMELINE_HOSTS);
        let other = self.host_order.len() > TIMELINE_HOSTS;
        let hosts = &self.timeline.hosts;
        // By the host's id: a vector index per request, where hashing and comparing the name
        // was a tenth of this pass.
        let id = host_id as usize;
        let slot = match self.slot_of_id.get(id) {
            Some(&Some(s)) => s,
            _ => {
                let s = hosts[..listed]
                    .iter()
                    .position(|h| h.eq_ignore_ascii_case(host))
                    .or(other.then_some(series - 1));
                if id < MAX_HOST_IDS {
                    if self.slot_of_id.len() <= id {
                        self.slot_of_id.resize(id + 1, None);
                    }
                    self.slot_of_id[id] = Some(s);
                }
                s
            }
        };
        let Some(bucket) = self.timeline.buckets.get_mut(base + k.min(n - 1)) else {
            return;
        };
        if let Some(s) = slot {
            bucket.starts[s] += 1;
        }
        if let Some(layer) = limited {
            bucket.limited[layer_slot(layer)] += 1;
        }
        // Busy time, spread over the buckets the request overlaps (clipped to the window).
        if let Some(d) = duration_ms.filter(|d| d.is_finite() && *d > 0.0) {
            let mut from = t_ms as f64;
            let to = (t_ms as f64 + d).min(end_ms as f64);
            let mut kk = k;
            while from < to && kk < n {
                let bucket_end = (origin + (kk as i64 + 1) * bucket_ms) as f64;
                let part = to.min(bucket_end) - from;
                self.timeline.buckets[base + kk].in_flight += part;
                from = bucket_end;
                kk += 1;
            }
        }
    }

    /// The overview, with the credentials (in order of first appearance) and each rate-limited
    /// response's next attempt (in the order of the report's list).
    pub fn finish(
        mut self,
        mut creds: Vec<CredentialCount>,
        next_attempt: Vec<Option<DateTime<Utc>>>,
    ) -> Overview {
        let bucket_ms = self.timeline.bucket_ms;
        for b in &mut self.timeline.buckets {
            b.in_flight /= bucket_ms as f64;
        }
        let credential_count = creds.len();
        creds.sort_by(|a, b| {
            b.requests
                .cmp(&a.requests)
                .then(a.first_seen.cmp(&b.first_seen))
        });
        creds.truncate(LISTED_CREDENTIALS);
        Overview {
            windows: self.windows,
            timeline: self.timeline,
            credentials: creds
                .into_iter()
                .map(|c| CredentialRow {
                    fingerprint: c.fingerprint,
                    requests: c.requests,
                    rate_limited: c.rate_limited,
                    clients: c.clients,
                    first: c.first,
                    last: c.last,
                })
                .collect(),
            credential_count,
            next_attempt,
            clients: Vec::new(),
        }
    }
}

/// Each rate-limited response's next attempt: the next request of the same operation after
/// the 429 and within [`RETRY_LINK_MS`] (fed per host, in time order).
#[derive(Debug, Default)]
pub struct NextAttempts {
    /// Operation → (position in the report's list, start ms) waiting for their next attempt.
    pending: HashMap<u64, Vec<(usize, i64)>>,
    oldest: i64,
    pub found: Vec<(usize, DateTime<Utc>)>,
}

impl NextAttempts {
    pub fn new() -> NextAttempts {
        NextAttempts {
            oldest: i64::MAX,
            ..Default::default()
        }
    }

    /// One timed request of the operation `op`; `listed`: its position in the report's list
    /// when it was rate-limited.
    pub fn observe(&mut self, t: DateTime<Utc>, op: u64, listed: Option<usize>) {
        if self.pending.is_empty() && listed.is_none() {
            return;
        }
        let t_ms = ms(t);
        // Forget operations whose retry window has passed (at most once per window length).
        if t_ms - self.oldest > RETRY_LINK_MS {
            self.pending.retain(|_, v| {
                v.retain(|(_, at)| t_ms - at <= RETRY_LINK_MS);
                !v.is_empty()
            });
            self.oldest = self
                .pending
                .values()
                .flat_map(|v| v.iter().map(|(_, at)| *at))
                .min()
                .unwrap_or(i64::MAX);
        }
        if let Some(waiting) = self.pending.remove(&op) {
            for (pos, at) in waiting {
                if t_ms >= at && t_ms - at <= RETRY_LINK_MS {
                    self.found.push((pos, t));
                }
            }
        }
        if let Some(pos) = listed {
            self.pending.entry(op).or_default().push((pos, t_ms));
            self.oldest = self.oldest.min(t_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;

    #[test]
    fn a_long_quiet_gap_splits_windows() {
        let t = [0, 1_000, 2_000, 30 * H, 30 * H + 5];
        assert_eq!(windows(&t), vec![(0, 2), (3, 4)]);
        assert_eq!(windows(&[5]), vec![(0, 0)]);
        assert!(windows(&[]).is_empty());
        // An hour exactly is not a gap.
        assert_eq!(windows(&[0, H]), vec![(0, 1)]);
    }

    #[test]
    fn too_many_windows_join_the_shortest_gaps() {
        // 40 bursts, gaps growing: only the widest MAX_WINDOWS - 1 gaps split.
        let t: Vec<i64> = (0..40).map(|i| i * i * 2 * H).collect();
        let w = windows(&t);
        assert_eq!(w.len(), MAX_WINDOWS);
        assert_eq!(w[0].0, 0);
        assert_eq!(w.last().unwrap().1, 39);
    }
}

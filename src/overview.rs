//! The overview: what the human-facing reports draw beyond the JSON contract — the capture's
//! separate time windows, a bucketed timeline (starts per host, 429s by layer, requests in
//! flight), the next attempt after each 429, and the credentials that sent the most.
//!
//! It lives on the [`Report`](crate::report::Report) (not serialized, so the JSON stays the
//! versioned contract) and is computed once from the time-sorted requests, with bounded size
//! whatever the input: at most [`MAX_BUCKETS`] buckets, [`TIMELINE_HOSTS`] hosts,
//! [`MAX_WINDOWS`] windows and [`LISTED_CREDENTIALS`] credentials.

use crate::attribute::Layer;
use crate::model::Request;
use crate::report::RateLimited;
use chrono::{DateTime, Utc};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

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
const CLIENTS_COUNTED: usize = 10_000;
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
    /// as `clients.list` names it. Filled only for the CSV/NDJSON exports
    /// ([`rate_limited_clients`]); empty otherwise.
    pub clients: Vec<String>,
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

/// The caller identity of a request, hashed without allocating (the same rule as
/// `detect::clients::ClientKey::of`).
fn client_hash(r: &Request) -> u64 {
    let mut h = DefaultHasher::new();
    let c = &r.client;
    match c.client.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(name) => (0u8, name).hash(&mut h),
        None => {
            1u8.hash(&mut h);
            r.user_agent().hash(&mut h);
            c.client_ip.hash(&mut h);
            c.pageref.hash(&mut h);
            if c.pageref.is_none() {
                c.origin.hash(&mut h);
            }
        }
    }
    h.finish()
}

/// One operation of one client: who, with which credential, which method and URL.
fn operation_hash(r: &Request, client: u64) -> u64 {
    let mut h = DefaultHasher::new();
    client.hash(&mut h);
    r.credential.hash(&mut h);
    r.method.hash(&mut h);
    crate::http::url::normalize(&r.url).hash(&mut h);
    h.finish()
}

/// The overview of time-sorted `requests` (as `analyze::merge_inputs` orders them) and the
/// report's rate-limited responses. `host_order` lists hosts busiest rate-limited first.
pub fn build(
    requests: &[Request],
    rate_limited: &[RateLimited],
    host_order: &[String],
) -> Overview {
    let layer_of: HashMap<usize, (usize, Layer)> = rate_limited
        .iter()
        .enumerate()
        .map(|(pos, r)| (r.request_index, (pos, r.attribution.layer)))
        .collect();

    // Windows over the timed requests.
    let timed: Vec<usize> = (0..requests.len())
        .filter(|&i| requests[i].started.is_some())
        .collect();
    let times: Vec<i64> = timed
        .iter()
        .filter_map(|&i| requests[i].started.map(ms))
        .collect();
    let spans = windows(&times);
    let mut windows_out: Vec<Window> = Vec::with_capacity(spans.len());
    for &(a, b) in &spans {
        let (Some(first), Some(last)) = (requests[timed[a]].started, requests[timed[b]].started)
        else {
            continue;
        };
        let limited = timed[a..=b]
            .iter()
            .filter(|i| layer_of.contains_key(i))
            .count();
        windows_out.push(Window {
            first,
            last,
            requests: b - a + 1,
            rate_limited: limited,
        });
    }

    let timeline = timeline(
        requests,
        &timed,
        &spans,
        &windows_out,
        &layer_of,
        host_order,
    );
    let next_attempt = next_attempts(requests, rate_limited, &layer_of);
    let (credentials, credential_count) = credentials(requests, &layer_of);
    Overview {
        windows: windows_out,
        timeline,
        credentials,
        credential_count,
        next_attempt,
        clients: Vec::new(),
    }
}

/// The client label of each rate-limited response, in `rate_limited` order (one pass over the
/// requests, as the clients section identifies them, so the labels match `clients.list`).
pub fn rate_limited_clients(requests: &[Request], rate_limited: &[RateLimited]) -> Vec<String> {
    let clients = crate::detect::clients::Clients::identify(requests);
    rate_limited
        .iter()
        .map(|r| {
            clients
                .of_request
                .get(r.request_index)
                .map(|&id| clients.label(id).to_string())
                .unwrap_or_default()
        })
        .collect()
}

fn timeline(
    requests: &[Request],
    timed: &[usize],
    spans: &[(usize, usize)],
    windows: &[Window],
    layer_of: &HashMap<usize, (usize, Layer)>,
    host_order: &[String],
) -> Timeline {
    if windows.is_empty() {
        return Timeline::default();
    }
    let active_ms: i64 = windows
        .iter()
        .map(|w| (ms(w.last) - ms(w.first)).max(1))
        .sum();
    let bucket_ms = BUCKET_LADDER_MS
        .iter()
        .copied()
        .find(|b| active_ms / b < MAX_BUCKETS as i64)
        .unwrap_or(BUCKET_LADDER_MS[BUCKET_LADDER_MS.len() - 1]);
    let mut hosts: Vec<String> = host_order.iter().take(TIMELINE_HOSTS).cloned().collect();
    let other = host_order.len() > TIMELINE_HOSTS;
    if other {
        hosts.push("other hosts".to_string());
    }
    let series = hosts.len();
    let mut buckets: Vec<Bucket> = Vec::new();
    for (wi, (w, &(a, b))) in windows.iter().zip(spans).enumerate() {
        let origin = ms(w.first).div_euclid(bucket_ms) * bucket_ms;
        let n = ((ms(w.last) - origin) / bucket_ms + 1) as usize;
        let base = buckets.len();
        buckets.extend((0..n).map(|k| Bucket {
            start_ms: origin + k as i64 * bucket_ms,
            window: wi,
            starts: vec![0; series],
            limited: [0; 4],
            in_flight: 0.0,
        }));
        let end_ms = origin + n as i64 * bucket_ms;
        for &i in &timed[a..=b] {
            let r = &requests[i];
            let Some(t) = r.started.map(ms) else { continue };
            let k = ((t - origin) / bucket_ms) as usize;
            let Some(bucket) = buckets.get_mut(base + k.min(n - 1)) else {
                continue;
            };
            let host = crate::http::url::host(&r.url);
            let slot = hosts[..host_order.len().min(TIMELINE_HOSTS)]
                .iter()
                .position(|h| h.eq_ignore_ascii_case(host))
                .or(other.then_some(series - 1));
            if let Some(s) = slot {
                bucket.starts[s] += 1;
            }
            if let Some((_, layer)) = layer_of.get(&i) {
                bucket.limited[layer_slot(*layer)] += 1;
            }
            // Busy time, spread over the buckets the request overlaps (clipped to the window).
            if let Some(d) = r.duration_ms.filter(|d| d.is_finite() && *d > 0.0) {
                let mut from = t as f64;
                let to = (t as f64 + d).min(end_ms as f64);
                let mut kk = k;
                while from < to && kk < n {
                    let bucket_end = (origin + (kk as i64 + 1) * bucket_ms) as f64;
                    let part = to.min(bucket_end) - from;
                    buckets[base + kk].in_flight += part;
                    from = bucket_end;
                    kk += 1;
                }
            }
        }
    }
    for b in &mut buckets {
        b.in_flight /= bucket_ms as f64;
    }
    Timeline {
        bucket_ms,
        hosts,
        buckets,
    }
}

/// The next attempt of each rate-limited operation: the same client's next request with the
/// same credential, method and normalized URL, after the 429 and within [`RETRY_LINK_MS`].
fn next_attempts(
    requests: &[Request],
    rate_limited: &[RateLimited],
    layer_of: &HashMap<usize, (usize, Layer)>,
) -> Vec<Option<DateTime<Utc>>> {
    let mut out = vec![None; rate_limited.len()];
    // Operation → positions in `rate_limited` waiting for their next attempt, with their time.
    let mut pending: HashMap<u64, Vec<(usize, i64)>> = HashMap::new();
    let mut oldest = i64::MAX;
    for (i, r) in requests.iter().enumerate() {
        let Some(t) = r.started.map(ms) else { continue };
        if pending.is_empty() && !layer_of.contains_key(&i) {
            continue;
        }
        // Forget operations whose retry window has passed (at most once per window length).
        if t - oldest > RETRY_LINK_MS {
            pending.retain(|_, v| {
                v.retain(|(_, at)| t - at <= RETRY_LINK_MS);
                !v.is_empty()
            });
            oldest = pending
                .values()
                .flat_map(|v| v.iter().map(|(_, at)| *at))
                .min()
                .unwrap_or(i64::MAX);
        }
        let op = operation_hash(r, client_hash(r));
        if let Some(waiting) = pending.remove(&op) {
            for (pos, at) in waiting {
                if t >= at && t - at <= RETRY_LINK_MS {
                    out[pos] = r.started;
                }
            }
        }
        if let Some((pos, _)) = layer_of.get(&i) {
            pending.entry(op).or_default().push((*pos, t));
            oldest = oldest.min(t);
        }
    }
    out
}

struct CredAcc {
    requests: usize,
    rate_limited: usize,
    clients: HashSet<u64>,
    first: Option<DateTime<Utc>>,
    last: Option<DateTime<Utc>>,
    first_seen: usize,
}

fn credentials(
    requests: &[Request],
    layer_of: &HashMap<usize, (usize, Layer)>,
) -> (Vec<CredentialRow>, usize) {
    let mut acc: HashMap<&str, CredAcc> = HashMap::new();
    for (i, r) in requests.iter().enumerate() {
        let Some(c) = r.credential.as_deref() else {
            continue;
        };
        let n = acc.len();
        let a = acc.entry(c).or_insert_with(|| CredAcc {
            requests: 0,
            rate_limited: 0,
            clients: HashSet::new(),
            first: None,
            last: None,
            first_seen: n,
        });
        a.requests += 1;
        if layer_of.contains_key(&i) {
            a.rate_limited += 1;
        }
        if a.clients.len() < CLIENTS_COUNTED {
            a.clients.insert(client_hash(r));
        }
        if let Some(t) = r.started {
            a.first = Some(a.first.map_or(t, |f| f.min(t)));
            a.last = Some(a.last.map_or(t, |l| l.max(t)));
        }
    }
    let count = acc.len();
    let mut rows: Vec<(usize, CredentialRow)> = acc
        .into_iter()
        .map(|(fp, a)| {
            (
                a.first_seen,
                CredentialRow {
                    fingerprint: fp.to_string(),
                    requests: a.requests,
                    rate_limited: a.rate_limited,
                    clients: a.clients.len(),
                    first: a.first,
                    last: a.last,
                },
            )
        })
        .collect();
    rows.sort_by(|(fa, a), (fb, b)| b.requests.cmp(&a.requests).then(fa.cmp(fb)));
    rows.truncate(LISTED_CREDENTIALS);
    (rows.into_iter().map(|(_, r)| r).collect(), count)
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

//! What the recommendation reads from the analysis, per host: accumulators fed one request at a
//! time in time order (the traffic) and one rate-limited response at a time (the limits, waits
//! and kinds of limit it stated). The recommendation never sees records or the Report, only
//! these, so the analysis can stream and the report can hold one recommendation per host.
//!
//! Every accumulator merges (`merge`), so a host's evidence can be built in parts and the
//! evidence of all traffic is the merge of every host's.

use crate::attribute::{Layer, Quota};
use crate::http::ratelimit::{Limits, Stated};
use crate::http::retry_after::{self, RetryAfter};
use crate::stats::Samples;
use chrono::{DateTime, Utc};

/// One request as the recommendation sees it.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    pub started: Option<DateTime<Utc>>,
    pub status: u16,
    pub duration_ms: Option<f64>,
    /// A rate-limit signal (429, or a 503/403 the attribution stage counted).
    pub limited: bool,
}

/// One rate-limited response as the recommendation sees it.
#[derive(Debug, Clone, Copy)]
pub struct Limited<'a> {
    pub time: Option<DateTime<Utc>>,
    pub quota: Quota,
    pub limits: Option<&'a Limits>,
    /// The request allowance the response states, with which header or body said so.
    pub stated: Option<&'a Stated>,
    pub retry_after: &'a RetryAfter,
    /// The operation refused (client, method, URL, body: the logical request's key), so one
    /// caller refused twice before the same reset counts once.
    pub caller: u64,
    /// Who sent it, as attribution said.
    pub layer: Layer,
    pub vendor: Option<&'a str>,
    /// A browser page on the same site as the host made the request.
    pub same_site: bool,
}

/// Response times of answered, not rate-limited requests: the usable ones (finite, not
/// negative), every one up to [`Samples::CAP`] and an even sample past that, so memory stays
/// bounded on any input (exact, and summed in sorted order, while the count is at most the cap).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Durations {
    samples: Samples,
}

impl Durations {
    pub fn push(&mut self, ms: f64) {
        if ms.is_finite() && ms >= 0.0 {
            self.samples.push(ms);
        }
    }

    pub fn merge(&mut self, other: &Durations) {
        self.samples.merge(&other.samples);
    }

    /// The kept samples, sorted.
    pub fn sorted(&self) -> Vec<f64> {
        self.samples.sorted()
    }

    /// Usable durations seen (kept or not).
    pub fn count(&self) -> usize {
        self.samples.len()
    }

    /// Mean of every usable duration (`sorted` from [`Durations::sorted`]).
    pub fn mean(&self, sorted: &[f64]) -> f64 {
        self.samples.mean(sorted)
    }
}

/// Start times over the capture: how many, first and last.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Span {
    pub count: usize,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
}

impl Span {
    pub fn push(&mut self, t: DateTime<Utc>) {
        self.count += 1;
        self.first = Some(self.first.map_or(t, |f| f.min(t)));
        self.last = Some(self.last.map_or(t, |l| l.max(t)));
    }

    pub fn merge(&mut self, o: &Span) {
        self.count += o.count;
        self.first = match (self.first, o.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last = match (self.last, o.last) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// Per UTC minute: requests accepted (answered, not rate-limited) and whether any was limited.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Minutes {
    minutes: std::collections::BTreeMap<i64, (usize, bool)>,
}

impl Minutes {
    pub fn push(&mut self, t: DateTime<Utc>, accepted: bool, limited: bool) {
        let key = t.timestamp().div_euclid(60);
        // Fed in time order: nearly always the last minute, reached without a key search.
        let m = match self.minutes.last_entry().filter(|e| *e.key() == key) {
            Some(e) => e.into_mut(),
            None => self.minutes.entry(key).or_default(),
        };
        if limited {
            m.1 = true;
        } else if accepted {
            m.0 += 1;
        }
    }

    pub fn merge(&mut self, o: &Minutes) {
        for (k, (n, l)) in &o.minutes {
            let m = self.minutes.entry(*k).or_default();
            m.0 += n;
            m.1 |= l;
        }
    }

    /// Accepted counts of the minutes that also had a rate-limited response, sorted.
    pub fn saturated(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .minutes
            .values()
            .filter(|(_, limited)| *limited)
            .map(|(n, _)| *n)
            .collect();
        v.sort_unstable();
        v
    }
}

/// Everything the recommendation for one host reads (or for all traffic, when `host` is
/// `None`).
#[derive(Debug, Clone, Default)]
pub struct HostEvidence {
    /// The host (lower-cased, "" for URLs without one); `None` for all traffic together.
    pub host: Option<String>,
    /// Requests, with or without a time.
    pub requests: usize,
    /// Rate-limited responses.
    pub rate_limited: usize,
    /// Start times of every timed request.
    pub starts: Span,
    /// Requests accepted (answered, not rate-limited) before the first rate-limited one.
    pub before_first_limited: Before,
    /// Accepted and refused requests counted over each candidate window length.
    pub windows: Windows,
    pub minutes: Minutes,
    pub durations: Durations,
    /// The rate-limited responses, in time order.
    pub limited: LimitedEvidence,
}

impl HostEvidence {
    pub fn new(host: Option<String>) -> HostEvidence {
        HostEvidence {
            host,
            ..Default::default()
        }
    }

    /// One request of this host (any order; time order is what the analysis feeds).
    pub fn observe(&mut self, r: Seen) {
        let answered = r.status != 0;
        self.requests += 1;
        if r.limited {
            self.rate_limited += 1;
        }
        if answered && !r.limited {
            if let Some(d) = r.duration_ms {
                self.durations.push(d);
            }
        }
        let Some(t) = r.started else { return };
        self.starts.push(t);
        self.minutes.push(t, answered, r.limited);
        self.before_first_limited
            .observe(t, answered && !r.limited, r.limited);
        self.windows.observe(t, answered && !r.limited, r.limited);
    }

    pub fn merge(&mut self, o: &HostEvidence) {
        self.requests += o.requests;
        self.rate_limited += o.rate_limited;
        self.starts.merge(&o.starts);
        self.before_first_limited.merge(&o.before_first_limited);
        self.windows.merge(&o.windows);
        self.minutes.merge(&o.minutes);
        self.durations.merge(&o.durations);
        self.limited.merge(&o.limited);
    }
}

/// The requests accepted before the first rate-limited one (fed in time order): what the
/// server let through before it started refusing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Before {
    accepted: usize,
    earliest: Option<DateTime<Utc>>,
    /// Accepted requests at the latest start time seen (they are not *before* a rate-limited
    /// response at that same instant).
    at_latest: Option<(DateTime<Utc>, usize)>,
    /// Set at the first rate-limited response: (accepted strictly before it, earliest of them).
    frozen: Option<(usize, Option<DateTime<Utc>>)>,
}

impl Before {
    pub fn observe(&mut self, t: DateTime<Utc>, accepted: bool, limited: bool) {
        if self.frozen.is_some() {
            return;
        }
        if limited {
            let same = match self.at_latest {
                Some((at, n)) if at == t => n,
                _ => 0,
            };
            let n = self.accepted - same;
            self.frozen = Some((n, if n > 0 { self.earliest } else { None }));
            return;
        }
        if accepted {
            self.accepted += 1;
            self.earliest = Some(self.earliest.map_or(t, |e| e.min(t)));
            self.at_latest = match self.at_latest {
                Some((at, n)) if at == t => Some((at, n + 1)),
                _ => Some((t, 1)),
            };
        }
    }

    /// Requests accepted before the first rate-limited one: (count, earliest).
    pub fn get(&self) -> (usize, Option<DateTime<Utc>>) {
        self.frozen.unwrap_or((self.accepted, self.earliest))
    }

    /// Only meaningful for parts in time order: the earlier part's reading stands once it saw a
    /// rate-limited response.
    pub fn merge(&mut self, o: &Before) {
        if self.frozen.is_none() {
            let (n, e) = o.get();
            self.accepted += n;
            self.earliest = match (self.earliest, e) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            self.frozen = o.frozen.map(|_| (self.accepted, self.earliest));
        }
    }
}

/// Window lengths a limit stated by no header may be counted over, seconds: per second, per ten
/// seconds, per minute and per hour (the hour only counts when the server's waits are that long).
pub const CANDIDATE_WINDOWS_S: [i64; 4] = [1, 10, 60, 3600];

/// Buckets per window: a window's count is kept at 1/1000 of its length (1 ms for a second, 3.6 s
/// for an hour), so memory stays bounded on any traffic and a count is never more than the
/// requests that truly fell in one window.
const BUCKETS_PER_WINDOW: i64 = 1000;

/// What one candidate window length shows, fed in time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowCount {
    /// Accepted requests of the last window, per bucket (bucket index, count).
    recent: std::collections::VecDeque<(i64, u64)>,
    in_window: u64,
    /// The most accepted in any window of this length before the first rate-limited response.
    pub most_before_refusals: u64,
    /// The fewest accepted in the window ending at a rate-limited response (a limit of N per
    /// window refuses only once the window holds N).
    pub fewest_at_refusal: Option<u64>,
    /// The most accepted in one window aligned to the epoch (a fixed window's count), over the
    /// whole capture, refusals or not.
    pub most_aligned: u64,
    aligned: Option<(i64, u64)>,
}

impl WindowCount {
    /// One timed request, for a window of `WINDOW_MS` (a constant, so the divisions below
    /// compile to multiplications: this runs four times per request).
    #[inline(always)]
    fn observe<const WINDOW_MS: i64>(
        &mut self,
        t_ms: i64,
        accepted: bool,
        limited: bool,
        refused: bool,
    ) {
        let window_ms = WINDOW_MS;
        let res = (window_ms / BUCKETS_PER_WINDOW).max(1);
        let bucket = t_ms.div_euclid(res);
        // Keep the buckets wholly inside (t - window, t].
        let oldest = bucket - window_ms / res + 1;
        while let Some(&(b, n)) = self.recent.front() {
            if b >= oldest {
                break;
            }
            self.in_window -= n;
            self.recent.pop_front();
        }
        if limited {
            self.fewest_at_refusal = Some(
                self.fewest_at_refusal
                    .map_or(self.in_window, |f| f.min(self.in_window)),
            );
            return;
        }
        if !accepted {
            return;
        }
        match self.recent.back_mut() {
            Some((b, n)) if *b == bucket => *n += 1,
            _ => self.recent.push_back((bucket, 1)),
        }
        self.in_window += 1;
        if !refused {
            self.most_before_refusals = self.most_before_refusals.max(self.in_window);
        }
        let fixed = t_ms.div_euclid(window_ms);
        let n = match self.aligned {
            Some((w, n)) if w == fixed => n + 1,
            _ => 1,
        };
        self.aligned = Some((fixed, n));
        self.most_aligned = self.most_aligned.max(n);
    }

    /// Evidence of another host's traffic: its allowance is separate, so each keeps its own
    /// busiest windows (the counts are not added).
    fn merge(&mut self, o: &WindowCount) {
        self.most_before_refusals = self.most_before_refusals.max(o.most_before_refusals);
        self.fewest_at_refusal = match (self.fewest_at_refusal, o.fewest_at_refusal) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.most_aligned = self.most_aligned.max(o.most_aligned);
    }
}

/// Accepted requests counted over each of [`CANDIDATE_WINDOWS_S`], and at each refusal: what a
/// limit without headers is estimated from (`recommend::limit`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Windows {
    pub per_window: [WindowCount; 4],
    /// Rate-limited responses seen (timed).
    pub refusals: usize,
    /// Timed requests seen, and the first and last time (the capture's span).
    pub span: Span,
}

impl Windows {
    pub fn observe(&mut self, t: DateTime<Utc>, accepted: bool, limited: bool) {
        let t_ms = t.timestamp_millis();
        let refused = self.refusals > 0;
        let [w0, w1, w2, w3] = &mut self.per_window;
        w0.observe::<{ CANDIDATE_WINDOWS_S[0] * 1000 }>(t_ms, accepted, limited, refused);
        w1.observe::<{ CANDIDATE_WINDOWS_S[1] * 1000 }>(t_ms, accepted, limited, refused);
        w2.observe::<{ CANDIDATE_WINDOWS_S[2] * 1000 }>(t_ms, accepted, limited, refused);
        w3.observe::<{ CANDIDATE_WINDOWS_S[3] * 1000 }>(t_ms, accepted, limited, refused);
        self.refusals += usize::from(limited);
        self.span.push(t);
    }

    pub fn merge(&mut self, o: &Windows) {
        for (a, b) in self.per_window.iter_mut().zip(o.per_window.iter()) {
            a.merge(b);
        }
        self.refusals += o.refusals;
        self.span.merge(&o.span);
    }
}

/// What the host's rate-limited responses said, accumulated in time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LimitedEvidence {
    pub count: usize,
    /// Earliest time of a rate-limited response.
    pub first: Option<DateTime<Utc>>,
    /// The tightest request allowance the responses stated with a window (headers, body).
    pub tightest: Option<StatedSeen>,
    /// The smallest allowance stated without a window anywhere (a bare `X-RateLimit-Limit`).
    pub count_only: Option<StatedSeen>,
    pub tokens: bool,
    pub daily: bool,
    pub concurrency: bool,
    /// Retry-After waits in seconds (infinite: a delay too large to represent).
    pub waits: Vec<f64>,
    /// When the allowance is expected back: the latest response time + its reset (when that
    /// allowance is spent) or Retry-After.
    pub resume_at: Option<DateTime<Utc>>,
    /// The operations told to come back in each second (response time + its wait, as
    /// [`resume_time`]): those sharing a reset resume together unless spread.
    pub resume_seconds: SharedResets,
    /// Rate-limited responses by the layer and vendor that produced them.
    pub producers: std::collections::BTreeMap<(Layer, Option<String>), usize>,
    /// Of them, requests a browser page on the host's own site made.
    pub same_site_pages: usize,
}

/// An allowance the responses stated, and how many stated it.
#[derive(Debug, Clone, PartialEq)]
pub struct StatedSeen {
    pub count: f64,
    /// Seconds; 0 when stated without a window.
    pub window_s: f64,
    /// Which header or body phrase stated it (the first response's).
    pub by: String,
    pub responses: usize,
}

impl StatedSeen {
    /// Requests per second (per window; a count alone compares by its count).
    fn tightness(&self) -> f64 {
        if self.window_s > 0.0 {
            self.count / self.window_s
        } else {
            self.count
        }
    }

    /// Keep the tighter of `best` and `seen`; the same one adds its responses.
    fn keep(best: &mut Option<StatedSeen>, seen: StatedSeen) {
        match best {
            Some(b) if b.count == seen.count && b.window_s == seen.window_s => {
                b.responses += seen.responses
            }
            Some(b) if b.tightness() <= seen.tightness() => {}
            _ => *best = Some(seen),
        }
    }
}

/// Distinct operations per resume second. One entry per distinct (second, operation), like
/// `waits` one per response; at most [`SharedResets::CAP`] seconds are kept (then the second
/// with the fewest is dropped: it cannot be the largest share).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SharedResets {
    by_second: std::collections::BTreeMap<i64, std::collections::BTreeSet<u64>>,
}

impl SharedResets {
    const CAP: usize = 1 << 16;

    fn push(&mut self, second: i64, caller: u64) {
        self.by_second.entry(second).or_default().insert(caller);
        if self.by_second.len() > Self::CAP {
            if let Some(k) = self
                .by_second
                .iter()
                .min_by_key(|(k, v)| (v.len(), std::cmp::Reverse(**k)))
                .map(|(k, _)| *k)
            {
                self.by_second.remove(&k);
            }
        }
    }

    fn merge(&mut self, o: &SharedResets) {
        for (s, callers) in &o.by_second {
            for c in callers {
                self.push(*s, *c);
            }
        }
    }

    /// The most operations told to come back in one second.
    pub fn most(&self) -> usize {
        self.by_second.values().map(|v| v.len()).max().unwrap_or(0)
    }
}

impl LimitedEvidence {
    pub fn observe(&mut self, r: Limited) {
        self.count += 1;
        *self
            .producers
            .entry((r.layer, r.vendor.map(str::to_string)))
            .or_insert(0) += 1;
        self.same_site_pages += usize::from(r.same_site);
        if let Some(t) = r.time {
            self.first = Some(self.first.map_or(t, |f| f.min(t)));
        }
        match r.quota {
            Quota::Tokens => self.tokens = true,
            Quota::Daily => self.daily = true,
            Quota::Concurrency => self.concurrency = true,
            _ => {}
        }
        if r.quota != Quota::Tokens {
            if let Some(s) = r.stated {
                let seen = StatedSeen {
                    count: s.count,
                    window_s: s.window_s.unwrap_or(0.0),
                    by: s.by.clone(),
                    responses: 1,
                };
                match s.window_s {
                    Some(_) => StatedSeen::keep(&mut self.tightest, seen),
                    None => StatedSeen::keep(&mut self.count_only, seen),
                }
            }
        }
        let ra = r.retry_after;
        match (ra.seconds, &ra.raw, ra.kind) {
            (Some(s), _, _) => self.waits.push(s),
            (None, Some(_), retry_after::Kind::Delta) => self.waits.push(f64::INFINITY),
            _ => {}
        }
        if let Some(t) = resume_time(&r) {
            self.resume_at = Some(self.resume_at.map_or(t, |m| m.max(t)));
            self.resume_seconds.push(t.timestamp(), r.caller);
        }
    }

    /// Evidence of two parts of the traffic, the earlier part in `self`.
    pub fn merge(&mut self, o: &LimitedEvidence) {
        self.count += o.count;
        self.first = match (self.first, o.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(s) = &o.tightest {
            StatedSeen::keep(&mut self.tightest, s.clone());
        }
        if let Some(s) = &o.count_only {
            StatedSeen::keep(&mut self.count_only, s.clone());
        }
        self.tokens |= o.tokens;
        self.daily |= o.daily;
        self.concurrency |= o.concurrency;
        self.waits.extend_from_slice(&o.waits);
        self.resume_at = match (self.resume_at, o.resume_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.resume_seconds.merge(&o.resume_seconds);
        for (k, n) in &o.producers {
            *self.producers.entry(k.clone()).or_insert(0) += n;
        }
        self.same_site_pages += o.same_site_pages;
    }
}

/// When this response's allowance is expected back.
fn resume_time(r: &Limited) -> Option<DateTime<Utc>> {
    let t = r.time?;
    // A reset matters only for a spent allowance: with `remaining` above zero the 429 came from
    // another limit (e.g. a secondary burst limit), and its Retry-After says when to come back,
    // not the unspent allowance's reset an hour away.
    let reset = r
        .limits
        .filter(|l| l.remaining.is_none_or(|n| n <= 0.0))
        .and_then(|l| l.reset_seconds);
    let ra = r.retry_after.seconds;
    let s = match (reset, ra) {
        (Some(a), Some(b)) => a.max(b),
        (a, b) => a.or(b)?,
    };
    if !s.is_finite() || !(0.0..=retry_after::MAX_REPRESENTABLE_S).contains(&s) {
        return None;
    }
    t.checked_add_signed(chrono::Duration::milliseconds((s * 1000.0) as i64))
}

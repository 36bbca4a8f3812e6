//! What the rolling view says beyond counts, from the records as they come in:
//! - who sent each 429: the attribution engine reads the response against a few of its host's
//!   successes (its layer and vendor, as the report's verdict does);
//! - the findings active now, windowed: a burst in progress, a retry storm building, a
//!   credential shared right now ([`Findings`]);
//! - the plan for the worst host: the recommendation engine over that host's evidence of the
//!   last 10 minutes, kept per minute and merged ([`HostEvidence`] merges).
//!
//! Memory, bounded: [`SAMPLES`] successes for at most [`SAMPLED_HOSTS`] hosts; at most
//! [`PRODUCERS`] distinct (layer, vendor) pairs; operations refused in the last
//! [`RETRY_WINDOW_S`] seconds, at most [`OPS`]; credentials seen in the last minute, at most
//! [`CREDS`], each with at most [`CRED_CLIENTS`] clients; evidence of at most [`PLAN_HOSTS`]
//! hosts per minute for 10 minutes, each with at most [`DURATIONS`] response times.

use super::{Counts, SHORT_SECS, SPAN_SECS};
use crate::analyze::event::Mapped;
use crate::attribute::engine::{attribute_one, Baseline};
use crate::attribute::Attribution;
use crate::model::{Layer, Request};
use crate::recommend::evidence::{self, HostEvidence};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// Successes kept per host for its attribution baseline.
pub const SAMPLES: usize = 16;
/// Hosts with a baseline; the 429s of further hosts are read without one.
pub const SAMPLED_HOSTS: usize = 256;
/// Distinct (layer, vendor) pairs named; further ones count as unknown.
pub const PRODUCERS: usize = 64;
/// 429s attributed per second; past this a host's 429s count under its latest verdict.
pub const ATTRIBUTED_PER_SECOND: u32 = 200;
/// A request of an operation refused less than this long ago is its retry, seconds.
pub const RETRY_WINDOW_S: i64 = 120;
/// Operations refused in the last [`RETRY_WINDOW_S`] kept.
pub const OPS: usize = 1 << 16;
/// Credentials followed at once, and clients kept per credential.
pub const CREDS: usize = 4096;
pub const CRED_CLIENTS: usize = 16;
/// Hosts whose plan evidence is kept per minute, and response times per host and minute.
pub const PLAN_HOSTS: usize = 64;
pub const DURATIONS: usize = 256;

/// A burst: the last [`BURST_SECS`] seconds had at least [`BURST_MIN`] requests to a host and
/// [`BURST_FACTOR`] times its average rate over the 10 minutes, with 429s among them.
pub const BURST_SECS: i64 = 10;
pub const BURST_MIN: u64 = 30;
pub const BURST_FACTOR: f64 = 3.0;
/// A retry storm: at least [`STORM_MIN`] retries of refused operations to a host in the last
/// minute, more than in the average minute of the nine before.
pub const STORM_MIN: u64 = 20;

/// The interned (layer, vendor) of a 429; slot 0 is unknown.
pub type Producer = u16;

/// A host's baseline: its first successes, and the verdict built from them.
#[derive(Default)]
struct HostBase {
    samples: Vec<Request>,
    built: Option<(usize, Baseline)>,
    /// The latest verdict (for 429s past the attribution budget).
    last: Producer,
}

/// A credential's recent use.
#[derive(Debug, Default)]
struct CredNow {
    name: Option<String>,
    /// Client hash → the last second it used the credential.
    clients: Vec<(u64, i64)>,
    last_seen: i64,
    /// The last second a 429 answered it, and 429s since the minute began.
    limited: VecDeque<i64>,
}

/// One minute of plan evidence, by host slot.
#[derive(Default)]
struct Minute {
    minute: i64,
    hosts: HashMap<u32, (HostEvidence, usize)>,
}

/// The state behind attribution, findings and plan of the view (see the module doc).
#[derive(Default)]
pub struct Now {
    bases: HashMap<u32, HostBase>,
    producers: Vec<(Layer, Option<String>)>,
    budget: (i64, u32),
    /// Operation → the second it was last refused.
    refused: HashMap<u64, i64>,
    creds: HashMap<u64, CredNow>,
    minutes: VecDeque<Minute>,
    /// When the refused operations and the credentials were last swept of what is too old.
    swept: i64,
}

/// What [`Now::observe`] found of one record, counted in its second's bucket.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen {
    /// Who sent it, when it was rate-limited.
    pub producer: Option<Producer>,
    /// A request of an operation refused in the last [`RETRY_WINDOW_S`].
    pub retry: bool,
}

impl Now {
    /// One record of host `host` (named `name`), placed at `second`.
    pub fn observe(&mut self, m: &Mapped, host: u32, name: &str, second: i64) -> Seen {
        let limited = super::is_limited(&m.ev);
        if second - self.swept >= SHORT_SECS {
            self.sweep(second);
        }
        let mut seen = Seen::default();
        let mut verdict = None;
        if limited {
            let (p, a) = self.attribute(host, name, m.kept.as_deref(), second);
            seen.producer = Some(p);
            verdict = a;
        } else if let Some(r) = m.kept.as_deref().filter(|r| (200..400).contains(&r.status)) {
            self.sample(host, r);
        }
        seen.retry = self.retry(m.ev.op, second, limited);
        if m.keys.cred != 0 {
            let name = m.names.as_ref().and_then(|n| n.cred.as_deref());
            self.cred(m.keys.cred, name, m.keys.client, second, limited);
        }
        self.evidence(m, host, name, second, limited.then_some(verdict));
        seen
    }

    /// Forget the operations refused too long ago to be retried now, and the credentials
    /// not used in the last minute.
    fn sweep(&mut self, second: i64) {
        self.swept = second;
        self.refused.retain(|_, at| second - *at < RETRY_WINDOW_S);
        self.creds.retain(|_, c| second - c.last_seen < SHORT_SECS);
    }

    fn sample(&mut self, host: u32, r: &Request) {
        if self.bases.len() >= SAMPLED_HOSTS && !self.bases.contains_key(&host) {
            return;
        }
        let b = self.bases.entry(host).or_default();
        if b.samples.len() < SAMPLES {
            b.samples.push(r.clone());
        }
    }

    /// The (layer, vendor) of one 429, read against its host's baseline, and the verdict when
    /// one was made (within the budget).
    fn attribute(
        &mut self,
        host: u32,
        name: &str,
        r: Option<&Request>,
        second: i64,
    ) -> (Producer, Option<Attribution>) {
        if self.budget.0 != second {
            self.budget = (second, 0);
        }
        let (Some(r), true) = (r, self.budget.1 < ATTRIBUTED_PER_SECOND) else {
            return (self.bases.get(&host).map_or(0, |b| b.last), None);
        };
        self.budget.1 += 1;
        let sampled = self.bases.len() < SAMPLED_HOSTS || self.bases.contains_key(&host);
        let mut empty = HostBase::default();
        let b = match sampled {
            true => self.bases.entry(host).or_default(),
            false => &mut empty,
        };
        if b.built.as_ref().is_none_or(|(n, _)| *n != b.samples.len()) {
            let refs: Vec<&Request> = b.samples.iter().collect();
            b.built = Some((b.samples.len(), Baseline::build(name, &refs)));
        }
        let Some((_, base)) = &b.built else {
            return (0, None);
        };
        let a = attribute_one(r, base);
        let key = (a.layer, a.vendor.clone());
        let slot = match self.producers.iter().position(|p| *p == key) {
            Some(i) => i + 1,
            None if self.producers.len() < PRODUCERS => {
                self.producers.push(key);
                self.producers.len()
            }
            None => 0,
        } as Producer;
        b.last = slot;
        (slot, Some(a))
    }

    /// The layer and vendor of a producer slot.
    pub fn producer(&self, p: Producer) -> (Layer, Option<&str>) {
        match p
            .checked_sub(1)
            .and_then(|i| self.producers.get(i as usize))
        {
            Some((l, v)) => (*l, v.as_deref()),
            None => (Layer::Unknown, None),
        }
    }

    /// Whether this request retries an operation refused in the last [`RETRY_WINDOW_S`]
    /// (and, when it is refused too, it is remembered).
    fn retry(&mut self, op: u64, second: i64, limited: bool) -> bool {
        let retry = self
            .refused
            .get(&op)
            .is_some_and(|&at| second - at < RETRY_WINDOW_S && second >= at);
        if limited {
            if self.refused.len() >= OPS && !self.refused.contains_key(&op) {
                self.refused.retain(|_, at| second - *at < RETRY_WINDOW_S);
                if self.refused.len() >= OPS {
                    return retry; // all recent: this one is not followed
                }
            }
            self.refused.insert(op, second);
        }
        retry
    }

    fn cred(&mut self, cred: u64, name: Option<&str>, client: u64, second: i64, limited: bool) {
        if self.creds.len() >= CREDS && !self.creds.contains_key(&cred) {
            self.creds.retain(|_, c| second - c.last_seen < SHORT_SECS);
            if self.creds.len() >= CREDS {
                return;
            }
        }
        let c = self.creds.entry(cred).or_default();
        if c.name.is_none() {
            c.name = name.map(str::to_string);
        }
        c.last_seen = c.last_seen.max(second);
        if let Some(k) = c.clients.iter_mut().find(|(k, _)| *k == client) {
            k.1 = k.1.max(second);
        } else if c.clients.len() < CRED_CLIENTS {
            c.clients.push((client, second));
        } else if let Some(k) = c.clients.iter_mut().min_by_key(|(_, s)| *s) {
            // Replace the client seen longest ago.
            *k = (client, second);
        }
        if limited {
            c.limited.push_back(second);
        }
        while c.limited.front().is_some_and(|s| second - s >= SHORT_SECS) {
            c.limited.pop_front();
        }
    }

    /// Plan evidence: the record into its minute's evidence of its host.
    /// `verdict`: `Some` for a rate-limited record (its verdict, when one was made).
    fn evidence(
        &mut self,
        m: &Mapped,
        host: u32,
        name: &str,
        second: i64,
        verdict: Option<Option<Attribution>>,
    ) {
        let limited = verdict.is_some();
        let minute = second.div_euclid(60);
        let newest = self.minutes.back().map_or(i64::MIN, |m| m.minute);
        if minute > newest {
            self.minutes.push_back(Minute {
                minute,
                hosts: HashMap::new(),
            });
        }
        while self
            .minutes
            .front()
            .is_some_and(|m| m.minute <= newest.max(minute) - SPAN_SECS / 60)
        {
            self.minutes.pop_front();
        }
        let Some(slot) = self.minutes.iter_mut().rev().find(|m| m.minute == minute) else {
            return; // older than the minutes kept
        };
        if slot.hosts.len() >= PLAN_HOSTS && !slot.hosts.contains_key(&host) {
            return;
        }
        let (ev, durations) = slot
            .hosts
            .entry(host)
            .or_insert_with(|| (HostEvidence::new(Some(name.to_ascii_lowercase())), 0));
        let duration_ms = m.ev.duration_ms().filter(|_| *durations < DURATIONS);
        *durations += usize::from(duration_ms.is_some());
        let started = crate::model::event::started_at(m.ev.t_us, m.ev.t_ns);
        ev.observe(evidence::Seen {
            started,
            status: m.ev.status,
            duration_ms,
            limited,
        });
        let (Some(verdict), Some(r)) = (verdict, m.kept.as_deref()) else {
            return;
        };
        let unknown = Attribution::unknown();
        let a = verdict.as_ref().unwrap_or(&unknown);
        let ra = crate::http::retry_after::from_headers(&r.response_headers, r.started);
        let stated = crate::http::ratelimit::stated(
            &r.response_headers,
            r.body_excerpt.as_deref(),
            r.started,
        );
        ev.limited.observe(evidence::Limited {
            time: started,
            quota: a.quota,
            limits: a.limits.as_ref(),
            stated: stated.as_ref(),
            retry_after: &ra,
            caller: m.ev.op,
            layer: a.layer,
            vendor: a.vendor.as_deref(),
            same_site: false,
        });
    }
}

/// A finding active now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Active {
    /// `burst`, `retry_storm` or `shared_credential`.
    pub kind: &'static str,
    /// The host (burst, retry storm) or the credential's fingerprint.
    pub subject: String,
    /// What is going on, with its numbers.
    pub says: String,
}

/// The plan for the worst host, from its evidence of the last 10 minutes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LivePlan {
    pub host: String,
    /// `slow_down`, `stop_or_reschedule` or `fix_client`.
    pub action: &'static str,
    /// Target request starts (`null` when no limit is known yet).
    pub rate_per_second: Option<f64>,
    pub rate_per_minute: Option<f64>,
    pub concurrency: Option<u32>,
    /// Where the limit comes from, in a sentence.
    pub limit: Option<String>,
    /// When the allowance is expected back (to stop until then), UTC.
    pub resume_at: Option<String>,
}

/// Each host's records over the spans the rules read.
pub(super) struct Spans<'a> {
    pub burst: &'a HashMap<u32, super::HostSecond>,
    pub short: &'a HashMap<u32, super::HostSecond>,
    pub long: &'a HashMap<u32, super::HostSecond>,
    /// Seconds of the long span that have been followed (at most 600).
    pub filled: i64,
}

/// Hosts in a burst: the last [`BURST_SECS`] seconds at [`BURST_FACTOR`] times their
/// average rate over the span, at least [`BURST_MIN`] requests, with 429s.
pub(super) fn bursts<'n>(s: &Spans, name: impl Fn(u32) -> &'n str) -> Vec<Active> {
    let mut out: Vec<(u64, Active)> = Vec::new();
    for (&h, now) in s.burst {
        let Counts {
            requests,
            rate_limited,
        } = now.c;
        let long = s.long.get(&h).map_or(requests, |a| a.c.requests);
        let rate_now = requests as f64 / BURST_SECS as f64;
        let rate_usual = long as f64 / s.filled.max(BURST_SECS) as f64;
        if requests >= BURST_MIN && rate_limited > 0 && rate_now >= BURST_FACTOR * rate_usual {
            out.push((
                requests,
                Active {
                    kind: "burst",
                    subject: name(h).to_string(),
                    says: format!(
                        "{requests} requests in the last {BURST_SECS} s ({} a second, {:.0}x the usual {}), {rate_limited} rate-limited",
                        fmt(rate_now),
                        rate_now / rate_usual.max(f64::MIN_POSITIVE),
                        fmt(rate_usual)
                    ),
                },
            ));
        }
    }
    sorted(out)
}

/// Hosts whose refused operations are retried more and more: at least [`STORM_MIN`] retries
/// in the last minute, more than in the average minute before.
pub(super) fn storms<'n>(s: &Spans, name: impl Fn(u32) -> &'n str) -> Vec<Active> {
    let mut out: Vec<(u64, Active)> = Vec::new();
    for (&h, now) in s.short {
        let before = s.long.get(&h).map_or(0, |a| a.retries) - now.retries;
        let minutes_before = ((s.filled - SHORT_SECS).max(0) as f64 / 60.0).max(1.0);
        let usual = before as f64 / minutes_before;
        if now.retries >= STORM_MIN && now.retries as f64 > usual {
            out.push((
                now.retries,
                Active {
                    kind: "retry_storm",
                    subject: name(h).to_string(),
                    says: format!(
                        "{} retries of refused requests in the last minute (usual {} a minute), {} rate-limited",
                        now.retries,
                        fmt(usual),
                        now.c.rate_limited
                    ),
                },
            ));
        }
    }
    sorted(out)
}

/// Largest first, then by subject; at most [`ACTIVE_SHOWN`] of a kind.
fn sorted(mut v: Vec<(u64, Active)>) -> Vec<Active> {
    v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.subject.cmp(&b.1.subject)));
    v.into_iter().take(ACTIVE_SHOWN).map(|(_, a)| a).collect()
}

/// Findings listed per kind.
pub const ACTIVE_SHOWN: usize = 5;

fn fmt(x: f64) -> String {
    crate::units::fmt_num((x * 10.0).round() / 10.0)
}

impl Now {
    /// Credentials several clients used in the last minute, with 429s.
    pub fn shared_credentials(&self, now: i64) -> Vec<Active> {
        let mut out: Vec<(u64, Active)> = Vec::new();
        for c in self.creds.values() {
            let clients = c
                .clients
                .iter()
                .filter(|(_, s)| now - s < SHORT_SECS)
                .count();
            let limited = c.limited.iter().filter(|s| now - **s < SHORT_SECS).count();
            if clients < 2 || limited == 0 {
                continue;
            }
            let more = if clients >= CRED_CLIENTS { "+" } else { "" };
            out.push((
                limited as u64,
                Active {
                    kind: "shared_credential",
                    subject: c.name.clone().unwrap_or_else(|| "(a credential)".into()),
                    says: format!(
                        "{clients}{more} clients used it in the last minute, {limited} rate-limited"
                    ),
                },
            ));
        }
        sorted(out)
    }

    /// The plan for host `host` from its evidence of the minutes kept.
    pub fn plan(&self, host: u32, now: i64, rec: &crate::recommend::Options) -> Option<LivePlan> {
        let from = now.div_euclid(60) - SPAN_SECS / 60;
        let mut merged: Option<HostEvidence> = None;
        for m in self.minutes.iter().filter(|m| m.minute > from) {
            if let Some((ev, _)) = m.hosts.get(&host) {
                match &mut merged {
                    Some(x) => x.merge(ev),
                    None => merged = Some(ev.clone()),
                }
            }
        }
        let ev = merged?;
        let r = crate::recommend::for_host(&ev, &[], rec, true);
        Some(LivePlan {
            host: ev.host.clone().unwrap_or_default(),
            action: r.action.as_str(),
            rate_per_second: r.rate_per_second,
            rate_per_minute: r.rate_per_minute,
            concurrency: r.concurrency,
            limit: r.limit.map(|l| l.detail),
            resume_at: r
                .resume_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        })
    }
}

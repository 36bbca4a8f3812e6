//! `synchronized_retries`: many logical requests retrying at the same instant (a thundering
//! herd), typically because they were limited together and wait identical delays (no jitter,
//! or a shared Retry-After with no spread on top).
//!
//! A *wave* is ≥ 5 distinct logical requests retrying within 100 ms, and ≥ 4× what retries
//! spread evenly over the same period would put in 100 ms. Reported per host when there are
//! ≥ 2 waves (or one of ≥ 10) holding ≥ 30 % of the host's retries. The delays of the retries in
//! waves are summarized to show whether they were identical.
//!
//! Without waves, identical delays alone are reported when ≥ 8 logical requests from ≥ 2
//! clients waited the same delay (≥ 200 ms, within 2 % or 20 ms) before the same retry: no
//! jitter, which synchronizes callers as soon as they are limited together.
//!
//! Inputs whose timestamps carry whole seconds only are not judged (truncation alone would
//! make retries look simultaneous).
//!
//! The wave scan needs the host's retry rate over the whole capture, so it runs after the
//! replay, over the retries `step` kept in a log ([`RetryCodec`]: packed, continued in a
//! temporary file past its memory budget) instead of a second replay that would link every
//! request again.

use super::{median, percentile, r3, seconds_text, Cx, Detector, Finding, Placed, Severity, Step};
use crate::model::event::log::{Codec, Log};
use crate::model::event::pack::{Packing, MAX_PACKED};
use crate::model::event::Event;
use crate::stats::Samples;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

const WAVE_S: f64 = 0.1;
const MIN_WAVE: usize = 5;

#[derive(Debug, Clone, Copy)]
pub struct Retry {
    ev: Event,
    t: f64,
    logical: u64,
    delay: f64,
}

/// The retries with one attempt number (delays ≥ 200 ms): their delays and clients.
#[derive(Default)]
struct SameAttempt {
    /// Each is a distinct logical request (one retry per attempt number each).
    logical: usize,
    clients: BTreeSet<u32>,
    delays: Samples,
}

/// A wave of retries: (first, last, retries, distinct logical requests).
#[derive(Debug, Clone, Copy)]
struct Wave {
    first: Event,
    last: Event,
    first_at: u64,
    retries: usize,
    logical: usize,
}

#[derive(Default)]
struct Host {
    retries: usize,
    first_t: f64,
    last_t: f64,
    by_attempt: BTreeMap<u32, SameAttempt>,
    // The second look: the wave scan over the retries in time order.
    need: usize,
    buf: VecDeque<Retry>,
    /// Position in `buf` of the scan's far end, when a window is open.
    j: Option<usize>,
    seen: HashMap<u64, usize, foldhash::fast::FixedState>,
    consumed: u64,
    waves: usize,
    in_waves: usize,
    biggest: usize,
    wave_delays: Samples,
    largest: Vec<Wave>,
}

impl Host {
    /// Back to before the wave scan.
    fn reset_scan(&mut self) {
        self.buf.clear();
        self.j = None;
        self.seen.clear();
        self.consumed = 0;
        self.waves = 0;
        self.in_waves = 0;
        self.biggest = 0;
        self.wave_delays = Samples::default();
        self.largest.clear();
    }

    /// One step of the two-pointer wave scan from the first buffered retry, once the retries
    /// within [`WAVE_S`] of it are all known (`complete`), or at the end.
    fn scan(&mut self, complete: bool) {
        while let Some(front) = self.buf.front().copied() {
            let last_t = self.buf.back().map(|r| r.t).unwrap_or(front.t);
            if !complete && last_t <= front.t + WAVE_S {
                return;
            }
            let mut j = match self.j {
                Some(j) => j,
                None => {
                    self.seen.clear();
                    0
                }
            };
            if self.seen.is_empty() {
                *self.seen.entry(front.logical).or_insert(0) += 1;
            }
            while j + 1 < self.buf.len() && self.buf[j + 1].t <= front.t + WAVE_S {
                j += 1;
                *self.seen.entry(self.buf[j].logical).or_insert(0) += 1;
            }
            if self.seen.len() >= self.need {
                let wave: Vec<Retry> = self.buf.drain(..=j).collect();
                self.wave(&wave);
                self.consumed += wave.len() as u64;
                self.j = None;
                self.seen.clear();
            } else {
                if let Some(c) = self.seen.get_mut(&front.logical) {
                    *c -= 1;
                    if *c == 0 {
                        self.seen.remove(&front.logical);
                    }
                }
                self.buf.pop_front();
                self.consumed += 1;
                self.j = j.checked_sub(1);
            }
        }
    }

    fn wave(&mut self, w: &[Retry]) {
        let logical = self.seen.len();
        self.waves += 1;
        self.in_waves += w.len();
        self.biggest = self.biggest.max(logical);
        for r in w {
            self.wave_delays.push(r.delay);
        }
        let (Some(first), Some(last)) = (w.first(), w.last()) else {
            return;
        };
        self.largest.push(Wave {
            first: first.ev,
            last: last.ev,
            first_at: self.consumed,
            retries: w.len(),
            logical,
        });
        self.largest
            .sort_by(|a, b| b.logical.cmp(&a.logical).then(a.first_at.cmp(&b.first_at)));
        self.largest.truncate(5);
    }
}

/// A kept retry: its event packed, then its logical request and delay (the time is the
/// event's).
pub struct RetryCodec;

impl Codec for RetryCodec {
    type Item = Retry;
    type State = Packing;
    const MAX: usize = MAX_PACKED + 16;
    fn put(r: &Retry, prev: &mut Packing, out: &mut Vec<u8>) {
        r.ev.pack(prev, out);
        out.extend_from_slice(&r.logical.to_le_bytes());
        out.extend_from_slice(&r.delay.to_bits().to_le_bytes());
    }
    fn get(b: &[u8], prev: &mut Packing) -> Option<(Retry, usize)> {
        let (ev, n) = Event::unpack(b, prev)?;
        let logical = u64::from_le_bytes(b.get(n..n + 8)?.try_into().ok()?);
        let delay = f64::from_bits(u64::from_le_bytes(b.get(n + 8..n + 16)?.try_into().ok()?));
        let t = ev.start_s()?;
        Some((
            Retry {
                ev,
                t,
                logical,
                delay,
            },
            n + 16,
        ))
    }
}

/// `synchronized_retries` (see the module doc).
pub struct Synchronized {
    hosts: BTreeMap<u32, Host>,
    /// Every retry `step` counted, in time order: what the wave scan reads. `None` when the
    /// scan reads a second replay instead ([`Synchronized::relinking`]; also the way out when
    /// the log cannot be read back).
    kept: Option<Log<RetryCodec>>,
}

/// Bytes of kept retries held in memory before the rest goes to a temporary file: a retry storm
/// keeps ~40 bytes a retry, and the log grows while the replays hold their own peak (with the
/// event logs' 4 MiB, log-800's peak RSS grew 2 MB).
const KEPT_MEMORY: usize = 256 << 10;

impl Default for Synchronized {
    fn default() -> Synchronized {
        Synchronized::keeping(KEPT_MEMORY)
    }
}

impl Synchronized {
    /// Keeps its retries in a log holding `memory` bytes before it continues on disk.
    pub fn keeping(memory: usize) -> Synchronized {
        Synchronized {
            hosts: BTreeMap::new(),
            kept: Some(Log::with_memory(memory)),
        }
    }

    /// Keeps no retries: the wave scan asks for a second replay ([`Detector::step_again`]).
    pub fn relinking() -> Synchronized {
        Synchronized {
            hosts: BTreeMap::new(),
            kept: None,
        }
    }

    /// The wave scan over the kept retries; `false` (the scans reset) when the log cannot be
    /// read back whole.
    fn scan_kept(&mut self) -> bool {
        let Some(log) = &mut self.kept else {
            return false;
        };
        let mut read = || -> std::io::Result<()> {
            log.finish()?;
            let mut r = log.reader()?;
            while let Some(x) = r.next_item()? {
                if let Some(h) = self.hosts.get_mut(&x.ev.host) {
                    h.buf.push_back(x);
                    h.scan(false);
                }
            }
            Ok(())
        };
        let whole = read().is_ok();
        self.kept = None;
        if !whole {
            for h in self.hosts.values_mut() {
                h.reset_scan();
            }
        }
        whole
    }
}

fn retry_of(s: &Step) -> Option<Retry> {
    let prev = s.link.prev.as_ref()?;
    let t = s.ev.start_s()?;
    let e = prev.ev.end_s()?;
    Some(Retry {
        ev: *s.ev,
        t,
        logical: s.link.logical,
        delay: (t - e).max(0.0),
    })
}

impl Detector for Synchronized {
    fn step(&mut self, s: &Step, cx: &Cx) {
        if cx.coarse_time {
            // Whole-second timestamps put unrelated retries "at the same instant".
            return;
        }
        let Some(r) = retry_of(s) else { return };
        let h = self.hosts.entry(s.ev.host).or_default();
        if h.retries == 0 {
            h.first_t = r.t;
        }
        h.retries += 1;
        h.last_t = r.t;
        if let Some(log) = &mut self.kept {
            log.push(&r);
        }
        if r.delay >= 0.2 {
            let g = h.by_attempt.entry(s.link.attempt).or_default();
            g.logical += 1;
            g.clients.insert(s.ev.client);
            g.delays.push(r.delay);
        }
    }

    fn second_look(&mut self, _cx: &Cx) -> bool {
        self.hosts.retain(|_, h| h.retries >= MIN_WAVE * 2);
        for h in self.hosts.values_mut() {
            let span = (h.last_t - h.first_t).max(WAVE_S);
            let expected = h.retries as f64 * WAVE_S / span;
            h.need = MIN_WAVE.max((4.0 * expected).ceil() as usize);
        }
        if self.hosts.is_empty() {
            self.kept = None;
            return false;
        }
        // A second replay only without the kept retries.
        !self.scan_kept()
    }

    fn step_again(&mut self, s: &Step, _cx: &Cx) {
        let Some(h) = self.hosts.get_mut(&s.ev.host) else {
            return;
        };
        let Some(r) = retry_of(s) else { return };
        h.buf.push_back(r);
        h.scan(false);
    }

    fn finish(&mut self, cx: &Cx, _earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&id, h) in self.hosts.iter_mut() {
            h.scan(true);
            let host = cx.host(id);
            if let Some(f) = finding(cx, host, h) {
                out.push(((host.to_string(), 0), f));
            }
        }
        out
    }
}

/// Retries of ≥ 8 logical requests from ≥ 2 clients, same attempt number, whose delays (≥ 200 ms)
/// agree within 2 % (or 20 ms): (attempt, logical requests, clients, median delay, spread).
fn identical_delays(h: &Host) -> Option<(u32, usize, usize, f64, f64)> {
    let mut best: Option<(u32, usize, usize, f64, f64)> = None;
    for (&attempt, g) in &h.by_attempt {
        if g.logical < 8 || g.clients.len() < 2 {
            continue;
        }
        let d = g.delays.sorted();
        let (md, spread) = (median(&d), percentile(&d, 0.9) - percentile(&d, 0.1));
        if spread <= (0.02 * md).max(0.02) && best.map(|b| g.logical > b.1).unwrap_or(true) {
            best = Some((attempt, g.logical, g.clients.len(), md, spread));
        }
    }
    best
}

fn finding(cx: &Cx, host: &str, h: &Host) -> Option<Finding> {
    let herd = (h.waves >= 2 || h.biggest >= 10) && h.in_waves as f64 >= 0.3 * h.retries as f64;
    if !herd {
        let (attempt, logical, clients, md, spread) = identical_delays(h)?;
        return Some(Finding::new(
            super::Kind::SynchronizedRetries,
            Severity::Warning,
            format!(
                "Retries to {host} from {clients} clients waited identical delays ({} ± {} ms before retry {attempt}, {logical} logical requests): no jitter, so callers limited together come back together.",
                seconds_text(md),
                (spread * 500.0).round()
            ),
            json!({
                "host": host,
                "retries": h.retries,
                "waves": h.waves,
                "identical_delays": true,
                "attempt": attempt,
                "logical_requests": logical,
                "clients": clients,
                "median_delay_s": r3(md),
                "delay_spread_p10_p90_s": r3(spread),
            }),
        ));
    }
    let delays = h.wave_delays.sorted();
    let md = median(&delays);
    let spread = percentile(&delays, 0.9) - percentile(&delays, 0.1);
    let identical = spread <= (0.03 * md).max(0.05);
    let delay_text = if identical {
        format!(
            "; their delays were identical ({} ± {} ms): no jitter",
            seconds_text(md),
            (spread * 500.0).round()
        )
    } else {
        format!(
            "; their delays ranged {}–{}, so they were limited together and came back together",
            seconds_text(percentile(&delays, 0.1)),
            seconds_text(percentile(&delays, 0.9))
        )
    };
    let summary = format!(
        "Retries to {host} came in {} waves of up to {} logical requests within 100 ms ({} of {} retries){delay_text}.",
        h.waves, h.biggest, h.in_waves, h.retries
    );
    let examples: Vec<Value> = h
        .largest
        .iter()
        .map(|w| {
            json!({
                "logical_requests": w.logical,
                "retries": w.retries,
                "first": cx.at(&w.first),
                "last": cx.at(&w.last),
            })
        })
        .collect();
    Some(Finding::new(
        super::Kind::SynchronizedRetries,
        Severity::Warning,
        summary,
        json!({
            "host": host,
            "retries": h.retries,
            "waves": h.waves,
            "retries_in_waves": h.in_waves,
            "largest_wave": h.biggest,
            "wave_window_ms": WAVE_S * 1000.0,
            "median_delay_s": r3(md),
            "delay_spread_p10_p90_s": r3(spread),
            "identical_delays": identical,
            "largest_waves": examples,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn herd(jitter: f64) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 10,
            window_s: 20.0,
        });
        sim.retry_after = Some(5.0);
        for k in 0..25 {
            let mut w = Worker::new(
                &format!("pod-{k}"),
                "https://api.example.com/v1/sync/{j}",
                6,
            );
            w.start_s = k as f64 * 0.004;
            w.latency_ms = 30.0;
            w.spacing_s = 0.2;
            w.max_attempts = 4;
            w.backoff = Backoff::Fixed(1.0);
            w.jitter = jitter;
            w.ra = RaUse::Honor;
            sim.workers.push(w);
        }
        sim.horizon_s = 400.0;
        sim.run()
    }

    #[test]
    fn workers_without_jitter_come_back_together() {
        let reqs = herd(0.0);
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "synchronized_retries")
            .expect("herd");
        assert_eq!(f.evidence["identical_delays"], true, "{}", f.summary);
    }

    #[test]
    fn identical_fixed_backoff_across_clients() {
        // Clients limited at different moments, all waiting exactly 2 s: no waves, no jitter.
        let mut s = Scenario::new();
        for k in 0..10 {
            let t = k as f64 * 3.7;
            let c = format!("svc-{}", k % 3);
            let url = format!("https://api.example.com/v1/a/{k}");
            s.at(t).client(&c).dur(20.0).get(&url, 429);
            s.at(t + 0.02 + 2.0).client(&c).dur(20.0).get(&url, 200);
        }
        let reqs = s.build();
        let d = crate::detect::testkit::run(&reqs, &unknown_attributions(&reqs), None);
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "synchronized_retries")
            .expect("no jitter");
        assert!(f.summary.contains("identical delays (2 s"), "{}", f.summary);
        // The same with ±30 % jitter is fine.
        let mut s = Scenario::new();
        let mut rng = Rng::new(3);
        for k in 0..10 {
            let t = k as f64 * 3.7;
            let c = format!("svc-{}", k % 3);
            let url = format!("https://api.example.com/v1/a/{k}");
            s.at(t).client(&c).dur(20.0).get(&url, 429);
            s.at(t + 0.02 + 2.0 * (0.7 + 0.6 * rng.next()))
                .client(&c)
                .dur(20.0)
                .get(&url, 200);
        }
        assert!(kinds(&s.build(), None).is_empty());
    }

    #[test]
    fn whole_second_timestamps_are_not_judged() {
        // Jittered retries, but logged with whole seconds: they would look simultaneous.
        let mut reqs = herd(1.0);
        for r in &mut reqs {
            if let Some(t) = r.started {
                r.started = chrono::DateTime::from_timestamp(t.timestamp(), 0);
            }
        }
        reqs.sort_by_key(|r| r.started);
        assert!(!kinds(&reqs, None).contains(&"synchronized_retries".to_string()));
    }

    /// Waves of retries on one host (and a few retries on another), as linked steps in time
    /// order.
    fn linked_herd() -> Vec<(crate::model::event::Event, crate::detect::link::Linked)> {
        use crate::detect::link::{Attempt, Linked};
        use crate::model::event::{pack_loc, Event};
        let mut out = Vec::new();
        let mut line = 0;
        let mut ev = |host: u32, client: u32, t: f64| {
            line += 1;
            let mut e = Event::at((t * 1e6) as i64, 0);
            e.host = host;
            e.client = client;
            e.dur_ms = 30.0;
            e.loc = pack_loc(0, line);
            e
        };
        for k in 0..40u64 {
            let t0 = 100.0 + k as f64 * 0.0005;
            let mut prev = ev(0, (k % 3) as u32, t0);
            out.push((prev, 0, k, None));
            for a in 1..4u32 {
                // Identical 1 s delays: the logical requests come back together; one in four
                // comes back late.
                let late = if k % 4 == 0 { 0.35 * a as f64 } else { 0.0 };
                let t = prev.end_s().unwrap() + 1.0 + late + k as f64 * 0.0001;
                let e = ev(0, (k % 3) as u32, t);
                out.push((e, a, k, Some(prev)));
                prev = e;
            }
        }
        for k in 0..3u64 {
            let first = ev(1, 0, 101.0 + k as f64);
            out.push((first, 0, 100 + k, None));
            out.push((ev(1, 0, 102.5 + k as f64), 1, 100 + k, Some(first)));
        }
        out.sort_by_key(|a| a.0.t_us);
        out.into_iter()
            .map(|(e, attempt, logical, prev)| {
                let link = Linked {
                    logical,
                    attempt,
                    prev: prev.map(|ev| Attempt { ev, seq: 0 }),
                };
                (e, link)
            })
            .collect()
    }

    #[test]
    fn the_kept_retries_scan_as_a_second_replay_would() {
        use crate::detect::synchronized_retries::Synchronized;
        use crate::detect::{Cx, Detector, Step};
        let steps = linked_herd();
        let hosts = vec![
            "api.example.com".to_string(),
            "other.example.com".to_string(),
        ];
        let sources: Vec<std::sync::Arc<str>> = vec!["sim.jsonl".into()];
        let cx = Cx {
            coarse_time: false,
            limit_option: None,
            limits: &[None, None],
            hosts: &hosts,
            clients: &[],
            creds: &[],
            endpoints: &[],
            sources: &sources,
            rows: &[],
            cred_host: &[],
            polls_after_failure: 0,
        };
        let feed = |d: &mut Synchronized| {
            for (seq, (ev, link)) in steps.iter().enumerate() {
                d.step(
                    &Step {
                        ev,
                        seq: seq as u64,
                        link,
                    },
                    &cx,
                );
            }
        };
        // The reference: a second replay of the same steps.
        let mut relinked = Synchronized::relinking();
        feed(&mut relinked);
        assert!(relinked.second_look(&cx));
        for (seq, (ev, link)) in steps.iter().enumerate() {
            relinked.step_again(
                &Step {
                    ev,
                    seq: seq as u64,
                    link,
                },
                &cx,
            );
        }
        let expected = serde_json::to_string(&relinked.finish(&cx, &[])).unwrap();
        assert!(expected.contains("synchronized_retries"), "{expected}");
        assert!(expected.contains("largest_waves"), "{expected}");
        // Kept in memory, and kept in a log that continues on disk after 64 bytes.
        for memory in [super::KEPT_MEMORY, 64] {
            let mut kept = Synchronized::keeping(memory);
            feed(&mut kept);
            let log = kept.kept.as_ref().unwrap();
            assert_eq!(log.len(), 40 * 3 + 3);
            assert_eq!(log.spilled(), memory == 64);
            assert!(!kept.second_look(&cx), "no second replay");
            let got = serde_json::to_string(&kept.finish(&cx, &[])).unwrap();
            assert_eq!(got, expected, "memory {memory}");
        }
    }

    #[test]
    fn near_miss_jittered_workers_spread_out() {
        let reqs = herd(1.0);
        assert!(reqs.iter().any(|r| r.status == 429));
        assert!(!kinds(&reqs, None).contains(&"synchronized_retries".to_string()));
    }
}

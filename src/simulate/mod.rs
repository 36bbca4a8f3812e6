//! `toomany simulate`: a deterministic discrete-event simulation of K clients following a
//! policy against a limiter model.
//!
//! An event heap ordered by (time, insertion sequence) in integer nanoseconds, so ties resolve
//! the same way every run; one seeded PRNG of our own ([`rng`]) drawn in event order; the
//! limiter is the very model `mock` serves ([`crate::limiter`]), here under a virtual clock that
//! starts at 2026-01-01T00:00:00Z (windows and days start at t = 0). Every response, admitted or
//! refused, takes `latency` (plus the hold of an nginx-style delay); the server sends the model's
//! Retry-After in whole seconds, rounded up, unless told not to.

pub mod occ;
pub mod policy;
pub mod rng;

use crate::limiter::{Limiter, Nanos, Spec, NS_PER_MS, NS_PER_S};
use policy::{ClientPolicy, RetryAfter};
use rng::Rng;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The virtual clock's t = 0: a UTC midnight, so clock-aligned windows and days start there.
pub const EPOCH: Nanos = 1_767_225_600 * NS_PER_S;
/// Most requests one run simulates (state is kept per logical request).
pub const MAX_REQUESTS: u64 = 1_000_000;

/// When first attempts arrive at their clients.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Every first attempt at t = 0.
    Burst,
    /// Request i at i × interval.
    Spaced { interval_ns: u64 },
    /// Exponential gaps with this mean (a Poisson process), from its own seeded stream.
    Poisson { mean_gap_ns: u64 },
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub spec: Spec,
    /// Total across all clients; request i belongs to client i mod K.
    pub requests: u64,
    pub clients: u64,
    pub arrival: Arrival,
    pub latency_ns: u64,
    pub seed: u64,
    /// Does the server send Retry-After on refusals?
    pub server_retry_after: bool,
}

/// One policy's outcome. `accepted` and `rejected` count attempts by the limiter's decision
/// (their sum is `attempts`), as the server's log would; `wasted_attempts` are the attempts the
/// limiter refused (work that bought nothing — equal to `rejected` in this model);
/// `final_failures` counts logical requests that never got through.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub policy: String,
    pub accepted: u64,
    pub rejected: u64,
    pub attempts: u64,
    pub final_failures: u64,
    /// When the last logical request finished (succeeded or gave up), seconds from t = 0.
    pub completion_s: f64,
    pub wasted_attempts: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// Request i arrives at its client (and schedules the next arrival).
    Arrive(u64),
    /// A retry's wait is over: back into its client's queue.
    Ready(u64),
    /// A client's spacing interval has passed.
    Wake(u64),
    /// The response to request i's current attempt.
    Respond {
        req: u64,
        admitted: bool,
        retry_after_s: Option<u64>,
    },
}

#[derive(Debug, Clone, Default)]
struct Client {
    queue: VecDeque<u64>,
    in_flight: u32,
    next_start: Nanos,
    wake_pending: bool,
    /// gRPC retry throttling token count, thousandths.
    tokens_milli: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Logical {
    first_start: Option<Nanos>,
    attempts: u32,
}

struct Sim<'a> {
    s: &'a Scenario,
    p: &'a ClientPolicy,
    heap: BinaryHeap<Reverse<(Nanos, u64, Event)>>,
    seq: u64,
    limiter: Limiter,
    clients: Vec<Client>,
    reqs: Vec<Logical>,
    rng: Rng,
    arrivals: Rng,
    next_arrival_at: Nanos,
    out: RunResult,
    last_finish: Nanos,
}

impl<'a> Sim<'a> {
    fn push(&mut self, t: Nanos, e: Event) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, e)));
    }

    fn arrival_gap(&mut self) -> u64 {
        match self.s.arrival {
            Arrival::Burst => 0,
            Arrival::Spaced { interval_ns } => interval_ns,
            Arrival::Poisson { mean_gap_ns } => {
                self.arrivals.exponential(mean_gap_ns as f64).round() as u64
            }
        }
    }

    fn finish(&mut self, t: Nanos, failed: bool) {
        if failed {
            self.out.final_failures += 1;
        }
        self.last_finish = self.last_finish.max(t);
    }

    fn dispatch(&mut self, c: usize, now: Nanos) {
        loop {
            let cl = &self.clients[c];
            if cl.queue.is_empty() {
                return;
            }
            if let Some(cap) = self.p.max_in_flight {
                if cl.in_flight >= cap {
                    return;
                }
            }
            if let Some(interval) = self.p.min_interval_ns {
                if now < cl.next_start {
                    if !cl.wake_pending {
                        let at = cl.next_start;
                        self.clients[c].wake_pending = true;
                        self.push(at, Event::Wake(c as u64));
                    }
                    return;
                }
                self.clients[c].next_start = now + interval;
            }
            let Some(req) = self.clients[c].queue.pop_front() else {
                return;
            };
            self.send(c, req, now);
        }
    }

    fn send(&mut self, c: usize, req: u64, now: Nanos) {
        let l = &mut self.reqs[req as usize];
        l.attempts += 1;
        l.first_start.get_or_insert(now);
        self.clients[c].in_flight += 1;
        self.out.attempts += 1;
        let d = self.limiter.admit(now);
        if d.admitted {
            self.out.accepted += 1;
        } else {
            self.out.rejected += 1;
        }
        let retry_after_s = (!d.admitted && self.s.server_retry_after)
            .then(|| d.retry_after_ns.map(crate::limiter::headers::ceil_s))
            .flatten();
        let at = now + d.delay_ns + self.s.latency_ns;
        self.push(
            at,
            Event::Respond {
                req,
                admitted: d.admitted,
                retry_after_s,
            },
        );
    }

    /// After a refusal at `now`: when to try again, or `None` to give up.
    fn retry_at(&mut self, c: usize, req: u64, now: Nanos, ra_s: Option<u64>) -> Option<Nanos> {
        let p = self.p;
        let l = self.reqs[req as usize];
        if l.attempts >= p.max_attempts {
            return None;
        }
        let backoff = p.backoff.as_ref()?;
        if let Some(t) = p.throttling {
            if self.clients[c].tokens_milli * 2 <= t.max_tokens_milli {
                return None;
            }
        }
        let ra_ns = ra_s.map(|s| s.saturating_mul(NS_PER_S));
        let deadline_at = match (p.deadline_ns, l.first_start) {
            (Some(d), Some(f)) => Some(f.saturating_add(d)),
            _ => None,
        };
        let wait = match (p.retry_after, ra_ns) {
            (RetryAfter::MinimumPlusSpread { spread_ns }, Some(ra)) => {
                // A required wait longer than what is left ends the request at once.
                if deadline_at.is_some_and(|d| now.saturating_add(ra) > d) {
                    return None;
                }
                ra + self.rng.up_to(spread_ns)
            }
            (RetryAfter::MaxWithBackoff, Some(ra)) => {
                backoff.wait(l.attempts, &mut self.rng).max(ra)
            }
            _ => backoff.wait(l.attempts, &mut self.rng),
        };
        let at = now.saturating_add(wait);
        if deadline_at.is_some_and(|d| at > d) {
            return None;
        }
        Some(at)
    }

    fn handle(&mut self, now: Nanos, e: Event) {
        match e {
            Event::Arrive(i) => {
                if i + 1 < self.s.requests {
                    let gap = self.arrival_gap();
                    self.next_arrival_at = self.next_arrival_at.saturating_add(gap);
                    let at = self.next_arrival_at;
                    self.push(at, Event::Arrive(i + 1));
                }
                let c = (i % self.s.clients) as usize;
                self.clients[c].queue.push_back(i);
                self.dispatch(c, now);
            }
            Event::Ready(i) => {
                let c = (i % self.s.clients) as usize;
                self.clients[c].queue.push_back(i);
                self.dispatch(c, now);
            }
            Event::Wake(c) => {
                self.clients[c as usize].wake_pending = false;
                self.dispatch(c as usize, now);
            }
            Event::Respond {
                req,
                admitted,
                retry_after_s,
            } => {
                let c = (req % self.s.clients) as usize;
                self.clients[c].in_flight -= 1;
                if admitted {
                    self.limiter.release(now);
                    if let Some(t) = self.p.throttling {
                        let cl = &mut self.clients[c];
                        cl.tokens_milli = (cl.tokens_milli + t.ratio_milli).min(t.max_tokens_milli);
                    }
                    self.finish(now, false);
                } else {
                    if self.p.throttling.is_some() {
                        let cl = &mut self.clients[c];
                        cl.tokens_milli = cl.tokens_milli.saturating_sub(1000);
                    }
                    match self.retry_at(c, req, now, retry_after_s) {
                        Some(at) => self.push(at, Event::Ready(req)),
                        None => self.finish(now, true),
                    }
                }
                self.dispatch(c, now);
            }
        }
    }
}

/// Run one policy through a scenario.
pub fn run(s: &Scenario, p: &ClientPolicy) -> RunResult {
    let clients = s.clients.clamp(1, s.requests.max(1));
    let s = &Scenario {
        clients,
        ..s.clone()
    };
    let start_tokens = p.throttling.map_or(0, |t| t.max_tokens_milli);
    let mut sim = Sim {
        s,
        p,
        heap: BinaryHeap::new(),
        seq: 0,
        limiter: Limiter::new(&s.spec),
        clients: vec![
            Client {
                tokens_milli: start_tokens,
                ..Client::default()
            };
            clients as usize
        ],
        reqs: vec![Logical::default(); s.requests as usize],
        rng: Rng::stream(s.seed, 2),
        arrivals: Rng::stream(s.seed, 1),
        next_arrival_at: EPOCH,
        out: RunResult {
            policy: p.name.clone(),
            accepted: 0,
            rejected: 0,
            attempts: 0,
            final_failures: 0,
            completion_s: 0.0,
            wasted_attempts: 0,
        },
        last_finish: EPOCH,
    };
    if s.requests > 0 {
        sim.push(EPOCH, Event::Arrive(0));
    }
    while let Some(Reverse((t, _, e))) = sim.heap.pop() {
        sim.handle(t, e);
    }
    let mut out = sim.out;
    out.wasted_attempts = out.rejected;
    // Whole milliseconds: short numbers for people, exact for the golden JSON.
    out.completion_s = ((sim.last_finish - EPOCH) / NS_PER_MS) as f64 / 1000.0;
    out
}

#[cfg(test)]
mod tests {
    use super::policy::{builtin, from_neutral, PlanRetry};
    use super::*;
    use crate::limiter::parse_spec;
    use crate::recommend::config::Policy as NeutralPolicy;
    use crate::recommend::plan::{plan, PlanInput};
    use crate::units::Rate;

    fn scenario(spec: &str, requests: u64, arrival: Arrival) -> Scenario {
        Scenario {
            spec: parse_spec(spec).unwrap(),
            requests,
            clients: 1,
            arrival,
            latency_ns: 200 * NS_PER_MS,
            seed: 1,
            server_retry_after: true,
        }
    }

    fn naive() -> ClientPolicy {
        builtin("naive", &PlanRetry::default()).unwrap()
    }

    fn spaced(ms: u64) -> Arrival {
        Arrival::Spaced {
            interval_ns: ms * NS_PER_MS,
        }
    }

    /// The plan `toomany plan --requests 600 --limit 120/min --latency 200ms` writes.
    fn guide_plan() -> NeutralPolicy {
        NeutralPolicy::from_plan(&plan(&PlanInput {
            requests: 600,
            limit: Rate::parse("120/min").unwrap(),
            headroom: 0.75,
            latency_ms: Some(200.0),
            deadline_ms: None,
            backoff: Default::default(),
        }))
        .expect("a paced plan")
    }

    #[test]
    fn the_guide_numbers() {
        // 600 requests at once against 120/min with the naive policy: mostly refused.
        let burst = run(
            &scenario("fixed-window:120/min", 600, Arrival::Burst),
            &naive(),
        );
        assert_eq!((burst.accepted, burst.rejected), (120, 480));
        assert_eq!(burst.final_failures, 480);
        // Spaced at the recommended 667 ms: all 600 accepted in ≈ 400 s.
        let even = run(
            &scenario("fixed-window:120/min", 600, spaced(667)),
            &naive(),
        );
        assert_eq!((even.accepted, even.rejected), (600, 0));
        assert!(
            (399.0..=401.0).contains(&even.completion_s),
            "{}",
            even.completion_s
        );
        // The plan's own client, handed all 600 at once, spaces them itself: the same result.
        let p = guide_plan();
        assert_eq!(p.rate.min_interval_ms, 667);
        let planned = run(
            &scenario("fixed-window:120/min", 600, Arrival::Burst),
            &from_neutral("toomany.toml", &p),
        );
        assert_eq!((planned.accepted, planned.rejected), (600, 0));
        assert!((399.0..=401.0).contains(&planned.completion_s));
    }

    /// The derived oracle table of verify-simulate.md §3.8: limit 90/min, 600 requests, no
    /// retries, admitted count per arrival pattern and model.
    #[test]
    fn the_ninety_per_minute_oracle_table() {
        let admitted = |spec: &str, gap_ms: f64| {
            let arrival = Arrival::Spaced {
                interval_ns: (gap_ms * NS_PER_MS as f64).round() as u64,
            };
            run(&scenario(spec, 600, arrival), &naive()).accepted
        };
        let rows: [(f64, [u64; 4]); 4] = [
            (10_000.0 / 600.0, [104, 15, 90, 15]),
            (667.0, [600, 600, 600, 600]),
            (666.0, [600, 300, 599, 300]),
            (600.0, [600, 300, 540, 300]),
        ];
        for (gap, want) in rows {
            let got = [
                admitted("gcra:90/min,burst=90", gap),
                admitted("gcra:90/min,burst=1", gap),
                admitted("fixed-window:90/min", gap),
                admitted("leaky-bucket:90/min", gap),
            ];
            assert_eq!(got, want, "gap {gap} ms");
        }
    }

    #[test]
    fn same_seed_same_result_and_seeds_matter() {
        let s = Scenario {
            clients: 20,
            arrival: Arrival::Poisson {
                mean_gap_ns: 50 * NS_PER_MS,
            },
            ..scenario("token-bucket:5/s,burst=5", 400, Arrival::Burst)
        };
        let p = builtin("full-jitter", &PlanRetry::default()).unwrap();
        let a = run(&s, &p);
        assert_eq!(a, run(&s, &p));
        let b = run(&Scenario { seed: 2, ..s }, &p);
        assert_ne!(a, b);
        assert_eq!(a.accepted + a.rejected, a.attempts);
        assert_eq!(a.accepted + a.final_failures, 400);
    }

    #[test]
    fn concurrency_limits_and_nginx_holds_count_in_time() {
        // 8 at once against concurrency:4 with 200 ms latency: 4 pass, 4 refused.
        let r = run(&scenario("concurrency:4", 8, Arrival::Burst), &naive());
        assert_eq!((r.accepted, r.rejected), (4, 4));
        // nginx burst=5 holds: the last of six finishes after 500 ms hold + 200 ms latency.
        let r = run(
            &scenario("leaky-bucket:10/s,burst=5", 7, Arrival::Burst),
            &naive(),
        );
        assert_eq!((r.accepted, r.rejected), (6, 1));
        assert_eq!(r.completion_s, 0.7);
    }

    #[test]
    fn retry_after_longer_than_the_deadline_ends_the_request() {
        // daily:1 refuses the second request until midnight: the plan gives up at once.
        let r = run(
            &scenario("daily:1", 2, Arrival::Burst),
            &builtin("full-jitter", &PlanRetry::default()).unwrap(),
        );
        assert_eq!((r.attempts, r.final_failures), (2, 1));
        // A client ignoring Retry-After retries within its deadline, in vain.
        let g = run(
            &scenario("daily:1", 2, Arrival::Burst),
            &builtin("grpc", &PlanRetry::default()).unwrap(),
        );
        assert_eq!((g.attempts, g.final_failures), (1 + 5, 1));
    }

    #[test]
    fn grpc_retry_throttling_stops_retries_after_net_failures() {
        // One client, everything refused (daily quota spent): with 10 tokens and ratio 0.1,
        // retries stop once the count falls to 5, i.e. after 5 failures.
        let s = Scenario {
            clients: 1,
            ..scenario("daily:1", 21, Arrival::Burst)
        };
        let plan = PlanRetry {
            deadline_ns: 3600 * NS_PER_S,
            ..PlanRetry::default()
        };
        let r = run(&s, &builtin("grpc", &plan).unwrap());
        // Request 0 succeeds (+0.1 → stays 10); the next failures take a token each.
        // Attempts: 1 + 20 first attempts + 4 retries before the count reaches 5.
        assert_eq!(r.accepted, 1);
        assert_eq!(r.final_failures, 20);
        assert_eq!(r.attempts, 21 + 4, "{r:?}");
    }

    #[test]
    fn spacing_and_in_flight_caps_apply_per_client() {
        // Two clients each spacing at 500 ms: together 4/s against 2/s, half refused.
        let mut p = naive();
        p.min_interval_ns = Some(500 * NS_PER_MS);
        let s = Scenario {
            clients: 2,
            ..scenario("gcra:2/s,burst=1", 40, Arrival::Burst)
        };
        let r = run(&s, &p);
        assert_eq!(r.accepted, 20);
        // One client alone: all pass.
        let r = run(&Scenario { clients: 1, ..s }, &p);
        assert_eq!(r.accepted, 40);
    }

    /// The published jitter result in a rate-limited setting: 100 clients, two requests each,
    /// all at once against a token bucket, no Retry-After. Exponential backoff without jitter
    /// retries in synchronised waves; full jitter spreads them. Over eight seeds full jitter
    /// makes fewer calls (≤ 97 %), finishes sooner (≤ 95 %) and loses far fewer requests
    /// (≤ 30 %) — the bound documented in docs/simulate.md.
    #[test]
    fn full_jitter_beats_no_jitter_with_many_contending_clients() {
        let plan = PlanRetry::default();
        for seed in 1..=8 {
            let s = Scenario {
                clients: 100,
                latency_ns: 50 * NS_PER_MS,
                seed,
                server_retry_after: false,
                ..scenario("token-bucket:20/s,burst=20", 200, Arrival::Burst)
            };
            let exact = run(&s, &builtin("no-jitter", &plan).unwrap());
            let full = run(&s, &builtin("full-jitter", &plan).unwrap());
            assert!(
                (full.attempts as f64) <= 0.97 * exact.attempts as f64,
                "seed {seed}: calls {full:?} vs {exact:?}"
            );
            assert!(
                full.completion_s <= 0.95 * exact.completion_s,
                "seed {seed}: time {full:?} vs {exact:?}"
            );
            assert!(
                (full.final_failures as f64) <= 0.3 * exact.final_failures as f64,
                "seed {seed}: failures {full:?} vs {exact:?}"
            );
        }
    }
}

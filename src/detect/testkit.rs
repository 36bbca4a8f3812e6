//! Test-scenario generator: hand-placed requests ([`Scenario`]) and a small discrete-event
//! simulation of workers against a limiter ([`Sim`]), so detector tests run on realistic request
//! sequences whose statuses come from a server model, not from the test's wishes.

use crate::attribute::{Attribution, Quota};
use crate::http::ratelimit::Limits;
use crate::model::{ClientHints, Headers, Location, Position, Request};
use chrono::{DateTime, TimeZone, Utc};
use std::collections::BTreeMap;
use std::sync::Arc;

// ---- the engine on records in memory: detectors are tested through the analysis that drives
// them (the one place detect's tests reach above detect) ----

/// Every detector over `requests` (time-sorted), with the attribution of each rate-limited one.
pub fn run(
    requests: &[Request],
    limited: &[(usize, Attribution)],
    limit_option: Option<crate::units::Rate>,
) -> super::Detected {
    crate::analyze::detect_records(requests, limited, limit_option)
}

/// Client numbers of time-sorted records, as the analysis numbers them.
pub fn identify_clients(requests: &[Request]) -> super::clients::Clients {
    crate::analyze::identify_clients(requests)
}

/// The logical operations of time-sorted records, as the analysis links them.
pub fn link_records(requests: &[Request]) -> super::logical::Attempts {
    crate::analyze::link_records(requests)
}

/// The known limit per host name, for time-sorted records with the given attributions.
pub fn known_limits(
    requests: &[Request],
    limited: &[(usize, Attribution)],
    limit_option: Option<crate::units::Rate>,
) -> std::collections::BTreeMap<String, super::limit::KnownLimit> {
    crate::analyze::known_limits(requests, limited, limit_option)
}

pub fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0)
        .single()
        .expect("valid base time")
}

/// Deterministic xorshift PRNG: tests must not depend on the run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Requests placed by hand, in any order; `build` sorts them by time like `merge_inputs`.
#[derive(Debug, Default)]
pub struct Scenario {
    pub requests: Vec<Request>,
}

pub struct Req<'a> {
    s: &'a mut Scenario,
    r: Request,
}

impl Scenario {
    pub fn new() -> Scenario {
        Scenario::default()
    }

    /// A request starting `t` seconds after the base time.
    pub fn at(&mut self, t: f64) -> Req<'_> {
        let line = self.requests.len() + 1;
        let mut r = Request::at(Location {
            source: Arc::from("sim.jsonl"),
            position: Position::Line(line),
        });
        r.started = Some(base() + chrono::Duration::microseconds((t * 1e6) as i64));
        r.duration_ms = Some(80.0);
        Req { s: self, r }
    }

    pub fn build(self) -> Vec<Request> {
        let mut v = self.requests;
        v.sort_by_key(|r| r.started);
        v
    }
}

impl<'a> Req<'a> {
    pub fn client(mut self, c: &str) -> Self {
        self.r.client.client = Some(c.to_string());
        self
    }
    pub fn ua(mut self, ua: &str) -> Self {
        self.r.client.user_agent = Some(ua.to_string());
        self.r.request_headers.push("User-Agent", ua);
        self
    }
    pub fn ip(mut self, ip: &str) -> Self {
        self.r.client.client_ip = Some(ip.to_string());
        self
    }
    pub fn page(mut self, p: &str) -> Self {
        self.r.client.pageref = Some(p.to_string());
        self
    }
    /// Credential fingerprint (as redaction leaves it).
    pub fn cred(mut self, fp: &str) -> Self {
        self.r.credential = Some(fp.to_string());
        self.r
            .request_headers
            .push("Authorization", format!("Bearer <redacted:{fp}>"));
        self
    }
    pub fn dur(mut self, ms: f64) -> Self {
        self.r.duration_ms = Some(ms);
        self
    }
    pub fn no_dur(mut self) -> Self {
        self.r.duration_ms = None;
        self
    }
    pub fn ra(mut self, v: &str) -> Self {
        self.r.response_headers.push("Retry-After", v);
        self
    }
    /// A cross-origin browser request (`Origin` header and client hint).
    pub fn origin_header(mut self, o: &str) -> Self {
        self.r.request_headers.push("Origin", o);
        self.r.client.origin = Some(o.to_string());
        self
    }
    pub fn resp(mut self, name: &str, v: &str) -> Self {
        self.r.response_headers.push(name, v);
        self
    }
    pub fn idem(mut self, fp: &str) -> Self {
        self.r
            .request_headers
            .push("Idempotency-Key", format!("<redacted:{fp}>"));
        self
    }
    pub fn body(mut self, fp: &str) -> Self {
        self.r.request_body_fingerprint = Some(fp.to_string());
        self
    }
    pub fn excerpt(mut self, b: &str) -> Self {
        self.r.body_excerpt = Some(b.to_string());
        self
    }
    pub fn req(mut self, method: &str, url: &str, status: u16) {
        self.r.method = method.to_string();
        self.r.url = url.to_string();
        self.r.status = status;
        self.s.requests.push(self.r);
    }
    pub fn get(self, url: &str, status: u16) {
        self.req("GET", url, status)
    }
    pub fn post(self, url: &str, status: u16) {
        self.req("POST", url, status)
    }
}

/// An attribution as the attribution engine would give it, for tests.
pub fn attribution(quota: Quota, limits: Option<Limits>) -> Attribution {
    let mut a = Attribution::unknown();
    a.quota = quota;
    a.limits = limits;
    a
}

pub fn limits(limit: f64, remaining: f64, window_s: f64, reset_s: f64) -> Limits {
    Limits {
        limit: Some(limit),
        remaining: Some(remaining),
        reset_seconds: Some(reset_s),
        window_seconds: Some(window_s),
        policy: None,
    }
}

/// Every 429 with an unknown attribution (what the engine says when it knows nothing).
pub fn unknown_attributions(reqs: &[Request]) -> Vec<(usize, Attribution)> {
    reqs.iter()
        .enumerate()
        .filter(|(_, r)| r.status == 429)
        .map(|(i, _)| (i, Attribution::unknown()))
        .collect()
}

/// The findings of one kind, with the given attributions and limit.
pub fn findings_of(
    kind: &str,
    reqs: &[Request],
    limited: &[(usize, Attribution)],
    limit: Option<crate::units::Rate>,
) -> Vec<crate::detect::Finding> {
    run(reqs, limited, limit)
        .findings
        .into_iter()
        .filter(|f| f.kind == kind)
        .collect()
}

/// Run every detector; findings' kinds, sorted and deduplicated.
pub fn kinds(reqs: &[Request], limit: Option<&str>) -> Vec<String> {
    let limited = unknown_attributions(reqs);
    let rate = limit.map(|l| crate::units::Rate::parse(l).expect("test limit parses"));
    let d = run(reqs, &limited, rate);
    let mut k: Vec<String> = d.findings.into_iter().map(|f| f.kind).collect();
    k.sort();
    k.dedup();
    k
}

// ---------------------------------------------------------------------------------------------
// Clean traffic shapes.

/// A browser page load: one document, then `n` static assets fetched in parallel.
pub fn page_load(s: &mut Scenario, t0: f64, n: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
    s.at(t0)
        .ua(ua)
        .page("page_1")
        .dur(180.0)
        .get("https://shop.example.com/", 200);
    for i in 0..n {
        let t = t0 + 0.2 + rng.next() * 0.6;
        let ext = ["js", "css", "png", "woff2", "svg"][i % 5];
        s.at(t)
            .ua(ua)
            .page("page_1")
            .dur(40.0 + rng.next() * 400.0)
            .get(
                &format!("https://static.example-cdn.com/assets/{i}.{ext}"),
                200,
            );
    }
    // A few API calls the page makes after load.
    for (k, path) in ["/api/cart", "/api/user", "/api/recommendations"]
        .iter()
        .enumerate()
    {
        s.at(t0 + 1.2 + k as f64 * 0.05)
            .ua(ua)
            .page("page_1")
            .dur(120.0)
            .get(&format!("https://shop.example.com{path}"), 200);
    }
}

/// A steady stream at `per_s` (with ±30 % spacing noise) for `secs` seconds, all 200.
pub fn steady(s: &mut Scenario, t0: f64, per_s: f64, secs: f64, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut t = t0;
    let mut n = 0;
    while t < t0 + secs {
        s.at(t)
            .client("ingest")
            .cred("aaaa1111")
            .dur(150.0 + rng.next() * 100.0)
            .get(&format!("https://api.example.com/v1/items/{n}"), 200);
        n += 1;
        t += (1.0 / per_s) * (0.7 + 0.6 * rng.next());
    }
}

/// A dashboard polling `widgets` endpoints every `every` seconds, `rounds` times; one poll in
/// `limited_every` gets a 429 (with Retry-After 30) and polling simply carries on.
pub fn polling(
    s: &mut Scenario,
    t0: f64,
    every: f64,
    rounds: usize,
    widgets: usize,
    limited_every: Option<usize>,
) {
    let mut rng = Rng::new(7);
    let ua = "Mozilla/5.0 (Macintosh) Firefox/128.0";
    let mut k = 0usize;
    for round in 0..rounds {
        for w in 0..widgets {
            k += 1;
            let t = t0 + round as f64 * every + w as f64 * 0.03 + rng.next() * 0.02;
            let limited = limited_every.map(|e| k.is_multiple_of(e)).unwrap_or(false);
            let b = s
                .at(t)
                .ua(ua)
                .page("page_1")
                .cred("cccc3333")
                .dur(if limited {
                    15.0
                } else {
                    90.0 + rng.next() * 60.0
                });
            let url = format!("https://dash.example.com/api/widgets/{w}/data");
            if limited {
                b.ra("30").get(&url, 429);
            } else {
                b.get(&url, 200);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A discrete-event simulation of workers against a limiter.

#[derive(Debug, Clone, Copy)]
pub enum Limiter {
    None,
    /// `limit` starts per fixed window of `window_s`; Retry-After = seconds to the window's end
    /// (rounded up) unless `retry_after` fixes it.
    Window {
        limit: usize,
        window_s: f64,
    },
    /// At most `max` requests in flight.
    Concurrency {
        max: usize,
    },
    /// `allowance` requests in total, then 429 with a long Retry-After and `insufficient_quota`.
    Quota {
        allowance: usize,
        retry_after_s: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RaUse {
    Honor,
    Ignore,
    /// Reads Retry-After as milliseconds.
    Millis,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backoff {
    /// Same delay every time.
    Fixed(f64),
    /// base × 2^(attempt−1), capped.
    Exp { base: f64, cap: f64 },
    /// Two retry layers: `inner` attempts `inner_s` apart, then `outer_s` between rounds.
    Nested {
        inner: usize,
        inner_s: f64,
        outer_s: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Idem {
    None,
    Same,
    PerAttempt,
}

#[derive(Debug, Clone)]
pub struct Worker {
    pub client: String,
    pub ua: String,
    pub cred: String,
    pub method: &'static str,
    /// URL of job `j` (`{j}` is replaced).
    pub url: String,
    pub jobs: usize,
    pub start_s: f64,
    /// Pause between one job's end and the next job's start.
    pub spacing_s: f64,
    pub latency_ms: f64,
    pub max_attempts: usize,
    pub backoff: Backoff,
    /// Full jitter fraction: the delay is scaled by (1 − jitter + jitter × U[0, 2)).
    pub jitter: f64,
    pub ra: RaUse,
    pub idem: Idem,
    /// Request body fingerprint per job (writes).
    pub body: bool,
}

impl Worker {
    pub fn new(client: &str, url: &str, jobs: usize) -> Worker {
        Worker {
            client: client.to_string(),
            ua: "acme-sdk/2.4 python/3.12".into(),
            cred: "bbbb2222".into(),
            method: "GET",
            url: url.to_string(),
            jobs,
            start_s: 0.0,
            spacing_s: 1.0,
            latency_ms: 120.0,
            max_attempts: 1,
            backoff: Backoff::Exp {
                base: 1.0,
                cap: 30.0,
            },
            jitter: 1.0,
            ra: RaUse::Honor,
            idem: Idem::None,
            body: false,
        }
    }
}

pub struct Sim {
    pub limiter: Limiter,
    /// Fixed Retry-After (seconds) on 429s, overriding the limiter's own.
    pub retry_after: Option<f64>,
    pub workers: Vec<Worker>,
    pub seed: u64,
    /// Stop scheduling after this many seconds.
    pub horizon_s: f64,
}

impl Sim {
    pub fn new(limiter: Limiter) -> Sim {
        Sim {
            limiter,
            retry_after: None,
            workers: Vec::new(),
            seed: 42,
            horizon_s: 3600.0,
        }
    }

    pub fn run(&self) -> Vec<Request> {
        let mut rng = Rng::new(self.seed);
        // Event: (time µs, worker, job, attempt).
        let mut queue: BTreeMap<(i64, usize, usize), usize> = BTreeMap::new();
        for (w, wk) in self.workers.iter().enumerate() {
            if wk.jobs > 0 {
                queue.insert(((wk.start_s * 1e6) as i64, w, 0), 0);
            }
        }
        let mut out: Vec<Request> = Vec::new();
        let mut window_counts: BTreeMap<i64, usize> = BTreeMap::new();
        let mut in_flight_ends: Vec<f64> = Vec::new();
        let mut served = 0usize;
        let mut idem_seq = 0u64;
        let mut job_keys: BTreeMap<(usize, usize), u64> = BTreeMap::new();
        while let Some((&(t_us, w, job), &attempt)) = queue.iter().next() {
            queue.remove(&(t_us, w, job));
            let t = t_us as f64 / 1e6;
            if t > self.horizon_s {
                continue;
            }
            let wk = &self.workers[w];
            let latency = wk.latency_ms * (0.8 + 0.4 * rng.next());
            in_flight_ends.retain(|&e| e > t);
            let (status, dur_ms, ra, body) = match self.limiter {
                Limiter::None => (200, latency, None, None),
                Limiter::Window { limit, window_s } => {
                    let win = (t / window_s).floor() as i64;
                    let c = window_counts.entry(win).or_insert(0);
                    if *c < limit {
                        *c += 1;
                        (200, latency, None, None)
                    } else {
                        let left = ((win + 1) as f64 * window_s - t).ceil().max(1.0);
                        (
                            429,
                            8.0,
                            Some(self.retry_after.unwrap_or(left)),
                            Some("{\"error\":\"rate_limited\"}"),
                        )
                    }
                }
                Limiter::Concurrency { max } => {
                    if in_flight_ends.len() >= max {
                        (
                            429,
                            6.0,
                            Some(self.retry_after.unwrap_or(1.0)),
                            Some("{\"error\":\"too many concurrent requests\"}"),
                        )
                    } else {
                        in_flight_ends.push(t + latency / 1000.0);
                        (200, latency, None, None)
                    }
                }
                Limiter::Quota {
                    allowance,
                    retry_after_s,
                } => {
                    if served < allowance {
                        served += 1;
                        (200, latency, None, None)
                    } else {
                        (
                            429,
                            10.0,
                            Some(self.retry_after.unwrap_or(retry_after_s)),
                            Some("{\"error\":{\"type\":\"insufficient_quota\",\"message\":\"You exceeded your current quota\"}}"),
                        )
                    }
                }
            };
            let line = out.len() + 1;
            let mut r = Request::at(Location {
                source: Arc::from("sim.jsonl"),
                position: Position::Line(line),
            });
            r.started = Some(base() + chrono::Duration::microseconds(t_us));
            r.method = wk.method.to_string();
            r.url = wk.url.replace("{j}", &job.to_string());
            r.status = status;
            r.duration_ms = Some(dur_ms);
            r.client = ClientHints {
                client: Some(wk.client.clone()),
                user_agent: Some(wk.ua.clone()),
                ..Default::default()
            };
            r.credential = Some(wk.cred.clone());
            let mut h = Headers::new();
            h.push("User-Agent", wk.ua.clone());
            h.push("Authorization", format!("Bearer <redacted:{}>", wk.cred));
            match wk.idem {
                Idem::None => {}
                Idem::Same => {
                    let k = *job_keys.entry((w, job)).or_insert_with(|| {
                        idem_seq += 1;
                        idem_seq
                    });
                    h.push("Idempotency-Key", format!("<redacted:{:08x}>", k));
                }
                Idem::PerAttempt => {
                    idem_seq += 1;
                    h.push("Idempotency-Key", format!("<redacted:{:08x}>", idem_seq));
                }
            }
            r.request_headers = h;
            if wk.body {
                r.request_body_fingerprint = Some(format!("{:08x}", (w as u64) << 20 | job as u64));
            }
            if let Some(ra) = ra {
                r.response_headers
                    .push("Retry-After", crate::units::fmt_num(ra));
            }
            r.body_excerpt = body.map(str::to_string);
            out.push(r);

            let end = t + dur_ms / 1000.0;
            let failed = super::is_failure(status);
            if failed && attempt + 1 < wk.max_attempts {
                let mut delay = match wk.backoff {
                    Backoff::Fixed(d) => d,
                    Backoff::Exp { base, cap } => (base * 2f64.powi(attempt as i32)).min(cap),
                    Backoff::Nested {
                        inner,
                        inner_s,
                        outer_s,
                    } => {
                        if (attempt + 1) % inner == 0 {
                            outer_s
                        } else {
                            inner_s
                        }
                    }
                };
                delay *= 1.0 - wk.jitter + wk.jitter * 2.0 * rng.next();
                if let Some(ra) = ra {
                    match wk.ra {
                        RaUse::Honor => delay = delay.max(ra) + wk.jitter * rng.next(),
                        RaUse::Ignore => {}
                        RaUse::Millis => delay = ra / 1000.0 + 0.002 * rng.next(),
                    }
                }
                queue.insert((((end + delay) * 1e6) as i64, w, job), attempt + 1);
            } else if job + 1 < wk.jobs {
                queue.insert((((end + wk.spacing_s) * 1e6) as i64, w, job + 1), 0);
            }
        }
        out
    }
}

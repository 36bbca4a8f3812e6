//! Generate bench inputs shaped like real logs, deterministic by seed:
//!
//! ```text
//! cargo run --release --example gen_real -- jsonl MB OUT [SEED]
//! cargo run --release --example gen_real -- combined MB OUT [SEED]
//! ```
//!
//! What the repo's older generators (`gen_jsonl`, `gen_combined`) lack and real logs carry, so
//! that no cache can hit on a whole repeated text: a unique request id and trace id on every
//! record, a new idempotency key per write, rate-limit counters that count down per client and
//! window, dozens of hosts, hundreds of clients, IPs and user agents, query strings (some with a
//! token in them), and 429s (1–3 % of records) that come in bursts, when one client runs over
//! its limit for a few dozen seconds.
//!
//! `jsonl` mixes three field layouts line by line, as a log shipper merging sources writes them:
//! a gateway's flat record with header maps (ISO time), an Elastic-Common-Schema-like nested
//! record (`@timestamp`, `http.request.method`, `url.full`, …) and nginx's `escape=json` record
//! (epoch seconds with milliseconds, status as a string, `request_uri` and `host` apart).
//! `combined` is nginx's `combined` format (what GoAccess's `--log-format=COMBINED` reads),
//! ~20,000 client IPs, whole seconds.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

/// SplitMix64: fixed output for a seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
    /// A Zipf-like pick in `0..n`: low indexes far more often (heavy clients, hot hosts).
    fn skewed(&mut self, n: u64) -> u64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) - 1.0) as u64 % n.max(1)
    }
    fn hex(&mut self, out: &mut String, digits: usize) {
        let mut left = digits;
        while left > 0 {
            let v = self.next();
            let take = left.min(16);
            let _ = write!(out, "{:016x}", v);
            out.truncate(out.len() - (16 - take));
            left -= take;
        }
    }
    fn uuid(&mut self, out: &mut String) {
        let (a, b) = (self.next(), self.next());
        let _ = write!(
            out,
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        );
    }
    fn token(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize] as char)
            .collect()
    }
}

/// Of the requests made while a burst runs, how many per mille are the burst's.
const BURST_SHARE: u64 = 170;

const REGIONS: &[&str] = &["us-east", "us-west", "eu-west", "eu-central", "ap-south"];
const PRODUCTS: &[&str] = &[
    "orders", "billing", "search", "catalog", "auth", "media", "events", "users",
];
const TEAMS: &[&str] = &[
    "checkout", "ledger", "sync", "reports", "mobile", "web", "partner", "etl", "notify", "admin",
];
const WORDS: &[&str] = &[
    "shoes",
    "red+dress",
    "laptop",
    "usb-c",
    "gift",
    "coffee",
    "desk",
    "sale",
    "kids",
    "garden",
];
/// Route templates: `{id}` a number, `{hex}` a cursor, `{word}` a search term, `{ts}` a time.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/v1/{p}/{id}"),
    ("GET", "/v1/{p}?status=open&limit=50&cursor={hex}"),
    ("GET", "/v2/{p}/{id}/items?expand[]=lines&expand[]=tax"),
    ("GET", "/v1/search?q={word}&page={n}&per_page=25"),
    ("GET", "/v1/{p}/{id}/events?since={ts}"),
    ("POST", "/v1/{p}"),
    ("POST", "/v1/{p}/{id}/capture"),
    ("PUT", "/v1/{p}/{id}"),
    ("DELETE", "/v1/{p}/{id}/sessions/{hex}"),
    ("GET", "/healthz"),
];

/// One caller: its name, address, user agent and credential (some credentials shared).
struct Client {
    name: String,
    ip: String,
    agent: String,
    key: String,
    hosts: [usize; 3],
}

struct World {
    hosts: Vec<String>,
    clients: Vec<Client>,
    /// Per host: the rate-limit header family (0 X-RateLimit-*, 1 RateLimit-*, 2 Kong's
    /// X-RateLimit-*-Minute, 3 none) and the per-minute limit.
    limits: Vec<(u8, u32)>,
}

fn agents(rng: &mut Rng) -> Vec<String> {
    let mut out = Vec::new();
    for v in 118..134 {
        out.push(format!("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.{}.{} Safari/537.36", 6000 + rng.below(400), rng.below(200)));
        out.push(format!("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.{} Safari/605.1.15", v % 7));
        out.push(format!(
            "Mozilla/5.0 (X11; Linux x86_64; rv:{v}.0) Gecko/20100101 Firefox/{v}.0"
        ));
    }
    for team in TEAMS {
        for major in 1..6 {
            out.push(format!(
                "{team}-sdk/{major}.{}.{} (python 3.{}; linux)",
                rng.below(20),
                rng.below(10),
                9 + rng.below(4)
            ));
            out.push(format!(
                "{team}-worker/{major}.{} okhttp/4.12.0",
                rng.below(30)
            ));
        }
    }
    for i in 0..60 {
        out.push(match i % 6 {
            0 => format!("python-requests/2.{}.0", 25 + i / 6),
            1 => format!("Go-http-client/{}.1", 1 + i % 2),
            2 => format!("curl/8.{}.{}", i / 6, i % 3),
            3 => format!("axios/1.{}.{}", i / 6, i % 4),
            4 => format!("Java-http-client/17.0.{}", i),
            _ => format!("aws-sdk-go-v2/1.{}.{} os/linux lang/go#1.22", 20 + i, i % 5),
        });
    }
    out
}

fn world(rng: &mut Rng) -> World {
    let mut hosts = Vec::new();
    for (i, p) in PRODUCTS.iter().enumerate() {
        for r in REGIONS {
            hosts.push(format!("{p}.{r}.api.example.com"));
        }
        hosts.push(format!("{p}-internal-{i}.svc.cluster.local"));
    }
    let limits = (0..hosts.len())
        .map(|i| ((i % 4) as u8, [900, 1200, 600, 3000][i % 4]))
        .collect();
    let agents = agents(rng);
    let mut keys: Vec<String> = (0..260)
        .map(|_| format!("sk_live_{}", rng.token(24)))
        .collect();
    // A few accounts whose key several services share (shared-key contention).
    for k in 0..12 {
        let shared = keys[k].clone();
        for j in 0..3 {
            keys[100 + k * 3 + j] = shared.clone();
        }
    }
    let clients = (0..400)
        .map(|c| Client {
            name: format!(
                "{}-{}-{c}",
                TEAMS[c % TEAMS.len()],
                ["api", "job", "cron", "app"][c % 4]
            ),
            ip: format!(
                "10.{}.{}.{}",
                rng.below(16),
                rng.below(256),
                1 + rng.below(254)
            ),
            agent: agents[rng.skewed(agents.len() as u64) as usize].clone(),
            key: keys[c % keys.len()].clone(),
            hosts: [
                rng.below(hosts.len() as u64) as usize,
                rng.below(hosts.len() as u64) as usize,
                rng.skewed(hosts.len() as u64) as usize,
            ],
        })
        .collect();
    World {
        hosts,
        clients,
        limits,
    }
}

/// What one request was and how it was answered.
struct Hit<'w> {
    t_ms: u64,
    client: &'w Client,
    host: usize,
    method: &'static str,
    target: String,
    status: u16,
    duration_ms: f64,
    limit: u32,
    remaining: u32,
    reset_s: u64,
    retry_after: u64,
    bytes: u64,
}

/// The traffic: clients at their usual pace, and now and then one client's burst. Each
/// (client, host) has a one-minute window counted against its host's limit; a request past it
/// is a 429 with `Retry-After` = the rest of the window.
struct Traffic<'w> {
    world: &'w World,
    rng: Rng,
    t_ms: u64,
    windows: HashMap<(usize, usize), (u64, u32)>,
    burst: Option<(usize, usize, u64)>,
}

impl<'w> Traffic<'w> {
    fn new(world: &'w World, seed: u64) -> Self {
        Traffic {
            world,
            rng: Rng(seed ^ 0x5eed),
            t_ms: 1_714_521_600_000, // 2024-05-01T00:00:00Z
            windows: HashMap::new(),
            burst: None,
        }
    }

    fn next(&mut self) -> Hit<'w> {
        let rng = &mut self.rng;
        self.t_ms += 1 + rng.below(8); // ~220 requests/s
        let now = self.t_ms;
        match self.burst {
            Some((_, _, end)) if end < now => self.burst = None,
            None if rng.chance(1) => {
                // A burst every few seconds of traffic: one client, one host, 10–50 s.
                let c = rng.below(self.world.clients.len() as u64) as usize;
                let h = self.world.clients[c].hosts[rng.below(3) as usize];
                self.burst = Some((c, h, now + 10_000 + rng.below(40_000)));
            }
            _ => {}
        }
        let (c, h) = match self.burst {
            Some((c, h, _)) if rng.chance(BURST_SHARE) => (c, h),
            _ => {
                let c = rng.skewed(self.world.clients.len() as u64) as usize;
                (c, self.world.clients[c].hosts[rng.below(3) as usize])
            }
        };
        let client = &self.world.clients[c];
        let (_, per_min) = self.world.limits[h];
        let minute = now / 60_000;
        let w = self.windows.entry((c, h)).or_insert((minute, 0));
        if w.0 != minute {
            *w = (minute, 0);
        }
        w.1 += 1;
        let over = w.1 > per_min;
        let reset_s = 60 - (now / 1000) % 60;
        let (method, route) = ROUTES[rng.skewed(ROUTES.len() as u64) as usize];
        let target = route_text(rng, route, now);
        let status = if over {
            429
        } else {
            match rng.below(1000) {
                0..=2 => 500,
                3 => 503,
                4..=13 => 404,
                14..=18 => 401,
                19..=30 => 304,
                _ if method == "POST" => 201,
                _ => 200,
            }
        };
        Hit {
            t_ms: now,
            client,
            host: h,
            method,
            target,
            status,
            duration_ms: (5 + rng.skewed(2000)) as f64 + rng.below(1000) as f64 / 1000.0,
            limit: per_min,
            remaining: per_min.saturating_sub(w.1),
            reset_s,
            retry_after: if over { reset_s } else { 0 },
            bytes: if status == 429 { 98 } else { rng.below(60_000) },
        }
    }
}

fn route_text(rng: &mut Rng, route: &str, now_ms: u64) -> String {
    let mut out = String::with_capacity(route.len() + 32);
    let mut rest = route;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let j = rest[i..].find('}').map_or(rest.len(), |j| i + j);
        match &rest[i + 1..j] {
            "p" => out.push_str(PRODUCTS[rng.below(PRODUCTS.len() as u64) as usize]),
            "id" => {
                let _ = write!(out, "{}", rng.skewed(5_000_000));
            }
            "hex" => rng.hex(&mut out, 16),
            "word" => out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]),
            "n" => {
                let _ = write!(out, "{}", 1 + rng.skewed(40));
            }
            "ts" => {
                let _ = write!(out, "{}", now_ms / 1000 - rng.below(3600));
            }
            _ => {}
        }
        rest = &rest[(j + 1).min(rest.len())..];
    }
    out.push_str(rest);
    // Some callers put their token in the query string.
    if rng.chance(15) {
        out.push(if out.contains('?') { '&' } else { '?' });
        let _ = write!(out, "access_token=tok_{}", rng.token(20));
    }
    out
}

/// RFC 3339 UTC time with milliseconds (or microseconds), without a date library.
fn iso(out: &mut String, t_ms: u64, micros: Option<u64>) {
    let (y, mo, d, h, mi, s) = civil(t_ms / 1000);
    let _ = write!(out, "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}");
    match micros {
        Some(us) => {
            let _ = write!(out, ".{:03}{:03}Z", t_ms % 1000, us);
        }
        None => {
            let _ = write!(out, ".{:03}Z", t_ms % 1000);
        }
    }
}

/// Calendar date and time of day of epoch seconds (Howard Hinnant's algorithm).
fn civil(secs: u64) -> (i64, u64, u64, u64, u64, u64) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    let y = yoe + era * 400 + i64::from(mo <= 2);
    (y, mo, d, rem / 3600, (rem % 3600) / 60, rem % 60)
}

/// The rate-limit headers of a host's family, as JSON members (leading comma each).
fn limit_headers(out: &mut String, hit: &Hit<'_>, family: u8) {
    let (l, r, s) = (hit.limit, hit.remaining, hit.reset_s);
    let _ = match family {
        0 => write!(
            out,
            r#","X-RateLimit-Limit":"{l}","X-RateLimit-Remaining":"{r}","X-RateLimit-Reset":"{s}""#
        ),
        1 => write!(
            out,
            r#","RateLimit-Limit":"{l}","RateLimit-Remaining":"{r}","RateLimit-Reset":"{s}""#
        ),
        2 => write!(
            out,
            r#","X-RateLimit-Limit-Minute":"{l}","X-RateLimit-Remaining-Minute":"{r}""#
        ),
        _ => Ok(()),
    };
    if hit.status == 429 {
        let _ = write!(out, r#","Retry-After":"{}""#, hit.retry_after);
    }
}

const ERROR_BODY: &str = r#"{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Too many requests, retry later\"}}"#;

fn jsonl_line(out: &mut String, rng: &mut Rng, world: &World, hit: &Hit<'_>) {
    let host = &world.hosts[hit.host];
    let (family, _) = world.limits[hit.host];
    let c = hit.client;
    let mut rid = String::with_capacity(36);
    rng.uuid(&mut rid);
    let mut trace = String::with_capacity(32);
    rng.hex(&mut trace, 32);
    let body = if hit.status == 429 { ERROR_BODY } else { "" };
    match rng.below(10) {
        // The gateway's own record: flat, header maps, ISO time.
        0..=4 => {
            out.push_str(r#"{"time":""#);
            iso(out, hit.t_ms, None);
            let _ = write!(
                out,
                r#"","method":"{}","url":"https://{host}{}","status":{},"duration_ms":{:.3},"client":"{}","client_ip":"{}","request_id":"{rid}","request_headers":{{"Authorization":"Bearer {}","User-Agent":"{}","traceparent":"00-{trace}-{:016x}-01""#,
                hit.method,
                hit.target,
                hit.status,
                hit.duration_ms,
                c.name,
                c.ip,
                c.key,
                c.agent,
                rng.next()
            );
            if hit.method == "POST" {
                out.push_str(r#","Idempotency-Key":""#);
                rng.uuid(out);
                out.push('"');
            }
            let _ = write!(
                out,
                r#"}},"response_headers":{{"Content-Type":"application/json","X-Request-Id":"{rid}""#
            );
            limit_headers(out, hit, family);
            let _ = writeln!(out, r#"}},"response_body":"{body}"}}"#);
        }
        // An Elastic-Common-Schema-like record: nested, microseconds, API key header.
        5..=7 => {
            out.push_str(r#"{"@timestamp":""#);
            iso(out, hit.t_ms, Some(rng.below(1000)));
            let _ = write!(
                out,
                r#"","trace_id":"{trace}","service":"{}","source":{{"ip":"{}"}},"user_agent":{{"original":"{}"}},"url":{{"full":"https://{host}{}"}},"http":{{"request":{{"method":"{}","headers":{{"x-api-key":"{}","x-request-id":"{rid}""#,
                c.name, c.ip, c.agent, hit.target, hit.method, c.key
            );
            if hit.method == "POST" {
                out.push_str(r#","idempotency-key":""#);
                rng.uuid(out);
                out.push('"');
            }
            let _ = write!(
                out,
                r#"}}}},"response":{{"status_code":{},"headers":{{"content-type":"application/json""#,
                hit.status
            );
            limit_headers(out, hit, family);
            let _ = writeln!(
                out,
                r#"}},"body":{{"content":"{body}"}}}}}},"event":{{"duration":{}}}}}"#,
                (hit.duration_ms * 1e6) as u64
            );
        }
        // nginx `log_format … escape=json`: strings everywhere, $msec time.
        _ => {
            let _ = writeln!(
                out,
                r#"{{"ts":{}.{:03},"remote_addr":"{}","host":"{host}","request_method":"{}","request_uri":"{}","status":"{}","request_time":"{:.3}","body_bytes_sent":"{}","http_user_agent":"{}","request_id":"{}","api_key_id":"key_{}","sent_http_retry_after":"{}"}}"#,
                hit.t_ms / 1000,
                hit.t_ms % 1000,
                c.ip,
                hit.method,
                hit.target,
                hit.status,
                hit.duration_ms / 1000.0,
                hit.bytes,
                c.agent,
                &trace,
                &c.key[8..16],
                if hit.status == 429 {
                    hit.retry_after.to_string()
                } else {
                    String::new()
                }
            );
        }
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn combined_line(out: &mut String, rng: &mut Rng, world: &World, hit: &Hit<'_>) {
    let (y, mo, d, h, mi, s) = civil(hit.t_ms / 1000);
    // Many more addresses than clients: a client's requests also come from NAT'd and mobile
    // addresses, drawn from a pool of 20,000 (a few of them very busy).
    let ip = if rng.chance(700) {
        hit.client.ip.clone()
    } else {
        let a = rng.skewed(20_000).wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995;
        format!(
            "{}.{}.{}.{}",
            1 + (a >> 24) % 223,
            (a >> 16) & 0xff,
            (a >> 8) & 0xff,
            1 + a % 254
        )
    };
    let referer = match rng.below(4) {
        0 => "-".to_string(),
        1 => format!("https://{}/", world.hosts[hit.host]),
        2 => format!(
            "https://www.example.com/{}?utm_source=mail",
            WORDS[rng.below(10) as usize]
        ),
        _ => format!(
            "https://app.example.com/{}",
            PRODUCTS[rng.below(8) as usize]
        ),
    };
    let _ = writeln!(
        out,
        "{ip} - - [{d:02}/{}/{y}:{h:02}:{mi:02}:{s:02} +0000] \"{} {} HTTP/1.1\" {} {} \"{referer}\" \"{}\"",
        MONTHS[(mo - 1) as usize],
        hit.method,
        hit.target,
        hit.status,
        hit.bytes,
        hit.client.agent
    );
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gen_real jsonl|combined MB OUT [SEED]";
    let (Some(kind), Some(mb), Some(out)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(mb) = mb.parse::<u64>() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let seed: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = Rng(seed);
    let world = world(&mut rng);
    let mut traffic = Traffic::new(&world, seed);
    let target = mb * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let (mut written, mut lines, mut limited) = (0u64, 0u64, 0u64);
    let mut line = String::with_capacity(2048);
    while written < target {
        let hit = traffic.next();
        line.clear();
        match kind.as_str() {
            "jsonl" => jsonl_line(&mut line, &mut rng, &world, &hit),
            "combined" => combined_line(&mut line, &mut rng, &world, &hit),
            _ => {
                eprintln!("{usage}");
                std::process::exit(2);
            }
        }
        w.write_all(line.as_bytes())?;
        written += line.len() as u64;
        lines += 1;
        limited += u64::from(hit.status == 429);
    }
    w.flush()?;
    eprintln!(
        "wrote {out}: {lines} lines, {} MB, {limited} 429s ({:.2} %)",
        written / (1024 * 1024),
        limited as f64 * 100.0 / lines as f64
    );
    Ok(())
}

//! The compact event: one per request, holding only what the analyses read, in 64 bytes.
//!
//! A [`Request`] is turned into a [`Mapped`] on the ingest worker threads ([`map`]): the event
//! with 64-bit hashes in place of the host, client, credential and endpoint, the strings behind
//! those hashes the first time any worker meets them, and the full record only where an
//! analysis needs it (rate-limited responses, failures that carry a Retry-After, and the first
//! successes of each host for the attribution baseline). The sink interns the hashes into
//! small ids; from then on the analyses see only [`Event`]s.

use crate::detect::logical::{idempotency_key, is_write, operation_url};
use crate::http::retry_after::{self, Kind};
use crate::model::Request;
use chrono::{DateTime, Utc};
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Mutex, RwLock};

/// "No id" for host, client, credential, endpoint and detail fields.
pub const NONE: u32 = u32::MAX;

/// Request methods the analyses tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Method {
    Get,
    Head,
    Options,
    Post,
    Put,
    Patch,
    Delete,
    Other,
}

impl Method {
    pub fn of(m: &str) -> Method {
        match m {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            _ => Method::Other,
        }
    }

    fn from_bits(b: u16) -> Method {
        match b {
            0 => Method::Get,
            1 => Method::Head,
            2 => Method::Options,
            3 => Method::Post,
            4 => Method::Put,
            5 => Method::Patch,
            6 => Method::Delete,
            _ => Method::Other,
        }
    }
}

/// Bits of [`Event::flags`].
pub mod flag {
    /// A rate-limit signal: 429, or a 503/403/... the attribution stage counts.
    pub const LIMITED: u16 = 1 << 0;
    /// The start time has no sub-second part (whole-second logs).
    pub const WHOLE_SECOND: u16 = 1 << 1;
    /// POST to a path ending in `graphql`.
    pub const GRAPHQL: u16 = 1 << 2;
    /// A cross-origin browser request whose response hid Retry-After from the page's script.
    pub const RA_HIDDEN: u16 = 1 << 3;
    /// Client hints present: `client`, user agent, client IP, HAR page, origin.
    pub const HINT_CLIENT: u16 = 1 << 4;
    pub const HINT_UA: u16 = 1 << 5;
    pub const HINT_IP: u16 = 1 << 6;
    pub const HINT_PAGE: u16 = 1 << 7;
    pub const HINT_ORIGIN: u16 = 1 << 8;
    /// The position is a line (a log), not an entry (a HAR).
    pub const POS_LINE: u16 = 1 << 9;
    /// Method in bits 12..15.
    pub const METHOD_SHIFT: u16 = 12;
}

/// One request as the analyses see it. Plain data (no pointers), so it can be written to a
/// temporary file and read back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// Start, microseconds since the Unix epoch; [`Event::UNTIMED`] when unknown.
    pub t_us: i64,
    /// Total duration, ms; NaN when unknown.
    pub dur_ms: f64,
    /// Hash of the logical operation (client, credential, method, URL less volatile parameters,
    /// body fingerprint for writes): attempts of one operation share it.
    pub op: u64,
    /// Input number (16 bits) and entry/line in it (48 bits).
    pub loc: u64,
    pub host: u32,
    pub client: u32,
    pub cred: u32,
    /// Write endpoint (`POST /v1/orders/{id}`) id, for writes only.
    pub endpoint: u32,
    /// Row of [`crate::analyze::limited`] holding this response's detail, if any.
    pub detail: u32,
    /// Hash of the idempotency key value; 0 when the request carried none.
    pub idem: u32,
    pub status: u16,
    pub flags: u16,
    /// Sub-microsecond part of the start time, ns (0..1000).
    pub t_ns: u16,
    _pad: u16,
}

/// Encoded size of an [`Event`].
pub const EVENT_BYTES: usize = 64;

impl Event {
    pub const UNTIMED: i64 = i64::MIN;

    pub fn timed(&self) -> bool {
        self.t_us != Event::UNTIMED
    }

    pub fn limited(&self) -> bool {
        self.flags & flag::LIMITED != 0
    }

    pub fn method(&self) -> Method {
        Method::from_bits(self.flags >> flag::METHOD_SHIFT)
    }

    /// Start in epoch seconds (microsecond precision), as every timeline computes it.
    pub fn start_s(&self) -> Option<f64> {
        self.timed().then(|| self.t_us as f64 / 1e6)
    }

    /// End of the response in epoch seconds; the start when the duration is unknown.
    pub fn end_s(&self) -> Option<f64> {
        let s = self.start_s()?;
        let d = self.dur_ms;
        Some(if d.is_finite() && d >= 0.0 {
            s + d / 1000.0
        } else {
            s
        })
    }

    pub fn duration_ms(&self) -> Option<f64> {
        (!self.dur_ms.is_nan()).then_some(self.dur_ms)
    }

    pub fn started(&self) -> Option<DateTime<Utc>> {
        if !self.timed() {
            return None;
        }
        DateTime::from_timestamp_micros(self.t_us)
            .map(|t| t + chrono::Duration::nanoseconds(self.t_ns as i64))
    }

    pub fn input(&self) -> u16 {
        (self.loc >> 48) as u16
    }

    pub fn position(&self) -> u64 {
        self.loc & POSITION_MASK
    }

    /// Entry or line, as the input numbers it.
    pub fn model_position(&self) -> crate::model::Position {
        let p = self.position() as usize;
        if self.flags & flag::POS_LINE != 0 {
            crate::model::Position::Line(p)
        } else {
            crate::model::Position::Entry(p)
        }
    }

    /// Sort key of the merged time order: time, then the input's rank by name, then position
    /// (`ranks[input]`).
    pub fn order_key(&self, ranks: &[u16]) -> (i64, u16, u16, u64) {
        let rank = ranks
            .get(self.input() as usize)
            .copied()
            .unwrap_or(u16::MAX);
        (self.t_us, self.t_ns, rank, self.position())
    }

    pub fn encode(&self, out: &mut [u8; EVENT_BYTES]) {
        out[0..8].copy_from_slice(&self.t_us.to_le_bytes());
        out[8..16].copy_from_slice(&self.dur_ms.to_bits().to_le_bytes());
        out[16..24].copy_from_slice(&self.op.to_le_bytes());
        out[24..32].copy_from_slice(&self.loc.to_le_bytes());
        out[32..36].copy_from_slice(&self.host.to_le_bytes());
        out[36..40].copy_from_slice(&self.client.to_le_bytes());
        out[40..44].copy_from_slice(&self.cred.to_le_bytes());
        out[44..48].copy_from_slice(&self.endpoint.to_le_bytes());
        out[48..52].copy_from_slice(&self.detail.to_le_bytes());
        out[52..56].copy_from_slice(&self.idem.to_le_bytes());
        out[56..58].copy_from_slice(&self.status.to_le_bytes());
        out[58..60].copy_from_slice(&self.flags.to_le_bytes());
        out[60..62].copy_from_slice(&self.t_ns.to_le_bytes());
        out[62..64].copy_from_slice(&[0, 0]);
    }

    pub fn decode(b: &[u8; EVENT_BYTES]) -> Event {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or([0; 4]));
        let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap_or([0; 2]));
        Event {
            t_us: u64_at(0) as i64,
            dur_ms: f64::from_bits(u64_at(8)),
            op: u64_at(16),
            loc: u64_at(24),
            host: u32_at(32),
            client: u32_at(36),
            cred: u32_at(40),
            endpoint: u32_at(44),
            detail: u32_at(48),
            idem: u32_at(52),
            status: u16_at(56),
            flags: u16_at(58),
            t_ns: u16_at(60),
            _pad: 0,
        }
    }
}

const POSITION_MASK: u64 = (1 << 48) - 1;

#[cfg(test)]
impl Event {
    /// A timed GET of operation `op` on host 0 (tests of the streaming state).
    pub(crate) fn for_test(t_us: i64, dur_ms: f64, op: u64, status: u16) -> Event {
        Event {
            t_us,
            dur_ms,
            op,
            loc: 0,
            host: 0,
            client: 0,
            cred: NONE,
            endpoint: NONE,
            detail: NONE,
            idem: 0,
            status,
            flags: 0,
            t_ns: 0,
            _pad: 0,
        }
    }
}

/// Location field of an event: input number and entry/line (saturating at 2^48 − 1).
pub fn pack_loc(input: u16, position: usize) -> u64 {
    ((input as u64) << 48) | (position as u64).min(POSITION_MASK)
}

/// The hasher every key hash uses: fixed, so a key hashes the same on every thread and run.
pub fn hasher() -> impl Hasher {
    foldhash::fast::FixedState::with_seed(0x746f_6f6d_616e_7921).build_hasher()
}

fn hash_of<T: Hash + ?Sized>(tag: u8, v: &T) -> u64 {
    let mut h = hasher();
    tag.hash(&mut h);
    v.hash(&mut h);
    // 0 is "none" everywhere.
    h.finish().max(1)
}

/// Names that keys of this kind hash (kept apart so a host and a credential never collide).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum KeyKind {
    Host = 1,
    Client = 2,
    Cred = 3,
    Endpoint = 4,
}

/// The caller's identity (see `detect::clients` for the rule).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKey {
    Named(String),
    Hints {
        user_agent: Option<String>,
        client_ip: Option<String>,
        pageref: Option<String>,
        origin: Option<String>,
    },
}

impl ClientKey {
    pub fn of(r: &Request) -> ClientKey {
        let h = &r.client;
        match h.client.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => ClientKey::Named(c.to_string()),
            // A HAR page already names the tab; its document request has no Origin while its
            // subresources do, so the origin would split one page into two callers.
            None => ClientKey::Hints {
                user_agent: r.user_agent().map(str::to_string),
                client_ip: h.client_ip.clone(),
                pageref: h.pageref.clone(),
                origin: if h.pageref.is_some() {
                    None
                } else {
                    h.origin.clone()
                },
            },
        }
    }
}

/// The strings behind an event's hashes, sent with the first event that carries each.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub host: Option<String>,
    pub client: Option<ClientKey>,
    pub cred: Option<String>,
    pub endpoint: Option<String>,
}

/// Hashes of an event's keys (0 = none), interned into ids by the sink.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Keys {
    pub host: u64,
    pub client: u64,
    pub cred: u64,
    pub endpoint: u64,
}

/// Why a full record travels with an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// Rate-limited: attributed and listed in the report.
    Limited,
    /// A failure (5xx, 408, no response) that stated a Retry-After.
    Failure,
    /// A success that may be one of the host's first, for the attribution baseline.
    Baseline,
}

/// What a worker hands the sink for one request.
#[derive(Debug)]
pub struct Mapped {
    pub ev: Event,
    pub keys: Keys,
    pub names: Option<Box<Names>>,
    pub kept: Option<(Kept, Box<Request>)>,
    /// Rate-limit headers' (limit × 1000, window × 1000), when stated with both.
    pub header_limit: Option<(u64, u64)>,
}

/// State shared by the workers of one analysis: which keys' strings were already sent, and
/// which hosts need no more baseline samples from the current input.
#[derive(Default)]
pub struct Shared {
    sent: [Mutex<std::collections::HashSet<u64, foldhash::fast::FixedState>>; 16],
    baseline_full: RwLock<std::collections::HashSet<u64, foldhash::fast::FixedState>>,
}

impl Shared {
    /// True the first time `h` is offered (so exactly one event carries its string).
    fn first(&self, h: u64) -> bool {
        let shard = &self.sent[(h >> 60) as usize & 15];
        match shard.lock() {
            Ok(mut s) => s.insert(h),
            Err(p) => p.into_inner().insert(h),
        }
    }

    /// No more baseline samples are needed for this host (hash) from the current input.
    pub fn baseline_done(&self, host: u64) {
        match self.baseline_full.write() {
            Ok(mut s) => s.insert(host),
            Err(p) => p.into_inner().insert(host),
        };
    }

    /// A new input starts: every host may need samples again.
    pub fn new_input(&self) {
        match self.baseline_full.write() {
            Ok(mut s) => s.clear(),
            Err(p) => p.into_inner().clear(),
        }
    }

    fn wants_baseline(&self, host: u64) -> bool {
        match self.baseline_full.read() {
            Ok(s) => !s.contains(&host),
            Err(p) => !p.into_inner().contains(&host),
        }
    }
}

/// Status classes that make a following attempt a retry.
pub fn is_failure(status: u16) -> bool {
    status == 0 || status == 408 || status == 429 || status >= 500
}

/// A path with resource ids replaced by `{id}` (segments holding a digit, except `v1`-style
/// versions), so one endpoint's operations are counted together.
pub fn path_template(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let version = seg.len() <= 3
                && seg.starts_with('v')
                && seg[1..].bytes().all(|b| b.is_ascii_digit());
            if !version && seg.bytes().any(|b| b.is_ascii_digit()) {
                "{id}"
            } else {
                seg
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A cross-origin browser request (it sent `Origin`) whose response did not list Retry-After in
/// `Access-Control-Expose-Headers`: the page's JavaScript could not read the header.
fn hidden_from_page(r: &Request) -> bool {
    let cross_origin = r
        .request_headers
        .get("origin")
        .map(|o| !o.is_empty() && o != "null")
        .unwrap_or(false);
    let exposed = r
        .response_headers
        .get_all("access-control-expose-headers")
        .any(|v| {
            v.split(',')
                .any(|h| h.trim().eq_ignore_ascii_case("retry-after") || h.trim() == "*")
        });
    cross_origin && !exposed
}

/// Turn one request into its event (on a worker thread). `input` numbers the input.
pub fn map(r: Request, input: u16, shared: &Shared) -> Mapped {
    let (position, line) = match r.location.position {
        crate::model::Position::Entry(i) => (i, false),
        crate::model::Position::Line(i) => (i, true),
    };
    let limited = crate::attribute::is_rate_limited(&r);
    let method_upper = r.method.to_ascii_uppercase();
    let method = Method::of(&method_upper);
    let mut flags = (method as u16) << flag::METHOD_SHIFT;
    if line {
        flags |= flag::POS_LINE;
    }
    if limited {
        flags |= flag::LIMITED;
    }
    let (t_us, t_ns) = match r.started {
        Some(t) => {
            if t.timestamp_subsec_millis() == 0 {
                flags |= flag::WHOLE_SECOND;
            }
            (
                t.timestamp_micros(),
                (t.timestamp_subsec_nanos() % 1000) as u16,
            )
        }
        None => (Event::UNTIMED, 0),
    };
    let h = &r.client;
    for (bit, present) in [
        (flag::HINT_CLIENT, h.client.is_some()),
        (flag::HINT_UA, r.user_agent().is_some()),
        (flag::HINT_IP, h.client_ip.is_some()),
        (flag::HINT_PAGE, h.pageref.is_some()),
        (flag::HINT_ORIGIN, h.origin.is_some()),
    ] {
        if present {
            flags |= bit;
        }
    }
    let url = crate::http::url::split(&r.url);
    if method == Method::Post
        && url
            .path
            .to_ascii_lowercase()
            .trim_end_matches('/')
            .ends_with("graphql")
    {
        flags |= flag::GRAPHQL;
    }

    let mut names = Names::default();
    let host_name = r.host();
    let host = hash_of(KeyKind::Host as u8, &host_name);
    if shared.first(host) {
        names.host = Some(host_name);
    }
    let client_key = ClientKey::of(&r);
    let client = hash_of(KeyKind::Client as u8, &client_key);
    let cred = match &r.credential {
        Some(c) => {
            let h = hash_of(KeyKind::Cred as u8, c.as_str());
            if shared.first(h) {
                names.cred = Some(c.clone());
            }
            h
        }
        None => 0,
    };
    let write = is_write(&method_upper);
    let endpoint = if write {
        let e = format!("{} {}", method_upper, path_template(url.path));
        let h = hash_of(KeyKind::Endpoint as u8, &e);
        if shared.first(h) {
            names.endpoint = Some(e);
        }
        h
    } else {
        0
    };

    // The logical operation: client, credential (unless it is really the idempotency key),
    // method, URL less volatile parameters, body for writes. Idempotency keys are not part of
    // it (a new key per attempt still retries one operation).
    let idem_value = idempotency_key(&r.request_headers).map(|(_, v)| v);
    let op_cred = match (&r.credential, idem_value) {
        (Some(c), Some(v)) if v.contains(c.as_str()) => None,
        (c, _) => c.as_deref(),
    };
    let op = {
        let mut hh = hasher();
        client_key.hash(&mut hh);
        op_cred.hash(&mut hh);
        method_upper.hash(&mut hh);
        operation_url(&r.url).hash(&mut hh);
        if write {
            r.request_body_fingerprint.hash(&mut hh);
        }
        hh.finish()
    };
    let idem = idem_value
        .map(|v| (hash_of(0, v) as u32).max(1))
        .unwrap_or(0);
    if shared.first(client) {
        names.client = Some(client_key);
    }

    let failure = is_failure(r.status);
    if failure && hidden_from_page(&r) {
        flags |= flag::RA_HIDDEN;
    }
    let header_limit =
        crate::http::ratelimit::parse(&r.response_headers, r.started).and_then(|l| {
            match (l.limit, l.window_seconds) {
                (Some(c), Some(w))
                    if c.is_finite()
                        && w.is_finite()
                        && c > 0.0
                        && w > 0.0
                        && c < 1e12
                        && w < 1e9 =>
                {
                    Some(((c * 1000.0) as u64, (w * 1000.0) as u64))
                }
                _ => None,
            }
        });
    let ev = Event {
        t_us,
        dur_ms: r.duration_ms.unwrap_or(f64::NAN),
        op,
        loc: pack_loc(input, position),
        host: NONE,
        client: NONE,
        cred: NONE,
        endpoint: NONE,
        detail: NONE,
        idem,
        status: r.status,
        flags,
        t_ns,
        _pad: 0,
    };
    let keys = Keys {
        host,
        client,
        cred,
        endpoint,
    };
    let kept = if limited {
        Some(Kept::Limited)
    } else if failure
        && retry_after::from_headers(&r.response_headers, r.started).kind != Kind::Absent
    {
        Some(Kept::Failure)
    } else if (200..400).contains(&r.status) && shared.wants_baseline(host) {
        Some(Kept::Baseline)
    } else {
        None
    };
    let has_names = names.host.is_some()
        || names.client.is_some()
        || names.cred.is_some()
        || names.endpoint.is_some();
    Mapped {
        ev,
        keys,
        names: has_names.then(|| Box::new(names)),
        kept: kept.map(|k| (k, Box::new(r))),
        header_limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_64_bytes() {
        assert_eq!(std::mem::size_of::<Event>(), EVENT_BYTES);
    }

    #[test]
    fn events_round_trip_through_bytes() {
        let e = Event {
            t_us: 1_700_000_000_123_456,
            dur_ms: f64::NAN,
            op: u64::MAX - 3,
            loc: pack_loc(3, 123_456),
            host: 1,
            client: 2,
            cred: NONE,
            endpoint: 4,
            detail: 5,
            idem: 6,
            status: 429,
            flags: flag::LIMITED | (3 << flag::METHOD_SHIFT),
            t_ns: 999,
            _pad: 0,
        };
        let mut b = [0u8; EVENT_BYTES];
        e.encode(&mut b);
        let d = Event::decode(&b);
        assert_eq!(d.t_us, e.t_us);
        assert!(d.dur_ms.is_nan());
        assert_eq!((d.op, d.loc, d.host, d.cred), (e.op, e.loc, e.host, e.cred));
        assert_eq!((d.input(), d.position()), (3, 123_456));
        assert_eq!(d.method(), Method::Post);
        assert!(d.limited());
        assert_eq!(d.t_ns, 999);
    }
}

//! The compact event: one per request, holding only what the analyses read, in 64 bytes.
//!
//! A [`Request`] is turned into a [`Mapped`] on the ingest worker threads ([`map`]): the event
//! with 64-bit hashes in place of the host, client, credential and endpoint, the strings behind
//! those hashes the first time any worker meets them, and the full record only where an
//! analysis needs it (rate-limited responses, failures that carry a Retry-After, and the first
//! successes of each host for the attribution baseline). The sink interns the hashes into
//! small ids; from then on the analyses see only [`Event`]s.

use crate::detect::logical::{idempotency_key, is_write, operation_url_of};
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

/// The start of an event at `t_us` (µs; [`Event::UNTIMED`]: none) and `t_ns` (0..1000 ns):
/// [`Event::started`], and that of a kept row, which holds these two fields only.
pub fn started_at(t_us: i64, t_ns: u16) -> Option<DateTime<Utc>> {
    if t_us == Event::UNTIMED {
        return None;
    }
    let t = DateTime::from_timestamp_micros(t_us)?;
    Some(match t_ns {
        0 => t,
        ns => t + chrono::Duration::nanoseconds(ns as i64),
    })
}

/// [`Event::started`] for events in time order: the calendar date of the last day seen is
/// kept (most events share it), the rest is chrono's own construction, so the result is the same.
#[derive(Debug, Default)]
pub struct Starts {
    /// The day (since the Unix epoch) of `date`, and its date (`None`: out of chrono's range).
    day: Option<(i64, Option<chrono::NaiveDate>)>,
}

impl Starts {
    pub fn of(&mut self, ev: &Event) -> Option<DateTime<Utc>> {
        if !ev.timed() {
            return None;
        }
        // As `DateTime::from_timestamp_micros`, then `from_timestamp`.
        let secs = ev.t_us.div_euclid(1_000_000);
        let nsecs = ev.t_us.rem_euclid(1_000_000) as u32 * 1000;
        let day = secs.div_euclid(86_400);
        let date = match self.day {
            Some((d, date)) if d == day => date,
            _ => {
                let days = day + 719_163;
                let date = if days < i32::MIN as i64 || days > i32::MAX as i64 {
                    None
                } else {
                    chrono::NaiveDate::from_num_days_from_ce_opt(days as i32)
                };
                self.day = Some((day, date));
                date
            }
        }?;
        let time = chrono::NaiveTime::from_num_seconds_from_midnight_opt(
            secs.rem_euclid(86_400) as u32,
            nsecs,
        )?;
        let t = date.and_time(time).and_utc();
        Some(match ev.t_ns {
            0 => t,
            ns => t + chrono::Duration::nanoseconds(ns as i64),
        })
    }
}

pub mod pack;

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
        started_at(self.t_us, self.t_ns)
    }

    /// An event at `t_us` (tests).
    #[cfg(test)]
    pub fn at(t_us: i64, t_ns: u16) -> Event {
        Event {
            t_us,
            t_ns,
            ..Event::decode(&[0u8; EVENT_BYTES])
        }
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
pub fn hasher() -> foldhash::fast::FoldHasher<'static> {
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

/// [`ClientKey`] borrowed from the record: the same variants and fields in the same order, so
/// it hashes exactly as the owned key does (a `&str` hashes as its `String`), and the owned key
/// is only built the first time a client is met.
#[derive(Hash)]
enum ClientKeyRef<'a> {
    Named(&'a str),
    Hints {
        user_agent: Option<&'a str>,
        client_ip: Option<&'a str>,
        pageref: Option<&'a str>,
        origin: Option<&'a str>,
    },
}

impl<'a> ClientKeyRef<'a> {
    /// The rule of [`ClientKey::of`].
    #[cfg(test)]
    fn of(r: &'a Request) -> ClientKeyRef<'a> {
        ClientKeyRef::of_view(&RecordView::of(r))
    }

    /// The rule of [`ClientKey::of`], over a view.
    fn of_view(v: &RecordView<'a>) -> ClientKeyRef<'a> {
        match v.client.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => ClientKeyRef::Named(c),
            None => ClientKeyRef::Hints {
                user_agent: v.user_agent,
                client_ip: v.client_ip,
                pageref: v.pageref,
                origin: if v.pageref.is_some() { None } else { v.origin },
            },
        }
    }

    fn to_owned(&self) -> ClientKey {
        match *self {
            ClientKeyRef::Named(c) => ClientKey::Named(c.to_string()),
            ClientKeyRef::Hints {
                user_agent,
                client_ip,
                pageref,
                origin,
            } => ClientKey::Hints {
                user_agent: user_agent.map(str::to_string),
                client_ip: client_ip.map(str::to_string),
                pageref: pageref.map(str::to_string),
                origin: origin.map(str::to_string),
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

impl Kept {
    /// Why the full record of `ev` travels with it, when it does: the event says (rate-limited,
    /// else a failure, else a baseline success), so [`Mapped`] need not hold it (see
    /// [`HeaderLimit`] on its size).
    pub fn of(ev: &Event) -> Kept {
        if ev.limited() {
            Kept::Limited
        } else if is_failure(ev.status) {
            Kept::Failure
        } else {
            Kept::Baseline
        }
    }
}

/// What a worker hands the sink for one request.
#[derive(Debug)]
pub struct Mapped {
    pub ev: Event,
    pub keys: Keys,
    pub names: Option<Box<Names>>,
    /// The full record, when it travels with the event (why: [`Kept::of`] the event).
    pub kept: Option<Box<Request>>,
    /// Rate-limit headers' (limit × 1000, window × 1000), when stated with both.
    pub header_limit: HeaderLimit,
}

/// [`Mapped::header_limit`]: an `Option<(u64, u64)>` in 16 bytes instead of 24, so that a
/// `Mapped` fits 128 bytes (with `kept` a bare box, its reason read off the event). It is moved through several returns per line (view, hint, the
/// reader's item), and at 144 bytes each move was a `memcpy` call (~2 % of the CPU of a large
/// log); at 128 the compiler moves it inline. A stated limit is below 1e15 (see
/// `parse_stated_limit`), so `u64::MAX` is free to mean none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderLimit(u64, u64);

impl HeaderLimit {
    pub const NONE: HeaderLimit = HeaderLimit(u64::MAX, 0);

    pub fn get(self) -> Option<(u64, u64)> {
        (self.0 != u64::MAX).then_some((self.0, self.1))
    }
}

impl From<Option<(u64, u64)>> for HeaderLimit {
    fn from(l: Option<(u64, u64)>) -> HeaderLimit {
        match l {
            Some((limit, window)) => {
                debug_assert!(limit != u64::MAX, "a stated limit is below 1e15");
                HeaderLimit(limit.min(u64::MAX - 1), window)
            }
            None => HeaderLimit::NONE,
        }
    }
}

/// Where a record stands in the attribution baseline's order: untimed records after every
/// timed one, then the merged time order ([`Event::order_key`]; the untimed by input and
/// position). The baseline of a host is its earliest [`BASELINE_MAX`] successes by this key.
///
/// [`BASELINE_MAX`]: crate::attribute::engine::BASELINE_MAX
pub type SampleKey = (bool, (i64, u16, u16, u64));

/// [`SampleKey`] of a record from its start (`t_us`, `t_ns`; [`Event::UNTIMED`] when unknown)
/// and packed location: the one function the sink and the workers both key samples with.
pub fn sample_key(t_us: i64, t_ns: u16, loc: u64, ranks: &[u16]) -> SampleKey {
    let input = (loc >> 48) as usize;
    let rank = ranks.get(input).copied().unwrap_or(u16::MAX);
    let position = loc & POSITION_MASK;
    if t_us == Event::UNTIMED {
        (true, (i64::MAX, 0, rank, position))
    } else {
        (false, (t_us, t_ns, rank, position))
    }
}

/// State shared by the workers of one analysis: which keys' strings were already sent, and,
/// per host, the latest of its baseline samples once it holds all it keeps.
///
/// A success later (by [`SampleKey`]) than a host's full set of samples can never enter its
/// baseline, whatever comes after it: workers send the full record of a success only when no
/// bound is known for its host or the success is earlier than the bound. The sink lowers the
/// bound as earlier samples replace later ones, so a worker reading a stale (higher) bound only
/// sends a record that is not needed. This holds for any input order, any number of inputs and
/// threads: the baseline is exactly the host's earliest successes, and in a time-ordered input
/// every success after the host's first [`BASELINE_MAX`] takes the view path.
///
/// [`BASELINE_MAX`]: crate::attribute::engine::BASELINE_MAX
#[derive(Default)]
pub struct Shared {
    sent: [Mutex<std::collections::HashSet<u64, foldhash::fast::FixedState>>; 16],
    /// Host hash → the latest sample of its full baseline.
    baseline_bound: RwLock<std::collections::HashMap<u64, SampleKey, foldhash::fast::FixedState>>,
    /// Input ranks by name ([`crate::analyze::order::ranks`]), set once by the sink.
    ranks: std::sync::OnceLock<Vec<u16>>,
    /// Tells this analysis's per-thread memory of sent keys from another's ([`Shared::first`]).
    local: LocalId,
    /// Bumped after every change of `baseline_bound`: a thread's copy of a host's bound read
    /// at the current version is the bound ([`Shared::bound`]).
    bound_version: std::sync::atomic::AtomicU64,
}

/// A number no other [`Shared`] of this process has.
struct LocalId(u64);

impl Default for LocalId {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        LocalId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// Keys one thread knows were sent, for the [`Shared`] numbered `owner`. A key once sent stays
/// sent, so a thread that offered it once answers "not first" again without the lock: a log
/// repeats its host and clients on millions of lines, and a lock per key per line was
/// contended. Bounded: past [`SentHere::MAX`] keys it starts over (only a shortcut; the locked
/// sets stay the truth).
struct SentHere {
    owner: u64,
    /// The last key offered at each slot (by its low bits; 0 = none, no key hashes to 0):
    /// answers the repeated keys of every line with one compare, before the set.
    recent: Box<[u64]>,
    keys: std::collections::HashSet<u64, foldhash::fast::FixedState>,
}

impl Default for SentHere {
    fn default() -> Self {
        SentHere {
            owner: 0,
            recent: vec![0; SentHere::RECENT].into_boxed_slice(),
            keys: Default::default(),
        }
    }
}

impl SentHere {
    const MAX: usize = 1 << 16;
    /// Slots of `recent` (a power of two).
    const RECENT: usize = 1 << 10;

    fn slot(h: u64) -> usize {
        h as usize & (SentHere::RECENT - 1)
    }
}

/// Host bounds one thread read, each with the [`Shared::bound_version`] it was read at, for the
/// [`Shared`] numbered `owner`: workers ask for a host's bound on every record, and a read lock
/// per record made the two workers write the lock's one cache line in turn.
#[derive(Default)]
struct BoundsHere {
    owner: u64,
    /// The last answer for a few hosts (slot by the hash's low bits): a log names one or a
    /// few hosts, asked for on every record, so the map is seldom reached.
    recent: [Option<(u64, u64, Option<SampleKey>)>; 8],
    hosts: std::collections::HashMap<u64, (u64, Option<SampleKey>), foldhash::fast::FixedState>,
}

impl BoundsHere {
    const MAX: usize = 1 << 12;
}

thread_local! {
    static SENT_HERE: std::cell::RefCell<SentHere> = std::cell::RefCell::default();
    static BOUNDS_HERE: std::cell::RefCell<BoundsHere> = std::cell::RefCell::default();
}

impl Shared {
    /// True the first time `h` is offered (so exactly one event carries its string).
    fn first(&self, h: u64) -> bool {
        SENT_HERE.with(|here| {
            let mut here = here.borrow_mut();
            if here.owner != self.local.0 {
                here.keys.clear();
                here.recent.fill(0);
                here.owner = self.local.0;
            }
            let slot = SentHere::slot(h);
            if here.recent[slot] == h && h != 0 {
                return false; // offered here just before: it is in `sent`
            }
            if here.keys.contains(&h) {
                here.recent[slot] = h;
                return false; // this thread offered it before: it is in `sent`
            }
            let shard = &self.sent[(h >> 60) as usize & 15];
            let first = match shard.lock() {
                Ok(mut s) => s.insert(h),
                Err(p) => p.into_inner().insert(h),
            };
            if here.keys.len() >= SentHere::MAX {
                here.keys.clear();
            }
            here.keys.insert(h);
            here.recent[slot] = h;
            first
        })
    }

    /// The input ranks the sink orders by (the first call wins; the sink makes it).
    pub fn set_ranks(&self, ranks: Vec<u16>) {
        let _ = self.ranks.set(ranks);
    }

    fn ranks(&self) -> &[u16] {
        self.ranks.get().map(Vec::as_slice).unwrap_or(&[])
    }

    /// The host (hash) holds all the baseline samples it keeps, the latest at `bound`: only
    /// successes earlier than it are wanted from now on.
    pub fn baseline_bound(&self, host: u64, bound: SampleKey) {
        match self.baseline_bound.write() {
            Ok(mut s) => s.insert(host, bound),
            Err(p) => p.into_inner().insert(host, bound),
        };
        self.bound_version
            .fetch_add(1, std::sync::atomic::Ordering::Release);
    }

    /// The bound of `host`'s baseline, if it is full. A thread answers from its own copy while
    /// no bound changed since it read it (an atomic load, no write); a change in between only
    /// makes the answer the one just before that change, which is as good as a read then: a
    /// stale bound is higher (or none), so it only sends a record that is not needed.
    fn bound(&self, host: u64) -> Option<SampleKey> {
        let version = self
            .bound_version
            .load(std::sync::atomic::Ordering::Acquire);
        BOUNDS_HERE.with(|here| {
            let mut here = here.borrow_mut();
            if here.owner != self.local.0 {
                here.hosts.clear();
                here.recent = Default::default();
                here.owner = self.local.0;
            }
            let slot = host as usize & (here.recent.len() - 1);
            if let Some((h, v, b)) = here.recent[slot] {
                if h == host && v == version {
                    return b;
                }
            }
            if let Some(&(v, b)) = here.hosts.get(&host) {
                if v == version {
                    here.recent[slot] = Some((host, v, b));
                    return b;
                }
            }
            let b = match self.baseline_bound.read() {
                Ok(s) => s.get(&host).copied(),
                Err(p) => p.into_inner().get(&host).copied(),
            };
            if here.hosts.len() >= BoundsHere::MAX {
                here.hosts.clear();
            }
            here.hosts.insert(host, (version, b));
            here.recent[slot] = Some((host, version, b));
            b
        })
    }

    /// A success of `host` at `key` may enter its baseline: send its full record.
    fn wants_sample(&self, host: u64, key: SampleKey) -> bool {
        self.bound(host).is_none_or(|b| key < b)
    }
}

/// Status classes that make a following attempt a retry.
pub fn is_failure(status: u16) -> bool {
    status == 0 || status == 408 || status == 429 || status >= 500
}

/// A path with resource ids replaced by `{id}` (segments holding a digit, except `v1`-style
/// versions), so one endpoint's operations are counted together.
pub fn path_template(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    push_path_template(path, &mut out);
    out
}

/// [`path_template`] of `path`, appended to `out`.
fn push_path_template(path: &str, out: &mut String) {
    for (i, seg) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        let version =
            seg.len() <= 3 && seg.starts_with('v') && seg[1..].bytes().all(|b| b.is_ascii_digit());
        out.push_str(if !version && seg.bytes().any(|b| b.is_ascii_digit()) {
            "{id}"
        } else {
            seg
        });
    }
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

/// What only a full record can tell: whether the response is rate-limited (the attribution
/// rules read headers, body and layer signals), whether a failure stated a Retry-After, and
/// whether a browser hid that header from the page. Always "no" for a view a parser builds:
/// [`map_view`] takes only records for which all three are known to be no.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Signals {
    limited: bool,
    failure_retry_after: bool,
    ra_hidden: bool,
}

impl Signals {
    fn of(r: &Request) -> Signals {
        let failure = is_failure(r.status);
        Signals {
            limited: crate::attribute::is_rate_limited(r),
            failure_retry_after: failure
                && retry_after::from_headers(&r.response_headers, r.started).kind != Kind::Absent,
            ra_hidden: failure && hidden_from_page(r),
        }
    }
}

/// Everything [`map`] reads of a record, borrowed: what a parser fills in to get the event of a
/// record without building its [`Request`] (see [`map_view`] for when that is allowed).
///
/// Every string is what the [`Request`] would hold: redacted, cut and normalized exactly as the
/// parser would have put it there (the view of a parser's record must equal
/// `RecordView::of(&that_request)`; each parser tests that). Credentials, request bodies and
/// idempotency keys appear only as the record holds them (fingerprints, redacted values).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordView<'a> {
    pub position: crate::model::Position,
    pub started: Option<DateTime<Utc>>,
    pub duration_ms: Option<f64>,
    pub status: u16,
    /// [`Request::method`].
    pub method: &'a str,
    /// [`Request::url`]: the redacted URL.
    pub url: &'a str,
    /// [`crate::model::ClientHints::client`], untrimmed.
    pub client: Option<&'a str>,
    /// [`Request::user_agent`]: the `User-Agent` header when non-empty, else the log's field.
    pub user_agent: Option<&'a str>,
    pub client_ip: Option<&'a str>,
    pub pageref: Option<&'a str>,
    /// [`crate::model::ClientHints::origin`].
    pub origin: Option<&'a str>,
    /// [`Request::credential`] (a fingerprint).
    pub credential: Option<&'a str>,
    /// The hash of the request's idempotency key ([`idem_of`]); 0 when it carried none.
    pub idem: u32,
    /// The idempotency key is really the credential: the redacted key holds the credential's
    /// fingerprint (a client sending its API key in `Idempotency-Key`).
    pub idem_is_credential: bool,
    /// [`Request::request_body_fingerprint`].
    pub body_fingerprint: Option<&'a str>,
    /// [`stated_limit`] of the (redacted, cut) response headers.
    pub header_limit: Option<(u64, u64)>,
    /// The record has a [`Request::layer_signal`] (access logs): only the full path reads it.
    pub layer_signal: bool,
    /// `Signals::default()` in a parser's view.
    pub signals: Signals,
}

impl<'a> RecordView<'a> {
    /// The view of a full record (what [`map`] reads).
    pub fn of(r: &'a Request) -> RecordView<'a> {
        let h = &r.client;
        RecordView {
            position: r.location.position,
            started: r.started,
            duration_ms: r.duration_ms,
            status: r.status,
            method: &r.method,
            url: &r.url,
            client: h.client.as_deref(),
            user_agent: r.user_agent(),
            client_ip: h.client_ip.as_deref(),
            pageref: h.pageref.as_deref(),
            origin: h.origin.as_deref(),
            credential: r.credential.as_deref(),
            idem: idem_of(r),
            idem_is_credential: match (r.credential.as_deref(), idempotency_key(&r.request_headers))
            {
                (Some(c), Some((_, i))) => holds(i, c),
                _ => false,
            },
            body_fingerprint: r.request_body_fingerprint.as_deref(),
            header_limit: stated_limit(&r.response_headers, r.started),
            layer_signal: r.layer_signal.is_some(),
            signals: Signals::of(r),
        }
    }
}

/// The hash retries compare idempotency keys by: the one its ingester took of the raw key
/// ([`Request::idem_hash`]), else (a record no ingester made) one of the redacted key.
pub fn idem_of(r: &Request) -> u32 {
    if r.idem_hash != 0 {
        return r.idem_hash;
    }
    idempotency_key(&r.request_headers)
        .map(|(_, v)| (hash_of(0, v) as u32).max(1))
        .unwrap_or(0)
}

/// Whether a record with this status (and no layer signal) can go through [`map_view`]: a
/// 2xx/3xx the attribution rules can never call rate-limited (202 can be, by AWS WAF's
/// `x-amzn-waf-action`), which is no failure either. Parsers check this first and build the
/// full record for everything else. A test holds it to `attribute::is_rate_limited`.
pub fn view_suffices(status: u16, layer_signal: bool) -> bool {
    (200..400).contains(&status) && status != 202 && !layer_signal
}

/// Request header names a [`RecordView`] reads (`User-Agent`; `X-Forwarded-For`, `Origin` and
/// `Referer` for the client hints; idempotency keys): a parser taking the view path needs to
/// redact and keep only these (and fingerprint the credential from the raw headers).
pub fn is_view_request_header(name: &str) -> bool {
    ["user-agent", "x-forwarded-for", "origin", "referer"]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
        || crate::http::idempotency::is_idempotency_header(name)
}

/// Response header names [`stated_limit`] reads (every rate-limit family's name holds
/// "limit"): a parser taking the view path needs to redact and keep only these.
pub fn is_limit_header(name: &str) -> bool {
    limit_and_reset(name).0
}

/// Whether a header name holds "limit" and whether it holds "reset" (any case), in one pass
/// over its bytes: [`stated_limit`] asks both of every response header. `b | 0x20` folds
/// exactly the ASCII letters it is compared with, as `eq_ignore_ascii_case` does.
///
/// Only a window that starts with an `l` or an `r` is compared, and those starts are found
/// eight bytes at a time; [`stated_limit`] also remembers the answer per name. Folding and
/// comparing every window of every name was most of what a remembered stated limit cost.
fn limit_and_reset(name: &str) -> (bool, bool) {
    const fn splat(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }
    // High bit of each zero byte (and perhaps of bytes above one: a candidate is checked).
    let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & splat(0x80);
    let b = name.as_bytes();
    let (mut limit, mut reset) = (false, false);
    let folded = |at: usize, word: &[u8; 5]| (1..5).all(|i| b[at + i] | 0x20 == word[i]);
    let starts = b.len().saturating_sub(4);
    let mut check = |at: usize| match b[at] | 0x20 {
        b'l' => limit = limit || folded(at, b"limit"),
        b'r' => reset = reset || folded(at, b"reset"),
        _ => {}
    };
    let mut base = 0;
    while base + 8 <= b.len() {
        let word: [u8; 8] = b[base..base + 8].try_into().unwrap_or_default();
        let v = u64::from_le_bytes(word) | splat(0x20);
        let mut hits = zero(v ^ splat(b'l')) | zero(v ^ splat(b'r'));
        while hits != 0 {
            let at = base + (hits.trailing_zeros() / 8) as usize;
            hits &= hits - 1;
            if at < starts {
                check(at);
            }
        }
        base += 8;
    }
    for at in base..starts {
        check(at);
    }
    (limit, reset)
}

/// Distinct rate-limit header sets whose stated limit one thread remembers (then it starts over).
const STATED_LIMIT_CACHE: usize = 4096;

/// Stated limits by the text of the limit headers (names and values), and the key buffer.
type StatedLimits = (
    std::collections::HashMap<Box<str>, Option<(u64, u64)>, foldhash::fast::FixedState>,
    String,
    crate::http::name_memo::NameMemo<(bool, bool)>,
);

thread_local! {
    static STATED_LIMITS: std::cell::RefCell<StatedLimits> = Default::default();
}

/// The (limit × 1000, window × 1000) the rate-limit headers state, when they state both.
///
/// Only the [`is_limit_header`] names are read (a test holds that to `ratelimit::parse_all`),
/// and the result is remembered per distinct set of them: a service sends the same few limit
/// headers on every response, with a count that cycles. A set with a `reset` field is parsed
/// every time, since an epoch reset is read against the record's time.
pub fn stated_limit(
    h: &crate::model::Headers,
    started: Option<DateTime<Utc>>,
) -> Option<(u64, u64)> {
    // No response header, no stated limit (most access-log lines log none).
    if h.is_empty() {
        return None;
    }
    // Ok(Some(limit)): known; Ok(None): parse and remember under the key; Err: parse only.
    let remembered: Result<Option<Option<(u64, u64)>>, ()> = STATED_LIMITS.with(|c| {
        let (cache, key, names) = &mut *c.borrow_mut();
        key.clear();
        for (n, v) in h.iter() {
            let (limit, reset) = names.get(n, limit_and_reset);
            if !limit {
                continue;
            }
            if reset {
                return Err(());
            }
            key.push_str(n);
            key.push('\0');
            key.push_str(v);
            key.push('\0');
        }
        if key.is_empty() {
            return Ok(Some(None));
        }
        Ok(cache.get(key.as_str()).copied())
    });
    match remembered {
        Ok(Some(known)) => known,
        Ok(None) => {
            let l = parse_stated_limit(h, started);
            STATED_LIMITS.with(|c| {
                let (cache, key, _) = &mut *c.borrow_mut();
                if cache.len() >= STATED_LIMIT_CACHE {
                    cache.clear();
                }
                cache.insert(key.as_str().into(), l);
            });
            l
        }
        Err(()) => parse_stated_limit(h, started),
    }
}

/// Whether [`stated_limit`] of `h` depends on the record's time as well as on `h` (a limit
/// header that names a reset: an epoch reset is read against the time). The same rule as the
/// memory inside `stated_limit`, for callers that remember its answers.
pub fn stated_limit_reads_time(h: &crate::model::Headers) -> bool {
    h.iter().any(|(n, _)| limit_and_reset(n) == (true, true))
}

fn parse_stated_limit(
    h: &crate::model::Headers,
    started: Option<DateTime<Utc>>,
) -> Option<(u64, u64)> {
    crate::http::ratelimit::parse(h, started).and_then(|l| match (l.limit, l.window_seconds) {
        (Some(c), Some(w))
            if c.is_finite() && w.is_finite() && c > 0.0 && w > 0.0 && c < 1e12 && w < 1e9 =>
        {
            Some(((c * 1000.0) as u64, (w * 1000.0) as u64))
        }
        _ => None,
    })
}

/// The host of a URL as the analyses key it: lower-cased (borrowed when it already is).
fn host_of(url: &str) -> std::borrow::Cow<'_, str> {
    let h = crate::http::url::host(url);
    if h.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(h.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(h)
    }
}

/// Turn one request into its event (on a worker thread). `input` numbers the input.
pub fn map(r: Request, input: u16, shared: &Shared) -> Mapped {
    let (mut m, kept) = {
        let v = RecordView::of(&r);
        let host = hash_of(KeyKind::Host as u8, &*host_of(v.url));
        let baseline = (200..400).contains(&v.status)
            && shared.wants_sample(host, view_sample_key(&v, input, shared.ranks()));
        event_of(&v, host, input, shared, baseline)
    };
    if let Some(k) = kept {
        debug_assert_eq!(Kept::of(&m.ev), k);
        m.kept = Some(Box::new(r));
    }
    m
}

/// The pre-check of [`map_view`] a parser can make before it builds the view (from the status,
/// whether it has a layer signal, and the redacted URL): `false` when `map_view` would decline
/// whatever the record's time (its host's baseline is not full yet). `map_view` may still
/// decline a success earlier than the host's latest sample (an input out of time order).
pub fn may_map_view(status: u16, layer_signal: bool, url: &str, shared: &Shared) -> bool {
    may_map_view_hinted(status, layer_signal, url, shared).is_some()
}

/// What [`may_map_view_hinted`] learned of a record, for [`map_view_hinted`] on the same record:
/// its host's hash and that host's bound, so the URL's host is found, hashed and looked up once.
/// `ViewHint::default()` knows nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewHint {
    /// 0: unknown.
    host: u64,
    bound: Option<SampleKey>,
}

/// [`may_map_view`], with what it learned: `None` where it says `false`.
pub fn may_map_view_hinted(
    status: u16,
    layer_signal: bool,
    url: &str,
    shared: &Shared,
) -> Option<ViewHint> {
    if !view_suffices(status, layer_signal) {
        return None;
    }
    let host = hash_of(KeyKind::Host as u8, &*host_of(url));
    let bound = shared.bound(host)?;
    Some(ViewHint {
        host,
        bound: Some(bound),
    })
}

/// The record's start as the event holds it: microseconds, the nanoseconds under them, and
/// whether it fell on a whole second.
fn start_of(started: Option<DateTime<Utc>>) -> (i64, u16, bool) {
    match started {
        Some(t) => (
            t.timestamp_micros(),
            (t.timestamp_subsec_nanos() % 1000) as u16,
            t.timestamp_subsec_millis() == 0,
        ),
        None => (Event::UNTIMED, 0, false),
    }
}

/// The entry or line number of a position, and whether it is a line.
fn position_of(p: crate::model::Position) -> (usize, bool) {
    match p {
        crate::model::Position::Entry(i) => (i, false),
        crate::model::Position::Line(i) => (i, true),
    }
}

/// The [`SampleKey`] the sink will give the event of `v`.
fn view_sample_key(v: &RecordView<'_>, input: u16, ranks: &[u16]) -> SampleKey {
    let (t_us, t_ns, _) = start_of(v.started);
    sample_key(
        t_us,
        t_ns,
        pack_loc(input, position_of(v.position).0),
        ranks,
    )
}

/// The event of a record straight from its view, without its [`Request`]: `None` when the full
/// record must travel with the event (its status fails [`view_suffices`], it has a layer signal,
/// or its host still wants baseline samples). Then the parser builds the `Request` and calls
/// [`map`]. Nothing is recorded in `shared` when it returns `None`, so the retry is exact.
pub fn map_view(v: &RecordView<'_>, input: u16, shared: &Shared) -> Option<Mapped> {
    map_view_hinted(v, input, shared, ViewHint::default())
}

/// [`map_view`], given the hint [`may_map_view_hinted`] returned for this record's status and
/// URL (or `ViewHint::default()`). The hint's bound was read a moment earlier than `map_view`
/// would read it; a bound only falls, so an earlier read is a higher (or no) bound, which only
/// sends a record that is not needed (see [`Shared`]).
pub fn map_view_hinted(
    v: &RecordView<'_>,
    input: u16,
    shared: &Shared,
    hint: ViewHint,
) -> Option<Mapped> {
    if !view_suffices(v.status, v.layer_signal) || v.signals != Signals::default() {
        return None;
    }
    let (host, bound) = if hint.host != 0 {
        (hint.host, hint.bound)
    } else {
        let host = hash_of(KeyKind::Host as u8, &*host_of(v.url));
        (host, shared.bound(host))
    };
    // A view is a success (`view_suffices`): it declines while the success may still be one
    // of the host's baseline samples.
    let key = view_sample_key(v, input, shared.ranks());
    if bound.is_none_or(|b| key < b) {
        return None;
    }
    let (m, kept) = event_of(v, host, input, shared, false);
    debug_assert!(kept.is_none());
    Some(m)
}

thread_local! {
    /// The operation URL of the event being mapped (reused: no String per event).
    static OP_URL: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// [`op_prefix`]'s recent answers: (client hash, the hasher after the client key), slot by
    /// the hash's low bits.
    static OP_PREFIX: std::cell::RefCell<Vec<Option<(u64, foldhash::fast::FoldHasher<'static>)>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Slots of `OP_PREFIX` (a power of two).
const OP_PREFIX_SLOTS: usize = 1 << 10;

/// The operation hasher after the client key (`hasher()` fed `key`), whose hash `client` is:
/// the key is hashed once per record, for its id, and a client's prefix state is reused. The
/// client hash already names the client everywhere (the sink interns it as the client's id),
/// so reusing the state by it merges nothing the ids do not.
fn op_prefix(client: u64, key: &ClientKeyRef<'_>) -> foldhash::fast::FoldHasher<'static> {
    OP_PREFIX.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_empty() {
            c.resize(OP_PREFIX_SLOTS, None);
        }
        let slot = client as usize & (OP_PREFIX_SLOTS - 1);
        if let Some((h, state)) = &c[slot] {
            if *h == client {
                return state.clone();
            }
        }
        let mut hh = hasher();
        key.hash(&mut hh);
        c[slot] = Some((client, hh.clone()));
        hh
    })
}

/// The event, hashes and first-seen names of a view; the reason to keep the full record, if
/// any (`baseline`: the host wants samples and this is a success).
/// `haystack.contains(needle)`, for the 8-byte credential fingerprint inside a short
/// idempotency token without the general substring search (a per-request cost).
pub(crate) fn holds(haystack: &str, needle: &str) -> bool {
    match <[u8; 8]>::try_from(needle.as_bytes()) {
        Ok(n) if haystack.len() <= 64 => {
            let n = u64::from_ne_bytes(n);
            haystack
                .as_bytes()
                .windows(8)
                .any(|w| u64::from_ne_bytes(w.try_into().unwrap_or_default()) == n)
        }
        _ => haystack.contains(needle),
    }
}

fn event_of(
    v: &RecordView<'_>,
    host: u64,
    input: u16,
    shared: &Shared,
    baseline: bool,
) -> (Mapped, Option<Kept>) {
    let (position, line) = position_of(v.position);
    let limited = v.signals.limited;
    let method_upper: std::borrow::Cow<str> = if v.method.bytes().any(|b| b.is_ascii_lowercase()) {
        std::borrow::Cow::Owned(v.method.to_ascii_uppercase())
    } else {
        std::borrow::Cow::Borrowed(v.method)
    };
    let method = Method::of(&method_upper);
    let mut flags = (method as u16) << flag::METHOD_SHIFT;
    if line {
        flags |= flag::POS_LINE;
    }
    if limited {
        flags |= flag::LIMITED;
    }
    let (t_us, t_ns, whole_second) = start_of(v.started);
    if whole_second {
        flags |= flag::WHOLE_SECOND;
    }
    for (bit, present) in [
        (flag::HINT_CLIENT, v.client.is_some()),
        (flag::HINT_UA, v.user_agent.is_some()),
        (flag::HINT_IP, v.client_ip.is_some()),
        (flag::HINT_PAGE, v.pageref.is_some()),
        (flag::HINT_ORIGIN, v.origin.is_some()),
    ] {
        if present {
            flags |= bit;
        }
    }
    let url = crate::http::url::split(v.url);
    if method == Method::Post && ends_with_graphql(url.path) {
        flags |= flag::GRAPHQL;
    }

    let mut names = Names::default();
    if shared.first(host) {
        names.host = Some(host_of(v.url).into_owned());
    }
    let client_key = ClientKeyRef::of_view(v);
    let client = hash_of(KeyKind::Client as u8, &client_key);
    let cred = match v.credential {
        Some(c) => {
            let h = hash_of(KeyKind::Cred as u8, c);
            if shared.first(h) {
                names.cred = Some(c.to_string());
            }
            h
        }
        None => 0,
    };
    let write = is_write(&method_upper);
    let endpoint = if write {
        // `METHOD /path/{id}`, built in the thread's buffer: a String only for its first event.
        OP_URL.with(|b| {
            let mut e = b.borrow_mut();
            e.clear();
            e.push_str(&method_upper);
            e.push(' ');
            push_path_template(url.path, &mut e);
            let h = hash_of(KeyKind::Endpoint as u8, e.as_str());
            if shared.first(h) {
                names.endpoint = Some(e.as_str().to_string());
            }
            h
        })
    } else {
        0
    };

    // The logical operation: client, credential (unless it is really the idempotency key),
    // method, URL less volatile parameters, body for writes. Idempotency keys are not part of
    // it (a new key per attempt still retries one operation).
    let op_cred = if v.idem_is_credential {
        None
    } else {
        v.credential
    };
    let op = {
        let mut hh = op_prefix(client, &client_key);
        op_cred.hash(&mut hh);
        (*method_upper).hash(&mut hh);
        // The URL was split above; one buffer per thread holds its operation form.
        OP_URL.with(|b| {
            let mut b = b.borrow_mut();
            operation_url_of(&url, &mut b);
            b.as_str().hash(&mut hh);
        });
        if write {
            v.body_fingerprint.hash(&mut hh);
        }
        hh.finish()
    };
    let idem = v.idem;
    if shared.first(client) {
        names.client = Some(client_key.to_owned());
    }

    if v.signals.ra_hidden {
        flags |= flag::RA_HIDDEN;
    }
    let ev = Event {
        t_us,
        dur_ms: v.duration_ms.unwrap_or(f64::NAN),
        op,
        loc: pack_loc(input, position),
        host: NONE,
        client: NONE,
        cred: NONE,
        endpoint: NONE,
        detail: NONE,
        idem,
        status: v.status,
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
    } else if v.signals.failure_retry_after {
        Some(Kept::Failure)
    } else if baseline {
        Some(Kept::Baseline)
    } else {
        None
    };
    let has_names = names.host.is_some()
        || names.client.is_some()
        || names.cred.is_some()
        || names.endpoint.is_some();
    (
        Mapped {
            ev,
            keys,
            names: has_names.then(|| Box::new(names)),
            kept: None,
            header_limit: v.header_limit.into(),
        },
        kept,
    )
}

/// A path ending in `graphql` (ASCII case-insensitive, trailing slashes ignored).
fn ends_with_graphql(path: &str) -> bool {
    let p = path.trim_end_matches('/').as_bytes();
    p.len() >= 7 && p[p.len() - 7..].eq_ignore_ascii_case(b"graphql")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_borrowed_client_key_hashes_as_the_owned_one() {
        let mut reqs = Vec::new();
        for (client, ua, ip, page, origin) in [
            (None, None, None, None, None),
            (Some("svc-a"), Some("curl/8"), None, None, None),
            (
                Some("  "),
                Some("curl/8"),
                Some("10.0.0.1"),
                None,
                Some("https://o"),
            ),
            (
                None,
                None,
                Some("10.0.0.1"),
                Some("page_1"),
                Some("https://o"),
            ),
            (None, Some(""), None, None, Some("https://o")),
        ] {
            let mut r = Request::at(crate::model::Location {
                source: std::sync::Arc::from("t"),
                position: crate::model::Position::Line(1),
            });
            r.client.client = client.map(str::to_string);
            r.client.user_agent = ua.map(str::to_string);
            r.client.client_ip = ip.map(str::to_string);
            r.client.pageref = page.map(str::to_string);
            r.client.origin = origin.map(str::to_string);
            reqs.push(r);
        }
        for r in &reqs {
            let owned = ClientKey::of(r);
            let borrowed = ClientKeyRef::of(r);
            assert_eq!(borrowed.to_owned(), owned);
            assert_eq!(
                hash_of(KeyKind::Client as u8, &borrowed),
                hash_of(KeyKind::Client as u8, &owned)
            );
        }
    }

    /// Every header and body wording any attribution rule reads, on one response.
    fn loud_request(status: u16) -> Request {
        let mut r = Request::at(crate::model::Location {
            source: std::sync::Arc::from("t"),
            position: crate::model::Position::Line(1),
        });
        r.status = status;
        r.method = "GET".into();
        r.url = "https://api.example.com/v1/x".into();
        r.request_headers = crate::model::Headers::from_pairs([("Origin", "https://app")]);
        r.response_headers = crate::model::Headers::from_pairs([
            ("Retry-After", "5"),
            ("Retry-After-Ms", "5000"),
            ("x-ms-retry-after-ms", "5000"),
            ("x-envoy-ratelimited", "true"),
            ("x-retry-in", "5s"),
            (
                "x-amzn-ErrorType",
                "ThrottlingException:TooManyRequestsException",
            ),
            ("x-ratelimit-limit", "10"),
            ("x-ratelimit-remaining", "0"),
            ("RateLimit", "limit=10, remaining=0, reset=5"),
            ("x-mbx-used-weight", "1200"),
            ("x-amzn-waf-action", "captcha"),
        ]);
        r.body_excerpt = Some(
            "Rate limit exceeded, too many requests, quota, throttled, slowdown, \
             <center>nginx</center> policies.ratelimit {\"__type\":\"ThrottlingException\"}"
                .into(),
        );
        r
    }

    #[test]
    fn the_view_rule_holds_to_the_attribution_rules() {
        let mut took_view = 0;
        for status in 0..1000u16 {
            let r = loud_request(status);
            if view_suffices(status, false) {
                took_view += 1;
                assert!(
                    !crate::attribute::is_rate_limited(&r),
                    "status {status}: is_rate_limited can say yes, so view_suffices must say no"
                );
                assert!(!is_failure(status));
                assert_eq!(Signals::of(&r), Signals::default(), "status {status}");
            }
            assert!(!view_suffices(status, true));
        }
        assert_eq!(took_view, 199);
    }

    #[test]
    fn the_limit_headers_are_all_stated_limit_reads() {
        let sets: &[&[(&str, &str)]] = &[
            &[
                ("X-RateLimit-Limit", "120"),
                ("X-RateLimit-Remaining", "5"),
                ("Content-Type", "x"),
            ],
            &[
                ("ratelimit-policy", "100;w=60"),
                ("ratelimit", "limit=100, remaining=4, reset=9"),
            ],
            &[
                ("RateLimit-Limit", "60"),
                ("RateLimit-Remaining", "0"),
                ("RateLimit-Reset", "23"),
            ],
            &[
                ("x-shopify-shop-api-call-limit", "39/40"),
                ("date", "Mon, 01 Jan 2024 00:00:00 GMT"),
            ],
            &[("sforce-limit-info", "api-usage=18/5000")],
            &[("x-rate-limit", "700"), ("x-rate-limit-remaining", "0")],
            &[(
                "zendesk-ratelimit-tickets-index",
                "total=100; remaining=99; resets=10",
            )],
            &[
                ("x-ratelimit-limit-requests", "500"),
                ("x-ratelimit-reset-requests", "120ms"),
            ],
            &[
                ("anthropic-ratelimit-requests-limit", "50"),
                ("retry-after", "3"),
            ],
            &[("x-ms-ratelimit-remaining-subscription-reads", "11999")],
            &[("X-RateLimit-Limit", "10, 10;w=60"), ("Server", "nginx")],
        ];
        let t = chrono::DateTime::from_timestamp(1_704_067_200, 0);
        for set in sets {
            let all = crate::model::Headers::from_pairs(set.iter().copied());
            let named = crate::model::Headers::from_pairs(
                set.iter().copied().filter(|(n, _)| is_limit_header(n)),
            );
            assert_eq!(
                crate::http::ratelimit::parse_all(&all, t),
                crate::http::ratelimit::parse_all(&named, t),
                "{set:?}"
            );
            assert_eq!(stated_limit(&all, t), stated_limit(&named, t));
        }
        assert!(is_limit_header("X-RATELIMIT-LIMIT") && !is_limit_header("retry-after"));
        // Remembered answers are the parsed ones, asked twice and in any order.
        for _ in 0..2 {
            for set in sets.iter().rev() {
                let h = crate::model::Headers::from_pairs(set.iter().copied());
                assert_eq!(stated_limit(&h, t), parse_stated_limit(&h, t), "{set:?}");
            }
        }
    }

    /// [`HeaderLimit`]'s reason to be: a `Mapped` small enough to be moved inline.
    #[test]
    fn mapped_fits_128_bytes_and_header_limits_round_trip() {
        assert!(std::mem::size_of::<Mapped>() <= 128);
        for l in [
            None,
            Some((0, 0)),
            Some((60_000, 60_000)),
            Some((999_999_999_999_000, 1)),
        ] {
            assert_eq!(HeaderLimit::from(l).get(), l);
        }
    }

    fn same_mapped(a: &Mapped, b: &Mapped) -> bool {
        let (mut x, mut y) = ([0u8; EVENT_BYTES], [0u8; EVENT_BYTES]);
        a.ev.encode(&mut x);
        b.ev.encode(&mut y);
        x == y
            && a.keys == b.keys
            && format!("{:?}", a.names) == format!("{:?}", b.names)
            && a.header_limit == b.header_limit
    }

    use proptest::prelude::*;

    proptest! {
        /// `Starts::of` is `Event::started`, in or out of time order, across days and chrono's
        /// range.
        #[test]
        fn starts_are_started(
            ts in proptest::collection::vec(
                (prop_oneof![
                    Just(Event::UNTIMED),
                    Just(i64::MAX),
                    Just(i64::MIN + 1),
                    -100_000_000_000_000i64..100_000_000_000_000,
                    1_714_521_600_000_000i64..1_714_521_600_000_000 + 3 * 86_400_000_000,
                ], prop_oneof![Just(0u16), 0u16..1000]),
                1..40,
            ),
            sorted in any::<bool>(),
        ) {
            let mut ts = ts;
            if sorted {
                ts.sort();
            }
            let mut starts = Starts::default();
            for (t_us, t_ns) in ts {
                let ev = Event::at(t_us, t_ns);
                prop_assert_eq!(starts.of(&ev), ev.started());
            }
        }

        /// `map` and `map_view` give the same event, hashes and names for a record the view
        /// path takes, and `map_view` declines every other record without touching `shared`.
        #[test]
        fn the_view_path_maps_as_the_full_path(
            status in prop_oneof![Just(200u16), Just(202), Just(304), Just(404), Just(429), Just(503), 0u16..600],
            method in prop_oneof![Just("GET"), Just("post"), Just("PUT"), Just("PATCH"), Just("x-odd")],
            host in prop_oneof![Just("api.example.com"), Just("API.Example.com:8443"), Just("")],
            path in "/[a-z0-9/]{0,12}(graphql/?)?",
            client in proptest::option::of(prop_oneof![Just("svc"), Just("  "), Just("")]),
            ua in proptest::option::of(prop_oneof![Just("curl/8"), Just("")]),
            ua_field in proptest::option::of(Just("agent-field")),
            ip in proptest::option::of(Just("10.0.0.1")),
            page in proptest::option::of(Just("page_1")),
            cred in proptest::option::of(prop_oneof![Just("ab12cd34"), Just("ff00ff00")]),
            idem in proptest::option::of(prop_oneof![Just("k-1"), Just("<redacted:ab12cd34>")]),
            body in proptest::option::of(Just("0badf00d")),
            limit in proptest::option::of(Just("100;w=60")),
            t in proptest::option::of(1_600_000_000_000_000i64..1_800_000_000_000_000),
            dur in proptest::option::of(0.0f64..1e5),
            // No bound on the host's baseline yet, one earlier than every record, one later.
            bound in 0u8..3,
        ) {
            let mut r = Request::at(crate::model::Location {
                source: std::sync::Arc::from("t"),
                position: crate::model::Position::Line(7),
            });
            r.status = status;
            r.method = method.to_string();
            r.url = format!("https://{host}{path}?a=1&_={}", t.unwrap_or(0));
            r.started = t.and_then(DateTime::from_timestamp_micros);
            r.duration_ms = dur;
            let mut req = vec![];
            if let Some(u) = ua { req.push(("User-Agent", u)); }
            if let Some(i) = idem { req.push(("Idempotency-Key", i)); }
            req.push(("Origin", "https://app.example"));
            r.request_headers = crate::model::Headers::from_pairs(req);
            if let Some(l) = limit {
                r.response_headers = crate::model::Headers::from_pairs([("X-RateLimit-Limit", l)]);
            }
            r.client.client = client.map(str::to_string);
            r.client.user_agent = ua_field.map(str::to_string);
            r.client.client_ip = ip.map(str::to_string);
            r.client.pageref = page.map(str::to_string);
            r.client.origin = Some("https://app.example".into());
            r.credential = cred.map(str::to_string);
            r.request_body_fingerprint = body.map(str::to_string);

            let (full_shared, view_shared, hint_shared) =
                (Shared::default(), Shared::default(), Shared::default());
            let host_hash = hash_of(KeyKind::Host as u8, &r.host());
            let bounds = [None, Some((false, (i64::MIN, 0, 0, 0))), Some((true, (i64::MAX, u16::MAX, u16::MAX, u64::MAX)))];
            if let Some(b) = bounds[bound as usize] {
                full_shared.baseline_bound(host_hash, b);
                view_shared.baseline_bound(host_hash, b);
                hint_shared.baseline_bound(host_hash, b);
            }
            let baseline_done = bound == 1;
            let may = may_map_view(status, false, &r.url, &view_shared);
            let hint = may_map_view_hinted(status, false, &r.url, &hint_shared);
            prop_assert_eq!(hint.is_some(), may);
            let hinted = hint.and_then(|h| map_view_hinted(&RecordView::of(&r), 3, &hint_shared, h));
            let view = map_view(&RecordView::of(&r), 3, &view_shared);
            // The hinted path is the plain one.
            prop_assert_eq!(hinted.is_some(), may && view.is_some());
            if let (Some(h), Some(v)) = (&hinted, &view) {
                prop_assert!(same_mapped(h, v));
            }
            let full = map(r.clone(), 3, &full_shared);
            let takes_view = view_suffices(status, false) && baseline_done;
            prop_assert_eq!(view.is_some(), takes_view);
            // The pre-check never turns away a record the view path takes.
            prop_assert!(may || !takes_view);
            match view {
                Some(v) => {
                    prop_assert!(full.kept.is_none());
                    prop_assert!(same_mapped(&v, &full), "{:?} vs {:?}", v, full);
                }
                None => {
                    // Declined without a trace: the full path still sends every name.
                    let again = map(r, 3, &view_shared);
                    prop_assert!(same_mapped(&again, &full));
                    prop_assert_eq!(
                        again.kept.as_ref().map(|_| Kept::of(&again.ev)),
                        full.kept.as_ref().map(|_| Kept::of(&full.ev))
                    );
                }
            }
        }
    }

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

    #[test]
    fn holds_is_contains() {
        for (h, n) in [
            ("<redacted:1a2b3c4d>", "1a2b3c4d"),
            ("<redacted:1a2b3c4d>", "1a2b3c4e"),
            ("1a2b3c4d", "1a2b3c4d"),
            ("1a2b3c4", "1a2b3c4d"),
            ("", "1a2b3c4d"),
            ("abc", ""),
            ("xx1a2b3c4d1a2b3c4dxx", "1a2b3c4d"),
            ("ümlaut-1a2b3c4d", "1a2b3c4d"),
            (&"y".repeat(100), "yyyyyyyy"),
            ("key-abc", "abc"),
        ] {
            assert_eq!(holds(h, n), h.contains(n), "{h:?} {n:?}");
        }
    }

    #[test]
    fn limit_and_reset_is_both_substring_checks() {
        let by_definition = |n: &str, word: &[u8]| {
            n.as_bytes()
                .windows(5)
                .any(|w| w.eq_ignore_ascii_case(word))
        };
        for n in [
            "X-RateLimit-Limit",
            "x-ratelimit-reset",
            "RATELIMIT-RESET",
            "ratelimit-policy",
            "Retry-After",
            "limit",
            "limi",
            "",
            "x-l\u{ef}mit",
            "x-LIMIT-r\u{c9}set",
            "[imit{eset",
            "LIMIt-ReSeT",
            "LIMITRESET",
            "rlimit",
            "lreset",
            "rese",
            "xlimi",
            "x-limit",
            "x-ratelimit-remaining-requests-limit",
            "aaaaaaalimit",
            "aaaaaaaareset",
            "llllllllllllllllimit",
        ] {
            assert_eq!(
                limit_and_reset(n),
                (by_definition(n, b"limit"), by_definition(n, b"reset")),
                "{n}"
            );
        }
    }

    proptest! {
        /// The eight-at-a-time search finds every start the byte-by-byte definition does.
        #[test]
        fn limit_and_reset_is_the_definition(n in "([lLrR]|limit|LiMiT|reset|ReSeT|[a-z]|[-\\[{\x01\u{80}é]){0,24}") {
            let by_definition = |word: &[u8]| n.as_bytes().windows(5).any(|w| w.eq_ignore_ascii_case(word));
            prop_assert_eq!(limit_and_reset(&n), (by_definition(b"limit"), by_definition(b"reset")));
        }
    }
}

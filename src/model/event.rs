//! The compact event: one per request, holding only what the analyses read, in 64 bytes.
//!
//! Ingestion's records become events on the worker threads ([`crate::analyze::event::map`]);
//! from then on the analyses, the detectors among them, see only [`Event`]s: plain data with
//! 64-bit hashes interned into small ids (host, client, credential, endpoint), held packed
//! ([`pack`]) in logs that continue on disk past a memory budget ([`log`]).

use crate::model::Request;
use chrono::{DateTime, Utc};
use std::hash::{BuildHasher, Hash, Hasher};

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
    pub(crate) _pad: u16,
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

pub mod log;
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

pub(crate) fn hash_of<T: Hash + ?Sized>(tag: u8, v: &T) -> u64 {
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
    /// A request id or URL path, for the join of one request seen at two layers.
    Join = 5,
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
    /// else a failure, else a baseline success), so [`crate::analyze::event::Mapped`] need not hold
    /// it (see [`crate::analyze::event::HeaderLimit`] on its size).
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
pub(crate) fn push_path_template(path: &str, out: &mut String) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
    }
}

//! The compact event: one per request, holding only what the analyses read, in 64 bytes.
//!
//! A [`Request`] is turned into a [`Mapped`] on the ingest worker threads ([`map`]): the event
//! with 64-bit hashes in place of the host, client, credential and endpoint, the strings behind
//! those hashes the first time any worker meets them, and the full record only where an
//! analysis needs it (rate-limited responses, failures that carry a Retry-After, and the first
//! successes of each host for the attribution baseline). The sink interns the hashes into
//! small ids; from then on the analyses see only [`Event`]s.

use crate::detect::logical::{is_write, operation_url_of};
use crate::http::retry_after::{self, Kind};
pub use crate::model::event::{
    flag, hasher, is_failure, pack, pack_loc, path_template, sample_key, started_at, ClientKey,
    Event, Kept, KeyKind, Method, SampleKey, Starts, EVENT_BYTES, NONE,
};
use crate::model::event::{hash_of, push_path_template};
pub use crate::model::view::{
    holds, idem_of, is_view_request_header, view_suffices, RecordView, Signals, ViewHint,
};
use crate::model::Request;
use chrono::{DateTime, Utc};
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, RwLock};

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
        ClientKeyRef::of_view(&view_of(r))
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

/// What the sink's join of one request seen at two layers reads of a record
/// ([`super::collect`]): the hash of its request id (0: none) and of its URL path.
///
/// It travels to the sink in the event's id fields, which hold nothing until the sink interns
/// the keys: a `Mapped` stays 128 bytes (see [`HeaderLimit`]). [`Join::take`] reads it back
/// and empties those fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Join {
    pub id: u64,
    pub path: u32,
}

impl Join {
    pub fn of(request_id: Option<&str>, path: &str) -> Join {
        Join {
            id: request_id.map_or(0, |i| hash_of(KeyKind::Join as u8, i)),
            path: (hash_of(KeyKind::Join as u8, path) as u32).max(1),
        }
    }

    fn put(self, ev: &mut Event) {
        ev.detail = self.id as u32;
        ev.cred = (self.id >> 32) as u32;
        ev.endpoint = self.path;
    }

    /// The join hashes of an event as a worker mapped it; its id fields are empty after.
    pub fn take(ev: &mut Event) -> Join {
        let j = Join {
            id: (ev.cred as u64) << 32 | ev.detail as u64,
            path: ev.endpoint,
        };
        ev.detail = NONE;
        ev.cred = NONE;
        ev.endpoint = NONE;
        j
    }
}

/// The hash of what two records of one request share besides their path: host, method and
/// status ([`super::join`]).
pub fn join_what(host: u64, method: u8, status: u16) -> u64 {
    hash_of(KeyKind::Join as u8, &(host, method, status))
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
    /// Set before any record is mapped: see [`Shared::set_joining`].
    joining: std::sync::atomic::AtomicBool,
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
    /// Records are mapped with their [`Join`] hashes (several inputs to join).
    pub fn set_joining(&self) {
        self.joining
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn joining(&self) -> bool {
        self.joining.load(std::sync::atomic::Ordering::Relaxed)
    }

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

/// The [`Signals`] of a full record (the attribution rules' verdict among them).
pub fn signals_of(r: &Request) -> Signals {
    let failure = is_failure(r.status);
    Signals {
        limited: crate::attribute::is_rate_limited(r),
        failure_retry_after: failure
            && retry_after::from_headers(&r.response_headers, r.started).kind != Kind::Absent,
        ra_hidden: failure && hidden_from_page(r),
    }
}

/// The view of a full record, with its [`Signals`]: what [`map`] reads.
pub fn view_of(r: &Request) -> RecordView<'_> {
    RecordView {
        signals: signals_of(r),
        request_id: crate::model::view::request_id(&r.request_headers),
        ..RecordView::of(r)
    }
}

/// The host of a URL as the analyses key it ([`crate::http::url::host_key`]).
fn host_of(url: &str) -> std::borrow::Cow<'_, str> {
    crate::http::url::host_key(url)
}

/// Turn one request into its event (on a worker thread). `input` numbers the input.
pub fn map(r: Request, input: u16, shared: &Shared) -> Mapped {
    let (mut m, kept) = {
        let v = view_of(&r);
        let host = hash_of(KeyKind::Host as u8, &*host_of(v.url));
        let baseline = (200..400).contains(&v.status)
            && shared.wants_sample(host, view_sample_key(&v, input, shared.ranks()));
        event_of(&v, host, input, shared, baseline)
    };
    // A trace links the attempts of one logical request itself: they share its chain.
    if let Some(chain) = r.span.as_ref().map(|s| s.chain).filter(|&c| c != 0) {
        m.ev.op = chain;
    }
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

/// The events of one input straight from views ([`map_view`]).
pub struct EventViews<'s> {
    pub input: u16,
    pub shared: &'s Shared,
}

impl crate::ingest::Views<Mapped> for EventViews<'_> {
    fn may_view(&self, status: u16, layer_signal: bool, url: &str) -> bool {
        may_map_view(status, layer_signal, url, self.shared)
    }
    fn view(&self, v: &RecordView<'_>) -> Option<Mapped> {
        map_view(v, self.input, self.shared)
    }
    fn may_view_hinted(&self, status: u16, layer_signal: bool, url: &str) -> Option<ViewHint> {
        may_map_view_hinted(status, layer_signal, url, self.shared)
    }
    fn view_hinted(&self, v: &RecordView<'_>, hint: ViewHint) -> Option<Mapped> {
        map_view_hinted(v, self.input, self.shared, hint)
    }
}

thread_local! {
    /// The operation URL of the event being mapped (reused: no String per event).
    static OP_URL: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// [`op_prefix`]'s answers by client hash.
    static OP_PREFIX: std::cell::RefCell<crate::memo::Memo<foldhash::fast::FoldHasher<'static>>> =
        const { std::cell::RefCell::new(crate::memo::Memo::new(1 << 10, 8)) };
}

/// The operation hasher after the client key (`hasher()` fed `key`), whose hash `client` is:
/// the key is hashed once per record, for its id, and a client's prefix state is reused (1 %
/// of the instructions of a run on the realistic bench inputs). The memo is keyed by the client
/// hash: it already names the client everywhere (the sink interns it as the client's id), so
/// reusing the state by it merges nothing the ids do not.
fn op_prefix(client: u64, key: &ClientKeyRef<'_>) -> foldhash::fast::FoldHasher<'static> {
    OP_PREFIX.with(|c| {
        c.borrow_mut().get_or(&client.to_le_bytes(), || {
            let mut hh = hasher();
            key.hash(&mut hh);
            hh
        })
    })
}

/// The event, hashes and first-seen names of a view; the reason to keep the full record, if
/// any (`baseline`: the host wants samples and this is a success).
fn event_of(
    v: &RecordView<'_>,
    host: u64,
    input: u16,
    shared: &Shared,
    baseline: bool,
) -> (Mapped, Option<Kept>) {
    let (position, line) = position_of(v.position);
    let method_upper: std::borrow::Cow<str> = if v.method.bytes().any(|b| b.is_ascii_lowercase()) {
        std::borrow::Cow::Owned(v.method.to_ascii_uppercase())
    } else {
        std::borrow::Cow::Borrowed(v.method)
    };
    let method = Method::of(&method_upper);
    let (t_us, t_ns, whole_second) = start_of(v.started);
    let url = crate::http::url::split(v.url);
    let flags = flags_of(v, method, line, whole_second, url.path);

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
        endpoint_of(&method_upper, url.path, shared, &mut names)
    } else {
        0
    };
    let op = operation_of(v, client, &client_key, &method_upper, &url, write);
    if shared.first(client) {
        names.client = Some(client_key.to_owned());
    }
    let mut ev = Event {
        t_us,
        dur_ms: v.duration_ms.unwrap_or(f64::NAN),
        op,
        loc: pack_loc(input, position),
        host: NONE,
        client: NONE,
        cred: NONE,
        endpoint: NONE,
        detail: NONE,
        idem: v.idem,
        status: v.status,
        flags,
        t_ns,
        _pad: 0,
    };
    if shared.joining() {
        Join::of(v.request_id, url.path).put(&mut ev);
    }
    let keys = Keys {
        host,
        client,
        cred,
        endpoint,
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
        kept_of(v, baseline),
    )
}

/// The event's flags: method, position kind, limited, whole-second time, which client hints
/// the view has, GraphQL, a Retry-After the browser could not read.
fn flags_of(v: &RecordView<'_>, method: Method, line: bool, whole_second: bool, path: &str) -> u16 {
    let mut flags = (method as u16) << flag::METHOD_SHIFT;
    for (bit, present) in [
        (flag::POS_LINE, line),
        (flag::LIMITED, v.signals.limited),
        (flag::WHOLE_SECOND, whole_second),
        (flag::HINT_CLIENT, v.client.is_some()),
        (flag::HINT_UA, v.user_agent.is_some()),
        (flag::HINT_IP, v.client_ip.is_some()),
        (flag::HINT_PAGE, v.pageref.is_some()),
        (flag::HINT_ORIGIN, v.origin.is_some()),
        (
            flag::GRAPHQL,
            method == Method::Post && ends_with_graphql(path),
        ),
        (flag::RA_HIDDEN, v.signals.ra_hidden),
    ] {
        if present {
            flags |= bit;
        }
    }
    flags
}

/// A write's endpoint key, `METHOD /path/{id}`, built in the thread's buffer: a String only
/// for its first event.
fn endpoint_of(method_upper: &str, path: &str, shared: &Shared, names: &mut Names) -> u64 {
    OP_URL.with(|b| {
        let mut e = b.borrow_mut();
        e.clear();
        e.push_str(method_upper);
        e.push(' ');
        push_path_template(path, &mut e);
        let h = hash_of(KeyKind::Endpoint as u8, e.as_str());
        if shared.first(h) {
            names.endpoint = Some(e.as_str().to_string());
        }
        h
    })
}

/// The logical operation: client, credential (unless it is really the idempotency key),
/// method, URL less volatile parameters, body for writes. Idempotency keys are not part of
/// it (a new key per attempt still retries one operation).
fn operation_of(
    v: &RecordView<'_>,
    client: u64,
    client_key: &ClientKeyRef<'_>,
    method_upper: &str,
    url: &crate::http::url::Parts<'_>,
    write: bool,
) -> u64 {
    let op_cred = if v.idem_is_credential {
        None
    } else {
        v.credential
    };
    let mut hh = op_prefix(client, client_key);
    op_cred.hash(&mut hh);
    method_upper.hash(&mut hh);
    // One buffer per thread holds the URL's operation form.
    OP_URL.with(|b| {
        let mut b = b.borrow_mut();
        operation_url_of(url, &mut b);
        b.as_str().hash(&mut hh);
    });
    if write {
        v.body_fingerprint.hash(&mut hh);
    }
    hh.finish()
}

/// Why the full record travels with the event, if it does.
fn kept_of(v: &RecordView<'_>, baseline: bool) -> Option<Kept> {
    if v.signals.limited {
        Some(Kept::Limited)
    } else if v.signals.failure_retry_after {
        Some(Kept::Failure)
    } else if baseline {
        Some(Kept::Baseline)
    } else {
        None
    }
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
                assert_eq!(signals_of(&r), Signals::default(), "status {status}");
            }
            assert!(!view_suffices(status, true));
        }
        assert_eq!(took_view, 199);
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
            let hinted = hint.and_then(|h| map_view_hinted(&view_of(&r), 3, &hint_shared, h));
            let view = map_view(&view_of(&r), 3, &view_shared);
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
}

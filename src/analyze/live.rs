//! `analyze --follow`: the analysis of inputs that keep growing.
//!
//! Two things are fed the same records:
//! - the full analysis ([`Following`]): the same [`Collector`] `analyze` uses, fed piece by
//!   piece, finished into the [`Report`] when the following stops (Ctrl-C or end of input);
//! - the rolling view ([`Window`]): per-second counters of the last [`SPAN_SECS`] seconds, by
//!   host (requests, 429s by who sent them, retries), from which each interval's [`View`] is
//!   read (the last minute and the last 10 minutes), with the findings active now and the plan
//!   for the worst host ([`now`]).
//!
//! Memory, bounded: the window holds at most [`SPAN_SECS`] buckets of at most [`MAX_HOSTS`]
//! + 1 hosts each, and at most [`MAX_HOSTS`] host names (further hosts are counted together as
//!   [`OTHER_HOSTS`]); a bucket older than the span is dropped as time moves; [`now`] states its
//!   own bounds. The full analysis keeps counters per distinct host, client, credential and
//!   endpoint; its events, the rate-limited records and their rows wait in temporary files
//!   (the rows: [`super::limited::held`], read back when the report is made). It makes no
//!   first pass while the log is written (that pass holds each operation key's history): the
//!   replays run over the spilled events when the following stops.

use super::collect::Collector;
use super::event::{self, flag, Event, Mapped, Shared};
use super::AnalyzeOptions;
use crate::ingest::{self, source::Opened};
use crate::model::Request;
use crate::report::{InputSummary, Report};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

pub mod now;

/// The longest span the view shows (10 minutes), in seconds: older buckets are dropped.
pub const SPAN_SECS: i64 = 600;
/// The short span (the last minute).
pub const SHORT_SECS: i64 = 60;
/// Distinct host names kept; further hosts are counted together.
pub const MAX_HOSTS: usize = 4096;
/// The name under which hosts past [`MAX_HOSTS`] are counted.
pub const OTHER_HOSTS: &str = "(other hosts)";
/// Hosts listed per span in a view.
pub const HOSTS_SHOWN: usize = 10;

/// Requests and rate-limited responses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub requests: u64,
    pub rate_limited: u64,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.requests += o.requests;
        self.rate_limited += o.rate_limited;
    }
}

/// One host's records of one second.
#[derive(Debug, Default)]
struct HostSecond {
    c: Counts,
    /// Requests of operations refused in the last [`now::RETRY_WINDOW_S`].
    retries: u64,
    /// Rate-limited responses by who sent them.
    producers: Vec<(now::Producer, u64)>,
}

/// One second of records, by host slot.
#[derive(Debug)]
struct Bucket {
    second: i64,
    hosts: HashMap<u32, HostSecond>,
}

/// The rolling view's state (see the module doc).
#[derive(Default)]
pub struct Window {
    /// Oldest first, one per second that had records, none older than [`SPAN_SECS`].
    buckets: VecDeque<Bucket>,
    /// Host hash → slot; slot → name. Slot `u32::MAX` is [`OTHER_HOSTS`].
    slots: HashMap<u64, u32>,
    names: Vec<String>,
    /// Everything since the start (mergeable counters).
    pub total: Counts,
    /// Records whose time was already older than the span when read (a file's old lines).
    pub before_span: u64,
    /// Attribution, findings and plan evidence ([`now`]).
    now: now::Now,
}

const OTHER: u32 = u32::MAX;
const NO_HOST: &str = "(no host)";

impl Window {
    /// Count one record read at `now` (seconds since the epoch). Its own time places it when
    /// it has one (clamped to `now`: a clock ahead of ours is read as now); else `now`.
    pub fn observe(&mut self, now: i64, m: &Mapped) {
        let host = self.slot(
            m.keys.host,
            m.names.as_ref().and_then(|n| n.host.as_deref()),
        );
        let second = record_second(&m.ev, now);
        let name = self.name(host).to_string();
        let seen = self.now.observe(m, host, &name, second);
        self.count(now, second, host, is_limited(&m.ev), seen);
    }

    fn slot(&mut self, hash: u64, name: Option<&str>) -> u32 {
        if let Some(&s) = self.slots.get(&hash) {
            return s;
        }
        if self.names.len() >= MAX_HOSTS {
            return OTHER;
        }
        let s = self.names.len() as u32;
        self.names.push(
            name.filter(|n| !n.is_empty())
                .unwrap_or(NO_HOST)
                .to_string(),
        );
        self.slots.insert(hash, s);
        s
    }

    fn count(&mut self, now: i64, second: i64, host: u32, limited: bool, seen: now::Seen) {
        let c = Counts {
            requests: 1,
            rate_limited: limited as u64,
        };
        self.total.add(c);
        self.evict(now);
        if second <= now - SPAN_SECS {
            self.before_span += 1;
            return;
        }
        // Mostly the newest bucket; a late record goes into its own second's.
        let at = self.buckets.iter().rposition(|b| b.second <= second);
        let idx = match at {
            Some(i) if self.buckets[i].second == second => i,
            Some(i) => {
                self.buckets.insert(i + 1, bucket(second));
                i + 1
            }
            None => {
                self.buckets.push_front(bucket(second));
                0
            }
        };
        let h = self.buckets[idx].hosts.entry(host).or_default();
        h.c.add(c);
        h.retries += u64::from(seen.retry);
        if let Some(p) = seen.producer {
            match h.producers.iter_mut().find(|(q, _)| *q == p) {
                Some(x) => x.1 += 1,
                None => h.producers.push((p, 1)),
            }
        }
    }

    fn evict(&mut self, now: i64) {
        while self
            .buckets
            .front()
            .is_some_and(|b| b.second <= now - SPAN_SECS)
        {
            self.buckets.pop_front();
        }
    }

    /// Buckets held (at most [`SPAN_SECS`]).
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    fn name(&self, slot: u32) -> &str {
        match self.names.get(slot as usize) {
            Some(n) => n,
            None => OTHER_HOSTS,
        }
    }

    /// Each host's records of the last `secs` seconds up to `now`.
    fn by_host(&self, now: i64, secs: i64) -> HashMap<u32, HostSecond> {
        let mut by: HashMap<u32, HostSecond> = HashMap::new();
        for b in self.buckets.iter().filter(|b| b.second > now - secs) {
            for (&h, s) in &b.hosts {
                let a = by.entry(h).or_default();
                a.c.add(s.c);
                a.retries += s.retries;
                for &(p, n) in &s.producers {
                    match a.producers.iter_mut().find(|(q, _)| *q == p) {
                        Some(x) => x.1 += n,
                        None => a.producers.push((p, n)),
                    }
                }
            }
        }
        by
    }

    /// The counts of the last `secs` seconds up to `now`, by host.
    fn span(&self, by: &HashMap<u32, HostSecond>, secs: i64) -> Span {
        let mut all = Counts::default();
        let mut hosts: Vec<(u32, HostCounts)> = by
            .iter()
            .map(|(&h, a)| {
                all.add(a.c);
                (h, self.host_counts(h, a))
            })
            .collect();
        hosts.sort_by(|(_, a), (_, b)| {
            (b.rate_limited, b.requests, &a.host).cmp(&(a.rate_limited, a.requests, &b.host))
        });
        let more_hosts = hosts.len().saturating_sub(HOSTS_SHOWN);
        hosts.truncate(HOSTS_SHOWN);
        Span {
            seconds: secs,
            requests: all.requests,
            rate_limited: all.rate_limited,
            rate_limited_share: share(all),
            hosts: hosts.into_iter().map(|(_, h)| h).collect(),
            more_hosts,
        }
    }

    fn host_counts(&self, h: u32, a: &HostSecond) -> HostCounts {
        let mut producers: Vec<ProducerCount> = a
            .producers
            .iter()
            .map(|&(p, n)| {
                let (layer, vendor) = self.now.producer(p);
                ProducerCount {
                    layer: layer.as_str(),
                    vendor: vendor.map(str::to_string),
                    rate_limited: n,
                }
            })
            .collect();
        producers.sort_by(|a, b| {
            (b.rate_limited, a.layer, &a.vendor).cmp(&(a.rate_limited, b.layer, &b.vendor))
        });
        HostCounts {
            host: self.name(h).to_string(),
            requests: a.c.requests,
            rate_limited: a.c.rate_limited,
            retries: a.retries,
            sent_by: producers,
        }
    }

    /// What the view shows at `now`; `rec`: the options of the plan.
    pub fn view(&self, now: i64, rec: &crate::recommend::Options) -> View {
        let long = self.by_host(now, SPAN_SECS);
        let short = self.by_host(now, SHORT_SECS);
        let last_minute = self.span(&short, SHORT_SECS);
        let last_10_minutes = self.span(&long, SPAN_SECS);
        let trend = trend(&last_minute, &last_10_minutes);
        // How much of the span has records (a follower just started has a short one).
        let filled = self
            .buckets
            .front()
            .map_or(1, |b| (now - b.second + 1).clamp(1, SPAN_SECS));
        let burst = self.by_host(now, now::BURST_SECS);
        let spans = now::Spans {
            burst: &burst,
            short: &short,
            long: &long,
            filled,
        };
        let mut active = now::bursts(&spans, |h| self.name(h));
        active.extend(now::storms(&spans, |h| self.name(h)));
        active.extend(self.now.shared_credentials(now));
        let worst = long
            .iter()
            .filter(|(_, a)| a.c.rate_limited > 0)
            .max_by(|(ha, a), (hb, b)| {
                (a.c.rate_limited, a.c.requests, self.name(**hb)).cmp(&(
                    b.c.rate_limited,
                    b.c.requests,
                    self.name(**ha),
                ))
            })
            .map(|(&h, _)| h);
        let plan = worst.and_then(|h| self.now.plan(h, now, rec));
        View {
            kind: "interval",
            at: chrono::DateTime::from_timestamp(now, 0)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default(),
            last_minute,
            last_10_minutes,
            trend,
            active,
            plan,
            total: self.total,
            before_span: self.before_span,
        }
    }
}

fn bucket(second: i64) -> Bucket {
    Bucket {
        second,
        hosts: HashMap::new(),
    }
}

fn share(c: Counts) -> f64 {
    if c.requests == 0 {
        return 0.0;
    }
    (c.rate_limited as f64 / c.requests as f64 * 1000.0).round() / 1000.0
}

/// A rate-limit signal: a 429, or another status the analysis counts as one.
fn is_limited(ev: &Event) -> bool {
    ev.status == 429 || ev.flags & flag::LIMITED != 0
}

fn record_second(ev: &Event, now: i64) -> i64 {
    if ev.t_us == Event::UNTIMED {
        return now;
    }
    ev.t_us.div_euclid(1_000_000).min(now)
}

/// The 429s of the last minute against the minutes before it in the 10-minute span.
fn trend(short: &Span, long: &Span) -> Trend {
    let before = long.rate_limited - short.rate_limited;
    let minutes_before = ((SPAN_SECS - SHORT_SECS) / 60) as f64;
    let per_minute_before = before as f64 / minutes_before;
    let now = short.rate_limited as f64;
    if now == 0.0 && before == 0 {
        Trend::None
    } else if now > 2.0 * per_minute_before.max(1.0) {
        Trend::Rising
    } else if now < 0.5 * per_minute_before {
        Trend::Falling
    } else {
        Trend::Steady
    }
}

/// Whether the 429s are getting better: the last minute against the average minute of the
/// nine before it (rising: more than twice, and more than 2; falling: less than half).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    None,
    Rising,
    Steady,
    Falling,
}

impl Trend {
    pub fn as_str(self) -> &'static str {
        match self {
            Trend::None => "no 429s",
            Trend::Rising => "rising",
            Trend::Steady => "steady",
            Trend::Falling => "falling",
        }
    }
}

/// One host's counts in a span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostCounts {
    pub host: String,
    pub requests: u64,
    pub rate_limited: u64,
    /// Requests of operations refused in the last two minutes (retries).
    pub retries: u64,
    /// Who sent the rate-limited responses, most first.
    pub sent_by: Vec<ProducerCount>,
}

/// The rate-limited responses one layer (and vendor) sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProducerCount {
    /// `cdn`, `proxy`, `api` or `unknown`.
    pub layer: &'static str,
    pub vendor: Option<String>,
    pub rate_limited: u64,
}

/// The counts of one span of the view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    pub seconds: i64,
    pub requests: u64,
    pub rate_limited: u64,
    /// Rate-limited / requests, rounded to 3 decimals.
    pub rate_limited_share: f64,
    /// The hosts with the most rate-limited responses, then the most requests.
    pub hosts: Vec<HostCounts>,
    /// Hosts with records in the span not listed.
    pub more_hosts: usize,
}

/// What one interval shows; one NDJSON line (docs/live.md).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    /// Always `interval` (the line's kind).
    pub kind: &'static str,
    /// When the view was taken (UTC, RFC 3339).
    pub at: String,
    pub last_minute: Span,
    pub last_10_minutes: Span,
    pub trend: Trend,
    /// Findings active now: a burst in progress, a retry storm building, a credential shared
    /// right now.
    pub active: Vec<now::Active>,
    /// The plan for the host with the most 429s in the last 10 minutes.
    pub plan: Option<now::LivePlan>,
    /// Everything read since the start.
    pub total: Counts,
    /// Records already older than 10 minutes when read (counted in `total` only).
    pub before_span: u64,
}

/// A HAR given to `--follow`: it is one JSON document, written whole, not a growing log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFollowable(pub String);

impl std::fmt::Display for NotFollowable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: a HAR is one JSON document, written whole, not a growing log; analyze it without --follow",
            self.0
        )
    }
}

/// The full analysis of followed inputs (see the module doc).
pub struct Following {
    shared: Arc<Shared>,
    c: Collector,
    summaries: Vec<Option<InputSummary>>,
    /// Each input's format, sniffed on its first piece and kept for the next ones.
    formats: Vec<Option<ingest::Format>>,
}

impl Following {
    /// `names`: the inputs, as the user gave them.
    pub fn new(names: &[String]) -> Following {
        let shared = Arc::new(Shared::default());
        let arcs: Vec<Arc<str>> = names.iter().map(|p| Arc::from(p.as_str())).collect();
        let mut c = Collector::new(arcs, shared.clone());
        c.streaming = true;
        // The kept rows (one per 429) wait in a temporary file, not in memory, until the end.
        c.rows.hold(super::limited::held::CHUNK);
        for i in 0..names.len() {
            c.start_input(i);
            // No first pass while the log is written: its per-host cadences hold every
            // operation key seen in the last hours (a followed log's memory grew ~30 bytes a
            // line with them). The replay at the end makes it from the spilled log instead,
            // with the same result (`analyze::tests::first_pass_made_early_equals_the_first_replay`).
            if let Some(o) = c.orderers.get_mut(i) {
                o.early = None;
            }
        }
        Following {
            shared,
            c,
            summaries: names.iter().map(|_| None).collect(),
            formats: vec![None; names.len()],
        }
    }

    /// Analyse one piece of input `i` (whole lines, the first of them line `first_line` of the
    /// input); `observe` sees every record on its way in. The format is sniffed on the first
    /// piece that has any text and kept; a HAR is refused (one JSON document, written whole).
    pub fn feed(
        &mut self,
        i: usize,
        name: &str,
        piece: Vec<u8>,
        first_line: usize,
        opts: &ingest::Options,
        observe: &mut dyn FnMut(&Mapped),
    ) -> Result<(), NotFollowable> {
        // Blank lines only: nothing to read (an access log's reader would find no line to
        // learn its layout from).
        if piece.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        if opts.format.is_none() && self.formats[i].is_none() {
            if let Ok(s) = ingest::source::sniff(&piece, name) {
                self.formats[i] = Some(s.format);
            }
        }
        if opts.format.or(self.formats[i]) == Some(ingest::Format::Har) {
            return Err(NotFollowable(name.to_string()));
        }
        let opts = ingest::Options {
            piece: Some(first_line),
            format: opts.format.or(self.formats[i]),
            ..opts.clone()
        };
        let input = i.min(u16::MAX as usize) as u16;
        let shared = self.shared.clone();
        let map = |r: Request| event::map(r, input, &shared);
        let views = event::EventViews {
            input,
            shared: &shared,
        };
        let c = &mut self.c;
        let s = ingest::stream_opened(
            name,
            Ok(Opened::from_bytes(piece)),
            &opts,
            &map,
            Some(&views),
            &mut |b| {
                for m in b.iter() {
                    observe(m);
                }
                c.take(i, b)
            },
        );
        merge_summary(&mut self.summaries[i], s);
        Ok(())
    }

    /// The analysis of everything fed: the report `analyze` would give.
    pub fn finish(
        mut self,
        names: &[String],
        opts: &AnalyzeOptions,
        rec: &crate::recommend::Options,
    ) -> Report {
        let mut summaries: Vec<InputSummary> = self
            .summaries
            .into_iter()
            .zip(names)
            .map(|(s, n)| s.unwrap_or_else(|| empty_summary(n)))
            .collect();
        let last = names.len().checked_sub(1);
        for (i, s) in summaries.iter_mut().enumerate() {
            if Some(i) != last {
                super::finish_input(&mut self.c, i, s);
            }
        }
        super::finish(
            self.c,
            summaries,
            last,
            opts,
            rec,
            &super::Attribute::Engine,
        )
    }
}

/// An input that gave no line at all.
fn empty_summary(name: &str) -> InputSummary {
    InputSummary {
        source: Arc::from(name),
        format: None,
        creator: None,
        records: 0,
        skipped: 0,
        warning_count: 0,
        warnings: Vec::new(),
        error: Some("no records: nothing was read while it was followed".into()),
        incomplete: None,
        no_status: None,
        traces: None,
        not_requests: 0,
        skipped_reasons: Vec::new(),
        unwrapped: None,
        counted_twice: None,
    }
}

/// The summaries of an input's pieces, as one: counts added, the first kept warnings and the
/// first error kept. `no_status` is judged over the whole: kept only while no piece had one.
fn merge_summary(into: &mut Option<InputSummary>, s: InputSummary) {
    let Some(t) = into else {
        *into = Some(s);
        return;
    };
    t.records += s.records;
    t.skipped += s.skipped;
    t.not_requests += s.not_requests;
    for r in s.skipped_reasons {
        match t.skipped_reasons.iter_mut().find(|k| k.reason == r.reason) {
            Some(k) => k.lines += r.lines,
            None => t.skipped_reasons.push(r),
        }
    }
    if t.unwrapped.is_none() {
        t.unwrapped = s.unwrapped;
    }
    t.warning_count += s.warning_count;
    let room = ingest::KEPT_WARNINGS.saturating_sub(t.warnings.len());
    t.warnings.extend(s.warnings.into_iter().take(room));
    if t.error.is_none() {
        t.error = s.error;
    }
    if t.format.is_none() {
        t.format = s.format;
    }
    if t.creator.is_none() {
        t.creator = s.creator;
    }
    if t.records == s.records {
        // The first piece with records says whether they have a status.
        t.no_status = s.no_status;
    } else if s.records > 0 && s.no_status.is_none() {
        t.no_status = None;
    }
}

#[cfg(test)]
mod tests;

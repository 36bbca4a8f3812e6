//! One request seen at two layers: the nginx and Envoy access logs of the same requests, a
//! load balancer's and a gateway's. Counted twice, every rate, limit, burst and retry finding
//! doubles; so the first stage ([`super::collect`]) counts the request once and keeps the
//! second layer's record as evidence of who answered.
//!
//! Two records of different inputs are one request when
//! - they carry the same request id ([`crate::model::view::REQUEST_ID_HEADERS`]: `X-Request-ID`,
//!   which ingress-nginx's `$req_id` and Envoy's request id are, or the whole `traceparent`)
//!   and start within [`ID_WINDOW_US`] of each other; or, when one of them has no id,
//! - their inputs are of different formats (two layers: two replicas' logs of one format hold
//!   different requests), and they have the same host, method, URL path and status and start
//!   within [`TOLERANCE_US`] of each other.
//!
//! The window follows the coarser record's precision: a time known to the second only
//! ([`coarse`]: nginx's `$time_local` without `$msec`) stands for the whole second from it, so
//! a record joins one of it anywhere in that second (widened by the window). Among several
//! candidates the nearest in time is taken (where a coarse time is involved, the earliest:
//! two logs read in time order then pair off in order); each record joins at most one of each
//! other input. Records that would have matched one of an input of the same format are
//! counted ([`Counts::look_alike`]): if those two inputs are two layers, not two replicas, the
//! report must say that their requests are counted twice and how to join them.
//!
//! The lookup is keyed (a hash map from the id, or from host, method, path, status and time
//! slot — [`TOLERANCE_US`] for precise times, a second for coarse ones — to a chain of the
//! records that share it) and windowed (only candidates within the window are compared):
//! never a comparison of every pair.
//!
//! Memory: ≈ 70 bytes per record of every input but the last (the last is matched against the
//! others and need not be kept); nothing when there is one input.

use super::event::Join;
use std::collections::HashMap;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Records of one request joined by id start at most this far apart (µs): the outer layer's
/// start and the inner's differ by a hop, a queue and the clocks' skew; a client that sends
/// one id on all its retries spaces them further (and the nearest is taken).
pub const ID_WINDOW_US: i64 = 2_000_000;

/// Records without a shared id join only this close (µs).
pub const TOLERANCE_US: i64 = 100_000;

/// A time known to the second only ([`coarse`]) stands for a start anywhere in the second
/// from it: the match window follows the coarser record's precision (µs).
pub const SECOND_US: i64 = 1_000_000;

const NO_ENTRY: u32 = u32::MAX;

/// Entries compared per chain at most (the latest kept first): a path requested thousands of
/// times in one slot is compared with its latest records only, so one lookup costs a
/// bounded number of comparisons whatever the traffic.
const CHAIN_WALK: usize = 64;

/// A record kept for the records of later inputs to join: in the chain of its id (if it has
/// one) and in that of its host, method, path, status and time slot (a [`TOLERANCE_US`] slot,
/// or a second when its time is [`coarse`]).
#[derive(Debug, Clone, Copy)]
struct Entry {
    t_us: i64,
    /// The next entry with the same id, and with the same match key.
    next_id: u32,
    next_match: u32,
    /// The kept rate-limited row of this record, if any (the row the other layer's record
    /// adds its evidence to).
    row: u32,
    input: u16,
    /// 1 + the last input one of whose records joined this one (0: none yet).
    joined_by: u16,
    has_id: bool,
    coarse: bool,
}

/// What a record is looked up and kept by.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    pub input: u16,
    pub t_us: i64,
    /// The time is known to the second only ([`coarse`]): it matches anything in that second
    /// (widened by [`TOLERANCE_US`]).
    pub whole_second: bool,
    pub join: Join,
    /// Hash of host, method and status (the path is in `join`).
    pub what: u64,
}

/// Whether a start (µs) and duration (ms) are known to the second only: the start falls on a
/// whole second, or the start was worked out from a whole-second end (nginx's `$time_local`
/// less `$request_time`), so start plus duration does. (A precise time does so once in a
/// thousand records with millisecond times: that record is then matched within its second.)
pub fn coarse(t_us: i64, whole_second: bool, dur_ms: f64) -> bool {
    if whole_second {
        return true;
    }
    // Within 2 µs: the start was worked out in whole microseconds from a float duration.
    let end = t_us + (dur_ms * 1000.0).round() as i64;
    dur_ms.is_finite() && !(3..=999_997).contains(&end.rem_euclid(1_000_000))
}

/// Whether two starts may be one request's, `tol` apart at most: each stands for the interval
/// it may lie in (the second from it when coarse, the instant else), and the two intervals,
/// widened by `tol`, meet.
fn within((a, a_coarse): (i64, bool), (b, b_coarse): (i64, bool), tol: i64) -> bool {
    let hi = |t: i64, c: bool| t + if c { SECOND_US } else { 0 };
    a <= hi(b, b_coarse) + tol && b <= hi(a, a_coarse) + tol
}

/// How a record was found to be one already read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinedBy {
    RequestId,
    Match,
}

/// A record joined to one of an earlier input: that input, its kept row, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub input: u16,
    pub row: u32,
    pub by: JoinedBy,
}

/// Per input: how its records were joined to other inputs', and how many look like another
/// input's requests but could not be joined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub by_id: usize,
    pub by_match: usize,
    /// Of `by_match`: one of the two times was known to the second only.
    pub within_second: usize,
    /// The first input they were joined to.
    pub with: Option<u16>,
    /// Records not joined that have a record of another input with the same host, method,
    /// path and status in the window, that input of the same format (two replicas' logs
    /// are not matched by time, two layers' are): counted twice if the two are layers.
    pub look_alike: usize,
    /// The first input they look like.
    pub like: Option<u16>,
}

/// The best candidate of a lookup so far: (rank, entry), and whether a record of an input of
/// the same format would have matched.
#[derive(Debug, Default)]
struct Best {
    at: Option<((u8, i64), u32)>,
    look_alike: Option<u16>,
}

/// The join's state (see the module doc).
#[derive(Debug, Default)]
pub struct Joiner {
    ids: Map<u64, u32>,
    /// Entries with precise times by [`TOLERANCE_US`] slot, and coarse ones by second.
    matches: Map<u64, u32>,
    seconds: Map<u64, u32>,
    entries: Vec<Entry>,
    /// Each input's format, once known (inputs of one format are one layer).
    formats: Vec<Option<String>>,
    pub counts: Vec<Counts>,
}

impl Joiner {
    pub fn set_format(&mut self, input: usize, format: &str) {
        if self.formats.len() <= input {
            self.formats.resize(input + 1, None);
        }
        self.formats[input].get_or_insert_with(|| format.to_string());
    }

    fn format(&self, input: u16) -> Option<&str> {
        self.formats.get(input as usize)?.as_deref()
    }

    /// The match chain's key: host, method, status, path and the time slot.
    fn match_key(p: &Probe, slot: i64) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one((p.what, p.join.path, slot))
    }

    fn counts_of(&mut self, input: u16) -> &mut Counts {
        let i = input as usize;
        if self.counts.len() <= i {
            self.counts.resize(i + 1, Counts::default());
        }
        &mut self.counts[i]
    }

    /// The record of an earlier-kept input that `p` is, if any; it is marked joined.
    pub fn find(&mut self, p: &Probe) -> Option<Found> {
        if p.t_us == super::event::Event::UNTIMED || self.entries.is_empty() {
            return None;
        }
        let by_id = match p.join.id {
            0 => None,
            id => {
                let mut best = Best::default();
                self.walk(self.ids.get(&id).copied(), p, false, &mut best);
                best.at.map(|(_, at)| at)
            }
        };
        let (at, by) = match by_id {
            Some(at) => (at, JoinedBy::RequestId),
            None => {
                let best = self.by_match(p);
                match (best.at, best.look_alike) {
                    (Some((_, at)), _) => (at, JoinedBy::Match),
                    (None, Some(like)) => {
                        let c = self.counts_of(p.input);
                        c.look_alike += 1;
                        c.like.get_or_insert(like);
                        return None;
                    }
                    (None, None) => return None,
                }
            }
        };
        let e = &mut self.entries[at as usize];
        e.joined_by = p.input + 1;
        let found = Found {
            input: e.input,
            row: e.row,
            by,
        };
        let coarse = e.coarse || p.whole_second;
        let c = self.counts_of(p.input);
        match by {
            JoinedBy::RequestId => c.by_id += 1,
            JoinedBy::Match => {
                c.by_match += 1;
                c.within_second += coarse as usize;
            }
        }
        c.with.get_or_insert(found.input);
        Some(found)
    }

    /// The best match of `p` by host, method, path, status and time: among precise entries
    /// in the [`TOLERANCE_US`] slots its window covers, and coarse ones in the seconds.
    fn by_match(&self, p: &Probe) -> Best {
        let mut best = Best::default();
        let reach = if p.whole_second { SECOND_US } else { 0 };
        let (lo, hi) = (p.t_us - TOLERANCE_US, p.t_us + reach + TOLERANCE_US);
        for s in lo.div_euclid(TOLERANCE_US)..=hi.div_euclid(TOLERANCE_US) {
            let head = self.matches.get(&Self::match_key(p, s)).copied();
            self.walk(head, p, true, &mut best);
        }
        for s in (lo - SECOND_US).div_euclid(SECOND_US)..=hi.div_euclid(SECOND_US) {
            let head = self.seconds.get(&Self::match_key(p, s)).copied();
            self.walk(head, p, true, &mut best);
        }
        best
    }

    /// Walk a chain from `head` for the entry `p` may join: another input's, not yet joined
    /// by this input; by id within [`ID_WINDOW_US`]; by match (`by_match`) within
    /// [`TOLERANCE_US`], of another format and not both with an id (two ids that differ are
    /// two requests). The nearest is taken; where a coarse time is involved, the earliest
    /// (records in time order then pair off in order, each within its second).
    fn walk(&self, head: Option<u32>, p: &Probe, by_match: bool, best: &mut Best) {
        let window = if by_match { TOLERANCE_US } else { ID_WINDOW_US };
        let mine = self.format(p.input);
        let mut at = head.unwrap_or(NO_ENTRY);
        let mut walked = 0;
        while at != NO_ENTRY && walked < CHAIN_WALK {
            walked += 1;
            let e = &self.entries[at as usize];
            let next = if by_match { e.next_match } else { e.next_id };
            let near = e.input != p.input
                && e.joined_by != p.input + 1
                && within((e.t_us, e.coarse), (p.t_us, p.whole_second), window)
                && !(by_match && e.has_id && p.join.id != 0);
            let other = self.format(e.input);
            if !near || (by_match && (mine.is_none() || other.is_none())) {
                at = next;
                continue;
            }
            if by_match && other == mine {
                best.look_alike.get_or_insert(e.input);
                at = next;
                continue;
            }
            let rank = match e.coarse || p.whole_second {
                false => (0, (e.t_us - p.t_us).abs()),
                true => (1, e.t_us),
            };
            if best.at.is_none_or(|b| (rank, at) < b) {
                best.at = Some((rank, at));
            }
            at = next;
        }
    }

    /// Keep `p` (not joined) for later inputs' records; `row`: its kept rate-limited row.
    pub fn keep(&mut self, p: &Probe, row: u32) {
        if p.t_us == super::event::Event::UNTIMED {
            return;
        }
        let at = self.entries.len() as u32;
        let next_id = match p.join.id {
            0 => NO_ENTRY,
            id => self.ids.insert(id, at).unwrap_or(NO_ENTRY),
        };
        let (map, slot) = match p.whole_second {
            true => (&mut self.seconds, p.t_us.div_euclid(SECOND_US)),
            false => (&mut self.matches, p.t_us.div_euclid(TOLERANCE_US)),
        };
        let next_match = map.insert(Self::match_key(p, slot), at).unwrap_or(NO_ENTRY);
        self.entries.push(Entry {
            t_us: p.t_us,
            next_id,
            next_match,
            row,
            input: p.input,
            joined_by: 0,
            has_id: p.join.id != 0,
            coarse: p.whole_second,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(input: u16, t_ms: i64, id: u64, path: u32) -> Probe {
        Probe {
            input,
            t_us: t_ms * 1000,
            whole_second: false,
            join: Join { id, path },
            what: 7,
        }
    }

    fn joiner(formats: &[&str]) -> Joiner {
        let mut j = Joiner::default();
        for (i, f) in formats.iter().enumerate() {
            j.set_format(i, f);
        }
        j
    }

    #[test]
    fn the_same_request_id_in_another_input_is_one_request_the_nearest_taken() {
        let mut j = joiner(&["nginx", "nginx"]);
        // A client that sends one id on its retries: 200 ms apart.
        j.keep(&probe(0, 1_000, 42, 1), 5);
        j.keep(&probe(0, 1_200, 42, 1), 6);
        let second = j.find(&probe(1, 1_190, 42, 1)).map(|f| f.row);
        let first = j.find(&probe(1, 1_003, 42, 1)).map(|f| f.row);
        assert_eq!((first, second), (Some(5), Some(6)));
        // Each joins once per input; too far apart is another request.
        assert_eq!(j.find(&probe(1, 1_001, 42, 1)), None);
        j.keep(&probe(0, 10_000, 43, 1), 7);
        assert_eq!(j.find(&probe(1, 12_500, 43, 1)), None);
        let c = j.counts[1];
        assert_eq!((c.by_id, c.by_match, c.with), (2, 0, Some(0)));
    }

    #[test]
    fn one_input_never_joins_itself() {
        let mut j = joiner(&["nginx", "envoy"]);
        j.keep(&probe(0, 1_000, 42, 1), 5);
        assert_eq!(j.find(&probe(0, 1_000, 42, 1)), None);
        assert_eq!(j.find(&probe(0, 1_000, 0, 1)), None);
    }

    #[test]
    fn without_a_shared_id_two_layers_match_by_path_status_and_time() {
        let mut j = joiner(&["nginx", "envoy"]);
        j.keep(&probe(0, 1_000, 0, 1), 5);
        j.keep(&probe(0, 1_950, 0, 1), 6);
        // Another path, or too far, is another request; across a slot boundary it is found.
        assert_eq!(j.find(&probe(1, 1_001, 0, 2)), None);
        assert_eq!(j.find(&probe(1, 1_150, 0, 1)), None);
        let f = j.find(&probe(1, 2_020, 0, 1));
        assert_eq!(f.map(|f| (f.row, f.by)), Some((6, JoinedBy::Match)));
        // One side's id is no obstacle; two different ids are two requests.
        assert_eq!(j.find(&probe(1, 1_010, 9, 1)).map(|f| f.row), Some(5));
        let mut j = joiner(&["nginx", "envoy"]);
        j.keep(&probe(0, 1_000, 8, 1), 5);
        assert_eq!(j.find(&probe(1, 1_000, 9, 1)), None);
    }

    #[test]
    fn a_start_worked_out_from_a_whole_second_end_is_coarse() {
        assert!(coarse(1_000_000, true, f64::NAN));
        assert!(coarse(999_950, false, 0.050));
        assert!(coarse(950_000, false, 50.0));
        // 0.057 s read as 56.99999999999999 ms, the start truncated to whole µs.
        assert!(coarse(1_943_001, false, 0.057 * 1000.0));
        assert!(!coarse(950_000, false, 49.0));
        assert!(!coarse(1_000_123, false, f64::NAN));
    }

    fn coarse_probe(input: u16, t_ms: i64, path: u32) -> Probe {
        Probe {
            whole_second: true,
            ..probe(input, t_ms, 0, path)
        }
    }

    #[test]
    fn inputs_of_one_format_never_match_without_an_id_but_are_counted_as_look_alikes() {
        let mut j = joiner(&["nginx", "nginx", "envoy"]);
        j.keep(&probe(0, 1_000, 0, 1), 5);
        assert_eq!(j.find(&probe(1, 1_000, 0, 1)), None, "two replicas");
        let c = j.counts[1];
        assert_eq!((c.look_alike, c.like, c.by_match), (1, Some(0), 0));
        // Another path is no look-alike.
        assert_eq!(j.find(&probe(1, 1_000, 0, 2)), None);
        assert_eq!(j.counts[1].look_alike, 1);
        // A format not known yet matches nothing.
        let mut j = joiner(&["nginx"]);
        j.keep(&probe(0, 1_000, 0, 1), 5);
        assert_eq!(j.find(&probe(1, 1_000, 0, 1)), None);
    }

    #[test]
    fn a_time_known_to_the_second_matches_within_that_second() {
        // nginx's whole-second times (kept first), Envoy's precise ones (looked up).
        let mut j = joiner(&["nginx", "envoy"]);
        j.keep(&coarse_probe(0, 1_000, 1), 5);
        j.keep(&coarse_probe(0, 1_000, 1), 6);
        j.keep(&coarse_probe(0, 3_000, 1), 7);
        // Before the second less the tolerance, or after it plus the tolerance: no match.
        assert_eq!(j.find(&probe(1, 880, 0, 1)), None);
        assert_eq!(j.find(&probe(1, 2_120, 0, 1)), None);
        // Two requests in the second pair off with the two records, the earliest first.
        let rows: Vec<_> = [1_300, 1_950, 1_990]
            .map(|t| j.find(&probe(1, t, 0, 1)).map(|f| f.row))
            .to_vec();
        assert_eq!(rows, [Some(5), Some(6), None]);
        let c = j.counts[1];
        assert_eq!((c.by_match, c.within_second), (2, 2));

        // The other way round: the coarse log read second.
        let mut j = joiner(&["envoy", "nginx"]);
        j.keep(&probe(0, 1_950, 0, 1), 5);
        j.keep(&probe(0, 2_500, 0, 1), 6);
        assert_eq!(j.find(&coarse_probe(1, 1_000, 1)).map(|f| f.row), Some(5));
        assert_eq!(j.find(&coarse_probe(1, 1_000, 1)), None);
        // Two coarse times: within a second of each other.
        let mut j = joiner(&["nginx", "clf"]);
        j.keep(&coarse_probe(0, 5_000, 1), 5);
        assert_eq!(j.find(&coarse_probe(1, 7_000, 1)), None);
        assert_eq!(j.find(&coarse_probe(1, 6_000, 1)).map(|f| f.row), Some(5));
    }
}

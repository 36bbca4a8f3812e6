//! The packed form of events in an event log: what the logs write to memory and spill to disk.
//!
//! A log is read from its start, in the order it was written, so each event is stored against
//! the one before it: a presence byte says which fields differ from their usual value (no
//! duration, the next entry/line, no credential...) and only those follow; the start time is a
//! difference, ids and small numbers LEB128 varints, the duration whole microseconds where
//! that gives back the same f64, and only the operation hash its 8 raw bytes. Fewer fields to
//! decode is what keeps the replays (several passes over every log) as fast as fixed slots.
//! A plain access-log event takes ~20 bytes instead of 64:
//! a third of the bytes to copy into the page cache and read back.

use super::{Event, NONE};

/// The most bytes one packed event takes (1 + 10 + 8 + 2 × 5 + 2 + 3 + 9 + 10 + 4 × 5 + 3 = 76).
pub const MAX_PACKED: usize = 80;

/// What a packed event is stored against: the previous event of the same log.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packing {
    t_us: i64,
    loc: u64,
}

/// Duration tag (when the duration is known): 1 the raw bits follow, else `µs << 1`, whole
/// microseconds.
const DUR_RAW: u64 = 1;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[inline]
fn put(out: &mut [u8; MAX_PACKED], n: &mut usize, mut v: u64) {
    while v >= 0x80 {
        out[*n] = (v as u8) | 0x80;
        *n += 1;
        v >>= 7;
    }
    out[*n] = v as u8;
    *n += 1;
}

/// One varint: the one-byte case (most fields of most events) inline, the rest out of line.
#[inline(always)]
fn get(b: &[u8], at: &mut usize) -> Option<u64> {
    let first = *b.get(*at)?;
    *at += 1;
    if first < 0x80 {
        return Some(first as u64);
    }
    // Two bytes (times a millisecond or so apart, ids past 127) without the loop.
    let second = *b.get(*at)?;
    if second < 0x80 {
        *at += 1;
        return Some((first & 0x7f) as u64 | (second as u64) << 7);
    }
    // Three (durations in µs, start times 10 ms or so apart, ids past 16,383: three fields of
    // a plain log line), also without the call: a third of the decoding was `get_more`.
    // A cut event still reads `None` (the missing byte fails here instead of in `get_more`).
    let third = *b.get(*at + 1)?;
    if third < 0x80 {
        *at += 2;
        return Some((first & 0x7f) as u64 | ((second & 0x7f) as u64) << 7 | (third as u64) << 14);
    }
    get_more(b, at, first)
}

#[inline(never)]
fn get_more(b: &[u8], at: &mut usize, first: u8) -> Option<u64> {
    let mut v = (first & 0x7f) as u64;
    let mut shift = 7u32;
    loop {
        let byte = *b.get(*at)?;
        *at += 1;
        if shift >= 64 {
            return None;
        }
        v |= ((byte & 0x7f) as u64) << shift;
        if byte < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// An id stored plus one (`NONE` is 0).
#[inline(always)]
fn id(b: &[u8], at: &mut usize) -> Option<u32> {
    let v = get(b, at)?;
    (v < 1 << 32).then_some((v as u32).wrapping_sub(1))
}

#[inline(always)]
fn small(b: &[u8], at: &mut usize) -> Option<u16> {
    u16::try_from(get(b, at)?).ok()
}

/// The duration as whole microseconds when that is exact (it is for durations logged in
/// milliseconds or seconds to three or six places).
fn whole_micros(ms: f64) -> Option<u64> {
    if !(0.0..1e12).contains(&ms) {
        return None;
    }
    let us = (ms * 1000.0).round() as u64;
    ((us as f64 / 1000.0).to_bits() == ms.to_bits()).then_some(us)
}

/// Bits of the presence byte that leads each packed event: the field differs from its usual
/// value and follows. Absent: the duration is unknown (NaN), the entry/line is the previous one
/// plus one, no credential, endpoint or detail row (`NONE`), no idempotency key, no nanoseconds.
mod has {
    pub const DUR: u8 = 1;
    pub const LOC: u8 = 2;
    pub const CRED: u8 = 4;
    pub const ENDPOINT: u8 = 8;
    pub const DETAIL: u8 = 16;
    pub const IDEM: u8 = 32;
    pub const T_NS: u8 = 64;
}

impl Event {
    /// Append this event, packed against `prev` (which then describes this one).
    pub fn pack(&self, prev: &mut Packing, out: &mut Vec<u8>) {
        let mut b = [0u8; MAX_PACKED];
        let mut n = 1;
        let mut mask = 0u8;
        put(&mut b, &mut n, zigzag(self.t_us.wrapping_sub(prev.t_us)));
        b[n..n + 8].copy_from_slice(&self.op.to_le_bytes());
        n += 8;
        put(&mut b, &mut n, self.host.wrapping_add(1) as u64);
        put(&mut b, &mut n, self.client.wrapping_add(1) as u64);
        b[n..n + 2].copy_from_slice(&self.status.to_le_bytes());
        n += 2;
        put(&mut b, &mut n, self.flags as u64);
        let bits = self.dur_ms.to_bits();
        if bits != f64::NAN.to_bits() {
            mask |= has::DUR;
            match whole_micros(self.dur_ms) {
                Some(us) => put(&mut b, &mut n, us << 1),
                None => {
                    put(&mut b, &mut n, DUR_RAW);
                    b[n..n + 8].copy_from_slice(&bits.to_le_bytes());
                    n += 8;
                }
            }
        }
        let step = self.loc.wrapping_sub(prev.loc).wrapping_sub(1);
        if step != 0 {
            mask |= has::LOC;
            put(&mut b, &mut n, zigzag(step as i64));
        }
        for (bit, v, usual) in [
            (has::CRED, self.cred, NONE),
            (has::ENDPOINT, self.endpoint, NONE),
            (has::DETAIL, self.detail, NONE),
            (has::IDEM, self.idem, 0),
        ] {
            if v != usual {
                mask |= bit;
                put(&mut b, &mut n, v.wrapping_add(1) as u64);
            }
        }
        if self.t_ns != 0 {
            mask |= has::T_NS;
            put(&mut b, &mut n, self.t_ns as u64);
        }
        b[0] = mask;
        prev.t_us = self.t_us;
        prev.loc = self.loc;
        out.extend_from_slice(&b[..n]);
    }

    /// The event packed at the start of `b` against `prev`, and its length; `None` when `b` does
    /// not hold a whole, well-formed packed event.
    // Inline: returned through memory, the event's fields were stored one by one and read
    // back 16 bytes at a time by the caller (a store-forwarding stall, 10 % of an access run).
    #[inline(always)]
    pub fn unpack(b: &[u8], prev: &mut Packing) -> Option<(Event, usize)> {
        let mask = *b.first()?;
        if mask & 0x80 != 0 {
            return None;
        }
        let mut at = 1;
        let t_us = prev.t_us.wrapping_add(unzigzag(get(b, &mut at)?));
        let op = u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?);
        at += 8;
        let host = id(b, &mut at)?;
        let client = id(b, &mut at)?;
        let status = u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        let flags = small(b, &mut at)?;
        let mut dur_ms = f64::NAN;
        if mask & has::DUR != 0 {
            dur_ms = match get(b, &mut at)? {
                DUR_RAW => {
                    let raw = b.get(at..at + 8)?;
                    at += 8;
                    f64::from_bits(u64::from_le_bytes(raw.try_into().ok()?))
                }
                tag if tag & 1 == 0 => (tag >> 1) as f64 / 1000.0,
                _ => return None,
            };
        }
        let mut step = 0;
        if mask & has::LOC != 0 {
            step = unzigzag(get(b, &mut at)?) as u64;
        }
        let loc = prev.loc.wrapping_add(1).wrapping_add(step);
        let mut field = |bit: u8, usual: u32| -> Option<u32> {
            if mask & bit == 0 {
                return Some(usual);
            }
            id(b, &mut at)
        };
        let cred = field(has::CRED, NONE)?;
        let endpoint = field(has::ENDPOINT, NONE)?;
        let detail = field(has::DETAIL, NONE)?;
        let idem = field(has::IDEM, 0)?;
        let mut t_ns = 0;
        if mask & has::T_NS != 0 {
            t_ns = small(b, &mut at)?;
        }
        prev.t_us = t_us;
        prev.loc = loc;
        Some((
            Event {
                t_us,
                dur_ms,
                op,
                loc,
                host,
                client,
                cred,
                endpoint,
                detail,
                idem,
                status,
                flags,
                t_ns,
                _pad: 0,
            },
            at,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::EVENT_BYTES;

    fn same(a: &Event, b: &Event) -> bool {
        let (mut x, mut y) = ([0u8; EVENT_BYTES], [0u8; EVENT_BYTES]);
        a.encode(&mut x);
        b.encode(&mut y);
        x == y
    }

    fn roundtrip(events: &[Event]) -> usize {
        let (mut w, mut out) = (Packing::default(), Vec::new());
        for e in events {
            e.pack(&mut w, &mut out);
        }
        let (mut r, mut at) = (Packing::default(), 0);
        for e in events {
            let (got, n) = Event::unpack(&out[at..], &mut r).expect("a whole event");
            assert!(same(&got, e), "{got:?} != {e:?}");
            assert!(n <= MAX_PACKED);
            at += n;
        }
        assert_eq!(at, out.len());
        out.len()
    }

    #[test]
    fn a_plain_log_line_packs_small_and_comes_back_the_same() {
        let mut events = vec![];
        for i in 0..100u64 {
            let mut e = Event::for_test(1_700_000_000_000_000 + i as i64 * 1_000, f64::NAN, i, 200);
            e.loc = (3 << 48) | (i + 1);
            e.client = 17;
            events.push(e);
        }
        let bytes = roundtrip(&events);
        assert!(bytes <= 100 * 22 + 16, "{bytes} bytes for 100 events");
    }

    #[test]
    fn extremes_come_back_the_same() {
        let mut a = Event::for_test(Event::UNTIMED, -0.0, u64::MAX, u16::MAX);
        a.loc = u64::MAX;
        a.host = u32::MAX - 1;
        a.client = NONE;
        a.idem = u32::MAX;
        a.flags = u16::MAX;
        a.t_ns = 999;
        let mut b = Event::for_test(i64::MAX, f64::INFINITY, 0, 0);
        b.loc = 0;
        let c = Event::for_test(i64::MIN + 1, f64::from_bits(0x7ff8_0000_0000_0001), 1, 429);
        let d = Event::for_test(5, 0.1 + 0.2, 2, 429);
        let e = Event::for_test(-5, 87.345, 3, 503);
        let f = Event::for_test(0, 1e13, 3, 503);
        roundtrip(&[a, b, c, d, e, f, a]);
    }

    #[test]
    fn cut_or_garbled_bytes_are_refused_not_misread() {
        let e = Event::for_test(1_000, 12.5, 7, 429);
        let mut out = vec![];
        e.pack(&mut Packing::default(), &mut out);
        for cut in 0..out.len() {
            assert!(Event::unpack(&out[..cut], &mut Packing::default()).is_none());
        }
        assert!(Event::unpack(&[0xff; MAX_PACKED], &mut Packing::default()).is_none());
    }

    proptest::proptest! {
        #[test]
        fn any_events_come_back_the_same(
            raw in proptest::collection::vec(
                (proptest::prelude::any::<i64>(), proptest::prelude::any::<u64>(),
                 proptest::prelude::any::<u64>(), proptest::prelude::any::<u32>(),
                 proptest::prelude::any::<u16>(), 0u32..3000), 0..40)
        ) {
            let events: Vec<Event> = raw
                .iter()
                .map(|&(t, bits, loc, id, s, ms)| {
                    let dur = if bits % 3 == 0 { f64::from_bits(bits) } else { ms as f64 / 8.0 };
                    let mut e = Event::for_test(t, dur, bits, s);
                    e.loc = loc;
                    e.client = id;
                    e.detail = id.rotate_left(7);
                    e.flags = s.rotate_left(3);
                    e
                })
                .collect();
            roundtrip(&events);
        }
    }
}

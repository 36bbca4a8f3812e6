//! A line's [`RecordView`] built straight from its parsed fields, without its [`Request`].
//!
//! Most lines of a log are successes that only become an event (see
//! [`crate::analyze::event::map_view`]). Building, then dropping, a full record for each cost
//! more than reading the line (the record's strings and header maps, a shared `Arc` clone per
//! line, the view taken from it). Here the same field readers as [`super::normalize`] fill a
//! view whose strings borrow from the line or from a [`Scratch`] reused line after line. A
//! line that would warn is left to the full record, so warnings come from one place; a test
//! holds the view to `RecordView::of` the full record of every line it takes.
//!
//! [`Request`]: crate::model::Request

use super::{
    body_fingerprint, caps, field, fill_headers, find, found_text, key_id_secret, raw_url_of,
    read_duration, read_status, read_time, response_header_cap, Firsts, Kind, Lookup, Paths,
    Places, RawHeader, RawIdem, VIEW_REQUEST, VIEW_RESPONSE,
};
use crate::analyze::event::{self, RecordView, Signals, ViewHint};
use crate::ingest::lazy::{Node, Obj};
use crate::ingest::Options;
use crate::model::{Headers, Position};
use std::borrow::Cow;

/// What a worker reuses from one line's view to the next: the header maps a view reads and
/// the warnings of the line being read (which send it to the full record).
#[derive(Default)]
pub(super) struct Scratch {
    request: Headers,
    response: Headers,
    warns: Vec<String>,
    /// The raw credential headers' buffer, empty between lines.
    raw: Vec<RawHeader<'static>>,
    /// Where the fields are in the lines of the last layout seen.
    places: Places,
}

/// Build the view of line `n` and hand it to `take`, with the hint `decide` gave for its status
/// and redacted URL. `None`, before `take` is called, when the line needs its full record:
/// `decide` says so (`None`), its status is no success, or reading it warned.
pub(super) fn with_view<R>(
    n: usize,
    o: &Obj<'_>,
    opts: &Options,
    map: &Paths,
    s: &mut Scratch,
    decide: impl FnOnce(u16, &str) -> Option<ViewHint>,
    take: impl FnOnce(&RecordView<'_>, ViewHint) -> R,
) -> Option<R> {
    let red = &opts.redactor;
    let Scratch {
        request,
        response,
        warns,
        raw,
        places,
    } = s;
    places.learn(o, map);
    let map = &Lookup {
        paths: map,
        places: Some(places),
    };
    warns.clear();
    // The status first: a line that is no success (a 429) goes to its full record, which
    // reads everything again, so nothing else is read for it here.
    let status = read_status(o, map, warns);
    if !(200..400).contains(&status) {
        return None;
    }
    let started = read_time(o, map, red, warns);
    let method = found_text(o, field::METHOD, map, caps::METHOD, warns).map(|m| match m {
        Cow::Borrowed(m) => red.method_cow(m),
        Cow::Owned(m) => Cow::Owned(red.method(&m)),
    });
    let raw_url = raw_url_of(o, map, warns);
    let url = red.url_cow(&raw_url);
    let duration_ms = read_duration(o, map, warns);
    if !warns.is_empty() {
        return None;
    }
    let hint = decide(status, &url)?;

    request.clear();
    response.clear();
    let mut raw_req: Vec<RawHeader<'_>> = reuse(std::mem::take(raw));
    let mut asked = Firsts::default();
    let mut raw_idem: Option<RawIdem<'_>> = None;
    if let Some((h, f)) = find(o, field::REQUEST_HEADERS, map) {
        let cap = crate::ingest::har::REQUEST_HEADER_VALUE_MAX;
        asked = fill_headers(
            request,
            &h,
            red,
            Some(&mut raw_req),
            Some(&mut raw_idem),
            cap,
            VIEW_REQUEST,
            warns,
            f,
        );
    }
    // The response headers matter to a view only for its stated limit (and whether one of them
    // is a Retry-After): remembered by their text, which a service repeats (see `RememberedResponses`).
    let mut header_limit = None;
    let mut retry_after_header = false;
    if let Some((h, f)) = find(o, field::RESPONSE_HEADERS, map) {
        let cap = response_header_cap(status);
        let known = RESPONSES.with(|m| m.borrow_mut().get(&h, cap, red.key_id()));
        match known {
            Some(Ok(r)) => (header_limit, retry_after_header) = (r.limit, r.retry_after),
            key => {
                let answered =
                    fill_headers(response, &h, red, None, None, cap, VIEW_RESPONSE, warns, f);
                header_limit = event::stated_limit(response, started);
                retry_after_header = answered.has(Kind::RetryAfter);
                // Remembered only when the answer is the text's alone: no warning (which sends
                // the line to its full record) and no reset read against the time.
                if let Some(Err(slot)) = key {
                    if warns.is_empty() && !event::stated_limit_reads_time(response) {
                        RESPONSES.with(|m| {
                            m.borrow_mut().put(
                                slot,
                                Remembered {
                                    limit: header_limit,
                                    retry_after: retry_after_header,
                                },
                            )
                        });
                    }
                }
            }
        }
    }
    // A Retry-After field is read only for its warnings: no view reads a success's Retry-After.
    if !retry_after_header {
        found_text(o, field::RETRY_AFTER, map, caps::LABEL, warns);
    }
    let body_fingerprint = body_fingerprint(o, red);
    let client = found_text(o, field::CLIENT, map, caps::IDENTITY, warns);
    let client = client.as_deref().map(|c| red.text_borrowing(c));
    let client_ip = found_text(o, field::CLIENT_IP, map, caps::IDENTITY, warns);
    let client_ip = client_ip.as_deref().map(|ip| red.text_borrowing(ip));
    let ua_header = asked.value(Kind::UserAgent, request);
    let ua_field = match ua_header {
        None => found_text(o, field::USER_AGENT, map, caps::IDENTITY, warns),
        Some(_) => None,
    };
    let ua_field = ua_field.as_deref().map(|u| red.text_borrowing(u));
    // The credential's secret, fingerprinted once; the idempotency key is compared with it
    // raw (the record's copies are the redacted key and the fingerprint).
    let secret = crate::redact::credential_secret(
        raw_req.iter().map(|(n, v)| (n.as_ref(), v.as_ref())),
        &raw_url,
    )
    .map(Cow::Borrowed)
    .or_else(|| key_id_secret(o, warns));
    let credential = secret.as_deref().map(|s| red.fingerprint(s));
    let (idem, idem_is_credential) = match &raw_idem {
        Some(i) => (
            i.hash(red),
            match (secret.as_deref(), credential.as_deref()) {
                (Some(s), Some(fp)) => i.holds_credential(red, s, fp),
                _ => false,
            },
        ),
        None => (0, false),
    };
    drop(secret);
    *raw = reuse(raw_req);
    if !warns.is_empty() {
        return None;
    }
    // The client hints `har::client_hints` derives from the redacted request headers.
    let forwarded_for = asked
        .value(Kind::ForwardedFor, request)
        .and_then(|v| v.split(',').next())
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let origin: Option<Cow<'_, str>> = asked
        .value(Kind::Origin, request)
        .filter(|o| !o.is_empty() && *o != "null")
        .map(Cow::Borrowed)
        .or_else(|| {
            asked
                .value(Kind::Referer, request)
                .and_then(crate::http::url::origin)
                .map(Cow::Owned)
        });
    let view = RecordView {
        position: Position::Line(n),
        started,
        duration_ms,
        status,
        method: method.as_deref().unwrap_or(""),
        url: &url,
        client: client.as_deref(),
        user_agent: ua_header.filter(|u| !u.is_empty()).or(ua_field.as_deref()),
        client_ip: client_ip.as_deref().or(forwarded_for),
        pageref: None,
        origin: origin.as_deref(),
        credential: credential.as_deref(),
        idem,
        idem_is_credential,
        body_fingerprint: body_fingerprint.as_deref(),
        header_limit,
        layer_signal: false,
        signals: Signals::default(),
    };
    Some(take(&view, hint))
}

/// What a view reads of a line's response headers.
#[derive(Clone, Copy)]
struct Remembered {
    limit: Option<(u64, u64)>,
    retry_after: bool,
}

/// The response headers' answers for the header texts a thread saw last, direct-mapped by a
/// hash of the text: a service sends the same few headers on every success with a count that
/// cycles, and redacting, storing and reading them again for each line was ~8 % of a JSON-lines
/// run's CPU (`fill_headers` of the response and `stated_limit`). The key is every field's
/// name and value as written (only objects of plain strings, a bounded length), the value cap
/// and the redactor's run id, so an answer is reused only for the same text under the same
/// run: what `fill_headers` and `stated_limit` would answer again.
struct RememberedResponses {
    slots: Vec<Option<(Vec<u8>, Remembered)>>,
    key: Vec<u8>,
}

impl RememberedResponses {
    const SLOTS: usize = 512;
    /// The longest key kept (longer texts are read afresh every time).
    const MAX_KEY: usize = 1024;

    /// `Ok`: the answer remembered for this text; `Err(slot)`: none, `put` it at `slot` once
    /// known; `None`: a text that is not remembered (not an object of plain strings, too long).
    fn get(&mut self, h: &Node<'_>, cap: usize, run: u64) -> Option<Result<Remembered, usize>> {
        let Node::Obj(o) = h else { return None };
        let key = &mut self.key;
        key.clear();
        key.extend_from_slice(&run.to_le_bytes());
        key.extend_from_slice(&(cap as u64).to_le_bytes());
        for (name, value) in o.fields() {
            let Node::Str(Cow::Borrowed(v)) = value else {
                return None;
            };
            if key.len() + name.len() + v.len() + 2 > Self::MAX_KEY {
                return None;
            }
            key.extend_from_slice(name.as_bytes());
            key.push(0);
            key.extend_from_slice(v.as_bytes());
            key.push(0);
        }
        if self.slots.is_empty() {
            self.slots.resize_with(Self::SLOTS, || None);
        }
        use std::hash::BuildHasher;
        let slot =
            foldhash::fast::FixedState::default().hash_one(&key[..]) as usize & (Self::SLOTS - 1);
        match &self.slots[slot] {
            Some((k, r)) if *k == *key => Some(Ok(*r)),
            _ => Some(Err(slot)),
        }
    }

    /// Remember `r` for the text of the last `get` that answered `Err(slot)`.
    fn put(&mut self, slot: usize, r: Remembered) {
        if let Some(s) = self.slots.get_mut(slot) {
            match s {
                Some((k, old)) => {
                    k.clear();
                    k.extend_from_slice(&self.key);
                    *old = r;
                }
                None => *s = Some((self.key.clone(), r)),
            }
        }
    }
}

thread_local! {
    static RESPONSES: std::cell::RefCell<RememberedResponses> =
        const { std::cell::RefCell::new(RememberedResponses { slots: Vec::new(), key: Vec::new() }) };
}

/// An emptied vector of another lifetime, in the same allocation: the raw credential headers
/// borrow from one line, and a new vector per line was an allocation per line. (Collecting an
/// emptied vector into one of the same layout reuses its buffer.)
fn reuse<'b>(mut v: Vec<RawHeader<'_>>) -> Vec<RawHeader<'b>> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

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
    Places, RawHeader, RawIdem, HEADER_PLANS, VIEW_REQUEST, VIEW_RESPONSE,
};
use crate::http::stated;
use crate::ingest::lazy::{Node, Obj};
use crate::ingest::Options;
use crate::model::view::{RecordView, Signals, ViewHint};
use crate::model::{Headers, Position};
use crate::redact::HeaderRule;
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
    /// The line's credential fingerprint.
    fingerprint: String,
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
        fingerprint,
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
    // The credential's secret as the request headers hold it (the URL and a key-id field are
    // asked after them, as `credential_secret` and the full record do).
    let mut header_secret: Option<&str> = None;
    // `fingerprint` holds `header_secret`'s fingerprint (remembered with the text, or made
    // as the text was read).
    let mut fingerprinted = false;
    if let Some((h, f)) = find(o, field::REQUEST_HEADERS, map) {
        let cap = crate::ingest::har::REQUEST_HEADER_VALUE_MAX;
        // A request-header text seen before (less its idempotency keys' values): its kept
        // fields, and where the idempotency key and the secret are, re-read from this line.
        let recalled = REQUESTS.with(|m| {
            m.borrow_mut()
                .recall(&h, red.key_id(), request, fingerprint)
        });
        let hit = match recalled {
            Some(Ok(r)) => r.resolve(&h, cap),
            _ => None,
        };
        match hit {
            Some((a, idem, secret)) => {
                (asked, raw_idem, header_secret) = (a, idem, secret);
                fingerprinted = secret.is_some();
            }
            None => {
                request.clear();
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
                header_secret = crate::redact::credential_secret(
                    raw_req.iter().map(|(n, v)| (n.as_ref(), v.as_ref())),
                    "",
                );
                if let Some(s) = header_secret {
                    red.fingerprint_into(s, fingerprint);
                    fingerprinted = true;
                }
                // Remembered only when reading the text gave no warning (which sends the
                // line to its full record).
                if let (Some(Err(slot)), true) = (recalled, warns.is_empty()) {
                    let secret = header_secret.map(|s| (s, fingerprint.as_str()));
                    if let Some(r) =
                        RememberedRequest::of(&h, request, asked, raw_idem.as_ref(), secret)
                    {
                        REQUESTS.with(|m| m.borrow_mut().put(slot, r));
                    }
                }
            }
        }
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
                header_limit = stated::stated_limit(response, started);
                retry_after_header = answered.has(Kind::RetryAfter);
                // Remembered only when the answer is the text's alone: no warning (which sends
                // the line to its full record) and no reset read against the time.
                if let Some(Err(slot)) = key {
                    if warns.is_empty() && !stated::stated_limit_reads_time(response) {
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
    let secret = header_secret
        .or_else(|| crate::redact::credential_secret(std::iter::empty(), &raw_url))
        .map(Cow::Borrowed)
        .or_else(|| key_id_secret(o, warns));
    let credential = match secret.as_deref() {
        Some(s) => {
            if !fingerprinted {
                red.fingerprint_into(s, fingerprint);
            }
            Some(fingerprint.as_str())
        }
        None => None,
    };
    let (idem, idem_is_credential) = match &raw_idem {
        Some(i) => (
            i.hash(red),
            match (secret.as_deref(), credential) {
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
        credential,
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

/// Answers for the header texts a thread saw last, direct-mapped by a hash of a key the caller
/// builds from the text (in `key`): a service sends the same few headers on every line, and
/// redacting, storing and reading them again for each line cost more than the lookup. A key
/// holds all that decides the answer (the redactor's run id, the text as written), so an
/// answer is reused only where reading the text again would give it again.
struct TextMemo<T> {
    slots: Vec<Option<(Vec<u8>, T)>>,
    key: Vec<u8>,
}

impl<T> TextMemo<T> {
    const SLOTS: usize = 512;
    /// The longest key kept (longer texts are read afresh every time).
    const MAX_KEY: usize = 1024;

    const fn new() -> TextMemo<T> {
        TextMemo {
            slots: Vec::new(),
            key: Vec::new(),
        }
    }

    /// `Ok`: the answer remembered for the key just built; `Err(slot)`: none, `put` it at
    /// `slot` once known.
    fn find(&mut self) -> Result<&T, usize> {
        if self.slots.is_empty() {
            self.slots.resize_with(Self::SLOTS, || None);
        }
        use std::hash::BuildHasher;
        let slot = foldhash::fast::FixedState::default().hash_one(&self.key[..]) as usize
            & (Self::SLOTS - 1);
        match &self.slots[slot] {
            Some((k, r)) if *k == self.key => Ok(r),
            _ => Err(slot),
        }
    }

    /// Remember `r` for the key of the last `find` that answered `Err(slot)`.
    fn put(&mut self, slot: usize, r: T) {
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

/// The response headers' answers (stated limit, Retry-After present): a service repeats its
/// limit headers with a count that cycles, and reading them for each line was ~8 % of a
/// JSON-lines run's CPU (`fill_headers` of the response and `stated_limit`). The key is every
/// field's name and value as written (only objects of plain strings, a bounded length), the
/// value cap and the redactor's run id.
type RememberedResponses = TextMemo<Remembered>;

impl RememberedResponses {
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
        Some(self.find().copied())
    }
}

thread_local! {
    static RESPONSES: std::cell::RefCell<RememberedResponses> =
        const { std::cell::RefCell::new(TextMemo::new()) };
}

/// What a view takes from a request-header text: the fields it keeps (redacted), where the
/// first of each kind went, and where the first idempotency key not blank and the
/// credential's secret are (a field of the header map; the secret a byte range of its value),
/// so that both are re-read, raw, from the line at hand.
struct RememberedRequest {
    kept: Headers,
    asked: Firsts,
    idem: Option<(u32, HeaderRule)>,
    secret: Option<(u32, u32, u32)>,
    /// The secret's fingerprint (empty without one).
    fingerprint: String,
}

/// [`RememberedRequest`] without the map, out of the memo.
#[derive(Clone, Copy)]
struct Recalled {
    asked: Firsts,
    idem: Option<(u32, HeaderRule)>,
    secret: Option<(u32, u32, u32)>,
}

impl RememberedRequest {
    /// What to remember of the request headers `h` once read: `None` when the idempotency key
    /// or the secret is not a plain string of the map (then the line is read afresh next time).
    fn of(
        h: &Node<'_>,
        kept: &Headers,
        asked: Firsts,
        idem: Option<&RawIdem<'_>>,
        secret: Option<(&str, &str)>,
    ) -> Option<RememberedRequest> {
        let idem = match idem {
            // The whole value, not a part of one.
            Some(i) => match locate(h, &i.value)? {
                (field, 0, end) if end as usize == i.value.len() => Some((field, i.rule)),
                _ => return None,
            },
            None => None,
        };
        let (secret, fingerprint) = match secret {
            Some((s, fp)) => (Some(locate(h, s)?), fp.to_string()),
            None => (None, String::new()),
        };
        Some(RememberedRequest {
            kept: kept.clone(),
            asked,
            idem,
            secret,
            fingerprint,
        })
    }
}

impl Recalled {
    /// The line's own idempotency key and secret, where the remembered text had them.
    #[allow(clippy::type_complexity)]
    fn resolve<'a>(
        self,
        h: &Node<'a>,
        cap: usize,
    ) -> Option<(Firsts, Option<RawIdem<'a>>, Option<&'a str>)> {
        let idem = match self.idem {
            Some((field, rule)) => Some(RawIdem {
                value: Cow::Borrowed(string_at(h, field)?),
                rule,
                cap,
            }),
            None => None,
        };
        let secret = match self.secret {
            Some((field, start, end)) => {
                Some(string_at(h, field)?.get(start as usize..end as usize)?)
            }
            None => None,
        };
        Some((self.asked, idem, secret))
    }
}

/// The request headers' texts a thread saw last. The key is the map's layout (its
/// [`Obj::shape`]: the same names in the same places), each field's value as written, except
/// an idempotency key's, which changes with every request: for it only whether it is blank
/// (the first key not blank is the one compared), and the redactor's run id. Only maps of a
/// known layout, of plain strings, are remembered.
type RememberedRequests = TextMemo<RememberedRequest>;

impl RememberedRequests {
    /// `Ok`: the remembered answer, its kept fields copied to `kept` and its secret's
    /// fingerprint to `fingerprint`; `Err(slot)`: none, `put` it at `slot` once known; `None`:
    /// a text that is not remembered.
    fn recall(
        &mut self,
        h: &Node<'_>,
        run: u64,
        kept: &mut Headers,
        fingerprint: &mut String,
    ) -> Option<Result<Recalled, usize>> {
        let Node::Obj(o) = h else { return None };
        if o.shape() == 0 {
            return None;
        }
        let key = &mut self.key;
        key.clear();
        key.extend_from_slice(&run.to_le_bytes());
        key.extend_from_slice(&o.shape().to_le_bytes());
        let fields = o.fields();
        let keyed = HEADER_PLANS
            .try_with(|p| {
                let mut plans = p.borrow_mut();
                let Some(plan) = plans.of(o) else {
                    return false;
                };
                for e in plan {
                    let Some((_, Node::Str(Cow::Borrowed(v)))) = fields.get(e.value as usize)
                    else {
                        return false;
                    };
                    if e.info.kind == Kind::Idempotency {
                        // Its value is read raw, line by line: one that `text_of` would cut
                        // (and warn about) is not remembered.
                        if v.len() > caps::HEADER_VALUE.max {
                            return false;
                        }
                        key.push(if v.trim().is_empty() { 1 } else { 2 });
                    } else {
                        if key.len() + v.len() + 1 > Self::MAX_KEY {
                            return false;
                        }
                        key.extend_from_slice(v.as_bytes());
                    }
                    key.push(0);
                }
                true
            })
            .unwrap_or(false);
        if !keyed {
            return None;
        }
        Some(match self.find() {
            Ok(r) => {
                kept.copy_from(&r.kept);
                fingerprint.clear();
                fingerprint.push_str(&r.fingerprint);
                Ok(Recalled {
                    asked: r.asked,
                    idem: r.idem,
                    secret: r.secret,
                })
            }
            Err(slot) => Err(slot),
        })
    }
}

thread_local! {
    static REQUESTS: std::cell::RefCell<RememberedRequests> =
        const { std::cell::RefCell::new(TextMemo::new()) };
}

/// The plain string value of field `field` of the map `h`.
fn string_at<'a>(h: &Node<'a>, field: u32) -> Option<&'a str> {
    let Node::Obj(o) = h else { return None };
    match o.fields().get(field as usize) {
        Some((_, Node::Str(Cow::Borrowed(s)))) => Some(s),
        _ => None,
    }
}

/// Where `part`, a slice of one of the map's plain string values, lies: the field, and the
/// byte range within its value. Found by address: `part` was borrowed from that value (the
/// idempotency key and the secret come out of the map as slices of the line).
fn locate(h: &Node<'_>, part: &str) -> Option<(u32, u32, u32)> {
    let Node::Obj(o) = h else { return None };
    let at = part.as_ptr() as usize;
    o.fields().iter().enumerate().find_map(|(i, (_, v))| {
        let Node::Str(Cow::Borrowed(s)) = v else {
            return None;
        };
        let start = s.as_ptr() as usize;
        let within = at >= start && at + part.len() <= start + s.len();
        within.then(|| {
            let from = at - start;
            (i as u32, from as u32, (from + part.len()) as u32)
        })
    })
}

/// An emptied vector of another lifetime, in the same allocation: the raw credential headers
/// borrow from one line, and a new vector per line was an allocation per line. (Collecting an
/// emptied vector into one of the same layout reuses its buffer.)
fn reuse<'b>(mut v: Vec<RawHeader<'_>>) -> Vec<RawHeader<'b>> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

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
    body_fingerprint, caps, field, fill_headers, find, found_shown, key_id_secret, raw_url_of,
    read_duration, read_status, read_time, response_header_cap, Firsts, Kind, Lookup, Paths,
    Places, RawHeader, RawIdem, VIEW_ID, VIEW_REQUEST, VIEW_RESPONSE,
};
use crate::http::stated;
use crate::ingest::lazy::Obj;
use crate::ingest::Options;
use crate::model::view::{RecordView, Signals, ViewHint};
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
    /// The line's credential fingerprint.
    fingerprint: String,
    /// Where the fields are in the lines of the last layout seen.
    places: Places,
}

/// Build the view of line `n` and hand it to `take`, with the hint `decide` gave for its status
/// and redacted URL. `None`, before `take` is called, when the line needs its full record:
/// `decide` says so (`None`) for its status and unredacted or redacted URL, its status is no
/// success, or reading it warned.
pub(super) fn with_view<R>(
    n: usize,
    o: &Obj<'_>,
    opts: &Options,
    map: &Paths,
    s: &mut Scratch,
    decide: impl Fn(u16, &str) -> Option<ViewHint>,
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
    // The skim: the unredacted URL's host says whether the line will want its full record
    // anyway (its host's baseline is still filling), before anything is redacted or read.
    // Sending a line to its full record is always exact; the hint the view goes on with is
    // the redacted URL's (the same host in all but odd URLs, asked again then).
    let raw_url = raw_url_of(o, map, warns);
    let skimmed = decide(status, &raw_url)?;
    let started = read_time(o, map, red, warns);
    let method = found_shown(o, field::METHOD, map, red, caps::METHOD, warns).map(|m| match m {
        Cow::Borrowed(m) => red.method_cow(m),
        Cow::Owned(m) => Cow::Owned(red.method(&m)),
    });
    let url = red.url_cow(&raw_url);
    let duration_ms = read_duration(o, map, warns);
    if !warns.is_empty() {
        return None;
    }
    // A URL redaction left as it was (nearly all) has the host the skim asked about.
    let hint = if matches!(url, Cow::Borrowed(_))
        || crate::http::url::host(&url) == crate::http::url::host(&raw_url)
    {
        skimmed
    } else {
        decide(status, &url)?
    };

    request.clear();
    response.clear();
    let mut raw_req: Vec<RawHeader<'_>> = reuse(std::mem::take(raw));
    let mut asked = Firsts::default();
    let mut raw_idem: Option<RawIdem<'_>> = None;
    // The credential's secret as the request headers hold it (the URL and a key-id field are
    // asked after them, as `credential_secret` and the full record do).
    let mut header_secret: Option<&str> = None;
    if let Some((h, f)) = find(o, field::REQUEST_HEADERS, map) {
        let cap = crate::ingest::har::REQUEST_HEADER_VALUE_MAX;
        asked = fill_headers(
            request,
            &h,
            red,
            Some(&mut raw_req),
            Some(&mut raw_idem),
            cap,
            // The request id only when the analysis joins inputs by it (redacting it is a
            // cost every line would pay).
            if opts.request_ids {
                VIEW_REQUEST | VIEW_ID
            } else {
                VIEW_REQUEST
            },
            warns,
            f,
        );
        header_secret = crate::redact::credential_secret(
            raw_req.iter().map(|(n, v)| (n.as_ref(), v.as_ref())),
            "",
        );
    }
    let header_limit = response_limit(o, map, red, response, status, started, warns);
    let body_fingerprint = body_fingerprint(o, red);
    let client = found_shown(o, field::CLIENT, map, red, caps::IDENTITY, warns);
    let client = client.as_deref().map(|c| red.text_borrowing(c));
    let client_ip = found_shown(o, field::CLIENT_IP, map, red, caps::IDENTITY, warns);
    let client_ip = client_ip.as_deref().map(|ip| red.text_borrowing(ip));
    let ua_header = asked.value(Kind::UserAgent, request);
    let ua_field = match ua_header {
        None => found_shown(o, field::USER_AGENT, map, red, caps::IDENTITY, warns),
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
            red.fingerprint_into(s, fingerprint);
            Some(fingerprint.as_str())
        }
        None => None,
    };
    let (idem, idem_is_credential) = idem_of(raw_idem.as_ref(), red, secret.as_deref(), credential);
    drop(secret);
    *raw = reuse(raw_req);
    if !warns.is_empty() {
        return None;
    }
    let (forwarded_for, origin) = client_hints(&asked, request);
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
        request_id: if opts.request_ids {
            crate::model::view::request_id(request)
        } else {
            None
        },
        layer_signal: false,
        signals: Signals::default(),
    };
    Some(take(&view, hint))
}

/// The stated limit of a success's response headers (the only thing a view reads of them,
/// with whether one is a Retry-After); a Retry-After field is read only for its warnings: no
/// view reads a success's Retry-After.
fn response_limit(
    o: &Obj<'_>,
    map: &Lookup<'_>,
    red: &crate::redact::Redactor,
    response: &mut Headers,
    status: u16,
    started: Option<chrono::DateTime<chrono::Utc>>,
    warns: &mut Vec<String>,
) -> Option<(u64, u64)> {
    let mut header_limit = None;
    let mut retry_after_header = false;
    if let Some((h, f)) = find(o, field::RESPONSE_HEADERS, map) {
        let cap = response_header_cap(status);
        let answered = fill_headers(response, &h, red, None, None, cap, VIEW_RESPONSE, warns, f);
        header_limit = stated::stated_limit(response, started);
        retry_after_header = answered.has(Kind::RetryAfter);
    }
    if !retry_after_header {
        found_shown(o, field::RETRY_AFTER, map, red, caps::LABEL, warns);
    }
    header_limit
}

/// The idempotency key's hash, and whether it holds the credential (compared raw with the
/// secret, and with its fingerprint).
fn idem_of(
    raw_idem: Option<&RawIdem<'_>>,
    red: &crate::redact::Redactor,
    secret: Option<&str>,
    credential: Option<&str>,
) -> (u32, bool) {
    match raw_idem {
        Some(i) => (
            i.hash(red),
            match (secret, credential) {
                (Some(s), Some(fp)) => i.holds_credential(red, s, fp),
                _ => false,
            },
        ),
        None => (0, false),
    }
}

/// The client hints `har::client_hints` derives from the redacted request headers: the first
/// forwarded-for address and the origin (or the referer's).
fn client_hints<'h>(
    asked: &Firsts,
    request: &'h Headers,
) -> (Option<&'h str>, Option<Cow<'h, str>>) {
    let forwarded_for = asked
        .value(Kind::ForwardedFor, request)
        .and_then(|v| v.split(',').next())
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let origin = asked
        .value(Kind::Origin, request)
        .filter(|o| !o.is_empty() && *o != "null")
        .map(Cow::Borrowed)
        .or_else(|| {
            asked
                .value(Kind::Referer, request)
                .and_then(crate::http::url::origin)
                .map(Cow::Owned)
        });
    (forwarded_for, origin)
}

/// An emptied vector of another lifetime, in the same allocation: the raw credential headers
/// borrow from one line, and a new vector per line was an allocation per line. (Collecting an
/// emptied vector into one of the same layout reuses its buffer.)
fn reuse<'b>(mut v: Vec<RawHeader<'_>>) -> Vec<RawHeader<'b>> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

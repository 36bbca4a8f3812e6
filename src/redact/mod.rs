//! The redaction policy, applied once at ingestion before anything else sees the data.
//!
//! Every secret becomes `<redacted:XXXXXXXX>`, where `XXXXXXXX` is the first 32 bits of
//! HMAC-SHA256(key, secret). The key is random per run (or read from `--fingerprint-key-file`),
//! so the same secret gets the same fingerprint within a run — the analysis can still tell one
//! credential from another — and nothing can be reversed or matched against a guessed value
//! without the key.

mod decode;
pub mod json;
mod keyed;
mod names;

use crate::memo::Memo;
pub mod parse;
pub mod stream;
mod text;
pub mod tree;
mod url_scan;
mod vendor;

pub use names::{header_rule, is_secret_field, is_secret_header, is_secret_json_field, HeaderRule};

use keyed::KeyedMac;
use regex::{Captures, Regex};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::cell::RefCell;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Is this already a redaction token (`<redacted:0123abcd>`)? Redacting twice changes nothing.
pub fn is_redacted(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 19
        && s.starts_with("<redacted:")
        && b[18] == b'>'
        && b[10..18]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// Applies the policy. Cheap to clone and share across threads.
#[derive(Clone)]
pub struct Redactor {
    /// HMAC-SHA256 with the key's pads already absorbed.
    mac: KeyedMac,
    /// Tells this key's cached fingerprints (and kept texts) from another redactor's on the
    /// same thread.
    key_id: u64,
}

thread_local! {
    static FINGERPRINTS: RefCell<Fingerprints> = const {
        RefCell::new(Fingerprints { memo: Memo::new(FINGERPRINT_SLOTS, CACHEABLE_SECRET + 8), key: Vec::new() })
    };
    /// [`header_rule`] and [`Redactor::may_carry_credential`] of the header names this thread
    /// saw last (the credential scan costs ~170 instructions a name).
    static HEADER_RULES: RefCell<Memo<(HeaderRule, bool)>> = const { RefCell::new(Memo::names()) };
}

/// Slots of the per-thread fingerprint memo (a power of two), and the longest secret it keeps:
/// API keys, session ids and most JWTs; longer ones are fingerprinted every time. The memo is
/// direct-mapped: with 512 slots the realistic bench's 260 credentials shared slots in pairs
/// and evicted each other (one fingerprint in seven computed again); 4,096 slots (128 KiB of
/// slot headers a thread) make that rare (docs/decisions.md, "Fingerprints").
const FINGERPRINT_SLOTS: usize = 4096;
const CACHEABLE_SECRET: usize = 256;

/// Fingerprints of the secrets one thread saw last, keyed by the redactor's run id and the
/// secret: a client sends its one credential on every request, and the keyed hash costs two
/// SHA-256 blocks (on the realistic bench inputs this memo saves 18 % of a JSON-lines run's
/// instructions, 1.4 % of an access log's). It holds plaintext secrets, as the input buffers
/// do while a chunk is read; a [`Memo`] is never printed and zeroes its keys when a slot is
/// reused or the thread ends (docs/decisions.md, "Fingerprint cache").
struct Fingerprints {
    memo: Memo<[u8; 4]>,
    key: Vec<u8>,
}

impl Fingerprints {
    /// The fingerprint of `secret` under `key_id`, computed by `compute` when not remembered.
    fn get_or(&mut self, key_id: u64, secret: &[u8], compute: impl FnOnce() -> [u8; 4]) -> [u8; 4] {
        self.key.clear();
        self.key.extend_from_slice(&key_id.to_le_bytes());
        self.key.extend_from_slice(secret);
        let fp = self.memo.get_or(&self.key, compute);
        wipe(&mut self.key);
        fp
    }
}

/// Zero a buffer that held a secret (volatile writes, not optimized away), then empty it.
fn wipe(buf: &mut Vec<u8>) {
    for b in buf.iter_mut() {
        // SAFETY: `b` is a valid, aligned, exclusive reference to a byte.
        unsafe { std::ptr::write_volatile(b, 0) };
    }
    buf.clear();
}

/// Append the lower-case hex digits of `bytes` (what `format!("{b:02x}")` per byte gives).
fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

/// [`header_rule`] remembered per distinct header name (as written) on this thread: header
/// names repeat on every request.
fn cached_header_rule(name: &str) -> HeaderRule {
    HEADER_RULES
        .try_with(|c| {
            c.borrow_mut()
                .get_or(name.as_bytes(), || rule_and_credential(name))
                .0
        })
        .unwrap_or_else(|_| header_rule(name))
}

/// [`Redactor::may_carry_credential`], remembered per name as [`cached_header_rule`] is.
fn cached_may_carry_credential(name: &str) -> bool {
    HEADER_RULES
        .try_with(|c| {
            c.borrow_mut()
                .get_or(name.as_bytes(), || rule_and_credential(name))
                .1
        })
        .unwrap_or_else(|_| may_carry_credential_scan(name))
}

/// What [`HEADER_RULES`] remembers of a name.
fn rule_and_credential(name: &str) -> (HeaderRule, bool) {
    (header_rule(name), may_carry_credential_scan(name))
}

/// [`Redactor::may_carry_credential`] judged afresh, in one pass over the name's bytes (the
/// four fixed names are compared only at their lengths); `b | 0x20` folds exactly the ASCII
/// letters it is compared with, as `eq_ignore_ascii_case` does.
fn may_carry_credential_scan(name: &str) -> bool {
    let b = name.as_bytes();
    let fixed = match b.len() {
        13 => "authorization",
        19 => "proxy-authorization",
        16 => "x-honeycomb-team",
        15 => "x-jfrog-art-api",
        _ => "",
    };
    if !fixed.is_empty() && name.eq_ignore_ascii_case(fixed) {
        return true;
    }
    let folds = |at: usize, w: &[u8]| {
        b.get(at..at + w.len())
            .is_some_and(|x| x.iter().zip(w).all(|(c, w)| c | 0x20 == *w))
    };
    let mut i = 0;
    while i + 3 <= b.len() {
        match b[i] | 0x20 {
            b'k' if folds(i + 1, b"ey") => return true,
            b't' if folds(i + 1, b"oken") => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

impl Redactor {
    fn with_key(key: [u8; 32]) -> Redactor {
        let mac = KeyedMac::new(&key);
        let id = Sha256::digest([&key[..], b"cache id"].concat());
        let mut key_id = [0u8; 8];
        key_id.copy_from_slice(&id[..8]);
        Redactor {
            mac,
            key_id: u64::from_le_bytes(key_id) | 1,
        }
    }

    /// A redactor with a fresh random key: fingerprints are stable within this run only.
    pub fn random() -> Redactor {
        let mut key = [0u8; 32];
        if getrandom::getrandom(&mut key).is_err() {
            // No OS randomness: fall back to time and address entropy, still never a constant.
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let seed = format!("{t}:{:p}", &key);
            key = Sha256::digest(seed.as_bytes()).into();
        }
        Redactor::with_key(key)
    }

    /// A redactor keyed from file contents, for fingerprints stable across runs.
    pub fn from_key_material(material: &[u8]) -> Redactor {
        Redactor::with_key(Sha256::digest(material).into())
    }

    fn fingerprint_bytes(&self, secret: &str) -> [u8; 4] {
        let compute = || self.mac.tag4(secret.as_bytes());
        if secret.len() > CACHEABLE_SECRET {
            return compute();
        }
        FINGERPRINTS
            .try_with(|c| {
                c.borrow_mut()
                    .get_or(self.key_id, secret.as_bytes(), compute)
            })
            .unwrap_or_else(|_| compute())
    }

    /// The 8-hex-digit keyed fingerprint of a secret.
    pub fn fingerprint(&self, secret: &str) -> String {
        let mut out = String::with_capacity(8);
        self.fingerprint_into(secret, &mut out);
        out
    }

    /// [`Redactor::fingerprint`] written into `out` (emptied first): a reader that
    /// fingerprints a credential on every line keeps one buffer instead of a string a line.
    pub fn fingerprint_into(&self, secret: &str, out: &mut String) {
        out.clear();
        push_hex(out, &self.fingerprint_bytes(secret));
    }

    /// `<redacted:XXXXXXXX>` for a secret (an already-redacted value is returned unchanged).
    pub fn token(&self, secret: &str) -> String {
        let mut out = String::with_capacity(19);
        self.push_token(&mut out, secret);
        out
    }

    /// Append [`Redactor::token`] of `secret` to `out` (no string of its own).
    fn push_token(&self, out: &mut String, secret: &str) {
        if is_redacted(secret) {
            out.push_str(secret);
            return;
        }
        let fp = self.fingerprint_bytes(secret);
        out.push_str("<redacted:");
        push_hex(out, &fp);
        out.push('>');
    }

    /// Redact a header value according to its name.
    pub fn header(&self, name: &str, value: &str) -> String {
        self.header_cow(name, value).into_owned()
    }

    /// [`Redactor::header`], borrowed back when the value is kept as it is (most are): a
    /// caller that copies the result into its own buffer then allocates nothing for it.
    pub fn header_cow<'a>(&self, name: &str, value: &'a str) -> Cow<'a, str> {
        if blank(value) {
            return Cow::Borrowed(value);
        }
        self.header_cow_by_rule(cached_header_rule(name), value)
    }

    /// [`Redactor::header_cow`] for a reader that already knows the name's [`header_rule`]
    /// (it remembers its own per name, so the name is looked up once, not twice).
    pub fn header_cow_by_rule<'a>(&self, rule: HeaderRule, value: &'a str) -> Cow<'a, str> {
        if blank(value) {
            return Cow::Borrowed(value);
        }
        match rule {
            HeaderRule::Authorization | HeaderRule::Authenticate => {
                Cow::Owned(self.authorization(value))
            }
            HeaderRule::Cookie => Cow::Owned(self.cookie_pairs(value)),
            HeaderRule::SetCookie => Cow::Owned(self.set_cookie(value)),
            HeaderRule::Secret => Cow::Owned(self.token(value)),
            HeaderRule::WebSocketProtocol => Cow::Owned(self.websocket_protocols(value)),
            // Named to hold no secret, so no name-based rule applies; a secret's own shape
            // (`Retry-After: Bearer …`) is still one.
            HeaderRule::Exempt => self.shapes_cow(value),
            HeaderRule::Url | HeaderRule::Text => self.text_cow(value, 0),
        }
    }

    /// The credential part of an Authorization value (`Bearer abc` → `Bearer <redacted:…>`),
    /// line by line when several were joined.
    fn authorization(&self, value: &str) -> String {
        if memchr::memchr(b'\n', value.as_bytes()).is_none() {
            return self.authorization_line(value);
        }
        value
            .split('\n')
            .map(|line| self.authorization_line(line))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// One line of an Authorization value.
    fn authorization_line(&self, line: &str) -> String {
        if line.is_ascii() {
            return self.ascii_authorization_line(line);
        }
        self.unicode_authorization_line(line)
    }

    /// [`Redactor::authorization_line`] of any line (Unicode whitespace splits and trims).
    fn unicode_authorization_line(&self, line: &str) -> String {
        let v = line.trim();
        if v.is_empty() || is_redacted(v) {
            return line.to_string();
        }
        match v.split_once(char::is_whitespace) {
            Some((scheme, cred))
                if !cred.trim().is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-') =>
            {
                let mut out = String::with_capacity(scheme.len() + 20);
                out.push_str(scheme);
                out.push(' ');
                self.push_token(&mut out, cred.trim());
                out
            }
            _ => self.token(v),
        }
    }

    /// [`Redactor::authorization_line`] of an ASCII line, with byte operations: Unicode
    /// whitespace is ASCII whitespace there (`\t \n \x0B \x0C \r` and space, what
    /// `char::is_whitespace` says of ASCII), so the answer is the same.
    fn ascii_authorization_line(&self, line: &str) -> String {
        let v = trim_ascii_ws(line);
        if v.is_empty() || is_redacted(v) {
            return line.to_string();
        }
        let split = v
            .bytes()
            .position(is_ascii_ws)
            .map(|i| (&v[..i], &v[i + 1..]));
        match split {
            Some((scheme, cred))
                if !trim_ascii_ws(cred).is_empty()
                    && scheme
                        .bytes()
                        .all(|c| c.is_ascii_alphanumeric() || c == b'-') =>
            {
                let mut out = String::with_capacity(scheme.len() + 20);
                out.push_str(scheme);
                out.push(' ');
                self.push_token(&mut out, trim_ascii_ws(cred));
                out
            }
            _ => self.token(v),
        }
    }

    /// `Cookie`: every value redacted, names and separators kept.
    fn cookie_pairs(&self, value: &str) -> String {
        let mut out = String::with_capacity(value.len() + 16);
        let mut rest = value;
        while let Some(i) = memchr::memchr2(b';', b'\n', rest.as_bytes()) {
            self.push_cookie_pair(&mut out, &rest[..i]);
            out.push_str(&rest[i..i + 1]);
            rest = &rest[i + 1..];
        }
        self.push_cookie_pair(&mut out, rest);
        out
    }

    /// One `name=value` cookie (surrounding spaces kept); a bare value is redacted whole.
    fn cookie_pair(&self, part: &str) -> String {
        let mut out = String::with_capacity(part.len() + 19);
        self.push_cookie_pair(&mut out, part);
        out
    }

    /// Append [`Redactor::cookie_pair`] of `part` to `out`.
    fn push_cookie_pair(&self, out: &mut String, part: &str) {
        let trimmed = part.trim();
        if trimmed.is_empty() {
            out.push_str(part);
            return;
        }
        let lead = &part[..part.len() - part.trim_start().len()];
        let trail = &part[part.trim_end().len()..];
        out.push_str(lead);
        match trimmed.split_once('=') {
            Some((n, v)) if v.trim().is_empty() => {
                out.push_str(n);
                out.push('=');
                out.push_str(v);
            }
            Some((n, v)) => {
                out.push_str(n.trim_end());
                out.push('=');
                self.push_token(out, v.trim());
            }
            None => self.push_token(out, trimmed),
        }
        out.push_str(trail);
    }

    /// `Set-Cookie`: one cookie per line (exporters join several with `\n`, some with `, `);
    /// each cookie's value is redacted, its known attributes kept.
    fn set_cookie(&self, value: &str) -> String {
        value
            .split('\n')
            .map(|line| self.one_set_cookie(line))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn one_set_cookie(&self, line: &str) -> String {
        let mut parts = line.split(';');
        let first = parts.next().unwrap_or("");
        let mut out = self.cookie_pair(first);
        for attr in parts {
            out.push(';');
            let (name, val) = match attr.split_once('=') {
                Some((n, v)) => (n.trim(), Some(v)),
                None => (attr.trim(), None),
            };
            if !COOKIE_ATTRIBUTES.contains(&name.to_ascii_lowercase().as_str()) {
                // Not an attribute: a value, or another cookie joined with `;`.
                self.push_cookie_pair(&mut out, attr);
                continue;
            }
            let Some(val) = val else {
                out.push_str(attr);
                continue;
            };
            // Another cookie joined with `, ` after an attribute (`Expires=Wed, 21 Oct 2015
            // 07:28:00 GMT, b=…`).
            match joined_cookie(val) {
                Some(at) => {
                    out.push_str(&attr[..attr.len() - val.len() + at]);
                    out.push_str(&self.one_set_cookie(&val[at..]));
                    return out;
                }
                None => out.push_str(attr),
            }
        }
        out
    }

    /// `Sec-WebSocket-Protocol`: protocol names kept; a token sent as a subprotocol (the
    /// Kubernetes `base64url.bearer.authorization.k8s.io.` form, the item after an
    /// `access_token` marker, or anything long and random-looking) redacted.
    fn websocket_protocols(&self, value: &str) -> String {
        const K8S: &str = "base64url.bearer.authorization.k8s.io.";
        let mut after_marker = false;
        value
            .split(',')
            .map(|item| {
                let t = item.trim();
                let lead = &item[..item.len() - item.trim_start().len()];
                let trail = &item[item.trim_end().len()..];
                let marker = after_marker;
                after_marker = matches!(
                    t.to_ascii_lowercase().as_str(),
                    "access_token" | "token" | "bearer" | "authorization" | "auth" | "jwt"
                );
                let red = if t.is_empty() || is_redacted(t) || after_marker {
                    t.to_string()
                } else if let Some(tok) = t.strip_prefix(K8S) {
                    format!("{K8S}{}", self.token(tok))
                } else if marker || looks_random(t) {
                    self.token(t)
                } else {
                    self.text(t)
                };
                format!("{lead}{red}{trail}")
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Redact a URL: userinfo, secret query/fragment parameters, webhook and bot tokens in the
    /// path, and tokens anywhere in it.
    pub fn url(&self, url: &str) -> String {
        self.url_cow(url).into_owned()
    }

    /// [`Redactor::url`], borrowed back when nothing in the URL is secret (most are not: a
    /// caller that stores the result by reference copies nothing).
    pub fn url_cow<'a>(&self, url: &'a str) -> Cow<'a, str> {
        match url_scan::fast_url(self, url) {
            Some(red) => red,
            None => self.text_cow(url, 0),
        }
    }

    /// [`Redactor::url`] of a URL the caller owns: the same result, and the caller's string
    /// itself when nothing in it is secret (no second copy per request).
    pub fn url_owned(&self, url: String) -> String {
        match self.url_cow(&url) {
            Cow::Borrowed(_) => url,
            Cow::Owned(red) => red,
        }
    }

    /// Redact a cookie's value (HAR `cookies[].value`).
    pub fn cookie_value(&self, value: &str) -> String {
        if value.is_empty() {
            return String::new();
        }
        self.token(value)
    }

    /// Redact a named field value (query parameter, form field) by its name.
    pub fn field(&self, name: &str, value: &str) -> String {
        if is_secret_field(name) && !value.is_empty() {
            self.token(value)
        } else {
            self.text(value)
        }
    }

    /// Redact free text (bodies, other headers, exporter `_fields`, log lines): URL userinfo,
    /// webhook paths, secret `name=value` and `name: value` pairs (URLs, forms, prose, JSON at
    /// any escaping level, JS, YAML, GraphQL, header lines), multipart parts, HTML hidden inputs
    /// and csrf metas, XML elements, JWTs, `Bearer …` values and vendor key shapes.
    pub fn text(&self, text: &str) -> String {
        self.text_cow(text, 0).into_owned()
    }

    /// [`Redactor::text`], borrowed back when nothing in it is secret (most log fields).
    pub fn text_borrowing<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.text_cow(text, 0)
    }

    /// A name (a header name, a JSON key, a field name quoted in a message): kept, except a
    /// secret written where a name stands (`ghp_…` as a header name, a JWT as a key), which
    /// is redacted by its shape. Names are never judged by the words in them here: `api_key`
    /// is a name, not a secret.
    pub fn name<'a>(&self, name: &'a str) -> Cow<'a, str> {
        self.shapes_cow(name)
    }

    /// Redact then cut to at most `max` bytes at a char boundary. A token cut in half at the end
    /// is dropped, so a truncated secret cannot leak its prefix.
    pub fn excerpt(&self, text: &str, max: usize) -> String {
        // Redact a window a little larger than what we keep, so a secret straddling the cut is
        // still recognized whole.
        let window = floor_char_boundary(text, max.saturating_mul(4).max(max + 4096));
        let red = self.body_cow(&text[..window]).into_owned();
        if red.len() <= max && window == text.len() {
            return red;
        }
        let cut = floor_char_boundary(&red, max);
        let mut kept = &red[..cut];
        // A redaction token cut in half goes whole (half a token is no token, and redacting the
        // excerpt again would fingerprint the half).
        if let Some(i) = kept.rfind('<') {
            if !kept[i..].contains('>')
                && "<redacted:".starts_with(&kept[i..kept.len().min(i + 10)])
            {
                kept = &kept[..i];
            }
        }
        // Drop the trailing partial word.
        if let Some(i) = kept.rfind(|c: char| c.is_whitespace() || "\"',;&{}[]()>".contains(c)) {
            if kept.len() - i < 256 {
                kept = &kept[..=i];
            }
        }
        format!("{kept}…")
    }

    /// An HTTP method as reports show it: upper-cased when it is a method token (`get` →
    /// `GET`); anything else is redacted and kept as the redactor left it (upper-casing first
    /// would hide a secret's shape from the redactor and mangle a redaction token).
    pub fn method(&self, raw: &str) -> String {
        self.method_cow(raw).into_owned()
    }

    /// [`Redactor::method`], borrowing `raw` (trimmed) when it is already an upper-case method:
    /// a log line's `"GET"` needs no string of its own.
    pub fn method_cow<'a>(&self, raw: &'a str) -> Cow<'a, str> {
        let m = raw.trim();
        if m.len() <= 24 && m.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
            return if m.bytes().any(|b| b.is_ascii_lowercase()) {
                Cow::Owned(m.to_ascii_uppercase())
            } else {
                Cow::Borrowed(m)
            };
        }
        Cow::Owned(self.text(m))
    }

    /// An input value quoted in a warning or error: redacted, cut to 40 bytes, in quotes.
    pub fn quote(&self, raw: &str) -> String {
        format!("{:?}", self.excerpt(raw, 40))
    }

    /// Whether [`Redactor::credential`] may read a request header of this name (a superset:
    /// authorization headers and every name with `key` or `token` in it, and two vendors'),
    /// so a reader need keep only these raw values for it.
    ///
    /// Asked for every header of every request: remembered per distinct name on each thread.
    pub fn may_carry_credential(name: &str) -> bool {
        cached_may_carry_credential(name)
    }

    /// The credential a request carried, as a fingerprint, in priority order: Authorization,
    /// API-key headers, key-like query parameters. Input is the *raw* (unredacted) request.
    pub fn credential<'a>(
        &self,
        headers: impl Iterator<Item = (&'a str, &'a str)> + Clone,
        url: &'a str,
    ) -> Option<String> {
        credential_secret(headers, url).map(|s| self.fingerprint(s))
    }

    /// A 32-bit hash of a raw idempotency key (never 0), keyed by this redactor, for a header
    /// redacted by `rule` and stored cut to `cap` bytes: what retries are compared by. Two
    /// keys hash alike where their redacted, cut forms are alike, short of a collision, but
    /// without an HMAC: a log's idempotency keys are new on every operation, so no
    /// fingerprint cache helps, and a fingerprint per request was a tenth of reading a line.
    /// The hash is never written anywhere.
    pub fn idem_hash(&self, rule: HeaderRule, raw: &str, cap: usize) -> u32 {
        // A secret's token stands for the whole value; other values are kept cut.
        let kept = if rule == HeaderRule::Secret {
            raw
        } else {
            let mut k = cap.min(raw.len());
            while k > 0 && !raw.is_char_boundary(k) {
                k -= 1;
            }
            &raw[..k]
        };
        let h = foldhash::fast::FixedState::with_seed(self.key_id).hash_one(kept);
        ((h ^ (h >> 32)) as u32).max(1)
    }

    /// [`Redactor::idem_hash`] for a header name (its rule looked up as redaction does).
    pub fn idem_hash_named(&self, name: &str, raw: &str, cap: usize) -> u32 {
        self.idem_hash(cached_header_rule(name), raw, cap)
    }
}

/// The secret [`Redactor::credential`] fingerprints, borrowed from the raw request (a query
/// parameter's value is percent-decoded only in its name, as before).
pub fn credential_secret<'a>(
    headers: impl Iterator<Item = (&'a str, &'a str)> + Clone,
    url: &'a str,
) -> Option<&'a str> {
    for (n, v) in headers.clone() {
        if n.eq_ignore_ascii_case("authorization") || n.eq_ignore_ascii_case("proxy-authorization")
        {
            let v = v.trim();
            let cred = v
                .split_once(char::is_whitespace)
                .map(|(_, c)| c.trim())
                .unwrap_or(v);
            if !cred.is_empty() {
                return Some(cred);
            }
        }
    }
    for (n, v) in headers {
        let lower = n.to_ascii_lowercase();
        // An idempotency key names one operation, not a caller.
        if lower == "cookie"
            || lower == "set-cookie"
            || lower.starts_with(':')
            || lower.contains("idempoten")
        {
            continue;
        }
        let api_key = lower.contains("key")
            || lower.contains("token")
            || lower == "x-honeycomb-team"
            || lower == "x-jfrog-art-api";
        if api_key && is_secret_header(&lower) && !v.trim().is_empty() {
            return Some(v.trim());
        }
    }
    if !url.contains('?') {
        return None; // no query, no key in it
    }
    let parts = crate::http::url::split(url);
    for (n, v) in crate::http::url::query_pairs(parts.query) {
        let name = decode::percent_decode(n);
        let is_key = QUERY_KEY_NAMES
            .iter()
            .any(|k| k.eq_ignore_ascii_case(&name));
        if is_key && !v.is_empty() {
            return Some(v);
        }
    }
    None
}

/// Query parameters that carry the caller's key (compared ASCII case-insensitively).
const QUERY_KEY_NAMES: &[&str] = &[
    "key",
    "api_key",
    "apikey",
    "api-key",
    "access_token",
    "token",
    "auth",
    "app_key",
    "appid",
    "app_id",
];

/// Set-Cookie attribute names (RFC 6265 and the common extensions), lowercase.
const COOKIE_ATTRIBUTES: &[&str] = &[
    "path",
    "domain",
    "expires",
    "max-age",
    "secure",
    "httponly",
    "samesite",
    "priority",
    "partitioned",
    "version",
    "comment",
    "commenturl",
    "discard",
    "port",
];

/// Where another cookie starts inside an attribute value (`…GMT, b=…`): a comma followed by a
/// `name=` that is not an attribute.
fn joined_cookie(val: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = val[from..].find(',') {
        let at = from + i + 1;
        let rest = val[at..].trim_start();
        let name_end = rest.find(['=', ';', ',', ' ']).unwrap_or(rest.len());
        if rest[name_end..].starts_with('=')
            && name_end > 0
            && !COOKIE_ATTRIBUTES.contains(&rest[..name_end].to_ascii_lowercase().as_str())
        {
            return Some(val.len() - rest.len());
        }
        from = at;
    }
    None
}

/// Is `value` empty or whitespace only (`value.trim().is_empty()`)? Most values start with a
/// visible ASCII byte, which answers at once.
fn blank(value: &str) -> bool {
    match value.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => false,
        _ => value.trim().is_empty(),
    }
}

/// What `char::is_whitespace` says of an ASCII byte (`u8::is_ascii_whitespace` leaves out
/// `\x0B`).
fn is_ascii_ws(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// `s.trim()` of an ASCII `s`.
fn trim_ascii_ws(s: &str) -> &str {
    let b = s.as_bytes();
    let start = b.iter().position(|&c| !is_ascii_ws(c)).unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|&c| !is_ascii_ws(c))
        .map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

/// A token rather than a name: long, with letters and digits (protocol names are short words).
fn looks_random(s: &str) -> bool {
    s.len() >= 32
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Does `text` hold a secret by its shape alone (a vendor key, a JWT, URL userinfo, a
/// `Bearer …` credential)? For a message that shows input names without a redactor at hand:
/// such a name is left out, not fingerprinted.
pub fn shaped_like_a_secret(text: &str) -> bool {
    static R: OnceLock<Redactor> = OnceLock::new();
    matches!(R.get_or_init(Redactor::random).name(text), Cow::Owned(_))
}

/// Strip values quoted in parser messages (serde: `invalid type: string "…", expected f64`,
/// ``unknown variant `…` ``): the value may be a secret the policy did not recognize by name.
pub fn scrub_message(msg: &str) -> String {
    static Q: OnceLock<Regex> = OnceLock::new();
    let q = Q.get_or_init(|| Regex::new(r#""(?:[^"\\]|\\.)*"|`[^`]*`"#).unwrap());
    q.replace_all(msg, |c: &Captures| {
        // Serde's syntax errors quote punctuation (expected `,` or `}`): no value, keep it.
        if c[0].starts_with('`') && !c[0].chars().any(|ch| ch.is_alphanumeric()) {
            c[0].to_string()
        } else {
            "…".to_string()
        }
    })
    .into_owned()
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    let mut i = max;
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> Redactor {
        Redactor::from_key_material(b"test key")
    }

    /// An idempotency key's hash follows its value (as kept: whole for a secret's token,
    /// cut at the cap otherwise) and the redactor's key, and is never 0 ("no key").
    #[test]
    fn idem_hashes_follow_the_kept_value_and_the_key() {
        let (a, b) = (r(), Redactor::from_key_material(b"other key"));
        let plain = HeaderRule::Text;
        let h = |red: &Redactor, v: &str, cap: usize| red.idem_hash(plain, v, cap);
        assert_eq!(h(&a, "k-1", 512), h(&a, "k-1", 512));
        assert_ne!(h(&a, "k-1", 512), h(&a, "k-2", 512));
        assert_ne!(h(&a, "k-1", 512), h(&b, "k-1", 512));
        // Cut at the cap (on a character boundary): keys alike up to it are alike.
        assert_eq!(h(&a, "abcdX", 4), h(&a, "abcdY", 4));
        assert_eq!(h(&a, "abcé", 4), h(&a, "abc", 4));
        // A secret's token stands for the whole value, past any cap.
        let secret = HeaderRule::Secret;
        assert_ne!(
            a.idem_hash(secret, "abcdX", 4),
            a.idem_hash(secret, "abcdY", 4)
        );
        for raw in ["", "x", "k-1", &"z".repeat(600)] {
            assert_ne!(a.idem_hash(plain, raw, 512), 0);
            assert_ne!(a.idem_hash(secret, raw, 512), 0);
        }
        assert_eq!(
            a.idem_hash_named("Idempotency-Key", "k-1", 512),
            a.idem_hash(header_rule("Idempotency-Key"), "k-1", 512)
        );
    }

    /// The credential is the fingerprint of the secret `credential_secret` borrows.
    #[test]
    fn the_credential_is_the_fingerprint_of_its_secret() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, Option<&'a str>);
        let cases: [Case<'_>; 5] = [
            (
                &[("Authorization", "Bearer  tok-1 ")],
                "https://a.example/",
                Some("tok-1"),
            ),
            (
                &[("Idempotency-Key", "k-1"), ("X-Api-Key", " ak ")],
                "https://a.example/",
                Some("ak"),
            ),
            (&[("Idempotency-Key", "k-1")], "https://a.example/", None),
            (&[], "https://a.example/x?api_key=Q1&x=2", Some("Q1")),
            (&[("Authorization", "   ")], "https://a.example/", None),
        ];
        for (headers, url, want) in cases {
            let it = headers.iter().map(|&(n, v)| (n, v));
            assert_eq!(
                credential_secret(it.clone(), url),
                want,
                "{headers:?} {url}"
            );
            assert_eq!(r().credential(it, url), want.map(|s| r().fingerprint(s)));
        }
    }

    /// The hand-written hex and token text are what `format!` wrote before.
    #[test]
    fn tokens_and_fingerprints_are_formatted_as_before() {
        let all: Vec<u8> = (0..=255).collect();
        let mut hex = String::new();
        push_hex(&mut hex, &all);
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, want);
        for secret in [
            "a",
            "Bearer x",
            "sk-test-0000000000000000",
            &"s".repeat(300),
        ] {
            let fp = r().fingerprint_bytes(secret);
            let want_fp: String = fp.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(r().fingerprint(secret), want_fp);
            assert_eq!(
                r().token(secret),
                format!(
                    "<redacted:{:02x}{:02x}{:02x}{:02x}>",
                    fp[0], fp[1], fp[2], fp[3]
                )
            );
        }
        for (cookie, want) in [(" a=1 ; b= ;c", None), ("x=;y", None), ("", Some(""))] {
            let got = r().header("Cookie", cookie);
            let expect: String = want.map(str::to_string).unwrap_or_else(|| {
                cookie
                    .split(';')
                    .map(|part| {
                        let t = part.trim();
                        let lead = &part[..part.len() - part.trim_start().len()];
                        let trail = &part[part.trim_end().len()..];
                        let body = match t.split_once('=') {
                            Some((n, v)) if v.trim().is_empty() => format!("{n}={v}"),
                            Some((n, v)) => format!("{}={}", n.trim_end(), r().token(v.trim())),
                            None if t.is_empty() => String::new(),
                            None => r().token(t),
                        };
                        if t.is_empty() {
                            part.to_string()
                        } else {
                            format!("{lead}{body}{trail}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(";")
            });
            assert_eq!(got, expect, "{cookie:?}");
        }
    }

    /// The cookie code before it pushed into one string, which it must equal.
    fn old_cookie_pairs(r: &Redactor, value: &str) -> String {
        fn pair(r: &Redactor, part: &str) -> String {
            let trimmed = part.trim();
            if trimmed.is_empty() {
                return part.to_string();
            }
            let lead = &part[..part.len() - part.trim_start().len()];
            let trail = &part[part.trim_end().len()..];
            let body = match trimmed.split_once('=') {
                Some((n, v)) if v.trim().is_empty() => format!("{n}={v}"),
                Some((n, v)) => format!("{}={}", n.trim_end(), r.token(v.trim())),
                None => r.token(trimmed),
            };
            format!("{lead}{body}{trail}")
        }
        let mut out = String::new();
        let mut rest = value;
        while let Some(i) = rest.find([';', '\n']) {
            out.push_str(&pair(r, &rest[..i]));
            out.push_str(&rest[i..i + 1]);
            rest = &rest[i + 1..];
        }
        out.push_str(&pair(r, rest));
        out
    }

    proptest::proptest! {
        /// The byte-wise Authorization path answers as the Unicode one on ASCII lines, and
        /// the cookie path as the code before it.
        #[test]
        fn ascii_fast_paths_answer_as_before(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "Bearer", "Basic", "Token", "x-y", "a.b", " ", "  ", "\t", "\x0B", "\x0C", "\r",
                "\n", "=", ";", "sk-test-0000", "<redacted:0123abcd>", "abc", "\u{a0}", "\u{2003}",
                "é", "a=1", "sid", "", ",",
            ]), 0..8),
        ) {
            let s: String = parts.concat();
            let r = r();
            for line in s.split('\n') {
                if line.is_ascii() {
                    proptest::prop_assert_eq!(
                        r.ascii_authorization_line(line),
                        r.unicode_authorization_line(line),
                        "{:?}", line
                    );
                }
            }
            proptest::prop_assert_eq!(r.header("Cookie", &s), old_cookie_pairs(&r, &s));
            proptest::prop_assert_eq!(blank(&s), s.trim().is_empty());
            if s.is_ascii() {
                proptest::prop_assert_eq!(trim_ascii_ws(&s), s.trim());
            }
        }

        /// `header` is `header_cow`, and a borrowed answer is the value itself.
        #[test]
        fn header_cow_is_header(
            name in proptest::sample::select(vec![
                "Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Content-Type", "Referer",
                "Retry-After", "Sec-WebSocket-Protocol", "User-Agent", "X-Session-Token",
            ]),
            value in "[ -~\t]{0,40}",
        ) {
            let r = r();
            let cow = r.header_cow(name, &value);
            if let Cow::Borrowed(b) = &cow {
                proptest::prop_assert_eq!(*b, value.as_str());
            }
            proptest::prop_assert_eq!(cow.into_owned(), r.header(name, &value));
        }
    }

    #[test]
    fn same_secret_same_fingerprint() {
        let r = r();
        assert_eq!(r.token("abc"), r.token("abc"));
        assert_ne!(r.token("abc"), r.token("abd"));
        assert!(r.token("abc").starts_with("<redacted:"));
        // Different key, different fingerprint.
        assert_ne!(
            r.fingerprint("abc"),
            Redactor::from_key_material(b"other").fingerprint("abc")
        );
    }

    #[test]
    fn headers() {
        let r = r();
        assert!(!r
            .header("Authorization", "Bearer SECRET1")
            .contains("SECRET1"));
        assert!(r
            .header("Authorization", "Bearer SECRET1")
            .starts_with("Bearer <redacted:"));
        assert!(!r.header("X-Api-Key", "SECRET2").contains("SECRET2"));
        assert!(!r
            .header("X-Custom-Session-Id", "SECRET3")
            .contains("SECRET3"));
        let c = r.header("Cookie", "a=SECRET4; b=SECRET5");
        assert!(c.starts_with("a=<redacted:") && !c.contains("SECRET"));
        let sc = r.header("Set-Cookie", "sid=SECRET6; Path=/; HttpOnly");
        assert!(sc.contains("Path=/") && !sc.contains("SECRET6"));
        // Rate-limit headers stay readable.
        assert_eq!(
            r.header("anthropic-ratelimit-tokens-remaining", "100"),
            "100"
        );
        assert_eq!(r.header("X-RateLimit-Remaining", "0"), "0");
        assert_eq!(r.header("Retry-After", "12"), "12");
        assert_eq!(r.header(":authority", "api.example.com"), "api.example.com");
    }

    #[test]
    fn urls() {
        let r = r();
        let u = r.url(
            "https://user:PASSW0RD@h.com/x?api_key=SECRET7&page=2&sig=SECRET8#access_token=SECRET9",
        );
        assert!(!u.contains("PASSW0RD") && !u.contains("SECRET"), "{u}");
        assert!(u.contains("page=2"));
        assert!(u.contains("h.com/x"));
    }

    #[test]
    fn bodies() {
        let r = r();
        let b = r.text(
            r#"{"password":"SECRET10","user":"bob","nested":{"client_secret":"SECRET11"},"n":1}"#,
        );
        assert!(!b.contains("SECRET"), "{b}");
        assert!(b.contains("\"user\":\"bob\""));
        let f = r.text("grant_type=refresh&refresh_token=SECRET12&code=SECRET13");
        // Error codes and prose the analysis needs stay readable.
        let e = r#"{"error":{"code":"rate_limit_exceeded","message":"Basic authentication and token budget exceeded"},"code":20429}"#;
        assert_eq!(r.text(e), e);
        assert!(!f.contains("SECRET"), "{f}");
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl";
        assert!(!r.text(&format!("token is {jwt} ok")).contains(jwt));
        assert!(!r.text("auth: Bearer abcdefSECRET14").contains("SECRET14"));
        assert!(!r
            .text("key sk-ant-api03-SECRETSECRETSECRET15 used")
            .contains("SECRET15"));
    }

    #[test]
    fn idempotent() {
        let r = r();
        let once = r.text("https://h/x?token=abcdef&q=1");
        assert_eq!(r.text(&once), once);
        let h = r.header("Authorization", "Bearer abcdef");
        assert_eq!(r.header("Authorization", &h), h);
    }

    #[test]
    fn excerpt_never_leaks_prefix() {
        let r = r();
        let body = format!("{}{}", "x ".repeat(100), "Bearer SECRETSECRETSECRET16");
        let e = r.excerpt(&body, 210);
        assert!(!e.contains("SECRET"), "{e}");
    }

    #[test]
    fn messages_lose_quoted_values() {
        let m = scrub_message(r#"invalid type: string "s3cr3t \"x\"", expected f64 at line 3"#);
        assert_eq!(m, "invalid type: string …, expected f64 at line 3");
        assert_eq!(
            scrub_message("unknown variant `hunter2`, expected one of"),
            "unknown variant …, expected one of"
        );
        assert_eq!(
            scrub_message("expected `,` or `}` at line 5"),
            "expected `,` or `}` at line 5"
        );
    }

    #[test]
    fn methods_and_quoted_values() {
        let r = r();
        assert_eq!(r.method(" get "), "GET");
        assert_eq!(r.method("M-SEARCH"), "M-SEARCH");
        let m = r.method("ghp_SECRETSECRETSECRETSECRET1234");
        assert!(m.starts_with("<redacted:"), "{m}");
        assert_eq!(r.method(&m), m, "idempotent");
        assert!(matches!(r.method_cow(" POST "), Cow::Borrowed("POST")));
        assert!(matches!(r.method_cow("post"), Cow::Owned(ref p) if p == "POST"));
        let q = r.quote(&format!(
            "Bearer SECRET9SECRET {}",
            "x".repeat(20_000_000 / 1000)
        ));
        assert!(!q.contains("SECRET") && q.len() < 60, "{q}");
    }

    #[test]
    fn credential_reads_only_names_that_may_carry_one() {
        let r = r();
        let names = [
            "Authorization",
            "proxy-authorization",
            "X-Api-Key",
            "x-goog-api-key",
            "X-Auth-Token",
            "x-honeycomb-team",
            "X-JFrog-Art-Api",
            "Cookie",
            "Idempotency-Key",
            "User-Agent",
            "apikey",
            "X-Secret",
            "private-token",
            "x-access-token",
            ":authority",
        ];
        // Every single header, and every header after the first k: filtering changes nothing.
        for n in names {
            let one = [(n, "v4lue-Secret-1234")];
            let kept: Vec<_> = one
                .iter()
                .copied()
                .filter(|(n, _)| Redactor::may_carry_credential(n))
                .collect();
            assert_eq!(
                r.credential(one.iter().copied(), ""),
                r.credential(kept.iter().copied(), ""),
                "{n}"
            );
        }
        let all: Vec<(&str, &str)> = names.iter().map(|n| (*n, "s3cr3t-value")).collect();
        for k in 0..all.len() {
            let tail = &all[k..];
            let kept: Vec<_> = tail
                .iter()
                .copied()
                .filter(|(n, _)| Redactor::may_carry_credential(n))
                .collect();
            assert_eq!(
                r.credential(tail.iter().copied(), ""),
                r.credential(kept.iter().copied(), "")
            );
        }
    }

    #[test]
    fn cached_header_rule_is_header_rule() {
        // More names than slots (so slots are overwritten), every case, long and empty names.
        let mut names: Vec<String> = [
            "",
            "Authorization",
            "authorization",
            "Cookie",
            "X-Api-Key",
            "Idempotency-Key",
            "x-ratelimit-reset-requests",
            "x-ratelimit-limit-requests",
            "Sec-WebSocket-Key",
            "Referer",
            "Content-Type",
        ]
        .iter()
        .map(|n| n.to_string())
        .collect();
        names.extend((0..600).map(|i| format!("x-custom-{i}-token")));
        names.push("x-".repeat(crate::memo::NAME_MAX / 2) + "token");
        names.push("a".repeat(crate::memo::NAME_MAX));
        for round in 0..3 {
            for n in names.iter().rev().skip(round) {
                assert_eq!(cached_header_rule(n), header_rule(n), "{n}");
                assert_eq!(
                    Redactor::may_carry_credential(n),
                    may_carry_credential_by_definition(n),
                    "{n}"
                );
            }
        }
    }

    /// The definition [`Redactor::may_carry_credential`] implements in one pass.
    fn may_carry_credential_by_definition(name: &str) -> bool {
        let b = name.as_bytes();
        let has = |w: &[u8]| b.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w));
        name.eq_ignore_ascii_case("authorization")
            || name.eq_ignore_ascii_case("proxy-authorization")
            || name.eq_ignore_ascii_case("x-honeycomb-team")
            || name.eq_ignore_ascii_case("x-jfrog-art-api")
            || has(b"key")
            || has(b"token")
    }

    #[test]
    fn may_carry_credential_names() {
        for (n, want) in [
            ("Authorization", true),
            ("PROXY-AUTHORIZATION", true),
            ("X-Honeycomb-Team", true),
            ("x-jfrog-art-api", true),
            ("X-Api-Key", true),
            ("KEY", true),
            ("key", true),
            ("ke", false),
            ("x-ToKeN", true),
            ("tokens", true),
            ("toke", false),
            ("Content-Type", false),
            ("", false),
            ("authorizatio", false),
            ("x-honeycomb-teams", false),
            ("k\u{e9}y", false),
            ("\u{212a}ey", false),
        ] {
            assert_eq!(Redactor::may_carry_credential(n), want, "{n}");
            assert_eq!(may_carry_credential_scan(n), want, "{n}");
            assert_eq!(may_carry_credential_by_definition(n), want, "{n}");
        }
    }

    proptest::proptest! {
        #[test]
        fn may_carry_credential_is_its_definition(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "k", "K", "e", "E", "y", "Y", "t", "T", "o", "O", "n", "N", "-", "x", "a",
                "authorization", "Proxy-", "x-honeycomb-team", "X-JFrog-Art-Api", "\u{e9}",
                "\u{212a}", "\u{4b}", "\u{6b}", "\u{cb}", "\u{eb}", "[", "{",
            ]), 0..8),
            raw in "\\PC{0,24}",
        ) {
            let joined = parts.concat();
            proptest::prop_assert_eq!(
                Redactor::may_carry_credential(&joined),
                may_carry_credential_by_definition(&joined)
            );
            proptest::prop_assert_eq!(
                may_carry_credential_scan(&joined),
                may_carry_credential_by_definition(&joined)
            );
            proptest::prop_assert_eq!(
                Redactor::may_carry_credential(&raw),
                may_carry_credential_by_definition(&raw)
            );
        }
    }

    #[test]
    fn credential_priority() {
        let r = r();
        let h = [("Authorization", "Bearer K1"), ("X-Api-Key", "K2")];
        assert_eq!(
            r.credential(h.iter().copied(), "https://h/?key=K3"),
            Some(r.fingerprint("K1"))
        );
        let idem = [("Idempotency-Key", "I1")];
        assert_eq!(r.credential(idem.iter().copied(), ""), None);
        let h2 = [("X-Api-Key", "K2")];
        assert_eq!(
            r.credential(h2.iter().copied(), ""),
            Some(r.fingerprint("K2"))
        );
        let none: [(&str, &str); 0] = [];
        assert_eq!(
            r.credential(none.iter().copied(), "https://h/?key=K3"),
            Some(r.fingerprint("K3"))
        );
    }
}

//! Free text: header values, bodies, exporter fields, log lines, excerpts.
//!
//! One scan with a case-insensitive Aho-Corasick automaton over trigger words tells which
//! matchers could fire at all (a secret word for the name-based ones, `eyJ` for a JWT, a vendor
//! prefix for key shapes…); only those run. Most header values (`application/json`, dates,
//! `max-age=3600`) trigger nothing and are returned as they are, without an allocation.

use super::decode::percent_decode;
use super::names::{header_rule, is_secret_field, is_secret_json_field};
use super::{is_redacted, Redactor};
use crate::memo::Memo;
use aho_corasick::AhoCorasick;
use regex::{Captures, Regex};
use std::borrow::Cow;
use std::sync::OnceLock;
use value::{is_identifier_path, scan_value, ValueKind};

mod value;

/// Matcher families a trigger enables.
const NAMES: u32 = 1 << 0;
const USERINFO: u32 = 1 << 1;
const JWT: u32 = 1 << 2;
const SCHEME: u32 = 1 << 3;
const SHAPE: u32 = 1 << 4;
const WEBHOOK: u32 = 1 << 5;
const HTML: u32 = 1 << 6;
const MULTIPART: u32 = 1 << 7;
const PERCENT: u32 = 1 << 8;

/// Trigger strings (ASCII, any case) and the families they enable. Every secret word of the
/// name tables contains one of the NAMES triggers (`names.rs` tests that it stays so).
pub(super) const TRIGGERS: &[(&str, u32)] = &[
    ("key", NAMES),
    ("token", NAMES),
    ("secret", NAMES),
    ("pass", NAMES),
    ("pw", NAMES),
    ("auth", NAMES),
    ("sess", NAMES),
    ("sid", NAMES),
    ("sig", NAMES),
    ("hmac", NAMES),
    ("cred", NAMES),
    ("jwt", NAMES),
    ("otp", NAMES),
    ("pin", NAMES),
    ("code", NAMES),
    ("ticket", NAMES),
    ("assert", NAMES),
    ("saml", NAMES),
    ("csrf", NAMES),
    ("xsrf", NAMES),
    ("cookie", NAMES),
    ("bearer", NAMES | SCHEME),
    ("basic", SCHEME),
    ("honeycomb", NAMES),
    ("jfrog", NAMES),
    ("@", USERINFO),
    ("eyj", JWT),
    ("%", PERCENT),
    ("<input", HTML),
    ("<meta", HTML),
    ("form-data", MULTIPART),
    ("hooks.slack.com", WEBHOOK),
    ("/webhooks/", WEBHOOK),
    ("api.telegram.org", WEBHOOK),
    ("sk-", SHAPE),
    ("sk_", SHAPE),
    ("rk_", SHAPE),
    ("gh", SHAPE),
    ("github_pat_", SHAPE),
    ("xox", SHAPE),
    ("xapp-", SHAPE),
    ("akia", SHAPE),
    ("asia", SHAPE),
    ("abia", SHAPE),
    ("acca", SHAPE),
    ("aiza", SHAPE),
    ("glpat-", SHAPE),
    ("gldt-", SHAPE),
    ("npm_", SHAPE),
    ("whsec_", SHAPE),
    ("hf_", SHAPE),
    ("sg.", SHAPE),
    ("shp", SHAPE),
    ("ya29.", SHAPE),
    ("_v1_", SHAPE),
    ("pypi-", SHAPE),
    ("glptt-", SHAPE),
    ("glrt-", SHAPE),
    ("gloas-", SHAPE),
    ("glsoat-", SHAPE),
    ("glcbt-", SHAPE),
    ("glimt-", SHAPE),
    ("glagent-", SHAPE),
    ("glffct-", SHAPE),
    ("glc_", SHAPE),
    ("glsa_", SHAPE),
    ("pmak-", SHAPE),
    ("atatt3", SHAPE),
    ("dp.pt.", SHAPE),
    ("dp.st.", SHAPE),
    ("dp.ct.", SHAPE),
    ("dp.sa.", SHAPE),
    ("dapi", SHAPE),
    ("lin_api_", SHAPE),
    ("ntn_", SHAPE),
    ("secret_", SHAPE),
    ("nrak-", SHAPE),
    ("sntr", SHAPE),
    ("sq0", SHAPE),
    ("figd_", SHAPE),
    ("hrku-", SHAPE),
    ("sbp_", SHAPE),
    ("pscale_", SHAPE),
    ("pul-", SHAPE),
    ("age-secret-key-", SHAPE),
    ("bkua_", SHAPE),
    ("ccipat_", SHAPE),
    ("dt0c01.", SHAPE),
    ("gsk_", SHAPE),
    ("xai-", SHAPE),
    ("r8_", SHAPE),
    ("pplx-", SHAPE),
    ("key-", SHAPE),
];

/// The families trigger `i` of the automaton enables: [`TRIGGERS`], then the triggers of the
/// shapes in `vendor.rs`.
fn trigger_flags(i: usize) -> u32 {
    TRIGGERS.get(i).map_or(SHAPE, |t| t.1)
}

/// A pattern compiled on its first use: a run compiles only the matchers its texts reach
/// (compiling all of them cost ~27 M instructions, as much as scanning 2,000 bodies, and the
/// URL check needs only the trigger automaton).
struct Lazy {
    pattern: &'static str,
    re: OnceLock<Regex>,
}

impl Lazy {
    fn new(pattern: &'static str) -> Lazy {
        Lazy {
            pattern,
            re: OnceLock::new(),
        }
    }
}

impl std::ops::Deref for Lazy {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        self.re
            .get_or_init(|| Regex::new(self.pattern).expect("redaction pattern compiles"))
    }
}

struct Matchers {
    triggers: AhoCorasick,
    userinfo: Lazy,
    slack: Lazy,
    discord: Lazy,
    telegram: Lazy,
    multipart: Lazy,
    part_name: Lazy,
    html_tag: Lazy,
    html_attr: Lazy,
    xml: Lazy,
    name_eq: Lazy,
    header_line: Lazy,
    name_colon: Lazy,
    jwt: Lazy,
    scheme: Lazy,
    shapes: Lazy,
}

fn matchers() -> &'static Matchers {
    static M: OnceLock<Matchers> = OnceLock::new();
    M.get_or_init(|| {
        let re = Lazy::new;
        Matchers {
            triggers: AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(TRIGGERS.iter().map(|(t, _)| *t).chain(super::vendor::TRIGGERS.iter().copied()))
                .expect("trigger automaton builds"),
            // scheme://user:pass@ — userinfo never spans quotes or brackets.
            userinfo: re(r#"(?i)\b([a-z][a-z0-9+.\-]*://)([^/?#@\s"'<>\\]+)@"#),
            slack: re(r"(?i)(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9_\-/]+)"),
            discord: re(r"(?i)((?:discord|discordapp)\.com/api(?:/v[0-9]+)?/webhooks/[0-9]+/)([A-Za-z0-9_\-]+)"),
            telegram: re(r"(?i)(api\.telegram\.org/(?:file/)?bot)([0-9]+:[A-Za-z0-9_\-]+)"),
            multipart: re(r"(?i)content-disposition:[ \t]*form-data([^\r\n]*)\r?\n"),
            part_name: re(r#"(?i)(?:^|;)[ \t]*(file)?name="([^"]*)""#),
            html_tag: re(r"(?is)<(input|meta)\b([^<>]*)>"),
            html_attr: re(r#"([A-Za-z_:][\w:.\-]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)"#),
            xml: re(r"<(?:[A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)(?:\s[^<>]*)?>([^<]+)</(?:[A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)\s*>"),
            // name=value in a URL, a form body or prose (after a space, a comma, a quote…).
            name_eq: re(r#"(^|[?&#;\s,(\[{"'|])([A-Za-z0-9_.\-\[\]%+~$]+)=([^&#;\s"'<>\\`]*)"#),
            // `Name: value` at the start of a line: HTTP header lines, YAML.
            header_line: re(r"(?m)^[ \t]*([A-Za-z][A-Za-z0-9_\-]*)[ \t]*:[ \t]*([^\r\n]*)"),
            // name: value / "name": value / 'name' => value / name = 'value' (JSON at any
            // escaping level, JS, GraphQL arguments); the value is scanned by hand.
            // A string's opening quote may stand before the name (`"detail":"apiToken = \"…\""`).
            name_colon: re(r#"(?:^|[\s{,(\[;"])(\\*["']?)([A-Za-z_$][\w$.\-]*)(\\*["']?)[ \t]*(:|=>|=)[ \t]*"#),
            // Three base64url segments starting with a JSON header `{"` (eyJ); JWE has five.
            jwt: re(r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}(?:\.[A-Za-z0-9_\-]*){0,3}"),
            scheme: re(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]{8,}=*)"),
            // Vendor key shapes, as each vendor documents them (docs/guide.md has the list).
            shapes: re(concat!(
                r"\b(?:sk-(?:ant-)?[A-Za-z0-9_\-]{16,}",
                r"|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",
                r"|gh[pousr]_[A-Za-z0-9]{20,}",
                r"|github_pat_[A-Za-z0-9_]{20,}",
                r"|xox[abeposr]-[A-Za-z0-9\-]{10,}",
                r"|xapp-[A-Za-z0-9\-]{10,}",
                r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
                r"|AIza[0-9A-Za-z_\-]{30,}",
                r"|gl(?:pat|dt)-[A-Za-z0-9_\-.]{20,}",
                r"|npm_[A-Za-z0-9]{36}",
                r"|whsec_[A-Za-z0-9+/=]{24,}",
                r"|hf_[A-Za-z0-9]{30,}",
                r"|SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}",
                r"|shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32}",
                r"|ya29\.[A-Za-z0-9_\-.]{20,}",
                r"|do[por]_v1_[a-f0-9]{64}",
                r"|pypi-AgE[A-Za-z0-9_\-]{50,}",
                r"|gl(?:ptt|rt|oas|soat|cbt|imt|agent|ffct)-[A-Za-z0-9_\-.]{20,}",
                r"|gl(?:c|sa)_[A-Za-z0-9_+/=]{32,}",
                r"|PMAK-[0-9a-f]{24}-[0-9a-f]{34}",
                r"|ATATT3[A-Za-z0-9_\-=]{100,}",
                r"|dp\.(?:pt|st|ct|sa)\.[A-Za-z0-9]{40,}",
                r"|dapi[a-f0-9]{32}",
                r"|lin_api_[A-Za-z0-9]{40}",
                r"|(?:ntn|secret)_[A-Za-z0-9]{43,46}",
                r"|NRAK-[A-Z0-9]{27}",
                r"|sntry[su]_[A-Za-z0-9_=+/]{30,}",
                r"|sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,}",
                r"|figd_[A-Za-z0-9_\-]{30,}",
                r"|HRKU-[A-Za-z0-9_\-]{30,}",
                r"|sbp_[a-f0-9]{40}",
                r"|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{30,}",
                r"|pul-[a-f0-9]{40}",
                r"|AGE-SECRET-KEY-1[0-9A-Z]{58}",
                r"|bkua_[a-f0-9]{40}",
                r"|CCIPAT_[A-Za-z0-9_]{20,}",
                r"|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
                r"|gsk_[A-Za-z0-9]{40,}",
                r"|xai-[A-Za-z0-9]{40,}",
                r"|r8_[A-Za-z0-9]{30,}",
                r"|pplx-[A-Za-z0-9]{40,}",
                r"|key-[0-9a-f]{32})",
            )),
        }
    })
}

/// Can no matcher of [`Redactor::text`] change this URL? True for a path without query,
/// fragment, userinfo, percent-escapes or punctuation (optionally after `http://` or
/// `https://`) whose pieces between `/`, `.` and `~` are at most [`PLAIN_PIECE`] bytes, and that
/// names none of the secrets that can be spelled in short pieces (JWT `eyJ…`, `ya29.…`,
/// GitLab tokens, `whsec_…`, webhook URLs). Then the trigger scan is skipped: most request
/// paths in access logs (`/v1/orders/123`, `/static/app.35074.js`) are such, and the result is
/// the URL itself, as the full scan would return it (a property test holds it to that).
///
/// The reference `url_scan::fast_url` is tested against (with [`simple_query_url`]).
#[cfg(test)]
pub(super) fn plain_path(url: &str) -> bool {
    let b = url.as_bytes();
    if memchr::memchr(b'?', b).is_some() {
        return false; // a query is never plain; say so without walking the path first
    }
    let strip = |prefix: &[u8]| {
        (b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix))
            .then(|| &b[prefix.len()..])
    };
    let path = match strip(b"https://").or_else(|| strip(b"http://")) {
        Some(rest) => rest,
        None if b.first() == Some(&b'/') => b,
        None => return false,
    };
    let mut piece = 0usize;
    let mut letters = false;
    for &c in path {
        match c {
            b'/' | b'.' | b'~' => piece = 0,
            b'0'..=b'9' | b'_' | b'-' => piece += 1,
            b'A'..=b'Z' | b'a'..=b'z' => {
                piece += 1;
                letters = true;
            }
            _ => return false,
        }
        if piece > PLAIN_PIECE {
            return false;
        }
    }
    !letters || !spells_a_short_secret(path)
}

/// Does `path` hold one of [`SPELLED_IN_SHORT_PIECES`], in any case? One pass: only where
/// two bytes start a needle (looked up in [`SPELLED_PAIRS`]; `| 0x20` lower-cases a letter and
/// leaves digits as they are) is a needle compared.
#[cfg(test)]
fn spells_a_short_secret(path: &[u8]) -> bool {
    path.windows(2)
        .enumerate()
        .any(|(i, w)| starts_a_needle(w[0], w[1]) && spells_at(path, i))
}

/// Could a needle of [`SPELLED_IN_SHORT_PIECES`] start with these two bytes (any case)?
#[cfg(test)]
pub(super) fn starts_a_needle(first: u8, second: u8) -> bool {
    let k = usize::from(first | 0x20) << 8 | usize::from(second | 0x20);
    SPELLED_PAIRS[k >> 6] >> (k & 63) & 1 != 0
}

/// Does a needle of [`SPELLED_IN_SHORT_PIECES`] start at byte `i` of `path` (any case)?
#[cfg(test)]
pub(super) fn spells_at(path: &[u8], i: usize) -> bool {
    SPELLED_IN_SHORT_PIECES.iter().any(|needle| {
        path.len() - i >= needle.len() && path[i..i + needle.len()].eq_ignore_ascii_case(needle)
    })
}

/// The first two bytes of each of [`SPELLED_IN_SHORT_PIECES`] (lowercase letters and digits,
/// at least three bytes each), as a bit set indexed by `first << 8 | second`.
#[cfg(test)]
static SPELLED_PAIRS: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut i = 0;
    while i < SPELLED_IN_SHORT_PIECES.len() {
        let n = SPELLED_IN_SHORT_PIECES[i];
        assert!(n.len() >= 3 && n[0] | 0x20 == n[0] && n[1] | 0x20 == n[1]);
        let k = (n[0] as usize) << 8 | n[1] as usize;
        t[k >> 6] |= 1 << (k & 63);
        i += 1;
    }
    t
};

/// [`Redactor::text`] of a URL whose only possible secrets are the values of secret-named query
/// parameters (`https://api.example.com/v1/items?page=2&api_key=sk-…`), computed without the
/// regex passes; `None` when the URL is not that simple (the caller runs the full scan).
///
/// Simple means: `http(s)://` or `/` first, then only `[A-Za-z0-9._~/-]` up to one `?`, then
/// `name=value` pairs joined by `&`, names of `[A-Za-z0-9_-]`, values of `[A-Za-z0-9._~/-]`
/// (no escapes, quotes, spaces, `:`, `@`, `#`, `%`, `+`, `;`, `,` or brackets: nothing the
/// userinfo, header-line, `name: value`, HTML, XML or multipart matchers could start on), and
/// every trigger of a JWT or key shape inside the value of a secret-named parameter (which the
/// full scan replaces whole, by name, before it looks for shapes). Webhook, percent and other
/// triggers are never simple. Then the full scan's only change is `name=<token(value)>` for each
/// secret-named, non-empty value, which is what this returns (a property test holds it to that).
///
/// The reference `url_scan::fast_url` is tested against (with [`plain_path`]).
#[cfg(test)]
pub(super) fn simple_query_url<'a>(red: &Redactor, url: &'a str) -> Option<Cow<'a, str>> {
    let b = url.as_bytes();
    let strip = |prefix: &[u8]| {
        (b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix))
            .then_some(prefix.len())
    };
    let after_scheme = match strip(b"https://").or_else(|| strip(b"http://")) {
        Some(n) => n,
        None if b.first() == Some(&b'/') => 0,
        None => return None,
    };
    let path_char =
        |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'/' | b'-');
    let q = memchr::memchr(b'?', b)?;
    if !b[after_scheme..q].iter().all(|&c| path_char(c)) {
        return None;
    }
    // Secret values as byte ranges of `url`.
    let mut secret: Vec<(usize, usize)> = Vec::new();
    let mut at = q + 1;
    for pair in url[q + 1..].split('&') {
        let (name, value) = pair.split_once('=')?;
        if name.is_empty()
            || !name
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
            || !value.bytes().all(path_char)
        {
            return None;
        }
        if !value.is_empty() && is_secret_field(name) {
            let start = at + name.len() + 1;
            secret.push((start, start + value.len()));
        }
        at += pair.len() + 1;
    }
    if short_and_unspelled(&b[after_scheme..], after_scheme, &secret) {
        // No key shape, JWT or webhook can be written outside the secret values (see
        // `short_pieces_outside`), and none of the other matchers can start in a simple URL:
        // the trigger scan could only say yes, so it is skipped.
        return Some(with_secrets_redacted(red, url, &secret));
    }
    trigger_flags_allow(url, &secret).then(|| with_secrets_redacted(red, url, &secret))
}

/// For a simple query URL whose pieces are not all short: does every trigger in it either
/// decide by name (or need whitespace, which a simple URL has none of), or enable only the JWT
/// and key-shape matchers and lie inside a secret value (replaced whole, by name, first)? Then
/// the full scan changes only the secret values.
pub(super) fn trigger_flags_allow(url: &str, secret: &[(usize, usize)]) -> bool {
    for hit in matchers().triggers.find_overlapping_iter(url) {
        let flags = trigger_flags(hit.pattern().as_usize());
        if flags & !(NAMES | SCHEME) == 0 {
            continue;
        }
        if flags & !(JWT | SHAPE) != 0 {
            return false;
        }
        let inside = secret
            .iter()
            .any(|&(s, e)| s <= hit.start() && hit.end() <= e);
        if !inside {
            return false;
        }
    }
    true
}

/// `url` with each byte range in `secret` (in order) replaced by its token.
pub(super) fn with_secrets_redacted<'a>(
    red: &Redactor,
    url: &'a str,
    secret: &[(usize, usize)],
) -> Cow<'a, str> {
    if secret.is_empty() {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 8 * secret.len());
    let mut last = 0;
    for &(s, e) in secret {
        out.push_str(&url[last..s]);
        red.push_token(&mut out, &url[s..e]);
        last = e;
    }
    out.push_str(&url[last..]);
    Cow::Owned(out)
}

/// [`short_pieces_outside`] and not [`spells_a_short_secret`], in one pass over `rest` that
/// stops at the first long piece outside a secret value or the first spelled needle.
#[cfg(test)]
fn short_and_unspelled(rest: &[u8], offset: usize, secret: &[(usize, usize)]) -> bool {
    let mut piece = 0usize;
    let mut prev = 0u8;
    for (i, &c) in rest.iter().enumerate() {
        if matches!(c, b'/' | b'.' | b'~' | b'?' | b'&' | b'=') {
            piece = 0;
        } else {
            piece += 1;
            // A piece lies wholly inside or outside a secret value (values start after `=`
            // and end at `&` or the end, both separators).
            if piece > PLAIN_PIECE
                && !secret
                    .iter()
                    .any(|&(s, e)| s <= offset + i && offset + i < e)
            {
                return false;
            }
        }
        if i > 0 && starts_a_needle(prev, c) && spells_at(rest, i - 1) {
            return false;
        }
        prev = c;
    }
    true
}

/// The reference [`short_and_unspelled`] is tested against: are the pieces of a simple URL's
/// `rest` (from byte `offset` of the URL on) at most
/// [`PLAIN_PIECE`] bytes long outside the `secret` value ranges? Pieces are runs of
/// `[A-Za-z0-9_-]` between `/ . ~ ? & =`. Every vendor key shape needs a longer run of those
/// (or a prefix [`SPELLED_IN_SHORT_PIECES`] lists), so then no shape can match outside a
/// secret value — the reasoning of [`plain_path`], applied to the path, the parameter names
/// and the values kept as they are.
#[cfg(test)]
fn short_pieces_outside(rest: &[u8], offset: usize, secret: &[(usize, usize)]) -> bool {
    let mut piece = 0usize;
    let mut ranges = secret.iter().peekable();
    let mut i = 0;
    while i < rest.len() {
        if let Some(&&(s, e)) = ranges.peek() {
            if offset + i == s {
                // A secret value: replaced whole by its token, whatever it spells.
                i = e - offset;
                piece = 0;
                ranges.next();
                continue;
            }
        }
        match rest[i] {
            b'/' | b'.' | b'~' | b'?' | b'&' | b'=' => piece = 0,
            _ => {
                piece += 1;
                if piece > PLAIN_PIECE {
                    return false;
                }
            }
        }
        i += 1;
    }
    true
}

/// Longest text whose "nothing to redact" verdict is remembered, and how many such texts one
/// thread remembers (direct-mapped by a hash: a newer text overwrites an older one in its slot).
/// Long enough for a browser's User-Agent (~110–140 bytes), and room for a log's few hundred
/// client names and agents: at 64 bytes and 256 slots every browser agent and most other
/// texts of the real-shaped bench input were scanned again on every line (docs/decisions.md).
const KEPT_TEXT_MAX: usize = 160;
const KEPT_TEXT_SLOTS: usize = 1024;
/// The same for response bodies ([`Redactor::body_cow`]), in a table of their own so that
/// bodies never push short header values out: every 429 of an API tends to carry the same
/// body, whose scan costs ~15k instructions (a tenth of what its whole record costs).
const KEPT_BODY_MAX: usize = 1024;
const KEPT_BODY_SLOTS: usize = 32;

/// Texts the scan found nothing to redact in (`application/json`, a User-Agent, a client
/// name, a rate-limit body): header values and error bodies repeat on every request. Only
/// texts that come back unchanged are remembered — what every report prints verbatim anyway —
/// so this holds no secret. Keyed by the redactor's run id and the text (the memo's rule:
/// another redactor's scan is another answer). On the realistic bench inputs the short texts
/// save 1.5 % of a JSON-lines run's instructions and 1 % of an access log's, the bodies 1 %.
struct KeptTexts {
    memo: Memo<()>,
    key: Vec<u8>,
}

impl KeptTexts {
    const fn new(slots: usize, max_text: usize) -> Self {
        KeptTexts {
            memo: Memo::new(slots, max_text + 8),
            key: Vec::new(),
        }
    }

    fn key(&mut self, key_id: u64, text: &str) {
        self.key.clear();
        self.key.extend_from_slice(&key_id.to_le_bytes());
        self.key.extend_from_slice(text.as_bytes());
    }

    /// Did this key's scan find nothing to redact in `text` before?
    fn before(&mut self, key_id: u64, text: &str) -> bool {
        self.key(key_id, text);
        self.memo.find(&self.key).is_ok()
    }

    /// Remember that this key's scan found nothing to redact in `text`.
    fn keep(&mut self, key_id: u64, text: &str) {
        self.key(key_id, text);
        if let Err(Some(miss)) = self.memo.find(&self.key) {
            self.memo.put(miss, &self.key, ());
        }
    }
}

thread_local! {
    static KEPT_TEXTS: std::cell::RefCell<KeptTexts> =
        const { std::cell::RefCell::new(KeptTexts::new(KEPT_TEXT_SLOTS, KEPT_TEXT_MAX)) };
    static KEPT_BODIES: std::cell::RefCell<KeptTexts> =
        const { std::cell::RefCell::new(KeptTexts::new(KEPT_BODY_SLOTS, KEPT_BODY_MAX)) };
}

/// Did this key's scan find nothing to redact in `text` before, on this thread?
fn kept_before(key_id: u64, text: &str) -> bool {
    KEPT_TEXTS
        .try_with(|k| k.borrow_mut().before(key_id, text))
        .unwrap_or(false)
}

/// Remember that this key's scan found nothing to redact in `text` (at most
/// [`KEPT_TEXT_MAX`] bytes).
fn keep(key_id: u64, text: &str) {
    let _ = KEPT_TEXTS.try_with(|k| k.borrow_mut().keep(key_id, text));
}

/// Can any trigger occur in `text`? Every trigger but `@` and `%` holds an ASCII letter (a test
/// holds the table to that), so text without those — numbers, counters, dates in digits, the
/// values of most rate-limit headers — skips the trigger scan, whose setup costs more than
/// this look at each byte.
fn may_trigger(text: &str) -> bool {
    text.bytes()
        .any(|b| b.is_ascii_alphabetic() || b == b'@' || b == b'%')
}

/// Longest piece [`plain_path`] lets through: every key shape is longer in one piece.
pub(super) const PLAIN_PIECE: usize = 10;

/// Secrets (and the webhook URLs that carry them) that can be written in pieces of at most
/// [`PLAIN_PIECE`] bytes between dots or slashes.
pub(super) const SPELLED_IN_SHORT_PIECES: &[&[u8]] = &[
    b"eyj",
    b"ya29",
    b"glpat",
    b"gldt",
    b"whsec",
    b"slack",
    b"telegram",
    b"discord",
    b"webhook",
];

/// How deep decoded values are searched again (`?q=Bearer%20…` inside a percent-encoded URL).
const MAX_DEPTH: u8 = 3;

/// The matcher families that recognize a secret by its own shape, not by a name beside it.
const SHAPE_FAMILIES: u32 = USERINFO | JWT | SCHEME | SHAPE | WEBHOOK;

/// No text shorter than this holds a shape [`SHAPE_FAMILIES`] find: a JWT is at least
/// `eyJ` + 4 + `.` + 4 bytes, userinfo `a://b@`, a `Bearer` credential 8 bytes after the
/// scheme, every vendor key longer still.
const SHORTEST_SHAPE: usize = 6;

impl Redactor {
    /// Redact free text; borrowed back when nothing in it can be a secret.
    pub(super) fn text_cow<'a>(&self, text: &'a str, depth: u8) -> Cow<'a, str> {
        if !may_trigger(text) {
            return Cow::Borrowed(text);
        }
        let remember = depth == 0 && text.len() <= KEPT_TEXT_MAX;
        if remember && kept_before(self.key_id, text) {
            return Cow::Borrowed(text);
        }
        let out = self.text_scan(text, depth);
        if remember && matches!(out, Cow::Borrowed(_)) {
            keep(self.key_id, text);
        }
        out
    }

    /// [`Redactor::text_cow`] for a response body: one longer than the header values
    /// `text_cow` remembers is remembered in a table of its own when it comes back unchanged.
    pub(super) fn body_cow<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if text.len() <= KEPT_TEXT_MAX || text.len() > KEPT_BODY_MAX || !may_trigger(text) {
            return self.text_cow(text, 0);
        }
        let seen = KEPT_BODIES
            .try_with(|k| k.borrow_mut().before(self.key_id, text))
            .unwrap_or(false);
        if seen {
            return Cow::Borrowed(text);
        }
        let out = self.text_scan(text, 0);
        if matches!(out, Cow::Borrowed(_)) {
            let _ = KEPT_BODIES.try_with(|k| k.borrow_mut().keep(self.key_id, text));
        }
        out
    }

    /// Only what a secret's own shape gives away (URL userinfo, webhook tokens, JWTs,
    /// `Bearer …` / `Basic …` credentials, vendor key shapes), whatever names stand around it:
    /// for names (header names, JSON keys) and for the values of headers whose names say they
    /// hold no secret (`Retry-After`), where a secret-looking name proves nothing.
    pub(super) fn shapes_cow<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if text.len() < SHORTEST_SHAPE || !may_trigger(text) {
            return Cow::Borrowed(text);
        }
        self.text_scan_only(text, 0, SHAPE_FAMILIES)
    }

    /// [`Redactor::text_cow`] without the memory of texts kept as they were.
    fn text_scan<'a>(&self, text: &'a str, depth: u8) -> Cow<'a, str> {
        self.text_scan_only(text, depth, u32::MAX)
    }

    /// [`Redactor::text_scan`] with only the matcher families in `families`.
    fn text_scan_only<'a>(&self, text: &'a str, depth: u8, families: u32) -> Cow<'a, str> {
        let m = matchers();
        let mut flags = 0u32;
        for hit in m.triggers.find_overlapping_iter(text) {
            flags |= trigger_flags(hit.pattern().as_usize());
        }
        flags &= families;
        if flags == 0 {
            return Cow::Borrowed(text);
        }
        let names = flags & (NAMES | PERCENT) != 0;
        let mut out: Cow<'a, str> = Cow::Borrowed(text);
        if flags & USERINFO != 0 && out.contains("://") {
            out = replace(out, &m.userinfo, |c| {
                if is_redacted(&c[2]) {
                    return None;
                }
                Some(format!("{}{}@", &c[1], self.token(&c[2])))
            });
        }
        if flags & WEBHOOK != 0 {
            for re in [&m.slack, &m.discord, &m.telegram] {
                out = replace(out, re, |c| {
                    (!is_redacted(&c[2])).then(|| format!("{}{}", &c[1], self.token(&c[2])))
                });
            }
        }
        if flags & MULTIPART != 0 && names {
            out = self.multipart(out);
        }
        if flags & HTML != 0 {
            out = replace(out, &m.html_tag, |c| self.html_tag(c));
        }
        if names && out.contains("</") {
            out = replace(out, &m.xml, |c| self.xml_element(c));
        }
        if names && out.contains('=') {
            out = replace(out, &m.name_eq, |c| self.name_eq(c, depth));
        }
        if flags & NAMES != 0 && out.contains(':') {
            out = replace(out, &m.header_line, |c| self.header_line(c));
        }
        if flags & NAMES != 0 && (out.contains(':') || out.contains('=')) {
            out = self.name_colon(out);
        }
        if flags & JWT != 0 {
            out = replace(out, &m.jwt, |c| Some(self.token(&c[0])));
        }
        if flags & SCHEME != 0 {
            out = replace(out, &m.scheme, |c| {
                if is_redacted(&c[3]) || !looks_like_credential(&c[3]) {
                    return None;
                }
                Some(format!("{}{}{}", &c[1], &c[2], self.token(&c[3])))
            });
        }
        if flags & SHAPE != 0 {
            out = replace(out, &m.shapes, |c| Some(self.token(&c[0])));
            out = self.vendor_shapes(out);
        }
        out
    }

    /// `<name>content</name>` whose name says it holds a secret: the content redacted, its
    /// surrounding whitespace kept.
    fn xml_element(&self, c: &Captures) -> Option<String> {
        let (name, content) = (&c[1], &c[2]);
        let inner = content.trim();
        if name != &c[3] || inner.is_empty() || is_redacted(inner) {
            return None;
        }
        if !is_secret_json_field(name) {
            return None;
        }
        let whole = &c[0];
        let at = c
            .get(2)
            .map(|g| g.start() - c.get(0).map_or(0, |g| g.start()))?;
        let lead = &content[..content.len() - content.trim_start().len()];
        let trail = &content[content.trim_end().len()..];
        Some(format!(
            "{}{lead}{}{trail}{}",
            &whole[..at],
            self.token(inner),
            &whole[at + content.len()..]
        ))
    }

    /// `Name: value` on a line of its own, for a header name that holds a secret.
    fn header_line(&self, c: &Captures) -> Option<String> {
        let (name, value) = (&c[1], c[2].trim_end());
        if value.is_empty() || is_redacted(value) || !header_rule(name).is_secret() {
            return None;
        }
        let red = self.header(name, value);
        (red != value).then(|| c[0].replacen(value, &red, 1))
    }

    /// `name=value`: the name decides; a value under another name is searched again once
    /// percent-decoded (`?q=Bearer%20…`, `redirect_uri=https%3A%2F%2F…%3Ftoken%3D…`).
    fn name_eq(&self, c: &Captures, depth: u8) -> Option<String> {
        let (pre, name, value) = (&c[1], &c[2], &c[3]);
        if value.is_empty() || value.starts_with('=') || is_redacted(value) {
            return None;
        }
        let secret = if is_secret_field(name) {
            // JavaScript property assignment (`e.token=t.token`), not a parameter.
            !(name.contains('.') && is_identifier_path(value))
        } else if depth < MAX_DEPTH && value.contains(['%', '+']) {
            let decoded = percent_decode(value);
            matches!(self.text_cow(&decoded, depth + 1), Cow::Owned(ref s) if *s != *decoded)
        } else if depth < MAX_DEPTH && value.contains('?') {
            // A URL as the value of another name (`Refresh: 0; url=https://…?token=…`): the
            // match took the whole URL, so its own parameters are searched again.
            return match self.text_cow(value, depth + 1) {
                Cow::Owned(red) if red != value => Some(format!("{pre}{name}={red}")),
                _ => None,
            };
        } else {
            false
        };
        secret.then(|| format!("{pre}{name}={}", self.token(value)))
    }

    /// A multipart/form-data body: the value of a part named like a secret.
    fn multipart<'a>(&self, text: Cow<'a, str>) -> Cow<'a, str> {
        let m = matchers();
        let mut out = String::new();
        let mut last = 0;
        for c in m.multipart.captures_iter(&text) {
            let whole = c.get(0).expect("group 0");
            if whole.start() < last {
                continue;
            }
            let mut name = None;
            let mut file = false;
            for p in m.part_name.captures_iter(&c[1]) {
                if p.get(1).is_some() {
                    file = true;
                } else {
                    name = Some(p[2].to_string());
                }
            }
            // Skip the part's other header lines up to the blank line.
            let mut at = whole.end();
            loop {
                let rest = &text[at..];
                let line_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
                let line = &rest[..line_end];
                at += line_end;
                if line.trim().is_empty() || at >= text.len() {
                    break;
                }
            }
            let rest = &text[at..];
            let end = rest
                .find("\r\n--")
                .or_else(|| rest.find("\n--"))
                .unwrap_or(rest.len());
            let value = &rest[..end];
            let secret = !file
                && name.as_deref().is_some_and(is_secret_field)
                && !value.is_empty()
                && !is_redacted(value);
            if secret {
                out.push_str(&text[last..at]);
                out.push_str(&self.token(value));
                last = at + end;
            }
        }
        if last == 0 {
            return text;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// `<input type="hidden" …>`, `<input type="password" …>`, an input or a `<meta>` named like
    /// a secret (`<meta name="csrf-token" content="…">`): the value or content is redacted.
    fn html_tag(&self, c: &Captures) -> Option<String> {
        let m = matchers();
        let tag = c[1].to_ascii_lowercase();
        let attrs = &c[2];
        let mut kind = String::new();
        let mut named = false;
        let mut target = None;
        for a in m.html_attr.captures_iter(attrs) {
            let key = a[1].to_ascii_lowercase();
            let raw = a.get(2).expect("value group");
            let val = raw.as_str().trim_matches(['"', '\'']);
            match key.as_str() {
                "type" => kind = val.to_ascii_lowercase(),
                "name" | "id" | "property" | "itemprop" | "http-equiv" => {
                    named |= is_secret_field(val)
                }
                "value" if tag == "input" => target = Some(raw),
                "content" if tag == "meta" => target = Some(raw),
                _ => {}
            }
        }
        let hidden = tag == "input" && (kind == "hidden" || kind == "password");
        let target = target?;
        let inner = target.as_str().trim_matches(['"', '\'']);
        if !(hidden || named) || inner.is_empty() || is_redacted(inner) {
            return None;
        }
        let quote = &target.as_str()
            [..target.as_str().len() - target.as_str().trim_start_matches(['"', '\'']).len()];
        let base = c.get(2).expect("attrs").start() - c.get(0).expect("tag").start();
        let whole = &c[0];
        let (s, e) = (base + target.start(), base + target.end());
        Some(format!(
            "{}{quote}{}{quote}{}",
            &whole[..s],
            self.token(inner),
            &whole[e..]
        ))
    }

    /// `name: value` in JSON (escaped to any depth: `\"password\":\"…\"`), JS (`apiKey: '…'`,
    /// `apiKey = "…"`), YAML and GraphQL arguments (`login(password: \"…\")`).
    fn name_colon<'a>(&self, text: Cow<'a, str>) -> Cow<'a, str> {
        let m = matchers();
        let mut out = String::new();
        let mut last = 0;
        let mut pos = 0;
        while pos < text.len() {
            let Some(c) = m.name_colon.captures_at(&text, pos) else {
                break;
            };
            let whole = c.get(0).expect("group 0");
            // Past the separator only: the blank after it may start the next pair
            // (`said: api_key = "…"`).
            pos = c.get(4).map_or(whole.end(), |s| s.end()).max(pos + 1);
            let (q1, name, q2, sep) = (&c[1], &c[2], &c[3], &c[4]);
            if q1 != q2 || !is_secret_json_field(name) {
                continue;
            }
            let Some(v) = scan_value(&text, whole.end(), q1.is_empty() && sep == "=") else {
                continue;
            };
            let raw = &text[v.start..v.end];
            // `…` is where an excerpt was cut, not a value.
            if raw.is_empty() || is_redacted(raw) || raw == "…" {
                continue;
            }
            // `Authorization: Bearer …` in prose: the scheme matcher takes the credential.
            if v.kind == ValueKind::Bare
                && (raw.eq_ignore_ascii_case("bearer") || raw.eq_ignore_ascii_case("basic"))
            {
                continue;
            }
            let replacement = match v.kind {
                ValueKind::Quoted => self.token(raw),
                ValueKind::Number if q1.contains('"') => format!("\"{}\"", self.token(raw)),
                ValueKind::Number | ValueKind::Bare => self.token(raw),
                ValueKind::Nested => self.nested(raw),
            };
            out.push_str(&text[last..v.start]);
            out.push_str(&replacement);
            last = v.end;
            pos = v.end.max(pos);
        }
        if last == 0 {
            return text;
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    /// Every string and number inside a bracketed value under a secret name (keys kept).
    fn nested(&self, raw: &str) -> String {
        let b = raw.as_bytes();
        let mut out = String::with_capacity(raw.len());
        let mut i = 0;
        let mut last = 0;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && !(b[j] == b'"' && (j == start || b[j - 1] != b'\\')) {
                        j += 1;
                    }
                    let content = &raw[start..j.min(raw.len())];
                    let after = raw[(j + 1).min(raw.len())..].trim_start();
                    if !after.starts_with(':') && !content.is_empty() && !is_redacted(content) {
                        out.push_str(&raw[last..start]);
                        out.push_str(&self.token(content));
                        last = j.min(raw.len());
                    }
                    i = j + 1;
                }
                c if c.is_ascii_digit()
                    || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
                {
                    let prev = if i == 0 { b' ' } else { b[i - 1] };
                    let mut j = i + 1;
                    while j < b.len() && (b[j].is_ascii_digit() || b".eE+-".contains(&b[j])) {
                        j += 1;
                    }
                    if !(prev.is_ascii_alphanumeric() || prev == b'_') {
                        out.push_str(&raw[last..i]);
                        out.push('"');
                        out.push_str(&self.token(&raw[i..j]));
                        out.push('"');
                        last = j;
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
        out.push_str(&raw[last.min(raw.len())..]);
        out
    }
}

/// Replace every match of `re` for which `f` returns a replacement; borrowed when none does.
fn replace<'a>(
    text: Cow<'a, str>,
    re: &Regex,
    mut f: impl FnMut(&Captures) -> Option<String>,
) -> Cow<'a, str> {
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    for c in re.captures_iter(&text) {
        let whole = c.get(0).expect("group 0");
        if let Some(r) = f(&c) {
            out.push_str(&text[last..whole.start()]);
            out.push_str(&r);
            last = whole.end();
            changed = true;
        }
    }
    if !changed {
        return text;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// After `Bearer`/`Basic` in free text: a credential has a digit, mixed case or a token
/// punctuation mark; prose ("Basic authentication") has none.
pub(super) fn looks_like_credential(v: &str) -> bool {
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let punct = v.bytes().any(|b| b"-._~+/=".contains(&b));
    digit || (upper && lower) || punct
}

#[cfg(test)]
mod plain_path_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_paths() {
        for p in [
            "/v1/orders/56546",
            "/static/app.35074.js",
            "https://api.example.com/v1/x",
            "HTTP://a.b/c",
            "/",
        ] {
            assert!(plain_path(p), "{p}");
        }
        for p in [
            "/v1/orders?id=1",
            "/a#b",
            "/u@h",
            "/a%20b",
            "/a b",
            "orders",
            "ftp://h/x",
            "https://h:8443/x",
            "/tokens/sk-abcdefghijklmnopqrstu",
            "/x/eyJhbGci.eyJzdWIi.sig",
            "https://hooks.slack.com/services/T0/B0/x",
            "/webhooks/1/abc",
            "/whsec_/aaaaaaaaaa/bbbbbbbbbb/cccc",
            "/ya29.a0Af/Hb6bbbb/cc.dd",
            "/averyveryverylongsegment",
        ] {
            assert!(!plain_path(p), "{p}");
        }
    }

    proptest! {
        /// The one-pass needle check finds what a scan per needle finds.
        #[test]
        fn one_pass_needles_equal_a_scan_per_needle(
            path in "[a-zA-Z0-9_./~-]{0,40}",
            needle in prop::sample::select(SPELLED_IN_SHORT_PIECES.to_vec()),
            at in 0usize..40,
            upper in any::<bool>(),
        ) {
            let mut p = path.into_bytes();
            if upper || at % 3 == 0 {
                let n: Vec<u8> = if upper { needle.to_ascii_uppercase() } else { needle.to_vec() };
                let at = at.min(p.len());
                p.splice(at..at, n);
            }
            let by_scan = SPELLED_IN_SHORT_PIECES
                .iter()
                .any(|n| p.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n)));
            prop_assert_eq!(spells_a_short_secret(&p), by_scan);
        }
    }

    proptest! {
        /// Wherever the fast path answers, the full scan gives the URL back unchanged.
        #[test]
        fn a_plain_path_is_what_the_full_scan_returns(
            pieces in prop::collection::vec(prop::sample::select(vec![
                "/", ".", "~", "-", "_", "v1", "orders", "12345", "a", "abcdefghij", "AKIA",
                "sk-", "sk_live_", "ghp_", "xoxb-", "eyJ", "hbGciOiJ", "ya29", "glpat-", "whsec_",
                "hooks", "slack", "com", "api", "telegram", "org", "bot123", "discord",
                "webhooks", "token", "key", "pass", "secret", "Bearer", "https://", "http://",
                "SG", "npm_", "hf_", "shpat_", "do", "pypi-AgE", "0123456789abcdef", "xapp-",
                "AIza", "github_pat_", "rk_test_", ":", "@", "=", "?", "%", " ",
            ]), 1..14),
        ) {
            let url: String = pieces.concat();
            if plain_path(&url) {
                let red = Redactor::from_key_material(b"k");
                prop_assert_eq!(red.text(&url), url.clone());
            }
        }
    }
}

#[cfg(test)]
mod simple_query_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn simple_and_not() {
        let red = Redactor::from_key_material(b"k");
        for url in [
            "https://api.example.com/v1/items?page=2&api_key=sk-test-0000000000000000",
            "/v1/x?access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln&page=3",
            "/v1/x?page=3&q=abc",
        ] {
            let fast = simple_query_url(&red, url).expect("simple");
            assert!(!fast.contains("sk-test") && !fast.contains("eyJ"), "{fast}");
            assert_eq!(fast, red.text(url));
        }
        for not in [
            "/v1/x",
            "/v1/x?a",
            "/v1/x?a=1#f",
            "/v1/x?q=a%20b",
            "/v1/x?q=sk-abcdefghijklmnopqrstuv",
            "/v1/x?redirect=hooks.slack.com/services/T/B/x",
            "https://u:p@h/x?a=1",
            "/eyJhbGciOi.eyJzdWIiOi.x?a=1",
            "/v1/x?a=1;token=2",
        ] {
            assert!(simple_query_url(&red, not).is_none(), "{not}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]
        /// Wherever the fast path answers, it answers what the full scan does.
        #[test]
        fn a_simple_query_url_is_what_the_full_scan_returns(
            scheme in prop::sample::select(vec!["https://", "http://", "/", "HTTPS://", "ftp://"]),
            base in prop::collection::vec(prop::sample::select(vec![
                "/", ".", "~", "-", "_", "v1", "api", "example", "com", "/", ".", "/",
                "organizations", "12345", "eyJ", "hbGciOiJ", "sk-", "ghp_", "AKIA", "hooks",
                "slack", "webhooks", "token", "key", "github", "ya29", "SG", "https://", ":",
            ]), 0..8),
            pairs in prop::collection::vec((
                prop::sample::select(vec![
                    "page", "api_key", "apikey", "token", "access_token", "sig", "signature",
                    "code", "q", "id", "key", "client_secret", "x-api-key", "pass", "session",
                    "state", "redirect", "a.b", "", "sk-live", "eyJx",
                ]),
                prop::collection::vec(prop::sample::select(vec![
                    "", "0", "abc", "sk-", "test-", "0000000000000000", "eyJhbGciOiJIUzI1NiJ9",
                    ".", "eyJzdWIiOiJ1c2VyIn0", "ghp_", "aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "AKIA",
                    "ABCDEFGHIJKLMNOP", "/", "hooks.slack.com", "services", "~", "-", "_",
                    "Bearer", "ya29.", "whsec_", "xoxb-", "AIza", "_v1_", "dop", "SG.", "0", "1",
                    "glpat-", "npm_", "hf_", "shpat_", "xapp-", "rk_test_", "sk_live_", "%20",
                ]), 0..5),
            ), 0..5),
            sep in prop::sample::select(vec!["&", "&", "&", "&", "&", "&", ";", "&&"]),
        ) {
            let mut url: String = format!("{scheme}{}", base.concat());
            let query: Vec<String> = pairs.iter().map(|(n, v)| format!("{n}={}", v.concat())).collect();
            if !query.is_empty() {
                url.push('?');
                url.push_str(&query.join(sep));
            }
            let red = Redactor::from_key_material(b"k");
            if let Some(fast) = simple_query_url(&red, &url) {
                prop_assert_eq!(fast, red.text(&url), "{}", url);
            }
        }
    }
}

#[cfg(test)]
mod short_piece_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_trigger_without_a_letter_is_one_may_trigger_looks_for() {
        for (t, _) in TRIGGERS {
            assert!(may_trigger(t), "{t}");
        }
        for plain in ["", "120", "0", "2026-12-02 01:02:03", "1.5, 2.0; 3", "-"] {
            assert!(!may_trigger(plain), "{plain}");
            assert_eq!(r().text(plain), plain);
        }
    }

    fn r() -> Redactor {
        Redactor::from_key_material(b"k")
    }

    /// URLs the trigger scan turned away (a shape or webhook trigger outside a secret value)
    /// but that only short pieces make up: answered without the full scan, as it answers.
    #[test]
    fn short_pieces_need_no_trigger_scan() {
        let red = Redactor::from_key_material(b"k");
        for url in [
            "/v1/ghosts?page=2",
            "https://api.example.com/v1/orders/0?expand=items",
            "/v1/x?mode=form-data&token=abc",
            "/asia/akia?sk=1",
            "/v1/x?key=eyJhbGci.eyJzdWIi",
        ] {
            let fast = simple_query_url(&red, url).expect("simple");
            assert_eq!(fast, red.text(url), "{url}");
        }
        assert!(
            !short_pieces_outside(b"/v1/abcdefghijk?a=1", 0, &[]),
            "an 11-byte piece"
        );
        // The same piece inside a secret value is skipped.
        let url = b"/v?k=abcdefghijklmnop&b=1";
        assert!(short_pieces_outside(url, 0, &[(5, 21)]));
        assert!(!short_pieces_outside(url, 0, &[]));
    }

    proptest! {
        /// The one-pass check is the two checks it replaces.
        #[test]
        fn one_pass_is_both_checks(
            rest in "[a-zA-Z0-9_./~?&=-]{0,60}",
            cut in prop::collection::vec(0usize..60, 0..6),
            upper in any::<bool>(),
            needle in prop::sample::select(SPELLED_IN_SHORT_PIECES.to_vec()),
            at in 0usize..60,
        ) {
            let mut rest = rest.into_bytes();
            if at % 2 == 0 {
                let n: Vec<u8> = if upper { needle.to_ascii_uppercase() } else { needle.to_vec() };
                let at = at.min(rest.len());
                rest.splice(at..at, n);
            }
            // Secret ranges: the values after `=` up to the next `&`, at some of the `=`s.
            let mut secret = Vec::new();
            for (i, &c) in rest.iter().enumerate() {
                if c == b'=' && cut.contains(&(i % 60)) {
                    let end = rest[i + 1..].iter().position(|&c| c == b'&').map_or(rest.len(), |p| i + 1 + p);
                    if end > i + 1 && secret.last().is_none_or(|&(_, e)| e <= i) {
                        secret.push((i + 1, end));
                    }
                }
            }
            let both = short_pieces_outside(&rest, 0, &secret) && !spells_a_short_secret(&rest);
            prop_assert_eq!(short_and_unspelled(&rest, 0, &secret), both);
        }
    }

    proptest! {
        /// A remembered verdict is the scan's verdict: texts redacted are never remembered, and
        /// a text asked twice gives the same answer as the scan alone.
        #[test]
        fn kept_texts_answer_as_the_scan(
            parts in prop::collection::vec(prop::sample::select(vec![
                "application/json", "orders-sync/1.4", "worker-", "7", "token=", "abc", " ",
                "Bearer ", "sk-live-0000000000000000", "eyJhbGciOi.eyJzdWIi.sig", "key: ",
                "x", "@", "%41", "ghp_", "/", "=", "text/html; charset=utf-8",
            ]), 0..6),
        ) {
            let text: String = parts.concat();
            let red = Redactor::from_key_material(b"kept");
            let scan = red.text_scan(&text, 0).into_owned();
            prop_assert_eq!(red.text(&text), scan.clone());
            prop_assert_eq!(red.text(&text), scan.clone());
            if scan != text && text.len() <= KEPT_TEXT_MAX {
                prop_assert!(!kept_before(red.key_id, &text));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]
        /// Wherever the fast path answers, it answers what the full scan does (pieces chosen to
        /// sit on both sides of the short-piece bound and to spell every trigger family).
        #[test]
        fn short_piece_urls_are_what_the_full_scan_returns(
            scheme in prop::sample::select(vec!["https://", "http://", "/", "HTTP://"]),
            base in prop::collection::vec(prop::sample::select(vec![
                "/", ".", "~", "-", "_", "v1", "gh", "ghost", "sk", "sk-", "sk_", "rk_", "xox",
                "xoxb-", "akia", "AKIA", "asia", "aiza", "AIza", "npm_", "hf_", "sg", "SG", "shp",
                "do", "_v1_", "pypi-", "form-data", "eyj", "ya29", "glpat", "whsec", "slack",
                "discord", "telegram", "webhooks", "hooks", "github", "0123456789", "abcdefghij",
                "k", "ABCDEFGHIJKLMNOP", "test", "live", "bearer", "basic",
            ]), 0..10),
            pairs in prop::collection::vec((
                prop::sample::select(vec![
                    "page", "api_key", "token", "access_token", "sig", "q", "id", "key",
                    "client_secret", "ghp_x", "sk-live", "form-data", "akia", "mode", "session_id",
                    "abcdefghijk", "eyJx", "SG",
                ]),
                prop::collection::vec(prop::sample::select(vec![
                    "", "0", "abc", "sk-", "sk_", "test_", "0000000000", "0000000000000000",
                    "eyJhbGciOi", ".", "/", "~", "-", "_", "ghp_", "gh", "AKIA", "ABCDEFGHIJKLMNOP",
                    "hooks", "slack", "com", "services", "ya29", "whsec_", "xoxb-", "AIza", "_v1_",
                    "dop", "SG", "glpat-", "npm_", "hf_", "shpat_", "xapp-", "rk_test_",
                    "form-data", "abcdefghij", "webhooks",
                ]), 0..6),
            ), 0..5),
        ) {
            let mut url: String = format!("{scheme}{}", base.concat());
            let query: Vec<String> = pairs.iter().map(|(n, v)| format!("{n}={}", v.concat())).collect();
            if !query.is_empty() {
                url.push('?');
                url.push_str(&query.join("&"));
            }
            let red = Redactor::from_key_material(b"k");
            if let Some(fast) = simple_query_url(&red, &url) {
                prop_assert_eq!(fast, red.text(&url), "{}", url);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Redactor;
    use super::*;

    /// Patterns compile on first use: every one must compile, whichever a test reaches.
    #[test]
    fn every_pattern_compiles() {
        let m = matchers();
        for re in [
            &m.userinfo,
            &m.slack,
            &m.discord,
            &m.telegram,
            &m.multipart,
            &m.part_name,
            &m.html_tag,
            &m.html_attr,
            &m.xml,
            &m.name_eq,
            &m.header_line,
            &m.name_colon,
            &m.jwt,
            &m.scheme,
            &m.shapes,
        ] {
            assert!(!re.as_str().is_empty());
        }
    }

    fn r() -> Redactor {
        Redactor::from_key_material(b"text tests")
    }

    fn gone(text: &str, secret: &str) {
        let out = r().text(text);
        assert!(!out.contains(secret), "{secret} survives in {out}");
        assert_eq!(r().text(&out), out, "idempotent on {out}");
    }

    fn kept(text: &str) {
        assert_eq!(r().text(text), text);
    }

    #[test]
    fn plain_values_are_borrowed() {
        for v in [
            "application/json",
            "Mon, 01 Jan 2024 00:00:00 GMT",
            "max-age=3600",
            "gzip, br",
        ] {
            assert!(matches!(r().text_cow(v, 0), Cow::Borrowed(_)), "{v}");
        }
    }

    #[test]
    fn name_value_pairs_anywhere() {
        gone("replay with api_key=S3CRET1 please", "S3CRET1");
        gone("MyApp/1.0 key=S3CRET2", "S3CRET2");
        gone("https://h/x?q=Bearer%20S3CRET3abc&page=1", "S3CRET3");
        gone("https://h/x?%2573ignature=S3CRET4", "S3CRET4");
        gone(
            &format!("https://h/x?{}_access_token=S3CRET5", "x".repeat(80)),
            "S3CRET5",
        );
        gone(
            "a=1&hmac=S3CRET6&api_sig=S3CRET7&passphrase=S3CRET8&_csrf=S3CRET9&pw=S3CRETA",
            "S3CRET",
        );
        gone(
            "cb?redirect_uri=https%3A%2F%2Fapp%2Fcb%3Ftoken%3DS3CRETB",
            "S3CRETB",
        );
        // A value never swallows the JSON around it.
        let j = r#"{"u":"https://h/?token=S3CRETC","next":"x"}"#;
        let out = r().text(j);
        assert!(
            !out.contains("S3CRETC") && out.ends_with(r#"","next":"x"}"#),
            "{out}"
        );
    }

    #[test]
    fn code_comparisons_and_assignments_survive() {
        kept("!function(e,b){var t=1;e.keyCode2==b.which&&t()}");
        kept("if(a.token!=b)x();e.token=t.token;");
        kept("pin-sha256 is computed");
    }

    #[test]
    fn json_js_yaml_graphql_fields() {
        gone(r#"{"password":"S3CRETD","user":"bob"}"#, "S3CRETD");
        gone(r#"{"password": ["S3CRETE", 12345]}"#, "S3CRETE");
        gone(r#"{"otp": 987654}"#, "987654");
        gone(
            r#""{\"password\":\"S3CRETF\",\"user\":\"bob\"}""#,
            "S3CRETF",
        );
        gone(
            r#"{\"data\":\"{\\\"api_key\\\":\\\"S3CRETG\\\"}\"}"#,
            "S3CRETG",
        );
        gone(
            r#"mutation { login(email: \"a@b.c\", password: \"S3CRETH\") { token } }"#,
            "S3CRETH",
        );
        gone("var cfg = {apiKey: 'S3CRETI', region: 'eu'};", "S3CRETI");
        gone("var apiKey = \"S3CRETJ\";", "S3CRETJ");
        gone("service: shop\napi_key: S3CRETK\nretries: 3\n", "S3CRETK");
        gone("$cfg = ['api_key' => 'S3CRETL'];", "S3CRETL");
        kept(
            r#"{"keys_url": "https://api.github.com/repos/o/r/keys{/key_id}", "token_type": "Bearer", "max_tokens": 1024}"#,
        );
        kept(
            r#"{"error":{"code":"rate_limit_exceeded","message":"Basic authentication and token budget exceeded"},"code":20429}"#,
        );
        kept("{apiKey: key, region: r}");
        let b = r().text(r#"{"password":"S3CRETM","n":1}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&b).is_ok(), "{b}");
        let n = r().text(r#"{"pin": 1234, "ok": true}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&n).is_ok(), "{n}");
    }

    #[test]
    fn header_lines() {
        gone("Cookie: sid=S3CRETN", "S3CRETN");
        gone("X-Api-Key: S3CRETO", "S3CRETO");
        gone("password: S3CRETP", "S3CRETP");
        gone(
            "GET / HTTP/1.1\r\nAuthorization: Token S3CRETQ\r\nAccept: */*\r\n",
            "S3CRETQ",
        );
        kept("Note: the limit resets hourly");
    }

    #[test]
    fn multipart_html_xml() {
        let mp = "--XyZ\r\nContent-Disposition: form-data; name=\"api_key\"\r\n\r\nS3CRETR\r\n--XyZ\r\nContent-Disposition: form-data; name=\"comment\"\r\n\r\nhello\r\n--XyZ--\r\n";
        let out = r().text(mp);
        assert!(!out.contains("S3CRETR") && out.contains("hello"), "{out}");
        gone(
            "<form><input type=\"hidden\" name=\"__VIEWSTATE\" value=\"S3CRETS\"></form>",
            "S3CRETS",
        );
        gone("<meta name=\"csrf-token\" content=\"S3CRETT\">", "S3CRETT");
        gone("<input value='S3CRETU' type=password>", "S3CRETU");
        kept("<meta name=\"csrf-param\" content=\"authenticity_token\"><input name=\"q\" value=\"shoes\">");
        gone("<Credentials><SecretAccessKey>S3CRETV</SecretAccessKey><SessionToken>S3CRETW</SessionToken></Credentials>", "S3CRET");
        kept("<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");
    }

    #[test]
    fn webhooks_in_paths() {
        gone(
            "https://hooks.slack.com/services/T000/B000/S3CRETX",
            "S3CRETX",
        );
        let d = r().text("https://discord.com/api/webhooks/123456789012345678/S3CRETY-abc");
        assert!(
            d.contains("/webhooks/123456789012345678/<redacted:") && !d.contains("S3CRETY"),
            "{d}"
        );
        gone(
            "https://api.telegram.org/bot123456:S3CRETZ-DEF1234ghIkl-zyx57W2v1u123ew11/getMe",
            "S3CRETZ",
        );
    }

    #[test]
    fn key_shapes() {
        for k in [
            "glpat-abcdefghij0123456789",
            "npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "xapp-1-A0123456789-1234567890-abcdef",
            "ASIAQ7EXAMPLEKEYIDXZ",
            "whsec_abcdefghijklmnopqrstuvwxyz012345",
            "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456",
            "shpat_0123456789abcdef0123456789abcdef",
            "ya29.a0AfH6SMBx-example-token_value",
            "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NQ",
            "glptt-0123456789abcdefABCDEF",
            "glrt-0123456789abcdefABCDEF",
            "glc_eyJvIjoiMTIzNDU2IiwibiI6InRlc3QtdG9rZW4iLCJrIjoiYWJj",
            "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
            "dp.pt.abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789",
            "dapi0123456789abcdef0123456789abcdef",
            "lin_api_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123",
            "ntn_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456",
            "secret_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456",
            "NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ0",
            "sntrys_eyJpYXQiOjE2ODQwMDAwMDAuMCwidXJsIjoiaHR0cHM6",
            "sq0atp-abcdefghijklmnopqrstuv",
            "figd_abcdefghijklmnopqrstuvwxyz0123456789",
            "HRKU-abcdefghijklmnopqrstuvwxyz0123456789",
            "sbp_0123456789abcdef0123456789abcdef01234567",
            "pscale_tkn_abcdefghijklmnopqrstuvwxyz0123456789",
            "pul-0123456789abcdef0123456789abcdef01234567",
            "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
            "bkua_0123456789abcdef0123456789abcdef01234567",
            "CCIPAT_abcdefghijklmnopqrstuv",
            "gsk_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789",
            "xai-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789",
            "r8_abcdefghijklmnopqrstuvwxyz0123456789",
            "pplx-abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789",
            "key-0123456789abcdef0123456789abcdef",
        ] {
            gone(&format!("note: uses {k} here"), k);
        }
    }

    /// A name holds a secret only by its shape: words in it say nothing.
    #[test]
    fn names_are_redacted_by_shape_only() {
        let red = r();
        for kept in [
            "api_key",
            "Authorization",
            "X-Api-Key",
            "x",
            "password_confirmation",
        ] {
            assert_eq!(red.name(kept), kept);
        }
        for k in [
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "xoxb-0123456789-abcdefghij",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        ] {
            let shown = red.name(k);
            assert!(crate::redact::is_redacted(&shown), "{k}: {shown}");
        }
        let prefixed = red.name("X-ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        assert!(prefixed.starts_with("X-<redacted:"), "{prefixed}");
    }

    /// Headers named to hold no secret keep their values, except a secret's own shape.
    #[test]
    fn exempt_headers_lose_only_shaped_secrets() {
        let red = r();
        assert_eq!(red.header("Retry-After", "12"), "12");
        let date = "Wed, 21 Oct 2015 07:28:00 GMT";
        assert_eq!(red.header("Retry-After", date), date);
        assert_eq!(
            red.header("Vary", "Authorization, Cookie"),
            "Authorization, Cookie"
        );
        let v = red.header("Retry-After", "Bearer abcDEF123456789");
        assert!(v.starts_with("Bearer <redacted:"), "{v}");
        let v = red.header("Retry-After", "ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        assert!(crate::redact::is_redacted(&v), "{v}");
    }

    /// `Authentication` (a misnamed Authorization), a URL's token inside another name's value
    /// (`Refresh: 0; url=…?token=…`), `SAMLResponse` in a query.
    #[test]
    fn misnamed_and_nested_credentials() {
        let red = r();
        let v = red.header("Authentication", "Bearer abcDEF123456789");
        assert!(v.starts_with("Bearer <redacted:"), "{v}");
        gone(
            "0; url=https://x.example/next?token=QQREFRESH1&a=1",
            "QQREFRESH1",
        );
        kept("0; url=https://x.example/next?page=2");
        gone(
            "https://idp.example/acs?SAMLResponse=PHNhbWw-QQSAML&RelayState=x",
            "QQSAML",
        );
        gone(
            r#"{"api_keys": ["QQARR1", "QQARR2"], "tokens": ["QQARR3"]}"#,
            "QQARR",
        );
        kept(r#"{"max_tokens": 1024, "input_tokens": 12}"#);
    }
}

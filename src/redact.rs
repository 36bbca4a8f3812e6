//! The redaction policy, applied once at ingestion before anything else sees the data.
//!
//! Every secret becomes `<redacted:XXXXXXXX>`, where `XXXXXXXX` is the first 32 bits of
//! HMAC-SHA256(key, secret). The key is random per run (or read from `--fingerprint-key-file`),
//! so the same secret gets the same fingerprint within a run — the analysis can still tell one
//! credential from another — and nothing can be reversed or matched against a guessed value
//! without the key.

use hmac::{Hmac, Mac};
use regex::{Captures, Regex};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::sync::OnceLock;

type HmacSha256 = Hmac<Sha256>;

/// Header names that are always secret, whatever their value.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "set-cookie2",
    "x-api-key",
    "api-key",
    "x-auth-token",
    "x-amz-security-token",
];

/// Words that make a header, query parameter, form field or JSON field name secret.
const SECRET_WORDS: &[&str] = &[
    "token",
    "secret",
    "key",
    "session",
    "auth",
    "password",
    "passwd",
    "signature",
    "credential",
];

/// Field names that are secret on their own although they contain none of the words above.
const SECRET_NAMES: &[&str] = &[
    "sig",
    "code",
    "pwd",
    "pass",
    "jwt",
    "otp",
    "assertion",
    "samlresponse",
    "samlrequest",
    "ticket",
    "sid",
    "ssid",
    "pin",
];

/// Header names that carry what the analysis needs and never a secret, although their names
/// may contain a secret word (`anthropic-ratelimit-tokens-limit`, `:authority`).
fn is_exempt_header(lower: &str) -> bool {
    lower == ":authority"
        || lower == "retry-after"
        || lower.contains("ratelimit")
        || lower.contains("rate-limit")
        || lower == "keep-alive"
        || lower == "x-kong-response-latency"
        || lower == "access-control-allow-headers"
        || lower == "access-control-expose-headers"
        || lower == "access-control-request-headers"
        || lower == "vary"
}

/// Is a header with this name secret?
pub fn is_secret_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if is_exempt_header(&lower) {
        return false;
    }
    SECRET_HEADERS.contains(&lower.as_str()) || SECRET_WORDS.iter().any(|w| lower.contains(w))
}

/// Is a query parameter / form field / JSON field with this name secret?
pub fn is_secret_field(name: &str) -> bool {
    let lower = percent_decode(name).to_ascii_lowercase();
    if lower.is_empty() || lower.contains("ratelimit") || lower.contains("rate_limit") {
        return false;
    }
    SECRET_NAMES.contains(&lower.as_str()) || SECRET_WORDS.iter().any(|w| lower.contains(w))
}

/// Is a JSON field with this name secret? As [`is_secret_field`], except `code`: in a JSON
/// body it is an error code (`"code": "rate_limit_exceeded"`, Twilio `20429`) the analysis
/// needs, while OAuth authorization codes travel in URLs and forms.
pub fn is_secret_json_field(name: &str) -> bool {
    !name.eq_ignore_ascii_case("code") && is_secret_field(name)
}

/// After `Bearer`/`Basic` in free text: a credential has a digit, mixed case or a token
/// punctuation mark; prose ("Basic authentication") has none.
fn looks_like_credential(v: &str) -> bool {
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let punct = v.bytes().any(|b| b"-._~+/=".contains(&b));
    digit || (upper && lower) || punct
}

fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.contains('%') && !s.contains('+') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

struct Patterns {
    jwt: Regex,
    bearer: Regex,
    vendor_key: Regex,
    url_param: Regex,
    json_field: Regex,
    userinfo: Regex,
    already: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // Three base64url segments starting with a JSON header `{"` (eyJ); the signature may be
        // empty (alg none).
        jwt: Regex::new(r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.?[A-Za-z0-9_\-]*").unwrap(),
        bearer: Regex::new(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]{8,}=*)")
            .unwrap(),
        // Well-known key shapes: OpenAI/Anthropic/Stripe `sk-`/`sk_live_`, GitHub, Slack, AWS,
        // Google API keys.
        vendor_key: Regex::new(
            r"\b(?:sk-(?:ant-)?[A-Za-z0-9_\-]{16,}|[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9\-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,})",
        )
        .unwrap(),
        // name=value inside a URL or form body: the name decides.
        url_param: Regex::new(r"(^|[?&#;])([^=&#?;\s]{1,64})=([^&#;\s]*)").unwrap(),
        // "name": "value" / "name": 123 in JSON text, even a truncated excerpt.
        json_field: Regex::new(r#""([^"\\]{1,64})"(\s*:\s*)("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+\-]*)"#)
            .unwrap(),
        userinfo: Regex::new(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/?#@\s]+)@").unwrap(),
        already: Regex::new(r"^<redacted:[0-9a-f]{8}>$").unwrap(),
    })
}

/// Applies the policy. Cheap to share across threads.
#[derive(Clone)]
pub struct Redactor {
    key: [u8; 32],
}

impl Redactor {
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
        Redactor { key }
    }

    /// A redactor keyed from file contents, for fingerprints stable across runs.
    pub fn from_key_material(material: &[u8]) -> Redactor {
        Redactor {
            key: Sha256::digest(material).into(),
        }
    }

    /// The 8-hex-digit keyed fingerprint of a secret.
    pub fn fingerprint(&self, secret: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("HMAC accepts any key length");
        mac.update(secret.as_bytes());
        let out = mac.finalize().into_bytes();
        out[..4].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// `<redacted:XXXXXXXX>` for a secret (an already-redacted value is returned unchanged).
    pub fn token(&self, secret: &str) -> String {
        if patterns().already.is_match(secret) {
            return secret.to_string();
        }
        format!("<redacted:{}>", self.fingerprint(secret))
    }

    /// Redact a header value according to its name.
    pub fn header(&self, name: &str, value: &str) -> String {
        let lower = name.to_ascii_lowercase();
        if lower == "cookie" {
            return self.cookie_pairs(value, "; ");
        }
        if lower == "set-cookie" || lower == "set-cookie2" {
            return self.set_cookie(value);
        }
        if lower == "authorization" || lower == "proxy-authorization" {
            return self.authorization(value);
        }
        if is_secret_header(&lower) {
            return self.token(value);
        }
        if matches!(
            lower.as_str(),
            ":path" | "referer" | "location" | "content-location" | "link" | "origin"
        ) {
            return self.url(value);
        }
        self.text(value)
    }

    /// The credential part of an Authorization value (`Bearer abc` → `abc`).
    fn authorization(&self, value: &str) -> String {
        let v = value.trim();
        match v.split_once(char::is_whitespace) {
            Some((scheme, cred))
                if !cred.trim().is_empty()
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-') =>
            {
                format!("{} {}", scheme, self.token(cred.trim()))
            }
            _ => self.token(v),
        }
    }

    fn cookie_pairs(&self, value: &str, sep: &str) -> String {
        value
            .split(';')
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
            .map(|c| match c.split_once('=') {
                Some((n, v)) => format!("{}={}", n.trim(), self.token(v.trim())),
                None => self.token(c),
            })
            .collect::<Vec<_>>()
            .join(sep)
    }

    fn set_cookie(&self, value: &str) -> String {
        // Only the first pair is the cookie; the rest are attributes (Path, Expires, HttpOnly).
        let mut parts = value.splitn(2, ';');
        let first = parts.next().unwrap_or("");
        let rest = parts.next();
        let first = match first.split_once('=') {
            Some((n, v)) => format!("{}={}", n.trim(), self.token(v.trim())),
            None => self.token(first.trim()),
        };
        match rest {
            Some(r) => format!("{first};{}", self.text(r)),
            None => first,
        }
    }

    /// Redact a URL: userinfo, secret query/fragment parameters, and tokens anywhere in it.
    pub fn url(&self, url: &str) -> String {
        self.text(url)
    }

    /// Redact a cookie's value (HAR `cookies[].value`).
    pub fn cookie_value(&self, value: &str) -> String {
        if value.is_empty() {
            return String::new();
        }
        self.token(value)
    }

    /// Redact a named field value (query parameter, form field, JSON field) by its name.
    pub fn field(&self, name: &str, value: &str) -> String {
        if is_secret_field(name) && !value.is_empty() {
            self.token(value)
        } else {
            self.text(value)
        }
    }

    /// Redact free text (bodies, other headers, exporter `_fields`): URL userinfo, secret
    /// `name=value` pairs, secret JSON fields, JWTs, `Bearer …` values and well-known key shapes.
    pub fn text(&self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        let p = patterns();
        let mut out: Cow<'_, str> = Cow::Borrowed(text);
        if out.contains('@') {
            out = Cow::Owned(
                p.userinfo
                    .replace_all(&out, |c: &Captures| {
                        format!("{}{}@", &c[1], self.token(&c[2]))
                    })
                    .into_owned(),
            );
        }
        if out.contains('=') {
            out = Cow::Owned(
                p.url_param
                    .replace_all(&out, |c: &Captures| {
                        if is_secret_field(&c[2]) && !c[3].is_empty() {
                            format!("{}{}={}", &c[1], &c[2], self.token(&c[3]))
                        } else {
                            c[0].to_string()
                        }
                    })
                    .into_owned(),
            );
        }
        if out.contains('"') {
            out = Cow::Owned(
                p.json_field
                    .replace_all(&out, |c: &Captures| {
                        let val = &c[3];
                        if is_secret_json_field(&c[1]) {
                            let inner = val
                                .strip_prefix('"')
                                .and_then(|v| v.strip_suffix('"'))
                                .unwrap_or(val);
                            if inner.is_empty() || p.already.is_match(inner) {
                                return c[0].to_string();
                            }
                            format!("\"{}\"{}\"{}\"", &c[1], &c[2], self.token(inner))
                        } else {
                            c[0].to_string()
                        }
                    })
                    .into_owned(),
            );
        }
        if out.contains("eyJ") {
            out = Cow::Owned(
                p.jwt
                    .replace_all(&out, |c: &Captures| self.token(&c[0]))
                    .into_owned(),
            );
        }
        out = Cow::Owned(
            p.bearer
                .replace_all(&out, |c: &Captures| {
                    if c[3].starts_with("<redacted") || !looks_like_credential(&c[3]) {
                        return c[0].to_string();
                    }
                    format!("{}{}{}", &c[1], &c[2], self.token(&c[3]))
                })
                .into_owned(),
        );
        out = Cow::Owned(
            p.vendor_key
                .replace_all(&out, |c: &Captures| self.token(&c[0]))
                .into_owned(),
        );
        out.into_owned()
    }

    /// Redact then cut to at most `max` bytes at a char boundary. A token cut in half at the end
    /// is dropped, so a truncated secret cannot leak its prefix.
    pub fn excerpt(&self, text: &str, max: usize) -> String {
        // Redact a window a little larger than what we keep, so a secret straddling the cut is
        // still recognized whole.
        let window = floor_char_boundary(text, max.saturating_mul(4).max(max + 4096));
        let red = self.text(&text[..window]);
        if red.len() <= max && window == text.len() {
            return red;
        }
        let cut = floor_char_boundary(&red, max);
        let mut kept = &red[..cut];
        // Drop the trailing partial word.
        if let Some(i) = kept.rfind(|c: char| c.is_whitespace() || "\"'<>,;&{}[]()".contains(c)) {
            if cut - i < 256 {
                kept = &kept[..=i];
            }
        }
        format!("{kept}…")
    }

    /// The credential a request carried, as a fingerprint, in priority order: Authorization,
    /// API-key headers, key-like query parameters. Input is the *raw* (unredacted) request.
    pub fn credential<'a>(
        &self,
        headers: impl Iterator<Item = (&'a str, &'a str)> + Clone,
        url: &str,
    ) -> Option<String> {
        for (n, v) in headers.clone() {
            if n.eq_ignore_ascii_case("authorization")
                || n.eq_ignore_ascii_case("proxy-authorization")
            {
                let v = v.trim();
                let cred = v
                    .split_once(char::is_whitespace)
                    .map(|(_, c)| c.trim())
                    .unwrap_or(v);
                if !cred.is_empty() {
                    return Some(self.fingerprint(cred));
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
            if (lower.contains("key") || lower.contains("token"))
                && is_secret_header(&lower)
                && !v.trim().is_empty()
            {
                return Some(self.fingerprint(v.trim()));
            }
        }
        let parts = crate::http::url::split(url);
        for (n, v) in crate::http::url::query_pairs(parts.query) {
            let lower = percent_decode(n).to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "key"
                    | "api_key"
                    | "apikey"
                    | "api-key"
                    | "access_token"
                    | "token"
                    | "auth"
                    | "app_key"
                    | "appid"
                    | "app_id"
            ) && !v.is_empty()
            {
                return Some(self.fingerprint(v));
            }
        }
        None
    }
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

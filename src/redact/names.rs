//! Which names are secret: header names, query/form parameters, JSON/XML/HTML field names.
//!
//! A name is split into words (`X-Api-Key` → x, api, key; `clientSecret` → client, secret;
//! `%2573ignature` → signature) and judged by what it *is*, not by a substring: the last word
//! is the thing named (`api_key` is a key, `keys_url` is a URL, `token_type` is a type), words
//! like `id` or `value` after it are see-through (`session_id` is a session), and a few words
//! make any name secret wherever they stand (`password_confirmation`). The tables below are the
//! whole policy; docs/guide.md lists what they cover.

use std::borrow::Cow;

/// How a header's value is redacted, decided from its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderRule {
    /// `Authorization`, `Proxy-Authorization`: the scheme is kept, the credential redacted.
    Authorization,
    /// `WWW-Authenticate`, `Proxy-Authenticate`: a challenge; kept like an Authorization value.
    Authenticate,
    /// `Cookie`: names kept, every value redacted.
    Cookie,
    /// `Set-Cookie`: each cookie's value redacted (several may be joined by newlines), attributes
    /// kept.
    SetCookie,
    /// The whole value is a secret.
    Secret,
    /// `Sec-WebSocket-Protocol`: protocol names kept, tokens carried as subprotocols redacted.
    WebSocketProtocol,
    /// A URL-valued header (`Referer`, `Location`, `:path`…): redacted as a URL.
    Url,
    /// Named like a secret but known to carry none (a CORS flag, a WebSocket nonce, public key
    /// pins): kept verbatim, not even searched (`pin-sha256="…"` is not a PIN).
    Exempt,
    /// Anything else: only what the value patterns find is redacted.
    Text,
}

impl HeaderRule {
    pub fn is_secret(self) -> bool {
        matches!(
            self,
            HeaderRule::Authorization
                | HeaderRule::Authenticate
                | HeaderRule::Cookie
                | HeaderRule::SetCookie
                | HeaderRule::Secret
        )
    }
}

/// Header names with a fixed rule (lowercase).
const HEADER_RULES: &[(&str, HeaderRule)] = &[
    ("authorization", HeaderRule::Authorization),
    ("proxy-authorization", HeaderRule::Authorization),
    // Not a standard header, but sent for Authorization by clients that misname it.
    ("authentication", HeaderRule::Authorization),
    ("www-authenticate", HeaderRule::Authenticate),
    ("proxy-authenticate", HeaderRule::Authenticate),
    ("cookie", HeaderRule::Cookie),
    ("set-cookie", HeaderRule::SetCookie),
    ("set-cookie2", HeaderRule::SetCookie),
    ("sec-websocket-protocol", HeaderRule::WebSocketProtocol),
    // Secret although no word of the name says so.
    ("x-honeycomb-team", HeaderRule::Secret),
    ("x-jfrog-art-api", HeaderRule::Secret),
    ("x-amz-security-token", HeaderRule::Secret),
    ("x-api-key", HeaderRule::Secret),
    ("api-key", HeaderRule::Secret),
    ("x-auth-token", HeaderRule::Secret),
    // URL-valued.
    (":path", HeaderRule::Url),
    ("referer", HeaderRule::Url),
    ("location", HeaderRule::Url),
    ("content-location", HeaderRule::Url),
    ("link", HeaderRule::Url),
    ("origin", HeaderRule::Url),
    // Named like a secret, but carry none: a CORS flag, a WebSocket nonce and its hash, public
    // key pins, a Google account index, and the headers the analysis needs.
    ("access-control-allow-credentials", HeaderRule::Exempt),
    ("sec-websocket-key", HeaderRule::Exempt),
    ("sec-websocket-accept", HeaderRule::Exempt),
    ("public-key-pins", HeaderRule::Exempt),
    ("public-key-pins-report-only", HeaderRule::Exempt),
    ("x-goog-authuser", HeaderRule::Exempt),
    (":authority", HeaderRule::Exempt),
    ("retry-after", HeaderRule::Exempt),
    ("keep-alive", HeaderRule::Exempt),
    ("vary", HeaderRule::Exempt),
    ("access-control-allow-headers", HeaderRule::Exempt),
    ("access-control-expose-headers", HeaderRule::Exempt),
    ("access-control-request-headers", HeaderRule::Exempt),
    ("x-kong-response-latency", HeaderRule::Exempt),
];

/// The header rule for a name (any case).
pub fn header_rule(name: &str) -> HeaderRule {
    let lower = ascii_lower(name);
    if let Some((_, rule)) = HEADER_RULES.iter().find(|(n, _)| *n == lower.as_ref()) {
        return *rule;
    }
    // Rate-limit headers are what the analysis reads (`anthropic-ratelimit-tokens-limit`).
    if lower.contains("ratelimit") || lower.contains("rate-limit") {
        return HeaderRule::Text;
    }
    if secret_words(&lower, Context::Json) {
        HeaderRule::Secret
    } else {
        HeaderRule::Text
    }
}

/// Is a header with this name secret (its value redacted whatever it holds)?
pub fn is_secret_header(name: &str) -> bool {
    header_rule(name).is_secret()
}

/// Is a query parameter or form field with this name secret? Percent-encoded names are decoded
/// first (`%2573ignature` is `signature`).
pub fn is_secret_field(name: &str) -> bool {
    // Logs repeat a handful of parameter names millions of times (`page`, `q`, `expand`): the
    // word split below allocates per word, so verdicts are remembered per name and thread
    // (on the realistic bench inputs: 6 % of a JSON-lines run's instructions, 14 % of an
    // access log's).
    FIELD_MEMO
        .try_with(|m| {
            m.borrow_mut().get_or(name.as_bytes(), || {
                secret_words(&decode_name(name), Context::Url)
            })
        })
        .unwrap_or_else(|_| secret_words(&decode_name(name), Context::Url))
}

thread_local! {
    static FIELD_MEMO: std::cell::RefCell<crate::memo::Memo<bool>> =
        const { std::cell::RefCell::new(crate::memo::Memo::names()) };
}

/// Is a JSON, XML or HTML field with this name secret? As [`is_secret_field`], except that a
/// bare `code` is an error code there (`"code": "rate_limit_exceeded"`, `<Code>SlowDown</Code>`),
/// while OAuth authorization codes travel in URLs and forms.
pub fn is_secret_json_field(name: &str) -> bool {
    // Bodies repeat a handful of keys (`error`, `code`, `message`) and the word split allocates
    // per word: verdicts are remembered per name, as `is_secret_field`'s are.
    JSON_FIELD_MEMO
        .try_with(|m| {
            m.borrow_mut()
                .get_or(name.as_bytes(), || json_field_verdict(name))
        })
        .unwrap_or_else(|_| json_field_verdict(name))
}

/// [`is_secret_json_field`] judged afresh.
fn json_field_verdict(name: &str) -> bool {
    secret_words(&decode_name(name), Context::Json)
}

thread_local! {
    static JSON_FIELD_MEMO: std::cell::RefCell<crate::memo::Memo<bool>> =
        const { std::cell::RefCell::new(crate::memo::Memo::names()) };
}

/// Where a name was found; only `code` is read differently.
#[derive(Clone, Copy, PartialEq)]
enum Context {
    Url,
    Json,
}

/// The thing named is a secret: `api_key`, `access_token`, `X-Hub-Signature-256`.
const SECRET_HEADS: &[&str] = &[
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "pwd",
    "pw",
    "pass",
    "passphrase",
    "signature",
    "sig",
    "hmac",
    "credential",
    "credentials",
    "auth",
    "authorization",
    "authentication",
    "session",
    "sessionid",
    "sessid",
    "sid",
    "ssid",
    "jwt",
    "otp",
    "totp",
    "pin",
    "ticket",
    "assertion",
    "samlresponse",
    "samlrequest",
    "csrf",
    "xsrf",
    "cookie",
    "bearer",
];

/// Make a name secret wherever they stand (`password_confirmation`, `secret_answer`).
const STRONG_WORDS: &[&str] = &["password", "passwd", "passphrase", "secret"];

/// Single words that end in a secret (`apikey`, `csrftoken`, `jsessionid`, `clientsecret`).
const SECRET_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "sessionkey",
    "authkey",
    "appkey",
    "clientkey",
    "masterkey",
    "signingkey",
    "signature",
    "credential",
    "credentials",
    "sessionid",
    "sessid",
    "authorization",
];

/// Words after the thing named that do not change what it is: `session_id`, `token_value`,
/// `password_hash`, `X-Hub-Signature-256` (digits are dropped before this table is read).
const SEE_THROUGH: &[&str] = &[
    "id", "value", "val", "string", "str", "data", "raw", "b64", "base64", "hex", "enc", "encoded",
    "text", "hash", "digest", "header", "cookie", "v", "sha", "md",
];

/// A last word that names something *about* a secret, never the secret: `keys_url`,
/// `token_type`, `client_secret_expires_at`, `csrf-param`, `password_length`.
const METADATA: &[&str] = &[
    "type",
    "types",
    "url",
    "urls",
    "uri",
    "endpoint",
    "name",
    "names",
    "length",
    "len",
    "count",
    "size",
    "hint",
    "format",
    "ttl",
    "expires",
    "expiry",
    "expiration",
    "exp",
    "at",
    "in",
    "required",
    "enabled",
    "present",
    "policy",
    "version",
    "method",
    "methods",
    "mode",
    "param",
    "params",
    "field",
    "label",
    "prefix",
    "suffix",
    "location",
    "scope",
    "scopes",
    "status",
    "error",
    "errors",
    "message",
    "description",
    "limit",
    "limits",
    "remaining",
    "used",
    "usage",
    "timeout",
    "age",
    "created",
    "updated",
    "issued",
    "rotated",
    "pins",
];

/// Secrets named in the plural hold several (`"api_keys": [...]`, `"tokens": [...]`): the
/// plurals read as their singular, unless a count is named (`max_tokens`, `input_tokens`).
const PLURAL_HEADS: &[(&str, &str)] = &[
    ("keys", "key"),
    ("tokens", "token"),
    ("secrets", "secret"),
    ("passwords", "password"),
    ("signatures", "signature"),
    ("sigs", "sig"),
    ("jwts", "jwt"),
    ("sessions", "session"),
    ("sessionids", "sessionid"),
    ("apikeys", "apikey"),
];

/// Before a plural head, these make it a count (`max_tokens`, `prompt_tokens`, `total_keys`),
/// never the secrets themselves.
const COUNT_QUALIFIERS: &[&str] = &[
    "max",
    "min",
    "num",
    "number",
    "total",
    "input",
    "output",
    "prompt",
    "completion",
    "cached",
    "cache",
    "reasoning",
    "remaining",
    "used",
    "available",
    "allowed",
    "billed",
    "generated",
    "free",
    "per",
    "estimated",
    "context",
    "n",
    "new",
    "active",
    "expired",
    "revoked",
];

/// `key` after these names a database or cache key, not a credential (`public_key`,
/// `primary_key`, `sort_key`).
const PLAIN_KEY_QUALIFIERS: &[&str] = &[
    "public",
    "primary",
    "foreign",
    "sort",
    "partition",
    "range",
    "cache",
    "object",
    "routing",
    "shard",
    "row",
    "lookup",
    "composite",
    "unique",
    "dedupe",
    "dedup",
    "group",
];

/// In JSON, `code` is secret only after one of these (`auth_code`, `device_code`); elsewhere it
/// is an error or status code.
const SECRET_CODE_QUALIFIERS: &[&str] = &[
    "auth",
    "authorization",
    "verification",
    "verify",
    "otp",
    "mfa",
    "totp",
    "recovery",
    "reset",
    "confirmation",
    "confirm",
    "activation",
    "access",
    "security",
    "sms",
    "device",
    "user",
    "pin",
    "backup",
    "login",
    "magic",
    "one",
    "time",
    "fa",
    "oauth",
];

/// In URLs and forms `code` is an OAuth code unless one of these says otherwise.
const PLAIN_CODE_QUALIFIERS: &[&str] = &[
    "error", "status", "country", "currency", "language", "lang", "locale", "region", "zip",
    "postal", "area", "response", "http", "exit", "return", "result", "product", "reason", "event",
    "item", "sku", "color", "iso", "airport", "phone", "dial", "promo", "coupon", "discount", "qr",
    "bar", "post", "source", "short", "lang",
];

fn secret_words(name: &str, ctx: Context) -> bool {
    let mut words = split_words(name);
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| SEE_THROUGH.contains(&w.as_str()))
    {
        words.pop();
    }
    let Some(last) = words.last() else {
        return false;
    };
    if METADATA.contains(&last.as_str()) {
        return false;
    }
    let before = words.len().checked_sub(2).map(|i| words[i].as_str());
    // Two words that are one secret's name (`SAMLResponse` splits into saml, response).
    if before.is_some_and(|b| SECRET_HEADS.contains(&format!("{b}{last}").as_str())) {
        return true;
    }
    let singular = PLURAL_HEADS
        .iter()
        .find(|(plural, _)| *plural == last.as_str())
        .filter(|_| !before.is_some_and(|b| COUNT_QUALIFIERS.contains(&b)))
        .map(|(_, one)| one.to_string());
    let last = singular.as_ref().unwrap_or(last);
    let head = match last.as_str() {
        "key" => !before.is_some_and(|q| PLAIN_KEY_QUALIFIERS.contains(&q)),
        "code" => match ctx {
            Context::Json => before.is_some_and(|q| SECRET_CODE_QUALIFIERS.contains(&q)),
            Context::Url => !before.is_some_and(|q| PLAIN_CODE_QUALIFIERS.contains(&q)),
        },
        w => SECRET_HEADS.contains(&w),
    };
    head || words.iter().any(|w| STRONG_WORDS.contains(&w.as_str()))
        || SECRET_SUFFIXES.iter().any(|s| last.ends_with(s))
}

/// Words of a name, lowercase, digits at either end dropped (`password2` → password, `v1` → v,
/// `2fa` → fa):
/// split on anything not a letter or digit and on camelCase boundaries (`XMLHttpToken` → xml,
/// http, token).
fn split_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            push_word(&mut words, &mut cur);
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                push_word(&mut words, &mut cur);
            }
        }
        cur.extend(c.to_lowercase());
    }
    push_word(&mut words, &mut cur);
    words
}

fn push_word(words: &mut Vec<String>, cur: &mut String) {
    let w = cur.trim_matches(|c: char| c.is_ascii_digit());
    if !w.is_empty() {
        words.push(w.to_string());
    }
    cur.clear();
}

fn ascii_lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// A parameter name percent-decoded until it no longer changes (at most three rounds: a name
/// encoded twice, `%2573ignature`, is still `signature`).
fn decode_name(name: &str) -> Cow<'_, str> {
    let mut cur = Cow::Borrowed(name);
    for _ in 0..3 {
        match super::decode::percent_decode(&cur) {
            Cow::Borrowed(_) => break,
            Cow::Owned(next) => cur = Cow::Owned(next),
        }
    }
    cur
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-thread memo answers as the word rules do, on first and repeated asks, for
    /// names past the memo's length bound too.
    #[test]
    fn memoized_field_verdicts_are_the_rules_verdicts() {
        let long = format!("{}_token", "x".repeat(crate::memo::NAME_MAX));
        let names = [
            "page",
            "q",
            "expand",
            "api_key",
            "apiKey",
            "%2573ignature",
            "access_token",
            "sessionid",
            "code",
            "zip_code",
            "X-Hub-Signature-256",
            "",
            "token2",
            &long,
        ];
        for round in 0..3 {
            for n in names {
                let direct = secret_words(&decode_name(n), Context::Url);
                assert_eq!(is_secret_field(n), direct, "{n} (round {round})");
                let json = secret_words(&decode_name(n), Context::Json);
                assert_eq!(is_secret_json_field(n), json, "{n} (round {round})");
            }
        }
    }

    #[test]
    fn words_split_on_case_separators_and_digits() {
        assert_eq!(split_words("X-Api-Key"), ["x", "api", "key"]);
        assert_eq!(split_words("clientSecret"), ["client", "secret"]);
        assert_eq!(split_words("XMLHttpToken"), ["xml", "http", "token"]);
        assert_eq!(
            split_words("X-Hub-Signature-256"),
            ["x", "hub", "signature"]
        );
        assert_eq!(split_words("password2"), ["password"]);
        assert_eq!(split_words("__VIEWSTATE"), ["viewstate"]);
    }

    #[test]
    fn secret_by_what_is_named() {
        for n in [
            "api_key",
            "apiKey",
            "apikey",
            "access_token",
            "id_token",
            "client_secret",
            "X-Client-Secret",
            "session",
            "X-Session-Id",
            "password",
            "password_confirmation",
            "user_pass",
            "sig",
            "api_sig",
            "hmac",
            "pw",
            "_csrf",
            "X-CSRFToken",
            "csrftoken",
            "passphrase",
            "X-Amz-Credential",
            "X-Goog-Signature",
            "X-Hub-Signature-256",
            "X-Shopify-Hmac-Sha256",
            "JSESSIONID",
            "ASP.NET_SessionId",
            "SecretAccessKey",
            "SessionToken",
            "AccessKeyId",
            "Idempotency-Key",
            "private_key",
            "otp",
            "pin",
            "SAMLResponse",
            "SAMLRequest",
            "saml_response",
            "api_keys",
            "apiKeys",
            "tokens",
            "access_tokens",
            "secrets",
            "Authentication",
            "X-Authentication",
        ] {
            assert!(is_secret_field(n), "{n} should be secret");
        }
    }

    #[test]
    fn not_secret_by_a_substring() {
        for n in [
            "keys_url",
            "token_type",
            "max_tokens",
            "author",
            "X-Goog-AuthUser",
            "public_key",
            "Public-Key-Pins",
            "csrf-param",
            "client_secret_expires_at",
            "expires_in",
            "keyboard",
            "monkey",
            "primary_key",
            "session_count",
            "X-Amz-SignedHeaders",
            "X-Amz-Content-Sha256",
            "error_code",
            "page",
            "state",
            "client_id",
            "max_tokens",
            "input_tokens",
            "completion_tokens",
            "total_tokens",
            "primary_keys",
            "response",
            "X-Authentication-Method",
        ] {
            assert!(!is_secret_field(n), "{n} should not be secret");
        }
    }

    #[test]
    fn code_is_secret_in_urls_not_in_json() {
        assert!(is_secret_field("code"));
        assert!(!is_secret_json_field("code"));
        assert!(!is_secret_json_field("Code"));
        assert!(is_secret_json_field("auth_code"));
        assert!(is_secret_json_field("device_code"));
        assert!(!is_secret_field("error_code"));
        assert!(!is_secret_json_field("status_code"));
    }

    #[test]
    fn percent_encoded_and_long_names() {
        assert!(is_secret_field("%2573ignature"));
        assert!(is_secret_field("%73ignature"));
        assert!(is_secret_field(&format!("{}_access_token", "x".repeat(70))));
    }

    #[test]
    fn header_rules() {
        assert_eq!(header_rule("Authorization"), HeaderRule::Authorization);
        assert_eq!(header_rule("cookie"), HeaderRule::Cookie);
        assert_eq!(header_rule("X-Honeycomb-Team"), HeaderRule::Secret);
        assert_eq!(header_rule("X-JFrog-Art-Api"), HeaderRule::Secret);
        assert_eq!(
            header_rule("Sec-WebSocket-Protocol"),
            HeaderRule::WebSocketProtocol
        );
        for n in [
            "Access-Control-Allow-Credentials",
            "X-Goog-AuthUser",
            "Sec-WebSocket-Key",
            "Public-Key-Pins",
            "anthropic-ratelimit-tokens-limit",
            "X-RateLimit-Remaining",
            "Retry-After",
            ":authority",
            "Content-Type",
            "Keep-Alive",
        ] {
            assert!(
                matches!(header_rule(n), HeaderRule::Text | HeaderRule::Exempt),
                "{n}"
            );
        }
        for n in [
            "X-Custom-Session-Id",
            "X-Password",
            "X-Passwd",
            "X-Credential",
            "Private-Token",
            "X-Vault-Token",
            "Stripe-Signature",
            "Idempotency-Key",
            "X-CSRF-Token",
        ] {
            assert_eq!(header_rule(n), HeaderRule::Secret, "{n}");
        }
    }
}

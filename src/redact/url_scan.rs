//! The URL fast path: one pass over the bytes, with a byte-class table, decides whether a URL
//! is a plain path (returned as it is) or a simple query URL (only secret-named parameter values
//! change), and otherwise leaves it to the full scan of [`Redactor::text`].
//!
//! It answers exactly what the two checks it replaced answered in turn (`plain_path`, then
//! `simple_query_url`, in text.rs, kept there as the reference a property test holds this to):
//! the same verdicts, the same output, in one walk instead of five (path characters, pair
//! splitting, name and value characters, piece lengths, needles), each of which cost more per
//! byte than this whole loop.

use super::names::is_secret_field;
use super::text::{
    trigger_flags_allow, with_secrets_redacted, PLAIN_PIECE, SPELLED_IN_SHORT_PIECES,
};
use super::Redactor;
use std::borrow::Cow;

/// A path byte: `[A-Za-z0-9._~/-]` (what a plain path and a simple query value are made of).
const PATH: u32 = 1 << 0;
/// A parameter-name byte: `[A-Za-z0-9_-]`.
const NAME: u32 = 1 << 1;
/// Ends a piece: `/ . ~ ? & =` (pieces are what the short-piece bound counts).
const SEP: u32 = 1 << 2;
/// Bits 8..16: which needle first letters this byte is (one bit per distinct first letter of
/// `SPELLED_IN_SHORT_PIECES`, any case); bits 16..24: after which of those first letters this
/// byte is a needle's second byte. Two bytes may start a needle exactly when the first's
/// bits 8..16 and the second's bits 16..24 share a bit (what `starts_a_needle` says).
const FIRST_SHIFT: u32 = 8;
const SECOND_SHIFT: u32 = 16;

/// Each byte's classes and needle bits.
static CLASS: [u32; 256] = {
    let needles = SPELLED_IN_SHORT_PIECES;
    // The needle-first-letter group of each needle: the index of the first needle with the
    // same first byte, renumbered densely.
    let mut group = [0usize; 32];
    let mut firsts = [0u8; 8];
    let mut groups = 0;
    let mut i = 0;
    while i < needles.len() {
        let mut g = 0;
        while g < groups && firsts[g] != needles[i][0] {
            g += 1;
        }
        if g == groups {
            assert!(groups < 8, "at most 8 distinct needle first letters");
            firsts[g] = needles[i][0];
            groups += 1;
        }
        group[i] = g;
        i += 1;
    }
    let mut t = [0u32; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let alnum = b.is_ascii_alphanumeric();
        if alnum || matches!(b, b'.' | b'_' | b'~' | b'/' | b'-') {
            t[c] |= PATH;
        }
        if alnum || matches!(b, b'_' | b'-') {
            t[c] |= NAME;
        }
        if matches!(b, b'/' | b'.' | b'~' | b'?' | b'&' | b'=') {
            t[c] |= SEP;
        }
        // As `starts_a_needle` compares: `| 0x20` lower-cases a letter.
        let low = b | 0x20;
        let mut i = 0;
        while i < needles.len() {
            if low == needles[i][0] {
                t[c] |= 1 << (FIRST_SHIFT as usize + group[i]);
            }
            if low == needles[i][1] {
                t[c] |= 1 << (SECOND_SHIFT as usize + group[i]);
            }
            i += 1;
        }
        c += 1;
    }
    t
};

/// Whether two bytes' classes say they may start a needle.
#[inline(always)]
fn pair(prev: u32, class: u32) -> bool {
    (prev >> FIRST_SHIFT) & (class >> SECOND_SHIFT) & 0xff != 0
}

/// `spells_at` for two bytes that may start a needle: only the needles that start with those
/// two bytes are compared (`| 0x20` matches a letter in either case and nothing else: the
/// needles' first two bytes are letters).
fn spelled_at(rest: &[u8], i: usize) -> bool {
    let (a, b) = (rest[i] | 0x20, rest[i + 1] | 0x20);
    SPELLED_IN_SHORT_PIECES.iter().any(|n| {
        n[0] == a
            && n[1] == b
            && rest.len() - i >= n.len()
            && rest[i + 2..i + n.len()].eq_ignore_ascii_case(&n[2..])
    })
}

/// Up to this many secret values are kept in place; more spill to the heap.
const INLINE_SECRETS: usize = 4;

/// Byte ranges of the secret values, without an allocation for the first few.
struct Secrets {
    inline: [(usize, usize); INLINE_SECRETS],
    len: usize,
    spill: Vec<(usize, usize)>,
}

impl Secrets {
    fn new() -> Secrets {
        Secrets {
            inline: [(0, 0); INLINE_SECRETS],
            len: 0,
            spill: Vec::new(),
        }
    }

    fn push(&mut self, range: (usize, usize)) {
        if self.len < INLINE_SECRETS {
            self.inline[self.len] = range;
            self.len += 1;
            return;
        }
        if self.spill.is_empty() {
            self.spill.extend_from_slice(&self.inline);
        }
        self.spill.push(range);
    }

    fn as_slice(&self) -> &[(usize, usize)] {
        if self.spill.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }
}

/// The short-piece and needle bookkeeping of the walk, branch-free per byte but for the rare
/// needle candidate: the longest piece outside a secret value, and whether a needle is
/// spelled anywhere.
struct Pieces<'a> {
    rest: &'a [u8],
    /// A piece outside a secret value is longer than [`PLAIN_PIECE`].
    long: bool,
    spelled: bool,
    piece: usize,
    /// The class of the byte before.
    prev: u32,
}

impl Pieces<'_> {
    /// Account for byte `i`, of class `class`, outside a secret value (pieces lie wholly
    /// inside or outside a value: values start after `=` and end at `&` or the end, both
    /// separators).
    #[inline(always)]
    fn step(&mut self, i: usize, class: u32) {
        self.piece = if class & SEP != 0 { 0 } else { self.piece + 1 };
        self.long |= self.piece > PLAIN_PIECE;
        self.needle(i, class);
    }

    /// Byte `i` of a secret value: any piece length, needles still count.
    #[inline(always)]
    fn step_secret(&mut self, i: usize, class: u32) {
        self.piece = 0;
        self.needle(i, class);
    }

    #[inline(always)]
    fn needle(&mut self, i: usize, class: u32) {
        if pair(self.prev, class) && spelled_at(self.rest, i - 1) {
            self.spelled = true;
        }
        self.prev = class;
    }

    fn short(&self) -> bool {
        !self.long && !self.spelled
    }
}

/// [`Redactor::url`] when the URL is a plain path or a simple query URL (see `plain_path` and
/// `simple_query_url` in text.rs for what those are and why the full scan would return the
/// same); `None` when the full scan must run.
pub(super) fn fast_url<'a>(red: &Redactor, url: &'a str) -> Option<Cow<'a, str>> {
    let b = url.as_bytes();
    let start = after_scheme(b)?;
    let rest = &b[start..];
    let n = rest.len();
    let mut p = Pieces {
        rest,
        long: false,
        spelled: false,
        piece: 0,
        prev: 0,
    };
    let mut i = 0;
    while i < n {
        let class = CLASS[rest[i] as usize];
        if class & PATH == 0 {
            break;
        }
        p.step(i, class);
        i += 1;
    }
    if i == n {
        return p.short().then_some(Cow::Borrowed(url));
    }
    if rest[i] != b'?' {
        return None;
    }
    p.step(i, SEP);
    i += 1;
    // Secret values as byte ranges of `url`.
    let mut secret = Secrets::new();
    loop {
        // A name: at least one name byte, then `=`.
        let name_at = i;
        while i < n && CLASS[rest[i] as usize] & NAME != 0 {
            p.step(i, CLASS[rest[i] as usize]);
            i += 1;
        }
        if i == n || rest[i] != b'=' || i == name_at {
            return None; // a pair without `=`, an empty name, a byte no name has
        }
        // Name bytes are ASCII, so these are char boundaries.
        let is_secret = is_secret_field(&url[start + name_at..start + i]);
        p.step(i, SEP);
        i += 1;
        let value_at = i;
        if is_secret {
            while i < n && CLASS[rest[i] as usize] & PATH != 0 {
                p.step_secret(i, CLASS[rest[i] as usize]);
                i += 1;
            }
            if i > value_at {
                secret.push((start + value_at, start + i));
            }
        } else {
            while i < n && CLASS[rest[i] as usize] & PATH != 0 {
                p.step(i, CLASS[rest[i] as usize]);
                i += 1;
            }
        }
        if i == n {
            break;
        }
        if rest[i] != b'&' {
            return None;
        }
        p.step(i, SEP);
        i += 1;
    }
    let secret = secret.as_slice();
    if p.short() || trigger_flags_allow(url, secret) {
        return Some(with_secrets_redacted(red, url, secret));
    }
    None
}

/// The length of `http://` or `https://` (any case), 0 for a path, `None` for anything else.
fn after_scheme(b: &[u8]) -> Option<usize> {
    let has =
        |prefix: &[u8]| b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix);
    if b.first() == Some(&b'/') {
        Some(0)
    } else if has(b"https://") {
        Some(8)
    } else if has(b"http://") {
        Some(7)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::{plain_path, simple_query_url};
    use super::*;
    use proptest::prelude::*;

    fn red() -> Redactor {
        Redactor::from_key_material(b"url scan")
    }

    /// What `Redactor::url` answered before this module: `plain_path`, then
    /// `simple_query_url`.
    fn reference<'a>(red: &Redactor, url: &'a str) -> Option<Cow<'a, str>> {
        if plain_path(url) {
            return Some(Cow::Borrowed(url));
        }
        simple_query_url(red, url)
    }

    fn same(url: &str) -> Result<(), TestCaseError> {
        let red = red();
        let fast = fast_url(&red, url);
        let want = reference(&red, url);
        prop_assert_eq!(&fast, &want, "{:?}", url);
        // Borrowed exactly when unchanged.
        if let Some(f) = &fast {
            prop_assert_eq!(matches!(f, Cow::Borrowed(_)), f == url, "{:?}", url);
            prop_assert_eq!(f.as_ref(), red.text(url), "{:?}", url);
        }
        Ok(())
    }

    #[test]
    fn class_pairs_are_starts_a_needle() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(
                    pair(CLASS[a as usize], CLASS[b as usize]),
                    super::super::text::starts_a_needle(a, b),
                    "{a} {b}"
                );
            }
        }
    }

    proptest! {
        /// The two-byte filter before the comparison changes nothing.
        #[test]
        fn spelled_at_is_spells_at(
            s in "[a-zA-Z0-9_./~?&=é-]{2,16}",
            needle in prop::sample::select(SPELLED_IN_SHORT_PIECES.to_vec()),
            at in 0usize..16,
            upper in any::<bool>(),
            cut in 0usize..4,
        ) {
            let mut s = s.into_bytes();
            let n: Vec<u8> = if upper { needle.to_ascii_uppercase() } else { needle.to_vec() };
            let at = at.min(s.len());
            s.splice(at..at, n[..n.len() - cut.min(n.len() - 2)].iter().copied());
            for i in 0..s.len() - 1 {
                prop_assert_eq!(spelled_at(&s, i), super::super::text::spells_at(&s, i));
            }
        }
    }

    #[test]
    fn many_secrets_spill() {
        let url = "/x?token=a&key=b&sig=c&api_key=d&access_token=e&pass=f&page=1";
        same(url).unwrap();
        assert_eq!(
            fast_url(&red(), url).unwrap().matches("<redacted:").count(),
            6
        );
    }

    #[test]
    fn bench_urls_and_edges() {
        for url in [
            "",
            "/",
            "?",
            "/?",
            "/?a",
            "/?a=",
            "/?=1",
            "/?a=1&",
            "/?a=1&&b=2",
            "/?a=1?b=2",
            "/?a=1=2",
            "/?a=1#f",
            "https://",
            "https://?a=1",
            "HTTP://A.B/C",
            "http:/x",
            "ftp://h/x",
            "x/y",
            "/static/app.35074.js",
            "/v1/orders/56546?expand=items",
            "/v1/customers/123",
            "/v1/search?q=shoes&page=63911",
            "/v1/orders",
            "https://api.example.com/v1/orders/0?expand=items",
            "https://api.example.com/v1/items?page=0&api_key=sk-test-0000000000000000",
            "https://api.example.com/v1/search?q=red%20shoes&page=1",
            "/v1/x?token=",
            "/v1/x?token=&a=1",
            "/v1/x?api_key=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln&page=3",
            "/v1/x?page=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln",
            "/v1/x?redirect=hooks.slack.com/services/T/B/x",
            "/v1/x?token=hooks.slack.com/services/T/B/x",
            "/v1/x?key=abcdefghijklmnopqrstuvwxyz",
            "/v1/x?q=abcdefghijklmnopqrstuvwxyz",
            "/v1/abcdefghijk",
            "/v1/abcdefghij",
            "/eyJ/x",
            "/x/YA29/y?a=1",
            "/x?sk=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaa",
            "/x?token=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaa&page=ghp_b",
            "/webhooks/1?a=1",
            "/v1/x?a=1;token=2",
            "/a b?c=d",
            "/é?a=1",
            "/x?é=1",
            "/x?a=é",
        ] {
            same(url).unwrap();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, .. ProptestConfig::default() })]
        /// Adversarial URLs: pieces on both sides of the short-piece bound, every needle and
        /// trigger family, secret and plain names, every separator and a few bytes no simple
        /// URL has.
        #[test]
        fn one_pass_answers_as_the_two_checks(
            scheme in prop::sample::select(vec!["https://", "http://", "/", "HTTP://", "", "ftp://", "http:/"]),
            parts in prop::collection::vec(prop::sample::select(vec![
                "/", ".", "~", "-", "_", "?", "&", "=", "#", "%", "%20", "@", ":", " ", ";", "+",
                "é", "v1", "orders", "12345", "abcdefghij", "abcdefghijk", "k", "page", "q",
                "api_key", "token", "access_token", "sig", "key", "client_secret", "session_id",
                "eyJ", "eyJhbGciOi", "YA29", "ya29.", "glpat-", "gldt", "whsec_", "slack",
                "hooks.slack.com/services/", "telegram", "discord", "webhooks", "/webhooks/",
                "sk-", "sk_live_", "ghp_", "gh", "AKIA", "ABCDEFGHIJKLMNOP", "xoxb-", "AIza",
                "npm_", "hf_", "SG.", "shpat_", "_v1_", "pypi-", "Bearer", "basic", "form-data",
                "0000000000000000", "<input", "\\",
            ]), 0..14),
        ) {
            same(&format!("{scheme}{}", parts.concat()))?;
        }

        /// Structurally simple URLs (a path, then `name=value` pairs), so that most take the
        /// fast path and the needle, short-piece and trigger decisions are what is tested.
        #[test]
        fn simple_urls_answer_as_the_two_checks(
            scheme in prop::sample::select(vec!["https://", "http://", "/", "HTTPS://"]),
            base in prop::collection::vec(prop::sample::select(vec![
                "/", ".", "~", "-", "_", "v1", "orders", "0123456789", "abcdefghijk", "eyJ",
                "ya29", "gh", "sk-", "AKIA", "slack", "webhooks", "hooks", "Telegram", "k",
            ]), 0..8),
            pairs in prop::collection::vec((
                prop::sample::select(vec![
                    "page", "q", "api_key", "token", "access_token", "sig", "key", "expand",
                    "client_secret", "session_id", "abcdefghijk", "eyJx", "ghp_x", "", "a.b",
                ]),
                prop::collection::vec(prop::sample::select(vec![
                    "", "0", "abc", "sk-", "test-", "0000000000000000", "eyJhbGciOiJIUzI1NiJ9",
                    ".", "eyJzdWIiOiJ1c2VyIn0", "ghp_", "AKIA", "ABCDEFGHIJKLMNOP", "/",
                    "hooks.slack.com", "services", "~", "-", "_", "ya29.", "whsec_", "xoxb-",
                    "AIza", "_v1_", "glpat-", "npm_", "hf_", "shpat_", "webhooks",
                ]), 0..5),
            ), 0..5),
        ) {
            let mut url = format!("{scheme}{}", base.concat());
            let query: Vec<String> = pairs.iter().map(|(n, v)| format!("{n}={}", v.concat())).collect();
            if !query.is_empty() {
                url.push('?');
                url.push_str(&query.join("&"));
            }
            same(&url)?;
        }

        /// Arbitrary short strings over the bytes that matter, and a few that do not.
        #[test]
        fn arbitrary_strings(s in "[/?&=a-zA-Z0-9._~%#@: -]{0,40}") {
            same(&s)?;
            same(&format!("/{s}"))?;
            same(&format!("https://{s}"))?;
        }

        /// Any string at all (never panics, same answer).
        #[test]
        fn any_string(s in any::<String>()) {
            same(&s)?;
            same(&format!("/{s}"))?;
        }
    }
}

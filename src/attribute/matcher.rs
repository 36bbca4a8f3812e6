//! Matchers: the condition language of the rule table. Data, not code, so adding a vendor is
//! adding rows; each match reports the exact header or body feature it saw, for the evidence.

use crate::model::Request;

/// A condition on one response. Header names are compared case-insensitively, values and body
/// text case-insensitively by substring.
#[derive(Debug)]
pub enum M {
    /// The header is present.
    Has(&'static str),
    /// The header's value contains the text.
    Value(&'static str, &'static str),
    /// Some header name starts with the prefix.
    NamePrefix(&'static str),
    /// The body contains the text (also tried with whitespace removed, so JSON spacing does
    /// not matter).
    Body(&'static str),
    /// The body contains the text, compared case-insensitively (for stock wording kept as the
    /// vendor writes it); like `Body`, also tried with whitespace removed.
    Text(&'static str),
    /// The body's own words contain the text (lower-case): the body with its URLs removed, so
    /// a documentation link (`…/docs/rate-limiting`, `…/per-minute-quotas`) states no kind.
    Words(&'static str),
    /// A producer's error code, as it writes it: case-sensitive, a whole token (no letter,
    /// digit or `_` on either side), in the body or an error-code header (`x-amzn-ErrorType`,
    /// `x-ms-error-code`). `RESOURCE_EXHAUSTED` and `ThrottlingException` are codes; the same
    /// letters in another case or inside a longer name are not.
    Code(&'static str),
    /// The whole body is this text (case-insensitive, whitespace ignored): a producer's stock
    /// body with nothing else in it, e.g. a gateway's `{"message":"Too Many Requests"}`.
    BodyIs(&'static str),
    /// The body contains the text with its line breaks and indentation as written (case
    /// ignored, whitespace not folded): a template's own layout, where its words alone are
    /// what many producers write (Tyk's indented `{\n    "error": "Quota exceeded"\n}` against
    /// any API's `{"error":"Quota exceeded"}`).
    Layout(&'static str),
    /// The body is known to be empty: absent from a record that would have shown it, not a
    /// body the input did not record ([`crate::model::Request::body_unknown`]).
    BodyEmpty,
    Status(u16),
    /// The request's host matches the glob (`*` for any run of characters).
    Host(&'static str),
    /// The access log line's own deciding field (`Request::layer_signal`, e.g.
    /// `sc-substatus=501`) contains the text.
    LogField(&'static str),
    All(&'static [M]),
    Any(&'static [M]),
    Not(&'static M),
}

/// One response prepared for matching: lower-cased body once, not per rule.
pub struct Subject<'a> {
    pub req: &'a Request,
    body_lc: String,
    body_compact: String,
    /// The body was there but not recorded ([`Request::body_unknown`]).
    body_unknown: bool,
    /// `body_lc` without its URLs, made when first asked for.
    words: std::cell::OnceCell<String>,
    /// `words` with whitespace, `_` and `-` removed ([`joined`]), made when first asked for.
    words_joined: std::cell::OnceCell<String>,
}

impl<'a> Subject<'a> {
    pub fn new(req: &'a Request) -> Self {
        let body_lc = req.body_excerpt.as_deref().unwrap_or("").to_lowercase();
        let body_compact = body_lc.chars().filter(|c| !c.is_whitespace()).collect();
        Subject {
            req,
            body_lc,
            body_compact,
            body_unknown: req.body_unknown(),
            words: std::cell::OnceCell::new(),
            words_joined: std::cell::OnceCell::new(),
        }
    }

    pub fn body_lc(&self) -> &str {
        &self.body_lc
    }

    /// The lower-cased body without its URLs: what the body says in words.
    pub fn words(&self) -> &str {
        self.words
            .get_or_init(|| without_urls(&self.body_lc).into_owned())
    }

    /// [`Subject::words`] with the separators of words and identifiers removed: `rate_limit`,
    /// `rate-limit`, `RateLimit` and `rate limit` all read `ratelimit`.
    pub fn words_joined(&self) -> &str {
        self.words_joined.get_or_init(|| joined(self.words()))
    }

    /// The response's body is known to be empty (not merely unrecorded).
    pub fn body_is_empty(&self) -> bool {
        !self.body_unknown && self.body_lc.trim().trim_end_matches('…').trim().is_empty()
    }

    /// The response had a body that the input did not record: no rule can say it was empty.
    pub fn body_unknown(&self) -> bool {
        self.body_unknown
    }

    /// The same response read as if its unrecorded body had been empty: what a rule that needs
    /// an empty body would have said.
    pub fn as_if_empty(&self) -> Subject<'a> {
        Subject {
            req: self.req,
            body_lc: self.body_lc.clone(),
            body_compact: self.body_compact.clone(),
            body_unknown: false,
            words: self.words.clone(),
            words_joined: self.words_joined.clone(),
        }
    }
}

/// `text` with every URL (`http://…`, `https://…`, `www.…`, up to the next space, quote or
/// bracket) replaced by a space: a link names a page, not the limit.
pub fn without_urls(text: &str) -> std::borrow::Cow<'_, str> {
    let starts = |i: usize| {
        let rest = &text.as_bytes()[i..];
        [&b"http://"[..], b"https://", b"www."]
            .iter()
            .any(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p))
    };
    if !(0..text.len()).any(starts) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if text.is_char_boundary(i) && starts(i) {
            while chars
                .peek()
                .is_some_and(|(_, c)| !c.is_whitespace() && !"\"'<>()[]{}".contains(*c))
            {
                chars.next();
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

const SHOWN_VALUE: usize = 80;

fn shown(v: &str) -> String {
    let v = v.trim();
    if v.chars().count() <= SHOWN_VALUE {
        v.to_string()
    } else {
        format!("{}…", v.chars().take(SHOWN_VALUE).collect::<String>())
    }
}

/// Case-insensitive (ASCII) substring test without allocating: rules run on every response.
fn contains_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// `hay` contains `needle` (bytes; what `str::contains` answers). Bodies are short excerpts
/// and needles a few words, so a `memchr` for the needle's first byte then a compare beats
/// building a substring searcher for every condition.
fn contains(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, _)) = n.split_first() else {
        return true;
    };
    let Some(last) = h.len().checked_sub(n.len()) else {
        return false;
    };
    memchr::memchr_iter(first, &h[..=last]).any(|i| &h[i..i + n.len()] == n)
}

/// [`contains_ci`] for a lower-cased haystack (`Subject`'s body forms): every ASCII letter in
/// it is lower case already, so a window matches the needle ignoring ASCII case exactly when
/// it equals the needle with its ASCII letters lowered.
fn contains_ci_in_lowered(hay_lc: &str, needle: &'static str) -> bool {
    if !needle.bytes().any(|b| b.is_ascii_uppercase()) {
        return contains(hay_lc, needle);
    }
    with_form(needle, Form::Lowered, |n| contains(hay_lc, n))
}

/// The forms of a rule's (static) needle that matching compares against.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
enum Form {
    /// ASCII letters lowered.
    Lowered,
    /// Whitespace removed (`chars().filter(!is_whitespace)`).
    Compact,
    /// Whitespace removed, lower-cased ([`compact_lc`]).
    CompactLc,
    /// Whitespace, `_` and `-` removed, lower-cased ([`joined`]).
    Joined,
}

fn form_of(text: &str, form: Form) -> String {
    match form {
        Form::Lowered => text.to_ascii_lowercase(),
        Form::Compact => text.chars().filter(|c| !c.is_whitespace()).collect(),
        Form::CompactLc => compact_lc(text),
        Form::Joined => joined(text),
    }
}

thread_local! {
    /// Each static needle's forms, made once per thread: building them anew for every
    /// condition of every rule on every response was most of a rate-limited row's cost (7 % of
    /// a JSON-lines run's instructions on the realistic bench input). The rule table holds a
    /// few hundred needles, up to three forms each: 8,192 slots keep collisions rare.
    static FORMS: std::cell::RefCell<crate::memo::Memo<Box<str>>> =
        const { std::cell::RefCell::new(crate::memo::Memo::new(8192, 17)) };
}

/// `f` of `form` of the static `text`. Keyed by the text's address and length and the form: a
/// static never moves nor changes, so those name its bytes.
fn with_form<R>(text: &'static str, form: Form, f: impl FnOnce(&str) -> R) -> R {
    let mut key = [0u8; 17];
    key[..8].copy_from_slice(&(text.as_ptr() as usize as u64).to_le_bytes());
    key[8..16].copy_from_slice(&(text.len() as u64).to_le_bytes());
    key[16] = form as u8;
    FORMS.with(|m| {
        let mut m = m.borrow_mut();
        let miss = match m.find(&key) {
            Ok(v) => return f(v),
            Err(miss) => miss,
        };
        let v: Box<str> = form_of(text, form).into_boxed_str();
        let r = f(&v);
        if let Some(miss) = miss {
            m.put(miss, &key, v);
        }
        r
    })
}

/// `*` matches any run of characters (dots included); everything else literally, ASCII
/// case-insensitively. Host patterns use it.
pub fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while t < text.len() {
        if p < pattern.len() && pattern[p] != b'*' && pattern[p].eq_ignore_ascii_case(&text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Lower-cased, with whitespace and the separators of identifiers (`_`, `-`) removed: words
/// in any spelling (`per_day`, `rate-limit`, `RateLimit`) read alike.
fn joined(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Lower-cased, whitespace removed: the form `Subject::body_compact` is kept in.
fn compact_lc(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

impl M {
    /// The signals that made this condition true (`cf-ray: 8a1b…`, `body: "error code: 1015"`),
    /// or `None` when it is false.
    pub fn eval(&self, s: &Subject) -> Option<Vec<String>> {
        let h = &s.req.response_headers;
        match self {
            M::Has(name) => h.get(name).map(|v| vec![format!("{}: {}", name, shown(v))]),
            M::Value(name, needle) => h
                .get_all(name)
                .find(|v| contains_ci(v, needle))
                .map(|v| vec![format!("{}: {}", name, shown(v))]),
            M::NamePrefix(prefix) => {
                let hits: Vec<String> = h
                    .iter()
                    .filter(|(n, _)| {
                        n.get(..prefix.len())
                            .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
                    })
                    .take(3)
                    .map(|(n, v)| format!("{}: {}", n.to_ascii_lowercase(), shown(v)))
                    .collect();
                (!hits.is_empty()).then_some(hits)
            }
            M::Body(_) | M::Text(_) | M::Words(_) | M::Code(_) | M::BodyIs(_) | M::Layout(_) => {
                self.eval_text(s)
            }
            M::BodyEmpty => s.body_is_empty().then(|| vec!["body: empty".to_string()]),
            M::Status(code) => (s.req.status == *code).then(|| vec![format!("status {code}")]),
            M::Host(pattern) => {
                let host = crate::http::url::host(&s.req.url);
                glob(pattern.as_bytes(), host.as_bytes()).then(|| vec![format!("host {host}")])
            }
            M::All(ms) => {
                let mut out = Vec::new();
                for m in ms.iter() {
                    out.extend(m.eval(s)?);
                }
                Some(out)
            }
            M::LogField(needle) => s
                .req
                .layer_signal
                .as_deref()
                .filter(|sig| sig.field.contains(needle))
                .map(|sig| vec![format!("access log: {}", sig.field)]),
            M::Any(ms) => ms.iter().find_map(|m| m.eval(s)),
            M::Not(m) => match m.eval(s) {
                Some(_) => None,
                None => Some(Vec::new()),
            },
        }
    }

    /// [`M::eval`] of the conditions on the body's text (and a code's headers).
    fn eval_text(&self, s: &Subject) -> Option<Vec<String>> {
        let h = &s.req.response_headers;
        match self {
            // No body (most access-log lines): no text to find, and no needle to compact.
            M::Body(needle) | M::Text(needle) if s.body_lc.is_empty() && !needle.is_empty() => None,
            M::Body(needle) => {
                let found = contains(&s.body_lc, needle)
                    || if needle.contains(char::is_whitespace) {
                        with_form(needle, Form::Compact, |compact| {
                            !compact.is_empty() && contains(&s.body_compact, compact)
                        })
                    } else {
                        contains(&s.body_compact, needle)
                    };
                found.then(|| vec![format!("body: \"{needle}\"")])
            }
            M::Words(needle) => {
                let words = s.words();
                // In any spelling: separated by spaces, `_` or `-`, or run together.
                let found = contains(words, needle)
                    || with_form(needle, Form::Joined, |j| {
                        !j.is_empty() && contains(s.words_joined(), j)
                    });
                found.then(|| vec![format!("body: \"{needle}\"")])
            }
            M::Text(text) => {
                let found = contains_ci_in_lowered(&s.body_lc, text)
                    || if text.contains(char::is_whitespace) {
                        with_form(text, Form::CompactLc, |compact| {
                            !compact.is_empty() && contains(&s.body_compact, compact)
                        })
                    } else {
                        contains_ci_in_lowered(&s.body_compact, text)
                    };
                found.then(|| vec![format!("body: \"{}\"", shown(text))])
            }
            M::Code(code) => {
                let in_header = super::limited::CODE_HEADERS
                    .iter()
                    .filter_map(|n| h.get(n).map(|v| (n, v)))
                    .find(|(_, v)| super::limited::has_token(v, code));
                if let Some((n, _)) = in_header {
                    return Some(vec![format!("{n}: {code}")]);
                }
                let body = s.req.body_excerpt.as_deref().unwrap_or("");
                super::limited::has_token(body, code).then(|| vec![format!("code {code}")])
            }
            M::Layout(text) => contains_ci_in_lowered(&s.body_lc, text)
                .then(|| vec![format!("body: \"{}\"", shown(&text.replace('\n', "\\n")))]),
            M::BodyIs(text) => {
                let whole = s.body_compact.trim_end_matches('…');
                (!whole.is_empty() && with_form(text, Form::CompactLc, |c| whole == c))
                    .then(|| vec![format!("body is \"{}\"", shown(text))])
            }
            _ => None,
        }
    }

    /// Whether the condition needs an empty body somewhere (not under a `Not`).
    pub fn needs_empty_body(&self) -> bool {
        match self {
            M::BodyEmpty => true,
            M::All(ms) | M::Any(ms) => ms.iter().any(M::needs_empty_body),
            _ => false,
        }
    }

    /// Header names (or name prefixes) this condition looks at, to tell layer headers from the
    /// origin's own headers when building a host's baseline.
    pub fn header_names(&self, out: &mut Vec<&'static str>) {
        match self {
            M::Has(n) | M::Value(n, _) | M::NamePrefix(n) => out.push(n),
            M::All(ms) | M::Any(ms) => ms.iter().for_each(|m| m.header_names(out)),
            M::Not(_)
            | M::Body(_)
            | M::Text(_)
            | M::Words(_)
            | M::Code(_)
            | M::BodyIs(_)
            | M::Layout(_)
            | M::BodyEmpty
            | M::Status(_)
            | M::Host(_)
            | M::LogField(_) => {}
        }
    }

    /// A short human rendering for docs/attribution.md.
    pub fn describe(&self) -> String {
        match self {
            M::Has(n) => format!("header `{n}`"),
            M::Value(n, v) => format!("`{n}` contains `{v}`"),
            M::NamePrefix(p) => format!("a header named `{p}*`"),
            M::Body(b) => format!("body contains `{}`", b.replace('|', "\\|")),
            M::Text(t) => format!("body contains `{}`", t.replace('|', "\\|")),
            M::Words(w) => format!(
                "body (its links aside) contains `{}`",
                w.replace('|', "\\|")
            ),
            M::Code(c) => format!("code `{c}` (its case, a whole token)"),
            M::BodyIs(t) => format!("body is exactly `{}`", t.replace('|', "\\|")),
            M::Layout(t) => format!(
                "body contains `{}` laid out as written",
                t.replace('|', "\\|").replace('\n', "\\n")
            ),
            M::BodyEmpty => "empty body".into(),
            M::Status(c) => format!("status {c}"),
            M::Host(p) => format!("host `{p}`"),
            M::LogField(f) => format!("access-log field `{f}`"),
            M::All(ms) => ms
                .iter()
                .map(|m| m.describe())
                .collect::<Vec<_>>()
                .join(" and "),
            M::Any(ms) => format!(
                "({})",
                ms.iter()
                    .map(|m| m.describe())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            M::Not(m) => format!("not {}", m.describe()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a", "B", "z", "Q", " ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{a0}", "é", "É",
                "K", "\u{212a}", "{", "\"", ":", "1",
            ]),
            0..24,
        )
        .prop_map(|v| v.concat())
    }

    #[test]
    fn links_are_not_words() {
        assert_eq!(
            without_urls("see https://docs.x.com/rate-limiting for details"),
            "see   for details"
        );
        assert_eq!(
            without_urls("{\"u\":\"https://x.io/per-minute\"}"),
            "{\"u\":\" \"}"
        );
        assert!(matches!(
            without_urls("no links here"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    proptest! {
        /// The fast forms answer what the plain ones answer.
        #[test]
        fn fast_forms_equal_the_plain_ones(hay in text(), needle in text()) {
            let lc = hay.to_lowercase();
            prop_assert_eq!(contains(&hay, &needle), hay.contains(needle.as_str()));
            // Static needles only: leak this one (a test).
            let needle: &'static str = Box::leak(needle.into_boxed_str());
            prop_assert_eq!(contains_ci_in_lowered(&lc, needle), contains_ci(&lc, needle));
            let plain: String = needle.chars().filter(|c| !c.is_whitespace()).collect();
            prop_assert_eq!(with_form(needle, Form::Compact, |c| c.to_string()), plain);
            prop_assert_eq!(with_form(needle, Form::CompactLc, |c| c.to_string()), compact_lc(needle));
            prop_assert_eq!(with_form(needle, Form::Lowered, |c| c.to_string()), needle.to_ascii_lowercase());
        }
    }
}

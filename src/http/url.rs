//! A tolerant URL splitter. Logs and HARs hold URLs that a strict parser rejects (spaces, raw
//! unicode, `data:` URLs, bare paths); analysis only needs the pieces, so we split, never fail.

/// The parts of a URL, borrowed from it. Missing parts are empty strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Parts<'a> {
    /// `https`, `http`, `data`, ... without the colon; "" for a bare path.
    pub scheme: &'a str,
    /// `user:pass` before `@`, if any.
    pub userinfo: &'a str,
    /// Host with optional `:port`.
    pub authority: &'a str,
    pub path: &'a str,
    /// Query without the `?`.
    pub query: &'a str,
    /// Fragment without the `#`.
    pub fragment: &'a str,
}

/// Split a URL into its parts (never fails). Byte searches (`memchr`), one per delimiter: this
/// runs several times for every record.
pub fn split(url: &str) -> Parts<'_> {
    let mut p = Parts::default();
    let mut rest = url;
    if let Some(i) = memchr::memchr(b'#', rest.as_bytes()) {
        p.fragment = &rest[i + 1..];
        rest = &rest[..i];
    }
    // A scheme: a non-empty run of scheme characters right before the first colon (a colon
    // after any other character is no scheme's).
    let run = rest
        .bytes()
        .take_while(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
        .count();
    if run > 0 && rest.as_bytes().get(run) == Some(&b':') {
        p.scheme = &rest[..run];
        rest = &rest[run + 1..];
    }
    if let Some(after) = rest.strip_prefix("//") {
        let end = memchr::memchr2(b'/', b'?', after.as_bytes()).unwrap_or(after.len());
        let auth = &after[..end];
        match memchr::memrchr(b'@', auth.as_bytes()) {
            Some(at) => {
                p.userinfo = &auth[..at];
                p.authority = &auth[at + 1..];
            }
            None => p.authority = auth,
        }
        rest = &after[end..];
    }
    match memchr::memchr(b'?', rest.as_bytes()) {
        Some(q) => {
            p.path = &rest[..q];
            p.query = &rest[q + 1..];
        }
        None => p.path = rest,
    }
    p
}

/// [`split`]`(url).authority`, without the searches for the fragment and the query: a bare
/// path (most access-log targets) has none, which a look at its first bytes tells.
pub fn authority(url: &str) -> &str {
    let b = url.as_bytes();
    // The scheme run ends at a byte outside the scheme characters, '#' included, so a fragment
    // never holds the scheme's colon.
    let run = b
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'-' || c == b'.')
        .count();
    let rest = if run > 0 && b.get(run) == Some(&b':') {
        &url[run + 1..]
    } else {
        url
    };
    let Some(after) = rest.strip_prefix("//") else {
        return "";
    };
    // The authority ends at '/', '?', or where `split` cut the fragment off.
    let end = memchr::memchr3(b'/', b'?', b'#', after.as_bytes()).unwrap_or(after.len());
    let auth = &after[..end];
    match memchr::memrchr(b'@', auth.as_bytes()) {
        Some(at) => &auth[at + 1..],
        None => auth,
    }
}

/// Host without port (IPv6 brackets kept), "" when the URL has none.
pub fn host(url: &str) -> &str {
    let auth = authority(url);
    if auth.is_empty() {
        return auth;
    }
    if auth.starts_with('[') {
        return match auth.find(']') {
            Some(i) => &auth[..=i],
            None => auth,
        };
    }
    match auth.rfind(':') {
        Some(i) => &auth[..i],
        None => auth,
    }
}

/// `scheme://authority` of a URL (for Origin/Referer comparisons).
pub fn origin(url: &str) -> Option<String> {
    let p = split(url);
    if p.authority.is_empty() {
        return None;
    }
    Some(format!("{}://{}", p.scheme, p.authority))
}

/// Query pairs `(name, value)` in order, not percent-decoded.
pub fn query_pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|pair| match pair.find('=') {
            Some(i) => (&pair[..i], &pair[i + 1..]),
            None => (pair, ""),
        })
}

/// A URL reduced to what identifies "the same call": scheme, host and path, with numeric and
/// hex/uuid-looking path segments kept (they name a resource) and the query sorted so parameter
/// order does not split one operation into two.
pub fn normalize(url: &str) -> String {
    let p = split(url);
    let mut q: Vec<&str> = p.query.split('&').filter(|s| !s.is_empty()).collect();
    q.sort_unstable();
    let mut out = String::with_capacity(url.len());
    if !p.scheme.is_empty() {
        out.push_str(&p.scheme.to_ascii_lowercase());
        out.push_str("://");
    }
    out.push_str(&p.authority.to_ascii_lowercase());
    out.push_str(p.path);
    if !q.is_empty() {
        out.push('?');
        out.push_str(&q.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    /// The `str`-method splitter [`split`] replaced, which it must equal.
    fn split_by_str(url: &str) -> Parts<'_> {
        let mut p = Parts::default();
        let mut rest = url;
        if let Some(i) = rest.find('#') {
            p.fragment = &rest[i + 1..];
            rest = &rest[..i];
        }
        if let Some(colon) = rest.find(':') {
            let scheme = &rest[..colon];
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
            {
                p.scheme = scheme;
                rest = &rest[colon + 1..];
            }
        }
        if let Some(after) = rest.strip_prefix("//") {
            let end = after.find(['/', '?']).unwrap_or(after.len());
            let auth = &after[..end];
            match auth.rfind('@') {
                Some(at) => {
                    p.userinfo = &auth[..at];
                    p.authority = &auth[at + 1..];
                }
                None => p.authority = auth,
            }
            rest = &after[end..];
        }
        match rest.find('?') {
            Some(q) => {
                p.path = &rest[..q];
                p.query = &rest[q + 1..];
            }
            None => p.path = rest,
        }
        p
    }

    proptest::proptest! {
        #[test]
        fn byte_searches_split_as_str_methods(url in "[a-zA-Z0-9+.:/?#@ é-]{0,24}") {
            proptest::prop_assert_eq!(split(&url), split_by_str(&url));
        }

        #[test]
        fn authority_is_the_split_one(url in "([a-z+.-]{0,5}:)?(//)?[a-zA-Z0-9+.:/?#@\\[\\] é-]{0,24}") {
            proptest::prop_assert_eq!(authority(&url), split(&url).authority);
        }
    }

    use super::*;

    #[test]
    fn splits_full_url() {
        let p = split("https://u:p@api.example.com:8443/v1/x?a=1&b=2#frag");
        assert_eq!(p.scheme, "https");
        assert_eq!(p.userinfo, "u:p");
        assert_eq!(p.authority, "api.example.com:8443");
        assert_eq!(p.path, "/v1/x");
        assert_eq!(p.query, "a=1&b=2");
        assert_eq!(p.fragment, "frag");
        assert_eq!(
            host("https://u:p@api.example.com:8443/v1/x"),
            "api.example.com"
        );
    }

    #[test]
    fn tolerates_odd_urls() {
        assert_eq!(split("/just/a/path?q=1").path, "/just/a/path");
        assert_eq!(split("data:text/plain,hello").scheme, "data");
        assert_eq!(host("http://[fe80::1%7]:80/x"), "[fe80::1%7]");
        assert_eq!(host(""), "");
        assert_eq!(host("not a url"), "");
    }

    #[test]
    fn normalize_sorts_query() {
        assert_eq!(
            normalize("HTTPS://API.x.com/a?b=2&a=1"),
            normalize("https://api.x.com/a?a=1&b=2")
        );
    }

    #[test]
    fn query_pairs_split() {
        let v: Vec<_> = query_pairs("a=1&b&c=").collect();
        assert_eq!(v, vec![("a", "1"), ("b", ""), ("c", "")]);
    }
}

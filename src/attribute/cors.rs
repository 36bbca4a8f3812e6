//! What a browser let the page read of a cross-origin response (Fetch standard, CORS protocol).
//!
//! Why it matters for 429s: a HAR shows every response header, but the page's JavaScript sees
//! only the CORS-safelisted response headers (Cache-Control, Content-Language, Content-Length,
//! Content-Type, Expires, Last-Modified, Pragma) plus those the server lists in
//! `Access-Control-Expose-Headers`. `Retry-After` is not safelisted: unless the server exposes
//! it, a fetch() sees the 429 but not the wait, and the client's retry code cannot honour it.
//! The wildcard `*` exposes every header only for requests without credentials
//! (https://fetch.spec.whatwg.org/#http-access-control-expose-headers). Without a matching
//! `Access-Control-Allow-Origin` the page reads nothing at all (fetch rejects with a network
//! error), not even the status.

use crate::http::url;
use crate::model::Request;

/// What the page could read of one cross-origin response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cors {
    /// The page's origin (the request's `Origin`, else its `Referer`'s origin).
    pub page_origin: String,
    /// The request URL's origin.
    pub target_origin: String,
    /// Why the request counts as cross-origin ("Origin differs", "Sec-Fetch-Site: cross-site").
    pub how_known: &'static str,
    /// The request carried credentials (cookies): `*` does not expose headers then.
    pub credentialed: bool,
    /// `Access-Control-Allow-Origin` as sent, when present.
    pub allow_origin: Option<String>,
    /// `Access-Control-Expose-Headers` as sent (all instances joined), when present.
    pub expose_headers: Option<String>,
    /// The page can read the response at all (Allow-Origin matches).
    pub readable: bool,
    /// The page can read `Retry-After`.
    pub retry_after_exposed: bool,
}

impl Cors {
    /// The page and the URL are on the same site: the browser said so (`Sec-Fetch-Site:
    /// same-site`), or their hosts share the registrable part (a rough reading, see
    /// [`crate::http::url::site`]).
    pub fn same_site(&self) -> bool {
        if self.how_known == "Sec-Fetch-Site: same-site" {
            return true;
        }
        let host = |o: &str| {
            let h = o.split_once("://").map(|(_, h)| h).unwrap_or(o);
            h.rsplit_once(':').map(|(h, _)| h).unwrap_or(h).to_string()
        };
        let (a, b) = (host(&self.page_origin), host(&self.target_origin));
        let site = crate::http::url::site;
        !a.is_empty() && site(&a) == site(&b) && site(&a).contains('.')
    }
}

/// `scheme://host[:port]` lower-cased, with the scheme's default port dropped.
fn canonical_origin(origin: &str) -> Option<String> {
    let o = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, rest) = o.split_once("://")?;
    if rest.is_empty() || rest.contains('/') {
        return None;
    }
    let rest = match (scheme, rest.rsplit_once(':')) {
        ("https", Some((h, "443"))) | ("http", Some((h, "80"))) => h,
        _ => rest,
    };
    Some(format!("{scheme}://{rest}"))
}

/// Does `list` (a comma-separated header list) name `header`, or `*` when that counts?
fn lists(list: &str, header: &str, wildcard_counts: bool) -> bool {
    list.split(',')
        .map(str::trim)
        .any(|h| h.eq_ignore_ascii_case(header) || (wildcard_counts && h == "*"))
}

/// The CORS view of a browser request that went to another origin; `None` for a same-origin
/// or non-browser request (no `Origin`, no `Sec-Fetch-*`, no `Referer` to compare with).
pub fn of(r: &Request) -> Option<Cors> {
    let req = &r.request_headers;
    let site = req.get("sec-fetch-site").map(str::trim);
    let mode = req.get("sec-fetch-mode").map(str::trim);
    // A navigation, a no-cors fetch (images, scripts) or a same-origin request is not read
    // through CORS.
    if mode.is_some_and(|m| !m.eq_ignore_ascii_case("cors")) {
        return None;
    }
    let origin_header = req
        .get("origin")
        .filter(|o| !o.is_empty() && !o.eq_ignore_ascii_case("null"));
    let page_origin = origin_header.and_then(canonical_origin).or_else(|| {
        req.get("referer")
            .and_then(url::origin)
            .and_then(|o| canonical_origin(&o))
    })?;
    // The request's own origin last: most requests (no browser headers) are answered above
    // without building it.
    let target_origin = canonical_origin(&url::origin(&r.url)?)?;
    let how_known = match site {
        Some(s) if s.eq_ignore_ascii_case("same-origin") => return None,
        Some(s) if s.eq_ignore_ascii_case("cross-site") => "Sec-Fetch-Site: cross-site",
        Some(s) if s.eq_ignore_ascii_case("same-site") => "Sec-Fetch-Site: same-site",
        _ if page_origin != target_origin && origin_header.is_some() => {
            "the Origin differs from the URL's"
        }
        // Referer alone says where the page was, not that the browser ran CORS: only with
        // Sec-Fetch-Mode: cors.
        _ if page_origin != target_origin && mode.is_some() => "Sec-Fetch-Mode: cors",
        _ => return None,
    };
    if page_origin == target_origin {
        return None;
    }
    let credentialed = req.contains("cookie");
    let resp = &r.response_headers;
    let allow_origin = resp
        .get("access-control-allow-origin")
        .map(|v| v.trim().to_string());
    let expose: Vec<&str> = resp.get_all("access-control-expose-headers").collect();
    let expose_headers = (!expose.is_empty()).then(|| expose.join(", "));
    let readable = match allow_origin.as_deref() {
        Some("*") => !credentialed,
        Some(o) => canonical_origin(o).is_some_and(|o| o == page_origin),
        None => false,
    };
    let retry_after_exposed = readable
        && expose_headers
            .as_deref()
            .is_some_and(|l| lists(l, "retry-after", !credentialed));
    Some(Cors {
        page_origin,
        target_origin,
        how_known,
        credentialed,
        allow_origin,
        expose_headers,
        readable,
        retry_after_exposed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Location, Position};
    use std::sync::Arc;

    fn req(url: &str, reqh: &[(&str, &str)], resph: &[(&str, &str)]) -> Request {
        let mut r = Request::at(Location {
            source: Arc::from("t"),
            position: Position::Entry(0),
        });
        r.url = url.into();
        r.method = "GET".into();
        r.status = 429;
        for (n, v) in reqh {
            r.request_headers.push(*n, *v);
        }
        for (n, v) in resph {
            r.response_headers.push(*n, *v);
        }
        r
    }

    const API: &str = "https://api.example.com/v1/items";

    #[test]
    fn cross_origin_fetch_without_the_exposing_header_hides_retry_after() {
        let c = of(&req(
            API,
            &[
                ("Origin", "https://app.example.com"),
                ("Sec-Fetch-Mode", "cors"),
            ],
            &[
                ("Access-Control-Allow-Origin", "https://app.example.com"),
                ("Retry-After", "30"),
            ],
        ))
        .expect("cross-origin");
        assert!(c.readable);
        assert!(!c.retry_after_exposed);
        assert_eq!(c.page_origin, "https://app.example.com");
        assert_eq!(c.target_origin, "https://api.example.com");
    }

    #[test]
    fn the_exposing_header_or_a_wildcard_without_credentials_shows_it() {
        let named = of(&req(
            API,
            &[("Origin", "https://app.example.com")],
            &[
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Expose-Headers", "X-Request-Id, Retry-After"),
            ],
        ))
        .expect("cross-origin");
        assert!(named.retry_after_exposed);
        let star = of(&req(
            API,
            &[("Origin", "https://app.example.com")],
            &[
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Expose-Headers", "*"),
            ],
        ))
        .expect("cross-origin");
        assert!(star.retry_after_exposed);
    }

    #[test]
    fn a_wildcard_does_not_expose_to_a_credentialed_request() {
        let c = of(&req(
            API,
            &[("Origin", "https://app.example.com"), ("Cookie", "s=1")],
            &[
                ("Access-Control-Allow-Origin", "https://app.example.com"),
                ("Access-Control-Allow-Credentials", "true"),
                ("Access-Control-Expose-Headers", "*"),
            ],
        ))
        .expect("cross-origin");
        assert!(c.credentialed && c.readable && !c.retry_after_exposed);
    }

    #[test]
    fn without_allow_origin_the_page_reads_nothing() {
        let c = of(&req(
            API,
            &[("Origin", "https://app.example.com")],
            &[("Access-Control-Expose-Headers", "Retry-After")],
        ))
        .expect("cross-origin");
        assert!(!c.readable && !c.retry_after_exposed);
    }

    #[test]
    fn same_origin_and_non_browser_requests_are_not_cors() {
        // Browsers send Origin on same-origin POSTs too.
        assert!(of(&req(API, &[("Origin", "https://api.example.com:443")], &[])).is_none());
        assert!(of(&req(
            API,
            &[
                ("Origin", "https://app.example.com"),
                ("Sec-Fetch-Site", "same-origin")
            ],
            &[]
        ))
        .is_none());
        assert!(of(&req(API, &[("User-Agent", "curl/8")], &[])).is_none());
        // A navigation is not read by script.
        assert!(of(&req(
            API,
            &[
                ("Referer", "https://app.example.com/"),
                ("Sec-Fetch-Mode", "navigate")
            ],
            &[]
        ))
        .is_none());
        // A Referer alone is not proof of a CORS read.
        assert!(of(&req(API, &[("Referer", "https://app.example.com/")], &[])).is_none());
    }

    #[test]
    fn origins_compare_without_default_ports_and_case() {
        assert_eq!(
            canonical_origin("HTTPS://App.Example.com:443").as_deref(),
            Some("https://app.example.com")
        );
        assert_eq!(
            canonical_origin("http://localhost:3000").as_deref(),
            Some("http://localhost:3000")
        );
        assert_eq!(canonical_origin("null"), None);
    }
}

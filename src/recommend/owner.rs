//! Who owns the limit: when the 429s came from an edge or gateway in front of the host rather
//! than from the API behind it, and that layer is plausibly the user's own (an edge rule of the
//! calling page's own site; a gateway or proxy in front of a host no public API catalogue row
//! claims), pacing the client is not the only fix. The
//! owner of the rule can raise it, scope it, or the calls can be batched or cached; the
//! advice says so beside the client plan (issue 11, "advice that fits who owns the limit").

use super::evidence::HostEvidence;
use crate::attribute::{catalogue, Layer};

/// Share of the host's rate-limited responses an intermediary must have produced.
const MOST: f64 = 0.5;

/// Advice for a limit set by an edge or gateway.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnLimit {
    /// One sentence for the rationale.
    pub summary: String,
    /// The fixes besides pacing the client, one line each.
    pub alternatives: Vec<String>,
}

pub use crate::http::url::site;

/// Advice when most of the host's rate-limited responses came from an edge (CDN/WAF rule) or
/// a gateway/proxy, and that layer is plausibly the user's: the page is on the same site, or
/// the host is not a catalogued public API (whose edge is its vendor's).
pub fn own_limit(ev: &HostEvidence) -> Option<OwnLimit> {
    let host = ev.host.as_deref()?;
    let l = &ev.limited;
    let (&(layer, ref vendor), &n) = l.producers.iter().max_by_key(|(k, n)| (**n, *k))?;
    if !matches!(layer, Layer::Cdn | Layer::Proxy) || (n as f64) < MOST * l.count as f64 {
        return None;
    }
    let public_api = catalogue::owner(host, "").is_some();
    let same_site = l.same_site_pages > 0;
    // An edge rule is the user's when their own page called it (the same site's CDN rule);
    // without a page there is no telling whose edge it is (a big property's own, a vendor's).
    // A gateway or proxy in front of a host no public API row claims may be the user's own
    // (their nginx, their gateway): said conditionally. A public API's edge is its vendor's.
    let plausible = match layer {
        Layer::Cdn => same_site,
        _ => same_site || !public_api,
    };
    if !plausible {
        return None;
    }
    let who = vendor.as_deref().unwrap_or(match layer {
        Layer::Cdn => "an edge (CDN/WAF)",
        _ => "a gateway or proxy",
    });
    let what = match (layer, vendor.is_some()) {
        (Layer::Cdn, true) => "an edge (CDN/WAF) rule",
        (_, true) => "a gateway or proxy",
        (Layer::Cdn, false) => "whose rule refused them",
        (_, false) => "in front of the API",
    };
    let whose = if same_site {
        format!(
            "the page calling it is on the same site ({}), so the rule is most likely the site's own",
            site(host)
        )
    } else {
        format!("{host} is not a public API the catalogue knows, so this layer may well be yours")
    };
    let summary = format!(
        "Who owns the limit: {n} of {} rate-limited responses from {host} came from {who}, {what}, not from the API behind it, and {whose}. Pacing the client (the plan here) is one fix; the owner of the rule has others.",
        l.count
    );
    let mut alternatives = vec![
        match layer {
            Layer::Cdn => "raise the rule's threshold or lengthen its period to what the callers legitimately need (a page load's burst of parallel calls included)".to_string(),
            _ => "raise the limit (nginx `limit_req` rate and `burst`, the gateway's rate-limit policy) to what the callers legitimately need".to_string(),
        },
        "scope it: count per session, user or API key instead of per IP address (shared offices and NATs put many users behind one), or exclude the paths and methods this traffic uses".to_string(),
        "cut the calls: batch them (one request for many items), or cache the responses (at the edge or in the client) so repeated reads do not reach the limit".to_string(),
    ];
    if !same_site {
        alternatives.push(format!(
            "if the layer in front of {host} is not yours, these are for its owner to decide: pace the client as planned"
        ));
    }
    Some(OwnLimit {
        summary,
        alternatives,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_compare_registrable_parts() {
        assert_eq!(site("api.shop.example.com"), "example.com");
        assert_eq!(site("shop.example.co.uk"), "example.co.uk");
        assert_eq!(site("localhost"), "localhost");
        assert_eq!(site(""), "");
    }
}

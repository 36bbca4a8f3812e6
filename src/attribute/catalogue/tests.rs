use super::super::{attribute, Layer, Quota};
use super::*;
use crate::model::{Headers, Location, Position, Request};
use std::collections::HashSet;
use std::sync::Arc;

/// A concrete host for a pattern: `*` becomes `acme`.
fn concrete(pattern: &str) -> (String, String) {
    let p = pattern.replace('*', "acme");
    match p.find('/') {
        Some(i) => (p[..i].to_string(), format!("{}x", &p[i..])),
        None => (p, "/v1/x".to_string()),
    }
}

fn response(host: &str, path: &str, status: u16, headers: &[(&str, &str)], body: &str) -> Request {
    let mut r = Request::at(Location {
        source: Arc::from("catalogue"),
        position: Position::Line(1),
    });
    r.url = format!("https://{host}{path}");
    r.method = "GET".into();
    r.status = status;
    r.response_headers =
        Headers::from_pairs(headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
    r.body_excerpt = (!body.is_empty()).then(|| body.to_string());
    r
}

fn verdict(r: Request) -> super::super::Attribution {
    attribute(&[r], &[0]).remove(0)
}

#[test]
fn glob_matches_like_a_host_pattern() {
    assert!(glob(b"api.stripe.com", b"api.stripe.com"));
    assert!(glob(b"API.Stripe.com", b"api.stripe.com"));
    assert!(!glob(b"api.stripe.com", b"xapi.stripe.com"));
    assert!(glob(b"*.slack.com", b"acme.slack.com"));
    assert!(!glob(b"*.slack.com", b"slack.com"));
    assert!(glob(
        b"*-aiplatform.googleapis.com",
        b"us-central1-aiplatform.googleapis.com"
    ));
    assert!(glob(
        b"bedrock-runtime.*.amazonaws.com",
        b"bedrock-runtime.us-east-1.amazonaws.com"
    ));
    assert!(!glob(
        b"bedrock-runtime.*.amazonaws.com",
        b"bedrock-runtime.amazonaws.org"
    ));
    assert!(glob(b"*", b""));
}

#[test]
fn the_most_specific_host_pattern_names_the_owner() {
    let (p, pat) = owner("api.github.com", "/repos").expect("github");
    assert_eq!((p.vendor, pat), ("github", "api.github.com"));
    assert!(owner("api.example.com", "/").is_none());
    assert!(owner("", "/").is_none());
    // A tenant subdomain of a vendor's platform.
    assert_eq!(
        owner("acme.zendesk.com", "/api/v2").map(|(p, _)| p.vendor),
        Some("zendesk")
    );
}

#[test]
fn the_catalogue_covers_the_hundred_most_used_providers() {
    assert!(PROVIDERS.len() >= 100, "{} providers", PROVIDERS.len());
    let categories: HashSet<&str> = PROVIDERS.iter().map(|p| p.category.as_str()).collect();
    for c in [
        "source hosting",
        "chat",
        "payments",
        "commerce",
        "AI",
        "cloud APIs",
        "CRM and support",
        "social",
        "registries",
        "certificates",
        "messaging",
        "maps and geocoding",
        "platform edges",
    ] {
        assert!(categories.contains(c), "no provider in category {c}");
    }
    assert!(find("cloudflare").is_some_and(|p| p.hosts.contains(&"api.cloudflare.com")));
    assert!(find("letsencrypt").is_some());
}

#[test]
fn every_row_is_well_formed_and_sourced() {
    let mut slugs = HashSet::new();
    let mut ids: HashSet<&str> = super::super::rules::RULES.iter().map(|r| r.id).collect();
    let mut patterns = HashSet::new();
    for p in PROVIDERS.iter() {
        assert!(slugs.insert(p.vendor), "duplicate provider {}", p.vendor);
        assert!(
            p.vendor
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "slug {} breaks the convention (NOTES.md)",
            p.vendor
        );
        assert!(!p.name.is_empty() && !p.family.is_empty(), "{}", p.vendor);
        assert!(
            p.source.starts_with("https://"),
            "{}: source {}",
            p.vendor,
            p.source
        );
        assert!(
            !p.hosts.is_empty() || p.category == Category::SelfHosted,
            "{} has no host",
            p.vendor
        );
        for h in p.hosts {
            assert_eq!(
                *h,
                h.to_ascii_lowercase(),
                "{}: host patterns are lower-case",
                p.vendor
            );
            assert!(patterns.insert(*h), "host pattern {h} is in two rows");
        }
        for m in p.markers {
            assert_eq!(m.vendor, p.vendor, "{}", m.id);
            assert_eq!(m.layer, Layer::Api, "{}", m.id);
            assert!(
                m.id.starts_with(&format!("{}.", p.vendor)),
                "{} is not prefixed by its vendor",
                m.id
            );
            assert!(ids.insert(m.id), "duplicate rule id {}", m.id);
            assert!((0.0..1.0).contains(&m.weight), "{}", m.id);
        }
        for msg in p.messages {
            assert!(
                msg.text.len() >= 12,
                "{}: stock wording too short to be specific",
                msg.id
            );
        }
    }
}

#[test]
fn every_documented_host_names_its_owner_when_the_api_answered() {
    for p in PROVIDERS.iter() {
        for pat in p.hosts {
            let (host, path) = concrete(pat);
            let (found, _) = owner(&host, &path).expect("host resolves");
            assert_eq!(found.vendor, p.vendor, "{pat} resolves to {}", found.vendor);
            let a = verdict(response(
                &host,
                &path,
                429,
                &[("content-type", "application/json")],
                "{\"error\":\"slow down\"}",
            ));
            assert_eq!(
                (a.layer, a.vendor.as_deref()),
                (Layer::Api, Some(p.vendor)),
                "{pat}: {:#?}",
                a.evidence
            );
        }
    }
}

#[test]
fn every_documented_message_is_recognised_with_its_kind() {
    for p in PROVIDERS.iter() {
        for msg in p.messages {
            // On a host nobody documents: the wording alone must name the vendor.
            // A JSON fragment is placed as is; plain wording as an error message.
            let body = if msg.text.contains('"') {
                format!("{{{}}}", msg.text)
            } else {
                format!("{{\"error\":{{\"message\":\"{}\"}}}}", msg.text)
            };
            let a = verdict(response(
                "gateway.example.net",
                "/v1/x",
                429,
                &[("content-type", "application/json")],
                &body,
            ));
            assert_eq!(
                (a.layer, a.vendor.as_deref()),
                (Layer::Api, Some(p.vendor)),
                "{}: {:#?}",
                msg.id,
                a.evidence
            );
            if let Some(q) = msg.quota {
                assert_eq!(a.quota, q, "{}", msg.id);
            }
        }
    }
}

#[test]
fn a_host_does_not_outweigh_an_edge_or_proxy_page() {
    let cf = [
        ("server", "cloudflare"),
        ("cf-ray", "8a1b2c3d4e5f6789-SJC"),
        ("content-type", "text/plain"),
    ];
    let a = verdict(response(
        "api.github.com",
        "/repos",
        429,
        &cf,
        "error code: 1015",
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref()),
        (Layer::Cdn, Some("cloudflare"))
    );
    let page = "<html>\r\n<head><title>429 Too Many Requests</title></head>\r\n<body>\r\n<center><h1>429 Too Many Requests</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>";
    let a = verdict(response(
        "api.openai.com",
        "/v1/chat/completions",
        429,
        &[("server", "nginx"), ("content-type", "text/html")],
        page,
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref()),
        (Layer::Proxy, Some("nginx"))
    );
    // The host line is there, and marked as outweighed.
    assert!(a
        .evidence
        .iter()
        .any(|e| e.signal == "host api.openai.com" && e.note.contains("outweighed")));
}

#[test]
fn an_origin_429_through_a_cdn_on_a_known_host_is_the_api() {
    let h = [
        ("server", "cloudflare"),
        ("cf-ray", "8a1b2c3d4e5f6789-SJC"),
        ("content-type", "application/json"),
    ];
    let a = verdict(response(
        "api.openai.com",
        "/v1/chat/completions",
        429,
        &h,
        "{\"error\":{\"message\":\"slow down\"}}",
    ));
    assert_eq!(
        (a.layer, a.vendor.as_deref(), a.quota),
        (Layer::Api, Some("openai"), Quota::Rate)
    );
    assert!(a.path.iter().any(|p| p == "cloudflare"));
}

#[test]
fn a_vendor_marker_outweighs_the_host() {
    // Anthropic's own headers on a host documented for someone else: the markers decide.
    let h = [
        ("content-type", "application/json"),
        ("anthropic-ratelimit-requests-remaining", "0"),
    ];
    let a = verdict(response("api.openai.com", "/v1/x", 429, &h, "{}"));
    assert_eq!(a.vendor.as_deref(), Some("anthropic"));
}

use super::*;
use crate::attribute::matcher::Subject;
use crate::attribute::{attribute, catalogue, rules};
use crate::limiter::NS_PER_S;
use crate::mock::answer::{answer, Answer, Ask, Shape};
use crate::mock::policy::State;
use crate::model::{Headers, Location, Position, Request};
use std::collections::HashSet;
use std::sync::Arc;

const T0: Nanos = 1_767_225_600 * NS_PER_S + 250_000_000;

/// How many units one request must take, and how many requests, to exhaust a limit at once.
fn exhaust(l: &Limit) -> (u64, u64) {
    match l.spec {
        Spec::FixedWindow { limit, .. }
        | Spec::SlidingWindow { limit, .. }
        | Spec::Daily { limit } => (limit, 1),
        Spec::TokenBucket { burst, .. } | Spec::Gcra { burst, .. } => (burst, 1),
        Spec::LeakyBucket { burst, .. } => (1, burst + 1),
        Spec::Concurrency { max } => (1, max),
    }
}

/// The preset's limits with all but `i` made too large to refuse.
fn isolate(p: &Preset, i: usize) -> Vec<Limit> {
    p.limits()
        .into_iter()
        .enumerate()
        .map(|(j, l)| {
            if j == i {
                return l;
            }
            let huge = match l.spec {
                Spec::Concurrency { .. } => "concurrency:1000000",
                Spec::LeakyBucket { .. } => "leaky-bucket:1000000/s,burst=1000000,nodelay",
                _ => "fixed-window:1000000000/min",
            };
            l.overridden(huge).unwrap()
        })
        .collect()
}

/// The answers (admitted, refused) when limit `i` of the preset runs out.
fn run_out(p: &'static Preset, i: usize) -> (Answer, Answer, Vec<Limit>) {
    let limits = isolate(p, i);
    let mut state = State::new(limits.clone());
    let (big, times) = exhaust(&limits[i]);
    let keys = || vec![String::new(); limits.len()];
    let mut costs = vec![1; limits.len()];
    costs[i] = big;
    let mut first = None;
    for _ in 0..times {
        let (o, _) = state.decide(T0, keys(), costs.clone());
        assert!(o.admitted, "{}: {} refused early", p.name, limits[i].name);
        first.get_or_insert(o);
    }
    let (refused, _) = state.decide(T0, keys(), vec![1; limits.len()]);
    assert!(
        !refused.admitted,
        "{}: {} never refuses",
        p.name, limits[i].name
    );
    assert_eq!(refused.binding, i, "{}", p.name);
    let ask = |o: &Outcome| {
        answer(&Ask {
            shape: Shape::Preset(p),
            retry_after: None,
            outcome: o,
            limits: &limits,
            now: T0,
            date: T0,
            request_id: "7f3c9a1be2d44c0a",
            client_ip: "127.0.0.1",
            seq: 1,
            method: "GET",
            path: "/v1/x",
        })
    };
    (ask(&first.unwrap()), ask(&refused), limits)
}

fn as_request(a: &Answer) -> Request {
    let mut r = Request::at(Location {
        source: Arc::from("preset"),
        position: Position::Line(1),
    });
    r.url = "http://127.0.0.1:8080/v1/x".into();
    r.method = "GET".into();
    r.status = a.status;
    r.response_headers = Headers::from_pairs(a.headers.clone());
    r.body_excerpt = Some(a.body.clone());
    r
}

#[test]
fn the_table_is_well_formed_and_names_what_attribution_knows() {
    let mut names = HashSet::new();
    let rule_vendor = |id: &str| rules::all().iter().find(|r| r.id == id).map(|r| r.vendor);
    for p in PRESETS {
        assert!(names.insert(p.name), "duplicate preset {}", p.name);
        let known = catalogue::find(p.vendor).is_some()
            || rules::RULES.iter().any(|r| r.vendor == p.vendor);
        assert!(
            known,
            "{}: vendor {} is in neither the catalogue nor the rules",
            p.name, p.vendor
        );
        assert!(!p.rules.is_empty(), "{}", p.name);
        for id in p.rules {
            assert_eq!(rule_vendor(id), Some(p.vendor), "{}: rule {id}", p.name);
        }
        if let Some(m) = p.message {
            assert!(
                message_text(m).is_some(),
                "{}: catalogue message {m}",
                p.name
            );
        }
        assert!(!p.cites.is_empty(), "{}", p.name);
        for c in p.cites {
            assert!(
                c.url.starts_with("https://") && c.says.len() > 40,
                "{}: {}",
                p.name,
                c.url
            );
        }
        let limits = p.limits();
        let lnames: HashSet<&str> = limits.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(lnames.len(), limits.len(), "{}: limit names repeat", p.name);
        assert!((400..=599).contains(&p.status));
    }
    for needed in [
        "github",
        "github-secondary",
        "openai",
        "anthropic",
        "stripe",
        "shopify",
        "slack",
        "google",
        "aws-api-gateway",
        "azure-apim",
        "cloudflare-1015",
        "nginx",
        "envoy",
        "kong",
    ] {
        assert!(find(needed).is_some(), "no preset {needed}");
    }
}

#[test]
fn every_limit_of_every_preset_refuses_in_the_providers_shape_and_is_attributed_to_it() {
    for p in PRESETS {
        for (i, pl) in p.limits.iter().enumerate() {
            let (ok, refused, _) = run_out(p, i);
            assert_eq!(ok.status, 200);
            assert_eq!(refused.status, p.status, "{}", p.name);
            let r = as_request(&refused);
            let subject = Subject::new(&r);
            for id in p.rules {
                let rule = rules::all().iter().find(|x| x.id == *id).unwrap();
                assert!(
                    rule.when.eval(&subject).is_some(),
                    "{} / {}: rule {id} does not match\n{refused:#?}",
                    p.name,
                    pl.name
                );
            }
            let v = attribute(&[r], &[0]).remove(0);
            assert_eq!(
                (v.vendor.as_deref(), v.layer, v.quota),
                (Some(p.vendor), p.layer, pl.quota),
                "{} / {}: {:#?}\n{refused:#?}",
                p.name,
                pl.name,
                v.evidence
            );
            for (n, _) in p.every {
                let has = |a: &Answer| a.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n));
                assert!(
                    has(&ok) && has(&refused),
                    "{}: {n} on every response",
                    p.name
                );
            }
        }
    }
}

fn header<'a>(a: &'a Answer, n: &str) -> Option<&'a str> {
    a.headers
        .iter()
        .find(|(h, _)| h.eq_ignore_ascii_case(n))
        .map(|(_, v)| v.as_str())
}

#[test]
fn header_families_write_the_providers_names_units_and_reset_formats() {
    // OpenAI, tokens run out: remaining 0, reset a Go duration to full, body type "tokens".
    let (_, r, _) = run_out(find("openai").unwrap(), 1);
    assert_eq!(header(&r, "x-ratelimit-limit-tokens"), Some("150000"));
    assert_eq!(header(&r, "x-ratelimit-remaining-tokens"), Some("0"));
    assert_eq!(header(&r, "x-ratelimit-reset-tokens"), Some("1m0s"));
    assert!(
        r.body.contains("\"type\":\"tokens\"") && r.body.contains("tokens per min (TPM)"),
        "{}",
        r.body
    );
    assert!(
        r.body.contains("Limit 150000, Used 150000, Requested 1"),
        "{}",
        r.body
    );
    // Anthropic: RFC 3339 resets, the tokens family the most restrictive of input/output.
    let (_, r, _) = run_out(find("anthropic").unwrap(), 2);
    assert_eq!(
        header(&r, "anthropic-ratelimit-output-tokens-remaining"),
        Some("0")
    );
    assert_eq!(
        header(&r, "anthropic-ratelimit-tokens-remaining"),
        Some("0")
    );
    assert_eq!(
        header(&r, "anthropic-ratelimit-output-tokens-reset"),
        Some("2026-01-01T00:01:01Z")
    );
    assert!(header(&r, "retry-after").is_some());
    // GitHub: epoch reset, used, resource; no Retry-After on the primary limit.
    let (ok, r, _) = run_out(find("github").unwrap(), 0);
    assert_eq!(header(&ok, "x-ratelimit-remaining"), Some("0"));
    assert_eq!(header(&r, "x-ratelimit-used"), Some("60"));
    assert_eq!(header(&r, "x-ratelimit-reset"), Some("1767229201"));
    assert_eq!(header(&r, "x-ratelimit-resource"), Some("core"));
    assert!(header(&r, "retry-after").is_none());
    assert!(
        r.body.contains("API rate limit exceeded for 127.0.0.1."),
        "{}",
        r.body
    );
    // Shopify: used/bucket and a decimal Retry-After.
    let (_, r, _) = run_out(find("shopify").unwrap(), 0);
    assert_eq!(header(&r, "x-shopify-shop-api-call-limit"), Some("40/40"));
    assert_eq!(header(&r, "retry-after"), Some("0.5"));
    // Kong: the window's name in the header.
    let (_, r, _) = run_out(find("kong").unwrap(), 0);
    assert_eq!(header(&r, "x-ratelimit-limit-minute"), Some("5"));
    assert_eq!(header(&r, "ratelimit-remaining"), Some("0"));
    // nginx: 503, no Retry-After.
    let (_, r, _) = run_out(find("nginx").unwrap(), 0);
    assert_eq!((r.status, header(&r, "retry-after")), (503, None));
}

#[test]
fn go_durations_read_like_openais() {
    assert_eq!(go_duration(0), "0s");
    assert_eq!(go_duration(12 * NS_PER_MS), "12ms");
    assert_eq!(go_duration(NS_PER_S), "1s");
    assert_eq!(go_duration(1_146 * NS_PER_MS), "1.146s");
    assert_eq!(go_duration(360 * NS_PER_S), "6m0s");
    assert_eq!(go_duration(3_723_500 * NS_PER_MS), "1h2m3.5s");
}

/// The presets table of docs/mock.md.
fn presets_markdown() -> String {
    let mut s = String::from(
        "| preset | answers as | status | limits (`--limit NAME=…`) | Retry-After | sources |\n|---|---|---|---|---|---|\n",
    );
    for p in PRESETS {
        let limits: Vec<String> = p
            .limits()
            .iter()
            .zip(p.limits)
            .map(|(l, pl)| {
                format!(
                    "`{}={}` {} ({})",
                    l.name,
                    pl.spec,
                    pl.label,
                    pl.quota.as_str()
                )
            })
            .collect();
        let ra = match p.retry_after {
            RetryAfter::Seconds => "seconds",
            RetryAfter::Decimal => "seconds, one decimal",
            RetryAfter::None => "none",
        };
        let cites: Vec<String> = p
            .cites
            .iter()
            .enumerate()
            .map(|(i, c)| format!("[{}]({})", i + 1, c.url))
            .collect();
        s.push_str(&format!(
            "| `{}` | {} ({}) — {} | {} | {} | {} | {} |\n",
            p.name,
            p.vendor,
            p.layer.as_str(),
            p.title,
            p.status,
            limits.join("<br>"),
            ra,
            cites.join(" ")
        ));
    }
    s
}

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/mock.md");
const BEGIN: &str =
    "<!-- presets:begin (generated by `TOOMANY_WRITE_DOCS=1 cargo test docs_`) -->\n";
const END: &str = "<!-- presets:end -->";

#[test]
fn docs_list_every_preset() {
    if std::env::var_os("TOOMANY_WRITE_DOCS").is_some() {
        let doc = std::fs::read_to_string(DOC).expect("read docs/mock.md");
        let (head, rest) = doc.split_once(BEGIN).expect("begin marker");
        let (_, tail) = rest.split_once(END).expect("end marker");
        std::fs::write(
            DOC,
            format!("{head}{BEGIN}{}{END}{tail}", presets_markdown()),
        )
        .expect("write docs/mock.md");
    }
    let doc = std::fs::read_to_string(DOC).expect("read docs/mock.md");
    assert!(
        doc.contains(&presets_markdown()),
        "docs/mock.md is out of date: regenerate the presets table with `TOOMANY_WRITE_DOCS=1 cargo test docs_`"
    );
}

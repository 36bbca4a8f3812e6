//! The rule tables as Markdown: docs/attribution.md holds this text between its markers, and a
//! test keeps the two in sync (`TOOMANY_WRITE_DOCS=1 cargo test docs_` regenerates it).

use super::{catalogue, rules};
use std::fmt::Write;

/// The rule table as Markdown (docs/attribution.md is this text; a test keeps them in sync).
pub fn rules_markdown() -> String {
    let mut out = String::new();
    layer_rules(&mut out);
    app_limiters(&mut out);
    origin_markers(&mut out);
    providers(&mut out);
    quota_cues(&mut out);
    out
}

fn esc(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The CDN, WAF and proxy rules.
fn layer_rules(out: &mut String) {
    let _ = writeln!(
        out,
        "| id | vendor | layer | proves | weight | matches | source | meaning |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for r in rules::RULES {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {:?} | {} | {} | {} | {} |",
            r.id,
            r.vendor,
            r.layer.as_str(),
            r.proves,
            r.weight,
            r.when.describe(),
            r.source,
            r.note.replace('|', "\\|")
        );
    }
}

/// Application rate limiters.
fn app_limiters(out: &mut String) {
    let _ = writeln!(out, "\n### Application rate limiters\n");
    let _ = writeln!(
        out,
        "Stock answers of limiters that run inside the application: origin evidence for layer `api` (the vendor stays the host's owner).\n"
    );
    let _ = writeln!(
        out,
        "| id | middleware | weight | matches | source | meaning |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for a in rules::APP_LIMITERS {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            a.id,
            a.name,
            a.weight,
            a.when.describe(),
            a.source,
            a.note.replace('|', "\\|")
        );
    }
}

/// Origin markers.
fn origin_markers(out: &mut String) {
    let _ = writeln!(out, "\n### Origin markers\n");
    let _ = writeln!(
        out,
        "Headers the application's own stack writes and an edge or proxy answering itself never carries: origin evidence for layer `api` when the host's successful responses did not already name the origin's headers.\n"
    );
    let _ = writeln!(out, "| id | stack | weight | matches | source | meaning |");
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for m in rules::ORIGIN_MARKERS {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |",
            m.id,
            m.name,
            m.weight,
            m.when.describe(),
            m.source,
            m.note.replace('|', "\\|")
        );
    }
}

/// The provider catalogue.
fn providers(out: &mut String) {
    let _ = writeln!(out, "\n### Provider catalogue\n");
    let _ = writeln!(
        out,
        "{} providers. A host match is origin evidence naming the vendor when the API answered; \
         markers and messages are producer evidence (layer `api`); each message is also a quota \
         cue for that vendor's verdicts.\n",
        catalogue::PROVIDERS.len()
    );
    let _ = writeln!(
        out,
        "| vendor | provider | category | hosts | rate-limit headers | markers | documented messages → kind | default kind | source |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for p in catalogue::PROVIDERS.iter() {
        let hosts = p
            .hosts
            .iter()
            .map(|h| format!("`{h}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let hosts = if hosts.is_empty() {
            "any (installed anywhere)".to_string()
        } else {
            hosts
        };
        let markers = p
            .markers
            .iter()
            .filter(|m| !p.messages.iter().any(|msg| msg.id == m.id))
            .map(|m| format!("`{}` ({}): {}", m.id, m.weight, m.when.describe()))
            .collect::<Vec<_>>()
            .join("; ");
        let messages = p
            .messages
            .iter()
            .map(|m| {
                let kind = m.quota.map(|q| q.as_str()).unwrap_or("—");
                let scope = m
                    .scope
                    .map(|s| format!(", per {}", format!("{s:?}").to_lowercase()))
                    .unwrap_or_default();
                format!("`{}`: \"{}\" → {kind}{scope}", m.id, esc(m.text))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.vendor,
            esc(p.name),
            p.category.as_str(),
            hosts,
            esc(p.family),
            if markers.is_empty() {
                "—".into()
            } else {
                markers
            },
            if messages.is_empty() {
                "—".into()
            } else {
                messages
            },
            p.quota.as_str(),
            p.source
        );
    }
}

/// The quota cues.
fn quota_cues(out: &mut String) {
    let _ = writeln!(out, "\n### Quota cues\n");
    let _ = writeln!(
        out,
        "| id | tier | matches | quota | scope | source | meaning |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for c in rules::CUES {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            c.id,
            c.tier,
            c.when.describe(),
            c.quota.map(|q| q.as_str()).unwrap_or("—"),
            c.scope
                .map(|s| format!("{s:?}").to_lowercase())
                .unwrap_or_else(|| "—".into()),
            c.source,
            c.note.replace('|', "\\|")
        );
    }
}

//! Client identity: which requests come from the same caller (a service, a worker, a browser
//! tab). The rule is written into the report so a reader sees how clients were told apart.
//!
//! An explicit `client` field (JSON-lines logs) names the caller on its own. Without one, a
//! caller is the combination of user agent, client IP (first `X-Forwarded-For` address or a
//! log's IP field), HAR page (one tab or page load) and Origin/Referer origin. The credential
//! is *not* part of the identity: it is what `shared_key_contention` looks for across clients.

pub use crate::model::event::ClientKey;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Clients listed in the report at most (the count is always complete).
pub const LISTED: usize = 50;

fn short_ua(ua: &str) -> String {
    // "python-requests/2.31.0" stays; a long browser UA is cut to its first product token.
    let first = ua.split_whitespace().next().unwrap_or(ua);
    if ua.len() <= 40 {
        ua.to_string()
    } else {
        format!("{first}…")
    }
}

/// A client as the exports and `rate_limited[].client` name it: its label with the user agent
/// whole ("unidentified" without a key).
pub fn whole_label(key: Option<&ClientKey>) -> String {
    key.map(|k| label_with(k, false))
        .unwrap_or_else(|| "unidentified".to_string())
}

fn label_of(key: &ClientKey) -> String {
    label_with(key, true)
}

/// A client's label; `cut`: a long user agent shortened to its first product token.
fn label_with(key: &ClientKey, cut: bool) -> String {
    match key {
        ClientKey::Named(c) => c.clone(),
        ClientKey::Hints {
            user_agent,
            client_ip,
            pageref,
            origin,
        } => {
            let mut parts = Vec::new();
            if let Some(p) = pageref {
                parts.push(format!("page {p}"));
            }
            if let Some(ip) = client_ip {
                parts.push(ip.clone());
            }
            if let Some(ua) = user_agent {
                parts.push(if cut { short_ua(ua) } else { ua.clone() });
            }
            if parts.is_empty() {
                if let Some(o) = origin {
                    parts.push(o.clone());
                }
            }
            if parts.is_empty() {
                "unidentified".to_string()
            } else {
                parts.join(", ")
            }
        }
    }
}

/// Labels for clients in id order (order of first appearance), made unique: two clients may
/// share a label (the same user agent on two IPs, cut short).
pub fn labels<'a>(keys: impl Iterator<Item = Option<&'a ClientKey>>) -> Vec<String> {
    let mut out: Vec<String> = keys
        .map(|k| {
            k.map(label_of)
                .unwrap_or_else(|| "unidentified".to_string())
        })
        .collect();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for label in &mut out {
        let n = seen.entry(label.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            *label = format!("{label} #{n}");
        }
    }
    out
}

/// One client's counters, as the analysis gathered them.
#[derive(Debug, Clone)]
pub struct Counted {
    pub key: Option<ClientKey>,
    pub label: String,
    pub requests: usize,
    pub rate_limited: usize,
    pub credentials: BTreeSet<String>,
    pub first: Option<DateTime<Utc>>,
    pub last: Option<DateTime<Utc>>,
}

/// Which hints the input had at all, by name.
pub fn hint_names(bits: u16) -> BTreeSet<&'static str> {
    use crate::model::event::flag;
    [
        (flag::HINT_CLIENT, "client"),
        (flag::HINT_UA, "user_agent"),
        (flag::HINT_IP, "client_ip"),
        (flag::HINT_PAGE, "pageref"),
        (flag::HINT_ORIGIN, "origin"),
    ]
    .into_iter()
    .filter(|(b, _)| bits & b != 0)
    .map(|(_, n)| n)
    .collect()
}

/// The report section: the rule used and the clients found (`clients` in id order).
pub fn section(hints: u16, clients: Vec<Counted>) -> ClientsSection {
    let hints_seen = hint_names(hints);
    let identified_by: Vec<String> = if hints_seen.contains("client") {
        vec!["client".to_string()]
    } else {
        hints_seen.iter().map(|s| s.to_string()).collect()
    };
    let rule = if hints_seen.contains("client") {
        "records with a `client` field are grouped by it; records without one by user agent, client IP, HAR page and origin together; the credential is compared across clients, not used to tell them apart"
    } else if hints_seen.is_empty() {
        "the input names no caller (no client field, user agent, client IP, HAR page or origin): all records count as one client"
    } else {
        "records are grouped by user agent, client IP (X-Forwarded-For or a log field), HAR page and origin together; the credential is compared across clients, not used to tell them apart"
    };
    let count = clients.len();
    let mut rows: Vec<ClientRow> = clients
        .into_iter()
        .enumerate()
        .map(|(id, c)| ClientRow {
            id,
            label: c.label,
            hints: c.key.as_ref().map(hints_of).unwrap_or_default(),
            requests: c.requests,
            rate_limited: c.rate_limited,
            credentials: c.credentials,
            first: c.first,
            last: c.last,
        })
        .collect();
    // Busiest first; ties by first appearance.
    rows.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.id.cmp(&b.id)));
    rows.truncate(LISTED);
    ClientsSection {
        identified_by,
        rule: rule.to_string(),
        count,
        list: rows,
    }
}

/// Client numbers of a list of time-sorted requests, as the analysis numbers them (for tests
/// and callers holding the records).
#[derive(Debug, Clone, Default)]
pub struct Clients {
    /// Client number per request index.
    pub of_request: Vec<usize>,
    /// Labels by client number.
    pub list: Vec<String>,
    pub hints_seen: BTreeSet<&'static str>,
}

impl Clients {
    pub fn label(&self, id: usize) -> &str {
        self.list
            .get(id)
            .map(String::as_str)
            .unwrap_or("unidentified")
    }
}

fn hints_of(key: &ClientKey) -> BTreeMap<&'static str, String> {
    let mut m = BTreeMap::new();
    match key {
        ClientKey::Named(c) => {
            m.insert("client", c.clone());
        }
        ClientKey::Hints {
            user_agent,
            client_ip,
            pageref,
            origin,
        } => {
            for (k, v) in [
                ("user_agent", user_agent),
                ("client_ip", client_ip),
                ("pageref", pageref),
                ("origin", origin),
            ] {
                if let Some(v) = v {
                    m.insert(k, v.clone());
                }
            }
        }
    }
    m
}

/// `clients` in the report: how callers were told apart, and who they are.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClientsSection {
    /// Hints that identified clients in this input (`client`, or some of `user_agent`,
    /// `client_ip`, `pageref`, `origin`).
    pub identified_by: Vec<String>,
    /// The rule, in a sentence.
    pub rule: String,
    /// Number of distinct clients.
    pub count: usize,
    /// The busiest clients (at most 50).
    pub list: Vec<ClientRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClientRow {
    /// Number used in findings' evidence (`client` fields).
    pub id: usize,
    pub label: String,
    pub hints: BTreeMap<&'static str, String>,
    pub requests: usize,
    pub rate_limited: usize,
    /// Credential fingerprints this client used.
    pub credentials: BTreeSet<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    #[test]
    fn client_field_wins_over_hints() {
        let mut s = Scenario::new();
        s.at(0.0)
            .client("w1")
            .ua("sdk/1")
            .get("https://api.x.com/a", 200);
        s.at(1.0)
            .client("w1")
            .ua("sdk/2")
            .get("https://api.x.com/a", 200);
        s.at(2.0)
            .client("w2")
            .ua("sdk/1")
            .get("https://api.x.com/a", 200);
        let reqs = s.build();
        let c = identify_clients(&reqs);
        assert_eq!(c.list.len(), 2);
        assert_eq!(c.of_request, vec![0, 0, 1]);
        assert_eq!(c.label(1), "w2");
    }

    #[test]
    fn hints_combine_without_client_field() {
        let mut s = Scenario::new();
        s.at(0.0)
            .ua("Mozilla/5.0")
            .page("page_1")
            .get("https://x.com/a", 200);
        s.at(1.0)
            .ua("Mozilla/5.0")
            .page("page_2")
            .get("https://x.com/a", 200);
        s.at(2.0)
            .ua("Mozilla/5.0")
            .page("page_1")
            .get("https://x.com/b", 200);
        let reqs = s.build();
        let c = identify_clients(&reqs);
        assert_eq!(c.of_request, vec![0, 1, 0]);
        assert!(c.hints_seen.contains("pageref"));
    }
}

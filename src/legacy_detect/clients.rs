//! Client identity: which requests come from the same caller (a service, a worker, a browser
//! tab). The rule is written into the report so a reader sees how clients were told apart.
//!
//! An explicit `client` field (JSON-lines logs) names the caller on its own. Without one, a
//! caller is the combination of user agent, client IP (first `X-Forwarded-For` address or a
//! log's IP field), HAR page (one tab or page load) and Origin/Referer origin. The credential
//! is *not* part of the identity: it is what `shared_key_contention` looks for across clients.

use super::Context;
use crate::model::Request;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Clients listed in the report at most (the count is always complete).
pub const LISTED: usize = 50;

/// The identity key of a client.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKey {
    Named(String),
    Hints {
        user_agent: Option<String>,
        client_ip: Option<String>,
        pageref: Option<String>,
        origin: Option<String>,
    },
}

impl ClientKey {
    pub fn of(r: &Request) -> ClientKey {
        let h = &r.client;
        match h.client.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => ClientKey::Named(c.to_string()),
            // A HAR page already names the tab; its document request has no Origin while its
            // subresources do, so the origin would split one page into two callers.
            None => ClientKey::Hints {
                user_agent: r.user_agent().map(str::to_string),
                client_ip: h.client_ip.clone(),
                pageref: h.pageref.clone(),
                origin: if h.pageref.is_some() {
                    None
                } else {
                    h.origin.clone()
                },
            },
        }
    }
}

#[derive(Debug, Clone)]
pub struct ClientInfo {
    pub key: ClientKey,
    /// A short name for summaries: the client field, else the most telling hints.
    pub label: String,
    pub requests: usize,
}

/// Clients, numbered in order of first appearance (stable for a given request order).
#[derive(Debug, Clone, Default)]
pub struct Clients {
    /// Client number per request index.
    pub of_request: Vec<usize>,
    pub list: Vec<ClientInfo>,
    /// Which hints the input had at all (`client`, `user_agent`, ...).
    pub hints_seen: BTreeSet<&'static str>,
}

fn short_ua(ua: &str) -> String {
    // "python-requests/2.31.0" stays; a long browser UA is cut to its first product token.
    let first = ua.split_whitespace().next().unwrap_or(ua);
    if ua.len() <= 40 {
        ua.to_string()
    } else {
        format!("{first}…")
    }
}

fn label_of(key: &ClientKey) -> String {
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
                parts.push(short_ua(ua));
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

impl Clients {
    pub fn identify(requests: &[Request]) -> Clients {
        let mut index: HashMap<ClientKey, usize> = HashMap::new();
        let mut c = Clients::default();
        for r in requests {
            let h = &r.client;
            for (name, present) in [
                ("client", h.client.is_some()),
                ("user_agent", r.user_agent().is_some()),
                ("client_ip", h.client_ip.is_some()),
                ("pageref", h.pageref.is_some()),
                ("origin", h.origin.is_some()),
            ] {
                if present {
                    c.hints_seen.insert(name);
                }
            }
            let key = ClientKey::of(r);
            let id = match index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = c.list.len();
                    c.list.push(ClientInfo {
                        label: label_of(&key),
                        key: key.clone(),
                        requests: 0,
                    });
                    index.insert(key, id);
                    id
                }
            };
            c.list[id].requests += 1;
            c.of_request.push(id);
        }
        // Two clients may share a label (same UA on two IPs cut short): make labels unique.
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for info in &mut c.list {
            let n = seen.entry(info.label.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                info.label = format!("{} #{}", info.label, n);
            }
        }
        c
    }

    pub fn label(&self, id: usize) -> &str {
        self.list
            .get(id)
            .map(|c| c.label.as_str())
            .unwrap_or("unidentified")
    }

    /// The report section: the rule used and the clients found.
    pub fn section(&self, requests: &[Request], cx: &Context) -> ClientsSection {
        let identified_by: Vec<String> = if self.hints_seen.contains("client") {
            vec!["client".to_string()]
        } else {
            self.hints_seen.iter().map(|s| s.to_string()).collect()
        };
        let rule = if self.hints_seen.contains("client") {
            "records with a `client` field are grouped by it; records without one by user agent, client IP, HAR page and origin together; the credential is compared across clients, not used to tell them apart"
        } else if self.hints_seen.is_empty() {
            "the input names no caller (no client field, user agent, client IP, HAR page or origin): all records count as one client"
        } else {
            "records are grouped by user agent, client IP (X-Forwarded-For or a log field), HAR page and origin together; the credential is compared across clients, not used to tell them apart"
        };
        let mut rows: Vec<ClientRow> = self
            .list
            .iter()
            .enumerate()
            .map(|(id, info)| ClientRow {
                id,
                label: info.label.clone(),
                hints: hints_of(&info.key),
                requests: info.requests,
                rate_limited: 0,
                credentials: BTreeSet::new(),
                first: None,
                last: None,
            })
            .collect();
        for (i, r) in requests.iter().enumerate() {
            let Some(row) = self.of_request.get(i).and_then(|&id| rows.get_mut(id)) else {
                continue;
            };
            if cx.is_limited(i) {
                row.rate_limited += 1;
            }
            if let Some(c) = &r.credential {
                row.credentials.insert(c.clone());
            }
            if let Some(t) = r.started {
                row.first = Some(row.first.map_or(t, |f: DateTime<Utc>| f.min(t)));
                row.last = Some(row.last.map_or(t, |l: DateTime<Utc>| l.max(t)));
            }
        }
        let count = rows.len();
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

pub use crate::detect::clients::{ClientRow, ClientsSection};

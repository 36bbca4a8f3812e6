//! `shared_key_contention`: one credential (by its keyed fingerprint) used by several distinct
//! clients at the same time, whose combined rate meets the limit, though each alone might not.
//!
//! Clients count when each sent ≥ 3 requests and ≥ 5 % of the credential's traffic, and at least
//! two of them were active at overlapping times (pages of one tab loaded one after the other
//! are not contention). With a known limit, the credential's busiest limit window must hold
//! ≥ 90 % of the allowance when some of its requests were rate-limited, ≥ 125 % when none
//! was. Without one: ≥ 3 requests of ≥ 2 clients were rate-limited, while no
//! client alone started more first attempts in a minute than the server let through in its
//! busiest minute (each would have fitted on its own). When the host's 429s follow the
//! requests in flight (`concurrency_limit`), sharing the key is not what they follow: no finding.

use super::limit::KnownLimit;
use super::timeline::Peak;
use super::{r3, Cx, Detector, Finding, Placed, Severity, Step};
use crate::model::event::{Event, NONE};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// With a known limit and no rate-limited response at all, the busiest window must hold this
/// multiple of the allowance.
const UNLIMITED_EXCESS: f64 = 1.25;

struct Member {
    requests: usize,
    rate_limited: usize,
    first: Event,
    last: Event,
    /// Its first attempts' busiest window (the limit's, else a minute).
    alone: Peak,
}

/// One credential's requests to the host it used most.
struct Cred {
    host: u32,
    first_seq: u64,
    total: usize,
    limited: usize,
    per_client: BTreeMap<u32, Member>,
    /// With a known limit: all its requests' busiest limit window; without: its first
    /// attempts' busiest minute.
    combined: Peak,
    /// Without a known limit: the successes' busiest minute.
    ok: Peak,
    window_s: f64,
}

/// `shared_key_contention` (see the module doc).
#[derive(Default)]
pub struct SharedKey {
    creds: BTreeMap<u32, Cred>,
}

impl Detector for SharedKey {
    fn step(&mut self, s: &Step, cx: &Cx) {
        let ev = s.ev;
        if ev.cred == NONE || cx.cred_host.get(ev.cred as usize) != Some(&ev.host) {
            return;
        }
        let Some(t) = ev.start_s() else { return };
        let limit = cx.limit(ev.host);
        let w = limit.map(|l| l.window_s).unwrap_or(60.0);
        let c = self.creds.entry(ev.cred).or_insert_with(|| Cred {
            host: ev.host,
            first_seq: s.seq,
            total: 0,
            limited: 0,
            per_client: BTreeMap::new(),
            combined: Peak::new(w),
            ok: Peak::new(60.0),
            window_s: w,
        });
        c.total += 1;
        let limited = ev.limited();
        if limited {
            c.limited += 1;
        }
        let first_attempt = !s.is_retry();
        match limit {
            Some(_) => c.combined.push(t),
            None => {
                if first_attempt {
                    c.combined.push(t);
                }
                if (200..300).contains(&ev.status) {
                    c.ok.push(t);
                }
            }
        }
        let window = c.window_s;
        let m = c.per_client.entry(ev.client).or_insert_with(|| Member {
            requests: 0,
            rate_limited: 0,
            first: *ev,
            last: *ev,
            alone: Peak::new(window),
        });
        m.requests += 1;
        m.last = *ev;
        if limited {
            m.rate_limited += 1;
        }
        if first_attempt {
            m.alone.push(t);
        }
    }

    fn finish(&mut self, cx: &Cx, earlier: &[Finding]) -> Vec<Placed> {
        let mut out = Vec::new();
        for (&cred, c) in &self.creds {
            if let Some(f) = finding(cx, cred, c, earlier) {
                out.push(((cx.host(c.host).to_string(), c.first_seq), f));
            }
        }
        out
    }
}

fn finding(cx: &Cx, cred_id: u32, c: &Cred, earlier: &[Finding]) -> Option<Finding> {
    let host = cx.host(c.host).to_string();
    let cred = cx
        .creds
        .get(cred_id as usize)
        .map(String::as_str)
        .unwrap_or("");
    let members = members_at_once(c)?;
    let limit = cx.limit(c.host);
    let load = load(c, &members, limit)?;
    // The limit is on requests in flight; sharing the key is not what the 429s follow.
    if earlier
        .iter()
        .any(|f| f.kind == "concurrency_limit" && f.evidence["host"] == host.as_str())
    {
        return None;
    }
    let mut shares: Vec<(u32, &Member)> = members;
    shares.sort_by(|a, b| b.1.requests.cmp(&a.1.requests).then(a.0.cmp(&b.0)));
    let summary = summary(cx, c, cred, &host, &shares, limit, &load);
    let (limited, total, alone_max) = (c.limited, c.total, load.alone_max);
    let severity = match &limit {
        Some(l) if (alone_max as f64) < l.count && limited > 0 => Severity::Critical,
        _ => Severity::Warning,
    };
    let clients: Vec<Value> = shares
        .iter()
        .map(|(id, m)| {
            json!({
                "client": cx.client_label(*id),
                "id": id,
                "requests": m.requests,
                "share": r3(m.requests as f64 / total as f64),
                "rate_limited": m.rate_limited,
                "first": cx.at(&m.first),
                "last": cx.at(&m.last),
            })
        })
        .collect();
    Some(Finding::new(
        super::Kind::SharedKeyContention,
        severity,
        summary,
        json!({
            "credential": cred,
            "host": host,
            "requests": total,
            "rate_limited": limited,
            "limit": limit.map(|l| l.json()),
            "combined_in_busiest_window": load.combined,
            "max_single_client_first_attempts_in_window": alone_max,
            "window_s": limit.map(|l| l.window_s).unwrap_or(60.0),
            "most_successes_in_a_minute": load.estimated,
            "clients": clients,
        }),
    ))
}

/// The credential's clients that count (≥ 3 requests and ≥ 5 % of its traffic), when at least
/// two of them were active at overlapping times.
fn members_at_once(c: &Cred) -> Option<Vec<(u32, &Member)>> {
    let total = c.total;
    let members: Vec<(u32, &Member)> = c
        .per_client
        .iter()
        .filter(|(_, m)| m.requests >= 3 && m.requests as f64 >= 0.05 * total as f64)
        .map(|(id, m)| (*id, m))
        .collect();
    if members.len() < 2 {
        return None;
    }
    let spans: Vec<(f64, f64)> = members
        .iter()
        .filter_map(|(_, m)| Some((m.first.start_s()?, m.last.start_s()?)))
        .collect();
    let overlapping = spans
        .iter()
        .enumerate()
        .any(|(a, x)| spans.iter().skip(a + 1).any(|y| x.0 <= y.1 && y.0 <= x.1));
    overlapping.then_some(members)
}

/// The credential's combined load against the limit (or, without one, against what the server
/// let through).
struct Load {
    /// Requests of all its clients in the busiest window.
    combined: usize,
    /// The most first attempts one client alone started in a window.
    alone_max: usize,
    /// Without a known limit: the most successes in a minute, standing in for it.
    estimated: Option<usize>,
}

/// The load, when it meets the limit (see the module's rules).
fn load(c: &Cred, members: &[(u32, &Member)], limit: Option<&KnownLimit>) -> Option<Load> {
    let limited = c.limited;
    let clients_limited = members.iter().filter(|(_, m)| m.rate_limited > 0).count();
    // Each client's own demand (first attempts) in its busiest window.
    let alone = members
        .iter()
        .map(|(_, m)| m.alone.get())
        .max()
        .unwrap_or(0);
    let combined = c.combined.get();
    let (estimated, meets) = match &limit {
        Some(l) => {
            // With rate-limited responses, 90 % of the allowance in the busiest window is
            // enough (the server's window need not line up with ours). Without any, the
            // busiest *sliding* window of traffic that averages under the limit still peaks
            // above it by chance (Poisson traffic at 80 % of 120/min reaches ~123 in its
            // busiest minute), so the excess must be clear: 125 % of the allowance.
            let need = if limited == 0 { UNLIMITED_EXCESS } else { 0.9 };
            (None, combined as f64 >= need * l.count)
        }
        None => {
            // No stated limit: what the server let through in its busiest minute stands in.
            let allowed = c.ok.get();
            (
                Some(allowed),
                limited >= 3 && clients_limited >= 2 && combined > allowed && alone <= allowed,
            )
        }
    };
    meets.then_some(Load {
        combined,
        alone_max: alone,
        estimated,
    })
}

/// The finding's sentence: the credential, its clients' shares, the load against the limit.
fn summary(
    cx: &Cx,
    c: &Cred,
    cred: &str,
    host: &str,
    shares: &[(u32, &Member)],
    limit: Option<&KnownLimit>,
    load: &Load,
) -> String {
    let (total, limited) = (c.total, c.limited);
    let (combined, alone_max) = (load.combined, load.alone_max);
    let share_text: Vec<String> = shares
        .iter()
        .take(6)
        .map(|(id, m)| {
            format!(
                "{} {:.0} %",
                cx.client_label(*id),
                m.requests as f64 * 100.0 / total as f64
            )
        })
        .collect();
    let more = if shares.len() > 6 {
        format!(", and {} more", shares.len() - 6)
    } else {
        String::new()
    };
    let rate_part = match (&limit, load.estimated) {
        (Some(l), _) => format!(
            " whose combined {combined} requests in {} meet the limit of {}{}",
            super::seconds_text(l.window_s),
            l.text(),
            if (alone_max as f64) < l.count { format!(", though none sent more than {alone_max} on its own") } else { String::new() }
        ),
        (None, Some(allowed)) => format!(
            ": together they started {combined} requests in their busiest minute, none more than {alone_max} on its own, and the server let at most {allowed} through in any minute"
        ),
        (None, None) => String::new(),
    };
    let limited_part = if limited == 0 {
        String::new()
    } else {
        format!("; {limited} of their {total} requests were rate-limited")
    };
    format!(
        "Credential {cred} was used against {host} by {} clients at once ({}{more}){rate_part}{limited_part}.",
        shares.len(),
        share_text.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use crate::detect::testkit::*;

    fn shared(workers: usize, spacing: f64, cred_per_worker: bool) -> Vec<crate::model::Request> {
        let mut sim = Sim::new(Limiter::Window {
            limit: 120,
            window_s: 60.0,
        });
        for k in 0..workers {
            let mut w = Worker::new(
                &format!("svc-{k}"),
                "https://api.example.com/v1/items/{j}",
                150,
            );
            w.start_s = k as f64 * 0.37;
            w.spacing_s = spacing;
            if cred_per_worker {
                w.cred = format!("cafe000{k}");
            }
            sim.workers.push(w);
        }
        sim.horizon_s = 300.0;
        sim.run()
    }

    #[test]
    fn four_services_share_one_key() {
        // Each sends ~0.7/s (42/min, well under 120/min); together 2.8/s.
        let reqs = shared(4, 1.3, false);
        let d = crate::detect::testkit::run(
            &reqs,
            &unknown_attributions(&reqs),
            Some(crate::units::Rate::parse("120/min").unwrap()),
        );
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == "shared_key_contention")
            .expect("contention");
        assert!(f.summary.contains("4 clients"), "{}", f.summary);
        assert!(f.summary.contains("none sent more than"), "{}", f.summary);
        assert_eq!(f.evidence["clients"].as_array().unwrap().len(), 4);
        assert!(kinds(&reqs, None).contains(&"shared_key_contention".to_string()));
    }

    #[test]
    fn near_miss_separate_keys_or_well_under_the_limit() {
        let reqs = shared(4, 1.3, true);
        assert!(!kinds(&reqs, Some("120/min")).contains(&"shared_key_contention".to_string()));
        // Shared key, combined ~1.2/s = 72/min: under the limit, no 429.
        let reqs = shared(2, 1.55, false);
        assert!(reqs.iter().all(|r| r.status == 200));
        assert!(kinds(&reqs, Some("120/min")).is_empty());
    }

    #[test]
    fn sequential_pages_of_one_tab_are_not_contention() {
        let mut s = Scenario::new();
        for p in 0..3 {
            for k in 0..20 {
                let t = p as f64 * 30.0 + k as f64 * 0.2;
                s.at(t)
                    .ua("Mozilla/5.0")
                    .page(&format!("page_{p}"))
                    .cred("dddd4444")
                    .get("https://app.x.com/api/a", if k == 19 { 429 } else { 200 });
            }
        }
        assert!(kinds(&s.build(), None).is_empty());
    }

    /// Two clients on one key, each at `per_s` (steady, ±30 % spacing noise), no 429.
    fn two_steady(per_s: f64) -> Vec<crate::model::Request> {
        let mut s = Scenario::new();
        for (k, name) in ["sync-0", "sync-1"].iter().enumerate() {
            let mut rng = Rng::new(20 + k as u64);
            let mut t = k as f64 * 0.4;
            let mut n = 0;
            while t < 600.0 {
                s.at(t)
                    .client(name)
                    .cred("bbbb2222")
                    .dur(120.0)
                    .get(&format!("https://api.example.com/v1/items/{k}-{n}"), 200);
                n += 1;
                t += (1.0 / per_s) * (0.7 + 0.6 * rng.next());
            }
        }
        s.build()
    }

    #[test]
    fn without_any_429_the_excess_must_be_clear() {
        // Busy minutes around 100-110 of 120 (two workers at ~52/min each): no finding.
        let reqs = two_steady(0.87);
        assert!(reqs.iter().all(|r| r.status == 200));
        assert!(kinds(&reqs, Some("120/min")).is_empty());
        // 160/min combined (80 each, both under 120): clearly beyond the allowance.
        let reqs = two_steady(1.33);
        assert!(kinds(&reqs, Some("120/min")).contains(&"shared_key_contention".to_string()));
    }

    #[test]
    fn findings_follow_the_credentials_first_use_not_their_fingerprint() {
        // Two keys, each shared by 4 services over the limit, one after the other; the later
        // one has the smaller fingerprint.
        let mut reqs = Vec::new();
        for (cred, start) in [("ffff0000", 0.0), ("0000ffff", 400.0)] {
            let mut sim = Sim::new(Limiter::Window {
                limit: 120,
                window_s: 60.0,
            });
            for k in 0..4 {
                let mut w = Worker::new(
                    &format!("svc-{cred}-{k}"),
                    "https://api.example.com/v1/items/{j}",
                    150,
                );
                w.start_s = start + k as f64 * 0.37;
                w.spacing_s = 1.3;
                w.cred = cred.to_string();
                sim.workers.push(w);
            }
            sim.horizon_s = start + 300.0;
            reqs.extend(sim.run());
        }
        let d = crate::detect::testkit::run(
            &reqs,
            &unknown_attributions(&reqs),
            Some(crate::units::Rate::parse("120/min").unwrap()),
        );
        let creds: Vec<&str> = d
            .findings
            .iter()
            .filter(|f| f.kind == "shared_key_contention")
            .map(|f| f.evidence["credential"].as_str().unwrap())
            .collect();
        assert_eq!(creds, ["ffff0000", "0000ffff"]);
    }
}

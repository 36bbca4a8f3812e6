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

use super::limit::for_host;
use super::timeline::busiest;
use super::{at, concurrency_limit, r3, start_s, Context, Finding, Severity};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// With a known limit and no rate-limited response at all, the busiest window must hold this
/// multiple of the allowance.
const UNLIMITED_EXCESS: f64 = 1.25;

pub fn detect(cx: &Context) -> Vec<Finding> {
    let mut by_cred: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in cx.requests.iter().enumerate() {
        if let (Some(c), Some(_)) = (r.credential.as_deref(), r.started) {
            by_cred.entry(c).or_default().push(i);
        }
    }
    let host_index: BTreeMap<&str, &Vec<usize>> =
        cx.by_host.iter().map(|(h, v)| (h.as_str(), v)).collect();
    // (host, first request, finding): fingerprints are keyed per run, so ordering by them would
    // change the output from one run to the next.
    let mut out: Vec<(String, usize, Finding)> = Vec::new();
    for (cred, all) in by_cred {
        // The credential's busiest host: limits are per host.
        let mut hosts: BTreeMap<String, usize> = BTreeMap::new();
        for &i in &all {
            *hosts.entry(cx.host(i).to_string()).or_insert(0) += 1;
        }
        let Some(host) = hosts
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(h, _)| h.clone())
        else {
            continue;
        };
        let idx: Vec<usize> = all.into_iter().filter(|&i| cx.host(i) == host).collect();
        let host_idx: &[usize] = host_index
            .get(host.as_str())
            .map(|v| v.as_slice())
            .unwrap_or(&[]);
        let mut per_client: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &i in &idx {
            per_client
                .entry(cx.clients.of_request.get(i).copied().unwrap_or(0))
                .or_default()
                .push(i);
        }
        let total = idx.len();
        let members: Vec<(usize, Vec<usize>)> = per_client
            .into_iter()
            .filter(|(_, v)| v.len() >= 3 && v.len() as f64 >= 0.05 * total as f64)
            .collect();
        if members.len() < 2 {
            continue;
        }
        let spans: Vec<(f64, f64)> = members
            .iter()
            .filter_map(|(_, v)| {
                Some((
                    start_s(&cx.requests[v[0]])?,
                    start_s(&cx.requests[*v.last()?])?,
                ))
            })
            .collect();
        let overlapping = spans
            .iter()
            .enumerate()
            .any(|(a, x)| spans.iter().skip(a + 1).any(|y| x.0 <= y.1 && y.0 <= x.1));
        if !overlapping {
            continue;
        }
        let limited: Vec<usize> = idx.iter().copied().filter(|&i| cx.is_limited(i)).collect();
        let clients_limited = members
            .iter()
            .filter(|(_, v)| v.iter().any(|&i| cx.is_limited(i)))
            .count();
        let times: Vec<f64> = idx
            .iter()
            .filter_map(|&i| start_s(&cx.requests[i]))
            .collect();
        let first_times = |v: &[usize]| -> Vec<f64> {
            v.iter()
                .copied()
                .filter(|&i| !cx.attempts.is_retry(i))
                .filter_map(|i| start_s(&cx.requests[i]))
                .collect()
        };
        let peak = |t: &[f64], w: f64| busiest(t, w, 1).first().map(|w| w.count).unwrap_or(0);
        let limit = for_host(cx, &host);
        // Each client's own demand (first attempts) in its busiest window of length `w`.
        let alone = |w: f64| {
            members
                .iter()
                .map(|(_, v)| peak(&first_times(v), w))
                .max()
                .unwrap_or(0)
        };
        let (combined, alone_max, estimated, meets) = match &limit {
            Some(l) => {
                let combined = peak(&times, l.window_s);
                // With rate-limited responses, 90 % of the allowance in the busiest window is
                // enough (the server's window need not line up with ours). Without any, the
                // busiest *sliding* window of traffic that averages under the limit still peaks
                // above it by chance (Poisson traffic at 80 % of 120/min reaches ~123 in its
                // busiest minute), so the excess must be clear: 125 % of the allowance.
                let need = if limited.is_empty() {
                    UNLIMITED_EXCESS
                } else {
                    0.9
                };
                (
                    combined,
                    alone(l.window_s),
                    None,
                    combined as f64 >= need * l.count,
                )
            }
            None => {
                // No stated limit: what the server let through in its busiest minute stands in.
                let ok: Vec<f64> = idx
                    .iter()
                    .copied()
                    .filter(|&i| (200..300).contains(&cx.requests[i].status))
                    .filter_map(|i| start_s(&cx.requests[i]))
                    .collect();
                let allowed = peak(&ok, 60.0);
                let combined = peak(&first_times(&idx), 60.0);
                let a = alone(60.0);
                (
                    combined,
                    a,
                    Some(allowed),
                    limited.len() >= 3
                        && clients_limited >= 2
                        && combined > allowed
                        && a <= allowed,
                )
            }
        };
        if meets && concurrency_limit::for_host(cx, &host, host_idx).is_some() {
            // The limit is on requests in flight; sharing the key is not what the 429s follow.
            continue;
        }
        if !meets {
            continue;
        }
        let mut shares: Vec<(usize, &Vec<usize>)> = members.iter().map(|(c, v)| (*c, v)).collect();
        shares.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        let share_text: Vec<String> = shares
            .iter()
            .take(6)
            .map(|(c, v)| {
                format!(
                    "{} {:.0}%",
                    cx.clients.label(*c),
                    v.len() as f64 * 100.0 / total as f64
                )
            })
            .collect();
        let more = if shares.len() > 6 {
            format!(", and {} more", shares.len() - 6)
        } else {
            String::new()
        };
        let rate_part = match (&limit, estimated) {
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
        let limited_part = if limited.is_empty() {
            String::new()
        } else {
            format!(
                "; {} of their {total} requests were rate-limited",
                limited.len()
            )
        };
        let summary = format!(
            "Credential {cred} was used against {host} by {} clients at once ({}{more}){rate_part}{limited_part}.",
            shares.len(),
            share_text.join(", ")
        );
        let severity = match &limit {
            Some(l) if (alone_max as f64) < l.count && !limited.is_empty() => Severity::Critical,
            _ => Severity::Warning,
        };
        let clients: Vec<Value> = shares
            .iter()
            .map(|(c, v)| {
                json!({
                    "client": cx.clients.label(*c),
                    "id": c,
                    "requests": v.len(),
                    "share": r3(v.len() as f64 / total as f64),
                    "rate_limited": v.iter().filter(|&&i| cx.is_limited(i)).count(),
                    "first": at(&cx.requests[v[0]]),
                    "last": at(&cx.requests[*v.last().unwrap_or(&v[0])]),
                })
            })
            .collect();
        out.push((
            host.clone(),
            idx[0],
            Finding::new(
                "shared_key_contention",
                severity,
                summary,
                json!({
                    "credential": cred,
                    "host": host,
                    "requests": total,
                    "rate_limited": limited.len(),
                    "limit": limit.as_ref().map(|l| l.json()),
                    "combined_in_busiest_window": combined,
                    "max_single_client_first_attempts_in_window": alone_max,
                    "window_s": limit.as_ref().map(|l| l.window_s).unwrap_or(60.0),
                    "most_successes_in_a_minute": estimated,
                    "clients": clients,
                }),
            ),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    out.into_iter().map(|(_, _, f)| f).collect()
}

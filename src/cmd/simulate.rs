//! `toomany simulate`: parse the flags into a [`Scenario`] and policies, run each policy on the
//! same scenario (same seed, same arrivals), print them side by side.

use super::{Error, Outcome};
use crate::cli::{OutputFormat, SimRetryAfter, SimulateArgs};
use crate::limiter::{parse_spec, Spec, NS_PER_MS, NS_PER_S};
use crate::output;
use crate::simulate::policy::{self, ClientPolicy, PlanRetry, BUILTINS};
use crate::simulate::{run as simulate, Arrival, RunResult, Scenario, MAX_REQUESTS};
use crate::units::{fmt_duration_ms, parse_duration_ms, Rate};
use serde::Serialize;
use std::path::Path;

/// Version of the `simulate --format json` output.
pub const SIMULATE_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    schema_version: u32,
    limit: String,
    requests: u64,
    clients: u64,
    arrival: String,
    latency_ms: u64,
    seed: u64,
    server_retry_after: bool,
    runs: &'a [RunResult],
}

fn arrival(v: &str, spec: &Spec) -> Result<(Arrival, String), Error> {
    let bad = |why: String| {
        Error::fatal(format!("--arrival {v:?}: {why}; use burst, spaced[:INTERVAL] (e.g. spaced:667ms) or poisson[:RATE] (e.g. poisson:2/s)"))
    };
    let (kind, arg) = match v.split_once(':') {
        Some((k, a)) => (k.trim().to_ascii_lowercase(), Some(a.trim())),
        None => (v.trim().to_ascii_lowercase(), None),
    };
    // Without an argument spaced/poisson run at the limit's own long-run rate.
    let own_gap = || -> Result<u64, Error> {
        spec.rate_per_second()
            .map(|r| (NS_PER_S as f64 / r).ceil() as u64)
            .ok_or_else(|| {
                bad(format!(
                    "{} has no rate; give the interval",
                    spec.model_name()
                ))
            })
    };
    let gap_of_rate = |a: &str| -> Result<u64, Error> {
        let r = Rate::parse(a).map_err(|e| bad(e.to_string()))?;
        Ok((NS_PER_S as f64 / r.per_second).ceil() as u64)
    };
    let a = match (kind.as_str(), arg) {
        ("burst", None) => Arrival::Burst,
        ("spaced", None) => Arrival::Spaced {
            interval_ns: own_gap()?,
        },
        ("spaced", Some(a)) => {
            let ms = parse_duration_ms(a).map_err(|e| bad(e.to_string()))?;
            if !(0.0..=86_400_000.0 * 366.0).contains(&ms) {
                return Err(bad("the interval must be 0 to a year".into()));
            }
            Arrival::Spaced {
                interval_ns: (ms * NS_PER_MS as f64).round() as u64,
            }
        }
        ("poisson", None) => Arrival::Poisson {
            mean_gap_ns: own_gap()?,
        },
        ("poisson", Some(a)) => Arrival::Poisson {
            mean_gap_ns: gap_of_rate(a)?,
        },
        _ => return Err(bad("unknown pattern".into())),
    };
    let shown = match a {
        Arrival::Burst => "burst".to_string(),
        Arrival::Spaced { interval_ns } => {
            format!("spaced:{}ms", fmt_ms(interval_ns))
        }
        Arrival::Poisson { mean_gap_ns } => {
            format!(
                "poisson:{}/s",
                fmt_rate(NS_PER_S as f64 / mean_gap_ns as f64)
            )
        }
    };
    Ok((a, shown))
}

fn fmt_ms(ns: u64) -> String {
    crate::units::fmt_num(ns as f64 / NS_PER_MS as f64)
}

fn fmt_rate(x: f64) -> String {
    crate::units::fmt_num((x * 1000.0).round() / 1000.0)
}

/// The policies in the order given; built-ins take their retry knobs from the first file.
fn policies(names: &[String]) -> Result<Vec<ClientPolicy>, Error> {
    let mut files = Vec::new();
    for n in names {
        if policy::builtin(n, &PlanRetry::default()).is_none() {
            let p = policy::read_policy_file(Path::new(n)).map_err(|e| {
                let hint = if Path::new(n).exists() {
                    String::new()
                } else {
                    format!(" (built-in policies: {BUILTINS})")
                };
                Error::fatal(format!("--policy {e}{hint}"))
            })?;
            files.push((n.clone(), p));
        }
    }
    let plan = files
        .first()
        .map(|(_, p)| PlanRetry::of(p))
        .unwrap_or_default();
    let mut out = Vec::new();
    for n in names {
        match policy::builtin(n, &plan) {
            Some(b) => out.push(b),
            None => {
                let (_, p) = files
                    .iter()
                    .find(|(f, _)| f == n)
                    .ok_or_else(|| Error::fatal(format!("--policy {n}: not read")))?;
                out.push(policy::from_neutral(n, p));
            }
        }
    }
    Ok(out)
}

pub fn run(args: SimulateArgs) -> Outcome {
    let spec = parse_spec(&args.limit).map_err(Error::fatal)?;
    if args.requests == 0 || args.requests > MAX_REQUESTS {
        return Err(Error::fatal(format!(
            "--requests {}: must be 1 to {MAX_REQUESTS}",
            args.requests
        )));
    }
    if args.clients == 0 || args.clients > args.requests {
        return Err(Error::fatal(format!(
            "--clients {}: must be 1 to --requests ({})",
            args.clients, args.requests
        )));
    }
    let latency_ms =
        parse_duration_ms(&args.latency).map_err(|e| Error::fatal(format!("--latency: {e}")))?;
    if !(0.0..=3_600_000.0).contains(&latency_ms) {
        return Err(Error::fatal(format!(
            "--latency {:?}: must be 0 to 1 h",
            args.latency
        )));
    }
    let (arrival, arrival_shown) = arrival(&args.arrival, &spec)?;
    let policies = policies(&args.policies)?;
    let scenario = Scenario {
        spec: spec.clone(),
        requests: args.requests,
        clients: args.clients,
        arrival,
        latency_ns: (latency_ms * NS_PER_MS as f64).round() as u64,
        seed: args.seed,
        server_retry_after: args.retry_after == SimRetryAfter::Seconds,
    };
    let runs: Vec<RunResult> = policies.iter().map(|p| simulate(&scenario, p)).collect();
    let bytes = match args.format {
        OutputFormat::Json => {
            let report = Report {
                schema_version: SIMULATE_SCHEMA_VERSION,
                limit: spec.to_string(),
                requests: args.requests,
                clients: args.clients,
                arrival: arrival_shown,
                latency_ms: (latency_ms.round()) as u64,
                seed: args.seed,
                server_retry_after: scenario.server_retry_after,
                runs: &runs,
            };
            let mut v = serde_json::to_vec_pretty(&report)
                .map_err(|e| Error::fatal(format!("cannot serialize the results: {e}")))?;
            v.push(b'\n');
            v
        }
        OutputFormat::Table => table(&scenario, &arrival_shown, &runs).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

fn table(s: &Scenario, arrival: &str, runs: &[RunResult]) -> String {
    use comfy_table::{presets, CellAlignment, Table};
    let mut t = Table::new();
    t.load_preset(presets::UTF8_HORIZONTAL_ONLY);
    t.set_header(vec![
        "policy",
        "accepted",
        "rejected",
        "attempts",
        "final failures",
        "completion",
        "wasted attempts",
    ]);
    for r in runs {
        t.add_row(vec![
            r.policy.clone(),
            r.accepted.to_string(),
            r.rejected.to_string(),
            r.attempts.to_string(),
            r.final_failures.to_string(),
            fmt_duration_ms(r.completion_s * 1000.0),
            r.wasted_attempts.to_string(),
        ]);
    }
    for i in 1..=5 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    if let Some(c) = t.column_mut(6) {
        c.set_cell_alignment(CellAlignment::Right);
    }
    format!(
        "Simulated {} requests from {} client{} ({arrival}) against {}, {} per response, seed {}{}\n{t}\naccepted/rejected count attempts by the limiter's decision; final failures count requests that never got through.\n",
        s.requests,
        s.clients,
        if s.clients == 1 { "" } else { "s" },
        s.spec,
        fmt_duration_ms(s.latency_ns as f64 / NS_PER_MS as f64),
        s.seed,
        if s.server_retry_after { "" } else { ", no Retry-After" },
    )
}

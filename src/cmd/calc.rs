//! `toomany calc`: rate conversions and Little's Law, with the formula shown.

use super::{Error, Outcome};
use crate::cli::{CalcArgs, CalcCommand, OutputFormat};
use crate::output;
use crate::recommend::{concurrency_for, latency_budget_ms, rate_for};
use crate::units::{fmt_duration_ms, fmt_num, parse_duration_ms, Rate, RATE_FORMS};
use serde_json::json;

pub fn run(args: CalcArgs) -> Outcome {
    let (text, value, format) = match args.what {
        CalcCommand::Rate { rate, format } => {
            let r = Rate::parse(&rate).map_err(|e| Error::fatal(e.to_string()))?;
            (rate_text(&r), rate_json(&r), format)
        }
        CalcCommand::Concurrency {
            rate,
            latency,
            concurrency,
            format,
        } => {
            let (t, v) = little(rate.as_deref(), latency.as_deref(), concurrency)?;
            (t, v, format)
        }
    };
    let bytes = match format {
        OutputFormat::Table => text.into_bytes(),
        OutputFormat::Json => {
            let mut v =
                serde_json::to_vec_pretty(&value).map_err(|e| Error::fatal(e.to_string()))?;
            v.push(b'\n');
            v
        }
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

pub fn rate_text(r: &Rate) -> String {
    let ps = r.per_second;
    format!(
        "{r}\n  per second   {}/s\n  per minute   {}/min\n  per hour     {}/h\n  per day      {}/day\n  spacing      one start every {} ({} ms exactly)\n",
        fmt_num(ps),
        fmt_num(ps * 60.0),
        fmt_num(ps * 3600.0),
        fmt_num(ps * 86400.0),
        fmt_duration_ms(r.interval_ms()),
        fmt_num(r.interval_ms()),
    )
}

fn rate_json(r: &Rate) -> serde_json::Value {
    let ps = r.per_second;
    json!({
        "rate": r.to_string(),
        "per_second": round(ps),
        "per_minute": round(ps * 60.0),
        "per_hour": round(ps * 3600.0),
        "per_day": round(ps * 86400.0),
        "interval_ms": round(r.interval_ms()),
    })
}

/// Little's Law with any two of rate, latency, concurrency.
fn little(
    rate: Option<&str>,
    latency: Option<&str>,
    concurrency: Option<f64>,
) -> Result<(String, serde_json::Value), Error> {
    let rate = rate
        .map(|r| Rate::parse(r).map_err(|e| Error::fatal(format!("--rate: {e}"))))
        .transpose()?;
    let latency_ms = latency
        .map(|l| parse_duration_ms(l).map_err(|e| Error::fatal(format!("--latency: {e}"))))
        .transpose()?;
    if let Some(ms) = latency_ms {
        if ms <= 0.0 {
            return Err(Error::fatal("--latency must be more than 0"));
        }
    }
    if let Some(c) = concurrency {
        if !(c.is_finite() && c > 0.0) {
            return Err(Error::fatal("--concurrency must be a number more than 0"));
        }
    }
    match (rate, latency_ms, concurrency) {
        (Some(r), Some(w), None) => {
            let exact = r.per_second * w / 1000.0;
            let c = concurrency_for(r.per_second, w);
            Ok((
                format!(
                    "concurrency = rate × latency = {}/s × {} s = {} → {} requests in flight\n",
                    fmt_num(r.per_second),
                    fmt_num(w / 1000.0),
                    fmt_num(round(exact)),
                    c
                ),
                json!({"rate_per_second": round(r.per_second), "latency_ms": w, "concurrency_exact": round(exact), "concurrency": c}),
            ))
        }
        (None, Some(w), Some(c)) => {
            let r = rate_for(c, w);
            Ok((
                format!(
                    "rate = concurrency ÷ latency = {} ÷ {} s = {}/s = {}/min (one start every {})\n",
                    fmt_num(c),
                    fmt_num(w / 1000.0),
                    fmt_num(round(r)),
                    fmt_num(round(r * 60.0)),
                    fmt_duration_ms(1000.0 / r)
                ),
                json!({"concurrency": c, "latency_ms": w, "rate_per_second": round(r), "rate_per_minute": round(r * 60.0)}),
            ))
        }
        (Some(r), None, Some(c)) => {
            let w = latency_budget_ms(r.per_second, c);
            Ok((
                format!(
                    "latency budget = concurrency ÷ rate = {} ÷ {}/s = {} s: responses must average at most {} for {} in flight to sustain {}/s\n",
                    fmt_num(c),
                    fmt_num(r.per_second),
                    fmt_num(round(w / 1000.0)),
                    fmt_duration_ms(w),
                    fmt_num(c),
                    fmt_num(r.per_second)
                ),
                json!({"rate_per_second": round(r.per_second), "concurrency": c, "latency_budget_ms": round(w)}),
            ))
        }
        _ => Err(Error::fatal(format!(
            "give exactly two of --rate, --latency, --concurrency (e.g. --rate 1.5/s --latency 2s); rates: {RATE_FORMS}"
        ))),
    }
}

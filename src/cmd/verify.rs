//! `toomany verify`: read the plan and the captures, judge the batch, print the verdict.
//! Exit 0 = pass, 1 = the batch broke the plan, 2 = the plan or the captures cannot be read (or
//! cannot be judged, e.g. whole-second timestamps).

use super::{
    analyze::{refuse_unmapped, report_input_problems},
    ingest_options, Error, Outcome,
};
use crate::cli::{OutputFormat, VerifyArgs};
use crate::ingest;
use crate::output;
use crate::simulate::policy::read_policy_file;
use crate::units::parse_duration_ms;
use crate::verify::{self, ms_text, Verdict, Verification, VERIFY_SCHEMA_VERSION};
use serde::Serialize;
use std::path::Path;

#[derive(Serialize)]
struct Json<'a> {
    schema_version: u32,
    plan: String,
    inputs: &'a [String],
    verdict: Verdict,
    #[serde(flatten)]
    v: &'a Verification,
}

pub fn run(args: VerifyArgs, ui: crate::console::Notices) -> Outcome {
    let plan = read_policy_file(&args.plan).map_err(|e| Error::fatal(format!("--plan {e}")))?;
    let tolerance_ms = match &args.tolerance {
        Some(t) => {
            let ms = parse_duration_ms(t).map_err(|e| Error::fatal(format!("--tolerance: {e}")))?;
            if !(0.0..=60_000.0).contains(&ms) {
                return Err(Error::fatal(format!(
                    "--tolerance {t:?}: give 0 to 60 s, e.g. 20ms"
                )));
            }
            ms
        }
        None => verify::DEFAULT_TOLERANCE_MS,
    };
    let opts = ingest_options(&args.input, ui)?;
    let inputs = ingest::read_inputs(&args.files, &opts);
    let summaries: Vec<_> = inputs.iter().map(|i| i.summary.clone()).collect();
    report_input_problems(&summaries, ui);
    refuse_unmapped(&summaries)?;
    if let Some(bad) = inputs.iter().find(|i| i.summary.error.is_some()) {
        // A batch judged on part of its capture could pass wrongly: refuse instead.
        return Err(Error::fatal(format!(
            "{}: could not be read in full (see above); verify judges a whole batch",
            bad.summary.source
        )));
    }
    let requests: Vec<_> = inputs.into_iter().flat_map(|i| i.requests).collect();
    let v = verify::verify(&requests, &plan, &verify::Options { tolerance_ms })
        .map_err(|e| Error::fatal(format!("cannot verify: {}", e.0)))?;
    let bytes = match args.format {
        OutputFormat::Json => {
            let j = Json {
                schema_version: VERIFY_SCHEMA_VERSION,
                plan: args.plan.display().to_string(),
                inputs: &args.files,
                verdict: v.verdict,
                v: &v,
            };
            let mut s = serde_json::to_string_pretty(&j)
                .map_err(|e| Error::fatal(format!("cannot write the JSON: {e}")))?;
            s.push('\n');
            s.into_bytes()
        }
        OutputFormat::Table => table(&v, &args.plan).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(match v.verdict {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
    })
}

fn opt_ms(v: Option<f64>) -> String {
    v.map(ms_text).unwrap_or_else(|| "–".into())
}

fn opt_rate(v: Option<f64>) -> String {
    v.map(|r| format!("{}/s", crate::units::fmt_num(r)))
        .unwrap_or_else(|| "–".into())
}

fn table(v: &Verification, plan: &Path) -> String {
    let c = &v.counts;
    let s = &v.spacing;
    let f = &v.in_flight;
    let mut out = String::new();
    let verdict = match v.verdict {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
    };
    let failed: Vec<&str> = v.checks.iter().filter(|c| !c.ok).map(|c| c.name).collect();
    out.push_str(&format!(
        "verify: {verdict} against {}{}\n\n",
        plan.display(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(" (failed: {})", failed.join(", "))
        }
    ));
    let reasons: Vec<String> = c
        .failures_by_reason
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    out.push_str(&format!(
        "Counts     {} logical requests: {} first attempts, {} retries ({} attempts in all); {} succeeded, {} failed{}\n",
        c.logical_requests,
        c.first_attempts,
        c.retries,
        v.attempts,
        c.successes,
        c.final_failures,
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join(", "))
        }
    ));
    out.push_str(&format!(
        "Spacing    first attempts min {}, median {}; plan one every {} ms ({}); measured {} first attempts, {} all attempts\n",
        opt_ms(s.min_ms),
        opt_ms(s.p50_ms),
        s.target_ms,
        opt_rate(Some(s.target_rate_per_s)),
        opt_rate(s.first_attempt_rate_per_s),
        opt_rate(s.attempt_rate_per_s),
    ));
    out.push_str(&format!(
        "In flight  max {}, mean {}; plan at most {}\n\nChecks (tolerance {})\n",
        f.max,
        f.mean,
        f.limit,
        ms_text(v.tolerance_ms)
    ));
    let width = v.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for ch in &v.checks {
        out.push_str(&format!(
            "  {}  {:width$}  {}\n",
            if ch.ok { "ok  " } else { "FAIL" },
            ch.name,
            ch.detail
        ));
    }
    out
}

//! `toomany plan --requests N --limit RATE`: the job's rate, spacing, concurrency and duration,
//! with the arithmetic; optionally the config files.

use super::emit::{policy_options, write_configs};
use super::{Error, Outcome};
use crate::cli::{OutputFormat, PlanArgs};
use crate::output;
use crate::recommend::config::Policy;
use crate::recommend::plan::{plan, Plan, PlanInput};
use crate::recommend::target::{rate_forms, spacing_text};
use crate::units::{fmt_duration_ms, fmt_num, parse_duration_ms, Rate};
use std::fmt::Write;

pub fn run(args: PlanArgs, ui: crate::console::Notices) -> Outcome {
    let limit = Rate::parse(&args.limit).map_err(|e| Error::fatal(format!("--limit: {e}")))?;
    if args.requests == 0 {
        return Err(Error::fatal("--requests must be at least 1"));
    }
    let deadline_ms = match &args.deadline {
        Some(d) => {
            let ms = parse_duration_ms(d).map_err(|e| Error::fatal(format!("--deadline: {e}")))?;
            if ms <= 0.0 {
                return Err(Error::fatal(format!(
                    "--deadline {d:?}: must be more than 0"
                )));
            }
            Some(ms)
        }
        None => None,
    };
    let po = policy_options(&args.policy)?;
    let p = plan(&PlanInput {
        requests: args.requests,
        limit,
        headroom: po.headroom,
        latency_ms: po.latency_ms,
        deadline_ms,
        backoff: po.backoff.clone(),
    });
    // The table lists its warnings; JSON readers get them on stderr too.
    if args.format == OutputFormat::Json {
        for w in &p.warnings {
            ui.warn(w);
        }
    }
    if let Some((dir, targets)) = &po.emit {
        let policy =
            Policy::from_plan(&p).map_err(|e| Error::fatal(format!("--emit-config: {e}")))?;
        write_configs(dir, &policy, targets, &Default::default(), ui)?;
    }
    let bytes = match args.format {
        OutputFormat::Json => {
            let mut v = serde_json::to_vec_pretty(&p)
                .map_err(|e| Error::fatal(format!("cannot serialize the plan: {e}")))?;
            v.push(b'\n');
            v
        }
        OutputFormat::Table => render(&p).into_bytes(),
    };
    output::to_stdout(&bytes).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

/// The plan for people: the numbers first, then the arithmetic, then the warnings.
pub fn render(p: &Plan) -> String {
    let mut out = String::new();
    let limit = Rate {
        per_second: p.limit.rate_per_second,
        window_s: p.limit.window_s,
    };
    let _ = writeln!(
        out,
        "Plan: {} requests under {limit}, headroom {}",
        p.requests,
        fmt_num(p.headroom)
    );
    if let Some(budget) = p.allowance_per_window {
        let _ = writeln!(
            out,
            "  allowance      {} per {} for this job ({limit} × {}){}",
            fmt_num(budget),
            fmt_duration_ms(p.limit.window_s * 1000.0).replace("24 h", "day"),
            fmt_num(p.headroom),
            if p.fits_one_window {
                format!(
                    ": the {} requests fit in one, so it sets no pace",
                    p.requests
                )
            } else {
                ": spread evenly over each window".to_string()
            }
        );
    }
    if let (Some(rps), Some(i)) = (p.rate_per_second, p.min_interval_ms) {
        let _ = writeln!(
            out,
            "  target rate    {}",
            rate_forms(rps, p.limit.window_s)
        );
        let _ = writeln!(out, "  spacing        one start every {}", spacing_text(i));
    }
    if let Some(c) = p.concurrency {
        let _ = writeln!(out, "  concurrency    {c} in flight");
    }
    if let (Some(d), Some(full)) = (p.duration_s, p.duration_at_full_allowance_s) {
        let _ = writeln!(
            out,
            "  duration       ≥ {} s ({}), plus response time and retries; ≥ {} at the full allowance",
            fmt_num(d),
            fmt_duration_ms(d * 1000.0),
            fmt_duration_ms(full * 1000.0)
        );
    }
    if let (Some(d), Some(fits)) = (p.deadline_s, p.fits_deadline) {
        let _ = writeln!(
            out,
            "  deadline       {} — {}",
            fmt_duration_ms(d * 1000.0),
            if fits { "fits" } else { "CANNOT be met" }
        );
    }
    let b = &p.backoff;
    let _ = writeln!(
        out,
        "  retries        {} attempts ({} retries), full jitter {} s windows, Retry-After as minimum, {} deadline",
        b.max_attempts,
        b.retries(),
        b.windows_ms.iter().map(|w| fmt_num(*w as f64 / 1000.0)).collect::<Vec<_>>().join("/"),
        fmt_duration_ms(b.deadline_ms as f64)
    );
    out.push_str("\nHow these numbers were computed\n");
    for r in &p.rationale {
        let _ = writeln!(out, "  - {r}");
    }
    if !p.warnings.is_empty() {
        out.push_str("\nWarnings\n");
        for w in &p.warnings {
            let _ = writeln!(out, "  ! {w}");
        }
    }
    out
}

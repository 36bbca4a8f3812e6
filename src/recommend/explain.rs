//! The sentences that show the arithmetic, shared by `analyze` and `plan`.

use super::backoff::Backoff;
use super::latency::{Latency, LatencySource};
use super::limit::LimitInfo;
use super::target::{concurrency_for, floor_sig, fmt_precise, rate_forms, round6, Target};
use crate::units::{fmt_duration_ms, fmt_num, Rate};

/// The sentences explaining a target, concurrency and backoff; shared by `analyze` and `plan`.
pub fn explain_core(
    limit: &LimitInfo,
    headroom: f64,
    t: &Target,
    lat: &Latency,
    concurrency: u32,
    b: &Backoff,
    out: &mut Vec<String>,
) {
    let w = limit.window_s;
    // The spacing's division in the limit's own unit: `1000 ms ÷ 1.5`, `1 day ÷ 7500`.
    let division = if w <= 60.0 {
        format!("1000 ms ÷ {}", fmt_precise(t.rate_per_second))
    } else {
        format!(
            "{} ÷ {}",
            fmt_duration_ms(w * 1000.0).replace("24 h", "1 day"),
            fmt_precise(floor_sig(t.rate_per_second * w))
        )
    };
    out.push(format!(
        "Target = limit × headroom = {} × {} = {}, i.e. one start every {division} = {} (rounded up). The rest of the allowance is left for other callers; retries count against the same budget.",
        Rate::new(limit.rate_per_second * w, w),
        fmt_num(headroom),
        rate_forms(t.rate_per_second, w),
        {
            let (ms, secs) = (t.min_interval_ms, t.min_interval_ms as f64 / 1000.0);
            let human = fmt_duration_ms(ms as f64);
            if ms < 10_000 {
                format!("{ms} ms")
            } else if human == format!("{} s", fmt_num(secs)) {
                human
            } else {
                format!("{} s ({human})", fmt_num(secs))
            }
        }
    ));
    let lat_src = match lat.source {
        LatencySource::Flag => "given with --latency".to_string(),
        LatencySource::Observed => format!("mean of {} observed responses", lat.samples),
        LatencySource::Assumed => {
            "assumed: the input has no response times; pass --latency".to_string()
        }
    };
    out.push(format!(
        "Concurrency by Little's Law = rate × mean response time = {}/s × {} s = {} → at most {} in flight, rounded up ({}). A semaphore bounds requests in flight and a shared limiter bounds their start rate: use both.",
        fmt_precise(t.rate_per_second),
        fmt_num(lat.mean_ms / 1000.0),
        fmt_precise(round6(t.rate_per_second * lat.mean_ms / 1000.0)),
        concurrency,
        lat_src
    ));
    if let (Some(p50), Some(p95)) = (lat.p50_ms, lat.p95_ms) {
        out.push(format!(
            "Response times: p50 {}, p95 {}; if every response took the p95 time, {}/s × {} s would need {} in flight.",
            fmt_duration_ms(p50),
            fmt_duration_ms(p95),
            fmt_precise(t.rate_per_second),
            fmt_num(round6(p95 / 1000.0)),
            concurrency_for(t.rate_per_second, p95)
        ));
    }
    explain_backoff(b, out);
}

pub fn explain_backoff(b: &Backoff, out: &mut Vec<String>) {
    let windows: Vec<String> = b
        .windows_ms
        .iter()
        .map(|w| fmt_num(*w as f64 / 1000.0))
        .collect();
    if b.retries() == 0 {
        out.push(format!(
            "No retries (max attempts 1): a 429 is returned to the caller at once; total deadline {}.",
            fmt_duration_ms(b.deadline_ms as f64)
        ));
        return;
    }
    out.push(format!(
        "Backoff: at most {} attempts ({} retries) across all layers together; without a Retry-After, retry n sleeps a random time in [0, min({} s, {} s × 2^(n−1))], i.e. windows of {} s (full jitter); the sleeps add up to at most {}.",
        b.max_attempts,
        b.retries(),
        fmt_num(b.cap_ms as f64 / 1000.0),
        fmt_num(b.base_ms as f64 / 1000.0),
        windows.join(", "),
        fmt_duration_ms(b.worst_case_sleep_ms() as f64)
    ));
    out.push(format!(
        "With a Retry-After, wait at least that long plus a random 0–{} (so workers do not resume together); never shorten the server's wait. Give up after {} in all, and stop at once when the required wait exceeds what is left of it. Each attempt times out after {}.",
        fmt_duration_ms(b.retry_after_spread_ms as f64),
        fmt_duration_ms(b.deadline_ms as f64),
        fmt_duration_ms(b.attempt_timeout_ms as f64)
    ));
}

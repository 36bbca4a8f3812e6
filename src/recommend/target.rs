//! Plan arithmetic: a rate target with headroom, Little's Law both ways, and the rounding that
//! keeps numbers short for people without ever exceeding the exact value.

use crate::units::{fmt_duration_ms, fmt_num, Rate};

/// Float noise guard for ceilings: `ceil(3.0000000001)` must stay 3.
const EPS: f64 = 1e-9;

pub(crate) fn ceil(x: f64) -> f64 {
    (x - EPS).ceil()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    pub rate_per_second: f64,
    pub rate_per_minute: f64,
    /// Spacing between request starts, rounded *up* to a whole ms so the rate never exceeds the
    /// target.
    pub min_interval_ms: u64,
}

pub fn target(limit: Rate, headroom: f64) -> Target {
    // Exact arithmetic; only the outputs are rounded (the ceiling's epsilon absorbs float
    // noise: 80/min × 0.75 is one start every 1000 ms, not 1001).
    let rps = limit.per_second * headroom;
    Target {
        rate_per_second: floor_sig(rps),
        rate_per_minute: floor_sig(rps * 60.0),
        min_interval_ms: ceil(1000.0 / rps).max(1.0) as u64,
    }
}

/// Little's Law: requests in flight = rate × mean time in the system, rounded up, at least 1.
pub fn concurrency_for(rate_per_second: f64, latency_ms: f64) -> u32 {
    let c = ceil(rate_per_second * latency_ms / 1000.0);
    if c.is_finite() && c >= 1.0 {
        c.min(u32::MAX as f64) as u32
    } else {
        1
    }
}

/// Inverse Little's Law: the start rate that `concurrency` workers sustain at `latency_ms`.
pub fn rate_for(concurrency: f64, latency_ms: f64) -> f64 {
    concurrency / (latency_ms / 1000.0)
}

/// Inverse Little's Law: the mean response time `concurrency` workers may take and still keep
/// up `rate_per_second`, ms.
pub fn latency_budget_ms(rate_per_second: f64, concurrency: f64) -> f64 {
    concurrency / rate_per_second * 1000.0
}

/// Rounded *down* to 9 significant digits: short numbers for people (1.5, not 1.4999999999),
/// never above the exact value (beyond float noise), and never 0 for a tiny positive rate.
pub fn floor_sig(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return x;
    }
    let m = 10f64.powi(8 - x.log10().floor() as i32);
    if !m.is_finite() || m == 0.0 {
        return x;
    }
    let y = (x * m * (1.0 + 1e-12)).floor() / m;
    if y > 0.0 {
        y
    } else {
        x
    }
}

pub(crate) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// A number for the arithmetic sentences: like [`fmt_num`], but with 4 significant digits below
/// 1 so the sums can be checked (`0.08681`, not `0.087`).
pub fn fmt_precise(x: f64) -> String {
    if x.abs() >= 1.0 || x == 0.0 || !x.is_finite() {
        return fmt_num(x);
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(3, 12) as usize;
    let s = format!("{x:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A rate in the unit of its window (`10000/day`, `120/min`, `2/s`), then per minute and per
/// second where those read differently: `7500/day = 5.208/min`, `90/min = 1.5/s`, `1.5/s`.
/// At most two forms, the window's first: a limit is printed in the unit it was given.
pub fn rate_forms(per_second: f64, window_s: f64) -> String {
    let own = Rate {
        per_second,
        window_s,
    }
    .to_string();
    let mut forms = vec![own];
    // A second form only where it reads as a number people use (not 0.009375/min).
    for (x, unit) in [(per_second * 60.0, "min"), (per_second, "s")] {
        let f = format!("{}/{unit}", fmt_precise(floor_sig(x)));
        if forms.len() < 2 && x >= 0.1 && !forms.contains(&f) {
            forms.push(f);
        }
    }
    forms.join(" = ")
}

/// The spacing between starts for people: `667 ms` below ten seconds, `11.5 s`, `4 min 27 s`
/// above (the exact milliseconds are in the JSON and the config files).
pub fn spacing_text(ms: u64) -> String {
    if ms < 10_000 {
        format!("{ms} ms")
    } else {
        fmt_duration_ms(ms as f64)
    }
}

/// A measured rate for people, to three significant digits (`40.7/s = 2440/min`, not
/// `40.706/s = 2442.334/min`: a count over a capture is not that precise).
pub(crate) fn fmt_rate(rps: f64) -> String {
    format!("{}/s = {}/min", sig3(rps), sig3(rps * 60.0))
}

/// Three significant digits, no trailing zeros: `40.7`, `2440`, `0.0868`.
pub fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return fmt_num(x);
    }
    let digits = 3 - 1 - x.abs().log10().floor() as i32;
    if digits <= 0 {
        let m = 10f64.powi(-digits);
        return fmt_num((x / m).round() * m);
    }
    let s = format!("{x:.*}", digits as usize);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

pub(crate) fn fmt_s(s: f64) -> String {
    fmt_duration_ms(s * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(40.706), "40.7");
        assert_eq!(sig3(2442.334), "2440");
        assert_eq!(sig3(0.086806), "0.0868");
        assert_eq!(sig3(1.0), "1");
        assert_eq!(sig3(535.734), "536");
        assert_eq!(fmt_rate(40.706), "40.7/s = 2440/min");
    }
}

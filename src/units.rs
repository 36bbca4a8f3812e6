//! Rates (`120/min`, `2/s`, `7200/h`, `10000/day`, `90rpm`) and durations (`667ms`, `2s`,
//! `1m30s`) as users type them. Every parse error names the accepted forms.

use serde::Serialize;
use std::fmt;

/// A request rate, stored as requests per second.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
pub struct Rate {
    pub per_second: f64,
    /// The window the user wrote it in (seconds): 60 for `/min`. Kept so a limit of
    /// `10000/day` is still understood as a daily allowance, not as 0.116/s.
    pub window_s: f64,
}

pub const RATE_FORMS: &str =
    "accepted forms: 120/min, 2/s, 7200/h, 10000/day, 90rpm, 2rps (units: s, sec, second, m, min, minute, h, hr, hour, d, day)";
pub const DURATION_FORMS: &str =
    "accepted forms: 667ms, 2s, 1.5s, 1m30s, 10m, 1h, 1d (units: us, ms, s, m, h, d)";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnitError {}

fn window_of(unit: &str) -> Option<f64> {
    Some(match unit.trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        "d" | "day" | "days" => 86400.0,
        _ => return None,
    })
}

impl Rate {
    pub fn new(count: f64, window_s: f64) -> Rate {
        Rate {
            per_second: count / window_s,
            window_s,
        }
    }

    pub fn per_minute(&self) -> f64 {
        self.per_second * 60.0
    }

    /// Requests allowed in the window it was written in (`120` for `120/min`).
    pub fn count_per_window(&self) -> f64 {
        self.per_second * self.window_s
    }

    /// Spacing between request starts at this rate, milliseconds.
    pub fn interval_ms(&self) -> f64 {
        1000.0 / self.per_second
    }

    pub fn parse(input: &str) -> Result<Rate, UnitError> {
        let s = input.trim().to_ascii_lowercase().replace(' ', "");
        let bad = || UnitError(format!("cannot read rate {input:?}: {RATE_FORMS}"));
        let (num, window) = if let Some((n, u)) = s.split_once('/') {
            (
                n.trim_end_matches("req")
                    .trim_end_matches("requests")
                    .to_string(),
                window_of(u).ok_or_else(bad)?,
            )
        } else if let Some((n, u)) = s.split_once("per") {
            (
                n.trim_end_matches("req")
                    .trim_end_matches("requests")
                    .to_string(),
                window_of(u).ok_or_else(bad)?,
            )
        } else {
            let suffixes = [
                ("rps", 1.0),
                ("rpm", 60.0),
                ("rph", 3600.0),
                ("rpd", 86400.0),
            ];
            let (n, w) = suffixes
                .iter()
                .find_map(|(suf, w)| s.strip_suffix(suf).map(|n| (n.to_string(), *w)))
                .ok_or_else(bad)?;
            (n, w)
        };
        let count: f64 = num.parse().map_err(|_| bad())?;
        if !count.is_finite() || count <= 0.0 {
            return Err(UnitError(format!(
                "rate {input:?} must be a positive number of requests; {RATE_FORMS}"
            )));
        }
        Ok(Rate::new(count, window))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = match self.window_s as u64 {
            1 => "s",
            60 => "min",
            3600 => "h",
            86400 => "day",
            _ => return write!(f, "{}/s", fmt_num(self.per_second)),
        };
        write!(f, "{}/{}", fmt_num(self.count_per_window()), unit)
    }
}

impl std::str::FromStr for Rate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rate::parse(s)
    }
}

/// The allowances given with `--limit`: one per host (`HOST=RATE`, repeatable) and at most one
/// without a host (`RATE`), which is for the host the report is mainly about (`--host`, else
/// the one that sent the most rate-limited responses, else all traffic when none did).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GivenLimits {
    /// `--limit RATE`.
    pub any: Option<Rate>,
    /// `--limit HOST=RATE`, host lower-cased, in the order given.
    pub hosts: Vec<(String, Rate)>,
}

impl GivenLimits {
    /// Every `--limit` value; the message names the bad one.
    pub fn parse(values: &[String]) -> Result<GivenLimits, UnitError> {
        let mut out = GivenLimits::default();
        for v in values {
            match v.split_once('=') {
                Some((host, rate)) => {
                    let host = host.trim().to_ascii_lowercase();
                    if host.is_empty() {
                        return Err(UnitError(format!(
                            "--limit {v:?}: the host before `=` is empty (HOST=RATE, e.g. api.example.com=120/min)"
                        )));
                    }
                    let rate =
                        Rate::parse(rate).map_err(|e| UnitError(format!("--limit {v:?}: {e}")))?;
                    if out.hosts.iter().any(|(h, _)| *h == host) {
                        return Err(UnitError(format!("--limit {v:?}: {host} is given twice")));
                    }
                    out.hosts.push((host, rate));
                }
                None => {
                    if out.any.is_some() {
                        return Err(UnitError(format!(
                            "--limit {v:?}: only one limit without a host; name the others' hosts (HOST=RATE)"
                        )));
                    }
                    out.any = Some(Rate::parse(v).map_err(|e| UnitError(format!("--limit: {e}")))?);
                }
            }
        }
        Ok(out)
    }

    /// Just one limit for every host (`analyze` on records in memory, tests).
    pub fn any(rate: Option<Rate>) -> GivenLimits {
        GivenLimits {
            any: rate,
            hosts: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.any.is_none() && self.hosts.is_empty()
    }

    /// The limit given for `host` by name.
    pub fn named(&self, host: &str) -> Option<Rate> {
        self.hosts
            .iter()
            .find(|(h, _)| h.eq_ignore_ascii_case(host))
            .map(|(_, r)| *r)
    }

    /// The limit given for `host`: its own, else the one without a host when `host` is the one
    /// that limit is for (`principal`).
    pub fn get(&self, host: &str, principal: bool) -> Option<Rate> {
        self.named(host).or_else(|| self.any.filter(|_| principal))
    }

    /// The `--limit` value that gave a host's limit, as it would be typed.
    pub fn flag_text(&self, host: &str, rate: Rate) -> String {
        if self.named(host).is_some() {
            format!("--limit {host}={rate}")
        } else {
            format!("--limit {rate}")
        }
    }
}

/// Parse a duration like `667ms`, `2s`, `1m30s`, `1.5h` into milliseconds.
pub fn parse_duration_ms(input: &str) -> Result<f64, UnitError> {
    let s = input.trim().to_ascii_lowercase().replace(' ', "");
    let bad = || UnitError(format!("cannot read duration {input:?}: {DURATION_FORMS}"));
    if s.is_empty() {
        return Err(bad());
    }
    let mut total = 0.0;
    let mut rest = s.as_str();
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        if num_end == 0 {
            return Err(bad());
        }
        let n: f64 = rest[..num_end].parse().map_err(|_| bad())?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "us" | "µs" => 0.001,
            "ms" => 1.0,
            "s" | "sec" | "secs" => 1000.0,
            "m" | "min" | "mins" => 60_000.0,
            "h" | "hr" | "hrs" => 3_600_000.0,
            "d" | "day" | "days" => 86_400_000.0,
            _ => return Err(bad()),
        };
        total += n * factor;
        rest = &rest[unit_end..];
    }
    if !total.is_finite() {
        return Err(bad());
    }
    Ok(total)
}

/// Format a duration in milliseconds for people: `667 ms`, `2 s`, `6 min 40 s`, `1 h 5 min`.
pub fn fmt_duration_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "∞".into();
    }
    if ms < 1000.0 {
        return format!("{} ms", fmt_num(ms.round()));
    }
    let s = ms / 1000.0;
    if s < 60.0 {
        return format!("{} s", fmt_num((s * 10.0).round() / 10.0));
    }
    let total_s = s.round() as u64;
    let (h, m, sec) = (total_s / 3600, (total_s % 3600) / 60, total_s % 60);
    match (h, m, sec) {
        (0, m, 0) => format!("{m} min"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, 0, _) => format!("{h} h"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// A number without trailing zeros: `1.5`, `90`, `0.667`.
pub fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let s = format!("{:.3}", x);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(Rate::parse("120/min").unwrap().per_second, 2.0);
        assert_eq!(Rate::parse("2/s").unwrap().per_second, 2.0);
        assert_eq!(Rate::parse("7200/h").unwrap().per_second, 2.0);
        assert_eq!(Rate::parse("90rpm").unwrap().per_minute(), 90.0);
        assert_eq!(Rate::parse("10000/day").unwrap().window_s, 86400.0);
        assert_eq!(Rate::parse("120 req/min").unwrap().per_second, 2.0);
        assert_eq!(Rate::parse("120/min").unwrap().to_string(), "120/min");
        let e = Rate::parse("120/fortnight").unwrap_err();
        assert!(e.0.contains("accepted forms"));
        assert!(Rate::parse("0/s").is_err());
        assert!(Rate::parse("").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("667ms").unwrap(), 667.0);
        assert_eq!(parse_duration_ms("2s").unwrap(), 2000.0);
        assert_eq!(parse_duration_ms("1m30s").unwrap(), 90_000.0);
        assert_eq!(parse_duration_ms("10m").unwrap(), 600_000.0);
        assert!(parse_duration_ms("2").is_err());
        assert!(parse_duration_ms("s").is_err());
        assert!(parse_duration_ms("2 weeks").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_duration_ms(666.7), "667 ms");
        assert_eq!(fmt_duration_ms(400_000.0), "6 min 40 s");
        assert_eq!(fmt_num(1.5), "1.5");
        assert_eq!(fmt_num(90.0), "90");
    }
}

//! `--limit` specs: `MODEL:RATE[,option]...`, e.g. `fixed-window:120/min`,
//! `leaky-bucket:2/s,burst=5,nodelay`. Every error names the accepted forms.

use super::{NS_PER_MS, NS_PER_S};
use crate::units::parse_duration_ms;
use std::fmt;

pub const SPEC_FORMS: &str = "accepted forms: fixed-window:120/min[,align=first], \
sliding-window:120/min[,count-rejected], token-bucket:2/s,burst=5[,interval=1s], \
gcra:2/s,burst=5, leaky-bucket:2/s[,burst=5][,nodelay|,delay=2], concurrency:4, daily:1000 \
(rates: N/s, N/min, N/h, N/day or N/DURATION such as 100/10s)";

/// How nginx's `delay=` / `nodelay` sets the point where excess requests start to be held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NginxDelay {
    /// Default: every excess request inside the burst is held (`delay=0`).
    Delay(u64),
    /// `nodelay`: requests inside the burst are served at once.
    NoDelay,
}

/// A parsed limiter spec. Counts are whole requests; times are nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// `limit` per `window_ns`, windows aligned to the clock (multiples of the window since the
    /// epoch) or, with `align=first`, starting at the first request after the last one expired.
    FixedWindow {
        limit: u64,
        window_ns: u64,
        align_first: bool,
    },
    /// The sliding-window counter (Cloudflare, Kong): the previous window's count weighted by
    /// how much of it still overlaps, plus the current count.
    SlidingWindow {
        limit: u64,
        window_ns: u64,
        count_rejected: bool,
    },
    /// `count` tokens per `period_ns`, at most `burst` stored, starting full; refilled
    /// continuously, or every `fill_interval_ns` in whole steps (Envoy before 1.31).
    TokenBucket {
        count: u64,
        period_ns: u64,
        burst: u64,
        fill_interval_ns: Option<u64>,
    },
    /// GCRA: emission interval period/count, `burst` requests admitted back to back.
    Gcra {
        count: u64,
        period_ns: u64,
        burst: u64,
    },
    /// nginx `limit_req`: `rate` requests per second (or per minute), `burst`, `delay=`.
    LeakyBucket {
        rate: u64,
        per_minute: bool,
        burst: u64,
        delay: NginxDelay,
    },
    Concurrency {
        max: u64,
    },
    /// A daily quota reset at 00:00 UTC.
    Daily {
        limit: u64,
    },
}

impl Spec {
    pub fn model_name(&self) -> &'static str {
        match self {
            Spec::FixedWindow { .. } => "fixed-window",
            Spec::SlidingWindow { .. } => "sliding-window",
            Spec::TokenBucket { .. } => "token-bucket",
            Spec::Gcra { .. } => "gcra",
            Spec::LeakyBucket { .. } => "leaky-bucket",
            Spec::Concurrency { .. } => "concurrency",
            Spec::Daily { .. } => "daily",
        }
    }

    /// The long-run rate the model allows, requests per second (`None` for concurrency).
    pub fn rate_per_second(&self) -> Option<f64> {
        Some(match *self {
            Spec::FixedWindow {
                limit, window_ns, ..
            }
            | Spec::SlidingWindow {
                limit, window_ns, ..
            } => limit as f64 / (window_ns as f64 / NS_PER_S as f64),
            Spec::TokenBucket {
                count, period_ns, ..
            }
            | Spec::Gcra {
                count, period_ns, ..
            } => count as f64 / (period_ns as f64 / NS_PER_S as f64),
            Spec::LeakyBucket {
                rate, per_minute, ..
            } => rate as f64 / if per_minute { 60.0 } else { 1.0 },
            Spec::Daily { limit } => limit as f64 / 86_400.0,
            Spec::Concurrency { .. } => return None,
        })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = |count: u64, period_ns: u64| -> String {
            let unit = match period_ns {
                p if p == NS_PER_S => "s".to_string(),
                p if p == 60 * NS_PER_S => "min".to_string(),
                p if p == 3600 * NS_PER_S => "h".to_string(),
                p if p == 86_400 * NS_PER_S => "day".to_string(),
                p if p % NS_PER_S == 0 => format!("{}s", p / NS_PER_S),
                p => format!("{}ms", p / NS_PER_MS),
            };
            format!("{count}/{unit}")
        };
        match self {
            Spec::FixedWindow {
                limit,
                window_ns,
                align_first,
            } => {
                write!(f, "fixed-window:{}", rate(*limit, *window_ns))?;
                if *align_first {
                    f.write_str(",align=first")?;
                }
                Ok(())
            }
            Spec::SlidingWindow {
                limit,
                window_ns,
                count_rejected,
            } => {
                write!(f, "sliding-window:{}", rate(*limit, *window_ns))?;
                if *count_rejected {
                    f.write_str(",count-rejected")?;
                }
                Ok(())
            }
            Spec::TokenBucket {
                count,
                period_ns,
                burst,
                fill_interval_ns,
            } => {
                write!(f, "token-bucket:{},burst={burst}", rate(*count, *period_ns))?;
                if let Some(i) = fill_interval_ns {
                    write!(f, ",interval={}ms", i / NS_PER_MS)?;
                }
                Ok(())
            }
            Spec::Gcra {
                count,
                period_ns,
                burst,
            } => write!(f, "gcra:{},burst={burst}", rate(*count, *period_ns)),
            Spec::LeakyBucket {
                rate: r,
                per_minute,
                burst,
                delay,
            } => {
                write!(
                    f,
                    "leaky-bucket:{r}/{}",
                    if *per_minute { "min" } else { "s" }
                )?;
                // nginx has no burst=0 (it means "no burst parameter").
                if *burst > 0 {
                    write!(f, ",burst={burst}")?;
                }
                match delay {
                    NginxDelay::NoDelay => f.write_str(",nodelay"),
                    NginxDelay::Delay(0) => Ok(()),
                    NginxDelay::Delay(d) => write!(f, ",delay={d}"),
                }
            }
            Spec::Concurrency { max } => write!(f, "concurrency:{max}"),
            Spec::Daily { limit } => write!(f, "daily:{limit}"),
        }
    }
}

/// Largest count or burst accepted (keeps all arithmetic far from overflow).
const MAX_COUNT: u64 = 1_000_000_000;
/// Longest window: a year.
const MAX_WINDOW_NS: u64 = 366 * 86_400 * NS_PER_S;

/// A limit spec that cannot be used: the spec as written, what is wrong, and the forms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--limit {spec:?}: {why}; {}", SPEC_FORMS)]
pub struct SpecError {
    pub spec: String,
    pub why: Problem,
}

/// What is wrong with a limit spec.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Problem {
    #[error("{what} {value:?} must be a whole number from 1 to {}", MAX_COUNT)]
    Count { what: &'static str, value: String },
    #[error("{0:?} is not a rate such as 120/min")]
    NotARate(String),
    #[error(transparent)]
    Duration(#[from] crate::units::UnitError),
    #[error("{0} is not a whole number of milliseconds")]
    NotWholeMs(String),
    #[error("{0} must be 1 ms to a year")]
    WindowRange(String),
    #[error("no model named (e.g. fixed-window:)")]
    NoModel,
    #[error("no rate or count after the model")]
    NoRate,
    #[error("unknown model {0:?}")]
    UnknownModel(String),
    #[error("{model} has no option {option:?} (options: {allowed})")]
    UnknownOption {
        model: String,
        option: String,
        allowed: String,
    },
    #[error("{0} needs a value ({0}=…)")]
    NeedsValue(String),
    #[error("{0} takes no value")]
    TakesNoValue(String),
    #[error("align={0}: use clock or first")]
    Align(String),
    #[error("{0} needs burst=N")]
    NeedsBurst(String),
    #[error("interval={interval} does not refill a whole number of tokens at {rate}")]
    Interval { interval: String, rate: String },
    #[error("{0:?} is not a rate such as 10/s or 90/min")]
    NotANginxRate(String),
    #[error("nginx rates are per second or per minute, not per {0:?}")]
    NginxUnit(String),
    #[error("nodelay and delay= exclude each other")]
    DelayAndNodelay,
}

fn err(spec: &str, why: impl Into<Problem>) -> SpecError {
    SpecError {
        spec: spec.to_string(),
        why: why.into(),
    }
}

fn count(spec: &str, what: &'static str, v: &str) -> Result<u64, SpecError> {
    match v.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_COUNT).contains(&n) => Ok(n),
        _ => Err(err(
            spec,
            Problem::Count {
                what,
                value: v.to_string(),
            },
        )),
    }
}

/// `120/min`, `2/s`, `100/10s`, `2r/s` → (count, period ns).
fn rate(spec: &str, v: &str) -> Result<(u64, u64), SpecError> {
    let Some((n, unit)) = v.split_once('/') else {
        return Err(err(spec, Problem::NotARate(v.to_string())));
    };
    let n = n.trim().trim_end_matches('r');
    let c = count(spec, "the request count", n)?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = match unit.as_str() {
        "m" => "min".to_string(),
        "d" => "day".to_string(),
        _ => unit,
    };
    let written = if unit.starts_with(|ch: char| ch.is_ascii_digit()) {
        unit
    } else {
        format!("1{unit}")
    };
    let period = window_ns(spec, &written, &format!("the window of {v:?}"))?;
    Ok((c, period))
}

/// A window or interval in nanoseconds: 1 ms to a year, in whole milliseconds. Finer values are
/// refused rather than rounded, so a spec always prints back (in ms) to the same limit and the
/// user is never simulated against a window they did not write.
fn window_ns(spec: &str, written: &str, what: &str) -> Result<u64, SpecError> {
    let ms = parse_duration_ms(written).map_err(|e| err(spec, e))?;
    let Some(whole) = whole_ms(ms) else {
        return Err(err(spec, Problem::NotWholeMs(what.to_string())));
    };
    if !(1..=MAX_WINDOW_NS / NS_PER_MS).contains(&whole) {
        return Err(err(spec, Problem::WindowRange(what.to_string())));
    }
    Ok(whole * NS_PER_MS)
}

/// `ms` as a whole number of milliseconds, when it is one up to the float error of reading a
/// decimal such as `1.005s` (relative 1e-14, far below a millisecond for windows up to a
/// year); `None` for a fraction of a millisecond (`.999999s`), NaN or a negative value.
fn whole_ms(ms: f64) -> Option<u64> {
    if !ms.is_finite() || ms < 0.0 {
        return None;
    }
    let r = ms.round();
    if (ms - r).abs() > (5e-7f64).max(r * 1e-14) || r > u64::MAX as f64 / 2.0 {
        return None;
    }
    Some(r as u64)
}

/// Parse `MODEL:RATE[,option]...`.
pub fn parse_spec(input: &str) -> Result<Spec, SpecError> {
    let s = input.trim();
    let Some((model, rest)) = s.split_once(':') else {
        return Err(err(input, Problem::NoModel));
    };
    let mut parts = rest.split(',').map(str::trim).filter(|p| !p.is_empty());
    let Some(first) = parts.next() else {
        return Err(err(input, Problem::NoRate));
    };
    let mut opts: Vec<(String, Option<String>)> = Vec::new();
    for p in parts {
        match p.split_once('=') {
            Some((k, v)) => opts.push((k.trim().to_ascii_lowercase(), Some(v.trim().to_string()))),
            None => opts.push((p.to_ascii_lowercase(), None)),
        }
    }
    let model = model.trim().to_ascii_lowercase();
    // Each model's options, checked against this table so an unknown one is an error.
    let allowed: &[&str] = match model.as_str() {
        "fixed-window" => &["align"],
        "sliding-window" => &["count-rejected"],
        "token-bucket" => &["burst", "interval"],
        "gcra" => &["burst"],
        "leaky-bucket" => &["burst", "nodelay", "delay"],
        "concurrency" | "daily" => &[],
        other => return Err(err(input, Problem::UnknownModel(other.to_string()))),
    };
    for (k, _) in &opts {
        if !allowed.contains(&k.as_str()) {
            return Err(err(
                input,
                Problem::UnknownOption {
                    model: model.clone(),
                    option: k.clone(),
                    allowed: allowed.join(", "),
                },
            ));
        }
    }
    let opt = |name: &str| opts.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let value = |name: &str| -> Result<Option<String>, SpecError> {
        match opt(name) {
            Some(Some(v)) => Ok(Some(v)),
            Some(None) => Err(err(input, Problem::NeedsValue(name.to_string()))),
            None => Ok(None),
        }
    };
    let flag = |name: &str| -> Result<bool, SpecError> {
        match opt(name) {
            Some(Some(_)) => Err(err(input, Problem::TakesNoValue(name.to_string()))),
            Some(None) => Ok(true),
            None => Ok(false),
        }
    };
    let spec = match model.as_str() {
        "fixed-window" => {
            let (limit, window_ns) = rate(input, first)?;
            let align_first = match value("align")?.as_deref() {
                None | Some("clock") => false,
                Some("first") => true,
                Some(o) => return Err(err(input, Problem::Align(o.to_string()))),
            };
            Spec::FixedWindow {
                limit,
                window_ns,
                align_first,
            }
        }
        "sliding-window" => {
            let (limit, window_ns) = rate(input, first)?;
            Spec::SlidingWindow {
                limit,
                window_ns,
                count_rejected: flag("count-rejected")?,
            }
        }
        "token-bucket" | "gcra" => {
            let (c, period_ns) = rate(input, first)?;
            let burst = match value("burst")? {
                Some(b) => count(input, "burst", &b)?,
                None => return Err(err(input, Problem::NeedsBurst(model.clone()))),
            };
            if model == "gcra" {
                Spec::Gcra {
                    count: c,
                    period_ns,
                    burst,
                }
            } else {
                let fill_interval_ns = match value("interval")? {
                    Some(i) => {
                        let n = window_ns(input, &i, "interval")?;
                        // Whole tokens per fill: count × interval / period must be an integer.
                        if !(c as u128 * n as u128).is_multiple_of(period_ns as u128) {
                            return Err(err(
                                input,
                                Problem::Interval {
                                    interval: i.clone(),
                                    rate: first.to_string(),
                                },
                            ));
                        }
                        Some(n)
                    }
                    None => None,
                };
                Spec::TokenBucket {
                    count: c,
                    period_ns,
                    burst,
                    fill_interval_ns,
                }
            }
        }
        "leaky-bucket" => {
            // nginx accepts only whole requests per second or per minute.
            let (n, unit) = first
                .split_once('/')
                .ok_or_else(|| err(input, Problem::NotANginxRate(first.to_string())))?;
            let r = count(input, "the rate", n.trim().trim_end_matches('r'))?;
            let per_minute = match unit.trim().to_ascii_lowercase().as_str() {
                "s" | "sec" | "second" => false,
                "m" | "min" | "minute" => true,
                u => return Err(err(input, Problem::NginxUnit(u.to_string()))),
            };
            let burst = match value("burst")? {
                Some(b) => count(input, "burst", &b)?,
                None => 0,
            };
            let nodelay = flag("nodelay")?;
            let delay = match (value("delay")?, nodelay) {
                (Some(_), true) => return Err(err(input, Problem::DelayAndNodelay)),
                (Some(d), false) => NginxDelay::Delay(count(input, "delay", &d)?),
                (None, true) => NginxDelay::NoDelay,
                (None, false) => NginxDelay::Delay(0),
            };
            Spec::LeakyBucket {
                rate: r,
                per_minute,
                burst,
                delay,
            }
        }
        "concurrency" => Spec::Concurrency {
            max: count(input, "the concurrency", first)?,
        },
        "daily" => Spec::Daily {
            limit: count(input, "the daily quota", first.trim_end_matches("/day"))?,
        },
        _ => unreachable!("model names are checked above"),
    };
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_from_the_issue_parse() {
        assert_eq!(
            parse_spec("fixed-window:120/min").unwrap(),
            Spec::FixedWindow {
                limit: 120,
                window_ns: 60 * NS_PER_S,
                align_first: false
            }
        );
        assert_eq!(
            parse_spec("sliding-window:120/min,count-rejected").unwrap(),
            Spec::SlidingWindow {
                limit: 120,
                window_ns: 60 * NS_PER_S,
                count_rejected: true
            }
        );
        assert_eq!(
            parse_spec("token-bucket:2/s,burst=5").unwrap(),
            Spec::TokenBucket {
                count: 2,
                period_ns: NS_PER_S,
                burst: 5,
                fill_interval_ns: None
            }
        );
        assert_eq!(
            parse_spec("gcra:2/s,burst=5").unwrap(),
            Spec::Gcra {
                count: 2,
                period_ns: NS_PER_S,
                burst: 5
            }
        );
        assert_eq!(
            parse_spec("leaky-bucket:2/s,burst=5,nodelay").unwrap(),
            Spec::LeakyBucket {
                rate: 2,
                per_minute: false,
                burst: 5,
                delay: NginxDelay::NoDelay
            }
        );
        assert_eq!(
            parse_spec("leaky-bucket:90r/m").unwrap(),
            Spec::LeakyBucket {
                rate: 90,
                per_minute: true,
                burst: 0,
                delay: NginxDelay::Delay(0)
            }
        );
        assert_eq!(
            parse_spec("concurrency:4").unwrap(),
            Spec::Concurrency { max: 4 }
        );
        assert_eq!(
            parse_spec("daily:1000").unwrap(),
            Spec::Daily { limit: 1000 }
        );
        assert_eq!(
            parse_spec("fixed-window:100/10s,align=first").unwrap(),
            Spec::FixedWindow {
                limit: 100,
                window_ns: 10 * NS_PER_S,
                align_first: true
            }
        );
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "fixed-window:120/min",
            "fixed-window:100/10s,align=first",
            "sliding-window:120/min,count-rejected",
            "token-bucket:2/s,burst=5",
            "token-bucket:10/s,burst=10,interval=500ms",
            "gcra:2/s,burst=5",
            "leaky-bucket:10/s,burst=5,delay=2",
            "leaky-bucket:90/min",
            "concurrency:4",
            "daily:1000",
        ] {
            let spec = parse_spec(s).unwrap();
            assert_eq!(parse_spec(&spec.to_string()).unwrap(), spec, "{s}");
        }
    }

    #[test]
    fn bad_specs_say_why_and_list_the_forms() {
        for (s, why) in [
            ("fixed-window", "no model named"),
            ("bucket:2/s", "unknown model"),
            ("token-bucket:2/s", "needs burst=N"),
            ("gcra:2/s,burst=0", "burst \"0\""),
            ("fixed-window:1.5/s", "whole number"),
            ("fixed-window:120/fortnight", "cannot read duration"),
            ("leaky-bucket:2/h", "per second or per minute"),
            (
                "leaky-bucket:2/s,burst=5,nodelay,delay=2",
                "exclude each other",
            ),
            ("fixed-window:120/min,burst=3", "has no option \"burst\""),
            ("sliding-window:10/s,count-rejected=yes", "takes no value"),
            (
                "token-bucket:3/s,burst=3,interval=500ms",
                "whole number of tokens",
            ),
            ("concurrency:-1", "whole number"),
        ] {
            let e = parse_spec(s).unwrap_err().to_string();
            assert!(e.contains(why), "{s}: {e}");
            assert!(e.contains("accepted forms"), "{s}: {e}");
        }
    }

    /// cargo-fuzz `limiter_spec` artifacts (docs/fuzzing.md): windows finer than a millisecond
    /// used to parse, print back truncated to whole ms (`4/.999999s` → `4/999ms`) and so parse
    /// back to a different limit. They are refused now, with the reason.
    #[test]
    fn sub_millisecond_windows_are_refused_not_truncated() {
        for s in [
            "fixed-window:4/.999999s,",
            "fixed-winDow:8/11D.111111D",
            "fixed-winDow:8/.999999999990000000000000000000000000000000000013150510911921847430d",
            "fixed-winDow:41111/.1511111Ms1Ms111112s",
            "token-bucket:1/s,burst=1,interval=0.5ms",
            "gcra:3/1.0005s,burst=2",
        ] {
            let e = parse_spec(s).unwrap_err();
            assert!(matches!(e.why, Problem::NotWholeMs(_)), "{s}: {e}");
            let e = e.to_string();
            assert!(e.contains("not a whole number of milliseconds"), "{s}: {e}");
            assert!(e.contains("accepted forms"), "{s}: {e}");
        }
    }

    /// Decimal windows that are whole milliseconds still parse (float error in reading them is
    /// not a fraction of a millisecond) and every accepted spec prints back to itself.
    #[test]
    fn decimal_whole_millisecond_windows_parse_and_round_trip() {
        for (s, ns) in [
            ("fixed-window:4/1.005s", 1_005 * NS_PER_MS),
            ("fixed-window:4/0.1s", 100 * NS_PER_MS),
            ("sliding-window:7/1.5m", 90 * NS_PER_S),
            ("fixed-window:1/365.1d", 31_544_640 * NS_PER_S),
            ("gcra:3/2.25h,burst=2", 8_100 * NS_PER_S),
            ("fixed-window:9/1m30.250s", 90_250 * NS_PER_MS),
        ] {
            let spec = parse_spec(s).unwrap();
            let got = match spec {
                Spec::FixedWindow { window_ns, .. } | Spec::SlidingWindow { window_ns, .. } => {
                    window_ns
                }
                Spec::Gcra { period_ns, .. } => period_ns,
                _ => unreachable!(),
            };
            assert_eq!(got, ns, "{s}");
            assert_eq!(parse_spec(&spec.to_string()).unwrap(), spec, "{s} → {spec}");
        }
        let tb = parse_spec("token-bucket:10/s,burst=10,interval=0.5s").unwrap();
        assert_eq!(parse_spec(&tb.to_string()).unwrap(), tb, "{tb}");
    }

    #[test]
    fn long_run_rates() {
        let r = |s: &str| parse_spec(s).unwrap().rate_per_second().unwrap();
        assert_eq!(r("fixed-window:120/min"), 2.0);
        assert_eq!(r("leaky-bucket:90/min"), 1.5);
        assert_eq!(r("gcra:2/s,burst=5"), 2.0);
        assert!(parse_spec("concurrency:4")
            .unwrap()
            .rate_per_second()
            .is_none());
    }
}

//! Faults, seeded and reproducible: a share of the *admitted* requests is delayed, answered 503
//! (with or without Retry-After), has its connection reset, or gets a body cut short — what an
//! upstream does after the limiter let a request through, so a client's handling of the
//! awkward cases can be tested. Refusals stay clean.
//!
//! `--fault KIND=SHARE[:ARG]`, repeatable: `delay=10%:2s`, `503=5%` (no Retry-After),
//! `503=5%:30s` (Retry-After 30 s, in the form `--retry-after` asks: seconds, date or a date in
//! the past), `reset=2%`, `truncate=2%`. At most one fault per request, drawn from the request's
//! sequence number and `--seed`: the same seed and the same order of requests give the same
//! faults.

use crate::units::parse_duration_ms;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Hold the response this much longer.
    Delay(Duration),
    /// Answer 503 instead, with a Retry-After of this many seconds (or none).
    Unavailable(Option<u64>),
    /// Reset the connection (TCP RST) without an answer.
    Reset,
    /// Send the headers and half the body, then close.
    Truncate,
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Delay(_) => "delay",
            Kind::Unavailable(Some(_)) => "503-retry-after",
            Kind::Unavailable(None) => "503",
            Kind::Reset => "reset",
            Kind::Truncate => "truncate",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: Kind,
    /// 0–1.
    pub share: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Faults {
    pub list: Vec<Fault>,
    pub seed: u64,
}

pub const FAULT_FORMS: &str =
    "faults: delay=10%:2s, 503=5%, 503=5%:30s, reset=2%, truncate=2% (shares of admitted requests)";

/// Why a `--fault` cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FaultError {
    /// One `--fault TEXT`.
    #[error("--fault {text:?}: {why}")]
    Bad { text: String, why: FaultProblem },
    /// The shares of all the faults, as a fraction.
    #[error("--fault: the shares add up to {:.1}%, more than every request", .0 * 100.0)]
    OverOne(f64),
}

/// What is wrong with one `--fault`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FaultProblem {
    #[error("write KIND=SHARE; {}", FAULT_FORMS)]
    NoShare,
    #[error("the share {share:?} must be a percentage from 0% to 100%; {forms}", forms = FAULT_FORMS)]
    Share { share: String },
    #[error("{error}; {forms}", forms = FAULT_FORMS)]
    Duration { error: crate::units::UnitError },
    #[error("{0:?} must be at most an hour")]
    OverAnHour(String),
    #[error("a delay needs its length (delay=10%:2s)")]
    DelayWithoutLength,
    #[error("unknown fault; {}", FAULT_FORMS)]
    Unknown,
}

fn share(v: &str) -> Result<f64, FaultProblem> {
    let n = v.trim().trim_end_matches('%');
    match n.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) && v.trim().ends_with('%') => Ok(p / 100.0),
        _ => Err(FaultProblem::Share {
            share: v.to_string(),
        }),
    }
}

fn duration(v: &str) -> Result<Duration, FaultProblem> {
    let ms = parse_duration_ms(v).map_err(|error| FaultProblem::Duration { error })?;
    if !(0.0..=3_600_000.0).contains(&ms) {
        return Err(FaultProblem::OverAnHour(v.to_string()));
    }
    Ok(Duration::from_secs_f64(ms / 1000.0))
}

impl Fault {
    pub fn parse(text: &str) -> Result<Fault, FaultError> {
        Fault::parse_problem(text).map_err(|why| FaultError::Bad {
            text: text.to_string(),
            why,
        })
    }

    fn parse_problem(text: &str) -> Result<Fault, FaultProblem> {
        let Some((kind, rest)) = text.split_once('=') else {
            return Err(FaultProblem::NoShare);
        };
        let (pct, arg) = match rest.split_once(':') {
            Some((p, a)) => (p, Some(a)),
            None => (rest, None),
        };
        let share = share(pct)?;
        let kind = match (kind.trim(), arg) {
            ("delay", Some(a)) => Kind::Delay(duration(a)?),
            ("503", None) => Kind::Unavailable(None),
            ("503", Some(a)) => Kind::Unavailable(Some(duration(a)?.as_secs_f64().ceil() as u64)),
            ("reset", None) => Kind::Reset,
            ("truncate", None) => Kind::Truncate,
            ("delay", None) => return Err(FaultProblem::DelayWithoutLength),
            _ => return Err(FaultProblem::Unknown),
        };
        Ok(Fault { kind, share })
    }
}

/// splitmix64: a well-mixed 64-bit value from a counter.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Faults {
    pub fn new(list: Vec<Fault>, seed: u64) -> Result<Faults, FaultError> {
        let total: f64 = list.iter().map(|f| f.share).sum();
        if total > 1.0 + 1e-9 {
            return Err(FaultError::OverOne(total));
        }
        Ok(Faults { list, seed })
    }

    /// The fault for the request with this sequence number, if any.
    pub fn pick(&self, seq: u64) -> Option<&Kind> {
        if self.list.is_empty() {
            return None;
        }
        let u = (mix(self.seed ^ mix(seq)) >> 11) as f64 / (1u64 << 53) as f64;
        let mut cum = 0.0;
        for f in &self.list {
            cum += f.share;
            if u < cum {
                return Some(&f.kind);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_refuse_what_they_cannot_do() {
        let f = Fault::parse("delay=10%:2s").unwrap();
        assert_eq!(
            (f.kind, f.share),
            (Kind::Delay(Duration::from_secs(2)), 0.1)
        );
        assert_eq!(
            Fault::parse("503=5%").unwrap().kind,
            Kind::Unavailable(None)
        );
        assert_eq!(
            Fault::parse("503=5%:30s").unwrap().kind,
            Kind::Unavailable(Some(30))
        );
        assert_eq!(Fault::parse("reset=2.5%").unwrap().share, 0.025);
        assert_eq!(Fault::parse("truncate=100%").unwrap().kind, Kind::Truncate);
        for bad in [
            "delay=10%",
            "503=5",
            "reset=120%",
            "boom=1%",
            "reset",
            "truncate=1%:2s",
        ] {
            let e = Fault::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--fault {bad:?}: ")), "{e}");
        }
        assert_eq!(
            Fault::parse("delay=10%:2h").unwrap_err().to_string(),
            r#"--fault "delay=10%:2h": "2h" must be at most an hour"#
        );
        let over = vec![
            Fault::parse("reset=60%").unwrap(),
            Fault::parse("503=50%").unwrap(),
        ];
        assert_eq!(
            Faults::new(over, 1).unwrap_err().to_string(),
            "--fault: the shares add up to 110.0%, more than every request"
        );
    }

    #[test]
    fn the_same_seed_gives_the_same_faults_in_the_asked_shares() {
        let list = vec![
            Fault::parse("503=10%").unwrap(),
            Fault::parse("reset=5%").unwrap(),
        ];
        let a = Faults::new(list.clone(), 42).unwrap();
        let b = Faults::new(list.clone(), 42).unwrap();
        let c = Faults::new(list, 43).unwrap();
        let draw = |f: &Faults| {
            (0..20_000)
                .map(|s| f.pick(s).map(Kind::name))
                .collect::<Vec<_>>()
        };
        let (da, db, dc) = (draw(&a), draw(&b), draw(&c));
        assert_eq!(da, db);
        assert_ne!(da, dc);
        let count = |k: &str| da.iter().filter(|x| **x == Some(k)).count();
        // 2,000 and 1,000 expected; a binomial's spread is ~±45 and ~±31.
        assert!((1850..2150).contains(&count("503")), "{}", count("503"));
        assert!((900..1100).contains(&count("reset")), "{}", count("reset"));
        assert!(Faults::default().pick(7).is_none());
    }
}

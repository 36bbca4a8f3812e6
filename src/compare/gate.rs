//! `--fail-on SPEC`: the conditions a CI pipeline gates on. A condition that holds makes the
//! command exit 1 (after writing its report as usual); errors stay exit 2.

use crate::detect::{Kind, Severity};
use crate::report::Report;

/// One `--fail-on` condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailOn {
    /// Any rate-limited response (in `compare`: on the AFTER side).
    Any429,
    /// A finding of this kind (`burst`, `retry_storm`, ...).
    Finding(String),
    /// A finding of this severity or worse.
    Severity(Severity),
    /// `compare` only: the verdict is `regressed`.
    Regressed,
}

impl FailOn {
    /// Parse one spec; `compare` allows `regressed` too.
    pub fn parse(spec: &str, compare: bool) -> Result<FailOn, GateError> {
        let s = spec.trim();
        let usage = if compare {
            "regressed, any-429, finding:KIND or severity:info|warning|critical"
        } else {
            "any-429, finding:KIND or severity:info|warning|critical"
        };
        if s == "any-429" {
            return Ok(FailOn::Any429);
        }
        if s == "regressed" {
            return if compare {
                Ok(FailOn::Regressed)
            } else {
                Err(GateError::NoVerdict { usage })
            };
        }
        if let Some(kind) = s.strip_prefix("finding:") {
            if let Some(k) = Kind::parse(kind) {
                return Ok(FailOn::Finding(k.as_str().to_string()));
            }
            let known: Vec<&str> = Kind::ALL.iter().map(Kind::as_str).collect();
            return Err(GateError::UnknownKind {
                spec: s.to_string(),
                known: known.join(", "),
            });
        }
        if let Some(level) = s.strip_prefix("severity:") {
            let sev = match level.trim() {
                "info" => Severity::Info,
                "warning" => Severity::Warning,
                "critical" => Severity::Critical,
                _ => {
                    return Err(GateError::UnknownSeverity {
                        spec: s.to_string(),
                    })
                }
            };
            return Ok(FailOn::Severity(sev));
        }
        Err(GateError::Unknown {
            spec: s.to_string(),
            usage,
        })
    }

    /// Does the condition hold for this report? (`Regressed` never does on one report.)
    pub fn holds(&self, report: &Report) -> bool {
        match self {
            FailOn::Any429 => report.summary.rate_limited > 0,
            FailOn::Finding(kind) => report.findings.iter().any(|f| &f.kind == kind),
            FailOn::Severity(s) => report.findings.iter().any(|f| f.severity >= *s),
            FailOn::Regressed => false,
        }
    }

    /// The spec as the user would write it (for the message on stderr).
    pub fn spec(&self) -> String {
        match self {
            FailOn::Any429 => "any-429".into(),
            FailOn::Finding(k) => format!("finding:{k}"),
            FailOn::Severity(s) => format!(
                "severity:{}",
                match s {
                    Severity::Info => "info",
                    Severity::Warning => "warning",
                    Severity::Critical => "critical",
                }
            ),
            FailOn::Regressed => "regressed".into(),
        }
    }
}

/// A `--fail-on` value that names no condition; the message says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    #[error("--fail-on regressed: only `toomany compare` has a verdict; use {usage}")]
    NoVerdict { usage: &'static str },
    #[error("--fail-on {spec}: unknown finding kind; known: {known}")]
    UnknownKind { spec: String, known: String },
    #[error("--fail-on {spec}: the severity is info, warning or critical")]
    UnknownSeverity { spec: String },
    #[error("--fail-on {spec:?}: expected {usage}")]
    Unknown { spec: String, usage: &'static str },
}

/// Parse every `--fail-on` value.
pub fn parse_all(specs: &[String], compare: bool) -> Result<Vec<FailOn>, GateError> {
    specs.iter().map(|s| FailOn::parse(s, compare)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_is_accepted() {
        assert_eq!(FailOn::parse("any-429", false).unwrap(), FailOn::Any429);
        assert_eq!(
            FailOn::parse("finding:retry-storm", false).unwrap(),
            FailOn::Finding("retry_storm".into())
        );
        assert_eq!(
            FailOn::parse("severity:critical", false).unwrap(),
            FailOn::Severity(Severity::Critical)
        );
        assert_eq!(FailOn::parse("regressed", true).unwrap(), FailOn::Regressed);
        assert!(FailOn::parse("regressed", false)
            .unwrap_err()
            .to_string()
            .contains("only `toomany compare`"));
        assert!(FailOn::parse("finding:nope", false)
            .unwrap_err()
            .to_string()
            .contains("known: burst"));
        assert!(FailOn::parse("severity:high", false).is_err());
        assert!(FailOn::parse("429", false)
            .unwrap_err()
            .to_string()
            .contains("any-429"));
        for f in [
            FailOn::Any429,
            FailOn::Finding("burst".into()),
            FailOn::Severity(Severity::Warning),
            FailOn::Regressed,
        ] {
            assert_eq!(FailOn::parse(&f.spec(), true).unwrap(), f);
        }
    }
}

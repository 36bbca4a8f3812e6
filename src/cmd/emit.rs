//! Shared by `analyze` and `plan`: the recommendation flags as typed options, and
//! `--emit-config DIR` (atomic writes, what each tool cannot express printed as warnings).

use super::Error;
use crate::cli::PolicyArgs;
use crate::output;
use crate::recommend::config::{self, Policy, Target};
use crate::recommend::{validate_headroom, BackoffOptions};
use crate::units::parse_duration_ms;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Typed, validated policy knobs from the flags.
pub struct PolicyOptions {
    pub headroom: f64,
    pub latency_ms: Option<f64>,
    pub backoff: BackoffOptions,
    /// `--emit-config DIR` with its targets.
    pub emit: Option<(PathBuf, Vec<Target>)>,
}

fn duration(flag: &str, v: &str) -> Result<f64, Error> {
    let ms = parse_duration_ms(v).map_err(|e| Error::fatal(format!("{flag}: {e}")))?;
    Ok(ms)
}

fn whole_ms(flag: &str, v: &str) -> Result<u64, Error> {
    let ms = duration(flag, v)?;
    if !(0.0..=1e15).contains(&ms) {
        return Err(Error::fatal(format!("{flag} {v:?}: out of range")));
    }
    Ok(ms.round() as u64)
}

pub fn policy_options(a: &PolicyArgs) -> Result<PolicyOptions, Error> {
    let headroom = validate_headroom(a.headroom).map_err(Error::fatal)?;
    let latency_ms = match &a.latency {
        Some(l) => {
            let ms = duration("--latency", l)?;
            if ms <= 0.0 {
                return Err(Error::fatal(format!(
                    "--latency {l:?}: must be more than 0"
                )));
            }
            Some(ms)
        }
        None => None,
    };
    let backoff = BackoffOptions {
        base_ms: whole_ms("--backoff-base", &a.backoff_base)?,
        cap_ms: whole_ms("--backoff-cap", &a.backoff_cap)?,
        max_attempts: a.max_attempts,
        deadline_ms: whole_ms("--retry-deadline", &a.retry_deadline)?,
        retry_after_spread_ms: whole_ms("--retry-after-spread", &a.retry_after_spread)?,
        attempt_timeout_ms: match &a.attempt_timeout {
            Some(t) => Some(whole_ms("--attempt-timeout", t)?),
            None => None,
        },
    };
    backoff.validate().map_err(Error::fatal)?;
    let emit = match &a.emit_config {
        Some(dir) => Some((
            dir.clone(),
            config::parse_targets(&a.target).map_err(Error::fatal)?,
        )),
        None => None,
    };
    Ok(PolicyOptions {
        headroom,
        latency_ms,
        backoff,
        emit,
    })
}

/// Write every target's file into `dir` (created if missing), each atomically. Paths written
/// and what each tool cannot express go to stderr.
pub fn write_configs(
    dir: &Path,
    policy: &Policy,
    targets: &[Target],
) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::fatal(format!("--emit-config {}: {e}", dir.display())))?;
    let files = config::emit(policy, targets);
    let mut written = Vec::new();
    let mut err = std::io::stderr().lock();
    for f in &files {
        let path = dir.join(&f.file_name);
        output::atomic_write(&path, f.contents.as_bytes())
            .map_err(|e| Error::fatal(format!("cannot write {}: {e}", path.display())))?;
        let _ = writeln!(err, "toomany: wrote {}", path.display());
        for c in &f.cannot_express {
            let _ = writeln!(
                err,
                "toomany: warning: {}: {} cannot express: {c}",
                f.file_name,
                f.target.name()
            );
        }
        written.push(path);
    }
    if policy.action == crate::recommend::Action::StopOrReschedule {
        let _ = writeln!(
            err,
            "toomany: warning: the recommended action is stop_or_reschedule: the written settings apply after the allowance resets"
        );
    }
    Ok(written)
}

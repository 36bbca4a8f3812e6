//! Shared by `analyze` and `plan`: the recommendation flags as typed options, and
//! `--emit-config DIR` (atomic writes, what each tool cannot express printed as warnings).

use super::Error;
use crate::cli::PolicyArgs;
use crate::console::Notices;
use crate::output;
use crate::recommend::config::{self, Policy, Target};
use crate::recommend::{validate_headroom, BackoffOptions};
use crate::units::parse_duration_ms;
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
        deadline_ms: match &a.retry_deadline {
            Some(d) => whole_ms("--retry-deadline", d)?,
            None => BackoffOptions::default().deadline_ms,
        },
        deadline_given: a.retry_deadline.is_some(),
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
            config::parse_targets(a.target.as_deref().unwrap_or("all")).map_err(Error::fatal)?,
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

/// Check `--emit-config DIR` before any work: an existing non-directory is refused; a missing
/// directory is created now (so a `-o` report may be placed inside it) and removed again by the
/// returned guard if the command ends without writing into it.
pub fn prepare_dir(dir: &Path) -> Result<CreatedDirs, Error> {
    let shown = dir.display();
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(CreatedDirs(Vec::new())),
        Ok(_) => Err(Error::fatal(format!(
            "--emit-config {shown}: exists and is not a directory; give a directory (it is created if missing)"
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // The missing ancestors, deepest first, to undo exactly what is created.
            let missing: Vec<PathBuf> = dir
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
                .take_while(|a| std::fs::symlink_metadata(a).is_err())
                .map(Path::to_path_buf)
                .collect();
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::fatal(format!(
                    "--emit-config {shown}: cannot create the directory: {e}"
                ))
            })?;
            Ok(CreatedDirs(missing))
        }
        Err(e) => Err(Error::fatal(match crate::output::file_in_the_way(dir) {
            Some(f) => format!(
                "--emit-config {shown}: {} is a file, not a directory, so the directory cannot be created; choose another path",
                f.display()
            ),
            None => format!("--emit-config {shown}: {e}"),
        })),
    }
}

/// Directories created for `--emit-config`, deepest first. On drop each is removed if it is
/// still empty (the command failed before writing), so a refusal leaves nothing behind.
#[must_use]
pub struct CreatedDirs(Vec<PathBuf>);

impl Drop for CreatedDirs {
    fn drop(&mut self) {
        for d in &self.0 {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}

/// What the config files must never land on.
#[derive(Default)]
pub struct Avoid<'a> {
    /// The inputs being read.
    pub inputs: &'a [String],
    /// The `-o` report, when it goes to a file.
    pub report: Option<&'a output::OutputFile>,
}

/// Write every target's file into `dir` as one set: each is checked (never an input, the `-o`
/// report, a device or FIFO), all are written to temp files, then renamed, so a failure leaves
/// none. Paths written and what each tool cannot express go to stderr.
pub fn write_configs(
    dir: &Path,
    policy: &Policy,
    targets: &[Target],
    avoid: &Avoid,
    ui: Notices,
) -> Result<Vec<PathBuf>, Error> {
    write_config_sets(&[(dir.to_path_buf(), policy)], targets, avoid, ui)
}

/// [`write_configs`] for several policies at once (one directory each, e.g. one per host), all
/// as one set: either every file of every directory is written, or none.
pub fn write_config_sets(
    sets: &[(PathBuf, &Policy)],
    targets: &[Target],
    avoid: &Avoid,
    ui: Notices,
) -> Result<Vec<PathBuf>, Error> {
    let mut _created = Vec::with_capacity(sets.len());
    for (dir, _) in sets {
        _created.push(prepare_dir(dir)?);
    }
    let files: Vec<(&Path, config::Emitted)> = sets
        .iter()
        .flat_map(|(dir, policy)| {
            config::emit(policy, targets)
                .into_iter()
                .map(move |f| (dir.as_path(), f))
        })
        .collect();
    let prepared = prepare_files(&files, avoid)?;
    let set: Vec<(&output::OutputFile, &[u8])> = prepared
        .iter()
        .zip(&files)
        .map(|(o, (_, f))| (o, f.contents.as_bytes()))
        .collect();
    output::write_set(&set).map_err(|e| Error::fatal(format!("--emit-config: {e}")))?;
    let written: Vec<PathBuf> = files
        .iter()
        .map(|(dir, f)| dir.join(&f.file_name))
        .collect();
    say_written(sets, &files, ui);
    Ok(written)
}

/// Every file of the set checked before any is written: regular files only, never the
/// report's, never two targets on one file.
fn prepare_files(
    files: &[(&Path, config::Emitted)],
    avoid: &Avoid,
) -> Result<Vec<output::OutputFile>, Error> {
    let rules = output::Rules {
        flag: "--emit-config",
        inputs: avoid.inputs,
        force: true,
    };
    let mut prepared: Vec<output::OutputFile> = Vec::with_capacity(files.len());
    for (dir, f) in files {
        let path = dir.join(&f.file_name);
        let out = output::prepare(&path, &rules).map_err(Error::fatal)?;
        if out.in_place() {
            return Err(Error::fatal(format!(
                "--emit-config {}: not a regular file; config files are only written as regular files (remove it or choose another directory)",
                out.shown()
            )));
        }
        if let Some(report) = avoid.report.filter(|r| r.key() == out.key()) {
            return Err(Error::fatal(format!(
                "--emit-config {}: that is where -o {} writes the report; choose another directory or -o path",
                out.shown(),
                report.shown()
            )));
        }
        if prepared.iter().any(|p| p.key() == out.key()) {
            return Err(Error::fatal(format!(
                "--emit-config {}: two targets write this file",
                out.shown()
            )));
        }
        prepared.push(out);
    }
    Ok(prepared)
}

/// What was written, per directory; what the tools cannot express; a stop's caveat.
fn say_written(sets: &[(PathBuf, &Policy)], files: &[(&Path, config::Emitted)], ui: Notices) {
    for (dir, _) in sets {
        let names: Vec<&str> = files
            .iter()
            .filter(|(d, _)| d == dir)
            .map(|(_, f)| f.file_name.as_str())
            .collect();
        ui.note(format_args!(
            "wrote {} file{} into {}: {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            dir.display(),
            names.join(", ")
        ));
    }
    if let Some(line) = cannot_express_summary(files) {
        ui.note(line);
    }
    for (dir, policy) in sets {
        if policy.action == crate::recommend::Action::StopOrReschedule {
            let which = if sets.len() == 1 {
                String::new()
            } else {
                format!("{}: ", dir.display())
            };
            ui.warn(format_args!(
                "{which}the recommended action is stop_or_reschedule: the written settings apply after the allowance resets"
            ));
        }
    }
}

/// One line for the expected notes on what each tool cannot express (they are in each file's
/// header, where the setting would go): how many, per tool. `None` when there are none.
fn cannot_express_summary(files: &[(&Path, config::Emitted)]) -> Option<String> {
    let mut per_tool: Vec<(&str, usize)> = Vec::new();
    for (_, f) in files {
        let n = f.cannot_express.len();
        if n == 0 {
            continue;
        }
        let name = f.target.name();
        match per_tool.iter_mut().find(|(t, _)| *t == name) {
            Some((_, c)) => *c += n,
            None => per_tool.push((name, n)),
        }
    }
    let total: usize = per_tool.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    let each: Vec<String> = per_tool.iter().map(|(t, n)| format!("{t} {n}")).collect();
    Some(format!(
        "{total} note{} on what the tools cannot express ({}) are in the written files' comment headers",
        if total == 1 { "" } else { "s" },
        each.join(", ")
    ))
}

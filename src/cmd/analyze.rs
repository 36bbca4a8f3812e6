//! `toomany analyze FILES…`: read, redact, analyze, render.

use super::{ingest_options, Error, Outcome};
use crate::analyze::{analyze_files, AnalyzeOptions};
use crate::cli::{AnalyzeArgs, LiveView, ReportFormat};
use crate::console::Notices;
use crate::ingest;
use crate::options::Env;
use crate::output;
use crate::render::{self, Style};
use crate::units::GivenLimits;

pub fn run(args: AnalyzeArgs, env: &Env, ui: Notices) -> Outcome {
    let opts = ingest_options(&args.input, ui)?;
    let (limit, host) = limits(&args)?;
    let po = super::emit::policy_options(&args.policy)?;
    let gates = crate::compare::gate::parse_all(&args.fail_on, false).map_err(Error::fatal)?;
    // Every output is checked before the inputs are read: a refusal costs nothing.
    let _emit_dir = match &po.emit {
        Some((dir, _)) => Some(super::emit::prepare_dir(dir)?),
        None => None,
    };
    let report_file = report_file(&args)?;

    // After the -o checks: `-o INPUT.har` is refused as the input, not for its extension.
    let format = crate::options::report_format(args.format, args.output.as_deref())?;
    for w in crate::options::no_effect(format, args.all, args.color) {
        ui.warn(w);
    }

    // A repeated input is read once (its records counted twice would double every rate).
    let (files, repeats) = crate::ingest::source::distinct_inputs(&args.files);
    for r in &repeats {
        ui.warn(&r.note);
    }
    let rec_opts = crate::recommend::Options {
        limit: limit.clone(),
        host: host.clone(),
        headroom: po.headroom,
        latency_ms: po.latency_ms,
        backoff: po.backoff.clone(),
    };
    let report = if args.follow {
        let live = super::follow::Live {
            interval: super::follow::interval(args.interval)?,
            view: args.view.unwrap_or(LiveView::Auto),
            rec: rec_opts.clone(),
        };
        super::follow::run(&args.files, &opts, &live, ui, |c| {
            c.finish(&args.files, &AnalyzeOptions { limit }, &rec_opts)
        })?
    } else {
        read_all(&files, opts, limit, &rec_opts, env, ui)
    };
    report_input_problems(&report.inputs, ui);
    if !report.inputs.iter().any(|i| i.records > 0) {
        return Err(Error::fatal(
            "nothing could be read from the inputs (see the messages above)",
        ));
    }
    refuse_unmapped(&report.inputs)?;
    warn_no_host(&report, ui);
    if let Some(h) = &host {
        host_in(&report, h)?;
    }
    if let Some((dir, targets)) = &po.emit {
        let sets = config_sets(&report, dir, args.host.as_deref(), ui)?;
        let sets: Vec<(std::path::PathBuf, &crate::recommend::config::Policy)> =
            sets.iter().map(|(d, p)| (d.clone(), p)).collect();
        let avoid = super::emit::Avoid {
            inputs: &args.files,
            report: report_file.as_ref(),
        };
        super::emit::write_config_sets(&sets, targets, &avoid, ui)?;
    }

    write_report(&report, format, &args, env, report_file.as_ref())?;
    Ok(gate_status(&gates, |g| g.holds(&report), ui))
}

/// The report to `-o`, else to stdout: a table on a terminal through the pager (never when
/// following: the report after Ctrl-C must reach the screen).
fn write_report(
    report: &crate::report::Report,
    format: ReportFormat,
    args: &AnalyzeArgs,
    env: &Env,
    report_file: Option<&output::OutputFile>,
) -> Result<(), Error> {
    let style = style(format, args, env, report_file.is_some());
    // Streamed where the format can (JSON): the text of a big report is never held whole.
    let renderer = render::renderer(format.into(), style);
    let produce = |w: &mut dyn std::io::Write| renderer.write(report, w);
    let pager = (format == ReportFormat::Table)
        .then(|| env.pager(args.no_pager || args.follow, report_file.is_some()))
        .flatten();
    match (report_file, pager) {
        (Some(f), _) => f.write_with(produce).map_err(Error::fatal)?,
        (None, Some(pager)) => {
            let mut text = Vec::new();
            produce(&mut text).map_err(|e| Error::fatal(format!("cannot render: {e}")))?;
            output::to_pager(&pager, &text)
                .map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?
        }
        (None, None) => output::to_stdout_with(produce)
            .map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?,
    }
    Ok(())
}

/// `--limit` and `--host` as settings: a limit without a host is `--host`'s.
fn limits(args: &AnalyzeArgs) -> Result<(GivenLimits, Option<String>), Error> {
    let mut limit = GivenLimits::parse(&args.limit).map_err(|e| Error::fatal(e.0))?;
    let host = args.host.as_deref().map(str::to_ascii_lowercase);
    if let Some(h) = &host {
        if let Some(rate) = limit.any.take() {
            if limit.named(h).is_some() {
                return Err(Error::fatal(format!(
                    "--limit {rate} and --limit {h}=…: two limits for --host {h}; give one"
                )));
            }
            limit.hosts.push((h.clone(), rate));
        }
    }
    Ok((limit, host))
}

/// The report's file (`-o`), checked before anything is read; `None` for stdout.
fn report_file(args: &AnalyzeArgs) -> Result<Option<output::OutputFile>, Error> {
    let Some(p) = args.output.as_deref().filter(|p| !output::is_stdout(p)) else {
        return Ok(None);
    };
    let rules = output::Rules {
        flag: "-o",
        inputs: &args.files,
        force: args.force,
    };
    output::prepare(p, &rules).map(Some).map_err(Error::fatal)
}

/// `--host` names a host of the inputs (else the error lists theirs).
fn host_in(report: &crate::report::Report, h: &str) -> Result<(), Error> {
    let hosts = &report.summary.hosts;
    if hosts.iter().any(|c| c.host.eq_ignore_ascii_case(h)) {
        return Ok(());
    }
    let names: Vec<&str> = hosts.iter().map(|c| c.host.as_str()).take(10).collect();
    Err(Error::fatal(format!(
        "--host {h}: no request to that host in the inputs; their hosts: {}",
        names.join(", ")
    )))
}

/// How the report is drawn: colour and width for a table, row caps unless `--all`.
fn style(format: ReportFormat, args: &AnalyzeArgs, env: &Env, to_file: bool) -> Style {
    let max_rows = (!args.all).then_some(50);
    match format {
        ReportFormat::Table => Style {
            color: env.color(args.color, to_file),
            width: env.width(!to_file),
            max_rows,
        },
        // A page holds more rows than a terminal; still capped (render::html::MAX_ROWS).
        ReportFormat::Html => Style {
            max_rows: (!args.all).then_some(500),
            ..Style::default()
        },
        _ => Style {
            max_rows,
            ..Style::default()
        },
    }
}

/// Read and analyse the inputs to their end, with progress bars for big inputs.
fn read_all(
    files: &[String],
    mut opts: ingest::Options,
    limit: GivenLimits,
    rec_opts: &crate::recommend::Options,
    env: &Env,
    ui: Notices,
) -> crate::report::Report {
    let bars = if ui.quiet {
        None
    } else {
        progress_bars(files, env.stderr_terminal)
    };
    if let Some((_, bars)) = &bars {
        let bars = bars.clone();
        opts.progress = Some(std::sync::Arc::new(move |path: &str, n: u64| {
            if let Some(b) = bars.get(path) {
                b.inc(n);
            }
        }));
    }
    let report = analyze_files(files, &opts, &AnalyzeOptions { limit }, rec_opts);
    if let Some((multi, bars)) = bars {
        for b in bars.values() {
            b.finish_and_clear();
        }
        let _ = multi.clear();
    }
    report
}

/// Exit 1 when a `--fail-on` condition holds (each one that holds is named on stderr), else 0.
pub fn gate_status(
    gates: &[crate::compare::gate::FailOn],
    holds: impl Fn(&crate::compare::gate::FailOn) -> bool,
    ui: Notices,
) -> i32 {
    let held: Vec<String> = gates
        .iter()
        .filter(|g| holds(g))
        .map(|g| g.spec())
        .collect();
    if held.is_empty() {
        return 0;
    }
    ui.note(format_args!(
        "--fail-on {}: holds (exit 1)",
        held.join(", ")
    ));
    1
}

/// The config directories to write for `--emit-config DIR`: the one plan into DIR; several
/// plans (one per rate-limited host) into DIR/<host>/ each; `--host NAME` picks one plan and
/// writes it into DIR. A host without a known limit is skipped with a warning.
fn config_sets(
    report: &crate::report::Report,
    dir: &std::path::Path,
    host: Option<&str>,
    ui: Notices,
) -> Result<Vec<(std::path::PathBuf, crate::recommend::config::Policy)>, Error> {
    use crate::recommend::config::Policy;
    let plans = render::verdict::plans(report);
    let named = |r: &crate::recommend::Recommendation| r.host.clone().unwrap_or_default();
    if plans.is_empty() {
        return Err(Error::fatal(
            "--emit-config: no rate-limited response and no --limit: nothing to recommend; pass --limit to write config files",
        ));
    }
    if let Some(h) = host {
        let Some(r) = plans.iter().find(|r| named(r).eq_ignore_ascii_case(h)) else {
            let hosts: Vec<String> = plans.iter().map(|r| named(r)).collect();
            return Err(Error::fatal(format!(
                "--host {h}: no plan for that host; the plans are for: {}",
                hosts.join(", ")
            )));
        };
        let p = Policy::from_recommendation(r)
            .map_err(|e| Error::fatal(format!("--emit-config (--host {h}): {e}")))?;
        return Ok(vec![(dir.to_path_buf(), p)]);
    }
    if plans.len() == 1 {
        let p = Policy::from_recommendation(plans[0])
            .map_err(|e| Error::fatal(format!("--emit-config: {e}")))?;
        return Ok(vec![(dir.to_path_buf(), p)]);
    }
    let mut sets = Vec::new();
    for r in &plans {
        let h = named(r);
        match Policy::from_recommendation(r) {
            Ok(p) => sets.push((dir.join(host_dir_name(&h)), p)),
            Err(e) => ui.warn(format_args!(
                "--emit-config: no config for {h}: {e} (--host {h} --limit RATE writes it)"
            )),
        }
    }
    if sets.is_empty() {
        return Err(Error::fatal(
            "--emit-config: no rate-limited host has a known limit: pass --limit (with --host NAME for one host)",
        ));
    }
    ui.note(format_args!(
        "{} hosts have their own plan: one config directory each under {dir} (--host NAME writes one host's into {dir} itself)",
        sets.len(),
        dir = dir.display()
    ));
    Ok(sets)
}

/// A host name as one safe directory name: letters, digits, `.`, `-` and `_` kept, anything
/// else (`:`, `[`, `/`) becomes `_`; never empty, never `.`/`..` or hidden.
pub fn host_dir_name(host: &str) -> String {
    let mut s: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || host == crate::http::url::NO_HOST {
        s = "no-host".into();
    }
    if s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// Inputs smaller than this are read without a progress display.
const PROGRESS_MIN_BYTES: u64 = 64 * 1024 * 1024;

/// One progress bar per input file on stderr, only when stderr is a terminal and the inputs
/// are big enough to take a while (stdout stays clean for the report).
fn progress_bars(
    files: &[String],
    stderr_terminal: bool,
) -> Option<(
    indicatif::MultiProgress,
    std::sync::Arc<std::collections::HashMap<String, indicatif::ProgressBar>>,
)> {
    if !stderr_terminal {
        return None;
    }
    let sizes: Vec<(String, u64)> = files
        .iter()
        .filter(|f| *f != "-")
        .filter_map(|f| std::fs::metadata(f).ok().map(|m| (f.clone(), m.len())))
        .collect();
    if sizes.iter().map(|(_, n)| n).sum::<u64>() < PROGRESS_MIN_BYTES {
        return None;
    }
    let multi = indicatif::MultiProgress::new();
    let style = indicatif::ProgressStyle::with_template(
        "{msg:30!} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} {eta}",
    )
    .ok()?;
    let bars = sizes
        .into_iter()
        .map(|(f, n)| {
            let b = multi.add(indicatif::ProgressBar::new(n));
            b.set_style(style.clone());
            b.set_message(f.clone());
            (f, b)
        })
        .collect();
    Some((multi, std::sync::Arc::new(bars)))
}

/// A JSON-lines input in which nothing mapped to a status is an error: every record would be
/// "no response", and the report a clean "0 rate-limited" that means nothing.
pub fn refuse_unmapped(inputs: &[crate::report::InputSummary]) -> Result<(), Error> {
    let bad: Vec<String> = inputs
        .iter()
        .filter_map(|s| s.no_status.as_ref().map(|m| format!("{}: {m}", s.source)))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::fatal(bad.join("\ntoomany: error: ")))
}

/// Records whose URL names no host are grouped under [`crate::http::url::NO_HOST`]: say how many
/// and why, once.
fn warn_no_host(report: &crate::report::Report, ui: Notices) {
    let no_host = crate::http::url::NO_HOST;
    if let Some(h) = report.summary.hosts.iter().find(|h| h.host == no_host) {
        ui.warn(format_args!(
            "{} of {} requests name no host (their URLs are paths only, as in an access log \
             without $host): they are reported under \"{no_host}\"; for an access log, a \
             --log-format with $host names it",
            h.requests, report.summary.requests
        ));
    }
}

/// Input errors and warnings go to stderr, once, each with its file and entry/line.
/// An input that could not be fully read is an error (printed even with `--quiet`).
pub fn report_input_problems(inputs: &[crate::report::InputSummary], ui: Notices) {
    for s in inputs {
        if let Some(e) = &s.error {
            eprintln!("toomany: {}: {e}", s.source);
        }
        if let Some(i) = &s.incomplete {
            ui.warn(format_args!("{}: {}", s.source, i.message));
        }
        const SHOWN: usize = 5;
        for w in s.warnings.iter().take(SHOWN) {
            ui.warn(w);
        }
        if s.warning_count > SHOWN {
            ui.warn(format_args!(
                "{}: {} more warnings (the JSON report lists the first {})",
                s.source,
                s.warning_count - SHOWN,
                ingest::KEPT_WARNINGS
            ));
        }
        if let Some(t) = &s.traces {
            ui.note(format_args!(
                "{}: {} spans in {} traces: {} HTTP attempts read, {} spans without HTTP attributes skipped",
                s.source, t.spans, t.traces, t.http_spans, t.not_http
            ));
            for l in &t.lacks {
                ui.note(format_args!("{}: trace: {l}", s.source));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::host_dir_name;

    #[test]
    fn host_directories_are_safe_names() {
        assert_eq!(host_dir_name("api.example.com"), "api.example.com");
        assert_eq!(host_dir_name("API.Example.com"), "api.example.com");
        assert_eq!(host_dir_name("[::1]"), "___1_");
        assert_eq!(host_dir_name(".."), "_..");
        assert_eq!(host_dir_name("a/../b"), "a_.._b");
        assert_eq!(host_dir_name(""), "no-host");
        assert_eq!(host_dir_name(crate::http::url::NO_HOST), "no-host");
    }
}

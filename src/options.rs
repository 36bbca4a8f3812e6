//! Settings from flags, environment and terminals, in one place (ripgrep's
//! `HiArgs::from_low_args`): [`crate::cli`] parses the command line, this module turns what it
//! parsed into the library's typed options, and the commands run the library with them.
//!
//! The environment and the terminals are read once, into an [`Env`] (`main` captures it; tests
//! build their own), so nothing below this module reads an environment variable or asks
//! whether a stream is a terminal, and nothing below it sees clap.

use crate::cli::{self, ColorChoice, InputArgs, ReportFormat};
use crate::ingest;
use crate::limiter::headers;
use crate::redact::Redactor;
use crate::render;
use std::fmt;

/// A flag's value that cannot be used: the message names the flag (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// What the process's environment and terminals say, read once ([`Env::capture`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `NO_COLOR` is set to something (an empty value does not count, as no-color.org says).
    pub no_color: bool,
    /// `COLUMNS`, as set.
    pub columns: Option<String>,
    pub stdout_terminal: bool,
    pub stderr_terminal: bool,
    /// The width of the terminal stdout writes to, when it is one.
    pub terminal_width: Option<u16>,
    /// `SOURCE_DATE_EPOCH` (reproducible builds), as set: the man pages' date.
    pub source_date_epoch: Option<String>,
    /// `PAGER`, as set.
    pub pager: Option<String>,
}

impl Env {
    /// The environment and terminals of this process.
    pub fn capture() -> Env {
        use std::io::IsTerminal;
        let stdout_terminal = std::io::stdout().is_terminal();
        Env {
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            columns: std::env::var("COLUMNS").ok(),
            stdout_terminal,
            stderr_terminal: std::io::stderr().is_terminal(),
            terminal_width: stdout_terminal
                .then(|| terminal_size::terminal_size().map(|(w, _)| w.0))
                .flatten(),
            source_date_epoch: std::env::var("SOURCE_DATE_EPOCH").ok(),
            pager: std::env::var("PAGER").ok(),
        }
    }

    /// The pager for a report written to stdout (`to_file`: it is not), as git chooses one:
    /// none with `--no-pager`, when stdout is not a terminal, or when `PAGER` is empty or
    /// `cat`; else `PAGER`, else `less` (run with `LESS=FRX` when `LESS` is unset: quit when the
    /// text fits one screen, colours passed through, the screen left as it was).
    pub fn pager(&self, no_pager: bool, to_file: bool) -> Option<String> {
        if no_pager || to_file || !self.stdout_terminal {
            return None;
        }
        match self.pager.as_deref().map(str::trim) {
            Some("") | Some("cat") => None,
            Some(p) => Some(p.to_string()),
            None => Some("less".to_string()),
        }
    }

    /// Colour in a table for `--color WHEN` (`None`: auto). Auto is on when stdout is a
    /// terminal and `NO_COLOR` is unset; a report written to a file is coloured only when
    /// asked for (`always`).
    pub fn color(&self, choice: Option<ColorChoice>, to_file: bool) -> bool {
        match choice {
            Some(ColorChoice::Always) => true,
            Some(ColorChoice::Never) => false,
            None | Some(ColorChoice::Auto) => !to_file && !self.no_color && self.stdout_terminal,
        }
    }

    /// Columns for a terminal table: the terminal's (when writing to it), else `COLUMNS`, else
    /// 80.
    pub fn width(&self, to_terminal: bool) -> usize {
        let terminal = if to_terminal {
            self.terminal_width
        } else {
            None
        };
        render::resolve_width(terminal, self.columns.as_deref())
    }
}

/// Ingestion's options from the input flags, and what to warn about them.
pub struct Input {
    pub options: ingest::Options,
    pub warnings: Vec<Warning>,
}

/// Typed ingestion options from the shared input flags: `--map` pairs checked, the fingerprint
/// key read, `--log-format` compiled; `-j N` also sizes the global thread pool.
pub fn input(args: &InputArgs) -> Result<Input, UsageError> {
    let mut field_map = Vec::new();
    for m in &args.maps {
        match m.split_once('=') {
            Some((canon, path)) if !canon.trim().is_empty() && !path.trim().is_empty() => {
                field_map.push((canon.trim().to_string(), path.trim().to_string()))
            }
            _ => {
                return Err(UsageError(format!(
                    "--map {m:?}: expected CANONICAL=PATH, e.g. --map time=meta.ts"
                )))
            }
        }
    }
    let warnings = unknown_canonical(&field_map);
    let redactor = match &args.fingerprint_key_file {
        Some(p) => {
            let bytes = std::fs::read(p)
                .map_err(|e| UsageError(format!("--fingerprint-key-file {}: {e}", p.display())))?;
            if bytes.len() < 16 {
                return Err(UsageError(format!(
                    "--fingerprint-key-file {}: the key must be at least 16 bytes (e.g. `head -c 32 /dev/urandom > key`)",
                    p.display()
                )));
            }
            Redactor::from_key_material(&bytes)
        }
        None => Redactor::random(),
    };
    let log_format = match &args.log_format {
        Some(spec) => Some(std::sync::Arc::new(
            ingest::access::format::compile_user(spec)
                .map_err(|e| UsageError(format!("--log-format: {e}")))?,
        )),
        None => None,
    };
    let threads = args.threads.map(usize::from);
    if let Some(n) = threads {
        // The analysis's own parallel parts use the global pool; it can be sized only once,
        // before first use (a second call in the same process keeps the first size).
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
    let options = ingest::Options {
        format: args.input_format.map(ingest::Format::from),
        field_map,
        log_format,
        redactor,
        progress: None,
        threads,
        piece: None,
        on_format: None,
        request_ids: false,
    };
    Ok(Input { options, warnings })
}

/// `--map NAME=PATH` with a NAME the JSON-lines reader has no field for does nothing: say so,
/// once per name, with the near canonical name when there is one.
fn unknown_canonical(field_map: &[(String, String)]) -> Vec<Warning> {
    use ingest::fieldmap::{suggest, CANONICAL};
    let mut warned: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (canon, path) in field_map {
        if CANONICAL.contains(&canon.as_str()) || warned.contains(&canon.as_str()) {
            continue;
        }
        warned.push(canon);
        out.push(Warning::NotCanonical {
            name: canon.clone(),
            path: path.clone(),
            near: suggest(canon).map(str::to_string),
        });
    }
    out
}

/// A flag that is accepted but does nothing here, with the advice that goes with it: said once
/// on stderr (`toomany: warning: ...`), never silently ignored. (hyperfine's
/// `output/warnings.rs`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// `--all` with a format that lists every row anyway.
    AllListsEverything { format: String },
    /// `--color` with a format that has no colour.
    OnlyTablesAreColoured { format: String },
    /// `--map NAME=PATH` with a NAME the JSON-lines reader has no field for; `near`: the
    /// canonical name it is closest to.
    NotCanonical {
        name: String,
        path: String,
        near: Option<String>,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::AllListsEverything { format } => write!(
                f,
                "--all has no effect with --format {format}: it lists every rate-limited response"
            ),
            Warning::OnlyTablesAreColoured { format } => write!(
                f,
                "--color has no effect with --format {format}: only the table format is coloured"
            ),
            Warning::NotCanonical { name, path, near } => {
                write!(f, "--map {name}={path}: {name} is not a canonical field, so this mapping does nothing")?;
                if let Some(s) = near {
                    write!(f, " (did you mean --map {s}={path}?)")?;
                }
                write!(
                    f,
                    "; canonical fields: {}",
                    ingest::fieldmap::CANONICAL.join(", ")
                )
            }
        }
    }
}

/// `-o FILE`'s extension -> the report format, when --format is not given. An extension not
/// listed is an error: a table silently written to `report.csv` looks like a broken export.
/// (A new format adds its row here.)
const REPORT_EXTENSIONS: &[(&str, ReportFormat)] = &[
    ("json", ReportFormat::Json),
    ("md", ReportFormat::Markdown),
    ("markdown", ReportFormat::Markdown),
    ("html", ReportFormat::Html),
    ("htm", ReportFormat::Html),
    ("txt", ReportFormat::Table),
    ("text", ReportFormat::Table),
    ("csv", ReportFormat::Csv),
    ("ndjson", ReportFormat::Ndjson),
    ("jsonl", ReportFormat::Ndjson),
];

/// The report format: `--format`, else `-o FILE`'s extension, else the table.
pub fn report_format(
    format: Option<ReportFormat>,
    output: Option<&std::path::Path>,
) -> Result<ReportFormat, UsageError> {
    if let Some(f) = format {
        return Ok(f);
    }
    let Some(path) = output.filter(|p| !crate::output::is_stdout(p)) else {
        return Ok(ReportFormat::Table);
    };
    let Some(ext) = path.extension() else {
        return Ok(ReportFormat::Table);
    };
    let ext = ext.to_string_lossy().to_ascii_lowercase();
    match REPORT_EXTENSIONS.iter().find(|(e, _)| *e == ext) {
        Some(&(_, f)) => Ok(f),
        None => {
            let known: Vec<String> = REPORT_EXTENSIONS
                .iter()
                .map(|(e, _)| format!(".{e}"))
                .collect();
            Err(UsageError(format!(
                "-o {}: no report format is known by the extension `.{ext}` (known: {}); rename \
                 the file or give --format",
                path.display(),
                known.join(", ")
            )))
        }
    }
}

/// Flags the chosen format does not read: said once on stderr rather than silently ignored,
/// so a user who asked for every row in a CSV knows it already has them.
pub fn no_effect(format: ReportFormat, all: bool, color: Option<ColorChoice>) -> Vec<Warning> {
    let name = format!("{format:?}").to_lowercase();
    let mut out = Vec::new();
    if all
        && matches!(
            format,
            ReportFormat::Json | ReportFormat::Csv | ReportFormat::Ndjson
        )
    {
        out.push(Warning::AllListsEverything {
            format: name.clone(),
        });
    }
    if color.is_some() && format != ReportFormat::Table {
        out.push(Warning::OnlyTablesAreColoured { format: name });
    }
    out
}

/// The comparison's format: `--format`, else `-o FILE`'s extension (.json, .md, .txt), else
/// the table.
pub fn compare_format(
    format: Option<cli::CompareFormat>,
    output: Option<&std::path::Path>,
) -> Result<cli::CompareFormat, UsageError> {
    use cli::CompareFormat;
    match format {
        Some(f) => Ok(f),
        None => match output.filter(|p| !crate::output::is_stdout(p)) {
            None => Ok(CompareFormat::Table),
            Some(p) => match p
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .as_deref()
            {
                Some("json") => Ok(CompareFormat::Json),
                Some("md") | Some("markdown") => Ok(CompareFormat::Markdown),
                Some("txt") | None => Ok(CompareFormat::Table),
                Some(other) => Err(UsageError(format!(
                    "-o {}: compare writes .json, .md or .txt (a table), not .{other}; pass --format to choose",
                    p.display()
                ))),
            },
        },
    }
}

impl From<cli::InputFormat> for ingest::Format {
    fn from(f: cli::InputFormat) -> Self {
        use cli::InputFormat as C;
        use ingest::Format as F;
        match f {
            C::Har => F::Har,
            C::Jsonl => F::Jsonl,
            C::Nginx => F::Nginx,
            C::Clf => F::Clf,
            C::Envoy => F::Envoy,
            C::Alb => F::Alb,
            C::Cloudfront => F::Cloudfront,
            C::W3c => F::W3c,
            C::Haproxy => F::Haproxy,
            C::Cloudflare => F::Cloudflare,
            C::Kong => F::Kong,
            C::Traefik => F::Traefik,
            C::Caddy => F::Caddy,
            C::GcpLb => F::GcpLb,
            C::Otlp => F::Otlp,
            C::Jaeger => F::Jaeger,
        }
    }
}

impl From<cli::ReportFormat> for render::Format {
    fn from(f: cli::ReportFormat) -> Self {
        use cli::ReportFormat as C;
        match f {
            C::Table => render::Format::Table,
            C::Json => render::Format::Json,
            C::Markdown => render::Format::Markdown,
            C::Html => render::Format::Html,
            C::Csv => render::Format::Csv,
            C::Ndjson => render::Format::Ndjson,
        }
    }
}

impl From<cli::HeaderStyle> for headers::HeaderStyle {
    fn from(s: cli::HeaderStyle) -> Self {
        match s {
            cli::HeaderStyle::Ietf => headers::HeaderStyle::Ietf,
            cli::HeaderStyle::XRatelimit => headers::HeaderStyle::XRatelimit,
            cli::HeaderStyle::Both => headers::HeaderStyle::Both,
            cli::HeaderStyle::None => headers::HeaderStyle::None,
        }
    }
}

impl From<cli::RetryAfterStyle> for headers::RetryAfterStyle {
    fn from(s: cli::RetryAfterStyle) -> Self {
        match s {
            cli::RetryAfterStyle::Seconds => headers::RetryAfterStyle::Seconds,
            cli::RetryAfterStyle::Date => headers::RetryAfterStyle::Date,
            cli::RetryAfterStyle::Past => headers::RetryAfterStyle::Past,
            cli::RetryAfterStyle::None => headers::RetryAfterStyle::None,
        }
    }
}

impl From<cli::BodyStyle> for headers::BodyStyle {
    fn from(s: cli::BodyStyle) -> Self {
        match s {
            cli::BodyStyle::Json => headers::BodyStyle::Json,
            cli::BodyStyle::Text => headers::BodyStyle::Text,
            cli::BodyStyle::Html => headers::BodyStyle::Html,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn auto_colour_needs_a_terminal_and_no_no_color() {
        let tty = Env {
            stdout_terminal: true,
            ..Env::default()
        };
        assert!(tty.color(None, false));
        assert!(tty.color(Some(ColorChoice::Auto), false));
        assert!(!tty.color(None, true), "a file is coloured only when asked");
        assert!(tty.color(Some(ColorChoice::Always), true));
        assert!(!tty.color(Some(ColorChoice::Never), false));
        let no_color = Env {
            no_color: true,
            ..tty.clone()
        };
        assert!(!no_color.color(None, false));
        assert!(no_color.color(Some(ColorChoice::Always), false));
        assert!(!Env::default().color(None, false), "not a terminal");
    }

    #[test]
    fn the_pager_is_for_a_terminal_only_and_pager_chooses_it() {
        let tty = Env {
            stdout_terminal: true,
            ..Env::default()
        };
        assert_eq!(tty.pager(false, false).as_deref(), Some("less"));
        assert_eq!(tty.pager(true, false), None, "--no-pager");
        assert_eq!(tty.pager(false, true), None, "-o FILE");
        assert_eq!(Env::default().pager(false, false), None, "not a terminal");
        for (set, want) in [("most -s", Some("most -s")), ("cat", None), ("", None)] {
            let env = Env {
                pager: Some(set.into()),
                ..tty.clone()
            };
            assert_eq!(env.pager(false, false).as_deref(), want, "PAGER={set:?}");
        }
    }

    #[test]
    fn width_is_the_terminals_then_columns() {
        let env = Env {
            terminal_width: Some(120),
            columns: Some("100".into()),
            ..Env::default()
        };
        assert_eq!(
            env.width(true),
            render::resolve_width(Some(120), Some("100"))
        );
        assert_eq!(env.width(false), render::resolve_width(None, Some("100")));
    }

    /// Every input format the command line names is the library's format of the same name.
    #[test]
    fn cli_input_formats_are_the_librarys() {
        for v in cli::InputFormat::value_variants() {
            let name = v.to_possible_value().expect("named").get_name().to_string();
            assert_eq!(ingest::Format::from(*v).as_str(), name);
        }
    }

    /// Every format the library reads has a command-line name: the match below has no
    /// wildcard, so a new `ingest::Format` fails to compile here until `cli::InputFormat`
    /// names it too, and the round trip checks the name maps back to the same format.
    #[test]
    fn every_library_format_has_a_cli_name() {
        use cli::InputFormat as C;
        use ingest::Format as F;
        let named = |f: F| -> C {
            match f {
                F::Har => C::Har,
                F::Jsonl => C::Jsonl,
                F::Nginx => C::Nginx,
                F::Clf => C::Clf,
                F::Envoy => C::Envoy,
                F::Alb => C::Alb,
                F::Cloudfront => C::Cloudfront,
                F::W3c => C::W3c,
                F::Haproxy => C::Haproxy,
                F::Cloudflare => C::Cloudflare,
                F::Kong => C::Kong,
                F::Traefik => C::Traefik,
                F::Caddy => C::Caddy,
                F::GcpLb => C::GcpLb,
                F::Otlp => C::Otlp,
                F::Jaeger => C::Jaeger,
            }
        };
        for v in cli::InputFormat::value_variants() {
            let f = ingest::Format::from(*v);
            assert_eq!(named(f), *v, "{} maps back to another name", f.as_str());
        }
    }
}

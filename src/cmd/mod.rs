//! One file per subcommand: each turns raw CLI arguments into typed options, runs the library,
//! and hands bytes to `output`.

pub mod analyze;
pub mod calc;
pub mod check;
pub mod compare;
pub mod docs;
pub mod emit;
pub mod mock;
pub mod plan;
pub mod redact;
pub mod retry_after;
pub mod simulate;
pub mod verify;

use crate::cli::{Command, InputArgs};
use crate::console::Notices;
use crate::ingest;
use crate::redact::Redactor;
use std::fmt;

/// A failure with the exit status it maps to.
#[derive(Debug)]
pub struct Error {
    pub message: String,
    pub code: i32,
}

impl Error {
    /// Bad usage or nothing could be read: exit 2.
    pub fn fatal(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            code: 2,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a command tells `main`: the exit status when it did not fail outright.
pub type Outcome = Result<i32, Error>;

pub fn run(command: Command, ui: Notices) -> Outcome {
    match command {
        Command::Analyze(a) => analyze::run(a, ui),
        Command::Redact(a) => redact::run(a, ui),
        Command::Check(a) => check::run(a, ui),
        Command::Plan(a) => plan::run(a, ui),
        Command::Calc(a) => calc::run(a),
        Command::RetryAfter(a) => retry_after::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Mock(a) => mock::run(a, ui),
        Command::Verify(a) => verify::run(a, ui),
        Command::Compare(a) => compare::run(a, ui),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a, ui),
    }
}

/// Typed ingestion options from the shared input flags.
pub fn ingest_options(args: &InputArgs, ui: Notices) -> Result<ingest::Options, Error> {
    let mut field_map = Vec::new();
    for m in &args.maps {
        match m.split_once('=') {
            Some((canon, path)) if !canon.trim().is_empty() && !path.trim().is_empty() => {
                field_map.push((canon.trim().to_string(), path.trim().to_string()))
            }
            _ => {
                return Err(Error::fatal(format!(
                    "--map {m:?}: expected CANONICAL=PATH, e.g. --map time=meta.ts"
                )))
            }
        }
    }
    warn_unknown_canonical(&field_map, ui);
    let redactor = match &args.fingerprint_key_file {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| {
                Error::fatal(format!("--fingerprint-key-file {}: {e}", p.display()))
            })?;
            if bytes.len() < 16 {
                return Err(Error::fatal(format!(
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
                .map_err(|e| Error::fatal(format!("--log-format: {e}")))?,
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
    Ok(ingest::Options {
        format: args.input_format,
        field_map,
        log_format,
        redactor,
        progress: None,
        threads,
    })
}

/// `--map NAME=PATH` with a NAME the JSON-lines reader has no field for does nothing: say so,
/// once per name, with the near canonical name when there is one.
fn warn_unknown_canonical(field_map: &[(String, String)], ui: Notices) {
    use ingest::fieldmap::{suggest, CANONICAL};
    let mut warned: Vec<&str> = Vec::new();
    for (canon, path) in field_map {
        if CANONICAL.contains(&canon.as_str()) || warned.contains(&canon.as_str()) {
            continue;
        }
        warned.push(canon);
        let hint = suggest(canon)
            .map(|s| format!(" (did you mean --map {s}={path}?)"))
            .unwrap_or_default();
        ui.warn(format_args!(
            "--map {canon}={path}: {canon} is not a canonical field, so this mapping does nothing{hint}; canonical fields: {}",
            CANONICAL.join(", ")
        ));
    }
}

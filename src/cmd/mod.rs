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
use crate::options::Env;
use std::fmt;

/// A failure with the exit status it maps to.
#[derive(Debug)]
pub struct Error {
    pub message: String,
    pub code: i32,
}

impl Error {
    /// Bad usage or nothing could be read: exit 2.
    pub fn fatal(message: impl fmt::Display) -> Error {
        Error {
            message: message.to_string(),
            code: 2,
        }
    }
}

impl From<crate::options::UsageError> for Error {
    fn from(e: crate::options::UsageError) -> Error {
        Error::fatal(e.0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a command tells `main`: the exit status when it did not fail outright.
pub type Outcome = Result<i32, Error>;

/// Run one command; `env` is what the environment and terminals said ([`Env::capture`]),
/// `ui` where its notices go.
pub fn run(command: Command, env: &Env, ui: Notices) -> Outcome {
    match command {
        Command::Analyze(a) => analyze::run(a, env, ui),
        Command::Redact(a) => redact::run(a, ui),
        Command::Check(a) => check::run(a, ui),
        Command::Plan(a) => plan::run(a, ui),
        Command::Calc(a) => calc::run(a),
        Command::RetryAfter(a) => retry_after::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Mock(a) => mock::run(a, env, ui),
        Command::Verify(a) => verify::run(a, ui),
        Command::Compare(a) => compare::run(a, env, ui),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a, env, ui),
    }
}

/// Typed ingestion options from the shared input flags ([`crate::options::input`]); the
/// warnings about them go to `ui`.
pub fn ingest_options(args: &InputArgs, ui: Notices) -> Result<ingest::Options, Error> {
    let input = crate::options::input(args)?;
    for w in &input.warnings {
        ui.warn(w);
    }
    Ok(input.options)
}

//! What a person sees on the terminal besides the report itself: the notices on stderr (all of
//! them, or errors only with `-q`).
//!
//! Errors are printed by `main` whatever the setting; everything else a command says on stderr
//! (warnings about inputs, files written, what a config target cannot express) goes through
//! [`Notices`], so `--quiet` silences all of it in one place.

use std::fmt::Display;
use std::io::Write;

/// Where a command's warnings and notes go: stderr, unless `-q/--quiet` asked for errors only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Notices {
    /// `-q/--quiet`: errors only.
    pub quiet: bool,
}

impl Notices {
    pub fn new(quiet: bool) -> Notices {
        Notices { quiet }
    }

    /// `toomany: warning: MSG` (something the user should know; the command still succeeds).
    pub fn warn(&self, msg: impl Display) {
        self.line(format_args!("toomany: warning: {msg}"));
    }

    /// `toomany: MSG` (what was done: files written, where plans went).
    pub fn note(&self, msg: impl Display) {
        self.line(format_args!("toomany: {msg}"));
    }

    /// A line as given (a located warning with its own prefix).
    pub fn line(&self, msg: impl Display) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr().lock(), "{msg}");
        }
    }
}

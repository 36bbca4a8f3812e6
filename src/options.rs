//! Settings from flags, environment and terminal: the one place below the commands that reads
//! the environment or asks whether a stream is a terminal, so the stages under it never do.

use crate::cli::ColorChoice;

/// Should colour be used on stdout? `auto` = a terminal and `NO_COLOR` unset.
pub fn use_color(choice: ColorChoice) -> bool {
    use std::io::IsTerminal;
    use ColorChoice::*;
    match choice {
        Always => true,
        Never => false,
        Auto => {
            std::env::var_os("NO_COLOR")
                .map(|v| v.is_empty())
                .unwrap_or(true)
                && std::io::stdout().is_terminal()
        }
    }
}

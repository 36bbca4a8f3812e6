//! Thin binary: parse the command line, dispatch, map errors to exit codes.

use clap::Parser;
use toomany::cli::Cli;

fn main() {
    let cli = Cli::parse();
    let code = match toomany::cmd::run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toomany: error: {e}");
            e.code
        }
    };
    std::process::exit(code);
}

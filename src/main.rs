//! Thin binary: parse the command line, dispatch, map errors to exit codes.

use clap::Parser;
use toomany::cli::Cli;

/// Ingestion allocates and frees a few short strings per field of every record; glibc's malloc
/// spent ~30 % of the CPU of a JSON-lines analysis on that, mimalloc a fraction of it
/// (docs/decisions.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

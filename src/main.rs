//! Thin binary: parse the command line, dispatch, map errors to exit codes.

use clap::Parser;
use toomany::cli::Cli;

/// Ingestion allocates and frees a few short strings per field of every record; glibc's malloc
/// spent ~30 % of the CPU of a JSON-lines analysis on that, mimalloc a fraction of it
/// (docs/decisions.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` (mimalloc's `mi_option_t` 15, the same in its v2 and v3): how long
/// freed memory stays committed before it goes back to the system. The default of the v3 this
/// links (1000 ms) kept 20–60 % more resident memory on big inputs; 0 gave it back at once but
/// faulted and zeroed it again (access log: 170k minor faults, 2.0 system CPU-s); 10 ms keeps
/// the same peaks and halves that (docs/decisions.md).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const PURGE_DELAY_MS: std::os::raw::c_long = 10;

/// No transparent huge pages for this process (what `MIMALLOC_ALLOW_THP=0` does, which acts
/// only when mimalloc starts, before `main`). With 2 MiB pages every page mimalloc takes back
/// and reuses is faulted and zeroed again 2 MiB at a time: 9 % of a JSON-lines run's CPU was
/// that zeroing, and the peaks were 30–45 % higher (docs/decisions.md, "Allocator").
#[cfg(target_os = "linux")]
fn disable_huge_pages() {
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integer arguments and only sets a flag
    // of this process; a kernel that does not know it returns an error, which changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn disable_huge_pages() {}

fn main() {
    // Before any thread starts (mi_option_set is not thread-safe). An explicit
    // MIMALLOC_PURGE_DELAY or MIMALLOC_ALLOW_THP in the environment still wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain setter of a process-wide integer option, called while single-threaded.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        disable_huge_pages();
    }
    let cli = Cli::parse();
    let env = toomany::options::Env::capture();
    let ui = toomany::console::Notices::new(cli.quiet);
    let code = match toomany::cmd::run(cli.command, &env, ui) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toomany: error: {e}");
            e.code
        }
    };
    std::process::exit(code);
}

//! `toomany completions SHELL` and `toomany man`: shell completion scripts and roff man pages
//! generated from the parser's own clap definitions (clap_complete, clap_mangen), so they
//! cannot drift from the flags.

use super::{Error, Outcome};
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::options::Env;
use crate::output;
use clap::CommandFactory;

pub fn completions(args: CompletionsArgs) -> Outcome {
    let mut cmd = Cli::command();
    let mut buf: Vec<u8> = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "toomany", &mut buf);
    output::to_stdout(&buf).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

/// Every page: `toomany.1`, then `toomany-COMMAND.1` for each subcommand (as git names its
/// pages), as (file name, roff).
pub fn pages(env: &Env) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut root = Cli::command().disable_help_subcommand(true);
    // Building names the subcommands `toomany-analyze` etc. (their display names).
    root.build();
    let date = page_date(env.source_date_epoch.as_deref());
    let mut out = vec![page(root.clone(), &date)?];
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        out.push(page(sub.clone(), &date)?);
    }
    Ok(out)
}

/// The page date: `SOURCE_DATE_EPOCH` when set (reproducible builds: packagers set it), else
/// today, as help2man does. (Also needed by the layout: clap_mangen writes an empty date
/// unquoted, which shifts the `.TH` fields and loses the manual's name.)
fn page_date(source_date_epoch: Option<&str>) -> String {
    let epoch = source_date_epoch
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0));
    epoch
        .unwrap_or_else(chrono::Utc::now)
        .format("%Y-%m-%d")
        .to_string()
}

fn page(cmd: clap::Command, date: &str) -> Result<(String, Vec<u8>), Error> {
    let man = clap_mangen::Man::new(cmd.version(env!("CARGO_PKG_VERSION")))
        .date(date)
        .manual("toomany manual")
        .source(format!("toomany {}", env!("CARGO_PKG_VERSION")));
    let mut buf: Vec<u8> = Vec::new();
    man.render(&mut buf)
        .map_err(|e| Error::fatal(format!("cannot render the man page: {e}")))?;
    Ok((man.get_filename(), buf))
}

pub fn man(args: ManArgs, env: &Env, ui: crate::console::Notices) -> Outcome {
    let pages = pages(env)?;
    if let Some(dir) = &args.dir {
        return write_pages(dir, &pages, args.force, ui);
    }
    let want = match &args.command {
        None => "toomany.1".to_string(),
        Some(name) => format!("toomany-{name}.1"),
    };
    let Some((_, roff)) = pages.iter().find(|(f, _)| *f == want) else {
        let names: Vec<&str> = pages
            .iter()
            .filter_map(|(f, _)| f.strip_prefix("toomany-")?.strip_suffix(".1"))
            .collect();
        return Err(Error::fatal(format!(
            "man {}: no such command; one of: {}",
            args.command.as_deref().unwrap_or_default(),
            names.join(", ")
        )));
    };
    output::to_stdout(roff).map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?;
    Ok(0)
}

/// `--dir DIR`: every page, all or none (an existing page only with --force).
fn write_pages(
    dir: &std::path::Path,
    pages: &[(String, Vec<u8>)],
    force: bool,
    ui: crate::console::Notices,
) -> Outcome {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::fatal(format!(
                "--dir {}: exists and is not a directory; give a directory (it is created when missing)",
                dir.display()
            )))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir_all(dir)
            .map_err(|e| Error::fatal(format!("--dir {}: cannot create it: {e}", dir.display())))?,
        Err(e) => return Err(Error::fatal(format!("--dir {}: {e}", dir.display()))),
    }
    let rules = output::Rules {
        flag: "--dir",
        inputs: &[],
        force,
    };
    let files = pages
        .iter()
        .map(|(name, _)| output::prepare(&dir.join(name), &rules).map_err(Error::fatal))
        .collect::<Result<Vec<_>, _>>()?;
    let set: Vec<(&output::OutputFile, &[u8])> = files
        .iter()
        .zip(pages)
        .map(|(f, (_, roff))| (f, roff.as_slice()))
        .collect();
    output::write_set(&set).map_err(Error::fatal)?;
    ui.note(format_args!(
        "wrote {} man pages to {}",
        pages.len(),
        dir.display()
    ));
    Ok(0)
}

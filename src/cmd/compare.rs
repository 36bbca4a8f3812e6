//! `toomany compare BEFORE… --against AFTER…`: both sides read with the same options and one
//! fingerprint key (so a credential has the same fingerprint on both), analysed alike, compared.

use super::analyze::{gate_status, refuse_unmapped, report_input_problems};
use super::{ingest_options, Error, Outcome};
use crate::analyze::{analyze_with, merge_inputs, AnalyzeOptions};
use crate::cli::{CompareArgs, CompareFormat};
use crate::compare::{self, gate};
use crate::ingest;
use crate::options::Env;
use crate::output;
use crate::render::{self, Style};
use crate::units::GivenLimits;

pub fn run(args: CompareArgs, env: &Env, ui: crate::console::Notices) -> Outcome {
    let opts = ingest_options(&args.input, ui)?;
    let limit = GivenLimits::parse(&args.limit).map_err(|e| Error::fatal(e.0))?;
    let gates = gate::parse_all(&args.fail_on, true).map_err(Error::fatal)?;
    let stdin_uses = args
        .before
        .iter()
        .chain(&args.against)
        .filter(|p| *p == "-")
        .count();
    if stdin_uses > 1 {
        return Err(Error::fatal(
            "`-` (stdin) can be read once: give at most one side as `-`",
        ));
    }
    // An unknown extension is reported after the output checks (writing over an input is the
    // more important thing to hear about).
    let format = crate::options::compare_format(args.format, args.output.as_deref());
    let all_inputs: Vec<String> = args.before.iter().chain(&args.against).cloned().collect();
    let report_file = match args.output.as_deref().filter(|p| !output::is_stdout(p)) {
        Some(p) => Some(
            output::prepare(
                p,
                &output::Rules {
                    flag: "-o",
                    inputs: &all_inputs,
                    force: args.force,
                },
            )
            .map_err(Error::fatal)?,
        ),
        None => None,
    };
    let format = format?;
    if args.color.is_some() && format != CompareFormat::Table {
        ui.warn(crate::options::Warning::OnlyTablesAreColoured {
            format: format!("{format:?}").to_lowercase(),
        });
    }

    let rec_opts = crate::recommend::Options {
        limit: limit.clone(),
        ..Default::default()
    };
    let before = read_side("BEFORE", &args.before, &opts, &limit, &rec_opts, ui)?;
    let after = read_side("AFTER", &args.against, &opts, &limit, &rec_opts, ui)?;
    let comparison = compare::compare(before, after);

    let bytes = match format {
        CompareFormat::Json => render::compare::json(&comparison),
        CompareFormat::Markdown => render::compare::markdown(&comparison),
        CompareFormat::Table => render::compare::table(
            &comparison,
            Style {
                color: env.color(args.color, report_file.is_some()),
                width: env.width(report_file.is_none()),
                max_rows: None,
            },
        ),
    };
    match &report_file {
        Some(f) => f.write(&bytes).map_err(Error::fatal)?,
        None => output::to_stdout(&bytes)
            .map_err(|e| Error::fatal(format!("cannot write to stdout: {e}")))?,
    }
    Ok(gate_status(&gates, |g| compare::fails(g, &comparison), ui))
}

/// One side read and analysed: its figures and findings.
fn read_side(
    name: &str,
    given: &[String],
    opts: &ingest::Options,
    limit: &GivenLimits,
    rec_opts: &crate::recommend::Options,
    ui: crate::console::Notices,
) -> Result<compare::Side, Error> {
    // A repeated input is read once on its side (counted twice, it doubles every rate).
    let (files, repeats) = ingest::source::distinct_inputs(given);
    for r in &repeats {
        ui.warn(&r.note);
    }
    let inputs = ingest::read_inputs(&files, opts);
    let summaries: Vec<_> = inputs.iter().map(|i| i.summary.clone()).collect();
    report_input_problems(&summaries, ui);
    if !inputs.iter().any(|i| i.summary.records > 0) {
        return Err(Error::fatal(format!(
            "nothing could be read from the {name} inputs (see the messages above)"
        )));
    }
    refuse_unmapped(&summaries)?;
    let (summaries, requests) = merge_inputs(inputs);
    let report = analyze_with(
        summaries,
        &requests,
        &AnalyzeOptions {
            limit: limit.clone(),
        },
        rec_opts,
    );
    Ok(compare::side(files, &requests, &report))
}

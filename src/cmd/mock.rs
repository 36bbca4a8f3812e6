//! `toomany mock`: check every flag (and the log path) before binding, bind, print the address,
//! serve, then write the log.
//!
//! The log streams into a temp file beside the target while the mock runs (flushed per line) and
//! lands at `--log` through `output` when the mock stops — atomically, never over something the
//! user did not ask to replace. A FIFO, terminal or `-` gets the lines as they happen.

use super::{Error, Outcome};
use crate::cli::MockArgs;
use crate::mock::fault::{Fault, Faults};
use crate::mock::policy::{Cost, Key, Limit};
use crate::mock::preset::{self, Preset};
use crate::mock::{self, LogSink, Options, Shape};
use crate::options::Env;
use crate::output;
use crate::units::parse_duration_ms;
use std::io::{Seek, Write};
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

fn duration(flag: &str, v: &str, max_ms: f64) -> Result<Duration, Error> {
    let ms = parse_duration_ms(v).map_err(|e| Error::fatal(format!("{flag}: {e}")))?;
    if !(0.0..=max_ms).contains(&ms) {
        return Err(Error::fatal(format!("{flag} {v:?}: out of range")));
    }
    Ok(Duration::from_secs_f64(ms / 1000.0))
}

/// `8080`, `localhost:8080`, `127.0.0.1:0`, `[::1]:0`.
fn address(v: &str) -> Result<SocketAddr, Error> {
    let v = v.trim();
    let with_host = if v.chars().all(|c| c.is_ascii_digit()) {
        format!("127.0.0.1:{v}")
    } else {
        v.to_string()
    };
    let mut addrs = with_host.to_socket_addrs().map_err(|e| {
        Error::fatal(format!(
            "--listen {v:?}: {e}; give ADDRESS:PORT, e.g. 127.0.0.1:0 or 127.0.0.1:8080"
        ))
    })?;
    // Prefer IPv4 loopback when a name resolves to several.
    let all: Vec<SocketAddr> = addrs.by_ref().collect();
    all.iter()
        .find(|a| a.is_ipv4())
        .or(all.first())
        .copied()
        .ok_or_else(|| Error::fatal(format!("--listen {v:?}: resolves to no address")))
}

enum Log {
    None,
    /// Lines go straight to stdout or a device/FIFO.
    Live(Box<dyn LogSink>),
    /// Lines go to a temp file, copied to the target at the end.
    Staged {
        target: output::OutputFile,
        temp: tempfile::NamedTempFile,
    },
}

fn open_log(args: &MockArgs) -> Result<Log, Error> {
    let Some(path) = &args.log else {
        return Ok(Log::None);
    };
    if output::is_stdout(path) {
        return Ok(Log::Live(Box::new(std::io::LineWriter::new(
            std::io::stdout(),
        ))));
    }
    let target = output::prepare(
        path,
        &output::Rules {
            flag: "--log",
            inputs: &[],
            force: args.force,
        },
    )
    .map_err(Error::fatal)?;
    if target.in_place() {
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::fatal(format!("--log {}: {e}", path.display())))?;
        return Ok(Log::Live(Box::new(std::io::LineWriter::new(f))));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(".toomany-mock-")
        .suffix(".jsonl.partial")
        .tempfile_in(dir)
        .map_err(|e| {
            Error::fatal(format!(
                "--log {}: cannot create a file beside it: {e}",
                path.display()
            ))
        })?;
    Ok(Log::Staged { target, temp })
}

/// Give repeated generic limits distinct names (`fixed-window`, `fixed-window-2`).
fn unique_names(limits: &mut [Limit]) {
    for i in 1..limits.len() {
        let base = limits[i].name.clone();
        let mut n = 1;
        while limits[..i].iter().any(|l| l.name == limits[i].name) {
            n += 1;
            limits[i].name = format!("{base}-{n}");
        }
    }
}

/// A preset's limits with `--limit NAME=…` (or, for a one-limit preset, a bare `--limit …`)
/// applied.
fn preset_limits(p: &Preset, overrides: &[String]) -> Result<Vec<Limit>, Error> {
    let mut limits = p.limits();
    let names = || limits_named(p);
    for o in overrides {
        let named = o
            .split_once('=')
            .filter(|(n, _)| p.limit(n.trim()).is_some());
        let (i, text) = match named {
            Some((n, rest)) => (p.limits.iter().position(|l| l.name == n.trim()).unwrap_or(0), rest),
            None if p.limits.len() == 1 => (0, o.as_str()),
            None => {
                return Err(Error::fatal(format!(
                    "--limit {o:?}: the {} preset has several limits ({}); write NAME=RATE, e.g. --limit {}=10/min",
                    p.name,
                    names(),
                    p.limits[0].name
                )))
            }
        };
        limits[i] = limits[i]
            .overridden(text)
            .map_err(|e| Error::fatal(format!("--limit {o:?}: {e}")))?;
    }
    Ok(limits)
}

fn limits_named(p: &Preset) -> String {
    p.limits
        .iter()
        .map(|l| l.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn shape_and_limits(args: &MockArgs) -> Result<(Shape, Vec<Limit>), Error> {
    if let Some(name) = &args.preset {
        let p = preset::find(name.trim()).ok_or_else(|| {
            Error::fatal(format!(
                "--preset {name:?}: no such preset; presets: {}",
                preset::names()
            ))
        })?;
        return Ok((Shape::Preset(p), preset_limits(p, &args.limit)?));
    }
    let mut limits = args
        .limit
        .iter()
        .map(|l| Limit::parse(l).map_err(|e| Error::fatal(format!("--limit {l:?}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    unique_names(&mut limits);
    let shape = Shape::Generic {
        headers: args.headers.into(),
        body: args.body.into(),
        status: args.status,
    };
    Ok((shape, limits))
}

fn describe_cost(c: &Cost) -> String {
    match c {
        Cost::Request => String::new(),
        Cost::Field(p) => format!(", cost = body {}", p.join(".")),
        Cost::Header(h) => format!(", cost = header {h}"),
        Cost::Estimate => ", cost = body bytes / 4".into(),
        Cost::Points { read, write } => format!(", cost = {read} point(s) a read, {write} a write"),
    }
}

fn describe_key(k: &Key) -> &str {
    match k {
        Key::Global => "one budget",
        Key::Ip => "per client IP",
        Key::Client => "per client",
        Key::Credential => "per API key",
        Key::Header(_) => "per header value",
    }
}

/// `--list-presets`: each preset, its limits and where they come from.
fn list_presets() -> Outcome {
    let mut out = String::new();
    for p in preset::PRESETS {
        out.push_str(&format!(
            "{}\n  {}\n  answers as {} ({}), status {}\n",
            p.name,
            p.title,
            p.vendor,
            p.layer.as_str(),
            p.status
        ));
        for (l, pl) in p.limits().iter().zip(p.limits) {
            out.push_str(&format!(
                "  --limit {}={}: {} ({}{}), attributed as {}\n",
                l.name,
                l.spec,
                pl.label,
                describe_key(&l.key),
                describe_cost(&l.cost),
                pl.quota.as_str()
            ));
        }
        for c in p.cites {
            out.push_str(&format!("  source: {}\n", c.url));
        }
        out.push('\n');
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (| head) is not an error.
    let _ = stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush());
    Ok(0)
}

fn faults(args: &MockArgs) -> Result<Faults, Error> {
    let list = args
        .faults
        .iter()
        .map(|f| Fault::parse(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::fatal)?;
    Faults::new(list, args.seed).map_err(Error::fatal)
}

pub fn run(args: MockArgs, env: &Env, ui: crate::console::Notices) -> Outcome {
    if args.list_presets {
        return list_presets();
    }
    let (shape, limits) = shape_and_limits(&args)?;
    let faults = faults(&args)?;
    let (latency, run_for) = checked_numbers(&args)?;
    let addr = address(&args.listen)?;
    if !mock::is_loopback(&addr) && !args.allow_non_loopback {
        return Err(Error::fatal(format!(
            "--listen {addr}: not a loopback address; the mock is for local testing and listens on 127.0.0.1 or ::1 unless you pass --allow-non-loopback"
        )));
    }
    let log = open_log(&args)?;
    let listener = listen(addr)?;
    let opts = Options {
        shape,
        limits,
        retry_after: args.retry_after.map(Into::into),
        faults,
        latency,
        exit_after: args.exit_after,
        duration: run_for,
        max_connections: args.max_connections,
        echo: !ui.quiet && env.stderr_terminal,
    };
    let (sink, staged): (Option<Box<dyn LogSink>>, _) = match log {
        Log::None => (None, None),
        Log::Live(s) => (Some(s), None),
        Log::Staged { target, temp } => {
            let f = temp
                .reopen()
                .map_err(|e| Error::fatal(format!("cannot open the log's temp file: {e}")))?;
            (Some(Box::new(mock::Batched::new(f))), Some((target, temp)))
        }
    };
    let served = mock::serve(listener, opts, sink);
    // Whatever happened, keep what was logged.
    let wrote = match staged {
        Some((target, temp)) => Some(keep_log(target, temp)?),
        None => None,
    };
    let s = served.map_err(Error::fatal)?;
    ui.line(format_args!(
        "toomany mock: answered {} request{} ({} admitted, {} refused{}); stopped by {}{}",
        s.requests,
        if s.requests == 1 { "" } else { "s" },
        s.admitted,
        s.refused,
        if s.abandoned > 0 {
            format!(", {} abandoned by the client", s.abandoned)
        } else {
            String::new()
        },
        s.stopped_by,
        wrote
            .map(|w| format!("; log written to {w}"))
            .unwrap_or_default()
    ));
    Ok(0)
}

/// The numeric flags checked: `--status`, `--exit-after`, `--max-connections`; the latency and
/// the run's length (`--duration`) as durations.
fn checked_numbers(args: &MockArgs) -> Result<(Duration, Option<Duration>), Error> {
    if !(400..=599).contains(&args.status) {
        return Err(Error::fatal(format!(
            "--status {}: a refusal needs a 4xx or 5xx status (429, or 503 like nginx)",
            args.status
        )));
    }
    let latency = duration("--latency", &args.latency, 3_600_000.0)?;
    let run_for = match &args.duration {
        Some(d) => {
            let d = duration("--duration", d, 366.0 * 86_400_000.0)?;
            if d.is_zero() {
                return Err(Error::fatal("--duration must be more than 0"));
            }
            Some(d)
        }
        None => None,
    };
    if args.exit_after == Some(0) {
        return Err(Error::fatal("--exit-after must be at least 1"));
    }
    if !(1..=65_536).contains(&args.max_connections) {
        return Err(Error::fatal("--max-connections must be 1 to 65536"));
    }
    Ok((latency, run_for))
}

/// Listen on `addr`, and say where on stdout (the one line scripts wait for).
fn listen(addr: SocketAddr) -> Result<TcpListener, Error> {
    let listener = TcpListener::bind(addr)
        .map_err(|e| Error::fatal(format!("--listen {addr}: cannot listen: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::fatal(format!("cannot read the listening address: {e}")))?;
    // A closed stdout is not an error.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening on http://{local}");
    let _ = out.flush();
    Ok(listener)
}

/// The staged log copied to its target; the name it was written to. On failure the partial
/// log is left where it is rather than lost.
fn keep_log(
    target: output::OutputFile,
    mut temp: tempfile::NamedTempFile,
) -> Result<String, Error> {
    let copy = temp.rewind().map_err(|e| e.to_string()).and_then(|_| {
        target
            .write_with(|w| std::io::copy(temp.as_file_mut(), w).map(|_| ()))
            .map_err(|e| e.to_string())
    });
    match copy {
        Ok(()) => Ok(target.shown().to_string()),
        Err(e) => {
            let kept = temp.into_temp_path().keep().ok();
            Err(Error::fatal(format!(
                "{e}{}",
                kept.map(|p| format!("; the log is kept in {}", p.display()))
                    .unwrap_or_default()
            )))
        }
    }
}

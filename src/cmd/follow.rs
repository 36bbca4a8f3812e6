//! `toomany analyze --follow`: follow the inputs as they grow, show a rolling view every
//! interval, and hand the full analysis back when the following stops (Ctrl-C, SIGTERM, or
//! every input ended). See docs/live.md.

use super::Error;
use crate::analyze::live::{Following, View, Window};
use crate::cli::LiveView;
use crate::console::Notices;
use crate::ingest::{self, follow::Follower};
use crate::report::Report;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How the view is shown and how often, and the options of its plan.
#[derive(Debug, Clone)]
pub struct Live {
    pub interval: Duration,
    pub view: LiveView,
    pub rec: crate::recommend::Options,
}

/// `--interval SECONDS`, checked (default 2 s).
pub fn interval(secs: Option<f64>) -> Result<Duration, Error> {
    let s = secs.unwrap_or(2.0);
    if !(0.2..=3600.0).contains(&s) {
        return Err(Error::fatal(format!(
            "--interval {s}: give a number of seconds from 0.2 to 3600"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// How long the loop sleeps when no input had anything new.
const IDLE: Duration = Duration::from_millis(200);

/// Follow `files` until stopped; `finish` turns the analysis of everything read into the
/// report.
pub fn run(
    files: &[String],
    opts: &ingest::Options,
    live: &Live,
    ui: Notices,
    finish: impl FnOnce(Following) -> Report,
) -> Result<Report, Error> {
    let stop = stop_flag()?;
    let mut inputs = open_all(files)?;
    let mut session = Following::new(files);
    let mut window = Window::default();
    let mut out = Shown::new(live.view, ui);
    let mut next_view = Instant::now() + live.interval;
    while !stop.load(Ordering::Relaxed) && inputs.iter().any(|i| !i.ended) {
        let got = read_new(&mut inputs, &mut session, &mut window, opts, &mut out)?;
        if Instant::now() >= next_view {
            if !out.show(&window.view(now_secs(), &live.rec), &inputs) {
                break; // stdout is gone (a closed pipe): nothing more to show.
            }
            next_view = Instant::now() + live.interval;
        }
        if !got {
            let left = next_view.saturating_duration_since(Instant::now());
            std::thread::sleep(left.min(IDLE));
        }
    }
    out.leave();
    // The unterminated last lines are complete now.
    for (i, input) in inputs.iter_mut().enumerate() {
        if let Some(c) = input.follower.finish() {
            feed(&mut session, &mut window, i, &input.name, c, opts)?;
        }
    }
    Ok(finish(session))
}

/// SIGINT and SIGTERM set the flag (the following stops, the report follows); a second one
/// while it is already set ends the process at once.
fn stop_flag() -> Result<Arc<AtomicBool>, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let e = |e: std::io::Error| Error::fatal(format!("cannot catch Ctrl-C: {e}"));
        signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone()).map_err(e)?;
        signal_hook::flag::register(sig, stop.clone()).map_err(e)?;
    }
    Ok(stop)
}

/// One followed input.
pub struct Input {
    name: String,
    follower: Follower,
    ended: bool,
    /// Rotations and truncations met, for the view.
    moves: u32,
}

fn open_all(files: &[String]) -> Result<Vec<Input>, Error> {
    if files.iter().filter(|f| *f == "-").count() > 1 {
        return Err(Error::fatal("--follow: `-` (stdin) can be given once"));
    }
    files
        .iter()
        .map(|f| {
            refuse_har(f)?;
            let follower = Follower::open(f).map_err(|e| Error::fatal(format!("{f}: {e}")))?;
            Ok(Input {
                name: f.clone(),
                follower,
                ended: false,
                moves: 0,
            })
        })
        .collect()
}

/// A file that already holds a HAR is refused before it is followed (a HAR's single line may
/// never end in a newline, so it would wait forever); stdin's is refused on its first piece.
fn refuse_har(path: &str) -> Result<(), Error> {
    if path == "-" {
        return Ok(());
    }
    let mut prefix = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(f, 64 * 1024), &mut prefix);
    }
    match ingest::source::sniff(&prefix, path) {
        Ok(s) if s.format == ingest::Format::Har => Err(Error::fatal(
            crate::analyze::live::NotFollowable(path.to_string()).to_string(),
        )),
        _ => Ok(()),
    }
}

/// Poll every input once and analyse what is new; true when anything was.
fn read_new(
    inputs: &mut [Input],
    session: &mut Following,
    window: &mut Window,
    opts: &ingest::Options,
    out: &mut Shown,
) -> Result<bool, Error> {
    let only_stdin = inputs.len() == 1 && inputs[0].follower.is_stdin();
    let wait = if only_stdin { IDLE } else { Duration::ZERO };
    let mut got = false;
    for (i, input) in inputs.iter_mut().enumerate().filter(|(_, i)| !i.ended) {
        let polled = match input.follower.poll(wait) {
            Ok(p) => p,
            Err(e) => {
                out.note(format!(
                    "{}: cannot read: {e}; no longer followed",
                    input.name
                ));
                input.ended = true;
                continue;
            }
        };
        for n in polled.notes {
            input.moves += 1;
            out.note(format!("{}: {n}", input.name));
        }
        input.ended |= polled.ended;
        if let Some(c) = polled.chunk {
            got = true;
            feed(session, window, i, &input.name, c, opts)?;
        }
    }
    Ok(got)
}

fn feed(
    session: &mut Following,
    window: &mut Window,
    i: usize,
    name: &str,
    c: ingest::follow::Chunk,
    opts: &ingest::Options,
) -> Result<(), Error> {
    let now = now_secs();
    session
        .feed(i, name, c.bytes, c.first_line, opts, &mut |m| {
            window.observe(now, m)
        })
        .map_err(|e| Error::fatal(e.to_string()))
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Where the views go: a screen redrawn in place, or NDJSON lines.
struct Shown {
    screen: bool,
    ui: Notices,
    /// The latest notes, shown at the foot of the screen (on stderr otherwise).
    notes: Vec<String>,
}

/// Notes kept for the screen's foot.
const NOTES_SHOWN: usize = 4;

impl Shown {
    fn new(view: LiveView, ui: Notices) -> Shown {
        let screen = match view {
            LiveView::Auto => std::io::stdout().is_terminal(),
            LiveView::Screen => true,
            LiveView::Ndjson => false,
        };
        if screen {
            // The alternate screen, cursor hidden: the terminal's own contents come back on
            // leaving, and the report is printed there.
            print!("\x1b[?1049h\x1b[?25l");
            let _ = std::io::stdout().flush();
        }
        Shown {
            screen,
            ui,
            notes: Vec::new(),
        }
    }

    fn note(&mut self, msg: String) {
        if !self.screen {
            self.ui.note(&msg);
            return;
        }
        if self.notes.len() == NOTES_SHOWN {
            self.notes.remove(0);
        }
        self.notes.push(msg);
    }

    /// Show one view; false when stdout is gone.
    fn show(&mut self, view: &View, inputs: &[Input]) -> bool {
        let text = if self.screen {
            let (w, h) = terminal_size::terminal_size()
                .map(|(w, h)| (w.0 as usize, h.0 as usize))
                .unwrap_or((80, 24));
            let moves: u32 = inputs.iter().map(|i| i.moves).sum();
            let lines = crate::render::live::render(view, moves, &self.notes, w, h);
            format!("\x1b[H\x1b[2J{}", lines.join("\n"))
        } else {
            match serde_json::to_string(view) {
                Ok(s) => s + "\n",
                Err(_) => return true,
            }
        };
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .is_ok()
    }

    fn leave(&mut self) {
        if self.screen {
            print!("\x1b[?25h\x1b[?1049l");
            let _ = std::io::stdout().flush();
            self.screen = false;
            for n in std::mem::take(&mut self.notes) {
                self.ui.note(n);
            }
        }
    }
}

//! `toomany mock`: a local HTTP server that plays a provider's rate limiter.
//!
//! hyper's HTTP/1 server on a current-thread tokio runtime: one thread, however many
//! connections (capped), so held responses (nginx-style delays, `--latency`) cost a timer, not a
//! thread (`docs/decisions.md` has the tiny_http comparison). Every request, any method and
//! path, goes through the limiter model (`src/limiter/`) under the wall clock; the answer
//! carries the model's own Retry-After and rate-limit headers; each request is logged as one
//! canonical JSON line ([`log`]) that `analyze` and `verify` read as they are.

pub mod answer;
pub mod fault;
mod io;
pub mod log;
pub mod policy;
pub mod preset;

pub use answer::Shape;
pub use fault::Faults;
pub use policy::Limit;

use crate::limiter::headers::RetryAfterStyle;
use crate::limiter::WallClock;
use crate::redact::Redactor;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use policy::State;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Largest request body read (the rest is refused with 413).
pub const MAX_BODY: usize = 1 << 20;
/// A client that has not sent its request headers within this is dropped.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// Nor its body.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long shutdown waits for responses still being held.
const DRAIN: Duration = Duration::from_secs(10);

/// Where log lines go.
pub trait LogSink: Send {
    fn line(&mut self, line: &str) -> std::io::Result<()>;
    /// Push out lines still buffered (every [`FLUSH_EVERY`] and at the end).
    fn flush_lines(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A live sink (stdout, a FIFO, a terminal): every line is flushed as it is written.
impl<W: Write + Send> LogSink for W {
    fn line(&mut self, line: &str) -> std::io::Result<()> {
        self.write_all(line.as_bytes())?;
        self.flush()
    }
}

/// How often a [`Batched`] sink is flushed while the mock runs.
pub const FLUSH_EVERY: Duration = Duration::from_millis(200);

/// A file sink that writes lines in 64 KiB batches, flushed every [`FLUSH_EVERY`] and at the end:
/// one write call per batch instead of one per request (the log's temp file, which no one reads
/// until the mock stops).
pub struct Batched<W: Write + Send>(pub std::io::BufWriter<W>);

impl<W: Write + Send> Batched<W> {
    pub fn new(w: W) -> Self {
        Batched(std::io::BufWriter::with_capacity(64 * 1024, w))
    }
}

impl<W: Write + Send> LogSink for Batched<W> {
    fn line(&mut self, line: &str) -> std::io::Result<()> {
        self.0.write_all(line.as_bytes())
    }

    fn flush_lines(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Refusals and rate-limit headers: a preset's, or the generic ones.
    pub shape: Shape,
    /// What is limited (one or more limits; a preset's, overridden by `--limit`).
    pub limits: Vec<Limit>,
    /// `--retry-after` when given (else the preset's form, or delta-seconds).
    pub retry_after: Option<RetryAfterStyle>,
    pub latency: Duration,
    pub faults: Faults,
    /// Stop after answering this many requests.
    pub exit_after: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    pub max_connections: usize,
    /// One short line per request on stderr.
    pub echo: bool,
}

impl Options {
    fn preset_name(&self) -> Option<&'static str> {
        match self.shape {
            Shape::Preset(p) => Some(p.name),
            Shape::Generic { .. } => None,
        }
    }
}

/// What a run served.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub requests: u64,
    pub admitted: u64,
    pub refused: u64,
    /// Clients that hung up before their answer.
    pub abandoned: u64,
    /// Why it stopped.
    pub stopped_by: String,
}

struct Shared {
    opts: Options,
    state: Mutex<State>,
    /// Some limit reads a number from the JSON body.
    reads_body: bool,
    clock: WallClock,
    redactor: Redactor,
    log: Mutex<Option<Box<dyn LogSink>>>,
    log_error: Mutex<Option<std::io::Error>>,
    seq: AtomicU64,
    conn_seq: AtomicU64,
    in_flight: AtomicU64,
    answered: AtomicU64,
    admitted: AtomicU64,
    refused: AtomicU64,
    abandoned: AtomicU64,
    done: tokio::sync::Notify,
    local: SocketAddr,
}

/// Is this a loopback address (127.0.0.0/8, ::1)?
pub fn is_loopback(a: &SocketAddr) -> bool {
    a.ip().is_loopback()
}

/// Why the mock server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read the listening address: {0}")]
    Address(std::io::Error),
    #[error("cannot set up the listener: {0}")]
    Listener(std::io::Error),
    #[error("cannot start the server runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot write the log: {0}")]
    Log(std::io::Error),
}

/// Serve on an already bound listener until `--exit-after`, `--duration`, Ctrl-C or SIGTERM.
/// Returns the summary; log lines are written (and flushed) as requests complete.
pub fn serve(
    listener: std::net::TcpListener,
    opts: Options,
    log: Option<Box<dyn LogSink>>,
) -> Result<Summary, Error> {
    let local = listener.local_addr().map_err(Error::Address)?;
    listener.set_nonblocking(true).map_err(Error::Listener)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(Error::Runtime)?;
    let shared = Arc::new(Shared {
        state: Mutex::new(State::new(opts.limits.clone())),
        reads_body: opts.limits.iter().any(|l| l.cost.reads_body()),
        opts,
        clock: WallClock::new(),
        redactor: Redactor::random(),
        log: Mutex::new(log),
        log_error: Mutex::new(None),
        seq: AtomicU64::new(0),
        conn_seq: AtomicU64::new(0),
        in_flight: AtomicU64::new(0),
        answered: AtomicU64::new(0),
        admitted: AtomicU64::new(0),
        refused: AtomicU64::new(0),
        abandoned: AtomicU64::new(0),
        done: tokio::sync::Notify::new(),
        local,
    });
    let stopped_by = rt.block_on(accept_loop(listener, shared.clone()))?;
    shared.flush_log();
    drop(lock(&shared.log).take());
    if let Some(e) = lock(&shared.log_error).take() {
        return Err(Error::Log(e));
    }
    Ok(Summary {
        requests: shared.answered.load(Ordering::SeqCst),
        admitted: shared.admitted.load(Ordering::SeqCst),
        refused: shared.refused.load(Ordering::SeqCst),
        abandoned: shared.abandoned.load(Ordering::SeqCst),
        stopped_by,
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding a lock cannot leave these values inconsistent: keep going.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

async fn terminate_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    std::future::pending::<()>().await
}

async fn accept_loop(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
) -> Result<String, Error> {
    let listener = tokio::net::TcpListener::from_std(listener).map_err(Error::Listener)?;
    let slots = Arc::new(tokio::sync::Semaphore::new(shared.opts.max_connections));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let duration = shared.opts.duration;
    let sh = shared.clone();
    // One stop future for the whole run, so a signal between two accepts is never missed.
    let stop = async move {
        let timer = async move {
            match duration {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = sh.done.notified() => "--exit-after",
            _ = timer => "--duration",
            _ = tokio::signal::ctrl_c() => "Ctrl-C",
            _ = terminate_signal() => "SIGTERM",
        }
    };
    tokio::pin!(stop);
    let flusher = shared.clone();
    let flushing = tokio::spawn(async move {
        loop {
            tokio::time::sleep(FLUSH_EVERY).await;
            flusher.flush_log();
        }
    });
    let stopped_by = loop {
        let permit = tokio::select! {
            s = &mut stop => break s,
            p = slots.clone().acquire_owned() => p,
        };
        let Ok(permit) = permit else { break "shutdown" };
        let accepted = tokio::select! {
            s = &mut stop => break s,
            a = listener.accept() => a,
        };
        let (stream, peer) = match accepted {
            Ok(x) => x,
            // Out of descriptors and the like: wait a moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let conn_id = shared.conn_seq.fetch_add(1, Ordering::SeqCst) + 1;
        let sh = shared.clone();
        let io = io::FaultIo::new(stream);
        let reset = io.reset_flag();
        let svc = service_fn(move |req| handle(req, sh.clone(), peer, conn_id, reset.clone()));
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .keep_alive(true);
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(io), svc));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    };
    drop(listener);
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
    flushing.abort();
    Ok(stopped_by.to_string())
}

mod request;
use request::handle;

/// The path without the query, for the 2xx body and the echo (the query may carry a credential).
fn path_only(p: &str) -> &str {
    p.split('?').next().unwrap_or(p)
}

impl Shared {
    /// Write one log line; the first failure stops the mock (the log is the point of a run).
    fn write_log(&self, text: &str) {
        let written = lock(&self.log).as_mut().map(|sink| sink.line(text));
        if let Some(Err(e)) = written {
            self.log_failed(e);
        }
    }

    /// Is there a log to write (lines are not built for nobody)?
    fn logging(&self) -> bool {
        lock(&self.log).is_some()
    }

    fn flush_log(&self) {
        let flushed = lock(&self.log).as_mut().map(|sink| sink.flush_lines());
        if let Some(Err(e)) = flushed {
            self.log_failed(e);
        }
    }

    fn log_failed(&self, e: std::io::Error) {
        let mut err = lock(&self.log_error);
        if err.is_none() {
            *err = Some(e);
            self.done.notify_one();
        }
    }
}

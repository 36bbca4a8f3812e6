//! `toomany mock`: a local HTTP server that plays a provider's rate limiter.
//!
//! hyper's HTTP/1 server on a current-thread tokio runtime: one thread, however many
//! connections (capped), so held responses (nginx-style delays, `--latency`) cost a timer, not a
//! thread (`docs/decisions.md` has the tiny_http comparison). Every request, any method and
//! path, goes through the limiter model (`src/limiter/`) under the wall clock; the answer
//! carries the model's own Retry-After and rate-limit headers; each request is logged as one
//! canonical JSON line ([`log`]) that `analyze` and `verify` read as they are.

pub mod answer;
pub mod log;
pub mod policy;
pub mod preset;

use crate::limiter::headers::{self, BodyStyle, HeaderStyle, RetryAfterStyle};
use crate::limiter::{Limiter, Spec, WallClock, NS_PER_MS};
use crate::redact::Redactor;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::io::{IsTerminal, Write};
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
}

impl<W: Write + Send> LogSink for W {
    fn line(&mut self, line: &str) -> std::io::Result<()> {
        self.write_all(line.as_bytes())?;
        self.flush()
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub spec: Spec,
    pub headers: HeaderStyle,
    pub retry_after: RetryAfterStyle,
    pub body: BodyStyle,
    /// Status of a refusal (429; nginx's `limit_req` default is 503).
    pub status: u16,
    pub latency: Duration,
    /// Stop after answering this many requests.
    pub exit_after: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
    pub max_connections: usize,
    /// One short line per request on stderr.
    pub echo: bool,
}

/// What a run served.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub requests: u64,
    pub admitted: u64,
    pub refused: u64,
    /// Why it stopped.
    pub stopped_by: String,
}

struct Shared {
    opts: Options,
    limiter: Mutex<Limiter>,
    clock: WallClock,
    redactor: Redactor,
    log: Mutex<Option<Box<dyn LogSink>>>,
    log_error: Mutex<Option<String>>,
    seq: AtomicU64,
    conn_seq: AtomicU64,
    in_flight: AtomicU64,
    answered: AtomicU64,
    admitted: AtomicU64,
    refused: AtomicU64,
    done: tokio::sync::Notify,
    local: SocketAddr,
}

/// Is this a loopback address (127.0.0.0/8, ::1)?
pub fn is_loopback(a: &SocketAddr) -> bool {
    a.ip().is_loopback()
}

/// Serve on an already bound listener until `--exit-after`, `--duration`, Ctrl-C or SIGTERM.
/// Returns the summary; log lines are written (and flushed) as requests complete.
pub fn serve(
    listener: std::net::TcpListener,
    opts: Options,
    log: Option<Box<dyn LogSink>>,
) -> Result<Summary, String> {
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot set up the listener: {e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the server runtime: {e}"))?;
    let shared = Arc::new(Shared {
        limiter: Mutex::new(Limiter::new(&opts.spec)),
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
        done: tokio::sync::Notify::new(),
        local,
    });
    let stopped_by = rt.block_on(accept_loop(listener, shared.clone()))?;
    // Every line was flushed as it was written; dropping the sink closes it.
    drop(lock(&shared.log).take());
    if let Some(e) = lock(&shared.log_error).take() {
        return Err(e);
    }
    Ok(Summary {
        requests: shared.answered.load(Ordering::SeqCst),
        admitted: shared.admitted.load(Ordering::SeqCst),
        refused: shared.refused.load(Ordering::SeqCst),
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
) -> Result<String, String> {
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|e| format!("cannot set up the listener: {e}"))?;
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
        let svc = service_fn(move |req| handle(req, sh.clone(), peer, conn_id));
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .keep_alive(true);
        let conn = graceful.watch(builder.serve_connection(TokioIo::new(stream), svc));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    };
    drop(listener);
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
    Ok(stopped_by.to_string())
}

type Body = Full<Bytes>;

fn text_response(status: StatusCode, text: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(text.to_string())));
    *r.status_mut() = status;
    r
}

async fn handle(
    req: Request<Incoming>,
    sh: Arc<Shared>,
    peer: SocketAddr,
    conn_id: u64,
) -> Result<Response<Body>, std::convert::Infallible> {
    let arrival = sh.clock.now();
    let seq = sh.seq.fetch_add(1, Ordering::SeqCst) + 1;
    let in_flight = sh.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    let method = req.method().as_str().to_string();
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "/".into());
    let host = req
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| sh.local.to_string());
    let url = format!("http://{host}{path}");
    let req_headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let client = req_headers
        .iter()
        .find(|(n, _)| n == "x-client-id" || n == "x-worker-id")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| peer.ip().to_string());
    let body = tokio::time::timeout(
        BODY_TIMEOUT,
        Limited::new(req.into_body(), MAX_BODY).collect(),
    )
    .await;
    let body = match body {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(_)) | Err(_) => {
            let r = text_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request body too large, incomplete or too slow\n",
            );
            finish(
                &sh,
                Finished {
                    arrival,
                    method: &method,
                    url: &url,
                    status: 413,
                    req_headers: &req_headers,
                    resp_headers: &[],
                    body: b"",
                    client: &client,
                    peer,
                    decision: None,
                    in_flight,
                    conn_id,
                    seq,
                },
            );
            return Ok(r);
        }
    };
    let decision = lock(&sh.limiter).admit(arrival);
    let hold = Duration::from_nanos(decision.delay_ns) + sh.opts.latency;
    if !hold.is_zero() {
        tokio::time::sleep(hold).await;
    }
    if decision.admitted {
        lock(&sh.limiter).release(sh.clock.now());
    }
    let mut headers =
        headers::response_headers(&decision, sh.opts.headers, sh.opts.retry_after, arrival);
    headers.push(("Date".into(), headers::http_date(sh.clock.now())));
    let (status, content_type, text) = if decision.admitted {
        let v = serde_json::json!({ "ok": true, "seq": seq, "method": method, "path": path_only(&path) });
        (200u16, "application/json", format!("{v}\n"))
    } else {
        let (ct, t) = headers::refusal_body(&decision, sh.opts.status, sh.opts.body);
        (sh.opts.status, ct, t)
    };
    headers.push(("Content-Type".into(), content_type.to_string()));
    let mut resp = Response::new(Full::new(Bytes::from(text)));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::TOO_MANY_REQUESTS);
    for (n, v) in &headers {
        if let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(n.as_bytes()),
            hyper::header::HeaderValue::from_str(v),
        ) {
            resp.headers_mut().append(name, value);
        }
    }
    finish(
        &sh,
        Finished {
            arrival,
            method: &method,
            url: &url,
            status,
            req_headers: &req_headers,
            resp_headers: &headers,
            body: &body,
            client: &client,
            peer,
            decision: Some(&decision),
            in_flight,
            conn_id,
            seq,
        },
    );
    Ok(resp)
}

/// The path without the query, for the 2xx body (the query may carry a credential).
fn path_only(p: &str) -> &str {
    p.split('?').next().unwrap_or(p)
}

struct Finished<'a> {
    arrival: u64,
    method: &'a str,
    url: &'a str,
    status: u16,
    req_headers: &'a [(String, String)],
    resp_headers: &'a [(String, String)],
    body: &'a [u8],
    client: &'a str,
    peer: SocketAddr,
    decision: Option<&'a crate::limiter::Decision>,
    in_flight: u64,
    conn_id: u64,
    seq: u64,
}

fn finish(sh: &Shared, f: Finished) {
    let end = sh.clock.now();
    sh.in_flight.fetch_sub(1, Ordering::SeqCst);
    match f.decision {
        Some(d) if d.admitted => sh.admitted.fetch_add(1, Ordering::SeqCst),
        _ => sh.refused.fetch_add(1, Ordering::SeqCst),
    };
    let text = log::line(
        &log::Entry {
            arrival: f.arrival,
            end,
            method: f.method,
            url: f.url,
            status: f.status,
            request_headers: f.req_headers,
            response_headers: f.resp_headers,
            request_body: f.body,
            client: f.client,
            client_ip: &f.peer.ip().to_string(),
            decision: f.decision,
            model: sh.opts.spec.model_name(),
            in_flight_at_arrival: f.in_flight,
            conn_id: f.conn_id,
            seq: f.seq,
        },
        &sh.redactor,
    );
    if let Some(sink) = lock(&sh.log).as_mut() {
        if let Err(e) = sink.line(&text) {
            let mut err = lock(&sh.log_error);
            if err.is_none() {
                *err = Some(format!("cannot write the log: {e}"));
                sh.done.notify_one();
            }
        }
    }
    if sh.opts.echo {
        let ra = f
            .resp_headers
            .iter()
            .find(|(n, _)| n == "Retry-After")
            .map(|(_, v)| format!(" retry-after {v}"))
            .unwrap_or_default();
        let path = path_only(f.url.split_once("//").map_or(f.url, |(_, r)| r));
        let path = path.find('/').map_or("/", |i| &path[i..]);
        let held = f
            .decision
            .filter(|d| d.delay_ns > 0)
            .map(|d| format!(" held {} ms", d.delay_ns / NS_PER_MS))
            .unwrap_or_default();
        let _ = writeln!(
            std::io::stderr().lock(),
            "{} {} {} {}{ra}{held} ({:.0} ms)",
            &log::rfc3339(f.arrival)[11..23],
            f.method,
            sh.redactor.url(path),
            f.status,
            (end - f.arrival) as f64 / NS_PER_MS as f64
        );
    }
    let answered = sh.answered.fetch_add(1, Ordering::SeqCst) + 1;
    if sh.opts.exit_after.is_some_and(|n| answered >= n) {
        sh.done.notify_one();
    }
}

/// Should per-request lines go to stderr? Only for a person watching.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

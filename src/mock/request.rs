//! One request, from arrival to its log line: read the body, decide under every limit, hold
//! (nginx delays, `--latency`, a delay fault), answer in the preset's shape, apply a fault.
//!
//! Whatever ends the request — an answer, a body that never came, or the client hanging up
//! while the mock holds it (hyper drops this future) — the [`Pending`] guard frees the
//! concurrency slots it held and writes its log line; a request ended by the client is logged
//! as `"abandoned": true` with status 499 (nginx's "client closed request").

use super::answer::{answer, Answer, Ask};
use super::fault::{self, Kind};
use super::policy::{Held, Outcome, RequestFacts};
use super::{lock, log, Shared, BODY_TIMEOUT, MAX_BODY};
use crate::limiter::{headers, Nanos, NS_PER_MS};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::{Request, Response, StatusCode};
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// A response body: whole, or cut short after its first half (`--fault truncate`), with the
/// whole length announced so the client sees a body that ends early. The cut waits a moment
/// after the half, so hyper flushes it before the error closes the connection.
pub enum MockBody {
    Whole(Option<Bytes>),
    Cut {
        part: Option<Bytes>,
        full: u64,
        pause: Option<Pin<Box<tokio::time::Sleep>>>,
    },
}

impl hyper::body::Body for MockBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            MockBody::Whole(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            MockBody::Cut { part, pause, .. } => {
                if let Some(b) = part.take() {
                    return Poll::Ready(Some(Ok(Frame::data(b))));
                }
                let p = pause
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
                match p.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(()) => Poll::Ready(Some(Err(std::io::Error::other(
                        "body cut by --fault truncate",
                    )))),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, MockBody::Whole(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            MockBody::Whole(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            MockBody::Cut { full, .. } => SizeHint::with_exact(*full),
        }
    }
}

/// A request in progress; dropped unfinished, it logs itself as abandoned.
struct Pending {
    sh: Arc<Shared>,
    arrival: Nanos,
    seq: u64,
    in_flight: u64,
    conn_id: u64,
    peer: SocketAddr,
    method: String,
    url: String,
    path: String,
    req_headers: Vec<(String, String)>,
    client: String,
    body: Bytes,
    outcome: Option<Outcome>,
    held: Held,
    fault: Option<&'static str>,
    done: bool,
}

impl Pending {
    fn start(sh: &Arc<Shared>, req: &Request<Incoming>, peer: SocketAddr, conn_id: u64) -> Self {
        let arrival = sh.clock.now();
        let path = req
            .uri()
            .path_and_query()
            .map_or_else(|| "/".into(), |p| p.as_str().to_string());
        let host = req
            .headers()
            .get(hyper::header::HOST)
            .and_then(|h| h.to_str().ok())
            .map_or_else(|| sh.local.to_string(), str::to_string);
        let req_headers: Vec<(String, String)> = req
            .headers()
            .iter()
            .map(|(n, v)| {
                let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (n.as_str().to_string(), v)
            })
            .collect();
        let client = req_headers
            .iter()
            .find(|(n, _)| n == "x-client-id" || n == "x-worker-id")
            .map_or_else(|| peer.ip().to_string(), |(_, v)| v.clone());
        Pending {
            sh: sh.clone(),
            arrival,
            seq: sh.seq.fetch_add(1, Ordering::SeqCst) + 1,
            in_flight: sh.in_flight.fetch_add(1, Ordering::SeqCst) + 1,
            conn_id,
            peer,
            method: req.method().as_str().to_string(),
            url: format!("http://{host}{path}"),
            path,
            req_headers,
            client,
            body: Bytes::new(),
            outcome: None,
            held: Vec::new(),
            fault: None,
            done: false,
        }
    }

    /// Decide under every limit (keys and costs from the request).
    fn decide(&mut self) {
        let sh = &self.sh;
        let ip = self.peer.ip().to_string();
        let facts = RequestFacts {
            method: &self.method,
            headers: &self.req_headers,
            body: &self.body,
            ip: &ip,
            client: &self.client,
        };
        let json = sh
            .reads_body
            .then(|| serde_json::from_slice::<serde_json::Value>(&self.body).ok())
            .flatten();
        let fp = |s: &str| sh.redactor.token(s);
        let limits = &sh.opts.limits;
        let keys = limits.iter().map(|l| l.key.of(&facts, &fp)).collect();
        let costs = limits
            .iter()
            .map(|l| l.cost.of(&facts, json.as_ref()))
            .collect();
        let (outcome, held) = lock(&sh.state).decide(self.arrival, keys, costs);
        self.outcome = Some(outcome);
        self.held = held;
    }

    fn release(&mut self) {
        if !self.held.is_empty() {
            let now = self.sh.clock.now();
            lock(&self.sh.state).release(now, &self.held);
            self.held.clear();
        }
    }

    fn request_id(&self) -> String {
        format!(
            "{:016x}",
            fault::mix(self.seq ^ self.sh.opts.faults.seed.rotate_left(17))
        )
    }

    /// Log the request with what was sent (`None`: nothing, the client left or was reset).
    fn finish(&mut self, status: u16, sent: Option<&Answer>, abandoned: bool) {
        self.done = true;
        self.release();
        let sh = self.sh.clone();
        let end = sh.clock.now();
        sh.in_flight.fetch_sub(1, Ordering::SeqCst);
        let counter = match &self.outcome {
            _ if abandoned => &sh.abandoned,
            Some(o) if o.admitted => &sh.admitted,
            _ => &sh.refused,
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let body = sent
            .filter(|a| a.status != 200 || self.fault.is_some())
            .map(|a| a.body.as_str());
        let no_headers = Vec::new();
        let resp_headers = sent.map_or(&no_headers, |a| &a.headers);
        if sh.logging() {
            let text = log::line(
                &log::Entry {
                    arrival: self.arrival,
                    end,
                    method: &self.method,
                    url: &self.url,
                    status,
                    request_headers: &self.req_headers,
                    response_headers: resp_headers,
                    request_body: &self.body,
                    client: &self.client,
                    client_ip: &self.peer.ip().to_string(),
                    outcome: self
                        .outcome
                        .as_ref()
                        .map(|o| (o, sh.opts.limits.as_slice())),
                    response_body: body,
                    abandoned,
                    fault: self.fault,
                    preset: sh.opts.preset_name(),
                    in_flight_at_arrival: self.in_flight,
                    conn_id: self.conn_id,
                    seq: self.seq,
                },
                &sh.redactor,
            );
            sh.write_log(&text);
        }
        if sh.opts.echo {
            self.echo(status, resp_headers, end);
        }
        let answered = sh.answered.fetch_add(1, Ordering::SeqCst) + 1;
        if sh.opts.exit_after.is_some_and(|n| answered >= n) {
            sh.done.notify_one();
        }
    }

    fn echo(&self, status: u16, resp_headers: &[(String, String)], end: Nanos) {
        let ra = resp_headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("retry-after"))
            .map(|(_, v)| format!(" retry-after {v}"))
            .unwrap_or_default();
        let held = self
            .outcome
            .as_ref()
            .filter(|o| o.delay_ns > 0)
            .map(|o| format!(" held {} ms", o.delay_ns / NS_PER_MS))
            .unwrap_or_default();
        let extra = match (self.fault, self.done && status == 499) {
            (Some(f), _) => format!(" fault {f}"),
            (None, true) => " abandoned".to_string(),
            _ => String::new(),
        };
        let _ = writeln!(
            std::io::stderr().lock(),
            "{} {} {} {status}{ra}{held}{extra} ({:.0} ms)",
            &log::rfc3339(self.arrival)[11..23],
            self.method,
            self.sh.redactor.url(super::path_only(&self.path)),
            (end - self.arrival) as f64 / NS_PER_MS as f64
        );
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.done {
            // The client hung up (hyper dropped the request's future): free what it held, log it.
            self.finish(499, None, true);
        }
    }
}

fn response(a: &Answer, cut: bool) -> Response<MockBody> {
    let bytes = Bytes::from(a.body.clone());
    let body = if cut {
        let full = bytes.len() as u64;
        MockBody::Cut {
            part: Some(bytes.slice(..bytes.len() / 2)),
            full,
            pause: None,
        }
    } else {
        MockBody::Whole(Some(bytes))
    };
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::from_u16(a.status).unwrap_or(StatusCode::TOO_MANY_REQUESTS);
    for (n, v) in &a.headers {
        if let (Ok(name), Ok(value)) = (
            hyper::header::HeaderName::from_bytes(n.as_bytes()),
            hyper::header::HeaderValue::from_str(v),
        ) {
            resp.headers_mut().append(name, value);
        }
    }
    resp
}

/// A 503 in place of the answer (`--fault 503=…`).
fn unavailable(p: &Pending, now: Nanos, retry_s: Option<u64>) -> Answer {
    let style =
        p.sh.opts
            .retry_after
            .unwrap_or(headers::RetryAfterStyle::Seconds);
    let mut h = Vec::new();
    if let Some(s) = retry_s {
        let at = now.saturating_add(s * crate::limiter::NS_PER_S);
        let v = match style {
            headers::RetryAfterStyle::Seconds => Some(s.to_string()),
            headers::RetryAfterStyle::Date => Some(headers::http_date_at_or_after(at)),
            headers::RetryAfterStyle::Past => Some(headers::http_date_past(now)),
            headers::RetryAfterStyle::None => None,
        };
        if let Some(v) = v {
            h.push(("Retry-After".to_string(), v));
        }
    }
    h.push(("Date".into(), headers::http_date(now)));
    h.push(("Content-Type".into(), "text/plain; charset=utf-8".into()));
    Answer {
        status: 503,
        headers: h,
        body: "503 Service Unavailable: upstream unavailable (injected by toomany mock --fault)\n"
            .into(),
    }
}

async fn read_body(p: &mut Pending, req: Request<Incoming>) -> bool {
    let body = tokio::time::timeout(
        BODY_TIMEOUT,
        Limited::new(req.into_body(), MAX_BODY).collect(),
    );
    match body.await {
        Ok(Ok(b)) => {
            p.body = b.to_bytes();
            true
        }
        _ => false,
    }
}

pub(super) async fn handle(
    req: Request<Incoming>,
    sh: Arc<Shared>,
    peer: SocketAddr,
    conn_id: u64,
    reset: Arc<AtomicBool>,
) -> Result<Response<MockBody>, std::io::Error> {
    let mut p = Pending::start(&sh, &req, peer, conn_id);
    if !read_body(&mut p, req).await {
        let a = Answer {
            status: 413,
            headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body: "request body too large, incomplete or too slow\n".into(),
        };
        p.finish(413, Some(&a), false);
        return Ok(response(&a, false));
    }
    p.decide();
    let admitted = p.outcome.as_ref().is_some_and(|o| o.admitted);
    let fault = admitted.then(|| sh.opts.faults.pick(p.seq)).flatten();
    p.fault = fault.map(Kind::name);
    let mut hold =
        Duration::from_nanos(p.outcome.as_ref().map_or(0, |o| o.delay_ns)) + sh.opts.latency;
    if let Some(Kind::Delay(d)) = fault {
        hold += *d;
    }
    if !hold.is_zero() {
        // Dropped here when the client hangs up: the guard logs and frees the slot.
        tokio::time::sleep(hold).await;
    }
    p.release();
    let now = sh.clock.now();
    let request_id = p.request_id();
    let a = match fault {
        Some(Kind::Unavailable(s)) => unavailable(&p, now, *s),
        _ => answer(&Ask {
            shape: sh.opts.shape,
            retry_after: sh.opts.retry_after,
            outcome: p.outcome.as_ref().expect("decided above"),
            limits: &sh.opts.limits,
            now: p.arrival,
            date: now,
            request_id: &request_id,
            client_ip: &peer.ip().to_string(),
            seq: p.seq,
            method: &p.method,
            path: super::path_only(&p.path),
        }),
    };
    if let Some(Kind::Reset) = fault {
        reset.store(true, Ordering::Relaxed);
        p.finish(0, None, false);
        return Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset by --fault",
        ));
    }
    p.finish(a.status, Some(&a), false);
    Ok(response(&a, matches!(fault, Some(Kind::Truncate))))
}

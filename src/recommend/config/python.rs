//! Python urllib3 `Retry` (used by requests through `HTTPAdapter`), as a module to import: the
//! Retry object, a subclass with full jitter from the first retry on (urllib3 2.x sleeps 0 s
//! before it), a spread on top of Retry-After, and a stop when Retry-After exceeds the deadline
//! instead of sleeping it; a thread-safe start spacer, and the adapter with the connection cap.

use super::{header, secs, Emitted, Policy, Target};

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "no full jitter of its own: urllib3 2.x sleeps 0 s before the first retry (no jitter either: its jitter is added only from the second retry on) and backoff_factor × 2^(n−1) + uniform(0, backoff_jitter) before retry n ≥ 2; TooManyRetry below replaces get_backoff_time with full jitter in the plan's windows".into(),
        "when Retry-After is present urllib3 sleeps exactly that long, with no spread added (workers told the same value resume together); TooManyRetry below adds the spread in sleep_for_retry".into(),
        "no total deadline: requests' timeout= is per connect/read; RETRY_DEADLINE_S below is enforced only for Retry-After by TooManyRetry, wrap calls for a true deadline".into(),
        "no rate limit: the Spacer class below spaces first attempts within one process only; urllib3's own retries happen inside the adapter and are not spaced".into(),
        "older urllib3 (1.x) names allowed_methods method_whitelist and has no backoff_max keyword".into(),
    ];
    let how = vec![
        "Use: from toomany_retry import session; session().get(url). Needs urllib3 ≥ 2 and requests.".to_string(),
        format!(
            "total counts RETRIES: {} attempts = total={}. Sleep before retry n (from 1): full jitter in [0, min({} s, {} s × 2^(n−1))] = windows {} s; after a Retry-After: that + 0–{} s.",
            r.max_attempts,
            r.retries(),
            secs(r.cap_ms),
            secs(r.base_ms),
            r.windows_ms.iter().map(|&w| secs(w)).collect::<Vec<_>>().join(", "),
            secs(r.retry_after_spread_ms)
        ),
    ];
    let head = header(
        "#",
        p,
        "Python urllib3 / requests retry policy",
        &how,
        &cannot,
    );
    let methods = super::quoted_list(&r.retry_methods);
    let statuses = super::status_list(&r.retry_on_status);
    let body = format!(
        r#"import random
import threading
import time
from itertools import takewhile

from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

RATE_PER_SECOND = {rps}
MIN_INTERVAL_S = {interval}
MAX_IN_FLIGHT = {c}
RETRY_DEADLINE_S = {deadline}
ATTEMPT_TIMEOUT_S = {attempt}
BACKOFF_BASE_S = {base}
BACKOFF_CAP_S = {cap}
RETRY_AFTER_SPREAD_S = {spread}


class TooManyRetry(Retry):
    """The plan's retries on urllib3's Retry: full jitter from the first retry on, Retry-After
    honoured as a minimum with a random spread on top, and a stop instead of a sleep when the
    server's Retry-After is longer than the deadline (the wait is never shortened, and the
    caller can reschedule)."""

    def get_backoff_time(self):
        # urllib3 2.x: 0 s before retry 1, backoff_factor × 2^(n−1) (+ its jitter) after.
        n = len(list(takewhile(lambda h: h.redirect_location is None, reversed(self.history))))
        if n == 0:
            return 0.0
        return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** min(n - 1, 62)))

    def sleep_for_retry(self, response):
        retry_after = self.get_retry_after(response)
        if retry_after:
            time.sleep(retry_after + random.uniform(0, RETRY_AFTER_SPREAD_S))
            return True
        return False

    def increment(self, method=None, url=None, response=None, error=None, _pool=None, _stacktrace=None):
        if response is not None and self.respect_retry_after_header:
            wait = self.get_retry_after(response)
            if wait is not None and wait > RETRY_DEADLINE_S:
                raise MaxRetryError(
                    _pool,
                    url,
                    ResponseError(f"Retry-After {{wait:.0f}} s exceeds the {{RETRY_DEADLINE_S}} s deadline: stop or reschedule"),
                )
        return super().increment(method, url, response, error, _pool, _stacktrace)


RETRY = TooManyRetry(
    total={retries},
    status_forcelist=[{statuses}],
    allowed_methods=frozenset({{{methods}}}),
    backoff_factor=BACKOFF_BASE_S,
    backoff_max=BACKOFF_CAP_S,
    respect_retry_after_header=True,
    raise_on_status=False,
)


class Spacer:
    """At most one request start every MIN_INTERVAL_S in this process (thread-safe)."""

    def __init__(self, interval_s=MIN_INTERVAL_S):
        self._interval = interval_s
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self):
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self._interval
        if start > now:
            time.sleep(start - now)


def session(spacer=None):
    """A requests Session with the retry policy, at most MAX_IN_FLIGHT connections per host,
    first attempts spaced by the Spacer, and ATTEMPT_TIMEOUT_S as the default timeout."""
    import requests
    from requests.adapters import HTTPAdapter

    spacer = spacer or Spacer()

    class SpacedAdapter(HTTPAdapter):
        def send(self, request, **kwargs):
            spacer.wait()
            if kwargs.get("timeout") is None:
                kwargs["timeout"] = ATTEMPT_TIMEOUT_S
            return super().send(request, **kwargs)

    s = requests.Session()
    adapter = SpacedAdapter(max_retries=RETRY, pool_maxsize=MAX_IN_FLIGHT, pool_block=True)
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    return s
"#,
        rps = crate::units::fmt_num(p.rate.rate_per_second),
        interval = secs(p.rate.min_interval_ms),
        c = p.concurrency.max_in_flight,
        deadline = secs(r.deadline_ms),
        attempt = secs(r.attempt_timeout_ms),
        retries = r.retries(),
        base = secs(r.base_ms),
        cap = secs(r.cap_ms),
        spread = secs(r.retry_after_spread_ms),
    );
    Emitted {
        target: Target::Urllib3,
        file_name: "toomany_retry.py".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}

//! Go `hashicorp/go-retryablehttp`: RetryMax/RetryWaitMin/RetryWaitMax, a CheckRetry limited to
//! 429/503 that stops when Retry-After exceeds the context deadline, a full-jitter Backoff that
//! honours Retry-After as a minimum, MaxConnsPerHost for the concurrency cap, and
//! `golang.org/x/time/rate` for the start rate.

use super::{header, Emitted, Policy, Target};

/// A Go `time.Duration` expression for whole milliseconds: `8 * time.Second`,
/// `667 * time.Millisecond`.
pub fn go_duration(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} * time.Second", ms / 1000)
    } else {
        format!("{ms} * time.Millisecond")
    }
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let cannot = vec![
        "CheckRetry never sees the request, so it cannot filter by method: use this client only for idempotent requests (go-retryablehttp issue #169)".into(),
        "go-retryablehttp's DefaultBackoff has no jitter and does not cap Retry-After: the Backoff below replaces it".into(),
        "the total deadline exists only through the request context: always call with NewRequestWithContext and a context from WithTimeout (RetryDeadline)".into(),
        "no built-in rate limiter: the RoundTripper below uses golang.org/x/time/rate, per process".into(),
    ];
    let how = vec![
        "Copy into your module (package toomanyclient); go get github.com/hashicorp/go-retryablehttp golang.org/x/time/rate.".to_string(),
        format!(
            "RetryMax counts RETRIES: {} attempts = RetryMax {}. Waits: full jitter in [0, min(RetryWaitMax, RetryWaitMin × 2^n)].",
            r.max_attempts,
            r.retries()
        ),
    ];
    let head = header(
        "//",
        p,
        "Go go-retryablehttp client settings",
        &how,
        &cannot,
    );
    let statuses = r
        .retry_on_status
        .iter()
        .map(|s| format!("resp.StatusCode == {s}"))
        .collect::<Vec<_>>()
        .join(" || ");
    let body = format!(
        r#"package toomanyclient

import (
	"context"
	"math/rand"
	"net/http"
	"strconv"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

const (
	RetryMax          = {retries}
	RetryWaitMin      = {base}
	RetryWaitMax      = {cap}
	RetryDeadline     = {deadline}
	AttemptTimeout    = {attempt}
	RetryAfterSpread  = {spread}
	MinInterval       = {interval}
	MaxConnsPerHost   = {c}
)

type limitedTransport struct {{
	next    http.RoundTripper
	limiter *rate.Limiter
}}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {{
	if err := t.limiter.Wait(req.Context()); err != nil {{
		return nil, err
	}}
	return t.next.RoundTrip(req)
}}

func retryAfter(resp *http.Response) (time.Duration, bool) {{
	if resp == nil {{
		return 0, false
	}}
	v := resp.Header.Get("Retry-After")
	if v == "" {{
		return 0, false
	}}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {{
		return time.Duration(s) * time.Second, true
	}}
	if t, err := http.ParseTime(v); err == nil {{
		d := time.Until(t)
		if d < 0 {{
			d = 0
		}}
		return d, true
	}}
	return 0, false
}}

// checkRetry retries connection errors and 429/503 only, and stops when the server's
// Retry-After does not fit in what is left of the context deadline.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {{
	if ctx.Err() != nil {{
		return false, ctx.Err()
	}}
	if err != nil {{
		return true, nil
	}}
	if !({statuses}) {{
		return false, nil
	}}
	if ra, ok := retryAfter(resp); ok {{
		if deadline, has := ctx.Deadline(); has && ra > time.Until(deadline) {{
			return false, nil
		}}
	}}
	return true, nil
}}

// backoff: at least Retry-After plus a random spread; otherwise full jitter in a capped
// exponential window.
func backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {{
	if ra, ok := retryAfter(resp); ok {{
		return ra + time.Duration(rand.Int63n(int64(RetryAfterSpread)+1))
	}}
	window := max
	if attempt < 30 {{
		if w := min << uint(attempt); w > 0 && w < max {{
			window = w
		}}
	}}
	return time.Duration(rand.Int63n(int64(window) + 1))
}}

// NewClient returns a client with the policy; call it with a context from
// context.WithTimeout(ctx, RetryDeadline).
func NewClient() *retryablehttp.Client {{
	c := retryablehttp.NewClient()
	c.RetryMax = RetryMax
	c.RetryWaitMin = RetryWaitMin
	c.RetryWaitMax = RetryWaitMax
	c.CheckRetry = checkRetry
	c.Backoff = backoff
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxConnsPerHost = MaxConnsPerHost
	c.HTTPClient.Transport = &limitedTransport{{next: transport, limiter: rate.NewLimiter(rate.Every(MinInterval), 1)}}
	c.HTTPClient.Timeout = AttemptTimeout
	return c
}}
"#,
        retries = r.retries(),
        base = go_duration(r.base_ms),
        cap = go_duration(r.cap_ms),
        deadline = go_duration(r.deadline_ms),
        attempt = go_duration(r.attempt_timeout_ms),
        spread = go_duration(r.retry_after_spread_ms),
        interval = go_duration(p.rate.min_interval_ms),
        c = p.concurrency.max_in_flight,
    );
    Emitted {
        target: Target::Retryablehttp,
        file_name: "retryablehttp.go".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}

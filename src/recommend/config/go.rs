//! Go `hashicorp/go-retryablehttp`: RetryMax/RetryWaitMin/RetryWaitMax, a CheckRetry limited to
//! 429/503 that stops when Retry-After exceeds the context deadline, a full-jitter Backoff that
//! honours Retry-After as a minimum, and a RoundTripper that takes one of MaxInFlight slots, then
//! waits for `golang.org/x/time/rate`, and only then starts the attempt's own timeout; `Do` puts
//! the total deadline on the request's context.

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
        "no total deadline of its own: Do below puts RetryDeadline on the request's context (every attempt, wait and queue within it); client.Do called directly has none".into(),
        "no rate limiter and no in-flight cap of its own (MaxConnsPerHost queues inside http.Client.Timeout): the RoundTripper below takes a slot, then waits for golang.org/x/time/rate, per process, and only then starts the attempt's timeout".into(),
    ];
    let how = vec![
        "Copy into your module (package toomanyclient); go get github.com/hashicorp/go-retryablehttp golang.org/x/time/rate.".to_string(),
        format!(
            "RetryMax counts RETRIES: {} attempts = RetryMax {}. Waits: full jitter in [0, min(RetryWaitMax, RetryWaitMin × 2^n)].",
            r.max_attempts,
            r.retries()
        ),
        "Send with toomanyclient.Do(client, req) and close every response body (that frees the request's slot).".to_string(),
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
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"sync"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

const (
	RetryMax         = {retries}
	RetryWaitMin     = {base}
	RetryWaitMax     = {cap}
	RetryDeadline    = {deadline}
	AttemptTimeout   = {attempt}
	RetryAfterSpread = {spread}
	MinInterval      = {interval}
	MaxInFlight      = {c}
)

// pacedTransport lets an attempt out only when the policy allows it, and only then starts
// its clock: a slot among MaxInFlight, then the start rate, then AttemptTimeout for the
// attempt itself (sending, the answer, reading the body). The queue for a slot and for the
// limiter is bounded by the request's context (the total deadline, see Do), not by the
// attempt's timeout: with http.Client.Timeout the queue counted too, and queued attempts
// failed without being sent.
type pacedTransport struct {{
	next    http.RoundTripper
	slots   chan struct{{}}
	limiter *rate.Limiter
}}

func (t *pacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {{
	ctx := req.Context()
	select {{
	case t.slots <- struct{{}}{{}}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}}
	release := func() {{ <-t.slots }}
	if err := t.limiter.Wait(ctx); err != nil {{
		release()
		return nil, err
	}}
	attempt, cancel := context.WithTimeout(ctx, AttemptTimeout)
	resp, err := t.next.RoundTrip(req.WithContext(attempt))
	if err != nil {{
		cancel()
		release()
		return nil, err
	}}
	resp.Body = &closeHook{{ReadCloser: resp.Body, done: func() {{ cancel(); release() }}}}
	return resp, nil
}}

// closeHook runs done once, when the body is closed.
type closeHook struct {{
	io.ReadCloser
	once sync.Once
	done func()
}}

func (b *closeHook) Close() error {{
	err := b.ReadCloser.Close()
	b.once.Do(b.done)
	return err
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

// A source of its own, seeded per process: before Go 1.20 the global one starts from the
// same seed in every process, so every worker would draw the same "random" waits.
var (
	jitterMu sync.Mutex
	jitter   = rand.New(rand.NewSource(time.Now().UnixNano()))
)

func upTo(d time.Duration) time.Duration {{
	jitterMu.Lock()
	defer jitterMu.Unlock()
	return time.Duration(jitter.Int63n(int64(d) + 1))
}}

// backoff: at least Retry-After plus a random spread; otherwise full jitter in a capped
// exponential window.
func backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {{
	if ra, ok := retryAfter(resp); ok {{
		return ra + upTo(RetryAfterSpread)
	}}
	window := max
	if attempt < 30 {{
		if w := min << uint(attempt); w > 0 && w < max {{
			window = w
		}}
	}}
	return upTo(window)
}}

// NewClient returns a client with the policy; send with Do.
func NewClient() *retryablehttp.Client {{
	c := retryablehttp.NewClient()
	c.RetryMax = RetryMax
	c.RetryWaitMin = RetryWaitMin
	c.RetryWaitMax = RetryWaitMax
	c.CheckRetry = checkRetry
	c.Backoff = backoff
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = MaxInFlight
	// No http.Client.Timeout: it would count the queue for a slot and for the limiter.
	c.HTTPClient = &http.Client{{Transport: &pacedTransport{{
		next:    transport,
		slots:   make(chan struct{{}}, MaxInFlight),
		limiter: rate.NewLimiter(rate.Every(MinInterval), 1),
	}}}}
	return c
}}

// Do sends req with every attempt and every wait (Retry-After, backoff, the queue) within
// RetryDeadline from now: a context deadline on top of any the request has. A Retry-After
// that does not fit in what is left ends the request with that response. Close the body.
func Do(c *retryablehttp.Client, req *retryablehttp.Request) (*http.Response, error) {{
	ctx, cancel := context.WithTimeout(req.Context(), RetryDeadline)
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil || resp == nil {{
		cancel()
		return resp, err
	}}
	resp.Body = &closeHook{{ReadCloser: resp.Body, done: cancel}}
	return resp, nil
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

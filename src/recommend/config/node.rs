//! Node: bottleneck for the start rate and the concurrency cap, p-retry (≥ 7) for the retries,
//! with a Retry-After-aware wait. An ES module to import.

use super::{header, Emitted, Policy, Target};

/// Reservoir: the whole-request allowance per refresh interval (the limit's window, or a minute
/// for windows under a minute or over an hour), rounded down.
pub fn reservoir(rate_per_second: f64, window_s: f64) -> (u64, u64) {
    let w = if (60.0..=3600.0).contains(&window_s) {
        window_s
    } else {
        60.0
    };
    let n = (rate_per_second * w + 1e-9).floor().max(1.0);
    (n as u64, (w * 1000.0) as u64)
}

pub fn emit(p: &Policy) -> Emitted {
    let r = &p.retry;
    let (res, res_ms) = reservoir(p.rate.rate_per_second, p.limit.window_s);
    let cannot = vec![
        "p-retry has no full jitter (randomize multiplies by 1–2) and reads no headers: the onFailedAttempt hook below adds the Retry-After wait, and p-retry's own backoff still runs after it".into(),
        "p-retry has no method filter: wrap only idempotent calls (shouldRetry below checks the method you pass)".into(),
        "bottleneck's rate is per process: several processes need a shared (Redis) limiter or a split of the target".into(),
    ];
    let how = vec![
        "Use: import { call } from \"./toomany-client.mjs\"; await call(\"GET\", () => fetch(url)). Needs bottleneck and p-retry ≥ 7.".to_string(),
        format!(
            "retries counts RETRIES: {} attempts = retries {}. minTime {} ms between starts; reservoir {} per {} s; maxConcurrent {}.",
            r.max_attempts,
            r.retries(),
            p.rate.min_interval_ms,
            res,
            res_ms / 1000,
            p.concurrency.max_in_flight
        ),
    ];
    let head = header(
        "//",
        p,
        "Node bottleneck + p-retry client policy",
        &how,
        &cannot,
    );
    let methods = super::quoted_list(&r.retry_methods);
    let statuses = super::status_list(&r.retry_on_status);
    let body = format!(
        r#"import Bottleneck from "bottleneck";
import pRetry, {{ AbortError }} from "p-retry";

export const limiterOptions = {{
  maxConcurrent: {c},
  minTime: {interval},
  reservoir: {res},
  reservoirRefreshAmount: {res},
  reservoirRefreshInterval: {res_ms},
}};

export const retryOptions = {{
  retries: {retries},
  factor: 2,
  minTimeout: {base},
  maxTimeout: {cap},
  randomize: true,
  maxRetryTime: {deadline},
}};

export const RETRY_AFTER_SPREAD_MS = {spread};
const RETRY_STATUSES = new Set([{statuses}]);
const IDEMPOTENT = new Set([{methods}]);

export const limiter = new Bottleneck(limiterOptions);

function sleep(ms) {{
  return new Promise((resolve) => setTimeout(resolve, ms));
}}

// Retry-After in milliseconds (delay-seconds or an HTTP-date), or undefined.
function retryAfterMs(response) {{
  const v = response?.headers?.get?.("retry-after");
  if (v == null) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}}

// One logical request: spaced and capped by the limiter, retried on 429/503 for idempotent
// methods, waiting at least the server's Retry-After and giving up when it exceeds the deadline.
export async function call(method, send) {{
  const started = Date.now();
  return pRetry(
    async () => {{
      const response = await limiter.schedule(send);
      if (RETRY_STATUSES.has(response.status)) {{
        const err = new Error(`HTTP ${{response.status}}`);
        err.response = response;
        throw err;
      }}
      return response;
    }},
    {{
      ...retryOptions,
      shouldRetry: ({{ error }}) => IDEMPOTENT.has(method.toUpperCase()) && error.response !== undefined,
      onFailedAttempt: async ({{ error }}) => {{
        if (!IDEMPOTENT.has(method.toUpperCase())) return;
        const ra = retryAfterMs(error.response);
        if (ra === undefined) return;
        const left = retryOptions.maxRetryTime - (Date.now() - started);
        if (ra > left) throw new AbortError(`Retry-After ${{ra}} ms exceeds the deadline: stop or reschedule`);
        await sleep(ra + Math.random() * RETRY_AFTER_SPREAD_MS);
      }},
    }},
  );
}}
"#,
        c = p.concurrency.max_in_flight,
        interval = p.rate.min_interval_ms,
        retries = r.retries(),
        base = r.base_ms,
        cap = r.cap_ms,
        deadline = r.deadline_ms,
        spread = r.retry_after_spread_ms,
    );
    Emitted {
        target: Target::Bottleneck,
        file_name: "toomany-client.mjs".into(),
        contents: format!("{head}\n{body}"),
        cannot_express: cannot,
    }
}

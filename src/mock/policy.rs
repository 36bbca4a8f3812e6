//! What the mock limits: one or more limits at once (requests per minute *and* tokens per
//! minute *and* requests per day), each a limiter model from `src/limiter/` with what a request
//! costs it and what it is keyed on (one budget for everyone, per client IP, per API key).
//!
//! A limit is written `SPEC[,cost=…][,key=…][,name=…]`:
//!
//! - `cost=request` (the default) counts requests; `cost=body:max_tokens` reads a number from
//!   the JSON body (a dotted path, `usage.total_tokens`), falling back to the estimate when the
//!   field is missing; `cost=header:X-Cost` reads a request header; `cost=estimate` is the body's
//!   length in bytes / 4, rounded up (the usual "a token is about four characters");
//!   `cost=points:1/5` counts 1 for GET/HEAD/OPTIONS and 5 for any other method (GitHub's
//!   secondary limit points).
//! - `key=global` (the default) is one budget; `key=ip` per client address; `key=client` per
//!   `X-Client-Id` / `X-Worker-Id` (else the address); `key=credential` per API key
//!   (`Authorization`, `X-Api-Key`, `Api-Key`, `X-Shopify-Access-Token`,
//!   `Ocp-Apim-Subscription-Key`, `apikey`; else the address); `key=header:NAME` per a header's
//!   value (else the address). Credentials are kept as keyed fingerprints, never as written.
//!
//! A request is admitted when every limit admits it. A refused request takes nothing from the
//! limits that would have admitted it (nginx: "excessive requests are … terminated", and a
//! rejected request does not consume); the limit that refused keeps whatever its model does
//! with a refusal (Kong's `count-rejected`).

use crate::limiter::{parse_spec, Decision, Limiter, Nanos, Spec, SpecError};
use std::collections::HashMap;

/// Largest cost read from a body or header (keeps the models' arithmetic far from overflow).
pub const MAX_COST: u64 = 1_000_000_000;
/// Distinct keys one limit tracks; past this, new keys share one budget (`~overflow`), so a
/// client that invents keys cannot grow the mock's memory without bound.
pub const MAX_KEYS: usize = 100_000;

/// What a request costs a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cost {
    Request,
    /// A number at a dotted path in the JSON body, else [`Cost::Estimate`].
    Field(Vec<String>),
    /// A request header's number, else 1.
    Header(String),
    /// Body bytes / 4, rounded up, at least 1.
    Estimate,
    /// `read` for GET/HEAD/OPTIONS, `write` for other methods.
    Points {
        read: u64,
        write: u64,
    },
}

/// What a limit is keyed on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Global,
    Ip,
    Client,
    Credential,
    Header(String),
}

/// One limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub name: String,
    pub spec: Spec,
    pub cost: Cost,
    pub key: Key,
}

/// Request headers that carry an API key, tried in order by `key=credential`.
pub const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "x-api-key",
    "api-key",
    "x-shopify-access-token",
    "ocp-apim-subscription-key",
    "apikey",
];

pub const LIMIT_FORMS: &str = "a limit is SPEC[,cost=request|body:PATH|header:NAME|estimate|points:R/W][,key=global|ip|client|credential|header:NAME][,name=NAME]";

/// Why a mock limit (`SPEC[,cost=…][,key=…][,name=…]`) cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LimitError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("cost=points:{rw}: write points:READ/WRITE, e.g. 1/5")]
    PointsForm { rw: String },
    #[error("cost=points:{rw}: {value:?} is not a whole number ≥ 1")]
    Points { rw: String, value: String },
    #[error("cost={cost}: unknown cost; {}", LIMIT_FORMS)]
    UnknownCost { cost: String },
    #[error("key={key}: unknown key; {}", LIMIT_FORMS)]
    UnknownKey { key: String },
    #[error("name={name}: letters, digits and '-' only")]
    Name { name: String },
    #[error("{name}: a {model} counts requests, not a cost; use fixed-window, sliding-window, token-bucket, gcra or daily for a token or point budget")]
    CostNotCounted { name: String, model: &'static str },
}

fn parse_cost(v: &str) -> Result<Cost, LimitError> {
    let v = v.trim();
    Ok(match v.split_once(':') {
        None if v == "request" => Cost::Request,
        None if v == "estimate" => Cost::Estimate,
        Some(("body", path)) if !path.trim().is_empty() => {
            Cost::Field(path.trim().split('.').map(str::to_string).collect())
        }
        Some(("header", name)) if !name.trim().is_empty() => {
            Cost::Header(name.trim().to_ascii_lowercase())
        }
        Some(("points", rw)) => {
            let (r, w) = rw
                .split_once('/')
                .ok_or_else(|| LimitError::PointsForm { rw: rw.to_string() })?;
            let n = |x: &str| {
                x.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=MAX_COST).contains(n))
                    .ok_or_else(|| LimitError::Points {
                        rw: rw.to_string(),
                        value: x.to_string(),
                    })
            };
            Cost::Points {
                read: n(r)?,
                write: n(w)?,
            }
        }
        _ => {
            return Err(LimitError::UnknownCost {
                cost: v.to_string(),
            })
        }
    })
}

fn parse_key(v: &str) -> Result<Key, LimitError> {
    let v = v.trim();
    Ok(match v.split_once(':') {
        None if v == "global" => Key::Global,
        None if v == "ip" => Key::Ip,
        None if v == "client" => Key::Client,
        None if v == "credential" => Key::Credential,
        Some(("header", name)) if !name.trim().is_empty() => {
            Key::Header(name.trim().to_ascii_lowercase())
        }
        _ => return Err(LimitError::UnknownKey { key: v.to_string() }),
    })
}

/// Split the mock's own options (`cost=`, `key=`, `name=`) from the model's.
fn split_options(text: &str) -> (String, Vec<(&str, &str)>) {
    let mut model = Vec::new();
    let mut ours = Vec::new();
    for part in text.split(',') {
        match part.trim().split_once('=') {
            Some((k, v)) if matches!(k.trim(), "cost" | "key" | "name") => {
                ours.push((k.trim(), v.trim()))
            }
            _ => model.push(part),
        }
    }
    (model.join(","), ours)
}

impl Limit {
    /// `SPEC[,cost=…][,key=…][,name=…]`.
    pub fn parse(text: &str) -> Result<Limit, LimitError> {
        let (spec_text, ours) = split_options(text);
        let spec = parse_spec(&spec_text)?;
        let mut limit = Limit {
            name: spec.model_name().to_string(),
            spec,
            cost: Cost::Request,
            key: Key::Global,
        };
        limit.apply(&ours)?;
        Ok(limit)
    }

    fn apply(&mut self, ours: &[(&str, &str)]) -> Result<(), LimitError> {
        for (k, v) in ours {
            match *k {
                "cost" => self.cost = parse_cost(v)?,
                "key" => self.key = parse_key(v)?,
                _ => {
                    if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                        return Err(LimitError::Name {
                            name: v.to_string(),
                        });
                    }
                    self.name = v.to_string();
                }
            }
        }
        if self.cost != Cost::Request && !Limiter::counts_cost(&self.spec) {
            return Err(LimitError::CostNotCounted {
                name: self.name.clone(),
                model: self.spec.model_name(),
            });
        }
        Ok(())
    }

    /// This limit with new numbers from `text`: a whole spec (`fixed-window:10/min`) replaces the
    /// model too; numbers alone (`10/min`, `4/s,burst=80`, `2`) keep the model and the options
    /// not given (burst, align, …); `cost=`/`key=` may be given as well; the name stays.
    pub fn overridden(&self, text: &str) -> Result<Limit, LimitError> {
        let (numbers, ours) = split_options(text);
        let base = self.spec.to_string();
        let (model, rest) = base.split_once(':').unwrap_or((&base, ""));
        let full = if numbers.contains(':') {
            numbers
        } else {
            let mut new: Vec<&str> = numbers.split(',').map(str::trim).collect();
            let given: Vec<&str> = new[1..]
                .iter()
                .map(|o| o.split('=').next().unwrap_or(o))
                .collect();
            // The preset's options, less the ones given anew.
            for o in rest.split(',').skip(1) {
                if !given.contains(&o.split('=').next().unwrap_or(o)) {
                    new.push(o);
                }
            }
            format!("{model}:{}", new.join(","))
        };
        let mut limit = Limit {
            name: self.name.clone(),
            spec: parse_spec(&full)?,
            cost: self.cost.clone(),
            key: self.key.clone(),
        };
        limit.apply(&ours)?;
        Ok(limit)
    }
}

/// What the policy needs to know of a request.
pub struct RequestFacts<'a> {
    pub method: &'a str,
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
    pub ip: &'a str,
    pub client: &'a str,
}

impl RequestFacts<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn estimate(body: &[u8]) -> u64 {
    (body.len() as u64).div_ceil(4).clamp(1, MAX_COST)
}

fn number(v: &serde_json::Value) -> Option<u64> {
    match v {
        serde_json::Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f.ceil() as u64)),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .map(|n| n.min(MAX_COST))
}

impl Cost {
    /// The cost of a request; `json` is the body parsed once (if any limit reads it).
    pub fn of(&self, r: &RequestFacts, json: Option<&serde_json::Value>) -> u64 {
        match self {
            Cost::Request => 1,
            Cost::Estimate => estimate(r.body),
            Cost::Field(path) => json
                .and_then(|v| path.iter().try_fold(v, |v, p| v.get(p.as_str())))
                .and_then(number)
                .unwrap_or_else(|| estimate(r.body)),
            Cost::Header(name) => r
                .header(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map_or(1, |n| n.min(MAX_COST)),
            Cost::Points { read, write } => {
                if matches!(r.method, "GET" | "HEAD" | "OPTIONS") {
                    *read
                } else {
                    *write
                }
            }
        }
    }

    pub fn reads_body(&self) -> bool {
        matches!(self, Cost::Field(_))
    }
}

impl Key {
    /// The key a request is counted under; `fingerprint` turns a credential into a stable,
    /// keyed token so no secret is kept.
    pub fn of(&self, r: &RequestFacts, fingerprint: &dyn Fn(&str) -> String) -> String {
        match self {
            Key::Global => String::new(),
            Key::Ip => r.ip.to_string(),
            Key::Client => r.client.to_string(),
            Key::Credential => CREDENTIAL_HEADERS
                .iter()
                .find_map(|h| r.header(h))
                .map_or_else(|| r.ip.to_string(), fingerprint),
            Key::Header(name) => r.header(name).map_or_else(|| r.ip.to_string(), fingerprint),
        }
    }
}

/// The decisions on one request, one per limit.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub decisions: Vec<Decision>,
    pub costs: Vec<u64>,
    pub keys: Vec<String>,
    pub admitted: bool,
    /// The limit that decided: the refusing one with the longest wait (one with no known wait
    /// ranks last), or the first limit when admitted.
    pub binding: usize,
    /// The longest hold among the limits (nginx-style delays).
    pub delay_ns: u64,
    /// The longest known wait among the refusing limits.
    pub retry_after_ns: Option<u64>,
}

impl Outcome {
    pub fn binding(&self) -> &Decision {
        &self.decisions[self.binding]
    }
}

/// The limits and their per-key state.
/// Keys to limiters; foldhash's seeded quality hasher (SipHash was ~2.5 % of the mock's CPU
/// under load), the key count bounded by [`MAX_KEYS`].
type Table = HashMap<String, Limiter, foldhash::quality::RandomState>;

#[derive(Debug)]
pub struct State {
    pub limits: Vec<Limit>,
    tables: Vec<Table>,
}

/// A concurrency slot an admitted request holds: (limit, key).
pub type Held = Vec<(usize, String)>;

impl State {
    pub fn new(limits: Vec<Limit>) -> State {
        let tables = limits.iter().map(|_| Table::default()).collect();
        State { limits, tables }
    }

    fn limiter(&mut self, i: usize, key: &str) -> &mut Limiter {
        let table = &mut self.tables[i];
        let key = if table.len() >= MAX_KEYS && !table.contains_key(key) {
            "~overflow"
        } else {
            key
        };
        let spec = &self.limits[i].spec;
        table
            .entry(key.to_string())
            .or_insert_with(|| Limiter::new(spec))
    }

    /// Decide on a request at `now` with its per-limit keys and costs. Returns the outcome and
    /// the concurrency slots an admitted request now holds (release them with [`State::release`]).
    pub fn decide(&mut self, now: Nanos, keys: Vec<String>, costs: Vec<u64>) -> (Outcome, Held) {
        let n = self.limits.len();
        let mut decisions = Vec::with_capacity(n);
        let mut tried = Vec::with_capacity(n);
        if n == 1 {
            decisions.push(self.limiter(0, &keys[0]).admit_cost(now, costs[0]));
        } else {
            // Try each on a copy; commit the copies once every limit has spoken.
            for i in 0..n {
                let mut l = self.limiter(i, &keys[i]).clone();
                decisions.push(l.admit_cost(now, costs[i]));
                tried.push(l);
            }
        }
        let admitted = decisions.iter().all(|d| d.admitted);
        for (i, l) in tried.into_iter().enumerate() {
            if admitted || !decisions[i].admitted {
                *self.limiter(i, &keys[i]) = l;
            } else {
                // Would have admitted, but nothing was taken: advertise what is still there.
                let q = &mut decisions[i].quota;
                q.remaining = q
                    .remaining
                    .saturating_add(costs[i])
                    .min(q.limit.max(q.burst.unwrap_or(0)));
            }
        }
        let binding = if admitted {
            0
        } else {
            (0..n)
                .filter(|&i| !decisions[i].admitted)
                .max_by_key(|&i| {
                    (
                        decisions[i].retry_after_ns.is_some(),
                        decisions[i].retry_after_ns,
                    )
                })
                .unwrap_or(0)
        };
        let held = if admitted {
            (0..n)
                .filter(|&i| matches!(self.limits[i].spec, Spec::Concurrency { .. }))
                .map(|i| (i, keys[i].clone()))
                .collect()
        } else {
            Vec::new()
        };
        let outcome = Outcome {
            delay_ns: decisions.iter().map(|d| d.delay_ns).max().unwrap_or(0),
            retry_after_ns: decisions
                .iter()
                .filter(|d| !d.admitted)
                .filter_map(|d| d.retry_after_ns)
                .max(),
            decisions,
            costs,
            keys,
            admitted,
            binding,
        };
        (outcome, held)
    }

    /// Free the concurrency slots a request held.
    pub fn release(&mut self, now: Nanos, held: &Held) {
        for (i, key) in held {
            if let Some(l) = self.tables[*i].get_mut(key) {
                l.release(now);
            } else if let Some(l) = self.tables[*i].get_mut("~overflow") {
                l.release(now);
            }
        }
    }
}

#[cfg(test)]
mod tests;

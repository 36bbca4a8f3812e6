//! JSON-lines request logs: one object per line, canonical field names or common aliases, and
//! `--map canonical=dotted.path` for anything else. Lines are read with a length cap (a single
//! 1 GB line is skipped with a warning, not loaded) and parsed in parallel chunks.

use super::caps::{self, Cap};
use super::lazy::{self, Node, Obj, Val, Wanted};
use super::pipeline::{self, Done};
use super::{warn, Options, ReadOutcome, Tail, ViewMap};
use crate::http::date::{epoch_to_datetime, parse_timestamp};
use crate::http::stated::is_limit_header;
use crate::memo::Memo;
use crate::model::view::{self as record_view, RecordView};
use crate::model::{Headers, Location, Position, Request, Warning};
use crate::model::{Incomplete, IncompleteKind};
use crate::redact::{HeaderRule, Redactor};
use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

mod view;

/// Longest line we parse; longer lines are skipped with a warning.
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Whole lines handed to one worker at once.
const CHUNK_BYTES: usize = 1024 * 1024;
/// Most bytes taken from the reader per step.
const READ_STEP: usize = 256 * 1024;
/// Room a chunk buffer starts with: a chunk, one read step past it and the start of the line
/// that crosses its end, so a buffer is never grown (and copied) while it fills.
const CHUNK_CAPACITY: usize = CHUNK_BYTES + READ_STEP + 64 * 1024;
/// Chunk buffers kept for reuse (more than are ever in flight: 3 per worker, see `pipeline`).
const POOLED_BUFFERS: usize = 32;

/// Chunk buffers the workers hand back when they are done with a job, for the reader to fill
/// again: without them every MiB of input is a fresh allocation whose pages the kernel must
/// fault in and zero (5 % of `-j 1` CPU on a 200 MB log, see docs/performance.md). A buffer
/// that grew far past a chunk (a long line) is dropped, so the pool stays bounded. A returned
/// buffer keeps its length: its bytes (stale input, as a cleared buffer's memory holds anyway)
/// are already initialized, so [`split_lines`] reads into them without zeroing them first.
#[derive(Default)]
struct Buffers(std::sync::Mutex<Vec<Vec<u8>>>);

impl Buffers {
    /// A buffer with room for a chunk; its contents are stale bytes to be read over.
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut free| free.pop())
            .unwrap_or_else(|| Vec::with_capacity(CHUNK_CAPACITY))
    }

    fn give(&self, buf: Vec<u8>) {
        if buf.capacity() < CHUNK_CAPACITY || buf.capacity() > 4 * CHUNK_CAPACITY {
            return;
        }
        if let Ok(mut free) = self.0.lock() {
            if free.len() < POOLED_BUFFERS {
                free.push(buf);
            }
        }
    }
}

/// Canonical fields and the paths tried for each, in order. `--map` entries go first.
const ALIASES: &[(&str, &[&str])] = &[
    (
        "time",
        &[
            "time",
            "timestamp",
            "@timestamp",
            "ts",
            "start_time",
            "startTime",
            "datetime",
            "date",
        ],
    ),
    (
        "method",
        &[
            "method",
            "request_method",
            "http_method",
            "verb",
            "request.method",
            "http.method",
            "http.request.method",
        ],
    ),
    (
        "url",
        &[
            "url",
            "request_url",
            "uri",
            "request_uri",
            "request.url",
            "http.url",
            "url.full",
        ],
    ),
    (
        "host",
        &[
            "host",
            "hostname",
            "server_name",
            "request.host",
            "http.host",
            "url.domain",
        ],
    ),
    ("path", &["path", "request_path", "url.path"]),
    (
        "status",
        &[
            "status",
            "status_code",
            "response_code",
            "statusCode",
            "response_status",
            "response.status",
            "http.status_code",
            "http.response.status_code",
        ],
    ),
    (
        "duration_ms",
        &[
            "duration_ms",
            "latency_ms",
            "elapsed_ms",
            "response_time_ms",
            "duration",
            "response_time",
            "latency",
            "elapsed",
            "request_time",
        ],
    ),
    (
        "request_headers",
        &[
            "request_headers",
            "req_headers",
            "request.headers",
            "http.request.headers",
        ],
    ),
    (
        "response_headers",
        &[
            "response_headers",
            "resp_headers",
            "headers",
            "response.headers",
            "http.response.headers",
        ],
    ),
    (
        "response_body",
        &[
            "response_body",
            "body",
            "response.body",
            "http.response.body.content",
        ],
    ),
    (
        "client",
        &["client", "client_id", "caller", "service", "worker"],
    ),
    (
        "request_id",
        &["request_id", "requestId", "req_id", "trace_id"],
    ),
    (
        "client_ip",
        &["client_ip", "remote_addr", "ip", "clientip", "source.ip"],
    ),
    (
        "user_agent",
        &[
            "user_agent",
            "http_user_agent",
            "userAgent",
            "user_agent.original",
        ],
    ),
    ("retry_after", &["retry_after", "sent_http_retry_after"]),
];

/// Canonical fields by their place in [`ALIASES`] (a test holds the two together), so a
/// lookup indexes the paths instead of comparing names.
mod field {
    pub const TIME: usize = 0;
    pub const METHOD: usize = 1;
    pub const URL: usize = 2;
    pub const HOST: usize = 3;
    pub const PATH: usize = 4;
    pub const STATUS: usize = 5;
    pub const DURATION_MS: usize = 6;
    pub const REQUEST_HEADERS: usize = 7;
    pub const RESPONSE_HEADERS: usize = 8;
    pub const RESPONSE_BODY: usize = 9;
    pub const CLIENT: usize = 10;
    #[allow(dead_code)] // read by no lookup yet; keeps the places in step with ALIASES
    pub const REQUEST_ID: usize = 11;
    pub const CLIENT_IP: usize = 12;
    pub const USER_AGENT: usize = 13;
    pub const RETRY_AFTER: usize = 14;
}

/// Fields that hold the caller's key id, tried in order when no header or query names one.
const KEY_ID_FIELDS: &[&str] = &["api_key", "api_key_id", "key_id", "credential"];

/// The top-level fields a line is parsed into: whatever an alias, a `--map` path or
/// `request_body` and the [`KEY_ID_FIELDS`] can reach (the rest of a line is validated and skipped).
fn wanted_fields(map: &[(String, String)]) -> Wanted {
    let aliases = ALIASES.iter().flat_map(|(_, paths)| paths.iter().copied());
    let mapped = map.iter().map(|(_, path)| path.as_str());
    let other = std::iter::once("request_body").chain(KEY_ID_FIELDS.iter().copied());
    Wanted::of(aliases.chain(mapped).chain(other))
}

/// Durations written in seconds by convention (nginx `$request_time`).
const SECONDS_FIELDS: &[&str] = &["request_time", "elapsed"];

/// The value at `path` of `o`: an exact key wins ("@timestamp", "url.full" written flat), else
/// the dots are walked through nested objects (split only when a path goes through them).
fn lookup<'n, 'a>(o: &'n Obj<'a>, path: &str) -> Option<Cow<'n, Node<'a>>> {
    if let Some(x) = o.get(path) {
        return Some(Cow::Borrowed(x));
    }
    let (first, rest) = path.split_once('.')?;
    walk(o.get(first)?, rest)
}

/// The value at the dotted `rest` of a path inside `start` (the value of its first part).
fn walk<'n, 'a>(start: &'n Node<'a>, rest: &str) -> Option<Cow<'n, Node<'a>>> {
    let mut cur = Cow::Borrowed(start);
    for part in rest.split('.') {
        cur = match cur {
            Cow::Borrowed(n) => match Obj::of(n)? {
                Cow::Borrowed(inner) => Cow::Borrowed(inner.get(part)?),
                Cow::Owned(inner) => Cow::Owned(inner.get(part)?.clone()),
            },
            // Raw text split on the way (lines read the fallback way): owned from here on.
            Cow::Owned(n) => Cow::Owned(Obj::of(&n)?.get(part)?.clone()),
        };
    }
    Some(cur)
}

/// One path a field may be read from, with the key bits ([`lazy::key_bit`]) of its whole text
/// and of its first dotted part: an object holding neither key cannot hold the path, which
/// rules out most aliases of a line without a string operation.
struct Path {
    path: Box<str>,
    bits: u64,
}

/// Every canonical field's paths in the order [`find`] tries them: its `--map` paths, then its
/// aliases. Built once per input.
struct Paths {
    fields: Vec<(&'static str, Vec<Path>)>,
    /// The `--map` paths whose last name is a secret's (`--map client=api_key`): a value read
    /// from one is shown as its token, whatever it holds.
    secret: Vec<Box<str>>,
}

impl Paths {
    fn of(map: &[(String, String)]) -> Paths {
        let path = |p: &str| {
            let first = p.split_once('.').map_or(p, |(first, _)| first);
            Path {
                path: p.into(),
                bits: lazy::key_bit(p) | lazy::key_bit(first),
            }
        };
        let secret = map
            .iter()
            .map(|(_, p)| p.as_str())
            .filter(|p| {
                let last = p.rsplit('.').next().unwrap_or(p);
                crate::redact::is_secret_json_field(last)
                    || crate::redact::is_secret_field(last)
                    || crate::redact::is_secret_header(last)
            })
            .map(Box::from)
            .collect();
        Paths {
            secret,
            fields: ALIASES
                .iter()
                .map(|(field, aliases)| {
                    let mapped = map
                        .iter()
                        .filter(|(c, _)| c == field)
                        .map(|(_, p)| p.as_str());
                    (
                        *field,
                        mapped.chain(aliases.iter().copied()).map(path).collect(),
                    )
                })
                .collect(),
        }
    }

    /// Was `path` mapped and named like a secret?
    fn is_secret(&self, path: &str) -> bool {
        !self.secret.is_empty() && self.secret.iter().any(|s| **s == *path)
    }
}

/// How one input's lines are read: the top-level fields parsed, and where each canonical field
/// is looked for.
struct Schema {
    wanted: Wanted,
    paths: Paths,
}

/// The paths of every canonical field, and where they are in the layout of the line being
/// read when it has one ([`lazy::Template`]).
struct Lookup<'m> {
    paths: &'m Paths,
    /// [`Places`] of the line's layout (`None`: the line has none, or the caller keeps none).
    places: Option<&'m Places>,
}

impl<'m> Lookup<'m> {
    /// Every path tried in turn, line after line.
    fn plain(paths: &'m Paths) -> Lookup<'m> {
        Lookup {
            paths,
            places: None,
        }
    }
}

/// The first non-null value among `--map` paths for `field` (a [`field`] index), then its aliases, with the path
/// that gave it.
///
/// Inlined: its answer returned through memory was stored in pieces and read back whole (a
/// store-forwarding stall that made it ~4 % of a run).
#[inline(always)]
fn find<'n, 'a, 'p>(
    o: &'n Obj<'a>,
    field: usize,
    map: &Lookup<'p>,
) -> Option<(Cow<'n, Node<'a>>, &'p str)> {
    if let Some(places) = map.places.filter(|p| p.shape == o.shape() && p.shape != 0) {
        match places.find(o, field, map.paths) {
            Placed::Found(node, path) => return Some((node, path)),
            Placed::Absent => return None,
            Placed::Walked => {}
        }
    }
    find_anywhere(o, field, map.paths)
}

/// [`find`] without a layout: every path tried in turn.
#[inline(never)]
fn find_anywhere<'n, 'a, 'p>(
    o: &'n Obj<'a>,
    field: usize,
    paths: &'p Paths,
) -> Option<(Cow<'n, Node<'a>>, &'p str)> {
    let (_, paths) = paths.fields.get(field)?;
    let keys = o.key_bits();
    paths.iter().find_map(|p| {
        if keys & p.bits == 0 {
            return None;
        }
        lookup(o, &p.path)
            .filter(|x| holds(field, x))
            .map(|x| (x, &*p.path))
    })
}

/// Whether `node` can be `field`'s value: not null, and for a field read as one value (all but
/// the header maps and the body) not an object or array either. Elastic's Common Schema writes
/// `"url": {"full": …}` and `"user_agent": {"original": …}`: the `url` alias then names the
/// object, and the field is read from the next path (`url.full`) instead.
#[inline(always)]
fn holds(field: usize, node: &Node<'_>) -> bool {
    let scalar = !matches!(
        field,
        field::REQUEST_HEADERS | field::RESPONSE_HEADERS | field::RESPONSE_BODY
    );
    match node {
        Node::Null => false,
        Node::Obj(_) | Node::Arr(_) => !scalar,
        Node::Raw(r) => {
            let t = r.get().trim();
            t != "null" && !(scalar && (t.starts_with('{') || t.starts_with('[')))
        }
        _ => true,
    }
}

/// Where a path of a field can be in an object of one layout ([`lazy::Template`]).
#[derive(Clone, Copy, Debug)]
enum Place {
    /// The top-level field at this index holds the whole path (the last of that key).
    Top { at: u32, path: u16 },
    /// The path goes through the object at this top-level index (the last of its first part's
    /// key, as [`lookup`] takes it): walked from there line by line.
    Nested { at: u32, path: u16 },
}

/// What [`Places::find`] knows: the field's value, that it has none, or that the line must be
/// searched path by path after all ([`find_anywhere`]; a line whose fields are not where its
/// layout's are).
enum Placed<'n, 'a, 'p> {
    Found(Cow<'n, Node<'a>>, &'p str),
    Absent,
    Walked,
}

/// [`find`]'s candidates per field for the lines of one layout: the paths that can be there
/// at all, in [`find`]'s order, with the index of those that are top-level keys. Lines of one
/// layout have the same keys in the same places, so only the values (null or not, and what is
/// inside a nested object) are left to look at line by line.
#[derive(Default, Debug)]
struct Places {
    /// The layout (0: none yet).
    shape: u32,
    fields: Vec<Box<[Place]>>,
}

impl Places {
    /// Make these the places of `o`'s layout, unless they are already.
    fn learn(&mut self, o: &Obj<'_>, paths: &Paths) {
        if self.shape == o.shape() || o.shape() == 0 {
            return;
        }
        self.shape = o.shape();
        self.fields = paths.fields.iter().map(|(_, p)| Self::of(o, p)).collect();
    }

    #[inline(always)]
    fn find<'n, 'a, 'p>(
        &self,
        o: &'n Obj<'a>,
        field: usize,
        paths: &'p Paths,
    ) -> Placed<'n, 'a, 'p> {
        let (Some(places), Some((_, field_paths))) =
            (self.fields.get(field), paths.fields.get(field))
        else {
            return Placed::Walked;
        };
        for place in places.iter() {
            match *place {
                Place::Top { at, path } => {
                    let (Some((_, node)), Some(p)) =
                        (o.fields().get(at as usize), field_paths.get(path as usize))
                    else {
                        return Placed::Walked;
                    };
                    if holds(field, node) {
                        return Placed::Found(Cow::Borrowed(node), &p.path);
                    }
                }
                Place::Nested { at, path } => {
                    let (Some((_, node)), Some(p)) =
                        (o.fields().get(at as usize), field_paths.get(path as usize))
                    else {
                        return Placed::Walked;
                    };
                    let Some((_, rest)) = p.path.split_once('.') else {
                        return Placed::Walked;
                    };
                    if let Some(x) = walk(node, rest).filter(|x| holds(field, x)) {
                        return Placed::Found(x, &p.path);
                    }
                }
            }
        }
        Placed::Absent
    }

    /// The candidates of one field in `o`'s layout, as [`find`] would try them.
    fn of(o: &Obj<'_>, paths: &[Path]) -> Box<[Place]> {
        let keys = o.key_bits();
        let fields = o.fields();
        let mut out = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            if keys & p.bits == 0 {
                continue;
            }
            if let Some(at) = fields.iter().rposition(|(k, _)| **k == *p.path) {
                out.push(Place::Top {
                    at: at as u32,
                    path: i as u16,
                });
            } else if let Some(at) = p.path.split_once('.').and_then(|(first, _)| {
                // `o.get(first)`: the last field of that key.
                (keys & lazy::key_bit(first) != 0)
                    .then(|| fields.iter().rposition(|(k, _)| **k == *first))
                    .flatten()
            }) {
                out.push(Place::Nested {
                    at: at as u32,
                    path: i as u16,
                });
            }
        }
        out.into_boxed_slice()
    }
}

/// A scalar as text (numbers as `serde_json::Value` prints them), cut to `cap` with a note.
fn text_of<'a>(
    raw: &Node<'a>,
    cap: Cap,
    field: &str,
    warns: &mut Vec<String>,
) -> Option<Cow<'a, str>> {
    // A borrowed string, the common case, without decoding the node's kind.
    if let Node::Str(Cow::Borrowed(s)) = raw {
        if s.len() <= cap.max {
            return Some(Cow::Borrowed(s));
        }
    }
    let s: Cow<'a, str> = match lazy::val(raw) {
        Val::Str(s) => s,
        Val::Num(n) => Cow::Owned(n.to_string()),
        Val::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
        _ => return None,
    };
    if s.len() > cap.max {
        warns.push(caps::cut_note(field, s.len() as u64, cap.max));
        return Some(Cow::Owned(caps::cut(&s, cap.max).to_string()));
    }
    Some(s)
}

fn found_text<'a>(
    o: &Obj<'a>,
    field: usize,
    map: &Lookup<'_>,
    cap: Cap,
    warns: &mut Vec<String>,
) -> Option<Cow<'a, str>> {
    let (raw, path) = find(o, field, map)?;
    text_of(&raw, cap, path, warns)
}

/// [`found_text`] for a value shown as it is read (client, client IP, user agent, method,
/// Retry-After): one read through a `--map` path named like a secret is its token.
fn found_shown<'a>(
    o: &Obj<'a>,
    field: usize,
    map: &Lookup<'_>,
    red: &Redactor,
    cap: Cap,
    warns: &mut Vec<String>,
) -> Option<Cow<'a, str>> {
    let (raw, path) = find(o, field, map)?;
    let text = text_of(&raw, cap, path, warns)?;
    if map.paths.is_secret(path) {
        return Some(Cow::Owned(red.token(&text)));
    }
    Some(text)
}

/// An unredacted request header (name, value), borrowed from the line when it can be.
type RawHeader<'a> = (Cow<'a, str>, Cow<'a, str>);

/// Room reserved for one full record's header map: its stored names and values, and its
/// fields (a dozen; then `shrink_to_fit`).
const HEADERS_TEXT_HINT: usize = 192;
const HEADERS_HINT: usize = 8;

/// Redacted headers, appended to `h`; `raw` collects the unredacted pairs
/// [`Redactor::credential`] may read when the caller needs them, `cap` bounds each stored
/// value, and only names `keep` accepts are redacted and stored (every name, for a full
/// record; what a [`RecordView`] reads, for a record that only becomes an event). Every field is read whatever `keep` says, so the
/// warnings are the same. Accepts an object (`{"Name": "v"}` or `{"Name": ["v1", "v2"]}`), a
/// list of `{name, value}` objects, or a list of `[name, value]` pairs.
///
/// [`RecordView`]: crate::model::view::RecordView
#[allow(clippy::too_many_arguments)]
fn fill_headers<'a>(
    h: &mut Headers,
    v: &Node<'a>,
    redactor: &Redactor,
    mut raw: Option<&mut Vec<RawHeader<'a>>>,
    mut idem: Option<&mut Option<RawIdem<'a>>>,
    cap: usize,
    keep: NameFilter,
    warns: &mut Vec<String>,
    field: &str,
) -> Firsts {
    let mut firsts = Firsts::default();
    let mut push_named = |full_name: &Cow<'a, str>,
                          name: &str,
                          info: NameInfo,
                          value: &Node<'a>,
                          warns: &mut Vec<String>| {
        let NameInfo { class, rule, kind } = info;
        let for_credential = raw.is_some() && class & CREDENTIAL != 0;
        let kept = class & keep != 0;
        let mut one = |val: Cow<'a, str>| {
            if kind == Kind::Idempotency {
                if let Some(slot) = idem.as_deref_mut() {
                    // As `logical::idempotency_key` picks from the stored map: the first not
                    // blank (a blank value stays blank redacted, any other does not).
                    if slot.is_none() && !val.trim().is_empty() {
                        *slot = Some(RawIdem {
                            value: val.clone(),
                            rule,
                            cap,
                        });
                    }
                }
            }
            if kept {
                h.push_capped(name, redactor.header_cow_by_rule(rule, &val), cap);
                if kind != Kind::Other {
                    firsts.note(kind, h);
                }
            }
            if for_credential {
                if let Some(raw) = raw.as_deref_mut() {
                    let name = if name.len() == full_name.len() {
                        full_name.clone()
                    } else {
                        Cow::Owned(name.to_string())
                    };
                    raw.push((name, val));
                }
            }
        };
        // A string is no array: its kind is not decoded (`lazy::val` copies the string).
        let array = !matches!(value, Node::Str(_)) && matches!(lazy::val(value), Val::Array);
        match array {
            true => {
                for it in lazy::items(value).iter() {
                    if let Some(t) = text_of(it, caps::HEADER_VALUE, name, warns) {
                        one(t);
                    }
                }
            }
            false => {
                if let Some(t) = text_of(value, caps::HEADER_VALUE, name, warns) {
                    one(t);
                }
            }
        }
    };
    /// A header whose name is not planned: bounded and classified here.
    macro_rules! push {
        ($full_name:expr, $value:expr, $warns:expr) => {{
            let full_name = $full_name;
            let name = caps::bounded(full_name, caps::HEADER_NAME, "a header name", $warns);
            push_named(full_name, name, name_info(name), $value, $warns);
        }};
    }
    match lazy::val(v) {
        Val::Object => {
            if let Some(o) = Obj::of(v) {
                o.for_each_entry(|k, val| push!(k, val, warns));
            }
        }
        Val::Array => {
            for it in lazy::items(v).iter() {
                let pushed = match lazy::val(it) {
                    Val::Object => Obj::of(it).is_some_and(|o| {
                        let name = o.get("name").map(lazy::val);
                        match (name, o.get("value")) {
                            (Some(Val::Str(n)), Some(val)) => {
                                push!(&n, val, warns);
                                true
                            }
                            _ => false,
                        }
                    }),
                    Val::Array => match &lazy::items(it)[..] {
                        [n, val] => match lazy::val(n) {
                            Val::Str(n) => {
                                push!(&n, val, warns);
                                true
                            }
                            _ => false,
                        },
                        _ => false,
                    },
                    _ => false,
                };
                if !pushed {
                    warns.push(format!(
                        "{field}: an item that is neither {{name, value}} nor [name, value]; skipped"
                    ));
                }
            }
        }
        _ => warns.push(format!(
            "{field} is neither an object nor a list of {{name, value}}; ignored"
        )),
    }
    firsts
}

/// The first idempotency key of a request, unredacted, with the redaction rule and cap its
/// stored copy gets: what retries are compared by, without redacting it (see
/// [`Redactor::idem_hash`]).
pub(super) struct RawIdem<'a> {
    value: Cow<'a, str>,
    rule: HeaderRule,
    cap: usize,
}

impl RawIdem<'_> {
    /// [`Request::idem_hash`] of this key.
    fn hash(&self, red: &Redactor) -> u32 {
        red.idem_hash(self.rule, &self.value, self.cap)
    }

    /// Whether the key is the credential whose raw secret is `secret` and fingerprint `fp`:
    /// what `holds(redacted key, fp)` answers of the stored copy. A secret's token holds `fp`
    /// exactly when it is the same value (short of a collision); any other form is redacted
    /// and searched as the record's copy would be.
    fn holds_credential(&self, red: &Redactor, secret: &str, fp: &str) -> bool {
        if self.rule == HeaderRule::Secret && !crate::redact::is_redacted(&self.value) {
            return self.value == secret;
        }
        let mut h = Headers::new();
        h.push_capped("", red.header_cow_by_rule(self.rule, &self.value), self.cap);
        h.value_at(0).is_some_and(|v| record_view::holds(v, fp))
    }
}

/// The headers a [`RecordView`] reads by name. [`fill_headers`] notes where the first of each
/// kind went, so the view does not search the map for each (five searches a line, each
/// comparing every stored name).
///
/// [`RecordView`]: crate::model::view::RecordView
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Other,
    UserAgent,
    ForwardedFor,
    Origin,
    Referer,
    RetryAfter,
    /// [`crate::http::idempotency::is_idempotency_header`]; the first with a value not blank
    /// is noted, as [`crate::http::idempotency::idempotency_key`] reads.
    Idempotency,
}

/// The kind of header a name is (the names `Headers::get` would be asked for, any case).
fn kind_of(name: &str) -> Kind {
    const NAMED: [(&str, Kind); 5] = [
        ("user-agent", Kind::UserAgent),
        ("x-forwarded-for", Kind::ForwardedFor),
        ("origin", Kind::Origin),
        ("referer", Kind::Referer),
        ("retry-after", Kind::RetryAfter),
    ];
    match NAMED.iter().find(|(n, _)| name.eq_ignore_ascii_case(n)) {
        Some(&(_, k)) => k,
        None if crate::http::idempotency::is_idempotency_header(name) => Kind::Idempotency,
        None => Kind::Other,
    }
}

/// Where in a filled header map the first header of each [`Kind`] is.
#[derive(Default, Clone, Copy, Debug)]
pub(super) struct Firsts([Option<u32>; 7]);

impl Firsts {
    /// The field just pushed to `h` is of `kind`.
    fn note(&mut self, kind: Kind, h: &Headers) {
        let slot = &mut self.0[kind as usize];
        if slot.is_some() || h.is_empty() {
            return;
        }
        if kind == Kind::Idempotency && h.last_value().is_none_or(|v| v.trim().is_empty()) {
            return;
        }
        *slot = u32::try_from(h.len() - 1).ok();
    }

    /// The value of the first header of `kind` in `h` (the map these were noted for), as
    /// `h.get(name)` answers (for [`Kind::Idempotency`], `idempotency_key(h)`'s value).
    pub(super) fn value<'h>(&self, kind: Kind, h: &'h Headers) -> Option<&'h str> {
        self.0[kind as usize].and_then(|i| h.value_at(i as usize))
    }

    pub(super) fn has(&self, kind: Kind) -> bool {
        self.0[kind as usize].is_some()
    }
}

fn parse_time(v: &Node<'_>) -> Option<chrono::DateTime<chrono::Utc>> {
    match lazy::val(v) {
        Val::Num(n) => n.as_f64().and_then(epoch_to_datetime),
        Val::Str(s) if s.len() <= caps::TIME.max => parse_timestamp(&s),
        _ => None,
    }
}

fn parse_duration(v: &Node<'_>, field: &str) -> Option<f64> {
    let scale = if SECONDS_FIELDS.contains(&field) {
        1000.0
    } else {
        1.0
    };
    match lazy::val(v) {
        Val::Num(n) => n.as_f64().map(|x| x * scale),
        Val::Str(s) if s.len() <= caps::LABEL.max => {
            let t = s.trim();
            t.parse::<f64>()
                .ok()
                .map(|x| x * scale)
                .or_else(|| crate::units::parse_duration_ms(t).ok())
        }
        _ => None,
    }
}

/// Which header names [`fill_headers`] keeps: the [`classify`] bits any one of which keeps a
/// name ([`EVERY_NAME`] keeps all).
type NameFilter = u8;

/// Every header name (a full record): a bit every class has.
const EVERY_NAME: NameFilter = 1;
/// [`Redactor::may_carry_credential`].
const CREDENTIAL: u8 = 2;
/// [`view_request_header`].
const VIEW_REQUEST: NameFilter = 4;
/// [`view_response_header`].
const VIEW_RESPONSE: NameFilter = 8;
/// [`crate::model::view::is_request_id_header`] (a view keeps them when ids are asked for).
const VIEW_ID: NameFilter = 16;

/// Request header names a view keeps: [`event::is_view_request_header`] less the idempotency
/// keys, which the view compares by [`RawIdem`] without redacting them.
fn view_request_header(name: &str) -> bool {
    record_view::is_view_request_header(name)
        && !crate::http::idempotency::is_idempotency_header(name)
}

/// Response header names a view reads: the rate-limit families, and `Retry-After` (whose
/// presence decides whether the `retry_after` field is read, and warned about).
fn view_response_header(name: &str) -> bool {
    is_limit_header(name) || name.eq_ignore_ascii_case("retry-after")
}

/// Every question [`fill_headers`] asks of a header name, answered by the functions that own them.
fn classify(name: &str) -> u8 {
    let mut c = EVERY_NAME;
    if Redactor::may_carry_credential(name) {
        c |= CREDENTIAL;
    }
    if view_request_header(name) {
        c |= VIEW_REQUEST;
    }
    if view_response_header(name) {
        c |= VIEW_RESPONSE;
    }
    if record_view::is_request_id_header(name) {
        c |= VIEW_ID;
    }
    c
}

/// What [`fill_headers`] needs to know of one header name: its [`classify`] bits and its
/// redaction rule.
#[derive(Clone, Copy)]
struct NameInfo {
    class: u8,
    rule: HeaderRule,
    kind: Kind,
}

fn name_info_of(name: &str) -> NameInfo {
    NameInfo {
        class: classify(name),
        rule: crate::redact::header_rule(name),
        kind: kind_of(name),
    }
}

thread_local! {
    static NAME_INFO: std::cell::RefCell<Memo<NameInfo>> =
        const { std::cell::RefCell::new(Memo::names()) };
}

/// [`name_info_of`], remembered per name: a log repeats the same few header names on every
/// line, and the substring checks cost more than a lookup.
fn name_info(name: &str) -> NameInfo {
    NAME_INFO
        .try_with(|t| {
            t.borrow_mut()
                .get_or(name.as_bytes(), || name_info_of(name))
        })
        .unwrap_or_else(|_| name_info_of(name))
}

/// The record's start, from the first time field; a missing or unreadable one is a warning.
fn read_time(
    o: &Obj<'_>,
    map: &Lookup<'_>,
    red: &Redactor,
    warns: &mut Vec<String>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    match find(o, field::TIME, map) {
        Some((t, f)) => {
            let ts = parse_time(&t);
            if ts.is_none() {
                // Quoted only redacted and cut (Redactor::quote): a time field can hold anything.
                warns.push(match lazy::val(&t) {
                    Val::Str(s) => format!(
                        "{f} {} is not a time; the record has no time",
                        red.quote(caps::cut(&s, caps::TIME.max))
                    ),
                    _ => format!("{f} is not a time; the record has no time"),
                });
            }
            ts
        }
        None => {
            warns
                .push("no time field (time, timestamp, @timestamp, ts; or --map time=PATH)".into());
            None
        }
    }
}

/// The unredacted URL: a full one, else `//host/path` from separate fields, else the path.
fn raw_url_of<'a>(o: &Obj<'a>, map: &Lookup<'_>, warns: &mut Vec<String>) -> Cow<'a, str> {
    match found_text(o, field::URL, map, caps::URL, warns) {
        Some(u) if crate::http::url::has_scheme_separator(u.as_bytes()) || u.starts_with("//") => u,
        other => {
            let host = found_text(o, field::HOST, map, caps::IDENTITY, warns);
            let path = other.or_else(|| found_text(o, field::PATH, map, caps::URL, warns));
            match (host, path) {
                (Some(h), Some(p)) => Cow::Owned(format!(
                    "//{h}{}{p}",
                    if p.starts_with('/') { "" } else { "/" }
                )),
                (Some(h), None) => Cow::Owned(format!("//{h}/")),
                (None, Some(p)) => p,
                (None, None) => {
                    warns.push("no url field (url, uri, path + host; or --map url=PATH)".into());
                    Cow::Borrowed("")
                }
            }
        }
    }
}

/// The status code (0 with a warning when there is none or it is not one).
fn read_status(o: &Obj<'_>, map: &Lookup<'_>, warns: &mut Vec<String>) -> u16 {
    match find(o, field::STATUS, map) {
        Some((s, f)) => match lazy::val(&s) {
            Val::Num(n) => n
                .as_f64()
                .filter(|s| (0.0..1000.0).contains(s))
                .unwrap_or(0.0) as u16,
            Val::Str(s) => match s.trim().parse::<u16>() {
                Ok(x) if x < 1000 => x,
                _ => {
                    warns.push(format!("{f} is not a status code; read as 0"));
                    0
                }
            },
            _ => {
                warns.push(format!("{f} is not a status code; read as 0"));
                0
            }
        },
        None => {
            warns.push(
                "no status field (status, status_code, response_code, statusCode); read as 0"
                    .into(),
            );
            0
        }
    }
}

/// The duration in milliseconds, when a field holds one.
fn read_duration(o: &Obj<'_>, map: &Lookup<'_>, warns: &mut Vec<String>) -> Option<f64> {
    let (d, f) = find(o, field::DURATION_MS, map)?;
    match parse_duration(&d, f) {
        Some(ms) if ms >= 0.0 && ms.is_finite() => Some(ms),
        _ => {
            warns.push(format!("{f} is not a duration; ignored"));
            None
        }
    }
}

/// The fingerprint of a non-empty `request_body` (hashed whole: the line is bounded by
/// MAX_LINE, and only the digest is kept).
fn body_fingerprint(o: &Obj<'_>, red: &Redactor) -> Option<String> {
    let body = o.get("request_body").and_then(|b| match lazy::val(b) {
        Val::Str(s) => Some(s),
        Val::Num(n) => Some(Cow::Owned(n.to_string())),
        Val::Bool(b) => Some(Cow::Borrowed(if b { "true" } else { "false" })),
        _ => None,
    })?;
    (!body.is_empty()).then(|| red.fingerprint(&body))
}

/// The credential when no header or query names one: logs often record the caller's key id
/// as a field of its own ([`KEY_ID_FIELDS`]).
fn key_id_credential(o: &Obj<'_>, red: &Redactor, warns: &mut Vec<String>) -> Option<String> {
    key_id_secret(o, warns).map(|k| red.fingerprint(&k))
}

/// The key id [`key_id_credential`] fingerprints.
fn key_id_secret<'a>(o: &Obj<'a>, warns: &mut Vec<String>) -> Option<Cow<'a, str>> {
    for &key in KEY_ID_FIELDS {
        let k = o
            .get(key)
            .and_then(|k| text_of(k, caps::IDENTITY, key, warns));
        if let Some(k) = k.filter(|k| !k.is_empty()) {
            return Some(k);
        }
    }
    None
}

/// The cap on a stored response header value: successes keep the start of each.
fn response_header_cap(status: u16) -> usize {
    if (200..400).contains(&status) {
        super::har::SUCCESS_HEADER_VALUE_MAX
    } else {
        usize::MAX
    }
}

/// Normalize one parsed line into its full record. The readers of each field are shared with
/// [`view::with_view`], which builds a record's view without the record.
fn normalize(
    line: usize,
    o: &Obj<'_>,
    source: &Arc<str>,
    opts: &Options,
    map: &Paths,
) -> (Request, Vec<Warning>) {
    let map = &Lookup::plain(map);
    let pos = Position::Line(line);
    let red = &opts.redactor;
    let mut warns = Vec::new();
    let mut r = Request::at(Location {
        source: source.clone(),
        position: pos,
    });
    r.started = read_time(o, map, red, &mut warns);
    r.method = found_shown(o, field::METHOD, map, red, caps::METHOD, &mut warns)
        .map(|m| red.method(&m))
        .unwrap_or_default();
    let raw_url = raw_url_of(o, map, &mut warns);
    r.url = red.url(&raw_url);
    r.status = read_status(o, map, &mut warns);
    r.duration_ms = read_duration(o, map, &mut warns);
    let mut raw_req = Vec::new();
    if let Some((h, f)) = find(o, field::REQUEST_HEADERS, map) {
        let cap = super::har::REQUEST_HEADER_VALUE_MAX;
        r.request_headers = Headers::with_capacity(HEADERS_TEXT_HINT, HEADERS_HINT);
        let mut idem = None;
        fill_headers(
            &mut r.request_headers,
            &h,
            red,
            Some(&mut raw_req),
            Some(&mut idem),
            cap,
            EVERY_NAME,
            &mut warns,
            f,
        );
        r.idem_hash = idem.map_or(0, |i| i.hash(red));
    }
    if let Some((h, f)) = find(o, field::RESPONSE_HEADERS, map) {
        let cap = response_header_cap(r.status);
        r.response_headers = Headers::with_capacity(HEADERS_TEXT_HINT, HEADERS_HINT);
        fill_headers(
            &mut r.response_headers,
            &h,
            red,
            None,
            None,
            cap,
            EVERY_NAME,
            &mut warns,
            f,
        );
    }
    if !r.response_headers.contains("retry-after") {
        if let Some(ra) = found_shown(o, field::RETRY_AFTER, map, red, caps::LABEL, &mut warns) {
            if !ra.is_empty() && ra != "-" {
                r.response_headers
                    .push("Retry-After", red.header_cow("retry-after", &ra));
            }
        }
    }
    if !(200..400).contains(&r.status) {
        // A line with no body field did not record the body: unknown, not empty (unless its
        // Content-Length says there was none).
        r.body_not_captured = r
            .response_headers
            .get("content-length")
            .is_none_or(|v| v.trim() != "0");
        if let Some((b, _)) = find(o, field::RESPONSE_BODY, map) {
            r.body_not_captured = false;
            let text: Cow<str> = match lazy::val(&b) {
                Val::Str(s) => s,
                _ => Cow::Owned(lazy::compact(&b)),
            };
            if !text.is_empty() {
                // The excerpt is short; redaction reads a bounded head of the body.
                let head = caps::cut(&text, caps::BODY_HEAD.max);
                r.body_excerpt = Some(red.excerpt(head, super::har::BODY_EXCERPT));
            }
        }
    }
    r.request_body_fingerprint = body_fingerprint(o, red);

    r.client = super::har::client_hints(&r, None);
    if let Some(c) = found_shown(o, field::CLIENT, map, red, caps::IDENTITY, &mut warns) {
        r.client.client = Some(red.text(&c));
    }
    if let Some(ip) = found_shown(o, field::CLIENT_IP, map, red, caps::IDENTITY, &mut warns) {
        r.client.client_ip = Some(red.text(&ip));
    }
    if r.request_headers.get("user-agent").is_none() {
        r.client.user_agent =
            found_shown(o, field::USER_AGENT, map, red, caps::IDENTITY, &mut warns)
                .map(|u| red.text(&u));
    }
    r.credential = red
        .credential(
            raw_req.iter().map(|(n, v)| (n.as_ref(), v.as_ref())),
            &raw_url,
        )
        .or_else(|| key_id_credential(o, red, &mut warns));
    r.shrink_to_fit();
    let ws = warns
        .into_iter()
        .map(|m| warn(source, Some(pos), m))
        .collect();
    (r, ws)
}

/// A run of whole lines for one worker.
struct Job {
    /// Line number of the first line in `text` (1-based).
    first_line: usize,
    text: Vec<u8>,
    /// Lines in `text` when the splitter counted them (0 when it did not): the result vector
    /// is sized once instead of growing by doubling (a copy and fresh pages per job).
    lines: usize,
    /// A line longer than [`MAX_LINE`] that followed `text`: its number and length. It was
    /// consumed without being held.
    too_long: Option<(usize, usize)>,
}

/// Parse and normalize one worker's lines: each becomes `view`'s item when it can (a record
/// that only becomes an event), else `map`'s.
#[allow(clippy::too_many_arguments)]
fn work_lines<T>(
    job: Job,
    items: Vec<T>,
    source: &Arc<str>,
    opts: &Options,
    schema: &Schema,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    buffers: &Buffers,
) -> Done<T> {
    let Schema { wanted, paths } = schema;
    let mut done = Done {
        items,
        ..Done::default()
    };
    done.items.reserve(job.lines);
    let mut scratch = view::Scratch::default();
    let mut line_no = job.first_line;
    let mut at = 0usize;
    let text = &job.text[..];
    let mut layout = lazy::Layout::default();
    while at < text.len() {
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
        let raw = &text[at..end];
        at = end + 1;
        let n = line_no;
        line_no += 1;
        if raw.len() > MAX_LINE {
            done.skipped += 1;
            done.warnings.push(too_long(source, n, raw.len()));
            continue;
        }
        let Ok(line) = std::str::from_utf8(raw) else {
            done.skipped += 1;
            done.warnings.push(warn(
                source,
                Some(Position::Line(n)),
                "line is not UTF-8 text; skipped",
            ));
            continue;
        };
        let line = line.trim_start_matches('\u{FEFF}').trim();
        if line.is_empty() {
            continue;
        }
        let parsed = match lazy::parse_with(line, wanted, &mut layout) {
            Ok(lazy::Doc::Object(o)) => {
                let read = one_line(n, &o, source, opts, paths, map, view, &mut scratch);
                layout.recycle(lazy::Doc::Object(o));
                Ok(read)
            }
            Ok(lazy::Doc::Other) => Err(warn(
                source,
                Some(Position::Line(n)),
                "line is JSON but not an object; skipped",
            )),
            Err(e) => Err(warn(
                source,
                Some(Position::Line(n)),
                format!("not valid JSON: {e}; skipped"),
            )),
        };
        match parsed {
            Ok((item, ws)) => {
                done.items.push(item);
                done.warnings.extend(ws);
            }
            Err(w) => {
                done.skipped += 1;
                done.warnings.push(w);
            }
        }
    }
    if let Some((n, len)) = job.too_long {
        done.skipped += 1;
        done.warnings.push(too_long(source, n, len));
    }
    buffers.give(job.text);
    done
}

/// One JSON object line as the caller's item: through its view when the caller takes one and
/// the record needs no more (see [`event::map_view`]), else through its full record.
#[allow(clippy::too_many_arguments)]
fn one_line<T>(
    n: usize,
    o: &Obj<'_>,
    source: &Arc<str>,
    opts: &Options,
    paths: &Paths,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    scratch: &mut view::Scratch,
) -> (T, Vec<Warning>) {
    if let Some(views) = view {
        let decide = |status: u16, url: &str| views.may_view_hinted(status, false, url);
        let take = |v: &RecordView<'_>, hint| views.view_hinted(v, hint);
        // `None` inside: the caller wants the full record after all (the host's baseline).
        if let Some(Some(item)) = view::with_view(n, o, opts, paths, scratch, decide, take) {
            return (item, Vec::new());
        }
    }
    let (r, ws) = normalize(n, o, source, opts, paths);
    (map(r), ws)
}

fn too_long(source: &Arc<str>, line: usize, len: usize) -> Warning {
    warn(
        source,
        Some(Position::Line(line)),
        format!(
            "line is {len} bytes, longer than the {} MiB limit; skipped",
            MAX_LINE / (1024 * 1024)
        ),
    )
}

/// How splitting ended: the read error, if reading stopped on one; else the number of a last
/// line that has no end of line and is not a whole JSON value (the input ends inside a record).
#[derive(Debug, Default)]
struct Split {
    error: Option<String>,
    cut_last: Option<usize>,
}

/// Split the input into jobs of whole lines (about [`CHUNK_BYTES`] each) with memchr; a line
/// longer than [`MAX_LINE`] is consumed and counted, never held. Says how it ended ([`Split`]).
///
/// Bytes are read straight into the chunk buffer (`read` with a slice as large as the
/// `BufReader`'s buffer bypasses it), not copied there from the reader's buffer: that copy was
/// every input byte once more (~2 % of the CPU of a large log). Only a line being skipped is
/// read through `fill_buf`, as it is never held.
fn split_lines(
    reader: &mut dyn BufRead,
    first_line: usize,
    feed: &mut dyn FnMut(Job),
    buffers: &Buffers,
) -> Split {
    // `chunk[..filled]` is the text; past it, up to `chunk.len()`, stale bytes already
    // initialized (see `Buffers`), read over without zeroing them again.
    let mut chunk: Vec<u8> = buffers.take();
    let mut filled = 0usize;
    // Line number of the first line in `chunk`.
    let mut first_line = first_line;
    // Where the unterminated last line of `chunk` starts (everything before ends in '\n').
    let mut tail = 0usize;
    // Inside an over-long line being skipped: its number and the bytes seen so far.
    let mut skipping: Option<(usize, usize)> = None;
    let error = loop {
        if let Some((line, seen)) = skipping {
            let avail = match reader.fill_buf() {
                Ok(a) => a,
                Err(e) => break Some(e),
            };
            if avail.is_empty() {
                break None;
            }
            let avail = &avail[..avail.len().min(READ_STEP)];
            let n = avail.len();
            match memchr::memchr(b'\n', avail) {
                Some(i) => {
                    feed(Job {
                        first_line: line,
                        text: Vec::new(),
                        lines: 0,
                        too_long: Some((line, seen + i)),
                    });
                    skipping = None;
                    first_line = line + 1;
                    reader.consume(i + 1);
                }
                None => {
                    skipping = Some((line, seen + n));
                    reader.consume(n);
                }
            }
            continue;
        }
        // A step at a time, so a reader that hands out everything at once (a Cursor) is still
        // split without holding more than a chunk and one line.
        if chunk.len() < filled + READ_STEP {
            chunk.resize(filled + READ_STEP, 0);
        }
        let n = match reader.read(&mut chunk[filled..filled + READ_STEP]) {
            Ok(0) => break None,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break Some(e),
        };
        let old_len = filled;
        filled += n;
        if let Some(i) = memchr::memrchr(b'\n', &chunk[old_len..filled]) {
            tail = old_len + i + 1;
        }
        if filled - tail > MAX_LINE {
            // The unterminated line is too long: send what precedes it, then skip it.
            let long_start = tail;
            let whole_lines = memchr::memchr_iter(b'\n', &chunk[..long_start]).count();
            let long_line = first_line + whole_lines;
            let seen = filled - long_start;
            if long_start > 0 {
                chunk.truncate(long_start);
                feed(Job {
                    first_line,
                    text: std::mem::replace(&mut chunk, buffers.take()),
                    lines: whole_lines,
                    too_long: None,
                });
            }
            filled = 0;
            tail = 0;
            skipping = Some((long_line, seen));
            first_line = long_line;
            continue;
        }
        if tail >= CHUNK_BYTES {
            let mut next = buffers.take();
            let rest = filled - tail;
            if next.len() < rest {
                next.resize(rest, 0);
            }
            next[..rest].copy_from_slice(&chunk[tail..filled]);
            chunk.truncate(tail);
            let lines = memchr::memchr_iter(b'\n', &chunk).count();
            feed(Job {
                first_line,
                text: std::mem::replace(&mut chunk, next),
                lines,
                too_long: None,
            });
            first_line += lines;
            filled = rest;
            tail = 0;
        }
    };
    if let Some(e) = error {
        // The whole lines read before the error are parsed; the unterminated one is dropped.
        chunk.truncate(tail);
        let lines = memchr::memchr_iter(b'\n', &chunk).count();
        let before = first_line - 1 + lines;
        if !chunk.is_empty() {
            feed(Job {
                first_line,
                text: chunk,
                lines,
                too_long: None,
            });
        }
        return Split {
            error: Some(format!("read error after line {before}: {e}")),
            cut_last: None,
        };
    }
    let mut cut_last = None;
    if let Some((line, seen)) = skipping {
        feed(Job {
            first_line: line,
            text: Vec::new(),
            lines: 0,
            too_long: Some((line, seen)),
        });
    } else if filled > 0 {
        chunk.truncate(filled);
        if ends_inside_a_record(&chunk[tail..]) {
            cut_last = Some(first_line + memchr::memchr_iter(b'\n', &chunk[..tail]).count());
        }
        feed(Job {
            first_line,
            text: chunk,
            lines: 0,
            too_long: None,
        });
    }
    Split {
        error: None,
        cut_last,
    }
}

/// The last line of an input has no end of line: is it a record cut short (not blank, and not
/// a whole JSON value)? Asked once per input.
fn ends_inside_a_record(last: &[u8]) -> bool {
    !last.iter().all(u8::is_ascii_whitespace)
        && serde_json::from_slice::<serde::de::IgnoredAny>(last).is_err()
}

/// Read a JSON-lines log into a `Vec` (see [`stream`]).
pub fn read(reader: Box<dyn BufRead + Send>, source: &Arc<str>, opts: &Options) -> ReadOutcome {
    super::collect(super::Format::Jsonl, |sink| {
        stream(reader, source, opts, &|r| r, None, sink)
    })
}

/// Stream a JSON-lines log: lines are split on a reader thread and parsed, normalized,
/// redacted and mapped on workers; `sink` gets them in line order.
pub(crate) fn stream<T: Send>(
    mut reader: Box<dyn BufRead + Send>,
    source: &Arc<str>,
    opts: &Options,
    map: &(dyn Fn(Request) -> T + Sync),
    view: Option<ViewMap<'_, T>>,
    sink: &mut dyn FnMut(&mut Done<T>),
) -> Tail {
    let schema = Schema {
        wanted: wanted_fields(&opts.field_map),
        paths: Paths::of(&opts.field_map),
    };
    let buffers = Buffers::default();
    let split = pipeline::run(
        pipeline::workers(opts.threads),
        |feed| split_lines(&mut *reader, opts.first_line(), feed, &buffers),
        &|job, items| work_lines(job, items, source, opts, &schema, map, view, &buffers),
        sink,
    );
    let incomplete = split.cut_last.map(|line| Incomplete {
        kind: IncompleteKind::CutRecord,
        message: format!(
            "the input ends inside a record: its last line ({line}) has no end of line and is not a whole JSON value (cut by truncation, or still being written?); the report covers the lines before it"
        ),
    });
    Tail {
        unwrapped: None,
        creator: None,
        error: split.error,
        incomplete,
        traces: None,
    }
}

#[cfg(test)]
mod tests;

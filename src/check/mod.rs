//! `check`: strict validation of a HAR against the HAR 1.2 spec (1.3 when the file says so).
//!
//! The document is walked member by member; each page and entry is validated against the
//! spec's table ([`schema`]) as soon as it has been read and then dropped, so memory does not
//! grow with the file. Rules that span objects — a `pageref` naming no page, `time` against
//! the sum of `timings`, 1.3 fields in a 1.2 file whose version comes after its entries — are
//! settled in [`Checker::finish`]. Messages name the field and the problem, never a value
//! (numbers and date-shaped dates excepted: they are the deviation). Memory is bounded by
//! construction: strings are cut at a cap, one page or entry holds a bounded budget, page ids and
//! pagerefs are remembered by hash ([`stream`] has the caps; cuts are located warnings).

pub mod schema;
mod stream;

use schema::{Spec, LOG};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Deviation {
    /// `document`, `log`, `log.pages[2]`, `log.entries[17]`.
    pub at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// Field path inside `at`, e.g. `timings.send`, `request.headers[3].value`.
    pub field: String,
    pub problem: String,
}

#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub schema_version: u32,
    pub source: String,
    pub version: Option<String>,
    pub checked_against: String,
    pub entries: usize,
    pub entries_with_deviations: usize,
    pub deviation_count: usize,
    /// The first `--max-issues` deviations (all are counted).
    pub deviations: Vec<Deviation>,
    /// What check could not hold whole and checked in part (values over its caps), located,
    /// never quoted. Not deviations: the file may be valid.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deviation>,
}

/// `time` and the sum of `timings` may differ by this much before it is a deviation:
/// exporters round each timing to whole or thousandths of milliseconds.
pub const TIME_TOLERANCE_MS: f64 = 2.0;
/// … or by this share of `time`, whichever is larger.
pub const TIME_TOLERANCE_SHARE: f64 = 0.01;

/// Distinct `pageref` values remembered for the end-of-file check.
const MAX_PAGEREFS: usize = 100_000;
/// Warnings listed (the rest are counted in one more).
const MAX_WARNINGS: usize = 100;
/// The `log` members whose presence `finish` checks.
const LOG_REQUIRED: &[&str] = &["version", "creator", "entries"];

/// Page ids and pagerefs are remembered by a hash of their text, so a long one costs 8 bytes.
fn text_key(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Validation state for one document.
pub struct Checker {
    max_shown: usize,
    spec: Option<Spec>,
    version: Option<String>,
    shown: Vec<Deviation>,
    count: usize,
    entries: usize,
    bad_entries: usize,
    page_ids: HashSet<u64>,
    /// pageref (by [`text_key`]) → (first entry, entries naming it).
    pagerefs: HashMap<u64, (usize, usize)>,
    pagerefs_capped: bool,
    /// 1.3 fields seen before the version was known: (at, entry, field), and how many.
    pending_v13: Vec<(String, Option<usize>, String)>,
    pending_v13_count: usize,
    /// Whether `log` was an object, and which of [`LOG_REQUIRED`] it had.
    log_object: bool,
    members: HashSet<&'static str>,
    warnings: Vec<Deviation>,
    warning_count: usize,
    /// The unit being checked was not kept whole (over the budget): what is missing from it
    /// may just not have been kept, so "missing" is not reported for it.
    partial: bool,
}

impl Checker {
    pub fn new(max_shown: usize) -> Checker {
        Checker {
            max_shown,
            spec: None,
            version: None,
            shown: Vec::new(),
            count: 0,
            entries: 0,
            bad_entries: 0,
            page_ids: HashSet::new(),
            pagerefs: HashMap::new(),
            pagerefs_capped: false,
            pending_v13: Vec::new(),
            pending_v13_count: 0,
            log_object: false,
            members: HashSet::new(),
            warnings: Vec::new(),
            warning_count: 0,
            partial: false,
        }
    }

    /// A value check could not hold whole (see [`stream`]): listed up to [`MAX_WARNINGS`].
    fn warn(&mut self, at: &str, entry: Option<usize>, field: String, problem: String) {
        self.warning_count += 1;
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(Deviation {
                at: at.to_string(),
                entry,
                field,
                problem,
            });
        }
    }

    /// `log` is an object: its required members are checked in [`Checker::finish`], so an
    /// empty `{"log": {}}` misses all three.
    pub fn log_object(&mut self) {
        self.log_object = true;
    }

    fn member_seen(&mut self, key: &str) {
        if let Some(k) = LOG_REQUIRED.iter().find(|k| **k == key) {
            self.members.insert(k);
        }
    }

    fn push(&mut self, at: &str, entry: Option<usize>, field: String, problem: String) {
        self.count += 1;
        if self.shown.len() < self.max_shown {
            self.shown.push(Deviation {
                at: at.to_string(),
                entry,
                field,
                problem,
            });
        }
    }

    /// A deviation of the document as a whole (e.g. a JSONP wrapper).
    pub fn document(&mut self, problem: &str) {
        self.push("document", None, String::new(), problem.to_string());
    }

    /// The top level is not an object with a `log` member.
    pub fn no_log(&mut self, found: &str) {
        self.push(
            "document",
            None,
            "log".into(),
            format!("missing: a HAR is one JSON object with a `log` object ({found})"),
        );
    }

    /// Validate `v` against `fields`; `all` also reports missing required fields.
    fn validate_into(
        &mut self,
        v: &Value,
        fields: &'static [schema::Field],
        at: &str,
        entry: Option<usize>,
        all: bool,
    ) {
        let mut out = Vec::new();
        // Until the version is known, 1.3 fields are remembered and settled in `finish`.
        let spec = self.spec.unwrap_or(Spec::V12);
        if all {
            schema::validate(v, fields, spec, "", &mut out);
        } else {
            schema::validate_present(v, fields, spec, "", &mut out);
        }
        for (field, problem) in out {
            if self.partial && problem.starts_with("missing") {
                continue;
            }
            if problem == schema::V13_FIELD && self.spec.is_none() {
                if self.pending_v13.len() < self.max_shown.max(1) {
                    self.pending_v13.push((at.to_string(), entry, field));
                }
                self.pending_v13_count += 1;
                continue;
            }
            self.push(at, entry, field, problem);
        }
    }

    /// One member of `log` (pages and entries arrays go to [`Checker::page`] and
    /// [`Checker::entry`] item by item).
    pub fn log_member(&mut self, key: &str, v: &Value) {
        self.member_seen(key);
        if key == "version" {
            self.version(v);
            return;
        }
        let mut one = serde_json::Map::new();
        one.insert(key.to_string(), v.clone());
        self.validate_into(&Value::Object(one), LOG, "log", None, false);
    }

    /// `log.pages` or `log.entries` is an array (its items come one by one).
    pub fn log_array(&mut self, key: &str) {
        self.member_seen(key);
    }

    fn version(&mut self, v: &Value) {
        let (spec, problem) = match v {
            Value::String(s) => {
                self.version = Some(shown_version(s));
                version_rule(s)
            }
            other => (
                Spec::V12,
                Some(format!(
                    "should be a string (\"1.2\" or \"1.3\"), found {}",
                    schema::found(other)
                )),
            ),
        };
        self.spec = Some(spec);
        if let Some(p) = problem {
            self.push("log", None, "version".into(), p);
        }
    }

    /// `log.pages[i]`.
    pub fn page(&mut self, i: usize, v: &Value) {
        let at = format!("log.pages[{i}]");
        if !v.is_object() {
            self.push(
                &at,
                None,
                String::new(),
                format!("should be an object, found {}", schema::found(v)),
            );
            return;
        }
        if let Some(id) = v.get("id").and_then(Value::as_str) {
            if self.page_ids.len() < MAX_PAGEREFS {
                self.page_ids.insert(text_key(id));
            }
        }
        self.validate_into(v, schema::PAGE, &at, None, true);
    }

    /// `log.entries[i]`.
    pub fn entry(&mut self, i: usize, v: &Value) {
        self.entries += 1;
        let at = format!("log.entries[{i}]");
        if !v.is_object() {
            self.bad_entries += 1;
            self.push(
                &at,
                Some(i),
                String::new(),
                format!("should be an object, found {}", schema::found(v)),
            );
            return;
        }
        let before = self.count;
        self.validate_into(v, schema::ENTRY, &at, Some(i), true);
        if let Some(p) = time_problem(v) {
            self.push(&at, Some(i), "time".into(), p);
        }
        if let Some(r) = v.get("pageref").and_then(Value::as_str) {
            let room = self.pagerefs.len() < MAX_PAGEREFS;
            let r = text_key(r);
            match self.pagerefs.get_mut(&r) {
                Some((_, n)) => *n += 1,
                None if room => {
                    self.pagerefs.insert(r, (i, 1));
                }
                None => self.pagerefs_capped = true,
            }
        }
        if self.count > before {
            self.bad_entries += 1;
        }
    }

    /// Settle the rules that need the whole document and build the report.
    pub fn finish(mut self, source: &str) -> CheckReport {
        if self.log_object {
            self.required_log_members();
        }
        let spec = self.spec.unwrap_or(Spec::V12);
        if spec == Spec::V12 {
            let pending = std::mem::take(&mut self.pending_v13);
            let unlisted = self.pending_v13_count - pending.len();
            for (at, entry, field) in pending {
                self.push(&at, entry, field, schema::V13_FIELD.into());
            }
            // Counted, not listed: the list was bounded while the version was unknown.
            self.count += unlisted;
        }
        self.unknown_pagerefs();
        if self.warning_count > self.warnings.len() {
            let more = self.warning_count - self.warnings.len();
            self.warnings.push(Deviation {
                at: "document".into(),
                entry: None,
                field: String::new(),
                problem: format!("{more} more values were over check's caps (not listed)"),
            });
        }
        CheckReport {
            schema_version: 1,
            source: source.to_string(),
            version: self.version,
            checked_against: match spec {
                Spec::V12 => "1.2".into(),
                Spec::V13 => "1.3".into(),
            },
            entries: self.entries,
            entries_with_deviations: self.bad_entries,
            deviation_count: self.count,
            deviations: self.shown,
            warnings: self.warnings,
        }
    }

    /// `log.version`, `log.creator` and `log.entries` must be there.
    fn required_log_members(&mut self) {
        if !self.members.contains("version") {
            self.push(
                "log",
                None,
                "version".into(),
                "missing (required: a string, \"1.2\" or \"1.3\"); checked against 1.2".into(),
            );
        }
        for (name, what) in [("creator", "an object"), ("entries", "an array of objects")] {
            if !self.members.contains(name) {
                self.push(
                    "log",
                    None,
                    name.into(),
                    format!("missing (required: {what})"),
                );
            }
        }
    }

    /// Each `pageref` that names no page, once (at its first entry, with how many more name
    /// it); past the cap, a note that the rest were not checked.
    fn unknown_pagerefs(&mut self) {
        let mut unknown: Vec<(usize, usize)> = self
            .pagerefs
            .iter()
            .filter(|(r, _)| !self.page_ids.contains(*r))
            .map(|(_, &(first, n))| (first, n))
            .collect();
        unknown.sort_unstable();
        for (first, n) in unknown {
            let more = match n {
                1 => String::new(),
                n => format!(" ({} more entries name it)", n - 1),
            };
            self.push(
                &format!("log.entries[{first}]"),
                Some(first),
                "pageref".into(),
                format!("names no page in log.pages{more}"),
            );
        }
        if self.pagerefs_capped {
            self.push(
                "log",
                None,
                "entries".into(),
                format!(
                    "more than {MAX_PAGEREFS} distinct pageref values; the rest were not checked"
                ),
            );
        }
    }
}

/// HAR versions there are: the only `log.version` values a report repeats.
const KNOWN_VERSIONS: &[&str] = &["1.1", "1.2", "1.3"];

/// The version as reported: a known one as written, anything else not shown (messages name
/// the field and the problem, never an input value).
fn shown_version(s: &str) -> String {
    if KNOWN_VERSIONS.contains(&s) {
        s.to_string()
    } else {
        "(not shown)".into()
    }
}

fn looks_like_version(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 10
        && s.chars().all(|c| c.is_ascii_digit() || c == '.')
        && s.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Which spec a `log.version` selects, and what is wrong with it.
fn version_rule(s: &str) -> (Spec, Option<String>) {
    match s {
        "1.2" => (Spec::V12, None),
        "1.3" => (Spec::V13, None),
        "1.1" => (
            Spec::V12,
            Some("HAR 1.1 is superseded by 1.2; checked against 1.2".into()),
        ),
        "" => (
            Spec::V12,
            Some("empty (the spec reads it as 1.1, superseded by 1.2); checked against 1.2".into()),
        ),
        v if looks_like_version(v) => (
            Spec::V12,
            Some("not a known HAR version (1.1, 1.2, 1.3); checked against 1.2".into()),
        ),
        _ => (
            Spec::V12,
            Some("not a HAR version (1.1, 1.2, 1.3) and not shown; checked against 1.2".into()),
        ),
    }
}

/// `time` is "the sum of all timings available" (not -1), `ssl` being part of `connect`.
/// Some exporters add `ssl` on top; either reading is accepted. Entries whose timings are all
/// unavailable are not compared.
pub fn time_problem(entry: &Value) -> Option<String> {
    let time = entry.get("time")?.as_f64()?;
    let t = entry.get("timings")?.as_object()?;
    let avail = |k: &str| t.get(k).and_then(Value::as_f64).filter(|x| *x >= 0.0);
    let parts: Vec<f64> = ["blocked", "dns", "connect", "send", "wait", "receive"]
        .iter()
        .filter_map(|k| avail(k))
        .collect();
    if parts.is_empty() || time < 0.0 {
        return None;
    }
    let sum: f64 = parts.iter().sum();
    let with_ssl = sum + avail("ssl").unwrap_or(0.0);
    let tolerance = TIME_TOLERANCE_MS.max(TIME_TOLERANCE_SHARE * time);
    if (time - sum).abs() <= tolerance || (time - with_ssl).abs() <= tolerance {
        return None;
    }
    Some(format!(
        "{} ms, but its timings add up to {} ms (more than max({TIME_TOLERANCE_MS} ms, {} %) apart)",
        round3(time),
        round3(sum),
        TIME_TOLERANCE_SHARE * 100.0
    ))
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Check one input. `prefix` is its first bytes (decompressed, BOM removed) for telling a HAR
/// from other inputs; `reader` yields the whole content, prefix included. The document is
/// streamed: one page or entry is in memory at a time, whatever the file's size. `Err` when it
/// cannot be checked at all: not a HAR, not UTF-8, not JSON (each with its location).
pub fn check_read(
    prefix: &[u8],
    reader: impl std::io::Read,
    source: &str,
    max_shown: usize,
) -> Result<CheckReport, CheckError> {
    let jsonl = matches!(
        crate::ingest::source::sniff(prefix, source),
        Ok(crate::ingest::source::Sniffed {
            format: crate::ingest::Format::Jsonl,
            ..
        })
    );
    if let Some(why) = not_a_har(prefix, jsonl) {
        return Err(CheckError::NotAHar(why));
    }
    let jsonp = prefix
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b != b'{');
    let mut checker = Checker::new(max_shown);
    let utf8 = stream::Utf8Checked::new(reader);
    let bad_utf8 = utf8.bad_utf8();
    let mut input = std::io::BufReader::with_capacity(64 * 1024, utf8);
    if jsonp {
        checker.document("wrapped in a JSONP/HARP callback; a HAR file is plain JSON");
        stream::skip_callback_name(&mut input).map_err(|e| read_error(&bad_utf8, e))?;
    }
    stream::walk_reader(input, &mut checker, jsonp).map_err(|e| read_error(&bad_utf8, e))?;
    Ok(checker.finish(source))
}

/// The message for a document that could not be read: invalid UTF-8 by its byte offset, JSON
/// errors by byte, line and column, never quoting the input.
fn read_error(bad_utf8: &stream::BadUtf8, e: stream::ReadError) -> CheckError {
    if let Some(at) = bad_utf8.get() {
        return CheckError::Utf8(at);
    }
    match e {
        stream::ReadError::Scan(e) => match e.kind {
            crate::ingest::scan::ErrorKind::Io(why) => CheckError::Read(why),
            _ => CheckError::Json(e),
        },
        stream::ReadError::Tail => CheckError::Tail,
    }
}

/// Why a document could not be checked at all (each located, none quoting the input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// What the input is instead ([`not_a_har`]).
    #[error("{0}")]
    NotAHar(String),
    #[error("invalid UTF-8 at byte {0} of the (decompressed) input; a HAR is UTF-8 text")]
    Utf8(u64),
    #[error("cannot read: {0}")]
    Read(String),
    /// Not JSON, by byte, line and column.
    #[error("{0}")]
    Json(crate::ingest::scan::ScanError),
    #[error("not valid JSON: after the callback's document only `)` and `;` may follow")]
    Tail,
}

/// [`check_read`] on bytes in memory (a leading BOM is skipped, as when reading a file).
pub fn check_bytes(data: &[u8], source: &str, max_shown: usize) -> Result<CheckReport, CheckError> {
    let data = data.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(data);
    check_read(&data[..data.len().min(64 * 1024)], data, source, max_shown)
}

/// Check a parsed document (the whole of it in memory: tests and small inputs).
pub fn check_value(doc: &Value, source: &str, max_shown: usize) -> CheckReport {
    let mut c = Checker::new(max_shown);
    walk_value(doc, &mut c);
    c.finish(source)
}

/// Feed a parsed document to `c` in file order.
pub fn walk_value(doc: &Value, c: &mut Checker) {
    let log = match doc {
        Value::Object(m) => m.get("log"),
        _ => None,
    };
    let Some(log) = log else {
        c.no_log(&format!("found {}", top_found(doc)));
        return;
    };
    let Value::Object(members) = log else {
        c.push(
            "log",
            None,
            String::new(),
            format!("should be an object, found {}", schema::found(log)),
        );
        return;
    };
    c.log_object();
    for (k, v) in members {
        match (k.as_str(), v) {
            ("pages", Value::Array(items)) => {
                c.log_array("pages");
                for (i, p) in items.iter().enumerate() {
                    c.page(i, p);
                }
            }
            ("entries", Value::Array(items)) => {
                c.log_array("entries");
                for (i, e) in items.iter().enumerate() {
                    c.entry(i, e);
                }
            }
            _ => c.log_member(k, v),
        }
    }
}

fn top_found(v: &Value) -> String {
    match v {
        Value::Object(_) => "an object without it".into(),
        other => schema::found(other),
    }
}

/// Text logs told apart from a HAR by their first line: (what it is, pattern).
const TEXT_LOGS: &[(&str, &str)] = &[
    (
        "a web server access log (Common/Combined Log Format)",
        r#"^\S+ \S+ \S+ \[[^\]]+\] ""#,
    ),
    (
        "a W3C extended log (IIS, CloudFront)",
        r"^#(Software|Version|Fields|Date):",
    ),
    (
        "an AWS load balancer access log",
        r"^(http|https|h2|grpcs|ws|wss) \d{4}-\d{2}-\d{2}T",
    ),
    ("a HAProxy log", r"^\w{3} +\d+ \d\d:\d\d:\d\d \S+ haproxy\["),
    ("an access log", r#""[A-Z]+ \S+ HTTP/[0-9.]+" \d{3} "#),
];

/// Why an input is not a HAR at all, from its first bytes, or `None` when it may be one.
/// `format` is what content sniffing decided (JSON lines are objects one per line).
pub fn not_a_har(prefix: &[u8], sniffed_jsonl: bool) -> Option<String> {
    let start = prefix.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return Some("empty: no HAR document".into());
    };
    if crate::ingest::source::Sample::of(prefix).binary() {
        return Some("binary data, not a HAR".into());
    }
    let body = &prefix[start..];
    match body[0] {
        b'{' if sniffed_jsonl => Some(
            "this is a JSON-lines log, not a HAR (it holds one JSON object per line); `toomany analyze` reads it"
                .into(),
        ),
        b'{' => None,
        b'[' => Some(
            "a JSON array, not a HAR (a HAR is one JSON object with a `log` member)".into(),
        ),
        _ => {
            let first = String::from_utf8_lossy(&body[..body.len().min(4096)]);
            let line = first.lines().next().unwrap_or("");
            // JSONP / HARP: `onInputData({...});` is a HAR in a wrapper.
            let ident = line
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_$.".contains(c)))
                .unwrap_or(line.len());
            if ident > 0 && line[ident..].trim_start().starts_with('(') {
                return None;
            }
            static RES: std::sync::OnceLock<Vec<(&'static str, regex::Regex)>> =
                std::sync::OnceLock::new();
            let res = RES.get_or_init(|| {
                TEXT_LOGS
                    .iter()
                    .map(|(what, re)| (*what, regex::Regex::new(re).expect("valid pattern")))
                    .collect()
            });
            match res.iter().find(|(_, re)| re.is_match(line)) {
                Some((what, _)) => Some(format!("this looks like {what}, not a HAR")),
                None => Some("not JSON: this is text, not a HAR".into()),
            }
        }
    }
}

#[cfg(test)]
mod tests;

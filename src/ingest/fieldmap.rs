//! What `--map` and the JSON-lines reader can tell the user about field names: a mapping that
//! names no canonical field, a mapped path that no line of the input's first bytes has, a
//! `--map` given for a HAR or access log (where it does not apply), and a JSON-lines input in
//! which nothing mapped to a status. Read from the sniffing prefix only, so it costs nothing
//! and works on stdin.

use super::Format;
use serde_json::Value;

/// The canonical fields `--map` can target (the JSON-lines reader's `ALIASES`, in its order).
pub const CANONICAL: &[&str] = &[
    "time",
    "method",
    "url",
    "host",
    "path",
    "status",
    "duration_ms",
    "request_headers",
    "response_headers",
    "response_body",
    "client",
    "request_id",
    "client_ip",
    "user_agent",
    "retry_after",
];

/// Lines of the prefix looked at.
const PEEK_LINES: usize = 200;
/// Field names listed in a message.
const LISTED_NAMES: usize = 24;
/// Longest field name shown (names are the input's text).
const NAME_CHARS: usize = 48;

/// The closest canonical name to an unknown one, when it is close (a typo or a near synonym).
pub fn suggest(unknown: &str) -> Option<&'static str> {
    let u = unknown.to_ascii_lowercase();
    let (best, d) = CANONICAL
        .iter()
        .map(|c| (*c, distance(&u, c)))
        .min_by_key(|(_, d)| *d)?;
    let near = d <= 2 || (u.len() >= 4 && (best.starts_with(&u) || u.starts_with(best)));
    near.then_some(best)
}

/// Levenshtein distance (short strings only: canonical names and what was typed for them).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().take(64).enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The value at a `--map` path, as the JSON-lines reader looks it up: an exact key wins
/// ("@timestamp", "url.full" written flat), else the dots walk into objects.
fn lookup<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if let Some(x) = v.get(path) {
        return Some(x);
    }
    let mut cur = v;
    for part in path.split('.') {
        cur = cur.get(part)?;
    }
    Some(cur)
}

/// The first lines of a JSON-lines input, parsed (lines that are not JSON objects are left
/// out; a line cut by the end of the prefix too).
pub struct Peek {
    objects: Vec<Value>,
}

impl Peek {
    pub fn of(prefix: &[u8]) -> Peek {
        // Only whole lines: the last one may be cut by the end of the prefix.
        let whole = match prefix.iter().rposition(|&b| b == b'\n') {
            Some(i) => &prefix[..i],
            None => prefix,
        };
        let objects = String::from_utf8_lossy(whole)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(PEEK_LINES)
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(Value::is_object)
            .collect();
        Peek { objects }
    }

    /// Lines looked at (JSON objects among them).
    pub fn lines(&self) -> usize {
        self.objects.len()
    }

    /// Whether any looked-at line has a non-null value at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.objects
            .iter()
            .any(|v| lookup(v, path).is_some_and(|x| !x.is_null()))
    }

    /// Field names in order of first appearance, objects one level deep as `a.b`.
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |n: String| {
            if !out.contains(&n) {
                out.push(n);
            }
        };
        for v in &self.objects {
            let Some(m) = v.as_object() else { continue };
            for (k, x) in m {
                match x.as_object() {
                    Some(inner) if !inner.is_empty() && inner.len() <= 16 => {
                        for ik in inner.keys() {
                            add(format!("{k}.{ik}"));
                        }
                    }
                    _ => add(k.clone()),
                }
            }
        }
        out
    }

    /// The names for a message: shown safely (control characters as `?`, long names cut),
    /// at most [`LISTED_NAMES`].
    pub fn listed(&self) -> String {
        let names = self.names();
        if names.is_empty() {
            return "none (no line of the first bytes is a JSON object)".into();
        }
        let mut shown: Vec<String> = names
            .iter()
            .take(LISTED_NAMES)
            .map(|n| {
                if crate::redact::shaped_like_a_secret(n) {
                    return "(a name shaped like a secret, not shown)".to_string();
                }
                let safe: String = n
                    .chars()
                    .map(|c| if c.is_control() { '?' } else { c })
                    .take(NAME_CHARS)
                    .collect();
                if n.chars().count() > NAME_CHARS {
                    format!("{safe}…")
                } else {
                    safe
                }
            })
            .collect();
        if names.len() > LISTED_NAMES {
            shown.push(format!("and {} more", names.len() - LISTED_NAMES));
        }
        shown.join(", ")
    }

    /// A field that looks like it holds `canonical` (for the `--map` suggestion): a name that
    /// is one of the usual short ones, else one that contains a telling word.
    fn guess(&self, canonical: &str) -> Option<String> {
        let (exact, within): (&[&str], &[&str]) = match canonical {
            "status" => (&["code", "sc", "rc", "http_code"], &["status", "code"]),
            "time" => (
                &["t", "at", "ts", "when", "start"],
                &["time", "date", "stamp"],
            ),
            _ => return None,
        };
        let names: Vec<String> = self
            .names()
            .into_iter()
            .filter(|n| !n.chars().any(char::is_control) && n.chars().count() <= NAME_CHARS)
            .filter(|n| !crate::redact::shaped_like_a_secret(n))
            .collect();
        let last = |n: &str| n.rsplit('.').next().unwrap_or(n).to_ascii_lowercase();
        names
            .iter()
            .find(|n| exact.contains(&last(n).as_str()))
            .or_else(|| {
                names
                    .iter()
                    .find(|n| within.iter().any(|w| last(n).contains(w)))
            })
            .cloned()
    }
}

/// Warnings for the `--map` entries of one input, each once: the format does not read
/// `--map`, or a mapped path is on no line of the first ones.
pub fn map_warnings(format: Format, map: &[(String, String)], prefix: &[u8]) -> Vec<String> {
    if map.is_empty() {
        return Vec::new();
    }
    if format != Format::Jsonl {
        let what = match format {
            Format::Har => "a HAR, whose fields the HAR spec fixes".to_string(),
            f => format!(
                "an access log ({}; --log-format describes a custom one)",
                f.as_str()
            ),
        };
        return vec![format!(
            "--map does not apply: this input is {what}; --map renames JSON-lines fields only, so it is ignored here"
        )];
    }
    let peek = Peek::of(prefix);
    if peek.lines() == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (canon, path) in map {
        if seen.contains(&path.as_str()) || !CANONICAL.contains(&canon.as_str()) {
            continue;
        }
        seen.push(path);
        if !peek.has(path) {
            out.push(format!(
                "--map {canon}={path}: no field {path} in the first {} lines (fields seen: {}); lines without it fall back to the usual names for {canon}",
                peek.lines(),
                peek.listed()
            ));
        }
    }
    out
}

/// The error for a JSON-lines input of `records` records none of which had a status: nothing
/// mapped to one, so every record would be read as "no response" and the report would be a
/// clean "0 rate-limited" that means nothing.
pub fn no_status_error(records: usize, any_time: bool, prefix: &[u8]) -> String {
    let peek = Peek::of(prefix);
    let mut missing = vec!["status"];
    if !any_time {
        missing.insert(0, "time");
    }
    let example: Vec<String> = missing
        .iter()
        .map(|c| {
            let field = peek.guess(c).unwrap_or_else(|| "FIELD".into());
            format!("--map {c}={field}")
        })
        .collect();
    format!(
        "no field of its {records} records maps to {} (every record would be read as status 0, no response); field names seen: {}; name the fields with {}",
        missing.join(" or "),
        peek.listed(),
        example.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_get_the_near_canonical_one() {
        assert_eq!(suggest("stauts"), Some("status"));
        assert_eq!(suggest("timestamp"), Some("time"));
        assert_eq!(suggest("duration"), Some("duration_ms"));
        assert_eq!(suggest("URL"), Some("url"));
        assert_eq!(suggest("colour"), None);
    }

    #[test]
    fn the_peek_reads_whole_lines_and_lists_names() {
        let text = b"{\"ts\":1,\"resp\":{\"code\":429}}\nnot json\n{\"ts\":2,\"resp\":{\"code\":200},\"x\":null}\n{\"cut";
        let p = Peek::of(text);
        assert_eq!(p.lines(), 2);
        assert!(p.has("resp.code") && p.has("ts") && !p.has("x") && !p.has("cut"));
        assert_eq!(p.names(), ["ts", "resp.code", "x"]);
        assert_eq!(p.guess("status").as_deref(), Some("resp.code"));
        assert_eq!(p.guess("time").as_deref(), Some("ts"));
        // "status" holds "at", yet is not taken for the time.
        let p = Peek::of(b"{\"state\":1,\"created_date\":2,\"result\":{\"status\":429}}\n");
        assert_eq!(p.guess("time").as_deref(), Some("created_date"));
        assert_eq!(p.guess("status").as_deref(), Some("result.status"));
    }

    #[test]
    fn names_are_shown_safely() {
        let p = Peek::of(b"{\"a\\u001b[2Jb\":1}\n");
        assert_eq!(p.listed(), "a?[2Jb");
        let key = format!("ghp_{}", "Q".repeat(36));
        let p = Peek::of(format!("{{\"{key}\":1,\"ts\":2}}\n").as_bytes());
        let shown = p.listed();
        assert!(
            !shown.contains("QQQQ") && shown.ends_with(", ts"),
            "{shown}"
        );
    }

    #[test]
    fn map_warnings_say_what_does_not_apply() {
        let map = vec![("status".to_string(), "resp.code".to_string())];
        assert!(map_warnings(Format::Har, &map, b"{}")[0].contains("a HAR"));
        assert!(map_warnings(Format::Nginx, &map, b"")[0].contains("an access log (nginx;"));
        let w = map_warnings(Format::Jsonl, &map, b"{\"code\":429}\n");
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("no field resp.code in the first 1 lines (fields seen: code)"));
        assert!(map_warnings(Format::Jsonl, &map, b"{\"resp\":{\"code\":1}}\n").is_empty());
    }
}

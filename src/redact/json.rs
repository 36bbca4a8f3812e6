//! Structured redaction of a JSON document (a HAR entry, a JSON-lines record): the key a value
//! sits under decides first, free text ([`Redactor::text`]) catches the rest.
//!
//! - `headers` lists and maps (`[{name, value}]`, `[[name, value]]`, a flat `rawHeaders` list,
//!   `{name: value}`) are redacted by header name, whatever the value's type;
//! - `cookies` lists: every value, with or without a `name`;
//! - `queryString` / `params`: by parameter name;
//! - a secret-named key redacts everything under it (strings and numbers, however nested);
//! - a base64 body (`"encoding": "base64"`) is decoded leniently, redacted and re-encoded; a
//!   binary body in which a secret shows is dropped, with a note.

use super::decode::{base64_encode, base64_lenient};
use super::names::{header_rule, is_secret_json_field};
use super::Redactor;
use serde_json::{Map, Value};

/// What structured redaction had to do beyond replacing values, for the command to report.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Notes {
    /// Base64 bodies dropped because they are binary (or not base64) and a secret showed in them.
    pub dropped_bodies: usize,
}

/// The comment left on a body that was dropped.
pub const DROPPED_BODY: &str =
    "toomany redact: body removed (binary or not base64, and it held what looks like a secret)";

/// What a `[{name, value}]` list holds, from its key.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Pairs {
    Headers,
    Cookies,
    Fields,
}

fn pairs_kind(key: &str) -> Option<Pairs> {
    let k = key.to_ascii_lowercase();
    if k.contains("headers") || k == "trailers" {
        Some(Pairs::Headers)
    } else if k.contains("cookies") {
        Some(Pairs::Cookies)
    } else if k == "querystring" || k == "params" || k.contains("query") {
        Some(Pairs::Fields)
    } else {
        None
    }
}

fn is_url_key(k: &str) -> bool {
    k.eq_ignore_ascii_case("url") || k.eq_ignore_ascii_case("redirecturl")
}

impl Redactor {
    /// Redact a whole JSON document in place.
    pub fn json(&self, v: &mut Value) -> Notes {
        let mut notes = Notes::default();
        self.json_under(v, None, &mut notes);
        notes
    }

    /// Redact `v`, which sits under `key`.
    fn json_under(&self, v: &mut Value, key: Option<&str>, notes: &mut Notes) {
        if let Some(k) = key {
            if header_rule(k).is_secret() {
                if let Value::String(s) = v {
                    *s = self.header(k, s);
                } else {
                    self.secret_subtree(v);
                }
                return;
            }
            if is_secret_json_field(k) {
                self.secret_subtree(v);
                return;
            }
        }
        match v {
            Value::String(s) => {
                *s = match key {
                    Some(k) if is_url_key(k) => self.url(s),
                    _ => self.text(s),
                };
            }
            Value::Array(items) => match key.and_then(pairs_kind) {
                Some(kind) => self.pair_list(items, kind, key, notes),
                None => items
                    .iter_mut()
                    .for_each(|it| self.json_under(it, key, notes)),
            },
            Value::Object(m) => {
                let base64 = is_base64_body(m);
                if base64 {
                    self.base64_body(m, notes);
                }
                let header_map = key.is_some_and(|k| pairs_kind(k) == Some(Pairs::Headers));
                for (k, val) in m.iter_mut() {
                    if base64 && k == "text" {
                        continue;
                    }
                    if header_map {
                        self.header_value(k, val);
                    } else {
                        self.json_under(val, Some(k), notes);
                    }
                }
            }
            Value::Number(_) | Value::Bool(_) | Value::Null => {}
        }
    }

    /// Everything under a secret name: strings and numbers become tokens, structure stays.
    fn secret_subtree(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if !s.is_empty() {
                    *s = self.token(s);
                }
            }
            Value::Number(n) => *v = Value::String(self.token(&n.to_string())),
            Value::Array(items) => items.iter_mut().for_each(|x| self.secret_subtree(x)),
            Value::Object(m) => m.values_mut().for_each(|x| self.secret_subtree(x)),
            Value::Bool(_) | Value::Null => {}
        }
    }

    /// A header's value of any JSON type, by the header's name.
    fn header_value(&self, name: &str, v: &mut Value) {
        let secret = header_rule(name).is_secret();
        match v {
            Value::String(s) => *s = self.header(name, s),
            Value::Array(items) => items.iter_mut().for_each(|x| self.header_value(name, x)),
            Value::Number(_) if secret => self.secret_subtree(v),
            Value::Object(_) if secret => self.secret_subtree(v),
            Value::Object(m) => {
                let mut notes = Notes::default();
                for (k, x) in m.iter_mut() {
                    self.json_under(x, Some(k), &mut notes);
                }
            }
            Value::Number(_) | Value::Bool(_) | Value::Null => {}
        }
    }

    /// A list of pairs: `{name, value}` objects (any key order; Postman writes `key`),
    /// `[name, value]` arrays, or a flat `[name, value, name, value…]` list (Node's
    /// `rawHeaders`).
    fn pair_list(&self, items: &mut [Value], kind: Pairs, key: Option<&str>, notes: &mut Notes) {
        let flat = items.len().is_multiple_of(2)
            && !items.is_empty()
            && items.iter().all(Value::is_string)
            && kind == Pairs::Headers;
        if flat {
            for pair in items.chunks_mut(2) {
                let (n, v) = pair.split_at_mut(1);
                let name = n[0].as_str().unwrap_or("").to_string();
                self.pair_value(kind, Some(&name), &mut v[0], notes);
            }
            return;
        }
        for it in items.iter_mut() {
            match it {
                Value::Object(m) => {
                    let name = m
                        .get("name")
                        .or_else(|| m.get("key"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let name_key = if m.contains_key("name") {
                        "name"
                    } else {
                        "key"
                    };
                    for (k, val) in m.iter_mut() {
                        if k == "value" {
                            self.pair_value(kind, name.as_deref(), val, notes);
                        } else if k != name_key || name.is_none() {
                            self.json_under(val, Some(k), notes);
                        }
                    }
                }
                Value::Array(pair) if pair.len() == 2 && pair[0].is_string() => {
                    let name = pair[0].as_str().unwrap_or("").to_string();
                    self.pair_value(kind, Some(&name), &mut pair[1], notes);
                }
                other => self.json_under(other, key, notes),
            }
        }
    }

    /// The value of one pair. Without a name a header or cookie value is a secret (nothing says
    /// it is not).
    fn pair_value(&self, kind: Pairs, name: Option<&str>, v: &mut Value, notes: &mut Notes) {
        match (kind, name) {
            (Pairs::Headers, Some(n)) => self.header_value(n, v),
            (Pairs::Headers, None) | (Pairs::Cookies, _) => self.secret_subtree(v),
            (Pairs::Fields, Some(n)) => match v {
                Value::String(s) => *s = self.field(n, s),
                _ if super::is_secret_field(n) => self.secret_subtree(v),
                _ => self.json_under(v, None, notes),
            },
            (Pairs::Fields, None) => self.json_under(v, None, notes),
        }
    }

    /// A HAR content object with a base64 body: decode (MIME-wrapped, unpadded or URL-safe
    /// alike), redact, re-encode when it is text; drop it when it is binary or undecodable and a
    /// secret shows in it.
    fn base64_body(&self, m: &mut Map<String, Value>, notes: &mut Notes) {
        let Some(Value::String(t)) = m.get("text") else {
            return;
        };
        let drop = match base64_lenient(t) {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(s) => {
                    let red = self.text(&s);
                    if red != s {
                        m.insert("text".into(), Value::String(base64_encode(red.as_bytes())));
                    }
                    false
                }
                Err(e) => {
                    let printable = printable_runs(e.as_bytes());
                    self.text(&printable) != printable
                }
            },
            None => self.text(t) != *t,
        };
        if drop {
            m.insert("text".into(), Value::String(String::new()));
            m.insert("comment".into(), Value::String(DROPPED_BODY.into()));
            notes.dropped_bodies += 1;
        }
    }
}

fn is_base64_body(m: &Map<String, Value>) -> bool {
    m.get("encoding")
        .and_then(Value::as_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"))
        && m.get("text").is_some_and(Value::is_string)
}

/// The printable ASCII runs of binary data, one per line, so text matchers see any secret
/// written in clear inside it.
fn printable_runs(bytes: &[u8]) -> String {
    let mut out = String::new();
    let mut run = String::new();
    for &b in bytes {
        if b.is_ascii_graphic() || b == b' ' {
            run.push(b as char);
        } else {
            if run.len() >= 6 {
                out.push_str(&run);
                out.push('\n');
            }
            run.clear();
        }
    }
    if run.len() >= 6 {
        out.push_str(&run);
    }
    out
}

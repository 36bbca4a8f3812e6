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
use super::tree::{Node, Str};
use super::Redactor;

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
    /// Redact a whole JSON document in place (numbers come back re-parsed: [`Redactor::tree`]
    /// keeps them exactly as written).
    pub fn json(&self, v: &mut serde_json::Value) -> Notes {
        let mut n = Node::from(&*v);
        let notes = self.tree(&mut n);
        *v = n.to_value();
        notes
    }

    /// Redact a whole JSON document in place.
    pub fn tree(&self, v: &mut Node) -> Notes {
        let mut notes = Notes::default();
        self.tree_under(v, None, &mut notes);
        notes
    }

    /// Redact `v`, which sits under `key` (a member name, or the key of the array it is in).
    pub fn tree_under(&self, v: &mut Node, key: Option<&str>, notes: &mut Notes) {
        self.json_under(v, key, notes)
    }

    fn json_under(&self, v: &mut Node, key: Option<&str>, notes: &mut Notes) {
        if let Some(k) = key {
            if header_rule(k).is_secret() {
                if let Node::Str(s) = v {
                    let red = self.header(k, s.as_str());
                    s.set(red);
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
            Node::Str(s) => {
                let red = match key {
                    Some(k) if is_url_key(k) => self.url(s.as_str()),
                    _ => self.text(s.as_str()),
                };
                s.set(red);
            }
            Node::Arr(items) => match key.and_then(pairs_kind) {
                Some(kind) => self.pair_list(items, kind, key, notes),
                None => items
                    .iter_mut()
                    .for_each(|it| self.json_under(it, key, notes)),
            },
            Node::Obj(m) => {
                let base64 = is_base64_body(m);
                if base64 {
                    self.base64_body(m, notes);
                }
                let header_map = key.is_some_and(|k| pairs_kind(k) == Some(Pairs::Headers));
                for (name, val) in m.iter_mut() {
                    let k = name.as_str();
                    if base64 && k == "text" {
                        continue;
                    }
                    if header_map {
                        self.header_value(k, val);
                    } else {
                        self.json_under(val, Some(k), notes);
                    }
                    self.shaped_name(name);
                }
            }
            Node::Num(_) | Node::Bool(_) | Node::Null => {}
        }
    }

    /// A name (a key, a header's name) that is a secret by its shape (`ghp_…`), redacted; a
    /// name is otherwise kept.
    pub(super) fn shaped_name(&self, name: &mut Str) {
        if let std::borrow::Cow::Owned(red) = self.name(name.as_str()) {
            name.set(red);
        }
    }

    /// A node that is a name (a pair's `name`, a flat header list's name item).
    fn shaped_name_node(&self, v: &mut Node) {
        if let Node::Str(s) = v {
            self.shaped_name(s);
        }
    }

    /// Everything under a secret name: strings and numbers become tokens, structure stays.
    fn secret_subtree(&self, v: &mut Node) {
        match v {
            Node::Str(s) => {
                if !s.as_str().is_empty() {
                    let t = self.token(s.as_str());
                    s.set(t);
                }
            }
            Node::Num(n) => *v = Node::str(self.token(n)),
            Node::Arr(items) => items.iter_mut().for_each(|x| self.secret_subtree(x)),
            Node::Obj(m) => m.iter_mut().for_each(|(k, x)| {
                self.secret_subtree(x);
                self.shaped_name(k);
            }),
            Node::Bool(_) | Node::Null => {}
        }
    }

    /// A header's value of any JSON type, by the header's name.
    fn header_value(&self, name: &str, v: &mut Node) {
        let secret = header_rule(name).is_secret();
        match v {
            Node::Str(s) => {
                let red = self.header(name, s.as_str());
                s.set(red);
            }
            Node::Arr(items) => items.iter_mut().for_each(|x| self.header_value(name, x)),
            Node::Num(_) if secret => self.secret_subtree(v),
            Node::Obj(_) if secret => self.secret_subtree(v),
            Node::Obj(m) => {
                let mut notes = Notes::default();
                for (k, x) in m.iter_mut() {
                    self.json_under(x, Some(k.as_str()), &mut notes);
                    self.shaped_name(k);
                }
            }
            Node::Num(_) | Node::Bool(_) | Node::Null => {}
        }
    }

    /// A list of pairs: `{name, value}` objects (any key order; Postman writes `key`),
    /// `[name, value]` arrays, or a flat `[name, value, name, value…]` list (Node's
    /// `rawHeaders`).
    fn pair_list(&self, items: &mut [Node], kind: Pairs, key: Option<&str>, notes: &mut Notes) {
        let flat = items.len().is_multiple_of(2)
            && !items.is_empty()
            && items.iter().all(Node::is_string)
            && kind == Pairs::Headers;
        if flat {
            for pair in items.chunks_mut(2) {
                let (n, v) = pair.split_at_mut(1);
                let name = n[0].as_str().unwrap_or("").to_string();
                self.pair_value(kind, Some(&name), &mut v[0], notes);
                self.shaped_name_node(&mut n[0]);
            }
            return;
        }
        for it in items.iter_mut() {
            let name = it
                .get("name")
                .or_else(|| it.get("key"))
                .and_then(Node::as_str)
                .map(str::to_string);
            let name_key = if it.get("name").is_some() {
                "name"
            } else {
                "key"
            };
            match it {
                Node::Obj(m) => {
                    for (key, val) in m.iter_mut() {
                        let k = key.as_str();
                        if k == "value" {
                            self.pair_value(kind, name.as_deref(), val, notes);
                        } else if k != name_key || name.is_none() {
                            self.json_under(val, Some(k), notes);
                        } else {
                            self.shaped_name_node(val);
                        }
                        self.shaped_name(key);
                    }
                }
                Node::Arr(pair) if pair.len() == 2 && pair[0].is_string() => {
                    let name = pair[0].as_str().unwrap_or("").to_string();
                    self.pair_value(kind, Some(&name), &mut pair[1], notes);
                    self.shaped_name_node(&mut pair[0]);
                }
                other => self.json_under(other, key, notes),
            }
        }
    }

    /// The value of one pair. Without a name a header or cookie value is a secret (nothing says
    /// it is not).
    fn pair_value(&self, kind: Pairs, name: Option<&str>, v: &mut Node, notes: &mut Notes) {
        match (kind, name) {
            (Pairs::Headers, Some(n)) => self.header_value(n, v),
            (Pairs::Headers, None) | (Pairs::Cookies, _) => self.secret_subtree(v),
            (Pairs::Fields, Some(n)) => match v {
                Node::Str(s) => {
                    let red = self.field(n, s.as_str());
                    s.set(red);
                }
                _ if super::is_secret_field(n) => self.secret_subtree(v),
                _ => self.json_under(v, None, notes),
            },
            (Pairs::Fields, None) => self.json_under(v, None, notes),
        }
    }

    /// A HAR content object with a base64 body: decode (MIME-wrapped, unpadded or URL-safe
    /// alike), redact, re-encode when it is text; drop it when it is binary or undecodable and a
    /// secret shows in it.
    fn base64_body(&self, m: &mut Vec<(Str, Node)>, notes: &mut Notes) {
        let Some(t) = member(m, "text").and_then(Node::as_str) else {
            return;
        };
        let drop = match base64_lenient(t) {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(s) => {
                    let red = self.text(&s);
                    if red != s {
                        set_member(m, "text", Node::str(base64_encode(red.as_bytes())));
                    }
                    false
                }
                Err(e) => {
                    let printable = printable_runs(e.as_bytes());
                    self.text(&printable) != printable
                }
            },
            None => self.text(t) != t,
        };
        if drop {
            set_member(m, "text", Node::str(""));
            set_member(m, "comment", Node::str(DROPPED_BODY));
            notes.dropped_bodies += 1;
        }
    }
}

fn member<'a>(m: &'a [(Str, Node)], key: &str) -> Option<&'a Node> {
    m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
}

/// Replace the first member `key`, or add it at the end.
fn set_member(m: &mut Vec<(Str, Node)>, key: &str, v: Node) {
    match m.iter_mut().find(|(k, _)| k.as_str() == key) {
        Some((_, old)) => *old = v,
        None => m.push((Str::new(key), v)),
    }
}

fn is_base64_body(m: &[(Str, Node)]) -> bool {
    member(m, "encoding")
        .and_then(Node::as_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("base64"))
        && member(m, "text").is_some_and(Node::is_string)
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

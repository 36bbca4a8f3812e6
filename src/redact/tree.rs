//! A JSON value as `redact` copies it: numbers kept as their raw text and strings with the bytes
//! they were written with, so what redaction does not touch is written back exactly as read
//! (no float round trip, no re-escaping).

use std::io::{self, Write};

/// A string: its decoded value and, while unchanged, its raw bytes between the quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct Str {
    value: String,
    raw: Option<Box<[u8]>>,
}

impl Str {
    /// A string read from input: `raw` is what stood between the quotes (escapes kept).
    pub fn read(value: String, raw: Option<&[u8]>) -> Str {
        // Without a backslash the raw bytes are the value itself: keep one copy.
        let raw = raw.filter(|r| r.contains(&b'\\')).map(Box::from);
        Str { value, raw }
    }

    pub fn new(value: impl Into<String>) -> Str {
        Str {
            value: value.into(),
            raw: None,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.value
    }

    /// Replace the value (the raw form is dropped unless the value is unchanged).
    pub fn set(&mut self, value: String) {
        if value != self.value {
            self.value = value;
            self.raw = None;
        }
    }

    /// The string literal: the raw form while unchanged, else escaped as serde_json does.
    pub(crate) fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        match &self.raw {
            Some(raw) => {
                out.write_all(b"\"")?;
                out.write_all(raw)?;
                out.write_all(b"\"")
            }
            None => write_json_string(out, &self.value),
        }
    }
}

/// A JSON value. Objects keep their members in order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// The number's raw text, exactly as written.
    Num(String),
    Str(Str),
    Arr(Vec<Node>),
    Obj(Vec<(Str, Node)>),
}

impl Node {
    pub fn str(s: impl Into<String>) -> Node {
        Node::Str(Str::new(s))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Node::Str(_))
    }

    /// The first member named `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Obj(m) => m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// One line, no spaces (JSON lines).
    pub fn write_compact(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Node::Null => out.write_all(b"null"),
            Node::Bool(b) => out.write_all(if *b { b"true" } else { b"false" }),
            Node::Num(n) => out.write_all(n.as_bytes()),
            Node::Str(s) => s.write(out),
            Node::Arr(items) => {
                out.write_all(b"[")?;
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    it.write_compact(out)?;
                }
                out.write_all(b"]")
            }
            Node::Obj(m) => {
                out.write_all(b"{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    k.write(out)?;
                    out.write_all(b":")?;
                    v.write_compact(out)?;
                }
                out.write_all(b"}")
            }
        }
    }

    /// Indented by two spaces per level, as `serde_json::to_writer_pretty` writes; `level` is
    /// the depth this value starts at.
    pub fn write_pretty(&self, out: &mut dyn Write, level: usize) -> io::Result<()> {
        match self {
            Node::Arr(items) if !items.is_empty() => {
                out.write_all(b"[")?;
                for (i, it) in items.iter().enumerate() {
                    out.write_all(if i > 0 { b",\n" } else { b"\n" })?;
                    indent(out, level + 1)?;
                    it.write_pretty(out, level + 1)?;
                }
                out.write_all(b"\n")?;
                indent(out, level)?;
                out.write_all(b"]")
            }
            Node::Obj(m) if !m.is_empty() => {
                out.write_all(b"{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    out.write_all(if i > 0 { b",\n" } else { b"\n" })?;
                    indent(out, level + 1)?;
                    k.write(out)?;
                    out.write_all(b": ")?;
                    v.write_pretty(out, level + 1)?;
                }
                out.write_all(b"\n")?;
                indent(out, level)?;
                out.write_all(b"}")
            }
            other => other.write_compact(out),
        }
    }

    /// The whole value as a `serde_json::Value` (numbers re-parsed).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Num(n) => serde_json::from_str(n).unwrap_or(Value::Null),
            Node::Str(s) => Value::String(s.as_str().to_string()),
            Node::Arr(a) => Value::Array(a.iter().map(Node::to_value).collect()),
            Node::Obj(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.as_str().to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl From<&serde_json::Value> for Node {
    fn from(v: &serde_json::Value) -> Node {
        use serde_json::Value;
        match v {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => Node::Num(n.to_string()),
            Value::String(s) => Node::str(s.clone()),
            Value::Array(a) => Node::Arr(a.iter().map(Node::from).collect()),
            Value::Object(m) => Node::Obj(
                m.iter()
                    .map(|(k, v)| (Str::new(k.clone()), Node::from(v)))
                    .collect(),
            ),
        }
    }
}

pub(crate) fn indent(out: &mut dyn Write, level: usize) -> io::Result<()> {
    for _ in 0..level {
        out.write_all(b"  ")?;
    }
    Ok(())
}

/// A JSON string literal with the escaping serde_json uses.
pub(crate) fn write_json_string(out: &mut dyn Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *out, s).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_like_serde_json() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"a":[1,{"b":"x\ny"},[],{}],"c":null,"d":true}"#).unwrap();
        let n = Node::from(&v);
        let mut pretty = Vec::new();
        n.write_pretty(&mut pretty, 0).unwrap();
        assert_eq!(
            String::from_utf8(pretty).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        let mut compact = Vec::new();
        n.write_compact(&mut compact).unwrap();
        assert_eq!(String::from_utf8(compact).unwrap(), v.to_string());
    }

    #[test]
    fn raw_forms_survive_until_changed() {
        let mut s = Str::read("é/".into(), Some(br"\u00e9\/"));
        let mut out = Vec::new();
        s.write(&mut out).unwrap();
        assert_eq!(out, br#""\u00e9\/""#);
        s.set("é/".into());
        out.clear();
        s.write(&mut out).unwrap();
        assert_eq!(out, br#""\u00e9\/""#, "same value: raw kept");
        s.set("x".into());
        out.clear();
        s.write(&mut out).unwrap();
        assert_eq!(out, br#""x""#);
        let n = Node::Num("0.1000".into());
        out.clear();
        n.write_compact(&mut out).unwrap();
        assert_eq!(out, b"0.1000");
    }
}

//! Streaming the document into a [`Checker`]: serde visitors walk the top level and `log`
//! member by member, and materialise one page or entry at a time as a `Value` (dropped once
//! checked), so memory follows the largest entry, not the file.

use super::{schema, Checker};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::io::{self, BufRead, Read};

/// Why a document could not be walked to its end.
pub enum ReadError {
    Io(io::Error),
    Json(serde_json::Error),
    /// Something other than `)`, `;` or whitespace after a JSONP callback's document.
    Tail,
}

/// A reader that fails at the first byte that is not UTF-8, remembering its offset (serde
/// reports such bytes inside strings only, by line and column; a HAR must be UTF-8 throughout).
pub struct Utf8Checked<R> {
    inner: R,
    /// Bytes passed on so far.
    offset: u64,
    /// The start of a sequence cut by the end of the last read.
    carry: Vec<u8>,
    bad_at: Option<u64>,
}

impl<R: Read> Utf8Checked<R> {
    pub fn new(inner: R) -> Self {
        Utf8Checked {
            inner,
            offset: 0,
            carry: Vec::new(),
            bad_at: None,
        }
    }

    /// Offset of the first invalid byte, once one was met.
    pub fn bad_utf8_at(&self) -> Option<u64> {
        self.bad_at
    }

    fn fail(&mut self, at: u64) -> io::Error {
        self.bad_at = Some(at);
        io::Error::new(io::ErrorKind::InvalidData, "invalid UTF-8")
    }
}

impl<R: Read> Read for Utf8Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(at) = self.bad_at {
            return Err(self.fail(at));
        }
        let n = self.inner.read(buf)?;
        let start = self.offset - self.carry.len() as u64;
        if n == 0 {
            if !self.carry.is_empty() {
                return Err(self.fail(start));
            }
            return Ok(0);
        }
        let joined;
        let data: &[u8] = if self.carry.is_empty() {
            &buf[..n]
        } else {
            joined = [self.carry.as_slice(), &buf[..n]].concat();
            &joined
        };
        match std::str::from_utf8(data) {
            Ok(_) => self.carry.clear(),
            Err(e) => match e.error_len() {
                Some(_) => {
                    let at = start + e.valid_up_to() as u64;
                    return Err(self.fail(at));
                }
                None => self.carry = data[e.valid_up_to()..].to_vec(),
            },
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// Consume `callback(` of a JSONP/HARP wrapper (the name was vetted by `not_a_har`).
pub fn skip_callback_name(input: &mut impl BufRead) -> Result<(), ReadError> {
    let mut name = Vec::new();
    input
        .take(64 * 1024)
        .read_until(b'(', &mut name)
        .map_err(ReadError::Io)?;
    if name.last() == Some(&b'(') {
        Ok(())
    } else {
        Err(ReadError::Tail)
    }
}

/// Walk one document from `input` into `c`; then only whitespace (or, after a callback's
/// document, `)` and an optional `;`) may follow.
pub fn walk_reader(
    input: &mut impl BufRead,
    c: &mut Checker,
    jsonp: bool,
) -> Result<(), ReadError> {
    let mut de = serde_json::Deserializer::from_reader(&mut *input);
    Top(c).deserialize(&mut de).map_err(json_or_io)?;
    if !jsonp {
        return de.end().map_err(json_or_io);
    }
    drop(de);
    let mut tail = Vec::new();
    input
        .take(4096)
        .read_to_end(&mut tail)
        .map_err(ReadError::Io)?;
    let t = String::from_utf8_lossy(&tail);
    let t = t.trim();
    let t = t.strip_prefix(')').ok_or(ReadError::Tail)?;
    let t = t.trim_start();
    let t = t.strip_prefix(';').unwrap_or(t);
    if t.trim().is_empty() && tail.len() < 4096 {
        Ok(())
    } else {
        Err(ReadError::Tail)
    }
}

fn json_or_io(e: serde_json::Error) -> ReadError {
    ReadError::Json(e)
}

/// What a value other than an object is, in [`schema::found`]'s words.
fn found_scalar(v: Value) -> String {
    schema::found(&v)
}

fn found_array(n: usize) -> String {
    match n {
        0 => "an empty array".into(),
        n => format!("an array of {n}"),
    }
}

/// The top level: `log` is walked, everything else skipped.
struct Top<'a>(&'a mut Checker);

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! not_an_object {
    ($on:ident) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
            self.$on(found_scalar(Value::Bool(v)));
            Ok(())
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
            self.$on(found_scalar(Value::from(v)));
            Ok(())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
            self.$on(found_scalar(Value::from(v)));
            Ok(())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
            self.$on(found_scalar(Value::from(v)));
            Ok(())
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
            self.$on(found_scalar(Value::String(if v.is_empty() {
                String::new()
            } else {
                "x".into()
            })));
            Ok(())
        }
        fn visit_unit<E: de::Error>(self) -> Result<(), E> {
            self.$on(found_scalar(Value::Null));
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut n = 0;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            self.$on(found_array(n));
            Ok(())
        }
    };
}

impl Top<'_> {
    fn not_object(self, found: String) {
        self.0.no_log(&format!("found {found}"));
    }
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a HAR document")
    }
    not_an_object!(not_object);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen_log = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "log" && !seen_log {
                seen_log = true;
                map.next_value_seed(Log(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !seen_log {
            self.0.no_log("found an object without it");
        }
        Ok(())
    }
}

/// `log`: `pages` and `entries` arrays item by item, other members whole.
struct Log<'a>(&'a mut Checker);

impl<'de> DeserializeSeed<'de> for Log<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Log<'_> {
    fn not_object(self, found: String) {
        self.0.push(
            "log",
            None,
            String::new(),
            format!("should be an object, found {found}"),
        );
    }
}

impl<'de> Visitor<'de> for Log<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the `log` object")
    }
    not_an_object!(not_object);
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "pages" | "entries" => {
                    if let Some(other) = map.next_value_seed(Items {
                        c: &mut *self.0,
                        pages: key == "pages",
                    })? {
                        self.0.log_member(&key, &other);
                    }
                }
                _ => {
                    let v: Value = map.next_value()?;
                    self.0.log_member(&key, &v);
                }
            }
        }
        Ok(())
    }
}

/// `log.pages` / `log.entries`: an array is checked item by item (`None`); anything else is
/// returned whole for the `log` rules to judge.
struct Items<'a> {
    c: &'a mut Checker,
    pages: bool,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = Option<Value>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = Option<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        self.c
            .log_array(if self.pages { "pages" } else { "entries" });
        let mut i = 0;
        while let Some(v) = seq.next_element::<Value>()? {
            if self.pages {
                self.c.page(i, &v);
            } else {
                self.c.entry(i, &v);
            }
            i += 1;
        }
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        use serde::Deserialize;
        Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<Value>, E> {
        Ok(Some(Value::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Value>, E> {
        Ok(Some(Value::String(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }
}

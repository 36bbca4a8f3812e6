//! A JSON object read lazily from borrowed text, for JSON lines.
//!
//! A log line is parsed once by serde_json into its top-level `(key, raw value)` pairs: every
//! value is validated but none is built (no `serde_json::Value` tree, no string copies unless a
//! key has escapes). The fields normalization reads are then decoded one by one from their raw
//! text; nested objects (`request.headers`, dotted `--map` paths) are split the same way only
//! when asked for. Semantics follow `serde_json::Value` with `preserve_order`: a duplicated key
//! reads as its last value; numbers go through `serde_json::Number`, so they read exactly as a
//! `Value` would have read them.

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Number;
use std::borrow::Cow;
use std::fmt;

/// A string borrowed from the input when it has no escapes, decoded otherwise.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The top-level fields of one JSON object, values still raw.
#[derive(Default)]
pub struct Obj<'a> {
    fields: Vec<(Cow<'a, str>, &'a RawValue)>,
}

/// A whole JSON document: an object split into fields, or anything else (validated, skipped).
pub enum Doc<'a> {
    Object(Obj<'a>),
    Other,
}

impl<'de> Deserialize<'de> for Doc<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Doc<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Doc<'de>, A::Error> {
                let mut fields = Vec::with_capacity(m.size_hint().unwrap_or(16));
                while let Some(k) = m.next_key::<Text<'de>>()? {
                    fields.push((k.0, m.next_value::<&'de RawValue>()?));
                }
                Ok(Doc::Object(Obj { fields }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Doc<'de>, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Doc::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Doc<'de>, E> {
                Ok(Doc::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// Parse one document (a whole line): serde_json's validation and error messages, no tree.
pub fn parse(text: &str) -> Result<Doc<'_>, serde_json::Error> {
    serde_json::from_str(text)
}

impl<'a> Obj<'a> {
    /// Split a raw value into fields when it is an object.
    pub fn of(raw: &'a RawValue) -> Option<Obj<'a>> {
        if !raw.get().starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Doc<'a>>(raw.get()) {
            Ok(Doc::Object(o)) => Some(o),
            _ => None,
        }
    }

    /// The value of `key` (the last one when the key repeats, as `Value` reads it).
    pub fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| *v)
    }

    /// The fields in document order, a repeated key once at its first place with its last
    /// value (`serde_json::Map` with `preserve_order`).
    pub fn entries(&self) -> Vec<(&str, &'a RawValue)> {
        let mut out: Vec<(&str, &'a RawValue)> = Vec::with_capacity(self.fields.len());
        for (k, v) in &self.fields {
            match out.iter_mut().find(|(o, _)| *o == k.as_ref()) {
                Some(slot) => slot.1 = *v,
                None => out.push((k.as_ref(), *v)),
            }
            // Quadratic only in the number of fields of one object, and a line is bounded
            // (jsonl::MAX_LINE); past a few hundred keys fall back to a map.
            if out.len() > 256 {
                return self.entries_mapped();
            }
        }
        out
    }

    fn entries_mapped(&self) -> Vec<(&str, &'a RawValue)> {
        let mut at: std::collections::HashMap<&str, usize> = Default::default();
        let mut out: Vec<(&str, &'a RawValue)> = Vec::with_capacity(self.fields.len());
        for (k, v) in &self.fields {
            match at.get(k.as_ref()) {
                Some(&i) => out[i].1 = *v,
                None => {
                    at.insert(k.as_ref(), out.len());
                    out.push((k.as_ref(), *v));
                }
            }
        }
        out
    }

    /// Field names in document order (duplicates included).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(k, _)| k.as_ref())
    }
}

/// One decoded value.
pub enum Val<'a> {
    Str(Cow<'a, str>),
    Num(Number),
    Bool(bool),
    Null,
    Object(&'a RawValue),
    Array(&'a RawValue),
}

/// Decode a raw value's kind (strings without escapes are borrowed, not copied).
pub fn val(raw: &RawValue) -> Val<'_> {
    let t = raw.get().trim();
    match t.as_bytes().first() {
        Some(b'"') => {
            let inner = &t[1..t.len().saturating_sub(1).max(1)];
            if !inner.contains('\\') {
                return Val::Str(Cow::Borrowed(inner));
            }
            match serde_json::from_str::<String>(t) {
                Ok(s) => Val::Str(Cow::Owned(s)),
                Err(_) => Val::Null,
            }
        }
        Some(b'{') => Val::Object(raw),
        Some(b'[') => Val::Array(raw),
        Some(b't') => Val::Bool(true),
        Some(b'f') => Val::Bool(false),
        Some(b'n') | None => Val::Null,
        Some(_) => match serde_json::from_str::<Number>(t) {
            Ok(n) => Val::Num(n),
            Err(_) => Val::Null,
        },
    }
}

/// `true` for a JSON `null`.
pub fn is_null(raw: &RawValue) -> bool {
    raw.get().trim() == "null"
}

/// The items of a raw array (empty for anything else).
pub fn items(raw: &RawValue) -> Vec<&RawValue> {
    if !raw.get().trim_start().starts_with('[') {
        return Vec::new();
    }
    serde_json::from_str::<Vec<&RawValue>>(raw.get()).unwrap_or_default()
}

/// The value written back compactly, as `Value::to_string` would (for odd-typed fields whose
/// text is kept, e.g. an object given as a response body).
pub fn compact(raw: &RawValue) -> String {
    serde_json::from_str::<serde_json::Value>(raw.get())
        .map(|v| v.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn obj(s: &str) -> Obj<'_> {
        match parse(s).unwrap() {
            Doc::Object(o) => o,
            Doc::Other => panic!("not an object"),
        }
    }

    #[test]
    fn fields_borrow_and_decode_like_value() {
        let line = r#"{"a":"x\"y","b":1.50,"c":{"d":[1,2]},"a":"last","e":null,"k\u0041":true}"#;
        let o = obj(line);
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(matches!(val(o.get("a").unwrap()), Val::Str(s) if v["a"] == *s));
        match val(o.get("b").unwrap()) {
            Val::Num(n) => assert_eq!(n.to_string(), v["b"].to_string()),
            _ => panic!(),
        }
        assert!(is_null(o.get("e").unwrap()));
        assert!(matches!(val(o.get("kA").unwrap()), Val::Bool(true)));
        let c = Obj::of(o.get("c").unwrap()).unwrap();
        assert_eq!(items(c.get("d").unwrap()).len(), 2);
        let order: Vec<&str> = o.entries().iter().map(|(k, _)| *k).collect();
        let want: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(order, want);
        assert!(matches!(val(o.entries()[0].1), Val::Str(s) if s == "last"));
        assert!(matches!(parse("[1,{}]").unwrap(), Doc::Other));
        assert!(parse(r#"{"a":"\x"}"#).is_err());
        assert!(parse(r#"{"a":1} x"#).is_err());
    }

    proptest! {
        /// Any flat object: every field reads as `Value` reads it.
        #[test]
        fn matches_value(m in proptest::collection::vec(("[a-c\\\\\"é]{0,3}", prop_oneof![
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
            "[ -~é\\n]{0,8}".prop_map(serde_json::Value::from),
            any::<bool>().prop_map(serde_json::Value::from),
            Just(serde_json::Value::Null),
        ]), 0..8)) {
            let mut text = String::from("{");
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 { text.push(','); }
                text.push_str(&serde_json::to_string(k).unwrap());
                text.push(':');
                text.push_str(&v.to_string());
            }
            text.push('}');
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let o = obj(&text);
            for (k, want) in value.as_object().unwrap() {
                let got = match val(o.get(k).unwrap()) {
                    Val::Str(s) => serde_json::Value::from(s.as_ref()),
                    Val::Num(n) => serde_json::Value::Number(n),
                    Val::Bool(b) => serde_json::Value::Bool(b),
                    Val::Null => serde_json::Value::Null,
                    _ => unreachable!(),
                };
                prop_assert_eq!(&got, want);
            }
        }
    }
}

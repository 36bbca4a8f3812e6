//! Lenient serde building blocks. Real exports put strings where numbers belong, `null` where
//! objects belong, and objects where strings belong. These types accept any JSON value, never
//! fail on a type mismatch, and record what they saw so normalization can warn with a location.

use serde::de::{self, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::fmt;
use std::marker::PhantomData;

/// What a field held when it was not what we wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Odd {
    Object,
    Array,
    Bool,
    Number,
    String,
}

impl Odd {
    pub fn describe(&self) -> &'static str {
        match self {
            Odd::Object => "an object",
            Odd::Array => "an array",
            Odd::Bool => "a boolean",
            Odd::Number => "a number",
            Odd::String => "a string",
        }
    }
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A value read as text: strings as-is, numbers and booleans formatted.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum LStr {
    #[default]
    Missing,
    Null,
    Str(String),
    /// A number or boolean, formatted (kept, but worth a warning where text was expected).
    Coerced(String),
    Odd(Odd),
}

impl LStr {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            LStr::Str(s) | LStr::Coerced(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for LStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LStr, E> {
                Ok(LStr::Str(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LStr, E> {
                Ok(LStr::Str(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LStr, E> {
                Ok(LStr::Coerced(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LStr, E> {
                Ok(LStr::Coerced(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LStr, E> {
                Ok(LStr::Coerced(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LStr, E> {
                Ok(LStr::Coerced(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LStr, E> {
                Ok(LStr::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<LStr, E> {
                Ok(LStr::Null)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LStr, A::Error> {
                drain_map(m)?;
                Ok(LStr::Odd(Odd::Object))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<LStr, A::Error> {
                drain_seq(s)?;
                Ok(LStr::Odd(Odd::Array))
            }
        }
        d.deserialize_any(V)
    }
}

/// A value read as a number: numbers as-is, numeric strings parsed (and flagged).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum LNum {
    #[default]
    Missing,
    Null,
    Num(f64),
    /// A string that held a number ("429").
    FromStr(f64),
    Odd(Odd),
}

impl LNum {
    pub fn value(&self) -> Option<f64> {
        match self {
            LNum::Num(v) | LNum::FromStr(v) => Some(*v),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LNum;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LNum, E> {
                Ok(match v.trim().parse::<f64>() {
                    Ok(n) if n.is_finite() => LNum::FromStr(n),
                    _ => LNum::Odd(Odd::String),
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LNum, E> {
                Ok(LNum::Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LNum, E> {
                Ok(LNum::Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LNum, E> {
                Ok(LNum::Num(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LNum, E> {
                Ok(LNum::Odd(Odd::Bool))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<LNum, E> {
                Ok(LNum::Null)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LNum, A::Error> {
                drain_map(m)?;
                Ok(LNum::Odd(Odd::Object))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<LNum, A::Error> {
                drain_seq(s)?;
                Ok(LNum::Odd(Odd::Array))
            }
        }
        d.deserialize_any(V)
    }
}

/// An object read into `T` when it is one; anything else is recorded, not an error.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LObj<T> {
    #[default]
    Missing,
    Null,
    Val(T),
    Odd(Odd),
}

impl<T> LObj<T> {
    pub fn get(&self) -> Option<&T> {
        match self {
            LObj::Val(v) => Some(v),
            _ => None,
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for LObj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: DeserializeOwned> Visitor<'de> for V<T> {
            type Value = LObj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LObj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(m)).map(LObj::Val)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<LObj<T>, A::Error> {
                drain_seq(s)?;
                Ok(LObj::Odd(Odd::Array))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LObj<T>, E> {
                Ok(LObj::Odd(Odd::String))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LObj<T>, E> {
                Ok(LObj::Odd(Odd::Number))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LObj<T>, E> {
                Ok(LObj::Odd(Odd::Number))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LObj<T>, E> {
                Ok(LObj::Odd(Odd::Number))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LObj<T>, E> {
                Ok(LObj::Odd(Odd::Bool))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LObj<T>, E> {
                Ok(LObj::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<LObj<T>, E> {
                Ok(LObj::Null)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A list whose elements are read leniently; a non-list is recorded, not an error.
#[derive(Debug, Clone, PartialEq)]
pub struct LList<T> {
    pub items: Vec<T>,
    /// Elements that were not objects (skipped).
    pub odd_items: usize,
    /// The field held something other than a list (`None` if a list, missing or null).
    pub odd: Option<Odd>,
}

impl<T> Default for LList<T> {
    fn default() -> Self {
        LList {
            items: Vec::new(),
            odd_items: 0,
            odd: None,
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for LList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: DeserializeOwned> Visitor<'de> for V<T> {
            type Value = LList<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<LList<T>, A::Error> {
                let mut out = LList::default();
                while let Some(item) = s.next_element::<LObj<T>>()? {
                    match item {
                        LObj::Val(v) => out.items.push(v),
                        _ => out.odd_items += 1,
                    }
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LList<T>, A::Error> {
                drain_map(m)?;
                Ok(LList {
                    odd: Some(Odd::Object),
                    ..LList::default()
                })
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LList<T>, E> {
                Ok(LList {
                    odd: Some(Odd::String),
                    ..LList::default()
                })
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LList<T>, E> {
                Ok(LList {
                    odd: Some(Odd::Number),
                    ..LList::default()
                })
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LList<T>, E> {
                Ok(LList {
                    odd: Some(Odd::Number),
                    ..LList::default()
                })
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LList<T>, E> {
                Ok(LList {
                    odd: Some(Odd::Number),
                    ..LList::default()
                })
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LList<T>, E> {
                Ok(LList {
                    odd: Some(Odd::Bool),
                    ..LList::default()
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<LList<T>, E> {
                Ok(LList::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<LList<T>, E> {
                Ok(LList::default())
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A string kept as is (a body head, already bounded by the reader); anything else is `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LText(pub Option<String>);

impl<'de> Deserialize<'de> for LText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match LStr::deserialize(d)? {
            LStr::Str(s) => LText(Some(s)),
            _ => LText(None),
        })
    }
}

/// How many bytes of a body we hold while reading (before redaction and the final cut).
pub const BODY_HOLD: usize = 32 * 1024;

/// A body read without holding all of it: the first [`BODY_HOLD`] bytes, the total length, and
/// a SHA-256 of the whole text (so writes with equal bodies can be matched later without
/// keeping them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LBody {
    pub head: Option<String>,
    pub len: usize,
    pub digest: Option<[u8; 32]>,
}

impl<'de> Deserialize<'de> for LBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBody;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LBody, E> {
                let mut cut = v.len().min(BODY_HOLD);
                while !v.is_char_boundary(cut) {
                    cut -= 1;
                }
                Ok(LBody {
                    head: Some(v[..cut].to_string()),
                    len: v.len(),
                    digest: Some(Sha256::digest(v.as_bytes()).into()),
                })
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LBody, E> {
                Ok(LBody::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<LBody, A::Error> {
                drain_map(m)?;
                Ok(LBody::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<LBody, A::Error> {
                drain_seq(s)?;
                Ok(LBody::default())
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Default)]
    struct T {
        #[serde(default)]
        a: LNum,
        #[serde(default)]
        b: LStr,
        #[serde(default)]
        c: LList<H>,
        #[serde(default)]
        d: LObj<H>,
    }
    #[derive(Deserialize, Default, Debug, PartialEq)]
    struct H {
        #[serde(default)]
        name: LStr,
    }

    #[test]
    fn never_fails_on_types() {
        for json in [
            r#"{"a":"429","b":5,"c":{"x":1},"d":[1,2]}"#,
            r#"{"a":null,"b":null,"c":null,"d":null}"#,
            r#"{"a":true,"b":{"deep":[1]},"c":[1,{"name":"x"},null],"d":"str"}"#,
            r#"{}"#,
        ] {
            let t: T = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            let _ = (t.a, t.b, t.c, t.d);
        }
        let t: T = serde_json::from_str(r#"{"a":"429","c":[1,{"name":"x"}]}"#).unwrap();
        assert_eq!(t.a, LNum::FromStr(429.0));
        assert_eq!(t.c.items.len(), 1);
        assert_eq!(t.c.odd_items, 1);
    }

    #[test]
    fn body_keeps_head_and_digest() {
        let big = "é".repeat(BODY_HOLD);
        let b: LBody = serde_json::from_str(&serde_json::to_string(&big).unwrap()).unwrap();
        assert!(b.head.unwrap().len() <= BODY_HOLD);
        assert_eq!(b.len, big.len());
        assert!(b.digest.is_some());
    }
}

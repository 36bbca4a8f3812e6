//! A JSON object read from borrowed text in one pass, for JSON lines.
//!
//! A log line is parsed once by serde_json into a small borrowed tree ([`Node`]): strings
//! without escapes are borrowed, not copied, and nested objects (`request_headers`, a dotted
//! `--map` path) are split in the same pass, so no value is scanned twice. Top-level fields the
//! reader can never ask for ([`Wanted`]) are validated and skipped, not built. Semantics follow
//! `serde_json::Value` with `preserve_order`: a duplicated key reads as its last value; numbers
//! are `serde_json::Number`s, so they read exactly as a `Value` would have read them.
//!
//! A line the tree cannot hold (a string or number serde_json validates but cannot decode, e.g.
//! a lone surrogate or `1e400`; nesting past serde_json's depth limit) is read the earlier way
//! instead: its top-level `(key, &RawValue)` pairs, each value decoded only when asked for
//! ([`Node::Raw`]). Both readings give every field the same value, and an invalid line the same
//! error message (a test holds the two to each other).

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Number;
use std::borrow::Cow;
use std::fmt;

/// The visitor methods of everything that is not an object: both readings of a document
/// ([`Doc`]) only look inside objects, so arrays are skipped and scalars read as `Other`.
macro_rules! not_an_object {
    ($de:lifetime) => {
        fn visit_seq<A: SeqAccess<$de>>(self, mut s: A) -> Result<Doc<$de>, A::Error> {
            while s.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Doc::Other)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Doc<$de>, E> {
            Ok(Doc::Other)
        }
    };
}

/// One JSON value of a line.
#[derive(Debug, Clone)]
pub enum Node<'a> {
    Null,
    Bool(bool),
    Num(Number),
    Str(Cow<'a, str>),
    Arr(Vec<Node<'a>>),
    Obj(Obj<'a>),
    /// Raw text, decoded on demand (lines read the fallback way).
    Raw(&'a RawValue),
}

/// The fields of one JSON object, in document order (a repeated key is kept each time).
#[derive(Debug, Clone, Default)]
pub struct Obj<'a> {
    fields: Vec<(Cow<'a, str>, Node<'a>)>,
    /// [`key_bit`] of every key: [`Obj::get`] answers "absent" without a scan for most keys it
    /// is asked for (the JSON-lines reader tries up to nine aliases per field, most absent).
    keys: u64,
    /// The [`Template`] this object's keys matched, one for one and in order (0: none). Two
    /// objects with the same id have the same keys in the same places, so a reader may
    /// remember per id where it found a field (see `jsonl::find`).
    shape: u32,
}

/// One of 64 bits for a key, from its length and its first and last bytes: two different keys
/// may share a bit (then `get` scans as before), but a key's bit never changes, so a clear bit
/// proves the key absent.
pub fn key_bit(key: &str) -> u64 {
    let b = key.as_bytes();
    let (first, last) = match b {
        [] => return 1,
        [f, .., l] => (*f, *l),
        [f] => (*f, *f),
    };
    let h = (first as u32).wrapping_mul(0x9E37)
        ^ (last as u32).wrapping_mul(0x85EB)
        ^ (b.len() as u32).wrapping_mul(0xC2B3);
    1 << (h.wrapping_mul(0x2545_F491) >> 26)
}

/// A whole JSON document: an object, or anything else (validated, skipped).
pub enum Doc<'a> {
    Object(Obj<'a>),
    Other,
}

/// The top-level field names a reader may look up (the first part of a dotted path, and the
/// whole path, which may be written flat). `None` keeps every field.
///
/// The names are filed by their [`key_bit`], so a lookup is that bit and a comparison or two
/// with the few names that share it (a key is looked up for every top-level field of a line).
#[derive(Debug, Clone, Default)]
pub struct Wanted(Option<Box<[Vec<Box<str>>; 64]>>);

impl Wanted {
    /// Every field is kept.
    pub fn all() -> Wanted {
        Wanted(None)
    }

    /// The fields these paths can reach.
    pub fn of<'p>(paths: impl IntoIterator<Item = &'p str>) -> Wanted {
        let mut table: Box<[Vec<Box<str>>; 64]> = Box::new(std::array::from_fn(|_| Vec::new()));
        let mut add = |name: &str| {
            let slot = &mut table[key_bit(name).trailing_zeros() as usize];
            if !slot.iter().any(|n| &**n == name) {
                slot.push(name.into());
            }
        };
        for p in paths {
            add(p);
            if let Some((first, _)) = p.split_once('.') {
                add(first);
            }
        }
        Wanted(Some(table))
    }

    /// `key`'s [`key_bit`] when the reader may look `key` up, else `None`.
    fn wanted_bit(&self, key: &str) -> Option<u64> {
        let bit = key_bit(key);
        match &self.0 {
            None => Some(bit),
            Some(table) => table[bit.trailing_zeros() as usize]
                .iter()
                .any(|n| n.len() == key.len() && **n == *key)
                .then_some(bit),
        }
    }

    /// Whether the reader may look `key` up.
    #[cfg(test)]
    fn wants(&self, key: &str) -> bool {
        self.wanted_bit(key).is_some()
    }
}

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

/// Fields of an object [`Obj::for_each_entry`] deduplicates by comparing keys pairwise.
const SMALL_OBJECT: usize = 32;

/// Expected capacity of an object's field list (a log line's top level, a header map).
const FIELDS_HINT: usize = 12;

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Node<'de>, E> {
                Ok(Node::Bool(b))
            }
            // Numbers as `serde_json::Number`'s own Deserialize builds them.
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Node<'de>, E> {
                Ok(Node::Num(n.into()))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Node<'de>, E> {
                Ok(Node::Num(n.into()))
            }
            fn visit_f64<E: de::Error>(self, n: f64) -> Result<Node<'de>, E> {
                Number::from_f64(n)
                    .map(Node::Num)
                    .ok_or_else(|| de::Error::custom("not a JSON number"))
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Node<'de>, E> {
                Ok(Node::Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Node<'de>, E> {
                Ok(Node::Str(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Node<'de>, E> {
                Ok(Node::Str(Cow::Owned(s)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node<'de>, E> {
                Ok(Node::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Node<'de>, A::Error> {
                let mut items = Vec::new();
                while let Some(x) = s.next_element::<Node<'de>>()? {
                    items.push(x);
                }
                Ok(Node::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Node<'de>, A::Error> {
                fields(m, &Wanted::all()).map(Node::Obj)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object's fields; those `wanted` refuses are validated and skipped.
fn fields<'de, A: MapAccess<'de>>(mut m: A, wanted: &Wanted) -> Result<Obj<'de>, A::Error> {
    let mut fields = Vec::with_capacity(FIELDS_HINT);
    let mut keys = 0;
    while let Some(k) = m.next_key::<Text<'de>>()? {
        if let Some(bit) = wanted.wanted_bit(&k.0) {
            keys |= bit;
            fields.push((k.0, m.next_value::<Node<'de>>()?));
        } else {
            m.next_value::<IgnoredAny>()?;
        }
    }
    Ok(Obj {
        fields,
        keys,
        shape: 0,
    })
}

/// A whole line: its top-level fields as `wanted` says.
struct Line<'w>(&'w Wanted);

impl<'de> DeserializeSeed<'de> for Line<'_> {
    type Value = Doc<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Doc<'de>, D::Error> {
        struct V<'w>(&'w Wanted);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = Doc<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<Doc<'de>, A::Error> {
                fields(m, self.0).map(Doc::Object)
            }
            not_an_object!('de);
        }
        d.deserialize_any(V(self.0))
    }
}

/// Parse one document (a whole line) into a tree of the fields `wanted` names; a line the tree
/// cannot hold is read the raw way (see the module doc), whose error, if any, is returned.
pub fn parse<'a>(text: &'a str, wanted: &Wanted) -> Result<Doc<'a>, serde_json::Error> {
    if let Some(doc) = scan::object(text, wanted, None, None) {
        return Ok(doc);
    }
    parse_serde(text, wanted)
}

/// The keys of one object level as an earlier line wrote them, so the scanner can check a key
/// with one comparison of its bytes instead of reading it and looking it up in [`Wanted`].
///
/// A log's lines nearly always repeat one layout. Each key is kept as the exact bytes from its
/// opening quote to the colon (escape-free keys only), with the bit [`Wanted`] gave it and
/// the template of its value when that value was an object (a header map). An object whose
/// keys all match, one for one, carries the template's id ([`Obj::shape`]): ids are unique in
/// the process, so a reader may remember per id where it found things.
#[derive(Debug)]
pub struct Template {
    id: u32,
    slots: Vec<Slot>,
}

#[derive(Debug)]
struct Slot {
    /// `"key":` as the line had it (any whitespace before the colon included).
    lit: Box<[u8]>,
    key_len: usize,
    /// `Some(key_bit)` when the key is kept (always, below the top level).
    bit: Option<u64>,
    nested: Option<Box<Template>>,
}

/// Lines a [`Template`] may miss in a row before a line is scanned again to learn a new one.
const RELEARN_AFTER: u32 = 4;

/// What a reader keeps between the lines of one text for [`parse_with`]: the template, how
/// often it missed, and the emptied field lists of earlier lines ([`Layout::recycle`]), which
/// borrow from the same text as the lines (`'a`), so they are reused as they are.
#[derive(Debug, Default)]
pub struct Layout<'a> {
    template: Option<Template>,
    /// Lines in a row the template missed (or, with none, since the last try to learn one).
    misses: u32,
    /// A template was tried for at least once (a line with an escaped key teaches none: the
    /// next try waits for [`RELEARN_AFTER`] lines, not one).
    tried: bool,
    spare: Vec<Fields<'a>>,
}

/// An object's field list.
type Fields<'a> = Vec<(Cow<'a, str>, Node<'a>)>;

/// Field lists a [`Layout`] keeps for the next lines (a line's top level and its header maps),
/// and the most fields a kept list may have room for.
const SPARE_LISTS: usize = 8;
const SPARE_ROOM: usize = 64;

impl<'a> Layout<'a> {
    /// Keep the field lists of a line that has been read, for the next lines: three lists a
    /// line (its top level and two header maps) were three allocations and frees a line.
    pub fn recycle(&mut self, doc: Doc<'a>) {
        let Doc::Object(o) = doc else { return };
        let mut top = o.fields;
        // The nested lists taken in place, not each field moved out by `drain` (a move of
        // every field to the stack, to be dropped there).
        for (_, v) in top.iter_mut() {
            if let Node::Obj(inner) = v {
                let fields = std::mem::take(&mut inner.fields);
                self.keep(fields);
            }
        }
        self.keep(top);
    }

    fn keep(&mut self, mut fields: Fields<'a>) {
        if self.spare.len() < SPARE_LISTS && (1..=SPARE_ROOM).contains(&fields.capacity()) {
            fields.clear();
            self.spare.push(fields);
        }
    }
}

/// [`parse`], with the keys checked against the layout of earlier lines: the same tree, with
/// [`Obj::shape`] set on the objects that matched. A line whose top level did not match
/// teaches a new template once the old one has missed [`RELEARN_AFTER`] lines in a row.
pub fn parse_with<'a>(
    text: &'a str,
    wanted: &Wanted,
    layout: &mut Layout<'a>,
) -> Result<Doc<'a>, serde_json::Error> {
    let Some(doc) = scan::object(
        text,
        wanted,
        layout.template.as_ref(),
        Some(&mut layout.spare),
    ) else {
        return parse_serde(text, wanted);
    };
    let matched = matches!(&doc, Doc::Object(o) if o.shape != 0);
    if matched {
        layout.misses = 0;
    } else {
        layout.misses += 1;
        if !layout.tried || layout.misses >= RELEARN_AFTER {
            layout.template = scan::learn(text, wanted);
            layout.tried = true;
            layout.misses = 0;
        }
    }
    Ok(doc)
}

/// [`parse`] through serde_json alone (what [`scan::object`] is held to).
fn parse_serde<'a>(text: &'a str, wanted: &Wanted) -> Result<Doc<'a>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let tree = Line(wanted)
        .deserialize(&mut de)
        .and_then(|doc| de.end().map(|()| doc));
    match tree {
        Ok(doc) => Ok(doc),
        Err(_) => parse_raw(text),
    }
}

/// Parse one document the raw way: top-level `(key, &RawValue)` pairs, decoded on demand.
pub fn parse_raw(text: &str) -> Result<Doc<'_>, serde_json::Error> {
    Ok(match serde_json::from_str::<raw::Doc>(text)? {
        raw::Doc::Object(fields) => Doc::Object(Obj::of_raw(fields)),
        raw::Doc::Other => Doc::Other,
    })
}

impl<'a> Obj<'a> {
    fn of_raw(fields: Vec<(Cow<'a, str>, &'a RawValue)>) -> Obj<'a> {
        let keys = fields.iter().fold(0, |m, (k, _)| m | key_bit(k));
        Obj {
            fields: fields.into_iter().map(|(k, v)| (k, Node::Raw(v))).collect(),
            keys,
            shape: 0,
        }
    }

    /// A node's fields when it is an object (split now when it is raw text).
    pub fn of<'n>(node: &'n Node<'a>) -> Option<Cow<'n, Obj<'a>>> {
        match node {
            Node::Obj(o) => Some(Cow::Borrowed(o)),
            Node::Raw(r) => raw::obj(r).map(|f| Cow::Owned(Obj::of_raw(f))),
            _ => None,
        }
    }

    /// [`key_bit`] of every key: a key whose bit is clear is not in the object.
    pub fn key_bits(&self) -> u64 {
        self.keys
    }

    /// The [`Template`] id this object matched (0: none; see [`parse_with`]).
    pub fn shape(&self) -> u32 {
        self.shape
    }

    /// The fields in document order, repeats included (what [`Obj::get`] searches).
    pub fn fields(&self) -> &[(Cow<'a, str>, Node<'a>)] {
        &self.fields
    }

    /// The value of `key` (the last one when the key repeats, as `Value` reads it).
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        if self.keys & key_bit(key) == 0 {
            return None;
        }
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k.as_ref() == key)
            .map(|(_, v)| v)
    }

    /// The fields in document order, a repeated key once at its first place with its last
    /// value (`serde_json::Map` with `preserve_order`).
    pub fn entries(&self) -> Vec<(&str, &Node<'a>)> {
        let mut out: Vec<(&str, &Node<'a>)> = Vec::with_capacity(self.fields.len());
        for (k, v) in &self.fields {
            match out.iter_mut().find(|(o, _)| *o == k.as_ref()) {
                Some(slot) => slot.1 = v,
                None => out.push((k.as_ref(), v)),
            }
            // Quadratic only in the number of fields of one object, and a line is bounded
            // (jsonl::MAX_LINE); past a few hundred keys fall back to a map.
            if out.len() > 256 {
                return self.entries_mapped();
            }
        }
        out
    }

    /// [`Obj::entries`] one by one, without collecting them (an object of a few fields, such as
    /// a header map, is deduplicated in place); keys keep the input's lifetime.
    pub fn for_each_entry(&self, mut f: impl FnMut(&Cow<'a, str>, &Node<'a>)) {
        if self.fields.len() > SMALL_OBJECT {
            // Each key's last place; taken out at its first place, so a repeat finds none.
            let mut last: std::collections::HashMap<&str, usize> = self
                .fields
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.as_ref(), i))
                .collect();
            for (k, _) in &self.fields {
                if let Some(j) = last.remove(k.as_ref()) {
                    f(k, &self.fields[j].1);
                }
            }
            return;
        }
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if self.fields[..i].iter().any(|(o, _)| o == k) {
                continue; // a repeated key, already given at its first place
            }
            let last = self.fields[i + 1..]
                .iter()
                .rev()
                .find(|(o, _)| o == k)
                .map_or(v, |(_, v)| v);
            f(k, last);
        }
    }

    fn entries_mapped(&self) -> Vec<(&str, &Node<'a>)> {
        let mut at: std::collections::HashMap<&str, usize> = Default::default();
        let mut out: Vec<(&str, &Node<'a>)> = Vec::with_capacity(self.fields.len());
        for (k, v) in &self.fields {
            match at.get(k.as_ref()) {
                Some(&i) => out[i].1 = v,
                None => {
                    at.insert(k.as_ref(), out.len());
                    out.push((k.as_ref(), v));
                }
            }
        }
        out
    }
}

/// One decoded value (an object's or array's contents through [`Obj::of`] and [`items`]).
pub enum Val<'a> {
    Str(Cow<'a, str>),
    Num(Number),
    Bool(bool),
    Null,
    Object,
    Array,
}

/// Decode a node's kind (borrowed strings stay borrowed).
pub fn val<'a>(node: &Node<'a>) -> Val<'a> {
    match node {
        Node::Null => Val::Null,
        Node::Bool(b) => Val::Bool(*b),
        Node::Num(n) => Val::Num(n.clone()),
        Node::Str(s) => Val::Str(s.clone()),
        Node::Arr(_) => Val::Array,
        Node::Obj(_) => Val::Object,
        Node::Raw(r) => raw::val(r),
    }
}

/// `true` for a JSON `null`.
pub fn is_null(node: &Node<'_>) -> bool {
    match node {
        Node::Null => true,
        Node::Raw(r) => r.get().trim() == "null",
        _ => false,
    }
}

/// The items of an array (empty for anything else).
pub fn items<'n, 'a>(node: &'n Node<'a>) -> Cow<'n, [Node<'a>]> {
    match node {
        Node::Arr(a) => Cow::Borrowed(&a[..]),
        Node::Raw(r) => Cow::Owned(raw::items(r).into_iter().map(Node::Raw).collect()),
        _ => Cow::Borrowed(&[]),
    }
}

/// The value written back compactly, as `Value::to_string` would (for odd-typed fields whose
/// text is kept, e.g. an object given as a response body).
pub fn compact(node: &Node<'_>) -> String {
    to_value(node).map(|v| v.to_string()).unwrap_or_default()
}

/// The node as a `Value` (`None` when raw text in it does not parse as one).
fn to_value(node: &Node<'_>) -> Option<serde_json::Value> {
    use serde_json::Value;
    Some(match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Num(n) => Value::Number(n.clone()),
        Node::Str(s) => Value::String(s.clone().into_owned()),
        Node::Arr(a) => Value::Array(a.iter().map(to_value).collect::<Option<_>>()?),
        Node::Obj(o) => {
            let mut m = serde_json::Map::new();
            for (k, v) in &o.fields {
                m.insert(k.clone().into_owned(), to_value(v)?);
            }
            Value::Object(m)
        }
        Node::Raw(r) => serde_json::from_str(r.get()).ok()?,
    })
}

/// The common line read by hand: one pass over the bytes that builds the same tree as
/// [`parse_serde`] (keys and strings borrowed unless they hold an escape, numbers as
/// `serde_json::Number`, unwanted top-level fields validated and skipped), without serde's
/// visitor machinery. It is stricter than serde_json, never looser: whatever it is unsure of (a
/// top level that is not an object, an escape that is not plainly valid, a number it does not
/// read as an integer, deep nesting, any syntax error) answers `None`, and the line is read by
/// serde_json as before, which gives the located error. A property test holds it to serde_json.
mod scan {
    use super::{key_bit, Doc, Fields, Node, Obj, Slot, Template, Wanted, FIELDS_HINT};
    use serde_json::Number;
    use std::borrow::Cow;

    /// Nesting the scanner reads (serde_json's own limit is 128): deeper lines go to serde_json.
    const MAX_DEPTH: usize = 64;

    /// Eight copies of a byte.
    const fn splat(b: u8) -> u64 {
        u64::from_le_bytes([b; 8])
    }

    /// The top-level object of `text` (already trimmed by the caller, but any JSON whitespace is
    /// accepted), or `None` when serde_json must decide.
    pub(super) fn object<'a>(
        text: &'a str,
        wanted: &Wanted,
        template: Option<&Template>,
        spare: Option<&mut Vec<Fields<'a>>>,
    ) -> Option<Doc<'a>> {
        let mut s = Scan {
            text,
            b: text.as_bytes(),
            at: 0,
            spare,
        };
        s.ws();
        if s.peek()? != b'{' {
            return None;
        }
        let o = s.object(wanted, 1, template)?;
        s.ws();
        (s.at == s.b.len()).then_some(Doc::Object(o))
    }

    /// The [`Template`] of the line `text` (its top level and the objects directly in it),
    /// or `None` when the scanner would not read the line or a key holds an escape.
    pub(super) fn learn(text: &str, wanted: &Wanted) -> Option<Template> {
        let mut s = Scan {
            text,
            b: text.as_bytes(),
            at: 0,
            spare: None,
        };
        s.ws();
        if s.peek()? != b'{' {
            return None;
        }
        let t = s.learn_object(Some(wanted), 1)?;
        s.ws();
        (s.at == s.b.len()).then_some(t)
    }

    /// `fields.push((key, value))`, written into the slot in place. `push` kept the pair alive
    /// across its (never taken) grow call, so the pair was built on the stack with 8-byte
    /// stores and copied with 16-byte loads: a store-forwarding stall that took a third of
    /// [`Scan::object`]'s time in perf annotate. Room is made first, so the write needs no check.
    /// The value is made by `value` after the room: made before, it lived across the grow
    /// call and went through the stack all the same.
    #[inline(always)]
    fn push_field<'a>(
        fields: &mut Fields<'a>,
        key: Cow<'a, str>,
        value: impl FnOnce() -> Node<'a>,
    ) {
        fields.reserve(1);
        let value = value();
        let len = fields.len();
        // SAFETY: `reserve(1)` leaves room for one more element at index `len`; both halves
        // of the pair are written before the length covers them, and nothing can panic in
        // between (plain writes), so the vector never holds an uninitialised element.
        unsafe {
            let slot = fields.as_mut_ptr().add(len);
            std::ptr::addr_of_mut!((*slot).0).write(key);
            std::ptr::addr_of_mut!((*slot).1).write(value);
            fields.set_len(len + 1);
        }
    }

    /// `b.starts_with(lit)` eight bytes at a time: a key is a few dozen bytes, and the call
    /// into the C library's memcmp cost more than the comparison.
    #[inline(always)]
    fn starts_with(b: &[u8], lit: &[u8]) -> bool {
        let Some(b) = b.get(..lit.len()) else {
            return false;
        };
        let n = lit.len();
        if n < 8 {
            return b.iter().zip(lit).all(|(x, y)| x == y);
        }
        let word =
            |x: &[u8], at: usize| u64::from_le_bytes(x[at..at + 8].try_into().unwrap_or_default());
        let mut at = 0;
        while at + 8 < n {
            if word(b, at) != word(lit, at) {
                return false;
            }
            at += 8;
        }
        // The last eight bytes (overlapping the ones before when `n` is no multiple of 8).
        word(b, n - 8) == word(lit, n - 8)
    }

    /// A fresh template id (never 0, never repeated in the process).
    fn next_id() -> u32 {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed).max(1)
    }

    struct Scan<'a, 's> {
        text: &'a str,
        b: &'a [u8],
        at: usize,
        /// Emptied field lists to build objects in (see [`super::Layout::recycle`]).
        spare: Option<&'s mut Vec<Fields<'a>>>,
    }

    impl<'a> Scan<'a, '_> {
        fn peek(&self) -> Option<u8> {
            self.b.get(self.at).copied()
        }

        /// Skip JSON whitespace (space, tab, line feed, carriage return).
        fn ws(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
                self.at += 1;
            }
        }

        /// Consume `c` (after whitespace) or fail.
        fn expect(&mut self, c: u8) -> Option<()> {
            self.ws();
            (self.peek()? == c).then(|| self.at += 1)
        }

        /// An object at `{`; only the fields `wanted` names are built, the rest are skipped.
        /// Keys are first checked against `template` (see [`Template`]); the first that does
        /// not match is read as usual, and so is every key after it.
        fn object(
            &mut self,
            wanted: &Wanted,
            depth: usize,
            template: Option<&Template>,
        ) -> Option<Obj<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.at += 1; // '{'
            let mut fields = self
                .spare
                .as_mut()
                .and_then(|s| s.pop())
                .unwrap_or_else(|| Vec::with_capacity(FIELDS_HINT));
            let mut keys = 0;
            // Template slots still in step with this object's keys.
            let mut slots = template.map(|t| t.slots.iter());
            self.ws();
            if self.peek()? == b'}' {
                self.at += 1;
                let shape = template.filter(|t| t.slots.is_empty()).map_or(0, |t| t.id);
                return Some(Obj {
                    fields,
                    keys,
                    shape,
                });
            }
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return None;
                }
                let rest = &self.b[self.at..];
                let slot = slots
                    .as_mut()
                    .and_then(|it| it.next())
                    .filter(|slot| starts_with(rest, &slot.lit));
                let (k, bit, nested) = match slot {
                    Some(slot) => {
                        // The same bytes as the learned key: the same escape-free string.
                        let k = self.text.get(self.at + 1..self.at + 1 + slot.key_len)?;
                        self.at += slot.lit.len();
                        (Cow::Borrowed(k), slot.bit, slot.nested.as_deref())
                    }
                    None => {
                        slots = None;
                        let k = self.string()?;
                        self.expect(b':')?;
                        let bit = wanted.wanted_bit(&k);
                        (k, bit, None)
                    }
                };
                self.ws();
                if let Some(bit) = bit {
                    keys |= bit;
                    // A string is built in the vector's slot, not moved there (see `value`).
                    match self.peek()? {
                        b'"' => {
                            // The borrowed text goes straight into the slot: a `Cow` built
                            // and moved on the stack was read back before its stores landed.
                            match self.plain_str() {
                                Ok(text) => {
                                    push_field(&mut fields, k, || Node::Str(Cow::Borrowed(text)))
                                }
                                Err(start) => {
                                    let v = self.escaped_string(start)?;
                                    push_field(&mut fields, k, || Node::Str(v));
                                }
                            }
                        }
                        b'{' if nested.is_some() => {
                            let o = self.object(&Wanted::all(), depth + 1, nested)?;
                            push_field(&mut fields, k, || Node::Obj(o));
                        }
                        _ => {
                            let v = self.other_value(depth)?;
                            push_field(&mut fields, k, || v);
                        }
                    }
                } else {
                    self.skip(depth)?;
                }
                self.ws();
                match self.peek()? {
                    b',' => self.at += 1,
                    b'}' => {
                        self.at += 1;
                        // Every slot used, in order, and no key left over.
                        let shape = match (template, slots) {
                            (Some(t), Some(rest)) if rest.as_slice().is_empty() => t.id,
                            _ => 0,
                        };
                        return Some(Obj {
                            fields,
                            keys,
                            shape,
                        });
                    }
                    _ => return None,
                }
            }
        }

        /// [`Scan::object`] of an object at `{`, learning its keys (and, at the top level,
        /// those of the objects in it) instead of building it; `wanted` at the top level,
        /// `None` below (every key kept).
        fn learn_object(&mut self, wanted: Option<&Wanted>, depth: usize) -> Option<Template> {
            self.at += 1; // '{'
            let mut slots = Vec::new();
            self.ws();
            if self.peek()? == b'}' {
                self.at += 1;
                return Some(Template {
                    id: next_id(),
                    slots,
                });
            }
            loop {
                self.ws();
                if self.peek()? != b'"' {
                    return None;
                }
                let start = self.at;
                let Cow::Borrowed(k) = self.string()? else {
                    return None; // an escaped key: no template
                };
                self.expect(b':')?;
                let lit: Box<[u8]> = self.b.get(start..self.at)?.into();
                let bit = match wanted {
                    Some(w) => w.wanted_bit(k),
                    None => Some(key_bit(k)),
                };
                let key_len = k.len();
                self.ws();
                let nested = if depth == 1 && bit.is_some() && self.peek()? == b'{' {
                    Some(Box::new(self.learn_object(None, depth + 1)?))
                } else {
                    self.skip(depth)?;
                    None
                };
                slots.push(Slot {
                    lit,
                    key_len,
                    bit,
                    nested,
                });
                self.ws();
                match self.peek()? {
                    b',' => self.at += 1,
                    b'}' => {
                        self.at += 1;
                        return Some(Template {
                            id: next_id(),
                            slots,
                        });
                    }
                    _ => return None,
                }
            }
        }

        /// One value (at its first byte), built. Inlined for the common string value: a
        /// `Node` returned through memory from a call was read back before its stores had
        /// landed (a store-forwarding stall on half of `object`'s samples in perf annotate).
        #[inline(always)]
        fn value(&mut self, depth: usize) -> Option<Node<'a>> {
            if self.peek()? == b'"' {
                return self.string().map(Node::Str);
            }
            self.other_value(depth)
        }

        /// [`Scan::value`] of anything but a string.
        #[inline(never)]
        fn other_value(&mut self, depth: usize) -> Option<Node<'a>> {
            Some(match self.peek()? {
                b'"' => Node::Str(self.string()?),
                b'{' => Node::Obj(self.object(&Wanted::all(), depth + 1, None)?),
                b'[' => {
                    if depth + 1 > MAX_DEPTH {
                        return None;
                    }
                    self.at += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.peek()? == b']' {
                        self.at += 1;
                        return Some(Node::Arr(items));
                    }
                    loop {
                        self.ws();
                        items.push(self.value(depth + 1)?);
                        self.ws();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                return Some(Node::Arr(items));
                            }
                            _ => return None,
                        }
                    }
                }
                b't' => self.word(b"true", Node::Bool(true))?,
                b'f' => self.word(b"false", Node::Bool(false))?,
                b'n' => self.word(b"null", Node::Null)?,
                _ => Node::Num(self.number()?),
            })
        }

        /// One value (at its first byte), validated and not built.
        fn skip(&mut self, depth: usize) -> Option<()> {
            match self.peek()? {
                b'"' => self.skip_string(),
                open @ (b'{' | b'[') => {
                    if depth + 1 > MAX_DEPTH {
                        return None;
                    }
                    let close = if open == b'{' { b'}' } else { b']' };
                    self.at += 1;
                    self.ws();
                    if self.peek()? == close {
                        self.at += 1;
                        return Some(());
                    }
                    loop {
                        self.ws();
                        if open == b'{' {
                            if self.peek()? != b'"' {
                                return None;
                            }
                            self.skip_string()?;
                            self.expect(b':')?;
                            self.ws();
                        }
                        self.skip(depth + 1)?;
                        self.ws();
                        match self.peek()? {
                            b',' => self.at += 1,
                            c if c == close => {
                                self.at += 1;
                                return Some(());
                            }
                            _ => return None,
                        }
                    }
                }
                b't' => self.word(b"true", ()),
                b'f' => self.word(b"false", ()),
                b'n' => self.word(b"null", ()),
                _ => self.number_span().map(drop),
            }
        }

        fn word<T>(&mut self, w: &[u8], v: T) -> Option<T> {
            let end = self.at + w.len();
            (self.b.get(self.at..end)? == w).then(|| {
                self.at = end;
                v
            })
        }

        /// Bytes up to the next `"`, `\` or control byte from `at` (SWAR, eight at a time).
        fn plain_run(&mut self) {
            while let Some(chunk) = self.b.get(self.at..self.at + 8) {
                let v = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
                let zero = |x: u64| x.wrapping_sub(splat(1)) & !x & splat(0x80);
                // A byte's high bit says "stop here"; a borrow can only set bits above the
                // first true stop, so the lowest set bit is exact.
                let hit = zero(v ^ splat(b'"'))
                    | zero(v ^ splat(b'\\'))
                    | (v.wrapping_sub(splat(0x20)) & !v & splat(0x80));
                if hit != 0 {
                    self.at += (hit.trailing_zeros() / 8) as usize;
                    return;
                }
                self.at += 8;
            }
            while let Some(&c) = self.b.get(self.at) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    return;
                }
                self.at += 1;
            }
        }

        /// A string at `"`: borrowed when it has no escape, decoded by serde_json when it has.
        /// Inlined, as [`Scan::value`] is; the escaped case is out of line.
        #[inline(always)]
        fn string(&mut self) -> Option<Cow<'a, str>> {
            let start = self.at;
            self.at += 1;
            self.plain_run();
            if self.peek()? == b'"' {
                self.at += 1;
                // Quotes are ASCII, so both ends are character boundaries.
                return self.text.get(start + 1..self.at - 1).map(Cow::Borrowed);
            }
            self.escaped_string(start)
        }

        /// A string at `"` with no escape, borrowed (the scanner past its closing quote); else
        /// where it starts, for [`Scan::escaped_string`] (also for a string that never ends,
        /// which that refuses).
        #[inline(always)]
        fn plain_str(&mut self) -> Result<&'a str, usize> {
            let start = self.at;
            self.at += 1;
            self.plain_run();
            if self.peek() == Some(b'"') {
                self.at += 1;
                // Quotes are ASCII, so both ends are character boundaries.
                if let Some(text) = self.text.get(start + 1..self.at - 1) {
                    return Ok(text);
                }
            }
            Err(start)
        }

        /// [`Scan::string`] of a string with an escape (or a control byte) in it.
        #[inline(never)]
        fn escaped_string(&mut self, start: usize) -> Option<Cow<'a, str>> {
            self.at = start;
            self.skip_string()?;
            let quoted = self.text.get(start..self.at)?;
            serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
        }

        /// A string at `"`, validated: simple escapes and `\u` of four hex digits that is not a
        /// surrogate (a surrogate pair is left to serde_json).
        fn skip_string(&mut self) -> Option<()> {
            self.at += 1;
            loop {
                self.plain_run();
                match self.peek()? {
                    b'"' => {
                        self.at += 1;
                        return Some(());
                    }
                    b'\\' => {
                        let e = *self.b.get(self.at + 1)?;
                        self.at += 2;
                        match e {
                            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                            b'u' => {
                                let hex = self.text.get(self.at..self.at + 4)?;
                                let u = u16::from_str_radix(hex, 16).ok()?;
                                if !hex.bytes().all(|c| c.is_ascii_hexdigit())
                                    || (0xD800..=0xDFFF).contains(&u)
                                {
                                    return None;
                                }
                                self.at += 4;
                            }
                            _ => return None,
                        }
                    }
                    _ => return None, // a control byte
                }
            }
        }

        /// The text of a number at its first byte, by JSON's grammar, and whether it is a plain
        /// non-negative integer.
        fn number_span(&mut self) -> Option<(&'a str, bool)> {
            let start = self.at;
            let digits = |s: &mut Self| {
                let from = s.at;
                while let Some(b'0'..=b'9') = s.peek() {
                    s.at += 1;
                }
                s.at > from
            };
            let negative = self.peek() == Some(b'-');
            if negative {
                self.at += 1;
            }
            match self.peek()? {
                b'0' => self.at += 1,
                b'1'..=b'9' => {
                    digits(self);
                }
                _ => return None,
            }
            let mut integer = !negative;
            if self.peek() == Some(b'.') {
                self.at += 1;
                integer = false;
                if !digits(self) {
                    return None;
                }
            }
            if let Some(b'e' | b'E') = self.peek() {
                self.at += 1;
                integer = false;
                if let Some(b'+' | b'-') = self.peek() {
                    self.at += 1;
                }
                if !digits(self) {
                    return None;
                }
            }
            Some((self.text.get(start..self.at)?, integer))
        }

        /// A number, as serde_json reads it: a short non-negative integer directly, anything
        /// else through `Number`'s own parser (serde_json's, the same code as in a document).
        fn number(&mut self) -> Option<Number> {
            let (t, integer) = self.number_span()?;
            if integer && t.len() <= 19 {
                return t.parse::<u64>().ok().map(Number::from);
            }
            t.parse::<Number>().ok()
        }
    }
}

/// The raw reading: values kept as `&RawValue`, decoded on demand.
mod raw {
    use super::{Text, Val};
    use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use serde_json::value::RawValue;
    use serde_json::Number;
    use std::borrow::Cow;
    use std::fmt;

    pub type Fields<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

    pub enum Doc<'a> {
        Object(Fields<'a>),
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
                    Ok(Doc::Object(fields))
                }
                not_an_object!('de);
            }
            d.deserialize_any(V)
        }
    }

    /// Split a raw value into fields when it is an object.
    pub fn obj(raw: &RawValue) -> Option<Fields<'_>> {
        if !raw.get().starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Doc<'_>>(raw.get()) {
            Ok(Doc::Object(o)) => Some(o),
            _ => None,
        }
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
            Some(b'{') => Val::Object,
            Some(b'[') => Val::Array,
            Some(b't') => Val::Bool(true),
            Some(b'f') => Val::Bool(false),
            Some(b'n') | None => Val::Null,
            Some(_) => match serde_json::from_str::<Number>(t) {
                Ok(n) => Val::Num(n),
                Err(_) => Val::Null,
            },
        }
    }

    /// The items of a raw array (empty for anything else).
    pub fn items(raw: &RawValue) -> Vec<&RawValue> {
        if !raw.get().trim_start().starts_with('[') {
            return Vec::new();
        }
        serde_json::from_str::<Vec<&RawValue>>(raw.get()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;

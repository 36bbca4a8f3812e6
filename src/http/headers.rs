//! The header map every record holds: fields in their original order, duplicates kept, names
//! compared case-insensitively.

use serde::Serialize;
use std::fmt;

/// HTTP header fields in their original order, duplicates kept; names compared case-insensitively.
///
/// Stored compactly (one text buffer plus a pair of lengths per field) because a large capture
/// holds millions of header fields: a `Vec<(String, String)>` costs two allocations per field,
/// and 32-bit offsets cost three times what 16-bit lengths do.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Headers {
    text: String,
    /// `(name length, value length)` of each field, in order; fields are laid end to end in
    /// `text`.
    lens: Vec<(u16, u16)>,
}

/// Longest header name or value stored (longer ones are cut at a char boundary): the 16-bit
/// lengths that keep a record small. Real header values are far shorter.
pub const HEADER_PART_MAX: usize = u16::MAX as usize;

fn cut_to(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while cut > 0 && !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

impl Headers {
    pub fn new() -> Self {
        Headers::default()
    }

    /// Empty, with room for `text` bytes of names and values and `fields` fields (a parser
    /// that knows roughly what it will push grows the buffers once, not field by field).
    pub fn with_capacity(text: usize, fields: usize) -> Self {
        Headers {
            text: String::with_capacity(text),
            lens: Vec::with_capacity(fields),
        }
    }

    /// Build from `(name, value)` pairs.
    pub fn from_pairs<N: AsRef<str>, V: AsRef<str>>(
        pairs: impl IntoIterator<Item = (N, V)>,
    ) -> Self {
        let mut h = Headers::new();
        for (n, v) in pairs {
            h.push(n.as_ref(), v.as_ref());
        }
        h
    }

    pub fn push(&mut self, name: impl AsRef<str>, value: impl AsRef<str>) {
        let name = cut_to(name.as_ref(), HEADER_PART_MAX);
        let value = cut_to(value.as_ref(), HEADER_PART_MAX);
        self.text.push_str(name);
        self.text.push_str(value);
        self.lens.push((name.len() as u16, value.len() as u16));
    }

    /// Push with the value cut to at most `max` bytes (at a char boundary, marked with `…`).
    /// Used for responses no analysis reads in full (2xx/3xx): their names and the start of
    /// their values are what baselines need, and browsers send multi-KB policy headers.
    pub fn push_capped(&mut self, name: impl AsRef<str>, value: impl AsRef<str>, max: usize) {
        let v = value.as_ref();
        if v.len() <= max {
            self.push(name, v);
            return;
        }
        let mut cut = max;
        while cut > 0 && !v.is_char_boundary(cut) {
            cut -= 1;
        }
        self.push(name, format!("{}…", &v[..cut]));
    }

    /// The value of field `i` (in push order).
    pub fn value_at(&self, i: usize) -> Option<&str> {
        self.iter().nth(i).map(|(_, v)| v)
    }

    /// The value of the field pushed last.
    pub fn last_value(&self) -> Option<&str> {
        let &(_, v) = self.lens.last()?;
        Some(&self.text[self.text.len() - v as usize..])
    }

    /// The first value of `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut at = 0usize;
        self.lens.iter().map(move |&(n, v)| {
            let (n, v) = (n as usize, v as usize);
            let name = &self.text[at..at + n];
            let value = &self.text[at + n..at + n + v];
            at += n + v;
            (name, value)
        })
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Empty, keeping the room (a reader that fills one map line after line).
    pub fn clear(&mut self) {
        self.text.clear();
        self.lens.clear();
    }

    /// Release spare capacity once a record is complete.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.lens.shrink_to_fit();
    }
}

impl fmt::Debug for Headers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Headers {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for (n, v) in self.iter() {
            seq.serialize_element(&[n, v])?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_parts_are_cut_not_wrapped() {
        let mut h = Headers::new();
        let big = "é".repeat(HEADER_PART_MAX);
        h.push("x", &big);
        h.push("y", "1");
        assert!(h.get("x").unwrap().len() <= HEADER_PART_MAX);
        assert_eq!(h.get("y"), Some("1"));
    }

    #[test]
    fn capped_values_cut_at_char_boundaries() {
        let mut h = Headers::new();
        h.push_capped("a", "ééé", 3);
        h.push_capped("b", "short", 10);
        assert_eq!(h.get("a"), Some("é…"));
        assert_eq!(h.get("b"), Some("short"));
    }

    #[test]
    fn headers_keep_order_and_duplicates() {
        let h = Headers::from_pairs([("Set-Cookie", "a"), ("X", "1"), ("set-cookie", "b")]);
        assert_eq!(h.get("SET-COOKIE"), Some("a"));
        assert_eq!(h.get_all("set-cookie").collect::<Vec<_>>(), vec!["a", "b"]);
        assert_eq!(
            h.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            vec!["Set-Cookie", "X", "set-cookie"]
        );
        assert_eq!(h.len(), 3);
        assert!(!h.contains("y"));
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            r#"[["Set-Cookie","a"],["X","1"],["set-cookie","b"]]"#
        );
    }
}

//! Reading JSON into the raw-preserving [`Node`] tree, one value at a time from a stream.
//!
//! `redact` must write back what it does not change exactly as it was read: numbers as their
//! raw text (no float round trip: serde_json can land one ULP off), strings with their original
//! escapes. It also reads documents far larger than memory, so the HAR copier pulls one entry
//! at a time through [`Parser::value`] and the structural calls around it.
//!
//! Strict RFC 8259: control characters, escapes, UTF-8, the number grammar. Every error names
//! a byte offset and line, never the input text (it could be a secret). Bounded: nesting depth,
//! number length, and string length (a longer string is dropped, counted in `cut_strings`).

use super::tree::{Node, Str};
use std::fmt;
use std::io::{self, Read};

/// Limits on one value.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest string kept (bytes as written); a longer one is read through and replaced by "".
    pub string_cap: usize,
    /// Deepest nesting of arrays and objects.
    pub max_depth: usize,
    /// Longest number, in characters.
    pub number_cap: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            string_cap: 64 << 20,
            max_depth: 512,
            number_cap: 1024,
        }
    }
}

/// Why reading stopped.
#[derive(Debug)]
pub enum ParseError {
    Io(io::Error),
    /// What was expected or wrong, and where (byte offset from the start, 1-based line).
    Syntax {
        problem: &'static str,
        offset: u64,
        line: u64,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Io(e) => write!(f, "cannot read: {e}"),
            ParseError::Syntax {
                problem,
                offset,
                line,
            } => write!(f, "invalid JSON: {problem} at byte {offset} (line {line})"),
        }
    }
}

impl From<io::Error> for ParseError {
    fn from(e: io::Error) -> ParseError {
        ParseError::Io(e)
    }
}

type Result<T> = std::result::Result<T, ParseError>;

/// A pull parser over any reader, with its own buffer.
pub struct Parser<R> {
    src: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Bytes before `buf[0]`.
    base: u64,
    line: u64,
    eof: bool,
    limits: Limits,
    /// Strings dropped for being over `limits.string_cap`.
    pub cut_strings: u64,
    /// Where the first dropped string began (line, byte offset), so the warning is located.
    pub first_cut: Option<(u64, u64)>,
}

const BUF: usize = 256 * 1024;

impl<R: Read> Parser<R> {
    pub fn new(src: R) -> Parser<R> {
        Parser::with_limits(src, Limits::default())
    }

    pub fn with_limits(src: R, limits: Limits) -> Parser<R> {
        Parser {
            src,
            buf: vec![0; BUF].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            line: 1,
            eof: false,
            limits,
            cut_strings: 0,
            first_cut: None,
        }
    }

    /// Byte offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn line(&self) -> u64 {
        self.line
    }

    fn err<T>(&self, problem: &'static str) -> Result<T> {
        Err(ParseError::Syntax {
            problem,
            offset: self.offset(),
            line: self.line,
        })
    }

    /// Make at least one byte available; false at the end of input.
    fn fill(&mut self) -> Result<bool> {
        if self.pos < self.end {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.src.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn next_byte(&mut self) -> Result<Option<u8>> {
        if !self.fill()? {
            return Ok(None);
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(Some(b))
    }

    /// Skip whitespace; the next byte, not consumed (None at the end of input).
    pub fn peek(&mut self) -> Result<Option<u8>> {
        loop {
            if !self.fill()? {
                return Ok(None);
            }
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b' ' | b'\t' | b'\r' => self.pos += 1,
                    b'\n' => {
                        self.line += 1;
                        self.pos += 1
                    }
                    b => return Ok(Some(b)),
                }
            }
        }
    }

    /// Consume the byte [`peek`](Self::peek) returned.
    pub fn bump(&mut self) {
        self.pos += 1;
    }

    /// Skip whitespace and consume `b`, or fail with `problem`.
    pub fn expect(&mut self, b: u8, problem: &'static str) -> Result<()> {
        match self.peek()? {
            Some(x) if x == b => {
                self.bump();
                Ok(())
            }
            _ => self.err(problem),
        }
    }

    /// Skip up to and including the first `b` (a JSONP `callback(` prefix).
    pub fn skip_past(&mut self, b: u8) -> Result<bool> {
        while let Some(x) = self.next_byte()? {
            if x == b'\n' {
                self.line += 1;
            }
            if x == b {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// After an object's member or an array's item: true if another follows (`,` consumed),
    /// false at the closing bracket (consumed).
    pub fn more(&mut self, close: u8) -> Result<bool> {
        match self.peek()? {
            Some(b',') => {
                self.bump();
                Ok(true)
            }
            Some(x) if x == close => {
                self.bump();
                Ok(false)
            }
            _ if close == b'}' => self.err("expected `,` or `}`"),
            _ => self.err("expected `,` or `]`"),
        }
    }

    /// True if the container just opened is empty (its closing bracket is consumed).
    pub fn empty(&mut self, close: u8) -> Result<bool> {
        if self.peek()? == Some(close) {
            self.bump();
            return Ok(true);
        }
        Ok(false)
    }

    /// A member name and its `:`.
    pub fn key(&mut self) -> Result<Str> {
        self.expect(b'"', "expected a member name")?;
        let k = self.string_body()?;
        self.expect(b':', "expected `:`")?;
        Ok(k)
    }

    /// Nothing but whitespace left?
    pub fn at_end(&mut self) -> Result<bool> {
        Ok(self.peek()?.is_none())
    }

    /// One whole value.
    pub fn value(&mut self) -> Result<Node> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: usize) -> Result<Node> {
        if depth >= self.limits.max_depth {
            return self.err("nesting too deep");
        }
        match self.peek()? {
            None => self.err("unexpected end of input, expected a value"),
            Some(b'{') => {
                self.bump();
                let mut m = Vec::new();
                if !self.empty(b'}')? {
                    loop {
                        let k = self.key()?;
                        let v = self.value_at(depth + 1)?;
                        m.push((k, v));
                        if !self.more(b'}')? {
                            break;
                        }
                    }
                }
                Ok(Node::Obj(m))
            }
            Some(b'[') => {
                self.bump();
                let mut items = Vec::new();
                if !self.empty(b']')? {
                    loop {
                        items.push(self.value_at(depth + 1)?);
                        if !self.more(b']')? {
                            break;
                        }
                    }
                }
                Ok(Node::Arr(items))
            }
            Some(b'"') => {
                self.bump();
                Ok(Node::Str(self.string_body()?))
            }
            Some(b't') => self.literal(b"true", Node::Bool(true)),
            Some(b'f') => self.literal(b"false", Node::Bool(false)),
            Some(b'n') => self.literal(b"null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("expected a value"),
        }
    }

    fn literal(&mut self, word: &'static [u8], node: Node) -> Result<Node> {
        for &w in word {
            if self.next_byte()? != Some(w) {
                return self.err("invalid literal");
            }
        }
        Ok(node)
    }

    fn number(&mut self) -> Result<Node> {
        let mut s = String::new();
        while self.fill()? {
            let b = self.buf[self.pos];
            if !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                break;
            }
            if s.len() >= self.limits.number_cap {
                return self.err("number too long");
            }
            s.push(b as char);
            self.pos += 1;
        }
        if !valid_number(s.as_bytes()) {
            return self.err("invalid number");
        }
        Ok(Node::Num(s))
    }

    /// A string's body after its opening quote, through the closing quote.
    fn string_body(&mut self) -> Result<Str> {
        let start = (self.line, self.offset());
        let mut raw: Vec<u8> = Vec::new();
        let mut escaped = false;
        let mut has_escape = false;
        let mut len = 0usize;
        let cap = self.limits.string_cap;
        loop {
            if !self.fill()? {
                return self.err("unterminated string");
            }
            let chunk = &self.buf[self.pos..self.end];
            let mut i = 0;
            let mut done = false;
            while i < chunk.len() {
                let b = chunk[i];
                if escaped {
                    escaped = false;
                } else if b == b'"' {
                    done = true;
                    break;
                } else if b == b'\\' {
                    escaped = true;
                    has_escape = true;
                } else if b < 0x20 {
                    self.pos += i;
                    return self.err("control character in a string");
                }
                i += 1;
            }
            if len + i <= cap {
                raw.extend_from_slice(&chunk[..i]);
            } else if len <= cap {
                raw = Vec::new();
            }
            len += i;
            self.pos += i;
            if done {
                self.pos += 1;
                break;
            }
        }
        if len > cap {
            self.cut_strings += 1;
            self.first_cut.get_or_insert(start);
            return Ok(Str::new(String::new()));
        }
        let value = if has_escape {
            match unescape(&raw) {
                Ok(v) => v,
                Err(problem) => return self.err(problem),
            }
        } else {
            match String::from_utf8(raw) {
                Ok(v) => return Ok(Str::read(v, None)),
                Err(_) => return self.err("invalid UTF-8 in a string"),
            }
        };
        Ok(Str::read(value, Some(&raw)))
    }
}

/// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn valid_number(s: &[u8]) -> bool {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < s.len() && s[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if s.first() == Some(&b'-') {
        i += 1;
    }
    if s.get(i) == Some(&b'0') {
        i += 1;
    } else if !digits(&mut i) {
        return false;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == s.len()
}

fn hex4(s: &[u8]) -> Option<u32> {
    if s.len() < 4 {
        return None;
    }
    std::str::from_utf8(&s[..4])
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
}

/// Decode a string body's escapes; a lone surrogate becomes U+FFFD.
fn unescape(raw: &[u8]) -> std::result::Result<String, &'static str> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&e) = raw.get(i + 1) else {
            return Err("invalid escape");
        };
        i += 2;
        let c = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(&raw[i..]).ok_or("invalid \\u escape")?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = (raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u'))
                        .then(|| hex4(&raw[i + 2..]))
                        .flatten()
                        .filter(|lo| (0xDC00..0xE000).contains(lo));
                    match lo {
                        Some(lo) => {
                            i += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                .unwrap_or('\u{fffd}')
                        }
                        None => '\u{fffd}',
                    }
                } else {
                    char::from_u32(hi).unwrap_or('\u{fffd}')
                }
            }
            _ => return Err("invalid escape"),
        };
        let mut tmp = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
    }
    String::from_utf8(out).map_err(|_| "invalid UTF-8 in a string")
}

/// Parse one whole document from bytes (a JSON-lines line): the value, with nothing after it.
pub fn parse_document(bytes: &[u8]) -> Result<Node> {
    let mut p = Parser::new(bytes);
    let v = p.value()?;
    if !p.at_end()? {
        return p.err("trailing characters after the value");
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact(n: &Node) -> String {
        let mut out = Vec::new();
        n.write_compact(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn round_trips_exactly() {
        for doc in [
            r#"{"a":[1,2.50,-0.0,1e400,1E-7],"b":"\u00e9\/\n\"","c":{},"d":[],"e":null,"f":true,"g":false}"#,
            r#"[{"x":"\ud83d\ude00 \ud800 ok"}]"#,
            r#""plain""#,
            "0.1000000000000000055511151231257827",
        ] {
            let n = parse_document(doc.as_bytes()).unwrap();
            assert_eq!(compact(&n), doc);
        }
        let n = parse_document(br#""\ud83d\ude00\ud800""#).unwrap();
        assert_eq!(n.as_str(), Some("😀\u{fffd}"));
    }

    #[test]
    fn agrees_with_serde_on_values() {
        let doc = r#"{"a":"x\ty\u0041","b":[1,{"c":"\\"}],"d":12.5}"#;
        let n = parse_document(doc.as_bytes()).unwrap();
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert_eq!(n.to_value(), v);
    }

    #[test]
    fn rejects_bad_json_with_a_position_and_no_text() {
        for (doc, problem) in [
            ("{\"a\":1,}", "expected a member name"),
            ("[1 2]", "expected `,` or `]`"),
            ("\"ab\u{1}\"", "control character in a string"),
            ("\"\\x\"", "invalid escape"),
            ("01", "invalid number"),
            ("1.", "invalid number"),
            ("tru", "invalid literal"),
            ("\"SECRET", "unterminated string"),
            ("{\"SECRET\" 1}", "expected `:`"),
            ("[1] x", "trailing characters after the value"),
        ] {
            let e = parse_document(doc.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(problem), "{doc}: {e}");
            assert!(!e.contains("SECRET"), "{e}");
        }
        let e = parse_document(b"\"\xff\"").unwrap_err().to_string();
        assert!(e.contains("UTF-8"), "{e}");
        let deep = "[".repeat(600);
        let e = parse_document(deep.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("too deep"), "{e}");
        let e = parse_document(b"[1,\n2,\n}").unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
    }

    #[test]
    fn strings_over_the_cap_are_dropped_and_counted() {
        let limits = Limits {
            string_cap: 8,
            ..Limits::default()
        };
        let doc = br#"["short","a very long string indeed","ok"]"#;
        let mut p = Parser::with_limits(&doc[..], limits);
        let n = p.value().unwrap();
        assert_eq!(compact(&n), r#"["short","","ok"]"#);
        assert_eq!(p.cut_strings, 1);
        assert_eq!(
            p.first_cut,
            Some((1, 10)),
            "located at the string's first byte"
        );
    }

    #[test]
    fn strings_across_buffer_refills() {
        // A reader that hands out one byte at a time.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let doc = r#"{"k":"a\"b\u00e9c","n":-12.5e3}"#;
        let mut p = Parser::new(Trickle(doc.as_bytes()));
        let n = p.value().unwrap();
        assert_eq!(compact(&n), doc);
        assert!(p.at_end().unwrap());
    }
}

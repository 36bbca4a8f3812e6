//! A bounded, streaming pull scanner for JSON.
//!
//! Why not serde_json: a HAR is one JSON document of any size, and a single string in it may be
//! a gigabyte (a `data:` URL, a pasted dump). serde materialises every string it hands out, so
//! one such value costs its whole size in memory. This scanner reads through a fixed buffer and
//! hands out *events*; a string longer than its cap is cut (at a character boundary) and still
//! scanned to its end, so the rest of the document is read. Strings are searched with memchr;
//! numbers are handed out as their exact raw text, so a rewriter can write them back byte for
//! byte. Every error carries the byte offset, line and column where it was found, and says what
//! was wrong without quoting the input.
//!
//! ```text
//! let mut sc = Scanner::new(reader);
//! while let ev = sc.next()? { match ev { Event::Key(k) => …, Event::End => break, … } }
//! ```

use std::fmt;
use std::io::Read;

/// Where [`Scanner::next_observed`] sends the decoded bytes of a string.
type Observe<'o> = &'o mut dyn FnMut(&[u8]);

/// Caps that bound what one event may cost.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest string value handed out whole (decoded bytes); longer ones are cut.
    pub string_cap: usize,
    /// Longest object key handed out whole; longer ones are cut.
    pub key_cap: usize,
    /// Longest number accepted (its raw text); a longer one is an error.
    pub number_cap: usize,
    /// Deepest nesting of arrays and objects accepted.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            string_cap: 1024 * 1024,
            key_cap: 4096,
            number_cap: 1024,
            max_depth: 512,
        }
    }
}

/// A decoded string (value or key), at most its cap long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'a> {
    /// The decoded text, cut at a character boundary when longer than the cap.
    pub value: &'a str,
    /// Decoded length of the whole string in bytes (≥ `value.len()`).
    pub len: u64,
    /// The string exactly as written between its quotes (escapes kept), when it was not cut
    /// and lay in one buffer: lets a copier pass it through unchanged.
    pub raw: Option<&'a [u8]>,
}

impl Text<'_> {
    /// The string was longer than its cap: `value` holds only its start.
    pub fn is_cut(&self) -> bool {
        (self.value.len() as u64) < self.len
    }
}

/// One step through the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    StartObject,
    EndObject,
    StartArray,
    EndArray,
    Key(Text<'a>),
    Str(Text<'a>),
    /// A number's raw text, exactly as written (`1e3`, `-0.10`).
    Num(&'a str),
    Bool(bool),
    Null,
    /// The document is complete and only whitespace follows.
    End,
}

/// Where something is in the input: byte offset (0-based), line and column (1-based, column
/// in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub offset: u64,
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "byte {} (line {}, column {})",
            self.offset, self.line, self.column
        )
    }
}

/// What went wrong; never holds input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input ended inside the document.
    Eof,
    /// Unexpected byte: what was expected instead.
    Syntax(&'static str),
    InvalidUtf8,
    /// A raw control character (below U+0020) inside a string.
    ControlCharacter,
    /// A backslash escape that JSON does not have.
    BadEscape,
    NumberTooLong(usize),
    TooDeep(usize),
    Io(String),
}

/// A located scanning error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    pub kind: ErrorKind,
    pub pos: Pos,
}

impl ScanError {
    /// The problem without its location.
    pub fn what(&self) -> String {
        match &self.kind {
            ErrorKind::Eof => "the input ends in the middle of the JSON (truncated?)".into(),
            ErrorKind::Syntax(expected) => format!("invalid JSON: expected {expected}"),
            ErrorKind::InvalidUtf8 => "invalid UTF-8 (the text is not UTF-8)".into(),
            ErrorKind::ControlCharacter => {
                "invalid JSON: a raw control character inside a string".into()
            }
            ErrorKind::BadEscape => "invalid JSON: an unknown backslash escape in a string".into(),
            ErrorKind::NumberTooLong(n) => format!("a number longer than {n} characters"),
            ErrorKind::TooDeep(n) => format!("arrays/objects nested deeper than {n}"),
            ErrorKind::Io(e) => format!("read error: {e}"),
        }
    }
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.what(), self.pos)
    }
}

impl std::error::Error for ScanError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value must come (document start, after `:`, after `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object.
    Key,
    /// After a key.
    Colon,
    /// After a value inside a container.
    CommaOrEnd,
    /// The top-level value is complete.
    Done,
}

/// Where the text of the last string lies.
#[derive(Clone, Copy)]
enum Span {
    /// In `buf[start..end]`, undecoded and unescaped (no escapes, one buffer).
    Buf(usize, usize),
    /// In `scratch`.
    Scratch,
}

/// What `scan_string` learned.
struct Scanned {
    span: Span,
    len: u64,
    /// Raw bytes between the quotes in `buf`, when the string stayed in one buffer and whole.
    raw: Option<(usize, usize)>,
    /// Every byte of a `Span::Buf` span was seen to be ASCII while scanning (so [`Scanner::text`]
    /// need not validate it again).
    ascii: bool,
}

const BUF_SIZE: usize = 256 * 1024;

/// Bytes after an escape looked at by hand before a memchr2 call (see `string_region`).
const NEAR_ESCAPE: usize = 16;

/// The scanner. See the module documentation.
pub struct Scanner<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// Absolute offset of `buf[0]`.
    base: u64,
    /// Newlines before `buf[counted]`, and the absolute offset just after the last of them.
    lines: u64,
    line_start: u64,
    counted: usize,
    stack: Vec<u8>,
    state: State,
    scratch: Vec<u8>,
    limits: Limits,
    /// Absolute offset where the last event's token starts.
    token: u64,
    /// Its line and column, when computed before its bytes left the buffer.
    token_pos: Option<Pos>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Largest `k <= max` that does not split a UTF-8 character of `s` (which is valid UTF-8).
fn char_floor(s: &[u8], max: usize) -> usize {
    if max >= s.len() {
        return s.len();
    }
    let mut k = max;
    while k > 0 && (s[k] & 0xC0) == 0x80 {
        k -= 1;
    }
    k
}

/// Whether `s` holds a control character (below 0x20) and whether it holds any non-ASCII
/// byte, in one pass (a fold rather than `any`, so the compiler vectorizes it).
fn classify(s: &[u8]) -> (bool, bool) {
    let (ctrl, high) = s.iter().fold((0u8, 0u8), |(c, h), &b| {
        (c | (b < 0x20) as u8, h | b & 0x80)
    });
    (ctrl != 0, high != 0)
}

/// Newlines in `s`: counted in runs short enough for byte-wide lanes, which vectorize well.
fn count_newlines(s: &[u8]) -> u64 {
    s.chunks(255)
        .map(|c| {
            c.iter()
                .fold(0u8, |n, &b| n.wrapping_add((b == b'\n') as u8)) as u64
        })
        .sum()
}

/// Bytes the scanner has validated as text, as a `&str`. ASCII (nearly every key, number and
/// header) is taken as it is: `from_utf8` on the short strings a HAR is made of cost ~85
/// instructions a call, 5 % of a HAR run, for bytes already checked once.
fn as_text(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

impl<R: Read> Scanner<R> {
    pub fn new(reader: R) -> Self {
        Self::with_limits(reader, Limits::default())
    }

    pub fn with_limits(reader: R, limits: Limits) -> Self {
        Scanner {
            reader,
            buf: vec![0; BUF_SIZE],
            pos: 0,
            end: 0,
            eof: false,
            base: 0,
            lines: 0,
            line_start: 0,
            counted: 0,
            stack: Vec::new(),
            state: State::Value,
            scratch: Vec::new(),
            limits,
            token: 0,
            token_pos: None,
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Change the caps from the next event on (e.g. a larger cap for one known field).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// Nesting depth: 0 outside the top-level value, 1 inside it, …
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Absolute offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Where the last event's token started.
    pub fn token_pos(&self) -> Pos {
        self.token_pos.unwrap_or_else(|| self.pos_at(self.token))
    }

    /// Where the scanner is now.
    pub fn pos(&self) -> Pos {
        self.pos_at(self.offset())
    }

    /// [`Scanner::next`], also handing the decoded bytes of a string event (value or key) to
    /// `observe`, piece by piece and whole whatever the cap: lets a caller hash or measure a
    /// value it does not keep.
    pub fn next_observed(
        &mut self,
        observe: &mut dyn FnMut(&[u8]),
    ) -> Result<Event<'_>, ScanError> {
        self.next_inner(false, Some(observe))
    }

    /// Line and column of absolute offset `at`, which must not have left the buffer.
    fn pos_at(&self, at: u64) -> Pos {
        let counted_abs = self.base + self.counted as u64;
        if at < counted_abs {
            // Only the current line's start is known; good enough for offsets on it.
            return Pos {
                offset: at,
                line: self.lines + 1,
                column: at.saturating_sub(self.line_start) + 1,
            };
        }
        let upto = ((at - self.base) as usize).min(self.end);
        let seg = &self.buf[self.counted..upto];
        let n = count_newlines(seg);
        let line_start = match memchr::memrchr(b'\n', seg) {
            Some(i) => self.base + (self.counted + i) as u64 + 1,
            None => self.line_start,
        };
        Pos {
            offset: at,
            line: self.lines + n + 1,
            column: at - line_start + 1,
        }
    }

    fn err(&self, kind: ErrorKind, at: u64) -> ScanError {
        ScanError {
            kind,
            pos: self.pos_at(at),
        }
    }

    fn err_here(&self, kind: ErrorKind) -> ScanError {
        self.err(kind, self.offset())
    }

    /// Count the newlines of `buf[counted..upto]` into the running totals.
    fn count_lines(&mut self, upto: usize) {
        let seg = &self.buf[self.counted..upto];
        self.lines += count_newlines(seg);
        if let Some(i) = memchr::memrchr(b'\n', seg) {
            self.line_start = self.base + (self.counted + i) as u64 + 1;
        }
        self.counted = upto;
    }

    /// Drop consumed bytes and read more. Returns false at end of input.
    fn refill(&mut self) -> Result<bool, ScanError> {
        if self.eof {
            return Ok(false);
        }
        if self.token_pos.is_none() && self.token < self.base + self.pos as u64 {
            // Count the lines up to the token first: `pos_at` would count them, and
            // `count_lines` below again (a second pass over the whole buffer).
            if self.token >= self.base + self.counted as u64 {
                self.count_lines((self.token - self.base) as usize);
            }
            self.token_pos = Some(self.pos_at(self.token));
        }
        self.count_lines(self.pos);
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.base += self.pos as u64;
            self.pos = 0;
            self.counted = 0;
        }
        if self.end == self.buf.len() {
            // Only a token that must be whole (a number, a literal, an escape) needs room.
            let n = self.buf.len();
            self.buf.resize(n * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.err_here(ErrorKind::Io(e.to_string()))),
            }
        }
    }

    /// Make at least `n` unread bytes available, unless the input ends first.
    fn ensure(&mut self, n: usize) -> Result<bool, ScanError> {
        while self.end - self.pos < n {
            if !self.refill()? {
                return Ok(self.end - self.pos >= n);
            }
        }
        Ok(true)
    }

    /// The next byte that is not whitespace, not consumed; None at end of input.
    fn peek_non_ws(&mut self) -> Result<Option<u8>, ScanError> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !is_ws(b) {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.refill()? {
                return Ok(None);
            }
        }
    }

    fn start_token(&mut self) {
        self.token = self.offset();
        self.token_pos = None;
    }

    fn after_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::CommaOrEnd
        };
    }

    fn push(&mut self, b: u8) -> Result<(), ScanError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.err_here(ErrorKind::TooDeep(self.limits.max_depth)));
        }
        self.stack.push(b);
        Ok(())
    }

    /// The next event.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Event<'_>, ScanError> {
        self.next_inner(false, None)
    }

    /// After a `StartObject` or `StartArray` event: skip the rest of that container, up to and
    /// including its end, validating but materialising nothing.
    pub fn skip_container(&mut self) -> Result<(), ScanError> {
        let depth = self.stack.len();
        loop {
            let closed = matches!(
                self.next_inner(true, None)?,
                Event::EndObject | Event::EndArray | Event::End
            );
            if closed && self.stack.len() < depth {
                return Ok(());
            }
        }
    }

    /// Skip the next value whole (an object or array with everything in it), validating it but
    /// materialising none of its strings. Call it where a value is due (after a key, or inside
    /// an array); anywhere else it reads one event.
    pub fn skip_value(&mut self) -> Result<(), ScanError> {
        let start_depth = self.stack.len();
        let mut first = true;
        loop {
            // 0 open, 1 close, 2 key, 3 end of input, 4 scalar.
            let kind = match self.next_inner(true, None)? {
                Event::StartObject | Event::StartArray => 0,
                Event::EndObject | Event::EndArray => 1,
                Event::Key(_) => 2,
                Event::End => 3,
                _ => 4,
            };
            let done = match kind {
                0 | 2 => false,
                1 => self.stack.len() <= start_depth,
                3 => true,
                _ => first || self.stack.len() <= start_depth,
            };
            first = false;
            if done {
                return Ok(());
            }
        }
    }

    fn next_inner(
        &mut self,
        skipping: bool,
        mut observe: Option<Observe<'_>>,
    ) -> Result<Event<'_>, ScanError> {
        loop {
            let Some(b) = self.peek_non_ws()? else {
                if self.state == State::Done {
                    return Ok(Event::End);
                }
                return Err(self.err_here(ErrorKind::Eof));
            };
            self.start_token();
            match self.state {
                State::Done => {
                    return Err(self.err_here(ErrorKind::Syntax(
                        "the end of the input after the JSON value",
                    )))
                }
                State::Colon => {
                    if b != b':' {
                        return Err(self.err_here(ErrorKind::Syntax("`:`")));
                    }
                    self.pos += 1;
                    self.state = State::Value;
                }
                State::CommaOrEnd => {
                    let top = *self.stack.last().unwrap_or(&b'[');
                    match b {
                        b',' => {
                            self.pos += 1;
                            self.state = if top == b'{' {
                                State::Key
                            } else {
                                State::Value
                            };
                        }
                        b'}' if top == b'{' => {
                            self.pos += 1;
                            self.stack.pop();
                            self.after_value();
                            return Ok(Event::EndObject);
                        }
                        b']' if top == b'[' => {
                            self.pos += 1;
                            self.stack.pop();
                            self.after_value();
                            return Ok(Event::EndArray);
                        }
                        _ => {
                            let expected = if top == b'{' {
                                "`,` or `}`"
                            } else {
                                "`,` or `]`"
                            };
                            return Err(self.err_here(ErrorKind::Syntax(expected)));
                        }
                    }
                }
                State::KeyOrEnd | State::Key => {
                    if b == b'}' && self.state == State::KeyOrEnd {
                        self.pos += 1;
                        self.stack.pop();
                        self.after_value();
                        return Ok(Event::EndObject);
                    }
                    if b != b'"' {
                        let expected = if self.state == State::KeyOrEnd {
                            "a key (a string in quotes) or `}`"
                        } else {
                            "a key (a string in quotes)"
                        };
                        return Err(self.err_here(ErrorKind::Syntax(expected)));
                    }
                    self.pos += 1;
                    let cap = if skipping { 0 } else { self.limits.key_cap };
                    let s = self.scan_string(cap, skipping, &mut observe)?;
                    // The usual `"key":`: step over the colon now, not in another turn of the
                    // loop (anything else, the `Colon` state reads and reports).
                    if self.pos < self.end && self.buf[self.pos] == b':' {
                        self.pos += 1;
                        self.state = State::Value;
                    } else {
                        self.state = State::Colon;
                    }
                    return Ok(Event::Key(self.text(s)));
                }
                State::Value | State::ValueOrEnd => {
                    if b == b']' && self.state == State::ValueOrEnd {
                        self.pos += 1;
                        self.stack.pop();
                        self.after_value();
                        return Ok(Event::EndArray);
                    }
                    return self.value(b, skipping, observe);
                }
            }
        }
    }

    fn value(
        &mut self,
        b: u8,
        skipping: bool,
        mut observe: Option<Observe<'_>>,
    ) -> Result<Event<'_>, ScanError> {
        match b {
            b'{' => {
                self.push(b'{')?;
                self.pos += 1;
                self.state = State::KeyOrEnd;
                Ok(Event::StartObject)
            }
            b'[' => {
                self.push(b'[')?;
                self.pos += 1;
                self.state = State::ValueOrEnd;
                Ok(Event::StartArray)
            }
            b'"' => {
                self.pos += 1;
                let cap = if skipping { 0 } else { self.limits.string_cap };
                let s = self.scan_string(cap, skipping, &mut observe)?;
                self.after_value();
                Ok(Event::Str(self.text(s)))
            }
            b't' => self.literal(b"true", Event::Bool(true)),
            b'f' => self.literal(b"false", Event::Bool(false)),
            b'n' => self.literal(b"null", Event::Null),
            b'-' | b'0'..=b'9' => {
                let (start, end) = self.number()?;
                self.after_value();
                // The grammar was checked: ASCII only.
                Ok(Event::Num(as_text(&self.buf[start..end]).unwrap_or("0")))
            }
            _ => Err(self.err_here(ErrorKind::Syntax("a value"))),
        }
    }

    fn literal(&mut self, word: &'static [u8], ev: Event<'static>) -> Result<Event<'_>, ScanError> {
        self.ensure(word.len())?;
        let have = &self.buf[self.pos..self.end.min(self.pos + word.len())];
        if have != word {
            let bad = have.iter().zip(word).take_while(|(a, b)| a == b).count();
            if self.pos + bad >= self.end {
                return Err(self.err(ErrorKind::Eof, self.offset() + bad as u64));
            }
            return Err(self.err(ErrorKind::Syntax("a value"), self.offset() + bad as u64));
        }
        self.pos += word.len();
        self.after_value();
        Ok(ev)
    }

    /// Scan a number; returns its span in `buf`.
    fn number(&mut self) -> Result<(usize, usize), ScanError> {
        let cap = self.limits.number_cap;
        // Find the end of the token, reading more as needed.
        let mut len = 0usize;
        loop {
            while self.pos + len < self.end {
                let c = self.buf[self.pos + len];
                if !(c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E')) {
                    break;
                }
                len += 1;
                if len > cap {
                    return Err(self.err_here(ErrorKind::NumberTooLong(cap)));
                }
            }
            if self.pos + len < self.end || !self.refill()? {
                break;
            }
        }
        let s = &self.buf[self.pos..self.pos + len];
        // JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
        let mut i = 0;
        let bad = |i: usize| Err((i, "a digit"));
        let check = (|| {
            if s.get(i) == Some(&b'-') {
                i += 1;
            }
            match s.get(i) {
                Some(b'0') => i += 1,
                Some(b'1'..=b'9') => {
                    while s.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1
                    }
                }
                _ => return bad(i),
            }
            if s.get(i) == Some(&b'.') {
                i += 1;
                if !s.get(i).is_some_and(u8::is_ascii_digit) {
                    return bad(i);
                }
                while s.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1
                }
            }
            if matches!(s.get(i), Some(b'e' | b'E')) {
                i += 1;
                if matches!(s.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
                if !s.get(i).is_some_and(u8::is_ascii_digit) {
                    return bad(i);
                }
                while s.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1
                }
            }
            if i != s.len() {
                return Err((i, "a number"));
            }
            Ok(())
        })();
        if let Err((at, what)) = check {
            let kind = if self.pos + at >= self.end && self.eof {
                ErrorKind::Eof
            } else {
                ErrorKind::Syntax(what)
            };
            return Err(self.err(kind, self.offset() + at as u64));
        }
        let span = (self.pos, self.pos + len);
        self.pos += len;
        Ok(span)
    }

    fn text(&self, s: Scanned) -> Text<'_> {
        // Validated (and cut at char boundaries) while scanning.
        let value = match s.span {
            Span::Buf(a, b) if s.ascii => {
                debug_assert!(self.buf[a..b].is_ascii());
                // SAFETY: `ascii` is set only for spans whose bytes `scan_string` saw to be all
                // below 0x80, and ASCII bytes are valid UTF-8.
                unsafe { std::str::from_utf8_unchecked(&self.buf[a..b]) }
            }
            Span::Buf(a, b) => as_text(&self.buf[a..b]).unwrap_or(""),
            Span::Scratch => as_text(&self.scratch).unwrap_or(""),
        };
        Text {
            value,
            len: s.len,
            raw: s.raw.map(|(a, b)| &self.buf[a..b]),
        }
    }

    /// Scan a string whose opening quote has been consumed, keeping at most `cap` decoded
    /// bytes. Validates escapes, control characters and UTF-8 over the whole string.
    ///
    /// Works a buffer at a time: find how far the string runs in the buffer (memchr2 for quote
    /// and backslash, escapes checked and stepped over), validate that region in one pass, then
    /// decode it only if something wants the text (a cap above zero, an observer). A string that
    /// has no escape and closes in the buffer is handed out in place.
    fn scan_string(
        &mut self,
        cap: usize,
        skipping: bool,
        observer: &mut Option<Observe<'_>>,
    ) -> Result<Scanned, ScanError> {
        if observer.is_none() {
            let fast = if skipping {
                self.skip_simple_string()
            } else {
                self.plain_string(cap)
            };
            if let Some(s) = fast {
                return Ok(s);
            }
        }
        let start = self.pos;
        // `start` and `raw` stay valid only while the buffer does not move.
        let base0 = self.base;
        let mut len: u64 = 0;
        // Whether the decoded text so far is in `scratch` (else it is buf[start..pos]).
        let mut in_scratch = false;
        let mut full = false;
        self.scratch.clear();
        loop {
            let (region_end, closed, escaped) = self.string_region()?;
            let (valid_end, high) = self.check_segment(self.pos, region_end, !closed)?;
            let (a, b) = (self.pos, valid_end);
            if closed && !escaped && !in_scratch {
                // The common case: no escape, in one buffer.
                if let Some(f) = observer.as_mut() {
                    f(&self.buf[a..b]);
                }
                len += (b - a) as u64;
                self.pos = b + 1;
                let kept = char_floor(&self.buf[start..b], cap);
                let whole = kept == b - start;
                return Ok(Scanned {
                    span: Span::Buf(start, start + kept),
                    len,
                    raw: (whole && self.base == base0).then_some((start, b)),
                    ascii: !high,
                });
            }
            // The first region starts where the string does, so nothing was taken in place.
            in_scratch = true;
            if skipping {
                len += (b - a) as u64; // raw length: nobody reads a skipped string's length
            } else {
                len += self.decode_region(a, b, cap, &mut full, observer);
            }
            if closed {
                self.pos = b + 1;
                return Ok(Scanned {
                    span: Span::Scratch,
                    len,
                    raw: (self.base == base0 && !full).then_some((start, b)),
                    ascii: false,
                });
            }
            self.pos = b;
            if !self.refill()? {
                return Err(self.err_here(ErrorKind::Eof));
            }
        }
    }

    /// A skipped string (its opening quote consumed) that closes in the buffer, has only
    /// simple escapes and valid content, stepped over 64 bytes at a time
    /// ([`super::skim::simple_string_end`]) with the result [`Self::scan_string`] gives; `None`
    /// (nothing consumed) for anything else, which `scan_string` then reads (and reports).
    fn skip_simple_string(&mut self) -> Option<Scanned> {
        let (a, end) = (self.pos, self.end);
        let found = super::skim::simple_string_end(&self.buf[a..end])?;
        let (b, escaped) = (a + found.end, found.escaped);
        if found.high && std::str::from_utf8(&self.buf[a..b]).is_err() {
            return None;
        }
        self.scratch.clear();
        self.pos = b + 1;
        let len = (b - a) as u64;
        Some(if escaped {
            Scanned {
                span: Span::Scratch,
                len,
                raw: Some((a, b)),
                ascii: false,
            }
        } else {
            Scanned {
                span: Span::Buf(a, a),
                len,
                raw: (b == a).then_some((a, b)),
                ascii: true, // an empty span
            }
        })
    }

    /// A string (its opening quote consumed) that closes in the buffer with no escape and valid
    /// content, found 64 bytes at a time ([`super::skim::simple_string_end`]): what the careful
    /// path of [`Self::scan_string`] gives, without its memchr2 call and second validation pass
    /// (keys and header values are short, and those calls' set-up was most of their cost).
    /// `None` (nothing consumed) for anything else, which `scan_string` then reads.
    fn plain_string(&mut self, cap: usize) -> Option<Scanned> {
        let (a, end) = (self.pos, self.end);
        let found = super::skim::simple_string_end(&self.buf[a..end])?;
        if found.escaped {
            return None;
        }
        let b = a + found.end;
        if found.high && std::str::from_utf8(&self.buf[a..b]).is_err() {
            return None;
        }
        self.pos = b + 1;
        let kept = char_floor(&self.buf[a..b], cap);
        Some(Scanned {
            span: Span::Buf(a, a + kept),
            len: (b - a) as u64,
            raw: (kept == b - a).then_some((a, b)),
            ascii: !found.high,
        })
    }

    /// How far the string at `pos` runs in the buffer: `(end, closed, escaped)`. `end` is the
    /// closing quote when `closed`, else where the buffer ends or an escape that is not
    /// whole in it begins. Escapes are checked on the way.
    fn string_region(&self) -> Result<(usize, bool, bool), ScanError> {
        let end = self.end;
        let mut i = self.pos;
        let mut escaped = false;
        loop {
            // Escapes come in clusters (JSON inside a string: `{\"id\":1,\"name\":…}`, an
            // escape every few bytes): after one, look at the next bytes by hand before paying
            // for a memchr2 call.
            let mut j = i;
            if escaped {
                let near = (i + NEAR_ESCAPE).min(end);
                while j < near && !matches!(self.buf[j], b'"' | b'\\') {
                    j += 1;
                }
            }
            if !escaped || j == (i + NEAR_ESCAPE).min(end) {
                let Some(k) = memchr::memchr2(b'"', b'\\', &self.buf[j..end]) else {
                    return Ok((end, false, escaped));
                };
                j += k;
            }
            if self.buf[j] == b'"' {
                return Ok((j, true, escaped));
            }
            escaped = true;
            if j + 1 >= end {
                return Ok((j, false, escaped));
            }
            match self.buf[j + 1] {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = j + 2,
                b'u' => {
                    if j + 6 > end {
                        return Ok((j, false, escaped));
                    }
                    let unit = self.hex4_at(j)?;
                    // A high surrogate may pair with the next escape: have it whole too.
                    if (0xD800..0xDC00).contains(&unit) && j + 12 > end && !self.eof {
                        return Ok((j, false, escaped));
                    }
                    i = j + 6;
                }
                _ => return Err(self.err(ErrorKind::BadEscape, self.base + (j + 1) as u64)),
            }
        }
    }

    /// The code unit of the `\uXXXX` escape at `at` (which is in the buffer whole).
    fn hex4_at(&self, at: usize) -> Result<u32, ScanError> {
        let mut v = 0u32;
        for k in 0..4 {
            let d = self.buf[at + 2 + k];
            let x = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.err(ErrorKind::BadEscape, self.base + (at + 2 + k) as u64)),
            };
            v = v * 16 + x as u32;
        }
        Ok(v)
    }

    /// Decode `buf[a..b]` (validated string content, escapes whole) into `scratch` (up to the
    /// cap) and the observer; returns the decoded length.
    fn decode_region(
        &mut self,
        a: usize,
        b: usize,
        cap: usize,
        full: &mut bool,
        observer: &mut Option<Observe<'_>>,
    ) -> u64 {
        let mut len = 0u64;
        let mut i = a;
        let keep = |scratch: &mut Vec<u8>, full: &mut bool, bytes: &[u8]| {
            Self::keep(scratch, bytes, cap, full)
        };
        while i < b {
            let run_end = memchr::memchr(b'\\', &self.buf[i..b]).map_or(b, |k| i + k);
            if run_end > i {
                let run = &self.buf[i..run_end];
                if let Some(f) = observer.as_mut() {
                    f(run);
                }
                keep(&mut self.scratch, full, run);
                len += run.len() as u64;
            }
            if run_end >= b {
                break;
            }
            let mut ch = [0u8; 4];
            let (n, used) = self.unescape(run_end, b, &mut ch);
            if let Some(f) = observer.as_mut() {
                f(&ch[..n]);
            }
            keep(&mut self.scratch, full, &ch[..n]);
            len += n as u64;
            i = run_end + used;
        }
        len
    }

    /// Decode the escape at `at` (checked by [`Self::string_region`]; `limit` bounds a
    /// following pair): `(UTF-8 length written to out, bytes consumed)`.
    fn unescape(&self, at: usize, limit: usize, out: &mut [u8; 4]) -> (usize, usize) {
        let simple = match self.buf[at + 1] {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            _ => 0,
        };
        if simple != 0 {
            out[0] = simple;
            return (1, 2);
        }
        let first = self.hex4_at(at).unwrap_or(0xFFFD);
        let (code, used) = if (0xD800..0xDC00).contains(&first) {
            let pair = at + 12 <= limit
                && self.buf[at + 6] == b'\\'
                && self.buf[at + 7] == b'u'
                && self
                    .hex4_at(at + 6)
                    .is_ok_and(|u| (0xDC00..0xE000).contains(&u));
            if pair {
                let second = self.hex4_at(at + 6).unwrap_or(0xDC00);
                (0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), 12)
            } else {
                (0xFFFD, 6) // a lone high surrogate: the next escape stands alone
            }
        } else if (0xDC00..0xE000).contains(&first) {
            (0xFFFD, 6) // a lone low surrogate
        } else {
            (first, 6)
        };
        let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
        (ch.encode_utf8(out).len(), used)
    }

    /// Append to `scratch` while it has room under `cap`, never splitting a character; once a
    /// piece did not fit whole, `full` is set and nothing more is kept (no gaps in the text).
    fn keep(scratch: &mut Vec<u8>, bytes: &[u8], cap: usize, full: &mut bool) {
        if *full || bytes.is_empty() {
            return;
        }
        let room = cap.saturating_sub(scratch.len());
        let k = char_floor(bytes, room);
        scratch.extend_from_slice(&bytes[..k]);
        if k < bytes.len() {
            *full = true;
        }
    }

    /// Validate `buf[a..b]` as string content (no control characters, valid UTF-8). With
    /// `open_end`, an incomplete character at the end is allowed: returns where the checked part
    /// ends, and whether it holds a byte of 0x80 or above.
    fn check_segment(
        &self,
        a: usize,
        b: usize,
        open_end: bool,
    ) -> Result<(usize, bool), ScanError> {
        let seg = &self.buf[a..b];
        let (ctrl, high) = classify(seg);
        if ctrl {
            let i = seg.iter().position(|&c| c < 0x20).unwrap_or(0);
            return Err(self.err(ErrorKind::ControlCharacter, self.base + (a + i) as u64));
        }
        if !high {
            return Ok((b, false));
        }
        match std::str::from_utf8(seg) {
            Ok(_) => Ok((b, true)),
            Err(e) if open_end && e.error_len().is_none() && !self.eof => {
                Ok((a + e.valid_up_to(), true))
            }
            Err(e) => Err(self.err(
                ErrorKind::InvalidUtf8,
                self.base + (a + e.valid_up_to()) as u64,
            )),
        }
    }
}

/// Where an object taken whole by [`Scanner::take_object`] lay in the input: what a scanner
/// over its bytes alone ([`Scanner::over_bytes`], [`Scanner::seek_object`]) needs to report
/// the same errors at the same positions as the scanner it was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Absolute offset of the object's `{`.
    pub offset: u64,
    /// Newlines before it, and the absolute offset just after the last of them.
    pub lines: u64,
    pub line_start: u64,
    /// Nesting depth where the object starts (its own `{` not counted).
    pub depth: usize,
}

impl<R: Read> Scanner<R> {
    /// Where a value is due (after `[`, a `,` in an array, a `:`) or an array's next item may
    /// come (after an item: the comma is stepped over): when the value is an object that
    /// ends within one buffer, append its bytes to `out`, step over it as if it had been read,
    /// and return where it lay. `None` (nothing consumed): the next value is not an object,
    /// is longer than the buffer, or the input ends first; read it with [`Scanner::next`].
    ///
    /// What is stepped over is not validated here: the scanner that reads the bytes
    /// ([`Scanner::seek_object`]) does that, and reports what this one would have.
    pub fn take_object(&mut self, out: &mut Vec<u8>) -> Result<Option<Mark>, ScanError> {
        if self.state == State::CommaOrEnd && self.stack.last() == Some(&b'[') {
            // Between two items of an array: step over the comma (anything else, `next` reads).
            if self.peek_non_ws()? != Some(b',') {
                return Ok(None);
            }
            self.start_token();
            self.pos += 1;
            self.state = State::Value;
        }
        if !matches!(self.state, State::Value | State::ValueOrEnd) {
            return Ok(None);
        }
        if self.peek_non_ws()? != Some(b'{') {
            return Ok(None);
        }
        let end = loop {
            if let Some(n) = super::skim::object_end(&self.buf[self.pos..self.end]) {
                break self.pos + n;
            }
            // Not whole in the buffer: move it to the front and read more, once the buffer is
            // all this object (then it is too long to take) or the input ends (truncated: the
            // full scan says where).
            if self.eof || (self.pos == 0 && self.end == self.buf.len()) {
                return Ok(None);
            }
            self.refill()?;
        };
        if self.stack.len() >= self.limits.max_depth {
            // The full scan reports it.
            return Ok(None);
        }
        self.start_token();
        self.count_lines(self.pos);
        let mark = Mark {
            offset: self.offset(),
            lines: self.lines,
            line_start: self.line_start,
            depth: self.stack.len(),
        };
        out.extend_from_slice(&self.buf[self.pos..end]);
        self.pos = end;
        self.after_value();
        Ok(Some(mark))
    }
}

impl Scanner<std::io::Empty> {
    /// A scanner over bytes already in memory (objects taken by [`Scanner::take_object`]):
    /// they become its buffer, nothing is copied. Position it with [`Scanner::seek_object`].
    pub fn over_bytes(bytes: Vec<u8>, limits: Limits) -> Self {
        let end = bytes.len();
        Scanner {
            reader: std::io::empty(),
            buf: bytes,
            pos: end,
            end,
            eof: true,
            base: 0,
            lines: 0,
            line_start: 0,
            counted: end,
            stack: Vec::new(),
            state: State::Done,
            scratch: Vec::new(),
            limits,
            token: 0,
            token_pos: None,
        }
    }

    /// Read the object at `bytes[range]`, which was taken at `mark`, from its `{` on: errors
    /// carry the positions they have in the original input.
    pub fn seek_object(&mut self, range: std::ops::Range<usize>, mark: &Mark) {
        self.pos = range.start;
        self.end = range.end;
        self.base = mark.offset - range.start as u64;
        self.lines = mark.lines;
        self.line_start = mark.line_start;
        self.counted = range.start;
        self.stack.clear();
        self.stack.resize(mark.depth, b'[');
        self.state = State::Value;
        self.token = mark.offset;
        self.token_pos = None;
    }

    /// The bytes back (to reuse the allocation).
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Hands out at most `step` bytes per read, to cross buffer boundaries everywhere.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(self.data.len()).min(out.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Rebuild a serde_json value from the events (numbers from their raw text).
    fn rebuild<R: Read>(sc: &mut Scanner<R>) -> Result<Value, ScanError> {
        fn value<R: Read>(sc: &mut Scanner<R>, ev: Event<'_>) -> Result<Value, ScanError> {
            Ok(match ev {
                Event::Str(t) => Value::String(t.value.to_string()),
                // std's parser is correctly rounded (serde_json's default one can be a ULP off).
                Event::Num(n) => match (n.parse::<i64>(), n.parse::<u64>()) {
                    (Ok(i), _) => Value::from(i),
                    (_, Ok(u)) => Value::from(u),
                    _ => Value::from(n.parse::<f64>().expect("valid number text")),
                },
                Event::Bool(b) => Value::Bool(b),
                Event::Null => Value::Null,
                Event::StartArray => {
                    let mut items = Vec::new();
                    loop {
                        let ev = sc.next()?;
                        if ev == Event::EndArray {
                            break;
                        }
                        let owned = own(ev);
                        items.push(value(sc, owned.as_event())?);
                    }
                    Value::Array(items)
                }
                Event::StartObject => {
                    let mut m = serde_json::Map::new();
                    loop {
                        let key = match sc.next()? {
                            Event::EndObject => break,
                            Event::Key(k) => k.value.to_string(),
                            other => panic!("{other:?}"),
                        };
                        let ev = own(sc.next()?);
                        m.insert(key, value(sc, ev.as_event())?);
                    }
                    Value::Object(m)
                }
                other => panic!("{other:?}"),
            })
        }
        let first = own(sc.next()?);
        let v = value(sc, first.as_event())?;
        assert_eq!(sc.next()?, Event::End);
        Ok(v)
    }

    /// An event detached from the scanner's buffer.
    enum Owned {
        Str(String),
        Num(String),
        Other(Event<'static>),
    }
    fn own(ev: Event<'_>) -> Owned {
        match ev {
            Event::Str(t) => Owned::Str(t.value.to_string()),
            Event::Num(n) => Owned::Num(n.to_string()),
            Event::StartObject => Owned::Other(Event::StartObject),
            Event::StartArray => Owned::Other(Event::StartArray),
            Event::EndObject => Owned::Other(Event::EndObject),
            Event::EndArray => Owned::Other(Event::EndArray),
            Event::Bool(b) => Owned::Other(Event::Bool(b)),
            Event::Null => Owned::Other(Event::Null),
            Event::End => Owned::Other(Event::End),
            Event::Key(_) => panic!("key where a value was due"),
        }
    }
    impl Owned {
        fn as_event(&self) -> Event<'_> {
            match self {
                Owned::Str(s) => Event::Str(Text {
                    value: s,
                    len: s.len() as u64,
                    raw: None,
                }),
                Owned::Num(n) => Event::Num(n),
                Owned::Other(e) => *e,
            }
        }
    }

    fn scan_all(json: &[u8], step: usize) -> Result<Value, ScanError> {
        rebuild(&mut Scanner::new(Trickle { data: json, step }))
    }

    #[test]
    fn reads_what_serde_reads_across_any_buffer_boundary() {
        let docs = [
            r#"{"a":1,"b":[true,false,null,{"c":"d"}],"e":{},"f":[],"g":-0.5e-3}"#,
            r#"  [ "é\u00e9\ud83d\ude00\n\t\"\\\/", 0, -1, 12.75, 1E+2 ]  "#,
            r#""just a string""#,
            "\n{\n  \"log\": {\n    \"entries\": [ { \"x\": \"\\u0041B\" } ]\n  }\n}\n",
            r#"{"unicode":"日本語テキスト","emoji":"👍🏽"}"#,
        ];
        for doc in docs {
            let expected: Value = serde_json::from_str(doc).unwrap();
            for step in [1, 2, 3, 7, 4096] {
                assert_eq!(
                    scan_all(doc.as_bytes(), step).unwrap(),
                    expected,
                    "{doc} / {step}"
                );
            }
        }
    }

    #[test]
    fn numbers_are_their_raw_text() {
        let doc =
            br#"[0.1000, 1e400, -0, 1.7976931348623157e308, 123456789012345678901234567890, 5E-7]"#;
        let mut sc = Scanner::new(&doc[..]);
        assert_eq!(sc.next().unwrap(), Event::StartArray);
        let mut raws = Vec::new();
        while let Event::Num(n) = sc.next().unwrap() {
            raws.push(n.to_string());
        }
        assert_eq!(
            raws,
            [
                "0.1000",
                "1e400",
                "-0",
                "1.7976931348623157e308",
                "123456789012345678901234567890",
                "5E-7"
            ]
        );
    }

    #[test]
    fn a_long_string_is_cut_and_the_rest_still_read() {
        let long = "é".repeat(300_000); // 600 KB, more than the buffer
        let doc = format!(r#"{{"url":"{long}","next":"ok","n":5}}"#);
        let limits = Limits {
            string_cap: 1001,
            ..Limits::default()
        };
        for step in [13, 1 << 20] {
            let mut sc = Scanner::with_limits(
                Trickle {
                    data: doc.as_bytes(),
                    step,
                },
                limits,
            );
            assert_eq!(sc.next().unwrap(), Event::StartObject);
            assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "url"));
            match sc.next().unwrap() {
                Event::Str(t) => {
                    assert!(t.is_cut());
                    assert_eq!(t.len, long.len() as u64);
                    assert_eq!(t.value.len(), 1000, "cut at a char boundary");
                    assert!(t.raw.is_none());
                }
                other => panic!("{other:?}"),
            }
            assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "next"));
            assert!(matches!(sc.next().unwrap(), Event::Str(t) if t.value == "ok" && !t.is_cut()));
            assert!(matches!(sc.next().unwrap(), Event::Key(_)));
            assert_eq!(sc.next().unwrap(), Event::Num("5"));
            assert_eq!(sc.next().unwrap(), Event::EndObject);
            assert_eq!(sc.next().unwrap(), Event::End);
        }
    }

    #[test]
    fn cut_strings_with_escapes_have_no_gaps() {
        let doc = r#"["ab\u00e9cdefgh"]"#;
        let limits = Limits {
            string_cap: 3,
            ..Limits::default()
        };
        let mut sc = Scanner::with_limits(doc.as_bytes(), limits);
        sc.next().unwrap();
        match sc.next().unwrap() {
            // "ab" + "é" (2 bytes) does not fit in 3: kept "ab", and "c" must not follow.
            Event::Str(t) => assert_eq!((t.value, t.len), ("ab", 10)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn raw_text_is_offered_for_whole_strings() {
        let doc = br#"{"a":"x\"y\u00e9"}"#;
        let mut sc = Scanner::new(&doc[..]);
        sc.next().unwrap();
        match sc.next().unwrap() {
            Event::Key(k) => assert_eq!(k.raw, Some(&b"a"[..])),
            other => panic!("{other:?}"),
        }
        match sc.next().unwrap() {
            Event::Str(t) => {
                assert_eq!(t.value, "x\"yé");
                assert_eq!(t.raw, Some(&br#"x\"y\u00e9"#[..]));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn skip_value_skips_whole_values() {
        let doc =
            br#"{"body":{"deep":[1,{"x":"y"},[[]]],"s":"t"},"after":[1,2],"n":null,"last":"v"}"#;
        let mut sc = Scanner::new(&doc[..]);
        sc.next().unwrap();
        sc.next().unwrap(); // "body"
        sc.skip_value().unwrap();
        assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "after"));
        sc.skip_value().unwrap();
        assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "n"));
        sc.skip_value().unwrap();
        assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "last"));
        sc.skip_value().unwrap();
        assert_eq!(sc.next().unwrap(), Event::EndObject);
        assert_eq!(sc.depth(), 0);
    }

    #[test]
    fn skipping_still_validates() {
        let doc = b"{\"a\":[\"bad \xff byte\"],\"b\":1}";
        let mut sc = Scanner::new(&doc[..]);
        sc.next().unwrap();
        sc.next().unwrap();
        let e = sc.skip_value().unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidUtf8);
        assert_eq!(e.pos.offset, 11);
    }

    #[test]
    fn observer_sees_the_whole_decoded_string() {
        let doc = format!(r#"["{}\n{}"]"#, "a".repeat(5000), "b".repeat(5000));
        let mut seen = Vec::new();
        let limits = Limits {
            string_cap: 10,
            ..Limits::default()
        };
        let mut sc = Scanner::with_limits(
            Trickle {
                data: doc.as_bytes(),
                step: 333,
            },
            limits,
        );
        sc.next().unwrap();
        match sc
            .next_observed(&mut |b| seen.extend_from_slice(b))
            .unwrap()
        {
            Event::Str(t) => assert_eq!((t.value.len(), t.len), (10, 10_001)),
            other => panic!("{other:?}"),
        }
        assert_eq!(seen.len(), 10_001);
        assert_eq!(seen[5000], b'\n');
    }

    fn error_of(doc: &[u8]) -> ScanError {
        for step in [1, 5, 1 << 20] {
            let e = scan_all(doc, step).unwrap_err();
            let e1 = scan_all(doc, 1).unwrap_err();
            assert_eq!(e, e1, "same error whatever the read size");
            if step == 1 << 20 {
                return e;
            }
        }
        unreachable!()
    }

    #[test]
    fn errors_are_located_and_never_quote_input() {
        let e = error_of(b"{\n  \"a\": 1,\n  \"secret-token\" 2\n}");
        assert_eq!(e.kind, ErrorKind::Syntax("`:`"));
        assert_eq!((e.pos.line, e.pos.column, e.pos.offset), (3, 18, 29));
        assert!(!e.to_string().contains("secret"), "{e}");
        assert!(e.to_string().contains("line 3, column 18"), "{e}");

        let e = error_of(br#"{"a":[1,2"#);
        assert_eq!(e.kind, ErrorKind::Eof);
        assert_eq!(e.pos.offset, 9);

        let e = error_of(b"[\"ok\", \"caf\xc3\"]");
        assert_eq!(e.kind, ErrorKind::InvalidUtf8);
        assert_eq!(e.pos.offset, 11);

        let e = error_of(b"[\"tab\there\"]");
        assert_eq!(e.kind, ErrorKind::ControlCharacter);
        assert_eq!(e.pos.offset, 5);

        assert_eq!(error_of(br#"["\q"]"#).kind, ErrorKind::BadEscape);
        assert_eq!(error_of(br#"[01]"#).kind, ErrorKind::Syntax("a number"));
        assert_eq!(error_of(br#"[1.]"#).kind, ErrorKind::Syntax("a digit"));
        assert_eq!(error_of(br#"[tru]"#).kind, ErrorKind::Syntax("a value"));
        assert_eq!(error_of(br#"{"a":1} x"#).pos.offset, 8);
        assert_eq!(error_of(b"").kind, ErrorKind::Eof);
        assert_eq!(
            error_of(br#"{"a":1,}"#).kind,
            ErrorKind::Syntax("a key (a string in quotes)")
        );
        assert_eq!(error_of(br#"[1,]"#).kind, ErrorKind::Syntax("a value"));
        let deep = "[".repeat(600);
        assert_eq!(error_of(deep.as_bytes()).kind, ErrorKind::TooDeep(512));
        let long_number = format!("[{}]", "9".repeat(2000));
        assert_eq!(
            error_of(long_number.as_bytes()).kind,
            ErrorKind::NumberTooLong(1024)
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let v = scan_all(br#"["\ud800x", "\udc00", "\ud800\u0041"]"#, 3).unwrap();
        assert_eq!(v, serde_json::json!(["\u{FFFD}x", "\u{FFFD}", "\u{FFFD}A"]));
    }

    #[test]
    fn memory_stays_bounded_on_a_huge_string() {
        // 64 MiB of string produced on the fly: the scanner's buffer never grows.
        struct Huge {
            left: u64,
            started: bool,
            ended: bool,
        }
        impl Read for Huge {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if !self.started {
                    self.started = true;
                    out[..8].copy_from_slice(br#"{"url":""#);
                    return Ok(8);
                }
                if self.left > 0 {
                    let n = (out.len() as u64).min(self.left) as usize;
                    out[..n].fill(b'a');
                    self.left -= n as u64;
                    return Ok(n);
                }
                if !self.ended {
                    self.ended = true;
                    out[..2].copy_from_slice(b"\"}");
                    return Ok(2);
                }
                Ok(0)
            }
        }
        let mut sc = Scanner::new(Huge {
            left: 64 << 20,
            started: false,
            ended: false,
        });
        sc.next().unwrap();
        sc.next().unwrap();
        match sc.next().unwrap() {
            Event::Str(t) => assert_eq!((t.value.len(), t.len), (1 << 20, 64 << 20)),
            other => panic!("{other:?}"),
        }
        assert_eq!(sc.next().unwrap(), Event::EndObject);
        assert_eq!(sc.buf.len(), BUF_SIZE);
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e12f64..1e12).prop_map(Value::from),
            "\\PC{0,40}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(("\\PC{0,12}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, .. Default::default() })]

        /// Any document serde writes (compact or pretty) reads back the same, whatever the read
        /// size.
        #[test]
        fn agrees_with_serde(v in json_value(), step in 1usize..64, pretty: bool) {
            let text = if pretty { serde_json::to_vec_pretty(&v) } else { serde_json::to_vec(&v) }.unwrap();
            proptest::prop_assert_eq!(scan_all(&text, step).unwrap(), v);
        }

        /// Mangled documents give an error or a value, never a panic; what serde accepts, the
        /// scanner accepts too.
        #[test]
        fn never_panics_on_mangled_input(v in json_value(), flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6), cut in 0usize..4096) {
            let mut text = serde_json::to_vec(&v).unwrap();
            for (at, b) in flips {
                let n = text.len().max(1);
                if let Some(x) = text.get_mut(at % n) { *x = b; }
            }
            text.truncate(cut.max(1));
            let ours = scan_all(&text, 7);
            if serde_json::from_slice::<Value>(&text).is_ok() {
                proptest::prop_assert!(ours.is_ok(), "{:?}", ours);
            }
        }

        /// Skipping a string (64 bytes at a time when it can) ends where reading it ends, or
        /// fails with the same error at the same place, whatever the read size.
        #[test]
        fn skipping_a_string_agrees_with_reading_it(
            body in proptest::collection::vec(proptest::prop_oneof![
                8 => proptest::prelude::Just(b'a'),
                3 => proptest::prelude::Just(b'\\'),
                2 => proptest::prelude::Just(b'"'),
                1 => proptest::prelude::Just(b'n'),
                1 => proptest::prelude::Just(b'u'),
                1 => proptest::prelude::Just(b'0'),
                1 => proptest::prelude::Just(0x01u8),
                1 => proptest::prelude::Just(0xC3u8),
                1 => proptest::prelude::Just(0xA9u8),
                1 => proptest::prelude::Just(0xFFu8),
            ], 0..300),
            step in proptest::prop_oneof![proptest::prelude::Just(1usize << 20), 1usize..80],
        ) {
            let mut doc = b"[\"".to_vec();
            doc.extend(&body);
            doc.extend(b"\",1]");
            let run = |skip: bool| -> Result<(u64, Result<String, ScanError>), ScanError> {
                let mut sc = Scanner::new(Trickle { data: &doc, step });
                sc.next()?;
                let read = if skip { sc.skip_value() } else { sc.next().map(|_| ()) };
                read?;
                let offset = sc.offset();
                Ok((offset, sc.next().map(|e| format!("{e:?}"))))
            };
            proptest::prop_assert_eq!(run(true), run(false));
        }
    }
}

//! The value after a secret-looking `name:` or `name =` in free text: where it starts and
//! ends, and what it is (quoted at any escaping level, a bracketed list or object, a number, a
//! bare word).

#[derive(Debug, PartialEq)]
pub(super) enum ValueKind {
    Quoted,
    Number,
    Bare,
    Nested,
}

pub(super) struct ValueSpan {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: ValueKind,
}

/// The value after `name:` starting at `at`: a quoted string at any escaping level (its
/// content), a bracketed list or object, a number or a bare word. `quoted_only`: after `=`,
/// only a quoted value counts (`apiKey = '…'`; bare `name=value` is [`super::Redactor`]'s
/// `name_eq`).
pub(super) fn scan_value(text: &str, at: usize, quoted_only: bool) -> Option<ValueSpan> {
    let b = text.as_bytes();
    let mut i = at;
    let mut k = 0;
    while i < b.len() && b[i] == b'\\' {
        k += 1;
        i += 1;
    }
    let c = *b.get(i)?;
    if c == b'"' && matches!(k, 0 | 1 | 3 | 7) {
        return Some(double_quoted(b, i + 1, k));
    }
    if k > 0 {
        return None;
    }
    if c == b'\'' {
        return Some(single_quoted(b, i + 1));
    }
    if quoted_only {
        return None;
    }
    if c == b'[' || c == b'{' {
        return Some(nested(b, i));
    }
    bare(text, i)
}

/// The content of a double-quoted string from `start`, `k` backslashes before each of its
/// quotes: at escaping level L (k = 2^L - 1) the closing quote is the first one whose
/// backslash run r has r mod 2^(L+1) == k. Cut mid-string (an excerpt): the rest is the value.
fn double_quoted(b: &[u8], start: usize, k: usize) -> ValueSpan {
    let m = 2 * (k + 1);
    let mut j = start;
    while j < b.len() {
        if b[j] == b'"' {
            let mut r = 0;
            while j - r > start && b[j - r - 1] == b'\\' {
                r += 1;
            }
            if r % m == k {
                return ValueSpan {
                    start,
                    end: j - k,
                    kind: ValueKind::Quoted,
                };
            }
        }
        j += 1;
    }
    ValueSpan {
        start,
        end: b.len(),
        kind: ValueKind::Quoted,
    }
}

/// The content of a single-quoted string from `start` (to the end when it is not closed).
fn single_quoted(b: &[u8], start: usize) -> ValueSpan {
    let mut j = start;
    while j < b.len() && !(b[j] == b'\'' && b[j - 1] != b'\\') {
        j += 1;
    }
    ValueSpan {
        start,
        end: j,
        kind: ValueKind::Quoted,
    }
}

/// A bracketed list or object from `i`, brackets in strings skipped (to the end when it is not
/// closed).
fn nested(b: &[u8], i: usize) -> ValueSpan {
    let mut depth = 0usize;
    let mut j = i;
    let mut in_str = false;
    while j < b.len() {
        match b[j] {
            b'"' if j == 0 || b[j - 1] != b'\\' => in_str = !in_str,
            b'[' | b'{' if !in_str => depth += 1,
            b']' | b'}' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return ValueSpan {
                        start: i,
                        end: j + 1,
                        kind: ValueKind::Nested,
                    };
                }
            }
            _ => {}
        }
        j += 1;
    }
    ValueSpan {
        start: i,
        end: b.len(),
        kind: ValueKind::Nested,
    }
}

/// A bare word from `i`: a number, or a literal; not a keyword (`true`, `null`, …), a
/// `$variable`, a JavaScript expression, or a line already redacted.
fn bare(text: &str, i: usize) -> Option<ValueSpan> {
    let b = text.as_bytes();
    let mut j = i;
    while j < b.len() && !b[j].is_ascii_whitespace() && !b",;}])'\"\\<>".contains(&b[j]) {
        j += 1;
    }
    let word = &text[i..j];
    // The rest of the line was already redacted (a header line: `Cookie: sid=<redacted:…>`).
    let line_rest = &text[i..text[i..].find('\n').map_or(text.len(), |n| i + n)];
    if word.is_empty()
        || line_rest.contains("<redacted:")
        || word.starts_with('$')
        || matches!(
            word,
            "true" | "false" | "null" | "undefined" | "nil" | "none" | "True" | "False" | "None"
        )
    {
        return None;
    }
    // A JavaScript expression (`{apiKey: key, …}`, `token: this.token`), not a literal.
    let next = text[j..].trim_start_matches([' ', '\t']).bytes().next();
    if is_identifier_path(word) && matches!(next, Some(b',' | b'}' | b')' | b';')) {
        return None;
    }
    let number = word
        .bytes()
        .all(|c| c.is_ascii_digit() || b".eE+-".contains(&c))
        && word
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == b'-');
    Some(ValueSpan {
        start: i,
        end: j,
        kind: if number {
            ValueKind::Number
        } else {
            ValueKind::Bare
        },
    })
}

/// `e`, `this.token`, `opts.apiKey`: letters, `_`, `$` and dots, no digit.
pub(super) fn is_identifier_path(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            part.bytes()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'$')
                && part
                    .bytes()
                    .all(|c| c.is_ascii_alphabetic() || c == b'_' || c == b'$')
        })
}

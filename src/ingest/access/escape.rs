//! Undoing each format's escaping, lazily: a value without an escape character is returned
//! borrowed, so the common case costs one scan and no allocation.
//!
//! nginx default escaping writes `"`, `\` and bytes < 32 or > 126 as `\xXX`; `escape=json`
//! writes RFC 8259 escapes [N1]. Apache (2.0.46+) writes `\"`, `\\`, `\xhh`, `\n`, `\t` [P2].
//! CloudFront and Akamai percent-encode (`%20`) [F1]; IIS writes a space as `+` [B3]; HAProxy
//! writes `#XX` [H1].

use std::borrow::Cow;

/// An RFC 9110 token character (section 5.6.2): what a method name is made of
/// (`RPC_IN_DATA`, `M-SEARCH`, `BPROPFIND`).
pub fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn owned(bytes: Vec<u8>) -> Cow<'static, str> {
    match String::from_utf8(bytes) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// nginx default and Apache escaping: `\xXX`, plus `\"`, `\\`, `\n`, `\t` (Apache).
pub fn backslash(s: &str) -> Cow<'_, str> {
    if !s.as_bytes().contains(&b'\\') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'x' | b'X' => {
                    match (
                        b.get(i + 2).copied().and_then(hex),
                        b.get(i + 3).copied().and_then(hex),
                    ) {
                        (Some(h), Some(l)) => {
                            out.push(h << 4 | l);
                            i += 4;
                            continue;
                        }
                        _ => out.push(b'\\'),
                    }
                }
                b'"' => {
                    out.push(b'"');
                    i += 2;
                    continue;
                }
                b'\\' => {
                    out.push(b'\\');
                    i += 2;
                    continue;
                }
                b'n' => {
                    out.push(b'\n');
                    i += 2;
                    continue;
                }
                b't' => {
                    out.push(b'\t');
                    i += 2;
                    continue;
                }
                _ => out.push(b'\\'),
            }
            i += 1;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    owned(out)
}

/// RFC 8259 string escapes (nginx `escape=json`), without the surrounding quotes.
pub fn json(s: &str) -> Cow<'_, str> {
    if !s.as_bytes().contains(&b'\\') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let mut plain = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            i += 1;
            continue;
        }
        out.push_str(&s[plain..i]);
        let c = b[i + 1];
        i += 2;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let code = s
                    .get(i..i + 4)
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match code {
                    Some(mut cp) => {
                        i += 4;
                        // A surrogate pair: \uD83D\uDE00.
                        if (0xD800..0xDC00).contains(&cp) && s.get(i..i + 2) == Some("\\u") {
                            if let Some(lo) = s
                                .get(i + 2..i + 6)
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .filter(|lo| (0xDC00..0xE000).contains(lo))
                            {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                i += 6;
                            }
                        }
                        out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                    }
                    None => out.push('\u{FFFD}'),
                }
            }
            other => {
                out.push('\\');
                out.push(other as char);
            }
        }
        plain = i;
    }
    out.push_str(&s[plain.min(s.len())..]);
    Cow::Owned(out)
}

/// Percent-decoding (CloudFront `%20`), optionally `+` as a space (IIS).
pub fn percent(s: &str, plus_is_space: bool) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !(b.contains(&b'%') || (plus_is_space && b.contains(&b'+'))) {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                match (
                    b.get(i + 1).copied().and_then(hex),
                    b.get(i + 2).copied().and_then(hex),
                ) {
                    (Some(h), Some(l)) => {
                        out.push(h << 4 | l);
                        i += 3;
                    }
                    _ => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    owned(out)
}

/// HAProxy's `#XX` escapes in captured headers and the request line [H1].
pub fn hash(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !b.contains(&b'#') {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' {
            if let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            ) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_default_escapes() {
        assert_eq!(backslash("Mozilla \\x22quoted\\x22"), "Mozilla \"quoted\"");
        assert_eq!(backslash("caf\\xC3\\xA9"), "café");
        assert!(matches!(backslash("plain"), Cow::Borrowed(_)));
        assert_eq!(
            backslash("apache \\\"q\\\" \\\\ end\\"),
            "apache \"q\" \\ end\\"
        );
        assert_eq!(backslash("bad \\xZZ"), "bad \\xZZ");
        assert_eq!(backslash("\\x4"), "\\x4");
    }

    #[test]
    fn json_escapes() {
        assert_eq!(
            json(r#"a \"b\" \\ \n \u00e9 \ud83d\ude00"#),
            "a \"b\" \\ \n é 😀"
        );
        assert!(matches!(json("plain"), Cow::Borrowed(_)));
        assert_eq!(json(r"\u12"), "\u{FFFD}12");
        assert_eq!(json("end\\"), "end\\");
    }

    #[test]
    fn percent_and_plus() {
        assert_eq!(
            percent("Mozilla/5.0%20(Windows%20NT%2010.0;", false),
            "Mozilla/5.0 (Windows NT 10.0;"
        );
        assert_eq!(percent("a+b", true), "a b");
        assert_eq!(percent("a+b", false), "a+b");
        assert_eq!(percent("100%", false), "100%");
        assert_eq!(percent("%4", false), "%4");
        assert_eq!(hash("GET /a#20b"), "GET /a b");
    }
}

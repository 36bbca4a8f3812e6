//! Decoding before matching: percent-encoding (names and values) and lenient base64 (bodies
//! that are MIME-wrapped, unpadded or URL-safe).

use base64::engine::{general_purpose, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use std::borrow::Cow;

/// Decode `%XX` escapes and `+` (form encoding) once. Invalid escapes are kept as they are; bytes
/// that are not UTF-8 become U+FFFD.
pub fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|b| b == b'%' || b == b'+') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const URL_SAFE_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

/// Decode base64 the way exporters write it: line breaks and spaces anywhere (MIME wraps at 76
/// columns), padding present or not, the standard or the URL-safe alphabet.
pub fn base64_lenient(text: &str) -> Option<Vec<u8>> {
    let clean: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if clean.contains(['-', '_']) {
        URL_SAFE_LENIENT.decode(clean.as_bytes()).ok()
    } else {
        STANDARD_LENIENT.decode(clean.as_bytes()).ok()
    }
}

/// Standard padded base64, as HAR exporters write it.
pub fn base64_encode(bytes: &[u8]) -> String {
    general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent() {
        assert_eq!(percent_decode("a%20b+c"), "a b c");
        assert_eq!(percent_decode("%2573ignature"), "%73ignature");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert!(matches!(percent_decode("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn base64_variants() {
        let want = b"{\"session\":\"abcdefghijkl\"}".to_vec();
        let padded = base64_encode(&want);
        assert_eq!(base64_lenient(&padded), Some(want.clone()));
        assert_eq!(
            base64_lenient(padded.trim_end_matches('=')),
            Some(want.clone())
        );
        let wrapped: String = padded
            .as_bytes()
            .chunks(8)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\r\n");
        assert_eq!(base64_lenient(&wrapped), Some(want.clone()));
        let url_safe = general_purpose::URL_SAFE_NO_PAD.encode([0xfbu8, 0xff, 0xfe, 0x01]);
        assert_eq!(
            base64_lenient(&url_safe),
            Some(vec![0xfb, 0xff, 0xfe, 0x01])
        );
        assert_eq!(base64_lenient("not base64!"), None);
    }
}

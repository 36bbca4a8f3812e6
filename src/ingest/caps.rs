//! The stated cap of every field ingestion reads, in one table.
//!
//! No single value may cost more memory than its cap: longer values are cut at ingestion (at a
//! character boundary, before redaction and analysis) and the record gets a located warning
//! that names the field and both lengths, never the value. The caps sit far above anything real
//! exporters write (the longest of each field over the shared corpus is noted), so they only
//! ever bite on broken or hostile input.

/// A field and the most bytes of it that are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    pub field: &'static str,
    pub max: usize,
}

/// `startedDateTime`, a log's time field (corpus: 33 bytes).
pub const TIME: Cap = Cap {
    field: "startedDateTime",
    max: 128,
};
/// Request method (corpus: 7).
pub const METHOD: Cap = Cap {
    field: "request.method",
    max: 64,
};
/// Request URL (corpus: 17 KB; `data:` URLs can be long and are still cut here).
pub const URL: Cap = Cap {
    field: "request.url",
    max: 64 * 1024,
};
/// A header name (corpus: 43).
pub const HEADER_NAME: Cap = Cap {
    field: "header name",
    max: 1024,
};
/// A header value, before the per-side storage caps (corpus: 3.7 KB).
pub const HEADER_VALUE: Cap = Cap {
    field: "header value",
    max: 64 * 1024,
};
/// The head of a response body kept for redaction and the excerpt (2xx/3xx bodies are skipped
/// unread; corpus bodies reach 248 KB).
pub const BODY_HEAD: Cap = Cap {
    field: "response.content.text",
    max: super::loose::BODY_HOLD,
};
/// HAR `pageref` (corpus: 37).
pub const PAGEREF: Cap = Cap {
    field: "pageref",
    max: 1024,
};
/// `content.mimeType`, `content.encoding` and other short labels (corpus: 37).
pub const LABEL: Cap = Cap {
    field: "label",
    max: 1024,
};
/// `log.creator.name` / `.version`, `log.version`.
pub const CREATOR: Cap = Cap {
    field: "log.creator",
    max: 256,
};
/// A log's client id, client IP, user agent, request id and similar identity fields.
pub const IDENTITY: Cap = Cap {
    field: "identity field",
    max: 4096,
};
/// Any other string ingestion copies (odd-typed values it reports on).
pub const OTHER: Cap = Cap {
    field: "value",
    max: 64 * 1024,
};

/// Largest HAR entry handed to a worker after bodies are skipped; items of lists beyond it
/// (a million headers) are dropped with a warning.
pub const ENTRY_MAX: usize = 16 * 1024 * 1024;

/// The located warning for a cut value: names the field and the sizes, never the content.
pub fn cut_note(field: &str, len: u64, max: usize) -> String {
    format!("{field} is {len} bytes, longer than the {max}-byte cap; cut to its first {max} bytes")
}

/// `s` cut to at most `max` bytes at a character boundary.
pub fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut k = max;
    while k > 0 && !s.is_char_boundary(k) {
        k -= 1;
    }
    &s[..k]
}

/// Cut `s` to `cap`, noting it in `warns` when it was longer.
pub fn bounded<'s>(s: &'s str, cap: Cap, field: &str, warns: &mut Vec<String>) -> &'s str {
    if s.len() > cap.max {
        warns.push(cut_note(field, s.len() as u64, cap.max));
        return cut(s, cap.max);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_char_boundaries_and_says_so_without_the_value() {
        let mut w = Vec::new();
        let v = "ééé-secret";
        assert_eq!(bounded(v, Cap { field: "x", max: 3 }, "x", &mut w), "é");
        assert_eq!(w.len(), 1);
        assert!(
            !w[0].contains("secret") && w[0].contains("13 bytes"),
            "{}",
            w[0]
        );
        assert_eq!(bounded("short", URL, "request.url", &mut w), "short");
        assert_eq!(w.len(), 1);
    }
}

//! Plain-text helpers for the terminal: display width, word wrapping with a hanging indent,
//! and shortening in the middle (URLs keep their host and their last path segment).
//!
//! Widths are terminal columns (`unicode-width`), not bytes or chars, so `→`, `×` and `…`
//! count as one and wide characters as two.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Terminal columns taken by `s` (no escape sequences expected: colour is added after layout).
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Characters that would move the cursor or start an escape sequence are shown as `?`: an
/// input-derived string (URL, header value) must not repaint the user's terminal.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// The longest prefix of `s` that fits in `max` columns.
fn prefix_fitting(s: &str, max: usize) -> &str {
    let mut w = 0;
    for (i, c) in s.char_indices() {
        let cw = c.width().unwrap_or(0);
        if w + cw > max {
            return &s[..i];
        }
        w += cw;
    }
    s
}

/// The longest suffix of `s` that fits in `max` columns.
fn suffix_fitting(s: &str, max: usize) -> &str {
    let mut w = 0;
    for (i, c) in s.char_indices().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw > max {
            return &s[i + c.len_utf8()..];
        }
        w += cw;
    }
    s
}

/// `s` cut to `max` columns in the middle: two thirds of the room for the head, the rest for
/// the tail, joined by `…`.
pub fn shorten_middle(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let room = max - 1;
    let head = prefix_fitting(s, room - room / 3);
    let tail = suffix_fitting(s, room - width(head));
    format!("{head}…{tail}")
}

/// `s` cut to `max` columns at the end, with `…`.
pub fn shorten_end(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    format!("{}…", prefix_fitting(s, max - 1))
}

/// `s` cut to `max` columns at the start, with `…` (the end is what matters: a location).
pub fn shorten_start(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    format!("…{}", suffix_fitting(s, max - 1))
}

/// A location (`samples/logs/nginx-incident.log:26`, `capture.har entry 47`) cut to `max`
/// columns: the directories shortened in the middle, the file name and line kept whole
/// (`samples/…/nginx-incident.log:26`), so two inputs' locations never read the same. A name
/// that alone does not fit is cut in its middle, keeping its line or entry whole.
pub fn shorten_location(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let split = s.rfind('/').map_or(0, |i| i + 1);
    let name = &s[split..];
    if split > 0 && width(name) + 2 <= max {
        let head = prefix_fitting(&s[..split], max - width(name) - 2);
        return format!("{head}…/{name}");
    }
    let at = name
        .rfind(" entry ")
        .or_else(|| name.rfind(':'))
        .unwrap_or(name.len());
    let (file, at) = name.split_at(at);
    if width(at) + 2 <= max {
        return format!("{}{at}", shorten_middle(file, max - width(at)));
    }
    shorten_start(name, max)
}

/// Pad `s` with spaces to `w` columns (left-aligned or right-aligned).
pub fn pad(s: &str, w: usize, right: bool) -> String {
    let fill = w.saturating_sub(width(s));
    if right {
        format!("{}{s}", " ".repeat(fill))
    } else {
        format!("{s}{}", " ".repeat(fill))
    }
}

/// Units that stay on the line of their number (`0–1 s`, `12 ms`, `50 %`).
const UNITS: &[&str] = &["s", "ms", "min", "h", "%", "KB", "MB", "GB", "B"];

/// The words of `text`, a number and its unit kept together as one word.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split_whitespace() {
        let bare = w.trim_end_matches([',', '.', ';', ':', ')', ']']);
        let after_number = out
            .last()
            .and_then(|p| p.chars().last())
            .is_some_and(|c| c.is_ascii_digit());
        match out.last_mut() {
            Some(prev) if after_number && UNITS.contains(&bare) => {
                prev.push(' ');
                prev.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// Word-wrap `text` to `max` columns. The first line starts with `first`, the others with
/// `rest` (a hanging indent); words longer than a line (URLs) are cut hard.
pub fn wrap(text: &str, max: usize, first: &str, rest: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut line_w = width(first);
    let mut has_word = false;
    let indent_w = width(rest);
    for word in words(text) {
        let word = word.as_str();
        let mut word = word;
        let ww = width(word);
        let sep = usize::from(has_word);
        if has_word && line_w + sep + ww > max {
            lines.push(line);
            line = rest.to_string();
            line_w = indent_w;
            has_word = false;
        }
        // A word wider than a whole line: cut it into line-sized pieces.
        while line_w + usize::from(has_word) + width(word) > max {
            let room = max.saturating_sub(line_w + usize::from(has_word)).max(1);
            let piece = prefix_fitting(word, room);
            let piece = if piece.is_empty() {
                // A wide character that does not fit even alone: take it anyway.
                let end = word
                    .chars()
                    .next()
                    .map(char::len_utf8)
                    .unwrap_or(word.len());
                &word[..end]
            } else {
                piece
            };
            if has_word {
                line.push(' ');
            }
            line.push_str(piece);
            lines.push(line);
            line = rest.to_string();
            line_w = indent_w;
            has_word = false;
            word = &word[piece.len()..];
            if word.is_empty() {
                break;
            }
        }
        if word.is_empty() {
            continue;
        }
        if has_word {
            line.push(' ');
            line_w += 1;
        }
        line.push_str(word);
        line_w += width(word);
        has_word = true;
    }
    if has_word || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_columns_not_bytes() {
        assert_eq!(width("→ × …"), 5);
        assert_eq!(width("日本"), 4);
    }

    #[test]
    fn middle_shortening_keeps_both_ends() {
        let url = "https://api.example.com/v1/customers/202/invoices?page=3";
        let s = shorten_middle(url, 30);
        assert_eq!(width(&s), 30);
        assert!(s.starts_with("https://api.example"), "{s}");
        assert!(s.ends_with("?page=3"), "{s}");
        assert!(s.contains('…'));
        assert_eq!(shorten_middle("short", 30), "short");
        assert_eq!(shorten_middle("abcdef", 1), "…");
    }

    #[test]
    fn end_shortening() {
        assert_eq!(shorten_end("abcdef", 4), "abc…");
        assert_eq!(shorten_end("abc", 4), "abc");
        assert_eq!(shorten_start("samples/x.jsonl:12", 10), "….jsonl:12");
    }

    #[test]
    fn locations_keep_their_file_name_and_line() {
        let a = "samples/incidents/nginx-incident.log:26";
        let b = "samples/incidents/envoy-incident.log:26";
        assert_eq!(shorten_location(a, 32), "samples/i…/nginx-incident.log:26");
        assert_eq!(shorten_location(a, 23), "…/nginx-incident.log:26");
        assert_ne!(shorten_location(a, 14), shorten_location(b, 14));
        assert_eq!(shorten_location(a, 14), "nginx-i…log:26");
        assert_eq!(
            shorten_location("samples/cdn-burst.har entry 47", 16),
            "cdn-…ar entry 47"
        );
        assert_eq!(width(&shorten_location(a, 14)), 14);
        assert_eq!(
            shorten_location("capture.har entry 47", 40),
            "capture.har entry 47"
        );
        assert_eq!(shorten_location("x.log:9", 7), "x.log:9");
    }

    #[test]
    fn wrap_hangs_and_never_exceeds_the_width() {
        let text = "90 of 90 retries to api.example.com came before the previous response's Retry-After had elapsed";
        let lines = wrap(text, 30, "  [critical] ", "      ");
        for l in &lines {
            assert!(width(l) <= 30, "{l:?}");
        }
        assert!(lines[0].starts_with("  [critical] 90"));
        assert!(lines[1].starts_with("      "));
        let joined: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(joined[1..].join(" "), text);
    }

    #[test]
    fn wrap_cuts_words_longer_than_a_line() {
        let long = "x".repeat(50);
        let lines = wrap(&format!("see {long} end"), 20, "", "  ");
        assert!(lines.iter().all(|l| width(l) <= 20), "{lines:?}");
        let total: usize = lines.iter().map(|l| l.matches('x').count()).sum();
        assert_eq!(total, 50);
        assert!(lines.last().unwrap().ends_with("end"));
    }

    #[test]
    fn numbers_keep_their_units() {
        let lines = wrap("Retry-After as minimum + 0–1 s, 30 s deadline", 24, "", "");
        assert_eq!(
            lines,
            vec!["Retry-After as minimum +", "0–1 s, 30 s deadline"]
        );
    }

    #[test]
    fn wrap_of_nothing_is_the_prefix() {
        assert_eq!(wrap("", 20, "- ", "  "), vec!["- ".to_string()]);
    }

    #[test]
    fn control_characters_are_neutralised() {
        assert_eq!(printable("a\u{1b}[31mb\n"), "a?[31mb?");
    }
}

//! Choosing how to read an access log from its first lines: the wrapper (if any), then the
//! group of layouts that reads the most of them, and in it the layout that reads the most
//! exactly. A deviant first line, a second layout in the file, records that are not
//! requests: none of them decides alone, the whole sample does.

use super::format::LogFormat;
use super::wrap::{JsonKind, Wrapper};
use super::{group_layouts, not_a_request, Group, Kind, Parser, Reader};
use crate::ingest::error::{Closest, SourceError};
use crate::ingest::skip::Miss;
use crate::ingest::Format;
use std::sync::Arc;

/// Lines looked at to decide a layout.
const SNIFF_LINES: usize = 20;

/// What the formats were tried as, for the message when none fits.
pub const TRIED: &str = "nginx (combined, main, ingress-nginx upstreaminfo, JSON, key=value), Apache (common, combined, vhost), Envoy (default, Istio, Emissary), AWS ALB and Classic ELB, HAProxy httplog, W3C (CloudFront, IIS), Traefik (CLF, JSON), and the JSON logs of Cloudflare Logpush, Kong, Caddy, Google Cloud load balancing and Envoy Gateway, also inside Docker json-file, CRI, syslog or a log shipper's JSON";

/// The first non-blank lines of a prefix (without a partial last line, `\r` or a BOM).
fn sample_lines(prefix: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(&prefix[..prefix.len().min(64 * 1024)]);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.len() > 1 && !text.ends_with('\n') {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|l| l.trim_end_matches('\r').trim_start_matches('\u{FEFF}'))
        .filter(|l| !l.trim().is_empty())
        .take(SNIFF_LINES * 2)
        .map(str::to_string)
        .collect()
}

/// The lines with `wrapper` removed (a line without it is kept as it is; CRI parts joined),
/// comments (`#...`) and blank ones dropped.
fn inner_lines(lines: &[String], wrapper: Option<Wrapper>) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for l in lines {
        if let Some(w @ Wrapper::Json(JsonKind::Otlp)) = wrapper {
            let mut records = Vec::new();
            if w.each(l, &mut |u| records.push(u.line.into_owned())) {
                out.extend(records.into_iter().filter(|r| !r.trim().is_empty()));
                if out.len() >= SNIFF_LINES {
                    out.truncate(SNIFF_LINES);
                    break;
                }
                continue;
            }
        }
        let inner = match wrapper.and_then(|w| w.unwrap(l)) {
            Some(u) if u.partial => {
                pending.push_str(&u.line);
                continue;
            }
            Some(u) => {
                let mut s = std::mem::take(&mut pending);
                s.push_str(&u.line);
                s
            }
            None => l.clone(),
        };
        if inner.trim().is_empty() || inner.starts_with('#') {
            continue;
        }
        out.push(inner);
        if out.len() == SNIFF_LINES {
            break;
        }
    }
    out
}

/// How well one group reads the sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Score {
    /// Lines some layout of the group reads.
    read: u32,
    /// ... plus lines recognised as records that are not requests.
    covered: u32,
    /// The chosen first layout: lines it reads exactly (nothing left over, a status).
    exact: u32,
    /// ... lines it reads at all.
    first_read: u32,
    /// ... fields it has (the richest of equals).
    richness: u32,
    /// No wrapper (when the lines read the same either way).
    bare: bool,
}

/// What one layout makes of the sample: lines read (bits), read exactly, not requests (bits).
fn trial(p: &Parser, lines: &[String]) -> (u32, u32, u32) {
    let (mut read, mut exact, mut not_req) = (0u32, 0u32, 0u32);
    for (i, l) in lines.iter().enumerate() {
        let mut inexact = false;
        match p.parse_fields(l, &mut |f, trailing| {
            inexact |= trailing || f.status.is_none_or(|s| s == 0);
        }) {
            Ok(()) => {
                read |= 1 << i;
                if !inexact {
                    exact += 1;
                }
            }
            Err(Miss::NotRequest(_)) => not_req |= 1 << i,
            Err(Miss::Unreadable(_)) => {}
        }
    }
    (read, exact, not_req)
}

fn richness(p: &Parser) -> u32 {
    match &p.kind {
        Kind::Text { format, .. } => format.field_count() as u32,
        Kind::Loose(_) => 0,
        _ => 100,
    }
}

/// Layouts of `group` a `--input-format` admits as the first one (`None`: any).
fn admits(hint: Option<Format>, p: &Parser) -> bool {
    match hint {
        None => p.label != super::nginx::APACHE_COMBINED_LABEL,
        Some(Format::W3c | Format::Cloudfront) => p.group() == Group::W3c,
        Some(h) => p.format == h,
    }
}

/// The groups a `--input-format` reads lines of.
fn groups_for(hint: Option<Format>) -> Vec<Group> {
    let all = [
        Group::Elb,
        Group::Haproxy,
        Group::Envoy,
        Group::Clf,
        Group::Kv,
        Group::W3c,
        Group::Json,
    ];
    all.into_iter()
        .filter(|g| {
            hint.is_none()
                || group_layouts(*g).iter().any(|p| admits(hint, p))
                || (*g == Group::Clf
                    && matches!(hint, Some(Format::Nginx | Format::Clf | Format::Traefik)))
        })
        .collect()
}

/// The best first layout of `group` for `lines`, and how well the group reads them.
fn best_in_group(
    group: Group,
    lines: &[String],
    hint: Option<Format>,
    wrapper: Option<Wrapper>,
) -> Option<(Score, Parser)> {
    let mut layouts = group_layouts(group);
    if group == Group::Clf {
        let fmt = hint
            .filter(|h| matches!(h, Format::Nginx | Format::Clf | Format::Traefik))
            .unwrap_or(Format::Nginx);
        layouts.push(Parser::loose(super::Family::Nginx, fmt));
    }
    if group == Group::Envoy {
        layouts.push(Parser::loose(super::Family::Envoy, Format::Envoy));
    }
    let (mut read_any, mut not_req_any) = (0u32, 0u32);
    let mut first: Option<((u32, u32, u32, u32), Parser)> = None;
    for p in layouts {
        let (read, exact, not_req) = trial(&p, lines);
        read_any |= read;
        not_req_any |= not_req;
        // A layout that reads no line but knows them for records that are not requests (an NLB
        // TLS log, an IIS FTP log) can be the first one: a file of such records is read and
        // said to hold no requests, rather than be unknown.
        if read | not_req == 0 || !(admits(hint, &p) || matches!(p.kind, Kind::Loose(_))) {
            continue;
        }
        let key = (exact, read.count_ones(), richness(&p), not_req.count_ones());
        if first.as_ref().is_none_or(|(k, _)| key > *k) {
            first = Some((key, p));
        }
    }
    let ((exact, first_read, richness, _), first) = first?;
    let mut covered = read_any | not_req_any;
    for (i, l) in lines.iter().enumerate() {
        if covered & (1 << i) == 0 && not_a_request(l, wrapper).is_some() {
            covered |= 1 << i;
        }
    }
    Some((
        Score {
            read: read_any.count_ones(),
            covered: covered.count_ones(),
            exact,
            first_read,
            richness,
            bare: wrapper.is_none(),
        },
        first,
    ))
}

/// The wrappers some sample line carries, each once.
fn wrappers_seen(lines: &[String]) -> Vec<Wrapper> {
    let mut v: Vec<Wrapper> = Vec::new();
    for l in lines.iter().take(SNIFF_LINES) {
        if let Some(w) = Wrapper::of_line(l) {
            if !v.contains(&w) {
                v.push(w);
            }
        }
    }
    v
}

/// Decide how to read an input from its first bytes. `hint` = `--input-format` when given.
pub fn sniff_reader(prefix: &[u8], hint: Option<Format>) -> Result<Reader, SourceError> {
    let lines = sample_lines(prefix);
    if lines.is_empty() {
        return Err(SourceError::NoLogLines);
    }
    // W3C logs announce their fields.
    if hint.is_none() || matches!(hint, Some(Format::W3c | Format::Cloudfront)) {
        if let Some(l) = lines.iter().find(|l| l.starts_with("#Fields:")) {
            return match super::w3c::Header::parse(&l["#Fields:".len()..]) {
                Ok(h) => Ok(Reader::new(Parser::w3c(h), None)),
                Err(e) => Err(SourceError::FieldsDirective(e)),
            };
        }
    }
    let mut best: Option<(Score, Parser, Option<Wrapper>)> = None;
    let options = std::iter::once(None).chain(wrappers_seen(&lines).into_iter().map(Some));
    for wrapper in options {
        let inner = inner_lines(&lines, wrapper);
        if inner.is_empty() {
            continue;
        }
        // JSON records are read as JSON (a text layout may find its pattern inside one).
        let json = inner.iter().all(|l| l.trim_start().starts_with('{'));
        for group in groups_for(hint) {
            if json && group != Group::Json {
                continue;
            }
            if let Some((score, first)) = best_in_group(group, &inner, hint, wrapper) {
                if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                    best = Some((score, first, wrapper));
                }
            }
        }
    }
    // Read nothing: chosen only when most sampled lines are records known not to be requests.
    let best = best.filter(|(s, _, _)| s.read > 0 || s.covered as usize * 2 >= lines.len());
    match best {
        Some((_, first, wrapper)) => Ok(Reader::new(first, wrapper)),
        None => Err(match hint {
            Some(f) => SourceError::NoLayoutOf {
                format: f.as_str(),
                closest: Closest::default(),
            },
            None => SourceError::NoLayout {
                tried: TRIED,
                closest: Closest::default(),
            },
        }),
    }
}

/// [`sniff_reader`]'s first layout (tests and one-line callers).
pub fn sniff_layout(prefix: &[u8], hint: Option<Format>) -> Result<Parser, SourceError> {
    sniff_reader(prefix, hint).map(|r| r.first)
}

/// Does a `--log-format` fit this input (at least half its first lines, after a wrapper is
/// removed)? `Some(wrapper)` when it does. Inputs it does not fit are sniffed as usual, so one
/// run can read an nginx log with a custom format and an Envoy log beside it.
pub fn custom_fit(prefix: &[u8], format: &Arc<LogFormat>) -> Option<Option<Wrapper>> {
    let lines = sample_lines(prefix);
    let options = std::iter::once(None).chain(wrappers_seen(&lines).into_iter().map(Some));
    for wrapper in options {
        let inner = inner_lines(&lines, wrapper);
        if inner.is_empty() {
            continue;
        }
        let ok = inner.iter().filter(|l| format.parse(l).is_ok()).count();
        if ok * 2 >= inner.len() {
            return Some(wrapper);
        }
    }
    None
}

/// [`custom_fit`] as a yes or no.
pub fn custom_fits(prefix: &[u8], format: &Arc<LogFormat>) -> bool {
    custom_fit(prefix, format).is_some()
}

/// For the top-level sniffer: the access-log format of a text prefix, if any.
pub fn sniff_text(prefix: &[u8]) -> Result<Format, SourceError> {
    sniff_reader(prefix, None).map(|r| r.first.format)
}

/// For the top-level sniffer: does the input open an OTLP JSON logs export? Its lines are
/// JSON records, read as the access-log lines their records hold; a first line longer than
/// the sniffing prefix is one too.
pub fn opens_otlp_logs(text: &str) -> bool {
    Wrapper::of_line(text) == Some(Wrapper::Json(JsonKind::Otlp))
}

/// For the top-level sniffer: the vendor of a one-line JSON object, if its keys say so.
pub fn sniff_json(first_line: &str) -> Option<Format> {
    super::jsonlogs::Vendor::sniff(first_line).map(|v| v.format())
}

/// For the top-level sniffer, on input whose first line is a JSON object: an access log in
/// JSON (a vendor's, or nginx's variables) or wrapped in JSON records (Docker, a shipper,
/// journald), judged on the first lines rather than the first alone.
pub fn sniff_json_lines(prefix: &[u8]) -> Option<Format> {
    let r = sniff_reader(prefix, None).ok()?;
    let wrapped = r.wrapper.is_some_and(|w| matches!(w, Wrapper::Json(_)));
    let json = wrapped || r.first.group() == Group::Json && json_layouts_read_most(prefix);
    json.then_some(r.first.format)
}

/// Whether the JSON access-log layouts (a vendor's keys, nginx's variables) read at least half
/// of the first lines. A JSON-lines log whose records are mostly of other layouts (a gateway's
/// own record, an ECS one) with some nginx `escape=json` lines among them is JSON lines: the
/// JSON-lines reader reads every one of its layouts, where the access reader would skip most
/// records as not requests.
pub fn json_layouts_read_most(prefix: &[u8]) -> bool {
    let lines = inner_lines(&sample_lines(prefix), None);
    let read = group_layouts(Group::Json)
        .iter()
        .fold(0u32, |acc, p| acc | trial(p, &lines).0);
    !lines.is_empty() && read.count_ones() as usize * 2 >= lines.len()
}

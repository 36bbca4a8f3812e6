//! HTML: one self-contained page to attach to a ticket or open in a browser. Inline CSS and SVG,
//! nothing fetched, no framework; readable without JavaScript (a dozen lines of inline script
//! only make tables sortable). The same content and order as the terminal report, from the same
//! [`verdict`](super::verdict) functions, plus the timeline picture ([`super::svg`]) and the
//! evidence behind every finding and attribution.
//!
//! Every string that came from an input (URLs, header values, body excerpts, page ids, file
//! names) goes through [`esc`]; a Content-Security-Policy allows only this page's own style and
//! script (by hash), so even a missed escape could not run injected script. Size is bounded:
//! the timeline is bucketed, tables are capped with a note.

use super::color::severity_word;
use super::markup::esc;
use super::svg;
use super::verdict::{self, action_words};
use super::Style;
use crate::attribute::{Evidence, Role};
use crate::report::Report;
use base64::Engine;
use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Rate-limited responses listed at most, even with `--all` (the JSON has every one).
pub const MAX_ROWS: usize = 10_000;
/// Groups listed at most.
pub const MAX_GROUPS: usize = 200;
/// Bytes of one finding's evidence shown at most.
pub const MAX_EVIDENCE_BYTES: usize = 16 * 1024;

const CSS: &str = r#"
:root{--fg:#1d2329;--muted:#5b6570;--line:#d8dde3;--bg:#fff;--soft:#f4f6f8;
--critical:#b3261e;--warning:#8a5a00;--info:#1f6f8b;--cdn:#b0389c;--proxy:#3b6fd1;--api:#2e8b57;--unknown:#777}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.2em;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:1.05em;margin:20px 0 6px}
.sub{color:var(--muted);margin:2px 0}
.verdict{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:14px;margin-top:16px}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 14px;background:var(--soft)}
.card.wide{grid-column:1/-1}
.card h2{border:0;margin:0 0 8px;padding:0;font-size:1.05em}
ul{padding-left:20px;margin:6px 0}li{margin:3px 0}
.badge{display:inline-block;font-size:.78em;font-weight:600;padding:1px 7px;border-radius:9px;color:#fff;vertical-align:1px;white-space:nowrap}
.sev-critical{background:var(--critical)}.sev-warning{background:var(--warning)}.sev-info{background:var(--info)}
.layer-cdn{background:var(--cdn)}.layer-proxy{background:var(--proxy)}.layer-api{background:var(--api)}.layer-unknown{background:var(--unknown)}
.kind{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em}
table{border-collapse:collapse;width:100%;font-size:.9em;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.url{word-break:break-all;max-width:420px}
table.sortable th{cursor:pointer}
.plan td:first-child{color:var(--muted);white-space:nowrap;width:9em}
.warn li::marker{content:"! ";color:var(--warning);font-weight:700}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px;overflow:auto;max-height:360px;font-size:.82em;white-space:pre-wrap;word-break:break-all}
details{margin:4px 0}summary{cursor:pointer;color:var(--muted)}
.note{color:var(--muted);font-size:.9em}
figure{margin:8px 0}figcaption{color:var(--muted);font-size:.88em}
.legend span{display:inline-block;margin-right:14px;white-space:nowrap}
.sw{margin-right:4px;vertical-align:-1px}
#timeline{width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
#timeline text{font:11px system-ui,sans-serif;fill:#444}
#timeline .band{font-weight:600}#timeline .break{font-size:18px;fill:#999}
#timeline .frame{fill:none;stroke:#e3e7eb}#timeline .grid{stroke:#eef0f2}
#timeline .flight{fill:none;stroke:#333;stroke-width:1.2}
#timeline .wait{stroke-width:2;stroke-opacity:.55}#timeline .wait.cut{stroke-dasharray:4 2}
#timeline line.retry{stroke:#444;stroke-dasharray:2 2}#timeline circle.retry{fill:#444}
#timeline line.retry.early{stroke:#d0021b}#timeline circle.retry.early{fill:#d0021b}
footer{margin-top:40px;color:var(--muted);font-size:.85em}
"#;

/// Click a header to sort its table (numbers as numbers); the page reads the same without it.
const SCRIPT: &str = r#"
document.querySelectorAll("table.sortable").forEach(function(t){
 t.querySelectorAll("th").forEach(function(th,i){
  th.title="sort";
  th.addEventListener("click",function(){
   var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),up=th.dataset.up!=="1";
   th.dataset.up=up?"1":"0";
   var key=function(r){var c=r.cells[i];var v=c?(c.dataset.v||c.textContent):"";var n=parseFloat(v);return isNaN(n)||!/^[-\d.]/.test(v)?v:n;};
   rows.sort(function(a,c){var x=key(a),y=key(c);var r=(typeof x==="number"&&typeof y==="number")?x-y:String(x).localeCompare(String(y));return up?r:-r;});
   rows.forEach(function(r){b.appendChild(r);});
  });
 });
});
document.body.dataset.ready="1";
"#;

fn hash(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(d)
    )
}

/// A colour square for a legend (SVG, so no inline style attribute is needed under the CSP).
fn swatch(color: &str) -> String {
    format!(
        r#"<svg class="sw" width="11" height="11" aria-hidden="true"><rect width="11" height="11" rx="2" fill="{color}"/></svg>"#
    )
}

fn layer_badge(l: crate::attribute::Layer) -> String {
    format!(r#"<span class="badge layer-{0}">{0}</span>"#, l.as_str())
}

fn who_html(l: crate::attribute::Layer, vendor: Option<&str>) -> String {
    match vendor {
        Some(v) => format!("{} {}", layer_badge(l), esc(v)),
        None => layer_badge(l),
    }
}

fn role_word(r: Role) -> &'static str {
    match r {
        Role::Producer => "producer",
        Role::Path => "path",
        Role::RuledOut => "ruled out",
        Role::Quota => "quota",
        Role::Limit => "limit",
    }
}

fn evidence_list(out: &mut String, ev: &[Evidence]) {
    if ev.is_empty() {
        out.push_str(r#"<p class="note">No evidence beyond the status code.</p>"#);
        return;
    }
    out.push_str("<ul>");
    for e in ev {
        let _ = write!(
            out,
            r#"<li><b>{}</b> <code>{}</code>: {}</li>"#,
            role_word(e.role),
            esc(&e.signal),
            esc(&e.note)
        );
    }
    out.push_str("</ul>");
}

/// HTML's table syntax: numeric cells get the `n` class; cells come escaped (they may hold
/// markup: badges, links).
struct Html<'a> {
    class: &'a str,
}

impl super::markup::Markup for Html<'_> {
    fn head(&self, out: &mut String, columns: &[super::markup::Column<'_>]) {
        let _ = write!(out, r#"<table class="{}"><thead><tr>"#, self.class);
        for (h, n) in columns {
            let _ = write!(out, "<th{}>{h}</th>", numeric_class(*n));
        }
        out.push_str("</tr></thead><tbody>");
    }

    fn row(&self, out: &mut String, cells: &[(&str, bool)]) {
        out.push_str("<tr>");
        for (c, n) in cells {
            let _ = write!(out, "<td{}>{c}</td>", numeric_class(*n));
        }
        out.push_str("</tr>");
    }

    fn foot(&self, out: &mut String) {
        out.push_str("</tbody></table>");
    }
}

fn numeric_class(numeric: bool) -> &'static str {
    if numeric {
        r#" class="n""#
    } else {
        ""
    }
}

/// A table: header cells (`true` = numeric, right-aligned) and rows of already-escaped cells.
fn table(out: &mut String, class: &str, header: &[(&str, bool)], rows: &[Vec<String>]) {
    super::markup::table(out, &Html { class }, header, rows);
}

/// The page: the header, the verdict cards, the timeline, the findings' evidence, the plans,
/// the grouped responses, the top talkers, every response (capped), the inputs; then the shell
/// around them.
pub fn render(report: &Report, style: Style) -> Vec<u8> {
    let mut body = String::with_capacity(256 * 1024);
    let n = report.rate_limited.len();
    let title = format!(
        "toomany report: {n} rate-limited response{} of {} requests",
        if n == 1 { "" } else { "s" },
        report.summary.requests
    );
    let plans = verdict::plans(report);
    let findings = verdict::findings_by_severity(report);
    header(&mut body, report, &title);
    verdict_cards(&mut body, report, &plans, &findings);
    timeline_section(&mut body, report);
    evidence_section(&mut body, &findings);
    plans_section(&mut body, &plans);
    groups_section(&mut body, report);
    talkers_section(&mut body, report);
    responses_section(&mut body, report, style);
    inputs_section(&mut body, report);
    page(report, &title, &body)
}

/// The title, what was read and when, the status counts and any notes on the input.
fn header(body: &mut String, report: &Report, title: &str) {
    let _ = write!(body, "<header><h1>{}</h1>", esc(title));
    let _ = write!(
        body,
        r#"<p class="sub">{}</p>"#,
        esc(&verdict::capture_line(report))
    );
    let windows = verdict::window_lines(report);
    if !windows.is_empty() {
        body.push_str("<ul>");
        for w in &windows {
            let _ = write!(body, "<li>{}</li>", esc(w));
        }
        body.push_str("</ul>");
    }
    let _ = write!(
        body,
        r#"<p class="sub">Status: {}; {}.</p>"#,
        esc(&verdict::status_counts(report)),
        esc(&verdict::clients_line(report))
    );
    for note in [
        verdict::not_counted_note(report),
        verdict::input_problems(report),
        verdict::counted_twice(report),
    ]
    .into_iter()
    .flatten()
    {
        let _ = write!(body, r#"<p class="sub">{}.</p>"#, esc(&note));
    }
    body.push_str("</header>");
}

/// The verdict: who limited you, the plan, the findings (most severe first).
fn verdict_cards(
    body: &mut String,
    report: &Report,
    plans: &[&crate::recommend::Recommendation],
    findings: &[&crate::detect::Finding],
) {
    body.push_str(r#"<section class="verdict" id="verdict">"#);
    who_card(body, report);
    plan_card(body, plans);
    body.push_str(r#"<div class="card wide"><h2>Findings, most severe first</h2>"#);
    if findings.is_empty() {
        body.push_str("<p>None.</p>");
    } else {
        body.push_str("<ul>");
        for f in findings {
            let sev = severity_word(f.severity);
            let _ = write!(
                body,
                r#"<li><span class="badge sev-{sev}">{sev}</span> <span class="kind">{}</span>: {}</li>"#,
                esc(&f.kind),
                esc(&f.summary)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str("</div></section>");
}

fn who_card(body: &mut String, report: &Report) {
    body.push_str(r#"<div class="card"><h2>Who limited you</h2>"#);
    let who = verdict::who_limited(report);
    if who.is_empty() {
        body.push_str("<p>Nobody: no rate-limited response.</p>");
    } else {
        body.push_str("<ul>");
        for h in &who {
            let senders: Vec<String> = h
                .senders
                .iter()
                .map(|s| {
                    let why = s.why();
                    format!(
                        "{} × {}{}",
                        s.count,
                        who_html(s.layer, s.vendor.as_deref()),
                        if why.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", esc(&why))
                        }
                    )
                })
                .collect();
            let _ = write!(
                body,
                "<li><b>{}</b>: {} of {} requests: {}</li>",
                esc(&h.host),
                h.rate_limited,
                h.requests,
                senders.join(", ")
            );
        }
        body.push_str("</ul>");
    }
    body.push_str("</div>");
}

fn plan_card(body: &mut String, plans: &[&crate::recommend::Recommendation]) {
    body.push_str(r#"<div class="card"><h2>The plan</h2>"#);
    if plans.is_empty() {
        body.push_str("<p>None: no rate-limited response (pass --limit for a plan).</p>");
    }
    for r in plans {
        let _ = write!(
            body,
            r#"<p><b>{}</b>: <b>{}</b>"#,
            esc(r.host.as_deref().unwrap_or("all traffic")),
            action_words(r)
        );
        let line = super::recommend::summary_line(r);
        if !line.is_empty() {
            let _ = write!(body, " — {}", esc(&line));
        }
        body.push_str("</p>");
    }
    if !plans.is_empty() {
        body.push_str(
            r##"<p class="note">Arithmetic and warnings: <a href="#plans">below</a>.</p>"##,
        );
    }
    body.push_str("</div>");
}

/// The timeline picture with its legend, or a note when no record has a time.
fn timeline_section(body: &mut String, report: &Report) {
    body.push_str(r#"<section id="timeline-section"><h2>Timeline</h2>"#);
    match svg::timeline(report) {
        Some(picture) => {
            body.push_str("<figure>");
            body.push_str(&picture);
            timeline_legend(body, report);
            body.push_str("</figcaption></figure>");
        }
        None => body.push_str(r#"<p class="note">No record has a time: nothing to draw.</p>"#),
    }
    body.push_str("</section>");
}

fn timeline_legend(body: &mut String, report: &Report) {
    let tl = &report.overview.timeline;
    let other = tl.hosts.last().is_some_and(|h| h == "other hosts");
    body.push_str(r#"<figcaption class="legend">"#);
    for (i, h) in tl.hosts.iter().enumerate() {
        let _ = write!(
            body,
            r#"<span>{}{}</span>"#,
            swatch(svg::host_color(i, tl.hosts.len(), other)),
            esc(h)
        );
    }
    for l in crate::overview::LAYER_ORDER {
        let _ = write!(
            body,
            r#"<span>{}429 from {}</span>"#,
            swatch(svg::layer_color(l)),
            l.as_str()
        );
    }
    let _ = write!(
        body,
        "<br>Bands, top to bottom: requests started per second by host ({} buckets); rate-limited responses by layer; waits — each 429's Retry-After as a line (dashed when it runs past the window), its next attempt as a dot joined to it (red: before the Retry-After had elapsed, dark grey: after); mean requests in flight.",
        esc(&crate::units::fmt_duration_ms(tl.bucket_ms as f64))
    );
    let left = svg::spans_left_out(report);
    if left > 0 {
        let _ = write!(
            body,
            " The waits band shows the first {} rate-limited responses; {left} more are counted in the 429 band.",
            svg::MAX_SPANS
        );
    }
}

/// Each finding with its evidence as JSON (cut at [`MAX_EVIDENCE_BYTES`]).
fn evidence_section(body: &mut String, findings: &[&crate::detect::Finding]) {
    if findings.is_empty() {
        return;
    }
    body.push_str(r#"<section id="findings"><h2>Findings and their evidence</h2>"#);
    for f in findings {
        let sev = severity_word(f.severity);
        let _ = write!(
            body,
            r#"<h3><span class="badge sev-{sev}">{sev}</span> <span class="kind">{}</span></h3><p>{}</p>"#,
            esc(&f.kind),
            esc(&f.summary)
        );
        let mut ev = serde_json::to_string_pretty(&f.evidence).unwrap_or_default();
        let cut = ev.len() > MAX_EVIDENCE_BYTES;
        if cut {
            let mut end = MAX_EVIDENCE_BYTES;
            while !ev.is_char_boundary(end) {
                end -= 1;
            }
            ev.truncate(end);
        }
        let _ = write!(
            body,
            "<details><summary>evidence</summary><pre>{}</pre>{}</details>",
            esc(&ev),
            if cut {
                r#"<p class="note">Cut at 16 KiB; --format json has all of it.</p>"#
            } else {
                ""
            }
        );
    }
    body.push_str("</section>");
}

/// The plans with their arithmetic, warnings and reasons.
fn plans_section(body: &mut String, plans: &[&crate::recommend::Recommendation]) {
    if plans.is_empty() {
        return;
    }
    body.push_str(r#"<section id="plans"><h2>The plan per host, with its arithmetic</h2>"#);
    for r in plans {
        let _ = write!(
            body,
            "<h3>Recommendation{}: {} <code>{}</code></h3>",
            esc(&super::recommend::for_host(r)),
            action_words(r),
            r.action.as_str()
        );
        body.push_str(r#"<table class="plan"><tbody>"#);
        for (label, value) in super::recommend::key_lines(r) {
            let _ = write!(body, "<tr><td>{label}</td><td>{}</td></tr>", esc(&value));
        }
        body.push_str("</tbody></table>");
        list(body, r#"<ul class="warn">"#, "</ul>", &r.warnings);
        if !r.rationale.is_empty() {
            body.push_str("<p><b>Why</b></p>");
        }
        list(body, "<ol>", "</ol>", &r.rationale);
    }
    body.push_str("</section>");
}

/// Escaped list items between `open` and `close`; nothing for no items.
fn list(body: &mut String, open: &str, close: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    body.push_str(open);
    for item in items {
        let _ = write!(body, "<li>{}</li>", esc(item));
    }
    body.push_str(close);
}

/// Rate-limited responses grouped by host, layer, vendor and quota (capped at [`MAX_GROUPS`]),
/// each with an example and its evidence.
fn groups_section(body: &mut String, report: &Report) {
    let groups = verdict::groups(report);
    if groups.is_empty() {
        return;
    }
    body.push_str(
        r#"<section id="groups"><h2>Rate-limited responses by host, layer, vendor and quota</h2>"#,
    );
    let rows: Vec<Vec<String>> = groups
        .iter()
        .take(MAX_GROUPS)
        .map(|g| {
            let mut ex = String::new();
            let _ = write!(
                ex,
                "<details><summary>{}</summary><p class=\"url\">{} {}</p>",
                esc(&verdict::location(&g.exemplar.source, g.exemplar.position)),
                esc(&g.exemplar.method),
                esc(verdict::url_shown(&g.exemplar.url))
            );
            evidence_list(&mut ex, &g.exemplar.attribution.evidence);
            ex.push_str("</details>");
            vec![
                esc(&g.host),
                who_html(g.layer, g.vendor.as_deref()),
                g.quota.as_str().to_string(),
                g.count.to_string(),
                esc(&verdict::short_range(g.first, g.last)),
                format!("{:.0} %", g.confidence * 100.0),
                esc(&g.retry_after.join(", ")),
                ex,
            ]
        })
        .collect();
    table(
        body,
        "sortable",
        &[
            ("host", false),
            ("sent by", false),
            ("quota", false),
            ("count", true),
            ("first–last", false),
            ("confidence", true),
            ("retry-after", false),
            ("example (click for its evidence)", false),
        ],
        &rows,
    );
    if groups.len() > MAX_GROUPS {
        let _ = write!(
            body,
            r#"<p class="note">{} more groups not shown; --format json has every response.</p>"#,
            groups.len() - MAX_GROUPS
        );
    }
    body.push_str("</section>");
}

/// The busiest clients and, when any request carried one, credentials.
fn talkers_section(body: &mut String, report: &Report) {
    let c = &report.clients;
    if c.list.is_empty() {
        return;
    }
    let _ = write!(
        body,
        r#"<section id="talkers"><h2>Top talkers</h2><h3>Clients ({} of {}, busiest first)</h3><p class="note">{}</p>"#,
        c.list.len(),
        c.count,
        esc(&c.rule)
    );
    let rows: Vec<Vec<String>> = c
        .list
        .iter()
        .map(|row| {
            vec![
                esc(&row.label),
                row.requests.to_string(),
                row.rate_limited.to_string(),
                verdict::percent(row.rate_limited, row.requests),
                esc(&row
                    .credentials
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")),
                esc(&verdict::short_range(row.first, row.last)),
            ]
        })
        .collect();
    table(
        body,
        "sortable",
        &[
            ("client", false),
            ("requests", true),
            ("429s", true),
            ("limited", true),
            ("credentials", false),
            ("first–last", false),
        ],
        &rows,
    );
    credentials_table(body, report);
    body.push_str("</section>");
}

fn credentials_table(body: &mut String, report: &Report) {
    let ov = &report.overview;
    if ov.credentials.is_empty() {
        return;
    }
    let _ = write!(
        body,
        "<h3>Credentials ({} of {}, by keyed fingerprint, busiest first)</h3>",
        ov.credentials.len(),
        ov.credential_count
    );
    let rows: Vec<Vec<String>> = ov
        .credentials
        .iter()
        .map(|row| {
            vec![
                esc(&row.fingerprint),
                row.requests.to_string(),
                row.rate_limited.to_string(),
                row.clients.to_string(),
                esc(&verdict::short_range(row.first, row.last)),
            ]
        })
        .collect();
    table(
        body,
        "sortable",
        &[
            ("credential", false),
            ("requests", true),
            ("429s", true),
            ("clients", true),
            ("first–last", false),
        ],
        &rows,
    );
}

/// Every rate-limited response, up to `--all`'s [`MAX_ROWS`] (else the style's rows).
fn responses_section(body: &mut String, report: &Report, style: Style) {
    let n = report.rate_limited.len();
    if n == 0 {
        return;
    }
    let shown = style.max_rows.unwrap_or(usize::MAX).min(MAX_ROWS).min(n);
    let with_date = verdict::spans_days(report);
    let _ = write!(
        body,
        r#"<section id="responses"><h2>Rate-limited responses ({})</h2>"#,
        if shown < n {
            format!("first {shown} of {n}")
        } else {
            n.to_string()
        }
    );
    let rows: Vec<Vec<String>> = report
        .rate_limited
        .iter()
        .take(shown)
        .map(|r| {
            let a = &r.attribution;
            vec![
                esc(&verdict::time_of(r.time, with_date)),
                esc(&r.method),
                format!(
                    r#"<span class="url">{}</span>"#,
                    esc(verdict::url_shown(&r.url))
                ),
                r.status.to_string(),
                who_html(a.layer, a.vendor.as_deref()),
                a.quota.as_str().to_string(),
                format!("{:.0} %", a.confidence * 100.0),
                esc(&verdict::retry_after_text(&r.retry_after)),
                esc(&verdict::location(&r.source, r.position)),
            ]
        })
        .collect();
    table(
        body,
        "sortable",
        &[
            ("time (UTC)", false),
            ("method", false),
            ("url", false),
            ("status", true),
            ("sent by", false),
            ("quota", false),
            ("confidence", true),
            ("retry-after", false),
            ("where", false),
        ],
        &rows,
    );
    if let Some(note) =
        verdict::where_note(report.rate_limited.iter().take(shown).map(|r| r.position))
    {
        let _ = write!(body, r#"<p class="note">{}</p>"#, esc(note));
    }
    if shown < n {
        let _ = write!(
            body,
            r#"<p class="note">{} more not shown (--all lists up to {MAX_ROWS}; --format json always has every one).</p>"#,
            n - shown
        );
    }
    body.push_str("</section>");
}

/// The inputs read, with their counts and problems; then the footer.
fn inputs_section(body: &mut String, report: &Report) {
    body.push_str(r#"<section id="inputs"><h2>Inputs</h2>"#);
    let rows: Vec<Vec<String>> = report
        .inputs
        .iter()
        .map(|i| {
            vec![
                esc(&i.source),
                esc(&i.format_label()),
                i.records.to_string(),
                i.skipped.to_string(),
                i.warning_count.to_string(),
                esc(i.problem().unwrap_or("")),
            ]
        })
        .collect();
    table(
        body,
        "",
        &[
            ("input", false),
            ("format", false),
            ("records", true),
            ("skipped", true),
            ("warnings", true),
            ("problem", false),
        ],
        &rows,
    );
    body.push_str("</section>");
    let _ = write!(
        body,
        "<footer>{} · report schema {} · secrets were redacted on ingestion; credentials appear only as keyed fingerprints.</footer>",
        esc(&report.generated_by),
        report.schema_version
    );
}

/// The document around `body`: the policy that admits only this page's style and script.
fn page(report: &Report, title: &str, body: &str) -> Vec<u8> {
    let mut out = String::with_capacity(body.len() + CSS.len() + SCRIPT.len() + 1024);
    let _ = write!(
        out,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src {}; script-src {}; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{}">
<title>{}</title>
<style>{CSS}</style>
</head><body><main>
"#,
        hash(CSS),
        hash(SCRIPT),
        esc(&report.generated_by),
        esc(title)
    );
    out.push_str(body);
    let _ = write!(out, "\n</main><script>{SCRIPT}</script></body></html>\n");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            esc(r#""><img src=x onerror='alert(1)'>&"#),
            "&quot;&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;&amp;"
        );
        assert_eq!(esc("a\u{1b}b\u{0}c\td"), "a\u{fffd}b\u{fffd}c\td");
    }

    #[test]
    fn hashes_are_csp_sources() {
        let h = hash("x");
        assert!(h.starts_with("'sha256-") && h.ends_with("='"), "{h}");
    }
}

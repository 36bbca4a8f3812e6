//! The timeline picture of the HTML report, as inline SVG (no script, no fetched asset).
//!
//! Four bands share one time axis, one panel per capture window (inputs far apart in time are
//! drawn side by side with a break, not as one long empty axis):
//! 1. requests started per second, stacked by host (the overview's buckets);
//! 2. rate-limited responses per bucket, stacked by layer (cdn, proxy, api, unknown);
//! 3. waits: each 429's Retry-After drawn as a span from the response, and the client's next
//!    attempt at the same operation as a dot joined to it — red when it came before the
//!    Retry-After had elapsed, dark grey when it waited (at most [`MAX_SPANS`] of them);
//! 4. requests in flight (mean per bucket).
//!
//! Every element has a `<title>` for hover text; size is bounded by the overview's bucket cap.

use super::markup::esc;
use crate::attribute::Layer;
use crate::overview::{layer_slot, Overview, LAYER_ORDER};
use crate::report::Report;
use crate::units::{fmt_duration_ms, fmt_num};
use chrono::{DateTime, TimeZone, Utc};
use std::fmt::Write;

/// Retry-After spans and retry links drawn at most (the earliest ones).
pub const MAX_SPANS: usize = 400;

/// Series colours for hosts (the last series is "other hosts" when there are more).
pub const HOST_COLORS: [&str; 7] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
];
const OTHER_COLOR: &str = "#bab0ac";

pub fn layer_color(l: Layer) -> &'static str {
    match l {
        Layer::Cdn => "#b0389c",
        Layer::Proxy => "#3b6fd1",
        Layer::Api => "#2e8b57",
        Layer::Unknown => "#888888",
    }
}

pub fn host_color(i: usize, n: usize, other: bool) -> &'static str {
    if other && i + 1 == n {
        OTHER_COLOR
    } else {
        HOST_COLORS[i % HOST_COLORS.len()]
    }
}

const W: f64 = 1000.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const GAP: f64 = 28.0;
const TOP: f64 = 18.0;
const RATE_H: f64 = 150.0;
const LIMITED_H: f64 = 40.0;
const WAITS_H: f64 = 84.0;
const FLIGHT_H: f64 = 50.0;
const BAND_GAP: f64 = 16.0;
const AXIS_H: f64 = 34.0;
const WAIT_LANES: usize = 12;

struct Panel {
    x0: f64,
    /// Pixels per bucket.
    bw: f64,
    /// Start of the first bucket, ms.
    origin: i64,
    /// End of the last bucket, ms.
    end: i64,
    /// Range of the window's buckets in the overview.
    from: usize,
    to: usize,
}

impl Panel {
    fn x(&self, t_ms: i64, bucket_ms: i64) -> f64 {
        self.x0 + (t_ms - self.origin) as f64 / bucket_ms as f64 * self.bw
    }
}

fn panels(ov: &Overview) -> Vec<Panel> {
    let tl = &ov.timeline;
    let nw = ov.windows.len();
    let total = tl.buckets.len().max(1) as f64;
    let plot = W - LEFT - RIGHT - GAP * nw.saturating_sub(1) as f64;
    let mut out = Vec::with_capacity(nw);
    let mut x0 = LEFT;
    let mut i = 0;
    for wi in 0..nw {
        let from = i;
        while i < tl.buckets.len() && tl.buckets[i].window == wi {
            i += 1;
        }
        let n = (i - from).max(1);
        let width = plot * n as f64 / total;
        let origin = tl.buckets.get(from).map(|b| b.start_ms).unwrap_or(0);
        out.push(Panel {
            x0,
            bw: width / n as f64,
            origin,
            end: origin + n as i64 * tl.bucket_ms,
            from,
            to: i,
        });
        x0 += width + GAP;
    }
    out
}

/// A round number at or above `x` for an axis maximum (1, 2, 5 × 10^k).
fn nice_max(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= x {
            return m * p;
        }
    }
    10.0 * p
}

/// `14:02:05`, with tenths when the buckets are shorter than a second, and the date when the
/// report spans days.
fn time_label(ms: i64, with_date: bool, sub_second: bool) -> String {
    let t: DateTime<Utc> = Utc
        .timestamp_millis_opt(ms)
        .single()
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let mut f = String::new();
    if with_date {
        f.push_str("%m-%d ");
    }
    f.push_str(if sub_second {
        "%H:%M:%S%.3f"
    } else {
        "%H:%M:%S"
    });
    t.format(&f).to_string()
}

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// Where the bands sit and how they are scaled, and how times are labelled: what every step
/// of the drawing reads.
struct Frame<'a> {
    tl: &'a crate::overview::Timeline,
    bucket_s: f64,
    y_rate: f64,
    y_lim: f64,
    y_wait: f64,
    y_flight: f64,
    y_axis: f64,
    rate_top: f64,
    max_lim: f64,
    max_flight: f64,
    flight_top: f64,
    series: usize,
    other: bool,
    with_date: bool,
    sub: bool,
}

impl<'a> Frame<'a> {
    fn new(report: &'a Report) -> Frame<'a> {
        let tl = &report.overview.timeline;
        let bucket_s = tl.bucket_ms as f64 / 1000.0;
        let y_rate = TOP;
        let y_lim = y_rate + RATE_H + BAND_GAP;
        let y_wait = y_lim + LIMITED_H + BAND_GAP;
        let y_flight = y_wait + WAITS_H + BAND_GAP;
        let max_rate = tl
            .buckets
            .iter()
            .map(|b| b.starts.iter().sum::<u32>() as f64 / bucket_s)
            .fold(0.0, f64::max);
        let max_lim = tl
            .buckets
            .iter()
            .map(|b| b.limited.iter().sum::<u32>())
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let max_flight = tl.buckets.iter().map(|b| b.in_flight).fold(0.0, f64::max);
        Frame {
            tl,
            bucket_s,
            y_rate,
            y_lim,
            y_wait,
            y_flight,
            y_axis: y_flight + FLIGHT_H,
            rate_top: nice_max(max_rate),
            max_lim,
            max_flight,
            flight_top: nice_max(max_flight.max(1.0)),
            series: tl.hosts.len(),
            other: tl.hosts.last().is_some_and(|h| h == "other hosts"),
            with_date: super::verdict::spans_days(report),
            sub: tl.bucket_ms < 1000,
        }
    }

    fn label(&self, ms: i64) -> String {
        time_label(ms, self.with_date, self.sub)
    }
}

/// The timeline as an `<svg>` element, or None when no record had a time.
pub fn timeline(report: &Report) -> Option<String> {
    let tl = &report.overview.timeline;
    if tl.buckets.is_empty() || tl.bucket_ms <= 0 {
        return None;
    }
    let ps = panels(&report.overview);
    let f = Frame::new(report);
    let h = f.y_axis + AXIS_H;
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        r#"<svg id="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {h}" role="img" aria-labelledby="timeline-title"><title id="timeline-title">Timeline: requests per second by host, rate-limited responses by layer, Retry-After waits and retries, requests in flight ({} buckets)</title>"#,
        fmt_duration_ms(tl.bucket_ms as f64)
    );
    band_labels(&mut s, &f);
    for (wi, p) in ps.iter().enumerate() {
        let width = (p.to - p.from).max(1) as f64 * p.bw;
        frames(&mut s, &f, p, width);
        bars_and_flight(&mut s, &f, p);
        axis(&mut s, &f, p, width, ps.get(wi + 1));
    }
    waits(&mut s, &f, &ps, report);
    s.push_str("</svg>");
    Some(s)
}

/// Band labels and y scales.
fn band_labels(s: &mut String, f: &Frame) {
    for (y, label, top) in [
        (f.y_rate, "requests/s", format!("{}/s", fmt_num(f.rate_top))),
        (f.y_lim, "429s", fmt_num(f.max_lim)),
        (f.y_wait, "waits", String::new()),
        (f.y_flight, "in flight", fmt_num(f.flight_top)),
    ] {
        let _ = write!(
            s,
            r#"<text class="band" x="4" y="{:.1}">{label}</text><text class="scale" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            y + 12.0,
            LEFT - 4.0,
            y + 26.0,
            esc(&top)
        );
    }
}

/// One panel's band frames.
fn frames(s: &mut String, f: &Frame, p: &Panel, width: f64) {
    for (y, height) in [
        (f.y_rate, RATE_H),
        (f.y_lim, LIMITED_H),
        (f.y_wait, WAITS_H),
        (f.y_flight, FLIGHT_H),
    ] {
        let _ = write!(
            s,
            r#"<rect class="frame" x="{:.1}" y="{y:.1}" width="{width:.1}" height="{height:.1}"/>"#,
            p.x0
        );
    }
}

/// Bands 1 (starts per second, stacked by host), 2 (429s, stacked by layer) and 4 (requests in
/// flight) of one panel.
fn bars_and_flight(s: &mut String, f: &Frame, p: &Panel) {
    let tl = f.tl;
    let mut flight_points: Vec<String> = Vec::with_capacity(p.to - p.from);
    for (k, b) in tl.buckets[p.from..p.to].iter().enumerate() {
        let x = p.x0 + k as f64 * p.bw;
        let bw = (p.bw - 0.3).max(0.3);
        let mut y = f.y_rate + RATE_H;
        for (hi, &n) in b.starts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let hgt = n as f64 / f.bucket_s / f.rate_top * RATE_H;
            y -= hgt;
            let _ = write!(
                s,
                r#"<rect x="{x:.2}" y="{y:.2}" width="{bw:.2}" height="{hgt:.2}" fill="{}"><title>{}: {} started at {} ({}/s)</title></rect>"#,
                host_color(hi, f.series, f.other),
                esc(&tl.hosts[hi]),
                n,
                f.label(b.start_ms),
                fmt_num((n as f64 / f.bucket_s * 10.0).round() / 10.0)
            );
        }
        let mut y = f.y_lim + LIMITED_H;
        for l in LAYER_ORDER {
            let n = b.limited[layer_slot(l)];
            if n == 0 {
                continue;
            }
            let hgt = n as f64 / f.max_lim * LIMITED_H;
            y -= hgt;
            let _ = write!(
                s,
                r#"<rect x="{x:.2}" y="{y:.2}" width="{bw:.2}" height="{hgt:.2}" fill="{}"><title>{n} rate-limited by {} at {}</title></rect>"#,
                layer_color(l),
                l.as_str(),
                f.label(b.start_ms)
            );
        }
        flight_points.push(format!(
            "{:.2},{:.2}",
            x + p.bw / 2.0,
            f.y_flight + FLIGHT_H - (b.in_flight / f.flight_top * FLIGHT_H).min(FLIGHT_H)
        ));
    }
    if !flight_points.is_empty() {
        let _ = write!(
            s,
            r#"<polyline class="flight" points="{}"><title>mean requests in flight per {} (peak {})</title></polyline>"#,
            flight_points.join(" "),
            fmt_duration_ms(tl.bucket_ms as f64),
            fmt_num((f.max_flight * 100.0).round() / 100.0)
        );
    }
}

/// Axis: start and end of the window, a few ticks between, and a break label before the next
/// window.
fn axis(s: &mut String, f: &Frame, p: &Panel, width: f64, next: Option<&Panel>) {
    let (y_rate, y_axis) = (f.y_rate, f.y_axis);
    let _ = write!(
        s,
        r#"<text class="tick" x="{:.1}" y="{:.1}">{}</text>"#,
        p.x0,
        y_axis + 14.0,
        f.label(p.origin)
    );
    // The end label only where it cannot run into the start label.
    if width >= 150.0 {
        let _ = write!(
            s,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            p.x0 + width,
            y_axis + 28.0,
            f.label(p.end)
        );
    }
    let ticks = (width / 160.0).floor() as i64;
    for k in 1..ticks {
        let t = p.origin + (p.end - p.origin) * k / ticks;
        let x = p.x(t, f.tl.bucket_ms);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{x:.1}" y1="{y_rate:.1}" x2="{x:.1}" y2="{y_axis:.1}"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y_axis + 14.0,
            f.label(t)
        );
    }
    if let Some(next) = next {
        let gap_ms = next.origin - p.end;
        let _ = write!(
            s,
            r#"<text class="break" x="{:.1}" y="{:.1}" text-anchor="middle">⋯<title>{} without requests</title></text>"#,
            p.x0 + width + GAP / 2.0,
            y_rate + RATE_H / 2.0,
            fmt_duration_ms(gap_ms as f64)
        );
    }
}

/// Band 3: the Retry-After spans and the next attempts, of the first [`MAX_SPANS`] responses.
fn waits(s: &mut String, f: &Frame, ps: &[Panel], report: &Report) {
    let mut drawn = 0;
    for r in report.rate_limited.iter() {
        if drawn >= MAX_SPANS {
            break;
        }
        let Some(t) = r.time.map(ms) else { continue };
        let Some(p) = ps.iter().find(|p| t >= p.origin && t < p.end) else {
            continue;
        };
        let lane = drawn % WAIT_LANES;
        let y = f.y_wait + 6.0 + lane as f64 * (WAITS_H - 12.0) / (WAIT_LANES - 1) as f64;
        let next = r.next_attempt.map(ms);
        wait(s, f, p, &r, (t, y), next);
        drawn += 1;
    }
}

/// One rate-limited response at `(t, y)`: its Retry-After span, its dot, and the line to its
/// next attempt.
fn wait(
    s: &mut String,
    f: &Frame,
    p: &Panel,
    r: &crate::report::RateLimited,
    (t, y): (i64, f64),
    next: Option<i64>,
) {
    let x = p.x(t, f.tl.bucket_ms);
    let color = layer_color(r.attribution.layer);
    let ra_ms = r
        .retry_after
        .seconds
        .filter(|s| s.is_finite())
        .map(|s| (s * 1000.0) as i64);
    if let Some(ra) = ra_ms {
        let end = t.saturating_add(ra);
        let cut = end > p.end;
        let x2 = p.x(end.min(p.end), f.tl.bucket_ms).max(x + 1.0);
        let _ = write!(
            s,
            r#"<line class="wait{}" x1="{x:.2}" y1="{y:.2}" x2="{x2:.2}" y2="{y:.2}" stroke="{color}"><title>Retry-After {} from {} ({}){}</title></line>"#,
            if cut { " cut" } else { "" },
            esc(&super::verdict::retry_after_text(&r.retry_after)),
            f.label(t),
            esc(&super::verdict::location(&r.source, r.position)),
            if cut {
                ": goes on past this window"
            } else {
                ""
            }
        );
    }
    let _ = write!(
        s,
        r#"<circle cx="{x:.2}" cy="{y:.2}" r="2.2" fill="{color}"><title>{} {} at {}</title></circle>"#,
        r.status,
        r.attribution.layer.as_str(),
        f.label(t)
    );
    let Some(next) = next.filter(|&n| n < p.end) else {
        return;
    };
    let early = ra_ms.is_some_and(|ra| next - t < ra);
    let x2 = p.x(next, f.tl.bucket_ms);
    let class = if early { "retry early" } else { "retry" };
    let _ = write!(
        s,
        r#"<line class="{class}" x1="{x:.2}" y1="{y:.2}" x2="{x2:.2}" y2="{y:.2}"/><circle class="{class}" cx="{x2:.2}" cy="{y:.2}" r="2.2"><title>next attempt {} later{}</title></circle>"#,
        fmt_duration_ms((next - t) as f64),
        if early {
            ", before the Retry-After had elapsed"
        } else {
            ""
        }
    );
}

/// How many rate-limited responses the waits band leaves out.
pub fn spans_left_out(report: &Report) -> usize {
    report.rate_limited.len().saturating_sub(MAX_SPANS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_maxima_are_round() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(40.7), 50.0);
        assert_eq!(nice_max(100.0), 100.0);
        assert_eq!(nice_max(0.15), 0.2);
    }
}

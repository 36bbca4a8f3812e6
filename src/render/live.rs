//! The screen of `analyze --follow` on a terminal: one [`View`] as lines fitting the
//! terminal's width and height. The last minute and the last 10 minutes side by side when
//! there is room (80 columns and more), one above the other otherwise. No colour (so
//! `NO_COLOR` has nothing to turn off); host names are made printable before they are shown.

use super::text::{pad, printable, shorten_end, shorten_start, width};
use crate::analyze::live::{now::LivePlan, HostCounts, Span, View};

/// Narrowest column of one span.
const MIN_COLUMN: usize = 30;
/// Between the two columns.
const GAP: &str = " │ ";

/// The screen for `view`: `moves` rotations/truncations met, the latest `notes`, fitted to
/// `cols` × `rows` (at least one line per row of the terminal, never more).
pub fn render(view: &View, moves: u32, notes: &[String], cols: usize, rows: usize) -> Vec<String> {
    let cols = cols.max(20);
    let mut head = vec![
        format!(
            "toomany --follow   {}   Ctrl-C: stop and print the full report",
            view.at
        ),
        format!(
            "read {} records, {} rate-limited{}{}; 429s: {}",
            view.total.requests,
            view.total.rate_limited,
            if view.before_span > 0 {
                format!(" ({} older than 10 min when read)", view.before_span)
            } else {
                String::new()
            },
            if moves > 0 {
                format!("; {moves} rotations")
            } else {
                String::new()
            },
            view.trend.as_str()
        ),
        String::new(),
    ];
    let foot: Vec<String> = notes.iter().map(|n| printable(n)).collect();
    let more = below(view);
    let room = rows
        .saturating_sub(head.len() + foot.len() + more.len())
        .max(4);
    let body = if cols >= 2 * MIN_COLUMN + width(GAP) {
        let w = (cols - width(GAP)) / 2;
        let a = span_lines(&view.last_minute, "last minute", w, room);
        let b = span_lines(&view.last_10_minutes, "last 10 minutes", w, room);
        a.iter()
            .zip(&b)
            .map(|(l, r)| format!("{}{GAP}{r}", pad(l, w, false)))
            .collect()
    } else {
        let half = (room / 2).max(4);
        let mut v = span_lines(&view.last_minute, "last minute", cols, half);
        v.extend(span_lines(
            &view.last_10_minutes,
            "last 10 minutes",
            cols,
            half,
        ));
        v
    };
    head.extend(body);
    head.extend(more);
    head.extend(foot);
    head.truncate(rows.max(1));
    head.into_iter().map(|l| shorten_end(&l, cols)).collect()
}

/// Below the spans: who sent the 429s of the busiest hosts (last 10 minutes), the findings
/// active now, and the plan for the worst host.
fn below(view: &View) -> Vec<String> {
    let mut out = Vec::new();
    let limited: Vec<&HostCounts> = view
        .last_10_minutes
        .hosts
        .iter()
        .filter(|h| h.rate_limited > 0)
        .take(SENT_BY_HOSTS)
        .collect();
    if !limited.is_empty() {
        out.push(String::new());
        out.push("429s sent by (last 10 minutes):".into());
        for h in limited {
            out.push(format!("  {}: {}", printable(&h.host), sent_by(h)));
        }
    }
    out.push(String::new());
    if view.active.is_empty() {
        out.push("active now: no burst, retry storm or shared credential".into());
    } else {
        out.push("active now:".into());
        for a in &view.active {
            let kind = a.kind.replace('_', " ");
            out.push(format!("  {kind} {}: {}", printable(&a.subject), a.says));
        }
    }
    if let Some(p) = &view.plan {
        out.push(format!("plan for {}: {}", printable(&p.host), plan_line(p)));
        if let Some(l) = &p.limit {
            out.push(format!("  {}", printable(l)));
        }
    }
    out
}

/// Hosts whose producers are listed below the spans.
const SENT_BY_HOSTS: usize = 3;

/// `cdn cloudflare 80, api 10`.
fn sent_by(h: &HostCounts) -> String {
    if h.sent_by.is_empty() {
        return "(not attributed)".into();
    }
    h.sent_by
        .iter()
        .map(|p| match &p.vendor {
            Some(v) => format!("{} {} {}", p.layer, printable(v), p.rate_limited),
            None => format!("{} {}", p.layer, p.rate_limited),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `slow down to 1.5/s (90/min), 3 in flight`.
fn plan_line(p: &LivePlan) -> String {
    let mut s = p.action.replace('_', " ");
    if let (Some(ps), Some(pm)) = (p.rate_per_second, p.rate_per_minute) {
        s += &format!(
            " to {}/s ({}/min)",
            crate::units::fmt_num(ps),
            crate::units::fmt_num(pm)
        );
    }
    if let Some(c) = p.concurrency {
        s += &format!(", {c} in flight");
    }
    if let Some(t) = &p.resume_at {
        s += &format!(", back at {t}");
    }
    s
}

/// One span as at most `rows` lines of `w` columns, padded to exactly `rows`.
fn span_lines(s: &Span, title: &str, w: usize, rows: usize) -> Vec<String> {
    let mut out = vec![
        format!(
            "{title}: {} requests, {} rate-limited ({:.1} %)",
            s.requests,
            s.rate_limited,
            s.rate_limited_share * 100.0
        ),
        format!(
            "{}{}{}",
            pad("host", w.saturating_sub(20), false),
            pad("429s", 9, true),
            pad("requests", 11, true)
        ),
    ];
    let host_w = w.saturating_sub(20).max(8);
    let listed = rows.saturating_sub(out.len() + 1);
    for h in s.hosts.iter().take(listed) {
        let name = shorten_start(&printable(&h.host), host_w.saturating_sub(1));
        out.push(format!(
            "{}{}{}",
            pad(&name, host_w, false),
            pad(&h.rate_limited.to_string(), 9, true),
            pad(&h.requests.to_string(), 11, true)
        ));
    }
    let more = s.more_hosts + s.hosts.len().saturating_sub(listed);
    if more > 0 {
        out.push(format!("… and {more} more hosts"));
    }
    if s.hosts.is_empty() {
        out.push("(nothing read in this span)".into());
    }
    out.truncate(rows);
    out.resize(rows, String::new());
    out.into_iter().map(|l| shorten_end(&l, w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::live::now::Active;
    use crate::analyze::live::{Counts, ProducerCount, Trend};

    fn span(hosts: &[(&str, u64, u64)]) -> Span {
        Span {
            seconds: 60,
            requests: hosts.iter().map(|h| h.2).sum(),
            rate_limited: hosts.iter().map(|h| h.1).sum(),
            rate_limited_share: 0.25,
            hosts: hosts
                .iter()
                .map(|&(host, rate_limited, requests)| HostCounts {
                    host: host.into(),
                    requests,
                    rate_limited,
                    retries: 0,
                    sent_by: vec![ProducerCount {
                        layer: "cdn",
                        vendor: Some("cloudflare".into()),
                        rate_limited,
                    }],
                })
                .collect(),
            more_hosts: 0,
        }
    }

    fn view() -> View {
        View {
            kind: "interval",
            at: "2027-01-15T08:00:00Z".into(),
            last_minute: span(&[("api.example.com", 40, 160)]),
            last_10_minutes: span(&[
                ("api.example.com", 90, 900),
                ("cdn.example.net\x1b[2J", 3, 40),
            ]),
            trend: Trend::Rising,
            active: vec![Active {
                kind: "burst",
                subject: "api.example.com".into(),
                says: "300 requests in the last 10 s".into(),
            }],
            plan: Some(LivePlan {
                host: "api.example.com".into(),
                action: "slow_down",
                rate_per_second: Some(1.5),
                rate_per_minute: Some(90.0),
                concurrency: Some(3),
                limit: Some("X-RateLimit-Limit: 120 a minute".into()),
                resume_at: None,
            }),
            total: Counts {
                requests: 1200,
                rate_limited: 93,
            },
            before_span: 0,
        }
    }

    #[test]
    fn side_by_side_on_a_wide_terminal_and_stacked_on_a_narrow_one() {
        let wide = render(&view(), 1, &["app.log: rotated".into()], 100, 24);
        assert!(wide.len() <= 24);
        assert!(wide.iter().all(|l| width(l) <= 100));
        let both = wide.iter().find(|l| l.contains("last minute")).unwrap();
        assert!(both.contains("last 10 minutes"), "{both}");
        assert!(wide
            .iter()
            .any(|l| l.contains("api.example.com") && l.contains("40")));
        assert!(
            wide.iter().any(|l| l.contains("cdn.example.net?[2J")),
            "escape made printable"
        );
        assert!(!wide.iter().any(|l| l.contains('\x1b')));
        assert!(
            wide[1].contains("1 rotations") && wide[1].contains("rising"),
            "{}",
            wide[1]
        );
        assert_eq!(wide.last().unwrap(), "app.log: rotated");

        let narrow = render(&view(), 0, &[], 40, 30);
        assert!(narrow.iter().all(|l| width(l) <= 40));
        let minute = narrow
            .iter()
            .position(|l| l.starts_with("last minute"))
            .unwrap();
        let ten = narrow
            .iter()
            .position(|l| l.starts_with("last 10 minutes"))
            .unwrap();
        assert!(minute < ten);
    }

    #[test]
    fn who_sent_the_429s_what_is_active_and_the_plan_are_shown() {
        for cols in [100, 40] {
            let v = render(&view(), 0, &[], cols, 40);
            assert!(v.iter().all(|l| width(l) <= cols), "{v:?}");
            let text = v.join("\n");
            assert!(
                text.contains("api.example.com: cdn cloudflare 90"),
                "{text}"
            );
            assert!(
                text.contains("burst api.example.com: 300 requests"),
                "{text}"
            );
            let plan = v.iter().find(|l| l.starts_with("plan for api.")).unwrap();
            if cols == 100 {
                assert_eq!(
                    plan,
                    "plan for api.example.com: slow down to 1.5/s (90/min), 3 in flight"
                );
            }
        }
    }

    #[test]
    fn a_short_terminal_gets_no_more_lines_than_it_has() {
        let v = render(&view(), 0, &[], 120, 6);
        assert!(v.len() <= 6, "{v:?}");
    }
}

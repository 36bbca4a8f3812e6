//! Renderers: pure functions from a finished [`Report`] to bytes, one per format, behind one
//! trait (as hyperfine's exporters). A new format (CSV, NDJSON, ...) is one more [`Format`]
//! variant and one more [`Render`] implementation; it never touches analysis code.
//!
//! Renderers read no environment: the terminal width and colour are decided by the command
//! (see `cmd::analyze`) and passed in [`Style`].

pub mod color;
pub mod compare;
pub mod export;
pub mod grid;
pub mod html;
pub mod json;
pub mod live;
pub mod markdown;
pub mod markup;
pub mod recommend;
pub mod svg;
pub mod table;
pub mod text;
pub mod verdict;

use crate::report::Report;

/// Terminal width when nothing says otherwise.
pub const DEFAULT_WIDTH: usize = 80;
/// Narrowest layout; a smaller terminal gets this and scrolls.
pub const MIN_WIDTH: usize = 40;

/// Rendering choices that are not part of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// ANSI colour (terminal tables only).
    pub color: bool,
    /// Columns available to the terminal table (at least [`MIN_WIDTH`]).
    pub width: usize,
    /// Most rows in per-response listings (None = all).
    pub max_rows: Option<usize>,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            color: false,
            width: DEFAULT_WIDTH,
            max_rows: None,
        }
    }
}

/// The report formats (CSV and NDJSON export the rate-limited responses only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Markdown,
    Html,
    /// The rate-limited responses, one CSV row each.
    Csv,
    /// The rate-limited responses, one JSON object a line.
    Ndjson,
}

/// One output format: the finished report in, the bytes to write out.
pub trait Render {
    fn render(&self, report: &Report) -> Vec<u8>;

    /// Write the rendering to `w`; a format that can stream overrides this (the default
    /// renders to bytes first).
    fn write(&self, report: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.render(report))
    }
}

struct Table(Style);
struct Json;
struct Markdown(Style);
struct Html(Style);
struct Csv;
struct Ndjson;

impl Render for Csv {
    fn render(&self, report: &Report) -> Vec<u8> {
        export::csv(report)
    }
}

impl Render for Ndjson {
    fn render(&self, report: &Report) -> Vec<u8> {
        export::ndjson(report)
    }
}

impl Render for Table {
    fn render(&self, report: &Report) -> Vec<u8> {
        table::render(report, self.0)
    }
}

impl Render for Json {
    fn render(&self, report: &Report) -> Vec<u8> {
        json::render(report)
    }

    fn write(&self, report: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        json::write(report, w)
    }
}

impl Render for Markdown {
    fn render(&self, report: &Report) -> Vec<u8> {
        markdown::render(report, self.0)
    }
}

impl Render for Html {
    fn render(&self, report: &Report) -> Vec<u8> {
        html::render(report, self.0)
    }
}

/// The renderer for `format` with `style`.
pub fn renderer(format: Format, style: Style) -> Box<dyn Render> {
    let style = Style {
        width: style.width.max(MIN_WIDTH),
        ..style
    };
    match format {
        Format::Table => Box::new(Table(style)),
        Format::Json => Box::new(Json),
        Format::Markdown => Box::new(Markdown(style)),
        Format::Html => Box::new(Html(style)),
        Format::Csv => Box::new(Csv),
        Format::Ndjson => Box::new(Ndjson),
    }
}

/// `format` rendered with `style`.
pub fn render(format: Format, report: &Report, style: Style) -> Vec<u8> {
    renderer(format, style).render(report)
}

/// The terminal width to lay out for: the terminal's own, else `COLUMNS`, else
/// [`DEFAULT_WIDTH`]; a zero from either (a 0×0 pseudo-terminal, `COLUMNS=0`) counts as unknown.
/// Pure: the command passes in what it read.
pub fn resolve_width(terminal: Option<u16>, columns_env: Option<&str>) -> usize {
    terminal
        .map(usize::from)
        .filter(|w| *w > 0)
        .or_else(|| {
            columns_env
                .and_then(|c| c.trim().parse::<usize>().ok())
                .filter(|w| *w > 0)
        })
        .unwrap_or(DEFAULT_WIDTH)
        .clamp(MIN_WIDTH, 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_prefers_the_terminal_then_columns_then_80() {
        assert_eq!(resolve_width(Some(120), Some("100")), 120);
        assert_eq!(resolve_width(None, Some("100")), 100);
        assert_eq!(resolve_width(None, None), 80);
        // A 0×0 terminal (some CI pseudo-terminals) is unknown, not one column per cell.
        assert_eq!(resolve_width(Some(0), None), 80);
        assert_eq!(resolve_width(Some(0), Some("132")), 132);
        assert_eq!(resolve_width(None, Some("0")), 80);
        assert_eq!(resolve_width(None, Some("wide")), 80);
        assert_eq!(resolve_width(Some(12), None), MIN_WIDTH);
    }
}

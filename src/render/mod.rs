//! Renderers: pure functions from a finished [`Report`](crate::report::Report) to bytes.

pub mod json;
pub mod markdown;
pub mod recommend;
pub mod table;

/// Rendering choices that are not part of the report.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
    /// Terminal width for tables (None = no limit).
    pub width: Option<u16>,
    /// Most rows in per-record listings (None = all).
    pub max_rows: Option<usize>,
}

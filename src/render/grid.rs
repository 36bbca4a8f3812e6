//! A borderless column table that fits a terminal width without wrapping a cell.
//!
//! Each column states how it gives way when the table is too wide: columns marked
//! [`Fit::Middle`] or [`Fit::End`] are shortened first, in the order of their `shrink` rank,
//! down to their minimum (URLs in the middle, so host and last segment stay); then whole columns
//! are dropped in the order of their `drop` rank (after each drop every column gets its full
//! width back and the shortening starts over). Columns with neither (status, layer, vendor)
//! are always shown whole. The renderer says which columns were dropped.

use super::color::{Paint, Palette};
use super::text::{pad, shorten_end, shorten_location, shorten_middle, width};

/// Space between columns.
const GAP: &str = "  ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Never shortened.
    Whole,
    /// Shortened in the middle (`https://api.exa…/v1/charges`).
    Middle,
    /// Shortened at the end (`billing-wor…`).
    End,
    /// A location: directories shortened in the middle, the file name and line kept
    /// (`samples/…/api-incident.jsonl:121`).
    Start,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub header: String,
    pub right: bool,
    pub fit: Fit,
    /// Narrowest width the column is shortened to.
    pub min: usize,
    /// Shortening order among shrinkable columns (lower first).
    pub shrink: u8,
    /// Dropping order when shortening is not enough (lower first); `None` = never dropped.
    pub drop: Option<u8>,
}

impl Column {
    pub fn new(header: &str) -> Column {
        Column {
            header: header.to_string(),
            right: false,
            fit: Fit::Whole,
            min: width(header),
            shrink: 0,
            drop: None,
        }
    }
    pub fn right(mut self) -> Column {
        self.right = true;
        self
    }
    /// Shortened (`fit`) down to `min` columns, at rank `rank`.
    pub fn shrink(mut self, fit: Fit, min: usize, rank: u8) -> Column {
        self.fit = fit;
        self.min = min;
        self.shrink = rank;
        self
    }
    pub fn drop_at(mut self, rank: u8) -> Column {
        self.drop = Some(rank);
        self
    }
}

#[derive(Debug, Clone)]
pub struct Cell {
    pub text: String,
    pub paint: Option<Paint>,
}

impl<S: Into<String>> From<S> for Cell {
    fn from(s: S) -> Cell {
        Cell {
            text: s.into(),
            paint: None,
        }
    }
}

pub fn painted(text: impl Into<String>, p: Paint) -> Cell {
    Cell {
        text: text.into(),
        paint: Some(p),
    }
}

#[derive(Debug, Clone, Default)]
pub struct Grid {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
}

/// The rendered lines and the headers of the columns that did not fit.
pub struct Laid {
    pub lines: Vec<String>,
    pub dropped: Vec<String>,
}

impl Grid {
    pub fn new(columns: Vec<Column>) -> Grid {
        Grid {
            columns,
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    fn ideal(&self, c: usize) -> usize {
        let header = width(&self.columns[c].header);
        self.rows
            .iter()
            .filter_map(|r| r.get(c))
            .map(|cell| width(&cell.text))
            .fold(header, usize::max)
    }

    /// Column widths (0 = dropped) that fit `max` columns after `indent`.
    fn widths(&self, max: usize, indent: usize) -> Vec<usize> {
        let n = self.columns.len();
        let ideal: Vec<usize> = (0..n).map(|c| self.ideal(c)).collect();
        let mut active: Vec<bool> = vec![true; n];
        let total = |w: &[usize], active: &[bool]| {
            let shown = active.iter().filter(|a| **a).count();
            indent + w.iter().sum::<usize>() + GAP.len() * shown.saturating_sub(1)
        };
        loop {
            let mut w: Vec<usize> = (0..n)
                .map(|c| if active[c] { ideal[c] } else { 0 })
                .collect();
            // Shorten, in the stated order: first down to the header's width (headers stay
            // whole), then down to each column's minimum.
            let mut order: Vec<usize> = (0..n)
                .filter(|&c| active[c] && self.columns[c].fit != Fit::Whole)
                .collect();
            order.sort_by_key(|&c| (self.columns[c].shrink, c));
            for keep_header in [true, false] {
                for &c in &order {
                    let over = total(&w, &active).saturating_sub(max);
                    if over == 0 {
                        break;
                    }
                    let col = &self.columns[c];
                    let floor = if keep_header {
                        col.min.max(width(&col.header))
                    } else {
                        col.min
                    }
                    .min(w[c]);
                    w[c] -= over.min(w[c] - floor);
                }
            }
            if total(&w, &active) <= max {
                return w;
            }
            // Drop the next column, and start over with every other column whole.
            let next = (0..n)
                .filter(|&c| active[c])
                .filter_map(|c| self.columns[c].drop.map(|r| (r, c)))
                .min();
            match next {
                Some((_, c)) => active[c] = false,
                None => {
                    // Nothing left to drop: the last column takes what room is left.
                    if let Some(last) = (0..n).rev().find(|&c| active[c]) {
                        let over = total(&w, &active).saturating_sub(max);
                        w[last] = w[last].saturating_sub(over).max(1);
                    }
                    return w;
                }
            }
        }
    }

    /// Lay the table out in `max` columns, each line starting with `indent`.
    pub fn render(&self, max: usize, indent: &str, palette: Palette) -> Laid {
        let w = self.widths(max, width(indent));
        let shown: Vec<usize> = (0..self.columns.len()).filter(|&c| w[c] > 0).collect();
        let fit = |c: usize, s: &str| -> String {
            let col = &self.columns[c];
            if width(s) <= w[c] {
                s.to_string()
            } else if col.fit == Fit::Middle {
                shorten_middle(s, w[c])
            } else if col.fit == Fit::Start {
                shorten_location(s, w[c])
            } else {
                shorten_end(s, w[c])
            }
        };
        let line = |cells: Vec<(String, Option<Paint>)>| -> String {
            let mut out = indent.to_string();
            let last = cells.len().saturating_sub(1);
            for (i, ((text, paint), &c)) in cells.into_iter().zip(&shown).enumerate() {
                let col = &self.columns[c];
                let padded = if i == last && !col.right {
                    text
                } else {
                    pad(&text, w[c], col.right)
                };
                // Colour the text, not the padding, so alignment is the same either way.
                let painted = match paint {
                    Some(p) if palette.on => {
                        let trimmed = padded.trim();
                        let colored = palette.paint(p, trimmed);
                        padded.replacen(trimmed, &colored, 1)
                    }
                    _ => padded,
                };
                if i > 0 {
                    out.push_str(GAP);
                }
                out.push_str(&painted);
            }
            out.trim_end().to_string()
        };
        let mut lines = Vec::with_capacity(self.rows.len() + 2);
        lines.push(line(
            shown
                .iter()
                .map(|&c| (fit(c, &self.columns[c].header), Some(Paint::Heading)))
                .collect(),
        ));
        lines.push(line(
            shown
                .iter()
                .map(|&c| ("─".repeat(w[c]), Some(Paint::Dim)))
                .collect(),
        ));
        for row in &self.rows {
            lines.push(line(
                shown
                    .iter()
                    .map(|&c| match row.get(c) {
                        Some(cell) => (fit(c, &cell.text), cell.paint),
                        None => (String::new(), None),
                    })
                    .collect(),
            ));
        }
        Laid {
            lines,
            dropped: (0..self.columns.len())
                .filter(|&c| w[c] == 0)
                .map(|c| self.columns[c].header.clone())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Grid {
        let mut g = Grid::new(vec![
            Column::new("time"),
            Column::new("url").shrink(Fit::Middle, 12, 0),
            Column::new("status").right(),
            Column::new("where").shrink(Fit::Middle, 8, 1).drop_at(0),
        ]);
        g.push(vec![
            "14:02:26.745".into(),
            "https://api.example.com/v1/customers/202".into(),
            "429".into(),
            "samples/api-incident.jsonl:125".into(),
        ]);
        g
    }

    #[test]
    fn fits_whole_when_there_is_room() {
        let laid = sample().render(200, "", Palette::default());
        assert!(laid.lines[2].contains("https://api.example.com/v1/customers/202"));
        assert!(laid.dropped.is_empty());
    }

    #[test]
    fn shortens_urls_in_the_middle_first_then_drops() {
        let g = sample();
        let laid = g.render(60, "  ", Palette::default());
        for l in &laid.lines {
            assert!(width(l) <= 60, "{l:?} is {} wide", width(l));
        }
        assert!(laid.lines[2].contains('…'));
        assert!(
            laid.lines[2].contains("  429"),
            "status whole: {}",
            laid.lines[2]
        );
        assert!(laid.dropped.is_empty());
        let laid = g.render(40, "", Palette::default());
        assert_eq!(laid.dropped, vec!["where".to_string()]);
        for l in &laid.lines {
            assert!(width(l) <= 40, "{l:?}");
        }
        assert!(laid.lines[2].ends_with("429"));
    }

    #[test]
    fn never_wider_than_asked_even_when_nothing_can_go() {
        let mut g = Grid::new(vec![Column::new("a"), Column::new("b")]);
        g.push(vec!["x".repeat(30).into(), "y".repeat(30).into()]);
        let laid = g.render(40, "", Palette::default());
        assert!(
            laid.lines.iter().all(|l| width(l) <= 40),
            "{:?}",
            laid.lines
        );
    }

    #[test]
    fn colour_does_not_change_alignment() {
        let mut g = Grid::new(vec![Column::new("layer"), Column::new("n").right()]);
        g.push(vec![
            painted("cdn", Paint::Layer(crate::attribute::Layer::Cdn)),
            "3".into(),
        ]);
        let plain = g.render(80, "", Palette { on: false });
        let colored = g.render(80, "", Palette { on: true });
        let strip = |s: &str| {
            let mut out = String::new();
            let mut esc = false;
            for c in s.chars() {
                match (esc, c) {
                    (false, '\u{1b}') => esc = true,
                    (true, 'm') => esc = false,
                    (true, _) => {}
                    (false, c) => out.push(c),
                }
            }
            out
        };
        assert_eq!(strip(&colored.lines[2]), plain.lines[2]);
        assert!(colored.lines[2].contains("\u{1b}[35mcdn\u{1b}[0m"));
    }
}

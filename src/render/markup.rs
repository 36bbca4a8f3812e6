//! Tables in markup formats, written once: the algorithm (a header of named columns, numeric
//! ones right-aligned, then the rows) is here, and each format gives only its syntax through
//! [`Markup`] (as hyperfine's `export/markup.rs` does for its Markdown, AsciiDoc and Org
//! exporters).

/// A column: its name (markup-safe, written as is) and whether it is numeric (right-aligned).
pub type Column<'a> = (&'a str, bool);

/// What a markup format writes around a table and its rows.
pub trait Markup {
    /// The table's start and its header row.
    fn head(&self, out: &mut String, columns: &[Column<'_>]);
    /// One row: each cell with whether its column is numeric.
    fn row(&self, out: &mut String, cells: &[(&str, bool)]);
    /// The table's end.
    fn foot(&self, out: &mut String);
}

/// The table of `rows` under `columns`, in `m`'s syntax. A row longer than the header has
/// its extra cells written as text columns.
pub fn table(out: &mut String, m: &dyn Markup, columns: &[Column<'_>], rows: &[Vec<String>]) {
    m.head(out, columns);
    let mut cells: Vec<(&str, bool)> = Vec::new();
    for r in rows {
        cells.clear();
        cells.extend(r.iter().enumerate().map(|(i, c)| {
            let numeric = columns.get(i).is_some_and(|(_, n)| *n);
            (c.as_str(), numeric)
        }));
        m.row(out, &cells);
    }
    m.foot(out);
}

/// Escape text for HTML content and double- or single-quoted attributes; control characters
/// (other than tab and newline) become U+FFFD.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A syntax that shows what the algorithm hands it.
    struct Probe;
    impl Markup for Probe {
        fn head(&self, out: &mut String, columns: &[Column<'_>]) {
            for (name, numeric) in columns {
                out.push_str(&format!("[{name}{}]", if *numeric { "#" } else { "" }));
            }
            out.push('\n');
        }
        fn row(&self, out: &mut String, cells: &[(&str, bool)]) {
            for (c, numeric) in cells {
                out.push_str(&format!("<{c}{}>", if *numeric { "#" } else { "" }));
            }
            out.push('\n');
        }
        fn foot(&self, out: &mut String) {
            out.push_str("end");
        }
    }

    #[test]
    fn each_cell_knows_its_columns_alignment() {
        let mut out = String::new();
        let rows = vec![
            vec!["a".to_string(), "1".to_string()],
            vec!["b".to_string(), "2".to_string(), "extra".to_string()],
        ];
        table(&mut out, &Probe, &[("name", false), ("n", true)], &rows);
        assert_eq!(out, "[name][n#]\n<a><1#>\n<b><2#><extra>\nend");
    }
}

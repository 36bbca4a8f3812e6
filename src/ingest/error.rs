//! Typed errors of ingestion: an input that cannot be opened or recognised ([`SourceError`],
//! the input's error: nothing of it is read), and a line of an access log that gives no record
//! ([`LineError`], a warning at its line: the rest is read). Neither quotes the input's
//! content: a message names fields, positions and what was expected.

use std::fmt;
use std::io;

/// Why an input could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("is a directory, not a file")]
    Directory,
    #[error("cannot open: {0}")]
    Open(io::Error),
    #[error("cannot read: {0}")]
    Read(io::Error),
    #[error("cannot read (corrupt gzip?): {0}")]
    ReadDecompressed(io::Error),
    #[error("empty file: no HAR document or log lines")]
    Empty,
    /// Binary data; `gzip_layers` of gzip were taken off before it (0: the file is not gzip).
    #[error("{}", if *gzip_layers == 0 { "binary data: not a HAR file or JSON-lines log (and not gzip)" } else { "binary data inside gzip: the file is gzip, but what it holds is not a HAR file, JSON-lines or access log" })]
    Binary { gzip_layers: u8 },
    #[error("a JSON array: toomany reads HAR files and JSON lines (one object per line); convert an array of records with `jq -c '.[]'`")]
    JsonArray,
    #[error("the #Fields: directive cannot be read: {0}")]
    FieldsDirective(LineError),
    #[error(
        "no `#Fields:` directive in the first 64 KiB: a W3C log (CloudFront, IIS) starts with one"
    )]
    NoFieldsDirective,
    #[error("no log lines in the first 64 KiB")]
    NoLogLines,
    /// `--input-format` named a family, and none of its layouts reads the first lines.
    #[error("the lines do not match any {format} layout toomany knows{closest}; pass the format from your config with --log-format '...'")]
    NoLayoutOf {
        format: &'static str,
        closest: Closest,
    },
    #[error("not a HAR file or JSON-lines log, nor an access log toomany recognizes (tried {tried}){closest}. For a custom access log, pass its format from your config: --log-format '<nginx log_format | Envoy format string | Apache LogFormat>'")]
    NoLayout {
        tried: &'static str,
        closest: Closest,
    },
}

/// The layout that read the most of the sampled lines (but not all): its label, and the first
/// line it could not read, with why. Shown as ` (closest: LABEL, line N: WHY)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Closest(pub Option<(String, usize, LineError)>);

impl fmt::Display for Closest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some((label, line, why)) => write!(f, " (closest: {label}, line {line}: {why})"),
            None => Ok(()),
        }
    }
}

/// Why a line of an access log (or a W3C `#Fields:` directive) gives no record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The line breaks its layout; the text says where (`the timers field is not
    /// TR/Tw/Tc/Tr/Ta`, `no status code where the format puts it`).
    #[error("{0}")]
    Layout(&'static str),
    /// A field's value is not what the format puts there (`$status is not a status code`).
    #[error("{field} is not {expected}")]
    Field {
        field: String,
        expected: &'static str,
    },
    /// The line ended before a literal or field of the format.
    #[error("line ends before {what} {place}")]
    EndsBefore { what: String, place: String },
    /// Another literal stands where the format puts one.
    #[error("expected {what} {place}")]
    Expected { what: String, place: String },
    #[error("unterminated quote in field {0}")]
    UnterminatedQuote(usize),
    #[error("{found} fields, an ALB entry has at least {required}")]
    AlbFields { found: usize, required: usize },
    #[error("{found} fields, a Classic Load Balancer entry has at least {required}")]
    ElbFields { found: usize, required: usize },
    /// The line ends before the field the directive names `sc-status` (1-based `status_field`).
    #[error(
        "{found} fields, the #Fields: directive names {named} (sc-status is field {status_field})"
    )]
    W3cFields {
        found: usize,
        named: usize,
        status_field: usize,
    },
    /// A line shorter than the directive whose fields are not where it names them.
    #[error("{found} fields, the #Fields: directive names {named}, and they do not line up")]
    W3cMisaligned { found: usize, named: usize },
    /// Not JSON; the parser's message with any quoted content scrubbed.
    #[error("not valid JSON ({0})")]
    NotJson(String),
    #[error("an object without the keys of a {0}")]
    NotVendor(&'static str),
    #[error("no {0} (the status code)")]
    NoStatus(&'static str),
}

impl From<&'static str> for LineError {
    fn from(why: &'static str) -> LineError {
        LineError::Layout(why)
    }
}

//! Terminal colour, decided once by the caller and passed in (no global colour state).
//!
//! Colour only repeats what the words already say: every severity and layer is written out
//! (`[critical]`, `cdn`), so the report reads the same without colour, on a monochrome terminal
//! or to a colour-blind reader. SGR codes are written by hand; there are six of them.

use crate::attribute::Layer;
use crate::detect::Severity;

/// What a piece of text is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    Heading,
    Severity(Severity),
    Layer(Layer),
    /// The recommended action and other key numbers.
    Strong,
    /// Secondary text: notes, "—".
    Dim,
    /// A caution (recommendation warnings).
    Caution,
}

impl Paint {
    /// The SGR parameters for this kind of text.
    fn sgr(self) -> &'static str {
        match self {
            Paint::Heading | Paint::Strong => "1",
            Paint::Severity(Severity::Critical) => "1;31",
            Paint::Severity(Severity::Warning) | Paint::Caution => "33",
            Paint::Severity(Severity::Info) => "36",
            Paint::Layer(Layer::Cdn) => "35",
            Paint::Layer(Layer::Proxy) => "34",
            Paint::Layer(Layer::Api) => "32",
            Paint::Layer(Layer::Unknown) | Paint::Dim => "2",
        }
    }
}

/// Colour on or off for one rendering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Palette {
    pub on: bool,
}

impl Palette {
    /// `text` wrapped in the colour for `p` (unchanged when colour is off or text is empty).
    pub fn paint(&self, p: Paint, text: &str) -> String {
        if !self.on || text.is_empty() {
            return text.to_string();
        }
        format!("\u{1b}[{}m{text}\u{1b}[0m", p.sgr())
    }
}

/// `critical`, `warning`, `info`.
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "critical",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_means_plain_text() {
        let p = Palette { on: false };
        assert_eq!(p.paint(Paint::Heading, "Findings"), "Findings");
    }

    #[test]
    fn on_wraps_in_sgr_and_resets() {
        let p = Palette { on: true };
        assert_eq!(
            p.paint(Paint::Severity(Severity::Critical), "critical"),
            "\u{1b}[1;31mcritical\u{1b}[0m"
        );
        assert_eq!(p.paint(Paint::Dim, ""), "");
    }
}

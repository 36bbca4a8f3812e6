//! Ingestion: bytes from files or stdin → normalized, redacted [`Request`]s.
//!
//! Each input is sniffed (HAR or JSON lines, gzip or not), read in a streaming way, and every
//! record is redacted before it leaves this module. Problems with single entries or lines are
//! counted warnings with their location; only an unreadable input becomes an error, and even
//! then the records read before the problem are kept.

pub mod access;
pub mod har;
pub mod jsonl;
pub mod loose;
pub mod source;

use crate::model::{Position, Request, Warning};
use crate::redact::Redactor;
use crate::report::InputSummary;
use rayon::prelude::*;
use std::sync::Arc;

/// Input formats we can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Har,
    Jsonl,
    /// nginx text logs: combined, main, ingress-nginx upstreaminfo (or --log-format).
    Nginx,
    /// Apache Common Log Format / combined.
    Clf,
    /// Envoy / Istio text logs, Envoy Gateway JSON.
    Envoy,
    /// AWS Application Load Balancer.
    Alb,
    /// CloudFront standard logs (W3C, TAB-separated).
    Cloudfront,
    /// W3C extended logs (IIS).
    W3c,
    /// HAProxy `option httplog`, with or without a syslog prefix.
    Haproxy,
    /// Cloudflare Logpush http_requests (JSON lines).
    Cloudflare,
    /// Kong log plugins (file-log, http-log, ...).
    Kong,
    /// Traefik access logs (JSON, or the default CLF).
    Traefik,
    /// Caddy JSON access logs.
    Caddy,
    /// Google Cloud HTTP(S) load balancing LogEntry JSON.
    GcpLb,
}

impl Format {
    pub fn as_str(&self) -> &'static str {
        match self {
            Format::Har => "har",
            Format::Jsonl => "jsonl",
            Format::Nginx => "nginx",
            Format::Clf => "clf",
            Format::Envoy => "envoy",
            Format::Alb => "alb",
            Format::Cloudfront => "cloudfront",
            Format::W3c => "w3c",
            Format::Haproxy => "haproxy",
            Format::Cloudflare => "cloudflare",
            Format::Kong => "kong",
            Format::Traefik => "traefik",
            Format::Caddy => "caddy",
            Format::GcpLb => "gcp-lb",
        }
    }

    /// An access-log format (read by `access`), not HAR or generic JSON lines.
    pub fn is_access_log(&self) -> bool {
        !matches!(self, Format::Har | Format::Jsonl)
    }
}

/// Called with an input's path and the number of (compressed) bytes just read from it, so the
/// command layer can show progress; ingestion itself never touches the terminal.
pub type Progress = std::sync::Arc<dyn Fn(&str, u64) + Send + Sync>;

/// How to read inputs.
#[derive(Clone)]
pub struct Options {
    /// Force a format instead of sniffing.
    pub format: Option<Format>,
    /// `--map canonical=dotted.path` field mappings for JSON lines.
    pub field_map: Vec<(String, String)>,
    /// `--log-format`: a compiled access-log format (nginx, Envoy or Apache syntax).
    pub log_format: Option<Arc<access::format::LogFormat>>,
    pub redactor: Redactor,
    /// Progress hook (None = silent).
    pub progress: Option<Progress>,
}

/// How many warnings of one input are kept with their text (all are counted).
pub const KEPT_WARNINGS: usize = 50;

/// Counted warnings of one input, the first few kept verbatim.
#[derive(Debug, Default)]
pub struct Warnings {
    pub count: usize,
    pub kept: Vec<Warning>,
}

impl Warnings {
    pub fn push(&mut self, w: Warning) {
        self.count += 1;
        if self.kept.len() < KEPT_WARNINGS {
            self.kept.push(w);
        }
    }

    pub fn merge(&mut self, other: Warnings) {
        self.count += other.count;
        for w in other.kept {
            if self.kept.len() < KEPT_WARNINGS {
                self.kept.push(w);
            }
        }
    }
}

/// Everything read from one input.
pub struct Ingested {
    pub summary: InputSummary,
    pub requests: Vec<Request>,
}

/// What a format reader hands back.
pub struct ReadOutcome {
    pub requests: Vec<Request>,
    pub skipped: usize,
    pub warnings: Warnings,
    pub creator: Option<String>,
    /// Set when reading stopped early; records before it are kept.
    pub error: Option<String>,
}

pub(crate) fn warn(source: &Arc<str>, pos: Option<Position>, msg: impl Into<String>) -> Warning {
    Warning {
        source: source.clone(),
        position: pos,
        message: msg.into(),
    }
}

/// Read one input (a path, or `-` for stdin).
pub fn read_input(path: &str, opts: &Options) -> Ingested {
    let source: Arc<str> = Arc::from(path);
    let failed = |format: Option<Format>, msg: String| Ingested {
        summary: InputSummary {
            source: source.clone(),
            format: format.map(|f| f.as_str().to_string()),
            creator: None,
            records: 0,
            skipped: 0,
            warning_count: 0,
            warnings: Vec::new(),
            error: Some(msg),
        },
        requests: Vec::new(),
    };
    let counter = opts.progress.clone().map(|p| {
        let path = path.to_string();
        Box::new(move |n: u64| p(&path, n)) as Box<dyn FnMut(u64) + Send>
    });
    let opened = match source::open_counted(path, counter) {
        Ok(o) => o,
        Err(e) => return failed(None, e),
    };
    let sniffed = source::sniff(&opened.prefix, path);
    let forced = opts.format.or_else(|| {
        opts.log_format
            .as_ref()
            .map(|f| access::Parser::custom(f.clone()).format)
    });
    let (format, jsonp) = match (forced, sniffed) {
        (Some(f), Ok(s)) => (f, s.jsonp && f == Format::Har),
        (Some(f), Err(_)) => (f, false),
        (None, Ok(s)) => (s.format, s.jsonp),
        (None, Err(e)) => return failed(None, e),
    };
    let reader = opened.into_reader();
    let outcome = match format {
        Format::Har => har::read(reader, &source, opts, jsonp),
        Format::Jsonl => jsonl::read(reader, &source, opts),
        f => access::read(reader, &source, opts, f),
    };
    let error = outcome.error.or_else(|| {
        (outcome.requests.is_empty() && outcome.skipped == 0 && format == Format::Har)
            .then(|| "the HAR has no entries (log.entries is empty or missing)".to_string())
    });
    Ingested {
        summary: InputSummary {
            source: source.clone(),
            format: Some(format.as_str().to_string()),
            creator: outcome.creator,
            records: outcome.requests.len(),
            skipped: outcome.skipped,
            warning_count: outcome.warnings.count,
            warnings: outcome.warnings.kept,
            error,
        },
        requests: outcome.requests,
    }
}

/// Read many inputs in parallel; results keep the order of `paths`.
pub fn read_inputs(paths: &[String], opts: &Options) -> Vec<Ingested> {
    paths.par_iter().map(|p| read_input(p, opts)).collect()
}

//! Why a line or entry gave no record: a record of the log that is not an HTTP request
//! (counted and skipped), or one no reader could use (a located warning). Both are counted per
//! reason in the input's summary.

use super::error::LineError;
use std::fmt;

/// A record the log writes that is not an HTTP request. Logs interleave them with requests:
/// Envoy and HAProxy log TCP connections beside HTTP ones, an AWS bucket can hold NLB TLS and
/// ALB connection-log records, a syslog stream carries every program's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NotRequest {
    /// Envoy `tcp_proxy` (`"- - -" 0`) or HAProxy `mode tcp` record.
    TcpConnection,
    /// An AWS Network Load Balancer TLS listener record (`tls 2.0 ...`).
    TlsListener,
    /// An AWS ALB connection-log record (one per TLS connection, no request).
    ConnectionLog,
    /// An nginx or Apache error-log line.
    ErrorLog,
    /// The proxy's own message (HAProxy "Proxy started", a TLS handshake failure).
    ProxyMessage,
    /// A syslog message of another program.
    SyslogMessage,
    /// A JSON record with no request in it (a server's runtime log beside its access log).
    JsonRecord,
    /// An FTP session record (IIS FTP logs share W3C's layout: a command or channel event
    /// where an HTTP log has its method).
    FtpSession,
}

impl NotRequest {
    pub fn describe(&self) -> &'static str {
        match self {
            NotRequest::TcpConnection => "TCP connection records (no HTTP request)",
            NotRequest::TlsListener => "NLB TLS listener records",
            NotRequest::ConnectionLog => "load balancer connection-log records",
            NotRequest::ErrorLog => "error-log lines",
            NotRequest::ProxyMessage => "the proxy's own messages",
            NotRequest::SyslogMessage => "syslog messages of other programs",
            NotRequest::JsonRecord => "JSON records without a request (runtime logs)",
            NotRequest::FtpSession => "FTP session records (commands and channel events)",
        }
    }
}

impl fmt::Display for NotRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Why one line gave no record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// A record of the log that is not an HTTP request.
    NotRequest(NotRequest),
    /// The line does not fit: why, without any of the line's content.
    Unreadable(LineError),
}

impl From<LineError> for Miss {
    fn from(e: LineError) -> Miss {
        Miss::Unreadable(e)
    }
}

impl From<&'static str> for Miss {
    fn from(why: &'static str) -> Miss {
        Miss::Unreadable(LineError::Layout(why))
    }
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Miss::NotRequest(n) => write!(f, "not an HTTP request ({n})"),
            Miss::Unreadable(e) => e.fmt(f),
        }
    }
}

/// Lines that gave no record for one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub reason: String,
    pub lines: usize,
    /// The first line (or entry) it happened on.
    pub first: usize,
    /// Records recognised as not HTTP requests (counted, not warned about one by one).
    pub not_request: bool,
}

/// Lines that gave no record, counted per reason.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reasons {
    /// In the order reasons were first met.
    pub reasons: Vec<Reason>,
}

impl Reasons {
    /// Most distinct reasons kept (a log of garbage cannot grow the list without bound).
    const MAX: usize = 64;

    pub fn add(&mut self, reason: &str, line: usize, not_request: bool) {
        self.add_n(reason, 1, line, not_request);
    }

    fn add_n(&mut self, reason: &str, n: usize, line: usize, not_request: bool) {
        let full = self.reasons.len() >= Self::MAX;
        let reason = if full && !self.reasons.iter().any(|r| r.reason == reason) {
            "other reasons"
        } else {
            reason
        };
        match self.reasons.iter_mut().find(|r| r.reason == reason) {
            Some(r) => {
                r.lines += n;
                r.first = r.first.min(line);
            }
            None => self.reasons.push(Reason {
                reason: reason.to_string(),
                lines: n,
                first: line,
                not_request,
            }),
        }
    }

    /// Add another block's reasons (blocks are merged in input order).
    pub fn merge(&mut self, other: Reasons) {
        for r in other.reasons {
            self.add_n(&r.reason, r.lines, r.first, r.not_request);
        }
    }

    /// Lines recognised as records that are not HTTP requests.
    pub fn not_requests(&self) -> usize {
        self.reasons
            .iter()
            .filter(|r| r.not_request)
            .map(|r| r.lines)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.reasons.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_counted_with_their_first_line() {
        let mut a = Reasons::default();
        a.add("x", 5, false);
        a.add("x", 3, false);
        a.add("tcp", 4, true);
        let mut b = Reasons::default();
        b.add("tcp", 9, true);
        b.add("y", 10, false);
        a.merge(b);
        let got: Vec<(&str, usize, usize)> = a
            .reasons
            .iter()
            .map(|r| (r.reason.as_str(), r.lines, r.first))
            .collect();
        assert_eq!(got, vec![("x", 2, 3), ("tcp", 2, 4), ("y", 1, 10)]);
        assert_eq!(a.not_requests(), 2);
    }

    #[test]
    fn the_list_is_bounded() {
        let mut t = Reasons::default();
        for i in 0..200 {
            t.add(&format!("r{i}"), i + 1, false);
        }
        assert_eq!(t.reasons.len(), Reasons::MAX + 1);
        assert_eq!(t.reasons.iter().map(|r| r.lines).sum::<usize>(), 200);
    }
}

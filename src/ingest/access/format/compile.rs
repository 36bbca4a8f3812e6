//! Compiling a format string (nginx `log_format`, Envoy, Apache `LogFormat`) into the items
//! [`LogFormat`] walks, and telling apart what a user pasted (`--log-format`).

use super::*;

struct Builder {
    items: Vec<Item>,
    names: Vec<Box<str>>,
    lit: String,
}

impl Builder {
    fn new() -> Self {
        Builder {
            items: Vec::new(),
            names: Vec::new(),
            lit: String::new(),
        }
    }
    fn name(&mut self, n: &str) -> u16 {
        if let Some(i) = self.names.iter().position(|x| &**x == n) {
            return i as u16;
        }
        self.names.push(n.into());
        (self.names.len() - 1) as u16
    }
    fn flush(&mut self) {
        if !self.lit.is_empty() {
            self.items
                .push(Item::Lit(std::mem::take(&mut self.lit).into_boxed_str()));
        }
    }
    fn field(&mut self, written: &str, var: Var, list: bool) -> Result<(), FormatError> {
        self.flush();
        if matches!(self.items.last(), Some(Item::Field { .. })) {
            return Err(FormatError::Adjacent(written.to_string()));
        }
        if self.names.len() >= u16::MAX as usize - 2 {
            return Err(FormatError::TooManyVariables);
        }
        let name = self.name(written);
        self.items.push(Item::Field { var, name, list });
        Ok(())
    }
    fn finish(
        mut self,
        syntax: Syntax,
        escape: Escape,
        label: String,
    ) -> Result<LogFormat, FormatError> {
        self.flush();
        if !self.items.iter().any(|i| matches!(i, Item::Field { .. })) {
            return Err(FormatError::NoVariables(syntax.as_str()));
        }
        Ok(LogFormat {
            syntax,
            escape,
            label,
            shape: shape_of(&self.items),
            items: self.items,
            names: self.names,
        })
    }
}

/// A header name from a variable suffix: `retry_after` → `retry-after`.
pub(crate) fn header_name(suffix: &str) -> String {
    suffix.replace('_', "-").to_ascii_lowercase()
}

/// Words that make an unknown variable a caller identity (fingerprinted, never shown).
fn is_identity_name(n: &str) -> bool {
    let l = n.to_ascii_lowercase();
    [
        "consumer",
        "api_key",
        "apikey",
        "api-key",
        "client_id",
        "key_id",
        "user_id",
        "tenant_id",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// What an nginx variable name means, without the compiled format's name table (header
/// names are given as written after their prefix). `true` = a comma/colon list.
pub enum Meaning<'n> {
    Var(Var),
    /// `$http_NAME`: a request header (the part after the prefix, `_` for `-`).
    ReqHeader(&'n str),
    /// `$sent_http_NAME` / `$upstream_http_NAME`: a response header.
    RespHeader(&'n str),
    Other,
}

/// The nginx variable `name` (the one table for `log_format` and for logs that carry the
/// names themselves: JSON with `escape=json`, `key=value`).
pub fn nginx_meaning(name: &str) -> (Meaning<'_>, bool) {
    let v = match name {
        "remote_addr" | "proxy_protocol_addr" | "realip_remote_addr" => Var::RemoteAddr,
        "remote_user" => Var::RemoteUser,
        "time_local" => Var::TimeLocalEnd,
        "time_iso8601" => Var::TimeIsoEnd,
        "msec" => Var::MsecEnd,
        // Not nginx variables: names of toomany's built-in layouts (Traefik CLF).
        "time_local_start" => Var::TimeLocalStart,
        "duration_ms" => Var::DurationMs,
        "request" => Var::RequestLine,
        "request_method" => Var::Method,
        "request_uri" => Var::Target,
        "uri" | "document_uri" => Var::Path,
        "args" | "query_string" => Var::Query,
        "host" | "http_host" => Var::Host,
        "scheme" => Var::Scheme,
        "status" => Var::Status,
        "request_time" => Var::DurationSeconds,
        "http_user_agent" => Var::UserAgent,
        "http_x_forwarded_for" | "proxy_add_x_forwarded_for" => Var::ForwardedFor,
        "request_id" | "req_id" | "http_x_request_id" => Var::RequestId,
        "upstream_status" => return (Meaning::Var(Var::UpstreamStatus), true),
        "upstream_addr" => return (Meaning::Var(Var::UpstreamAddr), true),
        // Traefik CLF's `"<Traefik_server_URL>"` (a name of our own, see `nginx::TRAEFIK_CLF`):
        // the upstream server the request went to, `-` when none was picked.
        "traefik_server_url" => Var::UpstreamHost,
        "limit_req_status" => Var::LimitReqStatus,
        "limit_conn_status" => Var::LimitConnStatus,
        "body_bytes_sent" => Var::BodyBytes,
        "bytes_sent" | "request_length" => Var::Bytes,
        "connection"
        | "connection_requests"
        | "server_protocol"
        | "http_referer"
        | "pipe"
        | "remote_port"
        | "server_port"
        | "gzip_ratio"
        | "ssl_protocol"
        | "ssl_cipher"
        | "server_addr"
        | "request_completion" => Var::Ignore,
        n if n.starts_with("upstream_http_") => {
            return (Meaning::RespHeader(&n["upstream_http_".len()..]), false)
        }
        n if n.starts_with("sent_http_") => {
            return (Meaning::RespHeader(&n["sent_http_".len()..]), false)
        }
        n if n.starts_with("upstream_") => return (Meaning::Var(Var::Ignore), true),
        n if n.starts_with("http_") => return (Meaning::ReqHeader(&n["http_".len()..]), false),
        n if is_identity_name(n) => Var::Identity,
        _ => return (Meaning::Other, false),
    };
    (Meaning::Var(v), false)
}

fn nginx_var(b: &mut Builder, name: &str) -> Result<(Var, bool), FormatError> {
    let (meaning, list) = nginx_meaning(name);
    let v = match meaning {
        Meaning::Var(v) => v,
        Meaning::ReqHeader(h) => Var::ReqHeader(b.name(&header_name(h))),
        Meaning::RespHeader(h) => Var::RespHeader(b.name(&header_name(h))),
        Meaning::Other => Var::Other(b.name(name)),
    };
    Ok((v, list))
}

/// Compile an nginx `log_format` body (`$remote_addr - ...`), variables `$name` or `${name}`.
pub fn compile_nginx(
    body: &str,
    escape: Escape,
    label: impl Into<String>,
) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c != '$' {
            b.lit.push(c);
            continue;
        }
        let rest = &body[i + 1..];
        let (name, used) = if let Some(inner) = rest.strip_prefix('{') {
            match inner.find('}') {
                Some(e) => (&inner[..e], e + 2),
                None => return Err(FormatError::Unclosed("`${` without a closing `}`")),
            }
        } else {
            let e = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(rest.len());
            (&rest[..e], e)
        };
        if name.is_empty() {
            b.lit.push('$');
            continue;
        }
        for _ in 0..used {
            it.next();
        }
        let (var, list) = nginx_var(&mut b, name)?;
        b.field(name, var, list)?;
    }
    b.finish(Syntax::Nginx, escape, label.into())
}

fn envoy_var(b: &mut Builder, op: &str, arg: Option<&str>) -> Var {
    let arg_main = arg.map(|a| a.split('?').next().unwrap_or(a).trim());
    match (op, arg_main) {
        ("START_TIME", None) => Var::AnyStart,
        // `%START_TIME(%s.%3f)%` and strftime shapes: read by shape.
        ("START_TIME", Some(_)) => Var::AnyStart,
        ("RESPONSE_CODE", _) => Var::Status,
        ("RESPONSE_FLAGS", _) | ("RESPONSE_FLAGS_LONG", _) => Var::ResponseFlags,
        ("RESPONSE_CODE_DETAILS", _) => Var::ResponseDetails,
        ("UPSTREAM_HOST", _) => Var::UpstreamHost,
        ("DURATION", _) => Var::DurationMs,
        ("DOWNSTREAM_REMOTE_ADDRESS", _)
        | ("DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT", _)
        | ("DOWNSTREAM_DIRECT_REMOTE_ADDRESS", _)
        | ("DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT", _) => Var::RemoteAddr,
        ("REQ", Some(h)) => match h.to_ascii_lowercase().as_str() {
            ":method" => Var::Method,
            ":path" | "x-envoy-original-path" => Var::Target,
            ":authority" | "host" => Var::Host,
            ":scheme" | "x-forwarded-proto" => Var::Scheme,
            "user-agent" => Var::UserAgent,
            "x-forwarded-for" => Var::ForwardedFor,
            "x-request-id" => Var::RequestId,
            l => Var::ReqHeader(b.name(l)),
        },
        ("RESP", Some(h)) => match h.to_ascii_lowercase().as_str() {
            "x-envoy-upstream-service-time" => Var::UpstreamServiceTime,
            l => Var::RespHeader(b.name(l)),
        },
        ("BYTES_SENT", _) => Var::BodyBytes,
        ("BYTES_RECEIVED", _) => Var::Bytes,
        ("PROTOCOL", _)
        | ("CONNECTION_TERMINATION_DETAILS", _)
        | ("UPSTREAM_TRANSPORT_FAILURE_REASON", _) => Var::Ignore,
        (o, _) if is_identity_name(o) => Var::Identity,
        (o, _) => Var::Other(b.name(o)),
    }
}

/// Compile an Envoy format string (`[%START_TIME%] "%REQ(:METHOD)% ..."`).
pub fn compile_envoy(body: &str, label: impl Into<String>) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            let ch = body[i..].chars().next().unwrap_or('%');
            b.lit.push(ch);
            i += ch.len_utf8();
            continue;
        }
        let start = i + 1;
        let name_end = start
            + bytes[start..]
                .iter()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b'_')
                .count();
        if name_end == start {
            b.lit.push('%');
            i += 1;
            continue;
        }
        let op = &body[start..name_end];
        let mut j = name_end;
        let mut arg = None;
        if bytes.get(j) == Some(&b'(') {
            // Arguments may hold `%` (`%START_TIME(%s.%3f)%`): find the matching `)`.
            let mut depth = 0usize;
            let mut k = j;
            while k < bytes.len() {
                match bytes[k] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            if k >= bytes.len() {
                return Err(FormatError::UnclosedOperator(op.to_string()));
            }
            arg = Some(&body[j + 1..k]);
            j = k + 1;
        }
        if bytes.get(j) == Some(&b':') {
            j += 1 + bytes[j + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
        }
        if bytes.get(j) != Some(&b'%') {
            // Not an operator after all: literal text.
            b.lit.push_str(&body[i..j.min(bytes.len())]);
            i = j;
            continue;
        }
        let written = &body[start..j];
        let var = envoy_var(&mut b, op, arg);
        b.field(written, var, false)?;
        i = j + 1;
    }
    b.finish(Syntax::Envoy, Escape::None, label.into())
}

fn apache_var(b: &mut Builder, directive: char, arg: Option<&str>, final_status: bool) -> Var {
    match (directive, arg) {
        ('h', _) | ('a', _) => Var::RemoteAddr,
        ('u', _) => Var::RemoteUser,
        ('t', None) => Var::BracketedStart,
        ('t', Some(a)) => {
            if a.starts_with("end:") {
                Var::AnyEnd
            } else {
                Var::AnyStart
            }
        }
        ('r', _) => Var::RequestLine,
        ('s', _) => {
            if final_status {
                Var::Status
            } else {
                Var::Ignore
            }
        }
        ('D', _) => Var::DurationUs,
        ('T', Some("ms")) => Var::DurationMs,
        ('T', Some("us")) => Var::DurationUs,
        ('T', _) => Var::DurationSeconds,
        ('m', _) => Var::Method,
        ('U', _) => Var::Path,
        ('q', _) => Var::Query,
        ('v', _) | ('V', _) => Var::Host,
        ('L', _) => Var::RequestId,
        ('e', Some(e)) if e.eq_ignore_ascii_case("UNIQUE_ID") => Var::RequestId,
        ('i', Some(h)) => match h.to_ascii_lowercase().as_str() {
            "user-agent" => Var::UserAgent,
            "x-forwarded-for" => Var::ForwardedFor,
            "x-request-id" => Var::RequestId,
            "host" => Var::Host,
            "referer" => Var::Ignore,
            l => Var::ReqHeader(b.name(l)),
        },
        ('o', Some(h)) => Var::RespHeader(b.name(&h.to_ascii_lowercase())),
        ('b', _) | ('B', _) => Var::BodyBytes,
        ('I', _) | ('O', _) | ('S', _) => Var::Bytes,
        ('l', _) | ('H', _) | ('p', _) | ('P', _) | ('k', _) | ('X', _) => Var::Ignore,
        (d, a) => {
            let n = match a {
                Some(a) => format!("{{{a}}}{d}"),
                None => d.to_string(),
            };
            if a.is_some_and(is_identity_name) {
                Var::Identity
            } else {
                Var::Other(b.name(&n))
            }
        }
    }
}

/// Compile an Apache `LogFormat` (`%h %l %u %t \"%r\" %>s %b`).
pub fn compile_apache(body: &str, label: impl Into<String>) -> Result<LogFormat, FormatError> {
    let mut b = Builder::new();
    let has_final = body.contains("%>s");
    let mut i = 0;
    while i < body.len() {
        let c = body[i..].chars().next().unwrap_or('%');
        if c != '%' {
            b.lit.push(c);
            i += c.len_utf8();
            continue;
        }
        let rest = &body[i + 1..];
        if rest.starts_with('%') {
            b.lit.push('%');
            i += 2;
            continue;
        }
        // Modifiers: `<` / `>` and status conditions (`!200,304`).
        let rb = rest.as_bytes();
        let mut k = 0;
        let mut final_mod = false;
        while k < rb.len() && (b"<>!,".contains(&rb[k]) || rb[k].is_ascii_digit()) {
            final_mod |= rb[k] == b'>';
            k += 1;
        }
        let mut arg = None;
        if rb.get(k) == Some(&b'{') {
            let close = rest[k..]
                .find('}')
                .ok_or(FormatError::Unclosed("`%{` without a closing `}`"))?;
            arg = Some(&rest[k + 1..k + close]);
            k += close + 1;
        }
        let Some(d) = rest[k..].chars().next() else {
            return Err(FormatError::TrailingPercent);
        };
        let var = if d == '^' {
            // `%^ti` / `%^to`: trailers, kept by name.
            k += rest[k..].chars().take(3).map(char::len_utf8).sum::<usize>();
            Var::Other(b.name(&rest[..k]))
        } else {
            k += d.len_utf8();
            apache_var(&mut b, d, arg, final_mod || !has_final)
        };
        b.field(&rest[..k], var, false)?;
        i += 1 + k;
    }
    b.finish(Syntax::Apache, Escape::Backslash, label.into())
}

// ------------------------------------------------------------------------------------------
// `--log-format`: paste the directive from your config.

/// Compile what a user pasted: an nginx `log_format` (with or without `log_format NAME
/// [escape=...]`, quoted segments, `;`), an Envoy format string (optionally `format: "..."`
/// YAML), or an Apache `LogFormat "..." nickname` — told apart by syntax.
pub fn compile_user(spec: &str) -> Result<LogFormat, FormatError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(FormatError::Empty);
    }
    let syntax = detect_syntax(spec)?;
    match syntax {
        Syntax::Nginx => {
            let (body, escape) = nginx_body(spec);
            compile_nginx(&body, escape, "custom --log-format (nginx)")
        }
        Syntax::Envoy => {
            let body = envoy_body(spec);
            compile_envoy(&body, "custom --log-format (Envoy)")
        }
        Syntax::Apache => {
            let body = apache_body(spec);
            compile_apache(&body, "custom --log-format (Apache)")
        }
    }
}

/// Which syntax a format string is in.
pub fn detect_syntax(spec: &str) -> Result<Syntax, FormatError> {
    let b = spec.as_bytes();
    let mut nginx = 0;
    let mut envoy = 0;
    let mut apache = 0;
    for i in 0..b.len() {
        let next = b.get(i + 1).copied().unwrap_or(0);
        match b[i] {
            b'$' if next.is_ascii_alphabetic() || next == b'_' || next == b'{' => nginx += 1,
            b'%' => {
                let run = b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == b'_')
                    .count();
                let after = b.get(i + 1 + run).copied().unwrap_or(0);
                if run >= 2 && (after == b'%' || after == b'(') {
                    envoy += 1;
                } else if next.is_ascii_alphabetic() || b"<>{!".contains(&next) {
                    apache += 1;
                }
            }
            _ => {}
        }
    }
    if envoy > 0 && envoy >= nginx {
        Ok(Syntax::Envoy)
    } else if nginx > 0 {
        Ok(Syntax::Nginx)
    } else if apache > 0 {
        Ok(Syntax::Apache)
    } else {
        Err(FormatError::NoSyntax)
    }
}

/// The segments of quoted strings (`'a' "b"`), unquoted; text outside quotes is kept too.
fn unquote_segments(s: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut any_quoted = false;
    let mut it = s.chars().peekable();
    let mut outside = String::new();
    while let Some(c) = it.next() {
        match quote {
            Some(q) if c == '\\' => {
                // nginx config escapes inside quotes: \' \" \\.
                match it.peek() {
                    Some(&n) if n == q || n == '\\' => {
                        out.push(n);
                        it.next();
                    }
                    _ => out.push('\\'),
                }
            }
            Some(q) if c == q => quote = None,
            Some(_) => out.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any_quoted = true;
            }
            None => outside.push(c),
        }
    }
    if any_quoted {
        out
    } else {
        outside
    }
}

/// `log_format main escape=json '...' '...';` → (body, escape).
fn nginx_body(spec: &str) -> (String, Escape) {
    let mut s = spec.trim().trim_end_matches(';').trim();
    let mut escape = Escape::Backslash;
    if let Some(rest) = s.strip_prefix("log_format") {
        s = rest.trim_start();
        // The format's name.
        if !s.starts_with('\'') && !s.starts_with('"') {
            s = s
                .split_once(char::is_whitespace)
                .map(|(_, r)| r.trim_start())
                .unwrap_or("");
        }
    }
    for (word, e) in [
        ("escape=json", Escape::Json),
        ("escape=none", Escape::None),
        ("escape=default", Escape::Backslash),
    ] {
        if let Some(rest) = s.strip_prefix(word) {
            escape = e;
            s = rest.trim_start();
        }
    }
    let starts_quoted = s.starts_with('\'') || s.starts_with('"');
    let body = if starts_quoted {
        unquote_segments(s)
    } else {
        s.to_string()
    };
    (body, escape)
}

/// `format: "[%START_TIME%] ...\n"` → the string, without the `\n` terminator.
fn envoy_body(spec: &str) -> String {
    let mut s = spec.trim();
    for key in ["format:", "text_format:", "inline_string:", "inlineString:"] {
        if let Some(r) = s.strip_prefix(key) {
            s = r.trim();
        }
    }
    let mut body = if (s.starts_with('"') && s.ends_with('"') && s.len() >= 2)
        || (s.starts_with('\'') && s.ends_with('\'') && s.len() >= 2)
    {
        let inner = &s[1..s.len() - 1];
        inner.replace("\\\"", "\"")
    } else {
        s.to_string()
    };
    for end in ["\\n", "\n"] {
        if let Some(b) = body.strip_suffix(end) {
            body = b.to_string();
        }
    }
    body.trim_end_matches(['\r', '\n']).to_string()
}

/// `LogFormat "%h %l ..." combined` → the format string with `\"` unescaped.
fn apache_body(spec: &str) -> String {
    let mut s = spec.trim();
    if let Some(r) = s.strip_prefix("LogFormat") {
        s = r.trim();
    } else if let Some(r) = s.strip_prefix("CustomLog") {
        // CustomLog path "format"
        s = r.trim();
        if let Some(q) = s.find('"') {
            s = &s[q..];
        }
    }
    if let Some(inner) = s.strip_prefix('"') {
        // Up to the closing unescaped quote; a nickname may follow.
        let b = inner.as_bytes();
        let mut end = inner.len();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == b'"' {
                end = i;
                break;
            }
            i += 1;
        }
        return inner[..end.min(inner.len())]
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
    }
    s.replace("\\\"", "\"")
}

//! Command-line syntax (clap derive). Doc comments here are the help text. This module uses
//! nothing else of the crate: [`crate::options`] turns these raw arguments (with the
//! environment and terminals) into the library's typed settings, so no stage sees clap.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "toomany",
    version,
    about = "Diagnose HTTP 429 incidents from HAR files and request logs",
    long_about = "Diagnose HTTP 429 (Too Many Requests) incidents from HAR files and request logs: \
which layer sent each 429 (API, proxy/gateway, CDN), what the clients did wrong, and what client \
configuration stops it. Secrets are redacted on ingestion, before anything is analysed or printed.",
    after_long_help = "Examples:\n  toomany analyze capture.har\n  toomany analyze app.jsonl.gz --format json -o report.json\n  toomany redact capture.har -o capture.redacted.har\n  toomany check capture.har\n  toomany compare before.har --against after.har\n\nExit status: 0 success; 1 `check` found deviations, or a --fail-on condition of `analyze`/`compare` holds; 2 error (bad usage, or nothing could be read)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print errors only: no warnings, notes or progress on stderr (the exit status still
    /// tells a --fail-on condition or a failure).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyze HAR files and JSON-lines logs: every 429, who sent it, and what to change.
    Analyze(AnalyzeArgs),
    /// Write a sanitized copy of a HAR or JSON-lines file that is safe to attach to a ticket.
    Redact(RedactArgs),
    /// Validate a HAR strictly against the HAR 1.2/1.3 spec, entry by entry.
    Check(CheckArgs),
    /// Plan a job: N requests under an allowance with headroom: rate, spacing, concurrency,
    /// duration, and whether it fits a deadline.
    Plan(PlanArgs),
    /// Calculators: rate conversions and Little's Law.
    Calc(CalcArgs),
    /// How long should a client wait for this Retry-After value? (The analysis's own parser.)
    RetryAfter(RetryAfterArgs),
    /// Compare client policies against a limiter model offline: a deterministic simulation.
    Simulate(SimulateArgs),
    /// A local HTTP server that plays a provider's rate limiter and logs every request.
    Mock(MockArgs),
    /// Check a controlled batch against the plan: counts, spacing, in flight, retries; pass/fail.
    Verify(VerifyArgs),
    /// Did the fix work? Compare captures from before a change with captures from after it.
    Compare(CompareArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(CompletionsArgs),
    /// Print the man page (roff), or write every page to a directory with --dir.
    Man(ManArgs),
}

/// Options shared by every command that reads inputs.
#[derive(Debug, Args, Clone)]
pub struct InputArgs {
    /// Input format; sniffed from content when not given. Access logs: nginx, clf (Apache),
    /// envoy, alb, cloudfront, w3c (IIS), haproxy, cloudflare, kong, traefik, caddy, gcp-lb.
    #[arg(long, value_enum)]
    pub input_format: Option<InputFormat>,
    /// Map a JSON-lines field to a canonical one: `--map time=meta.ts` (repeatable). Canonical
    /// fields: time, method, url, host, path, status, duration_ms, request_headers,
    /// response_headers, response_body, client, request_id, client_ip, user_agent, retry_after.
    #[arg(long = "map", value_name = "CANONICAL=PATH")]
    pub maps: Vec<String>,
    /// The access log's format as written in your config, compiled and used to read every
    /// input: an nginx `log_format` body (`$remote_addr - $remote_user [$time_local] ...`,
    /// `escape=json` templates included), an Envoy format string (`[%START_TIME%] ...`) or an
    /// Apache `LogFormat` (`%h %l %u %t \"%r\" %>s %b %D`). Unknown variables are kept by name.
    #[arg(long, value_name = "FORMAT", allow_hyphen_values = true)]
    pub log_format: Option<String>,
    /// Key file for stable redaction fingerprints across runs (default: a random key per run).
    #[arg(long, value_name = "FILE")]
    pub fingerprint_key_file: Option<PathBuf>,
    /// Worker threads, `-j N` (default: one per core, or RAYON_NUM_THREADS). 1 runs everything on one
    /// thread; the report is the same whatever the number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
}

/// Formats of the analysis report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Terminal tables.
    Table,
    /// The versioned JSON report (docs/report-schema.md).
    Json,
    /// GitHub-flavoured Markdown, to paste into a ticket or pull request.
    Markdown,
    /// One self-contained HTML page with a timeline picture (no scripts fetched).
    Html,
    /// The rate-limited responses, one CSV row each (for spreadsheets).
    Csv,
    /// The rate-limited responses, one JSON object a line (for jq).
    Ndjson,
}

/// Input formats by their command-line names ([`crate::ingest::Format`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
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
    /// OpenTelemetry traces in OTLP/JSON (the file exporters' output).
    Otlp,
    /// Jaeger's JSON trace export.
    Jaeger,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany analyze samples/cdn-burst.har\n  toomany analyze logs/*.jsonl --limit 120/min --format json\n  cat app.jsonl | toomany analyze -\n  toomany analyze ci-run.har --fail-on any-429   # CI gate: exit 1 on any 429\n  toomany analyze --follow /var/log/nginx/access.log   # live; Ctrl-C prints the report\n  kubectl logs -f deploy/api | toomany analyze --follow - --view ndjson\n\nExit status: 0 success; 1 a --fail-on condition holds (the report is still written); 2 error."
)]
pub struct AnalyzeArgs {
    /// HAR files, JSON-lines logs or access logs (`-` for stdin; `.gz` is read transparently;
    /// several files, e.g. rotated `access.log*`, are merged by time).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<ReportFormat>,
    /// Write the report to FILE (atomically; `-` = stdout) instead of stdout; the format follows
    /// the extension (.json .md .html .csv .ndjson .txt; any other is an error) unless --format
    /// is given.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it is an existing regular file (never an input, a directory or a
    /// device; a FIFO or character device is written into, never replaced).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// The known limit, e.g. 120/min, 2/s, 7200/h, 10000/day, for --host's host, else the one
    /// that sent the most rate-limited responses; HOST=RATE for one host (repeatable, e.g.
    /// --limit api.example.com=120/min --limit cdn.example.com=10/s).
    #[arg(long, value_name = "[HOST=]RATE")]
    pub limit: Vec<String>,
    /// When to use colour in the table format (default: auto, which is off when stdout is not
    /// a terminal or NO_COLOR is set).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// Write the table to the terminal without a pager. By default a table longer than the
    /// screen on a terminal goes through `$PAGER` (`less` with `LESS=FRX` when unset, as git
    /// does; `PAGER=cat` or an empty PAGER turns it off); never when stdout is not a terminal.
    #[arg(long)]
    pub no_pager: bool,
    /// List every rate-limited response in the table and Markdown formats (default: the first
    /// 50) and up to 10,000 in HTML (default: 500); JSON, CSV and NDJSON always list them all.
    #[arg(long)]
    pub all: bool,
    /// The plan for this host only (a --limit without a host is its limit); with
    /// --emit-config its config goes into DIR itself (by default each rate-limited host's plan
    /// goes into DIR/<host>/ when there are several).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Exit 1 (after writing the report) when this holds: any-429, finding:KIND (burst,
    /// retry_storm, ...) or severity:info|warning|critical (that severity or worse). Repeatable;
    /// any one that holds fails.
    #[arg(long = "fail-on", value_name = "SPEC")]
    pub fail_on: Vec<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Keep reading the inputs as they grow, like `tail -F` (a rotation by rename or
    /// copytruncate is followed; `-` reads stdin until it ends), and show the last minute and
    /// the last 10 minutes every --interval. Ctrl-C (or the end of stdin) prints the full
    /// report as without --follow (docs/live.md).
    #[arg(long)]
    pub follow: bool,
    /// With --follow: seconds between two views (0.2 to 3600; default 2).
    #[arg(long, value_name = "SECONDS", requires = "follow")]
    pub interval: Option<f64>,
    /// With --follow: how each interval is shown (default auto: a screen redrawn in place when
    /// stdout is a terminal, else one JSON object per line).
    #[arg(long, value_enum, value_name = "HOW", requires = "follow")]
    pub view: Option<LiveView>,
}

/// How `analyze --follow` shows each interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LiveView {
    /// A screen on a terminal, NDJSON otherwise.
    Auto,
    /// A screen redrawn in place (on the alternate screen, like `htop`).
    Screen,
    /// One JSON object per interval, one per line (docs/live.md).
    Ndjson,
}

/// Formats of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    /// Terminal tables.
    Table,
    /// The versioned JSON comparison (docs/compare.md).
    Json,
    /// GitHub-flavoured Markdown, for a pull request.
    Markdown,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany compare samples/compare/before.har --against samples/compare/after.har\n  toomany compare old/*.jsonl --against new/*.jsonl --format json -o diff.json\n  toomany compare before.har --against after.har --fail-on regressed   # CI gate\n\nVerdict: regressed when the share of rate-limited responses grows by more than 2 points or attempts per logical request by more than 10 % (overall or on a host with at least 20 requests on both sides), or a critical finding appears; improved when not regressed and one of them falls beyond the same tolerance, or findings were resolved and none is new; unchanged otherwise.\n\nExit status: 0 success; 1 a --fail-on condition holds; 2 error."
)]
pub struct CompareArgs {
    /// The captures from before the change (HAR, JSON lines or access logs; merged by time).
    #[arg(required = true, value_name = "BEFORE")]
    pub before: Vec<String>,
    /// The captures from after the change.
    #[arg(long, required = true, num_args = 1.., value_name = "AFTER")]
    pub against: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format (default: from the -o extension, else table).
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<CompareFormat>,
    /// Write the comparison to FILE (atomically; `-` = stdout); .json and .md pick the format.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
    /// The known limit, e.g. 120/min, or HOST=RATE for one host (repeatable; applied to both
    /// sides).
    #[arg(long, value_name = "[HOST=]RATE")]
    pub limit: Vec<String>,
    /// When to use colour in the table format (default: auto, which is off when stdout is not
    /// a terminal or NO_COLOR is set).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// Exit 1 when this holds: regressed, any-429 (after the change), finding:KIND or
    /// severity:LEVEL (in the AFTER captures). Repeatable.
    #[arg(long = "fail-on", value_name = "SPEC")]
    pub fail_on: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany redact capture.har -o capture.redacted.har\n  toomany redact app.jsonl.gz -o app.redacted.jsonl.gz\n  toomany redact capture.har -o - | less\n  toomany redact capture.har -o shared.har --force --fingerprint-key-file team.key\n\nThe copy keeps everything but secrets; fingerprints are stable across runs with --fingerprint-key-file. See docs/guide.md for what is redacted."
)]
pub struct RedactArgs {
    /// The HAR or JSON-lines file to sanitize (`-` for stdin).
    #[arg(value_name = "IN")]
    pub input: String,
    /// Where to write the sanitized copy (`-` for stdout). Gzipped when it ends in .gz.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: String,
    /// Replace OUT if it is an existing regular file (never the input, a directory or a
    /// device; a FIFO or character device is written into, never replaced).
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany check capture.har\n  toomany check capture.har.gz --format json | jq '.deviations[] | .field'\n  toomany check export.har --max-issues 20\n\nExit status: 0 valid; 1 deviations found (each names its entry and field); 2 not a HAR or unreadable."
)]
pub struct CheckArgs {
    /// The HAR file to validate (`-` for stdin; `.gz` is read transparently).
    #[arg(value_name = "IN")]
    pub input: String,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Most deviations listed (all are counted).
    #[arg(long, default_value_t = 200)]
    pub max_issues: usize,
}

/// Recommendation knobs shared by `analyze` and `plan`; every default is a flag.
#[derive(Debug, Args, Clone)]
pub struct PolicyArgs {
    /// Share of the allowance to use (more than 0, at most 1), leaving the rest for other callers.
    #[arg(long, default_value_t = 0.75, value_name = "H")]
    pub headroom: f64,
    /// Mean response time, e.g. 2s or 350ms (default: measured from the input).
    #[arg(long, value_name = "DURATION")]
    pub latency: Option<String>,
    /// Attempts per request in all, the first included, across every layer (5 = 4 retries).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub max_attempts: u32,
    /// First backoff window.
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    pub backoff_base: String,
    /// Largest backoff window.
    #[arg(long, default_value = "8s", value_name = "DURATION")]
    pub backoff_cap: String,
    /// Total time for one request, every attempt and wait included; a Retry-After longer than
    /// what is left means stop, not wait. Default: 30s, raised in an analysis to fit the
    /// Retry-After the server stated (up to 2 min) plus the spread.
    #[arg(long, value_name = "DURATION")]
    pub retry_deadline: Option<String>,
    /// Random spread added on top of the server's Retry-After.
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    pub retry_after_spread: String,
    /// Per-attempt timeout (default: 3 × p95 response time, whole seconds).
    #[arg(long, value_name = "DURATION")]
    pub attempt_timeout: Option<String>,
    /// Write ready-to-use config files for the --target tools into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    pub emit_config: Option<PathBuf>,
    /// Config targets for --emit-config: all, toomany, envoy, grpc, urllib3, tenacity,
    /// resilience4j, dotnet, bottleneck, retryablehttp (comma-separated).
    /// Default: all. Only with --emit-config (alone it would do nothing).
    #[arg(long, value_name = "LIST", requires = "emit_config")]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany plan --requests 600 --limit 120/min --latency 2s\n  toomany plan --requests 600 --limit 120/min --deadline 5m --format json\n  toomany plan --requests 20000 --limit 10000/day --emit-config ./client-config   # spans 3 days"
)]
pub struct PlanArgs {
    /// Requests the job has to send.
    #[arg(long, value_name = "N")]
    pub requests: u64,
    /// The allowance, e.g. 120/min, 2/s, 7200/h, 10000/day, 90rpm.
    #[arg(long, value_name = "RATE")]
    pub limit: String,
    /// Time the job must finish in, e.g. 10m.
    #[arg(long, value_name = "DURATION")]
    pub deadline: Option<String>,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: OutputFormat,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany calc rate 90/min\n  toomany calc concurrency --rate 1.5/s --latency 2s\n  toomany calc concurrency --concurrency 3 --latency 2s\n  toomany calc concurrency --rate 1.5/s --concurrency 3"
)]
pub struct CalcArgs {
    #[command(subcommand)]
    pub what: CalcCommand,
}

#[derive(Debug, Subcommand)]
pub enum CalcCommand {
    /// Convert a rate: per second, minute, hour and day, and the spacing between starts.
    Rate {
        /// e.g. 90/min, 1.5/s, 7200/h, 10000/day, 90rpm.
        #[arg(value_name = "RATE")]
        rate: String,
        #[arg(long, short = 'f', value_enum, default_value = "table")]
        format: OutputFormat,
    },
    /// Little's Law (in flight = rate × latency): give any two of --rate, --latency,
    /// --concurrency to get the third.
    Concurrency {
        /// Request starts, e.g. 1.5/s or 90/min.
        #[arg(long, value_name = "RATE")]
        rate: Option<String>,
        /// Mean response time, e.g. 2s.
        #[arg(long, value_name = "DURATION")]
        latency: Option<String>,
        /// Requests in flight.
        #[arg(long, value_name = "N")]
        concurrency: Option<f64>,
        #[arg(long, short = 'f', value_enum, default_value = "table")]
        format: OutputFormat,
    },
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Delay-seconds are seconds (`12` = 12 s, never ms). An HTTP-date (IMF-fixdate, RFC 850 or asctime) gives the \
time left until then, measured from --date (the response's own Date header) if given, else --now, else the clock. \
A date in the past or an unusable value gives a random wait inside min(8 s, 1 s × 2^attempt) (full jitter).\n\n\
Examples:\n  toomany retry-after 12\n  toomany retry-after \"Sun, 06 Nov 1994 08:49:37 GMT\" --now \"Sun, 06 Nov 1994 08:49:07 GMT\"\n  \
toomany retry-after 1500 --header retry-after-ms\n  toomany retry-after soon --attempt 3 --format json"
)]
pub struct RetryAfterArgs {
    /// The header value: delay-seconds or an HTTP-date.
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
    pub value: String,
    /// The response's own Date header: a date value is measured from it (immune to clock skew).
    #[arg(long, value_name = "RESPONSE_DATE")]
    pub date: Option<String>,
    /// The current time (HTTP-date, RFC 3339 or epoch seconds), used when --date is not given.
    /// Default: the system clock.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Retry number, 0 for the first retry: sets the fallback window min(8 s, 1 s × 2^N).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub attempt: u32,
    /// The header VALUE came from: retry-after (seconds), or retry-after-ms / x-ms-retry-after-ms
    /// (milliseconds).
    #[arg(long, value_name = "NAME", default_value = "retry-after")]
    pub header: String,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: OutputFormat,
}

/// Whether a simulated server sends Retry-After on refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimRetryAfter {
    /// The model's wait in whole seconds, rounded up.
    Seconds,
    None,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Policies: naive (every request at its arrival, no spacing, no retries), no-jitter (the plan's \
attempt cap and exponential windows, sleeping each whole window, Retry-After as a minimum), full-jitter (the plan's \
retries without its spacing), grpc (a gRPC client given the emitted service config: gRFC A6 backoff \
min(initial·2^(n−1), max)·random(0.8, 1.2), at most 5 attempts, HTTP Retry-After not read, retryThrottling 10/0.1), \
or a toomany.toml / toomany.json written by `toomany plan|analyze --emit-config` (its spacing and in-flight cap \
per client, full jitter, Retry-After + spread, attempt cap, deadline). The built-ins take the plan's retry \
knobs from the first policy file given, else the defaults (5 attempts, 1 s / 8 s, 30 s deadline).\n\n\
Limits (see docs/limiters.md): fixed-window:120/min, sliding-window:120/min[,count-rejected], \
token-bucket:2/s,burst=5, gcra:2/s,burst=5, leaky-bucket:2/s,burst=5[,nodelay|,delay=N], concurrency:4, daily:1000.\n\n\
Examples:\n  toomany simulate --policy naive --policy ./client-config/toomany.toml --limit fixed-window:120/min --requests 600\n  \
toomany simulate --policy naive --limit fixed-window:120/min --requests 600 --arrival spaced:667ms\n  \
toomany simulate --policy no-jitter --policy full-jitter --limit gcra:10/s,burst=10 --requests 200 --clients 100 --retry-after none --format json"
)]
pub struct SimulateArgs {
    /// A built-in policy (naive, no-jitter, full-jitter, grpc) or a toomany.toml/.json;
    /// repeat to compare side by side.
    #[arg(long = "policy", required = true, value_name = "POLICY")]
    pub policies: Vec<String>,
    /// The limiter model, e.g. fixed-window:120/min.
    #[arg(long, value_name = "SPEC")]
    pub limit: String,
    /// Requests in all, across every client.
    #[arg(long, value_name = "N")]
    pub requests: u64,
    /// Clients sharing the limit, each following the policy on its own (request i belongs to
    /// client i mod K).
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub clients: u64,
    /// When first attempts arrive: burst (all at t = 0), spaced[:INTERVAL] or poisson[:RATE]
    /// (default interval/rate: the limit's own rate).
    #[arg(long, default_value = "burst", value_name = "PATTERN")]
    pub arrival: String,
    /// Time every response takes.
    #[arg(long, default_value = "200ms", value_name = "DURATION")]
    pub latency: String,
    /// Seed of the simulation's own PRNG: the same seed gives the same output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Whether the server sends Retry-After on refusals.
    #[arg(long, value_enum, default_value = "seconds")]
    pub retry_after: SimRetryAfter,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: OutputFormat,
}

/// How `mock` writes its rate-limit headers ([`crate::limiter::headers::HeaderStyle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HeaderStyle {
    /// `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11).
    Ietf,
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds).
    XRatelimit,
    Both,
    None,
}

/// How `mock` writes Retry-After ([`crate::limiter::headers::RetryAfterStyle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RetryAfterStyle {
    /// Delta-seconds, rounded up.
    Seconds,
    /// An IMF-fixdate (HTTP-date).
    Date,
    /// An HTTP-date 30 s before the response's `Date`: a client must still wait (RFC 9110 gives
    /// it no meaning of "now"), not retry at once.
    Past,
    None,
}

/// The body of `mock`'s refusals ([`crate::limiter::headers::BodyStyle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BodyStyle {
    /// `application/problem+json` with the draft's `quota-exceeded` problem type.
    Json,
    Text,
    Html,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "The first line on stdout is `listening on http://ADDRESS`. Any method and path is answered: \
admitted requests get 200 and a small JSON body, refused ones the --status, the model's own Retry-After and rate-limit \
headers, and a --body; or, with --preset, exactly what that provider sends (status, headers, body, limit model and \
its documented limits; `toomany mock --list-presets`). Every request is logged as one JSON line (time, method, url, \
status, duration_ms, request_headers, response_headers, the refusal's response_body, client, the limiter's decision, \
abandoned when the client hung up, fault) that `toomany analyze` and `toomany verify` read as they are; credentials \
in the log are redacted. A request header X-Client-Id (or X-Worker-Id) names the client, else its IP. Stops on \
--exit-after, --duration, Ctrl-C or SIGTERM, and then writes the log.\n\n\
Limits (see docs/limiters.md): fixed-window:120/min[,align=first], sliding-window:120/min[,count-rejected], \
token-bucket:2/s,burst=5[,interval=1s], gcra:2/s,burst=5, leaky-bucket:2/s,burst=5[,nodelay|,delay=N], concurrency:4, \
daily:1000; each may add ,cost=request|body:max_tokens|header:NAME|estimate|points:1/5, \
,key=global|ip|client|credential|header:NAME and ,name=NAME. Repeat --limit for several limits at once. With a \
preset, --limit NAME=10/min (or just 10/min for a one-limit preset) changes its numbers and keeps its shape.\n\n\
Faults (seeded by --seed, on admitted requests): --fault delay=10%:2s, 503=5%, 503=5%:30s, reset=2%, truncate=2%.\n\n\
Examples:\n  toomany mock --limit fixed-window:120/min --log mock.jsonl\n  \
toomany mock --preset openai --limit tokens=20000/min --log mock.jsonl\n  \
toomany mock --limit token-bucket:60/min,burst=60,name=requests --limit token-bucket:40000/min,burst=40000,cost=body:max_tokens,key=credential,name=tokens\n  \
toomany mock --limit leaky-bucket:10/s,burst=5 --status 503 --retry-after none --latency 50ms --exit-after 20 --log mock.jsonl\n  \
toomany mock --preset github-secondary --fault 503=5%:10s --fault reset=1% --seed 7 --retry-after date --duration 60s"
)]
pub struct MockArgs {
    /// Address to listen on (port 0 picks a free one). Only loopback unless
    /// --allow-non-loopback.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR:PORT")]
    pub listen: String,
    /// Listen on a non-loopback address: anyone who can reach it can use the mock.
    #[arg(long)]
    pub allow_non_loopback: bool,
    /// A limit, e.g. fixed-window:120/min (repeatable: every limit must admit a request). With
    /// --preset: NAME=RATE changes a preset limit's numbers.
    #[arg(long, value_name = "SPEC", required_unless_present_any = ["preset", "list_presets"])]
    pub limit: Vec<String>,
    /// Answer as this provider does (status, headers, body, limits); see --list-presets.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// List the presets with their limits and sources, then exit.
    #[arg(long, exclusive = true)]
    pub list_presets: bool,
    /// Retry-After on refusals: delta-seconds (rounded up), an HTTP-date, an HTTP-date in the
    /// past, or none (default: seconds, or the preset's own form).
    #[arg(long, value_enum)]
    pub retry_after: Option<RetryAfterStyle>,
    /// Rate-limit headers on every response.
    #[arg(long, value_enum, default_value = "both", conflicts_with = "preset")]
    pub headers: HeaderStyle,
    /// Body of a refusal.
    #[arg(long, value_enum, default_value = "json", conflicts_with = "preset")]
    pub body: BodyStyle,
    /// Status of a refusal (nginx's limit_req answers 503 by default).
    #[arg(
        long,
        default_value_t = 429,
        value_name = "CODE",
        conflicts_with = "preset"
    )]
    pub status: u16,
    /// Inject faults into a share of admitted requests: delay=10%:2s, 503=5%[:30s], reset=2%,
    /// truncate=2% (repeatable).
    #[arg(long = "fault", value_name = "KIND=SHARE[:ARG]")]
    pub faults: Vec<String>,
    /// Seed of the faults (and request ids): the same seed and request order give the same run.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub seed: u64,
    /// Time every response takes (admitted ones after any nginx-style hold).
    #[arg(long, default_value = "0ms", value_name = "DURATION")]
    pub latency: String,
    /// Write the request log (JSON lines) to FILE when the mock stops (`-` = stdout, line by
    /// line).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Replace an existing --log file.
    #[arg(long)]
    pub force: bool,
    /// Stop after answering N requests.
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub exit_after: Option<u64>,
    /// Stop after this long, e.g. 60s.
    #[arg(long, value_name = "DURATION")]
    pub duration: Option<String>,
    /// Connections served at once (more wait in the listen queue).
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_connections: usize,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Attempts are grouped into logical requests (client, method, URL and, for writes, the body; a \
retry follows a failed attempt of the same operation), counted (first attempts, retries, successes, final failures), \
and checked against the plan: start_rate (first attempts at least min_interval_ms apart), concurrency (at most \
max_in_flight overlap), retry_after_honoured (no retry before Retry-After; workers told the same moment spread \
out), attempt_cap (all layers together), deadline, jitter (workers refused together do not retry together), \
idempotency (retried writes carry one stable key). Give each logical request its own URL. Every time comparison \
allows --tolerance. Exit 0 = pass, 1 = fail, 2 = unreadable or unjudgeable input. See docs/verify.md.\n\n\
Examples:\n  toomany verify mock.jsonl --plan client-config/toomany.toml\n  \
toomany verify batch.har --plan toomany.json --format json"
)]
pub struct VerifyArgs {
    /// Captures of the batch: the mock's log, a HAR, JSON lines (anything analyze reads).
    #[arg(required = true, value_name = "CAPTURE")]
    pub files: Vec<String>,
    /// The plan: a toomany.toml or toomany.json written by `plan|analyze --emit-config`.
    #[arg(long, value_name = "FILE")]
    pub plan: PathBuf,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Slack for every time comparison (clock jitter, a busy client process), e.g. 20ms.
    #[arg(long, value_name = "DURATION")]
    pub tolerance: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Install (the script is generated from the same definitions as the parser, so it follows every flag):\n  toomany completions bash > ~/.local/share/bash-completion/completions/toomany\n  toomany completions zsh > ~/.zfunc/_toomany     # with fpath+=(~/.zfunc) before compinit\n  toomany completions fish > ~/.config/fish/completions/toomany.fish\n  toomany completions powershell >> $PROFILE"
)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Examples:\n  toomany man | man -l -                     # read toomany(1)\n  toomany man analyze | man -l -             # toomany-analyze(1)\n  toomany man --dir /usr/local/share/man/man1   # every page, for packagers"
)]
pub struct ManArgs {
    /// The command whose page to print (`toomany-COMMAND(1)`); none: `toomany(1)`.
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write every page (toomany.1, toomany-COMMAND.1 ...) into DIR (created when missing)
    /// instead of printing one.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Replace pages that already exist in --dir.
    #[arg(long, requires = "dir")]
    pub force: bool,
}

//! toomany: diagnose HTTP 429 incidents from HAR files and request logs.
//!
//! The pipeline, one module per stage:
//! bytes --[`ingest`]--> raw entry --[`redact`] + normalize--> [`model::Request`]
//! --[`analyze`] ([`attribute`], [`detect`])--> [`report::Report`] --[`render`]--> bytes.

pub mod analyze;
pub mod attribute;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod compare;
pub mod console;
pub mod detect;
pub mod http;
pub mod ingest;
pub mod limiter;
pub mod memo;
pub mod mock;
pub mod model;
pub mod options;
pub mod output;
pub mod overview;
pub mod recommend;
pub mod redact;
pub mod render;
pub mod report;
pub mod simulate;
pub mod stats;
pub mod units;
pub mod verify;

//! HTTP helpers shared by ingestion and analysis: URL pieces, HTTP dates, Retry-After.

pub mod date;
pub mod name_memo;
pub mod ratelimit;
pub mod retry_after;
pub mod url;

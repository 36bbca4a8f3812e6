//! HTTP vocabulary shared by every stage: the header map, URL pieces, HTTP dates, Retry-After
//! and rate-limit headers. Depends on nothing above [`crate::units`].

pub mod date;
pub mod headers;
pub mod idempotency;
pub mod ratelimit;
pub mod retry_after;
pub mod stated;
pub mod url;

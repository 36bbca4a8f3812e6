//! Mean response time for Little's Law: from `--latency`, else the observed responses, else
//! assumed.

use super::evidence::Durations;
use super::target::round6;
use super::ASSUMED_LATENCY_MS;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencySource {
    /// `--latency`.
    Flag,
    /// Response times in the input.
    Observed,
    /// Neither: [`ASSUMED_LATENCY_MS`].
    Assumed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub source: LatencySource,
    /// Mean response time used for Little's Law, ms.
    pub mean_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p95_ms: Option<f64>,
    /// Responses the times came from.
    pub samples: usize,
    /// Requests in flight needed if every response took the p95 time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency_at_p95: Option<u32>,
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[(rank - 1).min(sorted.len() - 1)]
}

/// Latency from flag, else from the responses' durations, else assumed.
pub fn latency(flag_ms: Option<f64>, durations: &Durations) -> Latency {
    if let Some(ms) = flag_ms {
        return Latency {
            source: LatencySource::Flag,
            mean_ms: ms,
            p50_ms: None,
            p95_ms: None,
            samples: 0,
            concurrency_at_p95: None,
        };
    }
    let d = durations.sorted();
    if d.is_empty() {
        return Latency {
            source: LatencySource::Assumed,
            mean_ms: ASSUMED_LATENCY_MS,
            p50_ms: None,
            p95_ms: None,
            samples: 0,
            concurrency_at_p95: None,
        };
    }
    let mean = durations.mean(&d);
    Latency {
        source: LatencySource::Observed,
        mean_ms: round6(mean),
        p50_ms: Some(percentile(&d, 50.0)),
        p95_ms: Some(percentile(&d, 95.0)),
        samples: durations.count(),
        concurrency_at_p95: None,
    }
}

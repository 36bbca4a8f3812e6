//! Limit wording in prose: a 400, 403 or 503 whose body says in words that the client's
//! requests went over a limit ("Developer Over Rate", "the allowed number of requests has been
//! exceeded", "daily transaction limit reached") is a rate limit, though no documented code or
//! rate-limit header says so.
//!
//! The rule, in one sentence: the body names a **counted thing** (requests, calls, queries,
//! transactions, the rate, QPS) together with a **limit** (limit, threshold, quota, allowance)
//! or the allowed **number** of them, and says it was **exceeded** (exceeded, reached, over,
//! hit, exhausted). A limit on something else (a file's size, a field's length, storage) is
//! not a rate limit, and neither is a 403 that only says "forbidden".

/// What requests are counted as: a limit on one of these is a limit on the client's traffic.
const COUNTED: &[&str] = &[
    "request",
    "requests",
    "call",
    "calls",
    "query",
    "queries",
    "transaction",
    "transactions",
    "rate",
    "qps",
    "rps",
    "api",
    "hits",
];

/// The nouns of a ceiling.
const LIMIT: &[&str] = &["limit", "limits", "threshold", "quota", "allowance", "cap"];

/// A window right before a ceiling makes it a limit on traffic over time ("your daily limit",
/// "monthly quota"): nothing but requests and their kin is counted per day; a window before
/// another noun ("daily storage limit", "monthly bandwidth cap") is not this.
const WINDOWED: &[&str] = &[
    "daily", "hourly", "monthly", "weekly", "minutely", "yearly", "annual",
];

/// Words that may stand between a counted thing and its limit ("daily transaction limit",
/// "request rate threshold", "queries per second limit").
const QUALIFIER: &[&str] = &[
    "daily", "hourly", "monthly", "weekly", "per", "second", "minute", "hour", "day", "month",
    "rate", "usage", "the", "your", "its", "of", "allowed",
];

/// The verbs saying the limit was gone past; `over` counts only right before the phrase
/// ("Developer Over Rate", "over daily limit"), where it cannot be "over the maximum of 100".
const EXCEEDED: &[&str] = &[
    "exceeded",
    "exceeds",
    "exceed",
    "exceeding",
    "reached",
    "hit",
    "surpassed",
    "exhausted",
];

/// How many words from the phrase the verb may be ("has been exceeded", "you have reached
/// your daily transaction limit").
const NEAR: usize = 6;

/// The lower-cased words of a text (letters and digits; everything else separates).
fn words(text_lc: &str) -> Vec<&str> {
    text_lc
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The phrase of the body that states a limit on requests was exceeded, or `None`.
pub fn limit_phrase(body_lc: &str) -> Option<String> {
    // The statement is at the top: a body is read as far as its first few hundred words.
    let w: Vec<&str> = words(body_lc).into_iter().take(400).collect();
    (0..w.len()).find_map(|i| {
        let (from, to) = over_rate(&w, i)
            .or_else(|| counted_limit(&w, i))
            .or_else(|| allowed_number(&w, i))?;
        let over = (from >= 1 && w[from - 1] == "over") || w[from] == "over";
        let near = &w[from.saturating_sub(NEAR)..(to + 1 + NEAR).min(w.len())];
        (over || near.iter().any(|x| EXCEEDED.contains(x))).then(|| w[from..=to].join(" "))
    })
}

/// `over rate`, `over qps` (Mashery's "Developer Over Rate"): the span of the two words.
fn over_rate(w: &[&str], i: usize) -> Option<(usize, usize)> {
    (w[i] == "over" && w.get(i + 1).is_some_and(|n| ["rate", "qps"].contains(n)))
        .then_some((i, i + 1))
}

/// `w[i]` is a limit noun with a counted thing before it and only qualifiers between them
/// ("daily transaction limit", "request rate threshold"): the span from the counted thing.
fn counted_limit(w: &[&str], i: usize) -> Option<(usize, usize)> {
    if !LIMIT.contains(&w[i]) {
        return None;
    }
    (i.saturating_sub(4)..i).rev().find_map(|j| {
        let between_ok = w[j + 1..i].iter().all(|x| QUALIFIER.contains(x));
        let windowed = WINDOWED.contains(&w[j]) && j + 1 == i;
        ((COUNTED.contains(&w[j]) && between_ok) || windowed).then_some((j, i))
    })
}

/// "the allowed number of requests", "maximum number of calls": a count of the counted thing.
fn allowed_number(w: &[&str], i: usize) -> Option<(usize, usize)> {
    let number = w[i] == "number" && w.get(i + 1) == Some(&"of");
    let counted = w
        .get(i + 2)
        .is_some_and(|x| COUNTED.contains(x) && *x != "rate");
    (number && counted).then_some((i, i + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrase(s: &str) -> Option<String> {
        limit_phrase(&s.to_lowercase())
    }

    #[test]
    fn limits_on_requests_stated_in_words() {
        // TIBCO Mashery's 403 (https://docs.mashery.com/connectorsguide/GUID-…: "403 Developer
        // Over Rate", "Developer Over Qps", X-Error-Detail-Header "Account Over Queries Per
        // Second Limit").
        assert_eq!(
            phrase("<h1>Developer Over Rate</h1>").as_deref(),
            Some("over rate")
        );
        assert_eq!(
            phrase("<h1>Developer Over Qps</h1>").as_deref(),
            Some("over qps")
        );
        assert!(phrase("Account Over Queries Per Second Limit").is_some());
        assert!(phrase("Request Rate Threshold Exceeded").is_some());
        assert_eq!(
            phrase("The allowed number of requests has been exceeded.").as_deref(),
            Some("number of requests")
        );
        assert!(phrase("You have reached your daily transaction limit.").is_some());
        assert!(phrase("{\"error\":\"API call limit exceeded for this key\"}").is_some());
        assert!(phrase("Maximum number of calls per hour exceeded").is_some());
        // A window right before the ceiling: a limit on traffic over time.
        assert_eq!(
            phrase("You have exceeded your daily limit").as_deref(),
            Some("daily limit")
        );
        assert!(phrase("Monthly quota exceeded").is_some());
    }

    #[test]
    fn other_limits_and_plain_refusals_are_not_rate_limits() {
        for body in [
            "403 Forbidden",
            "<html><title>403 Forbidden</title><h1>Forbidden</h1>You don't have permission.</html>",
            "{\"message\":\"Forbidden\"}",
            "Request size limit exceeded",
            "The file exceeds the maximum upload size limit",
            "Maximum number of characters exceeded",
            "You have exceeded your storage limit",
            "Invalid parameter: limit must be at most 100",
            "Request header fields too large",
            "Service Unavailable: the server is over capacity",
            "request limit",
            "Invalid request: limit is over the maximum of 100",
            "Go over to the API quota settings page",
            "You have exceeded your daily storage limit",
            "Monthly bandwidth cap exceeded",
        ] {
            assert_eq!(phrase(body), None, "{body}");
        }
    }
}

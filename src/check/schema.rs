//! The HAR 1.2 spec (and the 1.3 draft's additions) as a table: every object's fields with
//! their JSON type, whether they are required, and the value rule the spec states for them.
//! One validator walks any object against its table, so a rule lives in one row.
//!
//! Source: "HAR 1.2 Spec", Jan Odvarko (softwareishard.com/blog/har-12-spec), the format every
//! exporter cites; 1.3 additions as the `har` crate models them (headersCompression,
//! postData/params encoding). Where the `har` crate is laxer than the spec (it defaults a missing
//! response.redirectURL, bodySize, content.size or content.mimeType), the spec wins here.

use serde_json::Value;

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    Str,
    Num,
    /// A number with no fraction (an HTTP status).
    Int,
    Bool,
    Obj(&'static [Field]),
    /// An object, or `null` where the spec gives `null` a meaning (a cache's "no cache entry").
    ObjOrNull(&'static [Field]),
    /// An array of objects of one kind.
    Arr(&'static [Field]),
}

/// Whether a field must be present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Required,
    Optional,
    /// Optional in HAR 1.3; not a 1.2 field.
    Optional13,
}

/// The value rule the spec gives a field, beyond its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    None,
    /// ISO 8601 date and time with a time zone (`YYYY-MM-DDThh:mm:ss.sTZD`).
    Date,
    /// Milliseconds or bytes, `-1` when not available.
    NonNegOrUnknown,
    /// Never negative (the spec gives no "not available" value).
    NonNeg,
    /// An HTTP status: 100–999, or 0 for "no response" (what browsers write for a failure).
    Status,
    /// "Absolute URL of the request (fragments are not included)": a scheme, no `#`.
    AbsoluteUrl,
}

#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub need: Need,
    pub rule: Rule,
}

const fn f(name: &'static str, ty: Ty, need: Need, rule: Rule) -> Field {
    Field {
        name,
        ty,
        need,
        rule,
    }
}

use Need::{Optional as Opt, Optional13 as Opt13, Required as Req};
use Rule::None as Plain;

const COMMENT: Field = f("comment", Ty::Str, Opt, Plain);

pub const CREATOR: &[Field] = &[
    f("name", Ty::Str, Req, Plain),
    f("version", Ty::Str, Req, Plain),
    COMMENT,
];

pub const PAGE_TIMINGS: &[Field] = &[
    f("onContentLoad", Ty::Num, Opt, Rule::NonNegOrUnknown),
    f("onLoad", Ty::Num, Opt, Rule::NonNegOrUnknown),
    COMMENT,
];

pub const PAGE: &[Field] = &[
    f("startedDateTime", Ty::Str, Req, Rule::Date),
    f("id", Ty::Str, Req, Plain),
    f("title", Ty::Str, Req, Plain),
    f("pageTimings", Ty::Obj(PAGE_TIMINGS), Req, Plain),
    COMMENT,
];

const NAME_VALUE: &[Field] = &[
    f("name", Ty::Str, Req, Plain),
    f("value", Ty::Str, Req, Plain),
    COMMENT,
];

const COOKIE: &[Field] = &[
    f("name", Ty::Str, Req, Plain),
    f("value", Ty::Str, Req, Plain),
    f("path", Ty::Str, Opt, Plain),
    f("domain", Ty::Str, Opt, Plain),
    f("expires", Ty::Str, Opt, Rule::Date),
    f("httpOnly", Ty::Bool, Opt, Plain),
    f("secure", Ty::Bool, Opt, Plain),
    COMMENT,
];

const PARAM: &[Field] = &[
    f("name", Ty::Str, Req, Plain),
    f("value", Ty::Str, Opt, Plain),
    f("fileName", Ty::Str, Opt, Plain),
    f("contentType", Ty::Str, Opt, Plain),
    f("encoding", Ty::Str, Opt13, Plain),
    COMMENT,
];

/// `text` and `params` are "mutually exclusive" alternatives, so neither is required alone.
const POST_DATA: &[Field] = &[
    f("mimeType", Ty::Str, Req, Plain),
    f("params", Ty::Arr(PARAM), Opt, Plain),
    f("text", Ty::Str, Opt, Plain),
    f("encoding", Ty::Str, Opt13, Plain),
    COMMENT,
];

const REQUEST: &[Field] = &[
    f("method", Ty::Str, Req, Plain),
    f("url", Ty::Str, Req, Rule::AbsoluteUrl),
    f("httpVersion", Ty::Str, Req, Plain),
    f("cookies", Ty::Arr(COOKIE), Req, Plain),
    f("headers", Ty::Arr(NAME_VALUE), Req, Plain),
    f("queryString", Ty::Arr(NAME_VALUE), Req, Plain),
    f("postData", Ty::Obj(POST_DATA), Opt, Plain),
    f("headersSize", Ty::Num, Req, Rule::NonNegOrUnknown),
    f("bodySize", Ty::Num, Req, Rule::NonNegOrUnknown),
    f("headersCompression", Ty::Num, Opt13, Plain),
    COMMENT,
];

const CONTENT: &[Field] = &[
    f("size", Ty::Num, Req, Rule::NonNeg),
    f("compression", Ty::Num, Opt, Plain),
    f("mimeType", Ty::Str, Req, Plain),
    f("text", Ty::Str, Opt, Plain),
    f("encoding", Ty::Str, Opt, Plain),
    COMMENT,
];

const RESPONSE: &[Field] = &[
    f("status", Ty::Int, Req, Rule::Status),
    f("statusText", Ty::Str, Req, Plain),
    f("httpVersion", Ty::Str, Req, Plain),
    f("cookies", Ty::Arr(COOKIE), Req, Plain),
    f("headers", Ty::Arr(NAME_VALUE), Req, Plain),
    f("content", Ty::Obj(CONTENT), Req, Plain),
    f("redirectURL", Ty::Str, Req, Plain),
    f("headersSize", Ty::Num, Req, Rule::NonNegOrUnknown),
    f("bodySize", Ty::Num, Req, Rule::NonNegOrUnknown),
    f("headersCompression", Ty::Num, Opt13, Plain),
    COMMENT,
];

/// The spec gives the cache entry's times no format (unlike the ISO 8601 it names for page,
/// entry and cookie times), and its own example writes `"2009-16-02T15:50:34"`: only their type
/// is checked.
const CACHE_ENTRY: &[Field] = &[
    f("expires", Ty::Str, Opt, Plain),
    f("lastAccess", Ty::Str, Req, Plain),
    f("eTag", Ty::Str, Req, Plain),
    f("hitCount", Ty::Num, Req, Rule::NonNeg),
    COMMENT,
];

/// `null` is the spec's "no cache entry" (its examples 2–4); a missing member is "not known".
const CACHE: &[Field] = &[
    f("beforeRequest", Ty::ObjOrNull(CACHE_ENTRY), Opt, Plain),
    f("afterRequest", Ty::ObjOrNull(CACHE_ENTRY), Opt, Plain),
    COMMENT,
];

/// `ssl` is part of `connect` when present (kept for HAR 1.1 compatibility).
pub const TIMINGS: &[Field] = &[
    f("blocked", Ty::Num, Opt, Rule::NonNegOrUnknown),
    f("dns", Ty::Num, Opt, Rule::NonNegOrUnknown),
    f("connect", Ty::Num, Opt, Rule::NonNegOrUnknown),
    f("send", Ty::Num, Req, Rule::NonNeg),
    f("wait", Ty::Num, Req, Rule::NonNeg),
    f("receive", Ty::Num, Req, Rule::NonNeg),
    f("ssl", Ty::Num, Opt, Rule::NonNegOrUnknown),
    COMMENT,
];

pub const ENTRY: &[Field] = &[
    f("pageref", Ty::Str, Opt, Plain),
    f("startedDateTime", Ty::Str, Req, Rule::Date),
    f("time", Ty::Num, Req, Rule::NonNeg),
    f("request", Ty::Obj(REQUEST), Req, Plain),
    f("response", Ty::Obj(RESPONSE), Req, Plain),
    f("cache", Ty::Obj(CACHE), Req, Plain),
    f("timings", Ty::Obj(TIMINGS), Req, Plain),
    f("serverIPAddress", Ty::Str, Opt, Plain),
    f("connection", Ty::Str, Opt, Plain),
    COMMENT,
];

/// The members of `log` (its `version` has its own rule, see `check::version_problem`).
pub const LOG: &[Field] = &[
    f("version", Ty::Str, Req, Plain),
    f("creator", Ty::Obj(CREATOR), Req, Plain),
    f("browser", Ty::Obj(CREATOR), Opt, Plain),
    f("pages", Ty::Arr(PAGE), Opt, Plain),
    f("entries", Ty::Arr(ENTRY), Req, Plain),
    COMMENT,
];

fn ty_name(ty: Ty) -> &'static str {
    match ty {
        Ty::Str => "a string",
        Ty::Num => "a number",
        Ty::Int => "a whole number",
        Ty::Bool => "true or false",
        Ty::Obj(_) => "an object",
        Ty::ObjOrNull(_) => "an object or null",
        Ty::Arr(_) => "an array of objects",
    }
}

/// What a value is, for "should be X, found Y" (never the value itself).
pub fn found(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "true/false".into(),
        Value::Number(_) => "a number".into(),
        Value::String(s) if s.is_empty() => "an empty string".into(),
        Value::String(_) => "a string".into(),
        Value::Array(a) if a.is_empty() => "an empty array".into(),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// One deviation inside an object: the field path (relative to the object) and the problem.
pub type Found = (String, String);

/// Which spec the file is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spec {
    V12,
    V13,
}

/// Check `obj` against `fields`; `prefix` is the path of `obj` inside the located object
/// (`""`, `request.`, `request.cookies[2].`).
pub fn validate(obj: &Value, fields: &[Field], spec: Spec, prefix: &str, out: &mut Vec<Found>) {
    let Value::Object(map) = obj else {
        return;
    };
    for fl in fields.iter().filter(|fl| fl.need == Need::Required) {
        if !map.contains_key(fl.name) {
            out.push((
                format!("{prefix}{}", fl.name),
                format!("missing (required: {})", ty_name(fl.ty)),
            ));
        }
    }
    validate_present(obj, fields, spec, prefix, out);
}

/// The problem reported for a 1.3-only field in a 1.2 file.
pub const V13_FIELD: &str = "a HAR 1.3 field in a file that says it is 1.2";

/// [`validate`] without the missing-field check: only the members present, in file order.
pub fn validate_present(
    obj: &Value,
    fields: &[Field],
    spec: Spec,
    prefix: &str,
    out: &mut Vec<Found>,
) {
    let Value::Object(map) = obj else {
        return;
    };
    for (key, v) in map {
        if key.starts_with('_') {
            continue;
        }
        match fields.iter().find(|fl| fl.name == key) {
            Some(fl) if fl.need == Need::Optional13 && spec == Spec::V12 => {
                out.push((format!("{prefix}{key}"), V13_FIELD.into()))
            }
            Some(fl) => check_field(v, fl, spec, &format!("{prefix}{key}"), out),
            None => out.push((
                format!("{prefix}{}", shown_key(key)),
                "not a field of the spec; custom fields must start with `_`".into(),
            )),
        }
    }
}

/// A key is shown when it reads like a field name (letters, `-`/`_`, at most two digits);
/// anything else could be data — a token used as a key.
fn shown_key(key: &str) -> String {
    let digits = key.chars().filter(char::is_ascii_digit).count();
    let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && key.len() <= 32
        && digits <= 2
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        key.to_string()
    } else {
        "(a field whose name is not shown)".into()
    }
}

fn check_field(v: &Value, fl: &Field, spec: Spec, path: &str, out: &mut Vec<Found>) {
    let type_ok = match (fl.ty, v) {
        (Ty::Str, Value::String(_)) | (Ty::Bool, Value::Bool(_)) => true,
        (Ty::Num, Value::Number(_)) => true,
        (Ty::Int, Value::Number(n)) => n.is_i64() || n.is_u64(),
        (Ty::Obj(_), Value::Object(_)) | (Ty::Arr(_), Value::Array(_)) => true,
        (Ty::ObjOrNull(_), Value::Object(_) | Value::Null) => true,
        _ => false,
    };
    if !type_ok {
        let hint = if v.is_null() && fl.need != Need::Required {
            "; leave the field out when the value is not available"
        } else {
            ""
        };
        out.push((
            path.to_string(),
            format!("should be {}, found {}{hint}", ty_name(fl.ty), found(v)),
        ));
        return;
    }
    match (fl.ty, v) {
        (Ty::Obj(sub) | Ty::ObjOrNull(sub), _) => validate(v, sub, spec, &format!("{path}."), out),
        (Ty::Arr(sub), Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                let p = format!("{path}[{i}]");
                if it.is_object() {
                    validate(it, sub, spec, &format!("{p}."), out);
                } else {
                    out.push((p, format!("should be an object, found {}", found(it))));
                }
            }
        }
        _ => {}
    }
    if let Some(problem) = rule_problem(fl.rule, v) {
        out.push((path.to_string(), problem));
    }
}

/// The value rule's verdict on a value of the right type.
pub fn rule_problem(rule: Rule, v: &Value) -> Option<String> {
    match rule {
        Rule::None => None,
        Rule::Date => {
            let s = v.as_str()?;
            date_problem(s)
        }
        Rule::NonNegOrUnknown => {
            let x = v.as_f64()?;
            (x < 0.0 && x != -1.0).then(|| {
                format!(
                    "{} is negative; the spec allows only -1 (not available) or a value ≥ 0",
                    fmt_num(v)
                )
            })
        }
        Rule::NonNeg => {
            let x = v.as_f64()?;
            if x == -1.0 {
                Some("-1, but the spec allows -1 (not available) only for blocked, dns, connect, ssl, sizes and page timings; this value must be ≥ 0".into())
            } else if x < 0.0 {
                Some(format!("{} is negative; it must be ≥ 0", fmt_num(v)))
            } else {
                None
            }
        }
        Rule::Status => {
            let s = v.as_i64()?;
            (!(100..=999).contains(&s) && s != 0)
                .then(|| format!("{s} is not an HTTP status (100–999; 0 = no response)"))
        }
        Rule::AbsoluteUrl => url_problem(v.as_str()?),
    }
}

/// Why a request URL is not what the spec asks ("Absolute URL of the request (fragments are
/// not included)"), never quoting it: a URL can carry a token.
pub fn url_problem(url: &str) -> Option<String> {
    let scheme = url.split_once(':').map(|(s, _)| s).filter(|s| {
        s.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(&c))
    });
    if scheme.is_none() {
        return Some(
            "not an absolute URL (no scheme such as `https:`); the spec asks for the request's absolute URL"
                .into(),
        );
    }
    url.contains('#')
        .then(|| "includes a fragment (`#` and what follows); the spec's request URL leaves fragments out".into())
}

/// Numbers are shown as written (they are the deviation, not data to hide).
fn fmt_num(v: &Value) -> String {
    v.to_string()
}

/// Why `s` is not an ISO 8601 date-time with a time zone, or `None` when it is one.
pub fn date_problem(s: &str) -> Option<String> {
    if chrono::DateTime::parse_from_rfc3339(s).is_ok() {
        return None;
    }
    let shown = shown_date(s);
    // Tell an impossible date (month 16) from a date in another format.
    let iso_shape = s.len() >= 10
        && s.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if iso_shape {
        let date_ok = chrono::NaiveDate::parse_from_str(&s[..10], "%Y-%m-%d").is_ok();
        if !date_ok {
            return Some(format!(
                "{shown} is not a real date (month or day out of range)"
            ));
        }
        return Some(format!(
            "{shown} is not a complete ISO 8601 date-time with a time zone (YYYY-MM-DDThh:mm:ss.sTZD)"
        ));
    }
    Some(format!(
        "{shown} is not an ISO 8601 date-time (YYYY-MM-DDThh:mm:ss.sTZD)"
    ))
}

/// A date value is quoted only when it is made of date-like parts (digits, separators, month
/// and day names): anything else in a date field could be a secret and is not shown.
pub fn shown_date(s: &str) -> String {
    const WORDS: &[&str] = &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "mon",
        "tue", "wed", "thu", "fri", "sat", "sun", "am", "pm", "gmt", "utc", "t", "z",
    ];
    let words_ok = s
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .all(|w| {
            let w = w.to_ascii_lowercase();
            WORDS
                .iter()
                .any(|k| w == *k || (k.len() == 3 && w.starts_with(k) && w.len() <= 9))
        });
    let chars_ok = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " :-+./,".contains(c));
    let digits = s.chars().filter(|c| c.is_ascii_digit()).count();
    if !s.is_empty() && s.len() <= 40 && words_ok && chars_ok && digits >= 4 {
        format!("{s:?}")
    } else {
        "the value".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(v: Value, fields: &[Field]) -> Vec<Found> {
        let mut out = Vec::new();
        validate(&v, fields, Spec::V12, "", &mut out);
        out
    }

    #[test]
    fn missing_fields_are_named_and_types_are_sentences() {
        let out = run(
            json!({"startedDateTime": "2020-01-01T00:00:00Z", "id": "p", "pageTimings": []}),
            PAGE,
        );
        assert!(out.contains(&("title".into(), "missing (required: a string)".into())));
        assert!(out.contains(&(
            "pageTimings".into(),
            "should be an object, found an empty array".into()
        )));
        // `null` is the spec's "no cache entry"; another wrong type is still named.
        assert!(run(json!({"beforeRequest": null, "afterRequest": null}), CACHE).is_empty());
        let out = run(json!({"beforeRequest": []}), CACHE);
        assert_eq!(out[0].0, "beforeRequest");
        assert!(out[0].1.contains("an object or null"), "{out:?}");
        let out = run(json!({"name": "a", "value": "b", "expires": null}), COOKIE);
        assert!(out[0].1.contains("leave the field out"), "{out:?}");
    }

    #[test]
    fn nested_paths_and_unknown_fields() {
        let out = run(
            json!({"method":"GET","url":"https://a/","httpVersion":"h","cookies":{},"headers":[{"name":"a"}],
                   "queryString":[7],"headersSize":-1,"bodySize":-2,"weird":1,"_ok":1,
                   "headersCompression":3}),
            REQUEST,
        );
        let fields: Vec<&str> = out.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "cookies",
                "headers[0].value",
                "queryString[0]",
                "bodySize",
                "weird",
                "headersCompression"
            ],
            "{out:?}"
        );
        assert!(out[3].1.contains("-2 is negative"));
        let mut v13 = Vec::new();
        validate(
            &json!({"name":"n","value":"v","encoding":"base64"}),
            PARAM,
            Spec::V13,
            "",
            &mut v13,
        );
        assert!(v13.is_empty(), "{v13:?}");
    }

    #[test]
    fn value_rules() {
        assert!(date_problem("2009-07-24T19:20:30.45+01:00").is_none());
        assert!(date_problem("2009-16-02T10:00:00.000Z")
            .unwrap()
            .contains("not a real date"));
        assert!(date_problem("Feb 16, 2018 4:41:28 PM")
            .unwrap()
            .starts_with("\"Feb 16, 2018 4:41:28 PM\""));
        let p = date_problem("Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789").unwrap();
        assert!(p.starts_with("the value") && !p.contains("ghp_"), "{p}");
        assert!(rule_problem(Rule::NonNeg, &json!(-1))
            .unwrap()
            .contains("only for"));
        assert!(rule_problem(Rule::NonNeg, &json!(-0.5)).is_some());
        assert!(rule_problem(Rule::NonNegOrUnknown, &json!(-1)).is_none());
        assert!(rule_problem(Rule::NonNegOrUnknown, &json!(-3)).is_some());
        assert!(rule_problem(Rule::Status, &json!(0)).is_none());
        assert!(rule_problem(Rule::Status, &json!(-1)).is_some());
        for ok in [
            "https://a.example/p?q=1",
            "data:text/plain,x",
            "about:blank",
            "HTTP://A/",
        ] {
            assert!(url_problem(ok).is_none(), "{ok}");
        }
        for (bad, says) in [
            ("mockbin.com", "not an absolute URL"),
            ("/v1/items?token=x", "not an absolute URL"),
            ("", "not an absolute URL"),
            ("1http://a/", "not an absolute URL"),
            ("https://a.example/#frag", "fragment"),
        ] {
            let p = url_problem(bad).unwrap();
            assert!(p.contains(says), "{bad}: {p}");
        }
    }
}

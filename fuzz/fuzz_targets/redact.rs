//! The redactor: never panics; a planted secret in a place the policy covers never survives;
//! redacting twice changes nothing (idempotent), for text, URLs, headers, form fields and
//! whole JSON documents (what `toomany redact` does to a HAR or JSON-lines record).
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// Letters and digits only, so it is one token wherever it is planted.
const SECRET: &str = "Zq9CANARYfz7Kq2Wm4XpR8";
/// A GitHub token shape: ghp_ + 36 alphanumerics.
const GHP: &str = "ghp_CANARYq9Kz7Wm4XpR8Lt2Vb6Nc3Hd5Jf1Gs0";

fn no_secret(what: &str, out: &str) {
    assert!(
        !out.contains("CANARY"),
        "{what}: a planted secret survived: {out:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let r = toomany_fuzz::redactor();
    let s = String::from_utf8_lossy(data);
    let s = s.as_ref();

    // Idempotent on anything.
    let t = r.text(s);
    assert_eq!(r.text(&t), t, "text twice");
    let u = r.url(s);
    assert_eq!(r.url(&u), u, "url twice");
    let (name, value) = s.split_once(':').unwrap_or(("x-fuzz", s));
    let h = r.header(name, value);
    assert_eq!(r.header(name, &h), h, "header twice");

    // Planted where the documented policy covers them (docs/guide.md "Redaction").
    no_secret(
        "authorization",
        &r.header("Authorization", &format!("Bearer {SECRET}{s}")),
    );
    no_secret("cookie", &r.header("Cookie", &format!("sid={SECRET}; {s}")));
    let query: String = s
        .chars()
        .filter(|c| !matches!(c, '#' | '&' | '='))
        .collect();
    no_secret(
        "url query",
        &r.url(&format!(
            "https://api.example.com/v1/x?q={query}&api_key={SECRET}"
        )),
    );
    no_secret(
        "bearer in text",
        &r.text(&format!("{s}\nAuthorization: Bearer {SECRET}\n{s}")),
    );
    no_secret("key shape in text", &r.text(&format!("{s} {GHP} {s}")));
    no_secret(
        "password field",
        &r.field("password", &format!("{SECRET}{s}")),
    );

    // Whole documents: any JSON the fuzzer makes, with secrets planted beside it.
    let fuzz_doc: Value = serde_json::from_slice(data).unwrap_or(Value::Null);
    let mut doc = json!({
        "request": {
            "url": format!("https://h.example/p?token={SECRET}"),
            "headers": [{"name": "Authorization", "value": format!("Bearer {SECRET}")},
                        {"name": "X-Fuzz", "value": s}],
            "cookies": [{"name": "session", "value": SECRET}],
            "postData": {"text": format!("{{\"password\":\"{SECRET}\"}}")},
        },
        "fuzz": fuzz_doc.clone(),
    });
    r.json(&mut doc);
    let once = doc.to_string();
    no_secret("document", &doc["request"].to_string());
    r.json(&mut doc);
    assert_eq!(doc.to_string(), once, "document twice");

    // The fuzzer's own document alone: idempotent.
    let mut alone = fuzz_doc;
    r.json(&mut alone);
    let first = alone.clone();
    r.json(&mut alone);
    assert_eq!(alone, first, "fuzz document twice");
});

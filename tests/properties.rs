//! Property tests: the readers never panic on mangled input, and redaction never lets a planted
//! secret through and is idempotent.

use proptest::prelude::*;
use std::io::Cursor;
use std::sync::Arc;
use toomany::ingest::{har, jsonl, Options};
use toomany::redact::Redactor;

fn opts() -> Options {
    Options::new(Redactor::from_key_material(b"property tests key"))
}

fn sample() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/samples/cdn-burst.har"
    ))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Truncate the sample anywhere and flip a few bytes: reading returns, never panics, and
    /// every record it returns has a valid location.
    #[test]
    fn har_reader_survives_mangling(cut in 0usize..210_000, flips in proptest::collection::vec((0usize..210_000, any::<u8>()), 0..8)) {
        let mut bytes = sample();
        for (at, b) in flips {
            if at < bytes.len() { bytes[at] = b; }
        }
        bytes.truncate(cut.min(bytes.len()));
        let src: Arc<str> = Arc::from("mangled.har");
        let out = har::read(Box::new(Cursor::new(bytes)), &src, &opts(), false);
        for r in &out.requests {
            prop_assert_eq!(&*r.location.source, "mangled.har");
        }
    }

    /// Arbitrary lines never panic the JSON-lines reader.
    #[test]
    fn jsonl_reader_survives_anything(lines in proptest::collection::vec(".{0,200}", 0..20)) {
        let text = lines.join("\n");
        let src: Arc<str> = Arc::from("x.jsonl");
        let out = jsonl::read(Box::new(Cursor::new(text.into_bytes())), &src, &opts());
        prop_assert!(out.requests.len() + out.skipped <= 20);
    }

    /// A secret in any policy place never survives, and redacting twice changes nothing.
    #[test]
    fn planted_secret_never_survives(secret in "[A-Za-z0-9]{12,40}") {
        let r = Redactor::from_key_material(b"k");
        let places = [
            r.header("Authorization", &format!("Bearer {secret}")),
            r.header("X-Api-Key", &secret),
            r.header("Cookie", &format!("a={secret}")),
            r.url(&format!("https://h/p?api_key={secret}&x=1")),
            r.url(&format!("https://u:{secret}@h/p")),
            r.text(&format!("{{\"password\": \"{secret}\"}}")),
            r.text(&format!("token={secret}")),
            r.excerpt(&format!("{{\"refresh_token\":\"{secret}\"}}"), 20),
        ];
        for p in &places {
            prop_assert!(!p.contains(&secret), "{} leaks", p);
            prop_assert_eq!(&r.text(p), p, "idempotent");
        }
    }
}

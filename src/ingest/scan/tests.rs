use super::*;
use serde_json::Value;

/// Hands out at most `step` bytes per read, to cross buffer boundaries everywhere.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(self.data.len()).min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Rebuild a serde_json value from the events (numbers from their raw text).
fn rebuild<R: Read>(sc: &mut Scanner<R>) -> Result<Value, ScanError> {
    fn value<R: Read>(sc: &mut Scanner<R>, ev: Event<'_>) -> Result<Value, ScanError> {
        Ok(match ev {
            Event::Str(t) => Value::String(t.value.to_string()),
            // std's parser is correctly rounded (serde_json's default one can be a ULP off).
            Event::Num(n) => match (n.parse::<i64>(), n.parse::<u64>()) {
                (Ok(i), _) => Value::from(i),
                (_, Ok(u)) => Value::from(u),
                _ => Value::from(n.parse::<f64>().expect("valid number text")),
            },
            Event::Bool(b) => Value::Bool(b),
            Event::Null => Value::Null,
            Event::StartArray => {
                let mut items = Vec::new();
                loop {
                    let ev = sc.next()?;
                    if ev == Event::EndArray {
                        break;
                    }
                    let owned = own(ev);
                    items.push(value(sc, owned.as_event())?);
                }
                Value::Array(items)
            }
            Event::StartObject => {
                let mut m = serde_json::Map::new();
                loop {
                    let key = match sc.next()? {
                        Event::EndObject => break,
                        Event::Key(k) => k.value.to_string(),
                        other => panic!("{other:?}"),
                    };
                    let ev = own(sc.next()?);
                    m.insert(key, value(sc, ev.as_event())?);
                }
                Value::Object(m)
            }
            other => panic!("{other:?}"),
        })
    }
    let first = own(sc.next()?);
    let v = value(sc, first.as_event())?;
    assert_eq!(sc.next()?, Event::End);
    Ok(v)
}

/// An event detached from the scanner's buffer.
enum Owned {
    Str(String),
    Num(String),
    Other(Event<'static>),
}
fn own(ev: Event<'_>) -> Owned {
    match ev {
        Event::Str(t) => Owned::Str(t.value.to_string()),
        Event::Num(n) => Owned::Num(n.to_string()),
        Event::StartObject => Owned::Other(Event::StartObject),
        Event::StartArray => Owned::Other(Event::StartArray),
        Event::EndObject => Owned::Other(Event::EndObject),
        Event::EndArray => Owned::Other(Event::EndArray),
        Event::Bool(b) => Owned::Other(Event::Bool(b)),
        Event::Null => Owned::Other(Event::Null),
        Event::End => Owned::Other(Event::End),
        Event::Key(_) => panic!("key where a value was due"),
    }
}
impl Owned {
    fn as_event(&self) -> Event<'_> {
        match self {
            Owned::Str(s) => Event::Str(Text {
                value: s,
                len: s.len() as u64,
                raw: None,
            }),
            Owned::Num(n) => Event::Num(n),
            Owned::Other(e) => *e,
        }
    }
}

fn scan_all(json: &[u8], step: usize) -> Result<Value, ScanError> {
    rebuild(&mut Scanner::new(Trickle { data: json, step }))
}

#[test]
fn reads_what_serde_reads_across_any_buffer_boundary() {
    let docs = [
        r#"{"a":1,"b":[true,false,null,{"c":"d"}],"e":{},"f":[],"g":-0.5e-3}"#,
        r#"  [ "é\u00e9\ud83d\ude00\n\t\"\\\/", 0, -1, 12.75, 1E+2 ]  "#,
        r#""just a string""#,
        "\n{\n  \"log\": {\n    \"entries\": [ { \"x\": \"\\u0041B\" } ]\n  }\n}\n",
        r#"{"unicode":"日本語テキスト","emoji":"👍🏽"}"#,
    ];
    for doc in docs {
        let expected: Value = serde_json::from_str(doc).unwrap();
        for step in [1, 2, 3, 7, 4096] {
            assert_eq!(
                scan_all(doc.as_bytes(), step).unwrap(),
                expected,
                "{doc} / {step}"
            );
        }
    }
}

#[test]
fn numbers_are_their_raw_text() {
    let doc =
        br#"[0.1000, 1e400, -0, 1.7976931348623157e308, 123456789012345678901234567890, 5E-7]"#;
    let mut sc = Scanner::new(&doc[..]);
    assert_eq!(sc.next().unwrap(), Event::StartArray);
    let mut raws = Vec::new();
    while let Event::Num(n) = sc.next().unwrap() {
        raws.push(n.to_string());
    }
    assert_eq!(
        raws,
        [
            "0.1000",
            "1e400",
            "-0",
            "1.7976931348623157e308",
            "123456789012345678901234567890",
            "5E-7"
        ]
    );
}

#[test]
fn a_long_string_is_cut_and_the_rest_still_read() {
    let long = "é".repeat(300_000); // 600 KB, more than the buffer
    let doc = format!(r#"{{"url":"{long}","next":"ok","n":5}}"#);
    let limits = Limits {
        string_cap: 1001,
        ..Limits::default()
    };
    for step in [13, 1 << 20] {
        let mut sc = Scanner::with_limits(
            Trickle {
                data: doc.as_bytes(),
                step,
            },
            limits,
        );
        assert_eq!(sc.next().unwrap(), Event::StartObject);
        assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "url"));
        match sc.next().unwrap() {
            Event::Str(t) => {
                assert!(t.is_cut());
                assert_eq!(t.len, long.len() as u64);
                assert_eq!(t.value.len(), 1000, "cut at a char boundary");
                assert!(t.raw.is_none());
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "next"));
        assert!(matches!(sc.next().unwrap(), Event::Str(t) if t.value == "ok" && !t.is_cut()));
        assert!(matches!(sc.next().unwrap(), Event::Key(_)));
        assert_eq!(sc.next().unwrap(), Event::Num("5"));
        assert_eq!(sc.next().unwrap(), Event::EndObject);
        assert_eq!(sc.next().unwrap(), Event::End);
    }
}

#[test]
fn cut_strings_with_escapes_have_no_gaps() {
    let doc = r#"["ab\u00e9cdefgh"]"#;
    let limits = Limits {
        string_cap: 3,
        ..Limits::default()
    };
    let mut sc = Scanner::with_limits(doc.as_bytes(), limits);
    sc.next().unwrap();
    match sc.next().unwrap() {
        // "ab" + "é" (2 bytes) does not fit in 3: kept "ab", and "c" must not follow.
        Event::Str(t) => assert_eq!((t.value, t.len), ("ab", 10)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn raw_text_is_offered_for_whole_strings() {
    let doc = br#"{"a":"x\"y\u00e9"}"#;
    let mut sc = Scanner::new(&doc[..]);
    sc.next().unwrap();
    match sc.next().unwrap() {
        Event::Key(k) => assert_eq!(k.raw, Some(&b"a"[..])),
        other => panic!("{other:?}"),
    }
    match sc.next().unwrap() {
        Event::Str(t) => {
            assert_eq!(t.value, "x\"yé");
            assert_eq!(t.raw, Some(&br#"x\"y\u00e9"#[..]));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn skip_value_skips_whole_values() {
    let doc = br#"{"body":{"deep":[1,{"x":"y"},[[]]],"s":"t"},"after":[1,2],"n":null,"last":"v"}"#;
    let mut sc = Scanner::new(&doc[..]);
    sc.next().unwrap();
    sc.next().unwrap(); // "body"
    sc.skip_value().unwrap();
    assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "after"));
    sc.skip_value().unwrap();
    assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "n"));
    sc.skip_value().unwrap();
    assert!(matches!(sc.next().unwrap(), Event::Key(k) if k.value == "last"));
    sc.skip_value().unwrap();
    assert_eq!(sc.next().unwrap(), Event::EndObject);
    assert_eq!(sc.depth(), 0);
}

#[test]
fn skipping_still_validates() {
    let doc = b"{\"a\":[\"bad \xff byte\"],\"b\":1}";
    let mut sc = Scanner::new(&doc[..]);
    sc.next().unwrap();
    sc.next().unwrap();
    let e = sc.skip_value().unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidUtf8);
    assert_eq!(e.pos.offset, 11);
}

#[test]
fn observer_sees_the_whole_decoded_string() {
    let doc = format!(r#"["{}\n{}"]"#, "a".repeat(5000), "b".repeat(5000));
    let mut seen = Vec::new();
    let limits = Limits {
        string_cap: 10,
        ..Limits::default()
    };
    let mut sc = Scanner::with_limits(
        Trickle {
            data: doc.as_bytes(),
            step: 333,
        },
        limits,
    );
    sc.next().unwrap();
    match sc
        .next_observed(&mut |b| seen.extend_from_slice(b))
        .unwrap()
    {
        Event::Str(t) => assert_eq!((t.value.len(), t.len), (10, 10_001)),
        other => panic!("{other:?}"),
    }
    assert_eq!(seen.len(), 10_001);
    assert_eq!(seen[5000], b'\n');
}

fn error_of(doc: &[u8]) -> ScanError {
    for step in [1, 5, 1 << 20] {
        let e = scan_all(doc, step).unwrap_err();
        let e1 = scan_all(doc, 1).unwrap_err();
        assert_eq!(e, e1, "same error whatever the read size");
        if step == 1 << 20 {
            return e;
        }
    }
    unreachable!()
}

#[test]
fn errors_are_located_and_never_quote_input() {
    let e = error_of(b"{\n  \"a\": 1,\n  \"secret-token\" 2\n}");
    assert_eq!(e.kind, ErrorKind::Syntax("`:`"));
    assert_eq!((e.pos.line, e.pos.column, e.pos.offset), (3, 18, 29));
    assert!(!e.to_string().contains("secret"), "{e}");
    assert!(e.to_string().contains("line 3, column 18"), "{e}");

    let e = error_of(br#"{"a":[1,2"#);
    assert_eq!(e.kind, ErrorKind::Eof);
    assert_eq!(e.pos.offset, 9);

    let e = error_of(b"[\"ok\", \"caf\xc3\"]");
    assert_eq!(e.kind, ErrorKind::InvalidUtf8);
    assert_eq!(e.pos.offset, 11);

    let e = error_of(b"[\"tab\there\"]");
    assert_eq!(e.kind, ErrorKind::ControlCharacter);
    assert_eq!(e.pos.offset, 5);

    assert_eq!(error_of(br#"["\q"]"#).kind, ErrorKind::BadEscape);
    assert_eq!(error_of(br#"[01]"#).kind, ErrorKind::Syntax("a number"));
    assert_eq!(error_of(br#"[1.]"#).kind, ErrorKind::Syntax("a digit"));
    assert_eq!(error_of(br#"[tru]"#).kind, ErrorKind::Syntax("a value"));
    assert_eq!(error_of(br#"{"a":1} x"#).pos.offset, 8);
    assert_eq!(error_of(b"").kind, ErrorKind::Eof);
    assert_eq!(
        error_of(br#"{"a":1,}"#).kind,
        ErrorKind::Syntax("a key (a string in quotes)")
    );
    assert_eq!(error_of(br#"[1,]"#).kind, ErrorKind::Syntax("a value"));
    let deep = "[".repeat(600);
    assert_eq!(error_of(deep.as_bytes()).kind, ErrorKind::TooDeep(512));
    let long_number = format!("[{}]", "9".repeat(2000));
    assert_eq!(
        error_of(long_number.as_bytes()).kind,
        ErrorKind::NumberTooLong(1024)
    );
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    let v = scan_all(br#"["\ud800x", "\udc00", "\ud800\u0041"]"#, 3).unwrap();
    assert_eq!(v, serde_json::json!(["\u{FFFD}x", "\u{FFFD}", "\u{FFFD}A"]));
}

#[test]
fn memory_stays_bounded_on_a_huge_string() {
    // 64 MiB of string produced on the fly: the scanner's buffer never grows.
    struct Huge {
        left: u64,
        started: bool,
        ended: bool,
    }
    impl Read for Huge {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if !self.started {
                self.started = true;
                out[..8].copy_from_slice(br#"{"url":""#);
                return Ok(8);
            }
            if self.left > 0 {
                let n = (out.len() as u64).min(self.left) as usize;
                out[..n].fill(b'a');
                self.left -= n as u64;
                return Ok(n);
            }
            if !self.ended {
                self.ended = true;
                out[..2].copy_from_slice(b"\"}");
                return Ok(2);
            }
            Ok(0)
        }
    }
    let mut sc = Scanner::new(Huge {
        left: 64 << 20,
        started: false,
        ended: false,
    });
    sc.next().unwrap();
    sc.next().unwrap();
    match sc.next().unwrap() {
        Event::Str(t) => assert_eq!((t.value.len(), t.len), (1 << 20, 64 << 20)),
        other => panic!("{other:?}"),
    }
    assert_eq!(sc.next().unwrap(), Event::EndObject);
    assert_eq!(sc.buf.len(), BUF_SIZE);
}

fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec(("\\PC{0,12}", inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, .. Default::default() })]

    /// Any document serde writes (compact or pretty) reads back the same, whatever the read
    /// size.
    #[test]
    fn agrees_with_serde(v in json_value(), step in 1usize..64, pretty: bool) {
        let text = if pretty { serde_json::to_vec_pretty(&v) } else { serde_json::to_vec(&v) }.unwrap();
        proptest::prop_assert_eq!(scan_all(&text, step).unwrap(), v);
    }

    /// Mangled documents give an error or a value, never a panic; what serde accepts, the
    /// scanner accepts too.
    #[test]
    fn never_panics_on_mangled_input(v in json_value(), flips in proptest::collection::vec((0usize..4096, proptest::prelude::any::<u8>()), 1..6), cut in 0usize..4096) {
        let mut text = serde_json::to_vec(&v).unwrap();
        for (at, b) in flips {
            let n = text.len().max(1);
            if let Some(x) = text.get_mut(at % n) { *x = b; }
        }
        text.truncate(cut.max(1));
        let ours = scan_all(&text, 7);
        if serde_json::from_slice::<Value>(&text).is_ok() {
            proptest::prop_assert!(ours.is_ok(), "{:?}", ours);
        }
    }

    /// Skipping a string (64 bytes at a time when it can) ends where reading it ends, or
    /// fails with the same error at the same place, whatever the read size.
    #[test]
    fn skipping_a_string_agrees_with_reading_it(
        body in proptest::collection::vec(proptest::prop_oneof![
            8 => proptest::prelude::Just(b'a'),
            3 => proptest::prelude::Just(b'\\'),
            2 => proptest::prelude::Just(b'"'),
            1 => proptest::prelude::Just(b'n'),
            1 => proptest::prelude::Just(b'u'),
            1 => proptest::prelude::Just(b'0'),
            1 => proptest::prelude::Just(0x01u8),
            1 => proptest::prelude::Just(0xC3u8),
            1 => proptest::prelude::Just(0xA9u8),
            1 => proptest::prelude::Just(0xFFu8),
        ], 0..300),
        step in proptest::prop_oneof![proptest::prelude::Just(1usize << 20), 1usize..80],
    ) {
        let mut doc = b"[\"".to_vec();
        doc.extend(&body);
        doc.extend(b"\",1]");
        let run = |skip: bool| -> Result<(u64, Result<String, ScanError>), ScanError> {
            let mut sc = Scanner::new(Trickle { data: &doc, step });
            sc.next()?;
            let read = if skip { sc.skip_value() } else { sc.next().map(|_| ()) };
            read?;
            let offset = sc.offset();
            Ok((offset, sc.next().map(|e| format!("{e:?}"))))
        };
        proptest::prop_assert_eq!(run(true), run(false));
    }
}

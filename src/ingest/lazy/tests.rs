use super::*;
use proptest::prelude::*;

fn obj<'a>(s: &'a str, how: fn(&'a str) -> Result<Doc<'a>, serde_json::Error>) -> Obj<'a> {
    match how(s).unwrap() {
        Doc::Object(o) => o,
        Doc::Other => panic!("not an object"),
    }
}

fn tree(s: &str) -> Result<Doc<'_>, serde_json::Error> {
    parse(s, &Wanted::all())
}

#[test]
fn fields_borrow_and_decode_like_value() {
    let line = r#"{"a":"x\"y","b":1.50,"c":{"d":[1,2]},"a":"last","e":null,"k\u0041":true}"#;
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    for how in [tree, parse_raw] {
        let o = obj(line, how);
        assert!(matches!(val(o.get("a").unwrap()), Val::Str(s) if v["a"] == *s));
        match val(o.get("b").unwrap()) {
            Val::Num(n) => assert_eq!(n.to_string(), v["b"].to_string()),
            _ => panic!(),
        }
        assert!(is_null(o.get("e").unwrap()));
        assert!(matches!(val(o.get("kA").unwrap()), Val::Bool(true)));
        let c = Obj::of(o.get("c").unwrap()).unwrap();
        assert_eq!(items(c.get("d").unwrap()).len(), 2);
        let order: Vec<&str> = o.entries().iter().map(|(k, _)| *k).collect();
        let want: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(order, want);
        assert!(matches!(val(o.entries()[0].1), Val::Str(s) if s == "last"));
        assert_eq!(compact(o.get("c").unwrap()), r#"{"d":[1,2]}"#);
    }
    assert!(matches!(tree("[1,{}]").unwrap(), Doc::Other));
    assert!(tree(r#"{"a":"\x"}"#).is_err());
    assert!(tree(r#"{"a":1} x"#).is_err());
}

#[test]
fn entries_one_by_one_match_collected_ones_at_any_size() {
    for n in [0usize, 3, 40, 300] {
        // Every key three times (a, b, a, b, ... then again), values counting up.
        let mut text = String::from("{");
        for i in 0..3 * n {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("\"k{}\":{i}", i % n.max(1)));
        }
        text.push('}');
        let o = obj(&text, tree);
        let mut got = Vec::new();
        o.for_each_entry(|k, v| got.push((k.to_string(), compact(v))));
        let want: Vec<(String, String)> = o
            .entries()
            .iter()
            .map(|(k, v)| (k.to_string(), compact(v)))
            .collect();
        assert_eq!(got, want);
        assert_eq!(got.len(), n.min(3 * n));
    }
}

#[test]
fn a_clear_key_bit_means_absent() {
    let o = obj(r#"{"ts":1,"url":"u","":0,"é":2}"#, tree);
    for k in ["ts", "url", "", "é"] {
        assert_ne!(o.key_bits() & key_bit(k), 0, "{k}");
        assert!(o.get(k).is_some(), "{k}");
    }
    for k in ["time", "timestamp", "uri", "host", "u", "t"] {
        assert!(o.get(k).is_none(), "{k}");
    }
    assert_eq!(Obj::default().key_bits(), 0);
}

#[test]
fn only_wanted_fields_are_kept() {
    let line = r#"{"url":{"full":"x"},"junk":{"deep":[1,2,3]},"a.b":1,"a":{"b":2}}"#;
    let w = Wanted::of(["url.full", "a.b"]);
    let Doc::Object(o) = parse(line, &w).unwrap() else {
        panic!()
    };
    assert!(o.get("junk").is_none());
    assert!(o.get("url").is_some() && o.get("a.b").is_some() && o.get("a").is_some());
    // Not valid JSON inside a skipped field is still an error.
    assert!(parse(r#"{"junk":[1,}"#, &w).is_err());
}

#[test]
fn lines_the_tree_cannot_hold_read_the_raw_way() {
    // A lone surrogate and an out-of-range number: valid to serde_json's grammar, not
    // decodable; the line still reads, those fields as the raw reading gives them.
    let line = r#"{"a":"\ud800","b":1e400,"c":"ok"}"#;
    let o = obj(line, tree);
    assert!(matches!(o.get("a").unwrap(), Node::Raw(_)));
    assert!(!is_null(o.get("b").unwrap()));
    assert!(matches!(val(o.get("b").unwrap()), Val::Null));
    assert!(matches!(val(o.get("c").unwrap()), Val::Str(s) if s == "ok"));
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(300), "]".repeat(300));
    let o = obj(&deep, tree);
    assert_eq!(items(o.get("a").unwrap()).len(), 1);
    // The same error message either way.
    let bad = r#"{"a":[1,}"#;
    assert_eq!(
        tree(bad).err().map(|e| e.to_string()),
        parse_raw(bad).err().map(|e| e.to_string())
    );
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        "[ -~é\\n\"\\\\]{0,8}".prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            proptest::collection::vec(("[a-c\\\\\"é]{0,3}", inner), 0..4)
                .prop_map(|kv| { serde_json::Value::Object(kv.into_iter().collect()) }),
        ]
    })
}

/// Two readings of one node agree on everything a reader can ask of it.
fn same(a: &Node<'_>, b: &Node<'_>) -> Result<(), TestCaseError> {
    prop_assert_eq!(is_null(a), is_null(b));
    prop_assert_eq!(compact(a), compact(b));
    match (val(a), val(b)) {
        (Val::Str(x), Val::Str(y)) => prop_assert_eq!(x, y),
        (Val::Num(x), Val::Num(y)) => prop_assert_eq!(x, y),
        (Val::Bool(x), Val::Bool(y)) => prop_assert_eq!(x, y),
        (Val::Null, Val::Null) => {}
        (Val::Array, Val::Array) => {
            let (x, y) = (items(a), items(b));
            prop_assert_eq!(x.len(), y.len());
            for (x, y) in x.iter().zip(y.iter()) {
                same(x, y)?;
            }
        }
        (Val::Object, Val::Object) => {
            let (x, y) = (Obj::of(a).unwrap(), Obj::of(b).unwrap());
            let (ex, ey) = (x.entries(), y.entries());
            prop_assert_eq!(ex.len(), ey.len());
            let mut one_by_one = Vec::new();
            x.for_each_entry(|k, v| one_by_one.push((k.to_string(), compact(v))));
            let collected: Vec<(String, String)> = ex
                .iter()
                .map(|(k, v)| (k.to_string(), compact(v)))
                .collect();
            prop_assert_eq!(one_by_one, collected);
            for ((kx, vx), (ky, vy)) in ex.iter().zip(ey.iter()) {
                prop_assert_eq!(kx, ky);
                same(vx, vy)?;
                same(x.get(kx).unwrap(), y.get(ky).unwrap())?;
            }
        }
        _ => prop_assert!(false, "kinds differ"),
    }
    Ok(())
}

/// Two trees are the same tree: kinds, text, numbers, key order and key bits.
fn same_tree(a: &Node<'_>, b: &Node<'_>) -> Result<(), TestCaseError> {
    match (a, b) {
        (Node::Null, Node::Null) => {}
        (Node::Bool(x), Node::Bool(y)) => prop_assert_eq!(x, y),
        (Node::Num(x), Node::Num(y)) => {
            prop_assert_eq!(x, y);
            prop_assert_eq!(x.to_string(), y.to_string());
        }
        (Node::Str(x), Node::Str(y)) => prop_assert_eq!(x, y),
        (Node::Arr(x), Node::Arr(y)) => {
            prop_assert_eq!(x.len(), y.len());
            for (x, y) in x.iter().zip(y) {
                same_tree(x, y)?;
            }
        }
        (Node::Obj(x), Node::Obj(y)) => same_obj(x, y)?,
        (Node::Raw(x), Node::Raw(y)) => prop_assert_eq!(x.get(), y.get()),
        _ => prop_assert!(false, "kinds differ: {:?} / {:?}", a, b),
    }
    Ok(())
}

fn same_obj(x: &Obj<'_>, y: &Obj<'_>) -> Result<(), TestCaseError> {
    prop_assert_eq!(x.keys, y.keys);
    prop_assert_eq!(x.fields.len(), y.fields.len());
    for ((kx, vx), (ky, vy)) in x.fields.iter().zip(&y.fields) {
        prop_assert_eq!(kx, ky);
        same_tree(vx, vy)?;
    }
    Ok(())
}

/// The scanner reads a line as serde_json does, or leaves it to serde_json.
fn scan_agrees(text: &str, wanted: &Wanted) -> Result<bool, TestCaseError> {
    let Some(fast) = scan::object(text, wanted, None, None) else {
        return Ok(false);
    };
    match (fast, parse_serde(text, wanted)) {
        (Doc::Object(a), Ok(Doc::Object(b))) => same_obj(&a, &b)?,
        (_, other) => prop_assert!(
            false,
            "scanner read {:?}, serde_json: {:?}",
            text,
            other.err()
        ),
    }
    Ok(true)
}

#[test]
fn scanner_reads_common_lines_and_leaves_the_rest() {
    let w = Wanted::of(["a", "b.c", "n"]);
    for line in [
        r#"{"a":"x","b":{"c":[1,-2,3.5e1,true,null,{}]},"z":{"deep":["\u00e9\"",1e400]},"n":-0}"#,
        r#" { "a" : "\t\u00e9" , "a" : 18446744073709551615 , "n" : 18446744073709551616 } "#,
        r#"{"n":12345678901234567890123,"a":0.1,"b":[]}"#,
        "{}",
    ] {
        assert!(scan_agrees(line, &w).unwrap(), "{line}");
        // Every field kept: only the out-of-range number (in "z") is left to serde_json.
        let all = scan_agrees(line, &Wanted::all()).unwrap();
        assert_eq!(all, !line.contains("1e400"), "{line}");
    }
    // Left to serde_json: not an object, bad syntax, a surrogate, deep nesting, a number
    // out of range where it is kept.
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(100), "]".repeat(100));
    for line in [
        "[1]",
        r#"{"a":01}"#,
        r#"{"a":1,}"#,
        r#"{"a":"\ud83d\ude00"}"#,
        r#"{"a":"\x"}"#,
        "{\"a\":\"\u{1}\"}",
        r#"{"a":1e400}"#,
        r#"{"a":tru}"#,
        r#"{"a":1} x"#,
        r#"{"a":-}"#,
        r#"{"a":1.}"#,
        &deep,
    ] {
        assert!(!scan_agrees(line, &Wanted::all()).unwrap(), "{line}");
        let _ = parse(line, &Wanted::all()); // and the full reader still answers
    }
}

/// One generated line: keys from a small set (so lines share layouts, repeats included),
/// values of every kind, nested objects, optional whitespace and escaped keys.
fn line_of(fields: &[(u8, u8, bool)]) -> String {
    const KEYS: [&str; 6] = ["a", "b", "h", "k\\u0041", "a ", "zz"];
    const VALUES: [&str; 9] = [
        "1",
        "\"s\"",
        "null",
        "{\"x\":1,\"y\":\"v\"}",
        "{\"y\":\"v\",\"x\":1}",
        "{}",
        "[1,{\"x\":2}]",
        "\"e\\\"\"",
        "-0.5e3",
    ];
    let body: Vec<String> = fields
        .iter()
        .map(|&(k, v, space)| {
            let sp = if space { " " } else { "" };
            format!(
                "\"{}\"{sp}:{sp}{}",
                KEYS[k as usize % KEYS.len()],
                VALUES[v as usize % VALUES.len()]
            )
        })
        .collect();
    format!("{{{}}}", body.join(","))
}

#[test]
fn a_line_that_teaches_no_layout_is_not_learned_from_again_and_again() {
    let mut layout = Layout::default();
    let escaped = r#"{"k\u0041":1}"#;
    for _ in 0..3 {
        parse_with(escaped, &Wanted::all(), &mut layout).unwrap();
    }
    assert!(layout.tried && layout.template.is_none());
    assert_eq!(layout.misses, 2, "one try, then two lines without one");
    parse_with(escaped, &Wanted::all(), &mut layout).unwrap();
    assert_eq!(layout.misses, 3);
    parse_with(r#"{"a":1}"#, &Wanted::all(), &mut layout).unwrap();
    assert!(
        layout.template.is_some(),
        "tried again after RELEARN_AFTER lines"
    );
}

#[test]
fn recycled_field_lists_keep_their_room() {
    let mut layout = Layout::default();
    let text = r#"{"a":1,"h":{"x":"1"},"b":{"y":2}}"#;
    let doc = parse_with(text, &Wanted::all(), &mut layout).unwrap();
    layout.recycle(doc);
    assert_eq!(layout.spare.len(), 3);
    let again = parse_with(text, &Wanted::all(), &mut layout).unwrap();
    assert_eq!(layout.spare.len(), 0, "the next line is built in them");
    layout.recycle(again);
    assert_eq!(layout.spare.len(), 3);
}

proptest! {
    /// Lines read one after another through a [`Layout`] give the trees they give alone,
    /// and two objects with the same layout id have the same keys in the same order.
    #[test]
    fn lines_read_by_layout_are_the_lines_alone(
        lines in proptest::collection::vec(
            proptest::collection::vec((0u8..6, 0u8..9, any::<bool>()), 0..5), 1..12),
        picks in proptest::collection::vec(0usize..12, 1..24),
    ) {
        let w = Wanted::of(["a", "b", "h", "kA", "h.x"]);
        let mut layout = Layout::default();
        let mut seen: std::collections::HashMap<u32, Vec<String>> = Default::default();
        let texts: Vec<String> = lines.iter().map(|l| line_of(l)).collect();
        for &i in &picks {
            let text = &texts[i % texts.len()];
            let alone = parse(text, &w);
            let shaped = parse_with(text, &w, &mut layout);
            match (shaped, alone) {
                (Ok(Doc::Object(a)), Ok(Doc::Object(b))) => {
                    same_obj(&a, &b)?;
                    let mut objs = vec![&a];
                    objs.extend(a.fields.iter().filter_map(|(_, v)| match v {
                        Node::Obj(o) => Some(o),
                        _ => None,
                    }));
                    for o in objs {
                        let keys: Vec<String> = o.fields.iter().map(|(k, _)| k.to_string()).collect();
                        if o.shape != 0 {
                            let first = seen.entry(o.shape).or_insert_with(|| keys.clone());
                            prop_assert_eq!(&*first, &keys);
                        }
                    }
                }
                (Ok(Doc::Other), Ok(Doc::Other)) => {}
                (Err(x), Err(y)) => prop_assert_eq!(x.to_string(), y.to_string()),
                (x, y) => prop_assert!(false, "{:?}: {:?} vs {:?}", text, x.is_ok(), y.is_ok()),
            }
        }
    }

    /// The bit-filed name table answers as the set of names (and their first dotted
    /// parts) it was built from.
    #[test]
    fn wanted_matches_a_set(
        paths in proptest::collection::vec("[a-c.]{0,4}", 0..12),
        keys in proptest::collection::vec("[a-c.]{0,4}", 0..12),
    ) {
        let mut set = std::collections::HashSet::new();
        for p in &paths {
            set.insert(p.as_str());
            if let Some((first, _)) = p.split_once('.') {
                set.insert(first);
            }
        }
        let w = Wanted::of(paths.iter().map(String::as_str));
        for k in paths.iter().chain(&keys) {
            prop_assert_eq!(w.wants(k), set.contains(k.as_str()), "key {:?}", k);
            prop_assert_eq!(w.wanted_bit(k).is_some(), set.contains(k.as_str()));
            if let Some(bit) = w.wanted_bit(k) {
                prop_assert_eq!(bit, key_bit(k));
            }
            prop_assert!(Wanted::all().wants(k));
        }
    }

    /// Any text of JSON-ish bytes: whatever the scanner reads, serde_json reads the same.
    #[test]
    fn scanner_never_reads_what_serde_json_would_not(
        text in "[ {}\\[\\]\\\\\"a:,.0-9eE+\\-tfnrul\\x01é]{0,40}",
        pre in "[ {}\\[\\]\\\\\"a:,0-9-]{0,12}",
    ) {
        for t in [text.clone(), format!("{{\"a\":{text}}}"), format!("{{{pre}{text}")] {
            scan_agrees(&t, &Wanted::all())?;
            scan_agrees(&t, &Wanted::of(["a"]))?;
        }
    }

    /// Any object, duplicate keys included: the tree reads every field, at every depth, as
    /// the raw reading does, and both as `Value` does.
    #[test]
    fn tree_matches_raw_and_value(m in proptest::collection::vec(("[a-c\\\\\"é]{0,3}", json_value()), 0..8)) {
        let mut text = String::from("{");
        for (i, (k, v)) in m.iter().enumerate() {
            if i > 0 { text.push(','); }
            text.push_str(&serde_json::to_string(k).unwrap());
            text.push(':');
            text.push_str(&v.to_string());
        }
        text.push('}');
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (t, r) = (obj(&text, tree), obj(&text, parse_raw));
        prop_assert!(t.fields.iter().all(|(_, v)| !matches!(v, Node::Raw(_))));
        for (k, want) in value.as_object().unwrap() {
            let (a, b) = (t.get(k).unwrap(), r.get(k).unwrap());
            same(a, b)?;
            prop_assert_eq!(&to_value(a).unwrap(), want);
        }
        // The scanner reads every such object, as serde_json does.
        prop_assert!(scan_agrees(&text, &Wanted::all())?);
        prop_assert!(scan_agrees(&text, &Wanted::of(["a", "b.c"]))?);
        // Absent keys read as absent, whether or not their key bit is set.
        for k in ["", "a", "b", "c", "ab", "ba", "abc", "é", "\\", "\"", "aé", "cab"] {
            prop_assert_eq!(t.get(k).is_some(), value.get(k).is_some(), "{:?}", k);
            prop_assert_eq!(r.get(k).is_some(), value.get(k).is_some(), "{:?}", k);
        }
    }
}

//! The layering of `src/`: each top-level module imports only from the layers below it, so the
//! pipeline has no cycle and a stage can be read (and tested, and fuzzed) without the stages
//! above it.
//!
//! The test reads every `crate::` path in the library's source (comments and string literals
//! blanked out; `use crate::{a, b::c}` groups counted per name) and fails on any path to a
//! module in the same layer or one above. Test code (`#[cfg(test)]` items and the files of
//! test-only modules) follows the same rule, less the few exceptions listed with their reason.
//! ARCHITECTURE.md shows the same table; a test holds the two equal.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, from the bottom up. A module may use only modules of lower layers.
const LAYERS: &[&[&str]] = &[
    &["units", "stats", "memo"],
    &["http"],
    &["model"],
    &["redact", "limiter", "overview"],
    &["ingest"],
    &["attribute"],
    &["detect"],
    &["recommend"],
    &["report"],
    &["analyze"],
    &["check", "compare", "mock", "simulate", "verify"],
    &["render"],
    &["output", "cli", "console"],
    &["options"],
    &["cmd"],
];

/// Upward uses allowed in test code only: (file, module it uses, why).
const TEST_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "src/detect/testkit.rs",
        "analyze",
        "detectors are unit-tested through the analysis that drives them (the test kit's adapters)",
    ),
    (
        "src/ingest/access/tests.rs",
        "attribute",
        "each access-log field is checked by the verdict it leads to",
    ),
    (
        "src/ingest/access/signal.rs",
        "attribute",
        "docs/attribution.md is regenerated under attribute's lock",
    ),
    (
        "src/recommend/tests.rs",
        "analyze",
        "recommendations are tested on reports the analysis builds",
    ),
    (
        "src/recommend/tests.rs",
        "report",
        "recommendations are tested on reports the analysis builds",
    ),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// `src` with comments and the contents of string and char literals replaced by spaces
/// (newlines kept, so byte offsets and line numbers stay those of the file).
fn blank(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let n = b.len();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < n {
        let prev_ident = i > 0 && ident(b[i - 1]);
        if b[i..].starts_with(b"//") {
            let end = b[i..].iter().position(|&c| c == b'\n').map_or(n, |p| i + p);
            wipe(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < n && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            i = j;
        } else if !prev_ident
            && (b[i..].starts_with(b"r#")
                || b[i..].starts_with(b"r\"")
                || b[i..].starts_with(b"br"))
        {
            // Raw string: r"..." or r#"..."# (also br...).
            let mut j = i + if b[i] == b'b' { 2 } else { 1 };
            let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
            j += hashes;
            if j < n && b[j] == b'"' {
                let mut close = vec![b'"'];
                close.extend(std::iter::repeat_n(b'#', hashes));
                let start = j + 1;
                let end = b[start..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(n, |p| start + p);
                wipe(&mut out, start, end);
                i = (end + close.len()).min(n);
            } else {
                i += 1;
            }
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < n && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(n);
            wipe(&mut out, i + 1, end);
            i = end + 1;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}', 'é'), not a lifetime ('a).
            let close = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p)
            } else {
                let len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 1 + len)
            };
            match close {
                Some(c) => {
                    wipe(&mut out, i + 1, c);
                    i = c + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII was written over whole characters")
}

/// The end of the item starting at `from` (just past its closing brace or semicolon).
fn item_end(b: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < b.len() && b[j] != b';' && b[j] != b'{' {
        j += 1;
    }
    if j >= b.len() || b[j] == b';' {
        return (j + 1).min(b.len());
    }
    let mut depth = 0;
    while j < b.len() {
        match b[j] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// The end of the attribute starting at `from` (`#[...]`), or `None` when none starts there.
fn attribute_end(b: &[u8], from: usize) -> Option<usize> {
    let mut j = from;
    while j < b.len() && b[j].is_ascii_whitespace() {
        j += 1;
    }
    if !b[j..].starts_with(b"#[") {
        return None;
    }
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(j + 1) {
        match c {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Byte ranges of test-only items (`#[cfg(test)]`, `#[cfg(all(test, ...))]`), and the names
/// of the test-only modules declared as `mod name;`.
fn test_items(b: &str) -> (Vec<(usize, usize)>, BTreeSet<String>) {
    let bytes = b.as_bytes();
    let squeezed = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (mut spans, mut mods) = (Vec::new(), BTreeSet::new());
    let mut at = 0;
    while let Some(p) = b[at..].find("#[") {
        let start = at + p;
        let Some(end) = attribute_end(bytes, start) else {
            break;
        };
        at = end;
        let attr = squeezed(&b[start..end]);
        if attr != "#[cfg(test)]" && !attr.starts_with("#[cfg(all(test,") {
            continue;
        }
        let mut item = end;
        while let Some(e) = attribute_end(bytes, item) {
            item = e;
        }
        let stop = item_end(bytes, item);
        let head = squeezed(&b[item..stop]);
        let head = head
            .trim_start_matches("pub(crate)")
            .trim_start_matches("pub(super)")
            .trim_start_matches("pub");
        if let Some(name) = head.strip_prefix("mod").and_then(|r| r.strip_suffix(';')) {
            mods.insert(name.to_string());
        }
        spans.push((start, stop));
    }
    (spans, mods)
}

/// `mod name;` declarations (not inline modules) of a blanked file: (byte offset, name).
fn declared_modules(b: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in b.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let t = line.trim();
        let t = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| t.strip_prefix(p))
            .unwrap_or(t);
        if let Some(name) = t
            .strip_prefix("mod ")
            .and_then(|r| r.trim().strip_suffix(';'))
        {
            out.push((start, name.trim().to_string()));
        }
    }
    out
}

/// Each `crate::NAME` in a blanked file: (byte offset, NAME); a `crate::{a, b::c}` group gives
/// each of its names.
fn crate_paths(b: &str) -> Vec<(usize, String)> {
    let bytes = b.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(p) = b[at..].find("crate::") {
        let start = at + p;
        at = start + "crate::".len();
        if start > 0 && (ident(bytes[start - 1]) || bytes[start - 1] == b'$') {
            continue;
        }
        let rest = &b[at..];
        if rest.starts_with('{') {
            let mut depth = 0;
            let mut part = String::new();
            for c in rest.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        if depth == 1 {
                            continue;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 || (depth == 1 && c == ',') {
                    let name: String = part
                        .trim_start()
                        .chars()
                        .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
                        .collect();
                    if !name.is_empty() && name != "self" {
                        out.push((start, name));
                    }
                    part.clear();
                    if depth == 0 {
                        break;
                    }
                } else {
                    part.push(c);
                }
            }
        } else {
            let name: String = rest
                .bytes()
                .take_while(|&c| ident(c))
                .map(char::from)
                .collect();
            if !name.is_empty() {
                out.push((start, name));
            }
        }
    }
    out
}

/// One `crate::` path of the library.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    file: String,
    line: usize,
    from: String,
    to: String,
    test: bool,
}

/// Every file of the library reachable from `src/lib.rs`, with whether it is test-only.
fn library_files(src: &Path) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let mut todo = vec![(src.join("lib.rs"), src.to_path_buf(), false)];
    while let Some((file, dir, test)) = todo.pop() {
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let b = blank(&text);
        let (spans, test_mods) = test_items(&b);
        for (at, name) in declared_modules(&b) {
            let is_test =
                test || test_mods.contains(&name) || spans.iter().any(|&(s, e)| s <= at && at < e);
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            let child = if flat.exists() { flat } else { nested };
            assert!(
                child.exists(),
                "{}: `mod {name};` has no file",
                file.display()
            );
            todo.push((child, dir.join(&name), is_test));
        }
        out.push((file, test));
    }
    out.sort();
    out
}

fn uses(root: &Path) -> Vec<Use> {
    let src = root.join("src");
    let mut out = Vec::new();
    for (file, file_test) in library_files(&src) {
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let Some(from) = module_of(&rel) else {
            continue;
        };
        let b = blank(&std::fs::read_to_string(&file).unwrap_or_default());
        let (spans, _) = test_items(&b);
        for (at, to) in crate_paths(&b) {
            if to == from {
                continue;
            }
            out.push(Use {
                file: rel.clone(),
                line: b[..at].matches('\n').count() + 1,
                from: from.clone(),
                to,
                test: file_test || spans.iter().any(|&(s, e)| s <= at && at < e),
            });
        }
    }
    out
}

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and main.rs).
fn module_of(rel: &str) -> Option<String> {
    let first = rel.strip_prefix("src/")?.split('/').next()?;
    let m = first.strip_suffix(".rs").unwrap_or(first);
    (m != "lib" && m != "main").then(|| m.to_string())
}

/// The uses that break the layering, as messages.
fn violations(uses: &[Use]) -> Vec<String> {
    let mut out = Vec::new();
    for u in uses {
        let (Some(from), Some(to)) = (layer_of(&u.from), layer_of(&u.to)) else {
            continue; // unplaced modules are reported by `every_module_has_a_layer`
        };
        if to < from {
            continue;
        }
        if u.test
            && TEST_EXCEPTIONS
                .iter()
                .any(|&(f, m, _)| f == u.file && m == u.to)
        {
            continue;
        }
        let place = if to == from {
            "beside it in layer"
        } else {
            "above it, in layer"
        };
        out.push(format!(
            "{}:{}: `{}` (layer {}) uses `crate::{}`, {} {}{}",
            u.file,
            u.line,
            u.from,
            from + 1,
            u.to,
            place,
            to + 1,
            if u.test { " (test code)" } else { "" }
        ));
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn no_module_uses_one_above_it() {
    let v = violations(&uses(&repo()));
    assert!(
        v.is_empty(),
        "\n{} use(s) against the layering (each module may use only the layers below it; the \
         table is LAYERS in tests/layering.rs and in ARCHITECTURE.md). Move the type handed \
         over down to the lower module, or let the lower module define a trait the upper one \
         implements:\n  {}\n",
        v.len(),
        v.join("\n  ")
    );
}

#[test]
fn every_module_has_a_layer() {
    let src = repo().join("src");
    let mut found = BTreeSet::new();
    for e in std::fs::read_dir(&src).expect("read src/") {
        let p = e.expect("dir entry").path();
        let name = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if (p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
            && name != "lib"
            && name != "main"
        {
            found.insert(name);
        }
    }
    let listed: BTreeSet<String> = LAYERS
        .iter()
        .flat_map(|l| l.iter().map(|m| m.to_string()))
        .collect();
    let unplaced: Vec<_> = found.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(
        unplaced.is_empty() && gone.is_empty(),
        "modules without a layer (add them to LAYERS and ARCHITECTURE.md): {unplaced:?}; \
         layers naming no module: {gone:?}"
    );
}

#[test]
fn the_exceptions_are_still_needed() {
    let all = uses(&repo());
    for &(file, to, why) in TEST_EXCEPTIONS {
        assert!(
            all.iter().any(|u| u.test && u.file == file && u.to == to),
            "{file} no longer uses `crate::{to}` ({why}): remove the exception"
        );
    }
}

/// ARCHITECTURE.md's table is this one: the lines of its `layers` block, top layer first.
#[test]
fn architecture_md_shows_these_layers() {
    let doc =
        std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let block = doc
        .split_once("```layers\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(b, _)| b)
        .expect("ARCHITECTURE.md has a ```layers block");
    let shown: Vec<Vec<String>> = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(|c: char| c == ',' || c.is_whitespace())
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect();
    let want: Vec<Vec<String>> = LAYERS
        .iter()
        .rev()
        .map(|l| l.iter().map(|m| m.to_string()).collect())
        .collect();
    assert_eq!(
        shown, want,
        "ARCHITECTURE.md's layers block differs from LAYERS"
    );
}

// ---- the reader itself ----

fn uses_of(src: &str) -> Vec<(String, bool)> {
    let b = blank(src);
    let (spans, _) = test_items(&b);
    crate_paths(&b)
        .into_iter()
        .map(|(at, to)| (to, spans.iter().any(|&(s, e)| s <= at && at < e)))
        .collect()
}

#[test]
fn the_reader_finds_paths_groups_and_test_code() {
    let src = r##"
use crate::model::Request;
use crate::{http::url, units};
// use crate::commented;
/* use crate::also_commented; /* nested */ crate::still */
const S: &str = "crate::in_a_string";
const R: &str = r#"crate::in_a_raw "string""#;
const C: char = '"'; fn f<'a>(x: &'a str) -> usize { crate::stats::median(x) }
macro_rules! m { () => { $crate::macro_path } }
#[cfg(test)]
mod tests {
    use crate::analyze::run;
}
#[cfg(test)]
#[allow(dead_code)]
pub(crate) mod kit;
fn g() { crate::report::make() }
"##;
    let found = uses_of(src);
    assert_eq!(
        found,
        vec![
            ("model".to_string(), false),
            ("http".to_string(), false),
            ("units".to_string(), false),
            ("stats".to_string(), false),
            ("analyze".to_string(), true),
            ("report".to_string(), false),
        ]
    );
    let (_, mods) = test_items(&blank(src));
    assert_eq!(
        mods.into_iter().collect::<Vec<_>>(),
        vec!["kit".to_string()]
    );
}

#[test]
fn an_upward_use_is_reported_and_a_downward_one_is_not() {
    let at = |from: &str, to: &str, test: bool, file: &str| Use {
        file: file.to_string(),
        line: 3,
        from: from.to_string(),
        to: to.to_string(),
        test,
    };
    let v = violations(&[
        at("detect", "analyze", false, "src/detect/burst.rs"),
        at("analyze", "detect", false, "src/analyze/mod.rs"),
        at("redact", "limiter", false, "src/redact/mod.rs"),
        at("detect", "analyze", true, "src/detect/testkit.rs"),
        at("detect", "analyze", true, "src/detect/burst.rs"),
    ]);
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(v[0]
        .starts_with("src/detect/burst.rs:3: `detect` (layer 7) uses `crate::analyze`, above it"));
    assert!(v[1].ends_with("(test code)"));
    assert!(v[2].contains("beside it"));
}

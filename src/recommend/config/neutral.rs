//! `toomany.toml` and `toomany.json`: the neutral policy, in toomany's own terms and units
//! (milliseconds, attempts). Read back with `toml::from_str::<Policy>` / `serde_json`.

use super::{header, Emitted, Policy, Target};

/// Version of the neutral policy file format.
pub const POLICY_SCHEMA_VERSION: u32 = 1;

pub fn emit(p: &Policy) -> Vec<Emitted> {
    let how = vec![
        "Units: *_ms are milliseconds; max_attempts counts attempts, the first included."
            .to_string(),
        "This is the source of truth the other files are derived from.".to_string(),
    ];
    let head = header("#", p, "toomany neutral client policy", &how, &[]);
    // Serializing plain data to TOML cannot fail; fall back to a comment rather than panic.
    let body =
        toml::to_string(p).unwrap_or_else(|e| format!("# could not serialize the policy: {e}\n"));
    let toml_text = format!("{head}\n{body}");

    let comment: Vec<String> = head
        .lines()
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .collect();
    let mut v = serde_json::to_value(p).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut v {
        let mut with_comment = serde_json::Map::new();
        with_comment.insert("comment".into(), serde_json::Value::from(comment));
        with_comment.extend(std::mem::take(map));
        *map = with_comment;
    }
    let mut json_text = serde_json::to_string_pretty(&v).unwrap_or_default();
    json_text.push('\n');
    vec![
        Emitted {
            target: Target::Toomany,
            file_name: "toomany.toml".into(),
            contents: toml_text,
            cannot_express: vec![],
        },
        Emitted {
            target: Target::Toomany,
            file_name: "toomany.json".into(),
            contents: json_text,
            cannot_express: vec![],
        },
    ]
}

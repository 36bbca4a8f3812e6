//! Secret shapes beyond the vendor list in `text.rs`: more vendors' tokens with a known prefix
//! (as gitleaks' default rules describe them), PEM private key blocks, and JWTs spelled
//! base64 again. Each is redacted by its shape wherever it stands, like the shapes of
//! `text.rs`; the triggers that enable them are in `text::TRIGGERS` (family `SHAPE`).
//!
//! Left out on purpose: shapes whose only trigger is a common word piece (Twilio's `SK` +
//! 32 hex digits, Octopus Deploy's `API-` + 26): a trigger in most URLs (`/tasks/`,
//! `api-eu.…`) would send them all through the slow scan.
//!
//! A shape is here when it has a prefix that ordinary identifiers do not start with, or a
//! structure they do not have (a request id, a trace id or a UUID is none of these), so that
//! the report's ids stay readable. tests/fixtures/secret-shapes lists one of each gitleaks
//! rule; `tests/secret_shapes.rs` counts those that still get through.

use super::Redactor;
use regex::Regex;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Trigger words (ASCII, any case) of the shapes here.
pub(super) const TRIGGERS: &[&str] = &[
    "a3-",
    "ops_eyj",
    "p8e-",
    "ltai",
    "akcp",
    "cmvmd",
    ".acc",
    "a3t",
    "absk",
    "bedrock-api-key-",
    "q~",
    "4b1d",
    "clojars_",
    "v1.0-",
    "duffel_",
    "dt0c01",
    "ezak",
    "eztk",
    "eaa",
    "flwseck_",
    "flwpubk_",
    "fo1_",
    "fm1",
    "fm2_",
    "fio-u-",
    "glft-",
    "gr1348941",
    "eyjrijoi",
    "pat.",
    "sat.",
    "atlasv1",
    "api_org_",
    "ico-",
    "s-s4t2",
    ".ey",
    "zxlk",
    "_mmk",
    "sha256~",
    "pscale_",
    "pnu_",
    "-----begin",
    "rdme_",
    "rubygems_",
    "tk-us-",
    "sg.",
    "xkeysib-",
    "sm_",
    "shippo_",
    "xoxe.",
    "sgp_",
    "hvb.",
    "hvs.",
    "meraki",
    "linkedin",
    "linked_in",
    "linked-in",
    "messagebird",
    "message_bird",
    "message-bird",
    "okta",
    "privateai",
    "private_ai",
    "private-ai",
    "snyk",
    "sonar",
    "sumo",
];

/// The shapes, one alternative each (word boundaries where the vendor's token has them). A
/// long token is matched from a distinctive prefix and its first 40 characters on (the rest
/// of the run goes with it), which keeps the automaton small.
const SHAPES: &[&str] = &[
    r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
    r"ops_eyJ[A-Za-z0-9+/]{40,}={0,3}",
    r"\bp8e-[A-Za-z0-9]{32}\b",
    r"\bLTAI[A-Za-z0-9]{20}\b",
    r"\bAKCp[A-Za-z0-9]{69}\b",
    r"\bcmVmd[A-Za-z0-9]{59}\b",
    r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,}",
    r"\bA3T[A-Z0-9][A-Z2-7]{16}\b",
    r"\bABSK[A-Za-z0-9+/]{40,}={0,2}",
    r"bedrock-api-key-[A-Za-z0-9+/=]{20,}",
    r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    r"\b4b1d[A-Za-z0-9]{38}\b",
    r"(?i)\bCLOJARS_[a-z0-9]{60}",
    r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{40,}",
    r"\bduffel_(?:test|live)_[A-Za-z0-9_\-=]{43}",
    r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
    r"\bEZ[AT]K[A-Za-z0-9]{54}\b",
    r"\bEAA[ACM][A-Za-z0-9]{22,}",
    r"\bFLW(?:SECK|PUBK)_TEST-[A-Ha-h0-9]{12,32}(?:-X)?",
    r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{40,}={0,3}|fm2_[A-Za-z0-9+/]{40,}={0,3})",
    r"\bfio-u-[A-Za-z0-9\-_=]{64}",
    r"\bglft-[0-9A-Za-z_\-]{20}",
    r"\bGR1348941[A-Za-z0-9_-]{20}",
    r"eyJrIjoi[A-Za-z0-9]{40,}={0,3}",
    r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}",
    r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9\-_=]{40,}",
    r"\bapi_org_[A-Za-z]{34}",
    r"\bico-[A-Za-z0-9]{32}\b",
    r"\bs-s4t2(?:ud|af)-[A-Fa-f0-9]{64}",
    // A JWT without its `{"` header (gitleaks' `ey…` form), and one base64-encoded again.
    r"\bey[A-Za-z0-9]{17,}\.ey[A-Za-z0-9/\\_-]{17,}\.(?:[A-Za-z0-9/\\_-]{10,}={0,2})?",
    r"\bZXlK[A-Za-z0-9+/]{30,}={0,2}",
    r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b",
    r"\bsha256~[A-Za-z0-9_-]{43}",
    r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.\-]{32,64}",
    r"\bpnu_[A-Za-z0-9]{36}",
    r"\brdme_[a-z0-9]{70}",
    r"\brubygems_[a-f0-9]{48}",
    r"\btk-us-[A-Za-z0-9_-]{48}",
    r"\bSG\.[A-Za-z0-9=_\-.]{66}",
    r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",
    r"\bsm_[aps]at_[A-Za-z0-9]{16}",
    r"\bshippo_(?:live|test)_[A-Fa-f0-9]{40}",
    r"(?i)\bxoxe\.xox[bp]-[0-9]-[A-Z0-9]{40,}",
    r"\bsgp_(?:[A-Fa-f0-9]{16}|local)_[A-Fa-f0-9]{40}|\bsgp_[A-Fa-f0-9]{40}",
    r"\bhv[bs]\.[A-Za-z0-9_-]{40,}",
];

/// A PEM private key block, armour included (any kind: RSA, EC, OPENSSH, ENCRYPTED…).
const PEM: &str = r"(?s)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----.*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----";

/// The start of a PEM block whose end is not in the text (an excerpt cut inside the key).
const PEM_CUT: &str = r"(?s)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----.*";

/// A value assigned to a name that starts with a vendor's name (`okta_token = "…"`,
/// `sumo: …`): gitleaks' keyword rules whose vendor name no word of the name tables holds.
/// The value (group 1) must look like a key: 14 or more letters, digits, `_`, `-` or `=`.
const KEYWORDED: &str = r#"(?i)\b(?:meraki|linked[_-]?in|message[_-]?bird|okta|private[_-]?ai|snyk|sonar|sumo)[A-Za-z0-9_.-]{0,20}[\s'"]{0,3}(?:=>|:|=)[\s'"=]{0,5}([A-Za-z0-9_=-]{14,})"#;

struct Matchers {
    keyworded: Regex,
    shapes: Regex,
    pem: Regex,
    pem_cut: Regex,
}

fn matchers() -> &'static Matchers {
    static M: OnceLock<Matchers> = OnceLock::new();
    M.get_or_init(|| Matchers {
        keyworded: Regex::new(KEYWORDED).expect("keyword pattern compiles"),
        shapes: Regex::new(&SHAPES.join("|")).expect("vendor shapes compile"),
        pem: Regex::new(PEM).expect("PEM pattern compiles"),
        pem_cut: Regex::new(PEM_CUT).expect("PEM pattern compiles"),
    })
}

impl Redactor {
    /// Every shape of this module in `text` replaced by its token.
    pub(super) fn vendor_shapes<'a>(&self, text: Cow<'a, str>) -> Cow<'a, str> {
        let m = matchers();
        let mut out = text;
        if out.contains("-----BEGIN") {
            out = replace_all(out, &m.pem, |s| self.token(s));
            out = replace_all(out, &m.pem_cut, |s| self.token(s));
        }
        out = self.keyworded(out, &m.keyworded);
        replace_all(out, &m.shapes, |s| self.token(s))
    }

    /// [`KEYWORDED`]'s values replaced by their tokens, the names kept.
    fn keyworded<'a>(&self, text: Cow<'a, str>, re: &Regex) -> Cow<'a, str> {
        if !re.is_match(&text) {
            return text;
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for c in re.captures_iter(&text) {
            let Some(v) = c.get(1) else { continue };
            if !v.as_str().bytes().any(|b| b.is_ascii_digit()) {
                continue;
            }
            out.push_str(&text[last..v.start()]);
            out.push_str(&self.token(v.as_str()));
            last = v.end();
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }
}

/// Each match of `re` replaced by `f(match)`; borrowed when there is none.
fn replace_all<'a>(text: Cow<'a, str>, re: &Regex, f: impl Fn(&str) -> String) -> Cow<'a, str> {
    if !re.is_match(&text) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in re.find_iter(&text) {
        if super::is_redacted(m.as_str()) {
            continue;
        }
        out.push_str(&text[last..m.start()]);
        out.push_str(&f(m.as_str()));
        last = m.end();
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> Redactor {
        Redactor::from_key_material(b"vendor shapes test")
    }

    #[test]
    fn every_shape_and_trigger_compiles_and_triggers_are_lowercase() {
        let _ = matchers();
        for t in TRIGGERS {
            assert_eq!(*t, t.to_ascii_lowercase());
        }
    }

    #[test]
    fn shapes_go_and_ids_stay() {
        let r = r();
        for secret in [
            "pnu_TSUBij2vnVLXzJzSRrx4LF2w1o28wmRpUBcu",
            "tk-us-FxcHeCDQk-kDLXVv1sHMZ3RCnxt5JOxXsAso5YLXeu9ptOjL",
            "LTAIy36wejlifpuv2780pwki",
        ] {
            let text = format!("upstream said {secret} (later)");
            let out = r.vendor_shapes(Cow::Borrowed(&text));
            assert!(!out.contains(secret), "{out}");
            assert!(
                out.contains("upstream said ") && out.ends_with(" (later)"),
                "{out}"
            );
        }
        let pem = "key: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY----- done";
        let out = r.vendor_shapes(Cow::Borrowed(pem));
        assert!(!out.contains("MIIEowIBAAKCAQEA7"), "{out}");
        assert!(out.starts_with("key: ") && out.ends_with(" done"), "{out}");
        let cut = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC";
        assert!(!r.vendor_shapes(Cow::Borrowed(cut)).contains("MIIEvQIBADAN"));
        let out = r.vendor_shapes(Cow::Borrowed(
            "okta_token = \"00kUKRP7iLsGermIGnjqq\" sumo_url: https://x",
        ));
        assert!(
            !out.contains("00kUKRP7iLsGermIGnjqq") && out.contains("sumo_url: https://x"),
            "{out}"
        );
        for id in [
            "okta_domain: example.okta.com",
            "req_8f14e45fceea167a5a36dedd4bea2543",
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "00f067aa0ba902b7",
            "123e4567-e89b-12d3-a456-426614174000",
            "api-gateway-7d9f8c6b5-x2x4z",
            "task-queue-worker-1",
        ] {
            assert_eq!(r.vendor_shapes(Cow::Borrowed(id)), id);
        }
    }
}

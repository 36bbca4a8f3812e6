use super::*;
use crate::limiter::NS_PER_S;

const T0: Nanos = 1_767_225_600 * NS_PER_S;

fn facts<'a>(
    method: &'a str,
    headers: &'a [(String, String)],
    body: &'a [u8],
    ip: &'a str,
) -> RequestFacts<'a> {
    RequestFacts {
        method,
        headers,
        body,
        ip,
        client: ip,
    }
}

#[test]
fn a_limit_reads_its_cost_key_and_name() {
    let l = Limit::parse(
        "token-bucket:1000/min,burst=1000,cost=body:max_tokens,key=credential,name=tokens",
    )
    .unwrap();
    assert_eq!(l.name, "tokens");
    assert_eq!(l.cost, Cost::Field(vec!["max_tokens".into()]));
    assert_eq!(l.key, Key::Credential);
    assert_eq!(l.spec.to_string(), "token-bucket:1000/min,burst=1000");
    let d = Limit::parse("fixed-window:5/s").unwrap();
    assert_eq!(
        (d.name.as_str(), &d.cost, &d.key),
        ("fixed-window", &Cost::Request, &Key::Global)
    );
    for bad in [
        "fixed-window:5/s,cost=bogus",
        "fixed-window:5/s,key=everyone",
        "fixed-window:5/s,name=a b",
        "fixed-window:5/s,cost=points:1",
        // A concurrency or nginx limit counts requests only.
        "concurrency:2,cost=estimate",
        "leaky-bucket:1/s,cost=body:max_tokens",
    ] {
        assert!(Limit::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Limit::parse("concurrency:2,cost=estimate")
            .unwrap_err()
            .to_string(),
        "concurrency: a concurrency counts requests, not a cost; use fixed-window, \
         sliding-window, token-bucket, gcra or daily for a token or point budget"
    );
    assert_eq!(
        Limit::parse("fixed-window:5/s,cost=points:1/x")
            .unwrap_err()
            .to_string(),
        r#"cost=points:1/x: "x" is not a whole number ≥ 1"#
    );
}

#[test]
fn numbers_alone_keep_the_model_and_its_other_options() {
    let l = Limit::parse("token-bucket:2/s,burst=40,key=credential,name=calls").unwrap();
    let o = l.overridden("4/s").unwrap();
    assert_eq!(o.spec.to_string(), "token-bucket:4/s,burst=40");
    assert_eq!((o.name.as_str(), &o.key), ("calls", &Key::Credential));
    let o = l.overridden("4/s,burst=80").unwrap();
    assert_eq!(o.spec.to_string(), "token-bucket:4/s,burst=80");
    let o = l.overridden("fixed-window:10/min,key=ip").unwrap();
    assert_eq!(o.spec.to_string(), "fixed-window:10/min");
    assert_eq!((o.name.as_str(), &o.key), ("calls", &Key::Ip));
    let n = Limit::parse("leaky-bucket:1/s,burst=5").unwrap();
    assert_eq!(
        n.overridden("10/s").unwrap().spec.to_string(),
        "leaky-bucket:10/s,burst=5"
    );
    let c = Limit::parse("concurrency:100").unwrap();
    assert_eq!(c.overridden("2").unwrap().spec.to_string(), "concurrency:2");
    assert!(l.overridden("lots").is_err());
}

#[test]
fn costs_come_from_the_body_a_header_the_method_or_the_length() {
    let h = vec![("X-Cost".to_string(), "7".to_string())];
    let body = br#"{"max_tokens": 300, "usage": {"total_tokens": 12}}"#;
    let json: serde_json::Value = serde_json::from_slice(body).unwrap();
    let r = facts("POST", &h, body, "127.0.0.1");
    let field = |p: &str| Cost::Field(p.split('.').map(str::to_string).collect());
    assert_eq!(field("max_tokens").of(&r, Some(&json)), 300);
    assert_eq!(field("usage.total_tokens").of(&r, Some(&json)), 12);
    // Missing: the body's length / 4.
    assert_eq!(
        field("nope").of(&r, Some(&json)),
        (body.len() as u64).div_ceil(4)
    );
    assert_eq!(Cost::Header("x-cost".into()).of(&r, None), 7);
    assert_eq!(Cost::Header("x-other".into()).of(&r, None), 1);
    let pts = Cost::Points { read: 1, write: 5 };
    assert_eq!(pts.of(&r, None), 5);
    assert_eq!(pts.of(&facts("GET", &h, b"", "127.0.0.1"), None), 1);
    assert_eq!(
        Cost::Estimate.of(&facts("GET", &h, b"", "127.0.0.1"), None),
        1
    );
}

#[test]
fn credentials_key_a_limit_by_fingerprint_and_fall_back_to_the_address() {
    let fp = |s: &str| format!("fp({})", s.len());
    let with = vec![("Authorization".to_string(), "Bearer sk-secret".to_string())];
    let r = facts("GET", &with, b"", "10.0.0.1");
    assert_eq!(Key::Credential.of(&r, &fp), "fp(16)");
    assert_eq!(Key::Ip.of(&r, &fp), "10.0.0.1");
    assert_eq!(Key::Global.of(&r, &fp), "");
    let none = vec![];
    assert_eq!(
        Key::Credential.of(&facts("GET", &none, b"", "10.0.0.2"), &fp),
        "10.0.0.2"
    );
}

fn two_limits() -> State {
    State::new(vec![
        Limit::parse("fixed-window:3/min,name=requests").unwrap(),
        Limit::parse("fixed-window:1000/min,cost=body:max_tokens,name=tokens").unwrap(),
    ])
}

#[test]
fn a_token_budget_refuses_by_tokens_and_a_refusal_costs_the_other_limits_nothing() {
    let mut s = two_limits();
    let k = || vec![String::new(), String::new()];
    let (a, _) = s.decide(T0, k(), vec![1, 600]);
    assert!(a.admitted);
    // 600 + 600 > 1000 tokens: refused by the token limit, with its wait.
    let (b, _) = s.decide(T0 + NS_PER_S, k(), vec![1, 600]);
    assert!(!b.admitted);
    assert_eq!(b.binding, 1);
    assert!(
        b.decisions[0].admitted,
        "the request limit would have admitted it"
    );
    assert_eq!(b.retry_after_ns, Some(59 * NS_PER_S));
    // The refused request took no request slot: two more small ones fit, the next does not.
    assert!(s.decide(T0 + 2 * NS_PER_S, k(), vec![1, 100]).0.admitted);
    assert!(s.decide(T0 + 3 * NS_PER_S, k(), vec![1, 100]).0.admitted);
    let (c, _) = s.decide(T0 + 4 * NS_PER_S, k(), vec![1, 100]);
    assert!(!c.admitted);
    assert_eq!(c.binding, 0);
    assert_eq!(c.decisions[1].quota.remaining, 200);
}

#[test]
fn keyed_limits_keep_one_budget_per_key() {
    let mut s = State::new(vec![Limit::parse("fixed-window:1/min,key=ip").unwrap()]);
    assert!(s.decide(T0, vec!["a".into()], vec![1]).0.admitted);
    assert!(!s.decide(T0, vec!["a".into()], vec![1]).0.admitted);
    assert!(s.decide(T0, vec!["b".into()], vec![1]).0.admitted);
}

#[test]
fn a_concurrency_slot_is_held_until_released() {
    let mut s = State::new(vec![
        Limit::parse("concurrency:1").unwrap(),
        Limit::parse("fixed-window:100/min").unwrap(),
    ]);
    let k = || vec![String::new(), String::new()];
    let (a, held) = s.decide(T0, k(), vec![1, 1]);
    assert!(a.admitted);
    assert_eq!(held, vec![(0, String::new())]);
    let (b, none) = s.decide(T0, k(), vec![1, 1]);
    assert!(!b.admitted && none.is_empty());
    assert_eq!(b.retry_after_ns, None);
    s.release(T0, &held);
    assert!(s.decide(T0, k(), vec![1, 1]).0.admitted);
}

#[test]
fn a_cost_larger_than_the_allowance_is_refused_with_no_wait() {
    let mut s = State::new(vec![Limit::parse(
        "token-bucket:100/min,burst=100,cost=estimate",
    )
    .unwrap()]);
    let (o, _) = s.decide(T0, vec![String::new()], vec![101]);
    assert!(!o.admitted);
    assert_eq!(o.retry_after_ns, None);
    assert!(s.decide(T0, vec![String::new()], vec![100]).0.admitted);
}

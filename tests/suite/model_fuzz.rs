//! `replay` must not panic on any input: arbitrary strings, arbitrary JSON, trace-shaped JSON with
//! random field values, and corrupted copies of the real traces. Whatever it accepts, it answers
//! with exactly one result per step, and every step it answers obeys the invariants.

use std::path::Path;

use kcontract_oci::model::invariants::check_step;
use kcontract_oci::model::{OciVersion, Runtime, parse_trace, replay, to_json_lines};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("create"),
            Just("start"),
            Just("kill"),
            Just("delete"),
            Just("state"),
            Just("exit"),
            Just("shutdown"),
            Just("reclaim"),
            Just("SIGTERM"),
            Just("SIGKILL"),
            Just("ok"),
            Just("fail"),
            Just("1.0.1"),
            Just("1.3.0"),
            Just("a"),
            Just(""),
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let keys = prop_oneof![
            Just("oci_version"),
            Just("steps"),
            Just("op"),
            Just("id"),
            Just("process"),
            Just("on_sigterm"),
            Just("hooks"),
            Just("signal"),
            Just("code"),
            Just("grace_seconds"),
            Just("prestart"),
            Just("createRuntime"),
            Just("poststop"),
            Just("x"),
        ]
        .prop_map(str::to_owned);
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(keys, inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A trace-shaped document whose fields are random JSON: mostly well-formed at the top.
fn trace_like() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(json!("1.3.0")), Just(json!("1.0.1")), json_value()],
        proptest::collection::vec(json_value(), 0..8),
    )
        .prop_map(|(v, steps)| json!({"oci_version": v, "steps": steps}).to_string())
}

/// Well-formed traces with random IDs (any Unicode), exit codes, grace periods, signals and hooks.
fn well_formed_trace() -> impl Strategy<Value = String> {
    let id = prop_oneof![
        3 => prop_oneof![Just("a"), Just("b")].prop_map(|s| json!(s)),
        1 => "\\PC{0,8}".prop_map(|s| json!(s)),
        1 => Just(Value::Null),
    ];
    let outcomes = proptest::collection::vec(prop_oneof![Just("ok"), Just("fail")], 0..3);
    let hook = prop_oneof![
        Just("prestart"),
        Just("createRuntime"),
        Just("createContainer"),
        Just("startContainer"),
        Just("poststart"),
        Just("poststop"),
    ];
    let hooks = proptest::collection::btree_map(hook, outcomes, 0..6);
    let signal = prop_oneof![
        Just("SIGTERM".to_owned()),
        Just("SIGKILL".to_owned()),
        "SIG[A-Z0-9]{1,6}"
    ];
    let step = (
        id,
        0u8..8,
        any::<bool>(),
        any::<bool>(),
        hooks,
        signal,
        any::<i32>(),
        any::<u64>(),
    )
        .prop_map(
            |(id, op, process, ignore, hooks, signal, code, grace)| match op {
                0 => json!({"op": "create", "id": id, "process": process,
                        "on_sigterm": if ignore { "ignore" } else { "exit" }, "hooks": hooks}),
                1 => json!({"op": "start", "id": id}),
                2 => json!({"op": "kill", "id": id, "signal": signal}),
                3 => json!({"op": "delete", "id": id}),
                4 => json!({"op": "exit", "id": id, "code": code}),
                5 => json!({"op": "shutdown", "id": id, "grace_seconds": grace}),
                6 => json!({"op": "reclaim", "id": id}),
                _ => json!({"op": "state", "id": id}),
            },
        );
    (
        prop_oneof![Just("1.0.1"), Just("1.3.0")],
        proptest::collection::vec(step, 0..30),
    )
        .prop_map(|(v, steps)| json!({"oci_version": v, "steps": steps}).to_string())
}

fn real_traces() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces");
    let mut traces: Vec<String> = std::fs::read_dir(dir)
        .expect("tests/traces")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("readable"))
        .collect();
    traces.sort();
    traces
}

/// Replays under every version choice; checks the result count and the invariants of each step.
fn replay_everything(text: &str) -> Result<(), TestCaseError> {
    for version in [None, Some(OciVersion::V1_0_1), Some(OciVersion::V1_3_0)] {
        if let Ok(trace) = parse_trace(text, version) {
            let results = replay(text, version).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(results.len(), trace.steps.len());
            prop_assert_eq!(
                to_json_lines(&results).expect("JSON lines").len(),
                trace.steps.len()
            );
            let mut rt = Runtime::new(trace.version);
            for (op, expected) in trace.steps.iter().zip(&results) {
                let before = rt.clone();
                let r = rt.apply(op);
                prop_assert_eq!(&r, expected);
                if let Err(v) = check_step(&before, op, &r, &rt) {
                    return Err(TestCaseError::fail(v.to_string()));
                }
            }
        } else {
            prop_assert!(replay(text, version).is_err());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 384, failure_persistence: None, ..Config::default() })]

    #[test]
    fn arbitrary_strings_do_not_panic(text in "\\PC{0,200}") {
        replay_everything(&text)?;
    }

    #[test]
    fn arbitrary_json_does_not_panic(value in json_value()) {
        replay_everything(&value.to_string())?;
    }

    #[test]
    fn trace_shaped_json_does_not_panic(text in trace_like()) {
        replay_everything(&text)?;
    }

    /// Well-formed traces are accepted, and every step obeys the invariants.
    #[test]
    fn well_formed_traces_replay(text in well_formed_trace()) {
        prop_assert!(parse_trace(&text, None).is_ok(), "refused: {}", text);
        replay_everything(&text)?;
    }

    /// Real traces with a byte range deleted or replaced: mostly malformed, sometimes still valid.
    #[test]
    fn corrupted_real_traces_do_not_panic(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        len in 0usize..16,
        insert in "[\\[\\]{}\",:0-9a-z ]{0,6}",
    ) {
        let traces = real_traces();
        let text = pick.get(&traces);
        let start = at.index(text.len());
        let end = (start + len).min(text.len());
        if text.is_char_boundary(start) && text.is_char_boundary(end) {
            let corrupted = format!("{}{}{}", &text[..start], insert, &text[end..]);
            replay_everything(&corrupted)?;
        }
    }
}

/// Deep nesting is refused by serde_json's recursion limit, not by a stack overflow.
#[test]
fn deeply_nested_input_is_an_error() {
    let deep = format!(
        "{{\"oci_version\": \"1.3.0\", \"steps\": [{{\"op\": \"create\", \"id\": \"a\", \"hooks\": {}}}]}}",
        "[".repeat(100_000)
    );
    assert!(replay(&deep, None).is_err());
}

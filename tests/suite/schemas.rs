//! The JSON Schemas of the model's formats (`docs/trace.schema.json`, `docs/replay-line.schema.json`)
//! hold for what the code reads and writes: every trace in `tests/traces/` is valid, and so is every
//! line the model prints for it at both versions and under every runtime profile, and for the steps
//! where the spec leaves the outcome open (odd ids, unknown signals, signals by number). The schemas
//! are documentation for other tools; the parser and `ReplayLine` stay the definition, and this test
//! is what keeps the two from drifting (it fails when a field is added, renamed or dropped on one
//! side only).

use std::path::{Path, PathBuf};

use kcontract_oci::model::{OciRuntime, OciVersion, replay, replay_profiled, to_json_lines};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The schema's complaints about `instance`, one per line (empty: valid).
fn problems(v: &jsonschema::Validator, instance: &Value) -> String {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn traces() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join("tests/traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| (name(&p), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 10, "only {} traces", out.len());
    out
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Steps whose outcome the spec leaves to the runtime, and signals in every accepted form.
const ODD: &str = r#"{"oci_version": "1.3.0", "steps": [
    {"op": "create", "id": ".."},
    {"op": "create", "id": "ünïcödé"},
    {"op": "create", "id": "a/b"},
    {"op": "create", "id": "a"},
    {"op": "kill", "id": "a", "signal": "SIGFOO"},
    {"op": "kill", "id": "a", "signal": "10"},
    {"op": "kill", "id": "a", "signal": "SIGRTMIN+3"},
    {"op": "kill", "id": "a", "signal": "SIGRTMAX-1"},
    {"op": "exit", "id": "a", "code": -1},
    {"op": "shutdown", "id": "a", "grace_seconds": 0},
    {"op": "state", "id": "a"},
    {"op": "start"},
    {"op": "delete", "id": null}
]}"#;

fn long_id_trace() -> String {
    format!(
        r#"{{"oci_version": "1.0.1", "steps": [{{"op": "create", "id": "{}"}}, {{"op": "state", "id": "{}"}}]}}"#,
        "x".repeat(1024),
        "x".repeat(1024)
    )
}

fn lines_valid(v: &jsonschema::Validator, what: &str, lines: &[String]) -> usize {
    for l in lines {
        let value: Value = serde_json::from_str(l).unwrap();
        let p = problems(v, &value);
        assert!(p.is_empty(), "{what}: a line the schema rejects:\n{l}\n{p}");
    }
    lines.len()
}

#[test]
fn every_trace_and_every_replay_line_is_valid() {
    let trace_schema = validator("trace.schema.json");
    let line_schema = validator("replay-line.schema.json");
    let mut all = traces();
    all.push(("odd ids and signals".into(), ODD.into()));
    all.push(("a 1,024-byte id".into(), long_id_trace()));
    let (mut checked, mut unspecified) = (0, 0);
    for (name, text) in &all {
        let value: Value = serde_json::from_str(text).unwrap();
        let p = problems(&trace_schema, &value);
        assert!(p.is_empty(), "{name}: the trace schema rejects it:\n{p}");
        for version in [OciVersion::V1_0_1, OciVersion::V1_3_0] {
            let lines = to_json_lines(&replay(text, Some(version)).unwrap()).unwrap();
            checked += lines_valid(&line_schema, &format!("{name} at {version}"), &lines);
            unspecified += lines
                .iter()
                .filter(|l| l.contains("\"unspecified\":"))
                .count();
            for rt in [OciRuntime::Runc, OciRuntime::Crun, OciRuntime::Youki] {
                let results = replay_profiled(text, Some(version), Some(rt)).unwrap();
                let lines = to_json_lines(&results).unwrap();
                let what = format!("{name} at {version} as {rt}");
                checked += lines_valid(&line_schema, &what, &lines);
            }
        }
    }
    // The odd steps do reach the optional field (so its schema is exercised, not skipped).
    assert!(unspecified >= 8, "only {unspecified} lines say unspecified");
    assert!(checked > 500, "only {checked} lines checked");
}

/// The schemas can fail: what the parser rejects the trace schema rejects too, and a line missing a
/// field, with one too many, or with a wrongly typed one is invalid.
#[test]
fn the_schemas_reject_what_the_formats_do_not_allow() {
    let trace_schema = validator("trace.schema.json");
    for bad in [
        r#"{"oci_version": "1.0.1", "steps": [{"op": "start", "id": "a", "signal": "SIGTERM"}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "kill", "id": "a"}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "kill", "id": "a", "signal": "sigterm"}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "kill", "id": "a", "signal": "65"}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "create", "id": "a", "hooks": {"prestrat": ["ok"]}}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "create", "id": "a", "hooks": {"prestart": ["maybe"]}}]}"#,
        r#"{"oci_version": "2.0.0", "steps": []}"#,
        r#"{"oci_version": "1.0.1", "steps": [{"op": "pause", "id": "a"}]}"#,
        r#"{"oci_version": "1.0.1", "steps": [], "extra": 1}"#,
    ] {
        assert!(
            replay(bad, None).is_err(),
            "the parser accepts what this test calls malformed: {bad}"
        );
        let value: Value = serde_json::from_str(bad).unwrap();
        assert!(
            !problems(&trace_schema, &value).is_empty(),
            "the trace schema accepts a trace the parser rejects: {bad}"
        );
    }

    let line_schema = validator("replay-line.schema.json");
    let text =
        std::fs::read_to_string(root().join("tests/traces/hooks-create-phase.json")).unwrap();
    let line = to_json_lines(&replay(&text, None).unwrap()).unwrap()[0].clone();
    let good: Value = serde_json::from_str(&line).unwrap();
    assert!(problems(&line_schema, &good).is_empty());
    let mut edits: Vec<(&str, Value)> = Vec::new();
    for field in ["step", "hooks_run", "hook_states", "state"] {
        let mut v = good.clone();
        v.as_object_mut().unwrap().remove(field);
        edits.push((field, v));
    }
    let mut v = good.clone();
    v["surprise"] = Value::Bool(true);
    edits.push(("an unknown field", v));
    let mut v = good.clone();
    v["hook_states"][0]["pid"] = Value::from("1000");
    edits.push(("a pid as a string", v));
    let mut v = good.clone();
    v["hooks_run"][0] = Value::from("prestart");
    edits.push(("a hook without its index", v));
    for (what, v) in edits {
        assert!(
            !problems(&line_schema, &v).is_empty(),
            "the line schema accepts a line with {what} changed:\n{v}"
        );
    }
}

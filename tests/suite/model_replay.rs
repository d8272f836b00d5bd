//! `kcontract model replay`: the hand-written traces in `tests/traces/*.json`, replayed at both spec
//! versions, with insta snapshots of the JSON lines; their coverage of the operation × status table
//! and of every hook failure rule; malformed traces; the exit codes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kcontract_oci::model::{
    FailureRule, HookName, HookOutcome, OciVersion, OpKind, Runtime, Status, parse_trace, replay,
    to_json_lines,
};
use strum::VariantArray;

fn traces_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/traces")
}

fn trace_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(traces_dir())
        .expect("tests/traces exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned()
}

/// Every trace, replayed at v1.0.1 and at v1.3.0 (whatever its own `oci_version`), matches its
/// snapshot. The snapshots (`tests/suite/snapshots/suite__model_replay__*.snap`) are the reviewed expected output.
///
/// Clause: lifecycle.oci-compliant-default @ 278aa3baa281
/// Clause: lifecycle.sigterm-on-kill @ cf9b86d282b4
/// Clause: lifecycle.sigkill-after-grace @ e138acfd03af
/// Clause: lifecycle.stopped-may-be-reclaimed @ df9f38887532
/// Clause: lifecycle.process-failures-logged @ e30e9b65c51d
#[test]
fn traces_replay_at_both_versions() {
    let files = trace_files();
    assert!(files.len() >= 12, "only {} traces", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable trace");
        for &version in OciVersion::VARIANTS {
            let results =
                replay(&text, Some(version)).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let lines = to_json_lines(&results).expect("JSON lines").join("\n");
            insta::assert_snapshot!(format!("{}@{}", stem(&file), version), lines);
        }
    }
}

/// The traces, together, exercise every cell of the operation × status table (8 operations × absent,
/// created, running, stopped) and every hook failure rule (each hook kind each version defines, failing),
/// at both versions. Coverage is measured by replaying the parsed steps on the model.
#[test]
fn traces_cover_every_cell_and_every_hook_failure_rule() {
    for &version in OciVersion::VARIANTS {
        let mut cells: BTreeSet<(OpKind, Option<Status>)> = BTreeSet::new();
        let mut failed_hooks: BTreeSet<(HookName, FailureRule)> = BTreeSet::new();
        let mut no_id: BTreeSet<OpKind> = BTreeSet::new();
        for file in trace_files() {
            let text = std::fs::read_to_string(&file).expect("readable trace");
            let trace = parse_trace(&text, Some(version)).expect("well-formed");
            let mut rt = Runtime::new(version);
            for op in &trace.steps {
                match op.valid_id() {
                    Some(id) => {
                        cells.insert((op.action.kind(), rt.container(id).map(|c| c.status)));
                    }
                    None => {
                        no_id.insert(op.action.kind());
                    }
                }
                let r = rt.apply(op);
                for h in r
                    .hooks_run
                    .iter()
                    .filter(|h| h.outcome == HookOutcome::Fail)
                {
                    failed_hooks.insert((h.hook, version.hook_failure(h.hook).expect("defined")));
                }
            }
        }
        for &op in OpKind::VARIANTS {
            for status in [
                None,
                Some(Status::Created),
                Some(Status::Running),
                Some(Status::Stopped),
            ] {
                assert!(
                    cells.contains(&(op, status)),
                    "v{version}: no trace covers ({op}, {status:?})"
                );
            }
        }
        for &hook in HookName::VARIANTS {
            if let Some(rule) = version.hook_failure(hook) {
                assert!(
                    failed_hooks.contains(&(hook, rule)),
                    "v{version}: no trace makes {hook} fail"
                );
            }
        }
        for op in [
            OpKind::State,
            OpKind::Create,
            OpKind::Start,
            OpKind::Kill,
            OpKind::Delete,
        ] {
            assert!(
                no_id.contains(&op),
                "v{version}: no trace calls {op} without an ID"
            );
        }
    }
}

/// The example of the issue, line by line: the fields, their order, and the hook rules that differ.
#[test]
fn issue_example_output_shape() {
    let text = std::fs::read_to_string(traces_dir().join("issue-example.json")).unwrap();
    let lines = to_json_lines(&replay(&text, None).unwrap()).unwrap();
    assert_eq!(lines.len(), 7);
    assert!(
        lines[0].starts_with(
            r#"{"step":0,"op":"create","id":"a","ok":false,"status":null,"error":"createRuntime[1] failed"#
        ),
        "{}",
        lines[0]
    );
    // prestart runs in create at v1.3.0, before createRuntime; the failure sends the lifecycle to
    // the destroy step, so poststop runs. Each hook read the state: `creating` with the container
    // process's pid, and `stopped` without one once it has ended.
    assert!(
        lines[0].ends_with(
            r#""warnings":[],"hooks_run":["prestart[0]","createRuntime[0]","createRuntime[1]","poststop[0]"],"hook_states":[{"hook":"prestart[0]","status":"creating","pid":1000},{"hook":"createRuntime[0]","status":"creating","pid":1000},{"hook":"createRuntime[1]","status":"creating","pid":1000},{"hook":"poststop[0]","status":"stopped"}],"signals":[],"logs":[],"state":null}"#
        ),
        "{}",
        lines[0]
    );
    let keys: Vec<String> = serde_json::from_str::<serde_json::Value>(&lines[6])
        .unwrap()
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let mut expected = vec![
        "step",
        "op",
        "id",
        "ok",
        "status",
        "error",
        "warnings",
        "hooks_run",
        "hook_states",
        "signals",
        "logs",
        "state",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
}

/// `--oci-version` overrides the trace's version, and the result differs where the rules do: a
/// failing poststart hook is a warning at v1.0.1 and an error at v1.3.0.
#[test]
fn version_override_changes_the_rules_applied() {
    let trace = r#"{"oci_version": "1.3.0", "steps": [
        {"op": "create", "id": "a", "hooks": {"poststart": ["fail", "ok"]}},
        {"op": "start", "id": "a"}]}"#;
    let at = |v| replay(trace, v).unwrap().pop().unwrap();
    let new = at(None);
    assert!(!new.ok());
    assert_eq!(new.status, None);
    assert_eq!(
        new.hooks_run.len(),
        1,
        "at v1.3.0 the remaining poststart hooks do not run"
    );
    let old = at(Some(OciVersion::V1_0_1));
    assert!(old.ok());
    assert_eq!(old.status, Some(Status::Running));
    assert_eq!(old.warnings.len(), 1);
    assert_eq!(
        old.hooks_run.len(),
        2,
        "at v1.0.1 the remaining poststart hooks run"
    );
}

fn malformed(text: &str) -> String {
    match replay(text, None) {
        Ok(r) => panic!("accepted: {r:?}"),
        Err(e) => e.to_string(),
    }
}

/// Malformed traces are refused with `line:column`, the path of the offending value and what is
/// wrong; the messages are snapshotted.
#[test]
fn malformed_traces_are_located() {
    let cases: &[(&str, &str)] = &[
        (
            "syntax",
            "{\"oci_version\": \"1.3.0\",\n \"steps\": [\n  {\"op\": \"state\" \"id\": \"a\"}]}",
        ),
        ("not-an-object", "[1, 2]"),
        ("empty", ""),
        ("trailing", r#"{"oci_version": "1.3.0", "steps": []} x"#),
        (
            "unknown-top-field",
            r#"{"oci_version": "1.3.0", "steps": [], "stepz": []}"#,
        ),
        ("missing-version", r#"{"steps": []}"#),
        (
            "unsupported-version",
            r#"{"oci_version": "1.2.0", "steps": []}"#,
        ),
        ("missing-steps", r#"{"oci_version": "1.3.0"}"#),
        (
            "unknown-op",
            "{\"oci_version\": \"1.3.0\", \"steps\": [\n {\"op\": \"state\", \"id\": \"a\"},\n {\"op\": \"restart\", \"id\": \"a\"}]}",
        ),
        (
            "missing-op",
            r#"{"oci_version": "1.3.0", "steps": [{"id": "a"}]}"#,
        ),
        (
            "kill-without-signal",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "kill", "id": "a"}]}"#,
        ),
        (
            "bad-signal",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "kill", "id": "a", "signal": "TERM"}]}"#,
        ),
        (
            "signal-type",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "kill", "id": "a", "signal": 15}]}"#,
        ),
        (
            "field-of-other-op",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "start", "id": "a", "signal": "SIGTERM"}]}"#,
        ),
        (
            "unknown-step-field",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "create", "id": "a", "proces": false}]}"#,
        ),
        (
            "duplicate-field",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "create", "id": "a", "id": "b"}]}"#,
        ),
        (
            "unknown-hook",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "create", "id": "a", "hooks": {"preStart": ["ok"]}}]}"#,
        ),
        (
            "bad-outcome",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "create", "id": "a", "hooks": {"poststop": ["ok", "maybe"]}}]}"#,
        ),
        (
            "bad-on-sigterm",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "create", "id": "a", "on_sigterm": "die"}]}"#,
        ),
        (
            "shutdown-without-grace",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "shutdown", "id": "a"}]}"#,
        ),
        (
            "negative-grace",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "shutdown", "id": "a", "grace_seconds": -1}]}"#,
        ),
        (
            "id-type",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "state", "id": 7}]}"#,
        ),
        (
            "exit-code-range",
            r#"{"oci_version": "1.3.0", "steps": [{"op": "exit", "id": "a", "code": 4294967296}]}"#,
        ),
    ];
    let report: Vec<String> = cases
        .iter()
        .map(|(name, text)| format!("{name}: {}", malformed(text)))
        .collect();
    insta::assert_snapshot!("malformed", report.join("\n"));
}

/// With `--oci-version`, the trace's own `oci_version` is not interpreted (a trace from another
/// version can be replayed under a chosen profile), and may be absent.
#[test]
fn override_accepts_any_or_no_trace_version() {
    for text in [
        r#"{"oci_version": "1.2.0", "steps": [{"op": "state", "id": "a"}]}"#,
        r#"{"steps": [{"op": "state", "id": "a"}]}"#,
    ] {
        let r = replay(text, Some(OciVersion::V1_0_1)).unwrap();
        assert_eq!(r.len(), 1);
        assert!(!r[0].ok());
    }
}

/// `kcontract model replay PATH [--oci-version V]`: its exit code, stdout and stderr.
fn run(path: &Path, version: Option<&str>) -> (i32, String, String) {
    let mut args = vec!["model", "replay", path.to_str().unwrap()];
    if let Some(v) = version {
        args.extend(["--oci-version", v]);
    }
    crate::common::cli::kcontract(Path::new("."), &args)
}

/// Exit codes: 0 for a well-formed trace even when operations fail; 1 for a malformed trace (K0702,
/// at FILE:LINE:COL with the offending line and the path of the value) or an unreadable file
/// (K0001, K0004); 2 for an unsupported `--oci-version`.
#[test]
fn replay_command_exit_codes() {
    let good = traces_dir().join("delete.json");
    let (code, out, err) = run(&good, None);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out.lines().count(), 10);
    assert!(out.lines().any(|l| l.contains(r#""ok":false"#)));

    let dir = std::env::temp_dir().join(format!("kcontract-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, BAD_SIGNAL).unwrap();
    let (code, out, err) = run(&bad, None);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with(
            "error[K0702]: malformed trace at steps[0].signal: invalid signal `KILL`: expected a name such as SIGTERM, SIGKILL or SIGUSR1\n"
        ),
        "{err}"
    );
    assert!(
        err.contains(&format!(" --> {}:3:45\n", bad.display())),
        "{err}"
    );
    assert!(
        err.contains("3 |   {\"op\": \"kill\", \"id\": \"a\", \"signal\": \"KILL\"}]}"),
        "{err}"
    );
    assert!(err.contains("= help: "), "{err}");

    // A flag value the command does not accept is a usage error, as clap reports its own.
    let (code, out, err) = run(&good, Some("2.0.0"));
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(
        err,
        "error: unsupported --oci-version `2.0.0`\n  = help: expected 1.0.1 or 1.3.0\n"
    );

    let (code, _, err) = run(&dir.join("missing.json"), None);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("error[K0001]:") && err.contains("does not exist"),
        "{err}"
    );
    // A FIFO with no writer is refused at once (it was read forever), as a device is.
    let fifo = dir.join("fifo.json");
    crate::common::cli::mkfifo(&fifo);
    for file in [fifo.as_path(), Path::new("/dev/zero")] {
        let (code, _, err) = run(file, None);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.starts_with("error[K0004]:") && err.contains("not a regular file"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A trace whose `kill` step names a signal without its `SIG` (line 3, column 45).
const BAD_SIGNAL: &str = "{\"oci_version\": \"1.3.0\",\n \"steps\": [\n  {\"op\": \"kill\", \"id\": \"a\", \"signal\": \"KILL\"}]}";

/// K0702 as `model replay` and `conformance` report a malformed trace, whole: the place, the
/// offending line, the hint, the exit code. `conformance` reads the trace before it looks for root
/// or a runtime, so this runs anywhere.
#[test]
fn k0702_malformed_trace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.json"), BAD_SIGNAL).unwrap();
    let mut shown = String::new();
    for args in [
        &["model", "replay", "bad.json"][..],
        &["conformance", "run", "--runtime", "runc", "bad.json"][..],
    ] {
        let (code, out, err) = crate::common::cli::kcontract(dir.path(), args);
        shown.push_str(&format!(
            "$ kcontract {}\nexit: {code}\n--- stdout\n{out}--- stderr\n{err}\n",
            args.join(" ")
        ));
    }
    insta::assert_snapshot!(shown);
}

/// The binary's `model replay` subcommand prints the same lines and exit code.
#[test]
fn binary_model_replay() {
    let file = traces_dir().join("shutdown.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .args(["model", "replay"])
        .arg(&file)
        .args(["--oci-version", "1.0.1"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let (_, expected, _) = run(&file, Some("1.0.1"));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
}

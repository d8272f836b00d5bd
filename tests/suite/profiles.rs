//! The runtime profiles of the model (`--profile`), without real runtimes: on random sequences (the
//! model's strategies) a profile only ever applies its own runtime's deviations, at the versions
//! they depart from, and never changes a step without saying which deviation did; and the
//! command line handles profiles and the `conformance` commands' bad input with clear errors.

use kcontract_oci::conformance::from_model;
use kcontract_oci::model::{OciRuntime, OciVersion, Op, Runtime, trace_to_json};
use proptest::prelude::*;
use strum::VariantArray;

fn run(rt: &mut Runtime, ops: &[Op]) -> Vec<kcontract_oci::model::StepResult> {
    ops.iter().map(|op| rt.apply(op)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Until the first step in which a deviation takes effect, the profiled model and the spec
    /// model give the same results; the deviations noted are the runtime's own and depart from the
    /// version followed.
    #[test]
    fn a_profile_changes_nothing_without_naming_a_deviation(
        ops in proptest::collection::vec(crate::common::model::op(), 1..30),
    ) {
        for &runtime in OciRuntime::VARIANTS {
            for &version in OciVersion::VARIANTS {
                let profiled = run(&mut Runtime::with_profile(version, runtime), &ops);
                let spec = run(&mut Runtime::new(version), &ops);
                for (p, s) in profiled.iter().zip(&spec) {
                    for d in &p.deviations {
                        prop_assert!(runtime.has(*d), "{runtime} applied {d}");
                        prop_assert!(d.deviates_at(version), "{d} applied at v{version}");
                    }
                    if !p.deviations.is_empty() {
                        break;
                    }
                    prop_assert_eq!(
                        from_model(p), from_model(s),
                        "{} at v{} differs from the spec without a deviation:\n{}",
                        runtime, version, trace_to_json(version, &ops)
                    );
                    prop_assert_eq!(&p.error, &s.error);
                }
                prop_assert!(spec.iter().all(|s| s.deviations.is_empty() && s.profile.is_none()));
            }
        }
    }
}

/// `kcontract ARGS` in this repository.
fn kcontract(args: &[&str]) -> (i32, String, String) {
    crate::common::cli::kcontract(&crate::common::cli::root(), args)
}

fn trace_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write trace");
    path.display().to_string()
}

const DELETE_CREATED: &str = r#"{"oci_version": "1.3.0", "steps": [
  {"op": "create", "id": "a", "hooks": {"poststop": ["ok"]}},
  {"op": "delete", "id": "a"}]}"#;

#[test]
fn replay_with_a_profile_names_the_deviations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = trace_file(&dir, "t.json", DELETE_CREATED);
    let (code, out, err) = kcontract(&["model", "replay", "--profile", "crun", &trace]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["deviations"], serde_json::json!([]));
    assert_eq!(
        lines[1]["deviations"],
        serde_json::json!(["delete-created"])
    );
    assert_eq!(lines[1]["ok"], true);
    assert_eq!(lines[1]["hooks_run"], serde_json::json!(["poststop[0]"]));
    // Without a profile the field is absent (the documented format is unchanged).
    let (code, out, _) = kcontract(&["model", "replay", &trace]);
    assert_eq!(code, 0);
    assert!(!out.contains("deviations"), "{out}");
    assert!(
        out.lines()
            .nth(1)
            .is_some_and(|l| l.contains("\"ok\":false"))
    );
}

/// Bad input files are input errors: exit 1, a message, no output, no panic.
#[test]
fn bad_traces_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = trace_file(
        &dir,
        "bad.json",
        r#"{"oci_version": "1.3.0", "steps": [{"op": "nap"}]}"#,
    );
    let missing = dir.path().join("missing.json").display().to_string();
    let cases: [(&[&str], &str); 4] = [
        (
            &["conformance", "compare", "--runtime", "runc", &missing],
            "error[K0001]:",
        ),
        (
            &["conformance", "run", "--runtime", "runc", &bad],
            "malformed",
        ),
        (
            &["conformance", "run", "--runtime", "runc", &bad],
            "unknown op `nap`",
        ),
        (
            &["model", "replay", "--profile", "runc", &bad],
            "unknown op `nap`",
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = kcontract(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A flag value the command does not accept (`--profile`, `--runtime`, `--oci-version`) is a usage
/// error: exit 2, like clap's own, with a message naming the accepted values — checked before the
/// file is read, so a missing file does not hide it.
#[test]
fn bad_flag_values_are_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = trace_file(&dir, "good.json", DELETE_CREATED);
    let missing = dir.path().join("missing.json").display().to_string();
    let cases: [(&[&str], &str); 6] = [
        (
            &["model", "replay", "--profile", "docker", &good],
            "error: unknown --profile `docker`\n  = help: expected runc, crun or youki\n",
        ),
        (
            &["model", "replay", "--oci-version", "9", &good],
            "error: unsupported --oci-version `9`\n  = help: expected 1.0.1 or 1.3.0\n",
        ),
        (
            &["conformance", "run", "--runtime", "docker", &good],
            "error: unknown --runtime `docker`\n  = help: expected runc, crun or youki\n",
        ),
        (
            &["conformance", "compare", "--runtime", "docker", &missing],
            "error: unknown --runtime `docker`\n  = help: expected runc, crun or youki\n",
        ),
        (
            &[
                "conformance",
                "run",
                "--runtime",
                "runc",
                "--oci-version",
                "2.0",
                &good,
            ],
            "error: unsupported --oci-version `2.0`\n  = help: expected 1.0.1 or 1.3.0\n",
        ),
        (
            &["model", "replay", "--oci-version", "1.2.0", &missing],
            "error: unsupported --oci-version `1.2.0`\n  = help: expected 1.0.1 or 1.3.0\n",
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = kcontract(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err, message, "{args:?}");
    }
}

/// K0703 as `conformance` reports a runtime it cannot find: with an empty `PATH` no runtime is
/// installed (the tests run as root; as another user the same code says that root is needed).
#[test]
fn k0703_runtime_not_on_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = trace_file(&dir, "t.json", DELETE_CREATED);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .args([
            "--color",
            "never",
            "conformance",
            "run",
            "--runtime",
            "runc",
            &trace,
        ])
        .env("PATH", "")
        .output()
        .expect("the kcontract binary runs");
    let err = String::from_utf8_lossy(&out.stderr).replace(&trace, "TRACE");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty());
    if kcontract_oci::conformance::is_root() {
        insta::assert_snapshot!(err);
    } else {
        assert!(
            err.starts_with("error[K0703]: conformance needs root"),
            "{err}"
        );
    }
}

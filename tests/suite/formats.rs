//! The JSON Schemas of kcontract's stable interfaces (docs/formats.md lists them all) hold for what
//! the commands print: the clause list, the matrix (with results and a platform column), the diff,
//! the coverage snapshot and the lint findings, each from the real binary on this repository. The
//! schemas are documentation for other tools; the serde types stay the definition, and this test
//! keeps the two from drifting. Each schema also rejects a doctored document (its negative control).

use serde_json::Value;

use crate::common::cli::{kcontract, root};

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs").join(name)).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `kcontract ARGS` in the repository, its stdout as JSON (the command must succeed).
fn json_of(args: &[&str]) -> Value {
    let (code, out, err) = kcontract(&root(), args);
    assert!(code == 0, "kcontract {args:?} exited {code}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("kcontract {args:?}: {e}"))
}

/// Valid under `schema`, or a panic naming each complaint.
fn assert_valid(schema: &str, what: &str, instance: &Value) {
    let v = validator(schema);
    let problems: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{what} against docs/{schema}:\n{}",
        problems.join("\n")
    );
}

/// The same document with `edit` applied is rejected: the schema checks what it says.
fn assert_rejects(schema: &str, mut instance: Value, edit: impl FnOnce(&mut Value)) {
    edit(&mut instance);
    assert!(
        !validator(schema).is_valid(&instance),
        "docs/{schema} accepts a doctored document"
    );
}

#[test]
fn the_clause_list_and_clauses_json_follow_their_schema() {
    let list = json_of(&["list", "--format", "json"]);
    assert_valid("clauses.schema.json", "list --format json", &list);
    let site: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("site/clauses.json")).unwrap())
            .unwrap();
    assert_valid("clauses.schema.json", "site/clauses.json", &site);
    assert_rejects("clauses.schema.json", list.clone(), |v| {
        v["clauses"][0]["level"] = "OUGHT".into()
    });
    assert_rejects("clauses.schema.json", list, |v| {
        v["clauses"][0].as_object_mut().unwrap().remove("stamp");
    });
}

#[test]
fn the_matrix_follows_its_schema_with_results_and_a_platform_column() {
    let plain = json_of(&["matrix", "--format", "json"]);
    assert_valid("matrix.schema.json", "matrix --format json", &plain);
    let site: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("site/matrix.json")).unwrap())
            .unwrap();
    assert_valid("matrix.schema.json", "site/matrix.json", &site);
    // A vendor log's report as a column (no root needed).
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("gcr.json");
    let (code, _, err) = kcontract(
        &root(),
        &[
            "platform",
            "import-log",
            "--platform",
            "google-cloud-run",
            "upstream/knative/conformance-logs/2022-04-11-google-cloud-run.serving_runtime_e2e.log",
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert!(code == 0 || code == 1, "{err}");
    let with = json_of(&[
        "matrix",
        "--format",
        "json",
        "--platform",
        report.to_str().unwrap(),
    ]);
    assert!(with["platforms"].is_array() && with["clauses"][0]["platforms"].is_array());
    assert_valid("matrix.schema.json", "matrix --platform", &with);
    assert_rejects("matrix.schema.json", plain, |v| {
        v["clauses"][0]["status"] = "covered".into()
    });
}

#[test]
fn the_diff_follows_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    // Two versions that differ in every way the JSON has fields for: this repository's history.
    let old = root().join("spec/history/knative-serving-2018-07-26");
    let (code, out, err) = kcontract(
        dir.path(),
        &[
            "diff",
            old.to_str().unwrap(),
            root().join("spec").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(code == 0 || code == 1, "{err}");
    let diff: Value = serde_json::from_str(&out).unwrap();
    assert!(diff["changes"].as_array().is_some_and(|c| !c.is_empty()));
    assert_valid("diff.schema.json", "diff --format json", &diff);
    assert_rejects("diff.schema.json", diff, |v| {
        v["changes"][0]["old"] = 3.into()
    });
}

#[test]
fn the_coverage_snapshot_follows_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("coverage.json");
    let (code, _, err) = kcontract(
        &root(),
        &["matrix", "--ci", file.to_str().unwrap(), "--accept"],
    );
    assert_eq!(code, 0, "{err}");
    let snapshot: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_valid("coverage.schema.json", "matrix --ci --accept", &snapshot);
    assert_rejects("coverage.schema.json", snapshot, |v| {
        v["clauses"]["config.env.port"] = "done".into()
    });
}

#[test]
fn lint_findings_follow_their_schema() {
    let mut args = vec!["platform", "lint", "--format", "json"];
    let files: Vec<String> = std::fs::read_dir(root().join("tests/fixtures/lint"))
        .unwrap()
        .map(|e| {
            format!(
                "tests/fixtures/lint/{}",
                e.unwrap().file_name().to_string_lossy()
            )
        })
        .collect();
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = kcontract(&root(), &args);
    assert_eq!(code, 1, "the fixtures break MUST clauses: {err}");
    let findings: Value = serde_json::from_str(&out).unwrap();
    assert!(findings["warnings"].as_u64() > Some(0) && findings["errors"].as_u64() > Some(0));
    assert_valid("lint.schema.json", "platform lint --format json", &findings);
    assert_rejects("lint.schema.json", findings, |v| {
        v["diagnostics"][0]["code"] = "E1".into()
    });
}

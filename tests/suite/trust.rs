//! Test authors can trust the tool (issue #15): a test whose clause changed is flagged as suspect
//! until reviewed, tests are found the same way from any working directory, and nothing passes
//! silently (results naming no annotated test, a `--require` selecting nothing), failures say why.

use std::path::Path;

use crate::common::cli::{copy_dir, kcontract, root};

use serde_json::Value;

fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/matrix"), tmp.path());
    tmp
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap()
}

fn row<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
}

/// Paths in messages from a temporary folder, made stable for snapshots.
fn scrub(s: &str, dir: &Path) -> String {
    s.replace(&dir.display().to_string(), "[DIR]")
}

/// Change a clause's text → its reviewed test is suspect in `check` (a warning; an error with
/// `--strict`) and in `matrix --format json`; `review` clears it; an untouched stub for the same
/// clause is re-stamped by `scaffold` without a word.
#[test]
fn a_changed_clause_makes_its_test_suspect_until_reviewed() {
    let tmp = fixture();
    let dir = tmp.path();
    // Record the review of the tests of `one.passes` (both of them).
    let (code, out, err) = kcontract(dir, &["review", "one.passes"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 claims re-stamped"), "{out}");
    let checks = std::fs::read_to_string(dir.join("tests/checks.rs")).unwrap();
    assert!(checks.contains("/// Clause: one.passes @ "), "{checks}");
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0514"), "{err}");
    // A stub for the same clause, in a standalone crate (which has no real test for it).
    let scaffold = ["scaffold", "--crate", "stubs", "--out", "stubs"];
    let (code, _, err) = kcontract(dir, &scaffold);
    assert_eq!(code, 0, "{err}");

    // The clause changes.
    let md = dir.join("spec/en/one.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(
        &md,
        text.replace(
            "The platform MUST pass this check.",
            "The platform MUST pass this stricter check.",
        ),
    )
    .unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 0, "a warning: {err}");
    insta::assert_snapshot!("suspect_check", scrub(&err, dir));
    let (code, _, err) = kcontract(dir, &["check", "--strict"]);
    assert_eq!(code, 1, "an error with --strict: {err}");
    assert!(err.contains("error[K0514]"), "{err}");
    let (code, out, _) = kcontract(dir, &["matrix", "--format", "json"]);
    assert_eq!(code, 0);
    let v = json(&out);
    assert_eq!(row(&v, "one.passes")["status"], "suspect");
    assert!(
        row(&v, "one.passes")["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["suspect"] == true)
    );
    assert_eq!(row(&v, "two.in-macro")["status"], "implemented");

    // The stub is re-stamped silently (scaffold never reports suspects; nothing to review).
    let stubs_before = std::fs::read_to_string(dir.join("stubs/tests/contract/one.rs")).unwrap();
    assert!(stubs_before.contains("/// Clause: one.passes @ 12175f9821c3"));
    let (code, out, err) = kcontract(dir, &scaffold);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("K0514") && !out.contains("suspect"),
        "{out}{err}"
    );
    let stubs_after = std::fs::read_to_string(dir.join("stubs/tests/contract/one.rs")).unwrap();
    assert!(stubs_after.contains("/// Clause: one.passes @ a81d1d9e5476"));
    assert_ne!(stubs_before, stubs_after);
    assert!(
        stubs_after.contains("pass this stricter check"),
        "{stubs_after}"
    );

    // A person looked: review clears it.
    // `--all`: the three suspect claims, and the three real tests' claims without a stamp.
    let (code, out, err) = kcontract(dir, &["review", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("6 claims re-stamped"), "{out}");
    let (code, _, err) = kcontract(dir, &["check", "--strict"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0514"), "{err}");
    let (_, out, _) = kcontract(dir, &["matrix", "--format", "json"]);
    assert_eq!(row(&json(&out), "one.passes")["status"], "implemented");
}

/// `--strict` reports real tests whose annotation has no stamp (valid, but never reviewed).
#[test]
fn unstamped_annotations_are_reported_only_with_strict() {
    let tmp = fixture();
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0);
    assert!(!err.contains("K0515"), "{err}");
    let (code, _, err) = kcontract(tmp.path(), &["check", "--strict"]);
    assert_eq!(code, 0, "a warning: {err}");
    insta::assert_snapshot!("unstamped_strict", err);
}

/// `review` of an id that is not a clause is a usage error with a "did you mean".
#[test]
fn review_of_an_unknown_id_is_a_usage_error() {
    let tmp = fixture();
    let (code, _, err) = kcontract(tmp.path(), &["review", "one.pases"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `one.passes`"), "{err}");
}

/// The matrix from another working directory (`--spec` naming the fixture's spec) finds the same
/// tests as from the crate root.
/// A clause whose text states no keyword (`implicit`) changes only its level → its reviewed test
/// is suspect (the words cannot show it; the stamp covers the level there); `review` clears it.
#[test]
fn a_level_change_of_an_implicit_clause_makes_its_test_suspect() {
    let tmp = fixture();
    let dir = tmp.path();
    let md = dir.join("spec/en/one.md");
    let text = std::fs::read_to_string(&md).unwrap();
    let implicit = text.replace(
        "text: The platform MUST pass this check.\n",
        "text: The platform passes this check.\nimplicit: Passing the check is what conformance means here.\n",
    );
    assert_ne!(implicit, text);
    std::fs::write(&md, &implicit).unwrap();
    let (code, _, err) = kcontract(dir, &["review", "one.passes"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kcontract(dir, &["check", "--strict"]);
    assert_eq!(code, 0, "{err}");

    let (head, tail) = implicit.split_at(implicit.find("id: one.passes").unwrap());
    let lowered = format!("{head}{}", tail.replacen("level: MUST", "level: SHOULD", 1));
    std::fs::write(&md, &lowered).unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning[K0514]") && err.contains("clause `one.passes` changed"),
        "{err}"
    );
    let (_, out, _) = kcontract(dir, &["matrix", "--format", "json"]);
    assert_eq!(row(&json(&out), "one.passes")["status"], "suspect");
    let (code, _, err) = kcontract(dir, &["review", "one.passes"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kcontract(dir, &["check", "--strict"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn matrix_from_another_directory_finds_the_same_tests() {
    let tmp = fixture();
    let args = [
        "matrix",
        "--format",
        "json",
        "--results",
        "results/junit.xml",
    ];
    let (code, here, err) = kcontract(tmp.path(), &args);
    assert_eq!(code, 0, "{err}");
    let elsewhere = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    // `matrix --format json` run from another folder, with one more flag and its value.
    let matrix_from_elsewhere = |flag: &str, value: &Path| {
        let (code, out, err) = kcontract(
            elsewhere.path(),
            &[
                "--spec",
                spec.to_str().unwrap(),
                "matrix",
                "--format",
                "json",
                flag,
                value.to_str().unwrap(),
            ],
        );
        assert_eq!(code, 0, "{flag}: {err}");
        out
    };
    let there = matrix_from_elsewhere("--results", &tmp.path().join("results/junit.xml"));
    let (mut a, mut b) = (json(&here), json(&there));
    // The results file is named as given.
    a["results"] = Value::Null;
    b["results"] = Value::Null;
    assert_eq!(a, b);
    assert_eq!(row(&a, "one.passes")["tests"].as_array().unwrap().len(), 3);
    // --tests-root: the Cargo layout of a crate elsewhere.
    let rooted = matrix_from_elsewhere("--tests-root", tmp.path());
    assert_eq!(
        row(&json(&rooted), "one.passes")["tests"],
        row(&a, "one.passes")["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t["outcome"] = Value::Null;
                t
            })
            .collect::<Value>()
    );
    // --manifest-path: the same crate named as cargo names it; a wrong one is a usage error.
    let manifest = tmp.path().join("Cargo.toml");
    let by_manifest = matrix_from_elsewhere("--manifest-path", &manifest);
    assert_eq!(json(&by_manifest), json(&rooted));
    let spec_arg = spec.to_str().unwrap();
    // A wrong --manifest-path, and a --tests-root that is no folder: usage errors, not a warning
    // that nothing was found.
    std::fs::write(elsewhere.path().join("a-file"), "").unwrap();
    for (flag, bad, says) in [
        ("--manifest-path", "Cargo.toml", "cannot be read"),
        ("--manifest-path", "README.md", "is not a Cargo.toml"),
        ("--tests-root", "missing", "does not exist"),
        ("--tests-root", "a-file", "is not a folder"),
    ] {
        let path = elsewhere.path().join(bad);
        let (code, _, err) = kcontract(
            elsewhere.path(),
            &["--spec", spec_arg, "check", flag, path.to_str().unwrap()],
        );
        assert_eq!(code, 2, "{flag} {bad}: {err}");
        assert!(err.contains(says), "{flag} {bad}: {err}");
    }
    std::fs::write(
        elsewhere.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\"]\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(
        elsewhere.path(),
        &["--spec", spec_arg, "build", "--manifest-path", "Cargo.toml"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no [package]"), "{err}");
    let (code, _, err) = kcontract(
        elsewhere.path(),
        &[
            "--spec",
            spec_arg,
            "review",
            "--all",
            "--manifest-path",
            manifest.to_str().unwrap(),
            "--tests-root",
            ".",
        ],
    );
    assert_eq!(code, 2, "both flags: {err}");
}

/// No annotated test where the globs point: a warning naming them (K0516), not a silent 0.
#[test]
fn no_annotated_test_found_is_a_warning_naming_the_globs() {
    let tmp = fixture();
    let p = tmp.path().join("spec/contract.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace("../tests/**/*.rs", "tests/**/*.rs")
            .replace("\"../src/**/*.rs\"", "\"src/**/*.rs\""),
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("no_annotated_test", scrub(&err, tmp.path()));
}

/// A results file none of whose tests is annotated here: exit 1, naming a few of its tests.
#[test]
fn results_matching_no_annotated_test_exit_1() {
    let tmp = fixture();
    std::fs::write(
        tmp.path().join("other.xml"),
        "<testsuites><testsuite name=\"other::it\"><testcase name=\"a\" classname=\"other::it\"/><testcase name=\"b\" classname=\"other::it\"><failure message=\"x\"/></testcase></testsuite></testsuites>",
    )
    .unwrap();
    let (code, out, err) = kcontract(tmp.path(), &["matrix", "--results", "other.xml"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    insta::assert_snapshot!("results_match_nothing", err);
}

/// A `--require` selector that selects no clause: exit 2 with a "did you mean".
#[test]
fn a_require_selecting_nothing_is_a_usage_error() {
    let tmp = fixture();
    let (code, out, err) = kcontract(tmp.path(), &["matrix", "--require", "chapter:on=stub"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("did you mean `chapter:one`?"), "{err}");
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--require", "SHOULD NOT=stub"]);
    assert_eq!(code, 2, "a level no clause has: {err}");
}

/// The failing fixture test's message reaches the matrix JSON and CSV, from JUnit and libtest.
#[test]
fn failure_messages_reach_the_matrix() {
    let tmp = fixture();
    for results in ["results/junit.xml", "results/libtest.txt"] {
        let (code, out, err) = kcontract(
            tmp.path(),
            &["matrix", "--format", "json", "--results", results],
        );
        assert_eq!(code, 0, "{err}");
        let v = json(&out);
        let failing = row(&v, "one.fails");
        assert_eq!(failing["status"], "failing");
        let msg = failing["tests"][0]["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains("this test fails on purpose"),
            "{results}: {msg}"
        );
        let passing = row(&v, "one.passes");
        assert!(passing["tests"][0]["message"].is_null());
    }
    let (_, out, _) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--format",
            "csv",
            "--results",
            "results/junit.xml",
        ],
    );
    assert!(out.contains("this test fails on purpose"), "{out}");
}

/// `scaffold --check` shows what would change as a unified diff; a note typed into an unwritten
/// stub's doc comment survives regeneration (the stub is then the author's, kept byte for byte).
#[test]
fn scaffold_check_prints_a_diff_and_typed_notes_survive() {
    let tmp = fixture();
    let dir = tmp.path();
    let scaffold = ["scaffold", "--crate", "stubs", "--out", "stubs"];
    let (code, _, err) = kcontract(dir, &scaffold);
    assert_eq!(code, 0, "{err}");
    // A crate ready for CI: the nextest `ci` profile, a README of the commands (run in the
    // crate: its kcontract.toml names the spec, relative to the crate), a .gitignore.
    let nextest = std::fs::read_to_string(dir.join("stubs/.config/nextest.toml")).unwrap();
    assert!(nextest.contains("[profile.ci.junit]"), "{nextest}");
    let readme = std::fs::read_to_string(dir.join("stubs/README.md")).unwrap();
    for cmd in [
        "kcontract scaffold\n",
        "cargo nextest run --profile ci",
        "kcontract matrix --results target/nextest/ci/junit.xml --require '*=passing'",
    ] {
        assert!(readme.contains(cmd), "{cmd}: {readme}");
    }
    assert!(
        !readme.contains(&dir.display().to_string()),
        "no absolute path: {readme}"
    );
    let config = std::fs::read_to_string(dir.join("stubs/kcontract.toml")).unwrap();
    assert!(config.contains("\nspec = \"../spec\"\n"), "{config}");
    assert_eq!(
        std::fs::read_to_string(dir.join("stubs/.gitignore")).unwrap(),
        "/target\n"
    );
    let one = dir.join("stubs/tests/contract/one.rs");
    let text = std::fs::read_to_string(&one).unwrap();
    let noted = text.replace(
        "/// The platform MUST pass this check too, but its test fails.\n",
        "/// The platform MUST pass this check too, but its test fails.\n/// NOTE: ask the platform team which check.\n",
    );
    assert_ne!(noted, text);
    std::fs::write(&one, &noted).unwrap();
    let md = dir.join("spec/en/one.md");
    let spec = std::fs::read_to_string(&md).unwrap();
    let changed = spec
        .replace("MUST pass this check.", "MUST pass this stricter check.")
        .replace("this check too,", "this stricter check too,");
    assert_ne!(changed, spec);
    std::fs::write(&md, changed).unwrap();
    let check: Vec<&str> = scaffold.iter().copied().chain(["--check"]).collect();
    let (code, _, err) = kcontract(dir, &check);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("scaffold_check_diff", scrub(&err, dir));
    let (code, _, err) = kcontract(dir, &scaffold);
    assert_eq!(code, 0, "{err}");
    let after = std::fs::read_to_string(&one).unwrap();
    assert!(
        after.contains("/// NOTE: ask the platform team which check.\n"),
        "{after}"
    );
    assert!(
        after.contains("/// The platform MUST pass this stricter check."),
        "{after}"
    );
}

/// `model replay` marks where the OCI spec leaves the outcome to the runtime: `kill a SIGFOO` (a
/// signal Linux does not have) and `create ".."`; signals by number and `SIGRTMIN+n` are accepted
/// and, being real signals, are not marked.
#[test]
fn model_replay_marks_unspecified_outcomes() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("t.json"),
        r#"{"oci_version": "1.0.1", "steps": [
            {"op": "create", "id": "a"},
            {"op": "kill", "id": "a", "signal": "SIGFOO"},
            {"op": "kill", "id": "a", "signal": "SIGRTMIN+2"},
            {"op": "kill", "id": "a", "signal": "10"},
            {"op": "create", "id": ".."}
        ]}"#,
    )
    .unwrap();
    let (code, out, err) = kcontract(tmp.path(), &["model", "replay", "t.json"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out.lines().map(json).collect();
    let unspecified: Vec<bool> = lines
        .iter()
        .map(|l| l.get("unspecified").is_some_and(Value::is_string))
        .collect();
    assert_eq!(unspecified, [false, true, false, false, true], "{out}");
    assert!(lines[1]["unspecified"].as_str().unwrap().contains("SIGFOO"));
    assert!(lines[4]["unspecified"].as_str().unwrap().contains("`..`"));
    // The model's choice stays beside it.
    assert_eq!(lines[1]["ok"], true);
}

/// A YAML error in a source clause is reported once: its translation is not also reported as
/// translating a clause that does not exist (K0302, a cascade).
#[test]
fn a_broken_source_clause_does_not_cascade_into_its_translation() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "spec/contract.yaml",
            "title: T\nversion: 0.1.0\nlanguages: [en, zh]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n",
        ),
        (
            "spec/en/one.md",
            "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\ntext: [The platform MUST do it.\nverify: manual\n```\n",
        ),
        (
            "spec/zh/one.md",
            "# 一\n\n```clause\nid: one.a\ntext: 平台必须（MUST）这样做。\nsource: 87b30d4e0373\n```\n",
        ),
    ];
    for (rel, text) in files {
        let p = tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("spec/en/one.md"), "the source's error: {err}");
    assert!(!err.contains("K0302"), "{err}");
}

/// Every test on the matrix page links to its source file and line when contract.yaml names where
/// the tests can be read (`links.tests.base`), and shows file:line as text when it does not.
#[test]
fn tests_link_to_their_source_when_the_contract_says_where() {
    let tmp = fixture();
    let dir = tmp.path();
    let (code, _, err) = kcontract(dir, &["build", "--out", "plain"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(dir.join("plain/en/matrix.html")).unwrap();
    assert!(page.contains("tests/checks.rs:5"), "file:line as text");
    assert!(!page.contains("#L5\""), "no link without a base");

    let yaml = dir.join("spec/contract.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        format!("{text}links:\n  tests: {{base: \"https://example.invalid/repo/blob/main/\"}}\n"),
    )
    .unwrap();
    let (code, _, err) = kcontract(dir, &["build", "--out", "linked"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(dir.join("linked/en/matrix.html")).unwrap();
    assert!(
        page.contains(
            "<a href=\"https://example.invalid/repo/blob/main/tests/checks.rs#L5\">tests/checks.rs:5</a>"
        ),
        "{}",
        page.lines().filter(|l| l.contains("checks.rs")).collect::<Vec<_>>().join("\n")
    );
}

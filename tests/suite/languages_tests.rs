//! Tests in other languages (issue #52): the Go, Python and TypeScript fixtures (the matrix
//! fixture's contract, its tests rewritten in each language, with a results file in each runner's
//! format) give the matrix the statuses the Rust fixture gives; a changed clause makes the Go test
//! suspect and `review` re-stamps it.

use crate::common::cli::{copy_dir, kcontract, root};
use crate::matrix::{FIXTURE_WITH_RESULTS, statuses};

fn fixture(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures").join(name), tmp.path());
    tmp
}

fn expected() -> Vec<(String, String)> {
    FIXTURE_WITH_RESULTS
        .iter()
        .map(|(id, s)| (id.to_string(), s.to_string()))
        .collect()
}

/// Each fixture with each of its results files: the Rust fixture's statuses, and no problem found.
#[test]
fn each_language_gives_the_rust_fixtures_statuses() {
    for (name, results) in [
        ("lang-go", "results/go-test.json"),
        ("lang-go", "results/go-test.txt"),
        ("lang-python", "results/junit.xml"),
        ("lang-ts", "results/vitest-junit.xml"),
        ("lang-ts", "results/jest-junit.xml"),
    ] {
        let tmp = fixture(name);
        let args = ["--spec", "spec", "matrix", "--results", results];
        let (code, out, err) = kcontract(tmp.path(), &[&args[..], &["--format", "json"]].concat());
        assert_eq!(code, 0, "{name} {results}: {err}");
        assert!(err.is_empty(), "{name} {results}: {err}");
        assert_eq!(statuses(&out), expected(), "{name} {results}");
        // Without results: written tests are `implemented`, the stub is a stub.
        let (code, out, err) = kcontract(
            tmp.path(),
            &["--spec", "spec", "matrix", "--format", "json"],
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let row = |id: &str| {
            v["clauses"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .unwrap()["status"]
                .clone()
        };
        assert_eq!(row("one.passes"), "implemented", "{name}");
        assert_eq!(row("one.stubbed"), "stub", "{name}");
        let (code, _, err) = kcontract(tmp.path(), &["--spec", "spec", "check"]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.is_empty(),
            "annotations in strings and block comments are not read: {err}"
        );
    }
}

/// The gate works on them as on Rust tests: passing ones meet it, the failing one does not.
#[test]
fn require_gates_tests_of_other_languages() {
    let tmp = fixture("lang-go");
    let base = [
        "--spec",
        "spec",
        "matrix",
        "--results",
        "results/go-test.json",
        "--require",
    ];
    let (code, _, err) = kcontract(
        tmp.path(),
        &[&base[..], &["id:two.in-macro=passing"]].concat(),
    );
    assert_eq!(code, 0, "a passing Go subtest meets the gate: {err}");
    let (code, _, err) = kcontract(tmp.path(), &[&base[..], &["id:one.fails=passing"]].concat());
    assert_eq!(code, 1, "a failing Go test does not: {err}");
}

/// A results file of another run names none of the tests: each annotated test is `no result`
/// (K0605), and a log that names none of them at all is refused (K0606).
#[test]
fn results_of_other_tests_match_nothing() {
    let tmp = fixture("lang-go");
    std::fs::write(
        tmp.path().join("results/other.txt"),
        "=== RUN   TestSomethingElse\n--- PASS: TestSomethingElse (0.00s)\n",
    )
    .unwrap();
    let args = ["--spec", "spec", "matrix", "--results", "results/other.txt"];
    let (code, _, err) = kcontract(tmp.path(), &args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("K0606") && err.contains("TestSomethingElse"),
        "{err}"
    );
}

/// A changed clause makes the Go test that claims it suspect; `review` re-stamps its `//` line.
#[test]
fn a_changed_clause_makes_the_go_test_suspect_until_reviewed() {
    let tmp = fixture("lang-go");
    let dir = tmp.path();
    let spec = ["--spec", "spec"];
    let (code, out, err) = kcontract(dir, &[&spec[..], &["review", "one.passes"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 claims re-stamped"), "{out}");
    let go = std::fs::read_to_string(dir.join("checks_test.go")).unwrap();
    let stamped: Vec<&str> = go
        .lines()
        .filter(|l| l.contains("// Clause: one.passes @ "))
        .collect();
    assert_eq!(stamped.len(), 2, "{go}");
    let before = stamped[0].to_string();

    let md = dir.join("spec/en/one.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(
        &md,
        text.replace("MUST pass this check.", "MUST pass this stricter check."),
    )
    .unwrap();
    let matrix = [
        &spec[..],
        &[
            "matrix",
            "--results",
            "results/go-test.json",
            "--format",
            "json",
            "--allow-stale",
        ],
    ]
    .concat();
    let (code, out, err) = kcontract(dir, &matrix);
    assert_eq!(code, 0, "{err}");
    let got = statuses(&out);
    assert!(
        got.contains(&("one.passes".into(), "suspect".into())),
        "{got:?}"
    );
    let (code, _, err) = kcontract(dir, &[&spec[..], &["check"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("K0514") && err.contains("checks_test.go"),
        "{err}"
    );

    let (code, out, err) = kcontract(dir, &[&spec[..], &["review", "one.passes"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 claims re-stamped"), "{out}");
    let go = std::fs::read_to_string(dir.join("checks_test.go")).unwrap();
    assert!(!go.contains(&before), "the stamp changed: {go}");
    let (code, out, err) = kcontract(dir, &matrix);
    assert_eq!(code, 0, "{err}");
    assert!(statuses(&out).contains(&("one.passes".into(), "passing".into())));
    // Nothing but the stamps changed: the file still builds the same tests.
    assert_eq!(
        go.lines().count(),
        std::fs::read_to_string(root().join("tests/fixtures/lang-go/checks_test.go"))
            .unwrap()
            .lines()
            .count()
    );
}

/// A renamed clause: the Python test's claim is stale (K0501 names the new id, its stamp being
/// that clause's), and `review --rename` re-points its `#` line.
#[test]
fn review_renames_the_claims_of_a_python_test() {
    let tmp = fixture("lang-python");
    let dir = tmp.path();
    let spec = ["--spec", "spec"];
    let (code, _, err) = kcontract(dir, &[&spec[..], &["review", "one.fails"]].concat());
    assert_eq!(code, 0, "{err}");
    let md = dir.join("spec/en/one.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, text.replace("id: one.fails\n", "id: one.breaks\n")).unwrap();
    let (code, _, err) = kcontract(dir, &[&spec[..], &["check"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("K0501") && err.contains("--rename one.fails one.breaks"),
        "{err}"
    );
    let rename = ["review", "--rename", "one.fails", "one.breaks"];
    let (code, _, err) = kcontract(dir, &[&spec[..], &rename[..]].concat());
    assert_eq!(code, 0, "{err}");
    let py = std::fs::read_to_string(dir.join("tests/test_checks.py")).unwrap();
    assert!(py.contains("# Clause: one.breaks @ "), "{py}");
    assert!(!py.contains("one.fails"), "{py}");
    let (code, _, err) = kcontract(dir, &[&spec[..], &["check"]].concat());
    assert_eq!(code, 0, "{err}");
}

/// `tests: languages:` in contract.yaml reads an extension kcontract does not know as a language
/// it does: the Go fixture's file renamed `.gotest` gives the Go statuses with `gotest: go`, and
/// nothing of them without it (read as Rust, as any unknown extension); a language word that is
/// none is an error with the word meant, not files silently read as Rust.
#[test]
fn a_contract_maps_an_extension_to_a_language() {
    let tmp = fixture("lang-go");
    std::fs::rename(
        tmp.path().join("checks_test.go"),
        tmp.path().join("checks_test.gotest"),
    )
    .unwrap();
    let contract = tmp.path().join("spec/contract.yaml");
    let original = std::fs::read_to_string(&contract).unwrap();
    let with = |languages: &str| {
        let text = original.replace(
            r#"  include: ["../**/*_test.go"]"#,
            &format!("  include: [\"../**/*_test.gotest\"]\n{languages}"),
        );
        assert_ne!(text, original);
        std::fs::write(&contract, text).unwrap();
    };
    let args = [
        "--spec",
        "spec",
        "matrix",
        "--results",
        "results/go-test.json",
        "--format",
        "json",
    ];

    with("");
    let (code, out, err) = kcontract(tmp.path(), &args);
    assert!(
        code != 0 || statuses(&out) != expected(),
        "without the setting the file is read as Rust, and its Go tests are not found: {err}"
    );
    assert!(
        err.contains("a file ending in `.gotest` is read as Rust; if it holds another language's tests, name it in contract.yaml"),
        "{err}"
    );

    // The word as people write it, `Go`, is the language `go`.
    with("  languages:\n    gotest: Go\n");
    let (code, out, err) = kcontract(tmp.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(statuses(&out), expected());

    with("  languages:\n    gotest: golang\n");
    let (code, _, err) = kcontract(tmp.path(), &["--spec", "spec", "check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0010]"), "{err}");
    assert!(
        err.contains("`golang` is not a language whose tests kcontract reads"),
        "{err}"
    );
    assert!(err.contains("did you mean `go`?"), "{err}");
    assert!(err.contains("contract.yaml:16:13"), "{err}");
}

/// A Go team's crate names its test files in its `kcontract.toml` (`tests`, and `languages` for
/// an extension kcontract does not know) instead of the Cargo layout: the Go fixture's statuses,
/// where without the key the Go tests are not found (K0606); an absolute glob or a language that
/// is none is K0520.
#[test]
fn a_crate_names_its_test_files_in_kcontract_toml() {
    let tmp = fixture("lang-go");
    let contract = tmp.path().join("spec/contract.yaml");
    let text = std::fs::read_to_string(&contract).unwrap();
    // The contract's own `tests:` select nothing here: only the crate's setting can find them.
    let text = text.replace(r#"["../**/*_test.go"]"#, r#"["../nothing/**/*.rs"]"#);
    std::fs::write(&contract, text).unwrap();
    std::fs::create_dir_all(tmp.path().join("conformance")).unwrap();
    std::fs::rename(
        tmp.path().join("checks_test.go"),
        tmp.path().join("conformance/checks_test.gotest"),
    )
    .unwrap();
    let toml = tmp.path().join("kcontract.toml");
    let args = [
        "matrix",
        "--results",
        "results/go-test.json",
        "--format",
        "json",
    ];

    std::fs::write(&toml, "spec = \"spec\"\n").unwrap();
    let (code, _, err) = kcontract(tmp.path(), &args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0606]"), "{err}");

    std::fs::write(
        &toml,
        "spec = \"spec\"\ntests = [\"conformance/**/*_test.gotest\"]\nlanguages = { gotest = \"go\" }\n",
    )
    .unwrap();
    let (code, out, err) = kcontract(tmp.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(statuses(&out), expected());

    for (bad, said) in [
        ("tests = [\"/abs/**/*.go\"]", "an absolute path"),
        (
            "languages = { gotest = \"golang\" }",
            "is not an extension and a language",
        ),
    ] {
        std::fs::write(&toml, format!("spec = \"spec\"\n{bad}\n")).unwrap();
        let (code, _, err) = kcontract(tmp.path(), &args);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(
            err.contains("error[K0520]") && err.contains(said),
            "{bad}: {err}"
        );
    }
}

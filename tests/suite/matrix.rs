//! The traceability matrix through the real binary: the fixture crate (one clause per status) with
//! its real nextest and libtest results, live runs of both, this repository's model clauses, the
//! `--require` gate, annotation and results diagnostics, and the site's matrix page.

use std::process::Command;

use crate::common::cli::{copy_dir, kcontract, root};

use serde_json::Value;

fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/matrix"), tmp.path());
    tmp
}

pub(crate) fn statuses(json: &str) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// What the fixture shows with its results: every status once.
pub(crate) const FIXTURE_WITH_RESULTS: [(&str, &str); 8] = [
    ("one.passes", "passing"),
    ("one.fails", "failing"),
    ("one.stubbed", "stub"),
    ("one.external", "external"),
    ("two.untested", "untested"),
    ("two.waived", "waived"),
    ("two.not-run", "implemented"),
    ("two.in-macro", "passing"),
];

fn expected(with_results: bool) -> Vec<(String, String)> {
    FIXTURE_WITH_RESULTS
        .iter()
        .map(|(id, s)| {
            let s = match (*s, with_results) {
                ("passing" | "failing", false) => "implemented",
                (s, _) => s,
            };
            (id.to_string(), s.to_string())
        })
        .collect()
}

#[test]
fn fixture_table_snapshot() {
    let tmp = fixture();
    let (code, out, err) = kcontract(tmp.path(), &["matrix", "--results", "results/junit.xml"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    insta::assert_snapshot!("fixture_table", out);
}

#[test]
fn fixture_csv_snapshot() {
    let tmp = fixture();
    let (code, out, err) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--results",
            "results/junit.xml",
            "--format",
            "csv",
        ],
    );
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("fixture_csv", out);
}

#[test]
fn fixture_statuses_without_and_with_results() {
    let tmp = fixture();
    let (code, out, _) = kcontract(tmp.path(), &["matrix", "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(statuses(&out), expected(false));
    for results in ["results/junit.xml", "results/libtest.txt"] {
        let (code, out, err) = kcontract(
            tmp.path(),
            &["matrix", "--format", "json", "--results", results],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(statuses(&out), expected(true), "{results}");
    }
    // Both results files together: the same (a test failing in either fails).
    let (_, out, _) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--format",
            "json",
            "--results",
            "results/junit.xml",
            "--results",
            "results/libtest.txt",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["results"],
        serde_json::json!(["results/junit.xml", "results/libtest.txt"])
    );
    assert_eq!(statuses(&out), expected(true));
}

#[test]
fn matrix_json_is_the_documented_shape() {
    let tmp = fixture();
    let (_, out, _) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--format",
            "json",
            "--results",
            "results/junit.xml",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "kcontract-matrix/1");
    assert_eq!(v["contract"]["title"], "Fixture Contract");
    let total = &v["summary"]["total"];
    assert_eq!(total["group"], "all");
    assert_eq!(total["clauses"], 8);
    assert_eq!(total["testable"], 7);
    // A failing clause is never covered (issue #47): what failed is not coverage.
    assert_eq!(total["covered"], 3, "passing ×2, implemented");
    for s in [
        "untested",
        "stub",
        "implemented",
        "failing",
        "external",
        "waived",
    ] {
        assert_eq!(total["status"][s], 1, "{s}");
    }
    assert_eq!(total["status"]["passing"], 2);
    let levels: Vec<&str> = v["summary"]["by_level"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]);
    let actors: Vec<&str> = v["summary"]["by_actor"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(actors, ["platform", "developer", "container"]);
    let passes = &v["clauses"][0];
    assert_eq!(passes["id"], "one.passes");
    let tests: Vec<(String, String, String)> = passes["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["binary"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
                t["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        tests,
        [
            (
                "fixture".into(),
                "tests::unit_answer".into(),
                "passed".into()
            ),
            ("fixture::checks".into(), "passes".into(), "passed".into()),
            (
                "fixture::checks".into(),
                "nested::in_a_module".into(),
                "passed".into()
            ),
        ]
    );
    let t = &passes["tests"][1];
    assert_eq!(t["file"], "tests/checks.rs");
    assert_eq!(t["line"], 5, "the line of the function name");
    assert_eq!(t["stub"], false);
    let stub = &v["clauses"][2]["tests"][0];
    assert_eq!(
        (stub["stub"].as_bool(), stub["ignored"].as_bool()),
        (Some(true), Some(true))
    );
}

/// The fixture crate built and run for real, with cargo-nextest (JUnit) and with `cargo test`
/// (libtest's output): the deliberately failing test shows `failing`.
#[test]
fn live_nextest_and_cargo_test_runs_map_onto_clauses() {
    let tmp = fixture();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // stdout and stderr into one file, in order, as `2>&1 | tee FILE` would.
    let run = |args: &[&str], log: &str| {
        let file = std::fs::File::create(tmp.path().join(log)).unwrap();
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(tmp.path())
            .args(args)
            .env("RUST_BACKTRACE", "0")
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        // The outer run's settings must not leak into the fixture's build.
        for (k, _) in std::env::vars() {
            if k.starts_with("NEXTEST") || (k.starts_with("CARGO_") && k != "CARGO_HOME") {
                cmd.env_remove(k);
            }
        }
        let status = cmd.status().unwrap();
        (
            status.code(),
            std::fs::read_to_string(tmp.path().join(log)).unwrap(),
        )
    };
    let (code, log) = run(
        &["nextest", "run", "--offline", "--profile", "ci"],
        "nextest.log",
    );
    assert_eq!(
        code,
        Some(100),
        "nextest fails (one test fails on purpose):\n{log}"
    );
    assert!(tmp.path().join("target/nextest/ci/junit.xml").exists());
    let (code, log) = run(&["test", "--offline"], "libtest-live.txt");
    assert_eq!(code, Some(101), "{log}");
    for results in ["target/nextest/ci/junit.xml", "libtest-live.txt"] {
        let (code, out, err) = kcontract(
            tmp.path(),
            &["matrix", "--format", "json", "--results", results],
        );
        assert_eq!(code, 0, "{err}");
        assert_eq!(statuses(&out), expected(true), "{results}");
        // The gate names the failing clause.
        let (code, _, err) = kcontract(
            tmp.path(),
            &[
                "matrix",
                "--results",
                results,
                "--require",
                "MUST,verify:conformance=passing",
            ],
        );
        assert_eq!(code, 1);
        assert!(
            err.contains(
                "error[K0610]: 2 clauses do not meet `--require MUST,verify:conformance=passing`"
            ),
            "{err}"
        );
        assert!(
            err.contains("one.fails") && err.contains("failing"),
            "{err}"
        );
        assert!(
            err.contains("two.not-run") && err.contains("implemented"),
            "{err}"
        );
        assert!(!err.contains("one.passes"), "{err}");
    }
}

/// JUnit for the given tests, each `(binary id, name, failed)`.
fn junit(tests: &[(String, String, bool)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nextest-run\">\n",
    );
    for (binary, name, failed) in tests {
        s.push_str(&format!(
            "  <testsuite name=\"{binary}\"><testcase name=\"{name}\" classname=\"{binary}\">{}</testcase></testsuite>\n",
            if *failed { "<failure message=\"boom\"/>" } else { "" }
        ));
    }
    s.push_str("</testsuites>\n");
    s
}

const MODEL_CLAUSES: [&str; 5] = [
    "lifecycle.oci-compliant-default",
    "lifecycle.sigterm-on-kill",
    "lifecycle.sigkill-after-grace",
    "lifecycle.stopped-may-be-reclaimed",
    "lifecycle.process-failures-logged",
];

/// This repository: the model tests' names come from the scan, results for them (all passed, then
/// one failed) turn the five lifecycle clauses `passing`, then the failed test's clauses `failing`.
#[test]
fn repo_model_clauses_pass_then_fail_with_results() {
    let (code, out, err) = kcontract(&root(), &["matrix", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let clauses = v["clauses"].as_array().unwrap();
    let row = |id: &str| clauses.iter().find(|c| c["id"] == id).unwrap().clone();
    let mut tests: Vec<(String, String, bool)> = Vec::new();
    for id in MODEL_CLAUSES {
        let r = row(id);
        assert_eq!(r["status"], "implemented", "{id}");
        for t in r["tests"].as_array().unwrap() {
            assert!(
                t["file"]
                    .as_str()
                    .unwrap()
                    .starts_with("tests/suite/model_"),
                "{t}"
            );
            let key = (
                t["binary"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
                false,
            );
            if !tests.contains(&key) {
                tests.push(key);
            }
        }
    }
    // The contract tests a platform run decides (`tests/contract/`, run with `--features
    // runtimes`) are real tests too: they get results as well, so that every annotated test has one.
    for r in clauses.iter().filter(|c| {
        c["status"] == "implemented" && !MODEL_CLAUSES.contains(&c["id"].as_str().unwrap())
    }) {
        for t in r["tests"].as_array().unwrap() {
            assert!(
                t["file"].as_str().unwrap().starts_with("tests/contract/"),
                "{t}"
            );
            tests.push((
                t["binary"].as_str().unwrap().to_string(),
                t["name"].as_str().unwrap().to_string(),
                false,
            ));
        }
    }
    // The proptest! tests are among them, named as the harness names them.
    assert!(
        tests.iter().any(|(b, n, _)| b == "kcontract::suite"
            && n == "model_props::shutdown_sends_sigterm_then_sigkill_after_grace"),
        "{tests:?}"
    );
    // Stubs and upstream-only clauses stay what they are.
    let statuses: Vec<String> = clauses
        .iter()
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect();
    for s in &statuses {
        assert!(
            ["implemented", "stub", "external", "waived"].contains(&s.as_str()),
            "{s}"
        );
    }

    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("junit.xml");
    std::fs::write(&results, junit(&tests)).unwrap();
    let r = results.to_str().unwrap();
    let (code, out, err) = kcontract(&root(), &["matrix", "--format", "json", "--results", r]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "every annotated test has a result:\n{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for id in MODEL_CLAUSES {
        let c = v["clauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        assert_eq!(c["status"], "passing", "{id}");
        assert!(
            c["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["outcome"] == "passed")
        );
    }
    let (code, _, err) = kcontract(
        &root(),
        &[
            "matrix",
            "--results",
            r,
            "--require",
            "verify:model=passing",
        ],
    );
    assert_eq!(code, 0, "{err}");

    // One failing test: exactly the clauses it claims fail, and the gate says which.
    let failing = tests
        .iter()
        .position(|(_, n, _)| n == "model_mutants::shutdown_without_sigterm_is_caught")
        .expect("the mutant test claims lifecycle.sigterm-on-kill");
    tests[failing].2 = true;
    std::fs::write(&results, junit(&tests)).unwrap();
    let (_, out, _) = kcontract(&root(), &["matrix", "--format", "json", "--results", r]);
    let v: Value = serde_json::from_str(&out).unwrap();
    for id in MODEL_CLAUSES {
        let c = v["clauses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        let want = if id == "lifecycle.sigterm-on-kill" {
            "failing"
        } else {
            "passing"
        };
        assert_eq!(c["status"], want, "{id}");
    }
    let (code, _, err) = kcontract(
        &root(),
        &[
            "matrix",
            "--results",
            r,
            "--require",
            "verify:model=passing",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("1 clause does not meet `--require verify:model=passing`"),
        "{err}"
    );
    assert!(
        err.contains("lifecycle.sigterm-on-kill") && err.contains("failing"),
        "{err}"
    );

    // A result missing for an annotated test is a warning pointing at the test.
    tests.remove(failing);
    std::fs::write(&results, junit(&tests)).unwrap();
    let (code, _, err) = kcontract(&root(), &["matrix", "--results", r]);
    assert_eq!(code, 0);
    assert!(err.contains("warning[K0605]: no result for the annotated test `kcontract::suite model_mutants::shutdown_without_sigterm_is_caught`"), "{err}");
    assert!(err.contains("--> tests/suite/model_mutants.rs:"), "{err}");
}

#[test]
fn require_is_checked_and_bad_syntax_is_a_usage_error() {
    let tmp = fixture();
    // Without results the fixture meets `stub` for MUST, not `implemented` for SHOULD.
    assert_eq!(
        kcontract(tmp.path(), &["matrix", "--require", "MUST=stub"]).0,
        0
    );
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--require", "SHOULD=implemented"]);
    assert_eq!(code, 1);
    assert!(err.contains("2 clauses do not meet"), "{err}");
    assert!(
        err.contains("one.stubbed") && err.contains("one.external"),
        "{err}"
    );
    // The only MUST NOT clause is waived: a gate on it could never fail, so it is a usage error
    // (issue #47), where it used to pass.
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--require", "MUST NOT=passing"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("selects no testable clause"), "{err}");
    // One testable clause beside it makes the gate real again (a negative control).
    assert_eq!(
        kcontract(
            tmp.path(),
            &["matrix", "--require", "MUST NOT|MAY=untested"]
        )
        .0,
        0
    );
    for bad in ["MUST", "MUST=done", "robot=stub", "MUST=waived"] {
        let (code, _, err) = kcontract(tmp.path(), &["matrix", "--require", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--require"), "{err}");
    }
}

fn project_with_tests(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/matrix/spec"),
        &tmp.path().join("spec"),
    );
    for (rel, text) in files {
        let p = tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    tmp
}

#[test]
fn annotation_problems_are_located() {
    let tmp = project_with_tests(&[(
        "tests/claims.rs",
        r#"/// Clause: one.pases
/// Clause: One.Passes
/// Clause: one.passes, one.fails
/// Clause:
#[test]
fn typos() {
    // A string is not an annotation:
    let _ = "/// Clause: no.such-clause";
}

/// Clause: one.passes
/// Clause: one.passes
fn helper_not_a_test() {}

/// clause: one.fails
#[test]
fn miscased() {}

/// Clause: one.fails
/// Clause: one.fails
#[test]
fn twice() {}

/// Clause: one.stubbed
#[test]
#[ignore = "not yet written: one.stubbed"]
fn written_but_ignored() {
    assert!(true);
}
"#,
    )]);
    let (code, out, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1, "{out}");
    insta::assert_snapshot!("annotation_problems", err);
}

#[test]
fn results_problems_are_located() {
    let tmp = fixture();
    let cases = [
        (
            "bad.xml",
            "<testsuites>\n  <testsuite name=\"x\">\n    <testcase name=\"a\">\n  </testsuite>\n</testsuites>\n",
        ),
        ("html.xml", "<html><body/></html>\n"),
        (
            "noname.xml",
            "<testsuites>\n<testsuite name=\"fixture\">\n<testcase classname=\"fixture\"/>\n</testsuite>\n</testsuites>\n",
        ),
        ("notes.txt", "\nall tests passed, trust me\n"),
    ];
    let mut all = String::new();
    for (name, text) in cases {
        std::fs::write(tmp.path().join(name), text).unwrap();
        let (code, out, err) = kcontract(tmp.path(), &["matrix", "--results", name]);
        assert_eq!(code, 1, "{name}");
        assert!(out.is_empty(), "nothing is printed when results are bad");
        all.push_str(&err);
    }
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--results", "missing.xml"]);
    assert_eq!(code, 1);
    all.push_str(&err);
    insta::assert_snapshot!("results_problems", all);
}

#[test]
fn bad_globs_are_located() {
    let tmp = project_with_tests(&[]);
    let p = tmp.path().join("spec/contract.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace(
            "include: [\"../tests/**/*.rs\", \"../src/**/*.rs\"]",
            "include: [\"../tests/[*.rs\"]\n  exclude: [\"{a,b\"]",
        ),
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("bad_globs", err);
}

/// `**/*.rs` from the root: excludes apply, and `target/` is never entered.
#[test]
fn globs_choose_the_files_scanned() {
    let tmp = project_with_tests(&[
        ("tests/a.rs", "/// Clause: one.passes\n#[test]\nfn a() {}\n"),
        (
            "tests/skip/b.rs",
            "/// Clause: no.such\n#[test]\nfn b() {}\n",
        ),
        ("other/c.rs", "/// Clause: one.fails\n#[test]\nfn c() {}\n"),
        ("target/d.rs", "/// Clause: no.such\n#[test]\nfn d() {}\n"),
    ]);
    let p = tmp.path().join("spec/contract.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace(
            "include: [\"../tests/**/*.rs\", \"../src/**/*.rs\"]",
            "include: [\"../**/*.rs\"]\n  exclude: [\"../tests/skip/**\"]",
        ),
    )
    .unwrap();
    let (code, out, err) = kcontract(tmp.path(), &["matrix", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<String> = v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["file"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(names, ["tests/a.rs", "other/c.rs"]);
}

/// The site: a matrix page per language with a row per clause, every clause linking to its row,
/// matrix.json and matrix.csv beside clauses.json; `build --results` shows outcomes.
#[test]
fn site_matrix_pages_and_results() {
    let tmp = fixture();
    let (code, _, err) = kcontract(tmp.path(), &["build"]);
    assert_eq!(code, 0, "{err}");
    let site = tmp.path().join("site");
    let read = |p: &str| std::fs::read_to_string(site.join(p)).unwrap();
    for lang in ["en"] {
        let m = read(&format!("{lang}/matrix.html"));
        for (id, status) in expected(false) {
            assert!(m.contains(&format!("<tr id=\"{id}\"")), "{id}");
            assert!(m.contains(&format!("data-status=\"{status}\"")), "{status}");
        }
        for ch in ["one", "two"] {
            let page = read(&format!("{lang}/{ch}.html"));
            for (id, status) in expected(false).iter().filter(|(id, _)| id.starts_with(ch)) {
                assert!(
                    page.contains(&format!(
                        "class=\"badge status status-{status}\" href=\"matrix.html#{id}\""
                    )),
                    "{ch}: {id}"
                );
            }
        }
    }
    assert!(read("matrix.csv").starts_with("id,level,actor,verify,chapter,status,"));
    assert_eq!(statuses(&read("matrix.json")), expected(false));
    assert!(!read("en/matrix.html").contains("junit"));

    let (code, _, err) = kcontract(
        tmp.path(),
        &[
            "build",
            "--results",
            "results/junit.xml",
            "--out",
            "site-ci",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let ci = tmp.path().join("site-ci");
    let m = std::fs::read_to_string(ci.join("en/matrix.html")).unwrap();
    assert!(m.contains("<code>results/junit.xml</code>"));
    assert!(m.contains("data-status=\"failing\"") && m.contains("data-status=\"passing\""));
    let json = std::fs::read_to_string(ci.join("matrix.json")).unwrap();
    assert_eq!(statuses(&json), expected(true));
}

/// The committed site is built without results, from the repository's files: it shows
/// implemented / stub / external / waived, never passing or failing.
#[test]
fn committed_site_matrix_has_no_results() {
    let json = std::fs::read_to_string(root().join("site/matrix.json")).unwrap();
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["results"], serde_json::json!([]));
    let mut seen: Vec<String> = statuses(&json).into_iter().map(|(_, s)| s).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, ["external", "implemented", "stub", "waived"]);
    for lang in ["en", "zh"] {
        let page =
            std::fs::read_to_string(root().join(format!("site/{lang}/matrix.html"))).unwrap();
        assert_eq!(page.matches("<tr id=").count(), 104, "{lang}");
    }
    let zh = std::fs::read_to_string(root().join("site/zh/matrix.html")).unwrap();
    // The status words a reader reads right (issue #48): "waived" is "not testable" (不可测试), not
    // "exempted" (豁免, which read as "this requirement is waived").
    assert!(zh.contains("追溯矩阵") && zh.contains("仅有测试桩") && zh.contains("不可测试"));
    assert!(!zh.contains(">豁免<"));
}

// --- Platform run reports as columns (`--platform REPORT`). ---

/// The fixture's two run reports (`tests/fixtures/matrix/platforms/`): a runc-like one with a
/// failed check, a stale stamp and a misspelt id, a crun-like one with an error, a failed check
/// among passed ones, an id of another contract and a clause it lacks.
const PLATFORMS: [&str; 4] = [
    "--platform",
    "platforms/runc.json",
    "--platform",
    "platforms/crun.json",
];

/// Each clause's status in the two reports: `stale` where the report's stamp is not the clause's,
/// the worst check where there are several, `null` where the report has no entry.
const PLATFORM_STATUSES: [(&str, Option<&str>, Option<&str>); 8] = [
    ("one.passes", Some("pass"), Some("pass")),
    ("one.fails", Some("fail"), Some("pass")),
    ("one.stubbed", Some("pass"), Some("error")),
    ("one.external", Some("n/a"), Some("not-run")),
    ("two.untested", Some("stale"), Some("pass")),
    ("two.waived", None, None),
    ("two.not-run", Some("not-run"), None),
    ("two.in-macro", Some("pass"), Some("fail")),
];

fn matrix_with_platforms(dir: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["matrix", "--results", "results/junit.xml"];
    args.extend_from_slice(&PLATFORMS);
    args.extend_from_slice(extra);
    kcontract(dir, &args)
}

#[test]
fn platform_reports_are_columns_in_json_csv_and_table() {
    let tmp = fixture();
    let (code, json, err) = matrix_with_platforms(tmp.path(), &["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = v["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["runc", "crun"]);
    assert_eq!(v["platforms"][0]["file"], "platforms/runc.json");
    for (c, (id, runc, crun)) in v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .zip(PLATFORM_STATUSES)
    {
        assert_eq!(c["id"], id);
        let cells = c["platforms"].as_array().unwrap();
        assert_eq!(cells[0]["platform"], "runc");
        assert_eq!(cells[0]["status"].as_str(), runc, "{id} on runc");
        assert_eq!(cells[1]["status"].as_str(), crun, "{id} on crun");
    }
    // The tests' statuses are as without reports, but for a clause a platform check failed:
    // that clause is failing (issue #47), whatever its tests did.
    let mut want = expected(true);
    want[7].1 = "failing".into();
    assert_eq!(statuses(&json), want);
    let stale = &v["clauses"][4]["platforms"][0];
    assert_eq!(stale["stale_stamp"], "000000000000");
    assert_eq!(
        v["clauses"][7]["platforms"][1]["checks"][1]["check"],
        "stdin-null"
    );
    // Covered: a real test, or a check that passed on the current text; a failing clause never
    // is. `one.stubbed` (runc passed) and `two.untested` (crun passed; runc's report is stale) are
    // executed; `one.fails` and `two.in-macro` (crun failed) are not covered.
    let total = &v["summary"]["total"];
    assert_eq!(total["executed"], 5);
    assert_eq!(total["covered"], 4);
    assert_eq!(total["status"]["failing"], 2);
    assert_eq!(total["testable"], 7);
    // Both unknown ids are warned of, with the nearest id when there is one.
    assert!(err.contains("warning[K0612]"), "{err}");
    insta::assert_snapshot!("platform_warnings", err);

    let (code, csv, _) = matrix_with_platforms(tmp.path(), &["--format", "csv"]);
    assert_eq!(code, 0);
    let mut lines = csv.split("\r\n");
    assert!(
        lines
            .next()
            .unwrap()
            .ends_with(",messages,platform:runc,platform:crun")
    );
    let cells: Vec<(String, String)> = csv
        .split("\r\n")
        .skip(1)
        .filter(|l| l.contains('.') && !l.starts_with(' '))
        .filter_map(|l| {
            let mut f = l.rsplitn(3, ',');
            let crun = f.next()?.to_string();
            let runc = f.next()?.to_string();
            Some((runc, crun))
        })
        .collect();
    // Each decided cell names its route: these reports predate entries' `route`, so it is the
    // one their `platform.kind` (`local`) implies.
    let with_route = |s: Option<&str>| match s {
        None => String::new(),
        Some("stale") => "stale".to_owned(),
        Some(s) => format!("{s} (simulated)"),
    };
    let want: Vec<(String, String)> = PLATFORM_STATUSES
        .iter()
        .map(|(_, r, c)| (with_route(*r), with_route(*c)))
        .collect();
    assert_eq!(cells, want);

    let (code, table, _) = matrix_with_platforms(tmp.path(), &[]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("platform_table", table);
}

/// A platform's failed check fails the gate (issue #47): `--require platform:NAME=pass` and
/// `platform:*=pass` read the columns, with the same exit codes as a gate on the tests, and a
/// clause a check failed is failing for every `--require`. Each form is shown both ways.
#[test]
fn platform_failures_fail_the_gate() {
    let tmp = fixture();
    let gate = |require: &str| {
        let (code, _, err) = matrix_with_platforms(tmp.path(), &["--require", require]);
        (code, err)
    };
    // runc failed `one.fails` and has not run or a stale report for two others.
    let (code, err) = gate("platform:runc=pass");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("error[K0610]: 3 clauses do not meet `--require platform:runc=pass`"),
        "{err}"
    );
    assert!(err.contains("one.fails     runc: fail"), "{err}");
    assert_eq!(gate("platform:*=pass").0, 1);
    // The clause both columns passed meets both forms.
    assert_eq!(gate("id:one.passes,platform:runc=pass").0, 0);
    assert_eq!(gate("id:one.passes,platform:*=pass").0, 0);
    // `not-run` is met by a pass or a not-run, never by a fail.
    assert_eq!(gate("id:two.not-run,platform:runc=not-run").0, 0);
    assert_eq!(gate("id:two.in-macro,platform:crun=not-run").0, 1);
    // A test gate on a clause whose tests passed but a check failed: failing with the columns,
    // passing without them.
    let (code, err) = gate("id:two.in-macro=passing");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("two.in-macro  failing"), "{err}");
    let (code, _, err) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--results",
            "results/junit.xml",
            "--require",
            "id:two.in-macro=passing",
        ],
    );
    assert_eq!(code, 0, "{err}");
    // A column that was not given could never fail: a usage error, as a bad selector is.
    let (code, err) = gate("platform:nope=pass");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--require", "platform:*=pass"]);
    assert_eq!(code, 2, "no column at all\n{err}");
    assert!(err.contains("gates no platform column"), "{err}");
    // The failing-first section names the failed check and its message; the FAILING count has
    // both clauses.
    let (_, table, _) = matrix_with_platforms(tmp.path(), &[]);
    let failing = &table[..table.find("\nID ").unwrap()];
    assert!(failing.starts_with("FAILING (2)"), "{table}");
    assert!(
        failing.contains("two.in-macro")
            && failing.contains("crun fail stdin-null: stdin is a pipe"),
        "{table}"
    );
}

/// A report that cannot be used is an error at its `file:line:col` (K1107), and nothing is
/// printed; two reports of one platform are an error naming both files (K0613).
#[test]
fn malformed_platform_reports_are_located() {
    let tmp = fixture();
    let runc = std::fs::read_to_string(tmp.path().join("platforms/runc.json")).unwrap();
    let cases = [
        ("truncated.json", runc[..runc.len() / 2].to_string()),
        (
            "old.json",
            runc.replace("\"kcontract-run/1\"", "\"kcontract-run/0\""),
        ),
        (
            "status.json",
            runc.replacen("\"status\": \"pass\"", "\"status\": \"passed\"", 1),
        ),
        ("list.json", "[1, 2]\n".to_string()),
        ("empty.json", "{}\n".to_string()),
        (
            "nul.json",
            "{\"format\": \"kcontract-run/1\"\0}".to_string(),
        ),
    ];
    let mut all = String::new();
    for (name, text) in &cases {
        std::fs::write(tmp.path().join(name), text).unwrap();
        let (code, out, err) = kcontract(tmp.path(), &["matrix", "--platform", name]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(
            out.is_empty(),
            "{name}: nothing is printed when a report is bad"
        );
        assert!(!err.contains("panicked"), "{err}");
        all.push_str(&err);
    }
    let (code, _, err) = kcontract(tmp.path(), &["matrix", "--platform", "missing.json"]);
    assert_eq!(code, 1);
    all.push_str(&err);
    std::fs::write(tmp.path().join("runc-again.json"), &runc).unwrap();
    let (code, out, err) = kcontract(
        tmp.path(),
        &[
            "matrix",
            "--platform",
            "platforms/runc.json",
            "--platform",
            "runc-again.json",
        ],
    );
    assert_eq!(code, 1);
    assert!(out.is_empty());
    all.push_str(&err[err.find("error[").unwrap()..]);
    insta::assert_snapshot!("platform_problems", all);
}

/// Issue #35: `matrix --format json` gives every testable clause of the repository's contract how
/// it can be executed (its `routes`), or why a person judges it (`route_reason`); an untestable
/// clause has neither. Spot checks tie each route to the table it comes from.
#[test]
fn every_testable_clause_of_the_contract_has_a_route_or_a_reason() {
    let (code, out, err) = kcontract(&root(), &["matrix", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let clauses = v["clauses"].as_array().unwrap();
    let mut routed = 0;
    for c in clauses {
        let id = c["id"].as_str().unwrap();
        let routes = crate::common::platform_reports::routes(c);
        let reason = c["route_reason"].as_str();
        if c["verify"] == "untestable" {
            assert!(routes.is_empty() && reason.is_none(), "{id}: untestable");
            continue;
        }
        match (routes.is_empty(), reason) {
            (false, None) => routed += 1,
            (true, Some(r)) => assert!(
                ["documentation", "manual", "platform-only"].contains(&r),
                "{id}: {r}"
            ),
            _ => panic!("{id}: routes {routes:?} and reason {reason:?}"),
        }
    }
    assert!(routed >= 40, "{routed} routed clauses");
    let routes_of = |id: &str| -> Vec<String> {
        let c = clauses.iter().find(|c| c["id"] == id).unwrap();
        serde_json::from_value(c["routes"].clone()).unwrap()
    };
    // A `platform run` check and TestMustEnvVars.
    // A check of both `platform run` and `platform verify`, and TestMustEnvVars.
    assert_eq!(
        routes_of("config.env.port"),
        ["simulated", "vendor-log", "deployed"]
    );
    // The request side, judged by `verify` (and TestMustHaveHeadersSet).
    assert_eq!(
        routes_of("network.headers.host"),
        ["vendor-log", "deployed"]
    );
    // LINT_CHECKS only.
    assert_eq!(routes_of("config.mounts.per-container-volumes"), ["lint"]);
    assert!(routes_of("lifecycle.sigterm-on-kill").contains(&"model".to_string()));
    let reason = |id: &str| {
        let c = clauses.iter().find(|c| c["id"] == id).unwrap();
        c["route_reason"].as_str().unwrap().to_string()
    };
    assert_eq!(
        reason("network.metadata.schema-documented"),
        "documentation"
    );
    assert_eq!(reason("config.seccomp.consistent-profiles"), "manual");
}

/// Results older than a test file they report on are of the test before it changed: an error
/// (K0620), a warning with `--allow-stale`; results written after the tests are used as they are.
#[test]
fn results_older_than_their_tests_are_refused() {
    let tmp = fixture();
    let set_age = |rel: &str, ago: u64| {
        let f = std::fs::File::options()
            .write(true)
            .open(tmp.path().join(rel))
            .unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(ago))
            .unwrap();
    };
    set_age("tests/checks.rs", 60);
    set_age("results/junit.xml", 0);
    let run = |extra: &[&str]| {
        let mut args = vec!["matrix", "--results", "results/junit.xml"];
        args.extend_from_slice(extra);
        kcontract(tmp.path(), &args)
    };
    let (code, _, err) = run(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0620"), "{err}");
    // The test file changed an hour after the run.
    set_age("results/junit.xml", 3600);
    let (code, out, err) = run(&["--require", "MUST=implemented"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    let (code, _, warned) = run(&["--allow-stale"]);
    assert_eq!(code, 0, "{warned}");
    assert!(warned.contains("warning[K0620]"), "{warned}");
    // The seconds depend on how long the run took.
    let (head, tail) = err.split_once("(changed ").unwrap();
    let tail = &tail[tail.find(" s after").unwrap()..];
    insta::assert_snapshot!(format!("{head}(changed N{tail}"));
}

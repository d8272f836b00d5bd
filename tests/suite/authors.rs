//! Issue #36, walked as a test author on a platform team would: a crate of its own outside the
//! spec's repository (`scaffold --crate`), on a copy of the spec; stubs written for real; results;
//! the gate; clauses renamed and removed; stubs regenerated. One test per finding of the issue.

use std::path::Path;
use std::process::Command;

use crate::common::cli::{copy_dir, kcontract, root};

use serde_json::Value;

/// A folder with `spec/` (a copy of the fixture contract, or of this repository's) beside an
/// empty place for the team's crate, as two checkouts would be.
fn workspace(spec: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join(spec), &tmp.path().join("spec"));
    tmp
}

fn status_of(json: &str, id: &str) -> String {
    let v: Value = serde_json::from_str(json).unwrap();
    v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .map_or_else(
            || "absent".into(),
            |c| c["status"].as_str().unwrap().to_string(),
        )
}

/// The command a hint says to run: the text between "run `" and the next "`".
fn hinted(err: &str, after: &str) -> Vec<String> {
    let at = err
        .find(after)
        .unwrap_or_else(|| panic!("no `{after}` in:\n{err}"));
    let rest = &err[at + after.len()..];
    let cmd = &rest[..rest.find('`').unwrap()];
    let words: Vec<String> = cmd.split_whitespace().map(String::from).collect();
    assert_eq!(words[0], "kcontract", "{cmd}");
    // The harness's own `--color never` (every run here has it) is given again by `kcontract()`.
    let mut rest = words[1..].to_vec();
    if rest.starts_with(&["--color".to_string(), "never".to_string()]) {
        rest.drain(..2);
    }
    rest
}

fn run_hint(dir: &Path, words: &[String]) -> (i32, String, String) {
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    kcontract(dir, &args)
}

/// Finding 1: a renamed clause. K0501 names the clause with the same stamp and the command that
/// re-points the test; `matrix` still prints its table, the stale claim marked; the command, run
/// as printed, fixes it.
#[test]
fn a_renamed_clause_is_followed() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    let krate = dir.join("platform-tests");
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"platform-tests\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    // A real test, reviewed (stamped) against `one.passes`.
    let stamp = {
        let text = std::fs::read_to_string(dir.join("spec/en/one.md")).unwrap();
        assert!(text.contains("id: one.passes"));
        // The stamp as `review` records it.
        std::fs::write(
            krate.join("tests/t.rs"),
            "/// Clause: one.passes\n#[test]\nfn passes() {\n    assert!(true);\n}\n",
        )
        .unwrap();
        let (code, _, err) = kcontract(
            dir,
            &[
                "--spec",
                "spec",
                "review",
                "one.passes",
                "--tests-root",
                "platform-tests",
            ],
        );
        assert_eq!(code, 0, "{err}");
        let t = std::fs::read_to_string(krate.join("tests/t.rs")).unwrap();
        t[t.find(" @ ").unwrap() + 3..t.find(" @ ").unwrap() + 15].to_string()
    };
    // The clause is renamed (its text unchanged).
    let md = dir.join("spec/en/one.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, text.replace("id: one.passes", "id: one.passing")).unwrap();

    let args = ["--spec", "spec", "check", "--tests-root", "platform-tests"];
    let (code, _, err) = kcontract(dir, &args);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("error[K0501]: no clause `one.passes` in the contract"),
        "{err}"
    );
    assert!(
        err.contains("`one.passing` has the text this test was reviewed against (the same stamp)"),
        "{err}"
    );

    // The matrix prints its table (issue: empty stdout), marks the stale claim, exits 1.
    let (code, out, err2) = kcontract(
        dir,
        &["--spec", "spec", "matrix", "--tests-root", "platform-tests"],
    );
    assert_eq!(code, 1, "{err2}");
    assert!(
        out.contains("STALE CLAIMS: ids the contract no longer has (1)"),
        "{out}"
    );
    assert!(
        out.contains("one.passes  claimed by platform-tests::t passes  tests/t.rs:3  (renamed to one.passing: same stamp)"),
        "{out}"
    );
    assert!(out.contains("one.passing"), "{out}");
    assert!(err2.contains("K0501"), "{err2}");
    let (_, json, _) = kcontract(
        dir,
        &[
            "--spec",
            "spec",
            "matrix",
            "--tests-root",
            "platform-tests",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["stale_claims"][0]["id"], "one.passes");
    assert_eq!(v["stale_claims"][0]["renamed_to"], "one.passing");

    // The hint, run as printed, re-points the test; its stamp stays, and is current.
    let words = hinted(&err, "run `");
    assert!(words.contains(&"--rename".to_string()), "{words:?}");
    let (code, out, err) = run_hint(dir, &words);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 claim re-pointed"), "{out}");
    let t = std::fs::read_to_string(krate.join("tests/t.rs")).unwrap();
    assert!(
        t.contains(&format!("/// Clause: one.passing @ {stamp}")),
        "{t}"
    );
    let (code, _, err) = kcontract(dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("K0514"),
        "not suspect: the text is the one reviewed\n{err}"
    );
}

/// Finding 3: a stub whose ignore reason was changed (or removed), its body still `todo!()`, is a
/// stub: not implemented, not covered, even under `check --strict`.
#[test]
fn a_todo_body_is_a_stub_whatever_its_ignore_says() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("tests/t.rs"),
        "/// Clause: one.stubbed\n#[test]\n#[ignore = \"waiting for the platform API\"]\nfn a() {\n    todo!()\n}\n\n\
         /// Clause: one.external\n#[test]\nfn b() {\n    todo!()\n}\n",
    )
    .unwrap();
    let (code, out, err) = kcontract(dir, &["matrix", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(status_of(&out, "one.stubbed"), "stub");
    assert_eq!(status_of(&out, "one.external"), "external");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["total"]["covered"], 0, "{out}");
    assert_eq!(v["summary"]["total"]["status"]["implemented"], 0);
    let (_, out, _) = kcontract(dir, &["check", "--strict-tests"]);
    assert!(out.contains("(2 stubs)"), "{out}");
}

/// Finding 2 (and 4): a crate scoped by `scaffold --select`, remembered in its kcontract.toml:
/// only those stubs; a stub deleted by hand stays deleted; every later command run in the crate
/// needs no flag; the spec is named relative to the crate.
#[test]
fn a_selection_scopes_the_crate_and_is_remembered() {
    let tmp = workspace("spec");
    let dir = tmp.path();
    let select = "actor:platform,verify:conformance";
    let (code, out, err) = kcontract(
        dir,
        &[
            "--spec",
            "spec",
            "scaffold",
            "--crate",
            "platform-tests",
            "--out",
            "platform-tests",
            "--select",
            select,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let krate = dir.join("platform-tests");
    let (_, list, _) = kcontract(dir, &["--spec", "spec", "list", "--format", "json"]);
    let v: Value = serde_json::from_str(&list).unwrap();
    let selected: Vec<String> = v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["actor"] == "platform" && c["verify"] == "conformance")
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert!(selected.len() > 5, "{selected:?}");
    let stubs = |krate: &Path| -> Vec<String> {
        let mut ids = Vec::new();
        for e in std::fs::read_dir(krate.join("tests/contract")).unwrap() {
            let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
            for l in text.lines() {
                if let Some(id) = l.strip_prefix("#[ignore = \"not yet written: ") {
                    ids.push(id.trim_end_matches("\"]").to_string());
                }
            }
        }
        ids.sort();
        ids
    };
    let mut want = selected.clone();
    want.sort();
    assert_eq!(stubs(&krate), want, "{out}");
    let config = std::fs::read_to_string(krate.join("kcontract.toml")).unwrap();
    assert!(config.contains("spec = \"../spec\"\n"), "{config}");
    assert!(
        config.contains(&format!("select = \"{select}\"\n")),
        "{config}"
    );

    // A stub deleted by hand stays deleted; the command run in the crate needs no flag.
    let victim = &want[0];
    let file = std::fs::read_dir(krate.join("tests/contract"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains(&format!("written: {victim}\""))
        })
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find(&format!("Clause: {victim} @")).unwrap();
    let start = text[..at].rfind("\n\n").unwrap();
    let end = at + text[at..].find("}\n").unwrap() + 2;
    std::fs::write(&file, format!("{}\n{}", &text[..start + 1], &text[end..])).unwrap();
    let (code, out, err) = kcontract(&krate, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 stub deleted by hand not written again"),
        "{out}"
    );
    assert!(!stubs(&krate).contains(victim));
    assert_eq!(kcontract(&krate, &["scaffold", "--check"]).0, 0);

    // The matrix of the crate is of its selection.
    let (code, out, err) = kcontract(&krate, &["matrix", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["selection"], select);
    assert_eq!(v["clauses"].as_array().unwrap().len(), selected.len());
    // Not a stub any more: untested (or external, when upstream tests are listed).
    assert!(
        ["untested", "external"].contains(&status_of(&out, victim).as_str()),
        "{out}"
    );
}

/// Finding 2: the gate of the generated README goes green for a crate that implements every
/// selected clause, one of them exempt with a reason (shown as `exempt`, never covered).
#[test]
fn the_readme_gate_passes_for_a_crate_that_implements_its_selection() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    let (code, _, err) = kcontract(
        dir,
        &[
            "--spec",
            "spec",
            "scaffold",
            "--crate",
            "platform-tests",
            "--out",
            "platform-tests",
            "--select",
            "actor:platform,!verify:manual",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let krate = dir.join("platform-tests");
    // Every selected stub written for real, but one, which does not apply here.
    let contract = krate.join("tests/contract");
    for e in std::fs::read_dir(&contract).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("main.rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut out = String::new();
            for l in text.lines() {
                if l.starts_with("#[ignore = \"not yet written: ") && !l.contains("one.fails") {
                    continue;
                }
                out.push_str(&if l.trim() == "todo!()" && !out.contains("one.fails @") {
                    "    assert!(true);".to_string()
                } else {
                    l.to_string()
                });
                out.push('\n');
            }
            std::fs::write(&p, out).unwrap();
        }
    }
    let text = std::fs::read_to_string(contract.join("one.rs")).unwrap();
    assert!(text.contains("fn one_fails() {\n    todo!()"), "{text}");
    let cfg = krate.join("kcontract.toml");
    let c = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        format!("{c}\"one.fails\" = \"this platform has no check to fail\"\n"),
    )
    .unwrap();
    // The scaffold takes the exempt clause's untouched stub away.
    let (code, out, err) = kcontract(&krate, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 untouched stub removed"), "{out}");

    let readme = std::fs::read_to_string(krate.join("README.md")).unwrap();
    let gate_line = readme
        .lines()
        .find(|l| l.contains("--require"))
        .unwrap()
        .to_string();
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for (k, _) in std::env::vars() {
        if k.starts_with("NEXTEST") || (k.starts_with("CARGO_") && k != "CARGO_HOME") {
            cargo.env_remove(k);
        }
    }
    let run = cargo
        .current_dir(&krate)
        .args(["nextest", "run", "--offline", "--profile", "ci"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The README's gate, run as written (in the crate, no flag).
    let words: Vec<String> = shell_words(&gate_line);
    assert_eq!(words[0], "kcontract");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let (code, out, err) = kcontract(&krate, &args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("exempt here: this platform has no check to fail"),
        "{out}"
    );
    let (_, json, _) = kcontract(
        &krate,
        &[
            "matrix",
            "--results",
            "target/nextest/ci/junit.xml",
            "--format",
            "json",
        ],
    );
    assert_eq!(status_of(&json, "one.fails"), "exempt");
    let v: Value = serde_json::from_str(&json).unwrap();
    let total = &v["summary"]["total"];
    assert_eq!(total["status"]["exempt"], 1);
    assert_eq!(
        total["covered"].as_u64().unwrap() + 1,
        total["testable"].as_u64().unwrap(),
        "the exempt clause is not covered: {total}"
    );
    // The coverage ratchet: written once, then a drop fails and says how to accept it.
    let ci = [
        "matrix",
        "--results",
        "target/nextest/ci/junit.xml",
        "--ci",
        "coverage.json",
    ];
    let (code, _, err) = kcontract(&krate, &ci);
    assert_eq!(code, 1, "no snapshot yet: {err}");
    assert!(err.contains("error[K0611]"), "{err}");
    let words = hinted(&err, "write one with `");
    let (code, _, err) = run_hint(&krate, &words);
    assert_eq!(code, 0, "{err}");
    assert_eq!(kcontract(&krate, &ci).0, 0);
    let (code, _, err) = kcontract(&krate, &["matrix", "--ci", "coverage.json"]);
    assert_eq!(
        code, 0,
        "without results passing counts as implemented: {err}"
    );
    // A test breaks: the ratchet fails, names the clause, and says how to accept the change.
    let one = contract.join("one.rs");
    let text = std::fs::read_to_string(&one).unwrap();
    let broken = text.replacen(
        "assert!(true);",
        "assert!(false, \"broken on purpose\");",
        1,
    );
    std::fs::write(&one, broken).unwrap();
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for (k, _) in std::env::vars() {
        if k.starts_with("NEXTEST") || (k.starts_with("CARGO_") && k != "CARGO_HOME") {
            cargo.env_remove(k);
        }
    }
    let run = cargo
        .current_dir(&krate)
        .args(["nextest", "run", "--offline", "--profile", "ci"])
        .output()
        .unwrap();
    assert!(!run.status.success());
    let (code, out, err) = kcontract(&krate, &ci);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("error[K0611]: coverage dropped: 1 clause below the snapshot coverage.json"),
        "{err}"
    );
    assert!(err.contains("one.passes  passing → failing"), "{err}");
    assert!(out.starts_with("FAILING (1)"), "{out}");
    assert!(out.contains("broken on purpose"), "{out}");
    let words = hinted(&err, "if the change is intended, run `");
    assert_eq!(words.last().map(String::as_str), Some("--accept"));
    let (code, _, err) = run_hint(&krate, &words);
    assert_eq!(code, 0, "accepted: {err}");
    let snap = std::fs::read_to_string(krate.join("coverage.json")).unwrap();
    assert!(snap.contains("\"one.passes\": \"failing\""), "{snap}");
}

/// Splits a README command line into words (single quotes only, as the README writes them).
fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Finding 4: K0514's hint carries the options `check` was run with (`--spec`,
/// `--manifest-path`), and run as printed it re-stamps the test.
#[test]
fn the_review_hint_works_as_printed_from_outside_the_crate() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    let krate = dir.join("elsewhere/platform-tests");
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"platform-tests\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("tests/t.rs"),
        "/// Clause: one.passes @ 000000000000\n#[test]\nfn passes() {\n    assert!(true);\n}\n",
    )
    .unwrap();
    let manifest = "elsewhere/platform-tests/Cargo.toml";
    let (code, _, err) = kcontract(
        dir,
        &["--spec", "spec", "check", "--manifest-path", manifest],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning[K0514]"), "{err}");
    let words = hinted(&err, "then run `");
    assert_eq!(
        words.join(" "),
        format!("--spec spec review --manifest-path {manifest} one.passes")
    );
    let (code, out, err) = run_hint(dir, &words);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 claim re-stamped"), "{out}");
    let (code, _, err) = kcontract(
        dir,
        &[
            "--spec",
            "spec",
            "check",
            "--strict-tests",
            "--manifest-path",
            manifest,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0514"), "{err}");
}

/// Finding 5: regeneration reads `main.rs` as Rust: a declaration followed by a comment is not
/// declared again (E0428).
#[test]
fn a_commented_module_declaration_is_not_duplicated() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    assert_eq!(kcontract(dir, &["scaffold"]).0, 0);
    let main = dir.join("tests/contract/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    let edited = text
        .replace("mod one;\n", "mod one; // added by the platform team\n")
        .replace(
            "mod two;\n",
            "mod two; /* ours */\nmod namespace; // added by the platform team\n",
        );
    assert_ne!(edited, text);
    std::fs::write(&main, &edited).unwrap();
    std::fs::write(dir.join("tests/contract/namespace.rs"), "//! Helpers.\n").unwrap();
    let (code, out, err) = kcontract(dir, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    let after = std::fs::read_to_string(&main).unwrap();
    assert_eq!(after, edited, "{out}");
    for m in ["one", "two", "namespace"] {
        assert_eq!(after.matches(&format!("mod {m};")).count(), 1, "{after}");
    }
}

/// Finding 6: CI logs — failures first with their messages cleaned, `--only`; translation
/// warnings counted in one line; the error summary counts every warning printed.
#[test]
fn terminal_output_is_made_for_ci_logs() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/matrix"), tmp.path());
    let dir = tmp.path();
    let (code, out, err) = kcontract(
        dir,
        &[
            "matrix",
            "--results",
            "results/junit.xml",
            "--only",
            "failing",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("FAILING (1)\n  one.fails  MUST · platform · verify: conformance\n"),
        "{out}"
    );
    assert!(
        out.contains("      assertion `left == right` failed: this test fails on purpose\n"),
        "{out}"
    );
    assert_eq!(out.matches("panicked at").count(), 1, "once: {out}");
    assert!(
        !out.contains("RUST_BACKTRACE") && !out.contains("test result:"),
        "{out}"
    );
    assert!(!out.contains("one.passes"), "--only failing: {out}");
    let (code, _, err) = kcontract(dir, &["matrix", "--only", "failing", "--format", "json"]);
    assert_eq!(code, 2, "the JSON is never filtered silently: {err}");
    // Every clause but with its tests' names under it.
    let (_, out, _) = kcontract(dir, &["matrix", "--results", "results/libtest.txt"]);
    assert!(
        out.contains("    passed    fixture::checks passes  tests/checks.rs:5\n"),
        "{out}"
    );

    // This repository's spec with one clause reworded: its translation is stale.
    let ws = workspace("spec");
    let md = ws.path().join("spec/en/configuration.md");
    let text = std::fs::read_to_string(&md).unwrap();
    let at = text.find("text: ").unwrap();
    let reworded = format!(
        "{}{}",
        &text[..at],
        text[at..].replacen(" the ", " the very ", 1)
    );
    assert_ne!(reworded, text);
    std::fs::write(&md, reworded).unwrap();
    let (_, out, err) = kcontract(ws.path(), &["matrix", "--tests-root", "."]);
    assert!(!out.is_empty(), "{err}");
    assert!(!err.contains("K0303") && !err.contains("K0301"), "{err}");
    assert!(err.contains("translation warning"), "{err}");
    // `check` shows them all, and says whose the warnings are.
    std::fs::create_dir_all(ws.path().join("tests")).unwrap();
    std::fs::write(
        ws.path().join("tests/t.rs"),
        "/// Clause: config.env.port @ 000000000000\n#[test]\nfn t() { assert!(true) }\n",
    )
    .unwrap();
    let (code, out, err) = kcontract(ws.path(), &["check", "--tests-root", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("K0303") && err.contains("K0514"), "{err}");
    assert!(
        out.contains("for the spec's editors (1 of them translations), 1 for the test authors"),
        "{out}"
    );
    // Its error summary counts every warning printed, not only its stage's.
    std::fs::create_dir_all(ws.path().join("tests")).unwrap();
    std::fs::write(
        ws.path().join("tests/t.rs"),
        "/// Clause: no.such\n#[test]\nfn t() {}\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(ws.path(), &["check", "--tests-root", "."]);
    assert_eq!(code, 1);
    let warnings = err.matches("\nwarning[").count() + usize::from(err.starts_with("warning["));
    assert!(warnings > 0, "{err}");
    assert!(
        err.contains(&format!("error: 1 error and {warnings} warning")),
        "{err}"
    );
}

/// Finding 4: the crate's `tests-link` makes the matrix page link its tests (as `links: tests:`
/// of contract.yaml does for the spec's repository).
#[test]
fn the_crate_sets_its_test_links() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    let krate = dir.join("platform-tests");
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"platform-tests\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("kcontract.toml"),
        "spec = \"../spec\"\ntests-link = \"https://git.example/platform-tests/blob/main/\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("tests/t.rs"),
        "/// Clause: one.passes\n#[test]\nfn passes() {}\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(&krate, &["build", "--out", "site"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(krate.join("site/en/matrix.html")).unwrap();
    assert!(
        page.contains("href=\"https://git.example/platform-tests/blob/main/tests/t.rs#L3\""),
        "{}",
        &page[page.find("tests/t.rs").unwrap_or(0).saturating_sub(200)..]
    );
}

/// Finding 6: `review` refreshes the doc comment `scaffold` wrote on a test that has since been
/// written, when it still shows the old clause text word for word; a doc someone edited is kept.
#[test]
fn review_refreshes_the_generated_doc_of_a_written_test() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    assert_eq!(kcontract(dir, &["scaffold"]).0, 0);
    let one = dir.join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&one).unwrap();
    // Both tests written; the second's doc gets a note typed into it.
    let written = text
        .replace("#[ignore = \"not yet written: one.passes\"]\n", "")
        .replace("#[ignore = \"not yet written: one.fails\"]\n", "")
        .replacen("todo!()", "assert!(true);", 2)
        .replace(
            "/// The platform MUST pass this check too, but its test fails.\n",
            "/// The platform MUST pass this check too, but its test fails.\n/// (Ours: see the runbook.)\n",
        );
    std::fs::write(&one, &written).unwrap();
    let md = dir.join("spec/en/one.md");
    let spec = std::fs::read_to_string(&md).unwrap();
    std::fs::write(
        &md,
        spec.replace("MUST pass this check.", "MUST pass this stricter check.")
            .replace("this check too,", "this stricter check too,"),
    )
    .unwrap();
    let (code, _, err) = kcontract(dir, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("warning[K0514]").count(), 2, "{err}");
    let (code, out, err) = kcontract(dir, &["review", "one.passes", "one.fails"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 claims re-stamped"), "{out}");
    let after = std::fs::read_to_string(&one).unwrap();
    assert!(
        after.contains("/// The platform MUST pass this stricter check.\n"),
        "{after}"
    );
    assert!(
        !after.contains("/// The platform MUST pass this check.\n"),
        "{after}"
    );
    // The edited doc is the author's: kept as it was.
    assert!(
        after.contains("but its test fails.\n/// (Ours: see the runbook.)\n"),
        "{after}"
    );
    let (code, _, err) = kcontract(dir, &["check", "--strict-tests"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0514"), "{err}");
}

/// Finding 4: `scaffold` is given the crate (`--manifest-path`, or its kcontract.toml when run in
/// it): a real test elsewhere in the crate replaces the clause's stub.
#[test]
fn scaffold_scans_the_crate_it_is_given() {
    let tmp = workspace("tests/fixtures/matrix/spec");
    let dir = tmp.path();
    assert_eq!(
        kcontract(
            dir,
            &["--spec", "spec", "scaffold", "--crate", "pt", "--out", "pt"]
        )
        .0,
        0
    );
    let krate = dir.join("pt");
    std::fs::write(
        krate.join("tests/other.rs"),
        "/// Clause: one.stubbed\n#[test]\nfn by_hand() {\n    assert!(true);\n}\n",
    )
    .unwrap();
    // From outside, naming the crate by its manifest: the stub stays (it is the folder's own
    // test of the clause), and nothing else changes.
    let (code, out, err) = kcontract(
        dir,
        &[
            "--spec",
            "spec",
            "scaffold",
            "--manifest-path",
            "pt/Cargo.toml",
            "--check",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    // A new crate folder without the stub: the real test elsewhere in the crate replaces it.
    let one = krate.join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&one).unwrap();
    let at = text
        .find("/// The platform SHOULD do something nobody")
        .unwrap();
    let end = at + text[at..].find("}\n").unwrap() + 2;
    std::fs::write(&one, format!("{}{}", &text[..at], text[end..].trim_start())).unwrap();
    std::fs::write(krate.join("tests/contract/.scaffolded"), "").unwrap();
    let (code, out, err) = kcontract(&krate, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 clause claimed by real tests elsewhere get no stub"),
        "{out}"
    );
    assert!(
        !std::fs::read_to_string(&one)
            .unwrap()
            .contains("fn one_stubbed")
    );
}

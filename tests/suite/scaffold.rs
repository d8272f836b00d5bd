//! `kcontract scaffold` through the real binary: this repository's stubs are current, generated
//! files are rustfmt-clean, a standalone crate builds and its `cargo test` passes, and regeneration
//! after edits and contract changes keeps the work and reports orphans.

use std::path::Path;
use std::process::Command;

use crate::common::cli::{copy_dir, kcontract, root};

/// A command with the outer cargo's and nextest's variables removed, so the inner build is
/// independent of how these tests are run.
fn clean(mut cmd: Command) -> Command {
    for (k, _) in std::env::vars() {
        if k.starts_with("NEXTEST") || (k.starts_with("CARGO_") && k != "CARGO_HOME") {
            cmd.env_remove(k);
        }
    }
    cmd
}

fn testable_clauses(dir: &Path, spec: &str) -> usize {
    let (_, out, _) = kcontract(dir, &["--spec", spec, "list", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verify"] != "untestable")
        .count()
}

#[test]
fn this_repository_stubs_are_up_to_date() {
    let (code, out, err) = kcontract(&root(), &["scaffold", "--check"]);
    assert_eq!(
        code, 0,
        "{out}{err}\nrun `cargo run -- scaffold` and commit tests/contract/"
    );
    assert!(out.starts_with("up to date: tests/contract\n"), "{out}");
    // Every testable clause but the five the model tests claim has a stub (they compile: they are
    // the `contract` test target of this very crate), or a test written in its place: those a
    // platform run decides (`crate::local_run::passes`).
    let count = |needle: &str| -> usize {
        [
            "background",
            "configuration",
            "network_environment",
            "runtime_and_lifecycle",
        ]
        .iter()
        .map(|m| {
            std::fs::read_to_string(root().join(format!("tests/contract/{m}.rs")))
                .unwrap()
                .matches(needle)
                .count()
        })
        .sum()
    };
    let stubs = count("#[ignore = \"not yet written: ");
    let written = count("crate::local_run::passes(\"");
    // The checks of the simulated route (`platform run`), the two hooks clauses sharing one.
    assert_eq!(
        written,
        kcontract_platform::checks::on(kcontract_platform::routes::Route::Simulated).count() - 2
    );
    assert_eq!(stubs + written, testable_clauses(&root(), "spec") - 5);
    assert!(
        out.contains("5 clauses claimed by real tests elsewhere get no stub"),
        "{out}"
    );
}

#[test]
fn generated_files_are_rustfmt_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("contract");
    let (code, _, err) = kcontract(&root(), &["scaffold", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let fmt = Command::new("rustfmt")
        .args(["--check", "--edition", "2024"])
        .arg(out.join("main.rs"))
        .output()
        .expect("rustfmt is installed with the toolchain");
    assert!(
        fmt.status.success(),
        "{}",
        String::from_utf8_lossy(&fmt.stdout)
    );
}

#[test]
fn standalone_crate_builds_and_its_tests_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = root().join("spec");
    let spec = spec.to_str().unwrap();
    let (code, out, err) = kcontract(
        tmp.path(),
        &[
            "--spec",
            spec,
            "scaffold",
            "--crate",
            "knative-contract-tests",
            "--out",
            "kct",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote kct/Cargo.toml"), "{out}");
    let krate = tmp.path().join("kct");
    for f in [
        "Cargo.toml",
        "src/lib.rs",
        "tests/contract/main.rs",
        "tests/contract/configuration.rs",
    ] {
        assert!(krate.join(f).is_file(), "{f}");
    }
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"knative-contract-tests\""));

    let mut cmd = clean(Command::new(
        std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
    ));
    let run = cmd
        .current_dir(&krate)
        .args(["test", "--offline"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{text}");
    assert!(
        !text.contains("warning"),
        "the stubs compile without warnings:\n{text}"
    );
    // All stubs of the contract, none claimed elsewhere in the new crate, all ignored.
    let n = testable_clauses(tmp.path(), spec);
    assert!(
        text.contains(&format!("test result: ok. 0 passed; 0 failed; {n} ignored")),
        "{text}"
    );

    // Running it again changes nothing; --check agrees.
    let args = [
        "--spec",
        spec,
        "scaffold",
        "--crate",
        "knative-contract-tests",
        "--out",
        "kct",
    ];
    let (code, out, _) = kcontract(tmp.path(), &args);
    assert_eq!(code, 0);
    assert!(out.starts_with("unchanged: kct/tests/contract\n"), "{out}");
    let mut check = args.to_vec();
    check.push("--check");
    assert_eq!(kcontract(tmp.path(), &check).0, 0);
    // The crate's own Cargo.toml is never rewritten.
    std::fs::write(krate.join("Cargo.toml"), "# mine\n").unwrap();
    assert_eq!(kcontract(tmp.path(), &args).0, 0);
    assert_eq!(
        std::fs::read_to_string(krate.join("Cargo.toml")).unwrap(),
        "# mine\n"
    );
}

/// A copy of the matrix fixture's spec in a new folder, as `spec/`.
fn matrix_fixture() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/matrix/spec"),
        &tmp.path().join("spec"),
    );
    tmp
}

/// Chapter text `spec` without the clause block of `id` (and the blank line after it).
fn without_clause(spec: &str, id: &str) -> String {
    let start = spec.find(&format!("```clause\nid: {id}\n")).unwrap();
    let end = start + spec[start..].find("```\n\n").unwrap() + 5;
    format!("{}{}", &spec[..start], &spec[end..])
}

/// The fixture contract, scaffolded, edited, changed, and scaffolded again.
#[test]
fn regeneration_keeps_work_and_reports_orphans() {
    let tmp = matrix_fixture();
    let (code, out, err) = kcontract(tmp.path(), &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("7 stubs (7 new)"), "{out}");
    let one = tmp.path().join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&one).unwrap();

    // The author writes a test and a helper.
    let edited = text.replace(
        "fn one_passes() {\n    todo!()\n}",
        "fn one_passes() {\n    // Written by hand.\n    assert_eq!(helper(), 1);\n}",
    );
    assert_ne!(edited, text);
    let edited = format!("{edited}\nfn helper() -> u32 {{\n    1\n}}\n");
    std::fs::write(&one, &edited).unwrap();
    assert_eq!(
        kcontract(tmp.path(), &["scaffold", "--check"]).0,
        0,
        "edits alone need nothing"
    );

    // The contract changes: one.fails is removed, one.stubbed reworded, one.new added,
    // two.untested becomes untestable.
    let en = tmp.path().join("spec/en/one.md");
    let mut spec = without_clause(&std::fs::read_to_string(&en).unwrap(), "one.fails");
    spec = spec.replace("nobody has tested yet.", "nobody has tested, yet.");
    spec.push_str("\n```clause\nid: one.new\nlevel: MUST\nactor: platform\ntext: The platform MUST do the new thing.\nverify: conformance\n```\n");
    std::fs::write(&en, spec).unwrap();
    let two = tmp.path().join("spec/en/two.md");
    let spec2 = std::fs::read_to_string(&two).unwrap().replace(
        "text: The container MAY do what nothing claims.\nverify: manual",
        "text: The container MAY do what nothing claims.\nverify: untestable\nreason: Nobody can tell.",
    );
    std::fs::write(&two, spec2).unwrap();

    let (code, _, err) = kcontract(tmp.path(), &["scaffold", "--check"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0511]: `tests/contract/one.rs` is out of date"),
        "{err}"
    );
    // two.rs loses the untouched stub of the clause made untestable; --check shows no second
    // stub anywhere.
    assert!(err.contains("two.rs` is out of date"), "{err}");
    assert!(!err.contains("+fn one_passes"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&one).unwrap(),
        edited,
        "--check writes nothing"
    );

    let (code, out, err) = kcontract(tmp.path(), &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    // The untouched stubs of the removed and of the now untestable clause are generated code:
    // removed (issue #36: they used to stay as orphans, and `check` failed until someone deleted
    // generated code by hand). Nothing anyone wrote is an orphan here.
    assert!(
        out.contains(
            "wrote tests/contract/one.rs (1 new, 2 refreshed, 1 kept as written, 1 removed)"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "wrote tests/contract/two.rs (0 new, 2 refreshed, 0 kept as written, 1 removed)"
        ),
        "{out}"
    );
    assert!(out.contains("2 untouched stubs removed"), "{out}");
    assert!(!err.contains("K0510"), "{err}");
    let after = std::fs::read_to_string(&one).unwrap();
    let written = &edited[edited
        .find("/// The platform MUST pass this check.")
        .unwrap()..edited.find("fn one_passes").unwrap()];
    assert!(after.contains(&format!(
        "{written}fn one_passes() {{\n    // Written by hand.\n    assert_eq!(helper(), 1);\n}}"
    )));
    assert!(after.ends_with("\nfn helper() -> u32 {\n    1\n}\n"));
    assert!(!after.contains("one.fails"), "the untouched stub is gone");
    assert!(after.contains("nobody has tested, yet."), "doc refreshed");
    insta::assert_snapshot!("regenerated_one_rs", after);

    // Again: nothing changes, and `check` passes: no annotation names a clause that is gone.
    let (_, out, _) = kcontract(tmp.path(), &["scaffold"]);
    assert!(out.starts_with("unchanged: tests/contract\n"), "{out}");
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 0, "{err}");

    // A test someone wrote for a clause that is then removed stays, an orphan (K0510), and
    // `check` names it (K0501).
    let text = std::fs::read_to_string(&one).unwrap();
    std::fs::write(
        &one,
        text.replace(
            "fn one_new() {\n    todo!()\n}",
            "fn one_new() {\n    assert!(true);\n}",
        ),
    )
    .unwrap();
    let spec = std::fs::read_to_string(&en).unwrap();
    let start = spec.find("```clause\nid: one.new").unwrap();
    std::fs::write(&en, &spec[..start]).unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning[K0510]: orphan: `one_new` claims `one.new`, which is no longer in the contract; the test is kept"), "{err}");
    let (code, _, err) = kcontract(tmp.path(), &["check"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0501]: no clause `one.new` in the contract"),
        "{err}"
    );
}

#[test]
fn an_unreadable_file_stops_the_merge_and_nothing_is_written() {
    let tmp = matrix_fixture();
    let dir = tmp.path().join("tests/contract");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("one.rs"),
        "fn x() {\n    let s = \"unterminated;\n}\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(tmp.path(), &["scaffold"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0513]: `tests/contract/one.rs` cannot be read as Rust tokens"),
        "{err}"
    );
    assert!(err.contains("--> tests/contract/one.rs:2:13"), "{err}");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["one.rs"]);
}

#[test]
fn a_bad_crate_name_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = root().join("spec");
    let (code, _, err) = kcontract(
        tmp.path(),
        &[
            "--spec",
            spec.to_str().unwrap(),
            "scaffold",
            "--crate",
            "9 lives",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("is not a Cargo package name"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// A stub whose meta line someone added to (here a note after the generated `level · actor ·
/// verify`) is theirs: when its clause is removed it stays, an orphan (K0510), instead of being
/// removed as untouched generated code. The stamp covers only the clause's words, so this is the
/// meta block's own check (`scaffold::stub_words`).
#[test]
fn a_note_on_a_stubs_meta_line_makes_it_the_authors() {
    let tmp = matrix_fixture();
    assert_eq!(kcontract(tmp.path(), &["scaffold"]).0, 0);
    let one = tmp.path().join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&one).unwrap();
    let stub = text.find("/// Clause: one.fails @").unwrap();
    let meta = text[..stub]
        .rfind("/// MUST · platform · verify: conformance\n")
        .unwrap();
    let noted = format!(
        "{}/// MUST · platform · verify: conformance · see issue 12\n{}",
        &text[..meta],
        &text[meta + "/// MUST · platform · verify: conformance\n".len()..]
    );
    std::fs::write(&one, &noted).unwrap();
    let en = tmp.path().join("spec/en/one.md");
    let spec = std::fs::read_to_string(&en).unwrap();
    std::fs::write(&en, without_clause(&spec, "one.fails")).unwrap();

    let (code, out, err) = kcontract(tmp.path(), &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning[K0510]: orphan: `one_fails` claims `one.fails`"),
        "{err}"
    );
    assert!(!out.contains("removed"), "{out}");
    let after = std::fs::read_to_string(&one).unwrap();
    assert!(
        after.contains("verify: conformance · see issue 12\n///\n/// Clause: one.fails @"),
        "{after}"
    );
}

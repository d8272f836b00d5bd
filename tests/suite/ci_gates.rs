//! Issue #47, walked as a platform team's test author would: a crate of its own, scaffolded from a
//! copy of the spec or from the contract built into the binary; real tests; results; clauses
//! renamed several at a time. Each test reproduces a defect of the issue and shows it fixed, with
//! a negative control. (The platform columns' gate is in `matrix.rs`, `import-log` in
//! `platform_import_log.rs`.)

use std::path::{Path, PathBuf};

use crate::common::cli::{copy_dir, kcontract, root};

/// A folder with a copy of the fixture contract at `spec/` and a crate scaffolded from it at
/// `pt/`, two of whose stubs (`one.passes`, `one.fails`) are written as real tests.
fn team_crate() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("tests/fixtures/matrix/spec"),
        &tmp.path().join("spec"),
    );
    let (code, _, err) = kcontract(tmp.path(), &["scaffold", "--crate", "pt", "--out", "pt"]);
    assert_eq!(code, 0, "{err}");
    let krate = tmp.path().join("pt");
    write_test(&krate, "one_passes");
    write_test(&krate, "one_fails");
    (tmp, krate)
}

/// Turns the stub `name` of `tests/contract/one.rs` into a test with a statement (no `#[ignore]`,
/// no `todo!()`).
fn write_test(krate: &Path, name: &str) {
    let p = krate.join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&p).unwrap();
    let at = text.find(&format!("fn {name}() {{")).unwrap();
    let ignore = text[..at].rfind("#[ignore").unwrap();
    let body_end = at + text[at..].find("todo!()").unwrap();
    let written = format!(
        "{}{}    assert_eq!(1 + 1, 2);{}",
        &text[..ignore],
        &text[ignore + text[ignore..].find('\n').unwrap() + 1..body_end].trim_end_matches(' '),
        &text[body_end + "todo!()".len()..]
    );
    std::fs::write(&p, written).unwrap();
}

/// Renames clauses in the copy of the spec (their text unchanged).
fn rename(dir: &Path, pairs: &[(&str, &str)]) {
    let md = dir.join("spec/en/one.md");
    let mut text = std::fs::read_to_string(&md).unwrap();
    for (old, new) in pairs {
        text = text.replace(&format!("id: {old}\n"), &format!("id: {new}\n"));
    }
    std::fs::write(&md, text).unwrap();
}

fn claims(krate: &Path) -> Vec<String> {
    std::fs::read_to_string(krate.join("tests/contract/one.rs"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("/// Clause: "))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

/// Defect 2: two clauses renamed at once. Both are re-pointed by one `review` call with two
/// `--rename` pairs; one `--rename` works while the other claim is still stale, and `--all`
/// re-points the rest. Before, each was refused because of the other stale claim.
#[test]
fn two_stale_claims_are_re_pointed_in_one_review_call() {
    let renames = [("one.passes", "one.passing"), ("one.fails", "one.failing")];
    let (tmp, krate) = team_crate();
    rename(tmp.path(), &renames);
    let (code, _, err) = kcontract(&krate, &["check"]);
    assert_eq!(code, 1, "stale claims are errors\n{err}");
    let (code, out, err) = kcontract(
        &krate,
        &[
            "review",
            "--rename",
            "one.passes",
            "one.passing",
            "--rename",
            "one.fails",
            "one.failing",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 claims re-pointed"), "{out}");
    assert_eq!(
        claims(&krate)[..2],
        ["one.passing".to_string(), "one.failing".to_string()]
    );
    let (code, _, err) = kcontract(&krate, &["check"]);
    assert_eq!(code, 0, "{err}");

    // One pair while the other claim is stale, then `--all` for the rest. First the old id is
    // given as if it were current: refused, with a hint that works as printed.
    let (tmp, krate) = team_crate();
    rename(tmp.path(), &renames);
    let (code, _, err) = kcontract(&krate, &["review", "one.fails"]);
    assert_eq!(code, 2, "{err}");
    let hint = err
        .split("run `kcontract ")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap_or_else(|| panic!("no hint in {err}"));
    assert_eq!(hint, "review --rename one.fails one.failing", "{err}");
    let words: Vec<&str> = hint.split(' ').collect();
    let (code, out, err) = kcontract(&krate, &words);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 claim re-pointed"), "{out}");
    let (tmp, krate) = team_crate();
    rename(tmp.path(), &renames);
    let (code, out, err) = kcontract(&krate, &["review", "--rename", "one.passes", "one.passing"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 claim re-pointed"), "{out}");
    let (code, _, err) = kcontract(&krate, &["check"]);
    assert_eq!(code, 1, "one claim is still stale\n{err}");
    assert!(err.contains("no clause `one.fails`"), "{err}");
    let (code, out, err) = kcontract(&krate, &["review", "--all"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("re-pointed one::one_fails from one.fails to one.failing"),
        "{out}"
    );
    let (code, _, err) = kcontract(&krate, &["check"]);
    assert_eq!(code, 0, "{err}");
}

/// Defect 3: K0606 only when the results name no annotated test of the crate at all. With a
/// chapter selected, results of the crate's other tests are the crate's (no K0606); results of
/// another project are still K0606. After a rename, `--results` does not hide the stale claims.
#[test]
fn k0606_is_only_for_results_of_another_project() {
    let (tmp, krate) = team_crate();
    std::fs::write(
        krate.join("junit.xml"),
        "<testsuites><testsuite name=\"pt::contract\"><testcase classname=\"pt::contract\" name=\"one::one_passes\"/><testcase classname=\"pt::contract\" name=\"one::one_fails\"/></testsuite></testsuites>\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("other.xml"),
        "<testsuites><testsuite name=\"x\"><testcase classname=\"other::t\" name=\"zzz\"/></testsuite></testsuites>\n",
    )
    .unwrap();
    let select = |results: &str| {
        kcontract(
            &krate,
            &["matrix", "--select", "chapter:two", "--results", results],
        )
    };
    let (code, _, err) = select("junit.xml");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("K0606"), "{err}");
    let (code, _, err) = select("other.xml");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0606]"), "{err}");

    rename(tmp.path(), &[("one.passes", "one.passing")]);
    let (code, out, err) = kcontract(&krate, &["matrix", "--results", "junit.xml"]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("K0606"), "{err}");
    assert!(
        out.contains("STALE CLAIMS: ids the contract no longer has (1)")
            && out.contains("(renamed to one.passing: same stamp)"),
        "{out}"
    );
    assert!(
        err.contains("kcontract review --rename one.passes one.passing"),
        "{err}"
    );
}

/// Defect 5: a renamed clause whose old test is deleted (as the orphan's hint allows) gets its
/// stub from the next `scaffold`; a stub that was written and deleted by hand is not written again.
#[test]
fn a_renamed_clause_gets_its_stub_once_its_orphan_is_gone() {
    let (tmp, krate) = team_crate();
    rename(tmp.path(), &[("one.passes", "one.passing")]);
    let (code, _, err) = kcontract(&krate, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning[K0510]: orphan: `one_passes`"),
        "{err}"
    );
    // The orphan is deleted by hand.
    let p = krate.join("tests/contract/one.rs");
    let text = std::fs::read_to_string(&p).unwrap();
    let fn_at = text.find("fn one_passes()").unwrap();
    let start = text[..text[..fn_at].find("/// Clause: one.passes").unwrap()]
        .rfind("\n\n")
        .unwrap()
        + 2;
    let end = fn_at + text[fn_at..].find("\n}\n").unwrap() + 3;
    std::fs::write(&p, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let (code, out, err) = kcontract(&krate, &["scaffold"]);
    assert_eq!(code, 0, "{err}");
    let all = format!("{out}{err}");
    assert!(!all.contains("deleted by hand"), "{all}");
    assert!(all.contains("(1 new"), "{all}");
    assert!(claims(&krate).contains(&"one.passing".to_string()));
    // Negative control: that stub, now written, deleted by hand, stays deleted.
    let text = std::fs::read_to_string(&p).unwrap();
    let fn_at = text.find("fn one_passing()").unwrap();
    let start = text[..text[..fn_at].find("/// Clause: one.passing").unwrap()]
        .rfind("\n\n")
        .unwrap()
        + 2;
    let end = fn_at + text[fn_at..].find("\n}\n").unwrap() + 3;
    std::fs::write(&p, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let (_, out, err) = kcontract(&krate, &["scaffold"]);
    let all = format!("{out}{err}");
    assert!(
        all.contains("1 stub deleted by hand not written again") && all.contains("one.passing"),
        "{all}"
    );
    assert!(!claims(&krate).contains(&"one.passing".to_string()));
}

/// Item 6 and the last "must show": a crate made in a temporary folder with no spec folder.
/// `scaffold` uses the contract built into the binary and says so; in the crate, `check`, `list`,
/// `matrix --require` (both ways) and `review` work, reading its kcontract.toml.
#[test]
fn a_crate_without_a_spec_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(
        tmp.path(),
        &[
            "scaffold",
            "--crate",
            "pt",
            "--select",
            "chapter:network-environment,MUST",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("using the contract built into kcontract"),
        "{err}"
    );
    let krate = tmp.path().join("pt");
    let config = std::fs::read_to_string(krate.join("kcontract.toml")).unwrap();
    assert!(
        !config.lines().any(|l| l.starts_with("spec =")),
        "no folder is named\n{config}"
    );
    assert!(!krate.join("spec").exists() && !tmp.path().join("spec").exists());
    for cmd in [&["check"][..], &["list"]] {
        let (code, _, err) = kcontract(&krate, cmd);
        assert_eq!(code, 0, "{cmd:?}: {err}");
        assert!(err.contains("built into kcontract"), "{cmd:?}: {err}");
    }
    // The selection is read from kcontract.toml: `matrix` shows it.
    let (_, out, _) = kcontract(&krate, &["matrix"]);
    assert!(
        out.contains("selection: chapter:network-environment,MUST (7 of "),
        "{out}"
    );
    // Stubs only: the gate fails; with the one clause written, a gate on it passes.
    let gate = |require: &str| kcontract(&krate, &["matrix", "--require", require]);
    let (code, _, err) = gate("id:network.ports.accept-http1=implemented");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0610]"), "{err}");
    let p = krate.join("tests/contract/network_environment.rs");
    let text = std::fs::read_to_string(&p).unwrap();
    let at = text.find("fn network_ports_accept_http1() {").unwrap();
    let ignore = text[..at].rfind("#[ignore").unwrap();
    let todo = at + text[at..].find("todo!()").unwrap();
    std::fs::write(
        &p,
        format!(
            "{}fn network_ports_accept_http1() {{\n    assert_eq!(1 + 1, 2);{}",
            &text[..ignore],
            &text[todo + "todo!()".len()..]
        ),
    )
    .unwrap();
    let (code, _, err) = gate("id:network.ports.accept-http1=implemented");
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = gate("MUST=implemented");
    assert_eq!(code, 1, "the other six are stubs\n{err}");
    // `review` re-stamps the written test against the built-in text.
    let (code, out, err) = kcontract(&krate, &["review", "network.ports.accept-http1"]);
    assert_eq!(code, 0, "{out}{err}");
}

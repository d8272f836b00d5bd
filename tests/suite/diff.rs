//! `kcontract diff` on fixture pairs (`tests/fixtures/diff/old` → `new`: one change of every kind,
//! prose changes, a translation made stale and one missing), as JSON, Markdown and terminal
//! snapshots; a side with errors; `--fail-on`; and git revisions in a scratch repository.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

/// Run `kcontract --color never ARGS` in `dir`: exit code, stdout, stderr.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(["--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn shown((code, stdout, stderr): (i32, String, String)) -> String {
    format!("exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}")
}

fn diff_fixtures(extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["diff", "old", "new"];
    args.extend_from_slice(extra);
    run_in(&fixtures(), &args)
}

#[test]
fn json_lists_every_kind() {
    let (code, out, err) = diff_fixtures(&["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "kcontract-diff/1");
    let kinds: std::collections::BTreeSet<&str> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    let all = [
        "added",
        "removed",
        "renamed",
        "reworded",
        "level",
        "actor",
        "verify",
        "tests",
        "translation",
    ];
    assert_eq!(kinds, all.into_iter().collect());
    for c in v["changes"].as_array().unwrap() {
        for field in ["id", "kind", "chapter", "old", "new"] {
            assert!(c.get(field).is_some(), "{field} missing in {c}");
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn markdown_for_a_pull_request() {
    let (code, out, _) = diff_fixtures(&["--format", "markdown"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!(out);
}

#[test]
fn terminal_listing_plain_and_coloured() {
    let (code, out, _) = diff_fixtures(&[]);
    assert_eq!(code, 0);
    assert!(!out.contains('\u{1b}'), "--color never printed colour");
    insta::assert_snapshot!(out);
    let coloured = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(fixtures())
        .args(["--color", "always", "diff", "old", "new"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&coloured.stdout).contains("\u{1b}["));
    // auto: stdout is a pipe here, so no colour even without NO_COLOR.
    let auto = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(fixtures())
        .env_remove("NO_COLOR")
        .args(["diff", "old", "new"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&auto.stdout).contains('\u{1b}'));
}

#[test]
fn same_spec_has_no_changes() {
    let (code, out, _) = run_in(&fixtures(), &["diff", "new", "new"]);
    assert_eq!(code, 0);
    assert_eq!(out, "new → new\nno clause changed\n");
}

#[test]
fn level_directions_and_renames_in_json() {
    let (_, out, _) = diff_fixtures(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let find = |id: &str, kind: &str| {
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id && c["kind"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} change of {id}"))
    };
    assert_eq!(find("one.level", "level")["direction"], "strengthens");
    assert_eq!(find("one.reversed", "level")["direction"], "reverses");
    let renamed = find("one.renamed-new", "renamed");
    assert_eq!(renamed["old"], "one.renamed-old");
    // A renamed clause is neither added nor removed.
    assert!(
        !v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "one.renamed-old"
                || (c["id"] == "one.renamed-new" && c["kind"] == "added"))
    );
    assert_eq!(find("one.translated", "translation")["old"], "current");
    assert_eq!(find("one.translated", "translation")["new"], "stale");
    assert_eq!(find("one.added", "translation")["new"], "missing");
    assert_eq!(v["prose"][0]["chapter"], "one");
    // Removed, but its words are now prose: made informative; a plain removal is not.
    assert_eq!(find("one.informative", "removed")["informative"], true);
    assert!(find("one.removed", "removed").get("informative").is_none());
}

#[test]
fn fail_on_named_kinds() {
    let (code, _, err) = diff_fixtures(&["--fail-on", "actor"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
    let (code, _, _) = run_in(
        &fixtures(),
        &["diff", "new", "new", "--fail-on", "level,removed"],
    );
    assert_eq!(code, 0, "nothing of those kinds: no failure");
    let (code, _, err) = diff_fixtures(&["--fail-on", "sideways"]);
    assert_eq!(code, 2, "{err}");
}

/// A copy of the new fixture with `edit` applied to `en/one.md`.
fn broken_copy(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("old"), &dir.path().join("old"));
    copy_dir(&fixtures().join("new"), &dir.path().join("new"));
    let one = dir.path().join("new/en/one.md");
    let text = std::fs::read_to_string(&one).unwrap();
    std::fs::write(&one, edit(&text)).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_side_with_errors_is_reported_and_the_rest_diffed() {
    let dir = broken_copy(|t| t.replace("actor: developer", "actor: operator"));
    let (code, out, err) = run_in(dir.path(), &["diff", "old", "new"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[K0110]"), "{err}");
    // The broken clause is left out of the new side: not compared (not called removed); the
    // others are diffed.
    assert!(!out.contains("one.actor  "), "{out}");
    assert!(
        out.contains("not compared (a block with errors on one side): one.actor"),
        "{out}"
    );
    assert!(out.contains("level       one.level"), "{out}");
    insta::assert_snapshot!(shown((code, out, err)));
    // --fail-on is judged on what parsed, and reported with the errors (issue #49, item 6).
    let (code, _, err) = run_in(dir.path(), &["diff", "old", "new", "--fail-on", "level"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0110]") && err.contains("error[K0803]"),
        "{err}"
    );
    assert!(err.contains("one.level (level)"), "{err}");
}

/// `text` without the clause block of `id` and the blank line after it.
fn without_block(text: &str, id: &str) -> String {
    let start = text
        .find(&format!("```clause\nid: {id}\n"))
        .unwrap_or_else(|| panic!("no block {id}"));
    let end = start + 3 + text[start + 3..].find("```\n\n").unwrap() + 5;
    format!("{}{}", &text[..start], &text[end..])
}

/// The changes of a JSON diff.
fn json_changes(json: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["changes"].as_array().unwrap().clone()
}

#[test]
fn a_clause_removed_with_its_translation_left_behind_is_removed() {
    // `one.kept` removed from the source only: its zh block is left behind. That is an error of
    // the new side (K0302, where `check` reports it), and the removal is still a removal.
    let dir = broken_copy(|t| without_block(t, "one.kept"));
    let (code, out, err) = run_in(dir.path(), &["diff", "old", "new"]);
    assert_eq!(code, 1, "a side with errors: exit 1");
    assert!(err.contains("error[K0302]"), "{err}");
    assert!(err.contains("new/zh/one.md:6:5"), "{err}");
    assert!(!out.contains("not compared"), "{out}");
    assert!(out.contains("removed     one.kept"), "{out}");
    insta::assert_snapshot!(shown((code, out, err)));
    let (code, json, _) = run_in(dir.path(), &["diff", "old", "new", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["not_compared"], serde_json::json!([]));
    assert_eq!(v["new"]["errors"], 1);
    let mut changes = json_changes(&json);
    let kept: Vec<serde_json::Value> = changes
        .iter()
        .filter(|c| c["id"] == "one.kept")
        .cloned()
        .collect();
    assert_eq!(
        kept,
        [serde_json::json!({
            "id": "one.kept", "kind": "removed", "chapter": "one", "level": "MUST",
            "old": "The platform MUST keep this clause.", "new": null
        })]
    );
    // Everything else is the fixtures' diff, unchanged.
    changes.retain(|c| c["id"] != "one.kept");
    assert_eq!(
        changes,
        json_changes(&diff_fixtures(&["--format", "json"]).1)
    );
}

#[test]
fn only_a_source_block_with_errors_stops_the_comparison() {
    let json = |dir: &Path| {
        let (code, out, err) = run_in(dir, &["diff", "old", "new", "--format", "json"]);
        assert_eq!(code, 1, "{err}");
        (
            serde_json::from_str::<serde_json::Value>(&out).unwrap(),
            err,
        )
    };
    let kinds_of = |v: &serde_json::Value, id: &str| -> Vec<String> {
        v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["id"] == id)
            .map(|c| c["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    // The old side has the translation of a clause its source lacks (K0302 there): the new
    // side's clause is added, and its current translation is no change.
    let dir = broken_copy(|t| t.to_owned());
    let old = dir.path().join("old/en/one.md");
    std::fs::write(
        &old,
        without_block(&std::fs::read_to_string(&old).unwrap(), "one.kept"),
    )
    .unwrap();
    let (v, err) = json(dir.path());
    assert!(err.contains("old/zh/one.md:6:5"), "{err}");
    assert_eq!(kinds_of(&v, "one.kept"), ["added"]);
    assert_eq!(v["not_compared"], serde_json::json!([]));
    // The source block of `one.kept` broken, its translation there: not compared (its
    // translation is not reported on its own).
    let dir = broken_copy(|t| t.replace("MUST keep this clause.", "MUST keep: this clause."));
    let (v, err) = json(dir.path());
    assert!(!err.contains("K0302"), "{err}");
    assert!(kinds_of(&v, "one.kept").is_empty(), "{v}");
    assert_eq!(v["not_compared"], serde_json::json!(["one.kept"]));
    // A clause added with a broken translation (K0101 in zh): added, its translation missing.
    let dir = broken_copy(|t| t.to_owned());
    let zh = dir.path().join("new/zh/one.md");
    let text = std::fs::read_to_string(&zh).unwrap();
    std::fs::write(
        &zh,
        text + "\n```clause\nid: one.added\ntext: [unclosed\n```\n",
    )
    .unwrap();
    let (v, err) = json(dir.path());
    assert!(err.contains("error[K0101]"), "{err}");
    assert_eq!(kinds_of(&v, "one.added"), ["added", "translation"]);
    assert_eq!(v["not_compared"], serde_json::json!([]));
}

#[test]
fn a_side_that_cannot_be_read_compares_nothing() {
    // No folder on one side, no contract.yaml on the other: nothing parsed, so no diff is printed
    // (not "no clause changed"), and the exit code says so.
    let empty = tempfile::tempdir().unwrap();
    let (code, out, err) = run_in(
        &fixtures(),
        &["diff", "no-such-folder", empty.path().to_str().unwrap()],
    );
    assert_eq!(code, 1);
    assert_eq!(out, "");
    assert!(err.contains("error[K0003]"), "{err}");
    assert!(err.contains("error[K0001]"), "{err}");
    assert!(
        err.contains(
            "the old version (no-such-folder) could not be read (above); nothing was compared"
        ),
        "{err}"
    );
    // Both sides are reported, not only the first (issue #49, item 6).
    let new = format!(
        "the new version ({}) could not be read",
        empty.path().display()
    );
    assert!(err.contains(&new), "{err}");
}

/// Two revisions that do not exist: both are named in one run.
#[test]
fn both_unknown_revisions_are_reported() {
    let repo = scratch_repo();
    let (code, _, err) = run_in(repo.path(), &["diff", "--git", "nope-a..nope-b"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`nope-a` is not a revision"), "{err}");
    assert!(err.contains("`nope-b` is not a revision"), "{err}");
}

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// A repository with two commits: the old fixture as `spec/`, then the new one and a Rust test
/// that claims `one.kept`.
fn scratch_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    copy_dir(&fixtures().join("old"), &dir.path().join("spec"));
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "old"]);
    std::fs::remove_dir_all(dir.path().join("spec")).unwrap();
    copy_dir(&fixtures().join("new"), &dir.path().join("spec"));
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    std::fs::create_dir_all(dir.path().join("tests")).unwrap();
    std::fs::write(
        dir.path().join("tests/a.rs"),
        "/// Clause: one.kept\n#[test]\nfn keeps() {}\n",
    )
    .unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "new"]);
    dir
}

/// The changes of a JSON diff, without the annotated-test change the scratch repository adds.
fn without_new_test(json: &str) -> (serde_json::Value, serde_json::Value) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut changes = v["changes"].as_array().unwrap().clone();
    let before = changes.len();
    changes.retain(|c| !(c["id"] == "one.kept" && c["kind"] == "tests"));
    assert_eq!(
        before - 1,
        changes.len(),
        "no tests change for one.kept in {json}"
    );
    (serde_json::Value::Array(changes), v["prose"].clone())
}

#[test]
fn git_revisions_read_without_a_checkout() {
    let repo = scratch_repo();
    let folders = diff_fixtures(&["--format", "json"]).1;
    let changes = |json: &str| {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        (v["changes"].clone(), v["prose"].clone())
    };
    // HEAD~1 against the working tree (which is HEAD): the same changes as the two folders.
    let (code, out, err) = run_in(
        repo.path(),
        &["diff", "--git", "HEAD~1", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(without_new_test(&out), changes(&folders));
    assert!(out.contains("\"label\": \"HEAD~1:spec\""), "{out}");
    // The annotated test of the new commit, found in the working tree, is a `tests` change.
    assert!(out.contains("\"p::a::keeps\""), "{out}");
    // A..B, both from git; the working tree is not read (spec/en and the test emptied here).
    std::fs::remove_dir_all(repo.path().join("spec/en")).unwrap();
    std::fs::remove_file(repo.path().join("tests/a.rs")).unwrap();
    let (code, out, err) = run_in(
        repo.path(),
        &["diff", "--git", "HEAD~1..HEAD", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(without_new_test(&out), changes(&folders));
    // No argument: HEAD against the working tree, whose en/ is now gone (reported, exit 1).
    let (code, _, err) = run_in(repo.path(), &["diff"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[K0011]"), "{err}");
    insta::assert_snapshot!(shown(run_in(
        repo.path(),
        &["diff", "--git", "HEAD~1..", "--format", "markdown"]
    )));
}

#[test]
fn git_revisions_with_a_translation_left_behind() {
    // The same rule when both sides are read from git objects: `one.kept` removed from the source
    // with its zh block left behind is removed; `one.level`, whose source block is broken, is not
    // compared.
    let repo = scratch_repo();
    let one = repo.path().join("spec/en/one.md");
    let text = without_block(&std::fs::read_to_string(&one).unwrap(), "one.kept");
    std::fs::write(
        &one,
        text.replace(
            "level: MUST\nactor: platform\ntext: The platform MUST restart",
            "level: MUST\nactor: nobody\ntext: The platform MUST restart",
        ),
    )
    .unwrap();
    git(repo.path(), &["commit", "-qam", "broken"]);
    let (code, out, err) = run_in(
        repo.path(),
        &["diff", "--git", "HEAD~1..HEAD", "--format", "json"],
    );
    assert_eq!(code, 1);
    assert!(err.contains("HEAD:spec/zh/one.md:6:5"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["not_compared"], serde_json::json!(["one.level"]));
    let changes: Vec<(String, String)> = json_changes(&out)
        .iter()
        .filter(|c| c["id"] == "one.kept" || c["id"] == "one.level")
        .map(|c| (c["id"].to_string(), c["kind"].to_string()))
        .collect();
    assert_eq!(
        changes,
        [("\"one.kept\"".to_owned(), "\"removed\"".to_owned())]
    );
}

#[test]
fn git_problems() {
    let repo = scratch_repo();
    let (code, _, err) = run_in(repo.path(), &["diff", "--git", "no-such-rev"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`no-such-rev` is not a revision"), "{err}");
    let plain = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("new"), &plain.path().join("spec"));
    let (code, _, err) = run_in(plain.path(), &["diff"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

/// A spec `one` chapter made of `body`, written under `dir/name`.
fn one_chapter(dir: &Path, name: &str, body: &str) {
    let spec = dir.join(name);
    std::fs::create_dir_all(spec.join("en")).unwrap();
    std::fs::write(
        spec.join("contract.yaml"),
        "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n",
    )
    .unwrap();
    std::fs::write(spec.join("en/one.md"), format!("# One\n\n{body}")).unwrap();
}

fn clause(id: &str, level: &str, text: &str) -> String {
    format!(
        "```clause\nid: {id}\nlevel: {level}\nactor: platform\ntext: \"{text}\"\nverify: manual\n```\n\n"
    )
}

/// Item 6 of #49: a level change leads, moves are one summary line, a rewording that only changed
/// a link's target is listed apart, and a changed table row far down a chapter's prose is shown.
/// The controls: a real rewording stays under its chapter, and without a level or actor change
/// there is no "levels and actors" section.
#[test]
fn levels_first_moves_summarised_link_targets_apart_table_rows_shown() {
    let dir = tempfile::tempdir().unwrap();
    // Eight changed lines of prose before the table: more than a chapter's lines shown.
    let prose = |word: &str, row: &str| {
        let lines: String = (1..=8)
            .map(|i| format!("Line {i} of the {word} text.\n\n"))
            .collect();
        format!("{lines}| Mount | Use |\n| --- | --- |\n| /tmp | scratch |\n| {row} |\n\n")
    };
    let old = format!(
        "{}## First\n\n{}{}{}{}{}",
        prose("old", "/var/log | logs"),
        clause(
            "one.link",
            "MUST",
            "The platform MUST follow [the rules](https://example.com/a)."
        ),
        clause("one.words", "MUST", "The platform MUST do this thing."),
        clause("one.m1", "MAY", "The platform MAY move one."),
        clause("one.m2", "MAY", "The platform MAY move two."),
        clause("one.level", "SHOULD", "The platform SHOULD be quick."),
    );
    let new = format!(
        "{}## First\n\n{}{}## Second\n\n{}{}{}",
        prose("new", "/var/log | the logs of the container"),
        clause(
            "one.link",
            "MUST",
            "The platform MUST follow [the rules](https://example.com/b)."
        ),
        clause(
            "one.words",
            "MUST",
            "The platform MUST do that other thing."
        ),
        clause("one.m1", "MAY", "The platform MAY move one."),
        clause("one.m2", "MAY", "The platform MAY move two."),
        clause("one.level", "MUST", "The platform MUST be quick."),
    );
    one_chapter(dir.path(), "old", &old);
    one_chapter(dir.path(), "new", &new);
    let (code, out, err) = run_in(dir.path(), &["diff", "old", "new"]);
    assert_eq!(code, 0, "{err}");
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no {s:?} in\n{out}"));
    assert!(at("levels and actors") < at("\none\n"), "{out}");
    assert!(at("one.level") < at("one.words"), "{out}");
    assert!(
        out.contains("3 clauses moved: one § First → one § Second (3)"),
        "{out}"
    );
    assert!(
        !out.contains("  moved "),
        "moves are summarised, not listed: {out}"
    );
    let links = at("link targets only (the same words): 1");
    assert!(at("one.link ") > links, "{out}");
    assert!(
        at("one.words") < links,
        "a real rewording is no link change: {out}"
    );
    assert!(
        out.contains("+ | /var/log | the logs of the container |"),
        "{out}"
    );
    assert!(out.contains("- | /var/log | logs |"), "{out}");
    let (_, md, _) = run_in(dir.path(), &["diff", "old", "new", "--format", "markdown"]);
    assert!(
        md.find("#### Levels and actors").unwrap() < md.find("#### one").unwrap(),
        "{md}"
    );
    assert!(md.contains("#### Link targets only"), "{md}");
    assert!(
        md.contains("+ | /var/log | the logs of the container |"),
        "{md}"
    );

    // Control: the same pair without the level change has no levels section.
    let new = new.replace(
        "level: MUST\nactor: platform\ntext: \"The platform MUST be quick.",
        "level: SHOULD\nactor: platform\ntext: \"The platform SHOULD be quick.",
    );
    one_chapter(dir.path(), "new", &new);
    let (_, out, _) = run_in(dir.path(), &["diff", "old", "new"]);
    assert!(!out.contains("levels and actors"), "{out}");
    assert!(out.contains("3 clauses moved"), "{out}");
}

/// `kcontract diff ARGS` in `dir` with `TMPDIR` set to `tmp`.
fn diff_with_tmp(dir: &Path, tmp: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcontract"))
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .args(["--color", "never"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What a temporary folder holds.
fn entries(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// The scratch repository with a third commit that deletes the test claiming `one.kept`: the
/// revision `HEAD~1` has it, the working tree does not.
fn repo_without_the_test() -> tempfile::TempDir {
    let repo = scratch_repo();
    git(repo.path(), &["rm", "-q", "tests/a.rs"]);
    git(repo.path(), &["commit", "-qm", "test removed"]);
    repo
}

/// A revision's tests are scanned from the revision's files whether `--spec` is relative or
/// absolute (issue #50, item 4: with an absolute one the working tree was scanned twice, and the
/// removed test went unseen), in a temporary folder that is gone afterwards.
#[test]
fn a_revisions_tests_are_scanned_for_a_relative_or_an_absolute_spec() {
    let repo = repo_without_the_test();
    let tmp = tempfile::tempdir().unwrap();
    let absolute = repo.path().join("spec");
    for spec in ["spec", absolute.to_str().unwrap()] {
        let (code, out, err) = diff_with_tmp(
            repo.path(),
            tmp.path(),
            &[
                "--spec", spec, "diff", "--git", "HEAD~1", "--format", "json",
            ],
        );
        assert_eq!(code, 0, "{spec}: {err}");
        let tests: Vec<serde_json::Value> = json_changes(&out)
            .into_iter()
            .filter(|c| c["id"] == "one.kept" && c["kind"] == "tests")
            .collect();
        assert_eq!(tests.len(), 1, "--spec {spec}: no removed test in {out}");
        assert!(out.contains("p::a::keeps"), "{out}");
        assert_eq!(entries(tmp.path()), Vec::<String>::new(), "--spec {spec}");
    }
}

/// The temporary folder of a revision's files is removed when the command is interrupted there
/// (SIGINT, SIGTERM), not only when it finishes: the test hook holds the command with the folder
/// full until the signal comes.
#[test]
fn an_interrupted_diff_leaves_no_temporary_folder() {
    let repo = repo_without_the_test();
    for signal in ["INT", "TERM"] {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kcontract"))
            .current_dir(repo.path())
            .env("TMPDIR", tmp.path())
            .env("KCONTRACT_TEST_HOLD_SCRATCH", "20000")
            .args(["diff", "--git", "HEAD~1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        // The folder, named unpredictably, with the revision's test in it.
        let made = loop {
            let found = entries(tmp.path())
                .into_iter()
                .find(|n| tmp.path().join(n).join("tests/a.rs").is_file());
            if let Some(n) = found {
                break n;
            }
            assert!(start.elapsed().as_secs() < 20, "no scratch folder");
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        assert!(
            made.starts_with("kcontract-diff-") && made.len() > 20,
            "{made}"
        );
        let st = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let code = child.wait().unwrap().code();
        assert_eq!(code, Some(130), "SIG{signal}");
        assert!(
            start.elapsed().as_secs() < 15,
            "SIG{signal}: waited out the hold"
        );
        assert_eq!(entries(tmp.path()), Vec::<String>::new(), "SIG{signal}");
    }
}

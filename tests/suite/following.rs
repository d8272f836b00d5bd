//! Following an upstream text (docs/following-upstream.md): `import NEW --keep-ids-from OLD`, then
//! `diff OLD NEW`. The answers the editor acts on must be true: an unchanged text changes nothing
//! (not one id, actor or decision), and a level change is a level change, not a removal and an
//! addition. The fixtures `relay-v1.md` / `relay-v2.md` were written for these tests: relative
//! links (to a section and to another file), tables, lists, a code block, `:` clauses, a note, and
//! the negated forms "not REQUIRED" and "MAY NOT".

use std::path::Path;

use crate::common::cli::{kcontract, root};

/// `import tests/fixtures/import/<fixture> --out <out>` in `dir`, with `more`; it succeeds.
fn import(dir: &Path, fixture: &str, out: &str, more: &[&str]) -> String {
    let path = root().join("tests/fixtures/import").join(fixture);
    let args = [&["import", path.to_str().unwrap(), "--out", out], more].concat();
    let (code, stdout, err) = kcontract(dir, &args);
    assert_eq!(code, 0, "import {fixture}:\n{stdout}\n{err}");
    err
}

/// The changes `diff old new --format json` lists.
fn changes(dir: &Path, old: &str, new: &str) -> Vec<serde_json::Value> {
    let (code, out, err) = kcontract(dir, &["diff", old, new, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["changes"].as_array().unwrap().clone()
}

/// Every clause id of the spec folder `dir/spec`, in order.
fn ids(dir: &Path) -> Vec<String> {
    let loaded = kcontract_spec::load(dir);
    assert!(!loaded.has_errors());
    loaded.spec.clauses.iter().map(|c| c.id.clone()).collect()
}

/// The same file imported twice, the second time with `--keep-ids-from` the first: every id is
/// kept (none renamed, not the clause whose link import rewrote nor the ones holding a table or a
/// code block), and `diff` finds nothing. The negative control: without `--keep-ids-from` into a
/// folder whose ids were edited, the ids are new and `diff` reports each clause renamed.
#[test]
fn an_identical_reimport_renames_nothing() {
    let dir = tempfile::tempdir().unwrap();
    import(dir.path(), "relay-v1.md", "v1", &[]);
    let err = import(
        dir.path(),
        "relay-v1.md",
        "again",
        &["--keep-ids-from", "v1"],
    );
    assert!(
        err.contains("note: 10 of 10 clause(s) kept their id from `v1`"),
        "{err}"
    );
    let (v1, again) = (ids(&dir.path().join("v1")), ids(&dir.path().join("again")));
    assert_eq!(v1.len(), 10);
    assert_eq!(v1, again);
    assert_eq!(
        changes(dir.path(), "v1", "again"),
        Vec::<serde_json::Value>::new()
    );
    // Negative control: ids an editor renamed are not found again without --keep-ids-from.
    let chapter = dir.path().join("v1/en/delivery.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    std::fs::write(
        &chapter,
        text.replace("id: delivery.", "id: delivery.edited-"),
    )
    .unwrap();
    import(dir.path(), "relay-v1.md", "fresh", &[]);
    let found = changes(dir.path(), "v1", "fresh");
    let renamed = found.iter().filter(|c| c["kind"] == "renamed").count();
    assert_eq!(renamed, 6, "{found:?}");
    // With it, the editor's ids stay.
    import(
        dir.path(),
        "relay-v1.md",
        "kept",
        &["--keep-ids-from", "v1"],
    );
    assert_eq!(
        changes(dir.path(), "v1", "kept"),
        Vec::<serde_json::Value>::new()
    );
}

/// SHOULD → MUST in a sentence and in a table row: the clauses keep their ids and `diff` reports
/// each as a level change that strengthens, not as a removal and an addition.
#[test]
fn a_strengthened_requirement_is_a_level_change() {
    let dir = tempfile::tempdir().unwrap();
    import(dir.path(), "relay-v1.md", "v1", &[]);
    import(dir.path(), "relay-v2.md", "v2", &["--keep-ids-from", "v1"]);
    assert_eq!(ids(&dir.path().join("v1")), ids(&dir.path().join("v2")));
    let found = changes(dir.path(), "v1", "v2");
    let levels: Vec<(&str, &str)> = found
        .iter()
        .filter(|c| c["kind"] == "level")
        .map(|c| {
            (
                c["id"].as_str().unwrap(),
                c["direction"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        levels,
        [
            (
                "delivery.receiver-acknowledge-each-message-within-five",
                "strengthens"
            ),
            ("delivery.queue-full-relay-retry-after-one", "strengthens"),
        ],
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|c| c["kind"] == "removed" || c["kind"] == "added"),
        "{found:?}"
    );
}

/// An editor's work on an import — review notes resolved, actors and verify kinds decided, a new
/// actor in contract.yaml — survives a re-import of the unchanged upstream: `diff` reports 0
/// changes and the files are byte for byte the editor's. The negative control: `--upstream-only`
/// keeps the ids and actors only, and `diff` shows the editors' decisions gone.
#[test]
fn reimporting_unchanged_upstream_into_an_edited_spec_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    import(dir.path(), "relay-v1.md", "edited", &[]);
    let edited = dir.path().join("edited");
    for chapter in ["delivery", "messages"] {
        let path = edited.join(format!("en/{chapter}.md"));
        let text = std::fs::read_to_string(&path).unwrap();
        // Each review note resolved (its line and the lines folded into it), each guess decided.
        let mut out = Vec::new();
        let mut in_review = false;
        for line in text.lines() {
            if line.starts_with("review:") {
                in_review = true;
                continue;
            }
            if in_review && line.starts_with("  ") {
                continue;
            }
            in_review = false;
            out.push(
                line.replace("actor: unassigned", "actor: relay")
                    .replace("verify: manual", "verify: test"),
            );
        }
        std::fs::write(&path, out.join("\n") + "\n").unwrap();
    }
    let yaml = edited.join("contract.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("actors: [", "actors: [operator, ")).unwrap();
    let (code, out, err) = kcontract(&edited, &["--spec", ".", "check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("K0119"), "{err}");

    import(
        dir.path(),
        "relay-v1.md",
        "new",
        &["--keep-ids-from", "edited"],
    );
    assert_eq!(
        changes(dir.path(), "edited", "new"),
        Vec::<serde_json::Value>::new()
    );
    for file in ["contract.yaml", "en/delivery.md", "en/messages.md"] {
        assert_eq!(
            std::fs::read_to_string(edited.join(file)).unwrap(),
            std::fs::read_to_string(dir.path().join("new").join(file)).unwrap(),
            "{file}"
        );
    }
    // Negative control: only what upstream says is kept with --upstream-only.
    import(
        dir.path(),
        "relay-v1.md",
        "upstream",
        &["--keep-ids-from", "edited", "--upstream-only"],
    );
    let found = changes(dir.path(), "edited", "upstream");
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|c| c["kind"] != "removed" && c["kind"] != "added"),
        "{found:?}"
    );
}

/// Every file below `dir`, by its path relative to `dir`, with its bytes.
fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The contract's history is the output of the workflow editors are told to use: running
/// `spec/history/build.sh` (kcontract's own import, `--keep-ids-from` version to version, over
/// every upstream version in `upstream/knative/history/`) makes exactly the committed folders of
/// `spec/history/` and prints exactly the `history:` of `spec/contract.yaml`. So the Changes page
/// cannot drift from the tool: a change to import that changes the history fails here until the
/// history is built again.
#[test]
fn the_committed_history_is_what_the_workflow_makes() {
    let root = root();
    let out = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("bash")
        .arg("spec/history/build.sh")
        .arg(out.path())
        .current_dir(&root)
        .env("KCONTRACT", env!("CARGO_BIN_EXE_kcontract"))
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let printed = String::from_utf8(made.stdout).unwrap();
    let contract = std::fs::read_to_string(root.join("spec/contract.yaml")).unwrap();
    let committed = &contract[contract.find("\nhistory:\n").unwrap() + 1..];
    assert_eq!(
        committed, printed,
        "spec/contract.yaml's history: is not what spec/history/build.sh prints"
    );
    let mut want = files(&root.join("spec/history"));
    want.remove("build.sh");
    let got = files(out.path());
    let names =
        |m: &std::collections::BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&got), names(&want), "spec/history/ holds other files");
    for (path, bytes) in &want {
        assert!(
            got[path] == *bytes,
            "spec/history/{path} differs from what spec/history/build.sh makes: run it again"
        );
    }
    // The steps the page must show: at least 12, among them these pull requests.
    let steps = printed.matches("\n    pull_request: ").count();
    assert!(steps >= 12, "{printed}");
    for pr in [4531, 4550, 9683, 73, 106] {
        assert!(
            printed.contains(&format!("\n    pull_request: {pr}\n")),
            "#{pr} is no step"
        );
    }
}

/// A spec of another project imported without a vocabulary: its actors are its own subjects' nouns
/// and no clause has a Knative actor (`platform`, `developer`, `container`) nor a Knative verify
/// kind; each sentence ending with `:` holds the table, code block or steps that complete it; the
/// note with a keyword stays informative and `check` accepts it.
#[test]
fn another_projects_spec_gets_its_own_vocabulary_and_whole_clauses() {
    let dir = tempfile::tempdir().unwrap();
    let err = import(dir.path(), "relay-v1.md", "spec", &[]);
    assert!(
        err.contains("3 clause(s) end with `:` or run on, and hold the list, table or code block")
            && err.contains("1 note(s) or example(s) use a keyword and stay informative"),
        "{err}"
    );
    let loaded = kcontract_spec::load(&dir.path().join("spec"));
    assert!(!loaded.has_errors());
    for c in &loaded.spec.clauses {
        let actor = c.actor.as_str();
        assert!(
            !["platform", "developer", "container"].contains(&actor),
            "{}: {actor}",
            c.id
        );
        assert!(
            !["model", "conformance"].contains(&c.verify.as_str()),
            "{}",
            c.id
        );
    }
    let text = |id: &str| loaded.spec.clause(id).unwrap().text.clone();
    assert!(
        text("messages.every-message-following-headers")
            .contains("| `Sent-At` | when it was sent |")
    );
    assert!(
        text("messages.code-field-match-following-regular-expression")
            .contains("^[a-z][a-z0-9-]{0,62}$")
    );
    assert!(text("delivery.relay-follow-steps").contains("3. Send the message."));
    let (code, out, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("K0201"), "{err}");
}

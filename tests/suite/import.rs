//! `kcontract import` on the two upstream texts (the Knative contract and the OCI runtime spec's
//! runtime.md v1.3.0): the imported spec passes `check`, and every RFC 2119 keyword of the source
//! is inside a clause, at its level — none lost, none in prose, none invented.

use std::collections::BTreeMap;
use std::path::Path;

use kcontract_spec::keywords::{Level, find_keywords};

use crate::common::cli::{kcontract, mkfifo, root};

/// Keyword count per level in `text`.
fn levels(text: &str) -> BTreeMap<Level, usize> {
    let mut m = BTreeMap::new();
    for h in find_keywords(text) {
        *m.entry(h.level).or_insert(0) += 1;
    }
    m
}

/// Import `upstream` into a fresh folder; return the folder (kept alive) and the source text.
fn import(upstream: &str) -> (tempfile::TempDir, String) {
    import_with(upstream, &[])
}

/// [`import`] with more arguments (`--link-base URL`).
fn import_with(upstream: &str, more: &[&str]) -> (tempfile::TempDir, String) {
    let path = root().join(upstream);
    let src = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} is needed for this test: {e}", path.display()));
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(
        dir.path(),
        &[&["import", path.to_str().unwrap(), "--out", "spec"], more].concat(),
    );
    assert_eq!(code, 0, "import failed:\n{out}\n{err}");
    assert!(out.contains("imported "), "{out}");
    (dir, src)
}

fn check_and_count(upstream: &str, more: &[&str]) {
    let (dir, src) = import_with(upstream, more);
    let (code, out, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(
        code, 0,
        "check of the imported {upstream} failed:\n{out}\n{err}"
    );
    // What needs a person is a warning now, and an error under --strict.
    let reviews = err.matches("warning[K0119]").count();
    assert!(reviews > 0, "{err}");
    let (strict, _, err) = kcontract(dir.path(), &["check", "--strict"]);
    assert_eq!(strict, 1);
    assert_eq!(err.matches("error[K0119]").count(), reviews);

    // The new spec is in fmt's canonical form already: nothing to rewrite, no block left as written.
    let (fmt, _, err) = kcontract(dir.path(), &["fmt", "--check"]);
    assert_eq!(fmt, 0, "fmt --check of the imported {upstream}:\n{err}");
    assert!(!err.contains("K0806"), "{err}");

    let loaded = kcontract_spec::load(&dir.path().join("spec"));
    assert!(!loaded.has_errors());
    let mut in_clauses = BTreeMap::new();
    for c in &loaded.spec.clauses {
        let found = levels(&c.text);
        assert!(!found.is_empty(), "clause {} has no keyword", c.id);
        assert!(
            found.contains_key(&c.level),
            "clause {}: level {} not in its text",
            c.id,
            c.level
        );
        for (l, n) in found {
            *in_clauses.entry(l).or_insert(0) += n;
        }
    }
    let source = levels(&src);
    let total: usize = source.values().sum();
    assert!(
        total > 40,
        "{upstream}: only {total} keywords found in the source"
    );
    assert_eq!(
        in_clauses, source,
        "{upstream}: keywords per level, in clauses vs in the source"
    );
}

#[test]
fn the_knative_contract_imports_and_checks() {
    // Its links to its own sections land in the chapters; the one to another file keeps its words.
    check_and_count("upstream/knative/runtime-contract.en.md", &[]);
}

#[test]
fn the_oci_runtime_spec_imports_and_checks() {
    // Links to the other files of the runtime spec go under the base (check rejects them otherwise:
    // K0118), links to its own sections into the chapters.
    let base = "https://github.com/opencontainers/runtime-spec/blob/v1.3.0/";
    check_and_count(
        "upstream/oci-runtime-spec/runtime-v1.3.0.md",
        &["--link-base", base],
    );
    let (dir, _) = import_with(
        "upstream/oci-runtime-spec/runtime-v1.3.0.md",
        &["--link-base", base],
    );
    let hooks = std::fs::read_to_string(dir.path().join("spec/en/hooks.md")).unwrap();
    assert!(
        hooks.contains(&format!("]({base}config.md#posix-platform-hooks)")),
        "{hooks}"
    );
}

#[test]
fn import_is_deterministic_and_builds() {
    let (a, _) = import("upstream/oci-runtime-spec/runtime-v1.3.0.md");
    let (b, _) = import("upstream/oci-runtime-spec/runtime-v1.3.0.md");
    let read = |d: &Path| std::fs::read_to_string(d.join("spec/en/lifecycle.md")).unwrap();
    assert_eq!(read(a.path()), read(b.path()));
    let (code, out, err) = kcontract(a.path(), &["build"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(a.path().join("site/index.html").is_file());
}

#[test]
fn import_never_overwrites_and_reports_a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("spec")).unwrap();
    std::fs::write(dir.path().join("spec/keep.md"), "mine").unwrap();
    std::fs::write(dir.path().join("in.md"), "# T\n\n## A\n\nIt MUST work.\n").unwrap();
    let (code, _, err) = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K1002]") && err.contains("is not empty"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("spec/keep.md")).unwrap(),
        "mine"
    );
    let (code, _, err) = kcontract(dir.path(), &["import", "missing.md", "--out", "new"]);
    assert_eq!(code, 1);
    assert!(err.contains("error[K1001]"), "{err}");
    assert!(!dir.path().join("new").exists());
}

/// A FIFO with no writer and a device without end are refused at once, not read forever.
#[test]
fn import_refuses_a_fifo_and_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.md");
    mkfifo(&fifo);
    for (file, what) in [
        (
            fifo.to_str().unwrap(),
            "a FIFO (named pipe), not a regular file",
        ),
        ("/dev/zero", "a character device, not a regular file"),
    ] {
        let (code, _, err) = kcontract(dir.path(), &["import", file, "--out", "new"]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("error[K1001]") && err.contains(what),
            "{file}: {err}"
        );
        assert!(!dir.path().join("new").exists());
    }
}

#[test]
fn a_small_text_imports_as_expected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.md"),
        "# Widgets\n\n## Basics\n\nWidgets are small. The runtime MUST start a widget. \
         Developers MAY stop it, but it SHOULD NOT crash.\n\n- one plain item\n- The container MUST exit.\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
    assert_eq!(code, 0, "{err}");
    let chapter = std::fs::read_to_string(dir.path().join("spec/en/basics.md")).unwrap();
    insta::assert_snapshot!(chapter);
    let contract = std::fs::read_to_string(dir.path().join("spec/contract.yaml")).unwrap();
    assert!(contract.contains("title: \"Widgets\""), "{contract}");
    let (code, out, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Import `tests/fixtures/import/<name>` into a fresh folder with `more` arguments; `check` passes
/// on the result.
fn import_fixture(name: &str, more: &[&str]) -> tempfile::TempDir {
    let path = root().join("tests/fixtures/import").join(name);
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(
        dir.path(),
        &[&["import", path.to_str().unwrap(), "--out", "spec"], more].concat(),
    );
    assert_eq!(code, 0, "import failed:\n{out}\n{err}");
    let (code, out, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(code, 0, "check of the imported {name}:\n{out}\n{err}");
    dir
}

/// Lists, nested lists, numbered steps and tables keep their structure on the page, with each
/// normative statement inside them a clause of its own (none glued to its neighbours).
#[test]
fn lists_steps_and_tables_keep_their_structure() {
    let dir = import_fixture("structured.md", &[]);
    let loaded = kcontract_spec::load(&dir.path().join("spec"));
    assert!(!loaded.has_errors());
    let texts: Vec<(String, String)> = loaded
        .spec
        .clauses
        .iter()
        .map(|c| (c.level.as_str().to_string(), c.text.clone()))
        .collect();
    let head = "| Field | Requirement | Meaning |\n| --- | --- | --- |\n";
    let steps = "To hand a parcel over, a courier MUST follow these steps in order:\n\n\
                 1. Scan the label.\n2. Ask the receiver for a signature.\n\
                 3. Photograph the parcel at the door.";
    let want: Vec<(String, String)> = [
        ("MUST", "The sender MUST print the label in black ink."),
        (
            "MUST NOT",
            "A courier MUST NOT accept a parcel above 30 kg.",
        ),
        ("SHOULD", "A depot SHOULD weigh every parcel twice."),
        ("MAY", "Fragile marks are OPTIONAL."),
        ("MUST", steps),
        ("MAY", "Knock twice; the courier MAY ring the bell instead."),
        (
            "MUST",
            &format!("{head}| `sender` | REQUIRED | who sent it |"),
        ),
        (
            "MAY",
            &format!("{head}| `note` | a depot MAY ignore it | free text |"),
        ),
    ]
    .iter()
    .map(|(l, t)| (l.to_string(), t.to_string()))
    .collect();
    assert_eq!(texts, want);

    // The pages keep the lists, their nesting, the steps' numbers and the table, each clause in
    // its place.
    let (code, out, err) = kcontract(dir.path(), &["build"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let page = |name: &str| {
        let html =
            std::fs::read_to_string(dir.path().join(format!("site/en/{name}.html"))).unwrap();
        let main = html.find("<main").unwrap();
        html[main..].to_string()
    };
    let parcels = page("parcels");
    let clause = "<li><section class=\"clause level-";
    assert!(
        parcels.contains(
            "<ul>\n<li>\n<p>Label: every parcel has a printed label.</p>\n<section class=\"clause level-must "
        ),
        "{parcels}"
    );
    assert!(
        parcels.contains(&format!(
            "<li>\n<p>Weight limits:</p>\n<ul>\n{clause}must-not "
        )),
        "{parcels}"
    );
    assert_eq!(parcels.matches(clause).count(), 3, "{parcels}");
    assert!(parcels.contains("<p>Colour: parcels come in any colour.</p>\n</li>\n</ul>"));
    let handover = page("handover");
    assert!(
        handover.contains(&format!(
            "<ol>\n<li>Confirm the address.</li>\n{clause}may "
        )),
        "{handover}"
    );
    assert!(handover.contains("</section>\n</li>\n<li>Wait a minute.</li>\n</ol>"));
    // The lead-in's clause holds its numbered steps.
    assert!(
        handover.contains("in order:</p>\n<ol>\n<li>Scan the label.</li>"),
        "{handover}"
    );
    let fields = page("fields");
    assert_eq!(fields.matches("<table>").count(), 3, "{fields}");
    // Each table in its frame, which scrolls on a phone rather than breaking its words (#48).
    assert!(
        fields.contains("<div class=\"text\"><div class=\"spec-table\" tabindex=\"0\"><table>"),
        "{fields}"
    );
    assert!(fields.contains("<td><code>colour</code></td>"));
    // Search indexes each clause once, not its YAML inside the list's prose too.
    let index = std::fs::read_to_string(dir.path().join("site/assets/search-en.js")).unwrap();
    assert!(index.contains("A courier MUST NOT accept"), "{index}");
    assert!(!index.contains("verify: manual"), "{index}");
}

/// The actors of the events fixtures.
const ACTORS: &str = "producer,consumer,intermediary,registry";

/// Each clause's id and actor, in order.
fn ids_and_actors(spec: &Path) -> Vec<(String, String)> {
    let loaded = kcontract_spec::load(spec);
    assert!(!loaded.has_errors());
    loaded
        .spec
        .clauses
        .iter()
        .map(|c| (c.id.clone(), c.actor.as_str().to_string()))
        .collect()
}

/// `--actors`: the contract's own vocabulary, each clause bound to the actor its subject names,
/// with no "actor is a guess" note where the subject names one; ids carry no section numbers and
/// no `clause.` prefix.
#[test]
fn own_actors_bind_the_subjects() {
    let dir = import_fixture("events-v1.md", &["--actors", ACTORS]);
    let contract = std::fs::read_to_string(dir.path().join("spec/contract.yaml")).unwrap();
    assert!(
        contract.contains("actors: [producer, consumer, intermediary, registry]"),
        "{contract}"
    );
    let got = ids_and_actors(&dir.path().join("spec"));
    let want = [
        ("introduction.every-party-speak-utf-8", "producer"),
        (
            "identity.producer-include-unique-id-every-event",
            "producer",
        ),
        (
            "identity.intermediaries-forward-events-unchanged",
            "intermediary",
        ),
        ("identity.registry-keep-every-schema-published", "registry"),
        ("retries.consumer-asks-producer-resend-event", "producer"),
        ("consumers.consumers-drop-events-cannot-parse", "consumer"),
        ("consumers.consumer-acknowledge-event-twice", "consumer"),
    ]
    .map(|(i, a)| (i.to_string(), a.to_string()));
    assert_eq!(got, want);
    let (code, _, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(code, 0);
    // Only "Every party" names no actor.
    assert_eq!(err.matches("warning[K0119]").count(), 1, "{err}");
    // Without --actors, the actors are the nouns the subjects name (no Knative word), each
    // clause bound to its own; "Every party" makes `party` one.
    let dir = tempfile::tempdir().unwrap();
    let path = root().join("tests/fixtures/import/events-v1.md");
    let (code, _, err) = kcontract(
        dir.path(),
        &["import", path.to_str().unwrap(), "--out", "spec"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the actors are the nouns the subjects name: consumer (2), producer (2), intermediary (1), party (1), registry (1); 0 clause(s) name none"),
        "{err}"
    );
    let contract = std::fs::read_to_string(dir.path().join("spec/contract.yaml")).unwrap();
    assert!(
        contract
            .contains("actors: [consumer, producer, intermediary, party, registry, unassigned]")
            && contract.contains("verify: [test, manual, untestable]"),
        "{contract}"
    );
    for knative in ["platform", "developer", "container", "model", "conformance"] {
        assert!(!contract.contains(knative), "{knative} in {contract}");
    }
    let (_, _, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(err.matches("warning[K0119]").count(), 0, "{err}");
    let (code, _, err) = kcontract(
        dir.path(),
        &["import", "x.md", "--out", "y", "--actors", "Producer"],
    );
    assert_eq!(code, 2, "{err}");
}

/// A guessed actor's `review:` note says what the subject is: a noun that is not one of the
/// contract's actors is named (it is a candidate for `--actors`); a subject of another shape
/// ("It MUST") names none.
#[test]
fn a_guessed_actor_says_what_the_subject_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.md"),
        "# Widgets\n\n## Wire\n\nThe server MUST accept connections.\n\nIt MUST be short.\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
    assert_eq!(code, 0, "{err}");
    let chapter = std::fs::read_to_string(dir.path().join("spec/en/wire.md")).unwrap();
    // Without a vocabulary: `server` is the text's own actor; "It" names none, and a person
    // decides (the neutral `unassigned`, not another contract's word).
    assert!(
        chapter.contains("actor: server\n") && !chapter.contains("`server` is not one")
            && chapter
                .contains("actor: unassigned\ntext: It MUST be short.\nverify: manual\nreview: \"actor `unassigned` is a guess: the subject names no single actor\""),
        "{chapter}"
    );
    // With a vocabulary that lacks it, the subject is named in the note.
    let (code, _, err) = kcontract(
        dir.path(),
        &["import", "in.md", "--out", "own", "--actors", "client"],
    );
    assert_eq!(code, 0, "{err}");
    let chapter = std::fs::read_to_string(dir.path().join("own/en/wire.md")).unwrap();
    assert!(
        chapter.contains(
            "review: \"actor `client` is a guess: the subject `server` is not one of the contract's actors\""
        ),
        "{chapter}"
    );
}

/// A re-import of a newer version with `--keep-ids-from` keeps the id of each clause whose text
/// is the same or reworded; a new statement gets a new id, never a removed one's.
#[test]
fn a_reimport_keeps_the_ids() {
    let old = import_fixture("events-v1.md", &["--actors", ACTORS]);
    let path = root().join("tests/fixtures/import/events-v2.md");
    let (code, out, err) = kcontract(
        old.path(),
        &[
            "import",
            path.to_str().unwrap(),
            "--out",
            "v2",
            "--actors",
            ACTORS,
            "--keep-ids-from",
            "spec",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("note: 6 of 7 clause(s) kept their id from `spec`"),
        "{err}"
    );
    let ids: Vec<String> = ids_and_actors(&old.path().join("v2"))
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        ids,
        [
            "introduction.every-party-speak-utf-8",
            // "Producers MUST put a unique id into every event": reworded, the same statement.
            "identity.producer-include-unique-id-every-event",
            "identity.producers-sign-every-event",
            "identity.intermediaries-forward-events-unchanged",
            "retries.consumer-asks-producer-resend-event",
            "consumers.consumers-drop-events-cannot-parse",
            "consumers.consumer-acknowledge-event-twice",
        ]
    );
    let (code, out, err) = kcontract(old.path(), &["--spec", "v2", "check"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `--into` a contract `init` made: its vocabulary, new chapter files, their names appended to
/// `chapters:`, every other file as it was; a second import of the same text is refused (K1005),
/// and so is a contract with errors (K1004), both writing nothing.
#[test]
fn import_into_an_init_contract_merges_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(dir.path(), &["init", "c", "--title", "Relay"]);
    assert_eq!(code, 0, "{err}");
    let spec = dir.path().join("c/spec");
    let yaml_before = std::fs::read_to_string(spec.join("contract.yaml")).unwrap();
    let intro_before = std::fs::read_to_string(spec.join("en/introduction.md")).unwrap();
    let path = root().join("tests/fixtures/import/events-v1.md");
    let file = path.to_str().unwrap();
    let (code, out, err) = kcontract(dir.path(), &["import", file, "--into", "c/spec"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("merged: new files en/introduction-0.md, en/producers.md, en/consumers.md"),
        "{out}"
    );
    let yaml = std::fs::read_to_string(spec.join("contract.yaml")).unwrap();
    assert_eq!(
        yaml,
        yaml_before.replace(
            "  - introduction\n",
            "  - introduction\n  - introduction-0\n  - producers\n  - consumers\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(spec.join("en/introduction.md")).unwrap(),
        intro_before
    );
    let (code, out, err) = kcontract(dir.path(), &["--spec", "c/spec", "check"]);
    assert_eq!(code, 0, "{out}{err}");
    // The contract's actors (`implementation`, `user`) are what the clauses may name.
    let actors: Vec<String> = ids_and_actors(&spec).into_iter().map(|(_, a)| a).collect();
    assert!(
        actors.iter().all(|a| a == "implementation" || a == "user"),
        "{actors:?}"
    );

    let (code, _, again) = kcontract(dir.path(), &["import", file, "--into", "c/spec"]);
    assert_eq!(code, 1);
    assert_eq!(
        std::fs::read_to_string(spec.join("contract.yaml")).unwrap(),
        yaml
    );
    std::fs::remove_file(spec.join("en/consumers.md")).unwrap();
    let (code, _, broken) = kcontract(dir.path(), &["import", file, "--into", "c/spec"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(format!("{again}\n{broken}"));
}

/// A spec folder in a fresh temporary folder: a one-chapter contract ("Parcels", the actor
/// `courier`) in `languages` (a YAML list), and a writer of its other files by relative path.
fn parcels(languages: &str) -> (tempfile::TempDir, impl Fn(&str, &str)) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let write = move |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "spec/contract.yaml",
        &format!(
            "title: Parcels\nversion: 0.1.0\nlanguages: {languages}\nchapters: [one]\n\
             actors: [courier]\nverify: [manual]\n"
        ),
    );
    (dir, write)
}

/// A clause block in a list item is translated like any other (its translation sits in the same
/// item of the translated list, `i18n stamp` finds it), and each language's page shows it in its
/// place.
#[test]
fn a_clause_in_a_list_item_is_translated_in_place() {
    let (dir, write) = parcels("[en, zh]");
    write(
        "spec/en/one.md",
        "# One\n\n- Weight:\n  - ```clause\n    id: one.heavy\n    level: MUST NOT\n    actor: courier\n    \
         text: A courier MUST NOT accept a parcel above 30 kg.\n    verify: manual\n    ```\n  - Colour: any.\n",
    );
    write(
        "spec/zh/one.md",
        "# 一\n\n- 重量：\n  - ```clause\n    id: one.heavy\n    \
         text: 快递员不得（MUST NOT）接受超过 30 公斤的包裹。\n    source: 000000000000\n    ```\n  - 颜色：任意。\n",
    );
    let (code, _, err) = kcontract(dir.path(), &["i18n", "stamp", "one.heavy"]);
    assert_eq!(code, 0, "{err}");
    let zh = std::fs::read_to_string(dir.path().join("spec/zh/one.md")).unwrap();
    assert!(
        !zh.contains("000000000000") && zh.contains("\n    source: "),
        "{zh}"
    );
    let (code, out, err) = kcontract(dir.path(), &["check", "--strict"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = kcontract(dir.path(), &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    for (lang, item, text) in [
        ("en", "<li>Weight:", "A courier <strong"),
        ("zh", "<li>重量：", "快递员不得（<strong"),
    ] {
        let page =
            std::fs::read_to_string(dir.path().join(format!("site/{lang}/one.html"))).unwrap();
        let at = page.find(item).unwrap_or_else(|| panic!("{page}"));
        let rest = &page[at..];
        assert!(
            rest.starts_with(&format!(
                "{item}\n<ul>\n<li><section class=\"clause level-must-not"
            )),
            "{rest}"
        );
        assert!(rest.contains(text), "{rest}");
        // Shown once, in the list.
        assert_eq!(page.matches("id=\"one.heavy\"").count(), 1, "{page}");
    }
}

/// A list that holds a clause block and the spec's own inline HTML: the sanitizer cleans the
/// spec's HTML (its script goes) but never kcontract's clause markup in the list (its section,
/// header, classes and aria attributes stay).
#[test]
fn a_clause_in_a_list_with_inline_html_keeps_its_markup() {
    let (dir, write) = parcels("[en]");
    write(
        "spec/en/one.md",
        "# One\n\n- Weight in kg<sup>1</sup>:\n  - ```clause\n    id: one.heavy\n    level: MUST NOT\n    actor: courier\n    \
         text: A courier MUST NOT accept a parcel above 30 kg.\n    verify: manual\n    ```\n  - Colour: any.<script>alert(1)</script>\n",
    );
    let (code, out, err) = kcontract(dir.path(), &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = std::fs::read_to_string(dir.path().join("site/en/one.html")).unwrap();
    assert!(page.contains("Weight in kg<sup>1</sup>:"), "{page}");
    assert!(!page.contains("alert(1)"), "{page}");
    assert!(
        page.contains("<li><section class=\"clause level-must-not")
            && page.contains("aria-labelledby=\"one.heavy-h\""),
        "{page}"
    );
    assert!(!page.contains('\u{E000}'), "{page}");
}

/// A table row names a case in its first cell and the requirement in the next: "| receiver gone |
/// a relay MUST drop |" binds `relay` (the subject is in the keyword's cell), with no note; the
/// control: a sentence whose subject really names two actors stays a guess, and its note says so
/// (not that an actor of the contract is none of its actors).
#[test]
fn a_table_rows_subject_is_in_the_keywords_cell() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.md"),
        "# Relay\n\n## Rules\n\nA relay MUST forward.\n\nA receiver MUST answer.\n\n\
         | Case | Rule |\n| --- | --- |\n| receiver gone | a relay MUST drop the message |\n\n\
         The relay and the receiver MUST agree.\n",
    )
    .unwrap();
    let (code, _, err) = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
    assert_eq!(code, 0, "{err}");
    let chapter = std::fs::read_to_string(dir.path().join("spec/en/rules.md")).unwrap();
    let block = |needle: &str| {
        let at = chapter
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}: {chapter}"));
        let start = chapter[..at].rfind("```clause").unwrap();
        let end = at + chapter[at..].find("```").unwrap();
        chapter[start..end].to_string()
    };
    let row = block("a relay MUST drop");
    assert!(
        row.contains("actor: relay\n") && !row.contains("review:"),
        "{row}"
    );
    let both = block("MUST agree");
    assert!(
        both.contains("actor: unassigned\n")
            && both.contains("is a guess: the subject names more than one actor"),
        "{both}"
    );
    assert!(
        !chapter.contains("is not one of the contract's actors"),
        "{chapter}"
    );
}

/// A NUL byte is refused with its line and column, and nothing is written; lone carriage returns
/// (old Mac line ends) are line ends, with a warning at the first, and the imported spec passes
/// `check` (it failed with K0005 and K0101 when both went into the chapters; issue #50, item 7).
#[test]
fn nul_is_refused_and_a_lone_carriage_return_is_a_line_end() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("nul.md"),
        "# T\n\nThe runtime MUST\0 stop.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("cr.md"),
        "# T\n\nA line\rwith a CR. It MUST go.\n\n## S\n\nx\rThe runtime MUST stop.\r",
    )
    .unwrap();
    let (code, out, nul) = kcontract(dir.path(), &["import", "nul.md", "--out", "a"]);
    assert_eq!(code, 1, "{out}{nul}");
    assert!(!dir.path().join("a").exists());
    let (code, out, cr) = kcontract(dir.path(), &["import", "cr.md", "--out", "b"]);
    assert_eq!(code, 0, "{out}{cr}");
    let (code, out, err) = kcontract(dir.path(), &["--spec", "b", "check"]);
    assert_eq!(code, 0, "{out}{err}");
    for f in std::fs::read_dir(dir.path().join("b/en")).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        assert!(!text.contains('\r'), "{text}");
    }
    let cr: String = cr
        .lines()
        .take_while(|l| !l.starts_with("note:"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(format!("{nul}\n{cr}"));
}

/// `languages: [en, en]` is one error at the second `en` (K0010), not a translation of the source
/// into itself with an error for every field of every clause; `import --into` shows just that.
#[test]
fn a_language_listed_twice_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(dir.path(), &["init", "c", "--title", "Relay"]);
    assert_eq!(code, 0, "{err}");
    let yaml = dir.path().join("c/spec/contract.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    assert!(text.contains("languages: [en]"), "{text}");
    std::fs::write(
        &yaml,
        text.replace("languages: [en]", "languages: [en, en]"),
    )
    .unwrap();
    let (code, _, err) = kcontract(dir.path(), &["--spec", "c/spec", "check"]);
    assert_eq!(code, 1);
    assert_eq!(err.matches("error[").count(), 1, "{err}");
    assert!(
        err.contains("error[K0010]: language `en` is listed twice"),
        "{err}"
    );
    let file = root().join("tests/fixtures/import/events-v1.md");
    let (code, _, err) = kcontract(
        dir.path(),
        &["import", file.to_str().unwrap(), "--into", "c/spec"],
    );
    assert_eq!(code, 1);
    assert_eq!(err.matches("error[").count(), 2, "{err}");
    assert!(err.contains("error[K1004]"), "{err}");
}

/// Two documents imported together with `--into` keep their links to each other: a link to the
/// other file lands on its first chapter, a link to a section of it (inline, or a reference
/// definition) on the chapter holding that section; a link to a file not imported keeps its words
/// and is named; a local image is copied into the spec's `images/`, which `check` accepts and the
/// site publishes (issue #49, item 4). One at a time, the first document's links to the second
/// (not imported yet) lose their targets.
#[test]
fn documents_imported_together_keep_their_links_to_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(dir.path(), &["init", "c", "--title", "Relay"]);
    assert_eq!(code, 0, "{err}");
    let fixture = root().join("tests/fixtures/import/together");
    let (messages, fields) = (fixture.join("messages.md"), fixture.join("fields.md"));
    let (m, f) = (messages.to_str().unwrap(), fields.to_str().unwrap());
    let (code, out, err) = kcontract(dir.path(), &["import", m, f, "--into", "c/spec"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "new files en/delivery.md, en/acknowledgement.md, en/priority.md, en/identity.md"
        ),
        "{out}"
    );
    let read =
        |name: &str| std::fs::read_to_string(dir.path().join("c/spec/en").join(name)).unwrap();
    let delivery = read("delivery.md");
    assert!(
        delivery.contains("[the priority field](priority.md#priority)"),
        "{delivery}"
    );
    assert!(delivery.contains("[the fields](priority.md)"), "{delivery}");
    assert!(read("priority.md").contains("[d]: delivery.md#delivery"));
    let ack = read("acknowledgement.md");
    assert!(ack.contains("[delivery](delivery.md#delivery)"), "{ack}");
    assert!(ack.contains("See also the glossary, which"), "{ack}");
    // The local image is copied into the spec's images/ and shown from there.
    assert!(
        delivery.contains("![The message flow](../images/flow.png)"),
        "{delivery}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("c/spec/images/flow.png")).unwrap(),
        std::fs::read(fixture.join("flow.png")).unwrap()
    );
    assert!(err.contains("1 image(s) copied into `images/`"), "{err}");
    assert!(
        err.contains(
            "kept only their words, their targets being outside the new spec: glossary.md#relay"
        ),
        "{err}"
    );
    let (code, out, err) = kcontract(dir.path(), &["--spec", "c/spec", "check"]);
    assert_eq!(code, 0, "{out}{err}");
    // The site publishes the image where the chapter page's link lands.
    let (code, out, err) = kcontract(dir.path(), &["--spec", "c/spec", "build", "--out", "site"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(dir.path().join("site/images/flow.png").is_file());
    let page = std::fs::read_to_string(dir.path().join("site/en/delivery.html")).unwrap();
    assert!(
        page.contains(r#"<img src="../images/flow.png" alt="The message flow""#),
        "{page}"
    );
    // An image the spec does not have is K0118 (the negative control of check's acceptance).
    std::fs::remove_file(dir.path().join("c/spec/images/flow.png")).unwrap();
    let (code, _, err) = kcontract(dir.path(), &["--spec", "c/spec", "check"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[K0118]: the link `../images/flow.png` names no image of the spec"),
        "{err}"
    );

    // One at a time: messages.md's links to fields.md keep only their words.
    let apart = tempfile::tempdir().unwrap();
    kcontract(apart.path(), &["init", "c", "--title", "Relay"]);
    let (code, _, err) = kcontract(apart.path(), &["import", m, "--into", "c/spec"]);
    assert_eq!(code, 0, "{err}");
    let delivery = std::fs::read_to_string(apart.path().join("c/spec/en/delivery.md")).unwrap();
    assert!(!delivery.contains("priority.md"), "{delivery}");

    // Several files are for --into only (a usage error otherwise).
    let (code, _, err) = kcontract(dir.path(), &["import", m, f, "--out", "x"]);
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("x").exists());
}

/// Every input of an import is read and each problem reported, not only the first: a missing
/// text, a contract to import into with errors, in one run (issue #49, item 6).
#[test]
fn every_problem_of_an_import_is_reported_together() {
    let dir = tempfile::tempdir().unwrap();
    kcontract(dir.path(), &["init", "c", "--title", "Relay"]);
    let yaml = dir.path().join("c/spec/contract.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        text.replace("languages: [en]", "languages: [en, en]"),
    )
    .unwrap();
    let good = root().join("tests/fixtures/import/together/fields.md");
    let (code, _, err) = kcontract(
        dir.path(),
        &[
            "import",
            "missing.md",
            good.to_str().unwrap(),
            "nul.md",
            "--into",
            "c/spec",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(err.matches("error[K1001]").count(), 2, "{err}");
    assert!(
        err.contains("error[K0010]") && err.contains("error[K1004]"),
        "{err}"
    );
}

//! A contract's own vocabulary (`actors`, `verify`, `links` in contract.yaml), `init`, and the
//! diagnostics of both and of `import` (snapshots, reviewed like code).

use std::path::Path;

use crate::common::cli::{copy_dir, kcontract, root};

/// `kcontract ARGS` in `dir`, as the snapshots show it.
fn shown(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = kcontract(dir, args);
    format!("exit: {code}\n--- stdout\n{out}--- stderr\n{err}")
}

/// A folder holding `files`.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// The fixture with its own actors, verify kinds, link bases and three languages builds, and the
/// site shows its labels and links.
#[test]
fn a_contract_with_its_own_vocabulary_and_three_languages_builds() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/vocab"), dir.path());
    let (code, out, err) = kcontract(dir.path(), &["check", "--strict"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("actor   runtime 2 · caller 1"), "{out}");
    assert!(out.contains("verify  harness 2 · untestable 1"), "{out}");
    let (code, out, err) = kcontract(dir.path(), &["build", "--templates", "templates"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = |lang: &str| {
        std::fs::read_to_string(dir.path().join(format!("site/{lang}/lifecycle.html"))).unwrap()
    };
    let (en, zh, fr) = (page("en"), page("zh"), page("fr"));
    assert!(
        en.contains(">OCI runtime</span>") && en.contains(">runtime harness</span>"),
        "{en}"
    );
    assert!(zh.contains(">运行时</span>") && zh.contains(">调用者</span>"));
    assert!(fr.contains(">runtime OCI</span>") && fr.contains(">banc d&#39;essai</span>"));
    // A word without a label in a language shows its name.
    assert!(fr.contains(">untestable</span>"));
    assert!(
        en.contains("https://github.com/opencontainers/runtime-spec/blob/v1.3.0/runtime.md#kill")
    );
    assert!(en.contains(
        "runtime-tools validation: </strong><a href=\"https://example.org/oci-tests/validation/create.go\">"
    ));
    assert!(zh.contains("runtime-tools 验证"));
    // No upstream: no attribution in the footer, and no Knative wording anywhere.
    assert!(!en.contains("Knative"));
    let matrix = std::fs::read_to_string(dir.path().join("site/en/matrix.html")).unwrap();
    assert!(
        matrix.contains("<option value=\"caller\">caller</option>"),
        "{matrix}"
    );
    assert!(!matrix.contains("value=\"platform\""));
}

/// Vocabulary problems in contract.yaml, and names a clause uses that the contract lacks.
#[test]
fn k0014_bad_vocabulary() {
    let dir = folder(&[
        (
            "spec/contract.yaml",
            "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nactors: [runtime, Runtime, runtime]\nverify: []\n",
        ),
        ("spec/en/one.md", "# One\n"),
    ]);
    insta::assert_snapshot!(shown(dir.path(), &["check"]));
}

#[test]
fn k0110_k0111_names_from_the_contract() {
    let dir = folder(&[
        (
            "spec/contract.yaml",
            "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nactors: [runtime, caller]\nverify: [harness]\n",
        ),
        (
            "spec/en/one.md",
            "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\nverify: model\ntext: It MUST.\n```\n",
        ),
    ]);
    insta::assert_snapshot!(shown(dir.path(), &["check"]));
}

/// A `review:` note: a warning, an error under --strict; it allows two levels meanwhile.
#[test]
fn k0119_review_note() {
    let dir = folder(&[
        (
            "spec/contract.yaml",
            "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\n",
        ),
        (
            "spec/en/one.md",
            "# One\n\n```clause\nid: one.a\nlevel: MUST\nactor: platform\nverify: manual\nreview: \"holds 2 levels (MUST, MAY): split it\"\ntext: It MUST start and MAY stop.\n```\n",
        ),
    ]);
    insta::assert_snapshot!(shown(dir.path(), &["check", "--strict"]));
    let (code, _, err) = kcontract(dir.path(), &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning[K0119]"));
    assert!(!err.contains("K0106"));
}

#[test]
fn k1001_k1002_k1003_import_and_init_failures() {
    let dir = folder(&[("in.md", "# T\n\nIt MUST.\n"), ("full/x", "mine")]);
    let mut all = shown(dir.path(), &["import", "nothing.md", "--out", "new"]);
    all += &shown(dir.path(), &["import", "in.md", "--out", "full"]);
    all += &shown(dir.path(), &["init", "full"]);
    all += &shown(dir.path(), &["import", "in.md", "--out", "in.md/spec"]);
    insta::assert_snapshot!(all);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("full/x")).unwrap(),
        "mine"
    );
    assert!(!dir.path().join("new").exists());
}

/// `init` into an empty folder: `check` and `build` pass at once, in one language and in three.
#[test]
fn init_then_check_and_build() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(dir.path(), &["init", "c"]);
    assert_eq!(code, 0, "{out}{err}");
    let c = dir.path().join("c");
    let (code, out, err) = kcontract(&c, &["check", "--strict"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err, "");
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(c.join("site/index.html").is_file());
    assert!(c.join("README.md").is_file());

    let (code, out, err) = kcontract(
        dir.path(),
        &[
            "init",
            "three",
            "--languages",
            "en,zh,fr",
            "--title",
            "Three",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    // zh has built-in interface text: no file for it; fr gets one.
    assert!(out.contains("created three (6 files):\n"), "{out}");
    assert!(!out.contains("i18n/zh.yaml"), "{out}");
    assert!(out.contains("\n  templates/i18n/fr.yaml"), "{out}");
    let three = dir.path().join("three");
    // The translations are stubs (the source text, stamped) until translated: missing, so a
    // warning each, and errors under --strict.
    let (code, out, err) = kcontract(&three, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err.matches("warning[K0301]").count(), 2, "{err}");
    assert_eq!(kcontract(&three, &["check", "--strict"]).0, 1);
    let (code, out, err) = kcontract(&three, &["build", "--templates", "templates"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(three.join("site/fr/introduction.html").is_file());

    // An empty folder is fine; a bad language is a usage error.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    assert_eq!(kcontract(dir.path(), &["init", "empty"]).0, 0);
    assert_eq!(
        kcontract(dir.path(), &["init", "x", "--languages", "EN"]).0,
        2
    );
}

/// `init --languages en,de` then `build`, with no other step (issue #37): the interface file init
/// wrote beside the spec folder is found without `--templates`; without it, the pages show the
/// English labels and the build warns (K0404) instead of failing.
#[test]
fn init_a_new_language_then_build() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(
        dir.path(),
        &["init", "c", "--title", "Widget API", "--languages", "en,de"],
    );
    assert_eq!(code, 0, "{out}{err}");
    // Every file is named with what it is, and the ones to translate are said to be.
    insta::assert_snapshot!(out, @r"
    created c (5 files):
      spec/contract.yaml       the table of contents: title, languages, chapters, vocabulary
      spec/en/introduction.md  the first chapter, in en (the source language)
      spec/de/introduction.md  the first chapter in de: a stub of the source, to translate
      templates/i18n/de.yaml   the site's interface text in de (labels, buttons), copied from English, to translate
      README.md                a short guide to these files and the commands
    next: translate spec/de/introduction.md, templates/i18n/de.yaml (README.md says how); cd c && kcontract check && kcontract build
    ");
    let c = dir.path().join("c");
    let readme = std::fs::read_to_string(c.join("README.md")).unwrap();
    assert!(
        readme.contains("- `templates/i18n/de.yaml`: the site's interface text in de"),
        "{readme}"
    );
    assert!(
        readme.contains("- Translations: `spec/<lang>/` of de"),
        "{readme}"
    );
    // The copy says whose it is and that it is English still, not "in English" as its own text.
    let yaml = std::fs::read_to_string(c.join("templates/i18n/de.yaml")).unwrap();
    assert!(
        yaml.starts_with("# Interface text of the site in `de`:"),
        "{yaml}"
    );
    assert!(yaml.contains("COPIED IT FROM ENGLISH"), "{yaml}");
    assert!(!yaml.contains("in English"), "{yaml}");
    assert!(
        yaml.contains("\nname: \"de\"     # TO TRANSLATE: `de`'s own name"),
        "{yaml}"
    );
    assert!(yaml.contains("\nhtml_lang: \"de\""), "{yaml}");
    std::fs::write(
        c.join("templates/i18n/de.yaml"),
        std::fs::read_to_string(c.join("templates/i18n/de.yaml"))
            .unwrap()
            .replace("\"Clause index\"", "\"Klauselverzeichnis\""),
    )
    .unwrap();
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("K0404"), "{err}");
    let de = std::fs::read_to_string(c.join("site/de/introduction.html")).unwrap();
    assert!(
        de.contains(">Klauselverzeichnis</a>"),
        "the folder's interface text is used"
    );

    std::fs::remove_dir_all(c.join("templates")).unwrap();
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("warning[K0404]"), "{err}");
    assert!(c.join("site/de/introduction.html").is_file());
}

/// `--spec` is global, so clap takes it on every command; the ones that read no spec folder
/// refuse it (exit 2, with what to give instead) rather than ignore it, before or after the
/// command's name. Nothing is written.
#[test]
fn commands_that_read_no_spec_folder_refuse_spec() {
    let dir = folder(&[("in.md", "# T\n\nIt MUST.\n"), ("trace.json", "{}")]);
    let mut all = String::new();
    for args in [
        &["--spec", "custom", "init", "i6"][..],
        &["init", "i6", "--spec", "custom"],
        &["import", "--spec", "whatever", "in.md", "--out", "i7"],
        &["--spec", "s", "explain", "K0104"],
        &["--spec", "s", "model", "replay", "trace.json"],
        &[
            "--spec",
            "s",
            "conformance",
            "run",
            "--runtime",
            "runc",
            "trace.json",
        ],
        &["--spec", "s", "platform", "image", "--out", "probe.tar"],
    ] {
        let (code, out, err) = kcontract(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        all += &format!("$ kcontract {}\n{err}", args.join(" "));
    }
    insta::assert_snapshot!(all);
    for made in ["i6", "custom", "i7", "whatever", "probe.tar"] {
        assert!(!dir.path().join(made).exists(), "{made}");
    }
    // A command that reads the spec folder still takes it.
    assert_eq!(kcontract(dir.path(), &["init", "c"]).0, 0);
    let (code, out, err) = kcontract(dir.path(), &["--spec", "c/spec", "list"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("intro.reject-unparsable"), "{out}");
}

/// `import` without arguments names both ways to give the folder in its usage line.
#[test]
fn import_usage_names_out_and_into() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = kcontract(dir.path(), &["import"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Usage: kcontract import <--out <DIR>|--into <DIR>> <FILE>"),
        "{err}"
    );
    let (code, _, err) = kcontract(dir.path(), &["import", "a.md", "--out", "x", "--into", "y"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}

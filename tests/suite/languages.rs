//! A new language with kcontract alone (issue #37, finding 5): `i18n add` mirrors the source's
//! chapters as stubs and lists the language; a chapter file a language lacks is a missing
//! translation, not an error; what a translation has not translated yet is shown from the source
//! under a banner; `i18n status` counts prose; `check` fails where `build` would.

use std::path::{Path, PathBuf};

use crate::common::cli::kcontract;

/// A two-chapter contract made by `init`, its second chapter with sections, prose, a clause in
/// each section and a reference link.
fn contract() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(dir.path(), &["init", "c"]);
    assert_eq!(code, 0, "{out}{err}");
    let c = dir.path().join("c");
    let yaml = c.join("spec/contract.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap().replace(
        "chapters:\n  - introduction\n",
        "chapters:\n  - introduction\n  - a-chapter-name-longer-than-the-columns\n",
    );
    std::fs::write(&yaml, text).unwrap();
    std::fs::write(
        c.join("spec/en/a-chapter-name-longer-than-the-columns.md"),
        "# Second\n\nOpening prose with [a link][rfc].\n\n## Part one\n\nPart one prose.\n\n\
         ```clause\nid: second.one\nlevel: SHOULD\nactor: user\nverify: manual\ntext: The user SHOULD do one.\n```\n\n\
         ## Part two\n\nPart two prose.\n\nAnother paragraph.\n\n\
         ```clause\nid: second.two\nlevel: MAY\nactor: user\nverify: manual\ntext: The user MAY do two.\n```\n\n\
         [rfc]: https://example.org/rfc\n",
    )
    .unwrap();
    (dir, c)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const SECOND: &str = "a-chapter-name-longer-than-the-columns";

#[test]
fn i18n_add_mirrors_every_chapter_and_lists_the_language() {
    let (_dir, c) = contract();
    let (code, out, err) = kcontract(&c, &["i18n", "add", "de"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("added de to the languages"), "{out}");
    assert!(
        read(&c.join("spec/contract.yaml")).contains("languages: [en, de]\n"),
        "{}",
        read(&c.join("spec/contract.yaml"))
    );
    // Headings as written, a stub of each clause with its source stamp, no prose.
    let de = read(&c.join(format!("spec/de/{SECOND}.md")));
    let stamp = kcontract_spec::stamp("The user SHOULD do one.");
    assert!(
        de.ends_with(&format!(
            "# Second\n\n## Part one\n\n```clause\nid: second.one\ntext: The user SHOULD do one.\nsource: {stamp}\n```\n\n\
             ## Part two\n\n```clause\nid: second.two\ntext: The user MAY do two.\nsource: {}\n```\n",
            kcontract_spec::stamp("The user MAY do two.")
        )),
        "{de}"
    );
    assert!(c.join("spec/de/introduction.md").is_file());
    assert!(c.join("templates/i18n/de.yaml").is_file());
    // The interface text is copied from English, and the person is told to translate it.
    assert!(
        out.contains("next: translate templates/i18n/de.yaml, the site's interface text in de, copied from English"),
        "{out}"
    );
    assert!(read(&c.join("templates/i18n/de.yaml")).contains("COPIED IT FROM ENGLISH"));
    // The stubs are missing translations (warnings), not errors; build needs no other step.
    let (code, out, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err.matches("warning[K0301]").count(), 3, "{err}");
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = read(&c.join(format!("site/de/{SECOND}.html")));
    assert!(
        page.contains("<div class=\"untranslated\" lang=\"en\">"),
        "{page}"
    );
    assert!(page.contains("<p>Part one prose.</p>"), "{page}");
    assert!(
        page.contains("<a href=\"https://example.org/rfc\">a link</a>"),
        "{page}"
    );
    // Run again: nothing is overwritten, nothing to add.
    let (code, out, _) = kcontract(&c, &["i18n", "add", "de"]);
    assert_eq!(code, 0);
    assert!(out.contains("de has every chapter file"), "{out}");
    assert_eq!(read(&c.join(format!("spec/de/{SECOND}.md"))), de);
    // The source language and a bad tag are usage errors.
    assert_eq!(kcontract(&c, &["i18n", "add", "en"]).0, 2);
    assert_eq!(kcontract(&c, &["i18n", "add", "De"]).0, 2);
}

/// A block list of languages gets a new `- de` line.
#[test]
fn i18n_add_extends_a_block_list() {
    let (_dir, c) = contract();
    let yaml = c.join("spec/contract.yaml");
    let text = read(&yaml).replace("languages: [en]\n", "languages:\n  - en # the source\n");
    std::fs::write(&yaml, text).unwrap();
    let (code, out, err) = kcontract(&c, &["i18n", "add", "zh"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        read(&yaml).contains("languages:\n  - en # the source\n  - zh\n"),
        "{}",
        read(&yaml)
    );
    // zh has built-in interface text: no file for it.
    assert!(!c.join("templates/i18n/zh.yaml").exists());
    assert_eq!(kcontract(&c, &["check"]).0, 0);
}

/// A chapter file a language lacks: a warning (an error under --strict), and its page shows the
/// source chapter under the banner. `i18n add` writes just that file.
#[test]
fn a_missing_chapter_file_is_a_missing_translation() {
    let (_dir, c) = contract();
    assert_eq!(kcontract(&c, &["i18n", "add", "de"]).0, 0);
    let file = c.join(format!("spec/de/{SECOND}.md"));
    std::fs::remove_file(&file).unwrap();
    let (code, out, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains(&format!(
            "warning[K0310]: chapter `{SECOND}` has no `de` translation"
        )),
        "{err}"
    );
    assert!(
        !err.contains("`second.one` has no `de` translation"),
        "one warning for the chapter: {err}"
    );
    assert_eq!(kcontract(&c, &["check", "--strict"]).0, 1);
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = read(&c.join(format!("site/de/{SECOND}.html")));
    assert!(
        page.contains("<h1 id=\"second\""),
        "the source's headings: {page}"
    );
    assert!(page.contains("<p>Another paragraph.</p>"), "{page}");
    assert!(page.contains("id=\"second.two\""), "{page}");
    let (code, out, _) = kcontract(&c, &["i18n", "add", "de"]);
    assert_eq!(code, 0);
    assert_eq!(
        out.lines().next(),
        Some(
            format!(
                "wrote {}",
                Path::new("spec/de").join(format!("{SECOND}.md")).display()
            )
            .as_str()
        )
    );
}

/// A translated heading without its prose shows the source's prose under the banner; a section the
/// translation does not have shows the source's heading and prose; translated prose shows no
/// banner. `i18n status` counts the paragraphs, its columns aligned past a long chapter name.
#[test]
fn untranslated_parts_are_shown_from_the_source_and_counted() {
    let (_dir, c) = contract();
    assert_eq!(kcontract(&c, &["i18n", "add", "zh"]).0, 0);
    std::fs::write(
        c.join(format!("spec/zh/{SECOND}.md")),
        format!(
            "# 第二\n\n开头的说明。\n\n## 第一部分\n\n```clause\nid: second.one\ntext: 用户应当（SHOULD）做一。\nsource: {}\n```\n",
            kcontract_spec::stamp("The user SHOULD do one.")
        ),
    )
    .unwrap();
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = read(&c.join(format!("site/zh/{SECOND}.html")));
    let main = &page[page.find("<main").unwrap()..];
    let banner = "<div class=\"untranslated\" lang=\"en\"><p class=\"untranslated-note\" lang=\"zh\">尚未翻译：此部分以原文显示</p>";
    assert_eq!(main.matches(banner).count(), 2, "{main}");
    let at = |s: &str| main.find(s).unwrap_or_else(|| panic!("{s} in {main}"));
    assert!(at("<p>开头的说明。</p>") < at("第一部分"));
    // Part one: translated heading, the source's prose under the banner, then the clause.
    assert!(at("第一部分") < at("<p>Part one prose.</p>"));
    assert!(at("<p>Part one prose.</p>") < at("id=\"second.one\""));
    // Part two: the source's heading (its id kept), its prose, its clause not yet translated.
    assert!(at("id=\"second.one\"") < at("<h2 id=\"part-two\""));
    assert!(at("<h2 id=\"part-two\"") < at("<p>Another paragraph.</p>"));
    assert!(at("<p>Another paragraph.</p>") < at("id=\"second.two\""));
    // The sidebar lists both sections.
    assert!(page.contains("href=\"#part-two\""), "{page}");

    let (code, out, err) = kcontract(&c, &["i18n", "status"]);
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1..],
        [
            "  CHAPTER                                CLAUSES CURRENT   STALE MISSING PARAGRAPHS UNTRANSLATED",
            "  introduction                                 1       0       0       1          1            1",
            "  a-chapter-name-longer-than-the-columns       2       1       0       1          4            3",
            "  total                                        3       1       0       2          5            4   33.3% of clauses current, 20.0% of paragraphs translated",
        ],
        "{out}"
    );
}

/// `check` reports what would make `build` fail: a template that does not compile and an
/// interface text file that is not valid, in the templates folder beside the spec.
#[test]
fn check_fails_where_build_would() {
    let (_dir, c) = contract();
    assert_eq!(kcontract(&c, &["i18n", "add", "de"]).0, 0);
    let yaml = c.join("templates/i18n/de.yaml");
    std::fs::write(&yaml, "name: Deutsch\n").unwrap();
    let (code, _, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0405]"), "{err}");
    assert_eq!(kcontract(&c, &["build"]).0, 1);
    std::fs::remove_file(&yaml).unwrap();
    std::fs::write(c.join("templates/chapter.html"), "{% if %}").unwrap();
    let (code, _, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[K0403]"), "{err}");
    assert_eq!(kcontract(&c, &["build"]).0, 1);
    // Without the interface file: build falls back to English with a warning, and so does check.
    std::fs::remove_file(c.join("templates/chapter.html")).unwrap();
    let (code, _, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning[K0404]"), "{err}");
}

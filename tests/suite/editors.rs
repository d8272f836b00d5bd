//! The editors' smaller papercuts (issue #37, finding 7): `fmt --check` shows its diff; `diff` says
//! what prose changed and names chapters and languages added or removed; K0304's example is in the
//! translation's own language; a YAML slip is reported where it is and in the editor's words.

use std::path::{Path, PathBuf};

use crate::common::cli::kcontract;

fn init(dir: &Path, name: &str, langs: &str) -> PathBuf {
    let (code, out, err) = kcontract(dir, &["init", name, "--languages", langs]);
    assert_eq!(code, 0, "{out}{err}");
    dir.join(name)
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} in {text}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn fmt_check_prints_a_unified_diff() {
    let dir = tempfile::tempdir().unwrap();
    let c = init(dir.path(), "c", "en,de");
    // What init and i18n add write is formatted already.
    assert_eq!(kcontract(&c, &["i18n", "add", "fr"]).0, 0);
    let (code, out, err) = kcontract(&c, &["fmt", "--check"]);
    assert_eq!(code, 0, "{out}{err}");
    let chapter = c.join("spec/en/introduction.md");
    edit(&chapter, "text: The", "text:   The");
    let (code, out, err) = kcontract(&c, &["fmt", "--check"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("--- a/spec/en/introduction.md\n+++ b/spec/en/introduction.md\n@@ "),
        "{out}"
    );
    assert!(out.contains("\n-text:   The implementation MUST"), "{out}");
    assert!(out.contains("\n+text: The implementation MUST"), "{out}");
    assert!(err.contains("error[K0802]"), "{err}");
    // Formatted: nothing to show.
    assert_eq!(kcontract(&c, &["fmt"]).0, 0);
    let (code, out, _) = kcontract(&c, &["fmt", "--check"]);
    assert_eq!(code, 0);
    assert!(!out.contains("---"), "{out}");
}

#[test]
fn diff_says_what_prose_changed_and_names_chapters_and_languages() {
    let dir = tempfile::tempdir().unwrap();
    init(dir.path(), "old", "en");
    let new = init(dir.path(), "new", "en");
    let long = "A long paragraph ".repeat(10);
    edit(
        &new.join("spec/en/introduction.md"),
        "What this contract covers, for whom, and why.",
        &format!("What this contract covers and why.\n\n{long}"),
    );
    edit(
        &new.join("spec/contract.yaml"),
        "chapters:\n  - introduction\n",
        "chapters:\n  - introduction\n  - scope\n",
    );
    std::fs::write(new.join("spec/en/scope.md"), "# Scope\n\nWhat is in.\n").unwrap();
    let (code, out, err) = kcontract(&new, &["i18n", "add", "de"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = kcontract(
        dir.path(),
        &["diff", "old/spec", "new/spec", "--format", "terminal"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\nlanguage added: de\nchapter added: scope\n"),
        "{out}"
    );
    // Not one "translation" change per clause of the new language.
    assert!(out.contains("no clause changed"), "{out}");
    assert!(
        out.contains("    - What this contract covers, for whom, and why. Informative text"),
        "{out}"
    );
    assert!(
        out.contains("    + What this contract covers and why.\n"),
        "{out}"
    );
    // A long line is cut.
    assert!(out.contains(&format!("    + {}…\n", &long[..100])), "{out}");
    assert!(
        out.contains("  scope (en)  +2 -0\n    + # Scope\n    + What is in.\n"),
        "{out}"
    );

    let (_, md, _) = kcontract(
        dir.path(),
        &["diff", "old/spec", "new/spec", "--format", "markdown"],
    );
    assert!(
        md.contains("Language added: `de`.\n\nChapter added: `scope`.\n"),
        "{md}"
    );
    assert!(
        md.contains("```diff\n+ # Scope\n+ What is in.\n```\n"),
        "{md}"
    );

    let (_, json, _) = kcontract(
        dir.path(),
        &["diff", "old/spec", "new/spec", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["languages_added"], serde_json::json!(["de"]));
    assert_eq!(v["chapters_added"], serde_json::json!(["scope"]));
    assert_eq!(v["chapters_removed"], serde_json::json!([]));
    let scope = v["prose"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["chapter"] == "scope")
        .unwrap();
    assert_eq!(
        scope["lines"],
        serde_json::json!([{"op": "insert", "text": "# Scope"}, {"op": "insert", "text": "What is in."}])
    );
    // The other way round: the chapter and the language are removed.
    let (_, out, _) = kcontract(
        dir.path(),
        &["diff", "new/spec", "old/spec", "--format", "terminal"],
    );
    assert!(
        out.contains("\nlanguage removed: de\nchapter removed: scope\n"),
        "{out}"
    );
}

/// K0304's example keeps the keyword the way the translation's language would: German and
/// French in their own words, a language kcontract has no words for with a placeholder, never
/// Chinese outside Chinese.
#[test]
fn k0304_example_is_in_the_files_language() {
    let dir = tempfile::tempdir().unwrap();
    for (lang, example) in [
        ("de", "e.g. `muss (MUST)`"),
        ("fr", "e.g. `doit (MUST)`"),
        ("pt", "e.g. `<the word in pt> (MUST)`"),
        ("zh", "e.g. 必须（MUST）"),
    ] {
        let c = init(dir.path(), lang, &format!("en,{lang}"));
        edit(
            &c.join(format!("spec/{lang}/introduction.md")),
            "text: The implementation MUST reject",
            "text: The implementation SHOULD reject",
        );
        let (code, _, err) = kcontract(&c, &["check"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("error[K0304]"), "{err}");
        assert!(err.contains(example), "{lang}: {err}");
        if lang != "zh" {
            assert!(!err.contains('必'), "{lang}: {err}");
        }
    }
}

/// `--errors-only` (issue #37): a spec with many review warnings and one real error shows the
/// error alone, on check, build and fmt, and says the warnings were counted, not shown.
#[test]
fn errors_only_shows_the_one_error_among_many_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let c = init(dir.path(), "c", "en");
    let chapter = c.join("spec/en/introduction.md");
    let mut text = std::fs::read_to_string(&chapter).unwrap();
    for i in 0..40 {
        text.push_str(&format!(
            "\n```clause\nid: intro.c{i}\nlevel: MUST\nactor: implementation\nverify: test\n\
             text: The implementation MUST do {i}.\nreview: is the actor right?\n```\n"
        ));
    }
    text.push_str("\nSee [nowhere](#no-such-section).\n");
    std::fs::write(&chapter, text).unwrap();
    let (code, _, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 1, "{err}");
    // Twenty of them are shown (a code's first twenty, then a count), before the error.
    assert!(err.starts_with("warning[K0119]"), "{err}");
    assert!(err.contains("note: 20 more K0119 not shown"), "{err}");
    for args in [
        &["check", "--errors-only"][..],
        &["--errors-only", "build"],
        &["fmt", "--check", "--errors-only"],
    ] {
        let (code, _, err) = kcontract(&c, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(!err.contains("warning["), "{args:?}: {err}");
        assert!(err.starts_with("error[K0118]"), "{args:?}: {err}");
        assert!(
            err.contains(
                "error: 1 error and 40 warnings found (warnings not shown: --errors-only)"
            ),
            "{args:?}: {err}"
        );
    }
    // Without the error: check passes and says where the warnings went.
    let text = std::fs::read_to_string(&chapter)
        .unwrap()
        .replace("\nSee [nowhere](#no-such-section).\n", "");
    std::fs::write(&chapter, text).unwrap();
    let (code, out, err) = kcontract(&c, &["check", "--errors-only"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    assert!(
        out.ends_with("ok: no errors, 40 warnings (not shown: --errors-only)\n"),
        "{out}"
    );
}

/// Inline HTML a spec commonly uses renders on its page (issue #37, finding 6); a script, an
/// event handler and a `javascript:` URL do not reach it; a comment to translators is not shown.
#[test]
fn inline_html_renders_and_is_sanitized() {
    let dir = tempfile::tempdir().unwrap();
    let c = init(dir.path(), "c", "en");
    let chapter = c.join("spec/en/introduction.md");
    let text = std::fs::read_to_string(&chapter).unwrap().replace(
        "# Introduction\n",
        "# Introduction\n\n<!-- for the editors only -->\n\nLimits are 2<sup>31</sup> bytes; press <kbd>Ctrl</kbd>+<kbd>C</kbd>.<br>\
         <script>alert(1)</script> <b onmouseover=\"alert(2)\">bold</b> <a href=\"javascript:alert(3)\">x</a>\n",
    )
    .replace(
        "text: The implementation MUST reject a request it cannot parse.",
        "text: The implementation MUST reject a request over 2<sup>20</sup> bytes.",
    );
    std::fs::write(&chapter, text).unwrap();
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let page = std::fs::read_to_string(c.join("site/en/introduction.html")).unwrap();
    let main = &page[page.find("<main").unwrap()..page.find("</main>").unwrap()];
    assert!(
        main.contains("2<sup>31</sup> bytes; press <kbd>Ctrl</kbd>+<kbd>C</kbd>.<br>"),
        "{main}"
    );
    assert!(main.contains("over 2<sup>20</sup> bytes"), "{main}");
    assert!(main.contains("<b>bold</b>"), "{main}");
    for gone in [
        "<script",
        "alert(",
        "onmouseover",
        "javascript:",
        "for the editors only",
        "&lt;",
    ] {
        assert!(!main.contains(gone), "{gone} in {main}");
    }
}

//! The site of a contract that is not the Knative one (issue #37, finding 6): no Knative words in
//! the built-in interface, chapters numbered 1–N past nine, headings that number themselves shown
//! as written, level-4 sections indented, the index's title said once, no "untested" badge on
//! every clause of a contract nothing tests yet, and K0102 offering only the contract's fields.

use std::path::Path;

use crate::common::cli::kcontract;

/// A contract of twelve chapters, none tested; chapter 3 numbers its own headings, chapter 10 is
/// an appendix with a level-4 heading.
pub(crate) fn twelve_chapters(dir: &Path, contract_extra: &str) {
    let names: Vec<String> = (1..=12).map(|i| format!("ch{i:02}")).collect();
    let mut contract = format!(
        "title: Widgets\nversion: 1.0.0\nlanguages: [en]\nchapters: [{}]\nactors: [producer, consumer]\nverify: [manual, untestable]\n",
        names.join(", ")
    );
    contract.push_str(contract_extra);
    std::fs::create_dir_all(dir.join("spec/en")).unwrap();
    std::fs::write(dir.join("spec/contract.yaml"), contract).unwrap();
    for (i, name) in names.iter().enumerate() {
        let n = i + 1;
        let text = match n {
            3 => "# 3. HTTP\n\n## 3.1 Requests\n\nText.\n".to_string(),
            10 => "# Appendix\n\n## Terms\n\n### Words\n\n#### Widget\n\nA thing.\n".to_string(),
            _ => format!(
                "# Chapter {n}\n\n## Part {n}\n\n```clause\nid: c{n}.rule\nlevel: MUST\nactor: producer\ntext: The producer MUST send widget {n}.\nverify: manual\n```\n"
            ),
        };
        std::fs::write(dir.join(format!("spec/en/{name}.md")), text).unwrap();
    }
}

fn built(contract_extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    twelve_chapters(dir.path(), contract_extra);
    let build = kcontract(dir.path(), &["build", "--out", "site"]);
    assert_eq!(build.0, 0, "{}", build.2);
    dir
}

fn page(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("site/en").join(name)).unwrap()
}

#[test]
fn the_sidebar_numbers_twelve_chapters_and_keeps_their_own_numbers() {
    let dir = built("");
    let ch = page(dir.path(), "ch10.html");
    for n in [1, 2, 9, 10, 11, 12] {
        let title = if n == 10 {
            "Appendix".into()
        } else {
            format!("Chapter {n}")
        };
        let want = format!("<span class=\"secno\">{n}. </span>{title}</a>");
        assert!(ch.contains(&want), "the sidebar lacks {want}");
    }
    // Chapter 3 numbers itself: shown as written, in the sidebar, on the index and on its page.
    assert!(ch.contains("<a href=\"ch03.html\">3. HTTP</a>"), "sidebar");
    assert!(page(dir.path(), "index.html").contains("<a href=\"ch03.html\">3. HTTP</a>"));
    let three = page(dir.path(), "ch03.html");
    assert!(
        three.contains(">3. HTTP</h1>") && three.contains(">3.1 Requests</h2>"),
        "{three}"
    );
    assert!(!three.contains("<span class=\"secno\">3"), "numbered twice");
    assert!(
        three.contains("<a href=\"#31-requests\">3.1 Requests</a>"),
        "sidebar section"
    );
    // Level-4 sections are indented below level 3.
    assert!(ch.contains("<li class=\"sec-l4\">"), "{ch}");
    let css = std::fs::read_to_string(dir.path().join("site/assets/style.css")).unwrap();
    assert!(css.contains(".toc .sections .sec-l4 { padding-left: 2rem; }"));
}

#[test]
fn nothing_knative_and_nothing_said_twice() {
    let dir = built("");
    let index = page(dir.path(), "index.html");
    assert!(
        index.contains("<title>Widgets</title>"),
        "the index's title"
    );
    assert!(page(dir.path(), "ch01.html").contains("<title>Chapter 1 · Widgets</title>"));
    for p in ["index.html", "ch01.html", "clauses.html"] {
        let html = page(dir.path(), p);
        assert!(
            !html.contains("SIGTERM") && !html.contains("Knative"),
            "{p}"
        );
        // The interface's own word, not a claim about what the text is (#48).
        assert!(html.contains("placeholder=\"Search\""), "{p}");
    }
    // Nothing tests this contract: no "untested" badge on each clause.
    assert!(!page(dir.path(), "ch01.html").contains("badge status"));
    // Its own examples, per language or for all.
    let hinted = built("search_hint: widget, producer\n");
    assert!(
        page(hinted.path(), "index.html")
            .contains("placeholder=\"Search (e.g. widget, producer)\"")
    );
}

#[test]
fn unknown_field_offers_only_the_contracts_fields() {
    let dir = tempfile::tempdir().unwrap();
    twelve_chapters(dir.path(), "");
    let one = dir.path().join("spec/en/ch01.md");
    let text = std::fs::read_to_string(&one).unwrap();
    std::fs::write(
        &one,
        text.replace("verify: manual\n", "verify: manual\ncolour: red\n"),
    )
    .unwrap();
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 1);
    assert!(
        check
            .2
            .contains("the fields are: id, level, actor, text, verify, reason, implicit, review"),
        "{}",
        check.2
    );
}

#[test]
fn a_search_hint_for_a_language_not_listed_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    twelve_chapters(dir.path(), "search_hint: {en: widget, de: Widget}\n");
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 1);
    assert!(
        check.2.contains("K0010") && check.2.contains("`search_hint` names `de`"),
        "{}",
        check.2
    );
}

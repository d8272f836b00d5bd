//! Reference-style links (issue #37, finding 2): `[text][ref]`, `[ref][]` and `[ref]` resolve
//! against the `[ref]: url` definitions of their chapter, in prose and in clause texts (which are
//! rendered apart from the prose) on every page; one with no definition is an error at its place;
//! `import` moves the definitions into each chapter that uses them.

use std::path::Path;

use crate::common::cli::kcontract;

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, two]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

/// Definitions at the end, after the clause: the prose piece before the clause and the clause's
/// text are rendered without them in sight.
const ONE: &str = "# One

See [the media RFC][rfc6838], [Keys][] and [keys].

## Keys

```clause
id: one.keys
level: MUST
actor: platform
text: The platform MUST follow [RFC 6838][RFC6838] and [the other chapter][two].
reason: Because of [keys].
verify: untestable
```

Prose after the clause, [again][rfc6838]; plain [brackets] and array[0] stay text.

[rfc6838]: https://www.rfc-editor.org/rfc/rfc6838 \"Media Types\"
[keys]: #keys
[two]: two.md#two-part
";

const TWO: &str = "# Two\n\n## Two part\n\nNothing here.\n";

fn spec(one: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", one),
        ("spec/en/two.md", TWO),
    ] {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn page(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join("site/en").join(name)).unwrap()
}

#[test]
fn references_resolve_in_prose_and_clause_text_on_every_page() {
    let dir = spec(ONE);
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 0, "{}", check.2);
    let build = kcontract(dir.path(), &["build", "--out", "site"]);
    assert_eq!(build.0, 0, "{}", build.2);
    let rfc = "<a href=\"https://www.rfc-editor.org/rfc/rfc6838\" title=\"Media Types\">";
    let chapter = page(dir.path(), "one.html");
    for html in [
        format!("{rfc}the media RFC</a>"),
        format!("{rfc}RFC 6838</a>"),
        format!("{rfc}again</a>"),
        "<a href=\"#keys\">Keys</a>".into(),
        "<a href=\"#keys\">keys</a>".into(),
        "<a href=\"two.html#two-part\">the other chapter</a>".into(),
    ] {
        assert!(chapter.contains(&html), "one.html lacks {html}");
    }
    assert!(!chapter.contains("]["), "a reference left as text");
    assert!(chapter.contains("[brackets]") && chapter.contains("array[0]"));
    // The clause index, the matrix and the print page render the clause's text and reason
    // apart again.
    let index = page(dir.path(), "clauses.html");
    assert!(
        index.contains(&format!("{rfc}RFC 6838</a>")),
        "clauses.html"
    );
    let matrix = page(dir.path(), "matrix.html");
    assert!(
        matrix.contains("one.html#keys\">keys</a>"),
        "the reason's link"
    );
    assert!(page(dir.path(), "print.html").contains(&format!("{rfc}RFC 6838</a>")));
}

#[test]
fn a_reference_to_a_missing_anchor_is_checked_like_an_inline_link() {
    // `[two]` is used in the clause's text only.
    let dir = spec(&ONE.replace("[two]: two.md#two-part", "[two]: two.md#nowhere"));
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 1);
    assert!(
        check.2.contains("K0118") && check.2.contains("two.md#nowhere"),
        "{}",
        check.2
    );
}

#[test]
fn import_moves_definitions_into_each_chapter_that_uses_them() {
    let source = "# My Spec

## Media

The server MUST use [media types][rfc6838] and see [Other][other-file].

## Events

Producers SHOULD follow [RFC 6838][rfc6838] and [the part][part].

## Part

Text, with [rfc2119].

[rfc6838]: https://www.rfc-editor.org/rfc/rfc6838 \"Media Types\"
[part]: #part
[other-file]: ./other.md
[rfc2119]: https://www.rfc-editor.org/rfc/rfc2119
";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.md"), source).unwrap();
    let import = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
    assert_eq!(import.0, 0, "{}", import.2);
    let read =
        |c: &str| std::fs::read_to_string(dir.path().join(format!("spec/en/{c}.md"))).unwrap();
    let rfc = "[rfc6838]: https://www.rfc-editor.org/rfc/rfc6838 \"Media Types\"";
    // Each chapter holds what it uses, the section link made to land, the other file's link
    // (no --link-base) kept as its words.
    assert!(
        read("media").ends_with(&format!("see Other.\nverify: manual\n```\n\n{rfc}\n")),
        "{}",
        read("media")
    );
    assert!(
        read("events").ends_with(&format!("{rfc}\n[part]: part.md#part\n")),
        "{}",
        read("events")
    );
    assert!(
        read("part").ends_with(
            "Text, with [rfc2119].\n\n[rfc2119]: https://www.rfc-editor.org/rfc/rfc2119\n"
        ),
        "{}",
        read("part")
    );
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 0, "{}", check.2);
    let fmt = kcontract(dir.path(), &["fmt", "--check"]);
    assert_eq!(fmt.0, 0, "{}", fmt.2);
}

/// A translation uses the source chapter's definitions where it has none of its own (the
/// `[ref]: url` lines are not text to translate); one neither defines is still K0118.
#[test]
fn a_translation_resolves_against_the_source_chapters_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = kcontract(dir.path(), &["init", "c", "--languages", "en,de"]);
    assert_eq!(code, 0, "{out}{err}");
    let c = dir.path().join("c");
    let add = |lang: &str, text: &str| {
        let p = c.join(format!("spec/{lang}/introduction.md"));
        let old = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{old}\n{text}\n")).unwrap();
    };
    add(
        "en",
        "See [the RFC][rfc].\n\n[rfc]: https://www.rfc-editor.org/rfc/rfc2119",
    );
    add("de", "Siehe [den RFC][rfc].");
    let (code, out, err) = kcontract(&c, &["build"]);
    assert_eq!(code, 0, "{out}{err}");
    let de = std::fs::read_to_string(c.join("site/de/introduction.html")).unwrap();
    assert!(
        de.contains("<a href=\"https://www.rfc-editor.org/rfc/rfc2119\">den RFC</a>"),
        "{de}"
    );
    add("de", "Und [noch einer][nirgends].");
    let (code, _, err) = kcontract(&c, &["check"]);
    assert_eq!(code, 1);
    assert!(err.contains("`[nirgends]` is not defined"), "{err}");
}

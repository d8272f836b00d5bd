//! Files as editors save them (issue #37, finding 4): a UTF-8 byte-order mark and Windows line
//! ends change nothing (`check` says the same at the same places, `build` writes the same site
//! byte for byte, `fmt` keeps the file's own line ends); a heading is a title, never a normative
//! statement; a code block left open does not silently swallow the clause after it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::cli::kcontract;

const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one, two]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

const ONE: &str = "# One

Intro with a [link](two.md#details) and a table:

| a | b |
|---|---|
| 1 | 2 |

## Details

```clause
id: one.good
level: MUST
actor: platform
text: The platform MUST do it.
verify: manual
```

Text after.
";

const TWO: &str = "# Two

## Details

```clause
id: two.x
level: SHOULD
actor: platform
text: |
  The platform SHOULD do this,
  across lines.
verify: manual
```
";

/// A chapter with mistakes on several lines, inside and outside clause blocks.
const BAD: &str = "# Two

Prose that MUST not be here.

```clause
id: two.x
level: MUST
actor: platform
text: \"unterminated
verify: manual
```

Again, a SHOULD.
";

/// How a twin writes its files.
#[derive(Clone, Copy, Debug)]
enum Style {
    Plain,
    Bom,
    Crlf,
    BomCrlf,
}

impl Style {
    const ALL: [Style; 4] = [Style::Plain, Style::Bom, Style::Crlf, Style::BomCrlf];

    fn write(self, text: &str) -> Vec<u8> {
        let text = match self {
            Style::Crlf | Style::BomCrlf => text.replace('\n', "\r\n"),
            _ => text.to_string(),
        };
        match self {
            Style::Bom | Style::BomCrlf => format!("\u{feff}{text}").into_bytes(),
            _ => text.into_bytes(),
        }
    }
}

/// A spec folder in a fresh temporary folder, every file written in `style`.
fn spec(style: Style, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, style.write(text)).unwrap();
    }
    dir
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn bom_and_crlf_twins_check_and_build_like_the_plain_one() {
    let files = [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", ONE),
        ("spec/en/two.md", TWO),
    ];
    let mut plain = None;
    for style in Style::ALL {
        let dir = spec(style, &files);
        let check = kcontract(dir.path(), &["check"]);
        assert_eq!(check.0, 0, "{style:?}: {}", check.2);
        let build = kcontract(dir.path(), &["build", "--out", "site"]);
        assert_eq!(build.0, 0, "{style:?}: {}", build.2);
        let site = tree(&dir.path().join("site"));
        let page = String::from_utf8_lossy(&site["en/one.html"]).into_owned();
        assert!(page.contains("<h1"), "{style:?}: the title is a heading");
        assert!(page.contains("<table>"), "{style:?}: the table is one");
        match &plain {
            None => plain = Some((check, site)),
            Some((c, s)) => {
                assert_eq!(&check, c, "{style:?}: check says the same");
                assert_eq!(
                    s.keys().collect::<Vec<_>>(),
                    site.keys().collect::<Vec<_>>()
                );
                for (path, bytes) in s {
                    assert!(&site[path] == bytes, "{style:?}: {path} differs");
                }
            }
        }
    }
}

#[test]
fn bom_and_crlf_twins_are_diagnosed_at_the_same_places() {
    let files = [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", ONE),
        ("spec/en/two.md", BAD),
    ];
    let plain = kcontract(spec(Style::Plain, &files).path(), &["check"]);
    assert_eq!(plain.0, 1);
    for at in ["two.md:3:12", "two.md:13:10", "two.md:9:7"] {
        assert!(plain.2.contains(at), "{at} in {}", plain.2);
    }
    for style in [Style::Bom, Style::Crlf, Style::BomCrlf] {
        let twin = kcontract(spec(style, &files).path(), &["check"]);
        assert_eq!(twin, plain, "{style:?}");
    }
}

#[test]
fn interface_text_with_bom_and_crlf_is_read() {
    let en =
        std::fs::read_to_string(crate::common::cli::root().join("templates/i18n/en.yaml")).unwrap();
    let files = [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", ONE),
        ("spec/en/two.md", TWO),
    ];
    let mut sites = Vec::new();
    for style in [Style::Plain, Style::BomCrlf] {
        let dir = spec(Style::Plain, &files);
        let i18n = dir.path().join("templates/i18n/en.yaml");
        std::fs::create_dir_all(i18n.parent().unwrap()).unwrap();
        std::fs::write(&i18n, style.write(&en)).unwrap();
        let build = kcontract(
            dir.path(),
            &["build", "--out", "site", "--templates", "templates"],
        );
        assert_eq!(build.0, 0, "{style:?}: {}", build.2);
        sites.push(tree(&dir.path().join("site")));
    }
    assert!(sites[0] == sites[1]);
}

#[test]
fn fmt_keeps_a_files_bom_and_line_ends() {
    let messy = ONE.replace(
        "id: one.good\nlevel: MUST\nactor: platform\n",
        "actor: platform\nlevel: MUST\nid: one.good\n",
    );
    let files = [
        ("spec/contract.yaml", CONTRACT),
        ("spec/en/one.md", messy.as_str()),
        ("spec/en/two.md", TWO),
    ];
    for style in Style::ALL {
        let dir = spec(style, &files);
        let fmt = kcontract(dir.path(), &["fmt"]);
        assert_eq!(fmt.0, 0, "{style:?}: {}", fmt.2);
        assert!(fmt.1.contains("1 file formatted"), "{style:?}: {}", fmt.1);
        let one = std::fs::read(dir.path().join("spec/en/one.md")).unwrap();
        assert_eq!(one, style.write(ONE), "{style:?}");
        let again = kcontract(dir.path(), &["fmt", "--check"]);
        assert_eq!(again.0, 0, "{style:?}: {}", again.2);
    }
}

/// A plain spec whose chapter `one` is `chapter`.
fn with_one(chapter: &str) -> tempfile::TempDir {
    spec(
        Style::Plain,
        &[
            ("spec/contract.yaml", CONTRACT),
            ("spec/en/one.md", chapter),
            ("spec/en/two.md", TWO),
        ],
    )
}

#[test]
fn a_heading_is_a_title_not_a_normative_statement() {
    let chapter = "# One\n\n## REQUIRED Attributes\n\nThe list.\n\nOPTIONAL Fields\n---------------\n\nMore.\n";
    let dir = with_one(chapter);
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 0, "{}", check.2);
    // The paragraph under it still is prose.
    std::fs::write(
        dir.path().join("spec/en/one.md"),
        chapter.replace("The list.", "The list MUST hold one."),
    )
    .unwrap();
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 1);
    assert!(
        check.2.contains("K0201") && check.2.contains("one.md:5:"),
        "{}",
        check.2
    );
}

#[test]
fn a_longer_fence_showing_a_clause_block_is_an_example() {
    let chapter =
        "# One\n\nA clause block looks like this:\n\n````markdown\n```clause\nid: x.y\n```\n````\n";
    let dir = with_one(chapter);
    let check = kcontract(dir.path(), &["check"]);
    assert_eq!(check.0, 0, "{}", check.2);
}

#[test]
fn import_reads_a_bom_and_crlf_file_like_its_plain_twin() {
    let source = "# A Spec\n\n## Parts\n\nThe server MUST answer.\n\n```\ncode\n```\n\nClients SHOULD retry.\n";
    let mut specs = Vec::new();
    for style in [Style::Plain, Style::BomCrlf] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("in.md"), style.write(source)).unwrap();
        let import = kcontract(dir.path(), &["import", "in.md", "--out", "spec"]);
        assert_eq!(import.0, 0, "{style:?}: {}", import.2);
        specs.push(tree(&dir.path().join("spec")));
    }
    assert!(specs[0] == specs[1]);
}

//! The documentation renders on GitHub with every link landing: each relative link of README.md,
//! CHANGELOG.md, BENCHMARKS.md and every page under docs/ names a file or folder of the repository,
//! and a `#fragment` names a heading of the page it points at (GitHub's anchor of the heading's
//! text), an `id`/`name` in its HTML, or a line (`#L12`) of another file. As
//! `site_links.rs` does for the built site, read as a Markdown reader reads it (pulldown-cmark):
//! a link in a code span or block is not a link.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use pulldown_cmark::{BrokenLink, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::common::cli::root;

/// The pages checked: the top-level documents and everything under docs/.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["README.md", "CHANGELOG.md", "BENCHMARKS.md"]
        .iter()
        .map(|p| root.join(p))
        .filter(|p| p.is_file())
        .collect();
    for e in walkdir::WalkDir::new(root.join("docs")).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md") {
            out.push(e.into_path());
        }
    }
    out
}

/// GFM, as GitHub renders a repository's Markdown.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// What one page offers and asks for: the anchors it has, and its links with their lines.
#[derive(Default)]
struct Page {
    anchors: BTreeSet<String>,
    links: Vec<(usize, String)>,
    /// `[text][label]` whose label has no definition (GitHub shows it as plain text).
    broken_refs: Vec<(usize, String)>,
}

/// GitHub's anchor of a heading: its text lowercased, every character but letters, digits, `-`,
/// `_` and spaces dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The values of `id="…"` and `name="…"` in raw HTML.
fn html_ids(html: &str, out: &mut BTreeSet<String>) {
    for attr in [" id=\"", " name=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.insert(rest[..end].to_owned());
            }
        }
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Read a Markdown page: its anchors (headings, with GitHub's `-1`, `-2` for repeats; HTML ids)
/// and its links.
fn read_page(text: &str) -> Page {
    let mut page = Page::default();
    let mut broken = Vec::new();
    let mut callback = |link: BrokenLink| {
        if matches!(link.link_type, LinkType::Reference | LinkType::Collapsed) {
            broken.push((link.span.start, link.reference.to_string()));
        }
        None
    };
    let parser = Parser::new_with_broken_link_callback(text, options(), Some(&mut callback));
    let mut heading: Option<String> = None;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (event, range) in parser.into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                page.anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => html_ids(&h, &mut page.anchors),
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                page.links
                    .push((line_of(text, range.start), dest_url.to_string()));
            }
            _ => {}
        }
    }
    page.broken_refs = broken
        .into_iter()
        .map(|(at, label)| (line_of(text, at), label))
        .collect();
    page
}

/// `%20` and the like decoded (a link to a file whose name has a space).
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `base/rel` with `.` and `..` taken apart, or `None` when it leaves `root`.
fn resolve(root: &Path, base: &Path, rel: &str) -> Option<PathBuf> {
    let joined = if let Some(abs) = rel.strip_prefix('/') {
        root.join(abs)
    } else {
        base.join(rel)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out.starts_with(root).then_some(out)
}

/// Why a fragment does not land in `target` (a page, an HTML file, or another file's line).
fn fragment_problem(target: &Path, fragment: &str) -> Option<String> {
    let ext = target.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text = std::fs::read_to_string(target).unwrap_or_default();
    let anchors = match ext {
        "md" => read_page(&text).anchors,
        "html" => {
            let mut ids = BTreeSet::new();
            html_ids(&text, &mut ids);
            ids
        }
        _ => {
            let line = fragment
                .strip_prefix('L')
                .and_then(|l| l.split('-').next())
                .and_then(|l| l.parse::<usize>().ok());
            return match line {
                Some(n) if n >= 1 && n <= text.lines().count() => None,
                _ => Some(format!("#{fragment} is not a line of {}", target.display())),
            };
        }
    };
    (!anchors.contains(fragment)).then(|| {
        format!(
            "no heading or id `{fragment}` in {} (it has: {})",
            target.display(),
            anchors
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Every broken link of the pages under `root`, as `file:line: link: why`.
fn broken_links(root: &Path, pages: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    for file in pages {
        let text = std::fs::read_to_string(file).unwrap();
        let page = read_page(&text);
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        for (line, label) in &page.broken_refs {
            problems.push(format!(
                "{shown}:{line}: [{label}]: no such link definition"
            ));
        }
        for (line, link) in &page.links {
            let external = link.contains("://") || link.starts_with("mailto:");
            if external {
                continue;
            }
            let (path, fragment) = match link.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (link.as_str(), None),
            };
            let path = percent_decoded(path.split('?').next().unwrap_or(""));
            let target = if path.is_empty() {
                Some(file.clone())
            } else {
                resolve(root, file.parent().unwrap(), &path)
            };
            let problem = match &target {
                None => Some("leaves the repository".to_owned()),
                Some(t) if !t.exists() => Some(format!("{} does not exist", t.display())),
                Some(t) => fragment
                    .filter(|f| !f.is_empty() && t.is_file())
                    .and_then(|f| fragment_problem(t, &percent_decoded(f))),
            };
            if let Some(why) = problem {
                problems.push(format!("{shown}:{line}: {link}: {why}"));
            }
        }
    }
    problems
}

/// README.md, the top-level documents and docs/: every relative link and anchor lands.
#[test]
fn every_link_of_the_readme_and_docs_lands() {
    let root = root();
    let pages = pages(&root);
    assert!(
        pages.len() >= 10,
        "the guide's pages were not found: {pages:?}"
    );
    let problems = broken_links(&root, &pages);
    assert!(
        problems.is_empty(),
        "{} broken links in README.md and docs/:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The checker's negative controls: a missing file, a missing heading, a link out of the
/// repository, a broken reference and a line past the end are each reported; good links of every
/// kind (a repeated heading's `-1`, a heading with code and punctuation, an HTML id, a folder, a
/// line, a link in a code span that is no link) are not.
#[test]
fn the_link_checker_finds_each_kind_of_broken_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("docs/sub")).unwrap();
    std::fs::write(root.join("code.rs"), "fn a() {}\nfn b() {}\n").unwrap();
    std::fs::write(
        root.join("docs/guide.md"),
        "# Guide\n\n## Diff JSON (`kcontract diff --format json`)\n\n## Notes\n\n## Notes\n\n\
         <a id=\"custom\"></a>\n\n## 中文 标题\n",
    )
    .unwrap();
    let good = "[a](docs/guide.md#diff-json-kcontract-diff---format-json) [b](docs/guide.md#notes-1) \
                [c](docs/guide.md#custom) [d](docs/sub) [e](code.rs#L2) [f](#top-here) \
                [g](docs/guide.md#中文-标题) [h](https://example.com/#x) `[i](nowhere.md)`\n\n# Top here\n";
    std::fs::write(root.join("README.md"), good).unwrap();
    assert_eq!(
        broken_links(&root, &[root.join("README.md")]),
        Vec::<String>::new()
    );
    let bad = "[a](docs/missing.md)\n[b](docs/guide.md#no-such-heading)\n[c](../outside.md)\n\
               [d][undefined]\n[e](code.rs#L3)\n[f](#notes-2)\n";
    std::fs::write(root.join("docs/bad.md"), bad).unwrap();
    let problems = broken_links(&root, &[root.join("docs/bad.md")]);
    let lines: Vec<&str> = problems
        .iter()
        .map(|p| p.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "docs/bad.md:4",
            "docs/bad.md:1",
            "docs/bad.md:2",
            "docs/bad.md:3",
            "docs/bad.md:5",
            "docs/bad.md:6"
        ],
        "{problems:#?}"
    );
}

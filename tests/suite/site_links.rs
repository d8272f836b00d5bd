//! Every link of the built site lands: each internal `href` and `src` of every page names a file
//! the build wrote and, with a fragment, an element with that id on it. And a section keeps its id
//! in every language, so the language switch (which carries the fragment over) lands on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::cli::{kcontract, root};

/// Every file under `dir`, by `/`-separated relative path.
fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            walk(&e.path(), &r, out);
        } else {
            out.insert(r, std::fs::read(e.path()).unwrap());
        }
    }
}

/// The values of attribute `attr` (`href`, `src`, `id`) in an HTML page, with `&amp;` decoded.
fn attrs(html: &str, attr: &str) -> Vec<String> {
    let pat = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&pat) {
        rest = &rest[at + pat.len()..];
        let end = rest.find('"').expect("an attribute value is closed");
        out.push(rest[..end].replace("&amp;", "&"));
        rest = &rest[end..];
    }
    out
}

/// `a/b/../c.html` → `a/c.html`.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

fn build() -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    build_with(|_| Vec::new())
}

/// [`build`] with more arguments, made in the temp folder (`--platform REPORT`).
fn build_with(
    extra: impl FnOnce(&Path) -> Vec<String>,
) -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let mut args = vec![
        "build".to_string(),
        "--out".into(),
        out.to_str().unwrap().into(),
    ];
    args.extend(extra(tmp.path()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = kcontract(&root(), &args);
    assert_eq!(code, 0, "{err}");
    let mut files = BTreeMap::new();
    walk(&out, "", &mut files);
    (tmp, files)
}

#[test]
fn every_internal_link_of_every_page_lands() {
    let (_tmp, files) = build();
    assert_links_land(&files);
}

/// With run reports as columns (two local, two vendor logs) the platforms page's links land too:
/// each route badge on its route's row, each clause on its chapter.
#[test]
fn every_link_lands_with_platform_columns() {
    let (_tmp, files) = build_with(|dir| crate::common::platform_reports::four_columns(dir).1);
    let page = String::from_utf8(files["en/platforms.html"].clone()).unwrap();
    assert!(page.contains("href=\"#route-deployed\"") && page.contains("href=\"#reason-manual\""));
    assert_links_land(&files);
}

/// Every internal `href` and `src` of every page of `files` names a file of it and, with a
/// fragment, an element with that id.
fn assert_links_land(files: &BTreeMap<String, Vec<u8>>) {
    let pages: BTreeMap<&str, String> = files
        .iter()
        .filter(|(n, _)| n.ends_with(".html"))
        .map(|(n, b)| (n.as_str(), String::from_utf8(b.clone()).unwrap()))
        .collect();
    let ids: BTreeMap<&str, BTreeSet<String>> = pages
        .iter()
        .map(|(n, html)| (*n, attrs(html, "id").into_iter().collect()))
        .collect();
    let (mut checked, mut with_fragment, mut dangling) = (0, 0, Vec::new());
    for (page, html) in &pages {
        let dir = page.rsplit_once('/').map_or("", |(d, _)| d);
        for link in attrs(html, "href").into_iter().chain(attrs(html, "src")) {
            if link.starts_with("https://")
                || link.starts_with("http://")
                || link.starts_with("mailto:")
            {
                continue;
            }
            assert!(
                !link.contains(':'),
                "{page}: a link with a scheme the site must not have: {link}"
            );
            checked += 1;
            let (path, frag) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.to_string()
            } else {
                normalise(&format!("{dir}/{path}"))
            };
            if !files.contains_key(&target) {
                dangling.push(format!("{page}: {link} (no file {target})"));
                continue;
            }
            if !frag.is_empty() {
                with_fragment += 1;
                if !ids.get(target.as_str()).is_some_and(|s| s.contains(frag)) {
                    dangling.push(format!("{page}: {link} (no id `{frag}` on {target})"));
                }
            }
        }
    }
    assert!(
        dangling.is_empty(),
        "{} dangling links:\n{}",
        dangling.len(),
        dangling.join("\n")
    );
    // The walk saw the site, not nothing: every page links somewhere, and sections and clauses
    // are linked by fragment.
    assert!(pages.len() >= 20, "{} pages", pages.len());
    assert!(
        checked > 1000 && with_fragment > 500,
        "{checked} links, {with_fragment} with a fragment"
    );
}

#[test]
fn a_section_has_the_same_id_in_every_language() {
    let (_tmp, files) = build();
    let mut compared = 0;
    for (name, bytes) in &files {
        let Some(page) = name.strip_prefix("en/").filter(|p| p.ends_with(".html")) else {
            continue;
        };
        let heading_ids = |html: &str| -> Vec<String> {
            let mut out = Vec::new();
            for level in ["<h1 id=\"", "<h2 id=\"", "<h3 id=\"", "<h4 id=\""] {
                for piece in html.split(level).skip(1) {
                    out.push(piece[..piece.find('"').unwrap()].to_string());
                }
            }
            out.sort();
            out
        };
        let en = heading_ids(std::str::from_utf8(bytes).unwrap());
        let zh = heading_ids(std::str::from_utf8(&files[&format!("zh/{page}")]).unwrap());
        assert_eq!(en, zh, "{page}: the sections' ids differ between en and zh");
        compared += en.len();
    }
    assert!(compared > 30, "only {compared} section ids compared");
    // The sections the issue found dangling are among them.
    let zh = std::str::from_utf8(&files["zh/configuration.html"]).unwrap();
    assert!(
        zh.contains("<h2 id=\"default-filesystems\">"),
        "默认文件系统 has the source id"
    );
    assert!(zh.contains("href=\"#default-filesystems\""));
    assert!(!zh.contains("kcontract: rfc2119-boilerplate"));
}

//! Every internal link of the contract resolves: `#anchor` in the same chapter, `chapter.md` and
//! `chapter.md#anchor` in another, where an anchor is a heading's id or a clause id. A link that
//! would dangle on the site is an error here (K0118), so `build` never writes one.

use std::collections::{BTreeMap, BTreeSet};

use super::chapter::slugify;
use crate::diagnostic::Diagnostic;
use crate::spec::{Block, Document, Link, Spec};
use crate::suggest::closest;

/// The diagnostics of every link of every language that does not resolve, but for a fragment
/// into one of the chapters `failed` (whose files have errors: a clause that failed is no anchor,
/// so its link would be reported wrongly); a link to an image is checked against the spec's
/// `images`.
pub(super) fn check_links(
    spec: &Spec,
    failed: &BTreeSet<String>,
    images: &BTreeSet<String>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let chapters: BTreeSet<&str> = spec.contract.chapters.iter().map(String::as_str).collect();
    let langs = std::iter::once(spec.documents.as_slice())
        .chain(spec.translations.iter().map(|t| t.documents.as_slice()));
    for docs in langs {
        // Per chapter of this language: the ids a fragment may name.
        let anchors: BTreeMap<&str, (BTreeSet<&str>, &Document)> = docs
            .iter()
            .map(|d| (d.chapter.as_str(), (ids_of(spec, d), d)))
            .collect();
        for doc in docs {
            for link in &doc.links {
                if let Some(d) = check_image(link, images)
                    .unwrap_or_else(|| check(link, doc, &chapters, &anchors, failed))
                {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// The ids on a chapter's page: its headings' and its clauses'.
fn ids_of<'s>(spec: &'s Spec, doc: &'s Document) -> BTreeSet<&'s str> {
    let headings = doc.headings.iter().map(|h| h.anchor.as_str());
    let clauses = doc.blocks.iter().filter_map(|b| match b {
        Block::Clause(i) => spec.clauses.get(*i).map(|c| c.id.as_str()),
        Block::Prose(_) | Block::Untranslated(_) => None,
    });
    headings.chain(clauses).collect()
}

pub use crate::url::LINK_SCHEMES;
pub(crate) use crate::url::scheme_of;

/// Whether a destination leaves the contract: it has a URL scheme (`https:`, `mailto:`) or is
/// protocol-relative (`//host/…`).
fn is_external(dest: &str) -> bool {
    dest.starts_with("//") || scheme_of(dest).is_some()
}

/// A link to an image of the spec (`../images/NAME`, [`super::images`]): `Some(None)` when the
/// image is there, `Some(K0118)` when not; `None` for any other link.
fn check_image(link: &Link, images: &BTreeSet<String>) -> Option<Option<Diagnostic>> {
    let name = super::images::image_of_link(link.dest.trim())?;
    if images.contains(name) {
        return Some(None);
    }
    let help = if super::images::is_image_name(name) {
        format!("put the image in the spec's `images/` folder (beside contract.yaml) as `{name}`")
    } else {
        format!(
            "an image of the spec is named with letters, digits, `.`, `-` and `_`, and ends with .{}",
            super::images::IMAGE_EXTENSIONS.join(", .")
        )
    };
    Some(Some(
        Diagnostic::error(
            "K0118",
            format!("the link `{}` names no image of the spec", link.dest.trim()),
        )
        .at(link.span.clone(), "no such image")
        .help(help),
    ))
}

fn check(
    link: &Link,
    doc: &Document,
    chapters: &BTreeSet<&str>,
    anchors: &BTreeMap<&str, (BTreeSet<&str>, &Document)>,
    failed: &BTreeSet<String>,
) -> Option<Diagnostic> {
    let dest = link.dest.trim();
    if is_external(dest) {
        // A scheme the site does not link (`javascript:`, `data:`, `mailto:`): rendered as `#`
        // (inert, so a warning: a hostile text still builds a harmless site), said here rather
        // than dropped silently (crate::url).
        return crate::url::judge(dest).err().map(|why| {
            Diagnostic::warning("K0124", format!("the link `{}` is not a web address", crate::diagnostic::shown(dest)))
                .at(link.span.clone(), why.to_string())
                .help("a link is an https:// (or http://) address, a chapter file (`chapter.md#anchor`) or a `#fragment`; the site shows any other as a link to nowhere")
        });
    }
    let (path, frag) = dest.split_once('#').unwrap_or((dest, ""));
    let chapter = if path.is_empty() {
        doc.chapter.as_str()
    } else {
        match path
            .strip_suffix(".md")
            .filter(|stem| chapters.contains(stem))
        {
            Some(stem) => stem,
            None => {
                let stem = path.strip_suffix(".md").unwrap_or(path);
                let mut d = Diagnostic::error(
                    "K0118",
                    format!("the link `{dest}` names no chapter of the contract"),
                )
                .at(link.span.clone(), "no such chapter");
                d = d.help(match closest(stem, chapters.iter().copied(), |c| c.len() / 3 + 1) {
                    Some(c) => format!("did you mean `{c}.md`? A link inside the contract names a chapter file of the same language (`{c}.md#anchor`); anything else needs a full https:// URL"),
                    None => format!("a link inside the contract names a chapter file of the same language ({}); anything else needs a full https:// URL", chapters.iter().map(|c| format!("`{c}.md`")).collect::<Vec<_>>().join(", ")),
                });
                return Some(d);
            }
        }
    };
    if frag.is_empty() {
        return None;
    }
    let Some((ids, target)) = anchors.get(chapter) else {
        // The chapter exists in the contract but not in this language (its file is missing,
        // reported by the loader).
        return None;
    };
    if ids.contains(frag) || failed.contains(chapter) {
        return None;
    }
    // A fragment made from a translated heading's own text: the section's id is the source's.
    let by_title = target
        .headings
        .iter()
        .find(|h| slugify(&h.title) == frag)
        .map(|h| h.anchor.as_str());
    let suggestion =
        by_title.or_else(|| closest(frag, ids.iter().copied(), |c| c.chars().count() / 3 + 1));
    let prefix = path;
    let help = match suggestion {
        Some(s) if by_title.is_some() => format!("did you mean `{prefix}#{s}`? Sections have the same id in every language, the id of the source heading"),
        Some(s) => format!("did you mean `{prefix}#{s}`?"),
        None => "a fragment names a heading's id (the source heading's text, lowercase, spaces as `-`) or a clause id of that chapter".to_string(),
    };
    Some(
        Diagnostic::error(
            "K0118",
            format!("the link `{dest}` points at no section or clause of `{chapter}`"),
        )
        .at(link.span.clone(), "no such anchor")
        .help(help),
    )
}

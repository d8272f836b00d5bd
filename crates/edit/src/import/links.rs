//! The links of an imported text. `check` accepts only links that land inside the spec (a
//! chapter, `chapter.md#heading`) or full URLs, so an import must say where each relative link of
//! the source goes: a `#section` of the source becomes `chapter.md#section` of the chapter that
//! now holds that heading; a link to another file becomes a URL under `--link-base` when one is
//! given (the folder the source lives in upstream), and plain text (its words kept, the target
//! counted and reported) when not. Reference links (`[words][ref]` with `[ref]: dest` anywhere in
//! the source) go the same way: their definitions are moved, with the destination made to land,
//! into each chapter that uses them (a chapter resolves references only against its own
//! definitions); a use whose target cannot land keeps its words. With `--into`, a link to another
//! document imported into the same contract before (`other.md#section`) lands on the chapter now
//! holding that section.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CodeBlockKind, Event, LinkType, Parser, Tag, TagEnd};

use kcontract_spec::link_label;
use kcontract_spec::markdown_options;

/// A link reference definition of the source, its destination made to land in the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Definition {
    /// The label as written.
    pub(super) label: String,
    pub(super) dest: String,
    pub(super) title: String,
}

impl Definition {
    /// The definition's line in a chapter.
    fn line(&self) -> String {
        let dest = if self.dest.is_empty() || self.dest.contains([' ', '<', '>']) {
            format!("<{}>", self.dest.replace('<', "%3C").replace('>', "%3E"))
        } else {
            self.dest.clone()
        };
        if self.title.is_empty() {
            format!("[{}]: {dest}", self.label)
        } else {
            let title = self.title.replace('\\', "\\\\").replace('"', "\\\"");
            format!("[{}]: {dest} \"{title}\"", self.label)
        }
    }
}

/// The definitions `chapter` (Markdown) uses, one line each in the order of first use, from
/// `defs` (keyed by [`link_label`]): what to append to the chapter so that its references
/// resolve.
pub(super) fn definitions_used(chapter: &str, defs: &BTreeMap<String, Definition>) -> String {
    let mut used: Vec<String> = Vec::new();
    // The prose, then each clause block's content (Markdown inside YAML, which the prose's parse
    // sees as code): a reference anywhere in it calls back, having no definition in the chapter.
    let mut pending = vec![chapter.to_string()];
    while let Some(markdown) = pending.pop() {
        let mut in_clause = false;
        let parser = Parser::new_with_broken_link_callback(
            &markdown,
            markdown_options(),
            Some(|b: BrokenLink<'_>| {
                let label = link_label(&b.reference);
                if defs.contains_key(&label) && !used.contains(&label) {
                    used.push(label);
                }
                None
            }),
        );
        for event in parser {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    in_clause = info.split_whitespace().next() == Some("clause");
                }
                Event::Text(t) if in_clause => pending.insert(0, t.to_string()),
                Event::End(TagEnd::CodeBlock) => in_clause = false,
                _ => {}
            }
        }
    }
    used.iter()
        .filter_map(|l| defs.get(l))
        .map(Definition::line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the headings are: by id, the chapter holding each heading of the text imported, and of
/// the contract imported into (`--into`; only ids one chapter has).
#[derive(Default)]
pub(super) struct Anchors {
    pub(super) own: BTreeMap<String, String>,
    pub(super) elsewhere: BTreeMap<String, String>,
    /// The documents imported in the same run, by file name.
    pub(super) siblings: BTreeMap<String, super::Placed>,
    /// The local images copied into the spec: each destination as written, and the image's name
    /// in the spec's `images/` folder.
    pub(super) images: BTreeMap<String, String>,
}

/// Where a relative destination of the source lands: a `#section` in the chapter holding it, a
/// section of a document imported into the same contract where it is, a file under the link
/// base; `None` when it cannot. Absolute ones stay.
fn relocate(dest: &str, anchors: &Anchors, base: Option<&str>) -> Option<String> {
    if dest.is_empty() || is_absolute(dest) {
        return Some(dest.to_string());
    }
    if let Some(anchor) = dest.strip_prefix('#') {
        return anchors
            .own
            .get(anchor)
            .map(|chapter| format!("{chapter}.md#{anchor}"));
    }
    if let Some(landed) = to_sibling(dest, anchors) {
        return Some(landed);
    }
    let beside = dest
        .split_once('#')
        .filter(|(file, _)| file.ends_with(".md") && !file.contains('/'))
        .and_then(|(_, anchor)| anchors.elsewhere.get(anchor).map(|c| (c, anchor)));
    match beside {
        Some((chapter, anchor)) => Some(format!("{chapter}.md#{anchor}")),
        None => base.map(|b| join(b, dest)),
    }
}

/// Where a link to a document imported in the same run lands: `b.md` (or `./b.md`) on its first
/// chapter, `b.md#section` on the chapter holding the section; `None` for another file or a
/// section that document does not have.
fn to_sibling(dest: &str, anchors: &Anchors) -> Option<String> {
    let (file, anchor) = dest.split_once('#').unwrap_or((dest, ""));
    let placed = anchors.siblings.get(file.trim_start_matches("./"))?;
    if anchor.is_empty() {
        return Some(format!("{}.md", placed.first));
    }
    let chapter = placed.anchors.get(anchor)?;
    Some(format!("{chapter}.md#{anchor}"))
}

/// The source's link reference definitions, by [`link_label`], their destinations relocated; one
/// whose destination cannot land is left out (its uses become words, see [`rewrite`]).
pub(super) fn definitions(
    src: &str,
    anchors: &Anchors,
    base: Option<&str>,
) -> BTreeMap<String, Definition> {
    let parser = Parser::new_ext(src, markdown_options());
    parser
        .reference_definitions()
        .iter()
        .filter_map(|(label, d)| {
            let def = Definition {
                label: label.to_string(),
                dest: relocate(&d.dest, anchors, base)?,
                title: d.title.as_deref().unwrap_or_default().to_string(),
            };
            Some((link_label(label), def))
        })
        .collect()
}

/// The source with its relative links rewritten, and what happened to them.
pub(super) struct Rewritten {
    pub(super) text: String,
    /// Links to a section of the source, now to the chapter that holds it.
    pub(super) to_chapters: usize,
    /// Links to other files, now under the link base.
    pub(super) to_base: usize,
    /// Links kept as their words only: no base for another file, or a section no chapter has.
    pub(super) to_text: Vec<String>,
}

/// Rewrite the inline links of `src` whose target is relative. `anchors` maps a heading id of the
/// imported chapters to the chapter holding it.
pub(super) fn rewrite(src: &str, anchors: &Anchors, base: Option<&str>) -> Rewritten {
    let mut out = Rewritten {
        text: String::new(),
        to_chapters: 0,
        to_base: 0,
        to_text: Vec::new(),
    };
    // (range in src, replacement), in source order and never overlapping.
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (event, range) in Parser::new_ext(src, markdown_options()).into_offset_iter() {
        // An image is a link to a file: a local one cannot be kept (`check` accepts only chapter
        // files, K0118), so it goes under the link base or keeps its words (the alt text), named.
        let (link_type, dest_url, image) = match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) => (link_type, dest_url, false),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                ..
            }) => (link_type, dest_url, true),
            _ => continue,
        };
        // The words start after `[` (`![` for an image).
        let open = 1 + usize::from(image);
        let dest = dest_url.as_ref();
        if dest.is_empty() || is_absolute(dest) {
            continue;
        }
        let whole = &src[range.clone()];
        if image
            && link_type == LinkType::Inline
            && let Some(name) = anchors.images.get(dest)
            && let Some(at) = whole.rfind(dest)
        {
            // An image copied into the spec: the path from a chapter to it.
            let start = range.start + at;
            let to = format!("../{}/{name}", kcontract_spec::IMAGES_FOLDER);
            edits.push((start..start + dest.len(), to));
            out.to_base += 1;
            continue;
        }
        if matches!(
            link_type,
            LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
        ) {
            // The destination is the definition's, relocated with it: the use stays as written,
            // or keeps its words when the definition cannot land.
            match relocate(dest, anchors, base) {
                Some(_) if dest.starts_with('#') => out.to_chapters += 1,
                Some(_) => out.to_base += 1,
                None => {
                    out.to_text.push(dest.to_string());
                    let words = whole.find("][").unwrap_or(whole.len() - 1);
                    edits.push((
                        range.clone(),
                        whole[open.min(words)..words.max(open)].to_string(),
                    ));
                }
            }
            continue;
        }
        if link_type != LinkType::Inline {
            continue;
        }
        // `[words](dest…)`: the destination as written follows the last `](`.
        let Some(close) = whole.rfind("](") else {
            continue;
        };
        let Some(at) = whole[close..].find(dest).map(|i| close + i) else {
            continue; // written with escapes or `<…>`: leave it as the author wrote it
        };
        let new_dest = relocate(dest, anchors, base);
        match &new_dest {
            Some(_) if dest.starts_with('#') => out.to_chapters += 1,
            Some(_) => out.to_base += 1,
            None => {}
        }
        match new_dest {
            Some(d) => {
                let start = range.start + at;
                edits.push((start..start + dest.len(), d));
            }
            None => {
                out.to_text.push(dest.to_string());
                edits.push((range.clone(), whole[open.min(close)..close].to_string()));
            }
        }
    }
    let mut last = 0;
    for (r, text) in edits {
        if r.start < last {
            continue; // a link inside a link's words: the outer edit already covers it
        }
        out.text.push_str(&src[last..r.start]);
        out.text.push_str(&text);
        last = r.end;
    }
    out.text.push_str(&src[last..]);
    out
}

/// The destinations of the local images of `src` (inline `![words](path)` whose path is not a
/// URL), each once, in the order of the text: what the command may copy into the spec.
pub fn local_images(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for event in Parser::new_ext(src, markdown_options()) {
        if let Event::Start(Tag::Image {
            link_type: LinkType::Inline,
            dest_url,
            ..
        }) = event
        {
            let dest = dest_url.to_string();
            if !dest.is_empty()
                && !is_absolute(&dest)
                && !dest.starts_with('#')
                && !out.contains(&dest)
            {
                out.push(dest);
            }
        }
    }
    out
}

/// A URL with a scheme (`https:`, `mailto:`), or protocol-relative.
fn is_absolute(dest: &str) -> bool {
    dest.starts_with("//")
        || dest.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
}

/// `base` and a relative path, one `/` between them.
fn join(base: &str, rel: &str) -> String {
    let rel = rel.trim_start_matches("./");
    format!("{}/{rel}", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> Anchors {
        Anchors {
            own: BTreeMap::from([("create".to_string(), "operations".to_string())]),
            elsewhere: BTreeMap::from([("delivery".to_string(), "transport".to_string())]),
            siblings: BTreeMap::from([(
                "fields.md".to_string(),
                crate::import::Placed {
                    anchors: BTreeMap::from([(
                        "priority".to_string(),
                        "message-fields".to_string(),
                    )]),
                    first: "message-fields".to_string(),
                },
            )]),
            images: BTreeMap::from([("img/seq.png".to_string(), "seq.png".to_string())]),
        }
    }

    #[test]
    fn sections_go_to_their_chapter_files_to_the_base_or_become_words() {
        let src = "See [create](#create), [config](./config.md#hooks), [gone](#nowhere), \
                   [web](https://x.org/a) and [mail](mailto:a@b.c).\n";
        let with_base = rewrite(src, &anchors(), Some("https://github.com/o/r/blob/v1/"));
        assert_eq!(
            with_base.text,
            "See [create](operations.md#create), [config](https://github.com/o/r/blob/v1/config.md#hooks), \
             gone, [web](https://x.org/a) and [mail](mailto:a@b.c).\n"
        );
        assert_eq!((with_base.to_chapters, with_base.to_base), (1, 1));
        assert_eq!(with_base.to_text, ["#nowhere"]);

        let without = rewrite(src, &anchors(), None);
        assert!(
            without
                .text
                .starts_with("See [create](operations.md#create), config, gone,")
        );
        assert_eq!(without.to_text, ["./config.md#hooks", "#nowhere"]);

        // A section of a document imported into the same contract before.
        let beside = rewrite("See [delivery](binding.md#delivery).\n", &anchors(), None);
        assert_eq!(beside.text, "See [delivery](transport.md#delivery).\n");
        assert_eq!(beside.to_base, 1);
    }

    /// A document imported in the same run: its file lands on its first chapter, a section on
    /// the chapter holding it; a section it does not have keeps its words.
    #[test]
    fn links_to_a_document_imported_together_land_on_its_chapters() {
        let src = "See [f](fields.md), [p](./fields.md#priority) and [x](fields.md#nowhere).\n";
        let r = rewrite(src, &anchors(), None);
        assert_eq!(
            r.text,
            "See [f](message-fields.md), [p](message-fields.md#priority) and x.\n"
        );
        assert_eq!(r.to_text, ["fields.md#nowhere"]);
    }

    /// A local image cannot be kept in the spec: under the link base it is the upstream file,
    /// without one its alt text, named; a remote image stays.
    #[test]
    fn local_images_go_under_the_base_or_keep_their_words() {
        let src = "A ![flow diagram](img/flow.png) and ![x](https://x.org/a.png).\n";
        let r = rewrite(src, &anchors(), None);
        assert_eq!(r.text, "A flow diagram and ![x](https://x.org/a.png).\n");
        assert_eq!(r.to_text, ["img/flow.png"]);
        let r = rewrite(src, &anchors(), Some("https://x.org/b/"));
        assert!(
            r.text
                .starts_with("A ![flow diagram](https://x.org/b/img/flow.png)")
        );
        // One copied into the spec: the path from a chapter to it.
        let r = rewrite("See ![s](img/seq.png).\n", &anchors(), None);
        assert_eq!(r.text, "See ![s](../images/seq.png).\n");
        assert_eq!(local_images(src), ["img/flow.png"]);
    }

    #[test]
    fn code_and_text_without_links_are_unchanged() {
        let src = "```\n[a](#create)\n```\n\nNo links here: `[b](c.md)`.\n";
        let r = rewrite(src, &anchors(), None);
        assert_eq!(r.text, src);
        assert!(r.to_text.is_empty());
    }
}

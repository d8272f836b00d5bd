//! The links of an imported text. `check` accepts only links that land inside the spec (a
//! chapter, `chapter.md#heading`) or full URLs, so an import must say where each relative link of
//! the source goes: a `#section` of the source becomes `chapter.md#section` of the chapter that
//! now holds that heading; a link to another file becomes a URL under `--link-base` when one is
//! given (the folder the source lives in upstream), and plain text (its words kept, the target
//! counted and reported) when not.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Parser, Tag};

use crate::spec_source::markdown_options;

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
pub(super) fn rewrite(
    src: &str,
    anchors: &BTreeMap<String, String>,
    base: Option<&str>,
) -> Rewritten {
    let mut out = Rewritten {
        text: String::new(),
        to_chapters: 0,
        to_base: 0,
        to_text: Vec::new(),
    };
    // (range in src, replacement), in source order and never overlapping.
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (event, range) in Parser::new_ext(src, markdown_options()).into_offset_iter() {
        let Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url,
            ..
        }) = event
        else {
            continue;
        };
        let dest = dest_url.as_ref();
        if dest.is_empty() || is_absolute(dest) {
            continue;
        }
        let whole = &src[range.clone()];
        // `[words](dest…)`: the destination as written follows the last `](`.
        let Some(close) = whole.rfind("](") else {
            continue;
        };
        let Some(at) = whole[close..].find(dest).map(|i| close + i) else {
            continue; // written with escapes or `<…>`: leave it as the author wrote it
        };
        let new_dest = match dest.strip_prefix('#') {
            Some(anchor) => anchors.get(anchor).map(|chapter| {
                out.to_chapters += 1;
                format!("{chapter}.md#{anchor}")
            }),
            None => base.map(|b| {
                out.to_base += 1;
                join(b, dest)
            }),
        };
        match new_dest {
            Some(d) => {
                let start = range.start + at;
                edits.push((start..start + dest.len(), d));
            }
            None => {
                out.to_text.push(dest.to_string());
                edits.push((range.clone(), whole[1..close].to_string()));
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

    fn anchors() -> BTreeMap<String, String> {
        BTreeMap::from([("create".to_string(), "operations".to_string())])
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
    }

    #[test]
    fn code_and_text_without_links_are_unchanged() {
        let src = "```\n[a](#create)\n```\n\nNo links here: `[b](c.md)`.\n";
        let r = rewrite(src, &anchors(), None);
        assert_eq!(r.text, src);
        assert!(r.to_text.is_empty());
    }
}

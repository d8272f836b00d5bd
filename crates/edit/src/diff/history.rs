//! The contract's history as data: each earlier version named by `history:` in `contract.yaml`
//! loaded like the current one, and every version step compared by [`compare`](super::compare),
//! the comparison `kcontract diff` prints. The site's Changes page is rendered from these
//! [`Diff`]s, so the page and the command cannot disagree about what changed or what kind of
//! change it was.
//!
//! Informative text is shown as words: for each chapter whose prose a step changed, the sentences
//! added, removed or changed, as a reader reads them (the rendered words, markup and link targets
//! left out), not the Markdown lines `diff` counts. A step that only re-wrapped the text or changed
//! link targets has no such sentence.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use rayon::prelude::*;
use serde::Serialize;
use similar::{Algorithm, DiffOp};

use super::{Diff, Op, Words, unreadable_ids, word_diff};
use crate::words::{key_words, similarity};
use kcontract_spec::diagnostic::Diagnostic;
use kcontract_spec::diagnostic::plural;
use kcontract_spec::{Block, Contract, EarlierVersion, Spec, markdown_options};
use kcontract_spec::{LoadOptions, Loaded};

/// What changed from each earlier version of the contract to the next, oldest first; empty for a
/// contract without `history:`, whose site then has no Changes page.
#[derive(Debug, Default)]
pub struct History {
    /// The version steps, oldest first; the last one ends at the current version.
    pub steps: Vec<Step>,
}

impl History {
    /// No earlier version: nothing to show.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// One version step: an earlier version, the one after it, and what changed between them.
#[derive(Debug)]
pub struct Step {
    /// The earlier version.
    pub old: EarlierVersion,
    /// The version after it: a later earlier version, or `None` for the current one.
    pub new: Option<EarlierVersion>,
    /// What changed, as `kcontract diff <old> <new>` reports it.
    pub diff: Diff,
    /// The sentences of informative text it changed, per chapter and language (those of
    /// `diff.prose` with a sentence changed), in `diff.prose`'s order.
    pub prose: Vec<ProseWords>,
}

/// The informative text of one chapter in one language that a step changed, as sentences.
#[derive(Debug, Serialize)]
pub struct ProseWords {
    /// The language.
    pub lang: String,
    /// The chapter.
    pub chapter: String,
    /// The sentences added, removed or changed, in the text's order.
    pub sentences: Vec<Sentence>,
}

/// A sentence of informative text that a step added, removed or changed.
#[derive(Debug, Serialize)]
pub struct Sentence {
    /// What happened to it.
    pub kind: SentenceKind,
    /// Its words as a reader reads them: all inserted (added), all deleted (removed), or the word
    /// diff of the old sentence and the new one (changed), as a reworded clause's.
    pub(crate) words: Vec<Words>,
}

/// What happened to a sentence of informative text. The names are the Changes page's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum SentenceKind {
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
    /// Reworded: an old sentence and the new one that says mostly the same ([`SAME_SENTENCE`]).
    Changed,
}

impl SentenceKind {
    /// Its name (`added`, `removed`, `changed`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// An earlier version and its load.
pub struct Version {
    /// Its entry in `history:`.
    pub(crate) entry: EarlierVersion,
    /// Its folder, as loaded (`path:` relative to the current spec folder).
    pub(crate) dir: PathBuf,
    /// Its folder loaded with the same loader as the current spec.
    pub loaded: Loaded,
}

impl Version {
    /// The errors of its load (its warnings, a stale translation in a version no one edits any
    /// more, are not the current build's business).
    pub fn errors(&self) -> Vec<Diagnostic> {
        self.loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    }
}

/// Every earlier version of `contract` (whose folder is `spec_dir`) loaded, in parallel, in date
/// order (the order listed among versions of the same date).
pub fn load(spec_dir: &Path, contract: &Contract) -> Vec<Version> {
    let mut entries: Vec<&EarlierVersion> = contract.history.iter().collect();
    // `date` is checked to be `YYYY-MM-DD` (K0015): as text it sorts as a date.
    entries.sort_by(|a, b| a.date.cmp(&b.date));
    entries
        .into_par_iter()
        .map(|entry| {
            let dir = entry.dir(spec_dir);
            Version {
                entry: entry.clone(),
                loaded: kcontract_spec::load_with(&dir, LoadOptions::default()),
                dir,
            }
        })
        .collect()
}

/// K0016 for each version whose load had errors (those are printed with the version's own files;
/// this one points at its `path:` in the current `contract.yaml`). Empty when all loaded.
pub fn broken(versions: &[Version], spec_dir: &Path) -> Vec<Diagnostic> {
    versions
        .iter()
        .filter_map(|v| {
            let n = v.loaded.error_count();
            (n > 0).then(|| {
                Diagnostic::error(
                    "K0016",
                    format!(
                        "the earlier version `{}` has {n} error{} (above); its changes cannot be shown",
                        v.entry.name,
                        plural(n)
                    ),
                )
                .at(
                    v.entry.span.clone(),
                    format!("`{}` does not load", v.entry.dir(spec_dir).display()),
                )
                .help(format!(
                    "an earlier version is kept as it was; fix what broke it (`kcontract check --spec {}` lists the errors) or correct `path`",
                    v.entry.dir(spec_dir).display()
                ))
            })
        })
        .collect()
}

/// Each version step of `versions` (as [`load`] returns them) and then `current` compared, oldest
/// first.
pub fn compare(versions: &[Version], current: &Spec) -> History {
    let steps = versions
        .par_iter()
        .enumerate()
        .map(|(i, v)| {
            let next = versions.get(i + 1);
            let new_spec = next.map_or(current, |n| &n.loaded.spec);
            let mut unreadable: BTreeSet<String> = unreadable_ids(&v.loaded, &v.dir);
            if let Some(n) = next {
                unreadable.extend(unreadable_ids(&n.loaded, &n.dir));
            }
            let diff = super::compare(&v.loaded.spec, new_spec, &unreadable, None);
            Step {
                old: v.entry.clone(),
                new: next.map(|n| n.entry.clone()),
                prose: prose_words(&diff, &v.loaded.spec, new_spec),
                diff,
            }
        })
        .collect();
    History { steps }
}

/// The sentences of informative text each chapter of `diff.prose` changed from `old` to `new`;
/// a chapter whose change is only of form (wrapping, link targets, markup) is left out.
fn prose_words(diff: &Diff, old: &Spec, new: &Spec) -> Vec<ProseWords> {
    diff.prose
        .iter()
        .filter_map(|p| {
            let (a, b) = (
                sentences(old, &p.lang, &p.chapter),
                sentences(new, &p.lang, &p.chapter),
            );
            let sentences = sentence_diff(&a, &b);
            (!sentences.is_empty()).then(|| ProseWords {
                lang: p.lang.clone(),
                chapter: p.chapter.clone(),
                sentences,
            })
        })
        .collect()
}

/// How alike an old sentence and a new one must be (the Dice coefficient of their key words) to
/// be one sentence changed rather than one removed and another added.
const SAME_SENTENCE: f64 = 0.5;

/// The sentences of `b` that are not in `a` and those of `a` not in `b`, an old and a new one that
/// say mostly the same paired as changed, in the text's order.
fn sentence_diff(a: &[String], b: &[String]) -> Vec<Sentence> {
    let mut out = Vec::new();
    for op in similar::capture_diff_slices(Algorithm::Myers, a, b) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => out.extend(
                a[old_index..old_index + old_len]
                    .iter()
                    .map(|x| whole(Op::Delete, x)),
            ),
            DiffOp::Insert {
                new_index, new_len, ..
            } => out.extend(
                b[new_index..new_index + new_len]
                    .iter()
                    .map(|x| whole(Op::Insert, x)),
            ),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => replaced(
                &a[old_index..old_index + old_len],
                &b[new_index..new_index + new_len],
                &mut out,
            ),
        }
    }
    out
}

/// Old sentences `a` replaced by new ones `b`: each old one paired, in order, with the first later
/// new one alike enough ([`SAME_SENTENCE`]) as changed; the rest removed or added, where they were.
fn replaced(a: &[String], b: &[String], out: &mut Vec<Sentence>) {
    let keys = |s: &[String]| s.iter().map(|x| sentence_key(x)).collect::<Vec<_>>();
    let (ka, kb) = (keys(a), keys(b));
    let mut next = 0;
    for (i, old) in a.iter().enumerate() {
        let pair = (next..b.len()).find(|&j| similarity(&ka[i], &kb[j]) >= SAME_SENTENCE);
        match pair {
            Some(j) => {
                out.extend(b[next..j].iter().map(|x| whole(Op::Insert, x)));
                out.push(Sentence {
                    kind: SentenceKind::Changed,
                    words: word_diff(old, &b[j]),
                });
                next = j + 1;
            }
            None => out.push(whole(Op::Delete, old)),
        }
    }
    out.extend(b[next..].iter().map(|x| whole(Op::Insert, x)));
}

/// What two sentences are compared by: their key words, or, for a text without any (Chinese),
/// its letters, so that two sentences with no key words are not "the same".
fn sentence_key(sentence: &str) -> Vec<String> {
    let mut key = key_words(sentence, false);
    if key.is_empty() {
        key = sentence
            .chars()
            .filter(|c| c.is_alphanumeric())
            .map(String::from)
            .collect();
        key.sort();
    }
    key
}

/// A sentence only in the new version ([`Op::Insert`]) or only in the old one.
fn whole(op: Op, s: &str) -> Sentence {
    Sentence {
        kind: if op == Op::Insert {
            SentenceKind::Added
        } else {
            SentenceKind::Removed
        },
        words: vec![Words {
            op,
            text: s.to_owned(),
        }],
    }
}

/// The sentences a reader reads in the informative text of `chapter` in `lang` (the source
/// language's documents or a translation's; none when `spec` has no such chapter).
fn sentences(spec: &Spec, lang: &str, chapter: &str) -> Vec<String> {
    let docs = if spec.contract.languages.first().map(String::as_str) == Some(lang) {
        &spec.documents
    } else {
        match spec.translations.iter().find(|t| t.lang == lang) {
            Some(t) => &t.documents,
            None => return Vec::new(),
        }
    };
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| d.chapter == chapter) {
        for block in &doc.blocks {
            if let Block::Prose(p) = block {
                for unit in text_blocks(&p.without_clauses()) {
                    split_sentences(&unit, &mut out);
                }
            }
        }
    }
    out
}

/// The plain text of each paragraph, heading, list item, table row and code block of `markdown`,
/// as a reader reads it: text and code spans, without markup, link targets or HTML (an editor's
/// comment is no text), whitespace runs as one space.
fn text_blocks(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut unit = String::new();
    let mut flush = |unit: &mut String| {
        let words = unit.split_whitespace().collect::<Vec<_>>().join(" ");
        if !words.is_empty() {
            out.push(words);
        }
        unit.clear();
    };
    for event in Parser::new_ext(markdown, markdown_options()) {
        match event {
            Event::Text(t) | Event::Code(t) => unit.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::InlineHtml(_) => unit.push(' '),
            Event::Start(Tag::TableCell) | Event::End(TagEnd::TableCell) => unit.push(' '),
            // Inline markup joins its words to the text around it.
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. })
            | Event::End(
                TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link,
            ) => {}
            // A block starts or ends: its text is one unit (a list item's before its sub-list).
            Event::Start(_) | Event::End(_) => flush(&mut unit),
            _ => {}
        }
    }
    flush(&mut unit);
    out
}

/// `text` split into sentences, each pushed onto `out`: after `.`, `!` or `?` followed by a space
/// and a word that does not start in lowercase ("e.g. the" stays one sentence), and after `。`,
/// `！`, `？`.
fn split_sentences(text: &str, out: &mut Vec<String>) {
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let stop = match c {
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => {
                let rest = &text[end..];
                rest.strip_prefix(' ')
                    .and_then(|r| r.chars().next())
                    .is_some_and(|n| !n.is_lowercase())
            }
            _ => false,
        };
        if stop {
            let sentence = text[start..end].trim();
            if !sentence.is_empty() {
                out.push(sentence.to_owned());
            }
            start = end;
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn text_blocks_are_rendered_words() {
        assert_eq!(
            text_blocks(
                "# Title\n\nSee **the** [spec](https://x/y) and `PORT`.\n<!-- note -->\n\n- one\n  - two\n\n| a | b |\n| - | - |\n| c | d |\n"
            ),
            strings(&[
                "Title",
                "See the spec and PORT.",
                "one",
                "two",
                "a b",
                "c d"
            ])
        );
    }

    #[test]
    fn sentences_split_at_their_end_only() {
        let mut out = Vec::new();
        split_sentences("One, e.g. this. Two? Three! 四。五", &mut out);
        assert_eq!(
            out,
            strings(&["One, e.g. this.", "Two?", "Three!", "四。", "五"])
        );
    }

    #[test]
    fn a_reworded_sentence_is_changed_an_unlike_one_removed_and_added() {
        let old = strings(&[
            "Kept.",
            "The platform sets the port variable.",
            "Gone entirely.",
        ]);
        let new = strings(&[
            "Kept.",
            "The platform sets the PORT variable now.",
            "Brand new words here.",
        ]);
        let got: Vec<(&str, String)> = sentence_diff(&old, &new)
            .iter()
            .map(|s| {
                let words: Vec<String> = s
                    .words
                    .iter()
                    .map(|w| format!("{}:{}", <&str>::from(w.op), w.text))
                    .collect();
                (s.kind.as_str(), words.join("|"))
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "changed",
                    "equal:The platform sets the |delete:port|insert:PORT variable|equal: |delete:variable.|insert:now."
                        .to_string()
                ),
                ("removed", "delete:Gone entirely.".to_string()),
                ("added", "insert:Brand new words here.".to_string()),
            ]
        );
        // Chinese sentences (no key words) are compared by their letters.
        assert_eq!(
            sentence_diff(&strings(&["甲乙丙。"]), &strings(&["丁戊己。"])).len(),
            2
        );
        assert!(sentence_diff(&old, &old).is_empty());
    }
}

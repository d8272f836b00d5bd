//! What a clause card says of the upstream text around the clause: the whole upstream sentence of
//! a fragment clause (one whose text leaves part of its sentence out, `…`), with the clause's own
//! part marked, and the note on a clause that upstream has since contradicted.
//!
//! Where the whole sentence comes from, data the spec already has first:
//! - **Joined fragments.** A clause ending in `…` followed by one starting with `…` are the two
//!   halves of one sentence split where its obligations change ("The developer MAY specify this port
//!   at deployment; …" and "… if the developer does not specify a port, the platform provider MUST
//!   provide a default."): the sentence is their texts joined at the ellipses (a run of such
//!   clauses, each one's part marked).
//! - **Recorded sentences.** Where the halves overlap (two clauses that repeat the subject, "This
//!   option MAY be set …, …" and "This option … MUST NOT be configurable …", whose "and" no clause
//!   keeps), the chapter records the sentence as upstream wrote it, in a comment the site reads and
//!   `check` ignores (an HTML comment is no keyword use):
//!
//!   ```markdown
//!   <!-- kcontract: upstream-sentence ID ID…
//!   The sentence, Markdown, as upstream wrote it (its keyword links read off), one line per
//!   paragraph or list item.
//!   -->
//!   ```
//!
//! A clause that upstream has since contradicted carries a note, in each language's chapter (the
//! source language's where a translation has none):
//!
//! ```markdown
//! <!-- kcontract: contradicted ID
//! What upstream did, when, and the link to it (Markdown).
//! -->
//! ```
//!
//! `tests/suite/site_sentences.rs` holds every recorded or joined sentence equal to a sentence of the
//! upstream copy (`upstream/`), and every fragment clause of the contract covered.

use std::collections::BTreeMap;

use kcontract_spec::{Block, Document, Spec};

/// The marker of a recorded upstream sentence.
pub(crate) const SENTENCE_MARKER: &str = "<!-- kcontract: upstream-sentence";
/// The marker of a note on a clause upstream has since contradicted.
pub(crate) const CONTRADICTED_MARKER: &str = "<!-- kcontract: contradicted";

/// Where, in the Markdown of its sentence, a clause's own part opens and closes: private-use
/// characters, which no spec writes, replaced by `<mark>` once the Markdown is rendered.
pub(crate) const MARK_OPEN: char = '\u{E001}';
pub(crate) const MARK_CLOSE: char = '\u{E002}';

/// The clause's part of a text the ellipsis marks: the text without its leading and trailing `…`.
fn without_ellipses(text: &str) -> &str {
    text.trim()
        .trim_start_matches('…')
        .trim_end_matches('…')
        .trim()
}

/// Runs of whitespace as one space.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The notes of one comment marker: (the ids on its first line, the Markdown after it), for each
/// occurrence of `marker` in `docs`' prose.
pub(crate) fn markers<'d>(docs: &'d [Document], marker: &str) -> Vec<(Vec<&'d str>, &'d str)> {
    let mut out = Vec::new();
    for doc in docs {
        for block in &doc.blocks {
            let (Block::Prose(p) | Block::Untranslated(p)) = block else {
                continue;
            };
            let mut rest = p.text.as_str();
            while let Some(at) = rest.find(marker) {
                let after = &rest[at + marker.len()..];
                let Some(end) = after.find("-->") else {
                    break;
                };
                let body = &after[..end];
                // The marker is followed by a space or the line's end, not by more of a word.
                if body.starts_with([' ', '\t', '\n', '\r']) {
                    let (head, text) = body.split_once('\n').unwrap_or((body, ""));
                    out.push((head.split_whitespace().collect(), text.trim()));
                }
                rest = &after[end + 3..];
            }
        }
    }
    out
}

/// Each fragment clause's whole upstream sentence, as Markdown with the clause's part between
/// [`MARK_OPEN`] and [`MARK_CLOSE`], by the clause's place in `spec.clauses`.
pub(crate) fn sentences(spec: &Spec) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    // Recorded sentences first: they are the upstream's words where joining would lose some.
    for (ids, sentence) in markers(&spec.documents, SENTENCE_MARKER) {
        // One line per paragraph or list item (a sentence that leads into a list keeps it).
        let sentence = sentence
            .lines()
            .map(collapse)
            .collect::<Vec<_>>()
            .join("\n");
        for id in ids {
            if let Some(&i) = spec.by_id.get(id) {
                out.insert(i, mark_parts(&sentence, &spec.clauses[i].text));
            }
        }
    }
    // Then runs of clauses joined at their ellipses.
    let clauses = &spec.clauses;
    let mut i = 0;
    while i < clauses.len() {
        let mut j = i;
        while j + 1 < clauses.len()
            && clauses[j].chapter == clauses[j + 1].chapter
            && clauses[j].text.trim_end().ends_with('…')
            && clauses[j + 1].text.trim_start().starts_with('…')
        {
            j += 1;
        }
        if j > i {
            let parts: Vec<String> = clauses[i..=j]
                .iter()
                .map(|c| collapse(without_ellipses(&c.text)))
                .collect();
            for k in i..=j {
                out.entry(k).or_insert_with(|| {
                    parts
                        .iter()
                        .enumerate()
                        .map(|(n, p)| {
                            if n == k - i {
                                format!("{MARK_OPEN}{p}{MARK_CLOSE}")
                            } else {
                                p.clone()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                });
            }
        }
        i = j + 1;
    }
    out
}

/// A sentence without its marks: what the tests compare with the upstream's sentence.
pub(crate) fn plain(sentence: &str) -> String {
    sentence.replace([MARK_OPEN, MARK_CLOSE], "")
}

/// `sentence` with each part of `clause` (its text cut at the ellipses) marked, each found after
/// the one before; a part the sentence does not hold is left unmarked (the test of the contract
/// fails on it).
fn mark_parts(sentence: &str, clause: &str) -> String {
    let mut out = String::with_capacity(sentence.len() + 8);
    let mut rest = sentence;
    for part in clause.split('…').map(collapse).filter(|p| !p.is_empty()) {
        // A part cut at a comma keeps it ("…by the developer, …"): found with or without it.
        let found = rest
            .find(part.as_str())
            .map(|at| (at, part.len()))
            .or_else(|| {
                let short = part.trim_end_matches([',', ';']);
                rest.find(short).map(|at| (at, short.len()))
            });
        if let Some((at, len)) = found {
            out.push_str(&rest[..at]);
            out.push(MARK_OPEN);
            out.push_str(&rest[at..at + len]);
            out.push(MARK_CLOSE);
            rest = &rest[at + len..];
        }
    }
    out.push_str(rest);
    out
}

/// The notes on contradicted clauses in one language's chapters `docs`, by clause id.
pub(crate) fn contradicted(docs: &[Document]) -> BTreeMap<&str, &str> {
    markers(docs, CONTRADICTED_MARKER)
        .into_iter()
        .flat_map(|(ids, note)| ids.into_iter().map(move |id| (id, note)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_marked_in_order() {
        let s =
            "The option MAY be set by the operator, and MUST NOT be configurable by the developer.";
        assert_eq!(
            plain(&mark_parts(
                s,
                "The option … MUST NOT be configurable by the developer."
            )),
            s
        );
        assert_eq!(
            mark_parts(s, "The option MAY be set by the operator, …"),
            format!(
                "{MARK_OPEN}The option MAY be set by the operator,{MARK_CLOSE} and MUST NOT be configurable by the developer."
            )
        );
        assert_eq!(
            mark_parts(s, "The option … MUST NOT be configurable by the developer."),
            format!(
                "{MARK_OPEN}The option{MARK_CLOSE} MAY be set by the operator, and {MARK_OPEN}MUST NOT be configurable by the developer.{MARK_CLOSE}"
            )
        );
    }

    #[test]
    fn markers_are_read_with_their_ids_and_text() {
        let md = "Text.\n\n<!-- kcontract: upstream-sentence a.b c.d\nOne `x`\nsentence.\n-->\n\n<!-- kcontract: upstream-sentences x.y\nno\n-->\n";
        let doc = Document {
            chapter: "one".into(),
            lang: "en".into(),
            file: "one.md".into(),
            title: "One".into(),
            headings: Vec::new(),
            blocks: vec![Block::Prose(kcontract_spec::Prose {
                text: md.into(),
                clauses: Vec::new(),
            })],
            links: Vec::new(),
            link_defs: Default::default(),
        };
        let found = markers(std::slice::from_ref(&doc), SENTENCE_MARKER);
        assert_eq!(found, [(vec!["a.b", "c.d"], "One `x`\nsentence.")]);
    }
}

//! Translation bookkeeping: `kcontract i18n status` and `kcontract i18n stamp`.
//!
//! Like Doorstop's review stamps, and unlike gettext's silent fuzzy fallback: a translated clause
//! records the stamp of the source text it was made from; when the source changes the translation is
//! reported stale until a translator reviews it and re-stamps it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap};
use kcontract_spec::{Spec, TranslationState};

/// Per-chapter counts for each translation: its clauses (current, stale, missing) and its prose
/// (the source's paragraphs, and how many of them the translation still shows from the source).
/// The chapter column is as wide as the longest chapter name, so the counts stay aligned.
pub fn status(spec: &Spec) -> String {
    use kcontract_spec::Block;
    let paragraphs = |doc: &kcontract_spec::Document, untranslated: bool| -> usize {
        doc.blocks
            .iter()
            .map(|b| match b {
                Block::Prose(p) if !untranslated => kcontract_spec::paragraphs(&p.text),
                Block::Untranslated(p) if untranslated => kcontract_spec::paragraphs(&p.text),
                _ => 0,
            })
            .sum()
    };
    let width = spec
        .contract
        .chapters
        .iter()
        .map(|c| c.chars().count())
        .chain(["CHAPTER".len()])
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for tr in &spec.translations {
        let _ = writeln!(out, "{} (from {}):", tr.lang, spec.contract.languages[0]);
        let _ = writeln!(
            out,
            "  {:<width$} {:>7} {:>7} {:>7} {:>7} {:>10} {:>12}",
            "CHAPTER", "CLAUSES", "CURRENT", "STALE", "MISSING", "PARAGRAPHS", "UNTRANSLATED"
        );
        let mut total = [0usize; 6];
        for chapter in &spec.contract.chapters {
            let mut n = [0usize; 6];
            for (i, c) in spec
                .clauses
                .iter()
                .enumerate()
                .filter(|(_, c)| &c.chapter == chapter)
            {
                n[0] += 1;
                match tr.state(i, c) {
                    TranslationState::Current => n[1] += 1,
                    TranslationState::Stale => n[2] += 1,
                    TranslationState::Missing => n[3] += 1,
                }
            }
            let source = spec.documents.iter().find(|d| &d.chapter == chapter);
            n[4] = source.map_or(0, |d| paragraphs(d, false));
            n[5] = tr
                .documents
                .iter()
                .find(|d| &d.chapter == chapter)
                .map_or(n[4], |d| paragraphs(d, true));
            for i in 0..6 {
                total[i] += n[i];
            }
            let _ = writeln!(
                out,
                "  {chapter:<width$} {:>7} {:>7} {:>7} {:>7} {:>10} {:>12}",
                n[0], n[1], n[2], n[3], n[4], n[5]
            );
        }
        let pct = |part: usize, whole: usize| {
            if whole == 0 {
                100.0
            } else {
                100.0 * part as f64 / whole as f64
            }
        };
        let _ = writeln!(
            out,
            "  {:<width$} {:>7} {:>7} {:>7} {:>7} {:>10} {:>12}   {:.1}% of clauses current, {:.1}% of paragraphs translated",
            "total",
            total[0],
            total[1],
            total[2],
            total[3],
            total[4],
            total[5],
            pct(total[1], total[0]),
            pct(total[4] - total[5].min(total[4]), total[4]),
        );
    }
    if spec.translations.is_empty() {
        out.push_str("no translations: contract.yaml lists one language\n");
    }
    out
}

/// Which translated clauses to re-stamp.
pub enum StampTarget {
    /// These clause ids.
    Ids(Vec<String>),
    /// Every stale or not-yet-stamped translation: the translator has reviewed them all.
    AllReviewed,
}

/// Rewrite the `source:` value of the chosen translated clauses to the current source stamp.
/// Edits are made in the files' text (comments and layout untouched) and written atomically.
/// Returns the list of (file, id) re-stamped.
pub fn stamp_clauses(
    spec: &Spec,
    sources: &SourceMap,
    target: &StampTarget,
) -> Result<Vec<(PathBuf, String)>, Diagnostic> {
    if let StampTarget::Ids(ids) = target {
        for id in ids {
            if spec.clause(id).is_none() {
                return Err(
                    Diagnostic::error("K0305", format!("no clause `{id}` to stamp"))
                        .help("pass ids as `kcontract list` shows them, or --all-reviewed"),
                );
            }
            let index = spec.by_id.get(id.as_str()).copied();
            if !spec
                .translations
                .iter()
                .any(|t| index.is_some_and(|i| t.get(i).is_some()))
            {
                return Err(Diagnostic::error(
                    "K0305",
                    format!("clause `{id}` has no translation to stamp"),
                )
                .help("write the translation first (id, text, source), then stamp it"));
            }
        }
    }
    // file → edits (byte range of the `source:` value, new stamp)
    let mut edits: BTreeMap<FileId, Vec<(std::ops::Range<usize>, String)>> = BTreeMap::new();
    let mut done = Vec::new();
    for tr in &spec.translations {
        // In id order, as the files are edited and reported.
        for (id, &i) in &spec.by_id {
            let Some(t) = tr.get(i) else {
                continue;
            };
            let source = &spec.clauses[i];
            let wanted = match target {
                StampTarget::Ids(ids) => ids.contains(id),
                StampTarget::AllReviewed => tr.state(i, source) == TranslationState::Stale,
            };
            let new = source.stamp.clone();
            if !wanted || t.source == new {
                continue;
            }
            edits
                .entry(t.source_span.file)
                .or_default()
                .push((t.source_span.range.clone(), new));
            done.push((sources.get(t.source_span.file).path.clone(), id.clone()));
        }
    }
    for (file_id, mut list) in edits {
        let file = sources.get(file_id);
        let path = &file.path;
        let mut text = file.text.clone();
        list.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        for (range, new) in list {
            text.replace_range(range, &new);
        }
        kcontract_spec::fsutil::write_atomic(path, file.written(&text).as_bytes()).map_err(
            |e| {
                Diagnostic::error("K0306", format!("cannot write `{}`: {e}", path.display()))
                    .in_file(path)
                    .help(
                        "check that the spec folder is writable; nothing was changed in this file",
                    )
            },
        )?;
    }
    done.sort();
    Ok(done)
}

/// A piece of a chapter a translation stub mirrors: a heading as written in the source, or a
/// clause (its id, the fields to translate as the source has them, and its stamp).
pub(crate) enum StubPiece<'a> {
    Heading(&'a str),
    Clause {
        id: &'a str,
        fields: Vec<(&'static str, &'a str)>,
        stamp: &'a str,
    },
}

/// The chapter file a translation starts from (`init`, `i18n add`): the source's headings, still
/// in the source language, and a stub of each clause (its id, its source text to translate, the
/// stamp of that text). A stub that still holds the source text counts as not translated
/// (`spec_source/translation.rs`), so the page shows it marked as such and `check` lists it; the
/// prose the stub lacks is shown from the source under a banner until it is written.
pub(crate) fn stub_chapter(lang: &str, pieces: &[StubPiece]) -> String {
    let mut out = format!(
        "<!-- The `{lang}` translation: translate the headings, write the prose (until then the page \
         shows the source's, marked as not translated), and translate each clause's `text`; keep \
         `id` and `source` (the stamp of the source text translated; `kcontract i18n stamp ID` \
         renews it after a review). -->\n"
    );
    for p in pieces {
        out.push('\n');
        match p {
            StubPiece::Heading(h) => {
                out.push_str(h.trim_end());
                out.push('\n');
            }
            StubPiece::Clause { id, fields, stamp } => {
                out.push_str("```clause\n");
                out.push_str(&format!("id: {id}\n"));
                for (key, value) in fields {
                    let quoted = || {
                        format!(
                            "{key}: {}\n",
                            serde_json::to_string(value).unwrap_or_default()
                        )
                    };
                    out.push_str(&crate::fmt::fresh_scalar(key, value).unwrap_or_else(quoted));
                }
                out.push_str(&format!("source: {stamp}\n```\n"));
            }
        }
    }
    out
}

/// The stub of chapter `doc` of the source language (see [`stub_chapter`]): its headings as the
/// source file writes them and its clauses, in the order of the file.
pub fn stub_of(
    spec: &Spec,
    sources: &SourceMap,
    doc: &kcontract_spec::Document,
    lang: &str,
) -> String {
    let mut at: Vec<(usize, StubPiece)> = doc
        .headings
        .iter()
        .map(|h| {
            let text = &sources.get(h.span.file).text[h.span.range.clone()];
            (h.span.range.start, StubPiece::Heading(text))
        })
        .collect();
    for c in spec.clauses.iter().filter(|c| c.chapter == doc.chapter) {
        let mut fields = vec![("text", c.text.as_str())];
        fields.extend(c.reason.as_deref().map(|r| ("reason", r)));
        fields.extend(c.implicit.as_deref().map(|r| ("implicit", r)));
        at.push((
            c.id_span.range.start,
            StubPiece::Clause {
                id: &c.id,
                fields,
                stamp: &c.stamp,
            },
        ));
    }
    at.sort_by_key(|(o, _)| *o);
    let pieces: Vec<StubPiece> = at.into_iter().map(|(_, p)| p).collect();
    stub_chapter(lang, &pieces)
}

/// `contract.yaml`'s text with `lang` added at the end of `languages:` (a flow list `[en, zh]` or
/// a block list of `- en` lines), comments and layout kept; `None` when the list is written some
/// other way.
pub fn add_language(contract: &str, lang: &str) -> Option<String> {
    let lines: Vec<&str> = contract.split_inclusive('\n').collect();
    let at = lines.iter().position(|l| l.starts_with("languages:"))?;
    let rest = lines[at]["languages:".len()..].trim_end();
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_string()).collect();
    if rest.trim_start().starts_with('[') {
        let line = lines[at];
        let open = line.find('[')?;
        let close = open + line[open..].find(']')?;
        let inner = line[open + 1..close].trim_end();
        let sep = if inner.trim().is_empty() { "" } else { ", " };
        out[at] = format!("{}{inner}{sep}{lang}{}", &line[..=open], &line[close..]);
        return Some(out.concat());
    }
    if !rest.trim().is_empty() && !rest.trim_start().starts_with('#') {
        return None;
    }
    let items: Vec<usize> = (at + 1..lines.len())
        .take_while(|&i| {
            let t = lines[i].trim_start();
            t.starts_with("- ") || t.starts_with('#') || t.trim().is_empty()
        })
        .filter(|&i| lines[i].trim_start().starts_with("- "))
        .collect();
    let last = *items.last()?;
    let indent = &lines[last][..lines[last].len() - lines[last].trim_start().len()];
    let newline = if lines[last].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    out[last] = format!("{}{newline}{indent}- {lang}\n", lines[last]);
    Some(out.concat())
}

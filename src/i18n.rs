//! Translation bookkeeping: `kcontract i18n status` and `kcontract i18n stamp`.
//!
//! Like Doorstop's review stamps, and unlike gettext's silent fuzzy fallback: a translated clause
//! records the stamp of the source text it was made from; when the source changes the translation is
//! reported stale until a translator reviews it and re-stamps it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, FileId, SourceMap};
use crate::spec::{Spec, TranslationState};

/// Per-chapter counts for each translation.
pub(crate) fn status(spec: &Spec) -> String {
    let mut out = String::new();
    for tr in &spec.translations {
        let _ = writeln!(out, "{} (from {}):", tr.lang, spec.contract.languages[0]);
        let _ = writeln!(
            out,
            "  {:<24} {:>7} {:>7} {:>7} {:>7}",
            "CHAPTER", "CLAUSES", "CURRENT", "STALE", "MISSING"
        );
        let mut total = [0usize; 4];
        for chapter in &spec.contract.chapters {
            let mut n = [0usize; 4];
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
            for i in 0..4 {
                total[i] += n[i];
            }
            let _ = writeln!(
                out,
                "  {chapter:<24} {:>7} {:>7} {:>7} {:>7}",
                n[0], n[1], n[2], n[3]
            );
        }
        let pct = if total[0] == 0 {
            100.0
        } else {
            100.0 * total[1] as f64 / total[0] as f64
        };
        let _ = writeln!(
            out,
            "  {:<24} {:>7} {:>7} {:>7} {:>7}   {pct:.1}% current",
            "total", total[0], total[1], total[2], total[3]
        );
    }
    if spec.translations.is_empty() {
        out.push_str("no translations: contract.yaml lists one language\n");
    }
    out
}

/// Which translated clauses to re-stamp.
pub(crate) enum StampTarget {
    Ids(Vec<String>),
    /// Every stale or not-yet-stamped translation: the translator has reviewed them all.
    AllReviewed,
}

/// Rewrite the `source:` value of the chosen translated clauses to the current source stamp.
/// Edits are made in the files' text (comments and layout untouched) and written atomically.
/// Returns the list of (file, id) re-stamped.
pub(crate) fn stamp_clauses(
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
        crate::fsutil::write_atomic(path, file.written(&text).as_bytes()).map_err(|e| {
            Diagnostic::error("K0306", format!("cannot write `{}`: {e}", path.display()))
                .in_file(path)
                .help("check that the spec folder is writable; nothing was changed in this file")
        })?;
    }
    done.sort();
    Ok(done)
}

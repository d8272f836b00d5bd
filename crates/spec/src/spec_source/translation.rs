//! Translations: a language's chapters mirror the source's; each translated clause is matched to
//! its source clause (by id), keeps its keywords, and carries the stamp of the source text it was
//! made from, so a changed source shows the translation as stale instead of silently wrong.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::Chapter;
use super::assemble::translated_twice;
use super::chapter::{ParsedChapter, Piece};
use crate::diagnostic::Diagnostic;
use crate::keywords::levels_in;
use crate::spec::{
    Block, Clause, Document, Heading, Spec, TranslatedClause, Translation, TranslationState,
};

/// Load one translation: its chapters mirror the source's; each clause must translate an existing
/// source clause, keep its level, and carry the stamp of the source text it was made from.
pub(super) fn load_translation(
    lang: &str,
    parsed: Vec<(String, PathBuf, ParsedChapter)>,
    spec: &Spec,
    unbuilt: &std::collections::BTreeSet<String>,
    diags: &mut Vec<Diagnostic>,
) -> Translation {
    let mut tr = Translation {
        lang: lang.to_string(),
        ..Translation::default()
    };
    // Per source clause, the translation registered for it.
    tr.clauses = vec![None; spec.clauses.len()];
    let translating = Translating {
        lang,
        spec,
        unbuilt,
    };
    let mut parsed = parsed.into_iter().peekable();
    for source in &spec.documents {
        let doc = match parsed.next_if(|(chapter, _, _)| *chapter == source.chapter) {
            Some(chapter) => translating.chapter(chapter, &mut tr.clauses, diags),
            // No file in this language: the chapter is not translated yet, and shows the source.
            None => {
                let file = translation_file(&source.file, lang, &source.chapter);
                tr.missing_chapters
                    .push((source.chapter.clone(), file.clone()));
                Document {
                    chapter: source.chapter.clone(),
                    lang: lang.to_string(),
                    file,
                    title: source.title.clone(),
                    headings: Vec::new(),
                    blocks: Vec::new(),
                    links: Vec::new(),
                    link_defs: Default::default(),
                }
            }
        };
        tr.documents.push(doc);
    }
    place_untranslated(spec, &mut tr);
    tr
}

/// What every chapter of one translation is checked against: its language, the source spec, and
/// the ids of source clause blocks left out for their errors.
struct Translating<'a> {
    lang: &'a str,
    spec: &'a Spec,
    unbuilt: &'a std::collections::BTreeSet<String>,
}

/// Per source clause (by index), the translation registered for it.
type Registered = [Option<Box<TranslatedClause>>];

impl Translating<'_> {
    /// One chapter file of a translation: its translated clauses registered in `translated` (by
    /// source clause; a clause translated twice is an error), checked against their source
    /// clauses, and the chapter's document (its headings aligned with the source's; the
    /// untranslated clauses are placed afterwards, by [`place_untranslated_in`]).
    fn chapter(
        &self,
        (chapter, file, parsed): Chapter,
        translated: &mut Registered,
        diags: &mut Vec<Diagnostic>,
    ) -> Document {
        let mut blocks = Vec::with_capacity(parsed.pieces.len());
        // Where each clause shown stands: (its line here, its source clause's line), to tell which
        // source heading the section of each translated heading holds clauses of.
        let mut placed: Vec<(usize, usize)> = Vec::new();
        for piece in parsed.pieces {
            match piece {
                Piece::Prose(p) => blocks.push(Block::Prose(p)),
                Piece::Clause(_) => {}
                Piece::Translated(t) => {
                    let line = t.line;
                    if let Some(idx) = self.register(t, translated, diags) {
                        placed.push((line, self.spec.clauses[idx].line));
                        blocks.push(Block::Clause(idx));
                    }
                }
            }
        }
        let mut headings = parsed.headings;
        if let Some(source) = self.spec.documents.iter().find(|d| d.chapter == chapter) {
            let held = held_sections(&source.headings, &headings, &placed);
            align_headings(&source.headings, &mut headings, &held, diags);
        }
        Document {
            title: parsed.title.unwrap_or_else(|| chapter.clone()),
            chapter,
            lang: self.lang.to_string(),
            file,
            headings,
            links: parsed.links,
            link_defs: parsed.link_defs,
            blocks,
        }
    }

    /// Translated clause `t` registered for its source clause, whose index it returns; `None`
    /// when it translates no clause (K0302) or one already translated. A stub (`i18n add` writes
    /// them) still holds the source text: shown where it stands, untranslated, and reported as
    /// missing until it is translated.
    fn register(
        &self,
        t: Box<TranslatedClause>,
        translated: &mut Registered,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<usize> {
        let Some(&idx) = self.spec.by_id.get(&t.id) else {
            // The source clause is there but has errors (reported where it is): the translation
            // is not the problem.
            if !self.unbuilt.contains(&t.id) {
                diags.push(
                    Diagnostic::error("K0302", format!("`{}` translates a clause that does not exist", t.id))
                        .at(t.span.clone(), format!("no clause `{}` in the source language", t.id))
                        .help("use the id of the source clause this translates; if the source clause was removed, remove its translation too"),
                );
            }
            return None;
        };
        if let Some(first) = &translated[idx] {
            diags.push(translated_twice(&t.id, &t.span, &first.span));
            return None;
        }
        let source = &self.spec.clauses[idx];
        if !is_stub(&t, source) {
            self.check_keywords(&t, source, diags);
            check_fields(&t, source, diags);
            translated[idx] = Some(t);
        }
        Some(idx)
    }

    /// K0304: the translation uses the same keywords as the source text (none for an `implicit`
    /// clause), so the level stays visible in every language.
    fn check_keywords(&self, t: &TranslatedClause, source: &Clause, diags: &mut Vec<Diagnostic>) {
        let (levels, expected) = (levels_in(&t.text), levels_in(&source.text));
        if levels == expected {
            return;
        }
        let says = |ls: &[crate::keywords::Level]| {
            if ls.is_empty() {
                "no keyword".to_string()
            } else {
                ls.iter()
                    .map(|l| l.to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            }
        };
        diags.push(
            Diagnostic::error("K0304", format!("the translation of `{}` says {}, the source text says {}", t.id, says(&levels), says(&expected)))
                .at(t.span.clone(), "in this translated clause")
                .help(format!("keep the English keyword next to the translation, e.g. {}; a translation never changes the level", keyword_example(self.lang, source.level))),
        );
    }
}

/// K0309: a translation's `reason` and `implicit` translate the source clause's, so it has them only
/// where the source has.
fn check_fields(t: &TranslatedClause, source: &Clause, diags: &mut Vec<Diagnostic>) {
    for (field, translated, source) in [
        ("reason", &t.reason, &source.reason),
        ("implicit", &t.implicit, &source.implicit),
    ] {
        if translated.is_some() && source.is_none() {
            diags.push(
                Diagnostic::error("K0309", format!("the translation of `{}` has a `{field}` the source clause lacks", t.id))
                    .at(t.span.clone(), format!("the source clause has no `{field}`"))
                    .help(format!("remove `{field}` from the translation: it translates the source clause's `{field}`, and is shown only where the source has one")),
            );
        }
    }
}

/// For each translated heading, the source heading (index) that the first clause of its section
/// (up to the next heading) sits under in the source, if its section holds clauses. `placed`: per
/// clause, its line in the translation and its source clause's line in the source chapter.
fn held_sections(
    source: &[Heading],
    translated: &[Heading],
    placed: &[(usize, usize)],
) -> Vec<Option<usize>> {
    let under = |headings: &[Heading], line: usize| headings.iter().rposition(|h| h.line < line);
    let mut held = vec![None; translated.len()];
    for &(here, there) in placed {
        if let (Some(t), Some(s)) = (under(translated, here), under(source, there)) {
            held[t].get_or_insert(s);
        }
    }
    held
}

/// A translated heading takes the id of the source heading at the same position, so
/// `#default-filesystems` lands on 默认文件系统 and the language switch keeps the section. That needs
/// the same headings, at the same levels, in the same order: the first difference is a warning
/// (K0307, like a missing translation) and the headings from there on keep ids of their own text
/// (a link to one of them from the translation is then an error, K0118). Levels alone miss a heading
/// added or dropped among headings of one level, so `held` (see [`held_sections`]) tells too: a
/// heading whose clauses sit under another source heading than the one at its position shows the
/// headings shifted, and the difference is put where the shift starts, at the added heading or
/// where the dropped one was, not at the first heading whose level happens to differ.
fn align_headings(
    source: &[Heading],
    translated: &mut [Heading],
    held: &[Option<usize>],
    diags: &mut Vec<Diagnostic>,
) {
    let a = Alignment { source, held };
    let Some(k) = (0..translated.len()).find(|&i| !a.fits(translated, i, i)) else {
        take_anchors(translated, source);
        diags.extend(a.missing_at_end(translated));
        return;
    };
    let (cut, d) = match a.shift(translated, k) {
        Some((p, j, s)) if j > s => (p, a.added(translated, p, j, s)),
        Some((p, j, s)) => (p, a.dropped(translated, p, j, s)),
        None => (k, a.mismatch(translated, k)),
    };
    take_anchors(&mut translated[..cut], source);
    diags.push(d);
}

/// Each of `translated` takes the anchor of the source heading at its position.
fn take_anchors(translated: &mut [Heading], source: &[Heading]) {
    for (h, s) in translated.iter_mut().zip(source) {
        h.anchor.clone_from(&s.anchor);
    }
}

/// The source chapter's headings, and per translated heading the source heading its clauses sit
/// under ([`held_sections`]): what [`align_headings`] compares.
struct Alignment<'a> {
    source: &'a [Heading],
    held: &'a [Option<usize>],
}

impl Alignment<'_> {
    /// Can translated heading `t` be source heading `s`: the same level, and its clauses (if any)
    /// from that section?
    fn fits(&self, translated: &[Heading], t: usize, s: usize) -> bool {
        self.source.get(s).is_some_and(|sh| {
            sh.level == translated[t].level && self.held[t].is_none_or(|h| h == s)
        })
    }

    /// Every translated heading fits: K0307 when the source has more.
    fn missing_at_end(&self, translated: &[Heading]) -> Option<Diagnostic> {
        let missing = self.source.get(translated.len())?;
        let d = Diagnostic::warning(
            "K0307",
            format!(
                "the translation lacks the heading `{}` of the source",
                missing.title
            ),
        )
        .help(TRANSLATE_EVERY_HEADING);
        Some(match translated.last() {
            Some(last) => d
                .at(last.span.clone(), "the last translated heading")
                .with_context(
                    missing.span.clone(),
                    "this source heading has no translation",
                ),
            None => d.at(
                missing.span.clone(),
                "this source heading has no translation",
            ),
        })
    }

    /// The first heading from `k` (the first that does not fit) on that holds clauses, if they are
    /// another section's: translated heading `j` is source heading `s`, so headings were added
    /// (j > s) or dropped (j < s) from some heading `p` at or before `k` on, the first from which
    /// the shifted alignment fits. `(p, j, s)`, or `None` when no shift explains the difference.
    fn shift(&self, translated: &[Heading], k: usize) -> Option<(usize, usize, usize)> {
        let held = self.held;
        (k..translated.len())
            .find_map(|j| held[j].map(|s| (j, s)))
            .filter(|&(j, s)| j != s)
            // The next heading with clauses is shifted as much: clauses moved to another section
            // (one heading holding another's) are not a heading added or dropped.
            .filter(|&(j, s)| {
                (j + 1..translated.len())
                    .find_map(|t| held[t].map(|h| (t, h)))
                    .is_none_or(|(t, h)| h + j == t + s)
            })
            .and_then(|(j, s)| {
                let p = if j > s {
                    let d = j - s;
                    (0..=k.min(s)).find(|&p| (p + d..=j).all(|t| self.fits(translated, t, t - d)))
                } else {
                    let d = s - j;
                    (0..=k).find(|&p| (p..=j).all(|t| self.fits(translated, t, t + d)))
                };
                p.map(|p| (p, j, s))
            })
    }

    /// K0307 for headings the source lacks, from translated heading `p` on (`j` holds the clauses
    /// of source heading `s`).
    fn added(&self, translated: &[Heading], p: usize, j: usize, s: usize) -> Diagnostic {
        let h = &translated[p];
        Diagnostic::warning(
            "K0307",
            format!("the translation has a heading the source lacks: `{}`", h.title),
        )
        .at(h.span.clone(), if j - s == 1 { "not in the source".to_string() } else { format!("the first of {} headings not in the source", j - s) })
        .help("remove it, or add it to the source chapter too: a translated heading takes the id of the source heading at the same position, so from this one on the translated headings keep ids of their own text")
        .with_context(
            self.source[s].span.clone(),
            format!(
                "heading {} of the translation, `{}`, holds the clauses of this heading",
                j + 1,
                translated[j].title
            ),
        )
    }

    /// K0307 for source headings the translation lacks, from source heading `p` on (translated
    /// heading `j` holds the clauses of source heading `s`).
    fn dropped(&self, translated: &[Heading], p: usize, j: usize, s: usize) -> Diagnostic {
        let missing = &self.source[p];
        let dropped = s - j;
        Diagnostic::warning(
            "K0307",
            if dropped == 1 {
                format!(
                    "the translation lacks the heading `{}` of the source",
                    missing.title
                )
            } else {
                format!(
                    "the translation lacks {} headings of the source, from `{}` on",
                    s - p,
                    missing.title
                )
            },
        )
        .at(
            translated[p].span.clone(),
            format!("the source has `{}` before this heading", missing.title),
        )
        .help(TRANSLATE_EVERY_HEADING)
        .with_context(
            missing.span.clone(),
            "this source heading has no translation",
        )
    }

    /// K0307 for translated heading `k`, which no shift explains: another level, clauses of
    /// another section, or a heading past the source's last.
    fn mismatch(&self, translated: &[Heading], k: usize) -> Diagnostic {
        let (source, held) = (self.source, self.held);
        let h = &translated[k];
        let found = source.get(k);
        let (label, help) = match found {
            // The level is right: its clauses are another section's.
            Some(s) if s.level == h.level => (
                format!(
                    "holds clauses of `{}` in the source, not of `{}`",
                    held[k].map_or("", |i| source[i].title.as_str()),
                    s.title
                ),
                "move each translated clause to the section of its source clause, under the headings of the source, in the same order".to_string(),
            ),
            Some(s) => (
                format!(
                    "a level-{} heading where the source has `{}` at level {}",
                    h.level, s.title, s.level
                ),
                format!(
                    "give this heading level {} (`{}`), as in the source, or add the missing heading",
                    s.level,
                    "#".repeat(usize::from(s.level))
                ),
            ),
            None => (
                "the source chapter has no heading here".to_string(),
                format!(
                    "the source chapter has {} headings: translate each, and add none",
                    source.len()
                ),
            ),
        };
        let mut d = Diagnostic::warning(
            "K0307",
            format!(
                "heading {} of the translation does not match the source",
                k + 1
            ),
        )
        .at(h.span.clone(), label)
        .help(help);
        if let Some(s) = found {
            d = d.with_context(s.span.clone(), "the source heading at this position");
        }
        d
    }
}

/// How to fix a translation that lacks headings of the source (K0307).
const TRANSLATE_EVERY_HEADING: &str = "translate every heading of the source chapter, in the same order and at the same levels: headings give the sections their ids in every language";

/// A source clause with no translation still appears on the translated page (with the source text
/// and a "not yet translated" badge), right after the translated clause that precedes it in the
/// source chapter — so a reader never silently misses a requirement.
fn place_untranslated(spec: &Spec, tr: &mut Translation) {
    let Translation {
        documents,
        clauses: translated,
        ..
    } = tr;
    let by_chapter: BTreeMap<&str, &Document> = spec
        .documents
        .iter()
        .map(|d| (d.chapter.as_str(), d))
        .collect();
    for doc in documents.iter_mut() {
        if let Some(source_doc) = by_chapter.get(doc.chapter.as_str()) {
            super::untranslated::fill_in(source_doc, doc);
            place_untranslated_in(source_doc, doc, translated);
        }
    }
}

/// How a translation in `lang` keeps the keyword of `level`, for a hint: in the language's own words
/// where kcontract knows them (Chinese, as `spec/README.md` prescribes; the languages of
/// `keyword_examples.tsv`, data rather than code), else with a placeholder, never another
/// language's example.
fn keyword_example(lang: &str, level: crate::keywords::Level) -> String {
    let primary = lang.split('-').next().unwrap_or(lang);
    if primary == "zh" {
        let term = crate::keywords::chinese_terms(level);
        return format!("{}（{level}）", term.first().copied().unwrap_or("必须"));
    }
    let level_name = level.to_string();
    let word = include_str!("keyword_examples.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.len() == 3 && f[0] == primary && f[1] == level_name)
        .map(|f| f[2]);
    match word {
        Some(word) => format!("`{word} ({level})`"),
        None => format!("`<the word in {lang}> ({level})`"),
    }
}

/// Is `t` a stub of `source`: its text, `reason` and `implicit` the source's (words compared, not
/// their wrapping)?
fn is_stub(t: &crate::spec::TranslatedClause, source: &crate::spec::Clause) -> bool {
    let same = |a: &str, b: &str| a.split_whitespace().eq(b.split_whitespace());
    let same_opt = |a: &Option<String>, b: &Option<String>| match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (None, _) => true,
        (Some(_), None) => false,
    };
    same(&t.text, &source.text)
        && same_opt(&t.reason, &source.reason)
        && same_opt(&t.implicit, &source.implicit)
}

/// [`place_untranslated`] in one translated chapter, `doc`, of the source chapter `source_doc`.
pub(super) fn place_untranslated_in(
    source_doc: &Document,
    doc: &mut Document,
    translated: &[Option<Box<crate::spec::TranslatedClause>>],
) {
    {
        let mut previous: Option<usize> = None;
        let shown = super::untranslated::clauses_in(doc);
        for block in &source_doc.blocks {
            let Block::Clause(i) = block else { continue };
            if translated[*i].is_none() && !shown.contains(i) {
                let at = match previous {
                    Some(p) => doc
                        .blocks
                        .iter()
                        .position(|b| matches!(b, Block::Clause(x) if *x == p))
                        .map_or(doc.blocks.len(), |pos| pos + 1),
                    None => doc
                        .blocks
                        .iter()
                        .position(|b| matches!(b, Block::Clause(_)))
                        .unwrap_or(doc.blocks.len()),
                };
                doc.blocks.insert(at, Block::Clause(*i));
            }
            previous = Some(*i);
        }
    }
}

/// The translation of chapter `chapter` into `lang`, beside the source chapter `source` (in the
/// spec folder actually read: `<dir>/<source lang>/<chapter>.md` → `<dir>/<lang>/<chapter>.md`).
fn translation_file(source: &std::path::Path, lang: &str, chapter: &str) -> PathBuf {
    let dir = source.parent().and_then(std::path::Path::parent);
    super::files::chapter_file(dir.unwrap_or(std::path::Path::new("")), lang, chapter)
}

/// Missing and stale translations: warnings by default, errors under `--strict`.
pub(crate) fn translation_diagnostics(spec: &Spec, strict: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let make = |code, msg: String| {
        if strict {
            Diagnostic::error(code, msg)
        } else {
            Diagnostic::warning(code, msg)
        }
    };
    for tr in &spec.translations {
        for (chapter, file) in &tr.missing_chapters {
            let clauses = spec
                .clauses
                .iter()
                .filter(|c| c.chapter == *chapter)
                .count();
            let span = spec
                .documents
                .iter()
                .find(|d| d.chapter == *chapter)
                .and_then(|d| d.headings.first())
                .map(|h| h.span.clone());
            let d = make(
                "K0310",
                format!(
                    "chapter `{chapter}` has no `{}` translation: `{}` does not exist",
                    tr.lang,
                    file.display()
                ),
            );
            let d = match span {
                Some(span) => d.at(
                    span,
                    format!(
                        "shown untranslated in {}, with its {clauses} clause{}",
                        tr.lang,
                        crate::diagnostic::plural(clauses)
                    ),
                ),
                None => d.in_file(file),
            };
            out.push(d.help(format!("run `kcontract i18n add {}`: it writes the missing chapter files with the headings and a stub of each clause to translate", tr.lang)));
        }
        let missing_chapter =
            |c: &crate::spec::Clause| tr.missing_chapters.iter().any(|(m, _)| *m == c.chapter);
        let found = spec.clauses.iter().enumerate().filter_map(|(i, c)| {
            match tr.lookup(i, c) {
                (TranslationState::Missing, _) if missing_chapter(c) => None,
                (TranslationState::Missing, _) => Some(
                    make("K0301", format!("clause `{}` has no `{}` translation", c.id, tr.lang))
                        .at(c.id_span.clone(), format!("not translated into {}", tr.lang))
                        .help(format!("translate the `text` of its block in {} (a stub holds the source text until then), or add a clause block with `id: {}`, `text:` and `source: {}` there", translation_file(&c.file, &tr.lang, &c.chapter).display(), c.id, c.stamp)),
                ),
                (TranslationState::Stale, Some(t)) => Some(
                    make("K0303", format!("the `{}` translation of `{}` is stale: the source text changed", tr.lang, c.id))
                        .at(t.source_span.clone(), format!("made from {}, the source text is now {}", t.source, c.stamp))
                        .with_context(c.id_span.clone(), "the source clause")
                        .help(format!("update the translation to the current source text, then run `kcontract i18n stamp {}`", c.id)),
                ),
                _ => None,
            }
        });
        out.extend(found);
    }
    out
}

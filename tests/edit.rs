//! The load after an edit of chapter files (`load_edited`, what `kcontract serve` shows the edited
//! page from first) is the full load's `Spec`, whenever it answers at all, and then that load has
//! no errors: after every step of random sequences of edits to this repository's spec (en and zh)
//! — words in prose and clause texts, a keyword changed, a heading renamed, a clause id renamed,
//! a clause block copied into another chapter, a translated block moved to another chapter or
//! removed, a `review:` note, a link to another chapter's clause (there, or not), a bad level,
//! bytes that are not UTF-8, files restored, and contract.yaml changed behind its back — with and
//! without `--strict`. And it does answer for the edit serve's benchmark makes, with the same
//! pages as a full build's.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::spec_files::{self, CHAPTERS, LANGS, replace_nth, shipped};

use kcontract::spec::Spec;
use kcontract::{LoadOptions, ParseCache, Tree, load_edited, load_reusing};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Edit {
    /// Insert a word after the `nth` "the " (zh: 的) of a chapter file (prose or a clause's text).
    Word {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// The `nth` `MUST` of an English chapter made `SHOULD` (a clause's text and level disagree,
    /// or its translation's keyword does).
    Keyword { chapter: usize, nth: usize },
    /// The `nth` `（MUST）` of a Chinese chapter made `（SHOULD）` (the translation's keyword and
    /// the source's disagree).
    ZhKeyword { chapter: usize, nth: usize },
    /// The `nth` second-level heading of a chapter file renamed (its id changes; links to it
    /// break).
    Heading {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// The `nth` clause id of an English chapter renamed (its translation then translates nothing).
    RenameId { chapter: usize, nth: usize },
    /// The first clause block of one English chapter copied into another (a duplicate id).
    DuplicateBlock { from: usize, to: usize },
    /// The first translated block of one Chinese chapter moved to the end of another.
    MoveTranslation { from: usize, to: usize },
    /// A `review:` note on the first clause of an English chapter (a warning; an error under
    /// `--strict`).
    Review { chapter: usize },
    /// The `nth` second-level heading of a chapter file made third-level (the translation's
    /// headings no longer match the source's, and keep ids of their own from there on).
    HeadingLevel {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// A paragraph linking to the first clause of chapter `target` appended to a chapter file
    /// (`#id` when that is its own chapter); `good: false` names an anchor that is not there.
    Link {
        lang: usize,
        chapter: usize,
        target: usize,
        good: bool,
    },
    /// The first translated block of a Chinese chapter removed (the clause shows untranslated).
    RemoveTranslation { chapter: usize },
    /// The `nth` level made unknown.
    BadLevel {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// A byte that is not UTF-8 at the end.
    NotUtf8 { lang: usize, chapter: usize },
    /// The chapter file as shipped again.
    Restore { lang: usize, chapter: usize },
    /// The `developer` actor removed from contract.yaml, which serve's watcher would report; here
    /// the edit is passed on as one of `chapter`, so the loader must notice.
    RemoveActor { chapter: usize },
    /// contract.yaml as shipped again (passed on as an edit of `chapter`, like `RemoveActor`).
    RestoreContract { chapter: usize },
}

impl Edit {
    /// The chapters the edit is reported as (serve's watcher names the chapter files saved).
    fn chapters(&self) -> BTreeSet<String> {
        let of = |c: &[usize]| c.iter().map(|&c| CHAPTERS[c].to_string()).collect();
        match *self {
            Edit::Word { chapter, .. }
            | Edit::Keyword { chapter, .. }
            | Edit::ZhKeyword { chapter, .. }
            | Edit::Heading { chapter, .. }
            | Edit::RenameId { chapter, .. }
            | Edit::BadLevel { chapter, .. }
            | Edit::NotUtf8 { chapter, .. }
            | Edit::Restore { chapter, .. }
            | Edit::RemoveTranslation { chapter }
            | Edit::Review { chapter }
            | Edit::Link { chapter, .. }
            | Edit::HeadingLevel { chapter, .. }
            | Edit::RemoveActor { chapter }
            | Edit::RestoreContract { chapter } => of(&[chapter]),
            Edit::DuplicateBlock { to, .. } => of(&[to]),
            Edit::MoveTranslation { from, to } => of(&[from, to]),
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    let lang = 0..LANGS.len();
    let ch = 0..CHAPTERS.len();
    prop_oneof![
        8 => (lang.clone(), ch.clone(), 0..12usize)
            .prop_map(|(lang, chapter, nth)| Edit::Word { lang, chapter, nth }),
        1 => (ch.clone(), 0..6usize).prop_map(|(chapter, nth)| Edit::Keyword { chapter, nth }),
        1 => (ch.clone(), 0..6usize).prop_map(|(chapter, nth)| Edit::ZhKeyword { chapter, nth }),
        1 => (lang.clone(), ch.clone(), 0..6usize)
            .prop_map(|(lang, chapter, nth)| Edit::Heading { lang, chapter, nth }),
        1 => (ch.clone(), 0..6usize).prop_map(|(chapter, nth)| Edit::RenameId { chapter, nth }),
        1 => (ch.clone(), ch.clone()).prop_map(|(from, to)| Edit::DuplicateBlock { from, to }),
        1 => (ch.clone(), ch.clone()).prop_map(|(from, to)| Edit::MoveTranslation { from, to }),
        1 => ch.clone().prop_map(|chapter| Edit::RemoveTranslation { chapter }),
        1 => ch.clone().prop_map(|chapter| Edit::Review { chapter }),
        1 => (lang.clone(), ch.clone(), 0..6usize)
            .prop_map(|(lang, chapter, nth)| Edit::HeadingLevel { lang, chapter, nth }),
        2 => (lang.clone(), ch.clone(), ch.clone(), any::<bool>())
            .prop_map(|(lang, chapter, target, good)| Edit::Link { lang, chapter, target, good }),
        1 => (lang.clone(), ch.clone(), 0..6usize)
            .prop_map(|(lang, chapter, nth)| Edit::BadLevel { lang, chapter, nth }),
        1 => (lang.clone(), ch.clone()).prop_map(|(lang, chapter)| Edit::NotUtf8 { lang, chapter }),
        4 => (lang, ch.clone()).prop_map(|(lang, chapter)| Edit::Restore { lang, chapter }),
        1 => ch.clone().prop_map(|chapter| Edit::RemoveActor { chapter }),
        1 => ch.prop_map(|chapter| Edit::RestoreContract { chapter }),
    ]
}

/// The file of chapter number `chapter` in language number `lang`.
fn path(lang: usize, chapter: usize) -> PathBuf {
    spec_files::path(lang, CHAPTERS[chapter])
}

/// The first clause block of `text`, as a range.
fn first_block(text: &str) -> Option<std::ops::Range<usize>> {
    let start = text.find("```clause")?;
    let end = start + 9 + text[start + 9..].find("```")? + 3;
    Some(start..end)
}

fn apply(
    files: &mut BTreeMap<PathBuf, Vec<u8>>,
    shipped: &BTreeMap<PathBuf, Vec<u8>>,
    e: &Edit,
    step: usize,
) {
    let contract = PathBuf::from("s/contract.yaml");
    fn text(files: &BTreeMap<PathBuf, Vec<u8>>, p: &PathBuf) -> String {
        String::from_utf8_lossy(&files[p]).into_owned()
    }
    fn set(files: &mut BTreeMap<PathBuf, Vec<u8>>, p: PathBuf, f: &dyn Fn(&str) -> String) {
        let new = f(&text(files, &p));
        files.insert(p, new.into_bytes());
    }
    match *e {
        Edit::Word { lang, chapter, nth } => set(files, path(lang, chapter), &|t| {
            let word = ["the ", "的"][lang];
            replace_nth(t, word, &format!("{word}edited{step} "), nth)
        }),
        Edit::Keyword { chapter, nth } => set(files, path(0, chapter), &|t| {
            replace_nth(t, "MUST", "SHOULD", nth)
        }),
        Edit::ZhKeyword { chapter, nth } => set(files, path(1, chapter), &|t| {
            replace_nth(t, "（MUST）", "（SHOULD）", nth)
        }),
        Edit::Heading { lang, chapter, nth } => set(files, path(lang, chapter), &|t| {
            replace_nth(t, "\n## ", &format!("\n## Renamed{step} "), nth)
        }),
        Edit::RenameId { chapter, nth } => set(files, path(0, chapter), &|t| {
            replace_nth(t, "\nid: ", &format!("\nid: renamed{step}."), nth)
        }),
        Edit::DuplicateBlock { from, to } => {
            let from_text = text(files, &path(0, from));
            if let Some(r) = first_block(&from_text) {
                let block = from_text[r].to_string();
                set(files, path(0, to), &|t| format!("{t}\n{block}\n"));
            }
        }
        Edit::MoveTranslation { from, to } => {
            if from == to {
                return;
            }
            let from_text = text(files, &path(1, from));
            if let Some(r) = first_block(&from_text) {
                let block = from_text[r.clone()].to_string();
                let rest = format!("{}{}", &from_text[..r.start], &from_text[r.end..]);
                files.insert(path(1, from), rest.into_bytes());
                set(files, path(1, to), &|t| format!("{t}\n{block}\n"));
            }
        }
        Edit::Review { chapter } => set(files, path(0, chapter), &|t| {
            t.replacen("\ntext: ", "\nreview: a person must decide this\ntext: ", 1)
        }),
        Edit::Link {
            lang,
            chapter,
            target,
            good,
        } => {
            let target_text = text(files, &path(0, target));
            let Some(id) = target_text
                .split("\nid: ")
                .nth(1)
                .and_then(|t| t.split_whitespace().next())
            else {
                return;
            };
            let anchor = if good {
                id.to_string()
            } else {
                format!("{id}-nope")
            };
            let file = if target == chapter {
                String::new()
            } else {
                format!("{}.md", CHAPTERS[target])
            };
            let link = format!("\nSee [there]({file}#{anchor}).\n");
            set(files, path(lang, chapter), &|t| format!("{t}{link}"));
        }
        Edit::HeadingLevel { lang, chapter, nth } => set(files, path(lang, chapter), &|t| {
            replace_nth(t, "\n## ", "\n### ", nth)
        }),
        Edit::RemoveTranslation { chapter } => {
            set(files, path(1, chapter), &|t| match first_block(t) {
                Some(r) => format!("{}{}", &t[..r.start], &t[r.end..]),
                None => t.to_string(),
            })
        }
        Edit::BadLevel { lang, chapter, nth } => set(files, path(lang, chapter), &|t| {
            replace_nth(t, "level: ", "level: MUSTY", nth)
        }),
        Edit::NotUtf8 { lang, chapter } => {
            files.get_mut(&path(lang, chapter)).unwrap().push(0xff);
        }
        Edit::Restore { lang, chapter } => {
            let p = path(lang, chapter);
            files.insert(p.clone(), shipped[&p].clone());
        }
        Edit::RemoveActor { .. } => set(files, contract, &|t| {
            t.lines()
                .filter(|l| !l.contains("{name: developer"))
                .map(|l| format!("{l}\n"))
                .collect()
        }),
        Edit::RestoreContract { .. } => {
            files.insert(contract.clone(), shipped[&contract].clone());
        }
    }
}

/// serve's two loads after an edit: the one from the last good `Spec` (if there is one), then the
/// full one, which becomes the next `last` when it has no errors. Returns whether the first answered.
fn step(
    files: &BTreeMap<PathBuf, Vec<u8>>,
    cache: &mut ParseCache,
    last: &mut Option<Spec>,
    chapters: &BTreeSet<String>,
    opts: LoadOptions,
    after: &str,
) -> bool {
    let tree = Tree::Memory(files.clone());
    let dir = Path::new("s");
    let edited = last
        .take()
        .and_then(|spec| load_edited(&tree, dir, opts, spec, cache, chapters));
    let full = load_reusing(&tree, dir, opts, cache);
    let answered = edited.is_some();
    if let Some(edited) = edited {
        assert!(
            !full.has_errors(),
            "load_edited answered, but the full load has errors, after {after}: {:#?}",
            full.diagnostics
        );
        assert!(
            format!("{edited:#?}") == format!("{:#?}", full.spec),
            "load_edited's Spec differs from the full load's after {after}"
        );
    }
    if !full.has_errors() {
        *last = Some(full.spec);
    }
    answered
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("KCONTRACT_EDIT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
    ))]

    #[test]
    fn a_load_after_an_edit_equals_the_full_load(
        edits in proptest::collection::vec(edit(), 1..12),
        strict in any::<bool>(),
    ) {
        let shipped = shipped();
        let mut files = shipped.clone();
        let mut cache = ParseCache::default();
        let opts = LoadOptions { strict, named: false };
        let mut last = None;
        step(&files, &mut cache, &mut last, &BTreeSet::new(), opts, "the first load");
        for (i, e) in edits.iter().enumerate() {
            apply(&mut files, &shipped, e, i);
            step(&files, &mut cache, &mut last, &e.chapters(), opts, &format!("edit {i}: {e:?} (of {edits:?})"));
        }
    }
}

/// It answers for the edits it is for, with the pages a full build makes; and declines an edit
/// that makes an error, and one of contract.yaml.
#[test]
fn it_answers_for_a_word_with_the_full_builds_pages() {
    let shipped = shipped();
    let mut files = shipped.clone();
    let mut cache = ParseCache::default();
    let opts = LoadOptions::default();
    let mut last = None;
    step(
        &files,
        &mut cache,
        &mut last,
        &BTreeSet::new(),
        opts,
        "the first load",
    );
    assert!(last.is_some(), "the shipped spec loads without errors");
    let mut answers = Vec::new();
    for (i, e) in [
        // serve's benchmark: a word in a clause's text.
        Edit::Word {
            lang: 0,
            chapter: 2,
            nth: 3,
        },
        Edit::Word {
            lang: 1,
            chapter: 4,
            nth: 0,
        },
        Edit::Restore {
            lang: 0,
            chapter: 2,
        },
        Edit::RenameId { chapter: 4, nth: 0 },
        Edit::Restore {
            lang: 0,
            chapter: 4,
        },
        // "Default Filesystems", which the Chinese text links to.
        Edit::Heading {
            lang: 0,
            chapter: 4,
            nth: 4,
        },
        Edit::Restore {
            lang: 0,
            chapter: 4,
        },
        // "Inbound network connectivity", which only another chapter links to.
        Edit::Heading {
            lang: 0,
            chapter: 3,
            nth: 0,
        },
        Edit::Restore {
            lang: 0,
            chapter: 3,
        },
        // A link to an anchor of its own chapter that is not there; then one to another's that is.
        Edit::Link {
            lang: 0,
            chapter: 4,
            target: 4,
            good: false,
        },
        Edit::Restore {
            lang: 0,
            chapter: 4,
        },
        Edit::Link {
            lang: 1,
            chapter: 3,
            target: 4,
            good: true,
        },
        // A translation's keyword changed: its level is the source's no more.
        Edit::ZhKeyword { chapter: 4, nth: 0 },
        Edit::Restore {
            lang: 1,
            chapter: 4,
        },
        // A translated block removed: its clause shows untranslated.
        Edit::RemoveTranslation { chapter: 4 },
        Edit::Restore {
            lang: 1,
            chapter: 4,
        },
        // A translated block moved to another chapter's file (no error, but the other chapter's
        // page then holds it); an edit of either chapter while it is there; both restored.
        Edit::MoveTranslation { from: 4, to: 3 },
        Edit::Word {
            lang: 1,
            chapter: 4,
            nth: 0,
        },
        Edit::Restore {
            lang: 1,
            chapter: 3,
        },
        Edit::Restore {
            lang: 1,
            chapter: 4,
        },
        // "Root", which nothing links to.
        Edit::Heading {
            lang: 0,
            chapter: 4,
            nth: 0,
        },
        Edit::RemoveActor { chapter: 0 },
    ]
    .iter()
    .enumerate()
    {
        apply(&mut files, &shipped, e, i);
        let before = last.clone();
        let answered = step(
            &files,
            &mut cache,
            &mut last,
            &e.chapters(),
            opts,
            &format!("{e:?}"),
        );
        answers.push(answered);
        if answered {
            let tree = Tree::Memory(files.clone());
            let spec = load_edited(
                &tree,
                Path::new("s"),
                opts,
                before.unwrap(),
                &ParseCache::default(),
                &e.chapters(),
            );
            assert!(
                spec.is_none(),
                "without the last load's files it cannot answer"
            );
        }
    }
    assert_eq!(
        answers,
        [
            true, true, true, false, false, false, false, false, false, false, false, true, false,
            false, true, true, false, false, false, true, true, false
        ],
        "answers for: word, word (zh), restore, renamed id, restore (from an error), renamed \
         heading (its links break), restore (from an error), renamed heading (another chapter's \
         links break), restore (from an error), broken link, restore (from an error), good link, \
         zh keyword, restore (from an error), translation removed, restore, translation moved, \
         word in one of its chapters, restore one, restore the other, renamed heading, contract \
         edited"
    );

    // The pages: the edited chapter's pages rendered from `load_edited`'s Spec are the full build's.
    let mut files = shipped.clone();
    let mut cache = ParseCache::default();
    let tree = Tree::Memory(files.clone());
    let first = load_reusing(&tree, Path::new("s"), opts, &mut cache);
    apply(
        &mut files,
        &shipped,
        &Edit::Word {
            lang: 0,
            chapter: 2,
            nth: 3,
        },
        0,
    );
    let tree = Tree::Memory(files.clone());
    let chapters: BTreeSet<String> = [CHAPTERS[2].to_string()].into();
    let edited = load_edited(&tree, Path::new("s"), opts, first.spec, &cache, &chapters).unwrap();
    let full = kcontract::load_from(&tree, Path::new("s"), opts);
    let tpl = kcontract::site::templates(None).unwrap();
    let pages = |spec: &Spec, only: Option<&BTreeSet<String>>| {
        let m = kcontract::matrix::compute(spec, &[], None);
        match only {
            Some(c) => kcontract::site::render_chapters(&m, None, &tpl, c).unwrap(),
            None => kcontract::site::render(&m, None, &tpl).unwrap(),
        }
    };
    let first_pages = pages(&edited, Some(&chapters));
    assert_eq!(first_pages.len(), 2, "the chapter's page in each language");
    let all: BTreeMap<String, Vec<u8>> = pages(&full.spec, None).into_iter().collect();
    for (rel, bytes) in &first_pages {
        assert!(
            all.get(rel) == Some(bytes),
            "{rel} differs from the full build's"
        );
    }
    assert!(
        String::from_utf8_lossy(&first_pages[0].1).contains("edited0"),
        "the edit is on the page"
    );
}

/// With the source language alone (no translation whose headings follow the source's), a renamed
/// heading that another chapter links to is still seen.
#[test]
fn a_renamed_heading_is_seen_without_translations() {
    let shipped = shipped();
    let mut files = shipped.clone();
    let contract = PathBuf::from("s/contract.yaml");
    let text = String::from_utf8(files[&contract].clone()).unwrap();
    assert!(text.contains("languages: [en, zh]"));
    // Without zh, and without its `translated:` title and attribution.
    let start = text.find("\ntranslated:\n").unwrap() + 1;
    let end = start + text[start..].find("\n# ").unwrap() + 1;
    let text = format!("{}{}", &text[..start], &text[end..]);
    files.insert(
        contract,
        text.replacen("languages: [en, zh]", "languages: [en]", 1)
            .into_bytes(),
    );
    let mut cache = ParseCache::default();
    let opts = LoadOptions::default();
    let mut last = None;
    let none = BTreeSet::new();
    step(&files, &mut cache, &mut last, &none, opts, "the first load");
    assert!(
        last.is_some(),
        "the English spec alone loads without errors"
    );
    let e = Edit::Word {
        lang: 0,
        chapter: 3,
        nth: 2,
    };
    apply(&mut files, &shipped, &e, 0);
    assert!(step(
        &files,
        &mut cache,
        &mut last,
        &e.chapters(),
        opts,
        "a word"
    ));
    // "Inbound network connectivity", which only another chapter links to.
    let e = Edit::Heading {
        lang: 0,
        chapter: 3,
        nth: 0,
    };
    apply(&mut files, &shipped, &e, 1);
    assert!(!step(
        &files,
        &mut cache,
        &mut last,
        &e.chapters(),
        opts,
        "a renamed heading"
    ));
}

/// A chapter's clause translated in another chapter's file (no error) is not lost when only the
/// first chapter is edited: it declines.
#[test]
fn a_translation_kept_in_another_chapter_is_not_lost() {
    let shipped = shipped();
    let mut files = shipped.clone();
    let mut cache = ParseCache::default();
    let opts = LoadOptions::default();
    let mut last = None;
    let none = BTreeSet::new();
    step(&files, &mut cache, &mut last, &none, opts, "the first load");
    let moved = Edit::MoveTranslation { from: 4, to: 3 };
    apply(&mut files, &shipped, &moved, 0);
    assert!(!step(
        &files,
        &mut cache,
        &mut last,
        &moved.chapters(),
        opts,
        "moved"
    ));
    assert!(
        last.is_some(),
        "a translation in another chapter's file is no error"
    );
    for (i, lang) in [0, 1].into_iter().enumerate() {
        let e = Edit::Word {
            lang,
            chapter: 4,
            nth: 1,
        };
        apply(&mut files, &shipped, &e, i + 1);
        assert!(!step(
            &files,
            &mut cache,
            &mut last,
            &e.chapters(),
            opts,
            "a word"
        ));
    }
}

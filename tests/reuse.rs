//! The load that reuses parsed chapter files (`kcontract serve`'s) is the same as a fresh load, after
//! every step of random sequences of edits to this repository's spec (en and zh): words changed in
//! prose and clause texts, errors introduced and fixed again (a keyword in prose, a bad level, bytes
//! that are not UTF-8, a clause id defined in two chapters), chapter files removed, renamed and put
//! back, and edits of contract.yaml (a comment, a removed actor, the languages swapped, a chapter
//! renamed in the list). Same means the same `Spec`, the same diagnostics in the same order and the
//! same source files (compared through `Debug`, which prints every field).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::spec_files::{CHAPTERS, LANGS, path, replace_nth, shipped};

use kcontract::{LoadOptions, Loaded, ParseCache, Tree, load_from, load_reusing};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Edit {
    /// Insert a word after the `nth` "the " (zh: 的) of a chapter file (prose or a clause's text).
    Word {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// A keyword in prose (K0201).
    KeywordInProse { lang: usize, chapter: usize },
    /// The `nth` level made unknown.
    BadLevel {
        lang: usize,
        chapter: usize,
        nth: usize,
    },
    /// A byte that is not UTF-8 at the end (K0002).
    NotUtf8 { lang: usize, chapter: usize },
    /// The first clause block of one chapter copied into another (a duplicate id, K0108).
    DuplicateBlock { from: usize, to: usize },
    /// The chapter file as shipped again (fixes what the edits above broke in it).
    Restore { lang: usize, chapter: usize },
    /// The chapter file deleted (K0011).
    Remove { lang: usize, chapter: usize },
    /// The chapter file renamed without telling the contract (K0011, K0012), or back.
    RenameFile { lang: usize, chapter: usize },
    /// A comment appended to contract.yaml: its text changes, its meaning does not.
    ContractComment(u8),
    /// The `developer` actor removed from contract.yaml (clauses naming it fail).
    RemoveActor,
    /// `languages: [zh, en]`: the translation becomes the source.
    SwapLanguages,
    /// A chapter renamed in contract.yaml and both its files renamed with it.
    RenameChapter { chapter: usize },
    /// contract.yaml as shipped again.
    RestoreContract,
}

fn edit() -> impl Strategy<Value = Edit> {
    let lang = 0..LANGS.len();
    let ch = 0..CHAPTERS.len();
    prop_oneof![
        4 => (lang.clone(), ch.clone(), 0..12usize)
            .prop_map(|(lang, chapter, nth)| Edit::Word { lang, chapter, nth }),
        1 => (lang.clone(), ch.clone())
            .prop_map(|(lang, chapter)| Edit::KeywordInProse { lang, chapter }),
        1 => (lang.clone(), ch.clone(), 0..6usize)
            .prop_map(|(lang, chapter, nth)| Edit::BadLevel { lang, chapter, nth }),
        1 => (lang.clone(), ch.clone()).prop_map(|(lang, chapter)| Edit::NotUtf8 { lang, chapter }),
        1 => (ch.clone(), ch.clone()).prop_map(|(from, to)| Edit::DuplicateBlock { from, to }),
        3 => (lang.clone(), ch.clone()).prop_map(|(lang, chapter)| Edit::Restore { lang, chapter }),
        1 => (lang.clone(), ch.clone()).prop_map(|(lang, chapter)| Edit::Remove { lang, chapter }),
        1 => (lang, ch.clone()).prop_map(|(lang, chapter)| Edit::RenameFile { lang, chapter }),
        1 => any::<u8>().prop_map(Edit::ContractComment),
        1 => Just(Edit::RemoveActor),
        1 => Just(Edit::SwapLanguages),
        1 => ch.prop_map(|chapter| Edit::RenameChapter { chapter }),
        2 => Just(Edit::RestoreContract),
    ]
}

/// Apply an edit to the files; `step` makes each inserted word new.
fn apply(
    files: &mut BTreeMap<PathBuf, Vec<u8>>,
    shipped: &BTreeMap<PathBuf, Vec<u8>>,
    e: &Edit,
    step: usize,
) {
    let contract = PathBuf::from("s/contract.yaml");
    fn text_of(files: &mut BTreeMap<PathBuf, Vec<u8>>, p: &PathBuf, f: &dyn Fn(&str) -> String) {
        if let Some(bytes) = files.get(p) {
            let new = f(&String::from_utf8_lossy(bytes));
            files.insert(p.clone(), new.into_bytes());
        }
    }
    match *e {
        Edit::Word { lang, chapter, nth } => text_of(files, &path(lang, CHAPTERS[chapter]), &|t| {
            let word = ["the ", "的"][lang];
            replace_nth(t, word, &format!("{word}edited{step} "), nth)
        }),
        Edit::KeywordInProse { lang, chapter } => {
            text_of(files, &path(lang, CHAPTERS[chapter]), &|t| {
                format!("{t}\nThe platform MUST do this in prose.\n")
            })
        }
        Edit::BadLevel { lang, chapter, nth } => {
            text_of(files, &path(lang, CHAPTERS[chapter]), &|t| {
                replace_nth(t, "level: ", "level: MUSTY", nth)
            })
        }
        Edit::NotUtf8 { lang, chapter } => {
            if let Some(b) = files.get_mut(&path(lang, CHAPTERS[chapter])) {
                b.push(0xff);
            }
        }
        Edit::DuplicateBlock { from, to } => {
            let block = files
                .get(&path(0, CHAPTERS[from]))
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .and_then(|t| {
                    let start = t.find("```clause")?;
                    let end = start + 9 + t[start + 9..].find("```")? + 3;
                    Some(t[start..end].to_string())
                });
            if let Some(block) = block {
                text_of(files, &path(0, CHAPTERS[to]), &|t| {
                    format!("{t}\n{block}\n")
                });
            }
        }
        Edit::Restore { lang, chapter } => {
            let p = path(lang, CHAPTERS[chapter]);
            files.insert(p.clone(), shipped[&p].clone());
        }
        Edit::Remove { lang, chapter } => {
            files.remove(&path(lang, CHAPTERS[chapter]));
        }
        Edit::RenameFile { lang, chapter } => {
            let (p, moved) = (
                path(lang, CHAPTERS[chapter]),
                path(lang, &format!("{}-moved", CHAPTERS[chapter])),
            );
            if let Some(b) = files.remove(&p) {
                files.insert(moved, b);
            } else if let Some(b) = files.remove(&moved) {
                files.insert(p, b);
            }
        }
        Edit::ContractComment(n) => text_of(files, &contract, &|t| format!("{t}# comment {n}\n")),
        Edit::RemoveActor => text_of(files, &contract, &|t| {
            t.lines()
                .filter(|l| !l.contains("{name: developer"))
                .map(|l| format!("{l}\n"))
                .collect()
        }),
        Edit::SwapLanguages => text_of(files, &contract, &|t| {
            t.replacen("languages: [en, zh]", "languages: [zh, en]", 1)
        }),
        Edit::RenameChapter { chapter } => {
            let (old, new) = (CHAPTERS[chapter], format!("{}-renamed", CHAPTERS[chapter]));
            text_of(files, &contract, &|t| {
                t.replacen(&format!("  - {old}\n"), &format!("  - {new}\n"), 1)
            });
            for lang in 0..LANGS.len() {
                if let Some(b) = files.remove(&path(lang, old)) {
                    files.insert(path(lang, &new), b);
                }
            }
        }
        Edit::RestoreContract => {
            files.insert(contract.clone(), shipped[&contract].clone());
            // The renamed chapters' files back under their names, so the contract finds them.
            for lang in 0..LANGS.len() {
                for c in CHAPTERS {
                    if let Some(b) = files.remove(&path(lang, &format!("{c}-renamed"))) {
                        files.insert(path(lang, c), b);
                    }
                }
            }
        }
    }
}

/// Everything a load returns but its timings.
fn seen(l: &Loaded) -> (String, String, String) {
    (
        format!("{:#?}", l.spec),
        format!("{:#?}", l.diagnostics),
        format!("{:#?}", l.sources),
    )
}

fn same_as_fresh(files: &BTreeMap<PathBuf, Vec<u8>>, cache: &mut ParseCache, after: &str) {
    let tree = Tree::Memory(files.clone());
    let dir = Path::new("s");
    let opts = LoadOptions::default();
    let reused = load_reusing(&tree, dir, opts, cache);
    let fresh = load_from(&tree, dir, opts);
    let (r, f) = (seen(&reused), seen(&fresh));
    assert!(
        r.0 == f.0,
        "the Spec differs from a fresh load's after {after}"
    );
    assert!(
        r.1 == f.1,
        "the diagnostics differ from a fresh load's after {after}:\nreused: {}\nfresh: {}",
        r.1,
        f.1
    );
    assert!(r.2 == f.2, "the source files differ after {after}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("KCONTRACT_REUSE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
    ))]

    #[test]
    fn a_load_reusing_parsed_chapters_equals_a_fresh_load(edits in proptest::collection::vec(edit(), 1..10)) {
        let shipped = shipped();
        let mut files = shipped.clone();
        let mut cache = ParseCache::default();
        same_as_fresh(&files, &mut cache, "the first load");
        for (step, e) in edits.iter().enumerate() {
            apply(&mut files, &shipped, e, step);
            same_as_fresh(&files, &mut cache, &format!("edit {step}: {e:?} (of {edits:?})"));
        }
    }
}

/// Reuse happens: after an edit of one chapter file, only that file is parsed again; after an edit
/// of contract.yaml, every file is.
#[test]
fn only_the_edited_file_is_parsed_again() {
    let shipped = shipped();
    let mut files = shipped.clone();
    let mut cache = ParseCache::default();
    let dir = Path::new("s");
    let load = |files: &BTreeMap<PathBuf, Vec<u8>>, cache: &mut ParseCache| {
        load_reusing(
            &Tree::Memory(files.clone()),
            dir,
            LoadOptions::default(),
            cache,
        )
    };
    assert!(!load(&files, &mut cache).has_errors());
    assert_eq!(cache.parsed(), (10, 10), "the first load parses every file");
    load(&files, &mut cache);
    assert_eq!(cache.parsed(), (0, 10), "nothing changed");
    apply(
        &mut files,
        &shipped,
        &Edit::Word {
            lang: 1,
            chapter: 2,
            nth: 0,
        },
        0,
    );
    load(&files, &mut cache);
    assert_eq!(cache.parsed(), (1, 10), "one chapter file edited");
    apply(&mut files, &shipped, &Edit::ContractComment(1), 1);
    load(&files, &mut cache);
    assert_eq!(cache.parsed(), (10, 10), "contract.yaml edited");
}

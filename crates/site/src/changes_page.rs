//! The Changes page's values (`steps` of `changes.html`): for each version step of the contract's
//! history, its two versions and its changes grouped by kind, each under a stable anchor; and, for
//! the chapter pages, which clauses changed in the latest step and where their entry is.
//!
//! Every entry is a [`Change`] of the step's [`Diff`](kcontract_edit::diff::Diff), given to the template as
//! `kcontract diff --format json` writes it (`e.change`), with what only the site needs beside it:
//! its anchor, the link to the clause's chapter page, the chapter's title and the labels in the
//! page's language. The kinds are [`Kind`]'s, in its order: the page has no list of its own.

use std::collections::BTreeMap;

use serde::Serialize;
use strum::VariantArray;

use super::interface::Interface;
use super::markdown::level_class;
use super::pages::OwnPage;
use kcontract_edit::diff::history::{History, ProseWords, Sentence, Step};
use kcontract_edit::diff::{Change, Direction, Kind};
use kcontract_spec::{Document, EarlierVersion, Spec, TranslationState};

/// A version at either end of a step.
#[derive(Serialize)]
struct Version<'a> {
    /// How the page names it.
    label: &'a str,
    /// The upstream text it followed, its revision (and the first eight digits), its date.
    url: Option<&'a str>,
    revision: Option<&'a str>,
    short: Option<&'a str>,
    date: Option<&'a str>,
    /// The upstream document's title (the current version's; an earlier one has its label).
    title: Option<&'a str>,
    /// The upstream pull request that made this version: its number, title and link.
    pull_request: Option<u64>,
    pull_title: Option<&'a str>,
    pull_url: Option<String>,
    /// The pull requests of the versions folded into the step to this one (formatting only),
    /// each with its link.
    formatting_only: Vec<(u64, String)>,
}

/// One version step (`s` of `changes.html`).
#[derive(Serialize)]
pub(super) struct StepCtx<'a> {
    /// The id of its heading.
    anchor: String,
    old: Version<'a>,
    new: Version<'a>,
    /// How many clause changes.
    count: usize,
    /// The kinds that occur, in [`Kind`]'s order, each with its changes.
    kinds: Vec<KindCtx<'a>>,
    /// The sentences of informative text changed, per chapter and language (empty: none, the
    /// page says so).
    prose: Vec<ProseCtx<'a>>,
    /// The step from the newest upstream version to the current one: this contract's own edition
    /// of the text (its actors, verification, tests, notes, translations), not an upstream change.
    own: bool,
}

/// The changes of one kind in one step.
#[derive(Serialize)]
struct KindCtx<'a> {
    /// `added`, `level`, …: [`Kind::as_str`].
    kind: &'static str,
    /// Its heading in the page's language (`change_<kind>` of the interface text).
    label: String,
    anchor: String,
    entries: Vec<Entry<'a>>,
}

/// One change on the page.
#[derive(Serialize)]
pub(crate) struct Entry<'a> {
    /// The `id` of its list item, the target of the chapter pages' badges.
    pub(super) anchor: String,
    /// The change, as the JSON of `kcontract diff` has it.
    pub(super) change: &'a Change,
    /// The clause on its chapter page, when the current version has it (a removed clause has no
    /// page: the entry shows its old text).
    href: Option<String>,
    /// The title of the change's chapter in the page's language (its name when there is no such
    /// chapter any more).
    chapter_title: &'a str,
    /// `added`, `removed`: the CSS class of the clause's level.
    level_class: Option<&'static str>,
    /// `level`: stronger, weaker, reversed, in the page's language.
    direction: Option<String>,
    /// `translation`: the language's name and the states before and after, in the page's language.
    lang_name: Option<&'a str>,
    old_state: Option<&'a str>,
    new_state: Option<&'a str>,
}

/// A chapter's informative text changed in one language: its sentences added, removed or
/// changed, as words a reader reads (never the Markdown, never a count of lines).
#[derive(Serialize)]
struct ProseCtx<'a> {
    chapter_title: &'a str,
    /// The text's language, and its name in the page's language.
    lang: &'a str,
    lang_name: &'a str,
    sentences: Vec<SentenceCtx<'a>>,
}

/// A sentence on the page: what happened to it in the page's language (`prose_<kind>`), and the
/// sentence as the history has it (`s.kind`, `s.words`: `op` and `text`, as a reworded clause's).
#[derive(Serialize)]
struct SentenceCtx<'a> {
    label: &'a str,
    s: &'a Sentence,
}

impl<'a> ProseCtx<'a> {
    fn new(
        p: &'a ProseWords,
        chapter_title: &'a str,
        t: &'a Interface,
        names: &'a BTreeMap<&'a str, &'a str>,
    ) -> Self {
        ProseCtx {
            chapter_title,
            lang: &p.lang,
            lang_name: names.get(p.lang.as_str()).copied().unwrap_or(&p.lang),
            sentences: (p.sentences.iter())
                .map(|s| SentenceCtx {
                    label: t
                        .text
                        .get(&format!("prose_{}", s.kind.as_str()))
                        .map_or(s.kind.as_str(), String::as_str),
                    s,
                })
                .collect(),
        }
    }
}

/// A clause that changed in the latest step, for its badge on its chapter page (`c.changed` of
/// `clause.html`).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Changed {
    /// Its first entry on the Changes page (`changes.html#…`).
    pub(crate) anchor: String,
    /// The earlier version's date, and how the page names that version.
    pub(crate) since: String,
    pub(crate) label: String,
    /// The clause is new since then (not changed: added).
    pub(crate) added: bool,
}

/// The id of a step's heading.
fn step_anchor(step: &Step) -> String {
    format!("since-{}", step.old.name)
}

/// The id of a change's entry: the step, the kind, the language of a translation change, the
/// clause id. Unique on the page: a step has one change of a kind per clause (and per language).
fn entry_anchor(step: &Step, c: &Change) -> String {
    match &c.lang {
        Some(lang) => format!(
            "change-{}-{}-{lang}-{}",
            step.old.name,
            c.kind.as_str(),
            c.id
        ),
        None => format!("change-{}-{}-{}", step.old.name, c.kind.as_str(), c.id),
    }
}

/// The values of the Changes page in `lang`: one per step of `history`, oldest first. `docs` are
/// the page language's chapters, `names` each language's name in the page's language.
pub(super) fn context<'a>(
    history: &'a History,
    spec: &'a Spec,
    docs: &'a [Document],
    t: &'a Interface,
    names: &'a BTreeMap<&'a str, &'a str>,
    lang: &str,
) -> Vec<StepCtx<'a>> {
    let chapter_title = |name: &'a str| -> &'a str {
        docs.iter()
            .find(|d| d.chapter == name)
            .map_or(name, |d| d.title.as_str())
    };
    let earlier = |v: &'a EarlierVersion| {
        let pull = |n: u64| {
            v.repository()
                .map(|r| format!("https://github.com/{r}/pull/{n}"))
        };
        Version {
            label: v.label(lang),
            url: Some(&v.url),
            revision: Some(&v.revision),
            short: v.revision.get(..8).or(Some(&v.revision)),
            date: Some(&v.date),
            title: None,
            pull_request: v.pull_request,
            pull_title: v.title.as_deref(),
            pull_url: v.pull_request.and_then(pull),
            formatting_only: (v.formatting_only.iter())
                .filter_map(|&n| Some((n, pull(n)?)))
                .collect(),
        }
    };
    let upstream = spec.contract.upstream.as_ref();
    let current = || {
        let revision = upstream.and_then(|u| u.revision.as_deref());
        Version {
            label: t.text("changes_current"),
            url: upstream.map(|u| u.url.as_str()),
            revision,
            short: revision.map(|r| r.get(..8).unwrap_or(r)),
            date: None,
            title: upstream.map(|u| u.title.as_str()),
            pull_request: None,
            pull_title: None,
            pull_url: None,
            formatting_only: Vec::new(),
        }
    };
    let state = |s: Option<&'a kcontract_edit::diff::Value>| match s {
        // A state's words are its interface key, but for `current` (which names another label).
        Some(kcontract_edit::diff::Value::Text(s)) => {
            Some(t.text(if s == TranslationState::Current.as_str() {
                "translation_current"
            } else {
                s
            }))
        }
        _ => None,
    };
    history
        .steps
        .iter()
        .map(|step| {
            // Between two upstream versions only what upstream can change; the contract's own
            // edition (the last step) shows every kind.
            let own = step.new.is_none();
            let kinds: Vec<KindCtx> = Kind::VARIANTS
                .iter()
                .filter(|kind| own || kind.is_upstream())
                .filter_map(|&kind| {
                    let entries: Vec<Entry> = step
                        .diff
                        .changes
                        .iter()
                        .filter(|c| c.kind == kind)
                        .map(|c| Entry {
                            anchor: entry_anchor(step, c),
                            change: c,
                            href: (kind != Kind::Removed)
                                .then(|| spec.clause(&c.id))
                                .flatten()
                                .map(|now| format!("{}.html#{}", now.chapter, now.id)),
                            chapter_title: chapter_title(&c.chapter),
                            level_class: c.level.map(level_class),
                            direction: c.direction.map(|d| {
                                let key = direction_key(d);
                                t.text.get(&key).cloned().unwrap_or(key)
                            }),
                            lang_name: c
                                .lang
                                .as_deref()
                                .map(|l| names.get(l).copied().unwrap_or(l)),
                            old_state: (kind == Kind::Translation)
                                .then(|| state(c.old.as_ref()))
                                .flatten(),
                            new_state: (kind == Kind::Translation)
                                .then(|| state(c.new.as_ref()))
                                .flatten(),
                        })
                        .collect();
                    (!entries.is_empty()).then(|| {
                        let key = format!("change_{}", kind.as_str());
                        KindCtx {
                            kind: kind.as_str(),
                            label: t.text.get(&key).cloned().unwrap_or(key),
                            anchor: format!("{}-{}", step_anchor(step), kind.as_str()),
                            entries,
                        }
                    })
                })
                .collect();
            StepCtx {
                anchor: step_anchor(step),
                old: earlier(&step.old),
                new: step.new.as_ref().map_or_else(current, earlier),
                count: kinds.iter().map(|k| k.entries.len()).sum(),
                own,
                kinds,
                prose: (step.prose.iter())
                    .map(|p| ProseCtx::new(p, chapter_title(&p.chapter), t, names))
                    .collect(),
            }
        })
        .collect()
}

/// The interface key of a level change's direction: `direction_<name>`.
fn direction_key(direction: Direction) -> String {
    format!("direction_{}", direction.as_str())
}

/// The clauses of the current version that upstream changed in its latest step (the last one
/// between two upstream versions; the step to the current version is this contract's own edition,
/// whose metadata is not upstream's change), each with its first entry on the page in `steps`
/// (the page's values). With one earlier version only, its step to the current one.
pub(super) fn changed_in_latest(history: &History, steps: &[StepCtx]) -> BTreeMap<String, Changed> {
    let mut out = BTreeMap::new();
    let latest = (history.steps.iter().zip(steps))
        .rev()
        .find(|(s, _)| s.new.is_some())
        .or_else(|| history.steps.iter().zip(steps).next_back());
    let Some((step, ctx)) = latest else {
        return out;
    };
    for e in ctx.kinds.iter().flat_map(|k| &k.entries) {
        if e.href.is_some() && e.change.kind.is_upstream() && !out.contains_key(&e.change.id) {
            out.insert(
                e.change.id.clone(),
                Changed {
                    anchor: e.anchor.clone(),
                    since: step.old.date.clone(),
                    label: ctx.old.label.to_owned(),
                    added: e.change.kind == Kind::Added,
                },
            );
        }
    }
    out
}

/// The search index's entries of the page: each step's heading, and each removed clause (the only
/// changes whose clause has no chapter page to find it on).
pub(super) fn search_entries(steps: &[StepCtx]) -> Vec<SearchItem> {
    steps
        .iter()
        .flat_map(|s| {
            let heading = SearchItem {
                kind: "heading",
                id: None,
                url: format!("{}.html#{}", OwnPage::Changes.name(), s.anchor),
                level: None,
                section: None,
                text: format!("{} → {}", s.old.label, s.new.label),
            };
            let removed = s
                .kinds
                .iter()
                .flat_map(|k| &k.entries)
                .filter(|e| e.change.kind == Kind::Removed)
                .map(move |e| SearchItem {
                    kind: "change",
                    id: Some(e.change.id.clone()),
                    url: format!("{}.html#{}", OwnPage::Changes.name(), e.anchor),
                    level: e.change.level.map(|l| l.as_str()),
                    section: Some(s.old.label.to_owned()),
                    text: match &e.change.old {
                        Some(kcontract_edit::diff::Value::Text(t)) => {
                            t.split_whitespace().collect::<Vec<_>>().join(" ")
                        }
                        _ => String::new(),
                    },
                });
            std::iter::once(heading).chain(removed)
        })
        .collect()
}

/// An entry of the search index that is on the Changes page (the index adds the page's title).
pub(super) struct SearchItem {
    pub(super) kind: &'static str,
    pub(super) id: Option<String>,
    pub(super) url: String,
    pub(super) level: Option<&'static str>,
    pub(super) section: Option<String>,
    pub(super) text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::Interfaces;

    /// Every kind of change and every direction has its words in every embedded language (the
    /// page would otherwise show the key): a new kind does not reach the page without them.
    #[test]
    fn every_kind_and_direction_has_interface_text() {
        let all = Interfaces::load(None).unwrap();
        for lang in ["en", "zh"] {
            let t = all.get(lang).unwrap();
            for kind in Kind::VARIANTS {
                let key = format!("change_{}", kind.as_str());
                assert!(t.text.contains_key(&key), "{lang}: {key}");
            }
            for d in Direction::VARIANTS {
                let key = direction_key(*d);
                assert!(t.text.contains_key(&key), "{lang}: {key}");
            }
        }
    }
}

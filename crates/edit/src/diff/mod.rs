//! `kcontract diff`: what changed between two versions of the contract, clause by clause.
//!
//! Spec editors review obligations, not lines: a `SHOULD` that became `MUST`, a statement reworded
//! or made untestable, a clause renamed, a translation left behind (the PR #4035 review of the
//! upstream contract argued about exactly these). This module compares two loaded [`Spec`]s — each
//! possibly partial, when its side has errors — and lists the changes in one shape ([`Change`]),
//! which `render` prints for a terminal, as Markdown for a pull-request comment, or as JSON.

pub mod git;
pub mod history;
pub mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

use kcontract_spec::Loaded;
use kcontract_spec::diagnostic::FileId;
use kcontract_spec::keywords::Level;
use kcontract_spec::{Block, Clause, Spec, Translation, TranslationState};

/// The `format` of the JSON output; changes only with an incompatible change of its shape.
pub(crate) const FORMAT: &str = "kcontract-diff/1";

/// What happened to a clause. The names are the JSON `kind`s and `--fail-on` values.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    strum::VariantArray,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumMessage,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Kind {
    /// A clause id that only the new version has.
    Added,
    /// A clause id that only the old version has.
    Removed,
    /// The same text under a new id (tests, translations and links still point at the old one).
    Renamed,
    /// The same id, other words (whitespace and line breaks do not count).
    Reworded,
    /// The level changed: stronger, weaker or reversed.
    Level,
    /// The same level, written with another keyword (`SHALL` → `MUST`).
    Keyword,
    /// Who the clause binds changed.
    Actor,
    /// How conformance is shown changed (`verify`, or the `reason` it is untestable).
    Verify,
    /// Why a keyword-less statement binds (`implicit`) changed.
    Implicit,
    /// The OCI runtime spec reference (`oci`) changed.
    Oci,
    /// The conformance tests listed for the clause (`upstream-tests`) changed.
    Tests,
    /// The note of what a person still has to decide (`review`) was added, changed or removed.
    Review,
    /// The clause is in another chapter or under another section heading.
    Moved,
    /// A translation became stale or missing.
    Translation,
}

impl Kind {
    /// The name, as in the JSON output and `--fail-on`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether an upstream text can make this change: its words, levels, keywords, ids and where
    /// a clause is. The other kinds are an editor's decisions about a clause (actor, verify,
    /// tests, review, translations): between two imports of upstream versions they are the
    /// import's guesses, not upstream's doing, and the Changes page shows them only for the
    /// contract's own edition.
    pub fn is_upstream(self) -> bool {
        matches!(
            self,
            Kind::Added
                | Kind::Removed
                | Kind::Renamed
                | Kind::Reworded
                | Kind::Level
                | Kind::Keyword
                | Kind::Moved
        )
    }
}

/// What a level change does to the obligation. The names are the JSON `direction`s.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::VariantArray, strum::IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Direction {
    /// Toward MUST or MUST NOT (MAY < SHOULD < MUST, MAY < SHOULD NOT < MUST NOT).
    Strengthens,
    /// Toward MAY.
    Weakens,
    /// From a requirement to its opposite (e.g. SHOULD → MUST NOT).
    Reverses,
}

impl Direction {
    /// The name, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// How binding a level is (0 MAY, 1 SHOULD / SHOULD NOT, 2 MUST / MUST NOT) and which way it points
/// (+1 do, -1 do not, 0 a permission).
fn strength(level: Level) -> (u8, i8) {
    match level {
        Level::May => (0, 0),
        Level::Should => (1, 1),
        Level::ShouldNot => (1, -1),
        Level::Must => (2, 1),
        Level::MustNot => (2, -1),
    }
}

/// What changing `old` into `new` does; `None` when they are the same level.
pub(crate) fn direction(old: Level, new: Level) -> Option<Direction> {
    let ((so, po), (sn, pn)) = (strength(old), strength(new));
    if old == new {
        None
    } else if po != 0 && pn != 0 && po != pn {
        Some(Direction::Reverses)
    } else if sn > so {
        Some(Direction::Strengthens)
    } else {
        Some(Direction::Weakens)
    }
}

/// One side of a change: a text, or a list (the tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A text, a level, an actor, a state, an id.
    Text(String),
    /// A list (the conformance tests).
    List(Vec<String>),
}

/// What a piece of a word or line diff is. The names are the JSON `op`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub(crate) enum Op {
    /// In both texts.
    Equal,
    /// Only in the old text.
    Delete,
    /// Only in the new text.
    Insert,
}

impl From<ChangeTag> for Op {
    fn from(tag: ChangeTag) -> Op {
        match tag {
            ChangeTag::Equal => Op::Equal,
            ChangeTag::Delete => Op::Delete,
            ChangeTag::Insert => Op::Insert,
        }
    }
}

/// A piece of a word diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Words {
    /// In both texts, or only in one.
    pub(crate) op: Op,
    /// The words, with the whitespace between them.
    pub(crate) text: String,
}

/// One change to one clause.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The clause's id (the new id of a renamed clause).
    pub id: String,
    /// What happened.
    pub kind: Kind,
    /// The chapter it is in (the new version's chapter, unless removed).
    pub chapter: String,
    /// Before (`null` for an added clause).
    pub old: Option<Value>,
    /// After (`null` for a removed clause).
    pub new: Option<Value>,
    /// `level`: stronger, weaker, reversed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// `added`, `removed`: the clause's level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// `reworded`: the word diff of old and new text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) words: Option<Vec<Words>>,
    /// `translation`: the language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// `removed`: its words are now in the chapter's prose (case aside: `MUST` may have become
    /// `must`) — the statement was made informative rather than dropped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) informative: bool,
}

impl Change {
    fn new(kind: Kind, clause: &Clause, old: Option<Value>, new: Option<Value>) -> Self {
        Change {
            id: clause.id.clone(),
            kind,
            chapter: clause.chapter.clone(),
            old,
            new,
            direction: None,
            level: None,
            words: None,
            lang: None,
            informative: false,
        }
    }
}

/// Lines of informative text changed in one chapter of one language (blank lines not counted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prose {
    /// The language.
    pub lang: String,
    /// The chapter.
    pub chapter: String,
    /// Lines only in the new version.
    pub added: usize,
    /// Lines only in the old version.
    pub removed: usize,
    /// The same words in the same order, only wrapped or spaced differently (upstream's "Format
    /// markdown" commits): a change of form, not of what the text says.
    pub reflowed: bool,
    /// The changed lines themselves, in order (`op` [`Op::Delete`] or [`Op::Insert`], `text` the
    /// line).
    pub(crate) lines: Vec<Words>,
}

/// The languages and chapters one version has and the other does not: a chapter or a language
/// added is said once, not as every clause and line in it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Parts {
    pub(crate) languages_added: Vec<String>,
    pub(crate) languages_removed: Vec<String>,
    pub(crate) chapters_added: Vec<String>,
    pub(crate) chapters_removed: Vec<String>,
}

impl Parts {
    fn of(old: &Spec, new: &Spec) -> Parts {
        let only = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|x| !b.contains(x)).cloned().collect()
        };
        let (oc, nc) = (&old.contract, &new.contract);
        Parts {
            languages_added: only(&nc.languages, &oc.languages),
            languages_removed: only(&oc.languages, &nc.languages),
            chapters_added: only(&nc.chapters, &oc.chapters),
            chapters_removed: only(&oc.chapters, &nc.chapters),
        }
    }
}

/// Everything that changed.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Clause changes: the new version's clauses in document order, then the removed ones in the
    /// old version's order.
    pub changes: Vec<Change>,
    /// Prose changes per language and chapter, in chapter order (not of a language added or
    /// removed, which `parts` names).
    pub prose: Vec<Prose>,
    /// Languages and chapters added or removed.
    pub(crate) parts: Parts,
    /// Ids whose clause is on one side only because its source-language block on the other side
    /// has errors: not compared (calling them added or removed would be wrong). A translation with
    /// errors, or left behind by a removed clause, does not put its id here.
    pub(crate) not_compared: Vec<String>,
}

impl Diff {
    /// Nothing changed but the form of the text: no clause, chapter or language changed and every
    /// prose change is a reflow ([`Prose::reflowed`]). The contract's history folds such an
    /// upstream version into the next step.
    pub fn formatting_only(&self) -> bool {
        self.changes.is_empty()
            && self.not_compared.is_empty()
            && self.parts == Parts::default()
            && self.prose.iter().all(|p| p.reflowed)
    }
}

fn text(s: &str) -> Option<Value> {
    Some(Value::Text(s.to_owned()))
}

/// Same words, whatever the whitespace between them (the rule of translation stamps) and the width
/// of a table's delimiter row (`| --- |` padded to its column: a reformatted table says the same).
fn same_words(a: &str, b: &str) -> bool {
    let said = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                if w.chars().all(|c| matches!(c, '-' | ':')) && w.contains('-') {
                    "-".to_string()
                } else {
                    w.to_string()
                }
            })
            .collect()
    };
    said(a) == said(b)
}

/// The ids written in the source-language chapter files of a spec folder `dir` (`id:` lines) that
/// are not clauses of its `Spec`: clause blocks the loader left out because of their errors. Empty
/// when the load had no errors. Only the source language's files count: a clause exists by its
/// source block, so a translation left behind by a removed clause (K0302) must not hide the
/// removal, and a broken translation does not stop its clause from being compared.
pub fn unreadable_ids(loaded: &Loaded, dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let contract = &loaded.spec.contract;
    let Some(source) = contract.languages.first() else {
        return out;
    };
    if !loaded.has_errors() {
        return out;
    }
    let files: BTreeSet<PathBuf> = contract
        .chapters
        .iter()
        .map(|c| kcontract_spec::chapter_file(dir, source, c))
        .collect();
    for i in 0..loaded.sources.len() {
        let file = loaded.sources.get(FileId(i as u32));
        if !files.contains(&file.path) {
            continue;
        }
        for line in file.text.lines() {
            if let Some(v) = line.strip_prefix("id:") {
                let id = v.trim().trim_matches(['"', '\'']);
                if !id.is_empty() && loaded.spec.clause(id).is_none() {
                    out.insert(id.to_owned());
                }
            }
        }
    }
    out
}

/// The annotated tests of a version, by the clause id they claim: `binary::name` (or the name when
/// the binary is unknown), sorted (`kcontract_trace::annotations::Scan::claims_by_clause` makes it
/// from a test scan; this crate compares specs and does not scan tests).
pub type Claims = BTreeMap<String, BTreeSet<String>>;

/// Compare two versions of the contract. A clause on one side only whose id is in `unreadable`
/// ([`unreadable_ids`] of either side) is not compared. `tests`: the annotated tests of each
/// version, when both are known (they are not for two spec folders: tests live in the project).
pub fn compare(
    old: &Spec,
    new: &Spec,
    unreadable: &BTreeSet<String>,
    tests: Option<(&Claims, &Claims)>,
) -> Diff {
    let skipped = |c: &&Clause| unreadable.contains(&c.id);
    let mut not_compared: Vec<String> = old
        .clauses
        .iter()
        .filter(|c| new.clause(&c.id).is_none())
        .chain(new.clauses.iter().filter(|c| old.clause(&c.id).is_none()))
        .filter(skipped)
        .map(|c| c.id.clone())
        .collect();
    not_compared.sort();
    let removed: Vec<&Clause> = old
        .clauses
        .iter()
        .filter(|c| new.clause(&c.id).is_none() && !unreadable.contains(&c.id))
        .collect();
    // A removed and an added clause with the same words is a rename; each pairs once, in order.
    let mut renamed_from: BTreeMap<&str, &Clause> = BTreeMap::new();
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    for c in new.clauses.iter().filter(|c| old.clause(&c.id).is_none()) {
        if let Some(o) = removed
            .iter()
            .find(|o| !taken.contains(o.id.as_str()) && same_words(&o.text, &c.text))
        {
            taken.insert(o.id.as_str());
            renamed_from.insert(c.id.as_str(), o);
        }
    }

    // A language added is one change, not one per clause it translates (or does not yet).
    let parts = Parts::of(old, new);
    let mut changes = Vec::new();
    for (index, c) in new.clauses.iter().enumerate() {
        if old.clause(&c.id).is_none() && unreadable.contains(&c.id) {
            continue;
        }
        let before = match old.by_id.get(&c.id) {
            Some(&i) => Some((i, &old.clauses[i])),
            None => renamed_from
                .get(c.id.as_str())
                .map(|o| (old.by_id[&o.id], *o)),
        };
        match before {
            None => changes.push(Change {
                level: Some(c.level),
                ..Change::new(Kind::Added, c, None, text(&c.text))
            }),
            Some((old_index, o)) => {
                if o.id != c.id {
                    changes.push(Change::new(Kind::Renamed, c, text(&o.id), text(&c.id)));
                }
                clause_changes(o, c, tests, &mut changes);
                for tr in new
                    .translations
                    .iter()
                    .filter(|t| !parts.languages_added.contains(&t.lang))
                {
                    let was = old
                        .translations
                        .iter()
                        .find(|t| t.lang == tr.lang)
                        .map(|t| t.state(old_index, o));
                    translation_change(tr, index, c, was, &mut changes);
                }
                continue;
            }
        }
        for tr in new
            .translations
            .iter()
            .filter(|t| !parts.languages_added.contains(&t.lang))
        {
            translation_change(tr, index, c, None, &mut changes);
        }
    }
    for o in removed.iter().filter(|o| !taken.contains(o.id.as_str())) {
        let source = old.contract.languages.first().map_or("", String::as_str);
        let prose = chapter_prose(new, source, &o.chapter);
        changes.push(Change {
            informative: crate::words::now_prose(&o.text, &prose),
            level: Some(o.level),
            ..Change::new(Kind::Removed, o, text(&o.text), None)
        });
    }
    Diff {
        changes,
        prose: prose(old, new, &parts),
        parts,
        not_compared,
    }
}

/// The changes of a clause present in both versions (`o` old, `c` new): one per field that differs.
/// Every field of [`Clause`] is named here, so a new one does not compile until it is compared
/// (or said not to be a change: the id is the rename's, the stamp follows from the text, the rest
/// is where the block is written).
fn clause_changes(
    o: &Clause,
    c: &Clause,
    tests: Option<(&Claims, &Claims)>,
    changes: &mut Vec<Change>,
) {
    let Clause {
        id: _,
        level,
        keyword,
        actor,
        text: new_text,
        stamp: _,
        verify,
        reason,
        implicit,
        oci,
        upstream_tests,
        review,
        chapter,
        section,
        file: _,
        line: _,
        span: _,
        id_span: _,
    } = c;
    let change = |kind, old: Option<Value>, new: Option<Value>| Change::new(kind, c, old, new);
    if !same_words(&o.text, new_text) {
        changes.push(Change {
            words: Some(word_diff(&o.text, new_text)),
            ..Change::new(Kind::Reworded, c, text(&o.text), text(new_text))
        });
    }
    if let Some(d) = direction(o.level, *level) {
        changes.push(Change {
            direction: Some(d),
            ..Change::new(Kind::Level, c, text(o.level.as_str()), text(level.as_str()))
        });
    } else if o.keyword != *keyword {
        changes.push(change(Kind::Keyword, text(&o.keyword), text(keyword)));
    }
    if o.actor != *actor {
        changes.push(change(
            Kind::Actor,
            text(o.actor.as_str()),
            text(actor.as_str()),
        ));
    }
    if o.verify != *verify || o.reason != *reason {
        let shown = |verify: &kcontract_spec::Verify, reason: &Option<String>| match reason {
            Some(r) => format!("{verify} ({r})"),
            None => verify.as_str().to_owned(),
        };
        changes.push(change(
            Kind::Verify,
            text(&shown(&o.verify, &o.reason)),
            text(&shown(verify, reason)),
        ));
    }
    let optional = |v: &Option<String>| v.as_deref().and_then(text);
    if o.implicit != *implicit {
        changes.push(change(
            Kind::Implicit,
            optional(&o.implicit),
            optional(implicit),
        ));
    }
    if o.oci != *oci {
        changes.push(change(Kind::Oci, optional(&o.oci), optional(oci)));
    }
    // The upstream conformance tests, then the annotated tests of the project.
    let listed = |upstream: &[String], id: &str, claims: Option<&Claims>| {
        let mut all = upstream.to_vec();
        all.extend(
            claims
                .and_then(|m| m.get(id))
                .into_iter()
                .flatten()
                .cloned(),
        );
        all
    };
    let was = listed(&o.upstream_tests, &o.id, tests.map(|t| t.0));
    let now = listed(upstream_tests, &c.id, tests.map(|t| t.1));
    if was != now {
        changes.push(change(
            Kind::Tests,
            Some(Value::List(was)),
            Some(Value::List(now)),
        ));
    }
    let note = |r: &Option<(String, kcontract_spec::diagnostic::Span)>| {
        r.as_ref().and_then(|(n, _)| text(n))
    };
    if note(&o.review) != note(review) {
        changes.push(change(Kind::Review, note(&o.review), note(review)));
    }
    let place = |chapter: &str, section: &Option<kcontract_spec::SectionRef>| match section {
        Some(s) => format!("{chapter} § {}", s.title),
        None => chapter.to_owned(),
    };
    let anchor = |s: &Option<kcontract_spec::SectionRef>| s.as_ref().map(|s| s.anchor.clone());
    if o.chapter != *chapter || anchor(&o.section) != anchor(section) {
        changes.push(change(
            Kind::Moved,
            text(&place(&o.chapter, &o.section)),
            text(&place(chapter, section)),
        ));
    }
}

/// A translation that the new version leaves stale or missing, when it was not already so.
fn translation_change(
    tr: &Translation,
    index: usize,
    c: &Clause,
    was: Option<TranslationState>,
    changes: &mut Vec<Change>,
) {
    let now = tr.state(index, c);
    if now != TranslationState::Current && was != Some(now) {
        changes.push(Change {
            lang: Some(tr.lang.clone()),
            ..Change::new(
                Kind::Translation,
                c,
                was.map(|s| Value::Text(s.as_str().to_owned())),
                text(now.as_str()),
            )
        });
    }
}

/// The word diff of two texts (whitespace runs count as one space, so re-wrapping is no change).
pub(crate) fn word_diff(old: &str, new: &str) -> Vec<Words> {
    let old = old.split_whitespace().collect::<Vec<_>>().join(" ");
    let new = new.split_whitespace().collect::<Vec<_>>().join(" ");
    let diff = TextDiff::from_words(old.as_str(), new.as_str());
    let mut out: Vec<Words> = Vec::new();
    for change in diff.iter_all_changes() {
        let op = Op::from(change.tag());
        match out.last_mut() {
            Some(last) if last.op == op => last.text.push_str(change.value()),
            _ => out.push(Words {
                op,
                text: change.value().to_owned(),
            }),
        }
    }
    out
}

/// The prose of each chapter of each language both versions have, compared line by line.
fn prose(old: &Spec, new: &Spec, parts: &Parts) -> Vec<Prose> {
    let mut out = Vec::new();
    let langs = new
        .contract
        .languages
        .iter()
        .filter(|l| !parts.languages_added.contains(l));
    for lang in langs {
        let mut chapters: Vec<&String> = new.contract.chapters.iter().collect();
        chapters.extend(
            old.contract
                .chapters
                .iter()
                .filter(|c| !new.contract.chapters.contains(c)),
        );
        for chapter in chapters {
            let (a, b) = (
                chapter_prose(old, lang, chapter),
                chapter_prose(new, lang, chapter),
            );
            if a == b {
                continue;
            }
            let diff = TextDiff::from_lines(a.as_str(), b.as_str());
            let (mut added, mut removed, mut lines) = (0, 0, Vec::new());
            for ch in diff.iter_all_changes() {
                let op = match Op::from(ch.tag()) {
                    Op::Insert => {
                        added += 1;
                        Op::Insert
                    }
                    Op::Delete => {
                        removed += 1;
                        Op::Delete
                    }
                    Op::Equal => continue,
                };
                lines.push(Words {
                    op,
                    text: ch.value().trim_end().to_owned(),
                });
            }
            if added + removed > 0 {
                out.push(Prose {
                    lang: lang.clone(),
                    chapter: chapter.clone(),
                    added,
                    removed,
                    reflowed: same_words(&a, &b),
                    lines,
                });
            }
        }
    }
    out
}

/// The non-blank prose lines of a chapter in a language (empty when there is no such document).
fn chapter_prose(spec: &Spec, lang: &str, chapter: &str) -> String {
    let docs = if spec.contract.languages.first().map(String::as_str) == Some(lang) {
        &spec.documents
    } else {
        match spec.translations.iter().find(|t| t.lang == lang) {
            Some(t) => &t.documents,
            None => return String::new(),
        }
    };
    let mut out = String::new();
    for doc in docs.iter().filter(|d| d.chapter == chapter) {
        for block in &doc.blocks {
            if let Block::Prose(p) = block {
                for line in p
                    .without_clauses()
                    .lines()
                    .map(str::trim_end)
                    .filter(|l| !l.trim().is_empty())
                {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};

    use kcontract_spec::{LoadOptions, Tree, load_from};

    const CONTRACT: &str = "title: T\nversion: 0.1.0\nlanguages: [en]\nchapters: [one]\nupstream: {title: t, url: u, license: Apache-2.0, attribution: a}\n";

    /// A clause in a list item changed: one clause change, and the list around it is not
    /// reported as changed prose (its YAML lines are the clause's).
    #[test]
    fn a_clause_in_a_list_item_is_a_clause_change_not_prose() {
        let load = |text: &str| {
            let mut files = std::collections::BTreeMap::new();
            files.insert(
                PathBuf::from("s/contract.yaml"),
                CONTRACT.as_bytes().to_vec(),
            );
            files.insert(
                PathBuf::from("s/en/one.md"),
                format!(
                    "# One\n\n- Weight:\n  - ```clause\n    id: one.heavy\n    level: MUST\n    \
                     actor: platform\n    text: The platform MUST weigh {text}.\n    verify: manual\n    \
                     oci: config.md\n    ```\n  - Colour: any.\n"
                )
                .into_bytes(),
            );
            let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
            assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
            loaded.spec
        };
        let old = load("parcels");
        let d = compare(&old, &load("letters"), &BTreeSet::new(), None);
        assert_eq!(d.changes.len(), 1, "{:?}", d.changes);
        assert!(
            d.prose.iter().all(|p| p.added == 0 && p.removed == 0),
            "{:?}",
            d.prose
        );
        let prose: Vec<String> = old.documents[0]
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Prose(p) => Some(p.without_clauses().into_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(prose, ["# One\n\n- Weight:\n  - Colour: any."]);
    }

    /// A clause as the generator sees it: id number, level, actor, words, verify.
    #[derive(Clone, Debug)]
    struct C {
        id: usize,
        level: usize,
        actor: usize,
        words: Vec<String>,
        manual: bool,
    }

    const LEVELS: [&str; 5] = ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"];
    const ACTORS: [&str; 3] = ["platform", "developer", "container"];

    /// The clause's text.
    fn words(c: &C) -> String {
        format!("The thing {} {}.", LEVELS[c.level], c.words.join(" "))
    }

    /// The clause's block; `actor` for its actor (a wrong one makes the block an error).
    fn block(c: &C, actor: &str) -> String {
        let verify = if c.manual {
            "manual"
        } else {
            "untestable\nreason: r"
        };
        format!(
            "```clause\nid: one.c{}\nlevel: {}\nactor: {actor}\ntext: {}\nverify: {verify}\n```\n\n",
            c.id,
            LEVELS[c.level],
            words(c)
        )
    }

    fn chapter(clauses: &[C]) -> String {
        let mut s = String::from("# One\n\n");
        for c in clauses {
            s.push_str(&block(c, ACTORS[c.actor]));
        }
        s
    }

    fn spec(clauses: &[C]) -> Spec {
        let mut files = std::collections::BTreeMap::new();
        files.insert(
            PathBuf::from("s/contract.yaml"),
            CONTRACT.as_bytes().to_vec(),
        );
        files.insert(PathBuf::from("s/en/one.md"), chapter(clauses).into_bytes());
        let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        loaded.spec
    }

    fn clauses() -> impl Strategy<Value = Vec<C>> {
        prop::collection::vec(
            (
                0usize..5,
                0usize..3,
                prop::collection::vec("[a-z]{1,6}", 1..6),
                any::<bool>(),
            ),
            1..8,
        )
        .prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(id, (level, actor, words, manual))| C {
                    id,
                    level,
                    actor,
                    words,
                    manual,
                })
                .collect()
        })
    }

    proptest! {
        /// One edit of one clause is reported as exactly the kinds it makes, and a spec compared
        /// with itself has no change.
        #[test]
        fn one_edit_one_report(old in clauses(), pick in any::<prop::sample::Index>(), edit in 0usize..6, to in 0usize..5) {
            let a = spec(&old);
            prop_assert!(compare(&a, &a, &BTreeSet::new(), None).changes.is_empty());
            let i = pick.index(old.len());
            let mut new = old.clone();
            let expected: Vec<Kind> = match edit {
                0 => { new.remove(i); vec![Kind::Removed] }
                1 => {
                    let mut c = C { id: 99, ..old[i].clone() };
                    c.words.push("x".into());
                    new.push(c);
                    vec![Kind::Added]
                }
                2 => {
                    if new[i].level == to { return Ok(()); }
                    new[i].level = to;
                    vec![Kind::Reworded, Kind::Level]
                }
                3 => { new[i].actor = (new[i].actor + 1) % 3; vec![Kind::Actor] }
                4 => { new[i].manual = !new[i].manual; vec![Kind::Verify] }
                _ => {
                    // A rename: same words under a new id, unless another removed clause has them.
                    new[i].id = 50;
                    vec![Kind::Renamed]
                }
            };
            // Clauses with the same words make a rename ambiguous; the generator's words rarely
            // repeat, and such cases are skipped rather than guessed.
            let texts: BTreeSet<String> = new.iter().map(|c| format!("{}{:?}", c.level, c.words)).collect();
            prop_assume!(texts.len() == new.len());
            let d = compare(&a, &spec(&new), &BTreeSet::new(), None);
            let kinds: Vec<Kind> = d.changes.iter().map(|c| c.kind).collect();
            prop_assert_eq!(kinds, expected);
        }
    }

    /// `clauses` in `s/en/one.md`, the block of the one at `broken` with an unknown actor (an
    /// error: the loader leaves it out), and `s/de/one.md` translating each of `translated`
    /// (current: its `source:` is the stamp the loader gives that clause).
    fn bilingual(clauses: &[C], translated: &[C], broken: Option<usize>) -> Loaded {
        let mut source = String::from("# One\n\n");
        for (i, c) in clauses.iter().enumerate() {
            let actor = if broken == Some(i) {
                "nobody"
            } else {
                ACTORS[c.actor]
            };
            source.push_str(&block(c, actor));
        }
        let stamps = spec(translated);
        let mut de = String::from("# Eins\n\n");
        for c in translated {
            de.push_str(&format!(
                "```clause\nid: one.c{}\ntext: Das Ding {} {}.\nsource: {}\n```\n\n",
                c.id,
                LEVELS[c.level],
                c.words.join(" "),
                stamps
                    .clause(&format!("one.c{}", c.id))
                    .expect("a source clause")
                    .stamp
            ));
        }
        let mut files = std::collections::BTreeMap::new();
        let contract = CONTRACT.replace("languages: [en]", "languages: [en, de]");
        files.insert(PathBuf::from("s/contract.yaml"), contract.into_bytes());
        files.insert(PathBuf::from("s/en/one.md"), source.into_bytes());
        files.insert(PathBuf::from("s/de/one.md"), de.into_bytes());
        load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default())
    }

    /// `compare` as `kcontract diff` calls it on two [`bilingual`] folders.
    fn diff_loaded(old: &Loaded, new: &Loaded) -> Diff {
        let mut unreadable = unreadable_ids(old, Path::new("s"));
        unreadable.extend(unreadable_ids(new, Path::new("s")));
        compare(&old.spec, &new.spec, &unreadable, None)
    }

    proptest! {
        /// A source clause removed with its translation left behind (K0302 on the new side) is
        /// reported removed, and the other way round added: a translation does not make its
        /// clause "not compared". A source block with errors does, for that clause only, though
        /// its translation is there.
        #[test]
        fn a_translation_left_behind_does_not_hide_the_change(old in clauses(), pick in any::<prop::sample::Index>()) {
            let i = pick.index(old.len());
            let id = format!("one.c{}", old[i].id);
            let full = bilingual(&old, &old, None);
            prop_assert!(!full.has_errors(), "{:?}", full.diagnostics);
            let mut rest = old.clone();
            rest.remove(i);
            let orphan = bilingual(&rest, &old, None);
            let codes: Vec<&str> = orphan.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect();
            prop_assert_eq!(codes, vec!["K0302"]);
            let shown = |d: &Diff| -> Vec<(String, Kind)> {
                d.changes.iter().map(|c| (c.id.clone(), c.kind)).collect()
            };
            let d = diff_loaded(&full, &orphan);
            prop_assert_eq!(shown(&d), vec![(id.clone(), Kind::Removed)]);
            prop_assert!(d.not_compared.is_empty());
            let d = diff_loaded(&orphan, &full);
            prop_assert_eq!(shown(&d), vec![(id.clone(), Kind::Added)]);
            prop_assert!(d.not_compared.is_empty());
            let broken = bilingual(&old, &old, Some(i));
            prop_assert!(broken.has_errors());
            for d in [diff_loaded(&full, &broken), diff_loaded(&broken, &full)] {
                prop_assert!(d.changes.is_empty(), "{:?}", d.changes);
                prop_assert_eq!(&d.not_compared, &vec![id.clone()]);
            }
        }
    }

    /// A clause with every field set, as the field-by-field property test writes it.
    #[derive(Clone, Debug)]
    struct Full {
        /// `implicit: …` and a text without a keyword, else a text with the level's keyword.
        implicit: Option<String>,
        level: &'static str,
        keyword: &'static str,
        actor: &'static str,
        words: String,
        untestable: Option<String>,
        oci: String,
        tests: Vec<String>,
        review: Option<String>,
        chapter: &'static str,
        section: &'static str,
    }

    impl Full {
        fn spec(&self) -> Spec {
            let mut block = format!(
                "```clause\nid: one.c\nlevel: {}\nactor: {}\n",
                self.keyword, self.actor
            );
            match &self.implicit {
                Some(why) => block.push_str(&format!(
                    "text: The thing is {}.\nimplicit: {why}\n",
                    self.words
                )),
                None => block.push_str(&format!(
                    "text: The thing {} be {}.\n",
                    self.level, self.words
                )),
            }
            match &self.untestable {
                Some(reason) => block.push_str(&format!("verify: untestable\nreason: {reason}\n")),
                None => block.push_str("verify: manual\n"),
            }
            block.push_str(&format!("oci: {}\n", self.oci));
            if !self.tests.is_empty() {
                block.push_str("upstream-tests:\n");
                for t in &self.tests {
                    block.push_str(&format!("  - {t}\n"));
                }
            }
            if let Some(r) = &self.review {
                block.push_str(&format!("review: {r}\n"));
            }
            block.push_str("```\n");
            let mut files = std::collections::BTreeMap::new();
            let contract = CONTRACT.replace("chapters: [one]", "chapters: [one, two]");
            files.insert(PathBuf::from("s/contract.yaml"), contract.into_bytes());
            for ch in ["one", "two"] {
                let mut text = format!("# {ch}\n\n## First\n\nProse.\n\n");
                if ch == self.chapter && self.section == "First" {
                    text.push_str(&block);
                }
                text.push_str("\n## Second\n\nMore prose.\n\n");
                if ch == self.chapter && self.section == "Second" {
                    text.push_str(&block);
                }
                files.insert(PathBuf::from(format!("s/en/{ch}.md")), text.into_bytes());
            }
            let loaded = load_from(&Tree::Memory(files), Path::new("s"), LoadOptions::default());
            assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
            assert_eq!(loaded.spec.clauses.len(), 1);
            loaded.spec
        }
    }

    fn full() -> impl Strategy<Value = Full> {
        let word = "[a-z]{1,8}";
        (
            (
                any::<bool>(),
                word,
                prop::sample::select(vec![
                    ("MUST", "MUST"),
                    ("MUST", "SHALL"),
                    ("SHOULD", "SHOULD"),
                    ("SHOULD", "RECOMMENDED"),
                    ("MAY", "MAY"),
                ]),
            ),
            prop::sample::select(vec!["platform", "developer", "container"]),
            prop::collection::vec(word, 1..5),
            prop::option::of(word),
            prop::sample::select(vec!["runtime.md#kill", "config.md#root", "config.md"]),
            prop::collection::vec("[a-z]{1,6}_test\\.go(#Test[A-Z][a-z]{0,6})?", 0..3),
            prop::option::of(word),
            (
                prop::sample::select(vec!["one", "two"]),
                prop::sample::select(vec!["First", "Second"]),
            ),
        )
            .prop_map(
                |(
                    (implicit, why, (level, keyword)),
                    actor,
                    words,
                    untestable,
                    oci,
                    tests,
                    review,
                    (chapter, section),
                )| Full {
                    implicit: implicit.then(|| format!("because {why}")),
                    level,
                    keyword,
                    actor,
                    words: words.join(" "),
                    untestable: untestable.map(|r| format!("reason {r}")),
                    oci: oci.to_string(),
                    tests,
                    review: review.map(|r| format!("decide {r}")),
                    chapter,
                    section,
                },
            )
    }

    /// Each field of the clause changed alone, and the one kind of change `diff` must report.
    fn one_field_changes(c: &Full) -> Vec<(&'static str, Full, Kind)> {
        let mut out = Vec::new();
        let mut with = |field, kind, f: &dyn Fn(&mut Full)| {
            let mut n = c.clone();
            f(&mut n);
            out.push((field, n, kind));
        };
        with("text", Kind::Reworded, &|n| n.words.push_str(" more"));
        // The keyword of the same level; a keyword written in the text must stay that level's.
        let other = match c.keyword {
            "MUST" => "SHALL",
            "SHALL" => "MUST",
            "SHOULD" => "RECOMMENDED",
            "RECOMMENDED" => "SHOULD",
            _ => "OPTIONAL",
        };
        with("keyword", Kind::Keyword, &|n| n.keyword = other);
        if c.implicit.is_some() {
            // Without a keyword in the text, the level can change alone.
            let (level, keyword) = if c.level == "MUST" {
                ("SHOULD", "SHOULD")
            } else {
                ("MUST", "MUST")
            };
            with("level", Kind::Level, &|n| {
                n.level = level;
                n.keyword = keyword;
            });
            with("implicit", Kind::Implicit, &|n| {
                n.implicit = Some("for another reason".into())
            });
        }
        with("actor", Kind::Actor, &|n| {
            n.actor = if c.actor == "platform" {
                "developer"
            } else {
                "platform"
            }
        });
        with("verify", Kind::Verify, &|n| {
            n.untestable = match &c.untestable {
                Some(_) => None,
                None => Some("no observation".into()),
            }
        });
        if c.untestable.is_some() {
            with("reason", Kind::Verify, &|n| {
                n.untestable = Some("another reason".into())
            });
        }
        with("oci", Kind::Oci, &|n| {
            n.oci = if c.oci == "runtime.md#start" {
                "runtime.md#kill".into()
            } else {
                "runtime.md#start".into()
            }
        });
        with("upstream-tests", Kind::Tests, &|n| {
            n.tests.push("zz_test.go#TestZ".into())
        });
        with("review", Kind::Review, &|n| {
            n.review = match &c.review {
                Some(_) => None,
                None => Some("decide it".into()),
            }
        });
        with("section", Kind::Moved, &|n| {
            n.section = if c.section == "First" {
                "Second"
            } else {
                "First"
            }
        });
        with("chapter", Kind::Moved, &|n| {
            n.chapter = if c.chapter == "one" { "two" } else { "one" }
        });
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// For a clause with every field set, each field changed alone is reported as exactly one
        /// change of its kind (`oci` and `implicit` among them, which `diff` used to miss).
        #[test]
        fn each_field_changed_alone_is_reported(c in full()) {
            let old = c.spec();
            for (field, n, kind) in one_field_changes(&c) {
                let d = compare(&old, &n.spec(), &BTreeSet::new(), None);
                let kinds: Vec<Kind> = d.changes.iter().map(|c| c.kind).collect();
                prop_assert_eq!(kinds, vec![kind], "{} changed: {:?} → {:?}", field, c, n);
            }
            let same = compare(&old, &c.spec(), &BTreeSet::new(), None);
            prop_assert!(same.changes.is_empty());
        }
    }

    #[test]
    fn directions() {
        use Level::*;
        let d = |a, b| direction(a, b).map(Direction::as_str);
        assert_eq!(d(Should, Must), Some("strengthens"));
        assert_eq!(d(May, MustNot), Some("strengthens"));
        assert_eq!(d(ShouldNot, MustNot), Some("strengthens"));
        assert_eq!(d(Must, Should), Some("weakens"));
        assert_eq!(d(MustNot, May), Some("weakens"));
        assert_eq!(d(Should, ShouldNot), Some("reverses"));
        assert_eq!(d(Must, ShouldNot), Some("reverses"));
        assert_eq!(d(Must, Must), None);
    }

    #[test]
    fn word_diff_ignores_rewrapping() {
        let w = word_diff("a  b\nc d", "a b c e");
        let ops: Vec<(&str, &str)> = w.iter().map(|w| (w.op.into(), w.text.as_str())).collect();
        assert_eq!(ops, [("equal", "a b c "), ("delete", "d"), ("insert", "e")]);
    }
}

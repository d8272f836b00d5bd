//! What a new import keeps of an earlier version of the same text (`--keep-ids-from`): each clause
//! matched with the earlier clause it restates ([`super::ids`]) takes that clause's id and actor,
//! and — unless only the upstream's text is wanted ([`Carry::UpstreamOnly`]) — every other decision
//! an editor made on it (verify kind and reason, OCI reference, upstream tests, a review note
//! resolved), the earlier `contract.yaml` and the translations of the chapters. So re-importing an
//! unchanged upstream into an edited spec changes nothing, and a changed upstream changes only what
//! it changed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use kcontract_spec::diagnostic::FileId;
use kcontract_spec::{Loaded, Spec, markdown_options};

use super::Written;
use super::ids;

/// How much of the earlier version a new import keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Carry {
    /// Ids, actors and every other decision of the editors, the `contract.yaml` and the
    /// translations (`--keep-ids-from`).
    #[default]
    Decisions,
    /// Ids and actors only: the new version is what the upstream text says, nothing the editors
    /// added (`--upstream-only`; the contract's history is built so).
    UpstreamOnly,
}

/// The earlier version a new import follows (`--keep-ids-from`).
pub struct Earlier<'a> {
    /// Its folder, loaded without errors.
    pub loaded: &'a Loaded,
    /// The folder (where its `contract.yaml` and translations are among `loaded.sources`).
    pub dir: &'a Path,
    /// What is kept.
    pub carry: Carry,
}

/// What an editor decided about a clause besides its text, level and actor.
#[derive(Clone, Debug, Default)]
pub(super) struct Decisions {
    pub(super) verify: String,
    pub(super) reason: Option<String>,
    pub(super) oci: Option<String>,
    pub(super) upstream_tests: Vec<String>,
}

/// What a new clause takes from the earlier clause it restates.
#[derive(Clone, Debug)]
pub(super) struct Carried {
    pub(super) id: String,
    pub(super) actor: String,
    /// The earlier clause's text: its subject decides whether the actor still stands, its words
    /// whether a review note resolved then is resolved now.
    pub(super) text: String,
    /// The earlier clause's review note (none once a person resolved it): it stands while the
    /// words are the same, whatever is carried, so an unchanged statement gets the same note in
    /// every version and a step shows no change of review that upstream did not cause.
    pub(super) review: Option<String>,
    /// `None` with [`Carry::UpstreamOnly`].
    pub(super) decisions: Option<Decisions>,
}

impl Carried {
    /// The review note to write when the earlier clause decides it: its own (none, once a person
    /// resolved it) when the words did not change; `None` when the new text calls for its own.
    pub(super) fn review(&self, new_text: &str) -> Option<Option<String>> {
        ids::same_meaning(&self.text, new_text).then(|| self.review.clone())
    }
}

/// For each clause the new pass wrote (by index), what it takes from `earlier`.
pub(super) fn carried(
    written: &[Written],
    earlier: &Spec,
    carry: Carry,
) -> BTreeMap<usize, Carried> {
    let new: Vec<ids::Statement<'_>> = written
        .iter()
        .map(|w| ids::Statement {
            level: w.level,
            text: &w.text,
            section: &w.section,
        })
        .collect();
    let sections: Vec<String> = earlier
        .clauses
        .iter()
        .map(|c| {
            c.section.as_ref().map_or_else(String::new, |s| {
                super::text::slug(super::text::unnumbered(&s.title), 40)
            })
        })
        .collect();
    let old: Vec<(ids::Statement<'_>, &str)> = earlier
        .clauses
        .iter()
        .zip(&sections)
        .map(|(c, section)| {
            let s = ids::Statement {
                level: c.level,
                text: &c.text,
                section,
            };
            (s, c.id.as_str())
        })
        .collect();
    ids::matches(&new, &old)
        .into_iter()
        .filter_map(|(i, id)| {
            let c = earlier.clause(&id)?;
            let decisions = (carry == Carry::Decisions).then(|| Decisions {
                verify: c.verify.as_str().to_string(),
                reason: c.reason.clone(),
                oci: c.oci.clone(),
                upstream_tests: c.upstream_tests.clone(),
            });
            Some((
                i,
                Carried {
                    id,
                    actor: c.actor.as_str().to_string(),
                    text: c.text.clone(),
                    review: c.review.as_ref().map(|(note, _)| note.clone()),
                    decisions,
                },
            ))
        })
        .collect()
}

/// The text of the file `path` among the files `loaded` read.
fn source<'l>(loaded: &'l Loaded, path: &Path) -> Option<&'l str> {
    (0..loaded.sources.len())
        .map(|i| loaded.sources.get(FileId(i as u32)))
        .find(|f| f.path == path)
        .map(|f| f.text.as_str())
}

/// The earlier `contract.yaml`, as its editors wrote it, with `chapters` the new ones and without
/// its `history:` (those folders are the earlier version's neighbours, not the new one's); `None`
/// when its `chapters:` cannot be rewritten (the import's own is written then).
pub(super) fn contract_yaml(earlier: &Earlier<'_>, chapters: &[String]) -> Option<String> {
    let yaml = source(earlier.loaded, &earlier.dir.join("contract.yaml"))?;
    let yaml = without_key(yaml, "history");
    with_chapters(&yaml, chapters)
}

/// `yaml` without the top-level `key:` and its lines (the indented and blank ones after it), nor
/// the comment lines right above it.
fn without_key(yaml: &str, key: &str) -> String {
    let lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
    else {
        return yaml.to_string();
    };
    let mut start = at;
    while start > 0 && lines[start - 1].starts_with('#') {
        start -= 1;
    }
    let mut end = at + 1;
    while end < lines.len() && (lines[end].starts_with([' ', '\t']) || lines[end].trim().is_empty())
    {
        end += 1;
    }
    let mut out: String = lines[..start].concat();
    out.push_str(&lines[end..].concat());
    out
}

/// `yaml` with its top-level `chapters:` list replaced by `names` (written one a line), the rest
/// kept as written; `None` when it has no such list.
fn with_chapters(yaml: &str, names: &[String]) -> Option<String> {
    let lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let at = lines.iter().position(|l| l.starts_with("chapters:"))?;
    let mut end = at + 1;
    let rest = lines[at]["chapters:".len()..].trim();
    if rest.is_empty() || rest.starts_with('#') {
        while end < lines.len() && lines[end].trim_start().starts_with("- ") {
            end += 1;
        }
    } else if !(rest.starts_with('[') && rest.ends_with(']')) {
        return None;
    }
    let mut out: String = lines[..at].concat();
    out.push_str("chapters:\n");
    for n in names {
        out.push_str(&format!("  - {n}\n"));
    }
    out.push_str(&lines[end..].concat());
    Some(out)
}

/// The earlier version's translations of the new chapters: each `<lang>/<chapter>.md` it has, as
/// its translators wrote it, less the clause blocks of ids the new version no longer has (a
/// translation of no clause is an error; a clause not translated yet is only missing).
pub(super) fn translations(
    earlier: &Earlier<'_>,
    chapters: &[String],
    ids: &BTreeSet<String>,
) -> Vec<(String, String, String)> {
    let langs = earlier.loaded.spec.contract.languages.iter().skip(1);
    let mut out = Vec::new();
    for lang in langs {
        for chapter in chapters {
            let path = kcontract_spec::chapter_file(earlier.dir, lang, chapter);
            if let Some(text) = source(earlier.loaded, &path) {
                out.push((lang.clone(), chapter.clone(), without_clauses(text, ids)));
            }
        }
    }
    out
}

/// `markdown` without the clause blocks (whole lines, and the blank line after one) whose id is
/// not in `keep`.
fn without_clauses(markdown: &str, keep: &BTreeSet<String>) -> String {
    let mut drop: Vec<std::ops::Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(markdown, markdown_options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info)))
                if info.split_whitespace().next() == Some("clause") =>
            {
                let body = &markdown[range.clone()];
                let id = body.lines().find_map(|l| {
                    l.trim_start()
                        .strip_prefix("id:")
                        .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
                });
                if id.is_some_and(|id| !keep.contains(&id)) {
                    let start = markdown[..range.start].rfind('\n').map_or(0, |i| i + 1);
                    let mut end = markdown[range.end..]
                        .find('\n')
                        .map_or(markdown.len(), |i| range.end + i + 1);
                    if markdown[end..].starts_with('\n') {
                        end += 1;
                    }
                    drop.push(start..end);
                }
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(markdown.len());
    let mut last = 0;
    for r in drop {
        if r.start < last {
            continue;
        }
        out.push_str(&markdown[last..r.start]);
        last = r.end;
    }
    out.push_str(&markdown[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_yaml_keeps_all_but_its_chapters_and_history() {
        let yaml = "title: T\n# the chapters\nchapters:\n  - a\n  - b\nactors: [x]\n# earlier ones\nhistory:\n  - name: one\n    path: h/one\n\nsearch_hint: x\n";
        let y = without_key(yaml, "history");
        assert_eq!(
            y,
            "title: T\n# the chapters\nchapters:\n  - a\n  - b\nactors: [x]\nsearch_hint: x\n"
        );
        assert_eq!(
            with_chapters(&y, &["c".to_string()]).as_deref(),
            Some("title: T\n# the chapters\nchapters:\n  - c\nactors: [x]\nsearch_hint: x\n")
        );
        assert_eq!(
            with_chapters("chapters: [a, b]\n", &["c".to_string()]).as_deref(),
            Some("chapters:\n  - c\n")
        );
        assert_eq!(with_chapters("chapters: a\n", &[]), None);
    }

    #[test]
    fn translated_blocks_of_gone_clauses_are_dropped() {
        let md = "# T\n\n```clause\nid: a.one\ntext: 一\nsource: 0\n```\n\n```clause\nid: a.two\ntext: 二\nsource: 0\n```\n\nEnd.\n";
        let keep = BTreeSet::from(["a.two".to_string()]);
        assert_eq!(
            without_clauses(md, &keep),
            "# T\n\n```clause\nid: a.two\ntext: 二\nsource: 0\n```\n\nEnd.\n"
        );
    }
}

//! Suspect tests: a test's `Clause:` line records the stamp of the clause text it was reviewed
//! against (`/// Clause: config.env.port @ 3ffbcbe9a1b2`), the same stamp translations record
//! ([`kcontract_spec::clause_stamp`], one definition). When the clause's text — or its level, which
//! is in the text, or in the stamp where the text states none — changes, the stamps differ and the test is *suspect* until a person has looked at it
//! and re-stamped it (`kcontract review`). This is the Doorstop fingerprint idea, applied to tests.
//!
//! Only real tests are reported: an untouched stub is re-stamped by `scaffold` (there is nothing in
//! it to review). An annotation without a stamp stays valid (test suites older than stamps) and is
//! reported, as *unreviewed*, only with `--strict`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap};

use super::{TestFn, TestKind};

/// The diagnostics for suspect tests (K0514: a warning, an error with `strict`) and, with
/// `strict`, for real tests whose annotation has no stamp (K0515, a warning); the hints say
/// `kcontract review ID` ([`review_diagnostics_for`] names the command with its options).
pub fn review_diagnostics(spec: &Spec, tests: &[TestFn], strict: bool) -> Vec<Diagnostic> {
    review_diagnostics_for(spec, tests, strict, "kcontract review")
}

/// [`review_diagnostics`], where `review` is the
/// command the hints tell the user to run, with the options the current command was run with
/// (`kcontract --spec ../spec review --manifest-path x/Cargo.toml`), the ids are appended.
pub fn review_diagnostics_for(
    spec: &Spec,
    tests: &[TestFn],
    strict: bool,
    review: &str,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for t in tests.iter().filter(|t| t.kind == TestKind::Real) {
        for k in &t.claims {
            let Some(c) = spec.clause(&k.id) else {
                continue;
            };
            if k.suspect(spec) {
                let recorded = k.stamp.as_deref().unwrap_or_default();
                let msg = format!(
                    "the test `{}` is suspect: clause `{}` changed since the test was reviewed",
                    t.path, k.id
                );
                let d = if strict {
                    Diagnostic::error("K0514", msg)
                } else {
                    Diagnostic::warning("K0514", msg)
                };
                out.push(
                    d.at(
                        k.stamp_span.clone(),
                        format!("reviewed against {recorded}; the clause is now {}", c.stamp),
                    )
                    .help(format!(
                        "the clause's text or level changed ({}:{}; now: {} “{}”); check that the test still verifies it, then run `{review} {}`",
                        c.file.display(),
                        c.line,
                        c.level,
                        short(&c.text),
                        k.id
                    )),
                );
            } else if strict && k.unreviewed() {
                out.push(
                    Diagnostic::warning(
                        "K0515",
                        format!(
                            "the test `{}` claims `{}` without a review stamp",
                            t.path, k.id
                        ),
                    )
                    .at(k.span.clone(), "no ` @ <stamp>` after the id")
                    .help(format!(
                        "once you have checked the test against the clause, run `{review} {}` to record its stamp ({})",
                        k.id, c.stamp
                    )),
                );
            }
        }
    }
    out
}

/// The clause text cut to one line of about 80 characters, for a hint.
fn short(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut s = String::new();
    for w in words {
        if s.chars().count() + w.chars().count() > 80 {
            s.push('…');
            return s;
        }
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(w);
    }
    s
}

/// Which claims `kcontract review` re-stamps.
#[derive(Clone, Debug)]
pub enum ReviewTarget {
    /// Every real test's claim of these clauses (suspect or without a stamp).
    Ids(Vec<String>),
    /// Every suspect claim and every real test's claim without a stamp.
    All,
}

/// One re-stamped claim: the file (as it was read), the test, the clause.
pub type Restamped = (PathBuf, String, String);

/// A generated doc comment to refresh with a re-stamp: the test (the span of its name), a byte
/// range of its file and its new text (`crate::scaffold::stale_doc`).
pub type DocEdit = (
    kcontract_spec::diagnostic::Span,
    std::ops::Range<usize>,
    String,
);

/// What one `review` run changed.
#[derive(Clone, Debug, Default)]
pub struct Reviewed {
    /// The claims re-stamped, in file order.
    pub restamped: Vec<Restamped>,
    /// The stale claims re-pointed (the id they had), in file order.
    pub repointed: Vec<(PathBuf, String, String, String)>,
}

/// Record the current stamp on the chosen claims of real tests: the stamp after ` @ ` is replaced,
/// or ` @ <stamp>` is inserted after the id. Only those bytes change (the files' text is edited,
/// written atomically, one file at a time). Returns what was re-stamped, in file order.
///
/// `docs` are further edits made with the stamps: for a test, its generated doc comment
/// refreshed to the current clause text; only those of re-stamped tests are applied.
pub fn restamp(
    spec: &Spec,
    tests: &[TestFn],
    sources: &SourceMap,
    target: &ReviewTarget,
    docs: &[DocEdit],
) -> Result<Vec<Restamped>, Diagnostic> {
    review(spec, tests, sources, target, &[], docs).map(|r| r.restamped)
}

/// One review in one write per file: the claims `target` chooses re-stamped (with their docs'
/// edits), and every claim of each `(OLD, NEW)` of `renames` re-pointed (only the id's bytes; the
/// stamp stays). Stale claims of other ids are left as they are: each is resolved on its own,
/// so one can be resolved while others are still stale. With [`ReviewTarget::All`], a stale claim
/// whose stamp is a current clause's (a rename: [`super::renamed_to`]) is re-pointed too.
pub fn review(
    spec: &Spec,
    tests: &[TestFn],
    sources: &SourceMap,
    target: &ReviewTarget,
    renames: &[(String, String)],
    docs: &[DocEdit],
) -> Result<Reviewed, Diagnostic> {
    let mut acc = Acc::default();
    for t in tests {
        for k in t.claims.iter().chain(&t.unknown) {
            let new = renames
                .iter()
                .find(|(old, _)| *old == k.id)
                .map(|(_, new)| new.as_str())
                .or_else(|| match target {
                    ReviewTarget::All if spec.clause(&k.id).is_none() => {
                        super::renamed_to(spec, k.stamp.as_deref())
                    }
                    _ => None,
                });
            if let Some(new) = new {
                acc.edits
                    .entry(k.span.file)
                    .or_default()
                    .push((k.span.range.clone(), new.to_string()));
                acc.done.repointed.push((
                    sources.get(k.span.file).path.clone(),
                    t.path.clone(),
                    k.id.clone(),
                    new.to_string(),
                ));
            }
        }
        if t.kind == TestKind::Real {
            restamp_test(spec, t, sources, (target, docs), &mut acc);
        }
    }
    write_edits(acc.edits, sources)?;
    Ok(acc.done)
}

/// The edits of a review, and what they do.
#[derive(Default)]
struct Acc {
    edits: Edits,
    done: Reviewed,
}

/// The re-stamps of one real test's claims (and its doc's refresh), added to `edits`.
fn restamp_test(
    spec: &Spec,
    t: &TestFn,
    sources: &SourceMap,
    (target, docs): (&ReviewTarget, &[DocEdit]),
    acc: &mut Acc,
) {
    let Acc { edits, done } = acc;
    for k in &t.claims {
        let Some(c) = spec.clause(&k.id) else {
            continue;
        };
        let wanted = match target {
            ReviewTarget::Ids(ids) => ids.contains(&k.id),
            ReviewTarget::All => k.suspect(spec) || k.unreviewed(),
        };
        if !wanted || k.stamp.as_deref() == Some(c.stamp.as_str()) {
            continue;
        }
        let new = if k.stamp.is_some() {
            c.stamp.clone()
        } else {
            format!(" @ {}", c.stamp)
        };
        edits
            .entry(k.stamp_span.file)
            .or_default()
            .push((k.stamp_span.range.clone(), new));
        // The test's generated doc, if it has one that is stale: it ends before the claim.
        if let Some((_, range, text)) = docs.iter().find(|(n, _, _)| *n == t.name_span)
            && !edits[&t.name_span.file].iter().any(|(r, _)| r == range)
        {
            edits
                .entry(t.name_span.file)
                .or_default()
                .push((range.clone(), text.clone()));
        }
        done.restamped.push((
            sources.get(k.stamp_span.file).path.clone(),
            t.path.clone(),
            k.id.clone(),
        ));
    }
}

/// Byte edits per file: (range, replacement).
type Edits = BTreeMap<FileId, Vec<(std::ops::Range<usize>, String)>>;

/// Apply the edits to the files' text as read and write each file atomically, one at a time.
fn write_edits(edits: Edits, sources: &SourceMap) -> Result<(), Diagnostic> {
    for (file_id, mut list) in edits {
        let file = sources.get(file_id);
        let mut text = file.text.clone();
        list.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        for (range, new) in list {
            text.replace_range(range, &new);
        }
        kcontract_spec::fsutil::write_atomic(&file.path, file.written(&text).as_bytes()).map_err(
            |e| {
                Diagnostic::error(
                    "K0306",
                    format!("cannot write `{}`: {e}", file.path.display()),
                )
                .in_file(&file.path)
                .help("check that the file is writable; nothing was changed in it")
            },
        )?;
    }
    Ok(())
}

/// Re-point every `Clause: OLD` line of any test (stubs too) at `new`: only the id's bytes
/// change, the stamp stays (so the test is current when `new`'s text is the one it was reviewed
/// against, and suspect otherwise). Returns what was changed, in file order.
pub fn repoint(
    tests: &[TestFn],
    sources: &SourceMap,
    spec: &Spec,
    old: &str,
    new: &str,
) -> Result<Vec<Restamped>, Diagnostic> {
    let renames = [(old.to_string(), new.to_string())];
    let done = review(
        spec,
        tests,
        sources,
        &ReviewTarget::Ids(Vec::new()),
        &renames,
        &[],
    )?;
    Ok(done
        .repointed
        .into_iter()
        .map(|(file, test, old, _)| (file, test, old))
        .collect())
}

//! `kcontract list` and the `check` summary: read-only views of a [`Spec`].
//!
//! The JSON form is the stable machine interface (documented in docs/formats.md, "The clause list"):
//! fields are only ever added, never renamed or removed, and `format` changes if that promise breaks.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::spec::{Actor, Clause, Level, SectionRef, Spec, Verify};

/// Identifies the JSON shape; bumped only on an incompatible change.
pub const CLAUSES_FORMAT: &str = "kcontract-clauses/1";

#[derive(Serialize)]
pub(crate) struct ClauseList<'a> {
    pub format: &'static str,
    /// What the list is of.
    pub contract: ContractInfo<'a>,
    /// Every clause, in the spec's order.
    pub clauses: Vec<ClauseView<'a>>,
}

/// The contract a clause list is of (`contract` of the JSON).
#[derive(Serialize)]
pub struct ContractInfo<'a> {
    /// `title` of contract.yaml.
    pub title: &'a str,
    /// `version` of contract.yaml.
    pub version: &'a str,
    /// Its languages, the source first.
    pub languages: &'a [String],
}

/// One clause of the list (an element of `clauses` in the JSON): its fields as the spec has them.
#[derive(Serialize)]
pub struct ClauseView<'a> {
    /// The clause id.
    pub id: &'a str,
    /// Its level.
    pub level: Level,
    /// The keyword as its text writes it (`SHALL`, `MUST`).
    pub keyword: &'a str,
    /// Whom it binds.
    pub actor: Actor,
    /// How conformance is shown.
    pub verify: Verify,
    /// Why it is untestable, or null.
    pub reason: Option<&'a str>,
    /// Why a keyword-less statement binds, or null.
    pub implicit: Option<&'a str>,
    /// The OCI runtime spec reference, or null.
    pub oci: Option<&'a str>,
    /// The upstream conformance tests listed for it.
    pub upstream_tests: &'a [String],
    /// What a person still has to decide about the clause (`review:`), or null.
    pub review: Option<&'a str>,
    /// The stamp of its text (the one translations and reviewed tests record).
    pub stamp: &'a str,
    /// The chapter it is in.
    pub chapter: &'a str,
    /// The section heading it is under, or null.
    pub section: Option<&'a SectionRef>,
    /// Path with `/` separators: in `list`, as given on the command line (relative to the working
    /// directory); in the site's `clauses.json`, relative to the spec folder ([`Self::published`]).
    pub file: String,
    /// The line of its clause block in `file`.
    pub line: usize,
    /// Its text.
    pub text: &'a str,
}

impl<'a> ClauseView<'a> {
    /// Every field is named, so a new one does not compile until the list shows it (or says why
    /// not: the spans are positions in the file, given as `file` and `line`).
    pub fn new(c: &'a Clause) -> Self {
        let Clause {
            id,
            level,
            keyword,
            actor,
            text,
            stamp,
            verify,
            reason,
            implicit,
            oci,
            upstream_tests,
            review,
            chapter,
            section,
            file,
            line,
            span: _,
            id_span: _,
        } = c;
        Self {
            id,
            level: *level,
            keyword,
            actor: *actor,
            verify: *verify,
            reason: reason.as_deref(),
            implicit: implicit.as_deref(),
            oci: oci.as_deref(),
            upstream_tests,
            review: review.as_ref().map(|(note, _)| note.as_str()),
            stamp,
            chapter,
            section: section.as_ref(),
            file: file.to_string_lossy().replace('\\', "/"),
            line: *line,
            text,
        }
    }
}

impl ClauseView<'_> {
    /// The view as the site publishes it: `file` relative to the spec folder (`en/one.md`), the
    /// same however `--spec` was spelled, and never an absolute path of the machine that built it.
    pub fn published(mut self, c: &Clause) -> Self {
        let parts: Vec<String> = c
            .file
            .components()
            .rev()
            .take(2)
            .map(|p| p.as_os_str().to_string_lossy().into_owned())
            .collect();
        self.file = parts.into_iter().rev().collect::<Vec<_>>().join("/");
        self
    }
}

pub(crate) fn clause_list(spec: &Spec) -> ClauseList<'_> {
    ClauseList {
        format: CLAUSES_FORMAT,
        contract: ContractInfo::of(spec),
        clauses: spec.clauses.iter().map(ClauseView::new).collect(),
    }
}

impl<'a> ContractInfo<'a> {
    /// The contract `spec` is.
    pub fn of(spec: &'a Spec) -> Self {
        ContractInfo {
            title: &spec.contract.title,
            version: &spec.contract.version,
            languages: &spec.contract.languages,
        }
    }
}

/// `list --format json`: the clause list (`kcontract-clauses/1`), pretty-printed, with a final newline.
pub fn json(spec: &Spec) -> Result<String, serde_json::Error> {
    let mut s = serde_json::to_string_pretty(&clause_list(spec))?;
    s.push('\n');
    Ok(s)
}

/// A plain-text table, one clause per line; long texts are shortened (the JSON has them whole).
pub fn table(spec: &Spec) -> String {
    const TEXT_WIDTH: usize = 60;
    let rows: Vec<[String; 6]> = spec
        .clauses
        .iter()
        .map(|c| {
            [
                c.id.clone(),
                c.level.to_string(),
                c.actor.to_string(),
                c.verify.to_string(),
                format!("{}:{}", c.file.display(), c.line),
                shorten(&c.text, TEXT_WIDTH),
            ]
        })
        .collect();
    let header = ["ID", "LEVEL", "ACTOR", "VERIFY", "LOCATION", "TEXT"];
    let mut widths = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: [&str; 6]| {
        let mut l = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == cells.len() - 1 {
                l.push_str(cell);
            } else {
                let _ = write!(l, "{cell:<w$}  ");
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(header);
    for r in &rows {
        line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]);
    }
    let _ = writeln!(out, "{} clauses", rows.len());
    out
}

fn shorten(text: &str, width: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= width {
        one_line
    } else {
        let cut: String = one_line.chars().take(width - 1).collect();
        format!("{}…", cut.trim_end())
    }
}

/// The `check` summary: counts per level, actor and verification method.
pub fn summary(spec: &Spec, dir: &Path) -> String {
    fn counts<K: Ord + Copy>(spec: &Spec, key: impl Fn(&Clause) -> K) -> BTreeMap<K, usize> {
        let mut m = BTreeMap::new();
        for c in &spec.clauses {
            *m.entry(key(c)).or_insert(0) += 1;
        }
        m
    }
    let levels = counts(spec, |c| c.level);
    let actors = counts(spec, |c| c.actor);
    let verify = counts(spec, |c| c.verify);
    let join = |items: Vec<String>| items.join(" · ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "checked {}: {} chapter{}, {} clause{}",
        dir.display(),
        spec.documents.len(),
        if spec.documents.len() == 1 { "" } else { "s" },
        spec.clauses.len(),
        if spec.clauses.len() == 1 { "" } else { "s" },
    );
    let _ = writeln!(
        out,
        "  level   {}",
        join(
            Level::ALL
                .iter()
                .map(|l| format!("{l} {}", levels.get(l).unwrap_or(&0)))
                .collect()
        )
    );
    let _ = writeln!(
        out,
        "  actor   {}",
        join(
            spec.contract
                .actor_list()
                .map(|a| format!("{a} {}", actors.get(&a).unwrap_or(&0)))
                .collect()
        )
    );
    let _ = writeln!(
        out,
        "  verify  {}",
        join(
            spec.contract
                .verify_list()
                .map(|v| format!("{v} {}", verify.get(&v).unwrap_or(&0)))
                .collect()
        )
    );
    out
}

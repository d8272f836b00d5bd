//! A run of `scaffold`: the folder read ([`Folder`]), the plan turned into the files to write
//! (only where they differ from disk) and what to say about it ([`Job::prepare`]), then written
//! ([`Prepared::write`]) or, for `--check`, what would change ([`Prepared::out_of_date`],
//! [`Prepared::changes`]). Nothing here prints: the binary renders what these return.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::crate_files::{CRATE_GITIGNORE, CRATE_LIB, CRATE_NEXTEST, crate_manifest, crate_readme};
use super::plan::plan_in;
use super::target::spec_from;
use super::{OrphanWhy, Plan, RECORD, ScaffoldError, Target, Unreadable, record_ids, record_text};
use crate::annotations::{Scan, TestKind};
use crate::crate_config;
use crate::matrix::Scope;
use crate::selector::Selector;
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span, plural};
use kcontract_spec::fsutil::write_atomic;

/// What one run of `scaffold` is asked to do.
pub struct Job<'a> {
    /// The contract.
    pub spec: &'a Spec,
    /// The spec folder as the command names it: a new crate's `kcontract.toml` points there;
    /// `None` for the contract built into the binary (the file then names no folder).
    pub spec_dir: Option<&'a Path>,
    /// Where to write.
    pub target: &'a Target,
    /// The clauses in scope: the selection (`--select`, else the crate's `select`) and the
    /// crate's exemptions.
    pub scope: &'a Scope,
    /// `--select`, remembered in the crate's `kcontract.toml`.
    pub select: Option<&'a Selector>,
    /// The tests of the project, or of the crate of its own (the pipeline's test scan): a clause
    /// a real test claims gets no stub. Problems in those files are `check`'s business.
    pub scan: &'a Scan,
    /// The `review` command as the user can run it, for the hint of a renamed clause's orphan.
    pub review: &'a str,
}

/// The folder's own `.rs` files and its record of the clauses that have had a stub, as read
/// before planning.
pub struct Folder {
    dir: PathBuf,
    /// File name → text, for every `.rs` file read.
    existing: BTreeMap<String, String>,
    /// The files read, for the diagnostics' spans.
    pub sources: SourceMap,
    /// File name → its id in [`Self::sources`].
    ids: BTreeMap<String, FileId>,
    /// The record's text ([`RECORD`]), when there is one.
    record_old: Option<String>,
    /// The files that could not be read: nothing may be merged then.
    problems: Vec<ScaffoldError>,
}

impl Folder {
    /// Read the `.rs` files of `dir` (in name order) and its record. A file that cannot be read,
    /// or is not UTF-8, is one of [`Self::diagnostics`].
    pub fn read(dir: &Path) -> Folder {
        Folder::read_for(dir, &super::Stubs::Rust)
    }

    /// [`Folder::read`] for stubs in another language: its files are those `stubs` merges
    /// (`_test.go` for Go).
    pub fn read_for(dir: &Path, stubs: &super::Stubs) -> Folder {
        let mut folder = Folder {
            dir: dir.to_path_buf(),
            existing: BTreeMap::new(),
            sources: SourceMap::default(),
            ids: BTreeMap::new(),
            record_old: kcontract_spec::fsutil::read_text(&dir.join(RECORD)).ok(),
            problems: Vec::new(),
        };
        let Ok(entries) = fs::read_dir(dir) else {
            return folder;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| stubs.owns(n))
            .collect();
        names.sort();
        for n in names {
            folder.add(n);
        }
        folder
    }

    /// Read one file of the folder.
    fn add(&mut self, name: String) {
        let path = self.dir.join(&name);
        match kcontract_spec::fsutil::read_regular(&path, kcontract_spec::fsutil::MAX_INPUT)
            .map(String::from_utf8)
        {
            Ok(Ok(text)) => {
                self.ids
                    .insert(name.clone(), self.sources.add(path, text.clone()));
                self.existing.insert(name, text);
            }
            Ok(Err(_)) => self.problems.push(ScaffoldError::NotUtf8 { path }),
            Err(source) => self.problems.push(ScaffoldError::Read { path, source }),
        }
    }

    /// The files that could not be read (errors: K0512, K0513), in name order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.problems
            .iter()
            .map(ScaffoldError::diagnostic)
            .collect()
    }

    /// A file of the folder that is not Rust tokens, at the place the tokenizer gave up.
    fn not_tokens(&self, u: Unreadable) -> ScaffoldError {
        ScaffoldError::NotTokens {
            path: self.dir.join(&u.file),
            span: Span::new(self.ids[&u.file], u.failure.range),
            reason: u.failure.message,
        }
    }
}

/// A run planned: the files to write and what to say about them.
pub struct Prepared<'f> {
    folder: &'f Folder,
    /// The folder of test modules.
    dir: PathBuf,
    plan: Plan,
    orphans: Vec<Diagnostic>,
    /// (path, text), only where the text differs from disk, in the order they are written.
    writes: Vec<(PathBuf, String)>,
    summary: String,
}

impl Job<'_> {
    /// Plan the run against what `folder` holds (read from [`Target::dir`]): every file's new
    /// text, the standalone crate's files when missing, `--select` remembered, the record. An
    /// error when a file of the folder is not Rust tokens (nothing can be merged into it).
    pub fn prepare<'f>(&self, folder: &'f Folder) -> Result<Prepared<'f>, ScaffoldError> {
        let recorded = folder
            .record_old
            .as_deref()
            .map(record_ids)
            .unwrap_or_default();
        let plan = plan_in(
            self.spec,
            &folder.existing,
            &self.real_claims(),
            self.scope,
            &recorded,
            &self.target.stubs,
        )
        .map_err(|u| folder.not_tokens(u))?;
        let orphans = self.orphans(&plan, folder);
        let mut writes = self.crate_files();
        let not_remembered = self.remember_select(&mut writes);
        for (file, text) in &plan.files {
            if folder.existing.get(file) != Some(text) {
                writes.push((self.target.dir.join(file), text.clone()));
            }
        }
        let record_new = record_text(&plan.record);
        if folder.record_old.as_deref() != Some(record_new.as_str()) {
            writes.push((self.target.dir.join(RECORD), record_new));
        }
        let summary = self.summary(&plan, not_remembered);
        Ok(Prepared {
            folder,
            dir: self.target.dir.clone(),
            plan,
            orphans,
            writes,
            summary,
        })
    }

    /// The clauses a real test of the scan claims.
    fn real_claims(&self) -> BTreeSet<String> {
        self.scan
            .tests
            .iter()
            .filter(|t| t.kind == TestKind::Real)
            .flat_map(|t| t.claims.iter().map(|c| c.id.clone()))
            .collect()
    }

    /// A warning (K0510) for each kept test whose clause is gone or untestable.
    fn orphans(&self, plan: &Plan, folder: &Folder) -> Vec<Diagnostic> {
        plan.orphans
            .iter()
            .map(|o| {
                let why = match o.why {
                    OrphanWhy::Removed => "is no longer in the contract",
                    OrphanWhy::Untestable => "is now `verify: untestable`",
                };
                let help = match &o.renamed_to {
                    Some(new) => format!(
                        "`{new}` has the text this test was reviewed against (the same stamp): the clause was renamed; run `{} --rename {} {new}`",
                        self.review, o.id
                    ),
                    None => "delete the test if it is obsolete, or point its `Clause:` line at the clause that replaced it".into(),
                };
                Diagnostic::warning(
                    "K0510",
                    format!(
                        "orphan: `{}` claims `{}`, which {why}; the test is kept",
                        o.test, o.id
                    ),
                )
                .at(
                    Span::new(folder.ids[&o.file], o.name_range.clone()),
                    "kept as it is",
                )
                .help(help)
            })
            .collect()
    }

    /// `--crate NAME`: the crate's own files, those that are missing.
    fn crate_files(&self) -> Vec<(PathBuf, String)> {
        let mut writes = Vec::new();
        let Some(name) = self.target.crate_name() else {
            return writes;
        };
        let spec_rel = self.spec_dir.map(|d| spec_from(d, &self.target.root));
        for (rel, text) in [
            ("Cargo.toml", crate_manifest(self.spec, name)),
            ("src/lib.rs", CRATE_LIB.to_string()),
            (".config/nextest.toml", CRATE_NEXTEST.to_string()),
            (".gitignore", CRATE_GITIGNORE.to_string()),
            ("README.md", crate_readme(self.spec, name)),
            (
                crate_config::FILE,
                crate_config::template(spec_rel.as_deref(), self.select.map(|s| s.text.as_str())),
            ),
        ] {
            let p = self.target.root.join(rel);
            if !p.exists() {
                writes.push((p, text));
            }
        }
        writes
    }

    /// `--select` remembered by the crate: its kcontract.toml's `select`, set in place. True
    /// when it cannot be: the crate has no kcontract.toml, and none is about to be written.
    fn remember_select(&self, writes: &mut Vec<(PathBuf, String)>) -> bool {
        let Some(sel) = self.select else {
            return false;
        };
        let config_path = self.target.root.join(crate_config::FILE);
        match kcontract_spec::fsutil::read_text(&config_path) {
            Ok(text) => {
                let new = crate_config::set_select(&text, &sel.text);
                if new != text {
                    writes.push((config_path, new));
                }
                false
            }
            Err(_) => !writes.iter().any(|(p, _)| *p == config_path),
        }
    }

    /// The lines after the list of files: stubs, kept tests, orphans, removed stubs, the
    /// selection, stubs deleted by hand, a `--select` that could not be remembered.
    fn summary(&self, plan: &Plan, not_remembered: bool) -> String {
        let stubs = plan
            .reports
            .iter()
            .map(|r| r.added.len() + r.refreshed.len())
            .sum::<usize>();
        let added = plan.reports.iter().map(|r| r.added.len()).sum::<usize>();
        let kept = plan.reports.iter().map(|r| r.kept.len()).sum::<usize>();
        let removed = plan.reports.iter().map(|r| r.removed.len()).sum::<usize>();
        let mut summary = format!(
            "{stubs} stub{} ({added} new), {kept} test{} kept as written, {} orphan{}; {} clause{} claimed by real tests elsewhere get no stub\n",
            plural(stubs),
            plural(kept),
            plan.orphans.len(),
            plural(plan.orphans.len()),
            plan.elsewhere.len(),
            plural(plan.elsewhere.len()),
        );
        if removed > 0 {
            summary.push_str(&format!(
                "{removed} untouched stub{} removed: {} clause{} removed, untestable, outside the selection or exempt\n",
                plural(removed),
                if removed == 1 { "its" } else { "their" },
                if removed == 1 { " is" } else { "s are" },
            ));
        }
        if let Some(sel) = &self.scope.select {
            summary.push_str(&format!(
                "selection: {sel} ({} of {} clauses)\n",
                self.spec.clauses.iter().filter(|c| sel.selects(c)).count(),
                self.spec.clauses.len()
            ));
        }
        if !plan.deleted.is_empty() {
            summary.push_str(&format!(
                "{} stub{} deleted by hand not written again (untested until exempted with a reason in {}, or its line is removed from {}): {}\n",
                plan.deleted.len(),
                plural(plan.deleted.len()),
                crate_config::FILE,
                self.target.dir.join(RECORD).display(),
                plan.deleted.join(", ")
            ));
        }
        if not_remembered {
            summary.push_str(&format!(
                "note: --select is not remembered: there is no {} in {} (scaffold --crate writes one)\n",
                crate_config::FILE,
                self.target.root.display()
            ));
        }
        summary
    }
}

/// [`Prepared::write`] stopped at a file: the report of the files written before it, and why.
pub struct WriteFailure {
    /// `wrote …` lines of the files written before the failure.
    pub written: String,
    /// The file that could not be written (K0512).
    pub error: ScaffoldError,
}

impl Prepared<'_> {
    /// Kept tests whose clause is gone or untestable (warnings, K0510), in the folder's sources.
    pub fn orphans(&self) -> &[Diagnostic] {
        &self.orphans
    }

    /// What the run did or would do, in numbers: the lines after the list of files.
    pub fn summary(&self) -> &str {
        &self.summary
    }

    /// Nothing to write: every file is as the plan has it.
    pub fn up_to_date(&self) -> bool {
        self.writes.is_empty()
    }

    /// For `--check`: an error (K0511) for each file that would be written.
    pub fn out_of_date(&self) -> Vec<Diagnostic> {
        self.writes
            .iter()
            .map(|(p, _)| {
                let what = if p.exists() { "is out of date" } else { "is missing" };
                Diagnostic::error("K0511", format!("`{}` {what}", p.display()))
                    .in_file(p)
                    .help("run `kcontract scaffold` (with the same --out/--crate/--select) and commit the result")
            })
            .collect()
    }

    /// For `--check`: each file that would be written, with its text now (empty when it is not
    /// in the folder) and its new text, for a diff.
    pub fn changes(&self) -> impl Iterator<Item = (&Path, &str, &str)> {
        self.writes.iter().map(|(p, new)| {
            let rel = p.strip_prefix(&self.dir).ok().and_then(|r| r.to_str());
            let old = rel
                .and_then(|r| self.folder.existing.get(r))
                .map_or("", String::as_str);
            (p.as_path(), old, new.as_str())
        })
    }

    /// Write the files (their folders made as needed), each atomically: `wrote …` for each (or
    /// `unchanged: DIR`), then the summary.
    pub fn write(&self) -> Result<String, WriteFailure> {
        let mut out = String::new();
        for (path, text) in &self.writes {
            let res = path
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| write_atomic(path, text.as_bytes()));
            if let Err(source) = res {
                return Err(WriteFailure {
                    written: out,
                    error: ScaffoldError::Write {
                        path: path.clone(),
                        source,
                    },
                });
            }
            out.push_str(&self.wrote(path));
        }
        if self.writes.is_empty() {
            out.push_str(&format!("unchanged: {}\n", self.dir.display()));
        }
        out.push_str(&self.summary);
        Ok(out)
    }

    /// The line for a file written: a test module with what happened in it.
    fn wrote(&self, path: &Path) -> String {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match self
            .plan
            .reports
            .iter()
            .find(|r| r.file == file && path.parent() == Some(self.dir.as_path()))
        {
            Some(r) if r.removed.is_empty() => format!(
                "wrote {} ({} new, {} refreshed, {} kept as written)\n",
                path.display(),
                r.added.len(),
                r.refreshed.len(),
                r.kept.len()
            ),
            Some(r) => format!(
                "wrote {} ({} new, {} refreshed, {} kept as written, {} removed)\n",
                path.display(),
                r.added.len(),
                r.refreshed.len(),
                r.kept.len(),
                r.removed.len()
            ),
            None => format!("wrote {}\n", path.display()),
        }
    }
}

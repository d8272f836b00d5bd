//! `kcontract scaffold`: Rust test stubs for the clauses, one file per chapter, regenerated without
//! losing work (the merge itself is `kcontract_trace::scaffold`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::commands::tests_flags::Setup;
use crate::pipeline::{Show, Stages};
use crate::terminal::{Ctx, Failure, Outcome, plural, print, shell_word};
use kcontract_spec::LoadOptions;
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use kcontract_spec::fsutil::write_atomic;
use kcontract_trace::annotations::{self, TestKind};
use kcontract_trace::crate_config;
use kcontract_trace::matrix::Scope;
use kcontract_trace::scaffold::{self, OrphanWhy};
use kcontract_trace::selector::Selector;

/// Write Rust test stubs for the clauses (one file per chapter); regeneration keeps your work.
#[derive(clap::Args, Debug)]
pub(crate) struct Scaffold {
    /// Folder of test modules (default tests/contract); with --crate, the crate's root (default ./NAME).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write a standalone crate NAME (Cargo.toml and src/lib.rs when missing, tests/contract/).
    #[arg(long = "crate", value_name = "NAME", value_parser = scaffold::check_crate_name)]
    crate_name: Option<String>,
    /// Write nothing; exit 1 when a file would change.
    #[arg(long)]
    check: bool,
    /// Only stubs for these clauses (the selector grammar of `matrix --require`, e.g.
    /// `actor:platform,verify:conformance`); remembered in the crate's kcontract.toml, whose
    /// `select` is used when this is not given. Untouched stubs of other clauses are removed.
    #[arg(long, value_name = "SELECTOR")]
    select: Option<Selector>,
    #[command(flatten)]
    tests: crate::commands::tests_flags::TestsFlags,
}

/// `./x` as `x`, as a user would write it.
fn tidy(p: &Path) -> PathBuf {
    p.strip_prefix(".")
        .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
}

/// Where `scaffold` writes.
struct ScaffoldTarget {
    /// The project whose tests are scanned for real tests (the crate root in `--crate` mode).
    root: PathBuf,
    /// The folder of test modules.
    dir: PathBuf,
    /// `--crate NAME`: also write `Cargo.toml` and `src/lib.rs` into `root` when missing.
    crate_name: Option<String>,
    /// `--crate`, `--tests-root`/`--manifest-path`, or a kcontract.toml here: a crate of its own.
    own_crate: bool,
}

impl ScaffoldTarget {
    /// `--crate NAME [--out DIR]`: the crate in DIR (default ./NAME); else the crate of
    /// `--tests-root`/`--manifest-path` or of a kcontract.toml in the working directory (`crate_root`),
    /// its `tests/contract` unless `--out` says otherwise; else this project's `tests/contract`.
    fn new(out: Option<PathBuf>, crate_name: Option<String>, crate_root: Option<PathBuf>) -> Self {
        match (crate_name, crate_root) {
            (Some(name), _) => {
                let root = out.unwrap_or_else(|| PathBuf::from(&name));
                Self {
                    dir: root.join("tests").join("contract"),
                    root,
                    crate_name: Some(name),
                    own_crate: true,
                }
            }
            (None, Some(root)) => Self {
                dir: out.unwrap_or_else(|| tidy(&root.join("tests").join("contract"))),
                root,
                crate_name: None,
                own_crate: true,
            },
            (None, None) => Self {
                root: PathBuf::from("."),
                dir: out.unwrap_or_else(|| PathBuf::from("tests/contract")),
                crate_name: None,
                own_crate: false,
            },
        }
    }

    /// Whether this is a crate of its own (scanned with Cargo's layout), not this project.
    fn is_crate(&self) -> bool {
        self.own_crate
    }
}

impl Scaffold {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        // With --crate, the crate's kcontract.toml is in --out (default ./NAME).
        let flags = match &self.crate_name {
            Some(name) => {
                let root = self.out.clone().unwrap_or_else(|| PathBuf::from(name));
                let mut f = self.tests.clone();
                if root.is_dir() {
                    f = f.or_root(root);
                }
                f
            }
            None => self.tests.clone(),
        };
        let setup = flags.setup(ctx, false)?;
        let ctx = &setup.ctx.writing("nothing was written");
        let loaded =
            Stages::new(ctx).spec(LoadOptions::default(), Show::TranslationStateCounted)?;
        setup.check_config(&loaded.spec)?;
        if let Some(sel) = &self.select {
            if let Some((term, known)) = sel.unknown_name(&loaded.spec.contract) {
                return Err(ctx.usage(&format!("`{term}` names nothing in this contract"), &known));
            }
            if let Some(hint) = sel.selects_nothing(&loaded.spec) {
                return Err(ctx.usage(&format!("`--select {sel}` selects no clause"), &hint));
            }
        }
        let crate_root = if self.crate_name.is_some() {
            None
        } else {
            setup.at.root.clone()
        };
        let target = ScaffoldTarget::new(self.out, self.crate_name, crate_root);
        write(
            ctx,
            &loaded.spec,
            &target,
            self.check,
            &setup,
            self.select.as_ref(),
        )
    }
}

/// The spec folder as the crate's kcontract.toml names it: relative to the crate (which need not
/// exist yet), so that the pair can move together and no machine's absolute path is written.
fn spec_from(spec: &Path, root: &Path) -> String {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            // Not there yet: the working directory joined and `.`/`..` taken lexically.
            let joined = std::env::current_dir().map_or_else(|_| p.to_path_buf(), |d| d.join(p));
            let mut out = PathBuf::new();
            for c in joined.components() {
                match c {
                    std::path::Component::CurDir => {}
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    c => out.push(c),
                }
            }
            match out.parent().and_then(|p| std::fs::canonicalize(p).ok()) {
                Some(parent) => parent.join(out.file_name().unwrap_or_default()),
                None => out,
            }
        })
    };
    let (s, r) = (abs(spec), abs(root));
    let mut up = PathBuf::new();
    let mut base = r.as_path();
    loop {
        if let Ok(rest) = s.strip_prefix(base) {
            return up.join(rest).display().to_string();
        }
        match base.parent() {
            Some(p) => {
                up.push("..");
                base = p;
            }
            None => return s.display().to_string(),
        }
    }
}

/// Plan the files, then write them (or, with `check`, say which would change).
fn write(
    ctx: &Ctx,
    spec: &Spec,
    target: &ScaffoldTarget,
    check: bool,
    setup: &Setup,
    select: Option<&Selector>,
) -> Outcome {
    // Which clauses a real test already claims (problems in those files are `check`'s business).
    // The project's tests as `check` finds them (globs relative to contract.yaml's folder), or, for
    // a crate of its own, that crate's Cargo layout.
    let (root, globs) = if target.is_crate() {
        (target.root.clone(), annotations::cargo_layout())
    } else {
        annotations::rooted(&ctx.spec, &spec.contract.tests)
    };
    let cache = annotations::CacheChoice::for_root(&root);
    let scan = annotations::scan_with(spec, &root, &globs, &cache);
    let real: BTreeSet<String> = scan
        .tests
        .iter()
        .filter(|t| t.kind == TestKind::Real)
        .flat_map(|t| t.claims.iter().map(|c| c.id.clone()))
        .collect();
    let mut scope: Scope = setup.scope();
    if let Some(sel) = select {
        scope.select = Some(sel.clone());
    }

    // The folder's own .rs files, and its record of the clauses that have had a stub.
    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    let mut existing: BTreeMap<String, String> = BTreeMap::new();
    let mut ids: BTreeMap<String, FileId> = BTreeMap::new();
    let record_path = target.dir.join(scaffold::RECORD);
    let record_old = fs::read_to_string(&record_path).ok();
    let recorded = record_old
        .as_deref()
        .map(scaffold::record_ids)
        .unwrap_or_default();
    if let Ok(entries) = fs::read_dir(&target.dir) {
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect();
        names.sort();
        for n in names {
            let path = target.dir.join(&n);
            match fs::read(&path).map(String::from_utf8) {
                Ok(Ok(text)) => {
                    ids.insert(n.clone(), sources.add(path, text.clone()));
                    existing.insert(n, text);
                }
                Ok(Err(_)) => diags.push(
                    Diagnostic::error(
                        "K0513",
                        format!(
                            "`{}` is not UTF-8; nothing can be merged into it",
                            path.display()
                        ),
                    )
                    .in_file(&path)
                    .help("re-save it as UTF-8, then run scaffold again; nothing was written"),
                ),
                Err(e) => diags.push(
                    Diagnostic::error("K0512", format!("cannot read `{}`: {e}", path.display()))
                        .in_file(&path)
                        .help("check the file's permissions; nothing was written"),
                ),
            }
        }
    }
    ctx.report(&diags, &sources)?;
    let plan = match scaffold::plan_in(spec, &existing, &real, &scope, &recorded) {
        Ok(p) => p,
        Err(u) => {
            let d = Diagnostic::error("K0513", format!("`{}` cannot be read as Rust tokens; nothing can be merged into it", target.dir.join(&u.file).display()))
                .at(Span::new(ids[&u.file], u.failure.range.clone()), u.failure.message.clone())
                .help("fix the file (cargo build shows the error), then run scaffold again; nothing was written");
            ctx.report(&[d], &sources)?;
            return Err(Failure::Input);
        }
    };
    // The review command as the user can run it: the crate named as this run named it.
    let review =
        if target.is_crate() && setup.at.tests_flag.is_empty() && target.root != Path::new(".") {
            format!(
                "kcontract{} review --tests-root {}",
                setup.at.spec_flag,
                shell_word(&target.root.display().to_string())
            )
        } else {
            setup.at.command("review")
        };
    let orphans: Vec<Diagnostic> = plan
        .orphans
        .iter()
        .map(|o| {
            let why = match o.why {
                OrphanWhy::Removed => "is no longer in the contract",
                OrphanWhy::Untestable => "is now `verify: untestable`",
            };
            let help = match &o.renamed_to {
                Some(new) => format!(
                    "`{new}` has the text this test was reviewed against (the same stamp): the clause was renamed; run `{review} --rename {} {new}`",
                    o.id
                ),
                None => "delete the test if it is obsolete, or point its `Clause:` line at the clause that replaced it".into(),
            };
            Diagnostic::warning("K0510", format!("orphan: `{}` claims `{}`, which {why}; the test is kept", o.test, o.id))
                .at(Span::new(ids[&o.file], o.name_range.clone()), "kept as it is")
                .help(help)
        })
        .collect();
    ctx.report(&orphans, &sources)?;

    // Everything that would be written: (path, text), only where it differs from disk.
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    let config_path = target.root.join(crate_config::FILE);
    if let Some(name) = &target.crate_name {
        let spec_rel = spec_from(&ctx.spec, &target.root);
        for (rel, text) in [
            ("Cargo.toml", scaffold::crate_manifest(spec, name)),
            ("src/lib.rs", scaffold::CRATE_LIB.to_string()),
            (".config/nextest.toml", scaffold::CRATE_NEXTEST.to_string()),
            (".gitignore", scaffold::CRATE_GITIGNORE.to_string()),
            ("README.md", scaffold::crate_readme(spec, name)),
            (
                crate_config::FILE,
                crate_config::template(&spec_rel, select.map(|s| s.text.as_str())),
            ),
        ] {
            let p = target.root.join(rel);
            if !p.exists() {
                writes.push((p, text));
            }
        }
    }
    // `--select` is remembered by the crate (its kcontract.toml's `select`, set in place).
    let mut not_remembered = false;
    if let Some(sel) = select {
        match fs::read_to_string(&config_path) {
            Ok(text) => {
                let new = crate_config::set_select(&text, &sel.text);
                if new != text {
                    writes.push((config_path.clone(), new));
                }
            }
            Err(_) => not_remembered = !writes.iter().any(|(p, _)| *p == config_path),
        }
    }
    for (file, text) in &plan.files {
        if existing.get(file) != Some(text) {
            writes.push((target.dir.join(file), text.clone()));
        }
    }
    let record_new = scaffold::record_text(&plan.record);
    if record_old.as_deref() != Some(record_new.as_str()) {
        writes.push((record_path, record_new));
    }

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
    if let Some(sel) = &scope.select {
        summary.push_str(&format!(
            "selection: {sel} ({} of {} clauses)\n",
            spec.clauses.iter().filter(|c| sel.selects(c)).count(),
            spec.clauses.len()
        ));
    }
    if !plan.deleted.is_empty() {
        summary.push_str(&format!(
            "{} stub{} deleted by hand not written again (untested until exempted with a reason in {}, or its line is removed from {}): {}\n",
            plan.deleted.len(),
            plural(plan.deleted.len()),
            crate_config::FILE,
            target.dir.join(scaffold::RECORD).display(),
            plan.deleted.join(", ")
        ));
    }
    if not_remembered {
        summary.push_str(&format!(
            "note: --select is not remembered: there is no {} in {} (scaffold --crate writes one)\n",
            crate_config::FILE,
            target.root.display()
        ));
    }
    if check {
        if writes.is_empty() {
            return print(&format!("up to date: {}\n{summary}", target.dir.display()));
        }
        let diags: Vec<Diagnostic> = writes
            .iter()
            .map(|(p, _)| {
                let what = if p.exists() { "is out of date" } else { "is missing" };
                Diagnostic::error("K0511", format!("`{}` {what}", p.display()))
                    .in_file(p)
                    .help("run `kcontract scaffold` (with the same --out/--crate/--select) and commit the result")
            })
            .collect();
        ctx.print_diagnostics(&diags, &sources);
        // What would change, as a unified diff (a missing file is all additions).
        for (p, new) in &writes {
            let rel = p.strip_prefix(&target.dir).ok().and_then(|r| r.to_str());
            let old = rel.and_then(|r| existing.get(r)).map_or("", String::as_str);
            eprint!("{}", crate::terminal::unified_diff(p, old, new));
        }
        eprintln!(
            "error: {} file{} would change",
            diags.len(),
            plural(diags.len())
        );
        return Err(Failure::Input);
    }
    let mut out = String::new();
    for (path, text) in &writes {
        let res = path
            .parent()
            .map_or(Ok(()), fs::create_dir_all)
            .and_then(|()| write_atomic(path, text.as_bytes()));
        if let Err(e) = res {
            let d = Diagnostic::error("K0512", format!("cannot write `{}`: {e}", path.display()))
                .in_file(path)
                .help(
                    "check that the folder is writable; files listed above as written were written",
                );
            print(&out)?;
            let ctx = ctx.writing("files listed above as written were written");
            ctx.report(&[d], &sources)?;
            return Err(Failure::Input);
        }
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        match plan
            .reports
            .iter()
            .find(|r| r.file == file && path.parent() == Some(target.dir.as_path()))
        {
            Some(r) if r.removed.is_empty() => out.push_str(&format!(
                "wrote {} ({} new, {} refreshed, {} kept as written)\n",
                path.display(),
                r.added.len(),
                r.refreshed.len(),
                r.kept.len()
            )),
            Some(r) => out.push_str(&format!(
                "wrote {} ({} new, {} refreshed, {} kept as written, {} removed)\n",
                path.display(),
                r.added.len(),
                r.refreshed.len(),
                r.kept.len(),
                r.removed.len()
            )),
            None => out.push_str(&format!("wrote {}\n", path.display())),
        }
    }
    if writes.is_empty() {
        out.push_str(&format!("unchanged: {}\n", target.dir.display()));
    }
    out.push_str(&summary);
    print(&out)
}

//! `kcontract scaffold`: Rust test stubs for the clauses, one file per chapter, regenerated without
//! losing work (the merge itself is `crate::scaffold`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::annotations::{self, TestKind};
use crate::diagnostic::{Diagnostic, FileId, SourceMap, Span};
use crate::fsutil::write_atomic;
use crate::pipeline::{Show, Stages};
use crate::scaffold::{self, OrphanWhy};
use crate::spec::Spec;
use crate::spec_source::LoadOptions;
use crate::terminal::{Ctx, Failure, Outcome, plural, print};

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
}

/// Where `scaffold` writes.
struct ScaffoldTarget {
    /// The project whose tests are scanned for real tests (the crate root in `--crate` mode).
    root: PathBuf,
    /// The folder of test modules.
    dir: PathBuf,
    /// `--crate NAME`: also write `Cargo.toml` and `src/lib.rs` into `root` when missing.
    crate_name: Option<String>,
}

impl ScaffoldTarget {
    fn new(out: Option<PathBuf>, crate_name: Option<String>) -> Self {
        match crate_name {
            Some(name) => {
                let root = out.unwrap_or_else(|| PathBuf::from(&name));
                Self {
                    dir: root.join("tests").join("contract"),
                    root,
                    crate_name: Some(name),
                }
            }
            None => Self {
                root: PathBuf::from("."),
                dir: out.unwrap_or_else(|| PathBuf::from("tests/contract")),
                crate_name: None,
            },
        }
    }
}

impl Scaffold {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let ctx = &ctx.writing("nothing was written");
        let loaded = Stages::new(ctx).spec(LoadOptions::default(), Show::All)?;
        let target = ScaffoldTarget::new(self.out, self.crate_name);
        write(ctx, &loaded.spec, &target, self.check)
    }
}

/// The spec folder as the crate's README should name it: relative to the crate when both paths
/// are relative and the crate is inside the working directory, else absolute.
fn spec_from(spec: &Path, root: &Path) -> String {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
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
fn write(ctx: &Ctx, spec: &Spec, target: &ScaffoldTarget, check: bool) -> Outcome {
    // Which clauses a real test already claims (problems in those files are `check`'s business).
    // The project's tests as `check` finds them (globs relative to contract.yaml's folder), or, for
    // a standalone crate, that crate's Cargo layout.
    let (root, globs) = if target.crate_name.is_some() {
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

    // The folder's own .rs files.
    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    let mut existing: BTreeMap<String, String> = BTreeMap::new();
    let mut ids: BTreeMap<String, FileId> = BTreeMap::new();
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
    let plan = match scaffold::plan(spec, &existing, &real) {
        Ok(p) => p,
        Err(u) => {
            let d = Diagnostic::error("K0513", format!("`{}` cannot be read as Rust tokens; nothing can be merged into it", target.dir.join(&u.file).display()))
                .at(Span::new(ids[&u.file], u.failure.range.clone()), u.failure.message.clone())
                .help("fix the file (cargo build shows the error), then run scaffold again; nothing was written");
            ctx.report(&[d], &sources)?;
            return Err(Failure::Input);
        }
    };
    let orphans: Vec<Diagnostic> = plan
        .orphans
        .iter()
        .map(|o| {
            let why = match o.why {
                OrphanWhy::Removed => "is no longer in the contract",
                OrphanWhy::Untestable => "is now `verify: untestable`",
            };
            Diagnostic::warning("K0510", format!("orphan: `{}` claims `{}`, which {why}; the test is kept", o.test, o.id))
                .at(Span::new(ids[&o.file], o.name_range.clone()), "kept as it is")
                .help("delete the test if it is obsolete, or point its `Clause:` line at the clause that replaced it")
        })
        .collect();
    ctx.report(&orphans, &sources)?;

    // Everything that would be written: (path, text), only where it differs from disk.
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    if let Some(name) = &target.crate_name {
        for (rel, text) in [
            ("Cargo.toml", scaffold::crate_manifest(spec, name)),
            ("src/lib.rs", scaffold::CRATE_LIB.to_string()),
            (".config/nextest.toml", scaffold::CRATE_NEXTEST.to_string()),
            (
                "README.md",
                scaffold::crate_readme(spec, name, &spec_from(&ctx.spec, &target.root)),
            ),
        ] {
            let p = target.root.join(rel);
            if !p.exists() {
                writes.push((p, text));
            }
        }
    }
    for (file, text) in &plan.files {
        if existing.get(file) != Some(text) {
            writes.push((target.dir.join(file), text.clone()));
        }
    }

    let stubs = plan
        .reports
        .iter()
        .map(|r| r.added.len() + r.refreshed.len())
        .sum::<usize>();
    let added = plan.reports.iter().map(|r| r.added.len()).sum::<usize>();
    let kept = plan.reports.iter().map(|r| r.kept.len()).sum::<usize>();
    let summary = format!(
        "{stubs} stub{} ({added} new), {kept} test{} kept as written, {} orphan{}; {} clause{} claimed by real tests elsewhere get no stub\n",
        plural(stubs),
        plural(kept),
        plan.orphans.len(),
        plural(plan.orphans.len()),
        plan.elsewhere.len(),
        plural(plan.elsewhere.len()),
    );
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
                    .help("run `kcontract scaffold` (with the same --out/--crate) and commit the result")
            })
            .collect();
        ctx.print_diagnostics(&diags, &sources);
        // What would change, as a unified diff (a missing file is all additions).
        for (p, new) in &writes {
            let rel = p.strip_prefix(&target.dir).ok().and_then(|r| r.to_str());
            let old = rel.and_then(|r| existing.get(r)).map_or("", String::as_str);
            let name = p.display().to_string();
            let diff = similar::TextDiff::from_lines(old, new.as_str());
            eprint!(
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{name}"), &format!("b/{name}"))
            );
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
            Some(r) => out.push_str(&format!(
                "wrote {} ({} new, {} refreshed, {} kept as written)\n",
                path.display(),
                r.added.len(),
                r.refreshed.len(),
                r.kept.len()
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

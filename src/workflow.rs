//! The test authors' commands, between the CLI and the pure modules: the annotation pass of
//! `check` and `build`, `matrix`, `scaffold`. Each reads the working directory as the project root
//! (like `spec/` and `site/`), reports diagnostics, and returns the exit code.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use annotate_snippets::Renderer;

use crate::annotations::{self, Scan, TestKind};
use crate::cli::{plural, write_stdout};
use crate::diagnostic::{Diagnostic, FileId, SourceMap, Span, render_all};
use crate::fsutil::write_atomic;
use crate::matrix::{self, Matrix, Requirement};
use crate::results::{self, Results};
use crate::scaffold::{self, OrphanWhy};
use crate::spec_source::Loaded;

/// Print diagnostics (sorted); with errors, say so and return exit code 1.
fn emit(diags: &[Diagnostic], sources: &SourceMap, renderer: &Renderer) -> Result<(), ExitCode> {
    if !diags.is_empty() {
        let _ = std::io::stderr().write_all(render_all(diags, sources, renderer).as_bytes());
    }
    let e = diags.iter().filter(|d| d.is_error()).count();
    if e > 0 {
        let w = diags.len() - e;
        eprintln!(
            "error: {e} error{} and {w} warning{} found; nothing was written",
            plural(e),
            plural(w)
        );
        return Err(ExitCode::from(1));
    }
    Ok(())
}

/// Scan the project's tests (the `tests:` globs of contract.yaml, from the working directory) and
/// report annotation problems. Unknown or malformed clause ids are errors.
pub fn scan_tests(loaded: &Loaded, renderer: &Renderer) -> Result<Scan, ExitCode> {
    let scan = annotations::scan(&loaded.spec, Path::new("."), &loaded.spec.contract.tests);
    emit(&scan.diagnostics, &scan.sources, renderer)?;
    Ok(scan)
}

/// The `check` summary line for tests.
pub fn tests_summary(scan: &Scan) -> String {
    let stubs = scan
        .tests
        .iter()
        .filter(|t| t.kind == TestKind::Stub)
        .count();
    let clauses: BTreeSet<&str> = scan
        .tests
        .iter()
        .flat_map(|t| t.claims.iter().map(|c| c.id.as_str()))
        .collect();
    format!(
        "  tests   {} annotated test{} ({} stub{}) claim {} clause{}; {} file{} scanned\n",
        scan.tests.len(),
        plural(scan.tests.len()),
        stubs,
        plural(stubs),
        clauses.len(),
        plural(clauses.len()),
        scan.files,
        plural(scan.files)
    )
}

/// Read the results files; `None` when none were given.
fn read_results(
    loaded: &mut Loaded,
    files: &[PathBuf],
    renderer: &Renderer,
) -> Result<Option<Results>, ExitCode> {
    if files.is_empty() {
        return Ok(None);
    }
    let mut res = Results::default();
    let mut diags = Vec::new();
    for f in files {
        results::read(f, &mut res, &mut loaded.sources, &mut diags);
    }
    emit(&diags, &loaded.sources, renderer)?;
    Ok(Some(res))
}

/// Warnings for real annotated tests that the results do not mention.
fn not_run_warnings(m: &Matrix) -> Vec<Diagnostic> {
    m.not_run
        .iter()
        .map(|t| {
            let what = match t.binary_id() {
                Some(b) => format!("`{b} {}`", t.path),
                None => format!("`{}`", t.path),
            };
            let d = Diagnostic::warning("K0605", format!("no result for the annotated test {what}"))
                .at(t.name_span.clone(), "not in the results");
            if t.target.is_none() {
                d.help("its file is not where Cargo looks for tests (tests/, src/, benches/, examples/), so its test binary cannot be told")
            } else {
                d.help("was it filtered out, or are the results from an older run? Its clauses count as implemented, not passing")
            }
        })
        .collect()
}

/// The scan, the results and the matrix, for `matrix` and `build`.
pub fn with_matrix<T>(
    loaded: &mut Loaded,
    results: &[PathBuf],
    renderer: &Renderer,
    then: impl FnOnce(&Matrix, &Loaded) -> T,
) -> Result<T, ExitCode> {
    let start = std::time::Instant::now();
    let scan = scan_tests(loaded, renderer)?;
    let res = read_results(loaded, results, renderer)?;
    let m = matrix::compute(&loaded.spec, &scan.tests, res.as_ref());
    // The tests' spans point into the files the scan read.
    emit(&not_run_warnings(&m), &scan.sources, renderer)?;
    loaded.timings.add("tests+matrix", start.elapsed());
    Ok(then(&m, loaded))
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum MatrixFormat {
    Table,
    Json,
    Csv,
}

/// `kcontract matrix`.
pub fn matrix_command(
    loaded: &mut Loaded,
    results: &[PathBuf],
    format: MatrixFormat,
    require: &[Requirement],
    renderer: &Renderer,
) -> ExitCode {
    let outcome = with_matrix(loaded, results, renderer, |m, loaded| {
        let text = match format {
            MatrixFormat::Table => matrix::table(m),
            MatrixFormat::Json => matrix::json(m),
            MatrixFormat::Csv => matrix::csv(m),
        };
        let code = write_stdout(&text);
        let offenders = matrix::offenders(m, require);
        if offenders.is_empty() {
            return code;
        }
        for q in require {
            let rows: Vec<_> = offenders
                .iter()
                .filter(|(r, _)| std::ptr::eq(*r, q))
                .map(|(_, row)| row)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let d = Diagnostic::error(
                "K0610",
                format!("{} clause{} do{} not meet `--require {}`", rows.len(), plural(rows.len()), if rows.len() == 1 { "es" } else { "" }, q.text),
            )
            .help(format!(
                "each needs at least `{}` (untested < stub < external < implemented < passing; failing meets nothing, waived meets everything)",
                q.status
            ));
            let mut s = d.render_with(&loaded.sources, renderer);
            s.push('\n');
            let w = rows.iter().map(|r| r.clause.id.len()).max().unwrap_or(0);
            for r in rows {
                let c = r.clause;
                s.push_str(&format!(
                    "  {:<w$}  {:<11}  {}:{}\n",
                    c.id,
                    r.status.as_str(),
                    c.file.display(),
                    c.line
                ));
            }
            let _ = std::io::stderr().write_all(s.as_bytes());
        }
        ExitCode::from(1)
    });
    outcome.unwrap_or_else(|code| code)
}

/// Where `scaffold` writes.
pub struct ScaffoldTarget {
    /// The project whose tests are scanned for real tests (the crate root in `--crate` mode).
    pub root: PathBuf,
    /// The folder of test modules.
    pub dir: PathBuf,
    /// `--crate NAME`: also write `Cargo.toml` and `src/lib.rs` into `root` when missing.
    pub crate_name: Option<String>,
}

impl ScaffoldTarget {
    pub fn new(out: Option<PathBuf>, crate_name: Option<String>) -> Self {
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

/// `kcontract scaffold`.
pub fn scaffold_command(
    loaded: &mut Loaded,
    target: &ScaffoldTarget,
    check: bool,
    renderer: &Renderer,
) -> ExitCode {
    let spec = &loaded.spec;
    // Which clauses a real test already claims (problems in those files are `check`'s business).
    let scan = annotations::scan(spec, &target.root, &spec.contract.tests);
    let real: BTreeSet<String> = scan
        .tests
        .iter()
        .filter(|t| t.kind == TestKind::Real)
        .flat_map(|t| t.claims.iter().map(|c| c.id.clone()))
        .collect();

    // The folder's own .rs files.
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
                    ids.insert(n.clone(), loaded.sources.add(path, text.clone()));
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
    if let Err(code) = emit(&diags, &loaded.sources, renderer) {
        return code;
    }
    let plan = match scaffold::plan(spec, &existing, &real) {
        Ok(p) => p,
        Err(u) => {
            let d = Diagnostic::error("K0513", format!("`{}` cannot be read as Rust tokens; nothing can be merged into it", target.dir.join(&u.file).display()))
                .at(Span::new(ids[&u.file], u.failure.range.clone()), u.failure.message.clone())
                .help("fix the file (cargo build shows the error), then run scaffold again; nothing was written");
            return emit(&[d], &loaded.sources, renderer)
                .err()
                .unwrap_or(ExitCode::from(1));
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
    let _ = emit(&orphans, &loaded.sources, renderer);

    // Everything that would be written: (path, text), only where it differs from disk.
    let mut writes: Vec<(PathBuf, String)> = Vec::new();
    if let Some(name) = &target.crate_name {
        for (rel, text) in [
            ("Cargo.toml", scaffold::crate_manifest(spec, name)),
            ("src/lib.rs", scaffold::CRATE_LIB.to_string()),
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
            return write_stdout(&format!("up to date: {}\n{summary}", target.dir.display()));
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
        let _ =
            std::io::stderr().write_all(render_all(&diags, &loaded.sources, renderer).as_bytes());
        eprintln!(
            "error: {} file{} would change",
            diags.len(),
            plural(diags.len())
        );
        return ExitCode::from(1);
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
            let _ = write_stdout(&out);
            return emit(&[d], &loaded.sources, renderer)
                .err()
                .unwrap_or(ExitCode::from(1));
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
    write_stdout(&out)
}

//! `kcontract diff`: the clause-level changes between two versions of the contract — two spec
//! folders, or git revisions read without a checkout.

use std::path::{Path, PathBuf};

use crate::terminal::{Ctx, Failure, Outcome, plural, print};
use kcontract_edit::diff::render::{self, Side};
use kcontract_edit::diff::{self, Kind, git};
use kcontract_spec::diagnostic::{Diagnostic, SourceMap};
use kcontract_spec::{LoadOptions, Loaded, Tree};
use kcontract_trace::annotations;

/// Compare two versions of the contract clause by clause. Without arguments: the spec folder at
/// `HEAD` against the working tree.
#[derive(clap::Args, Debug)]
pub(crate) struct Diff {
    /// The old spec folder (give NEW too).
    #[arg(value_name = "OLD", requires = "new", conflicts_with = "git")]
    old: Option<PathBuf>,
    /// The new spec folder.
    #[arg(value_name = "NEW")]
    new: Option<PathBuf>,
    /// Read the spec folder (--spec) from git: `REV` against the working tree, or `A..B` (an empty
    /// side is HEAD). Default: HEAD.
    #[arg(long, value_name = "REV|A..B")]
    git: Option<String>,
    /// terminal, markdown (a pull-request comment) or json (`kcontract-diff/1`).
    #[arg(long, default_value = "terminal")]
    format: DiffFormat,
    /// Exit 1 when there is a change of one of these kinds (repeatable, or comma-separated).
    #[arg(long, value_name = "KIND", value_delimiter = ',', num_args = 1.., value_parser = super::words::<Kind>())]
    fail_on: Vec<Kind>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum DiffFormat {
    Terminal,
    Markdown,
    Json,
}

/// Where one side's files come from, and what to call it.
struct Source {
    tree: Tree,
    dir: PathBuf,
    label: String,
    /// Where its annotated tests are: `None` for a spec folder named on the command line (the
    /// tests are the project's, the same for both folders).
    project: Option<Project>,
}

/// A version of the project whose Rust files are scanned for annotated tests.
enum Project {
    /// The working directory.
    WorkingTree,
    /// A git revision.
    Revision(String),
}

impl Diff {
    pub(crate) fn run(self, ctx: &Ctx) -> Outcome {
        let (old, new) = match (&self.old, &self.new) {
            (Some(old), Some(new)) => (disk(old, None), disk(new, None)),
            _ => {
                let spec = ctx.spec.as_path();
                let range = self.git.as_deref().unwrap_or("HEAD");
                match range.split_once("..") {
                    // Both revisions read before either failure stops the command: each is reported.
                    Some((a, b)) => match (
                        revision(ctx, or_head(a), spec),
                        revision(ctx, or_head(b), spec),
                    ) {
                        (Ok(a), Ok(b)) => (a, b),
                        (Err(e), _) | (_, Err(e)) => return Err(e),
                    },
                    None => (
                        revision(ctx, range, spec)?,
                        disk(spec, Some(Project::WorkingTree)),
                    ),
                }
            }
        };
        // Folders named on the command line (or `--spec`): a hint about a missing one names it.
        let named = self.old.is_some() || ctx.spec_given;
        let old_loaded = load(ctx, &old, "old", named);
        let new_loaded = load(ctx, &new, "new", named);
        // A side with errors and not one chapter read (no folder, no contract.yaml, a broken
        // contract.yaml) leaves nothing to compare: "no clause changed" would be a false answer.
        let mut unread = false;
        for (which, s, l) in [("old", &old, &old_loaded), ("new", &new, &new_loaded)] {
            if l.has_errors() && l.spec.documents.is_empty() {
                eprintln!(
                    "error: the {which} version ({}) could not be read (above); nothing was compared",
                    s.label
                );
                unread = true;
            }
        }
        if unread {
            return Err(Failure::Input);
        }
        let mut unreadable = diff::unreadable_ids(&old_loaded, &old.dir);
        unreadable.extend(diff::unreadable_ids(&new_loaded, &new.dir));
        let tests = match (
            claims(ctx, &old, &old_loaded),
            claims(ctx, &new, &new_loaded),
        ) {
            (Ok(Some(a)), Ok(Some(b))) => Some((a, b)),
            (Err(e), _) | (_, Err(e)) => return Err(e),
            _ => None,
        };
        let changes = diff::compare(
            &old_loaded.spec,
            &new_loaded.spec,
            &unreadable,
            tests.as_ref().map(|(a, b)| (a, b)),
        );
        let side = |s: &Source, l: &Loaded| Side {
            label: s.label.clone(),
            errors: l.error_count(),
        };
        let (old_side, new_side) = (side(&old, &old_loaded), side(&new, &new_loaded));
        let text = match self.format {
            DiffFormat::Terminal => {
                render::terminal(&changes, &old_side, &new_side, ctx.stdout_styled())
            }
            DiffFormat::Markdown => render::markdown(&changes, &old_side, &new_side),
            DiffFormat::Json => render::json(&changes, &old_side, &new_side)
                .map_err(|e| ctx.output_failed("the diff as JSON", &e))?,
        };
        print(&text)?;
        let errors = old_side.errors + new_side.errors;
        // The changes --fail-on names are found in what parsed, errors or not: both are reported.
        let failed_on = self.failed_on(&changes);
        if errors > 0 {
            if let Some(d) = &failed_on {
                ctx.print_diagnostics(std::slice::from_ref(d), &SourceMap::default());
            }
            eprintln!(
                "error: {errors} error{} in the compared specs (above); the diff covers what parsed",
                plural(errors)
            );
            return Err(Failure::Input);
        }
        match failed_on {
            Some(d) => ctx.report(&[d], &SourceMap::default()),
            None => Ok(()),
        }
    }

    /// K0803 for the changes of a kind named by --fail-on, if any.
    fn failed_on(&self, changes: &diff::Diff) -> Option<Diagnostic> {
        let failing: Vec<&diff::Change> = changes
            .changes
            .iter()
            .filter(|c| self.fail_on.contains(&c.kind))
            .collect();
        if failing.is_empty() {
            return None;
        }
        let ids: Vec<String> = failing
            .iter()
            .map(|c| format!("{} ({})", c.id, c.kind.as_str()))
            .collect();
        let d = Diagnostic::error(
            "K0803",
            format!(
                "{} change{} of a kind named by --fail-on: {}",
                failing.len(),
                plural(failing.len()),
                ids.join(", ")
            ),
        )
        .help("review these changes; --fail-on makes them fail the check on purpose");
        Some(d)
    }
}

fn or_head(rev: &str) -> &str {
    if rev.is_empty() { "HEAD" } else { rev }
}

fn disk(dir: &Path, project: Option<Project>) -> Source {
    Source {
        tree: Tree::Disk,
        dir: dir.to_path_buf(),
        label: if project.is_some() {
            format!("{} (working tree)", dir.display())
        } else {
            dir.display().to_string()
        },
        project,
    }
}

/// The annotated tests of one side: the working directory scanned in place; a revision's Rust
/// files and manifests read from git into a temporary folder (removed afterwards), scanned there.
/// The scan's own diagnostics are `check`'s business, not the diff's.
fn claims(ctx: &Ctx, side: &Source, loaded: &Loaded) -> Result<Option<diff::Claims>, Failure> {
    let spec = &loaded.spec;
    // The `tests:` globs are relative to contract.yaml's folder, as for every command.
    match &side.project {
        None => Ok(None),
        Some(Project::WorkingTree) => {
            let (root, globs) = annotations::rooted(&side.dir, &spec.contract.tests);
            Ok(Some(
                annotations::scan(spec, &root, &globs).claims_by_clause(),
            ))
        }
        Some(Project::Revision(rev)) => {
            let (files, spec_rel) = git::project_files(rev, &ctx.spec, |p| {
                p.extension().is_some_and(|x| x == "rs") || p.ends_with("Cargo.toml")
            })
            .map_err(|e| git_failure(ctx, e))?;
            let scan = scratch(&files).map(|scratch| {
                // The revision's files are below the folder as they are below the repository's
                // top, whether --spec was given relative or absolute.
                let (root, globs) =
                    annotations::rooted(&scratch.path().join(&spec_rel), &spec.contract.tests);
                let claims = annotations::scan(spec, &root, &globs).claims_by_clause();
                release(scratch);
                claims
            });
            scan.map(Some).map_err(|e| {
                let d = Diagnostic::error(
                    "K0801",
                    format!("cannot put the Rust files of `{rev}` in a temporary folder for the test scan: {e}"),
                )
                .help("check the temporary folder (TMPDIR) is writable and has space");
                not_compared(ctx, &d)
            })
        }
    }
}

/// The temporary folder holding a revision's files, for the signal handler to remove.
static SCRATCH: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// A [`git::Scratch`] folder holding `files`. It is removed when dropped, and on Ctrl-C, SIGTERM
/// or SIGHUP by the handler installed here (`ctrlc`), which then ends the process (exit 130): a
/// signal's default would end it without running any drop. The folder is made and registered, and
/// filled, under the handler's lock, so a signal never finds it unregistered or half-removed and
/// refilled. A SIGKILL leaves it in the temporary folder (it cannot be caught).
fn scratch(files: &std::collections::BTreeMap<PathBuf, Vec<u8>>) -> std::io::Result<git::Scratch> {
    // Installed once a process; a second diff in the same process (none today) keeps the first.
    let _ = ctrlc::set_handler(|| {
        let held = SCRATCH.lock().ok().and_then(|mut g| g.take());
        if let Some(p) = held {
            let _ = std::fs::remove_dir_all(p);
        }
        std::process::exit(130);
    });
    let mut registered = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let scratch = git::Scratch::new()?;
    *registered = Some(scratch.path().to_path_buf());
    scratch.put(files)?;
    drop(registered);
    hold_scratch();
    Ok(scratch)
}

/// The test hook of `tests/suite/diff.rs`: with `KCONTRACT_TEST_HOLD_SCRATCH=<ms>` the command
/// waits that long with the scratch folder full, so the test can signal it there.
fn hold_scratch() {
    let ms = std::env::var("KCONTRACT_TEST_HOLD_SCRATCH")
        .ok()
        .and_then(|v| v.parse().ok());
    if let Some(ms) = ms {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Remove the scratch folder and its registration together, under the handler's lock.
fn release(scratch: git::Scratch) {
    let mut registered = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    drop(scratch);
    *registered = None;
}

/// The spec folder as it is in `rev`, or the failure reported (an unknown revision is a usage
/// error, exit 2; git failing is K0801, exit 1).
fn revision(ctx: &Ctx, rev: &str, spec: &Path) -> Result<Source, Failure> {
    match git::read_revision(rev, spec) {
        Ok((tree, dir)) => Ok(Source {
            tree,
            label: dir.display().to_string(),
            dir,
            project: Some(Project::Revision(rev.to_owned())),
        }),
        Err(e) => Err(git_failure(ctx, e)),
    }
}

/// Report a git failure: an unknown revision is a usage error (exit 2), anything else K0801.
fn git_failure(ctx: &Ctx, e: git::GitError) -> Failure {
    if e.is_usage() {
        ctx.usage(&e.to_string(), e.help())
    } else {
        not_compared(ctx, &e.diagnostic())
    }
}

/// Report `d`, which stopped the comparison.
fn not_compared(ctx: &Ctx, d: &Diagnostic) -> Failure {
    ctx.fail(d, &SourceMap::default(), "nothing was compared")
}

/// Load one side; print its errors (not its warnings: a stale translation is a change the diff
/// shows itself) without stopping, so that the diff covers what parsed.
fn load(ctx: &Ctx, side: &Source, which: &str, named: bool) -> Loaded {
    let options = LoadOptions {
        named,
        ..LoadOptions::default()
    };
    let loaded = kcontract_spec::load_from(&side.tree, &side.dir, options);
    let errors: Vec<Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    if !errors.is_empty() {
        eprintln!("the {which} version ({}):", side.label);
        ctx.print_diagnostics(&errors, &loaded.sources);
    }
    loaded
}

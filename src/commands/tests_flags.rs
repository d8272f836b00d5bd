//! Where a command finds the annotated tests when not through contract.yaml's `tests:` globs: a
//! crate named by its folder (`--tests-root DIR`) or, as cargo names one, by its manifest
//! (`--manifest-path FILE`); and that crate's `kcontract.toml` (`kcontract_trace::crate_config`), which may
//! name the spec, so that `kcontract matrix` run in the crate needs no flag. One definition of
//! both flags for `check`, `build`, `matrix` and `review`, so that they find the same tests, and
//! of the options a hint must repeat for its command to work when run as printed.

use std::path::{Path, PathBuf};

use crate::pipeline::TestsAt;
use crate::terminal::{Ctx, Failure, Outcome, shell_word};
use kcontract_spec::Spec;
use kcontract_spec::diagnostic::SourceMap;
use kcontract_trace::crate_config::CrateConfig;

/// `--tests-root DIR` | `--manifest-path FILE`.
#[derive(clap::Args, Debug, Default, Clone)]
pub(crate) struct TestsFlags {
    /// Scan the Cargo crate in DIR (`tests/**/*.rs`, `src/**/*.rs`) for annotated tests instead
    /// of the `tests:` globs of contract.yaml (which are relative to its folder); its
    /// kcontract.toml, if any, is read.
    #[arg(long, value_name = "DIR", conflicts_with = "manifest_path")]
    tests_root: Option<PathBuf>,
    /// Scan the crate of this Cargo.toml (as cargo's --manifest-path): the same as --tests-root
    /// with the manifest's folder.
    #[arg(long, value_name = "FILE")]
    manifest_path: Option<PathBuf>,
}

/// What a command that reads tests starts from: the context (its spec folder taken from the
/// crate's `kcontract.toml` when `--spec` was not given), the crate's settings, where the tests are.
pub(crate) struct Setup {
    pub(crate) ctx: Ctx,
    pub(crate) config: Option<CrateConfig>,
    config_sources: SourceMap,
    pub(crate) at: TestsAt,
}

impl Setup {
    /// Report what the crate's `kcontract.toml` says that the contract contradicts (K0520,
    /// K0521); fails on an error.
    pub(crate) fn check_config(&self, spec: &Spec) -> Outcome {
        match &self.config {
            Some(c) => self
                .ctx
                .report(&c.check(spec, &self.config_sources), &self.config_sources),
            None => Ok(()),
        }
    }

    /// The crate's selection and exemptions, for the matrix (none without a `kcontract.toml`).
    pub(crate) fn scope(&self) -> kcontract_trace::matrix::Scope {
        self.config
            .as_ref()
            .map(CrateConfig::scope)
            .unwrap_or_default()
    }
}

impl TestsFlags {
    /// These flags, with `--tests-root root` when neither flag was given (`scaffold --crate`'s
    /// crate, whose kcontract.toml is then read).
    pub(crate) fn or_root(mut self, root: PathBuf) -> Self {
        if self.tests_root.is_none() && self.manifest_path.is_none() {
            self.tests_root = Some(root);
        }
        self
    }

    /// [`Self::setup`] for a test author's command: without a spec folder, the contract built
    /// into the binary ([`or_built_in`]).
    pub(crate) fn setup_for_authors(&self, ctx: &Ctx, strict: bool) -> Result<Setup, Failure> {
        let mut setup = self.setup(ctx, strict)?;
        setup.ctx = or_built_in(setup.ctx);
        Ok(setup)
    }

    /// Where to look, with `strict` for the review diagnostics. A `--tests-root` that is not a
    /// folder, and a manifest that is missing, not a `Cargo.toml`, not TOML, or a workspace's
    /// without a `[package]`, are usage errors (exit 2): scanning the wrong folder would pass a
    /// gate on tests it never saw. The crate's `kcontract.toml` (in that folder, else in the
    /// working directory) is read; one that cannot be used is an error (exit 1).
    pub(crate) fn setup(&self, ctx: &Ctx, strict: bool) -> Result<Setup, Failure> {
        let mut root = match (&self.tests_root, &self.manifest_path) {
            (Some(dir), _) if !dir.is_dir() => {
                let what = if dir.exists() {
                    "is not a folder"
                } else {
                    "does not exist"
                };
                return Err(ctx.usage(
                    &format!("--tests-root `{}` {what}", dir.display()),
                    "give the folder of the tested crate (the one holding its Cargo.toml, tests/ and src/); a relative path starts at the working directory",
                ));
            }
            (Some(dir), _) => Some(dir.clone()),
            (None, Some(manifest)) => Some(crate_dir(ctx, manifest)?),
            (None, None) => None,
        };
        let mut sources = SourceMap::default();
        let dir = root.clone().unwrap_or_else(|| PathBuf::from("."));
        let config = CrateConfig::read(&dir, &mut sources).map_err(|d| {
            let _ = ctx.report(std::slice::from_ref(&d), &sources);
            Failure::Input
        })?;
        let mut ctx = ctx.clone();
        if let Some(c) = &config {
            if let Some(spec) = &c.spec
                && !ctx.spec_given
            {
                ctx.spec = tidy(spec);
            }
            // A `kcontract.toml` in the working directory makes it the tested crate.
            root.get_or_insert_with(|| c.dir.clone());
        }
        let mut tests_flag = String::new();
        if let Some(d) = &self.tests_root {
            tests_flag = format!(" --tests-root {}", shell_word(&d.display().to_string()));
        } else if let Some(m) = &self.manifest_path {
            tests_flag = format!(" --manifest-path {}", shell_word(&m.display().to_string()));
        }
        let spec_flag = if ctx.spec_given {
            format!(" --spec {}", shell_word(&ctx.spec.display().to_string()))
        } else {
            String::new()
        };
        Ok(Setup {
            at: TestsAt {
                root,
                globs: config.as_ref().and_then(|c| c.tests.clone()),
                strict,
                spec_flag,
                tests_flag,
            },
            ctx,
            config,
            config_sources: sources,
        })
    }
}

/// The context of any command run in a crate: the spec folder its `kcontract.toml` (in the
/// working directory) names, unless `--spec` was given. Every command reads it, not only those
/// that scan tests (`list`, `i18n status` and the rest run in the crate find the same contract as
/// `matrix`). A file that cannot be used stops the command (K0520).
pub(crate) fn in_crate(ctx: Ctx) -> Result<Ctx, Failure> {
    if ctx.spec_given {
        return Ok(ctx);
    }
    let mut sources = SourceMap::default();
    let config = CrateConfig::read(Path::new("."), &mut sources).map_err(|d| {
        let _ = ctx.report(std::slice::from_ref(&d), &sources);
        Failure::Input
    })?;
    let mut ctx = ctx;
    if let Some(spec) = config.and_then(|c| c.spec) {
        ctx.spec = tidy(&spec);
    }
    Ok(ctx)
}

/// The context with the contract built into the binary as its spec when there is no spec folder
/// (none given with `--spec` or in a `kcontract.toml`, and no `spec/` here): the test authors'
/// commands (`scaffold`, `check`, `list`, `matrix`, `review`) work in a crate of their own
/// without a copy of the spec. The pipeline says so when it loads it.
pub(crate) fn or_built_in(mut ctx: Ctx) -> Ctx {
    if !ctx.spec_given && ctx.spec == Path::new("spec") && !ctx.spec.exists() {
        ctx.spec = PathBuf::from(crate::embedded::BUILT_IN_DIR);
    }
    ctx
}

/// `./x` as `x`: paths joined to the working directory read as the user would write them.
fn tidy(p: &Path) -> PathBuf {
    p.strip_prefix(".")
        .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
}

fn crate_dir(ctx: &Ctx, manifest: &std::path::Path) -> Result<PathBuf, Failure> {
    let shown = manifest.display();
    let help =
        "give the path of the tested crate's Cargo.toml, or its folder with --tests-root DIR";
    if manifest.file_name().is_none_or(|n| n != "Cargo.toml") {
        return Err(ctx.usage(
            &format!("--manifest-path `{shown}` is not a Cargo.toml"),
            help,
        ));
    }
    let text = kcontract_spec::fsutil::read_text(manifest).map_err(|e| {
        ctx.usage(
            &format!("--manifest-path `{shown}` cannot be read: {e}"),
            help,
        )
    })?;
    let doc: toml::Table = text.parse().map_err(|e| {
        ctx.usage(
            &format!("--manifest-path `{shown}` is not valid TOML: {e}"),
            help,
        )
    })?;
    if !doc.contains_key("package") {
        return Err(ctx.usage(
            &format!("--manifest-path `{shown}` has no [package]: a workspace's manifest names no tests of its own"),
            "give the Cargo.toml of the workspace member whose tests claim clauses",
        ));
    }
    Ok(manifest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from))
}

//! Where a command finds the annotated tests when not through contract.yaml's `tests:` globs: a
//! crate named by its folder (`--tests-root DIR`) or, as cargo names one, by its manifest
//! (`--manifest-path FILE`). One definition of both flags for `check`, `build`, `matrix` and
//! `review`, so that they find the same tests.

use std::path::PathBuf;

use crate::pipeline::TestsAt;
use crate::terminal::{Ctx, Failure};

/// `--tests-root DIR` | `--manifest-path FILE`.
#[derive(clap::Args, Debug, Default, Clone)]
pub(crate) struct TestsFlags {
    /// Scan the Cargo crate in DIR (`tests/**/*.rs`, `src/**/*.rs`) for annotated tests instead
    /// of the `tests:` globs of contract.yaml (which are relative to its folder).
    #[arg(long, value_name = "DIR", conflicts_with = "manifest_path")]
    tests_root: Option<PathBuf>,
    /// Scan the crate of this Cargo.toml (as cargo's --manifest-path): the same as --tests-root
    /// with the manifest's folder.
    #[arg(long, value_name = "FILE")]
    manifest_path: Option<PathBuf>,
}

impl TestsFlags {
    /// Where to look, with `strict` for the review diagnostics. A `--tests-root` that is not a
    /// folder, and a manifest that is missing, not a `Cargo.toml`, not TOML, or a workspace's
    /// without a `[package]`, are usage errors (exit 2): scanning the wrong folder would pass a
    /// gate on tests it never saw.
    pub(crate) fn at(&self, ctx: &Ctx, strict: bool) -> Result<TestsAt, Failure> {
        let root = match (&self.tests_root, &self.manifest_path) {
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
        Ok(TestsAt { root, strict })
    }
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
    let text = std::fs::read_to_string(manifest).map_err(|e| {
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

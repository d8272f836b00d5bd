//! Where a file sits in Cargo's scheme: the package of the nearest `Cargo.toml`, the target (test
//! binary) by Cargo's auto-discovery conventions, and the module path inside it. That is how
//! cargo-nextest and libtest name a test, so it is how results are matched to annotations.
//! `#[path]` attributes and `[[test]] path = …` targets are not followed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A Cargo target, as cargo-nextest names test binaries (without the package).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `src/lib.rs` and the modules under it.
    Lib,
    /// `src/main.rs` (the package's name) or `src/bin/NAME.rs`.
    Bin(String),
    /// `tests/NAME.rs`, or the files under `tests/NAME/`.
    Test(String),
    /// `benches/NAME.rs`.
    Bench(String),
    /// `examples/NAME.rs`.
    Example(String),
    /// A test file of another language: its runner names the test by itself (see
    /// `crate::results` for how its reports are matched).
    Foreign(super::lang::Lang),
}

impl Target {
    /// nextest's binary id: `pkg` (library), `pkg::name` (integration test), `pkg::bin/name`, ….
    pub(crate) fn binary_id(&self, package: &str) -> String {
        match self {
            Target::Lib => package.to_string(),
            Target::Test(n) => format!("{package}::{n}"),
            Target::Bin(n) => format!("{package}::bin/{n}"),
            Target::Bench(n) => format!("{package}::bench/{n}"),
            Target::Example(n) => format!("{package}::example/{n}"),
            Target::Foreign(_) => package.to_string(),
        }
    }

    /// Parse a nextest binary id into (package, target).
    pub(crate) fn parse_binary_id(id: &str) -> (String, Target) {
        match id.split_once("::") {
            None => (id.to_string(), Target::Lib),
            Some((pkg, rest)) => {
                let t = if let Some(n) = rest.strip_prefix("bin/") {
                    Target::Bin(n.to_string())
                } else if let Some(n) = rest.strip_prefix("bench/") {
                    Target::Bench(n.to_string())
                } else if let Some(n) = rest.strip_prefix("example/") {
                    Target::Example(n.to_string())
                } else {
                    Target::Test(rest.to_string())
                };
                (pkg.to_string(), t)
            }
        }
    }
}

/// A file's package, target and module path.
pub(super) struct Place {
    pub package: Option<String>,
    pub target: Option<Target>,
    pub module: Vec<String>,
}

/// The places of the files of one project; each folder's `Cargo.toml` is read once.
pub(super) struct Places<'a> {
    root: &'a Path,
    /// Folder (relative to the root) → the package its `Cargo.toml` names, if any.
    packages: HashMap<PathBuf, Option<String>>,
}

impl<'a> Places<'a> {
    pub(super) fn new(root: &'a Path) -> Self {
        Self {
            root,
            packages: HashMap::new(),
        }
    }

    /// The place of `rel` (relative to the root).
    pub(super) fn of(&mut self, rel: &Path) -> Place {
        // The nearest Cargo.toml with a [package] name, walking up to the root.
        let mut dir = rel.parent().map(Path::to_path_buf).unwrap_or_default();
        let (pkg_dir, package) = loop {
            let root = self.root;
            let name = self
                .packages
                .entry(dir.clone())
                .or_insert_with(|| package_name(&root.join(&dir).join("Cargo.toml")))
                .clone();
            if name.is_some() {
                break (dir, name);
            }
            if !dir.pop() {
                break (PathBuf::new(), None);
            }
        };
        let inner = rel.strip_prefix(&pkg_dir).unwrap_or(rel);
        let parts: Vec<String> = inner
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let (target, module) = target_of(
            &parts,
            self.root.join(&pkg_dir).join("src/lib.rs").exists(),
            package.as_deref(),
        );
        Place {
            package,
            target,
            module,
        }
    }
}

/// Cargo's target auto-discovery, from a path relative to the package root (components).
pub fn target_of(
    parts: &[String],
    has_lib: bool,
    package: Option<&str>,
) -> (Option<Target>, Vec<String>) {
    let stem = |s: &str| s.strip_suffix(".rs").unwrap_or(s).to_string();
    // Module path of the files under a target root: `a/mod.rs` → a, `a/b.rs` → a::b,
    // `main.rs`/`lib.rs` at the root → nothing.
    let modules = |rest: &[String], root_files: &[&str]| -> Vec<String> {
        let mut m: Vec<String> = rest.iter().map(|s| stem(s)).collect();
        if let Some(last) = m.last()
            && (last == "mod" || (rest.len() == 1 && root_files.contains(&last.as_str())))
        {
            m.pop();
        }
        m
    };
    match parts {
        [dir, file] if (dir == "tests" || dir == "benches" || dir == "examples") => {
            let name = stem(file);
            (Some(kind_for(dir, name)), Vec::new())
        }
        [dir, name, rest @ ..] if dir == "tests" || dir == "benches" || dir == "examples" => {
            (Some(kind_for(dir, name.clone())), modules(rest, &["main"]))
        }
        [src, bin, file] if src == "src" && bin == "bin" => {
            (Some(Target::Bin(stem(file))), Vec::new())
        }
        [src, bin, name, rest @ ..] if src == "src" && bin == "bin" => {
            (Some(Target::Bin(name.clone())), modules(rest, &["main"]))
        }
        [src, main] if src == "src" && main == "main.rs" => (
            Some(Target::Bin(package.unwrap_or("main").to_string())),
            Vec::new(),
        ),
        [src, rest @ ..] if src == "src" && !rest.is_empty() => {
            let target = if has_lib {
                Target::Lib
            } else {
                Target::Bin(package.unwrap_or("main").to_string())
            };
            (Some(target), modules(rest, &["lib", "main"]))
        }
        _ => (None, Vec::new()),
    }
}

fn kind_for(dir: &str, name: String) -> Target {
    match dir {
        "tests" => Target::Test(name),
        "benches" => Target::Bench(name),
        _ => Target::Example(name),
    }
}

/// `name` of the `[package]` table of a Cargo.toml; `None` when the file cannot be read or parsed
/// or has no package name of its own (a workspace root, or `name.workspace = true`).
pub fn package_name(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        package: Option<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: Option<toml::Value>,
    }
    let text = kcontract_spec::fsutil::read_text(path).ok()?;
    let manifest: Manifest = toml::from_str(&text).ok()?;
    match manifest.package?.name? {
        toml::Value::String(name) => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_targets_and_module_paths() {
        let p = |s: &str, lib: bool| {
            let parts: Vec<String> = s.split('/').map(String::from).collect();
            let (t, m) = target_of(&parts, lib, Some("pkg"));
            (t.map(|t| t.binary_id("pkg")), m.join("::"))
        };
        assert_eq!(
            p("tests/model_props.rs", true),
            (Some("pkg::model_props".into()), "".into())
        );
        assert_eq!(
            p("tests/contract/main.rs", true),
            (Some("pkg::contract".into()), "".into())
        );
        assert_eq!(
            p("tests/contract/runtime_and_lifecycle.rs", true),
            (Some("pkg::contract".into()), "runtime_and_lifecycle".into())
        );
        assert_eq!(
            p("tests/c/a/mod.rs", true),
            (Some("pkg::c".into()), "a".into())
        );
        assert_eq!(
            p("tests/c/a/b.rs", true),
            (Some("pkg::c".into()), "a::b".into())
        );
        assert_eq!(p("src/lib.rs", true), (Some("pkg".into()), "".into()));
        assert_eq!(p("src/spec.rs", true), (Some("pkg".into()), "spec".into()));
        assert_eq!(
            p("src/site/mod.rs", true),
            (Some("pkg".into()), "site".into())
        );
        assert_eq!(
            p("src/model/runtime.rs", true),
            (Some("pkg".into()), "model::runtime".into())
        );
        assert_eq!(
            p("src/main.rs", false),
            (Some("pkg::bin/pkg".into()), "".into())
        );
        assert_eq!(
            p("src/bin/tool.rs", true),
            (Some("pkg::bin/tool".into()), "".into())
        );
        assert_eq!(
            p("src/bin/tool/x.rs", true),
            (Some("pkg::bin/tool".into()), "x".into())
        );
        assert_eq!(
            p("benches/b.rs", true),
            (Some("pkg::bench/b".into()), "".into())
        );
        assert_eq!(p("build.rs", true), (None, "".into()));
        for id in [
            "pkg",
            "pkg::x",
            "pkg::bin/x",
            "pkg::bench/x",
            "pkg::example/x",
        ] {
            let (pkg, t) = Target::parse_binary_id(id);
            assert_eq!(t.binary_id(&pkg), id);
        }
    }
}

//! What the binary carries: the Knative Runtime Contract as `spec/` was when it was built, which the
//! platform commands judge against from any folder (`kcontract_platform::contract`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kcontract_spec::{LoadOptions, Loaded, Tree};

/// The folder the built-in contract's files are shown under in diagnostics and a finding's help
/// (`kcontract:spec/en/configuration.md:120`): `spec/` of kcontract, as `HEAD:spec/…` names a
/// git revision's file.
pub(crate) const BUILT_IN_DIR: &str = "kcontract:spec";

/// Whether `spec` names the built-in contract rather than a folder: a test author's command run
/// where there is no spec folder sets it (`commands::tests_flags`), and the pipeline then loads
/// the contract below instead of reading a folder.
pub(crate) fn is_built_in(spec: &Path) -> bool {
    spec == Path::new(BUILT_IN_DIR)
}

/// The built-in contract's files, relative to its folder: `contract.yaml` and every chapter of
/// every language it lists (a test holds this list to `spec/`).
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
    ("contract.yaml", include_str!("../spec/contract.yaml")),
    ("en/abstract.md", include_str!("../spec/en/abstract.md")),
    ("en/background.md", include_str!("../spec/en/background.md")),
    (
        "en/runtime-and-lifecycle.md",
        include_str!("../spec/en/runtime-and-lifecycle.md"),
    ),
    (
        "en/network-environment.md",
        include_str!("../spec/en/network-environment.md"),
    ),
    (
        "en/configuration.md",
        include_str!("../spec/en/configuration.md"),
    ),
    ("zh/abstract.md", include_str!("../spec/zh/abstract.md")),
    ("zh/background.md", include_str!("../spec/zh/background.md")),
    (
        "zh/runtime-and-lifecycle.md",
        include_str!("../spec/zh/runtime-and-lifecycle.md"),
    ),
    (
        "zh/network-environment.md",
        include_str!("../spec/zh/network-environment.md"),
    ),
    (
        "zh/configuration.md",
        include_str!("../spec/zh/configuration.md"),
    ),
];

/// The built-in contract, loaded (with every diagnostic the load gives).
pub(crate) fn built_in() -> Loaded {
    let dir = Path::new(BUILT_IN_DIR);
    let files: BTreeMap<PathBuf, Vec<u8>> = BUILT_IN
        .iter()
        .map(|(p, text)| (dir.join(p), text.as_bytes().to_vec()))
        .collect();
    kcontract_spec::load_from(&Tree::Memory(files), dir, LoadOptions::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcontract_platform::contract::{Source, missing};

    /// The built-in contract is spec/: every file `contract.yaml` lists (and no other), loading
    /// without an error to the same clauses, levels and texts; and it has every clause of the
    /// lint's, run's and verify's tables (so K1106 never reaches a user).
    #[test]
    fn the_built_in_contract_is_spec_and_has_every_judged_clause() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let disk = kcontract_spec::load(&root.join("spec"));
        let mut listed = vec!["contract.yaml".to_owned()];
        for lang in &disk.spec.contract.languages {
            for chapter in &disk.spec.contract.chapters {
                listed.push(format!("{lang}/{chapter}.md"));
            }
        }
        let built: Vec<String> = BUILT_IN.iter().map(|(p, _)| (*p).to_owned()).collect();
        assert_eq!(built, listed);
        let loaded = built_in();
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let key = |s: &kcontract_spec::Spec| -> Vec<(String, String, String)> {
            s.clauses
                .iter()
                .map(|c| (c.id.clone(), c.level.as_str().to_owned(), c.text.clone()))
                .collect()
        };
        assert_eq!(key(&loaded.spec), key(&disk.spec));
        for t in [
            kcontract_platform::lint::table(),
            kcontract_platform::checks::table(),
            kcontract_platform::verify::table(),
        ] {
            assert!(
                missing(&loaded.spec, &Source::BuiltIn, &t).is_empty(),
                "{}",
                t.command
            );
        }
    }
}

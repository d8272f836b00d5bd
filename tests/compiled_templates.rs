//! The built-in templates are compiled to Rust (build/templates.rs) and also read by tera at run time
//! when `--templates` overrides them. One definition, two renderings: these tests hold them equal.
//! Each build runs twice, as a user would: plainly (every built-in page compiled), and with
//! `--templates` naming a copy of `templates/` (every template "overridden" by itself, so tera
//! renders every page). The two sites must be byte-identical.

use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::cli::{copy_dir, kcontract, root};

/// Every file under `dir`, by its path relative to `dir`.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel != ".kcontract-manifest" {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

/// Build the project in `dir` with `args`, compiled and interpreted; the two sites are the same.
/// `own_templates`: the project's own `--templates` folder (interface files), merged into both.
fn same_site(dir: &Path, args: &[&str], own_templates: Option<&Path>) {
    let tmp = tempfile::tempdir().unwrap();
    let all = tmp.path().join("all-templates");
    copy_dir(&root().join("templates"), &all);
    let own = tmp.path().join("own-templates");
    std::fs::create_dir_all(&own).unwrap();
    if let Some(t) = own_templates {
        copy_dir(t, &all);
        copy_dir(t, &own);
    }
    let build = |out: &Path, templates: &Path| {
        let mut a: Vec<&str> = vec!["build", "--out", out.to_str().unwrap()];
        a.extend(["--templates", templates.to_str().unwrap()]);
        a.extend(args);
        let (code, _, err) = kcontract(dir, &a);
        assert_eq!(code, 0, "{err}");
    };
    let (compiled, interpreted) = (tmp.path().join("compiled"), tmp.path().join("interpreted"));
    build(&compiled, &own);
    build(&interpreted, &all);
    let (c, i) = (files(&compiled), files(&interpreted));
    assert!(c.len() > 5, "{} files", c.len());
    assert_eq!(c.keys().collect::<Vec<_>>(), i.keys().collect::<Vec<_>>());
    for (rel, bytes) in &c {
        if *bytes != i[rel] {
            let (a, b) = (
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&i[rel]),
            );
            let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            let from = at.saturating_sub(80);
            panic!(
                "{rel} differs at byte {at}:\ncompiled:    {:?}\ninterpreted: {:?}",
                &a[from..(at + 80).min(a.len())],
                &b[from..(at + 80).min(b.len())]
            );
        }
    }
}

/// This repository's build: the shipped contract in English and Chinese, its tests scanned, the
/// runtimes page, the links to the OCI spec and Knative's tests.
#[test]
fn the_repositorys_site() {
    same_site(&root(), &[], None);
}

/// A matrix with every status, results (passed, failed with messages, skipped), and links to each
/// test's source.
#[test]
fn a_matrix_with_results_and_test_links() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("tests/fixtures/matrix"), tmp.path());
    let contract = tmp.path().join("spec/contract.yaml");
    let mut yaml = std::fs::read_to_string(&contract).unwrap();
    yaml.push_str("links:\n  tests: {base: \"https://example.invalid/blob/main/\"}\n");
    std::fs::write(&contract, yaml).unwrap();
    same_site(tmp.path(), &["--results", "results/junit.xml"], None);
    same_site(tmp.path(), &["--results", "results/libtest.txt"], None);
}

/// Three languages, the third partly translated, with its own interface file.
#[test]
fn three_languages() {
    let dir = root().join("tests/fixtures/lang-de");
    same_site(&dir, &[], Some(&dir.join("templates")));
}

/// A vocabulary of its own (actors, verify kinds, labels) in a language of its own.
#[test]
fn a_vocabulary_of_its_own() {
    let dir = root().join("tests/fixtures/vocab");
    same_site(&dir, &[], Some(&dir.join("templates")));
}

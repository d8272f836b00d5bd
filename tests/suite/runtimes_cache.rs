//! The runtimes catalogue's parse cache (`kcontract_oci::runtimes::load_cached`): a catalogue served
//! from it equals one parsed from the YAML, an edited file is parsed again, and a cache that is
//! corrupt, foreign or cannot be written is not used — never an error, never a changed result. A
//! catalogue with problems is never stored, so its diagnostics show on every run.

use std::fs;
use std::path::{Path, PathBuf};

use kcontract_oci::runtimes::{Loaded, load, load_cached};

/// A spec folder holding only a copy of the shipped catalogue (all `load` reads), and a cache folder.
fn copy() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("spec");
    fs::create_dir_all(spec.join("runtimes")).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/runtimes/deviations.yaml"),
        spec.join("runtimes/deviations.yaml"),
    )
    .unwrap();
    let cache = tmp.path().join("target/kcontract");
    (tmp, spec, cache)
}

/// What a load returns, apart from what the cache did.
fn result(l: &Loaded) -> String {
    format!("{:#?}\n{:#?}\n{:#?}", l.catalogue, l.diagnostics, l.sources)
}

fn note(l: &Loaded) -> &str {
    l.cache.as_deref().expect("a cache was given")
}

#[test]
fn a_cold_then_a_warm_cache_give_the_parsed_catalogue() {
    let (_tmp, spec, cache) = copy();
    let plain = load(&spec);
    assert!(plain.catalogue.is_some() && plain.diagnostics.is_empty());
    assert_eq!(plain.cache, None);
    let cold = load_cached(&spec, Some(&cache));
    assert_eq!(note(&cold), "runtimes cache: parsed, written");
    assert!(cache.join("runtimes-cache.json").is_file());
    let warm = load_cached(&spec, Some(&cache));
    assert_eq!(note(&warm), "runtimes cache: used");
    assert_eq!(result(&cold), result(&plain));
    assert_eq!(result(&warm), result(&plain));
}

#[test]
fn an_edited_catalogue_is_parsed_again() {
    let (_tmp, spec, cache) = copy();
    load_cached(&spec, Some(&cache));
    let file = spec.join("runtimes/deviations.yaml");
    let text = fs::read_to_string(&file).unwrap();
    let (at, _) = text.match_indices("\n  title: ").next().unwrap();
    let at = at + "\n  title: ".len();
    let edited = format!("{}Edited {}", &text[..at], &text[at..]);
    fs::write(&file, &edited).unwrap();
    let after = load_cached(&spec, Some(&cache));
    assert_eq!(note(&after), "runtimes cache: parsed, written");
    let first = &after.catalogue.as_ref().unwrap().deviations[0];
    assert!(first.title.starts_with("Edited "), "{}", first.title);
    assert_eq!(result(&after), result(&load(&spec)));
    assert_eq!(
        note(&load_cached(&spec, Some(&cache))),
        "runtimes cache: used"
    );
}

#[test]
fn a_corrupt_truncated_or_foreign_cache_is_not_used() {
    let (_tmp, spec, cache) = copy();
    let plain = result(&load(&spec));
    load_cached(&spec, Some(&cache));
    let stored = cache.join("runtimes-cache.json");
    let good = fs::read(&stored).unwrap();
    let foreign = String::from_utf8(good.clone()).unwrap().replacen(
        "\"kcontract\":\"",
        "\"kcontract\":\"0.0.0-",
        1,
    );
    for bad in [
        b"not json".to_vec(),
        good[..good.len() / 2].to_vec(),
        foreign.into_bytes(),
    ] {
        fs::write(&stored, &bad).unwrap();
        let l = load_cached(&spec, Some(&cache));
        assert_eq!(note(&l), "runtimes cache: parsed, written");
        assert_eq!(result(&l), plain);
    }
}

#[test]
fn a_cache_that_cannot_be_written_changes_nothing() {
    let (tmp, spec, _) = copy();
    // A file where the cache folder should be.
    let blocked = tmp.path().join("blocked");
    fs::write(&blocked, "").unwrap();
    let l = load_cached(&spec, Some(&blocked));
    assert!(
        note(&l).starts_with("runtimes cache: parsed, not written ("),
        "{}",
        note(&l)
    );
    assert_eq!(result(&l), result(&load(&spec)));
}

#[test]
fn a_catalogue_with_problems_is_never_stored() {
    let (_tmp, spec, cache) = copy();
    let file = spec.join("runtimes/deviations.yaml");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(&file, text.replacen("\n  title: ", "\n  titel: ", 1)).unwrap();
    for _ in 0..2 {
        let l = load_cached(&spec, Some(&cache));
        assert!(l.catalogue.is_none());
        assert_eq!(l.diagnostics.len(), 1, "{:#?}", l.diagnostics);
        assert_eq!(l.diagnostics[0].code, "K0701");
        assert_eq!(l.cache, None);
        assert!(!cache.join("runtimes-cache.json").exists());
    }
}

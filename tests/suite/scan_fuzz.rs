//! The annotation scanner, the scaffold merge and the results readers on hostile input: arbitrary
//! text and corrupted versions of real files never panic, and every span they return lies inside
//! the text on character boundaries (so diagnostics can always quote it).

use std::collections::BTreeMap;
use std::path::Path;

use kcontract_spec::Spec;
use kcontract_spec::diagnostic::FileId;
use kcontract_trace::annotations::{may_hold_annotation, parse_source};
use kcontract_trace::results::{parse_junit, parse_libtest};
use kcontract_trace::scaffold::merge_file;
use proptest::prelude::*;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

fn in_text(text: &str, r: &std::ops::Range<usize>) -> bool {
    r.start <= r.end
        && r.end <= text.len()
        && text.is_char_boundary(r.start)
        && text.is_char_boundary(r.end)
}

fn check_scan(text: &str) {
    match parse_source(text) {
        Ok(syn) => {
            for f in &syn.fns {
                assert!(in_text(text, &f.range), "{f:?}");
                assert!(in_text(text, &f.body), "{f:?}");
                assert!(in_text(text, &f.name_range), "{f:?}");
                for a in &f.attrs {
                    assert!(in_text(text, &a.range), "{a:?}");
                }
            }
            for s in &syn.sites {
                assert!(
                    in_text(text, &s.id_range) && in_text(text, &s.marker_range),
                    "{s:?}"
                );
            }
            // The scan does not tokenise a file the prefilter rejects: it must have no sites.
            assert!(
                syn.sites.is_empty() || may_hold_annotation(text.as_bytes()),
                "{:?}",
                syn.sites
            );
        }
        Err(e) => assert!(in_text(text, &e.range), "{e:?}"),
    }
}

/// Real files with a few bytes deleted, duplicated or replaced.
fn corrupted() -> impl Strategy<Value = String> {
    let sources = [
        read("tests/suite/model_props.rs"),
        read("tests/contract/runtime_and_lifecycle.rs"),
        read("tests/fixtures/matrix/tests/checks.rs"),
    ];
    (
        0..sources.len(),
        prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, "[\\PC]{0,3}"), 1..6),
    )
        .prop_map(move |(i, edits)| {
            let mut t = sources[i].clone();
            for (at, kind, s) in edits {
                let mut p = at.index(t.len().max(1));
                while !t.is_char_boundary(p) {
                    p -= 1;
                }
                match kind {
                    0 => {
                        let mut end = (p + 5).min(t.len());
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        t.replace_range(p..end, "");
                    }
                    1 => t.insert_str(p, &s),
                    _ => {
                        let chunk: String = t[p..].chars().take(20).collect();
                        t.insert_str(p, &chunk);
                    }
                }
            }
            t
        })
}

fn empty_spec() -> Spec {
    Spec::default()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check_scan(&text);
        let _ = merge_file("x.rs", &text, &[], &empty_spec());
        let _ = parse_libtest(&text, FileId(0));
        let _ = parse_junit(&text, FileId(0));
    }

    #[test]
    fn rust_shaped_text_never_panics(text in "(///? ?Clause: [a-z.\\-]{0,12}\n|#\\[(test|ignore = \"not yet written: a.b\")\\]\n|fn [a-z]{1,3}\\(\\) \\{ todo!\\(\\) \\}\n|proptest! \\{ |\\}|mod m \\{|\"|r#\"|/\\*|\\*/|\n){0,30}") {
        check_scan(&text);
        let _ = merge_file("x.rs", &text, &[], &empty_spec());
    }

    /// Doc lines and attributes that spell the marker in other cases or with string escapes.
    #[test]
    fn spelt_markers_are_never_skipped(text in "((///? ?|//! |#\\[doc = \"|/\\*\\* )([cC][lL]|\\\\x43l|\\\\u\\{63\\}l)[aA][uU][sS][eE](:|\\\\x3a|\\\\u\\{3a\\}) ?[a-z.]{0,8}(\"\\]|\\*/)?\n(#\\[test\\]\nfn t\\(\\) \\{\\}\n)?){1,4}") {
        check_scan(&text);
    }

    #[test]
    fn corrupted_real_files_never_panic(text in corrupted()) {
        check_scan(&text);
        if let Ok((merged, report, _)) = merge_file("x.rs", &text, &[], &empty_spec()) {
            // With an empty contract every claiming test someone wrote is an orphan, kept; the
            // untouched stubs are generated code and go. Every other function is kept byte for
            // byte, and merging again changes nothing.
            let syn = parse_source(&text).unwrap();
            let spec = empty_spec();
            for f in &syn.fns {
                let gone = f.is_test()
                    && kcontract_trace::scaffold::untouched_stub(&text, &syn, f, &spec).is_some();
                if !gone {
                    prop_assert!(merged.contains(&text[f.range.clone()]));
                }
            }
            prop_assert_eq!(report.removed.len(), syn.fns.iter().filter(|f| f.is_test() && kcontract_trace::scaffold::untouched_stub(&text, &syn, f, &spec).is_some()).count());
            let (again, _, _) = merge_file("x.rs", &merged, &[], &spec).unwrap();
            prop_assert_eq!(again, merged);
        }
    }

    #[test]
    fn corrupted_results_never_panic(cut in 0usize..4000, junk in "\\PC{0,8}") {
        for f in ["tests/fixtures/matrix/results/junit.xml", "tests/fixtures/matrix/results/libtest.txt"] {
            let mut t = read(f);
            let mut p = cut.min(t.len());
            while !t.is_char_boundary(p) {
                p -= 1;
            }
            t.insert_str(p, &junk);
            let _ = parse_junit(&t, FileId(0));
            let _ = parse_libtest(&t, FileId(0));
            t.truncate(p);
            let _ = parse_junit(&t, FileId(0));
            let _ = parse_libtest(&t, FileId(0));
        }
    }
}

/// A merge with nothing to add and an empty contract leaves a real file byte for byte as it was.
#[test]
fn merging_into_real_files_with_nothing_to_do_changes_nothing() {
    let files: BTreeMap<&str, String> = [
        ("model_props.rs", read("tests/suite/model_props.rs")),
        ("model_replay.rs", read("tests/suite/model_replay.rs")),
        ("checks.rs", read("tests/fixtures/matrix/tests/checks.rs")),
    ]
    .into();
    for (name, text) in files {
        let (merged, report, orphans) = merge_file(name, &text, &[], &empty_spec()).unwrap();
        assert_eq!(merged, text, "{name}");
        assert!(report.added.is_empty() && report.refreshed.is_empty());
        assert!(
            !orphans.is_empty(),
            "{name}: every claim is an orphan of the empty contract"
        );
    }
}

/// The shipped spec, loaded once for the cache property below.
static SPEC: std::sync::LazyLock<Spec> = std::sync::LazyLock::new(|| {
    kcontract_spec::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("spec")).spec
});

/// A scan's result, without what the cache did.
fn scanned(s: &kcontract_trace::annotations::Scan) -> String {
    format!("{:?}\n{:?}\n{:?}", s.tests, s.diagnostics, s.sources)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever a file holds (lexes or not, annotations or not), its syntax read back from the
    /// cache gives the scan that lexing it gives: the stored form loses nothing.
    #[test]
    fn a_file_served_from_the_cache_scans_as_when_lexed(text in corrupted()) {
        use kcontract_trace::annotations::{CacheChoice, CacheStatus, scan_with};
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/x.rs"), &text).unwrap();
        let at = CacheChoice::At(dir.path().join("scan-cache.json"));
        let (_, globs) = kcontract_trace::annotations::rooted(std::path::Path::new("spec"), &SPEC.contract.tests);
        let globs = &globs;
        let plain = scan_with(&SPEC, dir.path(), globs, &CacheChoice::Off);
        scan_with(&SPEC, dir.path(), globs, &at);
        let warm = scan_with(&SPEC, dir.path(), globs, &at);
        prop_assert!(matches!(warm.cache, CacheStatus::Used { misses: 0, .. }), "{}", warm.cache);
        prop_assert_eq!(scanned(&warm), scanned(&plain));
    }
}

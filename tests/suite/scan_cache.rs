//! The scan's syntax cache (`kcontract_trace::annotations::CacheChoice`): a scan served from it equals a
//! scan that lexes everything, an edited file is lexed again, and a cache that is corrupt,
//! truncated, foreign or cannot be written is ignored — never an error, never a changed result.

use std::fs;
use std::path::{Path, PathBuf};

use kcontract_spec::Spec;
use kcontract_trace::annotations::{CacheChoice, CacheOutcome, CacheStatus, Scan, scan_with};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn spec_of(dir: &Path) -> Spec {
    let loaded = kcontract_spec::load(dir);
    assert!(!loaded.has_errors());
    loaded.spec
}

/// Everything a scan returns except what the cache did: the tests, the diagnostics, the files
/// their spans point into and the number of files.
fn result(s: &Scan) -> String {
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{}",
        s.tests, s.diagnostics, s.sources, s.files
    )
}

fn scan(spec: &Spec, root: &Path, cache: &CacheChoice) -> Scan {
    let (_, globs) = kcontract_trace::annotations::rooted(Path::new("spec"), &spec.contract.tests);
    scan_with(spec, root, &globs, cache)
}

fn counts(s: &Scan) -> (usize, usize, Option<String>, CacheOutcome) {
    match &s.cache {
        CacheStatus::Used {
            hits,
            misses,
            ignored,
            outcome,
            ..
        } => (*hits, *misses, ignored.clone(), outcome.clone()),
        CacheStatus::Off => panic!("the cache was off"),
    }
}

/// A cold, then a warm cache give the uncached result, on `root` scanned with the spec in `spec_dir`.
fn same_with_and_without(spec_dir: &Path, root: &Path) {
    let spec = spec_of(spec_dir);
    let dir = tempfile::tempdir().unwrap();
    let at = CacheChoice::At(dir.path().join("kcontract/scan-cache.json"));
    let plain = scan(&spec, root, &CacheChoice::Off);
    assert_eq!(plain.cache, CacheStatus::Off);
    let cold = scan(&spec, root, &at);
    let (hits, lexed, ignored, outcome) = counts(&cold);
    assert_eq!((hits, ignored, outcome), (0, None, CacheOutcome::Written));
    assert!(lexed > 0);
    let warm = scan(&spec, root, &at);
    assert_eq!(
        counts(&warm),
        (lexed, 0, None, CacheOutcome::Unchanged),
        "every file from the cache, nothing rewritten"
    );
    assert_eq!(result(&cold), result(&plain));
    assert_eq!(result(&warm), result(&plain));
}

#[test]
fn a_warm_cache_gives_the_same_scan_on_this_repository() {
    same_with_and_without(&repo().join("spec"), &repo());
}

#[test]
fn a_warm_cache_gives_the_same_scan_on_the_fixture() {
    let fixture = repo().join("tests/fixtures/matrix");
    same_with_and_without(&fixture.join("spec"), &fixture);
}

/// A project in a temporary folder, scanned with the repository's spec (its `tests:` globs and
/// clause ids).
struct Project {
    dir: tempfile::TempDir,
    spec: Spec,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = dir.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        Project {
            dir,
            spec: spec_of(&repo().join("spec")),
        }
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn cache_file(&self) -> PathBuf {
        self.root().join("target/kcontract/scan-cache.json")
    }
    fn cached(&self) -> Scan {
        scan(&self.spec, self.root(), &CacheChoice::At(self.cache_file()))
    }
    fn uncached(&self) -> Scan {
        scan(&self.spec, self.root(), &CacheChoice::Off)
    }
}

/// Two clause ids of the shipped spec.
fn ids() -> (String, String) {
    let spec = spec_of(&repo().join("spec"));
    let mut it = spec.clauses.iter().map(|c| c.id.clone());
    (it.next().unwrap(), it.next().unwrap())
}

fn claimed(s: &Scan) -> Vec<(String, Vec<String>)> {
    // Tests claiming only ids the contract lacks are kept for the matrix (stale claims): not here.
    s.tests
        .iter()
        .filter(|t| !t.claims.is_empty())
        .map(|t| {
            (
                t.path.clone(),
                t.claims.iter().map(|c| c.id.clone()).collect(),
            )
        })
        .collect()
}

#[test]
fn an_edited_file_is_lexed_again_and_its_new_annotations_are_found() {
    let (a, b) = ids();
    let one = format!("/// Clause: {a}\n#[test]\nfn first() {{}}\n");
    let p = Project::new(&[
        ("tests/x.rs", &one),
        (
            "tests/y.rs",
            "/// Clause: no.such-clause\n#[test]\nfn other() {}\n",
        ),
    ]);
    let first = p.cached();
    assert_eq!(counts(&first), (0, 2, None, CacheOutcome::Written));
    assert_eq!(claimed(&first), [("first".to_string(), vec![a.clone()])]);
    // Same length, new content; then a longer file with a second test.
    fs::write(p.root().join("tests/x.rs"), one.replace("first", "frost")).unwrap();
    let renamed = p.cached();
    assert_eq!(counts(&renamed), (1, 1, None, CacheOutcome::Written));
    assert_eq!(claimed(&renamed), [("frost".to_string(), vec![a.clone()])]);
    let two = format!("{one}\n/// Clause: {b}\n#[test]\nfn second() {{}}\n");
    fs::write(p.root().join("tests/x.rs"), &two).unwrap();
    let edited = p.cached();
    assert_eq!(counts(&edited), (1, 1, None, CacheOutcome::Written));
    assert_eq!(
        claimed(&edited),
        [
            ("first".to_string(), vec![a.clone()]),
            ("second".to_string(), vec![b.clone()])
        ]
    );
    assert_eq!(result(&edited), result(&p.uncached()));
    // The unknown id in y.rs is reported whether its syntax came from the cache or not.
    assert!(result(&edited).contains("no.such-clause"));
}

/// How many files without the marker the scan skipped unread.
fn unread(s: &Scan) -> usize {
    match &s.cache {
        CacheStatus::Used { unread, .. } => *unread,
        CacheStatus::Off => panic!("the cache was off"),
    }
}

/// A file without the marker is skipped unread once it has settled, and read again as soon as it
/// is written: here with the same length and its old modification time put back, so only its
/// change time tells. (Waits 3.1 s for the file to settle: its stamp is not kept before.)
#[test]
fn a_file_without_the_marker_is_read_again_once_written_even_with_its_old_mtime() {
    let (a, _) = ids();
    let after = format!("/// Clause: {a}\n#[test]\nfn plain() {{}}\n");
    let base = "#[test]\nfn plain() {}\n";
    // The same length: a comment line (no marker) where the annotation will be.
    let before = format!("{base}//{}\n", "-".repeat(after.len() - base.len() - 3));
    assert_eq!(before.len(), after.len());
    let p = Project::new(&[("tests/x.rs", &before)]);
    let x = p.root().join("tests/x.rs");
    let fresh = p.cached();
    assert_eq!(unread(&fresh), 0, "just written: read, and not recorded");
    std::thread::sleep(std::time::Duration::from_millis(3100));
    let settled = p.cached();
    assert_eq!(unread(&settled), 0);
    assert_eq!(counts(&settled).3, CacheOutcome::Written, "now recorded");
    let skipped = p.cached();
    assert_eq!(unread(&skipped), 1, "{}", skipped.cache);
    assert_eq!(counts(&skipped).3, CacheOutcome::Unchanged);
    assert!(claimed(&skipped).is_empty());
    let mtime = fs::metadata(&x).unwrap().modified().unwrap();
    fs::write(&x, &after).unwrap();
    fs::File::options()
        .write(true)
        .open(&x)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(fs::metadata(&x).unwrap().modified().unwrap(), mtime);
    let edited = p.cached();
    assert_eq!(unread(&edited), 0, "{}", edited.cache);
    assert_eq!(claimed(&edited), [("plain".to_string(), vec![a])]);
    assert_eq!(result(&edited), result(&p.uncached()));
}

#[test]
fn a_corrupt_truncated_or_foreign_cache_is_ignored_and_rebuilt() {
    let (a, _) = ids();
    let p = Project::new(&[(
        "tests/x.rs",
        &format!("/// Clause: {a}\n#[test]\nfn t() {{}}\nfn broken() {{ \"unterminated }}\n"),
    )]);
    let plain = result(&p.uncached());
    p.cached();
    let good = fs::read_to_string(p.cache_file()).unwrap();
    let foreign = good.replacen(
        &format!("\"kcontract\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"kcontract\":\"0.0.0-other\"",
        1,
    );
    assert_ne!(foreign, good);
    let bad: [(&str, Vec<u8>); 5] = [
        ("garbage", b"not json at all".to_vec()),
        ("truncated", good.as_bytes()[..good.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("foreign", foreign.into_bytes()),
        ("not UTF-8", vec![0xff, 0xfe, b'{']),
    ];
    for (what, bytes) in bad {
        fs::write(p.cache_file(), &bytes).unwrap();
        let s = p.cached();
        let (hits, misses, ignored, outcome) = counts(&s);
        assert_eq!((hits, misses), (0, 1), "{what}");
        assert!(ignored.is_some(), "{what}: the note says why");
        assert_eq!(outcome, CacheOutcome::Written, "{what}");
        assert_eq!(result(&s), plain, "{what}");
        assert_eq!(
            fs::read_to_string(p.cache_file()).unwrap(),
            good,
            "{what}: rebuilt"
        );
    }
    // A cache that is a folder cannot be read or written: still the same scan.
    fs::remove_file(p.cache_file()).unwrap();
    fs::create_dir(p.cache_file()).unwrap();
    let s = p.cached();
    let (_, _, ignored, outcome) = counts(&s);
    assert!(ignored.is_some());
    assert!(
        matches!(outcome, CacheOutcome::NotWritten(_)),
        "{outcome:?}"
    );
    assert_eq!(result(&s), plain);
    assert!(
        s.cache.to_string().contains("could not be written"),
        "{}",
        s.cache
    );
}

#[test]
fn a_cache_that_cannot_be_written_changes_nothing() {
    let (a, _) = ids();
    let p = Project::new(&[(
        "tests/x.rs",
        &format!("/// Clause: {a}\n#[test]\nfn t() {{}}\n"),
    )]);
    // The cache's folder would be inside a file.
    fs::write(p.root().join("target"), "a file, not a folder").unwrap();
    let s = p.cached();
    let (_, _, _, outcome) = counts(&s);
    assert!(
        matches!(outcome, CacheOutcome::NotWritten(_)),
        "{outcome:?}"
    );
    assert_eq!(result(&s), result(&p.uncached()));
}

#[test]
fn the_default_cache_is_in_cargos_target_folder_and_only_when_there_is_one() {
    let p = Project::new(&[("tests/x.rs", "")]);
    // Also with KCONTRACT_NO_CACHE set (not touched here: tests run in parallel), it is off.
    if std::env::var_os("KCONTRACT_NO_CACHE").is_some() {
        return;
    }
    assert_eq!(CacheChoice::for_root(p.root()), CacheChoice::Off);
    assert!(!p.root().join("target").exists(), "nothing created");
    fs::create_dir(p.root().join("target")).unwrap();
    assert_eq!(
        CacheChoice::for_root(p.root()),
        CacheChoice::At(p.cache_file())
    );
}

/// `build --timings` says how the cache served; the site is the same with and without it.
#[test]
fn build_timings_report_the_cache_and_the_site_does_not_depend_on_it() {
    let (a, _) = ids();
    let p = Project::new(&[(
        "tests/x.rs",
        &format!("/// Clause: {a}\n#[test]\nfn t() {{}}\n"),
    )]);
    fs::create_dir(p.root().join("target")).unwrap();
    let build = |out: &str, no_cache: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_kcontract"));
        c.current_dir(p.root())
            .args(["--spec", repo().join("spec").to_str().unwrap()])
            .args(["build", "--timings", "--tests-root", ".", "--out", out]);
        c.env_remove("KCONTRACT_NO_CACHE");
        if no_cache {
            c.env("KCONTRACT_NO_CACHE", "1");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{o:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        let line = err
            .lines()
            .find(|l| l.contains("scan cache:"))
            .map(str::trim);
        (
            line.unwrap_or("no scan cache line").to_string(),
            p.root().join(out),
        )
    };
    let (cold, _) = build("a", false);
    assert!(
        cold.ends_with(
            "0 files from ./target/kcontract/scan-cache.json, 1 lexed, 0 without the marker not read; written"
        ),
        "{cold}"
    );
    let (warm, with) = build("b", false);
    assert!(
        warm.ends_with(
            "1 files from ./target/kcontract/scan-cache.json, 0 lexed, 0 without the marker not read; unchanged"
        ),
        "{warm}"
    );
    let (off, without) = build("c", true);
    assert!(off.starts_with("scan cache: off"), "{off}");
    let files = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let e = e.unwrap().path();
                if e.is_dir() {
                    stack.push(e);
                } else {
                    v.push((
                        e.strip_prefix(dir).unwrap().to_path_buf(),
                        fs::read(&e).unwrap(),
                    ));
                }
            }
        }
        v.sort();
        v
    };
    let (w, wo) = (files(&with), files(&without));
    assert!(w.len() > 10);
    assert!(w == wo, "the site differs with and without the cache");
}
